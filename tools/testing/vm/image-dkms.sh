#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# image-dkms.sh IDIR KDIR: build nvfab with DKMS for the release of the
# unpacked kernel image IDIR (matrix-image.sh) against its prepared tree
# KDIR (matrix-kernel.sh), as `dkms build` does for an installed kernel,
# and put the modules where `dkms install` would:
# IDIR/lib/modules/<release>/updates/dkms/, then depmod. The stock-kernel
# guest booted with NVFAB_STOCK_IMAGE=IDIR then loads them with modprobe.
#
# nvfab must be registered with DKMS (scripts/dkms-install.sh ran). Only
# the build is DKMS's: the modules are copied into IDIR, nothing goes to
# this machine's /lib/modules, and the registration for <release> is
# removed again afterwards. Prints the modules' directory.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: $0 IDIR KDIR"
idir=$1
kdir=$2
release=$(sed -n 's/^release=//p' "$idir/info" 2>/dev/null) || true
[ -n "$release" ] || die "$idir/info names no release: not a matrix-image.sh directory"
got=$(cat "$kdir/include/config/kernel.release" 2>/dev/null) || true
[ "$got" = "$release" ] || die "$kdir is ${got:-no prepared tree}, not $release"
version=$(cat "$REPO_ROOT/VERSION")
dkms status -m nvfab -v "$version" 2>/dev/null | grep -q . ||
	die "nvfab $version is not registered with DKMS (run scripts/dkms-install.sh first)"

built=/var/lib/dkms/nvfab/$version/$release/$(uname -m)/module
dest=$idir/lib/modules/$release/updates/dkms
cleanup() { dkms remove -m nvfab -v "$version" -k "$release" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
dkms build -m nvfab -v "$version" -k "$release" --kernelsourcedir "$kdir" >&2 ||
	die "dkms build for $release failed"
mods=("$built"/*.ko*)
[ -e "${mods[0]}" ] || die "dkms build left no modules in $built"
rm -rf "$dest"
mkdir -p "$dest"
cp "${mods[@]}" "$dest/"
depmod -b "$idir" "$release" || die "depmod of $release failed"
log "image dkms: ${#mods[@]} modules for $release in $dest"
echo "$dest"
