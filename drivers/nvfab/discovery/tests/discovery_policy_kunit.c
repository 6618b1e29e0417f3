// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for nvfab-discovery's policy and configfs values: the
 * connect backoff, which connects wait the jitter, the connect=match
 * patterns, the string settings of a discovery entry and entry names.
 * Every configfs input is what a user may write to
 * /sys/kernel/config/nvfab/discovery/<name>/, so every row that must be
 * refused is refused with -EINVAL and nothing stored.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../discovery-priv.h"

/* ---- backoff: 2 s, doubling, capped by retry_max_s (default 300) ---- */

static void disc_backoff_test(struct kunit *test)
{
	static const struct { unsigned int in, out; } rows[] = {
		{ 0, 2 }, { 2, 4 }, { 4, 8 }, { 8, 16 }, { 128, 256 },
		{ 256, 300 }, { 300, 300 }, { UINT_MAX, 300 },
		{ UINT_MAX / 2 + 1, 300 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		KUNIT_EXPECT_EQ_MSG(test, nvfab_disc_next_backoff(rows[i].in),
				    rows[i].out, "after %u s", rows[i].in);
}

/* ---- which connects wait the jitter ---- */

static void disc_herd_test(struct kunit *test)
{
	static const struct {
		bool live;
		unsigned int fresh, max_inflight;
		bool herd;
	} rows[] = {
		{ false, 0, 8, false },		/* nothing new */
		{ true, 0, 8, false },
		{ false, 1, 8, false },		/* an AEN: one subsystem */
		{ false, 8, 8, false },		/* as many as the slots */
		{ false, 9, 8, true },		/* more than the slots */
		{ false, 200, 8, true },
		{ true, 1, 8, true },		/* first read after live */
		{ true, 1, 256, true },
		{ false, 1, 1, false },
		{ false, 2, 1, true },
		{ false, UINT_MAX, 256, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		KUNIT_EXPECT_EQ_MSG(test, nvfab_disc_herd(rows[i].live,
							  rows[i].fresh,
							  rows[i].max_inflight),
				    rows[i].herd, "live %d, %u new, %u slots",
				    rows[i].live, rows[i].fresh,
				    rows[i].max_inflight);
}

/* ---- match lists and connect policy ---- */

struct match_case {
	const char *list;
	int err;		/* from nvfab_disc_parse_match() */
	unsigned int nr;	/* patterns parsed */
	const char *yes;	/* an NQN it must take, or NULL */
	const char *no;		/* an NQN it must not take, or NULL */
};

static const struct match_case match_cases[] = {
	{ "", 0, 0, NULL, "nqn.2014-08.org.example:a" },
	{ "\n", 0, 0, NULL, "nqn.2014-08.org.example:a" },
	{ "nqn.2014-08.org.example:a", 0, 1,
	  "nqn.2014-08.org.example:a", "nqn.2014-08.org.example:ab" },
	{ "nqn.2014-08.org.example:*\n", 0, 1,
	  "nqn.2014-08.org.example:db1", "nqn.2014-08.org.other:db1" },
	{ "nqn.a nqn.b,nqn.c\tnqn.d\n", 0, 4, "nqn.c", "nqn.e" },
	{ "nqn.x:disk?", 0, 1, "nqn.x:disk7", "nqn.x:disk10" },
	{ "nqn.x:[ab]*", 0, 1, "nqn.x:beta", "nqn.x:gamma" },
	{ ",, nqn.a ,,", 0, 1, "nqn.a", "nqn.b" },
	{ "foo", -EINVAL },
	{ "nqn.a foo", -EINVAL },
	{ "NQN.a", -EINVAL },
	{ "*", -EINVAL },
};

static void disc_match_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_MATCH,
	};
	const struct match_case *c;
	struct nvfab_disc_match *m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(match_cases); i++) {
		c = &match_cases[i];
		m = nvfab_disc_parse_match(c->list, strlen(c->list));
		if (c->err) {
			KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(m), "'%s'", c->list);
			if (IS_ERR(m))
				KUNIT_EXPECT_EQ(test, PTR_ERR(m), c->err);
			else
				kfree(m);
			continue;
		}
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(m), "'%s'", c->list);
		KUNIT_EXPECT_EQ_MSG(test, m->nr, c->nr, "'%s'", c->list);
		RCU_INIT_POINTER(policy.match, m);
		if (c->yes) {
			bool yes = nvfab_disc_policy_wants(&policy, c->yes);

			KUNIT_EXPECT_TRUE_MSG(test, yes, "'%s' takes %s",
					      c->list, c->yes);
		}
		if (c->no) {
			bool no = nvfab_disc_policy_wants(&policy, c->no);

			KUNIT_EXPECT_FALSE_MSG(test, no, "'%s' refuses %s",
					       c->list, c->no);
		}
		RCU_INIT_POINTER(policy.match, NULL);
		kfree(m);
	}
}

static void disc_match_limits_test(struct kunit *test)
{
	struct nvfab_disc_match *m;
	char *buf;

	buf = kunit_kzalloc(test, NVFAB_DISC_MATCH_MAX + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* a pattern of NVFAB_NQN_SIZE - 1 bytes is the longest */
	memcpy(buf, "nqn.", 4);
	memset(buf + 4, 'a', NVFAB_NQN_SIZE - 1 - 4);
	m = nvfab_disc_parse_match(buf, strlen(buf));
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	KUNIT_EXPECT_EQ(test, m->nr, 1U);
	kfree(m);
	buf[NVFAB_NQN_SIZE - 1] = 'a';
	m = nvfab_disc_parse_match(buf, strlen(buf));
	KUNIT_EXPECT_TRUE(test, IS_ERR(m));

	/* the whole list */
	memset(buf, ' ', NVFAB_DISC_MATCH_MAX + 1);
	buf[NVFAB_DISC_MATCH_MAX + 1] = '\0';
	m = nvfab_disc_parse_match(buf, NVFAB_DISC_MATCH_MAX);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	KUNIT_EXPECT_EQ(test, m->nr, 0U);
	kfree(m);
	m = nvfab_disc_parse_match(buf, NVFAB_DISC_MATCH_MAX + 1);
	KUNIT_EXPECT_TRUE(test, IS_ERR(m));
}

static void disc_connect_policy_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = { };

	policy.connect = NVFAB_DISC_CONNECT_ALL;
	KUNIT_EXPECT_TRUE(test, nvfab_disc_policy_wants(&policy, "nqn.a"));
	policy.connect = NVFAB_DISC_CONNECT_NONE;
	KUNIT_EXPECT_FALSE(test, nvfab_disc_policy_wants(&policy, "nqn.a"));
	/* match without a list takes nothing */
	policy.connect = NVFAB_DISC_CONNECT_MATCH;
	KUNIT_EXPECT_FALSE(test, nvfab_disc_policy_wants(&policy, "nqn.a"));
}

/* ---- string settings ---- */

struct cfg_case {
	const char *attr;
	const char *in;		/* as written, newline included or not */
	int err;
	const char *out;	/* stored value when accepted (NULL: @in) */
};

static const struct cfg_case cfg_cases[] = {
	{ "transport", "tcp\n", 0, "tcp" },
	{ "transport", "rdma", 0 },
	{ "transport", "fc", -EINVAL },
	{ "transport", "TCP", -EINVAL },
	{ "transport", "", -EINVAL },
	{ "traddr", "192.0.2.1\n", 0, "192.0.2.1" },
	{ "traddr", "2001:db8::1", 0 },
	{ "traddr", "192.0.2", -EINVAL },
	{ "traddr", "192.0.2.256", -EINVAL },
	{ "traddr", "target.example", -EINVAL },
	{ "traddr", "", -EINVAL },
	{ "traddr", "192.0.2.1 ", -EINVAL },
	{ "traddr", "[2001:db8::1]", -EINVAL },
	{ "host_traddr", "", 0 },
	{ "host_traddr", "198.51.100.7", 0 },
	{ "host_traddr", "eth0", -EINVAL },
	{ "trsvcid", "8009\n", 0, "8009" },
	{ "trsvcid", "04420", 0, "4420" },
	{ "trsvcid", "1", 0 },
	{ "trsvcid", "65535", 0 },
	{ "trsvcid", "0", -EINVAL },
	{ "trsvcid", "65536", -EINVAL },
	{ "trsvcid", "-1", -EINVAL },
	{ "trsvcid", "44x", -EINVAL },
	{ "trsvcid", "", -EINVAL },
	{ "host_iface", "", 0 },
	{ "host_iface", "eth0", 0 },
	{ "host_iface", "enp0s31f6.100", 0 },
	{ "host_iface", "a/b", -EINVAL },
	{ "host_iface", "a:b", -EINVAL },
	{ "host_iface", "abcdefghijklmnop", -EINVAL },
	{ "hostnqn", "", 0 },
	{ "hostnqn", "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427", 0 },
	{ "hostnqn", "nqn.", -EINVAL },
	{ "hostnqn", "host1", -EINVAL },
	{ "nqn", "nqn.2014-08.org.nvmexpress.discovery", 0 },
	{ "nqn", "", -EINVAL },
	{ "hostid", "", 0 },
	{ "hostid", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 0 },
	{ "hostid", "1b4e28ba2fa111d2883f0016d3cca427", -EINVAL },
	{ "hostid", "not-a-uuid", -EINVAL },
};

static void disc_cfg_test(struct kunit *test)
{
	const struct cfg_case *c;
	char val[NVFAB_TRADDR_SIZE];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cfg_cases); i++) {
		c = &cfg_cases[i];
		ret = nvfab_disc_str(c->in, strlen(c->in), val, sizeof(val),
				     c->attr);
		if (!ret)
			ret = nvfab_disc_check_cfg(c->attr, val);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "%s '%s'", c->attr,
				    c->in);
		if (!ret && !c->err)
			KUNIT_EXPECT_STREQ_MSG(test, val,
					       c->out ? c->out : c->in,
					       "%s '%s'", c->attr, c->in);
	}
}

static void disc_str_test(struct kunit *test)
{
	char val[8];

	KUNIT_EXPECT_EQ(test, nvfab_disc_str("abc\n", 4, val, 8, "t"), 0);
	KUNIT_EXPECT_STREQ(test, val, "abc");
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("", 0, val, 8, "t"), 0);
	KUNIT_EXPECT_STREQ(test, val, "");
	/* 7 bytes fit, 8 do not, a newline aside */
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("abcdefg\n", 8, val, 8, "t"), 0);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("abcdefgh", 8, val, 8, "t"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("a\0b", 3, val, 8, "t"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("a b", 3, val, 8, "t"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("a\tb", 3, val, 8, "t"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("ab\n\n", 4, val, 8, "t"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_disc_str("\xc3\xa9", 2, val, 8, "t"),
			-EINVAL);
}

static void disc_name_test(struct kunit *test)
{
	char name[NVFAB_DISC_NAME_MAX + 2];

	KUNIT_EXPECT_TRUE(test, nvfab_disc_name_valid("d1"));
	KUNIT_EXPECT_TRUE(test, nvfab_disc_name_valid("rack-3.fabric_a"));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid(""));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid("a b"));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid("a@b"));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid("a:b"));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid("a=b"));
	memset(name, 'n', NVFAB_DISC_NAME_MAX);
	name[NVFAB_DISC_NAME_MAX] = '\0';
	KUNIT_EXPECT_TRUE(test, nvfab_disc_name_valid(name));
	name[NVFAB_DISC_NAME_MAX] = 'n';
	name[NVFAB_DISC_NAME_MAX + 1] = '\0';
	KUNIT_EXPECT_FALSE(test, nvfab_disc_name_valid(name));
}

static struct kunit_case nvfab_disc_policy_cases[] = {
	KUNIT_CASE(disc_backoff_test),
	KUNIT_CASE(disc_herd_test),
	KUNIT_CASE(disc_match_test),
	KUNIT_CASE(disc_match_limits_test),
	KUNIT_CASE(disc_connect_policy_test),
	KUNIT_CASE(disc_cfg_test),
	KUNIT_CASE(disc_str_test),
	KUNIT_CASE(disc_name_test),
	{}
};

static struct kunit_suite nvfab_disc_policy_suite = {
	.name = "nvfab_discovery_policy",
	.test_cases = nvfab_disc_policy_cases,
};

kunit_test_suite(nvfab_disc_policy_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab-discovery's policy and configfs values");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
