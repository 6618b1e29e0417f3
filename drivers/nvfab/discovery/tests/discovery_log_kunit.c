// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the Discovery Log Page reader and parser (Log
 * Identifier 70h; NVMe over Fabrics 1.1, 5.3): logs a discovery
 * controller could send, well formed or not, built from one good entry
 * and a change per row; the fields of good entries; every short buffer;
 * seeded random entries; and the read procedure (header, entries, header
 * again, GENCTR retry) driven by a fake Get Log Page.
 *
 * Each log is parsed from a buffer of exactly its length, so that KASAN
 * reports any read past it.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <nvfab/compat.h>
#include "../discovery.h"

#define HDR	NVFAB_DISC_HDR_SIZE
#define ENT	NVFAB_DISC_ENTRY_SIZE

/* A field a row sets: stored with this bit so that 0 means "default". */
#define SET	0x10000
#define S(x)	((x) | SET)

#define GOOD_TRADDR	"192.168.0.1"
#define GOOD_TRSVCID	"4420"
#define GOOD_SUBNQN	"nqn.2014-08.org.example:subsys1"
#define DISC_NQN	NVME_DISC_SUBSYS_NAME
#define UDISC_NQN	"nqn.2014-08.org.nvmexpress:uuid:3d0e5a27-6bb1-4b8e-9c4f-2c4e1a0b7d11"

/* A string field a row sets: @s, @n bytes of it (0: strlen), then @pad. */
struct fld {
	const char *s;
	size_t n;
	bool nul_pad;
	bool gen;	/* @s, then 'a' up to @n bytes */
};

struct disc_case {
	const char *desc;
	/* entry 0; S(value), or 0 to keep the good entry's */
	int trtype, adrfam, subtype, treq, cntlid, sectype;
	struct fld traddr, trsvcid, subnqn;
	/* header */
	bool set_numrec;
	u64 numrec;
	u16 recfmt;
	int entries;		/* S(n): entries built; default 1 */
	long extra;		/* buffer length past header + entries */
	/* expected */
	int err;		/* from nvfab_disc_parse_log(), or 0 */
	enum nvfab_disc_entry_status st;	/* of entry 0 */
};

static void fill_field(char *dst, size_t size, const char *s, size_t n,
		       bool nul_pad)
{
	if (!n)
		n = strlen(s);
	memset(dst, nul_pad ? '\0' : ' ', size);
	memcpy(dst, s, min(n, size));
}

static void good_entry(struct nvmf_disc_rsp_page_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->trtype = NVMF_TRTYPE_TCP;
	e->adrfam = NVMF_ADDR_FAMILY_IP4;
	e->subtype = NVME_NQN_NVME;
	e->treq = NVMF_TREQ_NOT_SPECIFIED;
	put_unaligned_le16(1, &e->portid);
	put_unaligned_le16(NVME_CNTLID_DYNAMIC, &e->cntlid);
	put_unaligned_le16(32, &e->asqsz);
	fill_field(e->traddr, sizeof(e->traddr), GOOD_TRADDR, 0, false);
	fill_field(e->trsvcid, sizeof(e->trsvcid), GOOD_TRSVCID, 0, false);
	fill_field(e->subnqn, sizeof(e->subnqn), GOOD_SUBNQN, 0, false);
	e->tsas.tcp.sectype = NVMF_TCP_SECTYPE_NONE;
}

static void apply_fld(char *dst, size_t size, const struct fld *f)
{
	size_t n;

	if (!f->s)
		return;
	if (!f->gen) {
		fill_field(dst, size, f->s, f->n, f->nul_pad);
		return;
	}
	n = min(f->n, size);
	memset(dst, ' ', size);
	memset(dst, 'a', n);
	memcpy(dst, f->s, min(strlen(f->s), n));
}

/* Build the row's log in a kunit buffer of exactly its length. */
static u8 *build_log(struct kunit *test, const struct disc_case *c,
		     size_t *lenp, int *nentp)
{
	struct nvmf_disc_rsp_page_entry *e;
	int nent = c->entries ? c->entries & ~SET : 1, i;
	size_t full = HDR + (size_t)nent * ENT;
	size_t len = full + c->extra;
	u8 *img, *buf;

	img = kunit_kzalloc(test, full + (c->extra > 0 ? c->extra : 0),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, img);
	put_unaligned_le64(42, img);
	put_unaligned_le64(c->set_numrec ? c->numrec : nent, img + 8);
	put_unaligned_le16(c->recfmt, img + 16);
	for (i = 0; i < nent; i++) {
		e = (void *)(img + HDR + (size_t)i * ENT);
		good_entry(e);
		if (i)
			continue;
		if (c->trtype)
			e->trtype = c->trtype & 0xff;
		if (c->adrfam)
			e->adrfam = c->adrfam & 0xff;
		if (c->subtype)
			e->subtype = c->subtype & 0xff;
		if (c->treq)
			e->treq = c->treq & 0xff;
		if (c->cntlid)
			put_unaligned_le16(c->cntlid & 0xffff, &e->cntlid);
		if (c->sectype)
			e->tsas.tcp.sectype = c->sectype & 0xff;
		apply_fld(e->traddr, sizeof(e->traddr), &c->traddr);
		apply_fld(e->trsvcid, sizeof(e->trsvcid), &c->trsvcid);
		apply_fld(e->subnqn, sizeof(e->subnqn), &c->subnqn);
	}
	buf = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, img, len);
	*lenp = len;
	*nentp = nent;
	return buf;
}

#define F(str)		{ .s = (str) }
#define FN(str, len)	{ .s = (str), .n = (len) }
#define FZ(str)		{ .s = (str), .nul_pad = true }
#define FG(str, len)	{ .s = (str), .n = (len), .gen = true }

#define LONG_NQN	"nqn.2014-08.org.example:"
#define LONG_FC		"nn-0x1000000000000001:pn-0x2000000000000001-"

static const struct disc_case disc_cases[] = {
	/* ---- structure: the whole log is refused ---- */
	{ "empty buffer", .entries = S(0), .extra = -HDR, .err = -EMSGSIZE },
	{ "header one byte short", .entries = S(0), .extra = -1, .err = -EMSGSIZE },
	{ "RECFMT 1", .recfmt = 1, .err = -EPROTO },
	{ "RECFMT FFFFh", .recfmt = 0xffff, .err = -EPROTO },
	{ "NUMREC one above the cap", .set_numrec = true,
	  .numrec = NVFAB_DISC_MAX_RECORDS + 1, .err = -E2BIG },
	{ "NUMREC 2^64-1", .set_numrec = true, .numrec = U64_MAX, .err = -E2BIG },
	{ "NUMREC 2^32+1 (no truncation to u32)", .set_numrec = true,
	  .numrec = (1ULL << 32) + 1, .err = -E2BIG },
	{ "NUMREC 2, one entry sent", .set_numrec = true, .numrec = 2,
	  .err = -EMSGSIZE },
	{ "NUMREC 1, entry one byte short", .extra = -1, .err = -EMSGSIZE },
	{ "NUMREC 3, header only", .set_numrec = true, .numrec = 3,
	  .entries = S(0), .err = -EMSGSIZE },
	/* ---- TRTYPE ---- */
	{ "TRTYPE 0 (reserved)", .trtype = S(0), .st = NVFAB_DISC_BAD_TRTYPE },
	{ "TRTYPE loop (host use only)", .trtype = S(NVMF_TRTYPE_LOOP),
	  .st = NVFAB_DISC_BAD_TRTYPE },
	{ "TRTYPE 4", .trtype = S(4), .st = NVFAB_DISC_BAD_TRTYPE },
	{ "TRTYPE FFh", .trtype = S(0xff), .st = NVFAB_DISC_BAD_TRTYPE },
	/* ---- ADRFAM ---- */
	{ "ADRFAM PCIe on TCP", .adrfam = S(NVMF_ADDR_FAMILY_PCI),
	  .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM IB on TCP", .adrfam = S(NVMF_ADDR_FAMILY_IB),
	  .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM FC on TCP", .adrfam = S(NVMF_ADDR_FAMILY_FC),
	  .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM loop", .adrfam = S(NVMF_ADDR_FAMILY_LOOP),
	  .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM 5", .adrfam = S(5), .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM IPv4 on FC", .trtype = S(NVMF_TRTYPE_FC),
	  .st = NVFAB_DISC_BAD_ADRFAM },
	{ "ADRFAM FC on RDMA", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_FC), .st = NVFAB_DISC_BAD_ADRFAM },
	/* ---- SUBTYPE ---- */
	{ "SUBTYPE 0", .subtype = S(0), .st = NVFAB_DISC_BAD_SUBTYPE },
	{ "SUBTYPE 4", .subtype = S(4), .st = NVFAB_DISC_BAD_SUBTYPE },
	{ "SUBTYPE FFh", .subtype = S(0xff), .st = NVFAB_DISC_BAD_SUBTYPE },
	/* ---- TREQ ---- */
	{ "TREQ secure channel 11b", .treq = S(3), .st = NVFAB_DISC_BAD_TREQ },
	{ "TREQ 07h (11b and SQ flow)", .treq = S(7), .st = NVFAB_DISC_BAD_TREQ },
	{ "TREQ reserved bits 7:3 ignored", .treq = S(0xf9) },
	{ "TREQ not required, SQ flow disable", .treq = S(6) },
	/* ---- CNTLID ---- */
	{ "CNTLID FFF0h (reserved)", .cntlid = S(0xfff0),
	  .st = NVFAB_DISC_BAD_CNTLID },
	{ "CNTLID FFFDh (reserved)", .cntlid = S(0xfffd),
	  .st = NVFAB_DISC_BAD_CNTLID },
	{ "CNTLID 0 (static)", .cntlid = S(0) },
	{ "CNTLID FFEFh (static, highest)", .cntlid = S(0xffef) },
	{ "CNTLID FFFEh (static, any)", .cntlid = S(0xfffe) },
	/* ---- TRADDR ---- */
	{ "TRADDR all spaces", .traddr = F(""), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR all NULs", .traddr = FZ(""), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR NUL inside", .traddr = FN("192.168\0.0.1", 12),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR NUL then value", .traddr = FN("\000192.168.0.1", 12),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR tab", .traddr = F("192.168.0.1\t"), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR byte 80h", .traddr = F("192.168.0.1\x80"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR byte 7Fh", .traddr = F("192.168.0.1\x7f"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR space inside", .traddr = F("192.168. 0.1"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR leading space", .traddr = F(" 192.168.0.1"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv4 octet 256", .traddr = F("256.1.1.1"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv4 three octets", .traddr = F("1.2.3"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv4 five octets", .traddr = F("1.2.3.4.5"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv4 trailing dot", .traddr = F("1.2.3.4."),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR host name for IPv4", .traddr = F("target.example.com"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv6 address, ADRFAM IPv4", .traddr = F("fe80::1"),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv4 address, ADRFAM IPv6", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv6 with scope", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("fe80::1%eth0"), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv6 in brackets", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("[fe80::1]"), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv6 two ::", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("1::2::3"), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IPv6 group too long", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("fe80::12345"), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR 256 bytes, no padding, not IPv4", .traddr = FG(LONG_FC, 256),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR FC, 256 bytes, no padding", .trtype = S(NVMF_TRTYPE_FC),
	  .adrfam = S(NVMF_ADDR_FAMILY_FC), .traddr = FG(LONG_FC, 256),
	  .trsvcid = F(""), .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR FC, 255 bytes (longest)", .trtype = S(NVMF_TRTYPE_FC),
	  .adrfam = S(NVMF_ADDR_FAMILY_FC), .traddr = FG(LONG_FC, 255),
	  .trsvcid = F("") },
	{ "TRADDR IB, 256 bytes, no padding", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_IB), .traddr = FG(LONG_FC, 256),
	  .st = NVFAB_DISC_BAD_TRADDR },
	{ "TRADDR IB, 255 bytes (longest)", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_IB), .traddr = FG(LONG_FC, 255) },
	{ "TRSVCID IB, 32 bytes, no padding", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_IB), .traddr = F("fe80::1"),
	  .trsvcid = FG("svc-", 32), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID IB, 31 bytes (longest)", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_IB), .traddr = F("fe80::1"),
	  .trsvcid = FG("svc-", 31) },
	{ "TRADDR NUL padding (Linux nvmet)", .traddr = FZ(GOOD_TRADDR) },
	/* ---- TRSVCID ---- */
	{ "TRSVCID empty on TCP", .trsvcid = F(""), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 0", .trsvcid = F("0"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 65536", .trsvcid = F("65536"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 99999", .trsvcid = F("99999"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 123456", .trsvcid = F("123456"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID leading zero", .trsvcid = F("04420"),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID plus sign", .trsvcid = F("+4420"),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID minus sign", .trsvcid = F("-1"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID hex digit", .trsvcid = F("44a0"),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID service name", .trsvcid = F("nvme"),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID NUL inside", .trsvcid = FN("44\00020", 5),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID newline", .trsvcid = F("4420\n"), .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 32 digits, no padding",
	  .trsvcid = FN("44204420442044204420442044204420", 32),
	  .st = NVFAB_DISC_BAD_TRSVCID },
	{ "TRSVCID 1 (lowest)", .trsvcid = F("1") },
	{ "TRSVCID 65535 (highest)", .trsvcid = F("65535") },
	{ "TRSVCID NUL padding", .trsvcid = FZ("4420") },
	{ "TRSVCID spaces then NULs", .trsvcid = FN("4420  \0\0 \0", 11) },
	/* ---- SUBNQN ---- */
	{ "SUBNQN empty", .subnqn = F(""), .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN all NULs", .subnqn = FZ(""), .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN \"nqn.\" only", .subnqn = F("nqn."), .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN upper case NQN.", .subnqn = F("NQN.2014-08.org.example:s"),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN iqn.", .subnqn = F("iqn.2014-08.org.example:s"),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN NUL inside", .subnqn = FN("nqn.2014-08\0.org.example:s", 25),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN control byte", .subnqn = F("nqn.2014-08.org.example:\x1b"),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN space inside", .subnqn = F("nqn.2014-08.org.example: s"),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN 224 bytes", .subnqn = FG(LONG_NQN, 224),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN 256 bytes, no padding", .subnqn = FG(LONG_NQN, 256),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN 223 bytes (no room for the NUL of NVMF_NQN_SIZE)",
	  .subnqn = FG(LONG_NQN, 223), .st = NVFAB_DISC_BAD_SUBNQN },
	{ "SUBNQN 222 bytes (longest)", .subnqn = FG(LONG_NQN, 222) },
	{ "NVM subsystem with the discovery NQN", .subnqn = F(DISC_NQN),
	  .st = NVFAB_DISC_BAD_SUBNQN },
	{ "referral, well-known discovery NQN", .subtype = S(NVME_NQN_DISC),
	  .subnqn = F(DISC_NQN) },
	{ "referral, unique discovery NQN", .subtype = S(NVME_NQN_DISC),
	  .subnqn = F(UDISC_NQN) },
	{ "current discovery subsystem, well-known NQN",
	  .subtype = S(NVME_NQN_CURR), .subnqn = FZ(DISC_NQN) },
	{ "current discovery subsystem, unique NQN",
	  .subtype = S(NVME_NQN_CURR), .subnqn = F(UDISC_NQN) },
	/* ---- TSAS ---- */
	{ "TCP SECTYPE 3", .sectype = S(3), .st = NVFAB_DISC_BAD_TSAS },
	{ "TCP SECTYPE FFh", .sectype = S(0xff), .st = NVFAB_DISC_BAD_TSAS },
	{ "TCP SECTYPE TLS 1.3", .sectype = S(NVMF_TCP_SECTYPE_TLS13),
	  .treq = S(NVMF_TREQ_REQUIRED) },
	{ "RDMA, TSAS not TCP's", .trtype = S(NVMF_TRTYPE_RDMA), .sectype = S(0xff) },
	/* ---- good logs ---- */
	{ "no records", .entries = S(0) },
	{ "no records, bytes after the header", .entries = S(0), .extra = ENT },
	{ "one record, bytes after it", .extra = 13 },
	{ "IPv6 TCP", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("2001:db8::10") },
	{ "IPv6 v4-mapped", .adrfam = S(NVMF_ADDR_FAMILY_IP6),
	  .traddr = F("::ffff:10.0.0.1") },
	{ "RDMA IPv4", .trtype = S(NVMF_TRTYPE_RDMA) },
	{ "RDMA IB, empty TRSVCID", .trtype = S(NVMF_TRTYPE_RDMA),
	  .adrfam = S(NVMF_ADDR_FAMILY_IB),
	  .traddr = F("fe80:0000:0000:0000:0002:c903:0001:b2c1"), .trsvcid = F("") },
	{ "FC", .trtype = S(NVMF_TRTYPE_FC), .adrfam = S(NVMF_ADDR_FAMILY_FC),
	  .traddr = F("nn-0x1000000000000001:pn-0x2000000000000001"),
	  .trsvcid = F("none") },
	{ "the cap, NUMREC 1024", .entries = S(NVFAB_DISC_MAX_RECORDS) },
};

static void disc_case_desc(const struct disc_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(disc, disc_cases, disc_case_desc);

static void nvfab_disc_log_table_test(struct kunit *test)
{
	const struct disc_case *c = test->param_value;
	struct nvfab_disc_log *log;
	size_t len;
	int nent;
	u8 *buf;

	buf = build_log(test, c, &len, &nent);
	log = nvfab_disc_parse_log(buf, len);
	if (c->err) {
		KUNIT_ASSERT_TRUE(test, IS_ERR(log));
		KUNIT_EXPECT_EQ(test, PTR_ERR(log), c->err);
		return;
	}
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(log), "error %ld", PTR_ERR(log));
	KUNIT_EXPECT_EQ(test, log->genctr, 42);
	KUNIT_EXPECT_EQ(test, log->numrec, nent);
	KUNIT_EXPECT_EQ(test, log->nr_entries + log->nr_skipped, log->numrec);
	if (nent) {
		if (c->st == NVFAB_DISC_ENTRY_OK) {
			KUNIT_EXPECT_EQ(test, log->nr_entries, nent);
			KUNIT_EXPECT_EQ(test, log->nr_skipped, 0);
		} else {
			KUNIT_EXPECT_EQ(test, log->nr_entries, nent - 1);
			KUNIT_EXPECT_EQ(test, log->nr_skipped, 1);
			KUNIT_EXPECT_EQ_MSG(test, log->skipped[c->st], 1,
					    "expected %s",
					    nvfab_disc_entry_status_name(c->st));
		}
	}
	nvfab_disc_log_free(log);
}

/* The fields of good entries, as the future module will read them. */
static void nvfab_disc_log_fields_test(struct kunit *test)
{
	struct nvmf_disc_rsp_page_entry *raw;
	struct nvfab_disc_entry *e;
	struct nvfab_disc_log *log;
	u8 *buf;

	buf = kunit_kzalloc(test, HDR + 3 * ENT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	put_unaligned_le64(7, buf);
	put_unaligned_le64(3, buf + 8);
	raw = (void *)(buf + HDR);
	good_entry(&raw[0]);
	raw[0].adrfam = NVMF_ADDR_FAMILY_IP6;
	raw[0].treq = NVMF_TREQ_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW;
	raw[0].tsas.tcp.sectype = NVMF_TCP_SECTYPE_TLS13;
	put_unaligned_le16(0x1234, &raw[0].portid);
	put_unaligned_le16(0x00ab, &raw[0].cntlid);
	put_unaligned_le16(128, &raw[0].asqsz);
	put_unaligned_le16(NVME_DISC_EFLAGS_EPCSD, &raw[0].eflags);
	fill_field(raw[0].traddr, sizeof(raw[0].traddr), "2001:db8::1", 0, true);
	fill_field(raw[0].trsvcid, sizeof(raw[0].trsvcid), "8009", 0, false);
	fill_field(raw[0].subnqn, sizeof(raw[0].subnqn), UDISC_NQN, 0, false);
	raw[0].subtype = NVME_NQN_CURR;
	good_entry(&raw[1]);
	raw[1].trtype = 9;		/* skipped */
	good_entry(&raw[2]);
	raw[2].subtype = NVME_NQN_DISC;
	fill_field(raw[2].subnqn, sizeof(raw[2].subnqn), DISC_NQN, 0, true);

	log = nvfab_disc_parse_log(buf, HDR + 3 * ENT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, log->genctr, 7);
	KUNIT_EXPECT_EQ(test, log->numrec, 3);
	KUNIT_ASSERT_EQ(test, log->nr_entries, 2);
	KUNIT_EXPECT_EQ(test, log->nr_skipped, 1);
	KUNIT_EXPECT_EQ(test, log->skipped[NVFAB_DISC_BAD_TRTYPE], 1);

	e = &log->entries[0];
	KUNIT_EXPECT_EQ(test, e->trtype, NVMF_TRTYPE_TCP);
	KUNIT_EXPECT_EQ(test, e->adrfam, NVMF_ADDR_FAMILY_IP6);
	KUNIT_EXPECT_EQ(test, e->subtype, NVME_NQN_CURR);
	KUNIT_EXPECT_EQ(test, e->treq,
			NVMF_TREQ_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW);
	KUNIT_EXPECT_EQ(test, e->sectype, NVMF_TCP_SECTYPE_TLS13);
	KUNIT_EXPECT_EQ(test, e->portid, 0x1234);
	KUNIT_EXPECT_EQ(test, e->cntlid, 0xab);
	KUNIT_EXPECT_EQ(test, e->asqsz, 128);
	KUNIT_EXPECT_EQ(test, e->eflags, NVME_DISC_EFLAGS_EPCSD);
	KUNIT_EXPECT_STREQ(test, e->traddr, "2001:db8::1");
	KUNIT_EXPECT_STREQ(test, e->trsvcid, "8009");
	KUNIT_EXPECT_STREQ(test, e->subnqn, UDISC_NQN);

	e = &log->entries[1];
	KUNIT_EXPECT_EQ(test, e->subtype, NVME_NQN_DISC);
	KUNIT_EXPECT_EQ(test, e->adrfam, NVMF_ADDR_FAMILY_IP4);
	KUNIT_EXPECT_EQ(test, e->cntlid, NVME_CNTLID_DYNAMIC);
	KUNIT_EXPECT_EQ(test, e->sectype, NVMF_TCP_SECTYPE_NONE);
	KUNIT_EXPECT_STREQ(test, e->traddr, GOOD_TRADDR);
	KUNIT_EXPECT_STREQ(test, e->trsvcid, GOOD_TRSVCID);
	KUNIT_EXPECT_STREQ(test, e->subnqn, DISC_NQN);
	nvfab_disc_log_free(log);
}

/* Every buffer shorter than a two-record log is refused, never overread. */
static void nvfab_disc_log_trunc_test(struct kunit *test)
{
	size_t full = HDR + 2 * ENT, len;
	struct nvfab_disc_log *log;
	u8 *src, *buf;

	src = kunit_kzalloc(test, full, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	put_unaligned_le64(2, src + 8);
	good_entry((void *)(src + HDR));
	good_entry((void *)(src + HDR + ENT));
	for (len = 0; len < full; len++) {
		buf = kmalloc(len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, src, len);
		log = nvfab_disc_parse_log(buf, len);
		kfree(buf);
		KUNIT_ASSERT_TRUE_MSG(test, IS_ERR(log), "length %zu", len);
		KUNIT_ASSERT_EQ_MSG(test, PTR_ERR(log), -EMSGSIZE, "length %zu",
				    len);
	}
	log = nvfab_disc_parse_log(src, full);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, log->nr_entries, 2);
	nvfab_disc_log_free(log);
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvfab_disc_parse_log(NULL, full)), -EINVAL);
}

/* The parser at odd addresses: every multi-byte field read unaligned. */
static void nvfab_disc_log_unaligned_test(struct kunit *test)
{
	size_t full = HDR + ENT;
	struct nvfab_disc_log *log;
	u8 *buf;

	buf = kunit_kzalloc(test, full + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	put_unaligned_le64(5, buf + 1);
	put_unaligned_le64(1, buf + 1 + 8);
	good_entry((void *)(buf + 1 + HDR));
	log = nvfab_disc_parse_log(buf + 1, full);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, log->genctr, 5);
	KUNIT_EXPECT_EQ(test, log->nr_entries, 1);
	nvfab_disc_log_free(log);
}

/*
 * Seeded random entries: a good entry with random bytes written over it,
 * or random bytes alone. Whatever comes out, every record is counted once
 * and every usable entry keeps the promises of struct nvfab_disc_entry.
 */
static void nvfab_disc_log_fuzz_test(struct kunit *test)
{
	const unsigned int nrec = 64, rounds = 40;
	struct rnd_state rnd;
	struct nvfab_disc_log *log;
	unsigned int r, i, k, total_ok = 0;
	u8 *buf, *ent;
	u32 sum, j;

	prandom_seed_state(&rnd, 0x70deadbeefULL);
	buf = kunit_kmalloc(test, HDR + nrec * ENT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (r = 0; r < rounds; r++) {
		memset(buf, 0, HDR);
		put_unaligned_le64(r, buf);
		put_unaligned_le64(nrec, buf + 8);
		for (i = 0; i < nrec; i++) {
			ent = buf + HDR + i * ENT;
			if (i % 4 == 0) {
				prandom_bytes_state(&rnd, ent, ENT);
				continue;
			}
			good_entry((void *)ent);
			for (k = 0; k <= i % 5; k++)
				ent[prandom_u32_state(&rnd) % ENT] =
					prandom_u32_state(&rnd);
		}
		log = nvfab_disc_parse_log(buf, HDR + nrec * ENT);
		KUNIT_ASSERT_FALSE(test, IS_ERR(log));
		KUNIT_EXPECT_EQ(test, log->nr_entries + log->nr_skipped, nrec);
		for (sum = 0, j = 0; j < NVFAB_DISC_NR_STATUS; j++)
			sum += log->skipped[j];
		KUNIT_EXPECT_EQ(test, sum, log->nr_skipped);
		KUNIT_EXPECT_EQ(test, log->skipped[NVFAB_DISC_ENTRY_OK], 0);
		for (j = 0; j < log->nr_entries; j++) {
			const struct nvfab_disc_entry *e = &log->entries[j];

			KUNIT_EXPECT_GT(test, strlen(e->traddr), 0);
			KUNIT_EXPECT_LT(test, strlen(e->subnqn), NVMF_NQN_SIZE);
			KUNIT_EXPECT_EQ(test, strncmp(e->subnqn, "nqn.", 4), 0);
			KUNIT_EXPECT_TRUE(test, e->subtype >= NVME_NQN_DISC &&
					  e->subtype <= NVME_NQN_CURR);
		}
		total_ok += log->nr_entries;
		nvfab_disc_log_free(log);
	}
	/* Most overwrites hit reserved bytes: the run saw usable entries. */
	KUNIT_EXPECT_GT(test, total_ok, 0);
}

/* ---- the read procedure, with a fake Get Log Page ---- */

struct fake_dc {
	struct kunit *test;
	u8 *img[2];		/* the log before and after a change */
	size_t size[2];
	int cur;
	unsigned int calls;
	unsigned int flip_at;	/* at this call (1-based), img[1] is current */
	unsigned int bump_until;	/* GENCTR moves at calls up to this */
	unsigned int fail_at;	/* this call returns fail_ret */
	int fail_ret;
	bool short_entries;	/* calls past the header transfer nothing */
	size_t max_len;		/* longest call */
	bool misaligned;	/* an offset or length not a multiple of 4 */
};

static int fake_get_log(void *ctx, u64 offset, void *buf, size_t len)
{
	struct fake_dc *f = ctx;
	size_t size;
	u8 *img;

	f->calls++;
	f->max_len = max(f->max_len, len);
	if (offset % 4 || len % 4 || !len)
		f->misaligned = true;
	if (f->fail_at && f->calls == f->fail_at)
		return f->fail_ret;
	if (f->flip_at && f->calls == f->flip_at)
		f->cur = 1;
	img = f->img[f->cur];
	size = f->size[f->cur];
	if (f->calls <= f->bump_until)
		put_unaligned_le64(get_unaligned_le64(img) + 1, img);
	if (f->short_entries && offset >= HDR)
		return 0;
	/* Past the end of the log: Invalid Field in Command. */
	if (offset > size || len > size - offset)
		return NVME_SC_INVALID_FIELD;
	memcpy(buf, img + offset, len);
	return 0;
}

static u8 *fake_img(struct kunit *test, u64 genctr, u32 nrec, size_t *size)
{
	u8 *img;
	u32 i;

	*size = HDR + (size_t)nrec * ENT;
	img = kunit_kzalloc(test, *size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, img);
	put_unaligned_le64(genctr, img);
	put_unaligned_le64(nrec, img + 8);
	for (i = 0; i < nrec; i++) {
		struct nvmf_disc_rsp_page_entry *e = (void *)(img + HDR + i * ENT);

		good_entry(e);
		put_unaligned_le16(i, &e->portid);
	}
	return img;
}

static void fake_init(struct kunit *test, struct fake_dc *f, u32 nrec0,
		      u32 nrec1)
{
	memset(f, 0, sizeof(*f));
	f->test = test;
	f->img[0] = fake_img(test, 100, nrec0, &f->size[0]);
	f->img[1] = fake_img(test, 101, nrec1, &f->size[1]);
}

static void nvfab_disc_read_stable_test(struct kunit *test)
{
	struct nvfab_disc_log *log;
	struct fake_dc f;

	fake_init(test, &f, 3, 3);
	log = nvfab_disc_read_log(fake_get_log, &f, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, f.calls, 3);	/* header, entries, header */
	KUNIT_EXPECT_EQ(test, log->genctr, 100);
	KUNIT_EXPECT_EQ(test, log->nr_entries, 3);
	KUNIT_EXPECT_EQ(test, log->entries[2].portid, 2);
	KUNIT_EXPECT_FALSE(test, f.misaligned);
	nvfab_disc_log_free(log);

	/* No records: header, header. */
	fake_init(test, &f, 0, 0);
	log = nvfab_disc_read_log(fake_get_log, &f, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, f.calls, 2);
	KUNIT_EXPECT_EQ(test, log->numrec, 0);
	nvfab_disc_log_free(log);

	KUNIT_EXPECT_EQ(test, PTR_ERR(nvfab_disc_read_log(NULL, &f, 0)),
			-EINVAL);
}

/* Reads in pieces no longer than max_xfer, itself made a multiple of 4. */
static void nvfab_disc_read_pieces_test(struct kunit *test)
{
	struct nvfab_disc_log *log;
	struct fake_dc f;

	fake_init(test, &f, 10, 10);
	log = nvfab_disc_read_log(fake_get_log, &f, 4096);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, f.max_len, 4096);
	KUNIT_EXPECT_EQ(test, f.calls, 1 + 3 + 1);	/* 10 KiB in 4 KiB */
	KUNIT_EXPECT_EQ(test, log->nr_entries, 10);
	nvfab_disc_log_free(log);

	fake_init(test, &f, 1, 1);
	log = nvfab_disc_read_log(fake_get_log, &f, 1001);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, f.max_len, 1000);
	KUNIT_EXPECT_FALSE(test, f.misaligned);
	KUNIT_EXPECT_EQ(test, log->nr_entries, 1);
	nvfab_disc_log_free(log);

	fake_init(test, &f, 1, 1);
	log = nvfab_disc_read_log(fake_get_log, &f, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	KUNIT_EXPECT_EQ(test, f.max_len, 4);
	KUNIT_EXPECT_EQ(test, f.calls, 3 * HDR / 4);
	KUNIT_EXPECT_FALSE(test, f.misaligned);
	nvfab_disc_log_free(log);
}

struct read_case {
	const char *desc;
	u32 nrec0, nrec1;
	unsigned int flip_at;
	unsigned int bump_until;
	unsigned int fail_at;
	int fail_ret;
	bool short_entries;
	u16 recfmt0;
	bool huge_numrec1;	/* img[1] NUMREC above the cap */
	bool same_genctr;	/* img[1] keeps img[0]'s GENCTR */
	/* expected */
	int err;
	unsigned int calls;
	u64 genctr;
	u32 nr_entries;
};

static const struct read_case read_cases[] = {
	{ "GENCTR moves before the second header: read again",
	  .nrec0 = 2, .nrec1 = 2, .flip_at = 3, .calls = 6, .genctr = 101,
	  .nr_entries = 2 },
	{ "GENCTR moves before the entries: read again",
	  .nrec0 = 2, .nrec1 = 2, .flip_at = 2, .calls = 6, .genctr = 101,
	  .nr_entries = 2 },
	{ "log grows while read: the new NUMREC is used",
	  .nrec0 = 1, .nrec1 = 4, .flip_at = 3, .calls = 6, .genctr = 101,
	  .nr_entries = 4 },
	{ "log shrinks to no records while read",
	  .nrec0 = 3, .nrec1 = 0, .flip_at = 3, .calls = 5, .genctr = 101,
	  .nr_entries = 0 },
	{ "GENCTR moves during two reads: the third succeeds",
	  .nrec0 = 1, .nrec1 = 1, .bump_until = 6, .calls = 9, .genctr = 106,
	  .nr_entries = 1 },
	{ "GENCTR moves at every call: -EAGAIN after the tries",
	  .nrec0 = 1, .nrec1 = 1, .bump_until = UINT_MAX,
	  .calls = 3 * NVFAB_DISC_READ_TRIES, .err = -EAGAIN },
	{ "same GENCTR, NUMREC changed: -EPROTO",
	  .nrec0 = 1, .nrec1 = 2, .flip_at = 3, .same_genctr = true,
	  .calls = 3, .err = -EPROTO },
	{ "same GENCTR, NUMREC above the cap: -EPROTO",
	  .nrec0 = 1, .nrec1 = 1, .flip_at = 3, .same_genctr = true,
	  .huge_numrec1 = true, .calls = 3, .err = -EPROTO },
	{ "new GENCTR, NUMREC above the cap: -E2BIG",
	  .nrec0 = 1, .nrec1 = 1, .flip_at = 3, .huge_numrec1 = true,
	  .calls = 4, .err = -E2BIG },
	{ "RECFMT 1: -EPROTO, entries not read", .nrec0 = 1, .nrec1 = 1,
	  .recfmt0 = 1, .calls = 1, .err = -EPROTO },
	{ "first header fails", .nrec0 = 1, .nrec1 = 1, .fail_at = 1,
	  .fail_ret = -ENOTCONN, .calls = 1, .err = -ENOTCONN },
	{ "entries fail", .nrec0 = 1, .nrec1 = 1, .fail_at = 2,
	  .fail_ret = -ETIMEDOUT, .calls = 2, .err = -ETIMEDOUT },
	{ "second header fails", .nrec0 = 1, .nrec1 = 1, .fail_at = 3,
	  .fail_ret = -EINTR, .calls = 3, .err = -EINTR },
	{ "NVMe status: -EIO", .nrec0 = 1, .nrec1 = 1, .fail_at = 2,
	  .fail_ret = NVME_SC_INTERNAL, .calls = 2, .err = -EIO },
	{ "short transfer of the entries: records skipped",
	  .nrec0 = 2, .nrec1 = 2, .short_entries = true, .calls = 3,
	  .genctr = 100, .nr_entries = 0 },
};

static void read_case_desc(const struct read_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(read, read_cases, read_case_desc);

static void nvfab_disc_read_table_test(struct kunit *test)
{
	const struct read_case *c = test->param_value;
	struct nvfab_disc_log *log;
	struct fake_dc f;

	fake_init(test, &f, c->nrec0, c->nrec1);
	f.flip_at = c->flip_at;
	f.bump_until = c->bump_until;
	f.fail_at = c->fail_at;
	f.fail_ret = c->fail_ret;
	f.short_entries = c->short_entries;
	put_unaligned_le16(c->recfmt0, f.img[0] + 16);
	if (c->huge_numrec1)
		put_unaligned_le64(NVFAB_DISC_MAX_RECORDS + 1, f.img[1] + 8);
	if (c->same_genctr)
		put_unaligned_le64(100, f.img[1]);

	log = nvfab_disc_read_log(fake_get_log, &f, 0);
	KUNIT_EXPECT_EQ(test, f.calls, c->calls);
	KUNIT_EXPECT_FALSE(test, f.misaligned);
	if (c->err) {
		KUNIT_ASSERT_TRUE(test, IS_ERR(log));
		KUNIT_EXPECT_EQ(test, PTR_ERR(log), c->err);
		return;
	}
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(log), "error %ld", PTR_ERR(log));
	KUNIT_EXPECT_EQ(test, log->genctr, c->genctr);
	KUNIT_EXPECT_EQ(test, log->nr_entries, c->nr_entries);
	KUNIT_EXPECT_EQ(test, log->nr_entries + log->nr_skipped, log->numrec);
	if (c->short_entries)
		KUNIT_EXPECT_EQ(test, log->skipped[NVFAB_DISC_BAD_TRTYPE],
				log->numrec);
	nvfab_disc_log_free(log);
}

static void nvfab_disc_status_name_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, nvfab_disc_entry_status_name(NVFAB_DISC_ENTRY_OK),
			   "ok");
	KUNIT_EXPECT_STREQ(test, nvfab_disc_entry_status_name(NVFAB_DISC_BAD_TSAS),
			   "TSAS");
	KUNIT_EXPECT_STREQ(test, nvfab_disc_entry_status_name(NVFAB_DISC_NR_STATUS),
			   "unknown");
}

static struct kunit_case nvfab_disc_log_cases[] = {
	KUNIT_CASE_PARAM(nvfab_disc_log_table_test, disc_gen_params),
	KUNIT_CASE(nvfab_disc_log_fields_test),
	KUNIT_CASE(nvfab_disc_log_trunc_test),
	KUNIT_CASE(nvfab_disc_log_unaligned_test),
	KUNIT_CASE(nvfab_disc_log_fuzz_test),
	KUNIT_CASE(nvfab_disc_read_stable_test),
	KUNIT_CASE(nvfab_disc_read_pieces_test),
	KUNIT_CASE_PARAM(nvfab_disc_read_table_test, read_gen_params),
	KUNIT_CASE(nvfab_disc_status_name_test),
	{}
};

static struct kunit_suite nvfab_disc_log_suite = {
	.name = "nvfab_discovery_log",
	.test_cases = nvfab_disc_log_cases,
};

kunit_test_suite(nvfab_disc_log_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's Discovery Log Page reader and parser");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
