// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_RQ_MAP_KERN_NO_QUEUE: blk_rq_map_kern() takes the request
 * alone, without its queue. Linux 6.16 dropped the queue argument
 * ("block: remove the q argument from blk_rq_map_kern").
 */
#include <linux/blk-mq.h>
#include <linux/build_bug.h>

static_assert(__same_type(&blk_rq_map_kern,
			  int (*)(struct request *, void *, unsigned int,
				  gfp_t)));
