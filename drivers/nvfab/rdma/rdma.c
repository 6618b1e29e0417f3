// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-rdma: the NVMe/RDMA transport (NVMe/RDMA Transport Specification
 * 1.1, NVMe over Fabrics 1.1).
 *
 * Each queue is one reliable-connected QP with its own CQ (softirq
 * completions; direct polling by blk_mq_ops.poll for poll queues),
 * connected by rdma-cm.c, and its own protection domain: an rkey is good
 * only on the QP of the queue that gave it to the target, and on nothing
 * once that QP has failed or stopped. The devices are kept in a small
 * refcounted list, and the tag sets are placed on the device's NUMA node.
 *
 * A command is one SEND of its capsule (the SQE, then in-capsule data
 * from the request's pages), preceded for a keyed data block by the
 * REG_MR of its FRWR MR (rdma-sgl.c). The target answers with a SEND of
 * a response capsule into one of the receive buffers the queue keeps
 * posted, optionally invalidating the MR's rkey. A request completes when
 * the SEND's completion, the response and, for an MR not invalidated by
 * the target, the host's LOCAL_INV completion have all arrived (a
 * refcount); only then are its SQE and data buffers free again. A request
 * never completes while its MR's rkey may be valid: when the LOCAL_INV
 * fails or is flushed, or the request is cancelled, the queue's stop
 * deregisters the MR first (nvfab_rdma_retire_mrs()).
 *
 * The target is untrusted: a response shorter than a CQE, one whose CID
 * names no command in flight (nvfab_find_rq(): never sent, completed
 * already, or the generation of an earlier use of the tag), a second
 * response for the same command, or a remote invalidation of an rkey
 * other than the command's MR is a protocol error; so is any work
 * completion error but a flush. Each tears the controller down into the
 * core's error recovery.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>

#include <nvfab/compat.h>
#include "rdma.h"
#include <nvfab/fabrics.h>

#define NVFAB_RDMA_PORT		"4420"
/* CID of the Asynchronous Event Request: beyond every admin tag. */
#define NVFAB_RDMA_AEN_CID	NVME_AQ_BLK_MQ_DEPTH
/* Work requests per command: REG_MR, SEND, LOCAL_INV. */
#define NVFAB_RDMA_WR_PER_CMD	3

static LIST_HEAD(nvfab_rdma_dev_list);
static DEFINE_MUTEX(nvfab_rdma_dev_mutex);	/* protects the list above */
static LIST_HEAD(nvfab_rdma_ctrl_list);
static DEFINE_MUTEX(nvfab_rdma_ctrl_mutex);	/* protects the list above */

static struct workqueue_struct *nvfab_rdma_wq;

/*
 * May the queue act on a receive completion? While it starts (a CQE before
 * the Connect is checked, and refused, on arrival) and while it is live;
 * not once it failed or stopped.
 */
static bool nvfab_rdma_receiving(struct nvfab_rdma_queue *queue)
{
	enum nvfab_queue_state s = nvfab_queue_state(&queue->ctrl->ctrl,
						     queue->qid);

	return s == NVFAB_QUEUE_STARTING || s == NVFAB_QUEUE_LIVE ||
	       s == NVFAB_QUEUE_CONNECTED;
}

/* ---- devices ---- */

/*
 * &nvfab_peer_dma_dev.fence: the peer memory a request maps was revoked
 * (the GPU memory is being freed). Failing the request's queue stops it:
 * the QP is drained and the MRs of its requests are deregistered before
 * the requests are cancelled and unmapped (nvfab_rdma_stop_queue()), so
 * the target can no longer write the memory through a stale rkey. The
 * request is then retried, and refused (-EKEYREVOKED).
 * Context: any (nvfab_peer_revoke(), under the claim's spinlock).
 */
static void nvfab_rdma_peer_fence(struct nvfab_peer_map *map)
{
	struct nvfab_rdma_request *req =
		container_of(map, struct nvfab_rdma_request, peer);

	nvfab_rdma_queue_error(req->queue,
			       "revoked peer memory in flight: stopping the queue to invalidate its MRs");
}

static void nvfab_rdma_free_dev(struct kref *ref)
{
	struct nvfab_rdma_device *dev = container_of(ref,
					struct nvfab_rdma_device, ref);

	lockdep_assert_held(&nvfab_rdma_dev_mutex);
	list_del(&dev->entry);
	kfree_rcu(dev, rcu);
}

static void nvfab_rdma_dev_put(struct nvfab_rdma_device *dev)
{
	mutex_lock(&nvfab_rdma_dev_mutex);
	kref_put(&dev->ref, nvfab_rdma_free_dev);
	mutex_unlock(&nvfab_rdma_dev_mutex);
}

/* @ibdev's entry in the device list, shared by every queue on it. */
static struct nvfab_rdma_device *nvfab_rdma_dev_get(struct ib_device *ibdev)
{
	struct nvfab_rdma_device *dev;

	mutex_lock(&nvfab_rdma_dev_mutex);
	list_for_each_entry(dev, &nvfab_rdma_dev_list, entry) {
		if (dev->dev == ibdev && kref_get_unless_zero(&dev->ref))
			goto out_unlock;
	}
	dev = ERR_PTR(-EOPNOTSUPP);
	if (!(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		pr_err("%s: no memory management extensions (FRWR)\n",
		       dev_name(&ibdev->dev));
		goto out_unlock;
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		dev = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	dev->dev = ibdev;
	kref_init(&dev->ref);
	dev->num_inline_segments = min_t(u32, NVFAB_RDMA_MAX_INLINE_SEGS,
					 ibdev->attrs.max_send_sge - 1);
	dev->max_fr_pages = min_t(u32, NVFAB_RDMA_MAX_SEGMENTS,
				  ibdev->attrs.max_fast_reg_page_list_len);
	/* rxe and siw move data with the CPU: no DMA device */
	dev->peer_dma.dev = ib_uses_virt_dma(ibdev) ? NULL : ibdev->dma_device;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	dev->peer_dma.name = dev->name;
	dev->peer_dma.fence = nvfab_rdma_peer_fence;
	list_add(&dev->entry, &nvfab_rdma_dev_list);
out_unlock:
	mutex_unlock(&nvfab_rdma_dev_mutex);
	return dev;
}

/* ---- errors ---- */

/**
 * nvfab_rdma_queue_error() - a queue broke the protocol or the link
 * @queue: the queue
 * @fmt: what happened, printf style
 *
 * Logs the reason once per queue start, then starts the core's error
 * recovery; a controller still connecting has the queue failed instead,
 * so that its setup unwinds at once.
 *
 * Context: any context (CQ softirq, CM handler, blk-mq).
 */
void nvfab_rdma_queue_error(struct nvfab_rdma_queue *queue, const char *fmt,
			    ...)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	va_list args;
	bool first;

	/* the first error of the queue is reported and acted on, once */
	va_start(args, fmt);
	first = nvfab_fail_queue_va(ctrl, queue->qid, fmt, args);
	va_end(args);
	if (!first)
		return;
	if (nvfab_error_recovery(ctrl))
		return;
	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_NEW:
	case NVFAB_CTRL_CONNECTING:
		queue_work(nvfab_rdma_wq, &queue->fail_work);
		break;
	default:
		break;
	}
}

/**
 * nvfab_rdma_check_rsp() - may a response capsule complete its command?
 * @found: the CID names a command in flight (nvfab_find_rq())
 * @responded: that command already had a response
 * @with_inv: the response came with Send with Invalidate
 * @mr: the command's MR, or NULL
 * @inv_rkey: the rkey the target invalidated (with @with_inv)
 * @why: set to the reason on failure
 *
 * NVMe/RDMA 1.1, 3.4 and 3.5: one response per command, and a remote
 * invalidation only of the rkey the command's keyed SGL carried.
 *
 * Context: any context.
 * Return: 0, or -EPROTO.
 */
int nvfab_rdma_check_rsp(bool found, bool responded, bool with_inv,
			 const struct ib_mr *mr, u32 inv_rkey,
			 const char **why)
{
	*why = NULL;
	if (!found)
		*why = "names no command in flight";
	else if (responded)
		*why = "is a second response to its command";
	else if (with_inv && !mr)
		*why = "invalidates an rkey but the command has no MR";
	else if (with_inv && mr->rkey != inv_rkey)
		*why = "invalidates an rkey other than the command's";
	return *why ? -EPROTO : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_check_rsp);

/**
 * nvfab_rdma_wc_is_error() - does a completion status break the queue?
 * @status: the work completion's status
 * @live: the queue is live (nvfab_queue_live())
 *
 * Any error does; a flush (the QP left RTS) does only while the queue is
 * live: stopping a queue leaves the live states before it flushes.
 *
 * Context: any context.
 * Return: true when @status must start error recovery.
 */
bool nvfab_rdma_wc_is_error(enum ib_wc_status status, bool live)
{
	if (status == IB_WC_SUCCESS)
		return false;
	return status != IB_WC_WR_FLUSH_ERR || live;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_wc_is_error);

/* ---- completions ---- */

/* Drop one of the completions a request waits for; the last completes it. */
static void nvfab_rdma_put_req(struct nvfab_rdma_request *req)
{
	struct request *rq = blk_mq_rq_from_pdu(req);

	if (refcount_dec_and_test(&req->ref))
		nvfab_try_complete_req(rq, req->status, req->result);
}

/**
 * nvfab_rdma_wc_ok() - check the status of a work completion
 * @queue: the queue the work request was posted on
 * @wc: the completion
 * @what: the work request, for the log ("send", "receive", ...)
 *
 * An error status starts the queue's error recovery. A flush means that
 * the QP has left RTS: expected while the queue is stopped (which leaves
 * the live states first), a failure of the link or the device otherwise,
 * whose cause may have been reported on another work request or only as a
 * QP event.
 *
 * Context: CQ polling context (softirq, or the poller for IB_POLL_DIRECT).
 * Return: true when @wc succeeded.
 */
bool nvfab_rdma_wc_ok(struct nvfab_rdma_queue *queue, struct ib_wc *wc,
		      const char *what)
{
	if (likely(wc->status == IB_WC_SUCCESS))
		return true;
	if (nvfab_rdma_wc_is_error(wc->status,
				   nvfab_queue_live(&queue->ctrl->ctrl,
						    queue->qid)))
		nvfab_rdma_queue_error(queue, "%s failed: %s (%d)", what,
				       ib_wc_status_msg(wc->status),
				       wc->status);
	return false;
}

static void nvfab_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvfab_rdma_qe *qe = container_of(wc->wr_cqe,
						struct nvfab_rdma_qe, cqe);
	struct nvfab_rdma_request *req = container_of(qe,
					struct nvfab_rdma_request, sqe);

	nvfab_rdma_wc_ok(req->queue, wc, "send");
	nvfab_rdma_put_req(req);
}

static void nvfab_rdma_aer_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	nvfab_rdma_wc_ok(cq->cq_context, wc, "AER send");
}

static void nvfab_rdma_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvfab_rdma_request *req = container_of(wc->wr_cqe,
					struct nvfab_rdma_request, inv_cqe);

	if (!nvfab_rdma_wc_ok(req->queue, wc, "local invalidate")) {
		/*
		 * The rkey may still be valid: the request keeps its last
		 * reference until the queue's stop has deregistered the MR.
		 * A failed or flushed work request means the QP is in the
		 * error state, so the queue stops (error recovery).
		 */
		req->inv_failed = true;
		return;
	}
	nvfab_rdma_put_req(req);
}

static int nvfab_rdma_post_recv(struct nvfab_rdma_queue *queue,
				struct nvfab_rdma_qe *qe)
{
	struct ib_sge sge = {
		.addr	= qe->dma,
		.length	= sizeof(struct nvme_completion),
		.lkey	= queue->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &qe->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	return ib_post_recv(queue->qp, &wr, NULL);
}

static int nvfab_rdma_local_inv(struct nvfab_rdma_queue *queue,
				struct nvfab_rdma_request *req)
{
	struct ib_send_wr wr = {
		.opcode			= IB_WR_LOCAL_INV,
		.send_flags		= IB_SEND_SIGNALED,
		.wr_cqe			= &req->inv_cqe,
		.ex.invalidate_rkey	= req->mr->rkey,
	};

	return ib_post_send(queue->qp, &wr, NULL);
}

static void nvfab_rdma_process_rsp(struct nvfab_rdma_queue *queue,
				   struct nvme_completion *cqe,
				   struct ib_wc *wc)
{
	struct nvfab_rdma_ctrl *rctrl = queue->ctrl;
	bool with_inv = wc->wc_flags & IB_WC_WITH_INVALIDATE;
	struct nvfab_rdma_request *req = NULL;
	u16 cid = cqe->command_id;
	struct request *rq;
	const char *why;

	if (queue->qid == 0 && cid == NVFAB_RDMA_AEN_CID) {
		if (!READ_ONCE(rctrl->aer_outstanding) || with_inv) {
			nvfab_rdma_queue_error(queue, "unexpected AER response (CID 0x%x)",
					       cid);
			return;
		}
		WRITE_ONCE(rctrl->aer_outstanding, false);
		nvfab_complete_async_event(&rctrl->ctrl, cqe->status,
					   &cqe->result);
		return;
	}
	rq = nvfab_find_rq(nvfab_queue_tags(&queue->ctrl->ctrl, queue->qid),
			   cid);
	if (rq)
		req = blk_mq_rq_to_pdu(rq);
	if (nvfab_rdma_check_rsp(rq, req && req->responded, with_inv,
				 req ? req->mr : NULL, wc->ex.invalidate_rkey,
				 &why)) {
		nvfab_rdma_queue_error(queue, "response for CID 0x%x %s",
				       cid, why);
		return;
	}
	req->responded = true;
	req->status = cqe->status;
	req->result = cqe->result;
	if (req->mr && !with_inv) {
		/* Our reference moves to the LOCAL_INV's completion. */
		if (nvfab_rdma_local_inv(queue, req)) {
			nvfab_rdma_queue_error(queue, "posting LOCAL_INV for CID 0x%x failed",
					       cid);
			return;
		}
		return;
	}
	nvfab_rdma_put_req(req);
}

static void nvfab_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvfab_rdma_qe *qe = container_of(wc->wr_cqe,
						struct nvfab_rdma_qe, cqe);
	struct nvfab_rdma_queue *queue = cq->cq_context;
	struct ib_device *ibdev = queue->device->dev;

	if (!nvfab_rdma_wc_ok(queue, wc, "receive"))
		return;
	if (!nvfab_rdma_receiving(queue))
		return;
	if (wc->byte_len < sizeof(struct nvme_completion)) {
		nvfab_rdma_queue_error(queue, "response capsule of %u bytes",
				       wc->byte_len);
		return;
	}
	ib_dma_sync_single_for_cpu(ibdev, qe->dma,
				   sizeof(struct nvme_completion),
				   DMA_FROM_DEVICE);
	nvfab_rdma_process_rsp(queue, qe->data, wc);
	ib_dma_sync_single_for_device(ibdev, qe->dma,
				      sizeof(struct nvme_completion),
				      DMA_FROM_DEVICE);
	if (nvfab_rdma_post_recv(queue, qe))
		nvfab_rdma_queue_error(queue, "reposting a receive failed");
}

/* ---- queue resources ---- */

/*
 * Asynchronous QP events (IBA 11.6.3): the affiliated errors put the QP in
 * the error state, so the queue is recovered at once instead of waiting
 * for its flushed completions or for keep-alive. Called by the provider in
 * any context, up to the QP's destruction.
 */
static void nvfab_rdma_qp_event(struct ib_event *ev, void *context)
{
	struct nvfab_rdma_queue *queue = context;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		nvfab_rdma_queue_error(queue, "QP event: %s",
				       ib_event_msg(ev->event));
		break;
	default:
		dev_dbg(queue->ctrl->ctrl.device, "queue %d: QP event %s\n",
			queue->qid, ib_event_msg(ev->event));
		break;
	}
}

static int nvfab_rdma_alloc_qe(struct ib_device *ibdev,
			       struct nvfab_rdma_qe *qe, size_t len,
			       enum dma_data_direction dir)
{
	qe->data = kzalloc(len, GFP_KERNEL);
	if (!qe->data)
		return -ENOMEM;
	qe->dma = ib_dma_map_single(ibdev, qe->data, len, dir);
	if (ib_dma_mapping_error(ibdev, qe->dma)) {
		kfree(qe->data);
		qe->data = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void nvfab_rdma_free_qe(struct ib_device *ibdev,
			       struct nvfab_rdma_qe *qe, size_t len,
			       enum dma_data_direction dir)
{
	if (!qe->data)
		return;
	ib_dma_unmap_single(ibdev, qe->dma, len, dir);
	kfree(qe->data);
	qe->data = NULL;
}

static void nvfab_rdma_free_rsp_ring(struct nvfab_rdma_queue *queue)
{
	u32 i;

	if (!queue->rsp_ring)
		return;
	for (i = 0; i < queue->queue_size; i++)
		nvfab_rdma_free_qe(queue->device->dev, &queue->rsp_ring[i],
				   sizeof(struct nvme_completion),
				   DMA_FROM_DEVICE);
	kfree(queue->rsp_ring);
	queue->rsp_ring = NULL;
}

static int nvfab_rdma_alloc_rsp_ring(struct nvfab_rdma_queue *queue)
{
	u32 i;
	int ret;

	queue->rsp_ring = kcalloc_node(queue->queue_size,
				       sizeof(*queue->rsp_ring), GFP_KERNEL,
				       ibdev_to_node(queue->device->dev));
	if (!queue->rsp_ring)
		return -ENOMEM;
	for (i = 0; i < queue->queue_size; i++) {
		struct nvfab_rdma_qe *qe = &queue->rsp_ring[i];

		ret = nvfab_rdma_alloc_qe(queue->device->dev, qe,
					  sizeof(struct nvme_completion),
					  DMA_FROM_DEVICE);
		if (ret)
			goto out_free;
		qe->cqe.done = nvfab_rdma_recv_done;
	}
	return 0;

out_free:
	nvfab_rdma_free_rsp_ring(queue);
	return ret;
}

/* A poll queue: past the read and write queues. */
static bool nvfab_rdma_poll_queue(struct nvfab_rdma_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;

	return queue->qid > ctrl->nr_read_queues + ctrl->nr_write_queues;
}

/**
 * nvfab_rdma_create_qp() - create a queue's PD, CQ, QP and MRs
 * @queue: the queue; its CM ID has a resolved route (and so a device)
 *
 * Sizes: @queue->queue_size receive buffers, 3 send work requests per
 * command (REG_MR, SEND, LOCAL_INV) plus one for the AER and one for the
 * drain, and one FRWR MR per command. The PD is the queue's own, so that
 * the rkeys it hands out are good on its QP only.
 *
 * Context: process context; may sleep. Called with queue->queue_lock.
 * Return: 0; -EOPNOTSUPP when the device lacks FRWR; -ENOMEM; an errno of
 * the verbs. On failure nothing is left.
 */
int nvfab_rdma_create_qp(struct nvfab_rdma_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	struct ib_device *ibdev = queue->cm_id->device;
	struct ib_qp_init_attr attr = { };
	u32 send_wr, recv_wr;
	int ret, i;

	queue->device = nvfab_rdma_dev_get(ibdev);
	if (IS_ERR(queue->device)) {
		ret = PTR_ERR(queue->device);
		queue->device = NULL;
		return ret;
	}
	queue->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(queue->pd)) {
		ret = PTR_ERR(queue->pd);
		queue->pd = NULL;
		goto out_put_dev;
	}
	send_wr = queue->queue_size * NVFAB_RDMA_WR_PER_CMD + 2;
	recv_wr = queue->queue_size + 1;
	queue->poll = queue->qid && nvfab_rdma_poll_queue(queue);
	queue->cq = ib_alloc_cq(ibdev, queue, send_wr + recv_wr,
				queue->qid ? (queue->qid - 1) %
					     ibdev->num_comp_vectors : 0,
				queue->poll ? IB_POLL_DIRECT : IB_POLL_SOFTIRQ);
	if (IS_ERR(queue->cq)) {
		ret = PTR_ERR(queue->cq);
		queue->cq = NULL;
		goto out_dealloc_pd;
	}

	attr.event_handler = nvfab_rdma_qp_event;
	attr.qp_context = queue;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = recv_wr;
	attr.cap.max_send_sge = 1 + queue->device->num_inline_segments;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = queue->cq;
	attr.recv_cq = queue->cq;
	ret = rdma_create_qp(queue->cm_id, queue->pd, &attr);
	if (ret) {
		dev_err(ctrl->device, "queue %d: creating the QP failed: %d\n",
			queue->qid, ret);
		goto out_free_cq;
	}
	queue->qp = queue->cm_id->qp;

	ret = ib_mr_pool_init(queue->qp, &queue->qp->rdma_mrs,
			      queue->queue_size, IB_MR_TYPE_MEM_REG,
			      queue->device->max_fr_pages, 0);
	if (ret) {
		dev_err(ctrl->device, "queue %d: allocating %u MRs failed: %d\n",
			queue->qid, queue->queue_size, ret);
		goto out_destroy_qp;
	}
	ret = nvfab_rdma_alloc_rsp_ring(queue);
	if (ret)
		goto out_destroy_mrs;
	for (i = 0; i < queue->queue_size; i++) {
		ret = nvfab_rdma_post_recv(queue, &queue->rsp_ring[i]);
		if (ret) {
			dev_err(ctrl->device, "queue %d: posting receives failed: %d\n",
				queue->qid, ret);
			goto out_free_ring;
		}
	}
	if (!queue->qid)
		rcu_assign_pointer(queue->ctrl->peer_dev, queue->device);
	return 0;

out_free_ring:
	/* posted receives flush when the QP is destroyed: drain them first */
	ib_drain_qp(queue->qp);
	nvfab_rdma_free_rsp_ring(queue);
out_destroy_mrs:
	ib_mr_pool_destroy(queue->qp, &queue->qp->rdma_mrs);
out_destroy_qp:
	rdma_destroy_qp(queue->cm_id);
	queue->qp = NULL;
out_free_cq:
	ib_free_cq(queue->cq);
	queue->cq = NULL;
out_dealloc_pd:
	ib_dealloc_pd(queue->pd);
	queue->pd = NULL;
out_put_dev:
	nvfab_rdma_dev_put(queue->device);
	queue->device = NULL;
	return ret;
}

/**
 * nvfab_rdma_destroy_qp() - undo nvfab_rdma_create_qp()
 * @queue: the queue, drained (or never connected), with its CM ID
 *
 * The CM ID goes after this (nvfab_rdma_cm_destroy()): it is what holds
 * the RDMA device for the queue. On device removal, rdma_cm waits for
 * every CM ID on the device to be destroyed before the device goes, so
 * the MRs, QP, CQ and PD must be gone by then.
 *
 * Context: process context; may sleep.
 */
void nvfab_rdma_destroy_qp(struct nvfab_rdma_queue *queue)
{
	if (!queue->qp)
		return;
	if (!queue->qid)
		RCU_INIT_POINTER(queue->ctrl->peer_dev, NULL);
	ib_mr_pool_destroy(queue->qp, &queue->qp->rdma_mrs);
	ib_mr_pool_destroy(queue->qp, &queue->retired_mrs);
	rdma_destroy_qp(queue->cm_id);
	queue->qp = NULL;
	nvfab_rdma_free_rsp_ring(queue);
	ib_free_cq(queue->cq);
	queue->cq = NULL;
	ib_dealloc_pd(queue->pd);
	queue->pd = NULL;
	nvfab_rdma_dev_put(queue->device);
	queue->device = NULL;
}

/* ---- queue start and stop ---- */

static void nvfab_rdma_stop_queue(struct nvfab_ctrl *ctrl, int qid);

static bool nvfab_rdma_cancel_queue_rq(struct request *rq, void *data)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);

	if (req->queue == data)
		nvfab_cancel_request(rq, NULL);
	return true;
}

/*
 * Stop a queue that failed while its controller connects and cancel its
 * commands: they complete with a host abort status and setup unwinds.
 */
static void nvfab_rdma_fail_queue_work(struct work_struct *work)
{
	struct nvfab_rdma_queue *queue = container_of(work,
				struct nvfab_rdma_queue, fail_work);
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	int qid = queue->qid;

	nvfab_rdma_stop_queue(ctrl, qid);
	if (!qid && ctrl->admin_tagset_live)
		blk_mq_tagset_busy_iter(&ctrl->admin_tagset,
					nvfab_rdma_cancel_queue_rq, queue);
	else if (ctrl->tagset_live)
		blk_mq_tagset_busy_iter(&ctrl->tagset,
					nvfab_rdma_cancel_queue_rq, queue);
}

/* The tag set whose requests go out on @queue, or NULL when it is gone. */
static struct blk_mq_tag_set *nvfab_rdma_tagset(struct nvfab_rdma_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;

	if (!queue->qid)
		return ctrl->admin_tagset_live ? &ctrl->admin_tagset : NULL;
	return READ_ONCE(ctrl->tagset_live) ? &ctrl->tagset : NULL;
}

static bool nvfab_rdma_retire_rq_mr(struct request *rq, void *data)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvfab_rdma_queue *queue = data;

	if (req->queue == queue)
		nvfab_rdma_retire_mr(queue, req);
	return true;
}

static bool nvfab_rdma_complete_inv_failed(struct request *rq, void *data)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);

	if (req->queue == data && req->inv_failed) {
		req->inv_failed = false;
		nvfab_rdma_put_req(req);
	}
	return true;
}

/*
 * Called by the stop of a queue once its QP is drained (no work request
 * of it is left, no completion handler runs): every request still in
 * flight on the queue holds its MR with an rkey that may be valid (no
 * response, or its LOCAL_INV failed or was flushed). Deregister those
 * MRs, so that the rkeys die before any of these requests completes and
 * gives its pages back, then complete the requests whose response had
 * arrived and that waited only for their invalidation. The others are
 * cancelled by the caller of the stop.
 */
static void nvfab_rdma_retire_mrs(struct nvfab_rdma_queue *queue)
{
	struct blk_mq_tag_set *set = nvfab_rdma_tagset(queue);

	if (set)
		blk_mq_tagset_busy_iter(set, nvfab_rdma_retire_rq_mr, queue);
	if (!list_empty(&queue->retired_mrs))
		dev_dbg(queue->ctrl->ctrl.device,
			"queue %d: deregistering the MRs of requests in flight\n",
			queue->qid);
	ib_mr_pool_destroy(queue->qp, &queue->retired_mrs);
	if (set)
		blk_mq_tagset_busy_iter(set, nvfab_rdma_complete_inv_failed,
					queue);
}

/* Transfer limits of the device, for the core's queue limits. */
static void nvfab_rdma_set_limits(struct nvfab_rdma_ctrl *rctrl,
				  struct nvfab_rdma_device *dev)
{
	struct nvfab_ctrl *ctrl = &rctrl->ctrl;

	/* One page of the MR may be a partial first page. */
	ctrl->max_segments = dev->max_fr_pages - 1;
	ctrl->max_transfer_sectors = (dev->max_fr_pages - 1) <<
				     (12 - SECTOR_SHIFT);
	ctrl->virt_boundary_mask = SZ_4K - 1;
	ctrl->numa_node = ibdev_to_node(dev->dev);
}

static int nvfab_rdma_start_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_rdma_ctrl *rctrl = to_rdma_ctrl(ctrl);
	struct nvfab_rdma_queue *queue;
	int ret;

	if (qid >= rctrl->nr_queues)
		return -EINVAL;
	queue = &rctrl->queues[qid];
	mutex_lock(&queue->queue_lock);
	queue->ctrl = rctrl;
	queue->qid = qid;
	/* a queue is freed before it is started again */
	if (!nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_STARTING)) {
		mutex_unlock(&queue->queue_lock);
		return -EBUSY;
	}
	queue->queue_size = qid ? ctrl->sqsize + 1 : NVME_AQ_DEPTH;
	queue->inline_max = 0;
	if (qid && !ctrl->icdoff && ctrl->ioccsz * 16 > sizeof(struct nvme_command))
		queue->inline_max = ctrl->ioccsz * 16 -
				    sizeof(struct nvme_command);

	ret = nvfab_rdma_cm_connect(queue);
	if (ret)
		goto out_unlock;
	if (!qid) {
		ret = nvfab_rdma_alloc_qe(queue->device->dev, &rctrl->aer_sqe,
					  sizeof(struct nvme_command),
					  DMA_TO_DEVICE);
		if (ret)
			goto out_disconnect;
		rctrl->aer_sqe.cqe.done = nvfab_rdma_aer_send_done;
		rctrl->aer_outstanding = false;
		nvfab_rdma_set_limits(rctrl, queue->device);
	}
	/*
	 * A poller that sees the queue live sees its CQ. A queue that failed
	 * while it started (a CQE before the Connect) stays FAILED: its
	 * fail_work, or error recovery, stops it, and nothing is sent on it.
	 */
	spin_lock(&queue->poll_lock);
	nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_LIVE);
	spin_unlock(&queue->poll_lock);
	mutex_unlock(&queue->queue_lock);
	return 0;

out_disconnect:
	rdma_disconnect(queue->cm_id);
	ib_drain_qp(queue->qp);
	nvfab_rdma_destroy_qp(queue);
	nvfab_rdma_cm_destroy(queue);
out_unlock:
	nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_FREE);
	mutex_unlock(&queue->queue_lock);
	/*
	 * The core frees no queue whose start failed, and may free the tag
	 * set next: a fail_work queued by the failed start must be over.
	 */
	if (ret)
		cancel_work_sync(&queue->fail_work);
	return ret;
}

static void nvfab_rdma_stop_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_rdma_queue *queue = &to_rdma_ctrl(ctrl)->queues[qid];
	bool stopping;

	mutex_lock(&queue->queue_lock);
	/*
	 * Under poll_lock: once it is released, no blk_mq_ops.poll reaps the
	 * CQ until the queue is started again (with a new CQ); the CQ may be
	 * freed as soon as this returns.
	 */
	spin_lock(&queue->poll_lock);
	stopping = nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_STOPPED);
	spin_unlock(&queue->poll_lock);
	if (stopping) {
		/*
		 * A sender that saw the queue live (->queue_rq, the AER) posts
		 * inside an RCU read-side section: wait for it, so that nothing
		 * is posted after the drain below. Its work request would
		 * complete (flushed) after the stop, for a request the caller
		 * cancels and reuses. The caller need not have quiesced the
		 * queue (fail_work, the timeout handler).
		 */
		synchronize_rcu();
		rdma_disconnect(queue->cm_id);
		/* every posted work request completes (flushed) before this returns */
		ib_drain_qp(queue->qp);
		nvfab_rdma_retire_mrs(queue);
	}
	mutex_unlock(&queue->queue_lock);
}

static void nvfab_rdma_free_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_rdma_ctrl *rctrl = to_rdma_ctrl(ctrl);
	struct nvfab_rdma_queue *queue = &rctrl->queues[qid];

	/* before queue_lock: the work takes it to stop the queue */
	cancel_work_sync(&queue->fail_work);
	/* a queue that was not stopped yet (no-op otherwise) */
	nvfab_rdma_stop_queue(ctrl, qid);
	mutex_lock(&queue->queue_lock);
	if (nvfab_queue_state(ctrl, qid) == NVFAB_QUEUE_STOPPED) {
		if (!qid)
			nvfab_rdma_free_qe(queue->device->dev, &rctrl->aer_sqe,
					   sizeof(struct nvme_command),
					   DMA_TO_DEVICE);
		nvfab_rdma_destroy_qp(queue);
		nvfab_rdma_cm_destroy(queue);
		nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_FREE);
	}
	mutex_unlock(&queue->queue_lock);
	cancel_work_sync(&queue->fail_work);
}

/* ---- blk-mq ---- */

static void nvfab_rdma_unmap_req(struct nvfab_rdma_request *req)
{
	struct request *rq = blk_mq_rq_from_pdu(req);
	struct nvfab_rdma_queue *queue = req->queue;

	if (!req->sqe_mapped)
		return;
	nvfab_rdma_unmap_data(queue, rq);
	ib_dma_unmap_single(queue->device->dev, req->sqe.dma,
			    sizeof(struct nvme_command), DMA_TO_DEVICE);
	req->sqe_mapped = false;
}

static blk_status_t nvfab_rdma_queue_rq(struct blk_mq_hw_ctx *hctx,
					const struct blk_mq_queue_data *bd)
{
	struct nvfab_rdma_queue *queue = hctx->driver_data;
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	struct request *rq = bd->rq;
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct ib_device *ibdev;
	struct ib_send_wr wr = { }, *first = &wr;
	const struct ib_send_wr *bad_wr = NULL;
	blk_status_t sts;
	int ret;

	if (!nvfab_check_ready(ctrl, rq))
		return nvfab_fail_nonready(ctrl, rq);

	sts = nvfab_setup_cmd(rq);
	if (sts)
		return sts;
	ibdev = queue->device->dev;
	req->queue = queue;
	req->responded = false;
	req->status = 0;
	memset(&req->result, 0, sizeof(req->result));
	refcount_set(&req->ref, 2);	/* the SEND and the response */
	req->inv_failed = false;

	ret = nvfab_rdma_map_data(queue, rq, &first);
	if (ret) {
		if (ret == -EIO)
			sts = BLK_STS_IOERR;
		else	/* a retry for a shortage, never for peer memory */
			sts = nvfab_peer_blk_status(ret);
		goto out_cleanup;
	}
	req->sqe.dma = ib_dma_map_single(ibdev, req->sqe.data,
					 sizeof(struct nvme_command),
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, req->sqe.dma)) {
		nvfab_rdma_unmap_data(queue, rq);
		sts = BLK_STS_RESOURCE;
		goto out_cleanup;
	}
	req->sqe_mapped = true;
	req->sge[0].addr = req->sqe.dma;
	req->sge[0].length = sizeof(struct nvme_command);
	req->sge[0].lkey = queue->pd->local_dma_lkey;

	req->sqe.cqe.done = nvfab_rdma_send_done;
	wr.wr_cqe = &req->sqe.cqe;
	wr.sg_list = req->sge;
	wr.num_sge = req->num_sge;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;

	nvfab_start_request(rq);
	ret = ib_post_send(queue->qp, first, &bad_wr);
	if (ret) {
		nvfab_rdma_queue_error(queue, "posting the command capsule failed: %d",
				       ret);
		/*
		 * The REG_MR went out, the SEND did not: the rkey may become
		 * valid. The request stays in flight until the queue's stop
		 * (the error above) deregisters its MR and cancels it.
		 */
		if (req->mr && bad_wr != &req->reg_wr.wr)
			return BLK_STS_OK;
		/*
		 * The error may already have stopped the queue and cancelled
		 * this started request (fail_work): then it is theirs.
		 */
		if (!nvfab_claim_host_completion(rq))
			return BLK_STS_OK;
		blk_mq_set_request_complete(rq);
		nvfab_rdma_unmap_req(req);
		sts = BLK_STS_IOERR;
		goto out_cleanup;
	}
	return BLK_STS_OK;

out_cleanup:
	nvfab_cleanup_cmd(rq);
	return sts;
}

static void nvfab_rdma_complete_rq(struct request *rq)
{
	nvfab_rdma_unmap_req(blk_mq_rq_to_pdu(rq));
	nvfab_complete_rq(rq);
}

/*
 * blk_mq_ops.poll of HCTX_TYPE_POLL queues: their CQs are IB_POLL_DIRECT.
 * blk-mq polls a quiesced queue too, so poll may run while the queue is
 * stopped and freed: it reaps the CQ only under poll_lock with the queue
 * live, which stop clears under the same lock before it drains the QP and
 * before free destroys the CQ. A poller that finds the lock taken returns:
 * another one reaps the CQ, or the queue is stopping.
 */
static int nvfab_rdma_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct nvfab_rdma_queue *queue = hctx->driver_data;
	int n = 0;

	if (!spin_trylock(&queue->poll_lock))
		return 0;
	if (queue->poll && nvfab_queue_live(&queue->ctrl->ctrl, queue->qid))
		n = ib_process_cq_direct(queue->cq, -1);
	spin_unlock(&queue->poll_lock);
	return n;
}

static enum blk_eh_timer_return nvfab_rdma_timeout(struct request *rq)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvfab_ctrl *ctrl = req->req.ctrl;
	int qid = req->queue ? req->queue->qid : 0;

	dev_warn(ctrl->device, "queue %d: command 0x%x (opcode 0x%x) timed out\n",
		 qid, nvfab_cid(rq), req->req.cmd->common.opcode);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE) {
		/*
		 * Connecting or tearing down: stop the queue, so that the
		 * command can no longer complete, then fail it.
		 */
		nvfab_rdma_stop_queue(ctrl, qid);
		nvfab_cancel_request(rq, NULL);
		return BLK_EH_DONE;
	}
	nvfab_error_recovery(ctrl);
	return BLK_EH_RESET_TIMER;
}

static int nvfab_rdma_init_request(struct blk_mq_tag_set *set,
				   struct request *rq, unsigned int hctx_idx,
				   int numa_node)
{
	struct nvfab_rdma_ctrl *rctrl = set->driver_data;
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	int qid = set == &rctrl->ctrl.admin_tagset ? 0 : hctx_idx + 1;
	struct nvme_command *sqe;

	sqe = kzalloc_node(sizeof(*sqe), GFP_KERNEL, numa_node);
	if (!sqe)
		return -ENOMEM;
	req->sqe.data = sqe;
	req->req.cmd = sqe;
	req->req.ctrl = &rctrl->ctrl;
	req->queue = &rctrl->queues[qid];
	req->inv_cqe.done = nvfab_rdma_inv_done;
	return 0;
}

NVFAB_DEFINE_INIT_REQUEST(nvfab_rdma_init_request);

static void nvfab_rdma_exit_request(struct blk_mq_tag_set *set,
				    struct request *rq, unsigned int hctx_idx)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);

	kfree(req->sqe.data);
	req->sqe.data = NULL;
}

static int nvfab_rdma_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
				unsigned int hctx_idx)
{
	struct nvfab_rdma_ctrl *rctrl = data;

	hctx->driver_data = &rctrl->queues[hctx_idx + 1];
	return 0;
}

static int nvfab_rdma_init_admin_hctx(struct blk_mq_hw_ctx *hctx, void *data,
				      unsigned int hctx_idx)
{
	struct nvfab_rdma_ctrl *rctrl = data;

	hctx->driver_data = &rctrl->queues[0];
	return 0;
}

static const struct blk_mq_ops nvfab_rdma_mq_ops = {
	.queue_rq	= nvfab_rdma_queue_rq,
	.complete	= nvfab_rdma_complete_rq,
	.init_request	= NVFAB_INIT_REQUEST(nvfab_rdma_init_request),
	.exit_request	= nvfab_rdma_exit_request,
	.init_hctx	= nvfab_rdma_init_hctx,
	.timeout	= nvfab_rdma_timeout,
	.map_queues	= nvfab_map_queues,
	.poll		= nvfab_rdma_poll,
};

static const struct blk_mq_ops nvfab_rdma_admin_mq_ops = {
	.queue_rq	= nvfab_rdma_queue_rq,
	.complete	= nvfab_rdma_complete_rq,
	.init_request	= NVFAB_INIT_REQUEST(nvfab_rdma_init_request),
	.exit_request	= nvfab_rdma_exit_request,
	.init_hctx	= nvfab_rdma_init_admin_hctx,
	.timeout	= nvfab_rdma_timeout,
};

/* ---- controller ---- */

static void nvfab_rdma_submit_async_event(struct nvfab_ctrl *ctrl)
{
	struct nvfab_rdma_ctrl *rctrl = to_rdma_ctrl(ctrl);
	struct nvfab_rdma_queue *queue = &rctrl->queues[0];
	struct nvfab_rdma_qe *qe = &rctrl->aer_sqe;
	struct nvme_command *c = qe->data;
	struct ib_sge sge;
	struct ib_send_wr wr = { };
	struct ib_device *ibdev;

	/* the check and the post in one RCU section: see stop_queue */
	rcu_read_lock();
	if (!nvfab_queue_live(&rctrl->ctrl, 0) ||
	    READ_ONCE(rctrl->aer_outstanding))
		goto out_unlock;
	ibdev = queue->device->dev;
	ib_dma_sync_single_for_cpu(ibdev, qe->dma, sizeof(*c), DMA_TO_DEVICE);
	memset(c, 0, sizeof(*c));
	c->common.opcode = nvme_admin_async_event;
	c->common.command_id = NVFAB_RDMA_AEN_CID;
	nvfab_rdma_sgl_keyed(c, 0, 0, 0, false);
	ib_dma_sync_single_for_device(ibdev, qe->dma, sizeof(*c),
				      DMA_TO_DEVICE);

	sge.addr = qe->dma;
	sge.length = sizeof(*c);
	sge.lkey = queue->pd->local_dma_lkey;
	wr.wr_cqe = &qe->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	WRITE_ONCE(rctrl->aer_outstanding, true);
	if (ib_post_send(queue->qp, &wr, NULL)) {
		WRITE_ONCE(rctrl->aer_outstanding, false);
		nvfab_rdma_queue_error(queue, "posting the AER failed");
	}
out_unlock:
	rcu_read_unlock();
}

static int nvfab_rdma_get_address(struct nvfab_ctrl *ctrl, char *buf, int size)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;
	int len;

	len = scnprintf(buf, size, "traddr=%s,trsvcid=%s", opts->traddr,
			opts->trsvcid ? opts->trsvcid : NVFAB_RDMA_PORT);
	if (opts->host_traddr)
		len += scnprintf(buf + len, size - len, ",host_traddr=%s",
				 opts->host_traddr);
	return len;
}

static void nvfab_rdma_free_ctrl(struct nvfab_ctrl *ctrl)
{
	struct nvfab_rdma_ctrl *rctrl = to_rdma_ctrl(ctrl);
	unsigned int i;

	/*
	 * A queue that failed while it started is never freed by the core:
	 * its fail_work may still be queued.
	 */
	for (i = 0; i < rctrl->nr_queues; i++)
		cancel_work_sync(&rctrl->queues[i].fail_work);
	mutex_lock(&nvfab_rdma_ctrl_mutex);
	list_del(&rctrl->list);
	mutex_unlock(&nvfab_rdma_ctrl_mutex);
	nvfab_free_options(ctrl->opts);
	kfree(rctrl->queues);
	kfree(rctrl);
}

/*
 * How far the controller's RDMA device is from a page of peer memory
 * (nvfab_ctrl_ops.peer_distance): the admin queue's device, which every
 * queue of a controller shares in practice (one source address).
 */
static int nvfab_rdma_peer_distance(struct nvfab_ctrl *ctrl, struct page *page)
{
	struct nvfab_rdma_device *dev;
	int ret;

	rcu_read_lock();
	dev = rcu_dereference(to_rdma_ctrl(ctrl)->peer_dev);
	ret = nvfab_peer_page_distance(page, dev ? &dev->peer_dma : NULL);
	rcu_read_unlock();
	return ret;
}

static const struct nvfab_ctrl_ops nvfab_rdma_ctrl_ops = {
	.name			= "rdma",
	.module			= THIS_MODULE,
	.admin_mq_ops		= &nvfab_rdma_admin_mq_ops,
	.io_mq_ops		= &nvfab_rdma_mq_ops,
	.cmd_size		= sizeof(struct nvfab_rdma_request),
	/* ->queue_rq runs under RCU, which nvfab_rdma_stop_queue() waits on */
	.blocking		= false,
	.start_queue		= nvfab_rdma_start_queue,
	.stop_queue		= nvfab_rdma_stop_queue,
	.free_queue		= nvfab_rdma_free_queue,
	.submit_async_event	= nvfab_rdma_submit_async_event,
	.free_ctrl		= nvfab_rdma_free_ctrl,
	.get_address		= nvfab_rdma_get_address,
	.peer_distance		= nvfab_rdma_peer_distance,
	.supports_peer_mem	= true,
};

/*
 * A controller not being deleted on the same path (nvfab_opts_same_path())?
 * Called with nvfab_rdma_ctrl_mutex held.
 */
static bool nvfab_rdma_existing(struct nvfab_ctrl_options *opts)
{
	struct nvfab_rdma_ctrl *rctrl;
	bool found = false;

	lockdep_assert_held(&nvfab_rdma_ctrl_mutex);
	list_for_each_entry(rctrl, &nvfab_rdma_ctrl_list, list) {
		if (nvfab_opts_same_path(rctrl->ctrl.opts, opts,
					 NVFAB_RDMA_PORT) &&
		    nvfab_ctrl_state(&rctrl->ctrl) < NVFAB_CTRL_DELETING) {
			found = true;
			break;
		}
	}
	return found;
}

/*
 * -EALREADY, logged, when @opts asks for a path that has a controller and
 * not for duplicate_connect; 0 otherwise. Called with nvfab_rdma_ctrl_mutex.
 */
static int nvfab_rdma_duplicate(struct nvfab_ctrl_options *opts)
{
	if (opts->duplicate_connect || !nvfab_rdma_existing(opts))
		return 0;
	pr_err("already connected to %s at %s (use duplicate_connect)\n",
	       opts->subsysnqn, opts->traddr);
	return -EALREADY;
}

static struct nvfab_ctrl *nvfab_rdma_create_ctrl(struct device *dev,
						 struct nvfab_ctrl_options *opts)
{
	struct nvfab_rdma_ctrl *rctrl;
	const char *port;
	unsigned int i;
	int ret;

	/* the common case, refused before a device appears */
	mutex_lock(&nvfab_rdma_ctrl_mutex);
	ret = nvfab_rdma_duplicate(opts);
	mutex_unlock(&nvfab_rdma_ctrl_mutex);
	if (ret)
		return ERR_PTR(ret);
	if (opts->queue_size > NVME_RDMA_MAX_QUEUE_SIZE) {
		pr_warn("queue_size %zu above %u, using %u\n",
			opts->queue_size, NVME_RDMA_MAX_QUEUE_SIZE,
			NVME_RDMA_MAX_QUEUE_SIZE);
		opts->queue_size = NVME_RDMA_MAX_QUEUE_SIZE;
	}

	rctrl = kzalloc(sizeof(*rctrl), GFP_KERNEL);
	if (!rctrl)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&rctrl->list);

	port = opts->trsvcid ? opts->trsvcid : NVFAB_RDMA_PORT;
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, opts->traddr, port,
				   &rctrl->addr);
	if (ret) {
		pr_err("traddr=%s trsvcid=%s is not an IP address and port\n",
		       opts->traddr, port);
		ret = -EINVAL;
		goto out_free;
	}
	if (opts->host_traddr) {
		ret = inet_pton_with_scope(&init_net, rctrl->addr.ss_family,
					   opts->host_traddr, NULL,
					   &rctrl->src_addr);
		if (ret) {
			pr_err("host_traddr=%s is not an address of the traddr family\n",
			       opts->host_traddr);
			ret = -EINVAL;
			goto out_free;
		}
	}

	rctrl->nr_queues = opts->nr_io_queues + opts->nr_write_queues +
			   opts->nr_poll_queues + 1;
	rctrl->queues = kcalloc(rctrl->nr_queues, sizeof(*rctrl->queues),
				GFP_KERNEL);
	if (!rctrl->queues) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < rctrl->nr_queues; i++) {
		mutex_init(&rctrl->queues[i].queue_lock);
		spin_lock_init(&rctrl->queues[i].poll_lock);
		INIT_LIST_HEAD(&rctrl->queues[i].retired_mrs);
		INIT_WORK(&rctrl->queues[i].fail_work,
			  nvfab_rdma_fail_queue_work);
		rctrl->queues[i].ctrl = rctrl;
		rctrl->queues[i].qid = i;
	}

	ret = nvfab_init_ctrl(&rctrl->ctrl, dev, &nvfab_rdma_ctrl_ops, opts);
	if (ret)
		goto out_free_queues;

	/*
	 * Checked again where the controller is listed, in one critical
	 * section: of two connects to one path at once, one is refused.
	 */
	mutex_lock(&nvfab_rdma_ctrl_mutex);
	ret = nvfab_rdma_duplicate(opts);
	if (!ret)
		list_add_tail(&rctrl->list, &nvfab_rdma_ctrl_list);
	mutex_unlock(&nvfab_rdma_ctrl_mutex);
	if (ret) {
		nvfab_uninit_ctrl(&rctrl->ctrl);
		rctrl->ctrl.opts = NULL;	/* the caller's */
		nvfab_put_ctrl(&rctrl->ctrl);
		return ERR_PTR(ret);
	}

	ret = nvfab_start_new_ctrl(&rctrl->ctrl);
	if (ret) {
		mutex_lock(&nvfab_rdma_ctrl_mutex);
		list_del_init(&rctrl->list);
		mutex_unlock(&nvfab_rdma_ctrl_mutex);
		nvfab_uninit_ctrl(&rctrl->ctrl);
		/* the caller frees the options: free_ctrl must not */
		rctrl->ctrl.opts = NULL;
		nvfab_put_ctrl(&rctrl->ctrl);
		return ERR_PTR(ret);
	}
	return &rctrl->ctrl;

out_free_queues:
	kfree(rctrl->queues);
out_free:
	kfree(rctrl);
	return ERR_PTR(ret);
}

static struct nvfab_transport_ops nvfab_rdma_transport = {
	.name		= "rdma",
	.module		= THIS_MODULE,
	.required_opts	= NVFAB_OPT_TRADDR,
	.allowed_opts	= NVFAB_OPT_TRSVCID | NVFAB_OPT_RECONNECT_DELAY |
			  NVFAB_OPT_HOST_TRADDR | NVFAB_OPT_CTRL_LOSS_TMO |
			  NVFAB_OPT_NR_WRITE_QUEUES | NVFAB_OPT_TOS |
			  NVFAB_OPT_NR_POLL_QUEUES,
	.create_ctrl	= nvfab_rdma_create_ctrl,
};

/*
 * An RDMA device goes away (rdma link delete, driver unbind): delete the
 * controllers whose queues run on it and wait until they are gone, so
 * that no QP, CQ, MR or PD of ours is left on the device.
 */
static void nvfab_rdma_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct nvfab_rdma_ctrl *rctrl;
	struct nvfab_rdma_device *dev;
	bool used = false;

	mutex_lock(&nvfab_rdma_dev_mutex);
	list_for_each_entry(dev, &nvfab_rdma_dev_list, entry) {
		if (dev->dev == ibdev) {
			used = true;
			break;
		}
	}
	mutex_unlock(&nvfab_rdma_dev_mutex);
	if (!used)
		return;

	/*
	 * A controller is on the device its admin queue uses (peer_dev, an
	 * RCU pointer: queue 0's device is freed with kfree_rcu()). One in
	 * its first connect refuses the delete: its queues fail when rdma_cm
	 * reports the removal on their CM IDs (nvfab_rdma_cm_handler()).
	 */
	mutex_lock(&nvfab_rdma_ctrl_mutex);
	list_for_each_entry(rctrl, &nvfab_rdma_ctrl_list, list) {
		struct nvfab_rdma_device *qdev;
		bool on_dev;

		rcu_read_lock();
		qdev = rcu_dereference(rctrl->peer_dev);
		on_dev = qdev && qdev->dev == ibdev;
		rcu_read_unlock();
		if (on_dev) {
			dev_info(rctrl->ctrl.device, "RDMA device %s removed: deleting the controller\n",
				 dev_name(&ibdev->dev));
			nvfab_delete_ctrl(&rctrl->ctrl);
		}
	}
	mutex_unlock(&nvfab_rdma_ctrl_mutex);
	flush_workqueue(nvfab_delete_wq);
}

static struct ib_client nvfab_rdma_ib_client = {
	.name	= "nvfab_rdma",
	.remove	= nvfab_rdma_remove_one,
};

static int __init nvfab_rdma_init(void)
{
	int ret;

	nvfab_rdma_wq = alloc_workqueue("nvfab_rdma_wq",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!nvfab_rdma_wq)
		return -ENOMEM;
	ret = ib_register_client(&nvfab_rdma_ib_client);
	if (ret)
		goto out_destroy_wq;
	ret = nvfab_register_transport(&nvfab_rdma_transport);
	if (ret)
		goto out_unregister_client;
	return 0;

out_unregister_client:
	ib_unregister_client(&nvfab_rdma_ib_client);
out_destroy_wq:
	destroy_workqueue(nvfab_rdma_wq);
	return ret;
}

static void __exit nvfab_rdma_exit(void)
{
	struct nvfab_rdma_ctrl *rctrl;

	nvfab_unregister_transport(&nvfab_rdma_transport);
	mutex_lock(&nvfab_rdma_ctrl_mutex);
	list_for_each_entry(rctrl, &nvfab_rdma_ctrl_list, list)
		nvfab_delete_ctrl(&rctrl->ctrl);
	mutex_unlock(&nvfab_rdma_ctrl_mutex);
	flush_workqueue(nvfab_delete_wq);
	ib_unregister_client(&nvfab_rdma_ib_client);
	destroy_workqueue(nvfab_rdma_wq);
}

module_init(nvfab_rdma_init);
module_exit(nvfab_rdma_exit);

MODULE_DESCRIPTION("nvfab NVMe/RDMA transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
NVFAB_IMPORT();
