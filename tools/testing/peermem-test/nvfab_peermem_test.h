/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User interface of the nvfab-peermem-test module (tools/testing/vm/README.md,
 * "The peer-memory test provider").
 *
 * /dev/nvfab-peermem-test: mmap(len, offset) with MAP_SHARED gives a "device
 * buffer": stand-in host pages that nvfab-peermem maps to the device memory
 * at byte (window_offset + offset) of the ivshmem BAR 2, window_offset being
 * the module's read-only parameter. len at most NVFAB_PEERMEM_TEST_MAX_LEN,
 * offset + len within the window (window_size).
 *
 * NVFAB_PEERMEM_TEST_REVOKE: the argument is an address inside a buffer
 * mapped through the same open file; the buffer's claim is revoked
 * (nvfab_peer_revoke()): I/O on it not yet DMA-mapped, including I/O
 * submitted before but still queued, and all later I/O fails with
 * EREMOTEIO. The ioctl returns once the I/O already mapped has ended.
 *
 * The request number is 0x4ee0 (_IO('N', 0xe0)); Python uses the number.
 */
#ifndef _NVFAB_PEERMEM_TEST_H
#define _NVFAB_PEERMEM_TEST_H

#include <linux/ioctl.h>

#define NVFAB_PEERMEM_TEST_DEV		"/dev/nvfab-peermem-test"
#define NVFAB_PEERMEM_TEST_MAX_LEN	(4UL << 20)

#define NVFAB_PEERMEM_TEST_REVOKE	_IO('N', 0xe0)

#endif /* _NVFAB_PEERMEM_TEST_H */
