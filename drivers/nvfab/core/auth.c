// SPDX-License-Identifier: GPL-2.0
/*
 * DH-HMAC-CHAP in-band authentication of a queue (NVMe Base 2.0, 8.13.5,
 * "DH-HMAC-CHAP protocol"; NVMe over Fabrics 1.1, Authentication Send and
 * Receive): the host's side of one authentication transaction, run on a
 * queue right after its Fabrics Connect when the controller requires it
 * (AUTHREQ ATR), and again on every queue of a live controller when a key
 * changes (re-authentication).
 *
 * The transaction, in the host's words:
 *   1. AUTH_Negotiate: the hash functions and DH groups the host offers;
 *   2. DH-HMAC-CHAP_Challenge from the controller: its choice, a sequence
 *      number S1, a challenge C1 and, unless the group is null, its DH
 *      value;
 *   3. DH-HMAC-CHAP_Reply: the host's response R1, and with a controller
 *      key its own challenge C2 and sequence number S2, and its DH value;
 *   4. DH-HMAC-CHAP_Success1: with a controller key, the controller's
 *      response R2, which the host checks;
 *   5. DH-HMAC-CHAP_Success2 when the host checked R2.
 * A message the host cannot accept ends the transaction with its
 * DH-HMAC-CHAP_Failure2; the controller's Failure1 ends it too.
 *
 * The messages are built and checked in auth-msg.c. The cryptography and
 * the key formats are the kernel's: nvme-auth (the DHHC-1 secret, the
 * key transformation, the DH helpers, the sequence numbers) and the
 * crypto API (HMAC). The responses, per the specification:
 *   Ca = HMAC(H(g^xy), C) with a DH group, else C (augmented challenge)
 *   R1 = HMAC(Kh, Ca1 || S1 || T_ID || SC_C || "HostHost" || NQNh || 00h
 *             || NQNc)
 *   R2 = HMAC(Kc, Ca2 || S2 || T_ID || SC_C || "Controller" || NQNc ||
 *             00h || NQNh)
 * with Kh and Kc the host's and the controller's keys transformed with
 * the host's and the subsystem's NQN.
 *
 * Secrets: every buffer that held a key, a session key or a response is
 * freed with kfree_sensitive(); nothing secret is ever logged.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/kpp.h>
#include <kunit/visibility.h>
#include <linux/nvme-auth.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <nvfab/compat.h>
#include <nvfab/fabrics.h>
#include "nvfab.h"
#include "auth.h"

/* What the host offers: every hash and group, strongest hash first. */
static const struct nvfab_auth_offer nvfab_auth_default_offer = {
	.hash_ids = { NVME_AUTH_HASH_SHA512, NVME_AUTH_HASH_SHA384,
		      NVME_AUTH_HASH_SHA256 },
	.nr_hash = 3,
	.dh_ids = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048,
		    NVME_AUTH_DHGROUP_3072, NVME_AUTH_DHGROUP_4096,
		    NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192 },
	.nr_dh = 6,
};

/* The largest message the controller may send: a Challenge, SHA-512, 8192. */
#define NVFAB_AUTH_RECV_MAX	(sizeof(struct nvmf_auth_dhchap_challenge_data) + \
				 64 + 8192 / 8)

/**
 * struct nvfab_auth_tx - one authentication transaction of one queue
 * @ctrl:	the controller
 * @qid:	the queue
 * @t_id:	the transaction ID
 * @ch:		the checked Challenge (pointing into @buf until the Reply)
 * @hash_tfm:	HMAC of the negotiated hash
 * @dh_tfm:	the negotiated DH group, or NULL (null group)
 * @c1:		the controller's challenge, @ch.hl bytes
 * @c2:		the host's challenge, or NULL without a controller key
 * @s1:		the controller's sequence number
 * @s2:		the host's sequence number (0 without a controller key)
 * @sess_key:	the DH session key, @sess_len bytes
 * @sess_len:	its length
 * @host_pub:	the host's DH value, @dh_len bytes
 * @dh_len:	bytes of a DH value of the group, 0 for null
 * @buf:	message buffer, NVFAB_AUTH_RECV_MAX bytes
 * @flags:	blk-mq flags of its commands: a reserved tag, waited for
 *		only on the connected admin queue (keep-alive may hold it)
 */
struct nvfab_auth_tx {
	struct nvfab_ctrl		*ctrl;
	int				qid;
	u16				t_id;
	struct nvfab_auth_challenge	ch;
	struct crypto_shash		*hash_tfm;
	struct crypto_kpp		*dh_tfm;
	u8				*c1;
	u8				*c2;
	u32				s1;
	u32				s2;
	u8				*sess_key;
	size_t				sess_len;
	u8				*host_pub;
	unsigned int			dh_len;
	u8				*buf;
	blk_mq_req_flags_t		flags;
};

/*
 * What the result @ret of an Authentication Send or Receive (@what names
 * it) means for the transaction, decided here only: an NVMe status the
 * controller set is a refusal (-EKEYREJECTED); a path-related status,
 * which the host sets when it fails a command of a queue being torn down,
 * and a cancelled command (-EINTR) mean the connection closed during the
 * transaction (-ECONNRESET: nothing says the key was refused; nvmet may
 * close right after queueing its Failure1, which is then never sent);
 * any other errno is returned as it is.
 */
static int nvfab_auth_cmd_errno(struct nvfab_auth_tx *tx, const char *what,
				int ret)
{
	struct nvfab_ctrl *ctrl = tx->ctrl;

	if (ret > 0 && (ret & NVME_SCT_MASK) != NVME_SCT_PATH) {
		dev_err(ctrl->device, "queue %d: authentication: %s failed with status 0x%x\n",
			tx->qid, what, ret);
		return -EKEYREJECTED;
	}
	if (ret > 0 || ret == -EINTR) {
		dev_err(ctrl->device, "queue %d: authentication: the connection closed before the transaction ended (%s)\n",
			tx->qid, what);
		return -ECONNRESET;
	}
	return ret;
}

/*
 * Authentication Send (Fabrics command type 05h): @len bytes of @buf.
 * Returns 0, an NVMe status (> 0) or a negative errno.
 */
static int nvfab_auth_submit_send(struct nvfab_auth_tx *tx, size_t len)
{
	struct nvfab_ctrl *ctrl = tx->ctrl;
	struct nvme_command c = { };

	c.auth_send.opcode = nvme_fabrics_command;
	c.auth_send.fctype = nvme_fabrics_type_auth_send;
	c.auth_send.secp = NVME_AUTH_DHCHAP_PROTOCOL_IDENTIFIER;
	c.auth_send.spsp0 = 0x01;
	c.auth_send.spsp1 = 0x01;
	c.auth_send.tl = cpu_to_le32(len);
	return nvfab_submit_sync_cmd(tx->qid ? ctrl->connect_q : ctrl->admin_q,
				     &c, NULL, tx->buf, len,
				     tx->qid ? tx->qid : NVME_QID_ANY, false,
				     tx->flags);
}

/* The Send of message @what: 0 or a negative errno (nvfab_auth_cmd_errno()). */
static int nvfab_auth_send(struct nvfab_auth_tx *tx, size_t len,
			   const char *what)
{
	return nvfab_auth_cmd_errno(tx, what, nvfab_auth_submit_send(tx, len));
}

/*
 * Authentication Receive (type 06h) of the message @what, up to
 * NVFAB_AUTH_RECV_MAX bytes: 0 or a negative errno (nvfab_auth_cmd_errno()).
 */
static int nvfab_auth_receive(struct nvfab_auth_tx *tx, const char *what)
{
	int ret;

	struct nvfab_ctrl *ctrl = tx->ctrl;
	struct nvme_command c = { };

	memset(tx->buf, 0, NVFAB_AUTH_RECV_MAX);
	c.auth_receive.opcode = nvme_fabrics_command;
	c.auth_receive.fctype = nvme_fabrics_type_auth_receive;
	c.auth_receive.secp = NVME_AUTH_DHCHAP_PROTOCOL_IDENTIFIER;
	c.auth_receive.spsp0 = 0x01;
	c.auth_receive.spsp1 = 0x01;
	c.auth_receive.al = cpu_to_le32(NVFAB_AUTH_RECV_MAX);
	ret = nvfab_submit_sync_cmd(tx->qid ? ctrl->connect_q : ctrl->admin_q,
				    &c, NULL, tx->buf, NVFAB_AUTH_RECV_MAX,
				    tx->qid ? tx->qid : NVME_QID_ANY, false,
				    tx->flags);
	return nvfab_auth_cmd_errno(tx, what, ret);
}

/*
 * The host's Failure2 for @reason, after a message it refused; the
 * transaction is over whatever the controller answers.
 */
static void nvfab_auth_fail2(struct nvfab_auth_tx *tx, u8 reason)
{
	nvfab_auth_build_failure2(tx->buf, tx->t_id, reason);
	nvfab_auth_submit_send(tx, sizeof(struct nvmf_auth_dhchap_failure_data));
}

/*
 * HMAC of the negotiated hash, keyed with @key (@key_len bytes), over the
 * pieces of a response: Ca || S || T_ID || SC_C || @label || @nqn_a ||
 * 00h || @nqn_b, into @out (HL bytes).
 */
static int nvfab_auth_response(struct nvfab_auth_tx *tx, const u8 *key,
			       size_t key_len, const u8 *ca, u32 seqnum,
			       const char *label, const char *nqn_a,
			       const char *nqn_b, u8 *out)
{
	SHASH_DESC_ON_STACK(desc, tx->hash_tfm);
	u8 num[4], zero = 0;
	int ret;

	ret = crypto_shash_setkey(tx->hash_tfm, key, key_len);
	if (ret)
		return ret;
	desc->tfm = tx->hash_tfm;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, ca, tx->ch.hl);
	put_unaligned_le32(seqnum, num);
	if (!ret)
		ret = crypto_shash_update(desc, num, 4);
	put_unaligned_le16(tx->t_id, num);
	if (!ret)
		ret = crypto_shash_update(desc, num, 2);
	if (!ret)	/* SC_C: no secure channel concatenation */
		ret = crypto_shash_update(desc, &zero, 1);
	if (!ret)
		ret = crypto_shash_update(desc, label, strlen(label));
	if (!ret)
		ret = crypto_shash_update(desc, nqn_a, strlen(nqn_a));
	if (!ret)
		ret = crypto_shash_update(desc, &zero, 1);
	if (!ret)
		ret = crypto_shash_update(desc, nqn_b, strlen(nqn_b));
	if (!ret)
		ret = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return ret;
}

/*
 * The augmented challenge of @c (HL bytes) into @ca: HMAC(H(g^xy), c) with
 * a DH group (the session key is H(g^xy)), @c itself with the null group.
 */
static int nvfab_auth_augment(struct nvfab_auth_tx *tx, const u8 *c, u8 *ca)
{
	int ret;

	if (!tx->dh_tfm) {
		memcpy(ca, c, tx->ch.hl);
		return 0;
	}
	ret = crypto_shash_setkey(tx->hash_tfm, tx->sess_key, tx->sess_len);
	if (ret)
		return ret;
	return crypto_shash_tfm_digest(tx->hash_tfm, c, tx->ch.hl, ca);
}

/* The digest H of a DH-HMAC-CHAP hash identifier, for the session key. */
static const char *nvfab_auth_digest(u8 hash_id)
{
	switch (hash_id) {
	case NVME_AUTH_HASH_SHA256:
		return "sha256";
	case NVME_AUTH_HASH_SHA384:
		return "sha384";
	case NVME_AUTH_HASH_SHA512:
		return "sha512";
	}
	return NULL;
}

/*
 * The shared secret g^xy of the host's private key and the controller's
 * DH value into @z (@len bytes, the group's size, big endian), with the
 * crypto API's kpp. Returns 0 or a negative errno.
 */
static int nvfab_auth_shared_secret(struct nvfab_auth_tx *tx, u8 *z,
				    size_t len)
{
	struct scatterlist src, dst;
	struct kpp_request *req;
	DECLARE_CRYPTO_WAIT(wait);
	int ret;

	req = kpp_request_alloc(tx->dh_tfm, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	/* the value points into tx->buf, kmalloc()ed: fine for a list */
	sg_init_one(&src, tx->ch.dh_value, tx->ch.dh_len);
	sg_init_one(&dst, z, len);
	kpp_request_set_input(req, &src, tx->ch.dh_len);
	kpp_request_set_output(req, &dst, len);
	kpp_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG,
				 crypto_req_done, &wait);
	ret = crypto_wait_req(crypto_kpp_compute_shared_secret(req), &wait);
	kpp_request_free(req);
	return ret;
}

/*
 * The DH exchange of the Challenge's group: the host's key pair, its
 * public value (@tx->host_pub) and the session key H(g^xy) from the
 * controller's value (checked in [2, p - 2] by
 * nvfab_auth_check_challenge()). Nothing to do for the null group.
 * Returns 0, a negative errno, or NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD
 * for a controller's value that the group refuses.
 */
static int nvfab_auth_dh(struct nvfab_auth_tx *tx)
{
	const char *digest = nvfab_auth_digest(tx->ch.hash_id);
	struct crypto_shash *htfm;
	u8 *z;
	int ret;

	if (tx->ch.dh_id == NVME_AUTH_DHGROUP_NULL)
		return 0;
	if (!digest)
		return -EINVAL;
	/*
	 * The ffdhe templates are registered by the dh module, whose only
	 * alias is "dh": where it is a module (CONFIG_CRYPTO_DH=m),
	 * "ffdheN(dh)" is found only once it is loaded, so ask for "dh"
	 * first, which loads it (seen in the test kernel: -ENOENT when
	 * nothing else had loaded it).
	 */
	crypto_has_kpp("dh", 0, 0);
	tx->dh_tfm = crypto_alloc_kpp(nvme_auth_dhgroup_kpp(tx->ch.dh_id), 0, 0);
	if (IS_ERR(tx->dh_tfm)) {
		ret = PTR_ERR(tx->dh_tfm);
		tx->dh_tfm = NULL;
		return ret;
	}
	tx->dh_len = tx->ch.dh_len;
	tx->host_pub = kzalloc(tx->dh_len, GFP_KERNEL);
	if (!tx->host_pub)
		return -ENOMEM;
	ret = nvme_auth_gen_privkey(tx->dh_tfm, tx->ch.dh_id);
	if (ret)
		return ret;
	ret = nvme_auth_gen_pubkey(tx->dh_tfm, tx->host_pub, tx->dh_len);
	if (ret)
		return ret;
	if (crypto_kpp_maxsize(tx->dh_tfm) != tx->dh_len)
		return -EINVAL;
	z = kzalloc(tx->dh_len, GFP_KERNEL);
	if (!z)
		return -ENOMEM;
	ret = nvfab_auth_shared_secret(tx, z, tx->dh_len);
	if (ret) {
		/* the group refused the value itself */
		ret = ret == -ENOMEM ? ret :
		      NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD;
		goto out;
	}
	tx->sess_len = tx->ch.hl;
	tx->sess_key = kzalloc(tx->sess_len, GFP_KERNEL);
	if (!tx->sess_key) {
		ret = -ENOMEM;
		goto out;
	}
	htfm = crypto_alloc_shash(digest, 0, 0);
	if (IS_ERR(htfm)) {
		ret = PTR_ERR(htfm);
		goto out;
	}
	ret = crypto_shash_tfm_digest(htfm, z, tx->dh_len, tx->sess_key);
	crypto_free_shash(htfm);
out:
	kfree_sensitive(z);
	return ret;
}

static void nvfab_auth_tx_free(struct nvfab_auth_tx *tx)
{
	if (tx->dh_tfm)
		crypto_free_kpp(tx->dh_tfm);
	if (tx->hash_tfm)
		crypto_free_shash(tx->hash_tfm);
	kfree_sensitive(tx->sess_key);
	kfree_sensitive(tx->c1);
	kfree_sensitive(tx->c2);
	kfree(tx->host_pub);
	kfree_sensitive(tx->buf);
}

/*
 * Steps 2 and 3: check the Challenge in @tx->buf (@len bytes), then build
 * and send the Reply. Returns 0, a negative errno, or a reason code
 * explanation (> 0) for the host's Failure2.
 */
static int nvfab_auth_reply(struct nvfab_auth_tx *tx, size_t len,
			    const struct nvme_dhchap_key *kh, bool bidir)
{
	struct nvfab_ctrl *ctrl = tx->ctrl;
	const char *why = NULL;
	u8 failure = 0, *ca = NULL, *r1 = NULL;
	int ret;

	ret = nvfab_auth_check_challenge(tx->buf, len, tx->t_id,
					 &nvfab_auth_default_offer, &tx->ch,
					 &failure, &why);
	if (ret == -EKEYREJECTED) {
		dev_err(ctrl->device, "queue %d: authentication: the controller refused the host (Failure1, reason 0x%x)\n",
			tx->qid, failure);
		return ret;
	}
	if (ret) {
		dev_err(ctrl->device, "queue %d: authentication: Challenge refused: %s\n",
			tx->qid, why);
		return ret;
	}
	tx->s1 = tx->ch.seqnum;
	tx->c1 = kmemdup(tx->ch.c1, tx->ch.hl, GFP_KERNEL);
	if (!tx->c1)
		return -ENOMEM;
	tx->hash_tfm = crypto_alloc_shash(nvme_auth_hmac_name(tx->ch.hash_id),
					  0, 0);
	if (IS_ERR(tx->hash_tfm)) {
		ret = PTR_ERR(tx->hash_tfm);
		tx->hash_tfm = NULL;
		return ret;
	}
	/* the DH value still points into buf, which the Reply reuses */
	ret = nvfab_auth_dh(tx);
	if (ret > 0) {
		dev_err(ctrl->device, "queue %d: authentication: DH group %s: the controller's DH value is refused\n",
			tx->qid, nvme_auth_dhgroup_name(tx->ch.dh_id));
		return ret;
	}
	if (ret) {
		dev_err(ctrl->device, "queue %d: authentication: DH group %s: error %d\n",
			tx->qid, nvme_auth_dhgroup_name(tx->ch.dh_id), ret);
		return ret;
	}
	ca = kmalloc(tx->ch.hl, GFP_KERNEL);
	r1 = kmalloc(tx->ch.hl, GFP_KERNEL);
	if (!ca || !r1) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nvfab_auth_augment(tx, tx->c1, ca);
	if (!ret)
		ret = nvfab_auth_response(tx, kh->key, kh->len, ca, tx->s1,
					  "HostHost", ctrl->opts->host->nqn,
					  ctrl->opts->subsysnqn, r1);
	if (ret)
		goto out;
	if (bidir) {
		tx->c2 = kmalloc(tx->ch.hl, GFP_KERNEL);
		if (!tx->c2) {
			ret = -ENOMEM;
			goto out;
		}
		get_random_bytes(tx->c2, tx->ch.hl);
		tx->s2 = nvme_auth_get_seqnum();
	}
	nvfab_auth_build_reply(tx->buf, tx->t_id, tx->ch.hl, r1, tx->c2,
			       tx->s2, tx->host_pub, tx->dh_len);
	ret = nvfab_auth_send(tx, nvfab_auth_reply_len(tx->ch.hl, tx->dh_len),
			      "Reply");
out:
	kfree_sensitive(ca);
	kfree_sensitive(r1);
	return ret;
}

/*
 * Steps 4 and 5: check the Success1 in @tx->buf (@len bytes) and, with a
 * controller key, the controller's response in it; then Success2.
 */
static int nvfab_auth_success(struct nvfab_auth_tx *tx, size_t len,
			      const struct nvme_dhchap_key *kc)
{
	struct nvfab_ctrl *ctrl = tx->ctrl;
	const char *why = NULL;
	const u8 *r2;
	u8 failure = 0, *ca = NULL, *want = NULL;
	int ret;

	ret = nvfab_auth_check_success1(tx->buf, len, tx->t_id, tx->ch.hl,
					!!kc, &r2, &failure, &why);
	if (ret == -EKEYREJECTED) {
		dev_err(ctrl->device, "queue %d: authentication: the controller refused the host's response (Failure1, reason 0x%x)\n",
			tx->qid, failure);
		return ret;
	}
	if (ret) {
		dev_err(ctrl->device, "queue %d: authentication: Success1 refused: %s\n",
			tx->qid, why);
		return ret;
	}
	if (!kc)
		return 0;
	ca = kmalloc(tx->ch.hl, GFP_KERNEL);
	want = kmalloc(tx->ch.hl, GFP_KERNEL);
	if (!ca || !want) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nvfab_auth_augment(tx, tx->c2, ca);
	if (!ret)
		ret = nvfab_auth_response(tx, kc->key, kc->len, ca, tx->s2,
					  "Controller", ctrl->opts->subsysnqn,
					  ctrl->opts->host->nqn, want);
	if (ret)
		goto out;
	if (crypto_memneq(want, r2, tx->ch.hl)) {
		dev_err(ctrl->device, "queue %d: authentication: the controller's response is wrong: it does not hold dhchap_ctrl_secret's key\n",
			tx->qid);
		ret = NVME_AUTH_DHCHAP_FAILURE_FAILED;
		goto out;
	}
	nvfab_auth_build_success2(tx->buf, tx->t_id);
	ret = nvfab_auth_send(tx, sizeof(struct nvmf_auth_dhchap_success2_data),
			      "Success2");
out:
	kfree_sensitive(ca);
	kfree_sensitive(want);
	return ret;
}

/**
 * nvfab_auth_queue() - authenticate one queue (DH-HMAC-CHAP)
 * @ctrl: the controller, with a host key (nvfab_auth_init_ctrl())
 * @qid: the queue: connected with AUTHREQ ATR (nvfab_connect_queue()), or
 *	connected and being re-authenticated
 *
 * One transaction, synchronous: each message waits for its command. The
 * host offers SHA-512, SHA-384 and SHA-256 and every DH group (null and
 * ffdhe2048 to ffdhe8192) and takes the controller's choice among them;
 * with a controller key (dhchap_ctrl_secret) it checks the controller's
 * response too. NVMe Base 2.0, 8.13.5.
 *
 * Context: may sleep; takes @ctrl->auth_lock (keys against a change).
 * Return: 0 when the queue is authenticated; -ENOKEY without a host key;
 * -EKEYREJECTED when the controller refused the host (Failure1, or an
 * Authentication Send or Receive failed with an NVMe status that is not
 * path-related) or the host
 * refused the controller's response or a message (after its Failure2);
 * -ECONNRESET when the queue was torn down during the transaction (the
 * controller closed the connection, or error recovery started); -ENOMEM;
 * an errno of the crypto API; or the errno of a command that did not
 * complete.
 */
int nvfab_auth_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_auth_tx tx = { .ctrl = ctrl, .qid = qid };
	struct nvme_dhchap_key *kh = NULL, *kc = NULL;
	int ret;

	/*
	 * An I/O queue's command is allocated on its hctx, which blk-mq
	 * allows only without waiting; its reserved tag is free once it is
	 * connected (only Connect and this transaction use it).
	 */
	tx.flags = BLK_MQ_REQ_RESERVED;
	if (qid || nvfab_queue_state(ctrl, qid) == NVFAB_QUEUE_AUTHENTICATING)
		tx.flags |= BLK_MQ_REQ_NOWAIT;
	mutex_lock(&ctrl->auth_lock);
	if (!ctrl->host_key) {
		ret = -ENOKEY;
		goto out_unlock;
	}
	kh = nvme_auth_transform_key(ctrl->host_key, ctrl->opts->host->nqn);
	if (IS_ERR(kh)) {
		ret = PTR_ERR(kh);
		kh = NULL;
		goto out_unlock;
	}
	if (ctrl->ctrl_key) {
		kc = nvme_auth_transform_key(ctrl->ctrl_key,
					     ctrl->opts->subsysnqn);
		if (IS_ERR(kc)) {
			ret = PTR_ERR(kc);
			kc = NULL;
			goto out_unlock;
		}
	}
	tx.t_id = nvme_auth_get_seqnum() & 0xffff;
	tx.buf = kzalloc(NVFAB_AUTH_RECV_MAX, GFP_KERNEL);
	if (!tx.buf) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = nvfab_auth_build_negotiate(tx.buf, tx.t_id,
					 &nvfab_auth_default_offer);
	if (!ret)
		ret = nvfab_auth_send(&tx, nvfab_auth_negotiate_len(),
				      "Negotiate");
	if (!ret)
		ret = nvfab_auth_receive(&tx, "Challenge");
	if (ret)
		goto out_unlock;
	/*
	 * The Receive's data is AL bytes, zeroed first: the message's own
	 * lengths (HL, DHVLEN) are checked against AL.
	 */
	ret = nvfab_auth_reply(&tx, NVFAB_AUTH_RECV_MAX, kh, !!kc);
	if (ret > 0)
		goto out_fail2;
	if (ret)
		goto out_unlock;
	ret = nvfab_auth_receive(&tx, "Success1");
	if (ret)
		goto out_unlock;
	ret = nvfab_auth_success(&tx, NVFAB_AUTH_RECV_MAX, kc);
	if (ret > 0)
		goto out_fail2;
	if (!ret)
		dev_dbg(ctrl->device, "queue %d: authenticated (%s, %s%s)\n",
			qid, nvme_auth_hmac_name(tx.ch.hash_id),
			nvme_auth_dhgroup_name(tx.ch.dh_id),
			kc ? ", bidirectional" : "");
	goto out_unlock;

out_fail2:
	nvfab_auth_fail2(&tx, ret);
	ret = -EKEYREJECTED;
out_unlock:
	nvfab_auth_tx_free(&tx);
	nvme_auth_free_key(kh);
	nvme_auth_free_key(kc);
	mutex_unlock(&ctrl->auth_lock);
	return ret;
}

/* A DHHC-1 secret as nvme-cli writes it: the key, or an errno. */
static struct nvme_dhchap_key *nvfab_auth_parse(const char *secret)
{
	struct nvme_dhchap_key *key = NULL;
	int ret;

	ret = nvme_auth_parse_key(secret, &key);
	return ret ? ERR_PTR(ret) : key;
}

/**
 * nvfab_auth_set_keys() - parse and install the controller's DH-HMAC-CHAP
 *	keys
 * @ctrl: the controller
 * @host_secret: dhchap_secret, a DHHC-1 secret, or NULL for none
 * @ctrl_secret: dhchap_ctrl_secret, or NULL: the controller is then not
 *	authenticated by the host
 *
 * Both are parsed before either is installed: a bad one changes nothing.
 * A controller key needs a host key (the controller is authenticated in
 * the host's transaction). The queues authenticate with the new keys from
 * their next transaction on.
 *
 * Context: may sleep; takes @ctrl->auth_lock.
 * Return: 0; -EINVAL for a secret that is not DHHC-1 (the secret is never
 * logged) or a controller key without a host key; -EKEYREJECTED for a
 * secret whose CRC is wrong; -ENOMEM.
 */
int nvfab_auth_set_keys(struct nvfab_ctrl *ctrl, const char *host_secret,
			const char *ctrl_secret)
{
	struct nvme_dhchap_key *kh = NULL, *kc = NULL;

	if (ctrl_secret && !host_secret)
		return -EINVAL;
	if (host_secret) {
		kh = nvfab_auth_parse(host_secret);
		if (IS_ERR(kh))
			return PTR_ERR(kh);
	}
	if (ctrl_secret) {
		kc = nvfab_auth_parse(ctrl_secret);
		if (IS_ERR(kc)) {
			nvme_auth_free_key(kh);
			return PTR_ERR(kc);
		}
	}
	mutex_lock(&ctrl->auth_lock);
	swap(ctrl->host_key, kh);
	swap(ctrl->ctrl_key, kc);
	mutex_unlock(&ctrl->auth_lock);
	nvme_auth_free_key(kh);
	nvme_auth_free_key(kc);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_set_keys);

/**
 * nvfab_auth_free_keys() - drop the controller's keys
 * @ctrl: the controller, released
 *
 * Context: may sleep.
 */
void nvfab_auth_free_keys(struct nvfab_ctrl *ctrl)
{
	nvme_auth_free_key(ctrl->host_key);
	nvme_auth_free_key(ctrl->ctrl_key);
	ctrl->host_key = NULL;
	ctrl->ctrl_key = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_free_keys);

/**
 * nvfab_auth_show_secret() - the dhchap_secret or dhchap_ctrl_secret
 *	sysfs file of a controller
 * @ctrl: the controller
 * @ctrl_key: the controller's secret instead of the host's
 * @buf: the sysfs page
 *
 * As the in-kernel host's: the DHHC-1 secret, or "none". The file is
 * readable by root only.
 *
 * Context: may sleep; takes @ctrl->auth_lock.
 * Return: the number of bytes written to @buf.
 */
ssize_t nvfab_auth_show_secret(struct nvfab_ctrl *ctrl, bool ctrl_key,
			       char *buf)
{
	const char *secret;
	ssize_t ret;

	mutex_lock(&ctrl->auth_lock);
	secret = ctrl_key ? ctrl->opts->dhchap_ctrl_secret :
			    ctrl->opts->dhchap_secret;
	ret = sysfs_emit(buf, "%s\n", secret ? secret : "none");
	mutex_unlock(&ctrl->auth_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_show_secret);

/* Re-authenticate every connected queue, the admin queue first. */
static int nvfab_auth_reauth(struct nvfab_ctrl *ctrl)
{
	int qid, ret, err = 0;

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE)
		return 0;	/* the reconnect authenticates with the new key */
	for (qid = 0; qid < ctrl->queue_count; qid++) {
		if (nvfab_queue_state(ctrl, qid) != NVFAB_QUEUE_CONNECTED)
			continue;
		ret = nvfab_auth_queue(ctrl, qid);
		if (!ret)
			continue;
		dev_warn(ctrl->device, "queue %d: re-authentication failed: %d\n",
			 qid, ret);
		if (!err)
			err = ret;
		if (!qid)
			break;
	}
	return err;
}

/**
 * nvfab_auth_change_secret() - a new secret written to dhchap_secret or
 *	dhchap_ctrl_secret, and the re-authentication it starts
 * @ctrl: the controller
 * @ctrl_key: the controller's secret instead of the host's
 * @buf: what was written: a DHHC-1 secret, a newline allowed after it
 *
 * As the in-kernel host: only a controller connected with a host secret
 * takes a new one, and every write re-authenticates the controller's
 * connected queues (the admin queue first), the same secret too. Unlike
 * it, the write waits for the transactions and fails with their error;
 * a failed re-authentication keeps the connection (the controller ends
 * it if it wants) and the new key, which the next connect uses. NVMe
 * Base 2.0, 8.13.5 (a host may re-authenticate a queue at any time).
 *
 * Context: may sleep (the transactions); takes @ctrl->auth_lock.
 * Return: 0; -EINVAL for a controller without a host secret or a value
 * that is not a DHHC-1 secret; -EKEYREJECTED for a secret whose CRC is
 * wrong, or a re-authentication refused; -ENOMEM; the errno of a
 * transaction that did not complete.
 */
int nvfab_auth_change_secret(struct nvfab_ctrl *ctrl, bool ctrl_key,
			     const char *buf)
{
	struct nvme_dhchap_key *key;
	char *secret, **slot;

	if (!ctrl->opts->dhchap_secret || !str_has_prefix(buf, "DHHC-1:"))
		return -EINVAL;
	secret = kstrdup(buf, GFP_KERNEL);
	if (!secret)
		return -ENOMEM;
	strim(secret);
	key = nvfab_auth_parse(secret);
	if (IS_ERR(key)) {
		kfree_sensitive(secret);
		return PTR_ERR(key);
	}
	mutex_lock(&ctrl->auth_lock);
	slot = ctrl_key ? &ctrl->opts->dhchap_ctrl_secret :
			  &ctrl->opts->dhchap_secret;
	swap(*slot, secret);
	if (ctrl_key)
		swap(ctrl->ctrl_key, key);
	else
		swap(ctrl->host_key, key);
	mutex_unlock(&ctrl->auth_lock);
	kfree_sensitive(secret);
	nvme_auth_free_key(key);

	dev_info(ctrl->device, "re-authenticating controller\n");
	return nvfab_auth_reauth(ctrl);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_auth_change_secret);
