// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in path selectors, with the semantics of the in-kernel host's
 * iopolicy values. The framework has already kept only the best ANA tier
 * (optimized, else non-optimized), so each chooses within it:
 *
 *  numa:        the path whose controller is nearest (node_distance()) to
 *               the submitting CPU's node; ties go to the path that joined
 *               first. TCP and RDMA-over-software controllers have no node
 *               (NUMA_NO_NODE), so every path is equally near and numa
 *               then always uses the first usable path of the tier: an
 *               active/standby policy that fails over in join order.
 *  round-robin: each I/O to the next path of the tier.
 *  queue-depth: the path whose controller has the fewest requests in
 *               flight, over all its namespaces; ties to the first.
 */
#include <linux/module.h>
#include <linux/topology.h>

#include "mpath.h"

/* ---- numa ---- */

static int nvfab_numa_distance(int from, int to)
{
	if (from == NUMA_NO_NODE || to == NUMA_NO_NODE)
		return LOCAL_DISTANCE;
	return node_distance(from, to);
}

static struct nvfab_path *nvfab_numa_select(struct nvfab_ps *ps,
					    const struct nvfab_tier *tier,
					    unsigned int bytes)
{
	int node = numa_node_id();
	struct nvfab_path *best = tier->paths[0];
	int best_dist = nvfab_numa_distance(node, best->numa_node);
	unsigned int i;

	for (i = 1; i < tier->nr; i++) {
		int dist = nvfab_numa_distance(node, tier->paths[i]->numa_node);

		if (dist < best_dist) {
			best = tier->paths[i];
			best_dist = dist;
		}
	}
	return best;
}

static struct nvfab_ps_ops nvfab_ps_numa = {
	.name		= "numa",
	.owner		= THIS_MODULE,
	.select_path	= nvfab_numa_select,
};

/* ---- round-robin ---- */

struct nvfab_rr {
	atomic_t	next;
};

static struct nvfab_path *nvfab_rr_select(struct nvfab_ps *ps,
					  const struct nvfab_tier *tier,
					  unsigned int bytes)
{
	struct nvfab_rr *rr = nvfab_ps_ctx(ps);
	unsigned int n = (unsigned int)atomic_inc_return(&rr->next);

	return tier->paths[n % tier->nr];
}

static struct nvfab_ps_ops nvfab_ps_rr = {
	.name		= "round-robin",
	.owner		= THIS_MODULE,
	.ctx_size	= sizeof(struct nvfab_rr),
	.select_path	= nvfab_rr_select,
};

/* ---- queue-depth ---- */

static struct nvfab_path *nvfab_qd_select(struct nvfab_ps *ps,
					  const struct nvfab_tier *tier,
					  unsigned int bytes)
{
	struct nvfab_path *best = tier->paths[0];
	int best_depth = atomic_read(best->inflight);
	unsigned int i;

	for (i = 1; i < tier->nr && best_depth; i++) {
		int depth = atomic_read(tier->paths[i]->inflight);

		if (depth < best_depth) {
			best = tier->paths[i];
			best_depth = depth;
		}
	}
	return best;
}

static struct nvfab_ps_ops nvfab_ps_qd = {
	.name		= "queue-depth",
	.owner		= THIS_MODULE,
	.select_path	= nvfab_qd_select,
};

static struct nvfab_ps_ops *nvfab_builtin_ps[] = {
	&nvfab_ps_numa,
	&nvfab_ps_rr,
	&nvfab_ps_qd,
};

/**
 * nvfab_ps_builtin_init() - register numa, round-robin and queue-depth
 *
 * Context: module init.
 * Return: 0, or the first registration error (nothing stays registered).
 */
int nvfab_ps_builtin_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(nvfab_builtin_ps); i++) {
		ret = nvfab_register_ps(nvfab_builtin_ps[i]);
		if (ret)
			goto out_unregister;
	}
	return 0;

out_unregister:
	while (--i >= 0)
		nvfab_unregister_ps(nvfab_builtin_ps[i]);
	return ret;
}

/**
 * nvfab_ps_builtin_exit() - unregister the built-in selectors
 *
 * Context: module exit.
 */
void nvfab_ps_builtin_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(nvfab_builtin_ps) - 1; i >= 0; i--)
		nvfab_unregister_ps(nvfab_builtin_ps[i]);
}
