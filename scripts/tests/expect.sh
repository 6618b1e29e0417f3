# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# For the host tests of make lint's checks (design-map-test.sh,
# doc-check-test.sh): expect RC [PATTERN] runs the command in the array
# CHECK_CMD and succeeds when its exit status is RC and its output matches
# PATTERN (is empty without one), showing the output as KTAP diagnostics.
expect() {
	local out rc
	out=$("${CHECK_CMD[@]}" 2>&1)
	rc=$?
	[ -n "$out" ] && sed 's/^/# /' <<<"$out"
	[ "$rc" = "$1" ] || return 1
	if [ $# -gt 1 ]; then
		grep -q -- "$2" <<<"$out"
	else
		[ -z "$out" ]
	fi
}
