// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for what a target tells the host about itself.
 *
 * nvfab_id_ctrl starts every row from one valid Identify Controller data
 * structure (NVMe Base 2.0, 5.17.2.1), changes one field or one connect
 * parameter, and feeds it to nvfab_check_id_ctrl(). nvfab_ns_list feeds
 * Active Namespace ID list pages (CNS 02h) to nvfab_check_ns_list_page().
 * nvfab_sqflow feeds the statuses a Connect may fail with to
 * nvfab_sqflow_refusal(). nvfab_authreq feeds the Dword 0 values of a
 * successful Connect to nvfab_connect_authreq().
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../nvfab.h"

#define TEST_NQN	"nqn.2014-08.org.example:nvfab-id"
#define TEST_CNTLID	0x21
/* 4 KiB << MDTS 5: 128 KiB, 256 sectors. */
#define TEST_MDTS	5
#define TEST_SECTORS	256
/* The 8 MiB cap, in sectors. */
#define CAP_SECTORS	(SZ_8M >> SECTOR_SHIFT)
/* A Controller ID from Connect other than TEST_CNTLID, 0 included. */
#define CONN(x)		(0x10000 | (x))

/* The one field of the valid structure a row changes. */
enum id_field {
	ID_NONE,
	ID_SUBNQN,	/* SUBNQN := str */
	ID_SUBNQN_FILL,	/* SUBNQN := val bytes of 'n', zeroes after */
	ID_SUBNQN_TAIL,	/* SUBNQN := TEST_NQN, its NUL, then garbage */
	ID_CNTLID,
	ID_MDTS,
	ID_IOCCSZ,
	ID_IORCSZ,
	ID_SGLS,
	ID_NN,
	ID_MAXCMD,
	ID_SQES,
	ID_CQES,
	ID_CNTRLTYPE,
};

/* Stands for "the NQN connected to is whatever SUBNQN holds". */
static const char want_same[] = "";

struct id_case {
	const char *desc;
	enum id_field field;
	u32 val;
	const char *str;
	const char *want;	/* NULL: TEST_NQN */
	bool discovery;
	u8 mpsmin;		/* CAP.MPSMIN */
	u32 conn_cntlid;	/* 0: TEST_CNTLID, else CONN(x) */
	int ret;
	u32 sectors;		/* max_hw_sectors on success */
};

static const struct id_case id_cases[] = {
	{ "valid I/O controller", ID_NONE, .sectors = TEST_SECTORS },
	{ "NN 0 (no namespaces yet)", ID_NN, 0, .sectors = TEST_SECTORS },
	/* SUBNQN */
	{ "SUBNQN another subsystem", ID_SUBNQN, .str = "nqn.2014-08.org.example:other",
	  .ret = -EINVAL },
	{ "SUBNQN a prefix of the NQN", ID_SUBNQN, .str = "nqn.2014-08.org.example:nvfab",
	  .ret = -EINVAL },
	{ "SUBNQN the NQN and more", ID_SUBNQN, .str = TEST_NQN "x", .ret = -EINVAL },
	{ "SUBNQN differs in case", ID_SUBNQN, .str = "NQN.2014-08.org.example:nvfab-id",
	  .ret = -EINVAL },
	{ "SUBNQN empty", ID_SUBNQN, .str = "", .ret = -EINVAL },
	{ "SUBNQN garbage after its NUL", ID_SUBNQN_TAIL, .sectors = TEST_SECTORS },
	{ "SUBNQN 222 bytes, the longest", ID_SUBNQN_FILL, NVMF_NQN_SIZE - 1,
	  .want = want_same, .sectors = TEST_SECTORS },
	{ "SUBNQN 223 bytes, unterminated", ID_SUBNQN_FILL, NVMF_NQN_SIZE,
	  .want = want_same, .ret = -EINVAL },
	{ "SUBNQN 256 bytes, no NUL at all", ID_SUBNQN_FILL, NVMF_NQN_FIELD_LEN,
	  .want = want_same, .ret = -EINVAL },
	/* discovery controllers */
	{ "discovery, well-known NQN", ID_SUBNQN, .str = NVME_DISC_SUBSYS_NAME,
	  .want = NVME_DISC_SUBSYS_NAME, .discovery = true, .sectors = TEST_SECTORS },
	{ "discovery, unique discovery NQN", ID_SUBNQN, .str = "nqn.2014-08.org.example:disc",
	  .want = NVME_DISC_SUBSYS_NAME, .discovery = true, .sectors = TEST_SECTORS },
	{ "discovery, empty SUBNQN", ID_SUBNQN, .str = "", .discovery = true,
	  .sectors = TEST_SECTORS },
	{ "discovery, SUBNQN unterminated", ID_SUBNQN_FILL, NVMF_NQN_SIZE,
	  .discovery = true, .ret = -EINVAL },
	{ "discovery, IOCCSZ 0", ID_IOCCSZ, 0, .discovery = true, .sectors = TEST_SECTORS },
	{ "discovery, IORCSZ 0", ID_IORCSZ, 0, .discovery = true, .sectors = TEST_SECTORS },
	{ "discovery, no SGLs", ID_SGLS, 0, .discovery = true, .ret = -EINVAL },
	{ "discovery, CNTLID mismatch", ID_CNTLID, TEST_CNTLID + 1, .discovery = true,
	  .ret = -EINVAL },
	/* capsule sizes */
	{ "IOCCSZ 0", ID_IOCCSZ, 0, .ret = -EINVAL },
	{ "IOCCSZ 3, below the SQE", ID_IOCCSZ, 3, .ret = -EINVAL },
	{ "IOCCSZ 4, SQE only", ID_IOCCSZ, 4, .sectors = TEST_SECTORS },
	{ "IOCCSZ largest in 32 bits", ID_IOCCSZ, U32_MAX / 16, .sectors = TEST_SECTORS },
	{ "IOCCSZ overflows 32 bits", ID_IOCCSZ, U32_MAX / 16 + 1, .ret = -EINVAL },
	{ "IOCCSZ FFFFFFFFh", ID_IOCCSZ, U32_MAX, .ret = -EINVAL },
	{ "IORCSZ 0", ID_IORCSZ, 0, .ret = -EINVAL },
	{ "IORCSZ 2", ID_IORCSZ, 2, .sectors = TEST_SECTORS },
	{ "IORCSZ FFFFFFFFh (unused)", ID_IORCSZ, U32_MAX, .sectors = TEST_SECTORS },
	/* MAXCMD, SQES, CQES */
	{ "MAXCMD 0", ID_MAXCMD, 0, .ret = -EINVAL },
	{ "MAXCMD 1", ID_MAXCMD, 1, .sectors = TEST_SECTORS },
	{ "MAXCMD FFFFh", ID_MAXCMD, 0xffff, .sectors = TEST_SECTORS },
	{ "discovery, MAXCMD 0", ID_MAXCMD, 0, .discovery = true, .ret = -EINVAL },
	{ "SQES 0 (not reported)", ID_SQES, 0, .ret = -EINVAL },
	{ "SQES 55h, 32-byte entries", ID_SQES, 0x55, .ret = -EINVAL },
	{ "SQES 76h, 64 required, 128 max", ID_SQES, 0x76, .sectors = TEST_SECTORS },
	{ "SQES 56h, max below required", ID_SQES, 0x56, .ret = -EINVAL },
	{ "SQES 77h, 128-byte entries required", ID_SQES, 0x77, .ret = -EINVAL },
	{ "CQES 0 (not reported)", ID_CQES, 0, .ret = -EINVAL },
	{ "CQES 33h, 8-byte entries", ID_CQES, 0x33, .ret = -EINVAL },
	{ "CQES 54h, 16 required, 32 max", ID_CQES, 0x54, .sectors = TEST_SECTORS },
	{ "CQES 34h, max below required", ID_CQES, 0x34, .ret = -EINVAL },
	{ "discovery, SQES and CQES 0", ID_SQES, 0, .discovery = true,
	  .sectors = TEST_SECTORS },
	/* CNTRLTYPE: 0 before NVMe 1.4, else the type connected to */
	{ "CNTRLTYPE 1, I/O", ID_CNTRLTYPE, NVME_CTRL_IO, .sectors = TEST_SECTORS },
	{ "CNTRLTYPE 2, discovery, on an I/O connect", ID_CNTRLTYPE, NVME_CTRL_DISC,
	  .ret = -EINVAL },
	{ "CNTRLTYPE 3, administrative", ID_CNTRLTYPE, NVME_CTRL_ADMIN, .ret = -EINVAL },
	{ "CNTRLTYPE 4, reserved", ID_CNTRLTYPE, 4, .ret = -EINVAL },
	{ "CNTRLTYPE FFh, reserved", ID_CNTRLTYPE, 0xff, .ret = -EINVAL },
	{ "discovery, CNTRLTYPE 2", ID_CNTRLTYPE, NVME_CTRL_DISC, .discovery = true,
	  .sectors = TEST_SECTORS },
	{ "discovery, CNTRLTYPE 1 (I/O)", ID_CNTRLTYPE, NVME_CTRL_IO, .discovery = true,
	  .ret = -EINVAL },
	{ "discovery, CNTRLTYPE 3", ID_CNTRLTYPE, NVME_CTRL_ADMIN, .discovery = true,
	  .ret = -EINVAL },
	/* SGLs */
	{ "SGLS 0", ID_SGLS, 0, .ret = -EINVAL },
	{ "SGLS keyed only, no support bits", ID_SGLS, BIT(2), .ret = -EINVAL },
	{ "SGLS dword aligned", ID_SGLS, 2, .sectors = TEST_SECTORS },
	{ "SGLS support bits reserved 11b", ID_SGLS, 3, .sectors = TEST_SECTORS },
	/* Controller ID */
	{ "CNTLID not the one from Connect", ID_CNTLID, TEST_CNTLID + 1, .ret = -EINVAL },
	{ "CNTLID 0 as Connect said", ID_CNTLID, 0, .conn_cntlid = CONN(0),
	  .sectors = TEST_SECTORS },
	{ "CNTLID FFEFh, the highest", ID_CNTLID, NVME_CNTLID_MAX,
	  .conn_cntlid = CONN(NVME_CNTLID_MAX), .sectors = TEST_SECTORS },
	{ "CNTLID FFF0h reserved", ID_CNTLID, 0xfff0, .conn_cntlid = CONN(0xfff0),
	  .ret = -EINVAL },
	{ "CNTLID FFFFh (dynamic) echoed", ID_CNTLID, NVME_CNTLID_DYNAMIC,
	  .conn_cntlid = CONN(NVME_CNTLID_DYNAMIC), .ret = -EINVAL },
	/* MDTS and CAP.MPSMIN */
	{ "MDTS 0, no limit", ID_MDTS, 0, .sectors = CAP_SECTORS },
	{ "MDTS 1, 8 KiB", ID_MDTS, 1, .sectors = 16 },
	{ "MDTS 11, 8 MiB", ID_MDTS, 11, .sectors = CAP_SECTORS },
	{ "MDTS 12, 16 MiB capped", ID_MDTS, 12, .sectors = CAP_SECTORS },
	{ "MDTS 19, 2 GiB capped", ID_MDTS, 19, .sectors = CAP_SECTORS },
	{ "MDTS 20, 4 GiB: no 32-bit shift", ID_MDTS, 20, .sectors = CAP_SECTORS },
	{ "MDTS 255", ID_MDTS, 255, .sectors = CAP_SECTORS },
	{ "MPSMIN 1 (8 KiB pages)", ID_NONE, .mpsmin = 1, .sectors = 2 * TEST_SECTORS },
	{ "MPSMIN 4, MDTS 1: 128 KiB", ID_MDTS, 1, .mpsmin = 4, .sectors = 256 },
	{ "MPSMIN 15, MDTS 4: 2 GiB capped", ID_MDTS, 4, .mpsmin = 15,
	  .sectors = CAP_SECTORS },
	{ "MPSMIN 15, MDTS 5: 4 GiB", ID_MDTS, 5, .mpsmin = 15, .sectors = CAP_SECTORS },
	{ "MPSMIN 15, MDTS 255", ID_MDTS, 255, .mpsmin = 15, .sectors = CAP_SECTORS },
};

/* Copy @s into a fixed-width identify string, padded with spaces. */
static void id_put_str(char *dst, size_t len, const char *s)
{
	memset(dst, ' ', len);
	memcpy(dst, s, min(strlen(s), len));
}

/* A valid Identify Controller of an NVMe/TCP I/O controller. */
static void id_ctrl_build(struct nvme_id_ctrl *id)
{
	memset(id, 0, sizeof(*id));
	id_put_str(id->sn, sizeof(id->sn), "SN-0042");
	id_put_str(id->mn, sizeof(id->mn), "nvfab test ctrl");
	id_put_str(id->fr, sizeof(id->fr), "1.0");
	id->mdts = TEST_MDTS;
	id->cntlid = cpu_to_le16(TEST_CNTLID);
	id->oaes = cpu_to_le32(NVME_AEN_CFG_NS_ATTR);
	id->ctratt = cpu_to_le32(NVME_CTRL_ATTR_TBKAS);
	id->kas = cpu_to_le16(10);
	id->nn = cpu_to_le32(32);
	id->oncs = cpu_to_le16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	id->vwc = NVME_CTRL_VWC_PRESENT;
	id->sgls = cpu_to_le32(1);
	id->maxcmd = cpu_to_le16(128);
	id->sqes = (NVME_NVM_IOSQES << 4) | NVME_NVM_IOSQES;
	id->cqes = (NVME_NVM_IOCQES << 4) | NVME_NVM_IOCQES;
	id->ioccsz = cpu_to_le32((64 + 8192) / 16);
	id->iorcsz = cpu_to_le32(1);
	strscpy(id->subnqn, TEST_NQN, sizeof(id->subnqn));
}

static void id_ctrl_mutate(struct nvme_id_ctrl *id, const struct id_case *c)
{
	switch (c->field) {
	case ID_NONE:
		break;
	case ID_SUBNQN:
		memset(id->subnqn, 0, sizeof(id->subnqn));
		memcpy(id->subnqn, c->str, strlen(c->str));
		break;
	case ID_SUBNQN_FILL:
		memset(id->subnqn, 0, sizeof(id->subnqn));
		memset(id->subnqn, 'n', c->val);
		break;
	case ID_SUBNQN_TAIL:
		memset(id->subnqn + sizeof(TEST_NQN), 'x',
		       sizeof(id->subnqn) - sizeof(TEST_NQN));
		break;
	case ID_CNTLID:
		id->cntlid = cpu_to_le16(c->val);
		break;
	case ID_MDTS:
		id->mdts = c->val;
		break;
	case ID_IOCCSZ:
		id->ioccsz = cpu_to_le32(c->val);
		break;
	case ID_IORCSZ:
		id->iorcsz = cpu_to_le32(c->val);
		break;
	case ID_SGLS:
		id->sgls = cpu_to_le32(c->val);
		break;
	case ID_NN:
		id->nn = cpu_to_le32(c->val);
		break;
	case ID_MAXCMD:
		id->maxcmd = cpu_to_le16(c->val);
		break;
	case ID_SQES:
		id->sqes = c->val;
		break;
	case ID_CQES:
		id->cqes = c->val;
		break;
	case ID_CNTRLTYPE:
		id->cntrltype = c->val;
		break;
	}
}

static void id_case_desc(const struct id_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(id, id_cases, id_case_desc);

static void nvfab_id_ctrl_test(struct kunit *test)
{
	const struct id_case *c = test->param_value;
	struct nvfab_id_info *out, *poison;
	struct nvme_id_ctrl *id;
	const char *want = c->want ? c->want : TEST_NQN;
	u16 cntlid = c->conn_cntlid ? (u16)c->conn_cntlid : TEST_CNTLID;
	int ret;

	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	poison = kunit_kzalloc(test, sizeof(*poison), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, poison);

	id_ctrl_build(id);
	id_ctrl_mutate(id, c);
	if (want == want_same) {
		char *same = kunit_kzalloc(test, NVMF_NQN_FIELD_LEN + 1,
					   GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, same);
		memcpy(same, id->subnqn, NVMF_NQN_FIELD_LEN);
		want = same;
	}
	memset(out, 0xa5, sizeof(*out));
	memset(poison, 0xa5, sizeof(*poison));

	ret = nvfab_check_id_ctrl(id, want, c->discovery,
				  (u64)c->mpsmin << 48, cntlid, out, NULL);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret) {
		/* Nothing of a rejected structure may leak out. */
		KUNIT_EXPECT_MEMEQ(test, out, poison, sizeof(*out));
		return;
	}
	KUNIT_EXPECT_EQ(test, out->max_hw_sectors, c->sectors);
	KUNIT_EXPECT_EQ(test, strnlen(out->subsysnqn, sizeof(out->subsysnqn)),
			strnlen(id->subnqn, NVMF_NQN_SIZE));
	KUNIT_EXPECT_EQ(test, strncmp(out->subsysnqn, id->subnqn,
				      sizeof(out->subsysnqn)), 0);
	KUNIT_EXPECT_EQ(test, out->ioccsz, le32_to_cpu(id->ioccsz));
	KUNIT_EXPECT_EQ(test, out->iorcsz, le32_to_cpu(id->iorcsz));
	KUNIT_EXPECT_EQ(test, out->sgls, le32_to_cpu(id->sgls));
	KUNIT_EXPECT_EQ(test, out->nn, le32_to_cpu(id->nn));
}

/* Every other field of a valid structure, with byte-order conversion. */
static void nvfab_id_ctrl_fields_test(struct kunit *test)
{
	struct nvfab_id_info *out;
	struct nvme_id_ctrl *id;

	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_ASSERT_NOT_NULL(test, out);
	id_ctrl_build(id);
	id->icdoff = cpu_to_le16(0x1234);
	id->kas = cpu_to_le16(0x5678);
	id->oaes = cpu_to_le32(0x80000100);
	id->oncs = cpu_to_le16(0x8001);
	id->vid = cpu_to_le16(0x1b36);

	KUNIT_ASSERT_EQ(test, nvfab_check_id_ctrl(id, TEST_NQN, false, 0,
						  TEST_CNTLID, out, NULL), 0);
	KUNIT_EXPECT_STREQ(test, out->subsysnqn, TEST_NQN);
	KUNIT_EXPECT_EQ(test, out->vid, 0x1b36);
	KUNIT_EXPECT_STREQ(test, out->serial, "SN-0042");
	KUNIT_EXPECT_STREQ(test, out->model, "nvfab test ctrl");
	KUNIT_EXPECT_STREQ(test, out->firmware_rev, "1.0");
	KUNIT_EXPECT_EQ(test, out->icdoff, 0x1234);
	KUNIT_EXPECT_EQ(test, out->kas, 0x5678);
	KUNIT_EXPECT_EQ(test, out->oaes, 0x80000100);
	KUNIT_EXPECT_EQ(test, out->oncs, 0x8001);
	KUNIT_EXPECT_EQ(test, out->ctratt_tbkas, 1);
	KUNIT_EXPECT_EQ(test, out->vwc, NVME_CTRL_VWC_PRESENT);

	/* CTRATT bits other than TBKAS do not count. */
	id->ctratt = cpu_to_le32(~NVME_CTRL_ATTR_TBKAS);
	KUNIT_ASSERT_EQ(test, nvfab_check_id_ctrl(id, TEST_NQN, false, 0,
						  TEST_CNTLID, out, NULL), 0);
	KUNIT_EXPECT_EQ(test, out->ctratt_tbkas, 0);
}

/* Full-width strings stay unterminated; NUL padding ends them too. */
static void nvfab_id_ctrl_strings_test(struct kunit *test)
{
	struct nvfab_id_info *out;
	struct nvme_id_ctrl *id;

	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_ASSERT_NOT_NULL(test, out);
	id_ctrl_build(id);
	memset(id->sn, 'S', sizeof(id->sn));
	memset(id->mn, 0, sizeof(id->mn));
	memcpy(id->mn, "mn ", 3);
	memset(id->fr, ' ', sizeof(id->fr));

	KUNIT_ASSERT_EQ(test, nvfab_check_id_ctrl(id, TEST_NQN, false, 0,
						  TEST_CNTLID, out, NULL), 0);
	KUNIT_EXPECT_MEMEQ(test, out->serial, id->sn, sizeof(out->serial));
	KUNIT_EXPECT_STREQ(test, out->model, "mn");
	KUNIT_EXPECT_EQ(test, out->firmware_rev[0], '\0');
}

static struct kunit_case nvfab_id_ctrl_cases[] = {
	KUNIT_CASE_PARAM(nvfab_id_ctrl_test, id_gen_params),
	KUNIT_CASE(nvfab_id_ctrl_fields_test),
	KUNIT_CASE(nvfab_id_ctrl_strings_test),
	{}
};

static struct kunit_suite nvfab_id_ctrl_suite = {
	.name = "nvfab_id_ctrl",
	.test_cases = nvfab_id_ctrl_cases,
};

/* ---- Active Namespace ID list pages ---- */

#define NS_PAGE		8	/* entries per test page */
#define NS_NO_ENTRIES	(-1)	/* a page of 0 entries */

struct ns_list_case {
	const char *desc;
	u32 prev;		/* the NSID the page was asked for after */
	u32 nsids[NS_PAGE];
	int n;			/* entries; 0: NS_PAGE */
	int ret;		/* entries to act on, or -errno */
	bool end;
	u32 nn;			/* NN; 0: FFFFFFFEh */
};

static const struct ns_list_case ns_list_cases[] = {
	{ "empty list", 0, { 0 }, .ret = 0, .end = true },
	{ "one namespace", 0, { 1 }, .ret = 1, .end = true },
	{ "dense 1..3", 0, { 1, 2, 3 }, .ret = 3, .end = true },
	{ "sparse", 0, { 2, 5, 100, 70000 }, .ret = 4, .end = true },
	{ "full page goes on", 0, { 1, 2, 3, 4, 5, 6, 7, 8 }, .ret = 8 },
	{ "full page up to FFFFFFFEh ends", 0, { 1, 2, 3, 4, 5, 6, 7, 0xfffffffe },
	  .ret = 8, .end = true },
	{ "FFFFFFFEh, the highest NSID", 0, { 0xfffffffe }, .ret = 1, .end = true },
	{ "next page above prev", 8, { 9, 10 }, .ret = 2, .end = true },
	{ "next page empty", 8, { 0 }, .ret = 0, .end = true },
	{ "after FFFFFFFEh, empty", 0xfffffffe, { 0 }, .ret = 0, .end = true },
	{ "entries after the end ignored", 0, { 1, 0, 7, 3 }, .ret = 1, .end = true },
	{ "bad entry after the end ignored", 0, { 1, 0, 0xffffffff }, .ret = 1,
	  .end = true },
	{ "short page read in full", 0, { 1, 2, 0 }, .n = 2, .ret = 2 },
	{ "zero-length page ends", 0, { 1 }, .n = NS_NO_ENTRIES, .ret = 0, .end = true },
	{ "next page repeats prev", 8, { 8, 9 }, .ret = -EINVAL },
	{ "next page below prev", 8, { 3, 9 }, .ret = -EINVAL },
	{ "duplicate NSID", 0, { 1, 1 }, .ret = -EINVAL },
	{ "decreasing NSIDs", 0, { 1, 3, 2 }, .ret = -EINVAL },
	{ "decrease at the page end", 0, { 1, 2, 3, 4, 5, 6, 7, 6 }, .ret = -EINVAL },
	{ "FFFFFFFFh first", 0, { 0xffffffff }, .ret = -EINVAL },
	{ "FFFFFFFFh after a valid NSID", 0, { 5, 0xffffffff }, .ret = -EINVAL },
	{ "FFFFFFFFh after FFFFFFFEh", 0xfffffffe, { 0xffffffff }, .ret = -EINVAL },
	/* NN bounds the NSIDs and so the pages a scan reads */
	{ "NSID equal to NN", 0, { 1, 5 }, .nn = 5, .ret = 2, .end = true },
	{ "NSID above NN", 0, { 1, 2, 6 }, .nn = 5, .ret = -EINVAL },
	{ "first NSID above NN 1", 0, { 2 }, .nn = 1, .ret = -EINVAL },
	{ "full page ending at NN ends", 0, { 1, 2, 3, 4, 5, 6, 7, 8 }, .nn = 8,
	  .ret = 8, .end = true },
	{ "full page below NN goes on", 0, { 1, 2, 3, 4, 5, 6, 7, 8 }, .nn = 9,
	  .ret = 8 },
	{ "next page past NN", 8, { 9 }, .nn = 8, .ret = -EINVAL },
};

static void ns_list_case_desc(const struct ns_list_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ns_list, ns_list_cases, ns_list_case_desc);

static void nvfab_ns_list_test(struct kunit *test)
{
	const struct ns_list_case *c = test->param_value;
	unsigned int n = !c->n ? NS_PAGE : c->n == NS_NO_ENTRIES ? 0 : c->n;
	__le32 *page;
	bool end = !c->end;	/* must be written on success */
	unsigned int i;
	int ret;

	page = kunit_kcalloc(test, NS_PAGE, sizeof(*page), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	for (i = 0; i < NS_PAGE; i++)
		page[i] = cpu_to_le32(c->nsids[i]);

	ret = nvfab_check_ns_list_page(page, n, c->prev,
				       c->nn ? c->nn : NVME_NSID_ALL - 1, &end,
				       NULL);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret >= 0)
		KUNIT_EXPECT_EQ(test, end, c->end);
}

static struct kunit_case nvfab_ns_list_cases[] = {
	KUNIT_CASE_PARAM(nvfab_ns_list_test, ns_list_gen_params),
	{}
};

static struct kunit_suite nvfab_ns_list_suite = {
	.name = "nvfab_ns_list",
	.test_cases = nvfab_ns_list_cases,
};

/*
 * nvfab_sqflow: a Connect that asked for SQ flow control disabled failed
 * with a status and Dword 0 from the target. Only Invalid Field, or
 * Connect Invalid Parameters pointing at CATTR or nowhere in the SQE (any
 * DNR/More/CRD bits), of a request the host made by itself mean "connect
 * again with SQ flow control".
 */
struct sqflow_case {
	const char	*name;
	bool		auto_asked;
	int		status;
	u32		result;		/* Dword 0: IPO 15:0, IATTR bit 16 */
	bool		refusal;
};

#define IPO_CATTR	46
#define IATTR_DATA	BIT(16)

static const struct sqflow_case sqflow_cases[] = {
	{ "Connect Invalid Parameters, IPO CATTR", true, 0x182, IPO_CATTR, true },
	{ "the same, DNR", true, 0x4182, IPO_CATTR, true },
	{ "Connect Invalid Parameters, no IPO", true, 0x4182, 0, true },
	{ "Invalid Field in Command", true, 0x002, 0, true },
	{ "Invalid Field, any Dword 0", true, 0x002, 0xffffffff, true },
	{ "Invalid Field, DNR and More", true, 0x6002, 0, true },
	{ "Invalid Field, CRD 3", true, 0x1802, 0, true },
	{ "IATTR data: SUBNQN (nvmet, unknown subsystem)", true, 0x4182,
	  IATTR_DATA | 256, false },
	{ "IATTR data: HOSTNQN", true, 0x4182, IATTR_DATA | 512, false },
	{ "IATTR data: CNTLID", true, 0x4182, IATTR_DATA | 16, false },
	{ "IATTR data, IPO CATTR's offset", true, 0x4182,
	  IATTR_DATA | IPO_CATTR, false },
	{ "IATTR 0, IPO QID", true, 0x4182, 42, false },
	{ "IATTR 0, IPO SQSIZE", true, 0x4182, 44, false },
	{ "IPO CATTR in the upper half (IPO 0: nowhere)", true, 0x4182,
	  IPO_CATTR << 16, true },
	{ "user asked (disable_sqflow)", false, 0x4182, IPO_CATTR, false },
	{ "success", true, 0, 0, false },
	{ "errno", true, -EIO, 0, false },
	{ "timeout errno", true, -ETIMEDOUT, 0, false },
	{ "Controller Busy", true, 0x181, 0, false },
	{ "Incompatible Format", true, 0x180, 0, false },
	{ "Connect Invalid Host", true, 0x184, 0, false },
	{ "Invalid Opcode", true, 0x001, 0, false },
	{ "SC 82h of SCT 0 (not 1)", true, 0x082, IPO_CATTR, false },
	{ "SC 02h of SCT 3 (path)", true, 0x302, 0, false },
	{ "SC 82h of SCT 3", true, 0x382, IPO_CATTR, false },
	{ "SC 02h of SCT 7 (vendor)", true, 0x702, 0, false },
	{ "all bits set", true, 0x7fff, 0, false },
	{ "INT_MAX", true, INT_MAX, 0, false },
};

static void sqflow_case_desc(const struct sqflow_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqflow, sqflow_cases, sqflow_case_desc);

static void nvfab_sqflow_test(struct kunit *test)
{
	const struct sqflow_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_sqflow_refusal(c->auto_asked, c->status,
						   c->result),
			c->refusal);
}

static struct kunit_case nvfab_sqflow_cases[] = {
	KUNIT_CASE_PARAM(nvfab_sqflow_test, sqflow_gen_params),
	{}
};

static struct kunit_suite nvfab_sqflow_suite = {
	.name = "nvfab_sqflow",
	.test_cases = nvfab_sqflow_cases,
};

struct authreq_case {
	const char *name;
	u32 result;
	int ret;
};

#define ATR	BIT(17)
#define ASCR	BIT(18)

static const struct authreq_case authreq_cases[] = {
	{ "no AUTHREQ", 0, 0 },
	{ "no AUTHREQ, CNTLID 0xffff", 0xffff, 0 },
	{ "bit 16 (below AUTHREQ)", BIT(16), 0 },
	{ "bits 31:19 (above AUTHREQ)", GENMASK(31, 19), 0 },
	{ "ATR", ATR, -ENOKEY },
	{ "ATR with a CNTLID", ATR | 0x21, -ENOKEY },
	{ "ASCR", ASCR, -EOPNOTSUPP },
	{ "ATR and ASCR", ATR | ASCR, -EOPNOTSUPP },
	{ "all bits set", 0xffffffff, -EOPNOTSUPP },
};

static void authreq_case_desc(const struct authreq_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(authreq, authreq_cases, authreq_case_desc);

static void nvfab_authreq_test(struct kunit *test)
{
	const struct authreq_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_connect_authreq(c->result), c->ret);
}

static struct kunit_case nvfab_authreq_cases[] = {
	KUNIT_CASE_PARAM(nvfab_authreq_test, authreq_gen_params),
	{}
};

static struct kunit_suite nvfab_authreq_suite = {
	.name = "nvfab_authreq",
	.test_cases = nvfab_authreq_cases,
};

kunit_test_suites(&nvfab_id_ctrl_suite, &nvfab_ns_list_suite,
		  &nvfab_sqflow_suite, &nvfab_authreq_suite);

MODULE_DESCRIPTION("KUnit tables of hostile Identify data for nvfab-core");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
