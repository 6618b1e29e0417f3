#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfab's NVMe/TCP host against a hostile target: the user-space target of
# tools/testing/hostile-target breaks the protocol in one way per scenario
# (a duplicated or late PDU, a PDU before any command in the segment of
# the ICResp, an ICResp asking for CPDA 1, a short Identify, bad Identify
# fields, a namespace that is briefly not ready, ...) and the host must
# notice,
# recover and keep the data right, without a hang or a splat.
#
# One KTAP result per scenario; each sub-check is a "#" line under it.
# Every scenario runs its own target on its own port on 127.0.0.1 with its
# own subsystem NQN, and is cleaned up (controller deleted, target
# stopped) whether it passed or not.
#
# The scenario harness (fork-free polling, the target's life, KTAP per
# scenario) is hostile_lib.sh, shared with hostile_disc.sh.
# shellcheck disable=SC2317 # functions run through check, wait_for, "$@"
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile_lib.sh"

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=$REPO/tools/testing/hostile-target/nvfab_hostile_target.py
NQN_BASE=nqn.2014-08.org.nvmexpress:nvfab-hostile
PORT_BASE=4430
LOGDIR=${OUT:-/tmp}/hostile
TRIGGER_LBA=4096	# where the I/O scenarios strike: past the partition scan
IO_SKIP=256		# TRIGGER_LBA in 8 KiB blocks, for dd
PAT=/tmp/nvfab-hostile.pat
RD=/tmp/nvfab-hostile.rd
ONLY=${NVFAB_HOSTILE_ONLY:-}
ONLY_VAR=NVFAB_HOSTILE_ONLY
WAIT_STEP=0.05
# The transport and the target's address (hostile_rdma.sh sets its own).
TRANSPORT=tcp
TADDR=127.0.0.1
CONNECT_BASE=
PYTHON=(python3 -B -S)

CPID=		# a connect writing to /dev/nvfab-fabrics
CONNECT_EXTRA=	# more connect options (",name=value...")
CTRL=		# /sys/class/nvfab/nvfabN of the scenario's controller
DEV=		# /dev/nvfabXnY of its namespace 1
port=$PORT_BASE

# ---- the target ----

# target_start SCENARIO [ARGS...]: start a target on the next port.
target_start() {
	local sc=$1 args=()

	shift
	port=$((port + 1))
	NQN=$NQN_BASE-$sc
	TSTATE=/tmp/nvfab-hostile-$sc.state
	TLOG=$LOGDIR/target-$sc.log
	rm -f "$TSTATE"
	if [ "$sc" = none ]; then
		args=(--state "$TSTATE")
	else
		args=(--scenario "$sc" --state "$TSTATE")
	fi
	[ -n "${NVFAB_HOSTILE_VERBOSE:-}" ] && args+=(--verbose)
	target_run "$TLOG" --addr "$TADDR" --port "$port" --nqn "$NQN" \
		"${args[@]}" "$@"
	wait_for 90000 test -s "$TSTATE"
}

# ---- the host ----

# connect_start: connect to the target in the background (the
# write to /dev/nvfab-fabrics blocks for the whole connect).
connect_start() {
	local opts="transport=$TRANSPORT,traddr=$TADDR,trsvcid=$port,nqn=$NQN"

	opts+="$CONNECT_BASE,nr_io_queues=1,reconnect_delay=1,ctrl_loss_tmo=30"
	opts+=$CONNECT_EXTRA
	CTRL=
	DEV=
	rm -f /tmp/nvfab-hostile.reply
	(
		exec 3<>/dev/nvfab-fabrics || exit 1
		printf '%s' "$opts" >&3 || exit 2
		cat <&3 >/tmp/nvfab-hostile.reply
	) 2>>"$LOGDIR/connect.err" &
	CPID=$!
	clock
	CONNECT_T0=$NOW
}

# connect_wait MS: wait for the connect; returns its status (124 if it
# still blocks, and then it is left to finish on its own). Sets CTRL,
# CONNECT_MS.
connect_wait() {
	local rc reply n

	if ! wait_for "$1" pid_gone "$CPID"; then
		BGPIDS+=("$CPID")
		CPID=
		return 124
	fi
	wait "$CPID"
	rc=$?
	CPID=
	clock
	CONNECT_MS=$((NOW - CONNECT_T0))
	[ "$rc" = 0 ] || return "$rc"
	read -r reply </tmp/nvfab-hostile.reply || return 3
	n=${reply#instance=}
	n=${n%%,*}
	CTRL=/sys/class/nvfab/nvfab$n
	ktap_diag "  connected in $CONNECT_MS ms: $reply"
}

# find_head NSID: DEV is the head block device of that namespace in the
# subsystem of CTRL.
find_head() {
	local s h n c=${CTRL##*/}

	DEV=
	for s in /sys/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/$c" ] || continue
		for h in "$s"/nvfab*n*; do
			{ read -r n <"$h/nsid"; } 2>/dev/null || continue
			if [ "$n" = "$1" ] && [ -b "/dev/${h##*/}" ]; then
				DEV=/dev/${h##*/}
				return 0
			fi
		done
	done
	return 1
}

# connect_ok: connect and wait for namespace 1's block device.
connect_ok() {
	connect_start
	connect_wait 30000 || { fail "connect failed (rc $?)"; return 1; }
	wait_for 20000 find_head 1 || { fail "no block device for NSID 1"; return 1; }
}

ctrl_state() {
	STATE=gone
	{ read -r STATE <"$CTRL/state"; } 2>/dev/null
}

is_live() { ctrl_state && [ "$STATE" = live ]; }
not_live() { ctrl_state; [ "$STATE" != live ]; }
ctrl_gone() { [ ! -e "$CTRL" ]; }

# delete_ctrl: delete CTRL, bounded (a delete that blocks is left behind).
delete_ctrl() {
	local pid

	[ -n "$CTRL" ] && [ -e "$CTRL/delete_controller" ] || return 0
	( echo 1 >"$CTRL/delete_controller" ) 2>/dev/null &
	pid=$!
	if ! wait_for 30000 pid_gone "$pid"; then
		BGPIDS+=("$pid")
		return 1
	fi
	wait "$pid" 2>/dev/null
	wait_for 10000 ctrl_gone
}

# timed_delete MS: write CTRL's delete_controller in the background and
# wait up to MS for it. DEL_RC: its status (124: still blocked); DEL_MS.
timed_delete() {
	local t0

	clock
	t0=$NOW
	( echo 1 >"$CTRL/delete_controller" ) 2>/dev/null &
	bg_wait $! "$1"
	DEL_RC=$?
	clock
	DEL_MS=$((NOW - t0))
}

# ---- checks ----

same_data() { cmp -s "$PAT" "$RD"; }

# write_pat / read_back: one 8 KiB command at TRIGGER_LBA, direct, bounded.
write_pat() {
	[ -b "$DEV" ] || return 1	# never create a file in /dev
	timeout 60 dd if="$PAT" of="$DEV" bs=8192 seek="$IO_SKIP" count=1 \
		oflag=direct status=none
}

read_back() {
	rm -f "$RD"
	[ -b "$DEV" ] || return 1
	timeout 60 dd if="$DEV" of="$RD" bs=8192 skip="$IO_SKIP" count=1 \
		iflag=direct status=none
}

# watch_recovery: the controller leaves live, then is live again within
# 15 s of that.
watch_recovery() {
	local t0

	if ! wait_for 15000 not_live; then
		fail "controller left live (stayed live for 15 s)"
		return 1
	fi
	clock
	t0=$NOW
	ktap_diag "  controller $STATE"
	if wait_for 15000 is_live; then
		clock
		ktap_diag "  pass: controller live again after $((NOW - t0)) ms"
	else
		fail "controller live again within 15 s (state $STATE)"
	fi
}

# ---- scenarios ----

# The correct target: connect, write and read back, disconnect.
sc_none() {
	target_start none || { fail "target did not start"; return; }
	connect_ok || return
	check "controller live" is_live
	check "8 KiB write at LBA $TRIGGER_LBA" write_pat
	check "read back" read_back
	check "data read back is the data written" same_data
	check "no violation logged" eval '! dmesg_grep "queue [0-9]+:"'
	check "SQ flow control disabled (sqflow_auto)" sqflow_is disabled
}

# sqflow_is TEXT: CTRL's sqflow attribute reads TEXT.
sqflow_is() {
	local v=

	{ read -r v <"$CTRL/sqflow"; } 2>/dev/null
	ktap_diag "  sqflow: '$v'"
	[ "$v" = "$1" ]
}

refusals_are() {
	local n=0

	{ read -r n <"$TSTATE"; } 2>/dev/null
	[ "${n:-0}" = "$1" ]
}

# The target refuses every Connect that asks for SQ flow control disabled
# (Connect Invalid Parameters, IPO 46: CATTR). The host asked by itself
# (module parameter sqflow_auto): it connects again at once with SQ flow
# control and keeps that for the controller's life (a reset does not ask
# again). With disable_sqflow the user asked for it: the connect fails.
sc_refuse_sqflow() {
	local rc

	target_start refuse-sqflow --count 1000 ||
		{ fail "target did not start"; return; }
	connect_ok || return
	check "connected in under 10 s ($CONNECT_MS ms)" test "$CONNECT_MS" -lt 10000
	check "target refused one Connect" refusals_are 1
	check "sqflow: enabled (refused)" sqflow_is "enabled (refused)"
	check "kernel says why it connected again" \
		dmesg_grep "SQ flow control disabled refused"
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
	( echo 1 >"$CTRL/reset_controller" ) 2>/dev/null
	check "live again after a reset" wait_for 15000 is_live
	check "the reset's Connects did not ask again" refusals_are 1
	check "read after the reset" read_back
	delete_ctrl || fail "delete"

	CONNECT_EXTRA=",disable_sqflow"
	connect_start
	connect_wait 12000
	rc=$?
	CONNECT_EXTRA=
	check "with disable_sqflow the connect fails (rc $rc, $CONNECT_MS ms)" \
		test "$rc" != 0 -a "$rc" != 124
	check "target refused that Connect too" refusals_are 2
}

# sc_authreq SCENARIO ERRNO-TEXT KERNEL-TEXT: the target's Connect
# response requires authentication (AUTHREQ ATR) or secure channel
# concatenation (ASCR), on the admin queue or, for auth-required-io, on
# the I/O queue. nvfab has no key (DH-HMAC-CHAP is not there yet): the
# connect fails at once with ERRNO-TEXT (ENOKEY, EOPNOTSUPP, as the
# in-kernel host's), nothing more is sent on that queue (the target logs
# any command after such a Connect), no controller is left, and the
# kernel says KERNEL-TEXT. On a kernel whose in-kernel host does
# authentication (CONFIG_NVME_HOST_AUTH) the same target is the oracle:
# nvme connect must fail with the same error.
sc_authreq() {
	local sc=$1 errtext=$2 ktext=$3 rc n0 kout
	local cfg=/boot/config-$(uname -r)

	target_start "$sc" --count 2 || { fail "target did not start"; return; }
	n0=$(wc -l <"$LOGDIR/connect.err" 2>/dev/null || echo 0)
	connect_start
	connect_wait 12000
	rc=$?
	if [ "$rc" = 124 ]; then
		fail "connect fails at once (still blocked after 12 s)"
		return
	fi
	check "connect fails (rc $rc) within 10 s ($CONNECT_MS ms)" \
		test "$rc" != 0 -a "$CONNECT_MS" -lt 10000
	ktap_diag "  connect: $(tail -n +"$((n0 + 1))" "$LOGDIR/connect.err" | tail -n 1)"
	check "the write to /dev/nvfab-fabrics failed with '$errtext'" \
		eval 'tail -n +"$((n0 + 1))" "$LOGDIR/connect.err" | grep -q -F "$errtext"'
	check "target misbehaved" misbehaved 1
	check "nothing sent after that Connect" \
		eval '! grep -q "command after the Connect that required" "$TLOG"'
	check "no controller left for $NQN" \
		eval '! grep -l -x -F "$NQN" /sys/class/nvfab/nvfab*/subsysnqn 2>/dev/null'
	check "kernel says '$ktext'" dmesg_grep "$ktext"
	if ! grep -q '^CONFIG_NVME_HOST_AUTH=y' "$cfg" 2>/dev/null ||
		! command -v nvme >/dev/null || ! modprobe -q nvme-tcp; then
		ktap_diag "  in-kernel host: not compared (no nvme-cli, nvme-tcp or CONFIG_NVME_HOST_AUTH here)"
		return
	fi
	kout=$(timeout 30 nvme connect -t tcp -a "$TADDR" -s "$port" -n "$NQN" \
		-i 1 -c 1 -l 5 2>&1)
	ktap_diag "  in-kernel host: ${kout//$'\n'/ }"
	check "the in-kernel host fails with '$errtext' too" \
		eval 'grep -q -F "$errtext" <<<"$kout"'
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	return 0
}

# sc_auth_later: the target requires authentication from its second admin
# Connect on. After a reset the reconnect fails with ENOKEY, and the
# controller is removed at once: no attempt every reconnect_delay (1 s)
# until ctrl_loss_tmo (30 s), each refused the same way.
sc_auth_later() {
	local n

	target_start auth-required-later --count 100 ||
		{ fail "target did not start"; return; }
	connect_ok || return
	( echo 1 >"$CTRL/reset_controller" ) 2>/dev/null
	check "controller removed within 10 s of the reset" wait_for 10000 ctrl_gone
	nap 3
	{ read -r n <"$TSTATE"; } 2>/dev/null
	check "one reconnect attempt (admin Connects answered with ATR: ${n:-0})" \
		test "${n:-0}" = 1
	check "nothing sent after that Connect" \
		eval '! grep -q "command after the Connect that required" "$TLOG"'
	check "kernel says why" dmesg_grep "authentication required, no key: removing controller"
}

# DH-HMAC-CHAP against the hostile target's controller side (dhchap.py):
# SHA-256, ffdhe2048, bidirectional. chap-ok connects with every queue
# authenticated; each fault breaks one field of one controller message of
# the admin queue's transaction, and the host refuses it on arrival: the
# connect fails with EKEYREJECTED within 10 s, the kernel names the field,
# no controller is left. Skipped when nvfab has no nvme-auth (the option
# is refused with EOPNOTSUPP).
CHAP_HKEY=
CHAP_CKEY=
chap_key() { # NN: a DHHC-1 secret, hash ID NN, 32 random bytes
	python3 -c 'import base64, os, struct, sys, zlib
k = os.urandom(32)
print("DHHC-1:%s:%s:" % (sys.argv[1],
      base64.b64encode(k + struct.pack("<I", zlib.crc32(k))).decode()))' "$1"
}
chap_keys() {
	[ -n "$CHAP_HKEY" ] || { CHAP_HKEY=$(chap_key 01); CHAP_CKEY=$(chap_key 02); }
	CONNECT_EXTRA=",dhchap_secret=$CHAP_HKEY,dhchap_ctrl_secret=$CHAP_CKEY"
}
chap_no_auth() { grep -q -F "Operation not supported" "$LOGDIR/connect.err" 2>/dev/null; }

sc_chap_ok() {
	local n

	chap_keys
	target_start chap-ok --dhchap-key "$CHAP_HKEY" --dhchap-ctrl-key "$CHAP_CKEY" ||
		{ fail "target did not start"; CONNECT_EXTRA=; return; }
	: >"$LOGDIR/connect.err"
	if ! connect_ok; then
		CONNECT_EXTRA=
		chap_no_auth && SKIP_WHY="nvfab built without nvme-auth"
		return
	fi
	CONNECT_EXTRA=
	n=$(grep -c "authenticated" "$TLOG")
	check "every queue authenticated (admin and I/O: $n)" test "$n" -ge 2
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
}

sc_chap_fault() { # SCENARIO KERNEL-TEXT
	local sc=$1 ktext=$2 rc

	chap_keys
	target_start "$sc" --dhchap-key "$CHAP_HKEY" --dhchap-ctrl-key "$CHAP_CKEY" ||
		{ fail "target did not start"; CONNECT_EXTRA=; return; }
	: >"$LOGDIR/connect.err"
	connect_start
	connect_wait 12000
	rc=$?
	CONNECT_EXTRA=
	if [ "$rc" = 124 ]; then
		fail "connect fails at once (still blocked after 12 s)"
		return
	fi
	if chap_no_auth; then
		SKIP_WHY="nvfab built without nvme-auth"
		return
	fi
	ktap_diag "  connect: $(tail -n 1 "$LOGDIR/connect.err")"
	check "connect fails (rc $rc) within 10 s ($CONNECT_MS ms)" \
		test "$rc" != 0 -a "$CONNECT_MS" -lt 10000
	check "with 'Key was rejected by service' (EKEYREJECTED)" \
		grep -q -F "Key was rejected by service" "$LOGDIR/connect.err"
	check "target misbehaved" misbehaved 1
	check "no controller left for $NQN" \
		eval '! grep -l -x -F "$NQN" /sys/class/nvfab/nvfab*/subsysnqn 2>/dev/null'
	check "kernel names it: '$ktext'" dmesg_grep "queue 0: authentication: .*$ktext"
}

# sc_chap_rounds NAME ERRTEXT KTEXT: a DH-HMAC-CHAP scenario whose
# misbehaviour races with the host's own steps, NVFAB_EARLY_ROUNDS
# connects (50 by default, 10 in the stock guest). Each connect must fail
# at once (not by a timeout), with ERRTEXT (if any) from the write, the
# kernel's 'queue 0: ... KTEXT', and no controller left, nothing freed
# twice.
#   chap-late: the transaction succeeds, and right after its last
#     CapsuleResp the target sends the Challenge again, in a C2HData for
#     the CID of the Authentication Receive that carried it: a message for
#     a queue that is no longer authenticating, arriving while the host
#     leaves that state. The CID names no command in flight: a fatal error
#     for the queue on arrival.
#   chap-close: the target closes the connection right after the
#     Challenge: the host's Reply is failed (a path-related status, or
#     cancelled) while it computes or sends it. ECONNRESET, not
#     EKEYREJECTED: nothing refused the key, and a reconnect that fails
#     this way must try again instead of removing the controller.
sc_chap_rounds() {
	local sc=$1 etext=$2 ktext=$3 n=${NVFAB_EARLY_ROUNDS:-50}

	chap_keys
	target_start "$sc" --count "$n" --dhchap-key "$CHAP_HKEY" \
		--dhchap-ctrl-key "$CHAP_CKEY" ||
		{ fail "target did not start"; CONNECT_EXTRA=; return; }
	: >"$LOGDIR/connect.err"
	connect_rounds "$n" chap_no_auth
	CONNECT_EXTRA=
	if chap_no_auth; then
		SKIP_WHY="nvfab built without nvme-auth"
		return
	fi
	ktap_diag "  $n connects: $REFUSED refused, $LIVE live, $SLOW still blocked after 20 s; slowest $MAX ms"
	ktap_diag "  connect: $(sort "$LOGDIR/connect.err" | uniq -c | sort -rn | head -n 3 | tr -s ' ' | tr '\n' ';')"
	check "every connect refused ($REFUSED of $n)" test "$REFUSED" = "$n"
	check "each refused on arrival, within 10 s (slowest $MAX ms)" \
		test "$MAX" -lt 10000
	[ -z "$etext" ] ||
		check "each with '$etext'" \
			test "$(grep -c -F "$etext" "$LOGDIR/connect.err")" = "$n"
	check "target misbehaved $n times" misbehaved "$n"
	check "kernel names it: 'queue 0: ... $ktext'" dmesg_grep "queue 0:" "$ktext"
	check "no controller left" no_ctrls
}

# io_scenario NAME PDU read|write [CID]: a protocol violation on one
# command; the kernel's line names PDU and CID (default "CID 0x").
io_scenario() {
	local sc=$1 pdu=$2 kind=$3 cid=${4-CID 0x} iopid rc

	target_start "$sc" --trigger-lba "$TRIGGER_LBA" ||
		{ fail "target did not start"; return; }
	connect_ok || return
	if [ "$kind" = read ]; then
		check "pattern written before the read" write_pat
		read_back &
	else
		write_pat &
	fi
	iopid=$!
	wait_for 15000 misbehaved 1 || fail "target misbehaved (state file)"
	watch_recovery
	bg_wait "$iopid" 60000
	rc=$?
	check "the $kind completes (dd rc $rc)" test "$rc" = 0
	if [ "$kind" = write ]; then
		check "read back after recovery" read_back
	fi
	check "data right" same_data
	check "kernel names the $pdu violation: 'queue N: ... $pdu ... $cid'" \
		dmesg_grep "queue [0-9]+:" "$cid" "$pdu"
	check "I/O works after recovery" read_back
	check "data still right" same_data
}

# connect_rounds N [STOP]: N connects to the running target, one after
# the other, each given 20 s; a live one is deleted again. Sets REFUSED,
# LIVE, SLOW (still blocked after 20 s) and MAX (the slowest, ms). STOP,
# a command, ends the rounds early when it succeeds after the first.
connect_rounds() {
	local i rc n=$1 stop=${2:-}

	REFUSED=0 LIVE=0 SLOW=0 MAX=0
	for ((i = 0; i < n; i++)); do
		connect_start
		connect_wait 20000
		rc=$?
		if [ "$rc" = 124 ]; then
			SLOW=$((SLOW + 1))
			continue
		fi
		[ "$CONNECT_MS" -gt "$MAX" ] && MAX=$CONNECT_MS
		if [ "$rc" = 0 ]; then
			LIVE=$((LIVE + 1))
			delete_ctrl
		else
			REFUSED=$((REFUSED + 1))
		fi
		[ "$i" = 0 ] && [ -n "$stop" ] && $stop && break
	done
	return 0
}

# sc_early NAME PATTERN...: the target sends, before the host has sent
# any command, a PDU or CQE for CID 0: NVMe/TCP in the segment of its
# ICResp (early-pdu: a CapsuleResp, a C2HData, an R2T in turn), NVMe/RDMA
# right after it accepts the admin queue's CM request (early-cqe). In
# early-pdu, every other three connects the target also closes the
# connection right after the PDU: the queue then fails twice (the PDU, the
# close) while its admin Connect is sent or cancelled, and the Connect must
# complete once (a second completion was a KASAN stack-out-of-bounds in
# complete()). The queue receives as soon as it is started, so the CID must be checked
# against the admin tag set at once: it names no command, which is a
# fatal error for the queue, and the connect is refused on arrival (not by
# a timeout), never a crash. The window is a race (the host once
# dereferenced the admin tag set before allocating it, in a few connects
# out of 20): NVFAB_EARLY_ROUNDS connects, 50 by default (make check's
# stock guest runs 10: the 50 run in the KASAN guest, where a miss is a
# report). Each PATTERN is a line the kernel must have logged ('queue 0:
# ... PATTERN').
sc_early() {
	local sc=$1 n=${NVFAB_EARLY_ROUNDS:-50} p

	shift
	target_start "$sc" --count "$n" || { fail "target did not start"; return; }
	connect_rounds "$n"
	ktap_diag "  $n connects: $REFUSED refused, $LIVE live, $SLOW still blocked after 20 s; slowest $MAX ms"
	check "every connect refused ($REFUSED of $n)" test "$REFUSED" = "$n"
	check "each refused on arrival, within 5 s (slowest $MAX ms)" \
		test "$MAX" -lt 5000
	check "target misbehaved $n times" misbehaved "$n"
	for p in "$@"; do
		check "kernel names it: 'queue 0: ... $p'" dmesg_grep "queue 0:" "$p"
	done
	check "no controller left" no_ctrls
}

# stale-aer: after a reset, right after the admin Connect of the new
# association, the target completes the AER that the old association had
# outstanding. The new association has sent none: a fatal error for the
# queue (the flag that an AER is outstanding is the association's, not
# the controller's), one more reconnect, then live again.
sc_stale_aer() {
	target_start stale-aer || { fail "target did not start"; return; }
	connect_ok || return
	check "controller live" is_live
	( echo 1 >"$CTRL/reset_controller" ) 2>/dev/null
	wait_for 20000 misbehaved 1 || fail "target completed the stale AER"
	check "controller live again within 20 s" wait_for 20000 is_live
	check "kernel names it: 'queue 0: CapsuleResp for AER CID ..., none outstanding'" \
		dmesg_grep "queue 0:" "CapsuleResp for AER CID 0x[0-9a-f]+, none outstanding"
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
}

# connect_fails NAME TEXT: an invalid Identify fails the connect quickly.
connect_fails() {
	local sc=$1 text=$2 rc

	target_start "$sc" || { fail "target did not start"; return; }
	connect_start
	connect_wait 12000
	rc=$?
	if [ "$rc" = 124 ]; then
		fail "connect fails within 10 s (still blocked after 12 s)"
	elif [ "$rc" = 0 ]; then
		fail "connect fails (it succeeded, in $CONNECT_MS ms)"
	else
		check "connect fails within 10 s (rc $rc, $CONNECT_MS ms)" \
			test "$CONNECT_MS" -lt 10000
	fi
	check "target misbehaved" misbehaved 1
	check "kernel names '$text'" dmesg_grep "$text"
}

sc_ns_not_ready() {
	target_start ns-not-ready --event-after 3 --count 1 ||
		{ fail "target did not start"; return; }
	connect_ok || return
	ktap_diag "  NSID 1 is $DEV"
	if ! wait_for 20000 misbehaved 1; then
		fail "target sent the AEN and answered Namespace Not Ready"
		return
	fi
	ktap_diag "  pass: AEN sent, Identify NS answered Namespace Not Ready"
	nap 3
	check "block device of NSID 1 still there" find_head 1
	check "read of NSID 1 works" read_back
	dmesg_grep "ns 1:" || true
}

# LBS: the logical block size of DEV's queue.
read_lbs() {
	LBS=
	find_head 1 || return 1
	{ read -r LBS <"/sys/block/${DEV##*/}/queue/logical_block_size"; } 2>/dev/null
}

lbs_is() { read_lbs && [ "$LBS" = "$1" ]; }

# A namespace in LBA format 16 of 17 (FLBAS 0x20: index bits 5:4 in bits
# 6:5), the only 4 KiB format: its block device has 4 KiB blocks.
sc_lbaf16() {
	target_start lbaf16 || { fail "target did not start"; return; }
	connect_ok || return
	check "logical block size 4096 (format 16)" lbs_is 4096
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
}

read_512_refused() {
	! timeout 30 dd if="$DEV" of=/dev/null bs=512 skip=1 count=1 \
		iflag=direct status=none 2>/dev/null
}

# A Format NVM sent through admin passthrough changes NSID 1 from 512-byte
# to 4 KiB LBAs: the host freezes I/O around it (Commands Supported and
# Effects), rescans, and replaces the namespace, whose block device then
# has 4 KiB logical blocks: a 512-byte direct read must fail.
sc_format() {
	local n

	# 8 MiB: the target zeroes it in the Format, within the keep-alive
	target_start format --ns-size 8 || { fail "target did not start"; return; }
	connect_ok || return
	check "logical block size 512 before the format" lbs_is 512
	n=/dev/nvfab${CTRL##*/nvfab}
	check "Format NVM, LBA format 1, through $n" timeout 60 \
		nvme admin-passthru "$n" --opcode=0x80 --namespace-id=1 --cdw10=1
	check "NSID 1 replaced: logical block size 4096" \
		wait_for 20000 lbs_is 4096
	check "kernel says the LBA format changed" \
		dmesg_grep "ns 1: LBA format changed"
	check "a 512-byte direct read is refused" read_512_refused
	check "8 KiB write after the format" write_pat
	check "read back" read_back
	check "data right" same_data
}

# find_connecting: CTRL is the controller of this scenario's NQN (the
# connect has not returned its instance yet).
find_connecting() {
	local d n

	for d in /sys/class/nvfab/nvfab*; do
		{ read -r n <"$d/subsysnqn"; } 2>/dev/null || continue
		[ "$n" = "$NQN" ] && { CTRL=$d; return 0; }
	done
	return 1
}

# delete_busy: a write to CTRL's delete_controller fails with EBUSY, and
# the controller stays.
delete_busy() {
	local err

	err=$( (echo 1 >"$CTRL/delete_controller") 2>&1) && return 1
	ktap_diag "  delete_controller: ${err##*: }"
	[[ "$err" == *"busy"* ]] && [ -e "$CTRL" ]
}

# param_set NAME VALUE: set nvfab_core's parameter NAME (PARAM_OLD keeps
# the old value); without a writable one, SKIP_WHY says so and it fails.
param_set() {
	local p=/sys/module/nvfab_core/parameters/$1

	if [ ! -w "$p" ]; then
		SKIP_WHY="no writable nvfab_core.$1 parameter"
		return 1
	fi
	read -r PARAM_OLD <"$p"
	echo "$2" >"$p"
}

param_restore() { echo "$PARAM_OLD" >"/sys/module/nvfab_core/parameters/$1"; }

# The target never answers the admin Connect: the connect fails within
# admin_timeout (5 s here), and the controller it was creating cannot be
# deleted from under it meanwhile (it belongs to the connect until it
# went live once).
sc_stall_connect() {
	local rc

	param_set admin_timeout 5 || return
	target_start stall-connect ||
		{ fail "target did not start"; param_restore admin_timeout; return; }
	connect_start
	if wait_for 5000 misbehaved 1 && find_connecting; then
		check "delete_controller while connecting: EBUSY" delete_busy
	else
		fail "controller visible while its Connect stalls"
	fi
	connect_wait 20000
	rc=$?
	param_restore admin_timeout
	if [ "$rc" = 124 ]; then
		fail "connect fails within the 5 s admin timeout (blocked after 20 s)"
	else
		check "connect fails (rc $rc) within 5 s + 5 ($CONNECT_MS ms)" \
			test "$rc" != 0 -a "$CONNECT_MS" -lt 10000
	fi
	check "target stalled the Connect" misbehaved 1
}

# The target never answers the first read of the namespace: the partition
# scan's. Connecting, error recovery (io_timeout 5 s here) and deletion
# must not wait for that scan: the read is retried after the reconnect and
# the device works; then the controller is deleted in bounded time.
sc_stall_first_read() {
	local rc

	param_set io_timeout 5 || return
	target_start stall-first-read ||
		{ fail "target did not start"; param_restore io_timeout; return; }
	connect_start
	connect_wait 30000
	rc=$?
	param_restore io_timeout
	check "connect returns while the first read stalls (rc $rc)" test "$rc" = 0
	[ "$rc" = 0 ] || return
	check "target stalled the first read" wait_for 15000 misbehaved 1
	check "block device of NSID 1 appears" wait_for 30000 find_head 1
	check "read works after the stalled read timed out (recovery)" \
		wait_for 45000 read_back
	check "controller live" wait_for 15000 is_live
	dmesg_grep "timeout|timed out" || true
	timed_delete 20000
	check "delete_controller returns within 20 s (rc $DEL_RC, $DEL_MS ms)" \
		test "$DEL_RC" != 124
	check "controller gone" wait_for 10000 ctrl_gone
}

# path_timeout_set MS: CTRL's path disk of NSID 1 (nvfabXcCn1, hidden)
# gets queue/io_timeout MS.
path_timeout_set() {
	local d c=${CTRL##*/nvfab}

	for d in /sys/block/nvfab*c"$c"n*; do
		[ -e "$d/queue/io_timeout" ] || continue
		echo "$1" >"$d/queue/io_timeout" || return 1
		ktap_diag "  ${d##*/}: queue/io_timeout $(cat "$d/queue/io_timeout") ms"
		return 0
	done
	return 1
}

# The per-path queue/io_timeout is what an I/O waits: set to 3 s on the
# path disk, a Read the target never answers times out after 3 s (not
# nvfab_core.io_timeout's 30) and completes after the reconnect.
sc_path_io_timeout() {
	local iopid rc t0

	target_start stall-first-read --trigger-lba "$TRIGGER_LBA" ||
		{ fail "target did not start"; return; }
	connect_ok || return
	check "pattern written" write_pat
	check "path disk queue/io_timeout set to 3000 ms" path_timeout_set 3000
	clock
	t0=$NOW
	read_back &
	iopid=$!
	check "target stalled the Read" wait_for 15000 misbehaved 1
	bg_wait "$iopid" 20000
	rc=$?
	clock
	check "the Read completes within 20 s (dd rc $rc, $((NOW - t0)) ms)" \
		test "$rc" = 0
	check "data right" same_data
	check "kernel: the command timed out" dmesg_grep "timed out"
}

# passthru_read DEV: a 4 KiB Read at TRIGGER_LBA through nvme-cli's I/O
# passthrough, with a 15 s command timeout.
passthru_read() {
	timeout 90 nvme io-passthru "$1" --opcode=0x2 --namespace-id=1 \
		--data-len=4096 --read --cdw10="$TRIGGER_LBA" --cdw12=7 \
		--timeout=15000 >/dev/null 2>&1
}

# set_iopolicy NAME: through the sysfs of CTRL's subsystem.
set_iopolicy() {
	local s

	for s in /sys/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/${CTRL##*/}" ] || continue
		echo "$1" >"$s/iopolicy" && return 0
	done
	return 1
}

# Two passthrough Reads that the target never answers (15 s timeout), one
# through the head and one through /dev/nvfabN. Neither holds a lock while
# it waits: a selector switch, which waits for an SRCU grace period of the
# subsystem, returns at once (it used to wait for the head's command), and
# so does a rescan. Deleting the controller drains the namespace's queue,
# as the block layer does for any disk: it returns once the commands time
# out, and both end with an error.
sc_stall_passthru() {
	local n t0 rc p1 p2

	target_start stall-first-read --trigger-lba "$TRIGGER_LBA" --count 2 ||
		{ fail "target did not start"; return; }
	connect_ok || return
	n=/dev/nvfab${CTRL##*/nvfab}
	passthru_read "$DEV" &
	p1=$!
	check "target stalled the Read through $DEV" wait_for 15000 misbehaved 1
	passthru_read "$n" &
	p2=$!
	check "target stalled the Read through $n" wait_for 15000 misbehaved 2
	clock
	t0=$NOW
	( set_iopolicy round-robin && set_iopolicy numa ) &
	bg_wait $! 8000
	rc=$?
	clock
	check "iopolicy switched twice meanwhile (rc $rc, $((NOW - t0)) ms)" \
		test "$rc" = 0
	clock
	t0=$NOW
	( echo 1 >"$CTRL/rescan_controller" ) 2>/dev/null &
	bg_wait $! 8000
	rc=$?
	clock
	check "rescan meanwhile (rc $rc, $((NOW - t0)) ms)" test "$rc" = 0
	check "controller still live" is_live
	timed_delete 60000
	check "delete_controller returns once the commands time out (rc $DEL_RC, $DEL_MS ms)" \
		test "$DEL_RC" != 124
	check "controller gone" wait_for 10000 ctrl_gone
	bg_wait "$p1" 10000
	rc=$?
	check "the passthrough on $DEV ends with an error (rc $rc)" \
		test "$rc" != 0 -a "$rc" != 124
	bg_wait "$p2" 10000
	rc=$?
	check "the passthrough on $n ends with an error (rc $rc)" \
		test "$rc" != 0 -a "$rc" != 124
}

# After the first association the target refuses every I/O queue Connect
# (Controller Busy, no DNR): a reset reconnects the admin queue and fails
# on the I/O queue, again every reconnect_delay. A passthrough Read sent
# meanwhile to /dev/nvfabN is not retried and must fail at once, not wait
# for ctrl_loss_tmo (30 s): the I/O queues were left quiesced after such a
# failure, so nothing reached the readiness check (nor fast_io_fail_tmo's).
sc_refuse_io_connect() {
	local n t0 rc

	target_start refuse-io-connect --count 1000 ||
		{ fail "target did not start"; return; }
	CONNECT_EXTRA=",fast_io_fail_tmo=3"
	connect_ok
	rc=$?
	CONNECT_EXTRA=
	[ "$rc" = 0 ] || return
	check "8 KiB write" write_pat
	( echo 1 >"$CTRL/reset_controller" ) 2>/dev/null &
	BGPIDS+=($!)
	check "target refused the I/O queue Connect of the reconnect" \
		wait_for 15000 misbehaved 1
	check "controller not live" not_live
	n=/dev/nvfab${CTRL##*/nvfab}
	clock
	t0=$NOW
	timeout 60 nvme io-passthru "$n" --opcode=0x2 --namespace-id=1 \
		--data-len=4096 --read --cdw10="$TRIGGER_LBA" --cdw12=7 \
		>/dev/null 2>&1 &
	bg_wait $! 20000
	rc=$?
	clock
	check "passthrough Read fails while reconnecting (rc $rc, $((NOW - t0)) ms)" \
		test "$rc" != 0 -a "$rc" != 124
	check "reconnects go on (several refusals)" wait_for 10000 misbehaved 3
	dmesg_grep "fail|Busy|busy" || true
}

# The 2 MiB ANA log is read in 1 MiB pieces (MDTS); the target moves
# CHGCNT to 2 right after the last piece of the first read. The host sees
# it in the header it reads again after the last piece and reads the whole
# log again (it used to take the mixed log as it was).
sc_ana_chgcnt() {
	target_start ana-chgcnt --ana-groups 65535 ||
		{ fail "target did not start"; return; }
	connect_ok || return
	check "target moved CHGCNT after the last piece" misbehaved 1
	check "host read the whole log again" misbehaved 2
	check "controller live" is_live
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
}

# A target that names 65,535 ANA groups (NANAGRPID and ANAGRPMAX too) in
# a 2 MiB log, read in MDTS-sized pieces: the controller connects, and
# only the group that has a namespace costs memory.
sc_ana_groups() {
	local before after

	read_slab
	before=$SLAB
	target_start ana-groups --ana-groups 65535 ||
		{ fail "target did not start"; return; }
	connect_ok || { dmesg_grep "ANA" || true; return; }
	check "target sent its ANA log of 65535 groups" misbehaved 1
	check "controller live" is_live
	check "no ANA log error" eval '! dmesg_grep "ANA log"'
	check "8 KiB write" write_pat
	check "read back" read_back
	check "data right" same_data
	read_slab
	after=$SLAB
	check "Slab grew by $(((after - before) / 1024)) MiB (< 8 MiB)" \
		test $((after - before)) -lt 8192
}

SLAB=0
read_slab() {
	local k v

	while read -r k v _; do
		[ "$k" = Slab: ] && { SLAB=$v; return; }
	done </proc/meminfo
}

# Whatever the scenario left: its controller, its target, the connect.
scenario_cleanup() {
	if [ -n "$CPID" ]; then
		wait_for 1000 pid_gone "$CPID" || BGPIDS+=("$CPID")
		CPID=
	fi
	delete_ctrl || fail "controller deleted within 30 s"
	no_splat || fail "kernel log has a splat"
	target_stop
	CTRL=
	DEV=
}

no_ctrls() {
	local d

	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d" ] && return 1
	done
	return 0
}

# delete_all MS: delete every controller, each in the background; wait.
delete_all() {
	local d

	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] || continue
		( echo 1 >"$d/delete_controller" ) 2>/dev/null &
	done
	wait_for "$1" no_ctrls
}

# hostile_end MODULE...: the last result: no controller left, the
# MODULEs unload, the kernel log is clean since the canary. A connect or
# delete still blocked holds the modules: it gets its time first.
hostile_end() {
	local ok=1

	wait_stragglers 90000
	delete_all 30000 || { ktap_diag "controllers left: $(ls /sys/class/nvfab)"; ok=0; }
	nvfab_unload "$@" || ok=0
	dmesg_clean_since_canary || ok=0
	ktap_check "modules unload, kernel log clean" test "$ok" = 1
	ktap_finish
}

# hostile_rdma.sh takes the functions above and runs its own scenarios.
[ -n "${HOSTILE_FUNCS_ONLY:-}" ] && return 0

cleanup() {
	[ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null
	spawn_stop
	delete_all 20000
	nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core >/dev/null 2>&1
}
trap cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 46
dmesg_canary_start
mkdir -p "$LOGDIR"
: >"$LOGDIR/connect.err"
ip link set lo up 2>/dev/null
spawn_start "$LOGDIR/spawn.log"
head -c 8192 /dev/urandom >"$PAT"

ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp
run_scenario "correct target: connect, write, read back, delete" sc_none
run_scenario "dup-resp" io_scenario dup-resp CapsuleResp read
run_scenario "c2h-after-resp" io_scenario c2h-after-resp C2HData read
run_scenario "resp-after-success" io_scenario resp-after-success CapsuleResp read
run_scenario "unknown-cid" io_scenario unknown-cid CapsuleResp read
run_scenario "r2t-after-resp" io_scenario r2t-after-resp R2T write
run_scenario "second-r2t" io_scenario second-r2t R2T write
run_scenario "short-identify" connect_fails short-identify "after 1024 of 4096"
run_scenario "maxcmd0" connect_fails maxcmd0 MAXCMD
run_scenario "bad-sqes" connect_fails bad-sqes SQES
run_scenario "ns-not-ready" sc_ns_not_ready
run_scenario "format" sc_format
run_scenario "lbaf16" sc_lbaf16
run_scenario "early-pdu" sc_early early-pdu "CapsuleResp for CID 0x0," \
	"C2HData for CID 0x0," "R2T for CID 0x0,"
run_scenario "cpda1" connect_fails cpda1 "CPDA 1 .*CPDA above 0"
run_scenario "auth-required" sc_authreq auth-required \
	"Required key not available" "requires authentication"
run_scenario "auth-required-io" sc_authreq auth-required-io \
	"Required key not available" "Connect \\(qid 1\\): the controller requires authentication"
run_scenario "auth-ascr" sc_authreq auth-ascr \
	"Operation not supported" "requires secure channel concatenation"
run_scenario "auth-required-later" sc_auth_later
run_scenario "chap-ok" sc_chap_ok
run_scenario "chap-tid" sc_chap_fault chap-tid "T_ID is not this transaction's"
run_scenario "chap-hash" sc_chap_fault chap-hash "HASHID was not offered"
run_scenario "chap-dhgroup" sc_chap_fault chap-dhgroup "DHGID was not offered"
run_scenario "chap-dh0" sc_chap_fault chap-dh0 "DH value is 0 or 1"
run_scenario "chap-dh1" sc_chap_fault chap-dh1 "DH value is 0 or 1"
run_scenario "chap-dhp1" sc_chap_fault chap-dhp1 "DH value is p - 1 or above"
run_scenario "chap-dhp" sc_chap_fault chap-dhp "DH value is p - 1 or above"
run_scenario "chap-dhvlen" sc_chap_fault chap-dhvlen "DHVLEN is not the DH group's size"
run_scenario "chap-hl" sc_chap_fault chap-hl "HL is not the hash's length"
run_scenario "chap-failure1" sc_chap_fault chap-failure1 "the controller refused the host \\(Failure1"
run_scenario "chap-wrong-host" sc_chap_fault chap-wrong-host "refused the host's response \\(Failure1"
run_scenario "chap-bad-r2" sc_chap_fault chap-bad-r2 "the controller's response is wrong"
run_scenario "chap-no-r2" sc_chap_fault chap-no-r2 "RVALID clear"
run_scenario "chap-late" sc_chap_rounds chap-late "" "C2HData for CID 0x[0-9a-f]+"
run_scenario "chap-close" sc_chap_rounds chap-close "Connection reset by peer" \
	"authentication: the connection closed before the transaction ended \(Reply\)"
run_scenario "stale-aer" sc_stale_aer
run_scenario "stall-connect" sc_stall_connect
run_scenario "stall-first-read" sc_stall_first_read
run_scenario "stall-passthru" sc_stall_passthru
run_scenario "path-io-timeout" sc_path_io_timeout
run_scenario "refuse-io-connect" sc_refuse_io_connect
run_scenario "refuse-sqflow" sc_refuse_sqflow
run_scenario "ana-groups" sc_ana_groups
run_scenario "ana-chgcnt" sc_ana_chgcnt

hostile_end nvfab-tcp nvfab-fabrics nvfab-core
