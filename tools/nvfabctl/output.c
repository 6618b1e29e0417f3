// SPDX-License-Identifier: GPL-2.0
/*
 * What the listing verbs (list, list-subsys, show-topology) share: their
 * output options (-o, -v, -h and an optional DEVICE), "-" for a value that
 * is unknown in the normal output, and the JSON of nvme-cli's shape that
 * groups subsystems by host.
 */
#include "nvfabctl.h"

/* The long options of a verb that has only the output options. */
const struct option nvf_output_longopts[] = {
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

/*
 * The command line of @cmd into @o: -o FMT, -v, -h (its usage on stdout),
 * any other option of @cmd through its option() with @arg, then with
 * cmd->device an optional DEVICE operand, and nothing more. Return: -1 to
 * go on, else the exit status (help shown, or an error reported).
 */
int nvf_output_opts(int argc, char **argv, const struct nvf_output_cmd *cmd,
		    struct nvf_output_opts *o, void *arg)
{
	int c;

	o->fmt = NVF_FMT_NORMAL;
	o->verbose = false;
	o->device = NULL;
	while ((c = nvf_getopt(argc, argv, cmd->shortopts,
			       cmd->longopts)) != -1) {
		switch (c) {
		case 'o':
			if (nvf_parse_format(optarg, &o->fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			cmd->usage(stdout);
			return NVF_EXIT_OK;
		case '?':
			return NVF_EXIT_FAIL;
		default:
			if (!cmd->option || cmd->option(c, optarg, arg))
				return NVF_EXIT_FAIL;
		}
	}
	if (cmd->device && optind < argc)
		o->device = argv[optind++];
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	return -1;
}

/* @s, or "-" when it is unknown (NULL) or empty. */
const char *nvf_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* @v in decimal into @buf, or "-" when it is unknown (negative). */
const char *nvf_num_or_dash(long long v, char *buf, size_t size)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%lld", v);
	return buf;
}

/* " grp G ios N (S%)": path @p's ANA group, routed I/Os and their share. */
void nvf_print_path_ios(const struct nvf_path *p)
{
	char grp[24], ios[24];

	printf(" grp %s ios %s", nvf_num_or_dash(p->ana_grpid, grp, sizeof(grp)),
	       nvf_num_or_dash(p->routed_ios, ios, sizeof(ios)));
	if (p->share < 0)
		printf(" (-)");
	else
		printf(" (%.1f%%)", p->share);
}

/* " inflight R/W ps: STATUS": @p's requests in flight, selector status. */
void nvf_print_path_load(const struct nvf_path *p)
{
	char rd[24], wr[24];

	if (p->inflight[0] < 0)
		printf(" inflight -");
	else
		printf(" inflight %s/%s",
		       nvf_num_or_dash(p->inflight[0], rd, sizeof(rd)),
		       nvf_num_or_dash(p->inflight[1], wr, sizeof(wr)));
	printf(" ps: %s", nvf_or_dash(p->ps_status));
}

/*
 * nvme-cli's hosts, as member @key (NULL: a value): an array with, for
 * each host, its HostNQN, HostID and Subsystems, those of @subs that have
 * controllers of that host, each written by @w.
 */
void nvf_json_hosts(struct nvf_json *j, const char *key,
		    const struct nvf_subsys *subs, size_t nr,
		    const struct nvf_host *hosts, size_t nr_hosts,
		    const struct nvf_subsys_writer *w)
{
	size_t h, i;

	nvf_json_begin(j, key, '[');
	for (h = 0; h < nr_hosts; h++) {
		nvf_json_begin(j, NULL, '{');
		nvf_json_str(j, "HostNQN", hosts[h].hostnqn);
		nvf_json_str(j, "HostID", hosts[h].hostid);
		nvf_json_begin(j, "Subsystems", '[');
		for (i = 0; i < nr; i++) {
			if (nvf_subsys_has_host(&subs[i], (int)h))
				w->write(j, &subs[i], (int)h, w->arg);
		}
		nvf_json_end(j, ']');
		nvf_json_end(j, '}');
	}
	nvf_json_end(j, ']');
}
