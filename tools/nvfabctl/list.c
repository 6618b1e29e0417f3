// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl list: one row per controller (name, state, transport, address,
 * subsysnqn, cntlid, namespaces), from the attributes in sysfs. A missing
 * or empty attribute shows as "-", so that every row has the same number
 * of whitespace-separated fields. With no controllers the normal output is
 * empty.
 *
 * The JSON output is nvme-cli 2.x's: {"Devices": [...]} with one object
 * per namespace (NameSpace is its NSID, DevicePath, GenericPath, Firmware,
 * ModelNumber, SerialNumber and the sizes of namespace.c), to which nvfab
 * adds Name and the Controllers that reach it. nvfab has no generic
 * character devices (/dev/ngXnY), so GenericPath is null. With -v it is
 * nvme-cli's detailed shape: Devices holds hosts, their subsystems, each
 * with its controllers (and their paths) and its namespaces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

void nvf_list_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl list [-o normal|json] [-v]\n"
		"\n"
		"List nvfab controllers and their namespaces; as JSON, the\n"
		"namespaces in nvme-cli's shape.\n"
		"\n"
		"  -o, --output-format=FMT  normal or json\n"
		"  -v, --verbose            JSON: hosts, subsystems, controllers\n"
		"                           and namespaces, as nvme list -v\n"
		"  -h, --help               show this help\n");
}

/* Columns, in output order; the first NVF_NR_ATTRS are sysfs attributes. */
enum {
	NVF_COL_NAME,
	NVF_COL_STATE,
	NVF_COL_TRANSPORT,
	NVF_COL_ADDRESS,
	NVF_COL_SUBSYSNQN,
	NVF_COL_CNTLID,
	NVF_COL_NAMESPACES,
	NVF_NR_COLS,
};

static const char * const nvf_col_head[NVF_NR_COLS] = {
	"Name", "State", "Transport", "Address", "SubsysNQN", "Cntlid",
	"Namespaces",
};

/* The attribute behind each column; NULL for computed ones. */
static const char * const nvf_col_attr[NVF_NR_COLS] = {
	[NVF_COL_STATE]		= "state",
	[NVF_COL_TRANSPORT]	= "transport",
	[NVF_COL_ADDRESS]	= "address",
	[NVF_COL_SUBSYSNQN]	= "subsysnqn",
	[NVF_COL_CNTLID]	= "cntlid",
};

struct nvf_row {
	char		*col[NVF_NR_COLS];	/* NULL: missing */
	char		*model, *serial, *firmware_rev;
	struct nvf_ns	*ns;
	size_t		nr_ns;
};

/* "1.07GB": @bytes in decimal units, as nvme-cli shows sizes. */
static void nvf_human_size(unsigned long long bytes, char *buf, size_t size)
{
	static const char * const units[] = { "B", "kB", "MB", "GB", "TB",
					      "PB", "EB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1000 && u < ARRAY_SIZE(units) - 1) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, size, "%lluB", bytes);
	else
		snprintf(buf, size, "%.2f%s", v, units[u]);
}

/* "nvfab0n1:1.07GB,nvfab0n2:-" for the table. */
static char *nvf_ns_column(const struct nvf_row *row)
{
	size_t i, len = 1, off = 0;
	char size[32], *s;

	if (!row->nr_ns)
		return NULL;
	len += row->nr_ns * (sizeof(row->ns[0].name) + sizeof(size) + 2);
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < row->nr_ns; i++) {
		if (row->ns[i].sectors < 0)
			snprintf(size, sizeof(size), "-");
		else
			nvf_human_size(row->ns[i].sectors * 512ULL, size,
				       sizeof(size));
		off += snprintf(s + off, len - off, "%s%s:%s", i ? "," : "",
				row->ns[i].name, size);
	}
	return s;
}

static int nvf_row_fill(struct nvf_row *row, const struct nvf_ctrl *ctrl)
{
	int i;

	memset(row, 0, sizeof(*row));
	row->col[NVF_COL_NAME] = strdup(ctrl->name);
	for (i = 0; i < NVF_NR_COLS; i++) {
		if (nvf_col_attr[i])
			row->col[i] = nvf_attr_read(ctrl->path,
						    nvf_col_attr[i]);
	}
	row->model = nvf_attr_read_trim(ctrl->path, "model");
	row->serial = nvf_attr_read_trim(ctrl->path, "serial");
	row->firmware_rev = nvf_attr_read_trim(ctrl->path, "firmware_rev");
	return nvf_ctrl_namespaces(ctrl, &row->ns, &row->nr_ns);
}

static void nvf_row_free(struct nvf_row *row)
{
	int i;

	for (i = 0; i < NVF_NR_COLS; i++)
		free(row->col[i]);
	free(row->model);
	free(row->serial);
	free(row->firmware_rev);
	free(row->ns);
}

/* One namespace of the JSON list, with the controllers reaching it. */
struct nvf_dev {
	const struct nvf_ns	*ns;
	const struct nvf_row	**rows;	/* its controllers' rows */
	size_t			nr_rows;
};

static int nvf_dev_cmp(const void *a, const void *b)
{
	const struct nvf_ns *na = ((const struct nvf_dev *)a)->ns;
	const struct nvf_ns *nb = ((const struct nvf_dev *)b)->ns;

	if (na->x != nb->x)
		return (na->x > nb->x) - (na->x < nb->x);
	return (na->y > nb->y) - (na->y < nb->y);
}

/*
 * The namespaces of @rows, each once, with the rows of the controllers
 * that reach it, sorted by name. Return: 0 (the caller frees *@devs and
 * each rows array), or -1 (reported).
 */
static int nvf_devs_collect(struct nvf_row *rows, size_t nr,
			    struct nvf_dev **devs, size_t *nr_devs)
{
	struct nvf_dev *list = NULL, *d;
	const struct nvf_row **tmp;
	size_t i, k, m, n = 0, total = 0;

	for (i = 0; i < nr; i++)
		total += rows[i].nr_ns;
	if (total) {
		list = calloc(total, sizeof(*list));
		if (!list)
			goto out_oom;
	}
	for (i = 0; i < nr; i++) {
		for (k = 0; k < rows[i].nr_ns; k++) {
			const struct nvf_ns *ns = &rows[i].ns[k];

			for (m = 0; m < n; m++) {
				if (!strcmp(list[m].ns->name, ns->name))
					break;
			}
			d = &list[m];
			if (m == n) {
				d->ns = ns;
				n++;
			}
			tmp = realloc(d->rows, (d->nr_rows + 1) * sizeof(*tmp));
			if (!tmp)
				goto out_free;
			d->rows = tmp;
			d->rows[d->nr_rows++] = &rows[i];
		}
	}
	if (n)
		qsort(list, n, sizeof(*list), nvf_dev_cmp);
	*devs = list;
	*nr_devs = n;
	return 0;

out_free:
	for (m = 0; m < n; m++)
		free(list[m].rows);
	free(list);
out_oom:
	nvf_err("out of memory");
	return -1;
}

static int nvf_list_json(struct nvf_row *rows, size_t nr)
{
	struct nvf_dev *devs = NULL;
	char path[64];
	struct nvf_json j;
	struct nvf_geom g;
	size_t i, k, nr_devs = 0;

	if (nvf_devs_collect(rows, nr, &devs, &nr_devs))
		return NVF_EXIT_FAIL;
	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '{');
	nvf_json_begin(&j, "Devices", '[');
	for (i = 0; i < nr_devs; i++) {
		const struct nvf_ns *ns = devs[i].ns;
		const struct nvf_row *first = devs[i].rows[0];

		nvf_ns_geometry(ns->name, ns->nsid, ns->sectors, ns->lba_size,
				&g);
		snprintf(path, sizeof(path), "/dev/%s", ns->name);
		nvf_json_begin(&j, NULL, '{');
		nvf_json_num(&j, "NameSpace", ns->nsid);
		nvf_json_str(&j, "DevicePath", path);
		nvf_json_str(&j, "GenericPath", NULL);
		nvf_json_str(&j, "Firmware", first->firmware_rev);
		nvf_json_str(&j, "ModelNumber", first->model);
		nvf_json_str(&j, "SerialNumber", first->serial);
		nvf_json_geometry(&j, &g);
		nvf_json_str(&j, "Name", ns->name);
		nvf_json_begin(&j, "Controllers", '[');
		for (k = 0; k < devs[i].nr_rows; k++)
			nvf_json_str(&j, NULL, devs[i].rows[k]->col[NVF_COL_NAME]);
		nvf_json_end(&j, ']');
		nvf_json_end(&j, '}');
	}
	nvf_json_end(&j, ']');
	nvf_json_end(&j, '}');
	for (i = 0; i < nr_devs; i++)
		free(devs[i].rows);
	free(devs);
	return NVF_EXIT_OK;
}

/* nvme-cli's namespace members in the detailed list, for head @head. */
static void nvf_json_detail_ns(struct nvf_json *j, const struct nvf_head *head)
{
	struct nvf_geom g;

	nvf_ns_geometry(head->name, head->nsid, head->sectors, head->lba_size,
			&g);
	nvf_json_begin(j, NULL, '{');
	nvf_json_str(j, "NameSpace", head->name);
	nvf_json_str(j, "Generic", NULL);
	nvf_json_num(j, "NSID", head->nsid);
	nvf_json_geometry(j, &g);
	nvf_json_end(j, '}');
}

static void nvf_json_detail_ctrl(struct nvf_json *j,
				 const struct nvf_subsys *sub,
				 const struct nvf_subsys_ctrl *c)
{
	size_t i, k;

	nvf_json_begin(j, NULL, '{');
	nvf_json_str(j, "Controller", c->name);
	nvf_json_str(j, "Cntlid", c->cntlid);
	nvf_json_str(j, "SerialNumber", c->serial);
	nvf_json_str(j, "ModelNumber", c->model);
	nvf_json_str(j, "Firmware", c->firmware_rev);
	nvf_json_str(j, "Transport", c->transport);
	nvf_json_str(j, "Address", c->address);
	nvf_json_str(j, "Slot", NULL);
	/* every nvfab namespace is a multipath one: none is private */
	nvf_json_begin(j, "Namespaces", '[');
	nvf_json_end(j, ']');
	nvf_json_begin(j, "Paths", '[');
	for (i = 0; i < sub->nr_heads; i++) {
		for (k = 0; k < sub->heads[i].nr_paths; k++) {
			const struct nvf_path *p = &sub->heads[i].paths[k];

			if (p->ctrl != c->instance)
				continue;
			nvf_json_begin(j, NULL, '{');
			nvf_json_str(j, "Path", p->name);
			nvf_json_str(j, "ANAState", p->ana_state);
			nvf_json_end(j, '}');
		}
	}
	nvf_json_end(j, ']');
	nvf_json_str(j, "State", c->state);
	nvf_json_end(j, '}');
}

/* One subsystem under host @host, with its controllers and namespaces. */
static void nvf_json_detail_subsys(struct nvf_json *j,
				   const struct nvf_subsys *sub, int host,
				   const void *arg)
{
	size_t k;

	(void)arg;	/* no more than the subsystem and host */
	nvf_json_begin(j, NULL, '{');
	nvf_json_str(j, "Subsystem", sub->name);
	nvf_json_str(j, "SubsystemNQN", sub->nqn);
	nvf_json_begin(j, "Controllers", '[');
	for (k = 0; k < sub->nr_ctrls; k++) {
		if (sub->ctrls[k].host == host)
			nvf_json_detail_ctrl(j, sub, &sub->ctrls[k]);
	}
	nvf_json_end(j, ']');
	nvf_json_begin(j, "Namespaces", '[');
	for (k = 0; k < sub->nr_heads; k++) {
		if (nvf_head_has_host(sub, &sub->heads[k], host))
			nvf_json_detail_ns(j, &sub->heads[k]);
	}
	nvf_json_end(j, ']');
	nvf_json_end(j, '}');
}

/* list -v -o json: nvme list -v's shape, from the subsystems. */
static int nvf_list_json_detail(void)
{
	static const struct nvf_subsys_writer w = {
		.write = nvf_json_detail_subsys,
	};
	struct nvf_host *hosts = NULL;
	struct nvf_subsys *subs;
	size_t nr, nr_hosts;
	struct nvf_json j;

	if (nvf_subsys_scan(&subs, &nr))
		return NVF_EXIT_FAIL;
	if (nvf_hosts_collect(subs, nr, &hosts, &nr_hosts)) {
		nvf_subsys_free(subs, nr);
		return NVF_EXIT_FAIL;
	}
	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '{');
	nvf_json_hosts(&j, "Devices", subs, nr, hosts, nr_hosts, &w);
	nvf_json_end(&j, '}');
	free(hosts);
	nvf_subsys_free(subs, nr);
	return NVF_EXIT_OK;
}

/* One cell: padded to @width, except the last of a row, which ends it. */
static void nvf_cell(const char *val, int width, int col)
{
	bool last = col == NVF_NR_COLS - 1;

	printf("%-*s%s", last ? 0 : width, val, last ? "\n" : "  ");
}

static void nvf_list_table(struct nvf_row *rows, size_t nr)
{
	int width[NVF_NR_COLS], i, w;
	char dashes[256];
	const char *val;
	size_t r;

	if (!nr)
		return;
	for (i = 0; i < NVF_NR_COLS; i++) {
		width[i] = strlen(nvf_col_head[i]);
		for (r = 0; r < nr; r++) {
			val = rows[r].col[i];
			w = val && *val ? (int)strlen(val) : 1;
			if (w > width[i])
				width[i] = w;
		}
	}
	for (i = 0; i < NVF_NR_COLS; i++)
		nvf_cell(nvf_col_head[i], width[i], i);
	for (i = 0; i < NVF_NR_COLS; i++) {
		w = width[i] < (int)sizeof(dashes) ? width[i] :
			(int)sizeof(dashes) - 1;
		memset(dashes, '-', w);
		dashes[w] = '\0';
		nvf_cell(dashes, width[i], i);
	}
	for (r = 0; r < nr; r++) {
		for (i = 0; i < NVF_NR_COLS; i++)
			nvf_cell(nvf_or_dash(rows[r].col[i]), width[i], i);
	}
}

static const struct nvf_output_cmd nvf_list_cmd = {
	.shortopts	= ":o:vh",
	.longopts	= nvf_output_longopts,
	.usage		= nvf_list_usage,
};

int nvf_list(int argc, char **argv)
{
	struct nvf_output_opts o;
	struct nvf_row *rows = NULL;
	struct nvf_ctrl *ctrls;
	size_t i, nr;
	int c, ret;

	ret = nvf_output_opts(argc, argv, &nvf_list_cmd, &o, NULL);
	if (ret >= 0)
		return ret;
	if (nvf_require_module())
		return NVF_EXIT_FAIL;
	if (o.fmt == NVF_FMT_JSON && o.verbose)
		return nvf_list_json_detail();

	if (nvf_ctrl_scan(&ctrls, &nr))
		return NVF_EXIT_FAIL;
	ret = NVF_EXIT_FAIL;
	if (nr) {
		rows = calloc(nr, sizeof(*rows));
		if (!rows) {
			nvf_err("out of memory");
			goto out_free_ctrls;
		}
	}
	for (i = 0; i < nr; i++) {
		if (nvf_row_fill(&rows[i], &ctrls[i]))
			goto out_free_rows;
	}

	if (o.fmt == NVF_FMT_JSON) {
		ret = nvf_list_json(rows, nr);
		goto out_free_rows;
	}
	for (i = 0; i < nr; i++) {
		rows[i].col[NVF_COL_NAMESPACES] = nvf_ns_column(&rows[i]);
		for (c = 0; c < NVF_NR_COLS; c++) {
			if (rows[i].col[c])
				nvf_sanitize(rows[i].col[c]);
		}
	}
	nvf_list_table(rows, nr);
	ret = NVF_EXIT_OK;
out_free_rows:
	for (i = 0; rows && i < nr; i++)
		nvf_row_free(&rows[i]);
	free(rows);
out_free_ctrls:
	nvf_ctrl_free(ctrls, nr);
	return ret;
}
