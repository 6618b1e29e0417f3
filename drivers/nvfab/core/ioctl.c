// SPDX-License-Identifier: GPL-2.0
/*
 * The controller character device /dev/nvfabN, and the NVMe passthrough
 * ioctls of <linux/nvme_ioctl.h> on /dev/nvfabN and /dev/nvfabXnY, so that
 * nvme-cli works on nvfab's nodes unchanged. The path disks nvfabXcNnY are
 * hidden and have no device node; a head's ioctls reach them through
 * nvfab_path_ioctl().
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <nvfab/compat.h>
#include "multipath/mpath.h"

/* The namespaces frozen around an admin command that changes them. */
struct nvfab_frozen {
	unsigned int		nr;
	struct nvfab_ns		**ns;
};

/*
 * Before an admin command whose effects (effects.c) change logical block
 * content or need the namespaces idle (Format NVM, Sanitize): freeze the
 * queue of every namespace of @ctrl, each held by a reference so that no
 * lock is held while the command runs. Namespaces that appear meanwhile
 * are not frozen; they come from a scan and are current.
 */
static int nvfab_passthru_freeze(struct nvfab_ctrl *ctrl, u32 effects,
				 struct nvfab_frozen *f)
{
	struct nvfab_ns *ns;
	unsigned int i, n = 0;
	long left;

	f->nr = 0;
	f->ns = NULL;
	if (!(effects & (NVME_CMD_EFFECTS_LBCC | NVME_CMD_EFFECTS_CSE_MASK)))
		return 0;
	down_read(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list)
		n++;
	f->ns = n ? kcalloc(n, sizeof(*f->ns), GFP_KERNEL) : NULL;
	if (n && !f->ns) {
		up_read(&ctrl->namespaces_rwsem);
		return -ENOMEM;
	}
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		if (f->nr < n && nvfab_ns_tryget(ns))
			f->ns[f->nr++] = ns;
	}
	up_read(&ctrl->namespaces_rwsem);

	for (i = 0; i < f->nr; i++)
		blk_freeze_queue_start(f->ns[i]->disk->queue);
	for (i = 0; i < f->nr; i++) {
		struct request_queue *q = f->ns[i]->disk->queue;

		left = blk_mq_freeze_queue_wait_timeout(q, q->rq_timeout);
		if (left <= 0) {
			dev_err(ctrl->device, "passthrough: I/O of ns %u did not drain within its io_timeout; command not sent\n",
				f->ns[i]->nsid);
			return -EBUSY;
		}
	}
	return 0;
}

static void nvfab_passthru_unfreeze(struct nvfab_frozen *f)
{
	unsigned int i;

	for (i = 0; i < f->nr; i++) {
		blk_mq_unfreeze_queue_nomemrestore(f->ns[i]->disk->queue);
		nvfab_ns_put(f->ns[i]);
	}
	kfree(f->ns);
}

static int nvfab_user_cmd(struct nvfab_ctrl *ctrl, struct nvfab_ns *ns,
			  struct nvme_passthru_cmd64 *uc, u64 *result)
{
	struct request_queue *q = ns ? ns->disk->queue : ctrl->admin_q;
	struct nvfab_frozen frozen = { };
	struct nvme_command c = { };
	u32 effects = 0;
	struct nvfab_request *req;
	struct bio *bio = NULL;
	struct request *rq;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (uc->flags || uc->metadata || uc->metadata_len) {
		dev_err(ctrl->device, "passthrough: flags and metadata are not supported\n");
		return -EINVAL;
	}
	if (uc->opcode == nvme_fabrics_command) {
		dev_err(ctrl->device, "passthrough: fabrics commands are the host's own\n");
		return -EINVAL;
	}
	if (uc->data_len > (ctrl->max_hw_sectors << SECTOR_SHIFT))
		return -EINVAL;

	c.common.opcode = uc->opcode;
	c.common.flags = 0;
	c.common.nsid = cpu_to_le32(uc->nsid);
	c.common.cdw2[0] = cpu_to_le32(uc->cdw2);
	c.common.cdw2[1] = cpu_to_le32(uc->cdw3);
	c.common.cdw10 = cpu_to_le32(uc->cdw10);
	c.common.cdw11 = cpu_to_le32(uc->cdw11);
	c.common.cdw12 = cpu_to_le32(uc->cdw12);
	c.common.cdw13 = cpu_to_le32(uc->cdw13);
	c.common.cdw14 = cpu_to_le32(uc->cdw14);
	c.common.cdw15 = cpu_to_le32(uc->cdw15);

	rq = blk_mq_alloc_request(q, nvme_is_write(&c) ? REQ_OP_DRV_OUT :
						       REQ_OP_DRV_IN, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	req = nvfab_req(rq);
	memcpy(req->cmd, &c, sizeof(c));
	req->flags = NVFAB_REQ_USERCMD;
	rq->cmd_flags |= REQ_FAILFAST_DRIVER;
	if (uc->timeout_ms)
		rq->timeout = msecs_to_jiffies(uc->timeout_ms);

	if (uc->data_len) {
		ret = blk_rq_map_user(q, rq, NULL, u64_to_user_ptr(uc->addr),
				      uc->data_len, GFP_KERNEL);
		if (ret)
			goto out_free;
		bio = rq->bio;
	}

	if (!ns)
		effects = nvfab_admin_effects(ctrl, uc->opcode);
	ret = nvfab_passthru_freeze(ctrl, effects, &frozen);
	if (ret)
		goto out_unfreeze;
	blk_execute_rq(rq, false);
	if (req->flags & NVFAB_REQ_CANCELLED)
		ret = -EINTR;
	else
		ret = req->status;
	*result = le64_to_cpu(req->result.u64);
out_unfreeze:
	/*
	 * Unfreeze before the scan, never wait for it frozen: the scan may
	 * remove a head whose partition scan waits on a frozen path queue
	 * (a deadlock lockdep saw: q_usage_counter -> nvfab-wq -> open_mutex
	 * -> q_usage_counter). A new LBA format, size or namespace list is
	 * then scanned, with no request held, before the ioctl returns (the scan replaces a
	 * reformatted namespace, ns.c); bios that waited on the freeze go
	 * out before it, as with the in-kernel host.
	 */
	nvfab_passthru_unfreeze(&frozen);
	if (bio)
		blk_rq_unmap_user(bio);
out_free:
	blk_mq_free_request(rq);
	if (ret >= 0 && (effects & (NVME_CMD_EFFECTS_LBCC |
				    NVME_CMD_EFFECTS_NCC |
				    NVME_CMD_EFFECTS_NIC |
				    NVME_CMD_EFFECTS_CSE_MASK)) &&
	    !nvfab_queue_scan(ctrl))
		flush_work(&ctrl->scan_work);
	return ret;
}

static int nvfab_passthru(struct nvfab_ctrl *ctrl, struct nvfab_ns *ns,
			  void __user *argp, bool is64)
{
	struct nvme_passthru_cmd64 uc = { };
	struct nvme_passthru_cmd c32;
	u64 result = 0;
	int ret;

	if (is64) {
		if (copy_from_user(&uc, argp, sizeof(uc)))
			return -EFAULT;
	} else {
		if (copy_from_user(&c32, argp, sizeof(c32)))
			return -EFAULT;
		uc.opcode = c32.opcode;
		uc.flags = c32.flags;
		uc.nsid = c32.nsid;
		uc.cdw2 = c32.cdw2;
		uc.cdw3 = c32.cdw3;
		uc.metadata = c32.metadata;
		uc.addr = c32.addr;
		uc.metadata_len = c32.metadata_len;
		uc.data_len = c32.data_len;
		uc.cdw10 = c32.cdw10;
		uc.cdw11 = c32.cdw11;
		uc.cdw12 = c32.cdw12;
		uc.cdw13 = c32.cdw13;
		uc.cdw14 = c32.cdw14;
		uc.cdw15 = c32.cdw15;
		uc.timeout_ms = c32.timeout_ms;
	}
	if (ns && !uc.nsid)
		uc.nsid = ns->nsid;

	ret = nvfab_user_cmd(ctrl, ns, &uc, &result);
	if (ret >= 0) {
		if (is64) {
			if (put_user(result, &((struct nvme_passthru_cmd64 __user *)argp)->result))
				return -EFAULT;
		} else if (put_user((u32)result,
				    &((struct nvme_passthru_cmd __user *)argp)->result)) {
			return -EFAULT;
		}
	}
	return ret;
}

/*
 * I/O passthrough on /dev/nvfabN: through this controller (one path) to
 * the namespace the command's NSID names, so that a path can be read or
 * written on its own. A namespace reference, not namespaces_rwsem, keeps
 * it while the command runs.
 */
static int nvfab_dev_io_cmd(struct nvfab_ctrl *ctrl, void __user *argp,
			    bool is64)
{
	struct nvfab_ns *ns, *found = NULL;
	u32 nsid;
	int ret;

	/* nsid sits at the same offset in both passthrough structures */
	BUILD_BUG_ON(offsetof(struct nvme_passthru_cmd, nsid) !=
		     offsetof(struct nvme_passthru_cmd64, nsid));
	if (copy_from_user(&nsid, argp + offsetof(struct nvme_passthru_cmd,
						  nsid), sizeof(nsid)))
		return -EFAULT;
	/* The command runs without the lock: its end is the target's choice. */
	down_read(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		if (ns->nsid == nsid) {
			if (nvfab_ns_tryget(ns))
				found = ns;
			break;
		}
	}
	up_read(&ctrl->namespaces_rwsem);
	if (!found) {
		dev_err(ctrl->device, "I/O passthrough: no namespace %u on this controller\n",
			nsid);
		return -EINVAL;
	}
	ret = nvfab_passthru(ctrl, found, argp, is64);
	nvfab_ns_put(found);
	return ret;
}

/**
 * nvfab_dev_ioctl() - ioctls of /dev/nvfabN
 * @file: the open character device
 * @cmd: NVME_IOCTL_*
 * @arg: user pointer or value
 *
 * Context: process context; may sleep.
 * I/O passthrough (NVME_IOCTL_IO_CMD, _IO64_CMD) goes to the namespace
 * the command's NSID names, through this controller only.
 *
 * Return: 0 or a positive NVMe status for passthrough, -ENOTTY for an
 * unknown ioctl, -EINVAL for I/O to a namespace this controller does not
 * have, -ENODEV once the controller is being deleted or gone, or another
 * negative errno.
 */
static long nvfab_dev_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct nvfab_ctrl *ctrl = file->private_data;
	void __user *argp = (void __user *)arg;

	/*
	 * An open /dev/nvfabN outlives the controller's deletion; its admin
	 * queue is dead then (requests fail with -ENODEV) but not freed.
	 */
	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_DELETING:
	case NVFAB_CTRL_DELETING_NOIO:
	case NVFAB_CTRL_DEAD:
		return -ENODEV;
	default:
		break;
	}

	switch (cmd) {
	case NVME_IOCTL_ADMIN_CMD:
		return nvfab_passthru(ctrl, NULL, argp, false);
	case NVME_IOCTL_ADMIN64_CMD:
		return nvfab_passthru(ctrl, NULL, argp, true);
	case NVME_IOCTL_RESET:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		return nvfab_reset_ctrl(ctrl);
	case NVME_IOCTL_RESCAN:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		return nvfab_queue_scan(ctrl);
	case NVME_IOCTL_SUBSYS_RESET:
		return -ENOTTY;
	case NVME_IOCTL_IO_CMD:
		return nvfab_dev_io_cmd(ctrl, argp, false);
	case NVME_IOCTL_IO64_CMD:
		return nvfab_dev_io_cmd(ctrl, argp, true);
	default:
		return -ENOTTY;
	}
}

/* The controller character device, /dev/nvfabN. */
static int nvfab_dev_open(struct inode *inode, struct file *file)
{
	struct nvfab_ctrl *ctrl = container_of(inode->i_cdev,
					       struct nvfab_ctrl, cdev);

	switch (nvfab_ctrl_state(ctrl)) {
	case NVFAB_CTRL_LIVE:
		break;
	default:
		return -EWOULDBLOCK;
	}
	if (!try_module_get(ctrl->ops->module))
		return -EINVAL;
	get_device(ctrl->device);
	file->private_data = ctrl;
	return 0;
}

static int nvfab_dev_release(struct inode *inode, struct file *file)
{
	struct nvfab_ctrl *ctrl = file->private_data;
	struct module *owner = ctrl->ops->module;

	put_device(ctrl->device);
	module_put(owner);
	return 0;
}

/* Operations of /dev/nvfabN, which nvfab_init_ctrl() creates. */
const struct file_operations nvfab_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= nvfab_dev_open,
	.release	= nvfab_dev_release,
	.unlocked_ioctl	= nvfab_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/**
 * nvfab_ns_ioctl() - ioctls of a path disk (nvfabXcNnY)
 * @bdev: the block device
 * @mode: open mode
 * @cmd: NVME_IOCTL_*
 * @arg: user pointer or value
 *
 * Context: process context; may sleep.
 * Return: the NSID for NVME_IOCTL_ID, 0 or a positive NVMe status for
 * passthrough, -ENOTTY for an unknown ioctl, or another negative errno.
 */
int nvfab_ns_ioctl(struct block_device *bdev, blk_mode_t mode,
		   unsigned int cmd, unsigned long arg)
{
	return nvfab_path_ioctl(bdev->bd_disk->private_data, cmd,
				(void __user *)arg);
}

/**
 * nvfab_path_ioctl() - the nvme ioctls, sent through one path
 * @ns: the path (namespace on one controller)
 * @cmd: NVME_IOCTL_*
 * @argp: user pointer
 *
 * Context: process context; may sleep.
 * Return: as nvfab_ns_ioctl().
 */
int nvfab_path_ioctl(struct nvfab_ns *ns, unsigned int cmd, void __user *argp)
{
	switch (cmd) {
	case NVME_IOCTL_ID:
		return ns->nsid;
	case NVME_IOCTL_ADMIN_CMD:
		return nvfab_passthru(ns->ctrl, NULL, argp, false);
	case NVME_IOCTL_ADMIN64_CMD:
		return nvfab_passthru(ns->ctrl, NULL, argp, true);
	case NVME_IOCTL_IO_CMD:
		return nvfab_passthru(ns->ctrl, ns, argp, false);
	case NVME_IOCTL_IO64_CMD:
		return nvfab_passthru(ns->ctrl, ns, argp, true);
	default:
		return -ENOTTY;
	}
}

/* Any path whose controller is live: admin commands need no ANA access. */
static struct nvfab_ns *nvfab_any_live_path(struct nvfab_ns_head *head)
{
	struct nvfab_ns *ns;

	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->subsys->srcu)) {
		if (!(ns->flags & BIT(NVFAB_NS_REMOVING)) &&
		    nvfab_ctrl_state(ns->ctrl) == NVFAB_CTRL_LIVE)
			return ns;
	}
	return NULL;
}

/**
 * nvfab_head_ioctl() - nvme ioctls on /dev/nvfabXnY
 * @bdev: the head's block device
 * @mode: open mode
 * @cmd: NVME_IOCTL_*
 * @arg: user pointer or value
 *
 * Sent through the path the selector picks, or else any path whose
 * controller is live (so that Identify and Get Log Page work while no path
 * has ANA access).
 *
 * Context: process context; may sleep. The command runs on a namespace
 * reference, with no lock held.
 * Return: as nvfab_ns_ioctl(); -ENODEV when no controller is live.
 */
int nvfab_head_ioctl(struct block_device *bdev, blk_mode_t mode,
		     unsigned int cmd, unsigned long arg)
{
	struct nvfab_ns_head *head = bdev->bd_disk->private_data;
	struct nvfab_subsys *subsys = head->subsys;
	struct nvfab_ns *ns;
	int idx, ret;

	if (cmd == NVME_IOCTL_ID)
		return head->nsid;
	/*
	 * The command runs outside subsys->srcu, on a namespace reference:
	 * its end is the target's choice and the user's timeout, and a
	 * reader held that long would stall every path change.
	 */
	idx = srcu_read_lock(&subsys->srcu);
	ns = nvfab_select_path(head, 0);
	if (!ns)
		ns = nvfab_any_live_path(head);
	if (ns && !nvfab_ns_tryget(ns))
		ns = NULL;
	srcu_read_unlock(&subsys->srcu, idx);
	if (!ns)
		return -ENODEV;
	ret = nvfab_path_ioctl(ns, cmd, (void __user *)arg);
	nvfab_ns_put(ns);
	return ret;
}
