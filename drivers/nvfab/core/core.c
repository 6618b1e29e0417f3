// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab core: module init, the controller state machine, controller init,
 * release and deletion. Setting up and tearing down the association
 * (enable, shutdown, Identify, queues) is in ctrl-setup.c, error recovery,
 * reconnect and reset in recovery.c, requests and synchronous commands in
 * request.c, keep-alive in keep-alive.c, asynchronous events in aen.c, the
 * /dev/nvfabN character device in ioctl.c. Written from NVMe Base 2.0 and
 * NVMe over Fabrics 1.1.
 *
 * Lifecycle. A transport allocates its controller, calls nvfab_init_ctrl()
 * and nvfab_start_new_ctrl(). The core then drives the association:
 *
 *   start_queue(0) -> Connect(0) -> enable (CC.EN, CSTS.RDY) -> Identify
 *   -> Set Features (Number of Queues) -> start_queue(1..n) -> Connect(1..n)
 *   -> LIVE -> keep-alive, AER, namespace scan
 *
 * An error (keep-alive or command timeout, transport failure) moves LIVE to
 * RESETTING; err_work tears the queues down, requests in flight are
 * cancelled and requeued, and connect_work retries every reconnect_delay
 * seconds until ctrl_loss_tmo, when the controller is deleted.
 * fast_io_fail_tmo fails queued I/O earlier.
 *
 * Workqueue ordering rules (the one place they are written down):
 *  - nvfab_wq carries short work: namespace scan, AEN handling, keep-alive.
 *  - nvfab_reset_wq carries err_work, reset_work and connect_work. They may
 *    flush work on nvfab_wq.
 *  - nvfab_delete_wq carries controller deletion. Delete may flush reset and
 *    nvfab_wq work, never the other way around.
 * All three are WQ_MEM_RECLAIM: they make forward progress for I/O that may
 * be writing back memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>
#include "multipath/mpath.h"
#include <nvfab/fabrics.h>

#define CREATE_TRACE_POINTS
#include "auth.h"
#include "trace.h"

#define NVFAB_MINORS		BIT(MINORBITS)

struct workqueue_struct *nvfab_wq;
EXPORT_SYMBOL_NVFAB(nvfab_wq);

struct workqueue_struct *nvfab_reset_wq;
EXPORT_SYMBOL_NVFAB(nvfab_reset_wq);

struct workqueue_struct *nvfab_delete_wq;
EXPORT_SYMBOL_NVFAB(nvfab_delete_wq);

/* Controller character devices, /dev/nvfabN. */
const struct class nvfab_class = {
	.name = "nvfab",
};
EXPORT_SYMBOL_NVFAB(nvfab_class);

/* One device per NVM subsystem, named nvfab-subsysX. */
const struct class nvfab_subsys_class = {
	.name = "nvfab-subsystem",
};
EXPORT_SYMBOL_NVFAB(nvfab_subsys_class);

/*
 * Command timeouts in seconds, as the in-kernel host's nvme_core.
 * admin_timeout and io_timeout. admin_timeout applies to each admin and
 * fabrics command (Connect included) when it is sent. io_timeout is what
 * a path disk's queue/io_timeout starts at when the controller's I/O tag
 * set is created; that sysfs file then changes it per disk.
 */
unsigned int nvfab_admin_timeout = 60;
unsigned int nvfab_io_timeout = 30;

/* 1 s up to what a blk-mq timeout (unsigned int jiffies) holds. */
static int nvfab_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int secs;
	int ret;

	ret = kstrtouint(val, 10, &secs);
	if (ret)
		return ret;
	if (!secs || secs > UINT_MAX / HZ)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, secs);
	return 0;
}

static const struct kernel_param_ops nvfab_timeout_ops = {
	.set	= nvfab_timeout_set,
	.get	= param_get_uint,
};

module_param_cb(admin_timeout, &nvfab_timeout_ops, &nvfab_admin_timeout, 0644);
MODULE_PARM_DESC(admin_timeout, "timeout of admin and fabrics commands, seconds (default 60)");
module_param_cb(io_timeout, &nvfab_timeout_ops, &nvfab_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout, "initial I/O command timeout of new controllers, seconds (default 30)");

/* Read at each admin Connect; see nvfab_connect_queue(). */
bool nvfab_sqflow_auto = true;
module_param_named(sqflow_auto, nvfab_sqflow_auto, bool, 0644);
MODULE_PARM_DESC(sqflow_auto, "ask every controller for SQ flow control disabled, and connect again with it if refused (default Y)");

static DEFINE_IDA(nvfab_instance_ida);
static dev_t nvfab_chr_devt;

/**
 * nvfab_instance_get() - allocate a controller instance number
 *
 * The number names /dev/nvfabN and the controller's sysfs directory.
 *
 * Context: may sleep.
 * Return: the instance (>= 0), or -ENOMEM or -ENOSPC.
 */
int nvfab_instance_get(void)
{
	return ida_alloc_max(&nvfab_instance_ida, NVFAB_MINORS - 1, GFP_KERNEL);
}
EXPORT_SYMBOL_NVFAB(nvfab_instance_get);

/**
 * nvfab_instance_put() - release an instance from nvfab_instance_get()
 * @instance: the instance number
 *
 * Context: any context.
 */
void nvfab_instance_put(int instance)
{
	ida_free(&nvfab_instance_ida, instance);
}
EXPORT_SYMBOL_NVFAB(nvfab_instance_put);

static const char * const nvfab_state_names[] = {
	[NVFAB_CTRL_NEW]		= "new",
	[NVFAB_CTRL_CONNECTING]		= "connecting",
	[NVFAB_CTRL_LIVE]		= "live",
	[NVFAB_CTRL_RESETTING]		= "resetting",
	[NVFAB_CTRL_DELETING]		= "deleting",
	[NVFAB_CTRL_DELETING_NOIO]	= "deleting (no IO)",
	[NVFAB_CTRL_DEAD]		= "dead",
};

/**
 * nvfab_ctrl_state_name() - the sysfs name of a controller state
 * @state: the state
 *
 * Context: any context.
 * Return: a static string, "unknown" for an invalid state.
 */
const char *nvfab_ctrl_state_name(enum nvfab_ctrl_state state)
{
	if ((unsigned int)state < ARRAY_SIZE(nvfab_state_names))
		return nvfab_state_names[state];
	return "unknown";
}
EXPORT_SYMBOL_NVFAB(nvfab_ctrl_state_name);

/**
 * nvfab_change_ctrl_state() - the controller state machine
 * @ctrl: the controller
 * @new_state: the state to move to
 *
 * The one transition function: a whitelist of (old, new) pairs under
 * @ctrl->lock. Callers use a lost transition as mutual exclusion ("if I did
 * not win RESETTING, someone else is recovering").
 *
 * Context: any context; takes @ctrl->lock.
 * Return: true if the state changed.
 */
bool nvfab_change_ctrl_state(struct nvfab_ctrl *ctrl,
			     enum nvfab_ctrl_state new_state)
{
	enum nvfab_ctrl_state old;
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&ctrl->lock, flags);
	old = ctrl->state;
	switch (new_state) {
	case NVFAB_CTRL_CONNECTING:
		changed = old == NVFAB_CTRL_NEW || old == NVFAB_CTRL_RESETTING;
		break;
	case NVFAB_CTRL_LIVE:
		changed = old == NVFAB_CTRL_CONNECTING;
		if (changed)
			set_bit(NVFAB_CTRL_STARTED, &ctrl->flags);
		break;
	case NVFAB_CTRL_RESETTING:
		changed = old == NVFAB_CTRL_LIVE;
		break;
	case NVFAB_CTRL_DELETING:
		/*
		 * Never during the first connect: nvfab_start_new_ctrl()
		 * owns the controller until it went live once, and undoes
		 * a failed start itself.
		 */
		changed = old == NVFAB_CTRL_LIVE ||
			  old == NVFAB_CTRL_RESETTING ||
			  (old == NVFAB_CTRL_CONNECTING &&
			   test_bit(NVFAB_CTRL_STARTED, &ctrl->flags));
		break;
	case NVFAB_CTRL_DELETING_NOIO:
		changed = old == NVFAB_CTRL_DELETING;
		break;
	case NVFAB_CTRL_DEAD:
		changed = old == NVFAB_CTRL_DELETING_NOIO;
		break;
	default:
		break;
	}
	if (changed)
		WRITE_ONCE(ctrl->state, new_state);
	spin_unlock_irqrestore(&ctrl->lock, flags);

	if (changed) {
		if (new_state == NVFAB_CTRL_DELETING)
			nvfab_ctrl_event(ctrl, NVFAB_CTRL_EVENT_DELETING);
		trace_nvfab_ctrl_state(ctrl, old, new_state);
		wake_up_all(&ctrl->state_wq);
		dev_dbg(ctrl->device, "state %s -> %s\n",
			nvfab_ctrl_state_name(old),
			nvfab_ctrl_state_name(new_state));
	}
	return changed;
}
EXPORT_SYMBOL_NVFAB(nvfab_change_ctrl_state);

/* ---- events ---- */

static ATOMIC_NOTIFIER_HEAD(nvfab_ctrl_notifier);

/**
 * nvfab_register_ctrl_notifier() - hear the events of every controller
 * @nb: the callback (see enum nvfab_ctrl_event); its notifier_call runs in
 *	atomic context and must not sleep
 *
 * Used by nvfab-discovery, which reads the Discovery Log Page again when
 * one of its discovery controllers reconnects or sends a DLP change AEN.
 *
 * Context: process context.
 * Return: 0 (atomic_notifier_chain_register() cannot fail).
 */
int nvfab_register_ctrl_notifier(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&nvfab_ctrl_notifier, nb);
}
EXPORT_SYMBOL_NVFAB(nvfab_register_ctrl_notifier);

/**
 * nvfab_unregister_ctrl_notifier() - stop hearing controller events
 * @nb: a callback registered with nvfab_register_ctrl_notifier()
 *
 * Waits for callbacks running on other CPUs (an RCU grace period), so
 * that @nb may be freed, and its module unloaded, once this returns.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int nvfab_unregister_ctrl_notifier(struct notifier_block *nb)
{
	return atomic_notifier_chain_unregister(&nvfab_ctrl_notifier, nb);
}
EXPORT_SYMBOL_NVFAB(nvfab_unregister_ctrl_notifier);

/**
 * nvfab_ctrl_event() - tell the registered callbacks about an event
 * @ctrl: the controller
 * @event: what happened
 *
 * Context: any context.
 */
void nvfab_ctrl_event(struct nvfab_ctrl *ctrl, enum nvfab_ctrl_event event)
{
	atomic_notifier_call_chain(&nvfab_ctrl_notifier, event, ctrl);
}

/* ---- deletion ---- */

static void nvfab_do_delete_ctrl(struct nvfab_ctrl *ctrl)
{
	bool admin_live;

	cancel_work_sync(&ctrl->err_work);
	cancel_work_sync(&ctrl->reset_work);
	cancel_delayed_work_sync(&ctrl->connect_work);
	cancel_delayed_work_sync(&ctrl->failfast_work);
	nvfab_stop_ctrl(ctrl);
	flush_work(&ctrl->scan_work);

	nvfab_remove_namespaces(ctrl);

	admin_live = ctrl->admin_tagset_live &&
		     !test_bit(NVFAB_CTRL_ADMIN_Q_STOPPED, &ctrl->flags);
	nvfab_teardown_io_queues(ctrl, true);
	if (admin_live)
		nvfab_shutdown_ctrl(ctrl);
	nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING_NOIO);
	nvfab_teardown_admin_queue(ctrl, true);
	nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DEAD);
	dev_info(ctrl->device, "removed controller for NQN \"%s\"\n",
		 ctrl->opts->subsysnqn);
	nvfab_uninit_ctrl(ctrl);
	nvfab_put_ctrl(ctrl);
}

static void nvfab_delete_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       delete_work);

	nvfab_do_delete_ctrl(ctrl);
}

/**
 * nvfab_delete_ctrl() - queue the removal of a controller
 * @ctrl: the controller
 *
 * Context: any context.
 * Return: 0 if the removal was queued, -EBUSY if it already is.
 */
int nvfab_delete_ctrl(struct nvfab_ctrl *ctrl)
{
	if (!nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING))
		return -EBUSY;
	if (!queue_work(nvfab_delete_wq, &ctrl->delete_work))
		return -EBUSY;
	return 0;
}
EXPORT_SYMBOL_NVFAB(nvfab_delete_ctrl);

/**
 * nvfab_delete_ctrl_sync() - remove a controller and wait until it is gone
 * @ctrl: the controller
 *
 * Context: may sleep; not from a work item on nvfab_delete_wq.
 * Return: 0, or -EBUSY if another deletion was already under way.
 */
int nvfab_delete_ctrl_sync(struct nvfab_ctrl *ctrl)
{
	int ret = 0;

	get_device(ctrl->device);
	if (nvfab_change_ctrl_state(ctrl, NVFAB_CTRL_DELETING))
		nvfab_do_delete_ctrl(ctrl);
	else
		ret = -EBUSY;
	put_device(ctrl->device);
	return ret;
}

/* ---- controller init and release ---- */

static void nvfab_free_ctrl(struct device *dev)
{
	struct nvfab_ctrl *ctrl = container_of(dev, struct nvfab_ctrl,
					       ctrl_device);

	nvfab_ana_free(ctrl);
	if (ctrl->admin_q)
		blk_put_queue(ctrl->admin_q);
	nvfab_instance_put(ctrl->instance);
	nvfab_auth_free_keys(ctrl);
	kfree(ctrl->queue_state);
	ctrl->ops->free_ctrl(ctrl);
}

/**
 * nvfab_init_ctrl() - initialise the core part of a new controller
 * @ctrl: zeroed controller embedded in the transport's structure
 * @parent: parent device (the fabrics control device)
 * @ops: the transport's operations
 * @opts: connect options; the controller owns them from now on
 *
 * Creates /dev/nvfabN and its sysfs directory. On success the controller
 * is reference counted; the last nvfab_put_ctrl() calls @ops->free_ctrl.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM, -ENOSPC or a device_add() error, or an error of
 * the DH-HMAC-CHAP secrets in @opts (nvfab_auth_set_keys()); on error
 * nothing is registered and the caller frees @ctrl itself.
 */
int nvfab_init_ctrl(struct nvfab_ctrl *ctrl, struct device *parent,
		    const struct nvfab_ctrl_ops *ops,
		    struct nvfab_ctrl_options *opts)
{
	int ret;

	ctrl->ops = ops;
	ctrl->opts = opts;
	ctrl->state = NVFAB_CTRL_NEW;
	ctrl->numa_node = NUMA_NO_NODE;
	spin_lock_init(&ctrl->lock);
	init_waitqueue_head(&ctrl->state_wq);
	mutex_init(&ctrl->scan_lock);
	mutex_init(&ctrl->quiesce_lock);
	init_rwsem(&ctrl->namespaces_rwsem);
	INIT_LIST_HEAD(&ctrl->namespaces);
	INIT_WORK(&ctrl->scan_work, nvfab_scan_work);
	INIT_WORK(&ctrl->async_event_work, nvfab_async_event_work);
	INIT_WORK(&ctrl->err_work, nvfab_err_work);
	INIT_WORK(&ctrl->reset_work, nvfab_reset_work);
	INIT_WORK(&ctrl->delete_work, nvfab_delete_work);
	INIT_DELAYED_WORK(&ctrl->ka_work, nvfab_keep_alive_work);
	hrtimer_setup(&ctrl->ka_deadline, nvfab_keep_alive_deadline,
		      CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	INIT_WORK(&ctrl->ka_expired_work, nvfab_keep_alive_expired_work);
	INIT_DELAYED_WORK(&ctrl->connect_work, nvfab_connect_work);
	INIT_DELAYED_WORK(&ctrl->failfast_work, nvfab_failfast_work);
	INIT_LIST_HEAD(&ctrl->subsys_entry);
	atomic_set(&ctrl->mp_inflight, 0);
	atomic64_set(&ctrl->reset_count, 0);
	atomic64_set(&ctrl->reconnect_count, 0);
	mutex_init(&ctrl->ana_lock);
	xa_init(&ctrl->ana_groups);
	INIT_WORK(&ctrl->ana_work, nvfab_ana_work);
	mutex_init(&ctrl->auth_lock);

	ctrl->nr_queue_state = opts->nr_io_queues + opts->nr_write_queues +
			       opts->nr_poll_queues + 1;
	/* zeroed: every queue NVFAB_QUEUE_FREE */
	ctrl->queue_state = kcalloc(ctrl->nr_queue_state,
				    sizeof(*ctrl->queue_state), GFP_KERNEL);
	if (!ctrl->queue_state)
		return -ENOMEM;
	ret = nvfab_auth_set_keys(ctrl, opts->dhchap_secret,
				  opts->dhchap_ctrl_secret);
	if (ret)
		goto out_free_bitmap;

	ret = nvfab_instance_get();
	if (ret < 0)
		goto out_free_bitmap;
	ctrl->instance = ret;

	ctrl->device = &ctrl->ctrl_device;
	device_initialize(ctrl->device);
	ctrl->device->devt = MKDEV(MAJOR(nvfab_chr_devt), ctrl->instance);
	ctrl->device->class = &nvfab_class;
	ctrl->device->parent = parent;
	ctrl->device->groups = nvfab_ctrl_attr_groups;
	ctrl->device->release = nvfab_free_ctrl;
	dev_set_drvdata(ctrl->device, ctrl);
	ret = dev_set_name(ctrl->device, "nvfab%d", ctrl->instance);
	if (ret)
		goto out_put_instance;

	cdev_init(&ctrl->cdev, &nvfab_dev_fops);
	ctrl->cdev.owner = ops->module;
	ret = cdev_device_add(&ctrl->cdev, ctrl->device);
	if (ret)
		goto out_free_name;
	return 0;

out_free_name:
	kfree_const(ctrl->device->kobj.name);
	ctrl->device->kobj.name = NULL;
out_put_instance:
	nvfab_instance_put(ctrl->instance);
out_free_bitmap:
	nvfab_auth_free_keys(ctrl);
	kfree(ctrl->queue_state);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_init_ctrl);

/**
 * nvfab_uninit_ctrl() - remove /dev/nvfabN and the sysfs directory
 * @ctrl: the controller
 *
 * Context: may sleep.
 */
void nvfab_uninit_ctrl(struct nvfab_ctrl *ctrl)
{
	nvfab_ana_stop(ctrl);
	nvfab_mpath_leave(ctrl);
	cdev_device_del(&ctrl->cdev, ctrl->device);
}
EXPORT_SYMBOL_NVFAB(nvfab_uninit_ctrl);

/**
 * nvfab_put_ctrl() - drop a controller reference
 * @ctrl: the controller
 *
 * Context: may sleep (the last put frees the controller).
 */
void nvfab_put_ctrl(struct nvfab_ctrl *ctrl)
{
	put_device(ctrl->device);
}
EXPORT_SYMBOL_NVFAB(nvfab_put_ctrl);

static int __init nvfab_core_init(void)
{
	int ret = -ENOMEM;

	nvfab_wq = alloc_workqueue("nvfab-wq", WQ_UNBOUND | WQ_MEM_RECLAIM |
				   WQ_SYSFS, 0);
	if (!nvfab_wq)
		goto out;
	nvfab_reset_wq = alloc_workqueue("nvfab-reset-wq", WQ_UNBOUND |
					 WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!nvfab_reset_wq)
		goto out_destroy_wq;
	nvfab_delete_wq = alloc_workqueue("nvfab-delete-wq", WQ_UNBOUND |
					  WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!nvfab_delete_wq)
		goto out_destroy_reset_wq;

	ret = alloc_chrdev_region(&nvfab_chr_devt, 0, NVFAB_MINORS, "nvfab");
	if (ret)
		goto out_destroy_delete_wq;
	ret = class_register(&nvfab_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n", nvfab_class.name, ret);
		goto out_unregister_chrdev;
	}
	ret = class_register(&nvfab_subsys_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n",
		       nvfab_subsys_class.name, ret);
		goto out_unregister_class;
	}
	ret = nvfab_mpath_init();
	if (ret) {
		pr_err("cannot register the path selectors: %d\n", ret);
		goto out_unregister_subsys_class;
	}
	ret = nvfab_configfs_init();
	if (ret) {
		pr_err("cannot register configfs subsystem nvfab: %d\n", ret);
		goto out_mpath_exit;
	}
	return 0;

out_mpath_exit:
	nvfab_mpath_exit();
out_unregister_subsys_class:
	class_unregister(&nvfab_subsys_class);
out_unregister_class:
	class_unregister(&nvfab_class);
out_unregister_chrdev:
	unregister_chrdev_region(nvfab_chr_devt, NVFAB_MINORS);
out_destroy_delete_wq:
	destroy_workqueue(nvfab_delete_wq);
out_destroy_reset_wq:
	destroy_workqueue(nvfab_reset_wq);
out_destroy_wq:
	destroy_workqueue(nvfab_wq);
out:
	return ret;
}

static void __exit nvfab_core_exit(void)
{
	nvfab_configfs_exit();
	nvfab_mpath_exit();
	class_unregister(&nvfab_subsys_class);
	class_unregister(&nvfab_class);
	unregister_chrdev_region(nvfab_chr_devt, NVFAB_MINORS);
	destroy_workqueue(nvfab_delete_wq);
	destroy_workqueue(nvfab_reset_wq);
	destroy_workqueue(nvfab_wq);
	ida_destroy(&nvfab_instance_ida);
}

module_init(nvfab_core_init);
module_exit(nvfab_core_exit);

MODULE_DESCRIPTION("nvfab NVMe over Fabrics host core");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
