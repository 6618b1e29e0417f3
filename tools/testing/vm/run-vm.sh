#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a throw-away QEMU guest and run one command in it.
#
#   run-vm.sh --kernel test|stock --out DIR [--timeout S] -- CMD [ARGS...]
#
# The guest's root filesystem is this machine's own root, exported read-only
# over 9p (virtme-style), so the guest runs the host's bash, kmod, iproute2,
# fio and nvme-cli, and sees the repository at the same absolute path. DIR is
# exported writable and mounted in the guest at /tmp/out ($OUT there).
#
# Kernels:
#   test   the debug kernel from build-kernel.sh (9p built in, booted with
#          root=hostroot and no initramfs; its modules are bind-mounted over
#          /lib/modules in the guest).
#   stock  Debian's /boot/vmlinuz-$(stock_kver). 9p is modular there, so a
#          small busybox initramfs (cached in $NVFAB_CACHE) loads it and
#          switch_roots into the 9p root. /lib/modules is the host's own.
#          With NVFAB_STOCK_IMAGE=IDIR (from matrix-image.sh: a Debian
#          kernel that is not installed here), IDIR/vmlinuz is booted and
#          IDIR/lib/modules is bind-mounted over /lib/modules.
#
# Files written to DIR: console.log (the serial console), rc (the command's
# exit status, written by the guest), cmd.log (the command's output only),
# dmesg.txt, vm-result (one line: ok|timeout|panic|killed|no-rc, and
# timings) and
# .vm/ (the command and environment handed to the guest).
#
# The guest's ivshmem-plain device (PCI 1af4:1110, the stand-in for GPU
# memory of the peer-memory tests) has a 64 MiB BAR 2 backed by the named
# file DIR/.vm/gpubar, which QEMU maps shared: reading it shows what the
# guest wrote into the BAR. The guest reads it through the output share as
# $NVFAB_GPUBAR_FILE ($OUT/.vm/gpubar). It is created afresh for every boot
# and removed when the guest has ended.
#
# A test-kernel boot whose kernel log already has a splat when init starts
# (before anything of nvfab is loaded: the kernel's or the emulator's, e.g.
# a KASAN report in early CPU setup under TCG) is not worth a whole run: the
# guest says so (.vm/boot-splat) and powers off, and the guest is booted
# once more with nvfab.boot_retry=1, which runs the command whatever the
# log says. The first boot's console is kept as console.boot1.log.
#
# Exit status: the command's own status; 124 when the guest ran past the
# timeout; 125 when the guest wrote no rc (init failed, crash), the kernel
# panicked or QEMU was killed by a signal; 2 on a usage error.
#
# Environment:
#   NVFAB_VM_TIMEOUT  overall limit in seconds (default 1800); QEMU is killed
#   NVFAB_VM_ACCEL    tcg (default) or kvm; KVM is broken on these machines
#   NVFAB_VM_MEM      guest memory in MiB (default 2048)
#   NVFAB_VM_SMP      guest CPUs (default 2)
#   NVFAB_VM_APPEND   extra kernel command line
#   NVFAB_TEST_KDIR   test kernel build dir (default: build-kernel.sh output)
#   STOCK_KVER        stock kernel release (default: newest 6.12, see lib.sh)
#   NVFAB_STOCK_IMAGE an unpacked Debian kernel (matrix-image.sh) to boot as
#                     the stock kernel; STOCK_KVER must name its release
#   VERBOSE=1         also copy the console to stderr
# Every NVFAB_* variable and VERBOSE are exported into the guest command's
# environment, together with REPO_ROOT, OUT=/tmp/out and NVFAB_KERNEL.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat >&2 <<EOF
usage: $0 --kernel test|stock --out DIR [--timeout S] -- CMD [ARGS...]
EOF
	exit 2
}

kernel=
out=
timeout=${NVFAB_VM_TIMEOUT:-1800}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:-}; shift 2 || usage ;;
	--kernel=*) kernel=${1#*=}; shift ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--out=*) out=${1#*=}; shift ;;
	--timeout) timeout=${2:-}; shift 2 || usage ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) log "unknown argument: $1"; usage ;;
	esac
done
[ $# -gt 0 ] || usage
[ -n "$out" ] || usage
case "$kernel" in test | stock) ;; *) usage ;; esac
case "$timeout" in '' | *[!0-9]*) die "--timeout wants seconds, got '$timeout'" ;; esac

GUEST_INIT=$VM_DIR/guest/init.sh
# Same 9p options for the root in both kernels. The root is a read-only
# snapshot for the guest's purposes, so loose caching is safe and much
# faster under TCG. The output share is left uncached.
ROOT_9P_OPTS=trans=virtio,version=9p2000.L,msize=262144,cache=loose

# Build (or reuse) the busybox initramfs that mounts the 9p root on a kernel
# whose 9p support is modular. Keyed by kernel release and by this script,
# whose text defines the initramfs. Prints the path.
stock_initramfs() {
	local kver=$1 moddir=$2/$1 key img tmp m dep name order=()
	local -A seen=()

	key=$(sha256sum "$VM_DIR/run-vm.sh" | cut -c1-12)
	img=$NVFAB_CACHE/initramfs-$kver-$key.cpio.gz
	if [ -f "$img" ]; then
		echo "$img"
		return
	fi
	[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep missing (is linux-image-$kver installed?)"
	[ -x /usr/bin/busybox ] || die "/usr/bin/busybox missing (run setup.sh)"
	log "building initramfs for $kver"

	# modules.dep lists a module's dependencies with the one to load first
	# last; load each module's dependencies in that order, then the module.
	for m in 9p 9pnet_virtio; do
		local line deps=()
		line=$(grep -m1 -E "/$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep") ||
			die "module $m not found in $moddir/modules.dep"
		read -r -a deps <<<"${line#*:}"
		local i
		for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
			dep=${deps[i]}
			[ -n "${seen[$dep]:-}" ] || { seen[$dep]=1; order+=("$dep"); }
		done
		dep=${line%%:*}
		[ -n "${seen[$dep]:-}" ] || { seen[$dep]=1; order+=("$dep"); }
	done

	mkdir -p "$NVFAB_CACHE"
	tmp=$(mktemp -d "$NVFAB_CACHE/initramfs.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,modules}
	cp /usr/bin/busybox "$tmp/bin/busybox"
	mknod "$tmp/dev/console" c 5 1
	mknod "$tmp/dev/null" c 1 3
	: >"$tmp/modules.list"
	for dep in "${order[@]}"; do
		name=$(basename "$dep")
		name=${name%%.ko*}
		# busybox insmod cannot read compressed modules.
		case "$dep" in
		*.ko.xz) xz -dc "$moddir/$dep" >"$tmp/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$moddir/$dep" >"$tmp/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$moddir/$dep" >"$tmp/modules/$name.ko" ;;
		*) cp "$moddir/$dep" "$tmp/modules/$name.ko" ;;
		esac
		echo "$name" >>"$tmp/modules.list"
	done
	cat >"$tmp/init" <<EOF
#!/bin/busybox sh
# nvfab stock-kernel initramfs: load 9p, mount the host root, switch_root.
bb=/bin/busybox
fail() {
	echo "nvfab-initramfs: \$*"
	\$bb sleep 1
	\$bb reboot -f
}
\$bb mount -t proc proc /proc
for m in \$(\$bb cat /modules.list); do
	\$bb insmod /modules/\$m.ko || fail "insmod \$m failed"
done
\$bb mount -t 9p -o ro,$ROOT_9P_OPTS hostroot /newroot || fail "cannot mount 9p root"
init=
for arg in \$(\$bb cat /proc/cmdline); do
	case "\$arg" in init=*) init=\${arg#init=} ;; esac
done
[ -n "\$init" ] || fail "no init= on the kernel command line"
\$bb umount /proc
exec \$bb switch_root /newroot "\$init"
EOF
	chmod 755 "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1 >"$tmp.cpio.gz")
	rm -rf "$tmp"
	rm -f "$NVFAB_CACHE/initramfs-$kver-"*.cpio.gz
	mv "$tmp.cpio.gz" "$img"
	echo "$img"
}

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/.vm"
rm -f "$out/rc" "$out/console.log" "$out/cmd.log" "$out/dmesg.txt" "$out/vm-result"
mkdir -p "$out/.vm"
# The ivshmem BAR's backing file (see above); gone with the guest.
gpubar=$out/.vm/gpubar
trap 'rm -f "$gpubar"' EXIT

# The command, quoted for bash, and the environment handed to it.
{
	printf '%q ' "$@"
	echo
} >"$out/.vm/cmd"
{
	printf 'export REPO_ROOT=%q\n' "$REPO_ROOT"
	printf 'export NVFAB_KERNEL=%q\n' "$kernel"
	printf 'export NVFAB_HOST_OUT=%q\n' "$out"
	printf 'export NVFAB_GPUBAR_FILE=%q\n' "/tmp/out/.vm/gpubar"
	for v in $(compgen -e); do
		case "$v" in NVFAB_KERNEL | NVFAB_HOST_OUT | NVFAB_GPUBAR_FILE) continue ;; NVFAB_* | VERBOSE) ;; *) continue ;; esac
		printf 'export %s=%q\n' "$v" "${!v}"
	done
} >"$out/.vm/env"

# Leave the guest a minute to collect dmesg/kmemleak after killing a command
# that hangs, before QEMU itself is killed.
guest_timeout=$((timeout > 120 ? timeout - 60 : timeout * 3 / 4))

append="console=ttyS0 printk.time=1 panic=-1 panic_on_warn=0 mitigations=off"
# TCG on a loaded 2-core host stalls vCPUs for seconds; widen the stall and
# lockup detectors so that they report real hangs, not host contention.
append+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
append+=" init=$GUEST_INIT nvfab.kernel=$kernel nvfab.timeout=$guest_timeout"
# No spaces on the kernel command line: a repository path with one is not
# passed (and must then not lie below /root, /tmp, ...; see init.sh).
[[ $REPO_ROOT == *[[:space:]]* ]] || append+=" nvfab.repo=$REPO_ROOT"
initrd=()
case "$kernel" in
test)
	kdir=${NVFAB_TEST_KDIR:-}
	if [ -z "$kdir" ]; then
		kdir=$("$VM_DIR/build-kernel.sh") || die "build-kernel.sh failed"
	fi
	kimage=$kdir/arch/x86/boot/bzImage
	[ -f "$kimage" ] || die "no test kernel image at $kimage"
	[ -d "$kdir/modroot/lib/modules" ] || die "no modules installed under $kdir/modroot"
	append+=" root=hostroot rootfstype=9p rootflags=$ROOT_9P_OPTS ro"
	append+=" kasan.fault=report nvfab.modroot=$kdir/modroot/lib/modules"
	# 4-level paging: QEMU's "-cpu max" offers LA57, and with 5-level
	# paging an interrupt that lands in identify_cpu() while it has
	# cleared the CPU capabilities (LA57 with them) makes KASAN see the
	# per-CPU area as a wild address (BUG: KASAN: wild-memory-access in
	# rcu_is_watching, before init; 3 of 5 boots on 2026-11-22).
	append+=" no5lvl"
	;;
stock)
	kver=$(stock_kver)
	[ -n "$kver" ] || die "cannot resolve the stock kernel release"
	if [ -n "${NVFAB_STOCK_IMAGE:-}" ]; then
		kimage=$NVFAB_STOCK_IMAGE/vmlinuz
		modroot=$NVFAB_STOCK_IMAGE/lib/modules
		[ -f "$kimage" ] && [ -d "$modroot/$kver" ] ||
			die "NVFAB_STOCK_IMAGE=$NVFAB_STOCK_IMAGE has no vmlinuz or lib/modules/$kver (STOCK_KVER)"
		append+=" nvfab.modroot=$modroot"
	else
		kimage=/boot/vmlinuz-$kver
		modroot=/lib/modules
		[ -f "$kimage" ] || die "$kimage missing (run setup.sh)"
	fi
	initrd=(-initrd "$(stock_initramfs "$kver" "$modroot")")
	;;
esac
append+=${NVFAB_VM_APPEND:+ $NVFAB_VM_APPEND}

accel=${NVFAB_VM_ACCEL:-tcg}
# shellcheck disable=SC2054 # commas are QEMU option syntax
case "$accel" in
tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
kvm) accel_args=(-accel kvm -cpu host) ;;
*) die "NVFAB_VM_ACCEL must be tcg or kvm, got '$accel'" ;;
esac

build_qemu() {
# shellcheck disable=SC2054
qemu=(
	qemu-system-x86_64 "${accel_args[@]}"
	-m "${NVFAB_VM_MEM:-2048}" -smp "${NVFAB_VM_SMP:-2}"
	-machine q35 -vga none -nographic -no-reboot -nic none
	-kernel "$kimage" "${initrd[@]}" -append "$append"
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap"
	# Stand-in for GPU BAR memory (peer-memory work): 64 MiB of shared
	# memory behind an ivshmem BAR, in a named file that the host and,
	# through the output share, the guest can read (QEMU creates it; a
	# comma in the path is doubled for QEMU's option syntax).
	-object "memory-backend-file,id=gpubar,size=64M,mem-path=${gpubar//,/,,},share=on"
	-device ivshmem-plain,memdev=gpubar
)
printf '%q ' "${qemu[@]}" >"$out/.vm/qemu-cmdline"
}

boot() {
	build_qemu
	rm -f "$gpubar"
	log "booting $kernel kernel ($(basename "$kimage"), $accel), timeout ${timeout}s, out $out"
	set +e
	if [ "${VERBOSE:-0}" = 1 ]; then
		timeout --kill-after=10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$out/console.log" >&2
		qrc=${PIPESTATUS[0]}
	else
		timeout --kill-after=10 "$timeout" "${qemu[@]}" </dev/null >"$out/console.log" 2>&1
		qrc=$?
	fi
	set -e
}

rm -f "$out/.vm/boot-splat" "$out/console.boot1.log"
start=$(date +%s)
boot
if [ -s "$out/.vm/boot-splat" ]; then
	mv "$out/console.log" "$out/console.boot1.log"
	log "the kernel reported a splat while booting, before init ran anything of nvfab:"
	sed 's/^/    /' "$out/.vm/boot-splat" >&2
	log "booting once more (first boot's console: console.boot1.log)"
	append+=" nvfab.boot_retry=1"
	boot
fi
end=$(date +%s)
secs=$((end - start))
rm -f "$gpubar"
boot=$(cat "$out/.vm/boot-uptime" 2>/dev/null || echo '?')

result=ok
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ] || [ -e "$out/.vm/timed-out" ]; then
	# QEMU killed, or the guest killed the command at its own deadline.
	result=timeout
	rc=124
elif grep -q -m1 'qemu-system-x86_64: terminating on signal' "$out/console.log"; then
	# Someone else killed QEMU (e.g. a pkill of a concurrent harness).
	result=killed
	rc=125
elif grep -q -m1 'Kernel panic - not syncing' "$out/console.log"; then
	result=panic
	rc=125
elif [ ! -s "$out/rc" ]; then
	result=no-rc
	rc=125
else
	rc=$(tr -dc '0-9' <"$out/rc")
	rc=${rc:-125}
fi
echo "$result rc=$rc qemu_rc=$qrc wall_s=$secs boot_s=$boot kernel=$kernel" >"$out/vm-result"
case "$result" in
ok) log "guest command exited $rc after ${secs}s (init reached at ${boot}s guest uptime)" ;;
timeout) log "error: guest ran past ${timeout}s; killed" ;;
panic) log "error: guest kernel panicked; see $out/console.log" ;;
killed) log "error: QEMU was killed from outside: $(grep -m1 'terminating on signal' "$out/console.log")" ;;
no-rc) log "error: guest wrote no exit status (qemu exit $qrc); see $out/console.log" ;;
esac
exit "$rc"
