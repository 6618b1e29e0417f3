// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the DH-HMAC-CHAP secrets of a controller (auth.c): the
 * connect options' pair (nvfab_auth_set_keys()) and the sysfs files
 * dhchap_secret and dhchap_ctrl_secret (nvfab_auth_show_secret(),
 * nvfab_auth_change_secret()), on a fake controller that is not live, so
 * that a new secret starts no transaction. Inputs are what a connect
 * string or a shell can give: good secrets, a wrong CRC, other forms,
 * stray whitespace; a refused value changes nothing.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme-auth.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../nvfab.h"
#include "../auth.h"
#include <nvfab/fabrics.h>

/* 32 bytes of key, SHA-256 transformation, the right CRC */
#define KEY_A	"DHHC-1:01:ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTCf/nwX:"
/* the same with one bit of the CRC flipped */
#define KEY_CRC	"DHHC-1:01:ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTCe/nwX:"
/* 32 other bytes, no transformation */
#define KEY_B	"DHHC-1:00:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYOtVl3:"

struct keys_case {
	const char *desc;
	const char *host;
	const char *ctrl;
	int ret;
};

static const struct keys_case keys_cases[] = {
	{ "no secret at all", NULL, NULL, 0 },
	{ "host secret", KEY_A, NULL, 0 },
	{ "host and controller secrets", KEY_A, KEY_B, 0 },
	{ "the same secret both ways", KEY_A, KEY_A, 0 },
	{ "controller secret without the host's", NULL, KEY_A, -EINVAL },
	{ "wrong CRC", KEY_CRC, NULL, -EKEYREJECTED },
	{ "controller secret with a wrong CRC", KEY_A, KEY_CRC, -EKEYREJECTED },
	{ "not DHHC-1", "secret", NULL, -EINVAL },
	{ "empty", "", NULL, -EINVAL },
	{ "DHHC-2", "DHHC-2:01:ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTCf/nwX:",
	  NULL, -EINVAL },
	{ "key of 16 bytes", "DHHC-1:00:MDEyMzQ1Njc4OWFiY2RlZjPwxGg=:", NULL,
	  -EINVAL },
};

static void keys_case_desc(const struct keys_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(keys, keys_cases, keys_case_desc);

struct keys_fixture {
	struct nvfab_ctrl ctrl;
	struct nvfab_ctrl_options opts;
};

static void keys_exit(struct kunit *test)
{
	struct keys_fixture *f = test->priv;

	if (!f)
		return;
	nvfab_auth_free_keys(&f->ctrl);
	kfree_sensitive(f->opts.dhchap_secret);
	kfree_sensitive(f->opts.dhchap_ctrl_secret);
	mutex_destroy(&f->ctrl.auth_lock);
}

/* A controller in state NEW, connected (as far as it knows) with @host. */
static struct nvfab_ctrl *keys_ctrl(struct kunit *test, const char *host)
{
	struct keys_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	mutex_init(&f->ctrl.auth_lock);
	f->ctrl.opts = &f->opts;
	test->priv = f;
	if (host) {
		f->opts.dhchap_secret = kstrdup(host, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->opts.dhchap_secret);
		KUNIT_ASSERT_EQ(test, nvfab_auth_set_keys(&f->ctrl, host, NULL),
				0);
	}
	return &f->ctrl;
}

/* The connect options' pair: installed together or not at all. */
static void nvfab_auth_set_keys_test(struct kunit *test)
{
	const struct keys_case *c = test->param_value;
	struct nvfab_ctrl *ctrl = keys_ctrl(test, NULL);

	KUNIT_EXPECT_EQ(test, nvfab_auth_set_keys(ctrl, c->host, c->ctrl),
			c->ret);
	KUNIT_EXPECT_EQ(test, !!ctrl->host_key, !c->ret && c->host);
	KUNIT_EXPECT_EQ(test, !!ctrl->ctrl_key, !c->ret && c->ctrl);
}

/* What a shell writes to dhchap_secret or dhchap_ctrl_secret. */
struct store_case {
	const char *desc;
	bool ctrl_key;
	const char *buf;
	int ret;
	const char *shown;	/* the file read back after the write */
};

static const struct store_case store_cases[] = {
	{ "echo a new host secret", false, KEY_B "\n", 0, KEY_B "\n" },
	{ "the same secret again", false, KEY_A "\n", 0, KEY_A "\n" },
	{ "printf without a newline", false, KEY_B, 0, KEY_B "\n" },
	{ "trailing blanks", false, KEY_B " \t\n", 0, KEY_B "\n" },
	{ "controller secret", true, KEY_B "\n", 0, KEY_B "\n" },
	{ "wrong CRC", false, KEY_CRC "\n", -EKEYREJECTED, KEY_A "\n" },
	{ "controller secret, wrong CRC", true, KEY_CRC "\n", -EKEYREJECTED,
	  "none\n" },
	{ "leading blank", false, " " KEY_B "\n", -EINVAL, KEY_A "\n" },
	{ "none is not a way to remove it", false, "none\n", -EINVAL,
	  KEY_A "\n" },
	{ "empty", false, "", -EINVAL, KEY_A "\n" },
	{ "newline only", true, "\n", -EINVAL, "none\n" },
};

static void store_case_desc(const struct store_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(store, store_cases, store_case_desc);

static void nvfab_auth_change_secret_test(struct kunit *test)
{
	const struct store_case *c = test->param_value;
	struct nvfab_ctrl *ctrl = keys_ctrl(test, KEY_A);
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nvme_dhchap_key *old_host;

	KUNIT_ASSERT_NOT_NULL(test, page);
	old_host = ctrl->host_key;
	KUNIT_EXPECT_EQ(test, nvfab_auth_change_secret(ctrl, c->ctrl_key,
						       c->buf), c->ret);
	KUNIT_EXPECT_EQ(test, nvfab_auth_show_secret(ctrl, c->ctrl_key, page),
			(ssize_t)strlen(c->shown));
	KUNIT_EXPECT_STREQ(test, page, c->shown);
	/* a refused write leaves the keys as they were */
	if (c->ret) {
		KUNIT_EXPECT_PTR_EQ(test, ctrl->host_key, old_host);
		KUNIT_EXPECT_NULL(test, ctrl->ctrl_key);
	} else {
		KUNIT_EXPECT_NOT_NULL(test, c->ctrl_key ? ctrl->ctrl_key :
							  ctrl->host_key);
	}
}

/*
 * A controller connected without dhchap_secret takes no secret in sysfs
 * (as the in-kernel host), and both files read "none".
 */
static void nvfab_auth_change_secret_no_host_key_test(struct kunit *test)
{
	struct nvfab_ctrl *ctrl = keys_ctrl(test, NULL);
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, nvfab_auth_change_secret(ctrl, false,
						       KEY_A "\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_auth_change_secret(ctrl, true, KEY_A "\n"),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, ctrl->host_key);
	KUNIT_EXPECT_NULL(test, ctrl->ctrl_key);
	nvfab_auth_show_secret(ctrl, false, page);
	KUNIT_EXPECT_STREQ(test, page, "none\n");
	nvfab_auth_show_secret(ctrl, true, page);
	KUNIT_EXPECT_STREQ(test, page, "none\n");
}

static struct kunit_case nvfab_auth_keys_cases[] = {
	KUNIT_CASE_PARAM(nvfab_auth_set_keys_test, keys_gen_params),
	KUNIT_CASE_PARAM(nvfab_auth_change_secret_test, store_gen_params),
	KUNIT_CASE(nvfab_auth_change_secret_no_host_key_test),
	{}
};

static struct kunit_suite nvfab_auth_keys_suite = {
	.name = "nvfab_auth_keys",
	.exit = keys_exit,
	.test_cases = nvfab_auth_keys_cases,
};

kunit_test_suite(nvfab_auth_keys_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's DH-HMAC-CHAP secrets and their sysfs files");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
NVFAB_IMPORT_KUNIT();
