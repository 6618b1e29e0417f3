/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl: user-space control tool for the nvfab NVMe over Fabrics host.
 * Declarations shared by the verbs (connect.c, disconnect.c, list.c,
 * list-subsys.c) and the helpers they use (main.c, sysfs.c, subsys.c,
 * json.c).
 */
#ifndef NVFABCTL_H
#define NVFABCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NVF_EXIT_OK	0
#define NVF_EXIT_FAIL	1

/* Long-only options get codes above any character. */
#define NVF_OPT_DRY_RUN	256

enum nvf_format {
	NVF_FMT_NORMAL,
	NVF_FMT_JSON,
};

/* main.c: option parsing, the verb being run */
extern const char *nvf_verb;

/*
 * One line on stderr: "nvfabctl: <verb>: <message>". Macros, so that the
 * compiler checks each format string against its arguments.
 */
#define nvf_err(fmt, ...) \
	fprintf(stderr, "nvfabctl: %s: " fmt "\n", nvf_verb, ##__VA_ARGS__)
#define nvf_warn(fmt, ...) \
	fprintf(stderr, "nvfabctl: %s: warning: " fmt "\n", nvf_verb, \
		##__VA_ARGS__)
int nvf_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts);
int nvf_no_operands(int argc, char **argv);
int nvf_parse_int(const char *name, const char *s, int *val);
int nvf_parse_format(const char *s, enum nvf_format *fmt);
void nvf_sanitize(char *s);

/* The verbs: each returns the process exit status. */
int nvf_connect(int argc, char **argv);
void nvf_connect_usage(FILE *f);
int nvf_disconnect(int argc, char **argv);
void nvf_disconnect_usage(FILE *f);
int nvf_disconnect_all(int argc, char **argv);
void nvf_disconnect_all_usage(FILE *f);
int nvf_list(int argc, char **argv);
void nvf_list_usage(FILE *f);
int nvf_list_subsys(int argc, char **argv);
void nvf_list_subsys_usage(FILE *f);

/* sysfs.c: controllers under <root>/class/nvfab, namespaces, attributes */
struct nvf_ctrl {
	int	instance;	/* N of nvfabN */
	char	name[32];	/* "nvfabN" */
	char	*path;		/* <root>/class/nvfab/nvfabN */
};

struct nvf_ns {
	int		x, y;		/* nvfabXnY */
	char		name[32];
	long long	sectors;	/* 512-byte sectors, -1 if unknown */
};

const char *nvf_sysfs_root(void);
char *nvf_path(const char *a, const char *b);
bool nvf_is_dir(const char *path);
bool nvf_parse_num(const char **s, int *val);
long long nvf_parse_ll(const char *s);
bool nvf_ctrl_name_parse(const char *name, int *instance);
bool nvf_ns_name_parse(const char *name, int *x, int *y);
int nvf_ctrl_scan(struct nvf_ctrl **ctrls, size_t *nr);
int nvf_ctrl_find(const char *name, struct nvf_ctrl *ctrl);
void nvf_ctrl_free(struct nvf_ctrl *ctrls, size_t nr);
char *nvf_attr_read(const char *dir, const char *attr);
long long nvf_attr_read_num(const char *dir, const char *attr);
int nvf_attr_write(const char *dir, const char *attr, const char *val);
int nvf_ctrl_namespaces(const struct nvf_ctrl *ctrl, struct nvf_ns **ns,
			size_t *nr);

/*
 * subsys.c: NVM subsystems under <root>/class/nvfab-subsystem, with their
 * controllers, namespace heads and per-path block devices. A string is
 * NULL and a number -1 when its attribute is missing or unreadable.
 */
struct nvf_subsys_ctrl {
	int	instance;	/* C of nvfabC */
	char	name[32];
	char	*transport;
	char	*address;
	char	*state;
};

struct nvf_path {
	int		ctrl;		/* C of nvfabScCnN */
	char		name[48];	/* "nvfabScCnN" */
	char		ctrl_name[32];	/* "nvfabC" */
	char		*ana_state;
	long long	ana_grpid;
	long long	routed_ios;	/* I/Os the multipath layer sent here */
	long long	inflight[2];	/* reads, writes in flight */
	char		*ps_status;	/* the path selector's line */
	double		share;		/* % of the head's routed_ios, or -1 */
};

struct nvf_head {
	int		n;		/* N of nvfabSnN */
	char		name[32];
	long long	nsid;
	struct nvf_path	*paths;		/* sorted by controller */
	size_t		nr_paths;
};

struct nvf_subsys {
	int			instance;	/* S of nvfab-subsysS */
	char			name[32];
	char			*nqn;
	char			*iopolicy;
	char			*model;
	char			*serial;
	char			*firmware_rev;
	struct nvf_subsys_ctrl	*ctrls;		/* sorted by instance */
	size_t			nr_ctrls;
	struct nvf_head		*heads;		/* sorted by N */
	size_t			nr_heads;
};

bool nvf_subsys_name_parse(const char *name, int *instance);
bool nvf_path_name_parse(const char *name, int *s, int *c, int *n);
int nvf_subsys_scan(struct nvf_subsys **subs, size_t *nr);
void nvf_subsys_free(struct nvf_subsys *subs, size_t nr);

/* json.c: a small streaming JSON writer with two-space indentation */
#define NVF_JSON_MAX_DEPTH	16

struct nvf_json {
	FILE	*f;
	int	depth;
	bool	empty[NVF_JSON_MAX_DEPTH];
};

void nvf_json_init(struct nvf_json *j, FILE *f);
void nvf_json_begin(struct nvf_json *j, const char *key, char open);
void nvf_json_end(struct nvf_json *j, char close);
void nvf_json_str(struct nvf_json *j, const char *key, const char *val);
void nvf_json_int(struct nvf_json *j, const char *key, long long val);
void nvf_json_fixed(struct nvf_json *j, const char *key, double val,
		    int decimals);

#endif /* NVFABCTL_H */
