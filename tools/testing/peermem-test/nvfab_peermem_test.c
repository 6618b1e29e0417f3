// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-peermem-test: a peer-memory provider for the test guests, never
 * installed. It drives the ivshmem-plain device of the QEMU guests
 * (tools/testing/vm/run-vm.sh), whose BAR 2 is shared memory that stands in
 * for GPU memory, and splits that BAR in two halves:
 *
 *  - the first half is P2PDMA memory (CONFIG_PCI_P2PDMA only), published,
 *    so that user space gets ZONE_DEVICE pages by mmap of
 *    /sys/bus/pci/devices/BDF/p2pmem/allocate (route 1 of
 *    Documentation/admin-guide/nvfab-peermem.rst; not this module's pages);
 *  - the second half, the "window", gets struct pages in the kernel's
 *    direct map (MEMORY_DEVICE_GENERIC) and is this module's device
 *    memory: mmap of /dev/nvfab-peermem-test gives a buffer of ordinary host
 *    pages claimed as stand-ins for it (route 2), and the provider "test"
 *    maps I/O on them to the window.
 *
 * The provider hands out kernel virtual addresses of the window: only a
 * software RDMA device (rdma_rxe, siw), which moves data with the CPU and
 * turns a "DMA address" back into a page with virt_to_page(), can use
 * them. The user interface is in nvfab_peermem_test.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/memremap.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <nvfab/peermem.h>

#include <nvfab/compat.h>
#include "nvfab_peermem_test.h"

#define NVPT_IVSHMEM_DEVICE	0x1110	/* ivshmem-plain, vendor 0x1af4 */
#define NVPT_BAR		2

/**
 * struct nvpt_buf - one mmap of the misc device
 * @ref:	the VMAs that map it, plus the ioctl's while it works on it
 * @node:	in nvpt_bufs, under nvpt_lock
 * @vaddr:	the stand-in pages (alloc_pages_exact(): one contiguous block)
 * @pfn:	their first page frame
 * @len:	their size in bytes
 * @dev_pfn:	first page frame of the device memory they stand for
 * @claim:	the stand-ins' claim; NULL once the device went away. Under
 *		nvpt_lock.
 */
struct nvpt_buf {
	struct kref			ref;
	struct list_head		node;
	void				*vaddr;
	unsigned long			pfn;
	unsigned long			len;
	unsigned long			dev_pfn;
	struct nvfab_peer_claim		*claim;
};

/**
 * struct nvpt_dev - the bound ivshmem device
 * @pdev:	the PCI device
 * @win_start:	physical address of the window (second half of BAR 2)
 * @win_size:	its size
 */
struct nvpt_dev {
	struct pci_dev		*pdev;
	phys_addr_t		win_start;
	unsigned long		win_size;
};

/* bit 0: a device is bound */
static unsigned long nvpt_bound;
/* Serialises nvpt_dev, the buffers and their claims. */
static DEFINE_MUTEX(nvpt_lock);
static struct nvpt_dev *nvpt_dev;
static LIST_HEAD(nvpt_bufs);

static unsigned long window_offset;
module_param(window_offset, ulong, 0444);
MODULE_PARM_DESC(window_offset,
		 "offset in BAR 2 of the device memory that buffers stand for");
static unsigned long window_size;
module_param(window_size, ulong, 0444);
MODULE_PARM_DESC(window_size, "its size in bytes");
static int buffers;
module_param(buffers, int, 0444);
MODULE_PARM_DESC(buffers, "buffers mapped now");

/*
 * The "unreachable" parameter: RDMA device names that distance() refuses.
 * Read on the submission path, which must not sleep: a spinlock, not the
 * parameter mutex.
 */
#define NVPT_UNREACHABLE_LEN	256
static DEFINE_SPINLOCK(nvpt_unreachable_lock);
static char nvpt_unreachable[NVPT_UNREACHABLE_LEN];

static int nvpt_unreachable_set(const char *val, const struct kernel_param *kp)
{
	char tmp[NVPT_UNREACHABLE_LEN];
	unsigned long flags;

	if (strscpy(tmp, val, sizeof(tmp)) < 0)
		return -ENOSPC;
	spin_lock_irqsave(&nvpt_unreachable_lock, flags);
	strscpy(nvpt_unreachable, strim(tmp), sizeof(nvpt_unreachable));
	spin_unlock_irqrestore(&nvpt_unreachable_lock, flags);
	return 0;
}

static int nvpt_unreachable_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&nvpt_unreachable_lock, flags);
	n = scnprintf(buffer, PAGE_SIZE, "%s\n", nvpt_unreachable);
	spin_unlock_irqrestore(&nvpt_unreachable_lock, flags);
	return n;
}

static const struct kernel_param_ops nvpt_unreachable_ops = {
	.set = nvpt_unreachable_set,
	.get = nvpt_unreachable_get,
};
module_param_cb(unreachable, &nvpt_unreachable_ops, NULL, 0644);
MODULE_PARM_DESC(unreachable,
		 "comma-separated RDMA device names that cannot reach the device memory");

/* Whether @name is listed in the "unreachable" parameter. */
static bool nvpt_is_unreachable(const char *name)
{
	size_t n = strlen(name);
	unsigned long flags;
	const char *p, *end;
	bool found = false;

	spin_lock_irqsave(&nvpt_unreachable_lock, flags);
	for (p = nvpt_unreachable; *p && !found; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		found = end - p == n && !strncmp(p, name, n);
	}
	spin_unlock_irqrestore(&nvpt_unreachable_lock, flags);
	return found;
}

static int nvpt_distance(const struct nvfab_peer_map *map)
{
	/*
	 * map_sg() hands out kernel virtual addresses of the window's direct
	 * map, which only a software RDMA device (rdma_rxe, siw: no DMA
	 * device, data moved by the CPU) can use. A device that does real
	 * DMA would need the BAR's bus addresses and a P2P path: this
	 * provider does not serve it.
	 */
	if (!map->dma || map->dma->dev)
		return -EREMOTEIO;
	if (map->dma->name && nvpt_is_unreachable(map->dma->name))
		return -EREMOTEIO;
	return 0;
}

/*
 * The "busy_every" parameter: when N > 0, every Nth mapping is refused
 * with -EAGAIN, a transient shortage that blk-mq retries (the NVIDIA
 * provider refuses a device's first I/O so while it registers it).
 * busy_refused counts the refusals.
 */
static int busy_every;
module_param(busy_every, int, 0644);
MODULE_PARM_DESC(busy_every,
		 "refuse every Nth mapping with -EAGAIN (0: never)");
static atomic_t nvpt_maps = ATOMIC_INIT(0);
static int busy_refused;
module_param(busy_refused, int, 0444);
MODULE_PARM_DESC(busy_refused, "mappings refused by busy_every");

static int nvpt_map_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
		       int nents)
{
	int every = READ_ONCE(busy_every);
	struct scatterlist *sg;
	struct nvpt_buf *buf;
	int i;

	if (!map->claim)
		return -EINVAL;
	if (every > 0 && atomic_inc_return(&nvpt_maps) % every == 0) {
		WRITE_ONCE(busy_refused, READ_ONCE(busy_refused) + 1);
		return -EAGAIN;
	}
	buf = nvfab_peer_claim_priv(map->claim);
	for_each_sg(sgl, sg, nents, i) {
		unsigned long off, idx = page_to_pfn(sg_page(sg)) - buf->pfn;
		struct page *dpage;

		/* the claim covers the buffer exactly: never true */
		if (idx >= buf->len >> PAGE_SHIFT)
			return -EINVAL;
		off = (idx << PAGE_SHIFT) + sg->offset;
		if (off >= buf->len || sg->length > buf->len - off)
			return -EINVAL;
		/* stand-in byte off is device byte off of the buffer */
		dpage = pfn_to_page(buf->dev_pfn + (off >> PAGE_SHIFT));
		sg_dma_address(sg) = (uintptr_t)page_address(dpage) +
				     offset_in_page(off);
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static void nvpt_unmap_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
			  int nents)
{
	/* map_sg() took nothing */
}

static const struct nvfab_peer_ops nvpt_ops = {
	.distance	= nvpt_distance,
	.map_sg		= nvpt_map_sg,
	.unmap_sg	= nvpt_unmap_sg,
};

static struct nvfab_peer_provider nvpt_provider = {
	.name	= "test",
	.owner	= THIS_MODULE,
	.ops	= &nvpt_ops,
};

/* The last VMA is gone: give the stand-ins back to the host and free them. */
static void nvpt_buf_release(struct kref *ref)
{
	struct nvpt_buf *buf = container_of(ref, struct nvpt_buf, ref);

	mutex_lock(&nvpt_lock);
	list_del(&buf->node);
	buffers--;
	/* waits for the I/O in flight on the buffer */
	if (buf->claim)
		nvfab_peer_unclaim(buf->claim);
	mutex_unlock(&nvpt_lock);
	/* pages still pinned by a finished I/O go when it unpins them */
	free_pages_exact(buf->vaddr, buf->len);
	kfree(buf);
}

static void nvpt_vm_open(struct vm_area_struct *vma)
{
	struct nvpt_buf *buf = vma->vm_private_data;

	kref_get(&buf->ref);
}

static void nvpt_vm_close(struct vm_area_struct *vma)
{
	struct nvpt_buf *buf = vma->vm_private_data;

	kref_put(&buf->ref, nvpt_buf_release);
}

/* A buffer is mapped and unmapped whole. */
static int nvpt_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct nvpt_vm_ops = {
	.open		= nvpt_vm_open,
	.close		= nvpt_vm_close,
	.may_split	= nvpt_vm_may_split,
};

static int nvpt_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long off = vma->vm_pgoff << PAGE_SHIFT;
	struct nvfab_peer_claim *claim;
	struct nvpt_buf *buf;
	unsigned long i;
	int ret;

	/* a private mapping would copy the stand-ins on write */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* the kernel has rounded len up to pages already */
	if (!len || len > NVFAB_PEERMEM_TEST_MAX_LEN || !PAGE_ALIGNED(len) ||
	    vma->vm_pgoff > ULONG_MAX >> PAGE_SHIFT)
		return -EINVAL;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->ref);
	buf->len = len;
	buf->vaddr = alloc_pages_exact(len, GFP_KERNEL | __GFP_ZERO |
				       __GFP_NOWARN);
	if (!buf->vaddr) {
		ret = -ENOMEM;
		goto out_free_buf;
	}
	buf->pfn = page_to_pfn(virt_to_page(buf->vaddr));

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	/* real pages in the VMA, so that get_user_pages() (O_DIRECT) works */
	for (i = 0; i < len >> PAGE_SHIFT; i++) {
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     virt_to_page(buf->vaddr + (i << PAGE_SHIFT)));
		if (ret)
			goto out_free_pages;	/* mmap unmaps what we did */
	}

	mutex_lock(&nvpt_lock);
	if (!nvpt_dev) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (off >= nvpt_dev->win_size || len > nvpt_dev->win_size - off) {
		ret = -EINVAL;
		goto out_unlock;
	}
	buf->dev_pfn = PHYS_PFN(nvpt_dev->win_start + off);
	claim = nvfab_peer_claim(&nvpt_provider, buf->pfn, len >> PAGE_SHIFT,
				 buf);
	if (IS_ERR(claim)) {
		ret = PTR_ERR(claim);
		goto out_unlock;
	}
	buf->claim = claim;
	list_add_tail(&buf->node, &nvpt_bufs);
	buffers++;
	mutex_unlock(&nvpt_lock);

	vma->vm_private_data = buf;
	vma->vm_ops = &nvpt_vm_ops;
	return 0;

out_unlock:
	mutex_unlock(&nvpt_lock);
out_free_pages:
	free_pages_exact(buf->vaddr, len);
out_free_buf:
	kfree(buf);
	return ret;
}

static long nvpt_revoke(struct file *file, unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct nvpt_buf *buf;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, untagged_addr(addr));
	if (!vma || vma->vm_ops != &nvpt_vm_ops || vma->vm_file != file) {
		mmap_read_unlock(mm);
		return -EINVAL;
	}
	buf = vma->vm_private_data;
	kref_get(&buf->ref);
	mmap_read_unlock(mm);

	mutex_lock(&nvpt_lock);
	if (buf->claim)
		nvfab_peer_revoke(buf->claim);	/* waits for I/O in flight */
	else
		ret = -ENODEV;
	mutex_unlock(&nvpt_lock);
	kref_put(&buf->ref, nvpt_buf_release);
	return ret;
}

static long nvpt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case NVFAB_PEERMEM_TEST_REVOKE:
		return nvpt_revoke(file, arg);
	default:
		return -ENOTTY;
	}
}

/* The module stays loaded while a file is open or a buffer mapped. */
static const struct file_operations nvpt_fops = {
	.owner		= THIS_MODULE,
	.mmap		= nvpt_mmap,
	.unlocked_ioctl	= nvpt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice nvpt_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "nvfab-peermem-test",
	.fops	= &nvpt_fops,
	.mode	= 0600,
};

static int nvpt_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	resource_size_t half = pci_resource_len(pdev, NVPT_BAR) / 2;
	struct dev_pagemap *pgmap;
	struct nvpt_dev *td;
	void *addr;
	int ret;

	if (!(pci_resource_flags(pdev, NVPT_BAR) & IORESOURCE_MEM) || !half ||
	    !IS_ALIGNED(half, memremap_compat_align()))
		return -ENODEV;
	/* one device: one misc device, one provider */
	if (test_and_set_bit(0, &nvpt_bound))
		return -EBUSY;
	ret = pcim_enable_device(pdev);
	if (ret)
		goto out_unbound;
	ret = pcim_request_region(pdev, NVPT_BAR, KBUILD_MODNAME);
	if (ret)
		goto out_unbound;

	ret = -ENOMEM;
	td = devm_kzalloc(&pdev->dev, sizeof(*td), GFP_KERNEL);
	pgmap = devm_kzalloc(&pdev->dev, sizeof(*pgmap), GFP_KERNEL);
	if (!td || !pgmap)
		goto out_unbound;
	td->pdev = pdev;
	td->win_start = pci_resource_start(pdev, NVPT_BAR) + half;
	td->win_size = half;

#ifdef CONFIG_PCI_P2PDMA
	/* route 1 is optional: route 2 works without it */
	ret = pci_p2pdma_add_resource(pdev, NVPT_BAR, half, 0);
	if (ret)
		pci_warn(pdev, "no P2PDMA memory in the first half of BAR %d: %d\n",
			 NVPT_BAR, ret);
	else
		pci_p2pmem_publish(pdev, true);
#endif

	/* struct pages for the window, in the direct map (see rxe_mr.c) */
	pgmap->type = MEMORY_DEVICE_GENERIC;
	pgmap->range.start = td->win_start;
	pgmap->range.end = td->win_start + half - 1;
	pgmap->nr_range = 1;
	addr = devm_memremap_pages(&pdev->dev, pgmap);
	if (IS_ERR(addr)) {
		ret = PTR_ERR(addr);
		goto out_unbound;
	}

	ret = nvfab_peer_register(&nvpt_provider);
	if (ret)
		goto out_unbound;
	mutex_lock(&nvpt_lock);
	nvpt_dev = td;
	window_offset = half;
	window_size = half;
	mutex_unlock(&nvpt_lock);
	ret = misc_register(&nvpt_misc);
	if (ret)
		goto out_unregister;
	pci_set_drvdata(pdev, td);
	pci_info(pdev, "peer-memory test window: %lu MiB at %pa (BAR %d + %#lx)\n",
		 td->win_size >> 20, &td->win_start, NVPT_BAR, window_offset);
	return 0;

out_unregister:
	mutex_lock(&nvpt_lock);
	nvpt_dev = NULL;
	window_offset = 0;
	window_size = 0;
	mutex_unlock(&nvpt_lock);
	nvfab_peer_unregister(&nvpt_provider);
out_unbound:
	clear_bit(0, &nvpt_bound);
	return ret;	/* devres undoes the rest */
}

static void nvpt_remove(struct pci_dev *pdev)
{
	struct nvpt_buf *buf;

	misc_deregister(&nvpt_misc);
	mutex_lock(&nvpt_lock);
	nvpt_dev = NULL;
	/* only on hot removal: the open files pin the module otherwise */
	list_for_each_entry(buf, &nvpt_bufs, node) {
		if (buf->claim) {
			nvfab_peer_unclaim(buf->claim);
			buf->claim = NULL;
		}
	}
	window_offset = 0;
	window_size = 0;
	mutex_unlock(&nvpt_lock);
	nvfab_peer_unregister(&nvpt_provider);
	clear_bit(0, &nvpt_bound);
	/* devres then unmaps the window and the P2PDMA memory */
}

/* No MODULE_DEVICE_TABLE: a test module must never bind by itself. */
static const struct pci_device_id nvpt_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, NVPT_IVSHMEM_DEVICE) },
	{ }
};

static struct pci_driver nvpt_driver = {
	.name		= "nvfab-peermem-test",
	.id_table	= nvpt_ids,
	.probe		= nvpt_probe,
	.remove		= nvpt_remove,
	/* no unbind through sysfs behind the buffers' back */
	.driver.suppress_bind_attrs = true,
};
module_pci_driver(nvpt_driver);

NVFAB_IMPORT();
MODULE_DESCRIPTION("nvfab peer-memory test provider on the ivshmem BAR of the test guests");
MODULE_LICENSE("GPL");
