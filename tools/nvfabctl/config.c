// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl config: the boot-time configuration file, /etc/nvfab/nvfab.conf
 * (nvfab.conf in $NVFAB_ETC_NVFAB for tests).
 *
 * One directive per line. A line is split into words at blanks (space,
 * tab, and CR for files written elsewhere); a word that starts with '#'
 * starts a comment that runs to the end of the line. There is no quoting:
 * no value of any directive can hold a blank, so quotes and backslashes
 * are refused rather than passed on as part of a value.
 *
 *   policy NQN KEY=VALUE...   the configfs entry
 *                             <configfs>/nvfab/subsystems/NQN/ and the
 *                             attributes to write in it (iopolicy,
 *                             no_path_tmo)
 *   connect OPTIONS...        a controller, given with the options of
 *                             "nvfabctl connect", parsed by connect.c
 *   discovery NAME OPTIONS... a persistent discovery controller of
 *                             module nvfab-discovery, given with the
 *                             options of "nvfabctl discovery add",
 *                             parsed by discovery.c
 *
 * The file is parsed whole before anything is done. Every error is
 * reported as "FILE:LINE: message", and one error anywhere means that
 * nothing is applied. "apply" then writes every policy, in file order,
 * then connects every controller, skipping those that are connected
 * already, --parallel at once (jobs.c), and when each has been tried once
 * creates every discovery entry that configfs does not have yet, so that
 * each subsystem is created with its policy and a second run changes
 * nothing. With --retry (nvfab-boot.service), connects that failed for a
 * reason that may pass (the network is not up yet) are retried with
 * backoff until they succeed or the run is stopped.
 *
 * Documented in Documentation/admin-guide/nvfab-persistence.rst and
 * Documentation/nvfabctl.8.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uapi/nvfab/fabrics.h>

#include "nvfabctl.h"
#include "config.h"
#include "dlp.h"
#include "jobs.h"

#define NVF_ETC_NVFAB		"/etc/nvfab"
#define NVF_CONF_NAME		"nvfab.conf"
#define NVF_CONFIGFS		"/sys/kernel/config"

/* Longest line in bytes; an option string is at most 4096 of them. */
#define NVF_CONF_LINE_MAX	8192
/* Longest subsystem NQN in bytes (NVMe Base 2.0, 4.5), as configfs has it. */
#define NVF_NQN_MAX		223
/* The limits of the configfs attributes (configfs-nvfab). */
#define NVF_IOPOLICY_MAX	31
#define NVF_NO_PATH_TMO_MAX	3600
/* Room for a checked policy value: a selector name, "auto" or seconds. */
#define NVF_POL_VAL_MAX		(NVF_IOPOLICY_MAX + 1)

enum nvf_conf_kind {
	NVF_CONF_POLICY,
	NVF_CONF_CONNECT,
	NVF_CONF_DISCOVERY,
};

/* Policy keys: attributes of a configfs entry, and of a subsystem in sysfs. */
enum {
	NVF_POL_IOPOLICY,
	NVF_POL_NO_PATH_TMO,
	NVF_NR_POL,
};

static bool nvf_pol_iopolicy(const char *val, char *canon);
static bool nvf_pol_no_path_tmo(const char *val, char *canon);

static const struct {
	const char	*key;
	const char	*expect;
	/* check @val; on success write its canonical form to @canon */
	bool		(*parse)(const char *val, char *canon);
} nvf_pol_keys[NVF_NR_POL] = {
	[NVF_POL_IOPOLICY]	= { "iopolicy",
				    "a selector name, 1 to 31 of a-z, 0-9 and '-'",
				    nvf_pol_iopolicy },
	[NVF_POL_NO_PATH_TMO]	= { "no_path_tmo",
				    "\"auto\" or 1 to 3600 seconds",
				    nvf_pol_no_path_tmo },
};

/* What makes two connect directives one controller: these keys agree. */
static const char *const nvf_ctrl_keys[] = {
	"nqn", "transport", "traddr", "host_traddr", "host_iface", "trsvcid",
	"hostnqn",
};

/* One directive of the file. */
struct nvf_conf_dir {
	enum nvf_conf_kind	kind;
	int			line;
	char			*nqn;		/* policy */
	char			val[NVF_NR_POL][NVF_POL_VAL_MAX]; /* "": unset */
	char			*opts;		/* connect: the option string */
	struct nvf_disc_entry	*disc;		/* discovery */
	bool			failed;		/* apply: the policy failed */
};

struct nvf_conf {
	const char		*file;
	char			*where;		/* "config: FILE:LINE" */
	size_t			where_size;
	struct nvf_conf_dir	*dirs;
	size_t			nr, cap;
	size_t			nr_policy, nr_connect, nr_discovery;
	int			errors;
	char			**words;	/* the words of the current line */
	size_t			words_cap;
	struct nvf_jobs_cfg	run;		/* apply: parallel, retries */
	int			failed_later;	/* apply: discovery failures */
};

/* A connect directive as a job of jobs.c. */
struct nvf_conf_job {
	struct nvf_conf		*c;
	struct nvf_conf_dir	*d;
};

/*
 * Make nvf_err() and nvf_warn() name @line of the file ("nvfabctl: config:
 * FILE:LINE: ..."), or the file alone for line 0.
 */
static void nvf_conf_at(struct nvf_conf *c, int line)
{
	if (line)
		snprintf(c->where, c->where_size, "config: %s:%d", c->file,
			 line);
	else
		snprintf(c->where, c->where_size, "config: %s", c->file);
	nvf_verb = c->where;
}

static bool nvf_pol_iopolicy(const char *val, char *canon)
{
	size_t len = strlen(val);

	if (!len || len > NVF_IOPOLICY_MAX ||
	    strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789-") != len)
		return false;
	memcpy(canon, val, len + 1);
	return true;
}

static bool nvf_pol_no_path_tmo(const char *val, char *canon)
{
	size_t len = strlen(val);
	long v;

	if (!strcmp(val, "auto")) {
		snprintf(canon, NVF_POL_VAL_MAX, "auto");
		return true;
	}
	if (!len || strspn(val, "0123456789") != len)
		return false;
	errno = 0;
	v = strtol(val, NULL, 10);
	if (errno || v < 1 || v > NVF_NO_PATH_TMO_MAX)
		return false;
	snprintf(canon, NVF_POL_VAL_MAX, "%ld", v);
	return true;
}

/*
 * Why @nqn cannot name a configfs entry, to follow "it", or NULL if it
 * can: the rules of subsystems/ in configfs-nvfab (1 to 223 bytes of
 * visible ASCII, no '/', "nqn." and something after it).
 */
static const char *nvf_nqn_invalid(const char *nqn)
{
	const unsigned char *p;
	size_t len = strlen(nqn);

	if (len > NVF_NQN_MAX)
		return "is longer than 223 bytes";
	for (p = (const unsigned char *)nqn; *p; p++) {
		if (*p == '/')
			return "contains '/'";
		if (*p < 0x21 || *p > 0x7e)
			return "contains a control or non-ASCII byte";
	}
	if (strncmp(nqn, "nqn.", 4))
		return "does not start with \"nqn.\"";
	if (len == 4)
		return "has nothing after \"nqn.\"";
	return NULL;
}

/*
 * The value of @key in @s, an option string or a controller's address
 * ("key=value,flag,key=value"): true with *@val and *@len set; false if
 * @key is absent or a flag.
 */
static bool nvf_opts_get(const char *s, const char *key, const char **val,
			 size_t *len)
{
	size_t klen = strlen(key), n;

	while (*s) {
		n = strcspn(s, ",");
		if (n > klen && !strncmp(s, key, klen) && s[klen] == '=') {
			*val = s + klen + 1;
			*len = n - klen - 1;
			return true;
		}
		s += n;
		if (*s)
			s++;
	}
	return false;
}

/* Is @key of @s exactly @val (not NULL)? */
static bool nvf_opts_is(const char *s, const char *key, const char *val)
{
	const char *v;
	size_t n;

	return val && nvf_opts_get(s, key, &v, &n) && strlen(val) == n &&
	       !memcmp(v, val, n);
}

/* Has @key one value in @a and @b, or is it absent from both? */
static bool nvf_opts_same(const char *a, const char *b, const char *key)
{
	const char *va, *vb;
	size_t la, lb;
	bool ha, hb;

	ha = nvf_opts_get(a, key, &va, &la);
	hb = nvf_opts_get(b, key, &vb, &lb);
	if (ha != hb)
		return false;
	return !ha || (la == lb && !memcmp(va, vb, la));
}

/* A malloc'ed copy of the value of @key in @s; NULL if absent or no memory. */
static char *nvf_opts_dup(const char *s, const char *key)
{
	const char *v;
	size_t n;

	return nvf_opts_get(s, key, &v, &n) ? strndup(v, n) : NULL;
}

/* Add a directive; NULL (reported, counted) when out of memory. */
static struct nvf_conf_dir *nvf_conf_add(struct nvf_conf *c,
					 enum nvf_conf_kind kind, int line)
{
	struct nvf_conf_dir *tmp, *d;

	if (c->nr == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		tmp = realloc(c->dirs, c->cap * sizeof(*tmp));
		if (!tmp) {
			nvf_err("out of memory");
			c->errors++;
			return NULL;
		}
		c->dirs = tmp;
	}
	d = &c->dirs[c->nr++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->line = line;
	return d;
}

/*
 * Split @line (@len bytes, its newline removed) into c->words, in place.
 * Return: the number of words, 0 for a blank or comment line, or -1 after
 * reporting an error.
 */
static int nvf_conf_split(struct nvf_conf *c, char *line, size_t len)
{
	size_t n = 0, i;
	char **tmp;
	char *p;

	if (strlen(line) != len) {
		nvf_err("contains a NUL byte");
		return -1;
	}
	for (p = line; *p;) {
		p += strspn(p, " \t\r");
		if (!*p || *p == '#')
			break;
		/* Room for this word and the NULL that ends the vector. */
		if (n + 2 > c->words_cap) {
			c->words_cap = c->words_cap ? 2 * c->words_cap : 16;
			tmp = realloc(c->words, c->words_cap * sizeof(*tmp));
			if (!tmp) {
				nvf_err("out of memory");
				return -1;
			}
			c->words = tmp;
		}
		c->words[n++] = p;
		p += strcspn(p, " \t\r");
		if (*p)
			*p++ = '\0';
	}
	for (i = 0; i < n; i++) {
		for (p = c->words[i]; *p; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				nvf_err("control character 0x%02x in word %zu",
					(unsigned char)*p, i + 1);
				return -1;
			}
			if (*p == '"' || *p == '\'' || *p == '\\') {
				nvf_err("quotes and backslashes are not supported (no value has blanks): '%s'",
					c->words[i]);
				return -1;
			}
		}
	}
	if (n)
		c->words[n] = NULL;
	return (int)n;
}

static struct nvf_conf_dir *nvf_conf_find_policy(struct nvf_conf *c,
						 const char *nqn)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind == NVF_CONF_POLICY &&
		    !strcmp(c->dirs[i].nqn, nqn))
			return &c->dirs[i];
	}
	return NULL;
}

/* policy NQN KEY=VALUE...; errors are reported and counted. */
static void nvf_conf_policy(struct nvf_conf *c, int line, int argc,
			    char **argv)
{
	char val[NVF_NR_POL][NVF_POL_VAL_MAX] = { { 0 } };
	struct nvf_conf_dir *d;
	const char *why;
	char *key, *eq;
	int i, k;

	if (argc < 2) {
		nvf_err("policy needs an NQN and KEY=VALUE pairs");
		goto out_error;
	}
	why = nvf_nqn_invalid(argv[1]);
	if (why) {
		nvf_err("invalid NQN '%s': it %s", argv[1], why);
		goto out_error;
	}
	d = nvf_conf_find_policy(c, argv[1]);
	if (d) {
		nvf_err("policy of %s already given on line %d", argv[1],
			d->line);
		goto out_error;
	}
	if (argc < 3) {
		nvf_err("policy %s: no KEY=VALUE (keys: iopolicy, no_path_tmo)",
			argv[1]);
		goto out_error;
	}
	for (i = 2; i < argc; i++) {
		key = argv[i];
		eq = strchr(key, '=');
		if (!eq) {
			nvf_err("expected KEY=VALUE, got '%s'", key);
			goto out_error;
		}
		*eq = '\0';
		for (k = 0; k < NVF_NR_POL; k++) {
			if (!strcmp(nvf_pol_keys[k].key, key))
				break;
		}
		if (k == NVF_NR_POL) {
			nvf_err("unknown policy key '%s' (keys: iopolicy, no_path_tmo)",
				key);
			goto out_error;
		}
		if (val[k][0]) {
			nvf_err("%s given twice", key);
			goto out_error;
		}
		if (!eq[1]) {
			nvf_err("empty value for %s", key);
			goto out_error;
		}
		if (!nvf_pol_keys[k].parse(eq + 1, val[k])) {
			nvf_err("invalid %s '%s': expected %s", key, eq + 1,
				nvf_pol_keys[k].expect);
			goto out_error;
		}
	}

	d = nvf_conf_add(c, NVF_CONF_POLICY, line);
	if (!d)
		return;
	d->nqn = strdup(argv[1]);
	if (!d->nqn) {
		c->nr--;
		nvf_err("out of memory");
		goto out_error;
	}
	memcpy(d->val, val, sizeof(val));
	c->nr_policy++;
	return;

out_error:
	c->errors++;
}

/* connect OPTIONS...; errors are reported and counted. */
static void nvf_conf_connect(struct nvf_conf *c, int line, int argc,
			     char **argv)
{
	struct nvf_conf_dir *d;
	size_t i, k;
	char *opts;

	opts = nvf_connect_string(argc, argv);
	if (!opts) {
		c->errors++;
		return;
	}
	for (i = 0; i < c->nr; i++) {
		d = &c->dirs[i];
		if (d->kind != NVF_CONF_CONNECT)
			continue;
		for (k = 0; k < ARRAY_SIZE(nvf_ctrl_keys); k++) {
			if (!nvf_opts_same(d->opts, opts, nvf_ctrl_keys[k]))
				break;
		}
		if (k == ARRAY_SIZE(nvf_ctrl_keys)) {
			nvf_err("the controller of line %d again (same nqn, transport, traddr, host_traddr, host_iface, trsvcid and hostnqn)",
				d->line);
			free(opts);
			c->errors++;
			return;
		}
	}
	d = nvf_conf_add(c, NVF_CONF_CONNECT, line);
	if (!d) {
		free(opts);
		return;
	}
	d->opts = opts;
	c->nr_connect++;
}

/* discovery NAME OPTIONS...; errors are reported and counted. */
static void nvf_conf_discovery(struct nvf_conf *c, int line, int argc,
			       char **argv)
{
	struct nvf_disc_entry *e;
	struct nvf_conf_dir *d;
	size_t i;

	e = nvf_disc_entry_parse(argc, argv);
	if (!e) {
		c->errors++;
		return;
	}
	for (i = 0; i < c->nr; i++) {
		d = &c->dirs[i];
		if (d->kind == NVF_CONF_DISCOVERY &&
		    !strcmp(nvf_disc_entry_name(d->disc),
			    nvf_disc_entry_name(e))) {
			nvf_err("discovery entry '%s' already given on line %d",
				nvf_disc_entry_name(e), d->line);
			nvf_disc_entry_free(e);
			c->errors++;
			return;
		}
	}
	d = nvf_conf_add(c, NVF_CONF_DISCOVERY, line);
	if (!d) {
		nvf_disc_entry_free(e);
		return;
	}
	d->disc = e;
	c->nr_discovery++;
}

/*
 * Parse the whole file into @c, reporting every error. Return: 0, or -1
 * when the file cannot be read (reported); c->errors counts the errors.
 */
static int nvf_conf_parse(struct nvf_conf *c)
{
	size_t cap = 0, len;
	char *buf = NULL;
	int line = 0, n, ret = 0;
	ssize_t got;
	FILE *f;

	f = fopen(c->file, "re");
	if (!f) {
		nvf_err("cannot open %s: %s", c->file, strerror(errno));
		return -1;
	}
	errno = 0;
	while ((got = getline(&buf, &cap, f)) != -1) {
		line++;
		nvf_conf_at(c, line);
		len = got;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (len > NVF_CONF_LINE_MAX) {
			nvf_err("line is longer than %d bytes",
				NVF_CONF_LINE_MAX);
			c->errors++;
			continue;
		}
		n = nvf_conf_split(c, buf, len);
		if (n < 0)
			c->errors++;
		if (n <= 0)
			continue;
		if (!strcmp(c->words[0], "policy")) {
			nvf_conf_policy(c, line, n, c->words);
		} else if (!strcmp(c->words[0], "connect")) {
			nvf_conf_connect(c, line, n, c->words);
		} else if (!strcmp(c->words[0], "discovery")) {
			nvf_conf_discovery(c, line, n, c->words);
		} else {
			nvf_err("unknown directive '%s' (expected policy, connect or discovery)",
				c->words[0]);
			c->errors++;
		}
		errno = 0;
	}
	nvf_verb = "config";
	if (ferror(f)) {
		nvf_err("cannot read %s: %s", c->file,
			strerror(errno ? errno : EIO));
		ret = -1;
	}
	free(buf);
	fclose(f);
	return ret;
}

static void nvf_conf_free(struct nvf_conf *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->dirs[i].nqn);
		free(c->dirs[i].opts);
		nvf_disc_entry_free(c->dirs[i].disc);
	}
	free(c->dirs);
	free(c->words);
	free(c->where);
}

/* "iopolicy=round-robin no_path_tmo=30": the keys a policy sets. */
static void nvf_conf_print_policy(const struct nvf_conf_dir *d)
{
	const char *sep = "";
	int k;

	for (k = 0; k < NVF_NR_POL; k++) {
		if (!d->val[k][0])
			continue;
		printf("%s%s=%s", sep, nvf_pol_keys[k].key, d->val[k]);
		sep = " ";
	}
}

/* <configfs>/nvfab, where <configfs> is $NVFAB_CONFIGFS or the usual. */
char *nvf_configfs_dir(void)
{
	const char *root = getenv("NVFAB_CONFIGFS");

	return nvf_path(root && *root ? root : NVF_CONFIGFS, "nvfab");
}

/* Is @name one of the comma-separated names in @list? */
static bool nvf_list_has(const char *list, const char *name)
{
	size_t len = strlen(name), n;

	while (list && *list) {
		n = strcspn(list, ",");
		if (n == len && !strncmp(list, name, n))
			return true;
		list += n;
		if (*list)
			list++;
	}
	return false;
}

/*
 * Before anything is written: configfs has nvfab/ and its features list
 * every key the policies set. Return: 0, or -1 after reporting.
 */
static int nvf_conf_check_configfs(struct nvf_conf *c, const char *cfs)
{
	char *features;
	size_t i;
	int k, bad = 0;

	const char *root = getenv("NVFAB_CONFIGFS");
	char why[1536];

	if (!nvf_is_dir(cfs)) {
		nvf_conf_at(c, 0);
		if (!root || !*root)
			root = NVF_CONFIGFS;
		if (!nvf_is_dir(root)) {
			nvf_err("no %s (is module nvfab-core loaded and configfs mounted?)",
				cfs);
			return -1;
		}
		/* configfs is there: nvfab-core is not loaded, say why */
		nvf_module_why(why, sizeof(why));
		nvf_err("no %s: %s", cfs, why);
		return -1;
	}
	features = nvf_attr_read(cfs, "features");
	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind != NVF_CONF_POLICY)
			continue;
		for (k = 0; k < NVF_NR_POL; k++) {
			if (!c->dirs[i].val[k][0] ||
			    nvf_list_has(features, nvf_pol_keys[k].key))
				continue;
			nvf_conf_at(c, c->dirs[i].line);
			nvf_err("this nvfab-core has no configfs attribute '%s' (%s/features: '%s')",
				nvf_pol_keys[k].key, cfs,
				features ? features : "unreadable");
			bad++;
		}
	}
	free(features);
	return bad ? -1 : 0;
}

/*
 * Warn when a subsystem of the policy's NQN exists with other values:
 * configfs is read only when a subsystem is created.
 */
static void nvf_conf_warn_live(const struct nvf_conf_dir *d)
{
	char *classdir, *dir, *nqn, *cur;
	struct dirent *de;
	int instance, k;
	DIR *dd;

	classdir = nvf_path(nvf_sysfs_root(), "class/nvfab-subsystem");
	if (!classdir)
		return;
	dd = opendir(classdir);
	while (dd && (de = readdir(dd))) {
		if (!nvf_subsys_name_parse(de->d_name, &instance))
			continue;
		dir = nvf_path(classdir, de->d_name);
		if (!dir)
			break;
		nqn = nvf_attr_read(dir, "subsysnqn");
		for (k = 0; nqn && !strcmp(nqn, d->nqn) && k < NVF_NR_POL; k++) {
			if (!d->val[k][0])
				continue;
			cur = nvf_attr_read(dir, nvf_pol_keys[k].key);
			if (cur && strcmp(cur, d->val[k]))
				nvf_warn("%s exists with %s=%s: the policy applies when it is created again (write %s/%s to change it now)",
					 de->d_name, nvf_pol_keys[k].key, cur,
					 dir, nvf_pol_keys[k].key);
			free(cur);
		}
		free(nqn);
		free(dir);
	}
	if (dd)
		closedir(dd);
	free(classdir);
}

/*
 * Create the configfs entry of a policy (unless it exists) and write its
 * values. An entry created here is removed again when a write fails.
 * Return: 0, or -1 after reporting.
 */
static int nvf_conf_apply_policy(struct nvf_conf *c, struct nvf_conf_dir *d,
				 const char *subs)
{
	bool created = false;
	char *dir;
	int k, err = 0;

	dir = nvf_path(subs, d->nqn);
	if (!dir)
		return -1;
	if (!mkdir(dir, 0755)) {
		created = true;
	} else if (errno != EEXIST) {
		nvf_err("cannot create %s: %s", dir, strerror(errno));
		goto out_free;
	}
	for (k = 0; k < NVF_NR_POL; k++) {
		if (!d->val[k][0])
			continue;
		err = nvf_attr_write(dir, nvf_pol_keys[k].key, d->val[k]);
		if (err) {
			nvf_err("cannot write '%s' to %s/%s: %s%s", d->val[k],
				dir, nvf_pol_keys[k].key, strerror(-err),
				err == -EINVAL ? " (see dmesg)" : "");
			goto out_remove;
		}
	}
	printf("%s:%d: policy %s: ", c->file, d->line, d->nqn);
	nvf_conf_print_policy(d);
	printf("\n");
	fflush(stdout);
	nvf_conf_warn_live(d);
	free(dir);
	return 0;

out_remove:
	if (created && rmdir(dir))
		nvf_warn("cannot remove %s again: %s", dir, strerror(errno));
out_free:
	free(dir);
	return -1;
}

/* Does controller @ctrl serve connect option string @opts already? */
static bool nvf_conf_ctrl_matches(const char *opts,
				  const struct nvf_ctrl *ctrl)
{
	static const char *const addr_keys[] = {
		"traddr", "trsvcid", "host_traddr", "host_iface",
	};
	char *state, *transport, *nqn, *addr, *hostnqn;
	const char *v;
	bool match;
	size_t i, n;

	state = nvf_attr_read(ctrl->path, "state");
	transport = nvf_attr_read(ctrl->path, "transport");
	nqn = nvf_attr_read(ctrl->path, "subsysnqn");
	addr = nvf_attr_read(ctrl->path, "address");
	hostnqn = nvf_attr_read(ctrl->path, "hostnqn");

	/* The kernel too counts a controller until it is being deleted. */
	match = !(state && (!strncmp(state, "deleting", 8) ||
			    !strcmp(state, "dead"))) &&
		nvf_opts_is(opts, "transport", transport) &&
		nvf_opts_is(opts, "nqn", nqn) && addr;
	/* What the directive gives must agree; what it leaves out may be anything. */
	for (i = 0; match && i < ARRAY_SIZE(addr_keys); i++) {
		if (nvf_opts_get(opts, addr_keys[i], &v, &n))
			match = nvf_opts_same(opts, addr, addr_keys[i]);
	}
	if (match && nvf_opts_get(opts, "hostnqn", &v, &n))
		match = nvf_opts_is(opts, "hostnqn", hostnqn);

	free(state);
	free(transport);
	free(nqn);
	free(addr);
	free(hostnqn);
	return match;
}

/*
 * The controller that serves @opts already: 1 with @name set, 0 if none,
 * -1 when sysfs cannot be read (reported).
 */
static int nvf_conf_find_ctrl(const char *opts, char *name, size_t size)
{
	struct nvf_ctrl *ctrls;
	size_t nr, i;
	int found = 0;

	if (nvf_ctrl_scan(&ctrls, &nr))
		return -1;
	for (i = 0; i < nr; i++) {
		if (nvf_conf_ctrl_matches(opts, &ctrls[i])) {
			snprintf(name, size, "%s", ctrls[i].name);
			found = 1;
			break;
		}
	}
	nvf_ctrl_free(ctrls, nr);
	return found;
}

/* nvf_conf_find_ctrl() for the other verbs (discover.c). */
int nvf_find_ctrl_opts(const char *opts, char *name, size_t size)
{
	return nvf_conf_find_ctrl(opts, name, size);
}

/*
 * Is connect @d settled without connecting: its policy failed, or it is
 * connected already (each reported)? Return: 0 if it must be connected,
 * 1 if connected, -1 if it failed.
 */
static int nvf_conf_connect_settled(struct nvf_conf *c,
				    const struct nvf_conf_dir *d)
{
	char name[32];
	size_t i;
	int found;

	nvf_conf_at(c, d->line);
	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind == NVF_CONF_POLICY && c->dirs[i].failed &&
		    nvf_opts_is(d->opts, "nqn", c->dirs[i].nqn)) {
			nvf_err("not connected: the policy of %s (line %d) was not applied",
				c->dirs[i].nqn, c->dirs[i].line);
			return -1;
		}
	}
	found = nvf_conf_find_ctrl(d->opts, name, sizeof(name));
	if (found < 0)
		return -1;
	if (found) {
		printf("%s:%d: already connected: %s\n", c->file, d->line,
		       name);
		fflush(stdout);
		return 1;
	}
	return 0;
}

/*
 * Connect one controller unless it is connected (a retry may find it
 * connected by a discovery entry meanwhile): one attempt, in a child of
 * jobs.c. Return: 0; the negative errno of a failed connect; or
 * -NVF_JOB_FATAL.
 */
static int nvf_conf_apply_connect(void *arg)
{
	struct nvf_conf_job *job = arg;
	struct nvf_conf *c = job->c;
	const struct nvf_conf_dir *d = job->d;
	int instance, cntlid, ret;
	char *transport;

	ret = nvf_conf_connect_settled(c, d);
	if (ret)
		return ret < 0 ? -NVF_JOB_FATAL : 0;
	transport = nvf_opts_dup(d->opts, "transport");
	if (!transport) {
		nvf_err("out of memory");
		return -ENOMEM;
	}
	ret = nvf_connect_write(transport, d->opts, &instance, &cntlid);
	free(transport);
	if (ret)
		return ret;
	printf("%s:%d: connected nvfab%d\n", c->file, d->line, instance);
	fflush(stdout);
	return 0;
}

/* Create one discovery entry unless configfs has it. Return: 0, or -1. */
static int nvf_conf_apply_discovery(struct nvf_conf *c,
				    const struct nvf_conf_dir *d)
{
	bool exists;

	if (nvf_disc_entry_apply(d->disc, &exists))
		return -1;
	printf("%s:%d: discovery %s: %s\n", c->file, d->line,
	       nvf_disc_entry_name(d->disc),
	       exists ? "exists already" : "created and enabled");
	fflush(stdout);
	return 0;
}

/* After the first round of connects: every discovery entry (jobs.c). */
static void nvf_conf_apply_discoveries(void *arg)
{
	struct nvf_conf *c = arg;
	size_t i;

	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind != NVF_CONF_DISCOVERY)
			continue;
		nvf_conf_at(c, c->dirs[i].line);
		if (nvf_conf_apply_discovery(c, &c->dirs[i]))
			c->failed_later++;
	}
	nvf_conf_at(c, 0);
}

/*
 * Can the connects that are not connected yet write to the fabrics
 * device? If it is missing, say once why the modules are not loaded
 * (modcheck.c), for all of them. Return: 0, or how many cannot.
 */
static int nvf_conf_check_fabrics(struct nvf_conf *c)
{
	const char *dev = getenv("NVFAB_FABRICS_DEV");
	char why[1536], name[32];
	int missing = 0;
	size_t i;

	if (!dev || !*dev)
		dev = "/dev/nvfab-fabrics";
	if (!access(dev, F_OK))
		return 0;
	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind == NVF_CONF_CONNECT &&
		    nvf_conf_find_ctrl(c->dirs[i].opts, name, sizeof(name)) != 1)
			missing++;
	}
	if (!missing)
		return 0;
	nvf_module_why(why, sizeof(why));
	nvf_conf_at(c, 0);
	nvf_err("cannot connect %d controller%s: no %s: %s", missing,
		missing == 1 ? "" : "s", dev, why);
	return missing;
}

/*
 * Every connect, as jobs of jobs.c; the discovery entries follow the
 * first round. Return: how many directives failed.
 */
static int nvf_conf_apply_connects(struct nvf_conf *c)
{
	int failed, failed_now = 0, ret;
	struct nvf_conf_job *args;
	struct nvf_job *jobs;
	size_t i, n = 0;

	failed = nvf_conf_check_fabrics(c);
	if (failed) {
		nvf_conf_apply_discoveries(c);
		return failed + c->failed_later;
	}
	jobs = calloc(c->nr_connect, sizeof(*jobs));
	args = calloc(c->nr_connect, sizeof(*args));
	if (!jobs || !args) {
		nvf_err("out of memory");
		free(jobs);
		free(args);
		return c->nr_connect + c->nr_discovery;
	}
	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind != NVF_CONF_CONNECT)
			continue;
		/* in file order, what is settled without a connect */
		ret = nvf_conf_connect_settled(c, &c->dirs[i]);
		if (ret) {
			failed_now += ret < 0;
			continue;
		}
		args[n].c = c;
		args[n].d = &c->dirs[i];
		jobs[n].line = c->dirs[i].line;
		nvf_target_what(c->dirs[i].opts, jobs[n].what,
				sizeof(jobs[n].what));
		jobs[n].run = nvf_conf_apply_connect;
		jobs[n].arg = &args[n];
		n++;
	}
	c->run.file = c->file;
	c->run.first_round = nvf_conf_apply_discoveries;
	c->run.arg = c;
	c->run.settled = c->nr_connect - n - failed_now;
	c->run.refused = failed_now;
	failed = nvf_jobs_run(jobs, n, &c->run);
	free(jobs);
	free(args);
	return failed_now + failed + c->failed_later;
}

/*
 * Apply a parsed file without errors: every policy, then every connect,
 * then every discovery entry.
 * A failed directive does not stop the others (but a failed policy
 * stops the connects of its NQN). Return: the exit status.
 */
static int nvf_conf_apply(struct nvf_conf *c)
{
	char *cfs = NULL, *subs = NULL;
	int failed = 0, ret = NVF_EXIT_FAIL;
	size_t i;

	if (c->nr_policy) {
		cfs = nvf_configfs_dir();
		if (!cfs)
			return NVF_EXIT_FAIL;
		if (nvf_conf_check_configfs(c, cfs)) {
			nvf_conf_at(c, 0);
			nvf_err("nothing was changed");
			goto out_free;
		}
		subs = nvf_path(cfs, "subsystems");
		if (!subs)
			goto out_free;
	}
	for (i = 0; i < c->nr; i++) {
		if (c->dirs[i].kind != NVF_CONF_POLICY)
			continue;
		nvf_conf_at(c, c->dirs[i].line);
		if (nvf_conf_apply_policy(c, &c->dirs[i], subs)) {
			c->dirs[i].failed = true;
			failed++;
		}
	}
	if (c->nr_connect) {
		failed += nvf_conf_apply_connects(c);
	} else {
		nvf_conf_apply_discoveries(c);
		failed += c->failed_later;
		if (nvf_notify_enabled())
			nvf_notify("READY=1\nSTATUS=no controllers to connect");
	}
	nvf_conf_at(c, 0);
	if (failed)
		nvf_err("%d of %zu directives failed", failed, c->nr);
	else
		ret = NVF_EXIT_OK;
out_free:
	free(subs);
	free(cfs);
	return ret;
}

/* The state of a policy in configfs: set, differs, absent or unknown. */
static const char *nvf_conf_policy_state(const struct nvf_conf_dir *d,
					 const char *cfs)
{
	const char *state = "set";
	char *subs, *dir, *cur;
	int k;

	if (!nvf_is_dir(cfs))
		return "unknown";
	subs = nvf_path(cfs, "subsystems");
	dir = subs ? nvf_path(subs, d->nqn) : NULL;
	if (!dir || !nvf_is_dir(dir))
		state = dir ? "absent" : "unknown";
	for (k = 0; dir && !strcmp(state, "set") && k < NVF_NR_POL; k++) {
		if (!d->val[k][0])
			continue;
		cur = nvf_attr_read(dir, nvf_pol_keys[k].key);
		if (!cur || strcmp(cur, d->val[k]))
			state = "differs";
		free(cur);
	}
	free(dir);
	free(subs);
	return state;
}

/*
 * The state of a discovery entry: its configfs state (live, connecting,
 * ...), "absent", or "unknown".
 */
static const char *nvf_conf_disc_state(const struct nvf_conf_dir *d)
{
	static char state[16];
	char *base, *dir, *v;

	base = nvf_disc_dir();
	dir = base ? nvf_path(base, nvf_disc_entry_name(d->disc)) : NULL;
	snprintf(state, sizeof(state), "%s", dir ? "absent" : "unknown");
	if (dir && nvf_is_dir(dir)) {
		v = nvf_attr_read(dir, "state");
		snprintf(state, sizeof(state), "%s", v && *v ? v : "unknown");
		nvf_sanitize(state);
		free(v);
	}
	free(dir);
	free(base);
	return state;
}

/* Each directive with its state. Return: the exit status. */
static int nvf_conf_show(struct nvf_conf *c)
{
	const struct nvf_conf_dir *d;
	char name[32], *cfs, *shown;
	const char *state;
	size_t i;
	int found;

	cfs = nvf_configfs_dir();
	if (!cfs)
		return NVF_EXIT_FAIL;
	printf("%-5s %-9s %-8s %s\n", "Line", "Directive", "State", "Details");
	for (i = 0; i < c->nr; i++) {
		d = &c->dirs[i];
		if (d->kind == NVF_CONF_DISCOVERY) {
			printf("%-5d %-9s %-8s %s ", d->line, "discovery",
			       nvf_conf_disc_state(d), nvf_disc_entry_name(d->disc));
			nvf_disc_entry_print(d->disc, stdout);
			printf("\n");
			continue;
		}
		if (d->kind == NVF_CONF_POLICY) {
			printf("%-5d %-9s %-8s %s ", d->line, "policy",
			       nvf_conf_policy_state(d, cfs), d->nqn);
			nvf_conf_print_policy(d);
			printf("\n");
			continue;
		}
		found = nvf_conf_find_ctrl(d->opts, name, sizeof(name));
		state = found > 0 ? name : found ? "unknown" : "-";
		/* a DH-HMAC-CHAP secret is never shown */
		shown = nvf_shown_options(d->opts);
		printf("%-5d %-9s %-8s %s\n", d->line, "connect", state,
		       shown ? shown : "(out of memory)");
		free(shown);
	}
	free(cfs);
	return NVF_EXIT_OK;
}

/*
 * Can @v stand as a value on a line of the file: not empty, no blank,
 * control character, quote, backslash or '#'? (dump, import.c)
 */
bool nvf_conf_value_ok(const char *v)
{
	const char *p;

	if (!v || !*v)
		return false;
	for (p = v; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\'' ||
		    *p == '\\' || *p == '#' || *p == 0x7f)
			return false;
	}
	return true;
}

/* Every configfs policy entry as a policy line. Return: how many. */
static int nvf_conf_dump_policies(FILE *f)
{
	char *cfs, *subs, *dir, *v[NVF_NR_POL];
	struct dirent **list = NULL, *de;
	int k, n = 0, nr, i;

	cfs = nvf_configfs_dir();
	subs = cfs ? nvf_path(cfs, "subsystems") : NULL;
	nr = subs ? scandir(subs, &list, NULL, alphasort) : -1;
	for (i = 0; i < nr; free(list[i]), i++) {
		de = list[i];
		if (de->d_name[0] == '.' || !nvf_conf_value_ok(de->d_name))
			continue;
		dir = nvf_path(subs, de->d_name);
		if (!dir || !nvf_is_dir(dir)) {
			free(dir);
			continue;
		}
		for (k = 0; k < NVF_NR_POL; k++)
			v[k] = nvf_attr_read(dir, nvf_pol_keys[k].key);
		fprintf(f, "policy %s", de->d_name);
		for (k = 0; k < NVF_NR_POL; k++) {
			if (nvf_conf_value_ok(v[k]))
				fprintf(f, " %s=%s", nvf_pol_keys[k].key, v[k]);
			free(v[k]);
		}
		fprintf(f, "\n");
		n++;
		free(dir);
	}
	free(list);
	free(subs);
	free(cfs);
	return n;
}

/* The value of @key in sysfs "address" text @addr ("k=v,k=v"), or "". */
static void nvf_conf_addr_value(const char *addr, const char *key, char *buf,
				size_t size)
{
	nvf_opt_value(addr, key, buf, size);
}

/*
 * One live controller as a connect line: its address, subsystem, host
 * identity and the timeouts and queue size that differ from the kernel's
 * defaults. Return: 1 if written, 0 if skipped (reported as a comment).
 */
static int nvf_conf_dump_ctrl(FILE *f, const struct nvf_ctrl *ctrl)
{
	static const struct {
		const char	*attr;
		const char	*opt;
		long long	def;
		long long	add;	/* the option is the attribute + add */
	} ints[] = {
		{ "sqsize",		"--queue-size",	NVFAB_DEF_QUEUE_SIZE, 1 },
		{ "kato",		"--keep-alive-tmo", NVFAB_DEF_KATO, 0 },
		{ "reconnect_delay",	"--reconnect-delay",
		  NVFAB_DEF_RECONNECT_DELAY, 0 },
		{ "ctrl_loss_tmo",	"--ctrl-loss-tmo", NVFAB_DEF_CTRL_LOSS_TMO, 0 },
		{ "fast_io_fail_tmo",	"--fast_io_fail_tmo",
		  NVFAB_DEF_FAIL_FAST_TMO, 0 },
	};
	char *state, *tr, *nqn, *addr, *hnqn, *hid, *tls, *secret;
	char a[NVFAB_TRADDR_SIZE], s[NVFAB_TRSVCID_SIZE];
	char w[NVFAB_TRADDR_SIZE], ifc[NVFAB_IFNAME_SIZE];
	long long v;
	size_t i;
	int ret = 0;

	state = nvf_attr_read(ctrl->path, "state");
	tr = nvf_attr_read(ctrl->path, "transport");
	nqn = nvf_attr_read(ctrl->path, "subsysnqn");
	addr = nvf_attr_read(ctrl->path, "address");
	hnqn = nvf_attr_read(ctrl->path, "hostnqn");
	hid = nvf_attr_read(ctrl->path, "hostid");
	tls = nvf_attr_read(ctrl->path, "tls_key");
	secret = nvf_attr_read(ctrl->path, "dhchap_secret");
	nvf_conf_addr_value(addr ? addr : "", "traddr", a, sizeof(a));
	nvf_conf_addr_value(addr ? addr : "", "trsvcid", s, sizeof(s));
	nvf_conf_addr_value(addr ? addr : "", "host_traddr", w, sizeof(w));
	nvf_conf_addr_value(addr ? addr : "", "host_iface", ifc, sizeof(ifc));

	if (state && (!strncmp(state, "deleting", 8) || !strcmp(state, "dead")))
		goto out;
	if (nqn && !strcmp(nqn, NVF_DISC_NQN)) {
		fprintf(f,
			"# %s: a discovery controller (a discovery entry's or a discover run's): not written\n",
			ctrl->name);
		goto out;
	}
	if (!nvf_conf_value_ok(tr) || !nvf_conf_value_ok(nqn) ||
	    !nvf_conf_value_ok(a) || (s[0] && !nvf_conf_value_ok(s)) ||
	    (w[0] && !nvf_conf_value_ok(w)) ||
	    (ifc[0] && !nvf_conf_value_ok(ifc))) {
		fprintf(f,
			"# %s: its transport, address or NQN cannot be read or written on a line: not written\n",
			ctrl->name);
		goto out;
	}
	fprintf(f, "connect -t %s -a %s", tr, a);
	if (s[0])
		fprintf(f, " -s %s", s);
	if (w[0])
		fprintf(f, " -w %s", w);
	if (ifc[0])
		fprintf(f, " -f %s", ifc);
	fprintf(f, " -n %s", nqn);
	if (nvf_conf_value_ok(hnqn) && nvf_conf_value_ok(hid))
		fprintf(f, " -q %s -I %s", hnqn, hid);
	for (i = 0; i < ARRAY_SIZE(ints); i++) {
		char *t = nvf_attr_read(ctrl->path, ints[i].attr), *end;

		errno = 0;
		v = t ? strtoll(t, &end, 10) : 0;
		if (t && *t && !*end && !errno && v + ints[i].add != ints[i].def)
			fprintf(f, " %s=%lld", ints[i].opt, v + ints[i].add);
		free(t);
	}
	if (tls && *tls)
		fprintf(f, " --tls");
	fprintf(f, "\n");
	if (secret && *secret)
		fprintf(f,
			"# %s: DH-HMAC-CHAP: add --dhchap-secret (a key file) to the line above; dump never writes secrets\n",
			ctrl->name);
	ret = 1;
out:
	free(state);
	free(tr);
	free(nqn);
	free(addr);
	free(hnqn);
	free(hid);
	free(tls);
	free(secret);
	return ret;
}

/*
 * "config dump": the live policies, controllers and discovery entries as
 * the lines of a file that "config apply" would turn into the same
 * state. Return: the exit status.
 */
static int nvf_conf_dump(void)
{
	struct nvf_ctrl *ctrls;
	int np, nc = 0, nd;
	size_t nr, i;

	if (nvf_require_module() || nvf_ctrl_scan(&ctrls, &nr))
		return NVF_EXIT_FAIL;
	printf("# nvfab.conf: the live state, as \"nvfabctl config dump\" wrote it\n");
	np = nvf_conf_dump_policies(stdout);
	for (i = 0; i < nr; i++)
		nc += nvf_conf_dump_ctrl(stdout, &ctrls[i]);
	nvf_ctrl_free(ctrls, nr);
	nd = nvf_disc_dump(stdout);
	if (nd < 0)
		return NVF_EXIT_FAIL;
	fprintf(stderr,
		"nvfabctl: config: dump: %d policy, %d connect and %d discovery directives\n",
		np, nc, nd);
	return NVF_EXIT_OK;
}

void nvf_config_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl config check|apply|show [OPTIONS] [FILE]\n"
		"       nvfabctl config dump\n"
		"       nvfabctl config import [--json=FILE] [--discovery-conf=FILE]\n"
		"\n"
		"The boot-time configuration, FILE (default " NVF_ETC_NVFAB "/" NVF_CONF_NAME "):\n"
		"  check    parse FILE and report every error; change nothing\n"
		"  apply    parse FILE whole (any error: change nothing), write each policy\n"
		"           to configfs, connect each controller not connected yet, then\n"
		"           create each discovery entry configfs does not have yet\n"
		"  show     each directive of FILE and its state\n"
		"  dump     the live policies, controllers and discovery entries as\n"
		"           the lines of such a file, on standard output\n"
		"  import   nvme-cli's config.json and discovery.conf (default: those\n"
		"           of /etc/nvme that exist) as the lines of such a file, on\n"
		"           standard output\n"
		"\n"
		"Options of apply:\n"
		"  -r, --retry             retry connects that failed for a reason that may\n"
		"                          pass (refused, unreachable, timed out) with backoff,\n"
		"                          until all are connected or the run is stopped\n"
		"      --retry-interval=S  first wait before a retry, doubling up to 60 s\n"
		"                          (default 2)\n"
		"      --retry-timeout=S   stop retrying after S seconds (default 0: never)\n"
		"  -P, --parallel=N        connect at most N controllers at once (default 8)\n"
		"      --ready-timeout=S   under systemd, report the service started after S\n"
		"                          seconds even if connects are still running\n"
		"                          (default 60)\n"
		"Options of import:\n"
		"      --json=FILE         nvme-cli's (libnvme's) JSON configuration\n"
		"      --discovery-conf=FILE  nvme-cli's discovery.conf\n"
		"\n"
		"One directive per line; a word starting with '#' starts a comment:\n"
		"  policy NQN KEY=VALUE...   configfs policy of subsystem NQN:\n"
		"                            iopolicy=NAME, no_path_tmo=auto|SECONDS\n"
		"  connect OPTIONS...        the options of 'nvfabctl connect'\n"
		"                            (all but -o, -v, --dry-run, -h)\n"
		"  discovery NAME OPTIONS... a persistent discovery controller: the\n"
		"                            options of 'nvfabctl discovery add'\n"
		"\n"
		"  -h, --help   show this help\n");
}

int nvf_config(int argc, char **argv)
{
	enum {
		NVF_OPT_RETRY_INTERVAL = 512,
		NVF_OPT_RETRY_TIMEOUT,
		NVF_OPT_READY_TIMEOUT,
		NVF_OPT_JSON,
		NVF_OPT_DISC_CONF,
	};
	static const struct option longopts[] = {
		{ "help",		no_argument,		NULL, 'h' },
		{ "retry",		no_argument,		NULL, 'r' },
		{ "retry-interval",	required_argument,	NULL,
		  NVF_OPT_RETRY_INTERVAL },
		{ "retry-timeout",	required_argument,	NULL,
		  NVF_OPT_RETRY_TIMEOUT },
		{ "parallel",		required_argument,	NULL, 'P' },
		{ "ready-timeout",	required_argument,	NULL,
		  NVF_OPT_READY_TIMEOUT },
		{ "json",		required_argument,	NULL, NVF_OPT_JSON },
		{ "discovery-conf",	required_argument,	NULL,
		  NVF_OPT_DISC_CONF },
		{ NULL,			0,			NULL, 0 }
	};
	struct nvf_conf c = {
		.run = {
			.parallel	= NVF_JOBS_PARALLEL,
			.interval_s	= NVF_JOBS_INTERVAL_S,
			.ready_s	= NVF_JOBS_READY_S,
		},
	};
	const char *sub, *etc, *apply_opt = NULL, *import_opt = NULL;
	const char *json = NULL, *disc = NULL;
	char *deffile = NULL;
	int opt, v, ret = NVF_EXIT_FAIL;

	while ((opt = nvf_getopt(argc, argv, ":hrP:", longopts)) != -1) {
		switch (opt) {
		case 'h':
			nvf_config_usage(stdout);
			return NVF_EXIT_OK;
		case NVF_OPT_JSON:
			json = optarg;
			import_opt = "--json";
			continue;
		case NVF_OPT_DISC_CONF:
			disc = optarg;
			import_opt = "--discovery-conf";
			continue;
		case 'r':
			c.run.retry = true;
			apply_opt = "--retry";
			continue;
		case 'P':
			if (nvf_parse_int("parallel", optarg, &v))
				return NVF_EXIT_FAIL;
			if (v < 1 || v > NVF_JOBS_PARALLEL_MAX) {
				nvf_err("invalid --parallel %d: out of range, 1 to %d",
					v, NVF_JOBS_PARALLEL_MAX);
				return NVF_EXIT_FAIL;
			}
			c.run.parallel = v;
			apply_opt = "--parallel";
			continue;
		case NVF_OPT_RETRY_INTERVAL:
		case NVF_OPT_RETRY_TIMEOUT:
		case NVF_OPT_READY_TIMEOUT:
			apply_opt = opt == NVF_OPT_RETRY_INTERVAL ?
				"retry-interval" : opt == NVF_OPT_RETRY_TIMEOUT ?
				"retry-timeout" : "ready-timeout";
			if (nvf_parse_int(apply_opt, optarg, &v))
				return NVF_EXIT_FAIL;
			if (v < (opt == NVF_OPT_RETRY_TIMEOUT ? 0 : 1) ||
			    v > NVF_JOBS_SECONDS_MAX) {
				nvf_err("invalid --%s %d: out of range, %d to %d seconds",
					apply_opt, v,
					opt == NVF_OPT_RETRY_TIMEOUT ? 0 : 1,
					NVF_JOBS_SECONDS_MAX);
				return NVF_EXIT_FAIL;
			}
			if (opt == NVF_OPT_RETRY_INTERVAL)
				c.run.interval_s = v;
			else if (opt == NVF_OPT_RETRY_TIMEOUT)
				c.run.timeout_s = v;
			else
				c.run.ready_s = v;
			continue;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (optind >= argc) {
		nvf_err("missing subcommand: check, apply, show, dump or import");
		return NVF_EXIT_FAIL;
	}
	sub = argv[optind++];
	if (strcmp(sub, "check") && strcmp(sub, "apply") &&
	    strcmp(sub, "show") && strcmp(sub, "dump") &&
	    strcmp(sub, "import")) {
		nvf_err("unknown subcommand '%s' (check, apply, show, dump or import)",
			sub);
		return NVF_EXIT_FAIL;
	}
	if (import_opt && strcmp(sub, "import")) {
		nvf_err("%s is an option of import, not of %s", import_opt, sub);
		return NVF_EXIT_FAIL;
	}
	if (apply_opt && strcmp(sub, "apply")) {
		nvf_err("%s%s is an option of apply, not of %s",
			apply_opt[0] == '-' ? "" : "--", apply_opt, sub);
		return NVF_EXIT_FAIL;
	}
	/* only apply connects: check and show store no derived host ID */
	if (strcmp(sub, "apply"))
		nvf_host_no_store();
	if (!strcmp(sub, "dump"))
		return nvf_no_operands(argc, argv) ? NVF_EXIT_FAIL :
			nvf_conf_dump();
	if (!strcmp(sub, "import"))
		return nvf_no_operands(argc, argv) ? NVF_EXIT_FAIL :
			nvf_config_import(json, disc);
	if (optind < argc) {
		c.file = argv[optind++];
	} else {
		etc = getenv("NVFAB_ETC_NVFAB");
		deffile = nvf_path(etc && *etc ? etc : NVF_ETC_NVFAB,
				   NVF_CONF_NAME);
		if (!deffile)
			return NVF_EXIT_FAIL;
		c.file = deffile;
	}
	if (nvf_no_operands(argc, argv))
		goto out_free;

	c.where_size = strlen(c.file) + 32;
	c.where = malloc(c.where_size);
	if (!c.where) {
		nvf_err("out of memory");
		goto out_free;
	}
	if (nvf_conf_parse(&c))
		goto out_free;
	if (c.errors) {
		nvf_conf_at(&c, 0);
		nvf_err("%d error%s%s", c.errors, c.errors == 1 ? "" : "s",
			strcmp(sub, "apply") ? "" : "; nothing was changed");
		goto out_free;
	}
	if (!strcmp(sub, "check")) {
		printf("%s: %zu policy, %zu connect and %zu discovery directives, no errors\n",
		       c.file, c.nr_policy, c.nr_connect, c.nr_discovery);
		ret = NVF_EXIT_OK;
	} else if (!strcmp(sub, "apply")) {
		ret = nvf_conf_apply(&c);
	} else {
		ret = nvf_conf_show(&c);
	}
out_free:
	nvf_conf_free(&c);
	free(deffile);
	return ret;
}
