// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_F_SHOULD_MERGE: a tag set asks for bio merging with
 * BLK_MQ_F_SHOULD_MERGE. Linux 6.14 ("block: remove BLK_MQ_F_SHOULD_MERGE")
 * made merging the default (a queue opts out with QUEUE_FLAG_NOMERGES) and
 * removed the flag.
 */
#include <linux/blk-mq.h>

unsigned int nvfab_conftest(void);
unsigned int nvfab_conftest(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
