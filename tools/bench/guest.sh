#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark payload, run inside a stock-kernel guest by tools/bench/bench.sh:
# nvfab (DKMS modules) and the in-kernel nvme-tcp host, interleaved A/B for
# $BENCH_ROUNDS rounds, against one nvmet-tcp target on null_blk in its own
# network namespace, with the same fio jobs. Writes one JSON line per fio
# run to $OUT/bench.jsonl; report.py turns them into ratios.
set -u
: "${REPO_ROOT:?}" "${OUT:?}"
. "$REPO_ROOT/tools/testing/vm/guest/topology.sh"

ROUNDS=${BENCH_ROUNDS:-3}
RUNTIME=${BENCH_RUNTIME:-5}
RESULTS=$OUT/bench.jsonl
: >"$RESULTS"

cleanup() {
	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] && echo 1 >"$d/delete_controller" 2>/dev/null
	done
	topo_cleanup >/dev/null 2>&1
}
trap cleanup EXIT

log() { echo "bench: $*" >&2; }

mkdir -p /etc/nvme
echo "nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-4908-8706-050403020100" >/etc/nvme/hostnqn
echo "0f0e0d0c-0b0a-4908-8706-050403020100" >/etc/nvme/hostid

topo_up 1 && nvmet_setup 1 || { log "target setup failed"; exit 1; }
modprobe nvfab-tcp || { log "modprobe nvfab-tcp failed"; exit 1; }
modprobe nvme-tcp || { log "modprobe nvme-tcp failed"; exit 1; }
ADDR=$(topo_tgt_addr 1)
SRC=$(topo_host_addr 1)
HOSTNQN=$(cat /etc/nvme/hostnqn)
HOSTID=$(cat /etc/nvme/hostid)

wait_for() { # path, deciseconds
	local i
	for ((i = 0; i < $2; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

connect_nvfab() {
	exec 3<>/dev/nvfab-fabrics || return 1
	printf 'transport=tcp,traddr=%s,trsvcid=4420,host_traddr=%s,nqn=%s,hostnqn=%s,hostid=%s,nr_io_queues=2' \
		"$ADDR" "$SRC" "$NVMET_NQN" "$HOSTNQN" "$HOSTID" >&3 || { exec 3>&-; return 1; }
	local reply
	reply=$(cat <&3)
	exec 3>&-
	reply=${reply#instance=}
	DEV=/dev/nvfab${reply%%,*}n1
	wait_for "$DEV" 200
}

disconnect_nvfab() {
	local d
	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] && echo 1 >"$d/delete_controller"
	done
}

connect_kernel() {
	local i
	nvme connect -t tcp -a "$ADDR" -s 4420 -w "$SRC" -n "$NVMET_NQN" \
		-q "$HOSTNQN" -I "$HOSTID" -i 2 >/dev/null || return 1
	# With native multipath the disk is the subsystem's nvmeXnY (the
	# per-path nvmeXcYnZ has no node); only one such host is connected.
	for ((i = 0; i < 200; i++)); do
		DEV=$(ls /dev/nvme[0-9]*n1 2>/dev/null | grep -v c | head -n1)
		[ -b "$DEV" ] && return 0
		sleep 0.1
	done
	return 1
}

disconnect_kernel() {
	nvme disconnect -n "$NVMET_NQN" >/dev/null
}

# job NAME FIO-ARGS...: one fio run on $DEV, JSON line appended.
job() {
	local name=$1 f=$OUT/fio-$INIT-$ROUND-$1.json
	shift
	fio --name="$name" --filename="$DEV" --ioengine=libaio --direct=1 \
		--time_based --runtime="$RUNTIME" --ramp_time=1 \
		--output-format=json --output="$f" "$@" >/dev/null 2>&1 ||
		{ log "fio $name failed on $DEV"; return 1; }
	python3 - "$INIT" "$ROUND" "$name" "$f" >>"$RESULTS" <<'PY'
import json, sys
init, rnd, name, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
j = json.load(open(path))["jobs"][0]["read"]
print(json.dumps({"init": init, "round": rnd, "job": name,
                  "iops": j["iops"], "bw_kib": j["bw"],
                  "lat_mean_us": j["clat_ns"]["mean"] / 1000,
                  "lat_p99_us": j["clat_ns"]["percentile"]["99.000000"] / 1000}))
PY
}

run_set() {
	job qd1 --rw=randread --bs=4k --iodepth=1 &&
		job qd32 --rw=randread --bs=4k --iodepth=32 &&
		job seq128k --rw=read --bs=128k --iodepth=8
}

for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	order="nvfab kernel"
	[ $((ROUND % 2)) = 0 ] && order="kernel nvfab"
	for INIT in $order; do
		log "round $ROUND: $INIT"
		"connect_$INIT" || { log "connect $INIT failed"; exit 1; }
		run_set || exit 1
		"disconnect_$INIT"
		sleep 1
	done
done
log "done: $(wc -l <"$RESULTS") runs"
