// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_RQ_END_IO_COMP_BATCH: an rq_end_io_fn also receives the completion
 * batch (const struct io_comp_batch *, NULL outside a batch). Added after
 * 6.12 ("block: pass io_comp_batch to rq_end_io_fn callback", posted in
 * January 2026); Debian's 7.3 has it.
 */
#include <linux/blk-mq.h>
#include <linux/build_bug.h>

static enum rq_end_io_ret
nvfab_conftest_end_io(struct request *rq, blk_status_t status,
		      const struct io_comp_batch *iob)
{
	return RQ_END_IO_NONE;
}

static_assert(__same_type(&nvfab_conftest_end_io,
			  ((struct request *)NULL)->end_io));
