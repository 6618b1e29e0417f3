// SPDX-License-Identifier: GPL-2.0
/*
 * Controllers and namespaces as sysfs shows them.
 *
 * Controllers are the entries nvfabN of <root>/class/nvfab, where <root>
 * is $NVFAB_SYSFS or /sys. Their attributes carry the in-kernel nvme names
 * (state, transport, address, subsysnqn, cntlid, delete_controller, ...),
 * one value per file.
 *
 * The namespaces of a controller are the block devices nvfabXnY found
 * either as children of the controller's directory (one controller per
 * disk) or in <root>/block, where a multipath disk belongs to every
 * controller that its "device" link reaches: the controller itself, or a
 * subsystem directory holding a link named after the controller. A block
 * device without a "device" link falls back to its name (X == N). Hidden
 * per-path disks (nvfabXcNnY) are not namespaces of their own and are
 * skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvfabctl.h"

/* Longest attribute value read; sysfs files are at most a page. */
#define NVF_ATTR_MAX	4096

const char *nvf_sysfs_root(void)
{
	const char *root = getenv("NVFAB_SYSFS");

	return root && *root ? root : "/sys";
}

/* A malloc'ed "<a>/<b>", or NULL (reported) when out of memory. */
char *nvf_path(const char *a, const char *b)
{
	size_t len = strlen(a) + strlen(b) + 2;
	char *p = malloc(len);

	if (!p) {
		nvf_err("out of memory");
		return NULL;
	}
	snprintf(p, len, "%s/%s", a, b);
	return p;
}

/*
 * Parse the digits at *@s into *@val and advance *@s; false if there are
 * none, if there is a leading zero (the kernel never makes "nvfab01") or if
 * the number is too large for an int.
 */
bool nvf_parse_num(const char **s, int *val)
{
	long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return false;
	}
	*val = (int)v;
	*s = p;
	return true;
}

/*
 * @s as a non-negative decimal number, with optional blanks around it
 * (" 3\n" as sysfs pads counters); -1 if it is not one or above LLONG_MAX.
 */
long long nvf_parse_ll(const char *s)
{
	long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno)
		return -1;
	end += strspn(end, " \t\n");
	return *end ? -1 : v;
}

/* True if @name is "nvfabN"; *@instance gets N. */
bool nvf_ctrl_name_parse(const char *name, int *instance)
{
	if (strncmp(name, "nvfab", 5))
		return false;
	name += 5;
	return nvf_parse_num(&name, instance) && !*name;
}

/* True if @name is "nvfabXnY" (not a per-path "nvfabXcNnY"). */
bool nvf_ns_name_parse(const char *name, int *x, int *y)
{
	if (strncmp(name, "nvfab", 5))
		return false;
	name += 5;
	if (!nvf_parse_num(&name, x) || *name++ != 'n')
		return false;
	return nvf_parse_num(&name, y) && !*name;
}

bool nvf_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The value of attribute @attr of @dir, malloc'ed, without its trailing
 * newline; NULL if it is missing or unreadable.
 */
char *nvf_attr_read(const char *dir, const char *attr)
{
	char *path, *buf;
	ssize_t len;
	size_t total = 0;
	int fd;

	path = nvf_path(dir, attr);
	if (!path)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	buf = malloc(NVF_ATTR_MAX + 1);
	if (!buf)
		goto out_close;
	while (total < NVF_ATTR_MAX) {
		len = read(fd, buf + total, NVF_ATTR_MAX - total);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0) {
			free(buf);
			buf = NULL;
			goto out_close;
		}
		if (!len)
			break;
		total += len;
	}
	buf[total] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
out_close:
	close(fd);
	return buf;
}

/*
 * Attribute @attr of @dir without trailing blanks: Identify Controller
 * pads its ASCII strings (serial, model, firmware revision) with spaces.
 */
char *nvf_attr_read_trim(const char *dir, const char *attr)
{
	char *val = nvf_attr_read(dir, attr);
	size_t len;

	if (val) {
		len = strlen(val);
		while (len && (val[len - 1] == ' ' || val[len - 1] == '\t'))
			val[--len] = '\0';
	}
	return val;
}

/*
 * Attribute @attr of @dir as a non-negative decimal number (whitespace
 * around it allowed); -1 if it is missing, unreadable, not such a number
 * or above LLONG_MAX.
 */
long long nvf_attr_read_num(const char *dir, const char *attr)
{
	char *val = nvf_attr_read(dir, attr);
	long long v = -1;

	if (val) {
		v = nvf_parse_ll(val);
		free(val);
	}
	return v;
}

/*
 * Write @val to the existing attribute @attr of @dir (never creating it).
 * Return: 0, or a negative errno.
 */
int nvf_attr_write(const char *dir, const char *attr, const char *val)
{
	size_t len = strlen(val);
	ssize_t ret;
	char *path;
	int fd, err = 0;

	path = nvf_path(dir, attr);
	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, len);
	if (ret < 0)
		err = -errno;
	else if ((size_t)ret != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int nvf_ctrl_cmp(const void *a, const void *b)
{
	const struct nvf_ctrl *ca = a, *cb = b;

	return (ca->instance > cb->instance) - (ca->instance < cb->instance);
}

void nvf_ctrl_free(struct nvf_ctrl *ctrls, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(ctrls[i].path);
	free(ctrls);
}

static int nvf_ctrl_init(struct nvf_ctrl *ctrl, const char *classdir,
			 const char *name, int instance)
{
	ctrl->instance = instance;
	snprintf(ctrl->name, sizeof(ctrl->name), "nvfab%d", instance);
	ctrl->path = nvf_path(classdir, name);
	return ctrl->path ? 0 : -1;
}

/*
 * Is nvfab-core loaded: does <sysfs>/class/nvfab (or nvfab-subsystem)
 * exist? If not, say so, with why and what to do (modcheck.c), instead
 * of listing nothing as if no controller were connected. Return: 0, or -1 after reporting.
 */
int nvf_require_module(void)
{
	static const char * const classes[] = {
		"class/nvfab", "class/nvfab-subsystem",
	};
	bool found = false;
	char *dir, why[1536];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(classes) && !found; i++) {
		dir = nvf_path(nvf_sysfs_root(), classes[i]);
		found = dir && nvf_is_dir(dir);
		free(dir);
	}
	if (found)
		return 0;
	nvf_module_why(why, sizeof(why));
	nvf_err("module nvfab-core is not loaded (no %s/class/nvfab): %s",
		nvf_sysfs_root(), why);
	return -1;
}

/*
 * Every controller, sorted by instance. No class directory (nvfab-core not
 * loaded) means no controllers. Return: 0, or -1 after reporting an error.
 */
int nvf_ctrl_scan(struct nvf_ctrl **ctrls, size_t *nr)
{
	struct nvf_ctrl *list = NULL, *tmp;
	size_t n = 0, cap = 0;
	struct dirent *de;
	char *classdir;
	int instance, ret = -1;
	DIR *d;

	*ctrls = NULL;
	*nr = 0;
	classdir = nvf_path(nvf_sysfs_root(), "class/nvfab");
	if (!classdir)
		return -1;
	d = opendir(classdir);
	if (!d) {
		ret = errno == ENOENT ? 0 : -1;
		if (ret)
			nvf_err("cannot read %s: %s", classdir, strerror(errno));
		goto out_free_classdir;
	}
	while ((de = readdir(d))) {
		if (!nvf_ctrl_name_parse(de->d_name, &instance))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			tmp = realloc(list, cap * sizeof(*list));
			if (!tmp) {
				nvf_err("out of memory");
				goto out_free_list;
			}
			list = tmp;
		}
		if (nvf_ctrl_init(&list[n], classdir, de->d_name, instance))
			goto out_free_list;
		if (!nvf_is_dir(list[n].path)) {
			free(list[n].path);
			continue;
		}
		n++;
	}
	if (n)
		qsort(list, n, sizeof(*list), nvf_ctrl_cmp);
	*ctrls = list;
	*nr = n;
	list = NULL;
	n = 0;
	ret = 0;
out_free_list:
	nvf_ctrl_free(list, n);
	closedir(d);
out_free_classdir:
	free(classdir);
	return ret;
}

/*
 * Look up controller @name ("nvfabN" or "/dev/nvfabN").
 * Return: 0; -1 after reporting a bad name, a missing controller or no
 * memory. On success the caller frees ctrl->path.
 */
int nvf_ctrl_find(const char *name, struct nvf_ctrl *ctrl)
{
	char *classdir;
	int instance, ret;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (!nvf_ctrl_name_parse(name, &instance)) {
		nvf_err("invalid device name '%s' (expected nvfabN)", name);
		return -1;
	}
	classdir = nvf_path(nvf_sysfs_root(), "class/nvfab");
	if (!classdir)
		return -1;
	ret = nvf_ctrl_init(ctrl, classdir, name, instance);
	free(classdir);
	if (ret)
		return -1;
	if (!nvf_is_dir(ctrl->path)) {
		nvf_err("no such controller: %s", name);
		free(ctrl->path);
		ctrl->path = NULL;
		return -1;
	}
	return 0;
}

/* Does the "device" link of block device @bdev lead to @ctrl? */
static bool nvf_bdev_of_ctrl(const char *bdev, const struct nvf_ctrl *ctrl,
			     int x)
{
	char *dev, *link, *real_dev, *real_ctrl;
	bool mine = false;

	dev = nvf_path(bdev, "device");
	if (!dev)
		return false;
	real_dev = realpath(dev, NULL);
	if (!real_dev) {
		free(dev);
		return x == ctrl->instance;
	}
	real_ctrl = realpath(ctrl->path, NULL);
	if (real_ctrl && !strcmp(real_dev, real_ctrl)) {
		mine = true;
	} else {
		link = nvf_path(dev, ctrl->name);
		mine = link && nvf_is_dir(link);
		free(link);
	}
	free(real_ctrl);
	free(real_dev);
	free(dev);
	return mine;
}

static int nvf_ns_cmp(const void *a, const void *b)
{
	const struct nvf_ns *na = a, *nb = b;

	if (na->x != nb->x)
		return (na->x > nb->x) - (na->x < nb->x);
	return (na->y > nb->y) - (na->y < nb->y);
}

struct nvf_ns_list {
	struct nvf_ns		*ns;
	size_t			nr, cap;
	const struct nvf_ctrl	*ctrl;	/* set: only block devices reaching it */
};

/*
 * Add namespace nvfabXnY (@x, @y), directory @dir, to @list unless it is
 * there already or, with list->ctrl, its block device does not reach it.
 */
static int nvf_ns_add(const char *dir, int x, int y, void *list)
{
	struct nvf_ns_list *l = list;
	struct nvf_ns *tmp, *ns;
	size_t i;

	if (l->ctrl && !nvf_bdev_of_ctrl(dir, l->ctrl, x))
		return 0;
	for (i = 0; i < l->nr; i++) {
		if (l->ns[i].x == x && l->ns[i].y == y)
			return 0;
	}
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		tmp = realloc(l->ns, l->cap * sizeof(*tmp));
		if (!tmp) {
			nvf_err("out of memory");
			return -1;
		}
		l->ns = tmp;
	}
	ns = &l->ns[l->nr++];
	ns->x = x;
	ns->y = y;
	snprintf(ns->name, sizeof(ns->name), "nvfab%dn%d", x, y);
	ns->sectors = nvf_attr_read_num(dir, "size");
	ns->nsid = nvf_attr_read_num(dir, "nsid");
	ns->lba_size = nvf_attr_read_num(dir, "queue/logical_block_size");
	return 0;
}

/*
 * Call @fn with @arg for each namespace nvfabXnY, a directory, in @dir
 * (its path, X and Y) until it fails; no @dir has none. Return: 0, or -1
 * after reporting an error (@fn's or no memory).
 */
int nvf_ns_dirs(const char *dir,
		int (*fn)(const char *nsdir, int x, int y, void *arg),
		void *arg)
{
	struct dirent *de;
	char *nsdir;
	int x, y, ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (!nvf_ns_name_parse(de->d_name, &x, &y))
			continue;
		nsdir = nvf_path(dir, de->d_name);
		if (!nsdir) {
			ret = -1;
			break;
		}
		if (nvf_is_dir(nsdir))
			ret = fn(nsdir, x, y, arg);
		free(nsdir);
	}
	closedir(d);
	return ret;
}

/*
 * The namespaces of @ctrl, sorted by name. Return: 0 (the caller frees
 * *@ns), or -1 after reporting an error.
 */
int nvf_ctrl_namespaces(const struct nvf_ctrl *ctrl, struct nvf_ns **ns,
			size_t *nr)
{
	struct nvf_ns_list l = { 0 };
	char *blockdir;
	int ret;

	ret = nvf_ns_dirs(ctrl->path, nvf_ns_add, &l);
	if (!ret) {
		blockdir = nvf_path(nvf_sysfs_root(), "block");
		l.ctrl = ctrl;
		ret = blockdir ? nvf_ns_dirs(blockdir, nvf_ns_add, &l) : -1;
		free(blockdir);
	}
	if (ret) {
		free(l.ns);
		return -1;
	}
	if (l.nr)
		qsort(l.ns, l.nr, sizeof(*l.ns), nvf_ns_cmp);
	*ns = l.ns;
	*nr = l.nr;
	return 0;
}
