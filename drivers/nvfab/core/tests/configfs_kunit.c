// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the parsers behind /sys/kernel/config/nvfab: what a user
 * may write to iopolicy and no_path_tmo, and which directory names
 * subsystems/ accepts as an NQN. Well-formed input, every boundary, and the
 * garbage a shell or a script produces.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>

/* --- iopolicy ----------------------------------------------------------- */

struct iopolicy_case {
	const char *desc;
	const char *in;
	int ret;
	const char *name;	/* expected name when ret is 0 */
	size_t len;		/* bytes of in, if it holds a NUL */
};

static const struct iopolicy_case iopolicy_cases[] = {
	{ "round-robin", "round-robin", 0, "round-robin" },
	{ "echo adds a newline", "service-time\n", 0, "service-time" },
	{ "digits and dashes", "q2-0", 0, "q2-0" },
	{ "one character", "a", 0, "a" },
	{ "a lone dash", "-", 0, "-" },
	{ "31 characters", "abcdefghijklmnopqrstuvwxyz01234", 0,
	  "abcdefghijklmnopqrstuvwxyz01234" },
	{ "31 characters and a newline",
	  "abcdefghijklmnopqrstuvwxyz01234\n", 0,
	  "abcdefghijklmnopqrstuvwxyz01234" },
	{ "32 characters", "abcdefghijklmnopqrstuvwxyz012345", -EINVAL },
	{ "empty", "", -EINVAL },
	{ "only a newline", "\n", -EINVAL },
	{ "two newlines", "rr\n\n", -EINVAL },
	{ "CR LF", "rr\r\n", -EINVAL },
	{ "upper case", "Round-robin", -EINVAL },
	{ "underscore", "round_robin", -EINVAL },
	{ "inner space", "round robin", -EINVAL },
	{ "leading space", " rr", -EINVAL },
	{ "trailing tab", "rr\t", -EINVAL },
	{ "embedded NUL", "rr\0x", -EINVAL, .len = 4 },
	{ "Latin-1 lower case letter", "qd\xe9", -EINVAL },
	{ "path", "../rr", -EINVAL },
	{ "format directive", "rr%s", -EINVAL },
};

static void iopolicy_case_desc(const struct iopolicy_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(iopolicy, iopolicy_cases, iopolicy_case_desc);

static void nvfab_cfg_iopolicy_test(struct kunit *test)
{
	const struct iopolicy_case *c = test->param_value;
	size_t len = c->len ? c->len : strlen(c->in);
	char name[NVFAB_IOPOLICY_NAME_MAX + 1];
	char *buf;
	int ret;

	/* Exactly len bytes and no NUL: KASAN sees a read past the end. */
	buf = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, c->in, len);
	memset(name, 'Z', sizeof(name));

	ret = nvfab_cfg_parse_iopolicy(buf, len, name);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret) {
		KUNIT_EXPECT_EQ(test, name[0], 'Z');
		return;
	}
	KUNIT_EXPECT_STREQ(test, name, c->name);
}

/* --- no_path_tmo -------------------------------------------------------- */

struct tmo_case {
	const char *desc;
	const char *in;
	int ret;
	int secs;		/* expected when ret is 0; 0 = auto */
	size_t len;		/* bytes of in, if it holds a NUL */
};

static const struct tmo_case tmo_cases[] = {
	{ "auto", "auto", 0, 0 },
	{ "auto and a newline", "auto\n", 0, 0 },
	{ "lowest, 1", "1", 0, 1 },
	{ "highest, 3600", "3600", 0, 3600 },
	{ "3600 and a newline", "3600\n", 0, 3600 },
	{ "leading zeros are decimal", "010", 0, 10 },
	{ "plus sign", "+60", 0, 60 },
	{ "0 is not auto", "0", -EINVAL },
	{ "3601", "3601", -EINVAL },
	{ "negative", "-1", -EINVAL },
	{ "INT_MIN", "-2147483648", -EINVAL },
	{ "overflows int", "2147483648", -EINVAL },
	{ "overflows u32 to 1", "4294967297", -EINVAL },
	{ "twenty digits", "99999999999999999999", -EINVAL },
	{ "hex", "0x10", -EINVAL },
	{ "unit suffix", "10s", -EINVAL },
	{ "leading space", " 10", -EINVAL },
	{ "inner space", "1 0", -EINVAL },
	{ "two newlines", "10\n\n", -EINVAL },
	{ "embedded NUL", "10\0x", -EINVAL, .len = 4 },
	{ "empty", "", -EINVAL },
	{ "only a newline", "\n", -EINVAL },
	{ "AUTO", "AUTO", -EINVAL },
	{ "autox", "autox", -EINVAL },
	{ "off", "off", -EINVAL },
};

static void tmo_case_desc(const struct tmo_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tmo, tmo_cases, tmo_case_desc);

static void nvfab_cfg_tmo_test(struct kunit *test)
{
	const struct tmo_case *c = test->param_value;
	size_t len = c->len ? c->len : strlen(c->in);
	int secs = -7;
	char *buf;
	int ret;

	/* configfs hands the store a NUL after the bytes written. */
	buf = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, c->in, len);

	ret = nvfab_cfg_parse_no_path_tmo(buf, len, &secs);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, secs, ret ? -7 : c->secs);
}

/* --- NQN directory names ------------------------------------------------ */

struct nqn_case {
	const char *desc;
	const char *name;
	size_t pad;		/* if set: name, then 'a' up to pad bytes */
	int ret;
	const char *why;	/* part of the reason when ret is not 0 */
};

static const struct nqn_case nqn_cases[] = {
	{ "UUID form", "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6" },
	{ "discovery NQN", NVME_DISC_SUBSYS_NAME },
	{ "domain form", "nqn.2014-08.org.example:s1" },
	{ "shortest, nqn.x", "nqn.x" },
	{ "visible ASCII edges", "nqn.!~" },
	{ "223 bytes", "nqn.", 223 },
	{ "224 bytes", "nqn.", 224, -EINVAL, "longer than 223" },
	{ "255 bytes", "nqn.", 255, -EINVAL, "longer than 223" },
	{ "empty", "", 0, -EINVAL, "empty" },
	{ "only the prefix", "nqn.", 0, -EINVAL, "nothing after" },
	{ "upper-case prefix", "NQN.2014-08.org.example:s1", 0, -EINVAL,
	  "start with" },
	{ "no prefix", "testnqn", 0, -EINVAL, "start with" },
	{ "prefix without its dot", "nqn-2014", 0, -EINVAL, "start with" },
	{ "space", "nqn.2014-08.org.example: s1", 0, -EINVAL, "space" },
	{ "tab", "nqn.2014-08.org.example:\ts1", 0, -EINVAL, "control" },
	{ "DEL", "nqn.x\x7f", 0, -EINVAL, "control" },
	{ "UTF-8", "nqn.2014-08.org.example:\xc3\xa9", 0, -EINVAL,
	  "non-ASCII" },
	{ "slash", "nqn.a/b", 0, -EINVAL, "'/'" },
};

static void nqn_case_desc(const struct nqn_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nqn, nqn_cases, nqn_case_desc);

static void nvfab_cfg_nqn_test(struct kunit *test)
{
	const struct nqn_case *c = test->param_value;
	const char *name = c->name;
	const char *why = NULL;
	int ret;

	if (c->pad) {
		size_t n = strlen(c->name);
		char *buf = kunit_kzalloc(test, c->pad + 1, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, c->name, n);
		memset(buf + n, 'a', c->pad - n);
		KUNIT_ASSERT_EQ(test, strlen(buf), c->pad);
		name = buf;
	}

	ret = nvfab_cfg_check_nqn(name, &why);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (!ret) {
		KUNIT_EXPECT_NULL(test, why);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, c->why),
				  "reason '%s' lacks '%s'", why, c->why);
}

static struct kunit_case nvfab_configfs_cases[] = {
	KUNIT_CASE_PARAM(nvfab_cfg_iopolicy_test, iopolicy_gen_params),
	KUNIT_CASE_PARAM(nvfab_cfg_tmo_test, tmo_gen_params),
	KUNIT_CASE_PARAM(nvfab_cfg_nqn_test, nqn_gen_params),
	{}
};

static struct kunit_suite nvfab_configfs_suite = {
	.name = "nvfab_configfs",
	.test_cases = nvfab_configfs_cases,
};

kunit_test_suite(nvfab_configfs_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's configfs parsers");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
