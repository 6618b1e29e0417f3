/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-core's configfs tree, /sys/kernel/config/nvfab/: per-subsystem
 * multipath policy that an administrator sets before the first connect.
 * Documented in Documentation/ABI/testing/configfs-nvfab and
 * Documentation/admin-guide/nvfab-multipath.rst.
 */
#ifndef _NVFAB_CONFIGFS_H
#define _NVFAB_CONFIGFS_H

#include <linux/types.h>

struct config_group;

/* Longest iopolicy (selector) name, without the NUL. */
#define NVFAB_IOPOLICY_NAME_MAX		31

/* Largest no_path_tmo, in seconds. */
#define NVFAB_NO_PATH_TMO_MAX		3600

/**
 * struct nvfab_subsys_cfg - policy of one subsystem NQN, set in configfs
 * @iopolicy:	path selector name, NUL terminated; "" when never written
 *		(use the module default)
 * @no_path_tmo: seconds a namespace waits with no usable path before its
 *		I/O fails, 1 to %NVFAB_NO_PATH_TMO_MAX; 0 = auto (the
 *		multipath code's default)
 */
struct nvfab_subsys_cfg {
	char	iopolicy[NVFAB_IOPOLICY_NAME_MAX + 1];
	int	no_path_tmo;
};

int nvfab_configfs_init(void);
void nvfab_configfs_exit(void);
int nvfab_configfs_register_group(struct config_group *group);
void nvfab_configfs_unregister_group(struct config_group *group);
bool nvfab_configfs_subsys_cfg(const char *subnqn,
			       struct nvfab_subsys_cfg *cfg);
/* also the parser of sysfs nvfab-subsysX/no_path_tmo */
int nvfab_cfg_parse_no_path_tmo(const char *buf, size_t count, int *secs);

#if IS_ENABLED(CONFIG_KUNIT)
int nvfab_cfg_parse_iopolicy(const char *buf, size_t count, char *name);
int nvfab_cfg_check_nqn(const char *name, const char **why);
#endif

#endif /* _NVFAB_CONFIGFS_H */
