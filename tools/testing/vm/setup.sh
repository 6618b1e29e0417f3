#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the nvfab VM harness needs from Debian's archive. Idempotent:
# when every package is installed already it does not touch apt at all, so
# a warm run costs a few dpkg queries. Needs root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	qemu-system-x86 linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev
	cpio busybox-static kmod xz-utils util-linux
	fio nvme-cli iproute2 rdma-core python3-pyverbs keyutils
	sparse dkms python3 rsync
)

installed() {
	[ "$(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	log "apt-get update"
	apt-get update -qq
	updated=1
}

# The stock kernel release comes from the package lists; a fresh machine
# may have none yet.
kver=$(stock_kver)
if [ -z "$kver" ]; then
	apt_update
	kver=$(stock_kver)
	[ -n "$kver" ] || die "no linux-image-6.12.*+deb*-amd64 in the package lists"
fi

missing=()
for p in "${PKGS[@]}" "linux-image-$kver" "linux-headers-$kver"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	log "setup: all packages present (stock kernel $kver)"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root"
apt_update
# The lists may now name a newer stock kernel; install that one.
kver=$(stock_kver)
missing=()
for p in "${PKGS[@]}" "linux-image-$kver" "linux-headers-$kver"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
log "setup: done (stock kernel $kver)"
