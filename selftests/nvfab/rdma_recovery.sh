#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/RDMA error recovery across a wire (rdma_wire_up: a soft RDMA device
# on each end of a veth pair, the traffic routed through it): the target's
# port removed and restored under fio verify, a port that never comes back
# (ctrl_loss_tmo), fast_io_fail_tmo, a silent cut under fio verify found
# by keep-alive and healed, reset and delete during I/O, the host's RDMA
# device removed under a live controller and during first connects, and
# the module unloaded with controllers present. Nothing may hang.
#   NVFAB_RDMA_PROVIDER=siw runs it on soft iWARP instead of soft RoCE.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/rdma_lib.sh"

FIOPID=
cleanup() {
	[ -n "$FIOPID" ] && kill "$FIOPID" 2>/dev/null
	rdma_wire_restore 2>/dev/null
	nvfab_rdma_cleanup
}
trap cleanup EXIT

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
command -v tc >/dev/null || ksft_skip_all "tc (iproute2) missing"
modprobe -n "$(rdma_provider_module)" 2>/dev/null ||
	ksft_skip_all "no $(rdma_provider_module) module"
modprobe -n nvmet-rdma 2>/dev/null || ksft_skip_all "no nvmet-rdma module"
ktap_header
ktap_set_plan 27

state() { cat "$CTRL/state" 2>/dev/null || echo gone; }
is_state() { test "$(state)" = "$1"; }
not_live() { ! is_state live; }
gone() { test ! -e "$CTRL"; }

delete_ctrl() {
	[ -e "$CTRL/delete_controller" ] && echo 1 >"$CTRL/delete_controller"
	busywait 30000 gone
}

fio_bg() { # name runtime [extra fio args]: verify in the background
	local name=$1 runtime=$2
	shift 2
	fio --name="$name" --filename="$DEV" --allow_file_create=0 --ioengine=libaio --direct=1 \
		--rw=randrw --bs=4k --iodepth=4 --size=16m --time_based \
		--runtime="$runtime" --verify=crc32c --verify_fatal=1 \
		--verify_backlog=32 "$@" >"/tmp/fio-rdma-$name.out" 2>&1 &
	FIOPID=$!
}

fio_wait() { # name: its exit status, with its errors as diagnostics
	local rc
	wait "$FIOPID"
	rc=$?
	FIOPID=
	grep -E 'err=|verify' "/tmp/fio-rdma-$1.out" | head -3 | sed 's/^/# fio: /'
	return "$rc"
}

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "$RDMA_PROVIDER devices on both ends of $RDMA_W_HIF/$RDMA_W_TIF" rdma_wire_up
ktap_check "nvmet-rdma port on $RDMA_W_TGT:$NVMET_TRSVCID" rdma_wire_nvmet_port
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-rdma

# 1. Port removed and restored under fio verify.
ktap_check "connect across the wire" \
	rdma_wire_connect ",nr_io_queues=2,reconnect_delay=1,ctrl_loss_tmo=60"
rx0=$(cat "/sys/class/net/$RDMA_W_TIF/statistics/rx_packets")
fio_bg cut 20
sleep 3
nvmet_port_disable "$RDMA_W_PORT_ID"
ktap_check "port removed: controller leaves live" busywait 20000 not_live
sleep 2
nvmet_port_enable "$RDMA_W_PORT_ID"
ktap_check "port restored: controller live again" busywait 40000 is_state live
fio_wait cut
rc=$?
ktap_check "fio verify across the port's removal: 0 errors (rc $rc)" test "$rc" = 0
rx1=$(cat "/sys/class/net/$RDMA_W_TIF/statistics/rx_packets")
ktap_check "the I/O crossed the veth ($((rx1 - rx0)) packets)" \
	test $((rx1 - rx0)) -gt 1000
delete_ctrl

# 2. Port never restored: removed at ctrl_loss_tmo, pending I/O fails.
rdma_wire_connect ",reconnect_delay=1,ctrl_loss_tmo=4"
nvmet_port_disable "$RDMA_W_PORT_ID"
busywait 20000 not_live
t0=$(epoch_ms)
timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
rc=$?
ktap_check "I/O during the outage fails, no hang (dd rc $rc)" test "$rc" != 0 -a "$rc" != 124
ktap_check "controller removed after ctrl_loss_tmo" busywait 30000 gone
ktap_diag "removed $(($(epoch_ms) - t0)) ms after the first failed I/O started"
nvmet_port_enable "$RDMA_W_PORT_ID"

# 3. fast_io_fail_tmo=2: I/O fails after about 2 s, not ctrl_loss_tmo.
rdma_wire_connect ",reconnect_delay=1,ctrl_loss_tmo=60,fast_io_fail_tmo=2"
nvmet_port_disable "$RDMA_W_PORT_ID"
busywait 20000 not_live
t0=$(epoch_ms)
timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
rc=$?
ms=$(($(epoch_ms) - t0))
ktap_diag "I/O failed after $ms ms"
ktap_check "I/O fails (dd rc $rc)" test "$rc" != 0 -a "$rc" != 124
ktap_check "within fast_io_fail_tmo + 6 s ($ms ms), far below ctrl_loss_tmo" test "$ms" -lt 8000
nvmet_port_enable "$RDMA_W_PORT_ID"
ktap_check "controller reconnects after the outage" busywait 40000 is_state live
ktap_check "I/O works again" dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none
delete_ctrl

# 4. Silent cut of an idle controller: keep-alive (or the RC transport's
# own retries under the keep-alive command) notices within KATO/2 + KATO
# + 1 s, and the controller reconnects once the wire heals.
kato=5
# cut_and_wait LIMIT_MS: cut the wire, then poll the state without forking
# (lib.sh's nap); sets MS to the time from the cut to not live.
cut_and_wait() {
	local s t0
	t0=${EPOCHREALTIME/./}
	rdma_wire_cut
	while read -r s <"$CTRL/state" 2>/dev/null && [ "$s" = live ] &&
		[ $((${EPOCHREALTIME/./} - t0)) -lt $(($1 * 1000)) ]; do
		nap 0.02
	done
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
}
why() { # MARK: the first error that the controller logged since MARK
	dmesg_since "$1" | grep -m1 -E "${CTRL##*/}: (queue|keep-alive)" |
		sed 's/^/# kernel: /'
}
rdma_wire_connect ",keep_alive_tmo=$kato,reconnect_delay=1,ctrl_loss_tmo=60"
m=$(dmesg_mark)
echo "nvfab selftest: cutting the rdma wire silently (idle)" >/dev/kmsg
cut_and_wait 30000
limit=$((kato * 1000 / 2 + kato * 1000 + 1000))
ktap_diag "idle: silent cut detected after $MS ms (limit $limit ms)"
why "$m"
ktap_check "silent cut of an idle controller detected within ${limit} ms" \
	test "$MS" -le "$limit"
rdma_wire_restore
ktap_check "reconnects after the wire heals" busywait 40000 is_state live
delete_ctrl

# 5. Silent cut under fio verify: the RC transport's retries or keep-alive
# notice it, fio's I/O waits for the reconnect (ctrl_loss_tmo is long)
# and verifies. When the reconnect fails, the QPs (the GSI QP 1 that
# carries the CM's MADs among them) and counters of both devices are
# printed: a cut that made rxe move QP 1 to the error state left the CM
# mute for good (see rdma_wire_cut).
silent_under_io() {
	rdma_wire_connect ",nr_io_queues=2,keep_alive_tmo=$kato,reconnect_delay=1,ctrl_loss_tmo=60"
	fio_bg silent 25
	sleep 3
	m=$(dmesg_mark)
	echo "nvfab selftest: cutting the rdma wire silently (under fio)" >/dev/kmsg
	cut_and_wait 30000
	ktap_diag "under fio: silent cut detected after $MS ms"
	why "$m"
	ktap_check "silent cut under I/O detected within ${limit} ms" test "$MS" -le "$limit"
	sleep 2
	rdma_wire_restore
	busywait 40000 is_state live
	ktap_status "reconnects after the wire heals, under I/O" "$?" rdma_wire_diag
	fio_wait silent
	rc=$?
	ktap_check "fio verify across the silent cut: 0 errors (rc $rc)" test "$rc" = 0
	delete_ctrl
}
silent_under_io

# 6. Reset and delete during I/O.
rdma_wire_connect ",nr_io_queues=2,reconnect_delay=1"
fio_bg reset 12 --iodepth=8
sleep 3
echo 1 >"$CTRL/reset_controller"
sleep 2
echo 1 >"$CTRL/reset_controller"
fio_wait reset
rc=$?
ktap_check "fio verify across two resets: 0 errors (rc $rc)" test "$rc" = 0
fio --name=del --filename="$DEV" --allow_file_create=0 --ioengine=libaio --direct=1 --rw=randread \
	--bs=4k --iodepth=8 --size=16m --time_based --runtime=30 \
	>/dev/null 2>&1 &
FIOPID=$!
sleep 3
ktap_check "delete during I/O" delete_ctrl
t0=$(epoch_ms)
timeout 60 tail --pid="$FIOPID" -f /dev/null
ms=$(($(epoch_ms) - t0))
ktap_check "fio ends within 10 s of the controller being gone ($ms ms)" \
	bash -c "! kill -0 $FIOPID 2>/dev/null && test $ms -lt 10000"
FIOPID=

# 7. The host's RDMA device removed (rdma link delete). rdma_cm lets a
# device go only once every CM ID on it is destroyed, so a host that holds
# on to a queue makes the removal hang: a live controller is deleted
# (nvfab_rdma_remove_one()); one in its first connect refuses deletion,
# and its queues must fail when rdma_cm reports the removal, even one the
# connect no longer uses (it may go live, then it recovers at once).
# DEV_ROUNDS rounds remove the device at a different point of a connect
# of three queues; each removal must return within 60 s.
DEV_ROUNDS=${NVFAB_DEV_REMOVAL_ROUNDS:-10}
dev_readd() {
	rdma link add "$RDMA_W_HDEV" type "$RDMA_PROVIDER" netdev "$RDMA_W_HIF"
}
dev_removal_live() {
	local t0 rc
	rdma_wire_connect ",nr_io_queues=2" || return 1
	t0=$(epoch_ms)
	timeout 60 rdma link delete "$RDMA_W_HDEV"
	rc=$?
	ktap_diag "live controller: rdma link delete returned $rc after $(($(epoch_ms) - t0)) ms"
	[ "$rc" = 0 ] && busywait 30000 gone && dev_readd
}
ktap_check "host RDMA device removed under a live controller: removal returns, controller deleted" \
	dev_removal_live
dev_removal_connecting() {
	local i t0 rc cpid ms opts
	opts="transport=rdma,traddr=$RDMA_W_TGT,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_W_HOST"
	opts+=",nqn=$NVMET_NQN,nr_io_queues=2,reconnect_delay=1,ctrl_loss_tmo=2"
	for ((i = 0; i < DEV_ROUNDS; i++)); do
		( exec 3<>/dev/nvfab-fabrics && printf '%s' "$opts" >&3 ) 2>/dev/null &
		cpid=$!
		# somewhere in the connect: 0 to 0.9 s after it started
		sleep "0.$((i % 10))"
		t0=$(epoch_ms)
		timeout 60 rdma link delete "$RDMA_W_HDEV"
		rc=$?
		ms=$(($(epoch_ms) - t0))
		if [ "$rc" != 0 ]; then
			ktap_diag "round $i: rdma link delete returned $rc after $ms ms"
			return 1
		fi
		timeout 60 tail --pid="$cpid" -f /dev/null
		wait "$cpid"
		# deleted by the removal, or reconnecting until ctrl_loss_tmo
		if ! busywait 30000 test "$(nvfab_ctrl_count)" = 0; then
			ktap_diag "round $i: $(nvfab_ctrl_count) controllers left"
			return 1
		fi
		ktap_diag "round $i: removal took $ms ms"
		dev_readd || return 1
	done
}
ktap_check "host RDMA device removed during a first connect, $DEV_ROUNDS times: removal returns, no controller left" \
	dev_removal_connecting

# 8. Unloading nvfab-rdma deletes its controllers, under I/O too.
unload_with_ctrls() {
	local c1
	rdma_wire_connect ",nr_io_queues=1" || return 1
	c1=$CTRL
	rdma_wire_connect ",nr_io_queues=1,duplicate_connect" || return 1
	test "$c1" != "$CTRL" || return 1
	fio --name=unload --filename="$DEV" --allow_file_create=0 --ioengine=libaio \
		--direct=1 --rw=randread --bs=4k --iodepth=4 --size=16m \
		--time_based --runtime=30 >/dev/null 2>&1 &
	FIOPID=$!
	sleep 2
	timeout 60 rmmod nvfab-rdma || return 1
	timeout 60 tail --pid="$FIOPID" -f /dev/null
	! kill -0 "$FIOPID" 2>/dev/null || return 1
	FIOPID=
	test "$(nvfab_ctrl_count)" = 0 && ! nvfab_mod_loaded nvfab-rdma
}
ktap_check "two controllers, fio: rmmod nvfab-rdma deletes both, fio ends" \
	unload_with_ctrls

ktap_check "modules unload" nvfab_unload nvfab-rdma nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
