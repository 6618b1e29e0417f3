// SPDX-License-Identifier: GPL-2.0
/*
 * The connects and disconnects that reconciliation asks for, with storm
 * control: at most the entry's max_inflight and the module's max_inflight
 * connects in flight, those that come in a herd started after a random
 * jitter (nvfab_disc_jitter_herd() in discovery-ctrl.c), and a failed
 * connect retried after an exponential backoff (2 s doubling up to
 * retry_max_s). 200 subsystems that appear at once therefore connect a
 * few at a time, never 200 at once.
 *
 * Each discovery controller's @dispatch_work walks its records and starts
 * those that are due while slots are free; a connect that ends frees its
 * slot and kicks every dispatch_work. A connect is one
 * nvfab_fabrics_create_ctrl(), as if user space wrote the options to
 * /dev/nvfab-fabrics, so the per-NQN multipath policy of configfs applies
 * to what discovery connects as to any other controller. The options are
 * built from the log entry's fields as values, never as a string: the
 * target chose those fields (nvfab_disc_io_options()).
 *
 * The uevents of the discovery controller (NVFAB_EVENT=discovery_*) are
 * sent from here and from reconciliation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/glob.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "discovery-priv.h"

/* Connects in flight over every entry, and the most there ever were. */
static DEFINE_SPINLOCK(nvfab_disc_slots_lock);
static unsigned int nvfab_disc_inflight;	/* nvfab_disc_slots_lock */
static unsigned int nvfab_disc_peak;		/* nvfab_disc_slots_lock */

/**
 * nvfab_disc_inflight_peak() - the most connects ever in flight at once
 *
 * Context: any.
 * Return: the count, over every entry since the module loaded.
 */
unsigned int nvfab_disc_inflight_peak(void)
{
	unsigned long flags;
	unsigned int peak;

	spin_lock_irqsave(&nvfab_disc_slots_lock, flags);
	peak = nvfab_disc_peak;
	spin_unlock_irqrestore(&nvfab_disc_slots_lock, flags);
	return peak;
}

/**
 * nvfab_disc_get_slot() - take a connect slot
 * @root: the entry's root disc
 *
 * A connect to an NVM subsystem, or the creation of a referral's
 * discovery controller, holds one slot of the module (max_inflight) and
 * one of the entry (its max_inflight) while it runs.
 *
 * Context: any.
 * Return: true with both taken, false (nothing taken) when either has
 * none free.
 */
bool nvfab_disc_get_slot(struct nvfab_disc *root)
{
	unsigned int max = READ_ONCE(root->policy->max_inflight);
	unsigned long flags;
	bool ok = false;

	spin_lock_irqsave(&nvfab_disc_slots_lock, flags);
	if (nvfab_disc_inflight < READ_ONCE(nvfab_disc_max_inflight) &&
	    root->inflight < max) {
		nvfab_disc_inflight++;
		root->inflight++;
		nvfab_disc_peak = max(nvfab_disc_peak, nvfab_disc_inflight);
		root->inflight_peak = max(root->inflight_peak, root->inflight);
		ok = true;
	}
	spin_unlock_irqrestore(&nvfab_disc_slots_lock, flags);
	return ok;
}

/**
 * nvfab_disc_put_slot() - give back a slot of nvfab_disc_get_slot()
 * @root: the entry's root disc
 *
 * The caller kicks the discs (nvfab_disc_kick_all()) once it may.
 *
 * Context: any.
 */
void nvfab_disc_put_slot(struct nvfab_disc *root)
{
	unsigned long flags;

	spin_lock_irqsave(&nvfab_disc_slots_lock, flags);
	nvfab_disc_inflight--;
	root->inflight--;
	spin_unlock_irqrestore(&nvfab_disc_slots_lock, flags);
}

/**
 * nvfab_disc_root_inflight() - connects in flight of an entry, and its peak
 * @root: the entry's root disc
 * @peak: where the most there ever were is put
 *
 * Context: any.
 * Return: the connects in flight now.
 */
unsigned int nvfab_disc_root_inflight(struct nvfab_disc *root,
				      unsigned int *peak)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&nvfab_disc_slots_lock, flags);
	n = root->inflight;
	*peak = root->inflight_peak;
	spin_unlock_irqrestore(&nvfab_disc_slots_lock, flags);
	return n;
}

/**
 * nvfab_disc_kick_all() - let every discovery controller start what is due
 *
 * After a slot was freed, or a limit raised.
 *
 * Context: any.
 */
void nvfab_disc_kick_all(void)
{
	struct nvfab_disc *disc;
	unsigned long flags;

	spin_lock_irqsave(&nvfab_disc_all_lock, flags);
	list_for_each_entry(disc, &nvfab_disc_all, all_node)
		mod_delayed_work(nvfab_disc_wq, &disc->dispatch_work, 0);
	spin_unlock_irqrestore(&nvfab_disc_all_lock, flags);
}

/**
 * nvfab_disc_jitter() - a random delay for a connect about to be due
 *
 * Context: any.
 * Return: 0..connect_jitter_ms, in jiffies.
 */
unsigned long nvfab_disc_jitter(void)
{
	unsigned int ms = READ_ONCE(nvfab_disc_jitter_ms);

	return ms ? msecs_to_jiffies(get_random_u32_below(ms + 1)) : 0;
}

/**
 * nvfab_disc_herd() - do the connects of a log read come in a herd?
 * @live: the read is the first since the discovery controller went live
 *	(at boot, and after every reconnect: when a target restarts or
 *	fails over, every host reconnects and reads in the same second)
 * @fresh: the connects the read made due (new, or wanted again by the
 *	policy)
 * @max_inflight: the entry's connect slots
 *
 * A herd waits nvfab_disc_jitter() per connect (Storm control in
 * Documentation/admin-guide/nvfab-discovery.rst); a few connects that a
 * DLP change AEN announced start at once.
 *
 * Context: any.
 * Return: true if the connects should wait a jitter.
 */
bool nvfab_disc_herd(bool live, unsigned int fresh, unsigned int max_inflight)
{
	return fresh && (live || fresh > max_inflight);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_herd);

/**
 * nvfab_disc_next_backoff() - the delay after one more failure
 * @backoff: the last delay in seconds, 0 after a success
 *
 * Context: any.
 * Return: NVFAB_DISC_BACKOFF_MIN, then double the last, at most
 * retry_max_s (seconds).
 */
unsigned int nvfab_disc_next_backoff(unsigned int backoff)
{
	unsigned int max = READ_ONCE(nvfab_disc_retry_max_s);

	if (!backoff)
		return min(NVFAB_DISC_BACKOFF_MIN, max);
	return min(backoff > max / 2 ? max : backoff * 2, max);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_next_backoff);

/**
 * nvfab_disc_policy_wants() - does the connect policy take this subsystem?
 * @policy: the entry's policy
 * @subnqn: the subsystem's NQN
 *
 * Context: any (RCU read side).
 * Return: true for connect=all, or connect=match with a pattern that
 * glob_match()es @subnqn.
 */
bool nvfab_disc_policy_wants(struct nvfab_disc_policy *policy,
			     const char *subnqn)
{
	const struct nvfab_disc_match *m;
	bool wants = false;
	const char *p;
	unsigned int i;

	switch (READ_ONCE(policy->connect)) {
	case NVFAB_DISC_CONNECT_ALL:
		return true;
	case NVFAB_DISC_CONNECT_NONE:
		return false;
	default:
		break;
	}
	rcu_read_lock();
	m = rcu_dereference(policy->match);
	for (i = 0, p = m ? m->text : NULL; m && i < m->nr;
	     i++, p += strlen(p) + 1) {
		if (glob_match(p, subnqn)) {
			wants = true;
			break;
		}
	}
	rcu_read_unlock();
	return wants;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_policy_wants);

/**
 * nvfab_disc_uevent() - a discovery event on the discovery controller
 * @disc: the disc whose log changed
 * @event: "discovery_add", "discovery_remove" or "discovery_connect_failed"
 * @e: the entry concerned
 * @err: the negative errno of a failed connect, 0 otherwise
 *
 * KOBJ_CHANGE on /sys/class/nvfab/nvfabN of the discovery controller,
 * with NVFAB_EVENT, NVFAB_DISC_NAME, NVFAB_SUBNQN, NVFAB_TRTYPE,
 * NVFAB_TRADDR, NVFAB_TRSVCID and, for a failure, NVFAB_ERRNO
 * (Documentation/ABI/testing/sysfs-class-nvfab). Nothing is sent while
 * the disc has no controller.
 *
 * Context: process context, disc->lock held.
 */
void nvfab_disc_uevent(struct nvfab_disc *disc, const char *event,
		       const struct nvfab_disc_entry *e, int err)
{
	char *env[8] = { };
	int i, n = 0;

	lockdep_assert_held(&disc->lock);
	if (!disc->ctrl)
		return;
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_EVENT=%s", event);
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_DISC_NAME=%s", disc->name);
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_SUBNQN=%s", e->subnqn);
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_TRTYPE=%s",
			     nvfab_disc_trtype_name(e->trtype));
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_TRADDR=%s", e->traddr);
	env[n++] = kasprintf(GFP_KERNEL, "NVFAB_TRSVCID=%s", e->trsvcid);
	if (err)
		env[n++] = kasprintf(GFP_KERNEL, "NVFAB_ERRNO=%d", err);
	for (i = 0; i < n; i++)
		if (!env[i])
			goto out_free;
	kobject_uevent_env(&disc->ctrl->device->kobj, KOBJ_CHANGE, env);
out_free:
	for (i = 0; i < n; i++)
		kfree(env[i]);
}

/**
 * nvfab_disc_hold_ctrl() - keep a controller and its transport module
 * @ctrl: a controller
 *
 * A device reference alone is not enough: the last put calls the
 * transport's free_ctrl, and "rmmod nvfab-tcp" only waits for its
 * controllers' deletion, not for their last reference. Holding the module
 * as well makes that rmmod fail (EBUSY) while nvfab-discovery keeps one of
 * its controllers, as an open /dev/nvfabN does upstream.
 *
 * nvfab_fabrics_put_ctrl() drops both, as for the controllers that
 * nvfab_fabrics_create_ctrl() returns, which come held that way.
 *
 * Context: any.
 * Return: true with both held; false (nothing held) when the transport
 * module is being unloaded.
 */
bool nvfab_disc_hold_ctrl(struct nvfab_ctrl *ctrl)
{
	if (!try_module_get(ctrl->ops->module))
		return false;
	get_device(ctrl->device);
	return true;
}

/**
 * nvfab_disc_drop_rec_ctrl() - forget a record's controller
 * @rec: a record leaving its disc's list, not CONNECTING
 * @disconnect: delete the controller too (it is ours: we created it)
 *
 * Context: process context, disc->lock held.
 */
void nvfab_disc_drop_rec_ctrl(struct nvfab_disc_rec *rec, bool disconnect)
{
	struct nvfab_ctrl *ctrl = rec->ctrl;

	if (!ctrl)
		return;
	rec->ctrl = NULL;
	if (disconnect && !nvfab_delete_ctrl(ctrl)) {
		atomic_inc(&rec->disc->stats.disconnects);
		dev_info(ctrl->device, "%s: disconnecting %s: it left the discovery log\n",
			 rec->disc->name, rec->e.subnqn);
	}
	nvfab_fabrics_put_ctrl(ctrl);
}

static bool nvfab_disc_io_ctrl_gone(struct nvfab_ctrl *ctrl)
{
	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_DELETING:
	case NVFAB_CTRL_DELETING_NOIO:
	case NVFAB_CTRL_DEAD:
		return true;
	default:
		return false;
	}
}

/**
 * nvfab_disc_dispatch_work() - start the connects that are due
 * @work: disc->dispatch_work
 *
 * First looks at every record: after a controller was deleted
 * (NVFAB_DISC_WHY_GONE) every PRESENT record is PENDING again, and our
 * controllers that someone else deleted while their entry is still in the
 * log are connected again after the backoff. Then starts the records that
 * are due while connect slots are free. The two are separate passes: the
 * second stops at the first record without a slot, and a PRESENT record
 * after it would otherwise stay PRESENT for good once the bit is cleared.
 *
 * Context: nvfab_disc_wq.
 */
void nvfab_disc_dispatch_work(struct work_struct *work)
{
	struct nvfab_disc *disc = container_of(to_delayed_work(work),
					       struct nvfab_disc,
					       dispatch_work);
	unsigned long now = jiffies, next = 0;
	struct nvfab_disc_rec *rec;
	bool have_next = false, recheck;

	mutex_lock(&disc->lock);
	if (disc->state == NVFAB_DISC_STOPPING)
		goto out_unlock;
	/* A referral child's create waits for a slot: try it again. */
	if (test_and_clear_bit(NVFAB_DISC_WANT_SLOT, &disc->reasons))
		queue_delayed_work(nvfab_disc_wq, &disc->create_work, 0);
	/* A controller went away: the one that was there may be it. */
	recheck = test_and_clear_bit(NVFAB_DISC_WHY_GONE, &disc->reasons);
	list_for_each_entry(rec, &disc->recs, node) {
		if (recheck && rec->state == NVFAB_DISC_REC_PRESENT) {
			rec->state = NVFAB_DISC_REC_PENDING;
			rec->due = now + nvfab_disc_jitter();
		}
		if (rec->state == NVFAB_DISC_REC_CONNECTED && rec->ctrl &&
		    nvfab_disc_io_ctrl_gone(rec->ctrl)) {
			nvfab_disc_drop_rec_ctrl(rec, false);
			rec->backoff = nvfab_disc_next_backoff(rec->backoff);
			rec->due = now + rec->backoff * HZ;
			rec->state = NVFAB_DISC_REC_RETRY;
			pr_info("%s: controller for %s was removed while listed; reconnecting in %u s\n",
				disc->name, rec->e.subnqn, rec->backoff);
		}
	}
	list_for_each_entry(rec, &disc->recs, node) {
		if (rec->state != NVFAB_DISC_REC_PENDING &&
		    rec->state != NVFAB_DISC_REC_RETRY)
			continue;
		if (time_before(now, rec->due)) {
			if (!have_next || time_before(rec->due, next))
				next = rec->due;
			have_next = true;
			continue;
		}
		if (!nvfab_disc_get_slot(disc->root))
			break;	/* a connect's end kicks us */
		rec->state = NVFAB_DISC_REC_CONNECTING;
		disc->nr_connecting++;
		kref_get(&disc->ref);
		queue_work(nvfab_disc_connect_wq, &rec->work);
	}
	if (have_next)
		mod_delayed_work(nvfab_disc_wq, &disc->dispatch_work,
				 time_after(next, now) ? next - now : 0);
out_unlock:
	mutex_unlock(&disc->lock);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_dispatch_work);

/*
 * Options that only NVMe/TCP takes: an entry may list subsystems of
 * another transport than its discovery controller, and nvfab-rdma
 * refuses these (-EINVAL), so they are left out of an RDMA connect.
 */
static bool nvfab_disc_tcp_only(const char *opt)
{
	return !strcmp(opt, "hdr_digest") || !strcmp(opt, "data_digest") ||
	       !strcmp(opt, "tls") || str_has_prefix(opt, "keyring=") ||
	       str_has_prefix(opt, "tls_key=");
}

/*
 * The entry's connect_opts (checked when written to configfs), without
 * the options that only TCP takes when @tcp is false.
 */
static char *nvfab_disc_connect_opts(const struct nvfab_disc_cfg *c,
				     bool tcp)
{
	char *buf, *opts, *o, *p;
	size_t len = 0;

	opts = kstrdup(c->connect_opts, GFP_KERNEL);
	buf = kzalloc(strlen(c->connect_opts) + 1, GFP_KERNEL);
	if (!opts || !buf) {
		kfree(opts);
		kfree(buf);
		return NULL;
	}
	o = opts;
	while ((p = strsep(&o, ",")) != NULL) {
		if (!*p || (!tcp && nvfab_disc_tcp_only(p)))
			continue;
		len += sprintf(buf + len, "%s%s", len ? "," : "", p);
	}
	kfree(opts);
	return buf;
}

/**
 * nvfab_disc_host_values() - the host options of a configfs entry
 * @c: the entry's settings
 * @tcp: for an NVMe/TCP controller: host_iface is TCP's only (nvfab-rdma
 *	refuses it), so a controller of another transport goes without
 * @v: where to put them, room for NVFAB_DISC_HOST_VALUES
 *
 * host_traddr, host_iface, hostnqn and hostid, those that are set.
 *
 * Context: any.
 * Return: the number of values put in @v.
 */
unsigned int nvfab_disc_host_values(const struct nvfab_disc_cfg *c, bool tcp,
				    struct nvfab_opt_value *v)
{
	unsigned int n = 0;

	if (*c->host_traddr)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_HOST_TRADDR,
						   c->host_traddr };
	if (*c->host_iface && tcp)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_HOST_IFACE,
						   c->host_iface };
	if (*c->hostnqn)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_HOSTNQN,
						   c->hostnqn };
	if (*c->hostid)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_HOST_ID,
						   c->hostid };
	return n;
}

/**
 * nvfab_disc_io_options() - the options of the I/O controller of an entry
 * @c: the configfs entry's settings (a referral's records: the root's)
 * @e: an NVM subsystem entry of a log, validated by discovery-log.c
 * @opts: zeroed options block to fill; the caller frees it with
 *	nvfab_free_options() whatever the result
 *
 * The entry comes from the target: its SUBNQN, TRADDR and TRSVCID are
 * given to nvfab-fabrics as values (nvfab_build_options()), never pasted
 * into an option string, so a ',' or '=' in them is part of the NQN or
 * address and adds no option. The only string parsed is the entry's
 * connect_opts, which its administrator wrote. An entry whose port
 * requires a secure channel gets the tls option.
 *
 * Context: may sleep.
 * Return: 0, or an error of nvfab_build_options(): -EINVAL (a value
 * nvfab-fabrics refuses, such as a host identity in use with another
 * Host NQN or ID), -EOPNOTSUPP, -ENOMEM.
 */
int nvfab_disc_io_options(const struct nvfab_disc_cfg *c,
			  const struct nvfab_disc_entry *e,
			  struct nvfab_ctrl_options *opts)
{
	struct nvfab_opt_value v[4 + NVFAB_DISC_HOST_VALUES];
	bool tcp = e->trtype == NVMF_TRTYPE_TCP;
	unsigned int n = 0;
	char *extra;
	int ret;

	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_NQN, e->subnqn };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRANSPORT,
					   nvfab_disc_trtype_name(e->trtype) };
	v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRADDR, e->traddr };
	if (*e->trsvcid)
		v[n++] = (struct nvfab_opt_value){ NVFAB_OPT_TRSVCID,
						   e->trsvcid };
	n += nvfab_disc_host_values(c, tcp, v + n);

	extra = nvfab_disc_connect_opts(c, tcp);
	if (!extra)
		return -ENOMEM;
	ret = nvfab_build_options(opts, extra, v, n);
	kfree(extra);
	/*
	 * A port that requires a secure channel gets TLS (the reconcile
	 * let only NVMe/TCP's TLS 1.3 through): never the clear, whether
	 * connect_opts says tls or not.
	 */
	if (!ret && nvfab_disc_needs_tls(e)) {
		opts->tls = true;
		opts->mask |= NVFAB_OPT_TLS;
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_io_options);

/**
 * nvfab_disc_connect_work() - connect one NVM subsystem entry
 * @work: rec->work
 *
 * Holds a connect slot and a reference to the disc. A record that left
 * the log meanwhile (@removed) is freed here, and the new controller
 * deleted again when the policy disconnects ours.
 *
 * Context: nvfab_disc_connect_wq; sleeps for the whole connect.
 */
void nvfab_disc_connect_work(struct work_struct *work)
{
	struct nvfab_disc_rec *rec = container_of(work, struct nvfab_disc_rec,
						  work);
	struct nvfab_disc *disc = rec->disc;
	struct nvfab_ctrl_options *opts;
	struct nvfab_ctrl *ctrl;
	int ret = -ENOMEM;

	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (opts)
		ret = nvfab_disc_io_options(&disc->root->cfg, &rec->e, opts);
	if (ret) {
		nvfab_free_options(opts);
		ctrl = ERR_PTR(ret);
	} else {
		/* takes the options over; a controller comes held */
		ctrl = nvfab_fabrics_create_ctrl(opts);
	}
	nvfab_disc_put_slot(disc->root);

	mutex_lock(&disc->lock);
	disc->nr_connecting--;
	if (rec->removed) {
		if (!IS_ERR(ctrl)) {
			bool ours = READ_ONCE(disc->policy->disconnect) ==
				    NVFAB_DISC_DISCONNECT_OURS;

			rec->ctrl = ctrl;
			nvfab_disc_drop_rec_ctrl(rec, ours);
		}
		kfree(rec);
	} else if (!IS_ERR(ctrl)) {
		rec->ctrl = ctrl;
		rec->backoff = 0;
		rec->state = NVFAB_DISC_REC_CONNECTED;
		atomic_inc(&disc->stats.connects);
		dev_info(ctrl->device, "%s: connected %s at %s:%s\n",
			 disc->name, rec->e.subnqn, rec->e.traddr,
			 rec->e.trsvcid);
	} else if (PTR_ERR(ctrl) == -EALREADY) {
		/*
		 * Not ours: never disconnected by us. Tried again when a
		 * controller is deleted (nvfab_disc_ctrl_event()).
		 */
		rec->state = NVFAB_DISC_REC_PRESENT;
	} else {
		atomic_inc(&disc->stats.connect_failures);
		rec->backoff = nvfab_disc_next_backoff(rec->backoff);
		rec->due = jiffies + rec->backoff * HZ;
		rec->state = NVFAB_DISC_REC_RETRY;
		pr_warn("%s: connecting %s at %s:%s failed (%pe); next try in %u s\n",
			disc->name, rec->e.subnqn, rec->e.traddr,
			rec->e.trsvcid, ctrl, rec->backoff);
		nvfab_disc_uevent(disc, "discovery_connect_failed", &rec->e,
				  PTR_ERR(ctrl));
	}
	wake_up(&disc->wq);
	mutex_unlock(&disc->lock);

	nvfab_disc_kick_all();
	nvfab_disc_put(disc);
}
