#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of the DKMS packaging, on this machine's real dkms and
# dpkg (as root): make dkms-uninstall removes a registration made by hand,
# make deb builds nvfab-dkms_<VERSION>_all.deb and nvfab-tools (its fields
# and files; selftests/nvfab/packages.sh installs, upgrades and removes it
# in the stock guest), dpkg -i builds and installs
# the modules for the stock kernel through DKMS, and dpkg -r leaves
# nothing behind (no DKMS registration, no source, no module file).
#
# It ends with no nvfab <VERSION> registered at all, whatever was there
# before: run scripts/dkms-install.sh afterwards to install from the
# checkout again (make check runs it right after this test). KTAP output;
# exits 0 only if every test passes, 4 if it cannot run here.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"
. "$REPO/tools/testing/vm/lib.sh"

VERSION=$(cat "$REPO/VERSION")
SRC=/usr/src/nvfab-$VERSION
PKG=nvfab-dkms
TMP=$(mktemp -d)
cleanup() {
	rm -rf "$TMP"
}
trap cleanup EXIT

require_root
command -v dkms >/dev/null || ksft_skip_all "dkms is not installed"
command -v dpkg-deb >/dev/null || ksft_skip_all "dpkg-deb is not installed"
kver=$(stock_kver)
if [ -z "$kver" ] || [ ! -e "/lib/modules/$kver/build/include" ]; then
	ksft_skip_all "no headers for the stock kernel ${kver:-6.12} (run tools/testing/vm/setup.sh)"
fi

pkg_status() {
	dpkg-query -W -f '${db:Status-Status}' "$PKG" 2>/dev/null
}

registered() {
	dkms status -m nvfab -v "$VERSION" 2>/dev/null | grep -q .
}

# Any nvfab module file DKMS installed, for any kernel.
installed_modules() {
	find /lib/modules/*/updates/dkms -name 'nvfab*.ko*' 2>/dev/null
}

# run LOG CMD...: sets RC; the output goes to $TMP/LOG.
run() {
	local log=$1
	shift
	timeout 900 "$@" >"$TMP/$log" 2>&1
	RC=$?
}

# result DESC STATUS [LOG]: one test; the log's tail on failure.
result() {
	if [ "$2" = 0 ]; then
		ktap_pass "$1"
	else
		[ -z "${3:-}" ] || tail -20 "$TMP/$3" | sed 's/^/# /'
		ktap_fail "$1"
	fi
}

ktap_header
ktap_set_plan 6

# Start from nothing of this version, as the test ends: a package left by
# an interrupted run, a registration by make dkms-install.
if [ "$(pkg_status)" = installed ]; then
	ktap_diag "removing a $PKG left installed"
	dpkg -r "$PKG" >/dev/null 2>&1
fi
if [ -d "/var/lib/dkms/nvfab/$VERSION" ]; then
	ktap_diag "removing the DKMS registration of nvfab $VERSION"
	dkms remove -m nvfab -v "$VERSION" --all >/dev/null 2>&1
fi
rm -rf "$SRC"

# 1. make dkms-uninstall on a registration made by hand (dkms add only:
# what matters is what it removes).
st=0
if "$REPO/scripts/dkms-source.sh" "$SRC" && dkms add -m nvfab -v "$VERSION" >/dev/null; then
	run uninstall make -s -C "$REPO" dkms-uninstall
	[ "$RC" = 0 ] || st=1
	registered && { ktap_diag "still registered"; st=1; }
	[ -e "$SRC" ] && { ktap_diag "$SRC still there"; st=1; }
	run uninstall2 make -s -C "$REPO" dkms-uninstall
	[ "$RC" = 0 ] || { ktap_diag "a second run failed"; st=1; }
else
	ktap_diag "could not set up a registration by hand"
	st=1
fi
result "make dkms-uninstall removes the registration and $SRC, twice in a row" $st uninstall

# 2. make deb
run deb make -s -C "$REPO" deb BUILD="$TMP/build"
deb=$TMP/build/deb/${PKG}_${VERSION}_all.deb
st=$RC
if [ -f "$deb" ]; then
	fields=$(dpkg-deb -f "$deb" Package Version Architecture Depends)
	ktap_diag "$(echo "$fields" | tr '\n' ' ')"
	grep -qx "Package: $PKG" <<<"$fields" || st=1
	grep -qx "Version: $VERSION" <<<"$fields" || st=1
	grep -qx "Architecture: all" <<<"$fields" || st=1
	grep -q "^Depends: .*dkms" <<<"$fields" || st=1
	dpkg-deb -x "$deb" "$TMP/x"
	cmp -s "$TMP/x$SRC/dkms.conf" "$REPO/dkms.conf" || { ktap_diag "dkms.conf differs"; st=1; }
	bad=$(find "$TMP/x" \( -name '*.o' -o -name '*.ko' -o -name conftest.h \) -print)
	[ -z "$bad" ] || { ktap_diag "build products in the package: $bad"; st=1; }
else
	st=1
fi
result "make deb builds ${PKG}_${VERSION}_all.deb with the DKMS source" $st deb

# 2b. The user-space package beside it (installed, upgraded and removed in
# the stock guest by selftests/nvfab/packages.sh): its fields, and every
# file under /usr where no other package of this host has one.
arch=$(dpkg --print-architecture)
tdeb=$TMP/build/deb/nvfab-tools_${VERSION}_$arch.deb
st=0
if [ -f "$tdeb" ]; then
	fields=$(dpkg-deb -f "$tdeb" Package Version Architecture Depends Recommends)
	ktap_diag "$(echo "$fields" | tr '\n' ' ')"
	grep -qx "Package: nvfab-tools" <<<"$fields" || st=1
	grep -qx "Version: $VERSION" <<<"$fields" || st=1
	grep -qx "Architecture: $arch" <<<"$fields" || st=1
	grep -q "^Depends: libc6 (>= 2\.[0-9]*)" <<<"$fields" || st=1
	grep -qx "Recommends: nvfab-dkms (= $VERSION)" <<<"$fields" || st=1
	mapfile -t tfiles < <(dpkg-deb --fsys-tarfile "$tdeb" | tar -t | grep -v '/$' | sed 's|^\./|/|')
	ktap_diag "${#tfiles[@]} files"
	for f in "${tfiles[@]}"; do
		case $f in
		/usr/local/* | /etc/*) ktap_diag "outside a package's paths: $f"; st=1 ;;
		/usr/*) ;;
		*) ktap_diag "not under /usr: $f"; st=1 ;;
		esac
		owner=$(dpkg -S "$f" 2>/dev/null | grep -v '^nvfab-tools:')
		[ -z "$owner" ] || { ktap_diag "also in $owner"; st=1; }
	done
	for f in /usr/sbin/nvfabctl /usr/lib/systemd/system/nvfab-boot.service \
		/usr/lib/udev/rules.d/65-nvfab.rules /usr/lib/modules-load.d/nvfab.conf \
		/usr/share/man/man8/nvfabctl.8.gz /usr/share/doc/nvfab-tools/copyright; do
		printf '%s\n' "${tfiles[@]}" | grep -qx "$f" || { ktap_diag "no $f"; st=1; }
	done
else
	ktap_diag "no $tdeb"
	st=1
fi
result "make deb builds nvfab-tools_${VERSION}_$arch.deb, every file under /usr and in no other package" $st deb

# 3. dpkg -i: DKMS builds and installs for the stock kernel.
st=1
if [ -f "$deb" ]; then
	run install dpkg -i "$deb"
	st=$RC
	[ "$(pkg_status)" = installed ] || st=1
	dkms status -m nvfab -v "$VERSION" | sed 's/^/# dkms status: /'
	dkms status -m nvfab -v "$VERSION" -k "$kver" | grep -q ': installed' ||
		{ ktap_diag "not installed for $kver"; st=1; }
	cmp -s "$SRC/dkms.conf" "$REPO/dkms.conf" || { ktap_diag "$SRC/dkms.conf differs"; st=1; }
	for m in nvfab-core nvfab-fabrics nvfab-tcp nvfab-rdma nvfab-ps-service-time \
		nvfab-discovery nvfab-peermem; do
		ls /lib/modules/"$kver"/updates/dkms/"$m".ko* >/dev/null 2>&1 ||
			{ ktap_diag "no $m for $kver"; st=1; }
	done
fi
result "dpkg -i builds and installs the modules for $kver with DKMS" "$st" install

# 4. Neither install path may take the other's files from under it.
st=0
run refuse make -s -C "$REPO" dkms-uninstall
{ [ "$RC" != 0 ] && grep -q "dpkg -r $PKG" "$TMP/refuse"; } || st=1
[ -e "$SRC/dkms.conf" ] || st=1
run refuse2 "$REPO/scripts/dkms-install.sh" "$kver"
{ [ "$RC" != 0 ] && grep -q "dpkg -r $PKG" "$TMP/refuse2"; } || st=1
result "with the package installed, make dkms-uninstall and dkms-install refuse" $st refuse

# 5. dpkg -r leaves nothing.
run remove dpkg -r "$PKG"
st=$RC
[ "$(pkg_status)" = installed ] && st=1
registered && { ktap_diag "still registered with DKMS"; st=1; }
[ -e "$SRC" ] && { ktap_diag "$SRC still there"; st=1; }
[ -e "/var/lib/dkms/nvfab/$VERSION" ] && { ktap_diag "/var/lib/dkms/nvfab/$VERSION still there"; st=1; }
left=$(installed_modules)
[ -z "$left" ] || { ktap_diag "module files left: $left"; st=1; }
result "dpkg -r removes the registration, the source and the modules" $st remove

ktap_finish
