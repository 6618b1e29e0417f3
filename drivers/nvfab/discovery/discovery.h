/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Discovery Log Page (Log Identifier 70h; NVMe over Fabrics 1.1, 5.3, and
 * NVMe Base 2.0, 5.16.1.23): the interface between discovery-log.c, which
 * reads and validates a log sent by a discovery controller, and its users.
 */
#ifndef _NVFAB_DISCOVERY_H
#define _NVFAB_DISCOVERY_H

#include <linux/nvme.h>
#include <linux/types.h>

/* The log header and every Discovery Log Page Entry are 1024 bytes. */
#define NVFAB_DISC_HDR_SIZE	1024
#define NVFAB_DISC_ENTRY_SIZE	1024

/*
 * Most records (NUMREC) a log may hold: a log above it is refused whole.
 * 1024 records are a 1 MiB log; the in-kernel target sends one per
 * (port, subsystem) pair it exposes to the host, plus referrals.
 */
#define NVFAB_DISC_MAX_RECORDS	1024U

/* Reads of the whole log before a GENCTR that keeps moving is an error. */
#define NVFAB_DISC_READ_TRIES	3

/*
 * Why an entry was skipped. The first check that fails names it; the
 * checks run in this order. NVFAB_DISC_ENTRY_OK is a usable entry.
 */
enum nvfab_disc_entry_status {
	NVFAB_DISC_ENTRY_OK = 0,
	NVFAB_DISC_BAD_TRTYPE,		/* not RDMA, FC or TCP */
	NVFAB_DISC_BAD_ADRFAM,		/* unknown, or not one TRTYPE uses */
	NVFAB_DISC_BAD_SUBTYPE,		/* not referral, NVM, current discovery */
	NVFAB_DISC_BAD_TREQ,		/* secure channel field 11b (reserved) */
	NVFAB_DISC_BAD_CNTLID,		/* FFF0h..FFFDh (reserved) */
	NVFAB_DISC_BAD_TRADDR,
	NVFAB_DISC_BAD_TRSVCID,
	NVFAB_DISC_BAD_SUBNQN,
	NVFAB_DISC_BAD_TSAS,		/* TCP SECTYPE not defined */
	NVFAB_DISC_NR_STATUS,
};

/**
 * struct nvfab_disc_entry - one validated Discovery Log Page Entry
 * @trtype: TRTYPE, one of NVMF_TRTYPE_RDMA, NVMF_TRTYPE_FC, NVMF_TRTYPE_TCP
 * @adrfam: ADRFAM, one that @trtype uses (NVMF_ADDR_FAMILY_*)
 * @subtype: SUBTYPE: NVME_NQN_DISC (referral), NVME_NQN_NVME (NVM
 *	subsystem) or NVME_NQN_CURR (current discovery subsystem)
 * @treq: TREQ as sent; its secure channel field (bits 1:0) is not 11b
 * @sectype: TSAS SECTYPE for TCP (NVMF_TCP_SECTYPE_NONE, _TLS12 or _TLS13);
 *	NVMF_TCP_SECTYPE_NONE for the other transports
 * @portid: PORTID
 * @cntlid: CNTLID: 0h..FFEFh (static model), FFFEh (static model, any
 *	controller) or FFFFh (NVME_CNTLID_DYNAMIC)
 * @asqsz: ASQSZ, the admin submission queue size, as sent
 * @eflags: EFLAGS as sent (NVME_DISC_EFLAGS_*)
 * @traddr: TRADDR without its padding, NUL-terminated, never empty, shorter
 *	than NVMF_TRADDR_SIZE; for IPv4 and IPv6 an address that
 *	in4_pton()/in6_pton() accept
 * @trsvcid: TRSVCID without its padding, NUL-terminated, shorter than
 *	NVMF_TRSVCID_SIZE; for IPv4 and IPv6 a port 1..65535 in decimal
 *	without leading zeros, else possibly empty
 * @subnqn: SUBNQN without its padding, NUL-terminated, "nqn." and at least
 *	one more character, shorter than NVMF_NQN_SIZE (which counts the NUL)
 */
struct nvfab_disc_entry {
	u8 trtype;
	u8 adrfam;
	u8 subtype;
	u8 treq;
	u8 sectype;
	u16 portid;
	u16 cntlid;
	u16 asqsz;
	u16 eflags;
	char traddr[NVMF_TRADDR_SIZE + 1];
	char trsvcid[NVMF_TRSVCID_SIZE + 1];
	char subnqn[NVMF_NQN_FIELD_LEN + 1];
};

/**
 * struct nvfab_disc_log - a validated Discovery Log Page
 * @genctr: GENCTR of the log
 * @numrec: NUMREC: records in the log, usable or not
 * @nr_entries: usable records, in @entries, in log order
 * @nr_skipped: records skipped, @numrec - @nr_entries
 * @skipped: records skipped, per enum nvfab_disc_entry_status
 * @entries: the usable records
 */
struct nvfab_disc_log {
	u64 genctr;
	u32 numrec;
	u32 nr_entries;
	u32 nr_skipped;
	u32 skipped[NVFAB_DISC_NR_STATUS];
	struct nvfab_disc_entry entries[];
};

/**
 * typedef nvfab_disc_get_log_fn - read part of the Discovery Log Page
 * @ctx: the caller's cookie
 * @offset: byte offset into the log (LPO), a multiple of 4
 * @buf: where to put the bytes
 * @len: bytes to read, a multiple of 4, at least 4
 *
 * For a discovery controller this is one Get Log Page command with LID
 * 70h (nvfab_get_log() with NVME_LOG_DISC). Fewer bytes than @len cannot
 * be reported: a short transfer leaves the rest of @buf as it was.
 *
 * Context: process context; may sleep.
 * Return: 0 once @len bytes are in @buf, a negative errno, or a positive
 * NVMe status.
 */
typedef int (*nvfab_disc_get_log_fn)(void *ctx, u64 offset, void *buf,
				     size_t len);

int nvfab_disc_parse_hdr(const void *buf, size_t len, u64 *genctr,
			 u32 *numrec);
enum nvfab_disc_entry_status
nvfab_disc_parse_entry(const struct nvmf_disc_rsp_page_entry *raw,
		       struct nvfab_disc_entry *e);
struct nvfab_disc_log *nvfab_disc_parse_log(const void *buf, size_t len);
struct nvfab_disc_log *nvfab_disc_read_log(nvfab_disc_get_log_fn get_log,
					   void *ctx, size_t max_xfer);
void nvfab_disc_log_free(struct nvfab_disc_log *log);
const char *nvfab_disc_entry_status_name(enum nvfab_disc_entry_status st);

#endif /* _NVFAB_DISCOVERY_H */
