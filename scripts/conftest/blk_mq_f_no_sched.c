// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_F_NO_SCHED: a tag set keeps its queues off any I/O scheduler
 * with BLK_MQ_F_NO_SCHED (NVMe admin queues). Removed after 6.12: a queue
 * without a gendisk, such as an admin queue, never gets a scheduler (the
 * kernel's own NVMe admin tag set in 7.3 sets no flag). Debian's 7.3
 * lacks it.
 */
#include <linux/blk-mq.h>

unsigned int nvfab_conftest(void);
unsigned int nvfab_conftest(void)
{
	return BLK_MQ_F_NO_SCHED;
}
