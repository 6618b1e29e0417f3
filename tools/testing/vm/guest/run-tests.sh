#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest payload of "make check" (test kernel): the KUnit suites, then the
# selftests, then a kmemleak scan. Run by check.sh through run-vm.sh.
#
# Input:
#   NVFAB_MODDIR   kbuild output of nvfab (default $REPO_ROOT/build/test):
#                  modules.order and the .ko files it names. Modules whose
#                  path has a tests/ component, or whose name contains
#                  "kunit", are KUnit modules; the rest are the driver.
#                  Paths may be relative to NVFAB_MODDIR or absolute.
#                  Modules under tools/ (harness helpers such as
#                  tools/testing/vm/splat) are never loaded as tests.
#   NVFAB_SPLAT_MODE  kasan|lockdep|warn: after the tests, load
#                  tools/testing/vm/splat's nvfab_splat.ko with that mode to
#                  prove that a sanitizer report turns the run red
#   NVFAB_KUNIT    "skip": no KUnit phase (kunit.ktap records a skip), for
#                  a developer's run of a few selftests; make check never
#                  sets it
#   NVFAB_SELFTEST_TIMEOUT  limit for selftests/nvfab/run.sh (default 900 s)
#   NVFAB_SELFTESTS_EXCLUDE  selftests left out here (default "persist.sh
#                  udev.sh packages.sh": they run in the stock-kernel
#                  guest, several times faster; their kernel side, the
#                  WWID text and the connects, runs under KASAN in KUnit's
#                  nvfab_ns_wwid and the other selftests; packages.sh
#                  installs into an overlay of the root, with the DKMS
#                  modules of the stock kernel); "" runs them here too
# Output, in $OUT:
#   kunit.ktap      one KTAP document: every KUnit suite, plus a "not ok"
#                   line for each module that failed to load or unload
#   selftests.ktap  stdout of selftests/nvfab/run.sh (absent if no run.sh)
#   kmemleak.txt    /sys/kernel/debug/kmemleak after the final scans
#   phases          key=value lines: selftests_rc, kmemleak, ...
# The exit status is 0 unless this script itself went wrong; test results
# are in the files above.
set -euo pipefail

: "${REPO_ROOT:?}" "${OUT:?}"
moddir=${NVFAB_MODDIR:-$REPO_ROOT/build/test}
selftest_timeout=${NVFAB_SELFTEST_TIMEOUT:-900}
kunit_dbg=/sys/kernel/debug/kunit
kmemleak=/sys/kernel/debug/kmemleak

log() { echo "run-tests: $*" >&2; }
phase() { echo "$1=$2" >>"$OUT/phases"; }

: >"$OUT/phases"
kbody=$(mktemp)
knum=0

# kfail NAME REASON - a top-level "not ok" in kunit.ktap.
kfail() {
	knum=$((knum + 1))
	printf '# %s\nnot ok %d %s\n' "$2" "$knum" "$1" >>"$kbody"
	log "FAIL $1: $2"
}

# ksuite FILE - append one suite's debugfs results (a whole KTAP document
# with a single top-level test) as the next top-level test of kunit.ktap.
ksuite() {
	knum=$((knum + 1))
	awk -v n="$knum" '
		NR <= 2 && (/^KTAP version/ || /^1\.\.1$/) { next }
		/^(not )?ok 1 / { sub(/ok 1 /, "ok " n " ") }
		{ print }
	' "$1" >>"$kbody"
}

modname() {
	local m=${1##*/}

	m=${m%.ko}
	m=${m%.o}
	echo "${m//-/_}"
}

# Modules from modules.order, split into driver and KUnit modules.
drv=()
tst=()
splat=
if [ -f "$moddir/modules.order" ]; then
	while read -r m; do
		[ -n "$m" ] || continue
		m=${m%.o}
		m=${m%.ko}.ko
		case "$m" in /*) ;; *) m=$moddir/$m ;; esac
		case "${m#"$moddir"}" in
		*/tools/testing/vm/splat/*) splat=$m ;;
		*/tools/*) ;;
		*/tests/* | *kunit*) tst+=("$m") ;;
		*) drv+=("$m") ;;
		esac
	done <"$moddir/modules.order"
fi

# Load the driver modules in dependency order: modules.order is build order,
# which need not be load order. In-tree dependencies come from modprobe.
declare -A ours=()
for m in "${drv[@]}" "${tst[@]}"; do
	ours[$(modname "$m")]=1
done

# load_module PATH [PARAMS...] - modprobe the in-tree modules it depends
# on, then insmod.
load_module() {
	local f=$1 dep deps

	[ -f "$f" ] || { echo "$f missing"; return 1; }
	deps=$(modinfo -F depends "$f" 2>/dev/null || true)
	for dep in ${deps//,/ }; do
		[ -n "${ours[${dep//-/_}]:-}" ] && continue
		modprobe "$dep" || { echo "modprobe $dep failed"; return 1; }
	done
	shift
	insmod "$f" "$@" 2>&1
}

loaded=()
run_kunit() {
	local pending=("${drv[@]}") next progress m dep deps ok out before after s

	if [ ! -f "$moddir/modules.order" ]; then
		kfail modules_present "no modules.order in NVFAB_MODDIR=$moddir (were the modules built?)"
		return
	fi
	if [ ${#drv[@]} -eq 0 ] && [ ${#tst[@]} -eq 0 ]; then
		kfail modules_present "modules.order in $moddir lists no modules"
		return
	fi
	[ -d "$kunit_dbg" ] || log "warning: $kunit_dbg missing; KUnit results cannot be collected"

	while [ ${#pending[@]} -gt 0 ]; do
		next=()
		progress=0
		for m in "${pending[@]}"; do
			ok=1
			deps=$(modinfo -F depends "$m" 2>/dev/null || true)
			for dep in ${deps//,/ }; do
				dep=${dep//-/_}
				[ -n "${ours[$dep]:-}" ] || continue
				[ -e "/sys/module/$dep" ] || ok=0
			done
			if [ "$ok" = 0 ]; then
				next+=("$m")
				continue
			fi
			progress=1
			log "insmod $m"
			if out=$(load_module "$m"); then
				loaded+=("$m")
			else
				kfail "load:$(modname "$m")" "insmod $m failed: ${out//$'\n'/ }"
			fi
		done
		if [ "$progress" = 0 ]; then
			for m in "${next[@]}"; do
				kfail "load:$(modname "$m")" "not loaded: a dependency among nvfab's modules failed to load"
			done
			break
		fi
		pending=("${next[@]}")
	done

	for m in "${tst[@]}"; do
		before=$(ls "$kunit_dbg" 2>/dev/null | sort || true)
		log "insmod $m (KUnit)"
		if ! out=$(load_module "$m"); then
			kfail "load:$(modname "$m")" "insmod $m failed: ${out//$'\n'/ }"
			continue
		fi
		after=$(ls "$kunit_dbg" 2>/dev/null | sort || true)
		local n=0
		for s in $(comm -13 <(echo "$before") <(echo "$after")); do
			[ -r "$kunit_dbg/$s/results" ] || continue
			ksuite "$kunit_dbg/$s/results"
			n=$((n + 1))
		done
		[ "$n" -gt 0 ] || kfail "suites:$(modname "$m")" "$m registered no KUnit suite in $kunit_dbg"
		if ! out=$(rmmod "$(modname "$m")" 2>&1); then
			kfail "unload:$(modname "$m")" "rmmod failed: $out"
		fi
	done

	for ((i = ${#loaded[@]} - 1; i >= 0; i--)); do
		m=${loaded[i]}
		log "rmmod $m"
		if ! out=$(rmmod "$(modname "$m")" 2>&1); then
			kfail "unload:$(modname "$m")" "rmmod failed: $out"
		fi
	done
}

# Forget leak suspects from boot, so that the final scan reports only what
# the tests leaked.
if [ -w "$kmemleak" ]; then
	echo scan >"$kmemleak" || true
	echo clear >"$kmemleak" || true
fi

if [ "${NVFAB_KUNIT:-}" = skip ]; then
	log "KUnit phase skipped (NVFAB_KUNIT=skip)"
	printf 'TAP version 13\n1..0 # SKIP NVFAB_KUNIT=skip\n' >"$OUT/kunit.ktap"
else
	log "KUnit phase (modules from $moddir)"
	run_kunit
	{
		echo "KTAP version 1"
		echo "1..$knum"
		cat "$kbody"
	} >"$OUT/kunit.ktap"
fi
rm -f "$kbody"
phase kunit_tests "$knum"

runsh=$REPO_ROOT/selftests/nvfab/run.sh
if [ -f "$runsh" ]; then
	log "selftest phase ($runsh, limit ${selftest_timeout}s)"
	export NVFAB_MODDIR=$moddir
	export NVFAB_SELFTESTS_EXCLUDE=${NVFAB_SELFTESTS_EXCLUDE-persist.sh udev.sh packages.sh}
	set +e
	timeout -k 10 "$selftest_timeout" bash "$runsh" >"$OUT/selftests.ktap"
	rc=$?
	set -e
	phase selftests_rc "$rc"
	[ "$rc" = 0 ] || log "run.sh exited $rc"
else
	log "no $runsh; selftest phase skipped"
	phase selftests_rc none
fi

if [ -n "${NVFAB_SPLAT_MODE:-}" ]; then
	if [ -n "$splat" ]; then
		log "harness self-test: insmod nvfab_splat mode=$NVFAB_SPLAT_MODE"
		load_module "$splat" "mode=$NVFAB_SPLAT_MODE" >&2 || true
		rmmod nvfab_splat 2>/dev/null || true
	else
		log "NVFAB_SPLAT_MODE set but no nvfab_splat.ko in modules.order"
	fi
fi

# Whatever the selftests left loaded must not count as a leak holder.
for ((i = ${#drv[@]} - 1; i >= 0; i--)); do
	rmmod "$(modname "${drv[i]}")" 2>/dev/null || true
done

if [ -w "$kmemleak" ]; then
	# Objects younger than 5 s are not reported; scan twice, apart.
	log "kmemleak scan"
	echo scan >"$kmemleak" || true
	sleep 6
	echo scan >"$kmemleak" || true
	cat "$kmemleak" >"$OUT/kmemleak.txt" || true
	phase kmemleak "done"
else
	phase kmemleak unavailable
fi
log "done"
