#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the udev rules in udev/: no kernel module needed.
# `udevadm test` runs the rules against a fake sysfs tree in a private
# mount namespace whose /sys, /dev and /run are empty tmpfs, so that
# nothing on the host is changed (udevadm test creates the links it
# computes). Checked: the by-id link of a head and of its partitions, no
# link for what is not an nvfab head, no parse error in either file, and
# the RUN command of the ANA-change example. Links that need a disk to
# probe (by-uuid, by-partuuid) are checked in the guest by
# selftests/nvfab/udev.sh. KTAP output; exits 0 only if every test passes,
# 4 when it cannot run here (not root, no udevadm, no unshare -m).
#
# udevadm refuses a sysfs that is not sysfs unless
# SYSTEMD_DEVICE_VERIFY_SYSFS=0 (systemd's switch for its own tests); a
# udevadm without it makes every test a skip.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
UDEV_DIR=$(dirname "$HERE")
REPO=$(cd "$UDEV_DIR/.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"

if [ -z "${NVFAB_UDEV_NS:-}" ]; then
	require_root
	command -v udevadm >/dev/null || ksft_skip_all "udevadm missing"
	command -v unshare >/dev/null || ksft_skip_all "unshare missing"
	unshare -m true 2>/dev/null || ksft_skip_all "unshare -m not permitted"
	NVFAB_UDEV_NS=1 SYSTEMD_DEVICE_VERIFY_SYSFS=0 exec unshare -m \
		--propagation private "$0" "$@"
	exit "$KSFT_FAIL"
fi

# From here on inside the private mount namespace.
RULES=/run/udev/rules.d
for d in /sys /dev /run; do
	mount -t tmpfs nvfab-udev-test "$d" || {
		ktap_header
		echo "1..0 # SKIP cannot mount a tmpfs on $d"
		exit "$KSFT_SKIP"
	}
done
mkdir -p "$RULES" /sys/class/block /sys/class/nvfab /sys/class/nvfab-subsystem \
	/sys/class/nvme-subsystem
cp "$UDEV_DIR/65-nvfab.rules" "$UDEV_DIR/examples/66-nvfab-ana-change.rules" "$RULES/"

V=/sys/devices/virtual
UUID=7e3a6b0c-1f2d-4c5e-8a9b-0c1d2e3f4a5b
NVME_WWID=nvme.0000-616263-6e766661622d6e766d6574-00000003
MINOR=0

# fake_class_dev CLASS NAME [UEVENT]: a class device with no parent.
fake_class_dev() {
	mkdir -p "$V/$1/$2"
	ln -s "../../../../class/$1" "$V/$1/$2/subsystem"
	ln -s "../../devices/virtual/$1/$2" "/sys/class/$1/$2"
	printf '%b' "${3:-}" >"$V/$1/$2/uevent"
}

# fake_block PARENTDIR NAME TYPE [WWID [PARTN]]: a block device below
# PARENTDIR; WWID "-" for none. Sets BLK to its sysfs directory.
BLK=
fake_block() {
	local dir=$1/$2 rel ev
	mkdir -p "$dir"
	rel=$(realpath --relative-to="$dir" /sys/class/block)
	ln -s "$rel" "$dir/subsystem"
	ln -s "$(realpath --relative-to=/sys/class/block "$dir")" "/sys/class/block/$2"
	MINOR=$((MINOR + 1))
	ev="MAJOR=259\nMINOR=$MINOR\nDEVNAME=$2\nDEVTYPE=$3\n"
	[ -n "${5:-}" ] && ev="${ev}PARTN=$5\n" && echo "$5" >"$dir/partition"
	printf '%b' "$ev" >"$dir/uevent"
	echo "259:$MINOR" >"$dir/dev"
	[ "${4:--}" != - ] && echo "$4" >"$dir/wwid"
	BLK=$dir
}

OUT=	# output of the last udevadm test
PARSE_ERRS=0

# udev_test [udevadm test options] SYSPATH: run the rules; sets OUT and
# counts parse errors of our files (their diagnostics carry no device name).
udev_test() {
	OUT=$(timeout 300 udevadm test "$@" 2>&1)
	if grep -qE "^$RULES/6[56]-nvfab" <<<"$OUT"; then
		PARSE_ERRS=$((PARSE_ERRS + 1))
		grep -E "^$RULES/6[56]-nvfab" <<<"$OUT" | sed 's/^/# /'
	fi
}

# links SYSPATH: the DEVLINKS the rules give an "add" of SYSPATH, one a line.
links() {
	udev_test --action=add "$1"
	sed -n 's/^DEVLINKS=//p' <<<"$OUT" | tr ' ' '\n' | grep . | sort
}

# expect_links DESC SYSPATH WANT: the nvfab by-id links of SYSPATH are
# exactly WANT (newline-separated, sorted; empty for none).
expect_links() {
	local got
	got=$(links "$2" | grep '^/dev/disk/by-id/nvfab-' || true)
	if [ "$got" = "$3" ]; then
		ktap_pass "$1"
	else
		ktap_diag "want: ${3:-(none)}"
		ktap_diag "got:  ${got:-(none)}"
		grep -E 'nvfab|sd-device|Failed' <<<"$OUT" | sed 's/^/# udevadm: /' | head -20
		ktap_fail "$1"
	fi
}

fake_class_dev nvfab-subsystem nvfab-subsys0
S0=$V/nvfab-subsystem/nvfab-subsys0
fake_block "$S0" nvfab0n1 disk "uuid.$UUID"
H1=$BLK
fake_block "$H1" nvfab0n1p1 partition - 1
P1=$BLK
fake_block "$H1" nvfab0n1p12 partition - 12
P12=$BLK
fake_class_dev nvfab-subsystem nvfab-subsys10
fake_block "$V/nvfab-subsystem/nvfab-subsys10" nvfab10n3 disk "$NVME_WWID"
H2=$BLK
fake_block "$H2" nvfab10n3p2 partition - 2
P2=$BLK
fake_block "$S0" nvfab0n2 disk -
H3=$BLK
# A disk of the controller, not of a subsystem (a path nvfabXcNnY is
# hidden; if one ever sent a uevent it must get no head's name).
fake_class_dev nvfab nvfab0 'NVFAB_EVENT=ana_change\nNVFAB_ANA_STATE=inaccessible\nNVFAB_ANA_GRPID=2\nNVFAB_NSID=1\nNVFAB_PATH=nvfab0c0n1\nNVFAB_HEAD=nvfab0n1\n'
C0=$V/nvfab/nvfab0
fake_block "$C0" nvfab0c0n1 disk "uuid.$UUID"
PATHD=$BLK
fake_class_dev nvfab nvfab1 'NVFAB_EVENT=other\n'
fake_class_dev nvme-subsystem nvme-subsys0
fake_block "$V/nvme-subsystem/nvme-subsys0" nvme0n1 disk "uuid.$UUID"
NV=$BLK

ktap_header
ktap_set_plan 12

# One sanity run: udevadm accepts the fake tree at all.
udev_test --action=add "$H1"
if grep -q "outside of sysfs" <<<"$OUT"; then
	ktap_diag "this udevadm does not honour SYSTEMD_DEVICE_VERIFY_SYSFS=0"
	for ((i = 0; i < 12; i++)); do
		ktap_skip "udev rules on a fake sysfs" "udevadm too old"
	done
	ktap_finish
fi

D=/dev/disk/by-id
expect_links "head with a UUID: by-id/nvfab-uuid.<UUID>" "$H1" "$D/nvfab-uuid.$UUID"
expect_links "its partition 1: ...-part1" "$P1" "$D/nvfab-uuid.$UUID-part1"
expect_links "its partition 12: ...-part12" "$P12" "$D/nvfab-uuid.$UUID-part12"
expect_links "head nvfab10n3 with an nvme. WWID" "$H2" "$D/nvfab-$NVME_WWID"
expect_links "its partition 2" "$P2" "$D/nvfab-$NVME_WWID-part2"
expect_links "head without a wwid file: no by-id link" "$H3" ""
expect_links "a controller's disk: no by-id link" "$PATHD" ""
expect_links "an in-kernel nvme0n1: no nvfab link" "$NV" ""

# The ANA-change example: RUN is listed (udevadm test never runs it).
udev_test --action=change "$C0"
want="/usr/bin/logger -t nvfab nvfab0c0n1 of nvfab0n1 (nsid 1, ANA group 2) is now inaccessible"
ktap_check "66-nvfab-ana-change.rules: logger RUN for an ana_change event" \
	grep -qF "run: '$want'" <<<"$OUT"
if ! grep -qF "run: '$want'" <<<"$OUT"; then
	grep -E 'RUN|run:' <<<"$OUT" | sed 's/^/# udevadm: /'
fi
udev_test --action=change "$V/nvfab/nvfab1"
no_logger() { ! grep -q "logger -t nvfab" <<<"$OUT"; }
ktap_check "... and none for another event" no_logger

ktap_check "no parse error in 65-nvfab.rules or 66-nvfab-ana-change.rules" \
	test "$PARSE_ERRS" = 0
# udevadm test does not show a link's priority: the rule itself, in the
# heads' part (udev's own rules give the in-kernel host's links 0).
head_prio() {
	sed -n '/^LABEL="nvfab_head"/,/^LABEL="nvfab_end"/p' "$RULES/65-nvfab.rules" |
		grep -qx 'OPTIONS+="link_priority=100"'
}
ktap_check "heads' links win over the in-kernel host's for the same namespace: link_priority=100" \
	head_prio
ktap_finish
