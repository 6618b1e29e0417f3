// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_KERNEL_BIND_SOCKADDR_UNSIZED: kernel_bind() and kernel_connect()
 * take a struct sockaddr_unsized *, not a struct sockaddr *. Changed after
 * 6.12 by the series that introduced struct sockaddr_unsized for the
 * bind() and connect() callbacks; Debian's 7.3 has it.
 */
#include <linux/build_bug.h>
#include <linux/net.h>

static_assert(__same_type(&kernel_bind,
			  int (*)(struct socket *, struct sockaddr_unsized *,
				  int)));
static_assert(__same_type(&kernel_connect,
			  int (*)(struct socket *, struct sockaddr_unsized *,
				  int, int)));
