/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl: a strict JSON reader (jsonread.c), for nvme-cli's config.json
 * in "config import" (import.c).
 */
#ifndef NVFABCTL_JSONREAD_H
#define NVFABCTL_JSONREAD_H

#include <stddef.h>

enum nvf_jv_type {
	NVF_JV_NULL,
	NVF_JV_FALSE,
	NVF_JV_TRUE,
	NVF_JV_NUMBER,		/* str: its text */
	NVF_JV_STRING,		/* str: UTF-8, no NUL inside */
	NVF_JV_ARRAY,		/* kids[n] */
	NVF_JV_OBJECT,		/* keys[n], kids[n], in document order */
};

struct nvf_jv {
	enum nvf_jv_type	type;
	char			*str;
	size_t			n;
	char			**keys;
	struct nvf_jv		*kids;
};

int nvf_json_parse(const char *text, struct nvf_jv *v, char *err, size_t size);
void nvf_json_free(struct nvf_jv *v);
const struct nvf_jv *nvf_json_get(const struct nvf_jv *v, const char *key);

#endif /* NVFABCTL_JSONREAD_H */
