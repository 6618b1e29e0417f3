#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/RDMA end to end on soft RoCE (rdma_rxe) against nvmet-rdma:
# connect through /dev/nvfab-fabrics (transport=rdma), sysfs, nvme-cli
# passthrough, fio verify with in-capsule writes (4 KiB) and keyed SGL data
# blocks (128 KiB, up to 1 MiB), polled queues, reset, duplicate connect,
# connects the target or the CM refuses, device removal under I/O,
# multipath over one tcp and one rdma path, disconnect, unload, and a
# clean kernel log.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/rdma_lib.sh"

FIO_RUNTIME=${NVFAB_FIO_RUNTIME:-5}

trap nvfab_rdma_cleanup EXIT

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v nvme >/dev/null || ksft_skip_all "nvme-cli missing"
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
modprobe -n "$(rdma_provider_module)" 2>/dev/null ||
	ksft_skip_all "no $(rdma_provider_module) module"
modprobe -n nvmet-rdma 2>/dev/null || ksft_skip_all "no nvmet-rdma module"
ktap_header
ktap_set_plan 29

fio_verify() { # dev name [extra fio args]
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --allow_file_create=0 --ioengine=libaio --direct=1 \
		--rw=randrw --bs=4k --iodepth=16 --size=64m \
		--time_based --runtime="$FIO_RUNTIME" --verify=crc32c \
		--verify_fatal=1 --verify_backlog=64 --do_verify=1 \
		--output-format=terse --terse-version=3 "$@" >"/tmp/fio-rdma-$name.out" 2>&1
}

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "$RDMA_PROVIDER device $RDMA_DEV on $RDMA_IF ($RDMA_ADDR)" rdma_up
ktap_check "nvmet-rdma port on $RDMA_ADDR:$NVMET_TRSVCID" rdma_nvmet_port
ktap_check "modules load" nvfab_load nvfab-core nvfab-fabrics nvfab-rdma

ktap_check "connect transport=rdma" rdma_connect ",nr_io_queues=2"
ktap_diag "connect answered: $REPLY_LINE"
C=$CTRL
N=/dev/${C##*/}
ktap_check "state live" test "$(cat "$C/state" 2>/dev/null)" = live
ktap_check "transport rdma, subsysnqn matches" \
	test "$(cat "$C/transport")/$(cat "$C/subsysnqn")" = "rdma/$NVMET_NQN"
ktap_check "queue_count 3 (admin + 2)" test "$(cat "$C/queue_count")" = 3
ktap_check "address names traddr, trsvcid and host_traddr" \
	test "$(cat "$C/address")" = "traddr=$RDMA_ADDR,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_ADDR"
q=/sys/block/${DEV#/dev/}/queue
ktap_diag "limits: max_hw_sectors_kb $(cat "$q/max_hw_sectors_kb"), max_segments $(cat "$q/max_segments"), virt_boundary_mask $(cat "$q/virt_boundary_mask" 2>/dev/null)"
sn=$(nvme id-ctrl "$N" -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["subnqn"])')
ktap_check "nvme id-ctrl $N returns the target's SUBNQN" test "$sn" = "$NVMET_NQN"
ioccsz=$(nvme id-ctrl "$N" -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["ioccsz"])')
ktap_check "IOCCSZ carries $RDMA_INLINE bytes of in-capsule data (got $ioccsz)" \
	test "$ioccsz" = $(((64 + RDMA_INLINE) / 16))

ktap_check "fio 4k randrw QD16 verify (writes in capsule)" fio_verify "$DEV" 4k
ktap_check "fio 128k randrw QD8 verify (keyed SGL, FRWR)" fio_verify "$DEV" 128k \
	--bs=128k --iodepth=8
ktap_check "fio 4k-1m randrw QD4 verify (up to the MR's limit)" fio_verify "$DEV" mixed \
	--bsrange=4k-1m --iodepth=4 --runtime=3

ktap_check "reset_controller: back to live" bash -c \
	"echo 1 > $C/reset_controller && test \"\$(cat $C/state)\" = live"
ktap_check "fio verify after the reset" fio_verify "$DEV" reset --runtime=3

dup_refused() {
	local err
	err=$(rdma_write "$(rdma_opts)") && return 1
	ktap_diag "duplicate connect: $err"
	[[ $err == *"already in progress"* ]] && test "$(nvfab_ctrl_count)" = 1
}
ktap_check "same path again: EALREADY, still one controller" dup_refused

ktap_check "disconnect" nvfab_delete_all

# The CM refuses: nothing listens on port 4421 (the peer's CM rejects).
refused() {
	local m err
	m=$(dmesg_mark)
	err=$(rdma_write "transport=rdma,traddr=$RDMA_ADDR,trsvcid=4421,nqn=$NVMET_NQN") && return 1
	ktap_diag "port 4421: $err"
	# RoCE: the peer's CM rejects; iWARP: the TCP connect is reset
	test "$(nvfab_ctrl_count)" = 0 &&
		{ dmesg_has_since "$m" "connect rejected" ||
			dmesg_has_since "$m" "connect refused"; }
}
ktap_check "no listener: refused, logged, nothing left" refused
# The target refuses the Connect command: an NQN it does not export.
bad_nqn() {
	local err
	err=$(rdma_write "$(rdma_opts | sed "s/nqn=$NVMET_NQN/nqn=nqn.2014-08.org.nvmexpress:nvfab-nosuch/")") && return 1
	ktap_diag "unknown NQN: $err"
	test "$(nvfab_ctrl_count)" = 0
}
ktap_check "unknown subsystem NQN: refused, nothing left" bad_nqn

ktap_check "connect with nr_write_queues=1,nr_poll_queues=1" \
	rdma_connect ",nr_io_queues=1,nr_write_queues=1,nr_poll_queues=1"
qp="$(cat "$CTRL/queue_count")/$(cat "/sys/block/${DEV#/dev/}/queue/io_poll")"
ktap_check "queue_count 4, polling enabled on the disk (got $qp)" test "$qp" = 4/1
ktap_check "fio io_uring hipri (polled) verify" fio_verify "$DEV" poll \
	--ioengine=io_uring --hipri=1 --iodepth=4 --bsrange=4k-64k --runtime=3
nvfab_delete_all

# Multipath across mixed transports: a tcp path (the topology's path 1)
# and an rdma path to one subsystem are two paths of one head.
C_TCP= C_RDMA= S=
two_paths() {
	# insmod (NVFAB_MODDIR) does not load what nvfab-tcp needs
	modprobe -q libcrc32c || true
	nvfab_load nvfab-tcp || return 1
	nvfab_connect_path 1 "" || return 1
	C_TCP=$CTRL
	rdma_connect "" || return 1
	C_RDMA=$CTRL
	S=$(nvfab_subsys_of "$C_TCP") || return 1
	test "$(nvfab_subsys_of "$C_RDMA")" = "$S" &&
		test "$(find "/sys/block/${DEV#/dev/}/multipath/" -mindepth 1 -maxdepth 1 | wc -l)" = 2
}
ktap_check "tcp and rdma paths to one subsystem: one head, two paths" two_paths
both() { echo round-robin >"$S/iopolicy" && fio_verify "$DEV" mixed-both; }
ktap_check "fio verify on the head, round-robin over tcp and rdma" both
tcp_gone() {
	echo 1 >"$C_TCP/delete_controller" && busywait 30000 test ! -e "$C_TCP" &&
		fio_verify "$DEV" mixed-rdma --runtime=3
}
ktap_check "tcp path deleted: fio verify on the head over rdma alone" tcp_gone
nvfab_delete_all

# Device removal under I/O: the ib_client deletes the controller.
removal() {
	local pid
	rdma_connect "" || return 1
	fio_verify "$DEV" removal --runtime=30 &
	pid=$!
	sleep 2
	rdma link delete "$RDMA_DEV" || return 1
	busywait 60000 nvfab_no_ctrl || return 1
	wait "$pid"
	return 0
}
ktap_check "rdma link delete under fio: controller deleted, no hang" removal
ktap_check "no controller left, refcnt 0" \
	test "$(nvfab_ctrl_count)/$(nvfab_refcnt nvfab-rdma)" = "0/0"
ktap_check "modules unload" nvfab_unload nvfab-rdma nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
