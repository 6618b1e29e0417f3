#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of the Makefile's build copies (make test-modules, make
# peermem-test-stock: the tree copied into build/NAME and built there):
# what an in-tree `make` left in the source tree (.mod and .mod.c files,
# modules.order, Module.symvers) must not reach the copy, where kbuild
# took a stale nvfab-fabrics.mod for its own and modpost failed with
# undefined symbols. The copy is made from a scratch copy of the tracked
# files with such leftovers added, against a kernel tree that does not
# exist, so that make stops right after the copy (a second or two).
# KTAP output; exits 0 only if every test passes.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

(cd "$REPO" && git ls-files -z) |
	rsync -a --from0 --files-from=- "$REPO/" "$TMP/src/" ||
	{ echo "Bail out! cannot copy the tracked files"; exit 1; }
STALE=(drivers/nvfab/fabrics/nvfab-fabrics.mod
	drivers/nvfab/fabrics/nvfab-fabrics.mod.c
	drivers/nvfab/fabrics/modules.order modules.order Module.symvers
	tools/testing/peermem-test/modules.order)
for f in "${STALE[@]}"; do
	echo "stale leftover of an in-tree build" >"$TMP/src/$f"
done

ktap_header
ktap_set_plan 3

make -C "$TMP/src" -s peermem-test-stock BUILD="$TMP/build" \
	STOCK_KDIR="$TMP/no-kernel" >"$TMP/out" 2>&1
rc=$?
COPY=$TMP/build/peermem-test-stock
copied() {
	sed 's/^/# make: /' "$TMP/out" | tail -5
	[ "$rc" != 0 ] && grep -q "does not exist" "$TMP/out" &&
		test -f "$COPY/drivers/nvfab/peermem/peermem.c" &&
		test -f "$COPY/tools/testing/peermem-test/nvfab_peermem_test.c"
}
ktap_check "make peermem-test-stock copies the sources, then stops at the missing kernel tree" copied

no_leftovers() {
	local f found=0
	for f in "${STALE[@]}"; do
		if [ -e "$COPY/$f" ]; then
			ktap_diag "copied: $f"
			found=1
		fi
	done
	[ "$found" = 0 ]
}
ktap_check "no .mod, .mod.c, modules.order or Module.symvers of the source tree in the copy" no_leftovers

# Files the copy itself has (kbuild's, from an earlier build there) are
# kept: the next build is incremental.
mkdir -p "$COPY/drivers/nvfab/core" &&
	echo own >"$COPY/drivers/nvfab/core/nvfab-core.mod"
make -C "$TMP/src" -s peermem-test-stock BUILD="$TMP/build" \
	STOCK_KDIR="$TMP/no-kernel" >"$TMP/out" 2>&1
ktap_check "the copy's own kbuild files survive the next copy" \
	test "$(cat "$COPY/drivers/nvfab/core/nvfab-core.mod" 2>/dev/null)" = own

ktap_finish
