/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab core: controller objects, device classes and workqueues shared by
 * every nvfab module.
 */
#ifndef _NVFAB_CORE_H
#define _NVFAB_CORE_H

#include <linux/device.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct nvfab_ctrl_options;

/**
 * struct nvfab_ctrl - an NVMe controller reached over a fabric
 * @instance:	N of /dev/nvfabN, unique while the controller exists
 * @cntlid:	Controller ID returned by the target in the Connect response
 * @opts:	the connect options this controller was created from, owned
 */
struct nvfab_ctrl {
	int				instance;
	u16				cntlid;
	struct nvfab_ctrl_options	*opts;
};

/*
 * Workqueues. nvfab_wq runs scans, AEN handling and keep-alive; reset work
 * runs on nvfab_reset_wq and deletion on nvfab_delete_wq, so that a delete
 * may flush a reset and a reset may flush scan work, never the reverse.
 */
extern struct workqueue_struct *nvfab_wq;
extern struct workqueue_struct *nvfab_reset_wq;
extern struct workqueue_struct *nvfab_delete_wq;

extern const struct class nvfab_class;
extern const struct class nvfab_subsys_class;

int nvfab_instance_get(void);
void nvfab_instance_put(int instance);

#endif /* _NVFAB_CORE_H */
