/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-tcp internals visible to its KUnit suite.
 */
#ifndef _NVFAB_TCP_H
#define _NVFAB_TCP_H

#include <linux/nvme-tcp.h>

#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_tcp_check_hdr(const struct nvme_tcp_hdr *hdr, bool hdr_digest,
			bool data_digest, const char **why);
#endif

#endif /* _NVFAB_TCP_H */
