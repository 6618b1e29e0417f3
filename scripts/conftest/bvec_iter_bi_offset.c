// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BVEC_ITER_BI_OFFSET: the byte offset into the current bio_vec of a
 * struct bvec_iter is bi_offset; it was bi_bvec_done (the bytes of that
 * bio_vec already done, the same number). Renamed after 6.12;
 * Debian's 7.3 has it.
 */
#include <linux/bvec.h>

unsigned int nvfab_conftest(const struct bvec_iter *iter);
unsigned int nvfab_conftest(const struct bvec_iter *iter)
{
	return iter->bi_offset;
}
