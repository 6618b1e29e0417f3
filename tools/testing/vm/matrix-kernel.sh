#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix-kernel.sh: prepare a build tree of the newest Linux that Debian
# ships (linux-source-X.Y from trixie-backports, X >= 7) for the build
# matrix (build-matrix.sh), and print its directory, a KDIR, on stdout.
# Its Debian release name (e.g. 7.3.4+deb13-amd64), package and version
# are in KDIR/../info.
#
# Nothing on the host is installed or upgraded: a private apt
# configuration (sources, lists and cache in $NVFAB_CACHE/matrix-apt/)
# downloads linux-source-X.Y and the matching linux-headers-<release>-amd64
# with `apt-get download`; dpkg-deb unpacks them outside the package
# database. The headers package gives Debian's .config and Module.symvers
# for that release.
#
# The tree: the source in src/, a build directory in out/ (O=) configured
# from Debian's config with what Debian 12's toolchain cannot do turned
# off (see CONFIG_OFF), then `make olddefconfig` and `make
# modules_prepare`. out/Module.symvers is Debian's, so modpost checks that
# every symbol nvfab uses is exported by the real kernel.
#
# Cached in $NVFAB_CACHE/matrix-<package version>-<recipe hash>/ and reused
# while the key matches; older matrix-* trees are removed once a new one is
# ready. Without network, the newest cached tree is used.
#
#   NVFAB_MATRIX_MIRROR  default http://deb.debian.org/debian
#   NVFAB_MATRIX_SUITE   default trixie-backports
#   NVFAB_MATRIX_SOURCE  a package to pin (e.g. linux-source-7.3); default
#                        the newest linux-source-X.Y, X >= 7, in the suite
set -euo pipefail
shopt -s nullglob
. "$(dirname "$0")/lib.sh"

mirror=${NVFAB_MATRIX_MIRROR:-http://deb.debian.org/debian}
suite=${NVFAB_MATRIX_SUITE:-trixie-backports}

# What Debian 12's toolchain cannot build in a 7.x tree:
#  RUST               7.x needs a newer rustc (and bindgen) than bookworm's
# olddefconfig turns off by itself whatever else gcc 12 or binutils 2.40
# lack (the CC_HAS_* and AS_HAS_* tests): code generation only.
# Everything that shapes a structure the modules share with the kernel
# stays as Debian has it. DEBUG_INFO_BTF_MODULES, for one, adds BTF fields
# to struct module: a tree without it (recipe 1) built modules whose
# .gnu.linkonce.this_module did not match Debian's kernel, and the
# newest-kernel guest's modprobe failed with "Exec format error" ("Invalid
# relocation target, existing value is nonzero"). With it on, modpost
# prints "Skipping BTF generation ... unavailability of vmlinux", as a
# DKMS build against Debian's headers does.
CONFIG_OFF=(RUST)
CONFIG_ON=()
# Bump when the way the tree is made changes.
MATRIX_RECIPE=2

recipe_hash() {
	{
		echo "off ${CONFIG_OFF[*]}"
		echo "on ${CONFIG_ON[*]}"
		echo "recipe $MATRIX_RECIPE"
	} | sha256sum | cut -c1-12
}

# The newest cached tree, for when the archive cannot be reached.
newest_cached() {
	local d best=
	for d in "$NVFAB_CACHE"/matrix-[0-9]*/; do
		[ -f "$d.done" ] || continue
		best=$d
	done
	[ -n "$best" ] && echo "${best%/}"
}

matrix_apt_setup "$mirror" "$suite"
apt_dir=$NVFAB_CACHE/matrix-apt

if ! timeout 120 apt-get update -qq >"$apt_dir/update.log" 2>&1; then
	cached=$(newest_cached) ||
		die "cannot reach $mirror $suite (see $apt_dir/update.log) and no tree is cached"
	log "matrix kernel: $mirror $suite unreachable; using the cached $cached"
	echo "$cached/out"
	exit 0
fi

pkg=${NVFAB_MATRIX_SOURCE:-$(apt-cache pkgnames linux-source- |
	grep -E '^linux-source-([7-9]|[1-9][0-9])\.[0-9]+$' | sort -V | tail -n1)}
[ -n "$pkg" ] || die "no linux-source-X.Y (X >= 7) in $mirror $suite"
ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
[ -n "$ver" ] || die "$pkg is not in $mirror $suite"
upstream=${ver%%-*}
hdr=$(apt-cache pkgnames "linux-headers-$upstream+" |
	grep -E "^linux-headers-${upstream//./\\.}\+deb[0-9]+-amd64$" | sort -V | tail -n1)
[ -n "$hdr" ] || die "no linux-headers-$upstream+debN-amd64 next to $pkg $ver"
release=${hdr#linux-headers-}

dir=$NVFAB_CACHE/matrix-$ver-$(recipe_hash)
if [ -f "$dir/.done" ]; then
	log "matrix kernel: $release cached at $dir"
	echo "$dir/out"
	exit 0
fi

start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/src" "$dir/out"
log "matrix kernel: downloading $pkg $ver and $hdr"
(cd "$dir/debs" && timeout 600 apt-get download -qq "$pkg=$ver" "$hdr=$ver") ||
	die "apt-get download of $pkg and $hdr $ver failed"
dpkg-deb -x "$dir/debs/${pkg}_"*.deb "$dir/debs/src"
dpkg-deb -x "$dir/debs/${hdr}_"*.deb "$dir/debs/hdr"
tarball=$(find "$dir/debs/src/usr/src" -maxdepth 1 -name 'linux-source-*.tar.*' | head -n1)
[ -n "$tarball" ] || die "$pkg holds no source tarball"
log "matrix kernel: unpacking $(basename "$tarball")"
tar -xf "$tarball" -C "$dir/src" --strip-components=1
hdir=$dir/debs/hdr/usr/src/$hdr
if [ ! -f "$hdir/.config" ] || [ ! -f "$hdir/Module.symvers" ]; then
	die "$hdr has no .config or Module.symvers"
fi

cp "$hdir/.config" "$dir/out/.config"
args=()
for o in "${CONFIG_OFF[@]}"; do args+=(-d "$o"); done
for o in "${CONFIG_ON[@]}"; do args+=(-e "$o"); done
# The release Debian gives it: 7.3.4 + "+deb13-amd64".
args+=(--set-str LOCALVERSION "${release#"$upstream"}" -d LOCALVERSION_AUTO)
"$dir/src/scripts/config" --file "$dir/out/.config" "${args[@]}"
make -s -C "$dir/src" O="$dir/out" olddefconfig >/dev/null

# What dkms.conf requires (BUILD_EXCLUSIVE_CONFIG) must be there, and what
# was turned off must be off.
required=$(set +u && . "$REPO_ROOT/dkms.conf" && echo "$BUILD_EXCLUSIVE_CONFIG")
for c in $required; do
	grep -qE "^$c=[ym]$" "$dir/out/.config" || die "$release config lacks $c, which dkms.conf requires"
done
for o in "${CONFIG_OFF[@]}"; do
	! grep -qE "^CONFIG_$o=[ym]$" "$dir/out/.config" || die "CONFIG_$o is still on after olddefconfig"
done
# Every option that changes struct module's layout (the #ifs inside it in
# include/linux/module.h) is as in Debian's kernel: otherwise the modules
# built here would not load there.
for c in $(awk '/^struct module \{/,/^\}/' "$dir/src/include/linux/module.h" |
	grep -oE 'CONFIG_[A-Z0-9_]+' | sort -u); do
	[ "$(grep -E "^$c=" "$hdir/.config")" = "$(grep -E "^$c=" "$dir/out/.config")" ] ||
		die "$c differs from Debian's config after olddefconfig: struct module would not match $release"
done

jobs=$(($(nproc) + 1))
log "matrix kernel: make modules_prepare for $release"
make -s -C "$dir/src" O="$dir/out" -j"$jobs" modules_prepare
cp "$hdir/Module.symvers" "$dir/out/Module.symvers"
got=$(cat "$dir/out/include/config/kernel.release")
[ "$got" = "$release" ] || die "the tree calls itself $got, not $release"
rm -rf "$dir/debs"

end=$(date +%s)
cat >"$dir/info" <<EOF
release=$release
package=$pkg
version=$ver
prepare_seconds=$((end - start))
EOF
touch "$dir/.done"
log "matrix kernel: $release prepared in $((end - start)) s at $dir"

# Keep one tree: drop the others (about 2 GB each).
for d in "$NVFAB_CACHE"/matrix-[0-9]*/; do
	d=${d%/}
	[ "$d" = "$dir" ] || rm -rf "$d"
done
echo "$dir/out"
