#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-matrix.sh [--out DIR]: build the modules DKMS installs, as DKMS
# does (make KDIR=... modules) but with W=1 and any warning counted as a
# failure (as make lint does), against each kernel nvfab supports:
#
#   - Debian's stock 6.12 headers (/usr/src/linux-headers-<stock>);
#   - the newest Linux Debian ships, prepared by matrix-kernel.sh (7.x in
#     trixie-backports today).
#
# Then it checks that dkms.conf's BUILD_EXCLUSIVE_KERNEL accepts exactly
# that range: every kernel built here, and neither 6.11 nor the minor
# after the newest. A failure there after Debian moved on means: raise
# newest_tested in scripts/gen-dkms-conf.sh once this builds.
#
# KTAP on stdout, one result per kernel plus the dkms.conf check; build
# logs in DIR (default build/matrix/). Exits 0 only if all pass.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO_ROOT/selftests/nvfab/lib.sh"
cd "$REPO_ROOT" || exit 1

out=$BUILD_DIR/matrix
if [ "${1:-}" = --out ]; then
	out=${2:?--out needs a directory}
fi
mkdir -p "$out"

# The modules dkms.conf names, which each build must produce.
mapfile -t modules < <(set +u && . ./dkms.conf &&
	for i in "${!BUILT_MODULE_NAME[@]}"; do
		echo "${BUILT_MODULE_LOCATION[$i]}${BUILT_MODULE_NAME[$i]}.ko"
	done)
jobs=$(($(nproc) + 1))

# build RELEASE KDIR DESC: one KTAP result.
build() {
	local release=$1 kdir=$2 desc=$3 dir=$out/$1 st=0 t ko
	t=$(date +%s)
	mkdir -p "$dir/src"
	# Incremental: kbuild rebuilds only what changed since the last run.
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='modules.order' \
		--exclude='Module.symvers' --exclude='conftest.h' \
		Kbuild Makefile VERSION dkms.conf drivers include scripts "$dir/src/"
	make -C "$dir/src" KDIR="$kdir" W=1 -j"$jobs" modules >"$dir/build.log" 2>&1 || st=1
	if grep -E 'warning:|error:|WARNING:|ERROR:' "$dir/build.log" >"$dir/findings"; then
		sed 's/^/# /' "$dir/findings" | head -40
		st=1
	fi
	for ko in "${modules[@]}"; do
		[ -f "$dir/src/$ko" ] || { ktap_diag "no $ko"; st=1; }
	done
	[ "$st" = 0 ] || tail -20 "$dir/build.log" | sed 's/^/# log: /'
	ktap_diag "$release probes: $(sed -n 's/^#define HAVE_\([A-Z0-9_]*\) 1$/\1/p' \
		"$dir/src/include/nvfab/conftest.h" 2>/dev/null | tr '\n' ' ')"
	desc="$release ($desc): W=1 build, no warning, $(($(date +%s) - t)) s"
	if [ "$st" = 0 ]; then
		ktap_pass "$desc"
	else
		ktap_fail "$desc (log: $dir/build.log)"
	fi
}

ktap_header
ktap_set_plan 3

releases=()
kver=$(stock_kver)
kdir=/usr/src/linux-headers-$kver
if [ -n "$kver" ] && [ -f "$kdir/Makefile" ]; then
	build "$kver" "$kdir" "stock headers"
	releases+=("$kver")
else
	ktap_fail "stock 6.12 headers: none in ${kdir:-/usr/src} (run tools/testing/vm/setup.sh)"
fi

t=$(date +%s)
if mkdir_out=$("$VM_DIR/matrix-kernel.sh" 2>"$out/matrix-kernel.log"); then
	mdir=$(dirname "$mkdir_out")
	info() { sed -n "s/^$1=//p" "$mdir/info"; }
	release=$(info release)
	ktap_diag "matrix kernel $release: $(info package) $(info version), ready in $(($(date +%s) - t)) s (cold prepare took $(info prepare_seconds) s)"
	build "$release" "$mkdir_out" "$(info package) $(info version)"
	releases+=("$release")
else
	sed 's/^/# /' "$out/matrix-kernel.log" | tail -20
	ktap_fail "newest Debian kernel: matrix-kernel.sh failed (log: $out/matrix-kernel.log)"
fi

# dkms.conf: the regular expression dkms matches `uname -r` against (bash
# =~, as dkms does). It must accept every release built here and refuse
# the kernels on either side of the tested range.
re=$(set +u && . ./dkms.conf && echo "$BUILD_EXCLUSIVE_KERNEL")
newest=$(sed -n 's/^newest_tested=//p' scripts/gen-dkms-conf.sh)
st=0
for r in "${releases[@]}" 6.12.0; do
	[[ $r =~ $re ]] || { ktap_diag "refuses $r"; st=1; }
done
for r in 6.11.0 6.11.11-amd64 "${newest%.*}.$((${newest#*.} + 1)).0" 5.15.0 8.0.0; do
	[[ $r =~ $re ]] && { ktap_diag "accepts $r"; st=1; }
done
if [ "$st" != 0 ]; then
	ktap_fail "dkms.conf BUILD_EXCLUSIVE_KERNEL '$re' is not exactly 6.12 to $newest plus what was built here"
else
	ktap_pass "dkms.conf BUILD_EXCLUSIVE_KERNEL accepts ${releases[*]} and refuses 6.11 and the minor after $newest"
fi

ktap_finish
