// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables of crafted NVMe/TCP PDUs for nvfab-tcp's receive-path
 * checks: common header, C2HData against its command, R2T against its
 * command, and ICResp. The target is untrusted; each row is a PDU a broken
 * or hostile target could send, and whether nvfab must refuse it.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/nvme-tcp.h>

#include <nvfab/compat.h>
#include "../tcp.h"

#define HLEN	24
#define DG	NVME_TCP_DIGEST_LENGTH

struct hdr_case {
	const char *desc;
	u8 type, flags, hlen, pdo;
	u32 plen;
	bool hdgst, ddgst;
	int ret;
};

static const struct hdr_case hdr_cases[] = {
	{ "rsp ok", nvme_tcp_rsp, 0, HLEN, 0, HLEN, false, false, 0 },
	{ "rsp with header digest", nvme_tcp_rsp, NVME_TCP_F_HDGST, HLEN, 0,
	  HLEN + DG, true, false, 0 },
	{ "rsp PLEN counts a digest not negotiated", nvme_tcp_rsp, 0, HLEN, 0,
	  HLEN + DG, false, false, -EPROTO },
	{ "rsp HDGSTF without negotiation", nvme_tcp_rsp, NVME_TCP_F_HDGST,
	  HLEN, 0, HLEN + DG, false, false, -EPROTO },
	{ "rsp missing HDGSTF", nvme_tcp_rsp, 0, HLEN, 0, HLEN + DG, true,
	  false, -EPROTO },
	{ "rsp HLEN 8", nvme_tcp_rsp, 0, 8, 0, 8, false, false, -EPROTO },
	{ "rsp HLEN 255", nvme_tcp_rsp, 0, 255, 0, 255, false, false, -EPROTO },
	{ "rsp with PDO", nvme_tcp_rsp, 0, HLEN, HLEN, HLEN, false, false,
	  -EPROTO },
	{ "rsp with DDGSTF", nvme_tcp_rsp, NVME_TCP_F_DDGST, HLEN, 0, HLEN,
	  false, true, -EPROTO },
	{ "rsp PLEN 0", nvme_tcp_rsp, 0, HLEN, 0, 0, false, false, -EPROTO },
	{ "rsp PLEN 4 GiB", nvme_tcp_rsp, 0, HLEN, 0, 0xffffffff, false, false,
	  -EPROTO },
	{ "r2t ok", nvme_tcp_r2t, 0, HLEN, 0, HLEN, false, false, 0 },
	{ "r2t with data", nvme_tcp_r2t, 0, HLEN, HLEN, HLEN + 512, false,
	  false, -EPROTO },
	{ "c2h data ok", nvme_tcp_c2h_data, 0, HLEN, HLEN, HLEN + 4096, false,
	  false, 0 },
	{ "c2h DDGSTF not negotiated", nvme_tcp_c2h_data, NVME_TCP_F_DDGST,
	  HLEN, HLEN, HLEN + 4096 + DG, false, false, -EPROTO },
	{ "c2h missing DDGSTF", nvme_tcp_c2h_data, 0, HLEN, HLEN, HLEN + 4096,
	  false, true, -EPROTO },
	{ "c2h HLEN 0", nvme_tcp_c2h_data, 0, 0, 0, 4096, false, false,
	  -EPROTO },
	{ "c2h term min PLEN", nvme_tcp_c2h_term, 0, HLEN, 0, 24, false, false,
	  0 },
	{ "c2h term max PLEN", nvme_tcp_c2h_term, 0, HLEN, 0, 152, false,
	  false, 0 },
	{ "c2h term PLEN 23", nvme_tcp_c2h_term, 0, HLEN, 0, 23, false, false,
	  -EPROTO },
	{ "c2h term PLEN 153", nvme_tcp_c2h_term, 0, HLEN, 0, 153, false,
	  false, -EPROTO },
	{ "ICReq to the host", nvme_tcp_icreq, 0, 128, 0, 128, false, false,
	  -EPROTO },
	{ "ICResp after the handshake", nvme_tcp_icresp, 0, 128, 0, 128, false,
	  false, -EPROTO },
	{ "H2CTermReq to the host", nvme_tcp_h2c_term, 0, HLEN, 0, 24, false,
	  false, -EPROTO },
	{ "command capsule to the host", nvme_tcp_cmd, 0, 72, 0, 72, false,
	  false, -EPROTO },
	{ "H2CData to the host", nvme_tcp_h2c_data, 0, HLEN, HLEN, 4120, false,
	  false, -EPROTO },
	{ "type 0x08 (reserved)", 0x08, 0, HLEN, 0, HLEN, false, false,
	  -EPROTO },
	{ "type 0xff", 0xff, 0, HLEN, 0, HLEN, false, false, -EPROTO },
};

static void hdr_case_desc(const struct hdr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hdr, hdr_cases, hdr_case_desc);

static void nvfab_tcp_hdr_test(struct kunit *test)
{
	const struct hdr_case *c = test->param_value;
	struct nvme_tcp_hdr h = {
		.type = c->type, .flags = c->flags, .hlen = c->hlen,
		.pdo = c->pdo, .plen = cpu_to_le32(c->plen),
	};
	const char *why = NULL;
	int ret;

	ret = nvfab_tcp_check_hdr(&h, c->hdgst, c->ddgst, &why);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret)
		KUNIT_EXPECT_NOT_NULL(test, why);
}

/* C2HData against a 16 KiB read of which 4 KiB arrived. */
struct c2h_case {
	const char *desc;
	u8 flags, pdo;
	u32 plen, off, len;
	struct nvfab_tcp_xfer x;
	bool hdgst, ddgst;
	u8 hpda;
	int ret;
};

#define C2H_RD(d)	{ .read = true, .data_len = 16384, .done = (d) }

static const struct c2h_case c2h_cases[] = {
	{ "next 4 KiB", 0, HLEN, HLEN + 4096, 4096, 4096, C2H_RD(4096), .ret = 0 },
	{ "last chunk with SUCCESS", NVME_TCP_F_DATA_LAST |
	  NVME_TCP_F_DATA_SUCCESS, HLEN, HLEN + 12288, 4096, 12288, C2H_RD(4096),
	  .ret = 0 },
	{ "with header and data digests", NVME_TCP_F_HDGST | NVME_TCP_F_DDGST,
	  HLEN + DG, HLEN + DG + 4096 + DG, 4096, 4096, C2H_RD(4096), true, true,
	  .ret = 0 },
	{ "HPDA 7 padding to 32 bytes", 0, 32, 32 + 4096, 4096, 4096,
	  C2H_RD(4096), .hpda = 7, .ret = 0 },
	{ "PDO not aligned to HPDA", 0, 28, 28 + 4096, 4096, 4096, C2H_RD(4096),
	  .hpda = 7, .ret = -EPROTO },
	{ "PDO padded although HPDA 0", 0, 32, 32 + 4096, 4096, 4096,
	  C2H_RD(4096), .ret = -EPROTO },
	{ "PDO inside the header", 0, 16, 16 + 4096, 4096, 4096, C2H_RD(4096),
	  .ret = -EPROTO },
	{ "PDO with needless padding", 0, HLEN + 8, HLEN + 8 + 4096, 4096,
	  4096, C2H_RD(4096), .ret = -EPROTO },
	{ "PLEN short of the data", 0, HLEN, HLEN + 4000, 4096, 4096, C2H_RD(4096),
	  .ret = -EPROTO },
	{ "PLEN without the data digest", NVME_TCP_F_DDGST, HLEN, HLEN + 4096,
	  4096, 4096, C2H_RD(4096), false, true, .ret = -EPROTO },
	{ "offset repeats received data", 0, HLEN, HLEN + 4096, 0, 4096,
	  C2H_RD(4096), .ret = -EPROTO },
	{ "offset skips ahead", 0, HLEN, HLEN + 4096, 8192, 4096, C2H_RD(4096),
	  .ret = -EPROTO },
	{ "beyond the buffer", 0, HLEN, HLEN + 16384, 4096, 16384, C2H_RD(4096),
	  .ret = -EPROTO },
	{ "length wraps u32", 0, HLEN, HLEN + 4096, 4096, 0xfffff000,
	  C2H_RD(4096), .ret = -EPROTO },
	{ "zero length", 0, HLEN, HLEN, 4096, 0, C2H_RD(4096), .ret = -EPROTO },
	{ "SUCCESS without LAST", NVME_TCP_F_DATA_SUCCESS, HLEN,
	  HLEN + 12288, 4096, 12288, C2H_RD(4096), .ret = -EPROTO },
	{ "SUCCESS before the end", NVME_TCP_F_DATA_LAST |
	  NVME_TCP_F_DATA_SUCCESS, HLEN, HLEN + 4096, 4096, 4096, C2H_RD(4096),
	  .ret = -EPROTO },
	{ "data for a write", 0, HLEN, HLEN + 4096, 0, 4096,
	  { .read = false, .data_len = 16384 }, .ret = -EPROTO },
	{ "data for a command without data", 0, HLEN, HLEN + 4096, 0, 4096,
	  { .read = true, .data_len = 0 }, .ret = -EPROTO },
	{ "data before the command was sent", 0, HLEN, HLEN + 4096, 0, 4096,
	  { .read = true, .busy = true, .data_len = 16384 }, .ret = -EPROTO },
};

static void c2h_case_desc(const struct c2h_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(c2h, c2h_cases, c2h_case_desc);

static void nvfab_tcp_c2h_test(struct kunit *test)
{
	const struct c2h_case *c = test->param_value;
	struct nvme_tcp_data_pdu pdu = {
		.hdr = { .type = nvme_tcp_c2h_data, .flags = c->flags,
			 .hlen = HLEN, .pdo = c->pdo,
			 .plen = cpu_to_le32(c->plen) },
		.data_offset = cpu_to_le32(c->off),
		.data_length = cpu_to_le32(c->len),
	};
	const char *why;

	KUNIT_EXPECT_EQ(test, nvfab_tcp_check_c2h(&pdu, &c->x, c->hdgst,
						  c->ddgst, c->hpda, &why),
			c->ret);
}

/* R2T against a 64 KiB write of which 16 KiB was sent. */
struct r2t_case {
	const char *desc;
	u32 off, len;
	struct nvfab_tcp_xfer x;
	int ret;
};

#define R2T_WR(d)	{ .read = false, .data_len = 65536, .done = (d) }

static const struct r2t_case r2t_cases[] = {
	{ "next 16 KiB", 16384, 16384, R2T_WR(16384), 0 },
	{ "the rest", 16384, 49152, R2T_WR(16384), 0 },
	{ "first R2T", 0, 65536, R2T_WR(0), 0 },
	{ "zero length", 16384, 0, R2T_WR(16384), -EPROTO },
	{ "beyond the buffer", 16384, 65536, R2T_WR(16384), -EPROTO },
	{ "length wraps u32", 16384, 0xffffc000, R2T_WR(16384), -EPROTO },
	{ "offset repeats sent data", 0, 16384, R2T_WR(16384), -EPROTO },
	{ "offset skips ahead", 32768, 16384, R2T_WR(16384), -EPROTO },
	{ "R2T for a read", 0, 4096, { .read = true, .data_len = 65536 },
	  -EPROTO },
	{ "R2T for in-capsule data", 0, 4096,
	  { .data_len = 4096, .inline_len = 4096 }, -EPROTO },
	{ "R2T for no data", 0, 4096, { .data_len = 0 }, -EPROTO },
	{ "second R2T while one runs", 16384, 4096,
	  { .data_len = 65536, .done = 16384, .r2t_left = 4096 }, -EPROTO },
	{ "R2T while the command is being sent", 0, 4096,
	  { .data_len = 65536, .busy = true }, -EPROTO },
};

static void r2t_case_desc(const struct r2t_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(r2t, r2t_cases, r2t_case_desc);

static void nvfab_tcp_r2t_test(struct kunit *test)
{
	const struct r2t_case *c = test->param_value;
	struct nvme_tcp_r2t_pdu pdu = {
		.hdr = { .type = nvme_tcp_r2t, .hlen = HLEN,
			 .plen = cpu_to_le32(HLEN) },
		.r2t_offset = cpu_to_le32(c->off),
		.r2t_length = cpu_to_le32(c->len),
	};
	const char *why;

	KUNIT_EXPECT_EQ(test, nvfab_tcp_check_r2t(&pdu, &c->x, &why), c->ret);
}

struct icresp_case {
	const char *desc;
	u8 type, hlen, pdo, digest, cpda;
	u32 plen, maxdata;
	u16 pfv;
	bool hdgst, ddgst;
	int ret;
};

static const struct icresp_case icresp_cases[] = {
	{ "nvmet's answer", nvme_tcp_icresp, 128, 0, 0, 0, 128, 131072, 0,
	  false, false, 0 },
	{ "both digests", nvme_tcp_icresp, 128, 0, 3, 0, 128, 131072, 0, true,
	  true, 0 },
	{ "digest refused", nvme_tcp_icresp, 128, 0, 0, 0, 128, 131072, 0,
	  true, false, -EPROTO },
	{ "digest not asked for", nvme_tcp_icresp, 128, 0, 2, 0, 128, 131072,
	  0, false, false, -EPROTO },
	{ "PFV 1", nvme_tcp_icresp, 128, 0, 0, 0, 128, 131072, 1, false, false,
	  -EPROTO },
	{ "HLEN 24", nvme_tcp_icresp, 24, 0, 0, 0, 128, 131072, 0, false,
	  false, -EPROTO },
	{ "PLEN 129", nvme_tcp_icresp, 128, 0, 0, 0, 129, 131072, 0, false,
	  false, -EPROTO },
	{ "PDO 8", nvme_tcp_icresp, 128, 8, 0, 0, 128, 131072, 0, false, false,
	  -EPROTO },
	{ "CPDA 1", nvme_tcp_icresp, 128, 0, 0, 1, 128, 131072, 0, false,
	  false, -EPROTO },
	{ "CPDA 31", nvme_tcp_icresp, 128, 0, 0, 31, 128, 131072, 0, false,
	  false, -EPROTO },
	{ "CPDA 32", nvme_tcp_icresp, 128, 0, 0, 32, 128, 131072, 0, false,
	  false, -EPROTO },
	{ "MAXH2CDATA 4095", nvme_tcp_icresp, 128, 0, 0, 0, 128, 4095, 0,
	  false, false, -EPROTO },
	{ "MAXH2CDATA 4096", nvme_tcp_icresp, 128, 0, 0, 0, 128, 4096, 0,
	  false, false, 0 },
	{ "MAXH2CDATA 4098", nvme_tcp_icresp, 128, 0, 0, 0, 128, 4098, 0,
	  false, false, -EPROTO },
	{ "MAXH2CDATA 0", nvme_tcp_icresp, 128, 0, 0, 0, 128, 0, 0, false,
	  false, -EPROTO },
	{ "an R2T instead", nvme_tcp_r2t, 24, 0, 0, 0, 24, 0, 0, false, false,
	  -EPROTO },
};

static void icresp_case_desc(const struct icresp_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icresp, icresp_cases, icresp_case_desc);

static void nvfab_tcp_icresp_test(struct kunit *test)
{
	const struct icresp_case *c = test->param_value;
	struct nvme_tcp_icresp_pdu r = {
		.hdr = { .type = c->type, .hlen = c->hlen, .pdo = c->pdo,
			 .plen = cpu_to_le32(c->plen) },
		.pfv = cpu_to_le16(c->pfv),
		.cpda = c->cpda,
		.digest = c->digest,
		.maxdata = cpu_to_le32(c->maxdata),
	};
	const char *why;

	KUNIT_EXPECT_EQ(test, nvfab_tcp_check_icresp(&r, c->hdgst, c->ddgst,
						     &why), c->ret);
}

static struct kunit_case nvfab_tcp_pdu_cases[] = {
	KUNIT_CASE_PARAM(nvfab_tcp_hdr_test, hdr_gen_params),
	KUNIT_CASE_PARAM(nvfab_tcp_c2h_test, c2h_gen_params),
	KUNIT_CASE_PARAM(nvfab_tcp_r2t_test, r2t_gen_params),
	KUNIT_CASE_PARAM(nvfab_tcp_icresp_test, icresp_gen_params),
	{}
};

static struct kunit_suite nvfab_tcp_pdu_suite = {
	.name = "nvfab_tcp_pdu",
	.test_cases = nvfab_tcp_pdu_cases,
};

kunit_test_suite(nvfab_tcp_pdu_suite);

MODULE_DESCRIPTION("KUnit tables of hostile NVMe/TCP PDUs for nvfab-tcp");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
