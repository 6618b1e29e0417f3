// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own words for a refused request: nvfab's modules say in the
 * kernel log which option or value they refused ("queue_size 8 is outside
 * 16..1024"), and errno alone cannot. nvf_kmsg_mark() opens /dev/kmsg
 * ($NVFAB_KMSG instead, for tests) at its end before the request;
 * nvf_kmsg_since() then returns what nvfab's modules logged after it.
 * Reading /dev/kmsg needs root or dmesg_restrict=0, as connecting does;
 * without it the caller falls back to "see dmesg".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvfabctl.h"

/* The most of the kernel's text quoted in one error line, in bytes. */
#define NVF_KMSG_MAX	512

int nvf_kmsg_mark(void)
{
	const char *path = getenv("NVFAB_KMSG");
	int fd;

	if (!path || !*path)
		path = "/dev/kmsg";
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Append the message of record @rec ("PRI,SEQ,TS,FLAGS;TEXT") if ours. */
static void nvf_kmsg_add(char *out, size_t *len, const char *rec)
{
	const char *text = strchr(rec, ';');
	size_t n;

	if (!text || strncmp(text + 1, "nvfab", 5))
		return;
	text++;
	n = strlen(text);
	if (*len && *len + 2 < NVF_KMSG_MAX) {
		memcpy(out + *len, "; ", 2);
		*len += 2;
	}
	if (*len + n >= NVF_KMSG_MAX)
		n = NVF_KMSG_MAX - 1 - *len;
	memcpy(out + *len, text, n);
	*len += n;
	out[*len] = '\0';
}

char *nvf_kmsg_since(int fd)
{
	char buf[8192], *out, *line, *next;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	out = calloc(1, NVF_KMSG_MAX);
	if (!out) {
		close(fd);
		return NULL;
	}
	/* /dev/kmsg gives one record per read; a file, many lines */
	for (;;) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		/* EPIPE: records overwritten meanwhile; go on reading */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		buf[n] = '\0';
		for (line = buf; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			/* continuation lines (" KEY=value") are not messages */
			if (*line != ' ')
				nvf_kmsg_add(out, &len, line);
		}
	}
	close(fd);
	if (!len) {
		free(out);
		return NULL;
	}
	nvf_sanitize(out);
	return out;
}
