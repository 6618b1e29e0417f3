// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit table for the queue state machine (queue-state.c): every
 * (old, new) pair of enum nvfab_queue_state (AUTHENTICATING included: a
 * Connect that asked for DH-HMAC-CHAP) against the transitions the design
 * allows, and nvfab_change_queue_state() on a fake controller:
 * the first error of a queue wins NVFAB_QUEUE_FAILED, a second one loses
 * (a queue is failed, and its commands cancelled, once), a Connect that
 * lands on a failed queue cannot make it CONNECTED, a failed start goes
 * back to FREE.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include <nvfab/compat.h>
#include "../nvfab.h"

#define NR_STATES	(NVFAB_QUEUE_AUTHENTICATING + 1)
#define CHANGE(ctrl, qid, to) \
	nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_##to)

/* allowed[old][new] */
static const bool allowed[NR_STATES][NR_STATES] = {
	[NVFAB_QUEUE_FREE] = {
		[NVFAB_QUEUE_STARTING] = true,
	},
	[NVFAB_QUEUE_STARTING] = {
		[NVFAB_QUEUE_LIVE] = true,
		[NVFAB_QUEUE_FAILED] = true,
		[NVFAB_QUEUE_FREE] = true,
	},
	[NVFAB_QUEUE_LIVE] = {
		[NVFAB_QUEUE_CONNECTED] = true,
		[NVFAB_QUEUE_AUTHENTICATING] = true,
		[NVFAB_QUEUE_FAILED] = true,
		[NVFAB_QUEUE_STOPPED] = true,
	},
	[NVFAB_QUEUE_AUTHENTICATING] = {
		[NVFAB_QUEUE_CONNECTED] = true,
		[NVFAB_QUEUE_FAILED] = true,
		[NVFAB_QUEUE_STOPPED] = true,
	},
	[NVFAB_QUEUE_CONNECTED] = {
		[NVFAB_QUEUE_FAILED] = true,
		[NVFAB_QUEUE_STOPPED] = true,
	},
	[NVFAB_QUEUE_FAILED] = {
		[NVFAB_QUEUE_STOPPED] = true,
		[NVFAB_QUEUE_FREE] = true,
	},
	[NVFAB_QUEUE_STOPPED] = {
		[NVFAB_QUEUE_FREE] = true,
	},
};

static void nvfab_queue_transition_table_test(struct kunit *test)
{
	int old, new;

	for (old = 0; old < NR_STATES; old++)
		for (new = 0; new < NR_STATES; new++)
			KUNIT_EXPECT_EQ_MSG(test,
					    nvfab_queue_transition_ok(old, new),
					    allowed[old][new],
					    "%d -> %d", old, new);
	/* out of range: never */
	KUNIT_EXPECT_FALSE(test, nvfab_queue_transition_ok(NVFAB_QUEUE_LIVE,
							   NR_STATES));
}

struct qs_fixture {
	struct nvfab_ctrl ctrl;
	atomic_t state[2];
};

static struct nvfab_ctrl *qs_ctrl(struct kunit *test)
{
	struct qs_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ctrl.queue_state = f->state;
	f->ctrl.nr_queue_state = ARRAY_SIZE(f->state);
	return &f->ctrl;
}

/* The life of a queue, and its errors. */
static void nvfab_change_queue_state_test(struct kunit *test)
{
	struct nvfab_ctrl *ctrl = qs_ctrl(test);

	KUNIT_EXPECT_EQ(test, nvfab_queue_state(ctrl, 1), NVFAB_QUEUE_FREE);
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, LIVE));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, STARTING));
	KUNIT_EXPECT_FALSE(test, nvfab_queue_live(ctrl, 1));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, LIVE));
	KUNIT_EXPECT_TRUE(test, nvfab_queue_live(ctrl, 1));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, CONNECTED));
	/* a protocol error, then the connection closing: failed once */
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, FAILED));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, FAILED));
	KUNIT_EXPECT_FALSE(test, nvfab_queue_live(ctrl, 1));
	/* stopped once, by whoever wins */
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, STOPPED));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, STOPPED));
	/* an error after the stop is nobody's */
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, FAILED));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, FREE));
	/* the other queue never moved */
	KUNIT_EXPECT_EQ(test, nvfab_queue_state(ctrl, 0), NVFAB_QUEUE_FREE);
}

/* A queue that fails before its Connect completes is never CONNECTED. */
static void nvfab_queue_connect_after_failure_test(struct kunit *test)
{
	struct nvfab_ctrl *ctrl = qs_ctrl(test);

	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 0, STARTING));
	/* a CQE before the Connect, while the RDMA queue starts */
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, FAILED));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 0, LIVE));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 0, CONNECTED));
	/* the failed start is undone */
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, FREE));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, STARTING));
}

/*
 * A Connect that asked for DH-HMAC-CHAP: AUTHENTICATING until the
 * transaction succeeds; a failure in it fails the queue once; a connected
 * queue is re-authenticated where it is (never back to AUTHENTICATING).
 */
static void nvfab_queue_authenticating_test(struct kunit *test)
{
	struct nvfab_ctrl *ctrl = qs_ctrl(test);

	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 1, STARTING));
	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 1, LIVE));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, AUTHENTICATING));
	/* the connection is up: the transport sends the transaction */
	KUNIT_EXPECT_TRUE(test, nvfab_queue_live(ctrl, 1));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, AUTHENTICATING));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 1, CONNECTED));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 1, AUTHENTICATING));

	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 0, STARTING));
	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 0, LIVE));
	KUNIT_ASSERT_TRUE(test, CHANGE(ctrl, 0, AUTHENTICATING));
	/* the connection closes during the transaction */
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, FAILED));
	KUNIT_EXPECT_FALSE(test, CHANGE(ctrl, 0, CONNECTED));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, STOPPED));
	KUNIT_EXPECT_TRUE(test, CHANGE(ctrl, 0, FREE));
}

static struct kunit_case nvfab_queue_state_cases[] = {
	KUNIT_CASE(nvfab_queue_transition_table_test),
	KUNIT_CASE(nvfab_change_queue_state_test),
	KUNIT_CASE(nvfab_queue_connect_after_failure_test),
	KUNIT_CASE(nvfab_queue_authenticating_test),
	{}
};

static struct kunit_suite nvfab_queue_state_suite = {
	.name = "nvfab_queue_state",
	.test_cases = nvfab_queue_state_cases,
};

kunit_test_suite(nvfab_queue_state_suite);

MODULE_DESCRIPTION("KUnit table for nvfab's queue state machine");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
NVFAB_IMPORT_KUNIT();
