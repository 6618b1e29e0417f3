// SPDX-License-Identifier: GPL-2.0
/*
 * NVM subsystems (NVMe Base 2.0, 2.4): controllers with one subsystem NQN
 * form one subsystem, nvfab-subsysX, which a controller joins on its first
 * connect and leaves when it is removed; and the subsystem's instance of
 * its path selector (iopolicy), told about every controller's slot.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>
#include "mpath.h"
#include <nvfab/fabrics.h>

/* ---- selector instances of a subsystem ---- */

static char nvfab_default_iopolicy[32] = "numa";
module_param_string(iopolicy, nvfab_default_iopolicy,
		    sizeof(nvfab_default_iopolicy), 0644);
MODULE_PARM_DESC(iopolicy,
		 "path selector of new subsystems (numa, round-robin, queue-depth, service-time, ...)");

static void nvfab_ps_free(struct nvfab_ps *ps)
{
	if (ps->ops->destroy)
		ps->ops->destroy(ps);
	module_put(ps->ops->owner);
	kfree(ps->path_ctx);
	kfree(ps->ctx);
	kfree(ps);
}

/* A selector instance for @subsys, told about every controller in it. */
static struct nvfab_ps *nvfab_ps_create(struct nvfab_subsys *subsys,
					struct nvfab_ps_ops *ops)
{
	struct nvfab_ps *ps;
	unsigned int slot;
	int ret = -ENOMEM;

	lockdep_assert_held(&subsys->lock);
	ps = kzalloc(sizeof(*ps), GFP_KERNEL);
	if (!ps)
		goto out_put;
	ps->ops = ops;
	ps->dev = &subsys->dev;
	if (ops->ctx_size) {
		ps->ctx = kzalloc(ops->ctx_size, GFP_KERNEL);
		if (!ps->ctx)
			goto out_free;
	}
	if (ops->path_ctx_size) {
		ps->path_ctx = kcalloc(NVFAB_MAX_PATHS, ops->path_ctx_size,
				       GFP_KERNEL);
		if (!ps->path_ctx)
			goto out_free;
	}
	if (ops->create) {
		ret = ops->create(ps);
		if (ret)
			goto out_free;
	}
	if (ops->add_path)
		for_each_set_bit(slot, subsys->slots, NVFAB_MAX_PATHS)
			ops->add_path(ps, slot);
	return ps;

out_free:
	kfree(ps->path_ctx);
	kfree(ps->ctx);
	kfree(ps);
out_put:
	module_put(ops->owner);
	return ERR_PTR(ret);
}

/**
 * nvfab_set_ps() - switch a subsystem to another path selector
 * @subsys: the subsystem
 * @name: the selector (iopolicy); one trailing newline is ignored
 *
 * Switch @subsys to selector @name. The knobs of the old selector go first,
 * so that their show/store (which may run until sysfs removes them) only
 * ever see the instance that owns them.
 *
 * Context: may sleep (an SRCU grace period); takes subsys->lock, after
 * loading the selector's module.
 * Return: 0, -EINVAL for an unknown selector, or another negative errno.
 */
int nvfab_set_ps(struct nvfab_subsys *subsys, const char *name)
{
	struct nvfab_ps *old, *new;
	struct nvfab_ps_ops *ops;
	int ret;

	ops = nvfab_get_ps_ops(name);
	if (!ops)
		return -EINVAL;
	mutex_lock(&subsys->lock);
	new = nvfab_ps_create(subsys, ops);
	if (IS_ERR(new)) {
		mutex_unlock(&subsys->lock);
		return PTR_ERR(new);
	}
	old = rcu_dereference_protected(subsys->ps,
					lockdep_is_held(&subsys->lock));
	if (old && old->ops->attr_group && device_is_registered(&subsys->dev))
		sysfs_remove_group(&subsys->dev.kobj, old->ops->attr_group);
	rcu_assign_pointer(subsys->ps, new);
	synchronize_srcu(&subsys->srcu);
	if (old)
		nvfab_ps_free(old);
	if (ops->attr_group && device_is_registered(&subsys->dev)) {
		ret = sysfs_create_group(&subsys->dev.kobj, ops->attr_group);
		if (ret)
			dev_warn(&subsys->dev, "%s knobs not in sysfs: %d\n",
				 ops->name, ret);
	}
	mutex_unlock(&subsys->lock);
	dev_info(&subsys->dev, "iopolicy %s\n", ops->name);
	return 0;
}

/**
 * nvfab_ps_get() - the selector instance behind a subsystem's knobs
 * @subsys_dev: the subsystem device (the kobject of the knob's group)
 *
 * Valid until the matching nvfab_ps_put(), which must come before the
 * show/store that called this returns: switching iopolicy removes the
 * knobs (waiting for running show/store) before it frees the instance.
 *
 * Context: sysfs show/store of a selector's attr_group.
 * Return: the instance.
 */
struct nvfab_ps *nvfab_ps_get(struct device *subsys_dev)
{
	struct nvfab_subsys *subsys = container_of(subsys_dev,
						   struct nvfab_subsys, dev);

	return rcu_dereference_raw(subsys->ps);
}
EXPORT_SYMBOL_NVFAB(nvfab_ps_get);

/**
 * nvfab_ps_put() - end of use of nvfab_ps_get()'s result
 * @subsys_dev: the subsystem device
 * @ps: what nvfab_ps_get() returned
 *
 * Context: as nvfab_ps_get().
 */
void nvfab_ps_put(struct device *subsys_dev, struct nvfab_ps *ps)
{
}
EXPORT_SYMBOL_NVFAB(nvfab_ps_put);

/* ---- subsystems ---- */

static LIST_HEAD(nvfab_subsystems);
static DEFINE_MUTEX(nvfab_subsys_lock);	/* protects nvfab_subsystems */
static DEFINE_IDA(nvfab_subsys_ida);

static void nvfab_subsys_release(struct device *dev)
{
	struct nvfab_subsys *subsys = to_subsys(dev);
	struct nvfab_ps *ps = rcu_dereference_protected(subsys->ps, 1);

	if (ps)
		nvfab_ps_free(ps);
	cleanup_srcu_struct(&subsys->srcu);
	ida_destroy(&subsys->head_ida);
	ida_free(&nvfab_subsys_ida, subsys->instance);
	kfree(subsys);
}

/* A new subsystem for @ctrl's SUBNQN, with the configured or default policy. */
static struct nvfab_subsys *nvfab_alloc_subsys(struct nvfab_ctrl *ctrl)
{
	struct nvfab_subsys_cfg cfg = { };
	struct nvfab_subsys *subsys;
	const char *policy;
	int ret;

	subsys = kzalloc(sizeof(*subsys), GFP_KERNEL);
	if (!subsys)
		return ERR_PTR(-ENOMEM);
	ret = ida_alloc(&nvfab_subsys_ida, GFP_KERNEL);
	if (ret < 0) {
		kfree(subsys);
		return ERR_PTR(ret);
	}
	subsys->instance = ret;
	ret = init_srcu_struct(&subsys->srcu);
	if (ret) {
		ida_free(&nvfab_subsys_ida, subsys->instance);
		kfree(subsys);
		return ERR_PTR(ret);
	}
	mutex_init(&subsys->lock);
	INIT_LIST_HEAD(&subsys->entry);
	INIT_LIST_HEAD(&subsys->ctrls);
	INIT_LIST_HEAD(&subsys->heads);
	ida_init(&subsys->head_ida);
	/* the controller's copies are trimmed of trailing spaces already */
	strscpy(subsys->subnqn, ctrl->subsysnqn, sizeof(subsys->subnqn));
	subsys->vid = ctrl->vid;
	memcpy(subsys->serial, ctrl->serial, sizeof(subsys->serial));
	memcpy(subsys->model, ctrl->model, sizeof(subsys->model));
	memcpy(subsys->firmware_rev, ctrl->firmware_rev,
	       sizeof(subsys->firmware_rev));

	device_initialize(&subsys->dev);
	subsys->dev.class = &nvfab_subsys_class;
	subsys->dev.release = nvfab_subsys_release;
	subsys->dev.groups = nvfab_subsys_groups;
	ret = dev_set_name(&subsys->dev, "nvfab-subsys%d", subsys->instance);
	if (ret)
		goto out_put;

	policy = nvfab_default_iopolicy;
	if (nvfab_configfs_subsys_cfg(subsys->subnqn, &cfg)) {
		subsys->no_path_tmo = cfg.no_path_tmo;
		if (cfg.iopolicy[0])
			policy = cfg.iopolicy;
	}
	ret = nvfab_set_ps(subsys, policy);
	if (ret && policy != nvfab_default_iopolicy) {
		dev_warn(ctrl->device, "iopolicy '%s' from configfs is not available, using '%s'\n",
			 policy, nvfab_default_iopolicy);
		ret = nvfab_set_ps(subsys, nvfab_default_iopolicy);
	}
	if (ret) {
		dev_warn(ctrl->device, "default iopolicy '%s' is not available, using numa\n",
			 nvfab_default_iopolicy);
		ret = nvfab_set_ps(subsys, "numa");
	}
	if (ret)
		goto out_put;
	return subsys;

out_put:
	put_device(&subsys->dev);
	return ERR_PTR(ret);
}

/*
 * Drop a reference to @subsys; when it has no controller left it leaves the
 * list and sysfs (open head disks may keep the memory a while).
 */
static void nvfab_subsys_drop(struct nvfab_subsys *subsys)
{
	struct nvfab_ps *ps;
	bool empty;

	mutex_lock(&nvfab_subsys_lock);
	mutex_lock(&subsys->lock);
	empty = list_empty(&subsys->ctrls) && !list_empty(&subsys->entry);
	if (empty)
		list_del_init(&subsys->entry);
	mutex_unlock(&subsys->lock);
	mutex_unlock(&nvfab_subsys_lock);

	if (empty) {
		mutex_lock(&subsys->lock);
		ps = rcu_dereference_protected(subsys->ps,
					       lockdep_is_held(&subsys->lock));
		if (ps && ps->ops->attr_group)
			sysfs_remove_group(&subsys->dev.kobj,
					   ps->ops->attr_group);
		mutex_unlock(&subsys->lock);
		device_del(&subsys->dev);
	}
	put_device(&subsys->dev);
}

/**
 * nvfab_mpath_join() - put a controller into its subsystem
 * @ctrl: a controller whose Identify data is read (first connect)
 *
 * Finds or creates the subsystem of ctrl->subsysnqn and gives the
 * controller a slot. A controller that is already in one stays (its
 * SUBNQN was checked against the connect NQN on every connect).
 * Discovery controllers have no subsystem.
 *
 * Context: may sleep; takes nvfab_subsys_lock and subsys->lock.
 * Return: 0, -ENOSPC when the subsystem has NVFAB_MAX_PATHS controllers,
 * or another negative errno.
 */
int nvfab_mpath_join(struct nvfab_ctrl *ctrl)
{
	struct nvfab_subsys *subsys = NULL, *s;
	struct nvfab_ps *ps;
	unsigned int slot;
	int ret;

	if (ctrl->subsys || ctrl->opts->discovery_nqn)
		return 0;

	mutex_lock(&nvfab_subsys_lock);
	list_for_each_entry(s, &nvfab_subsystems, entry) {
		if (!strcmp(s->subnqn, ctrl->subsysnqn)) {
			get_device(&s->dev);
			subsys = s;
			break;
		}
	}
	if (!subsys) {
		subsys = nvfab_alloc_subsys(ctrl);
		if (IS_ERR(subsys)) {
			mutex_unlock(&nvfab_subsys_lock);
			return PTR_ERR(subsys);
		}
		ret = device_add(&subsys->dev);
		if (ret) {
			mutex_unlock(&nvfab_subsys_lock);
			put_device(&subsys->dev);
			return ret;
		}
		ps = rcu_dereference_protected(subsys->ps, 1);
		if (ps->ops->attr_group &&
		    sysfs_create_group(&subsys->dev.kobj, ps->ops->attr_group))
			dev_warn(&subsys->dev, "%s knobs not in sysfs\n",
				 ps->ops->name);
		/* in the list while it has controllers, which hold references */
		list_add_tail(&subsys->entry, &nvfab_subsystems);
	}
	mutex_unlock(&nvfab_subsys_lock);

	mutex_lock(&subsys->lock);
	slot = find_first_zero_bit(subsys->slots, NVFAB_MAX_PATHS);
	if (slot >= NVFAB_MAX_PATHS) {
		mutex_unlock(&subsys->lock);
		dev_err(ctrl->device, "subsystem %s has %d controllers already\n",
			dev_name(&subsys->dev), NVFAB_MAX_PATHS);
		ret = -ENOSPC;
		goto out_put;
	}
	set_bit(slot, subsys->slots);
	ctrl->slot = slot;
	ctrl->subsys = subsys;
	list_add_tail(&ctrl->subsys_entry, &subsys->ctrls);
	ps = rcu_dereference_protected(subsys->ps,
				       lockdep_is_held(&subsys->lock));
	if (ps->ops->add_path)
		ps->ops->add_path(ps, slot);
	mutex_unlock(&subsys->lock);

	ret = sysfs_create_link(&subsys->dev.kobj, &ctrl->device->kobj,
				dev_name(ctrl->device));
	if (ret)
		dev_warn(ctrl->device, "no link in %s: %d\n",
			 dev_name(&subsys->dev), ret);
	return 0;

out_put:
	nvfab_subsys_drop(subsys);
	return ret;
}

/**
 * nvfab_mpath_leave() - take a controller out of its subsystem
 * @ctrl: a controller being freed, whose namespaces are all removed
 *
 * Context: may sleep; takes nvfab_subsys_lock and subsys->lock.
 */
void nvfab_mpath_leave(struct nvfab_ctrl *ctrl)
{
	struct nvfab_subsys *subsys = ctrl->subsys;
	struct nvfab_ps *ps;

	if (!subsys)
		return;
	sysfs_remove_link(&subsys->dev.kobj, dev_name(ctrl->device));
	mutex_lock(&subsys->lock);
	list_del(&ctrl->subsys_entry);
	ps = rcu_dereference_protected(subsys->ps,
				       lockdep_is_held(&subsys->lock));
	if (ps->ops->remove_path)
		ps->ops->remove_path(ps, ctrl->slot);
	clear_bit(ctrl->slot, subsys->slots);
	mutex_unlock(&subsys->lock);
	ctrl->subsys = NULL;
	nvfab_subsys_drop(subsys);
}

/**
 * nvfab_mpath_init() - register the built-in path selectors
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int nvfab_mpath_init(void)
{
	return nvfab_ps_builtin_init();
}

/**
 * nvfab_mpath_exit() - unregister the built-in path selectors
 *
 * Context: module exit; every controller is gone.
 */
void nvfab_mpath_exit(void)
{
	nvfab_ps_builtin_exit();
	ida_destroy(&nvfab_subsys_ida);
}
