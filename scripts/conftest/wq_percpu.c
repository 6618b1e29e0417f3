// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_WQ_PERCPU: alloc_workqueue() takes WQ_PERCPU, the flag that asks
 * for a per-CPU workqueue explicitly. Linux 6.17 added it ("workqueue: Add
 * new WQ_PERCPU flag") on the way to unbound-by-default workqueues, and
 * later 6.12.y took it (Debian's 6.12.117 has it; 6.12.0 does not). In
 * 7.3 a workqueue with neither WQ_PERCPU nor WQ_UNBOUND gets a WARN at
 * allocation (seen with Debian's 7.3 kernel when nvfab-tcp loaded).
 */
#include <linux/workqueue.h>

unsigned int nvfab_conftest(void);
unsigned int nvfab_conftest(void)
{
	return WQ_PERCPU;
}
