// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of the multipath layer: of a subsystem (nvfab-subsysX:
 * its identity, iopolicy, no_path_tmo), of a head disk (nvfabXnY: the
 * namespace identifiers and the WWID built from them) and of a path disk
 * (nvfabXcNnY: ANA state and group, I/O routed to it, the path selector's
 * view of it). The diag/ counters of heads and paths are in ../diag.c.
 */
#include <kunit/visibility.h>
#include <linux/blkdev.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include <nvfab/configfs.h>
#include "mpath.h"

/* ---- subsystem attributes ---- */

static ssize_t subsysnqn_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_subsys(dev)->subnqn);
}
static DEVICE_ATTR_RO(subsysnqn);

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%.20s\n", to_subsys(dev)->serial);
}
static DEVICE_ATTR_RO(serial);

static ssize_t model_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%.40s\n", to_subsys(dev)->model);
}
static DEVICE_ATTR_RO(model);

static ssize_t firmware_rev_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.8s\n", to_subsys(dev)->firmware_rev);
}
static DEVICE_ATTR_RO(firmware_rev);

static ssize_t iopolicy_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct nvfab_subsys *subsys = to_subsys(dev);
	struct nvfab_ps *ps;
	ssize_t ret;
	int idx;

	idx = srcu_read_lock(&subsys->srcu);
	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	ret = sysfs_emit(buf, "%s\n", ps ? ps->ops->name : "none");
	srcu_read_unlock(&subsys->srcu, idx);
	return ret;
}

static ssize_t iopolicy_store(struct device *dev,
			      struct device_attribute *attr, const char *buf,
			      size_t count)
{
	int ret = nvfab_set_ps(to_subsys(dev), buf);

	if (ret == -EINVAL)
		dev_err(dev, "iopolicy: no path selector '%.*s'\n",
			(int)strcspn(buf, "\n"), buf);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(iopolicy);

static ssize_t no_path_tmo_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	int tmo = READ_ONCE(to_subsys(dev)->no_path_tmo);

	if (!tmo)
		return sysfs_emit(buf, "auto\n");
	return sysfs_emit(buf, "%d\n", tmo);
}

static ssize_t no_path_tmo_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct nvfab_subsys *subsys = to_subsys(dev);
	int tmo;

	/* the same values as configfs: "auto" or 1..3600 */
	if (nvfab_cfg_parse_no_path_tmo(buf, count, &tmo)) {
		dev_err(dev, "no_path_tmo: '%.*s' is not auto or 1..3600 seconds\n",
			(int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	mutex_lock(&subsys->lock);
	WRITE_ONCE(subsys->no_path_tmo, tmo);
	mutex_unlock(&subsys->lock);
	return count;
}
static DEVICE_ATTR_RW(no_path_tmo);

static struct attribute *nvfab_subsys_attrs[] = {
	&dev_attr_subsysnqn.attr,
	&dev_attr_serial.attr,
	&dev_attr_model.attr,
	&dev_attr_firmware_rev.attr,
	&dev_attr_iopolicy.attr,
	&dev_attr_no_path_tmo.attr,
	NULL,
};

static const struct attribute_group nvfab_subsys_attr_group = {
	.attrs = nvfab_subsys_attrs,
};

const struct attribute_group *nvfab_subsys_groups[] = {
	&nvfab_subsys_attr_group,
	NULL,
};

/* ---- head disk attributes ---- */

static struct nvfab_ns_head *dev_to_head(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t nsid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_head(dev)->nsid);
}
static DEVICE_ATTR_RO(nsid);

static ssize_t wwid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct nvfab_ns_head *head = dev_to_head(dev);
	struct nvfab_subsys *subsys = head->subsys;
	char wwid[NVFAB_WWID_MAX + 1];

	nvfab_ns_wwid(wwid, sizeof(wwid), &head->ids, head->nsid, subsys->vid,
		      subsys->serial, subsys->model);
	return sysfs_emit(buf, "%s\n", wwid);
}
static DEVICE_ATTR_RO(wwid);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pU\n", &dev_to_head(dev)->ids.uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t nguid_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%pU\n", dev_to_head(dev)->ids.nguid);
}
static DEVICE_ATTR_RO(nguid);

static ssize_t eui_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%8phD\n", dev_to_head(dev)->ids.eui64);
}
static DEVICE_ATTR_RO(eui);

static struct attribute *nvfab_head_attrs[] = {
	&dev_attr_nsid.attr,
	&dev_attr_wwid.attr,
	&dev_attr_uuid.attr,
	&dev_attr_nguid.attr,
	&dev_attr_eui.attr,
	NULL,
};

/*
 * uuid, nguid and eui exist only for the identifiers the namespace has. A
 * head's identifiers never change (a remapped namespace gets a new head),
 * so deciding once, when the disk is added, is enough.
 */
static umode_t nvfab_head_attr_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct nvfab_ns_head *head = dev_to_head(kobj_to_dev(kobj));
	const struct nvfab_ns_ids *ids = &head->ids;

	if (attr == &dev_attr_uuid.attr && uuid_is_null(&ids->uuid))
		return 0;
	if (attr == &dev_attr_nguid.attr &&
	    !memchr_inv(ids->nguid, 0, sizeof(ids->nguid)))
		return 0;
	if (attr == &dev_attr_eui.attr &&
	    !memchr_inv(ids->eui64, 0, sizeof(ids->eui64)))
		return 0;
	return attr->mode;
}

static const struct attribute_group nvfab_head_attr_group = {
	.attrs		= nvfab_head_attrs,
	.is_visible	= nvfab_head_attr_visible,
};

static struct attribute *nvfab_head_mpath_attrs[] = {
	NULL,
};

static const struct attribute_group nvfab_head_mpath_group = {
	.name = "multipath",
	.attrs = nvfab_head_mpath_attrs,
};

const struct attribute_group *nvfab_head_groups[] = {
	&nvfab_head_attr_group,
	&nvfab_head_mpath_group,
	&nvfab_peer_attr_group,
	&nvfab_head_diag_group,
	NULL,
};

/* ---- path disk attributes ---- */

static const char * const nvfab_ana_names[] = {
	[NVME_ANA_OPTIMIZED]		= "optimized",
	[NVME_ANA_NONOPTIMIZED]		= "non-optimized",
	[NVME_ANA_INACCESSIBLE]		= "inaccessible",
	[NVME_ANA_PERSISTENT_LOSS]	= "persistent-loss",
	[NVME_ANA_CHANGE]		= "change",
};

/**
 * nvfab_ana_state_name() - the sysfs name of an ANA state
 * @state: enum nvme_ana_state
 *
 * Context: any context.
 * Return: the name, or "unknown".
 */
const char *nvfab_ana_state_name(u8 state)
{
	if (state < ARRAY_SIZE(nvfab_ana_names) && nvfab_ana_names[state])
		return nvfab_ana_names[state];
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_ana_state_name);

static struct nvfab_ns *dev_to_path(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t ana_state_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct nvfab_ns *ns = dev_to_path(dev);

	return sysfs_emit(buf, "%s\n",
			  nvfab_ana_state_name(READ_ONCE(ns->path.ana_state)));
}
static DEVICE_ATTR_RO(ana_state);

static ssize_t ana_grpid_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_path(dev)->anagrpid);
}
static DEVICE_ATTR_RO(ana_grpid);

static ssize_t routed_ios_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (u64)atomic64_read(&dev_to_path(dev)->routed_ios));
}
static DEVICE_ATTR_RO(routed_ios);

static ssize_t ps_status_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct nvfab_ns *ns = dev_to_path(dev);
	struct nvfab_subsys *subsys = ns->ctrl->subsys;
	struct nvfab_ps *ps;
	int idx, len = 0;

	if (!subsys)
		return sysfs_emit(buf, "\n");
	idx = srcu_read_lock(&subsys->srcu);
	ps = srcu_dereference(subsys->ps, &subsys->srcu);
	if (ps && ps->ops->path_status)
		len = ps->ops->path_status(ps, ns->ctrl->slot, buf,
					   PAGE_SIZE - 1);
	srcu_read_unlock(&subsys->srcu, idx);
	len = clamp(len, 0, (int)PAGE_SIZE - 2);
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len++] = '\n';
	return len;
}
static DEVICE_ATTR_RO(ps_status);

/*
 * Multipath requests in flight on this path's controller (the in-kernel
 * host's attribute of the same name; nvfab counts them under every
 * iopolicy).
 */
static ssize_t queue_depth_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  atomic_read(&dev_to_path(dev)->ctrl->mp_inflight));
}
static DEVICE_ATTR_RO(queue_depth);

static struct attribute *nvfab_path_attrs[] = {
	&dev_attr_ana_state.attr,
	&dev_attr_queue_depth.attr,
	&dev_attr_ana_grpid.attr,
	&dev_attr_routed_ios.attr,
	&dev_attr_ps_status.attr,
	NULL,
};

static const struct attribute_group nvfab_path_attr_group = {
	.attrs = nvfab_path_attrs,
};

const struct attribute_group *nvfab_path_disk_groups[] = {
	&nvfab_path_attr_group,
	&nvfab_path_diag_group,
	NULL,
};
