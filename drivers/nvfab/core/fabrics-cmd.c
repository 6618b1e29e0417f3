// SPDX-License-Identifier: GPL-2.0
/*
 * Fabrics commands sent by the core: Connect (NVMe over Fabrics 1.1, 3.3),
 * Property Get and Property Set (3.4, 3.5). Over a fabric, controller
 * registers are properties read and written with commands on the admin
 * queue.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "nvfab.h"
#include "auth.h"
#include <nvfab/fabrics.h>

static int nvfab_prop_get(struct nvfab_ctrl *ctrl, u32 off, bool wide,
			  u64 *val)
{
	struct nvme_command c = { };
	union nvme_result res = { };
	int ret;

	c.prop_get.opcode = nvme_fabrics_command;
	c.prop_get.fctype = nvme_fabrics_type_property_get;
	c.prop_get.attrib = wide ? 1 : 0;
	c.prop_get.offset = cpu_to_le32(off);
	ret = nvfab_submit_sync_cmd(ctrl->admin_q, &c, &res, NULL, 0,
				    NVME_QID_ANY, false, 0);
	if (ret > 0)
		dev_err(ctrl->device, "Property Get 0x%x failed: status 0x%x\n",
			off, ret);
	*val = wide ? le64_to_cpu(res.u64) : le32_to_cpu(res.u32);
	return ret;
}

/**
 * nvfab_reg_read32() - read a 4-byte controller property
 * @ctrl: the controller; its admin queue must be connected
 * @off: property offset (NVME_REG_*)
 * @val: the value read
 *
 * Context: may sleep.
 * Return: 0, a positive NVMe status, or a negative errno
 * (see nvfab_submit_sync_cmd()).
 */
int nvfab_reg_read32(struct nvfab_ctrl *ctrl, u32 off, u32 *val)
{
	u64 v = 0;
	int ret;

	ret = nvfab_prop_get(ctrl, off, false, &v);
	*val = v;
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_reg_read32);

/**
 * nvfab_reg_read64() - read an 8-byte controller property (CAP)
 * @ctrl: the controller; its admin queue must be connected
 * @off: property offset (NVME_REG_*)
 * @val: the value read
 *
 * Context: may sleep.
 * Return: as nvfab_reg_read32().
 */
int nvfab_reg_read64(struct nvfab_ctrl *ctrl, u32 off, u64 *val)
{
	return nvfab_prop_get(ctrl, off, true, val);
}
EXPORT_SYMBOL_NVFAB(nvfab_reg_read64);

/**
 * nvfab_reg_write32() - write a 4-byte controller property (CC)
 * @ctrl: the controller; its admin queue must be connected
 * @off: property offset (NVME_REG_*)
 * @val: the value to write
 *
 * Context: may sleep.
 * Return: as nvfab_reg_read32().
 */
int nvfab_reg_write32(struct nvfab_ctrl *ctrl, u32 off, u32 val)
{
	struct nvme_command c = { };
	int ret;

	c.prop_set.opcode = nvme_fabrics_command;
	c.prop_set.fctype = nvme_fabrics_type_property_set;
	c.prop_set.attrib = 0;
	c.prop_set.offset = cpu_to_le32(off);
	c.prop_set.value = cpu_to_le64(val);
	ret = nvfab_submit_sync_cmd(ctrl->admin_q, &c, NULL, NULL, 0,
				    NVME_QID_ANY, false, 0);
	if (ret > 0)
		dev_err(ctrl->device, "Property Set 0x%x failed: status 0x%x\n",
			off, ret);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_reg_write32);

/**
 * nvfab_sqflow_refusal() - did a Connect fail for asking, by itself, for SQ
 *	flow control disabled?
 * @auto_asked: the Connect asked for it disabled, and the user did not
 *	(sqflow_auto without disable_sqflow)
 * @status: what the Connect returned: a positive NVMe status (DNR and More
 *	included, as nvfab_submit_sync_cmd() returns it), 0 or a negative
 *	errno (untrusted: from the target)
 * @result: Dword 0 of the Connect response (untrusted)
 *
 * Invalid Field in Command, or Connect Invalid Parameters that points at
 * the SQE (IATTR 0) and there at CATTR or nowhere (IPO 0) (NVMe over
 * Fabrics 1.1, 3.3: IPO in bits 15:0, IATTR in bit 16). A Connect refused
 * for its data (IATTR 1: an unknown subsystem NQN, a host that is not
 * allowed, a bad CNTLID) is not about SQ flow control. With disable_sqflow
 * the user asked for it, and the Connect just fails.
 *
 * Context: any context.
 * Return: true if the host should connect again with SQ flow control.
 */
VISIBLE_IF_KUNIT bool nvfab_sqflow_refusal(bool auto_asked, int status, u32 result)
{
	u16 sc = status & NVME_SCT_SC_MASK;
	u16 ipo = result & 0xffff;

	if (!auto_asked || status <= 0)
		return false;
	if (sc == NVME_SC_INVALID_FIELD)
		return true;
	if (sc != NVME_SC_CONNECT_INVALID_PARAM || (result & BIT(16)))
		return false;
	return !ipo || ipo == offsetof(struct nvmf_connect_command, cattr);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_sqflow_refusal);

/**
 * nvfab_connect_authreq() - may a connected queue be used, by the AUTHREQ
 *	field of its Connect response?
 * @result: Dword 0 of the successful Connect response (untrusted)
 *
 * AUTHREQ (bits 18:17 of Dword 0, NVMe over Fabrics 1.1, 3.3 as revised
 * by TP 8006): ASCR, secure channel concatenation required; ATR, an
 * authentication transaction required before any other command on the
 * queue. nvfab sends nothing more on such a queue. It supports neither
 * concatenation (-EOPNOTSUPP) nor, yet, DH-HMAC-CHAP (the connect options
 * dhchap_secret and dhchap_ctrl_secret are refused), so a queue that
 * requires authentication has no key: -ENOKEY, what the in-kernel host
 * returns without a key. Both end a reconnect loop. The other bits of
 * Dword 0 (the controller ID) do not matter here.
 *
 * Context: any context.
 * Return: 0 if the queue may be used, -EOPNOTSUPP (ASCR, whatever ATR
 * says) or -ENOKEY (ATR).
 */
VISIBLE_IF_KUNIT int nvfab_connect_authreq(u32 result)
{
	if (result & NVME_CONNECT_AUTHREQ_ASCR)
		return -EOPNOTSUPP;
	if (result & NVME_CONNECT_AUTHREQ_ATR)
		return -ENOKEY;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_connect_authreq);

/**
 * nvfab_connect_queue() - send the Fabrics Connect command for a queue
 * @ctrl: the controller
 * @qid: 0 for the admin queue (the controller ID comes back), or an I/O
 *	queue, which must use the controller ID of the admin Connect
 *
 * The admin Connect carries KATO (ms) and asks for a dynamic controller
 * (CNTLID 0xFFFF). NVMe over Fabrics 1.1, 3.3.
 *
 * SQ flow control (CATTR bit 2, NVMe over Fabrics 1.1, 3.3 and NVMe/TCP
 * 1.0, 3.6.2.9): the admin Connect decides for the whole association. It
 * asks for SQ flow control disabled with disable_sqflow, or with the
 * module parameter sqflow_auto unless this controller refused it before;
 * the I/O queues follow. The host never uses SQHD (a blk-mq tag bounds
 * what is outstanding), and without it the target may complete a read
 * with its last C2HData (SUCCESS) instead of a CapsuleResp. A refusal of
 * the automatic request sets @ctrl->sqflow_refused, and
 * nvfab_setup_ctrl() connects again with SQ flow control.
 *
 * A successful Connect whose response requires authentication or secure
 * channel concatenation fails the queue (nvfab_connect_authreq()).
 *
 * Context: may sleep.
 * Return: 0, a positive NVMe status, or a negative errno: -ENOKEY or
 * -EOPNOTSUPP from nvfab_connect_authreq(), -ENOTCONN when the queue
 * failed while its Connect was out.
 */
int nvfab_connect_queue(struct nvfab_ctrl *ctrl, int qid)
{
	struct nvfab_ctrl_options *opts = ctrl->opts;
	struct nvmf_connect_data *data;
	struct nvme_command c = { };
	union nvme_result res = { };
	int ret;

	BUILD_BUG_ON(sizeof(struct nvmf_connect_data) != 1024);

	c.connect.opcode = nvme_fabrics_command;
	c.connect.fctype = nvme_fabrics_type_connect;
	c.connect.qid = cpu_to_le16(qid);
	if (qid == 0) {
		c.connect.sqsize = cpu_to_le16(NVME_AQ_DEPTH - 1);
		c.connect.kato = cpu_to_le32(opts->kato * 1000);
	} else {
		c.connect.sqsize = cpu_to_le16(ctrl->sqsize);
	}
	if (qid == 0)
		ctrl->sqflow_disabled = opts->disable_sqflow ||
			(READ_ONCE(nvfab_sqflow_auto) && !ctrl->sqflow_refused);
	if (ctrl->sqflow_disabled)
		c.connect.cattr |= NVME_CONNECT_DISABLE_SQFLOW;

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	uuid_copy(&data->hostid, &opts->host->id);
	data->cntlid = cpu_to_le16(qid ? ctrl->cntlid : 0xffff);
	strscpy(data->subsysnqn, opts->subsysnqn, NVMF_NQN_SIZE);
	strscpy(data->hostnqn, opts->host->nqn, NVMF_NQN_SIZE);

	ret = nvfab_submit_sync_cmd(qid ? ctrl->connect_q : ctrl->admin_q, &c,
				    &res, data, sizeof(*data),
				    qid ? qid : NVME_QID_ANY, true,
				    BLK_MQ_REQ_RESERVED | BLK_MQ_REQ_NOWAIT);
	kfree(data);
	if (nvfab_sqflow_refusal(ctrl->sqflow_disabled &&
				 !opts->disable_sqflow, ret, le32_to_cpu(res.u32))) {
		dev_info(ctrl->device, "Connect (qid %d) with SQ flow control disabled refused (status 0x%x, result 0x%x): connecting with SQ flow control\n",
			 qid, ret, le32_to_cpu(res.u32));
		ctrl->sqflow_refused = true;
		return ret;
	}
	if (ret) {
		dev_err(ctrl->device, "Connect (qid %d) failed: %s 0x%x (result 0x%x)\n",
			qid, ret < 0 ? "errno" : "status", ret < 0 ? -ret : ret,
			le32_to_cpu(res.u32));
		return ret;
	}
	ret = nvfab_connect_authreq(le32_to_cpu(res.u32));
	if (ret == -ENOKEY) {
		/* ATR: DH-HMAC-CHAP on this queue before anything else */
		if (!nvfab_change_queue_state(ctrl, qid,
					      NVFAB_QUEUE_AUTHENTICATING)) {
			dev_err(ctrl->device, "Connect (qid %d) succeeded on a queue that failed meanwhile\n",
				qid);
			return -ENOTCONN;
		}
		ret = nvfab_auth_queue(ctrl, qid);
		if (ret && ret != -ENOKEY) {
			dev_err(ctrl->device, "Connect (qid %d): authentication failed: %d\n",
				qid, ret);
			return ret;
		}
	}
	if (ret) {
		dev_err(ctrl->device, "Connect (qid %d): the controller requires %s (result 0x%x)\n",
			qid, ret == -ENOKEY ?
			"authentication, and no DH-HMAC-CHAP key is configured" :
			"secure channel concatenation, which nvfab does not support",
			le32_to_cpu(res.u32));
		return ret;
	}
	if (qid == 0)
		ctrl->cntlid = le16_to_cpu(res.u16);
	/* lost if the queue failed meanwhile: nothing may go out on it */
	if (!nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_CONNECTED)) {
		dev_err(ctrl->device, "Connect (qid %d) succeeded on a queue that failed meanwhile\n",
			qid);
		return -ENOTCONN;
	}
	return 0;
}
EXPORT_SYMBOL_NVFAB(nvfab_connect_queue);
