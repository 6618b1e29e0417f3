// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl list-subsys: each NVM subsystem with its controllers and, per
 * namespace head, every path: its controller, ANA state and group, the
 * I/Os the multipath layer routed to it and their share of the head's
 * total. The layout follows nvme-cli's list-subsys:
 *
 *   nvfab-subsys0 - NQN=nqn.2014-08.org.example:s1
 *                   iopolicy=service-time
 *   \
 *    +- nvfab0 tcp traddr=192.0.2.2,trsvcid=4420 live
 *    +- nvfab1 tcp traddr=198.51.100.2,trsvcid=4420 live
 *       nvfab0n1 (nsid 1)
 *        +- nvfab0c0n1 nvfab0 optimized grp 1 ios 1234 (61.2%)
 *        +- nvfab0c1n1 nvfab1 non-optimized grp 2 ios 782 (38.8%)
 *
 * with a blank line between subsystems. A missing or empty value shows as
 * "-" (null in JSON), so every line keeps its fields; the free-form values
 * (controller state, selector status) come last on their line. -v adds
 * model, serial and firmware_rev lines, and the in-flight counts and the
 * path selector's status to each path. DEVICE limits the output to the
 * subsystem holding that subsystem, controller, namespace head or path.
 */
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

static const struct option nvf_list_subsys_longopts[] = {
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

void nvf_list_subsys_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl list-subsys [-o normal|json] [-v] [DEVICE]\n"
		"\n"
		"List NVM subsystems, their controllers, namespaces and paths,\n"
		"with each path's ANA state and share of the routed I/O.\n"
		"DEVICE (nvfab-subsysS, nvfabC, nvfabSnN or nvfabScCnN, also\n"
		"as a /dev or /sys path) shows only the subsystem holding it.\n"
		"\n"
		"  -o, --output-format=FMT  normal or json\n"
		"  -v, --verbose            add model, serial, firmware, in-flight\n"
		"                           I/Os and path selector status\n"
		"  -h, --help               show this help\n");
}

static const char *nvf_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* @v in decimal into @buf, or "-" when it is unknown (negative). */
static const char *nvf_num(long long v, char *buf, size_t size)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%lld", v);
	return buf;
}

static void nvf_sanitize_opt(char *s)
{
	if (s)
		nvf_sanitize(s);
}

/* Control characters could break the tree: replace them before printing. */
static void nvf_subsys_sanitize(struct nvf_subsys *sub)
{
	size_t i, k;

	nvf_sanitize_opt(sub->nqn);
	nvf_sanitize_opt(sub->iopolicy);
	nvf_sanitize_opt(sub->model);
	nvf_sanitize_opt(sub->serial);
	nvf_sanitize_opt(sub->firmware_rev);
	for (i = 0; i < sub->nr_ctrls; i++) {
		nvf_sanitize_opt(sub->ctrls[i].transport);
		nvf_sanitize_opt(sub->ctrls[i].address);
		nvf_sanitize_opt(sub->ctrls[i].state);
	}
	for (i = 0; i < sub->nr_heads; i++) {
		for (k = 0; k < sub->heads[i].nr_paths; k++) {
			nvf_sanitize_opt(sub->heads[i].paths[k].ana_state);
			nvf_sanitize_opt(sub->heads[i].paths[k].ps_status);
		}
	}
}

static void nvf_print_path(const struct nvf_path *p, bool verbose)
{
	char grp[24], ios[24], share[24], rd[24], wr[24];

	if (p->share < 0)
		snprintf(share, sizeof(share), "-");
	else
		snprintf(share, sizeof(share), "%.1f%%", p->share);
	printf("     +- %s %s %s grp %s ios %s (%s)", p->name, p->ctrl_name,
	       nvf_or_dash(p->ana_state),
	       nvf_num(p->ana_grpid, grp, sizeof(grp)),
	       nvf_num(p->routed_ios, ios, sizeof(ios)), share);
	if (verbose) {
		if (p->inflight[0] < 0)
			printf(" inflight -");
		else
			printf(" inflight %s/%s",
			       nvf_num(p->inflight[0], rd, sizeof(rd)),
			       nvf_num(p->inflight[1], wr, sizeof(wr)));
		printf(" ps: %s", nvf_or_dash(p->ps_status));
	}
	putchar('\n');
}

static void nvf_print_subsys(const struct nvf_subsys *sub, bool verbose)
{
	int indent = (int)strlen(sub->name) + 3;
	char nsid[24];
	size_t i, k;

	printf("%s - NQN=%s\n", sub->name, nvf_or_dash(sub->nqn));
	printf("%*siopolicy=%s\n", indent, "", nvf_or_dash(sub->iopolicy));
	if (verbose) {
		printf("%*smodel=%s\n", indent, "", nvf_or_dash(sub->model));
		printf("%*sserial=%s\n", indent, "", nvf_or_dash(sub->serial));
		printf("%*sfirmware_rev=%s\n", indent, "",
		       nvf_or_dash(sub->firmware_rev));
	}
	printf("\\\n");
	for (i = 0; i < sub->nr_ctrls; i++) {
		const struct nvf_subsys_ctrl *c = &sub->ctrls[i];

		printf(" +- %s %s %s %s\n", c->name, nvf_or_dash(c->transport),
		       nvf_or_dash(c->address), nvf_or_dash(c->state));
	}
	for (i = 0; i < sub->nr_heads; i++) {
		const struct nvf_head *head = &sub->heads[i];

		printf("    %s (nsid %s)\n", head->name,
		       nvf_num(head->nsid, nsid, sizeof(nsid)));
		for (k = 0; k < head->nr_paths; k++)
			nvf_print_path(&head->paths[k], verbose);
	}
}

/* A number member, or null when it is unknown (negative). */
static void nvf_json_num_or_null(struct nvf_json *j, const char *key,
				 long long v)
{
	if (v < 0)
		nvf_json_str(j, key, NULL);
	else
		nvf_json_int(j, key, v);
}

static void nvf_json_path(struct nvf_json *j, const struct nvf_path *p)
{
	nvf_json_begin(j, NULL, '{');
	nvf_json_str(j, "name", p->name);
	nvf_json_str(j, "controller", p->ctrl_name);
	nvf_json_str(j, "ana_state", p->ana_state);
	nvf_json_num_or_null(j, "ana_grpid", p->ana_grpid);
	nvf_json_num_or_null(j, "routed_ios", p->routed_ios);
	if (p->share < 0)
		nvf_json_str(j, "io_share_percent", NULL);
	else
		nvf_json_fixed(j, "io_share_percent", p->share, 1);
	if (p->inflight[0] < 0) {
		nvf_json_str(j, "inflight", NULL);
	} else {
		nvf_json_begin(j, "inflight", '{');
		nvf_json_int(j, "read", p->inflight[0]);
		nvf_json_int(j, "write", p->inflight[1]);
		nvf_json_end(j, '}');
	}
	nvf_json_str(j, "ps_status", p->ps_status);
	nvf_json_end(j, '}');
}

static void nvf_json_subsys(struct nvf_json *j, const struct nvf_subsys *sub)
{
	size_t i, k;

	nvf_json_begin(j, NULL, '{');
	nvf_json_str(j, "name", sub->name);
	nvf_json_str(j, "nqn", sub->nqn);
	nvf_json_str(j, "iopolicy", sub->iopolicy);
	nvf_json_str(j, "model", sub->model);
	nvf_json_str(j, "serial", sub->serial);
	nvf_json_str(j, "firmware_rev", sub->firmware_rev);
	nvf_json_begin(j, "controllers", '[');
	for (i = 0; i < sub->nr_ctrls; i++) {
		const struct nvf_subsys_ctrl *c = &sub->ctrls[i];

		nvf_json_begin(j, NULL, '{');
		nvf_json_str(j, "name", c->name);
		nvf_json_str(j, "transport", c->transport);
		nvf_json_str(j, "address", c->address);
		nvf_json_str(j, "state", c->state);
		nvf_json_end(j, '}');
	}
	nvf_json_end(j, ']');
	nvf_json_begin(j, "namespaces", '[');
	for (i = 0; i < sub->nr_heads; i++) {
		const struct nvf_head *head = &sub->heads[i];

		nvf_json_begin(j, NULL, '{');
		nvf_json_str(j, "name", head->name);
		nvf_json_num_or_null(j, "nsid", head->nsid);
		nvf_json_begin(j, "paths", '[');
		for (k = 0; k < head->nr_paths; k++)
			nvf_json_path(j, &head->paths[k]);
		nvf_json_end(j, ']');
		nvf_json_end(j, '}');
	}
	nvf_json_end(j, ']');
	nvf_json_end(j, '}');
}

/*
 * The device name in @arg, copied to @buf: @arg itself, "/dev/NAME", or a
 * path under /sys or $NVFAB_SYSFS whose last component (trailing slashes
 * allowed) is NAME. Return: 0, or -1 after reporting an invalid name.
 */
static int nvf_dev_name(const char *arg, char *buf, size_t size)
{
	const char *root = nvf_sysfs_root(), *name = arg;
	size_t rlen = strlen(root), len = strlen(arg);
	int s, c, n;

	if (!strncmp(arg, "/dev/", 5)) {
		name = arg + 5;
		len -= 5;
	} else if (!strncmp(arg, "/sys/", 5) ||
		   (!strncmp(arg, root, rlen) && arg[rlen] == '/')) {
		while (len && arg[len - 1] == '/')
			len--;
		name = arg + len;
		while (name > arg && name[-1] != '/')
			name--;
		len = arg + len - name;
	}
	if (len && len < size) {
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (nvf_subsys_name_parse(buf, &s) ||
		    nvf_ctrl_name_parse(buf, &c) ||
		    nvf_ns_name_parse(buf, &s, &n) ||
		    nvf_path_name_parse(buf, &s, &c, &n))
			return 0;
	}
	nvf_err("invalid device name '%s' (expected nvfab-subsysS, nvfabN, nvfabSnN or nvfabScCnN)",
		arg);
	return -1;
}

/* Does @sub hold device @name (itself, a controller, a head, a path)? */
static bool nvf_subsys_has(const struct nvf_subsys *sub, const char *name)
{
	size_t i, k;

	if (!strcmp(sub->name, name))
		return true;
	for (i = 0; i < sub->nr_ctrls; i++) {
		if (!strcmp(sub->ctrls[i].name, name))
			return true;
	}
	for (i = 0; i < sub->nr_heads; i++) {
		if (!strcmp(sub->heads[i].name, name))
			return true;
		for (k = 0; k < sub->heads[i].nr_paths; k++) {
			if (!strcmp(sub->heads[i].paths[k].name, name))
				return true;
		}
	}
	return false;
}

/*
 * Move the subsystems holding device @name to the front of @subs, in
 * their order. Return: how many there are.
 */
static size_t nvf_subsys_select(struct nvf_subsys *subs, size_t nr,
				const char *name)
{
	struct nvf_subsys tmp;
	size_t i, k, shown = 0;

	for (i = 0; i < nr; i++) {
		if (!nvf_subsys_has(&subs[i], name))
			continue;
		/* rotate subs[shown..i] right by one: order is kept */
		tmp = subs[i];
		for (k = i; k > shown; k--)
			subs[k] = subs[k - 1];
		subs[shown++] = tmp;
	}
	return shown;
}

static void nvf_list_subsys_json(const struct nvf_subsys *subs, size_t nr)
{
	struct nvf_json j;
	size_t i;

	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '{');
	nvf_json_begin(&j, "subsystems", '[');
	for (i = 0; i < nr; i++)
		nvf_json_subsys(&j, &subs[i]);
	nvf_json_end(&j, ']');
	nvf_json_end(&j, '}');
}

static void nvf_list_subsys_normal(struct nvf_subsys *subs, size_t nr,
				   bool verbose)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		nvf_subsys_sanitize(&subs[i]);
		if (i)
			putchar('\n');
		nvf_print_subsys(&subs[i], verbose);
	}
}

int nvf_list_subsys(int argc, char **argv)
{
	enum nvf_format fmt = NVF_FMT_NORMAL;
	const char *device = NULL;
	struct nvf_subsys *subs;
	bool verbose = false;
	size_t nr, shown;
	char name[64];
	int c, ret = NVF_EXIT_OK;

	while ((c = nvf_getopt(argc, argv, ":o:vh",
			       nvf_list_subsys_longopts)) != -1) {
		switch (c) {
		case 'o':
			if (nvf_parse_format(optarg, &fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			nvf_list_subsys_usage(stdout);
			return NVF_EXIT_OK;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (optind < argc)
		device = argv[optind++];
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	if (device && nvf_dev_name(device, name, sizeof(name)))
		return NVF_EXIT_FAIL;

	if (nvf_subsys_scan(&subs, &nr))
		return NVF_EXIT_FAIL;
	shown = device ? nvf_subsys_select(subs, nr, name) : nr;
	if (device && !shown) {
		nvf_err("no subsystem with device '%s'", device);
		ret = NVF_EXIT_FAIL;
	} else if (fmt == NVF_FMT_JSON) {
		nvf_list_subsys_json(subs, shown);
	} else {
		nvf_list_subsys_normal(subs, shown, verbose);
	}
	nvf_subsys_free(subs, nr);
	return ret;
}
