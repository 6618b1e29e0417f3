// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables of the NVIDIA provider's pure helpers
 * (drivers/nvfab/peermem/peermem-nvidia.h), which need no nv-p2p.h and
 * so are tested on every kernel:
 *  - the NVFAB_PEERMEM_NVIDIA_PIN argument check: what user space may
 *    hand the provider, including hostile values (unaligned, empty,
 *    wrapping, over the limit, reserved fields set);
 *  - the translation of a scatterlist entry on stand-in pages to its
 *    offset in the GPU buffer, with stand-ins laid out in memory in
 *    another order than in the buffer (descending page frames, runs that
 *    skip pages): an entry of stand-ins adjacent in memory but not in the
 *    buffer must be refused, never mapped from its first page.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "../peermem-nvidia.h"

struct pin_case {
	const char *name;
	struct nvfab_peermem_nvidia_pin arg;
	unsigned int max_len_mb;
	int want;
};

#define K64	0x10000ULL

static const struct pin_case pin_cases[] = {
	{ "one GPU page", { .gpu_va = 0x7f0000000000ULL, .len = K64 }, 1024, 0 },
	{ "exactly max_len_mb", { .gpu_va = K64, .len = 1024ULL << 20 }, 1024, 0 },
	{ "address 0, one page", { .gpu_va = 0, .len = K64 }, 1, 0 },
	{ "empty", { .gpu_va = K64, .len = 0 }, 1024, -EINVAL },
	{ "address off a GPU page", { .gpu_va = K64 + 4096, .len = K64 }, 1024, -EINVAL },
	{ "length off a GPU page", { .gpu_va = K64, .len = K64 + 4096 }, 1024, -EINVAL },
	{ "length of one byte", { .gpu_va = K64, .len = 1 }, 1024, -EINVAL },
	{ "range wraps", { .gpu_va = ~(K64 - 1), .len = 2 * K64 }, ~0U, -EINVAL },
	{ "range ends at 2^64", { .gpu_va = ~(K64 - 1), .len = K64 }, ~0U, -EINVAL },
	{ "flags set", { .gpu_va = K64, .len = K64, .flags = 1 }, 1024, -EINVAL },
	{ "reserved set", { .gpu_va = K64, .len = K64, .reserved = 0x80000000 }, 1024, -EINVAL },
	{ "offset (out field) ignored", { .gpu_va = K64, .len = K64, .offset = ~0ULL }, 1024, 0 },
	{ "one page over max_len_mb", { .gpu_va = K64, .len = (1ULL << 20) + K64 }, 1, -E2BIG },
	{ "max_len_mb 0", { .gpu_va = K64, .len = K64 }, 0, -E2BIG },
	{ "largest length", { .gpu_va = 0, .len = ~(K64 - 1) }, ~0U, -E2BIG },
};

static void pin_case_desc(const struct pin_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pin, pin_cases, pin_case_desc);

static void nvpn_pin_check_test(struct kunit *test)
{
	const struct pin_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvpn_pin_check(&c->arg, c->max_len_mb), c->want);
}

/*
 * Stand-in layouts, as struct nvpn_run sorted by page frame (what
 * nvpn_claim_standins() builds); buffer page i of each is described.
 */
static const struct nvpn_run one_block[] = {	/* pages 0-15 at 1000-1015 */
	{ 1000, 16, 0 },
};

static const struct nvpn_run two_blocks[] = {	/* block 1 before block 0 */
	{ 1000, 16, 16 }, { 1016, 16, 0 },
};

static const struct nvpn_run descending[] = {	/* page i at 3007 - i */
	{ 3000, 1, 7 }, { 3001, 1, 6 }, { 3002, 1, 5 }, { 3003, 1, 4 },
	{ 3004, 1, 3 }, { 3005, 1, 2 }, { 3006, 1, 1 }, { 3007, 1, 0 },
};

static const struct nvpn_run skipping[] = {	/* 0: 4000, 1: 5000, 2: 4001, 3: 5001 */
	{ 4000, 1, 0 }, { 4001, 1, 2 }, { 5000, 1, 1 }, { 5001, 1, 3 },
};

static const struct nvpn_run descending_runs[] = {	/* pairs, last pair first */
	{ 6000, 2, 4 }, { 6002, 2, 2 }, { 6004, 2, 0 },
};

static const struct nvpn_run wide[] = {		/* 32 pages in one run */
	{ 7000, 32, 0 },
};

struct layout {
	const struct nvpn_run *runs;
	unsigned long nr_runs;
	u64 buf_len;
};

static const struct layout l_one = {
	one_block, ARRAY_SIZE(one_block), 16 * PAGE_SIZE
};

static const struct layout l_two = {
	two_blocks, ARRAY_SIZE(two_blocks), 32 * PAGE_SIZE
};

static const struct layout l_desc = {
	descending, ARRAY_SIZE(descending), 8 * PAGE_SIZE
};

static const struct layout l_skip = {
	skipping, ARRAY_SIZE(skipping), 4 * PAGE_SIZE
};

static const struct layout l_druns = {
	descending_runs, ARRAY_SIZE(descending_runs), 6 * PAGE_SIZE
};

static const struct layout l_wide = {
	wide, ARRAY_SIZE(wide), 32 * PAGE_SIZE
};

struct sg_case {
	const char *name;
	const struct layout *l;
	unsigned long pfn;
	unsigned int offset, length;
	int want;
	u64 want_off;
};

#define P(n)	((u64)(n) << PAGE_SHIFT)
#define PG	PAGE_SIZE

static const struct sg_case sg_cases[] = {
	{ "part of a page", &l_one, 1002, 100, 200, 0, P(2) + 100 },
	{ "offset past the first page", &l_one, 1000, PG + 8, 16, 0, P(1) + 8 },
	{ "a whole GPU page", &l_one, 1000, 0, SZ_64K, 0, 0 },
	{ "block 1, before block 0 in memory", &l_two, 1003, 0, PG, 0, P(19) },
	{ "block 0, after block 1 in memory", &l_two, 1016, 512, PG, 0, 512 },
	{ "end of block 1 into block 0 (adjacent in memory)",
	  &l_two, 1015, 0, 2 * PG, -EXDEV, 0 },
	{ "descending: one page", &l_desc, 3001, 0, PG, 0, P(6) },
	{ "descending: two pages in memory order",
	  &l_desc, 3002, 0, 2 * PG, -EXDEV, 0 },
	{ "descending: across a page edge", &l_desc, 3003, 2048, PG, -EXDEV, 0 },
	{ "descending: offset into the next frame",
	  &l_desc, 3000, PG, PG, 0, P(6) },
	{ "descending: last buffer page, then the one before",
	  &l_desc, 3000, 0, 2 * PG, -EXDEV, 0 },
	{ "skipping: page 0 then page 2", &l_skip, 4000, 0, 2 * PG, -EXDEV, 0 },
	{ "skipping: page 2 alone", &l_skip, 4001, 0, PG, 0, P(2) },
	{ "descending runs: within one", &l_druns, 6002, 512, PG, 0, P(2) + 512 },
	{ "descending runs: across two", &l_druns, 6003, 0, 2 * PG, -EXDEV, 0 },
	{ "one run across a GPU page", &l_wide, 7015, 0, 2 * PG, -EXDEV, 0 },
	{ "one run, second GPU page", &l_wide, 7016, 0, 2 * PG, 0, P(16) },
	{ "not a stand-in", &l_one, 999, 0, PG, -EINVAL, 0 },
	{ "past the last stand-in", &l_one, 1015, 0, 2 * PG, -EXDEV, 0 },
	{ "empty", &l_one, 1000, 0, 0, -EINVAL, 0 },
};

static void sg_case_desc(const struct sg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sg, sg_cases, sg_case_desc);

static void nvpn_sg_offset_test(struct kunit *test)
{
	const struct sg_case *c = test->param_value;
	u64 off = ~0ULL;
	int ret;

	ret = nvpn_sg_offset(c->l->runs, c->l->nr_runs, c->l->buf_len, c->pfn,
			     c->offset, c->length, &off);
	KUNIT_EXPECT_EQ(test, ret, c->want);
	if (!c->want)
		KUNIT_EXPECT_EQ(test, off, c->want_off);
}

static struct kunit_case nvpn_cases[] = {
	KUNIT_CASE_PARAM(nvpn_pin_check_test, pin_gen_params),
	KUNIT_CASE_PARAM(nvpn_sg_offset_test, sg_gen_params),
	{}
};

static struct kunit_suite nvpn_suite = {
	.name = "nvfab_peermem_nvidia",
	.test_cases = nvpn_cases,
};

kunit_test_suite(nvpn_suite);

MODULE_DESCRIPTION("KUnit tests of nvfab-peermem-nvidia's user argument checks and SG translation");
MODULE_LICENSE("GPL");
