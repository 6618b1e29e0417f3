// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-ps-service-time: the ANA-aware latency path selector (iopolicy
 * "service-time").
 *
 * The multipath framework hands the selector the usable paths of a
 * namespace head's best ANA tier; this module chooses among them by
 * expected service time.
 *
 * Estimate. For every slot (controller) the selector keeps, per I/O size
 * bucket (<= 4K, 8K, 16K, ... 512K, > 512K; a flush counts as 0 bytes), a
 * decaying average of the completion latency of successful I/O, in ns. The
 * first 2^decay_shift samples of a bucket are averaged evenly, so that one
 * early outlier does not seed the estimate; after that each sample moves
 * the estimate by 1/2^decay_shift of its distance to it. A sample that
 * finds its bucket stale (see Probing) moves it halfway, so that the
 * estimate of a path measured only by probes follows them. A bucket
 * without a sample of its own borrows the nearest bucket that has one,
 * scaled linearly by the ratio of the bucket sizes (which overestimates
 * larger sizes, so paths measured at the real size are preferred); a slot
 * without any sample is "unknown".
 *
 * Choice. Among the non-marginal paths with an estimate, the one with the
 * smallest (in-flight + 1) * estimate wins; the in-flight count is the
 * framework's per-controller counter. Unknown paths come next (fewest in
 * flight first), then marginal paths by the same rules, so that a tier
 * whose paths are all marginal still gets I/O.
 *
 * Probing. A path whose bucket has no sample, or none newer than
 * probe_interval_ms, is stale. The first I/O of that size to find it stale
 * goes to it as a probe; a path gets at most one probe per
 * probe_interval_ms whatever the bucket, claimed with a cmpxchg so that CPUs
 * racing for it send one. Probes keep the estimates of unused and marginal
 * paths current, and measure new paths.
 *
 * Marginal paths. A path is marginal for a bucket when its estimate there
 * (8 samples at least) exceeds marginal_latency_factor percent of the best
 * estimate in the tier, and is reinstated once it is back within
 * reinstate_latency_factor percent. A path is marginal for every size when
 * path errors exceed marginal_error_permille of its completions, counted
 * in a window that halves every error_half_life_ms (4 completions in the
 * window at least), and is reinstated at reinstate_error_permille. Only
 * path errors count (those blk_path_error() would retry elsewhere, not
 * host resource shortage); a media or protection error is the
 * namespace's, not the path's. Being a share of the recent completions,
 * the rate does not react to a rare error at a high I/O rate, and it does
 * not stay high on a path that only probes reach. A demoted path stays
 * marginal for marginal_hold_ms at least, twice that for each relapse
 * soon after a reinstatement (up to 64 times). Two thresholds and the hold
 * keep a path from flapping. The best estimate a path is judged against
 * is that of the paths not marginal for the bucket: a marginal path,
 * reached only by probes, meets no queue and would look fast.
 *
 * Concurrency. select_path and end_io take no lock and never sleep: the
 * per-slot state is atomics and READ_ONCE()/WRITE_ONCE() on longs. A
 * bucket's estimate and sample count share one atomic64_t updated with
 * cmpxchg, so none is lost or torn. Knob stores are serialised by a mutex
 * that the I/O path never takes; it reads each knob once with READ_ONCE().
 * The state of a slot is per controller and serves every namespace reached
 * through it; with namespaces whose ANA tiers differ, latency marginality
 * is judged against the tier of whichever namespace submitted last, and
 * the hold bounds how often that can change it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sysfs.h>

#include <nvfab/compat.h>
#include "ps-service-time.h"
#include <nvfab/multipath.h>

/**
 * struct nvfab_st_knob_desc - default and bounds of a knob
 * @def:	value of a new instance
 * @min:	smallest value a store accepts
 * @max:	largest value a store accepts
 */
struct nvfab_st_knob_desc {
	unsigned int	def;
	unsigned int	min;
	unsigned int	max;
};

static const struct nvfab_st_knob_desc nvfab_st_knobs[NVFAB_ST_NR_KNOBS] = {
	[NVFAB_ST_DECAY_SHIFT]			= { 4, 1, 10 },
	[NVFAB_ST_PROBE_INTERVAL_MS]		= { 1000, 10, 3600000 },
	[NVFAB_ST_MARGINAL_LATENCY_FACTOR]	= { 300, 101, 10000 },
	[NVFAB_ST_REINSTATE_LATENCY_FACTOR]	= { 150, 100, 9999 },
	[NVFAB_ST_MARGINAL_ERROR_PERMILLE]	= { 50, 1, 1000 },
	[NVFAB_ST_REINSTATE_ERROR_PERMILLE]	= { 10, 0, 999 },
	[NVFAB_ST_ERROR_HALF_LIFE_MS]		= { 1000, 10, 3600000 },
	[NVFAB_ST_MARGINAL_HOLD_MS]		= { 2000, 0, 3600000 },
};

/**
 * nvfab_st_bucket() - size bucket of an I/O
 * @bytes:	I/O size in bytes (0 for a flush)
 *
 * Context: any.
 * Return: 0 for up to 4 KiB, b for (2^(11+b), 2^(12+b)] bytes, and
 * NVFAB_ST_NR_BUCKETS - 1 for anything above 512 KiB.
 */
VISIBLE_IF_KUNIT unsigned int nvfab_st_bucket(unsigned int bytes)
{
	unsigned int order;

	if (bytes <= 1U << NVFAB_ST_BUCKET0_SHIFT)
		return 0;
	order = order_base_2(bytes);
	return min(order - NVFAB_ST_BUCKET0_SHIFT, NVFAB_ST_NR_BUCKETS - 1);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_bucket);

/**
 * nvfab_st_ewma() - fold one sample into a decaying average
 * @est:	the average so far (ignored when @n is 0)
 * @n:		samples already in @est
 * @sample:	the new sample
 * @shift:	steady-state weight 1/2^@shift of the new sample, 1..31
 *
 * While @n + 1 < 2^@shift the sample gets weight 1/(@n + 1), so the first
 * samples are averaged evenly; after that it gets 1/2^@shift. The step is
 * rounded away from @est, so the average reaches a constant sample instead
 * of stopping short of it. @est and @sample are clamped to
 * NVFAB_ST_LAT_MAX first, which keeps the arithmetic from overflowing.
 *
 * Context: any.
 * Return: the new average, between @est and @sample.
 */
VISIBLE_IF_KUNIT u64 nvfab_st_ewma(u64 est, unsigned int n, u64 sample,
				   unsigned int shift)
{
	u64 diff, step;

	sample = min(sample, NVFAB_ST_LAT_MAX);
	if (!n)
		return sample;
	est = min(est, NVFAB_ST_LAT_MAX);
	diff = sample > est ? sample - est : est - sample;
	if (n < (1U << shift) - 1)
		step = div_u64(diff + n, n + 1);
	else
		step = (diff + (1ULL << shift) - 1) >> shift;
	return sample > est ? est + step : est - step;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_ewma);

/**
 * nvfab_st_score() - expected service time of one more I/O on a path
 * @inflight:	requests in flight on the path (a negative count reads as 0)
 * @est:	latency estimate in ns for the I/O's size
 *
 * Context: any.
 * Return: (@inflight + 1) * @est, or U64_MAX where that overflows.
 */
VISIBLE_IF_KUNIT u64 nvfab_st_score(int inflight, u64 est)
{
	u64 score;

	if (inflight < 0)
		inflight = 0;
	if (check_mul_overflow((u64)inflight + 1, est, &score))
		return U64_MAX;
	return score;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_score);

/**
 * nvfab_st_estimate() - latency estimate of a slot for a size bucket
 * @p:	the slot's state
 * @b:	the bucket, < NVFAB_ST_NR_BUCKETS
 *
 * The bucket's own estimate when it has a sample; otherwise the nearest
 * bucket with a sample (the smaller one on a tie), scaled linearly by the
 * ratio of the bucket sizes, at least 1 ns.
 *
 * Context: any; lockless.
 * Return: the estimate in ns (at most NVFAB_ST_LAT_MAX << 8), or 0 when
 * the slot has no sample at all.
 */
VISIBLE_IF_KUNIT u64 nvfab_st_estimate(struct nvfab_st_path *p, unsigned int b)
{
	unsigned int d;
	u64 v;

	for (d = 0; d < NVFAB_ST_NR_BUCKETS; d++) {
		if (b >= d) {
			v = atomic64_read(&p->est[b - d]);
			if (NVFAB_ST_CNT(v))
				return NVFAB_ST_EST(v) << d;
		}
		if (d && b + d < NVFAB_ST_NR_BUCKETS) {
			v = atomic64_read(&p->est[b + d]);
			if (NVFAB_ST_CNT(v))
				return max(NVFAB_ST_EST(v) >> d, 1ULL);
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_estimate);

/**
 * nvfab_st_marginal_next() - the hysteresis of the marginal state
 * @marginal:		whether the path is marginal now
 * @value:		what is judged (scaled latency, error rate)
 * @demote_above:	a good path becomes marginal above this
 * @reinstate_above:	a marginal path stays marginal above this
 *			(<= @demote_above)
 * @hold_over:		the marginal path has been marginal for the hold time
 *
 * Context: any.
 * Return: whether the path is marginal after this judgement.
 */
VISIBLE_IF_KUNIT bool nvfab_st_marginal_next(bool marginal, u64 value,
					     u64 demote_above,
					     u64 reinstate_above,
					     bool hold_over)
{
	if (!marginal)
		return value > demote_above;
	if (!hold_over)
		return true;
	return value > reinstate_above;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_marginal_next);

/**
 * nvfab_st_error_permille() - share of path errors in the error window
 * @errs:	path errors in the window, in 1/NVFAB_ST_ERR_ONE
 * @ios:	completions in the window (@errs included), same unit
 *
 * Context: any.
 * Return: the rate in permille, rounded down, at most 1000; 0 for an empty
 * window.
 */
VISIBLE_IF_KUNIT unsigned int nvfab_st_error_permille(u64 errs, u64 ios)
{
	if (!ios)
		return 0;
	if (errs >= ios)
		return 1000;
	/* Window counts stay far below 2^54: no overflow. */
	return div64_u64(errs * 1000, ios);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_error_permille);

/**
 * nvfab_st_strikes_next() - flap damping at a demotion
 * @strikes:	the path's strikes for this marginal bit so far
 * @since:	jiffies since the path was last reinstated for it
 * @hold_j:	marginal_hold_ms in jiffies
 *
 * A path demoted again within NVFAB_ST_FLAP_HOLDS of its (current) hold
 * times after its reinstatement gets one more strike, doubling its hold,
 * up to NVFAB_ST_MAX_STRIKES; one that stayed good longer starts over.
 *
 * Context: any.
 * Return: the strikes for the new demotion.
 */
VISIBLE_IF_KUNIT unsigned int nvfab_st_strikes_next(unsigned int strikes,
						    unsigned long since,
						    unsigned long hold_j)
{
	strikes = min(strikes, NVFAB_ST_MAX_STRIKES);
	/* hold_j <= 3600 s of jiffies: << 6, * 4 fits an unsigned long. */
	if (since >= (hold_j << strikes) * NVFAB_ST_FLAP_HOLDS)
		return 0;
	return min(strikes + 1, NVFAB_ST_MAX_STRIKES);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_strikes_next);

static bool nvfab_st_knobs_consistent(const unsigned int *k)
{
	return k[NVFAB_ST_MARGINAL_LATENCY_FACTOR] >
		k[NVFAB_ST_REINSTATE_LATENCY_FACTOR] &&
	       k[NVFAB_ST_MARGINAL_ERROR_PERMILLE] >
		k[NVFAB_ST_REINSTATE_ERROR_PERMILLE];
}

static void nvfab_st_apply_knob(struct nvfab_st_ctx *st, enum nvfab_st_knob k,
				unsigned int val)
{
	lockdep_assert_held(&st->knob_lock);

	if (k == NVFAB_ST_PROBE_INTERVAL_MS)
		WRITE_ONCE(st->probe_j, msecs_to_jiffies(val));
	else if (k == NVFAB_ST_MARGINAL_HOLD_MS)
		WRITE_ONCE(st->hold_j, msecs_to_jiffies(val));
	else if (k == NVFAB_ST_ERROR_HALF_LIFE_MS)
		WRITE_ONCE(st->half_j, msecs_to_jiffies(val));
	WRITE_ONCE(st->knob[k], val);
}

/**
 * nvfab_st_set_knob() - parse, check and set one knob
 * @st:		the instance
 * @k:		the knob
 * @buf:	decimal value, as written to sysfs (a trailing newline is
 *		fine)
 *
 * The value must lie in the knob's range, and each marginal threshold must
 * stay above its reinstate threshold. On any error nothing changes.
 *
 * Context: process; may sleep (takes @st->knob_lock).
 * Return: 0; -EINVAL for an unknown knob, a value that is not a decimal
 * unsigned int, out of range, or not consistent with the other knobs.
 */
VISIBLE_IF_KUNIT int nvfab_st_set_knob(struct nvfab_st_ctx *st,
				       enum nvfab_st_knob k, const char *buf)
{
	unsigned int want[NVFAB_ST_NR_KNOBS];
	unsigned int val;
	int ret = 0;

	if (k >= NVFAB_ST_NR_KNOBS)
		return -EINVAL;
	if (kstrtouint(buf, 10, &val))
		return -EINVAL;
	if (val < nvfab_st_knobs[k].min || val > nvfab_st_knobs[k].max)
		return -EINVAL;

	mutex_lock(&st->knob_lock);
	memcpy(want, st->knob, sizeof(want));
	want[k] = val;
	if (!nvfab_st_knobs_consistent(want)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	nvfab_st_apply_knob(st, k, val);
out_unlock:
	mutex_unlock(&st->knob_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_set_knob);

static struct nvfab_st_path *nvfab_st_path(struct nvfab_ps *ps,
					   unsigned int slot)
{
	if (WARN_ON_ONCE(slot >= NVFAB_MAX_PATHS))
		return NULL;
	return nvfab_ps_path_ctx(ps, slot);
}

static void nvfab_st_reset_path(struct nvfab_ps *ps, unsigned int slot)
{
	struct nvfab_st_path *p = nvfab_st_path(ps, slot);
	unsigned int b;

	if (!p)
		return;
	for (b = 0; b < NVFAB_ST_NR_BUCKETS; b++) {
		atomic64_set(&p->est[b], 0);
		WRITE_ONCE(p->last[b], 0);
	}
	for (b = 0; b <= NVFAB_ST_NR_BUCKETS; b++) {
		WRITE_ONCE(p->demoted_at[b], 0);
		WRITE_ONCE(p->reinstated_at[b], jiffies - NVFAB_ST_LONG_AGO);
		WRITE_ONCE(p->strikes[b], 0);
	}
	WRITE_ONCE(p->last_probe, jiffies - NVFAB_ST_LONG_AGO);
	WRITE_ONCE(p->decay_at, jiffies);
	atomic64_set(&p->ios, 0);
	atomic64_set(&p->errs, 0);
	atomic64_set(&p->samples, 0);
	atomic64_set(&p->errors, 0);
	atomic_set(&p->marginal, 0);
}

/*
 * Mark or clear one marginal bit; @idx indexes demoted_at. Two CPUs that
 * demote the same path at once may count two strikes; that only doubles
 * a hold once more.
 */
static void nvfab_st_set_marginal(struct nvfab_ps *ps, struct nvfab_st_path *p,
				  unsigned int idx, bool on, unsigned long now)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);
	int bit = idx < NVFAB_ST_NR_BUCKETS ? BIT(idx) : NVFAB_ST_MARGINAL_ERR;
	unsigned int slot = p - (struct nvfab_st_path *)nvfab_ps_path_ctx(ps, 0);
	unsigned int strikes = 0;
	int old;

	if (on) {
		strikes = nvfab_st_strikes_next(READ_ONCE(p->strikes[idx]),
						now - READ_ONCE(p->reinstated_at[idx]),
						READ_ONCE(st->hold_j));
		WRITE_ONCE(p->strikes[idx], strikes);
		WRITE_ONCE(p->demoted_at[idx], now);
		/* Whoever sees the bit sees when and how long the hold is. */
		smp_mb__before_atomic();
		old = atomic_fetch_or(bit, &p->marginal);
	} else {
		WRITE_ONCE(p->reinstated_at[idx], now);
		/* A later demotion sees when this one ended. */
		smp_mb__before_atomic();
		old = atomic_fetch_andnot(bit, &p->marginal);
	}
	if (!!(old & bit) == on)
		return;
	if (idx < NVFAB_ST_NR_BUCKETS)
		dev_info_ratelimited(ps->dev,
				     "service-time: slot %u %s for I/O of bucket %u (hold x%u)\n",
				     slot, on ? "marginal (latency)" : "reinstated",
				     idx, 1U << strikes);
	else
		dev_info_ratelimited(ps->dev,
				     "service-time: slot %u %s (hold x%u)\n", slot,
				     on ? "marginal (path errors)" :
				     "reinstated after path errors", 1U << strikes);
}

static bool nvfab_st_hold_over(struct nvfab_st_ctx *st,
			       struct nvfab_st_path *p, unsigned int idx,
			       unsigned long now)
{
	unsigned int strikes = min(READ_ONCE(p->strikes[idx]),
				   NVFAB_ST_MAX_STRIKES);

	return time_after_eq(now, READ_ONCE(p->demoted_at[idx]) +
			     (READ_ONCE(st->hold_j) << strikes));
}

/*
 * Judge the latency of @p in bucket @b against @ref, the best estimate of
 * the tier's good paths (0: none to compare with), and say whether @p is
 * marginal for this bucket, for latency or errors.
 */
static bool nvfab_st_judge(struct nvfab_ps *ps, struct nvfab_st_path *p,
			   unsigned int b, u64 ref, unsigned long now)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);
	int mask = atomic_read(&p->marginal);
	bool cur = mask & BIT(b);
	u64 v, demote, reinstate;
	bool next;

	v = atomic64_read(&p->est[b]);
	if (ref && NVFAB_ST_CNT(v) >= NVFAB_ST_MIN_SAMPLES) {
		/* Estimates <= 2^40 ns, factors <= 10000: no overflow. */
		demote = ref * READ_ONCE(st->knob[NVFAB_ST_MARGINAL_LATENCY_FACTOR]);
		reinstate = ref *
			READ_ONCE(st->knob[NVFAB_ST_REINSTATE_LATENCY_FACTOR]);
		next = nvfab_st_marginal_next(cur, NVFAB_ST_EST(v) * 100, demote,
					      reinstate,
					      cur && nvfab_st_hold_over(st, p, b, now));
		if (next != cur)
			nvfab_st_set_marginal(ps, p, b, next, now);
		cur = next;
	}
	return cur || (mask & NVFAB_ST_MARGINAL_ERR);
}

static bool nvfab_st_stale(struct nvfab_st_path *p, unsigned int b,
			   unsigned long now, unsigned long probe_j)
{
	if (!NVFAB_ST_CNT(atomic64_read(&p->est[b])))
		return true;
	return time_after(now, READ_ONCE(p->last[b]) + probe_j);
}

/*
 * Claim the path's probe for this interval: one CPU wins. The interval is
 * counted from the last probe, so a new probe_interval_ms applies at once.
 */
static bool nvfab_st_claim_probe(struct nvfab_st_path *p, unsigned long now,
				 unsigned long probe_j)
{
	unsigned long last = READ_ONCE(p->last_probe);

	if (time_before(now, last + probe_j))
		return false;
	return try_cmpxchg(&p->last_probe, &last, now);
}

static void nvfab_st_min_ref(u64 *ref, u64 est)
{
	if (!*ref || est < *ref)
		*ref = est;
}

/**
 * nvfab_st_select() - choose a path of the tier for one I/O
 * @ps:		the instance
 * @tier:	the usable paths of the best ANA tier
 * @bytes:	I/O size in bytes (0 for a flush)
 * @now:	the time, in jiffies
 *
 * First a stale path whose probe is due takes the I/O as a probe. Else the
 * non-marginal path with an estimate and the smallest (in-flight + 1) *
 * estimate wins, then a non-marginal path without an estimate (fewest in
 * flight), then the marginal paths by the same two rules. On the way each
 * path's latency in the I/O's bucket is judged against the best estimate
 * of the tier's paths that are not marginal for it (of all paths, if all
 * are), which may demote or reinstate it.
 *
 * Context: any, under the framework's SRCU read lock; no lock taken, no
 * sleeping.
 * Return: one of @tier->paths; NULL only for an empty tier.
 */
VISIBLE_IF_KUNIT struct nvfab_path *nvfab_st_select(struct nvfab_ps *ps,
						    const struct nvfab_tier *tier,
						    unsigned int bytes,
						    unsigned long now)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);
	unsigned long probe_j = READ_ONCE(st->probe_j);
	unsigned int b = nvfab_st_bucket(bytes);
	unsigned int i, rank, best_rank = UINT_MAX;
	u64 ref = 0, ref_marginal = 0, score, best_score = U64_MAX;
	struct nvfab_path *path, *choice = NULL;
	struct nvfab_st_path *p;
	bool marginal;
	u64 v, est;

	for (i = 0; i < tier->nr; i++) {
		path = tier->paths[i];
		p = nvfab_st_path(ps, path->slot);
		if (!p)
			continue;
		if (nvfab_st_stale(p, b, now, probe_j) &&
		    nvfab_st_claim_probe(p, now, probe_j))
			return path;
		v = atomic64_read(&p->est[b]);
		if (NVFAB_ST_CNT(v) < NVFAB_ST_MIN_SAMPLES)
			continue;
		if (atomic_read(&p->marginal) & (BIT(b) | NVFAB_ST_MARGINAL_ERR))
			nvfab_st_min_ref(&ref_marginal, NVFAB_ST_EST(v));
		else
			nvfab_st_min_ref(&ref, NVFAB_ST_EST(v));
	}
	/* Judge against the best good path, or the best of all. */
	if (!ref)
		ref = ref_marginal;

	for (i = 0; i < tier->nr; i++) {
		path = tier->paths[i];
		p = nvfab_st_path(ps, path->slot);
		if (p) {
			marginal = nvfab_st_judge(ps, p, b, ref, now);
			est = nvfab_st_estimate(p, b);
			rank = (marginal ? 2 : 0) + (est ? 0 : 1);
		} else {
			est = 0;
			rank = 4;
		}
		score = nvfab_st_score(atomic_read(path->inflight), est ?: 1);
		if (rank < best_rank ||
		    (rank == best_rank && score < best_score)) {
			choice = path;
			best_rank = rank;
			best_score = score;
		}
	}
	return choice;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_select);

/*
 * Fold a latency sample into bucket @b. A sample that finds the bucket
 * stale counts as much as the old estimate (weight 1/2), so that paths
 * measured only by probes follow them within a few probes.
 */
static void nvfab_st_record_latency(struct nvfab_st_path *p, unsigned int b,
				    u64 lat_ns, unsigned int shift, bool stale)
{
	s64 old = atomic64_read(&p->est[b]);
	unsigned int n;
	u64 est;

	lat_ns = clamp(lat_ns, 1ULL, NVFAB_ST_LAT_MAX);
	do {
		n = NVFAB_ST_CNT(old);
		est = nvfab_st_ewma(NVFAB_ST_EST(old), stale ? min(n, 1U) : n,
				    lat_ns, shift);
		n = min(n + 1, NVFAB_ST_CNT_MAX);
	} while (!atomic64_try_cmpxchg(&p->est[b], &old,
				       NVFAB_ST_PACK(est, n)));
}

static void nvfab_st_halve(atomic64_t *v, unsigned int k)
{
	s64 old = atomic64_read(v);

	while (!atomic64_try_cmpxchg(v, &old, (u64)old >> k))
		;
}

/*
 * Halve the error window once per error_half_life_ms. The CPU that moves
 * decay_at on does the halving; a completion counted meanwhile may escape
 * one halving, which does not matter.
 */
static void nvfab_st_decay_errors(struct nvfab_st_path *p, unsigned long now,
				  unsigned long half_j)
{
	unsigned long at = READ_ONCE(p->decay_at);
	unsigned long k;

	if (time_before(now, at + half_j))
		return;
	k = (now - at) / half_j;
	if (!try_cmpxchg(&p->decay_at, &at, at + k * half_j))
		return;
	k = min(k, 63UL);
	nvfab_st_halve(&p->ios, k);
	nvfab_st_halve(&p->errs, k);
}

/* Errors that say something about the path, not the namespace or host. */
static bool nvfab_st_path_error(blk_status_t status)
{
	if (status == BLK_STS_AGAIN || status == BLK_STS_RESOURCE ||
	    status == BLK_STS_DEV_RESOURCE)
		return false;
	return blk_path_error(status);
}

/**
 * nvfab_st_complete() - account one completion
 * @ps:		the instance
 * @path:	the path the request was sent on
 * @bytes:	I/O size in bytes (0 for a flush)
 * @lat_ns:	time from submission to completion, in ns
 * @status:	BLK_STS_OK or the error
 * @now:	the time, in jiffies
 *
 * A success updates the latency estimate of the I/O's bucket; successes
 * and path errors are counted in the error window; other errors are not
 * the path's and are ignored. The error rate then demotes or reinstates
 * the path. Needs no matching start_io.
 *
 * Context: any, softirq included; no lock taken, no sleeping.
 */
VISIBLE_IF_KUNIT void nvfab_st_complete(struct nvfab_ps *ps,
					struct nvfab_path *path,
					unsigned int bytes, u64 lat_ns,
					blk_status_t status, unsigned long now)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);
	struct nvfab_st_path *p = nvfab_st_path(ps, path->slot);
	bool failed, stale, cur, next;
	unsigned int b, demote;
	u64 errs, ios;

	if (!p)
		return;
	if (status == BLK_STS_OK) {
		b = nvfab_st_bucket(bytes);
		stale = time_after(now, READ_ONCE(p->last[b]) +
				   READ_ONCE(st->probe_j));
		nvfab_st_record_latency(p, b, lat_ns,
					READ_ONCE(st->knob[NVFAB_ST_DECAY_SHIFT]),
					stale);
		WRITE_ONCE(p->last[b], now);
		atomic64_inc(&p->samples);
		failed = false;
	} else if (nvfab_st_path_error(status)) {
		atomic64_inc(&p->errors);
		failed = true;
	} else {
		return;
	}

	nvfab_st_decay_errors(p, now, READ_ONCE(st->half_j));
	atomic64_add(NVFAB_ST_ERR_ONE, &p->ios);
	if (failed)
		atomic64_add(NVFAB_ST_ERR_ONE, &p->errs);
	errs = atomic64_read(&p->errs);
	cur = atomic_read(&p->marginal) & NVFAB_ST_MARGINAL_ERR;
	if (!errs && !cur)
		return;
	ios = atomic64_read(&p->ios);
	/* Too few completions in the window to judge: no demotion. */
	if (ios < NVFAB_ST_ERR_MIN_IOS * NVFAB_ST_ERR_ONE)
		demote = 1000;
	else
		demote = READ_ONCE(st->knob[NVFAB_ST_MARGINAL_ERROR_PERMILLE]);
	next = nvfab_st_marginal_next(cur, nvfab_st_error_permille(errs, ios),
				      demote,
				      READ_ONCE(st->knob[NVFAB_ST_REINSTATE_ERROR_PERMILLE]),
				      cur && nvfab_st_hold_over(st, p,
								NVFAB_ST_NR_BUCKETS,
								now));
	if (next != cur)
		nvfab_st_set_marginal(ps, p, NVFAB_ST_NR_BUCKETS, next, now);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_complete);

/**
 * nvfab_st_create() - set up an instance with the default knobs
 * @ps:	the new instance, context zeroed
 *
 * Context: process; may sleep.
 * Return: 0.
 */
static int nvfab_st_create(struct nvfab_ps *ps)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);
	unsigned int k;

	mutex_init(&st->knob_lock);
	mutex_lock(&st->knob_lock);
	for (k = 0; k < NVFAB_ST_NR_KNOBS; k++)
		nvfab_st_apply_knob(st, k, nvfab_st_knobs[k].def);
	mutex_unlock(&st->knob_lock);
	return 0;
}

/**
 * nvfab_st_destroy() - tear down an instance
 * @ps:	the instance, with no SRCU reader left
 *
 * Context: process; may sleep.
 */
static void nvfab_st_destroy(struct nvfab_ps *ps)
{
	struct nvfab_st_ctx *st = nvfab_ps_ctx(ps);

	mutex_destroy(&st->knob_lock);
}

/**
 * nvfab_st_add_path() - a controller joined at @slot: start from nothing
 * @ps:		the instance
 * @slot:	the controller's slot, < NVFAB_MAX_PATHS
 *
 * The slot has no estimate, so its first I/O of each size is a probe.
 *
 * Context: process; does not sleep.
 */
static void nvfab_st_add_path(struct nvfab_ps *ps, unsigned int slot)
{
	nvfab_st_reset_path(ps, slot);
}

/**
 * nvfab_st_remove_path() - the controller at @slot left: forget it
 * @ps:		the instance
 * @slot:	the controller's slot, < NVFAB_MAX_PATHS
 *
 * A completion of the old controller that races with this may still land
 * one sample in the cleared slot; the next add_path clears it again.
 *
 * Context: process; does not sleep.
 */
static void nvfab_st_remove_path(struct nvfab_ps *ps, unsigned int slot)
{
	nvfab_st_reset_path(ps, slot);
}

/**
 * nvfab_st_select_path() - &nvfab_ps_ops.select_path
 * @ps:		the instance
 * @tier:	the usable paths of the best ANA tier
 * @bytes:	I/O size in bytes (0 for a flush)
 *
 * Context: any, under SRCU; no lock taken, no sleeping.
 * Return: one of @tier->paths (see nvfab_st_select()).
 */
static struct nvfab_path *nvfab_st_select_path(struct nvfab_ps *ps,
					       const struct nvfab_tier *tier,
					       unsigned int bytes)
{
	return nvfab_st_select(ps, tier, bytes, jiffies);
}

/**
 * nvfab_st_end_io() - &nvfab_ps_ops.end_io
 * @ps:		the instance
 * @path:	the path the request was sent on
 * @bytes:	I/O size in bytes (0 for a flush)
 * @lat_ns:	latency in ns
 * @status:	BLK_STS_OK or the error
 *
 * Context: any, softirq included; no lock taken, no sleeping.
 */
static void nvfab_st_end_io(struct nvfab_ps *ps, struct nvfab_path *path,
			    unsigned int bytes, u64 lat_ns, blk_status_t status)
{
	nvfab_st_complete(ps, path, bytes, lat_ns, status, jiffies);
}

/**
 * nvfab_st_path_status() - one line on what the selector knows of a slot
 * @ps:		the instance
 * @slot:	the slot
 * @buf:	where to print
 * @size:	bytes of @buf
 *
 * Prints "est_us=E0,...,E8 samples=N errors=N error_permille=N marginal=M
 * marginal_mask=0xX": the estimate per bucket in microseconds ("-" for
 * none), successes measured, path errors, the error rate in the window,
 * whether the path is marginal for any size, and the marginal bits (bit b:
 * latency in bucket b; bit 9: errors).
 *
 * Context: any; no sleeping.
 * Return: the length printed, without a newline.
 */
static int nvfab_st_path_status(struct nvfab_ps *ps, unsigned int slot,
				char *buf, size_t size)
{
	struct nvfab_st_path *p = nvfab_st_path(ps, slot);
	unsigned int b, mask;
	int len;
	u64 v;

	if (!p || !size)
		return 0;
	len = scnprintf(buf, size, "est_us=");
	for (b = 0; b < NVFAB_ST_NR_BUCKETS; b++) {
		v = atomic64_read(&p->est[b]);
		if (NVFAB_ST_CNT(v))
			len += scnprintf(buf + len, size - len, "%s%llu",
					 b ? "," : "",
					 div_u64(NVFAB_ST_EST(v), NSEC_PER_USEC));
		else
			len += scnprintf(buf + len, size - len, "%s-",
					 b ? "," : "");
	}
	mask = atomic_read(&p->marginal);
	len += scnprintf(buf + len, size - len,
			 " samples=%lld errors=%lld error_permille=%d marginal=%d marginal_mask=0x%x",
			 atomic64_read(&p->samples), atomic64_read(&p->errors),
			 nvfab_st_error_permille(atomic64_read(&p->errs),
						 atomic64_read(&p->ios)),
			 !!mask, mask);
	return len;
}

/*
 * sysfs knobs. The framework creates the group on the subsystem device
 * while this selector is its iopolicy; each access finds the instance with
 * nvfab_ps_get(), and refuses one that belongs to another selector (the
 * iopolicy may change under an open file).
 */
static struct nvfab_ps *nvfab_st_get(struct device *dev)
{
	struct nvfab_ps *ps = nvfab_ps_get(dev);

	if (IS_ERR_OR_NULL(ps))
		return ps ?: ERR_PTR(-ENODEV);
	if (ps->ops->select_path != nvfab_st_select_path) {
		nvfab_ps_put(dev, ps);
		return ERR_PTR(-ENODEV);
	}
	return ps;
}

/**
 * struct nvfab_st_knob_attr - a knob's sysfs file
 * @attr:	the file, in the "service-time" group of the subsystem device
 * @knob:	the knob it shows and sets
 */
struct nvfab_st_knob_attr {
	struct device_attribute	attr;
	enum nvfab_st_knob	knob;
};

static ssize_t nvfab_st_knob_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	enum nvfab_st_knob k =
		container_of(attr, struct nvfab_st_knob_attr, attr)->knob;
	struct nvfab_ps *ps = nvfab_st_get(dev);
	struct nvfab_st_ctx *st;
	ssize_t ret;

	if (IS_ERR(ps))
		return PTR_ERR(ps);
	st = nvfab_ps_ctx(ps);
	ret = sysfs_emit(buf, "%u\n", READ_ONCE(st->knob[k]));
	nvfab_ps_put(dev, ps);
	return ret;
}

static ssize_t nvfab_st_knob_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	enum nvfab_st_knob k =
		container_of(attr, struct nvfab_st_knob_attr, attr)->knob;
	struct nvfab_ps *ps = nvfab_st_get(dev);
	int ret;

	if (IS_ERR(ps))
		return PTR_ERR(ps);
	ret = nvfab_st_set_knob(nvfab_ps_ctx(ps), k, buf);
	nvfab_ps_put(dev, ps);
	return ret ?: count;
}

#define NVFAB_ST_KNOB_ATTR(_name, _knob)				\
static struct nvfab_st_knob_attr nvfab_st_attr_##_name = {		\
	.attr = __ATTR(_name, 0644, nvfab_st_knob_show,			\
		       nvfab_st_knob_store),				\
	.knob = _knob,							\
}

NVFAB_ST_KNOB_ATTR(decay_shift, NVFAB_ST_DECAY_SHIFT);
NVFAB_ST_KNOB_ATTR(probe_interval_ms, NVFAB_ST_PROBE_INTERVAL_MS);
NVFAB_ST_KNOB_ATTR(marginal_latency_factor, NVFAB_ST_MARGINAL_LATENCY_FACTOR);
NVFAB_ST_KNOB_ATTR(reinstate_latency_factor, NVFAB_ST_REINSTATE_LATENCY_FACTOR);
NVFAB_ST_KNOB_ATTR(marginal_error_permille, NVFAB_ST_MARGINAL_ERROR_PERMILLE);
NVFAB_ST_KNOB_ATTR(reinstate_error_permille, NVFAB_ST_REINSTATE_ERROR_PERMILLE);
NVFAB_ST_KNOB_ATTR(error_half_life_ms, NVFAB_ST_ERROR_HALF_LIFE_MS);
NVFAB_ST_KNOB_ATTR(marginal_hold_ms, NVFAB_ST_MARGINAL_HOLD_MS);

static struct attribute *nvfab_st_attrs[] = {
	&nvfab_st_attr_decay_shift.attr.attr,
	&nvfab_st_attr_probe_interval_ms.attr.attr,
	&nvfab_st_attr_marginal_latency_factor.attr.attr,
	&nvfab_st_attr_reinstate_latency_factor.attr.attr,
	&nvfab_st_attr_marginal_error_permille.attr.attr,
	&nvfab_st_attr_reinstate_error_permille.attr.attr,
	&nvfab_st_attr_error_half_life_ms.attr.attr,
	&nvfab_st_attr_marginal_hold_ms.attr.attr,
	NULL
};

static const struct attribute_group nvfab_st_attr_group = {
	.name	= "service-time",
	.attrs	= nvfab_st_attrs,
};

/*
 * Not const: the registry links it through @list. Visible to the KUnit
 * suite, which drives an instance through these hooks.
 */
VISIBLE_IF_KUNIT struct nvfab_ps_ops nvfab_st_ops = {
	.name		= "service-time",
	.owner		= THIS_MODULE,
	.ctx_size	= sizeof(struct nvfab_st_ctx),
	.path_ctx_size	= sizeof(struct nvfab_st_path),
	.attr_group	= &nvfab_st_attr_group,
	.create		= nvfab_st_create,
	.destroy	= nvfab_st_destroy,
	.add_path	= nvfab_st_add_path,
	.remove_path	= nvfab_st_remove_path,
	.select_path	= nvfab_st_select_path,
	.end_io		= nvfab_st_end_io,
	.path_status	= nvfab_st_path_status,
};
EXPORT_SYMBOL_IF_KUNIT(nvfab_st_ops);

static int __init nvfab_st_init(void)
{
	int ret;

	ret = nvfab_register_ps(&nvfab_st_ops);
	if (ret) {
		pr_err("cannot register iopolicy %s: %d\n", nvfab_st_ops.name,
		       ret);
		return ret;
	}
	return 0;
}

static void __exit nvfab_st_exit(void)
{
	nvfab_unregister_ps(&nvfab_st_ops);
}

module_init(nvfab_st_init);
module_exit(nvfab_st_exit);

MODULE_DESCRIPTION("nvfab ANA-aware service-time path selector");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
NVFAB_IMPORT();
