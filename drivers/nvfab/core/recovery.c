// SPDX-License-Identifier: GPL-2.0
/*
 * Error recovery, reconnect and reset: the association is torn down with
 * the tag sets kept, so that queued I/O waits, and connected again every
 * reconnect_delay seconds until max_reconnects (ctrl_loss_tmo), when the
 * controller is deleted; fast_io_fail_tmo fails queued I/O earlier.
 */
#include <nvfab/compat.h>
#include "nvfab.h"
#include <nvfab/fabrics.h>

/**
 * nvfab_failfast_work() - fast_io_fail_tmo expired
 * @work: ctrl->failfast_work
 *
 * While the controller is still resetting or reconnecting, queued I/O
 * fails from now on.
 *
 * Context: nvfab_wq.
 */
void nvfab_failfast_work(struct work_struct *work)
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

/*
 * Another attempt in reconnect_delay (sysfs may change it), or give up:
 * at ctrl_loss_tmo, or at once when the last attempt failed for a key
 * (-ENOKEY: the controller requires authentication and there is no key;
 * -EKEYREJECTED: it refused the key). Another attempt with the same keys
 * would fail the same way; the in-kernel host stops for both too.
 * @status: the last attempt's error, 0 after a teardown.
 */
static void nvfab_reconnect_or_remove(struct nvfab_ctrl *ctrl, int status)
{
	unsigned int delay = READ_ONCE(ctrl->opts->reconnect_delay);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_CONNECTING)
		return;
	if (status == -ENOKEY || status == -EKEYREJECTED) {
		dev_info(ctrl->device, "%s: removing controller\n",
			 status == -ENOKEY ? "authentication required, no key" :
			 "key rejected");
		nvfab_delete_ctrl(ctrl);
	} else if (nvfab_should_reconnect(ctrl)) {
		dev_info(ctrl->device, "reconnecting in %u s\n", delay);
		queue_delayed_work(nvfab_reset_wq, &ctrl->connect_work,
				   nvfab_secs_to_jiffies(delay));
	} else {
		dev_info(ctrl->device, "ctrl_loss_tmo %d s reached: removing controller\n",
			 ctrl->opts->ctrl_loss_tmo);
		nvfab_delete_ctrl(ctrl);
	}
}

/**
 * nvfab_connect_work() - one reconnect attempt
 * @work: ctrl->connect_work
 *
 * On failure another attempt follows in reconnect_delay, or the
 * controller is deleted (at ctrl_loss_tmo, or at once for a missing or
 * rejected key). Each attempt made counts once in diag/reconnect_count.
 *
 * Context: nvfab_reset_wq.
 */
void nvfab_connect_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(to_delayed_work(work),
					       struct nvfab_ctrl, connect_work);
	int ret;

	ctrl->nr_reconnects++;
	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_CONNECTING)
		return;
	atomic64_inc(&ctrl->reconnect_count);
	ret = nvfab_setup_ctrl(ctrl, false);
	if (ret) {
		dev_info(ctrl->device, "reconnect attempt %d failed: %d\n",
			 ctrl->nr_reconnects, ret);
		nvfab_reconnect_or_remove(ctrl, ret);
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
	nvfab_connect_done(ctrl);
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

/**
 * nvfab_err_work() - tear down after an error, then reconnect
 * @work: ctrl->err_work
 *
 * Context: nvfab_reset_wq.
 */
void nvfab_err_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       err_work);

	nvfab_teardown_for_reconnect(ctrl);
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_CONNECTING))
		return;	/* being deleted */
	ctrl->nr_reconnects = 0;
	nvfab_reconnect_or_remove(ctrl, 0);
}

/**
 * nvfab_reset_work() - tear down for a reset, then reconnect at once
 * @work: ctrl->reset_work
 *
 * Context: nvfab_reset_wq.
 */
void nvfab_reset_work(struct work_struct *work)
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

static bool nvfab_start_recovery(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_RESETTING))
		return false;
	atomic64_inc(&ctrl->reset_count);
	dev_warn(ctrl->device, "starting error recovery\n");
	nvfab_start_failfast(ctrl);
	queue_work(nvfab_reset_wq, &ctrl->err_work);
	return true;
}

/**
 * nvfab_error_recovery() - start recovering a controller after an error
 * @ctrl: the controller
 *
 * Moves LIVE to RESETTING and queues the teardown and reconnect; that
 * counts once in diag/reset_count.
 *
 * An error on a controller that is connecting (NEW or CONNECTING) is kept
 * (NVFAB_CTRL_ERR_PENDING) until the connect ends: a connect that fails
 * drops it, one that goes live recovers at once (nvfab_connect_done()),
 * so that a queue that failed after its last command of the connect
 * (a device removed, a link lost) never leaves a live controller on a
 * dead queue. The transport still stops that queue meanwhile, so that a
 * command of the connect waiting on it fails at once. The bit, then the
 * state here; the state, then the bit in nvfab_connect_done(): whichever
 * comes second sees the other's.
 *
 * Context: any context.
 * Return: true if this call started recovery, false if the controller was
 * not live (connecting: the error is kept; or recovery or deletion already
 * under way).
 */
bool nvfab_error_recovery(struct nvfab_ctrl *ctrl)
{
	enum nvfab_ctrl_state state;

	if (nvfab_start_recovery(ctrl))
		return true;
	state = nvfab_ctrl_state(ctrl);
	if (state != NVFAB_CTRL_NEW && state != NVFAB_CTRL_CONNECTING)
		return false;
	set_bit(NVFAB_CTRL_ERR_PENDING, &ctrl->flags);
	/* the bit before the state: pairs with nvfab_connect_done() */
	smp_mb__after_atomic();
	/* the connect went live before it could see the bit */
	if (nvfab_ctrl_state(ctrl) == NVFAB_CTRL_LIVE &&
	    test_and_clear_bit(NVFAB_CTRL_ERR_PENDING, &ctrl->flags))
		return nvfab_start_recovery(ctrl);
	return false;
}
EXPORT_SYMBOL_NVFAB(nvfab_error_recovery);

/**
 * nvfab_connect_done() - a connect went live: act on an error it had
 * @ctrl: the controller, just moved to LIVE (and started)
 *
 * See nvfab_error_recovery(): an error reported while the controller
 * connected, on a queue that the connect no longer used, starts error
 * recovery now.
 *
 * Context: process context.
 */
void nvfab_connect_done(struct nvfab_ctrl *ctrl)
{
	/* test_and_clear_bit() is ordered after the state change to LIVE */
	if (test_and_clear_bit(NVFAB_CTRL_ERR_PENDING, &ctrl->flags)) {
		dev_warn(ctrl->device, "a queue failed while the controller connected\n");
		nvfab_start_recovery(ctrl);
	}
}

/**
 * nvfab_reset_ctrl() - reset a live controller and wait for the outcome
 * @ctrl: the controller
 *
 * A reset that starts counts once in diag/reset_count.
 *
 * Context: may sleep.
 * Return: 0 when the controller is live again, -EBUSY if it was not live,
 * -ENETRESET if it is not live after the first reconnect attempt.
 */
int nvfab_reset_ctrl(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_RESETTING))
		return -EBUSY;
	atomic64_inc(&ctrl->reset_count);
	queue_work(nvfab_reset_wq, &ctrl->reset_work);
	flush_work(&ctrl->reset_work);
	flush_delayed_work(&ctrl->connect_work);
	return nvfab_ctrl_state(ctrl) == NVFAB_CTRL_LIVE ? 0 : -ENETRESET;
}
EXPORT_SYMBOL_NVFAB(nvfab_reset_ctrl);
