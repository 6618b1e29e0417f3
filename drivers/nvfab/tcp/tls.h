/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-tcp's secure channel (tls.c): the PSK a queue offers and the TLS 1.3
 * handshake that tlshd does on its socket.
 */
#ifndef _NVFAB_TCP_TLS_H
#define _NVFAB_TCP_TLS_H

#include <linux/key.h>

struct nvfab_ctrl;
struct socket;

int nvfab_tcp_tls_psk(struct nvfab_ctrl *ctrl, int qid, key_serial_t *pskid);
int nvfab_tcp_tls_handshake(struct nvfab_ctrl *ctrl, struct socket *sock,
			    int qid, key_serial_t pskid);

#endif /* _NVFAB_TCP_TLS_H */
