/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of module nvfab-core.
 */
#ifndef _NVFAB_PRIV_H
#define _NVFAB_PRIV_H

#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/uuid.h>

#include <nvfab/core.h>
#include <nvfab/multipath.h>

struct nvfab_ns_head;

/**
 * nvfab_secs_to_jiffies() - a timeout in seconds as a delay in jiffies
 * @secs: the timeout; any value user space may set
 *
 * Unlike @secs * HZ this cannot overflow: absurd timeouts become the
 * longest delay the kernel's timers take.
 *
 * Context: any.
 * Return: the delay in jiffies, at most MAX_JIFFY_OFFSET.
 */
static inline unsigned long nvfab_secs_to_jiffies(unsigned int secs)
{
	return min_t(u64, (u64)secs * HZ, MAX_JIFFY_OFFSET);
}

/* A namespace's identifiers, as read from the controller. */
struct nvfab_ns_ids {
	u8	nguid[16];
	u8	eui64[8];
	uuid_t	uuid;
};

/**
 * nvfab_ns_ids_equal() - whether two sets of namespace identifiers match
 * @a: identifiers
 * @b: identifiers
 *
 * Context: any context.
 * Return: true when NGUID, EUI-64 and UUID are all equal.
 */
static inline bool nvfab_ns_ids_equal(const struct nvfab_ns_ids *a,
				      const struct nvfab_ns_ids *b)
{
	return !memcmp(a->nguid, b->nguid, sizeof(a->nguid)) &&
	       !memcmp(a->eui64, b->eui64, sizeof(a->eui64)) &&
	       uuid_equal(&a->uuid, &b->uuid);
}

/**
 * struct nvfab_ns - one namespace of one controller, with its block device
 * @ref:	the controller's namespace list holds one reference until the
 *		namespace is removed; a passthrough command or an open path
 *		disk holds another, so that no lock is held while it runs
 * @list:	entry in ctrl->namespaces (protected by namespaces_rwsem)
 * @ctrl:	the controller
 * @disk:	the path's hidden gendisk, nvfabXcNnY (no device node)
 * @nsid:	Namespace ID
 * @scan_gen:	the last scan that saw this namespace active
 * @lba_shift:	log2 of the LBA data size in bytes
 * @ms:		metadata bytes per LBA (namespaces with metadata are refused)
 * @ids:	NGUID, EUI-64 and UUID (each zeroes when not reported)
 * @head:	the multipath head this path belongs to
 * @siblings:	in head->paths (RCU; written under subsys->lock)
 * @path:	what the path selector sees of this path
 * @anagrpid:	ANA Group ID from Identify Namespace
 * @flags:	NVFAB_NS_*
 * @routed_ios:	bios the head sent on this path
 * @multipath_failover_count: requests that failed on this path with a
 *		path error and whose bios went back to the head
 * @command_retry_count: commands requeued to be sent on this path again
 * @command_error_count: commands that completed with an error status,
 *		neither retried nor failed over
 *
 * The three counters are sysfs diag/ of the path disk (diag.c), counted
 * on the completion's error branch only.
 */
struct nvfab_ns {
	struct kref		ref;
	struct list_head	list;
	struct nvfab_ctrl	*ctrl;
	struct gendisk		*disk;
	u32			nsid;
	u32			scan_gen;
	u8			lba_shift;
	u16			ms;
	struct nvfab_ns_ids	ids;
	struct nvfab_ns_head	*head;
	struct list_head	siblings;
	struct nvfab_path	path;
	u32			anagrpid;
	unsigned long		flags;
	atomic64_t		routed_ios;
	atomic64_t		multipath_failover_count;
	atomic64_t		command_retry_count;
	atomic64_t		command_error_count;
};

/* Bits of nvfab_ns.flags */
#define NVFAB_NS_ANA_PENDING	0	/* ANA status seen; log not re-read */
#define NVFAB_NS_REMOVING	1	/* no new I/O is routed here */

/* ns.c */
/* Longest text of nvfab_ns_wwid(): "nvme.", VID, SN, MN, NSID, 3 dashes. */
#define NVFAB_WWID_MAX	(5 + 4 + 1 + 2 * 20 + 1 + 2 * 40 + 1 + 8)
int nvfab_ns_wwid(char *buf, size_t size, const struct nvfab_ns_ids *ids,
		  u32 nsid, u16 vid, const char *serial, const char *model);
#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_parse_ns_descs(const u8 *buf, size_t len, struct nvfab_ns_ids *ids,
			 struct device *dev);
int nvfab_check_ns_list_page(const __le32 *page, unsigned int n, u32 prev,
			     u32 nn, bool *end, struct device *dev);
#endif
bool nvfab_ns_tryget(struct nvfab_ns *ns);
void nvfab_ns_put(struct nvfab_ns *ns);
void nvfab_scan_work(struct work_struct *work);
void nvfab_remove_namespaces(struct nvfab_ctrl *ctrl);
void nvfab_kick_requeue_lists(struct nvfab_ctrl *ctrl);
blk_status_t nvfab_setup_ns_cmd(struct nvfab_ns *ns, struct request *rq,
				struct nvme_command *cmd);
extern const struct block_device_operations nvfab_bdev_ops;

/* sysfs.c */
#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_parse_tmo(const char *buf, int *tmo);
int nvfab_parse_reconnect_delay(const char *buf, unsigned int *delay);
#endif
extern const struct attribute_group *nvfab_ctrl_attr_groups[];

/**
 * nvfab_transport_limits() - the data limits of a controller's queues
 * @ctrl: the controller
 * @lim: the limits of one of its queues, changed in place
 *
 * MDTS (capped by what the transport can map) and the segments and the
 * virtual boundary the transport needs; without transport limits, any
 * number of segments.
 *
 * Context: any context.
 */
static inline void nvfab_transport_limits(struct nvfab_ctrl *ctrl,
					  struct queue_limits *lim)
{
	lim->max_hw_sectors = ctrl->max_hw_sectors;
	lim->max_segments = ctrl->max_segments ? ctrl->max_segments :
						 USHRT_MAX;
	if (ctrl->virt_boundary_mask) {
		lim->virt_boundary_mask = ctrl->virt_boundary_mask;
		lim->max_segment_size = UINT_MAX;
	}
}

/* identify.c */
/**
 * struct nvfab_id_info - what nvfab keeps from Identify Controller
 * @vid:		PCI Vendor ID
 * @subsysnqn:		SUBNQN, NUL terminated
 * @serial:		Serial Number, trailing spaces cut; not NUL
 *			terminated when full
 * @model:		Model Number, as @serial
 * @firmware_rev:	Firmware Revision, as @serial
 * @max_hw_sectors:	largest transfer, from MDTS (512-byte sectors)
 * @ioccsz:		I/O Queue Command Capsule Supported Size (16 bytes)
 * @iorcsz:		I/O Queue Response Capsule Supported Size (16 bytes)
 * @icdoff:		In Capsule Data Offset (16 bytes)
 * @kas:		Keep Alive Support granularity (100 ms)
 * @oaes:		Optional Asynchronous Events Supported
 * @ctratt_tbkas:	traffic-based keep-alive supported
 * @nn:			Number of Namespaces
 * @sgls:		SGL Support
 * @oncs:		Optional NVM Command Support
 * @vwc:		Volatile Write Cache
 */
struct nvfab_id_info {
	u16	vid;
	char	subsysnqn[NVMF_NQN_SIZE];
	char	serial[20];
	char	model[40];
	char	firmware_rev[8];
	u32	max_hw_sectors;
	u32	ioccsz;
	u32	iorcsz;
	u16	icdoff;
	u16	kas;
	u32	oaes;
	u8	ctratt_tbkas;
	u32	nn;
	u32	sgls;
	u16	oncs;
	u8	vwc;
};

#if IS_ENABLED(CONFIG_KUNIT)
bool nvfab_sqflow_refusal(bool auto_asked, int status, u32 result);
int nvfab_connect_authreq(u32 result);

/* queue-state.c */
bool nvfab_queue_transition_ok(enum nvfab_queue_state old,
			       enum nvfab_queue_state new);
#endif
int nvfab_check_id_ctrl(const struct nvme_id_ctrl *id, const char *want_nqn,
			bool discovery, u64 cap, u16 cntlid,
			struct nvfab_id_info *out, struct device *dev);

/* effects.c */
void nvfab_read_effects(struct nvfab_ctrl *ctrl, u8 lpa);
u32 nvfab_admin_effects(struct nvfab_ctrl *ctrl, u8 opcode);

/* ioctl.c */
int nvfab_ns_ioctl(struct block_device *bdev, blk_mode_t mode,
		   unsigned int cmd, unsigned long arg);
int nvfab_path_ioctl(struct nvfab_ns *ns, unsigned int cmd, void __user *argp);
extern const struct file_operations nvfab_dev_fops;

/* core.c */
extern unsigned int nvfab_admin_timeout;
extern unsigned int nvfab_io_timeout;
extern bool nvfab_sqflow_auto;
/* The module parameters admin_timeout and io_timeout, in jiffies. */
#define NVFAB_ADMIN_TIMEOUT	(READ_ONCE(nvfab_admin_timeout) * HZ)
#define NVFAB_IO_TIMEOUT	(READ_ONCE(nvfab_io_timeout) * HZ)

/* request.c */
int nvfab_set_features(struct nvfab_ctrl *ctrl, u8 fid, u32 dword11,
		       u32 *result);

/* keep-alive.c */
void nvfab_keep_alive_work(struct work_struct *work);
enum hrtimer_restart nvfab_keep_alive_deadline(struct hrtimer *timer);
void nvfab_keep_alive_expired_work(struct work_struct *work);
void nvfab_start_keep_alive(struct nvfab_ctrl *ctrl);
void nvfab_stop_keep_alive(struct nvfab_ctrl *ctrl);

/* aen.c */
void nvfab_enable_aen(struct nvfab_ctrl *ctrl);
void nvfab_async_event_work(struct work_struct *work);
int nvfab_queue_scan(struct nvfab_ctrl *ctrl);

/* ctrl-setup.c */
int nvfab_setup_ctrl(struct nvfab_ctrl *ctrl, bool new);
void nvfab_start_ctrl(struct nvfab_ctrl *ctrl);
void nvfab_stop_ctrl(struct nvfab_ctrl *ctrl);
void nvfab_shutdown_ctrl(struct nvfab_ctrl *ctrl);
void nvfab_teardown_io_queues(struct nvfab_ctrl *ctrl, bool remove);
void nvfab_teardown_admin_queue(struct nvfab_ctrl *ctrl, bool remove);
void nvfab_quiesce_io_queues(struct nvfab_ctrl *ctrl);
void nvfab_unquiesce_io_queues(struct nvfab_ctrl *ctrl);
void nvfab_unquiesce_admin(struct nvfab_ctrl *ctrl);

/* recovery.c */
void nvfab_failfast_work(struct work_struct *work);
void nvfab_connect_done(struct nvfab_ctrl *ctrl);
void nvfab_connect_work(struct work_struct *work);
void nvfab_err_work(struct work_struct *work);
void nvfab_reset_work(struct work_struct *work);

#endif /* _NVFAB_PRIV_H */
