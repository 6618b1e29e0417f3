// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-discovery: asynchronous discovery for nvfab (issue 12).
 *
 * For now the module holds the Discovery Log Page reader and parser
 * (discovery-log.c) and nothing runs when it loads. The discovery
 * controllers, AENs, reconciliation, referrals, configfs and uevents are
 * still to come (Documentation/design.rst, "Discovery").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

static int __init nvfab_discovery_init(void)
{
	return 0;
}

static void __exit nvfab_discovery_exit(void)
{
}

module_init(nvfab_discovery_init);
module_exit(nvfab_discovery_exit);

MODULE_DESCRIPTION("nvfab NVMe over Fabrics discovery (Discovery Log Page parser)");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
