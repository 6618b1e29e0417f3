/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API compatibility for nvfab. Every shim lives here, keyed on the
 * HAVE_* macros that scripts/conftest.sh writes into <nvfab/conftest.h>
 * after compiling probes against the target kernel. No .c file tests
 * kernel versions.
 */
#ifndef _NVFAB_COMPAT_H
#define _NVFAB_COMPAT_H

#include <linux/export.h>
#include <linux/module.h>

#include <nvfab/conftest.h>

/*
 * Symbol namespaces. Until 6.13 the namespace argument was a bare token
 * that the macros stringified; since 6.13 it is a string literal.
 */
#ifdef HAVE_EXPORT_NS_BARE_TOKEN
#define EXPORT_SYMBOL_NVFAB(sym)	EXPORT_SYMBOL_NS_GPL(sym, NVFAB)
#define NVFAB_IMPORT()		MODULE_IMPORT_NS(NVFAB)
#define NVFAB_IMPORT_KUNIT()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_NVFAB(sym)	EXPORT_SYMBOL_NS_GPL(sym, "NVFAB")
#define NVFAB_IMPORT()		MODULE_IMPORT_NS("NVFAB")
#define NVFAB_IMPORT_KUNIT()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

#endif /* _NVFAB_COMPAT_H */
