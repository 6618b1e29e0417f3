#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of an nvfab test guest (started by run-vm.sh).
#
# The root filesystem is the host's root, read-only over 9p. Mount the
# kernel filesystems and tmpfs wherever tools need to write, mount the
# writable output share (tag "out") at /tmp/out, run the command that
# run-vm.sh left in /tmp/out/.vm/cmd with the environment in .vm/env, record
# its exit status in /tmp/out/rc, and reboot (QEMU runs with -no-reboot, so
# that ends the VM).
#
# Kernel command line parameters read here:
#   nvfab.kernel=test|stock   which kernel this is (exported as NVFAB_KERNEL)
#   nvfab.modroot=DIR         bind-mounted over /lib/modules (test kernel,
#                             NVFAB_STOCK_IMAGE)
#   nvfab.timeout=S           the command is killed after S seconds
#   nvfab.debug=1             trace this script, with guest uptime
#   nvfab.repo=DIR            the repository (kept visible if fstab hides
#                             it, e.g. a clone under /root or /tmp)
#   nvfab.boot_retry=1        run the command even if the kernel log has a
#                             splat already (second boot, see run-vm.sh)
#   nvfab.fake_boot_splat=1   act as if it had one (tests run-vm.sh)
# The guest side of this file avoids forks where a builtin will do: a fork
# costs about 0.3 s on the test kernel (KASAN, lockdep) under TCG.
set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
export OUT=/tmp/out
BB=/usr/bin/busybox

log() { echo "nvfab-vm: $*"; }

# Whatever happens, never return from PID 1 (that panics the kernel and
# hides the reason): flush and reboot.
finish() {
	local rc=$?

	trap - EXIT
	set +e
	if [ "$rc" != 0 ] && ! [ -e "$OUT/rc" ]; then
		log "init failed with status $rc before the command ran"
	fi
	sync
	is_mounted "$OUT" && $BB umount "$OUT"
	$BB reboot -f
	# reboot -f does not return; in case it does, do not exit PID 1.
	echo b >/proc/sysrq-trigger
	sleep 60
}
trap finish EXIT
trap 'log "line $LINENO failed: $BASH_COMMAND"' ERR

# is_mounted DIR - bash builtins only: every exec costs ~0.1 s over 9p
# under TCG, and init runs dozens of these.
is_mounted() {
	local _ dst rest

	while read -r _ dst rest; do
		[ "$dst" = "$1" ] && return 0
	done </proc/self/mounts
	return 1
}

# grep_fs TYPE - whether the kernel knows filesystem TYPE (builtins only).
grep_fs() {
	local a b

	while read -r a b; do
		[ "${b:-$a}" = "$1" ] && return 0
	done </proc/filesystems
	return 1
}

# mnt TYPE DIR [OPTIONS] - mount unless DIR is a mountpoint already. The
# static busybox mount starts much faster than util-linux's.
mnt() {
	local type=$1 dir=$2 opts=${3:-}

	is_mounted "$dir" && return 0
	$BB mount -t "$type" ${opts:+-o "$opts"} "$type" "$dir"
}

# Nothing has mounted proc yet (the stock initramfs unmounts its own). Do
# not test for /proc/self: the 9p root shows the *host's* /proc there.
$BB mount -t proc proc /proc
read -r cmdline </proc/cmdline
case " $cmdline " in
*" nvfab.debug=1 "*)
	# Trace with the guest uptime, using builtins only (no fork per line).
	# shellcheck disable=SC2154
	trap 'read -r _up _ </proc/uptime; echo "+ $_up $BASH_COMMAND"' DEBUG
	;;
esac
kernel=unknown
modroot=
repo=
timeout_s=0
boot_retry=0
fake_splat=0
for arg in $cmdline; do
	case "$arg" in
	nvfab.kernel=*) kernel=${arg#*=} ;;
	nvfab.modroot=*) modroot=${arg#*=} ;;
	nvfab.repo=*) repo=${arg#*=} ;;
	nvfab.timeout=*) timeout_s=${arg#*=} ;;
	nvfab.boot_retry=1) boot_retry=1 ;;
	nvfab.fake_boot_splat=1) fake_splat=1 ;;
	esac
done

mnt sysfs /sys
mnt devtmpfs /dev
# The test kernel's modules live in its build cache, a Debian kernel that
# is not installed here (NVFAB_STOCK_IMAGE) in an unpacked image: make kmod
# see them, before the first modprobe.
if [ -n "$modroot" ]; then
	$BB mount -o bind "$modroot" /lib/modules
fi
# configfs is modular in the stock kernel.
if ! grep_fs configfs; then
	modprobe -q configfs 2>/dev/null || true
fi
# devtmpfs lacks /dev/fd and friends; bash process substitution needs it.
# shellcheck disable=SC2016
$BB sh -c 'mkdir -p /dev/pts /dev/shm
	for f in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 stderr:/proc/self/fd/2; do
		[ -e /dev/${f%%:*} ] || ln -s ${f#*:} /dev/${f%%:*}
	done'
# fstab puts a tmpfs on /root, /tmp and others: a repository below one of
# them (a root user's clone in /root, say) would vanish. Park it on /srv
# (on the read-only root, not covered) and attach it again at its path.
park=0
case "$repo/" in
/root/* | /tmp/* | /run/* | /var/tmp/* | /var/log/* | /mnt/* | /dev/shm/* | /etc/nvme/*)
	$BB mount -o bind "$repo" /srv && park=1 ;;
esac
# Not fatal: a filesystem the kernel lacks (tracefs) must not stop the run.
$BB mount -a -T "${BASH_SOURCE[0]%/*}/fstab" || log "some fstab mounts failed"
if [ "$park" = 1 ]; then
	$BB mkdir -p "$repo" && $BB mount -o bind /srv "$repo"
fi
$BB mkdir -p /run/netns /run/lock "$OUT"
$BB mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$OUT"

echo nvfab-vm >/proc/sys/kernel/hostname
$BB ip link set lo up

# A host identity for nvme-cli. hostid must equal the UUID inside hostnqn,
# or "nvme connect" refuses with "found same hostid ... but different hostnqn".
read -r uuid </proc/sys/kernel/random/uuid
echo "nqn.2014-08.org.nvmexpress:uuid:$uuid" >/etc/nvme/hostnqn
echo "$uuid" >/etc/nvme/hostid

# A splat in the kernel log before init has loaded anything is not nvfab's:
# on the test kernel, tell run-vm.sh, which boots once more.
if [ "$kernel" = test ] && [ "$boot_retry" = 0 ]; then
	klog=$($BB dmesg 2>/dev/null || true)
	[ "$fake_splat" = 1 ] && klog+=$'\n[    0.000000] BUG: fake boot splat (nvfab.fake_boot_splat=1)'
	splat=
	while IFS= read -r line; do
		case "$line" in
		*"BUG: "* | *"WARNING: "* | *"Oops"* | *"[ cut here ]"*) splat+="$line"$'\n' ;;
		esac
	done <<<"$klog"
	if [ -n "$splat" ]; then
		printf '%s' "$splat" >"$OUT/.vm/boot-splat"
		log "kernel splat before init; powering off for run-vm.sh to boot again"
		exit 0
	fi
fi

read -r up _ </proc/uptime
echo "$up" >"$OUT/.vm/boot-uptime"
read -r release </proc/sys/kernel/osrelease
read -r cmd <"$OUT/.vm/cmd"
log "$release ($kernel kernel) up in ${up}s, running: $cmd"

# shellcheck disable=SC1091
. "$OUT/.vm/env"
export OUT NVFAB_KERNEL="$kernel"
cd "${REPO_ROOT:-/}"

trap - ERR DEBUG
set +e
if [ "$timeout_s" -gt 0 ]; then
	timeout -k 10 "$timeout_s" bash "$OUT/.vm/cmd" </dev/null 2>&1 | tee "$OUT/cmd.log"
else
	bash "$OUT/.vm/cmd" </dev/null 2>&1 | tee "$OUT/cmd.log"
fi
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 124 ] && [ "$timeout_s" -gt 0 ]; then
	log "command timed out after ${timeout_s}s; blocked tasks:"
	: >"$OUT/.vm/timed-out"
	echo w >/proc/sysrq-trigger || true
fi
log "command exited $rc"
dmesg >"$OUT/dmesg.txt" 2>&1 || true
echo "$rc" >"$OUT/rc"
