# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the nvfab selftests: KTAP output, module loading, dmesg
# canaries and polling. Sourced by every test.
#
# Modules come from $NVFAB_MODDIR (a kbuild output tree, as `make
# test-modules` leaves it) when set, else from /lib/modules via modprobe
# (a DKMS install).

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_plan=0
ktap_n=0
ktap_failed=0
ktap_skipped=0

ktap_header() {
	echo "TAP version 13"
}

ktap_set_plan() {
	ktap_plan=$1
	echo "1..$1"
}

ktap_result() { # ok|not ok, description, [directive]
	ktap_n=$((ktap_n + 1))
	echo "$1 $ktap_n $2${3:+ # $3}"
}

ktap_pass() { ktap_result ok "$*"; }

ktap_fail() {
	ktap_failed=$((ktap_failed + 1))
	ktap_result "not ok" "$*"
}

ktap_skip() {
	ktap_skipped=$((ktap_skipped + 1))
	ktap_result ok "$1" "SKIP ${2:-}"
}

ktap_diag() { echo "# $*"; }

# ktap_check DESC CMD...: one test that passes when CMD succeeds.
ktap_check() {
	local desc=$1
	shift
	if "$@"; then
		ktap_pass "$desc"
	else
		ktap_fail "$desc"
	fi
}

# ktap_status DESC STATUS [CMD...]: one test that passes when STATUS (an
# exit status) is 0; when it is not, CMD runs first, to show why.
ktap_status() {
	local desc=$1 st=$2
	shift 2
	if [ "$st" = 0 ]; then
		ktap_pass "$desc"
	else
		[ $# = 0 ] || "$@"
		ktap_fail "$desc"
	fi
}

# End the test script: every planned test must have been reported.
ktap_finish() {
	if [ "$ktap_n" -ne "$ktap_plan" ]; then
		ktap_diag "planned $ktap_plan tests, ran $ktap_n"
		ktap_failed=$((ktap_failed + 1))
	fi
	ktap_diag "totals: pass:$((ktap_n - ktap_failed - ktap_skipped)) fail:$ktap_failed skip:$ktap_skipped"
	if [ "$ktap_failed" -ne 0 ]; then
		exit $KSFT_FAIL
	fi
	exit $KSFT_PASS
}

ksft_skip_all() { # reason
	ktap_header
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

require_root() {
	[ "$(id -u)" = 0 ] || ksft_skip_all "must be root"
}

# Path of module $1 (e.g. nvfab-core) in $NVFAB_MODDIR, or empty.
nvfab_mod_path() {
	local p
	[ -n "${NVFAB_MODDIR:-}" ] || return 0
	p=$(find "$NVFAB_MODDIR/drivers" -name "$1.ko" -print -quit 2>/dev/null)
	echo "$p"
}

nvfab_mod_loaded() {
	[ -d "/sys/module/${1//-/_}" ]
}

# nvfab_load MODULE...: modprobe each, or with NVFAB_MODDIR insmod it from
# there after the nvfab modules it needs (nvfab-tcp and nvfab-rdma need
# nvfab-peermem, which no test names) and modprobe of the kernel's.
nvfab_load() { # module...
	local m p dep
	for m in "$@"; do
		nvfab_mod_loaded "$m" && continue
		p=$(nvfab_mod_path "$m")
		if [ -n "$p" ]; then
			for dep in $(modinfo -F depends "$p" 2>/dev/null | tr , ' '); do
				case "$dep" in
				nvfab-*) nvfab_load "$dep" || return 1 ;;
				*) modprobe "$dep" || return 1 ;;
				esac
			done
			insmod "$p" || return 1
		else
			modprobe "$m" || return 1
		fi
	done
}

nvfab_unload() { # module... (unloaded in the order given)
	local m
	for m in "$@"; do
		nvfab_mod_loaded "$m" || continue
		rmmod "$m" || return 1
	done
}

nvfab_refcnt() {
	cat "/sys/module/${1//-/_}/refcnt" 2>/dev/null || echo none
}

# Waiting without starting processes. In the test kernel (TCG, KASAN,
# lockdep, kmemleak) a fork and exec of a small program costs the guest
# 50-100 ms of CPU, up to a second while fio runs, and the tests mostly
# wait: a busywait that ran date, sleep and a cat of a sysfs file ten
# times a second kept a vCPU busy that the code under test needed. So the
# tests' clock, sleeps and sysfs reads are bash builtins: nap and clock,
# and the forms of sleep, date and cat below (anything else runs the real
# program).

# A FIFO nobody writes to, opened read-write and unlinked at once: a read
# with a timeout on it is a sleep.
if [ -z "${NAP_FD:-}" ]; then
	NAP_FD=
	_nap_fifo=$(mktemp -u "${TMPDIR:-/tmp}/nvfab-nap.XXXXXX")
	if mkfifo -m 600 "$_nap_fifo" 2>/dev/null; then
		exec {NAP_FD}<>"$_nap_fifo"
		rm -f "$_nap_fifo"
	fi
	unset _nap_fifo
fi

# nap SECONDS: sleep (fractions allowed) without a process.
nap() {
	if [ -n "$NAP_FD" ]; then
		read -r -t "$1" -u "$NAP_FD" _ || true
	else
		command sleep "$1"
	fi
}

# clock: NOW is the time in ms since the epoch, from $EPOCHREALTIME.
clock() {
	local t=${EPOCHREALTIME/[.,]/}

	NOW=$((10#$t / 1000))
}

# epoch_ms: print the time in ms since the epoch.
epoch_ms() {
	clock
	echo "$NOW"
}

# date: +%s and +%s%3N from $EPOCHREALTIME, anything else from date(1).
date() {
	clock
	case "$*" in
	+%s) echo $((NOW / 1000)) ;;
	+%s%3N) echo "$NOW" ;;
	*) command date "$@" ;;
	esac
}

# sleep SECONDS: nap; other arguments run sleep(1).
sleep() {
	if [ $# = 1 ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; then
		nap "$1"
	else
		command sleep "$@"
	fi
}

# cat FILE, for one sysfs or configfs attribute (a path under /sys, not
# debugfs or tracefs): its lines through read. An attribute that gave
# nothing (empty, or its read failed: read cannot tell) and anything else
# go to cat(1), for its output and exit status.
cat() {
	local line n=0

	case "$#:${1:-}" in
	1:/sys/kernel/debug/* | 1:/sys/kernel/tracing/*) ;;
	1:/sys/*)
		{
			while IFS= read -r line || [ -n "$line" ]; do
				printf '%s\n' "$line"
				n=$((n + 1))
			done
		} <"$1" || return
		[ "$n" = 0 ] || return 0
		;;
	esac
	command cat "$@"
}

# busywait TIMEOUT_MS CMD...: poll CMD every 100 ms until it succeeds or
# time runs out.
busywait() {
	local timeout_ms=$1 end
	shift
	clock
	end=$((NOW + timeout_ms))
	while true; do
		if "$@"; then
			return 0
		fi
		clock
		if [ "$NOW" -ge "$end" ]; then
			return 1
		fi
		nap 0.1
	done
}

# dmesg canary-and-diff: mark the log, then read only what came after.
dmesg_canary_start() {
	CANARY="nvfab-selftest-canary-$$-$RANDOM"
	echo "$CANARY" >/dev/kmsg
}

# dmesg_since MARK: the log after the last line containing MARK.
dmesg_since() {
	dmesg | awk -v c="$1" 'index($0, c) { out = ""; found = 1; next }
		found { out = out $0 "\n" } END { printf "%s", out }'
}

dmesg_since_canary() {
	dmesg_since "$CANARY"
}

# dmesg_mark: a fresh mark in the log, printed for dmesg_since.
dmesg_mark() {
	local m="$CANARY-mark-$RANDOM$RANDOM"
	echo "$m" >/dev/kmsg
	echo "$m"
}

# dmesg_has_since MARK TEXT: the log after MARK contains TEXT.
dmesg_has_since() {
	dmesg_since "$1" | grep -qF -- "$2"
}

# Kernel reports that must never appear.
DMESG_SPLATS='BUG:|WARNING:|Oops|KASAN|UBSAN|kmemleak|possible circular locking|inconsistent lock state|sleeping function called|Call Trace:|general protection fault'

dmesg_clean_since_canary() {
	local bad
	bad=$(dmesg_since_canary | grep -E "$DMESG_SPLATS" || true)
	if [ -n "$bad" ]; then
		echo "$bad" | sed 's/^/# dmesg: /'
		return 1
	fi
}
