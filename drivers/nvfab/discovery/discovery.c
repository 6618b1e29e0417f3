// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-discovery: asynchronous discovery for nvfab. The module's load
 * and unload, its parameters, workqueues and the controller notifier that
 * turns a discovery controller's events into log reads.
 *
 * The files of the module:
 *  - discovery-log.c: reads and checks a Discovery Log Page;
 *  - discovery-ctrl.c: the discovery controllers followed (create, read,
 *    reconcile, referrals, stop);
 *  - discovery-connect.c: the connects and disconnects reconciliation
 *    asks for, with storm control, backoff and uevents;
 *  - discovery-configfs.c: /sys/kernel/config/nvfab/discovery/.
 * Documentation/admin-guide/nvfab-discovery.rst describes the model.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>

#include <nvfab/compat.h>
#include "discovery-priv.h"

struct workqueue_struct *nvfab_disc_wq;
struct workqueue_struct *nvfab_disc_connect_wq;
DEFINE_SPINLOCK(nvfab_disc_all_lock);
LIST_HEAD(nvfab_disc_all);

/*
 * Connects in flight over every entry. The connect workqueue's own limit
 * (max_active) is the ceiling: a connect beyond it would only queue.
 */
#define NVFAB_DISC_GLOBAL_INFLIGHT_MAX	WQ_DFL_ACTIVE

static int nvfab_disc_set_uint(const char *val, const struct kernel_param *kp,
			       unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max) {
		pr_err("%s must be %u..%u, not %u\n", kp->name, min, max, v);
		return -ERANGE;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int nvfab_disc_set_inflight(const char *val,
				   const struct kernel_param *kp)
{
	int ret = nvfab_disc_set_uint(val, kp, 1,
				      NVFAB_DISC_GLOBAL_INFLIGHT_MAX);

	if (!ret)
		nvfab_disc_kick_all();	/* a raised limit frees slots */
	return ret;
}

static int nvfab_disc_set_jitter(const char *val,
				 const struct kernel_param *kp)
{
	return nvfab_disc_set_uint(val, kp, 0, 60000);
}

static int nvfab_disc_set_retry_max(const char *val,
				    const struct kernel_param *kp)
{
	return nvfab_disc_set_uint(val, kp, NVFAB_DISC_BACKOFF_MIN, 86400);
}

static int nvfab_disc_set_absent_reads(const char *val,
				       const struct kernel_param *kp)
{
	return nvfab_disc_set_uint(val, kp, 1, NVFAB_DISC_ABSENT_READS_MAX);
}

static int nvfab_disc_set_referrals(const char *val,
				    const struct kernel_param *kp)
{
	return nvfab_disc_set_uint(val, kp, 1, NVFAB_DISC_REFERRALS_MAX);
}

static int nvfab_disc_set_referrals_total(const char *val,
					  const struct kernel_param *kp)
{
	return nvfab_disc_set_uint(val, kp, 1, NVFAB_DISC_REFERRALS_TOTAL_MAX);
}

static const struct kernel_param_ops nvfab_disc_inflight_ops = {
	.set = nvfab_disc_set_inflight,
	.get = param_get_uint,
};

static const struct kernel_param_ops nvfab_disc_jitter_ops = {
	.set = nvfab_disc_set_jitter,
	.get = param_get_uint,
};

static const struct kernel_param_ops nvfab_disc_retry_max_ops = {
	.set = nvfab_disc_set_retry_max,
	.get = param_get_uint,
};

unsigned int nvfab_disc_max_inflight = 16;
module_param_cb(max_inflight, &nvfab_disc_inflight_ops,
		&nvfab_disc_max_inflight, 0644);
MODULE_PARM_DESC(max_inflight,
		 "connects in flight over every discovery entry (1..256, default 16)");

unsigned int nvfab_disc_jitter_ms = 1000;
module_param_cb(connect_jitter_ms, &nvfab_disc_jitter_ops,
		&nvfab_disc_jitter_ms, 0644);
MODULE_PARM_DESC(connect_jitter_ms,
		 "connects that come in a herd (first read after live, more than max_inflight new) wait a random 0..connect_jitter_ms ms (0..60000, default 1000)");

unsigned int nvfab_disc_retry_max_s = 300;
module_param_cb(retry_max_s, &nvfab_disc_retry_max_ops,
		&nvfab_disc_retry_max_s, 0644);
MODULE_PARM_DESC(retry_max_s,
		 "cap of the retry backoff of connects and log reads, seconds (2..86400, default 300)");

static const struct kernel_param_ops nvfab_disc_absent_reads_ops = {
	.set = nvfab_disc_set_absent_reads,
	.get = param_get_uint,
};

unsigned int nvfab_disc_absent_reads = NVFAB_DISC_ABSENT_READS;
module_param_cb(absent_reads, &nvfab_disc_absent_reads_ops,
		&nvfab_disc_absent_reads, 0644);
MODULE_PARM_DESC(absent_reads,
		 "good log reads in a row an entry must be missing from before it is gone (disconnected under disconnect=ours), read 2 s apart (1..16, default 3; 1: at once)");

static const struct kernel_param_ops nvfab_disc_referrals_ops = {
	.set = nvfab_disc_set_referrals,
	.get = param_get_uint,
};

static const struct kernel_param_ops nvfab_disc_referrals_total_ops = {
	.set = nvfab_disc_set_referrals_total,
	.get = param_get_uint,
};

unsigned int nvfab_disc_max_referrals = NVFAB_DISC_REFERRALS;
module_param_cb(max_referrals, &nvfab_disc_referrals_ops,
		&nvfab_disc_max_referrals, 0644);
MODULE_PARM_DESC(max_referrals,
		 "referrals followed per discovery entry, its children at every depth (1..1024, default 16)");

unsigned int nvfab_disc_max_referrals_total = NVFAB_DISC_REFERRALS_TOTAL;
module_param_cb(max_referrals_total, &nvfab_disc_referrals_total_ops,
		&nvfab_disc_max_referrals_total, 0644);
MODULE_PARM_DESC(max_referrals_total,
		 "referrals followed over all discovery entries (1..4096, default 64)");

static int nvfab_disc_get_peak(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", nvfab_disc_inflight_peak());
}

static const struct kernel_param_ops nvfab_disc_peak_ops = {
	.get = nvfab_disc_get_peak,
};

module_param_cb(inflight_peak, &nvfab_disc_peak_ops, NULL, 0444);
MODULE_PARM_DESC(inflight_peak,
		 "the most connects that were ever in flight at once (read only)");

static int nvfab_disc_notify(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	nvfab_disc_ctrl_event(data, event);
	return NOTIFY_DONE;
}

static struct notifier_block nvfab_disc_nb = {
	.notifier_call = nvfab_disc_notify,
};

static int __init nvfab_discovery_init(void)
{
	int ret = -ENOMEM;

	nvfab_disc_wq = alloc_workqueue("nvfab-disc-wq", WQ_UNBOUND, 0);
	if (!nvfab_disc_wq)
		goto out;
	nvfab_disc_connect_wq = alloc_workqueue("nvfab-disc-connect-wq",
						WQ_UNBOUND,
						NVFAB_DISC_GLOBAL_INFLIGHT_MAX);
	if (!nvfab_disc_connect_wq)
		goto out_destroy_wq;
	nvfab_register_ctrl_notifier(&nvfab_disc_nb);
	ret = nvfab_disc_configfs_init();
	if (ret) {
		pr_err("cannot add /sys/kernel/config/nvfab/discovery: %d\n",
		       ret);
		goto out_unregister;
	}
	return 0;

out_unregister:
	nvfab_unregister_ctrl_notifier(&nvfab_disc_nb);
	destroy_workqueue(nvfab_disc_connect_wq);
out_destroy_wq:
	destroy_workqueue(nvfab_disc_wq);
out:
	return ret;
}

static void __exit nvfab_discovery_exit(void)
{
	/* configfs entries pin the module: every disc is stopped by now. */
	nvfab_disc_configfs_exit();
	nvfab_unregister_ctrl_notifier(&nvfab_disc_nb);
	destroy_workqueue(nvfab_disc_connect_wq);
	destroy_workqueue(nvfab_disc_wq);
}

module_init(nvfab_discovery_init);
module_exit(nvfab_discovery_exit);

MODULE_DESCRIPTION("nvfab NVMe over Fabrics discovery: follows discovery controllers and connects what they list");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
NVFAB_IMPORT();
