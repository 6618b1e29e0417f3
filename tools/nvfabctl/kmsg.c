// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own words for a refused request: nvfab's modules say in the
 * kernel log which option or value they refused ("queue_size 8 is outside
 * 16..1024"), and errno alone cannot. nvf_kmsg_mark() opens /dev/kmsg
 * ($NVFAB_KMSG instead, for tests) at its end before the request;
 * nvf_kmsg_since() then returns what nvfab's modules logged after it:
 * only the records that name the request's target address when some do,
 * since connects running in parallel ("config apply") log at the same
 * time.
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

/* Is record @rec ("PRI,SEQ,TS,FLAGS;TEXT") nvfab's? Its TEXT, or NULL. */
static const char *nvf_kmsg_ours(const char *rec)
{
	const char *text = strchr(rec, ';');

	return text && !strncmp(text + 1, "nvfab", 5) ? text + 1 : NULL;
}

/* Append @text to @out (@len of @cap bytes used), after @sep if not first. */
static void nvf_kmsg_add(char *out, size_t *len, size_t cap, const char *text,
			 const char *sep)
{
	size_t n = strlen(text), slen = strlen(sep);

	if (*len && *len + slen < cap) {
		memcpy(out + *len, sep, slen);
		*len += slen;
	}
	if (*len + n >= cap)
		n = cap - 1 - *len;
	memcpy(out + *len, text, n);
	*len += n;
	out[*len] = '\0';
}

char *nvf_kmsg_since(int fd, const char *opts)
{
	char buf[8192], addr[256], *out, *all, *line, *next;
	size_t len = 0, all_len = 0, all_cap = NVF_KMSG_MAX * 8;
	const char *text;
	bool only = false;
	ssize_t n;

	if (fd < 0)
		return NULL;
	out = calloc(1, NVF_KMSG_MAX);
	all = calloc(1, all_cap);
	if (!out || !all) {
		free(out);
		free(all);
		close(fd);
		return NULL;
	}
	nvf_opt_value(opts, "traddr", addr, sizeof(addr));
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
			text = *line != ' ' ? nvf_kmsg_ours(line) : NULL;
			if (!text)
				continue;
			nvf_kmsg_add(all, &all_len, all_cap, text, "\n");
			only |= addr[0] && strstr(text, addr);
		}
	}
	close(fd);
	/* what to quote: the records that name the target, if some do */
	for (line = all; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!only || strstr(line, addr))
			nvf_kmsg_add(out, &len, NVF_KMSG_MAX, line, "; ");
	}
	free(all);
	if (!len) {
		free(out);
		return NULL;
	}
	nvf_sanitize(out);
	return out;
}
