#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: checkpatch --strict, sparse (C=2, W=1) and kernel-doc -Wall on
# every nvfab source file, plus a dkms.conf freshness check and the design
# document's module map (tools/design-map.py) and the docs check (ABI
# files and man page against the code, tools/doc-check.py). Any finding
# fails. KDIR (default: the stock Debian 6.12 headers) is the sparse target,
# built with the NVIDIA provider against the stub nv-p2p.h
# (tools/testing/nv-p2p-stub/) so that it is compiled and checked too;
# the KUnit modules are also checked against the test kernel when it is
# built.
set -euo pipefail
. "$(dirname "$0")/testing/vm/lib.sh"
cd "$REPO_ROOT"

src=$(ensure_source)
kver=$(stock_kver)
kdir=${KDIR:-/usr/src/linux-headers-$kver}
fail=0

mapfile -t files < <(git ls-files 'drivers/*.c' 'drivers/*.h' 'include/*.h' \
	'scripts/conftest/*.c' 'tools/testing/vm/splat/*.c' 'tools/testing/peermem-test/*.c' 'tools/testing/peermem-test/*.h' 'tools/testing/nv-p2p-stub/*.h' 'tools/nvfabctl/*.c' 'tools/nvfabctl/*.h' 2>/dev/null)

# Tracepoint headers keep the layout of the kernel's own (include/trace/
# events/*.h): TRACE_EVENT's TP_* arguments one per line, each opening
# its own block. checkpatch's two layout checks for ordinary calls are
# off for them; every other check still applies.
cp_files=() trace_files=()
for f in "${files[@]}"; do
	case "$f" in */trace.h) trace_files+=("$f") ;; *) cp_files+=("$f") ;; esac
done
log "checkpatch --strict on ${#files[@]} files"
if ! "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
	--show-types -f "${cp_files[@]}"; then
	fail=1
fi
if [ "${#trace_files[@]}" -gt 0 ] &&
	! "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
		--show-types --ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE \
		-f "${trace_files[@]}"; then
	fail=1
fi

log "kernel-doc -none -Wall"
kd_files=()
for f in "${files[@]}"; do
	case "$f" in drivers/* | include/*) kd_files+=("$f") ;; esac
done
kd_out=$("$src/scripts/kernel-doc" -none -Wall "${kd_files[@]}" 2>&1 || true)
if [ -n "$kd_out" ]; then
	echo "$kd_out"
	fail=1
fi

sparse_build() { # name kdir extra-make-args...
	local name=$1 dir=$BUILD_DIR/lint-$1 kd=$2 out
	shift 2
	# From scratch: C=2 checks every file anyway, and objects left from an
	# older tree (a symbol moved between modules) made modpost report
	# undefined symbols that the sources no longer have.
	rm -rf "$dir"
	mkdir -p "$dir"
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		Kbuild Makefile VERSION dkms.conf drivers include scripts tools "$dir/"
	log "sparse + W=1 against $name ($kd)"
	out=$(make -C "$dir" KDIR="$kd" C=2 W=1 "$@" modules 2>&1) || {
		echo "$out"
		return 1
	}
	if echo "$out" | grep -E 'warning:|error:'; then
		return 1
	fi
}

command -v sparse >/dev/null || die "sparse is not installed (run tools/testing/vm/setup.sh)"
sparse_build stock "$kdir" NVIDIA_SRC="$REPO_ROOT/tools/testing/nv-p2p-stub" || fail=1
tkdir=$(test_kernel_dir)
if [ -f "$tkdir/.done" ]; then
	sparse_build test "$tkdir" NVFAB_KUNIT=1 || fail=1
else
	log "test kernel not built yet: KUnit modules not sparse-checked"
fi

log "design.rst's module map names every drivers/nvfab .c file"
tools/design-map.py "$REPO_ROOT" || fail=1

log "ABI docs and the man page match the code (tools/doc-check.py)"
make -s -C tools/nvfabctl >/dev/null || fail=1
tools/doc-check.py "$REPO_ROOT" || fail=1

log "dkms.conf up to date"
if ! scripts/gen-dkms-conf.sh | cmp -s - dkms.conf; then
	echo "dkms.conf is stale: run 'make dkms.conf'"
	fail=1
fi

if [ "$fail" = 0 ]; then
	log "lint: clean"
else
	log "lint: FAILED"
fi
exit "$fail"
