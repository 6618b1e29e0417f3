// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-peermem-nvidia: a peer-memory provider for NVIDIA GPU memory
 * through NVIDIA's nv-p2p interface (the GPUDirect RDMA model), built only
 * where the build finds nv-p2p.h (Documentation/admin-guide/
 * nvfab-peermem.rst, "NVIDIA provider").
 *
 * User space pins a range of GPU virtual memory with an ioctl on
 * /dev/nvfab-peermem-nvidia (include/uapi/nvfab/peermem-nvidia.h) and maps
 * host pages of the same size that stand in for it (route 2 of the
 * document, the model of GPUDirect Storage): the stand-ins are claimed
 * with nvfab_peer_claim(), and when an RDMA transport maps I/O on them the
 * provider hands it the GPU pages' DMA addresses for that RDMA device,
 * from nvidia_p2p_dma_map_pages().
 *
 * Byte N of a buffer's stand-ins is byte N of its GPU range. The stand-ins
 * are allocated in 64 KiB blocks, one per GPU page, and a block never
 * starts right after the previous one in physical memory, so that no
 * scatterlist entry (physically contiguous stand-ins) crosses a GPU page.
 *
 * DMA mappings are made per RDMA device on first use, by a work item: they
 * may sleep and map_sg() may not. The I/O that finds no mapping yet is
 * retried by the block layer (-EAGAIN, BLK_STS_RESOURCE).
 *
 * Lifetimes and locks:
 *  - nvpn_bufs (an XArray) maps a buffer's id to the buffer; the id is the
 *    handle given to user space and the data of NVIDIA's free callback, so
 *    that a callback that comes late finds nothing instead of a freed
 *    buffer.
 *  - buf->users counts the owner file's pin and the VMAs; when it drops to
 *    zero the buffer is torn down in a work item (not under the mmap lock
 *    of munmap()): unclaimed (waiting for its I/O), DMA-unmapped and
 *    unpinned. buf->mem keeps the structure itself; the free callback
 *    holds it while it works.
 *  - buf->lock (a mutex) serialises the claim, the page table and the DMA
 *    mappings between the ioctl, the teardown, the mapping work and
 *    NVIDIA's free callback, as ib_core's peer-memory client does: it is
 *    held across nvidia_p2p_dma_unmap_pages() and nvidia_p2p_put_pages()
 *    and taken by the free callback.
 *  - buf->maps_lock (a spinlock) guards the list of DMA mappings, which
 *    map_sg() reads on the submission path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <nv-p2p.h>

#include <nvfab/peermem.h>
#include <uapi/nvfab/peermem-nvidia.h>

#include <nvfab/compat.h>
#include "peermem-nvidia.h"

#define NVPN_PAGES_PER_GPU_PAGE	(NVPN_GPU_PAGE_SIZE >> PAGE_SHIFT)
#define NVPN_BLOCK_ORDER	get_order(NVPN_GPU_PAGE_SIZE)

static unsigned int max_len_mb = 1024;
module_param(max_len_mb, uint, 0644);
MODULE_PARM_DESC(max_len_mb,
		 "largest buffer one pin may ask for, in MiB (its stand-ins take as much host memory)");

static atomic_t nvpn_nr_bufs = ATOMIC_INIT(0);
/* struct nvpn_buf allocated: module exit waits for a late free callback */
static atomic_t nvpn_nr_structs = ATOMIC_INIT(0);

static int nvpn_buffers_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(&nvpn_nr_bufs));
}

static const struct kernel_param_ops nvpn_buffers_ops = {
	.get = nvpn_buffers_get,
};
module_param_cb(buffers, &nvpn_buffers_ops, NULL, 0444);
MODULE_PARM_DESC(buffers, "buffers pinned now");

enum nvpn_map_state {
	NVPN_MAP_PENDING,	/* the work item has yet to map */
	NVPN_MAP_READY,		/* @mapping is usable */
	NVPN_MAP_FAILED,	/* the device cannot reach the GPU memory */
};

/**
 * struct nvpn_dma - a buffer's GPU pages mapped for one RDMA device
 * @node:	in the buffer's @maps, under @maps_lock
 * @dev:	the RDMA device's DMA device (a PCI device), referenced
 * @state:	enum nvpn_map_state; read without the lock
 *		(smp_load_acquire())
 * @err:	why mapping failed
 * @mapping:	NVIDIA's mapping, while @state is NVPN_MAP_READY
 */
struct nvpn_dma {
	struct list_head			node;
	struct device				*dev;
	int					state;
	int					err;
	struct nvidia_p2p_dma_mapping		*mapping;
};

/**
 * struct nvpn_buf - one pinned GPU range and its stand-ins
 * @id:		its index in nvpn_bufs and its mmap offset in pages
 * @owner:	the file that pinned it; the mmap and unpin ioctl must use it
 * @file_pin:	the owner's reference in @users is held: set once the
 *		buffer is complete, cleared by the unpin ioctl or the
 *		owner's close. Under the xa_lock of nvpn_bufs.
 * @users:	the owner's pin plus one per VMA
 * @mem:	the structure's own references (@users > 0 holds one)
 * @lock:	see the top of the file
 * @gpu_va:	first byte of the GPU range
 * @len:	its length in bytes
 * @pt:		NVIDIA's page table; NULL once unpinned or freed by the GPU
 *		driver. Under @lock.
 * @claim:	the stand-ins' claim; NULL once unclaimed. Under @lock.
 * @pages:	the stand-ins, in buffer order
 * @nr_pages:	their number
 * @runs:	their physically contiguous runs, sorted by pfn
 * @nr_runs:	their number
 * @maps_lock:	guards @maps
 * @maps:	struct nvpn_dma, one per RDMA device
 * @map_work:	makes the pending DMA mappings
 * @release_work: tears the buffer down once @users dropped to zero
 */
struct nvpn_buf {
	u32				id;
	struct file			*owner;
	bool				file_pin;
	struct kref			users;
	refcount_t			mem;
	struct mutex			lock;		/* see the top */
	u64				gpu_va;
	u64				len;
	struct nvidia_p2p_page_table	*pt;
	struct nvfab_peer_claim		*claim;
	struct page			**pages;
	unsigned long			nr_pages;
	struct nvpn_run			*runs;
	unsigned long			nr_runs;
	spinlock_t			maps_lock;	/* guards @maps */
	struct list_head		maps;
	struct work_struct		map_work;
	struct work_struct		release_work;
};

/* id -> struct nvpn_buf; its xa_lock also guards every buf->file_pin */
static DEFINE_XARRAY_ALLOC1(nvpn_bufs);
/* the DMA mappings and the teardowns; drained at module exit */
static struct workqueue_struct *nvpn_wq;

static struct nvfab_peer_provider nvpn_provider;

/* The DMA mapping of @buf for @dev, or NULL. Any context. */
static struct nvpn_dma *nvpn_find_dma(struct nvpn_buf *buf, struct device *dev)
{
	struct nvpn_dma *d, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&buf->maps_lock, flags);
	list_for_each_entry(d, &buf->maps, node) {
		if (d->dev == dev) {
			found = d;
			break;
		}
	}
	spin_unlock_irqrestore(&buf->maps_lock, flags);
	return found;
}

static int nvpn_distance(const struct nvfab_peer_map *map)
{
	struct nvpn_buf *buf;
	struct nvpn_dma *d;

	/*
	 * Only a PCI device that does real DMA reaches GPU memory: a
	 * software RDMA device (rxe, siw) would need a kernel mapping of it.
	 */
	if (!map->claim || !map->dma || !map->dma->dev ||
	    !dev_is_pci(map->dma->dev))
		return -EREMOTEIO;
	buf = nvfab_peer_claim_priv(map->claim);
	d = nvpn_find_dma(buf, map->dma->dev);
	/* pairs with nvpn_dma_set() */
	if (d && smp_load_acquire(&d->state) == NVPN_MAP_FAILED)
		return -EREMOTEIO;
	/* the GPU driver decides when it maps: no hop count to give */
	return 0;
}

/* Queues a DMA mapping of @buf for @dev. Any context. */
static int nvpn_queue_dma(struct nvpn_buf *buf, struct device *dev)
{
	struct nvpn_dma *d, *old;
	unsigned long flags;

	d = kzalloc(sizeof(*d), GFP_ATOMIC);
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	d->state = NVPN_MAP_PENDING;
	spin_lock_irqsave(&buf->maps_lock, flags);
	list_for_each_entry(old, &buf->maps, node) {
		if (old->dev == dev) {
			spin_unlock_irqrestore(&buf->maps_lock, flags);
			kfree(d);
			return -EAGAIN;	/* queued by another I/O */
		}
	}
	get_device(dev);
	list_add_tail(&d->node, &buf->maps);
	spin_unlock_irqrestore(&buf->maps_lock, flags);
	queue_work(nvpn_wq, &buf->map_work);
	return -EAGAIN;
}

static int nvpn_map_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
		       int nents)
{
	struct nvidia_p2p_dma_mapping *m;
	struct scatterlist *sg;
	struct nvpn_buf *buf;
	struct nvpn_dma *d;
	int i;

	if (!map->claim || !map->dma || !map->dma->dev ||
	    !dev_is_pci(map->dma->dev))
		return -EREMOTEIO;
	buf = nvfab_peer_claim_priv(map->claim);
	d = nvpn_find_dma(buf, map->dma->dev);
	if (!d)
		return nvpn_queue_dma(buf, map->dma->dev);
	/* pairs with nvpn_dma_set(): @mapping is set before READY */
	switch (smp_load_acquire(&d->state)) {
	case NVPN_MAP_PENDING:
		return -EAGAIN;
	case NVPN_MAP_FAILED:
		return -EREMOTEIO;
	}
	m = d->mapping;

	for_each_sg(sgl, sg, nents, i) {
		unsigned long gp;
		u64 off;
		int ret;

		ret = nvpn_sg_offset(buf->runs, buf->nr_runs, buf->len,
				     page_to_pfn(sg_page(sg)), sg->offset,
				     sg->length, &off);
		if (ret)
			return ret;
		gp = off >> NVPN_GPU_PAGE_SHIFT;
		if (gp >= m->entries)
			return -EINVAL;
		sg_dma_address(sg) = m->dma_addresses[gp] +
				     (off & (NVPN_GPU_PAGE_SIZE - 1));
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static void nvpn_unmap_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
			  int nents)
{
	/* the DMA mappings live as long as the buffer */
}

static const struct nvfab_peer_ops nvpn_ops = {
	.distance	= nvpn_distance,
	.map_sg		= nvpn_map_sg,
	.unmap_sg	= nvpn_unmap_sg,
};

static struct nvfab_peer_provider nvpn_provider = {
	.name	= "nvidia",
	.owner	= THIS_MODULE,
	.ops	= &nvpn_ops,
};

/* Sets @d's state; the mapping must be visible before it. */
static void nvpn_dma_set(struct nvpn_dma *d, int state, int err)
{
	d->err = err;
	/* pairs with the smp_load_acquire() of map_sg() and distance() */
	smp_store_release(&d->state, state);
}

/* The first mapping of @buf still to make, or NULL. */
static struct nvpn_dma *nvpn_next_pending(struct nvpn_buf *buf)
{
	struct nvpn_dma *d, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&buf->maps_lock, flags);
	list_for_each_entry(d, &buf->maps, node) {
		if (d->state == NVPN_MAP_PENDING) {
			found = d;
			break;
		}
	}
	spin_unlock_irqrestore(&buf->maps_lock, flags);
	return found;
}

/* Makes the pending DMA mappings of a buffer. Process context. */
static void nvpn_map_work(struct work_struct *work)
{
	struct nvpn_buf *buf = container_of(work, struct nvpn_buf, map_work);
	struct nvidia_p2p_dma_mapping *m;
	struct nvpn_dma *d;
	int ret;

	mutex_lock(&buf->lock);
	/* map_sg() adds entries meanwhile; none goes while the buffer lives */
	while ((d = nvpn_next_pending(buf))) {
		if (!buf->pt) {
			nvpn_dma_set(d, NVPN_MAP_FAILED, -ENODEV);
			continue;
		}
		ret = nvidia_p2p_dma_map_pages(to_pci_dev(d->dev), buf->pt, &m);
		if (ret) {
			dev_warn(d->dev, "cannot map GPU memory for peer DMA: %d\n",
				 ret);
			nvpn_dma_set(d, NVPN_MAP_FAILED, ret);
			continue;
		}
		if (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(m) ||
		    m->page_size_type != NVIDIA_P2P_PAGE_SIZE_64KB ||
		    (u64)m->entries << NVPN_GPU_PAGE_SHIFT != buf->len) {
			dev_warn(d->dev, "unexpected GPU DMA mapping (version %#x, page size type %d, %u entries)\n",
				 m->version, m->page_size_type, m->entries);
			nvidia_p2p_dma_unmap_pages(to_pci_dev(d->dev), buf->pt,
						   m);
			nvpn_dma_set(d, NVPN_MAP_FAILED, -EINVAL);
			continue;
		}
		d->mapping = m;
		nvpn_dma_set(d, NVPN_MAP_READY, 0);
	}
	mutex_unlock(&buf->lock);
}

/*
 * Drops the DMA mappings: unmapped while the pin is live, only forgotten
 * (@unmap false) when the GPU driver freed them in its free callback.
 * Under buf->lock, with no I/O left on the buffer.
 */
static void nvpn_drop_dma_locked(struct nvpn_buf *buf, bool unmap)
{
	struct nvpn_dma *d;
	int ret;

	lockdep_assert_held(&buf->lock);
	/* the claim is revoked: map_sg() adds no entry any more */
	list_for_each_entry(d, &buf->maps, node) {
		if (d->state != NVPN_MAP_READY)
			continue;
		if (unmap)
			ret = nvidia_p2p_dma_unmap_pages(to_pci_dev(d->dev),
							 buf->pt, d->mapping);
		else
			ret = nvidia_p2p_free_dma_mapping(d->mapping);
		if (ret)
			dev_warn(d->dev, "GPU DMA mapping not released: %d\n",
				 ret);
		d->mapping = NULL;
		nvpn_dma_set(d, NVPN_MAP_FAILED, -ENODEV);
	}
}

static void nvpn_buf_put_mem(struct nvpn_buf *buf)
{
	struct nvpn_dma *d, *tmp;

	if (!refcount_dec_and_test(&buf->mem))
		return;
	list_for_each_entry_safe(d, tmp, &buf->maps, node) {
		put_device(d->dev);
		kfree(d);
	}
	kfree(buf);
	if (atomic_dec_and_test(&nvpn_nr_structs))
		wake_up_var(&nvpn_nr_structs);
}

/* Frees the stand-ins; pages an I/O still pins go when it unpins them. */
static void nvpn_free_standins(struct nvpn_buf *buf)
{
	unsigned long i;

	for (i = 0; buf->pages && i < buf->nr_pages; i++) {
		if (buf->pages[i])
			__free_page(buf->pages[i]);
	}
	kvfree(buf->pages);
	kvfree(buf->runs);
	buf->pages = NULL;
	buf->runs = NULL;
}

/*
 * The last user is gone: unclaim, unmap, unpin, free. In a work item, not
 * under the mmap lock of munmap() or exit, which the GPU driver may take.
 */
static void nvpn_release_work(struct work_struct *work)
{
	struct nvpn_buf *buf = container_of(work, struct nvpn_buf,
					    release_work);
	int ret;

	mutex_lock(&buf->lock);
	if (buf->claim) {
		nvfab_peer_unclaim(buf->claim);	/* waits for its I/O */
		buf->claim = NULL;
	}
	mutex_unlock(&buf->lock);
	/* no map_sg() can queue more work now */
	cancel_work_sync(&buf->map_work);

	mutex_lock(&buf->lock);
	if (buf->pt) {
		nvpn_drop_dma_locked(buf, true);
		ret = nvidia_p2p_put_pages(0, 0, buf->gpu_va, buf->pt);
		if (ret)
			pr_warn("GPU range %#llx+%#llx not unpinned: %d\n",
				buf->gpu_va, buf->len, ret);
		buf->pt = NULL;
	}
	mutex_unlock(&buf->lock);

	/* a free callback from now on finds no buffer */
	xa_erase(&nvpn_bufs, buf->id);
	nvpn_free_standins(buf);
	atomic_dec(&nvpn_nr_bufs);
	nvpn_buf_put_mem(buf);
}

static void nvpn_buf_release(struct kref *ref)
{
	struct nvpn_buf *buf = container_of(ref, struct nvpn_buf, users);

	queue_work(nvpn_wq, &buf->release_work);
}

static void nvpn_buf_put(struct nvpn_buf *buf)
{
	kref_put(&buf->users, nvpn_buf_release);
}

/**
 * nvpn_free_callback() - NVIDIA's notice that pinned GPU memory is going
 * @data: the buffer's id in nvpn_bufs
 *
 * Called by the NVIDIA driver when the GPU memory of a pin is freed before
 * nvidia_p2p_put_pages() (cudaFree(), the end of the CUDA context). The
 * claim is revoked, which fences the I/O in flight on the buffer: the
 * RDMA queues carrying it stop, which deregisters its memory
 * registrations, without waiting for the target (nvfab_peer_revoke()), so
 * that no RDMA device writes the memory after this returns; later I/O on
 * the buffer fails with EREMOTEIO. As nv-p2p requires of this callback,
 * nvidia_p2p_put_pages() and nvidia_p2p_dma_unmap_pages() are not called:
 * the DMA mappings and the page table are handed back with
 * nvidia_p2p_free_dma_mapping() and nvidia_p2p_free_page_table(). The
 * stand-ins stay mapped in user space until munmap().
 *
 * Context: process context, called with locks of the NVIDIA driver held;
 * sleeps (takes buf->lock, waits for the fenced queues to stop), as the
 * callback of NVIDIA's own nvidia-peermem does (it waits for the RDMA
 * core's invalidation).
 */
static void nvpn_free_callback(void *data)
{
	unsigned long id = (unsigned long)data;
	struct nvpn_buf *buf;
	int ret;

	xa_lock(&nvpn_bufs);
	buf = xa_load(&nvpn_bufs, id);
	if (buf && !refcount_inc_not_zero(&buf->mem))
		buf = NULL;
	xa_unlock(&nvpn_bufs);
	if (!buf)
		return;

	mutex_lock(&buf->lock);
	if (buf->pt) {
		if (buf->claim)
			nvfab_peer_revoke(buf->claim);
		nvpn_drop_dma_locked(buf, false);
		ret = nvidia_p2p_free_page_table(buf->pt);
		if (ret)
			pr_warn("GPU page table not freed: %d\n", ret);
		buf->pt = NULL;
		pr_info("GPU range %#llx+%#llx freed under a pin: buffer revoked\n",
			buf->gpu_va, buf->len);
	}
	mutex_unlock(&buf->lock);
	nvpn_buf_put_mem(buf);
}

/*
 * Allocates the stand-ins: one 64 KiB block per GPU page (single pages
 * when no block is free), a block never physically right after the
 * previous one. Zeroed: user space maps them.
 */
static int nvpn_alloc_standins(struct nvpn_buf *buf)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
	unsigned long i, j, prev_end = 0;
	LIST_HEAD(spare);
	struct page *page, *tmp;
	int ret = 0;

	buf->pages = kvcalloc(buf->nr_pages, sizeof(*buf->pages), GFP_KERNEL);
	if (!buf->pages)
		return -ENOMEM;
	for (i = 0; i < buf->nr_pages; i += NVPN_PAGES_PER_GPU_PAGE) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		page = alloc_pages(gfp | __GFP_NORETRY, NVPN_BLOCK_ORDER);
		if (page && prev_end && page_to_pfn(page) == prev_end) {
			/* would continue the previous block: set it aside */
			set_page_private(page, NVPN_BLOCK_ORDER);
			list_add(&page->lru, &spare);
			page = alloc_pages(gfp | __GFP_NORETRY,
					   NVPN_BLOCK_ORDER);
		}
		if (page) {
			split_page(page, NVPN_BLOCK_ORDER);
			for (j = 0; j < NVPN_PAGES_PER_GPU_PAGE; j++)
				buf->pages[i + j] = page + j;
		} else {
			for (j = 0; j < NVPN_PAGES_PER_GPU_PAGE; j++) {
				page = alloc_page(gfp);
				if (page && !j && prev_end &&
				    page_to_pfn(page) == prev_end) {
					set_page_private(page, 0);
					list_add(&page->lru, &spare);
					page = alloc_page(gfp);
				}
				if (!page) {
					ret = -ENOMEM;
					goto out;
				}
				buf->pages[i + j] = page;
			}
		}
		prev_end = page_to_pfn(buf->pages[i + j - 1]) + 1;
	}
out:
	list_for_each_entry_safe(page, tmp, &spare, lru) {
		unsigned int order = page_private(page);

		list_del(&page->lru);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
	return ret;
}

static int nvpn_run_sort_cmp(const void *a, const void *b)
{
	const struct nvpn_run *ra = a, *rb = b;

	return ra->pfn < rb->pfn ? -1 : ra->pfn > rb->pfn;
}

/* Finds the stand-ins' physically contiguous runs and claims them. */
static int nvpn_claim_standins(struct nvpn_buf *buf)
{
	struct nvfab_peer_claim *claim;
	unsigned long i, n = 0;
	int ret;

	buf->runs = kvcalloc(buf->nr_pages, sizeof(*buf->runs), GFP_KERNEL);
	if (!buf->runs)
		return -ENOMEM;
	for (i = 0; i < buf->nr_pages; i++) {
		unsigned long pfn = page_to_pfn(buf->pages[i]);

		if (n && buf->runs[n - 1].pfn + buf->runs[n - 1].nr == pfn) {
			buf->runs[n - 1].nr++;
			continue;
		}
		buf->runs[n].pfn = pfn;
		buf->runs[n].nr = 1;
		buf->runs[n].index = i;
		n++;
	}
	buf->nr_runs = n;

	claim = nvfab_peer_claim(&nvpn_provider, buf->runs[0].pfn,
				 buf->runs[0].nr, buf);
	if (IS_ERR(claim))
		return PTR_ERR(claim);
	for (i = 1; i < n; i++) {
		ret = nvfab_peer_claim_extend(claim, buf->runs[i].pfn,
					      buf->runs[i].nr);
		if (ret) {
			nvfab_peer_unclaim(claim);
			return ret;
		}
	}
	/* map_sg() looks a page frame up by binary search */
	sort(buf->runs, n, sizeof(*buf->runs), nvpn_run_sort_cmp, NULL);
	buf->claim = claim;
	return 0;
}

/*
 * Pins the GPU range of @buf. Under buf->lock: a free callback that comes
 * at once waits for the buffer to be complete.
 */
static int nvpn_pin_locked(struct nvpn_buf *buf)
{
	struct nvidia_p2p_page_table *pt;
	int ret;

	lockdep_assert_held(&buf->lock);
	ret = nvidia_p2p_get_pages(0, 0, buf->gpu_va, buf->len, &buf->pt,
				   nvpn_free_callback,
				   (void *)(unsigned long)buf->id);
	if (ret) {
		buf->pt = NULL;
		/* kernel-internal codes (the driver's ENOTSUPP): not for users */
		return ret <= -EBADHANDLE ? -EOPNOTSUPP : ret;
	}
	pt = buf->pt;
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(pt) ||
	    pt->page_size != NVIDIA_P2P_PAGE_SIZE_64KB ||
	    (u64)pt->entries << NVPN_GPU_PAGE_SHIFT != buf->len) {
		pr_warn("unexpected GPU page table (version %#x, page size type %u, %u entries) for %#llx+%#llx\n",
			pt->version, pt->page_size, pt->entries, buf->gpu_va,
			buf->len);
		nvidia_p2p_put_pages(0, 0, buf->gpu_va, pt);
		buf->pt = NULL;
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The buffer that @file pinned at page offset @id and has not unpinned.
 * @unpin: take the owner's pin over (the caller puts it); else take a
 * user reference.
 */
static struct nvpn_buf *nvpn_buf_get(struct file *file, unsigned long id,
				     bool unpin)
{
	struct nvpn_buf *buf;

	if (id > INT_MAX)
		return NULL;
	xa_lock(&nvpn_bufs);
	buf = xa_load(&nvpn_bufs, id);
	if (buf && (buf->owner != file || !buf->file_pin))
		buf = NULL;
	else if (buf && unpin)
		buf->file_pin = false;
	else if (buf)
		kref_get(&buf->users);
	xa_unlock(&nvpn_bufs);
	return buf;
}

/* Drops the owner's pin of the buffer at mmap offset @offset. */
static long nvpn_ioctl_unpin(struct file *file, unsigned long offset)
{
	struct nvpn_buf *buf;

	if (!PAGE_ALIGNED(offset))
		return -EINVAL;
	buf = nvpn_buf_get(file, offset >> PAGE_SHIFT, true);
	if (!buf)
		return -EINVAL;
	nvpn_buf_put(buf);
	/* unpinned when this returns, unless the buffer is still mapped */
	flush_workqueue(nvpn_wq);
	return 0;
}

static long nvpn_ioctl_pin(struct file *file, void __user *argp)
{
	struct nvfab_peermem_nvidia_pin arg;
	struct nvpn_buf *buf;
	u32 id;
	int ret;

	if (copy_from_user(&arg, argp, sizeof(arg)))
		return -EFAULT;
	ret = nvpn_pin_check(&arg, READ_ONCE(max_len_mb));
	if (ret)
		return ret;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	atomic_inc(&nvpn_nr_structs);
	kref_init(&buf->users);		/* the owner's pin */
	refcount_set(&buf->mem, 1);	/* held while users > 0 */
	mutex_init(&buf->lock);
	spin_lock_init(&buf->maps_lock);
	INIT_LIST_HEAD(&buf->maps);
	INIT_WORK(&buf->map_work, nvpn_map_work);
	INIT_WORK(&buf->release_work, nvpn_release_work);
	buf->owner = file;
	buf->gpu_va = arg.gpu_va;
	buf->len = arg.len;
	buf->nr_pages = arg.len >> PAGE_SHIFT;

	/* the stand-ins first: the free callback waits while buf->lock is held */
	ret = nvpn_alloc_standins(buf);
	if (ret)
		goto out_free;
	/* an id before the pin: it is the free callback's data */
	mutex_lock(&buf->lock);
	ret = xa_alloc(&nvpn_bufs, &id, buf, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&buf->lock);
		goto out_free;
	}
	buf->id = id;
	ret = nvpn_pin_locked(buf);
	if (!ret) {
		ret = nvpn_claim_standins(buf);
		if (ret) {
			nvidia_p2p_put_pages(0, 0, buf->gpu_va, buf->pt);
			buf->pt = NULL;
		}
	}
	mutex_unlock(&buf->lock);
	if (ret) {
		xa_erase(&nvpn_bufs, id);
		goto out_free;
	}

	atomic_inc(&nvpn_nr_bufs);
	xa_lock(&nvpn_bufs);
	buf->file_pin = true;	/* from now on mmap() and unpin find it */
	xa_unlock(&nvpn_bufs);

	arg.offset = (u64)id << PAGE_SHIFT;
	if (copy_to_user(argp, &arg, sizeof(arg))) {
		nvpn_ioctl_unpin(file, arg.offset);
		return -EFAULT;
	}
	return 0;

out_free:
	/* a free callback that found the buffer holds buf->mem */
	nvpn_free_standins(buf);
	nvpn_buf_put_mem(buf);
	return ret;
}

static long nvpn_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case NVFAB_PEERMEM_NVIDIA_PIN:
		return nvpn_ioctl_pin(file, (void __user *)arg);
	case NVFAB_PEERMEM_NVIDIA_UNPIN:
		return nvpn_ioctl_unpin(file, arg);
	default:
		return -ENOTTY;
	}
}

static void nvpn_vm_open(struct vm_area_struct *vma)
{
	struct nvpn_buf *buf = vma->vm_private_data;

	kref_get(&buf->users);
}

static void nvpn_vm_close(struct vm_area_struct *vma)
{
	nvpn_buf_put(vma->vm_private_data);
}

/* A buffer is mapped and unmapped whole. */
static int nvpn_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct nvpn_vm_ops = {
	.open		= nvpn_vm_open,
	.close		= nvpn_vm_close,
	.may_split	= nvpn_vm_may_split,
};

static int nvpn_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct nvpn_buf *buf;
	unsigned long i;
	int ret;

	/* a private mapping would copy the stand-ins on write */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	buf = nvpn_buf_get(file, vma->vm_pgoff, false);
	if (!buf)
		return -EINVAL;
	if (len != buf->len) {
		ret = -EINVAL;
		goto out_put;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	/* real pages in the VMA, so that get_user_pages() (O_DIRECT) works */
	for (i = 0; i < buf->nr_pages; i++) {
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     buf->pages[i]);
		if (ret)
			goto out_put;	/* mmap unmaps what was inserted */
	}
	vma->vm_private_data = buf;	/* the reference is the VMA's */
	vma->vm_ops = &nvpn_vm_ops;
	return 0;

out_put:
	nvpn_buf_put(buf);
	return ret;
}

/* The owner's pins go with the file; mapped buffers live on. */
static int nvpn_release(struct inode *inode, struct file *file)
{
	struct nvpn_buf *buf;
	unsigned long id;

	for (;;) {
		struct nvpn_buf *found = NULL;

		xa_lock(&nvpn_bufs);
		xa_for_each(&nvpn_bufs, id, buf) {
			if (buf->owner == file && buf->file_pin) {
				buf->file_pin = false;
				found = buf;
				break;
			}
		}
		xa_unlock(&nvpn_bufs);
		if (!found)
			break;
		nvpn_buf_put(found);
	}
	return 0;
}

/* The module stays loaded while a file is open or a buffer mapped. */
static const struct file_operations nvpn_fops = {
	.owner		= THIS_MODULE,
	.mmap		= nvpn_mmap,
	.unlocked_ioctl	= nvpn_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.release	= nvpn_release,
	.llseek		= noop_llseek,
};

static struct miscdevice nvpn_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "nvfab-peermem-nvidia",
	.fops	= &nvpn_fops,
	.mode	= 0600,
};

static int __init nvpn_init(void)
{
	int ret;

	BUILD_BUG_ON(PAGE_SIZE > NVPN_GPU_PAGE_SIZE);
	nvpn_wq = alloc_workqueue("nvfab_peermem_nvidia", WQ_UNBOUND, 0);
	if (!nvpn_wq)
		return -ENOMEM;
	ret = nvfab_peer_register(&nvpn_provider);
	if (ret)
		goto out_wq;
	ret = misc_register(&nvpn_misc);
	if (ret)
		goto out_unregister;
	return 0;

out_unregister:
	nvfab_peer_unregister(&nvpn_provider);
out_wq:
	destroy_workqueue(nvpn_wq);
	return ret;
}
module_init(nvpn_init);

static void __exit nvpn_exit(void)
{
	/* no file is open and no buffer mapped: teardowns may be queued */
	misc_deregister(&nvpn_misc);
	destroy_workqueue(nvpn_wq);
	/* a free callback that raced with a teardown may still hold one */
	wait_var_event(&nvpn_nr_structs, !atomic_read(&nvpn_nr_structs));
	nvfab_peer_unregister(&nvpn_provider);
	WARN_ON(!xa_empty(&nvpn_bufs));
}
module_exit(nvpn_exit);

NVFAB_IMPORT();
MODULE_DESCRIPTION("nvfab peer-memory provider for NVIDIA GPU memory (nv-p2p, GPUDirect RDMA)");
MODULE_LICENSE("GPL");
