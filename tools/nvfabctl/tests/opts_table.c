// SPDX-License-Identifier: GPL-2.0
/*
 * Print the kernel's connect-option grammar (include/uapi/nvfab/fabrics-opts.h),
 * one "KEY KIND MIN MAX" line per key, for tests/opts.sh, which walks it
 * through nvfabctl's command line as KUnit's nvfab_opts_table_test walks
 * it through the kernel's parser.
 */
#include <stdio.h>

#include <uapi/nvfab/fabrics.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const kinds[] = {
	[NVFAB_OPTK_FLAG]	= "flag",
	[NVFAB_OPTK_INT]	= "int",
	[NVFAB_OPTK_STR]	= "str",
	[NVFAB_OPTK_UUID]	= "uuid",
	[NVFAB_OPTK_SECRET]	= "secret",
	[NVFAB_OPTK_SERIAL]	= "serial",
};

static const struct nvfab_opt_rule keys[] = {
#define NVFAB_OPT(k, kd, lo, hi)	{ k, kd, lo, hi },
#include <uapi/nvfab/fabrics-opts.h>
#undef NVFAB_OPT
};

int main(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		printf("%s %s %lld %lld\n", keys[i].key, kinds[keys[i].kind],
		       keys[i].min, keys[i].max);
	return 0;
}
