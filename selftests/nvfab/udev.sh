#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Persistent names. nvmet exports three namespaces: 1 with a fixed UUID
# (and an NGUID), 2 with an NGUID only, 3 with neither (on a null_blk
# device made in configfs for this test). Each head's wwid must be the
# expected text and the in-kernel host's wwid for the same namespace;
# uuid, nguid and eui must exist only where the namespace has them.
# `udevadm test` with udev/65-nvfab.rules must give each head
# /dev/disk/by-id/nvfab-<wwid>; after an MBR is written on head 3 and the
# table re-read, its partition must get nvfab-<wwid>-part1 and its
# by-partuuid link, and after mkfs.ext4 its by-uuid and by-label links.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

RULES_DIR=/run/udev/rules.d
RULES=$REPO/udev/65-nvfab.rules
EXAMPLE=$REPO/udev/examples/66-nvfab-ana-change.rules
NULLB=/sys/kernel/config/nullb/udevnull3	# its disk: /dev/udevnull3
UUID1=5f1b8d2e-6c3a-4b7f-9e2d-1a0c8b7e6d54
NGUID1=00112233445566778899aabbccddeeff
NGUID2=fedcba98765432100123456789abcdef
SERIAL="nvfab udev 1"		# inner spaces stay in the nvme. form
PTID=4e564642			# MBR disk signature: PARTUUID $PTID-01
FSUUID=0c6a9d1e-52b4-4f0e-8b3c-7d2e1f0a9b86
TMP=$(mktemp -d /run/nvfab-udev.XXXXXX)

cleanup() {
	rm -f "$RULES_DIR/65-nvfab.rules" "$RULES_DIR/66-nvfab-ana-change.rules"
	# udevadm test creates the links it computes
	find /dev/disk -lname '*nvfab*' -delete 2>/dev/null
	rm -rf "$TMP"
	nvfab_tcp_cleanup
	if [ -d "$NULLB" ]; then
		echo 0 >"$NULLB/power" 2>/dev/null
		rmdir "$NULLB" 2>/dev/null
	fi
}
trap cleanup EXIT

require_root
command -v udevadm >/dev/null || ksft_skip_all "udevadm missing"
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 27

# hex STRING: its bytes as lower-case hex digits, nothing between.
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
# nguid_text HEX32: an NGUID as nvfab's nguid file shows it (8-4-4-4-12).
nguid_text() {
	echo "${1:0:8}-${1:8:4}-${1:12:4}-${1:16:4}-${1:20:12}"
}

# nvmet_ns_ids NSID UUID NGUID: set a namespace's identifiers (all-zero
# UUID or NGUID: none), with the namespace disabled meanwhile.
nvmet_ns_ids() {
	local ns=$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/$1
	echo 0 >"$ns/enable" &&
		echo "$2" >"$ns/device_uuid" &&
		echo "$3" >"$ns/device_nguid" &&
		echo 1 >"$ns/enable"
}

# The third namespace, on a 64 MiB null_blk device made for it.
nvmet_ns3() {
	local ns=$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/3
	mkdir "$NULLB" &&
		echo 64 >"$NULLB/size" &&
		echo 4096 >"$NULLB/blocksize" &&
		echo 1 >"$NULLB/memory_backed" &&
		echo 1 >"$NULLB/power" &&
		busywait 10000 test -b /dev/udevnull3 &&
		mkdir "$ns" &&
		echo /dev/udevnull3 >"$ns/device_path" &&
		nvmet_ns_ids 3 00000000-0000-0000-0000-000000000000 \
		00000000000000000000000000000000
}

target_up() {
	local sub=$NVMET_CFS/subsystems/$NVMET_NQN
	topo_up 1 && nvmet_setup 1 || return 1
	echo "$SERIAL" >"$sub/attr_serial" || return 1
	nvmet_ns_ids 1 "$UUID1" "$NGUID1" &&
		nvmet_ns_ids 2 00000000-0000-0000-0000-000000000000 "$NGUID2" &&
		nvmet_ns3
}

declare -a H			# H[n]: sysfs dir of the head of NSID n
declare -a W			# W[n]: the wwid expected for NSID n
heads_ready() {
	local n d
	for n in 1 2 3; do
		d=$(nvfab_head_dev "$CTRL" "$n") && test -b "$d" || return 1
		H[$n]=/sys/block/${d#/dev/}
	done
}

dmesg_canary_start
ktap_check "target up: namespaces with UUID, NGUID only, neither" target_up
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp
ktap_check "connect" nvfab_connect ",nr_io_queues=1"
ktap_check "three heads" busywait 20000 heads_ready

# The model the target reports: nvmet_setup's, or nvmet's default.
read -r MODEL <"$NVMET_CFS/subsystems/$NVMET_NQN/attr_model"
W[1]=uuid.$UUID1
W[2]=eui.$NGUID2
W[3]=nvme.0000-$(hex "$SERIAL")-$(hex "${MODEL%"${MODEL##*[! ]}"}")-00000003
for n in 1 2 3; do
	got=$(cat "${H[$n]}/wwid" 2>&1)
	ktap_check "nsid $n: wwid ${W[$n]}" test "$got" = "${W[$n]}"
	[ "$got" = "${W[$n]}" ] || ktap_diag "got: $got"
done

has() { test -e "${H[$1]}/$2"; }
ids1() {
	has 1 uuid && has 1 nguid && ! has 1 eui &&
		test "$(cat "${H[1]}/uuid")" = "$UUID1" &&
		test "$(cat "${H[1]}/nguid")" = "$(nguid_text "$NGUID1")"
}
ids2() {
	! has 2 uuid && has 2 nguid && ! has 2 eui &&
		test "$(cat "${H[2]}/nguid")" = "$(nguid_text "$NGUID2")"
}
ids3() { ! has 3 uuid && ! has 3 nguid && ! has 3 eui && has 3 nsid; }
ktap_check "nsid 1: uuid and nguid files, no eui" ids1
ktap_check "nsid 2: nguid only" ids2
ktap_check "nsid 3: no uuid, nguid, eui" ids3

# The in-kernel host, connected to the same subsystem, must say the same.
# kernel_wwid NSID: its head's wwid.
kernel_wwid() {
	local s h v
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		read -r v <"$s/subsysnqn" 2>/dev/null && [ "$v" = "$NVMET_NQN" ] || continue
		for h in "$s"/nvme*n*; do
			read -r v <"$h/nsid" 2>/dev/null && [ "$v" = "$1" ] || continue
			cat "$h/wwid"
			return
		done
	done
	return 1
}
kernel_has_3() { kernel_wwid 3 >/dev/null; }
if command -v nvme >/dev/null && modprobe -q nvme-tcp; then
	nvme_kconnect 1 >"$TMP/kconnect" 2>&1 || sed 's/^/# /' "$TMP/kconnect"
	busywait 20000 kernel_has_3
	for n in 1 2 3; do
		k=$(kernel_wwid "$n")
		ktap_check "nsid $n: the in-kernel host's wwid is the same (${k:-none})" \
			test "$k" = "$(cat "${H[$n]}/wwid")"
	done
else
	for n in 1 2 3; do
		ktap_skip "nsid $n: the in-kernel host's wwid is the same" \
			"no nvme-cli or nvme-tcp"
	done
fi
nvme_kdisconnect

# udev: the rules as installed, run by udevadm test (no udevd in the guest).
mkdir -p "$RULES_DIR"
cp "$RULES" "$EXAMPLE" "$RULES_DIR/"
PARSE_ERRS=0
# links SYSDIR: the DEVLINKS of an "add" of SYSDIR, one a line, sorted.
links() {
	udevadm test --action=add "$1" >"$TMP/udev.out" 2>&1
	grep -E "^$RULES_DIR/6[56]-nvfab" "$TMP/udev.out" | sed 's/^/# /'
	grep -qE "^$RULES_DIR/6[56]-nvfab" "$TMP/udev.out" &&
		PARSE_ERRS=$((PARSE_ERRS + 1))
	sed -n 's/^DEVLINKS=//p' "$TMP/udev.out" | tr ' ' '\n' | grep . | sort
}
# has_link SYSDIR LINK: LINK is among the DEVLINKS of SYSDIR.
has_link() {
	if links "$1" | grep -qxF -- "$2"; then
		return 0
	fi
	ktap_diag "$(sed -n 's/^DEVLINKS=//p' "$TMP/udev.out")"
	grep -E 'nvfab|blkid' "$TMP/udev.out" | head -10 | sed 's/^/# udevadm: /'
	return 1
}
for n in 1 2 3; do
	ktap_check "nsid $n: by-id/nvfab-${W[$n]}" \
		has_link "${H[$n]}" "/dev/disk/by-id/nvfab-${W[$n]}"
done
ktap_check "rules parse without errors" test "$PARSE_ERRS" = 0

# An MBR with one partition (1 MiB to 17 MiB) on head 3, re-read.
write_mbr() {
	python3 -B -S -c '
import os, struct, sys
dev, lbs, ptid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
mbr = bytearray(512)
struct.pack_into("<I", mbr, 440, ptid)
# one entry: not bootable, CHS unused, type 0x83, first LBA, LBA count
struct.pack_into("<B3sB3sII", mbr, 446, 0, bytes(3), 0x83, bytes(3),
                 (1 << 20) // lbs, (16 << 20) // lbs)
mbr[510:512] = b"\x55\xaa"
fd = os.open(dev, os.O_WRONLY)
os.pwrite(fd, mbr, 0)
os.fsync(fd)
os.close(fd)
' "$1" "$(cat "/sys/block/${1#/dev/}/queue/logical_block_size")" "$PTID"
}
D3=/dev/${H[3]##*/}
P3=${H[3]}/${H[3]##*/}p1
mbr_reread() { write_mbr "$D3" && blockdev --rereadpt "$D3"; }
ktap_check "MBR written on $D3, table re-read" mbr_reread
ktap_check "partition ${P3##*/} appears" busywait 10000 test -e "$P3"
ktap_check "${P3##*/}: by-id/nvfab-${W[3]}-part1" \
	has_link "$P3" "/dev/disk/by-id/nvfab-${W[3]}-part1"
ktap_check "${P3##*/}: by-partuuid/$PTID-01" \
	has_link "$P3" "/dev/disk/by-partuuid/$PTID-01"
if command -v mkfs.ext4 >/dev/null; then
	ktap_check "mkfs.ext4 on /dev/${P3##*/}" \
		mkfs.ext4 -q -F -U "$FSUUID" -L nvfab-udev "/dev/${P3##*/}"
	ktap_check "${P3##*/}: by-uuid/$FSUUID" \
		has_link "$P3" "/dev/disk/by-uuid/$FSUUID"
	ktap_check "${P3##*/}: by-label/nvfab-udev" \
		has_link "$P3" "/dev/disk/by-label/nvfab-udev"
else
	ktap_skip "mkfs.ext4" "mkfs.ext4 missing"
	ktap_skip "by-uuid link" "mkfs.ext4 missing"
	ktap_skip "by-label link" "mkfs.ext4 missing"
fi

ktap_check "disconnect" nvfab_delete_all
ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
