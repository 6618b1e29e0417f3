// SPDX-License-Identifier: GPL-2.0
/*
 * Identify Controller (NVMe Base 2.0, 5.17.2.1) as the host sees it: the
 * data structure comes from the target and is untrusted. This file checks
 * it against the association it was read over and derives the limits the
 * rest of nvfab uses. It has no side effects, so that KUnit can feed it
 * every malformed structure a target could send.
 */
#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/nvme.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "nvfab.h"

/* Largest transfer nvfab builds, whatever MDTS allows (bytes). */
#define NVFAB_MAX_TRANSFER	SZ_8M

/* Copy a fixed-width, space- or NUL-padded identify string. */
static void nvfab_copy_id_str(char *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len);

	while (n && src[n - 1] == ' ')
		n--;
	memcpy(dst, src, n);
	if (n < len)
		dst[n] = '\0';
}

/*
 * MDTS is a power of two in units of the minimum memory page size
 * (CAP.MPSMIN, 4 KiB << MPSMIN); 0 means no limit. A limit of 4 GiB or more
 * cannot be shifted into 32 bits and is no limit for nvfab either.
 */
static u32 nvfab_mdts_to_sectors(u8 mdts, u64 cap)
{
	unsigned int shift = 12 + NVME_CAP_MPSMIN(cap);
	u32 max_bytes = NVFAB_MAX_TRANSFER;

	if (mdts && mdts < 32 - shift)
		max_bytes = min_t(u32, max_bytes, 1U << (mdts + shift));
	return max_bytes >> SECTOR_SHIFT;
}

/**
 * nvfab_check_id_ctrl() - check Identify Controller and derive limits
 * @id: Identify Controller data as the controller returned it (untrusted)
 * @want_nqn: the subsystem NQN given to Connect
 * @discovery: the association is with a discovery controller
 * @cap: the CAP property (for CAP.MPSMIN)
 * @cntlid: the Controller ID the admin Connect response returned
 * @out: what nvfab keeps; written only on success
 * @dev: device for messages, or NULL
 *
 * NVMe Base 2.0, 5.17.2.1; NVMe over Fabrics 1.1, 4.1 (IOCCSZ, IORCSZ).
 * SUBNQN must be NUL terminated within NVMF_NQN_SIZE bytes and, unless
 * @discovery, non-empty and equal to @want_nqn. A discovery controller may
 * report its own unique discovery NQN, so SUBNQN is not compared for it.
 * CNTLID must be a valid Controller ID and the one from Connect. An I/O
 * controller must take at least a 64-byte command capsule and a 16-byte
 * response capsule, and its IOCCSZ in bytes must fit 32 bits. SGLs must be
 * supported. MAXCMD, mandatory for fabrics, must not be 0. An I/O
 * controller's SQES and CQES must require 64-byte submission and 16-byte
 * completion queue entries (their NVM command set sizes), with a maximum
 * no smaller than the required size. CNTRLTYPE must be 0 (not reported,
 * before NVMe 1.4) or the type connected to: 2 (discovery) for a
 * @discovery association, 1 (I/O) otherwise; an administrative controller
 * (3) has no I/O queues and is refused, as are the reserved values.
 * MDTS (in CAP.MPSMIN pages) becomes @out->max_hw_sectors, capped at
 * 8 MiB.
 *
 * Context: any context.
 * Return: 0 with @out filled in, or -EINVAL when a field is invalid (one
 * message names it).
 */
int nvfab_check_id_ctrl(const struct nvme_id_ctrl *id, const char *want_nqn,
			bool discovery, u64 cap, u16 cntlid,
			struct nvfab_id_info *out, struct device *dev)
{
	u32 ioccsz = le32_to_cpu(id->ioccsz);
	u32 iorcsz = le32_to_cpu(id->iorcsz);
	u16 id_cntlid = le16_to_cpu(id->cntlid);
	size_t nqn_len;

	BUILD_BUG_ON(sizeof(out->subsysnqn) != NVMF_NQN_SIZE);
	BUILD_BUG_ON(sizeof(out->serial) != sizeof(id->sn));
	BUILD_BUG_ON(sizeof(out->model) != sizeof(id->mn));
	BUILD_BUG_ON(sizeof(out->firmware_rev) != sizeof(id->fr));

	nqn_len = strnlen(id->subnqn, NVMF_NQN_SIZE);
	if (nqn_len >= NVMF_NQN_SIZE) {
		dev_err(dev, "Identify: SUBNQN not terminated within %d bytes\n",
			NVMF_NQN_SIZE);
		return -EINVAL;
	}
	if (!discovery && !nqn_len) {
		dev_err(dev, "Identify: SUBNQN is empty\n");
		return -EINVAL;
	}
	if (!discovery && strcmp(id->subnqn, want_nqn)) {
		dev_err(dev, "Identify: SUBNQN '%s' is not the NQN connected to ('%s')\n",
			id->subnqn, want_nqn);
		return -EINVAL;
	}
	if (!discovery && ioccsz < 4) {
		dev_err(dev, "Identify: IOCCSZ %u is below the 64-byte SQE\n",
			ioccsz);
		return -EINVAL;
	}
	if (!discovery && ioccsz > U32_MAX / 16) {
		dev_err(dev, "Identify: IOCCSZ %u overflows 32 bits in bytes\n",
			ioccsz);
		return -EINVAL;
	}
	if (!discovery && iorcsz < 1) {
		dev_err(dev, "Identify: IORCSZ %u is below the 16-byte CQE\n",
			iorcsz);
		return -EINVAL;
	}
	if (!le16_to_cpu(id->maxcmd)) {
		dev_err(dev, "Identify: MAXCMD is 0 (mandatory for fabrics)\n");
		return -EINVAL;
	}
	if (!discovery && ((id->sqes & 0xf) != NVME_NVM_IOSQES ||
			   (id->sqes >> 4) < NVME_NVM_IOSQES)) {
		dev_err(dev, "Identify: SQES 0x%02x does not give 64-byte SQ entries\n",
			id->sqes);
		return -EINVAL;
	}
	if (!discovery && ((id->cqes & 0xf) != NVME_NVM_IOCQES ||
			   (id->cqes >> 4) < NVME_NVM_IOCQES)) {
		dev_err(dev, "Identify: CQES 0x%02x does not give 16-byte CQ entries\n",
			id->cqes);
		return -EINVAL;
	}
	if (!(le32_to_cpu(id->sgls) & 0x3)) {
		dev_err(dev, "Identify: controller does not support SGLs\n");
		return -EINVAL;
	}
	if (id->cntrltype &&
	    id->cntrltype != (discovery ? NVME_CTRL_DISC : NVME_CTRL_IO)) {
		dev_err(dev, "Identify: CNTRLTYPE %u (%s) where %s controller was connected to\n",
			id->cntrltype,
			id->cntrltype == NVME_CTRL_IO ? "I/O" :
			id->cntrltype == NVME_CTRL_DISC ? "discovery" :
			id->cntrltype == NVME_CTRL_ADMIN ? "administrative" :
			"reserved", discovery ? "a discovery" : "an I/O");
		return -EINVAL;
	}
	if (id_cntlid > NVME_CNTLID_MAX) {
		dev_err(dev, "Identify: CNTLID 0x%x is reserved\n", id_cntlid);
		return -EINVAL;
	}
	if (id_cntlid != cntlid) {
		dev_err(dev, "Identify: CNTLID %u is not the Controller ID from Connect (%u)\n",
			id_cntlid, cntlid);
		return -EINVAL;
	}

	memset(out, 0, sizeof(*out));
	out->vid = le16_to_cpu(id->vid);
	memcpy(out->subsysnqn, id->subnqn, nqn_len);
	nvfab_copy_id_str(out->serial, id->sn, sizeof(out->serial));
	nvfab_copy_id_str(out->model, id->mn, sizeof(out->model));
	nvfab_copy_id_str(out->firmware_rev, id->fr, sizeof(out->firmware_rev));
	out->ioccsz = ioccsz;
	out->iorcsz = iorcsz;
	out->icdoff = le16_to_cpu(id->icdoff);
	out->kas = le16_to_cpu(id->kas);
	out->oaes = le32_to_cpu(id->oaes);
	out->ctratt_tbkas = !!(le32_to_cpu(id->ctratt) & NVME_CTRL_ATTR_TBKAS);
	out->nn = le32_to_cpu(id->nn);
	out->sgls = le32_to_cpu(id->sgls);
	out->oncs = le16_to_cpu(id->oncs);
	out->vwc = id->vwc;
	out->max_hw_sectors = nvfab_mdts_to_sectors(id->mdts, cap);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_check_id_ctrl);
