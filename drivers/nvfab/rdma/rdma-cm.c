// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-rdma connection management (NVMe/RDMA Transport Specification
 * 1.1, 3.2 and 3.3): one rdma_cm identifier per queue.
 *
 * A queue connects in three steps, each started from the connecting task
 * and each with its own deadline of NVFAB_RDMA_CM_TIMEOUT_MS: resolve the
 * target's address (from host_traddr when given), resolve the route, then
 * create the QP and connect with the NVMe/RDMA private data (RECFMT, QID,
 * HRQSIZE, HSQSIZE). The CM event handler only records the outcome of the
 * step it was waiting for and wakes the task; a REJECT carries the
 * target's status, decoded and logged by name. A disconnect or address
 * change of a live queue starts the core's error recovery. On device
 * removal the ib_client of rdma.c deletes the controllers on the device;
 * a queue that is still there when rdma_cm reports the removal fails.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/module.h>

#include <nvfab/compat.h>
#include "rdma.h"
#include <nvfab/fabrics.h>

/**
 * nvfab_rdma_cm_req_init() - fill the NVMe/RDMA CM connect private data
 * @priv: the 32-byte private data to fill
 * @qid: the queue ID (0: admin)
 * @hrqsize: Host Receive Queue Size: receive buffers the host posts
 *	     (entries, 1's based)
 * @hsqsize: Host Send Queue Size: the SQ size, 0's based as in the
 *	     Connect command's SQSIZE
 *
 * NVMe/RDMA 1.1, 3.3, Figure 3: RECFMT 0, the rest reserved (zero).
 *
 * Context: any context.
 */
void nvfab_rdma_cm_req_init(struct nvme_rdma_cm_req *priv, u16 qid,
			    u16 hrqsize, u16 hsqsize)
{
	BUILD_BUG_ON(sizeof(struct nvme_rdma_cm_req) != 32);
	BUILD_BUG_ON(sizeof(struct nvme_rdma_cm_rep) != 32);
	BUILD_BUG_ON(sizeof(struct nvme_rdma_cm_rej) != 4);

	memset(priv, 0, sizeof(*priv));
	priv->recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	priv->qid = cpu_to_le16(qid);
	priv->hrqsize = cpu_to_le16(hrqsize);
	priv->hsqsize = cpu_to_le16(hsqsize);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_cm_req_init);

/**
 * nvfab_rdma_cm_status_name() - the name of an NVMe/RDMA CM REJECT status
 * @sts: the STS field of the REJECT private data
 *
 * NVMe/RDMA 1.1, 3.3, Figure 5.
 *
 * Context: any context.
 * Return: a constant string, "unknown status" for values the
 * specification does not define.
 */
const char *nvfab_rdma_cm_status_name(u16 sts)
{
	switch (sts) {
	case NVME_RDMA_CM_INVALID_LEN:
		return "INVALID_LEN (invalid private data length)";
	case NVME_RDMA_CM_INVALID_RECFMT:
		return "INVALID_RECFMT (invalid record format)";
	case NVME_RDMA_CM_INVALID_QID:
		return "INVALID_QID (invalid queue ID)";
	case NVME_RDMA_CM_INVALID_HSQSIZE:
		return "INVALID_HSQSIZE (invalid host send queue size)";
	case NVME_RDMA_CM_INVALID_HRQSIZE:
		return "INVALID_HRQSIZE (invalid host receive queue size)";
	case NVME_RDMA_CM_NO_RSC:
		return "NO_RSC (no resources)";
	case NVME_RDMA_CM_INVALID_IRD:
		return "INVALID_IRD (invalid IRD)";
	case NVME_RDMA_CM_INVALID_ORD:
		return "INVALID_ORD (invalid ORD)";
	case NVME_RDMA_CM_INVALID_CNTLID:
		return "INVALID_CNTLID (invalid controller ID)";
	default:
		return "unknown status";
	}
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_cm_status_name);

/**
 * nvfab_rdma_cm_decode_reject() - check and decode REJECT private data
 * @data: the consumer private data of the REJECT (untrusted), or NULL
 * @len: its length in bytes
 * @sts: set to the STS field on success
 *
 * NVMe/RDMA 1.1, 3.3, Figure 4: RECFMT 0 and STS, 4 bytes at least (the
 * CM pads private data, so more is allowed).
 *
 * Context: any context.
 * Return: 0; -ENODATA when there is no NVMe/RDMA private data (the reject
 * came from the CM or the transport, not from NVMe: a consumer-defined
 * reject that carries no data arrives as zeros, and STS 0 is not a status);
 * -EPROTO when RECFMT is not 0.
 */
int nvfab_rdma_cm_decode_reject(const void *data, u8 len, u16 *sts)
{
	const struct nvme_rdma_cm_rej *rej = data;

	if (!data || len < sizeof(*rej))
		return -ENODATA;
	if (le16_to_cpu(rej->recfmt) != NVME_RDMA_CM_FMT_1_0)
		return -EPROTO;
	if (!rej->sts)
		return -ENODATA;
	*sts = le16_to_cpu(rej->sts);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_cm_decode_reject);

static void nvfab_rdma_cm_rejected(struct nvfab_rdma_queue *queue,
				   struct rdma_cm_event *ev)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	struct rdma_cm_id *id = queue->cm_id;
	const void *data;
	u8 len = 0;
	u16 sts;
	int ret;

	data = rdma_consumer_reject_data(id, ev, &len);
	ret = nvfab_rdma_cm_decode_reject(data, len, &sts);
	if (!ret)
		dev_err(ctrl->device, "queue %d: connect rejected by the target: status %u %s\n",
			queue->qid, sts, nvfab_rdma_cm_status_name(sts));
	else if (ret == -EPROTO)
		dev_err(ctrl->device, "queue %d: connect rejected, REJECT private data with RECFMT %u\n",
			queue->qid, le16_to_cpu(((const struct nvme_rdma_cm_rej *)data)->recfmt));
	else
		dev_err(ctrl->device, "queue %d: connect rejected: %s (CM status %d)\n",
			queue->qid, rdma_reject_msg(id, ev->status),
			ev->status);
}

/* The outcome of a step: wake the connecting task once. */
static void nvfab_rdma_cm_step_done(struct nvfab_rdma_queue *queue, int error)
{
	queue->cm_error = error;
	complete(&queue->cm_done);
}

static int nvfab_rdma_cm_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	struct nvfab_rdma_queue *queue = id->context;
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		nvfab_rdma_cm_step_done(queue, ev->event == queue->cm_step ?
					0 : -EPROTO);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		dev_err(ctrl->device, "queue %d: address resolution failed: %d\n",
			queue->qid, ev->status);
		nvfab_rdma_cm_step_done(queue, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		dev_err(ctrl->device, "queue %d: route resolution failed: %d\n",
			queue->qid, ev->status);
		nvfab_rdma_cm_step_done(queue, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		dev_err(ctrl->device, "queue %d: connect failed (CM event %s): %d\n",
			queue->qid, rdma_event_msg(ev->event), ev->status);
		nvfab_rdma_cm_step_done(queue, -ECONNRESET);
		break;
	case RDMA_CM_EVENT_REJECTED:
		nvfab_rdma_cm_rejected(queue, ev);
		nvfab_rdma_cm_step_done(queue, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/*
		 * Our own disconnect (stop_queue) leaves the live states
		 * first; a controller being reset or deleted is torn down
		 * already, and the target disconnects its queues when it
		 * shuts down.
		 */
		if (nvfab_queue_live(ctrl, queue->qid) &&
		    (nvfab_ctrl_state(ctrl) == NVFAB_CTRL_LIVE ||
		     nvfab_ctrl_state(ctrl) == NVFAB_CTRL_CONNECTING))
			nvfab_rdma_queue_error(queue, "%s",
					       rdma_event_msg(ev->event));
		else
			dev_dbg(ctrl->device, "queue %d: %s\n", queue->qid,
				rdma_event_msg(ev->event));
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * rdma_cm waits until this CM ID is destroyed before the
		 * device goes. The ib_client's remove has deleted the
		 * controllers it could; one still in its first connect, or
		 * one that started on the device since, must let go too:
		 * a step waited for fails, a connected queue fails (error
		 * recovery, or fail_work while the controller connects), and
		 * the queue's teardown destroys the CM ID.
		 */
		dev_warn(ctrl->device, "queue %d: RDMA device %s removed\n",
			 queue->qid, dev_name(&id->device->dev));
		nvfab_rdma_cm_step_done(queue, -ENODEV);
		nvfab_rdma_queue_error(queue, "RDMA device removed");
		break;
	default:
		dev_dbg(ctrl->device, "queue %d: CM event %s ignored\n",
			queue->qid, rdma_event_msg(ev->event));
		break;
	}
	return 0;
}

/*
 * Wait for the step begun with @ret == 0 to report @expect; @what names
 * the step in the log.
 */
static int nvfab_rdma_cm_wait(struct nvfab_rdma_queue *queue, int ret,
			      const char *what)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	unsigned long left, tmo = msecs_to_jiffies(NVFAB_RDMA_CM_TIMEOUT_MS * 2);

	if (ret == -ECONNREFUSED) {
		/* iWARP connects over TCP at once: a reset from the peer */
		dev_err(ctrl->device, "queue %d: %s refused: nothing listens at the address\n",
			queue->qid, what);
		return ret;
	}
	if (ret) {
		dev_err(ctrl->device, "queue %d: %s failed to start: %d\n",
			queue->qid, what, ret);
		return ret;
	}
	/* The CM gives up after its own timeout; this is a last resort. */
	left = wait_for_completion_timeout(&queue->cm_done, tmo);
	if (!left) {
		dev_err(ctrl->device, "queue %d: %s timed out after %u ms\n",
			queue->qid, what, NVFAB_RDMA_CM_TIMEOUT_MS * 2);
		return -ETIMEDOUT;
	}
	if (queue->cm_error == -EPROTO)
		dev_err(ctrl->device, "queue %d: unexpected CM event during %s\n",
			queue->qid, what);
	return queue->cm_error;
}

static void nvfab_rdma_cm_begin(struct nvfab_rdma_queue *queue,
				enum rdma_cm_event_type step)
{
	reinit_completion(&queue->cm_done);
	queue->cm_error = 0;
	queue->cm_step = step;
}

/**
 * nvfab_rdma_cm_connect() - connect a queue through rdma_cm
 * @queue: the queue, with qid, queue_size and ctrl set and no CM ID
 *
 * Resolves the address and route, creates the QP (nvfab_rdma_create_qp())
 * and connects with the NVMe/RDMA private data (NVMe/RDMA 1.1, 3.3).
 * Each step waits at most NVFAB_RDMA_CM_TIMEOUT_MS (twice that as a
 * last resort if the CM stays silent).
 *
 * Context: process context; sleeps. Called with queue->queue_lock held.
 * Return: 0 with the queue connected; -ENOMEM; -EHOSTUNREACH when the
 * address or route cannot be resolved; -ECONNREFUSED when the target
 * rejects the connection (its status is logged by name); -ECONNRESET on
 * another connect error; -ETIMEDOUT when a step does not finish; -ENODEV
 * when the RDMA device is removed meanwhile; an errno of rdma_cm or the
 * QP creation. On failure nothing is left.
 */
int nvfab_rdma_cm_connect(struct nvfab_rdma_queue *queue)
{
	struct nvfab_rdma_ctrl *rctrl = queue->ctrl;
	struct nvfab_ctrl_options *opts = rctrl->ctrl.opts;
	struct rdma_conn_param param = { };
	struct nvme_rdma_cm_req priv;
	struct sockaddr *src = NULL;
	int ret;

	lockdep_assert_held(&queue->queue_lock);
	init_completion(&queue->cm_done);
	queue->cm_id = rdma_create_id(&init_net, nvfab_rdma_cm_handler, queue,
				      RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(queue->cm_id)) {
		ret = PTR_ERR(queue->cm_id);
		queue->cm_id = NULL;
		dev_err(rctrl->ctrl.device, "queue %d: rdma_create_id failed: %d\n",
			queue->qid, ret);
		return ret;
	}
	if (opts->tos >= 0)
		rdma_set_service_type(queue->cm_id, opts->tos);
	if (opts->host_traddr)
		src = (struct sockaddr *)&rctrl->src_addr;

	nvfab_rdma_cm_begin(queue, RDMA_CM_EVENT_ADDR_RESOLVED);
	ret = rdma_resolve_addr(queue->cm_id, src,
				(struct sockaddr *)&rctrl->addr,
				NVFAB_RDMA_CM_TIMEOUT_MS);
	ret = nvfab_rdma_cm_wait(queue, ret, "address resolution");
	if (ret)
		goto out_destroy_id;

	nvfab_rdma_cm_begin(queue, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ret = rdma_resolve_route(queue->cm_id, NVFAB_RDMA_CM_TIMEOUT_MS);
	ret = nvfab_rdma_cm_wait(queue, ret, "route resolution");
	if (ret)
		goto out_destroy_id;

	ret = nvfab_rdma_create_qp(queue);
	if (ret)
		goto out_destroy_id;

	/* HSQSIZE is 0's based, like the Connect command's SQSIZE. */
	nvfab_rdma_cm_req_init(&priv, queue->qid, queue->queue_size,
			       queue->queue_size - 1);
	param.private_data = &priv;
	param.private_data_len = sizeof(priv);
	param.flow_control = 1;
	param.qp_num = queue->qp->qp_num;
	param.responder_resources = queue->device->dev->attrs.max_qp_rd_atom;
	/* A keyed data block is read or written by the target, never us. */
	param.initiator_depth = 0;
	param.retry_count = 7;
	param.rnr_retry_count = 7;

	nvfab_rdma_cm_begin(queue, RDMA_CM_EVENT_ESTABLISHED);
	ret = rdma_connect(queue->cm_id, &param);
	ret = nvfab_rdma_cm_wait(queue, ret, "connect");
	if (ret)
		goto out_destroy_qp;
	return 0;

out_destroy_qp:
	nvfab_rdma_destroy_qp(queue);
	nvfab_rdma_cm_destroy(queue);
	return ret;
out_destroy_id:
	nvfab_rdma_cm_destroy(queue);
	return ret;
}

/**
 * nvfab_rdma_cm_disconnect() - start an orderly disconnect of a queue
 * @queue: a connected queue
 *
 * Context: process context; may sleep.
 */
void nvfab_rdma_cm_disconnect(struct nvfab_rdma_queue *queue)
{
	if (queue->cm_id)
		rdma_disconnect(queue->cm_id);
}

/**
 * nvfab_rdma_cm_destroy() - destroy a queue's CM ID
 * @queue: the queue
 *
 * Waits for a running CM handler; no event is delivered after it returns.
 *
 * Context: process context; sleeps. Must not be called from the queue's
 * own CM handler.
 */
void nvfab_rdma_cm_destroy(struct nvfab_rdma_queue *queue)
{
	if (queue->cm_id) {
		rdma_destroy_id(queue->cm_id);
		queue->cm_id = NULL;
	}
}
