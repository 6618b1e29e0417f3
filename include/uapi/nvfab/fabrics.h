/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The connect-option grammar of /dev/nvfab-fabrics: its limits and the
 * kinds of value of its table, include/uapi/nvfab/fabrics-opts.h (every
 * key, the kind of its value and the values the kernel accepts).
 *
 * Two parsers apply these rules: the kernel's (drivers/nvfab/fabrics/
 * fabrics.c, whose range checks use the limits below) and nvfabctl's
 * (tools/nvfabctl/opts.c, which checks a connect, a configuration line or
 * a discovery entry's options against the table before anything reaches
 * the kernel). Each has a test that walks the table: the KUnit case
 * nvfab_opts_table_test (suite nvfab_fabrics_opts) feeds the kernel
 * parser every key's bounds and the values just outside them, and
 * nvfabctl's tools/nvfabctl/tests/opts.sh does the same through the
 * command line, so the two cannot drift apart.
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
 * One row of the table, include/uapi/nvfab/fabrics-opts.h, whose
 * NVFAB_OPT(key, kind, min, max) lines its includer turns into rows:
 *
 *	static const struct nvfab_opt_rule rules[] = {
 *	#define NVFAB_OPT(k, kd, lo, hi)	{ k, kd, lo, hi },
 *	#include <uapi/nvfab/fabrics-opts.h>
 *	#undef NVFAB_OPT
 *	};
 */
struct nvfab_opt_rule {
	const char	*key;
	int		kind;	/* NVFAB_OPTK_* */
	long long	min, max;
};

#endif /* _UAPI_NVFAB_FABRICS_H */
