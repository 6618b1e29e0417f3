#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scenario harness shared by hostile.sh (the NVMe/TCP I/O host) and
# hostile_disc.sh (nvfab-discovery) against the hostile target of
# tools/testing/hostile-target: fork-free polling, the target's life, one
# KTAP result per scenario with its sub-checks as "#" lines, and the
# kernel log checks. Sourced after lib.sh.
#
# The sourcing script sets:
#   ONLY        scenario names to run (empty: all), from ONLY_VAR
#   ONLY_VAR    the environment variable ONLY came from (for the skip text)
#   WAIT_STEP   wait_for's polling period in seconds (default 0.05)
# and defines scenario_cleanup, run after every scenario. The harness
# keeps TPID, TSTATE, TLOG (the running target, its --state file, its
# stderr), MARK (dmesg mark at the start of the scenario), FAILS (failed
# sub-checks) and BGPIDS (background commands that may outlive a
# scenario); a scenario may set SKIP_WHY to report a skip.
#
# The guest is a TCG machine with a debug kernel, where a fork costs about
# 50-100 ms: polling below uses bash builtins only (lib.sh's clock and nap).
# shellcheck disable=SC2034 # variables used by the sourcing scripts

TPID=
TSTATE=
TLOG=
MARK=
FAILS=()
BGPIDS=()
SKIP_WHY=

# ---- polling without forks (lib.sh: clock, nap) ----

# wait_for MS CMD...: poll CMD (a function or builtin) every WAIT_STEP s.
wait_for() {
	local end

	clock
	end=$((NOW + $1))
	shift
	until "$@"; do
		clock
		[ "$NOW" -ge "$end" ] && return 1
		nap "${WAIT_STEP:-0.05}"
	done
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# bg_wait PID MS: wait for a background command; its status, or 124.
bg_wait() {
	if ! wait_for "$2" pid_gone "$1"; then
		BGPIDS+=("$1")
		return 124
	fi
	wait "$1"
}

# Background commands still blocked in the kernel: bounded wait.
wait_stragglers() {
	local p

	for p in "${BGPIDS[@]}"; do
		wait_for "$1" pid_gone "$p" || ktap_diag "pid $p still blocked"
	done
}

# ---- KTAP for one scenario ----

# check DESC CMD...: one sub-check of the scenario.
check() {
	local desc=$1

	shift
	if "$@"; then
		ktap_diag "  pass: $desc"
	else
		ktap_diag "  FAIL: $desc"
		FAILS+=("$desc")
	fi
}

fail() {
	ktap_diag "  FAIL: $*"
	FAILS+=("$*")
}

# run_scenario NAME FUNC [ARGS...]: one KTAP result; only the scenarios
# named in ONLY run, when it is set.
run_scenario() {
	local name=$1 t0

	shift
	if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then
		ktap_skip "$name" "not in $ONLY_VAR"
		return
	fi
	FAILS=()
	SKIP_WHY=
	MARK=$(dmesg_mark)
	clock
	t0=$NOW
	ktap_diag "$name"
	"$@"
	scenario_cleanup
	clock
	ktap_diag "  ($((NOW - t0)) ms)"
	if [ -n "$SKIP_WHY" ]; then
		ktap_skip "$name" "$SKIP_WHY"
	elif [ ${#FAILS[@]} -eq 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name"
	fi
}

# ---- the target ----

# The target's process. In the test kernel a new Python's NVMe/TCP target
# listens 2.4-4.4 s after it starts, and importing the NVMe/RDMA one
# (pyverbs) takes about 5 s, against 0.6 s for a fork; the scripts start
# over 60 targets in the stock guest: target_run forks each
# target from one warm Python (tools/testing/hostile-target/
# nvfab_hostile_spawn.py, started by spawn_start) instead. The child is the
# target process, as a process of its own would be: TPID, signals, stderr
# in its log. Without the spawner (it did not start, or died) the target
# starts as a process of its own. The sourcing script sets PYTHON (the
# interpreter and its flags) and TARGET (the script).
SPAWN_PID=
SPAWN_DIR=
SPAWN_FD=
SPAWN_N=0

spawn_up() { [ -e "$SPAWN_DIR/ready" ] || pid_gone "$SPAWN_PID"; }

# spawn_start LOG: the spawner for TARGET, its stderr in LOG; 1 (and
# targets started on their own) if it is not ready within 120 s.
spawn_start() {
	local spawner

	spawner=$(dirname "$TARGET")/nvfab_hostile_spawn.py
	SPAWN_DIR=$(mktemp -d /tmp/nvfab-spawn.XXXXXX) || return 1
	mkfifo "$SPAWN_DIR/fifo" || return 1
	"${PYTHON[@]}" "$spawner" "$SPAWN_DIR/fifo" "$SPAWN_DIR/ready" \
		"$TARGET" 2>"$1" &
	SPAWN_PID=$!
	# read-write, as the spawner holds it: a write never blocks on it
	exec {SPAWN_FD}<>"$SPAWN_DIR/fifo"
	wait_for 120000 spawn_up
	if [ ! -e "$SPAWN_DIR/ready" ]; then
		ktap_diag "target spawner did not start (see $1): targets start on their own"
		spawn_stop
		return 1
	fi
}

spawn_stop() {
	[ -n "$SPAWN_PID" ] && kill -TERM "$SPAWN_PID" 2>/dev/null
	[ -n "$SPAWN_FD" ] && exec {SPAWN_FD}>&-
	[ -n "$SPAWN_DIR" ] && rm -rf "$SPAWN_DIR"
	SPAWN_PID=
	SPAWN_FD=
	SPAWN_DIR=
}

# target_run LOG ARGS...: a target with ARGS, its stderr in LOG; sets
# TPID.
target_run() {
	local log=$1 req pidf

	shift
	if [ -n "$SPAWN_PID" ] && ! pid_gone "$SPAWN_PID"; then
		SPAWN_N=$((SPAWN_N + 1))
		req=$SPAWN_DIR/req.$SPAWN_N
		pidf=$SPAWN_DIR/pid.$SPAWN_N
		printf '%s\0' "$log" "$pidf" "$@" >"$req"
		echo "$req" >&"$SPAWN_FD"
		if wait_for 30000 test -s "$pidf"; then
			read -r TPID <"$pidf"
			return 0
		fi
		ktap_diag "target spawner did not answer: this target starts on its own"
	fi
	"${PYTHON[@]}" "$TARGET" "$@" 2>"$log" &
	TPID=$!
}

# misbehaved N: the target has committed at least N misbehaviours.
misbehaved() {
	local n=0

	{ read -r n <"$TSTATE"; } 2>/dev/null
	[ "${n:-0}" -ge "$1" ]
}

# target_stop: SIGTERM (SIGKILL after 5 s) and its first "hostile:" lines.
target_stop() {
	[ -n "$TPID" ] || return 0
	kill -TERM "$TPID" 2>/dev/null
	if ! wait_for 5000 pid_gone "$TPID"; then
		ktap_diag "  target ignored SIGTERM; killing it"
		kill -KILL "$TPID" 2>/dev/null
	fi
	wait "$TPID" 2>/dev/null
	TPID=
	grep -h '^hostile:' "$TLOG" 2>/dev/null | head -5 | sed 's/^/#   target: /'
}

# ---- the kernel log ----

# dmesg_grep PATTERN...: the kernel log since MARK has a line matching every
# PATTERN (extended regexes); it is shown.
dmesg_grep() {
	local lines p

	lines=$(dmesg_since "$MARK")
	for p in "$@"; do
		lines=$(grep -E -- "$p" <<<"$lines")
	done
	[ -n "$lines" ] || return 1
	head -n 3 <<<"$lines" | sed 's/^/#   kernel: /'
}

no_splat() {
	local bad

	bad=$(dmesg_since "$MARK" | grep -E "$DMESG_SPLATS")
	[ -z "$bad" ] && return 0
	head -n 5 <<<"$bad" | sed 's/^/#   kernel: /'
	return 1
}
