// SPDX-License-Identifier: GPL-2.0
/*
 * The size of a namespace as nvme-cli's list reports it: the namespace
 * size (NSZE) and utilization (NUSE) in logical blocks and the size of a
 * logical block, from Identify Namespace (NVMe Base 2.0, 5.17.2.1; the
 * NVM Command Set's data structure) sent through NVME_IOCTL_ADMIN_CMD on
 * the namespace's block device. nvfab answers that ioctl on /dev/nvfabXnY
 * through any live controller, and fails at once with ENODEV when there is
 * none, so this never waits for a path.
 *
 * Without the ioctl (not root, no device node, no live controller) the
 * size comes from sysfs: the block device's size (512-byte sectors) and
 * queue/logical_block_size; the utilization is then unknown.
 *
 * The Identify data comes from the target and is checked before use: a
 * zero NSZE (inactive namespace), an LBA format index beyond NLBAF or an
 * LBADS outside 9..24 make the result unknown, and products that would
 * overflow are refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nvfabctl.h"

#define NVF_ADMIN_IDENTIFY	0x06
#define NVF_CNS_NS		0x00
#define NVF_IDENTIFY_LEN	4096
#define NVF_IDENTIFY_TMO_MS	5000

/* Offsets in the Identify Namespace data structure (NVM Command Set). */
#define NVF_ID_NSZE		0
#define NVF_ID_NUSE		16
#define NVF_ID_NLBAF		25
#define NVF_ID_FLBAS		26
#define NVF_ID_LBAF		128
#define NVF_ID_MAX_LBAF		64

static uint64_t nvf_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/*
 * Parse Identify Namespace data @id into @g.
 * Return: 0, or -1 when the data cannot be used.
 */
static int nvf_parse_id_ns(const unsigned char *id, struct nvf_geom *g)
{
	uint64_t nsze = nvf_le64(id + NVF_ID_NSZE);
	uint64_t nuse = nvf_le64(id + NVF_ID_NUSE);
	unsigned int nlbaf = id[NVF_ID_NLBAF];	/* 0's based */
	unsigned int flbas = id[NVF_ID_FLBAS];
	unsigned int fmt, lbads;

	/* FLBAS bits 3:0 are the index; bits 6:5 its high bits past 16 */
	fmt = (flbas & 0xf) | (((flbas >> 5) & 0x3) << 4);
	if (!nsze || fmt > nlbaf || fmt >= NVF_ID_MAX_LBAF)
		return -1;
	lbads = id[NVF_ID_LBAF + 4 * fmt + 2];
	if (lbads < 9 || lbads > 24)
		return -1;
	if (nsze > (uint64_t)LLONG_MAX >> lbads ||
	    nuse > (uint64_t)LLONG_MAX >> lbads)
		return -1;
	g->nsze = (long long)nsze;
	g->nuse = (long long)nuse;
	g->lba_size = 1LL << lbads;
	return 0;
}

/* Identify Namespace @nsid (-1: ask the device) on device node @name. */
static int nvf_identify_ns(const char *name, long long nsid,
			   struct nvf_geom *g)
{
	const char *dir = getenv("NVFAB_DEV_DIR");
	struct nvme_passthru_cmd cmd;
	unsigned char *id;
	char path[4096];
	int fd, ret = -1;

	if (!dir || !*dir)
		dir = "/dev";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (nsid < 0 || nsid > UINT32_MAX) {
		nsid = ioctl(fd, NVME_IOCTL_ID);
		if (nsid <= 0)
			goto out_close;
	}
	id = calloc(1, NVF_IDENTIFY_LEN);
	if (!id)
		goto out_close;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVF_ADMIN_IDENTIFY;
	cmd.nsid = (uint32_t)nsid;
	cmd.addr = (uintptr_t)id;
	cmd.data_len = NVF_IDENTIFY_LEN;
	cmd.cdw10 = NVF_CNS_NS;
	cmd.timeout_ms = NVF_IDENTIFY_TMO_MS;
	if (!ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd))
		ret = nvf_parse_id_ns(id, g);
	free(id);
out_close:
	close(fd);
	return ret;
}

/*
 * The size of namespace @name (nvfabXnY) into @g, each member -1 where
 * unknown: from Identify Namespace @nsid (-1: the device's own), else from
 * its sysfs @sectors (512 bytes each) and @lba_size (bytes), -1 if unknown.
 */
void nvf_ns_geometry(const char *name, long long nsid, long long sectors,
		     long long lba_size, struct nvf_geom *g)
{
	g->nsze = -1;
	g->nuse = -1;
	g->lba_size = -1;
	if (!nvf_identify_ns(name, nsid, g))
		return;
	g->nsze = -1;
	g->nuse = -1;
	g->lba_size = lba_size > 0 ? lba_size : -1;
	if (sectors >= 0 && g->lba_size > 0 && sectors <= LLONG_MAX / 512)
		g->nsze = sectors * 512 / g->lba_size;
}

/*
 * nvme-cli's four size members: UsedBytes (NUSE in bytes), MaximumLBA
 * (NSZE), PhysicalSize (NSZE in bytes) and SectorSize; null if unknown.
 */
void nvf_json_geometry(struct nvf_json *j, const struct nvf_geom *g)
{
	bool known = g->lba_size > 0;

	nvf_json_num(j, "UsedBytes", known && g->nuse >= 0 ?
		     g->nuse * g->lba_size : -1);
	nvf_json_num(j, "MaximumLBA", g->nsze);
	nvf_json_num(j, "PhysicalSize", known && g->nsze >= 0 ?
		     g->nsze * g->lba_size : -1);
	nvf_json_num(j, "SectorSize", g->lba_size);
}
