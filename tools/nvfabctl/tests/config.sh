#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of nvfabctl config (the boot-time configuration file):
# the parser's good and bad input with its FILE:LINE errors, connect lines
# that give the option strings of connect --dry-run, and apply and show
# against a fake configfs, sysfs and fabrics device: policies written,
# controllers connected or skipped when connected already, and a file
# with one bad line changing nothing. KTAP output; exits 0 only if every
# test passes. run.sh runs it, nested.
#
# Environment the tool honours, pointed into a temp dir here:
#   NVFAB_ETC_NVFAB	 instead of /etc/nvfab (the default file)
#   NVFAB_CONFIGFS	 instead of /sys/kernel/config
#   NVFAB_SYSFS		 instead of /sys
#   NVFAB_FABRICS_DEV	 instead of /dev/nvfab-fabrics
#   NVFAB_ETC_NVME	 instead of /etc/nvme
#   NVFAB_PROC_KEYS	 instead of /proc/keys, for --keyring NAME
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/etc-empty" "$TMP/etc-nvfab"
export NVFAB_ETC_NVME=$TMP/etc-empty
export NVFAB_ETC_NVFAB=$TMP/etc-nvfab
export NVFAB_SYSFS=$TMP/no-sys
export NVFAB_CONFIGFS=$TMP/no-cfs
export NVFAB_FABRICS_DEV=$TMP/no-dev
export NVFAB_KMSG=$TMP/no-kmsg
export NVFAB_PROC_KEYS=$TMP/proc-keys
printf '0e0dd3a1 I------     1 perm 1f0f0000     0     0 keyring   .nvme: empty\n' \
	>"$NVFAB_PROC_KEYS"

# run ARGS...: run the tool (10 s at most), as RUNAS says; sets RC, OUT,
# ERR.
RUNAS=()
run() {
	timeout 10 "${RUNAS[@]}" "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	# The host identity warning (once per run, tested last) is not what
	# these tests look at: the fake /etc/nvme is empty on purpose.
	ERR=$(grep -v ': warning: no host identity (' "$TMP/err")
}

F=$TMP/nvfab.conf
NQN=nqn.2014-08.org.example:array1
NQN2=nqn.2014-08.org.example:array2
C1="connect -t tcp -a 192.0.2.2 -s 4420 -w 192.0.2.1 -n $NQN"
C2="connect -t tcp -a 198.51.100.2 -s 4420 -n $NQN -c 2 -l -1 -g"
S1="nqn=$NQN,transport=tcp,traddr=192.0.2.2,host_traddr=192.0.2.1,trsvcid=4420"
S2="nqn=$NQN,transport=tcp,traddr=198.51.100.2,trsvcid=4420,reconnect_delay=2,ctrl_loss_tmo=-1,hdr_digest"
GOOD="# nvfab.conf for the tests

policy $NQN iopolicy=round-robin no_path_tmo=30
	# the two paths
$C1   # path 1
$C2"

# conf TEXT: write TEXT (printf %b) as the file.
conf() {
	printf '%b\n' "$1" >"$F"
}

# check_err DESC LINE TEXT [ERRORS]: "config check" of $F fails with one
# error line "nvfabctl: config: $F:LINE: ...TEXT...", then the count.
check_err() {
	local desc=$1 line=$2 text=$3 n=${4:-1} s=s
	[ "$n" = 1 ] && s=
	run config check "$F"
	[ "$RC" = 1 ] && [ -z "$OUT" ] &&
		[ "$(echo "$ERR" | wc -l)" = $((n + 1)) ] &&
		[[ "$(echo "$ERR" | head -1)" == "nvfabctl: config: $F:$line: "*"$text"* ]] &&
		[ "$(echo "$ERR" | tail -1)" = "nvfabctl: config: $F: $n error$s" ]
	local st=$?
	[ $st = 0 ] || ktap_diag "expected $F:$line: ...$text"
	result "check: $desc" $st
}

# bad DESC LINE-TEXT TEXT: a good file with LINE-TEXT as line 4 fails at 4.
bad() {
	conf "policy $NQN2 iopolicy=numa\n\n# comment\n$2\n$C1"
	check_err "$1" 4 "$3"
}

ktap_header
ktap_set_plan 140

# --- parsing: good files ----------------------------------------------------
conf "$GOOD"
run config check "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$OUT" = "$F: 1 policy, 2 connect and 0 discovery directives, no errors" ]
result "check: a good file, with comments, blank and indented lines" $?
cp "$F" "$NVFAB_ETC_NVFAB/nvfab.conf"
run config check
[ "$RC" = 0 ] && [ "$OUT" = "$NVFAB_ETC_NVFAB/nvfab.conf: 1 policy, 2 connect and 0 discovery directives, no errors" ]
result "check: the default file is nvfab.conf in \$NVFAB_ETC_NVFAB" $?
printf 'policy %s iopolicy=numa\r\n%s\r\n' "$NQN" "$C1" >"$F"
run config check "$F"
result "check: CRLF line ends" "$([ "$RC" = 0 ] && [ -z "$ERR" ]; echo $?)"
printf '%s' "$C1" >"$F"
run config check "$F"
result "check: no newline at the end" "$([ "$RC" = 0 ] && [ -z "$ERR" ]; echo $?)"
conf "# nothing\n\n   \n\t# at all"
run config check "$F"
[ "$RC" = 0 ] && [ "$OUT" = "$F: 0 policy, 0 connect and 0 discovery directives, no errors" ]
result "check: only comments and blanks" $?
: >"$F"
run config check "$F"
result "check: an empty file" "$([ "$RC" = 0 ] && [ -z "$ERR" ]; echo $?)"
conf "connect -n nqn.x#1 -t tcp -a 192.0.2.2 #-g"
run config show "$F"
[ "$RC" = 0 ] && [[ "$OUT" == *" nqn=nqn.x#1,transport=tcp,traddr=192.0.2.2" ]]
result "a '#' inside a word is part of it, at the start of one a comment" $?
conf "policy $NQN no_path_tmo=0030\npolicy $NQN2 no_path_tmo=auto iopolicy=service-time"
run config show "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | awk 'NR > 1 { $3 = ""; print }' | tr -s ' ')" = \
		"1 policy $NQN no_path_tmo=30
2 policy $NQN2 iopolicy=service-time no_path_tmo=auto" ]
result "show: policy values canonical, keys in a fixed order" $?

# The option string of a connect line is that of connect --dry-run with
# the same words, whatever their order and form.
same_as_dry_run() { # connect words...
	local want
	want=$("$BIN" connect --dry-run "$@" 2>/dev/null) || return 1
	printf 'connect %s\n' "$*" >"$F"
	run config show "$F"
	[ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR == 2 { print $4 }')" = "$want" ] &&
		[ "$want" != "" ]
}
st=0
same_as_dry_run -t tcp -a 192.0.2.2 -s 4420 -n nqn.x:y || st=1
same_as_dry_run --transport=tcp --traddr 192.0.2.2 --nqn=nqn.x:y -Q 64 \
	--keep-alive-tmo 0 -i 0x4 -F 10 -T 0 -D -d -gG || st=1
same_as_dry_run -n nqn.x:y -t tcp -a 192.0.2.2 -f veth1 -w 192.0.2.1 -W 1 -P 1 \
	--ctrl-loss-tmo=-1 --reconnect-delay 3 --fast_io_fail_tmo 5 || st=1
result "connect lines give the option strings of connect --dry-run" $st
K1=DHHC-1:00:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWZMLs9v:
conf "connect -t tcp -a 192.0.2.2 -n nqn.x:y -S $K1 -C $K1"
run config show "$F"
[ "$RC" = 0 ] && [[ "$OUT" == *" nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,dhchap_secret=<hidden>,dhchap_ctrl_secret=<hidden>" ]] &&
	[[ "$OUT" != *MDEy* ]]
result "show: the DH-HMAC-CHAP secrets of a connect line are never shown" $?
conf "connect -t tcp -a 192.0.2.2 -n nqn.x:y --tls --tls-key=0x2a\nconnect -t tcp -a 192.0.2.3 -n nqn.x:y --keyring .nvme"
run config show "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$(echo "$OUT" | awk 'NR > 1 { print $4 }')" = "nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,tls_key=42,tls
nqn=nqn.x:y,transport=tcp,traddr=192.0.2.3,keyring=235787169,tls" ]
result "connect lines with --tls --tls-key and --keyring NAME: serials in decimal, shown" $?
st=0
same_as_dry_run -t tcp -a 192.0.2.2 -n nqn.x:y --tls --tls-key 42 -g || st=1
same_as_dry_run -t tcp -a 192.0.2.2 -n nqn.x:y --keyring=.nvme --tls-key=0x7fffffff || st=1
result "TLS connect lines give the option strings of connect --dry-run" $st
# A key file named on a connect line: read as on the command line, its
# refusal reported at the line (nothing applied). Root-owned files only.
if [ "$(id -u)" = 0 ]; then
	printf '%s\n' "$K1" >"$TMP/host.key"
	chmod 600 "$TMP/host.key"
	conf "connect -t tcp -a 192.0.2.2 -n nqn.x:y -S $TMP/host.key"
	run config show "$F"
	[ "$RC" = 0 ] && [[ "$OUT" == *" nqn=nqn.x:y,transport=tcp,traddr=192.0.2.2,dhchap_secret=<hidden>" ]] &&
		[[ "$OUT" != *MDEy* ]]
	result "show: a connect line's key file read, its secret not shown" $?
	chmod 644 "$TMP/host.key"
	bad "a key file others may read" "connect -t tcp -a 192.0.2.9 -n nqn.x:y -S $TMP/host.key" \
		"key file $TMP/host.key for --dhchap-secret has mode 0644"
else
	ktap_skip "show: a connect line's key file read, its secret not shown" "not root"
	ktap_skip "check: a key file others may read" "not root"
fi
mkdir -p "$TMP/etc-both"
UUID=3fa85f64-5717-4562-b3fc-2c963f66afa6
echo "nqn.2014-08.org.example:host-a" >"$TMP/etc-both/hostnqn"
echo "$UUID" >"$TMP/etc-both/hostid"
conf "$C1"
NVFAB_ETC_NVME=$TMP/etc-both run config show "$F"
[ "$RC" = 0 ] && [[ "$OUT" == *" $S1,hostnqn=nqn.2014-08.org.example:host-a,hostid=$UUID" ]]
result "connect lines take the host identity of /etc/nvme, as connect does" $?

# --- parsing: errors, each with its line --------------------------------------
bad "unknown directive" "conect -t tcp" "unknown directive 'conect' (expected policy, connect or discovery)"
bad "discovery without NAME" "discovery -t tcp -a 192.0.2.2" "missing NAME"
bad "discovery with a bad option value" "discovery d1 -t tcp -a 192.0.2.2 --max-inflight 0" \
	"invalid --max-inflight '0' (1 to 1024)"
bad "discovery without --traddr" "discovery d1 -t tcp" \
	"required argument [--traddr | -a] not specified"
bad "unknown connect option" "$C2 --bogus" "unrecognized or ambiguous option '--bogus'"
bad "unknown short option" "$C2 -z" "unrecognized option '-z'"
bad "connect option missing its value" "$C2 -Q" "option '-Q' requires an argument"
bad "connect option with a bad number" "$C2 -Q 1x" \
	"invalid --queue-size '1x': not an integer"
bad "connect without -n" "connect -t tcp -a 192.0.2.2" \
	"required argument [--nqn | -n] not specified"
bad "connect without -a" "connect -t tcp -n $NQN" \
	"required argument [--traddr | -a] not specified for transport tcp"
bad "connect with a stray word" "$C2 extra" "unexpected argument 'extra'"
bad "connect -o is for the command line" "$C2 -o json" \
	"option '-o/--output-format' is for the command line only"
bad "connect --dry-run is for the command line" "$C2 --dry-run" \
	"option '--dry-run' is for the command line only"
bad "connect -v in a bundle" "$C2 -gv" "option '-v/--verbose' is for the command line only"
bad "connect --help" "$C2 --help" "option '-h/--help' is for the command line only"
bad "a comma cannot inject a key" "connect -t tcp -a 192.0.2.2 -n nqn.a,queue_size=8" \
	"invalid --nqn: must not contain ','"
bad "a lone hostnqn" "$C2 -q nqn.h:1" "--hostnqn needs --hostid"
bad "connect with a bad --tls-key" "$C2 --tls --tls-key=abc" \
	"invalid --tls-key 'abc': a key serial is decimal (no leading 0) or 0x-prefixed hex"
bad "connect with --tls-key 0" "$C2 --tls-key=0" \
	"invalid --tls-key '0': a key serial is 1 to 2147483647"
bad "connect with an unknown keyring" "$C2 --keyring .foo" \
	"keyring .foo not found in $TMP/proc-keys"
bad "connect with --tls over rdma" "connect -t rdma -a 192.0.2.9 -n $NQN --tls" \
	"TLS (--tls, --keyring, --tls-key) is for transport tcp only, not rdma"
conf "policy $NQN2 iopolicy=numa\n\n# comment\n$C1\n$C1"
check_err "duplicate controller" 5 \
	"the controller of line 4 again (same nqn, transport, traddr, host_traddr, host_iface, trsvcid and hostnqn)"
conf "$C2\n$C1\nconnect -n $NQN -t tcp -s 4420 -a 192.0.2.2 --host-traddr=192.0.2.1 -Q 32"
check_err "duplicate controller in another spelling and other settings" 3 \
	"the controller of line 2 again"
bad "policy without KEY=VALUE" "policy $NQN" \
	"policy $NQN: no KEY=VALUE (keys: iopolicy, no_path_tmo)"
bad "policy without NQN" "policy" "policy needs an NQN and KEY=VALUE pairs"
bad "policy NQN not nqn." "policy array1 iopolicy=numa" \
	"invalid NQN 'array1': it does not start with \"nqn.\""
bad "policy NQN with a slash" "policy nqn.a/b iopolicy=numa" "it contains '/'"
bad "policy NQN of 224 bytes" "policy nqn.$(printf 'a%.0s' $(seq 220)) iopolicy=numa" \
	"it is longer than 223 bytes"
bad "policy NQN with a non-ASCII byte" "policy nqn.\303\251 iopolicy=numa" \
	"it contains a control or non-ASCII byte"
bad "policy NQN given twice" "policy $NQN2 no_path_tmo=5" \
	"policy of $NQN2 already given on line 1"
bad "policy unknown key" "policy $NQN iopolicy=numa no_path=5" \
	"unknown policy key 'no_path' (keys: iopolicy, no_path_tmo)"
bad "policy key without value" "policy $NQN iopolicy" "expected KEY=VALUE, got 'iopolicy'"
bad "policy empty value" "policy $NQN iopolicy=" "empty value for iopolicy"
bad "policy key twice" "policy $NQN iopolicy=numa iopolicy=round-robin" \
	"iopolicy given twice"
bad "policy bad iopolicy" "policy $NQN iopolicy=Round_Robin" \
	"invalid iopolicy 'Round_Robin': expected a selector name, 1 to 31 of a-z, 0-9 and '-'"
bad "policy iopolicy of 32 characters" \
	"policy $NQN iopolicy=abcdefghijklmnopqrstuvwxyz012345" "invalid iopolicy"
bad "policy no_path_tmo 0" "policy $NQN no_path_tmo=0" \
	"invalid no_path_tmo '0': expected \"auto\" or 1 to 3600 seconds"
bad "policy no_path_tmo 3601" "policy $NQN no_path_tmo=3601" "invalid no_path_tmo '3601'"
bad "policy no_path_tmo with a unit" "policy $NQN no_path_tmo=10s" "invalid no_path_tmo '10s'"
bad "policy no_path_tmo negative" "policy $NQN no_path_tmo=-1" "invalid no_path_tmo '-1'"
bad "quotes are refused" "connect -t tcp -a '192.0.2.2' -n $NQN" \
	"quotes and backslashes are not supported (no value has blanks): ''192.0.2.2''"
bad "a backslash is refused" "$C2 \\\\" "quotes and backslashes are not supported"
bad "a control character" "$C2 -n nqn.\001" "control character 0x01 in word"
bad "a line over 8192 bytes" "# $(printf 'x%.0s' $(seq 8200))" \
	"line is longer than 8192 bytes"
printf '%s\n\0\n' "$C1" >"$F"
check_err "a NUL byte" 2 "contains a NUL byte"

conf "conect\n\n$C1\npolicy $NQN iopolicy=Bad\n# fine\n$C1\ndiscovery"
run config check "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F:1: unknown directive 'conect' (expected policy, connect or discovery)
nvfabctl: config: $F:4: invalid iopolicy 'Bad': expected a selector name, 1 to 31 of a-z, 0-9 and '-'
nvfabctl: config: $F:6: the controller of line 3 again (same nqn, transport, traddr, host_traddr, host_iface, trsvcid and hostnqn)
nvfabctl: config: $F:7: missing NAME
nvfabctl: config: $F: 4 errors" ]
result "check: every error of the file, each with its line, then the count" $?

# --- the file itself ----------------------------------------------------------
run config check "$TMP/missing.conf"
[ "$RC" = 1 ] && [ -z "$OUT" ] &&
	[ "$ERR" = "nvfabctl: config: cannot open $TMP/missing.conf: No such file or directory" ]
result "check: a missing file" $?
run config apply "$TMP/missing.conf"
[ "$RC" = 1 ] && [[ "$ERR" == *"cannot open $TMP/missing.conf"* ]]
result "apply: a missing file" $?
run config check "$TMP"
[ "$RC" = 1 ] && [ "$ERR" = "nvfabctl: config: cannot read $TMP: Is a directory" ]
result "check: a directory is not readable as a file" $?
NVFAB_ETC_NVFAB=$TMP/none run config apply
[ "$RC" = 1 ] && [ "$ERR" = "nvfabctl: config: cannot open $TMP/none/nvfab.conf: No such file or directory" ]
result "apply: no default file" $?
# Root reads any file, so root runs a copy of the tool as nobody here.
conf "$C1"
chmod 000 "$F"
if [ "$(id -u)" = 0 ]; then
	install -m 755 "$BIN" "$TMP/nvfabctl-copy"
	chmod 711 "$TMP"
	RUNAS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	BIN=$TMP/nvfabctl-copy run config check "$F"
	RUNAS=()
else
	run config check "$F"
fi
[ "$RC" = 1 ] && [ "$ERR" = "nvfabctl: config: cannot open $F: Permission denied" ]
result "check: an unreadable file" $?
chmod 644 "$F"

# --- command line -------------------------------------------------------------
run config
result "config without subcommand" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: missing subcommand: check, apply, show, dump or import" ]; echo $?)"
run config load "$F"
result "config with an unknown subcommand" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: unknown subcommand 'load' (check, apply, show, dump or import)" ]; echo $?)"
run config check "$F" "$F"
result "config takes one FILE" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: unexpected argument '$F'" ]; echo $?)"
run config check --frob
result "config refuses unknown options" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: unrecognized or ambiguous option '--frob'" ]; echo $?)"
run config --help
st=$RC
for w in check apply show dump import policy connect discovery iopolicy no_path_tmo \
	/etc/nvfab/nvfab.conf; do
	echo "$OUT" | grep -q -- "$w" || { ktap_diag "no $w"; st=1; }
done
help_config=$OUT
run help config
result "config --help documents subcommands and directives; help config too" \
	"$([ $st = 0 ] && [ "$RC" = 0 ] && [ "$OUT" = "$help_config" ]; echo $?)"
run help
result "help lists config" "$(echo "$OUT" | grep -qE '^  config '; echo $?)"

# --- apply and show against fake configfs, sysfs and device -------------------
CFS=$TMP/cfs
SYS=$TMP/sys
DEV=$TMP/dev
ENTRY=$CFS/nvfab/subsystems/$NQN
# fresh_cfs: nvfab/ with features and the (pre-made) entry of $NQN, whose
# attributes are empty files; a plain directory cannot make them on mkdir.
fresh_cfs() {
	rm -rf "$CFS"
	mkdir -p "$ENTRY"
	echo iopolicy,no_path_tmo >"$CFS/nvfab/features"
	: >"$ENTRY/iopolicy"
	: >"$ENTRY/no_path_tmo"
}
# mk_ctrl N STATE ADDRESS [SUBSYSNQN]: controller nvfabN as sysfs has it.
mk_ctrl() {
	local d=$SYS/devices/virtual/nvfab/nvfab$1
	mkdir -p "$d" "$SYS/class/nvfab"
	ln -sfn "../../devices/virtual/nvfab/nvfab$1" "$SYS/class/nvfab/nvfab$1"
	echo "$2" >"$d/state"
	echo tcp >"$d/transport"
	echo "$3" >"$d/address"
	echo "${4:-$NQN}" >"$d/subsysnqn"
	echo nqn.2014-08.org.nvmexpress:uuid:$UUID >"$d/hostnqn"
}
# prefill LEN REPLY: a device file whose bytes after the first LEN are
# REPLY; the one write overwrites the first LEN, the read returns REPLY.
prefill() {
	{
		head -c "$1" /dev/zero | tr '\0' '#'
		printf '%s' "$2"
	} >"$DEV"
}
# snapshot: every file under the fake trees with its content.
snapshot() {
	(cd "$TMP" && find cfs sys dev -print 2>/dev/null | sort | while read -r p; do
		if [ -f "$p" ] && [ ! -L "$p" ]; then
			echo "$p: $(cat "$p")"
		else
			echo "$p"
		fi
	done)
}
export NVFAB_CONFIGFS=$CFS NVFAB_SYSFS=$SYS NVFAB_FABRICS_DEV=$DEV

fresh_cfs
mk_ctrl 0 live "traddr=192.0.2.2,trsvcid=4420,host_traddr=192.0.2.1,src_addr=192.0.2.1"
prefill ${#S2} "instance=3,cntlid=5"$'\n'
conf "$GOOD\nconnect -t tcp -a 192.0.2.2 -n $NQN -Q 8 -l 60 -z"
snapshot >"$TMP/before"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] &&
	[ "$ERR" = "nvfabctl: config: $F:7: unrecognized option '-z'
nvfabctl: config: $F: 1 error; nothing was changed" ]
result "apply: one bad line (the last): the error, nothing done" $?
snapshot >"$TMP/after"
result "apply: one bad line: configfs, sysfs and the device unchanged" \
	"$(cmp -s "$TMP/before" "$TMP/after"; echo $?)"

conf "$GOOD"
run config show "$F"
want_show="Line  Directive State    Details
3     policy    differs  $NQN iopolicy=round-robin no_path_tmo=30
5     connect   nvfab0   $S1
6     connect   -        $S2"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$want_show" ]
result "show: policy differs, path 1 connected as nvfab0, path 2 not" $?
result "show changed nothing" "$(snapshot | cmp -s "$TMP/before" -; echo $?)"

run config apply "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$F:3: policy $NQN: iopolicy=round-robin no_path_tmo=30
$F:5: already connected: nvfab0
$F:6: connected nvfab3" ]
result "apply: the policy, path 1 already connected, path 2 connected" $?
[ "$(cat "$ENTRY/iopolicy")|$(cat "$ENTRY/no_path_tmo")" = "round-robin|30" ]
result "apply: the policy is in the configfs entry" $?
[ "$(head -c ${#S2} "$DEV")" = "$S2" ] && [ "$(cat "$DEV")" = "${S2}instance=3,cntlid=5" ]
result "apply: the device got path 2's option string, in one write at offset 0" $?

mk_ctrl 3 connecting "traddr=198.51.100.2,trsvcid=4420"
rm "$DEV"
snapshot >"$TMP/before"
run config apply "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$F:3: policy $NQN: iopolicy=round-robin no_path_tmo=30
$F:5: already connected: nvfab0
$F:6: already connected: nvfab3" ]
result "apply again: both controllers already connected (one connecting), exit 0" $?
result "apply again: no device opened, configfs the same" \
	"$(snapshot | cmp -s "$TMP/before" -; echo $?)"
run config show "$F"
[ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR > 1 { print $1, $3 }' | tr '\n' ' ')" = \
	"3 set 5 nvfab0 6 nvfab3 " ]
result "show: policy set, both controllers connected" $?

ST="nqn=$NQN,transport=tcp,traddr=203.0.113.2,trsvcid=4420,tls_key=42,tls"
prefill ${#ST} "instance=4,cntlid=1"$'\n'
conf "connect -t tcp -a 203.0.113.2 -s 4420 -n $NQN --tls --tls-key=0x2a"
run config apply "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$F:1: connected nvfab4" ] &&
	[ "$(head -c ${#ST} "$DEV")" = "$ST" ]
result "apply: a connect line with --tls --tls-key: the device gets tls_key=42,tls" $?

# What does not count as connected.
notconn() { # DESC CONNECT-LINE
	conf "$2"
	run config show "$F"
	result "show: not connected: $1" \
		"$([ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR == 2 { print $3 }')" = - ]; echo $?)"
}
notconn "other host_traddr" "connect -t tcp -a 192.0.2.2 -s 4420 -w 192.0.2.9 -n $NQN"
notconn "other trsvcid" "connect -t tcp -a 192.0.2.2 -s 4421 -n $NQN"
notconn "other NQN" "connect -t tcp -a 192.0.2.2 -s 4420 -n $NQN2"
notconn "other transport" "connect -t rdma -a 192.0.2.2 -s 4420 -n $NQN"
notconn "other hostnqn" \
	"connect -t tcp -a 192.0.2.2 -n $NQN -q nqn.2014-08.org.nvmexpress:uuid:0fa85f64-5717-4562-b3fc-2c963f66afa6"
conf "connect -t tcp -a 192.0.2.2 -n $NQN -q nqn.2014-08.org.nvmexpress:uuid:$UUID"
run config show "$F"
result "show: connected: no trsvcid nor host_traddr given, the same hostnqn" \
	"$([ "$(echo "$OUT" | awk 'NR == 2 { print $3 }')" = nvfab0 ]; echo $?)"
echo "deleting (no IO)" >"$SYS/devices/virtual/nvfab/nvfab3/state"
notconn "a controller being deleted" "$C2"

# A live subsystem with another policy: a warning, configfs written anyway.
sub=$SYS/devices/virtual/nvfab-subsystem/nvfab-subsys0
mkdir -p "$sub" "$SYS/class/nvfab-subsystem"
ln -sfn ../../devices/virtual/nvfab-subsystem/nvfab-subsys0 \
	"$SYS/class/nvfab-subsystem/nvfab-subsys0"
echo "$NQN" >"$sub/subsysnqn"
echo numa >"$sub/iopolicy"
echo 30 >"$sub/no_path_tmo"
conf "policy $NQN iopolicy=queue-depth no_path_tmo=30"
run config apply "$F"
[ "$RC" = 0 ] && [ "$OUT" = "$F:1: policy $NQN: iopolicy=queue-depth no_path_tmo=30" ] &&
	[ "$ERR" = "nvfabctl: config: $F:1: warning: nvfab-subsys0 exists with iopolicy=numa: the policy applies when it is created again (write $SYS/class/nvfab-subsystem/nvfab-subsys0/iopolicy to change it now)" ] &&
	[ "$(cat "$ENTRY/iopolicy")" = queue-depth ]
result "apply: a live subsystem with another iopolicy is named in a warning" $?

# A policy that cannot be written: its new entry is removed again, the
# connects of its NQN are not tried, the others are.
fresh_cfs
rm -rf "$SYS"
prefill ${#S2} "instance=4,cntlid=1"
conf "policy $NQN2 iopolicy=numa\n$C2\nconnect -t tcp -a 192.0.2.2 -n $NQN2"
run config apply "$F"
[ "$RC" = 1 ] && [ "$OUT" = "$F:2: connected nvfab4" ] &&
	[ "$ERR" = "nvfabctl: config: $F:1: cannot write 'numa' to $CFS/nvfab/subsystems/$NQN2/iopolicy: No such file or directory
nvfabctl: config: $F:3: not connected: the policy of $NQN2 (line 1) was not applied
nvfabctl: config: $F: 2 of 3 directives failed" ]
result "apply: a failed policy stops the connects of its NQN only, exit 1" $?
result "apply: the entry it made is removed again" \
	"$([ ! -e "$CFS/nvfab/subsystems/$NQN2" ] && [ -d "$ENTRY" ]; echo $?)"

# No fabrics device: one error for all the connects, with why the modules
# are not loaded (here: no nvfab installed for the kernel, no DKMS source).
rm -f "$DEV"
conf "$C1\n$C2"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F: cannot connect 2 controllers: no $DEV: nvfab's modules are not installed for the running kernel $NVFAB_KERNEL_RELEASE (nothing under $NVFAB_MODULES_DIR/$NVFAB_KERNEL_RELEASE), and no DKMS source of nvfab is in $NVFAB_DKMS_SRC: install the nvfab-dkms package or the modules (README.md, 'Installing on a host with DKMS')
nvfabctl: config: $F: 2 of 2 directives failed" ]
result "apply: no fabrics device: one error that says why the modules are missing, exit 1" $?

# --- retries, parallel connects, the service manager's status ------------------
SHIM=$TMP/fake_shim.so
gcc -shared -fPIC -Wall -Wextra -Werror -o "$SHIM" "$HERE/fake_shim.c" \
	>"$TMP/shim.log" 2>&1 || sed 's/^/# /' "$TMP/shim.log"
WLOG=$TMP/write.log
# shim ERRNO FAILS: the writes fail with ERRNO, the first FAILS of them
# ("" for all); every call is logged in $WLOG.
shim() {
	rm -f "$WLOG"
	RUNAS=(env LD_PRELOAD="$SHIM" NVFAB_FAKE_WRITE_LOG="$WLOG"
	       NVFAB_FAKE_WRITE_ERRNO="$1")
	[ -z "$2" ] || RUNAS+=(NVFAB_FAKE_WRITE_FAILS="$2")
}
calls() { grep -sc '^[0-9]' "$WLOG"; }
calls_are() { [ "$(calls)" = "$1" ]; }
rm -rf "$SYS" "$CFS"
NQN3=nqn.2014-08.org.example:array3
C3="connect -t tcp -a 192.0.2.2 -s 4420 -n $NQN3"
S3="nqn=$NQN3,transport=tcp,traddr=192.0.2.2,trsvcid=4420"
WHAT3="tcp 192.0.2.2 port 4420 (subsystem $NQN3)"
conf "$C3"
REFUSED="nvfabctl: config: $F:1: failed to write to $DEV: Connection refused"

prefill ${#S3} "instance=3,cntlid=5"$'\n'
shim 111 2
run config apply --retry --retry-interval 1 "$F"
[ "$RC" = 0 ] && [ "$OUT" = "$F:1: connected nvfab3" ] && [ "$(calls)" = 3 ] &&
	[[ "$ERR" == "$REFUSED
nvfabctl: config: $F:1: attempt 1 failed (Connection refused); retrying in 1."?" s
nvfabctl: config: $F: 1 of 1 controllers not connected yet; retrying them until they are (or until stopped)
$REFUSED
nvfabctl: config: $F:1: attempt 2 failed (Connection refused); retrying in 2."?" s" ]]
result "apply --retry: refused twice, then connected: the waits double (1 s, 2 s), exit 0" $?

prefill ${#S3} "instance=3,cntlid=5"$'\n'
shim 111 2
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(calls)" = 1 ] && [ "$ERR" = "$REFUSED
nvfabctl: config: $F: 1 of 1 directives failed" ]
result "apply without --retry: one attempt, exit 1" $?

shim 22 ""
run config apply --retry --retry-interval 1 "$F"
[ "$RC" = 1 ] && [ "$(calls)" = 1 ] && [ "$(echo "$ERR" | sed -n 2p)" = \
	"nvfabctl: config: $F:1: not retried: Invalid argument needs a change of the file or the host" ]
result "apply --retry: EINVAL (the kernel refused an option) is not retried" $?

# How many attempts fit depends on how fast each one fails (the waits
# are 1-1.25 s, then 2-2.5 s): every one is counted, the last says so.
shim 113 ""
run config apply --retry --retry-interval 1 --retry-timeout 2 "$F"
k=$(calls)
pl=s; [ "$k" = 1 ] && pl=
[ "$RC" = 1 ] && [ "$k" -ge 1 ] && [ "$k" -le 2 ] &&
	[[ "$(echo "$ERR" | tail -2)" == "nvfabctl: config: $F:1: given up after $k attempt$pl in "[01]" s (--retry-timeout); last: No route to host
nvfabctl: config: $F: 1 of 1 directives failed" ]]
result "apply --retry-timeout 2: no retry that would start after 2 s, exit 1" $?

# Stopped (systemctl stop): every controller still missing is named.
shim 111 ""
conf "$C3\n$C1"
"${RUNAS[@]}" "$BIN" config apply --retry --retry-interval 30 "$F" >"$TMP/out" 2>"$TMP/err" &
pid=$!
busywait 10000 calls_are 2
kill -TERM $pid
wait $pid
RC=$?
OUT=$(cat "$TMP/out")
ERR=$(grep -v ': warning: no host identity (' "$TMP/err")
[ "$RC" = 1 ] && [ "$(echo "$ERR" | grep 'stopped by signal' | sort)" = "nvfabctl: config: $F:1: stopped by signal Terminated: not connected after 1 attempt (last: Connection refused)
nvfabctl: config: $F:2: stopped by signal Terminated: not connected after 1 attempt (last: Connection refused)" ] &&
	[ "$(echo "$ERR" | tail -1)" = "nvfabctl: config: $F: 2 of 2 directives failed" ]
result "apply --retry stopped by SIGTERM: each missing controller named, exit 1" $?

# Under systemd: READY=1 after the first round, STATUS= says what is
# missing and then that all are connected.
NSOCK=$TMP/notify.sock
NLOG=$TMP/notify.log
python3 "$HERE/notify-sink.py" "$NSOCK" "$NLOG" &
npid=$!
busywait 10000 test -S "$NSOCK"
conf "$C3"
prefill ${#S3} "instance=3,cntlid=5"$'\n'
shim 111 1
RUNAS+=(NOTIFY_SOCKET="$NSOCK")
run config apply --retry --retry-interval 1 "$F"
busywait 5000 grep -q '^STATUS=all' "$NLOG"
kill $npid
wait $npid 2>/dev/null
[ "$RC" = 0 ] && [ "$(cat "$NLOG")" = "STATUS=0 of 1 controllers connected; missing: line 1 $WHAT3: attempt 1 running
READY=1
STATUS=0 of 1 controllers connected; missing: line 1 $WHAT3: Connection refused after 1 attempt, retrying
STATUS=0 of 1 controllers connected; missing: line 1 $WHAT3: attempt 2 running
STATUS=all 1 controllers connected" ]
st=$?
[ $st = 0 ] || sed 's/^/# notify: /' "$NLOG"
result "apply --retry under systemd: STATUS names the missing controller and why, READY=1 after the first round" $st

# --parallel: at most N writes at once (the shim counts them).
mkdir -p "$TMP/conc"
L=""
for i in 1 2 3 4; do
	L="$L\nconnect -t tcp -a 192.0.2.$i -s 4420 -n $NQN3"
done
conf "${L#\\n}"
maxconc() {
	prefill ${#S3} "instance=3,cntlid=5"$'\n'
	rm -f "$WLOG"
	RUNAS=(env LD_PRELOAD="$SHIM" NVFAB_FAKE_WRITE_LOG="$WLOG"
	       NVFAB_FAKE_WRITE_CONC="$TMP/conc" NVFAB_FAKE_WRITE_DELAY_MS=2000)
	run config apply "$@" "$F"
	[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c ': connected nvfab3$')" = 4 ] &&
		sed -n 's/^conc //p' "$WLOG" | sort -n | tail -1
}
result "apply --parallel 1: one connect at a time" "$([ "$(maxconc --parallel 1)" = 1 ]; echo $?)"
result "apply -P 2: two at once, never more" "$([ "$(maxconc -P 2)" = 2 ]; echo $?)"
result "apply: by default all four at once (up to 8)" "$([ "$(maxconc)" = 4 ]; echo $?)"
RUNAS=()

run config check --retry "$F"
result "check --retry: an option of apply only" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: --retry is an option of apply, not of check" ]; echo $?)"
run config apply -P 0 "$F"
result "apply -P 0: out of range" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: invalid --parallel 0: out of range, 1 to 64" ]; echo $?)"
run config apply --retry-interval 0 "$F"
result "apply --retry-interval 0: out of range" "$([ "$RC" = 1 ] &&
	[ "$ERR" = "nvfabctl: config: invalid --retry-interval 0: out of range, 1 to 86400 seconds" ]; echo $?)"
export NVFAB_SYSFS=$SYS NVFAB_CONFIGFS=$CFS

# configfs missing or older than the file: nothing is written.
conf "$GOOD"
rm -rf "$CFS"
snapshot >"$TMP/before"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F: no $CFS/nvfab (is module nvfab-core loaded and configfs mounted?)
nvfabctl: config: $F: nothing was changed" ]
result "apply: no configfs nvfab/: an error, nothing changed" $?
result "apply: no configfs nvfab/: the device untouched" \
	"$(snapshot | cmp -s "$TMP/before" -; echo $?)"
mkdir -p "$CFS"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F: no $CFS/nvfab: nvfab's modules are not installed for the running kernel $NVFAB_KERNEL_RELEASE (nothing under $NVFAB_MODULES_DIR/$NVFAB_KERNEL_RELEASE), and no DKMS source of nvfab is in $NVFAB_DKMS_SRC: install the nvfab-dkms package or the modules (README.md, 'Installing on a host with DKMS')
nvfabctl: config: $F: nothing was changed" ]
result "apply: configfs mounted, no nvfab/ in it: why the modules are not loaded" $?
rmdir "$CFS"
run config show "$F"
result "show: no configfs nvfab/: policy state unknown" \
	"$([ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR == 2 { print $3 }')" = unknown ]; echo $?)"
fresh_cfs
echo iopolicy >"$CFS/nvfab/features"
snapshot >"$TMP/before"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F:3: this nvfab-core has no configfs attribute 'no_path_tmo' ($CFS/nvfab/features: 'iopolicy')
nvfabctl: config: $F: nothing was changed" ]
result "apply: an attribute missing from features: an error, nothing changed" $?
result "apply: features: configfs and the device untouched" \
	"$(snapshot | cmp -s "$TMP/before" -; echo $?)"
rm -rf "$CFS"
prefill ${#S1} "instance=9,cntlid=2"
conf "# connects only\n$C1"
run config apply "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$F:2: connected nvfab9" ]
result "apply: a file without policies needs no configfs" $?
conf "# nothing"
run config apply "$F"
result "apply: a file without directives does nothing, exit 0" \
	"$([ "$RC" = 0 ] && [ -z "$OUT" ] && [ -z "$ERR" ]; echo $?)"

# Without /etc/nvme/hostnqn, one warning for the whole file, not per line.
cat >"$F" <<EOF
connect -t tcp -a 192.0.2.2 -n nqn.x:y
connect -t tcp -a 192.0.2.3 -n nqn.x:y
EOF
run config check "$F"
result "check: no host identity: one warning for the file" \
	"$([ "$RC" = 0 ] && [ "$(grep -c ': warning: no host identity (' "$TMP/err")" = 1 ]; echo $?)"

# --- discovery directives -------------------------------------------------------
DISC1="discovery site-a -t tcp -a 192.0.2.10 -s 8009 --connect=match --match nqn.2014-08.org.example:* --max-inflight 4"
DISC2="discovery site-b -t rdma -a 198.51.100.10 --disconnect none"
conf "$GOOD\n$DISC1\n$DISC2"
run config check "$F"
[ "$RC" = 0 ] && [ -z "$ERR" ] &&
	[ "$OUT" = "$F: 1 policy, 2 connect and 2 discovery directives, no errors" ]
result "check: discovery directives" $?
conf "$DISC1\n# again\ndiscovery site-a -t tcp -a 192.0.2.11"
check_err "a discovery name given twice" 3 \
	"discovery entry 'site-a' already given on line 1"
DA="transport traddr trsvcid host_traddr host_iface hostnqn hostid nqn kato connect_opts connect match disconnect poll_interval max_inflight enable state"
RUNAS=(env LD_PRELOAD="$SHIM" NVFAB_FAKE_MKDIR_ATTRS="$DA")
rm -rf "$CFS"
conf "$DISC1\n$DISC2"
run config apply "$F"
[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: $F:1: no $CFS/nvfab/discovery (is module nvfab-discovery loaded and configfs mounted?)
nvfabctl: config: $F:2: no $CFS/nvfab/discovery (is module nvfab-discovery loaded and configfs mounted?)
nvfabctl: config: $F: 2 of 2 directives failed" ]
result "apply: discovery without nvfab/discovery in configfs: each line fails" $?
mkdir -p "$CFS/nvfab/discovery"
run config apply "$F"
DDIR=$CFS/nvfab/discovery
[ "$RC" = 0 ] && [ -z "$ERR" ] && [ "$OUT" = "$F:1: discovery site-a: created and enabled
$F:2: discovery site-b: created and enabled" ] &&
	[ "$(grep -h '' "$DDIR/site-a/traddr" "$DDIR/site-a/trsvcid" "$DDIR/site-a/connect" "$DDIR/site-a/match" "$DDIR/site-a/max_inflight" "$DDIR/site-a/enable")" = "192.0.2.10
8009
match
nqn.2014-08.org.example:*
4
1" ] && [ "$(grep -h '' "$DDIR/site-b/transport" "$DDIR/site-b/disconnect" "$DDIR/site-b/enable")" = "rdma
none
1" ] && [ ! -s "$DDIR/site-b/trsvcid" ]
result "apply: discovery entries made in configfs, their attributes, enable=1" $?
echo live >"$DDIR/site-a/state"
run config apply "$F"
[ "$RC" = 0 ] && [ "$OUT" = "$F:1: discovery site-a: exists already
$F:2: discovery site-b: exists already" ]
result "apply: a second run leaves existing discovery entries alone" $?
run config show "$F"
[ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR > 1 { print $1, $2, $3, $4 }')" = "1 discovery live site-a
2 discovery unknown site-b" ]
result "show: discovery entries with their configfs state" $?
RUNAS=()

# --- dump: the live state as a file that check takes and show finds set --------
rm -rf "$SYS"
mkdir -p "$CFS/nvfab/subsystems/$NQN" "$CFS/nvfab/subsystems/$NQN2"
echo round-robin >"$CFS/nvfab/subsystems/$NQN/iopolicy"
echo 30 >"$CFS/nvfab/subsystems/$NQN/no_path_tmo"
echo numa >"$CFS/nvfab/subsystems/$NQN2/iopolicy"
echo auto >"$CFS/nvfab/subsystems/$NQN2/no_path_tmo"
mk_ctrl 0 live "traddr=192.0.2.2,trsvcid=4420,host_traddr=192.0.2.1,src_addr=192.0.2.1"
mk_ctrl 1 connecting "traddr=198.51.100.2,trsvcid=4420,host_iface=eth1" "$NQN2"
mk_ctrl 2 live "traddr=192.0.2.10,trsvcid=8009" nqn.2014-08.org.nvmexpress.discovery
mk_ctrl 3 deleting "traddr=203.0.113.9,trsvcid=4420"
c0=$SYS/devices/virtual/nvfab/nvfab0
c1=$SYS/devices/virtual/nvfab/nvfab1
echo "$UUID" >"$c0/hostid"
echo "$UUID" >"$c1/hostid"
printf '127\n' >"$c0/sqsize"; printf '5\n' >"$c0/kato"; printf '600\n' >"$c0/ctrl_loss_tmo"
printf '63\n' >"$c1/sqsize"; printf '2\n' >"$c1/reconnect_delay"
printf -- '-1\n' >"$c1/ctrl_loss_tmo"; printf '10\n' >"$c1/fast_io_fail_tmo"
printf '12345\n' >"$c1/tls_key"
printf 'DHHC-1:00:secret\n' >"$c1/dhchap_secret"
HQ=nqn.2014-08.org.nvmexpress:uuid:$UUID
run config dump
printf '%s\n' "$OUT" >"$TMP/dumped.conf"
[ "$RC" = 0 ] && [ "$OUT" = "# nvfab.conf: the live state, as \"nvfabctl config dump\" wrote it
policy $NQN iopolicy=round-robin no_path_tmo=30
policy $NQN2 iopolicy=numa no_path_tmo=auto
connect -t tcp -a 192.0.2.2 -s 4420 -w 192.0.2.1 -n $NQN -q $HQ -I $UUID
connect -t tcp -a 198.51.100.2 -s 4420 -f eth1 -n $NQN2 -q $HQ -I $UUID --queue-size=64 --reconnect-delay=2 --ctrl-loss-tmo=-1 --fast_io_fail_tmo=10 --tls
# nvfab1: DH-HMAC-CHAP: add --dhchap-secret (a key file) to the line above; dump never writes secrets
# nvfab2: a discovery controller (a discovery entry's or a discover run's): not written
discovery site-a --transport=tcp --traddr=192.0.2.10 --trsvcid=8009 --connect=match --match=nqn.2014-08.org.example:* --max-inflight=4
discovery site-b --transport=rdma --traddr=198.51.100.10 --disconnect=none" ] &&
	[ "$ERR" = "nvfabctl: config: dump: 2 policy, 2 connect and 2 discovery directives" ]
result "dump: policies, controllers (not the discovery one, not one being deleted), discovery entries; no secret" $?
run config check "$TMP/dumped.conf"
result "dump: config check takes what it wrote" \
	"$([ "$RC" = 0 ] && [ "$OUT" = "$TMP/dumped.conf: 2 policy, 2 connect and 2 discovery directives, no errors" ]; echo $?)"
run config show "$TMP/dumped.conf"
[ "$RC" = 0 ] && [ "$(echo "$OUT" | awk 'NR > 1 { print $3 }' | xargs)" = "set set nvfab0 nvfab1 live unknown" ]
result "dump: config show finds every line of it set, connected or present" $?
# --- import: nvme-cli's config.json and discovery.conf ---------------------------
FIX=$HERE/fixtures
mkdir -p "$TMP/etc-nvme-cli"
cp "$FIX/nvme-cli-config.json" "$TMP/etc-nvme-cli/config.json"
cp "$FIX/nvme-cli-discovery.conf" "$TMP/etc-nvme-cli/discovery.conf"
NVFAB_ETC_NVME=$TMP/etc-nvme-cli run config import
printf '%s\n' "$OUT" >"$TMP/imported.conf"
[ "$RC" = 0 ] && [ "$(echo "$OUT" | sed "s|$TMP/etc-nvme-cli|ETC|g")" = "$(cat "$FIX/nvme-cli-import.conf")" ] &&
	[ "$ERR" = "nvfabctl: config: import: 2 connect and 3 discovery directives, 5 comments on what was not imported" ]
st=$?
[ $st = 0 ] ||
	diff <(echo "$OUT" | sed "s|$TMP/etc-nvme-cli|ETC|g") "$FIX/nvme-cli-import.conf" | sed 's/^/# /'
result "import: /etc/nvme's config.json and discovery.conf as lines, with comments on what was left out (keys, fc, concat, I/O options)" $st
NVFAB_ETC_NVME=$TMP/etc-empty run config check "$TMP/imported.conf"
result "import: config check takes what it wrote" \
	"$([ "$RC" = 0 ] && [ "$OUT" = "$TMP/imported.conf: 0 policy, 2 connect and 3 discovery directives, no errors" ]; echo $?)"
run config import --json "$FIX/nvme-cli-config.json"
result "import --json FILE: that file only (the default discovery.conf is not there)" \
	"$([ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^connect ')" = 2 ] &&
		[ "$(echo "$OUT" | grep -c '^discovery ')" = 1 ]; echo $?)"
jbad() { # DESC JSON ERROR
	printf '%s' "$2" >"$TMP/bad.json"
	run config import --json "$TMP/bad.json"
	result "import: $1" "$([ "$RC" = 1 ] && [ -z "$OUT" ] &&
		[ "$ERR" = "nvfabctl: config: $TMP/bad.json: $3" ]; echo $?)"
}
jbad "a trailing comma: line and column" '{"hosts": [
  {"hostnqn": "x", }]}' "line 2, column 20: expected a member name"
jbad "an unterminated string" '{"hosts": "abc' "line 1, column 15: unterminated string"
jbad "a number with a leading zero" '{"hosts": [01]}' "line 1, column 13: expected ',' or ']'"
jbad "text after the document" '{"hosts": []} {}' "line 1, column 15: text after the document"
jbad "nested 40 deep" "{\"hosts\": $(printf '[%.0s' $(seq 40))" "line 1, column 43: nested too deep"
jbad "an unpaired surrogate" '{"hosts": [], "x": "\ud83d"}' "line 1, column 21: unpaired surrogate in \\u escape"
jbad "not libnvme's schema" '{"subsystems": []}' "no \"hosts\" array (libnvme's config.json schema)"
printf '{"hosts": [], "name": "caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/"}' >"$TMP/ok.json"
run config import --json "$TMP/ok.json"
result "import: escapes, \\u and surrogate pairs read; no hosts: no lines, exit 0" \
	"$([ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -vc '^#')" = 0 ]; echo $?)"
run config import --json "$TMP/none.json"
result "import: a named file that does not exist is an error" \
	"$([ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: cannot read $TMP/none.json: No such file or directory" ]; echo $?)"
NVFAB_ETC_NVME=$TMP/etc-empty run config import
result "import: neither file in /etc/nvme: nothing to import, exit 1" \
	"$([ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "nvfabctl: config: nothing to import: no $TMP/etc-empty/config.json or $TMP/etc-empty/discovery.conf" ]; echo $?)"
run config check --json x "$F"
result "check --json: an option of import only" \
	"$([ "$RC" = 1 ] && [ "$ERR" = "nvfabctl: config: --json is an option of import, not of check" ]; echo $?)"

run config dump extra
result "dump takes no FILE" "$([ "$RC" = 1 ] && [ -z "$OUT" ]; echo $?)"
NVFAB_SYSFS=$TMP/no-sys run config dump
result "dump without nvfab-core: says so, exit 1" \
	"$([ "$RC" = 1 ] && [ -z "$OUT" ] && [[ "$ERR" == "nvfabctl: config: module nvfab-core is not loaded"* ]]; echo $?)"

ktap_finish
