// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaces: scanning (Identify Active Namespace ID list, Identify
 * Namespace, Namespace Identification Descriptors; NVMe Base 2.0, 5.17),
 * one blk-mq block device per namespace, and the translation of block
 * requests into NVM commands (NVMe NVM Command Set 1.0, 3).
 *
 * Everything read from the target is bounded before use: list entries,
 * LBA format indexes, descriptor lengths.
 */
#include <kunit/visibility.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "multipath/mpath.h"

static struct nvfab_ns *nvfab_find_ns(struct nvfab_ctrl *ctrl, u32 nsid)
{
	struct nvfab_ns *ns;

	lockdep_assert_held(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		if (ns->nsid == nsid)
			return ns;
	}
	return NULL;
}

/**
 * nvfab_parse_ns_descs() - parse a Namespace Identification Descriptor list
 * @buf: the list as the controller returned it (untrusted)
 * @len: bytes of @buf that may be read (4096 for Identify CNS 03h)
 * @ids: identifiers found; fields without a descriptor are left as they are
 * @dev: device for messages, or NULL
 *
 * NVMe Base 2.0, 5.17.2.3: each descriptor is a 4-byte header and NIDL
 * bytes; the list ends at a zero NIDT or at the end of the buffer. EUI64,
 * NGUID, UUID and CSI must have their fixed lengths; unknown types are
 * skipped by their NIDL.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when a descriptor overruns @len or has the wrong
 * length for its type (one message names it).
 */
VISIBLE_IF_KUNIT int nvfab_parse_ns_descs(const u8 *buf, size_t len,
					  struct nvfab_ns_ids *ids,
					  struct device *dev)
{
	size_t pos = 0;

	while (pos + 4 <= len) {
		u8 nidt = buf[pos];
		u8 nidl = buf[pos + 1];
		size_t want;

		if (!nidt)
			return 0;
		if (pos + 4 + nidl > len) {
			dev_err(dev, "NS descriptor at %zu overruns the list\n",
				pos);
			return -EINVAL;
		}
		switch (nidt) {
		case NVME_NIDT_EUI64:
			want = NVME_NIDT_EUI64_LEN;
			break;
		case NVME_NIDT_NGUID:
			want = NVME_NIDT_NGUID_LEN;
			break;
		case NVME_NIDT_UUID:
			want = NVME_NIDT_UUID_LEN;
			break;
		case NVME_NIDT_CSI:
			want = NVME_NIDT_CSI_LEN;
			break;
		default:
			want = nidl;	/* unknown type: skip it */
			break;
		}
		if (nidl != want) {
			dev_err(dev, "NS descriptor type %u has length %u, not %zu\n",
				nidt, nidl, want);
			return -EINVAL;
		}
		if (nidt == NVME_NIDT_EUI64)
			memcpy(ids->eui64, buf + pos + 4, nidl);
		else if (nidt == NVME_NIDT_NGUID)
			memcpy(ids->nguid, buf + pos + 4, nidl);
		else if (nidt == NVME_NIDT_UUID)
			memcpy(&ids->uuid, buf + pos + 4, nidl);
		pos += 4 + nidl;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_parse_ns_descs);

/* Bytes of a fixed-width Identify string less its trailing spaces and NULs. */
static int nvfab_id_str_used(const char *s, int len)
{
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\0'))
		len--;
	return len;
}

/**
 * nvfab_ns_wwid() - a namespace's World Wide Identifier as text
 * @buf: where the text goes; always NUL terminated when @size > 0
 * @size: bytes of @buf; a longer WWID is cut to @size - 1 characters
 * @ids: the namespace's identifiers (zeroes for those not reported)
 * @nsid: Namespace ID
 * @vid: PCI Vendor ID (Identify Controller VID)
 * @serial: Serial Number, the 20 bytes of Identify Controller SN, padded
 *	    with spaces or NULs
 * @model: Model Number, the 40 bytes of Identify Controller MN, likewise
 *
 * The text is the in-kernel NVMe host's, so that a name built on it (a
 * /dev/disk/by-id link, a multipath WWID) means the same namespace under
 * either host. It is the first of:
 *
 * * ``uuid.<UUID>`` when the namespace has a UUID (Namespace
 *   Identification Descriptor, NVMe Base 2.0, 5.17.2.3);
 * * ``eui.<NGUID>`` (32 lower-case hex digits) when its NGUID is not zero;
 * * ``eui.<EUI64>`` (16 hex digits) when its EUI64 is not zero;
 * * ``nvme.<VID>-<SN>-<MN>-<NSID>``: VID as 4 and NSID as 8 hex digits,
 *   SN and MN as two hex digits per byte, trailing spaces and NULs left
 *   out (an empty SN or MN gives nothing between its dashes).
 *
 * The longest WWID, the last form with a full SN and MN, is
 * NVFAB_WWID_MAX characters.
 *
 * Context: any context.
 * Return: the length of the whole WWID (not counting the NUL), as
 * snprintf() returns it: @size or more means it was cut.
 */
int nvfab_ns_wwid(char *buf, size_t size, const struct nvfab_ns_ids *ids,
		  u32 nsid, u16 vid, const char *serial, const char *model)
{
	int sn, mn;

	if (!uuid_is_null(&ids->uuid))
		return snprintf(buf, size, "uuid.%pU", &ids->uuid);
	if (memchr_inv(ids->nguid, 0, sizeof(ids->nguid)))
		return snprintf(buf, size, "eui.%16phN", ids->nguid);
	if (memchr_inv(ids->eui64, 0, sizeof(ids->eui64)))
		return snprintf(buf, size, "eui.%8phN", ids->eui64);

	sn = nvfab_id_str_used(serial, sizeof_field(struct nvme_id_ctrl, sn));
	mn = nvfab_id_str_used(model, sizeof_field(struct nvme_id_ctrl, mn));
	return snprintf(buf, size, "nvme.%04x-%*phN-%*phN-%08x", vid, sn,
			serial, mn, model, nsid);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_ns_wwid);

static int nvfab_ns_identify(struct nvfab_ctrl *ctrl, u32 nsid,
			     struct nvme_id_ns *id, struct nvfab_ns_ids *ids)
{
	void *buf;
	int ret;

	ret = nvfab_identify(ctrl, NVME_ID_CNS_NS, nsid, id,
			     sizeof(*id));
	if (ret)
		return ret;

	memset(ids, 0, sizeof(*ids));
	memcpy(ids->nguid, id->nguid, sizeof(ids->nguid));
	memcpy(ids->eui64, id->eui64, sizeof(ids->eui64));
	if (NVME_VS(1, 3, 0) > ctrl->vs)
		return 0;

	buf = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = nvfab_identify(ctrl, NVME_ID_CNS_NS_DESC_LIST, nsid, buf,
			     NVME_IDENTIFY_DATA_SIZE);
	if (!ret)
		ret = nvfab_parse_ns_descs(buf, NVME_IDENTIFY_DATA_SIZE, ids,
					   ctrl->device);
	else if (ret > 0 && (ret & NVME_STATUS_DNR) &&
		 (ret & NVME_SCT_SC_MASK) == NVME_SC_INVALID_FIELD)
		ret = 0;	/* CNS 03h not supported: keep the ID's values */
	kfree(buf);
	return ret;
}

/* Logical block size, checked: 512 B .. PAGE_SIZE, no metadata. */
static int nvfab_ns_lba_shift(struct nvfab_ctrl *ctrl, u32 nsid,
			      struct nvme_id_ns *id, u8 *shift)
{
	/* bits 3:0 and, past 16 formats, bits 6:5 (NVMe Base 2.0, 5.17.2.1) */
	u8 idx = nvme_lbaf_index(id->flbas);
	u8 ds;

	if (idx > id->nlbaf) {
		dev_err(ctrl->device, "ns %u: FLBAS index %u beyond NLBAF %u\n",
			nsid, idx, id->nlbaf);
		return -EINVAL;
	}
	ds = id->lbaf[idx].ds;
	if (ds < SECTOR_SHIFT || ds > PAGE_SHIFT) {
		dev_err(ctrl->device, "ns %u: LBA data size 2^%u unsupported\n",
			nsid, ds);
		return -EINVAL;
	}
	if (le16_to_cpu(id->lbaf[idx].ms)) {
		dev_err(ctrl->device, "ns %u: metadata formats are not supported\n",
			nsid);
		return -EOPNOTSUPP;
	}
	*shift = ds;
	return 0;
}

static void nvfab_ns_set_limits(struct nvfab_ns *ns, struct nvme_id_ns *id,
				struct queue_limits *lim)
{
	struct nvfab_ctrl *ctrl = ns->ctrl;
	u32 bs = 1U << ns->lba_shift;

	lim->logical_block_size = bs;
	lim->physical_block_size = bs;
	lim->io_min = bs;
	nvfab_transport_limits(ctrl, lim);
	lim->dma_alignment = 3;
	if (ctrl->vwc & NVME_CTRL_VWC_PRESENT)
		lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	/* P2PDMA pages reach a path only if its transport can map them */
	if (IS_ENABLED(CONFIG_PCI_P2PDMA) && ctrl->ops->supports_peer_mem)
		lim->features |= BLK_FEAT_PCI_P2PDMA;
	if (ctrl->oncs & NVME_CTRL_ONCS_DSM) {
		lim->max_hw_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
		lim->max_discard_segments = 1;
		lim->discard_granularity = bs;
	}
	if (ctrl->oncs & NVME_CTRL_ONCS_WRITE_ZEROES)
		lim->max_write_zeroes_sectors = ctrl->max_hw_sectors;
}

static int nvfab_alloc_ns(struct nvfab_ctrl *ctrl, u32 nsid,
			  struct nvme_id_ns *id, struct nvfab_ns_ids *ids,
			  u32 gen)
{
	struct queue_limits lim = { };
	struct gendisk *disk;
	struct nvfab_ns *ns;
	int ret;

	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	kref_init(&ns->ref);
	ns->ctrl = ctrl;
	ns->nsid = nsid;
	ns->scan_gen = gen;
	ns->anagrpid = le32_to_cpu(id->anagrpid);
	INIT_LIST_HEAD(&ns->siblings);
	ns->ids = *ids;
	ret = nvfab_ns_lba_shift(ctrl, nsid, id, &ns->lba_shift);
	if (ret)
		goto out_free_ns;

	nvfab_ns_set_limits(ns, id, &lim);
	/*
	 * The new queue joins the tag set: if error recovery has the tag set
	 * quiesced, it starts quiesced too, so that the unquiesce to come
	 * balances.
	 */
	mutex_lock(&ctrl->quiesce_lock);
	disk = blk_mq_alloc_disk(&ctrl->tagset, &lim, ns);
	if (!IS_ERR(disk) && test_bit(NVFAB_CTRL_IO_QUIESCED, &ctrl->flags))
		blk_mq_quiesce_queue_nowait(disk->queue);
	mutex_unlock(&ctrl->quiesce_lock);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_free_ns;
	}
	disk->fops = &nvfab_bdev_ops;
	disk->private_data = ns;
	/* a path: I/O goes through the head, /dev/nvfabXnY */
	disk->flags |= GENHD_FL_HIDDEN;
	ns->disk = disk;
	set_capacity(disk, le64_to_cpu(id->nsze) << (ns->lba_shift - SECTOR_SHIFT));
	ret = nvfab_mpath_add_ns(ns, ids);	/* names the disk */
	if (ret)
		goto out_put_disk;
	nvfab_ana_ns_state(ns);

	get_device(ctrl->device);
	ret = device_add_disk(ctrl->device, disk, nvfab_path_disk_groups);
	if (ret)
		goto out_put_ctrl;

	down_write(&ctrl->namespaces_rwsem);
	list_add_tail(&ns->list, &ctrl->namespaces);
	up_write(&ctrl->namespaces_rwsem);
	ret = nvfab_mpath_ns_added(ns);
	if (ret)
		dev_warn(ctrl->device, "ns %u: no multipath disk: %d\n", nsid,
			 ret);
	return 0;

out_put_ctrl:
	put_device(ctrl->device);
	nvfab_mpath_ns_removed(ns);
out_put_disk:
	put_disk(disk);
out_free_ns:
	kfree(ns);
	return ret;
}

static void nvfab_ns_release(struct kref *ref)
{
	struct nvfab_ns *ns = container_of(ref, struct nvfab_ns, ref);
	struct nvfab_ctrl *ctrl = ns->ctrl;

	put_disk(ns->disk);
	kfree(ns);
	put_device(ctrl->device);
}

/**
 * nvfab_ns_tryget() - take a reference on a namespace
 * @ns: a namespace found under ctrl->namespaces_rwsem, subsys->srcu or
 *	through its open path disk
 *
 * The reference keeps @ns, its gendisk and its controller's device
 * allocated after the lock is dropped; a namespace being removed may
 * still be returned, and I/O to its deleted disk then fails.
 *
 * Context: any context.
 * Return: true if a reference was taken, false if @ns is being freed.
 */
bool nvfab_ns_tryget(struct nvfab_ns *ns)
{
	return kref_get_unless_zero(&ns->ref);
}

/**
 * nvfab_ns_put() - drop a reference taken by nvfab_ns_tryget()
 * @ns: the namespace
 *
 * Context: process context (the last put may free the gendisk).
 */
void nvfab_ns_put(struct nvfab_ns *ns)
{
	kref_put(&ns->ref, nvfab_ns_release);
}

/* Take @ns off its head and delete its disk; the last reference frees it. */
static void nvfab_remove_ns(struct nvfab_ns *ns)
{
	nvfab_mpath_remove_ns(ns);
	del_gendisk(ns->disk);
	nvfab_mpath_ns_removed(ns);
	nvfab_ns_put(ns);
}

/* Remove every namespace for which @keep returns false. */
static void nvfab_remove_ns_if(struct nvfab_ctrl *ctrl,
			       bool (*keep)(struct nvfab_ns *ns, void *data),
			       void *data)
{
	struct nvfab_ns *ns, *next;
	LIST_HEAD(gone);

	down_write(&ctrl->namespaces_rwsem);
	list_for_each_entry_safe(ns, next, &ctrl->namespaces, list) {
		if (!keep || !keep(ns, data))
			list_move_tail(&ns->list, &gone);
	}
	up_write(&ctrl->namespaces_rwsem);

	list_for_each_entry_safe(ns, next, &gone, list) {
		list_del(&ns->list);
		nvfab_remove_ns(ns);
	}
}

static bool nvfab_ns_is_not(struct nvfab_ns *ns, void *data)
{
	return ns->nsid != *(u32 *)data;
}

/*
 * Whether a failed Identify says that the namespace is gone: Invalid
 * Namespace or Format with DNR set (NVMe Base 2.0, 5.17.2). Anything else
 * (a timeout, a reset, Namespace Not Ready, no memory) says nothing about
 * the namespace, which stays.
 */
static bool nvfab_ns_gone(int ret)
{
	return ret > 0 && (ret & NVME_STATUS_DNR) &&
	       (ret & NVME_SCT_SC_MASK) == NVME_SC_INVALID_NS;
}

/* Keep @nsid through this scan (generation @gen) if it exists. */
static void nvfab_keep_ns(struct nvfab_ctrl *ctrl, u32 nsid, u32 gen)
{
	struct nvfab_ns *ns;

	down_read(&ctrl->namespaces_rwsem);
	ns = nvfab_find_ns(ctrl, nsid);
	if (ns)
		ns->scan_gen = gen;
	up_read(&ctrl->namespaces_rwsem);
}

static void nvfab_validate_or_alloc_ns(struct nvfab_ctrl *ctrl, u32 nsid,
				       u32 gen)
{
	bool same = false, reformatted = false;
	struct nvfab_ns_ids ids;
	struct nvme_id_ns *id;
	struct nvfab_ns *ns;
	u8 shift;
	int ret;

	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id) {
		nvfab_keep_ns(ctrl, nsid, gen);
		return;
	}
	ret = nvfab_ns_identify(ctrl, nsid, id, &ids);
	if (ret) {
		if (nvfab_ns_gone(ret)) {
			dev_info(ctrl->device, "ns %u: identify says it is gone (status 0x%x)\n",
				 nsid, ret);
			goto out_free;
		}
		dev_warn(ctrl->device, "ns %u: identify failed: %d; kept as it was\n",
			 nsid, ret);
		nvfab_keep_ns(ctrl, nsid, gen);
		goto out_free;
	}

	/*
	 * A namespace's LBA format is fixed for the life of its disk: the
	 * disk's logical block size and every command built on lba_shift
	 * depend on it. A Format NVM (here or by another host) that changed
	 * it, or chose a format nvfab cannot use, replaces the namespace;
	 * only the capacity is updated in place.
	 */
	down_read(&ctrl->namespaces_rwsem);
	ns = nvfab_find_ns(ctrl, nsid);
	if (ns) {
		same = nvfab_ns_ids_equal(&ns->ids, &ids);
		if (same) {
			reformatted = nvfab_ns_lba_shift(ctrl, nsid, id, &shift) ||
				      shift != ns->lba_shift;
		}
		if (same && !reformatted) {
			sector_t cap = le64_to_cpu(id->nsze) <<
				       (ns->lba_shift - SECTOR_SHIFT);

			set_capacity_and_notify(ns->disk, cap);
			nvfab_mpath_set_capacity(ns, cap);
			ns->scan_gen = gen;
		}
	}
	up_read(&ctrl->namespaces_rwsem);

	if (ns && same && !reformatted)
		goto out_free;
	if (ns) {
		/* Same NSID, new identity or LBA format: replace it. */
		dev_info(ctrl->device, "ns %u: %s changed, replacing it\n", nsid,
			 reformatted ? "LBA format" : "identifiers");
		nvfab_remove_ns_if(ctrl, nvfab_ns_is_not, &nsid);
	}
	ret = nvfab_alloc_ns(ctrl, nsid, id, &ids, gen);
	if (ret)
		dev_warn(ctrl->device, "ns %u: not added: %d\n", nsid, ret);
out_free:
	kfree(id);
}

static bool nvfab_ns_seen(struct nvfab_ns *ns, void *data)
{
	return ns->scan_gen == *(u32 *)data;
}

/**
 * nvfab_check_ns_list_page() - check one page of the Active Namespace ID list
 * @page: the page as the controller returned it (untrusted)
 * @n: entries in @page (1024 for Identify CNS 02h), at most INT_MAX
 * @prev: the NSID the page was asked for after (0 for the first page)
 * @nn: Number of Namespaces from Identify Controller, the highest valid NSID
 * @end: set to whether the list ends within this page
 * @dev: device for messages, or NULL
 *
 * NVMe Base 2.0, 5.17.2.2 (CNS 02h): the page lists active NSIDs above
 * @prev in increasing order; the list ends at the first zero entry. An
 * NSID not above the one before it, above @nn, or FFFFFFFFh (the broadcast
 * value), makes the whole page invalid. A page without a zero entry does
 * not end the list unless its last NSID is @nn: the next page is asked for
 * after its last NSID, so a scan reads at most @nn / @n + 1 pages. An
 * empty page (@n 0) ends it, so that a caller cannot loop.
 *
 * Context: any context.
 * Return: the number of NSIDs at the start of @page to act on (0 to @n), or
 * -EINVAL when the page is out of order (one message names the NSIDs).
 */
VISIBLE_IF_KUNIT int nvfab_check_ns_list_page(const __le32 *page,
					      unsigned int n, u32 prev, u32 nn,
					      bool *end, struct device *dev)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 nsid = le32_to_cpu(page[i]);

		if (!nsid) {
			*end = true;
			return i;
		}
		if (nsid <= prev || nsid == NVME_NSID_ALL) {
			dev_err(dev, "Active NS list: NSID %u after %u\n",
				nsid, prev);
			return -EINVAL;
		}
		if (nsid > nn) {
			dev_err(dev, "Active NS list: NSID %u above NN %u\n",
				nsid, nn);
			return -EINVAL;
		}
		prev = nsid;
	}
	*end = !n || prev == nn;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_check_ns_list_page);

/*
 * Read the Active Namespace ID list (CNS 02h) page by page, each checked
 * by nvfab_check_ns_list_page() before any of its NSIDs is acted on.
 * Namespaces not seen in this pass (their scan_gen is stale) are removed
 * afterwards.
 */
static int nvfab_scan_list(struct nvfab_ctrl *ctrl)
{
	const unsigned int per_page = NVME_IDENTIFY_DATA_SIZE / sizeof(__le32);
	u32 gen = ++ctrl->scan_gen;
	u32 prev = 0;
	__le32 *page;
	bool end;
	int ret, nr, i;

	page = kmalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!page)
		return -ENOMEM;

	do {
		ret = nvfab_identify(ctrl, NVME_ID_CNS_NS_ACTIVE_LIST, prev,
				     page, NVME_IDENTIFY_DATA_SIZE);
		if (ret) {
			dev_warn(ctrl->device, "Active NS list failed: %d\n", ret);
			goto out_free;
		}
		nr = nvfab_check_ns_list_page(page, per_page, prev, ctrl->nn,
					      &end, ctrl->device);
		if (nr < 0) {
			ret = nr;
			goto out_free;
		}
		for (i = 0; i < nr; i++)
			nvfab_validate_or_alloc_ns(ctrl, le32_to_cpu(page[i]),
						   gen);
		if (nr)
			prev = le32_to_cpu(page[nr - 1]);
	} while (!end);
	nvfab_remove_ns_if(ctrl, nvfab_ns_seen, &gen);
out_free:
	kfree(page);
	return ret;
}

/*
 * Read the Changed Namespace List (log 04h). nvfab rescans every namespace
 * anyway; reading the log is what lets the controller send the next
 * namespace-attribute notice (NVMe Base 2.0, 5.16.1.5).
 */
static void nvfab_clear_changed_ns_log(struct nvfab_ctrl *ctrl)
{
	void *log;
	int ret;

	log = kmalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!log)
		return;
	ret = nvfab_get_log(ctrl, NVME_LOG_CHANGED_NS, NVME_NSID_ALL, log,
			    NVME_IDENTIFY_DATA_SIZE, 0);
	if (ret)
		dev_warn(ctrl->device, "reading the Changed NS List failed: %d\n",
			 ret);
	kfree(log);
}

/**
 * nvfab_scan_work() - scan the controller's namespaces
 * @work: ctrl->scan_work
 *
 * Adds block devices for new namespaces, resizes existing ones, replaces
 * one whose identifiers changed and removes those no longer active.
 *
 * Context: process context on nvfab_wq; takes ctrl->scan_lock.
 */
void nvfab_scan_work(struct work_struct *work)
{
	struct nvfab_ctrl *ctrl = container_of(work, struct nvfab_ctrl,
					       scan_work);

	if (nvfab_ctrl_state(ctrl) != NVFAB_CTRL_LIVE || !ctrl->tagset_live)
		return;
	mutex_lock(&ctrl->scan_lock);
	if (test_and_clear_bit(NVFAB_CTRL_NS_CHANGED, &ctrl->flags))
		nvfab_clear_changed_ns_log(ctrl);
	nvfab_scan_list(ctrl);
	mutex_unlock(&ctrl->scan_lock);
}

/**
 * nvfab_remove_namespaces() - remove every block device of a controller
 * @ctrl: a controller being deleted
 *
 * I/O still queued fails with a path error (the controller is deleting).
 *
 * Context: may sleep.
 */
void nvfab_remove_namespaces(struct nvfab_ctrl *ctrl)
{
	/* Requests parked in blk-mq must reach queue_rq to be failed. */
	nvfab_unquiesce_io_queues(ctrl);
	nvfab_kick_requeue_lists(ctrl);
	nvfab_remove_ns_if(ctrl, NULL, NULL);
}

/**
 * nvfab_kick_requeue_lists() - rerun the requeue lists of every namespace
 * @ctrl: the controller, whose state just changed
 *
 * A head's submitter decides to park a bio under subsys->srcu, from the
 * state it read there. Waiting for a grace period first means that every
 * submitter that saw the old state has parked its bio before the lists
 * are rerun, so that none waits for an unrelated later event.
 *
 * Context: may sleep (an SRCU grace period; takes namespaces_rwsem).
 */
void nvfab_kick_requeue_lists(struct nvfab_ctrl *ctrl)
{
	struct nvfab_ns *ns;

	if (ctrl->subsys)
		synchronize_srcu(&ctrl->subsys->srcu);

	down_read(&ctrl->namespaces_rwsem);
	list_for_each_entry(ns, &ctrl->namespaces, list) {
		blk_mq_kick_requeue_list(ns->disk->queue);
		nvfab_mpath_kick(ns);
	}
	up_read(&ctrl->namespaces_rwsem);
}

static blk_status_t nvfab_setup_discard(struct nvfab_ns *ns,
					struct request *rq,
					struct nvme_command *cmd)
{
	struct nvme_dsm_range *range;

	range = kzalloc(sizeof(*range), GFP_ATOMIC | __GFP_NOWARN);
	if (!range)
		return BLK_STS_RESOURCE;
	range->cattr = cpu_to_le32(0);
	range->nlb = cpu_to_le32(blk_rq_bytes(rq) >> ns->lba_shift);
	range->slba = cpu_to_le64(blk_rq_pos(rq) >>
				  (ns->lba_shift - SECTOR_SHIFT));

	memset(cmd, 0, sizeof(*cmd));
	cmd->dsm.opcode = nvme_cmd_dsm;
	cmd->dsm.nsid = cpu_to_le32(ns->nsid);
	cmd->dsm.nr = 0;
	cmd->dsm.attributes = cpu_to_le32(NVME_DSMGMT_AD);

	bvec_set_virt(&rq->special_vec, range, sizeof(*range));
	rq->rq_flags |= RQF_SPECIAL_PAYLOAD;
	return BLK_STS_OK;
}

/**
 * nvfab_setup_ns_cmd() - build the NVM command for a block request
 * @ns: the namespace (queuedata of the request's queue)
 * @rq: a REQ_OP_READ/WRITE/FLUSH/DISCARD/WRITE_ZEROES request
 * @cmd: the SQE to fill
 *
 * Context: any context.
 * Return: BLK_STS_OK, BLK_STS_NOTSUPP for another operation or
 * BLK_STS_RESOURCE when a discard range cannot be allocated.
 */
blk_status_t nvfab_setup_ns_cmd(struct nvfab_ns *ns, struct request *rq,
				struct nvme_command *cmd)
{
	u8 shift = ns->lba_shift - SECTOR_SHIFT;
	u16 control = 0;

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		memset(cmd, 0, sizeof(*cmd));
		cmd->common.opcode = nvme_cmd_flush;
		cmd->common.nsid = cpu_to_le32(ns->nsid);
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
		return nvfab_setup_discard(ns, rq, cmd);
	case REQ_OP_WRITE_ZEROES:
		memset(cmd, 0, sizeof(*cmd));
		cmd->write_zeroes.opcode = nvme_cmd_write_zeroes;
		cmd->write_zeroes.nsid = cpu_to_le32(ns->nsid);
		cmd->write_zeroes.slba = cpu_to_le64(blk_rq_pos(rq) >> shift);
		cmd->write_zeroes.length =
			cpu_to_le16((blk_rq_bytes(rq) >> ns->lba_shift) - 1);
		if (!(rq->cmd_flags & REQ_NOUNMAP))
			cmd->write_zeroes.control = cpu_to_le16(NVME_WZ_DEAC);
		return BLK_STS_OK;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		memset(cmd, 0, sizeof(*cmd));
		cmd->rw.opcode = req_op(rq) == REQ_OP_READ ? nvme_cmd_read :
							     nvme_cmd_write;
		cmd->rw.nsid = cpu_to_le32(ns->nsid);
		cmd->rw.slba = cpu_to_le64(blk_rq_pos(rq) >> shift);
		cmd->rw.length =
			cpu_to_le16((blk_rq_bytes(rq) >> ns->lba_shift) - 1);
		if (rq->cmd_flags & REQ_FUA)
			control |= NVME_RW_FUA;
		if (rq->cmd_flags & (REQ_FAILFAST_DEV | REQ_RAHEAD))
			control |= NVME_RW_LR;
		cmd->rw.control = cpu_to_le16(control);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

static int nvfab_bdev_open(struct gendisk *disk, blk_mode_t mode)
{
	struct nvfab_ns *ns = disk->private_data;

	if (!nvfab_ns_tryget(ns))
		return -ENXIO;
	if (!try_module_get(ns->ctrl->ops->module)) {
		nvfab_ns_put(ns);
		return -ENXIO;
	}
	return 0;
}

static void nvfab_bdev_release(struct gendisk *disk)
{
	struct nvfab_ns *ns = disk->private_data;

	module_put(ns->ctrl->ops->module);
	nvfab_ns_put(ns);
}

const struct block_device_operations nvfab_bdev_ops = {
	.owner		= THIS_MODULE,
	.open		= nvfab_bdev_open,
	.release	= nvfab_bdev_release,
	.ioctl		= nvfab_ns_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
};
