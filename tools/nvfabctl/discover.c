// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl discover and connect-all: ask a discovery controller for its
 * Discovery Log Page; print it (discover) or connect every NVM subsystem
 * it lists (connect-all), following referrals.
 *
 * The flags are nvme-cli's. The discovery controller is created through
 * /dev/nvfab-fabrics with the option string "nvfabctl connect" would
 * write (built by connect.c from an argument vector made here), its log
 * is read through NVME_IOCTL_ADMIN_CMD on /dev/nvfabN (dlp.c), and it is
 * deleted again unless -p/--persistent is given. As nvme-cli does, a live
 * controller to the same discovery endpoint is used instead of making a
 * second one, and left alone. -d/--device names one to use.
 *
 * connect-all connects each NVM subsystem entry with the I/O options of
 * the command line (those of "nvfabctl connect"), skipping the ones a
 * controller serves already (unless -D), and reports each entry on one
 * line. Referral entries are followed to further discovery controllers,
 * each endpoint once, three levels deep at most.
 *
 * With neither -t/--transport nor -a/--traddr (nor -d, nor --log-file),
 * both verbs read nvme-cli's /etc/nvme/discovery.conf (discovery.conf in
 * $NVFAB_ETC_NVME): one discovery controller per line, given with these
 * flags, '#' starting a comment line; the command line's flags are the
 * defaults of every line.
 *
 * --log-file FILE decodes a page saved with -r/--raw instead of asking a
 * controller (connect-all then cannot follow referrals).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvfabctl.h"
#include "config.h"
#include "dlp.h"

#define NVF_REFERRAL_DEPTH	3
#define NVF_DISC_CONF		"discovery.conf"
#define NVF_DISC_CONF_LINE_MAX	4096

/* Long-only options of these verbs. */
enum {
	NVF_OPT_DISABLE_SQFLOW = NVF_OPT_CONCAT + 1,
	NVF_OPT_LOG_FILE,
	NVF_OPT_QUIET,
	NVF_OPT_NO_REUSE,
};

/*
 * The options passed on to "connect", by its short option: 'd' is its
 * --disable-sqflow (here -d is --device). The discovery controller gets
 * NVF_DC_OPTS, each I/O controller NVF_IO_OPTS; NVF_FLAG_OPTS take no
 * value. The host's DH-HMAC-CHAP secret (-S) is the host's, for every
 * controller, as nvme-cli's connect-all uses it; the controller's (-C)
 * is the discovery controller's only: each subsystem has its own.
 */
#define NVF_DC_OPTS		"wfqISCkclFT"
#define NVF_IO_OPTS		"wfqISiWPQkclFTgGDd"
#define NVF_FLAG_OPTS		"gGDd"
#define NVF_INT_OPTS		"kclFTiWPQ"

/*
 * connect's long-only options passed on: NVMe/TCP TLS. --tls and
 * --keyring (the host's keyring) go to every controller; --tls-key, the
 * PSK of one host and subsystem, to the discovery controller only, as -C:
 * it still means TLS for the I/O controllers (it implies --tls), and they
 * find their PSKs by identity. The values are checked when parsed, and
 * the serials computed then (a keyring's name looked up in /proc/keys)
 * are what is passed on.
 */
enum {
	NVF_LONG_TLS,
	NVF_LONG_KEYRING,
	NVF_LONG_TLS_KEY,
	NVF_NR_LONG_OPTS,
};

static const struct {
	int		opt;	/* the NVF_OPT_* code */
	const char	*name;	/* connect's long option */
	bool		io;	/* for the I/O controllers too */
	/* parse @s into *@val, reporting errors; NULL: a flag */
	int		(*parse)(const char *name, const char *s, int *val);
} nvf_long_opts[NVF_NR_LONG_OPTS] = {
	[NVF_LONG_TLS]		= { NVF_OPT_TLS,	"tls",		true,
				    NULL },
	[NVF_LONG_KEYRING]	= { NVF_OPT_KEYRING,	"keyring",	true,
				    nvf_parse_keyring },
	[NVF_LONG_TLS_KEY]	= { NVF_OPT_TLS_KEY,	"tls-key",	false,
				    nvf_parse_serial },
};

/* Room for a key serial in decimal. */
#define NVF_LONG_VAL_SIZE	12

struct nvf_disc_cfg {
	const char	*val[128];	/* by connect's short option */
	bool		long_set[NVF_NR_LONG_OPTS];	/* by nvf_long_opts */
	char		long_val[NVF_NR_LONG_OPTS][NVF_LONG_VAL_SIZE];
	const char	*transport;
	const char	*traddr;
	const char	*trsvcid;
	const char	*nqn;		/* of the discovery subsystem */
	const char	*device;
	const char	*raw;
	const char	*log_file;
	bool		persistent;
	bool		no_reuse;
	bool		dry_run;
	bool		quiet;
	bool		verbose;
	bool		connect_all;
	enum nvf_format	fmt;
};

/* A discovery endpoint, for the referrals already followed. */
struct nvf_ep {
	unsigned int	trtype;
	char		traddr[NVF_TRADDR_SIZE + 1];
	char		trsvcid[NVF_TRSVCID_SIZE + 1];
};

struct nvf_disc_run {
	struct nvf_json	j;
	struct nvf_ep	*seen;
	size_t		nr_seen;
	int		failed;
};

static const char nvf_disc_shortopts[] =
	":t:a:s:w:f:q:I:n:d:r:k:c:l:F:T:i:W:P:Q:DgGp::o:vhS:C:";

static const struct option nvf_disc_longopts[] = {
	{ "transport",		required_argument,	NULL, 't' },
	{ "traddr",		required_argument,	NULL, 'a' },
	{ "trsvcid",		required_argument,	NULL, 's' },
	{ "host-traddr",	required_argument,	NULL, 'w' },
	{ "host-iface",		required_argument,	NULL, 'f' },
	{ "hostnqn",		required_argument,	NULL, 'q' },
	{ "hostid",		required_argument,	NULL, 'I' },
	{ "nqn",		required_argument,	NULL, 'n' },
	{ "device",		required_argument,	NULL, 'd' },
	{ "raw",		required_argument,	NULL, 'r' },
	{ "keep-alive-tmo",	required_argument,	NULL, 'k' },
	{ "reconnect-delay",	required_argument,	NULL, 'c' },
	{ "ctrl-loss-tmo",	required_argument,	NULL, 'l' },
	{ "fast_io_fail_tmo",	required_argument,	NULL, 'F' },
	{ "fast-io-fail-tmo",	required_argument,	NULL, 'F' },
	{ "tos",		required_argument,	NULL, 'T' },
	{ "nr-io-queues",	required_argument,	NULL, 'i' },
	{ "nr-write-queues",	required_argument,	NULL, 'W' },
	{ "nr-poll-queues",	required_argument,	NULL, 'P' },
	{ "queue-size",		required_argument,	NULL, 'Q' },
	{ "duplicate-connect",	no_argument,		NULL, 'D' },
	{ "disable-sqflow",	no_argument,		NULL,
	  NVF_OPT_DISABLE_SQFLOW },
	{ "hdr-digest",		no_argument,		NULL, 'g' },
	{ "data-digest",	no_argument,		NULL, 'G' },
	{ "persistent",		optional_argument,	NULL, 'p' },
	{ "no-reuse",		no_argument,		NULL, NVF_OPT_NO_REUSE },
	{ "force",		no_argument,		NULL, NVF_OPT_NO_REUSE },
	{ "quiet",		no_argument,		NULL, NVF_OPT_QUIET },
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "log-file",		required_argument,	NULL, NVF_OPT_LOG_FILE },
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

static void nvf_disc_usage_opts(FILE *f)
{
	fprintf(f,
		"  -t, --transport=STR         transport type: tcp or rdma\n"
		"  -a, --traddr=STR            discovery controller address\n"
		"  -s, --trsvcid=STR           its service id (default 8009 for tcp)\n"
		"  -n, --nqn=STR               discovery subsystem NQN\n"
		"                              (default " NVF_DISC_NQN ")\n"
		"  -w, --host-traddr=STR       host transport address\n"
		"  -f, --host-iface=STR        host interface\n"
		"  -q, --hostnqn=STR           host NQN (default: /etc/nvme/hostnqn)\n"
		"  -I, --hostid=UUID           host ID (default: /etc/nvme/hostid)\n"
		"  -d, --device=DEV            use discovery controller nvfabN\n"
		"  -p, --persistent            keep the discovery controller\n"
		"      --no-reuse              make a discovery controller even if one\n"
		"                              to the endpoint exists\n"
		"      --force                 the same as --no-reuse\n"
		"  -k, --keep-alive-tmo=NUM    keep-alive timeout, seconds\n"
		"  -c, --reconnect-delay=NUM   reconnect delay, seconds\n"
		"  -l, --ctrl-loss-tmo=NUM     controller loss timeout, seconds\n"
		"  -F, --fast_io_fail_tmo=NUM  fast I/O fail timeout, seconds\n"
		"  -T, --tos=NUM               IP type of service\n"
		"  -i, --nr-io-queues=NUM      I/O controllers: number of I/O queues\n"
		"  -W, --nr-write-queues=NUM   I/O controllers: write queues\n"
		"  -P, --nr-poll-queues=NUM    I/O controllers: poll queues\n"
		"  -Q, --queue-size=NUM        I/O controllers: queue depth\n"
		"  -D, --duplicate-connect     I/O controllers: connect even if connected\n"
		"      --disable-sqflow        I/O controllers: disable SQ flow control\n"
		"  -g, --hdr-digest            I/O controllers: NVMe/TCP header digest\n"
		"  -G, --data-digest           I/O controllers: NVMe/TCP data digest\n"
		"  -S, --dhchap-secret=STR     DH-HMAC-CHAP secret of the host (DHHC-1),\n"
		"                              for the discovery and I/O controllers\n"
		"  -C, --dhchap-ctrl-secret=STR  DH-HMAC-CHAP secret of the discovery\n"
		"                              controller (bidirectional authentication)\n"
		"                              (-S, -C: the secret, or the absolute path\n"
		"                              of a root-owned 0600 file holding it)\n"
		"      --tls                   NVMe/TCP TLS 1.3 (PSK), for the discovery\n"
		"                              and I/O controllers\n"
		"      --keyring=NAME|SERIAL   keyring of the PSKs (default: .nvme), for\n"
		"                              all controllers; implies --tls\n"
		"      --tls-key=SERIAL        the discovery controller's PSK (the I/O\n"
		"                              controllers find theirs by identity);\n"
		"                              implies --tls\n"
		"  -r, --raw=FILE              save the raw log page to FILE\n"
		"      --log-file=FILE         decode a saved log page, ask no controller\n"
		"  -o, --output-format=FMT     normal or json\n"
		"      --quiet                 connect-all: no lines for connected ones\n"
		"      --dry-run               print the option strings, connect nothing\n"
		"  -v, --verbose               print the option strings to stderr\n"
		"  -h, --help                  show this help\n"
		"\n"
		"Without -t and -a, each line of /etc/nvme/discovery.conf gives one\n"
		"discovery controller with these flags ('#': comment line).\n"
		"\n"
		"Not supported yet (exit status %d): --tls-key-identity,\n"
		"--tls_key, --concat.\n",
		NVF_EXIT_UNSUPPORTED);
}

void nvf_discover_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl discover [-t TRANSPORT -a TRADDR [-s TRSVCID]] [OPTIONS]\n"
		"\n"
		"Print the Discovery Log Page of a discovery controller.\n"
		"\n");
	nvf_disc_usage_opts(f);
}

void nvf_connect_all_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl connect-all [-t TRANSPORT -a TRADDR [-s TRSVCID]] [OPTIONS]\n"
		"\n"
		"Connect every NVM subsystem a discovery controller lists, following\n"
		"referrals; one line per entry: STATUS DEVICE SUBNQN TRTYPE TRADDR TRSVCID.\n"
		"\n");
	nvf_disc_usage_opts(f);
}

/* Refuse option @c, an nvme-cli option for what nvfab does not have yet. */
static int nvf_disc_unsupported(int c)
{
	const struct option *o;

	for (o = nvf_disc_longopts; o->val != c; o++)
		;
	nvf_err("--%s is not supported yet by nvfab", o->name);
	return NVF_EXIT_UNSUPPORTED;
}

/*
 * Store long-only option @c of connect, with argument @arg, in @cfg.
 * Return: 0, 1 if @c is none of them, -1 after reporting a bad value.
 */
static int nvf_disc_long_opt(struct nvf_disc_cfg *cfg, int c,
			     const char *arg)
{
	int i, v;

	for (i = 0; i < NVF_NR_LONG_OPTS; i++) {
		if (nvf_long_opts[i].opt != c)
			continue;
		if (nvf_long_opts[i].parse) {
			if (nvf_long_opts[i].parse(nvf_long_opts[i].name, arg,
						   &v))
				return -1;
			snprintf(cfg->long_val[i], sizeof(cfg->long_val[i]),
				 "%d", v);
		}
		cfg->long_set[i] = true;
		return 0;
	}
	return 1;
}

/*
 * Parse @argv into @cfg, over what @cfg holds. @file: options from
 * discovery.conf, where those shaping this run (-h, -o, -d, -r,
 * --log-file, --dry-run, --quiet, -v) are refused. Return: 0, -2 after
 * the help, or the exit status of an error (reported).
 */
static int nvf_disc_opts(int argc, char **argv, struct nvf_disc_cfg *cfg,
			 bool file)
{
	int c, v;

	optind = 0;
	while ((c = nvf_getopt(argc, argv, nvf_disc_shortopts,
			       nvf_disc_longopts)) != -1) {
		if (file && c > 0 && c < 128 && strchr("hodrv", c)) {
			nvf_err("option '-%c' is for the command line only", c);
			return NVF_EXIT_FAIL;
		}
		if (file && (c == NVF_OPT_LOG_FILE || c == NVF_OPT_DRY_RUN ||
			     c == NVF_OPT_QUIET)) {
			nvf_err("option '%s' is for the command line only",
				argv[optind - 1]);
			return NVF_EXIT_FAIL;
		}
		switch (c) {
		case 'h':
			if (cfg->connect_all)
				nvf_connect_all_usage(stdout);
			else
				nvf_discover_usage(stdout);
			return -2;
		case 't':
			cfg->transport = optarg;
			break;
		case 'a':
			cfg->traddr = optarg;
			break;
		case 's':
			cfg->trsvcid = optarg;
			break;
		case 'n':
			cfg->nqn = optarg;
			break;
		case 'd':
			cfg->device = optarg;
			break;
		case 'r':
			cfg->raw = optarg;
			break;
		case 'o':
			if (nvf_parse_format(optarg, &cfg->fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'p':
			if (optarg && strcmp(optarg, "no") &&
			    strcmp(optarg, "auto") && strcmp(optarg, "force")) {
				nvf_err("invalid --persistent '%s' (no, auto or force)",
					optarg);
				return NVF_EXIT_FAIL;
			}
			cfg->persistent = !optarg || strcmp(optarg, "no");
			break;
		case NVF_OPT_NO_REUSE:
			cfg->no_reuse = true;
			break;
		case NVF_OPT_QUIET:
			cfg->quiet = true;
			break;
		case NVF_OPT_LOG_FILE:
			cfg->log_file = optarg;
			break;
		case NVF_OPT_DRY_RUN:
			cfg->dry_run = true;
			nvf_host_no_store();
			break;
		case NVF_OPT_DISABLE_SQFLOW:
			cfg->val['d'] = "";
			break;
		case NVF_OPT_TLS_KEY_IDENTITY:
		case NVF_OPT_TLS_KEY_LEGACY:
		case NVF_OPT_CONCAT:
			return nvf_disc_unsupported(c);
		case '?':
			return NVF_EXIT_FAIL;
		default:
			v = nvf_disc_long_opt(cfg, c, optarg);
			if (v < 0)
				return NVF_EXIT_FAIL;
			if (!v)
				break;
			if (c <= 0 || c >= 128)
				return NVF_EXIT_FAIL;
			if (strchr(NVF_FLAG_OPTS, c)) {
				cfg->val[c] = "";
				break;
			}
			if (strchr(NVF_INT_OPTS, c)) {
				const struct option *o;

				for (o = nvf_disc_longopts; o->val != c; o++)
					;
				if (nvf_parse_int(o->name, optarg, &v))
					return NVF_EXIT_FAIL;
			}
			cfg->val[c] = optarg;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	return 0;
}

/* An argument vector for connect.c's nvf_connect_string(). */
struct nvf_cargv {
	char	*argv[64];
	char	names[32][3];
	char	long_names[NVF_NR_LONG_OPTS][16];
	int	argc, nr_names;
};

static void nvf_cargv_add(struct nvf_cargv *a, int c, const char *val)
{
	char *n = a->names[a->nr_names++];

	n[0] = '-';
	n[1] = (char)c;
	n[2] = '\0';
	a->argv[a->argc++] = n;
	if (val)
		a->argv[a->argc++] = (char *)val;
}

/* Add "--name" of nvf_long_opts[@i], and its value unless a flag. */
static void nvf_cargv_add_long(struct nvf_cargv *a, int i, const char *val)
{
	snprintf(a->long_names[i], sizeof(a->long_names[i]), "--%s",
		 nvf_long_opts[i].name);
	a->argv[a->argc++] = a->long_names[i];
	if (val)
		a->argv[a->argc++] = (char *)val;
}

/*
 * The option string of a controller to (@trtype, @traddr, @trsvcid,
 * @nqn) with @cfg's options among @which, and the long-only ones of an
 * I/O controller, or of the discovery controller if @dc. Return:
 * malloc'ed, or NULL after reporting.
 */
static char *nvf_disc_opts_string(const struct nvf_disc_cfg *cfg,
				  const char *trtype, const char *traddr,
				  const char *trsvcid, const char *nqn,
				  const char *which, bool dc)
{
	struct nvf_cargv a = { .argv = { "connect" }, .argc = 1 };
	const char *p;
	int i;

	nvf_cargv_add(&a, 't', trtype);
	nvf_cargv_add(&a, 'a', traddr);
	if (trsvcid && *trsvcid)
		nvf_cargv_add(&a, 's', trsvcid);
	nvf_cargv_add(&a, 'n', nqn);
	for (p = which; *p; p++) {
		if (!cfg->val[(int)*p])
			continue;
		nvf_cargv_add(&a, *p, strchr(NVF_FLAG_OPTS, *p) ? NULL :
				      cfg->val[(int)*p]);
	}
	for (i = 0; i < NVF_NR_LONG_OPTS; i++) {
		if (!cfg->long_set[i] || !(dc || nvf_long_opts[i].io))
			continue;
		nvf_cargv_add_long(&a, i, nvf_long_opts[i].parse ?
					  cfg->long_val[i] : NULL);
	}
	/* the discovery controller's --tls-key means TLS for the others */
	if (!dc && cfg->long_set[NVF_LONG_TLS_KEY] &&
	    !cfg->long_set[NVF_LONG_TLS])
		nvf_cargv_add_long(&a, NVF_LONG_TLS, NULL);
	a.argv[a.argc] = NULL;
	return nvf_connect_string(a.argc, a.argv);
}

/* Read a saved page, @file, whole. Return: malloc'ed, or NULL (reported). */
static unsigned char *nvf_disc_read_file(const char *file, size_t *len)
{
	size_t max = NVF_DLP_HDR_LEN +
		     (size_t)NVF_DLP_MAX_RECORDS * NVF_DLP_ENTRY_LEN + 1;
	unsigned char *buf;
	size_t total = 0;
	ssize_t ret;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		nvf_err("cannot open %s: %s", file, strerror(errno));
		return NULL;
	}
	buf = malloc(max);
	if (!buf) {
		nvf_err("out of memory");
		close(fd);
		return NULL;
	}
	while (total < max) {
		ret = read(fd, buf + total, max - total);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			nvf_err("cannot read %s: %s", file, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (!ret)
			break;
		total += ret;
	}
	close(fd);
	*len = total;
	return buf;
}

/* Save the raw page to cfg->raw. Return: 0, or -1 after reporting. */
static int nvf_disc_save_raw(const char *file, const unsigned char *buf,
			     size_t len)
{
	FILE *f = fopen(file, "we");

	if (!f) {
		nvf_err("cannot create %s: %s", file, strerror(errno));
		return -1;
	}
	if (fwrite(buf, 1, len, f) != len || fclose(f)) {
		nvf_err("cannot write %s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Read the page of device @name (nvfabN), which was made a moment ago if
 * @made. Return: as nvf_dlp_read().
 */
static unsigned char *nvf_disc_read_dev(const char *name, bool made,
					size_t *len)
{
	const char *dir = getenv("NVFAB_DEV_DIR");
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	unsigned char *buf;
	char path[4096];
	int fd, try;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/dev",
		 name);
	/* A device made a moment ago: give its node a second to appear. */
	for (try = 0; try < 10; try++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || !made)
			break;
		nanosleep(&ts, NULL);
	}
	if (fd < 0) {
		nvf_err("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = nvf_dlp_read(fd, path, len);
	close(fd);
	return buf;
}

/* Delete controller @name, the discovery controller made here. */
static int nvf_disc_delete(const char *name)
{
	struct nvf_ctrl ctrl;
	int err;

	if (nvf_ctrl_find(name, &ctrl))
		return -1;
	err = nvf_attr_write(ctrl.path, "delete_controller", "1");
	free(ctrl.path);
	if (err) {
		nvf_err("cannot delete discovery controller %s: %s", name,
			strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * An option string as -v (to stderr, prefixed) or --dry-run (to stdout)
 * shows it: every DH-HMAC-CHAP secret as "<hidden>".
 */
static void nvf_disc_show_opts(FILE *f, const char *opts)
{
	char *shown = nvf_shown_options(opts);

	if (f == stderr)
		fprintf(f, "nvfabctl: %s: options: %s\n", nvf_verb,
			shown ? shown : "(out of memory)");
	else
		fprintf(f, "%s\n", shown ? shown : "(out of memory)");
	free(shown);
}

/*
 * The Discovery Log Page of endpoint (@transport, @traddr, @trsvcid, @nqn)
 * per @cfg, into @log: from cfg->log_file, cfg->device, a live discovery
 * controller to the endpoint, or one made for it. Return: 0, 1 when
 * --dry-run stopped before any controller, -1 after reporting.
 */
static int nvf_disc_fetch(const struct nvf_disc_cfg *cfg,
			  const char *transport, const char *traddr,
			  const char *trsvcid, const char *nqn,
			  struct nvf_dlp *log)
{
	int instance = -1, cntlid, found, ret = -1;
	unsigned char *buf = NULL;
	char name[32], *opts = NULL;
	bool made = false;
	size_t len;

	if (cfg->log_file) {
		buf = nvf_disc_read_file(cfg->log_file, &len);
	} else if (cfg->device) {
		buf = nvf_disc_read_dev(cfg->device, false, &len);
	} else {
		opts = nvf_disc_opts_string(cfg, transport, traddr, trsvcid,
					    nqn, NVF_DC_OPTS, true);
		if (!opts)
			return -1;
		if (cfg->verbose)
			nvf_disc_show_opts(stderr, opts);
		found = cfg->no_reuse ? 0 :
			nvf_find_ctrl_opts(opts, name, sizeof(name));
		if (found < 0)
			goto out_free;
		if (!found && cfg->dry_run) {
			nvf_disc_show_opts(stdout, opts);
			free(opts);
			return 1;
		}
		if (!found) {
			if (nvf_connect_write(transport, opts, &instance,
					      &cntlid))
				goto out_free;
			snprintf(name, sizeof(name), "nvfab%d", instance);
			made = true;
		}
		buf = nvf_disc_read_dev(name, made, &len);
	}
	if (buf && cfg->raw && nvf_disc_save_raw(cfg->raw, buf, len))
		goto out_delete;
	if (buf && !nvf_dlp_parse(buf, len, log))
		ret = 0;
out_delete:
	if (made && !cfg->persistent && nvf_disc_delete(name))
		ret = -1;
	if (made && cfg->persistent && !ret)
		fprintf(stderr, "nvfabctl: %s: persistent discovery controller %s\n",
			nvf_verb, name);
out_free:
	free(buf);
	free(opts);
	return ret;
}

/* Check the endpoint options; fill in the default NQN. Return: 0 or -1. */
static int nvf_disc_check(struct nvf_disc_cfg *cfg)
{
	if (!cfg->nqn)
		cfg->nqn = NVF_DISC_NQN;
	if (cfg->log_file || cfg->device)
		return 0;
	if (!cfg->transport) {
		nvf_err("required argument [--transport | -t] not specified");
		return -1;
	}
	if (!cfg->traddr) {
		nvf_err("required argument [--traddr | -a] not specified");
		return -1;
	}
	return 0;
}

/* discover, one discovery controller. Return: 0 or -1 (reported). */
static int nvf_discover_one(struct nvf_disc_cfg *cfg)
{
	struct nvf_dlp log;
	int ret;

	if (nvf_disc_check(cfg))
		return -1;
	ret = nvf_disc_fetch(cfg, cfg->transport, cfg->traddr, cfg->trsvcid,
			     cfg->nqn, &log);
	if (ret)
		return ret > 0 ? 0 : -1;
	if (cfg->fmt == NVF_FMT_JSON)
		nvf_dlp_print_json(&log);
	else
		nvf_dlp_print(&log);
	nvf_dlp_free(&log);
	return 0;
}

/* One line (or JSON object) about entry @e. */
static void nvf_ca_report(struct nvf_disc_run *r, const struct nvf_disc_cfg *cfg,
			  const char *status, const char *dev,
			  const struct nvf_dlp_entry *e)
{
	if (cfg->fmt == NVF_FMT_JSON) {
		nvf_json_begin(&r->j, NULL, '{');
		nvf_json_str(&r->j, "status", status);
		nvf_json_str(&r->j, "device", dev);
		nvf_json_str(&r->j, "subnqn", e->subnqn);
		nvf_json_str(&r->j, "trtype", nvf_trtype_name(e->trtype));
		nvf_json_str(&r->j, "traddr", e->traddr);
		nvf_json_str(&r->j, "trsvcid", e->trsvcid);
		nvf_json_end(&r->j, '}');
	} else {
		printf("%s %s %s %s %s %s\n", status, dev ? dev : "-",
		       e->subnqn, nvf_trtype_name(e->trtype),
		       e->traddr[0] ? e->traddr : "-",
		       e->trsvcid[0] ? e->trsvcid : "-");
	}
	fflush(stdout);
}

static bool nvf_trtype_ours(unsigned int trtype)
{
	return trtype == NVF_TRTYPE_TCP || trtype == NVF_TRTYPE_RDMA;
}

/* Connect NVM subsystem entry @e. Return: 0 or -1 (reported). */
static int nvf_ca_connect(struct nvf_disc_run *r,
			  const struct nvf_disc_cfg *cfg,
			  const struct nvf_dlp_entry *e)
{
	const char *trtype = nvf_trtype_name(e->trtype);
	int found = 0, instance, cntlid, ret = -1;
	char name[32], *opts;

	if (!nvf_trtype_ours(e->trtype)) {
		nvf_ca_report(r, cfg, "skipped", NULL, e);
		return 0;
	}
	opts = nvf_disc_opts_string(cfg, trtype, e->traddr, e->trsvcid,
				    e->subnqn, NVF_IO_OPTS, false);
	if (!opts)
		return -1;
	if (cfg->verbose)
		nvf_disc_show_opts(stderr, opts);
	if (!cfg->val['D'])
		found = nvf_find_ctrl_opts(opts, name, sizeof(name));
	if (found < 0)
		goto out_free;
	if (found) {
		if (!cfg->quiet)
			nvf_ca_report(r, cfg, "already-connected", name, e);
		ret = 0;
	} else if (cfg->dry_run) {
		nvf_disc_show_opts(stdout, opts);
		ret = 0;
	} else if (!nvf_connect_write(trtype, opts, &instance, &cntlid)) {
		snprintf(name, sizeof(name), "nvfab%d", instance);
		nvf_ca_report(r, cfg, "connected", name, e);
		ret = 0;
	} else {
		nvf_ca_report(r, cfg, "failed", NULL, e);
	}
out_free:
	free(opts);
	return ret;
}

/* Has referral endpoint @e been followed? If not, remember it. */
static bool nvf_ca_seen(struct nvf_disc_run *r, unsigned int trtype,
			const char *traddr, const char *trsvcid)
{
	struct nvf_ep *tmp, *ep;
	size_t i;

	for (i = 0; i < r->nr_seen; i++) {
		ep = &r->seen[i];
		if (ep->trtype == trtype && !strcmp(ep->traddr, traddr) &&
		    !strcmp(ep->trsvcid, trsvcid))
			return true;
	}
	tmp = realloc(r->seen, (r->nr_seen + 1) * sizeof(*tmp));
	if (!tmp)
		return true;	/* out of memory: follow nothing more */
	r->seen = tmp;
	ep = &r->seen[r->nr_seen++];
	ep->trtype = trtype;
	snprintf(ep->traddr, sizeof(ep->traddr), "%s", traddr);
	snprintf(ep->trsvcid, sizeof(ep->trsvcid), "%s", trsvcid);
	return false;
}

static unsigned int nvf_trtype_code(const char *name)
{
	if (!strcmp(name, "tcp"))
		return NVF_TRTYPE_TCP;
	if (!strcmp(name, "rdma"))
		return NVF_TRTYPE_RDMA;
	if (!strcmp(name, "fc"))
		return NVF_TRTYPE_FC;
	return 0;
}

/*
 * connect-all from one discovery endpoint, at referral depth @depth.
 * Failures are counted in r->failed.
 */
static void nvf_ca_endpoint(struct nvf_disc_run *r,
			    const struct nvf_disc_cfg *cfg,
			    const char *transport, const char *traddr,
			    const char *trsvcid, const char *nqn, int depth)
{
	const struct nvf_dlp_entry *e;
	struct nvf_dlp log;
	size_t i;
	int ret;

	ret = nvf_disc_fetch(cfg, transport, traddr, trsvcid, nqn, &log);
	if (ret) {
		if (ret < 0)
			r->failed++;
		return;
	}
	for (i = 0; i < log.nr; i++) {
		e = &log.e[i];
		if (e->subtype == NVF_SUBTYPE_NVME) {
			if (nvf_ca_connect(r, cfg, e))
				r->failed++;
			continue;
		}
		if (e->subtype != NVF_SUBTYPE_REFERRAL)
			continue;
		if (cfg->log_file || cfg->device) {
			nvf_ca_report(r, cfg, "referral-not-followed", NULL, e);
		} else if (!nvf_trtype_ours(e->trtype)) {
			nvf_ca_report(r, cfg, "skipped", NULL, e);
		} else if (depth >= NVF_REFERRAL_DEPTH) {
			nvf_ca_report(r, cfg, "referral-too-deep", NULL, e);
		} else if (nvf_ca_seen(r, e->trtype, e->traddr, e->trsvcid)) {
			if (!cfg->quiet)
				nvf_ca_report(r, cfg, "referral-seen", NULL, e);
		} else {
			nvf_ca_report(r, cfg, "referral", NULL, e);
			nvf_ca_endpoint(r, cfg, nvf_trtype_name(e->trtype),
					e->traddr, e->trsvcid, e->subnqn,
					depth + 1);
		}
	}
	nvf_dlp_free(&log);
}

/* connect-all, one discovery controller. Return: 0 or -1 (reported). */
static int nvf_connect_all_one(struct nvf_disc_run *r,
			       struct nvf_disc_cfg *cfg)
{
	int failed = r->failed;

	if (nvf_disc_check(cfg))
		return -1;
	if (!cfg->log_file && !cfg->device)
		nvf_ca_seen(r, nvf_trtype_code(cfg->transport), cfg->traddr,
			    cfg->trsvcid ? cfg->trsvcid :
			    !strcmp(cfg->transport, "tcp") ? "8009" : "4420");
	nvf_ca_endpoint(r, cfg, cfg->transport, cfg->traddr, cfg->trsvcid,
			cfg->nqn, 0);
	return r->failed > failed ? -1 : 0;
}

/*
 * Each line of discovery.conf over a copy of @base: run @one on it.
 * Return: 0, or -1 when a line failed or the file cannot be read (both
 * reported).
 */
static int nvf_disc_conf(struct nvf_disc_cfg *base,
			 int (*one)(struct nvf_disc_cfg *cfg, void *arg),
			 void *arg)
{
	const char *verb = nvf_verb;
	char *path, *line = NULL, *argv[128], *p, where[4200];
	struct nvf_disc_cfg cfg;
	int lineno = 0, argc, failed = 0, lines = 0;
	size_t cap = 0;
	ssize_t got;
	FILE *f;

	path = nvf_path(nvf_etc_dir(), NVF_DISC_CONF);
	if (!path)
		return -1;
	f = fopen(path, "re");
	if (!f) {
		nvf_err("no --transport and --traddr, and cannot open %s: %s",
			path, strerror(errno));
		free(path);
		return -1;
	}
	nvf_warn_autoconnect(path);
	while ((got = getline(&line, &cap, f)) != -1) {
		lineno++;
		snprintf(where, sizeof(where), "%s: %s:%d", verb, path, lineno);
		nvf_verb = where;
		if ((size_t)got > NVF_DISC_CONF_LINE_MAX ||
		    strlen(line) != (size_t)got) {
			nvf_err("line too long or has a NUL byte");
			failed++;
			continue;
		}
		argv[0] = (char *)verb;
		argc = 1;
		for (p = strtok(line, " \t\r\n"); p && argc < 126;
		     p = strtok(NULL, " \t\r\n")) {
			if (argc == 1 && *p == '#')
				break;
			argv[argc++] = p;
		}
		if (p && argc >= 126) {
			nvf_err("too many words");
			failed++;
			continue;
		}
		argv[argc] = NULL;
		if (argc == 1)
			continue;
		cfg = *base;
		if (nvf_disc_opts(argc, argv, &cfg, true)) {
			failed++;
			continue;
		}
		if (!cfg.transport && !cfg.traddr)
			continue;
		lines++;
		if (one(&cfg, arg))
			failed++;
	}
	nvf_verb = verb;
	if (!lines && !failed)
		nvf_err("%s lists no discovery controller", path);
	free(line);
	fclose(f);
	free(path);
	return failed || !lines ? -1 : 0;
}

static int nvf_discover_conf_one(struct nvf_disc_cfg *cfg, void *arg)
{
	(void)arg;
	return nvf_discover_one(cfg);
}

static int nvf_connect_all_conf_one(struct nvf_disc_cfg *cfg, void *arg)
{
	return nvf_connect_all_one(arg, cfg);
}

/* From the file: nothing names an endpoint on the command line. */
static bool nvf_disc_from_conf(const struct nvf_disc_cfg *cfg)
{
	return !cfg->transport && !cfg->traddr && !cfg->device &&
	       !cfg->log_file;
}

int nvf_discover(int argc, char **argv)
{
	struct nvf_disc_cfg cfg = { .fmt = NVF_FMT_NORMAL };
	int ret;

	ret = nvf_disc_opts(argc, argv, &cfg, false);
	if (ret)
		return ret == -2 ? NVF_EXIT_OK : ret;
	if (nvf_disc_from_conf(&cfg))
		ret = nvf_disc_conf(&cfg, nvf_discover_conf_one, NULL);
	else
		ret = nvf_discover_one(&cfg);
	return ret ? NVF_EXIT_FAIL : NVF_EXIT_OK;
}

int nvf_connect_all(int argc, char **argv)
{
	struct nvf_disc_cfg cfg = { .fmt = NVF_FMT_NORMAL,
				    .connect_all = true };
	struct nvf_disc_run r = { 0 };
	int ret;

	ret = nvf_disc_opts(argc, argv, &cfg, false);
	if (ret)
		return ret == -2 ? NVF_EXIT_OK : ret;
	if (cfg.dry_run && cfg.fmt == NVF_FMT_JSON) {
		nvf_err("--dry-run prints option strings, not JSON: drop -o json");
		return NVF_EXIT_FAIL;
	}
	if (cfg.fmt == NVF_FMT_JSON) {
		nvf_json_init(&r.j, stdout);
		nvf_json_begin(&r.j, NULL, '[');
	}
	if (nvf_disc_from_conf(&cfg))
		ret = nvf_disc_conf(&cfg, nvf_connect_all_conf_one, &r);
	else
		ret = nvf_connect_all_one(&r, &cfg);
	if (cfg.fmt == NVF_FMT_JSON)
		nvf_json_end(&r.j, ']');
	free(r.seen);
	return ret ? NVF_EXIT_FAIL : NVF_EXIT_OK;
}
