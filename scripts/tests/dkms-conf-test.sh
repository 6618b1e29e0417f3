#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of dkms.conf's NVIDIA block, read as dkms reads it (sourced by
# bash) against a fake /usr/src and /var/lib/dkms (NVFAB_USR_SRC,
# NVFAB_DKMS_TREE): no NVIDIA source, no nvfab-peermem-nvidia; NVIDIA's
# source (the stub nv-p2p.h) without a DKMS registration, the module and
# no BUILD_DEPENDS; registered by NVIDIA's DKMS package under the name
# Debian gives it, BUILD_DEPENDS names it, so that dkms builds NVIDIA's
# module first for each new kernel. KTAP; seconds.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export NVFAB_USR_SRC=$T/usr/src NVFAB_DKMS_TREE=$T/var/lib/dkms
unset NVIDIA_SRC
mkdir -p "$NVFAB_USR_SRC" "$NVFAB_DKMS_TREE"

# read_conf: what dkms sees, as "name|build_depends".
read_conf() {
	bash -c '. "$1"; echo "${BUILT_MODULE_NAME[7]-}|${BUILD_DEPENDS[*]-}"' _ "$REPO/dkms.conf"
}

ktap_header
ktap_set_plan 4
ktap_check "no NVIDIA source: no nvfab-peermem-nvidia, no BUILD_DEPENDS" [ "$(read_conf)" = "|" ]
src=$NVFAB_USR_SRC/nvidia-current-535.247.01
mkdir -p "$src/nvidia"
cp "$REPO/tools/testing/nv-p2p-stub/nv-p2p.h" "$src/nvidia/"
ktap_check "NVIDIA's source, not a DKMS module: nvfab-peermem-nvidia, no BUILD_DEPENDS" \
	[ "$(read_conf)" = "nvfab-peermem-nvidia|" ]
mkdir -p "$NVFAB_DKMS_TREE/nvidia-current/535.247.01" "$NVFAB_DKMS_TREE/other/1.0"
ln -s "$src" "$NVFAB_DKMS_TREE/nvidia-current/535.247.01/source"
ln -s "$NVFAB_USR_SRC" "$NVFAB_DKMS_TREE/other/1.0/source"
got=$(read_conf)
ktap_check "NVIDIA's DKMS module nvidia-current: BUILD_DEPENDS=nvidia-current (got '$got')" \
	[ "$got" = "nvfab-peermem-nvidia|nvidia-current" ]
got=$(NVIDIA_SRC=none read_conf)
ktap_check "NVIDIA_SRC=none: neither (got '$got')" [ "$got" = "|" ]
ktap_finish
