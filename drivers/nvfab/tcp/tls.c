// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-tcp's secure channel: NVMe/TCP over TLS 1.3 with a pre-shared key
 * (NVMe/TCP Transport Specification 1.0, 3.6.1.3 "Transport Layer
 * Security"; TP 8011).
 *
 * The handshake itself is user space's: the kernel's handshake upcall
 * (net/handshake) hands the connected socket to tlshd (ktls-utils), which
 * does the TLS 1.3 handshake with the PSK named here, found in the keyring
 * named here, configures kTLS on the socket and reports back. nvfab
 * chooses the PSK, waits a bounded time (the tls_handshake_timeout module
 * parameter, the in-kernel host's name and default) and checks the answer;
 * the queue then sends ICReq through kTLS, and all its PDUs travel in TLS
 * records from then on.
 *
 * Which PSK: the one of tls_key= when given; otherwise the one nvme-keyring
 * finds for (hostnqn, subsysnqn) in the keyring of keyring= (the .nvme
 * keyring by default), by the in-kernel host's identity rules (retained
 * before generated, SHA-384 before SHA-256). The admin queue chooses; the
 * I/O queues offer what its handshake negotiated (nvfab_ctrl.tls_pskid),
 * as the in-kernel host does.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/nvme-keyring.h>
#include <net/handshake.h>

#include <nvfab/compat.h>
#include <nvfab/core.h>
#include <nvfab/fabrics.h>
#include "tls.h"

static unsigned int nvfab_tcp_tls_timeout = 10;

static int nvfab_tcp_tls_timeout_set(const char *val,
				     const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 600);
}

static const struct kernel_param_ops nvfab_tcp_tls_timeout_ops = {
	.set = nvfab_tcp_tls_timeout_set,
	.get = param_get_uint,
};
module_param_cb(tls_handshake_timeout, &nvfab_tcp_tls_timeout_ops,
		&nvfab_tcp_tls_timeout, 0644);
MODULE_PARM_DESC(tls_handshake_timeout,
		 "seconds a queue waits for tlshd's TLS handshake (1-600, default 10)");

/**
 * nvfab_tcp_tls_psk() - the PSK a queue offers in its TLS handshake
 * @ctrl: the controller, connected with the tls option
 * @qid: the queue, 0 for the admin queue
 * @pskid: set to the serial of the PSK
 *
 * The admin queue offers the configured key (tls_key=) or the one
 * nvme-keyring finds for the host and subsystem NQNs in the keyring
 * (keyring= or .nvme): nvfab_tls_find_psk(); an I/O queue offers the one
 * the admin queue negotiated.
 *
 * Context: process; may sleep (keyring search).
 * Return: 0, or -ENOKEY when there is no such key (message logged).
 */
int nvfab_tcp_tls_psk(struct nvfab_ctrl *ctrl, int qid, key_serial_t *pskid)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;

	if (qid) {
		*pskid = READ_ONCE(ctrl->tls_pskid);
		if (!*pskid) {
			dev_err(ctrl->device, "queue %d: the admin queue negotiated no TLS PSK\n",
				qid);
			return -ENOKEY;
		}
		return 0;
	}
	*pskid = nvfab_tls_find_psk(opts);
	if (!*pskid) {
		dev_err(ctrl->device, "no TLS PSK for host %s and subsystem %s in keyring %s (see nvme gen-tls-key)\n",
			opts->host->nqn, opts->subsysnqn,
			nvfab_tls_keyring_name(opts));
		return -ENOKEY;
	}
	return 0;
}

/* What tlshd reported, to the waiter on whose stack it lives. */
struct nvfab_tcp_tls_wait {
	struct completion	done;
	int			status;	/* 0 or a negative errno */
	key_serial_t		peerid;	/* the PSK the session uses */
};

/* ->ta_done: called once per submitted handshake, in tlshd's context. */
static void nvfab_tcp_tls_done(void *data, int status, key_serial_t peerid)
{
	struct nvfab_tcp_tls_wait *w = data;

	w->status = status;
	w->peerid = peerid;
	complete(&w->done);
}

/* The PSK tlshd reports is the one offered and still a valid key. */
static int nvfab_tcp_tls_check_peer(struct nvfab_ctrl *ctrl, int qid,
				    key_serial_t pskid, key_serial_t peerid)
{
	struct key *key;

	if (peerid != pskid) {
		dev_err(ctrl->device, "queue %d: TLS session uses PSK %08x, not the %08x offered\n",
			qid, peerid, pskid);
		return -ENOKEY;
	}
	key = nvme_tls_key_lookup(peerid);
	if (IS_ERR(key)) {
		dev_err(ctrl->device, "queue %d: TLS PSK %08x: %pe\n", qid,
			peerid, key);
		return -ENOKEY;
	}
	key_put(key);
	return 0;
}

/**
 * nvfab_tcp_tls_handshake() - secure a queue's connection with TLS 1.3
 * @ctrl: the controller, connected with the tls option
 * @sock: the queue's connected socket, with a file (sock_alloc_file()),
 *	before ICReq
 * @qid: the queue, for messages
 * @pskid: the PSK to offer (nvfab_tcp_tls_psk())
 *
 * Asks tlshd, through the handshake upcall, for a TLS 1.3 client handshake
 * with @pskid from the controller's keyring, and waits for its answer at
 * most tls_handshake_timeout seconds. On success kTLS is set up on @sock
 * (both directions) and the caller's first PDU is ICReq. A handshake that
 * times out or is interrupted is cancelled; when the cancel loses the
 * race with tlshd's answer, that answer is waited for (it comes: the
 * upcall promises one per request) and used.
 *
 * Context: process; sleeps up to tls_handshake_timeout seconds.
 * Return: 0; -ESRCH when no tlshd listens; -ETIMEDOUT when tlshd did not
 * answer in time; -EINTR when a signal interrupted the wait; -ENOKEY when
 * the session's PSK is not the one offered or is gone; tlshd's status
 * (a negative errno: -EACCES for a handshake the peer refused, e.g. a
 * wrong PSK; -ETIMEDOUT for its own timeout; -EIO) when it failed; another
 * negative errno of tls_client_hello_psk() (-ENOMEM, -EAGAIN when too many
 * handshakes are pending, -EOPNOTSUPP).
 */
int nvfab_tcp_tls_handshake(struct nvfab_ctrl *ctrl, struct socket *sock,
			    int qid, key_serial_t pskid)
{
	unsigned int tmo = READ_ONCE(nvfab_tcp_tls_timeout);
	struct nvfab_ctrl_options *opts = ctrl->opts;
	struct tls_handshake_args args = { };
	struct nvfab_tcp_tls_wait w;
	long left;
	int ret;

	init_completion(&w.done);
	w.status = -EIO;
	w.peerid = TLS_NO_PEERID;
	args.ta_sock = sock;
	args.ta_done = nvfab_tcp_tls_done;
	args.ta_data = &w;
	args.ta_timeout_ms = tmo * MSEC_PER_SEC;
	args.ta_keyring = opts->keyring ? key_serial(opts->keyring) :
					  nvme_keyring_id();
	args.ta_my_peerids[0] = pskid;
	args.ta_num_peerids = 1;

	ret = tls_client_hello_psk(&args, GFP_KERNEL);
	if (ret == -ESRCH) {
		dev_err(ctrl->device, "queue %d: no TLS handshake agent: is tlshd running?\n",
			qid);
		return ret;
	} else if (ret) {
		dev_err(ctrl->device, "queue %d: TLS handshake not started: %d\n",
			qid, ret);
		return ret;
	}

	left = wait_for_completion_interruptible_timeout(&w.done, tmo * HZ);
	if (left <= 0) {
		if (tls_handshake_cancel(sock->sk)) {
			ret = left ? -EINTR : -ETIMEDOUT;
			if (left)
				dev_err(ctrl->device, "queue %d: TLS handshake interrupted\n",
					qid);
			else
				dev_err(ctrl->device, "queue %d: TLS handshake: no answer from tlshd within %u s\n",
					qid, tmo);
			return ret;
		}
		/* tlshd's answer won the race: it is on its way to @w */
		wait_for_completion(&w.done);
	}
	if (w.status) {
		dev_err(ctrl->device, "queue %d: TLS handshake with PSK %08x failed: %d (tlshd logs why)\n",
			qid, pskid, w.status);
		return w.status;
	}
	ret = nvfab_tcp_tls_check_peer(ctrl, qid, pskid, w.peerid);
	if (ret)
		return ret;
	dev_dbg(ctrl->device, "queue %d: TLS 1.3 with PSK %08x\n", qid, pskid);
	return 0;
}
