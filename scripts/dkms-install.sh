#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-install.sh [KVER]
#
# Install nvfab for kernel KVER (default: the running kernel) exactly as a
# user would: copy the source to /usr/src/nvfab-<VERSION>, then
# `dkms add`, `dkms build -k KVER` and `dkms install -k KVER`. A previous
# registration of the same version is removed first, so the command can be
# repeated. Needs root, dkms and the kernel's headers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-$(uname -r)}
version=$(cat "$root/VERSION")
src=/usr/src/nvfab-$version

command -v dkms >/dev/null || { echo "dkms-install: dkms is not installed" >&2; exit 1; }
[ -d "/lib/modules/$kver/build" ] || [ -d "/usr/src/linux-headers-$kver" ] || {
	echo "dkms-install: no headers for $kver (apt-get install linux-headers-$kver)" >&2
	exit 1
}

# Keep dkms.conf in step with VERSION and the module list.
"$root/scripts/gen-dkms-conf.sh" >"$root/build-dkms.conf.tmp"
if ! cmp -s "$root/build-dkms.conf.tmp" "$root/dkms.conf"; then
	rm -f "$root/build-dkms.conf.tmp"
	echo "dkms-install: dkms.conf is stale; run 'make dkms.conf'" >&2
	exit 1
fi
rm -f "$root/build-dkms.conf.tmp"

if dkms status -m nvfab -v "$version" 2>/dev/null | grep -q .; then
	dkms remove -m nvfab -v "$version" --all >/dev/null
fi
rm -rf "$src"
mkdir -p "$src"
(cd "$root" && cp -a Kbuild Makefile VERSION dkms.conf drivers include scripts "$src/")
rm -f "$src/include/nvfab/conftest.h"
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '*.order' -o -name Module.symvers \) -delete

dkms add -m nvfab -v "$version"
dkms build -m nvfab -v "$version" -k "$kver"
dkms install -m nvfab -v "$version" -k "$kver" --force
