// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of /sys/class/nvfab/nvfabN, with the names of the
 * in-kernel host. Documented in Documentation/ABI/testing/sysfs-class-nvfab.
 */
#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/key.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include "auth.h"
#include "multipath/mpath.h"
#include "nvfab.h"
#include <nvfab/fabrics.h>

static struct nvfab_ctrl *to_ctrl(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  nvfab_ctrl_state_name(nvfab_ctrl_state(to_ctrl(dev))));
}
static DEVICE_ATTR_RO(state);

static ssize_t transport_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_ctrl(dev)->ops->name);
}
static DEVICE_ATTR_RO(transport);

static ssize_t address_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct nvfab_ctrl *ctrl = to_ctrl(dev);
	int len;

	len = ctrl->ops->get_address(ctrl, buf, PAGE_SIZE - 1);
	buf[len++] = '\n';
	return len;
}
static DEVICE_ATTR_RO(address);

static ssize_t subsysnqn_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_ctrl(dev)->opts->subsysnqn);
}
static DEVICE_ATTR_RO(subsysnqn);

static ssize_t hostnqn_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_ctrl(dev)->opts->host->nqn);
}
static DEVICE_ATTR_RO(hostnqn);

static ssize_t hostid_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%pUb\n", &to_ctrl(dev)->opts->host->id);
}
static DEVICE_ATTR_RO(hostid);

static ssize_t cntlid_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ctrl(dev)->cntlid);
}
static DEVICE_ATTR_RO(cntlid);

static ssize_t sqflow_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct nvfab_ctrl *ctrl = to_ctrl(dev);

	return sysfs_emit(buf, "%s%s\n",
			  ctrl->sqflow_disabled ? "disabled" : "enabled",
			  ctrl->sqflow_refused ? " (refused)" : "");
}
static DEVICE_ATTR_RO(sqflow);

static ssize_t queue_count_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ctrl(dev)->queue_count);
}
static DEVICE_ATTR_RO(queue_count);

static ssize_t sqsize_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ctrl(dev)->sqsize);
}
static DEVICE_ATTR_RO(sqsize);

static ssize_t kato_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ctrl(dev)->kato);
}
static DEVICE_ATTR_RO(kato);

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%.20s\n", to_ctrl(dev)->serial);
}
static DEVICE_ATTR_RO(serial);

static ssize_t model_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%.40s\n", to_ctrl(dev)->model);
}
static DEVICE_ATTR_RO(model);

static ssize_t firmware_rev_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.8s\n", to_ctrl(dev)->firmware_rev);
}
static DEVICE_ATTR_RO(firmware_rev);

static ssize_t reset_controller_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	int ret;

	ret = nvfab_reset_ctrl(to_ctrl(dev));
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(reset_controller);

static ssize_t rescan_controller_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct nvfab_ctrl *ctrl = to_ctrl(dev);
	int ret;

	ret = nvfab_queue_scan(ctrl);
	if (ret)
		return ret;
	flush_work(&ctrl->scan_work);
	return count;
}
static DEVICE_ATTR_WO(rescan_controller);

static ssize_t delete_controller_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct nvfab_ctrl *ctrl = to_ctrl(dev);

	/* The connect that creates it owns it until it went live once. */
	if (!test_bit(NVFAB_CTRL_STARTED, &ctrl->flags))
		return -EBUSY;
	/* The attribute goes away with the controller: remove it first. */
	if (device_remove_file_self(dev, attr))
		nvfab_delete_ctrl_sync(ctrl);
	return count;
}
static DEVICE_ATTR_WO(delete_controller);

/**
 * nvfab_parse_tmo() - parse a write to ctrl_loss_tmo or fast_io_fail_tmo
 * @buf: what user space wrote, with at most one trailing newline
 * @tmo: set to the timeout in seconds (0 to %NVFAB_MAX_TMO), or -1 for none
 *
 * Takes "off", or an int as kstrtoint() reads it with base 0 (decimal,
 * 0x hex, 0 octal, one leading sign). Any negative number means "off",
 * as for the connect options and the in-kernel host.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @buf is empty, is not "off" or an int, has
 * other trailing characters, or is out of the range of an int; -ERANGE
 * when it is above %NVFAB_MAX_TMO. @tmo is left as it was on an error.
 */
VISIBLE_IF_KUNIT int nvfab_parse_tmo(const char *buf, int *tmo)
{
	int val;

	if (sysfs_streq(buf, "off")) {
		*tmo = -1;
		return 0;
	}
	if (kstrtoint(buf, 0, &val))
		return -EINVAL;
	if (val > NVFAB_MAX_TMO)
		return -ERANGE;
	*tmo = val < 0 ? -1 : val;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_parse_tmo);

/**
 * nvfab_parse_reconnect_delay() - parse a write to reconnect_delay
 * @buf: what user space wrote, with at most one trailing newline
 * @delay: set to the delay in seconds, 1 to %NVFAB_MAX_RECONNECT_DELAY
 *
 * Takes an unsigned int as kstrtouint() reads it with base 0.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @buf is empty, not an unsigned int, has other
 * trailing characters, is out of the range of an unsigned int or is zero;
 * -ERANGE when it is above %NVFAB_MAX_RECONNECT_DELAY. @delay is left as
 * it was on an error.
 */
VISIBLE_IF_KUNIT int nvfab_parse_reconnect_delay(const char *buf,
						 unsigned int *delay)
{
	unsigned int val;

	if (kstrtouint(buf, 0, &val) || !val)
		return -EINVAL;
	if (val > NVFAB_MAX_RECONNECT_DELAY)
		return -ERANGE;
	*delay = val;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_parse_reconnect_delay);

/* The length of a sysfs write without its trailing newline, for "%.*s". */
static int nvfab_sysfs_len(const char *buf)
{
	size_t len = strlen(buf);

	if (len && buf[len - 1] == '\n')
		len--;
	return min_t(size_t, len, 64);
}

/* Why a write to ctrl_loss_tmo or fast_io_fail_tmo (@attr) was refused. */
static void nvfab_tmo_err(struct device *dev, const char *attr,
			  const char *buf, int ret)
{
	if (ret == -ERANGE)
		dev_err(dev, "%s: %.*s is above the limit of %u s; write \"off\" for none\n",
			attr, nvfab_sysfs_len(buf), buf, NVFAB_MAX_TMO);
	else
		dev_err(dev, "%s: '%.*s' is not a number or \"off\"\n",
			attr, nvfab_sysfs_len(buf), buf);
}

static ssize_t nvfab_show_tmo(char *buf, int val)
{
	if (val < 0)
		return sysfs_emit(buf, "off\n");
	return sysfs_emit(buf, "%d\n", val);
}

/*
 * Serialises the stores of ctrl_loss_tmo and reconnect_delay with the
 * max_reconnects derived from the pair, so that two racing writes cannot
 * leave a count computed from one old and one new value.
 */
static DEFINE_MUTEX(nvfab_reconnect_opts_lock);

static void nvfab_update_max_reconnects(struct nvfab_ctrl_options *opts)
{
	lockdep_assert_held(&nvfab_reconnect_opts_lock);
	WRITE_ONCE(opts->max_reconnects,
		   nvfab_max_reconnects(opts->ctrl_loss_tmo,
					opts->reconnect_delay));
}

static ssize_t ctrl_loss_tmo_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return nvfab_show_tmo(buf, READ_ONCE(to_ctrl(dev)->opts->ctrl_loss_tmo));
}

static ssize_t ctrl_loss_tmo_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct nvfab_ctrl_options *opts = to_ctrl(dev)->opts;
	int val, ret;

	ret = nvfab_parse_tmo(buf, &val);
	if (ret) {
		nvfab_tmo_err(dev, "ctrl_loss_tmo", buf, ret);
		return ret;
	}
	mutex_lock(&nvfab_reconnect_opts_lock);
	WRITE_ONCE(opts->ctrl_loss_tmo, val);
	nvfab_update_max_reconnects(opts);
	mutex_unlock(&nvfab_reconnect_opts_lock);
	return count;
}
static DEVICE_ATTR_RW(ctrl_loss_tmo);

static ssize_t reconnect_delay_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(to_ctrl(dev)->opts->reconnect_delay));
}

static ssize_t reconnect_delay_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct nvfab_ctrl_options *opts = to_ctrl(dev)->opts;
	unsigned int val;
	int ret;

	ret = nvfab_parse_reconnect_delay(buf, &val);
	if (ret == -ERANGE) {
		dev_err(dev, "reconnect_delay: %.*s is above the limit of %u s\n",
			nvfab_sysfs_len(buf), buf, NVFAB_MAX_RECONNECT_DELAY);
		return ret;
	}
	if (ret) {
		dev_err(dev, "reconnect_delay: must be a positive number of seconds\n");
		return ret;
	}
	mutex_lock(&nvfab_reconnect_opts_lock);
	WRITE_ONCE(opts->reconnect_delay, val);
	nvfab_update_max_reconnects(opts);
	mutex_unlock(&nvfab_reconnect_opts_lock);
	return count;
}
static DEVICE_ATTR_RW(reconnect_delay);

static ssize_t fast_io_fail_tmo_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return nvfab_show_tmo(buf,
			      READ_ONCE(to_ctrl(dev)->opts->fast_io_fail_tmo));
}

static ssize_t fast_io_fail_tmo_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct nvfab_ctrl_options *opts = to_ctrl(dev)->opts;
	int val, ret;

	ret = nvfab_parse_tmo(buf, &val);
	if (ret) {
		nvfab_tmo_err(dev, "fast_io_fail_tmo", buf, ret);
		return ret;
	}
	WRITE_ONCE(opts->fast_io_fail_tmo, val);
	return count;
}
static DEVICE_ATTR_RW(fast_io_fail_tmo);

/*
 * dhchap_secret, dhchap_ctrl_secret: the DH-HMAC-CHAP secrets (root only);
 * writing one re-authenticates the controller (auth.c).
 */
static ssize_t dhchap_secret_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return nvfab_auth_show_secret(to_ctrl(dev), false, buf);
}

static ssize_t dhchap_secret_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	int ret = nvfab_auth_change_secret(to_ctrl(dev), false, buf);

	return ret ? ret : count;
}
static DEVICE_ATTR_ADMIN_RW(dhchap_secret);

static ssize_t dhchap_ctrl_secret_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	return nvfab_auth_show_secret(to_ctrl(dev), true, buf);
}

static ssize_t dhchap_ctrl_secret_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	int ret = nvfab_auth_change_secret(to_ctrl(dev), true, buf);

	return ret ? ret : count;
}
static DEVICE_ATTR_ADMIN_RW(dhchap_ctrl_secret);

/*
 * tls_key, tls_configured_key, tls_keyring: the NVMe/TCP secure channel, as
 * the in-kernel host shows it (key serials in hex); only on a controller
 * connected with tls, and the last two only when that option was given.
 */
static ssize_t tls_key_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	key_serial_t id = READ_ONCE(to_ctrl(dev)->tls_pskid);

	if (!id)
		return 0;
	return sysfs_emit(buf, "%08x\n", id);
}
static DEVICE_ATTR_RO(tls_key);

static ssize_t tls_configured_key_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	return sysfs_emit(buf, "%08x\n",
			  key_serial(to_ctrl(dev)->opts->tls_key));
}
static DEVICE_ATTR_RO(tls_configured_key);

static ssize_t tls_keyring_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", nvfab_tls_keyring_name(to_ctrl(dev)->opts));
}
static DEVICE_ATTR_RO(tls_keyring);

static struct attribute *nvfab_tls_attrs[] = {
	&dev_attr_tls_key.attr,
	&dev_attr_tls_configured_key.attr,
	&dev_attr_tls_keyring.attr,
	NULL
};

static umode_t nvfab_tls_attr_visible(struct kobject *kobj,
				      struct attribute *a, int n)
{
	struct nvfab_ctrl_options *opts = to_ctrl(kobj_to_dev(kobj))->opts;

	if (!opts->tls)
		return 0;
	if (a == &dev_attr_tls_configured_key.attr && !opts->tls_key)
		return 0;
	if (a == &dev_attr_tls_keyring.attr && !opts->keyring)
		return 0;
	return a->mode;
}

static const struct attribute_group nvfab_tls_attr_group = {
	.attrs = nvfab_tls_attrs,
	.is_visible = nvfab_tls_attr_visible,
};

static struct attribute *nvfab_ctrl_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_transport.attr,
	&dev_attr_address.attr,
	&dev_attr_subsysnqn.attr,
	&dev_attr_hostnqn.attr,
	&dev_attr_hostid.attr,
	&dev_attr_cntlid.attr,
	&dev_attr_sqflow.attr,
	&dev_attr_queue_count.attr,
	&dev_attr_sqsize.attr,
	&dev_attr_kato.attr,
	&dev_attr_serial.attr,
	&dev_attr_model.attr,
	&dev_attr_firmware_rev.attr,
	&dev_attr_reset_controller.attr,
	&dev_attr_rescan_controller.attr,
	&dev_attr_delete_controller.attr,
	&dev_attr_ctrl_loss_tmo.attr,
	&dev_attr_reconnect_delay.attr,
	&dev_attr_fast_io_fail_tmo.attr,
	&dev_attr_dhchap_secret.attr,
	&dev_attr_dhchap_ctrl_secret.attr,
	NULL
};

static const struct attribute_group nvfab_ctrl_attr_group = {
	.attrs = nvfab_ctrl_attrs,
};

/*
 * peer_mem/: the struct nvfab_peer_counters of a controller (class nvfab)
 * or of a multipath head's disk (nvfab_head_groups)
 */
static ssize_t nvfab_show_counter(struct device *dev, char *buf,
				  size_t offset)
{
	struct nvfab_peer_counters *c;

	if (dev->class == &nvfab_class)
		c = &to_ctrl(dev)->peer;
	else
		c = &((struct nvfab_ns_head *)dev_to_disk(dev)->private_data)->peer;
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read((atomic64_t *)((char *)c + offset)));
}

static ssize_t ios_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return nvfab_show_counter(dev, buf,
				  offsetof(struct nvfab_peer_counters, ios));
}
static DEVICE_ATTR_RO(ios);

static ssize_t bytes_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return nvfab_show_counter(dev, buf,
				  offsetof(struct nvfab_peer_counters, bytes));
}
static DEVICE_ATTR_RO(bytes);

static ssize_t map_failures_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return nvfab_show_counter(dev, buf,
				  offsetof(struct nvfab_peer_counters,
					   map_failures));
}
static DEVICE_ATTR_RO(map_failures);

static ssize_t unreachable_skips_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return nvfab_show_counter(dev, buf,
				  offsetof(struct nvfab_peer_counters,
					   unreachable_skips));
}
static DEVICE_ATTR_RO(unreachable_skips);

static ssize_t bounces_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return nvfab_show_counter(dev, buf,
				  offsetof(struct nvfab_peer_counters, bounces));
}
static DEVICE_ATTR_RO(bounces);

static struct attribute *nvfab_peer_attrs[] = {
	&dev_attr_ios.attr,
	&dev_attr_bytes.attr,
	&dev_attr_map_failures.attr,
	&dev_attr_unreachable_skips.attr,
	&dev_attr_bounces.attr,
	NULL
};

const struct attribute_group nvfab_peer_attr_group = {
	.name = "peer_mem",
	.attrs = nvfab_peer_attrs,
};

const struct attribute_group *nvfab_ctrl_attr_groups[] = {
	&nvfab_ctrl_attr_group,
	&nvfab_tls_attr_group,
	&nvfab_peer_attr_group,
	&nvfab_ctrl_diag_group,
	NULL
};
