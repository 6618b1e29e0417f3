#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh [OUTDIR]
#
# make deb: build two packages in OUTDIR (default: build/deb) with
# dpkg-deb alone; no debian/ directory, no debhelper. (dkms mkdeb, which
# made DKMS packages, is gone from dkms 3.x.) It prints their paths.
#
# nvfab-dkms_<VERSION>_all.deb: the DKMS source in /usr/src/nvfab-<VERSION>/,
# as scripts/dkms-source.sh lays it out. Its maintainer scripts:
#   postinst configure   dkms add, then dkms build and dkms install for
#                        every kernel whose headers are installed
#                        (/lib/modules/<release>/build); a kernel that
#                        dkms.conf refuses (exit 77) is reported and
#                        skipped, any other build failure fails the
#                        configuration. Later kernels: dkms's own kernel
#                        hooks (AUTOINSTALL=yes).
#   prerm                dkms remove --all of this version.
# dpkg then removes /usr/src/nvfab-<VERSION>.
#
# nvfab-tools_<VERSION>_<arch>.deb: the user-space side, where a
# distribution puts it (make install with PREFIX=/usr): /usr/sbin/nvfabctl,
# its man pages (nvfabctl.8, nvfab.conf.5, gzipped) and bash completion,
# the udev rules (/usr/lib/udev/rules.d), nvfab-boot.service
# (/usr/lib/systemd/system), modules-load.d/nvfab.conf
# (/usr/lib/modules-load.d), the example rule (/usr/share/nvfab/examples)
# and README.md, the admin guides and the copyright in
# /usr/share/doc/nvfab-tools. nvfabctl is built from a copy of the tree
# (the checkout's own build is left alone) with dpkg-buildflags' flags
# where dpkg-dev is installed. Its maintainer scripts do what debhelper's
# would for the unit: enable it on the first install (it does nothing
# until /etc/nvfab/nvfab.conf exists), keep an admin's disable across
# upgrades, mask it on remove and forget it on purge; the running systemd
# and udev reload their files. /etc/nvfab/ is the admin's: never touched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")
outdir=${1:-$root/build/deb}
name=nvfab

command -v dpkg-deb >/dev/null || { echo "mkdeb: dpkg-deb is not installed" >&2; exit 1; }
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
stage=$outdir/nvfab-dkms_$version
deb=$outdir/nvfab-dkms_${version}_all.deb
rm -rf "$stage" "$deb"
"$root/scripts/dkms-source.sh" "$stage/usr/src/$name-$version"
mkdir -p "$stage/DEBIAN"

cat >"$stage/DEBIAN/control" <<EOF
Package: nvfab-dkms
Version: $version
Architecture: all
Maintainer: nvfab developers <dev@nvfab.invalid>
Section: kernel
Priority: optional
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Depends: dkms (>= 3.0), bash, make
Recommends: linux-headers-amd64 | linux-headers
Description: nvfab NVMe over Fabrics initiator, kernel modules (DKMS)
 nvfab is an NVMe over Fabrics host (initiator) for Linux beside the
 in-kernel one: NVMe/TCP, NVMe/RDMA, native ANA multipath and loadable
 path selectors. This package holds the source of its kernel modules
 (nvfab-core, nvfab-fabrics, nvfab-tcp, nvfab-rdma,
 nvfab-ps-service-time, nvfab-discovery, nvfab-peermem); DKMS
 builds them for every installed kernel from 6.12 to the newest one
 tested, and again for each new kernel.
EOF

cat >"$stage/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
NAME=$name
VERSION=$version
EOF
cat >>"$stage/DEBIAN/postinst" <<'EOF'
if [ "$1" = configure ]; then
	# A registration of this version left by make dkms-install is replaced.
	if [ -d "/var/lib/dkms/$NAME/$VERSION" ]; then
		dkms remove -m "$NAME" -v "$VERSION" --all
	fi
	dkms add -m "$NAME" -v "$VERSION"
	for build in /lib/modules/*/build; do
		[ -e "$build/include" ] || continue
		kver=$(basename "$(dirname "$build")")
		rc=0
		dkms build -m "$NAME" -v "$VERSION" -k "$kver" || rc=$?
		case $rc in
		0)
			dkms install -m "$NAME" -v "$VERSION" -k "$kver"
			;;
		77)
			echo "nvfab-dkms: not built for $kver: outside the kernels dkms.conf accepts (see /usr/src/$NAME-$VERSION/dkms.conf)"
			;;
		*)
			echo "nvfab-dkms: the build for $kver failed; see /var/lib/dkms/$NAME/$VERSION/build/make.log" >&2
			exit "$rc"
			;;
		esac
	done
fi
exit 0
EOF

cat >"$stage/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
NAME=$name
VERSION=$version
EOF
cat >>"$stage/DEBIAN/prerm" <<'EOF'
case "$1" in
remove | upgrade | deconfigure)
	if [ -d "/var/lib/dkms/$NAME/$VERSION" ]; then
		dkms remove -m "$NAME" -v "$VERSION" --all
	fi
	;;
esac
exit 0
EOF
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"

(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "$deb"

# nvfab-tools
arch=$(dpkg --print-architecture)
tname=nvfab-tools
tstage=$outdir/${tname}_$version
tdeb=$outdir/${tname}_${version}_$arch.deb
src=$outdir/${tname}-src
rm -rf "$tstage" "$tdeb" "$src"
mkdir -p "$src"
# A copy of what make install reads, without the checkout's build output.
tar -C "$root" --exclude='*.o' --exclude=tools/nvfabctl/nvfabctl \
	--exclude=tools/nvfabctl/tests -cf - \
	Makefile VERSION COPYING README.md scripts include tools/nvfabctl \
	udev systemd Documentation | tar -C "$src" -xf -
bflags=()	# in the environment: the Makefile adds its own flags to them
if command -v dpkg-buildflags >/dev/null; then
	bflags=("CFLAGS=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)"
		"LDFLAGS=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)"
		"CPPFLAGS=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)")
fi
env "${bflags[@]}" make -s -C "$src/tools/nvfabctl" >"$src.log" 2>&1 ||
	{ cat "$src.log" >&2; echo "mkdeb: building nvfabctl failed" >&2; exit 1; }
make -s -C "$src" install DESTDIR="$tstage" PREFIX=/usr >>"$src.log" 2>&1 ||
	{ cat "$src.log" >&2; echo "mkdeb: make install failed" >&2; exit 1; }
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$tstage/usr/sbin/nvfabctl"
gzip -9n "$tstage"/usr/share/man/man*/*
doc=$tstage/usr/share/doc/$tname
install -D -m 0644 "$src/README.md" "$doc/README.md"
install -d "$doc/admin-guide"
install -m 0644 "$src"/Documentation/admin-guide/*.rst "$doc/admin-guide/"
cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: nvfab

Files: *
Copyright: nvfab developers
License: GPL-2.0
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
EOF
# The newest glibc symbol version nvfabctl uses.
glibc=$(objdump -T "$tstage/usr/sbin/nvfabctl" | grep -o 'GLIBC_[0-9.]*' |
	sed 's/GLIBC_//' | sort -V | tail -1)
mkdir -p "$tstage/DEBIAN"
cat >"$tstage/DEBIAN/control" <<EOF
Package: $tname
Version: $version
Architecture: $arch
Maintainer: nvfab developers <dev@nvfab.invalid>
Section: admin
Priority: optional
Installed-Size: $(du -sk "$tstage/usr" | cut -f1)
Depends: libc6 (>= ${glibc:-2.36}), init-system-helpers (>= 1.54)
Recommends: nvfab-dkms (= $version)
Suggests: nvme-cli
Description: nvfab NVMe over Fabrics initiator, user-space tools
 nvfab is an NVMe over Fabrics host (initiator) for Linux beside the
 in-kernel one. This package holds nvfabctl (connect, discover, list,
 status, the boot-time configuration file /etc/nvfab/nvfab.conf) with
 its man pages and bash completion, the udev rules that name nvfab's
 block devices, nvfab-boot.service and the modules-load.d file that
 bring the configuration back at boot, and the admin guides. The
 kernel modules come from nvfab-dkms.
EOF

unit=nvfab-boot.service
cat >"$tstage/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
UNIT=$unit
EOF
cat >>"$tstage/DEBIAN/postinst" <<'EOF'
case "$1" in
configure | abort-upgrade | abort-deconfigure | abort-remove)
	if command -v deb-systemd-helper >/dev/null; then
		# The mask that a remove left (postrm) goes.
		deb-systemd-helper unmask "$UNIT" >/dev/null || true
		# was-enabled is true for a unit never seen before: enabled on
		# the first install; an admin's "systemctl disable" stays.
		if deb-systemd-helper --quiet was-enabled "$UNIT"; then
			deb-systemd-helper enable "$UNIT" >/dev/null || true
		else
			deb-systemd-helper update-state "$UNIT" >/dev/null || true
		fi
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
	fi
	if [ -S /run/udev/control ]; then
		udevadm control --reload >/dev/null 2>&1 || true
	fi
	;;
esac
exit 0
EOF
# The unit has no ExecStop: stopping it on remove disconnects nothing.
cat >"$tstage/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
UNIT=$unit
EOF
cat >>"$tstage/DEBIAN/prerm" <<'EOF'
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	deb-systemd-invoke stop "$UNIT" >/dev/null || true
fi
exit 0
EOF
cat >"$tstage/DEBIAN/postrm" <<EOF
#!/bin/sh
set -e
UNIT=$unit
EOF
cat >>"$tstage/DEBIAN/postrm" <<'EOF'
if [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi
if command -v deb-systemd-helper >/dev/null; then
	case "$1" in
	remove)
		deb-systemd-helper mask "$UNIT" >/dev/null || true
		;;
	purge)
		deb-systemd-helper purge "$UNIT" >/dev/null || true
		deb-systemd-helper unmask "$UNIT" >/dev/null || true
		;;
	esac
fi
exit 0
EOF
chmod 0755 "$tstage/DEBIAN/postinst" "$tstage/DEBIAN/prerm" "$tstage/DEBIAN/postrm"
(cd "$tstage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$tstage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$tstage" "$tdeb" >/dev/null
rm -rf "$tstage" "$src" "$src.log"
echo "$tdeb"
