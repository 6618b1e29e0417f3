// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_INIT_REQUEST_INT_NODE: blk_mq_ops.init_request() gets the
 * NUMA node as an int (NUMA_NO_NODE is -1), no longer as an unsigned int.
 * Changed after 6.12; Debian's 7.3 has it.
 */
#include <linux/blk-mq.h>
#include <linux/build_bug.h>

static_assert(__same_type(((struct blk_mq_ops *)NULL)->init_request,
			  int (*)(struct blk_mq_tag_set *, struct request *,
				  unsigned int, int)));
