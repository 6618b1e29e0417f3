#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /dev/nvfab-fabrics: reading lists the option tokens; a well-formed
# request without a transport fails with "no transport"; bad strings fail
# with EINVAL and one message naming the bad key; nothing leaks.
set -u
. "$(dirname "$0")/lib.sh"

W="$(dirname "$0")/fabrics_write.py"
BASE="transport=nosuch,traddr=192.0.2.2,trsvcid=4420,nqn=nqn.2014-08.org.example:s1"

cleanup() {
	nvfab_unload nvfab-fabrics nvfab-core >/dev/null 2>&1
}
trap cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header

# (string, expected errno, text the log must contain)
CASES=(
	"$BASE|EPROTONOSUPPORT|no transport 'nosuch'"
	"$BASE,queue_size=8|EINVAL|queue_size 8 is outside"
	"$BASE,queue_size=abc|EINVAL|invalid value 'abc' for option 'queue_size'"
	"$BASE,nr_io_queues=0|EINVAL|nr_io_queues 0 must be positive"
	"$BASE,keep_alive_tmo=-1|EINVAL|keep_alive_tmo -1 must not be negative"
	"$BASE,reconnect_delay=0|EINVAL|reconnect_delay 0 must be 1 to 86400 s"
	"$BASE,reconnect_delay=86401|EINVAL|reconnect_delay 86401 must be 1 to 86400 s"
	"$BASE,ctrl_loss_tmo=2147483647|EINVAL|ctrl_loss_tmo 2147483647 is above the limit of 31536000 s"
	"$BASE,fast_io_fail_tmo=31536001|EINVAL|fast_io_fail_tmo 31536001 is above the limit of 31536000 s"
	"$BASE,tos=-2|EINVAL|tos -2 must not be negative"
	"$BASE,hostid=xyz|EINVAL|hostid 'xyz' is not a UUID"
	"$BASE,foo=bar|EINVAL|unknown option 'foo'"
	"$BASE,traddr=192.0.2.3|EINVAL|option 'traddr' given more than once"
	"$BASE,hdr_digest=yes|EINVAL|option 'hdr_digest' takes no value"
	"$BASE,trsvcid|EINVAL|option 'trsvcid' needs a value"
	"$BASE,concat|EOPNOTSUPP|option 'concat' is not supported by nvfab"
	"$BASE,tls,keyring=0|EINVAL|invalid value for option 'keyring': a key serial above 0"
	"$BASE,tls,tls_key=2147483647|ENOKEY|option 'tls_key': key 7fffffff"
	"transport=tcp,traddr=192.0.2.2|EINVAL|option 'nqn' is required"
	"traddr=192.0.2.2,nqn=nqn.x:y|EINVAL|option 'transport' is required"
	"transport=TCP,traddr=1,nqn=n|EINVAL|transport 'TCP' is not a valid transport name"
)
ktap_set_plan $(((${#CASES[@]} + 1) * 2 + 5))

nvfab_load nvfab-core nvfab-fabrics || {
	ktap_diag "cannot load modules"
	exit $KSFT_FAIL
}
dmesg_canary_start

tokens=$("$W" read)
missing=""
for k in transport traddr trsvcid nqn queue_size nr_io_queues reconnect_delay \
	ctrl_loss_tmo keep_alive_tmo hostnqn host_traddr host_iface hostid \
	duplicate_connect disable_sqflow hdr_digest data_digest nr_write_queues \
	nr_poll_queues tos fast_io_fail_tmo discovery tls keyring tls_key; do
	echo "$tokens" | grep -qE "(^|,)$k(=%[sd])?(,|$)" || missing="$missing $k"
done
[ -z "$missing" ] || ktap_diag "missing tokens:$missing"
ktap_check "read lists every token" test -z "$missing"
ktap_check "read starts with instance=-1,cntlid=-1" \
	test "${tokens#instance=-1,cntlid=-1,}" != "$tokens"

long="$BASE,traddr=$(printf 'a%.0s' $(seq 1 5000))"
CASES+=("$long|EINVAL|option string longer than 4096 bytes")

# One python process for every case: interpreter start-up is slow under TCG.
casefile=$(mktemp)
for c in "${CASES[@]}"; do
	IFS='|' read -r str want msg <<<"$c"
	printf '%s|%s|%s\n' "$want" "$msg" "$str"
done >"$casefile"
mapfile -t results < <("$W" cases "$casefile")
rm -f "$casefile"

i=0
for c in "${CASES[@]}"; do
	IFS='|' read -r str want msg <<<"$c"
	IFS=$'\t' read -r got seen _ <<<"${results[$i]:-}"
	i=$((i + 1))
	short=${str#"$BASE"}
	ktap_check "'${short:0:60}' fails with $want (got ${got:-nothing})" test "$got" = "$want"
	ktap_check "log names it: $msg" test "${seen:-0}" = 1
done

ktap_check "refcnt back to 0" test "$(nvfab_refcnt nvfab-fabrics)" = 0
ktap_check "modules unload" nvfab_unload nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
