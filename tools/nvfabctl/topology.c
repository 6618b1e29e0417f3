// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl show-topology: nvme-cli's show-topology for nvfab. For each
 * host (a host NQN and host ID pair of the controllers, as nvme-cli
 * groups them), each subsystem with controllers of that host, and in it
 * each namespace with its paths, or each controller with its namespaces:
 *
 *   nvfab-subsys0 - NQN=nqn.2014-08.org.example:s1
 *                   hostnqn=nqn.2014-08.org.nvmexpress:uuid:...
 *                   iopolicy=round-robin
 *   \
 *    +- ns 1
 *    \
 *     +- nvfab0 tcp traddr=192.0.2.2,trsvcid=4420 live optimized
 *     +- nvfab1 tcp traddr=198.51.100.2,trsvcid=4420 live non-optimized
 *
 * -r ctrl ranks by controller, -r multipath by namespace with each path's
 * disk first, as nvme-cli 2.x does. -v adds model, serial and firmware
 * lines and, to each path, nvfab's own figures: ANA group, I/Os routed and
 * their share, requests in flight and the path selector's status. A
 * missing value shows as "-".
 *
 * The JSON output is nvme-cli's (2.3 and the later 2.x, whose path objects
 * differ: both sets of members are there), with nvfab's figures added as
 * members of their own; nvf_json_topo_namespaces() writes the namespaces
 * for list-subsys too.
 */
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

enum nvf_ranking {
	NVF_RANK_NAMESPACE,
	NVF_RANK_CTRL,
	NVF_RANK_MULTIPATH,
};

static const struct option nvf_topology_longopts[] = {
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "ranking",		required_argument,	NULL, 'r' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

void nvf_show_topology_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl show-topology [-o normal|json] [-r namespace|ctrl|multipath] [-v] [DEVICE]\n"
		"\n"
		"Show each host's NVM subsystems, their namespaces and the paths\n"
		"to them (controller, transport, address, state, ANA state).\n"
		"DEVICE (nvfab-subsysS, nvfabC, nvfabSnN or nvfabScCnN, also\n"
		"as a /dev or /sys path) shows only the subsystem holding it.\n"
		"\n"
		"  -o, --output-format=FMT  normal or json\n"
		"  -r, --ranking=ORDER      namespace (default), ctrl or multipath;\n"
		"                           the JSON output is always by namespace\n"
		"  -v, --verbose            add model, serial, firmware and each\n"
		"                           path's ANA group, routed I/Os, in-flight\n"
		"                           requests and path selector status\n"
		"  -h, --help               show this help\n");
}

/* The fields of path @p's controller: "-" for any that is unknown. */
struct nvf_ctrl_fields {
	const char	*name, *transport, *address, *state;
};

static void nvf_ctrl_fields(const struct nvf_subsys *sub,
			    const struct nvf_path *p, struct nvf_ctrl_fields *f)
{
	const struct nvf_subsys_ctrl *c = nvf_subsys_find_ctrl(sub, p->ctrl);

	f->name = p->ctrl_name;
	f->transport = c ? c->transport : NULL;
	f->address = c ? c->address : NULL;
	f->state = c ? c->state : NULL;
}

/* -v: nvfab's figures for path @p, appended to its line. */
static void nvf_print_extras(const struct nvf_path *p)
{
	nvf_print_path_ios(p);
	nvf_print_path_load(p);
}

static void nvf_topo_by_namespace(const struct nvf_subsys *sub, int host,
				  bool verbose)
{
	struct nvf_ctrl_fields f;
	size_t i, k;

	for (i = 0; i < sub->nr_heads; i++) {
		const struct nvf_head *head = &sub->heads[i];
		bool first = true;

		for (k = 0; k < head->nr_paths; k++) {
			const struct nvf_path *p = &head->paths[k];

			if (nvf_path_host(sub, p) != host)
				continue;
			if (first) {
				if (head->nsid < 0)
					printf(" +- ns -\n \\\n");
				else
					printf(" +- ns %lld\n \\\n", head->nsid);
				first = false;
			}
			nvf_ctrl_fields(sub, p, &f);
			printf("  +- %s %s %s %s %s", f.name,
			       nvf_or_dash(f.transport), nvf_or_dash(f.address),
			       nvf_or_dash(f.state), nvf_or_dash(p->ana_state));
			if (verbose)
				nvf_print_extras(p);
			putchar('\n');
		}
	}
}

static void nvf_topo_by_ctrl(const struct nvf_subsys *sub, int host,
			     bool verbose)
{
	size_t i, k, m;

	for (i = 0; i < sub->nr_ctrls; i++) {
		const struct nvf_subsys_ctrl *c = &sub->ctrls[i];

		if (c->host != host)
			continue;
		printf(" +- %s %s %s\n \\\n", c->name, nvf_or_dash(c->transport),
		       nvf_or_dash(c->address));
		for (k = 0; k < sub->nr_heads; k++) {
			const struct nvf_head *head = &sub->heads[k];

			for (m = 0; m < head->nr_paths; m++) {
				const struct nvf_path *p = &head->paths[m];

				if (p->ctrl != c->instance)
					continue;
				if (head->nsid < 0)
					printf("  +- ns -");
				else
					printf("  +- ns %lld", head->nsid);
				printf(" %s %s", nvf_or_dash(c->state),
				       nvf_or_dash(p->ana_state));
				if (verbose)
					nvf_print_extras(p);
				putchar('\n');
			}
		}
	}
}

static void nvf_topo_by_path(const struct nvf_subsys *sub, int host,
			     bool verbose)
{
	struct nvf_ctrl_fields f;
	size_t i, k;

	for (i = 0; i < sub->nr_heads; i++) {
		const struct nvf_head *head = &sub->heads[i];

		if (!nvf_head_has_host(sub, head, host))
			continue;
		if (head->nsid < 0)
			printf(" +- %s (ns -)\n \\\n", head->name);
		else
			printf(" +- %s (ns %lld)\n \\\n", head->name, head->nsid);
		for (k = 0; k < head->nr_paths; k++) {
			const struct nvf_path *p = &head->paths[k];

			if (nvf_path_host(sub, p) != host)
				continue;
			nvf_ctrl_fields(sub, p, &f);
			printf("  +- %s %s %s %s %s %s", p->name,
			       nvf_or_dash(p->ana_state), f.name,
			       nvf_or_dash(f.transport), nvf_or_dash(f.address),
			       nvf_or_dash(f.state));
			if (verbose)
				nvf_print_extras(p);
			putchar('\n');
		}
	}
}

static void nvf_topo_normal(struct nvf_subsys *subs, size_t nr,
			    const struct nvf_host *hosts, size_t nr_hosts,
			    enum nvf_ranking rank, bool verbose)
{
	bool first = true;
	size_t h, i;
	int indent;

	for (h = 0; h < nr_hosts; h++) {
		for (i = 0; i < nr; i++) {
			const struct nvf_subsys *sub = &subs[i];

			if (!nvf_subsys_has_host(sub, (int)h))
				continue;
			if (!first)
				putchar('\n');
			first = false;
			indent = (int)strlen(sub->name) + 3;
			printf("%s - NQN=%s\n", sub->name, nvf_or_dash(sub->nqn));
			printf("%*shostnqn=%s\n", indent, "",
			       nvf_or_dash(hosts[h].hostnqn));
			printf("%*siopolicy=%s\n", indent, "",
			       nvf_or_dash(sub->iopolicy));
			if (verbose) {
				printf("%*smodel=%s\n", indent, "",
				       nvf_or_dash(sub->model));
				printf("%*sserial=%s\n", indent, "",
				       nvf_or_dash(sub->serial));
				printf("%*sfirmware=%s\n", indent, "",
				       nvf_or_dash(sub->firmware_rev));
			}
			printf("\\\n");
			if (rank == NVF_RANK_CTRL)
				nvf_topo_by_ctrl(sub, (int)h, verbose);
			else if (rank == NVF_RANK_MULTIPATH)
				nvf_topo_by_path(sub, (int)h, verbose);
			else
				nvf_topo_by_namespace(sub, (int)h, verbose);
		}
	}
}

/* The controller members nvme-cli prints: Name, Transport, Address, State. */
static void nvf_json_ctrl_members(struct nvf_json *j,
				  const struct nvf_ctrl_fields *f)
{
	nvf_json_str(j, "Name", f->name);
	nvf_json_str(j, "Transport", f->transport);
	nvf_json_str(j, "Address", f->address);
	nvf_json_str(j, "State", f->state);
}

static void nvf_json_topo_path(struct nvf_json *j, const struct nvf_subsys *sub,
			       const struct nvf_path *p)
{
	struct nvf_ctrl_fields f;

	nvf_ctrl_fields(sub, p, &f);
	nvf_json_begin(j, NULL, '{');
	/* nvme-cli 2.3: the path is its controller */
	nvf_json_ctrl_members(j, &f);
	nvf_json_str(j, "ANAState", p->ana_state);
	/* later 2.x: the path's disk, with its controller in an array */
	nvf_json_str(j, "Path", p->name);
	nvf_json_begin(j, "Controller", '[');
	nvf_json_begin(j, NULL, '{');
	nvf_json_ctrl_members(j, &f);
	nvf_json_end(j, '}');
	nvf_json_end(j, ']');
	if (sub->iopolicy && !strcmp(sub->iopolicy, "queue-depth"))
		nvf_json_num(j, "Qdepth", p->inflight[0] < 0 ? -1 :
			     p->inflight[0] + p->inflight[1]);
	/* nvfab's own */
	nvf_json_num(j, "ANAGroup", p->ana_grpid);
	nvf_json_num(j, "RoutedIOs", p->routed_ios);
	if (p->share < 0)
		nvf_json_str(j, "IOSharePercent", NULL);
	else
		nvf_json_fixed(j, "IOSharePercent", p->share, 1);
	if (p->inflight[0] < 0) {
		nvf_json_str(j, "Inflight", NULL);
	} else {
		nvf_json_begin(j, "Inflight", '{');
		nvf_json_int(j, "Read", p->inflight[0]);
		nvf_json_int(j, "Write", p->inflight[1]);
		nvf_json_end(j, '}');
	}
	nvf_json_str(j, "PSStatus", p->ps_status);
	nvf_json_end(j, '}');
}

/*
 * Member @key: the namespaces of @sub that host @host reaches (and those
 * with no path at all), each with NSID, Name and its paths of that host.
 */
void nvf_json_topo_namespaces(struct nvf_json *j, const char *key,
			      const struct nvf_subsys *sub, int host)
{
	size_t i, k;

	nvf_json_begin(j, key, '[');
	for (i = 0; i < sub->nr_heads; i++) {
		const struct nvf_head *head = &sub->heads[i];

		if (!nvf_head_has_host(sub, head, host))
			continue;
		nvf_json_begin(j, NULL, '{');
		nvf_json_num(j, "NSID", head->nsid);
		nvf_json_str(j, "Name", head->name);
		nvf_json_begin(j, "Paths", '[');
		for (k = 0; k < head->nr_paths; k++) {
			if (nvf_path_host(sub, &head->paths[k]) == host)
				nvf_json_topo_path(j, sub, &head->paths[k]);
		}
		nvf_json_end(j, ']');
		nvf_json_end(j, '}');
	}
	nvf_json_end(j, ']');
}

/* One subsystem under host @host: its own members and its namespaces. */
static void nvf_topo_json_subsys(struct nvf_json *j,
				 const struct nvf_subsys *sub, int host,
				 const void *arg)
{
	(void)arg;	/* no more than the subsystem and host */
	nvf_json_begin(j, NULL, '{');
	nvf_json_subsys_attrs(j, sub);
	nvf_json_topo_namespaces(j, "Namespaces", sub, host);
	nvf_json_end(j, '}');
}

static void nvf_topo_json(const struct nvf_subsys *subs, size_t nr,
			  const struct nvf_host *hosts, size_t nr_hosts)
{
	static const struct nvf_subsys_writer w = {
		.write = nvf_topo_json_subsys,
	};
	struct nvf_json j;

	nvf_json_init(&j, stdout);
	nvf_json_hosts(&j, NULL, subs, nr, hosts, nr_hosts, &w);
}

static int nvf_parse_ranking(const char *s, enum nvf_ranking *rank)
{
	if (!strcmp(s, "namespace")) {
		*rank = NVF_RANK_NAMESPACE;
	} else if (!strcmp(s, "ctrl")) {
		*rank = NVF_RANK_CTRL;
	} else if (!strcmp(s, "multipath")) {
		*rank = NVF_RANK_MULTIPATH;
	} else {
		nvf_err("invalid ranking '%s' (namespace, ctrl or multipath)", s);
		return -1;
	}
	return 0;
}

/* The option show-topology has beyond the output options: -r, into @rank. */
static int nvf_topology_option(int c, const char *val, void *rank)
{
	return c == 'r' ? nvf_parse_ranking(val, rank) : -1;
}

static const struct nvf_output_cmd nvf_topology_cmd = {
	.shortopts	= ":o:r:vh",
	.longopts	= nvf_topology_longopts,
	.usage		= nvf_show_topology_usage,
	.device		= true,
	.option		= nvf_topology_option,
};

int nvf_show_topology(int argc, char **argv)
{
	enum nvf_ranking rank = NVF_RANK_NAMESPACE;
	struct nvf_host *hosts = NULL;
	struct nvf_output_opts o;
	struct nvf_subsys *subs;
	size_t i, nr, shown, nr_hosts = 0;
	char name[64];
	int ret;

	ret = nvf_output_opts(argc, argv, &nvf_topology_cmd, &o, &rank);
	if (ret >= 0)
		return ret;
	if (nvf_require_module())
		return NVF_EXIT_FAIL;
	if (nvf_subsys_load(o.device, name, sizeof(name), &subs, &nr, &shown))
		return NVF_EXIT_FAIL;
	ret = NVF_EXIT_FAIL;
	if (nvf_hosts_collect(subs, shown, &hosts, &nr_hosts))
		goto out_free;
	if (o.fmt == NVF_FMT_JSON) {
		nvf_topo_json(subs, shown, hosts, nr_hosts);
	} else {
		for (i = 0; i < shown; i++)
			nvf_subsys_sanitize(&subs[i]);
		nvf_topo_normal(subs, shown, hosts, nr_hosts, rank, o.verbose);
	}
	ret = NVF_EXIT_OK;
	free(hosts);
out_free:
	nvf_subsys_free(subs, nr);
	return ret;
}
