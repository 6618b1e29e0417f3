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

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>
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

/**
 * nvfab_disc_str() - a written string setting, checked
 * @page: what was written
 * @count: its length
 * @buf: where the value goes, without a trailing newline, NUL terminated
 * @size: size of @buf
 * @what: the attribute's name, for the message
 *
 * Context: any.
 * Return: 0, or -EINVAL (logged) for a value too long for @buf, or with a
 * NUL, a space or another unprintable byte.
 */
VISIBLE_IF_KUNIT int nvfab_disc_str(const char *page, size_t count, char *buf,
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
		/* ASCII only: the kernel's isgraph() takes Latin-1 too */
		if (*buf < 0x21 || *buf > 0x7e) {
			pr_err("%s: only printable characters without spaces\n",
			       what);
			return -EINVAL;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_str);

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
	 NVFAB_OPT_DISABLE_SQFLOW | NVFAB_TLS_OPTS)

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
		pr_err("connect_opts: only queue_size, nr_io_queues, nr_write_queues, nr_poll_queues, reconnect_delay, ctrl_loss_tmo, fast_io_fail_tmo, keep_alive_tmo, tos, hdr_digest, data_digest, disable_sqflow, tls, keyring and tls_key; the entry sets the rest\n");
		ret = -EINVAL;
	}
	nvfab_free_options(opts);	/* frees @opts too */
	return ret;
}

/**
 * nvfab_disc_check_cfg() - check the new value of one string setting
 * @name: the attribute (transport, traddr, trsvcid, host_traddr,
 *	host_iface, hostnqn, hostid, nqn)
 * @val: the value from nvfab_disc_str(); a port is rewritten in its one
 *	spelling (no leading zeros), the key the log's entries use
 *
 * Context: any.
 * Return: 0, or -EINVAL (logged).
 */
VISIBLE_IF_KUNIT int nvfab_disc_check_cfg(const char *name, char *val)
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
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_check_cfg);

/*
 * The string settings, stored while disabled: the field at @off of the
 * settings, @size bytes, named @name.
 */
static ssize_t nvfab_disc_cfg_show(struct config_item *item, char *page,
				   size_t off)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = sysfs_emit(page, "%s\n", (char *)&it->cfg + off);
	mutex_unlock(&it->lock);
	return len;
}

/* The largest string setting, NUL included. */
#define NVFAB_DISC_CFG_STR_MAX	NVFAB_TRADDR_SIZE

static ssize_t nvfab_disc_cfg_store(struct config_item *item,
				    const char *page, size_t count,
				    const char *name, size_t off, size_t size)
{
	struct nvfab_disc_item *it = to_disc_item(item);
	char val[NVFAB_DISC_CFG_STR_MAX];
	int ret;

	if (WARN_ON_ONCE(size > sizeof(val)))
		return -EINVAL;
	ret = nvfab_disc_str(page, count, val, size, name);
	if (!ret)
		ret = nvfab_disc_check_cfg(name, val);
	if (ret)
		return ret;
	mutex_lock(&it->lock);
	if (it->disc) {
		pr_err("%s: %s: write enable=0 first\n",
		       config_item_name(item), name);
		ret = -EBUSY;
	} else {
		strscpy((char *)&it->cfg + off, val, size);
	}
	mutex_unlock(&it->lock);
	return ret ? ret : count;
}

static ssize_t nvfab_disc_transport_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, transport));
}

static ssize_t nvfab_disc_transport_store(struct config_item *item,
					  const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "transport",
				    offsetof(struct nvfab_disc_cfg, transport),
				    sizeof_field(struct nvfab_disc_cfg, transport));
}
CONFIGFS_ATTR(nvfab_disc_, transport);

static ssize_t nvfab_disc_traddr_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, traddr));
}

static ssize_t nvfab_disc_traddr_store(struct config_item *item,
				       const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "traddr",
				    offsetof(struct nvfab_disc_cfg, traddr),
				    sizeof_field(struct nvfab_disc_cfg, traddr));
}
CONFIGFS_ATTR(nvfab_disc_, traddr);

static ssize_t nvfab_disc_trsvcid_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, trsvcid));
}

static ssize_t nvfab_disc_trsvcid_store(struct config_item *item,
					const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "trsvcid",
				    offsetof(struct nvfab_disc_cfg, trsvcid),
				    sizeof_field(struct nvfab_disc_cfg, trsvcid));
}
CONFIGFS_ATTR(nvfab_disc_, trsvcid);

static ssize_t nvfab_disc_host_traddr_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, host_traddr));
}

static ssize_t nvfab_disc_host_traddr_store(struct config_item *item,
					    const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "host_traddr",
				    offsetof(struct nvfab_disc_cfg, host_traddr),
				    sizeof_field(struct nvfab_disc_cfg, host_traddr));
}
CONFIGFS_ATTR(nvfab_disc_, host_traddr);

static ssize_t nvfab_disc_host_iface_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, host_iface));
}

static ssize_t nvfab_disc_host_iface_store(struct config_item *item,
					   const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "host_iface",
				    offsetof(struct nvfab_disc_cfg, host_iface),
				    sizeof_field(struct nvfab_disc_cfg, host_iface));
}
CONFIGFS_ATTR(nvfab_disc_, host_iface);

static ssize_t nvfab_disc_hostnqn_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, hostnqn));
}

static ssize_t nvfab_disc_hostnqn_store(struct config_item *item,
					const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "hostnqn",
				    offsetof(struct nvfab_disc_cfg, hostnqn),
				    sizeof_field(struct nvfab_disc_cfg, hostnqn));
}
CONFIGFS_ATTR(nvfab_disc_, hostnqn);

static ssize_t nvfab_disc_hostid_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, hostid));
}

static ssize_t nvfab_disc_hostid_store(struct config_item *item,
				       const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "hostid",
				    offsetof(struct nvfab_disc_cfg, hostid),
				    sizeof_field(struct nvfab_disc_cfg, hostid));
}
CONFIGFS_ATTR(nvfab_disc_, hostid);

static ssize_t nvfab_disc_nqn_show(struct config_item *item, char *page)
{
	return nvfab_disc_cfg_show(item, page,
				   offsetof(struct nvfab_disc_cfg, nqn));
}

static ssize_t nvfab_disc_nqn_store(struct config_item *item,
				    const char *page, size_t count)
{
	return nvfab_disc_cfg_store(item, page, count, "nqn",
				    offsetof(struct nvfab_disc_cfg, nqn),
				    sizeof_field(struct nvfab_disc_cfg, nqn));
}
CONFIGFS_ATTR(nvfab_disc_, nqn);

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

	int i = READ_ONCE(it->policy.connect);

	return sysfs_emit(page, "%s\n", nvfab_disc_connect_names[i]);
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

	int i = READ_ONCE(it->policy.disconnect);

	return sysfs_emit(page, "%s\n", nvfab_disc_disconnect_names[i]);
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

/**
 * nvfab_disc_parse_match() - parse a match list
 * @page: the list: NQN patterns (glob_match() syntax) separated by spaces,
 *	tabs, commas or newlines
 * @count: its length, at most NVFAB_DISC_MATCH_MAX
 *
 * Context: may sleep.
 * Return: the patterns (kfree() them), possibly none; ERR_PTR(-EINVAL)
 * (logged) for a list too long or a pattern that does not start with
 * "nqn." or is NVFAB_NQN_SIZE bytes or more; ERR_PTR(-ENOMEM).
 */
VISIBLE_IF_KUNIT struct nvfab_disc_match *
nvfab_disc_parse_match(const char *page, size_t count)
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
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_parse_match);

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
	/*
	 * The default Host Identifier belongs to the default Host NQN:
	 * nvfab-fabrics refuses it with another NQN (a target must see one
	 * host unambiguously), so every connect would fail.
	 */
	if (*cfg->hostnqn && !*cfg->hostid) {
		pr_err("%s: hostnqn needs its own hostid\n", name);
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

/**
 * nvfab_disc_name_valid() - may a discovery entry have this name?
 * @name: the directory name
 *
 * The name goes into uevents and kernel log lines: 1..63 characters of
 * A-Z, a-z, 0-9, '.', '_' and '-'.
 *
 * Context: any.
 * Return: true if it may.
 */
VISIBLE_IF_KUNIT bool nvfab_disc_name_valid(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > NVFAB_DISC_NAME_MAX)
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_name_valid);

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
