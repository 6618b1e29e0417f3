#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of nvfabctl discover, connect-all and discovery: their
# flags and errors; discovery.conf; the Discovery Log Page printers
# (normal and JSON) on log pages made by mkdlp.py, good and malformed;
# the log read through the NVMe ioctl (answered by fake_shim.so: header,
# entries, header again, a GENCTR that moves, an NVMe status); the
# discovery controller made, read and deleted against a fake fabrics
# device and sysfs; connect-all's option strings, skips and referrals;
# discovery add/remove/list against a fake configfs. KTAP output; exits 0
# only if every test passes. run.sh runs it, nested.
#
# Environment the tool honours, pointed into a temp dir here:
#   NVFAB_ETC_NVME	 instead of /etc/nvme (discovery.conf, hostnqn, hostid)
#   NVFAB_CONFIGFS	 instead of /sys/kernel/config
#   NVFAB_SYSFS		 instead of /sys
#   NVFAB_FABRICS_DEV	 instead of /dev/nvfab-fabrics
#   NVFAB_DEV_DIR	 instead of /dev
#   NVFAB_PROC_KEYS	 instead of /proc/keys, for --keyring NAME
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SHIM=$TMP/fake_shim.so
if ! gcc -shared -fPIC -Wall -Wextra -Werror -o "$SHIM" "$HERE/fake_shim.c" \
	>"$TMP/shim.log" 2>&1; then
	sed 's/^/# /' "$TMP/shim.log"
	SHIM=/nonexistent-shim.so
fi
MKDLP=$HERE/mkdlp.py

mkdir -p "$TMP/etc" "$TMP/dev" "$TMP/sys/class/nvfab"
export NVFAB_ETC_NVME=$TMP/etc
export NVFAB_SYSFS=$TMP/sys
export NVFAB_FABRICS_DEV=$TMP/no-fabrics
export NVFAB_KMSG=$TMP/no-kmsg
export NVFAB_DEV_DIR=$TMP/dev
export NVFAB_CONFIGFS=$TMP/no-cfs
export NVFAB_PROC_KEYS=$TMP/proc-keys
printf '0e0dd3a1 I------     1 perm 1f0f0000     0     0 keyring   .nvme: 1\n' \
	>"$NVFAB_PROC_KEYS"

UUID=3fa85f64-5717-4562-b3fc-2c963f66afa6
HNQN=nqn.2014-08.org.nvmexpress:uuid:$UUID
DNQN=nqn.2014-08.org.nvmexpress.discovery
SUB1=nqn.2014-08.org.example:sub1
SUB2=nqn.2014-08.org.example:sub2
D0="nqn=$DNQN,transport=tcp,traddr=192.0.2.2"
NOID=": warning: no host identity ("

# run ARGS...: run the tool (10 s at most) with ENVS; sets RC, OUT, ERR
# (without the host identity warning: the fake /etc/nvme is empty).
ENVS=()
run() {
	timeout 10 env "${ENVS[@]}" "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(grep -vF "$NOID" "$TMP/err")
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

# left_out DESC WHY ENTRY: a log of a good entry and ENTRY: the good one
# printed, ENTRY left out with one warning naming entry 1 and WHY.
left_out() {
	"$MKDLP" "$TMP/lo.bin" "" "$3"
	run discover --log-file "$TMP/lo.bin"
	[ "$RC" = 0 ] &&
		[[ "$OUT" == *"Number of Records 1, Generation counter 1"* ]] &&
		[ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == "nvfabctl: discover: warning: discovery log entry 1 left out: $2"* ]]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected entry 1 left out: $2"
	result "malformed: $1" $st
}

# log_err DESC TEXT MKDLP-ARGS...: the whole log refused with TEXT.
log_err() {
	local desc=$1 text=$2
	shift 2
	"$MKDLP" "$TMP/bad.bin" "$@"
	expect_err "malformed: $desc" "$text" discover --log-file "$TMP/bad.bin"
}

# mk_ctrl N STATE TRADDR TRSVCID SUBSYSNQN: controller nvfabN in sysfs.
mk_ctrl() {
	local d=$TMP/sys/devices/virtual/nvfab/nvfab$1
	mkdir -p "$d"
	ln -sfn "../../devices/virtual/nvfab/nvfab$1" "$TMP/sys/class/nvfab/nvfab$1"
	echo "$2" >"$d/state"
	echo tcp >"$d/transport"
	echo "traddr=$3,trsvcid=$4" >"$d/address"
	echo "$5" >"$d/subsysnqn"
	echo "$HNQN" >"$d/hostnqn"
	: >"$d/delete_controller"
	: >"$TMP/dev/nvfab$1"
}

# prefill LEN REPLY: the fabrics device: the one write overwrites the
# first LEN bytes, the read returns REPLY.
prefill() {
	{
		head -c "$1" /dev/zero | tr '\0' '#'
		printf '%s' "$2"
	} >"$TMP/fabrics"
}

ktap_header
ktap_set_plan 136

# --- flags and errors --------------------------------------------------------
expect_ok "dry-run: -t -a, the discovery NQN and nothing else" "$D0" \
	discover --dry-run -t tcp -a 192.0.2.2
expect_ok "dry-run: every endpoint and host option, connect's key order" \
	"$D0,host_traddr=192.0.2.1,host_iface=eth1,trsvcid=8009,hostnqn=$HNQN,hostid=$UUID,keep_alive_tmo=5,reconnect_delay=2,ctrl_loss_tmo=30,fast_io_fail_tmo=10,tos=0" \
	discover --dry-run -T 0 -F 10 -l 30 -c 2 -k 5 -I $UUID -q "$HNQN" \
	-f eth1 -s 8009 -w 192.0.2.1 -a 192.0.2.2 -t tcp
expect_ok "dry-run: long forms, -n names another discovery NQN" \
	"nqn=nqn.2014-08.org.example:disc,transport=rdma,traddr=192.0.2.2,trsvcid=4420" \
	discover --dry-run --transport=rdma --traddr 192.0.2.2 --trsvcid=4420 \
	--nqn nqn.2014-08.org.example:disc
expect_ok "dry-run: I/O controller options do not reach the discovery controller" \
	"$D0" discover --dry-run -t tcp -a 192.0.2.2 -i 4 -W 1 -P 1 -Q 32 -g -G \
	-D --disable-sqflow
expect_ok "dry-run: connect-all makes the same discovery controller" "$D0" \
	connect-all --dry-run -t tcp -a 192.0.2.2 -i 4
expect_err "connect-all --dry-run with -o json" "--dry-run prints option strings, not JSON" \
	connect-all --dry-run -o json -t tcp -a 192.0.2.2
expect_err "missing --traddr" "required argument [--traddr | -a] not specified" \
	discover -t tcp
expect_err "missing --transport" \
	"required argument [--transport | -t] not specified" \
	connect-all -a 192.0.2.2
expect_err "non-numeric -k" "invalid --keep-alive-tmo 'x': not an integer" \
	discover -t tcp -a 192.0.2.2 -k x
expect_err "non-numeric --nr-io-queues" \
	"invalid --nr-io-queues '4x': not an integer" \
	connect-all -t tcp -a 192.0.2.2 --nr-io-queues 4x
expect_err "bad -o" "invalid output format 'xml'" discover -o xml
expect_err "bad --persistent value" "invalid --persistent 'sometimes'" \
	discover -t tcp -a 192.0.2.2 --persistent=sometimes
expect_err "unknown option" "unrecognized option '-z'" discover -z
expect_err "an operand" "unexpected argument 'extra'" \
	discover -t tcp -a 192.0.2.2 extra
expect_err "a comma in a value" "invalid --traddr: must not contain ','" \
	discover --dry-run -t tcp -a 192.0.2.2,nr_io_queues=1
run discover -t tcp -a 192.0.2.2 --concat
[ "$RC" = 95 ] && [[ "$ERR" == "nvfabctl: discover: --concat is not supported yet by nvfab" ]]
result "--concat: not supported yet, exit 95" $?
expect_ok "dry-run: --tls reaches the discovery controller" "$D0,tls" \
	discover --dry-run -t tcp -a 192.0.2.2 --tls
expect_ok "dry-run: --keyring NAME and --tls-key, as serials in decimal; tls implied" \
	"$D0,keyring=235787169,tls_key=42,tls" \
	connect-all --dry-run -t tcp -a 192.0.2.2 --tls-key 0x2a --keyring .nvme
expect_err "--tls-key is checked when parsed, also with --log-file" \
	"invalid --tls-key 'abc': a key serial is decimal (no leading 0) or 0x-prefixed hex" \
	connect-all --log-file /nonexistent --tls-key abc
expect_err "--keyring: an unknown name is refused before anything is done" \
	"keyring .foo not found in $TMP/proc-keys" discover -t tcp -a 192.0.2.2 --keyring .foo
K1=DHHC-1:00:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWZMLs9v:
expect_ok "dry-run: -S and -C reach the discovery controller, never shown" \
	"$D0,dhchap_secret=<hidden>,dhchap_ctrl_secret=<hidden>" \
	discover --dry-run -t tcp -a 192.0.2.2 -C "$K1" --dhchap-secret="$K1"
st=0
for v in discover connect-all; do
	run "$v" --help
	[ "$RC" = 0 ] || st=1
	for o in transport traddr trsvcid nqn host-traddr host-iface hostnqn \
		hostid device persistent no-reuse keep-alive-tmo reconnect-delay \
		ctrl-loss-tmo fast_io_fail_tmo tos nr-io-queues nr-write-queues \
		nr-poll-queues queue-size duplicate-connect disable-sqflow \
		hdr-digest data-digest raw log-file output-format quiet dry-run \
		verbose dhchap-secret dhchap-ctrl-secret tls keyring tls-key; do
		echo "$OUT" | grep -q -- "--$o" || { ktap_diag "$v: no --$o"; st=1; }
	done
done
result "discover and connect-all --help document every long option" $st

# --- discovery.conf ------------------------------------------------------------
expect_err "no address and no discovery.conf" \
	"no --transport and --traddr, and cannot open $TMP/etc/discovery.conf" \
	discover
printf '# discovery controllers\n\n-t tcp -a 192.0.2.2 -s 8009\n  --transport=tcp --traddr=198.51.100.2 -k 7   \n-t tcp\t-a 192.0.2.3 -q %s -I %s\r\n' \
	"$HNQN" "$UUID" >"$TMP/etc/discovery.conf"
expect_ok "discovery.conf: one discovery controller a line, comments, blanks, tabs, CRLF" \
	"$D0,trsvcid=8009
nqn=$DNQN,transport=tcp,traddr=198.51.100.2,keep_alive_tmo=7
nqn=$DNQN,transport=tcp,traddr=192.0.2.3,hostnqn=$HNQN,hostid=$UUID" \
	discover --dry-run
expect_ok "discovery.conf: the command line's flags are each line's defaults" \
	"$D0,trsvcid=8009,keep_alive_tmo=3
nqn=$DNQN,transport=tcp,traddr=198.51.100.2,keep_alive_tmo=7
nqn=$DNQN,transport=tcp,traddr=192.0.2.3,hostnqn=$HNQN,hostid=$UUID,keep_alive_tmo=3" \
	connect-all --dry-run -k 3
printf -- '-t tcp -a 192.0.2.2\n-t tcp -a 192.0.2.3 --bogus\n-t tcp -a 192.0.2.4 -o json\n-t tcp -a 192.0.2.5\n' \
	>"$TMP/etc/discovery.conf"
run discover --dry-run
[ "$RC" = 1 ] && [ "$OUT" = "$D0
nqn=$DNQN,transport=tcp,traddr=192.0.2.5" ] &&
	[ "$ERR" = "nvfabctl: discover: $TMP/etc/discovery.conf:2: unrecognized or ambiguous option '--bogus'
nvfabctl: discover: $TMP/etc/discovery.conf:3: option '-o' is for the command line only" ]
result "discovery.conf: a bad line is reported with FILE:LINE, the others done, exit 1" $?
printf -- '-t tcp -a 192.0.2.2 --tls\n-t tcp -a 192.0.2.3 --keyring .nvme --tls-key 0x2a\n' \
	>"$TMP/etc/discovery.conf"
expect_ok "discovery.conf: lines with --tls, --keyring and --tls-key" \
	"$D0,tls
nqn=$DNQN,transport=tcp,traddr=192.0.2.3,keyring=235787169,tls_key=42,tls" \
	discover --dry-run
# nvme-cli's autoconnect enabled: it reads the same file at boot.
mkdir -p "$NVFAB_ETC_SYSTEMD/default.target.wants"
ln -s /lib/systemd/system/nvmf-autoconnect.service \
	"$NVFAB_ETC_SYSTEMD/default.target.wants/nvmf-autoconnect.service"
run discover --dry-run
[ "$RC" = 0 ] && [ "$(echo "$OUT" | wc -l)" = 2 ] && [ "$ERR" = "nvfabctl: discover: warning: nvme-cli's nvmf-autoconnect.service is enabled ($NVFAB_ETC_SYSTEMD/default.target.wants/nvmf-autoconnect.service): at boot it connects the entries of $TMP/etc/discovery.conf with the in-kernel NVMe host too; keep that file for one host only (nvfab's boot connects belong in /etc/nvfab/nvfab.conf)" ]
result "discovery.conf while nvme-cli's nvmf-autoconnect.service is enabled: a warning" $?
rm -r "$NVFAB_ETC_SYSTEMD"
printf '# only a comment\n\n' >"$TMP/etc/discovery.conf"
expect_err "discovery.conf without a discovery controller" \
	"$TMP/etc/discovery.conf lists no discovery controller" discover --dry-run
rm "$TMP/etc/discovery.conf"

# --- the log printers ----------------------------------------------------------------
"$MKDLP" "$TMP/good.bin" --genctr 42 \
	"portid=1;traddr=192.0.2.2;subnqn=$SUB1" \
	"subtype=1;trsvcid=8009;traddr=192.0.2.3;subnqn=$DNQN;portid=2" \
	"trtype=1;adrfam=2;traddr=2001:db8::2;subnqn=$SUB2;pad=nul;treq=6;eflags=3;tsas0=1;tsas1=3;tsas2=1;pkey=0xffff;portid=3" \
	"subtype=3;trsvcid=8009;traddr=192.0.2.2;subnqn=$DNQN;treq=1;eflags=4"
GOOD_NORMAL="
Discovery Log Number of Records 4, Generation counter 42
=====Discovery Log Entry 0======
trtype:  tcp
adrfam:  ipv4
subtype: nvme subsystem
treq:    not specified
portid:  1
trsvcid: 4420
subnqn:  $SUB1
traddr:  192.0.2.2
eflags:  none
sectype: none
=====Discovery Log Entry 1======
trtype:  tcp
adrfam:  ipv4
subtype: discovery subsystem referral
treq:    not specified
portid:  2
trsvcid: 8009
subnqn:  $DNQN
traddr:  192.0.2.3
eflags:  none
sectype: none
=====Discovery Log Entry 2======
trtype:  rdma
adrfam:  ipv6
subtype: nvme subsystem
treq:    not required, sq flow control disable supported
portid:  3
trsvcid: 4420
subnqn:  $SUB2
traddr:  2001:db8::2
eflags:  explicit discovery connections, duplicate discovery information
rdma_prtype: roce-v2
rdma_qptype: connected
rdma_cms:    rdma-cm
rdma_pkey: 0xffff
=====Discovery Log Entry 3======
trtype:  tcp
adrfam:  ipv4
subtype: current discovery subsystem
treq:    required
portid:  1
trsvcid: 8009
subnqn:  $DNQN
traddr:  192.0.2.2
eflags:  no cdc connectivity
sectype: none"
run discover --log-file "$TMP/good.bin"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$GOOD_NORMAL" ]
result "normal: nvme discover's layout, tcp and rdma entries, space and NUL padding" $?
run discover --log-file "$TMP/good.bin" -o json
[ "$RC" = 0 ] && [ -z "$ERR" ] && python3 - "$TMP/out" "$SUB1" "$SUB2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ['genctr', 'records'] and d['genctr'] == 42
r = d['records']
base = ['trtype', 'adrfam', 'subtype', 'treq', 'portid', 'trsvcid', 'subnqn',
        'traddr', 'eflags']
assert [list(e) for e in r] == [base + ['sectype'], base + ['sectype'],
        base + ['rdma_prtype', 'rdma_qptype', 'rdma_cms', 'rdma_pkey'],
        base + ['sectype']], [list(e) for e in r]
assert r[0] == {'trtype': 'tcp', 'adrfam': 'ipv4', 'subtype': 'nvme subsystem',
                'treq': 'not specified', 'portid': 1, 'trsvcid': '4420',
                'subnqn': sys.argv[2], 'traddr': '192.0.2.2', 'eflags': 'none',
                'sectype': 'none'}, r[0]
assert r[1]['subtype'] == 'discovery subsystem referral'
assert r[2]['rdma_pkey'] == 65535 and r[2]['subnqn'] == sys.argv[3]
assert r[2]['treq'] == 'not required, sq flow control disable supported'
assert r[3]['subtype'] == 'current discovery subsystem'
EOF
result "json: nvme-cli's discover shape (genctr, records, their keys in order)" $?
"$MKDLP" "$TMP/empty.bin" --genctr 3
run discover --log-file "$TMP/empty.bin"
[ "$RC" = 0 ] && [ "$OUT" = $'\nDiscovery Log Number of Records 0, Generation counter 3' ]
result "normal: an empty log" $?
run discover --log-file "$TMP/empty.bin" -o json
[ "$RC" = 0 ] && [ "$(echo "$OUT" | tr -d ' \n')" = '{"genctr":3,"records":[]}' ]
result "json: an empty log" $?
"$MKDLP" "$TMP/odd.bin" "trtype=2;adrfam=4;traddr=nn-0x1:pn-0x2;trsvcid=none" \
	"treq=0xfc;eflags=9"
run discover --log-file "$TMP/odd.bin"
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | grep -E '^(trtype|adrfam|treq|eflags|sectype)')" = "trtype:  fc
adrfam:  fibre-channel
treq:    not specified
eflags:  none
trtype:  tcp
adrfam:  ipv4
treq:    not specified, sq flow control disable supported
eflags:  unrecognized
sectype: none" ]
result "normal: fc; TREQ's reserved bits ignored; EFLAGS nvfab does not know shown as unrecognized" $?

# --- malformed logs ------------------------------------------------------------------
printf 'short' >"$TMP/bad.bin"
expect_err "malformed: shorter than the header" \
	"discovery log: 5 bytes, shorter than its header (1024)" \
	discover --log-file "$TMP/bad.bin"
log_err "NUMREC beyond the cap" "NUMREC 1025 exceeds the limit of 1024 records" \
	--numrec 1025
log_err "NUMREC 2^64-1" "NUMREC 18446744073709551615 exceeds the limit" \
	--numrec 0xffffffffffffffff
log_err "NUMREC beyond the bytes" "NUMREC 3 but 2048 bytes hold 1 entries" \
	--numrec 3 ""
log_err "a truncated entry" "NUMREC 1 but 1500 bytes hold 0 entries" \
	--size 1500 ""
log_err "record format 1" "unsupported record format 1" --recfmt 1 ""
left_out "TRSVCID: bytes after the NUL" "TRSVCID has bytes after its NUL" \
	"raw_trsvcid=343432300078"
left_out "TRSVCID: a control byte" "TRSVCID has a control or non-ASCII byte" \
	"raw_trsvcid=0934343230"
left_out "SUBNQN: a non-ASCII byte" "SUBNQN has a control or non-ASCII byte" \
	"raw_subnqn=6e716e2e78c3a9"
left_out "SUBNQN: a newline" "SUBNQN has a control or non-ASCII byte" \
	"raw_subnqn=6e716e2e780a79"
left_out "TRADDR: a space inside" "TRADDR has a space inside" \
	"raw_traddr=3139322e302e322e322078"
left_out "TRADDR: DEL" "TRADDR has a control or non-ASCII byte" \
	"raw_traddr=3139327f"
left_out "TRTYPE 99" "unknown TRTYPE 99" "trtype=99"
left_out "TRTYPE loop (host use)" "unknown TRTYPE 254" "trtype=254;adrfam=254"
left_out "fc with ADRFAM ipv4" "ADRFAM 1 does not go with TRTYPE fc" "trtype=2"
left_out "tcp with ADRFAM fc" "ADRFAM 4 does not go with TRTYPE tcp" "adrfam=4"
left_out "TREQ secure channel 11b" "reserved TREQ secure channel (11b)" "treq=3"
left_out "TCP SECTYPE 3" "undefined TCP SECTYPE 3" "tsas0=3"
left_out "an NVM subsystem entry with the discovery NQN" \
	"an NVM subsystem entry with the discovery NQN" "subnqn=$DNQN"
left_out "SUBTYPE 0" "unknown SUBTYPE 0" "subtype=0"
left_out "SUBTYPE 4" "unknown SUBTYPE 4" "subtype=4"
left_out "SUBTYPE 255" "unknown SUBTYPE 255" "subtype=255"
left_out "an empty SUBNQN" "empty SUBNQN" "subnqn="
left_out "SUBNQN not an NQN" "SUBNQN is not an NQN (nqn.*, at most 223 bytes)" \
	"subnqn=iqn.2001-04.com.example:x"
left_out "SUBNQN just nqn." "SUBNQN is not an NQN" "subnqn=nqn."
left_out "SUBNQN of 224 bytes" "SUBNQN is not an NQN" \
	"subnqn=nqn.$(head -c 220 /dev/zero | tr '\0' x)"
left_out "a reserved CNTLID" "reserved CNTLID 0xfff0" "cntlid=0xfff0"
left_out "tcp with ADRFAM infiniband" "ADRFAM 3 does not go with TRTYPE tcp" \
	"adrfam=3"
left_out "tcp with ADRFAM 0" "ADRFAM 0 does not go with TRTYPE tcp" "adrfam=0"
left_out "rdma with ADRFAM fc" "ADRFAM 4 does not go with TRTYPE rdma" \
	"trtype=1;adrfam=4"
left_out "ipv4 TRADDR not an address" "TRADDR is not an IPv4 address" \
	"traddr=192.0.2.256"
left_out "ipv4 TRADDR an IPv6 address" "TRADDR is not an IPv4 address" \
	"traddr=2001:db8::1"
left_out "ipv6 TRADDR not an address" "TRADDR is not an IPv6 address" \
	"adrfam=2;traddr=2001:db8:::1"
left_out "an empty TRADDR" "empty TRADDR" "traddr="
left_out "TRSVCID 0" "TRSVCID is not a port (1 to 65535)" "trsvcid=0"
left_out "TRSVCID 65536" "TRSVCID is not a port" "trsvcid=65536"
left_out "TRSVCID with a leading zero" "TRSVCID is not a port" "trsvcid=04420"
left_out "TRSVCID a name" "TRSVCID is not a port" "trsvcid=nvme"
left_out "an empty TRSVCID" "TRSVCID is not a port" "trsvcid="
left_out "a second copy of entry 0" "duplicate of entry 0" ""
"$MKDLP" "$TMP/mixed.bin" "subtype=9" "traddr=192.0.2.7" "raw_traddr=00ff" \
	"traddr=192.0.2.8;trsvcid=99999" "traddr=192.0.2.9"
run discover --log-file "$TMP/mixed.bin" -o json
[ "$RC" = 0 ] && [ "$(echo "$ERR" | wc -l)" = 3 ] &&
	[ "$(python3 -c 'import json,sys; print(" ".join(e["traddr"] for e in json.load(open(sys.argv[1]))["records"]))' "$TMP/out")" = "192.0.2.7 192.0.2.9" ]
result "malformed: three bad entries among good ones: the good ones kept, one warning each" $?

# --- the log through the ioctl (fake_shim.so) ------------------------------------
"$MKDLP" "$TMP/five.bin" --genctr 9 "traddr=192.0.2.11" "traddr=192.0.2.12" \
	"traddr=192.0.2.13" "traddr=192.0.2.14" "traddr=192.0.2.15"
: >"$TMP/dev/nvfab5"
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/good.bin" NVFAB_FAKE_WRITE_LOG="$TMP/wlog")
rm -f "$TMP/wlog"
run discover -d nvfab5
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$GOOD_NORMAL" ] &&
	[ "$(cat "$TMP/wlog")" = "dlp 0 1024 1
dlp 1024 4096 1
dlp 0 1024 0" ]
result "ioctl: header, entries, header again (RAE clear on the last)" $?
rm -f "$TMP/wlog"
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/good.bin" NVFAB_FAKE_DLP_NEXT="$TMP/five.bin"
	NVFAB_FAKE_DLP_SWITCH=1 NVFAB_FAKE_WRITE_LOG="$TMP/wlog")
run discover -d /dev/nvfab5 -o json
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["genctr"], len(d["records"]))' "$TMP/out")" = "9 5" ] &&
	[ "$(grep -c '^dlp 0 1024' "$TMP/wlog")" = 4 ] &&
	[ "$(grep -c '^dlp 1024 4096' "$TMP/wlog")" = 2 ] &&
	[ "$(grep -c '^dlp 5120 1024' "$TMP/wlog")" = 1 ]
result "ioctl: GENCTR moved during the read: read again, the new log printed" $?
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/good.bin" NVFAB_FAKE_DLP_GENCTR_INC=1)
expect_err "ioctl: a log that never settles: an error after 10 reads" \
	"discovery log on $TMP/dev/nvfab5 kept changing (GENCTR moved during 10 reads)" \
	discover -d nvfab5
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/good.bin" NVFAB_FAKE_DLP_STATUS=0x4002)
expect_err "ioctl: an NVMe status" \
	"Get Log Page (discovery) on $TMP/dev/nvfab5: NVMe status 0x4002" \
	discover -d nvfab5
ENVS=()
expect_err "ioctl: not an NVMe device" \
	"Get Log Page (discovery) on $TMP/dev/nvfab5: Inappropriate ioctl for device" \
	discover -d nvfab5
expect_err "-d: no such device" "cannot open $TMP/dev/nvfab6: No such file or directory" \
	discover -d nvfab6
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/good.bin")
run discover -d nvfab5 -r "$TMP/raw.bin" -o json
[ "$RC" = 0 ] && cmp -s "$TMP/raw.bin" "$TMP/good.bin"
result "-r: the raw page saved as read" $?

# --- a discovery controller made, read and deleted ---------------------------------
mk_ctrl 3 live 192.0.2.2 8009 "$DNQN"
rm -f "$TMP/sys/class/nvfab/nvfab3"
export NVFAB_FABRICS_DEV=$TMP/fabrics
S="$D0,trsvcid=8009"
prefill ${#S} "instance=3,cntlid=1"$'\n'
ln -sfn ../../devices/virtual/nvfab/nvfab3 "$TMP/sys/class/nvfab/nvfab3"
echo new >"$TMP/sys/class/nvfab/nvfab3/state"
echo "traddr=192.0.2.9,trsvcid=8009" >"$TMP/sys/class/nvfab/nvfab3/address"
run discover -t tcp -a 192.0.2.2 -s 8009
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$GOOD_NORMAL" ] &&
	[ "$(head -c ${#S} "$TMP/fabrics")" = "$S" ] &&
	[ "$(cat "$TMP/sys/class/nvfab/nvfab3/delete_controller")" = 1 ]
result "discover: the controller made through the fabrics device, its log read, deleted" $?
: >"$TMP/sys/class/nvfab/nvfab3/delete_controller"
prefill ${#S} "instance=3,cntlid=1"$'\n'
run discover -t tcp -a 192.0.2.2 -s 8009 -p
[ "$RC" = 0 ] && [ "$ERR" = "nvfabctl: discover: persistent discovery controller nvfab3" ] &&
	[ ! -s "$TMP/sys/class/nvfab/nvfab3/delete_controller" ]
result "discover -p: the controller stays, and is named" $?
echo live >"$TMP/sys/class/nvfab/nvfab3/state"
echo "traddr=192.0.2.2,trsvcid=8009" >"$TMP/sys/class/nvfab/nvfab3/address"
prefill ${#S} "instance=3,cntlid=1"$'\n'
cp "$TMP/fabrics" "$TMP/fabrics.before"
run discover -t tcp -a 192.0.2.2 -s 8009 -o json
[ "$RC" = 0 ] && [ -z "$ERR" ] && cmp -s "$TMP/fabrics" "$TMP/fabrics.before" &&
	[ ! -s "$TMP/sys/class/nvfab/nvfab3/delete_controller" ]
result "discover: a live discovery controller to the endpoint is used, not deleted" $?
run discover -t tcp -a 192.0.2.2 -s 8009 --no-reuse
[ "$RC" = 0 ] && ! cmp -s "$TMP/fabrics" "$TMP/fabrics.before" &&
	[ "$(cat "$TMP/sys/class/nvfab/nvfab3/delete_controller")" = 1 ]
result "discover --no-reuse: a controller of its own, deleted after" $?
: >"$TMP/sys/class/nvfab/nvfab3/delete_controller"
printf 'garbage' >"$TMP/fabrics"
expect_err "discover: a bad reply from the fabrics device" \
	"cannot parse the reply from $TMP/fabrics" \
	discover -t tcp -a 192.0.2.2 -s 8009 --no-reuse

# --- connect-all -----------------------------------------------------------------
ENVS=()
rm -rf "${TMP:?}/sys/class/nvfab/"* "${TMP:?}/dev/"*
expect_ok "connect-all --log-file: each NVM entry's option string, with the I/O options; the referral not followed" \
	"nqn=$SUB1,transport=tcp,traddr=192.0.2.2,host_traddr=192.0.2.1,trsvcid=4420,nr_io_queues=4,queue_size=32,ctrl_loss_tmo=-1,duplicate_connect,disable_sqflow,hdr_digest
referral-not-followed - $DNQN tcp 192.0.2.3 8009
nqn=$SUB2,transport=rdma,traddr=2001:db8::2,host_traddr=192.0.2.1,trsvcid=4420,nr_io_queues=4,queue_size=32,ctrl_loss_tmo=-1,duplicate_connect,disable_sqflow,hdr_digest" \
	connect-all --log-file "$TMP/good.bin" --dry-run -w 192.0.2.1 -i 4 -Q 32 \
	-l -1 -D --disable-sqflow -g
run connect-all --log-file "$TMP/good.bin" --dry-run -v -S "$K1" -C "$K1"
[ "$RC" = 0 ] && [ "$OUT" = "nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420,dhchap_secret=<hidden>
referral-not-followed - $DNQN tcp 192.0.2.3 8009
nqn=$SUB2,transport=rdma,traddr=2001:db8::2,trsvcid=4420,dhchap_secret=<hidden>" ] &&
	[[ "$ERR" == *"options: nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420,dhchap_secret=<hidden>"* ]] &&
	[[ "$OUT$ERR" != *MDEy* ]]
result "connect-all -S -C: the host's secret for each I/O controller, the controller's not; -v and --dry-run hide both" $?
run connect-all --log-file "$TMP/good.bin" --dry-run --keyring .nvme --tls-key 42
[ "$RC" = 1 ] && [ "$OUT" = "nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420,keyring=235787169,tls
referral-not-followed - $DNQN tcp 192.0.2.3 8009" ] &&
	[ "$ERR" = "nvfabctl: connect-all: TLS (--tls, --keyring, --tls-key) is for transport tcp only, not rdma" ]
result "connect-all TLS: --keyring and tls for each I/O controller, --tls-key not; an rdma entry fails" $?
mk_ctrl 0 live 192.0.2.2 4420 "$SUB1"
expect_ok "connect-all: a subsystem connected already is reported, not connected again" \
	"already-connected nvfab0 $SUB1 tcp 192.0.2.2 4420
referral-not-followed - $DNQN tcp 192.0.2.3 8009
nqn=$SUB2,transport=rdma,traddr=2001:db8::2,trsvcid=4420" \
	connect-all --log-file "$TMP/good.bin" --dry-run
expect_ok "connect-all --quiet: no line for the connected one" \
	"referral-not-followed - $DNQN tcp 192.0.2.3 8009
nqn=$SUB2,transport=rdma,traddr=2001:db8::2,trsvcid=4420" \
	connect-all --log-file "$TMP/good.bin" --dry-run --quiet
echo deleting >"$TMP/sys/class/nvfab/nvfab0/state"
run connect-all --log-file "$TMP/good.bin" --dry-run
[ "$RC" = 0 ] && [[ "$OUT" == "nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420"* ]]
result "connect-all: a controller being deleted does not count" $?
"$MKDLP" "$TMP/fc.bin" "trtype=2;adrfam=4;traddr=nn-0x1:pn-0x2;trsvcid=none"
expect_ok "connect-all: an fc entry is skipped" \
	"skipped - $SUB1 fc nn-0x1:pn-0x2 none" connect-all --log-file "$TMP/fc.bin"
S1="nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420"
prefill ${#S1} "instance=8,cntlid=2"$'\n'
"$MKDLP" "$TMP/one.bin" ""
run connect-all --log-file "$TMP/one.bin" -o json
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(echo "$OUT" | tr -d ' \n')" = \
	"[{\"status\":\"connected\",\"device\":\"nvfab8\",\"subnqn\":\"$SUB1\",\"trtype\":\"tcp\",\"traddr\":\"192.0.2.2\",\"trsvcid\":\"4420\"}]" ] &&
	[ "$(head -c ${#S1} "$TMP/fabrics")" = "$S1" ]
result "connect-all: a connect through the fabrics device, reported in JSON" $?
printf 'nope' >"$TMP/fabrics"
run connect-all --log-file "$TMP/one.bin"
[ "$RC" = 1 ] && [ "$OUT" = "failed - $SUB1 tcp 192.0.2.2 4420" ] &&
	[[ "$ERR" == "nvfabctl: connect-all: cannot parse the reply"* ]]
result "connect-all: a failed connect: reported, exit 1" $?

# Referrals: discovery controllers nvfab1 (192.0.2.2), nvfab2 (192.0.2.3),
# nvfab3 (192.0.2.4), nvfab4 (192.0.2.5) live already, each log from
# $TMP/logs/nvfabN. 1 refers to 2 and to itself, 2 to 1 and 3, 3 to 4, 4
# to 5 (a fourth level).
rm -rf "${TMP:?}/sys/class/nvfab/"* "${TMP:?}/dev/"*
mkdir -p "$TMP/logs"
REF="subtype=1;subnqn=$DNQN;trsvcid=8009;traddr"
for n in 1 2 3 4; do
	mk_ctrl $n live 192.0.2.$((n + 1)) 8009 "$DNQN"
done
"$MKDLP" "$TMP/logs/nvfab1" "subnqn=$SUB1" "$REF=192.0.2.3" "$REF=192.0.2.2"
"$MKDLP" "$TMP/logs/nvfab2" "subnqn=$SUB2;traddr=192.0.2.20" "$REF=192.0.2.2" \
	"$REF=192.0.2.4"
"$MKDLP" "$TMP/logs/nvfab3" "$REF=192.0.2.5"
"$MKDLP" "$TMP/logs/nvfab4" "$REF=192.0.2.6" "subnqn=$SUB2;traddr=192.0.2.40"
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_DLP="$TMP/logs")
expect_ok "connect-all: referrals followed once each, loops cut, three levels deep at most" \
	"nqn=$SUB1,transport=tcp,traddr=192.0.2.2,trsvcid=4420
referral - $DNQN tcp 192.0.2.3 8009
nqn=$SUB2,transport=tcp,traddr=192.0.2.20,trsvcid=4420
referral-seen - $DNQN tcp 192.0.2.2 8009
referral - $DNQN tcp 192.0.2.4 8009
referral - $DNQN tcp 192.0.2.5 8009
referral-too-deep - $DNQN tcp 192.0.2.6 8009
nqn=$SUB2,transport=tcp,traddr=192.0.2.40,trsvcid=4420
referral-seen - $DNQN tcp 192.0.2.2 8009" \
	connect-all --dry-run -t tcp -a 192.0.2.2 -s 8009
ENVS=()

# --- discovery add, remove, list (fake configfs) ------------------------------------
CFS=$TMP/cfs
DD=$CFS/nvfab/discovery
ATTRS="transport traddr trsvcid host_traddr host_iface hostnqn hostid nqn kato connect_opts connect match disconnect poll_interval max_inflight enable state ctrl stats log"
export NVFAB_CONFIGFS=$CFS
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_MKDIR_ATTRS="$ATTRS" NVFAB_FAKE_WRITE_DATA="$TMP/wdata")
expect_err "discovery add: no nvfab/discovery in configfs" \
	"no $DD (is module nvfab-discovery loaded and configfs mounted?)" \
	discovery add d1 -t tcp -a 192.0.2.2
mkdir -p "$TMP/bin" "$CFS/nvfab"
printf '#!/bin/sh\necho "$@" >"%s/modprobe.args"\nmkdir "%s"\n' "$TMP" "$DD" >"$TMP/bin/modprobe"
chmod +x "$TMP/bin/modprobe"
ENVS+=(PATH="$TMP/bin:$PATH")
rm -f "$TMP/wdata"
run discovery add d0 -t tcp -a 192.0.2.2
[ "$RC" = 0 ] && [ "$(cat "$TMP/modprobe.args")" = "-q nvfab-discovery" ] &&
	[ "$(cat "$DD/d0/enable")" = 1 ]
result "discovery add: nvfab/ but no nvfab/discovery/: modprobe -q nvfab-discovery first" $?
rm -rf "${DD:?}/d0" "$TMP/modprobe.args"
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_MKDIR_ATTRS="$ATTRS" NVFAB_FAKE_WRITE_DATA="$TMP/wdata")
rm -f "$TMP/wdata"
run discovery add d1 -t tcp -a 192.0.2.2
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "d1: transport=tcp traddr=192.0.2.2" ] &&
	[ "$(cat "$TMP/wdata")" = "tcp
192.0.2.2
1" ] && [ "$(cat "$DD/d1/enable")" = 1 ] && [ ! -s "$DD/d1/trsvcid" ]
result "discovery add: the attributes given, then enable=1; the rest the kernel's" $?
rm -f "$TMP/wdata"
echo "$HNQN" >"$TMP/etc/hostnqn"
run discovery add d2 -t tcp -a 2001:db8::2 -s 8009 -w 192.0.2.1 -f eth1 \
	-n nqn.2014-08.org.example:disc -k 10 --connect-opts nr_io_queues=4,ctrl_loss_tmo=-1,hdr_digest \
	--match 'nqn.2014-08.org.example:*' --match 'nqn.x:[ab]?' --disconnect none \
	--poll-interval 0 --max-inflight 1024
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$(cat "$TMP/wdata")" = "tcp
2001:db8::2
8009
192.0.2.1
eth1
$HNQN
$UUID
nqn.2014-08.org.example:disc
10
nr_io_queues=4,ctrl_loss_tmo=-1,hdr_digest
match
nqn.2014-08.org.example:* nqn.x:[ab]?
none
0
1024
1" ] && [ "$(cat "$DD/d2/match")" = "nqn.2014-08.org.example:* nqn.x:[ab]?" ]
result "discovery add: every option, in the spec's order; --match implies connect=match; host identity from /etc/nvme" $?
rm -f "$TMP/etc/hostnqn"
find "$CFS" | sort >"$TMP/cfs.before"
expect_err "discovery add: an entry of that name exists" \
	"discovery entry 'd1' exists (remove it first)" \
	discovery add d1 -t tcp -a 192.0.2.2
st=0
for a in "x/y" ".." "$(head -c 64 /dev/zero | tr '\0' a)" "a b" ""; do
	run discovery add "$a" -t tcp -a 192.0.2.2
	[ "$RC" = 1 ] && [[ "$ERR" == "nvfabctl: discovery: invalid NAME"* ]] || st=1
done
result "discovery add: bad names refused ('/', '..', 64 bytes, a blank, empty)" $st
# bad_add DESC TEXT OPTIONS...: refused with TEXT, configfs unchanged.
bad_add() {
	local desc=$1 text=$2
	shift 2
	run discovery add d9 "$@"
	[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == "nvfabctl: discovery: "*"$text"* ]] &&
		[ "$(find "$CFS" | sort)" = "$(cat "$TMP/cfs.before")" ]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected: $text"
	result "discovery add: $desc" $st
}
expect_err "discovery add: missing NAME" "missing NAME" discovery add -t tcp
bad_add "no --traddr" "required argument [--traddr | -a]" -t tcp
bad_add "transport fc" "invalid --transport 'fc' (tcp or rdma)" -t fc -a 192.0.2.2
bad_add "traddr a name" "invalid --traddr 'host': not an IPv4 or IPv6 address" \
	-t tcp -a host
bad_add "trsvcid 0" "invalid --trsvcid '0' (1 to 65535)" -t tcp -a 192.0.2.2 -s 0
bad_add "trsvcid 65536" "invalid --trsvcid '65536'" -t tcp -a 192.0.2.2 -s 65536
bad_add "host-iface with '/'" "invalid --host-iface 'a/b'" -t tcp -a 192.0.2.2 -f a/b
bad_add "hostnqn without hostid" "--hostnqn needs --hostid" -t tcp -a 192.0.2.2 -q "$HNQN"
bad_add "hostid not a UUID" "invalid --hostid 'x'" -t tcp -a 192.0.2.2 -q "$HNQN" -I x
bad_add "nqn not an NQN" "invalid --nqn 'disc'" -t tcp -a 192.0.2.2 -n disc
bad_add "kato too large" "invalid --keep-alive-tmo '4294968' (0 to 4294967 seconds)" \
	-t tcp -a 192.0.2.2 -k 4294968
bad_add "kato negative" "invalid --keep-alive-tmo '-1'" -t tcp -a 192.0.2.2 -k -1
bad_add "connect bogus" "invalid --connect 'some' (all, none or match)" \
	-t tcp -a 192.0.2.2 --connect some
bad_add "connect=match without --match" "--connect=match needs at least one --match" \
	-t tcp -a 192.0.2.2 --connect=match
bad_add "--match with connect=all" "--match goes with --connect=match only" \
	-t tcp -a 192.0.2.2 --connect=all --match 'nqn.*'
bad_add "--match with a comma" "invalid --match 'nqn.a,b'" -t tcp -a 192.0.2.2 --match nqn.a,b
bad_add "--match not an NQN glob" "invalid --match '*': an NQN glob" -t tcp -a 192.0.2.2 --match '*'
bad_add "disconnect bogus" "invalid --disconnect 'all' (none or ours)" \
	-t tcp -a 192.0.2.2 --disconnect all
bad_add "max-inflight 0" "invalid --max-inflight '0' (1 to 1024)" \
	-t tcp -a 192.0.2.2 --max-inflight 0
bad_add "max-inflight 1025" "invalid --max-inflight '1025'" \
	-t tcp -a 192.0.2.2 --max-inflight 1025
bad_add "poll-interval negative" "invalid --poll-interval '-5'" \
	-t tcp -a 192.0.2.2 --poll-interval -5
bad_add "connect-opts unknown key" "invalid --connect-opts: unknown key 'nqn'" \
	-t tcp -a 192.0.2.2 --connect-opts nqn=x
bad_add "connect-opts a flag with a value" "'hdr_digest' takes no value" \
	-t tcp -a 192.0.2.2 --connect-opts hdr_digest=1
bad_add "connect-opts a number without one" "'tos' needs an integer value" \
	-t tcp -a 192.0.2.2 --connect-opts tos
bad_add "connect-opts a key twice" "'tos' given twice" \
	-t tcp -a 192.0.2.2 --connect-opts tos=1,tos=2
bad_add "connect-opts an empty key" "empty or overlong key" \
	-t tcp -a 192.0.2.2 --connect-opts nr_io_queues=1,,tos=1
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_MKDIR_ATTRS="$ATTRS" NVFAB_FAKE_WRITE_ERRNO=16)
run discovery add d9 -t tcp -a 192.0.2.2
[ "$RC" = 1 ] && [ "$ERR" = "nvfabctl: discovery: cannot write 'tcp' to $DD/d9/transport: Device or resource busy (see dmesg)" ] &&
	[ ! -e "$DD/d9" ]
result "discovery add: a write the kernel refuses: reported, the entry removed again" $?
ENVS=(LD_PRELOAD="$SHIM" NVFAB_FAKE_MKDIR_ATTRS="$ATTRS" NVFAB_FAKE_WRITE_DATA="$TMP/wdata")
rm -f "$TMP/wdata"
run discovery remove d1
[ "$RC" = 0 ] && [ -z "$OUT$ERR" ] && [ "$(cat "$TMP/wdata")" = 0 ] && [ ! -e "$DD/d1" ]
result "discovery remove: enable=0, then rmdir" $?
expect_err "discovery remove: no such entry" "no discovery entry 'd1' (in $DD)" \
	discovery remove d1
printf 'nqn.2014-08.org.example:*\nnqn.x:[ab]?\n' >"$DD/d2/match"
echo live >"$DD/d2/state"
echo nvfab4 >"$DD/d2/ctrl"
echo "log_reads=3 aens=1 polls=0 genctr=7 entries=2 connects=1 connect_failures=0 disconnects=0 inflight=0 inflight_peak=1 referrals=1" >"$DD/d2/stats"
printf '%s\n%s\n%s\n' \
	"subtype=nvme trtype=tcp adrfam=ipv4 traddr=192.0.2.2 trsvcid=4420 subnqn=$SUB1 portid=1 cntlid=65535 state=connected ctrl=nvfab5" \
	"# referral d2@192.0.2.3:8009" \
	"subtype=nvme trtype=tcp adrfam=ipv4 traddr=192.0.2.3 trsvcid=4420 subnqn=$SUB2 portid=2 cntlid=65535 state=pending ctrl=-" \
	>"$DD/d2/log"
mkdir "$DD/d3"
run discovery list -v
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | tr -s ' ')" = "Name State Ctrl Trans Address Service Connect Entries Connects
d2 live nvfab4 tcp 2001:db8::2 8009 match 2 1
 subtype=nvme trtype=tcp adrfam=ipv4 traddr=192.0.2.2 trsvcid=4420 subnqn=$SUB1 portid=1 cntlid=65535 state=connected ctrl=nvfab5
 # referral d2@192.0.2.3:8009
 subtype=nvme trtype=tcp adrfam=ipv4 traddr=192.0.2.3 trsvcid=4420 subnqn=$SUB2 portid=2 cntlid=65535 state=pending ctrl=-
d3 - - - - - - - -" ]
result "discovery list -v: a row per entry, its log lines; '-' where unreadable" $?
run discovery list -o json
[ "$RC" = 0 ] && [ -z "$ERR" ] && python3 - "$TMP/out" "$SUB2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))['discovery']
assert [e['name'] for e in d] == ['d2', 'd3']
e = d[0]
assert e['transport'] == 'tcp' and e['traddr'] == '2001:db8::2'
assert e['connect'] == 'match' and e['max_inflight'] == '1024'
assert e['match'] == 'nqn.2014-08.org.example:* nqn.x:[ab]?'
assert e['state'] == 'live' and e['ctrl'] == 'nvfab4' and e['enable'] == '1'
assert e['stats']['entries'] == 2 and e['stats']['inflight_peak'] == 1
assert len(e['log']) == 2 and 'referral' not in e['log'][0]
assert e['log'][1]['referral'] == 'd2@192.0.2.3:8009'
assert e['log'][1]['subnqn'] == sys.argv[2] and e['log'][1]['state'] == 'pending'
assert d[1]['state'] is None and d[1]['stats'] == {} and d[1]['log'] == []
EOF
result "discovery list -o json: every attribute, stats as numbers, the log as objects" $?
rm -rf "$CFS"
expect_ok "discovery list: no nvfab/discovery, nothing listed" "" discovery list
expect_err "discovery: an unknown subcommand" "unknown subcommand 'show' (add, remove or list)" \
	discovery show
ENVS=()

ktap_finish
