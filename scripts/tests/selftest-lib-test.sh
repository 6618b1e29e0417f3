#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of selftests/nvfab/lib.sh's fork-free waits: nap and
# clock, busywait, and the forms of sleep, date and cat that lib.sh takes
# over from the real programs (anything else must still reach them, with
# their output and exit status). A second or two. KTAP output; exits 0
# only if every test passes.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ktap_header
ktap_set_plan 12

ktap_check "a FIFO for nap is open" test -n "$NAP_FD"

# elapsed_ms CMD...: run CMD, ELAPSED is its wall time in ms
elapsed_ms() {
	local t0
	clock
	t0=$NOW
	"$@"
	clock
	ELAPSED=$((NOW - t0))
}
elapsed_ms nap 0.3
ktap_check "nap 0.3 sleeps 0.3 s ($ELAPSED ms)" test "$ELAPSED" -ge 290 -a "$ELAPSED" -lt 2000
elapsed_ms sleep 0.2
ktap_check "sleep 0.2 naps 0.2 s ($ELAPSED ms)" test "$ELAPSED" -ge 190 -a "$ELAPSED" -lt 2000
ktap_check "sleep with a unit still runs sleep(1)" sleep 0.01s

d=$(date +%s%3N)
r=$(command date +%s%3N)
ktap_check "date +%s%3N is the real clock ($d, $r)" test $((r - d)) -ge 0 -a $((r - d)) -lt 2000
ktap_check "date +%s is seconds" test "$(date +%s)" -ge $((r / 1000 - 2))
ktap_check "another date format reaches date(1)" test "$(date -d @0 -u +%Y)" = 1970

# a sysfs attribute of this machine, any that is readable
attr=/sys/kernel/mm/transparent_hugepage/enabled
[ -r "$attr" ] || attr=/sys/class/net/lo/address
ktap_check "cat of a sysfs file gives what cat(1) gives" \
	test "$(cat "$attr")" = "$(command cat "$attr")"
cat /sys/nvfab-no-such-file 2>/dev/null
ktap_check "cat of a missing sysfs file fails as cat(1)" test $? = 1
printf 'a\nb' >"$TMP/f"
ktap_check "cat of another file reaches cat(1) (no newline added)" \
	test "$(cat "$TMP/f" | od -An -c | tr -d ' \n')" = 'a\nb'

elapsed_ms busywait 300 false
ktap_check "busywait gives up after its timeout ($ELAPSED ms)" \
	test "$ELAPSED" -ge 290 -a "$ELAPSED" -lt 2000
n=0
third() { n=$((n + 1)); [ "$n" -ge 3 ]; }
ktap_check "busywait returns once the command succeeds" busywait 5000 third
ktap_finish
