// SPDX-License-Identifier: GPL-2.0
/*
 * Commands Supported and Effects (NVMe Base 2.0, 5.16.1.6): what an admin
 * command sent through passthrough does to the namespaces and to the
 * controller. A Format NVM changes the LBA format under the block layer, so
 * I/O must stop around it and the namespaces must be scanned again after
 * it.
 *
 * The log is read at each (re)connect when Identify Controller says it
 * exists (LPA bit 1). A target is untrusted: the effects nvfab knows from
 * the specification for Format NVM, Sanitize and Namespace Management /
 * Attachment are added to what the log says, so that a log understating
 * them cannot make the host skip the freeze or the rescan.
 */
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "nvfab.h"

/* What the specification says these admin commands may change. */
static u32 nvfab_known_admin_effects(u8 opcode)
{
	switch (opcode) {
	case nvme_admin_format_nvm:
	case nvme_admin_sanitize_nvm:
		return NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC |
		       NVME_CMD_EFFECTS_NCC | NVME_CMD_EFFECTS_NIC |
		       NVME_CMD_EFFECTS_CSE_MASK;
	case nvme_admin_ns_mgmt:
	case nvme_admin_ns_attach:
		return NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_NCC |
		       NVME_CMD_EFFECTS_NIC;
	default:
		return 0;
	}
}

/**
 * nvfab_read_effects() - read the Commands Supported and Effects log
 * @ctrl: a controller whose admin queue is live
 * @lpa: Log Page Attributes from Identify Controller
 *
 * Keeps the admin command effects (ACS) in @ctrl->admin_effects. Without
 * the log, or when reading it fails, the table is cleared and only the
 * known effects apply: the controller still connects.
 *
 * Context: process context; may sleep (an admin command).
 */
void nvfab_read_effects(struct nvfab_ctrl *ctrl, u8 lpa)
{
	struct nvme_effects_log *log;
	unsigned int i;
	int ret;

	if (!(lpa & NVME_CTRL_LPA_CMD_EFFECTS_LOG))
		goto clear;
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		goto clear;
	ret = nvfab_get_log(ctrl, NVME_LOG_CMD_EFFECTS, NVME_NSID_ALL, log,
			    sizeof(*log), 0);
	if (ret) {
		dev_warn(ctrl->device, "Commands Supported and Effects log: %d; using the known effects only\n",
			 ret);
		kfree(log);
		goto clear;
	}
	for (i = 0; i < ARRAY_SIZE(ctrl->admin_effects); i++)
		WRITE_ONCE(ctrl->admin_effects[i], le32_to_cpu(log->acs[i]));
	kfree(log);
	return;
clear:
	for (i = 0; i < ARRAY_SIZE(ctrl->admin_effects); i++)
		WRITE_ONCE(ctrl->admin_effects[i], 0);
}

/**
 * nvfab_admin_effects() - the effects of an admin command
 * @ctrl: the controller
 * @opcode: the admin opcode
 *
 * Context: any context.
 * Return: NVME_CMD_EFFECTS_* bits: the log's, and the known ones.
 */
u32 nvfab_admin_effects(struct nvfab_ctrl *ctrl, u8 opcode)
{
	return READ_ONCE(ctrl->admin_effects[opcode]) |
	       nvfab_known_admin_effects(opcode);
}
