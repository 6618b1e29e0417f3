#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nv-p2p.sh [NVIDIA_SRC]
#
# Find NVIDIA's nv-p2p.h, which nvfab-peermem-nvidia is built against
# (Documentation/admin-guide/nvfab-peermem.rst, "NVIDIA provider"). Used by
# the Makefile, which builds the module only when this succeeds, and by
# dkms.conf, which then lists it, so that both always agree.
#
# NVIDIA_SRC (the argument, else the environment variable) is a directory
# with nv-p2p.h in it or in nvidia/ or kernel-open/nvidia/ (an NVIDIA
# driver source tree, open or proprietary, or a checkout of
# open-gpu-kernel-modules); "none" turns the provider off. Without it, the
# newest /usr/src/nvidia-*/ (where NVIDIA's DKMS packages put the source)
# is searched.
#
# nv-p2p.sh --dkms-name [NVIDIA_SRC] prints instead the DKMS module name
# of that source tree (NAME of a /var/lib/dkms/NAME/VERSION/source link to
# it: nvidia, nvidia-current, nvidia-current-open, ...), for dkms.conf's
# BUILD_DEPENDS; nothing, with exit 1, when NVIDIA's DKMS does not know it.
# NVFAB_USR_SRC and NVFAB_DKMS_TREE replace /usr/src and /var/lib/dkms
# (scripts/tests/dkms-conf-test.sh).
#
# Prints the directory of nv-p2p.h on the first line and, on the second,
# the symbol list of the nvidia module to give modpost (NVIDIA_SYMVERS,
# else nvidia.symvers next to the header or Module.symvers in the source
# tree), or an empty line when there is none. Exits 1 without printing
# when no header is found (with a message on stderr when NVIDIA_SRC named
# a directory without one).
set -uo pipefail

dkms_name=0
if [ "${1-}" = --dkms-name ]; then
	dkms_name=1
	shift
fi
src=${1-${NVIDIA_SRC-}}
usr_src=${NVFAB_USR_SRC:-/usr/src}
dkms_tree=${NVFAB_DKMS_TREE:-/var/lib/dkms}

# header_in DIR: the directory of nv-p2p.h under DIR, if any
header_in() {
	local d
	for d in "$1" "$1/nvidia" "$1/kernel-open/nvidia"; do
		if [ -f "$d/nv-p2p.h" ]; then
			(cd "$d" && pwd)
			return 0
		fi
	done
	return 1
}

case $src in
none)
	exit 1
	;;
"")
	dir=
	root=
	# the newest driver version first
	while read -r cand; do
		if dir=$(header_in "$cand"); then
			root=$cand
			break
		fi
	done < <(ls -d "$usr_src"/nvidia-*/ 2>/dev/null | sed 's:/$::' | sort -rV)
	[ -n "$dir" ] || exit 1
	;;
*)
	if ! dir=$(header_in "$src"); then
		echo "nv-p2p.sh: no nv-p2p.h in $src, $src/nvidia or $src/kernel-open/nvidia" >&2
		exit 1
	fi
	root=$src
	;;
esac

if [ "$dkms_name" = 1 ]; then
	want=$(cd "$root" && pwd -P)
	for link in "$dkms_tree"/*/*/source; do
		[ -L "$link" ] || continue
		[ "$(cd "$link" 2>/dev/null && pwd -P)" = "$want" ] || continue
		link=${link#"$dkms_tree"/}
		echo "${link%%/*}"
		exit 0
	done
	exit 1
fi

symvers=${NVIDIA_SYMVERS-}
if [ -z "$symvers" ]; then
	for f in "$dir/nvidia.symvers" "$root/Module.symvers" \
		 "$root/kernel-open/Module.symvers"; do
		if [ -f "$f" ]; then
			symvers=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
			break
		fi
	done
fi
echo "$dir"
echo "$symvers"
