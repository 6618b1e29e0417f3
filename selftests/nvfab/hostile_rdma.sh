#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfab-rdma against a hostile NVMe/RDMA target: the user-space target of
# tools/testing/hostile-target/nvfab_hostile_rdma.py (pyverbs) breaks the
# protocol in one way per scenario (a second or an unknown response, a
# remote invalidation of the wrong rkey or of none, a response capsule
# shorter than a CQE, a Read never answered, a response before any
# command right after the CM accept, an RDMA WRITE with a Read's rkey
# through another queue, a CM REJECT with a status or with private
# data of an unknown format) and the host
# must notice it when it arrives, recover and keep the data right,
# without a hang or a splat.
#
# The target runs on a soft RoCE device (rdma_rxe) on a veth, as in
# rdma_io.sh, and the host connects to it through the same device. The
# scenario functions are hostile.sh's (HOSTILE_FUNCS_ONLY), pointed at
# this target and transport.
# SC2034: hostile.sh's functions read these variables; SC2317: shellcheck
# takes hostile.sh's final exit for this script's.
# shellcheck disable=SC2034,SC2317
set -u
HOSTILE_FUNCS_ONLY=1 . "$(dirname "$0")/hostile.sh"
. "$(dirname "$0")/rdma_lib.sh"

TARGET=$REPO/tools/testing/hostile-target/nvfab_hostile_rdma.py
NQN_BASE=nqn.2014-08.org.nvmexpress:nvfab-hostile-rdma
PORT_BASE=4460
LOGDIR=${OUT:-/tmp}/hostile-rdma
ONLY=${NVFAB_HOSTILE_RDMA_ONLY:-}
ONLY_VAR=NVFAB_HOSTILE_RDMA_ONLY
TRANSPORT=rdma
TADDR=$RDMA_ADDR
CONNECT_BASE=",host_traddr=$RDMA_ADDR"
PYTHON=(python3 -B)	# pyverbs is in dist-packages: no -S
BIG=/tmp/nvfab-hostile-rdma.big
port=$PORT_BASE

cleanup() {
	[ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null
	spawn_stop
	delete_all 20000
	nvfab_unload nvfab-rdma nvfab-fabrics nvfab-core >/dev/null 2>&1
	rdma link delete "$RDMA_DEV" >/dev/null 2>&1
	ip link del "$RDMA_IF" >/dev/null 2>&1
	rdma_wire_down
	rm -f "$BIG"
}
trap cleanup EXIT

# wrong-rkey: a 2 MiB read is three commands in flight at once (at most
# 1020 KiB each: one FRWR MR of 256 pages a command), and the target
# answers the one at TRIGGER_LBA with Send with Invalidate of another
# one's rkey (a key the device knows, so that the check is the host's).
sc_wrong_rkey() {
	local iopid rc

	target_start wrong-rkey --trigger-lba "$TRIGGER_LBA" ||
		{ fail "target did not start"; return; }
	connect_ok || return
	head -c 2M /dev/urandom >"$BIG"
	check "2 MiB pattern written at LBA $TRIGGER_LBA" timeout 60 dd \
		if="$BIG" of="$DEV" bs=2M seek=1 count=1 oflag=direct status=none
	rm -f "$RD"
	timeout 60 dd if="$DEV" of="$RD" bs=2M skip=1 count=1 iflag=direct \
		status=none &
	iopid=$!
	wait_for 15000 misbehaved 1 || fail "target misbehaved (state file)"
	watch_recovery
	bg_wait "$iopid" 60000
	rc=$?
	check "the 2 MiB read completes (dd rc $rc)" test "$rc" = 0
	check "data right" cmp -s "$BIG" "$RD"
	check "kernel names the wrong rkey: 'queue N: ... CID 0x... invalidates an rkey other'" \
		dmesg_grep "queue [0-9]+:" "CID 0x" "invalidates an rkey other"
	rm -f "$RD"
	check "I/O works after recovery" timeout 60 dd if="$DEV" of="$RD" \
		bs=2M skip=1 count=1 iflag=direct status=none
	check "data still right" cmp -s "$BIG" "$RD"
}

# foreign-rkey: before answering a Read, the target RDMA-WRITEs a canary
# with that Read's rkey through another queue of the controller (its admin
# queue's QP), as a target that kept an rkey (say, one whose invalidation
# failed or one of a cancelled command) could. An rkey must be good only on
# the queue it was given on: the host's device refuses the WRITE with a
# remote access error (each queue has its own protection domain), the
# queue it came through fails, the host recovers and the read is retried.
# With one protection domain for every queue of the device (before issue
# 28 item 3) the WRITE was accepted.
foreign_refused() {
	grep -h '^hostile: foreign-rkey' "$TLOG" | sed 's/^/#   target: /'
	grep -q '^hostile: foreign-rkey.*: refused' "$TLOG"
}

sc_foreign_rkey() {
	local iopid rc

	target_start foreign-rkey --trigger-lba "$TRIGGER_LBA" ||
		{ fail "target did not start"; return; }
	connect_ok || return
	check "pattern written before the read" write_pat
	read_back &
	iopid=$!
	wait_for 20000 misbehaved 1 || fail "target misbehaved (state file)"
	check "the device refused the rkey through another queue" foreign_refused
	# the recovery may be over before the target's log line is read:
	# check the kernel's account of it instead of watching the state
	check "the host saw its admin queue fail and recovered" \
		dmesg_grep "queue 0: " "failed|error"
	check "controller live again" wait_for 15000 is_live
	check "kernel log: reconnected" dmesg_grep "reconnected"
	bg_wait "$iopid" 60000
	rc=$?
	check "the read completes (dd rc $rc)" test "$rc" = 0
	check "data right (no canary)" same_data
	check "I/O works after recovery" read_back
	check "data still right" same_data
}

# sc_cm_reject NAME TEXT: the CM REJECT of the admin queue: the connect
# fails at once and the kernel's line has TEXT (the status by name, or the
# RECFMT it does not know); the next connect (the target rejects once)
# works.
sc_cm_reject() {
	local rc

	target_start "$1" || { fail "target did not start"; return; }
	connect_start
	connect_wait 12000
	rc=$?
	check "connect fails within 10 s (rc $rc, $CONNECT_MS ms)" \
		test "$rc" != 0 -a "$rc" != 124 -a "${CONNECT_MS:-99999}" -lt 10000
	check "target rejected the CM request" misbehaved 1
	check "kernel says why: '... rejected ... $2'" dmesg_grep "rejected" "$2"
	connect_ok || return
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
}

# stall-connect-removal: the host's RDMA device removed (issue 28, item 5):
# the target holds the admin Connect and the host's device goes (rdma link
# delete). Nothing but rdma_cm's DEVICE_REMOVAL event can end that connect
# before admin_timeout (60 s), and rdma_cm cannot finish the removal
# before the host destroys its CM IDs: the connect must fail within 10 s
# of the removal, the removal must return, no controller may be left,
# and the device must come back. Host and target are on the two ends of
# the wire topology (rdma_lib.sh): the removal must not wait for the
# target's process, whose verbs objects on a shared device rxe cannot
# take away (on one device the removal waits for the target to exit).
sc_removal_held() {
	local rc t0 taddr=$TADDR base=$CONNECT_BASE

	rdma_wire_up || { fail "the wire topology comes up"; rdma_wire_down; return; }
	TADDR=$RDMA_W_TGT
	CONNECT_BASE=",host_traddr=$RDMA_W_HOST"
	if ! target_start stall-connect; then
		fail "target did not start"
	else
		connect_start
		if ! wait_for 30000 misbehaved 1; then
			fail "the target holds the admin Connect"
		else
			clock
			t0=$NOW
			rdma link delete "$RDMA_W_HDEV" 2>/dev/null &
			connect_wait 15000
			rc=$?
			clock
			if [ "$rc" = 124 ]; then
				fail "connect fails within 10 s of the removal (still blocked after 15 s)"
			else
				check "connect fails within 10 s of the removal (rc $rc, $((NOW - t0)) ms)" \
					test "$rc" != 0 -a $((NOW - t0)) -lt 10000
			fi
			check "rdma link delete returns within 10 s" \
				wait_for 10000 eval '! rdma link show "$RDMA_W_HDEV/1" >/dev/null 2>&1'
			check "no controller left for $NQN" \
				eval '! grep -q -l -x -F "$NQN" /sys/class/nvfab/nvfab*/subsysnqn 2>/dev/null'
			check "kernel says the device went: 'queue 0: RDMA device ... removed'" \
				dmesg_grep "queue 0: RDMA device .* removed"
		fi
		target_stop
	fi
	TADDR=$taddr
	CONNECT_BASE=$base
	rdma_wire_down
	check "the host's device is added again" rdma_wire_up
	rdma_wire_down
}

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
modprobe -n rdma_rxe 2>/dev/null || ksft_skip_all "no rdma_rxe module"
modprobe rdma_ucm 2>/dev/null || ksft_skip_all "no rdma_ucm module"
[ -c /dev/infiniband/rdma_cm ] || ksft_skip_all "no /dev/infiniband/rdma_cm"
why=$(python3 -B -c "import pyverbs.cmid" 2>&1) ||
	ksft_skip_all "pyverbs missing (python3-pyverbs): ${why##*: }"
ktap_header
ktap_set_plan 15
dmesg_canary_start
mkdir -p "$LOGDIR"
: >"$LOGDIR/connect.err"
head -c 8192 /dev/urandom >"$PAT"
spawn_start "$LOGDIR/spawn.log"

ktap_check "soft RoCE device $RDMA_DEV on $RDMA_IF ($RDMA_ADDR)" rdma_up
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-rdma
run_scenario "correct target: connect, write, read back, delete" sc_none
run_scenario "dup-resp" io_scenario dup-resp "second response|names no command" read
run_scenario "unknown-cid" io_scenario unknown-cid "names no command" read
run_scenario "wrong-rkey" sc_wrong_rkey
run_scenario "inv-inline" io_scenario inv-inline "has no MR" write
run_scenario "short-resp" io_scenario short-resp "response capsule of 8 bytes" read ""
run_scenario "stall-first-read" sc_stall_first_read
run_scenario "early-cqe" sc_early early-cqe "response for CID 0x0 names no command"
run_scenario "foreign-rkey" sc_foreign_rkey
run_scenario "stall-connect-removal" sc_removal_held
run_scenario "cm-reject" sc_cm_reject cm-reject "status 6 NO_RSC"
run_scenario "cm-reject-recfmt" sc_cm_reject cm-reject-recfmt \
	"REJECT private data with RECFMT 1"

hostile_end nvfab-rdma nvfab-fabrics nvfab-core
