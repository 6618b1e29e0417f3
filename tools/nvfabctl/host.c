// SPDX-License-Identifier: GPL-2.0
/*
 * The host identity, as nvme-cli keeps it: the host NQN in
 * /etc/nvme/hostnqn and the host ID (a UUID) in /etc/nvme/hostid, each the
 * first line of its file ($NVFAB_ETC_NVME instead of /etc/nvme).
 *
 * gen-hostnqn prints a new host NQN, nqn.2014-08.org.nvmexpress:uuid:
 * followed by a UUID: the machine's SMBIOS system UUID
 * (<sysfs>/class/dmi/id/product_uuid, readable by root) when there is a
 * well-formed one, as libnvme does, else a random (version 4) UUID.
 * show-hostnqn prints the host NQN connect uses.
 *
 * Without a host identity the kernel falls back to the one module
 * nvfab-fabrics makes up when it is loaded: a random UUID that changes at
 * every load. A target that admits only known hosts then refuses the host
 * after a reload, so nvfabctl never lets that happen silently.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nvfabctl.h"

#define NVF_ETC_NVME	"/etc/nvme"

static const struct option nvf_help_longopts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ NULL,		0,		NULL, 0 }
};

void nvf_gen_hostnqn_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl gen-hostnqn\n"
		"\n"
		"Print a new host NQN, " NVF_HOSTNQN_PREFIX "<UUID>, from the\n"
		"system UUID (SMBIOS) or else a random UUID. To make it the\n"
		"identity connect uses:\n"
		"  nvfabctl gen-hostnqn > /etc/nvme/hostnqn\n"
		"\n"
		"  -h, --help          show this help\n");
}

void nvf_show_hostnqn_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl show-hostnqn\n"
		"\n"
		"Print the host NQN connect uses, from /etc/nvme/hostnqn.\n"
		"\n"
		"  -h, --help          show this help\n");
}

const char *nvf_etc_dir(void)
{
	const char *etc = getenv("NVFAB_ETC_NVME");

	return etc && *etc ? etc : NVF_ETC_NVME;
}

/* The first line of <etc>/@file, trimmed, malloc'ed; NULL if none. */
char *nvf_etc_read(const char *file)
{
	char path[4096], line[512], *s, *end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", nvf_etc_dir(), file);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	s = fgets(line, sizeof(line), f);
	fclose(f);
	if (!s)
		return NULL;
	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r\n", end[-1]))
		end--;
	*end = '\0';
	return *s ? strdup(s) : NULL;
}

bool nvf_uuid_valid(const char *s)
{
	int i;

	if (strlen(s) != NVF_UUID_LEN)
		return false;
	for (i = 0; i < NVF_UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

/*
 * Say why connecting without a host identity is a trap, and the fix; once
 * per run, however many connects (config apply) lack it.
 */
void nvf_warn_no_host_identity(void)
{
	static bool warned;
	const char *etc = nvf_etc_dir();

	if (warned)
		return;
	warned = true;
	nvf_warn("no host identity (%s/hostnqn): module nvfab-fabrics uses a random one that changes at every load, so host ACLs on the target will break after a reload; fix: nvfabctl gen-hostnqn > %s/hostnqn",
		 etc, etc);
}

/* The SMBIOS system UUID, lower case, into @buf; -1 if none is usable. */
static int nvf_system_uuid(char *buf)
{
	char path[4096], line[64];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/class/dmi/id/product_uuid",
		 nvf_sysfs_root());
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (!nvf_uuid_valid(line))
		return -1;
	/* an all-zero or all-F UUID means the firmware did not set one */
	if (strspn(line, "0-") == NVF_UUID_LEN ||
	    strspn(line, "fF-") == NVF_UUID_LEN)
		return -1;
	for (i = 0; i < NVF_UUID_LEN; i++)
		buf[i] = (char)tolower((unsigned char)line[i]);
	buf[NVF_UUID_LEN] = '\0';
	return 0;
}

/* A random (version 4, RFC 9562) UUID into @buf. Return: 0 or -errno. */
static int nvf_random_uuid(char *buf)
{
	unsigned char u[16];
	size_t got = 0;
	ssize_t ret;
	int i, off = 0;

	while (got < sizeof(u)) {
		ret = getrandom(u + got, sizeof(u) - got, 0);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		got += ret;
	}
	u[6] = (u[6] & 0x0f) | 0x40;	/* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80;	/* variant 10 */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[off++] = '-';
		off += sprintf(buf + off, "%02x", u[i]);
	}
	return 0;
}

/*
 * These commands take -h and nothing else. Return: the exit status when
 * done (help shown, or a bad command line reported), else -1.
 */
static int nvf_no_options(int argc, char **argv, void (*usage)(FILE *f))
{
	int c = nvf_getopt(argc, argv, ":h", nvf_help_longopts);

	if (c == 'h') {
		usage(stdout);
		return NVF_EXIT_OK;
	}
	if (c != -1 || nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	return -1;
}

int nvf_gen_hostnqn(int argc, char **argv)
{
	char uuid[NVF_UUID_LEN + 1];
	int ret;

	ret = nvf_no_options(argc, argv, nvf_gen_hostnqn_usage);
	if (ret >= 0)
		return ret;
	if (nvf_system_uuid(uuid)) {
		ret = nvf_random_uuid(uuid);
		if (ret) {
			nvf_err("cannot get random bytes: %s", strerror(-ret));
			return NVF_EXIT_FAIL;
		}
	}
	printf("%s%s\n", NVF_HOSTNQN_PREFIX, uuid);
	return NVF_EXIT_OK;
}

int nvf_show_hostnqn(int argc, char **argv)
{
	const char *etc = nvf_etc_dir();
	char *nqn;
	int ret;

	ret = nvf_no_options(argc, argv, nvf_show_hostnqn_usage);
	if (ret >= 0)
		return ret;
	nqn = nvf_etc_read("hostnqn");
	if (!nqn) {
		nvf_err("no host NQN in %s/hostnqn: connect would use the random identity of module nvfab-fabrics, which changes at every load; create one: nvfabctl gen-hostnqn > %s/hostnqn",
			etc, etc);
		return NVF_EXIT_FAIL;
	}
	nvf_sanitize(nqn);
	printf("%s\n", nqn);
	free(nqn);
	return NVF_EXIT_OK;
}
