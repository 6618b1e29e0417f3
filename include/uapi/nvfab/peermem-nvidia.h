/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User interface of nvfab-peermem-nvidia (Documentation/admin-guide/
 * nvfab-peermem.rst, "NVIDIA provider").
 *
 * 1. open("/dev/nvfab-peermem-nvidia", O_RDWR) in the process that owns the
 *    CUDA allocation (cudaMalloc(); nvidia_p2p_get_pages() finds the GPU
 *    virtual address in the caller's CUDA address space).
 * 2. NVFAB_PEERMEM_NVIDIA_PIN with gpu_va and len, both multiples of
 *    64 KiB (NVFAB_PEERMEM_NVIDIA_ALIGN): the GPU pages are pinned, host
 *    pages of the same size are allocated as their stand-ins and claimed,
 *    and @offset is set.
 * 3. mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset): the
 *    stand-ins. O_DIRECT I/O on /dev/nvfabXnY with this buffer moves the
 *    data between the fabric and GPU memory; byte N of the mapping is byte
 *    N of the GPU range. The stand-ins' own bytes are never read or written
 *    by such I/O (they stay zero).
 * 4. NVFAB_PEERMEM_NVIDIA_UNPIN with the same offset, or close(): the pin
 *    goes once every mapping of the buffer is gone as well.
 *
 * When the GPU memory is freed first (cudaFree(), the CUDA context's end),
 * the driver revokes the buffer: later I/O on it fails with EREMOTEIO.
 */
#ifndef _UAPI_NVFAB_PEERMEM_NVIDIA_H
#define _UAPI_NVFAB_PEERMEM_NVIDIA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NVFAB_PEERMEM_NVIDIA_DEV	"/dev/nvfab-peermem-nvidia"
#define NVFAB_PEERMEM_NVIDIA_ALIGN	0x10000ULL	/* the GPU page: 64 KiB */

/**
 * struct nvfab_peermem_nvidia_pin - argument of NVFAB_PEERMEM_NVIDIA_PIN
 * @gpu_va:	in: first byte of the GPU range, 64 KiB aligned
 * @len:	in: its length in bytes, a multiple of 64 KiB, at most the
 *		module parameter max_len_mb MiB
 * @offset:	out: the mmap() offset of the stand-ins, and the argument
 *		of NVFAB_PEERMEM_NVIDIA_UNPIN
 * @flags:	in: 0
 * @reserved:	in: 0
 */
struct nvfab_peermem_nvidia_pin {
	__u64	gpu_va;
	__u64	len;
	__u64	offset;
	__u32	flags;
	__u32	reserved;
};

#define NVFAB_PEERMEM_NVIDIA_PIN	_IOWR('N', 0xe8, struct nvfab_peermem_nvidia_pin)
#define NVFAB_PEERMEM_NVIDIA_UNPIN	_IO('N', 0xe9)

#endif /* _UAPI_NVFAB_PEERMEM_NVIDIA_H */
