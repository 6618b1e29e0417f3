// SPDX-License-Identifier: GPL-2.0
/*
 * Asymmetric Namespace Access (NVMe Base 2.0, 8.1; log page 0Ch, 5.16.1.12).
 *
 * Each controller that reports ANA (CMIC bit 3) keeps its ANA groups in an
 * xarray: the state the last log gave, and one ANATT timer per group that
 * runs while the group is in CHANGE. The log is read when the controller
 * connects (before it goes live), on the ANA-change AEN, after a command
 * failed with an ANA status, and when a group's ANATT runs out. Every
 * namespace takes its group's state; a path whose state changed tells the
 * selector, wakes the I/O waiting on its head and emits a uevent.
 *
 * The log is untrusted: ana-log.c checks all of it before any of it is
 * used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "ana-log.h"
#include "mpath.h"
#include "../trace.h"
#include <nvfab/fabrics.h>

/* ANATT when a controller reports 0 (seconds); the bound is twice it. */
#define NVFAB_DEFAULT_ANATT	10

/**
 * nvfab_ana_init_ctrl() - take the ANA fields of Identify Controller
 * @ctrl: a connecting controller
 * @id: its Identify Controller data (untrusted)
 *
 * Sizes the log buffer from NANAGRPID and MNAN (or NN), bounded by the
 * transfer limit from MDTS.
 *
 * Context: may sleep.
 * Return: 0, -EINVAL for inconsistent ANA fields, or -ENOMEM.
 */
int nvfab_ana_init_ctrl(struct nvfab_ctrl *ctrl, const struct nvme_id_ctrl *id)
{
	u32 nanagrpid = le32_to_cpu(id->nanagrpid);
	u32 anagrpmax = le32_to_cpu(id->anagrpmax);
	u32 max_nsids = le32_to_cpu(id->mnan) ?: le32_to_cpu(id->nn);
	size_t size, limit;

	ctrl->ana_supported = !ctrl->opts->discovery_nqn &&
			      (id->cmic & NVME_CTRL_CMIC_ANA);
	if (!ctrl->ana_supported)
		return 0;
	if (!nanagrpid || !anagrpmax || nanagrpid > anagrpmax) {
		dev_err(ctrl->device, "Identify: ANA reported with NANAGRPID %u, ANAGRPMAX %u\n",
			nanagrpid, anagrpmax);
		return -EINVAL;
	}
	ctrl->anacap = id->anacap;
	ctrl->anatt = id->anatt;
	ctrl->nanagrpid = nanagrpid;
	ctrl->anagrpmax = anagrpmax;

	limit = (size_t)ctrl->max_hw_sectors << SECTOR_SHIFT;
	size = nvfab_ana_log_size(nanagrpid, max_nsids, SZ_4M);
	if (size == ctrl->ana_log_size && ctrl->ana_log)
		return 0;
	kvfree(ctrl->ana_log);
	ctrl->ana_log = kvzalloc(size, GFP_KERNEL);
	ctrl->ana_log_size = ctrl->ana_log ? size : 0;
	if (!ctrl->ana_log)
		return -ENOMEM;
	if (size > limit)
		dev_dbg(ctrl->device, "ANA log of %zu bytes read in %zu-byte pieces\n",
			size, limit);
	return 0;
}

static void nvfab_anatt_work(struct work_struct *work)
{
	struct nvfab_ana_group *grp = container_of(to_delayed_work(work),
						   struct nvfab_ana_group,
						   anatt_work);
	struct nvfab_ctrl *ctrl = grp->ctrl;

	dev_warn(ctrl->device, "ANA group %u still in change after ANATT (%u s); reading the log again\n",
		 grp->grpid, ctrl->anatt ?: NVFAB_DEFAULT_ANATT);
	queue_work(nvfab_wq, &ctrl->ana_work);
}

/* Marks the groups the log being applied lists (under ana_lock). */
#define NVFAB_ANA_LISTED	XA_MARK_0

/*
 * Record a group's new state (ana_lock held); arm or stop its ANATT timer.
 * Only groups that list a namespace are kept: the state of an empty group
 * matters to no path, and a target may name up to 65535 of them. So the
 * groups are bounded by NANAGRPID (ana-log.c checks NGRPS) and by the
 * NSIDs the log lists, and nvfab_ana_sweep() frees the groups a log no
 * longer lists or that became empty.
 */
static int nvfab_ana_update_group(const struct nvme_ana_group_desc *desc,
				  void *data)
{
	struct nvfab_ctrl *ctrl = data;
	u32 grpid = le32_to_cpu(desc->grpid);
	u8 state = nvfab_ana_desc_state(desc);
	struct nvfab_ana_group *grp;
	int ret;

	lockdep_assert_held(&ctrl->ana_lock);
	if (!desc->nnsids)
		return 0;
	grp = xa_load(&ctrl->ana_groups, grpid);
	if (!grp) {
		grp = kzalloc(sizeof(*grp), GFP_KERNEL);
		if (!grp)
			return -ENOMEM;
		grp->grpid = grpid;
		grp->ctrl = ctrl;
		grp->state = state;
		INIT_DELAYED_WORK(&grp->anatt_work, nvfab_anatt_work);
		ret = xa_err(xa_store(&ctrl->ana_groups, grpid, grp,
				      GFP_KERNEL));
		if (ret) {
			kfree(grp);
			return ret;
		}
		xa_set_mark(&ctrl->ana_groups, grpid, NVFAB_ANA_LISTED);
		if (state == NVME_ANA_CHANGE)
			queue_delayed_work(nvfab_wq, &grp->anatt_work,
					   (ctrl->anatt ?: NVFAB_DEFAULT_ANATT) * HZ);
		return 0;
	}
	xa_set_mark(&ctrl->ana_groups, grpid, NVFAB_ANA_LISTED);
	if (state == NVME_ANA_CHANGE && grp->state != NVME_ANA_CHANGE)
		queue_delayed_work(nvfab_wq, &grp->anatt_work,
				   (ctrl->anatt ?: NVFAB_DEFAULT_ANATT) * HZ);
	else if (state != NVME_ANA_CHANGE)
		cancel_delayed_work(&grp->anatt_work);
	grp->state = state;
	return 0;
}

/*
 * After a log was applied (@applied) free the groups it did not list, so
 * that a target naming new ANAGRPIDs in each log cannot grow them without
 * bound; either way clear the marks for the next log. ana_lock held; the
 * group's ANATT work does not take it.
 */
static void nvfab_ana_sweep(struct nvfab_ctrl *ctrl, bool applied)
{
	struct nvfab_ana_group *grp;
	unsigned long idx;

	lockdep_assert_held(&ctrl->ana_lock);
	xa_for_each(&ctrl->ana_groups, idx, grp) {
		if (xa_get_mark(&ctrl->ana_groups, idx, NVFAB_ANA_LISTED)) {
			xa_clear_mark(&ctrl->ana_groups, idx, NVFAB_ANA_LISTED);
			continue;
		}
		if (!applied)
			continue;
		xa_erase(&ctrl->ana_groups, idx);
		cancel_delayed_work_sync(&grp->anatt_work);
		kfree(grp);
	}
}

/*
 * Announce a path's new ANA state. The event goes out on the controller's
 * device: the path's own disk is hidden, and the block layer keeps uevents
 * of hidden disks suppressed, so an event there would never leave.
 */
static void nvfab_ana_uevent(struct nvfab_ns *ns, u8 state)
{
	char event[] = "NVFAB_EVENT=ana_change";
	char grp[32], st[32], nsid[32];
	char path[DISK_NAME_LEN + 16], head[DISK_NAME_LEN + 16];
	char *envp[7] = { event, grp, st, nsid, path, NULL, NULL };

	snprintf(grp, sizeof(grp), "NVFAB_ANA_GRPID=%u", ns->anagrpid);
	snprintf(st, sizeof(st), "NVFAB_ANA_STATE=%s",
		 nvfab_ana_state_name(state));
	snprintf(nsid, sizeof(nsid), "NVFAB_NSID=%u", ns->nsid);
	snprintf(path, sizeof(path), "NVFAB_PATH=%s", ns->disk->disk_name);
	if (ns->head && ns->head->disk) {
		snprintf(head, sizeof(head), "NVFAB_HEAD=%s",
			 ns->head->disk->disk_name);
		envp[5] = head;
	}
	kobject_uevent_env(&ns->ctrl->device->kobj, KOBJ_CHANGE, envp);
}

/* The state the groups give @ns: optimized without ANA. */
static u8 nvfab_ana_lookup(struct nvfab_ns *ns)
{
	struct nvfab_ctrl *ctrl = ns->ctrl;
	struct nvfab_ana_group *grp;

	if (!ctrl->ana_supported || !ns->anagrpid)
		return NVME_ANA_OPTIMIZED;
	grp = xa_load(&ctrl->ana_groups, ns->anagrpid);
	return grp ? grp->state : NVME_ANA_INACCESSIBLE;
}

/*
 * Give @ns its group's state (ana_lock held). True if the state changed or
 * an ANA status had made the path wait for this read: either way the
 * selector and the waiting bios must hear of it.
 */
static bool nvfab_ana_apply(struct nvfab_ns *ns)
{
	u8 old = READ_ONCE(ns->path.ana_state);
	u8 state = nvfab_ana_lookup(ns);
	bool pending = test_and_clear_bit(NVFAB_NS_ANA_PENDING, &ns->flags);

	lockdep_assert_held(&ns->ctrl->ana_lock);
	if (old == state)
		return pending;
	WRITE_ONCE(ns->path.ana_state, state);
	trace_nvfab_ana_state(ns->ctrl, ns->nsid, ns->anagrpid, old, state);
	if (ns->disk && ns->head)
		dev_info(ns->ctrl->device, "%s: ANA group %u %s -> %s\n",
			 ns->disk->disk_name, ns->anagrpid,
			 nvfab_ana_state_name(old), nvfab_ana_state_name(state));
	return true;
}

/**
 * nvfab_ana_ns_state() - set a new namespace's ANA state from its group
 * @ns: a namespace being added (not yet visible to I/O)
 *
 * Context: may sleep; takes ctrl->ana_lock.
 */
void nvfab_ana_ns_state(struct nvfab_ns *ns)
{
	struct nvfab_ctrl *ctrl = ns->ctrl;

	mutex_lock(&ctrl->ana_lock);
	WRITE_ONCE(ns->path.ana_state, nvfab_ana_lookup(ns));
	mutex_unlock(&ctrl->ana_lock);
	if (ctrl->ana_supported && ns->anagrpid &&
	    !xa_load(&ctrl->ana_groups, ns->anagrpid))
		queue_work(nvfab_wq, &ctrl->ana_work);
}

/* Read the whole log into ctrl->ana_log, in pieces the MDTS allows. */
static int nvfab_ana_fetch_once(struct nvfab_ctrl *ctrl, size_t piece)
{
	size_t off = 0, n;
	int ret;

	while (off < ctrl->ana_log_size) {
		n = min(piece, ctrl->ana_log_size - off);
		ret = nvfab_get_log(ctrl, NVME_LOG_ANA, NVME_NSID_ALL,
				    ctrl->ana_log + off, n, off);
		if (ret)
			return ret < 0 ? ret : -EIO;
		off += n;
	}
	return 0;
}

/* Attempts at a multi-piece read before the log is taken as unstable. */
#define NVFAB_ANA_FETCH_TRIES	3

/*
 * A log read in more than one piece is only consistent if it did not
 * change in between: its CHGCNT is read again after the last piece and
 * must be the one the first piece gave (NVMe Base 2.0, 5.16.1.12).
 */
static int nvfab_ana_fetch(struct nvfab_ctrl *ctrl)
{
	size_t piece = (size_t)ctrl->max_hw_sectors << SECTOR_SHIFT;
	struct nvme_ana_rsp_hdr *hdr = ctrl->ana_log, *again;
	int tries, ret;

	piece = max_t(size_t, round_down(piece, 4), 4);
	if (piece >= ctrl->ana_log_size)
		return nvfab_ana_fetch_once(ctrl, piece);

	again = kmalloc(sizeof(*again), GFP_KERNEL);
	if (!again)
		return -ENOMEM;
	for (tries = 0; tries < NVFAB_ANA_FETCH_TRIES; tries++) {
		ret = nvfab_ana_fetch_once(ctrl, piece);
		if (ret)
			break;
		ret = nvfab_get_log(ctrl, NVME_LOG_ANA, NVME_NSID_ALL, again,
				    sizeof(*again), 0);
		if (ret) {
			ret = ret < 0 ? ret : -EIO;
			break;
		}
		if (again->chgcnt == hdr->chgcnt)
			break;
		ret = -EAGAIN;
	}
	if (ret == -EAGAIN)
		dev_warn(ctrl->device, "ANA log CHGCNT kept changing across %d multi-piece reads\n",
			 NVFAB_ANA_FETCH_TRIES);
	kfree(again);
	return ret;
}

/**
 * nvfab_ana_read() - read the ANA log and apply it
 * @ctrl: a connecting or live controller that reports ANA
 *
 * On any error nothing changes: the log is checked whole before use.
 *
 * Context: may sleep; takes ctrl->ana_lock and namespaces_rwsem.
 * Return: 0, -EINVAL for a malformed log, or the error of the read.
 */
int nvfab_ana_read(struct nvfab_ctrl *ctrl)
{
	struct nvme_ana_rsp_hdr *hdr;
	bool changed = false;
	struct nvfab_ns *ns;
	int ret;

	if (!ctrl->ana_supported || !ctrl->ana_log)
		return 0;
	mutex_lock(&ctrl->ana_lock);
	ret = nvfab_ana_fetch(ctrl);
	if (ret) {
		trace_nvfab_ana_log(ctrl, 0, 0, ret);
		dev_warn(ctrl->device, "reading the ANA log failed: %d\n", ret);
		goto out_unlock;
	}
	ret = nvfab_parse_ana_log(ctrl->ana_log, ctrl->ana_log_size,
				  ctrl->nanagrpid, ctrl->anagrpmax,
				  nvfab_ana_update_group, ctrl, ctrl->device);
	nvfab_ana_sweep(ctrl, !ret);
	hdr = ctrl->ana_log;
	trace_nvfab_ana_log(ctrl, le64_to_cpu(hdr->chgcnt),
			    le16_to_cpu(hdr->ngrps), ret);
	if (ret)
		goto out_unlock;

	down_read(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		u8 old = READ_ONCE(ns->path.ana_state), state;

		if (!nvfab_ana_apply(ns))
			continue;
		changed = true;
		nvfab_mpath_path_changed(ns);
		state = READ_ONCE(ns->path.ana_state);
		/* an ANA status that the log confirms is no change */
		if (state != old)
			nvfab_ana_uevent(ns, state);
	}
	/*
	 * A submitter that read the old states may park its bio after the
	 * kicks above: once it has left its SRCU section, kick again.
	 */
	if (changed && ctrl->subsys) {
		synchronize_srcu(&ctrl->subsys->srcu);
		list_for_each_entry(ns, &ctrl->namespaces, list)
			nvfab_mpath_kick(ns);
	}
	up_read(&ctrl->namespaces_rwsem);
out_unlock:
	mutex_unlock(&ctrl->ana_lock);
	return ret;
}

/**
 * nvfab_ana_work() - re-read the ANA log (AEN, ANA status, ANATT expiry)
 * @work: ctrl->ana_work
 *
 * Context: nvfab_wq.
 */
void nvfab_ana_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       ana_work);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE)
		return;
	nvfab_ana_read(ctrl);
}

/**
 * nvfab_ana_error() - a command on @ns failed with an ANA status
 * @ns: the path
 * @status: NVME_SC_ANA_TRANSITION, _INACCESSIBLE or _PERSISTENT_LOSS
 *
 * The path is unusable until the log has been read again.
 *
 * Context: any context.
 */
void nvfab_ana_error(struct nvfab_ns *ns, u16 status)
{
	struct nvfab_ctrl *ctrl = ns->ctrl;

	if (!ctrl->ana_supported)
		return;
	if (!test_and_set_bit(NVFAB_NS_ANA_PENDING, &ns->flags))
		dev_dbg(ctrl->device, "ns %u: ANA status 0x%x, reading the log\n",
			ns->nsid, status);
	queue_work(nvfab_wq, &ctrl->ana_work);
}

/**
 * nvfab_ana_default_tmo() - the default no-path bound of a head
 * @head: the head
 *
 * Twice the largest ANATT of the head's controllers (ANATT 0 counts as
 * 10 s). Caller holds subsys->srcu or subsys->lock.
 *
 * Context: any context.
 * Return: seconds.
 */
unsigned int nvfab_ana_default_tmo(struct nvfab_ns_head *head)
{
	unsigned int anatt = 0;
	struct nvfab_ns *ns;

	list_for_each_entry_rcu(ns, &head->paths, siblings, true)
		anatt = max_t(unsigned int, anatt,
			      ns->ctrl->anatt ?: NVFAB_DEFAULT_ANATT);
	return 2 * (anatt ?: NVFAB_DEFAULT_ANATT);
}

/**
 * nvfab_ana_stop() - stop ANA work of a controller being torn down
 * @ctrl: the controller
 *
 * Context: may sleep.
 */
void nvfab_ana_stop(struct nvfab_ctrl *ctrl)
{
	struct nvfab_ana_group *grp;
	unsigned long idx;

	cancel_work_sync(&ctrl->ana_work);
	xa_for_each(&ctrl->ana_groups, idx, grp)
		cancel_delayed_work_sync(&grp->anatt_work);
}

/**
 * nvfab_ana_free() - free a controller's ANA groups and log buffer
 * @ctrl: a controller being freed
 *
 * Context: may sleep.
 */
void nvfab_ana_free(struct nvfab_ctrl *ctrl)
{
	struct nvfab_ana_group *grp;
	unsigned long idx;

	nvfab_ana_stop(ctrl);
	xa_for_each(&ctrl->ana_groups, idx, grp)
		kfree(grp);
	xa_destroy(&ctrl->ana_groups);
	kvfree(ctrl->ana_log);
	ctrl->ana_log = NULL;
}
