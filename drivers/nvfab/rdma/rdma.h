/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-rdma internals shared by rdma.c (queues, blk-mq, completions),
 * rdma-cm.c (connection management) and rdma-sgl.c (data descriptors),
 * and reached by the KUnit suite nvfab_rdma.
 */
#ifndef _NVFAB_RDMA_H
#define _NVFAB_RDMA_H

#include <linux/blk-mq.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/nvme-rdma.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <nvfab/core.h>
#include <nvfab/peermem.h>

/* In-capsule data is sent from at most this many SGEs after the SQE. */
#define NVFAB_RDMA_MAX_INLINE_SEGS	4
/* Scatterlist entries kept in each request before chaining. */
#define NVFAB_RDMA_INLINE_SG_CNT	2
/* Largest page list of one FRWR registration (pages of SZ_4K). */
#define NVFAB_RDMA_MAX_SEGMENTS		256
/* Milliseconds each rdma_cm step (address, route, connect) may take. */
#define NVFAB_RDMA_CM_TIMEOUT_MS	3000

/**
 * struct nvfab_rdma_device - an RDMA device the queues run on
 * @ref:	one per queue using it
 * @entry:	in the module's device list
 * @dev:	the RDMA device
 * @num_inline_segments: send SGEs usable for in-capsule data
 * @max_fr_pages: pages one FRWR registration may map
 * @peer_dma:	@dev as nvfab-peermem's providers see it
 * @name:	@dev's name when it was opened, for @peer_dma
 * @rcu:	frees the structure: nvfab_rdma_peer_distance() reads it
 *		under RCU
 */
struct nvfab_rdma_device {
	struct kref			ref;
	struct list_head		entry;
	struct ib_device		*dev;
	u32				num_inline_segments;
	u32				max_fr_pages;
	struct nvfab_peer_dma_dev	peer_dma;
	char				name[IB_DEVICE_NAME_MAX];
	struct rcu_head			rcu;
};

/**
 * struct nvfab_rdma_qe - a DMA-mapped buffer posted in a work request
 * @data:	the buffer (SQE or CQE)
 * @dma:	its DMA address on the queue's device
 * @cqe:	completion callback of the work request
 */
struct nvfab_rdma_qe {
	void			*data;
	u64			dma;
	struct ib_cqe		cqe;
};

struct nvfab_rdma_ctrl;

/**
 * struct nvfab_rdma_queue - one NVMe queue: an RC QP and its CQ
 * @queue_lock:	serialises start, stop and free of the queue
 * @fail_work:	fails the queue after an error while connecting
 * @ctrl:	the controller
 * @qid:	queue ID, 0 for the admin queue
 * @queue_size:	entries of the SQ (HSQSIZE + 1) and receive buffers posted
 * @cm_id:	the rdma_cm identifier
 * @cm_done:	completed by the CM handler when the step waited for ends
 * @cm_error:	result of the last CM step (0 or a negative errno)
 * @cm_step:	the CM event the waiting step expects
 * @device:	the device the queue runs on
 * @pd:		the queue's own protection domain: the rkeys of its MRs are
 *		good on @qp only, and on nothing once @qp has failed
 * @qp:		the RC queue pair (@cm_id->qp)
 * @cq:		its completion queue
 * @poll:	@cq is polled by blk_mq_ops.poll (IB_POLL_DIRECT)
 * @poll_lock:	held by blk_mq_ops.poll while it reaps @cq, and by start
 *		and stop while they move the queue into and out of the live
 *		states (nvfab_queue_live())
 * @retired_mrs: MRs taken from requests whose rkey may still be valid,
 *		deregistered (never reused) when the queue stops
 * @rsp_ring:	@queue_size receive buffers of one CQE each
 * @inline_max:	bytes of in-capsule data a write may carry (0: none)
 */
struct nvfab_rdma_queue {
	struct mutex			queue_lock;	/* start/stop/free */
	struct work_struct		fail_work;
	struct nvfab_rdma_ctrl		*ctrl;
	int				qid;
	u32				queue_size;
	struct rdma_cm_id		*cm_id;
	struct completion		cm_done;
	int				cm_error;
	enum rdma_cm_event_type		cm_step;
	struct nvfab_rdma_device	*device;
	struct ib_pd			*pd;
	struct ib_qp			*qp;
	struct ib_cq			*cq;
	bool				poll;
	spinlock_t			poll_lock;	/* see above */
	struct list_head		retired_mrs;
	struct nvfab_rdma_qe		*rsp_ring;
	u32				inline_max;
};

/**
 * struct nvfab_rdma_request - per-request PDU
 * @req:	the core's part, first
 * @sqe:	the command capsule's SQE (DMA-mapped while in flight)
 * @sqe_mapped:	@sqe and the data are mapped (between queue_rq and
 *		completion)
 * @sge:	SGEs of the send: the SQE, then in-capsule data
 * @num_sge:	SGEs used in @sge
 * @ref:	completions still due: the send, the response, and a local
 *		invalidation when one is posted
 * @responded:	a response capsule arrived for this use of the CID
 * @status:	status of that response
 * @result:	result of that response
 * @queue:	the queue the request was sent on
 * @mr:		the FRWR MR of a keyed data block, or NULL; set while its
 *		rkey may be valid and until it returns to the pool (xchg():
 *		the queue's stop may retire it while the request completes)
 * @inv_failed:	the LOCAL_INV of @mr failed or was flushed: the request
 *		waits for the queue's stop, which deregisters @mr
 * @reg_wr:	the REG_MR work request of @mr
 * @reg_cqe:	completion of the REG_MR work request
 * @inv_cqe:	completion of the LOCAL_INV work request
 * @sgt:	the data's scatterlist, allocated for the request's physical
 *		segments (its orig_nents, which freeing it needs)
 * @sg_nents:	entries of @sgt that blk_rq_map_sg() filled (at most
 *		its orig_nents): the DMA mapping covers exactly these
 * @nents:	DMA segments the mapping made of them (0: no data mapped)
 * @peer:	@sgt's mapping when a peer-memory provider made it
 * @first_sgl:	the first entries of @sgt, chained from there
 */
struct nvfab_rdma_request {
	struct nvfab_request		req;
	struct nvfab_rdma_qe		sqe;
	bool				sqe_mapped;
	struct ib_sge			sge[1 + NVFAB_RDMA_MAX_INLINE_SEGS];
	u32				num_sge;
	refcount_t			ref;
	bool				responded;
	__le16				status;
	union nvme_result		result;
	struct nvfab_rdma_queue		*queue;
	struct ib_mr			*mr;
	bool				inv_failed;
	struct ib_reg_wr		reg_wr;
	struct ib_cqe			reg_cqe;
	struct ib_cqe			inv_cqe;
	struct sg_table			sgt;
	int				sg_nents;
	int				nents;
	struct nvfab_peer_map		peer;
	struct scatterlist		first_sgl[NVFAB_RDMA_INLINE_SG_CNT];
};

/**
 * struct nvfab_rdma_ctrl - an NVMe/RDMA controller
 * @ctrl:	the core's controller, first
 * @queues:	@nr_queues queues, the admin queue first
 * @nr_queues:	queues allocated
 * @addr:	the target's address and port
 * @src_addr:	host_traddr, when given
 * @aer_sqe:	the Asynchronous Event Request's SQE (admin queue)
 * @aer_outstanding: an AER waits for its response
 * @list:	in the module's controller list
 * @peer_dev:	the admin queue's device while its QP exists (RCU), for
 *		the multipath head's peer-memory path choice
 */
struct nvfab_rdma_ctrl {
	struct nvfab_ctrl		ctrl;
	struct nvfab_rdma_queue		*queues;
	unsigned int			nr_queues;
	struct sockaddr_storage		addr;
	struct sockaddr_storage		src_addr;
	struct nvfab_rdma_qe		aer_sqe;
	bool				aer_outstanding;
	struct list_head		list;
	struct nvfab_rdma_device __rcu	*peer_dev;
};

static inline struct nvfab_rdma_ctrl *to_rdma_ctrl(struct nvfab_ctrl *ctrl)
{
	return container_of(ctrl, struct nvfab_rdma_ctrl, ctrl);
}

/* rdma-cm.c */
int nvfab_rdma_cm_connect(struct nvfab_rdma_queue *queue);
void nvfab_rdma_cm_disconnect(struct nvfab_rdma_queue *queue);
void nvfab_rdma_cm_destroy(struct nvfab_rdma_queue *queue);

/* rdma.c, for rdma-cm.c and rdma-sgl.c */
int nvfab_rdma_create_qp(struct nvfab_rdma_queue *queue);
void nvfab_rdma_destroy_qp(struct nvfab_rdma_queue *queue);
bool nvfab_rdma_wc_ok(struct nvfab_rdma_queue *queue, struct ib_wc *wc,
		      const char *what);
void nvfab_rdma_queue_error(struct nvfab_rdma_queue *queue, const char *fmt,
			    ...) __printf(2, 3);

/* rdma-sgl.c */
int nvfab_rdma_map_data(struct nvfab_rdma_queue *queue, struct request *rq,
			struct ib_send_wr **first);
void nvfab_rdma_unmap_data(struct nvfab_rdma_queue *queue, struct request *rq);
bool nvfab_rdma_retire_mr(struct nvfab_rdma_queue *queue,
			  struct nvfab_rdma_request *req);

/* Pure helpers, reached by the KUnit suite nvfab_rdma. */
void nvfab_rdma_cm_req_init(struct nvme_rdma_cm_req *priv, u16 qid,
			    u16 hrqsize, u16 hsqsize);
const char *nvfab_rdma_cm_status_name(u16 sts);
int nvfab_rdma_cm_decode_reject(const void *data, u8 len, u16 *sts);
void nvfab_rdma_sgl_keyed(struct nvme_command *c, u64 addr, u32 len, u32 key,
			  bool invalidate);
void nvfab_rdma_sgl_inline(struct nvme_command *c, u32 icdoff, u32 len);
bool nvfab_rdma_use_inline(bool write, u32 len, int nents, u32 inline_max,
			   u32 max_segs);
int nvfab_rdma_check_rsp(bool found, bool responded, bool with_inv,
			 const struct ib_mr *mr, u32 inv_rkey,
			 const char **why);
bool nvfab_rdma_wc_is_error(enum ib_wc_status status, bool live);

#endif /* _NVFAB_RDMA_H */
