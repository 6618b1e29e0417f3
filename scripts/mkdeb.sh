#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh [OUTDIR]
#
# make deb: build OUTDIR/nvfab-dkms_<VERSION>_all.deb (default OUTDIR:
# build/deb) with dpkg-deb alone; no debian/ directory, no debhelper.
# (dkms mkdeb, which made such packages, is gone from dkms 3.x.)
#
# The package holds the DKMS source in /usr/src/nvfab-<VERSION>/, as
# scripts/dkms-source.sh lays it out. Its maintainer scripts:
#   postinst configure   dkms add, then dkms build and dkms install for
#                        every kernel whose headers are installed
#                        (/lib/modules/<release>/build); a kernel that
#                        dkms.conf refuses (exit 77) is reported and
#                        skipped, any other build failure fails the
#                        configuration. Later kernels: dkms's own kernel
#                        hooks (AUTOINSTALL=yes).
#   prerm                dkms remove --all of this version.
# dpkg then removes /usr/src/nvfab-<VERSION>.
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
