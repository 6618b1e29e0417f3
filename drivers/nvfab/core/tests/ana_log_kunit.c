// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the ANA log page parser (NVMe Base 2.0, 5.16.1.12): logs
 * a target could send, well formed or not, built by a small builder; every
 * prefix of a valid log; seeded random logs; the size of the read.
 *
 * Each log is parsed from a buffer of exactly its length, so that KASAN
 * reports any read past it. The parser's one message per rejection goes
 * through nvfab_ana_log_report(), which the tests stub to count messages
 * and keep the last one.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/args.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "../multipath/ana-log.h"
#include <nvfab/compat.h>

#define ANA_HDR		sizeof(struct nvme_ana_rsp_hdr)
#define ANA_DESC	sizeof(struct nvme_ana_group_desc)
#define ANA_BLD_MAX	512	/* bytes: larger than any log built here */
#define ANA_MAX_GRPS	5	/* descriptors in one table row */
#define ANA_MAX_NSIDS	4	/* NSIDs per descriptor in one table row */

/* What one test saw: messages printed, descriptors handed out. */
struct ana_ctx {
	unsigned int msgs;
	char msg[192];
	unsigned int calls;
	unsigned int fail_at;	/* callback number that returns fail_ret */
	int fail_ret;
	const u8 *buf;		/* the buffer parsed, to bound descriptors */
	size_t len;
	bool oob;		/* a descriptor handed out was not inside it */
	struct ana_seen {
		u32 grpid;
		u8 state;	/* as nvfab_ana_desc_state() reads it */
		u32 nnsids;
		u32 nsids[ANA_MAX_NSIDS];
	} seen[ANA_MAX_GRPS];
};

static void ana_fake_report(struct device *dev, const struct va_format *vaf)
{
	struct kunit *test = kunit_get_current_test();
	struct ana_ctx *ctx = test->priv;

	ctx->msgs++;
	snprintf(ctx->msg, sizeof(ctx->msg), "%pV", vaf);
}

static int ana_record(const struct nvme_ana_group_desc *desc, void *data)
{
	struct ana_ctx *ctx = data;
	const u8 *p = (const u8 *)desc;
	size_t off, room;
	u32 nnsids, i;

	ctx->calls++;
	if (p < ctx->buf || (size_t)(p - ctx->buf) > ctx->len ||
	    ctx->len - (p - ctx->buf) < ANA_DESC) {
		ctx->oob = true;
		return -EFAULT;
	}
	off = p - ctx->buf;
	room = (ctx->len - off - ANA_DESC) / sizeof(__le32);
	nnsids = get_unaligned_le32(&desc->nnsids);
	if (nnsids > room) {
		ctx->oob = true;
		return -EFAULT;
	}
	if (ctx->calls <= ANA_MAX_GRPS) {
		struct ana_seen *s = &ctx->seen[ctx->calls - 1];

		s->grpid = get_unaligned_le32(&desc->grpid);
		s->state = nvfab_ana_desc_state(desc);
		s->nnsids = nnsids;
		for (i = 0; i < nnsids && i < ANA_MAX_NSIDS; i++)
			s->nsids[i] = get_unaligned_le32(&desc->nsids[i]);
	}
	if (ctx->fail_at && ctx->calls == ctx->fail_at)
		return ctx->fail_ret;
	return 0;
}

/* Parse @len bytes of @buf with ana_record(), from a clean context. */
static int ana_parse(struct kunit *test, const void *buf, size_t len,
		     u32 nanagrpid, u32 anagrpmax)
{
	struct ana_ctx *ctx = test->priv;

	ctx->msgs = 0;
	ctx->msg[0] = '\0';
	ctx->calls = 0;
	ctx->oob = false;
	ctx->buf = buf;
	ctx->len = len;
	memset(ctx->seen, 0, sizeof(ctx->seen));
	return nvfab_parse_ana_log(buf, len, nanagrpid, anagrpmax, ana_record,
				   ctx, NULL);
}

/* The builder: a header, then descriptors appended one at a time. */
struct ana_bld {
	struct kunit *test;
	u8 *buf;
	size_t cap;
	size_t len;
	unsigned int ngrps;
};

static void ana_bld_init(struct ana_bld *b, struct kunit *test, u8 *buf,
			 size_t cap)
{
	KUNIT_ASSERT_GE(test, cap, ANA_HDR);
	memset(buf, 0, cap);
	b->test = test;
	b->buf = buf;
	b->cap = cap;
	b->len = ANA_HDR;
	b->ngrps = 0;
	put_unaligned_le64(0x1122334455667788ULL, buf);	/* CHGCNT */
}

static void ana_bld_ngrps(struct ana_bld *b, u16 ngrps)
{
	struct nvme_ana_rsp_hdr *hdr = (struct nvme_ana_rsp_hdr *)b->buf;

	put_unaligned_le16(ngrps, &hdr->ngrps);
}

/* Append a descriptor whose NNSIDS field says @nnsids and that holds @n. */
static void ana_bld_grp(struct ana_bld *b, u32 grpid, u8 state, u32 nnsids,
			const u32 *nsids, unsigned int n)
{
	struct nvme_ana_group_desc *d;
	unsigned int i;

	KUNIT_ASSERT_LE(b->test, b->len + ANA_DESC + n * sizeof(__le32),
			b->cap);
	d = (struct nvme_ana_group_desc *)(b->buf + b->len);
	put_unaligned_le32(grpid, &d->grpid);
	put_unaligned_le32(nnsids, &d->nnsids);
	put_unaligned_le64(b->ngrps + 1, &d->chgcnt);
	d->state = state;
	for (i = 0; i < n; i++)
		put_unaligned_le32(nsids[i], &d->nsids[i]);
	b->len += ANA_DESC + n * sizeof(__le32);
	ana_bld_ngrps(b, ++b->ngrps);
}

/* A test-owned buffer of exactly @len bytes: @src, then 0xa5 filler. */
static u8 *ana_copy(struct kunit *test, const u8 *src, size_t srclen,
		    size_t len)
{
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, src, min(srclen, len));
	if (len > srclen)
		memset(buf + srclen, 0xa5, len - srclen);
	return buf;
}

/* ---- table of crafted logs ---- */

struct ana_grp {
	u32 grpid;
	u8 state;
	bool lie;		/* NNSIDS is .nnsids, not .n */
	u32 nnsids;
	unsigned int n;		/* NSIDs written */
	u32 nsids[ANA_MAX_NSIDS];
};

#define OPT	NVME_ANA_OPTIMIZED
#define NONOPT	NVME_ANA_NONOPTIMIZED
#define INACC	NVME_ANA_INACCESSIBLE
#define PLOSS	NVME_ANA_PERSISTENT_LOSS
#define CHANGE	NVME_ANA_CHANGE

/* A descriptor and its NSIDs; NNSIDS matches them. */
#define GRP(id, st, ...) { .grpid = (id), .state = (st),		\
	.n = COUNT_ARGS(__VA_ARGS__), .nsids = { __VA_ARGS__ } }
/* A descriptor whose NNSIDS says @nn whatever NSIDs follow. */
#define GRPN(id, st, nn, ...) { .grpid = (id), .state = (st),		\
	.lie = true, .nnsids = (nn),					\
	.n = COUNT_ARGS(__VA_ARGS__), .nsids = { __VA_ARGS__ } }
/* NANAGRPID and ANAGRPMAX (otherwise 16 and 16). */
#define CAPS(nana, gmax) .set_caps = true, .nanagrpid = (nana),	\
	.anagrpmax = (gmax)
/* NGRPS other than the number of descriptors built. */
#define NGRPS(v) .set_ngrps = true, .hdr_ngrps = (v)

struct ana_case {
	const char *desc;
	unsigned int ngrps;		/* descriptors built */
	struct ana_grp grps[ANA_MAX_GRPS];
	bool set_ngrps;
	u16 hdr_ngrps;
	bool set_caps;
	u32 nanagrpid;
	u32 anagrpmax;
	int len_adj;			/* bytes added to (cut from) the log */
	int ret;
	const char *field;		/* text the one message must contain */
};

static const struct ana_case ana_cases[] = {
	/* valid logs */
	{ "no groups", 0 },
	{ "no groups, NANAGRPID 0", 0, CAPS(0, 0) },
	{ "one group, no NSIDs", 1, { GRP(1, OPT) } },
	{ "three groups with NSIDs", 3,
	  { GRP(1, OPT, 1, 2, 3), GRP(2, NONOPT, 4, 7), GRP(5, INACC, 5, 6) } },
	{ "every valid state", 5,
	  { GRP(1, OPT, 1), GRP(2, NONOPT, 2), GRP(3, INACC, 3),
	    GRP(4, PLOSS, 4), GRP(5, CHANGE, 5) } },
	{ "NSIDs interleaved across groups", 2,
	  { GRP(1, OPT, 1, 3, 5), GRP(2, NONOPT, 2, 4, 6) } },
	{ "exactly full buffer", 2, { GRP(1, OPT, 1, 2), GRP(2, OPT, 3) } },
	{ "slack after the log is ignored", 2,
	  { GRP(1, OPT, 1), GRP(2, OPT, 2) }, .len_adj = 64 },
	{ "NGRPS 0 ignores a descriptor after it", 1, { GRP(0, 0, 0) },
	  NGRPS(0) },
	{ "NGRPS equal to NANAGRPID", 2, { GRP(1, OPT), GRP(2, INACC) },
	  CAPS(2, 2) },
	{ "ANAGRPID equal to ANAGRPMAX", 1, { GRP(16, OPT, 1) } },
	{ "ANAGRPID FFFFFFFFh with that ANAGRPMAX", 1,
	  { GRP(0xffffffff, OPT) }, CAPS(1, 0xffffffff) },
	{ "groups out of ANAGRPID order", 3,
	  { GRP(9, OPT, 9), GRP(3, OPT, 3), GRP(6, OPT, 6) } },
	{ "reserved state bits 7:4 ignored", 2,
	  { GRP(1, 0x80 | OPT, 1), GRP(2, 0xf0 | CHANGE) } },
	{ "NSIDs 1 and FFFFFFFEh", 1, { GRP(1, OPT, 1, 0xfffffffe) } },
	{ "four NSIDs in one group", 1, { GRP(1, OPT, 2, 3, 100, 1000) } },

	/* header */
	{ "empty buffer", 0, .len_adj = -16, .ret = -EINVAL,
	  .field = "header" },
	{ "15-byte buffer", 0, .len_adj = -1, .ret = -EINVAL,
	  .field = "header" },
	{ "NGRPS above NANAGRPID", 2, { GRP(1, OPT), GRP(2, OPT) },
	  CAPS(1, 16), .ret = -EINVAL, .field = "NGRPS 2 exceeds" },
	{ "NGRPS 1 with NANAGRPID 0", 1, { GRP(1, OPT) }, CAPS(0, 16),
	  .ret = -EINVAL, .field = "NGRPS" },
	{ "NGRPS FFFFh above NANAGRPID FFFEh", 1, { GRP(1, OPT) },
	  NGRPS(0xffff), CAPS(0xfffe, 16), .ret = -EINVAL, .field = "NGRPS" },
	{ "NGRPS FFFFh, one descriptor present", 1, { GRP(1, OPT) },
	  NGRPS(0xffff), CAPS(0xffffffff, 16), .ret = -EINVAL,
	  .field = "descriptor 1 at byte 48" },

	/* descriptor header */
	{ "NGRPS 1, no descriptor", 0, NGRPS(1), .ret = -EINVAL,
	  .field = "descriptor 0 at byte 16 overruns the 16-byte" },
	{ "NGRPS 3, two descriptors", 2, { GRP(1, OPT), GRP(2, OPT) },
	  NGRPS(3), .ret = -EINVAL, .field = "descriptor 2 at byte 80 overruns" },
	{ "descriptor cut by one byte", 1, { GRP(1, OPT) }, .len_adj = -1,
	  .ret = -EINVAL, .field = "descriptor 0 at byte 16 overruns the 47-byte" },

	/* ANAGRPID */
	{ "ANAGRPID 0", 1, { GRP(0, OPT) }, .ret = -EINVAL,
	  .field = "ANAGRPID 0 is not in" },
	{ "ANAGRPID above ANAGRPMAX", 1, { GRP(5, OPT) }, CAPS(16, 4),
	  .ret = -EINVAL, .field = "ANAGRPMAX 4" },
	{ "ANAGRPID FFFFFFFFh", 1, { GRP(0xffffffff, OPT) }, .ret = -EINVAL,
	  .field = "ANAGRPMAX" },
	{ "ANAGRPMAX 0", 1, { GRP(1, OPT) }, CAPS(16, 0), .ret = -EINVAL,
	  .field = "ANAGRPMAX 0" },
	{ "same ANAGRPID twice", 3, { GRP(1, OPT), GRP(2, OPT), GRP(1, OPT) },
	  .ret = -EINVAL, .field = "ANAGRPID 1 is in descriptors 0 and 2" },
	{ "same ANAGRPID, NSIDs apart", 2,
	  { GRP(4, OPT, 1), GRP(4, INACC, 2) }, .ret = -EINVAL,
	  .field = "ANAGRPID 4 is in descriptors" },

	/* ANA state */
	{ "state 0", 1, { GRP(1, 0) }, .ret = -EINVAL, .field = "ANA state" },
	{ "state 5", 1, { GRP(1, 5) }, .ret = -EINVAL, .field = "state 0x5" },
	{ "state 0Eh", 1, { GRP(1, 0x0e) }, .ret = -EINVAL,
	  .field = "ANA state" },
	{ "state 10h: reserved bit, state 0", 1, { GRP(1, 0x10) },
	  .ret = -EINVAL, .field = "ANA state" },
	{ "bad state in the last group", 3,
	  { GRP(1, OPT, 1), GRP(2, OPT, 2), GRP(3, 0x06, 3) },
	  .ret = -EINVAL, .field = "ANAGRPID 3: ANA state 0x6" },

	/* NNSIDS */
	{ "NNSIDS one more than present", 1, { GRPN(1, OPT, 3, 1, 2) },
	  .ret = -EINVAL, .field = "NNSIDS 3" },
	{ "NNSIDS FFFFFFFFh", 1, { GRPN(1, OPT, 0xffffffff, 1) },
	  .ret = -EINVAL, .field = "NNSIDS 4294967295" },
	{ "NNSIDS 40000000h: x4 wraps to 0 in 32 bits", 1,
	  { GRPN(1, OPT, 0x40000000) }, .ret = -EINVAL, .field = "NNSIDS" },
	{ "NNSIDS 40000001h: x4 wraps to 4 in 32 bits", 1,
	  { GRPN(1, OPT, 0x40000001, 1) }, .ret = -EINVAL, .field = "NNSIDS" },
	{ "last NSID cut by one byte", 2, { GRP(1, OPT, 1), GRP(2, OPT, 2) },
	  .len_adj = -1, .ret = -EINVAL, .field = "NNSIDS 1" },

	/* NSIDs */
	{ "NSID 0", 1, { GRP(1, OPT, 0) }, .ret = -EINVAL,
	  .field = "NSID[0] 0x0 is not a valid" },
	{ "NSID FFFFFFFFh", 1, { GRP(1, OPT, 1, 0xffffffff) }, .ret = -EINVAL,
	  .field = "NSID[1] 0xffffffff is not a valid" },
	{ "NSIDs descending", 1, { GRP(1, OPT, 5, 3) }, .ret = -EINVAL,
	  .field = "NSID[1] 3 not above NSID[0] 5" },
	{ "NSID twice in one group", 1, { GRP(1, OPT, 1, 3, 3) },
	  .ret = -EINVAL, .field = "NSID[2] 3 not above" },
	{ "NSID in two groups", 2, { GRP(1, OPT, 1, 2), GRP(2, OPT, 2, 3) },
	  .ret = -EINVAL, .field = "NSID 2 is in ANAGRPIDs 1 and 2" },
	{ "NSID in the first and the last of four groups", 4,
	  { GRP(1, OPT, 10), GRP(2, OPT, 20), GRP(3, OPT, 30),
	    GRP(4, OPT, 5, 10, 40) },
	  .ret = -EINVAL, .field = "NSID 10 is in ANAGRPIDs 1 and 4" },
	{ "bad NSID in the third group after two good ones", 3,
	  { GRP(1, OPT, 1, 2), GRP(2, OPT, 3), GRP(3, OPT, 4, 0) },
	  .ret = -EINVAL, .field = "ANAGRPID 3: NSID[1] 0" },
};

static void ana_case_desc(const struct ana_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ana, ana_cases, ana_case_desc);

static void nvfab_ana_log_table_test(struct kunit *test)
{
	const struct ana_case *c = test->param_value;
	struct ana_ctx *ctx = test->priv;
	u32 nanagrpid = c->set_caps ? c->nanagrpid : 16;
	u32 anagrpmax = c->set_caps ? c->anagrpmax : 16;
	unsigned int i, j, want_calls;
	struct ana_bld b;
	u8 *src, *buf;
	size_t len;
	int ret;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	ana_bld_init(&b, test, src, ANA_BLD_MAX);
	for (i = 0; i < c->ngrps; i++) {
		const struct ana_grp *g = &c->grps[i];

		ana_bld_grp(&b, g->grpid, g->state, g->lie ? g->nnsids : g->n,
			    g->nsids, g->n);
	}
	if (c->set_ngrps)
		ana_bld_ngrps(&b, c->hdr_ngrps);
	KUNIT_ASSERT_GE(test, (int)b.len + c->len_adj, 0);
	len = b.len + c->len_adj;
	buf = ana_copy(test, src, b.len, len);

	ret = ana_parse(test, buf, len, nanagrpid, anagrpmax);
	KUNIT_EXPECT_FALSE(test, ctx->oob);
	KUNIT_ASSERT_EQ_MSG(test, ret, c->ret, "message: %s", ctx->msg);
	if (ret) {
		KUNIT_EXPECT_EQ(test, ctx->calls, 0);
		KUNIT_EXPECT_EQ(test, ctx->msgs, 1);
		KUNIT_ASSERT_NOT_NULL(test, c->field);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(ctx->msg, c->field),
					  "message \"%s\" lacks \"%s\"",
					  ctx->msg, c->field);
		return;
	}
	KUNIT_EXPECT_EQ(test, ctx->msgs, 0);
	want_calls = c->set_ngrps ? c->hdr_ngrps : c->ngrps;
	KUNIT_ASSERT_EQ(test, ctx->calls, want_calls);
	for (i = 0; i < want_calls; i++) {
		const struct ana_grp *g = &c->grps[i];

		KUNIT_EXPECT_EQ(test, ctx->seen[i].grpid, g->grpid);
		KUNIT_EXPECT_EQ(test, ctx->seen[i].state,
				g->state & NVFAB_ANA_STATE_MASK);
		KUNIT_EXPECT_EQ(test, ctx->seen[i].nnsids, g->n);
		for (j = 0; j < g->n; j++)
			KUNIT_EXPECT_EQ(test, ctx->seen[i].nsids[j],
					g->nsids[j]);
	}
}

/* ---- a valid 3-group log, and what is done to it ---- */

static const u32 ana3_nsids1[] = { 1, 4 };
static const u32 ana3_nsids2[] = { 2, 3, 5 };
static const u32 ana3_nsids3[] = { 9 };

static void ana_build3(struct ana_bld *b, struct kunit *test, u8 *src)
{
	ana_bld_init(b, test, src, ANA_BLD_MAX);
	ana_bld_grp(b, 1, OPT, 2, ana3_nsids1, 2);
	ana_bld_grp(b, 2, NONOPT, 3, ana3_nsids2, 3);
	ana_bld_grp(b, 7, INACC, 1, ana3_nsids3, 1);
}

/*
 * NGRPS and NNSIDS give the log's length, so a buffer cut at any byte
 * before its end holds no valid log: -EINVAL, one message, no callback.
 */
static void nvfab_ana_log_trunc_test(struct kunit *test)
{
	struct ana_ctx *ctx = test->priv;
	struct ana_bld b;
	u8 *src, *buf;
	size_t cut;
	int ret;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	ana_build3(&b, test, src);
	KUNIT_ASSERT_EQ(test, b.len, ANA_HDR + 3 * ANA_DESC + 6 * 4);

	for (cut = 0; cut <= b.len; cut++) {
		buf = ana_copy(test, src, b.len, cut);
		ret = ana_parse(test, buf, cut, 16, 16);
		if (cut == b.len) {
			KUNIT_EXPECT_EQ(test, ret, 0);
			KUNIT_EXPECT_EQ(test, ctx->calls, 3);
			KUNIT_EXPECT_EQ(test, ctx->msgs, 0);
		} else {
			KUNIT_ASSERT_EQ_MSG(test, ret, -EINVAL, "cut at %zu", cut);
			KUNIT_ASSERT_EQ_MSG(test, ctx->calls, 0, "cut at %zu", cut);
			KUNIT_ASSERT_EQ_MSG(test, ctx->msgs, 1, "cut at %zu", cut);
		}
		KUNIT_ASSERT_FALSE(test, ctx->oob);
		kunit_kfree(test, buf);
	}
}

/*
 * The callback's error ends the walk and is returned as is; and a log
 * rejected in its last descriptor never reaches the callback, even for
 * the descriptors before that were valid.
 */
static void nvfab_ana_log_callback_test(struct kunit *test)
{
	struct ana_ctx *ctx = test->priv;
	struct ana_bld b;
	u8 *src, *buf;
	int ret;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	ana_build3(&b, test, src);
	buf = ana_copy(test, src, b.len, b.len);

	ctx->fail_at = 2;
	ctx->fail_ret = -EIO;
	ret = ana_parse(test, buf, b.len, 16, 16);
	KUNIT_EXPECT_EQ(test, ret, -EIO);
	KUNIT_EXPECT_EQ(test, ctx->calls, 2);
	KUNIT_EXPECT_EQ(test, ctx->msgs, 0);

	ctx->fail_at = 1;
	ctx->fail_ret = 1;	/* any non-zero value stops the walk */
	ret = ana_parse(test, buf, b.len, 16, 16);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, ctx->calls, 1);

	/* the third descriptor's ANAGRPID above ANAGRPMAX 6: nothing seen */
	ctx->fail_at = 0;
	ret = ana_parse(test, buf, b.len, 16, 6);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->calls, 0);
	KUNIT_EXPECT_EQ(test, ctx->msgs, 1);

	/* NSID 5 of group 2 also in group 7, checked after pass 1 */
	put_unaligned_le32(5, buf + b.len - 4);
	ret = ana_parse(test, buf, b.len, 16, 16);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->calls, 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(ctx->msg, "NSID 5 is in"));
}

/* With no callback the log is only validated. */
static void nvfab_ana_log_no_callback_test(struct kunit *test)
{
	struct ana_bld b;
	u8 *src, *buf;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	ana_build3(&b, test, src);
	buf = ana_copy(test, src, b.len, b.len);
	KUNIT_EXPECT_EQ(test, nvfab_parse_ana_log(buf, b.len, 16, 16, NULL,
						  NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, nvfab_parse_ana_log(buf, b.len, 2, 16, NULL,
						  NULL, NULL), -EINVAL);
}

/* The buffer needs no alignment: parse a log that starts at an odd byte. */
static void nvfab_ana_log_unaligned_test(struct kunit *test)
{
	struct ana_ctx *ctx = test->priv;
	struct ana_bld b;
	u8 *src, *buf;
	int ret;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	ana_build3(&b, test, src);
	buf = kunit_kmalloc(test, b.len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf + 1, src, b.len);

	ret = ana_parse(test, buf + 1, b.len, 16, 16);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, ctx->calls, 3);
	KUNIT_EXPECT_EQ(test, ctx->seen[1].grpid, 2);
	KUNIT_EXPECT_EQ(test, ctx->seen[1].state, NONOPT);
	KUNIT_EXPECT_EQ(test, ctx->seen[1].nsids[2], 5);
	KUNIT_EXPECT_EQ(test, ctx->seen[2].grpid, 7);
	KUNIT_EXPECT_EQ(test, ctx->seen[2].nsids[0], 9);
}

/*
 * The cross-descriptor check runs up to NVFAB_ANA_DUP_BUDGET (2^22) steps:
 * 2896 descriptors take G * (G - 1) / 2 = 4192920 steps and are checked;
 * 2897 take 4194856 and are not, as documented.
 */
static void nvfab_ana_log_dup_budget_test(struct kunit *test)
{
	static const unsigned int grps[] = { 2896, 2897 };
	struct ana_ctx *ctx = test->priv;
	unsigned int i, k, n;
	struct ana_bld b;
	size_t cap;
	u8 *buf;
	int ret;

	for (k = 0; k < ARRAY_SIZE(grps); k++) {
		n = grps[k];
		cap = ANA_HDR + n * ANA_DESC;
		buf = kunit_kmalloc(test, cap, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		ana_bld_init(&b, test, buf, cap);
		for (i = 0; i < n - 1; i++)
			ana_bld_grp(&b, i + 1, OPT, 0, NULL, 0);
		ana_bld_grp(&b, 1, OPT, 0, NULL, 0);	/* ANAGRPID 1 again */
		KUNIT_ASSERT_EQ(test, b.len, cap);

		ret = ana_parse(test, buf, cap, n, n);
		if (k == 0) {
			KUNIT_EXPECT_EQ(test, ret, -EINVAL);
			KUNIT_EXPECT_EQ(test, ctx->calls, 0);
			KUNIT_EXPECT_NOT_NULL(test, strstr(ctx->msg,
							   "descriptors 0 and 2895"));
		} else {
			KUNIT_EXPECT_EQ(test, ret, 0);
			KUNIT_EXPECT_EQ(test, ctx->calls, n);
		}
		kunit_kfree(test, buf);
	}
}

/* ---- seeded random logs ---- */

#define ANA_FUZZ_RUNS	2000
#define ANA_FUZZ_SEED	0x6e7666616e61ULL	/* "nvfana" */
#define ANA_FUZZ_NSIDS	16

static const u8 ana_states[] = { OPT, NONOPT, INACC, PLOSS, CHANGE };

/* A valid random log: up to 6 groups, NSIDs 1..16 spread over them. */
static void ana_fuzz_build(struct ana_bld *b, struct kunit *test, u8 *src,
			   struct rnd_state *rnd, u32 *nanagrpid,
			   u32 *anagrpmax)
{
	unsigned int ngrps = prandom_u32_state(rnd) % 7;
	unsigned int k = prandom_u32_state(rnd) % (ANA_FUZZ_NSIDS + 1);
	u8 owner[ANA_FUZZ_NSIDS + 1];
	u32 nsids[ANA_FUZZ_NSIDS];
	unsigned int g, n, nsid;
	u32 grpid = 0;
	u8 state;

	for (nsid = 1; nsid <= k; nsid++)
		owner[nsid] = prandom_u32_state(rnd) % (ngrps + 1);
	ana_bld_init(b, test, src, ANA_BLD_MAX);
	for (g = 0; g < ngrps; g++) {
		grpid += 1 + prandom_u32_state(rnd) % 3;
		state = ana_states[prandom_u32_state(rnd) %
				   ARRAY_SIZE(ana_states)];
		if (prandom_u32_state(rnd) & 1)
			state |= prandom_u32_state(rnd) & 0xf0;
		n = 0;
		for (nsid = 1; nsid <= k; nsid++)
			if (owner[nsid] == g)
				nsids[n++] = nsid;
		ana_bld_grp(b, grpid, state, n, nsids, n);
	}
	*anagrpmax = grpid + prandom_u32_state(rnd) % 2;
	*nanagrpid = ngrps + prandom_u32_state(rnd) % 2;
}

/*
 * 2000 seeded logs: valid random logs (must parse, every descriptor seen),
 * valid logs with a few bytes changed and a random length, and random
 * bytes. None may read outside its exact-size buffer (KASAN), hand out a
 * descriptor outside it, or return anything but 0 (no message) or -EINVAL
 * (one message, no callback).
 */
static void nvfab_ana_log_fuzz_test(struct kunit *test)
{
	struct ana_ctx *ctx = test->priv;
	unsigned int run, mode, i, flips, valid = 0, rejected = 0;
	u32 nanagrpid, anagrpmax;
	struct rnd_state rnd;
	struct ana_bld b;
	u8 *src, *buf;
	size_t len;
	int ret;

	src = kunit_kmalloc(test, ANA_BLD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	prandom_seed_state(&rnd, ANA_FUZZ_SEED);

	for (run = 0; run < ANA_FUZZ_RUNS; run++) {
		mode = prandom_u32_state(&rnd) % 3;
		if (mode < 2) {
			ana_fuzz_build(&b, test, src, &rnd, &nanagrpid,
				       &anagrpmax);
			len = b.len;
		} else {
			len = prandom_u32_state(&rnd) % ANA_BLD_MAX;
			prandom_bytes_state(&rnd, src, len);
			if (len >= ANA_HDR && (prandom_u32_state(&rnd) & 1))
				put_unaligned_le16(prandom_u32_state(&rnd) % 4,
						   src + 8);
			nanagrpid = prandom_u32_state(&rnd) % 8;
			anagrpmax = prandom_u32_state(&rnd);
		}
		if (mode == 1) {
			flips = 1 + prandom_u32_state(&rnd) % 4;
			for (i = 0; i < flips; i++)
				src[prandom_u32_state(&rnd) % len] =
					prandom_u32_state(&rnd);
			if (prandom_u32_state(&rnd) & 1)
				len = prandom_u32_state(&rnd) % (len + 32);
		}
		buf = ana_copy(test, src, min_t(size_t, len, ANA_BLD_MAX),
			       len);

		ret = ana_parse(test, buf, len, nanagrpid, anagrpmax);
		KUNIT_ASSERT_FALSE_MSG(test, ctx->oob, "run %u", run);
		if (mode == 0) {
			KUNIT_ASSERT_EQ_MSG(test, ret, 0, "run %u: %s", run,
					    ctx->msg);
			KUNIT_ASSERT_EQ_MSG(test, ctx->calls, b.ngrps,
					    "run %u", run);
		}
		if (ret == 0) {
			KUNIT_ASSERT_EQ_MSG(test, ctx->msgs, 0, "run %u", run);
			KUNIT_ASSERT_EQ_MSG(test, ctx->calls,
					    get_unaligned_le16(buf + 8),
					    "run %u", run);
			valid++;
		} else {
			KUNIT_ASSERT_EQ_MSG(test, ret, -EINVAL, "run %u", run);
			KUNIT_ASSERT_EQ_MSG(test, ctx->msgs, 1, "run %u", run);
			KUNIT_ASSERT_EQ_MSG(test, ctx->calls, 0, "run %u", run);
			rejected++;
		}
		kunit_kfree(test, buf);
	}
	/* the mix reaches both outcomes */
	KUNIT_EXPECT_GT(test, valid, ANA_FUZZ_RUNS / 4);
	KUNIT_EXPECT_GT(test, rejected, ANA_FUZZ_RUNS / 4);
}

/* ---- nvfab_ana_log_size() ---- */

/* 16 + 65535 * 32 bytes: NANAGRPID counts for at most 65535 descriptors */
#define ANA_MAX_GRPS_BYTES	(16 + 65535ULL * 32)

struct ana_size_case {
	const char *desc;
	u32 nanagrpid;
	u32 max_nsids;
	size_t limit;
	size_t want;
};

static const struct ana_size_case ana_size_cases[] = {
	{ "no groups, no NSIDs", 0, 0, SIZE_MAX, 16 },
	{ "one group, one NSID", 1, 1, SIZE_MAX, 52 },
	{ "128 groups, 1024 NSIDs", 128, 1024, SIZE_MAX, 8208 },
	{ "capped at the limit", 128, 1024, 4096, 4096 },
	{ "exactly the limit", 1, 1, 52, 52 },
	{ "one byte over the limit", 1, 1, 51, 51 },
	{ "limit below the header", 1, 1, 8, 8 },
	{ "limit 0", 1, 1, 0, 0 },
	{ "NANAGRPID 10000h counts as FFFFh", 0x10000, 0, SIZE_MAX,
	  ANA_MAX_GRPS_BYTES },
	{ "NANAGRPID FFFFFFFFh counts as FFFFh", 0xffffffff, 0, SIZE_MAX,
	  ANA_MAX_GRPS_BYTES },
	{ "NSIDs FFFFFFFFh: SIZE_MAX on 32-bit", 0, 0xffffffff, SIZE_MAX,
	  sizeof(size_t) > 4 ? (size_t)(16 + 4ULL * 0xffffffff) : SIZE_MAX },
	{ "both FFFFFFFFh: SIZE_MAX on 32-bit", 0xffffffff, 0xffffffff,
	  SIZE_MAX, sizeof(size_t) > 4 ?
	  (size_t)(ANA_MAX_GRPS_BYTES + 4ULL * 0xffffffff) : SIZE_MAX },
	{ "both FFFFFFFFh, capped at 1 MiB", 0xffffffff, 0xffffffff, SZ_1M,
	  SZ_1M },
	{ "NSIDs 40000000h: x4 wraps to 0 in 32 bits", 0, 0x40000000,
	  SIZE_MAX, sizeof(size_t) > 4 ? (size_t)(16 + 4ULL * 0x40000000) :
	  SIZE_MAX },
	{ "NSIDs 3FFFFFFCh: 4 GiB sum, wraps in 32 bits", 0, 0x3ffffffc,
	  U32_MAX, U32_MAX },
};

static void ana_size_case_desc(const struct ana_size_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ana_size, ana_size_cases, ana_size_case_desc);

static void nvfab_ana_log_size_test(struct kunit *test)
{
	const struct ana_size_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_ana_log_size(c->nanagrpid, c->max_nsids,
						 c->limit), c->want);
}

static int ana_test_init(struct kunit *test)
{
	struct ana_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	kunit_activate_static_stub(test, nvfab_ana_log_report,
				   ana_fake_report);
	return 0;
}

static struct kunit_case nvfab_ana_log_cases[] = {
	KUNIT_CASE_PARAM(nvfab_ana_log_table_test, ana_gen_params),
	KUNIT_CASE(nvfab_ana_log_trunc_test),
	KUNIT_CASE(nvfab_ana_log_callback_test),
	KUNIT_CASE(nvfab_ana_log_no_callback_test),
	KUNIT_CASE(nvfab_ana_log_unaligned_test),
	KUNIT_CASE(nvfab_ana_log_dup_budget_test),
	KUNIT_CASE(nvfab_ana_log_fuzz_test),
	KUNIT_CASE_PARAM(nvfab_ana_log_size_test, ana_size_gen_params),
	{}
};

static struct kunit_suite nvfab_ana_log_suite = {
	.name = "nvfab_ana_log",
	.init = ana_test_init,
	.test_cases = nvfab_ana_log_cases,
};

kunit_test_suite(nvfab_ana_log_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's ANA log page parser");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
