/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab core: controllers, their state machine, admin commands, namespaces
 * and the boundary (struct nvfab_ctrl_ops) that transports implement.
 *
 * Wire structures come from the kernel's public <linux/nvme.h>.
 */
#ifndef _NVFAB_CORE_H
#define _NVFAB_CORE_H

#include <linux/blk-mq.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/key.h>
#include <linux/kref.h>
#include <linux/notifier.h>
#include <linux/nvme.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct nvfab_ctrl;
struct nvfab_ctrl_options;
struct nvfab_subsys;

/**
 * enum nvfab_ctrl_state - controller states
 * @NVFAB_CTRL_NEW:		allocated, never connected
 * @NVFAB_CTRL_CONNECTING:	(re)establishing the association
 * @NVFAB_CTRL_LIVE:		connected; I/O flows
 * @NVFAB_CTRL_RESETTING:	tearing the association down after an error or
 *				a reset request, before reconnecting
 * @NVFAB_CTRL_DELETING:	being removed; may still send admin commands
 *				(shutdown)
 * @NVFAB_CTRL_DELETING_NOIO:	being removed; no command may be sent
 * @NVFAB_CTRL_DEAD:		removed; waiting for the last reference
 */
enum nvfab_ctrl_state {
	NVFAB_CTRL_NEW,
	NVFAB_CTRL_CONNECTING,
	NVFAB_CTRL_LIVE,
	NVFAB_CTRL_RESETTING,
	NVFAB_CTRL_DELETING,
	NVFAB_CTRL_DELETING_NOIO,
	NVFAB_CTRL_DEAD,
};

/**
 * enum nvfab_queue_state - the state of one queue (SQ/CQ pair) of a
 *	controller, for the core and the transport alike
 * @NVFAB_QUEUE_FREE:	nothing allocated: never started, or freed
 * @NVFAB_QUEUE_STARTING: the transport is setting the queue up (TCP
 *			connection and ICReq/ICResp, RDMA CM connect);
 *			an error seen now fails the start
 * @NVFAB_QUEUE_LIVE:	the transport connection is up: what it receives
 *			is trusted, and a Fabrics Connect may be sent
 * @NVFAB_QUEUE_CONNECTED: the Fabrics Connect succeeded: any command may
 *			be sent
 * @NVFAB_QUEUE_FAILED:	an error was seen (a protocol error, the
 *			connection lost): nothing received is trusted and
 *			nothing new is sent; a stop follows
 * @NVFAB_QUEUE_STOPPED: stopped: nothing is in flight on the wire any
 *			more; the resources stay until the queue is freed
 * @NVFAB_QUEUE_AUTHENTICATING: the Fabrics Connect succeeded and asked for
 *			DH-HMAC-CHAP (AUTHREQ ATR): only Authentication
 *			Send and Receive may be sent until it succeeds
 *
 * Changed only by nvfab_change_queue_state().
 */
enum nvfab_queue_state {
	NVFAB_QUEUE_FREE,
	NVFAB_QUEUE_STARTING,
	NVFAB_QUEUE_LIVE,
	NVFAB_QUEUE_CONNECTED,
	NVFAB_QUEUE_FAILED,
	NVFAB_QUEUE_STOPPED,
	NVFAB_QUEUE_AUTHENTICATING,
};

/* Bits of nvfab_request.flags. */
#define NVFAB_REQ_CANCELLED	BIT(0)	/* completed by the host, not the target */
#define NVFAB_REQ_USERCMD	BIT(1)	/* passthrough from user space */
#define NVFAB_REQ_MPATH_ACCT	BIT(2)	/* counted in flight on its path */

/* "any hardware queue" for nvfab_submit_sync_cmd() */
#define NVME_QID_ANY		-1

/* Retries of a command that failed with a retryable status. */
#define NVFAB_MAX_RETRIES	5

/**
 * struct nvfab_request - the core's part of every request's PDU
 * @cmd:	the SQE, stored inside the transport's PDU (set in init_request)
 * @result:	CQE Dword 0/1
 * @status:	CQE status (SCT/SC/DNR/MORE, phase bit removed), or a host
 *		status such as NVME_SC_HOST_ABORTED_CMD
 * @retries:	times this request has been requeued
 * @flags:	NVFAB_REQ_*
 * @genctr:	generation, bumped at each use of the tag (see nvfab_cid())
 * @ctrl:	the controller the request belongs to
 * @start_ns:	when a multipath request was sent (ktime_get_ns())
 * @host_claim: bit 0 set, atomically, by whoever completes a started
 *		request: the target's completion (nvfab_try_complete_req())
 *		or the host on its behalf (a cancel, a failed non-ready
 *		request, a send that could not be posted), so that exactly
 *		one of them completes it; see nvfab_claim_host_completion().
 *		Cleared before each start
 *
 * Transports put this first in their per-request PDU (blk-mq cmd_size).
 */
struct nvfab_request {
	struct nvme_command	*cmd;
	union nvme_result	result;
	u16			status;
	u8			retries;
	u8			flags;
	u8			genctr;
	struct nvfab_ctrl	*ctrl;
	u64			start_ns;
	unsigned long		host_claim;
};

static inline struct nvfab_request *nvfab_req(struct request *rq)
{
	return blk_mq_rq_to_pdu(rq);
}

/*
 * Command Identifiers: the blk-mq tag in bits 0-11 and a 4-bit generation
 * in bits 12-15, so that a CID echoed late by a target for an earlier use
 * of the same tag is recognised and refused.
 */
#define NVFAB_CID_TAG_BITS	12
#define NVFAB_CID_TAG_MASK	((1 << NVFAB_CID_TAG_BITS) - 1)
#define NVFAB_CID_GEN_MASK	0xf

static inline u16 nvfab_cid(struct request *rq)
{
	return ((nvfab_req(rq)->genctr & NVFAB_CID_GEN_MASK) <<
		NVFAB_CID_TAG_BITS) | rq->tag;
}

/**
 * nvfab_find_rq() - the in-flight request a target-supplied CID names
 * @tags:	tags of the queue the CID arrived on, or NULL if it has none
 * @cid:	Command Identifier from the target (untrusted)
 *
 * A CID is only valid while its command waits for the target: the request
 * must be started and not yet completed (MQ_RQ_IN_FLIGHT), and the CID's
 * generation must match. The generation moves on both at setup and at
 * completion (nvfab_req_done()), so a late or duplicated PDU for a command
 * that already completed, even one whose tag was reused since, never
 * matches (NVMe base 2.0, 4.2: a CID is unique among outstanding commands
 * only).
 *
 * Context: any context; the caller serialises the PDUs of one queue.
 * Return: the request, or NULL when no command in flight has that CID.
 */
static inline struct request *nvfab_find_rq(struct blk_mq_tags *tags, u16 cid)
{
	struct request *rq;

	if (!tags)
		return NULL;
	/* blk_mq_tag_to_rq() refuses a tag past the set's depth. */
	rq = blk_mq_tag_to_rq(tags, cid & NVFAB_CID_TAG_MASK);
	if (!rq || blk_mq_rq_state(rq) != MQ_RQ_IN_FLIGHT)
		return NULL;
	if (((cid >> NVFAB_CID_TAG_BITS) & NVFAB_CID_GEN_MASK) !=
	    (nvfab_req(rq)->genctr & NVFAB_CID_GEN_MASK))
		return NULL;
	return rq;
}

/**
 * nvfab_req_done() - end a command's life as a CID the target may name
 * @rq: the request, about to be completed
 *
 * Moves the generation on, so that nvfab_find_rq() refuses the old CID
 * from now on. Called by every path that completes a request the target
 * knows: a CQE, a cancellation, a timeout.
 *
 * Context: any context; the caller owns the completion of @rq.
 */
static inline void nvfab_req_done(struct request *rq)
{
	nvfab_req(rq)->genctr++;
}

/**
 * struct nvfab_ctrl_ops - what a transport provides to the core
 * @name:		transport name, as in sysfs "transport"
 * @module:		owning module
 * @admin_mq_ops:	blk-mq ops of the admin queue
 * @io_mq_ops:		blk-mq ops of the I/O queues
 * @cmd_size:		bytes of per-request PDU, starting with
 *			struct nvfab_request
 * @blocking:		->queue_rq may sleep: the tag sets get
 *			BLK_MQ_F_BLOCKING
 * @start_queue:	establish transport queue @qid (0 = admin): connect
 *			and exchange the transport's initialisation PDUs. The
 *			NVMe-oF Connect command is the core's job. May sleep.
 *			Returns 0 or a negative errno.
 * @stop_queue:		stop queue @qid: after it returns nothing is sent
 *			or received on it. May sleep. Idempotent.
 * @free_queue:		release queue @qid's resources. May sleep.
 * @submit_async_event:	send an Asynchronous Event Request on the admin
 *			queue, outside blk-mq. Must not sleep.
 * @free_ctrl:		free the transport's controller. May sleep.
 * @get_address:	print the address ("traddr=...,trsvcid=...") into
 *			@buf of @size bytes; returns the length
 * @peer_distance:	how far the controller's device is from @page of
 *			peer memory (nvfab_peer_page_distance()): >= 0,
 *			-ENOENT when @page is host memory, another negative
 *			errno when the controller cannot reach it. Called by
 *			the multipath head under SRCU: must not sleep
 * @supports_peer_mem:	the transport maps peer memory through
 *			nvfab-peermem (its namespaces then advertise
 *			BLK_FEAT_PCI_P2PDMA on kernels with PCI_P2PDMA)
 */
struct nvfab_ctrl_ops {
	const char		*name;
	struct module		*module;
	const struct blk_mq_ops	*admin_mq_ops;
	const struct blk_mq_ops	*io_mq_ops;
	unsigned int		cmd_size;
	bool			blocking;
	int			(*start_queue)(struct nvfab_ctrl *ctrl, int qid);
	void			(*stop_queue)(struct nvfab_ctrl *ctrl, int qid);
	void			(*free_queue)(struct nvfab_ctrl *ctrl, int qid);
	void			(*submit_async_event)(struct nvfab_ctrl *ctrl);
	void			(*free_ctrl)(struct nvfab_ctrl *ctrl);
	int			(*get_address)(struct nvfab_ctrl *ctrl, char *buf,
					       int size);
	int			(*peer_distance)(struct nvfab_ctrl *ctrl,
						 struct page *page);
	bool			supports_peer_mem;
};

/**
 * struct nvfab_peer_counters - peer-memory I/O of a controller or of a
 * multipath head (Documentation/admin-guide/nvfab-peermem.rst), shown in
 * their sysfs peer_mem/
 * @ios:	I/Os on peer memory (a controller: mapped by a provider; a
 *		head: routed to a path that reaches the memory)
 * @bytes:	bytes they carried
 * @map_failures: I/Os failed because their peer memory could not be
 *		mapped for the controller, or no usable path of the head
 *		reaches it
 * @unreachable_skips: times a usable path was passed over for an I/O
 *		because its device cannot reach the I/O's memory (or a
 *		nearer one can)
 * @bounces:	peer I/Os copied through host memory instead; nvfab never
 *		does that, so this stays 0
 */
struct nvfab_peer_counters {
	atomic64_t	ios;
	atomic64_t	bytes;
	atomic64_t	map_failures;
	atomic64_t	unreachable_skips;
	atomic64_t	bounces;
};

struct nvme_dhchap_key;

/**
 * struct nvfab_ctrl - an NVMe controller reached over a fabric
 * @ops:		the transport's operations
 * @opts:		connect options, owned
 * @ctrl_device:	the /dev/nvfabN device; its refcount is the
 *			controller's, the last put frees via @ops->free_ctrl
 * @device:		&@ctrl_device
 * @cdev:		the character device
 * @instance:		N of nvfabN
 * @lock:		protects @state; innermost lock
 * @state:		see nvfab_change_ctrl_state()
 * @state_wq:		woken on every state change
 * @admin_tagset:	admin queue tags
 * @tagset:		I/O queue tags, shared by every namespace
 * @admin_q:		admin request queue
 * @connect_q:		request queue for the I/O queues' Connect commands
 * @admin_tagset_live:	@admin_tagset and @admin_q exist
 * @tagset_live:	@tagset and @connect_q exist
 * @cntlid:		Controller ID from the admin Connect response
 * @cap:		CAP property
 * @vs:			VS property
 * @ctrl_config:	CC property as last written
 * @queue_count:	admin queue plus I/O queues in use
 * @sqsize:		I/O queue size, 0's based
 * @max_hw_sectors:	largest transfer, from MDTS and
 *			@max_transfer_sectors (512-byte sectors)
 * @max_transfer_sectors: largest transfer the transport can map (512-byte
 *			sectors; 0: no limit), set by the transport when it
 *			starts queue 0, before the first command (the
 *			admin queue's limits are set after Identify)
 * @max_segments:	data segments per command the transport can map (0:
 *			no limit), set like @max_transfer_sectors
 * @virt_boundary_mask:	the transport's virtual boundary (bytes - 1; 0:
 *			none), e.g. the page size of a memory registration;
 *			set like @max_transfer_sectors
 * @numa_node:		NUMA node of the transport's device, for the I/O
 *			tag set and the multipath numa selector, set when
 *			queue 0 starts (NUMA_NO_NODE by default: the
 *			controller device's node; the admin tag set of the
 *			first connect is allocated before queue 0 starts,
 *			so that a PDU can never arrive before it exists,
 *			and has no node)
 * @ioccsz:		I/O Queue Command Capsule Supported Size (16 bytes)
 * @iorcsz:		I/O Queue Response Capsule Supported Size (16 bytes)
 * @icdoff:		In Capsule Data Offset (16 bytes)
 * @kas:		Keep Alive Support granularity (100 ms)
 * @oaes:		Optional Asynchronous Events Supported
 * @ctratt_tbkas:	traffic-based keep-alive supported
 * @kato:		keep-alive timeout in force (seconds)
 * @sqflow_disabled:	the current association's admin Connect asked for SQ
 *			flow control disabled (nvfab_connect_queue())
 * @sqflow_refused:	the controller refused that once: later associations
 *			keep SQ flow control (controller's life)
 * @auth_lock:		serialises the DH-HMAC-CHAP transactions of the
 *			controller's queues and guards the keys (auth.c)
 * @host_key:		dhchap_secret's key, or NULL (under @auth_lock)
 * @ctrl_key:		dhchap_ctrl_secret's key, or NULL: the controller
 *			is not authenticated by the host (under @auth_lock)
 * @tls_pskid:		serial of the PSK the admin queue's TLS handshake
 *			negotiated, 0 for none (yet); written by the transport
 *			when it starts the admin queue, which the I/O queues
 *			then offer; read locklessly (sysfs tls_key)
 * @nn:			Number of Namespaces
 * @sgls:		SGL Support
 * @oncs:		Optional NVM Command Support
 * @vwc:		Volatile Write Cache
 * @admin_effects:	Commands Supported and Effects of each admin opcode,
 *			as the log says (0 without it; effects.c)
 * @scan_gen:		generation of the last namespace scan (under
 *			@scan_lock)
 * @nr_read_queues:	I/O queues for reads (HCTX_TYPE_READ/DEFAULT)
 * @nr_write_queues:	I/O queues for writes (HCTX_TYPE_DEFAULT)
 * @nr_poll_queues:	polled I/O queues (HCTX_TYPE_POLL)
 * @vid:		PCI Vendor ID from Identify Controller
 * @subsysnqn:		SUBNQN from Identify Controller
 * @serial:		Serial Number, not NUL terminated when full
 * @model:		Model Number, not NUL terminated when full
 * @firmware_rev:	Firmware Revision, not NUL terminated when full
 * @identified:		Identify Controller succeeded once
 * @scan_lock:		serialises namespace scans; outside subsys->lock,
 *			@ana_lock, @namespaces_rwsem and @quiesce_lock
 * @quiesce_lock:	serialises the I/O tag set's quiesce state
 *			(NVFAB_CTRL_IO_QUIESCED) with the namespace queues
 *			added to the tag set, which a scan may add while
 *			error recovery has the tag set quiesced
 * @namespaces_rwsem:	protects @namespaces; inside @ana_lock, outside
 *			@quiesce_lock and @lock; never held across a command
 * @namespaces:		struct nvfab_ns list
 * @scan_work:		namespace scan (nvfab_wq)
 * @async_event_work:	re-arms the AER (nvfab_wq)
 * @err_work:		error recovery teardown (nvfab_reset_wq)
 * @reset_work:		user reset (nvfab_reset_wq)
 * @delete_work:	asynchronous deletion (nvfab_delete_wq)
 * @ka_work:		keep-alive (nvfab_wq)
 * @ka_deadline:	fires when a keep-alive is unanswered for
 *			nvfab_keep_alive_tmo() (soft hrtimer)
 * @ka_expired_work:	error recovery for an unanswered keep-alive (nvfab_wq)
 * @ka_sent:		jiffies when the outstanding keep-alive was sent
 * @ka_pending:		a keep-alive is outstanding
 * @connect_work:	reconnect attempts (nvfab_reset_wq)
 * @failfast_work:	fast_io_fail_tmo expiry (nvfab_wq)
 * @aen_result:		Dword 0 of the last asynchronous event
 * @nr_reconnects:	attempts since the association was lost
 * @flags:		NVFAB_CTRL_* bits
 * @queue_state:	per queue ID, its enum nvfab_queue_state (see
 *			nvfab_change_queue_state()); @nr_queue_state entries
 * @nr_queue_state:	queue IDs the controller may use (admin included)
 * @subsys:		the subsystem, once joined (subsys.c)
 * @subsys_entry:	in subsys->ctrls (protected by subsys->lock)
 * @slot:		the controller's path slot in @subsys
 * @mp_inflight:	multipath requests in flight on this controller
 * @ana_supported:	CMIC reports ANA
 * @anacap:		ANA Capabilities
 * @anatt:		ANA Transition Time (seconds)
 * @nanagrpid:		Number of ANA Group Identifiers
 * @anagrpmax:		ANA Group Identifier Maximum
 * @ana_lock:		serialises ANA log reads and group updates; outside
 *			@namespaces_rwsem, which nvfab_ana_read() takes
 *			inside it
 * @ana_log:		buffer for the ANA log (protected by @ana_lock)
 * @ana_log_size:	its size in bytes
 * @ana_groups:		struct nvfab_ana_group by group ID
 * @ana_work:		re-reads the ANA log (nvfab_wq)
 * @peer:		peer-memory I/O counters (the transports count)
 * @reset_count:	resets of the association (a reset asked for or
 *			error recovery), sysfs diag/ (core/diag.c)
 * @reconnect_count:	reconnect attempts (nvfab_connect_work()), sysfs
 *			diag/
 *
 * Fields read from the controller are written only while CONNECTING and
 * read anywhere after.
 */
struct nvfab_ctrl {
	/* set at init, constant */
	const struct nvfab_ctrl_ops	*ops;
	struct nvfab_ctrl_options	*opts;
	struct device			ctrl_device;
	struct device			*device;	/* &ctrl_device */
	struct cdev			cdev;
	int				instance;

	spinlock_t			lock;		/* protects state */
	enum nvfab_ctrl_state		state;		/* protected by lock */
	wait_queue_head_t		state_wq;

	/* blk-mq */
	struct blk_mq_tag_set		admin_tagset;
	struct blk_mq_tag_set		tagset;
	struct request_queue		*admin_q;
	struct request_queue		*connect_q;	/* I/O Connects */
	bool				admin_tagset_live;
	bool				tagset_live;

	/* from the controller; written while CONNECTING, read anywhere */
	u16				cntlid;
	u64				cap;
	u32				vs;
	u32				ctrl_config;
	u32				queue_count;	/* admin + I/O */
	u32				sqsize;		/* 0's based */
	u32				max_hw_sectors;
	u32				max_transfer_sectors;
	u32				max_segments;
	unsigned long			virt_boundary_mask;
	int				numa_node;
	u32				ioccsz;		/* 16-byte units */
	u32				iorcsz;
	u16				icdoff;
	u16				kas;		/* 100 ms units */
	u32				oaes;
	u8				ctratt_tbkas;
	u32				kato;		/* seconds */
	bool				sqflow_disabled;
	bool				sqflow_refused;
	struct mutex			auth_lock;	/* keys, transactions */
	struct nvme_dhchap_key		*host_key;
	struct nvme_dhchap_key		*ctrl_key;
	key_serial_t			tls_pskid;
	u32				nn;
	u32				sgls;
	u16				oncs;
	u8				vwc;
	u32				admin_effects[256];
	u32				scan_gen;	/* under scan_lock */
	unsigned int			nr_read_queues;	/* HCTX_TYPE_READ/DEFAULT */
	unsigned int			nr_write_queues; /* HCTX_TYPE_DEFAULT */
	unsigned int			nr_poll_queues;	/* HCTX_TYPE_POLL */
	u16				vid;
	char				subsysnqn[NVMF_NQN_SIZE];
	char				serial[20];
	char				model[40];
	char				firmware_rev[8];
	bool				identified;

	/* namespaces */
	struct mutex			scan_lock;	/* serialises scans */
	struct mutex			quiesce_lock;	/* see above */
	struct rw_semaphore		namespaces_rwsem;
	struct list_head		namespaces;	/* protected by rwsem */

	/* work; see the ordering rules at the top of core.c */
	struct work_struct		scan_work;
	struct work_struct		async_event_work;
	struct work_struct		err_work;
	struct work_struct		reset_work;
	struct work_struct		delete_work;
	struct delayed_work		ka_work;
	struct hrtimer			ka_deadline;
	struct work_struct		ka_expired_work;
	unsigned long			ka_sent;	/* READ/WRITE_ONCE */
	bool				ka_pending;	/* READ/WRITE_ONCE */
	struct delayed_work		connect_work;
	struct delayed_work		failfast_work;
	u32				aen_result;
	int				nr_reconnects;
	unsigned long			flags;
	atomic_t			*queue_state;
	unsigned int			nr_queue_state;

	/* multipath and ANA */
	struct nvfab_subsys		*subsys;
	struct list_head		subsys_entry;
	unsigned int			slot;
	atomic_t			mp_inflight;
	bool				ana_supported;
	u8				anacap;
	u8				anatt;
	u32				nanagrpid;
	u32				anagrpmax;
	struct mutex			ana_lock;	/* see above */
	void				*ana_log;	/* protected by ana_lock */
	size_t				ana_log_size;
	struct xarray			ana_groups;
	struct work_struct		ana_work;

	struct nvfab_peer_counters	peer;

	/* diagnostic counters, counted where the event is rare */
	atomic64_t			reset_count;
	atomic64_t			reconnect_count;
};

/**
 * nvfab_queue_tags() - the tags a received PDU or CQE's CID is looked up in
 * @ctrl:	the controller
 * @qid:	the queue the PDU or CQE arrived on (0: admin)
 *
 * A queue is started, and may receive, before its tag set exists: queue 0
 * of a controller on its first connect is started before the admin tag set
 * is allocated, an I/O queue before the I/O tag set exists or grows to it.
 * A target may send at once, unasked (a CapsuleResp in the same segment as
 * the ICResp, a CQE right after the RDMA accept); the lookup must then find
 * no command rather than read a tag set that is not there. The tag sets are
 * allocated and freed by the connect and teardown paths
 * (core/ctrl-setup.c), which stop a queue's receive before freeing its tag
 * set.
 *
 * Context: any context (the receive path of a transport).
 * Return: the tags, or NULL while the queue has none.
 */
static inline struct blk_mq_tags *nvfab_queue_tags(struct nvfab_ctrl *ctrl,
						   unsigned int qid)
{
	if (qid == 0)
		return READ_ONCE(ctrl->admin_tagset_live) ?
			ctrl->admin_tagset.tags[0] : NULL;
	if (!READ_ONCE(ctrl->tagset_live) || qid > ctrl->tagset.nr_hw_queues)
		return NULL;
	return ctrl->tagset.tags[qid - 1];
}

/**
 * nvfab_ctrl_count_peer() - account one request's peer-memory mapping
 * @ctrl:	the controller the request went to
 * @ret:	nvfab_peer_map_sg()'s result: > 0 mapped, < 0 failed, 0 host
 *		memory (not counted)
 * @bytes:	the request's data bytes
 *
 * Context: any.
 */
static inline void nvfab_ctrl_count_peer(struct nvfab_ctrl *ctrl, int ret,
					 u64 bytes)
{
	if (ret > 0) {
		atomic64_inc(&ctrl->peer.ios);
		atomic64_add(bytes, &ctrl->peer.bytes);
	} else if (ret < 0) {
		atomic64_inc(&ctrl->peer.map_failures);
	}
}

/* Bits of nvfab_ctrl.flags. */
#define NVFAB_CTRL_FAILFAST_EXPIRED	0
#define NVFAB_CTRL_ADMIN_Q_STOPPED	1
#define NVFAB_CTRL_ADMIN_QUIESCED	2
#define NVFAB_CTRL_IO_QUIESCED		3
#define NVFAB_CTRL_NS_CHANGED		4
#define NVFAB_CTRL_STARTED		5	/* went live once: deletable */
#define NVFAB_CTRL_ERR_PENDING		6	/* an error while connecting */

/*
 * Workqueues. nvfab_wq runs scans, AEN handling, keep-alive and its
 * expiry; error recovery, reset and reconnect run on nvfab_reset_wq and
 * deletion on nvfab_delete_wq, so that a delete may flush a reset, never
 * the reverse. Recovery never waits for a scan: the scan's commands are
 * among those it cancels.
 */
extern struct workqueue_struct *nvfab_wq;
extern struct workqueue_struct *nvfab_reset_wq;
extern struct workqueue_struct *nvfab_delete_wq;

extern const struct class nvfab_class;
extern const struct class nvfab_subsys_class;

int nvfab_instance_get(void);
void nvfab_instance_put(int instance);

static inline enum nvfab_ctrl_state nvfab_ctrl_state(struct nvfab_ctrl *ctrl)
{
	return READ_ONCE(ctrl->state);
}

bool nvfab_change_ctrl_state(struct nvfab_ctrl *ctrl,
			     enum nvfab_ctrl_state new_state);

/**
 * enum nvfab_ctrl_event - controller events told to the notifier chain
 * @NVFAB_CTRL_EVENT_LIVE:	the controller went live, at its first connect
 *				or a reconnect; its AENs are enabled and its
 *				AER is queued
 * @NVFAB_CTRL_EVENT_DISC_CHANGE: a Discovery Log Page Change notice arrived
 *				(NVMe over Fabrics 1.1, 5.3; AEN notice F0h)
 * @NVFAB_CTRL_EVENT_DELETING:	the controller's removal started
 *
 * The callbacks (nvfab_register_ctrl_notifier()) get the event as @action
 * and the struct nvfab_ctrl as @data. They run in atomic context: they
 * only queue their own work.
 */
enum nvfab_ctrl_event {
	NVFAB_CTRL_EVENT_LIVE,
	NVFAB_CTRL_EVENT_DISC_CHANGE,
	NVFAB_CTRL_EVENT_DELETING,
};

int nvfab_register_ctrl_notifier(struct notifier_block *nb);
int nvfab_unregister_ctrl_notifier(struct notifier_block *nb);
void nvfab_ctrl_event(struct nvfab_ctrl *ctrl, enum nvfab_ctrl_event event);
int nvfab_init_ctrl(struct nvfab_ctrl *ctrl, struct device *parent,
		    const struct nvfab_ctrl_ops *ops,
		    struct nvfab_ctrl_options *opts);
void nvfab_uninit_ctrl(struct nvfab_ctrl *ctrl);
void nvfab_put_ctrl(struct nvfab_ctrl *ctrl);
int nvfab_start_new_ctrl(struct nvfab_ctrl *ctrl);
bool nvfab_error_recovery(struct nvfab_ctrl *ctrl);
int nvfab_delete_ctrl(struct nvfab_ctrl *ctrl);
int nvfab_delete_ctrl_sync(struct nvfab_ctrl *ctrl);
int nvfab_reset_ctrl(struct nvfab_ctrl *ctrl);
const char *nvfab_ctrl_state_name(enum nvfab_ctrl_state state);

/* request helpers for transports */
blk_status_t nvfab_setup_cmd(struct request *rq);
void nvfab_start_request(struct request *rq);
void nvfab_cleanup_cmd(struct request *rq);
bool nvfab_change_queue_state(struct nvfab_ctrl *ctrl, int qid,
			      enum nvfab_queue_state new_state);
__printf(3, 0)
bool nvfab_fail_queue_va(struct nvfab_ctrl *ctrl, int qid, const char *fmt,
			 va_list args);

/**
 * nvfab_queue_state() - the state of queue @qid
 * @ctrl: the controller
 * @qid: a queue ID below @ctrl->nr_queue_state
 *
 * Context: any context; a snapshot.
 * Return: its enum nvfab_queue_state.
 */
static inline enum nvfab_queue_state nvfab_queue_state(struct nvfab_ctrl *ctrl,
						       int qid)
{
	return atomic_read(&ctrl->queue_state[qid]);
}

/**
 * nvfab_queue_live() - does queue @qid trust what it receives?
 * @ctrl: the controller
 * @qid: a queue ID below @ctrl->nr_queue_state
 *
 * Context: any context; a snapshot.
 * Return: true while the queue is LIVE, AUTHENTICATING or CONNECTED.
 */
static inline bool nvfab_queue_live(struct nvfab_ctrl *ctrl, int qid)
{
	enum nvfab_queue_state s = nvfab_queue_state(ctrl, qid);

	return s == NVFAB_QUEUE_LIVE || s == NVFAB_QUEUE_AUTHENTICATING ||
	       s == NVFAB_QUEUE_CONNECTED;
}

bool nvfab_check_ready(struct nvfab_ctrl *ctrl, struct request *rq);
blk_status_t nvfab_fail_nonready(struct nvfab_ctrl *ctrl, struct request *rq);
void nvfab_complete_rq(struct request *rq);
bool nvfab_try_complete_req(struct request *rq, __le16 status,
			    union nvme_result result);
bool nvfab_cancel_request(struct request *rq, void *data);
bool nvfab_claim_host_completion(struct request *rq);
void nvfab_complete_async_event(struct nvfab_ctrl *ctrl, __le16 status,
				union nvme_result *res);
void nvfab_map_queues(struct blk_mq_tag_set *set);

/* admin commands */
int nvfab_submit_sync_cmd(struct request_queue *q, struct nvme_command *cmd,
			  union nvme_result *result, void *buf,
			  unsigned int bufflen, int qid, bool at_head,
			  blk_mq_req_flags_t flags);
int nvfab_identify(struct nvfab_ctrl *ctrl, u8 cns, u32 nsid, void *buf,
		   unsigned int len);
int nvfab_get_log(struct nvfab_ctrl *ctrl, u8 lid, u32 nsid, void *buf,
		  size_t len, u64 offset);

/* fabrics commands (fabrics-cmd.c, in nvfab-core) */
int nvfab_reg_read32(struct nvfab_ctrl *ctrl, u32 off, u32 *val);
int nvfab_reg_read64(struct nvfab_ctrl *ctrl, u32 off, u64 *val);
int nvfab_reg_write32(struct nvfab_ctrl *ctrl, u32 off, u32 val);
int nvfab_connect_queue(struct nvfab_ctrl *ctrl, int qid);

#endif /* _NVFAB_CORE_H */
