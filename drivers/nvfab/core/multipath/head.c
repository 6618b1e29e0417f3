// SPDX-License-Identifier: GPL-2.0
/*
 * Native multipath: namespace heads, path choice and failover (NVMe Base
 * 2.0, 2.4 "NVM Subsystem", 8.1 "Asymmetric Namespace Access"). Subsystems
 * are in subsys.c, the sysfs attributes in mpath-sysfs.c, the head's
 * ioctls in ioctl.c.
 *
 * Controllers with one subsystem NQN form a subsystem, nvfab-subsysX. A
 * namespace seen through several of them (same NSID, same NGUID/UUID/EUI64)
 * is one head: one bio-based disk, /dev/nvfabXnY, over hidden per-path
 * blk-mq disks nvfabXcNnY (N: the controller instance).
 *
 * The head's submit_bio builds, on its stack, the best ANA tier of usable
 * paths (controller live, ANA optimized; else non-optimized) and asks the
 * subsystem's path selector to pick one. It takes no lock: the path list
 * and the selector are read under the subsystem's SRCU.
 *
 * A request failed with a path error (status code type 3, a transport
 * teardown, an ANA status) gives its bios back to the head, which sends
 * them on another usable path at once. With no usable path, bios wait on
 * the head: unbounded while a controller is reconnecting (its
 * fast_io_fail_tmo and ctrl_loss_tmo decide), bounded by no_path_tmo
 * (default 2 x ANATT) when every live path is in an unusable ANA state,
 * and they fail at once when no path can come back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/blk-mq.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "mpath.h"
#include "../trace.h"

/* ---- namespace heads ---- */

static inline struct nvfab_ns *path_to_ns(struct nvfab_path *path)
{
	return container_of(path, struct nvfab_ns, path);
}

/* May I/O be sent on this path now? */
static bool nvfab_path_usable(struct nvfab_ns *ns)
{
	if (unlikely(ns->flags & (BIT(NVFAB_NS_ANA_PENDING) |
				  BIT(NVFAB_NS_REMOVING))))
		return false;
	return nvfab_ctrl_state(ns->ctrl) == NVFAB_CTRL_LIVE &&
	       nvfab_ana_usable(READ_ONCE(ns->path.ana_state));
}

/* Fills @tier with the usable paths in ANA state @want; returns how many. */
static unsigned int nvfab_fill_tier(struct nvfab_ns_head *head,
				    struct nvfab_tier *tier, u8 want)
{
	struct nvfab_ns *ns;

	tier->nr = 0;
	tier->ana_state = want;
	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->subsys->srcu)) {
		if (!nvfab_path_usable(ns) ||
		    READ_ONCE(ns->path.ana_state) != want)
			continue;
		if (tier->nr < NVFAB_MAX_PATHS)
			tier->paths[tier->nr++] = &ns->path;
	}
	return tier->nr;
}

/**
 * nvfab_build_tier() - the paths a selector may choose from
 * @head: the namespace head
 * @tier: filled with the usable optimized paths, or else the usable
 *	  non-optimized ones; @tier->nr is 0 when there are none
 *
 * Usable: the controller is live, the path is not being removed and has
 * no ANA status pending (NVMe Base 2.0, 8.1.3: no I/O to inaccessible,
 * persistent-loss or change paths; optimized before non-optimized).
 *
 * Context: under head->subsys->srcu; no sleeping, no lock.
 */
VISIBLE_IF_KUNIT void nvfab_build_tier(struct nvfab_ns_head *head,
				       struct nvfab_tier *tier)
{
	if (!nvfab_fill_tier(head, tier, NVME_ANA_OPTIMIZED))
		nvfab_fill_tier(head, tier, NVME_ANA_NONOPTIMIZED);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_build_tier);

/* The selector's choice from a non-empty @tier. Under subsys->srcu. */
static struct nvfab_ns *nvfab_choose(struct nvfab_ns_head *head,
				     struct nvfab_tier *tier,
				     unsigned int bytes)
{
	struct nvfab_subsys *subsys = head->subsys;
	struct nvfab_path *path;
	struct nvfab_ps *ps;

	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	if (tier->nr == 1 || !ps)
		return path_to_ns(tier->paths[0]);
	path = ps->ops->select_path(ps, tier, bytes);
	if (WARN_ON_ONCE(!path))
		path = tier->paths[0];
	return path_to_ns(path);
}

/**
 * nvfab_select_path() - the path an I/O goes to
 * @head: the namespace head
 * @bytes: the size of the I/O, or 0
 *
 * The subsystem's path selector chooses from the tier nvfab_build_tier()
 * builds; with one usable path, or no selector, that path is taken.
 *
 * Context: under head->subsys->srcu; no sleeping, no lock.
 * Return: the path, or NULL when no path is usable.
 */
struct nvfab_ns *nvfab_select_path(struct nvfab_ns_head *head,
				   unsigned int bytes)
{
	struct nvfab_tier tier;

	nvfab_build_tier(head, &tier);
	if (!tier.nr)
		return NULL;
	return nvfab_choose(head, &tier, bytes);
}

/**
 * nvfab_peer_filter() - keep the paths that reach an I/O's peer memory
 * @head: the namespace head
 * @tier: usable paths of one ANA state
 * @page: the I/O's first page
 *
 * Asks each path's transport how far its device is from @page
 * (nvfab_ctrl_ops.peer_distance) and keeps, in their order, the paths at
 * the smallest distance; the others that cannot reach it are counted as
 * skipped. Revoked memory is no path's to take: the first answer that
 * says so ends the search (the provider counts it as revoked, once) and
 * no path is counted as skipped. Documentation/admin-guide/nvfab-peermem.rst.
 *
 * Context: under head->subsys->srcu; no sleeping, no lock.
 * Return: 0, @tier reduced (maybe to no path); -ENOENT, @tier untouched,
 * when @page is host memory; -EKEYREVOKED, @tier emptied, when its claim
 * was revoked.
 */
VISIBLE_IF_KUNIT int nvfab_peer_filter(struct nvfab_ns_head *head,
				       struct nvfab_tier *tier,
				       struct page *page)
{
	int dist[NVFAB_MAX_PATHS], best = INT_MAX;
	unsigned int i, n = 0;

	for (i = 0; i < tier->nr; i++) {
		struct nvfab_ctrl *ctrl = path_to_ns(tier->paths[i])->ctrl;

		dist[i] = ctrl->ops->peer_distance ?
			  ctrl->ops->peer_distance(ctrl, page) : -ENOENT;
		if (dist[i] == -ENOENT)
			return -ENOENT;
		if (dist[i] == -EKEYREVOKED) {
			tier->nr = 0;
			return -EKEYREVOKED;
		}
		if (dist[i] >= 0 && dist[i] < best)
			best = dist[i];
	}
	for (i = 0; i < tier->nr; i++) {
		struct nvfab_ctrl *ctrl = path_to_ns(tier->paths[i])->ctrl;

		if (dist[i] == best) {
			tier->paths[n++] = tier->paths[i];
		} else if (dist[i] < 0) {
			atomic64_inc(&head->peer.unreachable_skips);
			atomic64_inc(&ctrl->peer.unreachable_skips);
		}
	}
	tier->nr = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_peer_filter);

/*
 * Is @page peer memory whose claim was revoked? Asked of the first path
 * whose transport knows peer memory, whatever its state: a head with no
 * usable path would otherwise queue a bio that no path may ever carry
 * (a revoke fences the queues that carry its I/O, and the I/O comes back
 * here while they reconnect).
 * Context: under head->subsys->srcu; no sleeping, no lock.
 */
static bool nvfab_peer_revoked(struct nvfab_ns_head *head, struct page *page)
{
	struct nvfab_ns *ns;

	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->subsys->srcu)) {
		if (ns->ctrl->ops->peer_distance)
			return ns->ctrl->ops->peer_distance(ns->ctrl, page) ==
			       -EKEYREVOKED;
	}
	return false;
}

/*
 * The path for @bio: nvfab_select_path()'s, but a bio on peer memory goes
 * only to a path whose device reaches it, the nearest, optimized before
 * non-optimized (a reachable non-optimized path beats an unreachable
 * optimized one: both are ANA-legal).
 * A bio on peer memory is marked REQ_NOMERGE.
 * Return: the path; NULL when no path is usable; ERR_PTR(-EREMOTEIO) when
 * paths are usable but none reaches the bio's memory, or when its memory
 * was revoked (usable paths or not).
 */
static struct nvfab_ns *nvfab_head_route(struct nvfab_ns_head *head,
					 struct bio *bio)
{
	unsigned int bytes = bio->bi_iter.bi_size;
	struct nvfab_tier tier;
	struct page *page;
	int ret;

	nvfab_build_tier(head, &tier);
	if (!tier.nr) {
		if (bio_has_data(bio) && nvfab_peer_revoked(head, bio_page(bio))) {
			atomic64_inc(&head->peer.map_failures);
			return ERR_PTR(-EREMOTEIO);
		}
		return NULL;
	}
	if (!bio_has_data(bio))
		return nvfab_choose(head, &tier, bytes);
	page = bio_page(bio);
	ret = nvfab_peer_filter(head, &tier, page);
	if (!ret && !tier.nr && tier.ana_state == NVME_ANA_OPTIMIZED &&
	    nvfab_fill_tier(head, &tier, NVME_ANA_NONOPTIMIZED))
		ret = nvfab_peer_filter(head, &tier, page);
	if (ret == -ENOENT)
		return nvfab_choose(head, &tier, bytes);
	if (!tier.nr) {
		/* revoked, or no usable path reaches it */
		atomic64_inc(&head->peer.map_failures);
		return ERR_PTR(-EREMOTEIO);
	}
	atomic64_inc(&head->peer.ios);
	atomic64_add(bytes, &head->peer.bytes);
	/*
	 * Never in one request with another bio: a peer provider maps a
	 * request whose pages are all its own, and the block layer would
	 * merge this bio with an adjacent one on host memory (its stand-in
	 * pages are ordinary pages), failing both.
	 */
	bio->bi_opf |= REQ_NOMERGE;
	return nvfab_choose(head, &tier, bytes);
}

/**
 * nvfab_nopath_kind() - how long I/O may wait on a head with no usable path
 * @head: the head
 *
 * Context: under head->subsys->srcu; no sleeping, no lock.
 * Return: NVFAB_NOPATH_WAIT while a controller is reconnecting (and its
 * fast_io_fail_tmo has not expired), else NVFAB_NOPATH_BOUNDED while a
 * live path may still become usable (inaccessible, change) and the bound
 * has not run out, else NVFAB_NOPATH_FAIL.
 */
VISIBLE_IF_KUNIT enum nvfab_nopath nvfab_nopath_kind(struct nvfab_ns_head *head)
{
	enum nvfab_nopath kind = NVFAB_NOPATH_FAIL;
	struct nvfab_ns *ns;
	u8 ana;

	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->subsys->srcu)) {
		if (ns->flags & BIT(NVFAB_NS_REMOVING))
			continue;
		switch (nvfab_ctrl_state(ns->ctrl)) {
		case NVFAB_CTRL_NEW:
		case NVFAB_CTRL_CONNECTING:
		case NVFAB_CTRL_RESETTING:
			if (!test_bit(NVFAB_CTRL_FAILFAST_EXPIRED,
				      &ns->ctrl->flags))
				return NVFAB_NOPATH_WAIT;
			break;
		case NVFAB_CTRL_LIVE:
			ana = READ_ONCE(ns->path.ana_state);
			if (ana != NVME_ANA_PERSISTENT_LOSS)
				kind = NVFAB_NOPATH_BOUNDED;
			break;
		default:
			break;
		}
	}
	if (kind == NVFAB_NOPATH_BOUNDED &&
	    test_bit(NVFAB_HEAD_NOPATH_EXPIRED, &head->flags))
		return NVFAB_NOPATH_FAIL;
	return kind;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_nopath_kind);

static unsigned int nvfab_no_path_tmo(struct nvfab_ns_head *head)
{
	int tmo = READ_ONCE(head->subsys->no_path_tmo);

	return tmo ? tmo : nvfab_ana_default_tmo(head);
}

static void nvfab_head_queue_bio(struct nvfab_ns_head *head, struct bio *bio,
				 bool bounded)
{
	unsigned long flags;

	atomic64_inc(&head->io_requeue_no_usable_path_count);
	spin_lock_irqsave(&head->requeue_lock, flags);
	bio_list_add(&head->requeue_list, bio);
	spin_unlock_irqrestore(&head->requeue_lock, flags);
	if (bounded && !test_and_set_bit(NVFAB_HEAD_NOPATH_TIMER, &head->flags))
		mod_delayed_work(nvfab_wq, &head->nopath_work,
				 nvfab_no_path_tmo(head) * HZ);
}

/* A path is usable again: the next wait gets a full no_path_tmo. */
static void nvfab_nopath_over(struct nvfab_ns_head *head)
{
	clear_bit(NVFAB_HEAD_NOPATH_EXPIRED, &head->flags);
	if (test_and_clear_bit(NVFAB_HEAD_NOPATH_TIMER, &head->flags))
		cancel_delayed_work(&head->nopath_work);
}

static void nvfab_head_submit_bio(struct bio *bio)
{
	struct nvfab_ns_head *head = bio->bi_bdev->bd_disk->private_data;
	struct nvfab_subsys *subsys = head->subsys;
	struct nvfab_ns *ns;
	int idx;

	bio = bio_split_to_limits(bio);
	if (!bio)
		return;

	idx = srcu_read_lock(&subsys->srcu);
	ns = nvfab_head_route(head, bio);
	if (IS_ERR(ns)) {
		/* no path reaches the peer memory: not worth a retry */
		bio->bi_status = BLK_STS_TARGET;
		bio_endio(bio);
	} else if (likely(ns)) {
		if (unlikely(READ_ONCE(head->flags) &
			     (BIT(NVFAB_HEAD_NOPATH_EXPIRED) |
			      BIT(NVFAB_HEAD_NOPATH_TIMER))))
			nvfab_nopath_over(head);
		bio_set_dev(bio, ns->disk->part0);
		bio->bi_opf |= NVFAB_REQ_MPATH;
		atomic64_inc(&ns->routed_ios);
		submit_bio_noacct(bio);
	} else {
		switch (nvfab_nopath_kind(head)) {
		case NVFAB_NOPATH_WAIT:
			nvfab_head_queue_bio(head, bio, false);
			break;
		case NVFAB_NOPATH_BOUNDED:
			nvfab_head_queue_bio(head, bio, true);
			break;
		default:
			atomic64_inc(&head->io_fail_no_available_path_count);
			bio_io_error(bio);
			break;
		}
	}
	srcu_read_unlock(&subsys->srcu, idx);
}

/* Take every bio waiting on @head (into @bios), under requeue_lock. */
static void nvfab_head_take_waiting(struct nvfab_ns_head *head,
				    struct bio_list *bios)
{
	spin_lock_irq(&head->requeue_lock);
	*bios = head->requeue_list;
	bio_list_init(&head->requeue_list);
	spin_unlock_irq(&head->requeue_lock);
}

static void nvfab_requeue_work(struct work_struct *work)
{
	struct nvfab_ns_head *head = container_of(work, struct nvfab_ns_head,
						  requeue_work);
	struct bio_list bios;
	struct bio *bio;

	nvfab_head_take_waiting(head, &bios);
	while ((bio = bio_list_pop(&bios))) {
		/* back through the head, to choose a path again */
		bio_set_dev(bio, head->disk->part0);
		submit_bio_noacct(bio);
	}
}

/* The no-path bound ran out: what still has no path fails. */
static void nvfab_nopath_work(struct work_struct *work)
{
	struct nvfab_ns_head *head = container_of(to_delayed_work(work),
						  struct nvfab_ns_head,
						  nopath_work);
	struct nvfab_subsys *subsys = head->subsys;
	bool usable;
	int idx;

	clear_bit(NVFAB_HEAD_NOPATH_TIMER, &head->flags);
	idx = srcu_read_lock(&subsys->srcu);
	usable = !!nvfab_select_path(head, 0);
	srcu_read_unlock(&subsys->srcu, idx);
	if (!usable) {
		dev_warn(disk_to_dev(head->disk),
			 "no usable path for %u s: failing I/O until one returns\n",
			 nvfab_no_path_tmo(head));
		set_bit(NVFAB_HEAD_NOPATH_EXPIRED, &head->flags);
	}
	kblockd_schedule_work(&head->requeue_work);
}

static void nvfab_head_kick(struct nvfab_ns_head *head)
{
	kblockd_schedule_work(&head->requeue_work);
}

/**
 * nvfab_mpath_kick() - re-run a head's waiting bios
 * @ns: a path of the head
 *
 * Called when a path may have become usable (controller live, ANA state
 * changed) or may never be (failfast expired, path removed).
 *
 * Context: any context.
 */
void nvfab_mpath_kick(struct nvfab_ns *ns)
{
	if (ns->head)
		nvfab_head_kick(ns->head);
}

/**
 * nvfab_mpath_path_changed() - a path's usability changed
 * @ns: the path
 *
 * Tells the selector and re-runs the head's waiting bios.
 *
 * Context: process context (the selector hook itself must not sleep).
 */
void nvfab_mpath_path_changed(struct nvfab_ns *ns)
{
	struct nvfab_subsys *subsys = ns->ctrl->subsys;
	struct nvfab_ps *ps;
	int idx;

	if (!subsys || !ns->head)
		return;
	idx = srcu_read_lock(&subsys->srcu);
	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	if (ps && ps->ops->path_changed)
		ps->ops->path_changed(ps, ns->ctrl->slot);
	srcu_read_unlock(&subsys->srcu, idx);
	nvfab_head_kick(ns->head);
}

static int nvfab_head_open(struct gendisk *disk, blk_mode_t mode)
{
	struct nvfab_ns_head *head = disk->private_data;

	if (!test_bit(NVFAB_HEAD_DISK_LIVE, &head->flags))
		return -ENXIO;
	return 0;
}

static void nvfab_head_release(struct kref *ref)
{
	struct nvfab_ns_head *head = container_of(ref, struct nvfab_ns_head,
						  ref);
	struct nvfab_subsys *subsys = head->subsys;

	ida_free(&subsys->head_ida, head->instance);
	kfree(head);
	put_device(&subsys->dev);
}

static void nvfab_head_put(struct nvfab_ns_head *head)
{
	kref_put(&head->ref, nvfab_head_release);
}

static void nvfab_head_free_disk(struct gendisk *disk)
{
	nvfab_head_put(disk->private_data);
}

static const struct block_device_operations nvfab_head_ops = {
	.owner		= THIS_MODULE,
	.submit_bio	= nvfab_head_submit_bio,
	.open		= nvfab_head_open,
	.ioctl		= nvfab_head_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.free_disk	= nvfab_head_free_disk,
};

/*
 * A head takes the limits of its paths; polling and NOWAIT only when every
 * path has them (stacking clears them otherwise). A polled bio is polled
 * on the path disk it was sent to.
 */
static void nvfab_head_base_limits(struct queue_limits *lim)
{
	blk_set_stacking_limits(lim);
	lim->max_zone_append_sectors = 0;	/* no zoned namespaces */
	lim->dma_alignment = 3;
	lim->features |= BLK_FEAT_IO_STAT | BLK_FEAT_POLL | BLK_FEAT_NOWAIT;
}

/*
 * The head's partition table is read here, not by device_add_disk(): that
 * read goes to the target, which may stall it, and the scan that adds the
 * disk must not wait for the target (error recovery and deletion must
 * always be able to proceed; a stalled read is failed by them).
 */
static void nvfab_head_part_scan_work(struct work_struct *work)
{
	struct nvfab_ns_head *head = container_of(work, struct nvfab_ns_head,
						  part_scan_work);
	struct gendisk *disk = head->disk;

	if (!test_and_clear_bit(GD_SUPPRESS_PART_SCAN, &disk->state))
		return;
	mutex_lock(&disk->open_mutex);
	if (test_bit(NVFAB_HEAD_DISK_LIVE, &head->flags))
		bdev_disk_changed(disk, false);
	mutex_unlock(&disk->open_mutex);
}

static struct nvfab_ns_head *nvfab_alloc_head(struct nvfab_subsys *subsys,
					      struct nvfab_ns *ns,
					      struct nvfab_ns_ids *ids)
{
	struct queue_limits lim;
	struct nvfab_ns_head *head;
	int ret;

	head = kzalloc(sizeof(*head), GFP_KERNEL);
	if (!head)
		return ERR_PTR(-ENOMEM);
	ret = ida_alloc_min(&subsys->head_ida, 1, GFP_KERNEL);
	if (ret < 0)
		goto out_free;
	head->instance = ret;
	head->subsys = subsys;
	head->nsid = ns->nsid;
	head->ids = *ids;
	kref_init(&head->ref);
	INIT_LIST_HEAD(&head->paths);
	spin_lock_init(&head->requeue_lock);
	bio_list_init(&head->requeue_list);
	INIT_WORK(&head->requeue_work, nvfab_requeue_work);
	INIT_DELAYED_WORK(&head->nopath_work, nvfab_nopath_work);
	INIT_WORK(&head->part_scan_work, nvfab_head_part_scan_work);

	nvfab_head_base_limits(&lim);
	head->disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(head->disk)) {
		ret = PTR_ERR(head->disk);
		goto out_ida;
	}
	head->disk->fops = &nvfab_head_ops;
	head->disk->private_data = head;
	snprintf(head->disk->disk_name, DISK_NAME_LEN, "nvfab%dn%d",
		 subsys->instance, head->instance);
	get_device(&subsys->dev);
	return head;

out_ida:
	ida_free(&subsys->head_ida, head->instance);
out_free:
	kfree(head);
	return ERR_PTR(ret);
}

/*
 * Stack the limits of every path onto the head (subsys->lock held). The
 * head takes P2PDMA pages (BLK_FEAT_PCI_P2PDMA, which stacking does not
 * pass on) only while every path can map them: a tcp path joining takes
 * the feature away, and its leaving gives it back.
 */
static void nvfab_head_update_limits(struct nvfab_ns_head *head)
{
	struct queue_limits lim;
	struct nvfab_ns *ns;
	bool p2pdma;

	lockdep_assert_held(&head->subsys->lock);
	lim = queue_limits_start_update(head->disk->queue);
	nvfab_head_base_limits(&lim);
	p2pdma = !list_empty(&head->paths);
	list_for_each_entry(ns, &head->paths, siblings) {
		queue_limits_stack_bdev(&lim, ns->disk->part0, 0,
					head->disk->disk_name);
		if (!blk_queue_pci_p2pdma(ns->disk->queue))
			p2pdma = false;
	}
	if (p2pdma)
		lim.features |= BLK_FEAT_PCI_P2PDMA;
	else
		lim.features &= ~BLK_FEAT_PCI_P2PDMA;
	if (queue_limits_commit_update(head->disk->queue, &lim))
		dev_warn(disk_to_dev(head->disk), "limits not updated\n");
}

/*
 * A head whose identifiers clash with a path's is stale for that NSID: the
 * namespace was remapped. Its paths are rescanned, and move or go.
 */
static void nvfab_rescan_stale(struct nvfab_subsys *subsys,
			       struct nvfab_ns_head *stale)
{
	struct nvfab_ns *ns;

	lockdep_assert_held(&subsys->lock);
	list_for_each_entry(ns, &stale->paths, siblings)
		nvfab_queue_scan(ns->ctrl);
}

/**
 * nvfab_mpath_add_ns() - attach a new path to its head
 * @ns: a namespace whose disk is set up but not added
 * @ids: its identifiers
 *
 * Finds the head with this NSID and identifiers, or creates one. A head
 * with the NSID but other identifiers is never joined: the namespace was
 * remapped, and the other controllers are asked to rescan. The path disk
 * is named nvfabXcNnY.
 *
 * Context: may sleep; takes subsys->lock.
 * Return: 0 or a negative errno; on failure @ns has no head.
 */
int nvfab_mpath_add_ns(struct nvfab_ns *ns, struct nvfab_ns_ids *ids)
{
	struct nvfab_ctrl *ctrl = ns->ctrl;
	struct nvfab_subsys *subsys = ctrl->subsys;
	struct nvfab_ns_head *head = NULL, *h;

	if (!subsys)
		return -ENODEV;
	mutex_lock(&subsys->lock);
	list_for_each_entry(h, &subsys->heads, entry) {
		if (h->nsid != ns->nsid)
			continue;
		if (nvfab_ns_ids_equal(&h->ids, ids)) {
			head = h;
			break;
		}
		dev_info(ctrl->device, "nsid %u: identifiers differ from %s: a new namespace\n",
			 ns->nsid, h->disk->disk_name);
		nvfab_rescan_stale(subsys, h);
	}
	if (!head) {
		head = nvfab_alloc_head(subsys, ns, ids);
		if (IS_ERR(head)) {
			mutex_unlock(&subsys->lock);
			return PTR_ERR(head);
		}
		list_add_tail(&head->entry, &subsys->heads);
	}
	kref_get(&head->ref);	/* the path's */
	head->nr_paths++;
	ns->head = head;
	snprintf(ns->disk->disk_name, DISK_NAME_LEN, "nvfab%dc%dn%d",
		 subsys->instance, ctrl->instance, head->instance);
	ns->path.slot = ctrl->slot;
	/* the transport's device node (RDMA), else the controller's */
	ns->path.numa_node = ctrl->numa_node != NUMA_NO_NODE ?
			     ctrl->numa_node : dev_to_node(ctrl->device);
	ns->path.inflight = &ctrl->mp_inflight;
	mutex_unlock(&subsys->lock);
	return 0;
}

/* Link a path disk under its head's "multipath" directory (subsys->lock). */
static void nvfab_head_link_path(struct nvfab_ns_head *head,
				 struct nvfab_ns *ns)
{
	lockdep_assert_held(&head->subsys->lock);
	if (sysfs_add_link_to_group(&disk_to_dev(head->disk)->kobj,
				    "multipath", &disk_to_dev(ns->disk)->kobj,
				    ns->disk->disk_name))
		dev_warn(ns->ctrl->device, "no multipath link for %s\n",
			 ns->disk->disk_name);
}

/**
 * nvfab_mpath_ns_added() - publish a path whose disk was added
 * @ns: the path
 *
 * Puts the path on its head's list, and adds the head's disk with the
 * first path. The disk is added without subsys->lock held and without
 * reading its partition table, which head->part_scan_work reads later:
 * nothing here waits for the target.
 *
 * Context: may sleep; takes subsys->lock.
 * Return: 0 or a negative errno (the head's disk could not be added).
 */
int nvfab_mpath_ns_added(struct nvfab_ns *ns)
{
	struct nvfab_ns_head *head = ns->head;
	struct nvfab_subsys *subsys = head->subsys;
	struct nvfab_ns *p;
	bool add;
	int ret = 0;

	mutex_lock(&subsys->lock);
	list_add_tail_rcu(&ns->siblings, &head->paths);
	nvfab_head_update_limits(head);
	set_capacity_and_notify(head->disk, get_capacity(ns->disk));
	add = !test_and_set_bit(NVFAB_HEAD_DISK_ADDED, &head->flags);
	if (!add && test_bit(NVFAB_HEAD_DISK_LIVE, &head->flags))
		nvfab_head_link_path(head, ns);
	mutex_unlock(&subsys->lock);

	/*
	 * Only this path adds the disk; the head cannot lose its last path
	 * meanwhile, as this one counts in nr_paths. Paths published while
	 * the disk is not live yet are linked below.
	 */
	if (add) {
		set_bit(GD_SUPPRESS_PART_SCAN, &head->disk->state);
		ret = device_add_disk(&subsys->dev, head->disk,
				      nvfab_head_groups);
		mutex_lock(&subsys->lock);
		if (ret) {
			dev_err(ns->ctrl->device, "%s not added: %d\n",
				head->disk->disk_name, ret);
		} else {
			set_bit(NVFAB_HEAD_DISK_LIVE, &head->flags);
			list_for_each_entry(p, &head->paths, siblings)
				nvfab_head_link_path(head, p);
		}
		mutex_unlock(&subsys->lock);
		if (!ret)
			queue_work(nvfab_wq, &head->part_scan_work);
	}
	nvfab_head_kick(head);
	return ret;
}

/**
 * nvfab_mpath_set_capacity() - a path's namespace changed size
 * @ns: the path
 * @capacity: new size, 512-byte sectors
 *
 * Context: may sleep.
 */
void nvfab_mpath_set_capacity(struct nvfab_ns *ns, sector_t capacity)
{
	if (ns->head)
		set_capacity_and_notify(ns->head->disk, capacity);
}

/* Fail every bio still waiting on a head that lost its disk. */
static void nvfab_head_fail_waiting(struct nvfab_ns_head *head)
{
	struct bio_list bios;
	struct bio *bio;

	nvfab_head_take_waiting(head, &bios);
	while ((bio = bio_list_pop(&bios))) {
		atomic64_inc(&head->io_fail_no_available_path_count);
		bio_io_error(bio);
	}
}

/**
 * nvfab_mpath_remove_ns() - stop routing I/O to a path that is going away
 * @ns: the path; its disk is still there
 *
 * After this returns no new bio is sent to @ns; bios waiting on the head
 * are re-run (and fail over or wait).
 *
 * Context: may sleep (SRCU grace period); takes subsys->lock.
 */
void nvfab_mpath_remove_ns(struct nvfab_ns *ns)
{
	struct nvfab_ns_head *head = ns->head;
	struct nvfab_subsys *subsys;

	if (!head)
		return;
	subsys = head->subsys;
	set_bit(NVFAB_NS_REMOVING, &ns->flags);
	mutex_lock(&subsys->lock);
	if (test_bit(NVFAB_HEAD_DISK_LIVE, &head->flags))
		sysfs_remove_link_from_group(&disk_to_dev(head->disk)->kobj,
					     "multipath", ns->disk->disk_name);
	list_del_rcu(&ns->siblings);
	mutex_unlock(&subsys->lock);
	synchronize_srcu(&subsys->srcu);
	nvfab_head_kick(head);
}

/**
 * nvfab_mpath_ns_removed() - drop a removed path's head reference
 * @ns: the path, whose disk is deleted
 *
 * The head's disk goes with its last path; bios still waiting fail.
 *
 * Context: may sleep; takes subsys->lock.
 */
void nvfab_mpath_ns_removed(struct nvfab_ns *ns)
{
	struct nvfab_ns_head *head = ns->head;
	struct nvfab_subsys *subsys;
	bool last;

	if (!head)
		return;
	subsys = head->subsys;
	mutex_lock(&subsys->lock);
	last = !--head->nr_paths;
	if (last)
		list_del_init(&head->entry);
	else if (test_bit(NVFAB_HEAD_DISK_LIVE, &head->flags))
		nvfab_head_update_limits(head);
	mutex_unlock(&subsys->lock);

	if (last) {
		cancel_delayed_work_sync(&head->nopath_work);
		if (test_and_clear_bit(NVFAB_HEAD_DISK_LIVE, &head->flags)) {
			/*
			 * Fail what waits for a path first (a partition scan
			 * may wait with the disk's open_mutex held, which
			 * del_gendisk() takes).
			 */
			nvfab_head_kick(head);
			flush_work(&head->requeue_work);
			nvfab_head_fail_waiting(head);
			del_gendisk(head->disk);
		}
		flush_work(&head->requeue_work);
		nvfab_head_fail_waiting(head);
		flush_work(&head->part_scan_work);
		/* the disk's reference goes in ->free_disk, if it was added */
		if (!test_bit(NVFAB_HEAD_DISK_ADDED, &head->flags))
			nvfab_head_put(head);
		put_disk(head->disk);
	}
	ns->head = NULL;
	nvfab_head_put(head);	/* the path's */
}

/* ---- requests on a path ---- */

/**
 * nvfab_mpath_start_request() - account a multipath request being sent
 * @rq: a request of a path disk, NVFAB_REQ_MPATH set
 *
 * Context: any context (queue_rq); no lock.
 */
void nvfab_mpath_start_request(struct request *rq)
{
	struct nvfab_ns *ns = rq->q->queuedata;
	struct nvfab_request *req = nvfab_req(rq);
	struct nvfab_subsys *subsys = ns->ctrl->subsys;
	struct nvfab_ps *ps;
	int idx;

	req->flags |= NVFAB_REQ_MPATH_ACCT;
	req->start_ns = ktime_get_ns();
	atomic_inc(&ns->ctrl->mp_inflight);
	idx = srcu_read_lock(&subsys->srcu);
	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	if (ps && ps->ops->start_io)
		ps->ops->start_io(ps, &ns->path, blk_rq_bytes(rq));
	srcu_read_unlock(&subsys->srcu, idx);
}

/**
 * nvfab_mpath_end_request() - account a multipath request that finished
 * @rq: the request, NVFAB_REQ_MPATH_ACCT set
 * @status: how it ended (path errors included)
 *
 * Context: any context (completion, softirq included); no lock.
 */
void nvfab_mpath_end_request(struct request *rq, blk_status_t status)
{
	struct nvfab_ns *ns = rq->q->queuedata;
	struct nvfab_request *req = nvfab_req(rq);
	struct nvfab_subsys *subsys = ns->ctrl->subsys;
	struct nvfab_ps *ps;
	u64 lat = ktime_get_ns() - req->start_ns;
	int idx;

	req->flags &= ~NVFAB_REQ_MPATH_ACCT;
	atomic_dec(&ns->ctrl->mp_inflight);
	idx = srcu_read_lock(&subsys->srcu);
	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	if (ps && ps->ops->end_io)
		ps->ops->end_io(ps, &ns->path, blk_rq_bytes(rq), lat, status);
	srcu_read_unlock(&subsys->srcu, idx);
}

/**
 * nvfab_mpath_failover() - give a failed request's bios back to the head
 * @rq: a multipath request that failed with a path error
 *
 * An ANA status marks the path unusable until the ANA log is read again.
 * The bios go to the head's requeue list, the request ends with no data,
 * and the head sends them on another path. Counted once per request in
 * the path's diag/multipath_failover_count.
 *
 * Context: any context (completion).
 * Return: true if the bios were taken over, false if @rq has no head.
 */
bool nvfab_mpath_failover(struct request *rq)
{
	struct nvfab_ns *ns = rq->q->queuedata;
	struct nvfab_ns_head *head = ns->head;
	u16 status = nvfab_req(rq)->status & NVME_SCT_SC_MASK;
	unsigned long flags;
	struct bio *bio;

	if (!head)
		return false;
	atomic64_inc(&ns->multipath_failover_count);
	trace_nvfab_failover(rq, ns->nsid);
	switch (status) {
	case NVME_SC_ANA_TRANSITION:
	case NVME_SC_ANA_INACCESSIBLE:
	case NVME_SC_ANA_PERSISTENT_LOSS:
		nvfab_ana_error(ns, status);
		break;
	default:
		break;
	}

	spin_lock_irqsave(&head->requeue_lock, flags);
	for (bio = rq->bio; bio; bio = bio->bi_next) {
		/* a polled bio cannot wait on another queue's poller */
		if (bio->bi_opf & REQ_POLLED) {
			bio->bi_opf &= ~REQ_POLLED;
			bio->bi_cookie = BLK_QC_T_NONE;
		}
	}
	blk_steal_bios(&head->requeue_list, rq);
	spin_unlock_irqrestore(&head->requeue_lock, flags);

	nvfab_req(rq)->status = 0;
	blk_mq_end_request(rq, BLK_STS_OK);
	nvfab_head_kick(head);
	return true;
}
