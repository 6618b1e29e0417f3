# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2120,SC2119
#
# Guest topology for nvfab tests: an nvmet target in its own network
# namespace, reached over one veth pair per path. Source this file inside a
# test guest (run-vm.sh); it does nothing on its own. Functions return
# non-zero on failure and are safe under "set -euo pipefail".
#
#   . "$REPO_ROOT/tools/testing/vm/guest/topology.sh"
#   trap topo_cleanup EXIT
#   topo_up 2
#   nvmet_setup
#   ... connect to "$(topo_tgt_addr 1)":4420, "$(topo_tgt_addr 2)":4420 ...
#
# Network namespaces: target in "nvfab-tgt", initiator in init_net
# ------------------------------------------------------------------
# Checked in the 6.12 source (drivers/nvme/target/tcp.c, host/tcp.c,
# target/rdma.c, host/rdma.c):
#
# - nvmet-tcp creates its listening socket with sock_create(), i.e. in
#   current->nsproxy->net_ns of the task that *enables* the port. A port is
#   enabled when the first subsystem is linked into
#   /sys/kernel/config/nvmet/ports/<id>/subsystems/. Doing that link from
#   inside a netns makes the port listen there, and accepted queues inherit
#   the listener's netns. (inet_pton_with_scope(&init_net, ...) only parses
#   the address; init_net matters there for IPv6 scope ids alone.) So the
#   target can live in its own netns (Documentation/dev-tools/testing.rst,
#   "Guest topology"). The link is made with "nsenter --net=", not
#   "ip netns exec": the latter remounts /sys, which hides configfs.
#   nvmet_port_enable does this; any test that unlinks and relinks a port
#   must use it too.
#
# - The host side must stay in init_net. The in-kernel nvme-tcp host creates
#   its sockets with sock_create() in nvme_tcp_alloc_queue(), which also runs
#   from the reconnect work item, i.e. in a kworker whose netns is init_net.
#   An initiator placed in another netns would reconnect into the wrong one.
#   nvfab's initiator has the same constraint unless it captures the netns at
#   connect time.
#
# - NVMe/RDMA cannot use this split: nvmet-rdma and nvme-rdma both call
#   rdma_create_id(&init_net, ...). RDMA paths (rxe/siw over veth) will need
#   both ends in init_net, which loses the veth crossing (and netem) for
#   local addresses. Not handled here yet.
#
# Addressing (documentation ranges, RFC 5737), one /28 per path:
#
#   path  host side (init_net)      target side (nvfab-tgt)    subnet
#   1     nvfab-h1 192.0.2.1        nvfab-t1 192.0.2.2         192.0.2.0/28
#   2     nvfab-h2 198.51.100.1     nvfab-t2 198.51.100.2      198.51.100.0/28
#   3     nvfab-h3 192.0.2.17       nvfab-t3 192.0.2.18        192.0.2.16/28
#   4     nvfab-h4 198.51.100.17    nvfab-t4 198.51.100.18     198.51.100.16/28
#
# Each path has its own nvmet port, port id = path number, on the target
# address with trsvcid 4420, all exporting one subsystem ($NVMET_NQN) with
# namespaces on memory-backed null_blk devices. ANA group 1 on each port
# carries the path's ANA state. netem and link cuts act on the host-side
# veth: netem delays host->target traffic only.

TOPO_NS=${TOPO_NS:-nvfab-tgt}
TOPO_MAX_PATHS=4
NVMET_NQN=${NVMET_NQN:-nqn.2014-08.org.nvmexpress:nvfab-test}
NVMET_TRSVCID=${NVMET_TRSVCID:-4420}
NVMET_NS_COUNT=${NVMET_NS_COUNT:-2}
NVMET_CFS=/sys/kernel/config/nvmet
# Port id of the optional loop-transport port (nvmet_add_loop_port).
NVMET_LOOP_PORT=100

_topo_err() { echo "topology: $*" >&2; return 1; }

_topo_check_path() {
	case "${1:-}" in
	[1-4]) return 0 ;;
	*) _topo_err "path must be 1..$TOPO_MAX_PATHS, got '${1:-}'" ;;
	esac
}

# topo_host_if PATH / topo_tgt_if PATH - interface names.
topo_host_if() { echo "nvfab-h$1"; }
topo_tgt_if() { echo "nvfab-t$1"; }

# topo_host_addr PATH / topo_tgt_addr PATH - IPv4 addresses (no prefix).
topo_host_addr() {
	_topo_check_path "$1" || return
	local base=$(((($1 - 1) / 2) * 16))
	if [ $(($1 % 2)) = 1 ]; then
		echo "192.0.2.$((base + 1))"
	else
		echo "198.51.100.$((base + 1))"
	fi
}

topo_tgt_addr() {
	_topo_check_path "$1" || return
	local base=$(((($1 - 1) / 2) * 16))
	if [ $(($1 % 2)) = 1 ]; then
		echo "192.0.2.$((base + 2))"
	else
		echo "198.51.100.$((base + 2))"
	fi
}

# topo_paths - number of paths currently up (0 when the topology is down).
topo_paths() {
	local i n=0

	for ((i = 1; i <= TOPO_MAX_PATHS; i++)); do
		ip link show "$(topo_host_if "$i")" >/dev/null 2>&1 && n=$i
	done
	echo "$n"
}

# topo_tgt_exec CMD... - run a command in the target netns (network only;
# the mount namespace, and so configfs, stays the same).
topo_tgt_exec() {
	nsenter --net="/run/netns/$TOPO_NS" -- "$@"
}

# topo_up N - create the target netns and N veth paths (1..4). Tears down
# any previous topology first.
topo_up() {
	local n=${1:-1} i h t

	case "$n" in [1-4]) ;; *) _topo_err "topo_up: 1..$TOPO_MAX_PATHS paths, got '$n'" || return ;; esac
	topo_down
	modprobe veth || return
	modprobe sch_netem 2>/dev/null || true
	ip link set lo up || return
	ip netns add "$TOPO_NS" || return
	ip -n "$TOPO_NS" link set lo up || return
	for ((i = 1; i <= n; i++)); do
		h=$(topo_host_if "$i")
		t=$(topo_tgt_if "$i")
		ip link add "$h" type veth peer name "$t" netns "$TOPO_NS" || return
		ip addr add "$(topo_host_addr "$i")/28" dev "$h" || return
		ip -n "$TOPO_NS" addr add "$(topo_tgt_addr "$i")/28" dev "$t" || return
		ip link set "$h" up || return
		ip -n "$TOPO_NS" link set "$t" up || return
	done
	# Wait for carrier so that the first connect does not race the link.
	for ((i = 1; i <= n; i++)); do
		_topo_wait_carrier "$(topo_host_if "$i")" || return
	done
}

_topo_wait_carrier() {
	local tries=100

	while [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" != 1 ]; do
		((--tries > 0)) || _topo_err "$1: no carrier" || return
		sleep 0.1
	done
}

# topo_down - remove all veths and the target netns. Idempotent. Run
# nvmet_teardown first: enabled nvmet ports pin the netns until removed.
topo_down() {
	local i

	for ((i = 1; i <= TOPO_MAX_PATHS; i++)); do
		ip link del "$(topo_host_if "$i")" 2>/dev/null || true
	done
	ip netns del "$TOPO_NS" 2>/dev/null || true
	return 0
}

# topo_netem PATH ARGS... - set any netem discipline on the host-side veth
# of PATH, e.g. "topo_netem 2 delay 5ms loss 1%".
topo_netem() {
	_topo_check_path "$1" || return
	local dev
	dev=$(topo_host_if "$1")
	shift
	tc qdisc replace dev "$dev" root netem "$@"
}

# topo_delay PATH MS [JITTER_MS] - delay host->target packets on PATH.
topo_delay() {
	local path=$1 ms=$2 jitter=${3:-}

	topo_netem "$path" delay "${ms}ms" ${jitter:+"${jitter}ms"}
}

# topo_clear PATH - remove netem from PATH. Idempotent.
topo_clear() {
	_topo_check_path "$1" || return
	tc qdisc del dev "$(topo_host_if "$1")" root 2>/dev/null || true
}

# topo_cut PATH - take PATH's link down (packets are dropped; the peer
# loses carrier). topo_restore PATH brings it back and waits for carrier.
topo_cut() {
	_topo_check_path "$1" || return
	ip link set "$(topo_host_if "$1")" down
}

topo_restore() {
	_topo_check_path "$1" || return
	ip link set "$(topo_host_if "$1")" up || return
	_topo_wait_carrier "$(topo_host_if "$1")"
}

# nvmet_setup [PATHS] - load nvmet, nvmet-tcp and null_blk, create the
# subsystem $NVMET_NQN (any host allowed) with $NVMET_NS_COUNT namespaces on
# /dev/nullb0.., and one TCP port per path (default: every path that is up),
# enabled inside the target netns.
nvmet_setup() {
	local n=${1:-$(topo_paths)} i sub ns

	[ "$n" -ge 1 ] 2>/dev/null || _topo_err "nvmet_setup: no paths (run topo_up first)" || return
	modprobe nvmet || return
	modprobe nvmet-tcp || return
	if ! [ -e /sys/module/null_blk ]; then
		modprobe null_blk nr_devices="$NVMET_NS_COUNT" gb=1 memory_backed=1 bs=4096 || return
	fi
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return
	[ -d "$NVMET_CFS" ] || _topo_err "$NVMET_CFS missing" || return

	sub=$NVMET_CFS/subsystems/$NVMET_NQN
	mkdir -p "$sub" || return
	echo 1 >"$sub/attr_allow_any_host" || return
	echo nvfab-nvmet >"$sub/attr_model" 2>/dev/null || true
	for ((i = 1; i <= NVMET_NS_COUNT; i++)); do
		ns=$sub/namespaces/$i
		[ -b "/dev/nullb$((i - 1))" ] || _topo_err "/dev/nullb$((i - 1)) missing (null_blk loaded with fewer devices?)" || return
		mkdir -p "$ns" || return
		echo "/dev/nullb$((i - 1))" >"$ns/device_path" || return
		echo 1 >"$ns/enable" || return
	done
	for ((i = 1; i <= n; i++)); do
		nvmet_add_port "$i" || return
	done
}

# nvmet_add_port PATH - create and enable the TCP port of one path.
nvmet_add_port() {
	_topo_check_path "$1" || return
	local port=$NVMET_CFS/ports/$1

	mkdir -p "$port" || return
	if ! [ -e "$port/subsystems/$NVMET_NQN" ]; then
		echo tcp >"$port/addr_trtype" || return
		echo ipv4 >"$port/addr_adrfam" || return
		topo_tgt_addr "$1" >"$port/addr_traddr" || return
		echo "$NVMET_TRSVCID" >"$port/addr_trsvcid" || return
	fi
	nvmet_port_enable "$1"
}

# nvmet_port_enable PORT / nvmet_port_disable PORT - link the subsystem into
# the port (the port starts listening, in the target netns) or unlink it
# (nvmet drops every connection of that port). Idempotent.
nvmet_port_enable() {
	local port=$NVMET_CFS/ports/$1

	[ -d "$port" ] || _topo_err "no nvmet port $1" || return
	[ -e "$port/subsystems/$NVMET_NQN" ] && return 0
	if [ "$1" = "$NVMET_LOOP_PORT" ]; then
		ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
	else
		topo_tgt_exec ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
	fi
}

nvmet_port_disable() {
	rm -f "$NVMET_CFS/ports/$1/subsystems/$NVMET_NQN" 2>/dev/null || true
}

# nvmet_add_loop_port - an extra loop-transport port ($NVMET_LOOP_PORT) for
# tests that want nvme-loop next to TCP.
nvmet_add_loop_port() {
	local port=$NVMET_CFS/ports/$NVMET_LOOP_PORT

	modprobe nvme-loop || return
	mkdir -p "$port" || return
	[ -e "$port/subsystems/$NVMET_NQN" ] || echo loop >"$port/addr_trtype" || return
	nvmet_port_enable "$NVMET_LOOP_PORT"
}

# nvmet_set_ana PORT STATE - set ANA group 1 of PORT to optimized,
# non-optimized, inaccessible, persistent-loss or change. nvmet sends an
# ANA change AEN to the hosts connected on that port.
nvmet_set_ana() {
	local f=$NVMET_CFS/ports/$1/ana_groups/1/ana_state

	case "${2:-}" in
	optimized | non-optimized | inaccessible | persistent-loss | change) ;;
	*) _topo_err "nvmet_set_ana: bad state '${2:-}'" || return ;;
	esac
	[ -e "$f" ] || _topo_err "no nvmet port $1" || return
	echo "$2" >"$f"
}

# nvmet_teardown [--unload] - remove every nvmet port, subsystem and host
# from configfs; with --unload also unload nvmet, its transports and
# null_blk. Idempotent, for trap handlers: never fails.
nvmet_teardown() {
	local d l

	if [ -d "$NVMET_CFS" ]; then
		for d in "$NVMET_CFS"/ports/*; do
			[ -d "$d" ] || continue
			for l in "$d"/subsystems/* "$d"/referrals/*; do
				if [ -L "$l" ]; then
					rm -f "$l" 2>/dev/null || true
				elif [ -d "$l" ]; then
					rmdir "$l" 2>/dev/null || true
				fi
			done
			for l in "$d"/ana_groups/*; do
				[ -d "$l" ] && [ "${l##*/}" != 1 ] || continue
				rmdir "$l" 2>/dev/null || true
			done
			rmdir "$d" 2>/dev/null || true
		done
		for d in "$NVMET_CFS"/subsystems/*; do
			[ -d "$d" ] || continue
			for l in "$d"/allowed_hosts/*; do
				[ -L "$l" ] || continue
				rm -f "$l" 2>/dev/null || true
			done
			for l in "$d"/namespaces/*; do
				[ -d "$l" ] || continue
				echo 0 2>/dev/null >"$l/enable" || true
				rmdir "$l" 2>/dev/null || true
			done
			rmdir "$d" 2>/dev/null || true
		done
		for d in "$NVMET_CFS"/hosts/*; do
			[ -d "$d" ] || continue
			rmdir "$d" 2>/dev/null || true
		done
	fi
	if [ "${1:-}" = --unload ]; then
		for l in nvme-loop nvmet-tcp nvmet-rdma nvmet null_blk; do
			modprobe -r "$l" 2>/dev/null || true
		done
	fi
	return 0
}

# nvme_kconnect PATH [ARGS...] - connect the in-kernel nvme-tcp host to
# PATH (for side-by-side runs); extra nvme-cli arguments pass through.
nvme_kconnect() {
	_topo_check_path "$1" || return
	local path=$1
	shift
	modprobe nvme-tcp || return
	nvme connect -t tcp -a "$(topo_tgt_addr "$path")" -s "$NVMET_TRSVCID" \
		-w "$(topo_host_addr "$path")" -n "$NVMET_NQN" "$@"
}

# nvme_kdisconnect - disconnect the in-kernel host from $NVMET_NQN.
# Idempotent.
nvme_kdisconnect() {
	command -v nvme >/dev/null || return 0
	[ -e /dev/nvme-fabrics ] || return 0
	nvme disconnect -n "$NVMET_NQN" >/dev/null 2>&1 || true
	return 0
}

# topo_cleanup - everything above, in the right order; for "trap ... EXIT".
topo_cleanup() {
	nvme_kdisconnect
	nvmet_teardown
	topo_down
}
