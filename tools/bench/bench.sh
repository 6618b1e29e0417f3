#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh: nvfab vs the in-kernel NVMe/TCP host in one
# stock-kernel guest run (nvfab installed by DKMS), same nvmet target, same
# fio jobs, interleaved rounds. Prints the ratio table and writes it to
# build/bench/. A benchmark, not a test: it exits 0 whenever it produced a
# table.
#   BENCH_ROUNDS (default 3), BENCH_RUNTIME seconds per fio job (default 5)
set -euo pipefail
. "$(dirname "$0")/../testing/vm/lib.sh"
cd "$REPO_ROOT"

out=$BUILD_DIR/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
"$VM_DIR/setup.sh"
scripts/dkms-install.sh "$(stock_kver)" >"$out/dkms.log" 2>&1 ||
	die "dkms install failed (see $out/dkms.log)"
NVFAB_BENCH=1 "$VM_DIR/run-vm.sh" --kernel stock --out "$out/vm" \
	--timeout "${NVFAB_VM_TIMEOUT:-2400}" -- "$REPO_ROOT/tools/bench/guest.sh" ||
	die "benchmark guest failed (see $out/vm/console.log)"
python3 tools/bench/report.py "$out/vm/bench.jsonl" | tee "$out/table.txt"
ln -sfn "$(basename "$out")" "$BUILD_DIR/bench/latest"
