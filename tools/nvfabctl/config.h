/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl config: the boot-time configuration file (config.c), and what
 * it uses of the connect verb (connect.c).
 */
#ifndef NVFABCTL_CONFIG_H
#define NVFABCTL_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

/* connect.c */
char *nvf_connect_string(int argc, char **argv);
int nvf_connect_write(const char *transport, const char *opts, int *instance,
		      int *cntlid);
char *nvf_shown_options(const char *s);

/* config.c */
int nvf_config(int argc, char **argv);
char *nvf_configfs_dir(void);
int nvf_find_ctrl_opts(const char *opts, char *name, size_t size);
void nvf_config_usage(FILE *f);
bool nvf_conf_value_ok(const char *v);

/* import.c */
int nvf_config_import(const char *json, const char *disc);

#endif /* NVFABCTL_CONFIG_H */
