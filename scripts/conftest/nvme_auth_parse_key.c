// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NVME_AUTH_PARSE_KEY: nvme-auth parses a DHHC-1 secret with
 * nvme_auth_parse_key(const char *, struct nvme_dhchap_key **). 6.12 has
 * nvme_auth_generate_key(u8 *, ...) instead (same result); Debian's 7.3
 * has the new name.
 */
#include <linux/nvme-auth.h>

int nvfab_conftest(const char *secret, struct nvme_dhchap_key **key);
int nvfab_conftest(const char *secret, struct nvme_dhchap_key **key)
{
	return nvme_auth_parse_key(secret, key);
}
