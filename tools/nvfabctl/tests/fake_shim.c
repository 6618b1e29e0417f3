// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for run.sh: wraps write(2) on descriptors above 2, which
 * in nvfabctl connect is only the fabrics device, and answers the NVMe
 * ioctls that nvfabctl list sends to a namespace's block device.
 *
 *   NVFAB_FAKE_WRITE_LOG=FILE	append the byte count of each call to FILE
 *   NVFAB_FAKE_WRITE_ERRNO=N	fail every call with errno N
 *   NVFAB_FAKE_IDNS=NSZE,NUSE,LBADS[,FLBAS,NLBAF]
 *				answer Identify Namespace with these (one
 *				LBA format, index FLBAS, default 0) and
 *				NVME_IOCTL_ID with 1; also log "id NSID"
 *				to NVFAB_FAKE_WRITE_LOG
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

typedef int (*ioctl_fn)(int fd, unsigned long req, ...);

static void put_le64(unsigned char *p, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int ioctl(int fd, unsigned long req, ...)
{
	static ioctl_fn real_ioctl;
	unsigned long long nsze = 0, nuse = 0;
	unsigned int lbads = 0, flbas = 0, nlbaf = 0;
	struct nvme_passthru_cmd *cmd;
	const char *spec, *log;
	unsigned char *id;
	char line[64];
	va_list ap;
	void *arg;
	int lfd, n;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	spec = getenv("NVFAB_FAKE_IDNS");
	if (!spec || (req != NVME_IOCTL_ID && req != NVME_IOCTL_ADMIN_CMD))
		return real_ioctl(fd, req, arg);
	if (req == NVME_IOCTL_ID)
		return 1;

	cmd = arg;
	if (sscanf(spec, "%llu,%llu,%u,%u,%u", &nsze, &nuse, &lbads, &flbas,
		   &nlbaf) < 3) {
		errno = EINVAL;
		return -1;
	}
	log = getenv("NVFAB_FAKE_WRITE_LOG");
	if (log) {
		lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lfd >= 0) {
			n = snprintf(line, sizeof(line), "id %u\n", cmd->nsid);
			/* the real write(2): ours would log this one too */
			((write_fn)dlsym(RTLD_NEXT, "write"))(lfd, line, n);
			close(lfd);
		}
	}
	if (cmd->opcode != 0x06 || cmd->cdw10 != 0 || cmd->data_len < 4096) {
		errno = EINVAL;
		return -1;
	}
	id = (unsigned char *)(uintptr_t)cmd->addr;
	memset(id, 0, cmd->data_len);
	put_le64(id, nsze);
	put_le64(id + 16, nuse);
	id[25] = (unsigned char)nlbaf;
	id[26] = (unsigned char)flbas;
	id[128 + 4 * (flbas & 0xf) + 2] = (unsigned char)lbads;
	return 0;
}
