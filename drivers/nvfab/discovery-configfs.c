// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/config/nvfab/discovery/: the persistent discovery
 * controllers nvfab follows.
 *
 *   discovery/
 *     <name>/			mkdir creates a disabled entry
 *       transport traddr trsvcid host_traddr host_iface hostnqn hostid
 *       nqn kato connect_opts	how to reach it; -EBUSY while enabled
 *       connect match disconnect poll_interval max_inflight
 *				policy; may change while enabled
 *       enable			1 starts following it, 0 stops
 *       state ctrl stats	(RO) what it does
 *       log			(RO, binary) the log entries and their fate
 *
 * rmdir stops the entry first. The I/O controllers it created stay: a
 * configuration change does not cut I/O. Documented in
 * Documentation/ABI/testing/configfs-nvfab and
 * Documentation/admin-guide/nvfab-discovery.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": configfs: " fmt

#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "configfs.h"
#include "discovery-priv.h"

/**
 * struct nvfab_disc_item - one /sys/kernel/config/nvfab/discovery/<name>/
 * @group: the configfs directory
 * @lock: protects @cfg, @disc and @dropped; outside every disc lock
 * @cfg: the settings, copied into the root disc when enabled
 * @policy: the live policy, shared with every disc of the entry
 * @disc: the root disc while enabled, else NULL
 * @dropped: rmdir happened: no enabling any more
 */
struct nvfab_disc_item {
	struct config_group		group;
	struct mutex			lock;	/* see above */
	struct nvfab_disc_cfg		cfg;
	struct nvfab_disc_policy	policy;
	struct nvfab_disc		*disc;
	bool				dropped;
};

static struct nvfab_disc_item *to_disc_item(struct config_item *item)
{
	return container_of(to_config_group(item), struct nvfab_disc_item,
			    group);
}

/* The value of a write without its trailing newline, in @buf. */
static int nvfab_disc_str(const char *page, size_t count, char *buf,
			  size_t size, const char *what)
{
	size_t len = count;

	if (len && page[len - 1] == '\n')
		len--;
	if (len >= size) {
		pr_err("%s: longer than %zu bytes\n", what, size - 1);
		return -EINVAL;
	}
	memcpy(buf, page, len);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		pr_err("%s: contains a NUL byte\n", what);
		return -EINVAL;
	}
	for (; *buf; buf++) {
		if (!isgraph(*buf)) {
			pr_err("%s: only printable characters without spaces\n",
			       what);
			return -EINVAL;
		}
	}
	return 0;
}

static bool nvfab_disc_ip_valid(const char *s)
{
	u8 a[16];

	return in4_pton(s, -1, a, -1, NULL) || in6_pton(s, -1, a, -1, NULL);
}

static int nvfab_disc_check_nqn(const char *s, const char *what)
{
	if (strncmp(s, "nqn.", 4) || !s[4]) {
		pr_err("%s: '%s' is not an NQN (nqn.<...>)\n", what, s);
		return -EINVAL;
	}
	return 0;
}

/* Connect options that an entry may hand to its I/O controllers. */
#define NVFAB_DISC_IO_OPTS						\
	(NVFAB_OPT_QUEUE_SIZE | NVFAB_OPT_NR_IO_QUEUES |		\
	 NVFAB_OPT_NR_WRITE_QUEUES | NVFAB_OPT_NR_POLL_QUEUES |		\
	 NVFAB_OPT_RECONNECT_DELAY | NVFAB_OPT_CTRL_LOSS_TMO |		\
	 NVFAB_OPT_FAIL_FAST_TMO | NVFAB_OPT_KATO | NVFAB_OPT_TOS |	\
	 NVFAB_OPT_HDR_DIGEST | NVFAB_OPT_DATA_DIGEST |			\
	 NVFAB_OPT_DISABLE_SQFLOW)

static int nvfab_disc_check_io_opts(const char *s)
{
	struct nvfab_ctrl_options *opts;
	int ret;

	if (!*s)
		return 0;
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (!opts)
		return -ENOMEM;
	ret = nvfab_parse_options(opts, s);	/* it says what is wrong */
	if (!ret && (opts->mask & ~NVFAB_DISC_IO_OPTS)) {
		pr_err("connect_opts: only queue_size, nr_io_queues, nr_write_queues, nr_poll_queues, reconnect_delay, ctrl_loss_tmo, fast_io_fail_tmo, keep_alive_tmo, tos, hdr_digest, data_digest and disable_sqflow; the entry sets the rest\n");
		ret = -EINVAL;
	}
	nvfab_free_options(opts);	/* frees @opts too */
	return ret;
}

/* Check one setting's new value. @field is a copy of it, written. */
static int nvfab_disc_check_cfg(const char *name, char *val)
{
	unsigned int port;
	uuid_t id;

	if (!strcmp(name, "transport")) {
		if (strcmp(val, "tcp") && strcmp(val, "rdma")) {
			pr_err("transport: 'tcp' or 'rdma', not '%s'\n", val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "traddr") || !strcmp(name, "host_traddr")) {
		if ((*val || !strcmp(name, "traddr")) &&
		    !nvfab_disc_ip_valid(val)) {
			pr_err("%s: '%s' is not an IPv4 or IPv6 address\n",
			       name, val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "trsvcid")) {
		if (kstrtouint(val, 10, &port) || !port || port > 65535) {
			pr_err("trsvcid: a port 1..65535, not '%s'\n", val);
			return -EINVAL;
		}
		snprintf(val, NVFAB_TRSVCID_SIZE, "%u", port);
	} else if (!strcmp(name, "host_iface")) {
		if (*val && (strlen(val) >= IFNAMSIZ || strchr(val, '/') ||
			     strchr(val, ':'))) {
			pr_err("host_iface: '%s' is not an interface name\n",
			       val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "hostnqn")) {
		if (*val)
			return nvfab_disc_check_nqn(val, name);
	} else if (!strcmp(name, "nqn")) {
		return nvfab_disc_check_nqn(val, name);
	} else if (!strcmp(name, "hostid")) {
		if (*val && uuid_parse(val, &id)) {
			pr_err("hostid: '%s' is not a UUID\n", val);
			return -EINVAL;
		}
	}
	return 0;
}

/* The string settings, stored while disabled. */
#define NVFAB_DISC_STR_ATTR(NAME)					\
static ssize_t nvfab_disc_##NAME##_show(struct config_item *item,	\
					char *page)			\
{									\
	struct nvfab_disc_item *it = to_disc_item(item);		\
	ssize_t len;							\
									\
	mutex_lock(&it->lock);						\
	len = sysfs_emit(page, "%s\n", it->cfg.NAME);			\
	mutex_unlock(&it->lock);					\
	return len;							\
}									\
									\
static ssize_t nvfab_disc_##NAME##_store(struct config_item *item,	\
					 const char *page, size_t count) \
{									\
	struct nvfab_disc_item *it = to_disc_item(item);		\
	char val[sizeof(it->cfg.NAME)];					\
	int ret;							\
									\
	ret = nvfab_disc_str(page, count, val, sizeof(val), #NAME);	\
	if (!ret)							\
		ret = nvfab_disc_check_cfg(#NAME, val);			\
	if (ret)							\
		return ret;						\
	mutex_lock(&it->lock);						\
	if (it->disc) {							\
		pr_err("%s: " #NAME ": write enable=0 first\n",		\
		       config_item_name(item));				\
		ret = -EBUSY;						\
	} else {							\
		strscpy(it->cfg.NAME, val, sizeof(it->cfg.NAME));	\
	}								\
	mutex_unlock(&it->lock);					\
	return ret ? ret : count;					\
}									\
CONFIGFS_ATTR(nvfab_disc_, NAME)

NVFAB_DISC_STR_ATTR(transport);
NVFAB_DISC_STR_ATTR(traddr);
NVFAB_DISC_STR_ATTR(trsvcid);
NVFAB_DISC_STR_ATTR(host_traddr);
NVFAB_DISC_STR_ATTR(host_iface);
NVFAB_DISC_STR_ATTR(hostnqn);
NVFAB_DISC_STR_ATTR(hostid);
NVFAB_DISC_STR_ATTR(nqn);

static ssize_t nvfab_disc_kato_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	return sysfs_emit(page, "%u\n", READ_ONCE(it->cfg.kato));
}

static ssize_t nvfab_disc_kato_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	unsigned int kato;
	int ret;

	if (kstrtouint(page, 10, &kato) || kato > NVFAB_MAX_KATO) {
		pr_err("kato: seconds 0..%u\n", NVFAB_MAX_KATO);
		return -EINVAL;
	}
	mutex_lock(&it->lock);
	ret = it->disc ? -EBUSY : 0;
	if (!ret)
		WRITE_ONCE(it->cfg.kato, kato);
	mutex_unlock(&it->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(nvfab_disc_, kato);

static ssize_t nvfab_disc_connect_opts_show(struct config_item *item,
					    char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = sysfs_emit(page, "%s\n", it->cfg.connect_opts);
	mutex_unlock(&it->lock);
	return len;
}

static ssize_t nvfab_disc_connect_opts_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	char *val;
	int ret;

	val = kmalloc(NVFAB_DISC_OPTS_MAX + 1, GFP_KERNEL);
	if (!val)
		return -ENOMEM;
	ret = nvfab_disc_str(page, count, val, NVFAB_DISC_OPTS_MAX + 1,
			     "connect_opts");
	if (!ret)
		ret = nvfab_disc_check_io_opts(val);
	if (!ret) {
		mutex_lock(&it->lock);
		if (it->disc)
			ret = -EBUSY;
		else
			strscpy(it->cfg.connect_opts, val,
				sizeof(it->cfg.connect_opts));
		mutex_unlock(&it->lock);
	}
	kfree(val);
	return ret ? ret : count;
}
CONFIGFS_ATTR(nvfab_disc_, connect_opts);

static const char * const nvfab_disc_connect_names[] = {
	[NVFAB_DISC_CONNECT_ALL]	= "all",
	[NVFAB_DISC_CONNECT_NONE]	= "none",
	[NVFAB_DISC_CONNECT_MATCH]	= "match",
};

static const char * const nvfab_disc_disconnect_names[] = {
	[NVFAB_DISC_DISCONNECT_NONE]	= "none",
	[NVFAB_DISC_DISCONNECT_OURS]	= "ours",
};

static ssize_t nvfab_disc_connect_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	return sysfs_emit(page, "%s\n", nvfab_disc_connect_names[
			  READ_ONCE(it->policy.connect)]);
}

/* A policy change applies at the next log read, which it asks for. */
static void nvfab_disc_policy_changed(struct nvfab_disc_item *it)
{
	mutex_lock(&it->lock);
	if (it->disc)
		mod_delayed_work(nvfab_disc_wq, &it->disc->log_work, 0);
	mutex_unlock(&it->lock);
}

static ssize_t nvfab_disc_connect_store(struct config_item *item,
					const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	int i = sysfs_match_string(nvfab_disc_connect_names, page);

	if (i < 0) {
		pr_err("connect: all, none or match\n");
		return -EINVAL;
	}
	WRITE_ONCE(it->policy.connect, i);
	nvfab_disc_policy_changed(it);
	return count;
}
CONFIGFS_ATTR(nvfab_disc_, connect);

static ssize_t nvfab_disc_disconnect_show(struct config_item *item,
					  char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	return sysfs_emit(page, "%s\n", nvfab_disc_disconnect_names[
			  READ_ONCE(it->policy.disconnect)]);
}

static ssize_t nvfab_disc_disconnect_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	int i = sysfs_match_string(nvfab_disc_disconnect_names, page);

	if (i < 0) {
		pr_err("disconnect: none or ours\n");
		return -EINVAL;
	}
	WRITE_ONCE(it->policy.disconnect, i);
	return count;
}
CONFIGFS_ATTR(nvfab_disc_, disconnect);

static ssize_t nvfab_disc_match_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	const struct nvfab_disc_match *m;
	ssize_t len = 0;
	const char *p;
	unsigned int i;

	rcu_read_lock();
	m = rcu_dereference(it->policy.match);
	for (i = 0, p = m ? m->text : NULL; m && i < m->nr;
	     i++, p += strlen(p) + 1)
		len += sysfs_emit_at(page, len, "%s\n", p);
	rcu_read_unlock();
	return len;
}

/* Split a match list on spaces, commas and newlines, each an NQN glob. */
static struct nvfab_disc_match *nvfab_disc_parse_match(const char *page,
						       size_t count)
{
	struct nvfab_disc_match *m;
	char *copy, *s, *tok;
	size_t len;

	if (count > NVFAB_DISC_MATCH_MAX) {
		pr_err("match: longer than %d bytes\n", NVFAB_DISC_MATCH_MAX);
		return ERR_PTR(-EINVAL);
	}
	copy = kmemdup_nul(page, count, GFP_KERNEL);
	m = kzalloc(struct_size(m, text, count + 1), GFP_KERNEL);
	if (!copy || !m) {
		kfree(copy);
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	s = copy;
	while ((tok = strsep(&s, " ,\t\n")) != NULL) {
		if (!*tok)
			continue;
		len = strlen(tok);
		if (len >= NVFAB_NQN_SIZE || strncmp(tok, "nqn.", 4)) {
			pr_err("match: '%s' is not an NQN pattern (nqn.<...>, globs allowed)\n",
			       tok);
			kfree(copy);
			kfree(m);
			return ERR_PTR(-EINVAL);
		}
		memcpy(m->text + m->len, tok, len + 1);
		m->len += len + 1;
		m->nr++;
	}
	kfree(copy);
	return m;
}

static ssize_t nvfab_disc_match_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	struct nvfab_disc_match *m, *old;

	m = nvfab_disc_parse_match(page, count);
	if (IS_ERR(m))
		return PTR_ERR(m);
	mutex_lock(&it->lock);
	old = rcu_replace_pointer(it->policy.match, m,
				  lockdep_is_held(&it->lock));
	mutex_unlock(&it->lock);
	if (old)
		kfree_rcu(old, rcu);
	nvfab_disc_policy_changed(it);
	return count;
}
CONFIGFS_ATTR(nvfab_disc_, match);

static ssize_t nvfab_disc_poll_interval_show(struct config_item *item,
					     char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	return sysfs_emit(page, "%u\n", READ_ONCE(it->policy.poll_interval));
}

static ssize_t nvfab_disc_poll_interval_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	unsigned int v;

	if (kstrtouint(page, 10, &v) || v > NVFAB_DISC_POLL_MAX) {
		pr_err("poll_interval: seconds 0..%u (0: no polling)\n",
		       NVFAB_DISC_POLL_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(it->policy.poll_interval, v);
	nvfab_disc_policy_changed(it);
	return count;
}
CONFIGFS_ATTR(nvfab_disc_, poll_interval);

static ssize_t nvfab_disc_max_inflight_show(struct config_item *item,
					    char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	return sysfs_emit(page, "%u\n", READ_ONCE(it->policy.max_inflight));
}

static ssize_t nvfab_disc_max_inflight_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	unsigned int v;

	if (kstrtouint(page, 10, &v) || !v || v > NVFAB_DISC_INFLIGHT_MAX) {
		pr_err("max_inflight: 1..%u\n", NVFAB_DISC_INFLIGHT_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(it->policy.max_inflight, v);
	nvfab_disc_kick_all();
	return count;
}
CONFIGFS_ATTR(nvfab_disc_, max_inflight);

static ssize_t nvfab_disc_enable_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	bool on;

	mutex_lock(&it->lock);
	on = it->disc;
	mutex_unlock(&it->lock);
	return sysfs_emit(page, "%d\n", on);
}

static int nvfab_disc_enable(struct nvfab_disc_item *it)
{
	const char *name = config_item_name(&it->group.cg_item);
	struct nvfab_disc_cfg *cfg = &it->cfg;

	if (it->dropped)
		return -ENODEV;
	if (it->disc)
		return 0;
	if (!*cfg->transport || !*cfg->traddr) {
		pr_err("%s: set transport and traddr before enable\n", name);
		return -EINVAL;
	}
	if (!*cfg->trsvcid)	/* the IANA ports, as nvme-cli uses */
		strscpy(cfg->trsvcid, strcmp(cfg->transport, "tcp") ?
			"4420" : "8009", sizeof(cfg->trsvcid));
	it->disc = nvfab_disc_alloc(name, cfg, &it->policy, NULL);
	if (!it->disc)
		return -ENOMEM;
	nvfab_disc_start(it->disc);
	return 0;
}

/* it->lock held: stop and free the root; the wait may be long. */
static void nvfab_disc_disable(struct nvfab_disc_item *it)
{
	struct nvfab_disc *disc = it->disc;

	if (!disc)
		return;
	nvfab_disc_stop(disc, false);
	it->disc = NULL;
	nvfab_disc_put(disc);
}

static ssize_t nvfab_disc_enable_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	bool on;
	int ret = 0;

	if (kstrtobool(page, &on)) {
		pr_err("enable: 0 or 1\n");
		return -EINVAL;
	}
	mutex_lock(&it->lock);
	if (on)
		ret = nvfab_disc_enable(it);
	else
		nvfab_disc_disable(it);
	mutex_unlock(&it->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(nvfab_disc_, enable);

static ssize_t nvfab_disc_state_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = sysfs_emit(page, "%s\n", nvfab_disc_state_text(it->disc));
	mutex_unlock(&it->lock);
	return len;
}
CONFIGFS_ATTR_RO(nvfab_disc_, state);

static ssize_t nvfab_disc_ctrl_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	if (it->disc) {
		mutex_lock(&it->disc->lock);
		len = sysfs_emit(page, "%s\n", it->disc->ctrl ?
				 dev_name(it->disc->ctrl->device) : "");
		mutex_unlock(&it->disc->lock);
	} else {
		len = sysfs_emit(page, "\n");
	}
	mutex_unlock(&it->lock);
	return len;
}
CONFIGFS_ATTR_RO(nvfab_disc_, ctrl);

static ssize_t nvfab_disc_stats_show(struct config_item *item, char *page)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	struct nvfab_disc_stats sum = { };
	unsigned int inflight = 0, peak = 0;

	mutex_lock(&it->lock);
	if (it->disc) {
		nvfab_disc_sum_stats(it->disc, &sum);
		inflight = nvfab_disc_root_inflight(it->disc, &peak);
	}
	mutex_unlock(&it->lock);
	return sysfs_emit(page,
			  "log_reads=%d log_errors=%d aens=%d polls=%d genctr=%llu entries=%d connects=%d connect_failures=%d disconnects=%d inflight=%u inflight_peak=%u referrals=%d\n",
			  atomic_read(&sum.log_reads),
			  atomic_read(&sum.log_errors), atomic_read(&sum.aens),
			  atomic_read(&sum.polls),
			  (unsigned long long)atomic64_read(&sum.genctr),
			  atomic_read(&sum.entries), atomic_read(&sum.connects),
			  atomic_read(&sum.connect_failures),
			  atomic_read(&sum.disconnects), inflight, peak,
			  atomic_read(&sum.referrals));
}
CONFIGFS_ATTR_RO(nvfab_disc_, stats);

/*
 * The log attribute: text, so a binary attribute lifts the page limit.
 * configfs asks for the size first (buf NULL), then for the bytes; the
 * text is made whole each time and cut to what the first call announced.
 */
static ssize_t nvfab_disc_log_read(struct config_item *item, void *buf,
				   size_t max_count)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	struct seq_buf s;
	size_t len;
	char *tmp;

	tmp = kvmalloc(NVFAB_DISC_LOG_TEXT_MAX, GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	seq_buf_init(&s, tmp, NVFAB_DISC_LOG_TEXT_MAX);
	mutex_lock(&it->lock);
	if (it->disc)
		nvfab_disc_print(it->disc, &s);
	mutex_unlock(&it->lock);
	len = seq_buf_used(&s);
	if (buf) {
		len = min(len, max_count);
		memcpy(buf, tmp, len);
	}
	kvfree(tmp);
	return len;
}
CONFIGFS_BIN_ATTR_RO(nvfab_disc_, log, NULL, NVFAB_DISC_LOG_TEXT_MAX);

static struct configfs_attribute *nvfab_disc_attrs[] = {
	&nvfab_disc_attr_transport,
	&nvfab_disc_attr_traddr,
	&nvfab_disc_attr_trsvcid,
	&nvfab_disc_attr_host_traddr,
	&nvfab_disc_attr_host_iface,
	&nvfab_disc_attr_hostnqn,
	&nvfab_disc_attr_hostid,
	&nvfab_disc_attr_nqn,
	&nvfab_disc_attr_kato,
	&nvfab_disc_attr_connect_opts,
	&nvfab_disc_attr_connect,
	&nvfab_disc_attr_match,
	&nvfab_disc_attr_disconnect,
	&nvfab_disc_attr_poll_interval,
	&nvfab_disc_attr_max_inflight,
	&nvfab_disc_attr_enable,
	&nvfab_disc_attr_state,
	&nvfab_disc_attr_ctrl,
	&nvfab_disc_attr_stats,
	NULL,
};

static struct configfs_bin_attribute *nvfab_disc_bin_attrs[] = {
	&nvfab_disc_attr_log,
	NULL,
};

static void nvfab_disc_item_release(struct config_item *item)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	kfree(rcu_dereference_protected(it->policy.match, 1));
	mutex_destroy(&it->lock);
	kfree(it);
}

static struct configfs_item_operations nvfab_disc_item_ops = {
	.release	= nvfab_disc_item_release,
};

static const struct config_item_type nvfab_disc_item_type = {
	.ct_item_ops	= &nvfab_disc_item_ops,
	.ct_attrs	= nvfab_disc_attrs,
	.ct_bin_attrs	= nvfab_disc_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

static bool nvfab_disc_name_valid(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > NVFAB_DISC_NAME_MAX)
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

static struct config_group *nvfab_disc_make_item(struct config_group *group,
						 const char *name)
{
	struct nvfab_disc_item *it;

	if (!nvfab_disc_name_valid(name)) {
		pr_err("discovery entry '%s': 1..%d characters of A-Z a-z 0-9 . _ -\n",
		       name, NVFAB_DISC_NAME_MAX);
		return ERR_PTR(-EINVAL);
	}
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return ERR_PTR(-ENOMEM);
	mutex_init(&it->lock);
	strscpy(it->cfg.nqn, NVFAB_DISC_NQN, sizeof(it->cfg.nqn));
	it->cfg.kato = 30;
	it->policy.connect = NVFAB_DISC_CONNECT_ALL;
	it->policy.disconnect = NVFAB_DISC_DISCONNECT_OURS;
	it->policy.poll_interval = 60;
	it->policy.max_inflight = 8;
	config_group_init_type_name(&it->group, name, &nvfab_disc_item_type);
	return &it->group;
}

static void nvfab_disc_drop_item(struct config_group *group,
				 struct config_item *item)
{
	struct nvfab_disc_item *it = to_disc_item(item);

	mutex_lock(&it->lock);
	it->dropped = true;
	nvfab_disc_disable(it);
	mutex_unlock(&it->lock);
	config_item_put(item);
}

static struct configfs_group_operations nvfab_disc_group_ops = {
	.make_group	= nvfab_disc_make_item,
	.drop_item	= nvfab_disc_drop_item,
};

static const struct config_item_type nvfab_disc_group_type = {
	.ct_group_ops	= &nvfab_disc_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group nvfab_disc_group;

/**
 * nvfab_disc_configfs_init() - add /sys/kernel/config/nvfab/discovery
 *
 * Context: module init; may sleep.
 * Return: 0, or the error of nvfab_configfs_register_group().
 */
int nvfab_disc_configfs_init(void)
{
	config_group_init_type_name(&nvfab_disc_group, "discovery",
				    &nvfab_disc_group_type);
	return nvfab_configfs_register_group(&nvfab_disc_group);
}

/**
 * nvfab_disc_configfs_exit() - remove /sys/kernel/config/nvfab/discovery
 *
 * Context: module exit; may sleep. No entry exists: each pins the module.
 */
void nvfab_disc_configfs_exit(void)
{
	nvfab_configfs_unregister_group(&nvfab_disc_group);
}
