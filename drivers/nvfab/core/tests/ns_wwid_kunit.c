// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit table for nvfab_ns_wwid(): which identifier a namespace's WWID
 * (/sys/block/nvfabXnY/wwid, the name of its /dev/disk/by-id link) is
 * built from, the exact text of each form, and that a short buffer is
 * never overrun.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/string.h>
#include <linux/uuid.h>

#include <nvfab/compat.h>
#include "../nvfab.h"

#define SN_LEN		sizeof_field(struct nvme_id_ctrl, sn)
#define MN_LEN		sizeof_field(struct nvme_id_ctrl, mn)
/* .size of a row that gives the function a buffer larger than any WWID */
#define WHOLE		0x7fff
#define TEST_UUID	"7e3a6b0c-1f2d-4c5e-8a9b-0c1d2e3f4a5b"
#define TEST_NGUID	{ 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, \
			  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 }
#define TEST_EUI64	{ 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03 }

struct wwid_case {
	const char *desc;
	const char *uuid;	/* text, or NULL for none */
	u8 nguid[16];
	u8 eui64[8];
	u32 nsid;
	u16 vid;
	const char *sn;		/* padded with @pad to 20 bytes */
	const char *mn;		/* padded with @pad to 40 bytes */
	char pad;
	unsigned int size;	/* bytes of buffer given; WHOLE: all of it */
	const char *want;	/* the whole WWID */
};

static const struct wwid_case wwid_cases[] = {
	{ "UUID before NGUID and EUI64", TEST_UUID, TEST_NGUID, TEST_EUI64,
	  1, 0x1b36, "SN", "MN", ' ', WHOLE, "uuid." TEST_UUID },
	{ "NGUID only", NULL, TEST_NGUID, { }, 1, 0, "SN", "MN", ' ', WHOLE,
	  "eui.0102030405060708090a0b0c0d0e0f10" },
	{ "NGUID before EUI64", NULL, TEST_NGUID, TEST_EUI64, 1, 0, "SN", "MN",
	  ' ', WHOLE, "eui.0102030405060708090a0b0c0d0e0f10" },
	{ "NGUID with only its last byte set", NULL,
	  { [15] = 0x01 }, { }, 1, 0, "SN", "MN", ' ', WHOLE,
	  "eui.00000000000000000000000000000001" },
	{ "EUI64 only", NULL, { }, TEST_EUI64, 1, 0, "SN", "MN", ' ', WHOLE,
	  "eui.deadbeef00010203" },
	{ "EUI64 with only its first byte set", NULL, { }, { 0x80 }, 7, 0,
	  "SN", "MN", ' ', WHOLE, "eui.8000000000000000" },
	{ "none: space-padded SN and MN, as nvmet sends them", NULL, { }, { },
	  1, 0, "abc", "nvfab-nvmet", ' ', WHOLE,
	  "nvme.0000-616263-6e766661622d6e766d6574-00000001" },
	{ "none: NUL-padded, VID set, large NSID", NULL, { }, { }, 0xfffffffe,
	  0x1b36, "S1", "M", '\0', WHOLE, "nvme.1b36-5331-4d-fffffffe" },
	{ "none: inner spaces kept, trailing ones cut", NULL, { }, { }, 0x10,
	  0xabcd, "A B  ", " M", ' ', WHOLE, "nvme.abcd-412042-204d-00000010" },
	{ "none: SN and MN all spaces", NULL, { }, { }, 1, 0, "", "", ' ',
	  WHOLE, "nvme.0000---00000001" },
	{ "cut: 10-byte buffer", TEST_UUID, { }, { }, 1, 0, "SN", "MN", ' ',
	  10, "uuid." TEST_UUID },
	{ "cut: nvme form in 16 bytes", NULL, { }, { }, 1, 0, "abc", "m", ' ',
	  16, "nvme.0000-616263-6d-00000001" },
	{ "cut: exactly one byte short", NULL, { }, TEST_EUI64, 1, 0, "SN",
	  "MN", ' ', 20, "eui.deadbeef00010203" },
	{ "fits exactly", NULL, { }, TEST_EUI64, 1, 0, "SN", "MN", ' ', 21,
	  "eui.deadbeef00010203" },
	{ "cut: 1-byte buffer", TEST_UUID, { }, { }, 1, 0, "SN", "MN", ' ', 1,
	  "uuid." TEST_UUID },
	{ "cut: 0-byte buffer", NULL, TEST_NGUID, { }, 1, 0, "SN", "MN", ' ',
	  0, "eui.0102030405060708090a0b0c0d0e0f10" },
};

static void wwid_case_desc(const struct wwid_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wwid, wwid_cases, wwid_case_desc);

/* An Identify Controller string field: @str, then @pad to @len bytes. */
static void wwid_put_str(char *dst, size_t len, const char *str, char pad)
{
	memset(dst, pad, len);
	memcpy(dst, str, min(strlen(str), len));
}

static void nvfab_ns_wwid_test(struct kunit *test)
{
	const struct wwid_case *c = test->param_value;
	struct nvfab_ns_ids ids = { };
	char buf[NVFAB_WWID_MAX + 32];
	char sn[SN_LEN], mn[MN_LEN];
	size_t size = c->size == WHOLE ? sizeof(buf) : c->size;
	size_t len = strlen(c->want), n;
	int ret;

	memcpy(ids.nguid, c->nguid, sizeof(ids.nguid));
	memcpy(ids.eui64, c->eui64, sizeof(ids.eui64));
	if (c->uuid)
		KUNIT_ASSERT_EQ(test, uuid_parse(c->uuid, &ids.uuid), 0);
	wwid_put_str(sn, sizeof(sn), c->sn, c->pad);
	wwid_put_str(mn, sizeof(mn), c->mn, c->pad);
	memset(buf, 0xa5, sizeof(buf));

	ret = nvfab_ns_wwid(buf, size, &ids, c->nsid, c->vid, sn, mn);
	KUNIT_EXPECT_EQ(test, ret, (int)len);
	KUNIT_EXPECT_LE(test, ret, NVFAB_WWID_MAX);
	if (size) {
		n = min(len, size - 1);
		KUNIT_EXPECT_MEMEQ(test, buf, c->want, n);
		KUNIT_EXPECT_EQ(test, buf[n], '\0');
	}
	/* nothing written past the buffer given */
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + size, 0xa5, sizeof(buf) - size));
}

/* Full-width SN and MN: the longest WWID, NVFAB_WWID_MAX characters. */
static void nvfab_ns_wwid_longest_test(struct kunit *test)
{
	struct nvfab_ns_ids ids = { };
	char want[NVFAB_WWID_MAX + 1], buf[NVFAB_WWID_MAX + 1];
	char sn[SN_LEN], mn[MN_LEN];
	char *p = want;
	size_t i;
	int ret;

	memset(sn, 'S', sizeof(sn));
	memset(mn, 'M', sizeof(mn));
	p += sprintf(p, "nvme.ffff-");
	for (i = 0; i < sizeof(sn); i++)
		p += sprintf(p, "53");
	p += sprintf(p, "-");
	for (i = 0; i < sizeof(mn); i++)
		p += sprintf(p, "4d");
	sprintf(p, "-ffffffff");
	KUNIT_ASSERT_EQ(test, strlen(want), (size_t)NVFAB_WWID_MAX);

	ret = nvfab_ns_wwid(buf, sizeof(buf), &ids, 0xffffffff, 0xffff, sn,
			    mn);
	KUNIT_EXPECT_EQ(test, ret, NVFAB_WWID_MAX);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static struct kunit_case nvfab_ns_wwid_cases[] = {
	KUNIT_CASE_PARAM(nvfab_ns_wwid_test, wwid_gen_params),
	KUNIT_CASE(nvfab_ns_wwid_longest_test),
	{}
};

static struct kunit_suite nvfab_ns_wwid_suite = {
	.name = "nvfab_ns_wwid",
	.test_cases = nvfab_ns_wwid_cases,
};

kunit_test_suite(nvfab_ns_wwid_suite);

MODULE_DESCRIPTION("KUnit table for the WWID of nvfab namespace heads");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
