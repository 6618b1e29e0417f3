/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DH-HMAC-CHAP in-band authentication of nvfab-core: the messages
 * (auth-msg.c) and the transaction of a queue (auth.c, with nvme-auth).
 */
#ifndef _NVFAB_CORE_AUTH_H
#define _NVFAB_CORE_AUTH_H

#include <linux/errno.h>
#include <linux/nvme.h>
#include <linux/sysfs.h>
#include <linux/types.h>

/**
 * struct nvfab_auth_offer - what the host offers in AUTH_Negotiate
 * @hash_ids:	DH-HMAC-CHAP hash identifiers (NVME_AUTH_HASH_*), preferred
 *		first
 * @nr_hash:	entries of @hash_ids, 1 to NVME_AUTH_DHCHAP_MAX_HASH_IDS
 * @dh_ids:	DH group identifiers (NVME_AUTH_DHGROUP_*), preferred first
 * @nr_dh:	entries of @dh_ids, 0 to NVME_AUTH_DHCHAP_MAX_DH_IDS
 */
struct nvfab_auth_offer {
	u8	hash_ids[NVME_AUTH_DHCHAP_MAX_HASH_IDS];
	int	nr_hash;
	u8	dh_ids[NVME_AUTH_DHCHAP_MAX_DH_IDS];
	int	nr_dh;
};

/**
 * struct nvfab_auth_challenge - a checked DH-HMAC-CHAP_Challenge
 * @hash_id:	the hash function the controller chose
 * @dh_id:	the DH group it chose
 * @hl:		the hash's length in bytes
 * @seqnum:	S1
 * @c1:		the challenge, @hl bytes (in the received buffer)
 * @dh_value:	the controller's DH value, or NULL with the null group
 * @dh_len:	its bytes (the group's size)
 */
struct nvfab_auth_challenge {
	u8		hash_id;
	u8		dh_id;
	u8		hl;
	u32		seqnum;
	const u8	*c1;
	const u8	*dh_value;
	u16		dh_len;
};

size_t nvfab_auth_negotiate_len(void);
int nvfab_auth_build_negotiate(void *buf, u16 t_id,
			       const struct nvfab_auth_offer *offer);
int nvfab_auth_check_challenge(const void *buf, size_t len, u16 t_id,
			       const struct nvfab_auth_offer *offer,
			       struct nvfab_auth_challenge *ch, u8 *failure,
			       const char **why);
size_t nvfab_auth_reply_len(unsigned int hl, unsigned int dh_len);
void nvfab_auth_build_reply(void *buf, u16 t_id, unsigned int hl,
			    const u8 *r1, const u8 *c2, u32 s2, const u8 *dh,
			    unsigned int dh_len);
int nvfab_auth_check_success1(const void *buf, size_t len, u16 t_id,
			      unsigned int hl, bool bidirectional,
			      const u8 **r2, u8 *failure, const char **why);
void nvfab_auth_build_success2(void *buf, u16 t_id);
void nvfab_auth_build_failure2(void *buf, u16 t_id, u8 reason);

struct nvfab_ctrl;

#if IS_ENABLED(CONFIG_NVME_AUTH)
int nvfab_auth_queue(struct nvfab_ctrl *ctrl, int qid);
int nvfab_auth_set_keys(struct nvfab_ctrl *ctrl, const char *host_secret,
			const char *ctrl_secret);
void nvfab_auth_free_keys(struct nvfab_ctrl *ctrl);
ssize_t nvfab_auth_show_secret(struct nvfab_ctrl *ctrl, bool ctrl_key,
			       char *buf);
int nvfab_auth_change_secret(struct nvfab_ctrl *ctrl, bool ctrl_key,
			     const char *buf);
#else
/* Without nvme-auth no secret is accepted (nvfab-fabrics refuses them). */
static inline int nvfab_auth_queue(struct nvfab_ctrl *ctrl, int qid)
{
	return -ENOKEY;
}

static inline int nvfab_auth_set_keys(struct nvfab_ctrl *ctrl,
				      const char *host_secret,
				      const char *ctrl_secret)
{
	return host_secret || ctrl_secret ? -EOPNOTSUPP : 0;
}

static inline void nvfab_auth_free_keys(struct nvfab_ctrl *ctrl)
{
}

static inline ssize_t nvfab_auth_show_secret(struct nvfab_ctrl *ctrl,
					     bool ctrl_key, char *buf)
{
	return sysfs_emit(buf, "none\n");
}

static inline int nvfab_auth_change_secret(struct nvfab_ctrl *ctrl,
					   bool ctrl_key, const char *buf)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* _NVFAB_CORE_AUTH_H */
