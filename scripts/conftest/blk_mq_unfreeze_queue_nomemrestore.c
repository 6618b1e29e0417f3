// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_UNFREEZE_QUEUE_NOMEMRESTORE: since Linux 6.14 ("block:
 * force noio scope in blk_mq_freeze_queue") blk_mq_freeze_queue() enters a
 * noio allocation scope and returns its flags, blk_mq_unfreeze_queue()
 * takes them back, and a queue frozen with blk_freeze_queue_start() is
 * unfrozen with blk_mq_unfreeze_queue_nomemrestore(). Before, the unfreeze
 * took the queue alone.
 */
#include <linux/blk-mq.h>

void nvfab_conftest(struct request_queue *q);
void nvfab_conftest(struct request_queue *q)
{
	blk_mq_unfreeze_queue_nomemrestore(q);
}
