/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab fabrics layer: connect-option grammar, host identities and the
 * transport registry behind /dev/nvfab-fabrics.
 *
 * The option grammar is the one of the in-kernel /dev/nvme-fabrics, so that
 * the same strings (as nvme-cli and libnvme build them) work unchanged.
 */
#ifndef _NVFAB_FABRICS_H
#define _NVFAB_FABRICS_H

#include <linux/bits.h>
#include <linux/key.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/uuid.h>
#include <uapi/nvfab/fabrics.h>	/* the grammar's table and limits */

struct device;
struct module;
struct nvfab_ctrl;
struct key;

#define NVFAB_DISC_NQN		"nqn.2014-08.org.nvmexpress.discovery"

/**
 * enum nvfab_opt - bits of &nvfab_ctrl_options.mask, one per option key
 * @NVFAB_OPT_ERR:		no match (match_token() result only)
 * @NVFAB_OPT_TRANSPORT:	transport=%s
 * @NVFAB_OPT_NQN:		nqn=%s
 * @NVFAB_OPT_TRADDR:		traddr=%s
 * @NVFAB_OPT_TRSVCID:		trsvcid=%s
 * @NVFAB_OPT_QUEUE_SIZE:	queue_size=%d
 * @NVFAB_OPT_NR_IO_QUEUES:	nr_io_queues=%d
 * @NVFAB_OPT_KATO:		keep_alive_tmo=%d
 * @NVFAB_OPT_HOSTNQN:		hostnqn=%s
 * @NVFAB_OPT_RECONNECT_DELAY:	reconnect_delay=%d
 * @NVFAB_OPT_HOST_TRADDR:	host_traddr=%s
 * @NVFAB_OPT_CTRL_LOSS_TMO:	ctrl_loss_tmo=%d
 * @NVFAB_OPT_HOST_ID:		hostid=%s
 * @NVFAB_OPT_DUP_CONNECT:	duplicate_connect
 * @NVFAB_OPT_DISABLE_SQFLOW:	disable_sqflow
 * @NVFAB_OPT_HDR_DIGEST:	hdr_digest
 * @NVFAB_OPT_DATA_DIGEST:	data_digest
 * @NVFAB_OPT_NR_WRITE_QUEUES:	nr_write_queues=%d
 * @NVFAB_OPT_NR_POLL_QUEUES:	nr_poll_queues=%d
 * @NVFAB_OPT_TOS:		tos=%d
 * @NVFAB_OPT_FAIL_FAST_TMO:	fast_io_fail_tmo=%d
 * @NVFAB_OPT_HOST_IFACE:	host_iface=%s
 * @NVFAB_OPT_DISCOVERY:	discovery
 * @NVFAB_OPT_DHCHAP_SECRET:	dhchap_secret=%s
 * @NVFAB_OPT_DHCHAP_CTRL_SECRET: dhchap_ctrl_secret=%s
 * @NVFAB_OPT_TLS:		tls
 * @NVFAB_OPT_KEYRING:		keyring=%d
 * @NVFAB_OPT_TLS_KEY:		tls_key=%d
 *
 * The values are private to nvfab; transports use them to declare their
 * required and allowed options. Bit 6 is unused, as upstream (it was
 * tl_retry_count).
 */
enum nvfab_opt {
	NVFAB_OPT_ERR			= 0,
	NVFAB_OPT_TRANSPORT		= BIT(0),
	NVFAB_OPT_NQN			= BIT(1),
	NVFAB_OPT_TRADDR		= BIT(2),
	NVFAB_OPT_TRSVCID		= BIT(3),
	NVFAB_OPT_QUEUE_SIZE		= BIT(4),
	NVFAB_OPT_NR_IO_QUEUES		= BIT(5),
	NVFAB_OPT_KATO			= BIT(7),
	NVFAB_OPT_HOSTNQN		= BIT(8),
	NVFAB_OPT_RECONNECT_DELAY	= BIT(9),
	NVFAB_OPT_HOST_TRADDR		= BIT(10),
	NVFAB_OPT_CTRL_LOSS_TMO		= BIT(11),
	NVFAB_OPT_HOST_ID		= BIT(12),
	NVFAB_OPT_DUP_CONNECT		= BIT(13),
	NVFAB_OPT_DISABLE_SQFLOW	= BIT(14),
	NVFAB_OPT_HDR_DIGEST		= BIT(15),
	NVFAB_OPT_DATA_DIGEST		= BIT(16),
	NVFAB_OPT_NR_WRITE_QUEUES	= BIT(17),
	NVFAB_OPT_NR_POLL_QUEUES	= BIT(18),
	NVFAB_OPT_TOS			= BIT(19),
	NVFAB_OPT_FAIL_FAST_TMO		= BIT(20),
	NVFAB_OPT_HOST_IFACE		= BIT(21),
	NVFAB_OPT_DISCOVERY		= BIT(22),
	NVFAB_OPT_DHCHAP_SECRET		= BIT(23),
	NVFAB_OPT_DHCHAP_CTRL_SECRET	= BIT(24),
	NVFAB_OPT_TLS			= BIT(25),
	NVFAB_OPT_KEYRING		= BIT(26),
	NVFAB_OPT_TLS_KEY		= BIT(27),
};

/*
 * What NVMe/TCP's secure channel needs of the kernel: the handshake upcall
 * (tlshd does the TLS 1.3 handshake), kTLS and nvme-keyring (the .nvme
 * keyring and its "psk" keys). Without them tls, keyring= and tls_key=
 * are refused with -EOPNOTSUPP.
 */
#define NVFAB_HAVE_TLS	(IS_ENABLED(CONFIG_NET_HANDSHAKE) &&		\
			 IS_ENABLED(CONFIG_TLS) &&			\
			 IS_ENABLED(CONFIG_NVME_KEYRING))

/* The options of NVMe/TCP's secure channel (TLS), for the TCP transport. */
#define NVFAB_TLS_OPTS	(NVFAB_OPT_TLS | NVFAB_OPT_KEYRING | NVFAB_OPT_TLS_KEY)

/* Options every request must carry, whatever the transport. */
#define NVFAB_REQUIRED_OPTS	(NVFAB_OPT_TRANSPORT | NVFAB_OPT_NQN)
/* Options every transport accepts. */
#define NVFAB_ALLOWED_OPTS						\
	(NVFAB_OPT_QUEUE_SIZE | NVFAB_OPT_NR_IO_QUEUES |		\
	 NVFAB_OPT_KATO | NVFAB_OPT_HOSTNQN | NVFAB_OPT_HOST_ID |	\
	 NVFAB_OPT_DUP_CONNECT | NVFAB_OPT_DISABLE_SQFLOW |		\
	 NVFAB_OPT_FAIL_FAST_TMO | NVFAB_OPT_DISCOVERY |		\
	 NVFAB_OPT_DHCHAP_SECRET | NVFAB_OPT_DHCHAP_CTRL_SECRET)

/**
 * struct nvfab_host - a host identity (Host NQN plus Host Identifier)
 * @list:	entry in the fabrics host list, protected by its mutex
 * @ref:	one reference per controller options block using it
 * @id:		Host Identifier sent in Connect (NVMe-oF 1.1, 3.3)
 * @nqn:	Host NQN, NUL terminated
 *
 * Two identities may not share an NQN with different IDs or an ID with
 * different NQNs: a target must see one host unambiguously.
 */
struct nvfab_host {
	struct list_head	list;
	struct kref		ref;
	uuid_t			id;
	char			nqn[NVFAB_NQN_SIZE];
};

/**
 * struct nvfab_ctrl_options - a parsed connect request
 * @mask:		NVFAB_OPT_* bits of the keys present in the request
 * @transport:		transport name ("tcp", "rdma", ...)
 * @subsysnqn:		subsystem NQN to connect to
 * @traddr:		transport address of the target
 * @trsvcid:		transport service ID (port), or NULL for the default
 * @host_traddr:	local address to bind to, or NULL
 * @host_iface:		local interface to bind to, or NULL
 * @queue_size:		I/O queue depth in entries (16..1024)
 * @nr_io_queues:	default (read/write) I/O queues, capped at online CPUs
 * @nr_write_queues:	extra queues dedicated to writes, 0 for none
 * @nr_poll_queues:	extra polled queues, 0 for none
 * @reconnect_delay:	seconds between reconnect attempts
 * @ctrl_loss_tmo:	seconds before a lost controller is removed, <0 never
 * @max_reconnects:	reconnect attempts derived from the two above, -1 = inf
 * @fast_io_fail_tmo:	seconds after which I/O fails while reconnecting,
 *			-1 for never
 * @kato:		Keep Alive Timeout in seconds, 0 for none
 * @tos:		IP type of service, -1 for the transport default
 * @discovery_nqn:	this is a discovery controller
 * @duplicate_connect:	allow a second controller to the same target
 * @disable_sqflow:	ask for SQ flow control to be disabled
 * @hdr_digest:		NVMe/TCP header digest
 * @data_digest:	NVMe/TCP data digest
 * @dhchap_secret:	the host's DH-HMAC-CHAP secret (DHHC-1), or NULL;
 *			freed with kfree_sensitive(), never shown but in the
 *			controller's 0600 sysfs file
 * @dhchap_ctrl_secret:	the controller's DH-HMAC-CHAP secret, or NULL
 * @tls:		NVMe/TCP secure channel: a TLS 1.3 handshake (PSK) on
 *			every queue before ICReq
 * @keyring:		the keyring tlshd looks the PSK up in, referenced, or
 *			NULL for the .nvme keyring (only with @tls)
 * @tls_key:		the PSK to offer, referenced, or NULL to find it by
 *			its identity (hostnqn, subsysnqn) (only with @tls)
 * @host:		host identity, referenced
 */
struct nvfab_ctrl_options {
	unsigned int		mask;
	char			*transport;
	char			*subsysnqn;
	char			*traddr;
	char			*trsvcid;
	char			*host_traddr;
	char			*host_iface;
	size_t			queue_size;
	unsigned int		nr_io_queues;
	unsigned int		nr_write_queues;
	unsigned int		nr_poll_queues;
	unsigned int		reconnect_delay;
	int			ctrl_loss_tmo;
	int			max_reconnects;
	int			fast_io_fail_tmo;
	unsigned int		kato;
	int			tos;
	bool			discovery_nqn;
	bool			duplicate_connect;
	bool			disable_sqflow;
	bool			hdr_digest;
	bool			data_digest;
	char			*dhchap_secret;
	char			*dhchap_ctrl_secret;
	bool			tls;
	struct key		*keyring;
	struct key		*tls_key;
	struct nvfab_host	*host;
};

/**
 * nvfab_tls_keyring_name() - the keyring a controller's PSK comes from
 * @opts: parsed options
 *
 * Context: any.
 * Return: the description of the keyring option's keyring, or ".nvme".
 */
static inline const char *
nvfab_tls_keyring_name(const struct nvfab_ctrl_options *opts)
{
#if IS_ENABLED(CONFIG_KEYS)
	if (opts->keyring)
		return opts->keyring->description;
#endif
	return ".nvme";
}

/**
 * nvfab_max_reconnects() - reconnect attempts before the controller is lost
 * @ctrl_loss_tmo: seconds, or negative for never
 * @reconnect_delay: seconds between attempts, not 0
 *
 * Rounds up, so that the last attempt falls at or after @ctrl_loss_tmo.
 * Computed without the wrap-around of adding @reconnect_delay first. The
 * one computation for connect options and for the sysfs stores.
 *
 * Context: any context.
 * Return: the number of attempts, or -1 for no limit.
 */
static inline int nvfab_max_reconnects(int ctrl_loss_tmo,
				       unsigned int reconnect_delay)
{
	unsigned int tmo = ctrl_loss_tmo;

	if (ctrl_loss_tmo < 0)
		return -1;
	return tmo / reconnect_delay + !!(tmo % reconnect_delay);
}

/**
 * struct nvfab_transport_ops - a fabrics transport, as registered with
 *	nvfab-fabrics
 * @entry:		registry list entry, owned by nvfab-fabrics
 * @name:		transport name as given by "transport=" (e.g. "tcp")
 * @module:		owning module, pinned while a controller is created
 * @required_opts:	NVFAB_OPT_* bits the transport requires
 * @allowed_opts:	NVFAB_OPT_* bits the transport accepts beyond
 *			NVFAB_ALLOWED_OPTS and @required_opts
 * @create_ctrl:	create and start a controller. On success the
 *			controller owns @opts and the caller holds a
 *			reference to it (nvfab_start_new_ctrl()'s); on
 *			failure the caller frees @opts. May sleep. Returns
 *			the controller or an ERR_PTR.
 */
struct nvfab_transport_ops {
	struct list_head	entry;
	const char		*name;
	struct module		*module;
	unsigned int		required_opts;
	unsigned int		allowed_opts;
	struct nvfab_ctrl	*(*create_ctrl)(struct device *dev,
						struct nvfab_ctrl_options *opts);
};

int nvfab_register_transport(struct nvfab_transport_ops *ops);
void nvfab_unregister_transport(struct nvfab_transport_ops *ops);
void nvfab_free_options(struct nvfab_ctrl_options *opts);
key_serial_t nvfab_tls_find_psk(const struct nvfab_ctrl_options *opts);
bool nvfab_opts_same_path(const struct nvfab_ctrl_options *a,
			  const struct nvfab_ctrl_options *b,
			  const char *default_trsvcid);

/**
 * struct nvfab_opt_value - one connect option given by a kernel caller
 * @token: the option, one NVFAB_OPT_* bit
 * @str: its value, NUL-terminated and taken whole: a ',', '=' or newline
 *	in it is part of the value, never a separator; NULL for an option
 *	that takes no value (duplicate_connect, discovery, hdr_digest, ...)
 *
 * See nvfab_build_options().
 */
struct nvfab_opt_value {
	unsigned int	token;
	const char	*str;
};

int nvfab_build_options(struct nvfab_ctrl_options *opts, const char *buf,
			const struct nvfab_opt_value *vals,
			unsigned int nr_vals);
int nvfab_parse_options(struct nvfab_ctrl_options *opts, const char *buf);
struct nvfab_ctrl *nvfab_fabrics_create_ctrl(struct nvfab_ctrl_options *opts);
void nvfab_fabrics_put_ctrl(struct nvfab_ctrl *ctrl);

#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_check_transport_opts(struct nvfab_ctrl_options *opts,
			       const struct nvfab_transport_ops *ops);
struct nvfab_ctrl *nvfab_create_ctrl(struct device *dev, const char *buf);
#endif

#endif /* _NVFAB_FABRICS_H */
