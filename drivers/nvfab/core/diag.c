// SPDX-License-Identifier: GPL-2.0
/*
 * The diag/ counters of sysfs, with the names of the in-kernel host: of a
 * controller (/sys/class/nvfab/nvfabN/diag: reset_count, reconnect_count),
 * of a path disk (nvfabXcNnY/diag: multipath_failover_count,
 * command_retry_count, command_error_count) and of a multipath head
 * (nvfabXnY/diag: io_requeue_no_usable_path_count,
 * io_fail_no_available_path_count). Each is an atomic64_t of its object,
 * counted where the event happens (recovery.c, request.c,
 * multipath/head.c), on paths that are rare (errors, retries, failovers,
 * no path, resets), never on the path of an I/O that succeeds; read-only,
 * never reset but with the object. Documented in
 * Documentation/ABI/testing/sysfs-class-nvfab and
 * sysfs-class-nvfab-subsystem.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include "multipath/mpath.h"

static ssize_t nvfab_diag_emit(char *buf, const atomic64_t *count)
{
	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(count));
}

/* ---- a controller: /sys/class/nvfab/nvfabN/diag ---- */

static struct nvfab_ctrl *dev_to_ctrl(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t reset_count_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return nvfab_diag_emit(buf, &dev_to_ctrl(dev)->reset_count);
}
static DEVICE_ATTR_RO(reset_count);

static ssize_t reconnect_count_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return nvfab_diag_emit(buf, &dev_to_ctrl(dev)->reconnect_count);
}
static DEVICE_ATTR_RO(reconnect_count);

/* ---- a path disk: nvfabXcNnY/diag ---- */

static struct nvfab_ns *dev_to_path(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t multipath_failover_count_show(struct device *dev,
					     struct device_attribute *attr,
					     char *buf)
{
	return nvfab_diag_emit(buf,
			       &dev_to_path(dev)->multipath_failover_count);
}
static DEVICE_ATTR_RO(multipath_failover_count);

static ssize_t command_retry_count_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return nvfab_diag_emit(buf, &dev_to_path(dev)->command_retry_count);
}
static DEVICE_ATTR_RO(command_retry_count);

static ssize_t command_error_count_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return nvfab_diag_emit(buf, &dev_to_path(dev)->command_error_count);
}
static DEVICE_ATTR_RO(command_error_count);

/* ---- a multipath head: nvfabXnY/diag ---- */

static struct nvfab_ns_head *dev_to_head(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t io_requeue_no_usable_path_count_show(struct device *dev,
						    struct device_attribute *attr,
						    char *buf)
{
	struct nvfab_ns_head *head = dev_to_head(dev);

	return nvfab_diag_emit(buf, &head->io_requeue_no_usable_path_count);
}
static DEVICE_ATTR_RO(io_requeue_no_usable_path_count);

static ssize_t io_fail_no_available_path_count_show(struct device *dev,
						    struct device_attribute *attr,
						    char *buf)
{
	struct nvfab_ns_head *head = dev_to_head(dev);

	return nvfab_diag_emit(buf, &head->io_fail_no_available_path_count);
}
static DEVICE_ATTR_RO(io_fail_no_available_path_count);

static struct attribute *nvfab_ctrl_diag_attrs[] = {
	&dev_attr_reset_count.attr,
	&dev_attr_reconnect_count.attr,
	NULL
};

const struct attribute_group nvfab_ctrl_diag_group = {
	.name	= "diag",
	.attrs	= nvfab_ctrl_diag_attrs,
};

static struct attribute *nvfab_path_diag_attrs[] = {
	&dev_attr_multipath_failover_count.attr,
	&dev_attr_command_retry_count.attr,
	&dev_attr_command_error_count.attr,
	NULL
};

const struct attribute_group nvfab_path_diag_group = {
	.name	= "diag",
	.attrs	= nvfab_path_diag_attrs,
};

static struct attribute *nvfab_head_diag_attrs[] = {
	&dev_attr_io_requeue_no_usable_path_count.attr,
	&dev_attr_io_fail_no_available_path_count.attr,
	NULL
};

const struct attribute_group nvfab_head_diag_group = {
	.name	= "diag",
	.attrs	= nvfab_head_diag_attrs,
};
