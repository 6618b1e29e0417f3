// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for nvfab-ps-service-time: its arithmetic (size buckets,
 * decaying averages, scores, error rates, the marginal hysteresis and its
 * flap damping, knob parsing) in tables, and its choices on fake tiers. A test builds the selector
 * instance the way the framework would (zeroed contexts, create, add_path
 * per slot) and drives it with a clock of its own, in jiffies.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include "../ps-service-time.h"

#define US	NSEC_PER_USEC
#define K4	4096
#define MAXP	8

/* ---- size buckets ---- */

struct bucket_case {
	const char *desc;
	unsigned int bytes;
	unsigned int bucket;
};

static const struct bucket_case bucket_cases[] = {
	{ "flush (0 bytes)", 0, 0 },
	{ "512 bytes", 512, 0 },
	{ "4 KiB", 4096, 0 },
	{ "4 KiB + 1", 4097, 1 },
	{ "8 KiB", 8192, 1 },
	{ "12 KiB", 12288, 2 },
	{ "16 KiB", 16384, 2 },
	{ "32 KiB", 32768, 3 },
	{ "64 KiB", 65536, 4 },
	{ "128 KiB", 131072, 5 },
	{ "256 KiB", 262144, 6 },
	{ "512 KiB", 524288, 7 },
	{ "512 KiB + 1", 524289, 8 },
	{ "1 MiB", 1048576, 8 },
	{ "4 MiB", 4194304, 8 },
	{ "UINT_MAX", UINT_MAX, 8 },
};

static void bucket_case_desc(const struct bucket_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bucket, bucket_cases, bucket_case_desc);

static void st_bucket_test(struct kunit *test)
{
	const struct bucket_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_bucket(c->bytes), c->bucket);
}

/* ---- one EWMA step ---- */

struct ewma_case {
	const char *desc;
	u64 est;
	unsigned int n;
	u64 sample;
	unsigned int shift;
	u64 want;
};

static const struct ewma_case ewma_cases[] = {
	{ "first sample seeds the average", 0, 0, 5000, 4, 5000 },
	{ "second sample averages evenly", 1000, 1, 3000, 4, 2000 },
	{ "third sample averages evenly", 2000, 2, 5000, 4, 3000 },
	{ "steady state moves 1/16 up", 1000, 100, 2600, 4, 1100 },
	{ "steady state moves 1/16 down", 2600, 100, 1000, 4, 2500 },
	{ "a small step rounds toward the sample", 1000, 100, 1001, 4, 1001 },
	{ "a constant sample is a fixed point", 7777, 50, 7777, 4, 7777 },
	{ "shift 1 moves halfway", 1000, 5, 3000, 1, 2000 },
	{ "shift 10 moves 1/1024", 0x100000, 5000, 0, 10, 0x100000 - 0x400 },
	{ "a huge first sample is clamped", 0, 0, U64_MAX, 4,
	  NVFAB_ST_LAT_MAX },
	{ "a huge average is clamped, no overflow", U64_MAX, 100, 0, 4,
	  NVFAB_ST_LAT_MAX - (1ULL << 36) },
};

static void ewma_case_desc(const struct ewma_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ewma, ewma_cases, ewma_case_desc);

static void st_ewma_test(struct kunit *test)
{
	const struct ewma_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_ewma(c->est, c->n, c->sample, c->shift),
			c->want);
}

/* ---- score ---- */

struct score_case {
	const char *desc;
	int inflight;
	u64 est;
	u64 want;
};

static const struct score_case score_cases[] = {
	{ "idle path", 0, 100, 100 },
	{ "three in flight", 3, 100, 400 },
	{ "negative in-flight reads as idle", -5, 100, 100 },
	{ "no estimate", 7, 0, 0 },
	{ "large but no overflow", 1 << 20, 1ULL << 40,
	  (1ULL << 60) + (1ULL << 40) },
	{ "overflow saturates", INT_MAX, 1ULL << 40, U64_MAX },
	{ "overflow at U64_MAX estimate", 1, U64_MAX, U64_MAX },
};

static void score_case_desc(const struct score_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(score, score_cases, score_case_desc);

static void st_score_test(struct kunit *test)
{
	const struct score_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_score(c->inflight, c->est), c->want);
}

/* ---- error rate ---- */

struct errrate_case {
	const char *desc;
	u64 errs, ios;
	unsigned int want;
};

#define ONE	NVFAB_ST_ERR_ONE

static const struct errrate_case errrate_cases[] = {
	{ "empty window", 0, 0, 0 },
	{ "no errors", 0, 100 * ONE, 0 },
	{ "all errors", 7 * ONE, 7 * ONE, 1000 },
	{ "more errors than I/O (race)", 9 * ONE, 8 * ONE, 1000 },
	{ "one in twenty", ONE, 20 * ONE, 50 },
	{ "five in 105 rounds down", 5 * ONE, 105 * ONE, 47 },
	{ "a halved error in a thousand", ONE / 2, 1000 * ONE, 0 },
	{ "a huge window", 1ULL << 40, 1ULL << 44, 62 },
};

static void errrate_case_desc(const struct errrate_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(errrate, errrate_cases, errrate_case_desc);

static void st_errrate_test(struct kunit *test)
{
	const struct errrate_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_error_permille(c->errs, c->ios),
			c->want);
}

/* ---- marginal hysteresis ---- */

struct marginal_case {
	const char *desc;
	bool marginal;
	u64 value;
	bool hold_over;
	bool want;
};

/* Demote above 300, reinstate at 150 or below. */
static const struct marginal_case marginal_cases[] = {
	{ "good, below the demote threshold", false, 299, false, false },
	{ "good, at the demote threshold", false, 300, true, false },
	{ "good, above the demote threshold", false, 301, false, true },
	{ "good, hold is irrelevant", false, 100, true, false },
	{ "marginal, between the thresholds", true, 200, true, true },
	{ "marginal, recovered but held", true, 100, false, true },
	{ "marginal, at reinstate after the hold", true, 150, true, false },
	{ "marginal, just above reinstate", true, 151, true, true },
	{ "marginal, far above demote", true, 100000, true, true },
};

static void marginal_case_desc(const struct marginal_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(marginal, marginal_cases, marginal_case_desc);

static void st_marginal_test(struct kunit *test)
{
	const struct marginal_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_marginal_next(c->marginal, c->value, 300,
						     150, c->hold_over),
			c->want);
}

/* ---- flap damping ---- */

struct strikes_case {
	const char *desc;
	unsigned int strikes;
	unsigned long since;
	unsigned long hold_j;
	unsigned int want;
};

static const struct strikes_case strikes_cases[] = {
	{ "first demotion", 0, ULONG_MAX / 4, 100, 0 },
	{ "demoted again soon", 0, 50, 100, 1 },
	{ "just under four holds", 0, 399, 100, 1 },
	{ "good for four holds: starts over", 0, 400, 100, 0 },
	{ "the window grows with the hold", 1, 799, 100, 2 },
	{ "good for four doubled holds", 1, 800, 100, 0 },
	{ "capped", NVFAB_ST_MAX_STRIKES, 0, 100, NVFAB_ST_MAX_STRIKES },
	{ "out of range reads as the cap", 200, 0, 100,
	  NVFAB_ST_MAX_STRIKES },
	{ "no hold, no strikes", 3, 0, 0, 0 },
};

static void strikes_case_desc(const struct strikes_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(strikes, strikes_cases, strikes_case_desc);

static void st_strikes_test(struct kunit *test)
{
	const struct strikes_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvfab_st_strikes_next(c->strikes, c->since,
						    c->hold_j), c->want);
}

/* ---- a fake subsystem: one instance, MAXP paths at odd slots ---- */

struct st_fix {
	struct nvfab_ps		ps;
	struct nvfab_st_ctx	*st;
	atomic_t		inflight[MAXP];
	struct nvfab_path	path[MAXP];
	struct nvfab_tier	*tier;
	unsigned long		now;
	char			name[32];
};

/* kunit devices need distinct names while a test holds several */
static atomic_t st_dev_seq = ATOMIC_INIT(0);

static void st_destroy_action(void *data)
{
	struct nvfab_ps *ps = data;

	ps->ops->destroy(ps);
}

static struct st_fix *st_fix_slots(struct kunit *test, unsigned int nr,
				   const unsigned int *slots)
{
	struct st_fix *f;
	unsigned int i;

	KUNIT_ASSERT_LE(test, nr, MAXP);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ps.ops = &nvfab_st_ops;
	snprintf(f->name, sizeof(f->name), "nvfab-st-test%u",
		 atomic_inc_return(&st_dev_seq));
	f->ps.dev = kunit_device_register(test, f->name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->ps.dev));
	f->ps.ctx = kunit_kzalloc(test, nvfab_st_ops.ctx_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->ps.ctx);
	f->ps.path_ctx = kunit_kcalloc(test, NVFAB_MAX_PATHS,
				       nvfab_st_ops.path_ctx_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->ps.path_ctx);
	KUNIT_ASSERT_EQ(test, nvfab_st_ops.create(&f->ps), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_destroy_action,
							&f->ps), 0);
	f->st = f->ps.ctx;

	f->tier = kunit_kzalloc(test, sizeof(*f->tier), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->tier);
	f->tier->nr = nr;
	f->tier->ana_state = NVME_ANA_OPTIMIZED;
	for (i = 0; i < nr; i++) {
		f->path[i].slot = slots ? slots[i] : 2 * i + 1;
		f->path[i].numa_node = NUMA_NO_NODE;
		f->path[i].ana_state = NVME_ANA_OPTIMIZED;
		f->path[i].inflight = &f->inflight[i];
		f->tier->paths[i] = &f->path[i];
		nvfab_st_ops.add_path(&f->ps, f->path[i].slot);
	}
	f->now = jiffies;
	return f;
}

static struct st_fix *st_fix(struct kunit *test, unsigned int nr)
{
	return st_fix_slots(test, nr, NULL);
}

static struct nvfab_st_path *st_p(struct st_fix *f, unsigned int i)
{
	return nvfab_ps_path_ctx(&f->ps, f->path[i].slot);
}

static void st_feed(struct st_fix *f, unsigned int i, unsigned int bytes,
		    u64 lat_us, unsigned int n)
{
	while (n--)
		nvfab_st_complete(&f->ps, &f->path[i], bytes, lat_us * US,
				  BLK_STS_OK, f->now);
}

static void st_fail(struct st_fix *f, unsigned int i, blk_status_t status,
		    unsigned int n)
{
	while (n--)
		nvfab_st_complete(&f->ps, &f->path[i], K4, 0, status, f->now);
}

/* No probe due on path @i for an hour of the fake clock. */
static void st_no_probe(struct st_fix *f, unsigned int i)
{
	WRITE_ONCE(st_p(f, i)->last_probe, f->now + 3600 * HZ);
}

static void st_no_probes(struct st_fix *f)
{
	unsigned int i;

	for (i = 0; i < f->tier->nr; i++)
		st_no_probe(f, i);
}

static void st_advance(struct st_fix *f, unsigned long j)
{
	f->now += j;
}

/* The probe interval and the hold time, in jiffies. */
#define PROBE_J(f)	((f)->st->probe_j)
#define HOLD_J(f)	((f)->st->hold_j)

/* Index in the tier of the path chosen for @bytes; -1 if not a member. */
static int st_pick(struct st_fix *f, unsigned int bytes)
{
	struct nvfab_path *path;
	unsigned int i;

	path = nvfab_st_select(&f->ps, f->tier, bytes, f->now);
	for (i = 0; i < f->tier->nr; i++)
		if (path == f->tier->paths[i])
			return i;
	return -1;
}

static bool st_marginal(struct st_fix *f, unsigned int i)
{
	return atomic_read(&st_p(f, i)->marginal);
}

static u64 st_est_us(struct st_fix *f, unsigned int i, unsigned int bytes)
{
	u64 v = atomic64_read(&st_p(f, i)->est[nvfab_st_bucket(bytes)]);

	return div_u64(NVFAB_ST_EST(v), US);
}

/* ---- choice on a tier, table-driven ---- */

struct select_case {
	const char *desc;
	unsigned int nr;
	unsigned int lat_us[MAXP];	/* 0: no sample */
	int inflight[MAXP];
	unsigned int bytes;
	int want;
};

static const struct select_case select_cases[] = {
	{ "lowest latency wins", 3, { 300, 100, 200 }, { 0 }, K4, 1 },
	{ "in-flight shifts the choice", 2, { 100, 150 }, { 2, 0 }, K4, 1 },
	{ "in-flight not enough to shift", 2, { 100, 150 }, { 0, 0 }, K4, 0 },
	{ "equal latency: fewer in flight", 2, { 100, 100 }, { 1, 0 }, K4, 1 },
	{ "exact tie: the path that joined first", 3, { 100, 100, 100 },
	  { 0 }, K4, 0 },
	{ "1 MiB I/O by its own bucket", 2, { 900, 700 }, { 0 }, 1 << 20, 1 },
	{ "flush by the smallest bucket", 2, { 90, 70 }, { 0 }, 0, 1 },
	{ "unknown path loses to a busy known one", 2, { 0, 500 }, { 0, 5 },
	  K4, 1 },
	{ "all unknown: fewest in flight", 3, { 0, 0, 0 }, { 3, 1, 2 }, K4,
	  1 },
	{ "latency outlier skipped despite a queue", 2, { 100, 400 },
	  { 50, 0 }, K4, 0 },
	{ "slower path under the factor competes", 2, { 100, 250 }, { 50, 0 },
	  K4, 1 },
	{ "eight paths, the fastest last", 8,
	  { 80, 90, 85, 95, 99, 88, 87, 70 }, { 0 }, 65536, 7 },
	{ "one path, however slow", 1, { 100000 }, { 1000 }, K4, 0 },
};

static void select_case_desc(const struct select_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(select, select_cases, select_case_desc);

static void st_select_test(struct kunit *test)
{
	const struct select_case *c = test->param_value;
	struct st_fix *f = st_fix(test, c->nr);
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (c->lat_us[i])
			st_feed(f, i, c->bytes, c->lat_us[i], 16);
		atomic_set(&f->inflight[i], c->inflight[i]);
	}
	st_no_probes(f);
	KUNIT_EXPECT_EQ(test, st_pick(f, c->bytes), c->want);
	/* The choice is stable: nothing changed in between. */
	KUNIT_EXPECT_EQ(test, st_pick(f, c->bytes), c->want);
}

/* ---- knob stores ---- */

struct knob_case {
	const char *desc;
	enum nvfab_st_knob knob;
	const char *buf;
	int ret;
	unsigned int want;	/* the knob afterwards */
};

static const struct knob_case knob_cases[] = {
	{ "decay_shift 7", NVFAB_ST_DECAY_SHIFT, "7\n", 0, 7 },
	{ "decay_shift 0", NVFAB_ST_DECAY_SHIFT, "0", -EINVAL, 4 },
	{ "decay_shift 11", NVFAB_ST_DECAY_SHIFT, "11", -EINVAL, 4 },
	{ "decay_shift empty", NVFAB_ST_DECAY_SHIFT, "", -EINVAL, 4 },
	{ "decay_shift words", NVFAB_ST_DECAY_SHIFT, "fast", -EINVAL, 4 },
	{ "decay_shift negative", NVFAB_ST_DECAY_SHIFT, "-1", -EINVAL, 4 },
	{ "decay_shift trailing junk", NVFAB_ST_DECAY_SHIFT, "4x", -EINVAL,
	  4 },
	{ "decay_shift hex", NVFAB_ST_DECAY_SHIFT, "0x5", -EINVAL, 4 },
	{ "decay_shift two values", NVFAB_ST_DECAY_SHIFT, "5 6", -EINVAL, 4 },
	{ "probe_interval_ms 9", NVFAB_ST_PROBE_INTERVAL_MS, "9", -EINVAL,
	  1000 },
	{ "probe_interval_ms 10", NVFAB_ST_PROBE_INTERVAL_MS, "10", 0, 10 },
	{ "probe_interval_ms 2^32", NVFAB_ST_PROBE_INTERVAL_MS, "4294967296",
	  -EINVAL, 1000 },
	{ "marginal factor at reinstate factor",
	  NVFAB_ST_MARGINAL_LATENCY_FACTOR, "150", -EINVAL, 300 },
	{ "marginal factor above reinstate factor",
	  NVFAB_ST_MARGINAL_LATENCY_FACTOR, "151", 0, 151 },
	{ "marginal factor 10001", NVFAB_ST_MARGINAL_LATENCY_FACTOR, "10001",
	  -EINVAL, 300 },
	{ "reinstate factor at marginal factor",
	  NVFAB_ST_REINSTATE_LATENCY_FACTOR, "300", -EINVAL, 150 },
	{ "reinstate factor 99", NVFAB_ST_REINSTATE_LATENCY_FACTOR, "99",
	  -EINVAL, 150 },
	{ "reinstate factor 100", NVFAB_ST_REINSTATE_LATENCY_FACTOR, "100", 0,
	  100 },
	{ "marginal errors 1001", NVFAB_ST_MARGINAL_ERROR_PERMILLE, "1001",
	  -EINVAL, 50 },
	{ "marginal errors at reinstate", NVFAB_ST_MARGINAL_ERROR_PERMILLE,
	  "10", -EINVAL, 50 },
	{ "marginal errors 1000 (off)", NVFAB_ST_MARGINAL_ERROR_PERMILLE,
	  "1000", 0, 1000 },
	{ "reinstate errors 0", NVFAB_ST_REINSTATE_ERROR_PERMILLE, "0", 0, 0 },
	{ "reinstate errors at marginal", NVFAB_ST_REINSTATE_ERROR_PERMILLE,
	  "50", -EINVAL, 10 },
	{ "error half-life 9", NVFAB_ST_ERROR_HALF_LIFE_MS, "9", -EINVAL,
	  1000 },
	{ "error half-life 60000", NVFAB_ST_ERROR_HALF_LIFE_MS, "60000", 0,
	  60000 },
	{ "hold 0", NVFAB_ST_MARGINAL_HOLD_MS, "0", 0, 0 },
	{ "hold 3600001", NVFAB_ST_MARGINAL_HOLD_MS, "3600001", -EINVAL,
	  2000 },
	{ "unknown knob", NVFAB_ST_NR_KNOBS, "1", -EINVAL, 0 },
};

static void knob_case_desc(const struct knob_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(knob, knob_cases, knob_case_desc);

static void st_knob_test(struct kunit *test)
{
	const struct knob_case *c = test->param_value;
	struct st_fix *f = st_fix(test, 1);
	unsigned int before[NVFAB_ST_NR_KNOBS];
	unsigned long probe_j = f->st->probe_j;
	unsigned long hold_j = f->st->hold_j;
	unsigned long half_j = f->st->half_j;
	unsigned int k;

	memcpy(before, f->st->knob, sizeof(before));
	KUNIT_EXPECT_EQ(test, nvfab_st_set_knob(f->st, c->knob, c->buf),
			c->ret);
	for (k = 0; k < NVFAB_ST_NR_KNOBS; k++)
		KUNIT_EXPECT_EQ(test, f->st->knob[k],
				k == c->knob ? c->want : before[k]);
	if (c->ret || c->knob != NVFAB_ST_PROBE_INTERVAL_MS)
		KUNIT_EXPECT_EQ(test, f->st->probe_j, probe_j);
	else
		KUNIT_EXPECT_EQ(test, f->st->probe_j, msecs_to_jiffies(c->want));
	if (c->ret || c->knob != NVFAB_ST_MARGINAL_HOLD_MS)
		KUNIT_EXPECT_EQ(test, f->st->hold_j, hold_j);
	else
		KUNIT_EXPECT_EQ(test, f->st->hold_j, msecs_to_jiffies(c->want));
	if (c->ret || c->knob != NVFAB_ST_ERROR_HALF_LIFE_MS)
		KUNIT_EXPECT_EQ(test, f->st->half_j, half_j);
	else
		KUNIT_EXPECT_EQ(test, f->st->half_j, msecs_to_jiffies(c->want));
}

/* ---- scenarios ---- */

/* The average converges on a new latency at the rate decay_shift sets. */
static void st_converge_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 1);
	u64 v;

	st_feed(f, 0, K4, 1000, 64);
	KUNIT_EXPECT_EQ(test, st_est_us(f, 0, K4), 1000);
	st_feed(f, 0, K4, 100, 4);
	/* Four steps of 1/16 cover under a quarter of the way. */
	KUNIT_EXPECT_GT(test, st_est_us(f, 0, K4), 700);
	st_feed(f, 0, K4, 100, 96);
	KUNIT_EXPECT_LE(test, st_est_us(f, 0, K4), 102);
	KUNIT_EXPECT_GE(test, st_est_us(f, 0, K4), 100);
	st_feed(f, 0, K4, 100, 2000);
	v = atomic64_read(&st_p(f, 0)->est[0]);
	KUNIT_EXPECT_EQ(test, NVFAB_ST_EST(v), 100 * US);
	KUNIT_EXPECT_EQ(test, NVFAB_ST_CNT(v), NVFAB_ST_CNT_MAX);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 0)->samples), 2164);

	/* A sample in a stale bucket counts as much as the estimate. */
	st_advance(f, PROBE_J(f) + 1);
	st_feed(f, 0, K4, 300, 1);
	KUNIT_EXPECT_EQ(test, st_est_us(f, 0, K4), 200);
	st_feed(f, 0, K4, 300, 1);
	KUNIT_EXPECT_LT(test, st_est_us(f, 0, K4), 220);

	/* With decay_shift 1 each sample halves the distance. */
	KUNIT_ASSERT_EQ(test, nvfab_st_set_knob(f->st, NVFAB_ST_DECAY_SHIFT,
						"1"), 0);
	st_feed(f, 0, K4, 900, 3);		/* 206 553 727 813 */
	KUNIT_EXPECT_EQ(test, st_est_us(f, 0, K4), 813);
}

/* A bucket without samples borrows the nearest one, scaled by size. */
static void st_borrow_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	st_feed(f, 0, K4, 10, 16);		/* 4 KiB only */
	st_feed(f, 1, 16384, 50, 16);		/* 16 KiB only */
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 0), 2), 40 * US);
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 1), 0), 12500);
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 1), 8), 3200 * US);
	st_no_probes(f);
	KUNIT_EXPECT_EQ(test, st_pick(f, 16384), 0);	/* 40 us < 50 us */
	atomic_set(&f->inflight[0], 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, 16384), 1);	/* 80 us > 50 us */
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 0), 0), 10 * US);
	nvfab_st_ops.remove_path(&f->ps, f->path[0].slot);
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 0), 4), 0);
}

/* A stale path gets one probe per probe interval, no more. */
static void st_probe_stale_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 1, K4, 250, 16);
	/* Both fresh: no probe, the fast path wins. */
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);

	/* Path 1 stale: one I/O goes there, then it waits an interval. */
	st_advance(f, PROBE_J(f) + 1);
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, 65536), 0);
	st_advance(f, PROBE_J(f) - 1);
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	/* No answer from the probe yet: the next interval sends another. */
	st_advance(f, 1);
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);

	/* Its answer makes the bucket fresh: no probe while it stays so. */
	st_feed(f, 1, K4, 250, 1);
	st_advance(f, PROBE_J(f));
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	st_advance(f, 1);
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);

	/* A shorter interval applies at once. */
	st_feed(f, 1, K4, 250, 1);
	KUNIT_ASSERT_EQ(test, nvfab_st_set_knob(f->st,
						NVFAB_ST_PROBE_INTERVAL_MS,
						"10"), 0);
	KUNIT_ASSERT_LT(test, PROBE_J(f), msecs_to_jiffies(1000));
	st_advance(f, PROBE_J(f) + 1);
	st_feed(f, 0, K4, 100, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
}

/* A path never measured at this size is probed at once, then waits. */
static void st_probe_unknown_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 0, 65536, 300, 16);
	st_no_probe(f, 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);	/* new path: probe */
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, 65536), 0);	/* one per interval */
	st_feed(f, 1, K4, 50, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);	/* measured: faster */
}

/* Latency outlier: demoted, held, kept in the band, then reinstated. */
static void st_latency_marginal_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);
	char buf[256];

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 1, K4, 400, 16);
	st_no_probes(f);
	atomic_set(&f->inflight[0], 100);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 0));
	KUNIT_EXPECT_EQ(test, atomic_read(&st_p(f, 1)->marginal), 1);

	nvfab_st_ops.path_status(&f->ps, f->path[1].slot, buf, sizeof(buf));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " marginal=1 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "marginal_mask=0x1"));
	nvfab_st_ops.path_status(&f->ps, f->path[0].slot, buf, sizeof(buf));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " marginal=0 "));

	/* Only bucket 0 is judged: 64 KiB I/O may still use path 1. */
	st_feed(f, 0, 65536, 1000, 16);
	st_feed(f, 1, 65536, 1100, 16);
	atomic_set(&f->inflight[0], 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, 65536), 1);

	/* Recovered, but within the hold time: still marginal. */
	st_feed(f, 1, K4, 110, 200);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	st_advance(f, HOLD_J(f) - 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	/* Hold over: reinstated, and it takes the I/O. */
	st_advance(f, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));

	/* Demoted again; 2x the best is inside the band: no reinstatement. */
	st_feed(f, 1, K4, 400, 200);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 200, 200);
	st_advance(f, 2 * HOLD_J(f));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	/* 2.9x is still not an outlier for a good path (hysteresis). */
	st_feed(f, 1, K4, 140, 200);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 290, 200);
	atomic_set(&f->inflight[0], 2);			/* 300 us > 290 us */
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
}

/* A path that keeps relapsing waits twice as long each time. */
static void st_flap_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);
	unsigned int round;

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 1, K4, 400, 16);
	st_no_probes(f);
	atomic_set(&f->inflight[0], 3);		/* 400 us > 110 us */
	for (round = 0; round < 4; round++) {
		KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
		KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
		KUNIT_EXPECT_EQ(test, st_p(f, 1)->strikes[0], round);
		st_feed(f, 1, K4, 110, 200);
		st_advance(f, (HOLD_J(f) << round) - 1);
		KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
		st_advance(f, 1);
		KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
		KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
		st_feed(f, 1, K4, 400, 200);
	}

	/* Good for four of its holds: the next demotion starts over. */
	st_feed(f, 1, K4, 110, 200);
	st_advance(f, (HOLD_J(f) << 4) * NVFAB_ST_FLAP_HOLDS);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
	st_feed(f, 0, K4, 100, 1);
	st_feed(f, 1, K4, 400, 200);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	KUNIT_EXPECT_EQ(test, st_p(f, 1)->strikes[0], 0);
	st_feed(f, 1, K4, 110, 200);
	st_advance(f, HOLD_J(f));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
}

/* The reference is the best path that is not marginal. */
static void st_reference_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 3);

	/* Path 2 is error-marginal and idle, so it looks fast. */
	st_feed(f, 0, K4, 400, 16);
	st_feed(f, 1, K4, 500, 16);
	st_feed(f, 2, K4, 100, 16);
	st_fail(f, 2, BLK_STS_TRANSPORT, 16);
	st_no_probes(f);
	KUNIT_ASSERT_TRUE(test, st_marginal(f, 2));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 0));
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));

	/* When every path is marginal, the best of them is the reference. */
	st_fail(f, 0, BLK_STS_TRANSPORT, 16);
	st_fail(f, 1, BLK_STS_TRANSPORT, 16);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&st_p(f, 0)->marginal),
			NVFAB_ST_MARGINAL_ERR | BIT(0));
}

/* Too few samples to judge: a slow first answer does not demote. */
static void st_latency_min_samples_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 1, K4, 5000, NVFAB_ST_MIN_SAMPLES - 1);
	st_no_probes(f);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 5000, 1);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
}

static unsigned int st_err_pm(struct st_fix *f, unsigned int i)
{
	struct nvfab_st_path *p = st_p(f, i);

	return nvfab_st_error_permille(atomic64_read(&p->errs),
				       atomic64_read(&p->ios));
}

/* Path errors demote, other errors do not; then the hold. */
static void st_error_marginal_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);
	char buf[256];

	st_feed(f, 0, K4, 100, 100);
	st_feed(f, 1, K4, 100, 100);
	st_no_probes(f);

	/* Not the path's fault. */
	st_fail(f, 0, BLK_STS_MEDIUM, 10);
	st_fail(f, 0, BLK_STS_PROTECTION, 10);
	st_fail(f, 0, BLK_STS_RESOURCE, 10);
	st_fail(f, 0, BLK_STS_AGAIN, 10);
	st_fail(f, 0, BLK_STS_DEV_RESOURCE, 10);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 0)->errs), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 0)->errors), 0);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 0));

	st_fail(f, 1, BLK_STS_TRANSPORT, 4);
	st_fail(f, 1, BLK_STS_TIMEOUT, 1);		/* 5 in 105 */
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 47);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
	st_fail(f, 1, BLK_STS_IOERR, 1);		/* 6 in 106 */
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	nvfab_st_ops.path_status(&f->ps, f->path[1].slot, buf, sizeof(buf));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "errors=6 error_permille=56 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "marginal_mask=0x200"));
	atomic_set(&f->inflight[0], 100);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, 1 << 20), 0);	/* every size */

	/* Clean again, but within the hold time. */
	st_feed(f, 1, K4, 100, 1000);
	KUNIT_EXPECT_LE(test, st_err_pm(f, 1), 10);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_advance(f, HOLD_J(f) - 1);
	st_feed(f, 1, K4, 100, 1);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_advance(f, 1);
	st_feed(f, 1, K4, 100, 1);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
}

/* Between the error thresholds a marginal path stays marginal. */
static void st_error_band_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	KUNIT_ASSERT_EQ(test, HOLD_J(f), 2 * f->st->half_j);
	f->now = READ_ONCE(st_p(f, 1)->decay_at);
	st_feed(f, 1, K4, 100, 100);
	st_fail(f, 1, BLK_STS_TRANSPORT, 6);		/* 6 in 106 */
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 100, 194);			/* 6 in 300 */
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 20);
	/* Two half-lives: the window halves twice, the rate stays. */
	st_advance(f, HOLD_J(f));
	st_feed(f, 1, K4, 100, 1);			/* 1.5 in 76 */
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 1)->errs), 6 * ONE / 4);
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 19);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 100, 60);			/* 1.5 in 136 */
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 11);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	st_feed(f, 1, K4, 100, 1);			/* 1.5 in 137 */
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 10);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));

	/* Errors age out: a new error after a quiet hour counts alone. */
	st_advance(f, 3600 * HZ);
	st_fail(f, 1, BLK_STS_TRANSPORT, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 1)->ios), ONE);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));	/* 1 I/O: no verdict */
	st_feed(f, 1, K4, 100, 3);
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 1), 250);
	st_fail(f, 1, BLK_STS_TRANSPORT, 1);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
}

/* A rare error at a high rate demotes nothing. */
static void st_error_rare_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 1);
	unsigned int i;

	for (i = 0; i < 50; i++) {
		st_feed(f, 0, K4, 100, 199);
		st_fail(f, 0, BLK_STS_TRANSPORT, 1);		/* 5 permille */
		KUNIT_EXPECT_FALSE(test, st_marginal(f, 0));
	}
	KUNIT_EXPECT_EQ(test, st_err_pm(f, 0), 5);
}

/* When every path is marginal the tier still gets I/O, best first. */
static void st_all_marginal_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);

	st_feed(f, 0, K4, 100, 16);
	st_feed(f, 1, K4, 200, 16);
	st_fail(f, 0, BLK_STS_TRANSPORT, 3);
	st_fail(f, 1, BLK_STS_TRANSPORT, 3);
	st_no_probes(f);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 0));
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	atomic_set(&f->inflight[0], 2);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);
}

/* A one-path tier whose path is marginal and unmeasured. */
static void st_single_marginal_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 1);

	st_fail(f, 0, BLK_STS_IOERR, 5);
	st_no_probes(f);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 0));
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, 0), 0);
}

/* add_path and remove_path start a slot from nothing. */
static void st_reset_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 2);
	char buf[256];
	int len;

	st_feed(f, 1, K4, 12, 1);
	st_feed(f, 1, 1 << 20, 2000, 1);
	len = nvfab_st_ops.path_status(&f->ps, f->path[1].slot, buf,
				       sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "est_us=12,-,-,-,-,-,-,-,2000 samples=2 errors=0 error_permille=0 marginal=0 marginal_mask=0x0");
	KUNIT_EXPECT_EQ(test, len, strlen(buf));

	st_fail(f, 1, BLK_STS_TRANSPORT, 4);
	KUNIT_EXPECT_TRUE(test, st_marginal(f, 1));
	nvfab_st_ops.remove_path(&f->ps, f->path[1].slot);
	nvfab_st_ops.path_status(&f->ps, f->path[1].slot, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "est_us=-,-,-,-,-,-,-,-,- samples=0 errors=0 error_permille=0 marginal=0 marginal_mask=0x0");

	/* A new controller in the slot is measured afresh: probed first. */
	st_feed(f, 1, K4, 500, 16);
	st_fail(f, 1, BLK_STS_TRANSPORT, 4);
	nvfab_st_ops.add_path(&f->ps, f->path[1].slot);
	KUNIT_EXPECT_FALSE(test, st_marginal(f, 1));
	KUNIT_EXPECT_EQ(test, nvfab_st_estimate(st_p(f, 1), 0), 0);
	st_feed(f, 0, K4, 100, 16);
	st_no_probe(f, 0);
	KUNIT_EXPECT_EQ(test, st_pick(f, K4), 1);

	/* A short buffer is cut, not overrun. */
	len = nvfab_st_ops.path_status(&f->ps, f->path[1].slot, buf, 8);
	KUNIT_EXPECT_EQ(test, len, 7);
	KUNIT_EXPECT_STREQ(test, buf, "est_us=");
}

/* The ops hooks as the framework calls them, end_io without start_io. */
static void st_ops_test(struct kunit *test)
{
	struct st_fix *f = st_fix(test, 3);
	struct nvfab_path *path;
	unsigned int i;

	KUNIT_EXPECT_STREQ(test, nvfab_st_ops.name, "service-time");
	KUNIT_EXPECT_NOT_NULL(test, nvfab_st_ops.attr_group);
	KUNIT_EXPECT_STREQ(test, nvfab_st_ops.attr_group->name,
			   "service-time");
	KUNIT_EXPECT_NOT_NULL(test, nvfab_st_ops.select_path);

	nvfab_st_ops.end_io(&f->ps, &f->path[2], 8192, 42 * US, BLK_STS_OK);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st_p(f, 2)->samples), 1);
	KUNIT_EXPECT_EQ(test, st_est_us(f, 2, 8192), 42);

	for (i = 0; i < 10; i++) {
		path = nvfab_st_ops.select_path(&f->ps, f->tier, 4096);
		KUNIT_EXPECT_TRUE(test, path == &f->path[0] ||
				  path == &f->path[1] || path == &f->path[2]);
	}
}

/* Whatever happens, select returns a member of the tier. */
static void st_membership_test(struct kunit *test)
{
	static const unsigned int slots[MAXP] = { 31, 0, 7, 16, 3, 22, 9, 30 };
	static const blk_status_t sts[] = {
		BLK_STS_OK, BLK_STS_OK, BLK_STS_OK, BLK_STS_TRANSPORT,
		BLK_STS_MEDIUM, BLK_STS_TIMEOUT,
	};
	struct nvfab_path *path;
	struct rnd_state rs;
	struct st_fix *f;
	unsigned int round, i, nr;
	bool found;

	prandom_seed_state(&rs, 0x5e7c1ce);
	for (round = 0; round < 8; round++) {
		nr = 1 + round % MAXP;
		f = st_fix_slots(test, nr, slots);
		for (i = 0; i < 2000; i++) {
			unsigned int r = prandom_u32_state(&rs);
			unsigned int who = r % nr;
			unsigned int bytes = 512U << (r >> 8) % 13;

			switch ((r >> 4) % 4) {
			case 0:
				nvfab_st_complete(&f->ps, &f->path[who], bytes,
						  (r >> 12) * 7ULL,
						  sts[(r >> 16) % ARRAY_SIZE(sts)],
						  f->now);
				break;
			case 1:
				atomic_set(&f->inflight[who], (r >> 20) % 64);
				break;
			case 2:
				st_advance(f, (r >> 16) % (2 * PROBE_J(f)));
				break;
			default:
				break;
			}
			path = nvfab_st_select(&f->ps, f->tier, bytes, f->now);
			found = false;
			for (who = 0; who < nr; who++)
				found |= path == f->tier->paths[who];
			KUNIT_ASSERT_TRUE(test, found);
		}
	}
}

static struct kunit_case nvfab_ps_service_time_cases[] = {
	KUNIT_CASE_PARAM(st_bucket_test, bucket_gen_params),
	KUNIT_CASE_PARAM(st_ewma_test, ewma_gen_params),
	KUNIT_CASE_PARAM(st_score_test, score_gen_params),
	KUNIT_CASE_PARAM(st_errrate_test, errrate_gen_params),
	KUNIT_CASE_PARAM(st_marginal_test, marginal_gen_params),
	KUNIT_CASE_PARAM(st_strikes_test, strikes_gen_params),
	KUNIT_CASE_PARAM(st_select_test, select_gen_params),
	KUNIT_CASE_PARAM(st_knob_test, knob_gen_params),
	KUNIT_CASE(st_converge_test),
	KUNIT_CASE(st_borrow_test),
	KUNIT_CASE(st_probe_stale_test),
	KUNIT_CASE(st_probe_unknown_test),
	KUNIT_CASE(st_latency_marginal_test),
	KUNIT_CASE(st_latency_min_samples_test),
	KUNIT_CASE(st_flap_test),
	KUNIT_CASE(st_reference_test),
	KUNIT_CASE(st_error_marginal_test),
	KUNIT_CASE(st_error_band_test),
	KUNIT_CASE(st_error_rare_test),
	KUNIT_CASE(st_all_marginal_test),
	KUNIT_CASE(st_single_marginal_test),
	KUNIT_CASE(st_reset_test),
	KUNIT_CASE(st_ops_test),
	KUNIT_CASE(st_membership_test),
	{}
};

static struct kunit_suite nvfab_ps_service_time_suite = {
	.name = "nvfab_ps_service_time",
	.test_cases = nvfab_ps_service_time_cases,
};

kunit_test_suite(nvfab_ps_service_time_suite);

MODULE_DESCRIPTION("KUnit tests for the nvfab service-time path selector");
MODULE_LICENSE("GPL");
NVFAB_IMPORT_KUNIT();
