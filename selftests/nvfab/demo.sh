#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The short form of the `make demo` walkthrough, so that the demo cannot
# rot: tools/demo/walkthrough.sh with DEMO_SHORT=1. Its output is passed on
# as KTAP diagnostics, and each of its 10 steps becomes one KTAP result, read
# from its "[PASS] N. title (S s)" / "[FAIL] N. title (failed: ...)" lines.
# A step the walkthrough did not report fails. A last result checks that
# the walkthrough's exit status agrees with its steps (0 exactly when all
# passed), so that a crash after the last step is not missed.
#
# Modules: the walkthrough loads them with nvfab_load (lib.sh), i.e. from
# $NVFAB_MODDIR in the test guest and with modprobe where DKMS installed
# them. DEMO_MODPROBE overrides that (see walkthrough.sh).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
REPO=$(cd "$HERE/../.." && pwd)
WALK=$REPO/tools/demo/walkthrough.sh
NSTEPS=10
TMP=$(mktemp -d /tmp/nvfab-demo-selftest.XXXXXX)

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rm -rf "$TMP"
}
trap cleanup EXIT

require_root
for t in fio nvme python3; do
	command -v "$t" >/dev/null || ksft_skip_all "$t missing"
done
[ -x "$REPO/tools/nvfabctl/nvfabctl" ] || command -v nvfabctl >/dev/null ||
	ksft_skip_all "nvfabctl not built (make -C tools/nvfabctl)"
[ -f "$WALK" ] || ksft_skip_all "$WALK missing"

ktap_header
ktap_set_plan $((NSTEPS + 1))

DEMO_SHORT=1 DEMO_RESULT=$TMP/result REPO_ROOT=$REPO bash "$WALK" </dev/null 2>&1 |
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$TMP/out"
		printf '# %s\n' "$line"
	done
rc=${PIPESTATUS[0]}

all=1
for ((n = 1; n <= NSTEPS; n++)); do
	line=$(grep -a -m1 -E "^\[(PASS|FAIL)\] $n\. " "$TMP/out" 2>/dev/null)
	case "$line" in
	"[PASS] $n. "*)
		title=${line#"[PASS] $n. "}
		ktap_pass "demo step $n: ${title%% (*}"
		;;
	"[FAIL] $n. "*)
		title=${line#"[FAIL] $n. "}
		why=${title#* (}
		ktap_diag "step $n: ${why%)}"
		ktap_fail "demo step $n: ${title%% (*}"
		all=0
		;;
	*)
		ktap_fail "demo step $n: not reported by the walkthrough"
		all=0
		;;
	esac
done
summary=$(grep -a -m1 '^demo: [0-9]* of [0-9]* steps passed' "$TMP/out" 2>/dev/null)
ktap_diag "${summary:-no closing line from the walkthrough}"
consistent=1
if [ "$all" = 1 ]; then
	[ "$rc" = 0 ] && [ -n "$summary" ] || consistent=0
else
	[ "$rc" != 0 ] || consistent=0
fi
ktap_check "walkthrough exit status $rc agrees with its steps" test "$consistent" = 1
ktap_finish
