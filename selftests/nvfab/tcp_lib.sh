# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the NVMe/TCP selftests: connect through /dev/nvfab-fabrics
# over path 1 of the topology, find the controller and its first namespace,
# delete controllers, and clean everything up. Sourced after lib.sh.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/testing/vm/guest/topology.sh"

CTRL=		# /sys/class/nvfab/nvfabN of the last connect
DEV=		# /dev/nvfabXnY: its subsystem's head of NSID 1
REPLY_LINE=	# what the control node answered

# nvfab_subsys_of CTRLDIR: the /sys/class/nvfab-subsystem/nvfab-subsysX
# that links to the controller, or nothing.
nvfab_subsys_of() {
	local s c=${1##*/}
	for s in /sys/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/$c" ] && { echo "$s"; return 0; }
	done
	return 1
}

# nvfab_head_dev CTRLDIR NSID: /dev/nvfabXnY of that namespace's head.
nvfab_head_dev() {
	local s h
	s=$(nvfab_subsys_of "$1") || return 1
	for h in "$s"/nvfab*n*; do
		[ -e "$h/nsid" ] && [ "$(cat "$h/nsid")" = "$2" ] &&
			{ echo "/dev/${h##*/}"; return 0; }
	done
	return 1
}

# nvfab_head_ready CTRLDIR NSID: the head's block node exists (sets DEV).
nvfab_head_ready() {
	DEV=$(nvfab_head_dev "$1" "$2") && test -b "$DEV"
}

# nvfab_clean_dev: remove regular files that an I/O tool created under a
# vanished /dev/nvfab* name; they would hide the next device node.
nvfab_clean_dev() {
	local f
	for f in /dev/nvfab*; do
		[ -f "$f" ] && rm -f "$f"
	done
	return 0
}

# nvfab_connect EXTRA: connect over path 1 with extra ",key=value" options
# and wait for namespace 1's block device.
nvfab_connect() {
	nvfab_connect_path 1 "${1:-}"
}

# nvfab_connect_path PATH EXTRA: as nvfab_connect, over path PATH.
nvfab_connect_path() {
	local opts n
	nvfab_clean_dev
	opts="transport=tcp,traddr=$(topo_tgt_addr "$1"),trsvcid=$NVMET_TRSVCID"
	opts="$opts,host_traddr=$(topo_host_addr "$1"),nqn=$NVMET_NQN${2:-}"
	exec 3<>/dev/nvfab-fabrics || return 1
	printf '%s' "$opts" >&3 || { exec 3>&-; return 1; }
	REPLY_LINE=$(cat <&3)
	exec 3>&-
	n=${REPLY_LINE#instance=}
	n=${n%%,*}
	CTRL=/sys/class/nvfab/nvfab$n
	busywait 20000 nvfab_head_ready "$CTRL" 1
}

nvfab_ctrl_count() {
	local d n=0
	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo "$n"
}

# nvfab_delete_all: delete every controller and wait until none is left
# (busywait re-runs nvfab_no_ctrl; a "$(nvfab_ctrl_count)" argument would
# be counted once, before the wait).
nvfab_delete_all() {
	local d
	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] || continue
		echo 1 >"$d/delete_controller" || return 1
	done
	busywait 30000 nvfab_no_ctrl
}
nvfab_no_ctrl() { test "$(nvfab_ctrl_count)" = 0; }

# For "trap nvfab_tcp_cleanup EXIT".
nvfab_tcp_cleanup() {
	nvfab_clean_dev
	nvfab_delete_all >/dev/null 2>&1
	nvfab_unload nvfab-discovery nvfab-ps-service-time nvfab-tcp \
		nvfab-fabrics nvfab-core >/dev/null 2>&1
	topo_cleanup >/dev/null 2>&1
}
