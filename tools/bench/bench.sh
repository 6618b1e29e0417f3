#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh: nvfab vs the in-kernel NVMe/TCP host (NVMe/RDMA on
# soft RoCE in the rdma set) in one stock-kernel guest run (nvfab installed
# by DKMS), same nvmet target, same fio jobs, interleaved rounds. Prints the
# ratio table and writes, under build/bench/<timestamp>/ (linked as
# build/bench/latest):
#   table.txt     the table            summary.json  the same, for machines
#   ratios.png    the ratios as a bar chart, with goals and spread (only
#                 the rows with data)
#   vm/           the guest's output: bench.jsonl, fio JSON, /proc/stat
#                 samples, console.log
# A benchmark, not a test: it exits 0 whenever it produced a table (also
# from a guest that stopped early: the rows it did not reach say "no data").
#
# Environment:
#   BENCH_ROUNDS   rounds, each running both hosts (default 3)
#   BENCH_RUNTIME  seconds per steady fio job (default 5)
#   BENCH_SETS     scenario sets (default "single mpath"); words of:
#                  single (QD1, QD32, 128k seq on one path), rdma (QD1,
#                  QD32, 128k seq over rxe: nvfab-rdma vs nvme-rdma),
#                  peer (nvfab-rdma over rxe: the same O_DIRECT I/O with
#                  buffers in device memory, the test provider's, vs in
#                  host memory; builds the provider with make
#                  peermem-test-stock and tools/bench/peerio.c),
#                  disc (asynchronous discovery: nvfab-discovery vs nvme
#                  discover -p + uevent connect-all), tls (QD1, QD32,
#                  128k seq over NVMe/TCP with TLS 1.3 and a PSK; fetches
#                  tlshd with tools/testing/vm/tlshd.sh), auth (connect
#                  time with DH-HMAC-CHAP, bidirectional), mpath (= sym
#                  asym lb ana cut), sym, asym, lb, ana, cut; see guest.sh
#   BENCH_AUTH_CONNECTS  timed connects per host and round in the auth set
#                  (default 10: the median of 10)
#   NVFAB_TLSHD    the tls set: a tlshd tree (tools/testing/vm/tlshd.sh's
#                  output); default: fetched (or the cached one)
#   BENCH_DISC_CHANGES  timed subsystem links per host and round in the
#                  disc set (default 10: the median of 10)
#   BENCH_DISC_STORM    subsystems linked at once in the disc set
#                  (default 200)
#   BENCH_DELAYS   netem delays of path 2 in ms for asym (default "1 30")
#   BENCH_LB_DELAYS  netem delays of path 1 and path 2 in ms for lb
#                  (default "8 150")
#   BENCH_STALL_RUNTIME  seconds per path cut fio run (default 9)
#   BENCH_FLIPS    ANA flips per ANA fio run, 2 s apart (default 8)
#   BENCH_TRACE    1 (default): keep an ftrace of the nvfab and nvme events
#                  of each stall run (vm/trace-HOST-ROUND-JOB.txt.gz) and
#                  report when each host moved the I/O; 0: no trace
#   BENCH_PROFILE  1: in round 1, one more QD32 and one more 128k seq run
#                  per host in the single, rdma and tls sets, under perf
#                  (software cpu-clock sampling, kernel call chains), as
#                  vm/profile-JOB-HOST.txt (vm/profile-qd32-nvfab.txt, ...);
#                  0 (default)
#   BENCH_PIN_CPU  guest CPU of the single-job runs (QD1, QD32, 128k seq,
#                  those of the rdma set too; default 0; empty: not
#                  pinned), so that both hosts and
#                  nvmet's io_work sit on the same CPU in every run
#   BENCH_KERNEL_SQFLOW  1: the in-kernel host's tcp connects ask for SQ
#                  flow control disabled too (nvme connect
#                  --disable-sqflow, as nvme connect-all does when the
#                  discovery entry allows it); 0 (default): each host's
#                  own default (nvfab asks, nvfab_core.sqflow_auto; the
#                  in-kernel host does not)
#   NVFAB_VM_TIMEOUT     guest limit in seconds (default 2400)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../testing/vm/lib.sh
. "$(dirname "$0")/../testing/vm/lib.sh"
cd "$REPO_ROOT"

# run-vm.sh hands only NVFAB_* variables to the guest.
export NVFAB_BENCH_ROUNDS=${BENCH_ROUNDS:-3}
export NVFAB_BENCH_RUNTIME=${BENCH_RUNTIME:-5}
export NVFAB_BENCH_SETS=${BENCH_SETS:-single mpath}
export NVFAB_BENCH_DELAYS=${BENCH_DELAYS:-1 30}
export NVFAB_BENCH_LB_DELAYS=${BENCH_LB_DELAYS:-8 150}
export NVFAB_BENCH_STALL_RUNTIME=${BENCH_STALL_RUNTIME:-9}
export NVFAB_BENCH_FLIPS=${BENCH_FLIPS:-8}
export NVFAB_BENCH_TRACE=${BENCH_TRACE:-1}
export NVFAB_BENCH_PROFILE=${BENCH_PROFILE:-0}
export NVFAB_BENCH_PIN_CPU=${BENCH_PIN_CPU-0}
export NVFAB_BENCH_KERNEL_SQFLOW=${BENCH_KERNEL_SQFLOW:-0}
export NVFAB_BENCH_DISC_CHANGES=${BENCH_DISC_CHANGES:-10}
export NVFAB_BENCH_DISC_STORM=${BENCH_DISC_STORM:-200}
export NVFAB_BENCH_AUTH_CONNECTS=${BENCH_AUTH_CONNECTS:-10}

# The plot uses Debian's matplotlib, so Debian's python3 (a python3 earlier
# in PATH, e.g. pyenv's, does not see dist-packages).
PLOT_PY=/usr/bin/python3
[ -x "$PLOT_PY" ] || PLOT_PY=python3

# ensure_pkg PKG LOG WHAT: install Debian package PKG once; never fatal.
ensure_pkg() {
	dpkg -s "$1" >/dev/null 2>&1 && return 0
	log "installing $1 for $3"
	{
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$1" ||
			{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends "$1"; }
	} >"$2" 2>&1 && return 0
	log "warning: $1 not installed (see $2); no $3"
	return 1
}

out=$BUILD_DIR/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
ensure_pkg python3-matplotlib "$out/apt.log" "plot" || true
# The guest runs the host's binaries (9p root): perf from Debian's
# linux-perf profiles the stock kernel with software events.
[ "$NVFAB_BENCH_PROFILE" = 1 ] && { ensure_pkg linux-perf "$out/apt-perf.log" "profile" || true; }
"$VM_DIR/setup.sh"
# The peer set only: the test provider, which DKMS does not install, for
# the stock kernel's headers, and its I/O driver (the guest runs the
# host's binaries).
if [[ " $NVFAB_BENCH_SETS " == *" peer "* ]]; then
	log "peer set: make peermem-test-stock, peerio"
	nice -n 10 make peermem-test-stock >"$out/peermem-test-stock.log" 2>&1 ||
		die "make peermem-test-stock failed (see $out/peermem-test-stock.log)"
	mkdir -p "$REPO_ROOT/build/bench-tools"
	nice -n 10 "${CC:-cc}" -O2 -Wall -pthread -o "$REPO_ROOT/build/bench-tools/peerio" \
		tools/bench/peerio.c >"$out/peerio-build.log" 2>&1 ||
		die "tools/bench/peerio.c did not build (see $out/peerio-build.log)"
fi
# The tls set only: tlshd for the guest (as check.sh fetches it for
# tls.sh; cached, the guest has no network and runs the host's binaries).
# Without it the guest skips the tls set and says why.
if [[ " $NVFAB_BENCH_SETS " == *" tls "* ]] && [ -z "${NVFAB_TLSHD:-}" ]; then
	NVFAB_TLSHD=$("$VM_DIR/tlshd.sh" 2>"$out/tlshd-fetch.log") ||
		{ NVFAB_TLSHD=; log "warning: no tlshd: the tls set will be skipped (see $out/tlshd-fetch.log)"; }
fi
export NVFAB_TLSHD=${NVFAB_TLSHD:-}
scripts/dkms-install.sh "$(stock_kver)" >"$out/dkms.log" 2>&1 ||
	die "dkms install failed (see $out/dkms.log)"
log "guest: rounds $NVFAB_BENCH_ROUNDS, runtime ${NVFAB_BENCH_RUNTIME}s, sets '$NVFAB_BENCH_SETS', in-kernel disable_sqflow $NVFAB_BENCH_KERNEL_SQFLOW"
vmrc=0
NVFAB_BENCH=1 "$VM_DIR/run-vm.sh" --kernel stock --out "$out/vm" \
	--timeout "${NVFAB_VM_TIMEOUT:-2400}" -- "$REPO_ROOT/tools/bench/guest.sh" ||
	vmrc=$?
if [ ! -s "$out/vm/bench.jsonl" ]; then
	die "benchmark guest failed with no result (exit $vmrc; see $out/vm/console.log)"
fi
[ "$vmrc" = 0 ] ||
	log "warning: benchmark guest exited $vmrc (see $out/vm/console.log); partial results"

python3 tools/bench/report.py "$out/vm/bench.jsonl" --out "$out"
ln -sfn "$(basename "$out")" "$BUILD_DIR/bench/latest"

png=$out/ratios.png
if ! "$PLOT_PY" tools/bench/plot.py "$out/summary.json" "$png" >"$out/plot.log" 2>&1; then
	log "warning: no plot (see $out/plot.log)"
	png=
fi
echo
echo "bench: table:   $out/table.txt"
echo "bench: summary: $out/summary.json"
if [ -n "$png" ]; then
	echo "bench: plot:    $png"
else
	echo "bench: plot:    not made: $(tail -n1 "$out/plot.log") (see $out/plot.log)"
fi
for f in "$out"/vm/profile-*-nvfab.txt "$out"/vm/profile-*-kernel.txt; do
	[ -s "$f" ] && echo "bench: profile: $f"
done
echo "bench: latest:  $BUILD_DIR/bench/latest -> $(basename "$out")"
