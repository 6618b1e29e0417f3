// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl: the key serials of NVMe/TCP TLS, for --tls-key and --keyring.
 *
 * The kernel takes keyring=N and tls_key=N, N the decimal serial of a key
 * (a positive key_serial_t). Users find serials in hex: /proc/keys and
 * the controller's sysfs tls_key print them as %08x, and nvme-cli 2.5 and
 * later prints them in hex too; keyctl prints them in decimal. So a serial
 * is taken in exactly two forms, decimal or "0x"-prefixed hex, and
 * anything else is refused, a decimal with a leading 0 included: that is
 * octal to strtol() and what a hex serial copied from /proc/keys looks
 * like ("0000002a", "00000042"), and guessing would pick the wrong key.
 *
 * --keyring also takes the name (description) of a keyring, such as
 * ".nvme", found in /proc/keys ($NVFAB_PROC_KEYS, for tests only).
 *
 * Only the number computed here goes into the option string, never the
 * user's text.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"

#define NVF_PROC_KEYS		"/proc/keys"
#define NVF_HEX_DIGITS		"0123456789abcdefABCDEF"
#define NVF_DEC_DIGITS		"0123456789"
/* An interchange-format PSK, "NVMeTLSkey-1:01:<base64>:": never shown. */
#define NVF_PSK_PREFIX		"NVMeTLSkey-"

/* Is @s one or more characters, all of @set? */
static bool nvf_all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/*
 * Parse key serial @s of option --@name: decimal without a leading 0, or
 * "0x" and hex digits; 1 to INT_MAX. Return: 0 with *@val set, or -1
 * after reporting.
 */
int nvf_parse_serial(const char *name, const char *s, int *val)
{
	bool hex = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2);
	const char *digits = hex ? s + 2 : s;
	unsigned long long v;

	if (!strncmp(s, NVF_PSK_PREFIX, strlen(NVF_PSK_PREFIX))) {
		nvf_err("invalid --%s: expected a key serial, not a PSK (nvfab does not insert keys: load the PSK into a keyring with nvme-cli or keyctl, and give its serial)",
			name);
		return -1;
	}
	if (!nvf_all_of(digits, hex ? NVF_HEX_DIGITS : NVF_DEC_DIGITS) ||
	    (!hex && digits[0] == '0' && digits[1])) {
		if (!hex && nvf_all_of(s, NVF_HEX_DIGITS))
			nvf_err("invalid --%s '%s': a key serial is decimal (no leading 0) or 0x-prefixed hex; 0x%s if it is hex, as /proc/keys and sysfs show serials",
				name, s, s);
		else
			nvf_err("invalid --%s '%s': a key serial is decimal or 0x-prefixed hex",
				name, s);
		return -1;
	}
	errno = 0;
	v = strtoull(digits, NULL, hex ? 16 : 10);
	if (errno || !v || v > INT_MAX) {
		nvf_err("invalid --%s '%s': a key serial is 1 to %d (0x%x)",
			name, s, INT_MAX, INT_MAX);
		return -1;
	}
	*val = (int)v;
	return 0;
}

/*
 * The serial of the keyring described @name in @file, a /proc/keys: 1
 * with *@serial set, 0 if none, -1 after reporting (unreadable, or more
 * than one). @shown is @name as it may be printed.
 *
 * A line of /proc/keys is the serial (hex), flags, usage, expiry,
 * permissions, uid, gid, the type padded to 9 columns, then the
 * description; a keyring's may be followed by ": <keys>" or ": empty".
 */
static int nvf_keyring_find(const char *file, const char *name,
			    const char *shown, int *serial)
{
	size_t cap = 0, len = strlen(name);
	char *line = NULL, *p, *end;
	unsigned long v;
	int found = 0, i;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		nvf_err("cannot open %s to find keyring %s: %s", file, shown,
			strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) != -1) {
		line[strcspn(line, "\n")] = '\0';
		errno = 0;
		v = strtoul(line, &end, 16);
		if (end == line || *end != ' ' || errno || !v || v > INT_MAX)
			continue;
		/* flags, usage, expiry, permissions, uid, gid */
		for (p = end, i = 0; i < 6; i++) {
			p += strspn(p, " ");
			p += strcspn(p, " ");
		}
		p += strspn(p, " ");
		if (strncmp(p, "keyring ", 8))
			continue;
		p += 8;
		p += strspn(p, " ");
		if (strncmp(p, name, len) || (p[len] && strncmp(p + len, ": ", 2)))
			continue;
		if (found && *serial != (int)v) {
			nvf_err("keyring %s is not unique in %s (serials %d and %lu): give its serial",
				shown, file, *serial, v);
			found = -1;
			break;
		}
		*serial = (int)v;
		found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * Parse --@name (--keyring) value @s: a key serial, as nvf_parse_serial()
 * takes it, when it starts with a digit or a sign; else the name of a
 * keyring in /proc/keys. Return: 0 with *@val set, or -1 after reporting.
 */
int nvf_parse_keyring(const char *name, const char *s, int *val)
{
	const char *file = getenv("NVFAB_PROC_KEYS");
	char *shown;
	int ret;

	if (!*s) {
		nvf_err("empty value for --%s", name);
		return -1;
	}
	if (strchr(NVF_DEC_DIGITS "+-", s[0]))
		return nvf_parse_serial(name, s, val);

	if (!file || !*file)
		file = NVF_PROC_KEYS;
	shown = strdup(s);
	if (!shown) {
		nvf_err("out of memory");
		return -1;
	}
	nvf_sanitize(shown);
	ret = nvf_keyring_find(file, s, shown, val);
	if (!ret)
		nvf_err("keyring %s not found in %s%s", shown, file,
			!strcmp(s, ".nvme") ?
			" (is module nvme_keyring loaded?)" : "");
	free(shown);
	return ret == 1 ? 0 : -1;
}
