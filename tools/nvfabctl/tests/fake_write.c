// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for run.sh: wraps write(2) on descriptors above 2, which
 * in nvfabctl connect is only the fabrics device.
 *
 *   NVFAB_FAKE_WRITE_LOG=FILE	append the byte count of each call to FILE
 *   NVFAB_FAKE_WRITE_ERRNO=N	fail every call with errno N
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int fd, const void *buf, size_t count);

ssize_t write(int fd, const void *buf, size_t count)
{
	static write_fn real_write;
	const char *log, *err;
	char line[64];
	int lfd, n;

	if (!real_write)
		real_write = (write_fn)dlsym(RTLD_NEXT, "write");
	if (fd <= 2)
		return real_write(fd, buf, count);

	log = getenv("NVFAB_FAKE_WRITE_LOG");
	if (log) {
		lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lfd >= 0) {
			n = snprintf(line, sizeof(line), "%zu\n", count);
			real_write(lfd, line, n);
			close(lfd);
		}
	}
	err = getenv("NVFAB_FAKE_WRITE_ERRNO");
	if (err) {
		errno = atoi(err);
		return -1;
	}
	return real_write(fd, buf, count);
}
