// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for run.sh: wraps write(2) on descriptors above 2, which
 * in nvfabctl connect is only the fabrics device, and answers the NVMe
 * ioctls that nvfabctl list sends to a namespace's block device.
 *
 *   NVFAB_FAKE_WRITE_LOG=FILE	append the byte count of each call to FILE
 *   NVFAB_FAKE_WRITE_ERRNO=N	fail every call with errno N
 *   NVFAB_FAKE_WRITE_DELAY_MS=N	take N ms first (a target slow to answer)
 *   NVFAB_FAKE_WRITE_KMSG=TEXT	and first append the record "3,1,0,-;TEXT"
 *				to the file NVFAB_KMSG names (the kernel's
 *				log of the refusal); '|' separates records
 *   NVFAB_FAKE_WRITE_FAILS=N	fail only the first N calls with
 *				NVFAB_FAKE_WRITE_ERRNO, counted by the lines
 *				of NVFAB_FAKE_WRITE_LOG (so across processes)
 *   NVFAB_FAKE_WRITE_CONC=DIR	log "conc N" to NVFAB_FAKE_WRITE_LOG: how
 *				many calls are inside write at once (a file
 *				per call in DIR, made before the delay and
 *				removed after it)
 *   NVFAB_FAKE_IDNS=NSZE,NUSE,LBADS[,FLBAS,NLBAF]
 *				answer Identify Namespace with these (one
 *				LBA format, index FLBAS, default 0) and
 *				NVME_IOCTL_ID with 1; also log "id NSID"
 *				to NVFAB_FAKE_WRITE_LOG
 *   NVFAB_FAKE_WRITE_DATA=FILE	append what each call writes, and a newline
 *   NVFAB_FAKE_DLP=FILE	answer Get Log Page 70h (discovery) from FILE
 *				(zeros past its end), or, if FILE is a
 *				directory, from FILE/<device name>; log
 *				"dlp OFFSET LEN RAE" to NVFAB_FAKE_WRITE_LOG
 *   NVFAB_FAKE_DLP_GENCTR_INC=1
 *				add the number of calls so far to each
 *				GENCTR read (a log that never settles)
 *   NVFAB_FAKE_DLP_NEXT=FILE, NVFAB_FAKE_DLP_SWITCH=N
 *				from the (N+1)th Get Log Page on, answer
 *				from this FILE instead (a log that changes
 *				during a read)
 *   NVFAB_FAKE_DLP_STATUS=S	answer Get Log Page with NVMe status S
 *   NVFAB_FAKE_MKDIR_ATTRS="A B ..."
 *				mkdir(2) also makes empty files A, B, ...
 *				in the new directory and rmdir(2) removes
 *				them first, as configfs has its attributes
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int fd, const void *buf, size_t count);

static write_fn real_write;

/* How many lines NVFAB_FAKE_WRITE_LOG has: the calls so far, this one too. */
static int log_lines(void)
{
	const char *log = getenv("NVFAB_FAKE_WRITE_LOG");
	int c, n = 0;
	FILE *f;

	f = log ? fopen(log, "re") : NULL;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Log "conc N": the files in @dir, one per call inside write now. */
static void log_conc(const char *dir)
{
	const char *log = getenv("NVFAB_FAKE_WRITE_LOG");
	struct dirent *de;
	char line[32];
	int n = 0, lfd, len;
	DIR *d;

	d = opendir(dir);
	if (!d || !log)
		goto out;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lfd >= 0) {
		len = snprintf(line, sizeof(line), "conc %d\n", n);
		real_write(lfd, line, len);
		close(lfd);
	}
out:
	if (d)
		closedir(d);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const char *log, *err, *conc;
	char line[64], me[4096];
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
	log = getenv("NVFAB_FAKE_WRITE_DATA");
	if (log) {
		lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lfd >= 0) {
			real_write(lfd, buf, count);
			real_write(lfd, "\n", 1);
			close(lfd);
		}
	}
	conc = getenv("NVFAB_FAKE_WRITE_CONC");
	if (conc) {
		snprintf(me, sizeof(me), "%s/%d", conc, (int)getpid());
		lfd = open(me, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (lfd >= 0)
			close(lfd);
		log_conc(conc);
	}
	err = getenv("NVFAB_FAKE_WRITE_DELAY_MS");
	if (err) {
		long ms = atol(err);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts))
			;
	}
	if (conc)
		unlink(me);
	err = getenv("NVFAB_FAKE_WRITE_ERRNO");
	if (err && getenv("NVFAB_FAKE_WRITE_FAILS") &&
	    log_lines() > atoi(getenv("NVFAB_FAKE_WRITE_FAILS")))
		err = NULL;
	if (err) {
		const char *text = getenv("NVFAB_FAKE_WRITE_KMSG");
		const char *kmsg = getenv("NVFAB_KMSG");

		if (text && kmsg) {
			int kfd = open(kmsg, O_WRONLY | O_APPEND | O_CLOEXEC);

			while (kfd >= 0 && *text) {
				size_t n = strcspn(text, "|");

				real_write(kfd, "3,1,0,-;", 8);
				real_write(kfd, text, n);
				real_write(kfd, "\n", 1);
				text += n + (text[n] == '|');
			}
			if (kfd >= 0)
				close(kfd);
		}
		errno = atoi(err);
		return -1;
	}
	return real_write(fd, buf, count);
}

typedef int (*ioctl_fn)(int fd, unsigned long req, ...);
typedef int (*mkdir_fn)(const char *path, mode_t mode);
typedef int (*rmdir_fn)(const char *path);

/* Each name of NVFAB_FAKE_MKDIR_ATTRS under @dir: made, or removed. */
static void fake_attrs(const char *dir, int make)
{
	const char *names = getenv("NVFAB_FAKE_MKDIR_ATTRS");
	char path[4096], name[64];
	int n, off = 0, fd;

	while (names && sscanf(names + off, "%63s%n", name, &n) == 1) {
		off += n;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (make) {
			fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		} else {
			unlink(path);
		}
	}
}

int mkdir(const char *path, mode_t mode)
{
	mkdir_fn real_mkdir = (mkdir_fn)dlsym(RTLD_NEXT, "mkdir");
	int ret = real_mkdir(path, mode);

	if (!ret)
		fake_attrs(path, 1);
	return ret;
}

int rmdir(const char *path)
{
	rmdir_fn real_rmdir = (rmdir_fn)dlsym(RTLD_NEXT, "rmdir");

	fake_attrs(path, 0);
	return real_rmdir(path);
}

/* Get Log Page 70h from NVFAB_FAKE_DLP (and _NEXT). */
static int fake_dlp(int dfd, struct nvme_passthru_cmd *cmd)
{
	char proc[64], dev[4096], path[4200];
	struct stat sb;
	ssize_t len;
	static int calls;
	const char *file = getenv("NVFAB_FAKE_DLP");
	const char *next = getenv("NVFAB_FAKE_DLP_NEXT");
	const char *sw = getenv("NVFAB_FAKE_DLP_SWITCH");
	const char *st = getenv("NVFAB_FAKE_DLP_STATUS");
	const char *log = getenv("NVFAB_FAKE_WRITE_LOG");
	unsigned long long off;
	unsigned char *buf;
	char line[96];
	ssize_t got;
	int fd, n;

	off = cmd->cdw12 | (unsigned long long)cmd->cdw13 << 32;
	if (log) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			n = snprintf(line, sizeof(line), "dlp %llu %u %u\n", off,
				     cmd->data_len, cmd->cdw10 >> 15 & 1);
			((write_fn)dlsym(RTLD_NEXT, "write"))(fd, line, n);
			close(fd);
		}
	}
	if (st)
		return (int)strtol(st, NULL, 0);
	if ((cmd->cdw10 & 0xff) != 0x70 ||
	    ((cmd->cdw10 >> 16) + 1) * 4 != cmd->data_len) {
		errno = EINVAL;
		return -1;
	}
	if (next && sw && calls >= atoi(sw))
		file = next;
	calls++;
	if (!stat(file, &sb) && S_ISDIR(sb.st_mode)) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
		len = readlink(proc, dev, sizeof(dev) - 1);
		if (len < 0)
			return -1;
		dev[len] = '\0';
		snprintf(path, sizeof(path), "%s/%s", file,
			 strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev);
		file = path;
	}
	buf = (unsigned char *)(uintptr_t)cmd->addr;
	memset(buf, 0, cmd->data_len);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = pread(fd, buf, cmd->data_len, (off_t)off);
	close(fd);
	if (got < 0)
		return -1;
	if (!off && getenv("NVFAB_FAKE_DLP_GENCTR_INC"))
		buf[0] += (unsigned char)calls;
	return 0;
}

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
	if (req == NVME_IOCTL_ADMIN_CMD && getenv("NVFAB_FAKE_DLP") &&
	    ((struct nvme_passthru_cmd *)arg)->opcode == 0x02)
		return fake_dlp(fd, arg);
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
