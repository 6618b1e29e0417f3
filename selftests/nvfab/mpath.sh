#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Native multipath against nvmet over 4 paths (4 ports, one controller
# each): one subsystem and one head per namespace; the built-in selectors
# and service-time; ANA states rotating under fio verify, with the
# per-path routed_ios counters proving that no I/O went to an unusable
# path, nor to a non-optimized one while an optimized one was there; no
# usable path (wait, then fail after no_path_tmo); persistent-loss; a path
# cut during writes (the last acknowledged pattern wins on every path);
# iopolicy switched under I/O; namespaces remapped to new UUIDs. The diag/
# counters move as named: the head's no-path requeue and fail counts, the
# cut path's failovers and its controller's resets and reconnects, a
# reset_controller write's one reset, a passthrough error's one error.
#
# Environment: NVFAB_ANA_SECONDS (rotation length, default 24),
# NVFAB_REMAP_ROUNDS (default 5; check-full 10), NVFAB_FIO_RUNTIME
# (default 3).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

ANA_SECONDS=${NVFAB_ANA_SECONDS:-24}
REMAP_ROUNDS=${NVFAB_REMAP_ROUNDS:-5}
FIO_RUNTIME=${NVFAB_FIO_RUNTIME:-3}
PHASE=3			# seconds per ANA phase
NPATHS=4
FIOPID=
TMP=$(mktemp -d /run/nvfab-mpath.XXXXXX)

cleanup() {
	[ -n "$FIOPID" ] && kill "$FIOPID" 2>/dev/null
	rm -rf "$TMP"
	nvfab_tcp_cleanup
}
trap cleanup EXIT
trap 'exit 1' TERM INT	# the runner's timeout: still clean up

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v nvme >/dev/null || ksft_skip_all "nvme-cli missing"
ktap_header
ktap_set_plan 41

declare -a CT			# CT[p]: /sys/class/nvfab/nvfabC of path p
SUB=				# the subsystem's sysfs directory
H=				# /sys/block/<head of NSID 1>

declare -a PD			# PD[p]: sysfs dir of NSID 1's path over path p

# Shell builtins only in what runs often: a fork costs ~0.1 s in the guest.
# path_disk P: sysfs dir of NSID 1's path through controller of path P.
path_disk() {
	local c=${CT[$1]##*/nvfab} l
	for l in "$H"/multipath/*; do
		case "${l##*/}" in *c"${c}"n*) echo "/sys/block/${l##*/}"; return 0 ;; esac
	done
	return 1
}
routed() { local v; read -r v <"${PD[$1]}/routed_ios" && echo "$v"; }
# dcount DIR NAME: the diag/ counter NAME of sysfs directory DIR
dcount() { local v; read -r v <"$1/diag/$2" && echo "$v"; }
host_ana() { local v; read -r v <"${PD[$1]}/ana_state" && echo "$v"; }
snapshot() {
	local p v out=
	for ((p = 1; p <= NPATHS; p++)); do
		read -r v <"${PD[$p]}/routed_ios"
		out="$out$v "
	done
	echo "$out"
}
set_policy() { echo "$1" >"$SUB/iopolicy"; }

# io_flowing: routed_ios moved since $FLOW0 (fio has started issuing).
io_flowing() { [ "$(snapshot)" != "$FLOW0" ]; }
FLOW0=

# fio_bg NAME RUNTIME [args]: fio verify on the head in the background.
fio_bg() {
	local name=$1 rt=$2
	shift 2
	fio --name="$name" --filename="$DEV" --allow_file_create=0 --ioengine=libaio --direct=1 \
		--rw=randrw --bs=4k --iodepth=8 --size=32m --time_based \
		--runtime="$rt" --verify=crc32c --verify_fatal=1 \
		--verify_backlog=32 "$@" >"$TMP/fio-$name.out" 2>&1 &
	FIOPID=$!
}
fio_wait() {
	local rc
	wait "$FIOPID"
	rc=$?
	FIOPID=
	[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/fio-$1.out" | tail -5
	return "$rc"
}

# deltas BEFORE AFTER: "d1 d2 d3 d4"
deltas() {
	local -a a=($1) b=($2)
	local p out=
	for ((p = 0; p < NPATHS; p++)); do out="$out$((b[p] - a[p])) "; done
	echo "$out"
}

# target_ana S1 S2 S3 S4: set each port's ANA state, and wait until the
# host shows the same states.
host_matches() {
	local p v
	for ((p = 1; p <= NPATHS; p++)); do
		read -r v <"${PD[$p]}/ana_state" || return 1
		[ "$v" = "${WANT[$p]}" ] || return 1
	done
}
declare -a WANT
target_ana() {
	local p
	for ((p = 1; p <= NPATHS; p++)); do
		WANT[$p]=${!p}
		nvmet_set_ana "$p" "${WANT[$p]}" || return 1
	done
	busywait 20000 host_matches
}

dmesg_canary_start
topo_up $NPATHS && nvmet_setup $NPATHS
ktap_check "target up: 4 ports" test -e "$NVMET_CFS/ports/4/subsystems/$NVMET_NQN"
# service-time is loaded by hand: the test guest cannot autoload from a
# build directory (a DKMS install autoloads it on first use).
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp \
	nvfab-ps-service-time

ok=1
for ((p = 1; p <= NPATHS; p++)); do
	nvfab_connect_path "$p" ",reconnect_delay=1,ctrl_loss_tmo=60,nr_io_queues=2" ||
		{ ok=0; ktap_diag "connect over path $p failed: $REPLY_LINE"; }
	CT[$p]=$CTRL
done
ktap_check "4 controllers connected" test "$ok" = 1
SUB=$(nvfab_subsys_of "${CT[1]}")
H=/sys/block/${DEV#/dev/}
same_subsys() {
	local p
	for ((p = 2; p <= NPATHS; p++)); do
		[ "$(nvfab_subsys_of "${CT[$p]}")" = "$SUB" ] || return 1
	done
}
ktap_check "one subsystem ${SUB##*/} holds all 4" same_subsys
ktap_check "subsysnqn is the target's" test "$(cat "$SUB/subsysnqn")" = "$NVMET_NQN"
nlinks() { ls "$H/multipath" | wc -l; }
four_paths() { test "$(nlinks)" = 4; }
busywait 20000 four_paths
ktap_check "one head $DEV for NSID 1 with 4 paths" four_paths
for ((p = 1; p <= NPATHS; p++)); do
	PD[$p]=$(path_disk "$p")
done
ktap_check "head nsid attribute" test "$(cat "$H/nsid")" = 1
diag_files() {
	local f v
	for f in "$H"/diag/io_requeue_no_usable_path_count \
		"$H"/diag/io_fail_no_available_path_count \
		"${PD[1]}"/diag/{multipath_failover_count,command_retry_count,command_error_count} \
		"${CT[1]}"/diag/{reset_count,reconnect_count}; do
		if ! read -r v <"$f" || ! [[ "$v" =~ ^[0-9]+$ ]] ||
			[ "$(stat -c %a "$f")" != 444 ]; then
			ktap_diag "$f: '${v-}'"
			return 1
		fi
	done
}
ktap_check "diag/ counters of head, path and controller: read-only decimals" diag_files
ktap_check "default iopolicy is numa" test "$(cat "$SUB/iopolicy")" = numa
ktap_check "all paths optimized" target_ana optimized optimized optimized optimized

# numa on TCP (no NUMA node): always the first path of the tier.
b=$(snapshot)
fio_bg numa "$FIO_RUNTIME"
fio_wait numa
d=$(deltas "$b" "$(snapshot)")
ktap_diag "numa routed: $d"
ktap_check "numa: every I/O on the first path" bash -c "set -- $d; [ \$1 -gt 0 ] && [ \$2 = 0 ] && [ \$3 = 0 ] && [ \$4 = 0 ]"

for pol in round-robin queue-depth service-time; do
	set_policy "$pol"
	b=$(snapshot)
	fio_bg "$pol" "$FIO_RUNTIME" --iodepth=16
	fio_wait "$pol"
	d=$(deltas "$b" "$(snapshot)")
	ktap_diag "$pol routed: $d"
	case $pol in
	round-robin) want='[ $1 -gt 0 ] && [ $2 -gt 0 ] && [ $3 -gt 0 ] && [ $4 -gt 0 ]' ;;
	*) want='n=0; for x; do [ $x -gt 0 ] && n=$((n+1)); done; [ $n -ge 2 ]' ;;
	esac
	ktap_check "$pol: verify clean, I/O spread ($d)" bash -c "set -- $d; $want"
done
ktap_diag "service-time status of path 1: $(cat "${PD[1]}/ps_status")"

bad_policy() { ! echo bogus >"$SUB/iopolicy" 2>/dev/null && test "$(cat "$SUB/iopolicy")" = service-time; }
ktap_check "unknown iopolicy refused, policy unchanged" bad_policy

# iopolicy switched every half second under fio verify.
set_policy round-robin
fio_bg switch 8 --iodepth=8
for ((i = 0; i < 6; i++)); do
	for pol in numa round-robin queue-depth service-time; do
		set_policy "$pol" || ktap_diag "switch to $pol failed"
		sleep 0.15
	done
done
ktap_check "iopolicy switched 24 times under fio verify: 0 errors" fio_wait switch

# ANA rotation under fio verify. Phase k gives port p the state
# STATES[(p + k) % 4]; every third phase demotes the optimized port, so
# that the non-optimized tier carries the I/O.
STATES=(optimized non-optimized inaccessible change)
set_policy round-robin
nphases=$((ANA_SECONDS / PHASE))
FLOW0=$(snapshot)
fio_bg rotate $((nphases * (PHASE + 12) + 30)) --iodepth=8
busywait 30000 io_flowing
bad=0
for ((k = 0; k < nphases; k++)); do
	declare -a st=()
	for ((p = 1; p <= NPATHS; p++)); do
		st[$p]=${STATES[$(((p + k) % 4))]}
		if [ $((k % 3)) = 2 ] && [ "${st[$p]}" = optimized ]; then
			st[$p]=non-optimized
		fi
		[ "$k" = 5 ] && [ "${st[$p]}" = change ] && st[$p]=persistent-loss
	done
	if ! target_ana "${st[1]}" "${st[2]}" "${st[3]}" "${st[4]}"; then
		ktap_diag "phase $k: host did not follow (${st[*]}) within 20 s"
		bad=$((bad + 1))
		continue
	fi
	b=$(snapshot)
	sleep "$PHASE"
	d=($(deltas "$b" "$(snapshot)"))
	have_opt=0
	for ((p = 1; p <= NPATHS; p++)); do
		[ "${st[$p]}" = optimized ] && have_opt=1
	done
	used=0
	for ((p = 1; p <= NPATHS; p++)); do
		n=${d[$((p - 1))]}
		case ${st[$p]} in
		optimized) used=$((used + n)) ;;
		non-optimized)
			if [ "$have_opt" = 1 ] && [ "$n" != 0 ]; then
				ktap_diag "phase $k: $n I/Os to non-optimized path $p with an optimized path up"
				bad=$((bad + 1))
			fi
			used=$((used + n)) ;;
		*)
			if [ "$n" != 0 ]; then
				ktap_diag "phase $k: $n I/Os to ${st[$p]} path $p"
				bad=$((bad + 1))
			fi ;;
		esac
	done
	if [ "$used" = 0 ]; then
		ktap_diag "phase $k: no I/O at all (${st[*]})"
		bad=$((bad + 1))
	fi
	ktap_diag "phase $k: ${st[*]} -> routed ${d[*]}"
done
kill "$FIOPID" 2>/dev/null
wait "$FIOPID" 2>/dev/null
FIOPID=
errs=$(grep -c "verify: bad\|fio: verify" "$TMP/fio-rotate.out")
ktap_check "ANA rotation ($nphases phases of ${PHASE}s): no I/O to an unusable or dispreferred path" test "$bad" = 0
ktap_check "ANA rotation: 0 verify errors" test "$errs" = 0
ktap_check "after rotation: back to all optimized" target_ana optimized optimized optimized optimized

# Persistent-loss: never selected.
target_ana persistent-loss optimized optimized optimized
b=$(snapshot)
fio_bg ploss "$FIO_RUNTIME"
fio_wait ploss
d=$(deltas "$b" "$(snapshot)")
ktap_check "persistent-loss path 1 never selected ($d)" bash -c "set -- $d; [ \$1 = 0 ] && [ \$2 -gt 0 ]"

# No usable path: I/O waits, and completes when a path returns.
ktap_check "all inaccessible" target_ana inaccessible inaccessible inaccessible inaccessible
rq0=$(dcount "$H" io_requeue_no_usable_path_count)
dd if="$DEV" of=/dev/null bs=4k count=8 iflag=direct status=none &
ddpid=$!
sleep 3
waiting() { kill -0 "$ddpid" 2>/dev/null; }
ktap_check "I/O waits while no path is usable" waiting
nvmet_set_ana 2 optimized
wait "$ddpid"
rc=$?
ktap_check "... and completes when path 2 comes back (rc $rc)" test "$rc" = 0
rq1=$(dcount "$H" io_requeue_no_usable_path_count)
ktap_check "diag: the head counted the waiting I/O (io_requeue_no_usable_path_count $rq0 -> $rq1)" \
	test "$rq1" -gt "$rq0"
# A second run: no_path_tmo=3, no path returns: the I/O fails, no hang.
echo 3 >"$SUB/no_path_tmo"
target_ana inaccessible inaccessible inaccessible inaccessible
nf0=$(dcount "$H" io_fail_no_available_path_count)
t0=$(date +%s%3N)
timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none
rc=$?
ms=$(($(date +%s%3N) - t0))
ktap_diag "no-path I/O ended after $ms ms with rc $rc"
ktap_check "no path for no_path_tmo=3 s: I/O fails (rc $rc) within 3-12 s" \
	test "$rc" != 0 -a "$rc" != 124 -a "$ms" -ge 2500 -a "$ms" -lt 12000
nf1=$(dcount "$H" io_fail_no_available_path_count)
ktap_check "diag: the head counted the I/O failed without a path (io_fail_no_available_path_count $nf0 -> $nf1)" \
	test "$nf1" -gt "$nf0"
ktap_check "bad no_path_tmo refused" bash -c "! echo 0 >$SUB/no_path_tmo 2>/dev/null && ! echo x >$SUB/no_path_tmo 2>/dev/null"
echo auto >"$SUB/no_path_tmo"
ktap_check "no_path_tmo auto = 2 x ANATT" test "$(cat "$SUB/no_path_tmo")" = auto
ktap_check "paths usable again" target_ana optimized optimized optimized optimized

# Path cut during writes: distinct patterns to the same LBAs; the last
# acknowledged one must be what every path reads back.
# The link of path 3 goes down 2 s into the writes and comes back 8 s
# later, whatever the writes are doing.
set_policy round-robin
BS=65536
NPAT=24
for ((i = 0; i < NPAT; i++)); do
	head -c $BS /dev/zero | tr '\0' "\\$(printf '%03o' $((i % 200 + 33)))" >"$TMP/pat$i"
done
declare -a FO0
for ((p = 1; p <= NPATHS; p++)); do
	FO0[$p]=$(dcount "${PD[$p]}" multipath_failover_count)
done
rs0=$(dcount "${CT[3]}" reset_count)
rc0=$(dcount "${CT[3]}" reconnect_count)
(sleep 2; topo_cut 3; sleep 8; topo_restore 3) &
cutter=$!
last=-1
t0=$(date +%s)
for ((i = 0; i < NPAT; i++)); do
	if dd if="$TMP/pat$i" of="$DEV" bs=$BS count=1 oflag=direct conv=notrunc status=none; then
		last=$i
	fi
	# keep writing at least until the link is back
	[ "$i" = $((NPAT - 1)) ] && [ $(($(date +%s) - t0)) -lt 11 ] && { sleep 1; i=$((i - 1)); }
done
wait "$cutter"
ktap_check "$NPAT patterns written across the cut, all acknowledged (last #$last)" test "$last" = $((NPAT - 1))
live3() { local v; read -r v <"${CT[3]}/state" 2>/dev/null && [ "$v" = live ]; }
busywait 60000 live3 || ktap_diag "path 3 not live again: $(cat "${CT[3]}/state" 2>&1)"
fo=
for ((p = 1; p <= NPATHS; p++)); do
	fo="$fo$(($(dcount "${PD[$p]}" multipath_failover_count) - FO0[p])) "
done
ktap_diag "failovers per path across the cut: $fo"
ktap_check "diag: failovers counted on the cut path 3 only ($fo)" \
	bash -c "set -- $fo; [ \$1 = 0 ] && [ \$2 = 0 ] && [ \$3 -gt 0 ] && [ \$4 = 0 ]"
rs1=$(dcount "${CT[3]}" reset_count)
rc1=$(dcount "${CT[3]}" reconnect_count)
ktap_check "diag: path 3's controller counted its recovery (reset_count $rs0 -> $rs1, reconnect_count $rc0 -> $rc1)" \
	test "$rs1" -gt "$rs0" -a "$rc1" -gt "$rc0"
read_ok=1
for ((p = 1; p <= NPATHS; p++)); do
	c=/dev/${CT[$p]##*/}
	if ! out=$(nvme read "$c" --namespace-id=1 --start-block=0 --block-count=15 \
		--data-size=$BS --data="$TMP/read$p" 2>&1); then
		read_ok=0
		ktap_diag "path $p ($c): nvme read failed: $out"
	elif ! cmp -s "$TMP/read$p" "$TMP/pat$last"; then
		read_ok=0
		ktap_diag "path $p ($c) reads back something else: $(od -An -c -N4 "$TMP/read$p")"
	fi
done
ktap_check "every path reads the last acknowledged pattern" test "$read_ok" = 1

# A read beyond the namespace's end through controller 1 (passthrough on
# its path): one command_error_count, no retry, no failover.
e0=$(dcount "${PD[1]}" command_error_count)
r0=$(dcount "${PD[1]}" command_retry_count)
f0=$(dcount "${PD[1]}" multipath_failover_count)
nvme read "/dev/${CT[1]##*/}" --namespace-id=1 --start-block=4294967296 \
	--block-count=15 --data-size=$BS --data="$TMP/beyond" >/dev/null 2>&1
rc=$?
e1=$(dcount "${PD[1]}" command_error_count)
r1=$(dcount "${PD[1]}" command_retry_count)
f1=$(dcount "${PD[1]}" multipath_failover_count)
ktap_check "diag: a read beyond the end (rc $rc) is one command_error_count ($e0 -> $e1; retries $r0 -> $r1, failovers $f0 -> $f1)" \
	test "$rc" != 0 -a "$e1" = $((e0 + 1)) -a "$r1" = "$r0" -a "$f1" = "$f0"

# reset_controller: exactly one reset, and its one reconnect attempt.
rs0=$(dcount "${CT[1]}" reset_count)
rc0=$(dcount "${CT[1]}" reconnect_count)
echo 1 >"${CT[1]}/reset_controller"
rs1=$(dcount "${CT[1]}" reset_count)
rc1=$(dcount "${CT[1]}" reconnect_count)
ktap_check "diag: reset_controller adds 1 to reset_count ($rs0 -> $rs1) and to reconnect_count ($rc0 -> $rc1)" \
	test "$rs1" = $((rs0 + 1)) -a "$rc1" = $((rc0 + 1))

# Namespace remap: NSID 2 gets a new UUID each round.
NS2=$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/2
heads_with_uuid() {
	local h v n=0
	for h in "$SUB"/nvfab*n*; do
		read -r v <"$h/uuid" 2>/dev/null && [ "$v" = "$1" ] && n=$((n + 1))
	done
	echo "$n"
}
remap_ok=1
for ((r = 0; r < REMAP_ROUNDS; r++)); do
	read -r old <"$NS2/device_uuid"
	read -r new </proc/sys/kernel/random/uuid
	echo 0 >"$NS2/enable"
	echo "$new" >"$NS2/device_uuid"
	echo 1 >"$NS2/enable"
	mapped() { [ "$(heads_with_uuid "$new")" = 1 ] && [ "$(heads_with_uuid "$old")" = 0 ]; }
	if ! busywait 30000 mapped; then
		remap_ok=0
		ktap_diag "round $r: heads for new UUID $(heads_with_uuid "$new"), old $(heads_with_uuid "$old")"
		break
	fi
done
ktap_check "$REMAP_ROUNDS remaps: each UUID on exactly one head, stale heads gone" test "$remap_ok" = 1
npaths_new() {
	local h
	for h in "$SUB"/nvfab*n*; do
		[ "$(cat "$h/nsid")" = 2 ] && [ "$(ls "$h/multipath" | wc -l)" = 4 ] && return 0
	done
	return 1
}
ktap_check "the remapped namespace has its 4 paths" busywait 30000 npaths_new

ktap_check "disconnect all" nvfab_delete_all
ktap_check "subsystem removed with its last controller" test ! -e "$SUB"
ktap_check "modules unload" nvfab_unload nvfab-ps-service-time nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
