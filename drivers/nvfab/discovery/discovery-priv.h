/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-discovery internals: the discovery controllers it follows, their
 * log records, and what the files of the module share.
 *
 * Objects and locks:
 *  - struct nvfab_disc_item: one configfs directory,
 *    /sys/kernel/config/nvfab/discovery/<name>/ (discovery-configfs.c).
 *    Its @lock protects its settings and @disc, and is taken outside every
 *    other lock of the module.
 *  - struct nvfab_disc: a discovery controller followed, either the root
 *    of an enabled item or a referral child (depth 1..3). Its @lock (a
 *    mutex) protects @state, @ctrl, @recs and @nr_connecting. A parent's
 *    lock is taken outside its children's (mutex_lock_nested() by depth).
 *  - struct nvfab_disc_rec: one Discovery Log Page entry of a nvfab_disc,
 *    with what was done about it.
 *  - nvfab_disc_all_lock (spinlock, innermost): the list of every running
 *    nvfab_disc, searched by the controller notifier in atomic context,
 *    and each one's @ctrl pointer (written under both locks).
 *  - nvfab_disc_slots_lock (spinlock, innermost): connects in flight, in
 *    total and per root.
 *
 * Work items (nvfab_disc_wq): @create_work creates the discovery
 * controller, @log_work reads the log and reconciles, @dispatch_work
 * starts connects. Connects themselves run on nvfab_disc_connect_wq, one
 * work item per record, because each sleeps for a whole connect.
 */
#ifndef _NVFAB_DISCOVERY_PRIV_H
#define _NVFAB_DISCOVERY_PRIV_H

#include <linux/configfs.h>
#include <linux/if.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <nvfab/core.h>
#include <nvfab/fabrics.h>

#include "discovery.h"

/* Longest configfs entry name, without the NUL. */
#define NVFAB_DISC_NAME_MAX	63
/* Longest name of a referral child: "<root>@<traddr>:<trsvcid>". */
#define NVFAB_DISC_CHILD_NAME_MAX \
	(NVFAB_DISC_NAME_MAX + 1 + NVFAB_TRADDR_SIZE + 1 + NVFAB_TRSVCID_SIZE)
/* Deepest referral followed: the root is depth 0. */
#define NVFAB_DISC_MAX_DEPTH	3
/* Longest connect_opts string, without the NUL. */
#define NVFAB_DISC_OPTS_MAX	511
/* Longest match list as written, without the NUL. */
#define NVFAB_DISC_MATCH_MAX	4000
/* Limits of the per-entry max_inflight and of poll_interval (seconds). */
#define NVFAB_DISC_INFLIGHT_MAX	1024
#define NVFAB_DISC_POLL_MAX	86400
/* Largest log attribute (bytes). */
#define NVFAB_DISC_LOG_TEXT_MAX	SZ_1M
/* First connect backoff (seconds); it doubles up to retry_max_s. */
#define NVFAB_DISC_BACKOFF_MIN	2
/*
 * Good log reads in a row an entry must be missing from before it is gone
 * (module parameter absent_reads: default and limit), and the seconds
 * until the log is read again while one is missing.
 */
#define NVFAB_DISC_ABSENT_READS		3
#define NVFAB_DISC_ABSENT_READS_MAX	16
#define NVFAB_DISC_ABSENT_RECHECK_S	2
/*
 * Referral children (module parameters max_referrals, per entry, and
 * max_referrals_total, over all entries: defaults and limits).
 */
#define NVFAB_DISC_REFERRALS		16
#define NVFAB_DISC_REFERRALS_MAX	1024
#define NVFAB_DISC_REFERRALS_TOTAL	64
#define NVFAB_DISC_REFERRALS_TOTAL_MAX	4096

enum nvfab_disc_connect_policy {
	NVFAB_DISC_CONNECT_ALL,
	NVFAB_DISC_CONNECT_NONE,
	NVFAB_DISC_CONNECT_MATCH,
};

enum nvfab_disc_disconnect_policy {
	NVFAB_DISC_DISCONNECT_NONE,
	NVFAB_DISC_DISCONNECT_OURS,
};

/**
 * struct nvfab_disc_match - the NQN patterns of connect=match
 * @rcu: freed after a grace period (readers hold rcu_read_lock())
 * @nr: number of patterns
 * @len: bytes of @text
 * @text: the patterns, each NUL terminated, one after the other
 */
struct nvfab_disc_match {
	struct rcu_head	rcu;
	unsigned int	nr;
	size_t		len;
	char		text[];
};

/**
 * struct nvfab_disc_cfg - how to reach a discovery controller; frozen
 *	while the entry is enabled (configfs refuses writes with -EBUSY)
 * @transport: "tcp" or "rdma"
 * @traddr: its address
 * @trsvcid: its port, decimal
 * @host_traddr: local address to use, or ""
 * @host_iface: local interface to use, or ""
 * @hostnqn: Host NQN, or "" for the fabrics default host
 * @hostid: Host Identifier (UUID text), or ""
 * @nqn: the discovery subsystem's NQN
 * @kato: Keep Alive Timeout of the discovery controller (seconds)
 * @connect_opts: options added to every I/O controller's connect string
 */
struct nvfab_disc_cfg {
	char		transport[NVFAB_TRANSPORT_SIZE];
	char		traddr[NVFAB_TRADDR_SIZE];
	char		trsvcid[NVFAB_TRSVCID_SIZE];
	char		host_traddr[NVFAB_TRADDR_SIZE];
	char		host_iface[IFNAMSIZ];
	char		hostnqn[NVFAB_NQN_SIZE];
	char		hostid[UUID_STRING_LEN + 1];
	char		nqn[NVFAB_NQN_SIZE];
	unsigned int	kato;
	char		connect_opts[NVFAB_DISC_OPTS_MAX + 1];
};

/**
 * struct nvfab_disc_policy - what may change while an entry runs; shared
 *	by its root and referral children, read with READ_ONCE()
 * @connect: enum nvfab_disc_connect_policy
 * @disconnect: enum nvfab_disc_disconnect_policy
 * @poll_interval: seconds between log reads without an event; 0 = none
 * @max_inflight: connects in flight for the entry (root and children)
 * @match: the patterns of connect=match (RCU; replaced under the item's
 *	lock)
 */
struct nvfab_disc_policy {
	int				connect;
	int				disconnect;
	unsigned int			poll_interval;
	unsigned int			max_inflight;
	struct nvfab_disc_match __rcu	*match;
};

/* What a record stands for, as the log attribute shows it. */
enum nvfab_disc_rec_state {
	NVFAB_DISC_REC_PENDING,		/* waits for its jitter or a slot */
	NVFAB_DISC_REC_CONNECTING,	/* its connect work runs */
	NVFAB_DISC_REC_CONNECTED,	/* @ctrl is ours */
	NVFAB_DISC_REC_PRESENT,		/* someone else's controller exists */
	NVFAB_DISC_REC_RETRY,		/* the last connect failed; backoff */
	NVFAB_DISC_REC_SKIPPED,		/* policy, or a transport we lack */
	NVFAB_DISC_REC_FOLLOWED,	/* referral: @child follows it */
	NVFAB_DISC_REC_DUPLICATE,	/* referral to an endpoint followed */
	NVFAB_DISC_REC_TOO_DEEP,	/* referral beyond the depth limit */
	NVFAB_DISC_REC_SELF,		/* current discovery subsystem */
	NVFAB_DISC_REC_NEEDS_TLS,	/* secure channel out of reach */
	NVFAB_DISC_REC_TOO_MANY,	/* referral beyond max_referrals */
};

/**
 * struct nvfab_disc_rec - one log entry of a discovery controller
 * @node: in disc->recs (under disc->lock); empty once @removed
 * @disc: the discovery controller whose log holds the entry
 * @e: the entry, as last read
 * @state: enum nvfab_disc_rec_state (under disc->lock)
 * @seen: found in the log being reconciled (under disc->lock)
 * @removed: left the log while its connect ran: the connect work frees it
 * @fresh: made PENDING by the log being reconciled (under disc->lock)
 * @absent: good log reads in a row the entry was missing from (under
 *	disc->lock); it is gone at absent_reads
 * @ctrl: the I/O controller we created, referenced (CONNECTED only)
 * @child: the referral's discovery controller (FOLLOWED only)
 * @due: jiffies before which no connect starts (PENDING, RETRY)
 * @backoff: seconds of the next retry's delay; 0 before a failure
 * @work: the connect (nvfab_disc_connect_wq)
 */
struct nvfab_disc_rec {
	struct list_head	node;
	struct nvfab_disc	*disc;
	struct nvfab_disc_entry	e;
	int			state;
	bool			seen;
	bool			removed;
	bool			fresh;
	unsigned int		absent;
	struct nvfab_ctrl	*ctrl;
	struct nvfab_disc	*child;
	unsigned long		due;
	unsigned int		backoff;
	struct work_struct	work;
};

/* disc->state */
enum nvfab_disc_state {
	NVFAB_DISC_CREATING,	/* creating the discovery controller */
	NVFAB_DISC_RETRYING,	/* creating it failed; @create_work waits */
	NVFAB_DISC_RUNNING,	/* @ctrl exists */
	NVFAB_DISC_STOPPING,
};

/* Bits of disc->reasons: why the log is read next. */
#define NVFAB_DISC_WHY_LIVE	0	/* (re)connected */
#define NVFAB_DISC_WHY_AEN	1	/* DLP change AEN */
#define NVFAB_DISC_WHY_GONE	2	/* a controller is being deleted */
/* A child's create_work waits for a connect slot; dispatch queues it. */
#define NVFAB_DISC_WANT_SLOT	3

/**
 * struct nvfab_disc_stats - counters of one discovery controller
 * (atomic: read without its lock)
 * @log_reads: log reads started, failed ones included
 * @log_errors: log reads that failed
 * @aens: log reads a DLP change AEN asked for
 * @polls: log reads asked for neither by an AEN nor by a (re)connect
 * @connects: I/O controllers created
 * @connect_failures: connects that failed (-EALREADY is not one)
 * @disconnects: I/O controllers deleted because their entry left the log
 * @referrals: referrals followed
 * @entries: usable entries of the last log
 * @genctr: GENCTR of the last log
 */
struct nvfab_disc_stats {
	atomic_t	log_reads;
	atomic_t	log_errors;
	atomic_t	aens;
	atomic_t	polls;
	atomic_t	connects;
	atomic_t	connect_failures;
	atomic_t	disconnects;
	atomic_t	referrals;
	atomic_t	entries;
	atomic64_t	genctr;
};

/**
 * struct nvfab_disc - a discovery controller that nvfab follows
 * @name: the configfs name, or "<root>@<traddr>:<trsvcid>" for a referral
 * @root: the configfs entry's disc (itself for a root)
 * @parent: the disc whose log holds the referral, NULL for a root
 * @depth: 0 for a root, parent's + 1
 * @cfg: how to reach it (a child: the root's, with the referral's address)
 * @policy: the configfs entry's policy, which outlives every disc of it
 * @all_node: in nvfab_disc_all (under nvfab_disc_all_lock) while running
 * @stop_node: used by nvfab_disc_stop() to collect children
 * @ref: the owner's reference and one per queued connect work
 * @lock: protects the fields below
 * @state: enum nvfab_disc_state
 * @ctrl: the discovery controller, referenced; also under
 *	nvfab_disc_all_lock
 * @recs: struct nvfab_disc_rec, in log order of their first appearance
 * @nr_connecting: records of @recs (or removed from it) whose connect
 *	work is queued or runs; nvfab_disc_stop() waits for 0 on @wq
 * @wq: woken when @nr_connecting drops
 * @create_backoff: seconds of the next create retry's delay
 * @log_backoff: seconds until the log is read again after a failed read,
 *	0 after a good one (only @log_work uses it: no lock)
 * @inflight: connects in flight for the whole entry (root only; under
 *	nvfab_disc_slots_lock)
 * @inflight_peak: the most @inflight ever was (root only; same lock)
 * @nr_children: referral children of the whole entry (root only)
 * @counted: a child counted in its root's @nr_children (and the module's)
 * @reasons: NVFAB_DISC_WHY_* (atomic bitops); WHY_GONE tells dispatch to
 *	retry the PRESENT records
 * @create_work: creates @ctrl
 * @log_work: reads the log and reconciles; also the poll tick
 * @dispatch_work: starts the connects that are due
 * @stats: counters
 */
struct nvfab_disc {
	char			name[NVFAB_DISC_CHILD_NAME_MAX + 1];
	struct nvfab_disc	*root;
	struct nvfab_disc	*parent;
	unsigned int		depth;
	struct nvfab_disc_cfg	cfg;
	struct nvfab_disc_policy *policy;
	struct list_head	all_node;
	struct list_head	stop_node;
	struct kref		ref;

	struct mutex		lock;	/* see above */
	int			state;
	struct nvfab_ctrl	*ctrl;
	struct list_head	recs;
	unsigned int		nr_connecting;
	wait_queue_head_t	wq;
	unsigned int		create_backoff;
	unsigned int		log_backoff;	/* log_work only */

	unsigned int		inflight;	/* nvfab_disc_slots_lock */
	unsigned int		inflight_peak;	/* nvfab_disc_slots_lock */
	atomic_t		nr_children;
	bool			counted;

	unsigned long		reasons;
	struct delayed_work	create_work;
	struct delayed_work	log_work;
	struct delayed_work	dispatch_work;
	struct nvfab_disc_stats	stats;
};

/* discovery.c: module globals */
extern struct workqueue_struct *nvfab_disc_wq;
extern struct workqueue_struct *nvfab_disc_connect_wq;
extern spinlock_t nvfab_disc_all_lock;
extern struct list_head nvfab_disc_all;
extern unsigned int nvfab_disc_max_inflight;
extern unsigned int nvfab_disc_jitter_ms;
extern unsigned int nvfab_disc_retry_max_s;
extern unsigned int nvfab_disc_absent_reads;
extern unsigned int nvfab_disc_max_referrals;
extern unsigned int nvfab_disc_max_referrals_total;

/* discovery-ctrl.c: the life of a followed discovery controller */
struct nvfab_disc *nvfab_disc_alloc(const char *name,
				    const struct nvfab_disc_cfg *cfg,
				    struct nvfab_disc_policy *policy,
				    struct nvfab_disc *parent);
void nvfab_disc_start(struct nvfab_disc *disc);
void nvfab_disc_stop(struct nvfab_disc *disc, bool removed);
void nvfab_disc_put(struct nvfab_disc *disc);
void nvfab_disc_ctrl_event(struct nvfab_ctrl *ctrl, unsigned long event);
const char *nvfab_disc_state_text(struct nvfab_disc *disc);
void nvfab_disc_print(struct nvfab_disc *disc, struct seq_buf *s);
void nvfab_disc_sum_stats(struct nvfab_disc *disc,
			  struct nvfab_disc_stats *sum);
const char *nvfab_disc_trtype_name(u8 trtype);
bool nvfab_disc_needs_tls(const struct nvfab_disc_entry *e);

/* discovery-connect.c: storm control and the connects */
void nvfab_disc_dispatch_work(struct work_struct *work);
void nvfab_disc_connect_work(struct work_struct *work);
void nvfab_disc_kick_all(void);
unsigned long nvfab_disc_jitter(void);
bool nvfab_disc_herd(bool live, unsigned int fresh, unsigned int max_inflight);
unsigned int nvfab_disc_next_backoff(unsigned int backoff);
void nvfab_disc_uevent(struct nvfab_disc *disc, const char *event,
		       const struct nvfab_disc_entry *e, int err);
bool nvfab_disc_policy_wants(struct nvfab_disc_policy *policy,
			     const char *subnqn);
int nvfab_disc_io_options(const struct nvfab_disc_cfg *c,
			  const struct nvfab_disc_entry *e,
			  struct nvfab_ctrl_options *opts);
/* Most values nvfab_disc_host_values() puts. */
#define NVFAB_DISC_HOST_VALUES	4
unsigned int nvfab_disc_host_values(const struct nvfab_disc_cfg *c, bool tcp,
				    struct nvfab_opt_value *v);
bool nvfab_disc_hold_ctrl(struct nvfab_ctrl *ctrl);
void nvfab_disc_drop_rec_ctrl(struct nvfab_disc_rec *rec, bool disconnect);
bool nvfab_disc_get_slot(struct nvfab_disc *root);
void nvfab_disc_put_slot(struct nvfab_disc *root);
unsigned int nvfab_disc_inflight_peak(void);
unsigned int nvfab_disc_root_inflight(struct nvfab_disc *root,
				      unsigned int *peak);

/* discovery-configfs.c */
int nvfab_disc_configfs_init(void);
void nvfab_disc_configfs_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_disc_str(const char *page, size_t count, char *buf, size_t size,
		   const char *what);
int nvfab_disc_check_cfg(const char *name, char *val);
struct nvfab_disc_match *nvfab_disc_parse_match(const char *page,
						size_t count);
bool nvfab_disc_name_valid(const char *name);
int nvfab_disc_child_cfg(const struct nvfab_disc_cfg *root,
			 const struct nvfab_disc_entry *e,
			 struct nvfab_disc_cfg *cfg);
int nvfab_disc_ctrl_options(const struct nvfab_disc_cfg *c,
			    struct nvfab_ctrl_options *opts);
int nvfab_disc_nvm_state(struct nvfab_disc_policy *policy,
			 const struct nvfab_disc_entry *e);
bool nvfab_disc_reconcile(struct nvfab_disc *disc,
			  const struct nvfab_disc_log *log,
			  struct list_head *stop, bool live);
bool nvfab_disc_add_child(struct nvfab_disc *child);
#endif

#endif /* _NVFAB_DISCOVERY_PRIV_H */
