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

# Cache key of the test kernel: source package version + fragment hash.
test_kernel_key() {
	local h
	h=$(cat "$VM_DIR/test-kernel.config" "$VM_DIR/build-kernel.sh" | sha256sum | cut -c1-12)
	echo "$(source_pkg_version)-$h"
}

test_kernel_dir() {
	echo "$NVFAB_CACHE/kernel-$(test_kernel_key)"
}
