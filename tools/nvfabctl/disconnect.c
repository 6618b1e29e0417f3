// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl disconnect and disconnect-all: delete controllers by writing
 * "1" to their delete_controller attribute, as nvme-cli does for nvme.
 *
 * disconnect -n takes one NQN or a comma-separated list and deletes every
 * controller whose subsysnqn matches; an NQN that matches none is no error
 * ("disconnected 0 controller(s)"), as in nvme-cli, so that a disconnect
 * can be repeated. -d takes device names (nvfabN or /dev/nvfabN), also
 * comma-separated; a device that does not exist is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

static const struct option nvf_disconnect_longopts[] = {
	{ "nqn",	required_argument,	NULL, 'n' },
	{ "device",	required_argument,	NULL, 'd' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

static const struct option nvf_disconnect_all_longopts[] = {
	{ "transport",	required_argument,	NULL, 'r' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

void nvf_disconnect_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl disconnect -n NQN[,NQN...] | -d DEVICE[,DEVICE...]\n"
		"\n"
		"Disconnect controllers by subsystem NQN or by device (nvfabN).\n"
		"\n"
		"  -n, --nqn=NQN       every controller of this subsystem\n"
		"  -d, --device=DEV    controller nvfabN (or /dev/nvfabN)\n"
		"  -h, --help          show this help\n");
}

void nvf_disconnect_all_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl disconnect-all [-r TRANSPORT]\n"
		"\n"
		"Disconnect every nvfab controller.\n"
		"\n"
		"  -r, --transport=STR only controllers of this transport\n"
		"  -h, --help          show this help\n");
}

/* Delete @ctrl. Return: 0, or -1 after reporting why not. */
static int nvf_delete_ctrl(const struct nvf_ctrl *ctrl)
{
	int err = nvf_attr_write(ctrl->path, "delete_controller", "1");

	if (err) {
		nvf_err("cannot delete %s: %s", ctrl->name, strerror(-err));
		return -1;
	}
	return 0;
}

static int nvf_disconnect_nqn(const struct nvf_ctrl *ctrls, size_t nr,
			      const char *nqn)
{
	int deleted = 0, ret = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		char *val = nvf_attr_read(ctrls[i].path, "subsysnqn");

		if (val && !strcmp(val, nqn)) {
			if (nvf_delete_ctrl(&ctrls[i]))
				ret = -1;
			else
				deleted++;
		}
		free(val);
	}
	printf("NQN:%s disconnected %d controller(s)\n", nqn, deleted);
	/* nvme-cli's line and status, but a typo must not pass unnoticed */
	if (!deleted && !ret)
		nvf_warn("no controller of subsystem %s: nothing to disconnect (nvfabctl list-subsys lists the subsystems connected)",
			 nqn);
	return ret;
}

static int nvf_disconnect_device(const char *name)
{
	struct nvf_ctrl ctrl;
	int ret;

	if (nvf_ctrl_find(name, &ctrl))
		return -1;
	ret = nvf_delete_ctrl(&ctrl);
	free(ctrl.path);
	return ret;
}

int nvf_disconnect(int argc, char **argv)
{
	struct nvf_ctrl *ctrls = NULL;
	char *nqns = NULL, *devs = NULL, *list, *item;
	int c, ret = NVF_EXIT_OK;
	size_t nr = 0;

	while ((c = nvf_getopt(argc, argv, ":n:d:h",
			       nvf_disconnect_longopts)) != -1) {
		switch (c) {
		case 'n':
			nqns = optarg;
			break;
		case 'd':
			devs = optarg;
			break;
		case 'h':
			nvf_disconnect_usage(stdout);
			return NVF_EXIT_OK;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	if (nqns && devs) {
		nvf_err("both device name [--device | -d] and NQN [--nqn | -n] are specified");
		return NVF_EXIT_FAIL;
	}
	if (!nqns && !devs) {
		nvf_err("neither device name [--device | -d] nor NQN [--nqn | -n] provided");
		return NVF_EXIT_FAIL;
	}
	if (nvf_require_module())
		return NVF_EXIT_FAIL;

	if (devs) {
		for (list = devs; (item = strsep(&list, ","));) {
			if (nvf_disconnect_device(item))
				ret = NVF_EXIT_FAIL;
		}
		return ret;
	}

	if (nvf_ctrl_scan(&ctrls, &nr))
		return NVF_EXIT_FAIL;
	for (list = nqns; (item = strsep(&list, ","));) {
		if (nvf_disconnect_nqn(ctrls, nr, item))
			ret = NVF_EXIT_FAIL;
	}
	nvf_ctrl_free(ctrls, nr);
	return ret;
}

int nvf_disconnect_all(int argc, char **argv)
{
	const char *transport = NULL;
	struct nvf_ctrl *ctrls;
	int c, ret = NVF_EXIT_OK;
	size_t i, nr;
	bool match;
	char *val;

	while ((c = nvf_getopt(argc, argv, ":r:h",
			       nvf_disconnect_all_longopts)) != -1) {
		switch (c) {
		case 'r':
			transport = optarg;
			break;
		case 'h':
			nvf_disconnect_all_usage(stdout);
			return NVF_EXIT_OK;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;

	if (nvf_require_module() || nvf_ctrl_scan(&ctrls, &nr))
		return NVF_EXIT_FAIL;
	for (i = 0; i < nr; i++) {
		if (transport) {
			val = nvf_attr_read(ctrls[i].path, "transport");
			match = val && !strcmp(val, transport);
			free(val);
			if (!match)
				continue;
		}
		if (nvf_delete_ctrl(&ctrls[i]))
			ret = NVF_EXIT_FAIL;
	}
	nvf_ctrl_free(ctrls, nr);
	return ret;
}
