// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of nvfab-peermem's registry with a fake provider: provider
 * registration, claims (overlap, edges, after unregister), the mapping
 * of host, claimed and owns_page memory, requests that mix them, an
 * unreachable DMA device, a provider's mapping error, a revoke and an
 * unregister that wait for the mappings in flight, and the block status
 * of each mapping error (never a retry but for a shortage of memory).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include <nvfab/peermem.h>

#include <nvfab/compat.h>

#define FAKE_BAR	0xd0000000ULL

/*
 * A distance() held open: it signals @entered, spins (it may not sleep)
 * until @release or 5 s, then reads the claim's provider data, as the
 * NVIDIA provider's distance() does.
 */
struct gate {
	struct completion entered;
	int release;
	int seen;
};

static struct {
	int distance;		/* what distance() returns */
	int map_ret;		/* 0: map every entry; else this error */
	int maps, unmaps;
	struct page *owned;	/* the page owns_page() takes */
	struct gate *gate;	/* hold distance() open */
} fake;

static bool fake_owns_page(struct page *page)
{
	return page == READ_ONCE(fake.owned);
}

static int fake_distance(const struct nvfab_peer_map *map)
{
	struct gate *g = READ_ONCE(fake.gate);
	int ms;

	if (g && map->claim) {
		complete(&g->entered);
		for (ms = 0; ms < 5000 && !READ_ONCE(g->release); ms++)
			mdelay(1);
		g->seen = *(int *)nvfab_peer_claim_priv(map->claim);
	}
	return fake.distance;
}

static int fake_map_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
		       int nents)
{
	struct scatterlist *sg;
	int i;

	fake.maps++;
	if (fake.map_ret)
		return fake.map_ret;
	for_each_sg(sgl, sg, nents, i) {
		sg_dma_address(sg) = FAKE_BAR + i * PAGE_SIZE + sg->offset;
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static void fake_unmap_sg(struct nvfab_peer_map *map, struct scatterlist *sgl,
			  int nents)
{
	fake.unmaps++;
}

static const struct nvfab_peer_ops fake_ops = {
	.distance	= fake_distance,
	.map_sg		= fake_map_sg,
	.unmap_sg	= fake_unmap_sg,
};

static const struct nvfab_peer_ops fake_owner_ops = {
	.owns_page	= fake_owns_page,
	.distance	= fake_distance,
	.map_sg		= fake_map_sg,
	.unmap_sg	= fake_unmap_sg,
};

static struct nvfab_peer_provider fake_prov = {
	.name	= "kunit-fake",
	.owner	= THIS_MODULE,
	.ops	= &fake_ops,
};

static const struct nvfab_peer_dma_dev fake_dma = { .name = "kunit_rdma0" };

/* Four contiguous pages for the tests that map; freed by the exit hook. */
static struct page *pages;

static unsigned long pfn_of(int i)
{
	return page_to_pfn(pages) + i;
}

static int peermem_init(struct kunit *test)
{
	memset(&fake, 0, sizeof(fake));
	pages = alloc_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_EQ(test, nvfab_peer_register(&fake_prov), 0);
	return 0;
}

static void peermem_exit(struct kunit *test)
{
	nvfab_peer_unregister(&fake_prov);	/* drops leftover claims */
	__free_pages(pages, 2);
}

/* An sg table of up to 4 entries: page index, offset, length. */
struct ent { int page; unsigned int off, len; };

static int map(struct nvfab_peer_map *m, struct scatterlist *sgl,
	       const struct ent *e, int n)
{
	int i;

	sg_init_table(sgl, n);
	for (i = 0; i < n; i++)
		sg_set_page(&sgl[i], pages + e[i].page, e[i].len,
			    e[i].off);
	return nvfab_peer_map_sg(m, &fake_dma, sgl, n, DMA_FROM_DEVICE);
}

/* Runs fn(arg) in a kthread; the caller waits on done. */
struct bg {
	struct completion done;
	void (*fn)(void *arg);
	void *arg;
};

static int bg_thread(void *data)
{
	struct bg *bg = data;

	bg->fn(bg->arg);
	kthread_complete_and_exit(&bg->done, 0);
}

static void bg_start(struct kunit *test, struct bg *bg,
		     void (*fn)(void *arg), void *arg)
{
	init_completion(&bg->done);
	bg->fn = fn;
	bg->arg = arg;
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(bg_thread, bg, "peermem-kunit")));
}

/* ---- registration ---- */

static void peermem_register_test(struct kunit *test)
{
	static const struct nvfab_peer_ops no_map = {
		.distance = fake_distance, .unmap_sg = fake_unmap_sg,
	};
	struct nvfab_peer_provider bad[] = {
		{ .name = NULL, .ops = &fake_ops },
		{ .name = "", .ops = &fake_ops },
		{ .name = "kunit-noops" },
		{ .name = "kunit-nomap", .ops = &no_map },
	};
	struct nvfab_peer_provider dup = { .name = "kunit-fake", .ops = &fake_ops };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, nvfab_peer_register(&bad[i]), -EINVAL,
				    "row %d", i);
	KUNIT_EXPECT_EQ(test, nvfab_peer_register(&dup), -EBUSY);
	KUNIT_EXPECT_TRUE(test, nvfab_peer_possible());
}

/* ---- claims ---- */

static void peermem_claim_test(struct kunit *test)
{
	static const struct {
		unsigned long pfn, nr;
		int ret;
	} rows[] = {
		{ 1000, 10, -EBUSY },		/* the same range */
		{ 995, 6, -EBUSY },		/* overlaps its first page */
		{ 1009, 1, -EBUSY },		/* its last page */
		{ 1003, 2, -EBUSY },		/* inside it */
		{ 990, 30, -EBUSY },		/* around it */
		{ 990, 10, 0 },			/* ends just before it */
		{ 1010, 5, 0 },			/* starts just after it */
		{ 2000, 0, -EINVAL },		/* no page */
		{ ULONG_MAX, 2, -EINVAL },	/* past the last pfn */
		{ ULONG_MAX, 1, 0 },		/* the last pfn */
	};
	struct nvfab_peer_claim *held, *c;
	int i;

	held = nvfab_peer_claim(&fake_prov, 1000, 10, test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(held));
	KUNIT_EXPECT_PTR_EQ(test, nvfab_peer_claim_priv(held), (void *)test);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		c = nvfab_peer_claim(&fake_prov, rows[i].pfn, rows[i].nr, NULL);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(c), rows[i].ret,
				    "pfn %#lx + %lu", rows[i].pfn, rows[i].nr);
		if (!IS_ERR(c))
			nvfab_peer_unclaim(c);
	}
	nvfab_peer_unclaim(held);
	/* the range is free again */
	c = nvfab_peer_claim(&fake_prov, 1000, 10, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(c));
	if (!IS_ERR(c))
		nvfab_peer_unclaim(c);
}

static void peermem_claim_unregistered_test(struct kunit *test)
{
	struct nvfab_peer_provider other = {
		.name = "kunit-other", .owner = THIS_MODULE, .ops = &fake_ops,
	};
	struct nvfab_peer_claim *c;

	KUNIT_ASSERT_EQ(test, nvfab_peer_register(&other), 0);
	c = nvfab_peer_claim(&other, 5000, 4, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	/* another provider may not claim those pages either */
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvfab_peer_claim(&fake_prov, 5002, 1, NULL)),
			-EBUSY);
	/* unregistering drops the claim it left (with an error logged) */
	nvfab_peer_unregister(&other);
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvfab_peer_claim(&other, 6000, 1, NULL)),
			-ENODEV);
	c = nvfab_peer_claim(&fake_prov, 5000, 4, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(c));
	if (!IS_ERR(c))
		nvfab_peer_unclaim(c);
}

static void peermem_extend_test(struct kunit *test)
{
	static const struct ent apart[] = { { 0, 0, PAGE_SIZE }, { 2, 0, 512 } };
	static const struct ent gap[] = { { 0, 0, 2 * PAGE_SIZE } };
	struct scatterlist sgl[2];
	struct nvfab_peer_claim *c;
	struct nvfab_peer_map m;

	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_EXPECT_EQ(test, nvfab_peer_claim_extend(c, pfn_of(0), 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, nvfab_peer_claim_extend(c, pfn_of(2), 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_peer_claim_extend(c, ULONG_MAX, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_peer_claim_extend(c, pfn_of(2), 1), 0);
	/* two ranges apart: one I/O on both is one claim's */
	KUNIT_EXPECT_EQ(test, map(&m, sgl, apart, 2), 2);
	KUNIT_EXPECT_PTR_EQ(test, m.claim, c);
	nvfab_peer_unmap_sg(&m, sgl);
	/* but not across the unclaimed page between them */
	KUNIT_EXPECT_EQ(test, map(&m, sgl, gap, 1), -EXDEV);
	nvfab_peer_revoke(c);
	KUNIT_EXPECT_EQ(test, nvfab_peer_claim_extend(c, pfn_of(3), 1), -EKEYREVOKED);
	nvfab_peer_unclaim(c);
	/* every range was given back */
	KUNIT_EXPECT_EQ(test, map(&m, sgl, apart, 2), 0);
	c = nvfab_peer_claim(&fake_prov, pfn_of(2), 1, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(c));
	if (!IS_ERR(c))
		nvfab_peer_unclaim(c);
}

/* ---- mapping ---- */

static void peermem_map_host_test(struct kunit *test)
{
	static const struct ent e[] = { { 0, 0, PAGE_SIZE }, { 1, 0, 512 } };
	struct scatterlist sgl[2];
	struct nvfab_peer_map m;

	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 2), 0);
	KUNIT_EXPECT_NULL(test, m.prov);
	KUNIT_EXPECT_EQ(test, fake.maps, 0);
	nvfab_peer_unmap_sg(&m, sgl);	/* nothing to undo */
	KUNIT_EXPECT_EQ(test, fake.unmaps, 0);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages, &fake_dma), -ENOENT);
}

static void peermem_map_claimed_test(struct kunit *test)
{
	static const struct ent e[] = { { 0, 0, PAGE_SIZE }, { 1, 0, 2048 } };
	struct scatterlist sgl[2];
	struct nvfab_peer_claim *c;
	struct nvfab_peer_map m;

	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 4, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	fake.distance = 2;
	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 2), 2);
	KUNIT_EXPECT_PTR_EQ(test, m.prov, &fake_prov);
	KUNIT_EXPECT_PTR_EQ(test, m.claim, c);
	KUNIT_EXPECT_PTR_EQ(test, m.dma, &fake_dma);
	KUNIT_EXPECT_EQ(test, m.dma_nents, 2);
	KUNIT_EXPECT_EQ(test, m.bytes, (u64)PAGE_SIZE + 2048);
	KUNIT_EXPECT_EQ(test, sg_dma_address(&sgl[1]), FAKE_BAR + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.ios), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.bytes),
			(s64)PAGE_SIZE + 2048);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages + 3, &fake_dma),
			2);
	nvfab_peer_unmap_sg(&m, sgl);
	KUNIT_EXPECT_EQ(test, fake.unmaps, 1);
	KUNIT_EXPECT_NULL(test, m.prov);
	nvfab_peer_unclaim(c);
	/* host memory again */
	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 2), 0);
	KUNIT_EXPECT_EQ(test, fake.maps, 1);
}

struct mixed_case {
	const char *desc;
	int n;
	struct ent e[3];
	int ret;
};

/*
 * Pages 1 and 2 are one claim, made of two ranges (page 1, then page 2
 * added by nvfab_peer_claim_extend()); page 3 is a second claim.
 */
static const struct mixed_case mixed_cases[] = {
	{ "host page alone", 1, { { 0, 0, PAGE_SIZE } }, 0 },
	{ "claimed pages", 2, { { 1, 0, PAGE_SIZE }, { 2, 0, PAGE_SIZE } }, 2 },
	{ "an entry across two ranges of a claim", 1, { { 1, 0, 2 * PAGE_SIZE } }, 1 },
	{ "an offset past the first page", 1, { { 0, PAGE_SIZE, 512 } }, 1 },
	{ "host then claimed", 2, { { 0, 0, PAGE_SIZE }, { 1, 0, 512 } }, -EXDEV },
	{ "claimed then host", 2, { { 2, 0, 512 }, { 0, 0, 512 } }, -EXDEV },
	{ "an entry from host into claimed", 1, { { 0, 2048, PAGE_SIZE } }, -EXDEV },
	{ "two claims", 2, { { 2, 0, PAGE_SIZE }, { 3, 0, PAGE_SIZE } }, -EXDEV },
	{ "an entry across two claims", 1, { { 2, 0, 2 * PAGE_SIZE } }, -EXDEV },
};

KUNIT_ARRAY_PARAM_DESC(mixed, mixed_cases, desc);

static void peermem_mixed_test(struct kunit *test)
{
	const struct mixed_case *p = test->param_value;
	struct nvfab_peer_claim *c1, *c2;
	struct scatterlist sgl[3];
	struct nvfab_peer_map m;
	int ret;

	c1 = nvfab_peer_claim(&fake_prov, pfn_of(1), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c1));
	KUNIT_ASSERT_EQ(test, nvfab_peer_claim_extend(c1, pfn_of(2), 1), 0);
	c2 = nvfab_peer_claim(&fake_prov, pfn_of(3), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c2));
	ret = map(&m, sgl, p->e, p->n);
	KUNIT_EXPECT_EQ(test, ret, p->ret);
	if (ret < 0) {
		KUNIT_EXPECT_NULL(test, m.prov);
		KUNIT_EXPECT_EQ(test, fake.maps, 0);
		KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.failures), 1);
	}
	nvfab_peer_unmap_sg(&m, sgl);
	KUNIT_EXPECT_EQ(test, fake.maps, fake.unmaps);
	/* nothing stays pinned: neither unclaim waits */
	nvfab_peer_unclaim(c2);
	nvfab_peer_unclaim(c1);
}

static void peermem_unreachable_test(struct kunit *test)
{
	static const struct ent e[] = { { 0, 0, PAGE_SIZE } };
	struct scatterlist sgl[1];
	struct nvfab_peer_claim *c;
	struct nvfab_peer_map m;

	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	fake.distance = -EREMOTEIO;
	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 1), -EREMOTEIO);
	KUNIT_EXPECT_NULL(test, m.prov);
	KUNIT_EXPECT_EQ(test, fake.maps, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.unreachable), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.ios), 0);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages, &fake_dma), -EREMOTEIO);
	/* any negative distance is unreachable */
	fake.distance = -1;
	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 1), -EREMOTEIO);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages, &fake_dma), -EREMOTEIO);
	nvfab_peer_unclaim(c);
}

static void peermem_map_error_test(struct kunit *test)
{
	static const struct ent e[] = { { 0, 0, PAGE_SIZE } };
	static const int errs[] = { -ENOMEM, -EIO, -EREMOTEIO };
	struct scatterlist sgl[1];
	struct nvfab_peer_claim *c;
	struct nvfab_peer_map m;
	int i;

	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		fake.map_ret = errs[i];
		KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 1), errs[i]);
		KUNIT_EXPECT_NULL(test, m.prov);
	}
	KUNIT_EXPECT_EQ(test, fake.unmaps, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.failures), 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.unreachable), 1);
	/* the failed mappings pinned nothing: this does not wait */
	nvfab_peer_unclaim(c);
}

static void revoke_bg(void *arg)
{
	nvfab_peer_revoke(arg);
}

static void peermem_revoke_test(struct kunit *test)
{
	static const struct ent e[] = { { 0, 0, PAGE_SIZE } };
	struct scatterlist sgl[1], sgl2[1];
	struct nvfab_peer_map m, m2;
	struct nvfab_peer_claim *c;
	struct bg bg;

	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 1, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_ASSERT_EQ(test, map(&m, sgl, e, 1), 1);

	bg_start(test, &bg, revoke_bg, c);
	/* the revoke waits for the mapping in flight */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&bg.done, HZ / 5), 0);
	/* and meanwhile the pages are refused, not taken for host memory */
	KUNIT_EXPECT_EQ(test, map(&m2, sgl2, e, 1), -EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.revoked), 1);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages, &fake_dma),
			-EKEYREVOKED);
	/* the head asks once for an I/O on revoked pages, and fails it */
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.revoked), 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fake_prov.stats.unreachable), 0);
	KUNIT_EXPECT_TRUE(test, nvfab_peer_blk_status(-EKEYREVOKED) == BLK_STS_TARGET);

	nvfab_peer_unmap_sg(&m, sgl);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&bg.done, 10 * HZ), 0);
	nvfab_peer_revoke(c);	/* again: returns at once */
	KUNIT_EXPECT_EQ(test, map(&m2, sgl2, e, 1), -EKEYREVOKED);
	nvfab_peer_unclaim(c);
	KUNIT_EXPECT_EQ(test, map(&m2, sgl2, e, 1), 0);
}

static void unregister_bg(void *arg)
{
	nvfab_peer_unregister(arg);
}

static void peermem_owns_page_test(struct kunit *test)
{
	static const struct ent e[] = { { 3, 0, PAGE_SIZE } };
	struct nvfab_peer_provider owner = {
		.name = "kunit-owner", .owner = THIS_MODULE,
		.ops = &fake_owner_ops,
	};
	struct scatterlist sgl[1];
	struct nvfab_peer_map m;
	struct bg bg;

	KUNIT_ASSERT_EQ(test, nvfab_peer_register(&owner), 0);
	WRITE_ONCE(fake.owned, pages + 3);
	fake.distance = 1;
	KUNIT_ASSERT_EQ(test, map(&m, sgl, e, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, m.prov, &owner);
	KUNIT_EXPECT_NULL(test, m.claim);
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages + 3, &fake_dma),
			1);

	bg_start(test, &bg, unregister_bg, &owner);
	/* unregistering waits for the mapping in flight */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&bg.done, HZ / 5), 0);
	nvfab_peer_unmap_sg(&m, sgl);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&bg.done, 10 * HZ), 0);
	/* the page is nobody's now */
	KUNIT_EXPECT_EQ(test, map(&m, sgl, e, 1), 0);
	WRITE_ONCE(fake.owned, NULL);
}

struct distance_bg {
	struct page *page;
	int ret;
};

static void distance_bg(void *arg)
{
	struct distance_bg *d = arg;

	d->ret = nvfab_peer_page_distance(d->page, &fake_dma);
}

static void unclaim_bg(void *arg)
{
	struct nvfab_peer_claim *c = arg;
	int *priv = nvfab_peer_claim_priv(c);

	nvfab_peer_unclaim(c);
	/* what a provider does once its claim is gone (peermem-nvidia.c) */
	*priv = 0;
	kfree(priv);
}

/*
 * nvfab_peer_page_distance() while the claim is unclaimed: the unclaim
 * must wait for the provider's distance() in progress, which reads the
 * claim's provider data; a use after the free is a KASAN report.
 */
static void peermem_distance_unclaim_test(struct kunit *test)
{
	struct distance_bg d = { .page = pages };
	struct bg bg_dist, bg_unclaim;
	struct nvfab_peer_claim *c;
	struct gate g = { .release = 0 };
	int *priv;

	priv = kmalloc(sizeof(*priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, priv);
	*priv = 42;
	c = nvfab_peer_claim(&fake_prov, pfn_of(0), 1, priv);
	if (IS_ERR(c))
		kfree(priv);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	fake.distance = 3;
	init_completion(&g.entered);
	WRITE_ONCE(fake.gate, &g);

	bg_start(test, &bg_dist, distance_bg, &d);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&g.entered, 10 * HZ), 0);
	bg_start(test, &bg_unclaim, unclaim_bg, c);
	/* distance() is running: the unclaim may not return yet */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&bg_unclaim.done, HZ / 2), 0);

	WRITE_ONCE(g.release, 1);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&bg_dist.done, 10 * HZ), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&bg_unclaim.done, 10 * HZ), 0);
	WRITE_ONCE(fake.gate, NULL);
	KUNIT_EXPECT_EQ(test, g.seen, 42);
	KUNIT_EXPECT_EQ(test, d.ret, 3);
	/* and the page is host memory again */
	KUNIT_EXPECT_EQ(test, nvfab_peer_page_distance(pages, &fake_dma), -ENOENT);
}

static void peermem_blk_status_test(struct kunit *test)
{
	static const struct {
		int err;
		blk_status_t sts;
	} rows[] = {
		{ 0, BLK_STS_OK }, { 4, BLK_STS_OK },
		{ -ENOMEM, BLK_STS_RESOURCE }, { -EAGAIN, BLK_STS_RESOURCE },
		{ -EREMOTEIO, BLK_STS_TARGET }, { -EKEYREVOKED, BLK_STS_TARGET },
		{ -EXDEV, BLK_STS_TARGET }, { -ENODEV, BLK_STS_TARGET },
		{ -EIO, BLK_STS_TARGET }, { -EINVAL, BLK_STS_TARGET },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		/* blk_status_t is __bitwise: compared, not printed */
		KUNIT_EXPECT_TRUE_MSG(test,
				      nvfab_peer_blk_status(rows[i].err) == rows[i].sts,
				      "err %d", rows[i].err);
		/* none of the errors is a path error: no failover, no requeue */
		if (rows[i].sts == BLK_STS_TARGET)
			KUNIT_EXPECT_FALSE(test, blk_path_error(rows[i].sts));
	}
}

static struct kunit_case peermem_cases[] = {
	KUNIT_CASE(peermem_register_test),
	KUNIT_CASE(peermem_claim_test),
	KUNIT_CASE(peermem_claim_unregistered_test),
	KUNIT_CASE(peermem_extend_test),
	KUNIT_CASE(peermem_map_host_test),
	KUNIT_CASE(peermem_map_claimed_test),
	KUNIT_CASE_PARAM(peermem_mixed_test, mixed_gen_params),
	KUNIT_CASE(peermem_unreachable_test),
	KUNIT_CASE(peermem_map_error_test),
	KUNIT_CASE(peermem_revoke_test),
	KUNIT_CASE(peermem_owns_page_test),
	KUNIT_CASE(peermem_distance_unclaim_test),
	KUNIT_CASE(peermem_blk_status_test),
	{}
};

static struct kunit_suite peermem_suite = {
	.name = "nvfab_peermem",
	.init = peermem_init,
	.exit = peermem_exit,
	.test_cases = peermem_cases,
};

kunit_test_suite(peermem_suite);

MODULE_DESCRIPTION("KUnit tests of nvfab-peermem's provider registry and peer mappings");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
