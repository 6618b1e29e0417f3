#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of topology.sh inside a guest, with the in-kernel NVMe/TCP host
# as the initiator: bring up PATHS (default 2) paths and nvmet, connect over
# every path, run a short fio read on the multipath namespace, flip ANA, cut
# and restore a path, then disconnect and tear down. Prints KTAP.
#
#   run-vm.sh --kernel stock --out DIR -- tools/testing/vm/guest/topo-smoke.sh [PATHS]
set -euo pipefail
. "$(dirname "$0")/topology.sh"

paths=${1:-2}
step=0
ok() { step=$((step + 1)); echo "ok $step $*"; }
not_ok() { step=$((step + 1)); echo "not ok $step $*"; exit 1; }

trap topo_cleanup EXIT
echo "KTAP version 1"
echo "1..7"

topo_up "$paths" && ok "topo_up $paths" || not_ok "topo_up $paths"
ip -br addr show >&2
ip -n "$TOPO_NS" -br addr show >&2

nvmet_setup && ok nvmet_setup || not_ok nvmet_setup
topo_tgt_exec ss -ltn >&2

for ((i = 1; i <= paths; i++)); do
	nvme_kconnect "$i" >&2 || not_ok "connect path $i"
done
ok "connect $paths paths"
for ((t = 0; t < 50; t++)); do
	[ -b /dev/nvme0n1 ] && break
	sleep 0.2
done
nvme list-subsys >&2 || true
[ -b /dev/nvme0n1 ] || not_ok "no /dev/nvme0n1"
ok "namespace visible"

fio --name=smoke --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=4 --runtime=3 --time_based \
	--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out >&2; not_ok "fio"; }
iops=$(cut -d';' -f8 /tmp/fio.out)
echo "# fio randread 4k QD4: $iops IOPS" >&2
[ "${iops:-0}" -gt 0 ] && ok "fio read ($iops IOPS)" || not_ok "fio read"

# ANA flip and a cut path: I/O must keep flowing through path 2.
if [ "$paths" -ge 2 ]; then
	nvmet_set_ana 1 inaccessible
	topo_delay 2 2
	topo_cut 1
	fio --name=failover --filename=/dev/nvme0n1 --rw=read --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=1 --runtime=2 --time_based \
		--output-format=terse --terse-version=3 >/tmp/fio2.out 2>&1 ||
		{ cat /tmp/fio2.out >&2; not_ok "fio on path 2"; }
	topo_restore 1
	topo_clear 2
	nvmet_set_ana 1 optimized
	ok "ANA flip + cut path 1 ($(cut -d';' -f8 /tmp/fio2.out) IOPS)"
else
	ok "ANA flip # SKIP needs 2 paths"
fi

nvme_kdisconnect
nvmet_teardown
topo_down
[ -z "$(ls /sys/kernel/config/nvmet/ports)" ] && ! ip netns list | grep -q . &&
	ok "teardown" || not_ok "teardown"
