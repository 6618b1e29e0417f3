#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark payload, run inside a stock-kernel guest by tools/bench/bench.sh:
# nvfab (DKMS modules) and the in-kernel nvme-tcp host, interleaved A/B for
# $ROUNDS rounds (the order alternates every round), against one nvmet-tcp
# target on null_blk in its own network namespace, reached over two paths,
# with the same fio jobs (the rdma set: nvfab-rdma and nvme-rdma against an
# nvmet-rdma port on soft RoCE, same subsystem). Writes one JSON line per
# fio run to $OUT/bench.jsonl (tools/bench/fio2jsonl.py); report.py turns
# them into ratios.
#
# Scenario sets (NVFAB_BENCH_SETS, words; default "single mpath"; the
# blocks run in the order single, rdma, tls, peer, disc, auth, mpath in
# each round):
#   single  one controller on path 1: 4k randread QD1 and QD32, QD32 as
#           $QD32_JOBS fio jobs of QD8 (more jobs than vCPUs), 128k seq read;
#           every steady job also measures the guest's CPU per I/O
#   mpath   the five below
#   sym     no delay, QD16 IOPS: round-robin on 1 path (before path 2 is
#           connected) and on 2 paths
#   asym    path 2 delayed by netem ($DELAYS ms), QD16 IOPS per iopolicy
#   lb      as asym with a latency-bound fast path: path 1 +$LB_DELAYS[0] ms,
#           path 2 +$LB_DELAYS[1] ms, so that QD16 on path 1 alone stays
#           below what the guest's CPUs can serve (an undelayed path in
#           this TCG guest is CPU-bound at any queue depth)
#   ana     the longest I/O latency when ANA moves the optimized path:
#           $FLIPS flips in one fio run, one every $FLIP_EVERY s, each
#           making the path that carries the I/O inaccessible and the
#           other optimized; the median flip is the result
#   cut     the longest I/O latency when path 1's link is cut
#   rdma    NVMe/RDMA on soft RoCE (rdma_rxe): one controller of each host
#           over rxe (RDMA_ADDR, nvmet-rdma port RDMA_PORT_ID exporting the
#           same subsystem): 4k randread QD1 and QD32, 128k seq read, each
#           with the guest's CPU per I/O (jobs rdma-qd1, rdma-qd32,
#           rdma-seq128k); not in the default sets
#   peer    peer memory (issue 13), nvfab alone: on one nvfab-rdma
#           controller over rxe (as the rdma set's), the same O_DIRECT I/O
#           by peerio (tools/bench/peerio.c, built by bench.sh) with its
#           buffers in device memory (an mmap of the test provider
#           nvfab-peermem-test's device: the registered-buffer route, the
#           stock kernel has no CONFIG_PCI_P2PDMA) and in host memory (an
#           anonymous mmap), the two interleaved per job and their order
#           alternating every round: 128 KiB seq read and write at QD8,
#           4 KiB randread at QD1 (jobs peer-dev-* and peer-host-*), each
#           with the guest's CPU per I/O and the head's peer_mem/ counters
#           of the run; per round the job peer-counters: the controller's
#           and the head's bounces (must be 0) and the head's peer I/Os in
#           the device and in the host runs (the latter must be 0); not in
#           the default sets
#   disc    asynchronous discovery (issue 12): nvfab-discovery (a configfs
#           entry on port 1) against the in-kernel route (a persistent
#           discovery controller from "nvme discover -p", its DLP-change
#           uevent caught by disc_autoconnect.py, which runs "nvme
#           connect-all" as nvme-cli's udev rule does). Per host and round:
#           $DISC_CHANGES subsystems linked to port 1 one after the other,
#           each timed from the link to the first 4 KiB O_DIRECT read of
#           its block device (job disc-ready: the round's median, and how
#           long the unlink took to remove the controller; the in-kernel
#           route never removes it; nvfab runs the changes a second time
#           with connect_jitter_ms 0, job disc-ready-nojitter, to show what
#           the jitter costs), then $DISC_STORM subsystems linked at
#           once, timed until all have a block device, with nvfab's
#           in-flight peak (job disc-storm); not in the default sets
#   tls     NVMe/TCP over TLS 1.3 with a PSK (as selftests/nvfab/tls.sh):
#           one controller of each host on path 1 to a second nvmet-tcp
#           port (TLS_PORT_ID, trsvcid TLS_TRSVCID) that requires TLS 1.3,
#           exporting the same subsystem; tlshd (NVFAB_TLSHD) in the hosts'
#           and in the target's netns: 4k randread QD1 and QD32, 128k seq
#           read, each with the guest's CPU per I/O (jobs tls-qd1,
#           tls-qd32, tls-seq128k); not in the default sets
#   auth    DH-HMAC-CHAP connect time (as selftests/nvfab/auth.sh):
#           per host and round, $AUTH_CONNECTS connects of one controller
#           with bidirectional authentication (hmac(sha256), ffdhe2048) to
#           a subsystem of its own (AUTH_NQN, only HOSTNQN allowed) behind
#           a port of its own (AUTH_PORT_ID), each timed from the write of
#           the options to the control node until the namespace's block
#           device exists, then deleted (job auth-connect: the round's
#           median, min and max, and the median time the write took);
#           not in the default sets
#
# Environment (bench.sh maps BENCH_* on the host to these; run-vm.sh only
# hands NVFAB_* to the guest):
#   NVFAB_BENCH_ROUNDS (3), NVFAB_BENCH_RUNTIME (5 s per steady fio job),
#   NVFAB_BENCH_SETS, NVFAB_BENCH_DELAYS ("1 30"), NVFAB_BENCH_LB_DELAYS
#   ("8 150": path 1 and path 2 for lb),
#   NVFAB_BENCH_STALL_RUNTIME (9 s; the event comes 3 s after fio starts;
#   the ANA run lasts as long as its flips need), NVFAB_BENCH_FLIPS (8),
#   NVFAB_BENCH_DISC_CHANGES (10: timed subsystem links per host and round
#   in the disc set), NVFAB_BENCH_PEER_KO (the test provider's module,
#   default build/peermem-test-stock/..., checked against uname -r),
#   NVFAB_BENCH_PEERIO (default build/bench-tools/peerio),
#   NVFAB_BENCH_DISC_STORM (200: subsystems linked at
#   once), NVFAB_BENCH_AUTH_CONNECTS (10: timed connects per host and round
#   in the auth set), NVFAB_TLSHD (the tls set: a directory with the tlshd
#   wrapper, from tools/testing/vm/tlshd.sh; bench.sh sets it),
#   NVFAB_BENCH_PIN_CPU (0: the CPU of the single-job runs; empty: not
#   pinned), NVFAB_BENCH_KERNEL_SQFLOW (0; 1: the in-kernel host's tcp
#   connects ask for SQ flow control disabled, as nvfab's do by default),
#   NVFAB_BENCH_TRACE (1: an ftrace of the nvfab and nvme events of each
#   ANA flip and path cut run, kept as $OUT/trace-HOST-ROUND-JOB.txt.gz
#   and read by trace_flip.py; 0: none), NVFAB_BENCH_PROFILE (0; 1: in
#   round 1, one more QD32 and one more 128k seq run per host, in the
#   single, rdma and tls sets, under "perf record -a" with software
#   cpu-clock sampling, reported as $OUT/profile-JOB-HOST.txt).
# Test hooks (test_guest_mock.sh): NVFAB_BENCH_SYS, NVFAB_BENCH_DEV,
# NVFAB_BENCH_ETC, NVFAB_BENCH_PROC_STAT, NVFAB_BENCH_PROC_SNMP and
# NVFAB_BENCH_PROC_KEYS replace /sys, /dev, /etc/nvme, /proc/stat,
# /proc/net/snmp and /proc/keys; sourcing this file
# only defines the functions, running it calls main.
#
# A benchmark, not a test: a failed job or connect is logged and skipped;
# the guest exits 0 when it wrote any result.
set -u
: "${REPO_ROOT:?}" "${OUT:?}"
# shellcheck source-path=SCRIPTDIR source=../testing/vm/guest/topology.sh
. "$REPO_ROOT/tools/testing/vm/guest/topology.sh"

ROUNDS=${NVFAB_BENCH_ROUNDS:-${BENCH_ROUNDS:-3}}
RUNTIME=${NVFAB_BENCH_RUNTIME:-${BENCH_RUNTIME:-5}}
SETS=${NVFAB_BENCH_SETS:-${BENCH_SETS:-single mpath}}
DELAYS=${NVFAB_BENCH_DELAYS:-${BENCH_DELAYS:-1 30}}
read -r -a LB_DELAYS <<<"${NVFAB_BENCH_LB_DELAYS:-${BENCH_LB_DELAYS:-8 150}}"
STALL_RT=${NVFAB_BENCH_STALL_RUNTIME:-9}
STALL_AT=3		# seconds from the fio start to the flip or cut
STALL_QD=4
STALL_WIN_MS=3000	# I/Os issued up to this long after the event count
FLIPS=${NVFAB_BENCH_FLIPS:-8}	# ANA flips per stall run
FLIP_EVERY=2		# seconds from one flip to the next
FLIP_WIN_MS=800		# as STALL_WIN_MS, for each flip
TRACE=${NVFAB_BENCH_TRACE:-1}
TRACEFS=${NVFAB_BENCH_TRACEFS:-/sys/kernel/tracing}
MP_QD=16		# sym and asym
PROFILE=${NVFAB_BENCH_PROFILE:-0}
PROFILE_HZ=499		# perf samples per second and CPU
CPU_EVERY=${NVFAB_BENCH_CPU_EVERY:-0.25}	# seconds between /proc/stat samples
QD32_JOBS=4		# fio jobs of qd32-jobs (4 x QD8); the guest has 2 vCPUs
# The single-job runs (QD1, QD32, 128k seq) run on this CPU (empty: where
# the scheduler puts them). The host's queue for it, the queue's io_cpu and
# nvmet-tcp's io_work for that connection (on the socket's sk_incoming_cpu,
# the CPU the host sends from) then sit on the same CPU in every run and
# for both hosts, instead of wherever fio happened to start.
PIN_CPU=${NVFAB_BENCH_PIN_CPU-0}
# 1: the in-kernel host's tcp connects get --disable-sqflow (nvfab asks for
# SQ flow control disabled by default, the in-kernel host only when told).
KERNEL_SQFLOW=${NVFAB_BENCH_KERNEL_SQFLOW:-0}
# The rdma set, as selftests/nvfab/rdma_lib.sh sets it up: rdma_cm and
# nvmet-rdma work in init_net only, so a veth pair in init_net carries an
# rxe device on RDMA_IF, and the nvmet-rdma port listens on RDMA_ADDR,
# which each host also uses as its source address; rxe loops the traffic
# back. Nothing of it touches the target netns or the tcp ports, and
# cleanup removes it.
RDMA_IF=nvfab-r0
RDMA_PEER_IF=nvfab-r1
RDMA_DEV=nvfab_rxe0
RDMA_ADDR=203.0.113.1
RDMA_PORT_ID=20
RDMA_INLINE=4096	# in-capsule data of the nvmet-rdma port
RDMA_OK=0		# 1 once rdma_setup worked
# The peer set: the test provider (make peermem-test-stock, not installed
# by DKMS) and peerio (bench.sh compiles it; the guest runs the host's
# binaries over its 9p root). Its jobs: name, peerio --rw, --bs, --qd.
PEER_KO=${NVFAB_BENCH_PEER_KO:-$REPO_ROOT/build/peermem-test-stock/tools/testing/peermem-test/nvfab-peermem-test.ko}
PEERIO=${NVFAB_BENCH_PEERIO:-$REPO_ROOT/build/bench-tools/peerio}
PEER_JOBS=("read128k read 131072 8" "write128k write 131072 8" "rand4k randread 4096 1")
PEER_OK=0		# 1 once peer_setup worked
# The disc set: subsystems $DISC_PFX-cK (timed one by one) and -sNNN (the
# storm), each with one namespace on a sparse file under DISC_IMG, made
# once and linked to / unlinked from port 1 (path 1). nvfab's entry is
# $DISC_CFS/bench; its options are the module's defaults (connect
# jitter, max_inflight) unless set here.
DISC_CHANGES=${NVFAB_BENCH_DISC_CHANGES:-10}
DISC_STORM=${NVFAB_BENCH_DISC_STORM:-200}
DISC_PFX=nqn.2014-08.org.nvmexpress:nvfab-bench-disc
DISC_IMG=${NVFAB_BENCH_DISC_IMG:-/tmp/nvfab-bench-disc}
DISC_LIMIT_MS=60000	# a change not usable after this is logged and skipped
DISC_STORM_LIMIT_MS=1200000
DISC_MADE=0		# 1 once the disc subsystems exist on the target
DISC_OK=0		# 1 when also nvfab-discovery loaded
# The tls set, as selftests/nvfab/tls.sh sets it up: a second nvmet-tcp
# port (TLS_PORT_ID) on path 1's target address, trsvcid TLS_TRSVCID,
# exporting $NVMET_NQN and requiring TLS 1.3 (addr_tsas tls1.3, addr_treq
# required: nvmet takes them only while no subsystem is linked); the PSK
# in nvme-keyring's .nvme keyring with the identity "NVMe0R01 $HOSTNQN
# $NVMET_NQN" (both hosts connect as HOSTNQN); one tlshd (NVFAB_TLSHD's
# wrapper, Debian 13's, fetched on the host by tools/testing/vm/tlshd.sh)
# in the hosts' netns and one in the target's, logging to
# $OUT/tlshd-{host,tgt}.log. Set up once before round 1; cleanup stops
# tlshd and removes the key and the port.
TLSHD=${NVFAB_TLSHD:-}
TLS_PORT_ID=30
TLS_TRSVCID=4430
TLS_CONF=$OUT/tlshd.conf
TLS_OK=0		# 1 once tls_setup worked
TLS_PORT_MADE=0
TLSHD_PIDS=
TLS_RING=
TLS_KEY=
# The auth set, as selftests/nvfab/auth.sh sets it up, on a subsystem of
# its own (nvmet authenticates a host only where the subsystem does not
# allow any host: $NVMET_NQN stays open for the other sets) with one
# namespace on a 1 MiB sparse file, behind a port of its own on path 1's
# target address (the disc set's discovery controllers on port 1 must not
# list it). nvmet's host entry for HOSTNQN has the host key and the
# controller key (bidirectional authentication), AUTH_HASH and
# AUTH_DHGROUP. Set up once before round 1; cleanup removes it.
AUTH_CONNECTS=${NVFAB_BENCH_AUTH_CONNECTS:-10}
AUTH_NQN=nqn.2014-08.org.nvmexpress:nvfab-bench-auth
AUTH_PORT_ID=31
AUTH_TRSVCID=4431
AUTH_HASH="hmac(sha256)"
AUTH_DHGROUP=ffdhe2048
AUTH_IMG=${NVFAB_BENCH_AUTH_IMG:-/tmp/nvfab-bench-auth.img}
AUTH_LIMIT_MS=60000	# a connect without its block device after this fails
AUTH_OK=0		# 1 once auth_setup worked
AUTH_KERNEL=0		# 1 when the in-kernel host authenticates too
AUTH_MADE=0		# 1 once auth_setup touched the target
AUTH_HKEY=
AUTH_CKEY=
AUTH_OPTS=
# Same multipath connect options for both hosts; fast_io_fail_tmo unset.
KATO=5
RECONNECT_DELAY=1
# iopolicies per host and scenario.
ANA_NVFAB=(round-robin service-time)
ANA_KERNEL=(numa round-robin)
ASYM_NVFAB=(numa round-robin queue-depth service-time)
ASYM_KERNEL=(numa round-robin queue-depth)

SYS=${NVFAB_BENCH_SYS:-/sys}
DISC_CFS=$SYS/kernel/config/nvfab/discovery
PROC_STAT=${NVFAB_BENCH_PROC_STAT:-/proc/stat}
PROC_SNMP=${NVFAB_BENCH_PROC_SNMP:-/proc/net/snmp}
PROC_KEYS=${NVFAB_BENCH_PROC_KEYS:-/proc/keys}
USER_HZ=100		# /proc/stat's tick; main() asks getconf
DEVD=${NVFAB_BENCH_DEV:-/dev}
PEER_DEVMEM=$DEVD/nvfab-peermem-test
ETC=${NVFAB_BENCH_ETC:-/etc/nvme}
RESULTS=$OUT/bench.jsonl
TOJSON=$REPO_ROOT/tools/bench/fio2jsonl.py
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-4908-8706-050403020100
HOSTID=0f0e0d0c-0b0a-4908-8706-050403020100
WANT=" "

log() { echo "bench: $*" >&2; }

cleanup() {
	local d
	for d in "$SYS"/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] && echo 1 >"$d/delete_controller" 2>/dev/null
	done
	[ -d "$DISC_CFS/bench" ] && rmdir "$DISC_CFS/bench" 2>/dev/null
	[ -z "${DISC_LPID:-}" ] || kill "$DISC_LPID" 2>/dev/null
	[ "$DISC_MADE" = 1 ] && nvme disconnect-all >/dev/null 2>&1
	[ "$DISC_MADE" = 1 ] && disc_target remove c 1 "$DISC_CHANGES" &&
		disc_target remove s 1 "$DISC_STORM"
	tls_teardown >/dev/null 2>&1
	auth_teardown >/dev/null 2>&1
	# nvmet_teardown (in topo_cleanup) removes the rdma port too.
	topo_cleanup >/dev/null 2>&1
	rdma_teardown >/dev/null 2>&1
}

# rdma_setup: the veth pair in init_net, its address, the rxe device on it
# and the nvmet-rdma port exporting $NVMET_NQN (after nvmet_setup).
rdma_setup() {
	local port=$NVMET_CFS/ports/$RDMA_PORT_ID

	modprobe rdma_rxe && modprobe nvmet-rdma || return 1
	ip link add "$RDMA_IF" type veth peer name "$RDMA_PEER_IF" || return 1
	ip addr add "$RDMA_ADDR/24" dev "$RDMA_IF" || return 1
	ip link set "$RDMA_IF" up && ip link set "$RDMA_PEER_IF" up || return 1
	rdma link add "$RDMA_DEV" type rxe netdev "$RDMA_IF" || return 1
	mkdir -p "$port" || return 1
	echo rdma >"$port/addr_trtype" && echo ipv4 >"$port/addr_adrfam" &&
		echo "$RDMA_ADDR" >"$port/addr_traddr" &&
		echo "$NVMET_TRSVCID" >"$port/addr_trsvcid" &&
		echo "$RDMA_INLINE" >"$port/param_inline_data_size" || return 1
	# in init_net (not the target netns): rdma_cm listens there only
	ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
}

# rdma_teardown: the rxe device and the veth pair (after nvmet_teardown,
# which removes the port); unloads nothing. Idempotent.
rdma_teardown() {
	rdma link delete "$RDMA_DEV" 2>/dev/null
	ip link del "$RDMA_IF" 2>/dev/null
	return 0
}

# disc_target make|link|unlink|remove c|s FIRST LAST: the disc set's
# subsystems $DISC_PFX-cK (c) or -sNNN (s), K = FIRST..LAST, on the
# target, in one python3 (a fork per configfs write costs ~0.1 s in TCG,
# and the storm is linked "at once"): made (a namespace on a 1 MiB sparse
# file each, any host), linked to port 1 (listening already), unlinked,
# removed (unlinked first). A link or unlink writes to $DISC_T0F the
# time (epoch ms) just before its first symlink or unlink: the moment of
# the target-side change, without python's start-up (~0.25 s in TCG,
# which both hosts would otherwise carry in every figure).
DISC_T0F=$OUT/disc-t0
disc_target() {
	python3 - "$@" "$DISC_PFX" "$NVMET_CFS" "$DISC_IMG" "$DISC_T0F" <<'PY'
import os
import sys
import time

what, kind, first, last, pfx, cfs, img, t0f = sys.argv[1:9]
t0 = None


def stamp():
    global t0
    if t0 is None:
        t0 = time.time()


def put(path, value):
    with open(path, "w") as f:
        f.write(value)


for i in range(int(first), int(last) + 1):
    nqn = "%s-c%d" % (pfx, i) if kind == "c" else "%s-s%03d" % (pfx, i)
    sub = os.path.join(cfs, "subsystems", nqn)
    link = os.path.join(cfs, "ports", "1", "subsystems", nqn)
    if what == "make":
        os.makedirs(os.path.join(sub, "namespaces", "1"), exist_ok=True)
        put(os.path.join(sub, "attr_allow_any_host"), "1")
        f = os.path.join(img, nqn.rsplit("-", 1)[-1])
        with open(f, "w") as fh:
            fh.truncate(1 << 20)
        put(os.path.join(sub, "namespaces", "1", "device_path"), f)
        put(os.path.join(sub, "namespaces", "1", "enable"), "1")
    elif what == "link":
        if not os.path.islink(link):
            stamp()
            os.symlink(sub, link)
    elif what in ("unlink", "remove"):
        if os.path.islink(link):
            stamp()
            os.unlink(link)
        if what == "remove" and os.path.isdir(sub):
            put(os.path.join(sub, "namespaces", "1", "enable"), "0")
            os.rmdir(os.path.join(sub, "namespaces", "1"))
            os.rmdir(sub)
if t0 is not None:
    put(t0f, "%d\n" % int(t0 * 1000))
PY
}

# disc_change link|unlink c|s FIRST LAST: disc_target, with T0 the time of
# its first change on the target (its start if it did not say).
disc_change() {
	T0=$(now_ms)
	: >"$DISC_T0F"
	disc_target "$@"
	local t
	read -r t 2>/dev/null <"$DISC_T0F" && [ -n "$t" ] && T0=$t
	return 0
}

want() { [[ $WANT == *" $1 "* ]]; }
want_mpath() { want sym || want asym || want lb || want ana || want cut; }

# wait_until DECISECONDS CMD...: poll CMD every 0.1 s.
wait_until() {
	local i n=$1
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# Per-connection state, set by the connect functions:
DEV=		# block device of NSID 1: the multipath head
SUBSYS=		# the subsystem's sysfs directory (iopolicy lives there)
declare -a CT	# CT[path]: controller instance number on that path

# ---- nvfab -----------------------------------------------------------------

# nvfab_add_ctrl PATH OPTS: write OPTS (and the host identity, 2 I/O
# queues) to the control node; sets CT[PATH] to the new controller.
nvfab_add_ctrl() {
	local reply n
	exec 3<>"$DEVD/nvfab-fabrics" || return 1
	printf '%s' "$2,hostnqn=$HOSTNQN,hostid=$HOSTID,nr_io_queues=2" >&3 ||
		{ exec 3>&-; return 1; }
	reply=$(cat <&3)
	exec 3>&-
	n=${reply#instance=}
	n=${n%%,*}
	[[ $n =~ ^[0-9]+$ ]] || { log "nvfab connect over path $1: '$reply'"; return 1; }
	CT[$1]=$n
}

# nvfab_connect_path PATH EXTRA: one controller over PATH; sets CT[PATH].
nvfab_connect_path() {
	local opts
	opts="transport=tcp,traddr=$(topo_tgt_addr "$1"),trsvcid=$NVMET_TRSVCID"
	opts+=",host_traddr=$(topo_host_addr "$1"),nqn=$NVMET_NQN"
	nvfab_add_ctrl "$1" "$opts$2"
}

# nvfab_connect_rdma: one controller over rxe, as CT[1].
nvfab_connect_rdma() {
	nvfab_add_ctrl 1 "transport=rdma,traddr=$RDMA_ADDR,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_ADDR,nqn=$NVMET_NQN"
}

# tls_opts: the tls set's connect options (path 1, the TLS port), the same
# for both hosts.
tls_opts() {
	local o
	o="transport=tcp,traddr=$(topo_tgt_addr 1),trsvcid=$TLS_TRSVCID"
	echo "$o,host_traddr=$(topo_host_addr 1),nqn=$NVMET_NQN,tls"
}

# nvfab_connect_tls: one controller over TLS, as CT[1].
nvfab_connect_tls() { nvfab_add_ctrl 1 "$(tls_opts)"; }

# fabrics_add NODE OPTS: write OPTS, the host identity and 2 I/O queues
# to the control node $DEVD/NODE (nvfab-fabrics or nvme-fabrics: the same
# grammar) and read its reply; INSTANCE: the new controller's number. The
# write returns once the controller is connected (every queue, with its
# authentication or TLS handshake); what it failed with goes to stderr
# (the guest log). Builtins only, no fork: the auth set times it.
fabrics_add() {
	local fd reply=
	INSTANCE=
	exec {fd}<>"$DEVD/$1" || return 1
	if ! printf '%s' "$2,hostnqn=$HOSTNQN,hostid=$HOSTID,nr_io_queues=2" >&"$fd"; then
		exec {fd}>&-
		return 1
	fi
	read -r reply <&"$fd"
	exec {fd}>&-
	INSTANCE=${reply#instance=}
	INSTANCE=${INSTANCE%%,*}
	[[ $INSTANCE =~ ^[0-9]+$ ]] && return 0
	log "$1: reply '$reply'"
	INSTANCE=
	return 1
}

# nvfab_find_head: the subsystem that links controller CT[1], and its head
# of NSID 1 (sets SUBSYS and DEV once the block node exists).
nvfab_find_head() {
	local s h name
	for s in "$SYS"/class/nvfab-subsystem/nvfab-subsys*; do
		[ -e "$s/nvfab${CT[1]}" ] || continue
		for h in "$s"/nvfab*n*; do
			name=${h##*/}
			[[ $name =~ ^nvfab[0-9]+n[0-9]+$ ]] || continue
			[ "$(cat "$h/nsid" 2>/dev/null)" = 1 ] || continue
			[ -b "$DEVD/$name" ] || return 1
			SUBSYS=$s
			DEV=$DEVD/$name
			return 0
		done
	done
	return 1
}

nvfab_ctrl_dir() { echo "$SYS/class/nvfab/nvfab$1"; }

nvfab_ctrls_left() {
	local d
	for d in "$SYS"/class/nvfab/nvfab*; do
		[[ ${d##*/} =~ ^nvfab[0-9]+$ ]] && return 0
	done
	return 1
}

disconnect_nvfab() {
	local d
	for d in "$SYS"/class/nvfab/nvfab*; do
		[ -e "$d/delete_controller" ] && echo 1 >"$d/delete_controller"
	done
	wait_until 300 eval '! nvfab_ctrls_left' || log "nvfab controllers still there after 30 s"
}

# ---- in-kernel host ----------------------------------------------------------

# kernel_ctrls: instance numbers of the in-kernel controllers of $NVMET_NQN.
kernel_ctrls() {
	local c
	for c in "$SYS"/class/nvme/nvme*; do
		[[ ${c##*/} =~ ^nvme[0-9]+$ ]] || continue
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVMET_NQN" ] && echo "${c##*/nvme}"
	done
}

# kernel_connect_to PATH TRANSPORT TRADDR HOST_TRADDR ARGS...: nvme
# connect; sets CT[PATH] to the controller that the connect added (one
# connect at a time).
kernel_connect_to() {
	local p=$1 t=$2 a=$3 w=$4 c before
	shift 4
	before=" $(kernel_ctrls | tr '\n' ' ') "
	nvme connect -t "$t" -a "$a" -s "$NVMET_TRSVCID" -w "$w" -n "$NVMET_NQN" \
		-q "$HOSTNQN" -I "$HOSTID" -i 2 "$@" >/dev/null || return 1
	for c in $(kernel_ctrls); do
		[[ $before == *" $c "* ]] && continue
		CT[p]=$c
		return 0
	done
	log "in-kernel controller of path $p ($t) not found"
	return 1
}

# kernel_connect_path PATH ARGS...: nvme connect over PATH (tcp).
kernel_connect_path() {
	local p=$1
	shift
	[ "$KERNEL_SQFLOW" = 1 ] && set -- "$@" --disable-sqflow
	kernel_connect_to "$p" tcp "$(topo_tgt_addr "$p")" "$(topo_host_addr "$p")" "$@"
}

# kernel_connect_rdma: nvme connect over rxe (nvme-rdma), as CT[1].
kernel_connect_rdma() { kernel_connect_to 1 rdma "$RDMA_ADDR" "$RDMA_ADDR"; }

# kernel_add_ctrl PATH OPTS: as nvfab_add_ctrl, through /dev/nvme-fabrics
# (Debian 12's nvme-cli 2.3 has no --tls), with disable_sqflow where
# KERNEL_SQFLOW=1 (as kernel_connect_path); sets CT[PATH].
kernel_add_ctrl() {
	local o=$2
	[ "$KERNEL_SQFLOW" = 1 ] && o+=,disable_sqflow
	fabrics_add nvme-fabrics "$o" || { log "in-kernel connect over path $1 failed"; return 1; }
	CT[$1]=$INSTANCE
}

# kernel_connect_tls: one controller over TLS, as CT[1].
kernel_connect_tls() { kernel_add_ctrl 1 "$(tls_opts)"; }

# kernel_find_head: with native multipath the disk is the subsystem's
# nvmeXnY (the per-path nvmeXcYnZ has no node); only one such host is
# connected. SUBSYS: the nvme-subsystem with the target's NQN.
kernel_find_head() {
	local s d
	DEV=
	for d in "$DEVD"/nvme[0-9]*n1; do
		[[ ${d##*/} == *c* ]] && continue
		DEV=$d
		break
	done
	[ -b "$DEV" ] || return 1
	for s in "$SYS"/class/nvme-subsystem/nvme-subsys*; do
		if [ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NVMET_NQN" ]; then
			SUBSYS=$s
			return 0
		fi
	done
	return 1
}

kernel_ctrl_dir() { echo "$SYS/class/nvme/nvme$1"; }

kernel_subsys_left() {
	local s
	for s in "$SYS"/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NVMET_NQN" ] && return 0
	done
	return 1
}

disconnect_kernel() {
	nvme disconnect -n "$NVMET_NQN" >/dev/null
	wait_until 300 eval '! kernel_subsys_left' || log "in-kernel subsystem still there after 30 s"
}

# ---- both ----------------------------------------------------------------

# connect PATH single|mpath|rdma|tls: one more controller of $INIT over
# PATH (rdma: over rxe, as path 1; tls: to the TLS port, as path 1).
connect() {
	local opt=
	if [ "$2" = rdma ] || [ "$2" = tls ]; then
		"${INIT}_connect_$2"
	elif [ "$INIT" = nvfab ]; then
		[ "$2" = mpath ] && opt=",keep_alive_tmo=$KATO,reconnect_delay=$RECONNECT_DELAY"
		nvfab_connect_path "$1" "$opt"
	elif [ "$2" = mpath ]; then
		kernel_connect_path "$1" -k "$KATO" -c "$RECONNECT_DELAY"
	else
		kernel_connect_path "$1"
	fi
}

find_head() { "${INIT}_find_head"; }
disconnect() { "disconnect_$INIT"; }
ctrl_dir() { "${INIT}_ctrl_dir" "$1"; }

# Paths of the head and their ANA state as the host sees it: the path
# disks <prefix>c<ctrl>n<head> in /sys/block (the in-kernel host of 6.12
# has no "multipath" directory on its heads; both have the path disks).
npaths() {
	local h=${DEV##*/} l n=0
	for l in "$SYS/block/${h%n*}c"*"n${h##*n}"; do
		[ -e "$l" ] && n=$((n + 1))
	done
	echo "$n"
}
two_paths() { [ "$(npaths)" = 2 ]; }
path_ana() {
	local h=${DEV##*/}
	cat "$SYS/block/${h%n*}c${CT[$1]:-none}n${h##*n}/ana_state" 2>/dev/null
}
ana_is() { [ "$(path_ana 1)" = "$1" ] && [ "$(path_ana 2)" = "$2" ]; }

# set_ana S1 S2: the target's ANA state of ports 1 and 2; waits until the
# host shows it on both paths.
set_ana() {
	nvmet_set_ana 1 "$1" && nvmet_set_ana 2 "$2" || return 1
	wait_until 200 ana_is "$1" "$2" ||
		{ log "$INIT: host shows ANA '$(path_ana 1)' '$(path_ana 2)', not '$1' '$2'"; return 1; }
}

set_policy() {
	echo "$1" >"$SUBSYS/iopolicy" 2>/dev/null
	[ "$(cat "$SUBSYS/iopolicy" 2>/dev/null)" = "$1" ] ||
		{ log "$INIT: iopolicy $1 refused"; return 1; }
}

ctrl_live() { [ "$(cat "$(ctrl_dir "${CT[$1]:-none}")/state" 2>/dev/null)" = live ]; }
both_live() { ctrl_live 1 && ctrl_live 2; }

# record NAME FIO-JSON [fio2jsonl options]: append one result line.
record() {
	local name=$1 f=$2
	shift 2
	python3 "$TOJSON" --init "$INIT" --round "$ROUND" --job "$name" "$@" "$f" \
		>>"$RESULTS" || log "no result for $name ($INIT, round $ROUND)"
}

# tcp_segs: set TCP_SEGS to "tcp INSEGS OUTSEGS", the Tcp counters of
# $PROC_SNMP (this netns: the hosts' side of the topology), or to "" when
# it has none; builtins only, no fork.
tcp_segs() {
	local -a names=() vals=()
	local line i segs_in='' segs_out=''
	TCP_SEGS=
	[ -r "$PROC_SNMP" ] || return 0
	while read -r line; do
		case $line in
		"Tcp: "[A-Za-z]*) read -r -a names <<<"$line" ;;
		"Tcp: "[0-9-]*) read -r -a vals <<<"$line" ;;
		esac
	done <"$PROC_SNMP"
	for i in "${!names[@]}"; do
		case ${names[i]} in
		InSegs) segs_in=${vals[i]-} ;;
		OutSegs) segs_out=${vals[i]-} ;;
		esac
	done
	[ -n "$segs_in" ] && [ -n "$segs_out" ] &&
		TCP_SEGS="tcp $segs_in $segs_out"
	return 0
}

# cpu_sample: one line "EPOCHREALTIME cpu USER NICE SYSTEM IDLE IOWAIT IRQ
# SOFTIRQ STEAL ..." (the all-CPU line of /proc/stat, in USER_HZ ticks),
# then "tcp INSEGS OUTSEGS" (tcp_segs) when there are such counters;
# builtins only, no fork.
cpu_sample() {
	local -a cs
	read -r -a cs <"$PROC_STAT" || return 1
	[ "${cs[0]}" = cpu ] || return 1
	tcp_segs
	echo "${EPOCHREALTIME/,/.} ${cs[*]}${TCP_SEGS:+ $TCP_SEGS}"
}

# cpu_sampler FILE: a cpu_sample every CPU_EVERY seconds until killed
# (read -t on a pipe that never has data waits without a fork; a fork
# costs ~0.1 s in TCG). Stops at once if there is no /proc/stat.
cpu_sampler() {
	local fd
	exec {fd}<> <(:)
	while cpu_sample >>"$1"; do
		read -r -t "$CPU_EVERY" -u "$fd" _
	done
}

# job NAME FIO-ARGS...: one steady fio run on $DEV, RUNTIME seconds after a
# second of ramp. Meanwhile the guest's CPU time is sampled from /proc/stat
# ($OUT/cpu-INIT-ROUND-NAME.txt); fio2jsonl.py takes the samples inside
# fio's steady run (from its end time and runtime in the JSON) and divides
# the CPU time per second of that window by fio's IOPS (CPU per I/O).
job() {
	local name=$1 f=$OUT/fio-$INIT-$ROUND-$1.json c=$OUT/cpu-$INIT-$ROUND-$1.txt
	local spid rc=0
	shift
	rm -f "$f" "$c"
	cpu_sampler "$c" 2>/dev/null &
	spid=$!
	timeout -k 10 $((RUNTIME + 120)) \
		fio --name="$name" --filename="$DEV" --ioengine=libaio --direct=1 \
		--time_based --runtime="$RUNTIME" --ramp_time=1 --lat_percentiles=1 \
		--output-format=json --output="$f" "$@" >/dev/null 2>&1 || rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	[ -s "$c" ] || log "no CPU sample from $PROC_STAT ($name)"
	if [ "$rc" != 0 ]; then
		log "fio $name failed on $DEV ($INIT, round $ROUND)"
		return 1
	fi
	record "$name" "$f" --cpu-stat "$c" --user-hz "$USER_HZ"
}

# profile_job NAME FIO-ARGS...: with PROFILE=1, in round 1 only, one more
# fio run of RUNTIME seconds under "perf record -a" (cpu-clock: TCG has no
# hardware counters; kernel call chains), reported by symbol, flat and by
# caller and inclusive, in $OUT/profile-NAME-$INIT.txt. Not a result row: perf
# costs CPU.
profile_job() {
	local name=$1 data=$OUT/perf-$INIT.data rep=$OUT/profile-$1-$INIT.txt
	shift
	[ "$PROFILE" = 1 ] && [ "$ROUND" = 1 ] || return 0
	command -v perf >/dev/null || { log "no perf: profile skipped"; return 0; }
	# Kernel and module symbols come from /proc/kallsyms, which shows
	# addresses only with kptr_restrict 0 (this is a throwaway guest).
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	perf record -q -a -g -e cpu-clock -F "$PROFILE_HZ" -o "$data" -- \
		fio --name="$name" --filename="$DEV" --ioengine=libaio --direct=1 \
		--time_based --runtime="$RUNTIME" --output-format=terse \
		"$@" >"$OUT/profile-$name-$INIT-fio.txt" 2>&1 ||
		{ log "perf record ($INIT) failed"; return 0; }
	{
		echo "# $INIT, $name: perf record -a -g -e cpu-clock -F $PROFILE_HZ, ${RUNTIME}s"
		echo "# flat, by module and symbol (self time)"
		perf report -i "$data" --kallsyms=/proc/kallsyms --stdio --no-children --sort dso,sym \
			-g none --percent-limit 0.3 2>/dev/null
		echo "# by symbol, inclusive (self and callees)"
		perf report -i "$data" --kallsyms=/proc/kallsyms --stdio --children --sort sym \
			-g none --percent-limit 1 2>/dev/null
		echo "# by symbol with callers (self time)"
		perf report -i "$data" --kallsyms=/proc/kallsyms --stdio --no-children --sort sym \
			-g caller,0.5,callee --percent-limit 2 2>/dev/null
	} >"$rep" || log "perf report ($INIT) failed"
	rm -f "$data"
}

# now_ms: epoch milliseconds without a fork (a fork costs ~0.1 s in TCG).
now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	echo "${t%???}"
}

# trace_start / trace_mark TEXT / trace_save FILE: with TRACE=1, an ftrace
# of the nvfab and nvme events (each host's commands, completions, AENs,
# ANA changes) in a ring large enough for one stall run. Never fatal.
trace_start() {
	[ "$TRACE" = 1 ] || return 0
	[ -e "$TRACEFS/trace" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
	[ -e "$TRACEFS/trace" ] || { log "no tracefs at $TRACEFS"; TRACE=0; return 0; }
	echo 0 >"$TRACEFS/tracing_on"
	echo 32768 >"$TRACEFS/buffer_size_kb"
	: >"$TRACEFS/trace"
	# No task names: their sched_switch hook would be switched with the
	# events, patching __schedule() under the other vCPU (a stale int3
	# once killed a TCG guest there; Documentation/dev-tools/testing.rst).
	[ -e "$TRACEFS/options/record-cmd" ] && echo 0 >"$TRACEFS/options/record-cmd"
	echo 1 >"$TRACEFS/events/nvfab/enable" 2>/dev/null
	echo 1 >"$TRACEFS/events/nvme/enable" 2>/dev/null
	echo 1 >"$TRACEFS/tracing_on"
}
trace_mark() {
	[ "$TRACE" = 1 ] || return 0
	echo "bench: $*" >"$TRACEFS/trace_marker"
}
trace_save() {
	TRACE_FILE=
	[ "$TRACE" = 1 ] || return 0
	echo 0 >"$TRACEFS/tracing_on"
	echo 0 >"$TRACEFS/events/enable"
	gzip -1 <"$TRACEFS/trace" >"$1.gz" && TRACE_FILE=$1.gz
	: >"$TRACEFS/trace"
}

# mark_event K: within stall_job, note event K's time (epoch ms) in its
# $times and in the trace.
mark_event() {
	local t
	t=$(now_ms)
	times+=${times:+,}$t
	trace_mark "event $1 of $name at $t"
}

# stall_job NAME EVENT [N]: 4k randread at QD$STALL_QD; STALL_AT seconds
# in, run the function EVENT; with N (ANA flips), N times FLIP_EVERY
# seconds apart, as "EVENT K" (K = 0..N-1) followed halfway by
# "EVENT_settle K". Every completion goes to a latency log (epoch
# timestamps), and fio2jsonl.py takes for each event the longest latency
# of the I/Os in flight at the event or issued up to the window after it,
# and reports the median event. I/O errors do not stop fio; they are
# counted.
stall_job() {
	local name=$1 ev=$2 n=${3:-0} f=$OUT/fio-$INIT-$ROUND-$1.json
	# the latency log's path is per process: two mock tests at once (make
	# check beside a developer's run) removed each other's
	local lp=/tmp/bench-lat-$$ pid k times='' rt=$STALL_RT win=$STALL_WIN_MS
	if [ "$n" -gt 0 ]; then
		rt=$((STALL_AT + n * FLIP_EVERY + 1))
		win=$FLIP_WIN_MS
	fi
	rm -f "$f" "$lp"_*.log
	trace_start
	timeout -k 10 $((rt + 120)) \
		fio --name="$name" --filename="$DEV" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth="$STALL_QD" \
		--time_based --runtime="$rt" --continue_on_error=all \
		--write_lat_log="$lp" --log_avg_msec=0 --log_unix_epoch=1 \
		--output-format=json --output="$f" >/dev/null 2>&1 &
	pid=$!
	sleep "$STALL_AT"
	if [ "$n" = 0 ]; then
		mark_event 0
		"$ev" || log "$name: event $ev failed"
	fi
	for ((k = 0; k < n; k++)); do
		mark_event "$k"
		"$ev" "$k" || log "$name: event $ev $k failed"
		sleep "$((FLIP_EVERY / 2))"
		"${ev}_settle" "$k" || log "$name: ${ev}_settle $k failed"
		sleep "$((FLIP_EVERY - FLIP_EVERY / 2))"
	done
	wait "$pid" || log "fio $name exited $? on $DEV ($INIT, round $ROUND)"
	trace_save "$OUT/trace-$INIT-$ROUND-$name.txt"
	# the trace's "I/O moved" only means something for an ANA flip
	[ "$n" -gt 0 ] || TRACE_FILE=
	record "$name" "$f" --lat-log "${lp}_lat.1.log" --event-ms "$times" \
		--window-ms "$win" ${TRACE_FILE:+--trace "$TRACE_FILE"}
	rm -f "$lp"_*.log
}

# ev_flip K: the path that carries the I/O (1 for even K, 2 for odd K)
# becomes inaccessible and the other optimized, in that order, as a target
# moves a namespace's optimized port. ev_flip_settle K: the path flipped
# away from becomes non-optimized, so that the next flip is the mirror of
# this one and nothing moves in between.
ev_flip() {
	local from=$(($1 % 2 + 1)) to=$((2 - $1 % 2))
	nvmet_set_ana "$from" inaccessible && nvmet_set_ana "$to" optimized
}
ev_flip_settle() { nvmet_set_ana "$(($1 % 2 + 1))" non-optimized; }
ev_cut() { topo_cut 1; }

# ---- scenario sets -------------------------------------------------------

# Target and links as every connection expects them at its start.
reset_target() {
	topo_clear 2
	topo_restore 1 >/dev/null 2>&1 || log "path 1 link did not come back"
	nvmet_set_ana 1 optimized
	nvmet_set_ana 2 optimized
}

# connect_one single|rdma|tls: CT, DEV and SUBSYS of one new controller of
# $INIT; on failure, logged and disconnected.
connect_one() {
	CT=()
	DEV='' SUBSYS=''
	connect 1 "$1" && wait_until 200 find_head && return 0
	log "connect $INIT ($1) failed"
	disconnect
	return 1
}

block_single() {
	connect_one single || return 1
	local -a pin=()
	[ -n "$PIN_CPU" ] && pin=(--cpus_allowed="$PIN_CPU")
	job qd1 --rw=randread --bs=4k --iodepth=1 "${pin[@]}"
	job qd32 --rw=randread --bs=4k --iodepth=32 "${pin[@]}"
	# QD32 again, as more fio jobs than the guest has CPUs
	job qd32-jobs --rw=randread --bs=4k --iodepth=$((32 / QD32_JOBS)) \
		--numjobs="$QD32_JOBS" --group_reporting
	job seq128k --rw=read --bs=128k --iodepth=8 "${pin[@]}"
	profile_job qd32 --rw=randread --bs=4k --iodepth=32 "${pin[@]}"
	profile_job seq128k --rw=read --bs=128k --iodepth=8 "${pin[@]}"
	disconnect
}

# transport_jobs NAME: the single-path jobs of a transport's set (pinned
# as those of block_single), named NAME-qd1, NAME-qd32, NAME-seq128k, on
# the controller connect_one NAME made; disconnects it.
transport_jobs() {
	local -a pin=()
	[ -n "$PIN_CPU" ] && pin=(--cpus_allowed="$PIN_CPU")
	job "$1"-qd1 --rw=randread --bs=4k --iodepth=1 "${pin[@]}"
	job "$1"-qd32 --rw=randread --bs=4k --iodepth=32 "${pin[@]}"
	job "$1"-seq128k --rw=read --bs=128k --iodepth=8 "${pin[@]}"
	profile_job "$1"-qd32 --rw=randread --bs=4k --iodepth=32 "${pin[@]}"
	profile_job "$1"-seq128k --rw=read --bs=128k --iodepth=8 "${pin[@]}"
	disconnect
}

# block_rdma: the rdma set, the single-path jobs over rxe.
block_rdma() {
	[ "$RDMA_OK" = 1 ] || return 1	# main logged why
	connect_one rdma || return 1
	transport_jobs rdma
}

# ---- the tls set -------------------------------------------------------------

# tls_port_setup: nvmet port TLS_PORT_ID (TLS 1.3 required), enabled in
# the target netns (after nvmet_setup).
tls_port_setup() {
	local port=$NVMET_CFS/ports/$TLS_PORT_ID
	mkdir -p "$port" || return 1
	echo tcp >"$port/addr_trtype" && echo ipv4 >"$port/addr_adrfam" &&
		topo_tgt_addr 1 >"$port/addr_traddr" &&
		echo "$TLS_TRSVCID" >"$port/addr_trsvcid" || return 1
	[ -e "$port/addr_tsas" ] ||
		{ log "tls: nvmet has no addr_tsas (CONFIG_NVME_TARGET_TCP_TLS)"; return 1; }
	# only while the port has no subsystem: linked after
	if ! { echo tls1.3 >"$port/addr_tsas" && echo required >"$port/addr_treq" &&
		grep -q '^required' "$port/addr_treq"; }; then
		log "tls: nvmet refused TLS 1.3 required on port $TLS_PORT_ID"
		return 1
	fi
	nvmet_port_enable "$TLS_PORT_ID"
}

# tls_port_remove: the port, unlinked first. Idempotent.
tls_port_remove() {
	local port=$NVMET_CFS/ports/$TLS_PORT_ID
	[ -d "$port" ] || return 0
	rm -f "$port/subsystems/$NVMET_NQN"
	rmdir "$port"
}

# tls_psk: a random PSK for HOSTNQN and $NVMET_NQN in the .nvme keyring
# (nvme-keyring's, loaded with nvme-tcp; both sides find it there).
tls_psk() {
	local ring
	ring=$(awk '$8 == "keyring" && $9 == ".nvme:" { print $1; exit }' "$PROC_KEYS" 2>/dev/null)
	[[ $ring =~ ^[0-9a-f]+$ ]] ||
		{ log "tls: no .nvme keyring in $PROC_KEYS (nvme-keyring not loaded?)"; return 1; }
	TLS_RING=$((16#$ring))
	TLS_KEY=$(head -c 32 /dev/urandom | keyctl padd psk "NVMe0R01 $HOSTNQN $NVMET_NQN" "$TLS_RING")
	[[ $TLS_KEY =~ ^[0-9]+$ ]] || { log "tls: keyctl padd psk failed"; TLS_KEY=; return 1; }
}

# tlshd_start: one tlshd in the hosts' netns, one in the target's (as
# tls.sh does); waits until both logged their start, then 1 s (they
# register with the handshake netlink family right after that line).
tlshd_start() {
	local i p hlog=$OUT/tlshd-host.log tlog=$OUT/tlshd-tgt.log
	printf '[debug]\nloglevel=0\ntls=0\nnl=0\n[authenticate]\nkeyrings=.nvme\n' >"$TLS_CONF" ||
		return 1
	: >"$hlog"
	: >"$tlog"
	"$TLSHD/tlshd" -c "$TLS_CONF" -s >>"$hlog" 2>&1 &
	TLSHD_PIDS+=" $!"
	topo_tgt_exec "$TLSHD/tlshd" -c "$TLS_CONF" -s >>"$tlog" 2>&1 &
	TLSHD_PIDS+=" $!"
	for ((i = 0; i < 200; i++)); do
		grep -q "Built from" "$hlog" && grep -q "Built from" "$tlog" && break
		disc_tick 0.1
	done
	[ "$i" -lt 200 ] || { log "tls: tlshd did not start in 20 s (see $hlog, $tlog)"; return 1; }
	sleep 1
	for p in $TLSHD_PIDS; do
		kill -0 "$p" 2>/dev/null || { log "tls: tlshd exited (see $hlog, $tlog)"; return 1; }
	done
}

tlshd_stop() {
	local p
	for p in $TLSHD_PIDS; do kill "$p" 2>/dev/null; done
	for p in $TLSHD_PIDS; do wait "$p" 2>/dev/null; done
	TLSHD_PIDS=
}

# tls_setup: the tls set's port, PSK and tlshd (after nvmet_setup and
# modprobe nvme-tcp, which loads nvme-keyring).
tls_setup() {
	if [ -z "$TLSHD" ] || [ ! -x "$TLSHD/tlshd" ]; then
		log "tls: no tlshd (NVFAB_TLSHD='$TLSHD'; bench.sh fetches it with tools/testing/vm/tlshd.sh)"
		return 1
	fi
	command -v keyctl >/dev/null ||
		{ log "tls: no keyctl (keyutils; tools/testing/vm/setup.sh installs it)"; return 1; }
	TLS_PORT_MADE=1
	tls_port_setup || { log "tls: nvmet port $TLS_PORT_ID not set up"; return 1; }
	tls_psk && tlshd_start
}

# tls_teardown: tlshd stopped, the PSK and the port removed. Idempotent.
tls_teardown() {
	tlshd_stop
	[ -z "$TLS_KEY" ] || keyctl unlink "$TLS_KEY" "$TLS_RING" >/dev/null 2>&1
	TLS_KEY=
	[ "$TLS_PORT_MADE" = 1 ] && tls_port_remove
	TLS_PORT_MADE=0
	return 0
}

# block_tls: the tls set, the single-path jobs over TLS.
block_tls() {
	[ "$TLS_OK" = 1 ] || return 1	# main logged why
	connect_one tls || return 1
	transport_jobs tls
}

# peer_setup: nvfab-peermem and the test provider on the ivshmem device
# (after rdma_setup and modprobe nvfab-rdma); nvfab-rdma must map requests
# through nvfab-peermem.
peer_setup() {
	local deps
	[ -x "$PEERIO" ] || { log "peer: no $PEERIO (bench.sh builds it)"; return 1; }
	[ "$(modinfo -F vermagic "$PEER_KO" 2>/dev/null | cut -d' ' -f1)" = "$(uname -r)" ] ||
		{ log "peer: no $PEER_KO for $(uname -r) (make peermem-test-stock)"; return 1; }
	deps=$(modinfo -F depends nvfab-rdma 2>/dev/null)
	[[ ,$deps, == *,nvfab-peermem,* ]] ||
		{ log "peer: nvfab-rdma does not map requests through nvfab-peermem"; return 1; }
	modprobe nvfab-peermem || { log "peer: modprobe nvfab-peermem failed"; return 1; }
	[ -d "$SYS/module/nvfab_peermem_test" ] || insmod "$PEER_KO" ||
		{ log "peer: insmod $PEER_KO failed"; return 1; }
	wait_until 50 test -c "$PEER_DEVMEM" ||
		{ log "peer: no $PEER_DEVMEM (no ivshmem device bound?)"; return 1; }
}

# peer_ctr DIR NAME: a peer_mem/ counter (0 if unreadable: logged once
# per block by block_peer).
peer_ctr() {
	local v
	read -r v 2>/dev/null <"$1/$2" && [[ $v =~ ^[0-9]+$ ]] || v=0
	echo "$v"
}

# peer_job JOB RW BS QD MEM: one peerio run (MEM dev or host) on $DEV,
# RUNTIME seconds after a second of ramp, with the CPU samples of job()
# and the head's and the controller's peer_mem/ counters around it
# (PEER_HPM, PEER_CPM, set by block_peer); adds the head's peer I/Os to
# PEER_IOS_dev or PEER_IOS_host.
peer_job() {
	local job=$1 rw=$2 bs=$3 qd=$4 mem=$5 name=peer-$5-$1
	local f=$OUT/fio-$INIT-$ROUND-$name.json c=$OUT/cpu-$INIT-$ROUND-$name.txt
	local spid rc=0 ios0 bytes0 b0 ios bytes b
	rm -f "$f" "$c"
	ios0=$(peer_ctr "$PEER_HPM" ios) bytes0=$(peer_ctr "$PEER_HPM" bytes)
	b0=$(($(peer_ctr "$PEER_HPM" bounces) + $(peer_ctr "$PEER_CPM" bounces)))
	cpu_sampler "$c" 2>/dev/null &
	spid=$!
	timeout -k 10 $((RUNTIME + 120)) \
		"$PEERIO" --disk "$DEV" --mem "${mem/dev/device}" --rw "$rw" \
		--bs "$bs" --qd "$qd" --runtime "$RUNTIME" --ramp 1 \
		--cpu "$PIN_CPU" --devmem "$PEER_DEVMEM" --out "$f" \
		2>>"$OUT/peerio.log" || rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	ios=$(($(peer_ctr "$PEER_HPM" ios) - ios0))
	bytes=$(($(peer_ctr "$PEER_HPM" bytes) - bytes0))
	b=$(($(peer_ctr "$PEER_HPM" bounces) + $(peer_ctr "$PEER_CPM" bounces) - b0))
	if [ "$mem" = dev ]; then
		PEER_IOS_dev=$((PEER_IOS_dev + ios))
	else
		PEER_IOS_host=$((PEER_IOS_host + ios))
	fi
	[ -s "$c" ] || log "no CPU sample from $PROC_STAT ($name)"
	if [ "$rc" != 0 ]; then
		log "peerio $name failed on $DEV (round $ROUND; see $OUT/peerio.log)"
		return 1
	fi
	record "$name" "$f" --cpu-stat "$c" --user-hz "$USER_HZ" \
		--set "peer_ios=$ios" --set "peer_bytes=$bytes" --set "bounces=$b"
}

# block_peer: the peer set (nvfab only): per job, device memory and host
# memory one after the other (device first in odd rounds), then the
# round's counters (job peer-counters).
block_peer() {
	local j mem order="dev host" rw bs qd job
	local PEER_HPM PEER_CPM PEER_IOS_dev=0 PEER_IOS_host=0
	[ "$PEER_OK" = 1 ] || return 1	# main logged why
	connect_one rdma || return 1
	PEER_HPM=$SYS/block/${DEV##*/}/peer_mem
	PEER_CPM=$(ctrl_dir "${CT[1]}")/peer_mem
	if ! { [ -r "$PEER_HPM/ios" ] && [ -r "$PEER_CPM/bounces" ]; }; then
		log "peer: no peer_mem/ counters in $PEER_HPM or $PEER_CPM"
	fi
	[ $((ROUND % 2)) = 0 ] && order="host dev"
	for j in "${PEER_JOBS[@]}"; do
		read -r job rw bs qd <<<"$j"
		for mem in $order; do
			peer_job "$job" "$rw" "$bs" "$qd" "$mem"
		done
	done
	disc_record peer-counters \
		"bounces=$(($(peer_ctr "$PEER_HPM" bounces) + $(peer_ctr "$PEER_CPM" bounces)))" \
		"dev_peer_ios=$PEER_IOS_dev" "host_peer_ios=$PEER_IOS_host" \
		"map_failures=$(($(peer_ctr "$PEER_HPM" map_failures) + $(peer_ctr "$PEER_CPM" map_failures)))" \
		"unreachable_skips=$(peer_ctr "$PEER_CPM" unreachable_skips)"
	disconnect
}

run_sym1() {
	set_policy round-robin && job sym1 --rw=randread --bs=4k --iodepth=$MP_QD
}

run_sym2() {
	set_policy round-robin && job sym2 --rw=randread --bs=4k --iodepth=$MP_QD
}

run_asym() {
	local d pol
	local -a pols=("${ASYM_NVFAB[@]}")
	[ "$INIT" = kernel ] && pols=("${ASYM_KERNEL[@]}")
	for d in $DELAYS; do
		topo_delay 2 "$d" || { log "netem on path 2 failed"; continue; }
		for pol in "${pols[@]}"; do
			set_policy "$pol" &&
				job "asym$d-$pol" --rw=randread --bs=4k --iodepth=$MP_QD
		done
	done
	topo_clear 2
}

run_lb() {
	local pol
	local -a pols=("${ASYM_NVFAB[@]}")
	[ "$INIT" = kernel ] && pols=("${ASYM_KERNEL[@]}")
	if topo_delay 1 "${LB_DELAYS[0]}" && topo_delay 2 "${LB_DELAYS[1]}"; then
		for pol in "${pols[@]}"; do
			set_policy "$pol" &&
				job "lb-$pol" --rw=randread --bs=4k --iodepth=$MP_QD
		done
	else
		log "netem on paths 1 and 2 failed"
	fi
	topo_clear 1
	topo_clear 2
}

run_ana() {
	local pol
	local -a pols=("${ANA_NVFAB[@]}")
	[ "$INIT" = kernel ] && pols=("${ANA_KERNEL[@]}")
	for pol in "${pols[@]}"; do
		set_ana optimized non-optimized && set_policy "$pol" &&
			stall_job "ana-$pol" ev_flip "$FLIPS"
	done
	set_ana optimized optimized
}

run_cut() {
	set_ana optimized optimized && set_policy round-robin &&
		stall_job cut-round-robin ev_cut
	topo_restore 1 || log "topo_restore 1 failed"
	wait_until 900 both_live ||
		log "$INIT: controllers not live 90 s after the link came back"
	wait_until 200 ana_is optimized optimized ||
		log "$INIT: paths not both optimized after the cut"
}

block_mpath() {
	CT=()
	DEV='' SUBSYS=''
	if ! { connect 1 mpath && wait_until 200 find_head; }; then
		log "connect $INIT (mpath, path 1) failed"
		disconnect
		return 1
	fi
	want sym && run_sym1
	if ! { connect 2 mpath && wait_until 200 two_paths; }; then
		log "connect $INIT (mpath, path 2) failed: $(npaths) paths"
		disconnect
		return 1
	fi
	wait_until 200 both_live || log "$INIT: controllers not both live"
	want sym && run_sym2
	want asym && run_asym
	want lb && run_lb
	want ana && run_ana
	# Last: a controller that does not come back must not spoil the rest.
	want cut && run_cut
	disconnect
}

# ---- the disc set ------------------------------------------------------------

DISC_FD=
DISC_LPID=
# disc_tick SECONDS: sleep without a fork (read -t on a pipe nobody
# writes to).
disc_tick() {
	[ -n "$DISC_FD" ] || exec {DISC_FD}<> <(:)
	read -r -t "$1" -u "$DISC_FD" _ 2>/dev/null || :
}

# disc_dev CLASS PREFIX NQN: DEV = the node of NQN's namespace 1 (its
# multipath head) once it exists; CLASS nvfab or nvme (sysfs class
# CLASS-subsystem, heads PREFIX*n*). Builtins only.
disc_dev() {
	local s h v
	for s in "$SYS/class/$1-subsystem/$1-subsys"*; do
		read -r v 2>/dev/null <"$s/subsysnqn" || continue
		[ "$v" = "$3" ] || continue
		for h in "$s/$2"*n*; do
			read -r v 2>/dev/null <"$h/nsid" || continue
			[ "$v" = 1 ] && [ -b "$DEVD/${h##*/}" ] &&
				{ DEV=$DEVD/${h##*/}; return 0; }
		done
	done
	return 1
}
disc_dev_nvfab() { disc_dev nvfab nvfab "$1"; }
disc_dev_kernel() { disc_dev nvme nvme "$1"; }

# disc_usable NQN: NQN's block device exists and its first 4 KiB read
# with O_DIRECT succeeds.
disc_usable() {
	"disc_dev_$INIT" "$1" &&
		dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
}

# disc_ctrl_of NQN: an nvfab controller of NQN exists.
disc_ctrl_of() {
	local c v
	for c in "$SYS"/class/nvfab/nvfab*; do
		read -r v 2>/dev/null <"$c/subsysnqn" || continue
		[ "$v" = "$1" ] && return 0
	done
	return 1
}
disc_no_ctrl() { ! disc_ctrl_of "$1"; }

# disc_wait LIMIT_MS CMD...: run CMD every 20 ms until it succeeds; WAITED
# = ms from T0 (epoch ms, set by the caller) to that success.
disc_wait() {
	local limit=$1 t
	shift
	while :; do
		if "$@"; then
			t=$(now_ms)
			WAITED=$((t - T0))
			return 0
		fi
		t=$(now_ms)
		[ $((t - T0)) -lt "$limit" ] || return 1
		disc_tick 0.02
	done
}

# disc_count PREFIX: STORM_UP = storm subsystems with a block device.
disc_count() {
	local s h v cls=nvfab pfx=nvfab
	[ "$INIT" = kernel ] && cls=nvme pfx=nvme
	STORM_UP=0
	for s in "$SYS/class/$cls-subsystem/$cls-subsys"*; do
		read -r v 2>/dev/null <"$s/subsysnqn" || continue
		[[ $v == "$DISC_PFX"-s* ]] || continue
		for h in "$s/$pfx"*n*; do
			[ -b "$DEVD/${h##*/}" ] && { STORM_UP=$((STORM_UP + 1)); break; }
		done
	done
}
storm_all_up() { disc_count; [ "$STORM_UP" = "$DISC_STORM" ]; }
storm_none() {
	local c v
	for c in "$SYS"/class/nvfab/nvfab*; do
		read -r v 2>/dev/null <"$c/subsysnqn" || continue
		[[ $v == "$DISC_PFX"-s* ]] && return 1
	done
	return 0
}

# disc_start_nvfab / disc_start_kernel: the host follows port 1's
# discovery controller. nvfab: a configfs entry, live. In-kernel: a
# persistent discovery controller (nvme discover -p) and the uevent
# listener that runs connect-all (disc_autoconnect.py).
disc_start_nvfab() {
	local e=$DISC_CFS/bench
	mkdir "$e" && echo tcp >"$e/transport" && topo_tgt_addr 1 >"$e/traddr" &&
		echo "$NVMET_TRSVCID" >"$e/trsvcid" && topo_host_addr 1 >"$e/host_traddr" &&
		echo "$HOSTNQN" >"$e/hostnqn" && echo "$HOSTID" >"$e/hostid" &&
		echo nr_io_queues=1 >"$e/connect_opts" && echo 1 >"$e/enable" || return 1
	wait_until 300 disc_entry_live ||
		{ log "nvfab discovery entry not live: $(cat "$e/state" 2>/dev/null)"; return 1; }
}
disc_entry_live() {
	local st
	read -r st 2>/dev/null <"$DISC_CFS/bench/state" && [ "$st" = live ]
}
# disc_listen: disc_autoconnect.py in the background (DISC_LPID), bound.
disc_listen() {
	local f=$OUT/disc-listener-$ROUND
	rm -f "$f.ready"
	python3 "$REPO_ROOT/tools/bench/disc_autoconnect.py" "$f.ready" "$f.log" &
	DISC_LPID=$!
	wait_until 300 test -e "$f.ready"
}
disc_start_kernel() {
	disc_listen || { log "disc_autoconnect.py not ready"; return 1; }
	nvme discover -p -t tcp -a "$(topo_tgt_addr 1)" -s "$NVMET_TRSVCID" \
		-w "$(topo_host_addr 1)" -q "$HOSTNQN" -I "$HOSTID" >/dev/null ||
		{ log "nvme discover -p failed"; return 1; }
}
disc_stop_nvfab() {
	rmdir "$DISC_CFS/bench" 2>/dev/null
	disconnect_nvfab
}
disc_stop_kernel() {
	[ -z "$DISC_LPID" ] || { kill "$DISC_LPID" 2>/dev/null; wait "$DISC_LPID" 2>/dev/null; }
	DISC_LPID=
	nvme disconnect-all >/dev/null 2>&1
}

# disc_record JOB KEY=VALUE...: one bench.jsonl line. VALUE: a number, a
# word, or empty (null); a KEY ending in _all takes a list "a,b,c" of ms,
# and its median goes to KEY with _ms for _all (ready_all -> ready_ms).
disc_record() {
	python3 - "$INIT" "$ROUND" "$@" >>"$RESULTS" <<'PY' || log "no result for $1 ($INIT, round $ROUND)"
import json
import statistics
import sys

init, rnd, job = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rec = {"init": init, "round": rnd, "job": job}
for kv in sys.argv[4:]:
    k, _, v = kv.partition("=")
    if k.endswith("_all"):
        vals = [float(x) for x in v.split(",") if x]
        rec[k] = vals
        rec[k[:-4] + "_ms"] = statistics.median(vals) if vals else None
    elif v == "":
        rec[k] = None
    else:
        try:
            rec[k] = int(v)
        except ValueError:
            rec[k] = v
print(json.dumps(rec))
PY
}

# disc_changes: DISC_CHANGES links of the -cK subsystems to port 1, each
# timed until its block device is usable, then unlinked (nvfab: timed
# until its controller is gone). READY, REMOVE: comma lists of ms; FAILS;
# KEPT (in-kernel: 1 if a controller outlived its unlink).
disc_changes() {
	local k nqn
	READY='' REMOVE='' FAILS=0
	for ((k = 1; k <= DISC_CHANGES; k++)); do
		nqn=$DISC_PFX-c$k
		disc_change link c "$k" "$k"
		if disc_wait "$DISC_LIMIT_MS" disc_usable "$nqn"; then
			READY+="${READY:+,}$WAITED"
		else
			log "disc: $INIT: $nqn not usable ${DISC_LIMIT_MS} ms after its link"
			FAILS=$((FAILS + 1))
		fi
		disc_change unlink c "$k" "$k"
		if [ "$INIT" = nvfab ]; then
			if disc_wait "$DISC_LIMIT_MS" disc_no_ctrl "$nqn"; then
				REMOVE+="${REMOVE:+,}$WAITED"
			else
				log "disc: nvfab kept $nqn's controller ${DISC_LIMIT_MS} ms after the unlink"
			fi
		else
			# nothing on this route removes it (the controller
			# reconnects until ctrl_loss_tmo): checked once, 3 s on
			[ "$k" = 1 ] && { disc_tick 3; disc_dev_kernel "$nqn" && KEPT=1 || KEPT=0; }
			nvme disconnect -n "$nqn" >/dev/null 2>&1
		fi
	done
}

block_disc() {
	local storm_ms='' storm_rm_ms='' peak='' maxin='' jitter=''
	local jp=$SYS/module/nvfab_discovery/parameters/connect_jitter_ms
	local READY REMOVE FAILS KEPT=''
	[ "$DISC_OK" = 1 ] || return 1	# main logged why
	if ! "disc_start_$INIT"; then
		log "disc: $INIT could not follow port 1's discovery controller"
		"disc_stop_$INIT"
		return 1
	fi
	disc_changes
	if [ "$INIT" = nvfab ]; then
		read -r jitter 2>/dev/null <"$jp"
		disc_record disc-ready "ready_all=$READY" "remove_all=$REMOVE" \
			"failed=$FAILS" "connect_jitter_ms=$jitter"
		# The same changes without the connect jitter (a random
		# 0..connect_jitter_ms before each connect, there against
		# herds of hosts): what the rest of the route takes.
		if [ -n "$jitter" ] && echo 0 >"$jp"; then
			disc_changes
			echo "$jitter" >"$jp"
			disc_record disc-ready-nojitter "ready_all=$READY" \
				"remove_all=$REMOVE" "failed=$FAILS" "connect_jitter_ms=0"
		fi
	else
		disc_record disc-ready "ready_all=$READY" "remove_all=" \
			"failed=$FAILS" "kept_after_unlink=$KEPT"
	fi

	disc_change link s 1 "$DISC_STORM"
	if disc_wait "$DISC_STORM_LIMIT_MS" storm_all_up; then
		storm_ms=$WAITED
	else
		log "disc: $INIT: $STORM_UP of $DISC_STORM storm subsystems up after ${DISC_STORM_LIMIT_MS} ms"
	fi
	if [ "$INIT" = nvfab ]; then
		peak=$(sed -n 's/.*inflight_peak=\([0-9]*\).*/\1/p' "$DISC_CFS/bench/stats" 2>/dev/null)
		read -r maxin 2>/dev/null <"$DISC_CFS/bench/max_inflight"
	fi
	disc_change unlink s 1 "$DISC_STORM"
	if [ "$INIT" = nvfab ] && disc_wait "$DISC_STORM_LIMIT_MS" storm_none; then
		storm_rm_ms=$WAITED
	fi
	disc_count
	disc_record disc-storm "n_subsys=$DISC_STORM" "storm_ms=$storm_ms" \
		"inflight_peak=$peak" "max_inflight=$maxin" "storm_remove_ms=$storm_rm_ms"
	"disc_stop_$INIT"
}

# ---- the auth set ------------------------------------------------------------

# auth_gen_key NQN: a DHHC-1 secret from nvme-cli, transformed with NQN
# (--hmac=1: SHA-256), as auth.sh makes them.
auth_gen_key() {
	nvme gen-dhchap-key --hmac=1 --nqn="$1" 2>/dev/null | grep -m1 '^DHHC-1:'
}

# auth_target: on nvmet, the host entry of HOSTNQN with both keys, the
# hash and the DH group, and AUTH_NQN (that host only, one namespace on a
# sparse file) linked to port AUTH_PORT_ID, enabled in the target netns.
auth_target() {
	local h=$NVMET_CFS/hosts/$HOSTNQN s=$NVMET_CFS/subsystems/$AUTH_NQN
	local p=$NVMET_CFS/ports/$AUTH_PORT_ID
	# nvmet's configfs takes a DH group only when its kpp is found, and
	# the ffdhe templates come from the dh module, which has no alias of
	# theirs (auth.sh): where it is a module, load it.
	modprobe dh_generic 2>/dev/null
	mkdir -p "$h" || return 1
	[ -e "$h/dhchap_key" ] ||
		{ log "auth: nvmet has no DH-HMAC-CHAP (CONFIG_NVME_TARGET_AUTH)"; return 1; }
	echo "$AUTH_HKEY" >"$h/dhchap_key" && echo "$AUTH_CKEY" >"$h/dhchap_ctrl_key" &&
		echo "$AUTH_HASH" >"$h/dhchap_hash" && echo "$AUTH_DHGROUP" >"$h/dhchap_dhgroup" ||
		return 1
	# what nvmet took (it keeps the old group if it refuses one)
	if [ "$(cat "$h/dhchap_hash")" != "$AUTH_HASH" ] ||
		[ "$(cat "$h/dhchap_dhgroup")" != "$AUTH_DHGROUP" ]; then
		log "auth: nvmet did not take $AUTH_HASH / $AUTH_DHGROUP"
		return 1
	fi
	mkdir -p "$s/namespaces/1" && echo 0 >"$s/attr_allow_any_host" || return 1
	[ -e "$s/allowed_hosts/$HOSTNQN" ] || ln -s "$h" "$s/allowed_hosts/$HOSTNQN" || return 1
	truncate -s 1M "$AUTH_IMG" && echo "$AUTH_IMG" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" || return 1
	mkdir -p "$p" && echo tcp >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		topo_tgt_addr 1 >"$p/addr_traddr" && echo "$AUTH_TRSVCID" >"$p/addr_trsvcid" ||
		return 1
	# the first subsystem enables the port: linked in the target netns
	[ -e "$p/subsystems/$AUTH_NQN" ] || topo_tgt_exec ln -s "$s" "$p/subsystems/$AUTH_NQN"
}

# auth_target_remove: what auth_target made, nvmet's host entry last.
# Idempotent.
auth_target_remove() {
	local h=$NVMET_CFS/hosts/$HOSTNQN s=$NVMET_CFS/subsystems/$AUTH_NQN
	local p=$NVMET_CFS/ports/$AUTH_PORT_ID
	rm -f "$p/subsystems/$AUTH_NQN" "$s/allowed_hosts/$HOSTNQN"
	[ -d "$p" ] && rmdir "$p"
	if [ -d "$s/namespaces/1" ]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1"
	fi
	[ -d "$s" ] && rmdir "$s"
	[ -d "$h" ] && rmdir "$h"
	rm -f "$AUTH_IMG"
	return 0
}

# auth_setup: the keys, the target, and whether the in-kernel host
# authenticates (its /dev/nvme-fabrics lists dhchap_ctrl_secret).
auth_setup() {
	AUTH_HKEY=$(auth_gen_key "$HOSTNQN")
	AUTH_CKEY=$(auth_gen_key "$AUTH_NQN")
	if [ -z "$AUTH_HKEY" ] || [ -z "$AUTH_CKEY" ]; then
		log "auth: nvme gen-dhchap-key made no key"
		return 1
	fi
	AUTH_MADE=1
	auth_target || { log "auth: the target's subsystem $AUTH_NQN not set up"; return 1; }
	AUTH_OPTS="transport=tcp,traddr=$(topo_tgt_addr 1),trsvcid=$AUTH_TRSVCID"
	AUTH_OPTS+=",host_traddr=$(topo_host_addr 1),nqn=$AUTH_NQN"
	AUTH_OPTS+=",dhchap_secret=$AUTH_HKEY,dhchap_ctrl_secret=$AUTH_CKEY"
	if grep -q dhchap_ctrl_secret "$DEVD/nvme-fabrics" 2>/dev/null; then
		AUTH_KERNEL=1
	else
		log "auth: the in-kernel host has no DH-HMAC-CHAP (CONFIG_NVME_HOST_AUTH): nvfab alone"
	fi
}

# auth_teardown: the in-kernel host's controllers of AUTH_NQN (nvfab's:
# cleanup deletes them all) and the target's side. Idempotent.
auth_teardown() {
	[ "$AUTH_MADE" = 1 ] || return 0
	nvme disconnect -n "$AUTH_NQN" >/dev/null 2>&1
	auth_target_remove
	AUTH_MADE=0
}

# now_var: NOW_MS = epoch milliseconds (no fork, no subshell).
now_var() {
	local t=${EPOCHREALTIME/[.,]/}
	NOW_MS=${t%???}
}

# auth_wait LIMIT_MS CMD...: run CMD every 20 ms until it succeeds;
# WAITED = ms from T0 (epoch ms, set by the caller) to that success.
# Builtins only (disc_wait's clock forks).
auth_wait() {
	local limit=$1
	shift
	while :; do
		if "$@"; then
			now_var
			WAITED=$((NOW_MS - T0))
			return 0
		fi
		now_var
		[ $((NOW_MS - T0)) -lt "$limit" ] || return 1
		disc_tick 0.02
	done
}

auth_dev() { "disc_dev_$INIT" "$AUTH_NQN"; }
# auth_none: $INIT has no controller of AUTH_NQN.
auth_none() {
	local c v cls=nvfab
	[ "$INIT" = kernel ] && cls=nvme
	for c in "$SYS/class/$cls/$cls"*; do
		read -r v 2>/dev/null <"$c/subsysnqn" || continue
		[ "$v" = "$AUTH_NQN" ] && return 1
	done
	return 0
}

# ctrl_delete N: delete $INIT's controller N (both hosts have the file).
ctrl_delete() { echo 1 >"$(ctrl_dir "$1")/delete_controller"; }

# auth_connect: one timed connect of $INIT to AUTH_NQN; WRITE_MS: from the
# start of the write of the options to its return (the controller
# connected: the admin queue and both I/O queues authenticated), READY_MS:
# to the namespace's block device (the head's node) existing. INSTANCE:
# the controller, if one was made.
auth_connect() {
	local node=nvfab-fabrics o=$AUTH_OPTS
	if [ "$INIT" = kernel ]; then
		node=nvme-fabrics
		[ "$KERNEL_SQFLOW" = 1 ] && o+=,disable_sqflow
	fi
	now_var
	T0=$NOW_MS
	fabrics_add "$node" "$o" || return 1
	now_var
	WRITE_MS=$((NOW_MS - T0))
	if ! auth_wait "$AUTH_LIMIT_MS" auth_dev; then
		log "auth: $INIT: no block device of $AUTH_NQN ${AUTH_LIMIT_MS} ms after the connect"
		return 1
	fi
	READY_MS=$WAITED
}

# block_auth: AUTH_CONNECTS timed connects, each deleted (and gone)
# before the next; one line auth-connect with every time (connect_all,
# write_all), their medians (connect_ms, write_ms), connect_min_ms and
# connect_max_ms. Three failed connects end the host's round.
block_auth() {
	local k fails=0 ready='' wrote='' mn='' mx='' WRITE_MS READY_MS
	[ "$AUTH_OK" = 1 ] || return 1	# main logged why
	[ "$INIT" = kernel ] && [ "$AUTH_KERNEL" != 1 ] && return 1
	for ((k = 1; k <= AUTH_CONNECTS; k++)); do
		INSTANCE=
		if auth_connect; then
			ready+=${ready:+,}$READY_MS
			wrote+=${wrote:+,}$WRITE_MS
			{ [ -z "$mn" ] || [ "$READY_MS" -lt "$mn" ]; } && mn=$READY_MS
			{ [ -z "$mx" ] || [ "$READY_MS" -gt "$mx" ]; } && mx=$READY_MS
		else
			fails=$((fails + 1))
			log "auth: $INIT: connect $k of $AUTH_CONNECTS failed (round $ROUND)"
		fi
		[ -z "$INSTANCE" ] || ctrl_delete "$INSTANCE"
		now_var
		T0=$NOW_MS
		auth_wait 30000 auth_none ||
			log "auth: $INIT: a controller of $AUTH_NQN still there 30 s after its delete"
		if [ "$fails" -ge 3 ]; then
			log "auth: $INIT: $fails connects failed, round $ROUND given up"
			break
		fi
	done
	[ -n "$ready" ] || return 1
	disc_record auth-connect "connect_all=$ready" "write_all=$wrote" \
		"connect_min_ms=$mn" "connect_max_ms=$mx" "connects=$AUTH_CONNECTS" \
		"failed=$fails" "hash=$AUTH_HASH" "dhgroup=$AUTH_DHGROUP"
}

main() {
	local s block order n t_start

	: >"$RESULTS"
	trap cleanup EXIT
	# Expand the set names; unknown ones are reported and ignored.
	for s in $SETS; do
		case "$s" in
		mpath) WANT+="sym asym lb ana cut " ;;
		single | rdma | tls | peer | disc | auth | sym | asym | lb | ana | cut) WANT+="$s " ;;
		*) log "unknown set '$s' ignored (single rdma tls peer disc auth mpath sym asym lb ana cut)" ;;
		esac
	done
	if ! want single && ! want rdma && ! want tls && ! want peer && ! want disc &&
		! want auth && ! want_mpath; then
		log "nothing to run (NVFAB_BENCH_SETS='$SETS')"
		return 1
	fi

	mkdir -p "$ETC"
	echo "$HOSTNQN" >"$ETC/hostnqn"
	echo "$HOSTID" >"$ETC/hostid"
	if ! { topo_up 2 && nvmet_setup 2; }; then
		log "target setup failed"
		return 1
	fi
	USER_HZ=$(getconf CLK_TCK 2>/dev/null) || USER_HZ=100
	[[ $USER_HZ =~ ^[1-9][0-9]*$ ]] || USER_HZ=100
	modprobe nvfab-tcp || { log "modprobe nvfab-tcp failed"; return 1; }
	modprobe nvme-tcp || { log "modprobe nvme-tcp failed"; return 1; }
	# Loaded on demand by "echo service-time >iopolicy" too; early here so
	# that a missing module shows in the log.
	modprobe nvfab-ps-service-time || log "modprobe nvfab-ps-service-time failed"
	# The rdma and peer sets only: a failure here skips them, not the
	# other sets.
	if want rdma || want peer; then
		if ! rdma_setup; then
			log "rdma setup (rxe on $RDMA_IF, nvmet-rdma port $RDMA_PORT_ID) failed: rdma and peer sets skipped"
		elif ! { modprobe nvfab-rdma && modprobe nvme-rdma; }; then
			log "modprobe nvfab-rdma or nvme-rdma failed: rdma and peer sets skipped"
		else
			RDMA_OK=1
		fi
	fi
	if want peer && [ "$RDMA_OK" = 1 ]; then
		if peer_setup; then
			PEER_OK=1
		else
			log "peer set skipped"
		fi
	fi

	# The tls and auth sets only: a failure skips that set alone.
	if want tls; then
		if tls_setup; then
			TLS_OK=1
		else
			log "tls set skipped"
		fi
	fi
	if want auth; then
		if auth_setup; then
			AUTH_OK=1
		else
			log "auth set skipped"
		fi
	fi

	# The disc set only: its subsystems on the target, and nvfab-discovery.
	if want disc; then
		if ! { mkdir -p "$DISC_IMG" && disc_target make c 1 "$DISC_CHANGES" &&
			disc_target make s 1 "$DISC_STORM"; }; then
			log "disc: the target's subsystems could not be made: disc set skipped"
		elif ! DISC_MADE=1 || ! modprobe nvfab-discovery; then
			log "modprobe nvfab-discovery failed: disc set skipped"
		else
			DISC_OK=1
		fi
	fi

	log "rounds $ROUNDS, runtime ${RUNTIME}s, sets:$WANT, delays: $DELAYS ms"
	t_start=$SECONDS
	for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
		order="nvfab kernel"
		[ $((ROUND % 2)) = 0 ] && order="kernel nvfab"
		for block in single rdma tls peer disc auth mpath; do
			[ "$block" = mpath ] && ! want_mpath && continue
			[ "$block" != mpath ] && ! want "$block" && continue
			for INIT in $order; do
				# device / host memory, both on nvfab-rdma
				[ "$block" = peer ] && [ "$INIT" = kernel ] && continue
				log "round $ROUND: $block $INIT ($((SECONDS - t_start)) s)"
				reset_target
				"block_$block"
				sleep 1
			done
		done
	done
	n=$(wc -l <"$RESULTS")
	log "done: $n runs in $((SECONDS - t_start)) s"
	[ "$n" -gt 0 ]
}

# Run, unless sourced (by the mock test).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main
fi
