// SPDX-License-Identifier: GPL-2.0
/*
 * Keep-alive (NVMe Base 2.0, 3.9): a Keep Alive command every KATO / 2
 * (KATO / 4 with traffic-based keep-alive), each with a deadline; one
 * that fails or goes unanswered starts error recovery.
 */
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>

#include <nvfab/compat.h>
#include "nvfab.h"

static unsigned long nvfab_keep_alive_delay(struct nvfab_ctrl *ctrl)
{
	unsigned long delay = nvfab_secs_to_jiffies(ctrl->kato) / 2;

	/* Traffic-based keep-alive: send twice as often, as the spec advises. */
	if (ctrl->ctratt_tbkas)
		delay /= 2;
	return max(delay, 1UL);
}

/**
 * nvfab_keep_alive_tmo() - how long a keep-alive may stay unanswered
 * @ctrl: the controller
 *
 * KATO less the sending interval, at least one second: a silent loss of the
 * association is noticed within KATO of the last keep-alive that got
 * through, which is when the controller's own Keep Alive Timer expires
 * (NVMe Base 2.0, 3.9.4). The deadline is a high-resolution timer, not the
 * request timeout, which blk-mq rounds up to a whole second and the timer
 * wheel delays by up to an eighth more.
 *
 * Context: any.
 * Return: the timeout in ms.
 */
static unsigned int nvfab_keep_alive_tmo(struct nvfab_ctrl *ctrl)
{
	unsigned int kato_ms = ctrl->kato * MSEC_PER_SEC;
	unsigned int every_ms = jiffies_to_msecs(nvfab_keep_alive_delay(ctrl));

	return max(kato_ms - min(every_ms, kato_ms), MSEC_PER_SEC);
}

static enum rq_end_io_ret nvfab_keep_alive_end_io(struct request *rq,
						  blk_status_t status,
						  const struct io_comp_batch *iob)
{
	struct nvfab_ctrl *ctrl = rq->end_io_data;
	u16 nvme_status = nvfab_req(rq)->status;
	enum nvfab_ctrl_state state;

	WRITE_ONCE(ctrl->ka_pending, false);
	hrtimer_try_to_cancel(&ctrl->ka_deadline);
	blk_mq_free_request(rq);
	if (status || nvme_status) {
		dev_err(ctrl->device, "keep-alive failed (blk %d, status 0x%x)\n",
			status, nvme_status);
		nvfab_error_recovery(ctrl);
		return RQ_END_IO_NONE;
	}
	state = nvfab_ctrl_state(ctrl);
	if (state == NVFAB_CTRL_LIVE || state == NVFAB_CTRL_CONNECTING)
		queue_delayed_work(nvfab_wq, &ctrl->ka_work,
				   nvfab_keep_alive_delay(ctrl));
	return RQ_END_IO_NONE;
}

NVFAB_DEFINE_RQ_END_IO(nvfab_keep_alive_end_io);

/**
 * nvfab_keep_alive_deadline() - the outstanding keep-alive is late
 * @timer: ctrl->ka_deadline
 *
 * Queues ctrl->ka_expired_work if the keep-alive is still unanswered.
 *
 * Context: soft hrtimer.
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart nvfab_keep_alive_deadline(struct hrtimer *timer)
{
	struct nvfab_ctrl *ctrl = container_of(timer, struct nvfab_ctrl,
					       ka_deadline);

	if (READ_ONCE(ctrl->ka_pending))
		queue_work(nvfab_wq, &ctrl->ka_expired_work);
	return HRTIMER_NORESTART;
}

/**
 * nvfab_keep_alive_expired_work() - recover from an unanswered keep-alive
 * @work: ctrl->ka_expired_work
 *
 * Context: nvfab_wq.
 */
void nvfab_keep_alive_expired_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       ka_expired_work);
	unsigned long sent = READ_ONCE(ctrl->ka_sent);
	unsigned int tmo = nvfab_keep_alive_tmo(ctrl);

	/* Answered meanwhile, or a newer keep-alive that is not late yet. */
	if (!READ_ONCE(ctrl->ka_pending) ||
	    time_before(jiffies, sent + msecs_to_jiffies(tmo)) ||
	    nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE)
		return;
	dev_warn(ctrl->device, "keep-alive unanswered for %u ms (KATO %u s)\n",
		 jiffies_to_msecs(jiffies - sent), ctrl->kato);
	nvfab_error_recovery(ctrl);
}

/**
 * nvfab_keep_alive_work() - send a Keep Alive command
 * @work: ctrl->ka_work
 *
 * Arms ctrl->ka_deadline; the completion queues the next keep-alive.
 *
 * Context: nvfab_wq.
 */
void nvfab_keep_alive_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(to_delayed_work(work),
					       struct nvfab_ctrl, ka_work);
	unsigned int tmo = nvfab_keep_alive_tmo(ctrl);
	struct request *rq;

	rq = blk_mq_alloc_request(ctrl->admin_q, REQ_OP_DRV_OUT,
				  BLK_MQ_REQ_RESERVED | BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(rq)) {
		/* The admin queue is frozen or gone: recovery will restart us. */
		dev_dbg(ctrl->device, "keep-alive: no request: %ld\n",
			PTR_ERR(rq));
		return;
	}
	memset(nvfab_req(rq)->cmd, 0, sizeof(struct nvme_command));
	nvfab_req(rq)->cmd->common.opcode = nvme_admin_keep_alive;
	nvfab_req(rq)->flags = 0;
	rq->cmd_flags |= REQ_FAILFAST_DRIVER;
	/* The request timeout is only a backstop behind ka_deadline. */
	rq->timeout = msecs_to_jiffies(tmo) + 2 * HZ;
	rq->end_io = NVFAB_RQ_END_IO(nvfab_keep_alive_end_io);
	rq->end_io_data = ctrl;
	WRITE_ONCE(ctrl->ka_sent, jiffies);
	WRITE_ONCE(ctrl->ka_pending, true);
	hrtimer_start(&ctrl->ka_deadline, ms_to_ktime(tmo),
		      HRTIMER_MODE_REL_SOFT);
	blk_execute_rq_nowait(rq, false);
}

/**
 * nvfab_start_keep_alive() - start sending keep-alives
 * @ctrl: a controller that went live
 *
 * Nothing is sent when KATO is 0.
 *
 * Context: any context.
 */
void nvfab_start_keep_alive(struct nvfab_ctrl *ctrl)
{
	if (!ctrl->kato)
		return;
	queue_delayed_work(nvfab_wq, &ctrl->ka_work,
			   nvfab_keep_alive_delay(ctrl));
}

/**
 * nvfab_stop_keep_alive() - stop sending keep-alives
 * @ctrl: the controller
 *
 * Cancels the keep-alive work, the deadline and the expiry work.
 *
 * Context: may sleep.
 */
void nvfab_stop_keep_alive(struct nvfab_ctrl *ctrl)
{
	cancel_delayed_work_sync(&ctrl->ka_work);
	/* No keep-alive is sent now, so nothing re-arms the deadline. */
	hrtimer_cancel(&ctrl->ka_deadline);
	cancel_work_sync(&ctrl->ka_expired_work);
	WRITE_ONCE(ctrl->ka_pending, false);
}
