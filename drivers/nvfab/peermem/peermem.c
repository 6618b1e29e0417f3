// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-peermem: the registry of peer-memory providers, the claims of host
 * pages that stand in for device memory, and the mapping of a request's
 * pages through them (include/nvfab/peermem.h,
 * Documentation/admin-guide/nvfab-peermem.rst). The generic P2PDMA
 * provider is in peermem-p2pdma.c.
 *
 * Locking:
 *  - nvfab_peer_mutex serialises the writers: provider registration and
 *    every insertion into and removal from the claim tree.
 *  - The submission path reads the provider list and the claim tree under
 *    RCU and pins what it found with a percpu_ref: the claim's for claimed
 *    pages, the provider's for owns_page memory. A revoke kills that ref
 *    and waits for it to drain; a claim is freed an RCU grace period after
 *    it left the tree, so a reader that found it may still try the ref.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <nvfab/peermem.h>

#include <nvfab/compat.h>
#include "peermem.h"

/**
 * struct nvfab_peer_range - page frames [@pfn, @pfn + @nr_pages) of a claim
 * @pfn:	first page frame
 * @nr_pages:	at least one
 * @node:	in the claim's @ranges
 */
struct nvfab_peer_range {
	unsigned long		pfn;
	unsigned long		nr_pages;
	struct list_head	node;
};

/**
 * struct nvfab_peer_claim - host pages a provider stands behind
 * @prov:	the provider
 * @ranges:	its page ranges (struct nvfab_peer_range), under
 *		nvfab_peer_mutex
 * @priv:	the provider's data (nvfab_peer_claim_priv())
 * @ref:	live mappings, plus the initial reference until revoked
 * @drained:	completed when @ref reached zero after the revoke
 * @revoked:	set once, by the first nvfab_peer_revoke()
 * @maps_lock:	protects @maps (irqsave: mappings end in any context)
 * @maps:	the mappings in place (struct nvfab_peer_map), which the
 *		revoke fences
 * @rcu:	frees the claim after it left the tree
 */
struct nvfab_peer_claim {
	struct nvfab_peer_provider	*prov;
	struct list_head		ranges;
	void				*priv;
	struct percpu_ref		ref;
	struct completion		drained;
	atomic_t			revoked;
	spinlock_t			maps_lock;	/* protects @maps */
	struct list_head		maps;
	struct rcu_head			rcu;
};

static DEFINE_MUTEX(nvfab_peer_mutex);
/* registered providers; RCU readers, writers under nvfab_peer_mutex */
static LIST_HEAD(nvfab_peer_list);
/* pfn range -> struct nvfab_peer_claim; RCU readers, writers as above */
static struct maple_tree nvfab_peer_claims =
	MTREE_INIT(nvfab_peer_claims, MT_FLAGS_USE_RCU);

DEFINE_STATIC_KEY_FALSE(nvfab_peer_providers);
EXPORT_SYMBOL_NVFAB(nvfab_peer_providers);

static struct nvfab_peer_provider *nvfab_peer_find_locked(const char *name)
{
	struct nvfab_peer_provider *prov;

	lockdep_assert_held(&nvfab_peer_mutex);
	list_for_each_entry(prov, &nvfab_peer_list, list) {
		if (!strcmp(prov->name, name))
			return prov;
	}
	return NULL;
}

static void nvfab_peer_prov_drained(struct percpu_ref *ref)
{
	struct nvfab_peer_provider *prov =
		container_of(ref, struct nvfab_peer_provider, maps);

	complete_all(&prov->drained);
}

/**
 * nvfab_peer_register() - make a peer-memory provider available
 * @prov: the provider; @name, @owner and @ops with @ops->distance,
 *	  @ops->map_sg and @ops->unmap_sg are required, the rest of the
 *	  structure is set up here
 *
 * From here on nvfab_peer_map_sg() checks requests' pages against the
 * provider's owns_page() and its claims.
 *
 * Context: process context, may sleep; takes nvfab_peer_mutex.
 * Return: 0; -EINVAL for a missing name or operation; -EBUSY when a
 * provider of that name is registered; -ENOMEM.
 */
int nvfab_peer_register(struct nvfab_peer_provider *prov)
{
	const struct nvfab_peer_ops *ops = prov->ops;
	int ret;

	if (!prov->name || !prov->name[0] || !ops || !ops->distance ||
	    !ops->map_sg || !ops->unmap_sg)
		return -EINVAL;
	ret = percpu_ref_init(&prov->maps, nvfab_peer_prov_drained, 0,
			      GFP_KERNEL);
	if (ret)
		return ret;
	init_completion(&prov->drained);
	atomic_set(&prov->nr_claims, 0);
	atomic64_set(&prov->stats.ios, 0);
	atomic64_set(&prov->stats.bytes, 0);
	atomic64_set(&prov->stats.unreachable, 0);
	atomic64_set(&prov->stats.revoked, 0);
	atomic64_set(&prov->stats.failures, 0);

	mutex_lock(&nvfab_peer_mutex);
	if (nvfab_peer_find_locked(prov->name)) {
		ret = -EBUSY;
	} else {
		prov->registered = true;
		list_add_tail_rcu(&prov->list, &nvfab_peer_list);
	}
	mutex_unlock(&nvfab_peer_mutex);
	if (ret) {
		percpu_ref_exit(&prov->maps);
		return ret;
	}
	static_branch_inc(&nvfab_peer_providers);
	pr_info("peer-memory provider %s registered\n", prov->name);
	return 0;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_register);

static struct nvfab_peer_claim *
nvfab_peer_first_claim_locked(struct nvfab_peer_provider *prov)
{
	struct nvfab_peer_claim *claim;
	unsigned long index = 0;

	lockdep_assert_held(&nvfab_peer_mutex);
	mt_for_each(&nvfab_peer_claims, claim, index, ULONG_MAX) {
		if (claim->prov == prov)
			return claim;
	}
	return NULL;
}

/**
 * nvfab_peer_unregister() - withdraw a provider
 * @prov: a registered provider
 *
 * A provider unclaims its pages before this. Claims it left are revoked
 * and removed here (the provider must not use them afterwards), with an
 * error in the log. Returns once no mapping of the provider's memory is
 * live: I/O in flight on it ends first, so this waits at most for the
 * I/O timeout of the controllers that carry it.
 *
 * Context: process context, may sleep; takes nvfab_peer_mutex.
 */
void nvfab_peer_unregister(struct nvfab_peer_provider *prov)
{
	struct nvfab_peer_claim *claim;

	mutex_lock(&nvfab_peer_mutex);
	prov->registered = false;
	list_del_rcu(&prov->list);
	mutex_unlock(&nvfab_peer_mutex);

	for (;;) {
		mutex_lock(&nvfab_peer_mutex);
		claim = nvfab_peer_first_claim_locked(prov);
		mutex_unlock(&nvfab_peer_mutex);
		if (!claim)
			break;
		pr_err("provider %s unregistered with pages claimed: revoking them\n",
		       prov->name);
		nvfab_peer_unclaim(claim);
	}

	/* No reader finds @prov after this; then wait for its mappings. */
	synchronize_rcu();
	percpu_ref_kill(&prov->maps);
	wait_for_completion(&prov->drained);
	percpu_ref_exit(&prov->maps);
	static_branch_dec(&nvfab_peer_providers);
	pr_info("peer-memory provider %s unregistered\n", prov->name);
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_unregister);

static void nvfab_peer_claim_drained(struct percpu_ref *ref)
{
	struct nvfab_peer_claim *claim =
		container_of(ref, struct nvfab_peer_claim, ref);

	complete_all(&claim->drained);
}

/* Adds [pfn, pfn + nr_pages) to @claim's ranges. Under nvfab_peer_mutex. */
static int nvfab_peer_add_range(struct nvfab_peer_claim *claim,
				unsigned long pfn, unsigned long nr_pages)
{
	struct nvfab_peer_range *r;
	int ret;

	lockdep_assert_held(&nvfab_peer_mutex);
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ret = mtree_insert_range(&nvfab_peer_claims, pfn, pfn + nr_pages - 1,
				 claim, GFP_KERNEL);
	if (ret) {
		kfree(r);
		return ret == -EEXIST ? -EBUSY : ret;
	}
	r->pfn = pfn;
	r->nr_pages = nr_pages;
	list_add_tail(&r->node, &claim->ranges);
	return 0;
}

/* Takes all of @claim's ranges out of the tree. Under nvfab_peer_mutex. */
static void nvfab_peer_del_ranges(struct nvfab_peer_claim *claim)
{
	struct nvfab_peer_range *r, *tmp;

	lockdep_assert_held(&nvfab_peer_mutex);
	list_for_each_entry_safe(r, tmp, &claim->ranges, node) {
		mtree_erase(&nvfab_peer_claims, r->pfn);
		list_del(&r->node);
		kfree(r);
	}
}

static bool nvfab_peer_range_ok(unsigned long pfn, unsigned long nr_pages)
{
	return nr_pages && pfn + (nr_pages - 1) >= pfn;
}

/**
 * nvfab_peer_claim() - claim host pages as stand-ins for device memory
 * @prov:	a registered provider
 * @pfn:	first page frame
 * @nr_pages:	pages, at least one
 * @priv:	the provider's data, returned by nvfab_peer_claim_priv()
 *
 * While the claim lives, I/O on these pages goes through @prov's map_sg(),
 * which hands the transport the device memory's DMA addresses instead of
 * the pages'. A buffer whose stand-in pages are not contiguous is one
 * claim with several ranges (nvfab_peer_claim_extend()), so that one I/O
 * may cross from one range into the next. The caller keeps the pages
 * allocated until it calls nvfab_peer_unclaim().
 *
 * Context: process context, may sleep; takes nvfab_peer_mutex.
 * Return: the claim; ERR_PTR(-EINVAL) for no pages or a range past the
 * last pfn; ERR_PTR(-ENODEV) when @prov is not registered;
 * ERR_PTR(-EBUSY) when a page of the range is claimed already (by any
 * provider); ERR_PTR(-ENOMEM).
 */
struct nvfab_peer_claim *nvfab_peer_claim(struct nvfab_peer_provider *prov,
					  unsigned long pfn,
					  unsigned long nr_pages, void *priv)
{
	struct nvfab_peer_claim *claim;
	int ret;

	if (!nvfab_peer_range_ok(pfn, nr_pages))
		return ERR_PTR(-EINVAL);
	claim = kzalloc(sizeof(*claim), GFP_KERNEL);
	if (!claim)
		return ERR_PTR(-ENOMEM);
	claim->prov = prov;
	INIT_LIST_HEAD(&claim->ranges);
	claim->priv = priv;
	init_completion(&claim->drained);
	spin_lock_init(&claim->maps_lock);
	INIT_LIST_HEAD(&claim->maps);
	ret = percpu_ref_init(&claim->ref, nvfab_peer_claim_drained, 0,
			      GFP_KERNEL);
	if (ret)
		goto out_free;

	mutex_lock(&nvfab_peer_mutex);
	if (!prov->registered)
		ret = -ENODEV;
	else
		ret = nvfab_peer_add_range(claim, pfn, nr_pages);
	if (!ret)
		atomic_inc(&prov->nr_claims);
	mutex_unlock(&nvfab_peer_mutex);
	if (ret)
		goto out_exit;
	return claim;

out_exit:
	percpu_ref_exit(&claim->ref);
out_free:
	kfree(claim);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_claim);

/**
 * nvfab_peer_claim_extend() - add pages to a claim
 * @claim:	a claim, not revoked
 * @pfn:	first page frame
 * @nr_pages:	pages, at least one
 *
 * Context: process context, may sleep; takes nvfab_peer_mutex.
 * Return: 0; -EINVAL for no pages or a range past the last pfn;
 * -EKEYREVOKED when the claim was revoked; -EBUSY when a page of the range
 * is claimed already; -ENOMEM.
 */
int nvfab_peer_claim_extend(struct nvfab_peer_claim *claim, unsigned long pfn,
			    unsigned long nr_pages)
{
	int ret;

	if (!nvfab_peer_range_ok(pfn, nr_pages))
		return -EINVAL;
	mutex_lock(&nvfab_peer_mutex);
	if (atomic_read(&claim->revoked))
		ret = -EKEYREVOKED;
	else
		ret = nvfab_peer_add_range(claim, pfn, nr_pages);
	mutex_unlock(&nvfab_peer_mutex);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_claim_extend);

/**
 * nvfab_peer_revoke() - take claimed pages back from I/O
 * @claim: a claim
 *
 * A fence: from now on nvfab_peer_map_sg() refuses the pages with
 * -EKEYREVOKED, which fails the I/O (non-retryably), instead of treating
 * them as host memory, and so does every I/O on them that was submitted
 * but not yet mapped (waiting for a tag, requeued). Each mapping still in
 * place is fenced by its DMA device (&nvfab_peer_dma_dev.fence: nvfab-rdma
 * fails the queue that carries it, whose stop deregisters its memory
 * registrations and cancels the I/O, which is then retried and refused).
 * Returns once every mapping made before has been unmapped: as soon as the
 * fenced queues have stopped, without waiting for the target; for a
 * device without @fence, once its I/O has ended (at most the I/O timeout
 * of the controllers that carry it). Revoking twice is harmless.
 *
 * Context: process context, may sleep; takes the claim's maps_lock; must
 * not be called from the provider's own map_sg() or unmap_sg().
 */
void nvfab_peer_revoke(struct nvfab_peer_claim *claim)
{
	struct nvfab_peer_map *map;
	unsigned long flags;

	might_sleep();
	if (atomic_xchg(&claim->revoked, 1) == 0) {
		percpu_ref_kill(&claim->ref);
		spin_lock_irqsave(&claim->maps_lock, flags);
		list_for_each_entry(map, &claim->maps, claim_entry) {
			if (map->dma->fence)
				map->dma->fence(map);
		}
		spin_unlock_irqrestore(&claim->maps_lock, flags);
	}
	wait_for_completion(&claim->drained);
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_revoke);

static void nvfab_peer_claim_free(struct rcu_head *rcu)
{
	struct nvfab_peer_claim *claim =
		container_of(rcu, struct nvfab_peer_claim, rcu);

	percpu_ref_exit(&claim->ref);
	kfree(claim);
}

/**
 * nvfab_peer_unclaim() - give claimed pages back to the host
 * @claim: a claim; not usable after this
 *
 * Revokes the claim (waiting for its I/O, see nvfab_peer_revoke()) and
 * removes it: the pages are ordinary host memory again.
 *
 * Context: process context, may sleep; takes nvfab_peer_mutex.
 */
void nvfab_peer_unclaim(struct nvfab_peer_claim *claim)
{
	nvfab_peer_revoke(claim);
	mutex_lock(&nvfab_peer_mutex);
	nvfab_peer_del_ranges(claim);
	atomic_dec(&claim->prov->nr_claims);
	mutex_unlock(&nvfab_peer_mutex);
	call_rcu(&claim->rcu, nvfab_peer_claim_free);
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_unclaim);

/**
 * nvfab_peer_claim_priv() - the provider data of a claim
 * @claim: a claim
 *
 * Context: any.
 * Return: the @priv given to nvfab_peer_claim().
 */
void *nvfab_peer_claim_priv(const struct nvfab_peer_claim *claim)
{
	return claim->priv;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_claim_priv);

/* The provider whose owns_page() takes @page, or NULL. Under RCU. */
static struct nvfab_peer_provider *nvfab_peer_owner(struct page *page)
{
	struct nvfab_peer_provider *prov;

	list_for_each_entry_rcu(prov, &nvfab_peer_list, list) {
		if (prov->ops->owns_page && prov->ops->owns_page(page))
			return prov;
	}
	return NULL;
}

/*
 * Whose memory is the page range [first, last]: sets *@prov and *@claim
 * (both NULL for host memory). Under RCU.
 * Return: 0, or -EXDEV when the range is not all one claim's or all
 * unclaimed (*@prov and *@claim are then those of a claim in it).
 */
static int nvfab_peer_whose(struct page *page, unsigned long first,
			    unsigned long last,
			    struct nvfab_peer_provider **prov,
			    struct nvfab_peer_claim **claim)
{
	MA_STATE(mas, &nvfab_peer_claims, first, first);
	struct nvfab_peer_claim *c, *next;

	c = mtree_empty(&nvfab_peer_claims) ? NULL : mas_find(&mas, last);
	if (!c) {
		*claim = NULL;
		*prov = nvfab_peer_owner(page);
		return 0;
	}
	*claim = c;
	*prov = c->prov;
	if (mas.index > first)
		return -EXDEV;
	/* adjacent ranges of the same claim may continue it */
	while (mas.last < last) {
		unsigned long end = mas.last;

		next = mas_find(&mas, last);
		if (next != c || mas.index != end + 1)
			return -EXDEV;
	}
	return 0;
}

/*
 * Finds whose memory the entries are and pins it: sets @map->prov and
 * @map->claim. Every entry must be the same provider's, and the same
 * claim's. On an error @map->prov is the provider to count it against
 * (NULL when none) and nothing is pinned.
 */
static int nvfab_peer_classify(struct nvfab_peer_map *map,
			       struct scatterlist *sgl, int nents)
{
	struct nvfab_peer_provider *prov;
	struct nvfab_peer_claim *claim;
	struct scatterlist *sg;
	int i, ret = 0;

	rcu_read_lock();
	for_each_sg(sgl, sg, nents, i) {
		unsigned long pfn = page_to_pfn(sg_page(sg));
		unsigned long first = pfn + (sg->offset >> PAGE_SHIFT);
		unsigned long last = pfn +
			((sg->offset + max(sg->length, 1U) - 1) >> PAGE_SHIFT);

		ret = nvfab_peer_whose(sg_page(sg), first, last, &prov, &claim);
		if (!ret && i && (prov != map->prov || claim != map->claim))
			ret = -EXDEV;
		if (ret) {
			if (!map->prov)
				map->prov = prov;
			goto out;
		}
		map->prov = prov;
		map->claim = claim;
	}
	map->page = sg_page(sgl);
	if (map->claim && !percpu_ref_tryget_live(&map->claim->ref))
		ret = -EKEYREVOKED;
	else if (!map->claim && map->prov &&
		 !percpu_ref_tryget_live(&map->prov->maps))
		ret = -ENODEV;
out:
	rcu_read_unlock();
	return ret;
}

static void nvfab_peer_put(struct nvfab_peer_map *map)
{
	if (map->claim)
		percpu_ref_put(&map->claim->ref);
	else
		percpu_ref_put(&map->prov->maps);
}

/*
 * List a claim's new mapping for nvfab_peer_revoke()'s fence. Under the
 * lock, either the revoke's walk comes after and fences the mapping, or
 * it came before, and then this sees the claim revoked (the revoke set
 * @revoked before it took the lock) and the mapping is refused.
 * Return: false when the claim was revoked (the mapping is not listed).
 */
static bool nvfab_peer_list_map(struct nvfab_peer_map *map)
{
	struct nvfab_peer_claim *claim = map->claim;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&claim->maps_lock, flags);
	ok = !atomic_read(&claim->revoked);
	if (ok)
		list_add_tail(&map->claim_entry, &claim->maps);
	spin_unlock_irqrestore(&claim->maps_lock, flags);
	return ok;
}

static void nvfab_peer_count_error(struct nvfab_peer_provider *prov, int err)
{
	if (!prov)
		return;
	if (err == -EREMOTEIO)
		atomic64_inc(&prov->stats.unreachable);
	else if (err == -EKEYREVOKED)
		atomic64_inc(&prov->stats.revoked);
	else
		atomic64_inc(&prov->stats.failures);
}

/**
 * nvfab_peer_map_sg() - map a request's pages if they are peer memory
 * @map:	the request's mapping, set up here
 * @dma:	the device that will do the DMA; must outlive the mapping
 * @sgl:	the request's scatterlist, not DMA-mapped
 * @nents:	its entries, at least one
 * @dir:	the DMA direction
 *
 * When the pages are host memory, returns 0 with @map->prov NULL and
 * the caller maps them as usual. When they are peer memory, the provider
 * maps them for @dma: every entry must then be the same provider's (and
 * fall in one claim), and @dma must reach the memory. On success the
 * mapping pins the claim (or the provider) until nvfab_peer_unmap_sg().
 *
 * Context: any context that may not sleep is fine (blk_mq_ops.queue_rq);
 * takes no lock but RCU.
 * Return: 0 for host memory; the number of DMA segments (> 0) the
 * provider made; -EXDEV when the entries mix host and peer memory, two
 * providers or two claims, or an entry straddles a claim's edge;
 * -EKEYREVOKED when the claim was revoked; -ENODEV when the provider is
 * being unregistered; -EREMOTEIO when @dma cannot reach the memory; or the
 * provider's map_sg() error. nvfab_peer_blk_status() turns these into the
 * request's status.
 */
int nvfab_peer_map_sg(struct nvfab_peer_map *map,
		      const struct nvfab_peer_dma_dev *dma,
		      struct scatterlist *sgl, int nents,
		      enum dma_data_direction dir)
{
	struct nvfab_peer_provider *prov;
	struct scatterlist *sg;
	u64 bytes = 0;
	int i, ret;

	memset(map, 0, sizeof(*map));
	if (!nvfab_peer_possible() || nents <= 0)
		return 0;
	ret = nvfab_peer_classify(map, sgl, nents);
	prov = map->prov;
	if (ret) {
		nvfab_peer_count_error(prov, ret);
		map->prov = NULL;
		map->claim = NULL;
		return ret;
	}
	if (!prov)
		return 0;

	for_each_sg(sgl, sg, nents, i)
		bytes += sg->length;
	map->dma = dma;
	map->dir = dir;
	map->nents = nents;
	map->bytes = bytes;
	ret = prov->ops->distance(map);
	if (ret >= 0) {
		ret = prov->ops->map_sg(map, sgl, nents);
		if (ret == 0)
			ret = -EIO;	/* a provider must map or fail */
	} else {
		ret = -EREMOTEIO;
	}
	if (ret < 0) {
		nvfab_peer_count_error(prov, ret);
		nvfab_peer_put(map);
		memset(map, 0, sizeof(*map));
		return ret;
	}
	map->dma_nents = ret;
	if (map->claim && !nvfab_peer_list_map(map)) {
		/* revoked meanwhile, and its fence did not see this mapping */
		prov->ops->unmap_sg(map, sgl, nents);
		nvfab_peer_count_error(prov, -EKEYREVOKED);
		nvfab_peer_put(map);
		memset(map, 0, sizeof(*map));
		return -EKEYREVOKED;
	}
	atomic64_inc(&prov->stats.ios);
	atomic64_add(bytes, &prov->stats.bytes);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_map_sg);

/**
 * nvfab_peer_unmap_sg() - undo nvfab_peer_map_sg()
 * @map:	the request's mapping; nothing is done when it holds none
 * @sgl:	the scatterlist that was mapped
 *
 * Unpins the claim or provider, which lets a waiting revoke or unregister
 * finish.
 *
 * Context: any.
 */
void nvfab_peer_unmap_sg(struct nvfab_peer_map *map, struct scatterlist *sgl)
{
	unsigned long flags;

	if (!map->prov)
		return;
	if (map->claim) {
		spin_lock_irqsave(&map->claim->maps_lock, flags);
		list_del(&map->claim_entry);
		spin_unlock_irqrestore(&map->claim->maps_lock, flags);
	}
	map->prov->ops->unmap_sg(map, sgl, map->nents);
	nvfab_peer_put(map);
	map->prov = NULL;
	map->claim = NULL;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_unmap_sg);

/**
 * nvfab_peer_rq_has_peer() - does a request carry peer memory?
 * @rq: a request with data
 *
 * For transports that cannot place data in device memory (NVMe/TCP): they
 * refuse such a request (nvfab_peer_blk_status(-EREMOTEIO)) rather than
 * send the stand-in host pages' bytes. Pages of a revoked claim count as
 * peer memory.
 *
 * Context: any; takes no lock but RCU.
 * Return: true when a page of @rq is claimed or owned by a provider.
 */
bool nvfab_peer_rq_has_peer(struct request *rq)
{
	struct nvfab_peer_provider *prov;
	struct nvfab_peer_claim *claim;
	struct req_iterator iter;
	struct bio_vec bv;
	bool peer = false;

	if (!nvfab_peer_possible())
		return false;
	/* a discard's range list is the driver's own (host) memory */
	if ((rq->rq_flags & RQF_SPECIAL_PAYLOAD) || !rq->bio ||
	    !bio_has_data(rq->bio))
		return false;
	rcu_read_lock();
	rq_for_each_bvec(bv, rq, iter) {
		unsigned long pfn = page_to_pfn(bv.bv_page);
		unsigned long first = pfn + (bv.bv_offset >> PAGE_SHIFT);
		unsigned long last = pfn +
			((bv.bv_offset + max(bv.bv_len, 1U) - 1) >> PAGE_SHIFT);

		if (nvfab_peer_whose(bv.bv_page, first, last, &prov, &claim) ||
		    prov) {
			peer = true;
			break;
		}
	}
	rcu_read_unlock();
	return peer;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_rq_has_peer);

/**
 * nvfab_peer_page_distance() - how far a DMA device is from a page
 * @page:	a page of an I/O
 * @dma:	a path's DMA device; NULL for a transport that cannot place
 *		data in device memory (NVMe/TCP), which reaches no peer memory
 *
 * Lets multipath choose, for an I/O on peer memory, only paths whose
 * device reaches it, the nearest first. The provider's distance() runs
 * with the claim (or, for owns_page memory, the provider) pinned as for a
 * mapping, so that a revoke or an unclaim that starts meanwhile waits for
 * it and the provider's data of the claim stays allocated under it. A
 * revoked claim is counted in the provider's revoked counter, as
 * nvfab_peer_map_sg() counts it: the head asks once for such an I/O and
 * fails it.
 *
 * Context: any context that may not sleep is fine; takes no lock but RCU.
 * Return: the provider's P2P distance (>= 0); -ENOENT when @page is host
 * memory; -EKEYREVOKED when its claim was revoked; -EREMOTEIO when @dma
 * cannot reach it or the provider is being unregistered.
 */
int nvfab_peer_page_distance(struct page *page,
			     const struct nvfab_peer_dma_dev *dma)
{
	struct nvfab_peer_map map = { .dma = dma, .page = page };
	unsigned long pfn = page_to_pfn(page);
	int ret;

	if (!nvfab_peer_possible())
		return -ENOENT;
	rcu_read_lock();
	ret = nvfab_peer_whose(page, pfn, pfn, &map.prov, &map.claim);
	if (!ret && !map.prov)
		ret = -ENOENT;
	else if (!ret && map.claim && !percpu_ref_tryget_live(&map.claim->ref))
		ret = -EKEYREVOKED;
	else if (!ret && !map.claim && !percpu_ref_tryget_live(&map.prov->maps))
		ret = -EREMOTEIO;
	if (ret == -EKEYREVOKED)
		nvfab_peer_count_error(map.prov, ret);
	rcu_read_unlock();
	if (ret)
		return ret == -ENOENT || ret == -EKEYREVOKED ? ret : -EREMOTEIO;

	/* pinned: an unclaim waits for this before freeing the claim's data */
	ret = dma ? map.prov->ops->distance(&map) : -EREMOTEIO;
	nvfab_peer_put(&map);
	return ret < 0 ? -EREMOTEIO : ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_page_distance);

/**
 * nvfab_peer_blk_status() - the status of a request whose peer mapping
 * failed
 * @err: what nvfab_peer_map_sg() returned
 *
 * A peer page that cannot be mapped is not a path error: BLK_STS_TARGET
 * ends the I/O at once, without failover or requeue (blk_path_error()).
 * Only a shortage of memory is worth a retry.
 *
 * Context: any.
 * Return: BLK_STS_OK for 0 or a segment count; BLK_STS_RESOURCE for
 * -ENOMEM and -EAGAIN; BLK_STS_TARGET for every other error.
 */
blk_status_t nvfab_peer_blk_status(int err)
{
	if (err >= 0)
		return BLK_STS_OK;
	if (err == -ENOMEM || err == -EAGAIN)
		return BLK_STS_RESOURCE;
	return BLK_STS_TARGET;
}
EXPORT_SYMBOL_NVFAB(nvfab_peer_blk_status);

/*
 * debugfs nvfab-peermem/providers: a line per registered provider with its
 * live claims and its struct nvfab_peer_stats; empty when none is (a
 * kernel without CONFIG_PCI_P2PDMA has no "p2pdma" line).
 */
static int nvfab_peer_providers_show(struct seq_file *m, void *v)
{
	struct nvfab_peer_provider *prov;

	mutex_lock(&nvfab_peer_mutex);
	list_for_each_entry(prov, &nvfab_peer_list, list) {
		seq_printf(m, "%s claims %d ios %lld bytes %lld unreachable %lld revoked %lld failures %lld\n",
			   prov->name, atomic_read(&prov->nr_claims),
			   atomic64_read(&prov->stats.ios),
			   atomic64_read(&prov->stats.bytes),
			   atomic64_read(&prov->stats.unreachable),
			   atomic64_read(&prov->stats.revoked),
			   atomic64_read(&prov->stats.failures));
	}
	mutex_unlock(&nvfab_peer_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvfab_peer_providers);

static struct dentry *nvfab_peer_debugfs;

static int __init nvfab_peermem_init(void)
{
	int ret;

	ret = nvfab_p2pdma_init();
	if (ret)
		return ret;
	/* diagnostics only: the module works without them */
	nvfab_peer_debugfs = debugfs_create_dir("nvfab-peermem", NULL);
	debugfs_create_file("providers", 0444, nvfab_peer_debugfs, NULL,
			    &nvfab_peer_providers_fops);
	return 0;
}
module_init(nvfab_peermem_init);

static void __exit nvfab_peermem_exit(void)
{
	debugfs_remove(nvfab_peer_debugfs);
	nvfab_p2pdma_exit();
	/* other providers import our symbols: every one is gone by now */
	mtree_destroy(&nvfab_peer_claims);
	/* nvfab_peer_claim_free() of the last unclaims is this module's code */
	rcu_barrier();
}
module_exit(nvfab_peermem_exit);

MODULE_DESCRIPTION("nvfab peer memory: provider registry and DMA mapping of peer pages for NVMe over Fabrics transports");
MODULE_LICENSE("GPL");
