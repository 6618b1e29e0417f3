#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make check" after the modules are built: boot the test kernel, run the
# KUnit suites and the selftests in it (guest/run-tests.sh), add up the
# results and fail the run on any kernel splat in the guest log.
#
#   check.sh [--out DIR] [--timeout S]
#
# Environment:
#   NVFAB_MODDIR      kbuild output with modules.order (default build/test)
#   NVFAB_VM_TIMEOUT  whole-guest limit (default 1800 s), see run-vm.sh
#   VERBOSE=1         stream the guest console to stderr
#   NVFAB_CHECK_PAYLOAD  guest command instead of guest/run-tests.sh; it
#                        must write $OUT/kunit.ktap (and selftests.ktap when
#                        selftests/nvfab/run.sh exists) like run-tests.sh
#   NVFAB_CHECK_KERNEL   test (default) or stock
#   NVFAB_TLSHD          tlshd.sh's directory (default: run tlshd.sh)
# Results go to build/vm/check-<timestamp>/ (build/vm/check-latest links to
# the newest). The last line printed is "N passed, N failed" or
# "N passed, N failed, N skipped"; the exit status is 0 only when nothing
# failed. Each kind of splat found in the guest log counts as one failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=
timeout=${NVFAB_VM_TIMEOUT:-1800}
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	*) die "usage: $0 [--out DIR] [--timeout S]" ;;
	esac
done

if [ -z "$out" ]; then
	out=$BUILD_DIR/vm/check-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$BUILD_DIR/vm"
	ln -sfn "$(basename "$out")" "$BUILD_DIR/vm/check-latest"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

moddir=${NVFAB_MODDIR:-$BUILD_DIR/test}
case "$moddir" in /*) ;; *) moddir=$PWD/$moddir ;; esac
export NVFAB_MODDIR=$moddir

# tlshd for tls.sh (fetched once, then cached; the guest has no network):
# without it tls.sh skips, and the log says why
if [ -z "${NVFAB_TLSHD:-}" ]; then
	NVFAB_TLSHD=$("$VM_DIR/tlshd.sh" 2>"$out/tlshd-fetch.log") ||
		{ NVFAB_TLSHD=; log "warning: no tlshd: tls.sh will skip (see $out/tlshd-fetch.log)"; }
fi
export NVFAB_TLSHD

payload=${NVFAB_CHECK_PAYLOAD:-$VM_DIR/guest/run-tests.sh}
kernel=${NVFAB_CHECK_KERNEL:-test}

start=$(date +%s)
set +e
"$VM_DIR/run-vm.sh" --kernel "$kernel" --out "$out" --timeout "$timeout" -- "$payload"
vmrc=$?
set -e
secs=$(($(date +%s) - start))

passed=0
failed=0
skipped=0
report=()

# add_ktap FILE - add the leaf counts of one KTAP file.
add_ktap() {
	local p f s

	read -r p f s < <("$VM_DIR/ktap-summary.py" --counts "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	report+=("$("$VM_DIR/ktap-summary.py" "$1" | sed "s|^$out/||")")
}

# infra_fail MESSAGE - a failure of the run itself.
infra_fail() {
	failed=$((failed + 1))
	report+=("FAIL: $1")
}

echo "== nvfab check: $out (guest ${secs}s, $(cat "$out/vm-result" 2>/dev/null || echo 'no vm-result'))"

read -r vmresult _ <"$out/vm-result" 2>/dev/null || vmresult=none
case "$vmresult" in
ok) [ "$vmrc" = 0 ] || infra_fail "guest payload exited $vmrc (see $out/cmd.log)" ;;
timeout) infra_fail "guest timed out after ${timeout}s (see $out/console.log)" ;;
panic) infra_fail "guest kernel panicked (see $out/console.log)" ;;
killed) infra_fail "QEMU was killed by a signal from outside (see $out/console.log)" ;;
no-rc) infra_fail "guest wrote no exit status: crashed or init failed (see $out/console.log)" ;;
*) infra_fail "run-vm.sh failed (exit $vmrc) before the guest ran" ;;
esac

if [ -f "$out/kunit.ktap" ]; then
	add_ktap "$out/kunit.ktap"
elif [ "$vmresult" != none ]; then
	infra_fail "no kunit.ktap: the KUnit phase did not finish"
fi

st_rc=$(sed -n 's/^selftests_rc=//p' "$out/phases" 2>/dev/null || true)
if [ -f "$out/selftests.ktap" ]; then
	f0=$failed
	add_ktap "$out/selftests.ktap"
	# run.sh's "# selftests: nvfab: NAME took N s, idle M s": one line
	# of times (make check's summary has them as a table)
	times=$(sed -n 's/^# selftests: nvfab: \(.*\)\.[a-z]* took \([0-9]*\) s.*/\1 \2/p' \
		"$out/selftests.ktap" | paste -s -d, - | sed 's/,/ s, /g')
	[ -n "$times" ] && report+=("selftest seconds: $times s")
	case "$st_rc" in
	0 | none) ;;
	124 | 137) infra_fail "selftests/nvfab/run.sh timed out" ;;
	*) [ "$failed" != "$f0" ] || infra_fail "selftests/nvfab/run.sh exited $st_rc without a failed test" ;;
	esac
elif [ -f "$REPO_ROOT/selftests/nvfab/run.sh" ] && [ -f "$out/kunit.ktap" ]; then
	infra_fail "no selftests.ktap although selftests/nvfab/run.sh exists"
fi

# Kernel splats. Only kernel lines count (they carry a printk timestamp),
# so test output on the console cannot trip the scan. A category counts as
# one failure however often it matches.
klines=$(mktemp)
trap 'rm -f "$klines"' EXIT
grep -a -E '\[ *[0-9]+\.[0-9]+\]' "$out/console.log" >"$klines" 2>/dev/null || true

lockdep_re='WARNING: possible|possible circular locking|possible recursive locking|inconsistent lock state|'
lockdep_re+='BUG: sleeping function called from invalid context|BUG: scheduling while atomic|'
lockdep_re+='WARNING: suspicious RCU usage|WARNING: bad unlock balance|BUG: held lock freed|'
lockdep_re+='WARNING: lock held when returning to user space|BUG: workqueue leaked lock|'
lockdep_re+='DEBUG_LOCKS_WARN_ON|BUG: MAX_LOCK|WARNING: Nested lock was not taken|'
lockdep_re+='WARNING: held lock freed|INFO: trying to register non-static key'
declare -A splat_re=(
	[KASAN]='BUG: KASAN|BUG: KFENCE'
	[lockdep]=$lockdep_re
	[WARN]='\[ cut here \]|WARNING:'
	[BUG]='BUG:|kernel BUG at'
	[Oops]='Oops: |Oops\['
	[panic]='Kernel panic'
	[hung-task]='INFO: task .* blocked for more than'
	[kmemleak]='unreferenced object|kmemleak: [0-9]+ new suspected memory leaks'
	[RCU-stall]='RCU stall|self-detected stall|rcu: INFO: .* detected stalls|detected stalls on CPUs'
)
# Lines claimed by a more specific category are not counted again.
declare -A splat_not=(
	[WARN]="$lockdep_re"
	[BUG]="BUG: KASAN|BUG: KFENCE|$lockdep_re"
)
for cat in KASAN lockdep WARN BUG Oops panic hung-task kmemleak RCU-stall; do
	hits=$(grep -a -E -- "${splat_re[$cat]}" "$klines" || true)
	if [ -n "${splat_not[$cat]:-}" ] && [ -n "$hits" ]; then
		hits=$(grep -a -v -E -- "${splat_not[$cat]}" <<<"$hits" || true)
	fi
	if [ "$cat" = kmemleak ] && [ -s "$out/kmemleak.txt" ]; then
		hits+=$'\n'$(grep -a -m20 -E 'unreferenced object' "$out/kmemleak.txt" | sed 's/^/kmemleak.txt: /' || true)
		hits=$(sed '/^$/d' <<<"$hits")
	fi
	[ -n "$hits" ] || continue
	failed=$((failed + 1))
	n=$(wc -l <<<"$hits")
	report+=("FAIL: $cat: $n line(s) in the guest log, first ones:"$'\n'"$(head -n 10 <<<"$hits" | sed 's/^/    /')")
	first=$(grep -a -n -m1 -F -- "$(head -n 1 <<<"$hits")" "$klines" | cut -d: -f1 || true)
	if [ -n "$first" ] && { [ -z "${splat_first:-}" ] || [ "$first" -lt "$splat_first" ]; }; then
		splat_first=$first
	fi
done

# The first splat in brief: where it hit, its call chain, and what the
# selftests were doing. CI keeps only part of the output, and the console
# log of its clone is gone after the run.
if [ -n "${splat_first:-}" ]; then
	trace=$(tail -n +"$splat_first" "$klines" | head -n 80 |
		grep -a -E 'RIP: |Workqueue: |Comm: | [a-z_][a-zA-Z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+' |
		sed -E 's/^\[ *[0-9.]+\] *//; s/^ +//' | grep -a -v '^? ' |
		head -n 20 | paste -s -d '|' - |
		sed 's/|/ <- /g')
	report+=("first splat (console line $splat_first): ${trace:-no RIP or call trace in the log}")
	if [ -f "$out/selftests.ktap" ]; then
		report+=("selftests were at: $(grep -a -E '^ *(ok|not ok|# )' "$out/selftests.ktap" | tail -n 3 | sed 's/^ *//' | paste -s -d '|' - | sed 's/|/ ; /g')")
	fi
fi

if [ -e "$out/console.boot1.log" ]; then
	report+=("note: the kernel reported a splat while booting, before init ran anything of nvfab; the results come from a second boot (first boot: $out/console.boot1.log)")
fi

for line in "${report[@]}"; do
	printf '%s\n' "$line"
done
echo "logs: $out/{console.log,cmd.log,kunit.ktap,selftests.ktap,kmemleak.txt}"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
