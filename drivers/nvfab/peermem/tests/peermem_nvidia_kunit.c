// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit table of the NVFAB_PEERMEM_NVIDIA_PIN argument check
 * (drivers/nvfab/peermem-nvidia.h): what user space may hand the NVIDIA
 * provider, including hostile values (unaligned, empty, wrapping, over
 * the limit, reserved fields set). The driver itself needs NVIDIA's
 * nv-p2p.h; its check does not, so it is tested on every kernel.
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

static struct kunit_case nvpn_cases[] = {
	KUNIT_CASE_PARAM(nvpn_pin_check_test, pin_gen_params),
	{}
};

static struct kunit_suite nvpn_suite = {
	.name = "nvfab_peermem_nvidia",
	.test_cases = nvpn_cases,
};

kunit_test_suite(nvpn_suite);

MODULE_DESCRIPTION("KUnit tests of nvfab-peermem-nvidia's user argument checks");
MODULE_LICENSE("GPL");
