// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit table for the Namespace Identification Descriptor list parser
 * (NVMe Base 2.0, 5.17.2.3): lists a target could send, well formed or not.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme.h>

#include <nvfab/compat.h>
#include "../nvfab.h"

struct desc_case {
	const char *desc;
	u8 list[64];
	size_t len;	/* bytes of the list the parser may read */
	int ret;
	u8 eui0, nguid0, uuid0;	/* expected first byte of each id */
};

static const struct desc_case desc_cases[] = {
	{ "empty list", { 0 }, 64, 0 },
	{ "EUI64", { 1, 8, 0, 0, 0xe1, 2, 3, 4, 5, 6, 7, 8 }, 64, 0, 0xe1 },
	{ "NGUID", { 2, 16, 0, 0, 0x6a }, 64, 0, 0, 0x6a },
	{ "UUID", { 3, 16, 0, 0, 0x55 }, 64, 0, 0, 0, 0x55 },
	{ "EUI64 then UUID", { 1, 8, 0, 0, 0xe1, 0, 0, 0, 0, 0, 0, 0,
			       3, 16, 0, 0, 0x55 }, 64, 0, 0xe1, 0, 0x55 },
	{ "CSI", { 4, 1, 0, 0, 0 }, 64, 0 },
	{ "unknown type skipped", { 9, 4, 0, 0, 1, 2, 3, 4,
				    1, 8, 0, 0, 0xe2 }, 64, 0, 0xe2 },
	{ "EUI64 with NIDL 16", { 1, 16, 0, 0 }, 64, -EINVAL },
	{ "NGUID with NIDL 8", { 2, 8, 0, 0 }, 64, -EINVAL },
	{ "UUID with NIDL 0", { 3, 0, 0, 0 }, 64, -EINVAL },
	{ "CSI with NIDL 2", { 4, 2, 0, 0 }, 64, -EINVAL },
	{ "descriptor overruns the list", { 2, 16, 0, 0 }, 12, -EINVAL },
	{ "unknown type overruns the list", { 9, 255, 0, 0 }, 64, -EINVAL },
	{ "header cut at the end", { 1, 8, 0, 0, 0xe3, 0, 0, 0, 0, 0, 0, 0,
				     3 }, 14, 0, 0xe3 },
};

static void desc_case_desc(const struct desc_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(desc, desc_cases, desc_case_desc);

static void nvfab_ns_desc_test(struct kunit *test)
{
	const struct desc_case *c = test->param_value;
	struct nvfab_ns_ids ids = { };
	int ret;

	ret = nvfab_parse_ns_descs(c->list, c->len, &ids, NULL);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, ids.eui64[0], c->eui0);
	KUNIT_EXPECT_EQ(test, ids.nguid[0], c->nguid0);
	KUNIT_EXPECT_EQ(test, ids.uuid.b[0], c->uuid0);
}

static struct kunit_case nvfab_ns_desc_cases[] = {
	KUNIT_CASE_PARAM(nvfab_ns_desc_test, desc_gen_params),
	{}
};

static struct kunit_suite nvfab_ns_desc_suite = {
	.name = "nvfab_ns_descs",
	.test_cases = nvfab_ns_desc_cases,
};

kunit_test_suite(nvfab_ns_desc_suite);

MODULE_DESCRIPTION("KUnit table for nvfab's namespace descriptor parser");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
