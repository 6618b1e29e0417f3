/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab multipath: the path-selector boundary (Documentation/design.rst,
 * "Boundaries", "Path selectors").
 *
 * A subsystem (all controllers with one subsystem NQN) has one selector
 * instance, struct nvfab_ps, chosen by its sysfs "iopolicy". Each
 * controller of the subsystem holds a slot number below NVFAB_MAX_PATHS; a
 * selector keeps its per-path state per slot, so that what it learns about
 * a controller (latency, errors) serves every namespace reached through it.
 *
 * The framework (head.c) does the ANA tiering: a selector is only ever
 * offered the usable paths of the best tier of one namespace head
 * (optimized, or else non-optimized), never an inaccessible,
 * persistent-loss or change path, nor one whose controller is not live. It
 * also counts every request in flight per controller (*path->inflight).
 */
#ifndef _NVFAB_MULTIPATH_H
#define _NVFAB_MULTIPATH_H

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

/* Controllers (paths) per subsystem. */
#define NVFAB_MAX_PATHS		32

/**
 * struct nvfab_path - one namespace reached through one controller, as a
 * selector sees it
 * @slot:	the controller's slot in the subsystem, < NVFAB_MAX_PATHS
 * @numa_node:	NUMA node of the controller's device (NUMA_NO_NODE on TCP)
 * @ana_state:	enum nvme_ana_state, read with READ_ONCE()
 * @inflight:	requests in flight on the controller, all namespaces
 *		(framework-maintained; read with atomic_read())
 *
 * Lives as long as the SRCU read section in which a selector got it.
 */
struct nvfab_path {
	unsigned int	slot;
	int		numa_node;
	u8		ana_state;
	atomic_t	*inflight;
};

/**
 * struct nvfab_tier - the usable paths of a namespace head's best ANA tier
 * @ana_state:	NVME_ANA_OPTIMIZED or NVME_ANA_NONOPTIMIZED
 * @nr:		entries in @paths, at least 1 whenever a selector sees it
 * @paths:	the paths, in the order their controllers joined
 *
 * Built on the submitter's stack for each I/O; valid only during the
 * select_path() call.
 */
struct nvfab_tier {
	u8			ana_state;
	unsigned int		nr;
	struct nvfab_path	*paths[NVFAB_MAX_PATHS];
};

struct nvfab_ps;

/**
 * struct nvfab_ps_ops - a path selector
 * @name:	iopolicy name ("round-robin", "service-time", ...)
 * @owner:	THIS_MODULE; held while any subsystem uses the selector
 * @list:	registry entry (framework)
 * @ctx_size:	bytes of per-instance state, zeroed, at nvfab_ps_ctx()
 * @path_ctx_size: bytes of per-slot state, zeroed, at nvfab_ps_path_ctx()
 * @attr_group:	optional knobs, created on the subsystem device while the
 *		selector is in use; the group must be named (attributes
 *		appear in /sys/class/nvfab-subsystem/nvfab-subsysX/<name>/).
 *		show/store find the instance with nvfab_ps_get(dev) /
 *		nvfab_ps_put().
 * @create:	set up a new instance (context zeroed). May sleep. Returns 0
 *		or a negative errno.
 * @destroy:	free what @create allocated. May sleep. Called after the
 *		last SRCU reader of the instance is gone.
 * @add_path:	a controller joined at @slot (or existed when the instance
 *		was created). May sleep.
 * @remove_path: the controller at @slot left; the slot may be reused by
 *		a later @add_path. May sleep.
 * @path_changed: the controller at @slot changed state (live or not), or
 *		an ANA state changed. Any context, must not sleep.
 * @select_path: choose one of @tier->paths for an I/O of @bytes (0 for a
 *		flush). Runs under SRCU in the submitter's context: must not
 *		sleep nor take a spinlock. Must return one of @tier->paths.
 * @start_io:	a request of @bytes was sent on @path. Any context, no
 *		sleeping, no spinlock.
 * @end_io:	a request of @bytes sent on @path completed after @lat_ns
 *		nanoseconds with @status (BLK_STS_OK or the error; path
 *		errors included). The instance may not have seen the matching
 *		@start_io (iopolicy switched in between). Any context
 *		(including softirq), no sleeping, no spinlock.
 * @path_status: print one line (no newline needed) describing @slot into
 *		@buf of @size bytes, for sysfs; returns the length. Optional.
 *
 * Only @name, @owner and @select_path are required.
 */
struct nvfab_ps_ops {
	const char		*name;
	struct module		*owner;
	struct list_head	list;
	size_t			ctx_size;
	size_t			path_ctx_size;
	const struct attribute_group *attr_group;

	int	(*create)(struct nvfab_ps *ps);
	void	(*destroy)(struct nvfab_ps *ps);
	void	(*add_path)(struct nvfab_ps *ps, unsigned int slot);
	void	(*remove_path)(struct nvfab_ps *ps, unsigned int slot);
	void	(*path_changed)(struct nvfab_ps *ps, unsigned int slot);
	struct nvfab_path *(*select_path)(struct nvfab_ps *ps,
					  const struct nvfab_tier *tier,
					  unsigned int bytes);
	void	(*start_io)(struct nvfab_ps *ps, struct nvfab_path *path,
			    unsigned int bytes);
	void	(*end_io)(struct nvfab_ps *ps, struct nvfab_path *path,
			  unsigned int bytes, u64 lat_ns, blk_status_t status);
	int	(*path_status)(struct nvfab_ps *ps, unsigned int slot,
			       char *buf, size_t size);
};

/**
 * struct nvfab_ps - one selector instance (one per subsystem)
 * @ops:	the selector
 * @dev:	the subsystem's device (messages; the knobs' kobject)
 * @ctx:	@ops->ctx_size bytes for the selector
 * @path_ctx:	NVFAB_MAX_PATHS * @ops->path_ctx_size bytes
 * @rcu:	freed after an SRCU grace period
 */
struct nvfab_ps {
	const struct nvfab_ps_ops	*ops;
	struct device			*dev;
	void				*ctx;
	void				*path_ctx;
	struct rcu_head			rcu;
};

static inline void *nvfab_ps_ctx(struct nvfab_ps *ps)
{
	return ps->ctx;
}

static inline void *nvfab_ps_path_ctx(struct nvfab_ps *ps, unsigned int slot)
{
	return ps->path_ctx + slot * ps->ops->path_ctx_size;
}

int nvfab_register_ps(struct nvfab_ps_ops *ops);
void nvfab_unregister_ps(struct nvfab_ps_ops *ops);
struct nvfab_ps *nvfab_ps_get(struct device *subsys_dev);
void nvfab_ps_put(struct device *subsys_dev, struct nvfab_ps *ps);

#endif /* _NVFAB_MULTIPATH_H */
