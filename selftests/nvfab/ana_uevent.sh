#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ANA-change uevent: two paths to nvmet, port 1's ANA group moved
# optimized -> inaccessible -> optimized on the target. A netlink listener
# (uevent_listen.py) must see, for each namespace, one KOBJ_CHANGE from
# path 1's controller per change, with the state, group, NSID, path and
# head, and none from path 2, whose state never changed.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

TMP=$(mktemp -d /run/nvfab-uevent.XXXXXX)
LPID=
cleanup() {
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null
	rm -rf "$TMP"
	nvfab_tcp_cleanup
}
trap cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 11

# path_state C NSID: ana_state of NSID's path through controller nvfabC,
# found through the head of NSID (path disks have no nsid attribute).
path_state() {
	local h l v
	for h in /sys/block/nvfab*n*; do
		[ -e "$h/nsid" ] || continue
		read -r v <"$h/nsid"
		[ "$v" = "$2" ] || continue
		for l in "$h"/multipath/*; do
			case "${l##*/}" in
			*c"$1"n*) read -r v <"/sys/block/${l##*/}/ana_state" && echo "$v"
				return 0 ;;
			esac
		done
	done
	return 1
}
host_sees() { test "$(path_state "$C1" 1)" = "$1" -a "$(path_state "$C1" 2)" = "$1"; }

count() { grep -E -c -- "$1" "$TMP/events" || true; }

dmesg_canary_start
topo_up 2 && nvmet_setup 2
ktap_check "target and modules up" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp
ok=1
nvfab_connect_path 1 ",reconnect_delay=1" || ok=0
CT1=$CTRL
nvfab_connect_path 2 ",reconnect_delay=1" || ok=0
CT2=$CTRL
ktap_check "2 paths connected" test "$ok" = 1
C1=${CT1##*/nvfab}
C2=${CT2##*/nvfab}
both_ns() { path_state "$C1" 2 >/dev/null && path_state "$C2" 2 >/dev/null; }
ktap_check "both namespaces on both paths" busywait 20000 both_ns

python3 -B -S "$(dirname "$0")/uevent_listen.py" "$TMP/ready" "$TMP/events" 120 &
LPID=$!
ktap_check "uevent listener bound" busywait 60000 test -e "$TMP/ready"

nvmet_set_ana 1 inaccessible
ktap_check "host sees port 1 inaccessible" busywait 20000 host_sees inaccessible
nvmet_set_ana 1 optimized
ktap_check "host sees port 1 optimized again" busywait 20000 host_sees optimized
# The events are sent before sysfs changes; give the listener a moment.
sleep 1
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
LPID=
sed 's/^/# event: /' "$TMP/events"

re1="^ACTION=change DEVPATH=[^ ]*/nvfab$C1 SUBSYSTEM=nvfab .*NVFAB_EVENT=ana_change NVFAB_ANA_GRPID=1"
ktap_check "one inaccessible event per namespace from nvfab$C1 ($(count "$re1 NVFAB_ANA_STATE=inaccessible "))" \
	test "$(count "$re1 NVFAB_ANA_STATE=inaccessible NVFAB_NSID=[12] NVFAB_PATH=nvfab[0-9]+c${C1}n[12] NVFAB_HEAD=nvfab[0-9]+n[12]")" = 2
ktap_check "one optimized event per namespace from nvfab$C1 ($(count "$re1 NVFAB_ANA_STATE=optimized "))" \
	test "$(count "$re1 NVFAB_ANA_STATE=optimized NVFAB_NSID=[12] NVFAB_PATH=nvfab[0-9]+c${C1}n[12] NVFAB_HEAD=nvfab[0-9]+n[12]")" = 2
ktap_check "no event from nvfab$C2, whose state did not change" \
	test "$(count "DEVPATH=[^ ]*/nvfab$C2 ")" = 0
nvfab_delete_all
ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
