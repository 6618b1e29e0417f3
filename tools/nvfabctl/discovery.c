// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl discovery add|remove|list: the persistent discovery entries of
 * module nvfab-discovery, <configfs>/nvfab/discovery/<name>/
 * (<configfs> is $NVFAB_CONFIGFS or /sys/kernel/config).
 *
 * add checks every value first (the kernel checks them again), makes the
 * directory, writes the attributes given, in a fixed order, and then
 * enable=1; on any failure the directory it made is removed again. An
 * attribute not given keeps the kernel's default. When neither --hostnqn
 * nor --hostid is given, the pair of /etc/nvme/hostnqn and hostid is
 * written, as connect would pass it. When configfs has nvfab/ but not
 * nvfab/discovery/, add runs "modprobe -q nvfab-discovery" first. remove
 * writes enable=0, then removes
 * the directory (the I/O controllers the entry made stay). list shows each
 * entry, its state and counters; -v adds the entries of its log.
 *
 * The same parser serves the "discovery" directive of nvfab.conf
 * (config.c): "discovery NAME OPTIONS..." with the options of add.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvfabctl.h"
#include "config.h"
#include "dlp.h"

#define NVF_DISC_NAME_MAX	63
#define NVF_IFNAME_MAX		15
#define NVF_KATO_MAX		4294967L
#define NVF_POLL_MAX		4294967L
#define NVF_INFLIGHT_MAX	1024

/* The attributes add writes, in this order; then enable. */
enum {
	NVF_DA_TRANSPORT,
	NVF_DA_TRADDR,
	NVF_DA_TRSVCID,
	NVF_DA_HOST_TRADDR,
	NVF_DA_HOST_IFACE,
	NVF_DA_HOSTNQN,
	NVF_DA_HOSTID,
	NVF_DA_NQN,
	NVF_DA_KATO,
	NVF_DA_CONNECT_OPTS,
	NVF_DA_CONNECT,
	NVF_DA_MATCH,
	NVF_DA_DISCONNECT,
	NVF_DA_POLL_INTERVAL,
	NVF_DA_MAX_INFLIGHT,
	NVF_NR_DA,
};

static const char *const nvf_da_names[NVF_NR_DA] = {
	[NVF_DA_TRANSPORT]	= "transport",
	[NVF_DA_TRADDR]		= "traddr",
	[NVF_DA_TRSVCID]	= "trsvcid",
	[NVF_DA_HOST_TRADDR]	= "host_traddr",
	[NVF_DA_HOST_IFACE]	= "host_iface",
	[NVF_DA_HOSTNQN]	= "hostnqn",
	[NVF_DA_HOSTID]		= "hostid",
	[NVF_DA_NQN]		= "nqn",
	[NVF_DA_KATO]		= "kato",
	[NVF_DA_CONNECT_OPTS]	= "connect_opts",
	[NVF_DA_CONNECT]	= "connect",
	[NVF_DA_MATCH]		= "match",
	[NVF_DA_DISCONNECT]	= "disconnect",
	[NVF_DA_POLL_INTERVAL]	= "poll_interval",
	[NVF_DA_MAX_INFLIGHT]	= "max_inflight",
};

/* The long-only options of add. */
enum {
	NVF_OPT_D_CONNECT = 300,
	NVF_OPT_D_MATCH,
	NVF_OPT_D_DISCONNECT,
	NVF_OPT_D_POLL,
	NVF_OPT_D_INFLIGHT,
	NVF_OPT_D_CONNECT_OPTS,
};

/* The option of each attribute. */
static const int nvf_da_opts[NVF_NR_DA] = {
	[NVF_DA_TRANSPORT]	= 't',
	[NVF_DA_TRADDR]		= 'a',
	[NVF_DA_TRSVCID]	= 's',
	[NVF_DA_HOST_TRADDR]	= 'w',
	[NVF_DA_HOST_IFACE]	= 'f',
	[NVF_DA_HOSTNQN]	= 'q',
	[NVF_DA_HOSTID]		= 'I',
	[NVF_DA_NQN]		= 'n',
	[NVF_DA_KATO]		= 'k',
	[NVF_DA_CONNECT_OPTS]	= NVF_OPT_D_CONNECT_OPTS,
	[NVF_DA_CONNECT]	= NVF_OPT_D_CONNECT,
	[NVF_DA_MATCH]		= -1,
	[NVF_DA_DISCONNECT]	= NVF_OPT_D_DISCONNECT,
	[NVF_DA_POLL_INTERVAL]	= NVF_OPT_D_POLL,
	[NVF_DA_MAX_INFLIGHT]	= NVF_OPT_D_INFLIGHT,
};

struct nvf_disc_entry {
	char	*name;
	char	*val[NVF_NR_DA];	/* NULL: not given */
};

static const struct option nvf_da_longopts[] = {
	{ "transport",		required_argument, NULL, 't' },
	{ "traddr",		required_argument, NULL, 'a' },
	{ "trsvcid",		required_argument, NULL, 's' },
	{ "host-traddr",	required_argument, NULL, 'w' },
	{ "host-iface",		required_argument, NULL, 'f' },
	{ "hostnqn",		required_argument, NULL, 'q' },
	{ "hostid",		required_argument, NULL, 'I' },
	{ "nqn",		required_argument, NULL, 'n' },
	{ "keep-alive-tmo",	required_argument, NULL, 'k' },
	{ "connect",		required_argument, NULL, NVF_OPT_D_CONNECT },
	{ "match",		required_argument, NULL, NVF_OPT_D_MATCH },
	{ "disconnect",		required_argument, NULL,
	  NVF_OPT_D_DISCONNECT },
	{ "poll-interval",	required_argument, NULL, NVF_OPT_D_POLL },
	{ "max-inflight",	required_argument, NULL, NVF_OPT_D_INFLIGHT },
	{ "connect-opts",	required_argument, NULL,
	  NVF_OPT_D_CONNECT_OPTS },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL,			0,		   NULL, 0 }
};

/* The keys of connect_opts; those in NVF_CO_FLAGS take no value. */
static const char *const nvf_co_keys[] = {
	"queue_size", "nr_io_queues", "nr_write_queues", "nr_poll_queues",
	"reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo",
	"keep_alive_tmo", "tos", "keyring", "tls_key", "hdr_digest",
	"data_digest", "disable_sqflow", "tls",
};

#define NVF_CO_FIRST_FLAG	11

void nvf_discovery_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl discovery add NAME -t TRANSPORT -a TRADDR [OPTIONS]\n"
		"       nvfabctl discovery remove NAME\n"
		"       nvfabctl discovery list [-o normal|json] [-v]\n"
		"\n"
		"Persistent discovery controllers of module nvfab-discovery, which\n"
		"connects and disconnects what their logs list, in configfs\n"
		"(nvfab/discovery/NAME).\n"
		"\n"
		"add: NAME is 1 to 63 of A-Z a-z 0-9 . _ -\n"
		"  -t, --transport=STR         tcp or rdma\n"
		"  -a, --traddr=ADDR           discovery controller IPv4 or IPv6 address\n"
		"  -s, --trsvcid=PORT          its port (default 8009 tcp, 4420 rdma)\n"
		"  -w, --host-traddr=ADDR      host address\n"
		"  -f, --host-iface=IFNAME     host interface\n"
		"  -q, --hostnqn=NQN           host NQN (with -I; default: /etc/nvme)\n"
		"  -I, --hostid=UUID           host ID\n"
		"  -n, --nqn=NQN               discovery subsystem NQN\n"
		"  -k, --keep-alive-tmo=SEC    discovery controller keep-alive (default 30)\n"
		"      --connect=all|none|match  what to connect (default all)\n"
		"      --match=PATTERN         subsystem NQN glob, for --connect=match;\n"
		"                              repeatable (implies --connect=match)\n"
		"      --disconnect=none|ours  disconnect what leaves the log (default ours)\n"
		"      --poll-interval=SEC     read the log every SEC seconds, 0: off (60)\n"
		"      --max-inflight=N        connects in flight, 1 to 1024 (default 8)\n"
		"      --connect-opts=K=V,...  options of the I/O controllers: queue_size,\n"
		"                              nr_io_queues, nr_write_queues, nr_poll_queues,\n"
		"                              reconnect_delay, ctrl_loss_tmo, fast_io_fail_tmo,\n"
		"                              keep_alive_tmo, tos, keyring, tls_key,\n"
		"                              hdr_digest, data_digest, disable_sqflow, tls\n"
		"list:\n"
		"  -o, --output-format=FMT     normal or json\n"
		"  -v, --verbose               also each entry's log\n"
		"  -h, --help                  show this help\n");
}

const char *nvf_disc_entry_name(const struct nvf_disc_entry *d)
{
	return d->name;
}

void nvf_disc_entry_free(struct nvf_disc_entry *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < NVF_NR_DA; i++)
		free(d->val[i]);
	free(d->name);
	free(d);
}

/* <configfs>/nvfab/discovery, malloc'ed; NULL after reporting. */
char *nvf_disc_dir(void)
{
	char *cfs = nvf_configfs_dir(), *dir;

	if (!cfs)
		return NULL;
	dir = nvf_path(cfs, "discovery");
	free(cfs);
	return dir;
}

static bool nvf_disc_name_valid(const char *s)
{
	size_t len = strlen(s);

	static const char ok[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

	return len && len <= NVF_DISC_NAME_MAX && strcmp(s, ".") &&
	       strcmp(s, "..") && strspn(s, ok) == len;
}

static bool nvf_addr_valid(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 ||
	       inet_pton(AF_INET6, s, buf) == 1;
}

/* A decimal in [@min, @max], no sign, no leading zero; into *@v. */
static bool nvf_ulong_valid(const char *s, long min, long max, long *v)
{
	size_t len = strlen(s);

	if (!len || len > 10 || strspn(s, "0123456789") != len ||
	    (len > 1 && s[0] == '0'))
		return false;
	*v = strtol(s, NULL, 10);
	return *v >= min && *v <= max;
}

/* An NQN: "nqn." and more, at most 223 bytes of visible ASCII. */
static bool nvf_nqn_valid(const char *s)
{
	size_t len = strlen(s), i;

	if (len <= 4 || len > NVF_NQN_MAX || strncmp(s, "nqn.", 4))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	}
	return true;
}

/*
 * A --match pattern: an NQN glob, "nqn." and 1 to 219 more visible bytes,
 * no ',' (a separator).
 */
static bool nvf_pattern_valid(const char *s)
{
	size_t len = strlen(s), i;

	if (len <= 4 || len > NVF_NQN_MAX || strncmp(s, "nqn.", 4))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < 0x21 || s[i] > 0x7e || s[i] == ',')
			return false;
	}
	return true;
}

/* A signed decimal int, as the kernel's match_int() takes it. */
static bool nvf_int_valid(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return *s && !*end && !errno && v >= -2147483647L - 1 &&
	       v <= 2147483647L;
}

/* Check connect_opts @s. Return: 0, or -1 after reporting. */
static int nvf_co_check(const char *s)
{
	const char *p = s, *eq;
	char key[32], seen[ARRAY_SIZE(nvf_co_keys)] = { 0 };
	char val[32];
	size_t n, k, klen;

	if (!*s)
		return 0;
	while (1) {
		n = strcspn(p, ",");
		eq = memchr(p, '=', n);
		klen = eq ? (size_t)(eq - p) : n;
		if (!klen || klen >= sizeof(key)) {
			nvf_err("invalid --connect-opts '%s': empty or overlong key",
				s);
			return -1;
		}
		memcpy(key, p, klen);
		key[klen] = '\0';
		for (k = 0; k < ARRAY_SIZE(nvf_co_keys); k++) {
			if (!strcmp(nvf_co_keys[k], key))
				break;
		}
		if (k == ARRAY_SIZE(nvf_co_keys)) {
			nvf_err("invalid --connect-opts: unknown key '%s'", key);
			return -1;
		}
		if (seen[k]++) {
			nvf_err("invalid --connect-opts: '%s' given twice", key);
			return -1;
		}
		if (k >= NVF_CO_FIRST_FLAG && eq) {
			nvf_err("invalid --connect-opts: '%s' takes no value",
				key);
			return -1;
		}
		if (k < NVF_CO_FIRST_FLAG) {
			size_t vlen = eq ? n - klen - 1 : 0;

			if (vlen && vlen < sizeof(val)) {
				memcpy(val, eq + 1, vlen);
				val[vlen] = '\0';
			}
			if (!vlen || vlen >= sizeof(val) ||
			    !nvf_int_valid(val)) {
				nvf_err("invalid --connect-opts: '%s' needs an integer value",
					key);
				return -1;
			}
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	return 0;
}

/* Set attribute @a to a copy of @val. Return: 0, or -1 (reported). */
static int nvf_da_set(struct nvf_disc_entry *d, int a, const char *val)
{
	char *v = strdup(val);

	if (!v) {
		nvf_err("out of memory");
		return -1;
	}
	free(d->val[a]);
	d->val[a] = v;
	return 0;
}

/* Append --match pattern @pat to the list. Return: 0, or -1. */
static int nvf_da_match(struct nvf_disc_entry *d, const char *pat)
{
	size_t len;
	char *v;

	if (!nvf_pattern_valid(pat)) {
		nvf_err("invalid --match '%s': an NQN glob (nqn.*, at most 223 visible characters, no ',')",
			pat);
		return -1;
	}
	if (!d->val[NVF_DA_MATCH])
		return nvf_da_set(d, NVF_DA_MATCH, pat);
	len = strlen(d->val[NVF_DA_MATCH]) + strlen(pat) + 2;
	v = realloc(d->val[NVF_DA_MATCH], len);
	if (!v) {
		nvf_err("out of memory");
		return -1;
	}
	strcat(v, " ");
	strcat(v, pat);
	d->val[NVF_DA_MATCH] = v;
	return 0;
}

/* Check one option's value. Return: true if good (else reported). */
static bool nvf_da_check(int a, const char *v)
{
	long n;

	switch (a) {
	case NVF_DA_TRANSPORT:
		if (!strcmp(v, "tcp") || !strcmp(v, "rdma"))
			return true;
		nvf_err("invalid --transport '%s' (tcp or rdma)", v);
		return false;
	case NVF_DA_TRADDR:
	case NVF_DA_HOST_TRADDR:
		if (nvf_addr_valid(v))
			return true;
		nvf_err("invalid --%s '%s': not an IPv4 or IPv6 address",
			a == NVF_DA_TRADDR ? "traddr" : "host-traddr", v);
		return false;
	case NVF_DA_TRSVCID:
		if (nvf_ulong_valid(v, 1, 65535, &n))
			return true;
		nvf_err("invalid --trsvcid '%s' (1 to 65535)", v);
		return false;
	case NVF_DA_HOST_IFACE:
		if (*v && strlen(v) <= NVF_IFNAME_MAX && !strchr(v, '/') &&
		    strcspn(v, " \t\n:") == strlen(v))
			return true;
		nvf_err("invalid --host-iface '%s': not an interface name", v);
		return false;
	case NVF_DA_HOSTNQN:
	case NVF_DA_NQN:
		if (nvf_nqn_valid(v))
			return true;
		nvf_err("invalid --%s '%s': not an NQN (nqn.*, at most 223 visible bytes)",
			a == NVF_DA_NQN ? "nqn" : "hostnqn", v);
		return false;
	case NVF_DA_HOSTID:
		if (nvf_uuid_valid(v))
			return true;
		nvf_err("invalid --hostid '%s': not a UUID", v);
		return false;
	case NVF_DA_KATO:
		if (nvf_ulong_valid(v, 0, NVF_KATO_MAX, &n))
			return true;
		nvf_err("invalid --keep-alive-tmo '%s' (0 to %ld seconds)", v,
			NVF_KATO_MAX);
		return false;
	case NVF_DA_CONNECT:
		if (!strcmp(v, "all") || !strcmp(v, "none") ||
		    !strcmp(v, "match"))
			return true;
		nvf_err("invalid --connect '%s' (all, none or match)", v);
		return false;
	case NVF_DA_DISCONNECT:
		if (!strcmp(v, "none") || !strcmp(v, "ours"))
			return true;
		nvf_err("invalid --disconnect '%s' (none or ours)", v);
		return false;
	case NVF_DA_POLL_INTERVAL:
		if (nvf_ulong_valid(v, 0, NVF_POLL_MAX, &n))
			return true;
		nvf_err("invalid --poll-interval '%s' (0 to %ld seconds)", v,
			NVF_POLL_MAX);
		return false;
	case NVF_DA_MAX_INFLIGHT:
		if (nvf_ulong_valid(v, 1, NVF_INFLIGHT_MAX, &n))
			return true;
		nvf_err("invalid --max-inflight '%s' (1 to %d)", v,
			NVF_INFLIGHT_MAX);
		return false;
	case NVF_DA_CONNECT_OPTS:
		if (strcspn(v, " \t\n") != strlen(v)) {
			nvf_err("invalid --connect-opts '%s': no blanks", v);
			return false;
		}
		return !nvf_co_check(v);
	}
	return true;
}

/*
 * The host identity when neither --hostnqn nor --hostid is given: the one
 * connect takes from /etc/nvme (nvf_host_ids()), or nothing. With one of them alone:
 * an error. Return: 0, or -1 after reporting.
 */
static int nvf_da_host(struct nvf_disc_entry *d)
{
	char *nqn, *id;
	int ret = 0;

	if (d->val[NVF_DA_HOSTNQN] && !d->val[NVF_DA_HOSTID]) {
		nvf_err("--hostnqn needs --hostid: the kernel refuses a host NQN without its host ID");
		return -1;
	}
	if (d->val[NVF_DA_HOSTID] && !d->val[NVF_DA_HOSTNQN]) {
		nvf_err("--hostid needs --hostnqn: the kernel refuses a host ID without its host NQN");
		return -1;
	}
	if (d->val[NVF_DA_HOSTNQN])
		return 0;
	if (nvf_host_ids(NULL, NULL, &nqn, &id))
		return -1;
	if (nqn && id && nvf_nqn_valid(nqn))
		ret = nvf_da_set(d, NVF_DA_HOSTNQN, nqn) ||
		      nvf_da_set(d, NVF_DA_HOSTID, id) ? -1 : 0;
	free(nqn);
	free(id);
	return ret;
}

/*
 * Parse "NAME OPTIONS..." (@argv[0] is the verb and not parsed; the name
 * is @argv[1]) into a new entry. Return: the entry, or NULL after
 * reporting.
 */
struct nvf_disc_entry *nvf_disc_entry_parse(int argc, char **argv)
{
	static const char shortopts[] = ":t:a:s:w:f:q:I:n:k:h";
	struct nvf_disc_entry *d;
	bool connect_set = false;
	int c, a;

	if (argc < 2 || argv[1][0] == '-') {
		nvf_err("missing NAME");
		return NULL;
	}
	if (!nvf_disc_name_valid(argv[1])) {
		nvf_err("invalid NAME '%s': 1 to 63 of A-Z a-z 0-9 . _ -",
			argv[1]);
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->name = strdup(argv[1]);
	if (!d || !d->name) {
		nvf_err("out of memory");
		goto out_free;
	}
	/* From NAME on, as argv[0]: optind 0 makes getopt start afresh. */
	optind = 0;
	while ((c = nvf_getopt(argc - 1, argv + 1, shortopts,
			       nvf_da_longopts)) != -1) {
		if (c == NVF_OPT_D_MATCH) {
			if (nvf_da_match(d, optarg))
				goto out_free;
			continue;
		}
		if (c == 'h') {
			nvf_err("option '-h/--help' goes before NAME");
			goto out_free;
		}
		for (a = 0; a < NVF_NR_DA; a++) {
			if (nvf_da_opts[a] == c)
				break;
		}
		if (a == NVF_NR_DA)
			goto out_free;
		if (!nvf_da_check(a, optarg) || nvf_da_set(d, a, optarg))
			goto out_free;
		if (a == NVF_DA_CONNECT)
			connect_set = true;
	}
	if (nvf_no_operands(argc - 1, argv + 1))
		goto out_free;
	if (!d->val[NVF_DA_TRANSPORT]) {
		nvf_err("required argument [--transport | -t] not specified");
		goto out_free;
	}
	if (!d->val[NVF_DA_TRADDR]) {
		nvf_err("required argument [--traddr | -a] not specified");
		goto out_free;
	}
	if (d->val[NVF_DA_MATCH] && !connect_set &&
	    nvf_da_set(d, NVF_DA_CONNECT, "match"))
		goto out_free;
	if (d->val[NVF_DA_MATCH] && strcmp(d->val[NVF_DA_CONNECT], "match")) {
		nvf_err("--match goes with --connect=match only");
		goto out_free;
	}
	if (!d->val[NVF_DA_MATCH] && d->val[NVF_DA_CONNECT] &&
	    !strcmp(d->val[NVF_DA_CONNECT], "match")) {
		nvf_err("--connect=match needs at least one --match");
		goto out_free;
	}
	if (nvf_da_host(d))
		goto out_free;
	return d;

out_free:
	nvf_disc_entry_free(d);
	return NULL;
}

/* "transport=tcp traddr=..." : the attributes @d sets, for messages. */
void nvf_disc_entry_print(const struct nvf_disc_entry *d, FILE *f)
{
	const char *sep = "";
	int a;

	for (a = 0; a < NVF_NR_DA; a++) {
		if (!d->val[a])
			continue;
		fprintf(f, "%s%s=%s", sep, nvf_da_names[a], d->val[a]);
		sep = " ";
	}
}

/* Write @val to attribute @attr of entry directory @dir. */
static int nvf_da_write(const char *dir, const char *attr, const char *val)
{
	int err = nvf_attr_write(dir, attr, val);

	if (err)
		nvf_err("cannot write '%s' to %s/%s: %s%s", val, dir, attr,
			strerror(-err),
			err == -EINVAL || err == -EBUSY ? " (see dmesg)" : "");
	return err;
}

/*
 * configfs has nvfab/ (nvfab-core) but not nvfab/discovery/ (@base): load
 * nvfab-discovery, as "modprobe -q nvfab-discovery" (modprobe from PATH).
 * Return: whether @base exists now.
 */
static bool nvf_disc_load(const char *base)
{
	char *const argv[] = { "modprobe", "-q", "nvfab-discovery", NULL };
	char *cfs = nvf_configfs_dir();
	bool core = cfs && nvf_is_dir(cfs);
	int status;
	pid_t pid;

	free(cfs);
	if (!core)
		return false;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return false;
	}
	return nvf_is_dir(base);
}

/*
 * Create entry @d in configfs and enable it. *@exists (if not NULL): an
 * entry of that name exists already, then nothing is written and 0 is
 * returned; with @exists NULL that is an error. Return: 0, or -1 after
 * reporting (an entry made here is removed again).
 */
int nvf_disc_entry_apply(const struct nvf_disc_entry *d, bool *exists)
{
	char *base, *dir = NULL;
	int a, ret = -1;

	base = nvf_disc_dir();
	if (!base)
		return -1;
	if (!nvf_is_dir(base) && !nvf_disc_load(base)) {
		nvf_err("no %s (is module nvfab-discovery loaded and configfs mounted?)",
			base);
		goto out_free;
	}
	dir = nvf_path(base, d->name);
	if (!dir)
		goto out_free;
	if (mkdir(dir, 0755)) {
		if (errno == EEXIST && exists) {
			*exists = true;
			ret = 0;
		} else if (errno == EEXIST) {
			nvf_err("discovery entry '%s' exists (remove it first)",
				d->name);
		} else {
			nvf_err("cannot create %s: %s", dir, strerror(errno));
		}
		goto out_free;
	}
	if (exists)
		*exists = false;
	for (a = 0; a < NVF_NR_DA; a++) {
		if (d->val[a] && nvf_da_write(dir, nvf_da_names[a], d->val[a]))
			goto out_remove;
	}
	if (nvf_da_write(dir, "enable", "1"))
		goto out_remove;
	ret = 0;
	goto out_free;

out_remove:
	if (rmdir(dir))
		nvf_warn("cannot remove %s again: %s", dir, strerror(errno));
out_free:
	free(dir);
	free(base);
	return ret;
}

static int nvf_discovery_add(int argc, char **argv)
{
	struct nvf_disc_entry *d;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		nvf_discovery_usage(stdout);
		return NVF_EXIT_OK;
	}
	d = nvf_disc_entry_parse(argc, argv);
	if (!d)
		return NVF_EXIT_FAIL;
	ret = nvf_disc_entry_apply(d, NULL);
	if (!ret) {
		printf("%s: ", d->name);
		nvf_disc_entry_print(d, stdout);
		printf("\n");
	}
	nvf_disc_entry_free(d);
	return ret ? NVF_EXIT_FAIL : NVF_EXIT_OK;
}

static int nvf_discovery_remove(int argc, char **argv)
{
	char *base, *dir = NULL;
	int err, ret = NVF_EXIT_FAIL;

	if (argc < 2) {
		nvf_err("missing NAME");
		return NVF_EXIT_FAIL;
	}
	if (argc > 2) {
		nvf_err("unexpected argument '%s'", argv[2]);
		return NVF_EXIT_FAIL;
	}
	if (!nvf_disc_name_valid(argv[1])) {
		nvf_err("invalid NAME '%s': 1 to 63 of A-Z a-z 0-9 . _ -",
			argv[1]);
		return NVF_EXIT_FAIL;
	}
	base = nvf_disc_dir();
	if (!base)
		return NVF_EXIT_FAIL;
	dir = nvf_path(base, argv[1]);
	if (!dir)
		goto out_free;
	if (!nvf_is_dir(dir)) {
		nvf_err("no discovery entry '%s' (in %s)", argv[1], base);
		goto out_free;
	}
	/* rmdir stops it anyway: a failed disable is not the end. */
	err = nvf_attr_write(dir, "enable", "0");
	if (err)
		nvf_warn("cannot write 0 to %s/enable: %s", dir,
			 strerror(-err));
	if (rmdir(dir)) {
		nvf_err("cannot remove %s: %s", dir, strerror(errno));
		goto out_free;
	}
	ret = NVF_EXIT_OK;
out_free:
	free(dir);
	free(base);
	return ret;
}

/* Attribute @attr of @dir, sanitized, or NULL. */
static char *nvf_da_read(const char *dir, const char *attr)
{
	char *v = nvf_attr_read_trim(dir, attr);

	if (v)
		nvf_sanitize(v);
	return v;
}

/* The value of @key in "k=v k=v" @s, as a number; -1 if absent. */
static long long nvf_kv_num(const char *s, const char *key)
{
	size_t klen = strlen(key), n;
	const char *p = s;
	char num[24];

	while (p && *p) {
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n > klen && n - klen - 1 < sizeof(num) &&
		    !strncmp(p, key, klen) && p[klen] == '=') {
			memcpy(num, p + klen + 1, n - klen - 1);
			num[n - klen - 1] = '\0';
			return nvf_parse_ll(num);
		}
		p += n;
	}
	return -1;
}

/* The whole of attribute @attr of @dir (the log: up to 1 MiB), or NULL. */
static char *nvf_da_read_all(const char *dir, const char *attr)
{
	size_t max = 1 << 20, total = 0;
	char *path, *buf;
	ssize_t len;
	int fd;

	path = nvf_path(dir, attr);
	if (!path)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	while (buf && total < max) {
		len = read(fd, buf + total, max - total);
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			break;
		total += len;
	}
	if (buf)
		buf[total] = '\0';
	close(fd);
	return buf;
}

/* Each "key=value" word of @line as a JSON string member. */
static void nvf_json_kv_line(struct nvf_json *j, char *line)
{
	char *w, *eq, *save = NULL;

	for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		nvf_json_str(j, w, eq + 1);
	}
}

/*
 * Attribute @a of @dir as one line: match has a pattern per line, joined
 * here with spaces (the form add takes).
 */
static char *nvf_da_read_list(const char *dir, int a)
{
	char *v, *p;
	size_t len;

	if (a != NVF_DA_MATCH)
		return nvf_da_read(dir, nvf_da_names[a]);
	v = nvf_da_read_all(dir, nvf_da_names[a]);
	if (!v)
		return NULL;
	len = strlen(v);
	while (len && (v[len - 1] == '\n' || v[len - 1] == ' '))
		v[--len] = '\0';
	for (p = v; *p; p++) {
		if (*p == '\n')
			*p = ' ';
	}
	nvf_sanitize(v);
	return v;
}

/* The log of entry @dir: as JSON entries, or lines (for list -v). */
static void nvf_disc_list_log(const char *dir, struct nvf_json *j)
{
	char *log = nvf_da_read_all(dir, "log"), *line, *save = NULL;
	char *referral = NULL;

	if (j)
		nvf_json_begin(j, "log", '[');
	for (line = log ? strtok_r(log, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		nvf_sanitize(line);
		if (!j) {
			printf("    %s\n", line);
			continue;
		}
		if (!strncmp(line, "# referral ", 11)) {
			referral = line + 11;
			continue;
		}
		nvf_json_begin(j, NULL, '{');
		if (referral)
			nvf_json_str(j, "referral", referral);
		nvf_json_kv_line(j, line);
		nvf_json_end(j, '}');
	}
	if (j)
		nvf_json_end(j, ']');
	free(log);
}

static int nvf_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of the entries in @base, sorted, into *@names (*@nr of them;
 * none when @base does not exist). Return: 0, or -1 after reporting.
 */
static int nvf_disc_names(const char *base, char ***names, size_t *nr)
{
	struct dirent *de;
	char *dir, **tmp;
	DIR *dd;

	*names = NULL;
	*nr = 0;
	dd = opendir(base);
	if (!dd && errno != ENOENT) {
		nvf_err("cannot read %s: %s", base, strerror(errno));
		return -1;
	}
	while (dd && (de = readdir(dd))) {
		if (!nvf_disc_name_valid(de->d_name))
			continue;
		dir = nvf_path(base, de->d_name);
		if (!dir || !nvf_is_dir(dir)) {
			free(dir);
			continue;
		}
		free(dir);
		tmp = realloc(*names, (*nr + 1) * sizeof(**names));
		if (!tmp) {
			nvf_err("out of memory");
			break;
		}
		*names = tmp;
		(*names)[*nr] = strdup(de->d_name);
		if (!(*names)[*nr]) {
			nvf_err("out of memory");
			break;
		}
		(*nr)++;
	}
	if (dd)
		closedir(dd);
	if (*nr)
		qsort(*names, *nr, sizeof(**names), nvf_name_cmp);
	return 0;
}

/* The long option of attribute @a ("traddr" -> "traddr"), or NULL. */
static const char *nvf_da_longopt(int a)
{
	const struct option *o;

	if (a == NVF_DA_MATCH)
		return "match";
	for (o = nvf_da_longopts; o->name; o++) {
		if (o->val == nvf_da_opts[a])
			return o->name;
	}
	return NULL;
}

/*
 * "config dump": each entry of configfs as a "discovery NAME OPTIONS..."
 * line of nvfab.conf, on @f: every attribute that has a value, as the
 * long option of "discovery add" that sets it. A value that a line
 * cannot hold (a blank, a quote, '#') is written as a comment instead.
 * Return: the number of entries written, or -1 after reporting.
 */
int nvf_disc_dump(FILE *f)
{
	char *base, *dir, *v, *w, *save, **names;
	const char *opt;
	size_t nr, i;
	bool bad;
	int a;

	base = nvf_disc_dir();
	if (!base)
		return -1;
	if (nvf_disc_names(base, &names, &nr)) {
		free(base);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		dir = nvf_path(base, names[i]);
		fprintf(f, "discovery %s", names[i]);
		bad = false;
		for (a = 0; dir && a < NVF_NR_DA; a++) {
			v = nvf_da_read_list(dir, a);
			opt = nvf_da_longopt(a);
			if (!v || !*v || !opt) {
				free(v);
				continue;
			}
			if (strpbrk(v, "\"'\\#\t") || (a != NVF_DA_MATCH && strchr(v, ' '))) {
				bad = true;
				free(v);
				continue;
			}
			/* match: one pattern per option */
			save = NULL;
			for (w = strtok_r(v, " ", &save); w;
			     w = strtok_r(NULL, " ", &save))
				fprintf(f, " --%s=%s", opt, w);
			free(v);
		}
		fprintf(f, "\n");
		if (bad)
			fprintf(f,
				"# discovery %s: a value with a blank, quote or '#' was left out\n",
				names[i]);
		free(dir);
		free(names[i]);
	}
	free(names);
	free(base);
	return nr;
}

static int nvf_discovery_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output-format",	required_argument, NULL, 'o' },
		{ "verbose",		no_argument,	   NULL, 'v' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL,			0,		   NULL, 0 }
	};
	static const char *const stat_keys[] = {
		"log_reads", "log_errors", "aens", "polls", "genctr", "entries",
		"connects", "connect_failures", "disconnects", "inflight",
		"inflight_peak", "referrals",
	};
	enum nvf_format fmt = NVF_FMT_NORMAL;
	char *base, *dir, *v, **names = NULL;
	size_t nr = 0, i, k;
	bool verbose = false;
	struct nvf_json j;
	int c, a;

	optind = 0;
	while ((c = nvf_getopt(argc, argv, ":o:vh", longopts)) != -1) {
		if (c == 'o' && !nvf_parse_format(optarg, &fmt))
			continue;
		if (c == 'v') {
			verbose = true;
			continue;
		}
		if (c == 'h') {
			nvf_discovery_usage(stdout);
			return NVF_EXIT_OK;
		}
		return NVF_EXIT_FAIL;
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	base = nvf_disc_dir();
	if (!base)
		return NVF_EXIT_FAIL;
	if (nvf_disc_names(base, &names, &nr)) {
		free(base);
		return NVF_EXIT_FAIL;
	}

	if (fmt == NVF_FMT_JSON) {
		nvf_json_init(&j, stdout);
		nvf_json_begin(&j, NULL, '{');
		nvf_json_begin(&j, "discovery", '[');
	} else if (nr) {
		printf("%-16s %-10s %-9s %-5s %-39s %-7s %-7s %7s %8s\n",
		       "Name", "State", "Ctrl", "Trans", "Address", "Service",
		       "Connect", "Entries", "Connects");
	}
	for (i = 0; i < nr; i++) {
		dir = nvf_path(base, names[i]);
		if (!dir)
			break;
		v = nvf_da_read(dir, "stats");
		if (fmt == NVF_FMT_JSON) {
			nvf_json_begin(&j, NULL, '{');
			nvf_json_str(&j, "name", names[i]);
			for (a = 0; a < NVF_NR_DA; a++) {
				char *val = nvf_da_read_list(dir, a);

				nvf_json_str(&j, nvf_da_names[a], val);
				free(val);
			}
			for (k = 0; k < 3; k++) {
				static const char *const ro[] = {
					"enable", "state", "ctrl",
				};
				char *val = nvf_da_read(dir, ro[k]);

				nvf_json_str(&j, ro[k], val);
				free(val);
			}
			nvf_json_begin(&j, "stats", '{');
			for (k = 0; v && k < ARRAY_SIZE(stat_keys); k++)
				nvf_json_num(&j, stat_keys[k],
					     nvf_kv_num(v, stat_keys[k]));
			nvf_json_end(&j, '}');
			nvf_disc_list_log(dir, &j);
			nvf_json_end(&j, '}');
		} else {
			char *st = nvf_da_read(dir, "state");
			char *ctrl = nvf_da_read(dir, "ctrl");
			char *tr = nvf_da_read(dir, "transport");
			char *ad = nvf_da_read(dir, "traddr");
			char *sv = nvf_da_read(dir, "trsvcid");
			char *co = nvf_da_read(dir, "connect");
			char n1[24], n2[24];

			printf("%-16s %-10s %-9s %-5s %-39s %-7s %-7s %7s %8s\n",
			       names[i], nvf_or_dash(st),
			       nvf_or_dash(ctrl && *ctrl ? ctrl : NULL),
			       nvf_or_dash(tr), nvf_or_dash(ad),
			       nvf_or_dash(sv), nvf_or_dash(co),
			       nvf_num_or_dash(v ? nvf_kv_num(v, "entries") : -1,
					       n1, sizeof(n1)),
			       nvf_num_or_dash(v ? nvf_kv_num(v, "connects") : -1,
					       n2, sizeof(n2)));
			if (verbose)
				nvf_disc_list_log(dir, NULL);
			free(st);
			free(ctrl);
			free(tr);
			free(ad);
			free(sv);
			free(co);
		}
		free(v);
		free(dir);
	}
	if (fmt == NVF_FMT_JSON) {
		nvf_json_end(&j, ']');
		nvf_json_end(&j, '}');
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(base);
	return NVF_EXIT_OK;
}

int nvf_discovery(int argc, char **argv)
{
	const char *sub;

	if (argc < 2) {
		nvf_err("missing subcommand: add, remove or list");
		return NVF_EXIT_FAIL;
	}
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		nvf_discovery_usage(stdout);
		return NVF_EXIT_OK;
	}
	if (!strcmp(sub, "add"))
		return nvf_discovery_add(argc - 1, argv + 1);
	if (!strcmp(sub, "remove"))
		return nvf_discovery_remove(argc - 1, argv + 1);
	if (!strcmp(sub, "list"))
		return nvf_discovery_list(argc - 1, argv + 1);
	nvf_err("unknown subcommand '%s' (add, remove or list)", sub);
	return NVF_EXIT_FAIL;
}
