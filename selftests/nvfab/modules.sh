#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload the nvfab modules repeatedly: the control node and the
# classes appear and disappear, reference counts return to zero and the
# kernel log stays clean.
set -u
. "$(dirname "$0")/lib.sh"

MODS=(nvfab-core nvfab-fabrics)
ROUNDS=${NVFAB_MODULE_ROUNDS:-3}

cleanup() {
	nvfab_unload nvfab-fabrics nvfab-core >/dev/null 2>&1
}
trap cleanup EXIT

require_root
ktap_header
ktap_set_plan 9
dmesg_canary_start
cleanup

ktap_check "modules load" nvfab_load "${MODS[@]}"
ktap_check "/dev/nvfab-fabrics is a char device" test -c /dev/nvfab-fabrics
mode=$(stat -c %a /dev/nvfab-fabrics 2>/dev/null)
ktap_check "/dev/nvfab-fabrics mode 600 (got $mode)" test "$mode" = 600
ktap_check "class nvfab registered" test -d /sys/class/nvfab
ktap_check "class nvfab-subsystem registered" test -d /sys/class/nvfab-subsystem

ok=1
for ((i = 0; i < ROUNDS; i++)); do
	nvfab_unload nvfab-fabrics nvfab-core || { ok=0; break; }
	if [ -e /dev/nvfab-fabrics ] || [ -d /sys/class/nvfab ]; then
		ktap_diag "round $i: node or class left behind after unload"
		ok=0
		break
	fi
	nvfab_load "${MODS[@]}" || { ok=0; break; }
	# open/close with nothing written must not pin the module
	cat /dev/nvfab-fabrics >/dev/null || { ok=0; break; }
done
ktap_check "$ROUNDS unload/load rounds" test "$ok" = 1
ktap_check "refcnt of nvfab_fabrics is 0" test "$(nvfab_refcnt nvfab-fabrics)" = 0

nvfab_unload nvfab-fabrics nvfab-core
gone() { ! nvfab_mod_loaded nvfab-core && ! test -e /dev/nvfab-fabrics; }
ktap_check "final unload removes everything" gone
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
