// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab core: device classes, controller instance numbers and the
 * workqueues shared by the nvfab modules.
 *
 * Workqueue ordering rules (the one place they are written down):
 *  - nvfab_wq carries short work: namespace scan, AEN handling, keep-alive.
 *  - nvfab_reset_wq carries controller reset and reconnect work. Reset work
 *    may flush work on nvfab_wq.
 *  - nvfab_delete_wq carries controller deletion. Delete work may flush
 *    reset work and nvfab_wq work, never the other way around.
 * All three are WQ_MEM_RECLAIM: they make forward progress for I/O that may
 * be writing back memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/module.h>

#include "compat.h"
#include <nvfab/core.h>

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

/* One device per NVM subsystem, named nvfab-subsysN. */
const struct class nvfab_subsys_class = {
	.name = "nvfab-subsystem",
};
EXPORT_SYMBOL_NVFAB(nvfab_subsys_class);

static DEFINE_IDA(nvfab_instance_ida);

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
	return ida_alloc(&nvfab_instance_ida, GFP_KERNEL);
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

	ret = class_register(&nvfab_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n", nvfab_class.name, ret);
		goto out_destroy_delete_wq;
	}
	ret = class_register(&nvfab_subsys_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n",
		       nvfab_subsys_class.name, ret);
		goto out_unregister_class;
	}
	return 0;

out_unregister_class:
	class_unregister(&nvfab_class);
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
	class_unregister(&nvfab_subsys_class);
	class_unregister(&nvfab_class);
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
