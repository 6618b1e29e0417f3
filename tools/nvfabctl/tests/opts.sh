#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of nvfabctl's checks of a connect's values, before
# anything reaches the kernel:
# - the kernel's grammar table (include/uapi/nvfab/fabrics-opts.h, printed by
#   tests/opts_table.c), walked key by key through connect --dry-run: the
#   values at each key's bounds accepted, those just outside refused, as
#   KUnit's nvfab_opts_table_test walks the same table through the
#   kernel's parser; a key of the table that has no command-line option
#   here fails the test, so a new key cannot be forgotten;
# - the values an admin gets wrong (a misspelt transport, an address with
#   a port or brackets, a port or number out of range, a host name), each
#   refused with a message naming the value and the rule, by connect
#   --dry-run and by config check; every error of a line reported, not
#   the first.
# KTAP output; exits 0 only if every test passes. run.sh runs it, nested.
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

UUID=aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee
mkdir -p "$TMP/etc"
printf 'nqn.2014-08.org.example:host-a\n' >"$TMP/etc/hostnqn"
printf '%s\n' "$UUID" >"$TMP/etc/hostid"
export NVFAB_ETC_NVME=$TMP/etc
export NVFAB_SYSFS=$TMP/no-sys
export NVFAB_FABRICS_DEV=$TMP/no-dev
export NVFAB_ETC_NVFAB=$TMP
export NVFAB_CONFIGFS=$TMP/no-cfs

B=(-t tcp -a 192.0.2.2 -n nqn.x:y)

run() {
	timeout 10 "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# ok DESC WANT-IN-STDOUT ARGS...: connect --dry-run succeeds, silently on
# stderr, its option string holding WANT.
ok() {
	local desc=$1 want=$2
	shift 2
	run connect --dry-run "$@"
	[ "$RC" = 0 ] && [ -z "$ERR" ] && [[ ",$OUT," == *",$want,"* ]]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected ,$want, in the option string"
	result "$desc" $st
}

# refused DESC TEXT ARGS...: connect --dry-run fails with one error line
# holding TEXT, and prints nothing.
refused() {
	local desc=$1 text=$2
	shift 2
	run connect --dry-run "$@"
	[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == *"$text"* ]]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected one line with: $text"
	result "$desc" $st
}

# a STRING of N bytes: 'a's
a_of() {
	printf 'a%.0s' $(seq 1 "$1")
}

if ! gcc -Wall -Wextra -Werror -I"$REPO/include" -o "$TMP/opts_table" \
	"$HERE/opts_table.c" >"$TMP/table.log" 2>&1; then
	ktap_header
	echo "1..0 # opts_table.c does not build"
	sed 's/^/# /' "$TMP/table.log"
	exit "$KSFT_FAIL"
fi
"$TMP/opts_table" >"$TMP/table"

# The command-line option of each key of the table; "-" where nvfabctl
# passes the key itself (discovery: connecting to the discovery NQN).
declare -A flag=(
	[transport]=--transport [traddr]=--traddr [trsvcid]=--trsvcid
	[nqn]=--nqn [queue_size]=--queue-size [nr_io_queues]=--nr-io-queues
	[reconnect_delay]=--reconnect-delay [ctrl_loss_tmo]=--ctrl-loss-tmo
	[keep_alive_tmo]=--keep-alive-tmo [hostnqn]=--hostnqn
	[host_traddr]=--host-traddr [host_iface]=--host-iface
	[hostid]=--hostid [duplicate_connect]=--duplicate-connect
	[disable_sqflow]=--disable-sqflow [hdr_digest]=--hdr-digest
	[data_digest]=--data-digest [nr_write_queues]=--nr-write-queues
	[nr_poll_queues]=--nr-poll-queues [tos]=--tos
	[fast_io_fail_tmo]=--fast_io_fail_tmo [discovery]=-
	[dhchap_secret]=--dhchap-secret [dhchap_ctrl_secret]=--dhchap-ctrl-secret
	[tls]=--tls [keyring]=--keyring [tls_key]=--tls-key
)

ktap_header
ktap_set_plan 88

# --- the grammar's table, key by key ------------------------------------------
nkeys=$(wc -l <"$TMP/table")
unmapped=$(while read -r key _; do
	[ -n "${flag[$key]:-}" ] || echo "$key"
done <"$TMP/table")
[ "$nkeys" = 27 ] && [ -z "$unmapped" ]
st=$?
[ $st = 0 ] || ktap_diag "keys: $nkeys; without a command-line option here: $unmapped"
result "table: 27 keys, each with its command-line option" $st

# The cases of one key, by kind: 4 for an int, 2 for a flag, ... (the plan
# above counts them: 9 ints x 4, 6 flags x 2 less discovery's, ...).
while read -r key kind min max; do
	f=${flag[$key]:-}
	[ "$f" = - ] && continue
	case $kind in
	int)
		ok "$key: $min (its least) accepted" "$key=$min" "${B[@]}" "$f=$min"
		ok "$key: $max (its most) accepted" "$key=$max" "${B[@]}" "$f=$max"
		refused "$key: $((min - 1)) refused with the range" \
			"invalid $f $((min - 1)): out of range" "${B[@]}" "$f=$((min - 1))"
		refused "$key: $((max + 1)) refused with the range" \
			"invalid $f $((max + 1)): out of range" "${B[@]}" "$f=$((max + 1))"
		;;
	flag)
		ok "$key: the flag alone" "$key" "${B[@]}" "$f"
		refused "$key: a value refused" "takes no argument" "${B[@]}" "$f=1"
		;;
	serial)
		ok "$key: serial $min accepted (implies tls)" "$key=$min" \
			"${B[@]}" "$f=$min"
		refused "$key: $((min - 1)) refused" "invalid $f '$((min - 1))'" \
			"${B[@]}" "$f=$((min - 1))"
		;;
	uuid)
		ok "$key: a UUID accepted" "$key=$UUID" "${B[@]}" "$f=$UUID"
		refused "$key: 35 hex digits refused" "not a UUID" \
			"${B[@]}" "$f=${UUID%?}"
		;;
	secret)
		ok "$key: DHHC-1: and $((min - 7)) more bytes accepted" \
			"$key=<hidden>" "${B[@]}" "$f=DHHC-1:$(a_of $((min - 7)))"
		refused "$key: one byte less refused" "not a DH-HMAC-CHAP secret" \
			"${B[@]}" "$f=DHHC-1:$(a_of $((min - 8)))"
		;;
	str)
		refused "$key: $((max + 1)) bytes refused (at most $max)" \
			"the limit is $max (option $key)" "${B[@]}" "$f=$(a_of $((max + 1)))"
		case $key in
		nqn | hostnqn | host_iface)
			ok "$key: $max bytes accepted" "$key=$(a_of "$max")" \
				"${B[@]}" "$f=$(a_of "$max")"
			;;
		*)	# addresses, ports and transports have rules of their own
			ok "$key: a good value accepted" "$key=$(case $key in
				transport) echo rdma ;; trsvcid) echo 65535 ;;
				*) echo 192.0.2.9 ;; esac)" "${B[@]}" "$f=$(case $key in
				transport) echo rdma ;; trsvcid) echo 65535 ;;
				*) echo 192.0.2.9 ;; esac)"
			;;
		esac
		;;
	*)
		result "$key: a kind of value this test knows ($kind)" 1
		;;
	esac
done <"$TMP/table"

# --- what an admin gets wrong ---------------------------------------------------
refused "a misspelt transport" \
	"invalid --transport 'tpc': nvfab has transports tcp and rdma" \
	-t tpc -a 192.0.2.2 -n nqn.x:y
refused "an IPv4 address with a part above 255" \
	"invalid --traddr '192.0.2.300': not an IPv4 or IPv6 address" \
	-t tcp -a 192.0.2.300 -n nqn.x:y
refused "an IPv6 address in brackets" \
	"invalid --traddr '[fe80::1]': an IPv6 address goes without brackets" \
	-t tcp -a '[fe80::1]' -n nqn.x:y
refused "an address with its port" \
	"invalid --traddr '192.0.2.2:4420': an address without a port (give port 4420 with --trsvcid)" \
	-t tcp -a 192.0.2.2:4420 -n nqn.x:y
refused "a port above 65535" "invalid --trsvcid '99999': a port number, 1 to 65535" \
	"${B[@]}" -s 99999
refused "a host address that is neither" \
	"invalid --host-traddr 'eth0!': not an IPv4 or IPv6 address" \
	"${B[@]}" -w 'eth0!'
refused "a host name that does not resolve" \
	"invalid --traddr 'nvfab-test.invalid': not an IPv4 or IPv6 address, and the host name does not resolve" \
	-t rdma -a nvfab-test.invalid -n nqn.x:y
run connect --dry-run -t tcp -a localhost -n nqn.x:y
[ "$RC" = 0 ] && [ -z "$ERR" ] && [[ "$OUT" == *",traddr=127.0.0.1"* || "$OUT" == *",traddr=::1"* ]]
result "a host name is resolved to its address, as nvme-cli does (localhost)" $?
ok "an IPv6 address with its scope" "traddr=fe80::1%lo" -t tcp -a 'fe80::1%lo' -n nqn.x:y
refused "-Q 8: the kernel's least queue size is 16" \
	"invalid --queue-size 8: out of range, 16 to 1024 (option queue_size)" "${B[@]}" -Q 8
refused "-c 0: reconnect_delay is at least a second" \
	"invalid --reconnect-delay 0: out of range, 1 to 86400" "${B[@]}" -c 0
refused "-k -5" "invalid --keep-alive-tmo -5: out of range, 0 to 4294967" "${B[@]}" -k -5
refused "-i 0" "invalid --nr-io-queues 0: out of range, 1 or more" "${B[@]}" -i 0
refused "a number too large for an int: out of range, not 'not an integer'" \
	"invalid --ctrl-loss-tmo 99999999999: out of range, at most 31536000" \
	"${B[@]}" -l 99999999999
refused "--hostid not-a-uuid: that it is no UUID, not that it needs --hostnqn" \
	"invalid --hostid 'not-a-uuid': not a UUID" "${B[@]}" -I not-a-uuid

run connect --dry-run -t tcp -a 192.0.2.2:4420 -n nqn.x:y -Q 8 -c 0 -k -5 -s 99999
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 5 ] &&
	[[ "$ERR" == *"--traddr '192.0.2.2:4420'"* ]] && [[ "$ERR" == *"--trsvcid '99999'"* ]] &&
	[[ "$ERR" == *"--queue-size 8"* ]] && [[ "$ERR" == *"--reconnect-delay 0"* ]] &&
	[[ "$ERR" == *"--keep-alive-tmo -5"* ]]
result "five errors of one connect: five messages, not the first only" $?

F=$TMP/nvfab.conf
printf 'connect -t tcp -a 192.0.2.2 -n nqn.x:y\nconnect -t tcp -a 192.0.2.300 -s 99999 -n nqn.x:z -Q 8\n' >"$F"
run config check "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] &&
	[ "$(echo "$ERR" | grep -c "^nvfabctl: config: $F:2: invalid ")" = 3 ] &&
	[[ "$ERR" == *"$F:2: invalid --traddr '192.0.2.300'"* ]] &&
	[[ "$ERR" == *"$F:2: invalid --queue-size 8"* ]] &&
	[[ "$ERR" != *"$F:1:"* ]]
st=$?
[ $st = 0 ] || ktap_diag "config check: each error of line 2 with FILE:2"
result "config check: each error of a line, with FILE:LINE, before boot" $st

ktap_finish
