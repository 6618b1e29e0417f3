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
 * gen-hostid prints such a UUID alone. show-hostnqn and show-hostid print
 * the identity connect uses (nvf_host_ids()).
 *
 * A site-assigned host NQN (no ":uuid:" part) in hostnqn without a hostid
 * file is used, as nvme-cli uses it: its host ID is derived once (the
 * system UUID, else a random one) and stored in hostid, so that it never
 * changes behind the admin's back.
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
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

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

void nvf_gen_hostid_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl gen-hostid\n"
		"\n"
		"Print a new host ID: the system UUID (SMBIOS) or else a random\n"
		"UUID. To make it the host ID connect uses:\n"
		"  nvfabctl gen-hostid > /etc/nvme/hostid\n"
		"\n"
		"  -h, --help          show this help\n");
}

void nvf_show_hostid_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl show-hostid\n"
		"\n"
		"Print the host ID connect uses: /etc/nvme/hostid, else the UUID\n"
		"of a uuid host NQN, else the one connect derives from the system\n"
		"UUID for a site-assigned host NQN.\n"
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
 * A new UUID into @buf: the system UUID, else a random one; *@system
 * (if not NULL) says which. Return: 0, or -1 after reporting.
 */
static int nvf_new_uuid(char *buf, bool *system)
{
	int ret;

	if (!nvf_system_uuid(buf)) {
		if (system)
			*system = true;
		return 0;
	}
	if (system)
		*system = false;
	ret = nvf_random_uuid(buf);
	if (ret) {
		nvf_err("cannot get random bytes: %s", strerror(-ret));
		return -1;
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
	if (nvf_new_uuid(uuid, NULL))
		return NVF_EXIT_FAIL;
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

/* Store @id as <etc>/hostid, never over an existing file. Return: 0/-errno */
static int nvf_store_hostid(const char *id)
{
	char path[4096], line[NVF_UUID_LEN + 2];
	int fd, err = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/hostid", nvf_etc_dir());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%s\n", id);
	if (write(fd, line, n) != n)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(path);
	return err;
}

static bool nvf_host_store = true;
static bool nvf_host_show;	/* show-hostid: a random ID is no answer */

void nvf_host_no_store(void)
{
	nvf_host_store = false;
}

/*
 * The host ID of host NQN @nqn from the hostnqn file when hostid has none:
 * the system UUID, else a random one, stored in hostid unless this run
 * stores nothing (--dry-run, config check). Return: malloc'ed, or NULL
 * after reporting.
 */
static char *nvf_derive_hostid(void)
{
	const char *etc = nvf_etc_dir();
	char uuid[NVF_UUID_LEN + 1];
	bool system;
	int ret;

	if (nvf_new_uuid(uuid, &system))
		return NULL;
	if (!nvf_host_store && !system && nvf_host_show) {
		nvf_err("no host ID yet for the host NQN in %s/hostnqn: the first connect stores a random one in %s/hostid; or create one: nvfabctl gen-hostid > %s/hostid",
			etc, etc, etc);
		return NULL;
	}
	if (!nvf_host_store) {
		if (!system)
			nvf_warn("%s/hostnqn has no host ID: connect will store a new random one in %s/hostid",
				 etc, etc);
		return strdup(uuid);
	}
	ret = nvf_store_hostid(uuid);
	if (ret && !system) {
		nvf_err("%s/hostnqn has no host ID and a new one cannot be stored in %s/hostid: %s; create one: nvfabctl gen-hostid > %s/hostid",
			etc, etc, strerror(-ret), etc);
		return NULL;
	}
	if (ret)
		nvf_warn("cannot store host ID %s in %s/hostid (%s): using the system UUID, which stays the same",
			 uuid, etc, strerror(-ret));
	else
		fprintf(stderr,
			"nvfabctl: %s: stored host ID %s in %s/hostid for the host NQN in %s/hostnqn (from the %s)\n",
			nvf_verb, uuid, etc, etc,
			system ? "system UUID" : "random number generator");
	return strdup(uuid);
}

int nvf_host_ids(const char *nqn_arg, const char *id_arg, char **nqn,
		 char **id)
{
	const char *etc = nvf_etc_dir();
	const char *u;

	*nqn = nqn_arg ? strdup(nqn_arg) : nvf_etc_read("hostnqn");
	*id = id_arg ? strdup(id_arg) : nvf_etc_read("hostid");

	if (*id && !nvf_uuid_valid(*id)) {
		if (id_arg)
			nvf_err("invalid --hostid '%s': not a UUID", *id);
		else
			nvf_err("invalid host ID in %s/hostid: not a UUID", etc);
		goto fail;
	}
	if (*nqn && !*id) {
		u = strstr(*nqn, ":uuid:");
		if (u && nvf_uuid_valid(u + 6))
			*id = strdup(u + 6);
	}
	if (*nqn && !*id) {
		if (nqn_arg) {
			nvf_err("--hostnqn needs --hostid (none in %s/hostid): the kernel refuses a host NQN without its host ID",
				etc);
			goto fail;
		}
		*id = nvf_derive_hostid();
		if (!*id)
			goto fail;
	} else if (*id && !*nqn) {
		if (id_arg) {
			nvf_err("--hostid needs --hostnqn (none in %s/hostnqn): the kernel refuses a host ID without its host NQN",
				etc);
			goto fail;
		}
		nvf_warn("ignoring %s/hostid: no host NQN to pair it with", etc);
		free(*id);
		*id = NULL;
	}
	return 0;

fail:
	free(*nqn);
	free(*id);
	*nqn = *id = NULL;
	return -1;
}

int nvf_gen_hostid(int argc, char **argv)
{
	char uuid[NVF_UUID_LEN + 1];
	int ret;

	ret = nvf_no_options(argc, argv, nvf_gen_hostid_usage);
	if (ret >= 0)
		return ret;
	if (nvf_new_uuid(uuid, NULL))
		return NVF_EXIT_FAIL;
	printf("%s\n", uuid);
	return NVF_EXIT_OK;
}

int nvf_show_hostid(int argc, char **argv)
{
	const char *etc = nvf_etc_dir();
	char *nqn, *id;
	int ret;

	ret = nvf_no_options(argc, argv, nvf_show_hostid_usage);
	if (ret >= 0)
		return ret;
	/* what connect would use, stored nowhere: show changes nothing */
	nvf_host_no_store();
	nvf_host_show = true;
	if (nvf_host_ids(NULL, NULL, &nqn, &id))
		return NVF_EXIT_FAIL;
	if (!id) {
		nvf_err("no host identity in %s/hostnqn: connect would use the random identity of module nvfab-fabrics, which changes at every load; create one: nvfabctl gen-hostnqn > %s/hostnqn",
			etc, etc);
		free(nqn);
		return NVF_EXIT_FAIL;
	}
	printf("%s\n", id);
	free(nqn);
	free(id);
	return NVF_EXIT_OK;
}
