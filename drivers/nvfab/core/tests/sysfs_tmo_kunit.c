// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the controller timeout attributes in sysfs:
 * ctrl_loss_tmo and fast_io_fail_tmo (nvfab_parse_tmo()), reconnect_delay
 * (nvfab_parse_reconnect_delay()), and the reconnect count derived from
 * them (nvfab_max_reconnects()). Inputs are what a shell can write: valid
 * values, boundaries, signs, bases, overflow, stray characters.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../nvfab.h"
#include <nvfab/fabrics.h>

/* Left in the output by a rejected write. */
#define UNTOUCHED	12345

struct tmo_case {
	const char *desc;
	const char *buf;
	int ret;
	int val;
};

static const struct tmo_case tmo_cases[] = {
	{ "zero", "0", 0, 0 },
	{ "one", "1", 0, 1 },
	{ "echo adds a newline", "600\n", 0, 600 },
	{ "off", "off", 0, -1 },
	{ "off and newline", "off\n", 0, -1 },
	{ "-1 is off", "-1", 0, -1 },
	{ "any negative is off", "-5", 0, -1 },
	{ "INT_MIN is off", "-2147483648", 0, -1 },
	{ "minus zero", "-0", 0, 0 },
	{ "plus sign", "+7", 0, 7 },
	{ "hex", "0x10", 0, 16 },
	{ "octal", "010", 0, 8 },
	{ "365 days, the limit", "31536000", 0, NVFAB_MAX_TMO },
	{ "one past the limit", "31536001", -ERANGE },
	{ "INT_MAX is refused, not capped", "2147483647", -ERANGE },
	{ "INT_MAX + 1", "2147483648", -EINVAL },
	{ "below INT_MIN", "-2147483649", -EINVAL },
	{ "UINT_MAX", "4294967295", -EINVAL },
	{ "20 digits", "99999999999999999999", -EINVAL },
	{ "empty", "", -EINVAL },
	{ "newline only", "\n", -EINVAL },
	{ "unit suffix", "10s", -EINVAL },
	{ "trailing space", "10 ", -EINVAL },
	{ "leading space", " 10", -EINVAL },
	{ "two newlines", "10\n\n", -EINVAL },
	{ "off, two newlines", "off\n\n", -EINVAL },
	{ "OFF in capitals", "OFF", -EINVAL },
	{ "off cut short", "of", -EINVAL },
	{ "minus off", "-off", -EINVAL },
	{ "fraction", "1.5", -EINVAL },
	{ "bare 0x", "0x", -EINVAL },
	{ "bad octal digit", "08", -EINVAL },
	{ "two signs", "--1", -EINVAL },
};

static void tmo_case_desc(const struct tmo_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tmo, tmo_cases, tmo_case_desc);

static void nvfab_parse_tmo_test(struct kunit *test)
{
	const struct tmo_case *c = test->param_value;
	int val = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, nvfab_parse_tmo(c->buf, &val), c->ret);
	KUNIT_EXPECT_EQ(test, val, c->ret ? UNTOUCHED : c->val);
}

struct delay_case {
	const char *desc;
	const char *buf;
	int ret;
	unsigned int val;
};

static const struct delay_case delay_cases[] = {
	{ "one second", "1", 0, 1 },
	{ "echo adds a newline", "10\n", 0, 10 },
	{ "plus sign", "+3", 0, 3 },
	{ "hex", "0x3c", 0, 60 },
	{ "a day, the limit", "86400", 0, NVFAB_MAX_RECONNECT_DELAY },
	{ "a day and a second", "86401", -ERANGE },
	{ "INT_MAX + 1 is refused, not capped", "2147483648", -ERANGE },
	{ "UINT_MAX", "4294967295", -ERANGE },
	{ "UINT_MAX + 1", "4294967296", -EINVAL },
	{ "20 digits", "99999999999999999999", -EINVAL },
	{ "zero", "0", -EINVAL },
	{ "zero and newline", "0\n", -EINVAL },
	{ "hex zero", "0x0", -EINVAL },
	{ "negative", "-1", -EINVAL },
	{ "minus zero", "-0", -EINVAL },
	{ "off is not a delay", "off", -EINVAL },
	{ "empty", "", -EINVAL },
	{ "newline only", "\n", -EINVAL },
	{ "unit suffix", "5s", -EINVAL },
	{ "leading space", " 5", -EINVAL },
	{ "trailing space", "5 ", -EINVAL },
};

static void delay_case_desc(const struct delay_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(delay, delay_cases, delay_case_desc);

static void nvfab_parse_reconnect_delay_test(struct kunit *test)
{
	const struct delay_case *c = test->param_value;
	unsigned int val = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, nvfab_parse_reconnect_delay(c->buf, &val),
			c->ret);
	KUNIT_EXPECT_EQ(test, val, c->ret ? UNTOUCHED : c->val);
}

struct max_case {
	const char *desc;
	int ctrl_loss_tmo;
	unsigned int reconnect_delay;
	int max;
};

static const struct max_case max_cases[] = {
	{ "defaults: 600 s every 10 s", 600, 10, 60 },
	{ "rounds up", 601, 10, 61 },
	{ "shorter than one delay", 9, 10, 1 },
	{ "zero: no reconnect", 0, 10, 0 },
	{ "off", -1, 10, -1 },
	{ "INT_MIN is off", INT_MIN, 1, -1 },
	{ "one every second", 5, 1, 5 },
	{ "INT_MAX every second", INT_MAX, 1, INT_MAX },
	{ "INT_MAX every 2 s", INT_MAX, 2, 1 << 30 },
	{ "delay above INT_MAX", 5, 0x80000000U, 1 },
	{ "delay UINT_MAX, no wrap", 5, UINT_MAX, 1 },
	{ "INT_MAX, delay UINT_MAX", INT_MAX, UINT_MAX, 1 },
};

static void max_case_desc(const struct max_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(max, max_cases, max_case_desc);

static void nvfab_max_reconnects_test(struct kunit *test)
{
	const struct max_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_max_reconnects(c->ctrl_loss_tmo,
						   c->reconnect_delay),
			c->max);
}

static struct kunit_case nvfab_sysfs_tmo_cases[] = {
	KUNIT_CASE_PARAM(nvfab_parse_tmo_test, tmo_gen_params),
	KUNIT_CASE_PARAM(nvfab_parse_reconnect_delay_test, delay_gen_params),
	KUNIT_CASE_PARAM(nvfab_max_reconnects_test, max_gen_params),
	{}
};

static struct kunit_suite nvfab_sysfs_tmo_suite = {
	.name = "nvfab_sysfs_tmo",
	.test_cases = nvfab_sysfs_tmo_cases,
};

kunit_test_suite(nvfab_sysfs_tmo_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's sysfs timeout attributes");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
