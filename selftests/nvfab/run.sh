#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every TEST_PROGS of the Makefile, in order, as one KTAP document:
# each test's own KTAP nested (indented) under one result line. A test that
# exits 4 is a skip; one that runs past `timeout` in settings fails. After
# each test a line gives its wall time and how much of it the CPUs were
# idle (waiting: sleeps, protocol timers, polling, the target's pace),
# from /proc/stat: "# selftests: nvfab: NAME took N s, idle M s".
#   NVFAB_SELFTESTS          run these instead (words, in order)
#   NVFAB_SELFTESTS_EXCLUDE  leave these out (words)
set -u
cd "$(dirname "$0")"

timeout=$(sed -n 's/^timeout=//p' settings)
mapfile -t tests < <(sed -n 's/^TEST_PROGS := //p' Makefile | tr ' ' '\n' | grep .)
[ -n "${NVFAB_SELFTESTS:-}" ] && read -r -a tests <<<"$NVFAB_SELFTESTS"
if [ -n "${NVFAB_SELFTESTS_EXCLUDE:-}" ]; then
	mapfile -t tests < <(printf '%s\n' "${tests[@]}" |
		grep -vxF -f <(tr ' ' '\n' <<<"$NVFAB_SELFTESTS_EXCLUDE" | grep .))
fi

# idle_ticks: idle + iowait clock ticks of all CPUs together
idle_ticks() { awk '/^cpu / { print $5 + $6; exit }' /proc/stat 2>/dev/null || echo 0; }
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
ncpu=$(nproc 2>/dev/null || echo 1)

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	echo "# selftests: nvfab: $t"
	# "timeout_NAME=S" in settings overrides "timeout=S" for one test
	tmo=$(sed -n "s/^timeout_${t%.sh}=//p" settings)
	tmo=${tmo:-${timeout:-300}}
	t0=$SECONDS
	i0=$(idle_ticks)
	timeout --foreground -k 10 "$tmo" "./$t" 2>&1 | sed 's/^/    /'
	rc=${PIPESTATUS[0]}
	i1=$(idle_ticks)
	echo "# selftests: nvfab: $t took $((SECONDS - t0)) s, idle $(((i1 - i0) / (hz * ncpu))) s"
	case $rc in
	0) echo "ok $n selftests: nvfab: $t" ;;
	4) echo "ok $n selftests: nvfab: $t # SKIP" ;;
	124 | 137) echo "not ok $n selftests: nvfab: $t # TIMEOUT ${tmo}s" ;;
	*) echo "not ok $n selftests: nvfab: $t # exit=$rc" ;;
	esac
done
