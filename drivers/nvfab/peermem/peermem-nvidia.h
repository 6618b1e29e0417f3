/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-peermem-nvidia: the checks of what user space hands the driver,
 * kept apart from the driver (which needs NVIDIA's nv-p2p.h) so that KUnit
 * tests them on every kernel (tests/peermem_nvidia_kunit.c).
 */
#ifndef _NVFAB_PEERMEM_NVIDIA_H
#define _NVFAB_PEERMEM_NVIDIA_H

#include <linux/align.h>
#include <linux/bsearch.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <uapi/nvfab/peermem-nvidia.h>

#define NVPN_GPU_PAGE_SIZE	SZ_64K
#define NVPN_GPU_PAGE_SHIFT	16

/**
 * struct nvpn_run - physically contiguous stand-ins of a buffer
 * @pfn:	first page frame
 * @nr:		pages
 * @index:	the buffer page that @pfn is
 *
 * Runs are built in buffer order and are maximal: the frame right after a
 * run is never the buffer page right after it.
 */
struct nvpn_run {
	unsigned long	pfn;
	unsigned long	nr;
	unsigned long	index;
};

static inline int nvpn_run_cmp(const void *key, const void *elt)
{
	unsigned long pfn = *(const unsigned long *)key;
	const struct nvpn_run *run = elt;

	if (pfn < run->pfn)
		return -1;
	if (pfn >= run->pfn + run->nr)
		return 1;
	return 0;
}

/**
 * nvpn_sg_offset() - where a scatterlist entry on stand-ins is in the buffer
 * @runs:	the buffer's stand-ins as physically contiguous runs, each
 *		also contiguous in the buffer, sorted by page frame
 * @nr_runs:	their number
 * @buf_len:	the buffer's length in bytes
 * @pfn:	the entry's page frame (sg_page())
 * @offset:	its offset from that page (may be past it)
 * @length:	its length in bytes
 * @buf_off:	set to the buffer offset of the entry's first byte
 *
 * An entry is physically contiguous memory, and stand-ins adjacent in
 * memory need not be adjacent in the buffer (blk_rq_map_sg() merges the
 * pages of two iovecs that happen to touch, whatever their order in the
 * buffer). The entry is translated only when all its bytes lie in one run,
 * so that they are one stretch of the buffer, and in one GPU page, whose
 * DMA address is the one nv-p2p gives: it is then one DMA segment.
 *
 * Context: any.
 * Return: 0; -EINVAL when the entry is empty or its first page is not a
 * stand-in of the buffer; -EXDEV when its bytes are not one stretch of
 * one GPU page of the buffer.
 */
static inline int nvpn_sg_offset(const struct nvpn_run *runs,
				 unsigned long nr_runs, u64 buf_len,
				 unsigned long pfn, unsigned int offset,
				 unsigned int length, u64 *buf_off)
{
	unsigned long first, last;
	const struct nvpn_run *run;
	u64 off;

	if (!length)
		return -EINVAL;
	first = pfn + (offset >> PAGE_SHIFT);
	last = pfn + ((offset + (u64)length - 1) >> PAGE_SHIFT);
	run = bsearch(&first, runs, nr_runs, sizeof(*run), nvpn_run_cmp);
	if (!run)
		return -EINVAL;
	/* the frame after a run is never the buffer's next page */
	if (last - run->pfn >= run->nr)
		return -EXDEV;
	off = ((u64)(run->index + (first - run->pfn)) << PAGE_SHIFT) +
	      offset_in_page(offset);
	if (off >= buf_len || length > buf_len - off)
		return -EINVAL;
	if (off >> NVPN_GPU_PAGE_SHIFT !=
	    (off + length - 1) >> NVPN_GPU_PAGE_SHIFT)
		return -EXDEV;
	*buf_off = off;
	return 0;
}

/**
 * nvpn_pin_check() - check the argument of NVFAB_PEERMEM_NVIDIA_PIN
 * @arg:	the argument as copied from user space
 * @max_len_mb:	the module parameter max_len_mb (MiB)
 *
 * The GPU range must be non-empty, start and end on a GPU page (64 KiB,
 * nv-p2p's page size) and not wrap; flags and reserved must be 0.
 * include/uapi/nvfab/peermem-nvidia.h.
 *
 * Context: any.
 * Return: 0; -EINVAL for a malformed argument; -E2BIG for a range longer
 * than @max_len_mb MiB.
 */
static inline int nvpn_pin_check(const struct nvfab_peermem_nvidia_pin *arg,
				 unsigned int max_len_mb)
{
	if (arg->flags || arg->reserved || !arg->len ||
	    !IS_ALIGNED(arg->gpu_va, NVPN_GPU_PAGE_SIZE) ||
	    !IS_ALIGNED(arg->len, NVPN_GPU_PAGE_SIZE) ||
	    arg->gpu_va + arg->len < arg->gpu_va)
		return -EINVAL;
	if (arg->len > (u64)max_len_mb << 20)
		return -E2BIG;
	return 0;
}

#endif /* _NVFAB_PEERMEM_NVIDIA_H */
