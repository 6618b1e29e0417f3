// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_HRTIMER_SETUP: hrtimer_setup() initialises a timer and sets its
 * callback in one call. Linux 6.13 added it ("hrtimers: Introduce
 * hrtimer_setup() to replace hrtimer_init()"); Linux 6.15 removed
 * hrtimer_init(), so that a timer without a callback cannot be set up.
 */
#include <linux/hrtimer.h>

static enum hrtimer_restart nvfab_conftest_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

void nvfab_conftest(struct hrtimer *timer);
void nvfab_conftest(struct hrtimer *timer)
{
	hrtimer_setup(timer, nvfab_conftest_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}
