/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations of nvfab-core's multipath layer: subsystems,
 * namespace heads, ANA state (this folder: subsys.c, head.c,
 * mpath-sysfs.c, ana.c, ana-log.c, ps-registry.c, ps-builtin.c; and the
 * head's ioctls in ../ioctl.c, its diag/ counters in ../diag.c).
 * Documentation/design.rst's lock-order table places these locks among the
 * others of nvfab.
 *
 * Lock order, outermost first (each lock is only taken with those above
 * it held, never the other way round):
 *   nvfab_subsys_lock (the list of subsystems; a controller joining;
 *     creating a subsystem may load its selector's module under it)
 *   ctrl->scan_lock (a scan adds paths: subsys->lock inside it)
 *   subsys->lock (its controllers, heads, slots and selector; a selector
 *     module is loaded before it is taken, never under it)
 *   ctrl->ana_lock (nvfab_ana_read() takes namespaces_rwsem inside it)
 *   ctrl->namespaces_rwsem (held for read while queued I/O drains in
 *     nvfab_update_nr_io_queues(); never across a command otherwise)
 *   ctrl->quiesce_lock (blk-mq's tag_list_lock inside it)
 *   head->requeue_lock (spinlock, irq-safe)
 * The I/O path takes none of them: it reads head->paths and subsys->ps
 * under subsys->srcu. A passthrough command holds a namespace reference,
 * no lock and no SRCU read section.
 */
#ifndef _NVFAB_MPATH_H
#define _NVFAB_MPATH_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/srcu.h>
#include <linux/xarray.h>

#include <nvfab/multipath.h>
#include "../nvfab.h"

/**
 * struct nvfab_subsys - an NVM subsystem: the controllers with one SUBNQN
 * @dev:	nvfab-subsysX in class nvfab-subsystem; its refcount is the
 *		subsystem's (controllers and heads hold one)
 * @instance:	X of nvfab-subsysX
 * @entry:	in nvfab_subsystems (protected by nvfab_subsys_lock)
 * @subnqn:	Subsystem NQN
 * @vid:	PCI Vendor ID, from the first controller's Identify
 * @serial:	from the first controller's Identify
 * @model:	from the first controller's Identify
 * @firmware_rev: from the first controller's Identify
 * @lock:	protects @ctrls, @heads, @slots, @ps updates, @no_path_tmo
 * @ctrls:	controllers (nvfab_ctrl.subsys_entry)
 * @heads:	namespace heads (nvfab_ns_head.entry)
 * @slots:	controller slots in use
 * @ps:		the path selector (readers: @srcu)
 * @srcu:	read side of @ps and of every head's path list
 * @head_ida:	head instances (the Y of nvfabXnY)
 * @no_path_tmo: seconds I/O waits for an ANA-usable path; 0 = 2 x ANATT
 */
struct nvfab_subsys {
	struct device		dev;
	int			instance;
	struct list_head	entry;
	char			subnqn[NVMF_NQN_SIZE];
	u16			vid;
	char			serial[20];
	char			model[40];
	char			firmware_rev[8];

	struct mutex		lock;		/* see above */
	struct list_head	ctrls;		/* protected by lock */
	struct list_head	heads;		/* protected by lock */
	DECLARE_BITMAP(slots, NVFAB_MAX_PATHS);	/* protected by lock */
	struct nvfab_ps __rcu	*ps;		/* written under lock */
	struct srcu_struct	srcu;
	struct ida		head_ida;
	int			no_path_tmo;	/* protected by lock */
};

/**
 * to_subsys() - the subsystem of a subsystem device
 * @dev: &nvfab_subsys.dev
 *
 * Context: any context.
 * Return: the subsystem.
 */
static inline struct nvfab_subsys *to_subsys(struct device *dev)
{
	return container_of(dev, struct nvfab_subsys, dev);
}

/* Bits of nvfab_ns_head.flags */
#define NVFAB_HEAD_NOPATH_TIMER		0	/* nopath_work armed */
#define NVFAB_HEAD_NOPATH_EXPIRED	1	/* the wait ran out */
#define NVFAB_HEAD_DISK_LIVE		2	/* disk added, not deleted */
#define NVFAB_HEAD_DISK_ADDED		3	/* device_add_disk() was tried */

/**
 * struct nvfab_ns_head - one namespace of a subsystem, over all its paths:
 * the block device /dev/nvfabXnY
 * @entry:	in subsys->heads (protected by subsys->lock)
 * @subsys:	the subsystem (a reference)
 * @ref:	each path and the disk hold a reference
 * @nr_paths:	paths attached (protected by subsys->lock)
 * @instance:	Y of nvfabXnY
 * @nsid:	Namespace ID
 * @ids:	its identifiers; a path joins only with the same NSID and ids
 * @disk:	the bio-based multipath disk
 * @paths:	struct nvfab_ns.siblings; RCU list written under subsys->lock,
 *		read under subsys->srcu
 * @requeue_lock: protects @requeue_list
 * @requeue_list: bios waiting for a usable path
 * @requeue_work: resubmits @requeue_list (kblockd)
 * @nopath_work: fails the wait after the no-path bound (nvfab_wq)
 * @part_scan_work: reads the partition table once the disk is added, so
 *		that adding it never waits for the target (nvfab_wq)
 * @flags:	NVFAB_HEAD_*
 * @peer:	peer-memory I/O routed through the head (sysfs peer_mem/)
 * @io_requeue_no_usable_path_count: bios put on @requeue_list because no
 *		path was usable at that moment (sysfs diag/)
 * @io_fail_no_available_path_count: bios failed because no path could
 *		become usable any more (sysfs diag/)
 */
struct nvfab_ns_head {
	struct list_head	entry;
	struct nvfab_subsys	*subsys;
	struct kref		ref;
	unsigned int		nr_paths;	/* protected by subsys->lock */
	int			instance;
	u32			nsid;
	struct nvfab_ns_ids	ids;
	struct gendisk		*disk;
	struct list_head	paths;
	spinlock_t		requeue_lock;	/* for requeue_list */
	struct bio_list		requeue_list;	/* protected by requeue_lock */
	struct work_struct	requeue_work;
	struct delayed_work	nopath_work;
	struct work_struct	part_scan_work;
	unsigned long		flags;
	struct nvfab_peer_counters peer;
	atomic64_t		io_requeue_no_usable_path_count;
	atomic64_t		io_fail_no_available_path_count;
};

/**
 * struct nvfab_ana_group - one ANA group as one controller reports it
 * @grpid:	ANA Group ID
 * @state:	enum nvme_ana_state (protected by ctrl->ana_lock)
 * @ctrl:	the controller
 * @anatt_work:	runs ANATT seconds after the group entered CHANGE
 */
struct nvfab_ana_group {
	u32			grpid;
	u8			state;
	struct nvfab_ctrl	*ctrl;
	struct delayed_work	anatt_work;
};

/**
 * enum nvfab_nopath - what happens to I/O on a head with no usable path
 * @NVFAB_NOPATH_FAIL:	no path can come back: fail now
 * @NVFAB_NOPATH_WAIT:	a controller is reconnecting: wait for it
 * @NVFAB_NOPATH_BOUNDED: live paths in unusable ANA states: wait at most
 *			no_path_tmo
 */
enum nvfab_nopath {
	NVFAB_NOPATH_FAIL,
	NVFAB_NOPATH_WAIT,
	NVFAB_NOPATH_BOUNDED,
};

/* The request was routed by a multipath head (a driver-private bio flag). */
#define NVFAB_REQ_MPATH		REQ_DRV

/* subsys.c */
int nvfab_mpath_init(void);
void nvfab_mpath_exit(void);
int nvfab_mpath_join(struct nvfab_ctrl *ctrl);
void nvfab_mpath_leave(struct nvfab_ctrl *ctrl);
int nvfab_set_ps(struct nvfab_subsys *subsys, const char *name);

/* head.c */
int nvfab_mpath_add_ns(struct nvfab_ns *ns, struct nvfab_ns_ids *ids);
int nvfab_mpath_ns_added(struct nvfab_ns *ns);
void nvfab_mpath_remove_ns(struct nvfab_ns *ns);
void nvfab_mpath_ns_removed(struct nvfab_ns *ns);
void nvfab_mpath_set_capacity(struct nvfab_ns *ns, sector_t capacity);
void nvfab_mpath_kick(struct nvfab_ns *ns);
void nvfab_mpath_path_changed(struct nvfab_ns *ns);
void nvfab_mpath_start_request(struct request *rq);
void nvfab_mpath_end_request(struct request *rq, blk_status_t status);
bool nvfab_mpath_failover(struct request *rq);
struct nvfab_ns *nvfab_select_path(struct nvfab_ns_head *head,
				   unsigned int bytes);

#if IS_ENABLED(CONFIG_KUNIT)
void nvfab_build_tier(struct nvfab_ns_head *head, struct nvfab_tier *tier);
enum nvfab_nopath nvfab_nopath_kind(struct nvfab_ns_head *head);
int nvfab_peer_filter(struct nvfab_ns_head *head, struct nvfab_tier *tier,
		      struct page *page);
#endif

/* mpath-sysfs.c */
const char *nvfab_ana_state_name(u8 state);
extern const struct attribute_group *nvfab_subsys_groups[];
extern const struct attribute_group *nvfab_head_groups[];
extern const struct attribute_group *nvfab_path_disk_groups[];

/* ../sysfs.c: peer_mem/ of controllers and heads */
extern const struct attribute_group nvfab_peer_attr_group;

/* ../diag.c: diag/ of controllers, path disks and heads */
extern const struct attribute_group nvfab_ctrl_diag_group;
extern const struct attribute_group nvfab_path_diag_group;
extern const struct attribute_group nvfab_head_diag_group;

/* ioctl.c */
int nvfab_head_ioctl(struct block_device *bdev, blk_mode_t mode,
		     unsigned int cmd, unsigned long arg);

/* ps-registry.c */
struct nvfab_ps_ops *nvfab_get_ps_ops(const char *name);

/* ps-builtin.c */
int nvfab_ps_builtin_init(void);
void nvfab_ps_builtin_exit(void);

/* ana.c */
int nvfab_ana_init_ctrl(struct nvfab_ctrl *ctrl, const struct nvme_id_ctrl *id);
int nvfab_ana_read(struct nvfab_ctrl *ctrl);
void nvfab_ana_work(struct work_struct *work);
void nvfab_ana_ns_state(struct nvfab_ns *ns);
void nvfab_ana_error(struct nvfab_ns *ns, u16 status);
void nvfab_ana_stop(struct nvfab_ctrl *ctrl);
void nvfab_ana_free(struct nvfab_ctrl *ctrl);
unsigned int nvfab_ana_default_tmo(struct nvfab_ns_head *head);

static inline bool nvfab_ana_usable(u8 state)
{
	return state == NVME_ANA_OPTIMIZED || state == NVME_ANA_NONOPTIMIZED;
}

#endif /* _NVFAB_MPATH_H */
