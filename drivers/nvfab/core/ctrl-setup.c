// SPDX-License-Identifier: GPL-2.0
/*
 * Setting up and tearing down the association with a controller: the
 * enable and shutdown sequence (CC, CSTS), Identify Controller, the number
 * of I/O queues, the admin and I/O tag sets and queues, and starting and
 * stopping what runs while the controller is live.
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "multipath/mpath.h"
#include <nvfab/fabrics.h>

/* Reserved admin tags: Connect and Keep Alive; I/O: Connect. */
#define NVFAB_ADMIN_RESERVED	2
#define NVFAB_IO_RESERVED	1
/* Longest wait for CSTS.SHST after a normal shutdown, seconds. */
#define NVFAB_SHUTDOWN_TIMEOUT	5

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

/**
 * nvfab_shutdown_ctrl() - normal shutdown of the controller
 * @ctrl: the controller, its admin queue live
 *
 * Sets CC.SHN to normal and waits at most NVFAB_SHUTDOWN_TIMEOUT seconds
 * for CSTS.SHST to report the shutdown complete.
 *
 * Context: may sleep.
 */
void nvfab_shutdown_ctrl(struct nvfab_ctrl *ctrl)
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

	nvfab_transport_limits(ctrl, &lim);
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

	ctrl->vid = info.vid;
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
	if (ctrl->max_transfer_sectors)
		ctrl->max_hw_sectors = min(ctrl->max_hw_sectors,
					   ctrl->max_transfer_sectors);
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

/**
 * nvfab_unquiesce_admin() - unquiesce the admin queue if it is quiesced
 * @ctrl: the controller
 *
 * Context: process context.
 */
void nvfab_unquiesce_admin(struct nvfab_ctrl *ctrl)
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
	set->numa_node = ctrl->numa_node;
	set->cmd_size = ctrl->ops->cmd_size;
	set->driver_data = ctrl;
	set->nr_hw_queues = 1;
	set->timeout = NVFAB_ADMIN_TIMEOUT;
	set->flags = NVFAB_BLK_MQ_F_NO_SCHED;
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
	WRITE_ONCE(ctrl->admin_tagset_live, true);
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
	WRITE_ONCE(ctrl->admin_tagset_live, false);
	blk_mq_free_tag_set(&ctrl->admin_tagset);
}

static int nvfab_alloc_io_tagset(struct nvfab_ctrl *ctrl)
{
	struct blk_mq_tag_set *set = &ctrl->tagset;
	int ret;

	memset(set, 0, sizeof(*set));
	set->ops = ctrl->ops->io_mq_ops;
	set->queue_depth = ctrl->sqsize + 1;
	set->reserved_tags = NVFAB_IO_RESERVED;
	set->numa_node = ctrl->numa_node;
	set->flags = NVFAB_BLK_MQ_F_MERGE;
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

	for (qid = 1; qid <= nr; qid++)
		ctrl->ops->stop_queue(ctrl, qid);
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
		blk_mq_unfreeze_queue_nomemrestore(ns->disk->queue);
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
	/*
	 * The queues before the tag set: freeing a queue cancels its
	 * fail_work, which walks the tag set.
	 */
	nvfab_free_io_queues(ctrl, nr_io);
	if (new)
		nvfab_free_io_tagset(ctrl);
	return ret;

out_stop:
	nvfab_stop_io_queues(ctrl, started);
	nvfab_free_io_queues(ctrl, started);
	return ret;
}

/**
 * nvfab_teardown_io_queues() - stop the I/O queues, cancel their requests
 * @ctrl: the controller
 * @remove: also free the I/O tag set
 *
 * The tag set is left quiesced unless @remove.
 *
 * Context: may sleep.
 */
void nvfab_teardown_io_queues(struct nvfab_ctrl *ctrl, bool remove)
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

/**
 * nvfab_teardown_admin_queue() - stop the admin queue, cancel its requests
 * @ctrl: the controller
 * @remove: also free the admin tag set (the queue is kept, dead, until the
 *	    controller is freed)
 *
 * The queue is stopped once (NVFAB_CTRL_ADMIN_Q_STOPPED) and left quiesced
 * unless @remove.
 *
 * Context: may sleep.
 */
void nvfab_teardown_admin_queue(struct nvfab_ctrl *ctrl, bool remove)
{
	if (!ctrl->admin_tagset_live)
		return;
	if (!test_and_set_bit(NVFAB_CTRL_ADMIN_Q_STOPPED, &ctrl->flags)) {
		nvfab_quiesce_admin(ctrl);
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

static int nvfab_setup_ctrl_once(struct nvfab_ctrl *ctrl, bool new)
{
	int ret;

	/* an error of an earlier attempt's queues, all stopped by now */
	clear_bit(NVFAB_CTRL_ERR_PENDING, &ctrl->flags);

	/*
	 * The tag set before the queue: once started, queue 0 receives, and
	 * a target may send a CapsuleResp or CQE at once, unasked; its CID
	 * must be looked up in a tag set that exists (nvfab_queue_tags()).
	 */
	if (new) {
		ret = nvfab_alloc_admin_tagset(ctrl);
		if (ret)
			return ret;
	}
	ret = ctrl->ops->start_queue(ctrl, 0);
	if (ret) {
		if (new)
			nvfab_free_admin_tagset(ctrl);
		return ret;
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

/**
 * nvfab_setup_ctrl() - establish the association
 * @ctrl: the controller, CONNECTING
 * @new: the first connect: allocate the tag sets
 *
 * Admin queue, Connect, enable, Identify, I/O queues. On failure everything
 * this call set up is torn down again (the tag sets stay when !@new). When
 * the controller refuses a Connect for asking, by itself, for SQ flow
 * control disabled (nvfab_connect_queue()), the whole sequence runs once
 * more at once, with SQ flow control.
 *
 * Context: may sleep for the whole connect sequence.
 * Return: 0, a negative errno, or the positive NVMe status of the command
 * that failed.
 */
int nvfab_setup_ctrl(struct nvfab_ctrl *ctrl, bool new)
{
	bool refused = ctrl->sqflow_refused;
	int ret;

	ret = nvfab_setup_ctrl_once(ctrl, new);
	if (ret > 0 && !refused && ctrl->sqflow_refused)
		ret = nvfab_setup_ctrl_once(ctrl, new);
	return ret;
}

/**
 * nvfab_start_ctrl() - start what runs while the controller is live
 * @ctrl: a controller that just went live
 *
 * Keep-alive, the AER, a namespace scan; bios waiting on its paths are
 * sent again; then NVFAB_CTRL_EVENT_LIVE is told to the notifier chain.
 *
 * Context: may sleep.
 */
void nvfab_start_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_start_keep_alive(ctrl);
	nvfab_enable_aen(ctrl);
	queue_work(nvfab_wq, &ctrl->async_event_work);
	nvfab_queue_scan(ctrl);
	nvfab_kick_requeue_lists(ctrl);
	nvfab_ctrl_event(ctrl, NVFAB_CTRL_EVENT_LIVE);
}

/**
 * nvfab_stop_ctrl() - stop the keep-alive, AER and ANA work
 * @ctrl: the controller
 *
 * Context: may sleep.
 */
void nvfab_stop_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_stop_keep_alive(ctrl);
	cancel_work_sync(&ctrl->async_event_work);
	cancel_work_sync(&ctrl->ana_work);
}

/**
 * nvfab_start_new_ctrl() - connect a controller for the first time
 * @ctrl: a controller set up by nvfab_init_ctrl()
 *
 * On success the caller holds a reference to the controller, taken before
 * it could go live: once live, a delete (sysfs, rmmod of the transport)
 * drops the controller's own reference at any time, so a caller that
 * still reads it after this returns needs one of its own. The transport
 * passes it on from its create_ctrl (struct nvfab_transport_ops).
 *
 * Context: may sleep for the whole connect sequence.
 * Return: 0 when the controller is live, with a reference for the caller
 * (nvfab_put_ctrl()); a negative errno, or the positive NVMe status of the
 * command that failed turned into -EIO. On failure nothing is left set up
 * but what nvfab_init_ctrl() did, and no reference is taken.
 */
int nvfab_start_new_ctrl(struct nvfab_ctrl *ctrl)
{
	int ret;

	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_CONNECTING))
		return -EBUSY;
	get_device(ctrl->device);	/* the caller's */
	ret = nvfab_setup_ctrl(ctrl, true);
	if (ret) {
		ret = ret < 0 ? ret : -EIO;
		goto out_put;
	}
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_LIVE)) {
		/* nothing else moves a controller out of its first connect */
		dev_err(ctrl->device, "state %s after the first connect\n",
			nvfab_ctrl_state_name(nvfab_ctrl_state(ctrl)));
		ret = -EINVAL;
		goto out_put;
	}
	dev_info(ctrl->device, "new ctrl: NQN \"%s\", addr %s, %u I/O queues\n",
		 ctrl->subsysnqn, ctrl->opts->traddr ? ctrl->opts->traddr : "",
		 ctrl->queue_count - 1);
	nvfab_start_ctrl(ctrl);
	nvfab_connect_done(ctrl);
	return 0;

out_put:
	put_device(ctrl->device);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_start_new_ctrl);
