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
 *
 * The JSON output is nvme-cli 2.x's: an array of hosts (HostNQN, HostID),
 * each with the subsystems it has controllers in (Name, NQN), each with
 * one Paths entry per controller of that host (Name, Transport, Address,
 * State, ANAState). nvfab adds members, never renames: the subsystem's
 * IOPolicy, Model, Serial and Firmware (nvme-cli's -v names), each
 * controller's Cntlid, and Namespaces with every path in show-topology's
 * shape (topology.c) and nvfab's figures. A subsystem without controllers
 * belongs to no host and is left out of the JSON, as nvme-cli does.
 */
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

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

static void nvf_print_path(const struct nvf_path *p, bool verbose)
{
	printf("     +- %s %s %s", p->name, p->ctrl_name,
	       nvf_or_dash(p->ana_state));
	nvf_print_path_ios(p);
	if (verbose)
		nvf_print_path_load(p);
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
		       nvf_num_or_dash(head->nsid, nsid, sizeof(nsid)));
		for (k = 0; k < head->nr_paths; k++)
			nvf_print_path(&head->paths[k], verbose);
	}
}

/*
 * The ANA state nvme-cli shows for controller @c (with a namespace device,
 * the state of its path to that namespace; nvfabctl always shows it): its
 * path to @head, else to the first namespace; NULL if it has none.
 */
static const char *nvf_ctrl_ana(const struct nvf_subsys *sub,
				const struct nvf_subsys_ctrl *c,
				const struct nvf_head *head)
{
	size_t k;

	if (!head && sub->nr_heads)
		head = &sub->heads[0];
	for (k = 0; head && k < head->nr_paths; k++) {
		if (head->paths[k].ctrl == c->instance)
			return head->paths[k].ana_state;
	}
	return NULL;
}

/*
 * A subsystem's own members, for show-topology too: nvme-cli's Name and
 * NQN, and the attributes it shows with -v (but Type).
 */
void nvf_json_subsys_attrs(struct nvf_json *j, const struct nvf_subsys *sub)
{
	nvf_json_str(j, "Name", sub->name);
	nvf_json_str(j, "NQN", sub->nqn);
	nvf_json_str(j, "IOPolicy", sub->iopolicy);
	nvf_json_str(j, "Model", sub->model);
	nvf_json_str(j, "Serial", sub->serial);
	nvf_json_str(j, "Firmware", sub->firmware_rev);
}

/*
 * One subsystem under host @host: its own members, nvme-cli's Paths (one
 * per controller of that host) with, added by nvfab, Cntlid per controller
 * and the namespaces with every path, in show-topology's shape. @arg: the
 * head DEVICE names, or NULL.
 */
static void nvf_json_subsys(struct nvf_json *j, const struct nvf_subsys *sub,
			    int host, const void *arg)
{
	const struct nvf_head *head = arg;
	size_t i;

	nvf_json_begin(j, NULL, '{');
	nvf_json_subsys_attrs(j, sub);
	nvf_json_begin(j, "Paths", '[');
	for (i = 0; i < sub->nr_ctrls; i++) {
		const struct nvf_subsys_ctrl *c = &sub->ctrls[i];

		if (c->host != host)
			continue;
		nvf_json_begin(j, NULL, '{');
		nvf_json_str(j, "Name", c->name);
		nvf_json_str(j, "Transport", c->transport);
		nvf_json_str(j, "Address", c->address);
		nvf_json_str(j, "State", c->state);
		nvf_json_str(j, "ANAState", nvf_ctrl_ana(sub, c, head));
		nvf_json_str(j, "Cntlid", c->cntlid);
		nvf_json_end(j, '}');
	}
	nvf_json_end(j, ']');
	nvf_json_topo_namespaces(j, "Namespaces", sub, host);
	nvf_json_end(j, '}');
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

/*
 * The JSON output, subsystems @subs grouped by host; @name: the DEVICE
 * given, whose namespace (a head, or the head of a path) gives ANAState.
 */
static int nvf_list_subsys_json_run(struct nvf_subsys *subs, size_t nr,
				    const char *name)
{
	struct nvf_subsys_writer w = { .write = nvf_json_subsys };
	const struct nvf_head *head = NULL;
	struct nvf_host *hosts;
	struct nvf_json j;
	size_t nr_hosts;
	char hname[32];
	int s, c, n;

	if (name && nr && nvf_path_name_parse(name, &s, &c, &n)) {
		snprintf(hname, sizeof(hname), "nvfab%dn%d", s, n);
		head = nvf_subsys_find_head(&subs[0], hname);
	} else if (name && nr) {
		head = nvf_subsys_find_head(&subs[0], name);
	}
	if (nvf_hosts_collect(subs, nr, &hosts, &nr_hosts))
		return NVF_EXIT_FAIL;
	/* nvme-cli's shape: an array of hosts, each with its subsystems */
	w.arg = head;
	nvf_json_init(&j, stdout);
	nvf_json_hosts(&j, NULL, subs, nr, hosts, nr_hosts, &w);
	free(hosts);
	return NVF_EXIT_OK;
}

static const struct nvf_output_cmd nvf_list_subsys_cmd = {
	.shortopts	= ":o:vh",
	.longopts	= nvf_output_longopts,
	.usage		= nvf_list_subsys_usage,
	.device		= true,
};

int nvf_list_subsys(int argc, char **argv)
{
	struct nvf_output_opts o;
	struct nvf_subsys *subs;
	size_t nr, shown;
	char name[64];
	int ret;

	ret = nvf_output_opts(argc, argv, &nvf_list_subsys_cmd, &o, NULL);
	if (ret >= 0)
		return ret;
	if (nvf_require_module())
		return NVF_EXIT_FAIL;
	if (nvf_subsys_load(o.device, name, sizeof(name), &subs, &nr, &shown))
		return NVF_EXIT_FAIL;
	ret = NVF_EXIT_OK;
	if (o.fmt == NVF_FMT_JSON) {
		ret = nvf_list_subsys_json_run(subs, shown,
					       o.device ? name : NULL);
	} else {
		nvf_list_subsys_normal(subs, shown, o.verbose);
	}
	nvf_subsys_free(subs, nr);
	return ret;
}
