#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_io.sh on soft iWARP (siw) instead of soft RoCE: the same checks
# against an iWARP device (the iWARP CM and MPA private data, no RoCE
# GIDs). Skipped where the kernel has no siw (Debian's stock kernels).
export NVFAB_RDMA_PROVIDER=siw
exec "$(dirname "$0")/rdma_io.sh" "$@"
