// SPDX-License-Identifier: GPL-2.0
/*
 * Requests on nvfab queues, the core's part of a transport's blk_mq_ops:
 * the SQE of a request, whether it may be sent now, its completion (NVMe
 * status to blk_status_t, retry, failover to the multipath head) and the
 * CPU to queue map; and synchronous commands (Identify, Get Log Page, Set
 * Features).
 */
#include <linux/blk-mq.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "multipath/mpath.h"
#include "trace.h"

static blk_status_t nvfab_error_status(u16 status)
{
	switch (status & NVME_SCT_SC_MASK) {
	case NVME_SC_SUCCESS:
		return BLK_STS_OK;
	case NVME_SC_CAP_EXCEEDED:
		return BLK_STS_NOSPC;
	case NVME_SC_LBA_RANGE:
	case NVME_SC_CMD_INTERRUPTED:
	case NVME_SC_NS_NOT_READY:
		return BLK_STS_TARGET;
	case NVME_SC_BAD_ATTRIBUTES:
	case NVME_SC_INVALID_OPCODE:
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_INVALID_NS:
		return BLK_STS_NOTSUPP;
	case NVME_SC_WRITE_FAULT:
	case NVME_SC_READ_ERROR:
	case NVME_SC_UNWRITTEN_BLOCK:
	case NVME_SC_ACCESS_DENIED:
	case NVME_SC_READ_ONLY:
	case NVME_SC_COMPARE_FAILED:
		return BLK_STS_MEDIUM;
	case NVME_SC_GUARD_CHECK:
	case NVME_SC_APPTAG_CHECK:
	case NVME_SC_REFTAG_CHECK:
	case NVME_SC_INVALID_PI:
		return BLK_STS_PROTECTION;
	case NVME_SC_RESERVATION_CONFLICT:
		return BLK_STS_RESV_CONFLICT;
	case NVME_SC_HOST_PATH_ERROR:
		return BLK_STS_TRANSPORT;
	case NVME_SC_ANA_TRANSITION:
		return BLK_STS_AGAIN;
	default:
		return BLK_STS_IOERR;
	}
}

/*
 * Whether a failed request is requeued: never a DNR status, a no-retry
 * request or a host path error (the path is gone; multipath fails over
 * above us), and at most NVFAB_MAX_RETRIES times.
 */
static bool nvfab_should_retry(struct request *rq)
{
	struct nvfab_request *req = nvfab_req(rq);

	if (req->status & NVME_STATUS_DNR)
		return false;
	if (blk_noretry_request(rq))
		return false;
	if ((req->status & NVME_SCT_SC_MASK) == NVME_SC_HOST_PATH_ERROR)
		return false;
	return req->retries < NVFAB_MAX_RETRIES;
}

/*
 * Whether a failed multipath request goes back to its head to be sent on
 * another path: a path error (status code type 3, which includes the ANA
 * statuses, host path errors and commands aborted by a teardown) or a
 * path disk going away; never with DNR or for a no-retry request.
 */
static bool nvfab_should_failover(struct request *rq)
{
	struct nvfab_request *req = nvfab_req(rq);

	if (!(rq->cmd_flags & NVFAB_REQ_MPATH))
		return false;
	if ((req->status & NVME_STATUS_DNR) || blk_noretry_request(rq))
		return false;
	return (req->status & NVME_SCT_MASK) == NVME_SCT_PATH ||
	       (req->flags & NVFAB_REQ_CANCELLED) || blk_queue_dying(rq->q);
}

/**
 * nvfab_complete_rq() - finish a request the transport completed
 * @rq: the request; nvfab_request.status and .result are set
 *
 * Requeues a retryable failure (for example commands cancelled by a
 * reset), or ends the request with the blk_status its NVMe status maps to.
 * Transports use it as their blk_mq_ops.complete. A failed command of a
 * namespace counts once in its path disk's diag/: failed over
 * (nvfab_mpath_failover()), retried (command_retry_count, per requeue) or
 * ended with its error (command_error_count).
 *
 * Context: any context (softirq included).
 */
void nvfab_complete_rq(struct request *rq)
{
	struct nvfab_request *req = nvfab_req(rq);
	blk_status_t sts = nvfab_error_status(req->status);

	trace_nvfab_complete_rq(rq);
	if (req->flags & NVFAB_REQ_MPATH_ACCT)
		nvfab_mpath_end_request(rq, sts);
	nvfab_cleanup_cmd(rq);
	if (unlikely(req->status)) {
		/* a namespace's queue (path disk); NULL: admin, Connect */
		struct nvfab_ns *ns = rq->q->queuedata;

		if (nvfab_should_failover(rq) && nvfab_mpath_failover(rq))
			return;
		if (nvfab_should_retry(rq)) {
			req->retries++;
			if (ns)
				atomic64_inc(&ns->command_retry_count);
			blk_mq_requeue_request(rq, true);
			return;
		}
		if (ns)
			atomic64_inc(&ns->command_error_count);
	}
	blk_mq_end_request(rq, sts);
}
EXPORT_SYMBOL_NVFAB(nvfab_complete_rq);

/**
 * nvfab_try_complete_req() - record a CQE and complete its request
 * @rq: the request the CQE's CID names
 * @status: CQE status field, little endian, phase bit included
 * @result: CQE Dword 0/1
 *
 * The target's completion claims the request as the host's own do
 * (nvfab_claim_host_completion()): a request completes once, whoever is
 * first. Without that, a cancel could complete a request the target had
 * completed: blk_mq_tagset_busy_iter() holds a reference to a request it
 * saw started, and its owner may complete and free it (state COMPLETE,
 * then IDLE) before nvfab_cancel_request() looks, which then found it
 * neither completed nor claimed and completed it again, calling the
 * synchronous waiter's end_io on a stack frame that was gone (KASAN:
 * out-of-bounds in complete() from blk_end_sync_rq(), hostile.sh's
 * chap-close).
 *
 * Context: any context.
 * Return: true if the request is completed (possibly on another CPU);
 * false if the host completed it already, and the CQE is dropped.
 */
bool nvfab_try_complete_req(struct request *rq, __le16 status,
			    union nvme_result result)
{
	struct nvfab_request *req = nvfab_req(rq);

	if (!nvfab_claim_host_completion(rq))
		return false;
	req->status = le16_to_cpu(status) >> 1;
	req->result = result;
	nvfab_req_done(rq);
	blk_mq_complete_request(rq);
	return true;
}
EXPORT_SYMBOL_NVFAB(nvfab_try_complete_req);

/**
 * nvfab_claim_host_completion() - take the one right to complete a started
 *	request on the host's behalf
 * @rq: a started request (blk_mq_start_request() was called)
 *
 * The host completes a started request itself from places that do not
 * serialise with each other: nvfab_cancel_request() (from the timeout
 * handler of a controller that is not live, err_work's teardown and a
 * transport's fail_work, each after stopping the queue so that the target
 * can no longer complete it), nvfab_fail_nonready() (->queue_rq on a queue
 * that such a stop has just taken down) and a transport's ->queue_rq that
 * started a request and then could not post its send; and the target's
 * own completion (nvfab_try_complete_req()). Each calls this
 * first, and only the caller that gets true completes the request (or
 * hands it back to blk-mq with an error); the others leave it alone.
 * blk_mq_request_completed() alone is a check, then an act: two callers
 * can both see a request in flight. The claim is cleared before each
 * start (nvfab_setup_cmd(), nvfab_fail_nonready()).
 *
 * Context: any context.
 * Return: true if the caller now owns the completion, false if another
 * caller completed, or is completing, the request.
 */
bool nvfab_claim_host_completion(struct request *rq)
{
	return !test_and_set_bit(0, &nvfab_req(rq)->host_claim);
}
EXPORT_SYMBOL_NVFAB(nvfab_claim_host_completion);

static void nvfab_clear_host_claim(struct nvfab_request *req)
{
	clear_bit(0, &req->host_claim);
	/*
	 * Ordered before blk_mq_start_request()'s store of the request
	 * state: a canceller that sees the request started sees the claim
	 * cleared (it reads the state, then test_and_set_bit()s).
	 */
	smp_mb__after_atomic();
}

/**
 * nvfab_cancel_request() - complete an in-flight request from the host
 * @rq: the request
 * @data: unused (blk_mq_tagset_busy_iter() callback)
 *
 * Used after a queue is stopped: the request completes with
 * NVME_SC_HOST_ABORTED_CMD, which is retried unless the request forbids it.
 * Several paths may cancel the same request at once, or complete it on
 * the host's behalf otherwise: the request completes once, by whoever
 * claims it first (nvfab_claim_host_completion()).
 *
 * Context: any context.
 * Return: true, to continue the iteration.
 */
bool nvfab_cancel_request(struct request *rq, void *data)
{
	struct nvfab_request *req = nvfab_req(rq);

	if (blk_mq_request_completed(rq) || !nvfab_claim_host_completion(rq))
		return true;
	req->status = NVME_SC_HOST_ABORTED_CMD;
	req->flags |= NVFAB_REQ_CANCELLED;
	nvfab_req_done(rq);
	blk_mq_complete_request(rq);
	return true;
}
EXPORT_SYMBOL_NVFAB(nvfab_cancel_request);

/**
 * nvfab_setup_cmd() - build the SQE of a request
 * @rq: a request of an nvfab queue
 *
 * Passthrough requests carry their SQE already; block-layer requests get
 * one from their namespace. Either way the CID is set here.
 *
 * Context: any context (blk_mq_ops.queue_rq).
 * Return: BLK_STS_OK, or the status to fail the request with.
 */
blk_status_t nvfab_setup_cmd(struct request *rq)
{
	struct nvfab_request *req = nvfab_req(rq);
	blk_status_t ret = BLK_STS_OK;

	if (!(rq->rq_flags & RQF_DONTPREP)) {
		req->retries = 0;
		req->flags &= NVFAB_REQ_USERCMD;
		rq->rq_flags |= RQF_DONTPREP;
	} else {
		req->flags &= ~NVFAB_REQ_CANCELLED;
	}
	nvfab_clear_host_claim(req);
	req->status = 0;

	switch (req_op(rq)) {
	case REQ_OP_DRV_IN:
	case REQ_OP_DRV_OUT:
		break;
	default:
		ret = nvfab_setup_ns_cmd(rq->q->queuedata, rq, req->cmd);
		break;
	}
	if (ret)
		return ret;
	req->genctr++;
	req->cmd->common.command_id = nvfab_cid(rq);
	trace_nvfab_setup_cmd(rq, req->cmd);
	return BLK_STS_OK;
}
EXPORT_SYMBOL_NVFAB(nvfab_setup_cmd);

/**
 * nvfab_start_request() - a request is about to go to the target
 * @rq: a request set up by nvfab_setup_cmd(), its data mapped
 *
 * blk_mq_start_request(), and for a multipath request the accounting of
 * its path (in flight, the selector's start_io). Called by a transport's
 * ->queue_rq once nothing but the send itself can fail, so that a request
 * that queue_rq refuses or retries (BLK_STS_RESOURCE) is never counted;
 * one that is started and then fails back to blk-mq is uncounted by
 * nvfab_cleanup_cmd().
 *
 * Context: any context (blk_mq_ops.queue_rq).
 */
void nvfab_start_request(struct request *rq)
{
	blk_mq_start_request(rq);
	if (rq->cmd_flags & NVFAB_REQ_MPATH)
		nvfab_mpath_start_request(rq);
}
EXPORT_SYMBOL_NVFAB(nvfab_start_request);

/**
 * nvfab_cleanup_cmd() - release what nvfab_setup_cmd() attached
 * @rq: the request
 *
 * Also ends the path accounting of a multipath request that
 * nvfab_start_request() counted and that ->queue_rq then failed back to
 * blk-mq (a send that could not be posted): as an I/O error of its path.
 * A request that completes has been uncounted by nvfab_complete_rq()
 * first.
 *
 * Context: any context.
 */
void nvfab_cleanup_cmd(struct request *rq)
{
	if (nvfab_req(rq)->flags & NVFAB_REQ_MPATH_ACCT)
		nvfab_mpath_end_request(rq, BLK_STS_IOERR);
	if (rq->rq_flags & RQF_SPECIAL_PAYLOAD) {
		kfree(bvec_virt(&rq->special_vec));
		rq->rq_flags &= ~RQF_SPECIAL_PAYLOAD;
	}
}
EXPORT_SYMBOL_NVFAB(nvfab_cleanup_cmd);

static bool nvfab_is_connect(struct request *rq)
{
	struct nvme_command *cmd = nvfab_req(rq)->cmd;

	return blk_rq_is_passthrough(rq) && nvme_is_fabrics(cmd) &&
	       cmd->fabrics.fctype == nvme_fabrics_type_connect;
}

/* An Authentication Send or Receive (DH-HMAC-CHAP, auth.c). */
static bool nvfab_is_auth(struct request *rq)
{
	struct nvme_command *cmd = nvfab_req(rq)->cmd;

	return blk_rq_is_passthrough(rq) && nvme_is_fabrics(cmd) &&
	       (cmd->fabrics.fctype == nvme_fabrics_type_auth_send ||
		cmd->fabrics.fctype == nvme_fabrics_type_auth_receive);
}

/**
 * nvfab_check_ready() - may this request be sent now?
 * @ctrl: the controller
 * @rq: the request
 *
 * A request may go out on a queue whose Fabrics Connect succeeded
 * (NVFAB_QUEUE_CONNECTED), while the controller is live or (re)connecting,
 * so that requests requeued by a reset drain as soon as their queue is
 * back. A Connect may go out on a queue that is up but not connected yet
 * (NVFAB_QUEUE_LIVE), an Authentication Send or Receive on one whose
 * Connect asked for authentication (NVFAB_QUEUE_AUTHENTICATING); nothing
 * goes out on a queue in any other state. User passthrough on the admin
 * queue waits for the controller to be live. While deleting, only the
 * host's own commands (shutdown) go out.
 *
 * Context: any context (blk_mq_ops.queue_rq).
 * Return: true if the request may be sent.
 */
bool nvfab_check_ready(struct nvfab_ctrl *ctrl, struct request *rq)
{
	enum nvfab_ctrl_state state = nvfab_ctrl_state(ctrl);
	struct nvfab_request *req = nvfab_req(rq);
	bool admin = rq->q == ctrl->admin_q;
	int qid = admin ? 0 : rq->mq_hctx->queue_num + 1;
	enum nvfab_queue_state qs = nvfab_queue_state(ctrl, qid);
	bool connected = qs == NVFAB_QUEUE_CONNECTED;
	bool internal = blk_rq_is_passthrough(rq) &&
			!(req->flags & NVFAB_REQ_USERCMD);

	if (likely(state == NVFAB_CTRL_LIVE && connected))
		return true;
	switch (state) {
	case NVFAB_CTRL_CONNECTING:
		if (internal && nvfab_is_connect(rq))
			return qs == NVFAB_QUEUE_LIVE;
		if (internal && qs == NVFAB_QUEUE_AUTHENTICATING)
			return nvfab_is_auth(rq);
		if (admin && (req->flags & NVFAB_REQ_USERCMD))
			return false;
		return connected;
	case NVFAB_CTRL_DELETING:
		return connected && internal;
	default:
		return false;
	}
}
EXPORT_SYMBOL_NVFAB(nvfab_check_ready);

/**
 * nvfab_fail_nonready() - handle a request nvfab_check_ready() refused
 * @ctrl: the controller
 * @rq: the request
 *
 * While the controller may still come back, the request waits (blk-mq
 * retries it); once it is being deleted, fast_io_fail_tmo expired or the
 * request may not wait (passthrough, REQ_FAILFAST_*), it fails with a host
 * path error. A multipath request fails at once with a host path error,
 * so that its head sends it on another path (or waits itself).
 *
 * Context: any context (blk_mq_ops.queue_rq).
 * Return: BLK_STS_RESOURCE to retry later, or BLK_STS_OK once the request
 * has been failed.
 */
blk_status_t nvfab_fail_nonready(struct nvfab_ctrl *ctrl, struct request *rq)
{
	enum nvfab_ctrl_state state = nvfab_ctrl_state(ctrl);

	if (state != NVFAB_CTRL_DELETING && state != NVFAB_CTRL_DELETING_NOIO &&
	    state != NVFAB_CTRL_DEAD &&
	    !test_bit(NVFAB_CTRL_FAILFAST_EXPIRED, &ctrl->flags) &&
	    !blk_noretry_request(rq) && !blk_rq_is_passthrough(rq) &&
	    !(rq->cmd_flags & NVFAB_REQ_MPATH))
		return BLK_STS_RESOURCE;

	nvfab_req(rq)->status = NVME_SC_HOST_PATH_ERROR;
	nvfab_clear_host_claim(nvfab_req(rq));
	blk_mq_start_request(rq);
	/*
	 * Started, the request is visible to a cancel iterating the tag set
	 * (fail_work of the queue whose stop made it non-ready): whoever
	 * claims it completes it, once.
	 */
	if (!nvfab_claim_host_completion(rq))
		return BLK_STS_OK;
	blk_mq_set_request_complete(rq);
	nvfab_complete_rq(rq);
	return BLK_STS_OK;
}
EXPORT_SYMBOL_NVFAB(nvfab_fail_nonready);

/**
 * nvfab_map_queues() - map CPUs to the hardware queues of an I/O tag set
 * @set: the controller's I/O tag set (driver_data is the controller)
 *
 * Queue IDs are write queues first, then read queues, then poll queues.
 * With write queues, HCTX_TYPE_DEFAULT (writes and everything else) uses
 * the write queues and HCTX_TYPE_READ the read queues; otherwise both
 * types share the read queues. HCTX_TYPE_POLL, when there are poll queues,
 * uses those.
 *
 * Context: may sleep (blk_mq_ops.map_queues).
 */
void nvfab_map_queues(struct blk_mq_tag_set *set)
{
	struct nvfab_ctrl *ctrl = set->driver_data;
	struct blk_mq_queue_map *def = &set->map[HCTX_TYPE_DEFAULT];
	struct blk_mq_queue_map *read = &set->map[HCTX_TYPE_READ];
	struct blk_mq_queue_map *poll = &set->map[HCTX_TYPE_POLL];

	if (ctrl->nr_write_queues) {
		def->nr_queues = ctrl->nr_write_queues;
		def->queue_offset = 0;
		read->nr_queues = ctrl->nr_read_queues;
		read->queue_offset = ctrl->nr_write_queues;
	} else {
		def->nr_queues = ctrl->nr_read_queues;
		def->queue_offset = 0;
		read->nr_queues = ctrl->nr_read_queues;
		read->queue_offset = 0;
	}
	blk_mq_map_queues(def);
	blk_mq_map_queues(read);
	if (set->nr_maps > HCTX_TYPE_POLL && ctrl->nr_poll_queues) {
		poll->nr_queues = ctrl->nr_poll_queues;
		poll->queue_offset = ctrl->nr_write_queues +
				     ctrl->nr_read_queues;
		blk_mq_map_queues(poll);
	} else if (set->nr_maps > HCTX_TYPE_POLL) {
		poll->nr_queues = 0;
	}
}
EXPORT_SYMBOL_NVFAB(nvfab_map_queues);

/**
 * nvfab_submit_sync_cmd() - send a command and wait for its completion
 * @q: admin queue, or the I/O connect queue
 * @cmd: the SQE to send (copied)
 * @result: where to store CQE Dword 0/1, or NULL
 * @buf: kernel buffer for the data, or NULL
 * @bufflen: bytes of @buf
 * @qid: hardware queue (1-based for I/O), or NVME_QID_ANY
 * @at_head: insert at the head of the queue
 * @flags: BLK_MQ_REQ_* flags for the allocation
 *
 * The command is never retried.
 *
 * Context: may sleep.
 * Return: 0, a positive NVMe status (SCT/SC/DNR) from the target, or a
 * negative errno: -EINTR if it was cancelled by a queue teardown, -ENOMEM,
 * -EWOULDBLOCK (no tag with BLK_MQ_REQ_NOWAIT) or -EIO.
 */
int nvfab_submit_sync_cmd(struct request_queue *q, struct nvme_command *cmd,
			  union nvme_result *result, void *buf,
			  unsigned int bufflen, int qid, bool at_head,
			  blk_mq_req_flags_t flags)
{
	enum req_op op = nvme_is_write(cmd) ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN;
	struct nvfab_request *req;
	struct request *rq;
	blk_status_t sts;
	int ret;

	if (qid == NVME_QID_ANY)
		rq = blk_mq_alloc_request(q, op, flags);
	else
		rq = blk_mq_alloc_request_hctx(q, op, flags, qid - 1);
	if (IS_ERR(rq))
		return PTR_ERR(rq);

	req = nvfab_req(rq);
	memcpy(req->cmd, cmd, sizeof(*cmd));
	req->flags = 0;
	rq->cmd_flags |= REQ_FAILFAST_DRIVER;
	rq->timeout = NVFAB_ADMIN_TIMEOUT;
	if (buf && bufflen) {
		ret = nvfab_rq_map_kern(rq, buf, bufflen, GFP_KERNEL);
		if (ret)
			goto out_free;
	}

	sts = blk_execute_rq(rq, at_head);
	if (result)
		*result = req->result;
	if (req->flags & NVFAB_REQ_CANCELLED)
		ret = -EINTR;
	else if (req->status)
		ret = req->status;
	else if (sts)
		ret = blk_status_to_errno(sts);
	else
		ret = 0;
out_free:
	blk_mq_free_request(rq);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_submit_sync_cmd);

/**
 * nvfab_identify() - send an Identify command (NVMe Base 2.0, 5.17)
 * @ctrl: the controller
 * @cns: Controller or Namespace Structure
 * @nsid: Namespace ID, or 0
 * @buf: destination, at least @len bytes
 * @len: bytes to transfer (4096 for every CNS nvfab uses)
 *
 * Context: may sleep.
 * Return: see nvfab_submit_sync_cmd().
 */
int nvfab_identify(struct nvfab_ctrl *ctrl, u8 cns, u32 nsid, void *buf,
		   unsigned int len)
{
	struct nvme_command c = { };

	c.identify.opcode = nvme_admin_identify;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = cns;
	return nvfab_submit_sync_cmd(ctrl->admin_q, &c, NULL, buf, len,
				     NVME_QID_ANY, false, 0);
}
EXPORT_SYMBOL_NVFAB(nvfab_identify);

/**
 * nvfab_get_log() - read a log page (NVMe Base 2.0, 5.16)
 * @ctrl: the controller
 * @lid: Log Page Identifier
 * @nsid: Namespace ID, or NVME_NSID_ALL
 * @buf: destination
 * @len: bytes to read, a multiple of 4, at least 4
 * @offset: byte offset into the log page
 *
 * Context: may sleep.
 * Return: see nvfab_submit_sync_cmd(); -EINVAL for a bad @len.
 */
int nvfab_get_log(struct nvfab_ctrl *ctrl, u8 lid, u32 nsid, void *buf,
		  size_t len, u64 offset)
{
	struct nvme_command c = { };
	u32 numd;

	if (len < 4 || len % 4 || len > SZ_16M)
		return -EINVAL;
	numd = len / 4 - 1;
	c.get_log_page.opcode = nvme_admin_get_log_page;
	c.get_log_page.nsid = cpu_to_le32(nsid);
	c.get_log_page.lid = lid;
	c.get_log_page.numdl = cpu_to_le16(numd & 0xffff);
	c.get_log_page.numdu = cpu_to_le16(numd >> 16);
	c.get_log_page.lpo = cpu_to_le64(offset);
	return nvfab_submit_sync_cmd(ctrl->admin_q, &c, NULL, buf, len,
				     NVME_QID_ANY, false, 0);
}
EXPORT_SYMBOL_NVFAB(nvfab_get_log);

/**
 * nvfab_set_features() - send a Set Features command (NVMe Base 2.0, 5.27)
 * @ctrl: the controller
 * @fid: Feature Identifier
 * @dword11: Command Dword 11, the value of the feature
 * @result: where to store CQE Dword 0, or NULL
 *
 * Context: may sleep.
 * Return: see nvfab_submit_sync_cmd().
 */
int nvfab_set_features(struct nvfab_ctrl *ctrl, u8 fid, u32 dword11,
		       u32 *result)
{
	struct nvme_command c = { };
	union nvme_result res = { };
	int ret;

	c.features.opcode = nvme_admin_set_features;
	c.features.fid = cpu_to_le32(fid);
	c.features.dword11 = cpu_to_le32(dword11);
	ret = nvfab_submit_sync_cmd(ctrl->admin_q, &c, &res, NULL, 0,
				    NVME_QID_ANY, false, 0);
	if (result)
		*result = le32_to_cpu(res.u32);
	return ret;
}
