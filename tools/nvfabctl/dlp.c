// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl: the Discovery Log Page (log identifier 70h): read it from a
 * discovery controller, check it, print it.
 *
 * The page comes from the target and is not trusted. The header (1024
 * bytes: GENCTR, NUMREC, RECFMT) is read first, then NUMREC entries of
 * 1024 bytes each, then the header again; when GENCTR or NUMREC moved in
 * between, the whole read starts over, NVF_DLP_RETRIES times at most.
 * NUMREC is capped (NVF_DLP_MAX_RECORDS) before anything is allocated.
 *
 * Each entry is checked on its own (nvf_dlp_entry_parse(), by the rules
 * of drivers/nvfab/discovery/discovery-log.c, so that the tool and
 * nvfab-discovery use the same entries); an entry that fails is left out with a warning
 * naming its index and why, so that one bad record neither hides the
 * others nor reaches a connect. TRSVCID,
 * SUBNQN and TRADDR are fixed-size ASCII fields padded with spaces (some
 * targets pad with NULs): never NUL-terminated strings.
 *
 * The printers follow nvme-cli's "nvme discover" (normal) and its discover
 * JSON shape ({"genctr", "records": [...]}), with the spec's names for
 * each code.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/nvme_ioctl.h>

#include "nvfabctl.h"
#include "dlp.h"

#define NVF_ADMIN_GET_LOG_PAGE	0x02
#define NVF_DLP_LID		0x70
#define NVF_DLP_RAE		0x8000u	/* CDW10 bit 15 */
/* One Get Log Page transfers this much at most: below any max_hw_sectors. */
#define NVF_DLP_CHUNK		4096
#define NVF_DLP_TMO_MS		10000

static unsigned int nvf_le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static unsigned long long nvf_le64(const unsigned char *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Name of code @v in table @t of @n names; "unrecognized" if none. */
static const char *nvf_name(const char *const *t, size_t n, unsigned int v)
{
	return v < n && t[v] ? t[v] : "unrecognized";
}

static const char *const nvf_trtypes[] = {
	[NVF_TRTYPE_RDMA]	= "rdma",
	[NVF_TRTYPE_FC]		= "fc",
	[NVF_TRTYPE_TCP]	= "tcp",
	[NVF_TRTYPE_LOOP]	= "loop",
};

static const char *const nvf_adrfams[] = {
	[0]			= "pci",
	[NVF_ADRFAM_IPV4]	= "ipv4",
	[NVF_ADRFAM_IPV6]	= "ipv6",
	[NVF_ADRFAM_IB]		= "infiniband",
	[NVF_ADRFAM_FC]		= "fibre-channel",
	[NVF_ADRFAM_LOOP]	= "loop",
};

static const char *const nvf_subtypes[] = {
	[NVF_SUBTYPE_REFERRAL]	= "discovery subsystem referral",
	[NVF_SUBTYPE_NVME]	= "nvme subsystem",
	[NVF_SUBTYPE_CURRENT]	= "current discovery subsystem",
};

/* TREQ bits 1:0; bit 2 adds the SQ flow control note. */
static const char *const nvf_treqs[] = {
	"not specified", "required", "not required",
};

static const char *const nvf_sectypes[] = {
	"none", "tls", "tls13",
};

static const char *const nvf_prtypes[] = {
	"not specified", "infiniband", "roce", "roce-v2", "iwarp",
};

static const char *const nvf_qptypes[] = {
	[1] = "connected", [2] = "datagram",
};

static const char *const nvf_cms[] = {
	[1] = "rdma-cm",
};

const char *nvf_trtype_name(unsigned int trtype)
{
	return nvf_name(nvf_trtypes, ARRAY_SIZE(nvf_trtypes), trtype);
}

const char *nvf_subtype_name(unsigned int subtype)
{
	return nvf_name(nvf_subtypes, ARRAY_SIZE(nvf_subtypes), subtype);
}

/* TREQ as text into @buf: "not specified, sq flow control disable supported". */
static const char *nvf_treq_name(unsigned int treq, char *buf, size_t size)
{
	treq &= 7;	/* bits 7:3 are reserved */
	if ((treq & 3) == 3)
		return "unrecognized";
	snprintf(buf, size, "%s%s", nvf_treqs[treq & 3],
		 treq & 4 ? ", sq flow control disable supported" : "");
	return buf;
}

/* EFLAGS as text into @buf: "none" or the flags set, comma separated. */
static const char *nvf_eflags_name(unsigned int eflags, char *buf,
				   size_t size)
{
	static const char *const bits[] = {
		"duplicate discovery information",
		"explicit discovery connections",
		"no cdc connectivity",
	};
	/* The order nvme-cli prints them in: EPCSD, DUPRETINFO, NCC. */
	static const unsigned int order[] = { 1, 0, 2 };
	size_t i, len = 0;

	if (!eflags)
		return "none";
	if (eflags > 7)
		return "unrecognized";
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!(eflags & (1u << order[i])))
			continue;
		len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
				bits[order[i]]);
		if (len >= size)
			break;
	}
	return buf;
}

/*
 * Copy fixed-size field @f of @size bytes into @out (@size + 1 bytes) as a
 * C string: the value ends at the first NUL or where the trailing spaces
 * start. Return: NULL, or why the field is malformed.
 */
const char *nvf_dlp_field(const unsigned char *f, size_t size, char *out)
{
	size_t len, i;

	for (len = 0; len < size && f[len]; len++)
		;
	for (i = len; i < size; i++) {
		if (f[i] && f[i] != ' ')
			return "has bytes after its NUL";
	}
	while (len && f[len - 1] == ' ')
		len--;
	for (i = 0; i < len; i++) {
		if (f[i] == ' ')
			return "has a space inside";
		if (f[i] < 0x21 || f[i] > 0x7e)
			return "has a control or non-ASCII byte";
	}
	memcpy(out, f, len);
	out[len] = '\0';
	return NULL;
}

/* Is @s a decimal port, 1 to 65535, without a leading zero? */
static bool nvf_port_valid(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 5 || s[0] == '0' || strspn(s, "0123456789") != len)
		return false;
	return atol(s) <= 65535;
}

/* Does @trtype use @adrfam: IP for tcp, IP or IB for rdma, FC for fc? */
static bool nvf_adrfam_ok(unsigned int trtype, unsigned int adrfam)
{
	bool ip = adrfam == NVF_ADRFAM_IPV4 || adrfam == NVF_ADRFAM_IPV6;

	switch (trtype) {
	case NVF_TRTYPE_TCP:
		return ip;
	case NVF_TRTYPE_RDMA:
		return ip || adrfam == NVF_ADRFAM_IB;
	case NVF_TRTYPE_FC:
		return adrfam == NVF_ADRFAM_FC;
	}
	return false;
}

/*
 * Decode and check entry @p (NVF_DLP_ENTRY_LEN bytes) into @e. Return:
 * NULL, or why the entry is not usable (into @why when the reason needs
 * words of its own).
 */
const char *nvf_dlp_entry_parse(const unsigned char *p,
				struct nvf_dlp_entry *e, char *why,
				size_t size)
{
	unsigned char addr[16];
	const char *bad;
	int af;

	memset(e, 0, sizeof(*e));
	e->trtype = p[0];
	e->adrfam = p[1];
	e->subtype = p[2];
	e->treq = p[3];
	e->portid = nvf_le16(p + 4);
	e->cntlid = nvf_le16(p + 6);
	e->asqsz = nvf_le16(p + 8);
	e->eflags = nvf_le16(p + 10);
	memcpy(e->tsas, p + 768, sizeof(e->tsas));

	bad = nvf_dlp_field(p + 32, NVF_TRSVCID_SIZE, e->trsvcid);
	if (bad) {
		snprintf(why, size, "TRSVCID %s", bad);
		return why;
	}
	bad = nvf_dlp_field(p + 256, NVF_NQN_SIZE, e->subnqn);
	if (bad) {
		snprintf(why, size, "SUBNQN %s", bad);
		return why;
	}
	bad = nvf_dlp_field(p + 512, NVF_TRADDR_SIZE, e->traddr);
	if (bad) {
		snprintf(why, size, "TRADDR %s", bad);
		return why;
	}

	if (e->trtype != NVF_TRTYPE_RDMA && e->trtype != NVF_TRTYPE_FC &&
	    e->trtype != NVF_TRTYPE_TCP) {
		snprintf(why, size, "unknown TRTYPE %u", e->trtype);
		return why;
	}
	af = e->adrfam == NVF_ADRFAM_IPV4 ? AF_INET :
	     e->adrfam == NVF_ADRFAM_IPV6 ? AF_INET6 : 0;
	if (!nvf_adrfam_ok(e->trtype, e->adrfam)) {
		snprintf(why, size, "ADRFAM %u does not go with TRTYPE %s",
			 e->adrfam, nvf_trtype_name(e->trtype));
		return why;
	}
	if (e->subtype < NVF_SUBTYPE_REFERRAL ||
	    e->subtype > NVF_SUBTYPE_CURRENT) {
		snprintf(why, size, "unknown SUBTYPE %u", e->subtype);
		return why;
	}
	if ((e->treq & 3) == 3)
		return "reserved TREQ secure channel (11b)";
	if (e->cntlid >= 0xfff0 && e->cntlid <= 0xfffd) {
		snprintf(why, size, "reserved CNTLID 0x%x", e->cntlid);
		return why;
	}
	if (!e->traddr[0])
		return "empty TRADDR";
	if (af && inet_pton(af, e->traddr, addr) != 1) {
		snprintf(why, size, "TRADDR is not an %s address",
			 af == AF_INET ? "IPv4" : "IPv6");
		return why;
	}
	if (af && !nvf_port_valid(e->trsvcid))
		return "TRSVCID is not a port (1 to 65535)";
	if (!e->subnqn[0])
		return "empty SUBNQN";
	if (strlen(e->subnqn) > NVF_NQN_MAX || strncmp(e->subnqn, "nqn.", 4) ||
	    !e->subnqn[4])
		return "SUBNQN is not an NQN (nqn.*, at most 223 bytes)";
	if (e->subtype == NVF_SUBTYPE_NVME && !strcmp(e->subnqn, NVF_DISC_NQN))
		return "an NVM subsystem entry with the discovery NQN";
	if (e->trtype == NVF_TRTYPE_TCP && e->tsas[0] > 2) {
		snprintf(why, size, "undefined TCP SECTYPE %u", e->tsas[0]);
		return why;
	}
	return NULL;
}

/* Do @a and @b name one endpoint and subsystem (the reconcile key)? */
static bool nvf_dlp_same(const struct nvf_dlp_entry *a,
			 const struct nvf_dlp_entry *b)
{
	return a->subtype == b->subtype && a->trtype == b->trtype &&
	       a->adrfam == b->adrfam && !strcmp(a->traddr, b->traddr) &&
	       !strcmp(a->trsvcid, b->trsvcid) &&
	       !strcmp(a->subnqn, b->subnqn);
}

/*
 * Check the header of @buf (@len bytes) and return NUMREC in *@numrec.
 * Return: 0, or -1 after reporting.
 */
static int nvf_dlp_header(const unsigned char *buf, size_t len,
			  unsigned long long *genctr, unsigned long long *numrec)
{
	unsigned int recfmt;

	if (len < NVF_DLP_HDR_LEN) {
		nvf_err("discovery log: %zu bytes, shorter than its header (%d)",
			len, NVF_DLP_HDR_LEN);
		return -1;
	}
	*genctr = nvf_le64(buf);
	*numrec = nvf_le64(buf + 8);
	recfmt = nvf_le16(buf + 16);
	if (recfmt) {
		nvf_err("discovery log: unsupported record format %u", recfmt);
		return -1;
	}
	if (*numrec > NVF_DLP_MAX_RECORDS) {
		nvf_err("discovery log: NUMREC %llu exceeds the limit of %d records",
			*numrec, NVF_DLP_MAX_RECORDS);
		return -1;
	}
	return 0;
}

/*
 * Decode a whole page, @buf of @len bytes, into @log: the header, then
 * every entry, each checked (a bad one is warned about and left out, and
 * so is a second copy of an entry). Return: 0, or -1 after reporting.
 */
int nvf_dlp_parse(const unsigned char *buf, size_t len, struct nvf_dlp *log)
{
	struct nvf_dlp_entry *e;
	const char *why;
	char reason[96];
	unsigned long long i;
	size_t k;

	memset(log, 0, sizeof(*log));
	if (nvf_dlp_header(buf, len, &log->genctr, &log->numrec))
		return -1;
	if ((len - NVF_DLP_HDR_LEN) / NVF_DLP_ENTRY_LEN < log->numrec) {
		nvf_err("discovery log: NUMREC %llu but %zu bytes hold %zu entries",
			log->numrec, len,
			(len - NVF_DLP_HDR_LEN) / NVF_DLP_ENTRY_LEN);
		return -1;
	}
	if (log->numrec) {
		log->e = calloc(log->numrec, sizeof(*log->e));
		if (!log->e) {
			nvf_err("out of memory");
			return -1;
		}
	}
	for (i = 0; i < log->numrec; i++) {
		e = &log->e[log->nr];
		why = nvf_dlp_entry_parse(buf + NVF_DLP_HDR_LEN +
					  i * NVF_DLP_ENTRY_LEN, e, reason,
					  sizeof(reason));
		for (k = 0; !why && k < log->nr; k++) {
			if (nvf_dlp_same(&log->e[k], e)) {
				snprintf(reason, sizeof(reason),
					 "duplicate of entry %d",
					 log->e[k].index);
				why = reason;
			}
		}
		if (why) {
			nvf_warn("discovery log entry %llu left out: %s",
				 i, why);
			log->skipped++;
			continue;
		}
		e->index = (int)i;
		log->nr++;
	}
	return 0;
}

void nvf_dlp_free(struct nvf_dlp *log)
{
	free(log->e);
	memset(log, 0, sizeof(*log));
}

/*
 * Get Log Page 70h: @len bytes at offset @off into @buf, in chunks; RAE
 * set on all but the read that asks for @last. Return: 0, -errno, or the
 * NVMe status (> 0).
 */
static int nvf_dlp_get(int fd, unsigned char *buf, size_t len, unsigned long long off,
		       bool last)
{
	struct nvme_passthru_cmd cmd;
	unsigned int numd;
	size_t chunk;
	int ret;

	while (len) {
		chunk = len < NVF_DLP_CHUNK ? len : NVF_DLP_CHUNK;
		numd = (unsigned int)(chunk / 4 - 1);
		memset(&cmd, 0, sizeof(cmd));
		cmd.opcode = NVF_ADMIN_GET_LOG_PAGE;
		cmd.addr = (uintptr_t)buf;
		cmd.data_len = (unsigned int)chunk;
		cmd.cdw10 = NVF_DLP_LID | (numd & 0xffff) << 16;
		if (!(last && chunk == len))
			cmd.cdw10 |= NVF_DLP_RAE;
		cmd.cdw11 = numd >> 16;
		cmd.cdw12 = (unsigned int)off;
		cmd.cdw13 = (unsigned int)(off >> 32);
		cmd.timeout_ms = NVF_DLP_TMO_MS;
		ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
		if (ret < 0)
			return -errno;
		if (ret > 0)
			return ret;
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

static void nvf_dlp_get_err(const char *dev, int ret)
{
	if (ret < 0)
		nvf_err("Get Log Page (discovery) on %s: %s", dev,
			strerror(-ret));
	else
		nvf_err("Get Log Page (discovery) on %s: NVMe status 0x%x",
			dev, ret);
}

/*
 * Read the whole page from controller device @fd (named @dev): header,
 * entries, header again, over again while GENCTR or NUMREC moves. Return:
 * the page (malloc'ed, *@len bytes), or NULL after reporting.
 */
unsigned char *nvf_dlp_read(int fd, const char *dev, size_t *len)
{
	unsigned char hdr[NVF_DLP_HDR_LEN], *buf = NULL, *tmp;
	unsigned long long genctr, numrec, genctr2, numrec2;
	size_t size;
	int ret, try;

	for (try = 0; try < NVF_DLP_RETRIES; try++) {
		ret = nvf_dlp_get(fd, hdr, sizeof(hdr), 0, false);
		if (ret)
			goto out_err;
		if (nvf_dlp_header(hdr, sizeof(hdr), &genctr, &numrec))
			goto out_free;
		size = NVF_DLP_HDR_LEN + numrec * NVF_DLP_ENTRY_LEN;
		tmp = realloc(buf, size);
		if (!tmp) {
			nvf_err("out of memory");
			goto out_free;
		}
		buf = tmp;
		ret = nvf_dlp_get(fd, buf + NVF_DLP_HDR_LEN,
				  size - NVF_DLP_HDR_LEN, NVF_DLP_HDR_LEN,
				  false);
		if (ret)
			goto out_err;
		ret = nvf_dlp_get(fd, buf, NVF_DLP_HDR_LEN, 0, true);
		if (ret)
			goto out_err;
		if (nvf_dlp_header(buf, NVF_DLP_HDR_LEN, &genctr2, &numrec2))
			goto out_free;
		if (genctr2 == genctr && numrec2 == numrec) {
			*len = size;
			return buf;
		}
	}
	nvf_err("discovery log on %s kept changing (GENCTR moved during %d reads)",
		dev, NVF_DLP_RETRIES);
	goto out_free;
out_err:
	nvf_dlp_get_err(dev, ret);
out_free:
	free(buf);
	return NULL;
}

/* The transport specific lines of @e, normal output. */
static void nvf_dlp_print_tsas(const struct nvf_dlp_entry *e)
{
	if (e->trtype == NVF_TRTYPE_RDMA) {
		printf("rdma_prtype: %s\n",
		       nvf_name(nvf_prtypes, ARRAY_SIZE(nvf_prtypes),
				e->tsas[1]));
		printf("rdma_qptype: %s\n",
		       nvf_name(nvf_qptypes, ARRAY_SIZE(nvf_qptypes),
				e->tsas[0]));
		printf("rdma_cms:    %s\n",
		       nvf_name(nvf_cms, ARRAY_SIZE(nvf_cms), e->tsas[2]));
		printf("rdma_pkey: 0x%04x\n", nvf_le16(e->tsas + 8));
	} else if (e->trtype == NVF_TRTYPE_TCP) {
		printf("sectype: %s\n",
		       nvf_name(nvf_sectypes, ARRAY_SIZE(nvf_sectypes),
				e->tsas[0]));
	}
}

void nvf_dlp_print(const struct nvf_dlp *log)
{
	const struct nvf_dlp_entry *e;
	char buf[128];
	size_t i;

	printf("\nDiscovery Log Number of Records %zu, Generation counter %llu\n",
	       log->nr, log->genctr);
	for (i = 0; i < log->nr; i++) {
		e = &log->e[i];
		printf("=====Discovery Log Entry %zu======\n", i);
		printf("trtype:  %s\n", nvf_trtype_name(e->trtype));
		printf("adrfam:  %s\n", e->traddr[0] ?
		       nvf_name(nvf_adrfams, ARRAY_SIZE(nvf_adrfams),
				e->adrfam) : "");
		printf("subtype: %s\n", nvf_subtype_name(e->subtype));
		printf("treq:    %s\n",
		       nvf_treq_name(e->treq, buf, sizeof(buf)));
		printf("portid:  %u\n", e->portid);
		printf("trsvcid: %s\n", e->trsvcid);
		printf("subnqn:  %s\n", e->subnqn);
		printf("traddr:  %s\n", e->traddr);
		printf("eflags:  %s\n",
		       nvf_eflags_name(e->eflags, buf, sizeof(buf)));
		nvf_dlp_print_tsas(e);
	}
}

void nvf_dlp_print_json(const struct nvf_dlp *log)
{
	const struct nvf_dlp_entry *e;
	struct nvf_json j;
	char buf[128];
	size_t i;

	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '{');
	nvf_json_int(&j, "genctr", (long long)log->genctr);
	nvf_json_begin(&j, "records", '[');
	for (i = 0; i < log->nr; i++) {
		e = &log->e[i];
		nvf_json_begin(&j, NULL, '{');
		nvf_json_str(&j, "trtype", nvf_trtype_name(e->trtype));
		nvf_json_str(&j, "adrfam",
			     nvf_name(nvf_adrfams, ARRAY_SIZE(nvf_adrfams),
				      e->adrfam));
		nvf_json_str(&j, "subtype", nvf_subtype_name(e->subtype));
		nvf_json_str(&j, "treq",
			     nvf_treq_name(e->treq, buf, sizeof(buf)));
		nvf_json_int(&j, "portid", e->portid);
		nvf_json_str(&j, "trsvcid", e->trsvcid);
		nvf_json_str(&j, "subnqn", e->subnqn);
		nvf_json_str(&j, "traddr", e->traddr);
		nvf_json_str(&j, "eflags",
			     nvf_eflags_name(e->eflags, buf, sizeof(buf)));
		if (e->trtype == NVF_TRTYPE_RDMA) {
			nvf_json_str(&j, "rdma_prtype",
				     nvf_name(nvf_prtypes,
					      ARRAY_SIZE(nvf_prtypes),
					      e->tsas[1]));
			nvf_json_str(&j, "rdma_qptype",
				     nvf_name(nvf_qptypes,
					      ARRAY_SIZE(nvf_qptypes),
					      e->tsas[0]));
			nvf_json_str(&j, "rdma_cms",
				     nvf_name(nvf_cms, ARRAY_SIZE(nvf_cms),
					      e->tsas[2]));
			nvf_json_int(&j, "rdma_pkey", nvf_le16(e->tsas + 8));
		} else if (e->trtype == NVF_TRTYPE_TCP) {
			nvf_json_str(&j, "sectype",
				     nvf_name(nvf_sectypes,
					      ARRAY_SIZE(nvf_sectypes),
					      e->tsas[0]));
		}
		nvf_json_end(&j, '}');
	}
	nvf_json_end(&j, ']');
	nvf_json_end(&j, '}');
}
