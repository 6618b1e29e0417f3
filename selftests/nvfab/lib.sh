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

# busywait TIMEOUT_MS CMD...: poll CMD until it succeeds or time runs out.
busywait() {
	local timeout_ms=$1 start now
	shift
	start=$(date +%s%3N)
	while true; do
		if "$@"; then
			return 0
		fi
		now=$(date +%s%3N)
		if [ $((now - start)) -ge "$timeout_ms" ]; then
			return 1
		fi
		sleep 0.1
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
