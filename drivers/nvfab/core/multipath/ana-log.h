/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ANA log page parser (NVMe Base 2.0, 5.16.1.12): the interface between
 * ana-log.c, which validates a log read from the target, and its callers.
 */
#ifndef _NVFAB_ANA_LOG_H
#define _NVFAB_ANA_LOG_H

#include <linux/nvme.h>
#include <linux/types.h>

struct device;
struct va_format;

/* ANA State field: bits 3:0 of byte 16 of a descriptor; bits 7:4 reserved. */
#define NVFAB_ANA_STATE_MASK	0x0f

/**
 * nvfab_ana_desc_state() - the ANA state of a validated group descriptor
 * @desc: a descriptor handed out by nvfab_parse_ana_log()
 *
 * The parser ignores the reserved high nibble of the state byte, so callers
 * must read the state through this helper, never as @desc->state.
 *
 * Context: any context.
 * Return: one of enum nvme_ana_state.
 */
static inline enum nvme_ana_state
nvfab_ana_desc_state(const struct nvme_ana_group_desc *desc)
{
	return desc->state & NVFAB_ANA_STATE_MASK;
}

/**
 * typedef nvfab_ana_desc_fn - called for each descriptor of a valid ANA log
 * @desc: the descriptor, inside the caller's buffer; its NNSIDS NSIDs follow
 *	it, valid and strictly ascending (and in no other descriptor, unless
 *	the log is too large for that check; see ana-log.c)
 * @data: the caller's cookie
 *
 * Context: whatever context the caller of nvfab_parse_ana_log() is in.
 * Return: 0 to go on, or a negative errno to stop the walk and make
 * nvfab_parse_ana_log() return it.
 */
typedef int (*nvfab_ana_desc_fn)(const struct nvme_ana_group_desc *desc,
				 void *data);

int nvfab_parse_ana_log(const void *buf, size_t len, u32 nanagrpid,
			u32 anagrpmax, nvfab_ana_desc_fn fn, void *data,
			struct device *dev);
size_t nvfab_ana_log_size(u32 nanagrpid, u32 max_nsids, size_t limit);

#if IS_ENABLED(CONFIG_KUNIT)
void nvfab_ana_log_report(struct device *dev, const struct va_format *vaf);
#endif

#endif /* _NVFAB_ANA_LOG_H */
