#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peer memory with the test provider nvfab-peermem-test
# (tools/testing/peermem-test) on the guest's ivshmem BAR, whose backing
# file the guest reads as $NVFAB_GPUBAR_FILE (tools/testing/vm/README.md).
#
# Part A, the provider: the BAR and its backing file agree; nvfab-peermem
# and nvfab-peermem-test load and bind the ivshmem device; a device buffer
# (mmap of /dev/nvfab-peermem-test) takes a pattern in its stand-in pages,
# not in the device memory; bad lengths and offsets are refused; the
# module cannot be unloaded while a buffer is mapped; p2pmem/allocate of
# the BAR's first half mmaps (CONFIG_PCI_P2PDMA).
#
# Part B, NVMe/RDMA into device memory (soft RoCE and nvmet-rdma as in
# rdma_io.sh), once nvfab-rdma maps requests through nvfab-peermem: an
# O_DIRECT write from a device buffer sends the device memory's bytes, a
# read into one fills its device memory (checked in the backing file) and
# not its stand-ins; writes from device and host buffers at adjacent
# offsets, submitted together, are not merged (each works); an RDMA
# device named in the "unreachable" parameter
# and a revoked buffer fail the I/O at once with EREMOTEIO (a revoked one
# counted as the provider's "revoked", no path passed over); a revoke with
# I/O running returns and fails what comes after it; the provider cannot
# be unloaded under I/O; on P2PDMA kernels, O_DIRECT on p2pmem/allocate
# pages (route 1) goes through the head into the BAR.
#
# Part C, path choice: a second rdma path (the wire topology's device) and
# a tcp path join the head. Peer I/O takes only rdma paths (the tcp path
# is counted as skipped), P2PDMA pages are refused at once while the tcp
# path is in the head (it cannot take them, so the head no longer
# advertises BLK_FEAT_PCI_P2PDMA) and work again once it is gone, and with
# the first rdma device unreachable peer I/O takes the second path only.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/rdma_lib.sh"

HELPER="$(dirname "$0")/peermem_buf.py"
TEST_MOD=nvfab-peermem-test
GPUBAR=${NVFAB_GPUBAR_FILE:-${OUT:-/tmp/out}/.vm/gpubar}
PART_B=19

buf() { python3 -B -S "$HELPER" "$@"; }

peermem_cleanup() {
	nvfab_rdma_cleanup
	# the stalled check's null_blk device, if it was left behind
	if [ -d /sys/kernel/config/nullb/nullbslow ]; then
		echo 0 >/sys/kernel/config/nullb/nullbslow/power
		rmdir /sys/kernel/config/nullb/nullbslow
	fi 2>/dev/null
	nvfab_unload "$TEST_MOD" nvfab-peermem >/dev/null 2>&1
	return 0
}
trap peermem_cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
# The test kernel's build (NVFAB_MODDIR, make test-modules) or, with the
# DKMS modules of the stock kernel, make peermem-test-stock's for this
# kernel.
TEST_KO=
if [ -n "${NVFAB_MODDIR:-}" ]; then
	TEST_KO=$(find "$NVFAB_MODDIR" -name "$TEST_MOD.ko" -print -quit 2>/dev/null)
else
	TEST_KO=$(cd "$(dirname "$0")/../.." && pwd)/build/peermem-test-stock/tools/testing/peermem-test/$TEST_MOD.ko
	[ "$(modinfo -F vermagic "$TEST_KO" 2>/dev/null | cut -d' ' -f1)" = "$(uname -r)" ] ||
		TEST_KO=
fi
[ -n "$TEST_KO" ] ||
	ksft_skip_all "no $TEST_MOD.ko for $(uname -r) (make test-modules for the test kernel, make peermem-test-stock for the stock one)"
BDF=$(buf bdf) || ksft_skip_all "no ivshmem-plain device (1af4:1110)"
[ -r "$GPUBAR" ] || ksft_skip_all "no BAR backing file $GPUBAR (run-vm.sh's NVFAB_GPUBAR_FILE)"

ktap_header
ktap_set_plan $((11 + PART_B))
dmesg_canary_start

ktap_check "BAR 2 of $BDF and $GPUBAR agree (both ways)" \
	buf coherence "$GPUBAR" "$BDF"

load_test() { insmod "$TEST_KO"; }
ktap_check "nvfab-peermem and $TEST_MOD load" \
	eval 'nvfab_load nvfab-peermem && load_test'

P=/sys/module/nvfab_peermem_test/parameters
bound() {
	test -e "/sys/bus/pci/drivers/$TEST_MOD/$BDF" &&
		test -c /dev/nvfab-peermem-test &&
		dmesg_since "$CANARY" | grep -q "peer-memory provider test registered" &&
		ktap_diag "window: BAR 2 offset $(cat "$P/window_offset"), size $(cat "$P/window_size")" &&
		test "$(cat "$P/window_offset")/$(cat "$P/window_size")" = $((32 << 20))/$((32 << 20))
}
ktap_check "provider \"test\" bound to $BDF, /dev/nvfab-peermem-test, 32 MiB window" bound

# debugfs nvfab-peermem/providers: "p2pdma" exactly when the kernel has
# P2PDMA (route 1 says it is unavailable by its absence), and "test".
PROVIDERS=/sys/kernel/debug/nvfab-peermem/providers
providers() {
	local want=absent have=absent
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	sed 's/^/# providers: /' "$PROVIDERS" || return
	{ [ -d "/sys/bus/pci/devices/$BDF/p2pmem" ] || [ "${NVFAB_KERNEL:-}" = test ]; } &&
		want=listed
	grep -q '^p2pdma ' "$PROVIDERS" && have=listed
	ktap_diag "p2pdma provider $have, expected $want"
	[ "$want" = "$have" ] && grep -q '^test claims 0 ' "$PROVIDERS"
}
ktap_check "debugfs providers: test, and p2pdma only on a P2PDMA kernel" providers

ktap_check "a device buffer's pattern stays in its stand-in pages" \
	buf buffer "$GPUBAR"
ktap_check "bad lengths, offsets and private mappings: EINVAL" buf refused
ktap_check "rmmod $TEST_MOD refused while a buffer is mapped, works after" \
	buf pin "$TEST_MOD"
ktap_check "$TEST_MOD loads again" load_test

P2PMEM='' P2PMEM_WHY="this kernel has no CONFIG_PCI_P2PDMA (route 1 unavailable; the registered-buffer route is the one tested)"
if [ -d "/sys/bus/pci/devices/$BDF/p2pmem" ] ||
	[ "${NVFAB_KERNEL:-}" = test ]; then
	ktap_check "p2pmem/allocate mmaps the BAR's first half (P2PDMA)" \
		buf p2pmem "$GPUBAR" "$BDF" && P2PMEM=1
	P2PMEM_WHY="p2pmem/allocate failed"
else
	ktap_skip "p2pmem/allocate mmaps the BAR's first half (P2PDMA)" "$P2PMEM_WHY"
fi

# Part B needs nvfab-rdma to map requests through nvfab-peermem.
RDMA_KO=$(nvfab_mod_path nvfab-rdma)
integrated() {
	local deps
	if [ -n "$RDMA_KO" ]; then
		deps=$(modinfo -F depends "$RDMA_KO" 2>/dev/null)
	else
		deps=$(modinfo -F depends nvfab-rdma 2>/dev/null)
	fi
	[[ ,$deps, == *,nvfab-peermem,* ]]
}
why=
if ! integrated; then
	why="nvfab-rdma does not map requests through nvfab-peermem (main's \"nvfab-rdma: peer memory\" commits not in this tree)"
elif ! command -v rdma >/dev/null; then
	why="rdma (iproute2) missing"
elif ! modprobe -n "$(rdma_provider_module)" 2>/dev/null; then
	why="no $(rdma_provider_module) module"
elif ! modprobe -n nvmet-rdma 2>/dev/null; then
	why="no nvmet-rdma module"
elif [ "$RDMA_PROVIDER" != rxe ]; then
	why="the checks name the rxe device"
fi

b_checks=(
	"rxe device $RDMA_DEV, nvmet-rdma port, connect transport=rdma"
	"4 KiB (in-capsule write) from and into device buffers: device memory, not stand-ins"
	"128 KiB (keyed SGL) from and into device buffers: device memory, not stand-ins"
	"1 MiB from and into device buffers: device memory, not stand-ins"
	"device and host buffers at adjacent offsets in one io_submit: never merged into one request, every write works"
	"unreachable=$RDMA_DEV: I/O on device buffers fails at once with EREMOTEIO"
	"revoked buffer: I/O fails with EREMOTEIO, another buffer works"
	"revoke with I/O running: returns, later I/O fails with EREMOTEIO, no hang"
	"rmmod $TEST_MOD refused with I/O on its buffer running, the I/O unaffected"
	"P2PDMA pages (p2pmem/allocate), 128 KiB and 1 MiB, from and into the BAR through the head"
	"controller still live after the refused I/O"
	"peer_mem/ counters: ios and bytes of the device-buffer I/O (controller and head), the refused I/O failed by the head, the path skipped only when unreachable, revoked I/O counted as revoked, no bounces"
	"busy_every=2: mappings the provider refuses with EAGAIN are retried, the I/O works, and no path's queue_depth stays above 0"
	"revoke during a read the target holds 4 s (null_blk): returns within 1.5 s (the queue stops, its MRs go), the read fails with EREMOTEIO before the target answers"
	"a second rdma path ($RDMA_W_HDEV) and a tcp path join the head"
	"peer I/O on three paths: only rdma paths carry it, the tcp path is skipped"
	"P2PDMA pages refused at once (EREMOTEIO) while the tcp path is in the head, work again without it"
	"unreachable=$RDMA_DEV: peer I/O takes the other rdma path only"
	"disconnect, nvfab modules unload"
)
if [ -n "$why" ]; then
	for d in "${b_checks[@]}"; do
		ktap_skip "$d" "$why"
	done
else
	# reconnect_delay 1: a revoke with I/O in flight stops the queues
	# (the fence), and the controller reconnects before the next check
	# instead of 10 s later (twice a run)
	rdma_setup() {
		topo_up 1 && nvmet_setup 1 && rdma_up && rdma_nvmet_port &&
			nvfab_load nvfab-core nvfab-fabrics nvfab-rdma &&
			rdma_connect ",nr_io_queues=2,reconnect_delay=1" &&
			ktap_diag "connected: $REPLY_LINE, $DEV"
	}
	# pm NAME, hpm NAME: a peer_mem/ counter of the controller, the head
	pm() { cat "$CTRL/peer_mem/$1" 2>/dev/null || echo -1; }
	hpm() { cat "/sys/block/${DEV#/dev/}/peer_mem/$1" 2>/dev/null || echo -1; }
	# prov NAME: a counter of the test provider (debugfs providers)
	prov() {
		awk -v n="$1" '$1 == "test" { for (i = 2; i < NF; i++) if ($i == n) print $(i + 1) }' "$PROVIDERS"
	}
	# The refused I/O never reaches the controller: the head fails it
	# (its map_failures). On an unreachable device it counts the
	# controller as passed over (its unreachable_skips: the unreachable
	# check); on a revoked buffer no path is passed over and the
	# provider counts it as revoked (the revoke and revoke_busy checks,
	# between the RSKIPS and RREV snapshots).
	counters() {
		local ios=$(($(pm ios) - IOS0)) bytes=$(($(pm bytes) - BYTES0))
		local skips=$(($(pm unreachable_skips) - SKIPS0))
		local hios=$(($(hpm ios) - HIOS0)) hfails=$(($(hpm map_failures) - HFAILS0))
		local rskips=$((RSKIPS1 - RSKIPS0)) rrev=$((RREV1 - RREV0))
		local bounces hbounces
		bounces=$(pm bounces) hbounces=$(hpm bounces)
		ktap_diag "controller peer_mem: ios +$ios, bytes +$bytes, unreachable_skips +$skips, map_failures $(pm map_failures), bounces $bounces"
		ktap_diag "head peer_mem: ios +$hios, map_failures +$hfails, bounces $hbounces"
		ktap_diag "provider test (debugfs): $(grep '^test ' "$PROVIDERS")"
		ktap_diag "revoke checks: unreachable_skips +$rskips (want 0), provider revoked +$rrev (want >= 3)"
		[ "$(prov ios)" -ge 6 ] || return 1
		# each io command: a write from and a read into device buffers
		[ "$ios" -ge 6 ] && [ "$bytes" -ge $((2 * (4096 + (128 << 10) + (1 << 20)))) ] &&
			[ "$hios" -ge 6 ] && [ "$skips" -ge 2 ] && [ "$hfails" -ge 5 ] &&
			[ "$rskips" = 0 ] && [ "$rrev" -ge 3 ] &&
			[ "$bounces" = 0 ] && [ "$hbounces" = 0 ]
	}
	# busy: the provider refuses every other mapping with -EAGAIN (as
	# the NVIDIA provider does with a device's first I/O): blk-mq retries
	# the request, which must work, and no retry may stay counted in
	# flight on its path (queue_depth, what the queue-depth and
	# service-time selectors read; issue 28, item 13) once the I/O is
	# over.
	busy() {
		local rc=0 l qd bad=0 n=0 r0
		r0=$(cat "$P/busy_refused") && echo 2 >"$P/busy_every" || return
		buf io "$GPUBAR" "$DEV" $((128 << 10)) || rc=1
		buf io "$GPUBAR" "$DEV" 4096 || rc=1
		echo 0 >"$P/busy_every"
		ktap_diag "provider refused $(($(cat "$P/busy_refused") - r0)) mappings with EAGAIN"
		for l in "/sys/block/${DEV#/dev/}"/multipath/*; do
			read -r qd <"$l/queue_depth" || return 1
			n=$((n + 1))
			ktap_diag "${l##*/}: queue_depth $qd"
			[ "$qd" = 0 ] || bad=1
		done
		[ "$rc" = 0 ] && [ "$n" -ge 1 ] && [ "$bad" = 0 ] &&
			[ "$(cat "$P/busy_refused")" -gt "$r0" ]
	}
	# stalled: a revoke fences the I/O in flight on the buffer instead of
	# waiting for it (issue 28: the NVIDIA provider's free callback runs
	# inside the GPU driver's teardown). Namespace SLOW_NSID of the
	# subsystem is a null_blk device (null_blk's configfs) that completes
	# every I/O 4 s late: under null_blk's own 5 s request timeout, so
	# that the partition scans of its disk and of the head (a dozen
	# reads each) succeed and are cached instead of each failing after
	# 8 s (185 s of the test's time with an 8 s delay).
	SLOW_NSID=9 SLOW_NB=/sys/kernel/config/nullb/nullbslow
	SLOW_NS=$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/9
	slow_head() { SLOW=$(nvfab_head_dev "$CTRL" "$SLOW_NSID") && test -b "$SLOW"; }
	slow_ns_del() {
		[ -d "$SLOW_NS" ] && { echo 0 >"$SLOW_NS/enable"; rmdir "$SLOW_NS"; }
		[ -d "$SLOW_NB" ] && { echo 0 >"$SLOW_NB/power"; rmdir "$SLOW_NB"; }
		return 0
	}
	stalled() {
		mountpoint -q /sys/kernel/config || return
		[ -d /sys/kernel/config/nullb ] || { ktap_diag "null_blk has no configfs"; return 1; }
		mkdir "$SLOW_NB" && echo 2 >"$SLOW_NB/irqmode" &&
			echo 4000000000 >"$SLOW_NB/completion_nsec" &&
			echo 16 >"$SLOW_NB/size" && echo 4096 >"$SLOW_NB/blocksize" &&
			echo 1 >"$SLOW_NB/power" && test -b /dev/nullbslow || return
		mkdir "$SLOW_NS" && echo /dev/nullbslow >"$SLOW_NS/device_path" &&
			echo 1 >"$SLOW_NS/enable" || return
		busywait 30000 slow_head || { ktap_diag "no head for NSID $SLOW_NSID"; return 1; }
		buf revoke_stalled "$GPUBAR" "$SLOW"
	}
	# more_paths: the wire topology's rdma path (CR2) and the
	# topology's tcp path 1 (CT) to the same subsystem, in DEV's head.
	more_paths() {
		local d=$DEV
		rdma_wire_up && rdma_wire_nvmet_port && rdma_wire_connect &&
			CR2=$CTRL && nvfab_load nvfab-tcp && nvfab_connect_path 1 &&
			CT=$CTRL && CTRL=$CR1 &&
			ktap_diag "paths: ${CR1##*/} ($RDMA_DEV), ${CR2##*/} ($RDMA_W_HDEV), ${CT##*/} (tcp); head $DEV" &&
			test "$DEV" = "$d"
	}
	# c NAME CTRLDIR: a peer_mem/ counter of CTRLDIR
	c() { cat "$2/peer_mem/$1" 2>/dev/null || echo -1; }
	snap() { S1=$(c ios "$CR1") S2=$(c ios "$CR2") ST=$(c ios "$CT") K1=$(c unreachable_skips "$CR1") KT=$(c unreachable_skips "$CT"); }
	deltas() {
		D1=$(($(c ios "$CR1") - S1)) D2=$(($(c ios "$CR2") - S2)) DT=$(($(c ios "$CT") - ST))
		DK1=$(($(c unreachable_skips "$CR1") - K1)) DKT=$(($(c unreachable_skips "$CT") - KT))
		ktap_diag "peer ios: ${CR1##*/} +$D1, ${CR2##*/} +$D2, ${CT##*/} +$DT; skipped: ${CR1##*/} +$DK1, ${CT##*/} +$DKT"
	}
	three_paths() {
		snap
		buf io "$GPUBAR" "$DEV" $((64 << 10)) || return
		deltas
		[ $((D1 + D2)) -ge 2 ] && [ "$DT" = 0 ] && [ "$DKT" -ge 2 ]
	}
	ct_gone() { ! test -e "$CT"; }
	p2p_tcp() {
		buf p2pio "$GPUBAR" "$BDF" "$DEV" $((64 << 10)) refused || return
		echo 1 >"$CT/delete_controller" &&
			busywait 30000 ct_gone &&
			buf p2pio "$GPUBAR" "$BDF" "$DEV" $((64 << 10)) || return
		nvfab_connect_path 1 && CT=$CTRL && CTRL=$CR1
	}
	other_rdma() {
		local rc=0
		echo "$RDMA_DEV" >"$P/unreachable" || return
		snap
		buf io "$GPUBAR" "$DEV" $((64 << 10)) || rc=1
		echo >"$P/unreachable"
		deltas
		[ "$rc" = 0 ] && [ "$D1" = 0 ] && [ "$D2" -ge 2 ] &&
			[ "$DK1" -ge 2 ] && [ "$DT" = 0 ]
	}
	if rdma_setup; then
		ktap_pass "${b_checks[0]}"
		IOS0=$(pm ios) BYTES0=$(pm bytes) SKIPS0=$(pm unreachable_skips)
		HIOS0=$(hpm ios) HFAILS0=$(hpm map_failures)
		ktap_check "${b_checks[1]}" buf io "$GPUBAR" "$DEV" 4096
		ktap_check "${b_checks[2]}" buf io "$GPUBAR" "$DEV" $((128 << 10))
		ktap_check "${b_checks[3]}" buf io "$GPUBAR" "$DEV" $((1 << 20))
		ktap_check "${b_checks[4]}" buf merge "$GPUBAR" "$DEV"
		ktap_check "${b_checks[5]}" buf unreachable "$GPUBAR" "$DEV" "$RDMA_DEV"
		RSKIPS0=$(pm unreachable_skips) RREV0=$(prov revoked)
		ktap_check "${b_checks[6]}" buf revoke "$GPUBAR" "$DEV"
		ktap_check "${b_checks[7]}" buf revoke_busy "$GPUBAR" "$DEV"
		RSKIPS1=$(pm unreachable_skips) RREV1=$(prov revoked)
		ktap_check "${b_checks[8]}" buf pin_busy "$TEST_MOD" "$DEV"
		if [ -n "$P2PMEM" ]; then
			ktap_check "${b_checks[9]}" eval \
				'buf p2pio "$GPUBAR" "$BDF" "$DEV" $((128 << 10)) &&
				buf p2pio "$GPUBAR" "$BDF" "$DEV" $((1 << 20))'
		else
			ktap_skip "${b_checks[9]}" "$P2PMEM_WHY"
		fi
		ktap_check "${b_checks[10]}" test "$(cat "$CTRL/state")" = live
		ktap_check "${b_checks[11]}" counters
		ktap_check "${b_checks[12]}" busy
		ktap_check "${b_checks[13]}" stalled
		slow_ns_del
		CR1=$CTRL
		if ktap_check "${b_checks[14]}" more_paths; then
			ktap_check "${b_checks[15]}" three_paths
			if [ -n "$P2PMEM" ]; then
				ktap_check "${b_checks[16]}" p2p_tcp
			else
				ktap_skip "${b_checks[16]}" "$P2PMEM_WHY"
			fi
			ktap_check "${b_checks[17]}" other_rdma
		else
			for d in "${b_checks[@]:15:3}"; do
				ktap_skip "$d" "the paths did not join"
			done
		fi
		ktap_check "${b_checks[18]}" eval \
			'nvfab_delete_all && nvfab_unload nvfab-rdma nvfab-tcp nvfab-fabrics nvfab-core'
	else
		ktap_fail "${b_checks[0]}"
		for d in "${b_checks[@]:1}"; do
			ktap_skip "$d" "no RDMA controller"
		done
	fi
fi

ktap_check "$TEST_MOD and nvfab-peermem unload" \
	nvfab_unload "$TEST_MOD" nvfab-peermem
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
