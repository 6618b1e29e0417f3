#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix-image.sh MDIR: fetch Debian's kernel image of the release that
# matrix-kernel.sh prepared in MDIR (MDIR/info: release, version), so that
# the stock-kernel guest can boot the newest kernel nvfab supports, and
# print the image directory IDIR on stdout:
#
#   IDIR/vmlinuz                  the kernel
#   IDIR/lib/modules/<release>/   its modules, depmod'ed on this machine
#   IDIR/info                     release, version, packages
#
# run-vm.sh boots it with NVFAB_STOCK_IMAGE=IDIR (STOCK_KVER=<release>):
# the guest bind-mounts IDIR/lib/modules over /lib/modules.
#
# Nothing is installed on the host: the packages (linux-image-<release>
# and, since Debian 13 split it, the linux-binary-, linux-modules- and
# linux-base-<release> it depends on) are downloaded with the private apt
# configuration of matrix-kernel.sh and unpacked with dpkg-deb outside the
# package database. Cached in $NVFAB_CACHE/image-<version>/ (about 140 MB:
# the modules stay xz-compressed); other image-* directories are removed once a new one is
# ready. A cached image needs no network.
#
#   NVFAB_MATRIX_MIRROR, NVFAB_MATRIX_SUITE   as for matrix-kernel.sh
set -euo pipefail
shopt -s nullglob
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: $0 MDIR (a tree from matrix-kernel.sh)"
mdir=$1
[ -f "$mdir/info" ] || die "$mdir/info missing: not a matrix-kernel.sh tree"
release=$(sed -n 's/^release=//p' "$mdir/info")
ver=$(sed -n 's/^version=//p' "$mdir/info")
if [ -z "$release" ] || [ -z "$ver" ]; then
	die "$mdir/info names no release or version"
fi

dir=$NVFAB_CACHE/image-$ver
if [ -f "$dir/.done" ]; then
	log "matrix image: $release cached at $dir"
	echo "$dir"
	exit 0
fi

matrix_apt_setup "${NVFAB_MATRIX_MIRROR:-http://deb.debian.org/debian}" \
	"${NVFAB_MATRIX_SUITE:-trixie-backports}"
timeout 120 apt-get update -qq >"$NVFAB_CACHE/matrix-apt/update.log" 2>&1 ||
	die "cannot reach the archive (see $NVFAB_CACHE/matrix-apt/update.log)"

image=linux-image-$release
deps=$(apt-cache show "$image=$ver" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1) ||
	die "$image $ver is not in the archive"
# The packages of this release that the image depends on (Debian 13:
# linux-binary-, linux-modules-, linux-base-<release>); none before that.
pkgs=("$image")
for p in $(tr ',|' '\n' <<<"$deps" | sed 's/[[:space:]]*(.*//; s/^[[:space:]]*//'); do
	[[ $p == linux-*-"$release" ]] && pkgs+=("$p")
done

start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
log "matrix image: downloading ${pkgs[*]} $ver"
args=()
for p in "${pkgs[@]}"; do args+=("$p=$ver"); done
(cd "$dir/debs" && timeout 600 apt-get download -qq "${args[@]}") ||
	die "apt-get download of ${pkgs[*]} $ver failed"
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done

# Debian 12 puts the kernel in /boot and modules in /lib/modules; Debian
# 13 both in /usr/lib/modules/<release>/.
kimage=
for k in "$dir/root/boot/vmlinuz-$release" "$dir/root/usr/lib/modules/$release/vmlinuz"; do
	[ -f "$k" ] && kimage=$k
done
[ -n "$kimage" ] || die "${pkgs[*]} hold no vmlinuz for $release"
moddir=
for m in "$dir/root/lib/modules/$release" "$dir/root/usr/lib/modules/$release"; do
	[ -d "$m/kernel" ] && moddir=$m
done
[ -n "$moddir" ] || die "${pkgs[*]} hold no modules for $release"

mkdir -p "$dir/lib/modules"
mv "$kimage" "$dir/vmlinuz"
mv "$moddir" "$dir/lib/modules/$release"
rm -rf "$dir/root" "$dir/debs"
depmod -b "$dir" "$release" || die "depmod of $release failed"

cat >"$dir/info" <<EOF
release=$release
version=$ver
packages=${pkgs[*]}
fetch_seconds=$(($(date +%s) - start))
EOF
touch "$dir/.done"
log "matrix image: $release ready in $(($(date +%s) - start)) s at $dir"

for d in "$NVFAB_CACHE"/image-*/; do
	d=${d%/}
	[ "$d" = "$dir" ] || rm -rf "$d"
done
echo "$dir"
