#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP end to end against the in-kernel nvmet target in its own network
# namespace: connect, sysfs, fio verify (with and without digests),
# nvme-cli passthrough on nvfab's nodes, connect/disconnect loop without
# leaks, and a clean kernel log.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

LOOPS=${NVFAB_CONNECT_LOOPS:-5}
RACE_ROUNDS=${NVFAB_RACE_ROUNDS:-20}
FIO_RUNTIME=${NVFAB_FIO_RUNTIME:-6}

trap nvfab_tcp_cleanup EXIT

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v nvme >/dev/null || ksft_skip_all "nvme-cli missing"
ktap_header
ktap_set_plan 38

fio_verify() { # dev name [extra fio args]
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --allow_file_create=0 --ioengine=libaio --direct=1 \
		--rw=randrw --bsrange=4k-1m --iodepth=8 --size=64m \
		--time_based --runtime="$FIO_RUNTIME" --verify=crc32c \
		--verify_fatal=1 --verify_backlog=64 --do_verify=1 \
		--output-format=terse --terse-version=3 "$@" >"/tmp/fio-$name.out" 2>&1
}

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "target up (nvmet-tcp in netns $TOPO_NS)" test -e "$NVMET_CFS/ports/1/subsystems/$NVMET_NQN"
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp

ktap_check "connect" nvfab_connect ",nr_io_queues=2"
ktap_diag "connect answered: $REPLY_LINE"
C=$CTRL
N=/dev/${C##*/}		# the controller's char device
D2=
head2_ready() { D2=$(nvfab_head_dev "$C" 2) && test -b "$D2"; }
ktap_check "state live" test "$(cat $C/state 2>/dev/null)" = live
ktap_check "transport tcp, subsysnqn matches" \
	test "$(cat $C/transport)/$(cat $C/subsysnqn)" = "tcp/$NVMET_NQN"
ktap_check "queue_count 3 (admin + 2)" test "$(cat $C/queue_count)" = 3
# nvmet allows it (TREQ), so the reads below end with a C2HData SUCCESS
ktap_check "SQ flow control disabled (sqflow_auto)" \
	test "$(cat $C/sqflow)" = disabled
busywait 20000 head2_ready
ktap_check "namespaces 1 and 2: $DEV and $D2" head2_ready
in_subsys() { nvfab_subsys_of "$1" >/dev/null; }
ktap_check "one subsystem, linked to $C" in_subsys "$C"
ktap_check "n1 size is the null_blk's 1 GiB" \
	test "$(cat "/sys/block/${DEV#/dev/}/size")" = 2097152

ktap_check "fio randrw 4k-1m QD8 verify=crc32c" fio_verify "$DEV" plain
ktap_check "fio randrw 4k-64k QD1 verify=crc32c" fio_verify "$DEV" qd1 \
	--iodepth=1 --bsrange=4k-64k --runtime=3
ktap_check "fio randrw 4k-128k QD32 verify=crc32c" fio_verify "$DEV" qd32 \
	--iodepth=32 --bsrange=4k-128k --runtime=3
mkfs_fsck() { mkfs.ext4 -q -F "$1" && fsck.ext4 -n -f "$1" >/dev/null; }
ktap_check "mkfs.ext4 + fsck clean" mkfs_fsck "$D2"

sn=$(nvme id-ctrl "$N" -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["subnqn"])')
ktap_check "nvme id-ctrl ${N} returns the target's SUBNQN" test "$sn" = "$NVMET_NQN"
nsze=$(nvme id-ns "$DEV" -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["nsze"])')
ktap_check "nvme id-ns ${DEV} nsze = 262144 blocks" test "$nsze" = 262144
ktap_check "nvme list-ns ${N} lists 2 namespaces" \
	test "$(nvme list-ns "$N" 2>/dev/null | grep -c .)" = 2
ktap_check "nvme get-feature (number of queues) works" \
	nvme get-feature "$N" -f 7
# AEN: a namespace added on the target appears, removed disappears.
ns3=$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/3
truncate -s 64M /tmp/nvfab-ns3.img
mkdir -p "$ns3" && echo /tmp/nvfab-ns3.img >"$ns3/device_path" && echo 1 >"$ns3/enable"
D3=
head3_ready() { D3=$(nvfab_head_dev "$C" 3) && test -b "$D3"; }
gone_n3() { ! nvfab_head_dev "$C" 3 >/dev/null && ! test -e "$D3"; }
ktap_check "namespace added on the target: AEN rescan adds NSID 3" \
	busywait 30000 head3_ready
ktap_diag "NSID 3 is $D3"
echo 0 >"$ns3/enable"
ktap_check "namespace disabled: AEN rescan removes $D3" busywait 30000 gone_n3
echo 1 >"$ns3/enable"
ktap_check "re-enabled: a second AEN is delivered too" busywait 30000 head3_ready
echo 0 >"$ns3/enable"
busywait 30000 gone_n3
rmdir "$ns3"

ktap_check "reset_controller: back to live" bash -c \
	"echo 1 > $C/reset_controller && test \"\$(cat $C/state)\" = live"

# Timeouts past their limits are refused (ERANGE), never capped.
tmo_limits() {
	local rd lt ff

	rd=$(cat "$C/reconnect_delay") lt=$(cat "$C/ctrl_loss_tmo")
	ff=$(cat "$C/fast_io_fail_tmo")
	! (echo 86401 >"$C/reconnect_delay") 2>/dev/null &&
	! (echo 2147483647 >"$C/ctrl_loss_tmo") 2>/dev/null &&
	! (echo 31536001 >"$C/fast_io_fail_tmo") 2>/dev/null &&
	[ "$(cat "$C/reconnect_delay") $(cat "$C/ctrl_loss_tmo")" = "$rd $lt" ] &&
	[ "$(cat "$C/fast_io_fail_tmo")" = "$ff" ] &&
	echo 86400 >"$C/reconnect_delay" && echo 31536000 >"$C/ctrl_loss_tmo" &&
	[ "$(cat "$C/reconnect_delay") $(cat "$C/ctrl_loss_tmo")" = "86400 31536000" ] &&
	echo "$rd" >"$C/reconnect_delay" && echo "$lt" >"$C/ctrl_loss_tmo"
}
ktap_check "sysfs timeouts past their limits refused, values kept" tmo_limits

# A path is (target, port, source): one target address reached from two
# source addresses of the host is two controllers; the same source again
# is a duplicate, refused with EALREADY before anything goes on the wire.
# (Before nvfab_opts_same_path() the kernel ignored host_traddr and
# refused the second source too.)
SRC2=192.0.2.5
fabrics_write() { # OPTS: one connect; its error message on stdout
	local err rc
	err=$( (exec 3<>/dev/nvfab-fabrics && printf '%s' "$1" >&3 && cat <&3 >/dev/null) 2>&1)
	rc=$?
	echo "$err"
	return $rc
}
path1_opts="transport=tcp,traddr=$(topo_tgt_addr 1),trsvcid=$NVMET_TRSVCID,nqn=$NVMET_NQN"
same_source_refused() {
	local err
	err=$(fabrics_write "$path1_opts,host_traddr=$(topo_host_addr 1)") && return 1
	[[ $err == *"already in progress"* ]] && test "$(nvfab_ctrl_count)" = 1
}
ktap_check "same target and source again: EALREADY, still one controller" same_source_refused
second_source() {
	local d
	ip addr add "$SRC2/28" dev "$(topo_host_if 1)" || return
	fabrics_write "$path1_opts,host_traddr=$SRC2" >/dev/null || return
	busywait 20000 test_ctrl_count 2 || return
	for d in /sys/class/nvfab/nvfab*; do
		grep -qE "host_traddr=$SRC2(,|$)" "$d/address" 2>/dev/null &&
			echo 1 >"$d/delete_controller"
	done
	busywait 30000 test_ctrl_count 1 && ip addr del "$SRC2/28" dev "$(topo_host_if 1)"
}
test_ctrl_count() { test "$(nvfab_ctrl_count)" = "$1"; }
ktap_check "the same target from a second source address: a second controller" second_source

ktap_check "passthrough on $N held open across its deletion: ENODEV" \
	python3 "$(dirname "$0")/ioctl_dead.py" "$N" "$C"
ktap_check "disconnect" nvfab_delete_all
ktap_check "connect with hdr_digest,data_digest" nvfab_connect ",hdr_digest,data_digest"
ktap_check "fio verify with digests" fio_verify "$DEV" digest
# The data digest of a C2HData is computed from the skb, not read back
# from the destination: O_DIRECT reads into a buffer another thread
# keeps writing must not look like corrupted transfers.
scribbled_reads() {
	local m c0
	m=$(dmesg_mark)
	c0=$(basename "$CTRL")
	python3 "$(dirname "$0")/scribble_read.py" "$DEV" 3 || return 1
	if dmesg_has_since "$m" "digest mismatch" || dmesg_has_since "$m" "error recovery"; then
		dmesg_since "$m" | grep -E "digest|recovery" | head -3 | sed 's/^/# /'
		return 1
	fi
	test "$(cat "/sys/class/nvfab/$c0/state")" = live
}
ktap_check "reads into a buffer written meanwhile: no digest error, no recovery" scribbled_reads
nvfab_delete_all

ktap_check "connect with nr_write_queues=1,nr_poll_queues=1" \
	nvfab_connect ",nr_io_queues=1,nr_write_queues=1,nr_poll_queues=1"
qp="$(cat "$CTRL/queue_count")/$(cat "/sys/block/${DEV#/dev/}/queue/io_poll")"
ktap_check "queue_count 4, polling enabled on the disk (got $qp)" test "$qp" = 4/1
ktap_check "fio io_uring hipri (polled) verify" fio_verify "$DEV" poll \
	--ioengine=io_uring --hipri=1 --iodepth=4 --bsrange=4k-64k --runtime=3
nvfab_delete_all

ok=1
for ((i = 0; i < LOOPS; i++)); do
	nvfab_connect "" || { ok=0; ktap_diag "connect $i failed"; break; }
	nvfab_delete_all || { ok=0; ktap_diag "disconnect $i failed"; break; }
done
ktap_check "$LOOPS connect/disconnect rounds" test "$ok" = 1

# Two connects to one path at once: one controller, the other refused
# with EALREADY. The check for a controller on the path and the listing
# of the new one are one critical section; when they were not, both
# could pass the check and connect. RACE_ROUNDS rounds, each a pair of
# writers started together (one I/O queue: a round is a whole connect and
# delete, about 3 s under KASAN, so 20 rounds, not 50).
race_round() {
	local d1 d2 e1 e2 p1 p2 r1=0 r2=0 o="$path1_opts,nr_io_queues=1"
	d1=$(mktemp) d2=$(mktemp)
	fabrics_write "$o" >"$d1" &
	p1=$!
	fabrics_write "$o" >"$d2" &
	p2=$!
	wait "$p1" || r1=1
	wait "$p2" || r2=1
	e1=$(cat "$d1") e2=$(cat "$d2")
	rm -f "$d1" "$d2"
	if [ "$r1$r2" != 01 ] && [ "$r1$r2" != 10 ]; then
		ktap_diag "race $i: exit statuses $r1 $r2, $(nvfab_ctrl_count) controllers: $e1 $e2"
		return 1
	fi
	[[ "$e1$e2" == *"already in progress"* ]] ||
		{ ktap_diag "race $i: the refusal says: $e1$e2"; return 1; }
	test_ctrl_count 1 || { ktap_diag "race $i: $(nvfab_ctrl_count) controllers"; return 1; }
	nvfab_delete_all
}
ok=1
for ((i = 0; i < RACE_ROUNDS; i++)); do
	race_round || { ok=0; nvfab_delete_all; break; }
done
ktap_check "two connects to one path at once, $RACE_ROUNDS times: one controller, one EALREADY" \
	test "$ok" = 1
ktap_check "no controller left, refcnt 0" \
	test "$(nvfab_ctrl_count)/$(nvfab_refcnt nvfab-tcp)" = "0/0"
ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
