// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous events (NVMe Base 2.0, 5.2): the events nvfab enables, the
 * Asynchronous Event Request kept outstanding while the controller is
 * live, and what a completed one triggers (namespace scan, ANA log read,
 * the discovery log change notifier).
 */
#include <nvfab/compat.h>
#include "nvfab.h"
#include "trace.h"

/**
 * nvfab_enable_aen() - enable the asynchronous events nvfab handles
 * @ctrl: the controller
 *
 * Set Features, Asynchronous Event Configuration (NVMe Base 2.0,
 * 5.27.1.7): namespace attribute, ANA and discovery log changes, as far
 * as the controller supports them. A failure is only logged.
 *
 * Context: may sleep.
 */
void nvfab_enable_aen(struct nvfab_ctrl *ctrl)
{
	u32 supported = ctrl->oaes & (NVME_AEN_CFG_NS_ATTR |
				      NVME_AEN_CFG_ANA_CHANGE |
				      NVME_AEN_CFG_DISC_CHANGE);
	int ret;

	if (!supported)
		return;
	ret = nvfab_set_features(ctrl, NVME_FEAT_ASYNC_EVENT, supported, NULL);
	if (ret)
		dev_warn(ctrl->device, "enabling AENs 0x%x failed: %d\n",
			 supported, ret);
}

/**
 * nvfab_async_event_work() - arm an Asynchronous Event Request
 * @work: ctrl->async_event_work
 *
 * Context: nvfab_wq.
 */
void nvfab_async_event_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       async_event_work);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE)
		return;
	ctrl->ops->submit_async_event(ctrl);
}

/**
 * nvfab_queue_scan() - schedule a namespace scan
 * @ctrl: the controller
 *
 * Context: any context.
 * Return: 0, or -EBUSY if the controller is not live.
 */
int nvfab_queue_scan(struct nvfab_ctrl *ctrl)
{
	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE)
		return -EBUSY;
	queue_work(nvfab_wq, &ctrl->scan_work);
	return 0;
}

/**
 * nvfab_complete_async_event() - handle the completion of an AER
 * @ctrl: the controller
 * @status: CQE status, little endian, phase bit included
 * @res: CQE Dword 0/1 (the event)
 *
 * Acts on the event (NVMe Base 2.0, 5.2) and re-arms the AER, unless the
 * AER was aborted by a teardown.
 *
 * Context: any context.
 */
void nvfab_complete_async_event(struct nvfab_ctrl *ctrl, __le16 status,
				union nvme_result *res)
{
	u16 sts = le16_to_cpu(status) >> 1;
	u32 result = le32_to_cpu(res->u32);
	u32 type = result & 0x7;
	u32 info = (result >> 8) & 0xff;

	trace_nvfab_async_event(ctrl, sts, result);
	if (sts != NVME_SC_SUCCESS)
		return;	/* aborted or refused: the next connect re-arms */

	ctrl->aen_result = result;
	if (type == NVME_AER_NOTICE && info == NVME_AER_NOTICE_NS_CHANGED) {
		/* The scan reads the Changed NS List, which re-arms the event. */
		set_bit(NVFAB_CTRL_NS_CHANGED, &ctrl->flags);
		nvfab_queue_scan(ctrl);
	} else if (type == NVME_AER_NOTICE &&
		   info == NVME_AER_NOTICE_ANA && ctrl->ana_supported) {
		/* Reading the ANA log re-arms the event. */
		queue_work(nvfab_wq, &ctrl->ana_work);
	} else if (type == NVME_AER_NOTICE &&
		   info == NVME_AER_NOTICE_DISC_CHANGED) {
		/*
		 * nvfab-discovery reads the log from its own work item;
		 * reading it (RAE cleared) re-arms the event.
		 */
		nvfab_ctrl_event(ctrl, NVFAB_CTRL_EVENT_DISC_CHANGE);
	} else {
		dev_info(ctrl->device, "async event 0x%08x not handled\n",
			 result);
	}
	queue_work(nvfab_wq, &ctrl->async_event_work);
}
EXPORT_SYMBOL_NVFAB(nvfab_complete_async_event);
