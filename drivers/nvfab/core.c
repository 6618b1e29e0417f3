// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab core: controller lifecycle, the controller state machine, the
 * enable/shutdown sequence and Identify, error recovery and reconnect, and
 * the /dev/nvfabN character devices; requests and synchronous commands are
 * in request.c, keep-alive in keep-alive.c, asynchronous events in aen.c.
 * Written from NVMe Base 2.0 and NVMe over Fabrics 1.1.
 *
 * Lifecycle. A transport allocates its controller, calls nvfab_init_ctrl()
 * and nvfab_start_new_ctrl(). The core then drives the association:
 *
 *   start_queue(0) -> Connect(0) -> enable (CC.EN, CSTS.RDY) -> Identify
 *   -> Set Features (Number of Queues) -> start_queue(1..n) -> Connect(1..n)
 *   -> LIVE -> keep-alive, AER, namespace scan
 *
 * An error (keep-alive or command timeout, transport failure) moves LIVE to
 * RESETTING; err_work tears the queues down, requests in flight are
 * cancelled and requeued, and connect_work retries every reconnect_delay
 * seconds until ctrl_loss_tmo, when the controller is deleted.
 * fast_io_fail_tmo fails queued I/O earlier.
 *
 * Workqueue ordering rules (the one place they are written down):
 *  - nvfab_wq carries short work: namespace scan, AEN handling, keep-alive.
 *  - nvfab_reset_wq carries err_work, reset_work and connect_work. They may
 *    flush work on nvfab_wq.
 *  - nvfab_delete_wq carries controller deletion. Delete may flush reset and
 *    nvfab_wq work, never the other way around.
 * All three are WQ_MEM_RECLAIM: they make forward progress for I/O that may
 * be writing back memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "configfs.h"
#include "mpath.h"
#include <nvfab/fabrics.h>

#define CREATE_TRACE_POINTS
#include "trace.h"

#define NVFAB_MINORS		BIT(MINORBITS)
/* Reserved admin tags: Connect and Keep Alive; I/O: Connect. */
#define NVFAB_ADMIN_RESERVED	2
#define NVFAB_IO_RESERVED	1
/* Longest wait for CSTS.SHST after a normal shutdown, seconds. */
#define NVFAB_SHUTDOWN_TIMEOUT	5

struct workqueue_struct *nvfab_wq;
EXPORT_SYMBOL_NVFAB(nvfab_wq);

struct workqueue_struct *nvfab_reset_wq;
EXPORT_SYMBOL_NVFAB(nvfab_reset_wq);

struct workqueue_struct *nvfab_delete_wq;
EXPORT_SYMBOL_NVFAB(nvfab_delete_wq);

/* Controller character devices, /dev/nvfabN. */
const struct class nvfab_class = {
	.name = "nvfab",
};
EXPORT_SYMBOL_NVFAB(nvfab_class);

/* One device per NVM subsystem, named nvfab-subsysN. */
const struct class nvfab_subsys_class = {
	.name = "nvfab-subsystem",
};
EXPORT_SYMBOL_NVFAB(nvfab_subsys_class);

/*
 * Command timeouts in seconds, as the in-kernel host's nvme_core.
 * admin_timeout and io_timeout. admin_timeout applies to each admin and
 * fabrics command (Connect included) when it is sent. io_timeout is what
 * a path disk's queue/io_timeout starts at when the controller's I/O tag
 * set is created; that sysfs file then changes it per disk.
 */
unsigned int nvfab_admin_timeout = 60;
unsigned int nvfab_io_timeout = 30;

/* 1 s up to what a blk-mq timeout (unsigned int jiffies) holds. */
static int nvfab_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int secs;
	int ret;

	ret = kstrtouint(val, 10, &secs);
	if (ret)
		return ret;
	if (!secs || secs > UINT_MAX / HZ)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, secs);
	return 0;
}

static const struct kernel_param_ops nvfab_timeout_ops = {
	.set	= nvfab_timeout_set,
	.get	= param_get_uint,
};

module_param_cb(admin_timeout, &nvfab_timeout_ops, &nvfab_admin_timeout, 0644);
MODULE_PARM_DESC(admin_timeout, "timeout of admin and fabrics commands, seconds (default 60)");
module_param_cb(io_timeout, &nvfab_timeout_ops, &nvfab_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout, "initial I/O command timeout of new controllers, seconds (default 30)");

static DEFINE_IDA(nvfab_instance_ida);
static dev_t nvfab_chr_devt;

/**
 * nvfab_instance_get() - allocate a controller instance number
 *
 * The number names /dev/nvfabN and the controller's sysfs directory.
 *
 * Context: may sleep.
 * Return: the instance (>= 0), or -ENOMEM or -ENOSPC.
 */
int nvfab_instance_get(void)
{
	return ida_alloc_max(&nvfab_instance_ida, NVFAB_MINORS - 1, GFP_KERNEL);
}
EXPORT_SYMBOL_NVFAB(nvfab_instance_get);

/**
 * nvfab_instance_put() - release an instance from nvfab_instance_get()
 * @instance: the instance number
 *
 * Context: any context.
 */
void nvfab_instance_put(int instance)
{
	ida_free(&nvfab_instance_ida, instance);
}
EXPORT_SYMBOL_NVFAB(nvfab_instance_put);

static const char * const nvfab_state_names[] = {
	[NVFAB_CTRL_NEW]		= "new",
	[NVFAB_CTRL_CONNECTING]		= "connecting",
	[NVFAB_CTRL_LIVE]		= "live",
	[NVFAB_CTRL_RESETTING]		= "resetting",
	[NVFAB_CTRL_DELETING]		= "deleting",
	[NVFAB_CTRL_DELETING_NOIO]	= "deleting (no IO)",
	[NVFAB_CTRL_DEAD]		= "dead",
};

/**
 * nvfab_ctrl_state_name() - the sysfs name of a controller state
 * @state: the state
 *
 * Context: any context.
 * Return: a static string, "unknown" for an invalid state.
 */
const char *nvfab_ctrl_state_name(enum nvfab_ctrl_state state)
{
	if ((unsigned int)state < ARRAY_SIZE(nvfab_state_names))
		return nvfab_state_names[state];
	return "unknown";
}
EXPORT_SYMBOL_NVFAB(nvfab_ctrl_state_name);

/**
 * nvfab_change_ctrl_state() - the controller state machine
 * @ctrl: the controller
 * @new_state: the state to move to
 *
 * The one transition function: a whitelist of (old, new) pairs under
 * @ctrl->lock. Callers use a lost transition as mutual exclusion ("if I did
 * not win RESETTING, someone else is recovering").
 *
 * Context: any context; takes @ctrl->lock.
 * Return: true if the state changed.
 */
bool nvfab_change_ctrl_state(struct nvfab_ctrl *ctrl,
			     enum nvfab_ctrl_state new_state)
{
	enum nvfab_ctrl_state old;
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&ctrl->lock, flags);
	old = ctrl->state;
	switch (new_state) {
	case NVFAB_CTRL_CONNECTING:
		changed = old == NVFAB_CTRL_NEW || old == NVFAB_CTRL_RESETTING;
		break;
	case NVFAB_CTRL_LIVE:
		changed = old == NVFAB_CTRL_CONNECTING;
		if (changed)
			set_bit(NVFAB_CTRL_STARTED, &ctrl->flags);
		break;
	case NVFAB_CTRL_RESETTING:
		changed = old == NVFAB_CTRL_LIVE;
		break;
	case NVFAB_CTRL_DELETING:
		/*
		 * Never during the first connect: nvfab_start_new_ctrl()
		 * owns the controller until it went live once, and undoes
		 * a failed start itself.
		 */
		changed = old == NVFAB_CTRL_LIVE ||
			  old == NVFAB_CTRL_RESETTING ||
			  (old == NVFAB_CTRL_CONNECTING &&
			   test_bit(NVFAB_CTRL_STARTED, &ctrl->flags));
		break;
	case NVFAB_CTRL_DELETING_NOIO:
		changed = old == NVFAB_CTRL_DELETING;
		break;
	case NVFAB_CTRL_DEAD:
		changed = old == NVFAB_CTRL_DELETING_NOIO;
		break;
	default:
		break;
	}
	if (changed)
		WRITE_ONCE(ctrl->state, new_state);
	spin_unlock_irqrestore(&ctrl->lock, flags);

	if (changed) {
		trace_nvfab_ctrl_state(ctrl, old, new_state);
		wake_up_all(&ctrl->state_wq);
		dev_dbg(ctrl->device, "state %s -> %s\n",
			nvfab_ctrl_state_name(old),
			nvfab_ctrl_state_name(new_state));
	}
	return changed;
}
EXPORT_SYMBOL_NVFAB(nvfab_change_ctrl_state);

/* ---- enable, shutdown, identify ---- */

static int nvfab_wait_csts(struct nvfab_ctrl *ctrl, u32 mask, u32 val,
			   unsigned int timeout_ms, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	u32 csts;
	int ret;

	for (;;) {
		ret = nvfab_reg_read32(ctrl, NVME_REG_CSTS, &csts);
		if (ret)
			return ret < 0 ? ret : -EIO;
		if (csts == ~0U || (csts & NVME_CSTS_CFS)) {
			dev_err(ctrl->device, "controller fatal status while %s\n",
				what);
			return -ENODEV;
		}
		if ((csts & mask) == val)
			return 0;
		if (time_after(jiffies, deadline)) {
			dev_err(ctrl->device, "timed out after %u ms %s\n",
				timeout_ms, what);
			return -ETIMEDOUT;
		}
		msleep(20);
		if (fatal_signal_pending(current))
			return -EINTR;
	}
}

/* NVMe Base 2.0, 3.5.1: controller initialisation over a fabric. */
static int nvfab_enable_ctrl(struct nvfab_ctrl *ctrl)
{
	unsigned int timeout_ms;
	int ret;

	ret = nvfab_reg_read64(ctrl, NVME_REG_CAP, &ctrl->cap);
	if (ret) {
		dev_err(ctrl->device, "reading CAP failed: %d\n", ret);
		return ret < 0 ? ret : -EIO;
	}
	ret = nvfab_reg_read32(ctrl, NVME_REG_VS, &ctrl->vs);
	if (ret)
		return ret < 0 ? ret : -EIO;

	ctrl->sqsize = min_t(u32, NVME_CAP_MQES(ctrl->cap),
			     ctrl->opts->queue_size - 1);
	if (!(NVME_CAP_CSS(ctrl->cap) & NVME_CAP_CSS_NVM) &&
	    !ctrl->opts->discovery_nqn) {
		dev_err(ctrl->device, "controller lacks the NVM command set\n");
		return -EINVAL;
	}

	ctrl->ctrl_config = NVME_CC_CSS_NVM | NVME_CC_AMS_RR |
			    NVME_CC_SHN_NONE | NVME_CC_IOSQES |
			    NVME_CC_IOCQES | NVME_CC_ENABLE;
	ret = nvfab_reg_write32(ctrl, NVME_REG_CC, ctrl->ctrl_config);
	if (ret)
		return ret < 0 ? ret : -EIO;

	/* CAP.TO is in 500 ms units; 0 would be a broken target. */
	timeout_ms = (max_t(u32, NVME_CAP_TIMEOUT(ctrl->cap), 1) + 1) * 500;
	return nvfab_wait_csts(ctrl, NVME_CSTS_RDY, NVME_CSTS_RDY, timeout_ms,
			       "waiting for CSTS.RDY");
}

static void nvfab_shutdown_ctrl(struct nvfab_ctrl *ctrl)
{
	ctrl->ctrl_config &= ~NVME_CC_SHN_MASK;
	ctrl->ctrl_config |= NVME_CC_SHN_NORMAL;
	if (nvfab_reg_write32(ctrl, NVME_REG_CC, ctrl->ctrl_config))
		return;
	nvfab_wait_csts(ctrl, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_CMPLT,
			NVFAB_SHUTDOWN_TIMEOUT * 1000, "shutting down");
}

/* Identify Controller and the limits nvfab takes from it (untrusted). */
/*
 * The admin queue starts with the block layer's default limits (255
 * sectors, 128 segments). Once MDTS is known, a log page or a passthrough
 * command may be as large as it allows, in a buffer of scattered pages
 * (a vmalloc'd ANA log): the transport takes any number of segments.
 */
static int nvfab_set_admin_limits(struct nvfab_ctrl *ctrl)
{
	struct queue_limits lim = queue_limits_start_update(ctrl->admin_q);

	lim.max_hw_sectors = ctrl->max_hw_sectors;
	lim.max_segments = USHRT_MAX;
	return queue_limits_commit_update(ctrl->admin_q, &lim);
}

static int nvfab_init_identify(struct nvfab_ctrl *ctrl)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;
	struct nvfab_id_info info;
	struct nvme_id_ctrl *id;
	int ret;

	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	ret = nvfab_identify(ctrl, NVME_ID_CNS_CTRL, 0, id, sizeof(*id));
	if (ret) {
		dev_err(ctrl->device, "Identify Controller failed: %d\n", ret);
		ret = ret < 0 ? ret : -EIO;
		goto out_free;
	}
	ret = nvfab_check_id_ctrl(id, opts->subsysnqn, opts->discovery_nqn,
				  ctrl->cap, ctrl->cntlid, &info, ctrl->device);
	if (ret)
		goto out_free;

	memcpy(ctrl->subsysnqn, info.subsysnqn, sizeof(ctrl->subsysnqn));
	memcpy(ctrl->serial, info.serial, sizeof(ctrl->serial));
	memcpy(ctrl->model, info.model, sizeof(ctrl->model));
	memcpy(ctrl->firmware_rev, info.firmware_rev,
	       sizeof(ctrl->firmware_rev));
	ctrl->ioccsz = info.ioccsz;
	ctrl->iorcsz = info.iorcsz;
	ctrl->icdoff = info.icdoff;
	ctrl->kas = info.kas;
	ctrl->oaes = info.oaes;
	ctrl->ctratt_tbkas = info.ctratt_tbkas;
	ctrl->nn = info.nn;
	ctrl->sgls = info.sgls;
	ctrl->oncs = info.oncs;
	ctrl->vwc = info.vwc;
	ctrl->max_hw_sectors = info.max_hw_sectors;
	ret = nvfab_set_admin_limits(ctrl);
	if (ret)
		goto out_free;
	ret = nvfab_ana_init_ctrl(ctrl, id);
	if (ret)
		goto out_free;
	nvfab_read_effects(ctrl, id->lpa);
	ctrl->identified = true;
out_free:
	kfree(id);
	return ret;
}

/*
 * Set Features, Number of Queues (NVMe Base 2.0, 5.27.1.5): ask for the
 * queues the options want and split what is granted into write, read and
 * poll queues; poll and write queues shrink first, at least one read queue
 * stays.
 */
static int nvfab_set_queue_count(struct nvfab_ctrl *ctrl)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;
	unsigned int want = opts->nr_io_queues + opts->nr_write_queues +
			    opts->nr_poll_queues;
	unsigned int granted, left;
	u32 result;
	int ret;

	ctrl->nr_read_queues = 0;
	ctrl->nr_write_queues = 0;
	ctrl->nr_poll_queues = 0;
	ctrl->queue_count = 1;
	if (!want)
		return 0;

	ret = nvfab_set_features(ctrl, NVME_FEAT_NUM_QUEUES,
				 (want - 1) | ((want - 1) << 16), &result);
	if (ret) {
		dev_err(ctrl->device, "Set Features (Number of Queues) failed: %d\n",
			ret);
		return ret < 0 ? ret : -EIO;
	}
	granted = min(result & 0xffff, result >> 16) + 1;
	granted = min(granted, want);
	left = granted;
	ctrl->nr_read_queues = min(opts->nr_io_queues, left);
	left -= ctrl->nr_read_queues;
	ctrl->nr_write_queues = min(opts->nr_write_queues, left);
	left -= ctrl->nr_write_queues;
	ctrl->nr_poll_queues = min(opts->nr_poll_queues, left);
	ctrl->queue_count = granted + 1;
	if (granted < want)
		dev_info(ctrl->device, "controller granted %u of %u I/O queues (%u read, %u write, %u poll)\n",
			 granted, want, ctrl->nr_read_queues,
			 ctrl->nr_write_queues, ctrl->nr_poll_queues);
	return 0;
}

/* ---- queue setup and teardown ---- */

/*
 * blk-mq warns on an unbalanced unquiesce, so quiescing is tracked in
 * ctrl->flags and every (un)quiesce of the admin queue or the I/O tag set
 * goes through these four helpers.
 */
static void nvfab_quiesce_admin(struct nvfab_ctrl *ctrl)
{
	if (!test_and_set_bit(NVFAB_CTRL_ADMIN_QUIESCED, &ctrl->flags))
		blk_mq_quiesce_queue(ctrl->admin_q);
}

static void nvfab_unquiesce_admin(struct nvfab_ctrl *ctrl)
{
	if (test_and_clear_bit(NVFAB_CTRL_ADMIN_QUIESCED, &ctrl->flags))
		blk_mq_unquiesce_queue(ctrl->admin_q);
}

void nvfab_quiesce_io_queues(struct nvfab_ctrl *ctrl)
{
	mutex_lock(&ctrl->quiesce_lock);
	if (ctrl->tagset_live &&
	    !test_and_set_bit(NVFAB_CTRL_IO_QUIESCED, &ctrl->flags))
		blk_mq_quiesce_tagset(&ctrl->tagset);
	mutex_unlock(&ctrl->quiesce_lock);
}

void nvfab_unquiesce_io_queues(struct nvfab_ctrl *ctrl)
{
	mutex_lock(&ctrl->quiesce_lock);
	if (test_and_clear_bit(NVFAB_CTRL_IO_QUIESCED, &ctrl->flags))
		blk_mq_unquiesce_tagset(&ctrl->tagset);
	mutex_unlock(&ctrl->quiesce_lock);
}

static int nvfab_alloc_admin_tagset(struct nvfab_ctrl *ctrl)
{
	struct blk_mq_tag_set *set = &ctrl->admin_tagset;
	int ret;

	memset(set, 0, sizeof(*set));
	set->ops = ctrl->ops->admin_mq_ops;
	set->queue_depth = NVME_AQ_MQ_TAG_DEPTH;
	set->reserved_tags = NVFAB_ADMIN_RESERVED;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = ctrl->ops->cmd_size;
	set->driver_data = ctrl;
	set->nr_hw_queues = 1;
	set->timeout = NVFAB_ADMIN_TIMEOUT;
	set->flags = BLK_MQ_F_NO_SCHED;
	if (ctrl->ops->blocking)
		set->flags |= BLK_MQ_F_BLOCKING;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ret;

	if (ctrl->admin_q)	/* a dead one, kept by nvfab_free_admin_tagset() */
		blk_put_queue(ctrl->admin_q);
	ctrl->admin_q = blk_mq_alloc_queue(set, NULL, NULL);
	if (IS_ERR(ctrl->admin_q)) {
		ret = PTR_ERR(ctrl->admin_q);
		ctrl->admin_q = NULL;
		blk_mq_free_tag_set(set);
		return ret;
	}
	ctrl->admin_tagset_live = true;
	return 0;
}

/*
 * The admin queue is destroyed (marked dying: new requests fail with
 * -ENODEV) but its reference is kept until the controller is freed, so
 * that an ioctl on a /dev/nvfabN still open after the deletion finds a
 * dead queue rather than a freed one.
 */
static void nvfab_free_admin_tagset(struct nvfab_ctrl *ctrl)
{
	if (!ctrl->admin_tagset_live)
		return;
	blk_mq_destroy_queue(ctrl->admin_q);
	blk_mq_free_tag_set(&ctrl->admin_tagset);
	ctrl->admin_tagset_live = false;
}

static int nvfab_alloc_io_tagset(struct nvfab_ctrl *ctrl)
{
	struct blk_mq_tag_set *set = &ctrl->tagset;
	int ret;

	memset(set, 0, sizeof(*set));
	set->ops = ctrl->ops->io_mq_ops;
	set->queue_depth = ctrl->sqsize + 1;
	set->reserved_tags = NVFAB_IO_RESERVED;
	set->numa_node = NUMA_NO_NODE;
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	if (ctrl->ops->blocking)
		set->flags |= BLK_MQ_F_BLOCKING;
	set->cmd_size = ctrl->ops->cmd_size;
	set->driver_data = ctrl;
	set->nr_hw_queues = ctrl->queue_count - 1;
	set->timeout = NVFAB_IO_TIMEOUT;
	/* HCTX_TYPE_DEFAULT and _READ, and _POLL when asked for */
	set->nr_maps = ctrl->opts->nr_poll_queues ? HCTX_MAX_TYPES : 2;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ret;

	ctrl->connect_q = blk_mq_alloc_queue(set, NULL, NULL);
	if (IS_ERR(ctrl->connect_q)) {
		ret = PTR_ERR(ctrl->connect_q);
		ctrl->connect_q = NULL;
		blk_mq_free_tag_set(set);
		return ret;
	}
	ctrl->tagset_live = true;
	return 0;
}

static void nvfab_free_io_tagset(struct nvfab_ctrl *ctrl)
{
	if (!ctrl->tagset_live)
		return;
	blk_mq_destroy_queue(ctrl->connect_q);
	blk_put_queue(ctrl->connect_q);
	ctrl->connect_q = NULL;
	blk_mq_free_tag_set(&ctrl->tagset);
	ctrl->tagset_live = false;
}

static void nvfab_stop_io_queues(struct nvfab_ctrl *ctrl, unsigned int nr)
{
	unsigned int qid;

	for (qid = 1; qid <= nr; qid++) {
		clear_bit(qid, ctrl->live_qids);
		ctrl->ops->stop_queue(ctrl, qid);
	}
}

/*
 * Change the number of I/O hardware queues after a reconnect. blk-mq
 * freezes every queue of the tag set for that, so requests queued during
 * the outage must drain first, over the queues already connected again;
 * give them NVFAB_IO_TIMEOUT and fail this attempt if they do not.
 */
static int nvfab_update_nr_io_queues(struct nvfab_ctrl *ctrl,
				     unsigned int nr_io)
{
	long left = NVFAB_IO_TIMEOUT;
	struct nvfab_ns *ns;
	int ret = 0;

	down_read(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list)
		blk_freeze_queue_start(ns->disk->queue);
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		left = blk_mq_freeze_queue_wait_timeout(ns->disk->queue, left);
		if (left <= 0) {
			dev_warn(ctrl->device, "queued I/O did not drain within %u s\n",
				 NVFAB_IO_TIMEOUT / HZ);
			ret = -ETIMEDOUT;
			break;
		}
	}
	if (!ret)
		blk_mq_update_nr_hw_queues(&ctrl->tagset, nr_io);
	list_for_each_entry(ns, &ctrl->namespaces, list)
		blk_mq_unfreeze_queue(ns->disk->queue);
	up_read(&ctrl->namespaces_rwsem);
	return ret;
}

static void nvfab_free_io_queues(struct nvfab_ctrl *ctrl, unsigned int nr)
{
	unsigned int qid;

	for (qid = 1; qid <= nr; qid++)
		ctrl->ops->free_queue(ctrl, qid);
}

static int nvfab_setup_io_queues(struct nvfab_ctrl *ctrl, bool new)
{
	unsigned int nr_io = ctrl->queue_count - 1, started, qid, prior;
	int ret;

	for (started = 0; started < nr_io; started++) {
		ret = ctrl->ops->start_queue(ctrl, started + 1);
		if (ret)
			goto out_stop;
	}

	if (new) {
		ret = nvfab_alloc_io_tagset(ctrl);
		if (ret)
			goto out_stop;
		prior = nr_io;
	} else {
		prior = ctrl->tagset.nr_hw_queues;
	}

	/* Connect the queues the tag set has, let waiting I/O flow... */
	for (qid = 1; qid <= min(nr_io, prior); qid++) {
		ret = nvfab_connect_queue(ctrl, qid);
		if (ret)
			goto out_cleanup;
	}
	if (!new)
		nvfab_unquiesce_io_queues(ctrl);
	/* ...then resize the tag set and connect the queues it gained. */
	if (nr_io != prior) {
		ret = nvfab_update_nr_io_queues(ctrl, nr_io);
		if (ret)
			goto out_cleanup;
		for (qid = prior + 1; qid <= nr_io; qid++) {
			ret = nvfab_connect_queue(ctrl, qid);
			if (ret)
				goto out_cleanup;
		}
	}
	return 0;

out_cleanup:
	nvfab_quiesce_io_queues(ctrl);
	nvfab_stop_io_queues(ctrl, nr_io);
	blk_mq_tagset_busy_iter(&ctrl->tagset, nvfab_cancel_request, ctrl);
	blk_mq_tagset_wait_completed_request(&ctrl->tagset);
	/*
	 * As after any teardown: requests reach queue_rq again, where they
	 * wait for the next attempt or fail once fast_io_fail_tmo expired.
	 */
	nvfab_unquiesce_io_queues(ctrl);
	if (new)
		nvfab_free_io_tagset(ctrl);
	started = nr_io;
out_stop:
	nvfab_stop_io_queues(ctrl, started);
	nvfab_free_io_queues(ctrl, started);
	return ret;
}

static void nvfab_teardown_io_queues(struct nvfab_ctrl *ctrl, bool remove)
{
	unsigned int nr_io = ctrl->queue_count - 1;

	if (!ctrl->tagset_live)
		return;
	nvfab_quiesce_io_queues(ctrl);
	nvfab_stop_io_queues(ctrl, nr_io);
	blk_mq_tagset_busy_iter(&ctrl->tagset, nvfab_cancel_request, ctrl);
	blk_mq_tagset_wait_completed_request(&ctrl->tagset);
	nvfab_free_io_queues(ctrl, nr_io);
	if (remove) {
		nvfab_unquiesce_io_queues(ctrl);
		nvfab_free_io_tagset(ctrl);
	}
}

static void nvfab_teardown_admin_queue(struct nvfab_ctrl *ctrl, bool remove)
{
	if (!ctrl->admin_tagset_live)
		return;
	if (!test_and_set_bit(NVFAB_CTRL_ADMIN_Q_STOPPED, &ctrl->flags)) {
		nvfab_quiesce_admin(ctrl);
		clear_bit(0, ctrl->live_qids);
		ctrl->ops->stop_queue(ctrl, 0);
		blk_mq_tagset_busy_iter(&ctrl->admin_tagset,
					nvfab_cancel_request, ctrl);
		blk_mq_tagset_wait_completed_request(&ctrl->admin_tagset);
		ctrl->ops->free_queue(ctrl, 0);
	}
	if (remove) {
		nvfab_unquiesce_admin(ctrl);
		nvfab_free_admin_tagset(ctrl);
	}
}

/*
 * Establish the association: admin queue, Connect, enable, Identify, I/O
 * queues. On failure everything this call set up is torn down again (the
 * tag sets stay when !@new).
 */
static int nvfab_setup_ctrl(struct nvfab_ctrl *ctrl, bool new)
{
	int ret;

	ret = ctrl->ops->start_queue(ctrl, 0);
	if (ret)
		return ret;

	if (new) {
		ret = nvfab_alloc_admin_tagset(ctrl);
		if (ret) {
			ctrl->ops->stop_queue(ctrl, 0);
			ctrl->ops->free_queue(ctrl, 0);
			return ret;
		}
	}
	clear_bit(NVFAB_CTRL_ADMIN_Q_STOPPED, &ctrl->flags);
	nvfab_unquiesce_admin(ctrl);

	ret = nvfab_connect_queue(ctrl, 0);
	if (ret)
		goto out_teardown_admin;
	ret = nvfab_enable_ctrl(ctrl);
	if (ret)
		goto out_teardown_admin;
	ret = nvfab_init_identify(ctrl);
	if (ret)
		goto out_teardown_admin;

	/* KATO was sent in the admin Connect; remember what is in force. */
	ctrl->kato = ctrl->opts->kato;

	ret = nvfab_set_queue_count(ctrl);
	if (ret)
		goto out_teardown_admin;
	if (ctrl->queue_count > 1) {
		ret = nvfab_setup_io_queues(ctrl, new || !ctrl->tagset_live);
		if (ret)
			goto out_teardown_admin;
	}
	ret = nvfab_mpath_join(ctrl);
	if (ret)
		goto out_teardown_io;
	/* paths get their ANA states before the controller goes live */
	ret = nvfab_ana_read(ctrl);
	if (ret)
		goto out_teardown_io;
	return 0;

out_teardown_io:
	nvfab_teardown_io_queues(ctrl, new);
	if (!new)
		nvfab_unquiesce_io_queues(ctrl);	/* as after an error */

out_teardown_admin:
	nvfab_teardown_admin_queue(ctrl, new);
	return ret;
}

static void nvfab_start_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_start_keep_alive(ctrl);
	nvfab_enable_aen(ctrl);
	queue_work(nvfab_wq, &ctrl->async_event_work);
	nvfab_queue_scan(ctrl);
	nvfab_kick_requeue_lists(ctrl);
}

static void nvfab_stop_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_stop_keep_alive(ctrl);
	cancel_work_sync(&ctrl->async_event_work);
	cancel_work_sync(&ctrl->ana_work);
}

/**
 * nvfab_start_new_ctrl() - connect a controller for the first time
 * @ctrl: a controller set up by nvfab_init_ctrl()
 *
 * Context: may sleep for the whole connect sequence.
 * Return: 0 when the controller is live; a negative errno, or the
 * positive NVMe status of the command that failed turned into -EIO. On
 * failure nothing is left set up but what nvfab_init_ctrl() did.
 */
int nvfab_start_new_ctrl(struct nvfab_ctrl *ctrl)
{
	int ret;

	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_CONNECTING))
		return -EBUSY;
	ret = nvfab_setup_ctrl(ctrl, true);
	if (ret)
		return ret < 0 ? ret : -EIO;
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_LIVE)) {
		/* nothing else moves a controller out of its first connect */
		dev_err(ctrl->device, "state %s after the first connect\n",
			nvfab_ctrl_state_name(nvfab_ctrl_state(ctrl)));
		return -EINVAL;
	}
	dev_info(ctrl->device, "new ctrl: NQN \"%s\", addr %s, %u I/O queues\n",
		 ctrl->subsysnqn, ctrl->opts->traddr ? ctrl->opts->traddr : "",
		 ctrl->queue_count - 1);
	nvfab_start_ctrl(ctrl);
	return 0;
}
EXPORT_SYMBOL_NVFAB(nvfab_start_new_ctrl);

/* ---- error recovery, reconnect, reset ---- */

static void nvfab_failfast_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(to_delayed_work(work),
					       struct nvfab_ctrl, failfast_work);

	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_RESETTING:
	case NVFAB_CTRL_CONNECTING:
		break;
	default:
		return;
	}
	set_bit(NVFAB_CTRL_FAILFAST_EXPIRED, &ctrl->flags);
	dev_info(ctrl->device, "fast_io_fail_tmo expired: failing queued I/O\n");
	/*
	 * Requests in flight were cancelled and requeued by the teardown;
	 * rerun them so that nvfab_fail_nonready() fails them now. Those
	 * parked by BLK_STS_RESOURCE are retried by blk-mq within ms.
	 */
	nvfab_kick_requeue_lists(ctrl);
}

static bool nvfab_should_reconnect(struct nvfab_ctrl *ctrl)
{
	int max = READ_ONCE(ctrl->opts->max_reconnects);

	return max == -1 || ctrl->nr_reconnects < max;
}

/* Another attempt in reconnect_delay (sysfs may change it), or give up. */
static void nvfab_reconnect_or_remove(struct nvfab_ctrl *ctrl)
{
	unsigned int delay = READ_ONCE(ctrl->opts->reconnect_delay);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_CONNECTING)
		return;
	if (nvfab_should_reconnect(ctrl)) {
		dev_info(ctrl->device, "reconnecting in %u s\n", delay);
		queue_delayed_work(nvfab_reset_wq, &ctrl->connect_work,
				   nvfab_secs_to_jiffies(delay));
	} else {
		dev_info(ctrl->device, "ctrl_loss_tmo %d s reached: removing controller\n",
			 ctrl->opts->ctrl_loss_tmo);
		nvfab_delete_ctrl(ctrl);
	}
}

static void nvfab_connect_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(to_delayed_work(work),
					       struct nvfab_ctrl, connect_work);
	int ret;

	ctrl->nr_reconnects++;
	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_CONNECTING)
		return;
	ret = nvfab_setup_ctrl(ctrl, false);
	if (ret) {
		dev_info(ctrl->device, "reconnect attempt %d failed: %d\n",
			 ctrl->nr_reconnects, ret);
		nvfab_reconnect_or_remove(ctrl);
		return;
	}
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_LIVE))
		return;	/* deleted meanwhile */
	dev_info(ctrl->device, "reconnected after %d attempt(s)\n",
		 ctrl->nr_reconnects);
	ctrl->nr_reconnects = 0;
	cancel_delayed_work(&ctrl->failfast_work);
	clear_bit(NVFAB_CTRL_FAILFAST_EXPIRED, &ctrl->flags);
	nvfab_start_ctrl(ctrl);
}

/* Tear the association down, keeping tag sets, and let queued I/O wait. */
static void nvfab_teardown_for_reconnect(struct nvfab_ctrl *ctrl)
{
	/*
	 * No flush of scan_work: a scan waits only for admin commands, which
	 * this teardown cancels, and it never removes a namespace for a
	 * failed command (ns.c). Waiting for it here would wait for the
	 * target.
	 */
	nvfab_stop_ctrl(ctrl);
	nvfab_teardown_io_queues(ctrl, false);
	/* Let requests reach queue_rq: they wait, or fail after failfast. */
	nvfab_unquiesce_io_queues(ctrl);
	nvfab_teardown_admin_queue(ctrl, false);
	nvfab_unquiesce_admin(ctrl);
}

/* fast_io_fail_tmo counts from the moment the association is lost. */
static void nvfab_start_failfast(struct nvfab_ctrl *ctrl)
{
	int tmo = READ_ONCE(ctrl->opts->fast_io_fail_tmo);

	if (tmo >= 0)
		queue_delayed_work(nvfab_wq, &ctrl->failfast_work,
				   nvfab_secs_to_jiffies(tmo));
}

static void nvfab_err_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       err_work);

	nvfab_teardown_for_reconnect(ctrl);
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_CONNECTING))
		return;	/* being deleted */
	ctrl->nr_reconnects = 0;
	nvfab_reconnect_or_remove(ctrl);
}

static void nvfab_reset_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       reset_work);

	nvfab_teardown_for_reconnect(ctrl);
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_CONNECTING))
		return;
	ctrl->nr_reconnects = 0;
	/* A reset reconnects at once; failures then follow reconnect_delay. */
	queue_delayed_work(nvfab_reset_wq, &ctrl->connect_work, 0);
}

/**
 * nvfab_error_recovery() - start recovering a controller after an error
 * @ctrl: the controller
 *
 * Moves LIVE to RESETTING and queues the teardown and reconnect.
 *
 * Context: any context.
 * Return: true if this call started recovery, false if the controller was
 * not live (recovery or deletion already under way).
 */
bool nvfab_error_recovery(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_RESETTING))
		return false;
	dev_warn(ctrl->device, "starting error recovery\n");
	nvfab_start_failfast(ctrl);
	queue_work(nvfab_reset_wq, &ctrl->err_work);
	return true;
}
EXPORT_SYMBOL_NVFAB(nvfab_error_recovery);

/**
 * nvfab_reset_ctrl() - reset a live controller and wait for the outcome
 * @ctrl: the controller
 *
 * Context: may sleep.
 * Return: 0 when the controller is live again, -EBUSY if it was not live,
 * -ENETRESET if it is not live after the first reconnect attempt.
 */
int nvfab_reset_ctrl(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_RESETTING))
		return -EBUSY;
	queue_work(nvfab_reset_wq, &ctrl->reset_work);
	flush_work(&ctrl->reset_work);
	flush_delayed_work(&ctrl->connect_work);
	return nvfab_ctrl_state(ctrl) == NVFAB_CTRL_LIVE ? 0 : -ENETRESET;
}
EXPORT_SYMBOL_NVFAB(nvfab_reset_ctrl);

/* ---- deletion ---- */

static void nvfab_do_delete_ctrl(struct nvfab_ctrl *ctrl)
{
	bool admin_live;

	cancel_work_sync(&ctrl->err_work);
	cancel_work_sync(&ctrl->reset_work);
	cancel_delayed_work_sync(&ctrl->connect_work);
	cancel_delayed_work_sync(&ctrl->failfast_work);
	nvfab_stop_ctrl(ctrl);
	flush_work(&ctrl->scan_work);

	nvfab_remove_namespaces(ctrl);

	admin_live = ctrl->admin_tagset_live &&
		     !test_bit(NVFAB_CTRL_ADMIN_Q_STOPPED, &ctrl->flags);
	nvfab_teardown_io_queues(ctrl, true);
	if (admin_live)
		nvfab_shutdown_ctrl(ctrl);
	nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING_NOIO);
	nvfab_teardown_admin_queue(ctrl, true);
	nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DEAD);
	dev_info(ctrl->device, "removed controller for NQN \"%s\"\n",
		 ctrl->opts->subsysnqn);
	nvfab_uninit_ctrl(ctrl);
	nvfab_put_ctrl(ctrl);
}

static void nvfab_delete_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       delete_work);

	nvfab_do_delete_ctrl(ctrl);
}

/**
 * nvfab_delete_ctrl() - queue the removal of a controller
 * @ctrl: the controller
 *
 * Context: any context.
 * Return: 0 if the removal was queued, -EBUSY if it already is.
 */
int nvfab_delete_ctrl(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING))
		return -EBUSY;
	if (!queue_work(nvfab_delete_wq, &ctrl->delete_work))
		return -EBUSY;
	return 0;
}
EXPORT_SYMBOL_NVFAB(nvfab_delete_ctrl);

/**
 * nvfab_delete_ctrl_sync() - remove a controller and wait until it is gone
 * @ctrl: the controller
 *
 * Context: may sleep; not from a work item on nvfab_delete_wq.
 * Return: 0, or -EBUSY if another deletion was already under way.
 */
int nvfab_delete_ctrl_sync(struct nvfab_ctrl *ctrl)
{
	int ret = 0;

	get_device(ctrl->device);
	if (nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING))
		nvfab_do_delete_ctrl(ctrl);
	else
		ret = -EBUSY;
	put_device(ctrl->device);
	return ret;
}

/* ---- character device /dev/nvfabN ---- */

static int nvfab_dev_open(struct inode *inode, struct file *file)
{
	struct nvfab_ctrl *ctrl = container_of(inode->i_cdev,
					       struct nvfab_ctrl, cdev);

	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_LIVE:
		break;
	default:
		return -EWOULDBLOCK;
	}
	if (!try_module_get(ctrl->ops->module))
		return -EINVAL;
	get_device(ctrl->device);
	file->private_data = ctrl;
	return 0;
}

static int nvfab_dev_release(struct inode *inode, struct file *file)
{
	struct nvfab_ctrl *ctrl = file->private_data;
	struct module *owner = ctrl->ops->module;

	put_device(ctrl->device);
	module_put(owner);
	return 0;
}

static const struct file_operations nvfab_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= nvfab_dev_open,
	.release	= nvfab_dev_release,
	.unlocked_ioctl	= nvfab_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/* ---- controller init and release ---- */

static void nvfab_free_ctrl(struct device *dev)
{
	struct nvfab_ctrl *ctrl = container_of(dev, struct nvfab_ctrl,
					       ctrl_device);

	nvfab_ana_free(ctrl);
	if (ctrl->admin_q)
		blk_put_queue(ctrl->admin_q);
	nvfab_instance_put(ctrl->instance);
	bitmap_free(ctrl->live_qids);
	ctrl->ops->free_ctrl(ctrl);
}

/**
 * nvfab_init_ctrl() - initialise the core part of a new controller
 * @ctrl: zeroed controller embedded in the transport's structure
 * @parent: parent device (the fabrics control device)
 * @ops: the transport's operations
 * @opts: connect options; the controller owns them from now on
 *
 * Creates /dev/nvfabN and its sysfs directory. On success the controller
 * is reference counted; the last nvfab_put_ctrl() calls @ops->free_ctrl.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM, -ENOSPC or a device_add() error; on error nothing
 * is registered and the caller frees @ctrl itself.
 */
int nvfab_init_ctrl(struct nvfab_ctrl *ctrl, struct device *parent,
		    const struct nvfab_ctrl_ops *ops,
		    struct nvfab_ctrl_options *opts)
{
	int ret;

	ctrl->ops = ops;
	ctrl->opts = opts;
	ctrl->state = NVFAB_CTRL_NEW;
	spin_lock_init(&ctrl->lock);
	init_waitqueue_head(&ctrl->state_wq);
	mutex_init(&ctrl->scan_lock);
	mutex_init(&ctrl->quiesce_lock);
	init_rwsem(&ctrl->namespaces_rwsem);
	INIT_LIST_HEAD(&ctrl->namespaces);
	INIT_WORK(&ctrl->scan_work, nvfab_scan_work);
	INIT_WORK(&ctrl->async_event_work, nvfab_async_event_work);
	INIT_WORK(&ctrl->err_work, nvfab_err_work);
	INIT_WORK(&ctrl->reset_work, nvfab_reset_work);
	INIT_WORK(&ctrl->delete_work, nvfab_delete_work);
	INIT_DELAYED_WORK(&ctrl->ka_work, nvfab_keep_alive_work);
	hrtimer_init(&ctrl->ka_deadline, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	ctrl->ka_deadline.function = nvfab_keep_alive_deadline;
	INIT_WORK(&ctrl->ka_expired_work, nvfab_keep_alive_expired_work);
	INIT_DELAYED_WORK(&ctrl->connect_work, nvfab_connect_work);
	INIT_DELAYED_WORK(&ctrl->failfast_work, nvfab_failfast_work);
	INIT_LIST_HEAD(&ctrl->subsys_entry);
	atomic_set(&ctrl->mp_inflight, 0);
	mutex_init(&ctrl->ana_lock);
	xa_init(&ctrl->ana_groups);
	INIT_WORK(&ctrl->ana_work, nvfab_ana_work);

	ctrl->live_qids = bitmap_zalloc(opts->nr_io_queues +
					opts->nr_write_queues +
					opts->nr_poll_queues + 1, GFP_KERNEL);
	if (!ctrl->live_qids)
		return -ENOMEM;

	ret = nvfab_instance_get();
	if (ret < 0)
		goto out_free_bitmap;
	ctrl->instance = ret;

	ctrl->device = &ctrl->ctrl_device;
	device_initialize(ctrl->device);
	ctrl->device->devt = MKDEV(MAJOR(nvfab_chr_devt), ctrl->instance);
	ctrl->device->class = &nvfab_class;
	ctrl->device->parent = parent;
	ctrl->device->groups = nvfab_ctrl_attr_groups;
	ctrl->device->release = nvfab_free_ctrl;
	dev_set_drvdata(ctrl->device, ctrl);
	ret = dev_set_name(ctrl->device, "nvfab%d", ctrl->instance);
	if (ret)
		goto out_put_instance;

	cdev_init(&ctrl->cdev, &nvfab_dev_fops);
	ctrl->cdev.owner = ops->module;
	ret = cdev_device_add(&ctrl->cdev, ctrl->device);
	if (ret)
		goto out_free_name;
	return 0;

out_free_name:
	kfree_const(ctrl->device->kobj.name);
	ctrl->device->kobj.name = NULL;
out_put_instance:
	nvfab_instance_put(ctrl->instance);
out_free_bitmap:
	bitmap_free(ctrl->live_qids);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_init_ctrl);

/**
 * nvfab_uninit_ctrl() - remove /dev/nvfabN and the sysfs directory
 * @ctrl: the controller
 *
 * Context: may sleep.
 */
void nvfab_uninit_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_ana_stop(ctrl);
	nvfab_mpath_leave(ctrl);
	cdev_device_del(&ctrl->cdev, ctrl->device);
}
EXPORT_SYMBOL_NVFAB(nvfab_uninit_ctrl);

/**
 * nvfab_put_ctrl() - drop a controller reference
 * @ctrl: the controller
 *
 * Context: may sleep (the last put frees the controller).
 */
void nvfab_put_ctrl(struct nvfab_ctrl *ctrl)
{
	put_device(ctrl->device);
}
EXPORT_SYMBOL_NVFAB(nvfab_put_ctrl);

static int __init nvfab_core_init(void)
{
	int ret = -ENOMEM;

	nvfab_wq = alloc_workqueue("nvfab-wq", WQ_UNBOUND | WQ_MEM_RECLAIM |
				   WQ_SYSFS, 0);
	if (!nvfab_wq)
		goto out;
	nvfab_reset_wq = alloc_workqueue("nvfab-reset-wq", WQ_UNBOUND |
					 WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!nvfab_reset_wq)
		goto out_destroy_wq;
	nvfab_delete_wq = alloc_workqueue("nvfab-delete-wq", WQ_UNBOUND |
					  WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!nvfab_delete_wq)
		goto out_destroy_reset_wq;

	ret = alloc_chrdev_region(&nvfab_chr_devt, 0, NVFAB_MINORS, "nvfab");
	if (ret)
		goto out_destroy_delete_wq;
	ret = class_register(&nvfab_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n", nvfab_class.name, ret);
		goto out_unregister_chrdev;
	}
	ret = class_register(&nvfab_subsys_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n",
		       nvfab_subsys_class.name, ret);
		goto out_unregister_class;
	}
	ret = nvfab_mpath_init();
	if (ret) {
		pr_err("cannot register the path selectors: %d\n", ret);
		goto out_unregister_subsys_class;
	}
	ret = nvfab_configfs_init();
	if (ret) {
		pr_err("cannot register configfs subsystem nvfab: %d\n", ret);
		goto out_mpath_exit;
	}
	return 0;

out_mpath_exit:
	nvfab_mpath_exit();
out_unregister_subsys_class:
	class_unregister(&nvfab_subsys_class);
out_unregister_class:
	class_unregister(&nvfab_class);
out_unregister_chrdev:
	unregister_chrdev_region(nvfab_chr_devt, NVFAB_MINORS);
out_destroy_delete_wq:
	destroy_workqueue(nvfab_delete_wq);
out_destroy_reset_wq:
	destroy_workqueue(nvfab_reset_wq);
out_destroy_wq:
	destroy_workqueue(nvfab_wq);
out:
	return ret;
}

static void __exit nvfab_core_exit(void)
{
	nvfab_configfs_exit();
	nvfab_mpath_exit();
	class_unregister(&nvfab_subsys_class);
	class_unregister(&nvfab_class);
	unregister_chrdev_region(nvfab_chr_devt, NVFAB_MINORS);
	destroy_workqueue(nvfab_delete_wq);
	destroy_workqueue(nvfab_reset_wq);
	destroy_workqueue(nvfab_wq);
	ida_destroy(&nvfab_instance_ida);
}

module_init(nvfab_core_init);
module_exit(nvfab_core_exit);

MODULE_DESCRIPTION("nvfab NVMe over Fabrics host core");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
