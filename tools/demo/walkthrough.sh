#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nvfab demo walkthrough. It is the guest side of `make demo`:
# tools/demo/demo.sh boots the stock Debian kernel, with nvfab installed by
# DKMS, and runs this script in it. `make check` runs its short form through
# selftests/nvfab/demo.sh, so that the demo cannot rot.
#
# The target is the in-kernel nvmet, in its own network namespace. It has
# one subsystem with 2 namespaces on null_blk, and 3 ports on separate veth
# paths. Their ANA states are optimized, non-optimized and optimized. The
# walkthrough then uses only what a user has (nvfabctl, sysfs, configfs,
# nvme-cli, fio):
#
#   1. creates a per-NQN policy in configfs, then connects every path
#   2. shows nvfabctl list-subsys (paths, ANA states, selector)
#   3. switches the path selector through sysfs
#   4. runs fio with verify, and shows each path's share of the I/O
#   5. flips ANA on the target under I/O: the I/O moves, and the stall is
#      measured
#   6. cuts a path under I/O: failover, time to detect, stall, reconnect
#   7. runs nvme id-ctrl and nvme ana-log on nvfab's controller nodes
#   8. follows the target's discovery controller on port 3 (nvfab-discovery,
#      a configfs entry): a subsystem that appears on the target is
#      connected by itself, and disconnected when it goes
#   9. connects a subsystem that requires bidirectional DH-HMAC-CHAP (port
#      3), with nvme-cli's keys in key files; a wrong controller key is
#      refused
#  10. disconnects, removes the configfs entries and unloads the modules
#
# Each step checks what it shows. It ends with one line,
# "[PASS] N. title (S s)", "[FAIL] N. title (failed: what failed)" or
# "[FAIL] N. title (not run: why)". Titles hold no "(". The last line
# is "demo: N of 10 steps passed". The exit status is 0 only when all 10
# passed. While fio runs, one row per second shows the bios routed to each
# path, with the path's ANA state.
#
# Run it as root in a throw-away guest (run-vm.sh). It creates a network
# namespace, veths and an nvmet target, and it loads and unloads modules.
#
# Environment:
#   DEMO_SHORT=1     the short form, for the selftest: shorter fio phases.
#                    NVFAB_DEMO_SHORT=1 does the same; run-vm.sh passes
#                    only NVFAB_* variables into a guest.
#   DEMO_MODPROBE    a command that loads one module, given its name. The
#                    default is nvfab_load (selftests/nvfab/lib.sh): insmod
#                    from $NVFAB_MODDIR when that is set (the test guest),
#                    else modprobe (the DKMS install in the demo guest).
#   DEMO_RESULT      file for one line per step ("step N PASS|FAIL title")
#                    and "passed N of 10"; default $OUT/demo-result when $OUT
#                    is set (run-vm.sh sets it), else none
#   NVFABCTL         the nvfabctl binary; default tools/nvfabctl/nvfabctl
#                    of this tree, else nvfabctl from PATH
#   DEMO_SYSFS       root of the sysfs that nvfab's classes are read from
#                    (default /sys; for tests of this script only)
set -u

: "${REPO_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
NVMET_NQN=${NVMET_NQN:-nqn.2014-08.org.example:nvfab-demo}
NVMET_NS_COUNT=2
# shellcheck source-path=SCRIPTDIR source=../../selftests/nvfab/lib.sh
. "$REPO_ROOT/selftests/nvfab/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../testing/vm/guest/topology.sh
. "$REPO_ROOT/tools/testing/vm/guest/topology.sh"

SHORT=${DEMO_SHORT:-${NVFAB_DEMO_SHORT:-0}}
[ "$SHORT" = 1 ] || SHORT=0
SYS=${DEMO_SYSFS:-/sys}
CFS=/sys/kernel/config/nvfab
RESULT=${DEMO_RESULT:-${OUT:+$OUT/demo-result}}
NQN=$NVMET_NQN
NPATHS=3
NSTEPS=10
NSIDS=(1 2)
# The nvfab modules, in load order. nvfab-ps-service-time is loaded before
# connect, because configfs gives the subsystem that selector.
MODS=(nvfab-core nvfab-fabrics nvfab-tcp nvfab-ps-service-time nvfab-discovery)
# Step 8: the subsystem that appears on the target, and the discovery
# entry that follows port 3 (port 1 is inaccessible since step 5: a new
# subsystem's namespace there would be in that ANA group too).
DISC_NQN=${NQN}-appears
SEC_NQN=${NQN}-secure
# port 3: optimized throughout (step 5 makes port 1 inaccessible)
SEC_PORT=3
DISC_ENTRY=demo
DISC_PORT=3
# What the target says about each port (index: path number).
TARGET_ANA=(- optimized non-optimized optimized)

# Phase lengths in seconds: fio runtimes, and when the ANA flip (step 5)
# and the cut (step 6) happen after the I/O starts. Step 6 must cover
# keep-alive detection (up to kato/2 + kato + 1 s, 8.5 s at the default
# kato of 5 s), then some I/O after the failover.
if [ "$SHORT" = 1 ]; then
	FIO4=4 FLIP_AT=2 FIO5=6 CUT_AT=2 FIO6=15
else
	FIO4=10 FLIP_AT=4 FIO5=12 CUT_AT=4 FIO6=20
fi

if [ -z "${NVFABCTL:-}" ]; then
	if [ -x "$REPO_ROOT/tools/nvfabctl/nvfabctl" ]; then
		NVFABCTL=$REPO_ROOT/tools/nvfabctl/nvfabctl
	else
		NVFABCTL=$(command -v nvfabctl || echo nvfabctl)
	fi
fi
# Named like the installed tool, so that the command lines shown read as a
# user would type them.
nvfabctl() { "$NVFABCTL" "$@"; }

declare -a CT=()	# CT[p]: the controller (nvfabC) of path p
declare -A PD=()	# PD[nsid:p]: sysfs dir of nsid's path disk on path p
declare -A HEAD=()	# HEAD[nsid]: sysfs dir of nsid's head
declare -a DEVS=()	# DEVS[nsid]: /dev/nvfabXnY of nsid's head
declare -a ROWPREV=() BURST=() FIGS=()
SUB=		# sysfs dir of the subsystem
FIOPID=
TMP=
TICK_FD=
EVENT=
LEGEND_SHOWN=
NOW_MS=0
AWAIT_MS=0
PASSED=0
STEP=0
TITLE=
STEP_T0=0
ABORT=
declare -a FAILS=()
TITLES=(-
	"Connect every path"
	"Show the subsystem: nvfabctl list-subsys"
	"Choose the path selector through sysfs"
	"Run fio with verify across the paths"
	"Flip ANA on the target under I/O"
	"Cut a path under I/O: failover"
	"nvme-cli on nvfab's device nodes: id-ctrl, ana-log"
	"A subsystem appears on the target: the host connects by itself"
	"Authentication both ways: DH-HMAC-CHAP with key files"
	"Disconnect cleanly and unload"
)

# --- output -----------------------------------------------------------------

INDENT='      '
say() { printf '%s%s\n' "$INDENT" "$*"; }
show_cmd() { printf '%s$ %s\n' "$INDENT" "$*"; }

# indent_file FILE [MAX]: a command's output, indented, MAX lines at most.
indent_file() {
	local f=$1 max=${2:-40} n=0 line

	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		[ "$n" -le "$max" ] && printf '%s  %s\n' "$INDENT" "$line"
	done <"$f"
	[ "$n" -le "$max" ] || printf '%s  ... (%d more lines)\n' "$INDENT" $((n - max))
	return 0
}

# run_show FILE CMD...: show the command line, run it (stdout and stderr to
# FILE), show its output. Returns the command's status.
run_show() {
	local f=$1 rc
	shift
	show_cmd "$*"
	"$@" >"$f" 2>&1
	rc=$?
	indent_file "$f"
	[ "$rc" = 0 ] || say "(exit status $rc)"
	return "$rc"
}

# --- time, without forks (a fork costs ~0.3 s on the test kernel) -----------

now_ms() {
	local t=${EPOCHREALTIME//[!0-9]/}
	NOW_MS=$((10#$t / 1000))
}

# secs VAR MS: VAR = MS as seconds with one decimal.
secs() { printf -v "$1" '%d.%d' $(($2 / 1000)) $(($2 % 1000 / 100)); }

# tick S: sleep S seconds (fractions allowed) on a pipe nobody writes to.
tick() { read -r -t "$1" -u "$TICK_FD" _ 2>/dev/null || :; }

# await SECONDS DESC CMD...: poll CMD every 0.2 s until it succeeds, for up
# to SECONDS; a progress line every 3 s. AWAIT_MS: how long it took.
await() {
	local limit=$(($1 * 1000)) desc=$2 t0 el next=3000
	shift 2

	now_ms
	t0=$NOW_MS
	while :; do
		if "$@"; then
			now_ms
			AWAIT_MS=$((NOW_MS - t0))
			return 0
		fi
		now_ms
		el=$((NOW_MS - t0))
		if [ "$el" -ge "$limit" ]; then
			AWAIT_MS=$el
			say "gave up waiting for $desc after $((el / 1000)) s"
			return 1
		fi
		if [ "$el" -ge "$next" ]; then
			say "... waiting for $desc ($((el / 1000)) s)"
			next=$((next + 3000))
		fi
		tick 0.2
	done
}

# --- steps ------------------------------------------------------------------

step_begin() {
	STEP=$1
	TITLE=${TITLES[$1]}
	FAILS=()
	now_ms
	STEP_T0=$NOW_MS
	printf '\n[%d/%d] %s\n' "$STEP" "$NSTEPS" "$TITLE"
}

# check DESC CMD...: one outcome of the current step.
check() {
	local desc=$1
	shift
	if "$@"; then
		say "check: $desc: ok"
	else
		say "check: $desc: FAILED"
		FAILS+=("$desc")
	fi
}

record() { # N PASS|FAIL TEXT
	[ -n "$RESULT" ] || return 0
	printf 'step %s %s %s\n' "$1" "$2" "$3" >>"$RESULT"
}

step_end() {
	local d why

	now_ms
	secs d $((NOW_MS - STEP_T0))
	if [ ${#FAILS[@]} = 0 ]; then
		PASSED=$((PASSED + 1))
		echo "[PASS] $STEP. $TITLE ($d s)"
		record "$STEP" PASS "$TITLE"
	else
		why=$(IFS=';'; echo "${FAILS[*]}")
		echo "[FAIL] $STEP. $TITLE (failed: ${why//;/; })"
		record "$STEP" FAIL "$TITLE (failed: ${why//;/; })"
	fi
}

step_not_run() { # N REASON
	printf '\n[%d/%d] %s\n' "$1" "$NSTEPS" "${TITLES[$1]}"
	echo "[FAIL] $1. ${TITLES[$1]} (not run: $2)"
	record "$1" FAIL "${TITLES[$1]} (not run: $2)"
}

# --- sysfs ------------------------------------------------------------------

ctrl_dir() { echo "$SYS/class/nvfab/${CT[$1]}"; }

# ctrl_state P: STATE = the state of path P's controller ("gone" if none).
ctrl_state() {
	STATE=gone
	[ -n "${CT[$1]:-}" ] || return 0
	read -r STATE <"$SYS/class/nvfab/${CT[$1]}/state" 2>/dev/null || STATE=gone
}

ctrl_live() { ctrl_state "$1"; [ "$STATE" = live ]; }
ctrl_not_live() { ! ctrl_live "$1"; }

all_live() {
	local p
	for ((p = 1; p <= NPATHS; p++)); do
		ctrl_live "$p" || return 1
	done
}

# find_subsys: SUB = the subsystem that links to path 1's controller.
find_subsys() {
	local s

	SUB=
	for s in "$SYS"/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/${CT[1]}" ] && SUB=$s && return 0
	done
	return 1
}

same_subsys() {
	local p
	for ((p = 2; p <= NPATHS; p++)); do
		[ -e "$SUB/${CT[$p]}" ] || return 1
	done
}

# map_paths: fill HEAD, DEVS and PD from the subsystem's heads. Succeeds
# when every namespace has a head with a path on every controller and a
# block device node.
map_paths() {
	local h ns l p c ok=0

	HEAD=()
	PD=()
	DEVS=()
	[ -n "$SUB" ] || return 1
	for h in "$SUB"/nvfab*n*; do
		[ -f "$h/nsid" ] || continue
		read -r ns <"$h/nsid" || continue
		HEAD[$ns]=$h
		DEVS[ns]=/dev/${h##*/}
		for ((p = 1; p <= NPATHS; p++)); do
			c=${CT[$p]#nvfab}
			for l in "$h"/multipath/nvfab*c"$c"n*; do
				[ -e "$l" ] && PD[$ns:$p]=$l
			done
		done
	done
	for ns in "${NSIDS[@]}"; do
		[ -n "${HEAD[$ns]:-}" ] || ok=1
		[ "$SYS" != /sys ] || [ -b "${DEVS[ns]:-/nonexistent}" ] || ok=1
		for ((p = 1; p <= NPATHS; p++)); do
			[ -n "${PD[$ns:$p]:-}" ] || ok=1
		done
	done
	return $ok
}

subsys_ready() { find_subsys && same_subsys && map_paths; }

# ana P: ANA = the host's ANA state of path P (nsid 1).
ana() {
	ANA=-
	[ -n "${PD[1:$1]:-}" ] || return 0
	read -r ANA <"${PD[1:$1]}/ana_state" 2>/dev/null || ANA=-
}

# host_matches_target: every path's host ANA state is the target's.
host_matches_target() {
	local p
	for ((p = 1; p <= NPATHS; p++)); do
		ana "$p"
		[ "$ANA" = "${TARGET_ANA[$p]}" ] || return 1
	done
}

# pstate P: PST = a short state of path P for the I/O table.
pstate() {
	ctrl_state "$1"
	if [ "$STATE" != live ]; then
		PST=DOWN
		return
	fi
	ana "$1"
	case "$ANA" in
	optimized) PST=opt ;;
	non-optimized) PST=non ;;
	inaccessible) PST=inacc ;;
	persistent-loss) PST=loss ;;
	change) PST=chg ;;
	*) PST=$ANA ;;
	esac
}

# snap ARRAY: ARRAY[p] = bios routed to path p so far, all namespaces.
snap() {
	local -n _snap_out=$1
	local p ns v

	for ((p = 1; p <= NPATHS; p++)); do
		_snap_out[p]=0
		for ns in "${NSIDS[@]}"; do
			v=0
			[ -n "${PD[$ns:$p]:-}" ] &&
				read -r v <"${PD[$ns:$p]}/routed_ios" 2>/dev/null
			[[ "$v" =~ ^[0-9]+$ ]] || v=0
			_snap_out[p]=$((_snap_out[p] + v))
		done
	done
}

# delta OUT A B: OUT[p] = B[p] - A[p] (0 if the counter went back).
delta() {
	local -n _d_out=$1 _d_a=$2 _d_b=$3
	local p

	for ((p = 1; p <= NPATHS; p++)); do
		_d_out[p]=$((_d_b[p] - _d_a[p]))
		[ "${_d_out[p]}" -ge 0 ] || _d_out[p]=0
	done
}

# shares ARRAY: "path 1 45.1%, path 2 0.0%, ..." of the counts in ARRAY.
shares() {
	local -n _sh_in=$1
	local p tot=0 out='' pm

	for ((p = 1; p <= NPATHS; p++)); do
		tot=$((tot + _sh_in[p]))
	done
	for ((p = 1; p <= NPATHS; p++)); do
		pm=0
		[ "$tot" = 0 ] || pm=$((_sh_in[p] * 1000 / tot))
		out+="${out:+, }path $p $((pm / 10)).$((pm % 10))%"
	done
	echo "$out (of $tot bios)"
}

# --- the I/O table ------------------------------------------------------------

table_head() {
	if [ -z "$LEGEND_SHOWN" ]; then
		say "The table: bios routed to each path per second (routed_ios), and the"
		say "path's state: opt, non, inacc = ANA optimized, non-optimized,"
		say "inaccessible; DOWN = its controller is not live."
		LEGEND_SHOWN=1
	fi
	printf '%s%7s  %7s %-5s  %7s %-5s  %7s %-5s  %6s\n' "$INDENT" t \
		"path 1" '' "path 2" '' "path 3" '' all
}

# row MS: one row of the table for the time since the I/O started.
row() {
	local -a cur=()
	local p d tot=0 line cell s

	snap cur
	secs s "$1"
	printf -v line '%s%6ss' "$INDENT" "$s"
	for ((p = 1; p <= NPATHS; p++)); do
		d=$((cur[p] - ROWPREV[p]))
		[ "$d" -ge 0 ] || d=0
		tot=$((tot + d))
		pstate "$p"
		printf -v cell '  %7s %-5s' "+$d" "$PST"
		line+=$cell
		ROWPREV[p]=${cur[p]}
	done
	printf -v cell '  %6d' "$tot"
	echo "$line$cell${EVENT:+  $EVENT}"
	EVENT=
}

# --- fio ----------------------------------------------------------------------

# fio_start NAME RUNTIME IODEPTH DEV...: fio verify in the background, one
# job per device; JSON in $TMP/NAME.json, messages in $TMP/NAME.log.
fio_start() {
	local name=$1 rt=$2 qd=$3 d n=0
	local -a args shown
	shift 3

	args=(--ioengine=libaio --direct=1 --rw=randrw --bs=4k
		--iodepth="$qd" --size=32m --time_based --runtime="$rt"
		--verify=crc32c --verify_fatal=1 --verify_backlog=32
		--verify_state_save=0 --eta=never --output-format=json
		--output="$TMP/$name.json")
	shown=(fio --rw=randrw --bs=4k --iodepth="$qd" --time_based
		--runtime="$rt" --verify=crc32c --verify_backlog=32)
	for d; do
		n=$((n + 1))
		args+=(--name="job$n" --filename="$d" --allow_file_create=0)
		shown+=(--name="job$n" --filename="$d")
	done
	show_cmd "${shown[*]}"
	say "  (and --ioengine=libaio --direct=1 --size=32m --verify_fatal=1 --output-format=json)"
	(cd "$TMP" && exec fio "${args[@]}") >"$TMP/$name.log" 2>&1 &
	FIOPID=$!
}

# fio_wait NAME: wait for fio; FIO_RC its status, its errors shown.
fio_wait() {
	wait "$FIOPID"
	FIO_RC=$?
	FIOPID=
	if [ "$FIO_RC" != 0 ]; then
		say "fio exited $FIO_RC:"
		grep -a -m5 -E 'err|verify|fio:' "$TMP/$1.log" | sed "s/^/$INDENT  /"
	fi
}

# fio_sum NAME: F_IOS F_IOPS F_MIBS F_MEAN F_MAX (ms) F_ERR from fio's JSON,
# summed over jobs and directions (tools/demo/fio_sum.py: total latency,
# submission included).
fio_sum() {
	local line

	F_IOS=0 F_IOPS=0 F_MIBS=0 F_MEAN=0 F_MAX=0 F_ERR='?'
	line=$(python3 -B "$REPO_ROOT/tools/demo/fio_sum.py" "$TMP/$1.json" 2>"$TMP/$1.pyerr") ||
		return 1
	read -r F_IOS F_IOPS F_MIBS F_MEAN F_MAX F_ERR <<<"$line"
}

# watch_io RUNTIME HOOK: while fio runs, call HOOK every 0.2 s with the ms
# since its first I/O, and print a table row every second. Fails when no
# I/O starts within 30 s, or when fio outlives RUNTIME + 60 s (it is killed).
watch_io() {
	local limit=$((($1 + 60) * 1000)) hook=${2:-} t0 el next=1000 p
	local -a s0=() s1=()

	snap s0
	now_ms
	t0=$NOW_MS
	while :; do
		snap s1
		[ $((s1[1] + s1[2] + s1[3])) -gt $((s0[1] + s0[2] + s0[3])) ] && break
		kill -0 "$FIOPID" 2>/dev/null || break
		now_ms
		if [ $((NOW_MS - t0)) -gt 30000 ]; then
			say "no I/O reached the paths within 30 s"
			return 1
		fi
		tick 0.1
	done
	table_head
	for ((p = 1; p <= NPATHS; p++)); do
		ROWPREV[p]=${s0[p]}
	done
	now_ms
	t0=$NOW_MS
	el=0
	EVENT=
	while kill -0 "$FIOPID" 2>/dev/null; do
		tick 0.2
		now_ms
		el=$((NOW_MS - t0))
		[ -z "$hook" ] || "$hook" "$el"
		if [ "$el" -ge "$next" ]; then
			row "$el"
			next=$(((el / 1000 + 1) * 1000))
		fi
		if [ "$el" -gt "$limit" ]; then
			say "fio still runs $((el / 1000)) s after its first I/O; killing it"
			kill -9 "$FIOPID" 2>/dev/null
			return 1
		fi
	done
	now_ms
	row $((NOW_MS - t0))
	return 0
}

# burst: 64 direct 4 KiB reads of nsid 1; BURST[p] = bios routed to path p.
burst() {
	# shellcheck disable=SC2034 # filled through namerefs
	local -a b0=() b1=()

	snap b0
	show_cmd "dd if=${DEVS[1]} of=/dev/null bs=4k count=64 iflag=direct"
	dd if="${DEVS[1]}" of=/dev/null bs=4k count=64 iflag=direct status=none \
		2>"$TMP/dd.err"
	BURST_RC=$?
	snap b1
	delta BURST b0 b1
	say "-> routed: path 1 +${BURST[1]}, path 2 +${BURST[2]}, path 3 +${BURST[3]}"
	[ "$BURST_RC" = 0 ] || { say "dd exited $BURST_RC:"; indent_file "$TMP/dd.err"; }
}

# --- setup and cleanup ----------------------------------------------------------

load_mod() {
	if [ -n "${DEMO_MODPROBE:-}" ]; then
		# shellcheck disable=SC2086 # a command with its arguments
		$DEMO_MODPROBE "$1"
	else
		nvfab_load "$1"
	fi
}

cleanup() {
	local p m i

	if [ -n "$FIOPID" ]; then
		kill -9 "$FIOPID" 2>/dev/null
		wait "$FIOPID" 2>/dev/null
	fi
	ip link set "$(topo_host_if 3)" up 2>/dev/null
	for ((p = 1; p <= NPATHS; p++)); do
		[ -n "${CT[$p]:-}" ] || continue
		[ -e "$SYS/class/nvfab/${CT[$p]}/delete_controller" ] &&
			echo 1 >"$SYS/class/nvfab/${CT[$p]}/delete_controller" 2>/dev/null
	done
	for ((i = 0; i < 100; i++)); do
		ctrls_gone && break
		sleep 0.2
	done
	[ -d "$CFS/subsystems/$NQN" ] && rmdir "$CFS/subsystems/$NQN" 2>/dev/null
	[ -d "$CFS/discovery/$DISC_ENTRY" ] && rmdir "$CFS/discovery/$DISC_ENTRY" 2>/dev/null
	disc_ctrl && echo 1 >"$SYS/class/nvfab/$DCT/delete_controller" 2>/dev/null
	for ((i = ${#MODS[@]} - 1; i >= 0; i--)); do
		m=${MODS[i]}
		nvfab_mod_loaded "$m" && rmmod "${m//-/_}" 2>/dev/null
	done
	topo_cleanup >/dev/null 2>&1
	[ -z "$TICK_FD" ] || exec {TICK_FD}>&-
	[ -z "$TMP" ] || rm -rf "$TMP"
}

ctrls_gone() {
	local p
	for ((p = 1; p <= NPATHS; p++)); do
		[ -z "${CT[$p]:-}" ] || [ ! -e "$SYS/class/nvfab/${CT[$p]}" ] || return 1
	done
}

mods_gone() {
	local m
	for m in "${MODS[@]}"; do
		! nvfab_mod_loaded "$m" || return 1
	done
}

# prepare: the target and the modules. Not a step of its own: without it
# no step can run.
prepare() {
	local p t m f v how

	printf '\n[setup] The target, and nvfab'"'"'s modules\n'
	if [ "$(id -u)" != 0 ]; then
		say "must run as root"
		return 1
	fi
	for t in fio nvme python3 ip nsenter dd; do
		command -v "$t" >/dev/null || { say "$t is missing"; return 1; }
	done
	if ! [ -x "$NVFABCTL" ]; then
		say "nvfabctl not found; build it with: make -C tools/nvfabctl"
		return 1
	fi
	dmesg_canary_start

	say "target: the in-kernel nvmet, in network namespace $TOPO_NS"
	say "  subsystem $NQN"
	say "  $NVMET_NS_COUNT namespaces on null_blk (memory-backed, 1 GiB each)"
	# whatever an interrupted earlier run left behind goes first: the
	# target, and regular files created under vanished /dev/nvfab* names
	nvmet_teardown >/dev/null 2>&1
	for f in /dev/nvfab*; do
		[ -f "$f" ] && rm -f "$f"
	done
	if ! topo_up "$NPATHS" || ! nvmet_setup "$NPATHS"; then
		say "could not set up the target"
		return 1
	fi
	for ((p = 1; p <= NPATHS; p++)); do
		nvmet_set_ana "$p" "${TARGET_ANA[$p]}" || return 1
		say "  port $p: $(topo_tgt_addr "$p"):$NVMET_TRSVCID, ANA ${TARGET_ANA[$p]}; host side $(topo_host_if "$p") $(topo_host_addr "$p")"
	done

	if [ -n "${DEMO_MODPROBE:-}" ]; then
		how="with $DEMO_MODPROBE"
	elif [ -n "${NVFAB_MODDIR:-}" ]; then
		how="insmod from $NVFAB_MODDIR"
	else
		how="modprobe, from /lib/modules/$(uname -r)"
	fi
	say "loading ${MODS[*]} ($how)"
	for m in "${MODS[@]}"; do
		if ! load_mod "$m"; then
			say "could not load $m"
			return 1
		fi
	done
	for m in "${MODS[@]}"; do
		v=$(cat "/sys/module/${m//-/_}/version" 2>/dev/null || echo '?')
		f=$(modinfo -F filename "$m" 2>/dev/null)
		[ -n "${NVFAB_MODDIR:-}" ] && f=
		say "  $m $v${f:+  $f}"
	done
	[ -d "$CFS" ] || { say "$CFS missing (configfs not mounted?)"; return 1; }
	return 0
}

# --- the steps ------------------------------------------------------------------

step1() {
	local e=$CFS/subsystems/$NQN p out rc t0 d v

	step_begin 1
	say "A policy for this subsystem NQN, set in configfs before connecting,"
	say "applies from its first I/O:"
	show_cmd "mkdir $e"
	[ -d "$e" ] || mkdir "$e" 2>"$TMP/err" || indent_file "$TMP/err"
	show_cmd "echo service-time > $e/iopolicy"
	echo service-time >"$e/iopolicy" 2>"$TMP/err" || indent_file "$TMP/err"
	v=$(cat "$e/iopolicy" 2>/dev/null)
	check "configfs entry holds iopolicy service-time" test "$v" = service-time

	for ((p = 1; p <= NPATHS; p++)); do
		show_cmd "nvfabctl connect -t tcp -a $(topo_tgt_addr "$p") -s $NVMET_TRSVCID -w $(topo_host_addr "$p") -n $NQN -c 1"
		now_ms
		t0=$NOW_MS
		out=$(nvfabctl connect -t tcp -a "$(topo_tgt_addr "$p")" \
			-s "$NVMET_TRSVCID" -w "$(topo_host_addr "$p")" -n "$NQN" \
			-c 1 2>"$TMP/err")
		rc=$?
		now_ms
		d=$((NOW_MS - t0))
		[ -z "$out" ] || say "  $out"
		indent_file "$TMP/err"
		if [ "$rc" = 0 ] && [[ "$out" =~ ^nvfab[0-9]+$ ]]; then
			CT[p]=$out
			say "  (path $p: controller $out, connected in $d ms)"
		else
			say "  (exit status $rc)"
		fi
	done
	check "3 paths connected (${CT[*]})" test "${#CT[@]}" = "$NPATHS"
	if [ "${#CT[@]}" != "$NPATHS" ]; then
		ABORT="not every path connected"
		step_end
		return
	fi
	await 20 "the controllers to be live" all_live
	check "all 3 controllers live" all_live
	await 20 "the namespaces on every path" subsys_ready
	check "one subsystem (${SUB##*/}) holds all 3 controllers" same_subsys
	check "2 namespaces, each one block device (${DEVS[*]}) with 3 paths" map_paths
	if ! map_paths; then
		ABORT="the multipath devices did not appear"
		step_end
		return
	fi
	v=$(cat "$SUB/iopolicy" 2>/dev/null)
	say "the subsystem's iopolicy: $v"
	check "the subsystem started with the configfs iopolicy (service-time)" \
		test "$v" = service-time
	FIGS+=("1. 3 paths connected: ${CT[*]}; multipath devices ${DEVS[*]}")
	step_end
}

# The JSON check of step 2: ARGS: FILE NQN IOPOLICY CTRL=ANA,...
# list-subsys -o json is nvme-cli's: hosts, their subsystems (Name, NQN,
# Paths: one per controller), plus nvfab's IOPolicy and Namespaces, each
# with its Paths (Name: the controller, ANAState).
LIST_SUBSYS_CHECK='
import json
import sys

path, nqn, policy, expect = sys.argv[1:5]
want = dict(kv.split("=", 1) for kv in expect.split(","))
try:
    doc = json.load(open(path))
except ValueError as e:
    print("not JSON: %s" % e)
    sys.exit(1)
subs = [s for h in doc for s in h.get("Subsystems") or []
        if s.get("NQN") == nqn]
if len(subs) != 1:
    print("%d subsystems with NQN %s" % (len(subs), nqn))
    sys.exit(1)
s = subs[0]
bad = []
if s.get("IOPolicy") != policy:
    bad.append("IOPolicy %r, expected %r" % (s.get("IOPolicy"), policy))
states = {c.get("Name"): c.get("State") for c in s.get("Paths") or []}
for c in sorted(want):
    if states.get(c) != "live":
        bad.append("controller %s is %r" % (c, states.get(c)))
nss = s.get("Namespaces") or []
nsids = sorted(n.get("NSID") or 0 for n in nss)
if nsids != [1, 2]:
    bad.append("namespaces %r, expected [1, 2]" % nsids)
for n in nss:
    got = {p.get("Name"): p.get("ANAState") for p in n.get("Paths") or []}
    if got != want:
        bad.append("nsid %s paths %r, expected %r" % (n.get("NSID"), got, want))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
'

step2() {
	local rc p expect=

	step_begin 2
	await 20 "the host's ANA states to match the target's" host_matches_target
	run_show "$TMP/ls.txt" nvfabctl list-subsys
	rc=$?
	check "nvfabctl list-subsys exits 0" test "$rc" = 0
	say "One line per controller, then per namespace one line per path:"
	say "its disk, controller, ANA state, ANA group and bios routed (share)."
	for ((p = 1; p <= NPATHS; p++)); do
		expect+="${expect:+,}${CT[$p]}=${TARGET_ANA[$p]}"
	done
	show_cmd "nvfabctl list-subsys -o json    (checked, not shown)"
	nvfabctl list-subsys -o json >"$TMP/ls.json" 2>"$TMP/err"
	python3 -c "$LIST_SUBSYS_CHECK" "$TMP/ls.json" "$NQN" service-time \
		"$expect" >"$TMP/lscheck.txt" 2>&1
	rc=$?
	indent_file "$TMP/lscheck.txt"
	check "list-subsys -o json: selector service-time, 3 live controllers, 2 namespaces with paths $expect" \
		test "$rc" = 0
	step_end
}

step3() {
	local f=$SUB/iopolicy v rc mark

	step_begin 3
	show_cmd "cat $f"
	v=$(cat "$f" 2>&1)
	say "  $v"
	show_cmd "echo round-robin > $f"
	echo round-robin >"$f" 2>"$TMP/err" || indent_file "$TMP/err"
	show_cmd "cat $f"
	v=$(cat "$f" 2>&1)
	say "  $v"
	check "iopolicy reads back round-robin" test "$v" = round-robin
	say "round-robin sends each I/O to the next path of the best ANA tier:"
	say "paths 1 and 3 (optimized) share the I/O, path 2 (non-optimized) waits."

	mark=$(dmesg_mark)
	show_cmd "echo fastest > $f"
	echo fastest >"$f" 2>"$TMP/err"
	# shellcheck disable=SC2320 # the status of that write is the point
	rc=$?
	v=$(sed 's/.*echo: //' "$TMP/err")
	[ -z "$v" ] || say "  $v"
	dmesg_since "$mark" | grep -a -m2 'nvfab' | sed "s/^/$INDENT  kernel: /"
	v=$(cat "$f" 2>&1)
	check "an unknown selector is refused, the policy stays round-robin" \
		test "$rc" != 0 -a "$v" = round-robin
	FIGS+=("3. selector: service-time from configfs at connect, round-robin through sysfs")
	step_end
}

step4() {
	# shellcheck disable=SC2034 # filled through namerefs
	local -a a=() b=() d=()
	local ok_watch

	step_begin 4
	say "4 KiB random reads and writes, crc32c verify, QD8 on each namespace, $FIO4 s:"
	snap a
	fio_start fio4 "$FIO4" 8 "${DEVS[1]}" "${DEVS[2]}"
	watch_io "$FIO4"
	ok_watch=$?
	check "fio ran and finished in time" test "$ok_watch" = 0
	fio_wait fio4
	snap b
	delta d a b
	fio_sum fio4
	say "fio: $F_IOS I/Os, $F_IOPS IOPS, $F_MIBS MiB/s; latency mean $F_MEAN ms, longest $F_MAX ms (submission to completion)"
	say "I/O share: $(shares d)"
	check "fio verify clean, no I/O error (exit $FIO_RC, error ${F_ERR})" \
		test "$FIO_RC" = 0 -a "$F_ERR" = 0
	check "both optimized paths carried I/O (path 1 +${d[1]}, path 3 +${d[3]})" \
		test "${d[1]}" -gt 0 -a "${d[3]}" -gt 0
	check "the non-optimized path 2 carried none (+${d[2]})" test "${d[2]}" = 0
	FIGS+=("4. fio verify: $F_IOS I/Os, $F_IOPS IOPS, mean $F_MEAN ms; $(shares d)")
	step_end
}

# Step 5's hook, every 0.2 s while fio runs: flip, then follow the host.
s5_hook() {
	local -a t=()

	if [ -z "$FLIP_MS" ]; then
		[ "$1" -ge $((FLIP_AT * 1000)) ] || return 0
		nvmet_set_ana 1 inaccessible
		nvmet_set_ana 2 optimized
		TARGET_ANA[1]=inaccessible
		TARGET_ANA[2]=optimized
		now_ms
		FLIP_MS=$NOW_MS
		snap FLIPSNAP
		EVENT="<- target: port 1 inaccessible, port 2 optimized"
		return 0
	fi
	if [ -z "$SEEN_MS" ]; then
		host_matches_target || return 0
		now_ms
		SEEN_MS=$NOW_MS
		EVENT+="${EVENT:+; }host follows (+$((SEEN_MS - FLIP_MS)) ms)"
		return 0
	fi
	# One tick after the host switched: from here on, path 1 gets nothing.
	[ -n "$AFTER_SET" ] || { snap AFTER; AFTER_SET=1; }
	if [ -z "$MOVED_MS" ]; then
		snap t
		[ "${t[2]}" -gt "${FLIPSNAP[2]}" ] || return 0
		now_ms
		MOVED_MS=$NOW_MS
		EVENT+="${EVENT:+; }I/O on path 2 (+$((MOVED_MS - FLIP_MS)) ms)"
	fi
}

step5() {
	# shellcheck disable=SC2034 # filled through namerefs
	local -a end=() d=()
	local ok_watch seen=never

	step_begin 5
	say "fio verify at QD1 on nsid 1. After $FLIP_AT s the target makes port 1"
	say "inaccessible and port 2 optimized, as an array does when it moves a"
	say "volume between controllers. The host gets an ANA change notice,"
	say "reads the ANA log and moves the I/O. The longest completion is the"
	say "stall an application sees."
	FLIP_MS='' SEEN_MS='' MOVED_MS='' AFTER_SET=''
	# shellcheck disable=SC2034 # filled through namerefs
	FLIPSNAP=() AFTER=()
	fio_start fio5 "$FIO5" 1 "${DEVS[1]}"
	watch_io "$FIO5" s5_hook
	ok_watch=$?
	fio_wait fio5
	if [ -z "$FLIP_MS" ]; then
		# fio ended before the flip: flip now, so that later steps see
		# the states they expect, and fail this step.
		s5_hook $((FLIP_AT * 1000))
		say "fio ended before the flip"
		ok_watch=1
	fi
	if [ -z "$SEEN_MS" ] && await 20 "the host to follow the ANA change" host_matches_target; then
		now_ms
		SEEN_MS=$NOW_MS
	fi
	check "fio ran and finished in time, with the flip during its I/O" test "$ok_watch" = 0
	check "the host took the new ANA states" test -n "$SEEN_MS"
	snap end
	if [ "$AFTER_SET" = 1 ]; then
		delta d AFTER end
		check "no I/O to path 1 once it was inaccessible (+${d[1]})" test "${d[1]}" = 0
	fi
	fio_sum fio5
	check "fio verify clean across the flip, no I/O error (exit $FIO_RC, error $F_ERR)" \
		test "$FIO_RC" = 0 -a "$F_ERR" = 0
	burst
	check "new I/O goes to paths 2 and 3 only" \
		test "$BURST_RC" = 0 -a "${BURST[1]}" = 0 -a "${BURST[2]}" -gt 0 -a "${BURST[3]}" -gt 0
	[ -z "$SEEN_MS" ] || seen="$((SEEN_MS - FLIP_MS)) ms"
	say "the host followed the target after $seen"
	[ -z "$MOVED_MS" ] || say "the first I/O on path 2 went out $((MOVED_MS - FLIP_MS)) ms after the flip"
	say "stall: longest completion across the flip $F_MAX ms (mean $F_MEAN ms, $F_IOS I/Os at QD1)"
	FIGS+=("5. ANA flip: host followed after $seen; stall (longest completion at QD1) $F_MAX ms, mean $F_MEAN ms")
	step_end
}

# Step 6's hook: cut, then watch for detection and for the I/O to resume.
s6_hook() {
	local -a t=()
	local s

	if [ -z "$CUT_MS" ]; then
		[ "$1" -ge $((CUT_AT * 1000)) ] || return 0
		topo_cut 3
		now_ms
		CUT_MS=$NOW_MS
		EVENT="<- link of path 3 cut"
		return 0
	fi
	if [ -z "$DET_MS" ]; then
		ctrl_live 3 && return 0
		now_ms
		DET_MS=$NOW_MS
		DET_STATE=$STATE
		snap DETSNAP
		secs s $((DET_MS - CUT_MS))
		EVENT+="${EVENT:+; }path 3 controller $STATE (+$s s)"
		return 0
	fi
	[ -n "$AFTER_SET" ] || { snap AFTER; AFTER_SET=1; }
	if [ -z "$RESUME_MS" ]; then
		snap t
		[ $((t[1] + t[2])) -gt $((DETSNAP[1] + DETSNAP[2])) ] || return 0
		now_ms
		RESUME_MS=$NOW_MS
		secs s $((RESUME_MS - CUT_MS))
		EVENT+="${EVENT:+; }I/O flows on path 2 (+$s s)"
	fi
}

step6() {
	# shellcheck disable=SC2034 # filled through namerefs
	local -a end=() d=()
	local ok_watch kato s det=never res=never rec=never

	step_begin 6
	read -r kato <"$(ctrl_dir 3)/kato" 2>/dev/null || kato='?'
	say "fio verify at QD4 on both namespaces. After $CUT_AT s the link of path 3"
	say "goes down (ip link set $(topo_host_if 3) down): no error and no FIN,"
	say "the packets just vanish. Keep-alive (kato $kato s) finds the dead"
	say "controller. Its I/O then goes to path 2, the only other usable path"
	say "(path 1 has been inaccessible since step 5)."
	CUT_MS='' DET_MS='' DET_STATE='' RESUME_MS='' AFTER_SET=''
	# shellcheck disable=SC2034 # filled through namerefs
	DETSNAP=() AFTER=()
	fio_start fio6 "$FIO6" 4 "${DEVS[1]}" "${DEVS[2]}"
	watch_io "$FIO6" s6_hook
	ok_watch=$?
	fio_wait fio6
	if [ -z "$CUT_MS" ]; then
		say "fio ended before the cut"
		topo_cut 3
		now_ms
		CUT_MS=$NOW_MS
		ok_watch=1
	fi
	if [ -z "$DET_MS" ] && await 30 "keep-alive to find the cut" ctrl_not_live 3; then
		now_ms
		DET_MS=$NOW_MS
		DET_STATE=$STATE
	fi
	check "fio ran and finished in time, with the cut during its I/O" test "$ok_watch" = 0
	check "the host found the dead path (controller ${DET_STATE:-still live})" test -n "$DET_MS"
	snap end
	if [ "$AFTER_SET" = 1 ]; then
		delta d AFTER end
		check "no I/O to path 3 after its controller went down (+${d[3]})" test "${d[3]}" = 0
	fi
	fio_sum fio6
	check "fio verify clean through the failover: no error reached the application (exit $FIO_RC, error $F_ERR)" \
		test "$FIO_RC" = 0 -a "$F_ERR" = 0
	burst
	check "new I/O all on path 2" \
		test "$BURST_RC" = 0 -a "${BURST[1]}" = 0 -a "${BURST[2]}" -gt 0 -a "${BURST[3]}" = 0
	[ -z "$DET_MS" ] || { secs det $((DET_MS - CUT_MS)); det="$det s"; }
	[ -z "$RESUME_MS" ] || { secs res $((RESUME_MS - CUT_MS)); res="$res s"; }
	say "keep-alive found the dead path after $det; I/O flowed on path 2 again after $res"
	say "stall: longest completion $F_MAX ms (mean $F_MEAN ms, $F_IOS I/Os)"

	say "The link comes back; the controller reconnects (reconnect_delay 1 s):"
	show_cmd "ip link set $(topo_host_if 3) up"
	topo_restore 3
	if await 60 "path 3 to reconnect" ctrl_live 3; then
		secs s "$AWAIT_MS"
		rec="$s s"
	fi
	check "path 3 reconnected (after $rec)" ctrl_live 3
	await 20 "the namespaces on path 3" map_paths
	await 20 "path 3's ANA state" host_matches_target
	pstate 3
	check "path 3 back as optimized" test "$PST" = opt
	FIGS+=("6. cut: detected after $det, I/O resumed after $res, stall (longest completion) $F_MAX ms, reconnected after $rec")
	step_end
}

# The JSON of step 7: ARGS: ID-CTRL.json ANA-LOG.json; prints
# "cntlid<TAB>subnqn<TAB>mn<TAB>fr<TAB>group 1 state<TAB>its nsids".
NVME_JSON_SUMMARY='
import json
import sys

def load(path):
    text = open(path, errors="replace").read()
    return json.JSONDecoder().raw_decode(text[text.index("{"):])[0]

def groups(node):
    if isinstance(node, dict):
        if "grpid" in node and "state" in node:
            yield node
        for v in node.values():
            yield from groups(v)
    elif isinstance(node, list):
        for v in node:
            yield from groups(v)

out = ["-"] * 6
try:
    idc = load(sys.argv[1])
    out[0] = str(idc.get("cntlid", "-"))
    out[1] = str(idc.get("subnqn", "-")).strip() or "-"
    out[2] = str(idc.get("mn", "-")).strip() or "-"
    out[3] = str(idc.get("fr", "-")).strip() or "-"
except (OSError, ValueError):
    pass
try:
    for g in groups(load(sys.argv[2])):
        if g.get("grpid") == 1:
            out[4] = str(g.get("state"))
            ids = [n.get("nsid") for n in g.get("NSIDS") or [] if isinstance(n, dict)]
            out[5] = ",".join(str(i) for i in ids) or "-"
except (OSError, ValueError):
    pass
print("\t".join(out))
'

step7() {
	local c=${CT[1]} p rc1 rc2 ok_cmd=0 ok_id=0 ok_ana=0 line
	local cntlid subnqn mn fr gstate nsids sys_cntlid

	step_begin 7
	show_cmd "nvme id-ctrl /dev/$c    (selected fields)"
	nvme id-ctrl "/dev/$c" >"$TMP/idctrl.txt" 2>&1
	rc1=$?
	grep -a -E '^(vid|sn|mn|fr|cmic|ver|cntlid|kas|anatt|anacap|nanagrpid|subnqn) +:' \
		"$TMP/idctrl.txt" >"$TMP/idctrl.sel"
	[ "$rc1" = 0 ] || cp "$TMP/idctrl.txt" "$TMP/idctrl.sel"
	indent_file "$TMP/idctrl.sel"
	run_show "$TMP/analog.txt" nvme ana-log "/dev/$c"
	rc2=$?
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || ok_cmd=1

	say "The same, as JSON, on every controller, against sysfs and the target:"
	printf '%s  %-5s %-8s %-7s %-20s %-15s %-15s %s\n' "$INDENT" path device cntlid \
		"ana-log group 1" "host ana_state" "target port" "nsids"
	for ((p = 1; p <= NPATHS; p++)); do
		c=${CT[$p]}
		nvme id-ctrl "/dev/$c" -o json >"$TMP/id$p.json" 2>"$TMP/id$p.err" || ok_cmd=1
		nvme ana-log "/dev/$c" -o json >"$TMP/ana$p.json" 2>"$TMP/ana$p.err" || ok_cmd=1
		line=$(python3 -c "$NVME_JSON_SUMMARY" "$TMP/id$p.json" "$TMP/ana$p.json")
		IFS=$'\t' read -r cntlid subnqn mn fr gstate nsids <<<"$line"
		read -r sys_cntlid <"$(ctrl_dir "$p")/cntlid" 2>/dev/null || sys_cntlid='?'
		ana "$p"
		printf '%s  %-5s %-8s %-7s %-20s %-15s %-15s %s\n' "$INDENT" "$p" "$c" \
			"$cntlid" "$gstate" "$ANA" "${TARGET_ANA[$p]}" "$nsids"
		if [ "$subnqn" != "$NQN" ] || [ "$cntlid" != "$sys_cntlid" ] ||
			[ "$mn" = - ]; then
			say "  path $p: subnqn '$subnqn', cntlid $cntlid (sysfs $sys_cntlid), model '$mn'"
			ok_id=1
		fi
		if [ "$gstate" != "$ANA" ] || [ "$gstate" != "${TARGET_ANA[$p]}" ] ||
			[ "$nsids" != 1,2 ]; then
			ok_ana=1
		fi
	done
	check "nvme id-ctrl and nvme ana-log work on every /dev/nvfabN" test "$ok_cmd" = 0
	check "id-ctrl: the target's subnqn, a model, and the cntlid sysfs shows" test "$ok_id" = 0
	check "ana-log: group 1 (nsids 1,2) in the state the target set and the host shows" \
		test "$ok_ana" = 0
	FIGS+=("7. nvme-cli: id-ctrl model '$mn', firmware $fr, subnqn $subnqn; ana-log as the target and sysfs say on all 3")
	step_end
}

# disc_ctrl: DCT = the controller of $DISC_NQN (any state), if any.
disc_ctrl() {
	local c v
	DCT=
	for c in "$SYS"/class/nvfab/nvfab*; do
		read -r v 2>/dev/null <"$c/subsysnqn" || continue
		[ "$v" = "$DISC_NQN" ] && { DCT=${c##*/}; return 0; }
	done
	return 1
}
disc_gone() { ! disc_ctrl; }

# ctrl_usable CTRL: controller CTRL (nvfabN) is live and the first 4 KiB
# of a namespace of its subsystem read back (O_DIRECT); UDEV is that
# block device.
ctrl_usable() {
	local s h st
	read -r st 2>/dev/null <"$SYS/class/nvfab/$1/state" && [ "$st" = live ] || return 1
	for s in "$SYS"/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/$1" ] || continue
		for h in "$s"/nvfab*n*; do
			[ -f "$h/nsid" ] || continue
			UDEV=/dev/${h##*/}
			[ -b "$UDEV" ] &&
				dd if="$UDEV" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
				return 0
		done
	done
	return 1
}

# disc_usable: $DISC_NQN's controller is usable (ctrl_usable); DDEV is
# its block device.
disc_usable() {
	disc_ctrl && ctrl_usable "$DCT" && DDEV=$UDEV
}

# log_line NQN: the entry's Discovery Log line of NQN.
log_line() {
	grep -a -m1 -E "(^| )subnqn=$1 " "$CFS/discovery/$DISC_ENTRY/log" 2>/dev/null
}

# log_settled NQN: NQN's entry is in the log and no longer waiting for or
# in a connect.
log_settled() {
	local l
	l=$(log_line "$1") || return 1
	case "$l" in *" state=pending "* | *" state=connecting "*) return 1 ;; esac
}

entry_live() {
	local st
	read -r st 2>/dev/null <"$CFS/discovery/$DISC_ENTRY/state" && [ "$st" = live ]
}
entry_removed() { [ ! -e "$CFS/discovery/$DISC_ENTRY" ] && all_live; }

step8() {
	local e=$CFS/discovery/$DISC_ENTRY sub=$NVMET_CFS/subsystems/$DISC_NQN
	local img=$TMP/appears.img st line t0 took=never gone=never rc

	step_begin 8
	say "nvfab-discovery follows a discovery controller: it reads the target's"
	say "Discovery Log Page (again on every change notice, reconnect and poll)"
	say "and connects what appears, disconnects what goes. The target has a"
	say "second subsystem, not yet exported on any port:"
	say "  $DISC_NQN (one namespace on a 64 MiB file)"
	if ! { mkdir -p "$sub/namespaces/1" && echo 1 >"$sub/attr_allow_any_host" &&
		truncate -s 64M "$img" && echo "$img" >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/enable"; } 2>"$TMP/err"; then
		indent_file "$TMP/err"
	fi
	say "A discovery entry for port $DISC_PORT (path $DISC_PORT, optimized), in configfs:"
	show_cmd "mkdir $e"
	mkdir "$e" 2>"$TMP/err" || indent_file "$TMP/err"
	show_cmd "echo tcp > $e/transport"
	show_cmd "echo $(topo_tgt_addr "$DISC_PORT") > $e/traddr; echo $NVMET_TRSVCID > $e/trsvcid"
	show_cmd "echo $(topo_host_addr "$DISC_PORT") > $e/host_traddr"
	# The host identity of step 1's controllers: a path is (host, address,
	# source), so the entry sees path $DISC_PORT's controller as the same.
	local c hnqn= hid=
	for c in /sys/class/nvfab/nvfab*; do
		[ -r "$c/hostnqn" ] || continue
		read -r hnqn <"$c/hostnqn" && read -r hid <"$c/hostid" && break
	done
	show_cmd "echo $hnqn > $e/hostnqn; echo $hid > $e/hostid    (as step 1's controllers)"
	show_cmd "echo 1 > $e/enable"
	{ echo tcp >"$e/transport" && topo_tgt_addr "$DISC_PORT" >"$e/traddr" &&
		echo "$NVMET_TRSVCID" >"$e/trsvcid" && topo_host_addr "$DISC_PORT" >"$e/host_traddr" &&
		{ [ -z "$hnqn" ] || { echo "$hnqn" >"$e/hostnqn" && echo "$hid" >"$e/hostid"; }; } &&
		echo 1 >"$e/enable"; } 2>"$TMP/err" || indent_file "$TMP/err"
	await 30 "the discovery controller" entry_live
	st=$(cat "$e/state" 2>/dev/null)
	check "the entry is live (state $st, discovery controller $(cat "$e/ctrl" 2>/dev/null))" \
		test "$st" = live
	# The first read after the entry went live connects what it lists
	# after a random jitter (connect_jitter_ms, up to 1 s): the entry of
	# path $DISC_PORT is pending until its try finds step 1's controller.
	await 15 "the log to settle" log_settled "$NQN"
	run_show "$TMP/log.txt" cat "$e/log"
	line=$(log_line "$NQN")
	check "the log lists $NQN as present (path $DISC_PORT connected already, not again)" \
		test -n "$line" -a "${line##* state=present }" != "$line"

	say "Now the target exports the second subsystem on port $DISC_PORT. nvmet tells"
	say "the host with a Discovery Log Page change notice:"
	show_cmd "ln -s $sub $NVMET_CFS/ports/$DISC_PORT/subsystems/    (on the target)"
	now_ms
	t0=$NOW_MS
	ln -s "$sub" "$NVMET_CFS/ports/$DISC_PORT/subsystems/$DISC_NQN" 2>"$TMP/err" || indent_file "$TMP/err"
	if await 60 "the host to connect it" disc_usable; then
		now_ms
		took="$((NOW_MS - t0)) ms"
	fi
	check "connected by itself, its block device ${DDEV:-} read 4 KiB ($took after the link)" disc_usable
	line=$(log_line "$DISC_NQN")
	say "  ${line:-(not in the log)}"
	check "the log says connected, by ${DCT:-?}" \
		test -n "$line" -a "${line##* state=connected ctrl=}" = "${DCT:-none}"
	show_cmd "fio --filename=${DDEV:-?} --rw=randrw --bs=4k --size=16m --runtime=2 --verify=crc32c"
	fio --name=appears --filename="${DDEV:-/nonexistent}" --allow_file_create=0 \
		--ioengine=libaio --direct=1 --rw=randrw --bs=4k --iodepth=4 --size=16m \
		--time_based --runtime=2 --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >"$TMP/fio8.txt" 2>&1
	rc=$?
	check "fio verify on it clean (exit $rc)" test "$rc" = 0

	say "The target stops exporting it: the host disconnects what it connected."
	show_cmd "rm $NVMET_CFS/ports/$DISC_PORT/subsystems/$DISC_NQN    (on the target)"
	now_ms
	t0=$NOW_MS
	rm -f "$NVMET_CFS/ports/$DISC_PORT/subsystems/$DISC_NQN"
	if await 60 "the host to disconnect it" disc_gone; then
		now_ms
		gone="$((NOW_MS - t0)) ms"
	fi
	check "its controller gone by itself ($gone after the unlink)" disc_gone
	run_show "$TMP/stats.txt" cat "$e/stats"
	show_cmd "rmdir $e"
	rmdir "$e" 2>"$TMP/err" || indent_file "$TMP/err"
	check "discovery entry removed, paths of step 1 still live" entry_removed
	FIGS+=("8. discovery: a new subsystem connected by itself $took after the target exported it, disconnected $gone after it stopped")
	step_end
}

# sec_usable: $SEC_NQN's controller SCT is usable (ctrl_usable); SDEV
# is its block device.
sec_usable() {
	local c v
	SCT=
	for c in "$SYS"/class/nvfab/nvfab*; do
		read -r v 2>/dev/null <"$c/subsysnqn" || continue
		[ "$v" = "$SEC_NQN" ] && { SCT=${c##*/}; break; }
	done
	[ -n "$SCT" ] && ctrl_usable "$SCT" && SDEV=$UDEV
}

# sec_secret_file: the controller's dhchap_secret is root's alone (0600)
# and reads back the host's key.
sec_secret_file() {
	[ "$(stat -c %a "$SYS/class/nvfab/$SCT/dhchap_secret" 2>/dev/null)" = 600 ] &&
		[ "$(cat "$SYS/class/nvfab/$SCT/dhchap_secret")" = "$(cat "$TMP/host.key")" ]
}

step9() {
	local sub=$NVMET_CFS/subsystems/$SEC_NQN img=$TMP/secure.img
	local hcfs c hnqn= hid= rc t0 took=never refused=no

	step_begin 9
	say "A subsystem that lets in one host, and only after in-band"
	say "authentication both ways (DH-HMAC-CHAP, NVMe Base 2.0 8.13.5): the host"
	say "proves it holds its key, and the controller that it holds the"
	say "controller's key. The target exports $SEC_NQN on port $SEC_PORT"
	say "(one namespace on a 64 MiB file), for the host NQN of step 1's"
	say "controllers, hash SHA-256, DH group ffdhe2048. Keys from nvme-cli, in"
	say "root-only key files:"
	for c in "$SYS"/class/nvfab/nvfab*; do
		[ -r "$c/hostnqn" ] || continue
		read -r hnqn <"$c/hostnqn" && read -r hid <"$c/hostid" && break
	done
	hcfs=$NVMET_CFS/hosts/$hnqn
	show_cmd "nvme gen-dhchap-key --hmac=1 --nqn=$hnqn > $TMP/host.key"
	show_cmd "nvme gen-dhchap-key --hmac=2 --nqn=$SEC_NQN > $TMP/ctrl.key"
	(umask 077
	 nvme gen-dhchap-key --hmac=1 --nqn="$hnqn" 2>/dev/null | grep -m1 '^DHHC-1:' >"$TMP/host.key"
	 nvme gen-dhchap-key --hmac=2 --nqn="$SEC_NQN" 2>/dev/null | grep -m1 '^DHHC-1:' >"$TMP/ctrl.key"
	 nvme gen-dhchap-key --hmac=2 --nqn="$SEC_NQN" 2>/dev/null | grep -m1 '^DHHC-1:' >"$TMP/other.key")
	# nvmet takes a DH group only when its kpp exists: dh_generic
	modprobe dh_generic 2>/dev/null
	if ! { mkdir -p "$sub/namespaces/1" "$hcfs" &&
		echo 0 >"$sub/attr_allow_any_host" &&
		cat "$TMP/host.key" >"$hcfs/dhchap_key" &&
		cat "$TMP/ctrl.key" >"$hcfs/dhchap_ctrl_key" &&
		echo "hmac(sha256)" >"$hcfs/dhchap_hash" &&
		echo ffdhe2048 >"$hcfs/dhchap_dhgroup" &&
		ln -sfn "$hcfs" "$sub/allowed_hosts/$hnqn" &&
		truncate -s 64M "$img" && echo "$img" >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/enable" &&
		topo_tgt_exec ln -s "$sub" "$NVMET_CFS/ports/$SEC_PORT/subsystems/$SEC_NQN"; } 2>"$TMP/err"; then
		indent_file "$TMP/err"
	fi
	check "nvme-cli made the keys, the target took them" \
		test -s "$TMP/host.key" -a -s "$TMP/ctrl.key" -a -e "$sub/allowed_hosts/$hnqn"

	say "A key the controller cannot prove is refused: the host checks the"
	say "controller's response against -C (here another controller key):"
	run_show "$TMP/refused.txt" nvfabctl connect -t tcp -a "$(topo_tgt_addr "$SEC_PORT")" \
		-w "$(topo_host_addr "$SEC_PORT")" -n "$SEC_NQN" -q "$hnqn" -I "$hid" \
		-S "$TMP/host.key" -C "$TMP/other.key"
	rc=$?
	grep -q "Key was rejected" "$TMP/refused.txt" && [ "$rc" != 0 ] && ! sec_usable && refused=yes
	check "refused (Key was rejected by service), nothing connected" test "$refused" = yes

	say "With the right keys:"
	now_ms
	t0=$NOW_MS
	run_show "$TMP/sec.txt" nvfabctl connect -t tcp -a "$(topo_tgt_addr "$SEC_PORT")" \
		-w "$(topo_host_addr "$SEC_PORT")" -n "$SEC_NQN" -q "$hnqn" -I "$hid" \
		-S "$TMP/host.key" -C "$TMP/ctrl.key"
	rc=$?
	if [ "$rc" = 0 ] && await 20 "its block device" sec_usable; then
		now_ms
		took="$((NOW_MS - t0)) ms"
	fi
	check "connected with bidirectional authentication, ${SDEV:-?} read 4 KiB ($took)" sec_usable
	check "sysfs dhchap_secret of ${SCT:-?}: root only (0600), the host's key" sec_secret_file
	run_show "$TMP/secdisc.txt" nvfabctl disconnect -n "$SEC_NQN"
	await 20 "the controller to go" eval '! sec_usable'
	rm -f "$NVMET_CFS/ports/$SEC_PORT/subsystems/$SEC_NQN" "$sub/allowed_hosts/$hnqn"
	echo 0 >"$sub/namespaces/1/enable" 2>/dev/null
	rmdir "$sub/namespaces/1" "$sub" "$hcfs" 2>/dev/null
	check "disconnected, the target's subsystem and host entry removed" \
		test ! -e "$sub" -a ! -e "$hcfs"
	FIGS+=("9. authentication: connected with bidirectional DH-HMAC-CHAP in $took; a wrong controller key refused")
	step_end
}

step10() {
	local rc t0 d i
	local -a names=()

	step_begin 10
	now_ms
	t0=$NOW_MS
	run_show "$TMP/disc.txt" nvfabctl disconnect -n "$NQN"
	rc=$?
	check "nvfabctl disconnect -n exits 0 and names 3 controllers" \
		test "$rc" = 0 -a -n "$(grep -m1 "disconnected $NPATHS controller" "$TMP/disc.txt")"
	await 30 "the controllers to go" ctrls_gone
	now_ms
	d=$((NOW_MS - t0))
	check "all 3 controllers gone ($d ms)" ctrls_gone
	await 10 "the subsystem to go" test ! -e "$SUB"
	check "subsystem ${SUB##*/} gone with its last controller" test ! -e "$SUB"
	show_cmd "rmdir $CFS/subsystems/$NQN"
	rmdir "$CFS/subsystems/$NQN" 2>"$TMP/err" || indent_file "$TMP/err"
	check "configfs entry removed" test ! -e "$CFS/subsystems/$NQN"
	for ((i = ${#MODS[@]} - 1; i >= 0; i--)); do
		names+=("${MODS[i]//-/_}")
	done
	run_show "$TMP/rmmod.txt" rmmod "${names[@]}"
	check "modules unloaded" mods_gone
	check "kernel log clean since the start (no WARN, BUG, Oops, lockdep, KASAN)" \
		dmesg_clean_since_canary
	FIGS+=("10. disconnect: 3 controllers gone in $d ms; modules unloaded")
	step_end
}

# --- main -------------------------------------------------------------------------

main() {
	local n f

	TMP=$(mktemp -d /tmp/nvfab-demo.XXXXXX) || exit 1
	mkfifo "$TMP/tick" || exit 1
	exec {TICK_FD}<>"$TMP/tick"
	trap cleanup EXIT
	[ -z "$RESULT" ] || : >"$RESULT"

	echo "==== nvfab demo: NVMe/TCP multipath with ANA, $(uname -r) ===="
	[ "$SHORT" = 0 ] || echo "(short form)"
	if ! prepare; then
		ABORT="setup failed"
	fi
	for ((n = 1; n <= NSTEPS; n++)); do
		if [ -n "$ABORT" ]; then
			step_not_run "$n" "$ABORT"
		else
			"step$n"
		fi
	done

	echo
	echo "Figures"
	for f in "${FIGS[@]}"; do
		echo "  $f"
	done
	echo "demo: $PASSED of $NSTEPS steps passed"
	[ -z "$RESULT" ] || echo "passed $PASSED of $NSTEPS" >>"$RESULT"
	[ "$PASSED" = "$NSTEPS" ]
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
