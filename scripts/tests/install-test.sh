#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of the top-level make install / make uninstall: into a temp
# DESTDIR, every file lands where udev, systemd, systemd-modules-load, man
# and bash-completion look for it under PREFIX=/usr/local, and uninstall
# leaves no file behind. KTAP output; exits 0 only if every test passes.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"

D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
P=/usr/local
FILES=(
	"$P/sbin/nvfabctl"
	"$P/share/man/man8/nvfabctl.8"
	"$P/share/man/man5/nvfab.conf.5"
	"$P/share/bash-completion/completions/nvfabctl"
	"$P/lib/udev/rules.d/65-nvfab.rules"
	"$P/share/nvfab/examples/66-nvfab-ana-change.rules"
	"$P/lib/systemd/system/nvfab-boot.service"
	"$P/lib/modules-load.d/nvfab.conf"
)

ktap_header
ktap_set_plan $((${#FILES[@]} + 3))
make -s -C "$REPO" install DESTDIR="$D" >"$D.log" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/# /' "$D.log"
ktap_check "make install DESTDIR=... exits 0" [ "$rc" = 0 ]
for f in "${FILES[@]}"; do
	ktap_check "installed $f" [ -s "$D$f" ]
done
runs() { "$D$P/sbin/nvfabctl" version >/dev/null; }
ktap_check "the installed nvfabctl runs" runs
make -s -C "$REPO" uninstall DESTDIR="$D" >"$D.log" 2>&1
left=$(find "$D" -type f)
[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
ktap_check "make uninstall leaves no file" [ -z "$left" ]
rm -f "$D.log"
ktap_finish
