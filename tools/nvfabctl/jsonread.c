// SPDX-License-Identifier: GPL-2.0
/*
 * A strict reader of JSON (RFC 8259) for "config import", which reads
 * nvme-cli's /etc/nvme/config.json: objects, arrays, strings (every
 * escape, \uXXXX as UTF-8, surrogate pairs joined), numbers (kept as
 * their text), true, false and null, nested at most NVF_JSON_DEPTH deep.
 * Anything else is an error with its line and column. nvfabctl has only a
 * writer otherwise (json.c); this is the reading half, as small as the
 * one file it reads needs.
 */
#include <stdlib.h>
#include <string.h>

#include "nvfabctl.h"
#include "jsonread.h"

#define NVF_JSON_DEPTH	32

struct nvf_jr {
	const char	*s, *p;
	char		err[160];
};

static void nvf_jr_error(struct nvf_jr *r, const char *what)
{
	const char *q;
	int line = 1, col = 1;

	if (r->err[0])
		return;
	for (q = r->s; q < r->p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(r->err, sizeof(r->err), "line %d, column %d: %s", line, col,
		 what);
}

static void nvf_jr_ws(struct nvf_jr *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int nvf_jr_hex4(const char *p, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

/* Append code point @cp as UTF-8 to @out at *@len. */
static void nvf_jr_utf8(char *out, size_t *len, unsigned int cp)
{
	if (cp < 0x80) {
		out[(*len)++] = cp;
	} else if (cp < 0x800) {
		out[(*len)++] = 0xc0 | (cp >> 6);
		out[(*len)++] = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		out[(*len)++] = 0xe0 | (cp >> 12);
		out[(*len)++] = 0x80 | ((cp >> 6) & 0x3f);
		out[(*len)++] = 0x80 | (cp & 0x3f);
	} else {
		out[(*len)++] = 0xf0 | (cp >> 18);
		out[(*len)++] = 0x80 | ((cp >> 12) & 0x3f);
		out[(*len)++] = 0x80 | ((cp >> 6) & 0x3f);
		out[(*len)++] = 0x80 | (cp & 0x3f);
	}
}

/* The character of escape \@c, one of b, f, n, r, t. */
static char nvf_jr_control(char c)
{
	static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";

	return to[strchr(from, c) - from];
}

/* A string at r->p (at its '"'): malloc'ed, or NULL after an error. */
static char *nvf_jr_string(struct nvf_jr *r)
{
	const char *p = r->p + 1, *end;
	unsigned int cp, lo;
	size_t len = 0;
	char *out;

	/* the text is at most as long as its source */
	for (end = p; *end && *end != '"'; end++) {
		if (*end == '\\' && end[1])
			end++;
	}
	out = malloc(end - p + 1);
	if (!out) {
		nvf_jr_error(r, "out of memory");
		return NULL;
	}
	while (*p != '"') {
		r->p = p;
		if (!*p) {
			nvf_jr_error(r, "unterminated string");
			goto bad;
		}
		if ((unsigned char)*p < 0x20) {
			nvf_jr_error(r, "control character in a string");
			goto bad;
		}
		if (*p != '\\') {
			out[len++] = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/':
			out[len++] = *p;
			break;
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			out[len++] = nvf_jr_control(*p);
			break;
		case 'u':
			if (nvf_jr_hex4(p + 1, &cp)) {
				nvf_jr_error(r, "bad \\u escape");
				goto bad;
			}
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p[1] == '\\' &&
			    p[2] == 'u' && !nvf_jr_hex4(p + 3, &lo) &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				nvf_jr_error(r, "unpaired surrogate in \\u escape");
				goto bad;
			}
			if (!cp) {
				nvf_jr_error(r, "NUL in a string");
				goto bad;
			}
			nvf_jr_utf8(out, &len, cp);
			break;
		default:
			nvf_jr_error(r, "bad escape in a string");
			goto bad;
		}
		p++;
	}
	out[len] = '\0';
	r->p = p + 1;
	return out;
bad:
	free(out);
	return NULL;
}

/* A number at r->p, as its text (RFC 8259's grammar). */
static char *nvf_jr_number(struct nvf_jr *r)
{
	const char *p = r->p;
	char *out;

	if (*p == '-')
		p++;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else {
		nvf_jr_error(r, "bad number");
		return NULL;
	}
	if (*p == '.') {
		if (!(*++p >= '0' && *p <= '9')) {
			nvf_jr_error(r, "bad number");
			return NULL;
		}
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9')) {
			nvf_jr_error(r, "bad number");
			return NULL;
		}
		while (*p >= '0' && *p <= '9')
			p++;
	}
	out = strndup(r->p, p - r->p);
	if (!out)
		nvf_jr_error(r, "out of memory");
	r->p = p;
	return out;
}

static int nvf_jr_value(struct nvf_jr *r, struct nvf_jv *v, int depth);

/* Add a member (@key may be NULL in an array) to @v. */
static struct nvf_jv *nvf_jr_add(struct nvf_jr *r, struct nvf_jv *v, char *key)
{
	struct nvf_jv *kids;
	char **keys;

	kids = realloc(v->kids, (v->n + 1) * sizeof(*kids));
	if (kids)
		v->kids = kids;
	keys = realloc(v->keys, (v->n + 1) * sizeof(*keys));
	if (keys)
		v->keys = keys;
	if (!kids || !keys) {
		nvf_jr_error(r, "out of memory");
		free(key);
		return NULL;
	}
	memset(&v->kids[v->n], 0, sizeof(*kids));
	v->keys[v->n] = key;
	return &v->kids[v->n++];
}

static int nvf_jr_container(struct nvf_jr *r, struct nvf_jv *v, int depth)
{
	bool object = *r->p == '{';
	char close = object ? '}' : ']';
	struct nvf_jv *kid;
	char *key = NULL;

	v->type = object ? NVF_JV_OBJECT : NVF_JV_ARRAY;
	r->p++;
	nvf_jr_ws(r);
	if (*r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		nvf_jr_ws(r);
		if (object) {
			if (*r->p != '"') {
				nvf_jr_error(r, "expected a member name");
				return -1;
			}
			key = nvf_jr_string(r);
			if (!key)
				return -1;
			nvf_jr_ws(r);
			if (*r->p != ':') {
				free(key);
				nvf_jr_error(r, "expected ':'");
				return -1;
			}
			r->p++;
		}
		kid = nvf_jr_add(r, v, key);
		if (!kid || nvf_jr_value(r, kid, depth + 1))
			return -1;
		nvf_jr_ws(r);
		if (*r->p == close) {
			r->p++;
			return 0;
		}
		if (*r->p != ',') {
			nvf_jr_error(r, object ? "expected ',' or '}'" :
					 "expected ',' or ']'");
			return -1;
		}
		r->p++;
	}
}

static int nvf_jr_value(struct nvf_jr *r, struct nvf_jv *v, int depth)
{
	static const struct {
		const char		*word;
		enum nvf_jv_type	type;
	} words[] = {
		{ "true", NVF_JV_TRUE }, { "false", NVF_JV_FALSE },
		{ "null", NVF_JV_NULL },
	};
	size_t i;

	if (depth > NVF_JSON_DEPTH) {
		nvf_jr_error(r, "nested too deep");
		return -1;
	}
	nvf_jr_ws(r);
	if (*r->p == '{' || *r->p == '[')
		return nvf_jr_container(r, v, depth);
	if (*r->p == '"') {
		v->type = NVF_JV_STRING;
		v->str = nvf_jr_string(r);
		return v->str ? 0 : -1;
	}
	if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
		v->type = NVF_JV_NUMBER;
		v->str = nvf_jr_number(r);
		return v->str ? 0 : -1;
	}
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (!strncmp(r->p, words[i].word, strlen(words[i].word))) {
			v->type = words[i].type;
			r->p += strlen(words[i].word);
			return 0;
		}
	}
	nvf_jr_error(r, "expected a value");
	return -1;
}

/**
 * nvf_json_parse() - read one JSON document
 * @text: the document, NUL-terminated (a NUL inside it ends it early and
 *	is then an error of trailing text or truncation)
 * @v: the value, to be freed with nvf_json_free() on success and failure
 * @err: on failure, "line L, column C: what"
 * @size: of @err
 *
 * Return: 0, or -1 with @err set.
 */
int nvf_json_parse(const char *text, struct nvf_jv *v, char *err, size_t size)
{
	struct nvf_jr r = { .s = text, .p = text };

	memset(v, 0, sizeof(*v));
	if (!nvf_jr_value(&r, v, 0)) {
		nvf_jr_ws(&r);
		if (!*r.p)
			return 0;
		nvf_jr_error(&r, "text after the document");
	}
	snprintf(err, size, "%s", r.err);
	return -1;
}

void nvf_json_free(struct nvf_jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		nvf_json_free(&v->kids[i]);
		free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

/* Member @key of object @v, or NULL. */
const struct nvf_jv *nvf_json_get(const struct nvf_jv *v, const char *key)
{
	size_t i;

	if (!v || v->type != NVF_JV_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++) {
		if (v->keys[i] && !strcmp(v->keys[i], key))
			return &v->kids[i];
	}
	return NULL;
}
