// SPDX-License-Identifier: GPL-2.0
/*
 * DH-HMAC-CHAP messages (NVMe Base 2.0, the DH-HMAC-CHAP protocol of the
 * in-band authentication; NVMe over Fabrics 1.1, Authentication Send and
 * Receive): the host's Negotiate, Reply, Success2 and Failure2 built, and
 * the controller's Challenge, Success1 and Failure1 checked field by field
 * before anything in them is used. No cryptography here: the hashes, the
 * DH exchange and the key formats are the kernel's nvme-auth library's.
 *
 * A controller is untrusted: every length is checked against the buffer,
 * every identifier against what the host offered, the transaction ID
 * against the host's, and a DH value must have its group's exact size and
 * be neither 0 nor 1 (the DH library refuses p - 1 and the other values
 * outside [2, p - 2] when it computes the shared secret).
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "auth.h"

/* Hash lengths of the DH-HMAC-CHAP hash identifiers, in bytes. */
static unsigned int nvfab_auth_hash_len(u8 hash_id)
{
	switch (hash_id) {
	case NVME_AUTH_HASH_SHA256:
		return 32;
	case NVME_AUTH_HASH_SHA384:
		return 48;
	case NVME_AUTH_HASH_SHA512:
		return 64;
	default:
		return 0;
	}
}

/* Sizes of the RFC 7919 groups' public values, in bytes; 0 for null. */
static int nvfab_auth_dh_len(u8 dh_id)
{
	switch (dh_id) {
	case NVME_AUTH_DHGROUP_NULL:
		return 0;
	case NVME_AUTH_DHGROUP_2048:
		return 2048 / 8;
	case NVME_AUTH_DHGROUP_3072:
		return 3072 / 8;
	case NVME_AUTH_DHGROUP_4096:
		return 4096 / 8;
	case NVME_AUTH_DHGROUP_6144:
		return 6144 / 8;
	case NVME_AUTH_DHGROUP_8192:
		return 8192 / 8;
	default:
		return -1;
	}
}

static bool nvfab_auth_offered(const u8 *ids, int nr, u8 id)
{
	int i;

	for (i = 0; i < nr; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/**
 * nvfab_auth_negotiate_len() - bytes of the host's Negotiate message
 *
 * Context: any context.
 * Return: the size of the AUTH_Negotiate message with one DH-HMAC-CHAP
 * protocol descriptor.
 */
size_t nvfab_auth_negotiate_len(void)
{
	return sizeof(struct nvmf_auth_dhchap_negotiate_data) +
	       sizeof(union nvmf_auth_protocol);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_negotiate_len);

/**
 * nvfab_auth_build_negotiate() - the host's AUTH_Negotiate message
 * @buf: nvfab_auth_negotiate_len() bytes
 * @t_id: the transaction ID of this authentication
 * @offer: the hash functions and DH groups the host offers, in its order
 *	of preference
 *
 * No secure channel concatenation (SC_C 0); one protocol descriptor,
 * DH-HMAC-CHAP.
 *
 * Context: any context.
 * Return: 0, or -EINVAL for an offer with no hash, more than 30 hashes or
 * DH groups, or an identifier nvfab does not know.
 */
int nvfab_auth_build_negotiate(void *buf, u16 t_id,
			       const struct nvfab_auth_offer *offer)
{
	struct nvmf_auth_dhchap_negotiate_data *neg = buf;
	struct nvmf_auth_dhchap_protocol_descriptor *d;
	int i;

	if (offer->nr_hash < 1 || offer->nr_hash > NVME_AUTH_DHCHAP_MAX_HASH_IDS ||
	    offer->nr_dh < 0 || offer->nr_dh > NVME_AUTH_DHCHAP_MAX_DH_IDS)
		return -EINVAL;
	for (i = 0; i < offer->nr_hash; i++)
		if (!nvfab_auth_hash_len(offer->hash_ids[i]))
			return -EINVAL;
	for (i = 0; i < offer->nr_dh; i++)
		if (nvfab_auth_dh_len(offer->dh_ids[i]) < 0)
			return -EINVAL;
	memset(buf, 0, nvfab_auth_negotiate_len());
	neg->auth_type = NVME_AUTH_COMMON_MESSAGES;
	neg->auth_id = NVME_AUTH_DHCHAP_MESSAGE_NEGOTIATE;
	neg->t_id = cpu_to_le16(t_id);
	neg->sc_c = 0;
	neg->napd = 1;
	d = &neg->auth_protocol[0].dhchap;
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	d->halen = offer->nr_hash;
	d->dhlen = offer->nr_dh;
	memcpy(d->idlist, offer->hash_ids, offer->nr_hash);
	memcpy(d->idlist + NVME_AUTH_DHCHAP_MAX_HASH_IDS, offer->dh_ids,
	       offer->nr_dh);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_build_negotiate);

/*
 * The common start of a controller's message: type, identifier and
 * transaction ID. A Failure1 (the controller ends the transaction) is
 * -EKEYREJECTED with its reason code explanation in @failure.
 */
static int nvfab_auth_check_head(const u8 *buf, size_t len, u8 want_id,
				 u16 t_id, u8 *failure, const char **why)
{
	const struct nvmf_auth_dhchap_failure_data *f = (const void *)buf;

	if (len < sizeof(*f)) {
		*why = "message shorter than its header";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	/* Failure1 is a common message; the others are DH-HMAC-CHAP's */
	if (f->auth_type != NVME_AUTH_DHCHAP_MESSAGES &&
	    (f->auth_type != NVME_AUTH_COMMON_MESSAGES ||
	     f->auth_id != NVME_AUTH_DHCHAP_MESSAGE_FAILURE1)) {
		*why = "AUTH_TYPE is not DH-HMAC-CHAP";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE;
	}
	if (le16_to_cpu(f->t_id) != t_id) {
		*why = "T_ID is not this transaction's";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (f->auth_type == NVME_AUTH_COMMON_MESSAGES) {
		if (f->rescode != NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED ||
		    f->rescode_exp < NVME_AUTH_DHCHAP_FAILURE_FAILED ||
		    f->rescode_exp > NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE) {
			*why = "Failure1 with an unknown reason code";
			*failure = NVME_AUTH_DHCHAP_FAILURE_FAILED;
		} else {
			*why = "the controller sent Failure1";
			*failure = f->rescode_exp;
		}
		return -EKEYREJECTED;
	}
	if (f->auth_id != want_id) {
		*why = "AUTH_ID is not the message expected now";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE;
	}
	return 0;
}

/**
 * nvfab_auth_check_challenge() - check the controller's DH-HMAC-CHAP_Challenge
 * @buf: the message as received (Authentication Receive data)
 * @len: bytes received
 * @t_id: the transaction ID the host sent in AUTH_Negotiate
 * @offer: what the host offered in AUTH_Negotiate
 * @ch: the challenge's fields, pointing into @buf, on success
 * @failure: on -EKEYREJECTED, the reason code explanation of the
 *	controller's Failure1
 * @why: set, on any error, to what was wrong (a field's name), for the log
 *
 * Context: any context.
 * Return: 0; -EKEYREJECTED when the controller sent Failure1 instead; or a
 * reason code explanation (NVME_AUTH_DHCHAP_FAILURE_*, > 0) for the
 * host's Failure2: INCORRECT_MESSAGE (not a Challenge), INCORRECT_PAYLOAD
 * (a length, T_ID, HL, DHVLEN or DH value that is wrong), HASH_UNUSABLE
 * or DHGROUP_UNUSABLE (an identifier the host did not offer).
 */
int nvfab_auth_check_challenge(const void *buf, size_t len, u16 t_id,
			       const struct nvfab_auth_offer *offer,
			       struct nvfab_auth_challenge *ch, u8 *failure,
			       const char **why)
{
	const struct nvmf_auth_dhchap_challenge_data *c = buf;
	unsigned int hl;
	u16 dhvlen;
	int dh_len, ret, i;

	ret = nvfab_auth_check_head(buf, len, NVME_AUTH_DHCHAP_MESSAGE_CHALLENGE,
				    t_id, failure, why);
	if (ret)
		return ret;
	if (len < sizeof(*c)) {
		*why = "Challenge shorter than its header";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (!nvfab_auth_offered(offer->hash_ids, offer->nr_hash, c->hashid)) {
		*why = "HASHID was not offered";
		return NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE;
	}
	hl = nvfab_auth_hash_len(c->hashid);
	if (c->hl != hl) {
		*why = "HL is not the hash's length";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (!nvfab_auth_offered(offer->dh_ids, offer->nr_dh, c->dhgid)) {
		*why = "DHGID was not offered";
		return NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE;
	}
	dh_len = nvfab_auth_dh_len(c->dhgid);
	dhvlen = le16_to_cpu(c->dhvlen);
	if (dhvlen != dh_len) {
		*why = "DHVLEN is not the DH group's size";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (len < sizeof(*c) + hl + dhvlen) {
		*why = "Challenge shorter than HL and DHVLEN say";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	ch->hash_id = c->hashid;
	ch->dh_id = c->dhgid;
	ch->hl = hl;
	ch->seqnum = le32_to_cpu(c->seqnum);
	ch->c1 = c->cval;
	ch->dh_value = dhvlen ? c->cval + hl : NULL;
	ch->dh_len = dhvlen;
	if (dhvlen) {
		/*
		 * A public value y must be in [2, p - 2] (SP 800-56A,
		 * 5.6.2.3.1): 0, 1 and p - 1 lie in the subgroups of order 1
		 * and 2, and a value >= p is not reduced. Every RFC 7919 prime
		 * has its 64 most significant bits set (RFC 7919, Appendix A),
		 * and so has p - 1: a value with those bits set is refused
		 * without knowing p. That refuses p - 1 and every value >= p,
		 * and a valid one only with a probability below 2^-64 (p is
		 * 2^b - 2^(b-64) + about e * 2^(b-66)). The kernel's dh
		 * checks none of this outside FIPS mode.
		 */
		for (i = 0; i < dhvlen - 1 && !ch->dh_value[i]; i++)
			;
		if (i == dhvlen - 1 && ch->dh_value[i] <= 1) {
			*why = "DH value is 0 or 1";
			return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
		}
		for (i = 0; i < 8 && ch->dh_value[i] == 0xff; i++)
			;
		if (i == 8) {
			*why = "DH value is p - 1 or above (its 64 top bits set)";
			return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_check_challenge);

/**
 * nvfab_auth_reply_len() - bytes of the host's DH-HMAC-CHAP_Reply
 * @hl: the hash's length
 * @dh_len: bytes of the host's DH value (0 with the null group)
 *
 * Context: any context.
 * Return: the message size.
 */
size_t nvfab_auth_reply_len(unsigned int hl, unsigned int dh_len)
{
	return sizeof(struct nvmf_auth_dhchap_reply_data) + 2 * hl + dh_len;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_reply_len);

/**
 * nvfab_auth_build_reply() - the host's DH-HMAC-CHAP_Reply
 * @buf: nvfab_auth_reply_len(@hl, @dh_len) bytes
 * @t_id: the transaction ID
 * @hl: the hash's length
 * @r1: the host's response, @hl bytes
 * @c2: the host's challenge to the controller, @hl bytes, or NULL when
 *	the host does not authenticate the controller
 * @s2: the host's sequence number (nvme_auth_get_seqnum(), never 0)
 * @dh: the host's DH value, or NULL with the null group
 * @dh_len: its bytes
 *
 * Context: any context.
 */
void nvfab_auth_build_reply(void *buf, u16 t_id, unsigned int hl,
			    const u8 *r1, const u8 *c2, u32 s2, const u8 *dh,
			    unsigned int dh_len)
{
	struct nvmf_auth_dhchap_reply_data *r = buf;

	memset(buf, 0, nvfab_auth_reply_len(hl, dh_len));
	r->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	r->auth_id = NVME_AUTH_DHCHAP_MESSAGE_REPLY;
	r->t_id = cpu_to_le16(t_id);
	r->hl = hl;
	r->cvalid = c2 ? 1 : 0;
	r->dhvlen = cpu_to_le16(dh_len);
	r->seqnum = cpu_to_le32(s2);
	memcpy(r->rval, r1, hl);
	if (c2)
		memcpy(r->rval + hl, c2, hl);
	if (dh_len)
		memcpy(r->rval + 2 * hl, dh, dh_len);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_build_reply);

/**
 * nvfab_auth_check_success1() - check the controller's DH-HMAC-CHAP_Success1
 * @buf: the message as received
 * @len: bytes received
 * @t_id: the transaction ID
 * @hl: the negotiated hash's length
 * @bidirectional: the host sent a challenge (C2): the message must carry
 *	the controller's response
 * @r2: set to the controller's response (@hl bytes in @buf) when
 *	@bidirectional, else to NULL
 * @failure: on -EKEYREJECTED, the reason code explanation of Failure1
 * @why: set, on any error, to what was wrong
 *
 * The response itself is compared by the caller (the expected value needs
 * the controller's key).
 *
 * Context: any context.
 * Return: 0; -EKEYREJECTED for a Failure1; or a reason code explanation
 * (> 0) for the host's Failure2.
 */
int nvfab_auth_check_success1(const void *buf, size_t len, u16 t_id,
			      unsigned int hl, bool bidirectional,
			      const u8 **r2, u8 *failure, const char **why)
{
	const struct nvmf_auth_dhchap_success1_data *s = buf;
	int ret;

	*r2 = NULL;
	ret = nvfab_auth_check_head(buf, len, NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1,
				    t_id, failure, why);
	if (ret)
		return ret;
	if (len < sizeof(*s)) {
		*why = "Success1 shorter than its header";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (s->hl != hl) {
		*why = "HL is not the negotiated hash's length";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	if (!bidirectional)
		return 0;
	if (!(s->rvalid & NVME_AUTH_DHCHAP_RESPONSE_VALID)) {
		*why = "RVALID clear: the controller did not answer the host's challenge";
		return NVME_AUTH_DHCHAP_FAILURE_FAILED;
	}
	if (len < sizeof(*s) + hl) {
		*why = "Success1 shorter than HL says";
		return NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
	}
	*r2 = s->rval;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_check_success1);

/**
 * nvfab_auth_build_success2() - the host's DH-HMAC-CHAP_Success2
 * @buf: sizeof(struct nvmf_auth_dhchap_success2_data) bytes
 * @t_id: the transaction ID
 *
 * Context: any context.
 */
void nvfab_auth_build_success2(void *buf, u16 t_id)
{
	struct nvmf_auth_dhchap_success2_data *s = buf;

	memset(s, 0, sizeof(*s));
	s->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s->auth_id = NVME_AUTH_DHCHAP_MESSAGE_SUCCESS2;
	s->t_id = cpu_to_le16(t_id);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_build_success2);

/**
 * nvfab_auth_build_failure2() - the host's DH-HMAC-CHAP_Failure2
 * @buf: sizeof(struct nvmf_auth_dhchap_failure_data) bytes
 * @t_id: the transaction ID
 * @reason: the reason code explanation (NVME_AUTH_DHCHAP_FAILURE_*)
 *
 * Context: any context.
 */
void nvfab_auth_build_failure2(void *buf, u16 t_id, u8 reason)
{
	struct nvmf_auth_dhchap_failure_data *f = buf;

	memset(f, 0, sizeof(*f));
	f->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	f->auth_id = NVME_AUTH_DHCHAP_MESSAGE_FAILURE2;
	f->t_id = cpu_to_le16(t_id);
	f->rescode = NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED;
	f->rescode_exp = reason;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_build_failure2);
