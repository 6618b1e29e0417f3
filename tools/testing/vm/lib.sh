# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the nvfab VM harness. Sourced, not executed.

NVFAB_CACHE=${NVFAB_CACHE:-/var/cache/nvfab}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO_ROOT/build}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The newest Debian 6.12 flavour-amd64 kernel release, e.g. 6.12.117+deb12-amd64.
# Resolved at run time: Debian moves the version forward.
stock_kver() {
	if [ -n "${STOCK_KVER:-}" ]; then
		echo "$STOCK_KVER"
		return
	fi
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64$' 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-image-//' | sort -V | tail -n1
}

# Version of the installed linux-source-6.12 package.
source_pkg_version() {
	dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null
}

# Bump when build-kernel.sh changes how the kernel is configured or built.
TEST_KERNEL_RECIPE=1

# Cache key of the test kernel: source package version + fragment hash.
test_kernel_key() {
	local h
	h=$({ cat "$VM_DIR/test-kernel.config"; echo "recipe $TEST_KERNEL_RECIPE"; } |
		sha256sum | cut -c1-12)
	echo "$(source_pkg_version)-$h"
}

test_kernel_dir() {
	echo "$NVFAB_CACHE/kernel-$(test_kernel_key)"
}

# Unpack Debian's linux-source-6.12 into the cache (once) and print its path.
# checkpatch.pl and kernel-doc come from here too.
ensure_source() {
	local ver src
	ver=$(source_pkg_version)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed (run tools/testing/vm/setup.sh)"
	src="$NVFAB_CACHE/src-$ver"
	if [ ! -f "$src/.done" ]; then
		log "unpacking linux-source-6.12 $ver"
		mkdir -p "$NVFAB_CACHE"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src.tmp" --strip-components=1
		touch "$src.tmp/.done"
		mv "$src.tmp" "$src"
	fi
	echo "$src"
}

# matrix_apt_setup MIRROR SUITE [NAME]: a private apt configuration in
# $NVFAB_CACHE/NAME/ (default matrix-apt; sources, lists and download
# cache of its own; the host's dpkg status only for reading) and
# APT_CONFIG exported to it, so that `apt-get update`/`download` of a
# newer Debian's packages touch nothing the host's apt uses. Used by
# matrix-kernel.sh and matrix-image.sh (matrix-apt, the kernel suite) and
# tlshd.sh (tlshd-apt, trixie main): one directory per suite, so that
# neither replaces the other's package lists.
matrix_apt_setup() {
	local mirror=$1 suite=$2 apt_dir=$NVFAB_CACHE/${3:-matrix-apt}

	mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,sources.list.d,preferences.d}
	echo "deb $mirror $suite main" >"$apt_dir/sources.list"
	cat >"$apt_dir/apt.conf" <<EOF
Dir::Etc::SourceList "$apt_dir/sources.list";
Dir::Etc::SourceParts "$apt_dir/sources.list.d";
Dir::Etc::Preferences "$apt_dir/preferences";
Dir::Etc::PreferencesParts "$apt_dir/preferences.d";
Dir::State::Lists "$apt_dir/lists";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$apt_dir/cache";
APT::Sandbox::User "root";
Acquire::Languages "none";
EOF
	export APT_CONFIG=$apt_dir/apt.conf
}
