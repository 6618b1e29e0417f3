#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the nvfab test kernel from Debian's linux-source-6.12 with the
# fragment in test-kernel.config. The result is cached outside the checkout
# in $NVFAB_CACHE/kernel-<srcversion>-<fragmenthash>/ and reused when the key
# matches. Prints the cache directory on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ver=$(source_pkg_version)
[ -n "$ver" ] || die "linux-source-6.12 is not installed (run tools/testing/vm/setup.sh)"
out=$(test_kernel_dir)

mkdir -p "$NVFAB_CACHE"
# One build at a time: a second caller (make test-modules from another
# checkout) waits for the first and then finds the cache, instead of
# deleting the tree under the running build.
exec 9>"$NVFAB_CACHE/.build-kernel.lock"
flock 9

if [ -f "$out/.done" ]; then
	log "test kernel: cached at $out"
	echo "$out"
	exit 0
fi

src="$NVFAB_CACHE/src-$ver"
if [ ! -f "$src/.done" ]; then
	log "unpacking linux-source-6.12 $ver"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.done"
	mv "$src.tmp" "$src"
fi

start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
log "configuring test kernel in $out"
make -s -C "$src" O="$out" defconfig >/dev/null
make -s -C "$src" O="$out" kvm_guest.config >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"$VM_DIR/test-kernel.config" >/dev/null
make -s -C "$src" O="$out" olddefconfig >/dev/null

# Every =y/=m line of the fragment must survive olddefconfig, or a
# dependency is missing and the test kernel would silently lack a feature.
missing=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=y | CONFIG_*=m) ;; *) continue ;; esac
	if ! grep -qx "$line" "$out/.config"; then
		log "fragment line not honoured: $line"
		missing=1
	fi
done <"$VM_DIR/test-kernel.config"
[ "$missing" = 0 ] || die "test-kernel.config has unmet dependencies"

jobs=$(($(nproc) + 1))
log "building test kernel with -j$jobs (cold build takes tens of minutes)"
make -s -C "$src" O="$out" -j"$jobs" bzImage modules
make -s -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" modules_install >/dev/null
end=$(date +%s)
echo "$((end - start))" >"$out/.build-seconds"
touch "$out/.done"
log "test kernel built in $((end - start)) s"
echo "$out"
