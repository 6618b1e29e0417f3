// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's connect-option grammar applied before anything reaches the
 * kernel: each value of a connect (the command line, a configuration
 * line, a discovery entry's options) is checked against the table the
 * kernel's parser is tested against (include/uapi/nvfab/fabrics-opts.h), and
 * the addresses and ports against what the tcp and rdma transports accept
 * when they connect. A host name is resolved here, as nvme-cli does: the
 * kernel takes numeric addresses only.
 *
 * Every check reports its own error and the callers go on to the next
 * value, so that one run names every error of a line.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <uapi/nvfab/fabrics.h>

#include "nvfabctl.h"

static const struct nvfab_opt_rule nvf_opt_rules[] = {
#define NVFAB_OPT(k, kd, lo, hi)	{ k, kd, lo, hi },
#include <uapi/nvfab/fabrics-opts.h>
#undef NVFAB_OPT
};

static const char * const nvf_transports[] = { "tcp", "rdma" };

static const struct nvfab_opt_rule *nvf_opt_rule(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nvf_opt_rules); i++)
		if (!strcmp(nvf_opt_rules[i].key, key))
			return &nvf_opt_rules[i];
	return NULL;
}

bool nvf_opt_known(const char *key, bool *takes_value)
{
	const struct nvfab_opt_rule *r = nvf_opt_rule(key);

	if (r && takes_value)
		*takes_value = r->kind != NVFAB_OPTK_FLAG;
	return r;
}

/* The range of @r as words: "16 to 1024", "at most 31536000", ... */
static void nvf_opt_range(const struct nvfab_opt_rule *r, char *buf,
			  size_t size)
{
	if (r->min == NVFAB_OPT_INT_MIN)
		snprintf(buf, size, "at most %lld", r->max);
	else if (r->max == NVFAB_OPT_INT_MAX)
		snprintf(buf, size, "%lld or more", r->min);
	else
		snprintf(buf, size, "%lld to %lld", r->min, r->max);
}

int nvf_opt_int(const char *name, const char *key, const char *s, int *val)
{
	const struct nvfab_opt_rule *r = nvf_opt_rule(key);
	char range[64], *end;
	long long v;

	errno = 0;
	/* as the kernel's match_int(): decimal, 0x hex or 0 octal */
	v = strtoll(s, &end, 0);
	if (!*s || *end || (errno && errno != ERANGE)) {
		nvf_err("invalid --%s '%s': not an integer", name, s);
		return -1;
	}
	if (!r || r->kind != NVFAB_OPTK_INT) {
		nvf_err("internal error: '%s' is not an integer option", key);
		return -1;
	}
	if (errno == ERANGE || v < r->min || v > r->max) {
		nvf_opt_range(r, range, sizeof(range));
		nvf_err("invalid --%s %s: out of range, %s (option %s)", name, s,
			range, key);
		return -1;
	}
	*val = (int)v;
	return 0;
}

int nvf_opt_str(const char *name, const char *key, const char *s)
{
	const struct nvfab_opt_rule *r = nvf_opt_rule(key);
	size_t len = strlen(s);

	if (!r) {
		nvf_err("internal error: no option %s", key);
		return -1;
	}
	if (r->kind == NVFAB_OPTK_SECRET) {
		if (len < (size_t)r->min || strncmp(s, "DHHC-1:", 7)) {
			nvf_err("invalid --%s: not a DH-HMAC-CHAP secret (DHHC-1:xx:<base64>:)",
				name);
			return -1;
		}
		return 0;
	}
	if (r->kind == NVFAB_OPTK_UUID && !nvf_uuid_valid(s)) {
		nvf_err("invalid --%s '%s': not a UUID (8-4-4-4-12 hex digits)",
			name, s);
		return -1;
	}
	if (len < (size_t)r->min || len > (size_t)r->max) {
		nvf_err("invalid --%s: %zu bytes, the limit is %lld (option %s)",
			name, len, r->max, key);
		return -1;
	}
	return 0;
}

bool nvf_transport_ours(const char *t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nvf_transports); i++)
		if (!strcmp(t, nvf_transports[i]))
			return true;
	return false;
}

int nvf_opt_transport(const char *t)
{
	if (nvf_transport_ours(t))
		return 0;
	nvf_err("invalid --transport '%s': nvfab has transports tcp and rdma",
		t);
	return -1;
}

/* Is @s an IPv4 or IPv6 address the kernel parses (IPv6 with %scope)? */
static bool nvf_ip_numeric(const char *s)
{
	unsigned char a[16];
	char v6[INET6_ADDRSTRLEN + 1];
	size_t n = strcspn(s, "%");

	if (inet_pton(AF_INET, s, a) == 1)
		return true;
	if (n >= sizeof(v6) || (s[n] && !s[n + 1]))
		return false;
	memcpy(v6, s, n);
	v6[n] = '\0';
	return inet_pton(AF_INET6, v6, a) == 1;
}

/* Does @s look like a host name (letters, digits, '-', '.') at all? */
static bool nvf_hostname_like(const char *s)
{
	bool letter = false;

	for (; *s; s++) {
		if (isalpha((unsigned char)*s))
			letter = true;
		else if (!isdigit((unsigned char)*s) && *s != '-' && *s != '.')
			return false;
	}
	return letter;
}

int nvf_opt_addr(const char *name, const char *transport, const char *s,
		 char **resolved)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	char buf[INET6_ADDRSTRLEN];
	struct addrinfo *ai;
	const char *colon;
	const void *a;
	int ret;

	*resolved = NULL;
	if (!transport || !nvf_transport_ours(transport) || nvf_ip_numeric(s))
		return 0;
	if (s[0] == '[') {
		nvf_err("invalid --%s '%s': an IPv6 address goes without brackets (and the port in --trsvcid)",
			name, s);
		return -1;
	}
	colon = strrchr(s, ':');
	/* one ':' is no IPv6 address: host:port */
	if (colon && strchr(s, ':') == colon) {
		char host[NVFAB_TRADDR_SIZE];
		size_t n = colon - s;

		if (n < sizeof(host)) {
			memcpy(host, s, n);
			host[n] = '\0';
			if (nvf_ip_numeric(host) || nvf_hostname_like(host)) {
				nvf_err("invalid --%s '%s': an address without a port (give port %s with --trsvcid)",
					name, s, colon + 1);
				return -1;
			}
		}
	}
	if (!nvf_hostname_like(s)) {
		nvf_err("invalid --%s '%s': not an IPv4 or IPv6 address", name,
			s);
		return -1;
	}
	ret = getaddrinfo(s, NULL, &hints, &ai);
	if (ret) {
		nvf_err("invalid --%s '%s': not an IPv4 or IPv6 address, and the host name does not resolve: %s",
			name, s, gai_strerror(ret));
		return -1;
	}
	if (ai->ai_family == AF_INET)
		a = &((struct sockaddr_in *)ai->ai_addr)->sin_addr;
	else
		a = &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
	if (!inet_ntop(ai->ai_family, a, buf, sizeof(buf))) {
		freeaddrinfo(ai);
		nvf_err("cannot print the address of '%s': %s", s,
			strerror(errno));
		return -1;
	}
	freeaddrinfo(ai);
	*resolved = strdup(buf);
	if (!*resolved) {
		nvf_err("out of memory");
		return -1;
	}
	return 0;
}

int nvf_opt_port(const char *name, const char *transport, const char *s)
{
	char *end;
	long v;

	if (!transport || !nvf_transport_ours(transport))
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < 1 || v > 65535) {
		nvf_err("invalid --%s '%s': a port number, 1 to 65535", name,
			s);
		return -1;
	}
	return 0;
}
