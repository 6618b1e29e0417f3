// SPDX-License-Identifier: GPL-2.0
/*
 * The path selector registry: selectors (ps-builtin.c, nvfab-ps-* modules)
 * register by name; a subsystem's iopolicy looks one up, loading module
 * nvfab-ps-<name> on demand, and holds its module while it uses it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "mpath.h"

static LIST_HEAD(nvfab_ps_list);
static DECLARE_RWSEM(nvfab_ps_rwsem);	/* protects nvfab_ps_list */

static struct nvfab_ps_ops *__nvfab_find_ps(const char *name)
{
	struct nvfab_ps_ops *ops;

	lockdep_assert_held(&nvfab_ps_rwsem);
	list_for_each_entry(ops, &nvfab_ps_list, list) {
		if (sysfs_streq(ops->name, name))
			return ops;
	}
	return NULL;
}

/**
 * nvfab_register_ps() - make a path selector available to iopolicy
 * @ops: the selector; @ops->name, @owner and @select_path are required
 *
 * Context: may sleep.
 * Return: 0, -EINVAL for missing required fields, or -EBUSY if a selector
 * of that name is registered.
 */
int nvfab_register_ps(struct nvfab_ps_ops *ops)
{
	int ret = 0;

	if (!ops->name || !ops->select_path || !ops->name[0])
		return -EINVAL;
	down_write(&nvfab_ps_rwsem);
	if (__nvfab_find_ps(ops->name))
		ret = -EBUSY;
	else
		list_add_tail(&ops->list, &nvfab_ps_list);
	up_write(&nvfab_ps_rwsem);
	if (!ret)
		pr_info("path selector %s registered\n", ops->name);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_register_ps);

/**
 * nvfab_unregister_ps() - withdraw a path selector
 * @ops: a registered selector
 *
 * Subsystems using it hold a reference on its module, so this runs only
 * when none does.
 *
 * Context: may sleep.
 */
void nvfab_unregister_ps(struct nvfab_ps_ops *ops)
{
	down_write(&nvfab_ps_rwsem);
	list_del(&ops->list);
	up_write(&nvfab_ps_rwsem);
}
EXPORT_SYMBOL_NVFAB(nvfab_unregister_ps);

/**
 * nvfab_get_ps_ops() - find a path selector by name
 * @name: the iopolicy name; one trailing newline is ignored
 *
 * Loads module nvfab-ps-<name> when no such selector is registered.
 *
 * Context: may sleep.
 * Return: the selector, with a reference on its module (module_put() it),
 * or NULL for a malformed or unknown name.
 */
struct nvfab_ps_ops *nvfab_get_ps_ops(const char *name)
{
	struct nvfab_ps_ops *ops;
	char mod[48];
	size_t len;
	int i;

	len = strlen(name);
	if (len && name[len - 1] == '\n')
		len--;
	if (!len || len >= 32)
		return NULL;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && name[i] != '-')
			return NULL;

	down_read(&nvfab_ps_rwsem);
	ops = __nvfab_find_ps(name);
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	up_read(&nvfab_ps_rwsem);
	if (ops)
		return ops;

	snprintf(mod, sizeof(mod), "nvfab-ps-%.*s", (int)len, name);
	request_module("%s", mod);
	down_read(&nvfab_ps_rwsem);
	ops = __nvfab_find_ps(name);
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	up_read(&nvfab_ps_rwsem);
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_get_ps_ops);
