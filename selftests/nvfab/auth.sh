#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe in-band authentication (DH-HMAC-CHAP, NVMe Base 2.0 8.13.5) against
# nvmet over NVMe/TCP: a subsystem that only lets in one host NQN, with
# that host's key (and for bidirectional authentication the controller's
# key) set in nvmet's configfs. The keys are nvme-cli's (gen-dhchap-key).
# Checked for each hash and DH group nvmet is set to: the connect works,
# every queue authenticated (the admin queue and each I/O queue), I/O
# works; a wrong host key, a wrong controller key and no key at all are
# refused at once, with the in-kernel host's errors, and leave no
# controller; the in-kernel host (nvme-cli) connects with the same keys
# where it has CONFIG_NVME_HOST_AUTH, as the oracle.
#
# Skips when nvmet has no authentication (CONFIG_NVME_TARGET_AUTH) or nvfab
# was built without the kernel's nvme-auth (dhchap_secret gives
# EOPNOTSUPP).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5e0c1a6b-6d7e-4f21-9a3c-2b8d4e6f7a81
HOSTID=5e0c1a6b-6d7e-4f21-9a3c-2b8d4e6f7a81
HOSTCFS=$NVMET_CFS/hosts/$HOSTNQN
SUB=$NVMET_CFS/subsystems/$NVMET_NQN

cleanup() {
	nvme_kdisconnect
	rm -f "$SUB/allowed_hosts/$HOSTNQN" 2>/dev/null
	nvfab_tcp_cleanup
	rmdir "$HOSTCFS" 2>/dev/null
}
trap cleanup EXIT

require_root
command -v nvme >/dev/null || ksft_skip_all "nvme-cli missing"
ktap_header
ktap_set_plan 24

dmesg_canary_start
topo_up 1 && nvmet_setup 1
ktap_check "target and modules up" nvfab_load nvfab-core nvfab-fabrics nvfab-tcp

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
}

ERR=
# try_connect OPTS: nvfab connect with the host identity; ERR is what the
# write of the options failed with (empty on success).
try_connect() {
	ERR=
	CTRL=
	if ! nvfab_connect ",hostnqn=$HOSTNQN,hostid=$HOSTID,nr_io_queues=2$1" 2>/tmp/nvfab-auth.err; then
		ERR=$(sed -n 's/.*: //p' /tmp/nvfab-auth.err | tail -n 1)
		[ -n "$ERR" ] || ERR=failed
		return 1
	fi
}

# io_works: an 8 KiB write at LBA 0 reads back (every queue of the
# controller authenticated: nvmet refuses a command on one that is not).
io_works() {
	local pat rd
	pat=$(head -c 8192 /dev/urandom | base64 -w0 | head -c 8192)
	printf '%s' "$pat" | dd of="$DEV" bs=8192 count=1 oflag=direct conv=notrunc 2>/dev/null || return 1
	rd=$(dd if="$DEV" bs=8192 count=1 iflag=direct 2>/dev/null | head -c 8192)
	[ "$rd" = "$pat" ]
}

no_ctrl() { [ "$(nvfab_ctrl_count)" = 0 ]; }

delete_all() { nvfab_delete_all >/dev/null 2>&1; no_ctrl; }

HKEY0=$(gen_key 0 "$HOSTNQN")
HKEY1=$(gen_key 1 "$HOSTNQN")
HKEY3=$(gen_key 3 "$HOSTNQN")
CKEY2=$(gen_key 2 "$NVMET_NQN")
OTHER=$(gen_key 1 "$HOSTNQN")
ktap_check "nvme-cli made the keys" test -n "$HKEY0" -a -n "$HKEY1" -a -n "$HKEY3" -a -n "$CKEY2" -a -n "$OTHER"

# 1. Probe: does this nvfab build authenticate?
target_keys "$HKEY0" "" "hmac(sha256)" null
if ! try_connect ",dhchap_secret=$HKEY0" && [ "$ERR" = "Operation not supported" ]; then
	ksft_skip_all "nvfab built without CONFIG_NVME_AUTH (dhchap_secret: $ERR)"
fi

# 2. Host authentication, each hash with a DH group.
for combo in "$HKEY0|hmac(sha256)|null" "$HKEY1|hmac(sha384)|ffdhe2048" "$HKEY3|hmac(sha512)|ffdhe3072"; do
	IFS='|' read -r key hash grp <<<"$combo"
	delete_all
	target_keys "$key" "" "$hash" "$grp"
	mark=$(dmesg_mark)
	if try_connect ",dhchap_secret=$key"; then
		ktap_pass "$hash, $grp: connected"
		ktap_check "$hash, $grp: I/O works" io_works
	else
		ktap_fail "$hash, $grp: connected ($ERR)"
		dmesg_since "$mark" | tail -n 5 | sed 's/^/# dmesg: /'
		ktap_fail "$hash, $grp: I/O works"
	fi
done

# 3. Bidirectional: the host checks the controller's response too.
delete_all
target_keys "$HKEY1" "$CKEY2" "hmac(sha256)" ffdhe2048
if try_connect ",dhchap_secret=$HKEY1,dhchap_ctrl_secret=$CKEY2"; then
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

# 5. Refusals: at once (no reconnect loop), no controller left.
refused() { # DESC OPTS WANT
	local t0
	clock
	t0=$NOW
	if try_connect "$2"; then
		ERR=connected
		delete_all
	fi
	clock
	ktap_check "$1: refused with '$3' in $((NOW - t0)) ms ('$ERR')" test "$ERR" = "$3"
	ktap_check "$1: no controller left" busywait 5000 no_ctrl
}
refused "wrong host key" ",dhchap_secret=$OTHER" "Key was rejected by service"
refused "wrong controller key" ",dhchap_secret=$HKEY1,dhchap_ctrl_secret=$OTHER" "Key was rejected by service"
refused "no key" "" "Required key not available"
ktap_check "a controller key without a host key is refused" \
	eval '! try_connect ",dhchap_ctrl_secret=$CKEY2" && test "$ERR" = "Invalid argument"'
ktap_check "a secret that is not DHHC-1 is refused" \
	eval '! try_connect ",dhchap_secret=DHHC-1:00:bm90IGEga2V5:" && test -n "$ERR"'

# 6. The oracle: the in-kernel host with the keys nvfab connected with in
# step 3, bidirectional, on the target set as then (the rotation above
# changed its host key); and refused with the wrong host key, as nvfab
# was. Its fabrics node lists the options it takes.
delete_all
target_keys "$HKEY1" "$CKEY2" "hmac(sha256)" ffdhe2048
modprobe nvme-tcp 2>/dev/null
if grep -q dhchap_ctrl_secret /dev/nvme-fabrics 2>/dev/null; then
	if nvme_kconnect 1 --hostnqn="$HOSTNQN" --hostid="$HOSTID" \
		--dhchap-secret="$HKEY1" --dhchap-ctrl-secret="$CKEY2" >/dev/null 2>&1; then
		ktap_pass "in-kernel host: connected with the same keys"
	else
		ktap_fail "in-kernel host: connected with the same keys"
	fi
	nvme_kdisconnect
	if nvme_kconnect 1 --hostnqn="$HOSTNQN" --hostid="$HOSTID" \
		--dhchap-secret="$OTHER" >/dev/null 2>&1; then
		ktap_fail "in-kernel host: the wrong host key refused too"
	else
		ktap_pass "in-kernel host: the wrong host key refused too"
	fi
	nvme_kdisconnect
else
	ktap_skip "in-kernel host: connected with the same keys" "no CONFIG_NVME_HOST_AUTH"
	ktap_skip "in-kernel host: the wrong host key refused too" "no CONFIG_NVME_HOST_AUTH"
fi

ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
