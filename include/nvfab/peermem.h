/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab peer memory: the boundary between peer-memory providers and the
 * transports (Documentation/admin-guide/nvfab-peermem.rst).
 *
 * Peer memory is memory that is not the host's (a GPU's, an NVMe CMB, a
 * test BAR) and that an RDMA device may read and write directly, so that
 * the data of an NVMe/RDMA command lands there without a copy through
 * host memory. The pages an application passes for such I/O are either
 *
 *  - pages the provider recognises itself (owns_page), such as P2PDMA's
 *    ZONE_DEVICE pages, or
 *  - ordinary host pages that a provider has claimed as stand-ins for
 *    device memory (nvfab_peer_claim(); the GPUDirect Storage model): at
 *    DMA-map time the provider hands out the device's DMA addresses
 *    instead of the host pages'.
 *
 * A transport maps a request's scatterlist through nvfab_peer_map_sg().
 * When the pages are host memory it returns 0 and the transport maps them
 * as usual; when they are peer memory the provider maps them, or the
 * request fails with a non-retryable status (nvfab_peer_blk_status()): a
 * peer I/O is never requeued forever and never silently bounced through
 * host memory.
 */
#ifndef _NVFAB_PEERMEM_H
#define _NVFAB_PEERMEM_H

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/completion.h>
#include <linux/dma-direction.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/percpu-refcount.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

struct device;
struct nvfab_peer_claim;
struct nvfab_peer_map;
struct page;
struct request;

/**
 * struct nvfab_peer_dma_dev - the device that will do a peer mapping's DMA
 * @dev:	the DMA device (an RDMA device's dma_device); NULL for a
 *		software device that moves data with the CPU at kernel
 *		virtual addresses (rdma_rxe, siw: ib_uses_virt_dma())
 * @name:	its name for messages and provider policies (the ib_device
 *		name)
 * @fence:	optional: called by nvfab_peer_revoke() for each mapping made
 *		for this device that is still in place when its claim is
 *		revoked. It must make the device stop using the mapping
 *		promptly (invalidate or deregister the memory registrations
 *		that name it, for example by failing the queue that carries
 *		it) and lead to its nvfab_peer_unmap_sg(); it must neither
 *		wait for that nor unmap itself. Called in process context with a spinlock held
 *		(interrupts off): it must not sleep.
 */
struct nvfab_peer_dma_dev {
	struct device	*dev;
	const char	*name;
	void		(*fence)(struct nvfab_peer_map *map);
};

/**
 * struct nvfab_peer_ops - what a provider implements
 * @owns_page:	optional: whether @page is this provider's memory without a
 *		claim (P2PDMA's ZONE_DEVICE pages). Called under RCU on the
 *		submission path: must not sleep.
 * @distance:	required: the P2P distance (PCI hops, as
 *		pci_p2pdma_distance() counts them) from the memory of @map
 *		(@map->claim, or @map->page for owns_page memory) to
 *		@map->dma, or -EREMOTEIO when that device cannot reach it. A
 *		software device (@map->dma->dev NULL) that reaches the memory
 *		is at distance 0. Must not sleep.
 * @map_sg:	required: DMA-map the @nents entries of @sgl for @map->dma,
 *		setting sg_dma_address() and sg_dma_len() of the entries used;
 *		return the number of DMA segments (> 0), -EREMOTEIO when the
 *		device cannot reach the memory, or another negative errno.
 *		Must not sleep (blk_mq_ops.queue_rq).
 * @unmap_sg:	required: undo a successful @map_sg. Any context.
 *
 * @map->claim is the claim the pages fall in (NULL for owns_page memory)
 * and nvfab_peer_claim_priv() its provider data.
 */
struct nvfab_peer_ops {
	bool (*owns_page)(struct page *page);
	int (*distance)(const struct nvfab_peer_map *map);
	int (*map_sg)(struct nvfab_peer_map *map, struct scatterlist *sgl,
		      int nents);
	void (*unmap_sg)(struct nvfab_peer_map *map, struct scatterlist *sgl,
			 int nents);
};

/**
 * struct nvfab_peer_stats - what the registry counted for a provider
 * @ios:	I/Os mapped through the provider
 * @bytes:	bytes they carried
 * @unreachable: mappings refused because the DMA device cannot reach
 *		the memory (-EREMOTEIO)
 * @revoked:	I/Os refused because the pages were revoked, by
 *		nvfab_peer_map_sg() or, before any mapping, by the multipath
 *		head (nvfab_peer_page_distance())
 * @failures:	other mapping failures (the provider's errors, mixed
 *		requests)
 */
struct nvfab_peer_stats {
	atomic64_t	ios;
	atomic64_t	bytes;
	atomic64_t	unreachable;
	atomic64_t	revoked;
	atomic64_t	failures;
};

/**
 * struct nvfab_peer_provider - a registered provider
 * @name:	unique name, shown in messages (e.g. "p2pdma", "nvidia")
 * @owner:	the module that implements @ops (THIS_MODULE)
 * @ops:	the provider's operations
 * @stats:	counters kept by nvfab-peermem, read with atomic64_read()
 *
 * The rest is private to nvfab-peermem:
 * @list:	entry in the registry (RCU list)
 * @registered:	between nvfab_peer_register() and nvfab_peer_unregister()
 * @nr_claims:	live claims
 * @maps:	live mappings of owns_page memory
 * @drained:	completed when @maps reaches zero after unregistering
 */
struct nvfab_peer_provider {
	const char			*name;
	struct module			*owner;
	const struct nvfab_peer_ops	*ops;
	struct nvfab_peer_stats		stats;
	struct list_head		list;
	bool				registered;
	atomic_t			nr_claims;
	struct percpu_ref		maps;
	struct completion		drained;
};

/**
 * struct nvfab_peer_map - one request's peer mapping
 * @prov:	the provider whose memory the pages are; NULL for host memory
 * @claim:	the claim they fall in; NULL for host or owns_page memory
 * @page:	the first page of the request
 * @dma:	the device doing the DMA
 * @dir:	the DMA direction
 * @nents:	scatterlist entries passed to the provider
 * @dma_nents:	DMA segments the provider made
 * @bytes:	bytes mapped
 * @provider_data: free for the provider between map_sg and unmap_sg
 * @claim_entry: private to nvfab-peermem: in the claim's list of live
 *		mappings, for nvfab_peer_revoke()'s fence
 *
 * Lives in the transport's per-request data; zero it, or let
 * nvfab_peer_map_sg() set it up.
 */
struct nvfab_peer_map {
	struct nvfab_peer_provider		*prov;
	struct nvfab_peer_claim			*claim;
	struct page				*page;
	const struct nvfab_peer_dma_dev		*dma;
	enum dma_data_direction			dir;
	int					nents;
	int					dma_nents;
	u64					bytes;
	unsigned long				provider_data;
	struct list_head			claim_entry;
};

DECLARE_STATIC_KEY_FALSE(nvfab_peer_providers);

/**
 * nvfab_peer_possible() - is any peer-memory provider registered?
 *
 * Lets a transport skip the page checks of nvfab_peer_map_sg() on hosts
 * without one.
 *
 * Context: any.
 * Return: true while at least one provider is registered.
 */
static inline bool nvfab_peer_possible(void)
{
	return static_branch_unlikely(&nvfab_peer_providers);
}

int nvfab_peer_register(struct nvfab_peer_provider *prov);
void nvfab_peer_unregister(struct nvfab_peer_provider *prov);

struct nvfab_peer_claim *nvfab_peer_claim(struct nvfab_peer_provider *prov,
					  unsigned long pfn,
					  unsigned long nr_pages, void *priv);
int nvfab_peer_claim_extend(struct nvfab_peer_claim *claim, unsigned long pfn,
			    unsigned long nr_pages);
void nvfab_peer_revoke(struct nvfab_peer_claim *claim);
void nvfab_peer_unclaim(struct nvfab_peer_claim *claim);
void *nvfab_peer_claim_priv(const struct nvfab_peer_claim *claim);

int nvfab_peer_map_sg(struct nvfab_peer_map *map,
		      const struct nvfab_peer_dma_dev *dma,
		      struct scatterlist *sgl, int nents,
		      enum dma_data_direction dir);
void nvfab_peer_unmap_sg(struct nvfab_peer_map *map, struct scatterlist *sgl);
bool nvfab_peer_rq_has_peer(struct request *rq);
int nvfab_peer_page_distance(struct page *page,
			     const struct nvfab_peer_dma_dev *dma);
blk_status_t nvfab_peer_blk_status(int err);

#endif /* _NVFAB_PEERMEM_H */
