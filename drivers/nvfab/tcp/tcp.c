// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-tcp: the NVMe/TCP transport (NVMe/TCP Transport Specification 1.0,
 * NVMe over Fabrics 1.1).
 *
 * Each queue is one TCP connection. One owner at a time sends or receives
 * on it: whoever sets the queue's NVFAB_TCP_Q_BUSY bit (nvfab_tcp_own()),
 * which never waits for it. ->queue_rq sends at once when it gets the
 * queue (so a lone I/O costs no context switch); the socket's data_ready
 * callback receives at once, in softirq, when it gets the queue and little
 * is waiting (so a response or a small read costs no work item and no
 * context switch either); ->poll
 * receives when it gets the queue. Whoever does not get the queue leaves
 * the job to io_work, on a CPU chosen per queue, which does both; requests
 * reach the owner through a lock-free list, as R2Ts do. An io_work that
 * finds the queue owned marks it (NVFAB_TCP_Q_KICK) and the owner runs it
 * again when it lets go (nvfab_tcp_release()).
 *
 * Sending a request: the Command Capsule PDU (header, SQE, in-capsule data
 * up to IOCCSZ, digests); then, for larger writes, one or more H2CData PDUs
 * of at most MAXH2CDATA bytes for each R2T. Receiving: CapsuleResp,
 * C2HData (with the SUCCESS flag, no CapsuleResp follows), R2T and
 * C2HTermReq. The target is untrusted: every header is checked (type,
 * flags, hlen, pdo, plen, header digest, CID and its generation, data
 * offset and length against the command, R2T bounds) before its content is
 * used, and any violation tears the queue down into error recovery.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/crc32c.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/nvme-tcp.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include <nvfab/compat.h>
#include "tcp.h"
#include "tls.h"
#include <nvfab/core.h>
#include <nvfab/fabrics.h>
#include <nvfab/peermem.h>

#define NVFAB_TCP_PORT		"4420"
#define NVFAB_TCP_DISC_PORT	"8009"
/* All PDUs a target sends after ICResp have a 24-byte header. */
#define NVFAB_TCP_RX_HLEN	24
/* io_work gives up the CPU after this long. */
#define NVFAB_TCP_IO_BUDGET	msecs_to_jiffies(1)
/*
 * Received bytes that data_ready may handle itself, in softirq, when a PDU
 * starts: responses and small reads (see nvfab_tcp_recv_inline()).
 */
#define NVFAB_TCP_RECV_INLINE_MAX	SZ_16K
/* CID of the Asynchronous Event Request: beyond every admin tag. */
#define NVFAB_TCP_AEN_CID	NVME_AQ_BLK_MQ_DEPTH
/* Seconds to wait for ICResp. */
#define NVFAB_TCP_ICRESP_TMO	10

static struct workqueue_struct *nvfab_tcp_wq;
static LIST_HEAD(nvfab_tcp_ctrl_list);
static DEFINE_MUTEX(nvfab_tcp_ctrl_mutex);	/* protects the list above */

/* Kernel sockets of block devices get their own lockdep class. */
static struct lock_class_key nvfab_tcp_sk_key[2];
static struct lock_class_key nvfab_tcp_slock_key[2];

enum nvfab_tcp_send_state {
	NVFAB_TCP_SEND_CMD_PDU,
	NVFAB_TCP_SEND_H2C_PDU,
	NVFAB_TCP_SEND_DATA,
	NVFAB_TCP_SEND_DDGST,
};

enum nvfab_tcp_recv_state {
	NVFAB_TCP_RECV_PDU,
	NVFAB_TCP_RECV_PAD,
	NVFAB_TCP_RECV_DATA,
	NVFAB_TCP_RECV_DDGST,
};

struct nvfab_tcp_queue;

/* Per-request PDU; begins with the core's part. */
struct nvfab_tcp_request {
	struct nvfab_request		req;
	struct nvme_tcp_cmd_pdu		cmd_pdu;
	__le32				cmd_hdgst;	/* follows cmd_pdu */
	struct nvme_tcp_data_pdu	h2c_pdu;
	__le32				h2c_hdgst;	/* follows h2c_pdu */
	struct nvfab_tcp_queue		*queue;
	struct request			*rq;		/* NULL: the AER */
	struct llist_node		lentry;
	struct list_head		entry;
	enum nvfab_tcp_send_state	state;
	u32				data_len;	/* bytes of data */
	u32				inline_len;	/* in-capsule bytes */
	u32				data_sent;
	u32				data_recvd;
	u32				r2t_left;	/* bytes of this R2T */
	u32				pdu_len;	/* current PDU data bytes */
	u32				pdu_sent;	/* header bytes sent */
	u32				hdr_len;	/* header bytes to send */
	u16				ttag;
	bool				send_busy;
	bool				rsp_pending;
	__le16				rsp_status;
	union nvme_result		rsp_result;
	u32				ddgst_crc;	/* running */
	__le32				ddgst;
	u32				ddgst_sent;
	struct bio			*curr_bio;
	struct iov_iter			iter;
};

/*
 * Queue flags: who owns the queue's send and receive sides. The queue's
 * state is the core's (nvfab_queue_state()).
 */
#define NVFAB_TCP_Q_POLLING	0
#define NVFAB_TCP_Q_BUSY	1	/* owned: see nvfab_tcp_own() */
#define NVFAB_TCP_Q_KICK	2	/* io_work wanted it meanwhile */

struct nvfab_tcp_ctrl;

struct nvfab_tcp_queue {
	struct mutex			queue_lock;	/* start/stop/free */
	/* fails the queue after a protocol error while connecting */
	struct work_struct		fail_work;
	/* everything below is reset by each start_queue */
	struct nvfab_tcp_ctrl		*ctrl;
	int				qid;
	struct socket			*sock;
	struct work_struct		io_work;
	int				io_cpu;
	unsigned long			flags;
	unsigned int			nr_cqe;		/* completions seen */

	/* send side, owner only (but req_list, lock-free) */
	struct llist_head		req_list;
	struct list_head		send_list;
	struct nvfab_tcp_request	*request;

	/* receive side, owner only, under the socket lock */
	enum nvfab_tcp_recv_state	rcv_state;
	u8				pdu[NVFAB_TCP_RX_HLEN + NVME_TCP_DIGEST_LENGTH];
	size_t				pdu_offset;
	size_t				pdu_len;	/* header + hdgst */
	size_t				pad_left;
	size_t				data_left;
	struct nvfab_tcp_request	*rcv_req;
	bool				rcv_success;	/* C2H SUCCESS */
	__le32				rcv_ddgst;
	u32				rcv_crc;
	size_t				ddgst_left;

	/*
	 * The connection is a TLS session (tls.c): kTLS's read_sock may
	 * sleep, so only io_work receives (not data_ready, not ->poll).
	 */
	bool				tls;

	/* negotiated at ICReq/ICResp */
	bool				hdr_digest;
	bool				data_digest;
	u32				maxh2cdata;
	u32				inline_max;	/* in-capsule bytes */

	void				(*old_data_ready)(struct sock *sk);
	void				(*old_state_change)(struct sock *sk);
	void				(*old_write_space)(struct sock *sk);
};

struct nvfab_tcp_ctrl {
	struct nvfab_ctrl		ctrl;
	struct nvfab_tcp_queue		*queues;
	unsigned int			nr_queues;	/* allocated */
	struct sockaddr_storage		addr;
	struct sockaddr_storage		src_addr;
	struct nvfab_tcp_request	async_req;
	struct nvme_tcp_cmd_pdu		async_pdu;
	/* an AER waits for its CapsuleResp; admin io_work and AER submit */
	bool				aer_outstanding;
	struct list_head		list;		/* nvfab_tcp_ctrl_list */
};

static inline struct nvfab_tcp_ctrl *to_tcp_ctrl(struct nvfab_ctrl *ctrl)
{
	return container_of(ctrl, struct nvfab_tcp_ctrl, ctrl);
}

static inline size_t nvfab_tcp_hdgst_len(struct nvfab_tcp_queue *queue)
{
	return queue->hdr_digest ? NVME_TCP_DIGEST_LENGTH : 0;
}

static inline size_t nvfab_tcp_ddgst_len(struct nvfab_tcp_queue *queue)
{
	return queue->data_digest ? NVME_TCP_DIGEST_LENGTH : 0;
}

/* CRC32C as NVMe/TCP uses it: seed and final XOR of all ones. */
static __le32 nvfab_tcp_digest(const void *buf, size_t len)
{
	return cpu_to_le32(~crc32c(~0U, buf, len));
}

/* Running CRC32C over @len bytes of a bvec iterator, without advancing it. */
static u32 nvfab_tcp_crc_iter(u32 crc, const struct iov_iter *iter, size_t len)
{
	const struct bio_vec *bv = iter->bvec;
	size_t skip = iter->iov_offset;

	while (len) {
		size_t n = min_t(size_t, len, bv->bv_len - skip);
		size_t off = bv->bv_offset + skip;

		len -= n;
		while (n) {
			struct page *page = bv->bv_page + off / PAGE_SIZE;
			size_t poff = off % PAGE_SIZE;
			size_t c = min_t(size_t, n, PAGE_SIZE - poff);
			void *va = kmap_local_page(page);

			crc = crc32c(crc, va + poff, c);
			kunmap_local(va);
			off += c;
			n -= c;
		}
		bv++;
		skip = 0;
	}
	return crc;
}

/* Point req->iter at the current bio (or the special payload). */
static void nvfab_tcp_init_iter(struct nvfab_tcp_request *req, unsigned int dir)
{
	struct request *rq = req->rq;
	const struct bio_vec *vec;
	unsigned int size, nr_bvec;
	size_t offset;

	if (rq->rq_flags & RQF_SPECIAL_PAYLOAD) {
		vec = &rq->special_vec;
		nr_bvec = 1;
		size = blk_rq_payload_bytes(rq);
		offset = 0;
	} else {
		struct bio *bio = req->curr_bio;
		struct bvec_iter bi;
		struct bio_vec bv;

		vec = __bvec_iter_bvec(bio->bi_io_vec, bio->bi_iter);
		nr_bvec = 0;
		bio_for_each_bvec(bv, bio, bi)
			nr_bvec++;
		size = bio->bi_iter.bi_size;
		offset = nvfab_bvec_iter_offset(&bio->bi_iter);
	}
	iov_iter_bvec(&req->iter, dir, vec, nr_bvec, size);
	req->iter.iov_offset = offset;
}

/* Move to the next bio when the current one is used up; false if none. */
static bool nvfab_tcp_advance_bio(struct nvfab_tcp_request *req,
				  unsigned int dir)
{
	if (iov_iter_count(&req->iter))
		return true;
	if (req->rq->rq_flags & RQF_SPECIAL_PAYLOAD || !req->curr_bio->bi_next)
		return false;
	req->curr_bio = req->curr_bio->bi_next;
	nvfab_tcp_init_iter(req, dir);
	return true;
}

/*
 * Complete @req with a CQE's @status and @result, after clearing its
 * transfer state so that nothing of this command can be received or sent
 * any more.
 */
static void nvfab_tcp_complete_req(struct nvfab_tcp_request *req,
				   __le16 status, union nvme_result result)
{
	req->data_recvd = 0;
	req->data_sent = 0;
	req->r2t_left = 0;
	req->rsp_pending = false;
	nvfab_try_complete_req(req->rq, status, result);
}

/* ---- ownership ---- */

/*
 * nvfab_tcp_own() - take the queue's send and receive state, if free
 *
 * Never waits: a caller that does not get it leaves its job to io_work.
 * Context: any context (softirq included). Return: true if owned now.
 */
static bool nvfab_tcp_own(struct nvfab_tcp_queue *queue)
{
	return !test_and_set_bit_lock(NVFAB_TCP_Q_BUSY, &queue->flags);
}

/*
 * nvfab_tcp_release() - let go of the queue; run io_work again if it found
 * the queue owned meanwhile (it sets KICK before it tries, so one of the
 * two always sees the other). Context: any context.
 */
static void nvfab_tcp_release(struct nvfab_tcp_queue *queue)
{
	clear_bit_unlock(NVFAB_TCP_Q_BUSY, &queue->flags);
	/* Pairs with io_work's: BUSY clear before KICK is read. */
	smp_mb__after_atomic();
	if (test_and_clear_bit(NVFAB_TCP_Q_KICK, &queue->flags))
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
}

/* ---- sending ---- */

static void nvfab_tcp_queue_request(struct nvfab_tcp_request *req, bool last)
{
	struct nvfab_tcp_queue *queue = req->queue;

	req->send_busy = true;
	llist_add(&req->lentry, &queue->req_list);
	if (last)
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
}

static struct nvfab_tcp_request *nvfab_tcp_fetch_request(struct nvfab_tcp_queue *queue)
{
	struct llist_node *node;
	struct nvfab_tcp_request *req;

	if (list_empty(&queue->send_list)) {
		node = llist_del_all(&queue->req_list);
		node = llist_reverse_order(node);
		while (node) {
			req = llist_entry(node, struct nvfab_tcp_request, lentry);
			node = node->next;
			list_add_tail(&req->entry, &queue->send_list);
		}
	}
	req = list_first_entry_or_null(&queue->send_list,
				       struct nvfab_tcp_request, entry);
	if (req)
		list_del(&req->entry);
	return req;
}

/* Send @len bytes of a kernel buffer; returns bytes sent, 0 or -errno. */
static int nvfab_tcp_send_buf(struct nvfab_tcp_queue *queue, void *buf,
			      size_t len, bool more)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	int ret;

	msg.msg_flags |= more ? MSG_MORE : MSG_EOR;
	ret = kernel_sendmsg(queue->sock, &msg, &iov, 1, len);
	if (ret == -EAGAIN)
		return 0;
	return ret;
}

static void nvfab_tcp_done_send(struct nvfab_tcp_request *req)
{
	struct nvfab_tcp_queue *queue = req->queue;

	queue->request = NULL;
	req->send_busy = false;
	if (req->rsp_pending)
		nvfab_tcp_complete_req(req, req->rsp_status, req->rsp_result);
}

/* Start sending the data of the current PDU: its digest comes after. */
static void nvfab_tcp_begin_data(struct nvfab_tcp_request *req)
{
	req->state = NVFAB_TCP_SEND_DATA;
	req->ddgst_crc = ~0U;
}

static int nvfab_tcp_send_hdr(struct nvfab_tcp_request *req, void *hdr,
			      bool more)
{
	int ret;

	ret = nvfab_tcp_send_buf(req->queue, hdr + req->pdu_sent,
				 req->hdr_len - req->pdu_sent, more);
	if (ret <= 0)
		return ret;
	req->pdu_sent += ret;
	return req->pdu_sent == req->hdr_len ? 1 : 0;
}

static int nvfab_tcp_send_cmd_pdu(struct nvfab_tcp_request *req)
{
	int ret;

	ret = nvfab_tcp_send_hdr(req, &req->cmd_pdu, req->inline_len > 0);
	if (ret <= 0)
		return ret;
	if (req->inline_len) {
		req->pdu_len = req->inline_len;
		nvfab_tcp_begin_data(req);
	} else {
		nvfab_tcp_done_send(req);
	}
	return 1;
}

static int nvfab_tcp_send_h2c_pdu(struct nvfab_tcp_request *req)
{
	int ret;

	ret = nvfab_tcp_send_hdr(req, &req->h2c_pdu, true);
	if (ret <= 0)
		return ret;
	nvfab_tcp_begin_data(req);
	return 1;
}

static int nvfab_tcp_send_data(struct nvfab_tcp_request *req)
{
	struct nvfab_tcp_queue *queue = req->queue;

	while (req->pdu_len) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		size_t len;
		int ret;

		if (!nvfab_tcp_advance_bio(req, ITER_SOURCE))
			return -EIO;
		len = min_t(size_t, req->pdu_len, iov_iter_count(&req->iter));
		msg.msg_iter = req->iter;
		iov_iter_truncate(&msg.msg_iter, len);
		if (len < req->pdu_len || queue->data_digest)
			msg.msg_flags |= MSG_MORE;
		else
			msg.msg_flags |= MSG_EOR;
		ret = sock_sendmsg(queue->sock, &msg);
		if (ret == -EAGAIN)
			return 0;
		if (ret <= 0)
			return ret ? ret : -EIO;
		if (queue->data_digest)
			req->ddgst_crc = nvfab_tcp_crc_iter(req->ddgst_crc,
							    &req->iter, ret);
		iov_iter_advance(&req->iter, ret);
		req->pdu_len -= ret;
		req->data_sent += ret;
		if (req->r2t_left)
			req->r2t_left -= ret;
	}

	if (queue->data_digest) {
		req->ddgst = cpu_to_le32(~req->ddgst_crc);
		req->ddgst_sent = 0;
		req->state = NVFAB_TCP_SEND_DDGST;
		return 1;
	}
	return 2;	/* PDU complete */
}

static int nvfab_tcp_send_ddgst(struct nvfab_tcp_request *req)
{
	int ret;

	ret = nvfab_tcp_send_buf(req->queue, (u8 *)&req->ddgst + req->ddgst_sent,
				 NVME_TCP_DIGEST_LENGTH - req->ddgst_sent, false);
	if (ret <= 0)
		return ret;
	req->ddgst_sent += ret;
	return req->ddgst_sent == NVME_TCP_DIGEST_LENGTH ? 2 : 0;
}

static void nvfab_tcp_setup_h2c_pdu(struct nvfab_tcp_request *req)
{
	struct nvfab_tcp_queue *queue = req->queue;
	struct nvme_tcp_data_pdu *pdu = &req->h2c_pdu;
	size_t hdgst = nvfab_tcp_hdgst_len(queue);
	u32 len = min(req->r2t_left, queue->maxh2cdata);

	memset(pdu, 0, sizeof(*pdu));
	pdu->hdr.type = nvme_tcp_h2c_data;
	if (len == req->r2t_left)
		pdu->hdr.flags |= NVME_TCP_F_DATA_LAST;
	if (queue->hdr_digest)
		pdu->hdr.flags |= NVME_TCP_F_HDGST;
	if (queue->data_digest)
		pdu->hdr.flags |= NVME_TCP_F_DDGST;
	pdu->hdr.hlen = sizeof(*pdu);
	pdu->hdr.pdo = sizeof(*pdu) + hdgst;
	pdu->hdr.plen = cpu_to_le32(sizeof(*pdu) + hdgst + len +
				    nvfab_tcp_ddgst_len(queue));
	pdu->command_id = nvfab_cid(req->rq);
	pdu->ttag = req->ttag;
	pdu->data_offset = cpu_to_le32(req->data_sent);
	pdu->data_length = cpu_to_le32(len);
	if (queue->hdr_digest)
		req->h2c_hdgst = nvfab_tcp_digest(pdu, sizeof(*pdu));
	req->hdr_len = sizeof(*pdu) + hdgst;
	req->pdu_sent = 0;
	req->pdu_len = len;
	req->state = NVFAB_TCP_SEND_H2C_PDU;
}

/* Send what we can of the current request; >0 progress, 0 none, <0 error. */
static int nvfab_tcp_try_send(struct nvfab_tcp_queue *queue)
{
	struct nvfab_tcp_request *req;
	unsigned int noreclaim;
	int ret = 0;

	if (!queue->request)
		queue->request = nvfab_tcp_fetch_request(queue);
	req = queue->request;
	if (!req)
		return 0;

	noreclaim = memalloc_noreclaim_save();
	switch (req->state) {
	case NVFAB_TCP_SEND_CMD_PDU:
		ret = nvfab_tcp_send_cmd_pdu(req);
		break;
	case NVFAB_TCP_SEND_H2C_PDU:
		ret = nvfab_tcp_send_h2c_pdu(req);
		break;
	case NVFAB_TCP_SEND_DATA:
		ret = nvfab_tcp_send_data(req);
		break;
	case NVFAB_TCP_SEND_DDGST:
		ret = nvfab_tcp_send_ddgst(req);
		break;
	}
	memalloc_noreclaim_restore(noreclaim);

	if (ret == 2) {
		/* A data PDU is complete: more of this R2T, or done. */
		if (req->r2t_left)
			nvfab_tcp_setup_h2c_pdu(req);
		else
			nvfab_tcp_done_send(req);
		ret = 1;
	}
	return ret;
}

/* ---- receiving ---- */

/* May the queue's receive side parse what arrives? */
static inline bool nvfab_tcp_receiving(struct nvfab_tcp_queue *queue)
{
	return nvfab_queue_live(&queue->ctrl->ctrl, queue->qid);
}

/*
 * A queue broke, and its move to NVFAB_QUEUE_FAILED was ours: recover a
 * live controller. Context: any (the socket's state_change callback too).
 */
static void nvfab_tcp_queue_failed(struct nvfab_tcp_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;

	if (nvfab_error_recovery(ctrl))
		return;
	/*
	 * Not live: nobody tears this queue down for us. While the
	 * controller connects, its setup waits for a command here; fail the
	 * queue now so that setup unwinds at once instead of at the command
	 * timeout. A resetting or deleting controller is torn down already.
	 */
	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_NEW:
	case NVFAB_CTRL_CONNECTING:
		queue_work(nvfab_tcp_wq, &queue->fail_work);
		break;
	default:
		break;
	}
}

static __printf(2, 3) void nvfab_tcp_error(struct nvfab_tcp_queue *queue,
					    const char *fmt, ...)
{
	va_list args;
	bool first;

	/* the first error of the queue is reported and acted on, once */
	va_start(args, fmt);
	first = nvfab_fail_queue_va(&queue->ctrl->ctrl, queue->qid, fmt, args);
	va_end(args);
	if (first)
		nvfab_tcp_queue_failed(queue);
}

static void nvfab_tcp_stop_queue(struct nvfab_ctrl *ctrl, int qid);

static bool nvfab_tcp_cancel_queue_rq(struct request *rq, void *data)
{
	struct nvfab_tcp_request *req = blk_mq_rq_to_pdu(rq);

	if (req->queue == data)
		nvfab_cancel_request(rq, NULL);
	return true;
}

/*
 * Stop a queue that broke the protocol while its controller connects and
 * cancel the commands it carries: they complete with a host abort status.
 */
static void nvfab_tcp_fail_queue_work(struct work_struct *work)
{
	struct nvfab_tcp_queue *queue = container_of(work,
						     struct nvfab_tcp_queue,
						     fail_work);
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	int qid = queue->qid;

	nvfab_tcp_stop_queue(ctrl, qid);
	if (!qid && ctrl->admin_tagset_live)
		blk_mq_tagset_busy_iter(&ctrl->admin_tagset,
					nvfab_tcp_cancel_queue_rq, queue);
	else if (ctrl->tagset_live)
		blk_mq_tagset_busy_iter(&ctrl->tagset,
					nvfab_tcp_cancel_queue_rq, queue);
}

static void nvfab_tcp_rcv_reset(struct nvfab_tcp_queue *queue)
{
	queue->rcv_state = NVFAB_TCP_RECV_PDU;
	queue->pdu_offset = 0;
	queue->pdu_len = NVFAB_TCP_RX_HLEN + nvfab_tcp_hdgst_len(queue);
	queue->rcv_req = NULL;
	queue->rcv_success = false;
}

/*
 * The request a received PDU names by CID; NULL after reporting it. A PDU
 * for a command that is not waiting for the target (never sent, completed
 * already, or answered and only finishing its send) is a fatal protocol
 * error for the queue (NVMe/TCP 1.0, 3.6.2.1 and 3.6.2.3).
 */
static struct request *nvfab_tcp_pdu_rq(struct nvfab_tcp_queue *queue,
					u16 cid, const char *what)
{
	struct request *rq = nvfab_find_rq(nvfab_queue_tags(&queue->ctrl->ctrl,
							    queue->qid), cid);
	struct nvfab_tcp_request *req;

	if (!rq) {
		nvfab_tcp_error(queue, "%s for CID 0x%x, which names no command in flight",
				what, cid);
		return NULL;
	}
	req = blk_mq_rq_to_pdu(rq);
	if (req->rsp_pending) {
		nvfab_tcp_error(queue, "%s for CID 0x%x after its CapsuleResp",
				what, cid);
		return NULL;
	}
	return rq;
}

static int nvfab_tcp_complete_cqe(struct nvfab_tcp_queue *queue,
				  struct nvme_completion *cqe)
{
	struct nvfab_tcp_request *req;
	struct request *rq;
	u16 cid = cqe->command_id;

	if (queue->qid == 0 && cid == NVFAB_TCP_AEN_CID) {
		if (!queue->ctrl->aer_outstanding) {
			nvfab_tcp_error(queue, "CapsuleResp for AER CID 0x%x, none outstanding",
					cid);
			return -EPROTO;
		}
		queue->ctrl->aer_outstanding = false;
		nvfab_complete_async_event(&queue->ctrl->ctrl, cqe->status,
					   &cqe->result);
		return 0;
	}
	rq = nvfab_tcp_pdu_rq(queue, cid, "CapsuleResp");
	if (!rq)
		return -EPROTO;
	req = blk_mq_rq_to_pdu(rq);
	if (!(le16_to_cpu(cqe->status) >> 1) && req->data_len &&
	    (rq_data_dir(rq) == READ ? req->data_recvd : req->data_sent) !=
	    req->data_len) {
		nvfab_tcp_error(queue, "CapsuleResp success for CID 0x%x after %u of %u data bytes",
				cid, rq_data_dir(rq) == READ ? req->data_recvd :
				req->data_sent, req->data_len);
		return -EPROTO;
	}
	if (req->send_busy) {
		/* The target answered before taking all data: finish later. */
		req->rsp_pending = true;
		req->rsp_status = cqe->status;
		req->rsp_result = cqe->result;
		return 0;
	}
	nvfab_tcp_complete_req(req, cqe->status, cqe->result);
	queue->nr_cqe++;
	return 0;
}

/* A transfer of @x described by request @req (@rq its block request). */
static void nvfab_tcp_xfer_of(struct nvfab_tcp_request *req, struct request *rq,
			      struct nvfab_tcp_xfer *x)
{
	x->read = rq_data_dir(rq) == READ;
	x->busy = req->send_busy;
	x->data_len = req->data_len;
	x->done = x->read ? req->data_recvd : req->data_sent;
	x->inline_len = req->inline_len;
	x->r2t_left = req->r2t_left;
}

/**
 * nvfab_tcp_check_c2h() - validate a C2HData PDU against its command
 * @pdu: the PDU header (common header already checked)
 * @x: the command's transfer state
 * @hdr_digest: header digests negotiated
 * @data_digest: data digests negotiated
 * @hpda: Host PDU Data Alignment the host asked for in its ICReq
 *	   (NVFAB_TCP_HPDA)
 * @why: set to the reason on failure
 *
 * NVMe/TCP 1.0, 3.6.2.9: data must belong to a read, arrive in order,
 * stay inside the command's buffer, start at a PDO aligned to HPDA (the
 * alignment of the data in PDUs the controller sends to the host, 3.6.2.2;
 * CPDA is that of the host's own PDUs, 3.6.2.3), and the SUCCESS flag
 * needs LAST_PDU and the whole transfer.
 *
 * Context: any context.
 * Return: 0, or -EPROTO.
 */
VISIBLE_IF_KUNIT int nvfab_tcp_check_c2h(const struct nvme_tcp_data_pdu *pdu,
					 const struct nvfab_tcp_xfer *x,
					 bool hdr_digest, bool data_digest,
					 u8 hpda, const char **why)
{
	u32 off = le32_to_cpu(pdu->data_offset);
	u32 len = le32_to_cpu(pdu->data_length);
	size_t pdo_min = sizeof(*pdu) + (hdr_digest ? NVME_TCP_DIGEST_LENGTH : 0);
	size_t ddgst = data_digest ? NVME_TCP_DIGEST_LENGTH : 0;
	size_t align = (hpda + 1) * 4;

	*why = NULL;
	if (x->busy)
		*why = "data before the command was sent";
	else if (!x->read || !x->data_len)
		*why = "data for a command that reads none";
	else if (!len)
		*why = "zero DATAL";
	else if (off != x->done)
		*why = "DATAO out of order";
	else if (len > x->data_len - off)
		*why = "data beyond the command's buffer";
	else if (pdu->hdr.pdo < pdo_min || pdu->hdr.pdo % align ||
		 pdu->hdr.pdo - pdo_min >= align)
		*why = "PDO invalid for HLEN and HPDA";
	else if (le32_to_cpu(pdu->hdr.plen) != pdu->hdr.pdo + len + ddgst)
		*why = "PLEN does not match PDO + DATAL";
	else if ((pdu->hdr.flags & NVME_TCP_F_DATA_SUCCESS) &&
		 !(pdu->hdr.flags & NVME_TCP_F_DATA_LAST))
		*why = "SUCCESS without LAST_PDU";
	else if ((pdu->hdr.flags & NVME_TCP_F_DATA_SUCCESS) &&
		 off + len != x->data_len)
		*why = "SUCCESS before the whole transfer";
	return *why ? -EPROTO : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_tcp_check_c2h);

/**
 * nvfab_tcp_check_r2t() - validate an R2T PDU against its command
 * @pdu: the PDU (common header already checked)
 * @x: the command's transfer state
 * @why: set to the reason on failure
 *
 * NVMe/TCP 1.0, 3.6.2.8: an R2T solicits data of a write that was not sent
 * in capsule, in order, inside the buffer, one at a time (MAXR2T is 1).
 *
 * Context: any context.
 * Return: 0, or -EPROTO.
 */
VISIBLE_IF_KUNIT int nvfab_tcp_check_r2t(const struct nvme_tcp_r2t_pdu *pdu,
					 const struct nvfab_tcp_xfer *x,
					 const char **why)
{
	u32 off = le32_to_cpu(pdu->r2t_offset);
	u32 len = le32_to_cpu(pdu->r2t_length);

	*why = NULL;
	if (x->read || !x->data_len)
		*why = "R2T for a command that writes no data";
	else if (x->inline_len)
		*why = "R2T for data sent in capsule";
	else if (x->busy || x->r2t_left)
		*why = "R2T while another is in progress";
	else if (!len)
		*why = "zero R2TL";
	else if (off != x->done)
		*why = "R2TO out of order";
	else if (len > x->data_len - off)
		*why = "R2T beyond the command's buffer";
	return *why ? -EPROTO : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_tcp_check_r2t);

static int nvfab_tcp_handle_c2h_data(struct nvfab_tcp_queue *queue,
				     struct nvme_tcp_data_pdu *pdu)
{
	size_t pdo_min = sizeof(*pdu) + nvfab_tcp_hdgst_len(queue);
	struct nvfab_tcp_request *req;
	struct nvfab_tcp_xfer x;
	struct request *rq;
	const char *why;

	rq = nvfab_tcp_pdu_rq(queue, pdu->command_id, "C2HData");
	if (!rq)
		return -EPROTO;
	req = blk_mq_rq_to_pdu(rq);
	nvfab_tcp_xfer_of(req, rq, &x);
	if (nvfab_tcp_check_c2h(pdu, &x, queue->hdr_digest, queue->data_digest,
				NVFAB_TCP_HPDA, &why)) {
		nvfab_tcp_error(queue, "C2HData CID 0x%x o %u l %u pdo %u plen %u (%u/%u): %s",
				pdu->command_id, le32_to_cpu(pdu->data_offset),
				le32_to_cpu(pdu->data_length), pdu->hdr.pdo,
				le32_to_cpu(pdu->hdr.plen), x.done, x.data_len,
				why);
		return -EPROTO;
	}

	if (!req->data_recvd) {
		req->curr_bio = rq->bio;
		nvfab_tcp_init_iter(req, ITER_DEST);
	}
	queue->rcv_req = req;
	queue->rcv_success = pdu->hdr.flags & NVME_TCP_F_DATA_SUCCESS;
	queue->pad_left = pdu->hdr.pdo - pdo_min;
	queue->data_left = le32_to_cpu(pdu->data_length);
	queue->rcv_crc = ~0U;
	queue->rcv_state = queue->pad_left ? NVFAB_TCP_RECV_PAD :
					     NVFAB_TCP_RECV_DATA;
	return 0;
}

static int nvfab_tcp_handle_r2t(struct nvfab_tcp_queue *queue,
				struct nvme_tcp_r2t_pdu *pdu)
{
	struct nvfab_tcp_request *req;
	struct nvfab_tcp_xfer x;
	struct request *rq;
	const char *why;

	rq = nvfab_tcp_pdu_rq(queue, pdu->command_id, "R2T");
	if (!rq)
		return -EPROTO;
	req = blk_mq_rq_to_pdu(rq);
	nvfab_tcp_xfer_of(req, rq, &x);
	if (nvfab_tcp_check_r2t(pdu, &x, &why)) {
		nvfab_tcp_error(queue, "R2T CID 0x%x R2TO %u R2TL %u (command %u of %u bytes): %s",
				pdu->command_id, le32_to_cpu(pdu->r2t_offset),
				le32_to_cpu(pdu->r2t_length), x.done,
				x.data_len, why);
		return -EPROTO;
	}
	if (!req->data_sent) {
		req->curr_bio = rq->bio;
		nvfab_tcp_init_iter(req, ITER_SOURCE);
	}
	req->ttag = pdu->ttag;
	req->r2t_left = le32_to_cpu(pdu->r2t_length);
	nvfab_tcp_setup_h2c_pdu(req);
	nvfab_tcp_queue_request(req, true);
	return 0;
}

/**
 * nvfab_tcp_check_hdr() - validate the common header of a received PDU
 * @hdr: the first bytes of the PDU (NVMe/TCP 1.0, 3.6.1)
 * @hdr_digest: header digests negotiated
 * @data_digest: data digests negotiated
 * @why: set to the reason on failure
 *
 * After ICResp a host may only receive CapsuleResp, C2HData, R2T and
 * C2HTermReq, all with a 24-byte header. HDGSTF and DDGSTF must match what
 * was negotiated; PDUs without data have PDO 0 and PLEN = HLEN (+ digest).
 *
 * Context: any context.
 * Return: 0, or -EPROTO.
 */
VISIBLE_IF_KUNIT int nvfab_tcp_check_hdr(const struct nvme_tcp_hdr *hdr,
					 bool hdr_digest, bool data_digest,
					 const char **why)
{
	size_t hdgst = hdr_digest ? NVME_TCP_DIGEST_LENGTH : 0;
	u32 plen = le32_to_cpu(hdr->plen);

	switch (hdr->type) {
	case nvme_tcp_c2h_term:
		if (plen < NVME_TCP_MIN_C2HTERM_PLEN ||
		    plen > NVME_TCP_MAX_C2HTERM_PLEN) {
			*why = "C2HTermReq PLEN out of range";
			return -EPROTO;
		}
		return 0;
	case nvme_tcp_rsp:
	case nvme_tcp_r2t:
	case nvme_tcp_c2h_data:
		break;
	default:
		*why = "unexpected PDU type";
		return -EPROTO;
	}
	if (hdr->hlen != NVFAB_TCP_RX_HLEN) {
		*why = "bad HLEN";
		return -EPROTO;
	}
	if (!!(hdr->flags & NVME_TCP_F_HDGST) != hdr_digest) {
		*why = "HDGSTF does not match the negotiated header digest";
		return -EPROTO;
	}
	if (hdr->type == nvme_tcp_c2h_data) {
		if (!!(hdr->flags & NVME_TCP_F_DDGST) != data_digest) {
			*why = "DDGSTF does not match the negotiated data digest";
			return -EPROTO;
		}
		return 0;	/* PDO and PLEN depend on the command */
	}
	if (hdr->flags & NVME_TCP_F_DDGST) {
		*why = "DDGSTF on a PDU without data";
		return -EPROTO;
	}
	if (hdr->pdo) {
		*why = "PDO on a PDU without data";
		return -EPROTO;
	}
	if (plen != hdr->hlen + hdgst) {
		*why = "PLEN does not match HLEN";
		return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_tcp_check_hdr);

static int nvfab_tcp_handle_pdu(struct nvfab_tcp_queue *queue)
{
	struct nvme_tcp_hdr *hdr = (struct nvme_tcp_hdr *)queue->pdu;
	const char *why = NULL;

	if (nvfab_tcp_check_hdr(hdr, queue->hdr_digest, queue->data_digest,
				&why)) {
		nvfab_tcp_error(queue, "PDU type 0x%x: %s", hdr->type, why);
		return -EPROTO;
	}
	if (hdr->type == nvme_tcp_c2h_term) {
		struct nvme_tcp_term_pdu *term = (void *)hdr;

		nvfab_tcp_error(queue, "C2HTermReq from the target, FES 0x%x",
				le16_to_cpu(term->fes));
		return -ECONNRESET;
	}
	if (queue->hdr_digest) {
		__le32 got = *(__le32 *)(queue->pdu + hdr->hlen);
		__le32 want = nvfab_tcp_digest(hdr, hdr->hlen);

		if (got != want) {
			nvfab_tcp_error(queue, "header digest mismatch: 0x%08x, expected 0x%08x",
					le32_to_cpu(got), le32_to_cpu(want));
			return -EPROTO;
		}
	}

	switch (hdr->type) {
	case nvme_tcp_rsp:
		nvfab_tcp_rcv_reset(queue);
		return nvfab_tcp_complete_cqe(queue,
			&((struct nvme_tcp_rsp_pdu *)hdr)->cqe);
	case nvme_tcp_r2t:
		nvfab_tcp_rcv_reset(queue);
		return nvfab_tcp_handle_r2t(queue, (void *)hdr);
	default:
		return nvfab_tcp_handle_c2h_data(queue, (void *)hdr);
	}
}

static void nvfab_tcp_data_done(struct nvfab_tcp_queue *queue)
{
	struct nvfab_tcp_request *req = queue->rcv_req;
	bool success = queue->rcv_success;
	union nvme_result res = { };

	nvfab_tcp_rcv_reset(queue);
	if (success) {
		nvfab_tcp_complete_req(req, cpu_to_le16(NVME_SC_SUCCESS << 1),
				       res);
		queue->nr_cqe++;
	}
}

/*
 * The CRC-32C of @len bytes of @skb from @offset, continuing @crc: the
 * data digest of received data is computed from what arrived, never from
 * the destination after the copy, which user space may change meanwhile
 * (a buffer it writes during an O_DIRECT read). Returns -EFAULT when the
 * skb has fewer readable bytes.
 */
static int nvfab_tcp_crc_skb(u32 *crc, struct sk_buff *skb,
			     unsigned int offset, size_t len)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;

	skb_prepare_seq_read(skb, offset, offset + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &data, &st);
		if (!n)
			break;
		/* a block may run past the end asked for */
		n = min_t(unsigned int, n, len - done);
		*crc = crc32c(*crc, data, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return done == len ? 0 : -EFAULT;
}

static int nvfab_tcp_recv_data(struct nvfab_tcp_queue *queue,
			       struct sk_buff *skb, unsigned int *offset,
			       size_t *len)
{
	struct nvfab_tcp_request *req = queue->rcv_req;

	while (*len && queue->data_left) {
		size_t n;
		int ret;

		if (!nvfab_tcp_advance_bio(req, ITER_DEST)) {
			nvfab_tcp_error(queue, "C2HData beyond the request's buffer");
			return -EPROTO;
		}
		n = min3(*len, queue->data_left, iov_iter_count(&req->iter));
		ret = 0;
		if (queue->data_digest)
			ret = nvfab_tcp_crc_skb(&queue->rcv_crc, skb, *offset, n);
		if (!ret)
			ret = skb_copy_datagram_iter(skb, *offset, &req->iter, n);
		if (ret) {
			nvfab_tcp_error(queue, "copying C2HData failed: %d", ret);
			return ret;
		}
		*offset += n;
		*len -= n;
		queue->data_left -= n;
		req->data_recvd += n;
	}
	if (queue->data_left)
		return 0;
	if (queue->data_digest) {
		queue->ddgst_left = NVME_TCP_DIGEST_LENGTH;
		queue->rcv_state = NVFAB_TCP_RECV_DDGST;
		return 0;
	}
	nvfab_tcp_data_done(queue);
	return 0;
}

static int nvfab_tcp_recv_ddgst(struct nvfab_tcp_queue *queue,
				struct sk_buff *skb, unsigned int *offset,
				size_t *len)
{
	size_t n = min(*len, queue->ddgst_left);
	u8 *dst = (u8 *)&queue->rcv_ddgst + NVME_TCP_DIGEST_LENGTH -
		  queue->ddgst_left;
	__le32 want;

	if (skb_copy_bits(skb, *offset, dst, n))
		return -EFAULT;
	*offset += n;
	*len -= n;
	queue->ddgst_left -= n;
	if (queue->ddgst_left)
		return 0;
	want = cpu_to_le32(~queue->rcv_crc);
	if (queue->rcv_ddgst != want) {
		nvfab_tcp_error(queue, "data digest mismatch: 0x%08x, expected 0x%08x",
				le32_to_cpu(queue->rcv_ddgst), le32_to_cpu(want));
		return -EPROTO;
	}
	nvfab_tcp_data_done(queue);
	return 0;
}

static int nvfab_tcp_recv_skb(read_descriptor_t *desc, struct sk_buff *skb,
			      unsigned int offset, size_t len)
{
	struct nvfab_tcp_queue *queue = desc->arg.data;
	size_t consumed = len;
	int ret = 0;

	while (len && nvfab_tcp_receiving(queue)) {
		switch (queue->rcv_state) {
		case NVFAB_TCP_RECV_PDU: {
			size_t n = min(len, queue->pdu_len - queue->pdu_offset);

			ret = skb_copy_bits(skb, offset,
					    queue->pdu + queue->pdu_offset, n);
			if (ret)
				break;
			offset += n;
			len -= n;
			queue->pdu_offset += n;
			if (queue->pdu_offset == queue->pdu_len)
				ret = nvfab_tcp_handle_pdu(queue);
			break;
		}
		case NVFAB_TCP_RECV_PAD: {
			size_t n = min(len, queue->pad_left);

			offset += n;
			len -= n;
			queue->pad_left -= n;
			if (!queue->pad_left)
				queue->rcv_state = NVFAB_TCP_RECV_DATA;
			break;
		}
		case NVFAB_TCP_RECV_DATA:
			ret = nvfab_tcp_recv_data(queue, skb, &offset, &len);
			break;
		case NVFAB_TCP_RECV_DDGST:
			ret = nvfab_tcp_recv_ddgst(queue, skb, &offset, &len);
			break;
		}
		if (ret) {
			/* reported already, unless skb_copy_bits() failed */
			nvfab_tcp_error(queue, "receive failed: %d", ret);
			desc->error = ret;
			return ret;
		}
	}
	return consumed;
}

static int nvfab_tcp_try_recv(struct nvfab_tcp_queue *queue)
{
	struct socket *sock = queue->sock;
	struct sock *sk = sock->sk;
	read_descriptor_t desc = { .arg.data = queue, .count = 1 };
	int consumed;

	lock_sock(sk);
	consumed = sock->ops->read_sock(sk, &desc, nvfab_tcp_recv_skb);
	release_sock(sk);
	/*
	 * kTLS's read_sock: -EAGAIN while a record is incomplete; another
	 * error for a record that is not data (an alert), one that does not
	 * decrypt, or a broken session. Such an error fails the queue (one
	 * of nvfab_tcp_recv_skb() failed it already).
	 */
	if (consumed == -EAGAIN)
		return 0;
	if (consumed < 0 && !desc.error)
		nvfab_tcp_error(queue, "receive failed: %d%s", consumed,
				queue->tls ? " (TLS alert or record error)" : "");
	return consumed;
}

static void nvfab_tcp_io_work(struct work_struct *work)
{
	struct nvfab_tcp_queue *queue = container_of(work,
					struct nvfab_tcp_queue, io_work);
	unsigned long deadline = jiffies + NVFAB_TCP_IO_BUDGET;
	bool pending;

	set_bit(NVFAB_TCP_Q_KICK, &queue->flags);
	/* Pairs with nvfab_tcp_release(): KICK set before BUSY is tried. */
	smp_mb__after_atomic();
	if (!nvfab_tcp_own(queue))
		return;		/* the owner runs us again when it lets go */
	clear_bit(NVFAB_TCP_Q_KICK, &queue->flags);
	do {
		int ret;

		pending = false;
		ret = nvfab_tcp_try_send(queue);
		if (ret > 0) {
			pending = true;
		} else if (ret < 0) {
			nvfab_tcp_error(queue, "send failed: %d", ret);
			break;
		}
		if (!nvfab_tcp_receiving(queue)) {
			pending = false;
			break;
		}
		ret = nvfab_tcp_try_recv(queue);
		if (ret > 0) {
			pending = true;
		} else if (ret < 0) {
			pending = false;
			break;
		}
		if (!nvfab_tcp_receiving(queue))
			pending = false;
	} while (pending && !time_after(jiffies, deadline));
	nvfab_tcp_release(queue);

	if (pending)
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
}

/* ---- socket callbacks ---- */

/*
 * May data_ready, owning @queue, receive what waits on @sk itself? Only on
 * the queue's own CPU, where io_work would run it anyway (elsewhere the
 * copy and the completions would land on the CPU that took the packets),
 * and only when that is quick: a new PDU with little waiting, or the rest
 * of the current PDU's data all here. A large read streaming in stays
 * io_work's, which takes it in few large reads (and few window updates)
 * instead of one per segment.
 */
static bool nvfab_tcp_recv_inline(struct nvfab_tcp_queue *queue,
				  struct sock *sk)
{
	int inq = tcp_inq(sk);

	if (queue->tls || raw_smp_processor_id() != queue->io_cpu)
		return false;
	if (queue->rcv_state == NVFAB_TCP_RECV_PDU)
		return inq <= NVFAB_TCP_RECV_INLINE_MAX;
	return queue->rcv_state == NVFAB_TCP_RECV_DATA &&
	       queue->data_left + nvfab_tcp_ddgst_len(queue) <= inq;
}

/*
 * Called with the socket locked: in softirq with its spinlock held and not
 * owned by a task, or by the owning task from release_sock(). In softirq,
 * receive here when the queue is free and nvfab_tcp_recv_inline() says so:
 * no work item, no context switch. Otherwise io_work receives.
 */
static void nvfab_tcp_data_ready(struct sock *sk)
{
	struct nvfab_tcp_queue *queue;

	read_lock_bh(&sk->sk_callback_lock);
	queue = sk->sk_user_data;
	/* A polled queue is read by its poller while it polls. */
	if (unlikely(!queue || !nvfab_tcp_receiving(queue)) ||
	    test_bit(NVFAB_TCP_Q_POLLING, &queue->flags))
		goto out;
	if (!sock_owned_by_user(sk) && nvfab_tcp_own(queue)) {
		read_descriptor_t desc = { .arg.data = queue, .count = 1 };
		bool inline_rcv = nvfab_tcp_recv_inline(queue, sk);

		if (inline_rcv)
			queue->sock->ops->read_sock(sk, &desc,
						    nvfab_tcp_recv_skb);
		nvfab_tcp_release(queue);
		if (inline_rcv)
			goto out;
	}
	queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
out:
	read_unlock_bh(&sk->sk_callback_lock);
}

static void nvfab_tcp_write_space(struct sock *sk)
{
	struct nvfab_tcp_queue *queue;

	read_lock_bh(&sk->sk_callback_lock);
	queue = sk->sk_user_data;
	if (likely(queue && sk_stream_is_writeable(sk))) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void nvfab_tcp_state_change(struct sock *sk)
{
	struct nvfab_tcp_queue *queue;

	read_lock_bh(&sk->sk_callback_lock);
	queue = sk->sk_user_data;
	if (!queue)
		goto out;
	switch (sk->sk_state) {
	case TCP_CLOSE:
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_FIN_WAIT1:
	case TCP_FIN_WAIT2:
		/*
		 * During a connect too: the command it waits for fails now.
		 * A queue that failed already (a protocol error, then the
		 * target's close) is failed once.
		 */
		if (!nvfab_change_queue_state(&queue->ctrl->ctrl, queue->qid,
					      NVFAB_QUEUE_FAILED))
			break;
		dev_info(queue->ctrl->ctrl.device, "queue %d: connection closed (state %d)\n",
			 queue->qid, sk->sk_state);
		nvfab_tcp_queue_failed(queue);
		break;
	default:
		break;
	}
	queue->old_state_change(sk);
out:
	read_unlock_bh(&sk->sk_callback_lock);
}

/* ---- queue start and stop ---- */

static void nvfab_tcp_set_sock_opts(struct nvfab_tcp_queue *queue)
{
	struct nvfab_ctrl_options *opts = queue->ctrl->ctrl.opts;
	struct sock *sk = queue->sock->sk;

	sk->sk_allocation = GFP_ATOMIC;
	sk->sk_use_task_frag = false;
	tcp_sock_set_nodelay(sk);
	/* Close aborts: no lingering on a dead target. */
	sock_no_linger(sk);
	if (opts->tos >= 0)
		ip_sock_set_tos(sk, opts->tos);
	sk->sk_rcvtimeo = NVFAB_TCP_ICRESP_TMO * HZ;
	sk->sk_sndtimeo = NVFAB_TCP_ICRESP_TMO * HZ;
}

static int nvfab_tcp_bind(struct nvfab_tcp_queue *queue)
{
	struct nvfab_tcp_ctrl *tctrl = queue->ctrl;
	struct nvfab_ctrl_options *opts = tctrl->ctrl.opts;
	struct sock *sk = queue->sock->sk;
	int ret;

	if (opts->host_iface) {
		struct net_device *ndev = dev_get_by_name(&init_net,
							  opts->host_iface);

		if (!ndev) {
			dev_err(tctrl->ctrl.device, "host_iface %s not found\n",
				opts->host_iface);
			return -EINVAL;
		}
		ret = sock_bindtoindex(sk, ndev->ifindex, true);
		dev_put(ndev);
		if (ret) {
			dev_err(tctrl->ctrl.device, "binding to %s failed: %d\n",
				opts->host_iface, ret);
			return ret;
		}
	}
	if (opts->host_traddr) {
		ret = nvfab_kernel_bind(queue->sock, &tctrl->src_addr,
					sizeof(tctrl->src_addr));
		if (ret) {
			dev_err(tctrl->ctrl.device, "binding to %s failed: %d\n",
				opts->host_traddr, ret);
			return ret;
		}
	}
	return 0;
}

/**
 * nvfab_tcp_check_icresp() - validate an ICResp PDU
 * @r: the 128-byte PDU
 * @hdr_digest: header digest requested in ICReq
 * @data_digest: data digest requested in ICReq
 * @why: set to the reason on failure
 *
 * NVMe/TCP 1.0, 3.6.2.3: PFV 0, the digests we asked for (a host may not
 * run with different ones), CPDA 0, MAXH2CDATA at least 4096 and a
 * multiple of 4. CPDA is the alignment the controller wants for the data
 * of the PDUs the host sends it (H2CData, in-capsule data); the host sends
 * that data right behind the header and digest, unpadded, so it refuses
 * a controller that asks for more than the 4 bytes of CPDA 0 rather than
 * send it PDUs it must refuse (the in-kernel host does the same).
 *
 * Context: any context.
 * Return: 0, or -EPROTO.
 */
VISIBLE_IF_KUNIT int nvfab_tcp_check_icresp(const struct nvme_tcp_icresp_pdu *r,
					    bool hdr_digest, bool data_digest,
					    const char **why)
{
	u32 maxdata = le32_to_cpu(r->maxdata);

	*why = NULL;
	if (r->hdr.type != nvme_tcp_icresp)
		*why = "not an ICResp";
	else if (r->hdr.hlen != sizeof(*r) ||
		 le32_to_cpu(r->hdr.plen) != sizeof(*r))
		*why = "HLEN and PLEN must be 128";
	else if (r->hdr.pdo)
		*why = "PDO must be 0";
	else if (le16_to_cpu(r->pfv) != NVME_TCP_PFV_1_0)
		*why = "unsupported PFV";
	else if (!!(r->digest & NVME_TCP_HDR_DIGEST_ENABLE) != hdr_digest ||
		 !!(r->digest & NVME_TCP_DATA_DIGEST_ENABLE) != data_digest)
		*why = "digests differ from those requested";
	else if (r->cpda)
		*why = "CPDA above 0 (padded host PDU data is not supported)";
	else if (maxdata < NVME_TCP_MIN_MAXH2CDATA || maxdata % 4)
		*why = "MAXH2CDATA below 4096 or not a multiple of 4";
	return *why ? -EPROTO : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_tcp_check_icresp);

/* ICReq / ICResp (NVMe/TCP 1.0, 3.6.2.2 and 3.6.2.3). */
static int nvfab_tcp_init_connection(struct nvfab_tcp_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	struct nvfab_ctrl_options *opts = ctrl->opts;
	struct nvme_tcp_icreq_pdu *icreq;
	struct nvme_tcp_icresp_pdu *icresp;
	struct msghdr msg = { };
	const char *why;
	struct kvec iov;
	int ret;

	BUILD_BUG_ON(sizeof(struct nvme_tcp_icreq_pdu) != 128);
	BUILD_BUG_ON(sizeof(struct nvme_tcp_icresp_pdu) != 128);
	BUILD_BUG_ON(sizeof(struct nvme_tcp_data_pdu) != NVFAB_TCP_RX_HLEN);
	BUILD_BUG_ON(sizeof(struct nvme_tcp_rsp_pdu) != NVFAB_TCP_RX_HLEN);
	BUILD_BUG_ON(sizeof(struct nvme_tcp_r2t_pdu) != NVFAB_TCP_RX_HLEN);
	BUILD_BUG_ON(sizeof(struct nvme_tcp_cmd_pdu) != 72);
	/* Headers and their digests are sent from one contiguous buffer. */
	BUILD_BUG_ON(offsetof(struct nvfab_tcp_request, cmd_hdgst) !=
		     offsetof(struct nvfab_tcp_request, cmd_pdu) + 72);
	BUILD_BUG_ON(offsetof(struct nvfab_tcp_request, h2c_hdgst) !=
		     offsetof(struct nvfab_tcp_request, h2c_pdu) + 24);

	icreq = kzalloc(sizeof(*icreq), GFP_KERNEL);
	icresp = kzalloc(sizeof(*icresp), GFP_KERNEL);
	if (!icreq || !icresp) {
		ret = -ENOMEM;
		goto out_free;
	}
	icreq->hdr.type = nvme_tcp_icreq;
	icreq->hdr.hlen = sizeof(*icreq);
	icreq->hdr.pdo = 0;
	icreq->hdr.plen = cpu_to_le32(sizeof(*icreq));
	icreq->pfv = cpu_to_le16(NVME_TCP_PFV_1_0);
	icreq->maxr2t = 0;	/* 0's based: one outstanding R2T */
	icreq->hpda = NVFAB_TCP_HPDA;
	if (opts->hdr_digest)
		icreq->digest |= NVME_TCP_HDR_DIGEST_ENABLE;
	if (opts->data_digest)
		icreq->digest |= NVME_TCP_DATA_DIGEST_ENABLE;

	iov.iov_base = icreq;
	iov.iov_len = sizeof(*icreq);
	ret = kernel_sendmsg(queue->sock, &msg, &iov, 1, iov.iov_len);
	if (ret < 0) {
		dev_err(ctrl->device, "queue %d: sending ICReq failed: %d\n",
			queue->qid, ret);
		goto out_free;
	}

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = icresp;
	iov.iov_len = sizeof(*icresp);
	ret = kernel_recvmsg(queue->sock, &msg, &iov, 1, iov.iov_len,
			     MSG_WAITALL);
	if (ret != sizeof(*icresp)) {
		dev_err(ctrl->device, "queue %d: no ICResp: %d\n", queue->qid,
			ret);
		ret = ret < 0 ? ret : -ECONNRESET;
		goto out_free;
	}

	ret = nvfab_tcp_check_icresp(icresp, opts->hdr_digest,
				     opts->data_digest, &why);
	if (ret) {
		dev_err(ctrl->device, "queue %d: ICResp type %u HLEN %u PLEN %u PFV %u digest 0x%x CPDA %u MAXH2CDATA %u: %s\n",
			queue->qid, icresp->hdr.type, icresp->hdr.hlen,
			le32_to_cpu(icresp->hdr.plen), le16_to_cpu(icresp->pfv),
			icresp->digest, icresp->cpda,
			le32_to_cpu(icresp->maxdata), why);
		goto out_free;
	}
	queue->hdr_digest = opts->hdr_digest;
	queue->data_digest = opts->data_digest;
	queue->maxh2cdata = le32_to_cpu(icresp->maxdata);
	ret = 0;
out_free:
	kfree(icreq);
	kfree(icresp);
	return ret;
}

/*
 * The queue's socket: released at once, or, when it has a file (a TLS
 * queue's, see nvfab_tcp_start_queue()), with the file's last reference;
 * nvfab_tcp_exit() flushes those deferred to a worker.
 */
static void nvfab_tcp_sock_release(struct nvfab_tcp_queue *queue)
{
	if (queue->sock->file)
		fput(queue->sock->file);
	else
		sock_release(queue->sock);
	queue->sock = NULL;
}

/*
 * TLS 1.3 on a connected queue, before ICReq (tls.c). The admin queue's
 * PSK is the controller's from then on: the I/O queues offer it.
 */
static int nvfab_tcp_start_tls(struct nvfab_tcp_queue *queue)
{
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	key_serial_t pskid;
	int ret;

	ret = nvfab_tcp_tls_psk(ctrl, queue->qid, &pskid);
	if (ret)
		return ret;
	ret = nvfab_tcp_tls_handshake(ctrl, queue->sock, queue->qid, pskid);
	if (ret)
		return ret;
	if (!queue->qid)
		WRITE_ONCE(ctrl->tls_pskid, pskid);
	queue->tls = true;
	return 0;
}

static int nvfab_tcp_start_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_tcp_ctrl *tctrl = to_tcp_ctrl(ctrl);
	struct nvfab_tcp_queue *queue = &tctrl->queues[qid];
	struct sock *sk;
	bool v6;
	int ret;

	if (qid >= tctrl->nr_queues)
		return -EINVAL;

	mutex_lock(&queue->queue_lock);
	/* a queue is freed before it is started again */
	if (!nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_STARTING)) {
		mutex_unlock(&queue->queue_lock);
		return -EBUSY;
	}
	memset_startat(queue, 0, ctrl);
	queue->ctrl = tctrl;
	queue->qid = qid;
	/*
	 * An AER belongs to the association that sent it: a new one has none
	 * outstanding, so a completion for the AER CID before this one sends
	 * its own is a protocol error, not an event.
	 */
	if (!qid)
		tctrl->aer_outstanding = false;
	INIT_WORK(&queue->io_work, nvfab_tcp_io_work);
	init_llist_head(&queue->req_list);
	INIT_LIST_HEAD(&queue->send_list);
	queue->io_cpu = qid ? cpumask_local_spread(qid - 1, NUMA_NO_NODE) :
			      WORK_CPU_UNBOUND;

	ret = sock_create_kern(&init_net, tctrl->addr.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &queue->sock);
	if (ret) {
		dev_err(ctrl->device, "queue %d: socket creation failed: %d\n",
			qid, ret);
		goto out_unlock;
	}
	/* the handshake upcall passes the socket to tlshd as a file */
	if (NVFAB_HAVE_TLS && ctrl->opts->tls) {
		struct file *file = sock_alloc_file(queue->sock, O_CLOEXEC,
						    NULL);

		if (IS_ERR(file)) {
			/* sock_alloc_file() released the socket */
			queue->sock = NULL;
			ret = PTR_ERR(file);
			goto out_unlock;
		}
	}
	sk = queue->sock->sk;
	v6 = sk->sk_family == AF_INET6;
	sock_lock_init_class_and_name(sk, "slock-AF_INET-NVFAB",
				      &nvfab_tcp_slock_key[v6],
				      "sk_lock-AF_INET-NVFAB",
				      &nvfab_tcp_sk_key[v6]);
	nvfab_tcp_set_sock_opts(queue);
	ret = nvfab_tcp_bind(queue);
	if (ret)
		goto out_release;

	ret = nvfab_kernel_connect(queue->sock, &tctrl->addr,
				   sizeof(tctrl->addr), 0);
	if (ret) {
		dev_err(ctrl->device, "queue %d: connect to %pISpc failed: %d\n",
			qid, &tctrl->addr, ret);
		goto out_release;
	}
	if (NVFAB_HAVE_TLS && ctrl->opts->tls) {
		ret = nvfab_tcp_start_tls(queue);
		if (ret)
			goto out_release;
	}
	ret = nvfab_tcp_init_connection(queue);
	if (ret)
		goto out_release;

	queue->inline_max = qid ? ctrl->ioccsz * 16 - sizeof(struct nvme_command) :
				  NVME_TCP_ADMIN_CCSZ;
	if (ctrl->icdoff)
		queue->inline_max = 0;
	nvfab_tcp_rcv_reset(queue);
	/* live before the callbacks: an error they see fails the queue */
	nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_LIVE);

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = queue;
	queue->old_data_ready = sk->sk_data_ready;
	queue->old_state_change = sk->sk_state_change;
	queue->old_write_space = sk->sk_write_space;
	sk->sk_data_ready = nvfab_tcp_data_ready;
	sk->sk_state_change = nvfab_tcp_state_change;
	sk->sk_write_space = nvfab_tcp_write_space;
	sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	sk->sk_sndtimeo = MAX_SCHEDULE_TIMEOUT;
	write_unlock_bh(&sk->sk_callback_lock);
	mutex_unlock(&queue->queue_lock);
	/* Data may have arrived before the callbacks were in place. */
	queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
	return 0;

out_release:
	nvfab_tcp_sock_release(queue);
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

static void nvfab_tcp_stop_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_tcp_queue *queue = &to_tcp_ctrl(ctrl)->queues[qid];
	struct sock *sk;

	mutex_lock(&queue->queue_lock);
	if (nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_STOPPED)) {
		sk = queue->sock->sk;
		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = queue->old_data_ready;
		sk->sk_state_change = queue->old_state_change;
		sk->sk_write_space = queue->old_write_space;
		write_unlock_bh(&sk->sk_callback_lock);
		kernel_sock_shutdown(queue->sock, SHUT_RDWR);
		cancel_work_sync(&queue->io_work);
		/*
		 * Wait out a sender in ->queue_rq or a poller (data_ready is
		 * out: its callback is gone, under sk_callback_lock). No KICK:
		 * io_work must not run again.
		 */
		while (!nvfab_tcp_own(queue))
			usleep_range(100, 200);
		clear_bit(NVFAB_TCP_Q_KICK, &queue->flags);
		clear_bit_unlock(NVFAB_TCP_Q_BUSY, &queue->flags);
	}
	mutex_unlock(&queue->queue_lock);
}

static void nvfab_tcp_free_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_tcp_queue *queue = &to_tcp_ctrl(ctrl)->queues[qid];
	struct nvfab_tcp_request *req, *next;
	struct llist_node *node;

	/* before queue_lock: the work takes it to stop the queue */
	cancel_work_sync(&queue->fail_work);
	/* a queue that was not stopped yet (no-op otherwise) */
	nvfab_tcp_stop_queue(ctrl, qid);
	mutex_lock(&queue->queue_lock);
	if (nvfab_queue_state(ctrl, qid) == NVFAB_QUEUE_STOPPED) {
		cancel_work_sync(&queue->io_work);
		/* Requests still listed were cancelled by the core. */
		node = llist_del_all(&queue->req_list);
		llist_for_each_entry_safe(req, next, node, lentry)
			req->send_busy = false;
		list_for_each_entry_safe(req, next, &queue->send_list, entry) {
			list_del(&req->entry);
			req->send_busy = false;
		}
		if (queue->request)
			queue->request->send_busy = false;
		queue->request = NULL;
		nvfab_tcp_sock_release(queue);
		nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_FREE);
	}
	mutex_unlock(&queue->queue_lock);
	/* io_work, cancelled above, may have queued it meanwhile */
	cancel_work_sync(&queue->fail_work);
}

/* ---- blk-mq ---- */

static void nvfab_tcp_setup_cmd_pdu(struct nvfab_tcp_queue *queue,
				    struct nvfab_tcp_request *req)
{
	struct nvme_tcp_cmd_pdu *pdu = &req->cmd_pdu;
	struct nvme_command *c = &pdu->cmd;
	size_t hdgst = nvfab_tcp_hdgst_len(queue);
	size_t ddgst = 0;

	req->inline_len = 0;
	if (req->data_len && req->rq && rq_data_dir(req->rq) == WRITE &&
	    req->data_len <= queue->inline_max)
		req->inline_len = req->data_len;

	c->common.flags |= NVME_CMD_SGL_METABUF;
	if (req->inline_len) {
		c->common.dptr.sgl.addr = cpu_to_le64(queue->ctrl->ctrl.icdoff);
		c->common.dptr.sgl.length = cpu_to_le32(req->inline_len);
		c->common.dptr.sgl.type = (NVME_SGL_FMT_DATA_DESC << 4) |
					  NVME_SGL_FMT_OFFSET;
		ddgst = nvfab_tcp_ddgst_len(queue);
	} else {
		c->common.dptr.sgl.addr = 0;
		c->common.dptr.sgl.length = cpu_to_le32(req->data_len);
		c->common.dptr.sgl.type = (NVME_TRANSPORT_SGL_DATA_DESC << 4) |
					  NVME_SGL_FMT_TRANSPORT_A;
	}

	pdu->hdr.type = nvme_tcp_cmd;
	pdu->hdr.flags = 0;
	if (queue->hdr_digest)
		pdu->hdr.flags |= NVME_TCP_F_HDGST;
	if (ddgst)
		pdu->hdr.flags |= NVME_TCP_F_DDGST;
	pdu->hdr.hlen = sizeof(*pdu);
	pdu->hdr.pdo = req->inline_len ? sizeof(*pdu) + hdgst : 0;
	pdu->hdr.plen = cpu_to_le32(sizeof(*pdu) + hdgst + req->inline_len +
				    ddgst);
	if (queue->hdr_digest)
		req->cmd_hdgst = nvfab_tcp_digest(pdu, sizeof(*pdu));

	req->state = NVFAB_TCP_SEND_CMD_PDU;
	req->hdr_len = sizeof(*pdu) + hdgst;
	req->pdu_sent = 0;
	req->pdu_len = 0;
	req->data_sent = 0;
	req->data_recvd = 0;
	req->r2t_left = 0;
	req->rsp_pending = false;
	if (req->inline_len) {
		req->curr_bio = req->rq->bio;
		nvfab_tcp_init_iter(req, ITER_SOURCE);
	}
}

/*
 * Send what is queued from the submitter's context when nobody else owns
 * @queue; otherwise leave it to io_work, which the owner runs again when it
 * lets go if it is running now (KICK). Context: process; may sleep
 * (BLK_MQ_F_BLOCKING: lock_sock()).
 */
static void nvfab_tcp_send_now(struct nvfab_tcp_queue *queue)
{
	int ret;

	if (!nvfab_tcp_own(queue)) {
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
		return;
	}
	do {
		ret = nvfab_tcp_try_send(queue);
	} while (ret > 0);
	if (ret < 0)
		nvfab_tcp_error(queue, "send failed: %d", ret);
	nvfab_tcp_release(queue);
}

static blk_status_t nvfab_tcp_queue_rq(struct blk_mq_hw_ctx *hctx,
				       const struct blk_mq_queue_data *bd)
{
	struct nvfab_tcp_queue *queue = hctx->driver_data;
	struct nvfab_ctrl *ctrl = &queue->ctrl->ctrl;
	struct request *rq = bd->rq;
	struct nvfab_tcp_request *req = blk_mq_rq_to_pdu(rq);
	blk_status_t ret;

	if (!nvfab_check_ready(ctrl, rq))
		return nvfab_fail_nonready(ctrl, rq);

	ret = nvfab_setup_cmd(rq);
	if (ret)
		return ret;
	req->queue = queue;
	req->rq = rq;
	req->data_len = blk_rq_nr_phys_segments(rq) ?
			blk_rq_payload_bytes(rq) : 0;
	if (unlikely(nvfab_peer_possible()) && req->data_len &&
	    nvfab_peer_rq_has_peer(rq)) {
		/* the bytes would come from, or land in, the stand-in pages */
		dev_warn_ratelimited(ctrl->device,
				     "I/O on peer (device) memory refused: NVMe/TCP cannot place data there\n");
		nvfab_ctrl_count_peer(ctrl, -EREMOTEIO, req->data_len);
		nvfab_cleanup_cmd(rq);
		return nvfab_peer_blk_status(-EREMOTEIO);
	}
	nvfab_tcp_setup_cmd_pdu(queue, req);
	nvfab_start_request(rq);
	req->send_busy = true;
	llist_add(&req->lentry, &queue->req_list);
	if (bd->last)
		nvfab_tcp_send_now(queue);
	return BLK_STS_OK;
}

static void nvfab_tcp_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct nvfab_tcp_queue *queue = hctx->driver_data;

	if (!llist_empty(&queue->req_list))
		nvfab_tcp_send_now(queue);
}

/*
 * blk_mq_ops.poll for HCTX_TYPE_POLL queues: receive inline. The poller may
 * run under rcu_read_lock() (io_uring IOPOLL), so it must not sleep: it
 * takes the socket spinlock with BHs off, as softirq readers of a TCP
 * socket do, and leaves the queue to its owner (only tried, never waited
 * for).
 */
static int nvfab_tcp_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct nvfab_tcp_queue *queue = hctx->driver_data;
	read_descriptor_t desc = { .arg.data = queue, .count = 1 };
	unsigned int before;
	struct sock *sk;

	/* kTLS's read_sock may sleep: io_work reaps a TLS queue. */
	if (!nvfab_tcp_receiving(queue) || queue->tls)
		return 0;
	/* io_work, data_ready or a sender has the queue: it will reap. */
	if (!nvfab_tcp_own(queue))
		return 0;
	sk = queue->sock->sk;
	set_bit(NVFAB_TCP_Q_POLLING, &queue->flags);
	before = READ_ONCE(queue->nr_cqe);
	local_bh_disable();
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		queue->sock->ops->read_sock(sk, &desc, nvfab_tcp_recv_skb);
	bh_unlock_sock(sk);
	local_bh_enable();
	clear_bit(NVFAB_TCP_Q_POLLING, &queue->flags);
	nvfab_tcp_release(queue);
	/* Data that arrived while we polled is io_work's again. */
	if (!skb_queue_empty_lockless(&sk->sk_receive_queue))
		queue_work_on(queue->io_cpu, nvfab_tcp_wq, &queue->io_work);
	return READ_ONCE(queue->nr_cqe) - before;
}

static enum blk_eh_timer_return nvfab_tcp_timeout(struct request *rq)
{
	struct nvfab_tcp_request *req = blk_mq_rq_to_pdu(rq);
	struct nvfab_ctrl *ctrl = req->req.ctrl;
	int qid = req->queue ? req->queue->qid : 0;

	dev_warn(ctrl->device, "queue %d: command 0x%x (opcode 0x%x) timed out\n",
		 qid, nvfab_cid(rq), req->req.cmd->common.opcode);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE) {
		/*
		 * Connecting or tearing down: nobody else will recover this
		 * queue. Stop it so the command can no longer complete, then
		 * fail it; the caller unwinds.
		 */
		nvfab_tcp_stop_queue(ctrl, qid);
		nvfab_cancel_request(rq, NULL);
		return BLK_EH_DONE;
	}
	nvfab_error_recovery(ctrl);
	return BLK_EH_RESET_TIMER;
}

static int nvfab_tcp_init_request(struct blk_mq_tag_set *set,
				  struct request *rq, unsigned int hctx_idx,
				  int numa_node)
{
	struct nvfab_tcp_ctrl *tctrl = set->driver_data;
	struct nvfab_tcp_request *req = blk_mq_rq_to_pdu(rq);
	int qid = set == &tctrl->ctrl.admin_tagset ? 0 : hctx_idx + 1;

	req->req.cmd = &req->cmd_pdu.cmd;
	req->req.ctrl = &tctrl->ctrl;
	req->queue = &tctrl->queues[qid];
	req->rq = rq;
	return 0;
}

NVFAB_DEFINE_INIT_REQUEST(nvfab_tcp_init_request);

static int nvfab_tcp_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			       unsigned int hctx_idx)
{
	struct nvfab_tcp_ctrl *tctrl = data;

	hctx->driver_data = &tctrl->queues[hctx_idx + 1];
	return 0;
}

static int nvfab_tcp_init_admin_hctx(struct blk_mq_hw_ctx *hctx, void *data,
				     unsigned int hctx_idx)
{
	struct nvfab_tcp_ctrl *tctrl = data;

	hctx->driver_data = &tctrl->queues[0];
	return 0;
}

static const struct blk_mq_ops nvfab_tcp_mq_ops = {
	.queue_rq	= nvfab_tcp_queue_rq,
	.commit_rqs	= nvfab_tcp_commit_rqs,
	.complete	= nvfab_complete_rq,
	.init_request	= NVFAB_INIT_REQUEST(nvfab_tcp_init_request),
	.init_hctx	= nvfab_tcp_init_hctx,
	.timeout	= nvfab_tcp_timeout,
	.map_queues	= nvfab_map_queues,
	.poll		= nvfab_tcp_poll,
};

static const struct blk_mq_ops nvfab_tcp_admin_mq_ops = {
	.queue_rq	= nvfab_tcp_queue_rq,
	.complete	= nvfab_complete_rq,
	.init_request	= NVFAB_INIT_REQUEST(nvfab_tcp_init_request),
	.init_hctx	= nvfab_tcp_init_admin_hctx,
	.timeout	= nvfab_tcp_timeout,
};

/* ---- controller ---- */

static void nvfab_tcp_submit_async_event(struct nvfab_ctrl *ctrl)
{
	struct nvfab_tcp_ctrl *tctrl = to_tcp_ctrl(ctrl);
	struct nvfab_tcp_queue *queue = &tctrl->queues[0];
	struct nvfab_tcp_request *req = &tctrl->async_req;
	struct nvme_tcp_cmd_pdu *pdu = &req->cmd_pdu;
	size_t hdgst = nvfab_tcp_hdgst_len(queue);

	if (!nvfab_queue_live(ctrl, 0) || req->send_busy)
		return;
	memset(pdu, 0, sizeof(*pdu));
	pdu->hdr.type = nvme_tcp_cmd;
	if (queue->hdr_digest)
		pdu->hdr.flags |= NVME_TCP_F_HDGST;
	pdu->hdr.hlen = sizeof(*pdu);
	pdu->hdr.plen = cpu_to_le32(sizeof(*pdu) + hdgst);
	pdu->cmd.common.opcode = nvme_admin_async_event;
	pdu->cmd.common.command_id = NVFAB_TCP_AEN_CID;
	pdu->cmd.common.flags |= NVME_CMD_SGL_METABUF;
	pdu->cmd.common.dptr.sgl.type = (NVME_TRANSPORT_SGL_DATA_DESC << 4) |
					NVME_SGL_FMT_TRANSPORT_A;
	if (queue->hdr_digest)
		req->cmd_hdgst = nvfab_tcp_digest(pdu, sizeof(*pdu));
	req->queue = queue;
	req->rq = NULL;
	req->data_len = 0;
	req->inline_len = 0;
	req->state = NVFAB_TCP_SEND_CMD_PDU;
	req->hdr_len = sizeof(*pdu) + hdgst;
	req->pdu_sent = 0;
	req->rsp_pending = false;
	tctrl->aer_outstanding = true;
	nvfab_tcp_queue_request(req, true);
}

static int nvfab_tcp_get_address(struct nvfab_ctrl *ctrl, char *buf, int size)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;
	int len;

	len = scnprintf(buf, size, "traddr=%s,trsvcid=%s", opts->traddr,
			opts->trsvcid ? opts->trsvcid :
			(opts->discovery_nqn ? NVFAB_TCP_DISC_PORT :
					       NVFAB_TCP_PORT));
	if (opts->host_traddr)
		len += scnprintf(buf + len, size - len, ",host_traddr=%s",
				 opts->host_traddr);
	if (opts->host_iface)
		len += scnprintf(buf + len, size - len, ",host_iface=%s",
				 opts->host_iface);
	return len;
}

static void nvfab_tcp_free_ctrl(struct nvfab_ctrl *ctrl)
{
	struct nvfab_tcp_ctrl *tctrl = to_tcp_ctrl(ctrl);
	unsigned int i;

	/*
	 * A queue that failed while it started is never freed by the core:
	 * its fail_work may still be queued.
	 */
	for (i = 0; i < tctrl->nr_queues; i++)
		cancel_work_sync(&tctrl->queues[i].fail_work);
	mutex_lock(&nvfab_tcp_ctrl_mutex);
	list_del(&tctrl->list);
	mutex_unlock(&nvfab_tcp_ctrl_mutex);
	nvfab_free_options(ctrl->opts);
	kfree(tctrl->queues);
	kfree(tctrl);
}

/*
 * nvfab_ctrl_ops.peer_distance: NVMe/TCP reaches no peer memory, so the
 * multipath head routes such I/O to other paths.
 */
static int nvfab_tcp_peer_distance(struct nvfab_ctrl *ctrl, struct page *page)
{
	return nvfab_peer_page_distance(page, NULL);
}

static const struct nvfab_ctrl_ops nvfab_tcp_ctrl_ops = {
	.name			= "tcp",
	.module			= THIS_MODULE,
	.admin_mq_ops		= &nvfab_tcp_admin_mq_ops,
	.io_mq_ops		= &nvfab_tcp_mq_ops,
	.cmd_size		= sizeof(struct nvfab_tcp_request),
	.blocking		= true,
	.start_queue		= nvfab_tcp_start_queue,
	.stop_queue		= nvfab_tcp_stop_queue,
	.free_queue		= nvfab_tcp_free_queue,
	.submit_async_event	= nvfab_tcp_submit_async_event,
	.free_ctrl		= nvfab_tcp_free_ctrl,
	.get_address		= nvfab_tcp_get_address,
	.peer_distance		= nvfab_tcp_peer_distance,
};

/*
 * A controller not being deleted on the same path (nvfab_opts_same_path())?
 * Called with nvfab_tcp_ctrl_mutex held.
 */
static bool nvfab_tcp_existing(struct nvfab_ctrl_options *opts)
{
	struct nvfab_tcp_ctrl *tctrl;
	bool found = false;

	lockdep_assert_held(&nvfab_tcp_ctrl_mutex);
	list_for_each_entry(tctrl, &nvfab_tcp_ctrl_list, list) {
		struct nvfab_ctrl_options *o = tctrl->ctrl.opts;

		if (nvfab_opts_same_path(o, opts, opts->discovery_nqn ?
					 NVFAB_TCP_DISC_PORT : NVFAB_TCP_PORT) &&
		    nvfab_ctrl_state(&tctrl->ctrl) < NVFAB_CTRL_DELETING) {
			found = true;
			break;
		}
	}
	return found;
}

/*
 * -EALREADY, logged, when @opts asks for a path that has a controller and
 * not for duplicate_connect; 0 otherwise. Called with nvfab_tcp_ctrl_mutex.
 */
static int nvfab_tcp_duplicate(struct nvfab_ctrl_options *opts)
{
	if (opts->duplicate_connect || !nvfab_tcp_existing(opts))
		return 0;
	pr_err("already connected to %s at %s (use duplicate_connect)\n",
	       opts->subsysnqn, opts->traddr);
	return -EALREADY;
}

static struct nvfab_ctrl *nvfab_tcp_create_ctrl(struct device *dev,
						struct nvfab_ctrl_options *opts)
{
	struct nvfab_tcp_ctrl *tctrl;
	const char *port;
	unsigned int i;
	int ret;

	/* the common case, refused before a device appears */
	mutex_lock(&nvfab_tcp_ctrl_mutex);
	ret = nvfab_tcp_duplicate(opts);
	mutex_unlock(&nvfab_tcp_ctrl_mutex);
	if (ret)
		return ERR_PTR(ret);

	tctrl = kzalloc(sizeof(*tctrl), GFP_KERNEL);
	if (!tctrl)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&tctrl->list);

	port = opts->trsvcid ? opts->trsvcid :
	       (opts->discovery_nqn ? NVFAB_TCP_DISC_PORT : NVFAB_TCP_PORT);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, opts->traddr, port,
				   &tctrl->addr);
	if (ret) {
		pr_err("traddr=%s trsvcid=%s is not an IP address and port\n",
		       opts->traddr, port);
		ret = -EINVAL;
		goto out_free;
	}
	if (opts->host_traddr) {
		ret = inet_pton_with_scope(&init_net, tctrl->addr.ss_family,
					   opts->host_traddr, NULL,
					   &tctrl->src_addr);
		if (ret) {
			pr_err("host_traddr=%s is not an address of the traddr family\n",
			       opts->host_traddr);
			ret = -EINVAL;
			goto out_free;
		}
	}

	tctrl->nr_queues = opts->nr_io_queues + opts->nr_write_queues +
			   opts->nr_poll_queues + 1;
	tctrl->queues = kcalloc(tctrl->nr_queues, sizeof(*tctrl->queues),
				GFP_KERNEL);
	if (!tctrl->queues) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < tctrl->nr_queues; i++) {
		mutex_init(&tctrl->queues[i].queue_lock);
		INIT_WORK(&tctrl->queues[i].fail_work,
			  nvfab_tcp_fail_queue_work);
	}
	tctrl->async_req.req.cmd = &tctrl->async_req.cmd_pdu.cmd;
	tctrl->async_req.req.ctrl = &tctrl->ctrl;

	ret = nvfab_init_ctrl(&tctrl->ctrl, dev, &nvfab_tcp_ctrl_ops, opts);
	if (ret)
		goto out_free_queues;

	/*
	 * Checked again where the controller is listed, in one critical
	 * section: of two connects to one path at once, one is refused.
	 */
	mutex_lock(&nvfab_tcp_ctrl_mutex);
	ret = nvfab_tcp_duplicate(opts);
	if (!ret)
		list_add_tail(&tctrl->list, &nvfab_tcp_ctrl_list);
	mutex_unlock(&nvfab_tcp_ctrl_mutex);
	if (ret) {
		nvfab_uninit_ctrl(&tctrl->ctrl);
		tctrl->ctrl.opts = NULL;	/* the caller's */
		nvfab_put_ctrl(&tctrl->ctrl);
		return ERR_PTR(ret);
	}

	ret = nvfab_start_new_ctrl(&tctrl->ctrl);
	if (ret) {
		/* Unlisted and out of sysfs before its options go away... */
		mutex_lock(&nvfab_tcp_ctrl_mutex);
		list_del_init(&tctrl->list);
		mutex_unlock(&nvfab_tcp_ctrl_mutex);
		nvfab_uninit_ctrl(&tctrl->ctrl);
		/* ...to the caller, who frees them: free_ctrl must not. */
		tctrl->ctrl.opts = NULL;
		nvfab_put_ctrl(&tctrl->ctrl);
		return ERR_PTR(ret);
	}
	return &tctrl->ctrl;

out_free_queues:
	kfree(tctrl->queues);
out_free:
	kfree(tctrl);
	return ERR_PTR(ret);
}

static struct nvfab_transport_ops nvfab_tcp_transport = {
	.name		= "tcp",
	.module		= THIS_MODULE,
	.required_opts	= NVFAB_OPT_TRADDR,
	.allowed_opts	= NVFAB_OPT_TRSVCID | NVFAB_OPT_RECONNECT_DELAY |
			  NVFAB_OPT_HOST_TRADDR | NVFAB_OPT_CTRL_LOSS_TMO |
			  NVFAB_OPT_HDR_DIGEST | NVFAB_OPT_DATA_DIGEST |
			  NVFAB_OPT_NR_WRITE_QUEUES | NVFAB_OPT_TOS |
			  NVFAB_OPT_HOST_IFACE | NVFAB_OPT_NR_POLL_QUEUES |
			  NVFAB_TLS_OPTS,
	.create_ctrl	= nvfab_tcp_create_ctrl,
};

static int __init nvfab_tcp_init(void)
{
	int ret;

	/* Per-CPU: io_work runs on the queue's io_cpu (queue_work_on()). */
	nvfab_tcp_wq = alloc_workqueue("nvfab_tcp_wq", WQ_PERCPU |
				       WQ_MEM_RECLAIM | WQ_HIGHPRI | WQ_SYSFS, 0);
	if (!nvfab_tcp_wq)
		return -ENOMEM;
	ret = nvfab_register_transport(&nvfab_tcp_transport);
	if (ret) {
		destroy_workqueue(nvfab_tcp_wq);
		return ret;
	}
	return 0;
}

static void __exit nvfab_tcp_exit(void)
{
	struct nvfab_tcp_ctrl *tctrl;

	nvfab_unregister_transport(&nvfab_tcp_transport);
	mutex_lock(&nvfab_tcp_ctrl_mutex);
	list_for_each_entry(tctrl, &nvfab_tcp_ctrl_list, list)
		nvfab_delete_ctrl(&tctrl->ctrl);
	mutex_unlock(&nvfab_tcp_ctrl_mutex);
	flush_workqueue(nvfab_delete_wq);
	destroy_workqueue(nvfab_tcp_wq);
	/* TLS queues' sockets, released by fput() from a worker */
	flush_delayed_fput();
}

module_init(nvfab_tcp_init);
module_exit(nvfab_tcp_exit);

MODULE_DESCRIPTION("nvfab NVMe/TCP transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
NVFAB_IMPORT();
