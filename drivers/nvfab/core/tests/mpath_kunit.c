// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for the multipath framework on fake paths: the ANA tiering
 * every selector relies on (NVMe Base 2.0, 8.1.3), the decision of what
 * I/O does with no usable path, the built-in selectors (numa,
 * round-robin, queue-depth), the selector registry and the choice among
 * paths for I/O on peer memory.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <nvfab/compat.h>
#include "../multipath/mpath.h"

#define NP	4

/* short names for the tables */
enum {
	L = NVFAB_CTRL_LIVE,
	C = NVFAB_CTRL_CONNECTING,
	R = NVFAB_CTRL_RESETTING,
	D = NVFAB_CTRL_DELETING,
};

enum {
	O = NVME_ANA_OPTIMIZED,
	N = NVME_ANA_NONOPTIMIZED,
	I = NVME_ANA_INACCESSIBLE,
	P = NVME_ANA_PERSISTENT_LOSS,
	X = NVME_ANA_CHANGE,
};

/* A fake head with up to NP paths, each on its own fake controller. */
struct fake_mp {
	struct nvfab_subsys	subsys;
	struct nvfab_ns_head	head;
	struct nvfab_ctrl	ctrl[NP];
	struct nvfab_ns		ns[NP];
	atomic_t		inflight[NP];
};

struct fake_path {
	int	ctrl_state;
	u8	ana;
	u8	flags;		/* NVFAB_NS_* bits */
	bool	failfast;	/* NVFAB_CTRL_FAILFAST_EXPIRED */
};

static struct fake_mp *fake_mp_new(struct kunit *test,
				   const struct fake_path *fp, int n)
{
	struct fake_mp *mp = kunit_kzalloc(test, sizeof(*mp), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mp);
	KUNIT_ASSERT_EQ(test, init_srcu_struct(&mp->subsys.srcu), 0);
	mp->head.subsys = &mp->subsys;
	INIT_LIST_HEAD(&mp->head.paths);
	for (i = 0; i < n; i++) {
		struct nvfab_ns *ns = &mp->ns[i];

		mp->ctrl[i].state = fp[i].ctrl_state;
		if (fp[i].failfast)
			set_bit(NVFAB_CTRL_FAILFAST_EXPIRED, &mp->ctrl[i].flags);
		ns->ctrl = &mp->ctrl[i];
		ns->flags = fp[i].flags;
		ns->path.slot = i;
		ns->path.numa_node = NUMA_NO_NODE;
		ns->path.ana_state = fp[i].ana;
		ns->path.inflight = &mp->inflight[i];
		list_add_tail(&ns->siblings, &mp->head.paths);
	}
	return mp;
}

static void fake_mp_free(struct fake_mp *mp)
{
	cleanup_srcu_struct(&mp->subsys.srcu);
}

/* ---- ANA tiering ---- */

struct tier_case {
	const char	*desc;
	int		n;
	struct fake_path p[NP];
	u8		tier_state;	/* expected tier, when not empty */
	u8		members;	/* bit per path index in the tier */
};

#define PEND	BIT(NVFAB_NS_ANA_PENDING)
#define GONE	BIT(NVFAB_NS_REMOVING)

static const struct tier_case tier_cases[] = {
	{ "all optimized", 4, { {L, O}, {L, O}, {L, O}, {L, O} }, O, 0xf },
	{ "optimized before non-optimized", 3,
	  { {L, N}, {L, O}, {L, N} }, O, 0x2 },
	{ "non-optimized when no optimized", 3,
	  { {L, N}, {L, I}, {L, N} }, N, 0x5 },
	{ "inaccessible never", 2, { {L, I}, {L, I} }, 0, 0 },
	{ "persistent-loss never", 2, { {L, P}, {L, N} }, N, 0x2 },
	{ "change never", 2, { {L, X}, {L, O} }, O, 0x2 },
	{ "unknown ANA state never", 2, { {L, 7}, {L, N} }, N, 0x2 },
	{ "optimized but controller resetting", 2,
	  { {R, O}, {L, N} }, N, 0x2 },
	{ "optimized but controller connecting", 2,
	  { {C, O}, {C, O} }, 0, 0 },
	{ "optimized but controller deleting", 2,
	  { {D, O}, {L, O} }, O, 0x2 },
	{ "ANA status pending", 2,
	  { {L, O, PEND}, {L, N} }, N, 0x2 },
	{ "path being removed", 2,
	  { {L, O, GONE}, {L, O} }, O, 0x2 },
	{ "every optimized path unusable, non-optimized live", 4,
	  { {R, O}, {L, O, PEND}, {L, N}, {L, N, GONE} }, N, 0x4 },
	{ "no paths", 0, { }, 0, 0 },
};

static void tier_desc(const struct tier_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tier, tier_cases, tier_desc);

static void nvfab_tier_test(struct kunit *test)
{
	const struct tier_case *c = test->param_value;
	struct fake_mp *mp = fake_mp_new(test, c->p, c->n);
	struct nvfab_tier *tier;
	u8 members = 0;
	int idx, i;

	tier = kunit_kzalloc(test, sizeof(*tier), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tier);
	idx = srcu_read_lock(&mp->subsys.srcu);
	nvfab_build_tier(&mp->head, tier);
	srcu_read_unlock(&mp->subsys.srcu, idx);
	for (i = 0; i < tier->nr; i++)
		members |= BIT(tier->paths[i]->slot);
	KUNIT_EXPECT_EQ(test, members, c->members);
	KUNIT_EXPECT_EQ(test, tier->nr, hweight8(c->members));
	if (c->members)
		KUNIT_EXPECT_EQ(test, tier->ana_state, c->tier_state);
	fake_mp_free(mp);
}

/* ---- no usable path ---- */

struct nopath_case {
	const char	*desc;
	int		n;
	struct fake_path p[NP];
	bool		expired;	/* the no_path_tmo bound ran out */
	enum nvfab_nopath kind;
};

static const struct nopath_case nopath_cases[] = {
	{ "controller reconnecting: wait", 2,
	  { {C, O}, {L, I} }, false, NVFAB_NOPATH_WAIT },
	{ "controller resetting: wait", 1, { {R, O} }, false,
	  NVFAB_NOPATH_WAIT },
	{ "reconnecting wins over an expired bound", 2,
	  { {C, O}, {L, I} }, true, NVFAB_NOPATH_WAIT },
	{ "fast_io_fail expired, nothing live: fail", 1,
	  { {C, O, 0, true} }, false, NVFAB_NOPATH_FAIL },
	{ "fast_io_fail expired, a live inaccessible path: bounded", 2,
	  { {C, O, 0, true}, {L, I} }, false, NVFAB_NOPATH_BOUNDED },
	{ "all live, inaccessible: bounded", 2, { {L, I}, {L, I} }, false,
	  NVFAB_NOPATH_BOUNDED },
	{ "all live, change: bounded", 1, { {L, X} }, false,
	  NVFAB_NOPATH_BOUNDED },
	{ "ANA pending on a live path: bounded", 1, { {L, O, PEND} },
	  false, NVFAB_NOPATH_BOUNDED },
	{ "bound ran out: fail", 2, { {L, I}, {L, X} }, true,
	  NVFAB_NOPATH_FAIL },
	{ "only persistent-loss: fail", 2, { {L, P}, {L, P} }, false,
	  NVFAB_NOPATH_FAIL },
	{ "deleting controller: fail", 1, { {D, O} }, false,
	  NVFAB_NOPATH_FAIL },
	{ "path being removed does not count", 1, { {C, O, GONE} }, false,
	  NVFAB_NOPATH_FAIL },
	{ "no paths: fail", 0, { }, false, NVFAB_NOPATH_FAIL },
};

static void nopath_desc(const struct nopath_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nopath, nopath_cases, nopath_desc);

static void nvfab_nopath_test(struct kunit *test)
{
	const struct nopath_case *c = test->param_value;
	struct fake_mp *mp = fake_mp_new(test, c->p, c->n);
	int idx;

	if (c->expired)
		set_bit(NVFAB_HEAD_NOPATH_EXPIRED, &mp->head.flags);
	idx = srcu_read_lock(&mp->subsys.srcu);
	KUNIT_EXPECT_EQ(test, nvfab_nopath_kind(&mp->head), c->kind);
	srcu_read_unlock(&mp->subsys.srcu, idx);
	fake_mp_free(mp);
}

/* ---- built-in selectors ---- */

struct sel_env {
	struct nvfab_ps		ps;
	struct nvfab_tier	tier;
	struct nvfab_path	path[NP];
	atomic_t		inflight[NP];
};

static struct sel_env *sel_env_new(struct kunit *test, const char *name,
				   int n)
{
	struct sel_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->ps.ops = nvfab_get_ps_ops(name);
	KUNIT_ASSERT_NOT_NULL(test, e->ps.ops);
	if (e->ps.ops->ctx_size) {
		e->ps.ctx = kunit_kzalloc(test, e->ps.ops->ctx_size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, e->ps.ctx);
	}
	e->tier.ana_state = NVME_ANA_OPTIMIZED;
	e->tier.nr = n;
	for (i = 0; i < n; i++) {
		e->path[i].slot = i;
		e->path[i].numa_node = NUMA_NO_NODE;
		e->path[i].inflight = &e->inflight[i];
		e->tier.paths[i] = &e->path[i];
	}
	return e;
}

static void sel_env_free(struct sel_env *e)
{
	module_put(e->ps.ops->owner);
}

static int sel_index(struct sel_env *e, struct nvfab_path *p)
{
	return p - e->path;
}

static void nvfab_rr_test(struct kunit *test)
{
	struct sel_env *e = sel_env_new(test, "round-robin", 3);
	int count[NP] = { };
	int i;

	for (i = 0; i < 300; i++)
		count[sel_index(e, e->ps.ops->select_path(&e->ps, &e->tier,
							    4096))]++;
	/* every path gets exactly its share */
	KUNIT_EXPECT_EQ(test, count[0], 100);
	KUNIT_EXPECT_EQ(test, count[1], 100);
	KUNIT_EXPECT_EQ(test, count[2], 100);
	e->tier.nr = 1;
	KUNIT_EXPECT_PTR_EQ(test, e->ps.ops->select_path(&e->ps, &e->tier, 0),
			    &e->path[0]);
	sel_env_free(e);
}

struct qd_case {
	const char	*desc;
	int		n;
	int		depth[NP];
	int		want;
};

static const struct qd_case qd_cases[] = {
	{ "all idle: the first", 3, { 0, 0, 0 }, 0 },
	{ "least in flight", 4, { 5, 2, 7, 3 }, 1 },
	{ "tie: the first of them", 3, { 4, 1, 1 }, 1 },
	{ "idle last path", 3, { 9, 9, 0 }, 2 },
	{ "single path", 1, { 100 }, 0 },
};

static void qd_desc(const struct qd_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qd, qd_cases, qd_desc);

static void nvfab_qd_test(struct kunit *test)
{
	const struct qd_case *c = test->param_value;
	struct sel_env *e = sel_env_new(test, "queue-depth", c->n);
	struct nvfab_path *got;
	int i;

	for (i = 0; i < c->n; i++)
		atomic_set(&e->inflight[i], c->depth[i]);
	got = e->ps.ops->select_path(&e->ps, &e->tier, 4096);
	KUNIT_EXPECT_EQ(test, sel_index(e, got), c->want);
	sel_env_free(e);
}

static void nvfab_numa_test(struct kunit *test)
{
	struct sel_env *e = sel_env_new(test, "numa", 3);

	/* No NUMA node (TCP): always the first path of the tier. */
	KUNIT_EXPECT_PTR_EQ(test, e->ps.ops->select_path(&e->ps, &e->tier,
							 4096), &e->path[0]);
	/* The tier's order is the framework's: a later first path wins. */
	e->tier.paths[0] = &e->path[2];
	e->tier.paths[2] = &e->path[0];
	KUNIT_EXPECT_PTR_EQ(test, e->ps.ops->select_path(&e->ps, &e->tier,
							 4096), &e->path[2]);
	/* This CPU's own node is as near as "no node": still the first. */
	e->path[1].numa_node = numa_node_id();
	KUNIT_EXPECT_PTR_EQ(test, e->ps.ops->select_path(&e->ps, &e->tier,
							 4096), &e->path[2]);
	sel_env_free(e);
}

/* ---- registry ---- */

static struct nvfab_path *first_path(struct nvfab_ps *ps,
				     const struct nvfab_tier *tier,
				     unsigned int bytes)
{
	return tier->paths[0];
}

static void nvfab_registry_test(struct kunit *test)
{
	struct nvfab_ps_ops dup = { .name = "round-robin", .owner = THIS_MODULE,
				    .select_path = first_path };
	struct nvfab_ps_ops noselect = { .name = "kunit-none",
					 .owner = THIS_MODULE };
	struct nvfab_ps_ops noname = { .name = "", .owner = THIS_MODULE,
				       .select_path = first_path };
	struct nvfab_ps_ops mine = { .name = "kunit-first",
				     .owner = THIS_MODULE,
				     .select_path = first_path };
	static const char long_name[] = "a-name-far-too-long-for-a-selector";
	struct nvfab_ps_ops *ops;

	KUNIT_EXPECT_EQ(test, nvfab_register_ps(&dup), -EBUSY);
	KUNIT_EXPECT_EQ(test, nvfab_register_ps(&noselect), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvfab_register_ps(&noname), -EINVAL);
	KUNIT_ASSERT_EQ(test, nvfab_register_ps(&mine), 0);
	ops = nvfab_get_ps_ops("kunit-first\n");
	KUNIT_EXPECT_PTR_EQ(test, ops, &mine);
	if (ops)
		module_put(ops->owner);
	nvfab_unregister_ps(&mine);
	KUNIT_EXPECT_NULL(test, nvfab_get_ps_ops("kunit-first"));
	KUNIT_EXPECT_NULL(test, nvfab_get_ps_ops(""));
	KUNIT_EXPECT_NULL(test, nvfab_get_ps_ops("../evil"));
	KUNIT_EXPECT_NULL(test, nvfab_get_ps_ops("Round Robin"));
	KUNIT_EXPECT_NULL(test, nvfab_get_ps_ops(long_name));
}

static void nvfab_ana_names_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(O), "optimized");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(N), "non-optimized");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(I), "inaccessible");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(P), "persistent-loss");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(X), "change");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(0), "unknown");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(5), "unknown");
	KUNIT_EXPECT_STREQ(test, nvfab_ana_state_name(0xff), "unknown");
}

/* ---- peer memory: only paths that reach it, the nearest ---- */

#define UNR	(-EREMOTEIO)
#define HOST	(-ENOENT)

static int peer_dist[NP];	/* what each fake controller answers */

static int fake_peer_distance(struct nvfab_ctrl *ctrl, struct page *page)
{
	return peer_dist[ctrl->instance];
}

static const struct nvfab_ctrl_ops fake_peer_ops = {
	.name		= "kunit",
	.peer_distance	= fake_peer_distance,
};

struct peer_case {
	const char	*desc;
	int		dist[NP];
	int		ret;		/* nvfab_peer_filter()'s answer */
	u8		members;	/* bit per path left in the tier */
	int		skips;		/* unreachable paths passed over */
};

static const struct peer_case peer_cases[] = {
	{ "host memory: the tier as it was", { HOST, HOST, HOST, HOST },
	  -ENOENT, 0xf, 0 },
	{ "all reach it at one distance", { 2, 2, 2, 2 }, 0, 0xf, 0 },
	{ "the nearest only", { 4, 1, 1, 3 }, 0, 0x6, 0 },
	{ "distance 0 (a software RDMA device)", { 0, 5, UNR, 0 },
	  0, 0x9, 1 },
	{ "unreachable paths passed over", { UNR, 0, UNR, 0 }, 0, 0xa, 2 },
	{ "tcp paths (no peer memory) passed over", { UNR, UNR, UNR, 7 },
	  0, 0x8, 3 },
	{ "none reaches it: an empty tier", { UNR, UNR, UNR, UNR },
	  0, 0, 4 },
	{ "revoked memory: an empty tier, no path passed over",
	  { -EKEYREVOKED, -EKEYREVOKED, -EKEYREVOKED, -EKEYREVOKED },
	  -EKEYREVOKED, 0, 0 },
	{ "revoked after the first path answered: no path passed over",
	  { 2, -EKEYREVOKED, UNR, -EKEYREVOKED },
	  -EKEYREVOKED, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(peer, peer_cases, desc);

static void nvfab_peer_filter_test(struct kunit *test)
{
	static const struct fake_path all_optimized[NP] = {
		{L, O}, {L, O}, {L, O}, {L, O},
	};
	const struct peer_case *c = test->param_value;
	struct fake_mp *mp = fake_mp_new(test, all_optimized, NP);
	struct nvfab_tier *tier;
	u8 members = 0;
	int idx, i;

	tier = kunit_kzalloc(test, sizeof(*tier), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tier);
	for (i = 0; i < NP; i++) {
		mp->ctrl[i].ops = &fake_peer_ops;
		mp->ctrl[i].instance = i;
		peer_dist[i] = c->dist[i];
	}
	idx = srcu_read_lock(&mp->subsys.srcu);
	nvfab_build_tier(&mp->head, tier);
	KUNIT_EXPECT_EQ(test, nvfab_peer_filter(&mp->head, tier, NULL), c->ret);
	srcu_read_unlock(&mp->subsys.srcu, idx);
	for (i = 0; i < tier->nr; i++)
		members |= BIT(tier->paths[i]->slot);
	KUNIT_EXPECT_EQ(test, members, c->members);
	KUNIT_EXPECT_EQ(test, tier->nr, hweight8(c->members));
	/* the survivors keep their order */
	for (i = 1; i < tier->nr; i++)
		KUNIT_EXPECT_LT(test, tier->paths[i - 1]->slot,
				tier->paths[i]->slot);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mp->head.peer.unreachable_skips),
			c->skips);
	for (i = 0; i < NP; i++)
		KUNIT_EXPECT_EQ(test,
				atomic64_read(&mp->ctrl[i].peer.unreachable_skips),
				!c->ret && c->dist[i] < 0 ? 1 : 0);
	fake_mp_free(mp);
}

static struct kunit_case nvfab_mpath_cases[] = {
	KUNIT_CASE_PARAM(nvfab_tier_test, tier_gen_params),
	KUNIT_CASE_PARAM(nvfab_nopath_test, nopath_gen_params),
	KUNIT_CASE(nvfab_rr_test),
	KUNIT_CASE_PARAM(nvfab_qd_test, qd_gen_params),
	KUNIT_CASE(nvfab_numa_test),
	KUNIT_CASE(nvfab_registry_test),
	KUNIT_CASE(nvfab_ana_names_test),
	KUNIT_CASE_PARAM(nvfab_peer_filter_test, peer_gen_params),
	{}
};

static struct kunit_suite nvfab_mpath_suite = {
	.name = "nvfab_mpath",
	.test_cases = nvfab_mpath_cases,
};

kunit_test_suite(nvfab_mpath_suite);

MODULE_DESCRIPTION("KUnit tests for nvfab multipath tiering and selectors");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
NVFAB_IMPORT_KUNIT();
