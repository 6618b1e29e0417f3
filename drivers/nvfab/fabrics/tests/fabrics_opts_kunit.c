// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the nvfab connect-option grammar (nvfab-fabrics).
 *
 * nvfab_fabrics_opts feeds a table of option strings, valid and hostile, to
 * nvfab_parse_options() and checks the result and one or two resulting
 * fields, and walks the grammar's table (include/uapi/nvfab/fabrics.h,
 * nvfab_opts_table_test) with each key's bounds. nvfab_fabrics_transport
 * checks required/allowed options against
 * fake transports, the transport registry and nvfab_create_ctrl().
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/key.h>
#include <linux/module.h>
#include <linux/nvme-keyring.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include <nvfab/core.h>
#include <nvfab/fabrics.h>

/* A valid TCP request to which cases append options. */
#define B "transport=tcp,traddr=192.0.2.2,nqn=nqn.2014-08.org.example:s1"

/* Fields a case can check. */
enum opt_field {
	F_NONE,
	F_MASK,
	F_QUEUE_SIZE,
	F_NR_IO,
	F_NR_WRITE,
	F_NR_POLL,
	F_KATO,
	F_RECONNECT,
	F_CTRL_LOSS,
	F_MAX_RECONNECTS,
	F_FAST_IO_FAIL,
	F_TOS,
	F_DISCOVERY,
	F_DUP_CONNECT,
	F_SQFLOW,
	F_HDR_DIGEST,
	F_DATA_DIGEST,
	F_TRSVCID,
	F_TRADDR,
	F_HOST_TRADDR,
	F_HOST_IFACE,
	F_HOSTNQN,
	F_HOSTID,
	F_SUBSYSNQN,
	F_TLS,
};

/* Stands for num_online_cpus() in an expected value. */
#define V_CPUS	(-1000)

struct opts_case {
	const char *desc;
	const char *input;
	/* If pad_len: input, then pad_len copies of 'a', then suffix. */
	unsigned int pad_len;
	const char *suffix;
	int ret;
	enum opt_field f1, f2;
	long v1, v2;
	const char *s1;		/* expected string of a string field f1 */
};

static const struct opts_case opts_cases[] = {
	/* Minimal request and the defaults it gets. */
	{ "minimal tcp request", B, .f1 = F_MASK,
	  .v1 = NVFAB_OPT_TRANSPORT | NVFAB_OPT_TRADDR | NVFAB_OPT_NQN },
	{ "default queue_size 128", B, .f1 = F_QUEUE_SIZE, .v1 = 128 },
	{ "default reconnect_delay 10", B, .f1 = F_RECONNECT, .v1 = 10 },
	{ "default kato 5 for I/O ctrl", B, .f1 = F_KATO, .v1 = 5 },
	{ "default ctrl_loss_tmo 600 -> 60 reconnects", B,
	  .f1 = F_CTRL_LOSS, .v1 = 600, .f2 = F_MAX_RECONNECTS, .v2 = 60 },
	{ "default fast_io_fail_tmo off", B, .f1 = F_FAST_IO_FAIL, .v1 = -1 },
	{ "default tos is transport's", B, .f1 = F_TOS, .v1 = -1 },
	{ "default nr_io_queues = online cpus", B, .f1 = F_NR_IO,
	  .v1 = V_CPUS },
	{ "no digests by default", B, .f1 = F_HDR_DIGEST, .v1 = 0,
	  .f2 = F_DATA_DIGEST, .v2 = 0 },
	{ "subsysnqn stored", B, .f1 = F_SUBSYSNQN,
	  .s1 = "nqn.2014-08.org.example:s1" },
	{ "traddr stored", B, .f1 = F_TRADDR, .s1 = "192.0.2.2" },
	{ "newline separators", "transport=tcp\ntraddr=192.0.2.2\nnqn=n\n",
	  .f1 = F_TRADDR, .s1 = "192.0.2.2" },
	{ "empty options are skipped", ",," B ",,\n", .f1 = F_QUEUE_SIZE,
	  .v1 = 128 },
	{ "empty string parses", "", .f1 = F_MASK, .v1 = 0 },

	/* queue_size */
	{ "queue_size min 16", B ",queue_size=16", .f1 = F_QUEUE_SIZE,
	  .v1 = 16 },
	{ "queue_size max 1024", B ",queue_size=1024", .f1 = F_QUEUE_SIZE,
	  .v1 = 1024 },
	{ "queue_size hex", B ",queue_size=0x40", .f1 = F_QUEUE_SIZE,
	  .v1 = 64 },
	{ "queue_size 15 too small", B ",queue_size=15", .ret = -EINVAL },
	{ "queue_size 1025 too big", B ",queue_size=1025", .ret = -EINVAL },
	{ "queue_size negative", B ",queue_size=-1", .ret = -EINVAL },
	{ "queue_size not a number", B ",queue_size=abc", .ret = -EINVAL },
	{ "queue_size trailing junk", B ",queue_size=64k", .ret = -EINVAL },
	{ "queue_size empty", B ",queue_size=", .ret = -EINVAL },
	{ "queue_size no '='", B ",queue_size", .ret = -EINVAL },
	{ "queue_size int overflow", B ",queue_size=99999999999",
	  .ret = -EINVAL },

	/* queue counts */
	{ "nr_io_queues 1", B ",nr_io_queues=1", .f1 = F_NR_IO, .v1 = 1 },
	{ "nr_io_queues capped at cpus", B ",nr_io_queues=4096",
	  .f1 = F_NR_IO, .v1 = V_CPUS },
	{ "nr_io_queues 0", B ",nr_io_queues=0", .ret = -EINVAL },
	{ "nr_io_queues negative", B ",nr_io_queues=-3", .ret = -EINVAL },
	{ "nr_write_queues 2", B ",nr_write_queues=2", .f1 = F_NR_WRITE,
	  .v1 = 2 },
	{ "nr_write_queues 0", B ",nr_write_queues=0", .ret = -EINVAL },
	{ "nr_write_queues capped at cpus", B ",nr_write_queues=4096",
	  .f1 = F_NR_WRITE, .v1 = V_CPUS },
	{ "nr_poll_queues 1", B ",nr_poll_queues=1", .f1 = F_NR_POLL,
	  .v1 = 1 },
	{ "nr_poll_queues negative", B ",nr_poll_queues=-1",
	  .ret = -EINVAL },
	{ "nr_poll_queues capped at cpus", B ",nr_poll_queues=65535",
	  .f1 = F_NR_POLL, .v1 = V_CPUS },

	/* keep-alive and timers */
	{ "keep_alive_tmo 30", B ",keep_alive_tmo=30", .f1 = F_KATO,
	  .v1 = 30 },
	{ "keep_alive_tmo 0 kept", B ",keep_alive_tmo=0", .f1 = F_KATO,
	  .v1 = 0 },
	{ "keep_alive_tmo negative", B ",keep_alive_tmo=-1", .ret = -EINVAL },
	{ "keep_alive_tmo at the KATO field's limit",
	  B ",keep_alive_tmo=4294967", .f1 = F_KATO, .v1 = 4294967 },
	{ "keep_alive_tmo past the KATO field (ms) rejected",
	  B ",keep_alive_tmo=4294968", .ret = -EINVAL },
	{ "keep_alive_tmo INT_MAX rejected", B ",keep_alive_tmo=2147483647",
	  .ret = -EINVAL },
	{ "reconnect_delay 2 -> 300 reconnects", B ",reconnect_delay=2",
	  .f1 = F_RECONNECT, .v1 = 2, .f2 = F_MAX_RECONNECTS, .v2 = 300 },
	{ "reconnect_delay 0", B ",reconnect_delay=0", .ret = -EINVAL },
	{ "reconnect_delay a day", B ",reconnect_delay=86400",
	  .f1 = F_RECONNECT, .v1 = 86400 },
	{ "reconnect_delay past a day refused", B ",reconnect_delay=86401",
	  .ret = -EINVAL },
	{ "reconnect_delay INT_MAX refused", B ",reconnect_delay=2147483647",
	  .ret = -EINVAL },
	{ "ctrl_loss_tmo 365 days", B ",ctrl_loss_tmo=31536000",
	  .f1 = F_CTRL_LOSS, .v1 = 31536000 },
	{ "ctrl_loss_tmo past 365 days refused", B ",ctrl_loss_tmo=31536001",
	  .ret = -EINVAL },
	{ "fast_io_fail_tmo INT_MAX refused", B ",fast_io_fail_tmo=2147483647",
	  .ret = -EINVAL },
	{ "ctrl_loss_tmo -1 reconnects forever", B ",ctrl_loss_tmo=-1",
	  .f1 = F_MAX_RECONNECTS, .v1 = -1 },
	{ "ctrl_loss_tmo 0 no reconnect", B ",ctrl_loss_tmo=0",
	  .f1 = F_MAX_RECONNECTS, .v1 = 0 },
	{ "ctrl_loss_tmo rounds reconnects up",
	  B ",ctrl_loss_tmo=25,reconnect_delay=10",
	  .f1 = F_MAX_RECONNECTS, .v1 = 3 },
	{ "ctrl_loss_tmo not a number", B ",ctrl_loss_tmo=x", .ret = -EINVAL },
	{ "fast_io_fail_tmo 2", B ",fast_io_fail_tmo=2", .f1 = F_FAST_IO_FAIL,
	  .v1 = 2 },
	{ "fast_io_fail_tmo negative means off", B ",fast_io_fail_tmo=-5",
	  .f1 = F_FAST_IO_FAIL, .v1 = -1 },
	{ "fast_io_fail_tmo > ctrl_loss_tmo warns only",
	  B ",fast_io_fail_tmo=700,ctrl_loss_tmo=600",
	  .f1 = F_FAST_IO_FAIL, .v1 = 700 },

	/* tos */
	{ "tos 0", B ",tos=0", .f1 = F_TOS, .v1 = 0 },
	{ "tos 255", B ",tos=255", .f1 = F_TOS, .v1 = 255 },
	{ "tos 256 clamped", B ",tos=256", .f1 = F_TOS, .v1 = 255 },
	{ "tos negative", B ",tos=-1", .ret = -EINVAL },

	/* flags */
	{ "hdr_digest", B ",hdr_digest", .f1 = F_HDR_DIGEST, .v1 = 1 },
	{ "data_digest", B ",data_digest", .f1 = F_DATA_DIGEST, .v1 = 1 },
	{ "flag with a value", B ",hdr_digest=1", .ret = -EINVAL },
	{ "duplicate_connect", B ",duplicate_connect", .f1 = F_DUP_CONNECT,
	  .v1 = 1 },
	{ "disable_sqflow", B ",disable_sqflow", .f1 = F_SQFLOW, .v1 = 1 },

	/* discovery */
	{ "discovery flag: no I/O queues", B ",discovery,nr_io_queues=2",
	  .f1 = F_DISCOVERY, .v1 = 1, .f2 = F_NR_IO, .v2 = 0 },
	{ "discovery NQN implies discovery",
	  "transport=tcp,traddr=192.0.2.2,nqn=" NVFAB_DISC_NQN,
	  .f1 = F_DISCOVERY, .v1 = 1, .f2 = F_DUP_CONNECT, .v2 = 1 },
	{ "discovery ctrl has no default kato",
	  "transport=tcp,traddr=192.0.2.2,nqn=" NVFAB_DISC_NQN,
	  .f1 = F_KATO, .v1 = 0 },
	{ "discovery ctrl keeps an explicit kato", B ",discovery,keep_alive_tmo=30",
	  .f1 = F_KATO, .v1 = 30 },
	{ "discovery drops write and poll queues",
	  B ",discovery,nr_write_queues=2,nr_poll_queues=2",
	  .f1 = F_NR_WRITE, .v1 = 0, .f2 = F_NR_POLL, .v2 = 0 },

	/* strings and their limits */
	{ "trsvcid", B ",trsvcid=4420", .f1 = F_TRSVCID, .s1 = "4420" },
	{ "trsvcid 31 bytes ok", B ",trsvcid=", .pad_len = 31,
	  .f1 = F_MASK, .v1 = NVFAB_OPT_TRANSPORT | NVFAB_OPT_TRADDR |
	  NVFAB_OPT_NQN | NVFAB_OPT_TRSVCID },
	{ "trsvcid 32 bytes too long", B ",trsvcid=", .pad_len = 32,
	  .ret = -EINVAL },
	{ "traddr 255 bytes ok", "transport=tcp,nqn=n,traddr=",
	  .pad_len = 255, .f1 = F_QUEUE_SIZE, .v1 = 128 },
	{ "traddr 256 bytes too long", "transport=tcp,nqn=n,traddr=",
	  .pad_len = 256, .ret = -EINVAL },
	{ "nqn 222 bytes ok", "transport=tcp,traddr=1,nqn=", .pad_len = 222,
	  .f1 = F_QUEUE_SIZE, .v1 = 128 },
	{ "nqn 223 bytes too long", "transport=tcp,traddr=1,nqn=",
	  .pad_len = 223, .ret = -EINVAL },
	{ "nqn with UTF-8", "transport=tcp,traddr=1,nqn=nqn.2014-08.org.ex:\xc3\xa9",
	  .f1 = F_SUBSYSNQN, .s1 = "nqn.2014-08.org.ex:\xc3\xa9" },
	{ "nqn with a control character", "transport=tcp,traddr=1,nqn=a\x01z",
	  .ret = -EINVAL },
	{ "hostnqn 223 bytes too long", B ",hostnqn=", .pad_len = 223,
	  .ret = -EINVAL },
	{ "host_traddr", B ",host_traddr=192.0.2.1", .f1 = F_HOST_TRADDR,
	  .s1 = "192.0.2.1" },
	{ "host_iface", B ",host_iface=veth0", .f1 = F_HOST_IFACE,
	  .s1 = "veth0" },
	{ "host_iface 16 bytes too long", B ",host_iface=", .pad_len = 16,
	  .ret = -EINVAL },
	{ "traddr missing value", "transport=tcp,nqn=n,traddr=",
	  .ret = -EINVAL },
	{ "option string over 4096 bytes", B ",traddr=", .pad_len = 4096,
	  .ret = -EINVAL },

	/* host identity */
	{ "hostnqn with matching new hostid",
	  B ",hostnqn=nqn.2014-08.org.example:host1,hostid=8c3d1d2e-9f0a-4b5c-8d6e-7f8091a2b3c4",
	  .f1 = F_HOSTNQN, .s1 = "nqn.2014-08.org.example:host1" },
	{ "hostid parsed",
	  B ",hostnqn=nqn.2014-08.org.example:host2,hostid=11111111-2222-3333-4444-555555555555",
	  .f1 = F_HOSTID, .s1 = "11111111-2222-3333-4444-555555555555" },
	{ "hostid not a UUID", B ",hostid=not-a-uuid", .ret = -EINVAL },
	{ "hostid without dashes",
	  B ",hostid=11111111222233334444555555555555", .ret = -EINVAL },
	{ "hostid with trailing junk",
	  B ",hostid=11111111-2222-3333-4444-555555555555x", .ret = -EINVAL },
	{ "hostnqn alone clashes with default hostid",
	  B ",hostnqn=nqn.2014-08.org.example:lonely", .ret = -EINVAL },

	/* unknown, duplicated, unsupported */
	{ "unknown key", B ",foo=bar", .ret = -EINVAL },
	{ "unknown flag", B ",frobnicate", .ret = -EINVAL },
	{ "key with leading space", B ", traddr=1", .ret = -EINVAL },
	{ "value without key", B ",=4420", .ret = -EINVAL },
	{ "duplicate traddr", B ",traddr=192.0.2.3", .ret = -EINVAL },
	{ "duplicate flag", B ",hdr_digest,hdr_digest", .ret = -EINVAL },
	{ "duplicate number", B ",tos=1,tos=2", .ret = -EINVAL },
	/* taken where the kernel has nvme-auth, else refused */
	{ "dhchap_secret", B ",dhchap_secret=DHHC-1:00:abcdefgh:",
	  .ret = IS_ENABLED(CONFIG_NVME_AUTH) ? 0 : -EOPNOTSUPP },
	{ "dhchap_secret not DHHC-1", B ",dhchap_secret=DHHC-2:00:abcdefgh:",
	  .ret = IS_ENABLED(CONFIG_NVME_AUTH) ? -EINVAL : -EOPNOTSUPP },
	{ "dhchap_ctrl_secret too short", B ",dhchap_ctrl_secret=DHHC-1:00",
	  .ret = IS_ENABLED(CONFIG_NVME_AUTH) ? -EINVAL : -EOPNOTSUPP },
	/* TLS: taken where the kernel has the upcall, kTLS, nvme-keyring */
	{ "tls", B ",tls", .ret = NVFAB_HAVE_TLS ? 0 : -EOPNOTSUPP,
	  .f1 = F_TLS, .v1 = 1 },
	{ "tls twice", B ",tls,tls",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "tls with a value", B ",tls=1", .ret = -EINVAL },
	{ "keyring 0", B ",tls,keyring=0",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "keyring negative", B ",tls,keyring=-5",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "keyring not a number", B ",tls,keyring=.nvme",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "keyring no such key", B ",tls,keyring=2147483647",
	  .ret = NVFAB_HAVE_TLS ? -ENOKEY : -EOPNOTSUPP },
	{ "tls_key 0", B ",tls,tls_key=0",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "tls_key int overflow", B ",tls,tls_key=99999999999",
	  .ret = NVFAB_HAVE_TLS ? -EINVAL : -EOPNOTSUPP },
	{ "tls_key no such key", B ",tls,tls_key=2147483646",
	  .ret = NVFAB_HAVE_TLS ? -ENOKEY : -EOPNOTSUPP },
	{ "concat unsupported", B ",concat", .ret = -EOPNOTSUPP },

	/* transport names become module names */
	{ "transport upper case", "transport=TCP,traddr=1,nqn=n",
	  .ret = -EINVAL },
	{ "transport path", "transport=../../x,traddr=1,nqn=n",
	  .ret = -EINVAL },
	{ "transport 16 bytes too long", "traddr=1,nqn=n,transport=",
	  .pad_len = 16, .ret = -EINVAL },
	{ "transport rdma", "transport=rdma,traddr=1,nqn=n",
	  .f1 = F_MASK,
	  .v1 = NVFAB_OPT_TRANSPORT | NVFAB_OPT_TRADDR | NVFAB_OPT_NQN },
};

static void opts_case_desc(const struct opts_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(opts, opts_cases, opts_case_desc);

KUNIT_DEFINE_ACTION_WRAPPER(free_opts_action, nvfab_free_options,
			    struct nvfab_ctrl_options *);

/* A zeroed options block that the test frees with nvfab_free_options(). */
static struct nvfab_ctrl_options *test_opts(struct kunit *test)
{
	struct nvfab_ctrl_options *opts;
	int ret;

	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	ret = kunit_add_action_or_reset(test, free_opts_action, opts);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return opts;
}

static const char *case_input(struct kunit *test, const struct opts_case *c)
{
	size_t plen, slen;
	char *s;

	if (!c->pad_len)
		return c->input;
	plen = strlen(c->input);
	slen = c->suffix ? strlen(c->suffix) : 0;
	s = kunit_kzalloc(test, plen + c->pad_len + slen + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s, c->input, plen);
	memset(s + plen, 'a', c->pad_len);
	if (slen)
		memcpy(s + plen + c->pad_len, c->suffix, slen);
	return s;
}

static long opts_field(const struct nvfab_ctrl_options *o, enum opt_field f)
{
	switch (f) {
	case F_MASK:		return o->mask;
	case F_QUEUE_SIZE:	return o->queue_size;
	case F_NR_IO:		return o->nr_io_queues;
	case F_NR_WRITE:	return o->nr_write_queues;
	case F_NR_POLL:		return o->nr_poll_queues;
	case F_KATO:		return o->kato;
	case F_RECONNECT:	return o->reconnect_delay;
	case F_CTRL_LOSS:	return o->ctrl_loss_tmo;
	case F_MAX_RECONNECTS:	return o->max_reconnects;
	case F_FAST_IO_FAIL:	return o->fast_io_fail_tmo;
	case F_TOS:		return o->tos;
	case F_DISCOVERY:	return o->discovery_nqn;
	case F_DUP_CONNECT:	return o->duplicate_connect;
	case F_SQFLOW:		return o->disable_sqflow;
	case F_HDR_DIGEST:	return o->hdr_digest;
	case F_DATA_DIGEST:	return o->data_digest;
	case F_TLS:		return o->tls;
	default:		return LONG_MIN;
	}
}

static void check_field(struct kunit *test, const struct nvfab_ctrl_options *o,
			enum opt_field f, long v, const char *s)
{
	char id[UUID_STRING_LEN + 1];

	if (v == V_CPUS)
		v = num_online_cpus();

	switch (f) {
	case F_NONE:
		return;
	case F_TRSVCID:
		KUNIT_EXPECT_STREQ(test, o->trsvcid, s);
		return;
	case F_TRADDR:
		KUNIT_EXPECT_STREQ(test, o->traddr, s);
		return;
	case F_HOST_TRADDR:
		KUNIT_EXPECT_STREQ(test, o->host_traddr, s);
		return;
	case F_HOST_IFACE:
		KUNIT_EXPECT_STREQ(test, o->host_iface, s);
		return;
	case F_SUBSYSNQN:
		KUNIT_EXPECT_STREQ(test, o->subsysnqn, s);
		return;
	case F_HOSTNQN:
		KUNIT_ASSERT_NOT_NULL(test, o->host);
		KUNIT_EXPECT_STREQ(test, o->host->nqn, s);
		return;
	case F_HOSTID:
		KUNIT_ASSERT_NOT_NULL(test, o->host);
		snprintf(id, sizeof(id), "%pUb", &o->host->id);
		KUNIT_EXPECT_STREQ(test, id, s);
		return;
	default:
		KUNIT_EXPECT_EQ(test, opts_field(o, f), v);
	}
}

static void nvfab_opts_parse_test(struct kunit *test)
{
	const struct opts_case *c = test->param_value;
	struct nvfab_ctrl_options *opts;
	int ret;

	opts = test_opts(test);

	ret = nvfab_parse_options(opts, case_input(test, c));
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	if (ret)
		return;
	KUNIT_EXPECT_NOT_NULL(test, opts->host);
	check_field(test, opts, c->f1, c->v1, c->s1);
	check_field(test, opts, c->f2, c->v2, NULL);
}

/* A host identity may not be reused with a different NQN or ID. */
static void nvfab_opts_host_identity_test(struct kunit *test)
{
	static const char * const req[] = {
		B ",hostnqn=nqn.2014-08.org.example:hA,hostid=aaaaaaaa-0000-0000-0000-000000000001",
		B ",hostnqn=nqn.2014-08.org.example:hA,hostid=aaaaaaaa-0000-0000-0000-000000000002",
		B ",hostnqn=nqn.2014-08.org.example:hB,hostid=aaaaaaaa-0000-0000-0000-000000000001",
	};
	struct nvfab_ctrl_options *o[4];
	int i;

	for (i = 0; i < ARRAY_SIZE(o); i++)
		o[i] = test_opts(test);
	KUNIT_ASSERT_EQ(test, nvfab_parse_options(o[0], req[0]), 0);
	/* same NQN, other ID; same ID, other NQN */
	KUNIT_EXPECT_EQ(test, nvfab_parse_options(o[1], req[1]), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_parse_options(o[2], req[2]), -EINVAL);
	/* the same identity again shares the host */
	KUNIT_ASSERT_EQ(test, nvfab_parse_options(o[3], req[0]), 0);
	KUNIT_EXPECT_PTR_EQ(test, o[0]->host, o[3]->host);
	KUNIT_EXPECT_EQ(test, kref_read(&o[0]->host->ref), 2);
}

#if NVFAB_HAVE_TLS
/*
 * keyring= and tls_key= name real keys (the .nvme keyring itself stands for
 * both here): referenced while the options hold them, released with them;
 * refused without tls.
 */
static void nvfab_opts_tls_keys_test(struct kunit *test)
{
	key_serial_t id = nvme_keyring_id();
	struct nvfab_ctrl_options *opts;
	struct key *keyring;
	char buf[160];
	int refs;

	keyring = key_lookup(id);
	KUNIT_ASSERT_FALSE(test, IS_ERR(keyring));
	refs = refcount_read(&keyring->usage);

	snprintf(buf, sizeof(buf), B ",tls,keyring=%d,tls_key=%d", id, id);
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	KUNIT_EXPECT_EQ(test, nvfab_parse_options(opts, buf), 0);
	KUNIT_EXPECT_PTR_EQ(test, opts->keyring, keyring);
	KUNIT_EXPECT_PTR_EQ(test, opts->tls_key, keyring);
	KUNIT_EXPECT_EQ(test, refcount_read(&keyring->usage), refs + 2);
	nvfab_free_options(opts);
	KUNIT_EXPECT_EQ(test, refcount_read(&keyring->usage), refs);

	/* a key without tls would connect in the clear: refused */
	snprintf(buf, sizeof(buf), B ",keyring=%d", id);
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	KUNIT_EXPECT_EQ(test, nvfab_parse_options(opts, buf), -EINVAL);
	nvfab_free_options(opts);
	snprintf(buf, sizeof(buf), B ",tls_key=%d", id);
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	KUNIT_EXPECT_EQ(test, nvfab_parse_options(opts, buf), -EINVAL);
	nvfab_free_options(opts);
	KUNIT_EXPECT_EQ(test, refcount_read(&keyring->usage), refs);
	key_put(keyring);
}
#endif

/*
 * nvfab_build_options(): options given as values by a kernel caller are
 * taken whole, and checked as written ones are.
 */
struct values_case {
	const char *desc;
	const char *buf;
	struct nvfab_opt_value v[4];
	int ret;
};

#define V_TCP	{ NVFAB_OPT_TRANSPORT, "tcp" }
#define V_ADDR	{ NVFAB_OPT_TRADDR, "192.0.2.2" }

static const struct values_case values_cases[] = {
	{ "values only", NULL,
	  { V_TCP, V_ADDR, { NVFAB_OPT_NQN, "nqn.2014-08.org.example:s1" } } },
	{ "a value holds ',' and '='", NULL,
	  { V_TCP, V_ADDR, { NVFAB_OPT_NQN,
	    "nqn.2014-08.org.example:s1,duplicate_connect,nr_write_queues=4096" } } },
	{ "string and values", "queue_size=32",
	  { V_TCP, V_ADDR, { NVFAB_OPT_NQN, "nqn.2014-08.org.example:s1" } } },
	{ "a key in the string and a value", "traddr=192.0.2.3",
	  { V_TCP, V_ADDR, { NVFAB_OPT_NQN, "nqn.2014-08.org.example:s1" } },
	  -EINVAL },
	{ "a key twice in the values", NULL,
	  { V_TCP, V_ADDR, V_ADDR }, -EINVAL },
	{ "a value for a flag", NULL,
	  { V_TCP, { NVFAB_OPT_DUP_CONNECT, "1" } }, -EINVAL },
	{ "no value for a string", NULL,
	  { V_TCP, { NVFAB_OPT_NQN, NULL } }, -EINVAL },
	{ "an empty value", NULL,
	  { V_TCP, { NVFAB_OPT_NQN, "" } }, -EINVAL },
	{ "a number with more after it", NULL,
	  { V_TCP, { NVFAB_OPT_KATO, "5,ctrl_loss_tmo=-1" } }, -EINVAL },
	{ "a number", NULL, { V_TCP, { NVFAB_OPT_KATO, "7" } } },
	{ "a control character", NULL,
	  { V_TCP, { NVFAB_OPT_NQN, "nqn.2014-08.org.example:s\n" } },
	  -EINVAL },
	{ "no such token", NULL, { V_TCP, { BIT(6), "x" } }, -EINVAL },
	{ "a bad transport name", NULL,
	  { { NVFAB_OPT_TRANSPORT, "tcp,x" } }, -EINVAL },
};

static void values_case_desc(const struct values_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(values, values_cases, values_case_desc);

static void nvfab_opts_values_test(struct kunit *test)
{
	const struct values_case *c = test->param_value;
	struct nvfab_ctrl_options *opts = test_opts(test);
	unsigned int n, i;

	for (n = 0; n < ARRAY_SIZE(c->v) && c->v[n].token; n++)
		;
	KUNIT_ASSERT_EQ(test, nvfab_build_options(opts, c->buf, c->v, n),
			c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_NOT_NULL(test, opts->host);
	KUNIT_EXPECT_FALSE(test, opts->duplicate_connect);
	KUNIT_EXPECT_EQ(test, opts->nr_write_queues, 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE(test, opts->mask & c->v[i].token);
		if (c->v[i].token == NVFAB_OPT_NQN)
			KUNIT_EXPECT_STREQ(test, opts->subsysnqn, c->v[i].str);
		if (c->v[i].token == NVFAB_OPT_KATO)
			KUNIT_EXPECT_EQ(test, opts->kato, 7);
	}
}

/*
 * nvfab_opts_same_path(): an existing controller's options (B plus a) and
 * a new request's (B plus b); the default port is TCP's 4420.
 */
struct same_path_case {
	const char *a, *b;
	bool same;
};

static const struct same_path_case same_path_cases[] = {
	{ "", "", true },
	{ ",trsvcid=4420", "", true },		/* the default port, spelled out */
	{ "", ",trsvcid=4420", true },
	{ ",trsvcid=4421", "", false },
	{ ",trsvcid=4421", ",trsvcid=4421", true },
	/* one target address over two host NICs: two paths */
	{ ",host_traddr=192.0.2.1", ",host_traddr=198.51.100.1", false },
	{ ",host_traddr=192.0.2.1", ",host_traddr=192.0.2.1", true },
	{ ",host_traddr=192.0.2.1", "", false },
	{ "", ",host_traddr=192.0.2.1", false },
	{ ",host_iface=eth0", ",host_iface=eth1", false },
	{ ",host_iface=eth0", ",host_iface=eth0", true },
	{ ",host_iface=eth0", "", false },
	{ ",host_traddr=192.0.2.1,host_iface=eth0",
	  ",host_traddr=192.0.2.1,host_iface=eth1", false },
	/* other options do not make another path */
	{ ",nr_io_queues=1", ",queue_size=32", true },
	{ ",hostnqn=nqn.2014-08.org.example:hP,hostid=bbbbbbbb-0000-0000-0000-000000000001",
	  ",hostnqn=nqn.2014-08.org.example:hQ,hostid=bbbbbbbb-0000-0000-0000-000000000002",
	  false },
};

static void same_path_case_desc(const struct same_path_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%s' vs '%s'", c->a, c->b);
}

KUNIT_ARRAY_PARAM(same_path, same_path_cases, same_path_case_desc);

static void nvfab_opts_same_path_test(struct kunit *test)
{
	const struct same_path_case *c = test->param_value;
	struct nvfab_ctrl_options *a = test_opts(test), *b = test_opts(test);
	size_t len = sizeof(B) + 128;
	char *req = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, req);
	snprintf(req, len, B "%s", c->a);
	KUNIT_ASSERT_EQ(test, nvfab_parse_options(a, req), 0);
	snprintf(req, len, B "%s", c->b);
	KUNIT_ASSERT_EQ(test, nvfab_parse_options(b, req), 0);
	KUNIT_EXPECT_EQ(test, nvfab_opts_same_path(a, b, "4420"), c->same);
	KUNIT_EXPECT_EQ(test, nvfab_opts_same_path(b, a, "4420"), c->same);
	/* other subsystem or target address: never the same path */
	kfree(b->subsysnqn);
	b->subsysnqn = kstrdup("nqn.2014-08.org.example:s2", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->subsysnqn);
	KUNIT_EXPECT_FALSE(test, nvfab_opts_same_path(a, b, "4420"));
}

/*
 * The grammar's table (include/uapi/nvfab/fabrics-opts.h), which nvfabctl
 * checks against too: each key with the values at its bounds accepted and
 * those just outside refused, so that the kernel and the table cannot
 * drift apart (nvfabctl's tests/opts.sh is the other half).
 */
static const struct nvfab_opt_rule table_keys[] = {
#define NVFAB_OPT(k, kd, lo, hi)	{ k, kd, lo, hi },
#include <uapi/nvfab/fabrics-opts.h>
#undef NVFAB_OPT
};

static void table_key_desc(const struct nvfab_opt_rule *k, char *desc)
{
	strscpy(desc, k->key, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(table, table_keys, table_key_desc);

/*
 * B's transport, traddr and nqn but the one being tested, the companions
 * @k needs (a host identity pairs hostnqn and hostid; a key serial needs
 * tls), then @k's "key" or "key=value".
 */
static const char *table_input(struct kunit *test, const struct nvfab_opt_rule *k,
			       const char *val)
{
	static const char * const base[] = {
		"transport=tcp", "traddr=192.0.2.2",
		"nqn=nqn.2014-08.org.example:s1",
	};
	size_t klen = strlen(k->key), size = NVFAB_OPTS_MAX_LEN + 64;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	size_t len = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(base); i++) {
		if (!strncmp(base[i], k->key, klen) && base[i][klen] == '=')
			continue;
		len += scnprintf(buf + len, size - len, "%s%s",
				 len ? "," : "", base[i]);
	}
	/* a fresh identity per value: a host NQN keeps its ID while in use */
	if (!strcmp(k->key, "hostnqn"))
		len += scnprintf(buf + len, size - len,
				 ",hostid=cccccccc-0000-0000-0000-%012zu",
				 val ? strlen(val) : 0);
	if (!strcmp(k->key, "hostid"))
		len += scnprintf(buf + len, size - len,
				 ",hostnqn=nqn.2014-08.org.example:table");
	if (k->kind == NVFAB_OPTK_SERIAL)
		len += scnprintf(buf + len, size - len, ",tls");
	scnprintf(buf + len, size - len, ",%s%s%s", k->key, val ? "=" : "",
		  val ?: "");
	return buf;
}

/* Parse @k=@val (@val NULL: the key alone) and expect @want. */
static void table_expect(struct kunit *test, const struct nvfab_opt_rule *k,
			 const char *val, int want)
{
	const char *in = table_input(test, k, val);
	struct nvfab_ctrl_options *opts = test_opts(test);

	KUNIT_EXPECT_EQ_MSG(test, nvfab_parse_options(opts, in), want,
			    "%.200s", in);
}

/* A value of @len bytes: 'a's, or a secret's prefix and 'a's. */
static const char *table_str(struct kunit *test, const struct nvfab_opt_rule *k,
			     long long len)
{
	char *s = kunit_kzalloc(test, len + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	memset(s, 'a', len);
	if (k->kind == NVFAB_OPTK_SECRET)
		memcpy(s, "DHHC-1:", min_t(long long, len, 7));
	return s;
}

/* @v in decimal, freed with the test. */
static const char *table_num(struct kunit *test, long long v)
{
	char *s = kunit_kzalloc(test, 24, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	snprintf(s, 24, "%lld", v);
	return s;
}

static void nvfab_opts_table_test(struct kunit *test)
{
	const struct nvfab_opt_rule *k = test->param_value;
	/* what refuses the key's every value where the kernel lacks it */
	int none = 0;

	if (!strcmp(k->key, "tls") || k->kind == NVFAB_OPTK_SERIAL)
		none = NVFAB_HAVE_TLS ? 0 : -EOPNOTSUPP;
	if (k->kind == NVFAB_OPTK_SECRET)
		none = IS_ENABLED(CONFIG_NVME_AUTH) ? 0 : -EOPNOTSUPP;

	switch (k->kind) {
	case NVFAB_OPTK_FLAG:
		table_expect(test, k, NULL, none);
		table_expect(test, k, "1", -EINVAL);
		break;
	case NVFAB_OPTK_INT:
		table_expect(test, k, table_num(test, k->min), 0);
		table_expect(test, k, table_num(test, k->max), 0);
		/* just outside, past the int range too: match_int refuses */
		table_expect(test, k, table_num(test, k->min - 1),
			     -EINVAL);
		table_expect(test, k, table_num(test, k->max + 1),
			     -EINVAL);
		table_expect(test, k, "12a", -EINVAL);
		break;
	case NVFAB_OPTK_SERIAL:
		/* in range: looked up (no such key here), so only below it */
		table_expect(test, k, table_num(test, k->min - 1),
			     none ?: -EINVAL);
		break;
	case NVFAB_OPTK_STR:
		table_expect(test, k, table_str(test, k, k->min), 0);
		table_expect(test, k, table_str(test, k, k->max), 0);
		table_expect(test, k, table_str(test, k, k->max + 1), -EINVAL);
		table_expect(test, k, "", -EINVAL);
		break;
	case NVFAB_OPTK_UUID:
		table_expect(test, k, "bbbbbbbb-0000-0000-0000-000000000001", 0);
		table_expect(test, k, "bbbbbbbb-0000-0000-0000-00000000000", -EINVAL);
		table_expect(test, k, "not-a-uuid", -EINVAL);
		break;
	case NVFAB_OPTK_SECRET:
		table_expect(test, k, table_str(test, k, k->min), none);
		table_expect(test, k, table_str(test, k, k->min - 1),
			     none ?: -EINVAL);
		table_expect(test, k, "DHHC-2:00:aaaa:", none ?: -EINVAL);
		break;
	default:
		KUNIT_FAIL(test, "key %s: unknown kind %d", k->key, k->kind);
	}
}

static struct kunit_case nvfab_opts_test_cases[] = {
	KUNIT_CASE_PARAM(nvfab_opts_parse_test, opts_gen_params),
	KUNIT_CASE(nvfab_opts_host_identity_test),
	KUNIT_CASE_PARAM(nvfab_opts_same_path_test, same_path_gen_params),
	KUNIT_CASE_PARAM(nvfab_opts_values_test, values_gen_params),
	KUNIT_CASE_PARAM(nvfab_opts_table_test, table_gen_params),
#if NVFAB_HAVE_TLS
	KUNIT_CASE(nvfab_opts_tls_keys_test),
#endif
	{}
};

static struct kunit_suite nvfab_opts_test_suite = {
	.name = "nvfab_fabrics_opts",
	.test_cases = nvfab_opts_test_cases,
};

/* ---- transports ---- */

static struct nvfab_ctrl *fake_create_ctrl(struct device *dev,
					   struct nvfab_ctrl_options *opts);

/* Like nvfab-tcp: traddr required, digests allowed. */
static struct nvfab_transport_ops fake_tcp_ops = {
	.name		= "kunitfaketcp",
	.module		= THIS_MODULE,
	.required_opts	= NVFAB_OPT_TRADDR,
	.allowed_opts	= NVFAB_OPT_TRSVCID | NVFAB_OPT_HDR_DIGEST |
			  NVFAB_OPT_DATA_DIGEST | NVFAB_OPT_HOST_TRADDR |
			  NVFAB_OPT_HOST_IFACE | NVFAB_OPT_RECONNECT_DELAY |
			  NVFAB_OPT_CTRL_LOSS_TMO | NVFAB_OPT_TOS |
			  NVFAB_TLS_OPTS,
	.create_ctrl	= fake_create_ctrl,
};

/* Like nvfab-rdma: no digests, no tos. */
static struct nvfab_transport_ops fake_rdma_ops = {
	.name		= "kunitfakerdma",
	.module		= THIS_MODULE,
	.required_opts	= NVFAB_OPT_TRADDR,
	.allowed_opts	= NVFAB_OPT_TRSVCID | NVFAB_OPT_RECONNECT_DELAY |
			  NVFAB_OPT_CTRL_LOSS_TMO,
	.create_ctrl	= fake_create_ctrl,
};

struct transport_case {
	const char *desc;
	const char *input;
	const struct nvfab_transport_ops *ops;
	int ret;
};

static const struct transport_case transport_cases[] = {
	{ "generic: complete", B, NULL, 0 },
	{ "generic: missing transport", "traddr=1,nqn=n", NULL, -EINVAL },
	{ "generic: missing nqn", "transport=tcp,traddr=1", NULL, -EINVAL },
	{ "tcp: complete with digests", B ",hdr_digest,data_digest,tos=4",
	  &fake_tcp_ops, 0 },
	{ "tcp: missing traddr", "transport=tcp,nqn=n", &fake_tcp_ops,
	  -EINVAL },
	{ "rdma: digests refused", B ",hdr_digest", &fake_rdma_ops, -EINVAL },
	{ "rdma: tos refused", B ",tos=4", &fake_rdma_ops, -EINVAL },
	{ "rdma: generic options allowed",
	  B ",queue_size=64,keep_alive_tmo=10,duplicate_connect",
	  &fake_rdma_ops, 0 },
#if NVFAB_HAVE_TLS
	{ "rdma: tls refused", B ",tls", &fake_rdma_ops, -EINVAL },
	{ "tcp: tls allowed", B ",tls", &fake_tcp_ops, 0 },
#endif
};

static void transport_case_desc(const struct transport_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(transport, transport_cases, transport_case_desc);

static void nvfab_transport_opts_test(struct kunit *test)
{
	const struct transport_case *c = test->param_value;
	struct nvfab_ctrl_options *opts;

	opts = test_opts(test);
	KUNIT_ASSERT_EQ(test, nvfab_parse_options(opts, c->input), 0);
	KUNIT_EXPECT_EQ(test, nvfab_check_transport_opts(opts, c->ops), c->ret);
}

/* The fake transport creates a controller that the test then frees. */
static struct nvfab_ctrl fake_ctrl;
static int fake_create_ret;

static struct nvfab_ctrl *fake_create_ctrl(struct device *dev,
					   struct nvfab_ctrl_options *opts)
{
	if (fake_create_ret)
		return ERR_PTR(fake_create_ret);
	fake_ctrl.instance = 7;
	fake_ctrl.cntlid = 0x21;
	fake_ctrl.opts = opts;
	return &fake_ctrl;
}

static void unregister_action(void *ops)
{
	nvfab_unregister_transport(ops);
}

static void register_fake(struct kunit *test, struct nvfab_transport_ops *ops)
{
	int ret;

	KUNIT_ASSERT_EQ(test, nvfab_register_transport(ops), 0);
	ret = kunit_add_action_or_reset(test, unregister_action, ops);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

static void nvfab_transport_registry_test(struct kunit *test)
{
	struct nvfab_transport_ops nameless = {
		.create_ctrl = fake_create_ctrl,
	};

	register_fake(test, &fake_tcp_ops);
	KUNIT_EXPECT_EQ(test, nvfab_register_transport(&fake_tcp_ops), -EBUSY);
	KUNIT_EXPECT_EQ(test, nvfab_register_transport(&nameless), -EINVAL);
}

static void nvfab_create_ctrl_test(struct kunit *test)
{
	struct nvfab_ctrl *ctrl;
	int refs;

	register_fake(test, &fake_tcp_ops);
	refs = module_refcount(THIS_MODULE);

	/* success: the controller owns the options */
	fake_create_ret = 0;
	ctrl = nvfab_create_ctrl(NULL, "transport=kunitfaketcp,traddr=192.0.2.2,nqn=nqn.x:y");
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctrl));
	KUNIT_EXPECT_EQ(test, ctrl->instance, 7);
	KUNIT_EXPECT_STREQ(test, ctrl->opts->traddr, "192.0.2.2");
	/* it comes with its transport module held, for the caller */
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs + 1);
	module_put(THIS_MODULE);
	nvfab_free_options(ctrl->opts);

	/*
	 * the transport's error is passed on, options freed by the core,
	 * the module reference dropped
	 */
	fake_create_ret = -ECONNREFUSED;
	ctrl = nvfab_create_ctrl(NULL, "transport=kunitfaketcp,traddr=192.0.2.2,nqn=nqn.x:y");
	KUNIT_EXPECT_EQ(test, PTR_ERR(ctrl), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs);
	fake_create_ret = 0;

	/* transport-specific checks run before create */
	ctrl = nvfab_create_ctrl(NULL, "transport=kunitfaketcp,nqn=nqn.x:y");
	KUNIT_EXPECT_EQ(test, PTR_ERR(ctrl), -EINVAL);

	/* bad strings never reach the transport */
	ctrl = nvfab_create_ctrl(NULL, "transport=kunitfaketcp,traddr=1,nqn=n,bogus");
	KUNIT_EXPECT_EQ(test, PTR_ERR(ctrl), -EINVAL);

	/* no such transport, even after trying to load nvfab-<name> */
	ctrl = nvfab_create_ctrl(NULL, "transport=kunitnosuch,traddr=1,nqn=n");
	KUNIT_EXPECT_EQ(test, PTR_ERR(ctrl), -EPROTONOSUPPORT);
}

static struct kunit_case nvfab_transport_test_cases[] = {
	KUNIT_CASE_PARAM(nvfab_transport_opts_test, transport_gen_params),
	KUNIT_CASE(nvfab_transport_registry_test),
	KUNIT_CASE(nvfab_create_ctrl_test),
	{}
};

static struct kunit_suite nvfab_transport_test_suite = {
	.name = "nvfab_fabrics_transport",
	.test_cases = nvfab_transport_test_cases,
};

kunit_test_suites(&nvfab_opts_test_suite, &nvfab_transport_test_suite);

MODULE_DESCRIPTION("KUnit tests for the nvfab connect-option grammar");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
NVFAB_IMPORT_KUNIT();
