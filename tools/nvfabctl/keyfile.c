// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl: secrets kept in key files.
 *
 * A DH-HMAC-CHAP secret given to --dhchap-secret or --dhchap-ctrl-secret,
 * on the command line or in /etc/nvfab/nvfab.conf, is either the secret
 * itself ("DHHC-1:..." as "nvme gen-dhchap-key" prints it) or the absolute
 * path of a file that holds it. A secret never starts with '/', so the two
 * cannot be confused. A key file keeps the secret out of the process list
 * and out of a configuration file that other tools read.
 *
 * The file must be a regular file (not a symbolic link), owned by root and
 * readable by its owner only (no group or other permission bit: 0600 or
 * 0400), as sshd asks of a host key; anything else is refused, naming the
 * file and what is wrong with it, and the secret is not read. Its content
 * is one line: the secret, with or without a final newline. The secret
 * itself is never printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvfabctl.h"

/* Longest key file in bytes: a DHHC-1 secret of 64 bytes is 98 characters. */
#define NVF_KEY_FILE_MAX	512

/*
 * Read the secret of key file @path for option --@name into a malloc'ed
 * string. Return: the secret, or NULL after reporting why (the file cannot
 * be opened, is a symbolic link or not a regular file, is not owned by
 * root, is readable or writable by group or others, is empty, too long,
 * holds a NUL byte or more than one line).
 */
char *nvf_key_file_read(const char *name, const char *path)
{
	char buf[NVF_KEY_FILE_MAX + 1];
	char *secret = NULL;
	struct stat st;
	ssize_t n;
	size_t len;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			nvf_err("key file %s for --%s is a symbolic link: name the file itself",
				path, name);
		else
			nvf_err("key file %s for --%s: %s", path, name,
				strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		nvf_err("key file %s for --%s: %s", path, name,
			strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		nvf_err("key file %s for --%s is not a regular file", path,
			name);
		goto out_close;
	}
	if (st.st_uid != 0) {
		nvf_err("key file %s for --%s is owned by uid %u: it must be owned by root",
			path, name, (unsigned int)st.st_uid);
		goto out_close;
	}
	if (st.st_mode & 077) {	/* group or others */
		nvf_err("key file %s for --%s has mode %04o: group and others must have no access (chmod 600)",
			path, name, (unsigned int)(st.st_mode & 07777));
		goto out_close;
	}
	len = 0;
	do {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno != EINTR) {
			nvf_err("key file %s for --%s: %s", path, name,
				strerror(errno));
			goto out_wipe;
		}
		if (n > 0)
			len += n;
	} while (n && len < sizeof(buf));
	if (len > NVF_KEY_FILE_MAX) {
		nvf_err("key file %s for --%s is longer than %d bytes", path,
			name, NVF_KEY_FILE_MAX);
		goto out_wipe;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	if (!len) {
		nvf_err("key file %s for --%s is empty", path, name);
		goto out_wipe;
	}
	if (memchr(buf, '\0', len)) {
		nvf_err("key file %s for --%s holds a NUL byte", path, name);
		goto out_wipe;
	}
	if (memchr(buf, '\n', len)) {
		nvf_err("key file %s for --%s holds more than one line", path,
			name);
		goto out_wipe;
	}
	secret = strndup(buf, len);
	if (!secret)
		nvf_err("out of memory");
out_wipe:
	explicit_bzero(buf, sizeof(buf));
out_close:
	close(fd);
	return secret;
}

/* Free @secret, read by nvf_key_file_read(), wiping it first; NULL is fine. */
void nvf_key_free(char *secret)
{
	if (secret) {
		explicit_bzero(secret, strlen(secret));
		free(secret);
	}
}
