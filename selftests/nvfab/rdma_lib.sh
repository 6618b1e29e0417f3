# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the NVMe/RDMA selftests, sourced after lib.sh and tcp_lib.sh.
#
# nvmet-rdma and rdma_cm work in init_net only (rdma_create_id(&init_net)),
# so the RDMA path cannot cross the topology's network namespace: a veth
# pair in init_net carries a soft-RoCE device (rdma_rxe) on nvfab-r0, and
# the nvmet-rdma port listens on nvfab-r0's address, which the host also
# uses as its source (host_traddr); rxe loops the traffic back inside the
# device. The subsystem is the topology's (nvmet_setup), so the same
# namespaces are reachable over tcp and rdma.

RDMA_IF=nvfab-r0
RDMA_PEER_IF=nvfab-r1
RDMA_DEV=nvfab_rxe0
RDMA_ADDR=203.0.113.1
RDMA_PORT_ID=20
RDMA_INLINE=${RDMA_INLINE:-4096}

# rdma_up: the veth pair, its address and the rxe device on it.
rdma_up() {
	modprobe rdma_rxe || return
	ip link add "$RDMA_IF" type veth peer name "$RDMA_PEER_IF" || return
	ip addr add "$RDMA_ADDR/24" dev "$RDMA_IF" || return
	ip link set "$RDMA_IF" up && ip link set "$RDMA_PEER_IF" up || return
	rdma link add "$RDMA_DEV" type rxe netdev "$RDMA_IF"
}

rdma_dev_present() { rdma link show "$RDMA_DEV/1" >/dev/null 2>&1; }

# rdma_nvmet_port: an nvmet-rdma port on $RDMA_ADDR:$NVMET_TRSVCID
# exporting the topology's subsystem, with $RDMA_INLINE bytes of
# in-capsule data.
rdma_nvmet_port() {
	local port=$NVMET_CFS/ports/$RDMA_PORT_ID

	modprobe nvmet-rdma || return
	mkdir -p "$port" || return
	echo rdma >"$port/addr_trtype" || return
	echo ipv4 >"$port/addr_adrfam" || return
	echo "$RDMA_ADDR" >"$port/addr_traddr" || return
	echo "$NVMET_TRSVCID" >"$port/addr_trsvcid" || return
	echo "$RDMA_INLINE" >"$port/param_inline_data_size" || return
	ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
}

# rdma_opts EXTRA: the connect options of the rdma path.
rdma_opts() {
	echo "transport=rdma,traddr=$RDMA_ADDR,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_ADDR,nqn=$NVMET_NQN${1:-}"
}

# rdma_write OPTS: one write to /dev/nvfab-fabrics; sets REPLY_LINE, and
# prints the error message on failure.
rdma_write() {
	local err
	REPLY_LINE=
	exec 3<>/dev/nvfab-fabrics || return 1
	if ! err=$(printf '%s' "$1" 2>&1 >&3); then
		exec 3>&-
		echo "$err"
		return 1
	fi
	REPLY_LINE=$(cat <&3)
	exec 3>&-
}

# rdma_connect EXTRA: connect over rdma, wait for namespace 1 (sets CTRL,
# DEV).
rdma_connect() {
	local n
	nvfab_clean_dev
	rdma_write "$(rdma_opts "${1:-}")" || return 1
	n=${REPLY_LINE#instance=}
	n=${n%%,*}
	CTRL=/sys/class/nvfab/nvfab$n
	busywait 30000 nvfab_head_ready "$CTRL" 1
}

# For "trap nvfab_rdma_cleanup EXIT".
nvfab_rdma_cleanup() {
	nvfab_clean_dev
	nvfab_delete_all >/dev/null 2>&1
	nvfab_unload nvfab-rdma nvfab-tcp nvfab-fabrics nvfab-core \
		>/dev/null 2>&1
	nvmet_teardown >/dev/null 2>&1
	rdma link delete "$RDMA_DEV" >/dev/null 2>&1
	ip link del "$RDMA_IF" >/dev/null 2>&1
	topo_cleanup >/dev/null 2>&1
	modprobe -r nvmet-rdma >/dev/null 2>&1
	return 0
}
