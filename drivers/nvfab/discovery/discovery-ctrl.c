// SPDX-License-Identifier: GPL-2.0
/*
 * The discovery controllers nvfab-discovery follows (NVMe over Fabrics
 * 1.1, 3.1 and 5.3): create one, read its Discovery Log Page when it goes
 * live, on every DLP change AEN and on a poll tick, reconcile the log
 * with the last one, follow referrals, and stop.
 *
 * Reconciliation keys an entry by SUBTYPE, SUBNQN, TRTYPE, ADRFAM, TRADDR
 * and TRSVCID. A new NVM subsystem entry becomes a record that
 * discovery-connect.c connects (if the policy wants it); an entry that
 * left the log is disconnected, if the controller is ours and the policy
 * says "ours". A referral is followed by a child discovery controller
 * with the same options, at most NVFAB_DISC_MAX_DEPTH deep, and each
 * endpoint (TRTYPE, TRADDR, TRSVCID) is followed once over all entries,
 * which also breaks referral loops.
 *
 * Every read happens in @log_work, never in the AEN's completion: the
 * controller notifier only queues it. AENs sent while the controller was
 * away are lost, which is why a reconnect (NVFAB_CTRL_EVENT_LIVE) reads
 * the log as well. A read that fails (the log kept changing, or broke
 * the rules of discovery-log.c) is tried again after a backoff of 2 s,
 * doubling up to retry_max_s, or at the poll tick if that is sooner.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "discovery-priv.h"

static void nvfab_disc_create_work(struct work_struct *work);
static void nvfab_disc_log_work(struct work_struct *work);

static const char * const nvfab_disc_rec_state_names[] = {
	[NVFAB_DISC_REC_PENDING]	= "pending",
	[NVFAB_DISC_REC_CONNECTING]	= "connecting",
	[NVFAB_DISC_REC_CONNECTED]	= "connected",
	[NVFAB_DISC_REC_PRESENT]	= "present",
	[NVFAB_DISC_REC_RETRY]		= "retry",
	[NVFAB_DISC_REC_SKIPPED]	= "skipped",
	[NVFAB_DISC_REC_FOLLOWED]	= "followed",
	[NVFAB_DISC_REC_DUPLICATE]	= "duplicate",
	[NVFAB_DISC_REC_TOO_DEEP]	= "too-deep",
	[NVFAB_DISC_REC_SELF]		= "self",
	[NVFAB_DISC_REC_NEEDS_TLS]	= "needs-tls",
	[NVFAB_DISC_REC_TOO_MANY]	= "too-many",
};

/* Referral children over every entry: max_referrals_total bounds it. */
static atomic_t nvfab_disc_nr_children = ATOMIC_INIT(0);

/**
 * nvfab_disc_trtype_name() - the transport name of a TRTYPE
 * @trtype: TRTYPE of a log entry
 *
 * Context: any.
 * Return: "tcp", "rdma", "fc", or "unknown".
 */
const char *nvfab_disc_trtype_name(u8 trtype)
{
	switch (trtype) {
	case NVMF_TRTYPE_TCP:
		return "tcp";
	case NVMF_TRTYPE_RDMA:
		return "rdma";
	case NVMF_TRTYPE_FC:
		return "fc";
	default:
		return "unknown";
	}
}

static const char *nvfab_disc_adrfam_name(u8 adrfam)
{
	switch (adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
		return "ipv4";
	case NVMF_ADDR_FAMILY_IP6:
		return "ipv6";
	case NVMF_ADDR_FAMILY_IB:
		return "ib";
	case NVMF_ADDR_FAMILY_FC:
		return "fc";
	default:
		return "unknown";
	}
}

static const char *nvfab_disc_subtype_name(u8 subtype)
{
	switch (subtype) {
	case NVME_NQN_DISC:
		return "referral";
	case NVME_NQN_NVME:
		return "nvme";
	case NVME_NQN_CURR:
		return "current";
	default:
		return "unknown";
	}
}

/**
 * nvfab_disc_alloc() - a discovery controller to follow, not started
 * @name: its name (copied)
 * @cfg: how to reach it (copied)
 * @policy: the configfs entry's policy; must outlive the disc
 * @parent: the disc whose log holds the referral, or NULL for a root
 *
 * Context: may sleep.
 * Return: the disc, or NULL without memory.
 */
struct nvfab_disc *nvfab_disc_alloc(const char *name,
				    const struct nvfab_disc_cfg *cfg,
				    struct nvfab_disc_policy *policy,
				    struct nvfab_disc *parent)
{
	struct nvfab_disc *disc = kzalloc(sizeof(*disc), GFP_KERNEL);

	if (!disc)
		return NULL;
	strscpy(disc->name, name, sizeof(disc->name));
	disc->cfg = *cfg;
	disc->policy = policy;
	disc->parent = parent;
	disc->root = parent ? parent->root : disc;
	disc->depth = parent ? parent->depth + 1 : 0;
	INIT_LIST_HEAD(&disc->all_node);
	INIT_LIST_HEAD(&disc->stop_node);
	mutex_init(&disc->lock);
	INIT_LIST_HEAD(&disc->recs);
	init_waitqueue_head(&disc->wq);
	disc->state = NVFAB_DISC_CREATING;
	kref_init(&disc->ref);
	INIT_DELAYED_WORK(&disc->create_work, nvfab_disc_create_work);
	INIT_DELAYED_WORK(&disc->log_work, nvfab_disc_log_work);
	INIT_DELAYED_WORK(&disc->dispatch_work, nvfab_disc_dispatch_work);
	return disc;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_alloc);

/* A disc's @ctrl, held (nvfab_disc_hold_ctrl()), or NULL. */
static struct nvfab_ctrl *nvfab_disc_get_ctrl(struct nvfab_disc *disc)
{
	struct nvfab_ctrl *ctrl;

	mutex_lock(&disc->lock);
	ctrl = disc->ctrl;
	if (ctrl && !nvfab_disc_hold_ctrl(ctrl))
		ctrl = NULL;
	mutex_unlock(&disc->lock);
	return ctrl;
}

/* Set or clear @ctrl; the caller holds disc->lock. */
static void nvfab_disc_set_ctrl(struct nvfab_disc *disc,
				struct nvfab_ctrl *ctrl)
{
	unsigned long flags;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	disc->ctrl = ctrl;
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
}

/**
 * nvfab_disc_ctrl_options() - the options of a discovery controller
 * @c: its settings: a configfs entry's, or a referral child's
 *	(nvfab_disc_child_cfg())
 * @opts: zeroed options block to fill; the caller frees it with
 *	nvfab_free_options() whatever the result
 *
 * A referral child's NQN, address and port come from its parent's log,
 * so all of them are given to nvfab-fabrics as values, never pasted into
 * an option string. Beyond them: ctrl_loss_tmo=-1, the core reconnects a
 * discovery controller for as long as the entry runs; "discovery" makes
 * a unique discovery NQN (TP 8013) one as well; and the host options of
 * the entry, host_iface for TCP only (nvfab-rdma refuses it, and an RDMA
 * referral inherits the settings of a TCP entry).
 *
 * Context: may sleep.
 * Return: 0, or an error of nvfab_build_options(): -EINVAL (a value
 * nvfab-fabrics refuses), -EOPNOTSUPP, -ENOMEM.
 */
VISIBLE_IF_KUNIT int nvfab_disc_ctrl_options(const struct nvfab_disc_cfg *c,
					     struct nvfab_ctrl_options *opts)
{
	struct nvfab_opt_value v[7 + NVFAB_DISC_HOST_VALUES];
	char kato[12];
	unsigned int n = 0;

	snprintf(kato, sizeof(kato), "%u", c->kato);
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_NQN, c->nqn };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRANSPORT, c->transport };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRADDR, c->traddr };
	if (*c->trsvcid)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRSVCID,
						   c->trsvcid };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_DISCOVERY, NULL };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_KATO, kato };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_CTRL_LOSS_TMO, "-1" };
	n += nvfab_disc_host_values(c, !strcmp(c->transport, "tcp"), v + n);
	return nvfab_build_options(opts, NULL, v, n);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_ctrl_options);

static void nvfab_disc_create_work(struct work_struct *work)
{
	struct nvfab_disc *disc = container_of(to_delayed_work(work),
					       struct nvfab_disc, create_work);
	struct nvfab_ctrl_options *opts;
	struct nvfab_ctrl *ctrl;
	int ret = -ENOMEM;

	/*
	 * A referral's child is created as an I/O controller is connected:
	 * holding a connect slot of its entry, so that a log full of
	 * referrals cannot start hundreds of creates (each blocks a worker
	 * for a whole connect). Without one it waits; the next connect to
	 * end kicks dispatch_work, which queues this again. The bit is set
	 * first so that no kick falls between the try and the wait, and
	 * whoever clears it owns the retry.
	 */
	if (disc->parent) {
		set_bit(NVFAB_DISC_WANT_SLOT, &disc->reasons);
		if (!nvfab_disc_get_slot(disc->root))
			return;
		if (!test_and_clear_bit(NVFAB_DISC_WANT_SLOT, &disc->reasons)) {
			/* dispatch queued us again meanwhile */
			nvfab_disc_put_slot(disc->root);
			return;
		}
	}

	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (opts)
		ret = nvfab_disc_ctrl_options(&disc->cfg, opts);
	if (ret) {
		nvfab_free_options(opts);
		ctrl = ERR_PTR(ret);
	} else {
		/* takes the options over; a controller comes held */
		ctrl = nvfab_fabrics_create_ctrl(opts);
	}
	if (disc->parent) {
		nvfab_disc_put_slot(disc->root);
		nvfab_disc_kick_all();
	}

	mutex_lock(&disc->lock);
	if (IS_ERR(ctrl)) {
		disc->create_backoff =
			nvfab_disc_next_backoff(disc->create_backoff);
		pr_warn("%s: cannot create the discovery controller at %s:%s (%pe); next try in %u s\n",
			disc->name, disc->cfg.traddr, disc->cfg.trsvcid, ctrl,
			disc->create_backoff);
		if (disc->state != NVFAB_DISC_STOPPING) {
			disc->state = NVFAB_DISC_RETRYING;
			queue_delayed_work(nvfab_disc_wq, &disc->create_work,
					   disc->create_backoff * HZ);
		}
		mutex_unlock(&disc->lock);
		return;
	}
	/* nvfab_disc_stop() deletes it if it stops meanwhile. */
	nvfab_disc_set_ctrl(disc, ctrl);
	if (disc->state != NVFAB_DISC_STOPPING)
		disc->state = NVFAB_DISC_RUNNING;
	disc->create_backoff = 0;
	dev_info(ctrl->device, "discovery controller of %s (%s %s:%s)\n",
		 disc->name, disc->cfg.transport, disc->cfg.traddr,
		 disc->cfg.trsvcid);
	/* Its LIVE event came before it was ours. */
	set_bit(NVFAB_DISC_WHY_LIVE, &disc->reasons);
	mod_delayed_work(nvfab_disc_wq, &disc->log_work, 0);
	mutex_unlock(&disc->lock);
}

/* nvfab_disc_read_log()'s reader: one Get Log Page, LID 70h. */
static int nvfab_disc_get_log(void *ctx, u64 offset, void *buf, size_t len)
{
	return nvfab_get_log(ctx, NVME_LOG_DISC, 0, buf, len, offset);
}

static bool nvfab_disc_entry_same(const struct nvfab_disc_entry *a,
				  const struct nvfab_disc_entry *b)
{
	return a->subtype == b->subtype && a->trtype == b->trtype &&
	       a->adrfam == b->adrfam && !strcmp(a->traddr, b->traddr) &&
	       !strcmp(a->trsvcid, b->trsvcid) &&
	       !strcmp(a->subnqn, b->subnqn);
}

static struct nvfab_disc_rec *nvfab_disc_find(struct nvfab_disc *disc,
					      const struct nvfab_disc_entry *e)
{
	struct nvfab_disc_rec *rec;

	list_for_each_entry(rec, &disc->recs, node)
		if (nvfab_disc_entry_same(&rec->e, e))
			return rec;
	return NULL;
}

/* Does @d follow the endpoint (@tr, @traddr, @trsvcid)? */
static bool nvfab_disc_at(const struct nvfab_disc *d, const char *tr,
			  const char *traddr, const char *trsvcid)
{
	return !strcmp(d->cfg.transport, tr) &&
	       !strcmp(d->cfg.traddr, traddr) &&
	       !strcmp(d->cfg.trsvcid, trsvcid);
}

/*
 * Is the endpoint of a referral followed already, by any entry? Compares
 * the transport, address and port; the caller holds no spinlock. A quick
 * answer only: nvfab_disc_add_child() decides.
 */
static bool nvfab_disc_endpoint_followed(const struct nvfab_disc_entry *e)
{
	const char *tr = nvfab_disc_trtype_name(e->trtype);
	unsigned long flags;
	struct nvfab_disc *d;
	bool found = false;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_for_each_entry(d, &nvfab_disc_all, all_node) {
		if (nvfab_disc_at(d, tr, e->traddr, e->trsvcid)) {
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
	return found;
}

/**
 * nvfab_disc_add_child() - make a referral's child one of the running discs
 * @child: a child from nvfab_disc_alloc(), not started
 *
 * The check that no disc follows the child's endpoint yet and the
 * insertion into nvfab_disc_all are one step under nvfab_disc_all_lock:
 * two parents (each under its own lock) that read referrals to one
 * endpoint at the same time make one child, not two.
 *
 * Context: any.
 * Return: true when @child was added (nvfab_disc_start_child() starts it),
 * false when a disc follows its endpoint already (nothing done).
 */
VISIBLE_IF_KUNIT bool nvfab_disc_add_child(struct nvfab_disc *child)
{
	const struct nvfab_disc_cfg *c = &child->cfg;
	unsigned long flags;
	struct nvfab_disc *d;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_for_each_entry(d, &nvfab_disc_all, all_node) {
		if (nvfab_disc_at(d, c->transport, c->traddr, c->trsvcid)) {
			spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
			return false;
		}
	}
	list_add_tail(&child->all_node, &nvfab_disc_all);
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_add_child);

/**
 * nvfab_disc_child_cfg() - the settings of a referral's child
 * @root: the settings of the configfs entry the referral chain started
 *	from
 * @e: the referral entry (SUBTYPE 1h), validated by discovery-log.c
 * @cfg: where to put them
 *
 * The root's settings, with the referral's transport, address, port and
 * NQN. The log parser refuses values longer than these fields
 * (discovery-log.c), so nothing is cut here: a value that did not fit
 * would be refused, never truncated.
 *
 * Context: any.
 * Return: 0, or -E2BIG when a field of @e does not fit its setting.
 */
VISIBLE_IF_KUNIT int nvfab_disc_child_cfg(const struct nvfab_disc_cfg *root,
					  const struct nvfab_disc_entry *e,
					  struct nvfab_disc_cfg *cfg)
{
	*cfg = *root;
	if (strscpy(cfg->transport, nvfab_disc_trtype_name(e->trtype),
		    sizeof(cfg->transport)) < 0 ||
	    strscpy(cfg->traddr, e->traddr, sizeof(cfg->traddr)) < 0 ||
	    strscpy(cfg->trsvcid, e->trsvcid, sizeof(cfg->trsvcid)) < 0 ||
	    strscpy(cfg->nqn, e->subnqn, sizeof(cfg->nqn)) < 0)
		return -E2BIG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_child_cfg);

/**
 * nvfab_disc_needs_tls() - does the entry's port need a secure channel?
 * @e: a validated log entry
 *
 * TREQ says "required" (NVMe over Fabrics 1.1, Figure 38), or the TCP
 * port offers TLS (TSAS SECTYPE) without saying it may be done without.
 * Such an entry is never connected in the clear.
 *
 * Context: any.
 * Return: true when the port requires a secure channel.
 */
bool nvfab_disc_needs_tls(const struct nvfab_disc_entry *e)
{
	u8 sc = e->treq & NVME_TREQ_SECURE_CHANNEL_MASK;

	if (sc == NVMF_TREQ_REQUIRED)
		return true;
	return e->trtype == NVMF_TRTYPE_TCP &&
	       e->sectype != NVMF_TCP_SECTYPE_NONE &&
	       sc != NVMF_TREQ_NOT_REQUIRED;
}

/*
 * Can nvfab give that secure channel? NVMe/TCP with TLS 1.3 (TSAS
 * SECTYPE 2h), where nvfab was built with TLS: nvfab-tcp's tls option.
 * Not TLS 1.2 (TP 8011 requires 1.3 of a host), nor a secure channel an
 * RDMA or TCP port requires without naming TLS 1.3.
 */
static bool nvfab_disc_can_tls(const struct nvfab_disc_entry *e)
{
	return NVFAB_HAVE_TLS && e->trtype == NVMF_TRTYPE_TCP &&
	       e->sectype == NVMF_TCP_SECTYPE_TLS13;
}

/*
 * Count one more referral child of @root, if max_referrals (per entry)
 * and max_referrals_total (all entries) allow it.
 */
static bool nvfab_disc_count_child(struct nvfab_disc *root)
{
	if (atomic_inc_return(&root->nr_children) >
	    READ_ONCE(nvfab_disc_max_referrals)) {
		atomic_dec(&root->nr_children);
		return false;
	}
	if (atomic_inc_return(&nvfab_disc_nr_children) >
	    READ_ONCE(nvfab_disc_max_referrals_total)) {
		atomic_dec(&nvfab_disc_nr_children);
		atomic_dec(&root->nr_children);
		return false;
	}
	return true;
}

static void nvfab_disc_uncount_child(struct nvfab_disc *root)
{
	atomic_dec(&nvfab_disc_nr_children);
	atomic_dec(&root->nr_children);
}

/* Follow a referral: a child with the root's options. disc->lock held. */
static int nvfab_disc_follow(struct nvfab_disc *disc,
			     struct nvfab_disc_rec *rec)
{
	const struct nvfab_disc_entry *e = &rec->e;
	struct nvfab_disc_cfg cfg;
	struct nvfab_disc *child;
	char *name;

	if (e->trtype != NVMF_TRTYPE_TCP && e->trtype != NVMF_TRTYPE_RDMA)
		return NVFAB_DISC_REC_SKIPPED;
	if (nvfab_disc_needs_tls(e)) {
		if (rec->state != NVFAB_DISC_REC_NEEDS_TLS)
			pr_info("%s: not following the referral to %s %s:%s: it requires a secure channel (TLS), which nvfab does not give a discovery controller it follows\n",
				disc->name, nvfab_disc_trtype_name(e->trtype),
				e->traddr, e->trsvcid);
		return NVFAB_DISC_REC_NEEDS_TLS;
	}
	if (disc->depth >= NVFAB_DISC_MAX_DEPTH)
		return NVFAB_DISC_REC_TOO_DEEP;
	if (nvfab_disc_endpoint_followed(e))
		return NVFAB_DISC_REC_DUPLICATE;
	if (nvfab_disc_child_cfg(&disc->root->cfg, e, &cfg))
		return NVFAB_DISC_REC_SKIPPED;
	if (!nvfab_disc_count_child(disc->root)) {
		if (rec->state != NVFAB_DISC_REC_TOO_MANY)
			pr_warn_ratelimited("%s: not following the referral to %s %s:%s: %u referrals followed for the entry, %u in all (max_referrals, max_referrals_total)\n",
					    disc->name, cfg.transport,
					    cfg.traddr, cfg.trsvcid,
					    atomic_read(&disc->root->nr_children),
					    atomic_read(&nvfab_disc_nr_children));
		return NVFAB_DISC_REC_TOO_MANY;
	}

	name = kasprintf(GFP_KERNEL, "%s@%s:%s", disc->root->name, e->traddr,
			 e->trsvcid);
	child = name ? nvfab_disc_alloc(name, &cfg, disc->policy, disc) : NULL;
	kfree(name);
	if (!child) {
		nvfab_disc_uncount_child(disc->root);
		return NVFAB_DISC_REC_SKIPPED;
	}
	if (!nvfab_disc_add_child(child)) {
		/* another parent's child took the endpoint meanwhile */
		nvfab_disc_put(child);
		nvfab_disc_uncount_child(disc->root);
		return NVFAB_DISC_REC_DUPLICATE;
	}
	child->counted = true;
	rec->child = child;
	atomic_inc(&disc->stats.referrals);
	pr_info("%s: following the referral to %s %s:%s (depth %u)\n",
		disc->name, cfg.transport, cfg.traddr, cfg.trsvcid,
		child->depth);
	queue_delayed_work(nvfab_disc_wq, &child->create_work, 0);
	return NVFAB_DISC_REC_FOLLOWED;
}

/**
 * nvfab_disc_nvm_state() - what becomes of an NVM subsystem entry
 * @policy: the entry's policy
 * @e: an NVM subsystem entry (SUBTYPE 2h) of a log
 *
 * Context: any (RCU read side for connect=match).
 * Return: NVFAB_DISC_REC_PENDING when it is to be connected (over TLS
 * when its port requires it: nvfab_disc_io_options());
 * NVFAB_DISC_REC_SKIPPED for a transport other than TCP and RDMA, or one
 * the connect policy does not take; NVFAB_DISC_REC_NEEDS_TLS when its
 * port requires a secure channel (TREQ, TSAS) other than NVMe/TCP's TLS
 * 1.3, or nvfab was built without TLS.
 */
VISIBLE_IF_KUNIT int nvfab_disc_nvm_state(struct nvfab_disc_policy *policy,
					  const struct nvfab_disc_entry *e)
{
	if (e->trtype != NVMF_TRTYPE_TCP && e->trtype != NVMF_TRTYPE_RDMA)
		return NVFAB_DISC_REC_SKIPPED;
	if (nvfab_disc_needs_tls(e) && !nvfab_disc_can_tls(e))
		return NVFAB_DISC_REC_NEEDS_TLS;
	if (!nvfab_disc_policy_wants(policy, e->subnqn))
		return NVFAB_DISC_REC_SKIPPED;
	return NVFAB_DISC_REC_PENDING;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_nvm_state);

/*
 * An entry whose port requires TLS is connected over TLS only with a PSK
 * for it (the host's, the subsystem's, in the keyring of the entry's
 * connect options): without one it waits as needs-tls, judged again at
 * each read, instead of failing a connect at each backoff. The options
 * are built as the connect will build them. disc->lock held; sleeps.
 */
static int nvfab_disc_tls_ready(struct nvfab_disc *disc,
				struct nvfab_disc_rec *rec)
{
	struct nvfab_ctrl_options *opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	bool psk;

	/* options that do not build fail the connect, which says why */
	if (!opts || nvfab_disc_io_options(&disc->root->cfg, &rec->e, opts)) {
		nvfab_free_options(opts);
		return NVFAB_DISC_REC_PENDING;
	}
	psk = nvfab_tls_find_psk(opts);
	if (!psk && rec->state != NVFAB_DISC_REC_NEEDS_TLS)
		pr_info("%s: not connecting %s at %s:%s: it requires TLS, and keyring %s has no PSK for host %s and it\n",
			disc->name, rec->e.subnqn, rec->e.traddr,
			rec->e.trsvcid,
			nvfab_tls_keyring_name(opts), opts->host->nqn);
	nvfab_free_options(opts);
	return psk ? NVFAB_DISC_REC_PENDING : NVFAB_DISC_REC_NEEDS_TLS;
}

/* A new NVM subsystem entry: what to do with it. disc->lock held. */
static int nvfab_disc_new_nvm(struct nvfab_disc *disc,
			      struct nvfab_disc_rec *rec)
{
	int st = nvfab_disc_nvm_state(disc->policy, &rec->e);

	if (st == NVFAB_DISC_REC_NEEDS_TLS && rec->state != st)
		pr_info("%s: not connecting %s at %s %s:%s: it requires a secure channel other than NVMe/TCP's TLS 1.3, which nvfab%s gives\n",
			disc->name, rec->e.subnqn,
			nvfab_disc_trtype_name(rec->e.trtype), rec->e.traddr,
			rec->e.trsvcid,
			NVFAB_HAVE_TLS ? "" : " (built without TLS)");
	if (st == NVFAB_DISC_REC_PENDING && nvfab_disc_needs_tls(&rec->e))
		st = nvfab_disc_tls_ready(disc, rec);
	if (st != NVFAB_DISC_REC_PENDING)
		return st;
	rec->due = jiffies;	/* nvfab_disc_reconcile() may add a jitter */
	rec->fresh = true;
	return NVFAB_DISC_REC_PENDING;
}

/*
 * The connects a log read made due wait a random jitter when they come
 * in a herd (nvfab_disc_herd()); a subsystem or two that a DLP change AEN
 * announced is connected at once: the connect slots bound what one host
 * opens, and the jitter would be most of the delay. disc->lock held.
 */
static void nvfab_disc_jitter_herd(struct nvfab_disc *disc, bool live)
{
	unsigned int fresh = 0;
	struct nvfab_disc_rec *rec;
	bool herd;

	list_for_each_entry(rec, &disc->recs, node)
		fresh += rec->fresh;
	herd = nvfab_disc_herd(live, fresh,
			       READ_ONCE(disc->policy->max_inflight));
	list_for_each_entry(rec, &disc->recs, node) {
		if (!rec->fresh)
			continue;
		rec->fresh = false;
		if (herd)
			rec->due = jiffies + nvfab_disc_jitter();
	}
}

/* An entry already known is in the log again. disc->lock held. */
static void nvfab_disc_seen_again(struct nvfab_disc *disc,
				  struct nvfab_disc_rec *rec,
				  const struct nvfab_disc_entry *e)
{
	rec->seen = true;
	rec->e = *e;	/* PORTID, CNTLID, EFLAGS may change */
	switch (rec->state) {
	case NVFAB_DISC_REC_SKIPPED:
	case NVFAB_DISC_REC_NEEDS_TLS:
		/* The policy, or TREQ and TSAS, may have changed. */
		if (rec->e.subtype == NVME_NQN_NVME)
			rec->state = nvfab_disc_new_nvm(disc, rec);
		else if (rec->state == NVFAB_DISC_REC_NEEDS_TLS)
			rec->state = nvfab_disc_follow(disc, rec);
		break;
	case NVFAB_DISC_REC_PENDING:
	case NVFAB_DISC_REC_RETRY:
		/*
		 * Not connected yet: a policy that no longer wants it, or a
		 * port that now requires TLS, wins.
		 */
		if (nvfab_disc_nvm_state(disc->policy, &rec->e) !=
		    NVFAB_DISC_REC_PENDING)
			rec->state = nvfab_disc_new_nvm(disc, rec);
		break;
	case NVFAB_DISC_REC_DUPLICATE:
	case NVFAB_DISC_REC_TOO_MANY:
		/*
		 * Whoever followed that endpoint may have stopped; another
		 * referral may have left, freeing a place.
		 */
		rec->state = nvfab_disc_follow(disc, rec);
		break;
	default:
		break;
	}
}

/**
 * nvfab_disc_reconcile() - apply a log read to a disc's records
 * @disc: the disc whose log was read; its lock held
 * @log: the log, validated
 * @stop: children of referrals that left the log are moved here, for the
 *	caller to stop without disc->lock
 * @live: the read was the first since the discovery controller went live
 *
 * New entries become records, entries seen again keep theirs. An entry
 * that is missing from the log is gone only once it was missing from
 * absent_reads good reads in a row (module parameter, default
 * NVFAB_DISC_ABSENT_READS): a target that changes its configuration sends
 * an AEN per change, and a read in the middle may list only part of
 * what it exports. Until then its record, and its controller, stay.
 *
 * Context: may sleep; disc->lock held.
 * Return: true if a record is missing but kept (the caller reads the log
 * again soon), false otherwise.
 */
VISIBLE_IF_KUNIT bool nvfab_disc_reconcile(struct nvfab_disc *disc,
					   const struct nvfab_disc_log *log,
					   struct list_head *stop, bool live)
{
	bool disconnect = READ_ONCE(disc->policy->disconnect) ==
			  NVFAB_DISC_DISCONNECT_OURS;
	unsigned int absent = READ_ONCE(nvfab_disc_absent_reads);
	struct nvfab_disc_rec *rec, *tmp;
	bool missing = false;
	u32 i;

	lockdep_assert_held(&disc->lock);
	list_for_each_entry(rec, &disc->recs, node)
		rec->seen = false;

	for (i = 0; i < log->nr_entries; i++) {
		const struct nvfab_disc_entry *e = &log->entries[i];

		rec = nvfab_disc_find(disc, e);
		if (rec) {
			if (!rec->seen)
				nvfab_disc_seen_again(disc, rec, e);
			continue;	/* or a duplicate entry of this log */
		}
		rec = kzalloc(sizeof(*rec), GFP_KERNEL);
		if (!rec)
			continue;	/* the next read tries again */
		rec->disc = disc;
		rec->e = *e;
		rec->seen = true;
		INIT_WORK(&rec->work, nvfab_disc_connect_work);
		list_add_tail(&rec->node, &disc->recs);
		switch (e->subtype) {
		case NVME_NQN_NVME:
			nvfab_disc_uevent(disc, "discovery_add", e, 0);
			rec->state = nvfab_disc_new_nvm(disc, rec);
			break;
		case NVME_NQN_DISC:
			rec->state = nvfab_disc_follow(disc, rec);
			break;
		default:
			rec->state = NVFAB_DISC_REC_SELF;
			break;
		}
	}

	list_for_each_entry_safe(rec, tmp, &disc->recs, node) {
		if (rec->seen) {
			rec->absent = 0;
			continue;
		}
		if (++rec->absent < absent) {
			missing = true;
			continue;
		}
		list_del_init(&rec->node);
		if (rec->e.subtype == NVME_NQN_NVME)
			nvfab_disc_uevent(disc, "discovery_remove", &rec->e, 0);
		if (rec->state == NVFAB_DISC_REC_CONNECTING) {
			/* Its connect work decides, then frees it. */
			rec->removed = true;
			continue;
		}
		if (rec->child) {
			pr_info("%s: referral to %s:%s left the log\n",
				disc->name, rec->e.traddr, rec->e.trsvcid);
			list_add_tail(&rec->child->stop_node, stop);
		}
		nvfab_disc_drop_rec_ctrl(rec, disconnect);
		kfree(rec);
	}
	nvfab_disc_jitter_herd(disc, live);
	atomic_set(&disc->stats.entries, log->nr_entries);
	atomic64_set(&disc->stats.genctr, log->genctr);
	mod_delayed_work(nvfab_disc_wq, &disc->dispatch_work, 0);
	return missing;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_reconcile);

/* The discovery controller is being deleted by someone else: recreate. */
static void nvfab_disc_ctrl_gone(struct nvfab_disc *disc,
				 struct nvfab_ctrl *ctrl)
{
	mutex_lock(&disc->lock);
	if (disc->ctrl == ctrl && disc->state == NVFAB_DISC_RUNNING) {
		dev_info(ctrl->device,
			 "%s: the discovery controller was removed; creating a new one\n",
			 disc->name);
		nvfab_disc_set_ctrl(disc, NULL);
		nvfab_fabrics_put_ctrl(ctrl);
		disc->state = NVFAB_DISC_RETRYING;
		disc->create_backoff =
			nvfab_disc_next_backoff(disc->create_backoff);
		queue_delayed_work(nvfab_disc_wq, &disc->create_work,
				   disc->create_backoff * HZ);
	}
	mutex_unlock(&disc->lock);
}

/*
 * Children whose referral left their parent's log, stopped here rather
 * than in the parent's log_work: stopping cancels the child's own
 * log_work, and doing that from a log_work would wait on a work item of
 * the same kind (lockdep reports it as recursion). A root's stop flushes
 * this work, so no child outlives its root.
 */
static DEFINE_SPINLOCK(nvfab_disc_reap_lock);
static LIST_HEAD(nvfab_disc_reap_list);	/* nvfab_disc_reap_lock */

static void nvfab_disc_reap_fn(struct work_struct *work)
{
	struct nvfab_disc *child;

	for (;;) {
		spin_lock_irq(&nvfab_disc_reap_lock);
		child = list_first_entry_or_null(&nvfab_disc_reap_list,
						 struct nvfab_disc, stop_node);
		if (child)
			list_del_init(&child->stop_node);
		spin_unlock_irq(&nvfab_disc_reap_lock);
		if (!child)
			return;
		nvfab_disc_stop(child, true);
		nvfab_disc_put(child);
	}
}

static DECLARE_WORK(nvfab_disc_reap_work, nvfab_disc_reap_fn);

static void nvfab_disc_log_work(struct work_struct *work)
{
	struct nvfab_disc *disc = container_of(to_delayed_work(work),
					       struct nvfab_disc, log_work);
	bool aen, live, missing = false;
	struct nvfab_disc_log *log;
	struct nvfab_ctrl *ctrl;
	unsigned int next;
	LIST_HEAD(stop);

	ctrl = nvfab_disc_get_ctrl(disc);
	if (!ctrl)
		return;		/* create_work reads once it has one */
	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_LIVE:
		break;
	case NVFAB_CTRL_DELETING:
	case NVFAB_CTRL_DELETING_NOIO:
	case NVFAB_CTRL_DEAD:
		nvfab_disc_ctrl_gone(disc, ctrl);
		nvfab_fabrics_put_ctrl(ctrl);
		return;
	default:
		/* Reconnecting: its LIVE event reads the log. */
		nvfab_fabrics_put_ctrl(ctrl);
		return;
	}

	aen = test_and_clear_bit(NVFAB_DISC_WHY_AEN, &disc->reasons);
	live = test_and_clear_bit(NVFAB_DISC_WHY_LIVE, &disc->reasons);
	if (aen)
		atomic_inc(&disc->stats.aens);
	if (!aen && !live)
		atomic_inc(&disc->stats.polls);
	atomic_inc(&disc->stats.log_reads);
	log = nvfab_disc_read_log(nvfab_disc_get_log, ctrl,
				  min_t(size_t, SZ_64K,
					(size_t)ctrl->max_hw_sectors <<
					SECTOR_SHIFT));
	if (IS_ERR(log)) {
		atomic_inc(&disc->stats.log_errors);
		disc->log_backoff = nvfab_disc_next_backoff(disc->log_backoff);
		/* the retry is still the first read since it went live */
		if (live)
			set_bit(NVFAB_DISC_WHY_LIVE, &disc->reasons);
		/* -EINTR: a reset cancelled it; the reconnect reads again */
		dev_warn_ratelimited(ctrl->device,
				     "%s: reading the discovery log failed: %pe%s; reading it again in %u s\n",
				     disc->name, log,
				     PTR_ERR(log) == -EINTR ?
				     " (the controller was reset meanwhile)" : "",
				     disc->log_backoff);
	} else {
		disc->log_backoff = 0;
		if (log->nr_skipped)
			dev_warn_ratelimited(ctrl->device,
					     "%s: %u discovery log entries are unusable and skipped\n",
					     disc->name, log->nr_skipped);
		mutex_lock(&disc->lock);
		if (disc->state != NVFAB_DISC_STOPPING)
			missing = nvfab_disc_reconcile(disc, log, &stop, live);
		mutex_unlock(&disc->lock);
		nvfab_disc_log_free(log);
	}
	nvfab_fabrics_put_ctrl(ctrl);

	if (!list_empty(&stop)) {
		spin_lock_irq(&nvfab_disc_reap_lock);
		list_splice_tail_init(&stop, &nvfab_disc_reap_list);
		spin_unlock_irq(&nvfab_disc_reap_lock);
		queue_work(nvfab_disc_wq, &nvfab_disc_reap_work);
	}

	/*
	 * The next read: the poll tick, or sooner after a failed read (also
	 * with polling off, so that a log that could not be read is not
	 * left until the next AEN), or after NVFAB_DISC_ABSENT_RECHECK_S when
	 * an entry is missing but not yet gone. An AEN that queued the work
	 * meanwhile keeps its earlier time.
	 */
	next = READ_ONCE(disc->policy->poll_interval);
	if (disc->log_backoff && (!next || disc->log_backoff < next))
		next = disc->log_backoff;
	if (missing && (!next || next > NVFAB_DISC_ABSENT_RECHECK_S))
		next = NVFAB_DISC_ABSENT_RECHECK_S;
	mutex_lock(&disc->lock);
	if (next && disc->state != NVFAB_DISC_STOPPING)
		queue_delayed_work(nvfab_disc_wq, &disc->log_work, next * HZ);
	mutex_unlock(&disc->lock);
}

/**
 * nvfab_disc_start() - start following a configfs entry's discovery
 *	controller
 * @disc: a root from nvfab_disc_alloc()
 *
 * Creates its controller from a work item; the log is read once it is
 * live. Two entries may name one endpoint; a referral's child is started
 * by nvfab_disc_follow() instead, once nvfab_disc_add_child() found its
 * endpoint free.
 *
 * Context: may sleep.
 */
void nvfab_disc_start(struct nvfab_disc *disc)
{
	unsigned long flags;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_add_tail(&disc->all_node, &nvfab_disc_all);
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
	queue_delayed_work(nvfab_disc_wq, &disc->create_work, 0);
}

/**
 * nvfab_disc_stop() - stop following a discovery controller
 * @disc: a started disc
 * @removed: its referral left the parent's log: the I/O controllers it
 *	created are disconnected when the policy says "ours". A root being
 *	disabled keeps them (removing the configuration does not cut I/O).
 *
 * Cancels what is queued, waits for the connects in flight, stops the
 * referral children, and deletes the discovery controller. The disc can
 * be freed afterwards.
 *
 * Context: may sleep for as long as a connect in flight takes; not from
 * one of @disc's work items, and without its lock or its parent's.
 */
void nvfab_disc_stop(struct nvfab_disc *disc, bool removed)
{
	bool disconnect = removed && READ_ONCE(disc->policy->disconnect) ==
				     NVFAB_DISC_DISCONNECT_OURS;
	struct nvfab_disc_rec *rec, *tmp;
	struct nvfab_disc *child, *ctmp;
	struct nvfab_ctrl *ctrl;
	unsigned long flags;
	LIST_HEAD(children);

	/* The notifier and the slot kicks no longer see it. */
	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_del_init(&disc->all_node);
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);

	mutex_lock(&disc->lock);
	disc->state = NVFAB_DISC_STOPPING;
	mutex_unlock(&disc->lock);

	/* In this order: each may queue the next. */
	cancel_delayed_work_sync(&disc->create_work);
	cancel_delayed_work_sync(&disc->log_work);
	cancel_delayed_work_sync(&disc->dispatch_work);
	/* connect works hold a reference: only their end matters here */
	wait_event(disc->wq, !READ_ONCE(disc->nr_connecting));

	mutex_lock(&disc->lock);
	list_for_each_entry(rec, &disc->recs, node) {
		if (rec->child) {
			list_add_tail(&rec->child->stop_node, &children);
			rec->child = NULL;
		}
	}
	mutex_unlock(&disc->lock);
	list_for_each_entry_safe(child, ctmp, &children, stop_node) {
		list_del_init(&child->stop_node);
		nvfab_disc_stop(child, removed);
		nvfab_disc_put(child);
	}

	/* A root: its children whose referral left a log went there. */
	if (!disc->parent)
		flush_work(&nvfab_disc_reap_work);

	mutex_lock(&disc->lock);
	list_for_each_entry_safe(rec, tmp, &disc->recs, node) {
		list_del(&rec->node);
		nvfab_disc_drop_rec_ctrl(rec, disconnect);
		kfree(rec);
	}
	ctrl = disc->ctrl;
	nvfab_disc_set_ctrl(disc, NULL);
	mutex_unlock(&disc->lock);
	if (ctrl) {
		nvfab_delete_ctrl(ctrl);
		nvfab_fabrics_put_ctrl(ctrl);
	}
	/* A child gives its place back (a root outlives its children). */
	if (disc->counted)
		nvfab_disc_uncount_child(disc->root);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_stop);

static void nvfab_disc_release(struct kref *ref)
{
	struct nvfab_disc *disc = container_of(ref, struct nvfab_disc, ref);

	mutex_destroy(&disc->lock);
	kfree(disc);
}

/**
 * nvfab_disc_put() - drop a reference to a disc
 * @disc: the disc; the last reference frees it, which must be stopped
 *	(nvfab_disc_stop()) or never started by then
 *
 * nvfab_disc_alloc() returns the owner's reference; each queued connect
 * work holds one, so that it may touch the disc until it returns.
 *
 * Context: any.
 */
void nvfab_disc_put(struct nvfab_disc *disc)
{
	kref_put(&disc->ref, nvfab_disc_release);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_put);

/**
 * nvfab_disc_ctrl_event() - a controller event, from the core's notifier
 * @ctrl: the controller
 * @event: enum nvfab_ctrl_event
 *
 * A discovery controller that went live or sent a DLP change AEN gets its
 * log read; one being deleted is replaced. The deletion of any other
 * controller makes every disc look for its own among them.
 *
 * Context: atomic (the core's atomic notifier chain).
 */
void nvfab_disc_ctrl_event(struct nvfab_ctrl *ctrl, unsigned long event)
{
	struct nvfab_disc *disc;
	unsigned long flags;
	bool ours = false;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_for_each_entry(disc, &nvfab_disc_all, all_node) {
		if (disc->ctrl != ctrl)
			continue;
		ours = true;
		switch (event) {
		case NVFAB_CTRL_EVENT_LIVE:
			set_bit(NVFAB_DISC_WHY_LIVE, &disc->reasons);
			break;
		case NVFAB_CTRL_EVENT_DISC_CHANGE:
			set_bit(NVFAB_DISC_WHY_AEN, &disc->reasons);
			break;
		default:
			set_bit(NVFAB_DISC_WHY_GONE, &disc->reasons);
			break;
		}
		mod_delayed_work(nvfab_disc_wq, &disc->log_work, 0);
	}
	if (!ours && event == NVFAB_CTRL_EVENT_DELETING) {
		/*
		 * Maybe one of ours, which dispatch connects again; maybe
		 * the one that made an entry "present", which is tried now.
		 */
		list_for_each_entry(disc, &nvfab_disc_all, all_node) {
			set_bit(NVFAB_DISC_WHY_GONE, &disc->reasons);
			mod_delayed_work(nvfab_disc_wq, &disc->dispatch_work,
					 HZ / 10);
		}
	}
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
}

/**
 * nvfab_disc_state_text() - the state attribute's value
 * @disc: a root, or NULL for a disabled entry
 *
 * Context: may sleep (takes disc->lock).
 * Return: "disabled", "connecting", "live", "retrying" or "stopping".
 */
const char *nvfab_disc_state_text(struct nvfab_disc *disc)
{
	const char *s;

	if (!disc)
		return "disabled";
	mutex_lock(&disc->lock);
	switch (disc->state) {
	case NVFAB_DISC_RETRYING:
		s = "retrying";
		break;
	case NVFAB_DISC_STOPPING:
		s = "stopping";
		break;
	case NVFAB_DISC_RUNNING:
		s = nvfab_ctrl_state(disc->ctrl) == NVFAB_CTRL_LIVE ?
			"live" : "connecting";
		break;
	default:
		s = "connecting";
		break;
	}
	mutex_unlock(&disc->lock);
	return s;
}

/*
 * The name of a child's discovery controller, or "-". Its @ctrl is
 * cleared (nvfab_disc_ctrl_gone()) and set (create_work) under the
 * child's lock, which is taken here: the caller holds the parent's.
 */
static void nvfab_disc_print_ctrl(struct nvfab_disc *child, struct seq_buf *s)
{
	mutex_lock_nested(&child->lock, child->depth);
	if (child->ctrl)
		seq_buf_printf(s, "%s\n", dev_name(child->ctrl->device));
	else
		seq_buf_puts(s, "-\n");
	mutex_unlock(&child->lock);
}

/**
 * nvfab_disc_print() - the log attribute's lines of a disc and its children
 * @disc: the disc
 * @s: where to print; output past its size is dropped
 *
 * Context: may sleep; takes the locks of @disc and its children, parent
 * first.
 */
void nvfab_disc_print(struct nvfab_disc *disc, struct seq_buf *s)
{
	struct nvfab_disc_rec *rec;

	mutex_lock_nested(&disc->lock, disc->depth);
	if (disc->parent)
		seq_buf_printf(s, "# referral %s\n", disc->name);
	list_for_each_entry(rec, &disc->recs, node) {
		const struct nvfab_disc_entry *e = &rec->e;

		seq_buf_printf(s,
			       "subtype=%s trtype=%s adrfam=%s traddr=%s trsvcid=%s subnqn=%s portid=%u cntlid=%u state=%s ctrl=",
			       nvfab_disc_subtype_name(e->subtype),
			       nvfab_disc_trtype_name(e->trtype),
			       nvfab_disc_adrfam_name(e->adrfam), e->traddr,
			       *e->trsvcid ? e->trsvcid : "-", e->subnqn,
			       e->portid, e->cntlid,
			       nvfab_disc_rec_state_names[rec->state]);
		if (rec->ctrl)
			seq_buf_printf(s, "%s\n", dev_name(rec->ctrl->device));
		else if (rec->child)
			nvfab_disc_print_ctrl(rec->child, s);
		else
			seq_buf_puts(s, "-\n");
	}
	list_for_each_entry(rec, &disc->recs, node)
		if (rec->child)
			nvfab_disc_print(rec->child, s);
	mutex_unlock(&disc->lock);
}

/**
 * nvfab_disc_sum_stats() - add a disc's counters and its children's
 * @disc: the disc
 * @sum: zeroed before the first call; GENCTR is the root's
 *
 * Context: may sleep; takes the locks of @disc's children.
 */
void nvfab_disc_sum_stats(struct nvfab_disc *disc,
			  struct nvfab_disc_stats *sum)
{
	struct nvfab_disc_stats *st = &disc->stats;
	struct nvfab_disc_rec *rec;

	atomic_add(atomic_read(&st->log_reads), &sum->log_reads);
	atomic_add(atomic_read(&st->log_errors), &sum->log_errors);
	atomic_add(atomic_read(&st->aens), &sum->aens);
	atomic_add(atomic_read(&st->polls), &sum->polls);
	atomic_add(atomic_read(&st->connects), &sum->connects);
	atomic_add(atomic_read(&st->connect_failures),
		   &sum->connect_failures);
	atomic_add(atomic_read(&st->disconnects), &sum->disconnects);
	atomic_add(atomic_read(&st->referrals), &sum->referrals);
	atomic_add(atomic_read(&st->entries), &sum->entries);
	if (!disc->parent)
		atomic64_set(&sum->genctr, atomic64_read(&st->genctr));

	mutex_lock_nested(&disc->lock, disc->depth);
	list_for_each_entry(rec, &disc->recs, node)
		if (rec->child)
			nvfab_disc_sum_stats(rec->child, sum);
	mutex_unlock(&disc->lock);
}
