/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of module nvfab-core.
 */
#ifndef _NVFAB_PRIV_H
#define _NVFAB_PRIV_H

#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/uuid.h>

#include <nvfab/core.h>

/* Seconds: default command timeouts, as the in-kernel host. */
#define NVFAB_ADMIN_TIMEOUT	(60 * HZ)
#define NVFAB_IO_TIMEOUT	(30 * HZ)

/**
 * struct nvfab_ns - one namespace of one controller, with its block device
 * @list:	entry in ctrl->namespaces (protected by namespaces_rwsem)
 * @ctrl:	the controller
 * @disk:	the gendisk, /dev/nvfabCnN
 * @nsid:	Namespace ID
 * @scan_gen:	the last scan that saw this namespace active
 * @lba_shift:	log2 of the LBA data size in bytes
 * @ms:		metadata bytes per LBA (namespaces with metadata are refused)
 * @nguid:	Namespace Globally Unique Identifier, or zeroes
 * @eui64:	IEEE Extended Unique Identifier, or zeroes
 * @uuid:	Namespace UUID, or zeroes
 */
struct nvfab_ns {
	struct list_head	list;
	struct nvfab_ctrl	*ctrl;
	struct gendisk		*disk;
	u32			nsid;
	u32			scan_gen;
	u8			lba_shift;
	u16			ms;
	u8			nguid[16];
	u8			eui64[8];
	uuid_t			uuid;
};

/* A namespace's identifiers, as read from the controller. */
struct nvfab_ns_ids {
	u8	nguid[16];
	u8	eui64[8];
	uuid_t	uuid;
};

/* ns.c */
#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_parse_ns_descs(const u8 *buf, size_t len, struct nvfab_ns_ids *ids,
			 struct device *dev);
#endif
void nvfab_scan_work(struct work_struct *work);
void nvfab_remove_namespaces(struct nvfab_ctrl *ctrl);
void nvfab_quiesce_io_queues(struct nvfab_ctrl *ctrl);
void nvfab_unquiesce_io_queues(struct nvfab_ctrl *ctrl);
void nvfab_kick_requeue_lists(struct nvfab_ctrl *ctrl);
blk_status_t nvfab_setup_ns_cmd(struct nvfab_ns *ns, struct request *rq,
				struct nvme_command *cmd);
extern const struct block_device_operations nvfab_bdev_ops;

/* sysfs.c */
extern const struct attribute_group *nvfab_ctrl_attr_groups[];

/* ioctl.c */
long nvfab_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int nvfab_ns_ioctl(struct block_device *bdev, blk_mode_t mode,
		   unsigned int cmd, unsigned long arg);

/* core.c */
void nvfab_stop_keep_alive(struct nvfab_ctrl *ctrl);
int nvfab_queue_scan(struct nvfab_ctrl *ctrl);

#endif /* _NVFAB_PRIV_H */
