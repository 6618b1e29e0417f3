// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl: command dispatch, help, version and the helpers every verb
 * shares: one-line error messages, getopt error reporting, number and
 * output-format parsing.
 *
 * Errors follow one shape, "nvfabctl: <verb>: <reason>", on one line of
 * stderr, and every failure exits with status 1, but for an nvme-cli
 * option whose feature nvfab does not have yet (NVF_EXIT_UNSUPPORTED).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"
#include "config.h"
#include "dlp.h"

#ifndef NVFAB_VERSION
#error "NVFAB_VERSION must be defined by the Makefile (from VERSION)"
#endif

const char *nvf_verb = "nvfabctl";

/*
 * getopt_long() with our own error messages: returns the option, or '?'
 * after reporting an unknown option or a missing argument. @shortopts
 * must start with ':' so that a missing argument is told apart.
 */
int nvf_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	const char *arg;
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;

	/*
	 * A long option always consumes its argv element, so argv[optind - 1]
	 * is the long option; a short one may sit inside a bundle ("-gn"), so
	 * it is named by optopt. optopt is 0 for an unknown or ambiguous long
	 * option, and a known option for one given an argument it does not
	 * take ("--dry-run=1").
	 */
	arg = argv[optind - 1];
	if (c == ':' && !strncmp(arg, "--", 2))
		nvf_err("option '%s' requires an argument", arg);
	else if (c == ':')
		nvf_err("option '-%c' requires an argument", optopt);
	else if (!optopt)
		nvf_err("unrecognized or ambiguous option '%s'", arg);
	else if (optopt > 255 || (optopt != ':' && strchr(shortopts, optopt)))
		nvf_err("option '%s' takes no argument", arg);
	else
		nvf_err("unrecognized option '-%c'", optopt);
	return '?';
}

/* Refuse operands left at optind: past the options and any the verb took. */
int nvf_no_operands(int argc, char **argv)
{
	if (optind < argc) {
		nvf_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/*
 * Parse an int option value the way the kernel's match_int() does
 * (decimal, 0x hex or 0 octal); @name is the long option, for the message.
 */
int nvf_parse_int(const char *name, const char *s, int *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (!*s || *end || (errno && errno != ERANGE)) {
		nvf_err("invalid --%s '%s': not an integer", name, s);
		return -1;
	}
	if (errno || v < INT_MIN || v > INT_MAX) {
		nvf_err("invalid --%s %s: out of range, %d to %d", name, s,
			INT_MIN, INT_MAX);
		return -1;
	}
	*val = (int)v;
	return 0;
}

int nvf_parse_format(const char *s, enum nvf_format *fmt)
{
	if (!strcmp(s, "normal")) {
		*fmt = NVF_FMT_NORMAL;
	} else if (!strcmp(s, "json")) {
		*fmt = NVF_FMT_JSON;
	} else {
		nvf_err("invalid output format '%s' (normal or json)", s);
		return -1;
	}
	return 0;
}

/* Replace control characters so that a value cannot break a table row. */
void nvf_sanitize(char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	}
}

struct nvf_cmd {
	const char	*name;
	const char	*summary;
	int		(*run)(int argc, char **argv);
	void		(*usage)(FILE *f);
};

static const struct nvf_cmd nvf_cmds[] = {
	{ "connect",		"connect to an NVMe over Fabrics subsystem",
	  nvf_connect,		nvf_connect_usage },
	{ "disconnect",		"disconnect controllers by NQN or device",
	  nvf_disconnect,	nvf_disconnect_usage },
	{ "disconnect-all",	"disconnect every nvfab controller",
	  nvf_disconnect_all,	nvf_disconnect_all_usage },
	{ "list",		"list controllers and their namespaces",
	  nvf_list,		nvf_list_usage },
	{ "list-subsys",	"list subsystems, their controllers and paths",
	  nvf_list_subsys,	nvf_list_subsys_usage },
	{ "discover",		"print the Discovery Log Page of a discovery controller",
	  nvf_discover,		nvf_discover_usage },
	{ "connect-all",	"connect every subsystem a discovery controller lists",
	  nvf_connect_all,	nvf_connect_all_usage },
	{ "discovery",		"add, remove or list persistent discovery controllers",
	  nvf_discovery,	nvf_discovery_usage },
	{ "config",		"check, apply or show the boot-time configuration",
	  nvf_config,		nvf_config_usage },
	{ "show-topology",	"show subsystems, namespaces and their paths",
	  nvf_show_topology,	nvf_show_topology_usage },
	{ "status",		"the health of every namespace and its paths",
	  nvf_status,		nvf_status_usage },
	{ "gen-hostnqn",	"print a new host NQN",
	  nvf_gen_hostnqn,	nvf_gen_hostnqn_usage },
	{ "show-hostnqn",	"print the host NQN connect uses",
	  nvf_show_hostnqn,	nvf_show_hostnqn_usage },
	{ "gen-hostid",		"print a new host ID",
	  nvf_gen_hostid,	nvf_gen_hostid_usage },
	{ "show-hostid",	"print the host ID connect uses",
	  nvf_show_hostid,	nvf_show_hostid_usage },
};

static const struct nvf_cmd *nvf_find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nvf_cmds); i++) {
		if (!strcmp(nvf_cmds[i].name, name))
			return &nvf_cmds[i];
	}
	return NULL;
}

static void nvf_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: nvfabctl <command> [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(nvf_cmds); i++)
		fprintf(f, "  %-16s %s\n", nvf_cmds[i].name,
			nvf_cmds[i].summary);
	fprintf(f, "  %-16s %s\n", "help [COMMAND]", "show this or a command's help");
	fprintf(f, "  %-16s %s\n", "version", "show the version");
	fprintf(f, "\nSee 'nvfabctl help <command>' and nvfabctl(8).\n");
}

static int nvf_help(int argc, char **argv)
{
	const struct nvf_cmd *cmd;

	if (argc < 2) {
		nvf_usage(stdout);
		return NVF_EXIT_OK;
	}
	cmd = nvf_find_cmd(argv[1]);
	if (!cmd) {
		nvf_verb = "help";
		nvf_err("unknown command '%s'", argv[1]);
		return NVF_EXIT_FAIL;
	}
	cmd->usage(stdout);
	return NVF_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct nvf_cmd *cmd;
	const char *name;

	if (argc < 2) {
		nvf_usage(stderr);
		return NVF_EXIT_FAIL;
	}
	name = argv[1];
	if (!strcmp(name, "help") || !strcmp(name, "--help") ||
	    !strcmp(name, "-h"))
		return nvf_help(argc - 1, argv + 1);
	if (!strcmp(name, "version") || !strcmp(name, "--version")) {
		printf("nvfabctl version %s\n", NVFAB_VERSION);
		return NVF_EXIT_OK;
	}
	cmd = nvf_find_cmd(name);
	if (!cmd) {
		nvf_verb = name;
		nvf_err("unknown command, see 'nvfabctl help'");
		return NVF_EXIT_FAIL;
	}
	nvf_verb = cmd->name;
	return cmd->run(argc - 1, argv + 1);
}
