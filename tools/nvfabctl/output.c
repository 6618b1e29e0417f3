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
