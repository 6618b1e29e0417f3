#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: nvfab doing its job on real input, in one command.
#
#  1. tools/testing/vm/setup.sh   installs what is missing from apt (QEMU,
#                                 the stock Debian 6.12 kernel and headers,
#                                 DKMS, fio, nvme-cli, ...)
#  2. make -C tools/nvfabctl      builds the CLI the walkthrough uses
#  3. scripts/dkms-install.sh     dkms add/build/install of nvfab for the
#                                 stock kernel, as a user would install it
#  4. run-vm.sh --kernel stock    boots that kernel in QEMU and runs
#                                 tools/demo/walkthrough.sh in it; the
#                                 walkthrough's output is shown as it runs
#
# The exit status is 0 only when the guest ran and all 10 steps of the
# walkthrough passed. Everything is kept in build/demo/<timestamp>/
# (build/demo/latest links to the newest): report.txt (the walkthrough's
# output), vm/console.log (the whole serial console), vm/dmesg.txt, and the
# setup, nvfabctl and DKMS logs.
#
# Environment:
#   DEMO_SHORT=1      the short form of the walkthrough (as make check runs it)
#   DEMO_RAW=1        show the whole guest console, kernel messages included
#   NVFAB_VM_TIMEOUT  limit for the guest in seconds (default 1200)
#   STOCK_KVER        the stock kernel release (default: newest 6.12, lib.sh)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../testing/vm/lib.sh
. "$(dirname "$0")/../testing/vm/lib.sh"
cd "$REPO_ROOT" || exit 1

BANNER="==== nvfab demo"
NSTEPS=10

[ "$(id -u)" = 0 ] ||
	die "make demo needs root: it installs packages and installs nvfab with DKMS"

out=$BUILD_DIR/demo/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || exit 1
ln -sfn "$(basename "$out")" "$BUILD_DIR/demo/latest"

# progress LABEL LOG CMD...: run CMD with its output in LOG; a dot per
# second and the seconds every 10 s, so that a long step shows it is alive.
progress() {
	local label=$1 logf=$2 pid rc s=0
	shift 2

	printf '%s ' "$label"
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		s=$((s + 1))
		if [ $((s % 10)) = 0 ]; then
			printf '%ss' "$s"
		else
			printf '.'
		fi
	done
	wait "$pid"
	rc=$?
	if [ "$rc" = 0 ]; then
		printf ' done (%s s)\n' "$s"
	else
		printf ' FAILED (exit %s after %s s); the end of %s:\n' "$rc" "$s" "$logf"
		tail -n 25 "$logf" | sed 's/^/    /'
	fi
	return "$rc"
}

# console_filter: the guest console as it arrives, reduced to the
# walkthrough. Before its banner: the harness's own log lines, and a dot per
# console line while the guest boots. After it: everything but kernel
# messages and init's own lines.
console_filter() {
	local line started=0 dots=0

	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		if [ "${DEMO_RAW:-0}" = 1 ]; then
			printf '%s\n' "$line"
			continue
		fi
		if [[ "$line" =~ ^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\]\  ]]; then
			# run-vm.sh's log() lines
			[ "$dots" = 0 ] || { echo; dots=0; }
			printf '%s\n' "$line"
			continue
		fi
		if [ "$started" = 0 ]; then
			case "$line" in
			*"$BANNER"*)
				started=1
				[ "$dots" = 0 ] || { echo; dots=0; }
				printf '%s%s\n' "$BANNER" "${line#*"$BANNER"}"
				;;
			*)
				printf '.'
				dots=1
				;;
			esac
			continue
		fi
		[[ "$line" =~ ^\[\ *[0-9]+\.[0-9]+\] ]] && continue
		case "$line" in nvfab-vm:*) continue ;; esac
		printf '%s\n' "$line"
	done
	[ "$dots" = 0 ] || echo
}

echo "nvfab $(cat VERSION) demo: NVMe/TCP multipath with ANA on the stock Debian kernel"
echo "(logs in $out)"
echo

progress "[host] packages (tools/testing/vm/setup.sh)" "$out/setup.log" \
	"$VM_DIR/setup.sh" || die "setup failed"
kver=$(stock_kver)
[ -n "$kver" ] || die "cannot resolve the stock Debian 6.12 kernel"
progress "[host] nvfabctl (make -C tools/nvfabctl)" "$out/nvfabctl.log" \
	make -C tools/nvfabctl || die "nvfabctl build failed"
progress "[host] DKMS: add, build and install nvfab $(cat VERSION) for $kver" \
	"$out/dkms.log" scripts/dkms-install.sh "$kver" || die "DKMS install failed"
dkms status -m nvfab -k "$kver" 2>/dev/null | sed 's/^/       dkms status: /'
echo "[host] booting $kver in QEMU (TCG, no network), the walkthrough follows"

# The guest must load what DKMS installed, never a build tree.
unset NVFAB_MODDIR
# Only NVFAB_* reaches the guest; keep the console for the walkthrough.
[ -z "${DEMO_SHORT:-}" ] || export NVFAB_DEMO_SHORT=$DEMO_SHORT
export NVFAB_VM_APPEND="${NVFAB_VM_APPEND:+$NVFAB_VM_APPEND }loglevel=4"
VERBOSE=1 "$VM_DIR/run-vm.sh" --kernel stock --out "$out/vm" \
	--timeout "${NVFAB_VM_TIMEOUT:-1200}" -- "$REPO_ROOT/tools/demo/walkthrough.sh" \
	2>&1 | console_filter
vmrc=${PIPESTATUS[0]}

cp "$out/vm/cmd.log" "$out/report.txt" 2>/dev/null
read -r vmresult _ <"$out/vm/vm-result" 2>/dev/null || vmresult=none
passed=$(sed -n 's/^passed \([0-9]*\) of .*/\1/p' "$out/vm/demo-result" 2>/dev/null)

echo
if [ -z "$passed" ]; then
	echo "make demo: FAILED: the walkthrough did not finish (guest: $vmresult, exit $vmrc)"
	echo "  console: $out/vm/console.log"
	exit 1
fi
echo "make demo: $passed of $NSTEPS steps passed (report: $out/report.txt)"
if [ "$vmrc" = 0 ] && [ "$passed" = "$NSTEPS" ]; then
	exit 0
fi
grep '^step [0-9]* FAIL' "$out/vm/demo-result" | sed 's/^/  /'
echo "  guest: $vmresult, exit $vmrc; console: $out/vm/console.log"
[ "$vmrc" = 0 ] && exit 1
exit "$vmrc"
