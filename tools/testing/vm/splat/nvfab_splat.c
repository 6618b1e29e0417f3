// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab_splat: a harness self-test, never installed. Loading it provokes
 * one real sanitizer report so that the VM harness can show that such a
 * report fails the run:
 *
 *   mode=kasan    a one-byte heap out-of-bounds read (KASAN)
 *   mode=lockdep  an AB-BA mutex order inversion (lockdep)
 *   mode=warn     a WARN()
 *
 * The module then loads normally; the report is in the kernel log.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "kasan";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "which report to provoke: kasan, lockdep or warn");

static DEFINE_MUTEX(splat_a);
static DEFINE_MUTEX(splat_b);

static noinline void splat_kasan(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	char *q = p;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(q);
	pr_info("nvfab_splat: reading one byte past an 8-byte object: %d\n",
		READ_ONCE(q[8]));
	kfree(p);
}

static noinline void splat_lockdep(void)
{
	mutex_lock(&splat_a);
	mutex_lock(&splat_b);
	mutex_unlock(&splat_b);
	mutex_unlock(&splat_a);

	mutex_lock(&splat_b);
	mutex_lock(&splat_a);
	mutex_unlock(&splat_a);
	mutex_unlock(&splat_b);
}

static int __init nvfab_splat_init(void)
{
	if (!strcmp(mode, "kasan"))
		splat_kasan();
	else if (!strcmp(mode, "lockdep"))
		splat_lockdep();
	else if (!strcmp(mode, "warn"))
		WARN(1, "nvfab_splat: deliberate warning\n");
	else
		return -EINVAL;
	return 0;
}

static void __exit nvfab_splat_exit(void)
{
}

module_init(nvfab_splat_init);
module_exit(nvfab_splat_exit);

MODULE_DESCRIPTION("nvfab VM harness self-test: provoke a sanitizer report");
MODULE_LICENSE("GPL");
