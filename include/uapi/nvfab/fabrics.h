/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The connect-option grammar of /dev/nvfab-fabrics as one table: every key,
 * the kind of its value and the values the kernel accepts.
 *
 * Two parsers apply these rules: the kernel's (drivers/nvfab/fabrics/
 * fabrics.c, whose range checks use the limits below) and nvfabctl's
 * (tools/nvfabctl/opts.c, which checks a connect, a configuration line or
 * a discovery entry's options against this table before anything reaches
 * the kernel). Each has a test that walks the table: the KUnit suite
 * nvfab_fabrics_opts_table feeds the kernel parser every key's bounds and
 * the values just outside them, and nvfabctl's host tests
 * (tools/nvfabctl/tests/opts.sh) do the same through the command line, so
 * the two cannot drift apart.
 *
 * Plain C, no kernel types: included by the kernel and by user space.
 */
#ifndef _UAPI_NVFAB_FABRICS_H
#define _UAPI_NVFAB_FABRICS_H

/* NVMe over Fabrics 1.1, 7.2: an NQN is at most 223 bytes including NUL. */
#define NVFAB_NQN_SIZE		223
/* Transport address and service ID sizes of the Discovery Log entry. */
#define NVFAB_TRADDR_SIZE	256
#define NVFAB_TRSVCID_SIZE	32
/* Longest transport name we accept ("tcp", "rdma"), with its NUL. */
#define NVFAB_TRANSPORT_SIZE	16
/* An interface name, with its NUL (the kernel's IFNAMSIZ). */
#define NVFAB_IFNAME_SIZE	16
/* Longest option string accepted by a single write (bytes). */
#define NVFAB_OPTS_MAX_LEN	4096

/* Defaults and limits of the numbers, those of the in-kernel host. */
#define NVFAB_MIN_QUEUE_SIZE		16
#define NVFAB_MAX_QUEUE_SIZE		1024
#define NVFAB_DEF_QUEUE_SIZE		128
#define NVFAB_DEF_RECONNECT_DELAY	10	/* seconds */
#define NVFAB_DEF_CTRL_LOSS_TMO		600	/* seconds */
#define NVFAB_DEF_FAIL_FAST_TMO		-1	/* seconds, -1: never */
#define NVFAB_DEF_KATO			5	/* seconds */
/* KATO is sent in ms in a 32-bit field: U32_MAX / 1000 seconds at most. */
#define NVFAB_MAX_KATO			4294967U	/* seconds */
/* tos above this is accepted and clamped to it. */
#define NVFAB_MAX_TOS			255
/*
 * nvfab's own limits (the in-kernel host has none): longer values are
 * refused, not capped, so that a typo cannot turn into a silent "never".
 * A negative ctrl_loss_tmo (reconnect forever) or fast_io_fail_tmo (off)
 * is the way to ask for none.
 */
#define NVFAB_MAX_RECONNECT_DELAY	86400		/* seconds: a day */
#define NVFAB_MAX_TMO			31536000	/* seconds: 365 days */

/* The int range of the parsers (match_int(), strtol() into an int). */
#define NVFAB_OPT_INT_MIN	(-2147483647 - 1)
#define NVFAB_OPT_INT_MAX	2147483647

/*
 * Kinds of value:
 * NVFAB_OPTK_FLAG	no value ("key" alone; "key=..." is refused)
 * NVFAB_OPTK_INT	a decimal int in [min, max]
 * NVFAB_OPTK_STR	1 to max bytes, no control characters
 * NVFAB_OPTK_UUID	a UUID, 8-4-4-4-12 hex digits
 * NVFAB_OPTK_SECRET	a DH-HMAC-CHAP secret, "DHHC-1:" and at least
 *			min - 7 more bytes (the key is checked at connect)
 * NVFAB_OPTK_SERIAL	a key serial in [min, max], looked up at parse time
 */
#define NVFAB_OPTK_FLAG		0
#define NVFAB_OPTK_INT		1
#define NVFAB_OPTK_STR		2
#define NVFAB_OPTK_UUID		3
#define NVFAB_OPTK_SECRET	4
#define NVFAB_OPTK_SERIAL	5

/*
 * NVFAB_OPTS_TABLE(X) calls X(key, kind, min, max) once per key, in the
 * order of enum nvfab_opt. For STR, min and max are lengths in bytes.
 *
 * Beyond this table each transport checks its addresses when it connects:
 * for tcp and rdma, traddr and host_traddr are numeric IPv4 or IPv6
 * addresses (IPv6 with an optional %scope, no brackets, no port) and
 * trsvcid is a decimal port, 0 to 65535. nr_io_queues, nr_write_queues and
 * nr_poll_queues above the number of online CPUs are reduced to it.
 */
#define NVFAB_OPTS_TABLE(X)						\
	X("transport",		NVFAB_OPTK_STR,	1, NVFAB_TRANSPORT_SIZE - 1) \
	X("traddr",		NVFAB_OPTK_STR,	1, NVFAB_TRADDR_SIZE - 1) \
	X("trsvcid",		NVFAB_OPTK_STR,	1, NVFAB_TRSVCID_SIZE - 1) \
	X("nqn",		NVFAB_OPTK_STR,	1, NVFAB_NQN_SIZE - 1)	\
	X("queue_size",		NVFAB_OPTK_INT,	NVFAB_MIN_QUEUE_SIZE,	\
	  NVFAB_MAX_QUEUE_SIZE)						\
	X("nr_io_queues",	NVFAB_OPTK_INT,	1, NVFAB_OPT_INT_MAX)	\
	X("reconnect_delay",	NVFAB_OPTK_INT,	1, NVFAB_MAX_RECONNECT_DELAY) \
	X("ctrl_loss_tmo",	NVFAB_OPTK_INT,	NVFAB_OPT_INT_MIN,	\
	  NVFAB_MAX_TMO)						\
	X("keep_alive_tmo",	NVFAB_OPTK_INT,	0, NVFAB_MAX_KATO)	\
	X("hostnqn",		NVFAB_OPTK_STR,	1, NVFAB_NQN_SIZE - 1)	\
	X("host_traddr",	NVFAB_OPTK_STR,	1, NVFAB_TRADDR_SIZE - 1) \
	X("host_iface",		NVFAB_OPTK_STR,	1, NVFAB_IFNAME_SIZE - 1) \
	X("hostid",		NVFAB_OPTK_UUID, 36, 36)		\
	X("duplicate_connect",	NVFAB_OPTK_FLAG, 0, 0)			\
	X("disable_sqflow",	NVFAB_OPTK_FLAG, 0, 0)			\
	X("hdr_digest",		NVFAB_OPTK_FLAG, 0, 0)			\
	X("data_digest",	NVFAB_OPTK_FLAG, 0, 0)			\
	X("nr_write_queues",	NVFAB_OPTK_INT,	1, NVFAB_OPT_INT_MAX)	\
	X("nr_poll_queues",	NVFAB_OPTK_INT,	1, NVFAB_OPT_INT_MAX)	\
	X("tos",		NVFAB_OPTK_INT,	0, NVFAB_OPT_INT_MAX)	\
	X("fast_io_fail_tmo",	NVFAB_OPTK_INT,	NVFAB_OPT_INT_MIN,	\
	  NVFAB_MAX_TMO)						\
	X("discovery",		NVFAB_OPTK_FLAG, 0, 0)			\
	X("dhchap_secret",	NVFAB_OPTK_SECRET, 11, NVFAB_OPTS_MAX_LEN) \
	X("dhchap_ctrl_secret",	NVFAB_OPTK_SECRET, 11, NVFAB_OPTS_MAX_LEN) \
	X("tls",		NVFAB_OPTK_FLAG, 0, 0)			\
	X("keyring",		NVFAB_OPTK_SERIAL, 1, NVFAB_OPT_INT_MAX) \
	X("tls_key",		NVFAB_OPTK_SERIAL, 1, NVFAB_OPT_INT_MAX)

#endif /* _UAPI_NVFAB_FABRICS_H */
