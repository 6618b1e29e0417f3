#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tlshd.sh: fetch tlshd, the user-space agent of the kernel's TLS
# handshake upcall (net/handshake), that NVMe/TCP TLS needs. Debian 12
# has no ktls-utils, so this script fetches Debian 13's. It prints the
# tree's directory TDIR on stdout:
#
#   TDIR/tlshd    wrapper: runs the tree's tlshd with the tree's loader
#                 and libraries, passing on all arguments, e.g.
#                 TDIR/tlshd -c /tmp/tlshd.conf -s
#   TDIR/root/    ktls-utils and its dependency closure, unpacked
#                 (root/etc/tlshd.conf, root/usr/share/man/man{5,8}/)
#   TDIR/info     version, packages (name=version), fetch_seconds
#
# Nothing is installed on the host: ktls-utils and every package it
# depends on, recursively, are downloaded with a private apt configuration
# (lib.sh's matrix_apt_setup, in $NVFAB_CACHE/tlshd-apt/, with an empty
# dpkg status so that the host's installed versions play no part) and
# unpacked with dpkg-deb outside the package database; no maintainer
# script runs. The guests, whose root is this machine's over 9p, run the
# wrapper at the same path. Cached in $NVFAB_CACHE/tlshd-<version>/
# (about 30 MB); other tlshd-* directories are removed once a new one is
# ready. A cached tree needs no network: the archive is only asked when
# there is none, or with NVFAB_TLSHD_REFRESH=1.
#
#   NVFAB_MATRIX_MIRROR   default http://deb.debian.org/debian
#   NVFAB_TLSHD_SUITE     default trixie
#   NVFAB_TLSHD_REFRESH   1: ask the archive for a newer ktls-utils
set -euo pipefail
shopt -s nullglob
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 0 ] || die "usage: $0 (prints the tlshd tree's directory)"

# The newest complete tree in the cache, if any.
cached() {
	local d best=
	for d in "$NVFAB_CACHE"/tlshd-*/; do
		d=${d%/}
		if [[ $d == *.tmp ]] || [ ! -f "$d/.done" ]; then
			continue
		fi
		if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best" "$d" | sort -V | tail -n1)" = "$d" ]; then
			best=$d
		fi
	done
	echo "$best"
}

if [ "${NVFAB_TLSHD_REFRESH:-0}" != 1 ]; then
	dir=$(cached)
	if [ -n "$dir" ]; then
		log "tlshd: cached at $dir"
		echo "$dir"
		exit 0
	fi
fi

mkdir -p "$NVFAB_CACHE"
exec 9>"$NVFAB_CACHE/.tlshd.lock"
flock 9

apt_name=tlshd-apt
apt_dir=$NVFAB_CACHE/$apt_name
matrix_apt_setup "${NVFAB_MATRIX_MIRROR:-http://deb.debian.org/debian}" \
	"${NVFAB_TLSHD_SUITE:-trixie}" "$apt_name"
# No installed packages: candidates, dependencies and downloads are the
# archive's alone, whatever the host has installed.
: >"$apt_dir/status"
apt_opts=(-o "Dir::State::status=$apt_dir/status")
timeout 120 apt-get "${apt_opts[@]}" update -qq >"$apt_dir/update.log" 2>&1 ||
	die "cannot reach the archive (see $apt_dir/update.log)"

ver=$(apt-cache "${apt_opts[@]}" show --no-all-versions ktls-utils 2>/dev/null |
	sed -n 's/^Version: //p' | head -n1)
[ -n "$ver" ] || die "ktls-utils is not in ${NVFAB_TLSHD_SUITE:-trixie}"
dir=$NVFAB_CACHE/tlshd-${ver//:/_}
if [ -f "$dir/.done" ]; then
	log "tlshd: ktls-utils $ver cached at $dir"
	echo "$dir"
	exit 0
fi

# The dependency closure: apt-cache prints each package of it once at the
# start of a line (its dependencies indented below it); virtual packages
# are printed as <name> and are dropped: the real package that provides
# one is in the closure too. Left out, because they only carry maintainer
# scripts, configuration or daemons that tlshd does not need to run (none
# of them is in ktls-utils 1.0.0-1's closure, which is 23 shared-library
# packages, but a future revision may pull them in, e.g. by a Depends on
# init-system-helpers for the systemd unit): debconf,
# init-system-helpers, systemd, systemd-sysv, adduser, dpkg, perl-base.
skip=' debconf init-system-helpers systemd systemd-sysv adduser dpkg perl-base '
pkgs=()
while read -r p; do
	case $p in '' | '<'*) continue ;; esac
	if [[ $skip == *" $p "* ]]; then
		log "tlshd: leaving out $p (maintainer scripts only)"
		continue
	fi
	pkgs+=("$p")
done < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances ktls-utils |
	grep -v '^[[:space:]]' | sort -u)
[[ " ${pkgs[*]} " == *" ktls-utils "* ]] || die "apt-cache depends did not resolve ktls-utils"

start=$(date +%s)
tmp=$dir.tmp
rm -rf "$dir" "$tmp"
mkdir -p "$tmp/debs" "$tmp/root"
log "tlshd: downloading ktls-utils $ver with its closure, ${#pkgs[@]} packages: ${pkgs[*]}"
(cd "$tmp/debs" && timeout 600 apt-get "${apt_opts[@]}" download -qq "${pkgs[@]}") ||
	die "apt-get download of ${pkgs[*]} failed"
installed=()
for deb in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root"
	installed+=("$(dpkg-deb -f "$deb" Package)=$(dpkg-deb -f "$deb" Version)")
done

root=$tmp/root
lib=$root/usr/lib/x86_64-linux-gnu
[ -x "$root/usr/sbin/tlshd" ] || die "ktls-utils $ver holds no /usr/sbin/tlshd"
[ -x "$lib/ld-linux-x86-64.so.2" ] || die "no loader at /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

# Every library tlshd needs must come from the tree, none from the host
# (whose /etc/ld.so.cache and /lib the tree's loader would fall back to).
libs=$("$lib/ld-linux-x86-64.so.2" --library-path "$lib:$root/lib/x86_64-linux-gnu" \
	--list "$root/usr/sbin/tlshd") || die "the tree's loader cannot resolve tlshd's libraries"
if stray=$(grep -v -e linux-vdso -e "=> $root/" -e "^[[:space:]]*$root/" <<<"$libs"); then
	die "tlshd's libraries resolve outside the tree: $stray"
fi

# The wrapper finds the tree from its own location (the guests see the
# same path). GCONV_PATH: iconv (libunistring, glib) must not load the
# host's older gconv modules into trixie's libc.
cat >"$tmp/tlshd" <<'EOF'
#!/bin/sh
# Generated by tools/testing/vm/tlshd.sh: Debian 13's tlshd, run by the
# tree's own loader and libraries. All arguments go to tlshd.
root=$(cd "$(dirname "$0")" && pwd)/root
lib=$root/usr/lib/x86_64-linux-gnu
GCONV_PATH=$lib/gconv
export GCONV_PATH
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$root/lib/x86_64-linux-gnu" \
	--argv0 tlshd "$root/usr/sbin/tlshd" "$@"
EOF
chmod 755 "$tmp/tlshd"
rm -rf "$tmp/debs"

cat >"$tmp/info" <<EOF
version=$ver
suite=${NVFAB_TLSHD_SUITE:-trixie}
packages=${installed[*]}
fetch_seconds=$(($(date +%s) - start))
EOF
mv "$tmp" "$dir"
touch "$dir/.done"
log "tlshd: ktls-utils $ver ready in $(($(date +%s) - start)) s at $dir"

for d in "$NVFAB_CACHE"/tlshd-*/; do
	d=${d%/}
	[ "$d" = "$dir" ] || [ "$d" = "$apt_dir" ] || rm -rf "$d"
done
echo "$dir"
