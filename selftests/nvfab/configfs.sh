#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /sys/kernel/config/nvfab: entries per subsystem NQN with iopolicy and
# no_path_tmo. Defaults, good values read back, bad values and bad NQN
# directory names fail with EINVAL, change nothing and log one line each;
# an entry pins nvfab-core; the kernel log stays clean.
set -u
. "$(dirname "$0")/lib.sh"

CFS=/sys/kernel/config/nvfab
SUBS=$CFS/subsystems
NQN=nqn.2014-08.org.nvmexpress:nvfab-cfs-test-a
NQN2=nqn.2014-08.org.nvmexpress:nvfab-cfs-test-b
E=$SUBS/$NQN

# Modules that may hold nvfab-core from an earlier test.
unload_all() {
	local m
	for m in /sys/module/nvfab_ps_*; do
		[ -d "$m" ] && rmmod "${m##*/}"
	done
	nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
}

cleanup() {
	local d
	for d in "$SUBS"/nqn.*nvfab-cfs-test* "$SUBS"/nqn.aaaa*; do
		[ -d "$d" ] && rmdir "$d"
	done
	unload_all >/dev/null 2>&1
}
trap cleanup EXIT

long_name() { # total length: "nqn." and then 'a' up to it
	printf 'nqn.%*s' $(($1 - 4)) '' | tr ' ' a
}

# Values as printf %b strings: echo's newline is written explicitly.
GOOD_IOPOLICY=('round-robin\n' 'service-time\n' 'a\n' 'q-0\n'
	'abcdefghijklmnopqrstuvwxyz01234\n' 'numa')
BAD_IOPOLICY=('Service_Time\n' '\n' 'round robin\n' ' rr\n' 'rr\n\n'
	'rr\r\n' '../rr\n' 'abcdefghijklmnopqrstuvwxyz012345\n' 'q\xc3\xa9\n')
GOOD_TMO=('1\n' '3600\n' 'auto\n' '45')
BAD_TMO=('0\n' '3601\n' '-1\n' 'abc\n' '0x10\n' '10s\n' '\n' 'AUTO\n'
	'99999999999\n' '2147483648\n' 'auto auto\n' ' 10\n' '10\n\n')
BAD_NQN=(testnqn 'NQN.2014-08.org.example:x' 'nqn.' 'nqn.a b' $'nqn.\x01x'
	$'nqn.\xc3\xa9' "$(long_name 224)")

require_root
ktap_header
ktap_set_plan $((6 + ${#GOOD_IOPOLICY[@]} + ${#GOOD_TMO[@]} + \
	3 * (${#BAD_IOPOLICY[@]} + ${#BAD_TMO[@]} + ${#BAD_NQN[@]}) + 11))

dmesg_canary_start
unload_all >/dev/null 2>&1
# configfs is a module on stock kernels; insmod does not load it.
modprobe -q configfs 2>/dev/null || true
ktap_check "nvfab-core loads" nvfab_load nvfab-core
mountpoint -q /sys/kernel/config ||
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
ktap_check "$SUBS exists" test -d "$SUBS"
features=$(cat "$CFS/features" 2>/dev/null)
ktap_check "features reads iopolicy,no_path_tmo (got '$features')" \
	test "$features" = "iopolicy,no_path_tmo"
base=$(nvfab_refcnt nvfab-core)

ktap_check "mkdir subsystems/$NQN" mkdir "$E"
ktap_check "entry has iopolicy and no_path_tmo, mode 644" \
	test "$(stat -c %a "$E/iopolicy" "$E/no_path_tmo" 2>/dev/null | tr '\n' ' ')" = "644 644 "
def="$(cat "$E/iopolicy" 2>/dev/null)|$(cat "$E/no_path_tmo" 2>/dev/null)"
ktap_check "defaults: iopolicy empty, no_path_tmo auto (got '$def')" \
	test "$def" = "|auto"

# cfs_write FILE VALUE: one write(2) of printf %b VALUE (the shell's
# printf may split it at newlines, and configfs stores each write); WERR
# is the error.
cfs_write() {
	WERR=$(python3 -c '
import codecs, os, sys
data = codecs.decode(sys.argv[2], "unicode_escape").encode("latin-1")
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, data)
except OSError as e:
    sys.exit("write error: " + os.strerror(e.errno))
' "$1" "$2" 2>&1)
}

# The last write succeeded and the file read back $want.
read_back() { [ -z "$WERR" ] && [ "$got" = "$want" ]; }

for v in "${GOOD_IOPOLICY[@]}"; do
	want=$(printf '%b' "$v")
	cfs_write "$E/iopolicy" "$v"
	got=$(cat "$E/iopolicy")
	ktap_check "iopolicy '${v}' reads back '$want' (got '$got')" \
		read_back
done
for v in "${GOOD_TMO[@]}"; do
	want=$(printf '%b' "$v")
	cfs_write "$E/no_path_tmo" "$v"
	got=$(cat "$E/no_path_tmo")
	ktap_check "no_path_tmo '${v}' reads back '$want' (got '$got')" \
		read_back
done

# bad_write ATTR VALUE: EINVAL, value unchanged, one log line.
bad_write() {
	local attr=$1 v=$2 before after mark lines
	before=$(cat "$E/$attr")
	mark=$(dmesg_mark)
	cfs_write "$E/$attr" "$v"
	after=$(cat "$E/$attr")
	lines=$(dmesg_since "$mark" | grep -cF "configfs: subsystems/$NQN/$attr: '")
	ktap_check "$attr '$v' fails with EINVAL" \
		test "${WERR#*Invalid argument}" != "$WERR"
	ktap_check "$attr '$v' leaves '$before' (got '$after')" \
		test "$after" = "$before"
	ktap_check "$attr '$v' logs one line (got $lines)" test "$lines" = 1
}

for v in "${BAD_IOPOLICY[@]}"; do
	bad_write iopolicy "$v"
done
for v in "${BAD_TMO[@]}"; do
	bad_write no_path_tmo "$v"
done

for n in "${BAD_NQN[@]}"; do
	mark=$(dmesg_mark)
	err=$(mkdir "$SUBS/$n" 2>&1)
	lines=$(dmesg_since "$mark" | grep -c "configfs: subsystems/.*: not a subsystem NQN: it ")
	show=$(printf '%q' "${n:0:40}")
	ktap_check "mkdir $show fails with EINVAL" \
		test "${err#*Invalid argument}" != "$err"
	ktap_check "mkdir $show leaves no entry" test ! -e "$SUBS/$n"
	ktap_check "mkdir $show logs one line (got $lines)" test "$lines" = 1
done

mk_rm() { mkdir "$SUBS/$1" && test -f "$SUBS/$1/iopolicy" && rmdir "$SUBS/$1"; }
ktap_check "a 223-byte NQN is accepted" mk_rm "$(long_name 223)"
ktap_check "the discovery NQN is accepted" \
	mk_rm nqn.2014-08.org.nvmexpress.discovery
err=$(mkdir "$E" 2>&1)
ktap_check "mkdir of an existing entry fails with EEXIST" \
	test "${err#*File exists}" != "$err"

two_entries() {
	mkdir "$SUBS/$NQN2" &&
		echo round-robin >"$SUBS/$NQN2/iopolicy" &&
		echo 7 >"$SUBS/$NQN2/no_path_tmo" &&
		test "$(cat "$E/iopolicy")|$(cat "$E/no_path_tmo")" = "numa|45" &&
		test "$(cat "$SUBS/$NQN2/iopolicy")|$(cat "$SUBS/$NQN2/no_path_tmo")" = "round-robin|7"
}
ktap_check "two entries keep their own values" two_entries

# configfs takes module references for each entry: rmmod must refuse.
pinned=$(nvfab_refcnt nvfab-core)
ktap_diag "nvfab_core refcnt: $base without entries, $pinned with two"
ktap_check "entries raise the refcnt of nvfab_core" \
	test "$pinned" -gt "$base" 2>/dev/null
rmmod nvfab_core >/dev/null 2>&1
rc=$?
ktap_check "rmmod nvfab_core with entries is refused (rc $rc)" \
	test "$rc" != 0
intact() {
	nvfab_mod_loaded nvfab-core &&
		test "$(cat "$E/iopolicy")|$(cat "$E/no_path_tmo")" = "numa|45"
}
ktap_check "module and entry survive the refused rmmod" intact

ktap_check "rmdir both entries" rmdir "$E" "$SUBS/$NQN2"
ktap_check "refcnt back to $base" test "$(nvfab_refcnt nvfab-core)" = "$base"
unloaded() { rmmod nvfab_core && ! nvfab_mod_loaded nvfab-core && test ! -e "$CFS"; }
ktap_check "rmmod without entries removes $CFS" unloaded
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
