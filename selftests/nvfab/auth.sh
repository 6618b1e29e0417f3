#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe in-band authentication (DH-HMAC-CHAP, NVMe Base 2.0 8.13.5) against
# nvmet over NVMe/TCP: a subsystem that only lets in one host NQN, with
# that host's key (and for bidirectional authentication the controller's
# key) set in nvmet's configfs. The keys are nvme-cli's (gen-dhchap-key).
# The matrix of hash and DH group (every pair with NVFAB_AUTH_MATRIX=full),
# host-only and bidirectional, right keys, a wrong host key, a wrong
# controller key and no key, against nvfab and the in-kernel host (its
# /dev/nvme-fabrics, where it has CONFIG_NVME_HOST_AUTH) on the same target: the
# same decision and errno, I/O where connected, nothing left where
# refused. Then sysfs re-authentication: the secrets read back, key
# rotation, 50 rotations under fio verify, a refused key.
#
# Skips when nvmet has no authentication (CONFIG_NVME_TARGET_AUTH) or nvfab
# was built without the kernel's nvme-auth (dhchap_secret gives
# EOPNOTSUPP).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5e0c1a6b-6d7e-4f21-9a3c-2b8d4e6f7a81
HOSTID=5e0c1a6b-6d7e-4f21-9a3c-2b8d4e6f7a81
HOSTCFS=$NVMET_CFS/hosts/$HOSTNQN
SUB=$NVMET_CFS/subsystems/$NVMET_NQN

FIOPID=
cleanup() {
	[ -n "$FIOPID" ] && kill -KILL "$FIOPID" 2>/dev/null
	nvme_kdisconnect
	rm -f "$SUB/allowed_hosts/$HOSTNQN" 2>/dev/null
	nvfab_tcp_cleanup
	rmdir "$HOSTCFS" 2>/dev/null
}
trap cleanup EXIT

require_root
command -v nvme >/dev/null || ksft_skip_all "nvme-cli missing"
command -v fio >/dev/null || ksft_skip_all "fio missing"
HASHES="hmac(sha256) hmac(sha384) hmac(sha512)"
DHGROUPS="null ffdhe2048 ffdhe3072 ffdhe4096 ffdhe6144 ffdhe8192"
# The refusals (a wrong host or controller key, no key) are decided by
# the responses, after the DH exchange: checked for three pairs that
# cover every hash; the right keys for every pair with
# NVFAB_AUTH_MATRIX=full (the stock guest). NVFAB_AUTH_MATRIX=small (the
# test-kernel guest, where KASAN makes each case 5-10 s) checks the
# refusals on one pair: each refusal's code path once under the
# sanitizers. NVFAB_AUTH_ROTATIONS: the key rotations under fio (50).
REFUSE_PAIRS="hmac(sha256)|null hmac(sha384)|ffdhe2048 hmac(sha512)|ffdhe3072"
PAIRS=$REFUSE_PAIRS
ROTATIONS=${NVFAB_AUTH_ROTATIONS:-50}
[ "${NVFAB_AUTH_MATRIX:-}" = small ] && REFUSE_PAIRS="hmac(sha384)|ffdhe2048"
if [ "${NVFAB_AUTH_MATRIX:-}" = full ]; then
	PAIRS=
	for h in $HASHES; do
		for g in $DHGROUPS; do
			PAIRS="$PAIRS $h|$g"
		done
	done
fi
ktap_header
# 2 per pair, 4 more per refusal pair, 11 others
ktap_set_plan $(($(wc -w <<<"$PAIRS") * 2 + $(wc -w <<<"$REFUSE_PAIRS") * 4 + 11))

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "target and modules up" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp

# nvmet's configfs takes a DH group only when its kpp is found, and the
# ffdhe templates are registered by the dh module, which has no alias of
# theirs: where it is a module (the test kernel), load it.
modprobe dh_generic 2>/dev/null
mkdir -p "$HOSTCFS"
[ -e "$HOSTCFS/dhchap_key" ] ||
	ksft_skip_all "nvmet has no DH-HMAC-CHAP (CONFIG_NVME_TARGET_AUTH)"
echo 0 >"$SUB/attr_allow_any_host"
ln -s "$HOSTCFS" "$SUB/allowed_hosts/$HOSTNQN"

# gen_key HMAC: a DHHC-1 secret from nvme-cli (HMAC 0: used as is; 1-3:
# transformed with the NQN of its owner, SHA-256/384/512).
gen_key() {
	nvme gen-dhchap-key --hmac="$1" --nqn="$2" 2>/dev/null | grep -m1 '^DHHC-1:'
}

# target_keys HOSTKEY CTRLKEY HASH DHGROUP: nvmet's side ("" clears a key).
target_keys() {
	echo "$1" >"$HOSTCFS/dhchap_key"
	# nvmet refuses an empty key: only the tests after the bidirectional
	# one would need it cleared, and none does
	[ -z "$2" ] || echo "$2" >"$HOSTCFS/dhchap_ctrl_key"
	echo "$3" >"$HOSTCFS/dhchap_hash"
	echo "$4" >"$HOSTCFS/dhchap_dhgroup"
	# what nvmet took (it keeps the old group if it refuses one)
	[ "$(cat "$HOSTCFS/dhchap_hash")" = "$3" ] &&
		[ "$(cat "$HOSTCFS/dhchap_dhgroup")" = "$4" ]
}

HKEY0=$(gen_key 0 "$HOSTNQN")
HKEY1=$(gen_key 1 "$HOSTNQN")
HKEY3=$(gen_key 3 "$HOSTNQN")
CKEY2=$(gen_key 2 "$NVMET_NQN")
OTHER=$(gen_key 1 "$HOSTNQN")
OTHERC=$(gen_key 2 "$NVMET_NQN")
ktap_check "nvme-cli made the keys" test -n "$HKEY0" -a -n "$HKEY1" -a -n "$HKEY3" \
	-a -n "$CKEY2" -a -n "$OTHER" -a -n "$OTHERC"

# 1. Probe: does this nvfab build authenticate?
target_keys "$HKEY0" "" "hmac(sha256)" null
if ! try_connect ",dhchap_secret=$HKEY0" && [ "$ERR" = "Operation not supported" ]; then
	ksft_skip_all "nvfab built without CONFIG_NVME_AUTH (dhchap_secret: $ERR)"
fi

# 2. The matrix, nvfab and the in-kernel host on the same target: each
# hash with each DH group (NVFAB_AUTH_MATRIX=full, the stock guest's run;
# otherwise three pairs that cover every hash), host-only and
# bidirectional, with the right keys; for three pairs also a wrong host
# key, no key (host-only) and a wrong controller key (bidirectional). Both must take
# the same decision with the same errno; nvfab's I/O must work where it
# connected, and nothing be left where it was refused. The deviation
# allowed (the issue's words, seen here): with a wrong host key nvmet may
# close the connection before its Failure1 reaches the in-kernel host,
# which then fails with EIO after its admin timeout (3 s here) where nvfab
# sees the Failure1 (EKEYREJECTED) or the closed connection
# (ECONNRESET) at once.
DEVIATIONS=0
RIGHT=connected
REJECTED="Key was rejected by service"
NOKEY="Required key not available"
RESET="Connection reset by peer"
# matrix_case DESC WANT OPTS: nvfab gives WANT with OPTS, and the
# in-kernel host (where it authenticates) the same.
matrix_case() {
	local desc=$1 want=$2 opts=$3 n k t0
	attempt "$opts"
	n=$N
	t0=$MS
	if [ "$n" != "$want" ] && ! [[ $desc == *"wrong host key"* && $n == "$RESET" ]]; then
		ktap_fail "$desc: nvfab '$n', not '$want'"
		return
	fi
	if [ "$KHOST" != 1 ]; then
		ktap_pass "$desc: nvfab '$n' ($t0 ms; no in-kernel host with authentication here)"
		return
	fi
	if kernel_try "$opts"; then k=connected; else k=$KERR; fi
	if [ "$n" = "$k" ]; then
		ktap_pass "$desc: both '$n' (nvfab $t0 ms)"
	elif [[ $desc == *"wrong host key"* ]] &&
		{ [ "$n" = "$REJECTED" ] || [ "$n" = "$RESET" ]; } &&
		{ [ "$k" = "$REJECTED" ] || [ "$k" = "Input/output error" ]; }; then
		DEVIATIONS=$((DEVIATIONS + 1))
		ktap_pass "$desc: nvfab '$n' ($t0 ms), the in-kernel host '$k' (nvmet closed before its Failure1 went out: the deviation allowed)"
	else
		ktap_fail "$desc: nvfab '$n', the in-kernel host '$k'"
	fi
}
modprobe nvme-tcp 2>/dev/null
KHOST=0
grep -q dhchap_ctrl_secret /dev/nvme-fabrics 2>/dev/null && KHOST=1
KTMO=$(cat /sys/module/nvme_core/parameters/admin_timeout 2>/dev/null)
[ -n "$KTMO" ] && echo 3 >/sys/module/nvme_core/parameters/admin_timeout
i=0
for pair in $PAIRS; do
	IFS='|' read -r hash grp <<<"$pair"
	case $((i % 3)) in 0) key=$HKEY0 ;; 1) key=$HKEY1 ;; *) key=$HKEY3 ;; esac
	i=$((i + 1))
	if ! target_keys "$key" "$CKEY2" "$hash" "$grp"; then
		n=2
		[[ " $REFUSE_PAIRS " == *" $pair "* ]] && n=6
		for ((j = 0; j < n; j++)); do
			ktap_fail "$hash $grp: nvmet did not take the hash or the group"
		done
		continue
	fi
	matrix_case "$hash $grp host-only, right key" "$RIGHT" ",dhchap_secret=$key"
	matrix_case "$hash $grp bidirectional, right keys" "$RIGHT" \
		",dhchap_secret=$key,dhchap_ctrl_secret=$CKEY2"
	[[ " $REFUSE_PAIRS " == *" $pair "* ]] || continue
	matrix_case "$hash $grp host-only, wrong host key" "$REJECTED" \
		",dhchap_secret=$OTHER"
	matrix_case "$hash $grp host-only, no key" "$NOKEY" ""
	matrix_case "$hash $grp bidirectional, wrong host key" "$REJECTED" \
		",dhchap_secret=$OTHER,dhchap_ctrl_secret=$CKEY2"
	matrix_case "$hash $grp bidirectional, wrong controller key" "$REJECTED" \
		",dhchap_secret=$key,dhchap_ctrl_secret=$OTHERC"
done
[ -n "$KTMO" ] && echo "$KTMO" >/sys/module/nvme_core/parameters/admin_timeout
ktap_diag "matrix: $i hash and group pairs, $DEVIATIONS deviation(s) (nvmet closed before the in-kernel host read its Failure1)"

# 3. Bidirectional: the host checks the controller's response too.
delete_all
target_keys "$HKEY1" "$CKEY2" "hmac(sha256)" ffdhe2048
# (reconnect_delay 2: the refused re-authentication below reconnects once;
# keep_alive_tmo 15: under KASAN nvmet takes seconds over each
# authentication command of the admin queue, and the keep-alive waits
# behind them past nvfab's deadline of 3/4 KATO)
if try_connect ",dhchap_secret=$HKEY1,dhchap_ctrl_secret=$CKEY2,reconnect_delay=2,keep_alive_tmo=15"; then
	ktap_pass "bidirectional: connected"
	ktap_check "bidirectional: I/O works" io_works
else
	ktap_fail "bidirectional: connected ($ERR)"
	ktap_fail "bidirectional: I/O works"
fi

# 4. Re-authentication through sysfs (the in-kernel host's files): the
# secret reads back (root only), a rotated key re-authenticates every
# queue, a key the controller refuses fails the write and keeps the
# connection.
secret_file() { [ "$(stat -c %a "$CTRL/dhchap_secret" 2>/dev/null)" = 600 ] &&
	[ "$(cat "$CTRL/dhchap_secret")" = "$HKEY1" ] &&
	[ "$(cat "$CTRL/dhchap_ctrl_secret")" = "$CKEY2" ]; }
ktap_check "sysfs: dhchap_secret and dhchap_ctrl_secret read back, mode 0600" secret_file
rotated() {
	echo "$NEWKEY" >"$HOSTCFS/dhchap_key" &&
		echo "$NEWKEY" >"$CTRL/dhchap_secret" 2>/tmp/nvfab-auth.err &&
		[ "$(cat "$CTRL/dhchap_secret")" = "$NEWKEY" ] && io_works
}
NEWKEY=$(gen_key 1 "$HOSTNQN")
ktap_check "key rotation: the new key written to dhchap_secret re-authenticates" rotated
# Re-authentication under I/O, repeated: fio verify runs while the key is
# rotated $ROTATIONS times (50; 10 under KASAN, 6 s each there) between
# two keys (nvmet's host key first, then the host's: each write
# re-authenticates the admin queue and both I/O queues while their I/O is
# in flight). Every write succeeds, fio sees no error and no corruption,
# and the controller is never recovered.
reauth_under_io() {
	local i key rc err done=0 mark f=/tmp/nvfab-auth-fio.out
	# the null DH group: what races here is the transaction against I/O,
	# and a DH exchange on the admin queue takes nvmet seconds under
	# KASAN, which delays keep-alive past nvfab's deadline
	echo null >"$HOSTCFS/dhchap_dhgroup" || return 1
	mark=$(dmesg_mark)
	fio --name=reauth --filename="$DEV" --allow_file_create=0 --ioengine=libaio \
		--direct=1 --rw=randrw --bsrange=4k-128k --iodepth=8 --size=16m \
		--time_based --runtime=3600 --verify=crc32c --verify_fatal=1 \
		--verify_backlog=64 --do_verify=1 --output-format=terse \
		--terse-version=3 >"$f" 2>&1 &
	FIOPID=$!
	nap 1
	for i in $(seq "$ROTATIONS"); do
		key=$NEWKEY
		[ $((i % 2)) = 1 ] && key=$HKEY1
		echo "$key" >"$HOSTCFS/dhchap_key" || break
		echo "$key" >"$CTRL/dhchap_secret" 2>/tmp/nvfab-auth.err || break
		kill -0 "$FIOPID" 2>/dev/null || break
		done=$i
	done
	# fio exits 128 after SIGINT when nothing failed; its error in field 5
	kill -INT "$FIOPID" 2>/dev/null
	wait "$FIOPID"
	rc=$?
	FIOPID=
	err=$(grep -m1 '^3;' "$f" | cut -d';' -f5)
	ktap_diag "rotations: $done of $ROTATIONS; fio exit $rc, error '${err:-none}'; last write: $(cat /tmp/nvfab-auth.err)"
	[ "$done" = "$ROTATIONS" ] || return 1
	[ "$rc" = 0 ] || [ "$rc" = 128 ] || { sed 's/^/# fio: /' "$f" | tail -n 5; return 1; }
	[ "$err" = 0 ] || return 1
	[ "$(cat "$CTRL/state")" = live ] || return 1
	err=$(dmesg_since "$mark" | grep -E "starting error recovery|reconnect")
	[ -z "$err" ] || { sed 's/^/# dmesg: /' <<<"$err"; return 1; }
}
ktap_check "re-authentication under fio verify, $ROTATIONS key rotations: no error, no corruption, no recovery" reauth_under_io

# nvmet ends the association after a failed re-authentication; the host's
# reconnect then fails the same way and the controller is removed at once
# (no reconnect loop). A controller that keeps the connection would leave
# it live.
refused_reauth() {
	! echo "$OTHER" >"$CTRL/dhchap_secret" 2>/tmp/nvfab-auth.err &&
		grep -q "Key was rejected by service" /tmp/nvfab-auth.err &&
		busywait 30000 live_or_gone
}
live_or_gone() { [ ! -e "$CTRL" ] || { [ "$(cat "$CTRL/state" 2>/dev/null)" = live ] && io_works; }; }
ktap_check "a key the controller refuses: the write fails (EKEYREJECTED); the controller stays live or is removed, no reconnect loop" refused_reauth
delete_all

# 5. Options refused before anything is sent.
ktap_check "a controller key without a host key is refused" \
	eval '! try_connect ",dhchap_ctrl_secret=$CKEY2" && test "$ERR" = "Invalid argument"'
ktap_check "a secret that is not DHHC-1 is refused" \
	eval '! try_connect ",dhchap_secret=DHHC-1:00:bm90IGEga2V5:" && test -n "$ERR"'

ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
