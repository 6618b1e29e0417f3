/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl: user-space control tool for the nvfab NVMe over Fabrics host.
 * Declarations shared by the verbs (connect.c, disconnect.c, list.c,
 * list-subsys.c, topology.c, host.c) and the helpers they use (main.c,
 * output.c, sysfs.c, subsys.c, namespace.c, json.c).
 */
#ifndef NVFABCTL_H
#define NVFABCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NVF_EXIT_OK		0
#define NVF_EXIT_FAIL		1
/* status: a namespace has no live optimized path (monitoring alerts) */
#define NVF_EXIT_DEGRADED	2
/*
 * An nvme-cli option for a feature nvfab does not have yet (inserting a
 * TLS PSK, secure channel concatenation): EOPNOTSUPP's value, so that
 * scripts can tell "not yet" from "wrong".
 */
#define NVF_EXIT_UNSUPPORTED	95

/* Long-only options get codes above any character. */
enum {
	NVF_OPT_DRY_RUN = 256,
	NVF_OPT_TLS,
	NVF_OPT_TLS_KEY,
	NVF_OPT_TLS_KEY_IDENTITY,
	NVF_OPT_TLS_KEY_LEGACY,
	NVF_OPT_KEYRING,
	NVF_OPT_CONCAT,
};

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

/* keyfile.c: DH-HMAC-CHAP secrets kept in root-owned 0600 files */
char *nvf_key_file_read(const char *name, const char *path);
void nvf_key_free(char *secret);

/*
 * keyring.c: the key serials of NVMe/TCP TLS (--tls-key, --keyring), and
 * keyrings by name from /proc/keys ($NVFAB_PROC_KEYS instead, for tests)
 */
int nvf_parse_serial(const char *name, const char *s, int *val);
int nvf_parse_keyring(const char *name, const char *s, int *val);

/*
 * opts.c: the kernel's connect-option grammar (include/uapi/nvfab/
 * fabrics-opts.h) and the transports' address rules, checked before connecting.
 * @name is the command-line option reported ("queue-size"), @key the
 * option string's key ("queue_size"). Each returns 0, or -1 after
 * reporting.
 */
bool nvf_opt_known(const char *key, bool *takes_value);
int nvf_opt_int(const char *name, const char *key, const char *s, int *val);
int nvf_opt_str(const char *name, const char *key, const char *s);
bool nvf_transport_ours(const char *t);
int nvf_opt_transport(const char *t);
/* *@resolved: the address of host name @s (malloc'ed), or NULL */
int nvf_opt_addr(const char *name, const char *transport, const char *s,
		 char **resolved);
int nvf_opt_port(const char *name, const char *transport, const char *s);

/*
 * kmsg.c: what nvfab's modules logged about a refused request. mark before
 * it (-1 if the log cannot be read); since returns the messages joined
 * with "; " (malloc'ed) or NULL, and closes @fd.
 */
int nvf_kmsg_mark(void);
char *nvf_kmsg_since(int fd, const char *opts);

/*
 * waitnote.c: while a connect's write blocks, say every few seconds which
 * target it waits for. start never fails the connect (NULL: no note).
 */
struct nvf_waitnote;
struct nvf_waitnote *nvf_waitnote_start(const char *opts);
void nvf_target_what(const char *opts, char *buf, size_t size);
void nvf_opt_value(const char *opts, const char *key, char *buf, size_t size);

/*
 * coexist.c: warn when the in-kernel NVMe host has the subsystem of
 * option string @opts connected too (its namespaces would show up twice),
 * and when nvme-cli's autoconnect at boot reads discovery.conf @path too.
 */
void nvf_warn_kernel_host(const char *opts);
void nvf_warn_autoconnect(const char *path);
void nvf_waitnote_stop(struct nvf_waitnote *w);

/* notify.c: sd_notify(3)'s protocol, for nvfab-boot.service */
bool nvf_notify_enabled(void);
void nvf_notify(const char *msg);

/* modcheck.c: why nvfab's modules are not loaded, in one sentence */
void nvf_module_why(char *buf, size_t size);

/* The verbs: each returns the process exit status. */
int nvf_connect(int argc, char **argv);
int nvf_status(int argc, char **argv);
void nvf_status_usage(FILE *f);
void nvf_connect_usage(FILE *f);
int nvf_disconnect(int argc, char **argv);
void nvf_disconnect_usage(FILE *f);
int nvf_disconnect_all(int argc, char **argv);
void nvf_disconnect_all_usage(FILE *f);
int nvf_list(int argc, char **argv);
void nvf_list_usage(FILE *f);
int nvf_list_subsys(int argc, char **argv);
void nvf_list_subsys_usage(FILE *f);
int nvf_show_topology(int argc, char **argv);
void nvf_show_topology_usage(FILE *f);
int nvf_gen_hostnqn(int argc, char **argv);
void nvf_gen_hostnqn_usage(FILE *f);
int nvf_show_hostnqn(int argc, char **argv);
void nvf_show_hostnqn_usage(FILE *f);
int nvf_gen_hostid(int argc, char **argv);
void nvf_gen_hostid_usage(FILE *f);
int nvf_show_hostid(int argc, char **argv);
void nvf_show_hostid_usage(FILE *f);

/*
 * host.c: the host identity files of nvme-cli, /etc/nvme/hostnqn and
 * /etc/nvme/hostid ($NVFAB_ETC_NVME instead of /etc/nvme).
 */
#define NVF_UUID_LEN		36
#define NVF_HOSTNQN_PREFIX	"nqn.2014-08.org.nvmexpress:uuid:"

const char *nvf_etc_dir(void);
char *nvf_etc_read(const char *file);
bool nvf_uuid_valid(const char *s);
void nvf_warn_no_host_identity(void);
/*
 * The host identity a connect uses, each malloc'ed into *@nqn and *@id:
 * --hostnqn/--hostid (@nqn_arg, @id_arg, or NULL), else the files; the host
 * ID of a uuid host NQN is its UUID; a host NQN from the file without a
 * host ID gets one derived and stored (unless nvf_host_no_store() was
 * called: --dry-run, config check). Both NULL: no identity. Return: 0, or
 * -1 after reporting.
 */
int nvf_host_ids(const char *nqn_arg, const char *id_arg, char **nqn,
		 char **id);
void nvf_host_no_store(void);

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
	long long	nsid;		/* -1 if unknown */
	long long	lba_size;	/* logical block size, bytes; -1 */
};

const char *nvf_sysfs_root(void);
int nvf_require_module(void);
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
char *nvf_attr_read_trim(const char *dir, const char *attr);
long long nvf_attr_read_num(const char *dir, const char *attr);
int nvf_attr_write(const char *dir, const char *attr, const char *val);
int nvf_ctrl_namespaces(const struct nvf_ctrl *ctrl, struct nvf_ns **ns,
			size_t *nr);
int nvf_ns_dirs(const char *dir,
		int (*fn)(const char *nsdir, int x, int y, void *arg),
		void *arg);

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
	char	*cntlid;
	char	*hostnqn;
	char	*hostid;
	char	*model;
	char	*serial;
	char	*firmware_rev;
	int	host;		/* index set by nvf_hosts_collect() */
	/* diag/ counters; -1 when missing (an older module) or unreadable */
	long long reset_count;
	long long reconnect_count;
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
	/* diag/ counters; -1 when missing (an older module) or unreadable */
	long long	failover_count;	/* multipath_failover_count */
	long long	retry_count;	/* command_retry_count */
	long long	error_count;	/* command_error_count */
};

struct nvf_head {
	int		n;		/* N of nvfabSnN */
	char		name[32];
	long long	nsid;
	long long	sectors;	/* 512-byte sectors */
	long long	lba_size;	/* logical block size, bytes */
	long long	requeue_no_path; /* diag/io_requeue_no_usable_path_count */
	long long	fail_no_path;	/* diag/io_fail_no_available_path_count */
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
void nvf_subsys_sanitize(struct nvf_subsys *sub);
int nvf_dev_name(const char *arg, char *buf, size_t size);
size_t nvf_subsys_select(struct nvf_subsys *subs, size_t nr,
			 const char *name);
int nvf_subsys_load(const char *device, char *name, size_t size,
		    struct nvf_subsys **subs, size_t *nr, size_t *shown);
const struct nvf_head *nvf_subsys_find_head(const struct nvf_subsys *sub,
					    const char *name);
const struct nvf_subsys_ctrl *
nvf_subsys_find_ctrl(const struct nvf_subsys *sub, int instance);

/*
 * A host as nvme-cli groups them: one (host NQN, host ID) pair, read from
 * the controllers' hostnqn and hostid attributes (NULL when missing).
 */
struct nvf_host {
	const char	*hostnqn;	/* borrowed from a controller */
	const char	*hostid;
};

int nvf_hosts_collect(struct nvf_subsys *subs, size_t nr,
		      struct nvf_host **hosts, size_t *nr_hosts);
bool nvf_subsys_has_host(const struct nvf_subsys *sub, int host);
int nvf_path_host(const struct nvf_subsys *sub, const struct nvf_path *p);
bool nvf_head_has_host(const struct nvf_subsys *sub,
		       const struct nvf_head *head, int host);

/*
 * namespace.c: the size of a namespace as nvme-cli reports it, from
 * Identify Namespace through the block device's ioctl, else from sysfs.
 */
struct nvf_geom {
	long long	nsze;		/* namespace size, LBAs; -1 unknown */
	long long	nuse;		/* namespace utilization, LBAs; -1 */
	long long	lba_size;	/* bytes; -1 unknown */
};

void nvf_ns_geometry(const char *name, long long nsid, long long sectors,
		     long long lba_size, struct nvf_geom *g);

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
void nvf_json_num(struct nvf_json *j, const char *key, long long val);
void nvf_json_bool(struct nvf_json *j, const char *key, bool val);
void nvf_json_fixed(struct nvf_json *j, const char *key, double val,
		    int decimals);

void nvf_json_geometry(struct nvf_json *j, const struct nvf_geom *g);

/*
 * output.c: what list, list-subsys and show-topology share. Their output
 * options: a verb with options of its own lists them in shortopts and
 * longopts (with those of nvf_output_longopts) and parses them in option().
 */
struct nvf_output_opts {
	enum nvf_format	fmt;
	bool		verbose;
	const char	*device;	/* the DEVICE operand, or NULL */
};

struct nvf_output_cmd {
	const char		*shortopts;	/* ":o:vh" and the verb's own */
	const struct option	*longopts;
	void			(*usage)(FILE *f);
	bool			device;		/* takes an optional DEVICE */
	/* option @c of the verb's own, its value @val: 0, or -1 (reported) */
	int			(*option)(int c, const char *val, void *arg);
};

extern const struct option nvf_output_longopts[];
int nvf_output_opts(int argc, char **argv, const struct nvf_output_cmd *cmd,
		    struct nvf_output_opts *o, void *arg);

const char *nvf_or_dash(const char *s);
const char *nvf_num_or_dash(long long v, char *buf, size_t size);
void nvf_print_path_ios(const struct nvf_path *p);
void nvf_print_path_load(const struct nvf_path *p);

/* How nvf_json_hosts() writes subsystem @sub, one of host @host's. */
struct nvf_subsys_writer {
	void		(*write)(struct nvf_json *j,
				 const struct nvf_subsys *sub, int host,
				 const void *arg);
	const void	*arg;
};

void nvf_json_hosts(struct nvf_json *j, const char *key,
		    const struct nvf_subsys *subs, size_t nr,
		    const struct nvf_host *hosts, size_t nr_hosts,
		    const struct nvf_subsys_writer *w);

/* list-subsys.c: a subsystem's own members, for show-topology too */
void nvf_json_subsys_attrs(struct nvf_json *j, const struct nvf_subsys *sub);

/* topology.c: the namespaces of a subsystem in nvme-cli's topology shape */
void nvf_json_topo_namespaces(struct nvf_json *j, const char *key,
			      const struct nvf_subsys *sub, int host);

#endif /* NVFABCTL_H */
