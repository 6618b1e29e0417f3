// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-rdma data transfer descriptors (NVMe/RDMA Transport Specification
 * 1.1, 3.4; NVMe Base 2.0, 4.1.2 SGLs).
 *
 * A command's data is described in the SQE's DPTR by one SGL descriptor:
 *
 * - no data: a keyed data block of length 0;
 * - in-capsule data (writes on I/O queues only, when the data fits the
 *   target's IOCCSZ after the 64-byte SQE, ICDOFF is 0 and the mapped
 *   data needs no more SGEs than the device can send after the SQE): a
 *   data block with an offset address (Offset 0 from the start of the
 *   capsule's data area), sent in the same SEND as the SQE;
 * - otherwise: a keyed data block. The data is registered with one FRWR
 *   MR taken from the QP's ib_mr_pool (a REG_MR work request chained
 *   before the SEND, so the registration is in place before the target
 *   sees the command); the descriptor carries the MR's IOVA, length and
 *   rkey, with subtype Invalidate Key so that the target may invalidate
 *   the rkey with SEND with Invalidate. Without a remote invalidation the
 *   host posts a LOCAL_INV before the request completes (rdma.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/unaligned.h>
#include <rdma/mr_pool.h>

#include <nvfab/compat.h>
#include "rdma.h"

/**
 * nvfab_rdma_sgl_keyed() - write a Keyed SGL Data Block descriptor
 * @c: the SQE
 * @addr: the MR's I/O virtual address
 * @len: bytes described (at most 2^24 - 1: the length is 3 bytes)
 * @key: the rkey
 * @invalidate: subtype Invalidate Key: the target may invalidate @key
 *
 * NVMe Base 2.0, 4.1.2.1 (Keyed SGL Data Block descriptor); NVMe/RDMA 1.1,
 * 3.4.
 *
 * Context: any context.
 */
void nvfab_rdma_sgl_keyed(struct nvme_command *c, u64 addr, u32 len, u32 key,
			  bool invalidate)
{
	struct nvme_keyed_sgl_desc *sg = &c->common.dptr.ksgl;

	BUILD_BUG_ON(sizeof(struct nvme_keyed_sgl_desc) != 16);
	c->common.flags |= NVME_CMD_SGL_METABUF;
	sg->addr = cpu_to_le64(addr);
	put_unaligned_le24(len, sg->length);
	put_unaligned_le32(key, sg->key);
	sg->type = NVME_KEY_SGL_FMT_DATA_DESC << 4;
	if (invalidate)
		sg->type |= NVME_SGL_FMT_INVALIDATE;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_sgl_keyed);

/**
 * nvfab_rdma_sgl_inline() - write an in-capsule Data Block descriptor
 * @c: the SQE
 * @icdoff: the target's In Capsule Data Offset (bytes)
 * @len: bytes of in-capsule data
 *
 * NVMe Base 2.0, 4.1.2.1 (SGL Data Block, subtype Offset); NVMe over
 * Fabrics 1.1, 2.2 (capsules).
 *
 * Context: any context.
 */
void nvfab_rdma_sgl_inline(struct nvme_command *c, u32 icdoff, u32 len)
{
	struct nvme_sgl_desc *sg = &c->common.dptr.sgl;

	c->common.flags |= NVME_CMD_SGL_METABUF;
	sg->addr = cpu_to_le64(icdoff);
	sg->length = cpu_to_le32(len);
	sg->type = (NVME_SGL_FMT_DATA_DESC << 4) | NVME_SGL_FMT_OFFSET;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_sgl_inline);

/**
 * nvfab_rdma_use_inline() - may a command's data travel in the capsule?
 * @write: the command transfers data to the target
 * @len: bytes of data
 * @nents: DMA-mapped scatterlist entries of the data
 * @inline_max: in-capsule bytes the queue allows (0 on the admin queue)
 * @max_segs: send SGEs available for data after the SQE
 *
 * NVMe/RDMA 1.1, 3.4: in-capsule data is host to controller only and
 * bounded by IOCCSZ.
 *
 * Context: any context.
 * Return: true to send the data in capsule, false for a keyed data block.
 */
bool nvfab_rdma_use_inline(bool write, u32 len, int nents, u32 inline_max,
			   u32 max_segs)
{
	return write && len && len <= inline_max && nents > 0 &&
	       nents <= max_segs;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_rdma_use_inline);

static void nvfab_rdma_sgl_none(struct nvme_command *c)
{
	nvfab_rdma_sgl_keyed(c, 0, 0, 0, false);
}

static void nvfab_rdma_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvfab_rdma_request *req = container_of(wc->wr_cqe,
					struct nvfab_rdma_request, reg_cqe);

	nvfab_rdma_wc_ok(req->queue, wc, "memory registration");
}

static int nvfab_rdma_map_keyed(struct nvfab_rdma_queue *queue,
				struct nvfab_rdma_request *req,
				struct ib_reg_wr *reg, u32 len)
{
	int n;

	req->mr = ib_mr_pool_get(queue->qp, &queue->qp->rdma_mrs);
	if (!req->mr)
		return -EAGAIN;
	n = ib_map_mr_sg(req->mr, req->sgt.sgl, req->nents, NULL, SZ_4K);
	if (n != req->nents) {
		ib_mr_pool_put(queue->qp, &queue->qp->rdma_mrs, req->mr);
		req->mr = NULL;
		return n < 0 ? n : -EINVAL;
	}
	/* A new key for each use: a stale rkey of the target fails. */
	ib_update_fast_reg_key(req->mr, ib_inc_rkey(req->mr->rkey));

	req->reg_cqe.done = nvfab_rdma_reg_done;
	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = &req->reg_cqe;
	reg->wr.num_sge = 0;
	reg->mr = req->mr;
	reg->key = req->mr->rkey;
	reg->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		      IB_ACCESS_REMOTE_WRITE;
	nvfab_rdma_sgl_keyed(req->req.cmd, req->mr->iova, req->mr->length,
			     req->mr->rkey, true);
	return 0;
}

static void nvfab_rdma_map_inline(struct nvfab_rdma_queue *queue,
				  struct nvfab_rdma_request *req, u32 len)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(req->sgt.sgl, sg, req->nents, i) {
		struct ib_sge *sge = &req->sge[1 + i];

		sge->addr = sg_dma_address(sg);
		sge->length = sg_dma_len(sg);
		sge->lkey = queue->pd->local_dma_lkey;
	}
	req->num_sge += req->nents;
	nvfab_rdma_sgl_inline(req->req.cmd, queue->ctrl->ctrl.icdoff, len);
}

/*
 * Undoes the DMA mapping of @req's data, by its provider for peer memory:
 * the @req->sg_nents entries that were mapped, never the table's allocated
 * size (@req->sgt.orig_nents), which reaches past the end mark when the
 * block layer merged segments.
 */
static void nvfab_rdma_unmap_sgt(struct nvfab_rdma_device *dev,
				 struct nvfab_rdma_request *req,
				 struct request *rq)
{
	if (unlikely(req->peer.prov))
		nvfab_peer_unmap_sg(&req->peer, req->sgt.sgl);
	else
		ib_dma_unmap_sg(dev->dev, req->sgt.sgl, req->sg_nents,
				rq_dma_dir(rq));
}

/**
 * nvfab_rdma_map_data() - map a request's data and describe it in its SQE
 * @queue: the queue the request goes out on
 * @rq: the request, its SQE set up by nvfab_setup_cmd()
 * @first: the first work request to post, the SEND of the capsule; for a
 *	   keyed data block it becomes the request's REG_MR, chained before
 *	   that SEND
 *
 * Pages of peer memory (Documentation/admin-guide/nvfab-peermem.rst) are
 * mapped by their provider for the queue's device, never through host
 * memory.
 *
 * Context: atomic context allowed (blk_mq_ops.queue_rq, not blocking).
 * Return: 0; -ENOMEM when the scatterlist cannot be allocated; -EAGAIN
 * when no MR is free (the request is retried); -EIO when mapping fails;
 * -EREMOTEIO when the data is peer memory that cannot be mapped for the
 * queue's device (not to be retried: nvfab_peer_blk_status()).
 */
int nvfab_rdma_map_data(struct nvfab_rdma_queue *queue, struct request *rq,
			struct ib_send_wr **first)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvfab_rdma_device *dev = queue->device;
	u32 len;
	int ret;

	req->mr = NULL;
	req->nents = 0;
	req->num_sge = 1;
	if (!blk_rq_nr_phys_segments(rq)) {
		nvfab_rdma_sgl_none(req->req.cmd);
		return 0;
	}
	len = blk_rq_payload_bytes(rq);

	/*
	 * The table is sized for the request's physical segments and keeps
	 * that size in orig_nents, which sg_free_table_chained() needs;
	 * blk_rq_map_sg() merges physically contiguous segments across bio
	 * boundaries and may fill fewer entries, marking the last one. Only
	 * those are mapped and unmapped.
	 */
	req->sgt.sgl = req->first_sgl;
	ret = sg_alloc_table_chained(&req->sgt, blk_rq_nr_phys_segments(rq),
				     req->first_sgl, NVFAB_RDMA_INLINE_SG_CNT);
	if (ret)
		return -ENOMEM;
	req->sg_nents = nvfab_rq_map_sg(rq, req->sgt.sgl);
	if (WARN_ON_ONCE(req->sg_nents <= 0 ||
			 req->sg_nents > req->sgt.orig_nents)) {
		ret = -EIO;
		goto out_free_table;
	}
	ret = nvfab_peer_map_sg(&req->peer, &dev->peer_dma, req->sgt.sgl,
				req->sg_nents, rq_dma_dir(rq));
	if (unlikely(ret)) {
		if (ret < 0) {
			nvfab_ctrl_count_peer(&queue->ctrl->ctrl, ret, len);
			if (ret != -ENOMEM && ret != -EAGAIN)
				ret = -EREMOTEIO;
			goto out_free_table;
		}
	} else {
		ret = ib_dma_map_sg(dev->dev, req->sgt.sgl, req->sg_nents,
				    rq_dma_dir(rq));
		if (!ret) {
			ret = -EIO;
			goto out_free_table;
		}
	}
	req->nents = ret;

	if (nvfab_rdma_use_inline(rq_data_dir(rq) == WRITE, len, req->nents,
				  queue->inline_max, dev->num_inline_segments)) {
		nvfab_rdma_map_inline(queue, req, len);
	} else {
		ret = nvfab_rdma_map_keyed(queue, req, &req->reg_wr, len);
		if (ret) {
			if (ret != -EAGAIN)
				ret = -EIO;
			goto out_unmap;
		}
		req->reg_wr.wr.next = *first;
		*first = &req->reg_wr.wr;
	}
	if (unlikely(req->peer.prov))
		nvfab_ctrl_count_peer(&queue->ctrl->ctrl, req->nents, len);
	return 0;

out_unmap:
	nvfab_rdma_unmap_sgt(dev, req, rq);
	req->nents = 0;
out_free_table:
	sg_free_table_chained(&req->sgt, NVFAB_RDMA_INLINE_SG_CNT);
	return ret;
}

/**
 * nvfab_rdma_retire_mr() - take a request's MR out of use for good
 * @queue: the queue the request was sent on
 * @req: the request; its MR's rkey may still be valid
 *
 * The MR goes to @queue->retired_mrs, never back to the pool: the queue's
 * stop (or the QP's destruction) deregisters it, and with it the rkey.
 * Until then the rkey is good on nothing but @queue's QP (the queue's
 * own PD), which has failed or is stopping whenever this is called.
 *
 * Context: any context.
 * Return: true when @req held an MR.
 */
bool nvfab_rdma_retire_mr(struct nvfab_rdma_queue *queue,
			  struct nvfab_rdma_request *req)
{
	struct ib_mr *mr = xchg(&req->mr, NULL);

	if (!mr)
		return false;
	ib_mr_pool_put(queue->qp, &queue->retired_mrs, mr);
	return true;
}

/**
 * nvfab_rdma_unmap_data() - undo nvfab_rdma_map_data()
 * @queue: the queue the request was sent on
 * @rq: the request, no longer in the target's hands
 *
 * Returns the MR to the pool, and unmaps the data. An MR still held here
 * had its rkey invalidated (by the target's Send with Invalidate, checked,
 * or by the host's LOCAL_INV, completed) or never registered: one whose
 * rkey may be valid was retired by the queue's stop before the request
 * could complete (nvfab_rdma_retire_mr()).
 *
 * Context: any context.
 */
void nvfab_rdma_unmap_data(struct nvfab_rdma_queue *queue, struct request *rq)
{
	struct nvfab_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct ib_mr *mr = xchg(&req->mr, NULL);

	if (mr)
		ib_mr_pool_put(queue->qp, &queue->qp->rdma_mrs, mr);
	if (!req->nents)
		return;
	nvfab_rdma_unmap_sgt(queue->device, req, rq);
	sg_free_table_chained(&req->sgt, NVFAB_RDMA_INLINE_SG_CNT);
	req->nents = 0;
}
