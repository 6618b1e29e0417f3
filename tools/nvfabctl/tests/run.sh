#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of nvfabctl: no kernel module needed. The option strings
# of connect --dry-run, the errors and exit codes, the host identity
# defaults (from a fake /etc/nvme), gen-hostnqn and show-hostnqn, the
# write/read-back on a fake device file, list/disconnect against a fake
# sysfs tree, list-subsys and show-topology against a fake multipath one,
# their JSON against nvme-cli's (tests/fixtures/), the duplicate-connect
# check, the bash completion and make install; tests/config.sh (nvfabctl
# config), tests/discover.sh (discover, connect-all, discovery) and
# tests/opts.sh (the kernel's grammar applied before connecting)
# nested. KTAP output; exits 0 only if every test passes.
#
# Environment the tool honours, pointed into a temp dir here:
#   NVFAB_ETC_NVME	 instead of /etc/nvme
#   NVFAB_SYSFS		 instead of /sys
#   NVFAB_FABRICS_DEV	 instead of /dev/nvfab-fabrics
#   NVFAB_DEV_DIR	 instead of /dev, for the namespaces' block devices
#   NVFAB_PROC_KEYS	 instead of /proc/keys, for --keyring NAME
#   NVFAB_KMSG		 instead of /dev/kmsg, the kernel's log
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SHIM=$TMP/fake_shim.so
if ! gcc -shared -fPIC -Wall -Wextra -Werror -o "$SHIM" "$HERE/fake_shim.c" \
	>"$TMP/shim.log" 2>&1; then
	sed 's/^/# /' "$TMP/shim.log"
	SHIM=
fi

mkdir -p "$TMP/etc-empty"
export NVFAB_ETC_NVME=$TMP/etc-empty
export NVFAB_SYSFS=$TMP/no-sys
# nvfab-core loaded, nothing connected: its class directory alone
mkdir -p "$TMP/loaded-sys/class/nvfab"
export NVFAB_FABRICS_DEV=$TMP/no-dev
export NVFAB_DEV_DIR=$TMP/no-dev-dir
export NVFAB_PROC_KEYS=$TMP/no-keys
export NVFAB_KMSG=$TMP/no-kmsg

# The warning of a connect without host identity (etc-empty here) is
# taken out of ERR by run() and noted in NOID, so that the other checks
# see one line; the identity tests check it.
NOID_WARN="nvfabctl: connect: warning: no host identity ("

# run ARGS...: run the tool (60 s at most: a hang guard; make check runs
# these tests beside a guest, on the CPU time it leaves); sets RC, OUT,
# ERR, NOID.
run() {
	timeout 60 "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(grep -vF "$NOID_WARN" "$TMP/err")
	NOID=$(grep -cF "$NOID_WARN" "$TMP/err")
}

# expect_ok DESC EXPECTED-STDOUT ARGS...: exit 0, this stdout, no stderr.
expect_ok() {
	local desc=$1 want=$2
	shift 2
	run "$@"
	[ "$RC" = 0 ] && [ "$OUT" = "$want" ] && [ -z "$ERR" ]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected: $want"
	result "$desc" $st
}

# expect_err DESC TEXT ARGS...: exit 1, no stdout, one stderr line
# "nvfabctl: <verb>: ..." containing TEXT.
expect_err() {
	local desc=$1 text=$2
	shift 2
	run "$@"
	[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == "nvfabctl: $1: "* ]] && [[ "$ERR" == *"$text"* ]]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected one line with: $text"
	result "$desc" $st
}

# dry DESC EXPECTED-STRING CONNECT-ARGS...
dry() {
	local desc=$1 want=$2
	shift 2
	expect_ok "dry-run: $desc" "$want" connect --dry-run "$@"
}

ktap_header
ktap_set_plan 311

B=(-t tcp -a 192.0.2.2 -s 4420 -n nqn.x:y)
S="nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,trsvcid=4420"
UUID=3fa85f64-5717-4562-b3fc-2c963f66afa6
HNQN=nqn.2014-08.org.nvmexpress:uuid:$UUID

# --- option strings -------------------------------------------------------
dry "-t -a -s -n" "$S" "${B[@]}"
dry "long forms" "$S" --transport=tcp --traddr 192.0.2.2 --trsvcid=4420 \
	--nqn nqn.x:y
dry "options in any order" "$S" -n nqn.x:y -s 4420 -a 192.0.2.2 -t tcp
dry "-w host_traddr after traddr" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,host_traddr=198.51.100.1,trsvcid=4420" \
	"${B[@]}" -w 198.51.100.1
dry "--host-iface before trsvcid" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,host_iface=veth1,trsvcid=4420" \
	"${B[@]}" --host-iface veth1
dry "-q -I" "$S,hostnqn=nqn.2014-08.org.example:h1,hostid=$UUID" \
	"${B[@]}" -q nqn.2014-08.org.example:h1 -I "$UUID"
dry "--hostnqn --hostid" "$S,hostnqn=nqn.2014-08.org.example:h1,hostid=$UUID" \
	"${B[@]}" --hostnqn=nqn.2014-08.org.example:h1 --hostid="$UUID"
dry "-i" "$S,nr_io_queues=4" "${B[@]}" -i 4
dry "--nr-io-queues hex" "$S,nr_io_queues=16" "${B[@]}" --nr-io-queues 0x10
dry "-W" "$S,nr_write_queues=2" "${B[@]}" -W 2
dry "--nr-poll-queues" "$S,nr_poll_queues=1" "${B[@]}" --nr-poll-queues=1
dry "-Q" "$S,queue_size=32" "${B[@]}" -Q 32
expect_err "--queue-size out of the kernel's range is refused before connecting" \
	"invalid --queue-size 8: out of range, 16 to 1024 (option queue_size)" \
	connect "${B[@]}" --queue-size 8
dry "-k 0 is passed" "$S,keep_alive_tmo=0" "${B[@]}" -k 0
dry "--keep-alive-tmo" "$S,keep_alive_tmo=15" "${B[@]}" --keep-alive-tmo 15
dry "-c" "$S,reconnect_delay=7" "${B[@]}" -c 7
dry "--reconnect-delay" "$S,reconnect_delay=3" "${B[@]}" --reconnect-delay=3
dry "-l -1" "$S,ctrl_loss_tmo=-1" "${B[@]}" -l -1
dry "--ctrl-loss-tmo" "$S,ctrl_loss_tmo=60" "${B[@]}" --ctrl-loss-tmo 60
dry "--fast_io_fail_tmo" "$S,fast_io_fail_tmo=15" "${B[@]}" --fast_io_fail_tmo 15
dry "-F" "$S,fast_io_fail_tmo=-1" "${B[@]}" -F -1
dry "-T 0 is passed" "$S,tos=0" "${B[@]}" -T 0
dry "--tos" "$S,tos=184" "${B[@]}" --tos 184
dry "-D" "$S,duplicate_connect" "${B[@]}" -D
dry "--disable-sqflow" "$S,disable_sqflow" "${B[@]}" --disable-sqflow
dry "-g" "$S,hdr_digest" "${B[@]}" -g
dry "--data-digest" "$S,data_digest" "${B[@]}" --data-digest
dry "every option, canonical key order" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,host_traddr=198.51.100.1,host_iface=veth1,trsvcid=4420,hostnqn=$HNQN,hostid=$UUID,nr_io_queues=2,nr_write_queues=1,nr_poll_queues=1,queue_size=64,keep_alive_tmo=5,reconnect_delay=2,ctrl_loss_tmo=30,fast_io_fail_tmo=10,tos=0,duplicate_connect,disable_sqflow,hdr_digest,data_digest" \
	-G -g -d -D -T 0 -F 10 -l 30 -c 2 -k 5 -Q 64 -P 1 -W 1 -i 2 -I "$UUID" \
	-q "$HNQN" -f veth1 -s 4420 -w 198.51.100.1 -a 192.0.2.2 -t tcp -n nqn.x:y
expect_err "a transport nvfab does not have is refused, naming those it has" \
	"invalid --transport 'loop': nvfab has transports tcp and rdma" \
	connect -t loop -a 192.0.2.2 -n nqn.x:y
run connect --dry-run "${B[@]}"
result "dry-run does not create the device" "$(test ! -e "$NVFAB_FABRICS_DEV"; echo $?)"

# --- command-line errors ----------------------------------------------------
expect_err "missing -n" "required argument [--nqn | -n] not specified" \
	connect -t tcp -a 192.0.2.2
expect_err "missing -t" "required argument [--transport | -t] not specified" \
	connect -a 192.0.2.2 -n nqn.x:y
expect_err "missing -a for tcp" \
	"required argument [--traddr | -a] not specified for transport tcp" \
	connect -t tcp -n nqn.x:y
expect_err "missing -a for rdma" \
	"required argument [--traddr | -a] not specified for transport rdma" \
	connect -t rdma -n nqn.x:y
expect_err "non-numeric -i" \
	"invalid --nr-io-queues 'abc': not an integer" \
	connect "${B[@]}" -i abc
expect_err "-Q beyond int: out of range, with the range" \
	"invalid --queue-size 99999999999: out of range, 16 to 1024 (option queue_size)" \
	connect "${B[@]}" -Q 99999999999
expect_err "trailing junk in --tos" "invalid --tos '3x': not an integer" \
	connect "${B[@]}" --tos 3x
expect_err "--fast-io-fail-tmo (dashes) is not nvme-cli's spelling" \
	"unrecognized or ambiguous option '--fast-io-fail-tmo'" \
	connect "${B[@]}" --fast-io-fail-tmo 5
expect_err "comma in -n cannot inject a key" "invalid --nqn: must not contain ','" \
	connect -t tcp -a 192.0.2.2 -n "nqn.x:y,queue_size=8"
expect_err "newline in -a" "invalid --traddr: must not contain control characters" \
	connect -t tcp -a "$(printf '1.2.3.4\nfoo')" -n nqn.x:y
expect_err "empty -s" "empty value for --trsvcid" connect "${B[@]}" -s ""
expect_err "bad -I" "invalid --hostid 'xyz': not a UUID" \
	connect "${B[@]}" -q nqn.h:1 -I xyz
expect_err "unknown long option" "unrecognized or ambiguous option '--bogus'" \
	connect "${B[@]}" --bogus
expect_err "ambiguous long option" "unrecognized or ambiguous option '--nr'" \
	connect "${B[@]}" --nr 2
expect_err "unknown short option in a bundle" "unrecognized option '-z'" \
	connect "${B[@]}" --dry-run -zg
expect_err "missing argument" "option '-n' requires an argument" connect -t tcp -n
expect_err "missing argument at the end of a bundle" \
	"option '-n' requires an argument" connect -t tcp -gn
expect_err "missing argument of a long option" \
	"option '--queue-size' requires an argument" connect "${B[@]}" --queue-size
expect_err "argument to a flag" "option '--dry-run=1' takes no argument" \
	connect "${B[@]}" --dry-run=1
expect_err "bad -o" "invalid output format 'yaml'" connect "${B[@]}" -o yaml
expect_err "stray operand" "unexpected argument 'extra'" connect "${B[@]}" extra
expect_err "a value over its limit: -n of 5004 bytes" \
	"invalid --nqn: 5004 bytes, the limit is 222 (option nqn)" \
	connect -t tcp -a 192.0.2.2 -n "nqn.$(printf 'a%.0s' $(seq 1 5000))"
expect_err "string over 4096 bytes" "option string is" \
	connect "${B[@]}" -S "DHHC-1:00:$(printf 'a%.0s' $(seq 1 4090)):"

# --- host identity ----------------------------------------------------------
mkdir -p "$TMP/etc-both" "$TMP/etc-nqn-uuid" "$TMP/etc-nqn-other" \
	"$TMP/etc-id" "$TMP/etc-badid"
printf '%s\n' "nqn.2014-08.org.example:host-a" >"$TMP/etc-both/hostnqn"
printf '  %s \r\n' "$UUID" >"$TMP/etc-both/hostid"
printf '%s\n' "$HNQN" >"$TMP/etc-nqn-uuid/hostnqn"
printf '%s\n' "nqn.2014-08.org.example:host-b" >"$TMP/etc-nqn-other/hostnqn"
printf '%s\n' "$UUID" >"$TMP/etc-id/hostid"
printf '%s\n' "nqn.2014-08.org.example:host-c" >"$TMP/etc-badid/hostnqn"
printf '%s\n' "not-a-uuid" >"$TMP/etc-badid/hostid"

NVFAB_ETC_NVME=$TMP/etc-both dry "hostnqn and hostid from /etc/nvme, trimmed" \
	"$S,hostnqn=nqn.2014-08.org.example:host-a,hostid=$UUID" "${B[@]}"
NVFAB_ETC_NVME=$TMP/etc-both dry "-q wins over the file, hostid from the file" \
	"$S,hostnqn=nqn.h:mine,hostid=$UUID" "${B[@]}" -q nqn.h:mine
NVFAB_ETC_NVME=$TMP/etc-nqn-uuid dry "hostid derived from a uuid hostnqn" \
	"$S,hostnqn=$HNQN,hostid=$UUID" "${B[@]}"
# A site-assigned host NQN (no :uuid:) without a hostid file: used, as
# nvme-cli uses it, with a host ID derived from the system UUID.
mkdir -p "$TMP/site-sys/class/dmi/id"
echo "4C4C4544-0037-4410-8051-B4C04F4E3432" >"$TMP/site-sys/class/dmi/id/product_uuid"
SYSID=4c4c4544-0037-4410-8051-b4c04f4e3432
NVFAB_SYSFS=$TMP/site-sys NVFAB_ETC_NVME=$TMP/etc-nqn-other run connect --dry-run "${B[@]}"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$NOID" = 0 ] &&
	[ "$OUT" = "$S,hostnqn=nqn.2014-08.org.example:host-b,hostid=$SYSID" ] &&
	[ ! -e "$TMP/etc-nqn-other/hostid" ]
result "a site host NQN without a host ID: used, its ID the system UUID; --dry-run stores nothing" $?
NVFAB_ETC_NVME=$TMP/etc-id run connect --dry-run "${B[@]}"
[ "$RC" = 0 ] && [ "$OUT" = "$S" ] && [[ "$ERR" == *"warning: ignoring"*"/hostid"* ]]
result "a lone hostid file is dropped with a warning" $?
expect_err "-q without any hostid is refused" "--hostnqn needs --hostid" \
	connect "${B[@]}" -q nqn.h:mine
expect_err "-I without any hostnqn is refused" "--hostid needs --hostnqn" \
	connect "${B[@]}" -I "$UUID"
NVFAB_ETC_NVME=$TMP/etc-badid expect_err "bad hostid file" \
	"invalid host ID in $TMP/etc-badid/hostid: not a UUID" connect "${B[@]}"

# The no-identity warning: with no identity at all, never otherwise.
timeout 60 "$BIN" connect --dry-run "${B[@]}" >/dev/null 2>"$TMP/noid"
[ "$(cat "$TMP/noid")" = "nvfabctl: connect: warning: no host identity ($TMP/etc-empty/hostnqn): module nvfab-fabrics uses a random one that changes at every load, so host ACLs on the target will break after a reload; fix: nvfabctl gen-hostnqn > $TMP/etc-empty/hostnqn" ]
result "no host identity: one warning, why ACLs break and the fix" $?
NVFAB_ETC_NVME=$TMP/etc-nqn-other run connect --dry-run "${B[@]}"
[ "$RC" = 0 ] && [ "$NOID" = 0 ] &&
	[[ "$OUT" == "$S,hostnqn=nqn.2014-08.org.example:host-b,hostid="* ]] &&
	[[ "$ERR" == *"/etc-nqn-other/hostnqn has no host ID: connect will store a new random one in $TMP/etc-nqn-other/hostid" ]] &&
	[ ! -e "$TMP/etc-nqn-other/hostid" ]
result "... without a system UUID: --dry-run says a random one will be stored, stores nothing" $?
st=0
for e in etc-both etc-nqn-uuid; do
	NVFAB_ETC_NVME=$TMP/$e run connect --dry-run "${B[@]}"
	[ "$RC" = 0 ] && [ "$NOID" = 0 ] || st=1
done
run connect --dry-run "${B[@]}" -q nqn.h:mine -I "$UUID"
[ "$RC" = 0 ] && [ "$NOID" = 0 ] || st=1
result "no such warning with an identity from the files or the flags" $st

# --- gen-hostnqn, show-hostnqn ------------------------------------------------
UUID_RE='[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
run gen-hostnqn
g1=$OUT
run gen-hostnqn
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[[ "$g1" =~ ^nqn\.2014-08\.org\.nvmexpress:uuid:$UUID_RE$ ]] &&
	[[ "$OUT" =~ ^nqn\.2014-08\.org\.nvmexpress:uuid:$UUID_RE$ ]] &&
	[ "$g1" != "$OUT" ]
result "gen-hostnqn without a system UUID: a random version-4 UUID each time" $?
DMI=$TMP/dmi-sys/class/dmi/id
mkdir -p "$DMI"
echo "4C4C4544-0037-4410-8051-B4C04F4E3432" >"$DMI/product_uuid"
NVFAB_SYSFS=$TMP/dmi-sys expect_ok "gen-hostnqn uses the SMBIOS system UUID, in lower case" \
	"nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0037-4410-8051-b4c04f4e3432" gen-hostnqn
echo "00000000-0000-0000-0000-000000000000" >"$DMI/product_uuid"
NVFAB_SYSFS=$TMP/dmi-sys run gen-hostnqn
result "gen-hostnqn ignores an all-zero system UUID" \
	"$([ "$RC" = 0 ] && [[ "$OUT" =~ ^nqn\.2014-08\.org\.nvmexpress:uuid:$UUID_RE$ ]]; echo $?)"
echo "not-a-uuid" >"$DMI/product_uuid"
NVFAB_SYSFS=$TMP/dmi-sys run gen-hostnqn
result "gen-hostnqn ignores a malformed system UUID" \
	"$([ "$RC" = 0 ] && [[ "$OUT" =~ ^nqn\.2014-08\.org\.nvmexpress:uuid:$UUID_RE$ ]]; echo $?)"
expect_err "gen-hostnqn takes no operand" "unexpected argument 'x'" gen-hostnqn x
expect_err "gen-hostnqn takes no option" "unrecognized option '-q'" gen-hostnqn -q
mkdir -p "$TMP/etc-gen"
"$BIN" gen-hostnqn >"$TMP/etc-gen/hostnqn"
gen=$(cat "$TMP/etc-gen/hostnqn")
NVFAB_ETC_NVME=$TMP/etc-gen dry "the fix works: gen-hostnqn > hostnqn gives hostnqn and hostid" \
	"$S,hostnqn=$gen,hostid=${gen##*:uuid:}" "${B[@]}"
NVFAB_ETC_NVME=$TMP/etc-gen expect_ok "show-hostnqn prints /etc/nvme/hostnqn" \
	"$gen" show-hostnqn
NVFAB_ETC_NVME=$TMP/etc-both expect_ok "show-hostnqn trims the line" \
	"nqn.2014-08.org.example:host-a" show-hostnqn
expect_err "show-hostnqn without the file is an error naming the fix" \
	"no host NQN in $TMP/etc-empty/hostnqn: connect would use the random identity of module nvfab-fabrics, which changes at every load; create one: nvfabctl gen-hostnqn > $TMP/etc-empty/hostnqn" \
	show-hostnqn

# --- options for what nvfab does not have yet ---------------------------------
# unsupported DESC TEXT ARGS...: exit 95, no stdout, one line with TEXT.
unsupported() {
	local desc=$1 text=$2
	shift 2
	run connect "${B[@]}" "$@"
	[ "$RC" = 95 ] && [ -z "$OUT" ] && [ "$NOID" = 0 ] &&
		[ "$ERR" = "nvfabctl: connect: $text" ]
	result "$desc" $?
}
unsupported "--tls-key-identity" \
	"inserting a TLS PSK into a keyring is not supported yet by nvfab (--tls-key-identity)" \
	--tls-key-identity x
unsupported "--tls_key (legacy)" \
	"nvme-cli's legacy TLS key option (--tls-key takes the serial) is not supported yet by nvfab (--tls_key)" \
	--tls_key 0x1234
unsupported "--concat" \
	"secure channel concatenation (TLS) is not supported yet by nvfab (--concat)" --concat
K1=DHHC-1:00:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWZMLs9v:
dry "-S after hostid, as nvme-cli; the secret not shown" \
	"$S,hostnqn=nqn.x:h,hostid=$UUID,dhchap_secret=<hidden>" \
	"${B[@]}" -S "$K1" -I "$UUID" -q nqn.x:h
dry "--dhchap-secret --dhchap-ctrl-secret, not shown" \
	"$S,dhchap_secret=<hidden>,dhchap_ctrl_secret=<hidden>" \
	"${B[@]}" --dhchap-ctrl-secret="$K1" --dhchap-secret "$K1"
expect_err "a ',' in -C cannot inject a key" "invalid --dhchap-ctrl-secret: must not contain ','" \
	connect "${B[@]}" -S "$K1" -C "$K1,hostnqn=nqn.x:evil"
expect_err "--dhchap-secret without its value is a plain usage error" \
	"option '--dhchap-secret' requires an argument" connect "${B[@]}" --dhchap-secret

# --- write and read-back on a fake device -----------------------------------
DEV=$TMP/dev
# prefill LEN REPLY: a device file whose bytes after the first LEN are REPLY;
# the one write overwrites the first LEN, the read returns REPLY.
prefill() {
	{
		head -c "$1" /dev/zero | tr '\0' '#'
		printf '%s' "$2"
	} >"$DEV"
}

expect_err "missing device" "cannot open $TMP/no-dev: No such file or directory" \
	connect "${B[@]}"

# The derived host ID is stored once, by a connect that writes, and kept.
mkdir -p "$TMP/etc-site" "$TMP/etc-site2" "$TMP/etc-site3"
for e in etc-site etc-site2 etc-site3; do
	printf 'nqn.2014-08.org.example:site\n' >"$TMP/$e/hostnqn"
done
SITE="$S,hostnqn=nqn.2014-08.org.example:site,hostid=$SYSID"
prefill ${#SITE} "instance=4,cntlid=1"$'\n'
NVFAB_SYSFS=$TMP/site-sys NVFAB_FABRICS_DEV=$DEV NVFAB_ETC_NVME=$TMP/etc-site \
	run connect "${B[@]}"
[ "$RC" = 0 ] && [ "$OUT" = nvfab4 ] && [ "$(head -c ${#SITE} "$DEV")" = "$SITE" ] &&
	[ "$ERR" = "nvfabctl: connect: stored host ID $SYSID in $TMP/etc-site/hostid for the host NQN in $TMP/etc-site/hostnqn (from the system UUID)" ] &&
	[ "$(cat "$TMP/etc-site/hostid")" = "$SYSID" ]
result "connect stores the derived host ID in hostid, once, and says so" $?
mkdir -p "$TMP/etc-site4"
printf 'nqn.2014-08.org.example:site\n' >"$TMP/etc-site4/hostnqn"
NVFAB_SYSFS=$TMP/site-sys NVFAB_FABRICS_DEV=$DEV NVFAB_ETC_NVME=$TMP/etc-site4 \
	run connect "${B[@]}" -Q 8
[ "$RC" = 1 ] && [ ! -e "$TMP/etc-site4/hostid" ] &&
	[[ "$ERR" == *"invalid --queue-size 8"* ]] && [[ "$ERR" != *"stored host ID"* ]]
result "a connect refused for another value stores no host ID" $?
NVFAB_ETC_NVME=$TMP/etc-site dry "later connects use the stored ID, silently (no system UUID now)" \
	"$SITE" "${B[@]}"
NVFAB_ETC_NVME=$TMP/etc-site run show-hostnqn
o1=$OUT
NVFAB_ETC_NVME=$TMP/etc-site run show-hostid
[ "$o1" = nqn.2014-08.org.example:site ] && [ "$RC" = 0 ] && [ "$OUT" = "$SYSID" ]
result "show-hostnqn and show-hostid print what connect uses" $?
prefill ${#SITE} "instance=5,cntlid=1"$'\n'
NVFAB_FABRICS_DEV=$DEV NVFAB_ETC_NVME=$TMP/etc-site2 run connect "${B[@]}"
id2=$(cat "$TMP/etc-site2/hostid" 2>/dev/null)
NVFAB_ETC_NVME=$TMP/etc-site2 run connect --dry-run "${B[@]}"
[[ "$id2" =~ ^$UUID_RE$ ]] && [ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$OUT" = "$S,hostnqn=nqn.2014-08.org.example:site,hostid=$id2" ]
result "no system UUID: connect stores a random version-4 ID, and it is kept" $?
NVFAB_ETC_NVME=$TMP/etc-site3 expect_err "show-hostid before the first connect, no system UUID: none yet, and the fix" \
	"no host ID yet for the host NQN in $TMP/etc-site3/hostnqn: the first connect stores a random one in $TMP/etc-site3/hostid; or create one: nvfabctl gen-hostid > $TMP/etc-site3/hostid" \
	show-hostid
NVFAB_ETC_NVME=$TMP/etc-nqn-uuid expect_ok "show-hostid of a uuid host NQN is its UUID" \
	"$UUID" show-hostid
NVFAB_SYSFS=$TMP/site-sys expect_ok "gen-hostid: the system UUID, in lower case" \
	"$SYSID" gen-hostid
run gen-hostid
result "gen-hostid without a system UUID: a random version-4 UUID" \
	"$([ "$RC" = 0 ] && [[ "$OUT" =~ ^$UUID_RE$ ]]; echo $?)"
: >"$DEV"
NVFAB_FABRICS_DEV=$DEV expect_err "empty reply is an error" \
	"cannot parse the reply from $DEV: '' (expected instance=N,cntlid=M)" \
	connect "${B[@]}"
result "the device got exactly the option string" \
	"$([ "$(cat "$DEV")" = "$S" ]; echo $?)"
prefill ${#S} "instance=3,cntlid=7"$'\n'
NVFAB_FABRICS_DEV=$DEV expect_ok "read-back gives the device name" nvfab3 \
	connect "${B[@]}"
result "the option string was written at offset 0, in full" \
	"$([ "$(head -c ${#S} "$DEV")" = "$S" ] &&
		[ "$(tail -c +$((${#S} + 1)) "$DEV")" = "instance=3,cntlid=7" ]; echo $?)"
prefill ${#S} "instance=12,cntlid=65"$'\n'
NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}" -o json
[ "$RC" = 0 ] && [ -z "$ERR" ] && echo "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d == {"device": "nvfab12", "cntlid": 65} else 1)'
result "-o json gives device and cntlid" $?
prefill ${#S} "hello"
NVFAB_FABRICS_DEV=$DEV expect_err "unparsable reply is an error" \
	"cannot parse the reply from $DEV: 'hello'" connect "${B[@]}"
prefill ${#S} "instance=-1,cntlid=-1,transport=%s"
NVFAB_FABRICS_DEV=$DEV expect_err "placeholder reply (no controller) is an error" \
	"cannot parse the reply" connect "${B[@]}"
prefill ${#S} "instance=4"
NVFAB_FABRICS_DEV=$DEV expect_err "reply without cntlid is an error" \
	"cannot parse the reply" connect "${B[@]}"
NVFAB_FABRICS_DEV=/dev/full expect_err "write error is reported" \
	"failed to write to /dev/full: No space left on device" connect "${B[@]}"
prefill ${#S} "instance=5,cntlid=1"
NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}" -v
[ "$RC" = 0 ] && [ "$OUT" = nvfab5 ] && [ "$ERR" = "nvfabctl: connect: options: $S" ]
result "-v shows the option string on stderr" $?
# The in-kernel host has the subsystem connected too: a warning, and the
# connect goes on.
mkdir -p "$TMP/both-sys/class/nvme-subsystem/nvme-subsys0" \
	"$TMP/both-sys/class/nvme-subsystem/nvme-subsys3"
echo nqn.x:y >"$TMP/both-sys/class/nvme-subsystem/nvme-subsys0/subsysnqn"
echo nqn.x:other >"$TMP/both-sys/class/nvme-subsystem/nvme-subsys3/subsysnqn"
prefill ${#S} "instance=5,cntlid=1"
NVFAB_SYSFS=$TMP/both-sys NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}"
[ "$RC" = 0 ] && [ "$OUT" = nvfab5 ] && [ "$ERR" = "nvfabctl: connect: warning: subsystem nqn.x:y is also connected by the in-kernel NVMe host (nvme-subsys0): its namespaces show up twice, as /dev/nvmeXnY and /dev/nvfabXnY, and must be used through one host only; 'nvme disconnect -n nqn.x:y' ends the other (at boot nvme-cli's nvmf-autoconnect.service connects what /etc/nvme/discovery.conf and config.json list)" ]
result "connect: the in-kernel host has the subsystem too: a warning naming it, connected anyway" $?
prefill ${#S} "instance=5,cntlid=1"
echo nqn.x:z >"$TMP/both-sys/class/nvme-subsystem/nvme-subsys0/subsysnqn"
NVFAB_SYSFS=$TMP/both-sys NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}"
result "connect: in-kernel subsystems of other NQNs: no warning" \
	"$([ "$RC" = 0 ] && [ "$OUT" = nvfab5 ] && [ -z "$ERR" ]; echo $?)"
SK="$S,dhchap_secret=$K1"
prefill ${#SK} "instance=6,cntlid=1"
NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}" -v -S "$K1"
[ "$RC" = 0 ] && [ "$OUT" = nvfab6 ] &&
	[ "$ERR" = "nvfabctl: connect: options: $S,dhchap_secret=<hidden>" ] &&
	[ "$(head -c ${#SK} "$DEV")" = "$SK" ]
result "-v hides the secret; the device gets it" $?
# Key files: -S and -C take the absolute path of a root-owned file that
# only its owner may read; the secret goes to the device, never to the
# screen; anything else is refused, naming the file. They must be
# owned by root: as another user the 11 checks are skipped.
key_file_tests() {
	KD=$TMP/keyfiles
	mkdir -p "$KD"
	printf '%s\n' "$K1" >"$KD/host.key"
	chmod 600 "$KD/host.key"
	SKC="$S,dhchap_secret=$K1,dhchap_ctrl_secret=$K1"
	prefill ${#SKC} "instance=7,cntlid=1"
	NVFAB_FABRICS_DEV=$DEV run connect "${B[@]}" -v -S "$KD/host.key" -C "$KD/host.key"
	[ "$RC" = 0 ] && [ "$OUT" = nvfab7 ] &&
		[ "$ERR" = "nvfabctl: connect: options: $S,dhchap_secret=<hidden>,dhchap_ctrl_secret=<hidden>" ] &&
		[ "$(head -c ${#SKC} "$DEV")" = "$SKC" ]
	result "-S, -C FILE: the secrets read from a 0600 key file, sent, not shown" $?
	printf '%s' "$K1" >"$KD/nonl.key"
	chmod 400 "$KD/nonl.key"
	dry "a 0400 key file without a final newline" "$S,dhchap_secret=<hidden>" \
		"${B[@]}" -S "$KD/nonl.key"
	cp -p "$KD/host.key" "$KD/open.key"
	chmod 640 "$KD/open.key"
	expect_err "a key file readable by its group is refused, naming it and its mode" \
		"key file $KD/open.key for --dhchap-secret has mode 0640: group and others must have no access (chmod 600)" \
		connect "${B[@]}" -S "$KD/open.key"
	chmod 606 "$KD/open.key"
	expect_err "a key file others may write is refused" \
		"key file $KD/open.key for --dhchap-ctrl-secret has mode 0606" \
		connect "${B[@]}" -C "$KD/open.key"
	ln -s "$KD/host.key" "$KD/link.key"
	expect_err "a symbolic link is refused" \
		"key file $KD/link.key for --dhchap-secret is a symbolic link: name the file itself" \
		connect "${B[@]}" -S "$KD/link.key"
	expect_err "a missing key file is refused with the system's reason" \
		"key file $KD/none.key for --dhchap-secret: No such file or directory" \
		connect "${B[@]}" -S "$KD/none.key"
	expect_err "a directory is not a key file" \
		"key file $KD for --dhchap-secret is not a regular file" connect "${B[@]}" -S "$KD"
	: >"$KD/empty.key"
	chmod 600 "$KD/empty.key"
	expect_err "an empty key file is refused" "key file $KD/empty.key for --dhchap-secret is empty" \
		connect "${B[@]}" -S "$KD/empty.key"
	printf '%s\n%s\n' "$K1" "$K1" >"$KD/two.key"
	chmod 600 "$KD/two.key"
	expect_err "a key file of two lines is refused" \
		"key file $KD/two.key for --dhchap-secret holds more than one line" \
		connect "${B[@]}" -S "$KD/two.key"
	printf '%s,hostnqn=nqn.x:evil\n' "$K1" >"$KD/comma.key"
	chmod 600 "$KD/comma.key"
	expect_err "a ',' in a key file cannot inject a key either" \
		"invalid --dhchap-secret: must not contain ','" connect "${B[@]}" -S "$KD/comma.key"
	cp -p "$KD/host.key" "$KD/nobody.key"
	chown 65534 "$KD/nobody.key"
	expect_err "a key file not owned by root is refused" \
		"key file $KD/nobody.key for --dhchap-secret is owned by uid 65534: it must be owned by root" \
		connect "${B[@]}" -S "$KD/nobody.key"
}
if [ "$(id -u)" = 0 ]; then
	key_file_tests
else
	for i in $(seq 11); do
		ktap_skip "key file check $i" "not root: a key file must be owned by root"
	done
fi
if [ -n "$SHIM" ]; then
	prefill ${#S} "instance=5,cntlid=1"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_LOG=$TMP/wlog LD_PRELOAD=$SHIM \
		run connect "${B[@]}"
	[ "$RC" = 0 ] && [ "$(cat "$TMP/wlog")" = "${#S}" ]
	result "exactly one write(2) of the whole string" $?
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=93 LD_PRELOAD=$SHIM \
		expect_err "EPROTONOSUPPORT names the missing transport module" \
		"Protocol not supported (no transport module nvfab-tcp loaded)" \
		connect "${B[@]}"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=22 LD_PRELOAD=$SHIM \
		expect_err "EINVAL points at dmesg" \
		"Invalid argument (invalid option, see dmesg)" connect "${B[@]}"
	printf '6,1,0,-;nvfab_tcp: an older message\n' >"$TMP/kmsg"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=22 LD_PRELOAD=$SHIM \
		NVFAB_KMSG=$TMP/kmsg NVFAB_FAKE_WRITE_KMSG="nvfab_fabrics: hostid aaaaaaaa-0000-0000-0000-000000000001 is already in use with hostnqn nqn.h:1, not nqn.h:2" \
		expect_err "EINVAL: the kernel's own message, which names the option (not 'see dmesg')" \
		"failed to write to $DEV: Invalid argument (kernel: nvfab_fabrics: hostid aaaaaaaa-0000-0000-0000-000000000001 is already in use with hostnqn nqn.h:1, not nqn.h:2)" \
		connect "${B[@]}"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=95 LD_PRELOAD=$SHIM \
		NVFAB_KMSG=$TMP/kmsg NVFAB_FAKE_WRITE_KMSG="nvfab_fabrics: option 'tls' is not supported: this kernel lacks the handshake upcall, kTLS or nvme-keyring" \
		run connect "${B[@]}" --tls
	[ "$RC" = 95 ] && [[ "$ERR" == *"Operation not supported (kernel: nvfab_fabrics: option 'tls' is not supported"* ]]
	result "EOPNOTSUPP from the kernel: exit status 95, as the man page says" $?
	# Connects in parallel (config apply) log at the same time: quoted are
	# the records that name this target, when some do.
	OTHER="nvfab nvfab7: new ctrl: NQN \"nqn.x:y\", addr 198.51.100.9, 2 I/O queues"
	MINE="nvfab nvfab8: queue 0: connect to 192.0.2.2:4420 failed: -111"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=111 LD_PRELOAD=$SHIM \
		NVFAB_KMSG=$TMP/kmsg NVFAB_FAKE_WRITE_KMSG="$OTHER|$MINE" \
		expect_err "refused: of the kernel's records, those naming this target's address" \
		"failed to write to $DEV: Connection refused (kernel: $MINE)" connect "${B[@]}"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_ERRNO=22 LD_PRELOAD=$SHIM \
		NVFAB_KMSG=$TMP/kmsg NVFAB_FAKE_WRITE_KMSG="$OTHER|nvfab_fabrics: queue_size 8 is outside 16..1024" \
		expect_err "no record names the address: all of nvfab's records are quoted" \
		"failed to write to $DEV: Invalid argument (kernel: $OTHER; nvfab_fabrics: queue_size 8 is outside 16..1024)" \
		connect "${B[@]}"
	prefill ${#S} "instance=6,cntlid=1"$'\n'
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_DELAY_MS=1200 LD_PRELOAD=$SHIM \
		NVFAB_WAIT_NOTICE_MS=300 run connect "${B[@]}"
	[ "$RC" = 0 ] && [ "$OUT" = nvfab6 ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[ "$ERR" = "nvfabctl: connect: still waiting after 0.3 s for tcp 192.0.2.2 port 4420 (subsystem nqn.x:y) to answer (the kernel ends the attempt with an error if it never does)" ]
	result "a connect slow to answer says what it waits for, once per interval" $?
else
	ktap_fail "exactly one write(2) of the whole string (shim did not build)"
	ktap_fail "EPROTONOSUPPORT hint (shim did not build)"
	ktap_fail "EINVAL: the kernel's message (shim did not build)"
	ktap_fail "EOPNOTSUPP: exit status 95 (shim did not build)"
	ktap_fail "kernel records naming the target (shim did not build)"
	ktap_fail "kernel records, none naming the target (shim did not build)"
	ktap_fail "a slow connect says what it waits for (shim did not build)"
	ktap_fail "EINVAL hint (shim did not build)"
fi

# --- NVMe/TCP TLS: --tls, --keyring, --tls-key ---------------------------------
# The serials go to the kernel in decimal, keyring and tls_key after the
# numbers, tls last of the flags; --keyring and --tls-key imply --tls. A
# keyring's name is looked up in a fake /proc/keys (NVFAB_PROC_KEYS).
KEYS=$TMP/proc-keys
cat >"$KEYS" <<'EOKEYS'
0e0dd3a1 I------     1 perm 1f0f0000     0     0 keyring   .nvme: empty
00000001 I--Q---     2 perm 3f030000     0     0 keyring   _ses: 1
2a0be3c4 I------     1 perm 3f010000     0     0 psk       NVMe0R01 nqn.h nqn.x:y: 32
3b9aca07 I------     1 perm 3f010000     0     0 keyring   .nvme-other
1234abcd I--Q---     1 perm 1f030000     0     0 keyring   site ring: 2
00000007 I--Q---     1 perm 3f030000     0     0 keyring   _ses: 1
0000002a I------     1 perm 3f010000     0     0 user      .nvmf
EOKEYS
export NVFAB_PROC_KEYS=$KEYS
dry "--tls" "$S,tls" "${B[@]}" --tls
dry "--keyring=12345 implies tls" "$S,keyring=12345,tls" "${B[@]}" --keyring=12345
dry "--keyring 0x1f is passed in decimal" "$S,keyring=31,tls" "${B[@]}" --keyring 0x1f
dry "--keyring .nvme: its serial from /proc/keys, in decimal" \
	"$S,keyring=235787169,tls" "${B[@]}" --keyring .nvme
dry "--keyring NAME: a description with blanks, before ': N'" \
	"$S,keyring=305441741,tls" "${B[@]}" --keyring "site ring"
dry "--keyring NAME: the whole description, not a prefix" \
	"$S,keyring=1000000007,tls" "${B[@]}" --keyring=.nvme-other
dry "--tls-key=0x2a is passed in decimal, implies tls" "$S,tls_key=42,tls" \
	"${B[@]}" --tls-key=0x2a
dry "--tls-key decimal, with --tls" "$S,tls_key=42,tls" "${B[@]}" --tls --tls-key 42
dry "--tls-key 0x7fffffff, the largest serial" "$S,tls_key=2147483647,tls" \
	"${B[@]}" --tls-key 0X7FFFFFFF
dry "TLS keys after the numbers, tls after the other flags" \
	"$S,nr_io_queues=2,keyring=7,tls_key=42,hdr_digest,tls" \
	"${B[@]}" --tls -g --tls-key 0x2a --keyring 7 -i 2
expect_err "--keyring: an unknown name is refused, naming it" \
	"keyring .foo not found in $KEYS" connect "${B[@]}" --keyring=.foo
expect_err "--keyring: a name found only as another type is refused" \
	"keyring .nvmf not found in $KEYS" connect "${B[@]}" --keyring=.nvmf
expect_err "--keyring: a name two keyrings have is refused" \
	"keyring _ses is not unique in $KEYS (serials 1 and 7): give its serial" \
	connect "${B[@]}" --keyring _ses
expect_err "--keyring: a name is never pasted into the string" \
	"keyring .nvme,tls_key=1 not found in $KEYS" \
	connect --dry-run "${B[@]}" --keyring ".nvme,tls_key=1"
NVFAB_PROC_KEYS=$TMP/none expect_err "--keyring NAME: /proc/keys unreadable" \
	"cannot open $TMP/none to find keyring .nvme: No such file or directory" \
	connect "${B[@]}" --keyring .nvme
expect_err "--keyring: hex as /proc/keys shows it, without 0x, is refused" \
	"invalid --keyring '0e0dd3a1': a key serial is decimal (no leading 0) or 0x-prefixed hex; 0x0e0dd3a1 if it is hex" \
	connect "${B[@]}" --keyring 0e0dd3a1
expect_err "--keyring 0 is refused" "invalid --keyring '0': a key serial is 1 to 2147483647" \
	connect "${B[@]}" --keyring=0
expect_err "--keyring -3 (a special keyring) is refused" \
	"invalid --keyring '-3': a key serial is decimal or 0x-prefixed hex" \
	connect "${B[@]}" --keyring=-3
expect_err "--keyring with an empty value" "empty value for --keyring" \
	connect "${B[@]}" --keyring=
expect_err "--tls-key=0 is refused" "invalid --tls-key '0': a key serial is 1 to 2147483647 (0x7fffffff)" \
	connect "${B[@]}" --tls-key=0
expect_err "--tls-key=abc is refused" "invalid --tls-key 'abc': a key serial is decimal (no leading 0) or 0x-prefixed hex; 0xabc if it is hex" \
	connect "${B[@]}" --tls-key=abc
expect_err "--tls-key beyond INT32_MAX is refused" \
	"invalid --tls-key '99999999999': a key serial is 1 to 2147483647" \
	connect "${B[@]}" --tls-key=99999999999
expect_err "--tls-key 0x80000000 is refused" \
	"invalid --tls-key '0x80000000': a key serial is 1 to 2147483647" \
	connect "${B[@]}" --tls-key=0x80000000
expect_err "--tls-key: a negative serial is refused" \
	"invalid --tls-key '-42': a key serial is decimal or 0x-prefixed hex" \
	connect "${B[@]}" --tls-key=-42
expect_err "--tls-key: a leading 0 (octal? hex from sysfs?) is refused" \
	"invalid --tls-key '00000042': a key serial is decimal (no leading 0) or 0x-prefixed hex; 0x00000042 if it is hex" \
	connect "${B[@]}" --tls-key=00000042
expect_err "--tls-key: 0x alone is refused" \
	"invalid --tls-key '0x': a key serial is decimal or 0x-prefixed hex" \
	connect "${B[@]}" --tls-key=0x
PSK=NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:
run connect "${B[@]}" --tls-key="$PSK"
[ "$RC" = 1 ] && [ -z "$OUT" ] &&
	[[ "$ERR" == "nvfabctl: connect: invalid --tls-key: expected a key serial, not a PSK"* ]] &&
	[[ "$ERR" != *VRLb* ]]
result "--tls-key: a PSK (nvme-cli's --tls-key) is refused, and not shown" $?
expect_err "--tls on rdma is refused" \
	"TLS (--tls, --keyring, --tls-key) is for transport tcp only, not rdma" \
	connect -t rdma -a 192.0.2.3 -n nqn.x:y --tls
expect_err "--keyring (implied tls) on rdma is refused" \
	"TLS (--tls, --keyring, --tls-key) is for transport tcp only, not rdma" \
	connect -t rdma -a 192.0.2.3 -n nqn.x:y --keyring 7
expect_err "--tls takes no value" "option '--tls=1' takes no argument" \
	connect "${B[@]}" --tls=1
printf 'untouched' >"$DEV"
NVFAB_FABRICS_DEV=$DEV expect_err "an unknown keyring connects nothing" \
	"keyring .foo not found in $KEYS" connect "${B[@]}" --keyring .foo
result "... the device was not touched" "$([ "$(cat "$DEV")" = untouched ]; echo $?)"
if [ -n "$SHIM" ]; then
	ST="$S,keyring=235787169,tls_key=42,tls"
	prefill ${#ST} "instance=9,cntlid=1"
	rm -f "$TMP/wdata"
	NVFAB_FABRICS_DEV=$DEV NVFAB_FAKE_WRITE_DATA=$TMP/wdata LD_PRELOAD=$SHIM \
		run connect "${B[@]}" -v --keyring .nvme --tls-key 0x2a
	[ "$RC" = 0 ] && [ "$OUT" = nvfab9 ] &&
		[ "$(cat "$TMP/wdata")" = "$ST" ] &&
		[ "$ERR" = "nvfabctl: connect: options: $ST" ]
	result "TLS: the device gets keyring=, tls_key= (decimal) and tls; -v shows them" $?
else
	ktap_fail "TLS: the device gets keyring=, tls_key= and tls (shim did not build)"
fi
export NVFAB_PROC_KEYS=$TMP/no-keys

# --- fake sysfs: list -------------------------------------------------------
SYS=$TMP/sys
# mk_ctrl N [ATTR=VALUE]...: controller nvfabN, linked from class/nvfab as
# in real sysfs, with an empty delete_controller.
mk_ctrl() {
	local n=$1 d=$SYS/devices/virtual/nvfab/nvfab$1 kv
	shift
	mkdir -p "$d" "$SYS/class/nvfab"
	ln -s "../../devices/virtual/nvfab/nvfab$n" "$SYS/class/nvfab/nvfab$n"
	: >"$d/delete_controller"
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" >"$d/${kv%%=*}"
	done
}
mk_ctrl 0 state=live transport=tcp address=traddr=192.0.2.2,trsvcid=4420 \
	subsysnqn=nqn.a cntlid=1 "model=Linux   " "serial=SN0  "
printf '6.12"\\\t\x01\xff\xc3\xa9\n' >"$SYS/devices/virtual/nvfab/nvfab0/firmware_rev"
mkdir -p "$SYS/devices/virtual/nvfab/nvfab0/nvfab0n1/queue" \
	"$SYS/devices/virtual/nvfab/nvfab0/nvfab0c0n1"
echo 2097152 >"$SYS/devices/virtual/nvfab/nvfab0/nvfab0n1/size"
echo 1 >"$SYS/devices/virtual/nvfab/nvfab0/nvfab0n1/nsid"
echo 512 >"$SYS/devices/virtual/nvfab/nvfab0/nvfab0n1/queue/logical_block_size"
echo 8 >"$SYS/devices/virtual/nvfab/nvfab0/nvfab0c0n1/size"
mk_ctrl 1 state=live transport=rdma address=traddr=192.0.2.3,trsvcid=4420 \
	subsysnqn=nqn.b cntlid=2
mk_ctrl 2 state=connecting transport=tcp address=traddr=198.51.100.3,trsvcid=4420 \
	subsysnqn=nqn.b
mk_ctrl 3 state=live transport=tcp address=traddr=192.0.2.9 cntlid=0x10
printf 'nqn.q"\\\t\x01\xff\xc3\xa9\n' >"$SYS/devices/virtual/nvfab/nvfab3/subsysnqn"
mk_ctrl 10
# the multipath disk of subsystem 1 (controllers 1 and 2)
sub=$SYS/devices/virtual/nvfab-subsystem/nvfab-subsys1
mkdir -p "$sub" "$SYS/block/nvfab1n1" "$SYS/block/nvfab10n2" "$SYS/block/nvfab7n1"
ln -s ../../nvfab/nvfab1 "$sub/nvfab1"
ln -s ../../nvfab/nvfab2 "$sub/nvfab2"
ln -s ../../devices/virtual/nvfab-subsystem/nvfab-subsys1 "$SYS/block/nvfab1n1/device"
echo 4096 >"$SYS/block/nvfab1n1/size"
echo 3 >"$SYS/block/nvfab1n1/nsid"
mkdir -p "$SYS/block/nvfab1n1/queue"
echo 4096 >"$SYS/block/nvfab1n1/queue/logical_block_size"
echo 1 >"$SYS/block/nvfab7n1/size"
# not controllers
mkdir -p "$SYS/class/nvfab/nvfab-foo" "$SYS/class/nvfab/nvfab05"
: >"$SYS/class/nvfab/nvfab6"

export NVFAB_SYSFS=$SYS
run list
rows() { echo "$OUT" | awk 'NR > 2'; }
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | head -1 | awk '{ print $1, $2, $3, $4, $5, $6, $7 }')" = \
		"Name State Transport Address SubsysNQN Cntlid Namespaces" ] &&
	[ "$(rows | awk '{ printf "%s ", $1 }')" = "nvfab0 nvfab1 nvfab2 nvfab3 nvfab10 " ]
result "list: header, one row per controller, numeric order" $?
[ "$(rows | awk '{ print NF }' | sort -u)" = 7 ]
result "list: every row has 7 fields (control characters sanitised)" $?
[ "$(rows | awk '$1 == "nvfab0"' | tr -s ' ')" = \
	"nvfab0 live tcp traddr=192.0.2.2,trsvcid=4420 nqn.a 1 nvfab0n1:1.07GB" ]
result "list: controller row with its namespace and size" $?
[ "$(rows | awk '$1 == "nvfab10"' | tr -s ' ')" = "nvfab10 - - - - - nvfab10n2:-" ]
result "list: missing attributes and size show as -" $?
[ "$(rows | awk '$1 == "nvfab1" || $1 == "nvfab2" { print $7 }' | sort -u)" = \
	"nvfab1n1:2.10MB" ]
result "list: multipath disk listed under both its controllers" $?

run list -o json
echo "$OUT" | python3 -m json.tool >/dev/null 2>&1
result "list -o json is valid JSON" $?
echo "$OUT" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
d = {x["Name"]: x for x in doc["Devices"]}
ok = (list(doc) == ["Devices"] and
      list(d) == ["nvfab0n1", "nvfab1n1", "nvfab10n2"] and
      d["nvfab0n1"] == {"NameSpace": 1, "DevicePath": "/dev/nvfab0n1",
                        "GenericPath": None,
                        "Firmware": "6.12\"\\\t\x01\ufffd\u00e9",
                        "ModelNumber": "Linux", "SerialNumber": "SN0",
                        "UsedBytes": None, "MaximumLBA": 2097152,
                        "PhysicalSize": 1073741824, "SectorSize": 512,
                        "Name": "nvfab0n1", "Controllers": ["nvfab0"]} and
      {k: d["nvfab1n1"][k] for k in ("NameSpace", "MaximumLBA",
                                     "PhysicalSize", "SectorSize",
                                     "UsedBytes", "Firmware", "Controllers")} ==
          {"NameSpace": 3, "MaximumLBA": 512, "PhysicalSize": 2097152,
           "SectorSize": 4096, "UsedBytes": None, "Firmware": None,
           "Controllers": ["nvfab1", "nvfab2"]} and
      {k: d["nvfab10n2"][k] for k in ("NameSpace", "MaximumLBA",
                                      "PhysicalSize", "SectorSize",
                                      "Controllers")} ==
          {"NameSpace": None, "MaximumLBA": None, "PhysicalSize": None,
           "SectorSize": None, "Controllers": ["nvfab10"]})
sys.exit(0 if ok else 1)'
result "list -o json: one Devices entry per namespace, nvme-cli members, sizes from sysfs, nulls" $?
echo "$OUT" | python3 -c '
import json, sys
d = {x["Name"]: x for x in json.load(sys.stdin)["Devices"]}
sys.exit(0 if d["nvfab0n1"]["Firmware"] == "6.12\"\\\t\x01\ufffd\u00e9" else 1)'
result "list -o json: quotes, backslash, control and non-UTF-8 bytes escaped" $?
# Identify Namespace through the block device (the shim answers it)
mkdir -p "$TMP/devdir"
: >"$TMP/devdir/nvfab0n1"
: >"$TMP/devdir/nvfab10n2"
if [ -n "$SHIM" ]; then
	rm -f "$TMP/idlog"
	NVFAB_DEV_DIR=$TMP/devdir NVFAB_FAKE_IDNS=262144,131072,12 \
		NVFAB_FAKE_WRITE_LOG=$TMP/idlog LD_PRELOAD=$SHIM run list -o json
	echo "$OUT" | python3 -c '
import json, sys
d = {x["Name"]: x for x in json.load(sys.stdin)["Devices"]}
sz = lambda n: [d[n][k] for k in ("UsedBytes", "MaximumLBA", "PhysicalSize",
                                  "SectorSize")]
sys.exit(0 if (sz("nvfab0n1") == [536870912, 262144, 1073741824, 4096] and
               sz("nvfab10n2") == [536870912, 262144, 1073741824, 4096] and
               sz("nvfab1n1") == [None, 512, 2097152, 4096]) else 1)' &&
		[ "$(sort "$TMP/idlog" | tr '\n' ' ')" = "id 1 id 1 " ]
	result "list -o json: sizes and UsedBytes from Identify Namespace where the device opens" $?
	st=0
	for spec in 262144,131072,8 262144,131072,25 0,0,12 262144,131072,12,1,0 \
		262144,131072,12,32,15; do
		NVFAB_DEV_DIR=$TMP/devdir NVFAB_FAKE_IDNS=$spec LD_PRELOAD=$SHIM \
			run list -o json
		echo "$OUT" | python3 -c '
import json, sys
d = {x["Name"]: x for x in json.load(sys.stdin)["Devices"]}
sys.exit(0 if [d["nvfab0n1"][k] for k in ("UsedBytes", "MaximumLBA",
               "SectorSize")] == [None, 2097152, 512] else 1)' ||
			{ ktap_diag "Identify data $spec was used"; st=1; }
	done
	result "list -o json: bad Identify data (LBADS, zero NSZE, format index) falls back to sysfs" $st
else
	ktap_fail "list -o json: Identify Namespace (shim did not build)"
	ktap_fail "list -o json: bad Identify data (shim did not build)"
fi
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "list without controllers prints nothing" "" list
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "list -o json without controllers" '{
  "Devices": []
}' list --output-format=json
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "list -v -o json without controllers" '{
  "Devices": []
}' list -v -o json
expect_err "list -o bad" "invalid output format 'xml'" list -o xml

# --- fake sysfs: disconnect -------------------------------------------------
# deleted: the controllers whose delete_controller holds exactly "1"; the
# others must still be empty.
deleted() {
	local d n out=""
	for d in "$SYS"/devices/virtual/nvfab/nvfab*/; do
		n=$(basename "$d")
		[ -f "$d/delete_controller" ] || continue
		if cmp -s <(printf 1) "$d/delete_controller"; then
			out="$out $n"
		elif [ -s "$d/delete_controller" ]; then
			out="$out $n:bad"
		fi
		: >"$d/delete_controller"
	done
	echo "${out# }"
}

expect_ok "disconnect -n: both controllers of nqn.b" \
	"NQN:nqn.b disconnected 2 controller(s)" disconnect -n nqn.b
result "disconnect -n wrote 1 to exactly those" "$([ "$(deleted)" = "nvfab1 nvfab2" ]; echo $?)"
expect_ok "disconnect --nqn with a list" \
	"NQN:nqn.a disconnected 1 controller(s)
NQN:nqn.b disconnected 2 controller(s)" disconnect --nqn=nqn.a,nqn.b
result "disconnect --nqn list wrote 1 to those" \
	"$([ "$(deleted)" = "nvfab0 nvfab1 nvfab2" ]; echo $?)"
run disconnect -n nqn.none
[ "$RC" = 0 ] && [ "$OUT" = "NQN:nqn.none disconnected 0 controller(s)" ] &&
	[ "$ERR" = "nvfabctl: disconnect: warning: no controller of subsystem nqn.none: nothing to disconnect (nvfabctl list-subsys lists the subsystems connected)" ]
result "disconnect unknown NQN: nvme-cli's line and status 0, and a warning (a typo is not silent)" $?
result "disconnect unknown NQN wrote nothing" "$([ -z "$(deleted)" ]; echo $?)"
expect_ok "disconnect -d" "" disconnect -d nvfab1
result "disconnect -d wrote 1 to that one only" "$([ "$(deleted)" = nvfab1 ]; echo $?)"
expect_ok "disconnect --device=/dev/nvfab10" "" disconnect --device=/dev/nvfab10
result "disconnect --device /dev/ path" "$([ "$(deleted)" = nvfab10 ]; echo $?)"
expect_err "disconnect -d unknown device" "no such controller: nvfab99" \
	disconnect -d nvfab99
expect_err "disconnect -d refuses paths" "invalid device name '../nvfab0'" \
	disconnect -d ../nvfab0
expect_err "disconnect needs -n or -d" \
	"neither device name [--device | -d] nor NQN [--nqn | -n] provided" disconnect
expect_err "disconnect takes -n or -d, not both" "both device name" \
	disconnect -n nqn.a -d nvfab0
expect_ok "disconnect-all" "" disconnect-all
result "disconnect-all wrote 1 to every controller" \
	"$([ "$(deleted)" = "nvfab0 nvfab1 nvfab10 nvfab2 nvfab3" ]; echo $?)"
expect_ok "disconnect-all -r rdma" "" disconnect-all -r rdma
result "disconnect-all -r rdma: only the rdma controller" \
	"$([ "$(deleted)" = nvfab1 ]; echo $?)"
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "disconnect-all without controllers" "" disconnect-all
REL=$NVFAB_KERNEL_RELEASE
WHY_NOSRC="nvfab's modules are not installed for the running kernel $REL (nothing under $NVFAB_MODULES_DIR/$REL), and no DKMS source of nvfab is in $NVFAB_DKMS_SRC: install the nvfab-dkms package or the modules (README.md, 'Installing on a host with DKMS')"
st=0
for cmd in list list-subsys show-topology disconnect-all "disconnect -n nqn.x:y" "disconnect -d nvfab0"; do
	# shellcheck disable=SC2086 # the words of cmd
	NVFAB_SYSFS=$TMP/no-sys run $cmd
	[ "$RC" = 1 ] && [ -z "$OUT" ] &&
		[ "$ERR" = "nvfabctl: ${cmd%% *}: module nvfab-core is not loaded (no $TMP/no-sys/class/nvfab): $WHY_NOSRC" ] ||
		{ ktap_diag "$cmd: rc=$RC err=$ERR"; st=1; }
done
result "without module nvfab-core: list, list-subsys, show-topology, disconnect(-all) say so and why, status 1 (not an empty list)" $st

# Why: DKMS skipped the running kernel (outside BUILD_EXCLUSIVE_KERNEL),
# an override, built but not loaded, accepted but not built.
mkdir -p "$NVFAB_DKMS_SRC/nvfab-0.0.9" "$NVFAB_DKMS_SRC/nvfab-0.1.0"
cp "$REPO/dkms.conf" "$NVFAB_DKMS_SRC/nvfab-0.1.0/dkms.conf"
echo 'BUILD_EXCLUSIVE_KERNEL="^5\."' >"$NVFAB_DKMS_SRC/nvfab-0.0.9/dkms.conf"
RANGE=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$REPO/dkms.conf")
why_is() { # DESC RELEASE EXPECTED-WHY
	NVFAB_KERNEL_RELEASE=$2 NVFAB_SYSFS=$TMP/no-sys run list
	result "not loaded: $1" "$([ "$RC" = 1 ] &&
		[ "$ERR" = "nvfabctl: list: module nvfab-core is not loaded (no $TMP/no-sys/class/nvfab): $3" ]; echo $?)"
}
why_is "a kernel outside the DKMS range: the kernel, the range, its file, the override" 9.1.0-1-amd64 \
	"nvfab's modules are not built for the running kernel 9.1.0-1-amd64: DKMS builds nvfab 0.1.0 only for kernels matching BUILD_EXCLUSIVE_KERNEL=\"$RANGE\" ($NVFAB_DKMS_SRC/nvfab-0.1.0/dkms.conf), the range it is tested on; to build it for this kernel anyway, override the range in $NVFAB_ETC_DKMS/nvfab.conf and run 'dkms install nvfab/0.1.0 -k 9.1.0-1-amd64' (README.md, 'Kernels')"
why_is "a kernel inside the range, not built: dkms's log" 6.12.99-test-amd64 \
	"nvfab's modules are not installed for the running kernel 6.12.99-test-amd64 although DKMS accepts it ($NVFAB_DKMS_SRC/nvfab-0.1.0/dkms.conf): see 'dkms status nvfab' and /var/lib/dkms/nvfab/0.1.0/build/make.log (are the headers of 6.12.99-test-amd64 installed?)"
mkdir -p "$NVFAB_ETC_DKMS"
echo 'BUILD_EXCLUSIVE_KERNEL="^(6\.(1[2-9]|[2-9][0-9])|7\.|9\.)"' >"$NVFAB_ETC_DKMS/nvfab.conf"
why_is "the override accepts the kernel: named as the range's file" 9.1.0-1-amd64 \
	"nvfab's modules are not installed for the running kernel 9.1.0-1-amd64 although DKMS accepts it ($NVFAB_ETC_DKMS/nvfab.conf): see 'dkms status nvfab' and /var/lib/dkms/nvfab/0.1.0/build/make.log (are the headers of 9.1.0-1-amd64 installed?)"
mkdir -p "$NVFAB_MODULES_DIR/9.1.0-1-amd64/updates/dkms"
: >"$NVFAB_MODULES_DIR/9.1.0-1-amd64/updates/dkms/nvfab-core.ko.xz"
why_is "built but not loaded: modprobe, systemd-modules-load's journal" 9.1.0-1-amd64 \
	"nvfab's modules are installed for the running kernel 9.1.0-1-amd64 ($NVFAB_MODULES_DIR/9.1.0-1-amd64/updates/dkms/nvfab-core.ko.xz) but not loaded: load them with 'modprobe nvfab-tcp' or 'modprobe nvfab-rdma'; at boot systemd-modules-load loads those of modules-load.d/nvfab.conf (journalctl -b -u systemd-modules-load says why it did not)"
rm -rf "$NVFAB_MODULES_DIR" "$NVFAB_DKMS_SRC" "$NVFAB_ETC_DKMS"
rm "$SYS/devices/virtual/nvfab/nvfab3/delete_controller"
expect_err "missing delete_controller is an error" \
	"cannot delete nvfab3: No such file or directory" disconnect -d nvfab3
result "missing delete_controller is not created" \
	"$([ ! -e "$SYS/devices/virtual/nvfab/nvfab3/delete_controller" ]; echo $?)"

# --- fake sysfs: list-subsys ------------------------------------------------
# A second tree, laid out as the multipath kernel makes it: subsystems in
# devices/virtual/nvfab-subsystem with links to their controllers and one
# directory per namespace head, whose multipath/ links to the per-path
# disks under the controllers.
MP=$TMP/mpsys
VIRT=$MP/devices/virtual
# put DIR ATTR=VALUE...: write each attribute of DIR.
put() {
	local d=$1 kv
	shift
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" >"$d/${kv%%=*}"
	done
}
# mp_subsys S ATTR=VALUE...
mp_subsys() {
	local s=$1
	shift
	mkdir -p "$VIRT/nvfab-subsystem/nvfab-subsys$s" "$MP/class/nvfab-subsystem"
	ln -s "../../devices/virtual/nvfab-subsystem/nvfab-subsys$s" \
		"$MP/class/nvfab-subsystem/nvfab-subsys$s"
	put "$VIRT/nvfab-subsystem/nvfab-subsys$s" "$@"
}
# mp_ctrl S C ATTR=VALUE...: controller nvfabC of subsystem S
mp_ctrl() {
	local s=$1 c=$2
	shift 2
	mkdir -p "$VIRT/nvfab/nvfab$c" "$MP/class/nvfab"
	ln -s "../../devices/virtual/nvfab/nvfab$c" "$MP/class/nvfab/nvfab$c"
	ln -s "../../nvfab/nvfab$c" "$VIRT/nvfab-subsystem/nvfab-subsys$s/nvfab$c"
	put "$VIRT/nvfab/nvfab$c" "$@"
}
# mp_head S N ATTR=VALUE...: namespace head nvfabSnN
mp_head() {
	local s=$1 n=$2 d=$VIRT/nvfab-subsystem/nvfab-subsys$1/nvfab$1n$2
	shift 2
	mkdir -p "$d/multipath" "$MP/block"
	ln -s .. "$d/device"
	ln -s "../devices/virtual/nvfab-subsystem/nvfab-subsys$s/nvfab${s}n$n" \
		"$MP/block/nvfab${s}n$n"
	put "$d" "$@"
}
# mp_path S C N ATTR=VALUE...: path nvfabScCnN, a hidden disk of nvfabC
mp_path() {
	local s=$1 c=$2 n=$3 p=nvfab$1c$2n$3
	shift 3
	mkdir -p "$VIRT/nvfab/nvfab$c/$p"
	ln -s "../../../../nvfab/nvfab$c/$p" \
		"$VIRT/nvfab-subsystem/nvfab-subsys$s/nvfab${s}n$n/multipath/$p"
	ln -s "../devices/virtual/nvfab/nvfab$c/$p" "$MP/block/$p"
	put "$VIRT/nvfab/nvfab$c/$p" inflight="       0        0" "$@"
}
mp_subsys 2 subsysnqn=nqn.2014-08.org.example:mp-a iopolicy=service-time \
	"model=nvfab test ctrl    " "serial=SN-A  " firmware_rev=6.12
# Two hosts: A (HNQN, UUID) for most controllers, B for nvfab5; nvfab12
# has neither attribute, a third host (null, null).
UUID2=0b6ef9b8-8a4d-4b3e-9c6f-1f2e3d4c5b6a
HB=nqn.2014-08.org.example:host-b
HA=(hostnqn="$HNQN" hostid="$UUID")
mp_ctrl 2 0 transport=tcp address=traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1 \
	state=live subsysnqn=nqn.2014-08.org.example:mp-a cntlid=1 "${HA[@]}" \
	"model=nvfab test ctrl  " "serial=SN-A " firmware_rev=6.12
mp_ctrl 2 1 transport=tcp address=traddr=198.51.100.2,trsvcid=4420 state=live \
	"${HA[@]}"
mp_ctrl 2 3 transport=tcp address=traddr=203.0.113.2,trsvcid=4420 state=connecting \
	"${HA[@]}"
mp_ctrl 2 4 transport=rdma address=traddr=192.0.2.4,trsvcid=4420 state=live \
	"${HA[@]}"
mp_ctrl 2 5 transport=tcp address=traddr=192.0.2.5,trsvcid=4420 \
	"state=deleting (no IO)" hostnqn="$HB" hostid="$UUID2"
mp_head 2 1 nsid=1 size=2097152
mkdir "$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n1/queue"
put "$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n1/queue" logical_block_size=4096
mp_path 2 0 1 ana_state=optimized ana_grpid=1 routed_ios=1234 \
	"inflight=       3        1" "ps_status=lat_us=120 weight=2"
mp_path 2 1 1 ana_state=non-optimized ana_grpid=2 routed_ios=782 ps_status=
mp_head 2 2 nsid=2
mp_path 2 0 2 ana_state=optimized ana_grpid=1 routed_ios=500
mp_path 2 1 2 ana_state=non-optimized ana_grpid=2 routed_ios=250 \
	"ps_status=$(printf 'a\tb\001c\303\251')"
mp_path 2 3 2 ana_state=inaccessible ana_grpid=3 routed_ios=125
mp_path 2 4 2 ana_state=persistent-loss ana_grpid=4 routed_ios=100
mp_path 2 5 2 ana_state=change routed_ios=25 "inflight=5 6 7"	# no ana_grpid
mp_head 2 10 nsid=10
mp_path 2 0 10 ana_state=optimized ana_grpid=1 routed_ios=0
mp_path 2 1 10 ana_state=optimized ana_grpid=1x routed_ios=0
# diag DIR ATTR=VALUE...: the diag/ counters of a controller or path
# directory under $VIRT/nvfab; a directory without them is an older module
diag() {
	mkdir -p "$VIRT/nvfab/$1/diag"
	put "$VIRT/nvfab/$1/diag" "${@:2}"
}
diag nvfab0 reset_count=1 reconnect_count=3
diag nvfab1 reset_count=0 reconnect_count=0
diag nvfab0/nvfab2c0n1 multipath_failover_count=7 command_retry_count=2 \
	command_error_count=1
diag nvfab1/nvfab2c1n1 multipath_failover_count=0 command_retry_count=0 \
	command_error_count=0
# a path with counters on a controller without (nvfab3); one with a count
# above LLONG_MAX and one with an unreadable count (a directory): unknown
diag nvfab3/nvfab2c3n2 multipath_failover_count=18446744073709551615 \
	command_retry_count=4 command_error_count=5
diag nvfab1/nvfab2c1n2 multipath_failover_count=2 command_retry_count=0
mkdir "$VIRT/nvfab/nvfab1/nvfab2c1n2/diag/command_error_count"
# the heads of subsystem 2: both counters on nvfab2n1, one on nvfab2n2
mkdir -p "$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n1/diag" \
	"$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n2/diag"
put "$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n1/diag" \
	io_requeue_no_usable_path_count=3 io_fail_no_available_path_count=0
put "$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n2/diag" \
	io_fail_no_available_path_count=2
# subsystem 10: no iopolicy nor model, an empty serial, a controller
# without address, a dangling path link, an unreadable inflight, a head
# without nsid nor paths; links that lead nowhere, to a controller and to
# a path that exist in their controller's directory
mp_subsys 10 subsysnqn=nqn.2014-08.org.example:mp-b serial=
mp_ctrl 10 7 transport=tcp address=traddr=192.0.2.7,trsvcid=4420 state=live \
	"${HA[@]}"
mp_ctrl 10 12 transport=tcp state=resetting
ln -sfn ../../nowhere/nvfab12 "$VIRT/nvfab-subsystem/nvfab-subsys10/nvfab12"
mp_head 10 1 nsid=1
mp_path 10 7 1 ana_state=optimized ana_grpid=1 routed_ios=10
rm "$VIRT/nvfab/nvfab7/nvfab10c7n1/inflight"
mkdir "$VIRT/nvfab/nvfab7/nvfab10c7n1/inflight"
ln -sfn ../../nowhere/nvfab10c7n1 \
	"$VIRT/nvfab-subsystem/nvfab-subsys10/nvfab10n1/multipath/nvfab10c7n1"
mp_path 10 12 1 ana_state=optimized ana_grpid=1 routed_ios=30
rm -r "$VIRT/nvfab/nvfab12/nvfab10c12n1"
mp_head 10 2
rmdir "$VIRT/nvfab-subsystem/nvfab-subsys10/nvfab10n2/multipath"
# not subsystems, heads or paths
mkdir -p "$MP/class/nvfab-subsystem/nvfab-subsys05" \
	"$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n3x" \
	"$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n1/multipath/foo"
: >"$MP/class/nvfab-subsystem/nvfab-subsys6"
: >"$VIRT/nvfab-subsystem/nvfab-subsys2/nvfab2n4"

MP_A="nvfab-subsys2 - NQN=nqn.2014-08.org.example:mp-a
                iopolicy=service-time
\\
 +- nvfab0 tcp traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1 live
 +- nvfab1 tcp traddr=198.51.100.2,trsvcid=4420 live
 +- nvfab3 tcp traddr=203.0.113.2,trsvcid=4420 connecting
 +- nvfab4 rdma traddr=192.0.2.4,trsvcid=4420 live
 +- nvfab5 tcp traddr=192.0.2.5,trsvcid=4420 deleting (no IO)
    nvfab2n1 (nsid 1)
     +- nvfab2c0n1 nvfab0 optimized grp 1 ios 1234 (61.2%)
     +- nvfab2c1n1 nvfab1 non-optimized grp 2 ios 782 (38.8%)
    nvfab2n2 (nsid 2)
     +- nvfab2c0n2 nvfab0 optimized grp 1 ios 500 (50.0%)
     +- nvfab2c1n2 nvfab1 non-optimized grp 2 ios 250 (25.0%)
     +- nvfab2c3n2 nvfab3 inaccessible grp 3 ios 125 (12.5%)
     +- nvfab2c4n2 nvfab4 persistent-loss grp 4 ios 100 (10.0%)
     +- nvfab2c5n2 nvfab5 change grp - ios 25 (2.5%)
    nvfab2n10 (nsid 10)
     +- nvfab2c0n10 nvfab0 optimized grp 1 ios 0 (-)
     +- nvfab2c1n10 nvfab1 optimized grp - ios 0 (-)"
MP_B="nvfab-subsys10 - NQN=nqn.2014-08.org.example:mp-b
                 iopolicy=-
\\
 +- nvfab7 tcp traddr=192.0.2.7,trsvcid=4420 live
 +- nvfab12 tcp - resetting
    nvfab10n1 (nsid 1)
     +- nvfab10c7n1 nvfab7 optimized grp 1 ios 10 (100.0%)
     +- nvfab10c12n1 nvfab12 - grp - ios - (-)
    nvfab10n2 (nsid -)"

export NVFAB_SYSFS=$MP
expect_ok "list-subsys: subsystems, controllers, heads and paths in order" \
	"$MP_A

$MP_B" list-subsys
paths() { echo "$OUT" | awk '$1 == "+-" && $2 ~ /c[0-9]+n/'; }
st=0
[ "$(paths | awk '{ print $4 }' | sort -u | tr '\n' ' ')" = \
	"- change inaccessible non-optimized optimized persistent-loss " ] || st=1
[ "$(paths | wc -l)" = 11 ] && [ -z "$(paths | awk '{ c = $2
	sub(/^nvfab[0-9]+c/, "", c); sub(/n[0-9]+$/, "", c)
	if ("nvfab" c != $3) print }')" ] || st=1
result "list-subsys: every ANA state, each path's controller from its name" $st
echo "$OUT" | awk '
	/^    nvfab/ { head = $1 }
	$1 == "+-" && $NF ~ /%\)$/ { v = $NF; gsub(/[()%]/, "", v); sum[head] += v }
	END { for (h in sum) printf "%s %.1f\n", h, sum[h] }' | sort >"$TMP/sums"
[ "$(cat "$TMP/sums")" = "nvfab10n1 100.0
nvfab2n1 100.0
nvfab2n2 100.0" ]
result "list-subsys: the shares of each head sum to 100%" $?
[ "$(paths | awk '$2 ~ /n10$/ { print $7, $8, $9 }' | sort -u)" = "ios 0 (-)" ]
result "list-subsys: nothing routed yet gives no share" $?

run list-subsys -v
want_v="nvfab-subsys2 - NQN=nqn.2014-08.org.example:mp-a
                iopolicy=service-time
                model=nvfab test ctrl
                serial=SN-A
                firmware_rev=6.12
\\"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(echo "$OUT" | head -6)" = "$want_v" ] &&
	echo "$OUT" | grep -qxF "     +- nvfab2c0n1 nvfab0 optimized grp 1 ios 1234 (61.2%) inflight 3/1 ps: lat_us=120 weight=2" &&
	echo "$OUT" | grep -qxF "     +- nvfab2c1n1 nvfab1 non-optimized grp 2 ios 782 (38.8%) inflight 0/0 ps: -" &&
	echo "$OUT" | grep -qxF "     +- nvfab10c7n1 nvfab7 optimized grp 1 ios 10 (100.0%) inflight - ps: -" &&
	echo "$OUT" | grep -qxF "     +- nvfab2c5n2 nvfab5 change grp - ios 25 (2.5%) inflight - ps: -" &&
	echo "$OUT" | grep -qxF "     +- nvfab2c1n2 nvfab1 non-optimized grp 2 ios 250 (25.0%) inflight 0/0 ps: a?b?cé" &&
	echo "$OUT" | grep -qxF "                 serial=-"
result "list-subsys -v: model, serial (unpadded), firmware, in-flight counts, selector status (sanitised)" $?

run list-subsys -o json
echo "$OUT" | python3 -m json.tool >/dev/null 2>&1
result "list-subsys -o json is valid JSON" $?
cp "$TMP/out" "$TMP/ls.json"
# py SCRIPT [ARGS...]: run a Python check on $TMP/out (the last run's
# stdout, parsed as D) with UUID, UUID2, HNQN, HB in its environment.
py() {
	local code=$1
	shift
	UUID=$UUID UUID2=$UUID2 HNQN=$HNQN HB=$HB python3 -c "
import json, os, sys
D = json.load(open('$TMP/out'))
E = os.environ
$code" "$@"
}
py '
hosts = [(h["HostNQN"], h["HostID"]) for h in D]
subs = [[s["Name"] for s in h["Subsystems"]] for h in D]
ok = (hosts == [(E["HNQN"], E["UUID"]), (E["HB"], E["UUID2"]), (None, None)] and
      [list(h) for h in D] == [["HostNQN", "HostID", "Subsystems"]] * 3 and
      subs == [["nvfab-subsys2", "nvfab-subsys10"], ["nvfab-subsys2"],
               ["nvfab-subsys10"]])
sys.exit(0 if ok else 1)'
result "list-subsys -o json: hosts from the controllers' hostnqn/hostid, their subsystems" $?
py '
a = D[0]["Subsystems"][0]
b = D[1]["Subsystems"][0]
ok = (list(a)[:2] == ["Name", "NQN"] and
      {k: a[k] for k in ("Name", "NQN", "IOPolicy", "Model", "Serial",
                         "Firmware")} ==
          {"Name": "nvfab-subsys2", "NQN": "nqn.2014-08.org.example:mp-a",
           "IOPolicy": "service-time", "Model": "nvfab test ctrl",
           "Serial": "SN-A", "Firmware": "6.12"} and
      [c["Name"] for c in a["Paths"]] == ["nvfab0", "nvfab1", "nvfab3", "nvfab4"] and
      a["Paths"][0] == {"Name": "nvfab0", "Transport": "tcp",
          "Address": "traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1",
          "State": "live", "ANAState": "optimized", "Cntlid": "1"} and
      [c["ANAState"] for c in a["Paths"]] ==
          ["optimized", "non-optimized", None, None] and
      b["Paths"] == [{"Name": "nvfab5", "Transport": "tcp",
          "Address": "traddr=192.0.2.5,trsvcid=4420",
          "State": "deleting (no IO)", "ANAState": None, "Cntlid": None}] and
      [(n["Name"], n["NSID"]) for n in a["Namespaces"]] ==
          [("nvfab2n1", 1), ("nvfab2n2", 2), ("nvfab2n10", 10)] and
      [n["Name"] for n in b["Namespaces"]] == ["nvfab2n2"] and
      [p["Path"] for p in b["Namespaces"][0]["Paths"]] == ["nvfab2c5n2"])
sys.exit(0 if ok else 1)'
result "list-subsys -o json: Name, NQN, Paths per controller of the host (ANAState of the first namespace), nvfab extras" $?
py '
a = D[0]["Subsystems"][0]
p = a["Namespaces"][0]["Paths"]
ok = (p[0] == {"Name": "nvfab0", "Transport": "tcp",
               "Address": "traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1",
               "State": "live", "ANAState": "optimized", "Path": "nvfab2c0n1",
               "Controller": [{"Name": "nvfab0", "Transport": "tcp",
                   "Address": "traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1",
                   "State": "live"}],
               "ANAGroup": 1, "RoutedIOs": 1234, "IOSharePercent": 61.2,
               "Inflight": {"Read": 3, "Write": 1},
               "PSStatus": "lat_us=120 weight=2"} and
      p[1]["PSStatus"] == "" and
      a["Namespaces"][1]["Paths"][1]["PSStatus"] == "a\tb\x01c\u00e9")
sys.exit(0 if ok else 1)'
result "list-subsys -o json: a namespace path, nvme-cli 2.3 and later members and nvfab figures" $?
py '
share = {}
for h in D:
    for s in h["Subsystems"]:
        for n in s["Namespaces"]:
            share.setdefault(n["Name"], []).extend(
                p["IOSharePercent"] for p in n["Paths"])
ok = (share["nvfab2n2"] == [50.0, 25.0, 12.5, 10.0, 2.5] and
      all(abs(sum(share[n]) - 100) <= 0.1 for n in ("nvfab2n1", "nvfab2n2")) and
      share["nvfab2n10"] == [None, None] and share["nvfab10n1"] == [100.0, None])
sys.exit(0 if ok else 1)'
result "list-subsys -o json: IOSharePercent sums to 100 over the hosts, null without I/O" $?
py '
a = D[0]["Subsystems"][1]
c = D[2]["Subsystems"][0]
ok = (a["IOPolicy"] is None and a["Model"] is None and a["Serial"] == "" and
      [x["Name"] for x in a["Paths"]] == ["nvfab7"] and
      a["Namespaces"][0]["Paths"][0]["Inflight"] is None and
      a["Namespaces"][1] == {"NSID": None, "Name": "nvfab10n2", "Paths": []} and
      c["Paths"] == [{"Name": "nvfab12", "Transport": "tcp", "Address": None,
                      "State": "resetting", "ANAState": None, "Cntlid": None}] and
      c["Namespaces"][0]["Paths"] == [{"Name": "nvfab12", "Transport": "tcp",
          "Address": None, "State": "resetting", "ANAState": None,
          "Path": "nvfab10c12n1",
          "Controller": [{"Name": "nvfab12", "Transport": "tcp",
                          "Address": None, "State": "resetting"}],
          "ANAGroup": None, "RoutedIOs": None, "IOSharePercent": None,
          "Inflight": None, "PSStatus": None}] and
      c["Namespaces"][1] == a["Namespaces"][1] and
      {q["Path"]: (q["ANAGroup"], q["Inflight"])
       for h in D for s in h["Subsystems"] for n in s["Namespaces"]
       for q in n["Paths"] if q["Path"] in ("nvfab2c5n2", "nvfab2c1n10")} ==
          {"nvfab2c5n2": (None, None),
           "nvfab2c1n10": (None, {"Read": 0, "Write": 0})})
sys.exit(0 if ok else 1)'
result "list-subsys -o json: missing, unreadable and malformed attributes are null" $?
st=0
for dev in nvfab2n2 /dev/nvfab2c3n2; do
	run list-subsys -o json "$dev"
	py '
ana = [(p["Name"], p["ANAState"]) for h in D for s in h["Subsystems"]
       for p in s["Paths"]]
names = [s["Name"] for h in D for s in h["Subsystems"]]
sys.exit(0 if (names == ["nvfab-subsys2"] * 2 and
               ana == [("nvfab0", "optimized"), ("nvfab1", "non-optimized"),
                       ("nvfab3", "inaccessible"), ("nvfab4", "persistent-loss"),
                       ("nvfab5", "change")]) else 1)' || st=1
done
result "list-subsys -o json NAMESPACE or PATH: that subsystem, ANAState of that namespace" $st

expect_ok "list-subsys nvfabC: the subsystem of a controller" "$MP_A" \
	list-subsys nvfab4
expect_ok "list-subsys nvfabSnN: the subsystem of a namespace head" "$MP_B" \
	list-subsys nvfab10n1
expect_ok "list-subsys nvfab-subsysS" "$MP_A" list-subsys nvfab-subsys2
expect_ok "list-subsys /dev/nvfabC" "$MP_B" list-subsys /dev/nvfab7
expect_ok "list-subsys with a /sys path" "$MP_B" \
	list-subsys /sys/class/nvfab-subsystem/nvfab-subsys10/
expect_ok "list-subsys nvfabScCnN under \$NVFAB_SYSFS: the subsystem of a path" \
	"$MP_A" list-subsys "$MP/block/nvfab2c3n2"
run list-subsys -o json /dev/nvfab7
[ "$RC" = 0 ] && py '
sys.exit(0 if [[s["Name"] for s in h["Subsystems"]] for h in D] ==
         [["nvfab-subsys10"], ["nvfab-subsys10"]] else 1)'
result "list-subsys -o json DEVICE: only that subsystem, under each of its hosts" $?
expect_err "list-subsys unknown device" "no subsystem with device 'nvfab99'" \
	list-subsys nvfab99
expect_err "list-subsys unknown head, with its path" \
	"no subsystem with device '/dev/nvfab2n3'" list-subsys /dev/nvfab2n3
expect_err "list-subsys invalid device name" \
	"invalid device name 'sda' (expected nvfab-subsysS, nvfabN, nvfabSnN or nvfabScCnN)" \
	list-subsys sda
expect_err "list-subsys refuses relative paths" "invalid device name '../nvfab0'" \
	list-subsys ../nvfab0
expect_err "list-subsys takes one device" "unexpected argument 'nvfab1'" \
	list-subsys nvfab0 nvfab1
expect_err "list-subsys -o bad" "invalid output format 'xml'" list-subsys -o xml
run list
[ "$RC" = 0 ] && [ "$(echo "$OUT" | awk '$1 == "nvfab3" { print $7 }')" = \
	"nvfab2n1:1.07GB,nvfab2n2:-,nvfab2n10:-" ] && ! echo "$OUT" | grep -q 'c[0-9]*n'
result "list on the multipath tree: heads under their controllers, no path disks" $?

NVFAB_SYSFS=$TMP/loaded-sys expect_ok "list-subsys without subsystems prints nothing" \
	"" list-subsys
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "list-subsys -o json without subsystems" \
	'[]' list-subsys --output-format=json
mkdir -p "$TMP/empty-sys/class/nvfab-subsystem"
NVFAB_SYSFS=$TMP/empty-sys expect_err "list-subsys DEVICE without subsystems" \
	"no subsystem with device 'nvfab0'" list-subsys nvfab0
run list-subsys --help
st=$RC
for o in "-o, --output-format" "-v, --verbose" "-h, --help" DEVICE nvfab-subsysS \
	nvfabC nvfabSnN; do
	echo "$OUT" | grep -q -- "$o" || { ktap_diag "no $o"; st=1; }
done
help_ls=$OUT
run help list-subsys
result "list-subsys --help documents its options and DEVICE; help list-subsys too" \
	"$([ $st = 0 ] && [ "$RC" = 0 ] && [ "$OUT" = "$help_ls" ]; echo $?)"

# --- fake multipath sysfs: show-topology ------------------------------------
L0="nvfab0 tcp traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1"
L1="nvfab1 tcp traddr=198.51.100.2,trsvcid=4420"
L3="nvfab3 tcp traddr=203.0.113.2,trsvcid=4420"
L4="nvfab4 rdma traddr=192.0.2.4,trsvcid=4420"
TOPO_A="nvfab-subsys2 - NQN=nqn.2014-08.org.example:mp-a
                hostnqn=$HNQN
                iopolicy=service-time
\\
 +- ns 1
 \\
  +- $L0 live optimized
  +- $L1 live non-optimized
 +- ns 2
 \\
  +- $L0 live optimized
  +- $L1 live non-optimized
  +- $L3 connecting inaccessible
  +- $L4 live persistent-loss
 +- ns 10
 \\
  +- $L0 live optimized
  +- $L1 live optimized"
TOPO_A10="nvfab-subsys10 - NQN=nqn.2014-08.org.example:mp-b
                 hostnqn=$HNQN
                 iopolicy=-
\\
 +- ns 1
 \\
  +- nvfab7 tcp traddr=192.0.2.7,trsvcid=4420 live optimized"
TOPO_B="nvfab-subsys2 - NQN=nqn.2014-08.org.example:mp-a
                hostnqn=$HB
                iopolicy=service-time
\\
 +- ns 2
 \\
  +- nvfab5 tcp traddr=192.0.2.5,trsvcid=4420 deleting (no IO) change"
TOPO_C="nvfab-subsys10 - NQN=nqn.2014-08.org.example:mp-b
                 hostnqn=-
                 iopolicy=-
\\
 +- ns 1
 \\
  +- nvfab12 tcp - resetting -"
export NVFAB_SYSFS=$MP
expect_ok "show-topology: each host's subsystems, namespaces and paths, nvme-cli's layout" \
	"$TOPO_A

$TOPO_A10

$TOPO_B

$TOPO_C" show-topology
run show-topology -r ctrl
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(echo "$OUT" | head -20)" = "${TOPO_A%%\\*}\\
 +- $L0
 \\
  +- ns 1 live optimized
  +- ns 2 live optimized
  +- ns 10 live optimized
 +- $L1
 \\
  +- ns 1 live non-optimized
  +- ns 2 live non-optimized
  +- ns 10 live optimized
 +- $L3
 \\
  +- ns 2 connecting inaccessible
 +- $L4
 \\
  +- ns 2 live persistent-loss" ]
result "show-topology -r ctrl: each controller with its namespaces" $?
run show-topology --ranking=multipath
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(echo "$OUT" | sed -n 4,8p)" = "\\
 +- nvfab2n1 (ns 1)
 \\
  +- nvfab2c0n1 optimized $L0 live
  +- nvfab2c1n1 non-optimized $L1 live" ] &&
	echo "$OUT" | grep -qxF " +- nvfab10n2 (ns -)"
result "show-topology -r multipath: each namespace with its path disks, pathless ones too" $?
run show-topology -v nvfab0
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(echo "$OUT" | sed -n 4,6p)" = \
"                model=nvfab test ctrl
                serial=SN-A
                firmware=6.12" ] &&
	echo "$OUT" | grep -qxF "  +- $L0 live optimized grp 1 ios 1234 (61.2%) inflight 3/1 ps: lat_us=120 weight=2" &&
	echo "$OUT" | grep -qxF "  +- $L1 live non-optimized grp 2 ios 250 (25.0%) inflight 0/0 ps: a?b?cé" &&
	echo "$OUT" | grep -qxF "  +- nvfab5 tcp traddr=192.0.2.5,trsvcid=4420 deleting (no IO) change grp - ios 25 (2.5%) inflight - ps: -" &&
	! echo "$OUT" | grep -q subsys10
result "show-topology -v DEVICE: model, serial, firmware, nvfab's path figures (sanitised); one subsystem" $?
run show-topology -o json
echo "$OUT" | python3 -m json.tool >/dev/null 2>&1
result "show-topology -o json is valid JSON" $?
py '
ls = json.load(open(sys.argv[1]))
subs = [[(s["Name"], list(s)) for s in h["Subsystems"]] for h in D]
keys = ["Name", "NQN", "IOPolicy", "Model", "Serial", "Firmware", "Namespaces"]
ok = ([(h["HostNQN"], h["HostID"]) for h in D] ==
          [(E["HNQN"], E["UUID"]), (E["HB"], E["UUID2"]), (None, None)] and
      subs == [[("nvfab-subsys2", keys), ("nvfab-subsys10", keys)],
               [("nvfab-subsys2", keys)], [("nvfab-subsys10", keys)]] and
      all(t["Namespaces"] == l["Namespaces"]
          for th, lh in zip(D, ls)
          for t, l in zip(th["Subsystems"], lh["Subsystems"])) and
      "Qdepth" not in json.dumps(D))
sys.exit(0 if ok else 1)' "$TMP/ls.json"
result "show-topology -o json: hosts, subsystems, the namespaces and paths list-subsys shows" $?
echo queue-depth >"$VIRT/nvfab-subsystem/nvfab-subsys2/iopolicy"
run show-topology -o json
py '
q = {p["Path"]: p.get("Qdepth", "absent") for h in D for s in h["Subsystems"]
     for n in s["Namespaces"] for p in n["Paths"]}
sys.exit(0 if (q["nvfab2c0n1"] == 4 and q["nvfab2c1n1"] == 0 and
               q["nvfab2c5n2"] is None and q["nvfab10c7n1"] == "absent") else 1)'
result "show-topology -o json: Qdepth (in-flight requests) under iopolicy queue-depth" $?
echo service-time >"$VIRT/nvfab-subsystem/nvfab-subsys2/iopolicy"
expect_err "show-topology -r bad" "invalid ranking 'foo' (namespace, ctrl or multipath)" \
	show-topology -r foo
expect_err "show-topology -o bad" "invalid output format 'xml'" show-topology -o xml
expect_err "show-topology unknown device" "no subsystem with device 'nvfab99'" \
	show-topology nvfab99
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "show-topology without subsystems prints nothing" \
	"" show-topology
NVFAB_SYSFS=$TMP/loaded-sys expect_ok "show-topology -o json without subsystems" \
	"[]" show-topology -o json

# --- status: every namespace's health, for monitoring ----------------------------
run status
[ "$RC" = 2 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | grep '^  [^ ]')" = "  nvfab2n1 nsid 1: ok, 1 of 2 paths live and optimized
  nvfab2n2 nsid 2: ok, 1 of 5 paths live and optimized
  nvfab2n10 nsid 10: ok, 2 of 2 paths live and optimized
  nvfab10n1 nsid 1: ok, 1 of 2 paths live and optimized
  nvfab10n2 nsid -: NO LIVE OPTIMIZED PATH, 0 of 0 paths live and optimized" ] &&
	[ "$(echo "$OUT" | tail -1)" = "5 namespaces: 4 ok, 1 without a live optimized path" ] &&
	echo "$OUT" | grep -qxF "    nvfab2c0n1 nvfab0 live optimized grp 1 ios 1234 (61.2%) inflight 3/1 ps: lat_us=120 weight=2" &&
	echo "$OUT" | grep -qxF "    nvfab10c12n1 nvfab12 resetting - grp - ios - (-) inflight - ps: -"
result "status: each namespace ok or not, each path with its controller's state; exit 2 (a namespace without paths)" $?
run status -o json
[ "$RC" = 2 ] && echo "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = {n["Name"]: n for s in d["Subsystems"] for n in s["Namespaces"]}
p = h["nvfab2n1"]["Paths"][0]
sys.exit(0 if d["Healthy"] == 4 and d["Unhealthy"] == 1 and
         not h["nvfab10n2"]["Healthy"] and h["nvfab2n1"]["Healthy"] and
         h["nvfab2n10"]["LiveOptimizedPaths"] == 2 and
         p["State"] == "live" and p["ANAState"] == "optimized" and
         p["IOSharePercent"] == 61.2 and p["InflightReads"] == 3 else 1)'
result "status -o json: the same, with Healthy and Unhealthy counts" $?
run status
# each path's line, then its counters' line if it has any
diag_after() { echo "$OUT" | grep -A1 -xF "$1" | sed -n 2p; }
[ "$RC" = 2 ] &&
	[ "$(diag_after "    nvfab2c0n1 nvfab0 live optimized grp 1 ios 1234 (61.2%) inflight 3/1 ps: lat_us=120 weight=2")" = \
		"      errors 1 retries 2 failovers 7; nvfab0 resets 1 reconnects 3" ] &&
	[ "$(diag_after "    nvfab2c1n1 nvfab1 live non-optimized grp 2 ios 782 (38.8%) inflight 0/0 ps: -")" = \
		"      errors 0 retries 0 failovers 0; nvfab1 resets 0 reconnects 0" ] &&
	echo "$OUT" | grep -qxF "      errors 5 retries 4 failovers -; nvfab3 resets - reconnects -" &&
	echo "$OUT" | grep -qxF "      errors - retries 0 failovers 2; nvfab1 resets 0 reconnects 0" &&
	echo "$OUT" | grep -qxF "      errors - retries - failovers -; nvfab0 resets 1 reconnects 3" &&
	[ "$(diag_after "    nvfab10c7n1 nvfab7 live optimized grp 1 ios 10 (100.0%) inflight - ps: -")" = \
		"    nvfab10c12n1 nvfab12 resetting - grp - ios - (-) inflight - ps: -" ] &&
	[ "$(echo "$OUT" | grep -c '^      errors ')" = 7 ] &&
	[ "$(diag_after "  nvfab2n1 nsid 1: ok, 1 of 2 paths live and optimized")" = \
		"    no usable path: 3 bios waited, 0 failed" ] &&
	echo "$OUT" | grep -qxF "    no usable path: - bios waited, 2 failed" &&
	[ "$(echo "$OUT" | grep -c '^    no usable path: ')" = 2 ]
result "status: per path its errors, retries and failovers and its controller's resets and reconnects, per namespace the bios that waited or failed for want of a path; a missing counter (an older module) is -, none at all no line" $?
run status -o json
[ "$RC" = 2 ] && echo "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = {x["Name"]: x for x in d["Subsystems"]}
c = {x["Name"]: x for x in s["nvfab-subsys2"]["Controllers"]}
p = {q["Name"]: q for n in s["nvfab-subsys2"]["Namespaces"] for q in n["Paths"]}
old = {q["Name"]: q for n in s["nvfab-subsys10"]["Namespaces"] for q in n["Paths"]}
keys = ("command_error_count", "command_retry_count", "multipath_failover_count")
ok = (c["nvfab0"] == {"Name": "nvfab0", "State": "live", "reset_count": 1,
                      "reconnect_count": 3} and
      c["nvfab3"]["reset_count"] is None and
      c["nvfab3"]["reconnect_count"] is None and
      [p["nvfab2c0n1"][k] for k in keys] == [1, 2, 7] and
      [p["nvfab2c1n1"][k] for k in keys] == [0, 0, 0] and
      [p["nvfab2c1n2"][k] for k in keys] == [None, 0, 2] and
      [p["nvfab2c3n2"][k] for k in keys] == [5, 4, None] and
      len(old) == 2 and
      all(q[k] is None for q in old.values() for k in keys) and
      all(x["reset_count"] is None
          for x in s["nvfab-subsys10"]["Controllers"]) and
      [x["Name"] for x in s["nvfab-subsys10"]["Controllers"]] ==
      ["nvfab7", "nvfab12"] and
      [(n["io_requeue_no_usable_path_count"], n["io_fail_no_available_path_count"])
       for n in s["nvfab-subsys2"]["Namespaces"] if n["NSID"] in (1, 2)] ==
      [(3, 0), (None, 2)] and
      all(n["io_requeue_no_usable_path_count"] is None and
          n["io_fail_no_available_path_count"] is None
          for n in s["nvfab-subsys10"]["Namespaces"]))
sys.exit(0 if ok else 1)'
result "status -o json: the diag/ counters named after their files, per path, per namespace and in Controllers; null when missing" $?
echo connecting >"$VIRT/nvfab/nvfab0/state"
run status
[ "$RC" = 2 ] && echo "$OUT" | grep -qxF "  nvfab2n1 nsid 1: NO LIVE OPTIMIZED PATH, 0 of 2 paths live and optimized" &&
	[ "$(echo "$OUT" | tail -1)" = "5 namespaces: 2 ok, 3 without a live optimized path" ]
result "status: the optimized path's controller reconnecting: that namespace is not ok" $?
echo live >"$VIRT/nvfab/nvfab0/state"
mv "$MP/class/nvfab-subsystem/nvfab-subsys10" "$TMP/subsys10-link"
run status
result "status: every namespace with a live optimized path: exit 0" \
	"$([ "$RC" = 0 ] && [ "$(echo "$OUT" | tail -1)" = "3 namespaces: 3 ok, 0 without a live optimized path" ]; echo $?)"
timeout 5 "$BIN" status --watch=1 >"$TMP/watch.out" 2>&1
rc=$?
result "status --watch=1: a screen a second until stopped" \
	"$([ "$rc" = 124 ] && [ "$(grep -c '^3 namespaces: 3 ok' "$TMP/watch.out")" -ge 2 ] &&
		! grep -q $'\033' "$TMP/watch.out"; echo $?)"
mv "$TMP/subsys10-link" "$MP/class/nvfab-subsystem/nvfab-subsys10"
expect_err "status --watch=0" "invalid --watch 0: out of range, 1 to 3600 seconds" status --watch=0
NVFAB_SYSFS=$TMP/no-sys run status
result "status without nvfab-core: says so, exit 1" \
	"$([ "$RC" = 1 ] && [ -z "$OUT" ] && [[ "$ERR" == "nvfabctl: status: module nvfab-core is not loaded"* ]]; echo $?)"

# --- list -v -o json: nvme list -v's shape -----------------------------------
run list -v -o json
py '
h = D["Devices"]
a = h[0]["Subsystems"][0]
ok = (list(D) == ["Devices"] and
      [(x["HostNQN"], [s["Subsystem"] for s in x["Subsystems"]]) for x in h] ==
          [(E["HNQN"], ["nvfab-subsys2", "nvfab-subsys10"]),
           (E["HB"], ["nvfab-subsys2"]), (None, ["nvfab-subsys10"])] and
      list(a) == ["Subsystem", "SubsystemNQN", "Controllers", "Namespaces"] and
      a["SubsystemNQN"] == "nqn.2014-08.org.example:mp-a" and
      a["Controllers"][0] == {"Controller": "nvfab0", "Cntlid": "1",
          "SerialNumber": "SN-A", "ModelNumber": "nvfab test ctrl",
          "Firmware": "6.12", "Transport": "tcp",
          "Address": "traddr=192.0.2.2,trsvcid=4420,src_addr=192.0.2.1",
          "Slot": None, "Namespaces": [],
          "Paths": [{"Path": "nvfab2c0n1", "ANAState": "optimized"},
                    {"Path": "nvfab2c0n2", "ANAState": "optimized"},
                    {"Path": "nvfab2c0n10", "ANAState": "optimized"}],
          "State": "live"} and
      [c["Controller"] for c in a["Controllers"]] ==
          ["nvfab0", "nvfab1", "nvfab3", "nvfab4"] and
      a["Namespaces"][0] == {"NameSpace": "nvfab2n1", "Generic": None,
          "NSID": 1, "UsedBytes": None, "MaximumLBA": 262144,
          "PhysicalSize": 1073741824, "SectorSize": 4096} and
      [n["NameSpace"] for n in a["Namespaces"]] ==
          ["nvfab2n1", "nvfab2n2", "nvfab2n10"] and
      [n["NameSpace"] for n in h[1]["Subsystems"][0]["Namespaces"]] == ["nvfab2n2"])
sys.exit(0 if ok else 1)'
result "list -v -o json: hosts, subsystems, controllers with paths, namespaces with sizes" $?
run list -v
result "list -v: the normal table is the same" \
	"$([ "$RC" = 0 ] && [ "$OUT" = "$("$BIN" list)" ]; echo $?)"

# --- our JSON has nvme-cli's members (tests/fixtures) ------------------------
FIX=$HERE/fixtures
# keys_match DESC FIXTURE ARGS...: nvfabctl ARGS has every member of FIXTURE.
keys_match() {
	local desc=$1 fix=$2
	shift 2
	run "$@"
	if [ "$RC" = 0 ] && python3 "$HERE/json_keys.py" "$FIX/$fix" "$TMP/out" \
		>"$TMP/keys" 2>&1; then
		ktap_pass "$desc"
	else
		sed 's/^/# /' "$TMP/keys"
		ktap_fail "$desc"
	fi
}
keys_match "list -o json has nvme-cli's members" nvme-cli-list.json list -o json
keys_match "list -v -o json has nvme-cli's members" nvme-cli-list-verbose.json \
	list -v -o json
keys_match "list-subsys -o json NAMESPACE has nvme-cli's members" \
	nvme-cli-list-subsys.json list-subsys -o json nvfab2n1
keys_match "list-subsys -o json has nvme-cli's members" \
	nvme-cli-list-subsys.json list-subsys -o json
keys_match "show-topology -o json has nvme-cli 2.3's members" \
	nvme-cli-show-topology-2.3.json show-topology -o json
keys_match "show-topology -o json has later nvme-cli 2.x's members" \
	nvme-cli-show-topology.json show-topology -o json
run list -o json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["Devices"][1]["DevicePath"]
d["Devices"][0]["NameSpace"] = "1"
json.dump(d, open(sys.argv[2], "w"))' "$TMP/out" "$TMP/broken.json"
python3 "$HERE/json_keys.py" "$FIX/nvme-cli-list.json" "$TMP/broken.json" >"$TMP/keys"
[ $? = 1 ] && [ "$(cat "$TMP/keys")" = "\$.Devices[].NameSpace: ours is number/string, nvme-cli's number" ] &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["Devices"]:
    x.pop("DevicePath", None)
json.dump(d, open(sys.argv[1], "w"))' "$TMP/broken.json" &&
	! python3 "$HERE/json_keys.py" "$FIX/nvme-cli-list.json" "$TMP/broken.json" \
		>"$TMP/keys" && grep -qxF "\$.Devices[]: member 'DevicePath' missing" "$TMP/keys"
result "the member check fails on a missing member or a wrong type" $?


# --- duplicate connect --------------------------------------------------------
# A tree of controllers like the connect of B would make (host HNQN, from
# etc-nqn-uuid), each differing in one way, and one being deleted.
DUP=$TMP/dupsys
SYS_SAVED=$SYS
SYS=$DUP
mk_ctrl 0 state=live transport=tcp address=traddr=192.0.2.2,trsvcid=4420 \
	subsysnqn=nqn.x:y hostnqn="$HNQN"
mk_ctrl 1 "state=deleting (no IO)" transport=tcp \
	address=traddr=198.51.100.2,trsvcid=4420 subsysnqn=nqn.x:y hostnqn="$HNQN"
mk_ctrl 2 state=connecting transport=tcp \
	address=traddr=203.0.113.2,trsvcid=4420,host_traddr=203.0.113.1 \
	subsysnqn=nqn.x:y hostnqn="$HNQN"
mk_ctrl 3 state=live transport=rdma address=traddr=192.0.2.3,trsvcid=4420 \
	subsysnqn=nqn.x:y hostnqn="$HNQN"
SYS=$SYS_SAVED
export NVFAB_SYSFS=$DUP
export NVFAB_ETC_NVME=$TMP/etc-nqn-uuid
SH="$S,hostnqn=$HNQN,hostid=$UUID"
ALREADY="(--duplicate-connect to connect again)"
expect_err "a second connect like a live controller is refused" \
	"already connected: nvfab0 $ALREADY" connect --dry-run "${B[@]}"
expect_err "... also with the default trsvcid (4420)" \
	"already connected: nvfab0 $ALREADY" connect --dry-run -t tcp -a 192.0.2.2 -n nqn.x:y
dry "-D allows it, and passes duplicate_connect" "$SH,duplicate_connect" "${B[@]}" -D
dry "--duplicate-connect allows it" "$SH,duplicate_connect" "${B[@]}" --duplicate-connect
dry "another trsvcid is no duplicate" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,trsvcid=4421,hostnqn=$HNQN,hostid=$UUID" \
	-t tcp -a 192.0.2.2 -s 4421 -n nqn.x:y
dry "another host is no duplicate" "$S,hostnqn=$HB,hostid=$UUID2" "${B[@]}" \
	-q "$HB" -I "$UUID2"
dry "another host_traddr is no duplicate" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,host_traddr=192.0.2.1,trsvcid=4420,hostnqn=$HNQN,hostid=$UUID" \
	"${B[@]}" -w 192.0.2.1
dry "another subsystem NQN is no duplicate" \
	"nqn=nqn.x:z,transport=tcp,traddr=192.0.2.2,trsvcid=4420,hostnqn=$HNQN,hostid=$UUID" \
	-t tcp -a 192.0.2.2 -s 4420 -n nqn.x:z
dry "a controller being deleted is no duplicate" \
	"nqn=nqn.x:y,transport=tcp,traddr=198.51.100.2,hostnqn=$HNQN,hostid=$UUID" \
	-t tcp -a 198.51.100.2 -n nqn.x:y
expect_err "a connecting controller with the same host_traddr is one" \
	"already connected: nvfab2 $ALREADY" \
	connect --dry-run -t tcp -a 203.0.113.2 -w 203.0.113.1 -n nqn.x:y
expect_err "the transport counts: rdma" "already connected: nvfab3 $ALREADY" \
	connect --dry-run -t rdma -a 192.0.2.3 -n nqn.x:y
dry "the transport counts: tcp" \
	"nqn=nqn.x:y,transport=tcp,traddr=192.0.2.3,trsvcid=4420,hostnqn=$HNQN,hostid=$UUID" \
	-t tcp -a 192.0.2.3 -s 4420 -n nqn.x:y
NVFAB_ETC_NVME=$TMP/etc-empty expect_err "without a host NQN of ours, any host matches" \
	"already connected: nvfab0 $ALREADY" connect --dry-run "${B[@]}"
printf 'untouched' >"$DEV"
NVFAB_FABRICS_DEV=$DEV expect_err "a refused duplicate is not written to the device" \
	"already connected: nvfab0 $ALREADY" connect "${B[@]}"
result "the device was not touched" "$([ "$(cat "$DEV")" = untouched ]; echo $?)"
export NVFAB_ETC_NVME=$TMP/etc-empty


# --- bash completion ------------------------------------------------------------
COMP=$TOOLDIR/completion/nvfabctl.bash
bash -n "$COMP" 2>"$TMP/bashn"
result "completion: bash -n" "$(st=$?; [ -s "$TMP/bashn" ] && sed 's/^/# /' "$TMP/bashn"; echo $st)"
# complete WORD...: what the completion offers for "WORD... <TAB>", the
# last WORD being the one completed (split at ':' and '=' as bash does).
complete_words() {
	bash -c '
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_WORDBREAKS=" \"'"'"'><=;|&(:"
_nvfabctl
[ "${#COMPREPLY[@]}" = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@" 2>&1 |
		sort | tr '\n' ' '
}
complete_is() { # DESC WANT WORD...
	local desc=$1 want=$2 got
	shift 2
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || ktap_diag "got: $got"
	result "completion: $desc" "$([ "$got" = "$want" ]; echo $?)"
}
bash -c '. "$1"; complete -p nvfabctl' _ "$COMP" >"$TMP/cp" 2>&1
result "completion: sourcing it registers _nvfabctl for nvfabctl" \
	"$([ "$(cat "$TMP/cp")" = "complete -F _nvfabctl nvfabctl" ]; echo $?)"
run help
cmds="$(echo "$OUT" | awk '/^  [a-z]/ { print $1 }' | sort | tr '\n' ' ')"
complete_is "every command of help, and only those" "$cmds" nvfabctl ""
complete_is "a command prefix" "show-hostid show-hostnqn show-topology " nvfabctl sh
st=0
for v in connect disconnect disconnect-all list list-subsys show-topology \
	gen-hostnqn show-hostnqn discover connect-all discovery config status; do
	want=$("$BIN" "$v" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z_-]+' |
		grep -oE -- '--[a-z_-]+$' | sort | tr '\n' ' ')
	got=$(complete_words nvfabctl "$v" --)
	[ "$got" = "$want" ] || { ktap_diag "$v: got '$got', --help has '$want'"; st=1; }
done
result "completion: each command's long options are those its --help lists" $st
complete_is "short options too" "--help --output-format --ranking --verbose -h -o -r -v " \
	nvfabctl show-topology -
complete_is "-o values" "json normal " nvfabctl list -o ""
complete_is "config: its subcommands" "apply check dump import show " nvfabctl config ""
complete_is "--output-format=VALUE" "json " nvfabctl list-subsys --output-format = j
complete_is "--output-format= with nothing yet" "json normal " \
	nvfabctl show-topology --output-format =
complete_is "show-topology -r values" "ctrl multipath namespace " \
	nvfabctl show-topology -r ""
complete_is "connect -t values" "loop rdma tcp " nvfabctl connect -t ""
NVFAB_PROC_KEYS=$KEYS complete_is "--keyring: keyring names of /proc/keys, one word each" \
	".nvme .nvme-other _ses " nvfabctl connect --keyring ""
NVFAB_PROC_KEYS=$KEYS complete_is "connect-all --keyring=NAME" ".nvme .nvme-other " \
	nvfabctl connect-all --keyring = .n
complete_is "no guess for a --tls-key serial" "" nvfabctl discover --tls-key ""
complete_is "no guess for a connect value" "" nvfabctl connect -a ""
NVFAB_SYSFS=$SYS complete_is "disconnect -d: controllers from sysfs" \
	"nvfab1 nvfab10 " nvfabctl disconnect -d nvfab1
NVFAB_SYSFS=$DUP complete_is "disconnect -n: subsystem NQNs from sysfs, each once" \
	"nqn.x:y " nvfabctl disconnect -n ""
NVFAB_SYSFS=$MP complete_is "disconnect -n: an NQN split at its colon" \
	"mp-a " nvfabctl disconnect --nqn = nqn.2014-08.org.example : mp-
NVFAB_SYSFS=$MP complete_is "list-subsys: devices from sysfs" \
	"nvfab-subsys10 nvfab-subsys2 " nvfabctl list-subsys nvfab-s
complete_is "help: commands" "list list-subsys " nvfabctl help li
complete_is "discovery: its actions" "add list remove " nvfabctl discovery ""
mkdir -p "$TMP/ccfs/nvfab/discovery/site-a" "$TMP/ccfs/nvfab/discovery/site-b"
NVFAB_CONFIGFS=$TMP/ccfs complete_is "discovery remove: entries from configfs" \
	"site-a site-b " nvfabctl discovery remove ""
complete_is "discovery --connect values" "all match none " \
	nvfabctl discovery add x --connect ""
NVFAB_SYSFS=$SYS complete_is "discover -d: controllers from sysfs" \
	"nvfab1 nvfab10 " nvfabctl discover -d nvfab1
complete_is "connect-all -t values" "rdma tcp " nvfabctl connect-all -t ""

# --- make install, uninstall ------------------------------------------------------
DEST=$TMP/dest
make -s -C "$TOOLDIR" install DESTDIR="$DEST" >"$TMP/inst.log" 2>&1
st=$?
for f in usr/local/sbin/nvfabctl:755 usr/local/share/man/man8/nvfabctl.8:644 \
	usr/local/share/man/man5/nvfab.conf.5:644 \
	usr/local/share/bash-completion/completions/nvfabctl:644; do
	[ "$(stat -c %a "$DEST/${f%:*}" 2>/dev/null)" = "${f#*:}" ] ||
		{ ktap_diag "${f%:*}: not there with mode ${f#*:}"; st=1; }
done
cmp -s "$DEST/usr/local/share/man/man8/nvfabctl.8" "$REPO/Documentation/nvfabctl.8" &&
	cmp -s "$DEST/usr/local/share/bash-completion/completions/nvfabctl" "$COMP" &&
	[ "$("$DEST/usr/local/sbin/nvfabctl" version)" = "nvfabctl version $(cat "$REPO/VERSION")" ] ||
	st=1
[ "$(find "$DEST" -type f | wc -l)" = 4 ] || st=1
[ $st = 0 ] || sed 's/^/# /' "$TMP/inst.log"
result "make install DESTDIR: binary, man pages, completion under /usr/local" $st
make -s -C "$TOOLDIR" uninstall DESTDIR="$DEST" >"$TMP/inst.log" 2>&1
result "make uninstall removes them" \
	"$([ $? = 0 ] && [ "$(find "$DEST" -type f | wc -l)" = 0 ]; echo $?)"
make -s -C "$TOOLDIR" install DESTDIR="$DEST" PREFIX=/usr >"$TMP/inst.log" 2>&1
[ $? = 0 ] && [ -x "$DEST/usr/sbin/nvfabctl" ] &&
	[ -f "$DEST/usr/share/man/man8/nvfabctl.8" ] &&
	[ -f "$DEST/usr/share/bash-completion/completions/nvfabctl" ] &&
	make -s -C "$TOOLDIR" uninstall DESTDIR="$DEST" PREFIX=/usr >>"$TMP/inst.log" 2>&1 &&
	[ "$(find "$DEST" -type f | wc -l)" = 0 ]
result "PREFIX=/usr: install and uninstall there" $?

export NVFAB_SYSFS=$SYS

# --- nvfab-boot.service: what systemd makes of it ------------------------------
# (its command runs in persist.sh in the guests; here systemd checks the
# unit, with ExecStart pointed at this tree's binary)
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=nvfabctl |ExecStart=$BIN |" "$REPO/systemd/nvfab-boot.service" \
		>"$TMP/nvfab-boot.service"
	systemd-analyze verify --man=no "$TMP/nvfab-boot.service" >"$TMP/sa" 2>&1
	st=$?
	[ -s "$TMP/sa" ] && sed 's/^/# /' "$TMP/sa"
	result "nvfab-boot.service: systemd-analyze verify finds nothing" \
		"$([ $st = 0 ] && [ ! -s "$TMP/sa" ]; echo $?)"
else
	ktap_skip "nvfab-boot.service: systemd-analyze verify (no systemd-analyze)"
fi

# --- help, version, dispatch ------------------------------------------------
expect_ok "version from VERSION" "nvfabctl version $(cat "$REPO/VERSION")" version
run help
st=$RC
for v in connect disconnect disconnect-all list list-subsys show-topology \
	gen-hostnqn show-hostnqn discover connect-all discovery config; do
	echo "$OUT" | grep -qE "^  $v " || { ktap_diag "no $v"; st=1; }
done
result "help lists every command" $st
st=0
for v in show-topology gen-hostnqn show-hostnqn list; do
	run "$v" --help
	help_v=$OUT
	[ "$RC" = 0 ] && [[ "$help_v" == "usage: nvfabctl $v"* ]] || st=1
	run help "$v"
	[ "$RC" = 0 ] && [ "$OUT" = "$help_v" ] || st=1
done
run show-topology --help
for o in "-o, --output-format" "-r, --ranking" "-v, --verbose" DEVICE; do
	echo "$OUT" | grep -q -- "$o" || { ktap_diag "no $o"; st=1; }
done
run list --help
echo "$OUT" | grep -q -- "-v, --verbose" || st=1
result "show-topology, gen-hostnqn, show-hostnqn, list: --help and help COMMAND" $st
run connect --help
st=$RC
for o in transport traddr trsvcid nqn host-traddr host-iface hostnqn hostid \
	nr-io-queues nr-write-queues nr-poll-queues queue-size keep-alive-tmo \
	reconnect-delay ctrl-loss-tmo fast_io_fail_tmo tos duplicate-connect \
	disable-sqflow hdr-digest data-digest output-format dry-run dhchap-secret \
	dhchap-ctrl-secret tls tls-key tls-key-identity tls_key keyring concat; do
	echo "$OUT" | grep -q -- "--$o" || { ktap_diag "no --$o"; st=1; }
done
result "connect --help documents every long option" $st
help_connect=$OUT
run help connect
result "help connect is connect --help" "$([ "$RC" = 0 ] && [ "$OUT" = "$help_connect" ]; echo $?)"
expect_err "unknown command" "unknown command" frobnicate
run
result "no command: usage on stderr, exit 1" \
	"$([ "$RC" = 1 ] && [ -z "$OUT" ] && [[ "$ERR" == usage:* ]]; echo $?)"

# --- config: tests/config.sh, its KTAP nested ---------------------------------
echo "# nvfabctl: tests/config.sh"
"$HERE/config.sh" >"$TMP/config.ktap" 2>&1
st=$?
sed 's/^/    /' "$TMP/config.ktap"
result "config: tests/config.sh (nested above)" $st

# --- discover, connect-all, discovery: tests/discover.sh, nested ----------------
echo "# nvfabctl: tests/discover.sh"
"$HERE/discover.sh" >"$TMP/discover.ktap" 2>&1
st=$?
sed 's/^/    /' "$TMP/discover.ktap"
result "discover: tests/discover.sh (nested above)" $st

# --- the kernel's grammar before connecting: tests/opts.sh, nested ---------------
echo "# nvfabctl: tests/opts.sh"
"$HERE/opts.sh" >"$TMP/opts.ktap" 2>&1
st=$?
sed 's/^/    /' "$TMP/opts.ktap"
result "opts: tests/opts.sh (nested above)" $st

ktap_finish
