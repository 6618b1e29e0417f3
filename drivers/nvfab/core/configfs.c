// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/config/nvfab/: multipath policy per subsystem NQN, set before
 * the first controller of that subsystem connects.
 *
 *   nvfab/
 *     features			(RO) the attributes of an entry
 *     discovery/			added by nvfab-discovery (its own file)
 *     subsystems/
 *       <subsystem NQN>/		mkdir creates an entry, rmdir removes it
 *         iopolicy		path selector name; empty = module default
 *         no_path_tmo		"auto" or 1..3600 seconds
 *
 * An entry is a record and nothing else: no controller, subsystem or
 * selector lives behind it. subsys.c copies it with
 * nvfab_configfs_subsys_cfg() when it creates the subsystem of that NQN,
 * so a value written at any time applies to the next subsystem created with
 * that NQN, and a subsystem that exists already keeps what it has (its own
 * sysfs attributes change it live). There is therefore no "enable"
 * attribute and no value is ever frozen with -EBUSY.
 *
 * The names are checked here for form only: an iopolicy is not looked up in
 * the selector registry (selectors are autoloaded by name at connect, and
 * an unknown name falls back to the default there).
 *
 * Documented in Documentation/ABI/testing/configfs-nvfab and
 * Documentation/admin-guide/nvfab-multipath.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": configfs: " fmt

#include <kunit/visibility.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>

/* Bytes of a rejected value or name that an error message shows. */
#define NVFAB_CFG_SHOW_MAX	64

/**
 * struct nvfab_cfg_entry - /sys/kernel/config/nvfab/subsystems/<NQN>
 * @group:	the configfs directory; its item name is the NQN, which never
 *		changes (configfs has no rename)
 * @entry:	in nvfab_cfg_entries (protected by nvfab_cfg_lock)
 * @cfg:	the values (protected by nvfab_cfg_lock)
 */
struct nvfab_cfg_entry {
	struct config_group	group;
	struct list_head	entry;
	struct nvfab_subsys_cfg	cfg;
};

/*
 * nvfab_cfg_lock protects nvfab_cfg_entries and the @cfg of every entry.
 *
 * It is a leaf lock: nothing is taken and nothing in configfs is called
 * under it, so subsys.c may look an NQN up while it holds its own locks
 * (nvfab_subsys_lock, subsys->lock). configfs calls make_group and drop_item
 * with the subsystem's su_mutex held, so the order there is su_mutex, then
 * nvfab_cfg_lock.
 *
 * Lifetime: an entry is on the list from make_group until drop_item, which
 * unlinks it under the lock before it drops configfs's reference; release
 * frees it. A lookup therefore sees only entries whose memory is alive, and
 * it copies what it needs before it unlocks, so it takes no reference.
 *
 * Why not su_mutex with config_group_find_item(): attribute show and store
 * do not run under su_mutex, so the values would need a lock of their own
 * anyway. One private mutex covers the list and the values.
 */
static DEFINE_MUTEX(nvfab_cfg_lock);
static LIST_HEAD(nvfab_cfg_entries);

static struct nvfab_cfg_entry *to_cfg_entry(struct config_item *item)
{
	return container_of(to_config_group(item), struct nvfab_cfg_entry,
			    group);
}

/* Bytes of @buf (@count long) to show in a message: no trailing newline. */
static int nvfab_cfg_show_len(const char *buf, size_t count)
{
	if (count && buf[count - 1] == '\n')
		count--;
	return min_t(size_t, count, NVFAB_CFG_SHOW_MAX);
}

/**
 * nvfab_cfg_parse_iopolicy() - parse a value written to "iopolicy"
 * @buf: the bytes written (not necessarily NUL terminated)
 * @count: bytes in @buf
 * @name: the selector name, NUL terminated, on success; room for
 *	%NVFAB_IOPOLICY_NAME_MAX + 1 bytes; untouched on failure
 *
 * A selector name is 1 to %NVFAB_IOPOLICY_NAME_MAX characters of a-z, 0-9
 * and '-' (it becomes part of the module name nvfab-ps-<name>). One
 * trailing newline is dropped; anything else, a NUL included, is refused.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @buf is not a selector name.
 */
VISIBLE_IF_KUNIT int nvfab_cfg_parse_iopolicy(const char *buf, size_t count,
					      char *name)
{
	size_t i;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count > NVFAB_IOPOLICY_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		char c = buf[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') &&
		    c != '-')
			return -EINVAL;
	}
	memcpy(name, buf, count);
	name[count] = '\0';
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_cfg_parse_iopolicy);

/**
 * nvfab_cfg_parse_no_path_tmo() - parse a value written to "no_path_tmo"
 * @buf: the bytes written, with a NUL at @buf[@count] (configfs adds one)
 * @count: bytes written
 * @secs: seconds, or 0 for "auto", on success; untouched on failure
 *
 * Accepts "auto" or a decimal integer from 1 to %NVFAB_NO_PATH_TMO_MAX,
 * each with at most one trailing newline. A NUL within @count is refused.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @buf is neither (overflow included).
 */
int nvfab_cfg_parse_no_path_tmo(const char *buf, size_t count, int *secs)
{
	int val;

	if (memchr(buf, '\0', count))
		return -EINVAL;
	if (sysfs_streq(buf, "auto")) {
		*secs = 0;
		return 0;
	}
	if (kstrtoint(buf, 10, &val) || val < 1 || val > NVFAB_NO_PATH_TMO_MAX)
		return -EINVAL;
	*secs = val;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_cfg_parse_no_path_tmo);

/**
 * nvfab_cfg_check_nqn() - check a directory name made in subsystems/
 * @name: the name, NUL terminated
 * @why: on failure, what is wrong with @name, to follow "it" in a message
 *
 * A subsystem NQN (NVMe Base 2.0, 4.5) here is 1 to %NVMF_NQN_SIZE bytes
 * of visible ASCII (0x21 to 0x7e: no space, control or non-ASCII byte), no
 * '/', starting with "nqn." and with something after it. That admits both
 * NQN formats of the specification and the discovery NQN, and refuses the
 * typing errors an administrator makes; it does not check the date or the
 * domain of the "nqn.yyyy-mm.domain" form, which targets often ignore.
 *
 * Context: any context.
 * Return: 0, or -EINVAL with @why set.
 */
VISIBLE_IF_KUNIT int nvfab_cfg_check_nqn(const char *name, const char **why)
{
	size_t len = strnlen(name, NVMF_NQN_SIZE + 1);
	size_t i;

	if (!len) {
		*why = "is empty";
		return -EINVAL;
	}
	if (len > NVMF_NQN_SIZE) {
		*why = "is longer than " __stringify(NVMF_NQN_SIZE) " bytes";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c == '/') {
			*why = "contains '/'";
			return -EINVAL;
		}
		if (c < 0x21 || c > 0x7e) {
			*why = "contains a space, a control or a non-ASCII byte";
			return -EINVAL;
		}
	}
	if (strncmp(name, "nqn.", 4)) {
		*why = "does not start with \"nqn.\"";
		return -EINVAL;
	}
	if (len == 4) {
		*why = "has nothing after \"nqn.\"";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_cfg_check_nqn);

/*
 * The typed attributes. For each TYPE, nvfab_cfg_TYPE_parse() parses a
 * write into a value, nvfab_cfg_TYPE_show() formats one, and
 * nvfab_cfg_TYPE_expect says what a write must be (for the message). For
 * each attribute NAME, nvfab_cfg_NAME_field() points at its value in a
 * struct nvfab_subsys_cfg, with the C type of its TYPE.
 */
static int nvfab_cfg_selector_parse(const char *page, size_t count,
				    char *val)
{
	return nvfab_cfg_parse_iopolicy(page, count, val);
}

static ssize_t nvfab_cfg_selector_show(const char *val, char *page)
{
	return sysfs_emit(page, "%s\n", val);
}

static const char nvfab_cfg_selector_expect[] =
	"a selector name (1 to " __stringify(NVFAB_IOPOLICY_NAME_MAX)
	" of a-z, 0-9 and '-')";

static int nvfab_cfg_tmo_parse(const char *page, size_t count, int *val)
{
	return nvfab_cfg_parse_no_path_tmo(page, count, val);
}

static ssize_t nvfab_cfg_tmo_show(const int *val, char *page)
{
	if (!*val)
		return sysfs_emit(page, "auto\n");
	return sysfs_emit(page, "%d\n", *val);
}

static const char nvfab_cfg_tmo_expect[] =
	"\"auto\" or 1 to " __stringify(NVFAB_NO_PATH_TMO_MAX) " seconds";

static char *nvfab_cfg_iopolicy_field(struct nvfab_subsys_cfg *cfg)
{
	return cfg->iopolicy;
}

static int *nvfab_cfg_no_path_tmo_field(struct nvfab_subsys_cfg *cfg)
{
	return &cfg->no_path_tmo;
}

/*
 * NVFAB_CFG_ATTR(NAME, TYPE, APPLY): the read-write attribute NAME of an
 * entry, of TYPE selector or tmo.
 *
 * A write is parsed under nvfab_cfg_lock into a copy of the entry's values,
 * so that writes to two attributes of one entry never undo each other.
 * APPLY, when not NULL, is then called, still under the lock, with the
 * whole new configuration, to pass the value on to a live object; a
 * negative errno refuses the write and keeps the old value. An attribute
 * whose value cannot change live would return -EBUSY from it once its
 * object is live. No entry has a live object today (values are copied when
 * a subsystem is created), so every APPLY is NULL and every value may be
 * written at any time.
 *
 * A value that does not parse prints one message naming the entry, the
 * attribute and the value, and the write fails with -EINVAL.
 */
#define NVFAB_CFG_ATTR(NAME, TYPE, APPLY)				\
static ssize_t nvfab_cfg_##NAME##_show(struct config_item *item,	\
				       char *page)			\
{									\
	struct nvfab_cfg_entry *e = to_cfg_entry(item);			\
	struct nvfab_subsys_cfg cfg;					\
									\
	mutex_lock(&nvfab_cfg_lock);					\
	cfg = e->cfg;							\
	mutex_unlock(&nvfab_cfg_lock);					\
	return nvfab_cfg_##TYPE##_show(nvfab_cfg_##NAME##_field(&cfg),	\
				       page);				\
}									\
									\
static ssize_t nvfab_cfg_##NAME##_store(struct config_item *item,	\
					const char *page, size_t count)	\
{									\
	int (*apply)(struct nvfab_cfg_entry *e,				\
		     const struct nvfab_subsys_cfg *cfg) = APPLY;	\
	struct nvfab_cfg_entry *e = to_cfg_entry(item);			\
	struct nvfab_subsys_cfg cfg;					\
	int ret;							\
									\
	mutex_lock(&nvfab_cfg_lock);					\
	cfg = e->cfg;							\
	ret = nvfab_cfg_##TYPE##_parse(page, count,			\
				       nvfab_cfg_##NAME##_field(&cfg));	\
	if (ret)							\
		pr_err("subsystems/%s/" #NAME ": '%*pE' is not %s\n",	\
		       config_item_name(item),				\
		       nvfab_cfg_show_len(page, count), page,		\
		       nvfab_cfg_##TYPE##_expect);			\
	else if (apply)							\
		ret = apply(e, &cfg);					\
	if (!ret)							\
		e->cfg = cfg;						\
	mutex_unlock(&nvfab_cfg_lock);					\
	return ret ? ret : count;					\
}									\
									\
static struct configfs_attribute nvfab_cfg_attr_##NAME = {		\
	.ca_name	= #NAME,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0644,						\
	.show		= nvfab_cfg_##NAME##_show,			\
	.store		= nvfab_cfg_##NAME##_store,			\
}

NVFAB_CFG_ATTR(iopolicy, selector, NULL);
NVFAB_CFG_ATTR(no_path_tmo, tmo, NULL);

static struct configfs_attribute *nvfab_cfg_entry_attrs[] = {
	&nvfab_cfg_attr_iopolicy,
	&nvfab_cfg_attr_no_path_tmo,
	NULL,
};

static void nvfab_cfg_entry_release(struct config_item *item)
{
	kfree(to_cfg_entry(item));
}

static struct configfs_item_operations nvfab_cfg_entry_item_ops = {
	.release	= nvfab_cfg_entry_release,
};

static const struct config_item_type nvfab_cfg_entry_type = {
	.ct_item_ops	= &nvfab_cfg_entry_item_ops,
	.ct_attrs	= nvfab_cfg_entry_attrs,
	.ct_owner	= THIS_MODULE,
};

/* mkdir subsystems/<NQN> */
static struct config_group *nvfab_cfg_make_entry(struct config_group *group,
						 const char *name)
{
	struct nvfab_cfg_entry *e;
	const char *why;
	size_t len;

	if (nvfab_cfg_check_nqn(name, &why)) {
		len = strlen(name);
		pr_err("subsystems/%*pE%s: not a subsystem NQN: it %s\n",
		       (int)min_t(size_t, len, NVFAB_CFG_SHOW_MAX), name,
		       len > NVFAB_CFG_SHOW_MAX ? "..." : "", why);
		return ERR_PTR(-EINVAL);
	}

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	config_group_init_type_name(&e->group, name, &nvfab_cfg_entry_type);
	/* A name too long for ci_namebuf is allocated; that can fail. */
	if (!config_item_name(&e->group.cg_item)) {
		kfree(e);
		return ERR_PTR(-ENOMEM);
	}

	mutex_lock(&nvfab_cfg_lock);
	list_add_tail(&e->entry, &nvfab_cfg_entries);
	mutex_unlock(&nvfab_cfg_lock);
	return &e->group;
}

/* rmdir subsystems/<NQN>, or a mkdir that failed after make_group */
static void nvfab_cfg_drop_entry(struct config_group *group,
				 struct config_item *item)
{
	struct nvfab_cfg_entry *e = to_cfg_entry(item);

	mutex_lock(&nvfab_cfg_lock);
	list_del(&e->entry);
	mutex_unlock(&nvfab_cfg_lock);
	config_item_put(item);
}

static struct configfs_group_operations nvfab_cfg_subsystems_group_ops = {
	.make_group	= nvfab_cfg_make_entry,
	.drop_item	= nvfab_cfg_drop_entry,
};

static const struct config_item_type nvfab_cfg_subsystems_type = {
	.ct_group_ops	= &nvfab_cfg_subsystems_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group nvfab_cfg_subsystems;

/* features: the attribute names of an entry, comma separated. */
static ssize_t nvfab_cfg_features_show(struct config_item *item, char *page)
{
	struct configfs_attribute **attr;
	ssize_t len = 0;

	for (attr = nvfab_cfg_entry_attrs; *attr; attr++)
		len += sysfs_emit_at(page, len, "%s%s",
				     attr == nvfab_cfg_entry_attrs ? "" : ",",
				     (*attr)->ca_name);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}
CONFIGFS_ATTR_RO(nvfab_cfg_, features);

static struct configfs_attribute *nvfab_cfg_root_attrs[] = {
	&nvfab_cfg_attr_features,
	NULL,
};

static const struct config_item_type nvfab_cfg_root_type = {
	.ct_attrs	= nvfab_cfg_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem nvfab_cfg_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "nvfab",
			.ci_type	= &nvfab_cfg_root_type,
		},
	},
};

/**
 * nvfab_configfs_subsys_cfg() - the configfs policy of a subsystem NQN
 * @subnqn: Subsystem NQN, NUL terminated (compared byte for byte)
 * @cfg: where the entry's values are copied; set to the defaults ("" and 0)
 *	when there is no entry
 *
 * Called by the multipath code when it creates the subsystem of @subnqn.
 * Safe at any time while nvfab-core is loaded, before
 * nvfab_configfs_init() and after nvfab_configfs_exit() included (there
 * are no entries then).
 *
 * Context: process context; may sleep. Takes nvfab_cfg_lock, a leaf lock,
 * so the caller may hold its own mutexes (nvfab_subsys_lock, subsys->lock)
 * but no spinlock.
 * Return: true if /sys/kernel/config/nvfab/subsystems/@subnqn exists (@cfg
 * holds its values), false if not (@cfg holds the defaults).
 */
bool nvfab_configfs_subsys_cfg(const char *subnqn, struct nvfab_subsys_cfg *cfg)
{
	struct nvfab_cfg_entry *e;
	bool found = false;

	memset(cfg, 0, sizeof(*cfg));
	mutex_lock(&nvfab_cfg_lock);
	list_for_each_entry(e, &nvfab_cfg_entries, entry) {
		if (!strcmp(config_item_name(&e->group.cg_item), subnqn)) {
			*cfg = e->cfg;
			found = true;
			break;
		}
	}
	mutex_unlock(&nvfab_cfg_lock);
	return found;
}

/**
 * nvfab_configfs_register_group() - add a directory under /sys/kernel/config/nvfab
 * @group: an initialised group (config_group_init_type_name()); its type's
 *	ct_owner is the calling module
 *
 * For the other nvfab modules: nvfab-discovery adds discovery/ when it
 * loads. The group stays until nvfab_configfs_unregister_group().
 *
 * Context: process context; may sleep. Not from a configfs callback.
 * Return: 0, or the error of configfs_register_group(): -EEXIST for a
 * name in use, -ENOMEM.
 */
int nvfab_configfs_register_group(struct config_group *group)
{
	return configfs_register_group(&nvfab_cfg_subsys.su_group, group);
}
EXPORT_SYMBOL_NVFAB(nvfab_configfs_register_group);

/**
 * nvfab_configfs_unregister_group() - remove a group added above
 * @group: a group nvfab_configfs_register_group() added
 *
 * Context: process context; may sleep. The group must hold no user-made
 * directory: each one pins its type's module, so the module exit of that
 * module only runs once they are gone.
 */
void nvfab_configfs_unregister_group(struct config_group *group)
{
	configfs_unregister_group(group);
}
EXPORT_SYMBOL_NVFAB(nvfab_configfs_unregister_group);

/**
 * nvfab_configfs_init() - register /sys/kernel/config/nvfab
 *
 * Called once from nvfab-core's module init, which reports a failure (this
 * prints nothing). Each entry that user space creates takes a reference on
 * nvfab-core (configfs does it), so the module cannot be unloaded while
 * /sys/kernel/config/nvfab/subsystems/ holds an entry.
 *
 * Context: process context; may sleep.
 * Return: 0; -EEXIST if a configfs subsystem "nvfab" exists already;
 * -ENOMEM; or another negative errno from configfs_register_subsystem().
 */
int nvfab_configfs_init(void)
{
	config_group_init(&nvfab_cfg_subsys.su_group);
	mutex_init(&nvfab_cfg_subsys.su_mutex);
	config_group_init_type_name(&nvfab_cfg_subsystems, "subsystems",
				    &nvfab_cfg_subsystems_type);
	configfs_add_default_group(&nvfab_cfg_subsystems,
				   &nvfab_cfg_subsys.su_group);

	return configfs_register_subsystem(&nvfab_cfg_subsys);
}

/**
 * nvfab_configfs_exit() - unregister /sys/kernel/config/nvfab
 *
 * Called from nvfab-core's module exit, only after a successful
 * nvfab_configfs_init(). No entry exists then: each one pins the module.
 *
 * Context: process context; may sleep.
 */
void nvfab_configfs_exit(void)
{
	configfs_unregister_subsystem(&nvfab_cfg_subsys);
}
