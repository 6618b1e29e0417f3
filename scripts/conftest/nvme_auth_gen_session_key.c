// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NVME_AUTH_GEN_SESSION_KEY: nvme-auth gives the DH-HMAC-CHAP session
 * key H(g^xy), hashed with the negotiated hash, with
 * nvme_auth_gen_session_key() (Debian's 7.3). 6.12 gives the raw shared
 * secret g^xy with nvme_auth_gen_shared_secret() and hashes it inside
 * nvme_auth_augmented_challenge() instead.
 */
#include <linux/nvme-auth.h>

int nvfab_conftest(struct crypto_kpp *tfm, const u8 *pub, size_t len,
		   u8 *key, size_t key_len, u8 hash_id);
int nvfab_conftest(struct crypto_kpp *tfm, const u8 *pub, size_t len,
		   u8 *key, size_t key_len, u8 hash_id)
{
	return nvme_auth_gen_session_key(tfm, pub, len, key, key_len, hash_id);
}
