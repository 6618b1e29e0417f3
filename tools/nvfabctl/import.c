// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl config import: nvme-cli's configuration as nvfab.conf lines.
 *
 * libnvme's /etc/nvme/config.json (hosts, their subsystems, their ports;
 * doc/config-schema.json of libnvme) gives a "connect" line per I/O
 * subsystem port and a "discovery" line per discovery controller port;
 * /etc/nvme/discovery.conf (a line of "nvme discover" options per
 * discovery controller) gives a "discovery" line each. What nvfab.conf
 * cannot say, or should not hold, is written as a comment naming it:
 * DH-HMAC-CHAP keys (never copied: they go in key files), transports
 * other than tcp and rdma, options nvfab's directives lack. The lines go
 * to standard output for the administrator to review and "config check";
 * nothing is written or connected.
 *
 * Documented in Documentation/admin-guide/nvfab-persistence.rst and
 * Documentation/nvfabctl.8.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvfabctl.h"
#include "config.h"
#include "dlp.h"
#include "jsonread.h"

#define NVF_IMPORT_MAX	(4 << 20)	/* the largest file read, bytes */

struct nvf_import {
	int	connects, discoveries, comments;
};

/* The whole of @path (at most NVF_IMPORT_MAX bytes), or NULL with errno. */
static char *nvf_import_read(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = NULL, *tmp;
	size_t got;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	for (;;) {
		tmp = realloc(buf, cap + 1);
		if (!tmp) {
			free(buf);
			fclose(f);
			errno = ENOMEM;
			return NULL;
		}
		buf = tmp;
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len < cap)
			break;
		if (cap >= NVF_IMPORT_MAX) {
			free(buf);
			fclose(f);
			errno = EFBIG;
			return NULL;
		}
		cap *= 2;
	}
	buf[len] = '\0';
	fclose(f);
	if (strlen(buf) != len) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	return buf;
}

/* Port members and the connect options they become. */
static const struct {
	const char	*key;
	const char	*opt;		/* connect's long option */
	bool		flag;		/* boolean: the option alone */
} nvf_import_port_opts[] = {
	{ "nr_io_queues",	"--nr-io-queues",	false },
	{ "nr_write_queues",	"--nr-write-queues",	false },
	{ "nr_poll_queues",	"--nr-poll-queues",	false },
	{ "queue_size",		"--queue-size",		false },
	{ "keep_alive_tmo",	"--keep-alive-tmo",	false },
	{ "reconnect_delay",	"--reconnect-delay",	false },
	{ "ctrl_loss_tmo",	"--ctrl-loss-tmo",	false },
	{ "fast_io_fail_tmo",	"--fast_io_fail_tmo",	false },
	{ "tos",		"--tos",		false },
	{ "duplicate_connect",	"--duplicate-connect",	true },
	{ "disable_sqflow",	"--disable-sqflow",	true },
	{ "hdr_digest",		"--hdr-digest",		true },
	{ "data_digest",	"--data-digest",	true },
	{ "tls",		"--tls",		true },
};

/* Port members read elsewhere, or knowingly not carried over. */
static const char *const nvf_import_port_known[] = {
	"transport", "traddr", "trsvcid", "host_traddr", "host_iface",
	"dhchap_key", "dhchap_ctrl_key", "persistent", "discovery",
};

static const char *nvf_import_str(const struct nvf_jv *v, const char *key)
{
	v = nvf_json_get(v, key);
	return v && v->type == NVF_JV_STRING ? v->str : NULL;
}

/* One port of config.json as a connect or discovery line. */
static void nvf_import_port(struct nvf_import *im, FILE *out,
			    const char *where, const char *hostnqn,
			    const char *hostid, const char *nqn, bool keyed,
			    const struct nvf_jv *p)
{
	const char *tr = nvf_import_str(p, "transport");
	const char *addr = nvf_import_str(p, "traddr");
	const char *svc = nvf_import_str(p, "trsvcid");
	const char *w = nvf_import_str(p, "host_traddr");
	const char *ifc = nvf_import_str(p, "host_iface");
	const struct nvf_jv *d = nvf_json_get(p, "discovery");
	const struct nvf_jv *o;
	bool disc, known, neg_ok;
	size_t i, k;
	char *end;

	disc = !strcmp(nqn, NVF_DISC_NQN) || (d && d->type == NVF_JV_TRUE);
	if (!tr || (strcmp(tr, "tcp") && strcmp(tr, "rdma"))) {
		fprintf(out,
			"# %s: transport '%s' is not one of nvfab's (tcp, rdma): not imported\n",
			where, tr && nvf_conf_value_ok(tr) ? tr : "?");
		im->comments++;
		return;
	}
	if (!nvf_conf_value_ok(addr) || (svc && !nvf_conf_value_ok(svc)) ||
	    (w && !nvf_conf_value_ok(w)) || (ifc && !nvf_conf_value_ok(ifc))) {
		fprintf(out,
			"# %s: no traddr, or a value with a blank, quote or '#': not imported\n",
			where);
		im->comments++;
		return;
	}
	if (disc)
		fprintf(out, "discovery nvme-cli-%d -t %s -a %s", ++im->discoveries,
			tr, addr);
	else
		fprintf(out, "connect -t %s -a %s", tr, addr);
	if (svc)
		fprintf(out, " -s %s", svc);
	if (w)
		fprintf(out, " -w %s", w);
	if (ifc)
		fprintf(out, " -f %s", ifc);
	if (!disc)
		fprintf(out, " -n %s", nqn);
	else if (strcmp(nqn, NVF_DISC_NQN))
		fprintf(out, " -n %s", nqn);
	if (hostnqn && hostid)
		fprintf(out, " -q %s -I %s", hostnqn, hostid);
	for (i = 0; !disc && i < ARRAY_SIZE(nvf_import_port_opts); i++) {
		o = nvf_json_get(p, nvf_import_port_opts[i].key);
		if (!o)
			continue;
		if (nvf_import_port_opts[i].flag) {
			if (o->type == NVF_JV_TRUE)
				fprintf(out, " %s", nvf_import_port_opts[i].opt);
			continue;
		}
		if (o->type != NVF_JV_NUMBER)
			continue;
		errno = 0;
		strtoll(o->str, &end, 10);
		neg_ok = !strcmp(nvf_import_port_opts[i].key, "ctrl_loss_tmo");
		/* libnvme writes -1 for "not set" (tos); -1 is "forever" here */
		if (!*end && !errno && (o->str[0] != '-' || neg_ok))
			fprintf(out, " %s=%s", nvf_import_port_opts[i].opt,
				o->str);
	}
	if (disc) {
		o = nvf_json_get(p, "keep_alive_tmo");
		if (o && o->type == NVF_JV_NUMBER && o->str[0] != '-')
			fprintf(out, " -k %s", o->str);
	}
	fprintf(out, "\n");
	if (!disc)
		im->connects++;
	if (keyed || nvf_json_get(p, "dhchap_key") ||
	    nvf_json_get(p, "dhchap_ctrl_key")) {
		fprintf(out,
			"# %s: DH-HMAC-CHAP keys are not copied: put them in key files and add --dhchap-secret (and --dhchap-ctrl-secret) to the line above\n",
			where);
		im->comments++;
	}
	for (i = 0; p->type == NVF_JV_OBJECT && i < p->n; i++) {
		known = false;
		for (k = 0; !disc && k < ARRAY_SIZE(nvf_import_port_opts) && !known; k++)
			known = !strcmp(p->keys[i], nvf_import_port_opts[k].key);
		for (k = 0; k < ARRAY_SIZE(nvf_import_port_known) && !known; k++)
			known = !strcmp(p->keys[i], nvf_import_port_known[k]);
		known |= disc && !strcmp(p->keys[i], "keep_alive_tmo");
		if (known)
			continue;
		fprintf(out, "# %s: '%s' not imported\n", where,
			nvf_conf_value_ok(p->keys[i]) ? p->keys[i] : "?");
		im->comments++;
	}
}

/* config.json, parsed: is it libnvme's schema? Return: 0, or -1 (reported). */
static int nvf_import_json_check(const char *path, const struct nvf_jv *root)
{
	const struct nvf_jv *hosts = nvf_json_get(root, "hosts");

	if (hosts && hosts->type == NVF_JV_ARRAY)
		return 0;
	nvf_err("%s: no \"hosts\" array (libnvme's config.json schema)", path);
	return -1;
}

/* config.json: every port of every subsystem of every host. */
static void nvf_import_json(struct nvf_import *im, FILE *out, const char *path,
			    const struct nvf_jv *root)
{
	const struct nvf_jv *hosts = nvf_json_get(root, "hosts");
	const struct nvf_jv *h, *subs, *s, *ports;
	const char *hostnqn, *hostid, *nqn;
	char where[96];
	size_t i, j, k;
	bool keyed;

	fprintf(out, "# from %s\n", path);
	for (i = 0; i < hosts->n; i++) {
		h = &hosts->kids[i];
		hostnqn = nvf_import_str(h, "hostnqn");
		hostid = nvf_import_str(h, "hostid");
		if (!nvf_conf_value_ok(hostnqn) || !nvf_conf_value_ok(hostid)) {
			hostnqn = NULL;
			hostid = NULL;
		}
		subs = nvf_json_get(h, "subsystems");
		for (j = 0; subs && subs->type == NVF_JV_ARRAY && j < subs->n; j++) {
			s = &subs->kids[j];
			nqn = nvf_import_str(s, "nqn");
			ports = nvf_json_get(s, "ports");
			keyed = nvf_json_get(h, "dhchap_key") ||
				nvf_json_get(s, "dhchap_key");
			for (k = 0; ports && ports->type == NVF_JV_ARRAY &&
			     k < ports->n; k++) {
				snprintf(where, sizeof(where),
					 "hosts[%zu].subsystems[%zu].ports[%zu]",
					 i, j, k);
				if (!nvf_conf_value_ok(nqn)) {
					fprintf(out,
						"# %s: no subsystem nqn, or one with a blank, quote or '#': not imported\n",
						where);
					im->comments++;
					continue;
				}
				nvf_import_port(im, out, where, hostnqn, hostid,
						nqn, keyed, &ports->kids[k]);
			}
		}
	}
}

/* nvme discover's options and what "discovery add" makes of them. */
static const struct {
	char		s;		/* short option, 0: none */
	const char	*l;		/* long option */
	const char	*to;		/* discovery add's option; NULL: a note */
	bool		arg;
} nvf_import_disc_opts[] = {
	{ 't', "transport",	"--transport",		true },
	{ 'a', "traddr",	"--traddr",		true },
	{ 's', "trsvcid",	"--trsvcid",		true },
	{ 'w', "host-traddr",	"--host-traddr",	true },
	{ 'f', "host-iface",	"--host-iface",		true },
	{ 'q', "hostnqn",	"--hostnqn",		true },
	{ 'I', "hostid",	"--hostid",		true },
	{ 'n', "nqn",		"--nqn",		true },
	{ 'k', "keep-alive-tmo", "--keep-alive-tmo",	true },
	{ 'p', "persistent",	"",			false },
	{ 'i', "nr-io-queues",	NULL,			true },
	{ 'W', "nr-write-queues", NULL,			true },
	{ 'P', "nr-poll-queues", NULL,			true },
	{ 'Q', "queue-size",	NULL,			true },
	{ 'c', "reconnect-delay", NULL,			true },
	{ 'l', "ctrl-loss-tmo",	NULL,			true },
	{ 'T', "tos",		NULL,			true },
	{ 'S', "dhchap-secret",	NULL,			true },
	{ 'C', "dhchap-ctrl-secret", NULL,		true },
	{ 'r', "raw",		NULL,			true },
	{ 'o', "output-format",	NULL,			true },
	{ 'g', "hdr-digest",	NULL,			false },
	{ 'G', "data-digest",	NULL,			false },
	{ 'D', "duplicate-connect", NULL,		false },
	{ 0,   "tls",		NULL,			false },
};

/* One line of discovery.conf (its words in @w) as a discovery line. */
static void nvf_import_disc_line(struct nvf_import *im, FILE *out,
				 const char *path, int line, char **w, int n)
{
	char opts[2048] = "", notes[512] = "";
	size_t olen = 0, nlen = 0, k;
	const char *val, *eq, *word;
	bool lng, has_t = false, has_a = false;
	int i;

	for (i = 0; i < n; i++) {
		word = w[i];
		lng = !strncmp(w[i], "--", 2);
		if (w[i][0] != '-' || (!lng && strlen(w[i]) != 2)) {
			nlen += snprintf(notes + nlen, sizeof(notes) - nlen,
					 " %s", nvf_conf_value_ok(w[i]) ? w[i] : "?");
			continue;
		}
		eq = lng ? strchr(w[i], '=') : NULL;
		for (k = 0; k < ARRAY_SIZE(nvf_import_disc_opts); k++) {
			if (lng ? (eq ? (size_t)(eq - w[i] - 2) ==
				   strlen(nvf_import_disc_opts[k].l) &&
				   !strncmp(w[i] + 2, nvf_import_disc_opts[k].l,
					    eq - w[i] - 2) :
				   !strcmp(w[i] + 2, nvf_import_disc_opts[k].l)) :
				  w[i][1] == nvf_import_disc_opts[k].s)
				break;
		}
		val = NULL;
		if (k < ARRAY_SIZE(nvf_import_disc_opts) &&
		    nvf_import_disc_opts[k].arg)
			val = eq ? eq + 1 : (i + 1 < n ? w[++i] : NULL);
		else if (k == ARRAY_SIZE(nvf_import_disc_opts) && !eq &&
			 i + 1 < n && w[i + 1][0] != '-')
			i++;	/* an unknown option's value, presumably */
		if (k < ARRAY_SIZE(nvf_import_disc_opts) &&
		    nvf_import_disc_opts[k].to) {
			if (!nvf_import_disc_opts[k].to[0])
				continue;	/* --persistent: always */
			if (!val || !nvf_conf_value_ok(val)) {
				nlen += snprintf(notes + nlen, sizeof(notes) - nlen,
						 " %s", nvf_import_disc_opts[k].to);
				continue;
			}
			has_t |= nvf_import_disc_opts[k].s == 't';
			has_a |= nvf_import_disc_opts[k].s == 'a';
			olen += snprintf(opts + olen, sizeof(opts) - olen,
					 " %s=%s", nvf_import_disc_opts[k].to,
					 val);
			continue;
		}
		nlen += snprintf(notes + nlen, sizeof(notes) - nlen, " %.*s",
				 (int)(eq ? eq - word : (long)strlen(word)),
				 nvf_conf_value_ok(word) ? word : "?");
		if (olen >= sizeof(opts) || nlen >= sizeof(notes))
			break;
	}
	if (!has_t || !has_a) {
		fprintf(out, "# %s:%d: no --transport and --traddr: not imported\n",
			path, line);
		im->comments++;
		return;
	}
	fprintf(out, "discovery nvme-cli-%d%s\n", ++im->discoveries, opts);
	if (nlen) {
		fprintf(out,
			"# %s:%d: not imported:%s (options of the I/O controllers go in --connect-opts; secrets in key files)\n",
			path, line, notes);
		im->comments++;
	}
}

/* discovery.conf: a discovery line per line. */
static void nvf_import_disc(struct nvf_import *im, FILE *out, const char *path,
			    char *text)
{
	char *line, *next, *w[64], *p, *save;
	int lineno = 0, n;

	fprintf(out, "# from %s\n", path);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		n = 0;
		for (p = strtok_r(line, " \t\r", &save); p && n < 64;
		     p = strtok_r(NULL, " \t\r", &save)) {
			if (!n && *p == '#')
				break;
			w[n++] = p;
		}
		if (n)
			nvf_import_disc_line(im, out, path, lineno, w, n);
	}
}

/**
 * nvf_config_import() - nvme-cli's files as nvfab.conf lines
 * @json: config.json to read; NULL: <etc>/nvme/config.json if it exists
 * @disc: discovery.conf to read; NULL: <etc>/nvme/discovery.conf if it
 *	exists
 *
 * Writes the lines on standard output and a summary on standard error.
 *
 * Return: the exit status: 1 when a file named cannot be read, none
 * exists, or config.json is not valid JSON.
 */
int nvf_config_import(const char *json, const char *disc)
{
	const char *paths[2] = { json, disc }, *names[2] = {
		"config.json", "discovery.conf",
	};
	struct nvf_import im = { 0 };
	char *def[2] = { NULL, NULL }, *text[2] = { NULL, NULL }, err[160];
	struct nvf_jv root = { 0 };
	int i, ret = NVF_EXIT_FAIL;

	/* everything read and parsed before a line is written */
	for (i = 0; i < 2; i++) {
		if (!paths[i]) {
			def[i] = nvf_path(nvf_etc_dir(), names[i]);
			if (!def[i])
				goto out;
			if (access(def[i], F_OK))
				continue;
			paths[i] = def[i];
		}
		text[i] = nvf_import_read(paths[i]);
		if (!text[i]) {
			nvf_err("cannot read %s: %s", paths[i], strerror(errno));
			goto out;
		}
	}
	if (!text[0] && !text[1]) {
		nvf_err("nothing to import: no %s/config.json or %s/discovery.conf",
			nvf_etc_dir(), nvf_etc_dir());
		goto out;
	}
	if (text[0] && nvf_json_parse(text[0], &root, err, sizeof(err))) {
		nvf_err("%s: %s", paths[0], err);
		goto out;
	}
	if (text[0] && nvf_import_json_check(paths[0], &root))
		goto out;

	printf("%s\n",
	       "# nvfab.conf lines imported by \"nvfabctl config import\": review, then \"nvfabctl config check\"");
	if (text[0])
		nvf_import_json(&im, stdout, paths[0], &root);
	if (text[1])
		nvf_import_disc(&im, stdout, paths[1], text[1]);
	fprintf(stderr,
		"nvfabctl: config: import: %d connect and %d discovery directives, %d comment%s on what was not imported\n",
		im.connects, im.discoveries, im.comments,
		im.comments == 1 ? "" : "s");
	ret = NVF_EXIT_OK;
out:
	nvf_json_free(&root);
	for (i = 0; i < 2; i++) {
		free(def[i]);
		free(text[i]);
	}
	return ret;
}
