// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl connect: build a connect option string and hand it to
 * /dev/nvfab-fabrics.
 *
 * The flags are nvme-cli's, and the string is built as libnvme builds it
 * for /dev/nvme-fabrics: "nqn=" first, then transport, traddr,
 * host_traddr, host_iface, trsvcid, hostnqn, hostid, the numbers (the TLS
 * key serials, keyring and tls_key, last) and the flags (tls last), in
 * that order. Only what the user gave is passed, so the kernel's defaults
 * apply to the rest; the exceptions are the host identity, which defaults
 * to /etc/nvme/hostnqn and /etc/nvme/hostid (see nvf_host_identity()), and
 * tls, which --keyring and --tls-key imply.
 *
 * The string goes to the device in one write(2) on a fresh descriptor; the
 * same descriptor then reads back "instance=N,cntlid=M".
 *
 * As nvme-cli does, a connect that would make a controller sysfs already
 * has (nvf_ctrl_matches()) is refused as "already connected" unless
 * -D/--duplicate-connect is given; and nvme-cli's options for what nvfab
 * lacks (a PSK to insert, --concat) are refused as "not supported yet",
 * with their own exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvfabctl.h"
#include "config.h"

/* The longest option string /dev/nvfab-fabrics accepts, in bytes. */
#define NVF_OPTS_MAX		4096
#define NVF_FABRICS_DEV		"/dev/nvfab-fabrics"
#define NVF_DISC_NQN		"nqn.2014-08.org.nvmexpress.discovery"

/* Integer options, in the order their keys go into the option string. */
enum {
	NVF_INT_NR_IO_QUEUES,
	NVF_INT_NR_WRITE_QUEUES,
	NVF_INT_NR_POLL_QUEUES,
	NVF_INT_QUEUE_SIZE,
	NVF_INT_KATO,
	NVF_INT_RECONNECT_DELAY,
	NVF_INT_CTRL_LOSS_TMO,
	NVF_INT_FAST_IO_FAIL_TMO,
	NVF_INT_TOS,
	NVF_INT_KEYRING,
	NVF_INT_TLS_KEY,
	NVF_NR_INT_OPTS,
};

static const struct {
	int		opt;	/* short option, or NVF_OPT_* if long only */
	const char	*name;	/* long option, for messages */
	const char	*key;	/* key in the option string */
	/* parse @s into *@val, reporting errors; NULL: nvf_parse_int() */
	int		(*parse)(const char *name, const char *s, int *val);
} nvf_int_opts[NVF_NR_INT_OPTS] = {
	[NVF_INT_NR_IO_QUEUES]	   = { 'i', "nr-io-queues",	"nr_io_queues" },
	[NVF_INT_NR_WRITE_QUEUES]  = { 'W', "nr-write-queues",	"nr_write_queues" },
	[NVF_INT_NR_POLL_QUEUES]   = { 'P', "nr-poll-queues",	"nr_poll_queues" },
	[NVF_INT_QUEUE_SIZE]	   = { 'Q', "queue-size",	"queue_size" },
	[NVF_INT_KATO]		   = { 'k', "keep-alive-tmo",	"keep_alive_tmo" },
	[NVF_INT_RECONNECT_DELAY]  = { 'c', "reconnect-delay",	"reconnect_delay" },
	[NVF_INT_CTRL_LOSS_TMO]	   = { 'l', "ctrl-loss-tmo",	"ctrl_loss_tmo" },
	[NVF_INT_FAST_IO_FAIL_TMO] = { 'F', "fast_io_fail_tmo",	"fast_io_fail_tmo" },
	[NVF_INT_TOS]		   = { 'T', "tos",		"tos" },
	/* key serials; --keyring also takes a keyring's name (keyring.c) */
	[NVF_INT_KEYRING]	   = { NVF_OPT_KEYRING, "keyring", "keyring",
				       nvf_parse_keyring },
	[NVF_INT_TLS_KEY]	   = { NVF_OPT_TLS_KEY, "tls-key", "tls_key",
				       nvf_parse_serial },
};

/* Flag options, in the order their keys go into the option string. */
enum {
	NVF_FLAG_DUP_CONNECT,
	NVF_FLAG_DISABLE_SQFLOW,
	NVF_FLAG_HDR_DIGEST,
	NVF_FLAG_DATA_DIGEST,
	NVF_FLAG_TLS,
	NVF_NR_FLAG_OPTS,
};

static const struct {
	int		opt;
	const char	*key;
} nvf_flag_opts[NVF_NR_FLAG_OPTS] = {
	[NVF_FLAG_DUP_CONNECT]	  = { 'D', "duplicate_connect" },
	[NVF_FLAG_DISABLE_SQFLOW] = { 'd', "disable_sqflow" },
	[NVF_FLAG_HDR_DIGEST]	  = { 'g', "hdr_digest" },
	[NVF_FLAG_DATA_DIGEST]	  = { 'G', "data_digest" },
	[NVF_FLAG_TLS]		  = { NVF_OPT_TLS, "tls" },
};

/* String options, in the order their keys go into the option string. */
enum {
	NVF_STR_NQN,
	NVF_STR_TRANSPORT,
	NVF_STR_TRADDR,
	NVF_STR_HOST_TRADDR,
	NVF_STR_HOST_IFACE,
	NVF_STR_TRSVCID,
	NVF_STR_HOSTNQN,
	NVF_STR_HOSTID,
	NVF_STR_DHCHAP_SECRET,
	NVF_STR_DHCHAP_CTRL_SECRET,
	NVF_NR_STR_OPTS,
};

static const struct {
	int		opt;
	const char	*name;
	const char	*key;
} nvf_str_opts[NVF_NR_STR_OPTS] = {
	[NVF_STR_NQN]		= { 'n', "nqn",		"nqn" },
	[NVF_STR_TRANSPORT]	= { 't', "transport",	"transport" },
	[NVF_STR_TRADDR]	= { 'a', "traddr",	"traddr" },
	[NVF_STR_HOST_TRADDR]	= { 'w', "host-traddr",	"host_traddr" },
	[NVF_STR_HOST_IFACE]	= { 'f', "host-iface",	"host_iface" },
	[NVF_STR_TRSVCID]	= { 's', "trsvcid",	"trsvcid" },
	[NVF_STR_HOSTNQN]	= { 'q', "hostnqn",	"hostnqn" },
	[NVF_STR_HOSTID]	= { 'I', "hostid",	"hostid" },
	[NVF_STR_DHCHAP_SECRET]	= { 'S', "dhchap-secret", "dhchap_secret" },
	[NVF_STR_DHCHAP_CTRL_SECRET] = { 'C', "dhchap-ctrl-secret",
					 "dhchap_ctrl_secret" },
};

struct nvf_connect_cfg {
	const char	*str[NVF_NR_STR_OPTS];
	char		*host_buf[2];	/* hostnqn, hostid read from files */
	char		*key_buf[2];	/* secrets read from key files */
	char		*addr_buf[2];	/* traddr, host_traddr resolved */
	const char	*int_arg[NVF_NR_INT_OPTS];
	bool		int_set[NVF_NR_INT_OPTS];
	int		int_val[NVF_NR_INT_OPTS];
	bool		flag[NVF_NR_FLAG_OPTS];
	bool		dry_run;
	bool		verbose;
	enum nvf_format	fmt;
};

/*
 * nvme-cli's options for what nvfab does not have yet: refused with their
 * own exit status, NVF_EXIT_UNSUPPORTED, not as unknown options.
 */
static const struct {
	int		opt;
	const char	*name;
	const char	*feature;
} nvf_unsupported_opts[] = {
	{ NVF_OPT_TLS_KEY_IDENTITY, "tls-key-identity",
	  "inserting a TLS PSK into a keyring" },
	{ NVF_OPT_TLS_KEY_LEGACY, "tls_key",
	  "nvme-cli's legacy TLS key option (--tls-key takes the serial)" },
	{ NVF_OPT_CONCAT,	"concat",		"secure channel concatenation (TLS)" },
};

static const char nvf_connect_shortopts[] =
	":t:a:s:w:f:q:I:n:i:W:P:Q:k:c:l:F:T:DdgGo:vhS:C:";

static const struct option nvf_connect_longopts[] = {
	{ "transport",		required_argument,	NULL, 't' },
	{ "traddr",		required_argument,	NULL, 'a' },
	{ "trsvcid",		required_argument,	NULL, 's' },
	{ "host-traddr",	required_argument,	NULL, 'w' },
	{ "host-iface",		required_argument,	NULL, 'f' },
	{ "hostnqn",		required_argument,	NULL, 'q' },
	{ "hostid",		required_argument,	NULL, 'I' },
	{ "nqn",		required_argument,	NULL, 'n' },
	{ "nr-io-queues",	required_argument,	NULL, 'i' },
	{ "nr-write-queues",	required_argument,	NULL, 'W' },
	{ "nr-poll-queues",	required_argument,	NULL, 'P' },
	{ "queue-size",		required_argument,	NULL, 'Q' },
	{ "keep-alive-tmo",	required_argument,	NULL, 'k' },
	{ "reconnect-delay",	required_argument,	NULL, 'c' },
	{ "ctrl-loss-tmo",	required_argument,	NULL, 'l' },
	{ "fast_io_fail_tmo",	required_argument,	NULL, 'F' },
	{ "tos",		required_argument,	NULL, 'T' },
	{ "duplicate-connect",	no_argument,		NULL, 'D' },
	{ "disable-sqflow",	no_argument,		NULL, 'd' },
	{ "hdr-digest",		no_argument,		NULL, 'g' },
	{ "data-digest",	no_argument,		NULL, 'G' },
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "dry-run",		no_argument,		NULL, NVF_OPT_DRY_RUN },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "dhchap-secret",	required_argument,	NULL, 'S' },
	{ "dhchap-ctrl-secret",	required_argument,	NULL, 'C' },
	{ "tls",		no_argument,		NULL, NVF_OPT_TLS },
	{ "tls-key",		required_argument,	NULL, NVF_OPT_TLS_KEY },
	{ "tls-key-identity",	required_argument,	NULL,
	  NVF_OPT_TLS_KEY_IDENTITY },
	{ "tls_key",		required_argument,	NULL,
	  NVF_OPT_TLS_KEY_LEGACY },
	{ "keyring",		required_argument,	NULL, NVF_OPT_KEYRING },
	{ "concat",		no_argument,		NULL, NVF_OPT_CONCAT },
	{ NULL,			0,			NULL, 0 }
};

void nvf_connect_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl connect -t TRANSPORT -a TRADDR [-s TRSVCID] -n NQN [OPTIONS]\n"
		"\n"
		"Connect to an NVMe over Fabrics subsystem through " NVF_FABRICS_DEV ".\n"
		"\n"
		"  -t, --transport=STR         transport type: tcp or rdma\n"
		"  -a, --traddr=STR            target address (IPv4, IPv6 or a host name)\n"
		"  -s, --trsvcid=STR           target port, 1 to 65535\n"
		"  -n, --nqn=STR               subsystem NQN\n"
		"  -w, --host-traddr=STR       host transport address\n"
		"  -f, --host-iface=STR        host interface\n"
		"  -q, --hostnqn=STR           host NQN (default: /etc/nvme/hostnqn)\n"
		"  -I, --hostid=UUID           host ID (default: /etc/nvme/hostid)\n"
		"  -S, --dhchap-secret=STR     DH-HMAC-CHAP secret of the host (DHHC-1)\n"
		"  -C, --dhchap-ctrl-secret=STR  DH-HMAC-CHAP secret of the controller:\n"
		"                              authenticate it too (bidirectional)\n"
		"                              (-S, -C: the secret, or the absolute path\n"
		"                              of a root-owned 0600 file holding it)\n"
		"  -i, --nr-io-queues=NUM      number of I/O queues\n"
		"  -W, --nr-write-queues=NUM   number of write queues\n"
		"  -P, --nr-poll-queues=NUM    number of poll queues\n"
		"  -Q, --queue-size=NUM        I/O queue depth\n"
		"  -k, --keep-alive-tmo=NUM    keep-alive timeout, seconds\n"
		"  -c, --reconnect-delay=NUM   reconnect delay, seconds\n"
		"  -l, --ctrl-loss-tmo=NUM     controller loss timeout, seconds\n"
		"  -F, --fast_io_fail_tmo=NUM  fast I/O fail timeout, seconds\n"
		"  -T, --tos=NUM               IP type of service\n"
		"  -D, --duplicate-connect     connect even if a controller with the same\n"
		"                              transport, addresses, NQN and host exists\n"
		"  -d, --disable-sqflow        disable SQ flow control\n"
		"  -g, --hdr-digest            NVMe/TCP header digest\n"
		"  -G, --data-digest           NVMe/TCP data digest\n"
		"      --tls                   NVMe/TCP TLS 1.3 (PSK) on every queue\n"
		"      --keyring=NAME|SERIAL   keyring of the PSKs (default: .nvme):\n"
		"                              its name (from /proc/keys) or serial;\n"
		"                              implies --tls\n"
		"      --tls-key=SERIAL        the PSK to use, not the one found by\n"
		"                              identity; implies --tls\n"
		"                              (SERIAL: decimal or 0x-prefixed hex)\n"
		"  -o, --output-format=FMT     normal or json\n"
		"      --dry-run               print the option string, do not connect\n"
		"  -v, --verbose               print the option string to stderr\n"
		"  -h, --help                  show this help\n"
		"\n"
		"Not supported yet (exit status %d): --tls-key-identity,\n"
		"--tls_key, --concat.\n",
		NVF_EXIT_UNSUPPORTED);
}

/* A growing string buffer. */
struct nvf_sbuf {
	char	*s;
	size_t	len, cap;
	bool	oom;
};

/* Append @s; on allocation failure, remember it and do nothing more. */
static void nvf_sbuf_add(struct nvf_sbuf *b, const char *s)
{
	size_t n = strlen(s);
	char *p;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		p = realloc(b->s, 2 * (b->len + n + 1));
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = 2 * (b->len + n + 1);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* Append ",key", ",key=value" or, for the first option, "key=value". */
static void nvf_sbuf_opt(struct nvf_sbuf *b, const char *key,
			 const char *val)
{
	if (b->len)
		nvf_sbuf_add(b, ",");
	nvf_sbuf_add(b, key);
	if (val) {
		nvf_sbuf_add(b, "=");
		nvf_sbuf_add(b, val);
	}
}

/*
 * A value goes into a comma-separated string: refuse what would end it
 * early or inject another key (',', newline), other control characters and
 * empty values.
 */
static int nvf_check_value(const char *name, const char *val)
{
	const unsigned char *s;

	if (!*val) {
		nvf_err("empty value for --%s", name);
		return -1;
	}
	for (s = (const unsigned char *)val; *s; s++) {
		if (*s == ',' || *s < 0x20 || *s == 0x7f) {
			nvf_err("invalid --%s: must not contain %s", name,
				*s == ',' ? "','" : "control characters");
			return -1;
		}
	}
	return 0;
}

/*
 * Settle the host identity (host.c's nvf_host_ids(): the flags, else
 * /etc/nvme; a host ID derived and stored for a site-assigned host NQN).
 * The kernel refuses a hostnqn paired with its default hostid and the
 * other way round, so both or neither are passed. Ending with no identity
 * at all, the kernel's random per-load one, is warned about.
 */
static int nvf_host_identity(struct nvf_connect_cfg *cfg)
{
	if (nvf_host_ids(cfg->str[NVF_STR_HOSTNQN], cfg->str[NVF_STR_HOSTID],
			 &cfg->host_buf[0], &cfg->host_buf[1]))
		return -1;
	cfg->str[NVF_STR_HOSTNQN] = cfg->host_buf[0];
	cfg->str[NVF_STR_HOSTID] = cfg->host_buf[1];
	if (!cfg->host_buf[0])
		nvf_warn_no_host_identity();
	return 0;
}

/*
 * @s as it may be shown (--dry-run, -v): the value of each secret replaced
 * by "<hidden>" (values hold no ','). Return: a string to free, or NULL.
 */
char *nvf_shown_options(const char *s)
{
	static const char * const secret_keys[] = {
		"dhchap_secret=", "dhchap_ctrl_secret=",
	};
	struct nvf_sbuf out = { 0 };
	const char *opt = s, *end;
	size_t i, n;

	while (*opt) {
		end = strchr(opt, ',');
		if (!end)
			end = opt + strlen(opt);
		n = end - opt;
		if (out.len)
			nvf_sbuf_add(&out, ",");
		for (i = 0; i < ARRAY_SIZE(secret_keys); i++)
			if (!strncmp(opt, secret_keys[i], strlen(secret_keys[i])))
				break;
		if (i < ARRAY_SIZE(secret_keys)) {
			nvf_sbuf_add(&out, secret_keys[i]);
			nvf_sbuf_add(&out, "<hidden>");
		} else {
			char *one = strndup(opt, n);

			if (!one) {
				free(out.s);
				return NULL;
			}
			nvf_sbuf_add(&out, one);
			free(one);
		}
		opt = *end ? end + 1 : end;
	}
	if (out.oom) {
		free(out.s);
		return NULL;
	}
	return out.s ? out.s : strdup("");
}

/*
 * Replace each DH-HMAC-CHAP secret given as an absolute path by the secret
 * in that key file (keyfile.c). Return: 0 or -1 (reported).
 */
static int nvf_key_files(struct nvf_connect_cfg *cfg)
{
	static const int secrets[] = {
		NVF_STR_DHCHAP_SECRET, NVF_STR_DHCHAP_CTRL_SECRET,
	};
	size_t i;
	int o;

	for (i = 0; i < ARRAY_SIZE(secrets); i++) {
		o = secrets[i];
		if (!cfg->str[o] || cfg->str[o][0] != '/')
			continue;
		cfg->key_buf[i] = nvf_key_file_read(nvf_str_opts[o].name,
						    cfg->str[o]);
		if (!cfg->key_buf[i])
			return -1;
		cfg->str[o] = cfg->key_buf[i];
	}
	return 0;
}

/*
 * Check every value against the kernel's grammar (opts.c) and the integers'
 * ranges, resolving a host name, and report each error found, not only the
 * first. Return: the number of errors.
 */
static int nvf_check_options(struct nvf_connect_cfg *cfg)
{
	static const int addrs[] = { NVF_STR_TRADDR, NVF_STR_HOST_TRADDR };
	const char *transport = cfg->str[NVF_STR_TRANSPORT];
	int (*parse)(const char *name, const char *s, int *val);
	bool skip[NVF_NR_STR_OPTS] = { false };
	int i, o, bad = 0;

	if (!cfg->str[NVF_STR_NQN]) {
		nvf_err("required argument [--nqn | -n] not specified");
		bad++;
	}
	if (!transport) {
		nvf_err("required argument [--transport | -t] not specified");
		bad++;
	} else if (nvf_opt_str(nvf_str_opts[NVF_STR_TRANSPORT].name,
			       "transport", transport) ||
		   nvf_opt_transport(transport)) {
		transport = NULL;
		skip[NVF_STR_TRANSPORT] = true;
		bad++;
	}
	if (!cfg->str[NVF_STR_TRADDR]) {
		nvf_err("required argument [--traddr | -a] not specified%s%s",
			transport ? " for transport " : "",
			transport ? transport : "");
		bad++;
	}
	/* a malformed --hostid is that, not a reason to look for another */
	if (cfg->str[NVF_STR_HOSTID] &&
	    nvf_opt_str(nvf_str_opts[NVF_STR_HOSTID].name, "hostid",
			cfg->str[NVF_STR_HOSTID])) {
		bad++;
		skip[NVF_STR_HOSTNQN] = true;
		skip[NVF_STR_HOSTID] = true;
	}
	if (nvf_key_files(cfg)) {
		/* reported: the file's name, not its content */
		bad++;
		skip[NVF_STR_DHCHAP_SECRET] = true;
		skip[NVF_STR_DHCHAP_CTRL_SECRET] = true;
	}
	for (i = 0; i < NVF_NR_STR_OPTS; i++) {
		/* the host identity's values: once it is settled, below */
		if (!cfg->str[i] || skip[i] || i == NVF_STR_HOSTNQN ||
		    i == NVF_STR_HOSTID)
			continue;
		skip[i] = nvf_check_value(nvf_str_opts[i].name, cfg->str[i]) ||
			  nvf_opt_str(nvf_str_opts[i].name, nvf_str_opts[i].key,
				      cfg->str[i]);
		bad += skip[i];
	}
	for (i = 0; i < (int)ARRAY_SIZE(addrs); i++) {
		o = addrs[i];
		if (!cfg->str[o] || skip[o])
			continue;
		if (nvf_opt_addr(nvf_str_opts[o].name, transport, cfg->str[o],
				 &cfg->addr_buf[i]))
			bad++;
		else if (cfg->addr_buf[i])
			cfg->str[o] = cfg->addr_buf[i];
	}
	if (cfg->str[NVF_STR_TRSVCID] && !skip[NVF_STR_TRSVCID] &&
	    nvf_opt_port(nvf_str_opts[NVF_STR_TRSVCID].name, transport,
			 cfg->str[NVF_STR_TRSVCID]))
		bad++;
	for (i = 0; i < NVF_NR_INT_OPTS; i++) {
		if (!cfg->int_set[i])
			continue;
		parse = nvf_int_opts[i].parse;
		if (parse ? parse(nvf_int_opts[i].name, cfg->int_arg[i],
				  &cfg->int_val[i]) :
			    nvf_opt_int(nvf_int_opts[i].name, nvf_int_opts[i].key,
					cfg->int_arg[i], &cfg->int_val[i]))
			bad++;
	}
	/* A key to use means TLS; the kernel refuses one without it. */
	if (cfg->int_set[NVF_INT_KEYRING] || cfg->int_set[NVF_INT_TLS_KEY])
		cfg->flag[NVF_FLAG_TLS] = true;
	if (cfg->flag[NVF_FLAG_TLS] && transport && strcmp(transport, "tcp")) {
		nvf_err("TLS (--tls, --keyring, --tls-key) is for transport tcp only, not %s",
			transport);
		bad++;
	}
	/*
	 * The host identity last: a host ID derived for a site host NQN is
	 * stored only by a connect whose other values are good.
	 */
	if (skip[NVF_STR_HOSTID])
		return bad;
	if (bad)
		nvf_host_no_store();
	if (nvf_host_identity(cfg))
		return bad + 1;
	for (i = NVF_STR_HOSTNQN; i <= NVF_STR_HOSTID; i++) {
		/* one error per value: the first thing wrong with it */
		if (cfg->str[i] &&
		    (nvf_check_value(nvf_str_opts[i].name, cfg->str[i]) ||
		     nvf_opt_str(nvf_str_opts[i].name, nvf_str_opts[i].key,
				 cfg->str[i])))
			bad++;
	}
	return bad;
}

/* Check the options and build the string. Return: 0 or -1 (reported). */
static int nvf_build_options(struct nvf_connect_cfg *cfg, struct nvf_sbuf *b)
{
	char num[16];
	int i;

	if (nvf_check_options(cfg))
		return -1;
	for (i = 0; i < NVF_NR_STR_OPTS; i++) {
		if (cfg->str[i])
			nvf_sbuf_opt(b, nvf_str_opts[i].key, cfg->str[i]);
	}
	for (i = 0; i < NVF_NR_INT_OPTS; i++) {
		if (cfg->int_set[i]) {
			snprintf(num, sizeof(num), "%d", cfg->int_val[i]);
			nvf_sbuf_opt(b, nvf_int_opts[i].key, num);
		}
	}
	for (i = 0; i < NVF_NR_FLAG_OPTS; i++) {
		if (cfg->flag[i])
			nvf_sbuf_opt(b, nvf_flag_opts[i].key, NULL);
	}
	if (b->oom) {
		nvf_err("out of memory");
		return -1;
	}
	if (b->len > NVF_OPTS_MAX) {
		nvf_err("option string is %zu bytes, the limit is %d",
			b->len, NVF_OPTS_MAX);
		return -1;
	}
	return 0;
}

/*
 * Store option @c with argument @arg. Return: 0, NVF_EXIT_UNSUPPORTED for
 * a feature nvfab lacks, NVF_EXIT_FAIL for a bad value or an option that
 * is none of ours (both reported).
 */
static int nvf_connect_opt(struct nvf_connect_cfg *cfg, int c,
			   const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nvf_unsupported_opts); i++) {
		if (nvf_unsupported_opts[i].opt == c) {
			nvf_err("%s is not supported yet by nvfab (--%s)",
				nvf_unsupported_opts[i].feature,
				nvf_unsupported_opts[i].name);
			return NVF_EXIT_UNSUPPORTED;
		}
	}
	for (i = 0; i < NVF_NR_STR_OPTS; i++) {
		if (nvf_str_opts[i].opt == c) {
			cfg->str[i] = arg;
			return 0;
		}
	}
	for (i = 0; i < NVF_NR_INT_OPTS; i++) {
		if (nvf_int_opts[i].opt == c) {
			cfg->int_set[i] = true;
			cfg->int_arg[i] = arg;	/* checked with the rest */
			return 0;
		}
	}
	for (i = 0; i < NVF_NR_FLAG_OPTS; i++) {
		if (nvf_flag_opts[i].opt == c) {
			cfg->flag[i] = true;
			return 0;
		}
	}
	return NVF_EXIT_FAIL;
}

/* The value of @key in a controller's "k=v,k=v" address; NULL if none. */
static char *nvf_addr_get(const char *addr, const char *key)
{
	size_t klen = strlen(key), len;
	const char *p = addr;

	while (p && *p) {
		len = strcspn(p, ",");
		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return strndup(p + klen + 1, len - klen - 1);
		p = p[len] ? p + len + 1 : NULL;
	}
	return NULL;
}

/* @a and @b equal, both NULL counting as equal. */
static bool nvf_same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * The trsvcid the kernel fills in when none is given (as nvme-cli reckons
 * it), or NULL when it does not know one for the transport.
 */
static const char *nvf_default_trsvcid(const struct nvf_connect_cfg *cfg)
{
	const char *t = cfg->str[NVF_STR_TRANSPORT];
	bool disc = !strcmp(cfg->str[NVF_STR_NQN], NVF_DISC_NQN);

	if (!strcmp(t, "tcp"))
		return disc ? "8009" : "4420";
	if (!strcmp(t, "rdma"))
		return "4420";
	return NULL;
}

/*
 * Is controller @ctrl the one @cfg would make: the same transport,
 * traddr, trsvcid, host_traddr, host_iface, subsystem NQN and host NQN,
 * and not being deleted? Without a host NQN of ours (the kernel's default
 * identity, unknown here) any host NQN matches; so does any trsvcid when
 * we give none and know no default.
 */
static bool nvf_ctrl_matches(const struct nvf_connect_cfg *cfg,
			     const struct nvf_ctrl *ctrl)
{
	static const char * const addr_keys[] = {
		"traddr", "trsvcid", "host_traddr", "host_iface",
	};
	const char *want[ARRAY_SIZE(addr_keys)] = {
		cfg->str[NVF_STR_TRADDR],
		cfg->str[NVF_STR_TRSVCID] ? cfg->str[NVF_STR_TRSVCID] :
					     nvf_default_trsvcid(cfg),
		cfg->str[NVF_STR_HOST_TRADDR],
		cfg->str[NVF_STR_HOST_IFACE],
	};
	char *transport, *nqn, *hostnqn, *state, *addr, *val;
	bool match;
	size_t i;

	transport = nvf_attr_read(ctrl->path, "transport");
	nqn = nvf_attr_read(ctrl->path, "subsysnqn");
	hostnqn = nvf_attr_read(ctrl->path, "hostnqn");
	state = nvf_attr_read(ctrl->path, "state");
	addr = nvf_attr_read(ctrl->path, "address");
	match = transport && nqn && addr &&
		!strcmp(transport, cfg->str[NVF_STR_TRANSPORT]) &&
		!strcmp(nqn, cfg->str[NVF_STR_NQN]) &&
		(!cfg->str[NVF_STR_HOSTNQN] ||
		 nvf_same(hostnqn, cfg->str[NVF_STR_HOSTNQN])) &&
		!(state && (!strncmp(state, "deleting", 8) ||
			    !strcmp(state, "dead")));
	for (i = 0; match && i < ARRAY_SIZE(addr_keys); i++) {
		if (i == 1 && !want[i])
			continue;
		val = nvf_addr_get(addr, addr_keys[i]);
		match = nvf_same(val, want[i]);
		free(val);
	}
	free(transport);
	free(nqn);
	free(hostnqn);
	free(state);
	free(addr);
	return match;
}

/*
 * Refuse a duplicate connect, as nvme-cli does, when a controller in
 * sysfs already is what @cfg would make. Return: true after reporting it
 * (or a sysfs error).
 */
static bool nvf_already_connected(const struct nvf_connect_cfg *cfg)
{
	struct nvf_ctrl *ctrls;
	size_t i, nr;
	bool found = false;

	if (nvf_ctrl_scan(&ctrls, &nr))
		return true;
	for (i = 0; i < nr && !found; i++) {
		if (nvf_ctrl_matches(cfg, &ctrls[i])) {
			nvf_err("already connected: %s (--duplicate-connect to connect again)",
				ctrls[i].name);
			found = true;
		}
	}
	nvf_ctrl_free(ctrls, nr);
	return found;
}

/* Why a write to the fabrics device failed, beyond strerror(): " (...)". */
static void nvf_write_hint(int err, const char *transport, char *buf,
			   size_t size)
{
	switch (err) {
	case EPROTONOSUPPORT:
		snprintf(buf, size, " (no transport module nvfab-%s loaded)",
			 transport);
		break;
	case EINVAL:
		snprintf(buf, size, " (invalid option, see dmesg)");
		break;
	case EOPNOTSUPP:
		snprintf(buf, size, " (option not supported by nvfab, see dmesg)");
		break;
	default:
		buf[0] = '\0';
	}
}

/* One instance=N,cntlid=M reply; -1 if either is missing or malformed. */
static int nvf_parse_reply(char *buf, int *instance, int *cntlid)
{
	bool have_instance = false, have_cntlid = false;
	char *p, *tok, *end;
	long v;

	for (p = buf; (tok = strsep(&p, ",\n"));) {
		int *dst;

		if (!strncmp(tok, "instance=", 9)) {
			dst = instance;
			have_instance = true;
			tok += 9;
		} else if (!strncmp(tok, "cntlid=", 7)) {
			dst = cntlid;
			have_cntlid = true;
			tok += 7;
		} else {
			continue;
		}
		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || end == tok || *end || v < 0 || v > 0xffff)
			return -1;
		*dst = (int)v;
	}
	return have_instance && have_cntlid ? 0 : -1;
}

/*
 * Connect: one write of @opts, then read back the new controller.
 * @transport names the module in a hint. A refused write is reported with
 * what nvfab's modules logged about it (kmsg.c), which names the option.
 * Return: 0 with *@instance and *@cntlid set, or a negative errno, each
 * reported: the open's or the write's (-EOPNOTSUPP: the kernel refused a
 * feature it lacks; -EINVAL: an option; -ECONNREFUSED, -ETIMEDOUT, ...:
 * the target), -EIO for a short write, -EPROTO for a reply that does not
 * parse.
 */
int nvf_connect_write(const char *transport, const char *opts, int *instance,
		      int *cntlid)
{
	const char *dev = getenv("NVFAB_FABRICS_DEV");
	char reply[NVF_OPTS_MAX], shown[65], hint[96], *said;
	struct nvf_waitnote *note;
	int fd, kfd, err;
	size_t len = strlen(opts), total = 0;
	ssize_t ret;

	if (!dev || !*dev)
		dev = NVF_FABRICS_DEV;
	nvf_warn_kernel_host(opts);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		nvf_err("cannot open %s: %s%s", dev, strerror(err),
			err == ENOENT ? " (is module nvfab-fabrics loaded?)" :
			err == EACCES || err == EPERM ? " (are you root?)" : "");
		return -err;
	}

	kfd = nvf_kmsg_mark();
	note = nvf_waitnote_start(opts);
	ret = write(fd, opts, len);
	err = errno;
	nvf_waitnote_stop(note);
	if (ret < 0) {
		said = nvf_kmsg_since(kfd, opts);
		nvf_write_hint(err, transport, hint, sizeof(hint));
		if (said && err != EPROTONOSUPPORT)
			nvf_err("failed to write to %s: %s (kernel: %s)", dev,
				strerror(err), said);
		else
			nvf_err("failed to write to %s: %s%s", dev,
				strerror(err), hint);
		free(said);
		close(fd);
		return -err;
	}
	if (kfd >= 0)
		close(kfd);
	if ((size_t)ret != len) {
		nvf_err("short write to %s: %zd of %zu bytes", dev, ret, len);
		err = EIO;
		goto out_close;
	}

	while (total < sizeof(reply) - 1) {
		ret = read(fd, reply + total, sizeof(reply) - 1 - total);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			break;
		total += ret;
	}
	if (ret < 0) {
		err = errno;
		nvf_err("cannot read the reply from %s: %s", dev,
			strerror(err));
		goto out_close;
	}
	reply[total] = '\0';
	snprintf(shown, sizeof(shown), "%.64s", reply);
	nvf_sanitize(shown);
	if (nvf_parse_reply(reply, instance, cntlid)) {
		nvf_err("cannot parse the reply from %s: '%s' (expected instance=N,cntlid=M)",
			dev, shown);
		err = EPROTO;
		goto out_close;
	}
	close(fd);
	return 0;

out_close:
	close(fd);
	return -err;
}

/* Print the new controller in the format of @cfg. */
static void nvf_connect_print(const struct nvf_connect_cfg *cfg, int instance,
			      int cntlid)
{
	if (cfg->fmt == NVF_FMT_JSON) {
		struct nvf_json j;
		char name[32];

		snprintf(name, sizeof(name), "nvfab%d", instance);
		nvf_json_init(&j, stdout);
		nvf_json_begin(&j, NULL, '{');
		nvf_json_str(&j, "device", name);
		nvf_json_int(&j, "cntlid", cntlid);
		nvf_json_end(&j, '}');
	} else {
		printf("nvfab%d\n", instance);
	}
}

int nvf_connect(int argc, char **argv)
{
	struct nvf_connect_cfg cfg = { .fmt = NVF_FMT_NORMAL };
	struct nvf_sbuf b = { 0 };
	int c, instance, cntlid, err, ret = NVF_EXIT_FAIL;
	char *shown = NULL;

	while ((c = nvf_getopt(argc, argv, nvf_connect_shortopts,
			       nvf_connect_longopts)) != -1) {
		switch (c) {
		case 'h':
			nvf_connect_usage(stdout);
			return NVF_EXIT_OK;
		case 'o':
			if (nvf_parse_format(optarg, &cfg.fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case NVF_OPT_DRY_RUN:
			cfg.dry_run = true;
			nvf_host_no_store();
			break;
		case '?':
			return NVF_EXIT_FAIL;
		default:
			ret = nvf_connect_opt(&cfg, c, optarg);
			if (ret)
				return ret;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;

	ret = NVF_EXIT_FAIL;
	if (nvf_build_options(&cfg, &b))
		goto out_free;
	if (!cfg.flag[NVF_FLAG_DUP_CONNECT] && nvf_already_connected(&cfg))
		goto out_free;
	if (cfg.dry_run || cfg.verbose) {
		shown = nvf_shown_options(b.s);
		if (!shown) {
			nvf_err("out of memory");
			goto out_free;
		}
	}
	if (cfg.dry_run) {
		printf("%s\n", shown);
		ret = NVF_EXIT_OK;
		goto out_free;
	}
	if (cfg.verbose)
		fprintf(stderr, "nvfabctl: connect: options: %s\n", shown);
	err = nvf_connect_write(cfg.str[NVF_STR_TRANSPORT], b.s, &instance,
				&cntlid);
	if (!err) {
		nvf_connect_print(&cfg, instance, cntlid);
		ret = NVF_EXIT_OK;
	} else if (err == -EOPNOTSUPP) {
		ret = NVF_EXIT_UNSUPPORTED;
	}
out_free:
	free(shown);
	free(b.s);
	free(cfg.host_buf[0]);
	free(cfg.host_buf[1]);
	free(cfg.addr_buf[0]);
	free(cfg.addr_buf[1]);
	nvf_key_free(cfg.key_buf[0]);
	nvf_key_free(cfg.key_buf[1]);
	return ret;
}

/*
 * The option string "nvfabctl connect @argv" would write, for the
 * configuration file (config.c): the same options, parsed and checked by
 * the same code, with the same errors. @argv[0] is a name and is not
 * parsed. The options that only shape this tool's own output (-o, -v,
 * --dry-run, -h) are refused. Return: the string, malloc'ed, or NULL
 * after reporting the error.
 */
char *nvf_connect_string(int argc, char **argv)
{
	struct nvf_connect_cfg cfg = { .fmt = NVF_FMT_NORMAL };
	struct nvf_sbuf b = { 0 };
	char *ret = NULL;
	int c;

	optind = 0;
	while ((c = nvf_getopt(argc, argv, nvf_connect_shortopts,
			       nvf_connect_longopts)) != -1) {
		switch (c) {
		case '?':
			goto out_free;
		case 'h':
		case 'o':
		case 'v':
		case NVF_OPT_DRY_RUN:
			nvf_err("option '%s' is for the command line only",
				c == 'h' ? "-h/--help" :
				c == 'o' ? "-o/--output-format" :
				c == 'v' ? "-v/--verbose" : "--dry-run");
			goto out_free;
		default:
			if (nvf_connect_opt(&cfg, c, optarg))
				goto out_free;
		}
	}
	if (!nvf_no_operands(argc, argv) && !nvf_build_options(&cfg, &b)) {
		ret = b.s;
		b.s = NULL;
	}
out_free:
	free(b.s);
	free(cfg.host_buf[0]);
	free(cfg.host_buf[1]);
	free(cfg.addr_buf[0]);
	free(cfg.addr_buf[1]);
	nvf_key_free(cfg.key_buf[0]);
	nvf_key_free(cfg.key_buf[1]);
	return ret;
}
