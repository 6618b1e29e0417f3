/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for NVIDIA's nv-p2p.h, written for nvfab from the API as
 * NVIDIA documents it (the GPUDirect RDMA guide and the public header of
 * the open GPU kernel modules), so that
 * drivers/nvfab/peermem/peermem-nvidia.c compiles where no NVIDIA driver
 * source is installed:
 *
 *	make NVIDIA_SRC=$PWD/tools/testing/nv-p2p-stub
 *
 * Only what nvfab uses is declared. The structure layouts follow the public
 * header; nothing here is ever linked or loaded: a module built against
 * this file has undefined nvidia_p2p_* symbols (modpost is told to warn)
 * and must not be installed. Build against the real header on a GPU node
 * (Documentation/admin-guide/nvfab-peermem.rst, "NVIDIA provider").
 */
#ifndef _NVFAB_NV_P2P_STUB_H
#define _NVFAB_NV_P2P_STUB_H

#include <linux/types.h>

/* Which header this is, for the build's messages. */
#define NVFAB_NV_P2P_STUB	1

/*
 * A structure's version: major in the upper 16 bits, minor in the lower.
 * The driver's structure is compatible when the majors are equal and its
 * minor is at least ours.
 */
#define NVIDIA_P2P_MAJOR_VERSION(v)	(((v) >> 16) & 0xffff)
#define NVIDIA_P2P_MINOR_VERSION(v)	((v) & 0xffff)

static inline bool nvfab_nv_p2p_version_ok(u32 have, u32 want)
{
	return NVIDIA_P2P_MAJOR_VERSION(have) == NVIDIA_P2P_MAJOR_VERSION(want) &&
	       NVIDIA_P2P_MINOR_VERSION(have) >= NVIDIA_P2P_MINOR_VERSION(want);
}

#define NVIDIA_P2P_VERSION_COMPATIBLE(p, v)				\
	nvfab_nv_p2p_version_ok((p)->version, (v))

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

struct nvidia_p2p_page {
	u64	physical_address;
	union {
		struct {
			u32	wreqmb_h;
			u32	rreqmb_h;
			u32	rreqmb_0;
			u32	reserved[3];
		} fermi;
	} registers;
};

#define NVIDIA_P2P_PAGE_TABLE_VERSION	0x00010002
#define NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(p)			\
	NVIDIA_P2P_VERSION_COMPATIBLE(p, NVIDIA_P2P_PAGE_TABLE_VERSION)

struct nvidia_p2p_page_table {
	u32			version;
	u32			page_size;	/* enum nvidia_p2p_page_size_type */
	struct nvidia_p2p_page	**pages;
	u32			entries;
	u8			*gpu_uuid;
};

#define NVIDIA_P2P_DMA_MAPPING_VERSION	0x00020003
#define NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(p)			\
	NVIDIA_P2P_VERSION_COMPATIBLE(p, NVIDIA_P2P_DMA_MAPPING_VERSION)

struct pci_dev;

struct nvidia_p2p_dma_mapping {
	u32				version;
	enum nvidia_p2p_page_size_type	page_size_type;
	u32				entries;
	u64				*dma_addresses;
	void				*private;
	struct pci_dev			*pci_dev;
};

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 u64 length, struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping);
int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif /* _NVFAB_NV_P2P_STUB_H */
