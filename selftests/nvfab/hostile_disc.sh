#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfab-discovery against a hostile discovery controller: the user-space
# target of tools/testing/hostile-target, with --discovery, serves a
# Discovery Log Page (LID 70h) that nvmet cannot produce: a GENCTR that
# moves at every read, a NUMREC that shifts between the header reads or
# is above the host's cap, a RECFMT other than 0, malformed entries among
# good ones, a Get Log Page that gets fewer data bytes than it asked for.
# Each misbehaves --count times, then behaves: the host must refuse the
# log (or skip exactly the bad entries), count it, and list the good
# entries once it reads again by itself, without a hang or a splat. And a
# log whose SUBNQNs carry connect options: the host must connect under
# the whole SUBNQN and take none of them as options.
#
# One KTAP result per scenario; each sub-check is a "#" line under it.
# Every scenario runs its own target on its own port on 127.0.0.1 and its
# own configfs entry, with connect=none (the NVM subsystem entries name
# ports where nothing listens: nothing is connected) and poll_interval=0
# (no poll: only the host's retry after a failed read, a reconnect of the
# discovery controller or a DLP change AEN makes a new read), and is
# cleaned up (entry disabled and removed, target stopped) whatever
# happened.
#
# How the host reads again after a failed read:
#   NVFAB_HOSTILE_DISC_REREAD  "retry" (default): nvfab-discovery retries
#                              a failed read by itself after its backoff
#                              (2 s, doubling); "aen": the test makes the
#                              target add an entry and send a DLP change
#                              AEN (SIGUSR1), for modules without that
#                              retry
#   NVFAB_HOSTILE_DISC_ONLY    run only these scenarios (words)
#
# The scenario harness (fork-free polling, the target's life, KTAP per
# scenario) is hostile_lib.sh, shared with hostile.sh.
# shellcheck disable=SC2317 # functions run through check, wait_for, "$@"
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hostile_lib.sh"

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=$REPO/tools/testing/hostile-target/nvfab_hostile_target.py
PYTHON=(python3 -B -S)
DCFS=/sys/kernel/config/nvfab/discovery
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery
NVM_NQN=nqn.2014-08.org.nvmexpress:nvfab-hostile-disc	# -<i>, the target's
NVM_PORT=4500		# + i: the target's NVM subsystem entries
NR_NVM=3		# --disc-entries
PORT_BASE=4470
LOGDIR=${OUT:-/tmp}/hostile_disc
REREAD=${NVFAB_HOSTILE_DISC_REREAD:-retry}
ONLY=${NVFAB_HOSTILE_DISC_ONLY:-}
ONLY_VAR=NVFAB_HOSTILE_DISC_ONLY
WAIT_STEP=0.1

E=		# the scenario's configfs entry
port=$PORT_BASE

# ---- the target ----

# target_start SCENARIO [ARGS...]: a discovery target on the next port.
target_start() {
	local sc=$1 args=()

	shift
	port=$((port + 1))
	TSTATE=/tmp/nvfab-hostile-disc-$sc.state
	TLOG=$LOGDIR/target-$sc.log
	rm -f "$TSTATE"
	[ "$sc" = none ] || args=(--scenario "$sc")
	target_run "$TLOG" --discovery --port "$port" \
		--disc-entries "$NR_NVM" --state "$TSTATE" "${args[@]}" "$@"
	wait_for 90000 test -s "$TSTATE"
}

# misbehaved_exactly N
misbehaved_exactly() {
	local n=0

	{ read -r n <"$TSTATE"; } 2>/dev/null
	[ "${n:-0}" = "$1" ]
}

# log_change: the target's log gains an NVM subsystem entry, and it sends
# a DLP change AEN to its controllers.
log_change() { kill -USR1 "$TPID"; }

# ---- the host: a configfs entry ----

# entry_new NAME: an entry for the target, connect=none, poll_interval=0,
# enabled.
entry_new() {
	E=$DCFS/$1
	mkdir "$E" || return
	echo tcp >"$E/transport" && echo 127.0.0.1 >"$E/traddr" &&
		echo "$port" >"$E/trsvcid" && echo 127.0.0.1 >"$E/host_traddr" &&
		echo none >"$E/connect" && echo 0 >"$E/poll_interval" &&
		echo 1 >"$E/enable"
}

# entry_remove: disable the entry (bounded: a disable that blocks is left
# behind) and remove it.
entry_remove() {
	local pid

	[ -n "$E" ] && [ -d "$E" ] || return 0
	( echo 0 >"$E/enable" ) 2>/dev/null &
	pid=$!
	bg_wait "$pid" 30000 || { E=; return 1; }
	rmdir "$E" || { E=; return 1; }
	E=
}

# dstat KEY: STAT is that figure of the entry's stats line, or -1.
dstat() {
	local kv
	local -a kvs=()

	STAT=-1
	read -r -a kvs <"$E/stats" 2>/dev/null
	for kv in "${kvs[@]}"; do
		[ "${kv%%=*}" = "$1" ] && { STAT=${kv#*=}; return 0; }
	done
	return 1
}

stat_ge() { dstat "$1" && [ "$STAT" -ge "$2" ]; }
stat_is() { dstat "$1" && [ "$STAT" = "$2" ]; }

# show_stats: the stats line, as a diagnostic.
show_stats() {
	local l=

	{ read -r l <"$E/stats"; } 2>/dev/null
	ktap_diag "  stats: $l"
}

# read_log: LOG holds the lines of the entry's log attribute.
read_log() {
	LOG=()
	mapfile -t LOG <"$E/log" 2>/dev/null
}

# log_has SUBTYPE TRSVCID SUBNQN: the log lists that entry.
log_has() {
	local l

	for l in "${LOG[@]}"; do
		[[ "$l" == "subtype=$1 trtype=tcp adrfam=ipv4 traddr=127.0.0.1 trsvcid=$2 subnqn=$3 "* ]] &&
			return 0
	done
	return 1
}

# lists_good N: the log lists the target's NVM subsystem entries 0..N-1
# and the current discovery subsystem entry, and nothing of the malformed
# entries (their SUBNQNs name "nvfab-hostile-bad").
lists_good() {
	local i l

	read_log
	for ((i = 0; i < $1; i++)); do
		log_has nvme $((NVM_PORT + i)) "$NVM_NQN-$i" || return 1
	done
	log_has current "$port" "$DISC_NQN" || return 1
	for l in "${LOG[@]}"; do
		[[ "$l" == *nvfab-hostile-bad* ]] && return 1
	done
	return 0
}

# log_lines N: the log has N lines.
log_lines() { read_log && [ "${#LOG[@]}" = "$1" ]; }

# show_log: the entry's log, as diagnostics.
show_log() {
	local l

	read_log
	for l in "${LOG[@]}"; do
		ktap_diag "    ${l%% portid=*} ${l##* state=}"
	done
}

# ---- checks ----

# reread_good N MS: the host reads the log again and lists the first N
# entries within MS. With REREAD=aen the target is told to change its log
# (and send the AEN) every 5 s until then.
reread_good() {
	local n=$1 ms=$2 t

	if [ "$REREAD" != aen ]; then
		wait_for "$ms" lists_good "$n"
		return
	fi
	for ((t = 0; t < ms; t += 5000)); do
		log_change
		wait_for 5000 lists_good "$n" && return 0
	done
	return 1
}

nothing_skipped_since_mark2() {
	! dmesg_has_since "$MARK2" "unusable and skipped"
}

# ---- scenarios ----

# dlp-change: a correct discovery controller; then its log gains an entry
# and it sends a DLP change AEN: the host reads again and lists the new
# entry.
sc_change() {
	target_start none || { fail "target did not start"; return; }
	entry_new hd-change || { fail "entry created and enabled"; return; }
	check "log lists the $NR_NVM NVM subsystems and the current entry" \
		wait_for 30000 lists_good "$NR_NVM"
	check "no log error" stat_is log_errors 0
	check "entries=$((NR_NVM + 1))" stat_is entries $((NR_NVM + 1))
	check "genctr=1" stat_is genctr 1
	log_change
	check "after the DLP change AEN: lists entry $NR_NVM too" \
		wait_for 20000 lists_good $((NR_NVM + 1))
	check "aens >= 1" stat_ge aens 1
	check "entries=$((NR_NVM + 2))" stat_is entries $((NR_NVM + 2))
	check "genctr=2" stat_is genctr 2
	check "no log error" stat_is log_errors 0
	show_stats
	show_log
}

# log_refused SCENARIO COUNT READS ERRNO [TARGET ARGS...]: the target
# breaks the log COUNT times, which is READS failed reads of the host; the
# host refuses each with ERRNO (a name; %pe prints a number without
# CONFIG_SYMBOLIC_ERRNAME), then reads it whole once the target behaves.
log_refused() {
	local sc=$1 count=$2 reads=$3 err=$4 ms

	shift 4
	target_start "$sc" --count "$count" "$@" ||
		{ fail "target did not start"; return; }
	entry_new "hd-$sc" || { fail "entry created and enabled"; return; }
	check "target misbehaved" wait_for 30000 misbehaved 1
	check "host counted a failed log read" \
		wait_for 20000 stat_ge log_errors 1
	check "kernel says why: 'reading the discovery log failed: $err'" \
		dmesg_grep "hd-$sc: reading the discovery log failed: $err"
	# the retries: 2 s, 4 s, ... after each failed read
	ms=$((20000 + 2000 * (1 << reads)))
	check "the target behaves: the host read again by itself and lists the $NR_NVM NVM subsystems and the current entry" \
		reread_good "$NR_NVM" "$ms"
	check "the target misbehaved $count times, no more" \
		misbehaved_exactly "$count"
	dstat log_errors
	check "log_errors=$reads (got $STAT)" test "$STAT" = "$reads"
	show_stats
	show_log
}

# The log carries, besides the good entries, 10 malformed ones (each bad
# in one field): the host skips exactly those, lists the good ones and
# counts no error; once they left the log (GENCTR moved) and a DLP change
# AEN came, the host reads a log it skips nothing of.
sc_bad_entries() {
	target_start disc-bad-entries --count 1 ||
		{ fail "target did not start"; return; }
	entry_new hd-bad-entries || { fail "entry created and enabled"; return; }
	check "target served the log with the malformed entries" \
		wait_for 30000 misbehaved 1
	check "log lists the $NR_NVM NVM subsystems and the current entry, none of the malformed ones" \
		wait_for 20000 lists_good "$NR_NVM"
	check "log has exactly $((NR_NVM + 1)) entries" log_lines $((NR_NVM + 1))
	check "entries=$((NR_NVM + 1))" stat_is entries $((NR_NVM + 1))
	check "no log error" stat_is log_errors 0
	check "kernel says '10 discovery log entries are unusable and skipped'" \
		dmesg_grep "hd-bad-entries: 10 discovery log entries are unusable and skipped"
	show_log
	MARK2=$(dmesg_mark)
	log_change
	check "after the AEN: lists entry $NR_NVM too" \
		wait_for 20000 lists_good $((NR_NVM + 1))
	check "aens >= 1" stat_ge aens 1
	check "entries=$((NR_NVM + 2))" stat_is entries $((NR_NVM + 2))
	check "nothing skipped in the log without the malformed entries" \
		nothing_skipped_since_mark2
	show_stats
}

# The Get Log Page of the entries gets half its data, then a successful
# CapsuleResp: nvfab-tcp takes it as a protocol error and resets the
# discovery controller; the read fails, the controller reconnects (the
# core's default reconnect_delay) and its LIVE event reads the log again.
sc_short_log() {
	target_start disc-short-log --count 1 ||
		{ fail "target did not start"; return; }
	entry_new hd-short-log || { fail "entry created and enabled"; return; }
	check "target sent a short C2HData" wait_for 30000 misbehaved 1
	check "kernel names it: 'CapsuleResp success for CID 0x... after N of M data bytes'" \
		wait_for 10000 dmesg_grep "queue 0: CapsuleResp success for CID 0x[0-9a-f]+ after [0-9]+ of [0-9]+ data bytes"
	check "host counted the failed log read" \
		wait_for 20000 stat_ge log_errors 1
	dmesg_grep "hd-short-log: reading the discovery log failed" || true
	# the reconnect reads the log: no retry or AEN needed (REREAD=aen
	# would add an entry)
	check "the discovery controller reconnected and the log lists the $NR_NVM NVM subsystems and the current entry" \
		wait_for 60000 lists_good "$NR_NVM"
	check "the target misbehaved once, no more" misbehaved_exactly 1
	check "log has exactly $((NR_NVM + 1)) entries" \
		log_lines $((NR_NVM + 1))
	show_stats
}

# The log lists NVM subsystems whose SUBNQN carries connect options after
# a ',' (duplicate_connect; a host identity; nr_write_queues=4096 and
# ctrl_loss_tmo=-1; transport=rdma), each naming the target's own port.
# With connect=all the host connects each under its whole SUBNQN, as its
# default host: the target logs the SUBNQN and HOSTNQN of every Connect
# (and refuses it: no such subsystem), and the kernel parses none of it
# as an option.
INJECT_NQN=nqn.2014-08.org.nvmexpress:nvfab-hostile-inject
INJECT=(",duplicate_connect"
	",hostnqn=nqn.2014-08.org.example:evil-host,hostid=6f1d2c3b-0a9e-4d8c-b7a6-5e4f3a2b1c0d"
	",nr_write_queues=4096,ctrl_loss_tmo=-1"
	",transport=rdma")

# tlog_has TEXT: the target's log has TEXT (fixed string).
tlog_has() { grep -q -F -- "$1" "$TLOG"; }
no_evil_connect() { ! tlog_has "from 'nqn.2014-08.org.example:evil-host'"; }
no_cut_subnqn() { ! grep -q -E "unknown NQN '$INJECT_NQN-[0-9]+' from" "$TLOG"; }
no_dup_option() { ! dmesg_grep "given more than once"; }

sc_inject() {
	local i nqn

	target_start disc-inject || { fail "target did not start"; return; }
	entry_new hd-inject || { fail "entry created and enabled"; return; }
	echo all >"$E/connect" || { fail "connect=all"; return; }
	for i in "${!INJECT[@]}"; do
		nqn="$INJECT_NQN-$i${INJECT[i]}"
		check "Connect $i came with the whole SUBNQN '$nqn'" \
			wait_for 30000 tlog_has "Connect to unknown NQN '$nqn' from 'nqn.2014-08.org.nvmexpress:uuid:"
	done
	check "no Connect as the host identity in a SUBNQN" no_evil_connect
	check "no Connect under a SUBNQN cut at its ','" no_cut_subnqn
	check "kernel refused no option it read out of a SUBNQN" no_dup_option
	show_log
}

# disc_ctrls: N is the number of controllers of the discovery NQN.
disc_ctrls() {
	local d n2

	N=0
	for d in /sys/class/nvfab/nvfab*; do
		n2=
		{ read -r n2 <"$d/subsysnqn"; } 2>/dev/null
		[ "$n2" = "$DISC_NQN" ] && N=$((N + 1))
	done
	return 0
}

no_disc_ctrl() { disc_ctrls && [ "$N" = 0 ]; }
all_gone() { [ "$1" = 1 ] && no_disc_ctrl; }

# Whatever the scenario left: its entry (and so its discovery controller)
# and its target.
scenario_cleanup() {
	entry_remove || fail "entry disabled and removed within 30 s"
	wait_for 10000 no_disc_ctrl || fail "discovery controller gone"
	no_splat || fail "kernel log has a splat"
	target_stop
}

cleanup() {
	local d

	[ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null
	spawn_stop
	for d in "$DCFS"/hd-*; do
		[ -d "$d" ] || continue
		echo 0 >"$d/enable" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	nvfab_unload nvfab-discovery nvfab-tcp nvfab-fabrics nvfab-core \
		>/dev/null 2>&1
}
trap cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 11
dmesg_canary_start
mkdir -p "$LOGDIR"
ip link set lo up 2>/dev/null
spawn_start "$LOGDIR/spawn.log"
modprobe -q configfs 2>/dev/null || true

ktap_check "modules load (nvfab-core, -fabrics, -tcp, -discovery)" \
	nvfab_load nvfab-core nvfab-fabrics nvfab-tcp nvfab-discovery
mountpoint -q /sys/kernel/config ||
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
ktap_diag "re-read after a failed read: $REREAD"
run_scenario "dlp-change" sc_change
run_scenario "disc-genctr" log_refused disc-genctr 3 1 "(-EAGAIN|-11)"
run_scenario "disc-numrec-shift" log_refused disc-numrec-shift 1 1 "(-EPROTO|-71)"
run_scenario "disc-numrec-huge" log_refused disc-numrec-huge 2 2 "(-E2BIG|-7)"
run_scenario "disc-recfmt" log_refused disc-recfmt 1 1 "(-EPROTO|-71)"
run_scenario "disc-bad-entries" sc_bad_entries
run_scenario "disc-short-log" sc_short_log
run_scenario "disc-inject" sc_inject

wait_stragglers 60000
ok=1
for d in "$DCFS"/hd-*; do
	[ -d "$d" ] && { ktap_diag "entry left: $d"; ok=0; }
done
ktap_check "no entry and no discovery controller left" \
	all_gone "$ok"
ok=1
nvfab_unload nvfab-discovery nvfab-tcp nvfab-fabrics nvfab-core || ok=0
dmesg_clean_since_canary || ok=0
ktap_check "modules unload, kernel log clean" test "$ok" = 1
ktap_finish
