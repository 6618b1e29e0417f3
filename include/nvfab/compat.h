/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API compatibility for nvfab. Every shim lives here, keyed on the
 * HAVE_* macros that scripts/conftest.sh writes into <nvfab/conftest.h>
 * after compiling probes against the target kernel. No .c file tests
 * kernel versions.
 */
#ifndef _NVFAB_COMPAT_H
#define _NVFAB_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/build_bug.h>
#include <linux/bvec.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/workqueue.h>

#include <nvfab/conftest.h>

/*
 * Symbol namespaces. Until 6.13 the namespace argument was a bare token
 * that the macros stringified; since 6.13 it is a string literal.
 */
#ifdef HAVE_EXPORT_NS_BARE_TOKEN
#define EXPORT_SYMBOL_NVFAB(sym)	EXPORT_SYMBOL_NS_GPL(sym, NVFAB)
#define NVFAB_IMPORT()		MODULE_IMPORT_NS(NVFAB)
#define NVFAB_IMPORT_KUNIT()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_NVFAB(sym)	EXPORT_SYMBOL_NS_GPL(sym, "NVFAB")
#define NVFAB_IMPORT()		MODULE_IMPORT_NS("NVFAB")
#define NVFAB_IMPORT_KUNIT()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

/*
 * The code is written against the newest API; what follows gives the
 * older kernels (6.12) the same names. One block per probe in
 * scripts/conftest/, which names the change.
 */

/* Before WQ_PERCPU, every workqueue without WQ_UNBOUND was per-CPU. */
#ifndef HAVE_WQ_PERCPU
#define WQ_PERCPU	0
#endif

#ifndef HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* Ends a freeze begun with blk_freeze_queue_start(). */
#ifndef HAVE_BLK_MQ_UNFREEZE_QUEUE_NOMEMRESTORE
static inline void blk_mq_unfreeze_queue_nomemrestore(struct request_queue *q)
{
	blk_mq_unfreeze_queue(q);
}
#endif

/* Tag set flags that newer kernels dropped because they are the default. */
#ifdef HAVE_BLK_MQ_F_SHOULD_MERGE
#define NVFAB_BLK_MQ_F_MERGE		BLK_MQ_F_SHOULD_MERGE
#else
#define NVFAB_BLK_MQ_F_MERGE		0
#endif
#ifdef HAVE_BLK_MQ_F_NO_SCHED
#define NVFAB_BLK_MQ_F_NO_SCHED		BLK_MQ_F_NO_SCHED
#else
#define NVFAB_BLK_MQ_F_NO_SCHED		0
#endif

/**
 * nvfab_rq_map_kern() - map a kernel buffer into a passthrough request
 * @rq: the request, not yet started
 * @buf: the kernel buffer
 * @len: its length in bytes
 * @gfp: allocation flags for the bio
 *
 * blk_rq_map_kern() with the signature of Linux 6.16 and later.
 *
 * Context: process context; may sleep if @gfp allows it.
 * Return: 0, or the negative errno of blk_rq_map_kern().
 */
static inline int nvfab_rq_map_kern(struct request *rq, void *buf,
				    unsigned int len, gfp_t gfp)
{
#ifdef HAVE_BLK_RQ_MAP_KERN_NO_QUEUE
	return blk_rq_map_kern(rq, buf, len, gfp);
#else
	return blk_rq_map_kern(rq->q, rq, buf, len, gfp);
#endif
}

/**
 * nvfab_rq_map_sg() - map a request's data segments into a scatterlist
 * @rq: the request
 * @sglist: room for blk_rq_nr_phys_segments(@rq) entries
 *
 * blk_rq_map_sg() with the signature of Linux 6.15 and later.
 *
 * Context: any context.
 * Return: the number of scatterlist entries used.
 */
static inline int nvfab_rq_map_sg(struct request *rq,
				  struct scatterlist *sglist)
{
#ifdef HAVE_BLK_RQ_MAP_SG_NO_QUEUE
	return blk_rq_map_sg(rq, sglist);
#else
	return blk_rq_map_sg(rq->q, rq, sglist);
#endif
}

#ifdef HAVE_KERNEL_BIND_SOCKADDR_UNSIZED
#define NVFAB_SOCKADDR(ss)	((struct sockaddr_unsized *)(ss))
#else
#define NVFAB_SOCKADDR(ss)	((struct sockaddr *)(ss))
#endif

/**
 * nvfab_kernel_bind() - kernel_bind() on a socket address in storage
 * @sock: the socket
 * @ss: the address
 * @len: the length of @ss in bytes
 *
 * Context: process context; may sleep.
 * Return: what kernel_bind() returns: 0 or a negative errno.
 */
static inline int nvfab_kernel_bind(struct socket *sock,
				    struct sockaddr_storage *ss, int len)
{
	return kernel_bind(sock, NVFAB_SOCKADDR(ss), len);
}

/**
 * nvfab_kernel_connect() - kernel_connect() to a socket address in storage
 * @sock: the socket
 * @ss: the peer's address
 * @len: the length of @ss in bytes
 * @flags: O_NONBLOCK or 0
 *
 * Context: process context; may sleep.
 * Return: what kernel_connect() returns: 0 or a negative errno.
 */
static inline int nvfab_kernel_connect(struct socket *sock,
				       struct sockaddr_storage *ss, int len,
				       int flags)
{
	return kernel_connect(sock, NVFAB_SOCKADDR(ss), len, flags);
}

/**
 * nvfab_bvec_iter_offset() - bytes of the current bio_vec an iterator is past
 * @iter: the iterator
 *
 * Context: any.
 * Return: the offset in bytes into the bio_vec at @iter->bi_idx.
 */
static inline unsigned int nvfab_bvec_iter_offset(const struct bvec_iter *iter)
{
#ifdef HAVE_BVEC_ITER_BI_OFFSET
	return iter->bi_offset;
#else
	return iter->bi_bvec_done;
#endif
}

/*
 * Request end_io callbacks are written with the newest signature, which
 * also takes the completion batch. NVFAB_DEFINE_RQ_END_IO(fn); follows the
 * callback: on kernels whose rq_end_io_fn has no batch argument it
 * defines a two-argument wrapper. NVFAB_RQ_END_IO(fn) is what to store in
 * rq->end_io. Both forms check the type against the kernel's.
 */
#define NVFAB_RQ_END_IO_CHECK(fn)					\
	static_assert(__same_type(&(fn), ((struct request *)NULL)->end_io))
#ifdef HAVE_RQ_END_IO_COMP_BATCH
#define NVFAB_DEFINE_RQ_END_IO(fn)	NVFAB_RQ_END_IO_CHECK(fn)
#define NVFAB_RQ_END_IO(fn)		(fn)
#else
#define NVFAB_DEFINE_RQ_END_IO(fn)					\
static enum rq_end_io_ret fn##_nobatch(struct request *rq,		\
				       blk_status_t status)		\
{									\
	return fn(rq, status, NULL);					\
}									\
NVFAB_RQ_END_IO_CHECK(fn##_nobatch)
#define NVFAB_RQ_END_IO(fn)		(fn##_nobatch)
#endif

/*
 * blk_mq_ops.init_request() is written with the newest signature (the
 * NUMA node as an int). NVFAB_DEFINE_INIT_REQUEST(fn); follows it: on
 * kernels that pass an unsigned int it defines a wrapper.
 * NVFAB_INIT_REQUEST(fn) is what to store in the ops. Both forms check the
 * type against the kernel's.
 */
#define NVFAB_INIT_REQUEST_CHECK(fn)					\
	static_assert(__same_type(&(fn),				\
				  ((struct blk_mq_ops *)NULL)->init_request))
#ifdef HAVE_BLK_MQ_INIT_REQUEST_INT_NODE
#define NVFAB_DEFINE_INIT_REQUEST(fn)	NVFAB_INIT_REQUEST_CHECK(fn)
#define NVFAB_INIT_REQUEST(fn)		(fn)
#else
#define NVFAB_DEFINE_INIT_REQUEST(fn)					\
static int fn##_uintnode(struct blk_mq_tag_set *set, struct request *rq, \
			 unsigned int hctx_idx, unsigned int numa_node)	\
{									\
	return fn(set, rq, hctx_idx, numa_node);			\
}									\
NVFAB_INIT_REQUEST_CHECK(fn##_uintnode)
#define NVFAB_INIT_REQUEST(fn)		(fn##_uintnode)
#endif

/*
 * DH-HMAC-CHAP (core/auth.c), on kernels with nvme-auth. The code uses
 * 7.3's nvme_auth_parse_key(); 6.12 gets it from its own helper.
 */
#if IS_ENABLED(CONFIG_NVME_AUTH)
#include <linux/nvme-auth.h>

#ifndef HAVE_NVME_AUTH_PARSE_KEY
static inline int nvme_auth_parse_key(const char *secret,
				      struct nvme_dhchap_key **ret_key)
{
	/* 6.12's nvme_auth_generate_key() does not write to the secret */
	return nvme_auth_generate_key((u8 *)secret, ret_key);
}
#endif

#endif /* CONFIG_NVME_AUTH */

#endif /* _NVFAB_COMPAT_H */
