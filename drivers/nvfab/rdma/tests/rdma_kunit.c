// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for nvfab-rdma's wire encodings and checks: the CM connect
 * private data, REJECT private data decoding and naming (hostile values
 * included), the SGL descriptors of a command (keyed data block, in-capsule
 * offset), the in-capsule vs keyed decision, and the response checks that
 * refuse stale and duplicate CIDs and foreign remote invalidations.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/unaligned.h>

#include <nvfab/compat.h>
#include "../rdma.h"

/* ---- CM connect private data ---- */

struct cm_req_case {
	const char *desc;
	u16 qid, hrqsize, hsqsize;
	u8 bytes[8];
};

static const struct cm_req_case cm_req_cases[] = {
	{ "admin queue, 32 entries", 0, 32, 31,
	  { 0, 0, 0, 0, 32, 0, 31, 0 } },
	{ "I/O queue 1, 128 entries", 1, 128, 127,
	  { 0, 0, 1, 0, 128, 0, 127, 0 } },
	{ "I/O queue 0x1234, 256 entries, little endian", 0x1234, 256, 255,
	  { 0, 0, 0x34, 0x12, 0, 1, 255, 0 } },
	{ "largest values", 0xffff, 0xffff, 0xfffe,
	  { 0, 0, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff } },
};

KUNIT_ARRAY_PARAM_DESC(cm_req, cm_req_cases, desc);

static void nvfab_rdma_cm_req_test(struct kunit *test)
{
	const struct cm_req_case *c = test->param_value;
	struct nvme_rdma_cm_req priv;
	u8 *raw = (u8 *)&priv;
	int i;

	memset(&priv, 0xa5, sizeof(priv));
	nvfab_rdma_cm_req_init(&priv, c->qid, c->hrqsize, c->hsqsize);
	KUNIT_EXPECT_EQ(test, sizeof(priv), 32);
	KUNIT_EXPECT_MEMEQ(test, raw, c->bytes, sizeof(c->bytes));
	/* CNTLID and the reserved bytes are zero */
	for (i = sizeof(c->bytes); i < sizeof(priv); i++)
		KUNIT_EXPECT_EQ_MSG(test, raw[i], 0, "byte %d", i);
}

/* ---- REJECT private data ---- */

struct rej_case {
	const char *desc;
	u8 data[8];
	u8 len;
	bool null;
	int ret;
	u16 sts;
	const char *name;	/* prefix of the name, for ret 0 */
};

static const struct rej_case rej_cases[] = {
	{ "INVALID_LEN", { 0, 0, 1, 0 }, 4, false, 0, 1, "INVALID_LEN" },
	{ "INVALID_RECFMT", { 0, 0, 2, 0 }, 4, false, 0, 2, "INVALID_RECFMT" },
	{ "INVALID_QID", { 0, 0, 3, 0 }, 4, false, 0, 3, "INVALID_QID" },
	{ "INVALID_HSQSIZE", { 0, 0, 4, 0 }, 4, false, 0, 4,
	  "INVALID_HSQSIZE" },
	{ "INVALID_HRQSIZE", { 0, 0, 5, 0 }, 4, false, 0, 5,
	  "INVALID_HRQSIZE" },
	{ "NO_RSC", { 0, 0, 6, 0 }, 4, false, 0, 6, "NO_RSC" },
	{ "INVALID_IRD", { 0, 0, 7, 0 }, 4, false, 0, 7, "INVALID_IRD" },
	{ "INVALID_ORD", { 0, 0, 8, 0 }, 4, false, 0, 8, "INVALID_ORD" },
	{ "INVALID_CNTLID", { 0, 0, 9, 0 }, 4, false, 0, 9,
	  "INVALID_CNTLID" },
	{ "status 0: the CM's zero padding, no NVMe data", { 0, 0, 0, 0 }, 4,
	  false, -ENODATA, 0, NULL },
	{ "status 0xffff is not defined", { 0, 0, 0xff, 0xff }, 4, false, 0,
	  0xffff, "unknown" },
	{ "padded by the CM to 8 bytes", { 0, 0, 6, 0, 0xff, 0xff, 0xff, 0xff },
	  8, false, 0, 6, "NO_RSC" },
	{ "RECFMT 1 is refused", { 1, 0, 3, 0 }, 4, false, -EPROTO, 0, NULL },
	{ "RECFMT 0xffff is refused", { 0xff, 0xff, 3, 0 }, 4, false, -EPROTO,
	  0, NULL },
	{ "3 bytes: no NVMe data", { 0, 0, 3 }, 3, false, -ENODATA, 0, NULL },
	{ "empty", { }, 0, false, -ENODATA, 0, NULL },
	{ "no private data at all", { }, 0, true, -ENODATA, 0, NULL },
};

KUNIT_ARRAY_PARAM_DESC(rej, rej_cases, desc);

static void nvfab_rdma_reject_test(struct kunit *test)
{
	const struct rej_case *c = test->param_value;
	const char *name;
	u16 sts = 0xdead;
	int ret;

	ret = nvfab_rdma_cm_decode_reject(c->null ? NULL : c->data, c->len,
					  &sts);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret) {
		KUNIT_EXPECT_EQ(test, sts, 0xdead);
		return;
	}
	KUNIT_EXPECT_EQ(test, sts, c->sts);
	name = nvfab_rdma_cm_status_name(sts);
	KUNIT_EXPECT_TRUE_MSG(test, !strncmp(name, c->name, strlen(c->name)),
			      "name \"%s\"", name);
}

/* ---- SGL descriptors ---- */

struct keyed_case {
	const char *desc;
	u64 addr;
	u32 len, key;
	bool inv;
	u8 bytes[16];
};

static const struct keyed_case keyed_cases[] = {
	{ "no data: zero keyed data block", 0, 0, 0, false,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40 } },
	{ "128 KiB with invalidate", 0x1122334455667788ULL, 0x20000,
	  0xaabbccdd, true,
	  { 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	    0, 0, 2, 0xdd, 0xcc, 0xbb, 0xaa, 0x4f } },
	{ "4 KiB without invalidate", 0x1000, 4096, 0x01020304, false,
	  { 0, 0x10, 0, 0, 0, 0, 0, 0,
	    0, 0x10, 0, 4, 3, 2, 1, 0x40 } },
	{ "largest 3-byte length", ~0ULL, 0xffffff, ~0U, true,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x4f } },
};

KUNIT_ARRAY_PARAM_DESC(keyed, keyed_cases, desc);

static void nvfab_rdma_keyed_test(struct kunit *test)
{
	const struct keyed_case *c = test->param_value;
	struct nvme_command cmd = { };

	nvfab_rdma_sgl_keyed(&cmd, c->addr, c->len, c->key, c->inv);
	KUNIT_EXPECT_MEMEQ(test, &cmd.common.dptr, c->bytes, 16);
	KUNIT_EXPECT_EQ(test, cmd.common.flags & NVME_CMD_SGL_ALL,
			NVME_CMD_SGL_METABUF);
}

struct inline_case {
	const char *desc;
	u32 icdoff, len;
	u8 bytes[16];
};

static const struct inline_case inline_cases[] = {
	{ "4 KiB at offset 0", 0, 4096,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x01 } },
	{ "512 bytes at ICDOFF 0x20", 0x20, 512,
	  { 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0x01 } },
	{ "8 KiB", 0, 8192,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0x01 } },
};

KUNIT_ARRAY_PARAM_DESC(inline, inline_cases, desc);

static void nvfab_rdma_inline_test(struct kunit *test)
{
	const struct inline_case *c = test->param_value;
	struct nvme_command cmd = { };

	nvfab_rdma_sgl_inline(&cmd, c->icdoff, c->len);
	KUNIT_EXPECT_MEMEQ(test, &cmd.common.dptr, c->bytes, 16);
	KUNIT_EXPECT_EQ(test, cmd.common.flags & NVME_CMD_SGL_ALL,
			NVME_CMD_SGL_METABUF);
}

/* ---- in-capsule or keyed ---- */

struct use_inline_case {
	const char *desc;
	bool write;
	u32 len;
	int nents;
	u32 inline_max, max_segs;
	bool want;
};

static const struct use_inline_case use_inline_cases[] = {
	{ "4 KiB write fits 4 KiB IOCCSZ data", true, 4096, 1, 4096, 4, true },
	{ "4 KiB + 512 write exceeds it", true, 4608, 2, 4096, 4, false },
	{ "128 KiB write is keyed", true, 131072, 32, 4096, 4, false },
	{ "read is never in capsule", false, 512, 1, 4096, 4, false },
	{ "admin queue has no in-capsule data", true, 512, 1, 0, 4, false },
	{ "more segments than send SGEs", true, 4096, 5, 8192, 4, false },
	{ "exactly the send SGEs", true, 4096, 4, 8192, 4, true },
	{ "device with no spare SGE", true, 512, 1, 4096, 0, false },
	{ "no data", true, 0, 0, 4096, 4, false },
};

KUNIT_ARRAY_PARAM_DESC(use_inline, use_inline_cases, desc);

static void nvfab_rdma_use_inline_test(struct kunit *test)
{
	const struct use_inline_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_rdma_use_inline(c->write, c->len, c->nents,
						    c->inline_max, c->max_segs),
			c->want);
}

/* ---- response checks ---- */

struct rsp_case {
	const char *desc;
	bool found, responded, with_inv, has_mr;
	u32 mr_rkey, inv_rkey;
	int ret;
};

static const struct rsp_case rsp_cases[] = {
	{ "response to a command in flight", true, false, false, false, 0, 0,
	  0 },
	{ "stale CID (completed, or an old generation)", false, false, false,
	  false, 0, 0, -EPROTO },
	{ "duplicate response", true, true, false, false, 0, 0, -EPROTO },
	{ "duplicate response with invalidate", true, true, true, true, 0x100,
	  0x100, -EPROTO },
	{ "remote invalidate of the command's rkey", true, false, true, true,
	  0x1234, 0x1234, 0 },
	{ "remote invalidate of another rkey", true, false, true, true,
	  0x1234, 0x1235, -EPROTO },
	{ "remote invalidate without an MR", true, false, true, false, 0, 0,
	  -EPROTO },
	{ "keyed command answered without invalidate", true, false, false,
	  true, 0x42, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(rsp, rsp_cases, desc);

static void nvfab_rdma_rsp_test(struct kunit *test)
{
	const struct rsp_case *c = test->param_value;
	struct ib_mr mr = { .rkey = c->mr_rkey };
	const char *why;

	KUNIT_EXPECT_EQ(test, nvfab_rdma_check_rsp(c->found, c->responded,
						   c->with_inv,
						   c->has_mr ? &mr : NULL,
						   c->inv_rkey, &why),
			c->ret);
	if (c->ret)
		KUNIT_EXPECT_NOT_NULL(test, why);
	else
		KUNIT_EXPECT_NULL(test, why);
}

/* ---- work completion status ---- */

struct wc_case {
	const char *desc;
	enum ib_wc_status status;
	bool live, error;
};

static const struct wc_case wc_cases[] = {
	{ "success on a live queue", IB_WC_SUCCESS, true, false },
	{ "success on a stopped queue", IB_WC_SUCCESS, false, false },
	{ "flush on a live queue: the QP left RTS", IB_WC_WR_FLUSH_ERR, true,
	  true },
	{ "flush while the queue is stopped", IB_WC_WR_FLUSH_ERR, false,
	  false },
	{ "retry counter exceeded", IB_WC_RETRY_EXC_ERR, true, true },
	{ "retry counter exceeded on a stopped queue", IB_WC_RETRY_EXC_ERR,
	  false, true },
	{ "local QP operation error", IB_WC_LOC_QP_OP_ERR, true, true },
	{ "remote access error", IB_WC_REM_ACCESS_ERR, true, true },
	{ "local protection error", IB_WC_LOC_PROT_ERR, false, true },
	{ "general error", IB_WC_GENERAL_ERR, true, true },
};

KUNIT_ARRAY_PARAM_DESC(wc, wc_cases, desc);

static void nvfab_rdma_wc_test(struct kunit *test)
{
	const struct wc_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_rdma_wc_is_error(c->status, c->live),
			c->error);
}

static struct kunit_case nvfab_rdma_cases[] = {
	KUNIT_CASE_PARAM(nvfab_rdma_cm_req_test, cm_req_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_reject_test, rej_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_keyed_test, keyed_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_inline_test, inline_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_use_inline_test, use_inline_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_rsp_test, rsp_gen_params),
	KUNIT_CASE_PARAM(nvfab_rdma_wc_test, wc_gen_params),
	{}
};

static struct kunit_suite nvfab_rdma_suite = {
	.name = "nvfab_rdma",
	.test_cases = nvfab_rdma_cases,
};

kunit_test_suite(nvfab_rdma_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab-rdma's wire encodings and checks");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
