// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab beside the in-kernel NVMe host. Both can connect the same
 * subsystem (nvme-cli's nvmf-autoconnect.service connects what
 * /etc/nvme/discovery.conf and /etc/nvme/config.json list at boot); its
 * namespaces then show up twice, as /dev/nvmeXnY and /dev/nvfabXnY, and a
 * file system mounted through both is corrupted. Before each connect,
 * nvfabctl looks for the subsystem NQN among the in-kernel host's
 * subsystems (<sysfs>/class/nvme-subsystem/<name>/subsysnqn) and warns;
 * and discover/connect-all, reading nvme-cli's discovery.conf, warn when
 * nvmf-autoconnect.service is enabled ($NVFAB_ETC_SYSTEMD instead of
 * /etc/systemd/system, for tests).
 * Documented in Documentation/admin-guide/nvfab-multipath.rst ("Beside
 * nvme-cli and dm-multipath").
 */
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

#define NVF_NQN_SIZE	224	/* NVMe Base 2.0, 4.5: 223 bytes and a NUL */

void nvf_warn_kernel_host(const char *opts)
{
	char nqn[NVF_NQN_SIZE], names[256] = "", *dir, *sub, *v;
	struct dirent *de;
	size_t len = 0;
	DIR *d;

	nvf_opt_value(opts, "nqn", nqn, sizeof(nqn));
	dir = nvf_path(nvf_sysfs_root(), "class/nvme-subsystem");
	d = dir ? opendir(dir) : NULL;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		sub = nvf_path(dir, de->d_name);
		v = sub ? nvf_attr_read(sub, "subsysnqn") : NULL;
		if (v && nqn[0] && !strcmp(v, nqn) && len < sizeof(names) - 1)
			len += snprintf(names + len, sizeof(names) - len, "%s%s",
					len ? ", " : "", de->d_name);
		free(v);
		free(sub);
	}
	if (d)
		closedir(d);
	free(dir);
	if (!len)
		return;
	nvf_sanitize(names);
	nvf_sanitize(nqn);
	nvf_warn("subsystem %s is also connected by the in-kernel NVMe host (%s): its namespaces show up twice, as /dev/nvmeXnY and /dev/nvfabXnY, and must be used through one host only; 'nvme disconnect -n %s' ends the other (at boot nvme-cli's nvmf-autoconnect.service connects what /etc/nvme/discovery.conf and config.json list)",
		 nqn, names, nqn);
}

/*
 * @path, nvme-cli's discovery.conf, is being read: if nvme-cli's
 * nvmf-autoconnect.service is enabled, it connects the same entries with
 * the in-kernel host at boot; say so.
 */
void nvf_warn_autoconnect(const char *path)
{
	const char *etc = getenv("NVFAB_ETC_SYSTEMD");
	char pattern[4096];
	glob_t g = { 0 };

	snprintf(pattern, sizeof(pattern), "%s/*.wants/nvmf-autoconnect.service",
		 etc && *etc ? etc : "/etc/systemd/system");
	if (!glob(pattern, 0, NULL, &g) && g.gl_pathc)
		nvf_warn("nvme-cli's nvmf-autoconnect.service is enabled (%s): at boot it connects the entries of %s with the in-kernel NVMe host too; keep that file for one host only (nvfab's boot connects belong in /etc/nvfab/nvfab.conf)",
			 g.gl_pathv[0], path);
	globfree(&g);
}
