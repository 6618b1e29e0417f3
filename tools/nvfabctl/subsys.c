// SPDX-License-Identifier: GPL-2.0
/*
 * NVM subsystems as sysfs shows them, for list-subsys.
 *
 * A subsystem is the directory nvfab-subsysS of
 * <root>/class/nvfab-subsystem. It holds the attributes subsysnqn,
 * iopolicy, model, serial and firmware_rev; one link nvfabC per controller
 * (to <root>/class/nvfab/nvfabC); and one directory nvfabSnN per namespace
 * head, with the attribute nsid and a directory multipath/ of links named
 * nvfabScCnN to the per-path block devices, which live under their
 * controller (<root>/class/nvfab/nvfabC/nvfabScCnN) and carry ana_state,
 * ana_grpid, routed_ios, inflight, ps_status and the counters
 * diag/multipath_failover_count, diag/command_retry_count and
 * diag/command_error_count; a controller's counters are diag/reset_count
 * and diag/reconnect_count, a head's diag/io_requeue_no_usable_path_count
 * and diag/io_fail_no_available_path_count.
 *
 * Controller attributes are read through the subsystem's link, or from
 * <root>/class/nvfab when the link leads nowhere; path attributes through
 * the multipath/ link, or from the controller's directory. A path's
 * controller is the C of its name. Whatever is missing or unreadable is
 * NULL or -1 in the result; only a subsystem class that cannot be listed
 * and running out of memory are errors.
 *
 * Also shared by list-subsys, show-topology and list -v: picking the
 * subsystem that holds a device named on the command line, and grouping
 * controllers (and so subsystems and paths) by host as nvme-cli does, by
 * the (hostnqn, hostid) pair of each controller.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

/* True if @name is "nvfab-subsysS"; *@instance gets S. */
bool nvf_subsys_name_parse(const char *name, int *instance)
{
	if (strncmp(name, "nvfab-subsys", 12))
		return false;
	name += 12;
	return nvf_parse_num(&name, instance) && !*name;
}

/* True if @name is a per-path disk "nvfabScCnN". */
bool nvf_path_name_parse(const char *name, int *s, int *c, int *n)
{
	if (strncmp(name, "nvfab", 5))
		return false;
	name += 5;
	if (!nvf_parse_num(&name, s) || *name++ != 'c')
		return false;
	if (!nvf_parse_num(&name, c) || *name++ != 'n')
		return false;
	return nvf_parse_num(&name, n) && !*name;
}

/*
 * Make room for one more element of @size bytes in @arr, which holds @nr
 * of *@cap. Return: the array, moved or not; NULL after reporting that
 * memory ran out, @arr being left as it was.
 */
static void *nvf_grow(void *arr, size_t *cap, size_t nr, size_t size)
{
	size_t new_cap = *cap ? 2 * *cap : 4;
	void *tmp;

	if (nr < *cap)
		return arr;
	tmp = realloc(arr, new_cap * size);
	if (!tmp) {
		nvf_err("out of memory");
		return NULL;
	}
	*cap = new_cap;
	return tmp;
}

/* "<a>/<b>" if that is a directory, else "<c>/<b>"; NULL when out of memory. */
static char *nvf_dir_or(const char *a, const char *c, const char *b)
{
	char *p = nvf_path(a, b);

	if (!p || nvf_is_dir(p))
		return p;
	free(p);
	return nvf_path(c, b);
}

static int nvf_subsys_ctrl_cmp(const void *a, const void *b)
{
	const struct nvf_subsys_ctrl *ca = a, *cb = b;

	return (ca->instance > cb->instance) - (ca->instance < cb->instance);
}

static int nvf_path_cmp(const void *a, const void *b)
{
	const struct nvf_path *pa = a, *pb = b;

	if (pa->ctrl != pb->ctrl)
		return (pa->ctrl > pb->ctrl) - (pa->ctrl < pb->ctrl);
	return strcmp(pa->name, pb->name);
}

static int nvf_head_cmp(const void *a, const void *b)
{
	const struct nvf_head *ha = a, *hb = b;

	return (ha->n > hb->n) - (ha->n < hb->n);
}

static int nvf_subsys_cmp(const void *a, const void *b)
{
	const struct nvf_subsys *sa = a, *sb = b;

	return (sa->instance > sb->instance) - (sa->instance < sb->instance);
}

/* The controllers of @sub: the links nvfabC in its directory @dir. */
static int nvf_subsys_ctrls(struct nvf_subsys *sub, const char *dir,
			    const char *classdir)
{
	struct nvf_subsys_ctrl *ctrl;
	struct dirent *de;
	size_t cap = 0;
	int instance, ret = 0;
	char *cdir;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!nvf_ctrl_name_parse(de->d_name, &instance))
			continue;
		ctrl = nvf_grow(sub->ctrls, &cap, sub->nr_ctrls, sizeof(*ctrl));
		if (!ctrl) {
			ret = -1;
			break;
		}
		sub->ctrls = ctrl;
		ctrl += sub->nr_ctrls;
		memset(ctrl, 0, sizeof(*ctrl));
		ctrl->instance = instance;
		snprintf(ctrl->name, sizeof(ctrl->name), "nvfab%d", instance);
		cdir = nvf_dir_or(dir, classdir, ctrl->name);
		if (!cdir) {
			ret = -1;
			break;
		}
		ctrl->transport = nvf_attr_read(cdir, "transport");
		ctrl->address = nvf_attr_read(cdir, "address");
		ctrl->state = nvf_attr_read(cdir, "state");
		ctrl->cntlid = nvf_attr_read(cdir, "cntlid");
		ctrl->hostnqn = nvf_attr_read(cdir, "hostnqn");
		ctrl->hostid = nvf_attr_read(cdir, "hostid");
		ctrl->model = nvf_attr_read_trim(cdir, "model");
		ctrl->serial = nvf_attr_read_trim(cdir, "serial");
		ctrl->firmware_rev = nvf_attr_read_trim(cdir, "firmware_rev");
		ctrl->reset_count = nvf_attr_read_num(cdir, "diag/reset_count");
		ctrl->reconnect_count = nvf_attr_read_num(cdir,
							  "diag/reconnect_count");
		free(cdir);
		sub->nr_ctrls++;
	}
	closedir(d);
	if (sub->nr_ctrls)
		qsort(sub->ctrls, sub->nr_ctrls, sizeof(*sub->ctrls),
		      nvf_subsys_ctrl_cmp);
	return ret;
}

/* Read the attributes of path @p from its directory @dir. */
static void nvf_path_fill(struct nvf_path *p, const char *dir)
{
	char *inflight, *end;
	long long v;
	int i;

	p->ana_state = nvf_attr_read(dir, "ana_state");
	p->ana_grpid = nvf_attr_read_num(dir, "ana_grpid");
	p->routed_ios = nvf_attr_read_num(dir, "routed_ios");
	p->ps_status = nvf_attr_read(dir, "ps_status");
	p->failover_count = nvf_attr_read_num(dir,
					      "diag/multipath_failover_count");
	p->retry_count = nvf_attr_read_num(dir, "diag/command_retry_count");
	p->error_count = nvf_attr_read_num(dir, "diag/command_error_count");

	/* "R W", the block layer's own format, padded with blanks */
	p->inflight[0] = -1;
	p->inflight[1] = -1;
	inflight = nvf_attr_read(dir, "inflight");
	if (!inflight)
		return;
	end = inflight;
	for (i = 0; i < 2; i++) {
		end += strspn(end, " \t");
		if (*end < '0' || *end > '9')
			break;
		errno = 0;
		v = strtoll(end, &end, 10);
		if (errno)
			break;
		p->inflight[i] = v;
	}
	if (i < 2 || end[strspn(end, " \t")]) {
		p->inflight[0] = -1;
		p->inflight[1] = -1;
	}
	free(inflight);
}

/*
 * Each path's share of the I/O the head routed: its routed_ios over the
 * sum of the paths that report one. Unknown (-1) for a path without a
 * count, and for every path when nothing was routed.
 */
static void nvf_head_shares(struct nvf_head *head)
{
	double total = 0;
	size_t i;

	for (i = 0; i < head->nr_paths; i++) {
		if (head->paths[i].routed_ios >= 0)
			total += (double)head->paths[i].routed_ios;
	}
	for (i = 0; i < head->nr_paths; i++) {
		struct nvf_path *p = &head->paths[i];

		p->share = -1;
		if (total > 0 && p->routed_ios >= 0)
			p->share = 100.0 * (double)p->routed_ios / total;
	}
}

/* The paths of @head: the links in @hdir/multipath. */
static int nvf_head_paths(struct nvf_head *head, const char *hdir,
			  const char *classdir)
{
	char *mpdir, *cdir, *pdir;
	struct nvf_path *p;
	struct dirent *de;
	size_t cap = 0;
	int s, c, n, ret = 0;
	DIR *d;

	mpdir = nvf_path(hdir, "multipath");
	if (!mpdir)
		return -1;
	d = opendir(mpdir);
	if (!d)
		goto out_free_mpdir;
	while ((de = readdir(d))) {
		if (!nvf_path_name_parse(de->d_name, &s, &c, &n))
			continue;
		p = nvf_grow(head->paths, &cap, head->nr_paths, sizeof(*p));
		if (!p) {
			ret = -1;
			break;
		}
		head->paths = p;
		p += head->nr_paths;
		memset(p, 0, sizeof(*p));
		p->ctrl = c;
		snprintf(p->name, sizeof(p->name), "nvfab%dc%dn%d", s, c, n);
		snprintf(p->ctrl_name, sizeof(p->ctrl_name), "nvfab%d", c);
		cdir = nvf_path(classdir, p->ctrl_name);
		pdir = cdir ? nvf_dir_or(mpdir, cdir, p->name) : NULL;
		free(cdir);
		if (!pdir) {
			ret = -1;
			break;
		}
		nvf_path_fill(p, pdir);
		free(pdir);
		head->nr_paths++;
	}
	closedir(d);
	if (head->nr_paths)
		qsort(head->paths, head->nr_paths, sizeof(*head->paths),
		      nvf_path_cmp);
	nvf_head_shares(head);
out_free_mpdir:
	free(mpdir);
	return ret;
}

struct nvf_heads {
	struct nvf_subsys	*sub;
	size_t			cap;
	const char		*classdir;
};

/* Add head nvfabSnN (@x, @y), directory @hdir, to the subsystem of @heads. */
static int nvf_head_add(const char *hdir, int x, int y, void *heads)
{
	struct nvf_heads *hs = heads;
	struct nvf_subsys *sub = hs->sub;
	struct nvf_head *head;

	head = nvf_grow(sub->heads, &hs->cap, sub->nr_heads, sizeof(*head));
	if (!head)
		return -1;
	sub->heads = head;
	head += sub->nr_heads++;
	memset(head, 0, sizeof(*head));
	head->n = y;
	snprintf(head->name, sizeof(head->name), "nvfab%dn%d", x, y);
	head->nsid = nvf_attr_read_num(hdir, "nsid");
	head->sectors = nvf_attr_read_num(hdir, "size");
	head->lba_size = nvf_attr_read_num(hdir, "queue/logical_block_size");
	head->requeue_no_path =
		nvf_attr_read_num(hdir, "diag/io_requeue_no_usable_path_count");
	head->fail_no_path =
		nvf_attr_read_num(hdir, "diag/io_fail_no_available_path_count");
	return nvf_head_paths(head, hdir, hs->classdir);
}

/* The namespace heads of @sub: the directories nvfabSnN in @dir. */
static int nvf_subsys_heads(struct nvf_subsys *sub, const char *dir,
			    const char *classdir)
{
	struct nvf_heads hs = { .sub = sub, .classdir = classdir };
	int ret;

	ret = nvf_ns_dirs(dir, nvf_head_add, &hs);
	if (sub->nr_heads)
		qsort(sub->heads, sub->nr_heads, sizeof(*sub->heads),
		      nvf_head_cmp);
	return ret;
}

static int nvf_subsys_fill(struct nvf_subsys *sub, const char *dir,
			   const char *classdir)
{
	sub->nqn = nvf_attr_read(dir, "subsysnqn");
	sub->iopolicy = nvf_attr_read(dir, "iopolicy");
	sub->model = nvf_attr_read_trim(dir, "model");
	sub->serial = nvf_attr_read_trim(dir, "serial");
	sub->firmware_rev = nvf_attr_read_trim(dir, "firmware_rev");
	if (nvf_subsys_ctrls(sub, dir, classdir))
		return -1;
	return nvf_subsys_heads(sub, dir, classdir);
}

static void nvf_sanitize_opt(char *s)
{
	if (s)
		nvf_sanitize(s);
}

/* Control characters could break the tree: replace them before printing. */
void nvf_subsys_sanitize(struct nvf_subsys *sub)
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
		nvf_sanitize_opt(sub->ctrls[i].hostnqn);
		nvf_sanitize_opt(sub->ctrls[i].hostid);
		nvf_sanitize_opt(sub->ctrls[i].cntlid);
		nvf_sanitize_opt(sub->ctrls[i].model);
		nvf_sanitize_opt(sub->ctrls[i].serial);
		nvf_sanitize_opt(sub->ctrls[i].firmware_rev);
	}
	for (i = 0; i < sub->nr_heads; i++) {
		for (k = 0; k < sub->heads[i].nr_paths; k++) {
			nvf_sanitize_opt(sub->heads[i].paths[k].ana_state);
			nvf_sanitize_opt(sub->heads[i].paths[k].ps_status);
		}
	}
}

void nvf_subsys_free(struct nvf_subsys *subs, size_t nr)
{
	size_t i, k, m;

	for (i = 0; i < nr; i++) {
		struct nvf_subsys *sub = &subs[i];

		free(sub->nqn);
		free(sub->iopolicy);
		free(sub->model);
		free(sub->serial);
		free(sub->firmware_rev);
		for (k = 0; k < sub->nr_ctrls; k++) {
			struct nvf_subsys_ctrl *c = &sub->ctrls[k];

			free(c->transport);
			free(c->address);
			free(c->state);
			free(c->cntlid);
			free(c->hostnqn);
			free(c->hostid);
			free(c->model);
			free(c->serial);
			free(c->firmware_rev);
		}
		free(sub->ctrls);
		for (k = 0; k < sub->nr_heads; k++) {
			struct nvf_head *head = &sub->heads[k];

			for (m = 0; m < head->nr_paths; m++) {
				free(head->paths[m].ana_state);
				free(head->paths[m].ps_status);
			}
			free(head->paths);
		}
		free(sub->heads);
	}
	free(subs);
}

/*
 * Every subsystem, sorted by instance, with its controllers, heads and
 * paths. No class directory (nvfab-core not loaded) means no subsystems.
 * Return: 0 (the caller frees *@subs with nvf_subsys_free()), or -1 after
 * reporting an error.
 */
int nvf_subsys_scan(struct nvf_subsys **subs, size_t *nr)
{
	char *subsysdir, *classdir, *dir;
	struct nvf_subsys *list = NULL, *sub;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int instance, ret = -1;
	DIR *d;

	*subs = NULL;
	*nr = 0;
	subsysdir = nvf_path(nvf_sysfs_root(), "class/nvfab-subsystem");
	classdir = nvf_path(nvf_sysfs_root(), "class/nvfab");
	if (!subsysdir || !classdir)
		goto out_free_paths;
	d = opendir(subsysdir);
	if (!d) {
		ret = errno == ENOENT ? 0 : -1;
		if (ret)
			nvf_err("cannot read %s: %s", subsysdir,
				strerror(errno));
		goto out_free_paths;
	}
	while ((de = readdir(d))) {
		if (!nvf_subsys_name_parse(de->d_name, &instance))
			continue;
		dir = nvf_path(subsysdir, de->d_name);
		if (!dir)
			goto out_free_list;
		if (!nvf_is_dir(dir)) {
			free(dir);
			continue;
		}
		sub = nvf_grow(list, &cap, n, sizeof(*sub));
		if (!sub) {
			free(dir);
			goto out_free_list;
		}
		list = sub;
		/* counted first, so that a partly filled one is freed too */
		sub += n++;
		memset(sub, 0, sizeof(*sub));
		sub->instance = instance;
		snprintf(sub->name, sizeof(sub->name), "nvfab-subsys%d",
			 instance);
		if (nvf_subsys_fill(sub, dir, classdir)) {
			free(dir);
			goto out_free_list;
		}
		free(dir);
	}
	if (n)
		qsort(list, n, sizeof(*list), nvf_subsys_cmp);
	*subs = list;
	*nr = n;
	list = NULL;
	n = 0;
	ret = 0;
out_free_list:
	nvf_subsys_free(list, n);
	closedir(d);
out_free_paths:
	free(classdir);
	free(subsysdir);
	return ret;
}

/*
 * The device name in @arg, copied to @buf: @arg itself, "/dev/NAME", or a
 * path under /sys or $NVFAB_SYSFS whose last component (trailing slashes
 * allowed) is NAME. Return: 0, or -1 after reporting an invalid name.
 */
int nvf_dev_name(const char *arg, char *buf, size_t size)
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
size_t nvf_subsys_select(struct nvf_subsys *subs, size_t nr,
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

/* The head named @name in @sub, or NULL. */
const struct nvf_head *nvf_subsys_find_head(const struct nvf_subsys *sub,
					    const char *name)
{
	size_t i;

	for (i = 0; i < sub->nr_heads; i++) {
		if (!strcmp(sub->heads[i].name, name))
			return &sub->heads[i];
	}
	return NULL;
}

/* Controller nvfab@instance of @sub, or NULL. */
const struct nvf_subsys_ctrl *
nvf_subsys_find_ctrl(const struct nvf_subsys *sub, int instance)
{
	size_t i;

	for (i = 0; i < sub->nr_ctrls; i++) {
		if (sub->ctrls[i].instance == instance)
			return &sub->ctrls[i];
	}
	return NULL;
}

static bool nvf_str_eq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * Group the controllers of @subs by host, as nvme-cli does: one host per
 * distinct (hostnqn, hostid) pair, in the order the controllers come
 * (subsystems, then controllers, by instance). Each controller's host is
 * the index of its pair in *@hosts, which borrows the strings from the
 * controllers: free it before @subs. Return: 0, or -1 (reported).
 */
int nvf_hosts_collect(struct nvf_subsys *subs, size_t nr,
		      struct nvf_host **hosts, size_t *nr_hosts)
{
	struct nvf_host *list = NULL, *tmp;
	size_t i, k, h, n = 0, cap = 0;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < subs[i].nr_ctrls; k++) {
			struct nvf_subsys_ctrl *c = &subs[i].ctrls[k];

			for (h = 0; h < n; h++) {
				if (nvf_str_eq(list[h].hostnqn, c->hostnqn) &&
				    nvf_str_eq(list[h].hostid, c->hostid))
					break;
			}
			if (h == n) {
				tmp = nvf_grow(list, &cap, n, sizeof(*list));
				if (!tmp) {
					free(list);
					return -1;
				}
				list = tmp;
				list[n].hostnqn = c->hostnqn;
				list[n].hostid = c->hostid;
				n++;
			}
			c->host = (int)h;
		}
	}
	*hosts = list;
	*nr_hosts = n;
	return 0;
}

/* Has @sub a controller of host @host? */
bool nvf_subsys_has_host(const struct nvf_subsys *sub, int host)
{
	size_t i;

	for (i = 0; i < sub->nr_ctrls; i++) {
		if (sub->ctrls[i].host == host)
			return true;
	}
	return false;
}

/*
 * The host of path @p: its controller's. A path whose controller is not
 * linked from @sub goes with the subsystem's first controller, so that it
 * is shown once; -1 when @sub has no controller.
 */
int nvf_path_host(const struct nvf_subsys *sub, const struct nvf_path *p)
{
	const struct nvf_subsys_ctrl *c = nvf_subsys_find_ctrl(sub, p->ctrl);

	if (c)
		return c->host;
	return sub->nr_ctrls ? sub->ctrls[0].host : -1;
}

/* Is @head shown under @host: a path of that host, or no path at all? */
bool nvf_head_has_host(const struct nvf_subsys *sub,
		       const struct nvf_head *head, int host)
{
	size_t i;

	if (!head->nr_paths)
		return true;
	for (i = 0; i < head->nr_paths; i++) {
		if (nvf_path_host(sub, &head->paths[i]) == host)
			return true;
	}
	return false;
}

/*
 * The subsystems list-subsys and show-topology show: all of them, or with
 * @device those holding it (its name in @name, @size bytes), first in
 * *@subs. Return: 0 with *@shown of the *@nr set (the caller frees *@subs
 * with nvf_subsys_free()), or -1 after an error message, nothing to free.
 */
int nvf_subsys_load(const char *device, char *name, size_t size,
		    struct nvf_subsys **subs, size_t *nr, size_t *shown)
{
	if (device && nvf_dev_name(device, name, size))
		return -1;
	if (nvf_subsys_scan(subs, nr))
		return -1;
	*shown = device ? nvf_subsys_select(*subs, *nr, name) : *nr;
	if (device && !*shown) {
		nvf_err("no subsystem with device '%s'", device);
		nvf_subsys_free(*subs, *nr);
		return -1;
	}
	return 0;
}
