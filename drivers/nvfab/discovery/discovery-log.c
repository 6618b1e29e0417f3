// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery Log Page reader and parser: Log Identifier 70h (NVMe over
 * Fabrics 1.1, 5.3 "Discovery Log Page"; NVMe Base 2.0, 5.16.1.23).
 *
 * The log comes from a discovery controller and is untrusted. It is a
 * 1024-byte header (GENCTR, NUMREC, RECFMT) followed by NUMREC entries of
 * 1024 bytes each. The rules, and what breaks each one:
 *
 * Structure: the whole log is refused with an error.
 *  - a buffer shorter than the header: -EMSGSIZE;
 *  - RECFMT other than 0, the only format defined: -EPROTO;
 *  - NUMREC above NVFAB_DISC_MAX_RECORDS: -E2BIG;
 *  - NUMREC entries that the buffer cannot hold: -EMSGSIZE.
 *
 * Entries: a bad entry is skipped and counted by reason (struct
 * nvfab_disc_log), the others are used. A target that sends one entry
 * we cannot use (a transport we do not know, a typo in an address) must
 * not hide its other subsystems. The checks, in order:
 *  - TRTYPE is RDMA, FC or TCP. Loop (FEh) is reserved for host use;
 *  - ADRFAM is one the transport uses: IPv4/IPv6 for TCP, IPv4/IPv6/IB
 *    for RDMA, FC for FC;
 *  - SUBTYPE is 1h (referral), 2h (NVM subsystem) or 3h (current
 *    discovery subsystem);
 *  - the secure channel field of TREQ (bits 1:0) is not 11b (reserved);
 *    the reserved bits 7:3 are ignored, as reserved bits are;
 *  - CNTLID is not FFF0h..FFFDh (reserved): 0h..FFEFh is a static
 *    controller, FFFEh "any static controller", FFFFh the dynamic model;
 *  - TRADDR, TRSVCID and SUBNQN are ASCII strings padded to their field
 *    size (256, 32, 256 bytes). The padding is spaces, as the spec says,
 *    or NULs, as the in-kernel target sends; it is trailing spaces and
 *    NULs mixed. Before it, every byte must be printable and not a space:
 *    a NUL, a control byte, a byte above 7Eh or a space inside the value
 *    makes the entry unusable;
 *  - TRADDR is not empty and at most 255 bytes; for IPv4 and IPv6
 *    in4_pton()/in6_pton() must accept all of it (no scope suffix, no
 *    brackets);
 *  - TRSVCID is at most 31 bytes; for IPv4 and IPv6 it is a decimal port
 *    1..65535 without a sign or leading zeros (the string is part of the
 *    key future reconciliation compares, so one port has one spelling);
 *    for IB and FC it may be empty;
 *  - SUBNQN is "nqn." and at least one more character, at most 222 bytes
 *    (NVMF_NQN_SIZE, 223, counts the NUL). An NVM subsystem entry may not
 *    carry the well-known discovery NQN; a referral or current discovery
 *    subsystem entry may carry it or its own unique discovery NQN.
 *    The three limits are those of a connect (nvfab-fabrics, and the
 *    in-kernel host, store each value with its NUL in NVMF_TRADDR_SIZE,
 *    NVMF_TRSVCID_SIZE and NVMF_NQN_SIZE bytes): a value the field holds
 *    but a connect cannot take makes the entry unusable here, rather
 *    than a connect that fails forever or a value cut short;
 *  - for TCP, TSAS SECTYPE is none, TLS 1.2 or TLS 1.3. PORTID, ASQSZ and
 *    EFLAGS are copied as sent: every value is defined.
 * Duplicate entries are all kept here; reconciliation (discovery-ctrl.c)
 * keys entries by SUBTYPE, SUBNQN, TRTYPE, ADRFAM, TRADDR and TRSVCID and
 * makes one record of each key. RDMA TSAS is not checked.
 *
 * Consistency (nvfab_disc_read_log()): the log may change while it is
 * read in several commands. The header is read, then the entries, then the
 * header again; when GENCTR moved, everything is read again, at most
 * NVFAB_DISC_READ_TRIES times.
 *
 * Every field wider than a byte is read with get_unaligned_le*(), so the
 * buffers need no alignment.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/inet.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "discovery.h"

static_assert(sizeof(struct nvmf_disc_rsp_page_hdr) == NVFAB_DISC_HDR_SIZE);
static_assert(sizeof(struct nvmf_disc_rsp_page_entry) ==
	      NVFAB_DISC_ENTRY_SIZE);

static const char * const nvfab_disc_status_names[NVFAB_DISC_NR_STATUS] = {
	[NVFAB_DISC_ENTRY_OK]		= "ok",
	[NVFAB_DISC_BAD_TRTYPE]		= "TRTYPE",
	[NVFAB_DISC_BAD_ADRFAM]		= "ADRFAM",
	[NVFAB_DISC_BAD_SUBTYPE]	= "SUBTYPE",
	[NVFAB_DISC_BAD_TREQ]		= "TREQ",
	[NVFAB_DISC_BAD_CNTLID]		= "CNTLID",
	[NVFAB_DISC_BAD_TRADDR]		= "TRADDR",
	[NVFAB_DISC_BAD_TRSVCID]	= "TRSVCID",
	[NVFAB_DISC_BAD_SUBNQN]		= "SUBNQN",
	[NVFAB_DISC_BAD_TSAS]		= "TSAS",
};

/**
 * nvfab_disc_entry_status_name() - the field an entry was skipped for
 * @st: a status from nvfab_disc_parse_entry()
 *
 * Context: any context.
 * Return: a static string: the spec's name of the field, "ok", or
 * "unknown" for a value outside the enum.
 */
const char *nvfab_disc_entry_status_name(enum nvfab_disc_entry_status st)
{
	if ((unsigned int)st >= NVFAB_DISC_NR_STATUS)
		return "unknown";
	return nvfab_disc_status_names[st];
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_entry_status_name);

/**
 * nvfab_disc_parse_hdr() - validate a Discovery Log Page header
 * @buf: the log as read, from byte 0
 * @len: bytes in @buf; only the first NVFAB_DISC_HDR_SIZE are read
 * @genctr: where to put GENCTR
 * @numrec: where to put NUMREC
 *
 * Checks the header alone (NVMe over Fabrics 1.1, 5.3, Figure 37): not
 * that the entries fit @len.
 *
 * Context: any context.
 * Return: 0, with *@genctr and *@numrec set;
 * -EMSGSIZE if @len is below NVFAB_DISC_HDR_SIZE;
 * -EPROTO if RECFMT is not 0;
 * -E2BIG if NUMREC is above NVFAB_DISC_MAX_RECORDS.
 */
int nvfab_disc_parse_hdr(const void *buf, size_t len, u64 *genctr,
			 u32 *numrec)
{
	const struct nvmf_disc_rsp_page_hdr *hdr = buf;
	u64 n;

	if (len < NVFAB_DISC_HDR_SIZE)
		return -EMSGSIZE;
	if (get_unaligned_le16(&hdr->recfmt))
		return -EPROTO;
	n = get_unaligned_le64(&hdr->numrec);
	if (n > NVFAB_DISC_MAX_RECORDS)
		return -E2BIG;
	*genctr = get_unaligned_le64(&hdr->genctr);
	*numrec = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_parse_hdr);

/*
 * Copy the @size-byte padded string field @src into @dst (@size + 1
 * bytes), without its padding. Return its length, or -EINVAL when a byte
 * before the padding is not printable or is a space or NUL.
 */
static int nvfab_disc_field(const char *src, size_t size, char *dst)
{
	const u8 *s = (const u8 *)src;
	size_t n = size, i;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\0'))
		n--;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return -EINVAL;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

static bool nvfab_disc_adrfam_ok(u8 trtype, u8 adrfam)
{
	switch (adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
	case NVMF_ADDR_FAMILY_IP6:
		return trtype == NVMF_TRTYPE_TCP || trtype == NVMF_TRTYPE_RDMA;
	case NVMF_ADDR_FAMILY_IB:
		return trtype == NVMF_TRTYPE_RDMA;
	case NVMF_ADDR_FAMILY_FC:
		return trtype == NVMF_TRTYPE_FC;
	default:
		return false;
	}
}

static bool nvfab_disc_is_ip(u8 adrfam)
{
	return adrfam == NVMF_ADDR_FAMILY_IP4 || adrfam == NVMF_ADDR_FAMILY_IP6;
}

static bool nvfab_disc_traddr_ok(const char *s, int n, u8 adrfam)
{
	u8 addr[16];
	const char *end;

	if (!n || n >= NVMF_TRADDR_SIZE)
		return false;
	switch (adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
		return in4_pton(s, n, addr, -1, &end) == 1 && end == s + n;
	case NVMF_ADDR_FAMILY_IP6:
		return in6_pton(s, n, addr, -1, &end) == 1 && end == s + n;
	default:
		return true;
	}
}

/* A decimal port 1..65535 without sign or leading zero. */
static bool nvfab_disc_port_ok(const char *s, int n)
{
	unsigned int port = 0;
	int i;

	if (n < 1 || n > 5 || s[0] == '0')
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		port = port * 10 + (s[i] - '0');
	}
	return port <= 65535;
}

static bool nvfab_disc_subnqn_ok(const char *s, int n, u8 subtype)
{
	if (n <= 4 || n >= NVMF_NQN_SIZE || strncmp(s, "nqn.", 4))
		return false;
	/* Only a discovery subsystem may use the well-known discovery NQN. */
	if (subtype == NVME_NQN_NVME && !strcmp(s, NVME_DISC_SUBSYS_NAME))
		return false;
	return true;
}

/**
 * nvfab_disc_parse_entry() - validate one Discovery Log Page Entry
 * @raw: the entry as read, NVFAB_DISC_ENTRY_SIZE bytes, any alignment
 * @e: where to put the parsed entry
 *
 * Applies the entry rules at the top of discovery-log.c (NVMe over
 * Fabrics 1.1, 5.3, Figure 38). @e is filled only as far as the checks
 * got; use it only when the entry is usable.
 *
 * Context: any context.
 * Return: NVFAB_DISC_ENTRY_OK for a usable entry, else the first field
 * that makes it unusable (enum nvfab_disc_entry_status).
 */
enum nvfab_disc_entry_status
nvfab_disc_parse_entry(const struct nvmf_disc_rsp_page_entry *raw,
		       struct nvfab_disc_entry *e)
{
	int n;

	memset(e, 0, sizeof(*e));
	e->trtype = raw->trtype;
	e->adrfam = raw->adrfam;
	e->subtype = raw->subtype;
	e->treq = raw->treq;
	e->portid = get_unaligned_le16(&raw->portid);
	e->cntlid = get_unaligned_le16(&raw->cntlid);
	e->asqsz = get_unaligned_le16(&raw->asqsz);
	e->eflags = get_unaligned_le16(&raw->eflags);
	e->sectype = NVMF_TCP_SECTYPE_NONE;

	switch (e->trtype) {
	case NVMF_TRTYPE_RDMA:
	case NVMF_TRTYPE_FC:
	case NVMF_TRTYPE_TCP:
		break;
	default:
		return NVFAB_DISC_BAD_TRTYPE;
	}
	if (!nvfab_disc_adrfam_ok(e->trtype, e->adrfam))
		return NVFAB_DISC_BAD_ADRFAM;
	switch (e->subtype) {
	case NVME_NQN_DISC:
	case NVME_NQN_NVME:
	case NVME_NQN_CURR:
		break;
	default:
		return NVFAB_DISC_BAD_SUBTYPE;
	}
	if ((e->treq & NVME_TREQ_SECURE_CHANNEL_MASK) ==
	    NVME_TREQ_SECURE_CHANNEL_MASK)
		return NVFAB_DISC_BAD_TREQ;
	if (e->cntlid > NVME_CNTLID_MAX && e->cntlid < 0xfffe)
		return NVFAB_DISC_BAD_CNTLID;

	n = nvfab_disc_field(raw->traddr, sizeof(raw->traddr), e->traddr);
	if (n < 0 || !nvfab_disc_traddr_ok(e->traddr, n, e->adrfam))
		return NVFAB_DISC_BAD_TRADDR;

	n = nvfab_disc_field(raw->trsvcid, sizeof(raw->trsvcid), e->trsvcid);
	if (n < 0 || n >= NVMF_TRSVCID_SIZE ||
	    (nvfab_disc_is_ip(e->adrfam) && !nvfab_disc_port_ok(e->trsvcid, n)))
		return NVFAB_DISC_BAD_TRSVCID;

	n = nvfab_disc_field(raw->subnqn, sizeof(raw->subnqn), e->subnqn);
	if (n < 0 || !nvfab_disc_subnqn_ok(e->subnqn, n, e->subtype))
		return NVFAB_DISC_BAD_SUBNQN;

	if (e->trtype == NVMF_TRTYPE_TCP) {
		e->sectype = raw->tsas.tcp.sectype;
		switch (e->sectype) {
		case NVMF_TCP_SECTYPE_NONE:
		case NVMF_TCP_SECTYPE_TLS12:
		case NVMF_TCP_SECTYPE_TLS13:
			break;
		default:
			return NVFAB_DISC_BAD_TSAS;
		}
	}
	return NVFAB_DISC_ENTRY_OK;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_parse_entry);

/**
 * nvfab_disc_log_free() - free a log from nvfab_disc_parse_log()
 * @log: the log; NULL and error pointers are ignored
 *
 * Context: process context.
 */
void nvfab_disc_log_free(struct nvfab_disc_log *log)
{
	if (!IS_ERR_OR_NULL(log))
		kvfree(log);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_log_free);

/**
 * nvfab_disc_parse_log() - validate a whole Discovery Log Page
 * @buf: the log as read, from byte 0, any alignment
 * @len: bytes in @buf: at least the header and NUMREC entries; bytes after
 *	the last entry are ignored
 *
 * Applies the structure rules at the top of discovery-log.c, then
 * nvfab_disc_parse_entry() to each of the NUMREC entries: usable entries
 * are kept in log order, the others counted by reason (NVMe over Fabrics
 * 1.1, 5.3). Reads nothing outside @buf[0..@len).
 *
 * Context: process context; may sleep (allocates with GFP_KERNEL, up to
 * about 600 KiB for NVFAB_DISC_MAX_RECORDS entries).
 * Return: the log, to free with nvfab_disc_log_free(), or an ERR_PTR():
 * -EINVAL if @buf is NULL;
 * -EMSGSIZE if @len holds less than the header and NUMREC entries;
 * -EPROTO if RECFMT is not 0;
 * -E2BIG if NUMREC is above NVFAB_DISC_MAX_RECORDS;
 * -ENOMEM.
 */
struct nvfab_disc_log *nvfab_disc_parse_log(const void *buf, size_t len)
{
	const struct nvmf_disc_rsp_page_entry *raw;
	enum nvfab_disc_entry_status st;
	struct nvfab_disc_log *log;
	u32 numrec, i;
	u64 genctr;
	int ret;

	if (!buf)
		return ERR_PTR(-EINVAL);
	ret = nvfab_disc_parse_hdr(buf, len, &genctr, &numrec);
	if (ret)
		return ERR_PTR(ret);
	/* numrec <= NVFAB_DISC_MAX_RECORDS: no overflow. */
	if ((len - NVFAB_DISC_HDR_SIZE) / NVFAB_DISC_ENTRY_SIZE < numrec)
		return ERR_PTR(-EMSGSIZE);

	log = kvzalloc(struct_size(log, entries, numrec), GFP_KERNEL);
	if (!log)
		return ERR_PTR(-ENOMEM);
	log->genctr = genctr;
	log->numrec = numrec;
	raw = buf + NVFAB_DISC_HDR_SIZE;
	for (i = 0; i < numrec; i++) {
		st = nvfab_disc_parse_entry(&raw[i],
					    &log->entries[log->nr_entries]);
		if (st == NVFAB_DISC_ENTRY_OK) {
			log->nr_entries++;
		} else {
			log->nr_skipped++;
			log->skipped[st]++;
		}
	}
	return log;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_parse_log);

/* Read @len bytes at @offset in commands of at most @max_xfer bytes. */
static int nvfab_disc_get(nvfab_disc_get_log_fn get_log, void *ctx,
			  u64 offset, void *buf, size_t len, size_t max_xfer)
{
	size_t done = 0, n;
	int ret;

	while (done < len) {
		n = min(len - done, max_xfer);
		ret = get_log(ctx, offset + done, buf + done, n);
		if (ret)
			return ret < 0 ? ret : -EIO;
		done += n;
	}
	return 0;
}

/**
 * nvfab_disc_read_log() - read and validate the Discovery Log Page
 * @get_log: reads part of the log (one Get Log Page, LID 70h)
 * @ctx: passed to @get_log
 * @max_xfer: most bytes one @get_log call may read (the controller's
 *	MDTS); rounded down to a multiple of 4 and raised to at least 4. 0
 *	means no limit
 *
 * Follows the spec's rule for a log that may change while it is read
 * (NVMe over Fabrics 1.1, 5.3; NVMe Base 2.0, 5.16.1.23): read the
 * header for GENCTR and NUMREC, then the NUMREC entries, then the header
 * again; if GENCTR moved the log changed underneath, and it is read again
 * from the start, at most NVFAB_DISC_READ_TRIES times in all. The log
 * read is then validated by nvfab_disc_parse_log(). Since @get_log cannot
 * report a short transfer, the buffers start zeroed: entries a target
 * did not send read as TRTYPE 0 and are skipped.
 *
 * Context: process context; may sleep (allocates with GFP_KERNEL; @get_log
 * may sleep).
 * Return: the log, to free with nvfab_disc_log_free(), or an ERR_PTR():
 * -EINVAL if @get_log is NULL;
 * a negative errno from @get_log, or -EIO for an NVMe status from it;
 * -EPROTO if RECFMT is not 0, or if the header read after the entries
 * has the same GENCTR but another NUMREC or RECFMT;
 * -E2BIG if NUMREC is above NVFAB_DISC_MAX_RECORDS;
 * -EAGAIN if GENCTR moved during each of NVFAB_DISC_READ_TRIES reads;
 * -ENOMEM.
 */
struct nvfab_disc_log *nvfab_disc_read_log(nvfab_disc_get_log_fn get_log,
					   void *ctx, size_t max_xfer)
{
	struct nvmf_disc_rsp_page_hdr *again = NULL;
	struct nvfab_disc_log *log;
	u64 genctr, genctr2;
	u32 numrec, numrec2;
	void *buf = NULL;
	size_t size = 0;
	int tries, ret;

	if (!get_log)
		return ERR_PTR(-EINVAL);
	if (!max_xfer)
		max_xfer = SIZE_MAX;
	max_xfer = max_t(size_t, round_down(max_xfer, 4), 4);

	again = kzalloc(NVFAB_DISC_HDR_SIZE, GFP_KERNEL);
	if (!again)
		return ERR_PTR(-ENOMEM);

	ret = -EAGAIN;
	for (tries = 0; tries < NVFAB_DISC_READ_TRIES; tries++) {
		kvfree(buf);
		buf = NULL;
		memset(again, 0, NVFAB_DISC_HDR_SIZE);
		ret = nvfab_disc_get(get_log, ctx, 0, again,
				     NVFAB_DISC_HDR_SIZE, max_xfer);
		if (ret)
			break;
		ret = nvfab_disc_parse_hdr(again, NVFAB_DISC_HDR_SIZE,
					   &genctr, &numrec);
		if (ret)
			break;

		size = NVFAB_DISC_HDR_SIZE +
		       (size_t)numrec * NVFAB_DISC_ENTRY_SIZE;
		buf = kvzalloc(size, GFP_KERNEL);
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		memcpy(buf, again, NVFAB_DISC_HDR_SIZE);
		ret = nvfab_disc_get(get_log, ctx, NVFAB_DISC_HDR_SIZE,
				     buf + NVFAB_DISC_HDR_SIZE,
				     size - NVFAB_DISC_HDR_SIZE, max_xfer);
		if (ret)
			break;

		memset(again, 0, NVFAB_DISC_HDR_SIZE);
		ret = nvfab_disc_get(get_log, ctx, 0, again,
				     NVFAB_DISC_HDR_SIZE, max_xfer);
		if (ret)
			break;
		genctr2 = get_unaligned_le64(&again->genctr);
		if (genctr2 != genctr) {
			ret = -EAGAIN;
			continue;
		}
		/* Same generation, other shape: the target is broken. */
		ret = nvfab_disc_parse_hdr(again, NVFAB_DISC_HDR_SIZE,
					   &genctr2, &numrec2);
		if (ret || numrec2 != numrec)
			ret = -EPROTO;
		break;
	}
	kfree(again);
	if (ret) {
		kvfree(buf);
		return ERR_PTR(ret);
	}
	log = nvfab_disc_parse_log(buf, size);
	kvfree(buf);
	return log;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_disc_read_log);
