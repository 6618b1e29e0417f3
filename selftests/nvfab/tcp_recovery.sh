#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP error recovery against nvmet in its own network namespace:
# a target port removed and restored under fio verify, a port that never
# comes back (ctrl_loss_tmo), fast_io_fail_tmo, a silent cut found by
# keep-alive, and reset and delete during I/O. Nothing may hang.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

FIOPID=
cleanup() {
	[ -n "$FIOPID" ] && kill "$FIOPID" 2>/dev/null
	nvfab_tcp_cleanup
}
trap cleanup EXIT

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
ktap_header
ktap_set_plan 19

connect() { nvfab_connect "$@"; }

state() { cat "$CTRL/state" 2>/dev/null || echo gone; }
is_state() { test "$(state)" = "$1"; }
not_live() { ! is_state live; }
gone() { test ! -e "$CTRL"; }

delete_ctrl() {
	[ -e "$CTRL/delete_controller" ] && echo 1 >"$CTRL/delete_controller"
	busywait 30000 gone
}

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "target and modules up" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp

# 1. Port removed and restored under fio verify.
connect ",reconnect_delay=1,ctrl_loss_tmo=60"
dev=$DEV
fio --name=cut --filename="$dev" --allow_file_create=0 --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=4 --size=16m --time_based --runtime=25 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
	>/tmp/fio-cut.out 2>&1 &
FIOPID=$!
sleep 3
nvmet_port_disable 1
ktap_check "port removed: controller leaves live" busywait 20000 not_live
sleep 2
nvmet_port_enable 1
ktap_check "port restored: controller live again" busywait 40000 is_state live
wait "$FIOPID"
rc=$?
FIOPID=
grep -E 'err=|verify' /tmp/fio-cut.out | head -3 | sed 's/^/# fio: /'
ktap_check "fio verify across the cut: 0 errors (rc $rc)" test "$rc" = 0
ktap_check "delete" delete_ctrl

# 2. Port never restored: removed at ctrl_loss_tmo, pending I/O fails.
connect ",reconnect_delay=1,ctrl_loss_tmo=4"
dev=$DEV
nvmet_port_disable 1
busywait 20000 not_live
t0=$(epoch_ms)
timeout 60 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
rc=$?
ktap_check "I/O during the outage fails, no hang (dd rc $rc)" test "$rc" != 0 -a "$rc" != 124
ktap_check "controller removed after ctrl_loss_tmo" busywait 30000 gone
ktap_diag "removed $(($(epoch_ms) - t0)) ms after the first failed I/O started"
nvmet_port_enable 1

# 3. fast_io_fail_tmo=2: I/O fails after about 2 s, not ctrl_loss_tmo.
connect ",reconnect_delay=1,ctrl_loss_tmo=60,fast_io_fail_tmo=2"
dev=$DEV
nvmet_port_disable 1
busywait 20000 not_live
t0=$(epoch_ms)
timeout 60 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
rc=$?
ms=$(($(epoch_ms) - t0))
ktap_diag "I/O failed after $ms ms"
ktap_check "I/O fails (dd rc $rc)" test "$rc" != 0 -a "$rc" != 124
ktap_check "within fast_io_fail_tmo + 6 s ($ms ms), far below ctrl_loss_tmo" test "$ms" -lt 8000
nvmet_port_enable 1
ktap_check "controller reconnects after the outage" busywait 40000 is_state live
ktap_check "I/O works again" dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none
ktap_check "delete" delete_ctrl

# 4. Silent cut (veth down): keep-alive notices within KATO/2 + KATO + 1 s.
kato=5
connect ",keep_alive_tmo=$kato,reconnect_delay=1,ctrl_loss_tmo=30"
# Poll without forking (lib.sh's nap).
echo "nvfab selftest: cutting path 1 silently" >/dev/kmsg
topo_cut 1
t0=${EPOCHREALTIME/./}
while read -r s <"$CTRL/state" 2>/dev/null && [ "$s" = live ] &&
	[ $((${EPOCHREALTIME/./} - t0)) -lt 30000000 ]; do
	nap 0.02
done
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
limit=$((kato * 1000 / 2 + kato * 1000 + 1000))
ktap_diag "silent cut detected after $ms ms (limit $limit ms)"
dmesg | grep -E 'cutting path 1 silently|keep-alive unanswered' | tail -2 | sed 's/^/# kernel: /'
ktap_check "keep-alive detects the silent cut within ${limit} ms" test "$ms" -le "$limit"
topo_restore 1
ktap_check "reconnects after the link returns" busywait 40000 is_state live
delete_ctrl

# 5. Reset and delete during I/O.
connect ",reconnect_delay=1"
dev=$DEV
fio --name=reset --filename="$dev" --allow_file_create=0 --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=8 --size=16m --time_based --runtime=12 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
	>/tmp/fio-reset.out 2>&1 &
FIOPID=$!
sleep 3
echo 1 >"$CTRL/reset_controller"
sleep 2
echo 1 >"$CTRL/reset_controller"
wait "$FIOPID"
rc=$?
FIOPID=
ktap_check "fio verify across two resets: 0 errors (rc $rc)" test "$rc" = 0
fio --name=del --filename="$dev" --allow_file_create=0 --ioengine=libaio --direct=1 --rw=randread \
	--bs=4k --iodepth=8 --size=16m --time_based --runtime=30 \
	>/dev/null 2>&1 &
FIOPID=$!
sleep 3
ktap_check "delete during I/O" delete_ctrl
t0=$(epoch_ms)
timeout 60 tail --pid="$FIOPID" -f /dev/null
ms=$(($(epoch_ms) - t0))
# Its bios fail when the last path goes (they used to wait ~37 s).
ktap_check "fio ends within 10 s of the controller being gone ($ms ms)" \
	bash -c "! kill -0 $FIOPID 2>/dev/null && test $ms -lt 10000"
FIOPID=

ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
