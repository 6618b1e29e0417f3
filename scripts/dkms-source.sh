#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-source.sh DEST
#
# Copy the source DKMS builds from (what dkms.conf's MAKE needs: Kbuild,
# Makefile, VERSION, dkms.conf, drivers/, include/, scripts/) into DEST,
# which must not exist yet, without build products, the generated
# include/nvfab/conftest.h or the host tests. dkms.conf must be up to date
# with VERSION and the module list. Used by dkms-install.sh (into
# /usr/src/nvfab-<VERSION>) and mkdeb.sh (into the package tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: dkms-source.sh DEST}

if ! "$root/scripts/gen-dkms-conf.sh" | cmp -s - "$root/dkms.conf"; then
	echo "dkms-source: dkms.conf is stale; run 'make dkms.conf'" >&2
	exit 1
fi
[ ! -e "$dest" ] || { echo "dkms-source: $dest exists already" >&2; exit 1; }

mkdir -p "$dest"
(cd "$root" && cp -a Kbuild Makefile VERSION dkms.conf drivers include scripts "$dest/")
rm -rf "$dest/include/nvfab/conftest.h" "$dest/scripts/tests"
find "$dest" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '*.order' -o -name Module.symvers \) -delete
