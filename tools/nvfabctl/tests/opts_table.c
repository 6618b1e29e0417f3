// SPDX-License-Identifier: GPL-2.0
/*
 * Print the kernel's connect-option grammar (include/uapi/nvfab/fabrics.h),
 * one "KEY KIND MIN MAX" line per key, for tests/opts.sh, which walks it
 * through nvfabctl's command line as KUnit's nvfab_opts_table_test walks
 * it through the kernel's parser.
 */
#include <stdio.h>

#include <uapi/nvfab/fabrics.h>

static const char * const kinds[] = {
	[NVFAB_OPTK_FLAG]	= "flag",
	[NVFAB_OPTK_INT]	= "int",
	[NVFAB_OPTK_STR]	= "str",
	[NVFAB_OPTK_UUID]	= "uuid",
	[NVFAB_OPTK_SECRET]	= "secret",
	[NVFAB_OPTK_SERIAL]	= "serial",
};

#define PRINT_KEY(k, kd, lo, hi) \
	printf("%s %s %lld %lld\n", k, kinds[kd], (long long)(lo), \
	       (long long)(hi));

int main(void)
{
	NVFAB_OPTS_TABLE(PRINT_KEY)
	return 0;
}
