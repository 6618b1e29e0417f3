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
# The soft RDMA provider: rxe (soft RoCE, in every kernel here) or siw
# (soft iWARP, in the test kernel).
RDMA_PROVIDER=${NVFAB_RDMA_PROVIDER:-rxe}

# rdma_provider_module: the module that provides $RDMA_PROVIDER.
rdma_provider_module() {
	case $RDMA_PROVIDER in
	rxe) echo rdma_rxe ;;
	*) echo "$RDMA_PROVIDER" ;;
	esac
}

# rdma_up: the veth pair, its address and the rxe device on it.
rdma_up() {
	modprobe "$(rdma_provider_module)" || return
	ip link add "$RDMA_IF" type veth peer name "$RDMA_PEER_IF" || return
	ip addr add "$RDMA_ADDR/24" dev "$RDMA_IF" || return
	ip link set "$RDMA_IF" up && ip link set "$RDMA_PEER_IF" up || return
	rdma link add "$RDMA_DEV" type "$RDMA_PROVIDER" netdev "$RDMA_IF"
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

# The wire topology, for tests that cut the link: two devices on the two
# ends of a veth pair in init_net, the host's ($RDMA_W_HDEV on
# $RDMA_W_HIF, $RDMA_W_HOST) and the target's ($RDMA_W_TDEV on $RDMA_W_TIF,
# $RDMA_W_TGT). Both addresses are local, so policy routing sends what one
# end sends to the other through the veth instead of lo: rules ahead of
# the local table choose the veth by output interface (rxe's route
# lookups, rdma_cm's address resolution and the CM's check of an incoming
# REQ name it) or, for a lookup without one, for locally generated
# packets (iif lo). A packet arriving at the far end matches neither and
# is delivered by the local table; accept_local lets it carry a source
# address of this host. A cut (rdma_wire_cut) drops every packet both ways
# with netem: silent, as a broken switch would be.
RDMA_W_HIF=nvfab-w0
RDMA_W_TIF=nvfab-w1
RDMA_W_HDEV=nvfab_wh
RDMA_W_TDEV=nvfab_wt
RDMA_W_HOST=203.0.113.17
RDMA_W_TGT=203.0.113.18
RDMA_W_PORT_ID=21

_rdma_wire_rules() { # add|del
	ip rule "$1" pref 10 oif "$RDMA_W_HIF" to "$RDMA_W_TGT" lookup 210 &&
		ip rule "$1" pref 11 oif "$RDMA_W_TIF" to "$RDMA_W_HOST" lookup 211 &&
		ip rule "$1" pref 12 iif lo to "$RDMA_W_TGT" lookup 210 &&
		ip rule "$1" pref 13 iif lo to "$RDMA_W_HOST" lookup 211
}

# rdma_wire_up: the veth pair, the routing above, a device on each end,
# and on each end a netem qdisc that drops nothing until rdma_wire_cut.
rdma_wire_up() {
	local i

	modprobe "$(rdma_provider_module)" && modprobe sch_netem || return
	ip link add "$RDMA_W_HIF" type veth peer name "$RDMA_W_TIF" || return
	ip addr add "$RDMA_W_HOST/32" dev "$RDMA_W_HIF" &&
		ip addr add "$RDMA_W_TGT/32" dev "$RDMA_W_TIF" || return
	for i in all "$RDMA_W_HIF" "$RDMA_W_TIF"; do
		sysctl -qw "net.ipv4.conf.$i.rp_filter=0" \
			"net.ipv4.conf.$i.accept_local=1" || return
	done
	ip link set "$RDMA_W_HIF" up && ip link set "$RDMA_W_TIF" up || return
	tc qdisc add dev "$RDMA_W_HIF" root netem loss 0% &&
		tc qdisc add dev "$RDMA_W_TIF" root netem loss 0% || return
	ip route add "$RDMA_W_TGT" dev "$RDMA_W_HIF" table 210 &&
		ip route add "$RDMA_W_HOST" dev "$RDMA_W_TIF" table 211 || return
	_rdma_wire_rules add || return
	# the local table after those rules (added before the old one goes)
	ip rule add pref 100 lookup local && ip rule del pref 0 lookup local ||
		return
	rdma link add "$RDMA_W_HDEV" type "$RDMA_PROVIDER" netdev "$RDMA_W_HIF" &&
		rdma link add "$RDMA_W_TDEV" type "$RDMA_PROVIDER" netdev "$RDMA_W_TIF"
}

# rdma_wire_down: undo rdma_wire_up (the local table first again).
rdma_wire_down() {
	rdma link delete "$RDMA_W_HDEV"
	rdma link delete "$RDMA_W_TDEV"
	if ! ip rule show pref 0 | grep -q local; then
		ip rule add pref 0 lookup local
	fi
	ip rule del pref 100 lookup local
	_rdma_wire_rules del
	ip link del "$RDMA_W_HIF"
	return 0
} 2>/dev/null

# rdma_wire_cut, rdma_wire_restore: drop everything both ways, and stop.
# Only netem's loss changes: adding or deleting a root qdisc grafts it,
# and a packet sent meanwhile is dropped with NET_XMIT_CN, which rxe
# (6.12) takes as a failed send and answers by moving the sending QP to
# the error state, the GSI QP 1 too when the packet was a CM MAD: the
# device's CM then stays mute until the device is removed (every later
# connect times out). A loss drop is silent to the sender, as a cut is.
rdma_wire_cut() {
	tc qdisc change dev "$RDMA_W_HIF" root netem loss 100% &&
		tc qdisc change dev "$RDMA_W_TIF" root netem loss 100%
}
rdma_wire_restore() {
	tc qdisc change dev "$RDMA_W_HIF" root netem loss 0%
	tc qdisc change dev "$RDMA_W_TIF" root netem loss 0%
}

# rdma_wire_diag: the QPs (with the GSI QP 1 that carries the CM's MADs)
# and the counters of both devices, as diagnostics.
rdma_wire_diag() {
	local d
	for d in "$RDMA_W_HDEV" "$RDMA_W_TDEV"; do
		rdma resource show qp link "$d/1" 2>&1 | sed "s/^/# $d: /"
		rdma statistic show link "$d/1" 2>&1 | sed "s/^/# $d: /"
	done
}

# rdma_wire_nvmet_port: an nvmet port on the target's end.
rdma_wire_nvmet_port() {
	local port=$NVMET_CFS/ports/$RDMA_W_PORT_ID

	modprobe nvmet-rdma || return
	mkdir -p "$port" || return
	echo rdma >"$port/addr_trtype" || return
	echo ipv4 >"$port/addr_adrfam" || return
	echo "$RDMA_W_TGT" >"$port/addr_traddr" || return
	echo "$NVMET_TRSVCID" >"$port/addr_trsvcid" || return
	echo "$RDMA_INLINE" >"$port/param_inline_data_size" || return
	ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
}

# rdma_wire_connect EXTRA: as rdma_connect, across the wire.
rdma_wire_connect() {
	local n
	nvfab_clean_dev
	rdma_write "transport=rdma,traddr=$RDMA_W_TGT,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_W_HOST,nqn=$NVMET_NQN${1:-}" ||
		return 1
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
	rdma_wire_down
	rdma link delete "$RDMA_DEV" >/dev/null 2>&1
	ip link del "$RDMA_IF" >/dev/null 2>&1
	topo_cleanup >/dev/null 2>&1
	modprobe -r nvmet-rdma >/dev/null 2>&1
	return 0
}
