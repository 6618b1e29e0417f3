/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl: the Discovery Log Page (dlp.c), the discover and connect-all
 * verbs (discover.c) and the persistent discovery entries of configfs
 * (discovery.c).
 */
#ifndef NVFABCTL_DLP_H
#define NVFABCTL_DLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define NVF_DISC_NQN		"nqn.2014-08.org.nvmexpress.discovery"

#define NVF_DLP_HDR_LEN		1024
#define NVF_DLP_ENTRY_LEN	1024
/* The most entries taken from one page (1 MiB of entries). */
#define NVF_DLP_MAX_RECORDS	1024
/* Reads of a page whose GENCTR keeps moving, before giving up. */
#define NVF_DLP_RETRIES		10

#define NVF_TRSVCID_SIZE	32
#define NVF_TRADDR_SIZE		256
#define NVF_NQN_SIZE		256
#define NVF_NQN_MAX		223

enum {
	NVF_TRTYPE_RDMA		= 1,
	NVF_TRTYPE_FC		= 2,
	NVF_TRTYPE_TCP		= 3,
	NVF_TRTYPE_LOOP		= 254,
};

enum {
	NVF_ADRFAM_IPV4		= 1,
	NVF_ADRFAM_IPV6		= 2,
	NVF_ADRFAM_IB		= 3,
	NVF_ADRFAM_FC		= 4,
	NVF_ADRFAM_LOOP		= 254,
};

enum {
	NVF_SUBTYPE_REFERRAL	= 1,
	NVF_SUBTYPE_NVME	= 2,
	NVF_SUBTYPE_CURRENT	= 3,
};

/* One checked entry; the strings are the fields, padding removed. */
struct nvf_dlp_entry {
	int		index;		/* in the page */
	unsigned int	trtype, adrfam, subtype, treq;
	unsigned int	portid, cntlid, asqsz, eflags;
	unsigned char	tsas[16];	/* the first bytes of TSAS */
	char		trsvcid[NVF_TRSVCID_SIZE + 1];
	char		subnqn[NVF_NQN_SIZE + 1];
	char		traddr[NVF_TRADDR_SIZE + 1];
};

struct nvf_dlp {
	unsigned long long		genctr;
	unsigned long long		numrec;		/* as the header says */
	struct nvf_dlp_entry	*e;		/* the good entries */
	size_t			nr;
	int			skipped;	/* entries left out */
};

/* dlp.c */
const char *nvf_trtype_name(unsigned int trtype);
const char *nvf_subtype_name(unsigned int subtype);
const char *nvf_dlp_field(const unsigned char *f, size_t size, char *out);
const char *nvf_dlp_entry_parse(const unsigned char *p,
				struct nvf_dlp_entry *e, char *why,
				size_t size);
int nvf_dlp_parse(const unsigned char *buf, size_t len, struct nvf_dlp *log);
void nvf_dlp_free(struct nvf_dlp *log);
unsigned char *nvf_dlp_read(int fd, const char *dev, size_t *len);
void nvf_dlp_print(const struct nvf_dlp *log);
void nvf_dlp_print_json(const struct nvf_dlp *log);

/* discover.c */
int nvf_discover(int argc, char **argv);
void nvf_discover_usage(FILE *f);
int nvf_connect_all(int argc, char **argv);
void nvf_connect_all_usage(FILE *f);

/* discovery.c */
struct nvf_disc_entry;
int nvf_discovery(int argc, char **argv);
int nvf_disc_dump(FILE *f);
void nvf_discovery_usage(FILE *f);
struct nvf_disc_entry *nvf_disc_entry_parse(int argc, char **argv);
void nvf_disc_entry_free(struct nvf_disc_entry *d);
const char *nvf_disc_entry_name(const struct nvf_disc_entry *d);
int nvf_disc_entry_apply(const struct nvf_disc_entry *d, bool *exists);
void nvf_disc_entry_print(const struct nvf_disc_entry *d, FILE *f);
char *nvf_disc_dir(void);

#endif /* NVFABCTL_DLP_H */
