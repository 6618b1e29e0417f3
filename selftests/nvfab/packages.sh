#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user-space package (nvfab-tools, from make deb) as a Debian admin
# meets it: installed, upgraded and removed with dpkg, and working with
# the DKMS modules of this kernel. The guest's root is the host's,
# read-only, so dpkg runs in a chroot on an overlay of it (upper layer on
# tmpfs; /proc, /sys and /dev of the guest inside): the host's dpkg
# database, init-system-helpers and systemctl, as on a real Debian host.
# No systemd runs there: the maintainer scripts take their offline
# branches, as in an image build.
#
# The previous release is this package repacked with version
# <VERSION>~prev and one more file. Checked: the first install enables
# nvfab-boot.service and puts every file where udev, systemd,
# systemd-modules-load, man and bash-completion read it; the installed
# nvfabctl runs; the modules of its modules-load.d file exist for this
# kernel; the unit's ExecStart finds /usr/sbin/nvfabctl and, run in the
# chroot, connects nvmet's controller from /etc/nvfab/nvfab.conf; the
# upgrade to <VERSION> keeps the unit enabled, removes the file the old
# one had alone and leaves every file as packaged (dpkg --verify); an
# admin's disable survives a reinstall; remove takes every file under
# /usr and keeps the admin's /etc/nvfab/nvfab.conf; purge forgets the
# unit (no enable link, no mask, no deb-systemd-helper state).
#
# The packages: $NVFAB_DEB_DIR (check-all.sh builds them there), else
# build/deb of the checkout (make deb).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

VERSION=$(cat "$REPO/VERSION")
PKG=nvfab-tools
UNIT=nvfab-boot.service
WANTS=etc/systemd/system/multi-user.target.wants/$UNIT
DEBDIR=${NVFAB_DEB_DIR:-$REPO/build/deb}
W=
R=
TIMES=

cleanup() {
	nvfab_delete_all >/dev/null 2>&1
	if [ -n "$R" ]; then
		umount -R "$R" 2>/dev/null || umount -lR "$R" 2>/dev/null
	fi
	# rmdir, never rm -rf: were a mount left below $W (the guest's /dev
	# and /sys are bound there), rm would delete through it.
	[ -z "$W" ] || { umount "$W" 2>/dev/null; rmdir "$W" 2>/dev/null; }
	nvfab_tcp_cleanup
}
trap cleanup EXIT

require_root
arch=$(dpkg --print-architecture 2>/dev/null) ||
	ksft_skip_all "dpkg is not installed"
DEB=$DEBDIR/${PKG}_${VERSION}_$arch.deb
[ -f "$DEB" ] || ksft_skip_all "no $DEB (make deb)"
ktap_header
ktap_set_plan 14

# The files a distribution's paths need, relative to the root.
FILES=(
	usr/sbin/nvfabctl
	usr/share/man/man8/nvfabctl.8.gz
	usr/share/man/man5/nvfab.conf.5.gz
	usr/share/bash-completion/completions/nvfabctl
	usr/lib/udev/rules.d/65-nvfab.rules
	"usr/lib/systemd/system/$UNIT"
	usr/lib/modules-load.d/nvfab.conf
	usr/share/nvfab/examples/66-nvfab-ana-change.rules
	"usr/share/doc/$PKG/copyright"
	"usr/share/doc/$PKG/README.md"
	"usr/share/doc/$PKG/admin-guide/nvfab-real-host.rst"
)
OLDFILE=usr/share/nvfab/examples/prev-only.rules

# The overlay: upper and work on a tmpfs of their own.
W=$(mktemp -d)
R=$W/root
overlay() {
	mount -t tmpfs -o mode=755 tmpfs "$W" &&
		mkdir -p "$W/upper/var/lib" "$W/work" "$R" || return 1
	# dpkg reads every package's file list at each run: from the tmpfs,
	# not over 9p (40 s a run under TCG, 2026-11-30). The md5sums are read
	# for this package only.
	tar -C / --exclude='*.md5sums' -cf - var/lib/dpkg | tar -C "$W/upper" -xf - ||
		return 1
	{ modprobe -q overlay || true; } &&
		mount -t overlay overlay \
			-o "lowerdir=/,upperdir=$W/upper,workdir=$W/work" "$R" &&
		mount -t proc proc "$R/proc" &&
		mount --rbind /sys "$R/sys" &&
		mount --rbind /dev "$R/dev" &&
		mount -t tmpfs -o mode=755 tmpfs "$R/run" &&
		mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" &&
		mkdir -p "$R/etc/nvme" "$R/etc/nvfab" || return 1
	# No man-db cache update in the chroot (its trigger reads every man
	# page: minutes under TCG); it is not what is tested.
	rm -f "$R/var/lib/man-db/auto-update"
	# A package left on the host by hand would make this no first install.
	[ -z "$(pkgstatus)" ] || [ "$(pkgstatus)" = not-installed ]
}
in_root() { chroot "$R" "$@"; }
pkgstatus() { in_root dpkg-query -W -f '${db:Status-Status}' "$PKG" 2>/dev/null; }
pkgversion() { in_root dpkg-query -W -f '${Version}' "$PKG" 2>/dev/null; }
# dpkg LOG ARGS...: dpkg in the chroot; sets RC, the output in $W/LOG.
dpkg_in() {
	local log=$1 t=$SECONDS
	shift
	in_root dpkg "$@" >"$W/$log" 2>&1
	RC=$?
	TIMES="$TIMES $log $((SECONDS - t))"
	[ "$RC" = 0 ] || sed 's/^/# /' "$W/$log"
}
ktap_check "an overlay of the root to install into (chroot, dpkg database of the host, $PKG not installed)" overlay

# The previous release: this package with an older version and one more
# file, as a release that shipped a file the next one dropped.
prev() {
	local x=$W/prev
	dpkg-deb -R "$DEB" "$x" || return 1
	sed -i "s/^Version: .*/Version: $VERSION~prev/" "$x/DEBIAN/control"
	echo '# shipped by the previous release only' >"$x/$OLDFILE"
	(cd "$x" && md5sum "$OLDFILE") >>"$x/DEBIAN/md5sums"
	cp "$DEB" "$R/tmp/new.deb" &&
		dpkg-deb --root-owner-group -Znone -b "$x" "$R/tmp/prev.deb" >/dev/null
}
ktap_check "the previous release, ${PKG} $VERSION~prev, repacked from $(basename "$DEB")" prev

# --- install ------------------------------------------------------------------
dpkg_in install -i /tmp/prev.deb
# installed VERSION: the last dpkg run succeeded and left VERSION installed.
installed() { [ "$RC" = 0 ] && [ "$(pkgstatus)" = installed ] && [ "$(pkgversion)" = "$1" ]; }
ktap_check "dpkg -i of $VERSION~prev installs it" installed "$VERSION~prev"
missing() {
	local f m=
	for f in "${FILES[@]}" "$OLDFILE"; do
		[ -s "$R/$f" ] || m="$m $f"
	done
	[ -z "$m" ] || ktap_diag "missing:$m"
	[ -z "$m" ]
}
ktap_check "every file where a distribution puts it (/usr/sbin, /usr/lib/{udev,systemd,modules-load.d}, /usr/share/{man,doc})" missing
enabled() { [ "$(readlink "$R/$WANTS")" = "/usr/lib/systemd/system/$UNIT" ] || [ "$(readlink "$R/$WANTS")" = "/lib/systemd/system/$UNIT" ]; }
ktap_check "the first install enables $UNIT" enabled
ver=$(in_root nvfabctl version 2>&1)
ktap_check "the installed nvfabctl runs from PATH ($ver)" [ "$ver" = "nvfabctl version $VERSION" ]

# The modules that systemd-modules-load would load at boot exist for this
# kernel (the DKMS install).
mods_found() {
	local m bad=
	while read -r m; do
		modprobe -n -q "$m" || bad="$bad $m"
	done < <(grep -v '^[#;]' "$R/usr/lib/modules-load.d/nvfab.conf" | tr -d ' \t' | grep .)
	[ -z "$bad" ] || ktap_diag "not found for $(uname -r):$bad"
	[ -z "$bad" ]
}
ktap_check "the modules of /usr/lib/modules-load.d/nvfab.conf are installed for $(uname -r)" mods_found

# The unit's command, as systemd runs it: not an absolute path, so it is
# looked up in systemd's executable search path.
read -r -a EXEC <<<"$(sed -n 's/^ExecStart=//p' "$R/usr/lib/systemd/system/$UNIT")"
exe=
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin; do
	if [ -x "$R$d/${EXEC[0]}" ]; then
		exe=$d/${EXEC[0]}
		break
	fi
done
topo_up 1 && nvmet_setup 1
echo "nqn.2014-08.org.nvmexpress:uuid:6e766661-6221-4b00-8000-7061636b6167" >"$R/etc/nvme/hostnqn"
echo "6e766661-6221-4b00-8000-7061636b6167" >"$R/etc/nvme/hostid"
cat >"$R/etc/nvfab/nvfab.conf" <<EOF
# packages.sh
connect -t tcp -a $(topo_tgt_addr 1) -s $NVMET_TRSVCID -w $(topo_host_addr 1) -n $NVMET_NQN
EOF
for m in $(grep -v '^[#;]' "$R/usr/lib/modules-load.d/nvfab.conf"); do
	modprobe -q "$m"
done
boot() {
	local rc
	[ "$exe" = /usr/sbin/nvfabctl ] || { ktap_diag "ExecStart ${EXEC[0]} resolves to '$exe'"; return 1; }
	timeout 120 chroot "$R" "$exe" "${EXEC[@]:1}" >"$W/boot" 2>&1
	rc=$?
	sed 's/^/# /' "$W/boot"
	[ "$rc" = 0 ] && [ "$(nvfab_ctrl_count)" = 1 ]
}
ktap_check "the unit's '${EXEC[*]}' is /usr/sbin/nvfabctl and connects the controller of /etc/nvfab/nvfab.conf" boot
nvfab_delete_all >/dev/null 2>&1

# --- upgrade ------------------------------------------------------------------
dpkg_in upgrade -i /tmp/new.deb
ktap_check "dpkg -i of $VERSION upgrades $VERSION~prev" installed "$VERSION"
as_packaged() {
	local v
	v=$(in_root dpkg --verify "$PKG" 2>&1)
	[ -z "$v" ] || ktap_diag "dpkg --verify: $v"
	[ ! -e "$R/$OLDFILE" ] && [ -z "$v" ] && missing_new
}
missing_new() {
	local f
	for f in "${FILES[@]}"; do
		[ -s "$R/$f" ] || return 1
	done
}
ktap_check "after the upgrade: the file only $VERSION~prev had is gone, every file as packaged (dpkg --verify)" as_packaged
ktap_check "the upgrade keeps $UNIT enabled" enabled
in_root systemctl disable "$UNIT" >/dev/null 2>&1
dpkg_in reinstall -i /tmp/new.deb
disabled_kept() { [ "$RC" = 0 ] && ! enabled && [ ! -L "$R/$WANTS" ]; }
ktap_check "an admin's 'systemctl disable $UNIT' survives a reinstall" disabled_kept

# --- remove, purge ------------------------------------------------------------
dpkg_in remove -r "$PKG"
removed() {
	local f left=
	for f in "${FILES[@]}"; do
		[ -e "$R/$f" ] && left="$left $f"
	done
	[ -z "$left" ] || ktap_diag "left:$left"
	[ "$RC" = 0 ] && [ -z "$left" ] && [ -s "$R/etc/nvfab/nvfab.conf" ] &&
		[ "$(pkgstatus)" = config-files ]
}
ktap_check "dpkg -r removes every file under /usr and keeps /etc/nvfab/nvfab.conf" removed
dpkg_in purge -P "$PKG"
purged() {
	local state
	state=$(find "$R/var/lib/systemd/deb-systemd-helper-enabled" \
		"$R/var/lib/systemd/deb-systemd-helper-masked" -name "*$UNIT*" 2>/dev/null)
	[ -z "$state" ] || ktap_diag "state left: $state"
	[ "$RC" = 0 ] && { [ -z "$(pkgstatus)" ] || [ "$(pkgstatus)" = not-installed ]; } &&
		[ ! -e "$R/etc/systemd/system/$UNIT" ] && [ ! -L "$R/etc/systemd/system/$UNIT" ] &&
		[ ! -L "$R/$WANTS" ] && [ -z "$state" ]
}
ktap_check "dpkg -P forgets $UNIT: no enable link, no mask, no deb-systemd-helper state" purged
ktap_diag "dpkg run times (s):$TIMES"
ktap_finish
