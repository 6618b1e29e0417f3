/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-ps-service-time internals: the per-instance and per-slot state, and
 * the pure arithmetic its KUnit suite calls directly.
 */
#ifndef _NVFAB_PS_SERVICE_TIME_H
#define _NVFAB_PS_SERVICE_TIME_H

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <nvfab/multipath.h>

/*
 * I/O size buckets: bucket 0 holds up to 4 KiB (flushes included), bucket
 * b holds (2^(11+b), 2^(12+b)] bytes, and the last one everything above
 * 512 KiB.
 */
#define NVFAB_ST_BUCKET0_SHIFT	12
#define NVFAB_ST_NR_BUCKETS	9

/*
 * A bucket's estimate and its sample count share one atomic64_t, so that
 * both change together: bits 63..11 hold the estimate in ns, bits 10..0
 * the number of samples, saturating at NVFAB_ST_CNT_MAX.
 */
#define NVFAB_ST_CNT_BITS	11
#define NVFAB_ST_CNT_MAX	1024
#define NVFAB_ST_CNT(v)		((unsigned int)((v) & GENMASK_ULL(NVFAB_ST_CNT_BITS - 1, 0)))
#define NVFAB_ST_EST(v)		((u64)(v) >> NVFAB_ST_CNT_BITS)
#define NVFAB_ST_PACK(est, n)	(((u64)(est) << NVFAB_ST_CNT_BITS) | (n))

/* Latency samples are clamped to [1 ns, about 18 minutes]. */
#define NVFAB_ST_LAT_MAX	((1ULL << 40) - 1)

/* Samples a bucket needs before its estimate can make a path marginal. */
#define NVFAB_ST_MIN_SAMPLES	8

/*
 * The error rate is the share of path errors among the completions of a
 * window that halves every error_half_life_ms. The counts are kept in
 * 1/NVFAB_ST_ERR_ONE of an I/O, so that halving keeps some precision, and a
 * path needs NVFAB_ST_ERR_MIN_IOS completions in the window before errors
 * can make it marginal.
 */
#define NVFAB_ST_ERR_ONE	16
#define NVFAB_ST_ERR_MIN_IOS	4

/*
 * What a reset slot holds as its last probe: a quarter of the jiffies range
 * ago, so that its first probe is due at once whatever probe_interval_ms.
 */
#define NVFAB_ST_LONG_AGO	(ULONG_MAX >> 2)

/*
 * A path demoted again within NVFAB_ST_FLAP_HOLDS hold times of its
 * reinstatement has its hold doubled, up to 2^NVFAB_ST_MAX_STRIKES times.
 */
#define NVFAB_ST_FLAP_HOLDS	4
#define NVFAB_ST_MAX_STRIKES	6

/* Bits of nvfab_st_path.marginal: one per bucket, and one for errors. */
#define NVFAB_ST_MARGINAL_ERR	BIT(NVFAB_ST_NR_BUCKETS)

/**
 * struct nvfab_st_path - what the selector knows of one slot (controller)
 * @est:	per bucket, NVFAB_ST_PACK(estimate in ns, samples)
 * @last:	per bucket, jiffies of the last successful completion
 * @demoted_at:	jiffies of the last demotion, per marginal bit
 * @reinstated_at: jiffies of the last reinstatement, per marginal bit
 * @strikes:	per marginal bit, the hold is marginal_hold_ms << @strikes
 * @last_probe: jiffies of the last probe sent
 * @decay_at:	jiffies of the last halving of @ios and @errs
 * @ios:	completions (successes and path errors) in the error window,
 *		in 1/NVFAB_ST_ERR_ONE
 * @errs:	path errors in the error window, in 1/NVFAB_ST_ERR_ONE
 * @samples:	successful completions measured
 * @errors:	completions with a path error
 * @marginal:	NVFAB_ST_MARGINAL_ERR, and BIT(b) when latency-marginal in
 *		bucket b
 *
 * Every field is read and written without a lock: atomics, or
 * READ_ONCE()/WRITE_ONCE() on naturally aligned longs. add_path and
 * remove_path reset it.
 */
struct nvfab_st_path {
	atomic64_t	est[NVFAB_ST_NR_BUCKETS];
	unsigned long	last[NVFAB_ST_NR_BUCKETS];
	unsigned long	demoted_at[NVFAB_ST_NR_BUCKETS + 1];
	unsigned long	reinstated_at[NVFAB_ST_NR_BUCKETS + 1];
	unsigned long	last_probe;
	unsigned long	decay_at;
	atomic64_t	ios;
	atomic64_t	errs;
	atomic64_t	samples;
	atomic64_t	errors;
	atomic_t	marginal;
	u8		strikes[NVFAB_ST_NR_BUCKETS + 1];
};

/* Knobs, in the order of nvfab_st_knobs[]. */
enum nvfab_st_knob {
	NVFAB_ST_DECAY_SHIFT,
	NVFAB_ST_PROBE_INTERVAL_MS,
	NVFAB_ST_MARGINAL_LATENCY_FACTOR,
	NVFAB_ST_REINSTATE_LATENCY_FACTOR,
	NVFAB_ST_MARGINAL_ERROR_PERMILLE,
	NVFAB_ST_REINSTATE_ERROR_PERMILLE,
	NVFAB_ST_ERROR_HALF_LIFE_MS,
	NVFAB_ST_MARGINAL_HOLD_MS,
	NVFAB_ST_NR_KNOBS
};

/**
 * struct nvfab_st_ctx - one selector instance (one per subsystem)
 * @knob_lock:	serialises knob stores, so that the checks between two
 *		knobs see a stable pair; never taken on the I/O path
 * @knob:	knob values, indexed by enum nvfab_st_knob; written under
 *		@knob_lock with WRITE_ONCE(), read anywhere with READ_ONCE()
 * @probe_j:	@knob[NVFAB_ST_PROBE_INTERVAL_MS] in jiffies (same rules)
 * @hold_j:	@knob[NVFAB_ST_MARGINAL_HOLD_MS] in jiffies (same rules)
 * @half_j:	@knob[NVFAB_ST_ERROR_HALF_LIFE_MS] in jiffies (same rules)
 */
struct nvfab_st_ctx {
	struct mutex	knob_lock;	/* knob stores only; not on the I/O path */
	unsigned int	knob[NVFAB_ST_NR_KNOBS];	/* protected by knob_lock */
	unsigned long	probe_j;			/* protected by knob_lock */
	unsigned long	hold_j;				/* protected by knob_lock */
	unsigned long	half_j;				/* protected by knob_lock */
};

#if IS_ENABLED(CONFIG_KUNIT)
extern struct nvfab_ps_ops nvfab_st_ops;

unsigned int nvfab_st_bucket(unsigned int bytes);
u64 nvfab_st_ewma(u64 est, unsigned int n, u64 sample, unsigned int shift);
u64 nvfab_st_score(int inflight, u64 est);
u64 nvfab_st_estimate(struct nvfab_st_path *p, unsigned int b);
unsigned int nvfab_st_error_permille(u64 errs, u64 ios);
unsigned int nvfab_st_strikes_next(unsigned int strikes, unsigned long since,
				   unsigned long hold_j);
bool nvfab_st_marginal_next(bool marginal, u64 value, u64 demote_above,
			    u64 reinstate_above, bool hold_over);
int nvfab_st_set_knob(struct nvfab_st_ctx *st, enum nvfab_st_knob k,
		      const char *buf);
struct nvfab_path *nvfab_st_select(struct nvfab_ps *ps,
				   const struct nvfab_tier *tier,
				   unsigned int bytes, unsigned long now);
void nvfab_st_complete(struct nvfab_ps *ps, struct nvfab_path *path,
		       unsigned int bytes, u64 lat_ns, blk_status_t status,
		       unsigned long now);
#endif

#endif /* _NVFAB_PS_SERVICE_TIME_H */
