// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_EXPORT_NS_BARE_TOKEN: EXPORT_SYMBOL_NS_GPL() takes the namespace as
 * a bare token that it stringifies itself. Linux 6.13 (commit cdd30ebb1b9f,
 * "module: Convert symbol namespace to string literal") made it a string
 * literal. The probe captures what the macro passes on: a string here, an
 * undeclared identifier since 6.13.
 */
#include <linux/export.h>
#include <linux/module.h>

#undef __EXPORT_SYMBOL
#define __EXPORT_SYMBOL(sym, license, ns) \
	const char *nvfab_conftest_ns = ns

EXPORT_SYMBOL_NS_GPL(nvfab_conftest_sym, NVFAB_CONFTEST);
MODULE_LICENSE("GPL");
