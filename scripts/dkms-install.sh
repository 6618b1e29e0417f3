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

if [ "$(dpkg-query -W -f '${db:Status-Status}' nvfab-dkms 2>/dev/null)" = installed ]; then
	echo "dkms-install: the nvfab-dkms package is installed; remove it first (dpkg -r nvfab-dkms)" >&2
	exit 1
fi
# Keep dkms.conf in step with VERSION and the module list.
if ! "$root/scripts/gen-dkms-conf.sh" | cmp -s - "$root/dkms.conf"; then
	echo "dkms-install: dkms.conf is stale; run 'make dkms.conf'" >&2
	exit 1
fi

if dkms status -m nvfab -v "$version" 2>/dev/null | grep -q .; then
	dkms remove -m nvfab -v "$version" --all >/dev/null
fi
rm -rf "$src"
"$root/scripts/dkms-source.sh" "$src"

dkms add -m nvfab -v "$version"
dkms build -m nvfab -v "$version" -k "$kver"
dkms install -m nvfab -v "$version" -k "$kver" --force
