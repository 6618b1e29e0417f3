// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the DH-HMAC-CHAP messages (auth-msg.c): a controller's
 * Challenge and Success1, built correct and then broken one field at a
 * time (every length, identifier and the transaction ID, a DH value of 0
 * or 1, a Failure1 in their place), and the host's Negotiate, Reply,
 * Success2 and Failure2 against the layout of include/linux/nvme.h.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../auth.h"

#define TID	0x1234
#define BUFSZ	(sizeof(struct nvmf_auth_dhchap_challenge_data) + 64 + 1024 + 8)

static const struct nvfab_auth_offer offer = {
	.hash_ids = { NVME_AUTH_HASH_SHA256, NVME_AUTH_HASH_SHA384,
		      NVME_AUTH_HASH_SHA512 },
	.nr_hash = 3,
	.dh_ids = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048,
		    NVME_AUTH_DHGROUP_3072, NVME_AUTH_DHGROUP_4096,
		    NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192 },
	.nr_dh = 6,
};

/* Only SHA-256 and the null group, as a host with a narrow offer. */
static const struct nvfab_auth_offer narrow = {
	.hash_ids = { NVME_AUTH_HASH_SHA256 },
	.nr_hash = 1,
	.dh_ids = { NVME_AUTH_DHGROUP_NULL },
	.nr_dh = 1,
};

enum mut {
	M_NONE, M_TYPE, M_ID, M_TID, M_FAILURE1, M_FAILURE1_BAD, M_HL,
	M_DHVLEN, M_SHORT_HDR, M_SHORT_BODY, M_DH_ZERO, M_DH_ONE, M_DH_TWO,
	M_DH_TOP, M_DH_BELOW_TOP, M_NARROW_HASH, M_NARROW_DH, M_HASH_UNKNOWN,
	M_DH_UNKNOWN,
};

struct ch_case {
	const char *desc;
	u8 hash;
	u8 dh;
	enum mut mut;
	int ret;	/* 0, -EKEYREJECTED or a reason code explanation */
	u8 failure;	/* with -EKEYREJECTED */
};

static const struct ch_case ch_cases[] = {
	{ "SHA-256, null group", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_NONE, 0 },
	{ "SHA-384, ffdhe2048", NVME_AUTH_HASH_SHA384, NVME_AUTH_DHGROUP_2048, M_NONE, 0 },
	{ "SHA-512, ffdhe8192", NVME_AUTH_HASH_SHA512, NVME_AUTH_DHGROUP_8192, M_NONE, 0 },
	{ "DH value 2 is fine here", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_2048, M_DH_TWO, 0 },
	{ "AUTH_TYPE common", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_TYPE,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE },
	{ "AUTH_ID Success1 instead", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_ID,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE },
	{ "T_ID of another transaction", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_TID,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "Failure1 instead", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_FAILURE1,
	  -EKEYREJECTED, NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE },
	{ "Failure1 with an unknown reason", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL,
	  M_FAILURE1_BAD, -EKEYREJECTED, NVME_AUTH_DHCHAP_FAILURE_FAILED },
	{ "HL not the hash's", NVME_AUTH_HASH_SHA384, NVME_AUTH_DHGROUP_NULL, M_HL,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "DHVLEN not the group's", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_3072, M_DHVLEN,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "shorter than the failure header", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL,
	  M_SHORT_HDR, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "body cut short", NVME_AUTH_HASH_SHA512, NVME_AUTH_DHGROUP_4096, M_SHORT_BODY,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "DH value 0", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_2048, M_DH_ZERO,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "DH value 1", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_6144, M_DH_ONE,
	  NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "DH value with the prime's 64 top bits", NVME_AUTH_HASH_SHA256,
	  NVME_AUTH_DHGROUP_2048, M_DH_TOP, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD },
	{ "DH value just below 2^b - 2^(b-64)", NVME_AUTH_HASH_SHA384,
	  NVME_AUTH_DHGROUP_8192, M_DH_BELOW_TOP, 0 },
	{ "hash not offered", NVME_AUTH_HASH_SHA512, NVME_AUTH_DHGROUP_NULL, M_NARROW_HASH,
	  NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE },
	{ "group not offered", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_2048, M_NARROW_DH,
	  NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE },
	{ "unknown hash 0xff", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_HASH_UNKNOWN,
	  NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE },
	{ "unknown group 0x06", NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL, M_DH_UNKNOWN,
	  NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE },
};

static void ch_desc(const struct ch_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ch, ch_cases, ch_desc);

static unsigned int hash_len(u8 id)
{
	return id == NVME_AUTH_HASH_SHA256 ? 32 : id == NVME_AUTH_HASH_SHA384 ? 48 : 64;
}

static unsigned int group_len(u8 id)
{
	static const unsigned int bits[] = { 0, 2048, 3072, 4096, 6144, 8192 };

	return bits[id] / 8;
}

/* A correct Challenge for @c's hash and group; its length. */
static size_t build_challenge(u8 *buf, const struct ch_case *c)
{
	struct nvmf_auth_dhchap_challenge_data *ch = (void *)buf;
	unsigned int hl = hash_len(c->hash), dl = group_len(c->dh);

	memset(buf, 0, BUFSZ);
	ch->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	ch->auth_id = NVME_AUTH_DHCHAP_MESSAGE_CHALLENGE;
	ch->t_id = cpu_to_le16(TID);
	ch->hl = hl;
	ch->hashid = c->hash;
	ch->dhgid = c->dh;
	ch->dhvlen = cpu_to_le16(dl);
	ch->seqnum = cpu_to_le32(77);
	memset(ch->cval, 0xc1, hl);
	memset(ch->cval + hl, 0xa5, dl);
	return sizeof(*ch) + hl + dl;
}

static void nvfab_auth_challenge_test(struct kunit *test)
{
	const struct ch_case *c = test->param_value;
	const struct nvfab_auth_offer *o = &offer;
	struct nvmf_auth_dhchap_challenge_data *ch;
	struct nvmf_auth_dhchap_failure_data *f;
	struct nvfab_auth_challenge out = { };
	const char *why = NULL;
	u8 failure = 0, *buf;
	unsigned int hl;
	size_t len;
	int ret;

	buf = kunit_kzalloc(test, BUFSZ, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = build_challenge(buf, c);
	ch = (void *)buf;
	f = (void *)buf;
	hl = ch->hl;
	switch (c->mut) {
	case M_NONE:
		break;
	case M_TYPE:
		ch->auth_type = NVME_AUTH_COMMON_MESSAGES;
		break;
	case M_ID:
		ch->auth_id = NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1;
		break;
	case M_TID:
		ch->t_id = cpu_to_le16(TID + 1);
		break;
	case M_FAILURE1:
	case M_FAILURE1_BAD:
		/* a common message (NVMe Base 2.0, 8.13.5.10), as nvmet's */
		f->auth_type = NVME_AUTH_COMMON_MESSAGES;
		f->auth_id = NVME_AUTH_DHCHAP_MESSAGE_FAILURE1;
		f->rescode = NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED;
		f->rescode_exp = c->mut == M_FAILURE1 ?
				 NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE : 0x42;
		len = sizeof(*f);
		break;
	case M_HL:
		ch->hl = 32;
		break;
	case M_DHVLEN:
		ch->dhvlen = cpu_to_le16(256);
		break;
	case M_SHORT_HDR:
		len = sizeof(*f) - 1;
		break;
	case M_SHORT_BODY:
		len--;
		break;
	case M_DH_ZERO:
		memset(ch->cval + hl, 0, group_len(c->dh));
		break;
	case M_DH_ONE:
	case M_DH_TWO:
		memset(ch->cval + hl, 0, group_len(c->dh));
		ch->cval[hl + group_len(c->dh) - 1] = c->mut == M_DH_ONE ? 1 : 2;
		break;
	case M_DH_TOP:
		/* 2^b - 1 >= p: the top 8 bytes set, the rest anything */
		memset(ch->cval + hl, 0xff, 8);
		break;
	case M_DH_BELOW_TOP:
		memset(ch->cval + hl, 0xff, group_len(c->dh));
		ch->cval[hl + 7] = 0xfe;
		break;
	case M_NARROW_HASH:
	case M_NARROW_DH:
		o = &narrow;
		break;
	case M_HASH_UNKNOWN:
		ch->hashid = 0xff;
		break;
	case M_DH_UNKNOWN:
		ch->dhgid = 0x06;
		break;
	}
	ret = nvfab_auth_check_challenge(buf, len, TID, o, &out, &failure, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "why: %s", why ? why : "-");
	if (ret)
		KUNIT_EXPECT_NOT_NULL(test, why);
	if (ret == -EKEYREJECTED)
		KUNIT_EXPECT_EQ(test, failure, c->failure);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, out.hash_id, c->hash);
		KUNIT_EXPECT_EQ(test, out.dh_id, c->dh);
		KUNIT_EXPECT_EQ(test, out.hl, hash_len(c->hash));
		KUNIT_EXPECT_EQ(test, out.seqnum, 77);
		KUNIT_EXPECT_PTR_EQ(test, out.c1, (const u8 *)ch->cval);
		KUNIT_EXPECT_EQ(test, out.dh_len, group_len(c->dh));
		if (c->dh)
			KUNIT_EXPECT_PTR_EQ(test, out.dh_value,
					    (const u8 *)ch->cval + hl);
		else
			KUNIT_EXPECT_NULL(test, out.dh_value);
	}
}

/* Success1: unidirectional, bidirectional, and broken ones. */
static void nvfab_auth_success1_test(struct kunit *test)
{
	struct nvmf_auth_dhchap_success1_data *s;
	const char *why = NULL;
	const u8 *r2;
	u8 failure, *buf;
	size_t len = sizeof(*s) + 48;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	s = (void *)buf;
	s->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s->auth_id = NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1;
	s->t_id = cpu_to_le16(TID);
	s->hl = 48;
	s->rvalid = NVME_AUTH_DHCHAP_RESPONSE_VALID;
	memset(s->rval, 0x2b, 48);

	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len, TID, 48, true,
							&r2, &failure, &why), 0);
	KUNIT_EXPECT_PTR_EQ(test, r2, (const u8 *)s->rval);
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, sizeof(*s), TID, 48,
							false, &r2, &failure, &why), 0);
	KUNIT_EXPECT_NULL(test, r2);
	/* the response cut short */
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len - 1, TID, 48, true,
							&r2, &failure, &why),
			NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
	/* HL of another hash */
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len, TID, 32, true,
							&r2, &failure, &why),
			NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
	/* the host asked for the controller's response and got none */
	s->rvalid = 0;
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len, TID, 48, true,
							&r2, &failure, &why),
			NVME_AUTH_DHCHAP_FAILURE_FAILED);
	KUNIT_EXPECT_NULL(test, r2);
	/* another transaction */
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len, TID + 1, 48, false,
							&r2, &failure, &why),
			NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
	/* a Challenge where Success1 belongs */
	s->auth_id = NVME_AUTH_DHCHAP_MESSAGE_CHALLENGE;
	KUNIT_EXPECT_EQ(test, nvfab_auth_check_success1(buf, len, TID, 48, false,
							&r2, &failure, &why),
			NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE);
}

/* The host's messages: the layout the controller parses. */
static void nvfab_auth_build_test(struct kunit *test)
{
	struct nvmf_auth_dhchap_negotiate_data *neg;
	struct nvmf_auth_dhchap_reply_data *r;
	struct nvmf_auth_dhchap_success2_data s2;
	struct nvmf_auth_dhchap_failure_data f2;
	struct nvfab_auth_offer bad = narrow;
	u8 r1[32], c2[32], dh[256], *buf;

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, nvfab_auth_negotiate_len(), 8 + 64);
	KUNIT_ASSERT_EQ(test, nvfab_auth_build_negotiate(buf, TID, &offer), 0);
	neg = (void *)buf;
	KUNIT_EXPECT_EQ(test, neg->auth_type, NVME_AUTH_COMMON_MESSAGES);
	KUNIT_EXPECT_EQ(test, neg->auth_id, NVME_AUTH_DHCHAP_MESSAGE_NEGOTIATE);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(neg->t_id), TID);
	KUNIT_EXPECT_EQ(test, neg->sc_c, 0);
	KUNIT_EXPECT_EQ(test, neg->napd, 1);
	KUNIT_EXPECT_EQ(test, neg->auth_protocol[0].dhchap.authid,
			NVME_AUTH_DHCHAP_AUTH_ID);
	KUNIT_EXPECT_EQ(test, neg->auth_protocol[0].dhchap.halen, 3);
	KUNIT_EXPECT_EQ(test, neg->auth_protocol[0].dhchap.dhlen, 6);
	KUNIT_EXPECT_EQ(test, neg->auth_protocol[0].dhchap.idlist[2],
			NVME_AUTH_HASH_SHA512);
	KUNIT_EXPECT_EQ(test, neg->auth_protocol[0].dhchap.idlist[30 + 5],
			NVME_AUTH_DHGROUP_8192);
	/* no hash, or identifiers nvfab does not know: refused */
	bad.nr_hash = 0;
	KUNIT_EXPECT_EQ(test, nvfab_auth_build_negotiate(buf, TID, &bad), -EINVAL);
	bad = narrow;
	bad.hash_ids[0] = 0x7f;
	KUNIT_EXPECT_EQ(test, nvfab_auth_build_negotiate(buf, TID, &bad), -EINVAL);
	bad = narrow;
	bad.dh_ids[0] = 0x09;
	KUNIT_EXPECT_EQ(test, nvfab_auth_build_negotiate(buf, TID, &bad), -EINVAL);

	memset(r1, 0x11, sizeof(r1));
	memset(c2, 0x22, sizeof(c2));
	memset(dh, 0x33, sizeof(dh));
	KUNIT_ASSERT_EQ(test, nvfab_auth_reply_len(32, 256), 16 + 64 + 256);
	nvfab_auth_build_reply(buf, TID, 32, r1, c2, 9, dh, sizeof(dh));
	r = (void *)buf;
	KUNIT_EXPECT_EQ(test, r->auth_type, NVME_AUTH_DHCHAP_MESSAGES);
	KUNIT_EXPECT_EQ(test, r->auth_id, NVME_AUTH_DHCHAP_MESSAGE_REPLY);
	KUNIT_EXPECT_EQ(test, r->hl, 32);
	KUNIT_EXPECT_EQ(test, r->cvalid, 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(r->dhvlen), 256);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(r->seqnum), 9);
	KUNIT_EXPECT_EQ(test, r->rval[0], 0x11);
	KUNIT_EXPECT_EQ(test, r->rval[32], 0x22);
	KUNIT_EXPECT_EQ(test, r->rval[64], 0x33);
	/* unidirectional: C2 zeroed, CVALID clear */
	nvfab_auth_build_reply(buf, TID, 32, r1, NULL, 9, NULL, 0);
	KUNIT_EXPECT_EQ(test, r->cvalid, 0);
	KUNIT_EXPECT_EQ(test, r->rval[32], 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(r->dhvlen), 0);

	nvfab_auth_build_success2(&s2, TID);
	KUNIT_EXPECT_EQ(test, s2.auth_id, NVME_AUTH_DHCHAP_MESSAGE_SUCCESS2);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(s2.t_id), TID);
	nvfab_auth_build_failure2(&f2, TID, NVME_AUTH_DHCHAP_FAILURE_FAILED);
	KUNIT_EXPECT_EQ(test, f2.auth_id, NVME_AUTH_DHCHAP_MESSAGE_FAILURE2);
	KUNIT_EXPECT_EQ(test, f2.rescode, NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED);
	KUNIT_EXPECT_EQ(test, f2.rescode_exp, NVME_AUTH_DHCHAP_FAILURE_FAILED);
}

static struct kunit_case nvfab_auth_msg_cases[] = {
	KUNIT_CASE_PARAM(nvfab_auth_challenge_test, ch_gen_params),
	KUNIT_CASE(nvfab_auth_success1_test),
	KUNIT_CASE(nvfab_auth_build_test),
	{}
};

static struct kunit_suite nvfab_auth_msg_suite = {
	.name = "nvfab_auth_msg",
	.test_cases = nvfab_auth_msg_cases,
};

kunit_test_suite(nvfab_auth_msg_suite);

MODULE_DESCRIPTION("KUnit tables for nvfab's DH-HMAC-CHAP messages");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
