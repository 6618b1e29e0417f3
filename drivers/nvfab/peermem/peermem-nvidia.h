/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-peermem-nvidia: the checks of what user space hands the driver,
 * kept apart from the driver (which needs NVIDIA's nv-p2p.h) so that KUnit
 * tests them on every kernel (tests/peermem_nvidia_kunit.c).
 */
#ifndef _NVFAB_PEERMEM_NVIDIA_H
#define _NVFAB_PEERMEM_NVIDIA_H

#include <linux/align.h>
#include <linux/errno.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <uapi/nvfab/peermem-nvidia.h>

#define NVPN_GPU_PAGE_SIZE	SZ_64K
#define NVPN_GPU_PAGE_SHIFT	16

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
