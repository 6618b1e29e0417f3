/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab tracepoints (TRACE_SYSTEM nvfab): the life of a command and the
 * events that change where I/O goes. Enable them through tracefs:
 *
 *   echo 1 > /sys/kernel/tracing/events/nvfab/enable
 *
 * Controllers are named as their character device (nvfabN). Commands are
 * named by (controller, SQ ID, CID): nvfab_setup_cmd and nvfab_complete_rq
 * of one command carry the same triple, so a trace gives each command's
 * latency and the path it took. The format is described in
 * Documentation/admin-guide/nvfab-multipath.rst ("Tracing").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvfab

#if !defined(_NVFAB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVFAB_TRACE_H

#include <linux/blk-mq.h>
#include <linux/nvme.h>
#include <linux/tracepoint.h>

#include <nvfab/core.h>

#ifndef _NVFAB_TRACE_HELPERS
#define _NVFAB_TRACE_HELPERS
/* SQ ID of a request: 0 for the admin queue, hctx + 1 for I/O queues. */
static inline u16 nvfab_trace_qid(struct request *rq)
{
	struct nvfab_ctrl *ctrl = nvfab_req(rq)->ctrl;

	if (!rq->mq_hctx || !ctrl || rq->mq_hctx->queue->tag_set ==
				     &ctrl->admin_tagset)
		return 0;
	return rq->mq_hctx->queue_num + 1;
}

static inline int nvfab_trace_ctrl_id(struct request *rq)
{
	struct nvfab_ctrl *ctrl = nvfab_req(rq)->ctrl;

	return ctrl ? ctrl->instance : -1;
}
#endif /* _NVFAB_TRACE_HELPERS */

#define nvfab_trace_ana_state(x)					\
	__print_symbolic(x,						\
		{ NVME_ANA_OPTIMIZED,		"optimized" },		\
		{ NVME_ANA_NONOPTIMIZED,	"non-optimized" },	\
		{ NVME_ANA_INACCESSIBLE,	"inaccessible" },	\
		{ NVME_ANA_PERSISTENT_LOSS,	"persistent-loss" },	\
		{ NVME_ANA_CHANGE,		"change" })

TRACE_EVENT(nvfab_setup_cmd,
	TP_PROTO(struct request *rq, struct nvme_command *cmd),
	TP_ARGS(rq, cmd),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u16, qid)
		__field(u16, cid)
		__field(u32, nsid)
		__field(u8, opcode)
		__field(u8, fctype)
		__field(u8, flags)
		__field(bool, mpath)
		__array(u8, cdw10, 24)
	),
	TP_fast_assign(
		__entry->ctrl_id = nvfab_trace_ctrl_id(rq);
		__entry->qid = nvfab_trace_qid(rq);
		__entry->cid = cmd->common.command_id;
		__entry->nsid = le32_to_cpu(cmd->common.nsid);
		__entry->opcode = cmd->common.opcode;
		__entry->fctype = cmd->common.opcode == nvme_fabrics_command ?
				  cmd->fabrics.fctype : 0;
		__entry->flags = cmd->common.flags;
		__entry->mpath = !!(rq->cmd_flags & NVFAB_REQ_MPATH);
		/* CDW10..15 as sent (little endian), one field at a time */
		memcpy(__entry->cdw10, &cmd->common.cdw10, 4);
		memcpy(__entry->cdw10 + 4, &cmd->common.cdw11, 4);
		memcpy(__entry->cdw10 + 8, &cmd->common.cdw12, 4);
		memcpy(__entry->cdw10 + 12, &cmd->common.cdw13, 4);
		memcpy(__entry->cdw10 + 16, &cmd->common.cdw14, 4);
		memcpy(__entry->cdw10 + 20, &cmd->common.cdw15, 4);
	),
	TP_printk("nvfab%d: qid=%u, cmdid=%u, nsid=%u, flags=0x%x, opcode=0x%x, fctype=0x%x, mpath=%d, cdw10=%s",
		  __entry->ctrl_id, __entry->qid, __entry->cid, __entry->nsid,
		  __entry->flags, __entry->opcode, __entry->fctype,
		  __entry->mpath,
		  __print_hex(__entry->cdw10, sizeof(__entry->cdw10)))
);

TRACE_EVENT(nvfab_complete_rq,
	TP_PROTO(struct request *rq),
	TP_ARGS(rq),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u16, qid)
		__field(u16, cid)
		__field(u64, result)
		__field(u8, retries)
		__field(u8, flags)
		__field(u16, status)
	),
	TP_fast_assign(
		__entry->ctrl_id = nvfab_trace_ctrl_id(rq);
		__entry->qid = nvfab_trace_qid(rq);
		__entry->cid = nvfab_req(rq)->cmd->common.command_id;
		__entry->result = le64_to_cpu(nvfab_req(rq)->result.u64);
		__entry->retries = nvfab_req(rq)->retries;
		__entry->flags = nvfab_req(rq)->flags;
		__entry->status = nvfab_req(rq)->status;
	),
	TP_printk("nvfab%d: qid=%u, cmdid=%u, res=%#llx, retries=%u, flags=0x%x, status=%#x",
		  __entry->ctrl_id, __entry->qid, __entry->cid,
		  __entry->result, __entry->retries, __entry->flags,
		  __entry->status)
);

TRACE_EVENT(nvfab_failover,
	TP_PROTO(struct request *rq, u32 nsid),
	TP_ARGS(rq, nsid),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u16, qid)
		__field(u16, cid)
		__field(u32, nsid)
		__field(u16, status)
		__field(u32, bytes)
	),
	TP_fast_assign(
		__entry->ctrl_id = nvfab_trace_ctrl_id(rq);
		__entry->qid = nvfab_trace_qid(rq);
		__entry->cid = nvfab_req(rq)->cmd->common.command_id;
		__entry->nsid = nsid;
		__entry->status = nvfab_req(rq)->status;
		__entry->bytes = blk_rq_bytes(rq);
	),
	TP_printk("nvfab%d: qid=%u, cmdid=%u, nsid=%u, status=%#x, bytes=%u",
		  __entry->ctrl_id, __entry->qid, __entry->cid,
		  __entry->nsid, __entry->status, __entry->bytes)
);

TRACE_EVENT(nvfab_async_event,
	TP_PROTO(struct nvfab_ctrl *ctrl, u16 status, u32 result),
	TP_ARGS(ctrl, status, result),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u16, status)
		__field(u32, result)
	),
	TP_fast_assign(
		__entry->ctrl_id = ctrl->instance;
		__entry->status = status;
		__entry->result = result;
	),
	TP_printk("nvfab%d: status=%#x, result=%#x (type %u, info %#x, log page %#x)",
		  __entry->ctrl_id, __entry->status, __entry->result,
		  __entry->result & 0x7, (__entry->result >> 8) & 0xff,
		  (__entry->result >> 16) & 0xff)
);

TRACE_EVENT(nvfab_ana_log,
	TP_PROTO(struct nvfab_ctrl *ctrl, u64 chgcnt, u16 ngrps, int err),
	TP_ARGS(ctrl, chgcnt, ngrps, err),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u64, chgcnt)
		__field(u16, ngrps)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->ctrl_id = ctrl->instance;
		__entry->chgcnt = chgcnt;
		__entry->ngrps = ngrps;
		__entry->err = err;
	),
	TP_printk("nvfab%d: chgcnt=%llu, ngrps=%u, err=%d",
		  __entry->ctrl_id, __entry->chgcnt, __entry->ngrps,
		  __entry->err)
);

TRACE_EVENT(nvfab_ana_state,
	TP_PROTO(struct nvfab_ctrl *ctrl, u32 nsid, u32 grpid, u8 old, u8 new),
	TP_ARGS(ctrl, nsid, grpid, old, new),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(u32, nsid)
		__field(u32, grpid)
		__field(u8, old)
		__field(u8, new)
	),
	TP_fast_assign(
		__entry->ctrl_id = ctrl->instance;
		__entry->nsid = nsid;
		__entry->grpid = grpid;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("nvfab%d: nsid=%u, grpid=%u, %s -> %s",
		  __entry->ctrl_id, __entry->nsid, __entry->grpid,
		  nvfab_trace_ana_state(__entry->old),
		  nvfab_trace_ana_state(__entry->new))
);

#define nvfab_trace_ctrl_state(x)					\
	__print_symbolic(x,						\
		{ NVFAB_CTRL_NEW,		"new" },		\
		{ NVFAB_CTRL_CONNECTING,	"connecting" },		\
		{ NVFAB_CTRL_LIVE,		"live" },		\
		{ NVFAB_CTRL_RESETTING,		"resetting" },		\
		{ NVFAB_CTRL_DELETING,		"deleting" },		\
		{ NVFAB_CTRL_DELETING_NOIO,	"deleting (no IO)" },	\
		{ NVFAB_CTRL_DEAD,		"dead" })

TRACE_EVENT(nvfab_ctrl_state,
	TP_PROTO(struct nvfab_ctrl *ctrl, int old, int new),
	TP_ARGS(ctrl, old, new),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		__entry->ctrl_id = ctrl->instance;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("nvfab%d: %s -> %s", __entry->ctrl_id,
		  nvfab_trace_ctrl_state(__entry->old),
		  nvfab_trace_ctrl_state(__entry->new))
);

#define nvfab_trace_queue_state(x)					\
	__print_symbolic(x,						\
		{ NVFAB_QUEUE_FREE,		"free" },		\
		{ NVFAB_QUEUE_STARTING,		"starting" },		\
		{ NVFAB_QUEUE_LIVE,		"live" },		\
		{ NVFAB_QUEUE_CONNECTED,	"connected" },		\
		{ NVFAB_QUEUE_FAILED,		"failed" },		\
		{ NVFAB_QUEUE_STOPPED,		"stopped" })

TRACE_EVENT(nvfab_queue_state,
	TP_PROTO(struct nvfab_ctrl *ctrl, int qid, int old, int new),
	TP_ARGS(ctrl, qid, old, new),
	TP_STRUCT__entry(
		__field(int, ctrl_id)
		__field(int, qid)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		__entry->ctrl_id = ctrl->instance;
		__entry->qid = qid;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("nvfab%d: queue %d: %s -> %s", __entry->ctrl_id,
		  __entry->qid, nvfab_trace_queue_state(__entry->old),
		  nvfab_trace_queue_state(__entry->new))
);

#endif /* _NVFAB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
