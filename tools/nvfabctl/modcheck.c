// SPDX-License-Identifier: GPL-2.0
/*
 * Why nvfab's modules are not loaded, in words an administrator can act
 * on: installed but not loaded; not built because DKMS skipped the
 * running kernel (outside dkms.conf's BUILD_EXCLUSIVE_KERNEL, with the
 * range, the file it came from and the override); or not built although
 * DKMS accepts the kernel (then dkms's log says why).
 *
 * For tests, the environment replaces the host's files:
 *   NVFAB_KERNEL_RELEASE	instead of uname -r
 *   NVFAB_MODULES_DIR		instead of /lib/modules
 *   NVFAB_DKMS_SRC		instead of /usr/src
 *   NVFAB_ETC_DKMS		instead of /etc/dkms
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <glob.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "nvfabctl.h"

#define NVF_DKMS_NAME	"nvfab"
#define NVF_RE_MAX	256

static const char *nvf_env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static char nvf_found_ko[4096];

static int nvf_find_core(const char *path, const struct stat *sb, int type,
			 struct FTW *ftw)
{
	const char *base = path + ftw->base;

	(void)sb;
	if (type == FTW_F && !strncmp(base, "nvfab-core.ko", 13)) {
		snprintf(nvf_found_ko, sizeof(nvf_found_ko), "%s", path);
		return 1;
	}
	return 0;
}

/*
 * The value of "KEY=..." in shell file @path (the last one), unquoted,
 * into @buf; false if the file or the key is missing.
 */
static bool nvf_shell_value(const char *path, const char *key, char *buf,
			    size_t size)
{
	size_t klen = strlen(key), len;
	char line[1024], *v;
	bool found = false;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		v = line + klen + 1;
		v[strcspn(v, "\n")] = '\0';
		len = strlen(v);
		if (len >= 2 && (v[0] == '"' || v[0] == '\'') &&
		    v[len - 1] == v[0]) {
			v[len - 1] = '\0';
			v++;
		}
		len = strlen(v);
		if (len >= size)
			len = size - 1;
		memcpy(buf, v, len);
		buf[len] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

/**
 * nvf_module_why() - why nvfab-core is not loaded, for an error message
 * @buf: the sentence, sanitized
 * @size: of @buf
 *
 * Looks for nvfab-core.ko* under the running kernel's module tree, then
 * at the newest /usr/src/nvfab-VERSION/dkms.conf and /etc/dkms/nvfab.conf
 * for the kernel range DKMS builds for. Reads files only; never fails.
 */
void nvf_module_why(char *buf, size_t size)
{
	char moddir[4096], re[NVF_RE_MAX] = "", pattern[4096];
	char override[4096], conf[4096] = "", ver[64] = "?";
	const char *rel, *from = conf, *p;
	struct utsname u;
	glob_t g = { 0 };
	regex_t rx;
	bool match;

	rel = getenv("NVFAB_KERNEL_RELEASE");
	if (!rel || !*rel)
		rel = uname(&u) ? "?" : u.release;
	snprintf(moddir, sizeof(moddir), "%s/%s",
		 nvf_env_or("NVFAB_MODULES_DIR", "/lib/modules"), rel);
	nvf_found_ko[0] = '\0';
	nftw(moddir, nvf_find_core, 16, FTW_PHYS);
	if (nvf_found_ko[0]) {
		snprintf(buf, size,
			 "nvfab's modules are installed for the running kernel %s (%s) but not loaded: load them with 'modprobe nvfab-tcp' or 'modprobe nvfab-rdma'; at boot systemd-modules-load loads those of modules-load.d/nvfab.conf (journalctl -b -u systemd-modules-load says why it did not)",
			 rel, nvf_found_ko);
		nvf_sanitize(buf);
		return;
	}

	snprintf(pattern, sizeof(pattern), "%s/" NVF_DKMS_NAME "-*/dkms.conf",
		 nvf_env_or("NVFAB_DKMS_SRC", "/usr/src"));
	if (!glob(pattern, 0, NULL, &g) && g.gl_pathc) {
		/* glob sorts: the last is the newest of equal-length versions */
		snprintf(conf, sizeof(conf), "%s", g.gl_pathv[g.gl_pathc - 1]);
		p = strstr(conf, "/" NVF_DKMS_NAME "-");
		if (p)
			snprintf(ver, sizeof(ver), "%.*s",
				 (int)strcspn(p + 7, "/"), p + 7);
		nvf_shell_value(conf, "BUILD_EXCLUSIVE_KERNEL", re, sizeof(re));
	}
	globfree(&g);
	if (!conf[0]) {
		snprintf(buf, size,
			 "nvfab's modules are not installed for the running kernel %s (nothing under %s), and no DKMS source of nvfab is in %s: install the nvfab-dkms package or the modules (README.md, 'Installing on a host with DKMS')",
			 rel, moddir, nvf_env_or("NVFAB_DKMS_SRC", "/usr/src"));
		nvf_sanitize(buf);
		return;
	}
	snprintf(override, sizeof(override), "%s/" NVF_DKMS_NAME ".conf",
		 nvf_env_or("NVFAB_ETC_DKMS", "/etc/dkms"));
	if (nvf_shell_value(override, "BUILD_EXCLUSIVE_KERNEL", re, sizeof(re)))
		from = override;

	match = re[0] && !regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
	if (match) {
		match = !regexec(&rx, rel, 0, NULL, 0);
		regfree(&rx);
	} else {
		match = true;	/* no range, or one we cannot read: not the cause */
	}
	if (!match)
		snprintf(buf, size,
			 "nvfab's modules are not built for the running kernel %s: DKMS builds nvfab %s only for kernels matching BUILD_EXCLUSIVE_KERNEL=\"%s\" (%s), the range it is tested on; to build it for this kernel anyway, override the range in %s and run 'dkms install %s/%s -k %s' (README.md, 'Kernels')",
			 rel, ver, re, from, override, NVF_DKMS_NAME, ver, rel);
	else
		snprintf(buf, size,
			 "nvfab's modules are not installed for the running kernel %s although DKMS accepts it (%s): see 'dkms status %s' and /var/lib/dkms/%s/%s/build/make.log (are the headers of %s installed?)",
			 rel, from, NVF_DKMS_NAME, NVF_DKMS_NAME, ver, rel);
	nvf_sanitize(buf);
}
