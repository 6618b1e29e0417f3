// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_RQ_MAP_SG_NO_QUEUE: blk_rq_map_sg() takes the request and the
 * scatterlist, without the request's queue. Linux 6.15 dropped the queue
 * argument ("block: remove the q argument from blk_rq_map_sg").
 */
#include <linux/blk-mq.h>
#include <linux/build_bug.h>

static_assert(__same_type(&blk_rq_map_sg,
			  int (*)(struct request *, struct scatterlist *)));
