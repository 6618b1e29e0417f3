#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-uninstall.sh: undo make dkms-install: `dkms remove --all` of this
# VERSION (the modules, for every kernel) and rm -rf
# /usr/src/nvfab-<VERSION>. Nothing to remove is not an error. An
# installed nvfab-dkms package owns that source: remove the package
# instead (dpkg -r nvfab-dkms). Needs root and dkms.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")

command -v dkms >/dev/null || { echo "dkms-uninstall: dkms is not installed" >&2; exit 1; }
if [ "$(dpkg-query -W -f '${db:Status-Status}' nvfab-dkms 2>/dev/null)" = installed ]; then
	echo "dkms-uninstall: nvfab $version comes from the nvfab-dkms package; run 'dpkg -r nvfab-dkms'" >&2
	exit 1
fi
if [ -d "/var/lib/dkms/nvfab/$version" ]; then
	dkms remove -m nvfab -v "$version" --all
fi
rm -rf "/usr/src/nvfab-$version"
echo "dkms-uninstall: nvfab $version removed"
