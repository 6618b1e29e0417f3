#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP secure channel: TLS 1.3 with a pre-shared key (NVMe/TCP 1.0
# 3.6.1.3, TP 8011) against nvmet, whose port 1 requires it (addr_tsas
# tls1.3, addr_treq required). tlshd (ktls-utils, Debian 13's, fetched by
# tools/testing/vm/tlshd.sh: NVFAB_TLSHD) does the handshakes: one in the
# host's network namespace, one in the target's. The PSK is a "psk" key in
# the .nvme keyring with the identity "NVMe0R01 <hostnqn> <subsysnqn>",
# added with keyctl, which both sides find (nvme-keyring's search of psk
# keys matches the identity alone, whatever network namespace added the
# key); a wrong PSK is one of that identity in a keyring of its own, named
# to the host with keyring=. nvfab and
# the in-kernel host (/dev/nvme-fabrics) on the same target give the same
# decision and errno: no tlshd, the right PSK, no PSK, a wrong PSK, a
# handshake that does not complete in time, a plain connect to the TLS
# port, a port where TLS is optional. nvfab's I/O and fio verify over TLS,
# its sysfs tls_key, tls_configured_key and tls_keyring, a reset that
# negotiates again on every queue, and nvfab-discovery connecting a TLS
# port's subsystem from a Discovery Log Page over TLS.
#
# Skips without tlshd or keyctl, when nvmet has no TLS
# (CONFIG_NVME_TARGET_TCP_TLS) or nvfab was built without it (tls gives
# EOPNOTSUPP).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:7d1e2a4c-3b5f-4c6d-8e9f-0a1b2c3d4e5f
HOSTID=7d1e2a4c-3b5f-4c6d-8e9f-0a1b2c3d4e5f
IDENT="NVMe0R01 $HOSTNQN $NVMET_NQN"
PORT=$NVMET_CFS/ports/1
CONF=/tmp/nvfab-tlshd.conf
HLOG=/tmp/nvfab-tlshd-host.log
TLOG=/tmp/nvfab-tlshd-tgt.log
TLSHD_PIDS=
HKEY=
WKEY=
RING=
WRING=
# NVFAB_TLS_ORACLE=0: nvfab alone, no in-kernel comparisons (the
# test-kernel guest, where each connect costs seconds under KASAN; the
# stock guest compares)
ORACLE=${NVFAB_TLS_ORACLE:-1}
KPARAM=/sys/module/nvme_tcp/parameters/tls_handshake_timeout
NPARAM=/sys/module/nvfab_tcp/parameters/tls_handshake_timeout

tlshd_stop() {
	local p
	for p in $TLSHD_PIDS; do kill "$p" 2>/dev/null; done
	for p in $TLSHD_PIDS; do wait "$p" 2>/dev/null; done
	TLSHD_PIDS=
}

cleanup() {
	[ -d "${DE:-}" ] && { echo 0 >"$DE/enable"; rmdir "$DE"; } 2>/dev/null
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	nvme_kdisconnect
	nvfab_delete_all >/dev/null 2>&1
	tlshd_stop
	[ -w "$KPARAM" ] && echo 10 >"$KPARAM"
	[ -w "$NPARAM" ] && echo 10 >"$NPARAM"
	[ -n "$HKEY" ] && keyctl unlink "$HKEY" "$RING" >/dev/null 2>&1
	[ -n "$WRING" ] && keyctl unlink "$WRING" @u >/dev/null 2>&1
	nvfab_tcp_cleanup
}
trap cleanup EXIT

require_root
if [ -z "${NVFAB_TLSHD:-}" ] || [ ! -x "$NVFAB_TLSHD/tlshd" ]; then
	ksft_skip_all "no tlshd (tools/testing/vm/tlshd.sh fetches it; NVFAB_TLSHD)"
fi
command -v keyctl >/dev/null || ksft_skip_all "keyctl (keyutils) missing"
command -v fio >/dev/null || ksft_skip_all "fio missing"
ktap_header
ktap_set_plan 20

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "target and modules up" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp
modprobe nvme-tcp 2>/dev/null
[ -e "$PORT/addr_tsas" ] || ksft_skip_all "nvmet has no TLS (CONFIG_NVME_TARGET_TCP_TLS)"

# port_treq TREQ: port 1 offers TLS 1.3, TREQ "required" or "not required"
# (nvmet takes the security settings of a disabled port only).
port_treq() {
	nvmet_port_disable 1
	echo tls1.3 >"$PORT/addr_tsas" && echo "$1" >"$PORT/addr_treq" &&
		nvmet_port_enable 1 && grep -q "^$1" "$PORT/addr_treq"
}
ktap_check "nvmet port 1: TLS 1.3 required" port_treq required

# The PSK in the .nvme keyring (nvme-keyring's, both sides'); a wrong one
# of the same identity in a keyring of its own (in root's user keyring).
RING=$(awk '$8 == "keyring" && $9 == ".nvme:" { print $1 }' /proc/keys)
[ -n "$RING" ] && RING=$((16#$RING))
add_psks() {
	HKEY=$(head -c 32 /dev/urandom | keyctl padd psk "$IDENT" "$RING") &&
		WRING=$(keyctl newring nvfab-wrong-psk @u) &&
		WKEY=$(head -c 32 /dev/urandom | keyctl padd psk "$IDENT" "$WRING") &&
		[ -n "$HKEY" ] && [ -n "$WKEY" ]
}
ktap_check "the PSK in the .nvme keyring ($RING), a wrong one in another" add_psks

# tlshd_start [DELAY]: one tlshd per namespace; DELAY: seconds the host's
# waits before it reports a finished handshake (tlshd's [debug] delay_done).
tlshd_start() {
	local t0
	tlshd_stop
	printf '[debug]\nloglevel=1\ntls=0\nnl=0\ndelay_done=%s\n[authenticate]\nkeyrings=.nvme\n' \
		"${1:-0}" >"$CONF.host"
	printf '[debug]\nloglevel=1\ntls=0\nnl=0\n[authenticate]\nkeyrings=.nvme\n' >"$CONF"
	: >"$HLOG"
	: >"$TLOG"
	"$NVFAB_TLSHD/tlshd" -c "$CONF.host" -s >>"$HLOG" 2>&1 &
	TLSHD_PIDS="$TLSHD_PIDS $!"
	topo_tgt_exec "$NVFAB_TLSHD/tlshd" -c "$CONF" -s >>"$TLOG" 2>&1 &
	TLSHD_PIDS="$TLSHD_PIDS $!"
	busywait 20000 eval 'grep -q "Built from" "$HLOG" && grep -q "Built from" "$TLOG"' || return 1
	# registered with the handshake family right after that line
	nap 1
	for t0 in $TLSHD_PIDS; do kill -0 "$t0" 2>/dev/null || return 1; done
}
handshakes() { grep -c "was successful" "$HLOG"; }

HERR=ok
# same CASE WANT OPTS: nvfab gives WANT ("connected" or an errno's text)
# with OPTS (after ",tls" unless OPTS starts with "-"), and the in-kernel
# host the same; nvfab's I/O works where it connected, nothing is left
# where it was refused.
same() {
	local desc=$1 want=$2 opts=",tls$3" n k t0
	[ "${3:0:1}" = - ] && opts=${3:1}
	attempt "$opts"
	n=$N
	t0=$MS
	if [ "$ORACLE" = 0 ]; then
		if [ "$n" = "$want" ] || { [ "$want" = any ] && [[ $n != connected* ]]; }; then
			ktap_pass "$desc: nvfab '$n' ($t0 ms; no in-kernel comparison here)"
		else
			ktap_fail "$desc: nvfab '$n' ($t0 ms), wanted '$want'"
			ktap_diag "tlshd (host): $(tail -n 3 "$HLOG" | tr '\n' '|')"
		fi
		return
	fi
	if kernel_try "$opts"; then k=connected; else k=$KERR; fi
	if [ "$n" = "$want" ] && [ "$k" = "$want" ]; then
		ktap_pass "$desc: both '$n' (nvfab $t0 ms)"
	elif [ "$want" = any ] && [ "$n" = "$k" ] && [ "$n" != connected ]; then
		ktap_pass "$desc: both refused, '$n' (nvfab $t0 ms)"
	else
		ktap_fail "$desc: nvfab '$n' ($t0 ms), the in-kernel host '$k', wanted '$want'"
		ktap_diag "tlshd (host): $(tail -n 3 "$HLOG" | tr '\n' '|')"
	fi
}

# 1. No tlshd: refused at once (ESRCH: nobody listens for handshakes).
if ! try_connect ",tls" && [ "$ERR" = "Operation not supported" ]; then
	ksft_skip_all "nvfab built without TLS (tls: $ERR)"
fi
delete_all
same "no tlshd" "No such process" ""

# 2. The right PSK.
ktap_check "tlshd started in both namespaces" tlshd_start
same "the right PSK" connected ""

# 3. nvfab over TLS: sysfs, fio verify, a reset.
tls_sysfs() {
	[ "$(cat "$CTRL/tls_key")" = "$(printf '%08x' "$HKEY")" ] &&
		[ ! -e "$CTRL/tls_configured_key" ] && [ ! -e "$CTRL/tls_keyring" ]
}
if try_connect ",tls,reconnect_delay=1"; then
	ktap_check "sysfs: tls_key is the PSK's serial; tls_configured_key, tls_keyring absent" tls_sysfs
	fio_tls() {
		local f=/tmp/nvfab-tls-fio.out
		fio --name=tls --filename="$DEV" --allow_file_create=0 --ioengine=libaio \
			--direct=1 --rw=randrw --bsrange=4k-128k --iodepth=16 --size=32m \
			--time_based --runtime="${NVFAB_TLS_FIO_S:-10}" --verify=crc32c \
			--verify_fatal=1 --verify_backlog=64 --do_verify=1 \
			--output-format=terse --terse-version=3 >"$f" 2>&1 ||
			{ sed 's/^/# fio: /' "$f" | tail -n 5; return 1; }
		[ "$(grep -m1 '^3;' "$f" | cut -d';' -f5)" = 0 ]
	}
	ktap_check "fio verify over TLS (randrw 4k-128k, QD 16): no error" fio_tls
	reset_tls() {
		local before=$(handshakes)
		echo 1 >"$CTRL/reset_controller" || return 1
		busywait 30000 eval '[ "$(cat "$CTRL/state")" = live ]' || return 1
		io_works || return 1
		# admin queue and two I/O queues: three new handshakes
		[ $(($(handshakes) - before)) -ge 3 ] || {
			ktap_diag "handshakes before $before, after $(handshakes)"
			return 1
		}
	}
	ktap_check "a reset negotiates TLS again on every queue" reset_tls
else
	ktap_fail "sysfs: tls_key ($ERR)"
	ktap_fail "fio verify over TLS ($ERR)"
	ktap_fail "a reset negotiates TLS again ($ERR)"
fi
delete_all

# 4. The key given: tls_key=, keyring=.
configured() {
	try_connect ",tls,tls_key=$HKEY,keyring=$RING" &&
		[ "$(cat "$CTRL/tls_configured_key")" = "$(printf '%08x' "$HKEY")" ] &&
		[ "$(cat "$CTRL/tls_keyring")" = .nvme ] && io_works
}
ktap_check "tls_key= and keyring=: connected; tls_configured_key, tls_keyring shown" configured
delete_all
ktap_check "tls_key= without tls is refused (EINVAL)" \
	eval '! try_connect ",tls_key=$HKEY" && test "$ERR" = "Invalid argument"'

# 5. Discovery: a discovery controller (the hostile target's, on the
# host's loopback) lists nvmet's subsystem on the port that requires TLS
# 1.3, and another subsystem there for which no PSK exists: nvfab-discovery
# connects the first over TLS and leaves the second needs-tls, saying why.
DCFS=/sys/kernel/config/nvfab/discovery
DE=$DCFS/tls
# as long as NVMET_NQN: nvme-keyring's matcher (nvme_tls_psk_match(),
# 6.12 to 7.3) compares the whole identity searched with each key's
# description, reading past a shorter one (KASAN: slab-out-of-bounds in
# memcmp), whoever searches (the in-kernel host too)
NOPSK=nqn.2014-08.org.nvmexpress:nvfab-nopk
DPID=
disc_state() { # SUBNQN: the state of its record
	sed -n "s/.* subnqn=$1 .* state=\([a-z-]*\) ctrl=\(.*\)$/\1 \2/p" "$DE/log" 2>/dev/null
}
disc_tls() {
	local st c mark=$(dmesg_mark)
	python3 -B -S "$REPO/tools/testing/hostile-target/nvfab_hostile_target.py" \
		--discovery --port 4490 --disc-entries 0 --state /tmp/nvfab-tls-disc.state \
		--disc-tls-entry "$NVMET_NQN@$(topo_tgt_addr 1):$NVMET_TRSVCID" \
		--disc-tls-entry "$NOPSK@$(topo_tgt_addr 1):$NVMET_TRSVCID" \
		2>/tmp/nvfab-tls-disc.log &
	DPID=$!
	busywait 90000 test -s /tmp/nvfab-tls-disc.state || return 1
	modprobe nvfab-discovery 2>/dev/null || nvfab_load nvfab-discovery || return 1
	mkdir "$DE" && echo tcp >"$DE/transport" && echo 127.0.0.1 >"$DE/traddr" &&
		echo 4490 >"$DE/trsvcid" && echo "$HOSTNQN" >"$DE/hostnqn" &&
		echo "$HOSTID" >"$DE/hostid" && echo 0 >"$DE/poll_interval" &&
		echo 1 >"$DE/enable" || return 1
	busywait 60000 eval '[ "$(disc_state "$NVMET_NQN" | cut -d" " -f1)" = connected ]' || {
		ktap_diag "log: $(tr '\n' '|' <"$DE/log")"
		return 1
	}
	st=$(disc_state "$NOPSK")
	c=$(disc_state "$NVMET_NQN" | cut -d" " -f2)
	ktap_diag "records: $NVMET_NQN connected ($c), $NOPSK $st"
	[ "${st%% *}" = needs-tls ] &&
		[ "$(cat "/sys/class/nvfab/$c/tls_key")" = "$(printf '%08x' "$HKEY")" ] &&
		dmesg_has_since "$mark" "has no PSK for host $HOSTNQN"
}
ktap_check "discovery: a TLS port's subsystem connected over TLS, one without a PSK needs-tls" disc_tls
[ -d "$DE" ] && { echo 0 >"$DE/enable"; rmdir "$DE"; } 2>/dev/null
[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
delete_all

# 6. Refusals, nvfab and the in-kernel host alike.
HOSTNQN=${HOSTNQN%?}0 HOSTID=${HOSTID%?}0 same "no PSK for this host" \
	"Required key not available" ""
same "a wrong PSK (keyring=)" any ",keyring=$WRING"
same "a plain connect to the port that requires TLS" any "-"
# tlshd finishes, but answers after the handshake timeout (2 s here)
if tlshd_start 6 && echo 2 >"$NPARAM" && echo 2 >"$KPARAM"; then
	same "tlshd answers after the timeout" "Connection timed out" ""
else
	ktap_fail "tlshd answers after the timeout: set-up failed"
fi
echo 10 >"$NPARAM"
echo 10 >"$KPARAM"
tlshd_start

# 7. TLS optional: plain and TLS connects both work.
ktap_check "nvmet port 1: TLS 1.3 not required" port_treq "not required"
same "TLS optional, plain connect" connected "-"
same "TLS optional, TLS connect" connected ""

delete_all
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
