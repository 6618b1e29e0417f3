// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl list: one row per controller (name, state, transport, address,
 * subsysnqn, cntlid, namespaces), from the attributes in sysfs. A missing
 * or empty attribute shows as "-" (null in JSON for a missing one), so
 * that every row has the same number of whitespace-separated fields. With
 * no controllers the normal output is empty and the JSON output is [].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

static const struct option nvf_list_longopts[] = {
	{ "output-format",	required_argument,	NULL, 'o' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

void nvf_list_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl list [-o normal|json]\n"
		"\n"
		"List nvfab controllers and their namespaces.\n"
		"\n"
		"  -o, --output-format=FMT  normal or json\n"
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
	return nvf_ctrl_namespaces(ctrl, &row->ns, &row->nr_ns);
}

static void nvf_row_free(struct nvf_row *row)
{
	int i;

	for (i = 0; i < NVF_NR_COLS; i++)
		free(row->col[i]);
	free(row->ns);
}

/* cntlid as a number, or null when missing or not a decimal number. */
static void nvf_json_cntlid(struct nvf_json *j, const char *cntlid)
{
	if (cntlid) {
		char *end;
		long v;

		errno = 0;
		v = strtol(cntlid, &end, 10);
		if (!errno && end != cntlid && !*end && v >= 0) {
			nvf_json_int(j, "cntlid", v);
			return;
		}
	}
	nvf_json_str(j, "cntlid", NULL);
}

static void nvf_list_json(struct nvf_row *rows, size_t nr)
{
	struct nvf_json j;
	size_t i, k;

	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '[');
	for (i = 0; i < nr; i++) {
		nvf_json_begin(&j, NULL, '{');
		nvf_json_str(&j, "name", rows[i].col[NVF_COL_NAME]);
		nvf_json_str(&j, "state", rows[i].col[NVF_COL_STATE]);
		nvf_json_str(&j, "transport", rows[i].col[NVF_COL_TRANSPORT]);
		nvf_json_str(&j, "address", rows[i].col[NVF_COL_ADDRESS]);
		nvf_json_str(&j, "subsysnqn", rows[i].col[NVF_COL_SUBSYSNQN]);
		nvf_json_cntlid(&j, rows[i].col[NVF_COL_CNTLID]);
		nvf_json_begin(&j, "namespaces", '[');
		for (k = 0; k < rows[i].nr_ns; k++) {
			const struct nvf_ns *ns = &rows[i].ns[k];

			nvf_json_begin(&j, NULL, '{');
			nvf_json_str(&j, "name", ns->name);
			if (ns->sectors < 0) {
				nvf_json_str(&j, "size_sectors", NULL);
				nvf_json_str(&j, "size_bytes", NULL);
			} else {
				nvf_json_int(&j, "size_sectors", ns->sectors);
				nvf_json_int(&j, "size_bytes",
					     ns->sectors * 512LL);
			}
			nvf_json_end(&j, '}');
		}
		nvf_json_end(&j, ']');
		nvf_json_end(&j, '}');
	}
	nvf_json_end(&j, ']');
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
		for (i = 0; i < NVF_NR_COLS; i++) {
			val = rows[r].col[i];
			nvf_cell(val && *val ? val : "-", width[i], i);
		}
	}
}

int nvf_list(int argc, char **argv)
{
	enum nvf_format fmt = NVF_FMT_NORMAL;
	struct nvf_row *rows = NULL;
	struct nvf_ctrl *ctrls;
	size_t i, nr;
	int c, ret = NVF_EXIT_FAIL;

	while ((c = nvf_getopt(argc, argv, ":o:h", nvf_list_longopts)) != -1) {
		switch (c) {
		case 'o':
			if (nvf_parse_format(optarg, &fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'h':
			nvf_list_usage(stdout);
			return NVF_EXIT_OK;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;

	if (nvf_ctrl_scan(&ctrls, &nr))
		return NVF_EXIT_FAIL;
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

	if (fmt == NVF_FMT_JSON) {
		nvf_list_json(rows, nr);
	} else {
		for (i = 0; i < nr; i++) {
			rows[i].col[NVF_COL_NAMESPACES] = nvf_ns_column(&rows[i]);
			for (c = 0; c < NVF_NR_COLS; c++) {
				if (rows[i].col[c])
					nvf_sanitize(rows[i].col[c]);
			}
		}
		nvf_list_table(rows, nr);
	}
	ret = NVF_EXIT_OK;
out_free_rows:
	for (i = 0; rows && i < nr; i++)
		nvf_row_free(&rows[i]);
	free(rows);
out_free_ctrls:
	nvf_ctrl_free(ctrls, nr);
	return ret;
}
