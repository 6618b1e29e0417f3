// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_EXPORT_NS_BARE_TOKEN: MODULE_IMPORT_NS() and EXPORT_SYMBOL_NS_GPL()
 * take the namespace as a bare token that they stringify themselves.
 * Linux 6.13 (commit cdd30ebb1b9f, "module: Convert symbol namespace to
 * string literal") made it a string literal. The probe looks at what
 * MODULE_IMPORT_NS() turns a bare token into: a string before 6.13, an
 * undeclared identifier since.
 */
#include <linux/module.h>

static const char nvfab_conftest_ns[] __maybe_unused =
	__stringify(NVFAB_CONFTEST);

#undef MODULE_INFO
#define MODULE_INFO(tag, info) \
	static const char nvfab_conftest_##tag[] __maybe_unused = info

MODULE_IMPORT_NS(NVFAB_CONFTEST);
MODULE_LICENSE("GPL");
