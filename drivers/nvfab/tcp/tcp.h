/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-tcp internals visible to its KUnit suite.
 */
#ifndef _NVFAB_TCP_H
#define _NVFAB_TCP_H

#include <linux/nvme-tcp.h>

/*
 * HPDA the host asks for in its ICReq (NVMe/TCP 1.0, 3.6.2.2): 0, data of
 * the controller's PDUs aligned to 4 bytes, i.e. right behind the header
 * (and its digest), unpadded.
 */
#define NVFAB_TCP_HPDA	0

/**
 * struct nvfab_tcp_xfer - what the receive path knows of a command's data
 * @read:	the command reads data (C2H)
 * @busy:	the command is still being sent
 * @data_len:	bytes the command transfers
 * @done:	bytes received (read) or sent (write) so far
 * @inline_len:	bytes sent in the command capsule
 * @r2t_left:	bytes of the R2T in progress
 */
struct nvfab_tcp_xfer {
	bool	read;
	bool	busy;
	u32	data_len;
	u32	done;
	u32	inline_len;
	u32	r2t_left;
};

#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_tcp_check_hdr(const struct nvme_tcp_hdr *hdr, bool hdr_digest,
			bool data_digest, const char **why);
int nvfab_tcp_check_c2h(const struct nvme_tcp_data_pdu *pdu,
			const struct nvfab_tcp_xfer *x, bool hdr_digest,
			bool data_digest, u8 hpda, const char **why);
int nvfab_tcp_check_r2t(const struct nvme_tcp_r2t_pdu *pdu,
			const struct nvfab_tcp_xfer *x, const char **why);
int nvfab_tcp_check_icresp(const struct nvme_tcp_icresp_pdu *r,
			   bool hdr_digest, bool data_digest, const char **why);
#endif

#endif /* _NVFAB_TCP_H */
