// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer. Values are written as they come, each on
 * its own line, indented by two spaces per level; an empty container is
 * written as "[]" or "{}". Strings are escaped per RFC 8259: quote,
 * backslash and control characters are escaped, valid UTF-8 passes through
 * and each byte that is not part of a valid UTF-8 sequence becomes U+FFFD,
 * so that whatever sysfs holds, the output stays valid JSON.
 */
#include <string.h>

#include "nvfabctl.h"

void nvf_json_init(struct nvf_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static size_t nvf_utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* UTF-16 surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

static void nvf_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len;

	fputc('"', f);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
			} else if (*s < 0x80) {
				fputc(*s, f);
			} else {
				len = nvf_utf8_len(s);
				if (!len) {
					fputs("\\ufffd", f);
					break;
				}
				fwrite(s, 1, len, f);
				s += len;
				continue;
			}
		}
		s++;
	}
	fputc('"', f);
}

/* Start a value: separator, newline and indent inside a container, key. */
static void nvf_json_sep(struct nvf_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->empty[j->depth])
			fputc(',', j->f);
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
		j->empty[j->depth] = false;
	}
	if (key) {
		nvf_json_string(j->f, key);
		fputs(": ", j->f);
	}
}

/* Open an object ('{') or array ('['), as member @key inside an object. */
void nvf_json_begin(struct nvf_json *j, const char *key, char open)
{
	nvf_json_sep(j, key);
	fputc(open, j->f);
	if (j->depth < NVF_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->empty[j->depth] = true;
}

void nvf_json_end(struct nvf_json *j, char close)
{
	bool empty = j->empty[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(close, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

/* A string member, or null when @val is NULL. */
void nvf_json_str(struct nvf_json *j, const char *key, const char *val)
{
	nvf_json_sep(j, key);
	if (val)
		nvf_json_string(j->f, val);
	else
		fputs("null", j->f);
}

void nvf_json_int(struct nvf_json *j, const char *key, long long val)
{
	nvf_json_sep(j, key);
	fprintf(j->f, "%lld", val);
}

/* An integer member, or null when @val is unknown (negative). */
void nvf_json_num(struct nvf_json *j, const char *key, long long val)
{
	if (val < 0)
		nvf_json_str(j, key, NULL);
	else
		nvf_json_int(j, key, val);
}

/* A true or false member. */
void nvf_json_bool(struct nvf_json *j, const char *key, bool val)
{
	nvf_json_sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

/* A number written with @decimals digits after the point ("61.2"). */
void nvf_json_fixed(struct nvf_json *j, const char *key, double val,
		    int decimals)
{
	nvf_json_sep(j, key);
	fprintf(j->f, "%.*f", decimals, val);
}
