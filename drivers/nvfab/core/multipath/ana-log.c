// SPDX-License-Identifier: GPL-2.0
/*
 * ANA log page parser: Asymmetric Namespace Access log, LID 0Ch (NVMe Base
 * 2.0, 5.16.1.12).
 *
 * The log comes from the target and is untrusted. It is a 16-byte header,
 * whose NGRPS counts the ANA Group Descriptors that follow it back to back;
 * each descriptor is 32 bytes followed by NNSIDS 4-byte NSIDs. The host
 * reads as many bytes as the largest log could need (nvfab_ana_log_size()),
 * so the buffer is usually longer than the log: bytes after the last
 * descriptor are ignored. A short buffer is never "the log so far": NGRPS
 * and NNSIDS say how long the log is, and a buffer that cannot hold all of
 * it is rejected.
 *
 * nvfab_parse_ana_log() works in two passes, so that a bad log changes
 * nothing in the caller:
 *
 * 1. Validate. Walk the NGRPS descriptors; bound each one by the buffer
 *    before reading it; check that its ANAGRPID is in 1..ANAGRPMAX, that its
 *    state is one the spec defines, that its NNSIDS NSIDs fit, and that
 *    they are valid and strictly ascending (the in-kernel host already
 *    relies on that order when it walks the lists; it also makes a repeat
 *    inside one descriptor impossible). Then check across descriptors that
 *    no ANAGRPID and no NSID appears twice: every pair of descriptors is
 *    compared, and their sorted NSID lists are merged. For G descriptors
 *    holding N NSIDs in all, that is G * (G - 1) / 2 + (G - 1) * N steps;
 *    the count is computed first, and a log that would take more than
 *    NVFAB_ANA_DUP_BUDGET steps skips this cross-descriptor check.
 * 2. Report. Walk the now trusted descriptors again and hand each one to
 *    the caller's function, in log order.
 *
 * Nothing is allocated, nothing sleeps, and every field that is wider than a
 * byte is read with get_unaligned_*(), so the buffer needs no alignment.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/unaligned.h>

#include "ana-log.h"

/*
 * Most steps the cross-descriptor duplicate check may take: a few
 * milliseconds of CPU at worst. It covers any log of up to 2896
 * descriptors without NSIDs, or e.g. 128 groups with 32768 namespaces; the
 * in-kernel target's largest log (128 groups, 1024 namespaces) takes under
 * 140000 steps. A larger log is still bounded and checked descriptor by
 * descriptor, but a target that repeats an ANAGRPID or an NSID across its
 * descriptors then makes the caller see it twice (the later descriptor
 * wins): a wrong ANA state, not a memory hazard.
 */
#define NVFAB_ANA_DUP_BUDGET	4194304U	/* 2^22 */

/**
 * nvfab_ana_log_report() - print why an ANA log was rejected
 * @dev: device to name in the message, or NULL
 * @vaf: the message
 *
 * The one place that prints parser errors, so that KUnit can stub it to
 * count them.
 *
 * Context: any context.
 */
VISIBLE_IF_KUNIT void nvfab_ana_log_report(struct device *dev,
					   const struct va_format *vaf)
{
	KUNIT_STATIC_STUB_REDIRECT(nvfab_ana_log_report, dev, vaf);

	if (dev)
		dev_err(dev, "ANA log: %pV", vaf);
	else
		pr_err("ANA log: %pV", vaf);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_ana_log_report);

static __printf(2, 3) void nvfab_ana_invalid(struct device *dev,
					     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	nvfab_ana_log_report(dev, &vaf);
	va_end(args);
}

static u32 nvfab_ana_nnsids(const struct nvme_ana_group_desc *desc)
{
	return get_unaligned_le32(&desc->nnsids);
}

static u32 nvfab_ana_nsid(const struct nvme_ana_group_desc *desc, u32 i)
{
	return get_unaligned_le32(&desc->nsids[i]);
}

/* Bytes of a descriptor whose NNSIDS has already been checked to fit. */
static size_t nvfab_ana_desc_len(const struct nvme_ana_group_desc *desc)
{
	return sizeof(*desc) + (size_t)nvfab_ana_nnsids(desc) * sizeof(__le32);
}

/*
 * Check descriptor @idx, which starts @off bytes into the @len-byte log
 * (@off <= @len). On success *@next is the offset just past it.
 */
static int nvfab_ana_check_desc(const u8 *buf, size_t len, size_t off,
				unsigned int idx, u32 anagrpmax,
				struct device *dev, size_t *next)
{
	const struct nvme_ana_group_desc *desc;
	u32 grpid, nnsids, nsid, prev = 0, i;
	size_t bytes;
	u8 state;

	if (len - off < sizeof(*desc)) {
		nvfab_ana_invalid(dev, "descriptor %u at byte %zu overruns the %zu-byte log\n",
				  idx, off, len);
		return -EINVAL;
	}
	desc = (const struct nvme_ana_group_desc *)(buf + off);

	grpid = get_unaligned_le32(&desc->grpid);
	if (!grpid || grpid > anagrpmax) {
		nvfab_ana_invalid(dev, "descriptor %u: ANAGRPID %u is not in 1..ANAGRPMAX %u\n",
				  idx, grpid, anagrpmax);
		return -EINVAL;
	}

	state = nvfab_ana_desc_state(desc);
	switch (state) {
	case NVME_ANA_OPTIMIZED:
	case NVME_ANA_NONOPTIMIZED:
	case NVME_ANA_INACCESSIBLE:
	case NVME_ANA_PERSISTENT_LOSS:
	case NVME_ANA_CHANGE:
		break;
	default:
		nvfab_ana_invalid(dev, "ANAGRPID %u: ANA state %#x (byte %#x) is not defined\n",
				  grpid, state, desc->state);
		return -EINVAL;
	}

	nnsids = nvfab_ana_nnsids(desc);
	if (check_mul_overflow((size_t)nnsids, sizeof(__le32), &bytes) ||
	    bytes > len - off - sizeof(*desc)) {
		nvfab_ana_invalid(dev, "ANAGRPID %u: NNSIDS %u overruns the %zu-byte log\n",
				  grpid, nnsids, len);
		return -EINVAL;
	}

	for (i = 0; i < nnsids; i++) {
		nsid = nvfab_ana_nsid(desc, i);
		if (!nsid || nsid == NVME_NSID_ALL) {
			nvfab_ana_invalid(dev, "ANAGRPID %u: NSID[%u] %#x is not a valid NSID\n",
					  grpid, i, nsid);
			return -EINVAL;
		}
		if (nsid <= prev) {
			nvfab_ana_invalid(dev, "ANAGRPID %u: NSID[%u] %u not above NSID[%u] %u\n",
					  grpid, i, nsid, i - 1, prev);
			return -EINVAL;
		}
		prev = nsid;
	}

	*next = off + sizeof(*desc) + bytes;
	return 0;
}

/* The lowest NSID in both (strictly ascending, checked) lists, or 0. */
static u32 nvfab_ana_common_nsid(const struct nvme_ana_group_desc *a,
				 const struct nvme_ana_group_desc *b)
{
	u32 na = nvfab_ana_nnsids(a), nb = nvfab_ana_nnsids(b);
	u32 i = 0, j = 0, x, y;

	while (i < na && j < nb) {
		x = nvfab_ana_nsid(a, i);
		y = nvfab_ana_nsid(b, j);
		if (x == y)
			return x;
		if (x < y)
			i++;
		else
			j++;
	}
	return 0;
}

/*
 * Check that no ANAGRPID and no NSID is in two of the @ngrps descriptors,
 * which hold @nsids NSIDs in all and have each passed
 * nvfab_ana_check_desc(). Skipped past NVFAB_ANA_DUP_BUDGET steps.
 */
static int nvfab_ana_check_dups(const u8 *buf, unsigned int ngrps, u64 nsids,
				struct device *dev)
{
	const struct nvme_ana_group_desc *a, *b;
	size_t aoff, boff;
	unsigned int i, j;
	u32 nsid;

	if (ngrps < 2 || nsids > NVFAB_ANA_DUP_BUDGET)
		return 0;
	/* ngrps <= U16_MAX and nsids <= 2^22: no overflow in 64 bits. */
	if ((u64)ngrps * (ngrps - 1) / 2 + (u64)(ngrps - 1) * nsids >
	    NVFAB_ANA_DUP_BUDGET)
		return 0;

	aoff = sizeof(struct nvme_ana_rsp_hdr);
	for (i = 0; i < ngrps; i++) {
		a = (const struct nvme_ana_group_desc *)(buf + aoff);
		aoff += nvfab_ana_desc_len(a);
		boff = aoff;
		for (j = i + 1; j < ngrps; j++) {
			b = (const struct nvme_ana_group_desc *)(buf + boff);
			boff += nvfab_ana_desc_len(b);
			if (get_unaligned_le32(&a->grpid) ==
			    get_unaligned_le32(&b->grpid)) {
				nvfab_ana_invalid(dev, "ANAGRPID %u is in descriptors %u and %u\n",
						  get_unaligned_le32(&a->grpid),
						  i, j);
				return -EINVAL;
			}
			nsid = nvfab_ana_common_nsid(a, b);
			if (nsid) {
				nvfab_ana_invalid(dev, "NSID %u is in ANAGRPIDs %u and %u\n",
						  nsid,
						  get_unaligned_le32(&a->grpid),
						  get_unaligned_le32(&b->grpid));
				return -EINVAL;
			}
		}
	}
	return 0;
}

/**
 * nvfab_parse_ana_log() - validate an ANA log page, then walk its groups
 * @buf: the log as read from the controller (untrusted); any alignment
 * @len: bytes of @buf that may be read; bytes after the last descriptor
 *	are ignored
 * @nanagrpid: NANAGRPID from Identify Controller: most descriptors the log
 *	may hold
 * @anagrpmax: ANAGRPMAX from Identify Controller: largest valid ANAGRPID
 * @fn: called once per descriptor, in log order, once the whole log is
 *	valid; NULL to validate only
 * @data: passed to @fn
 * @dev: device to name in messages, or NULL
 *
 * NVMe Base 2.0, 5.16.1.12 (Asymmetric Namespace Access log, LID 0Ch). The
 * log is checked completely before @fn sees any of it, so a rejected log
 * changes nothing. A log is valid when it holds its 16-byte header and all
 * NGRPS (at most @nanagrpid) descriptors within @len bytes, and each
 * descriptor has an ANAGRPID in 1..@anagrpmax, an ANA state (bits 3:0 of
 * the state byte; the reserved bits 7:4 are ignored, read the state with
 * nvfab_ana_desc_state()) that the spec defines, and NNSIDS NSIDs that are
 * neither 0 nor FFFFFFFFh and strictly ascending. No ANAGRPID and no NSID
 * may be in two descriptors; that cross-descriptor check is skipped for
 * logs too large to compare in a few milliseconds (over 2^22 steps, see
 * the comment at the top of ana-log.c). NGRPS 0 and NNSIDS 0 (e.g. with
 * Return Groups Only) are valid.
 *
 * Context: any context; does not sleep. @fn runs in the caller's context.
 * Return: 0 when the log is valid and @fn returned 0 for every descriptor;
 * -EINVAL, after one message naming the field and its value, when the
 * buffer is shorter than the header or than the log it describes, NGRPS
 * exceeds @nanagrpid, or an ANAGRPID, ANA state, NNSIDS or NSID is invalid
 * or repeated (@fn is not called); otherwise the first non-zero value @fn
 * returned, which ends the walk.
 */
int nvfab_parse_ana_log(const void *buf, size_t len, u32 nanagrpid,
			u32 anagrpmax, nvfab_ana_desc_fn fn, void *data,
			struct device *dev)
{
	const struct nvme_ana_rsp_hdr *hdr = buf;
	const struct nvme_ana_group_desc *desc;
	const u8 *p = buf;
	unsigned int ngrps, i;
	size_t off, next;
	u64 nsids = 0;
	int ret;

	BUILD_BUG_ON(sizeof(struct nvme_ana_rsp_hdr) != 16);
	BUILD_BUG_ON(sizeof(struct nvme_ana_group_desc) != 32);

	if (len < sizeof(*hdr)) {
		nvfab_ana_invalid(dev, "%zu bytes, shorter than its %zu-byte header\n",
				  len, sizeof(*hdr));
		return -EINVAL;
	}
	ngrps = get_unaligned_le16(&hdr->ngrps);
	if (ngrps > nanagrpid) {
		nvfab_ana_invalid(dev, "NGRPS %u exceeds NANAGRPID %u\n",
				  ngrps, nanagrpid);
		return -EINVAL;
	}

	off = sizeof(*hdr);
	for (i = 0; i < ngrps; i++) {
		ret = nvfab_ana_check_desc(p, len, off, i, anagrpmax, dev, &next);
		if (ret)
			return ret;
		nsids += nvfab_ana_nnsids((const void *)(p + off));
		off = next;
	}
	ret = nvfab_ana_check_dups(p, ngrps, nsids, dev);
	if (ret)
		return ret;

	if (!fn)
		return 0;
	off = sizeof(*hdr);
	for (i = 0; i < ngrps; i++) {
		desc = (const struct nvme_ana_group_desc *)(p + off);
		ret = fn(desc, data);
		if (ret)
			return ret;
		off += nvfab_ana_desc_len(desc);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_parse_ana_log);

/**
 * nvfab_ana_log_size() - bytes to read for the ANA log page
 * @nanagrpid: NANAGRPID from Identify Controller: most group descriptors
 * @max_nsids: most NSIDs the log can list (the caller's bound, e.g. NN)
 * @limit: most bytes one Get Log Page may transfer (from MDTS)
 *
 * NVMe Base 2.0, 5.16.1.12: the largest ANA log is the 16-byte header,
 * NANAGRPID 32-byte descriptors and @max_nsids 4-byte NSIDs. NGRPS is a
 * 16-bit field, so @nanagrpid counts for at most 65535 descriptors. The
 * sum is computed without overflow on 32- and 64-bit; a sum that does not
 * fit in size_t is above any @limit.
 *
 * Context: any context.
 * Return: that size in bytes, or @limit when it is smaller (also when
 * @limit is below the 16-byte header: nvfab_parse_ana_log() then rejects
 * what is read). A multiple of 4 (the dword unit of NUMD) unless capped at
 * a @limit that is not.
 */
size_t nvfab_ana_log_size(u32 nanagrpid, u32 max_nsids, size_t limit)
{
	size_t size = sizeof(struct nvme_ana_rsp_hdr), part;

	nanagrpid = min_t(u32, nanagrpid, U16_MAX);
	if (check_mul_overflow((size_t)nanagrpid,
			       sizeof(struct nvme_ana_group_desc), &part) ||
	    check_add_overflow(size, part, &size) ||
	    check_mul_overflow((size_t)max_nsids, sizeof(__le32), &part) ||
	    check_add_overflow(size, part, &size))
		return limit;
	return min(size, limit);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_ana_log_size);
