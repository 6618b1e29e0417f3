#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfabctl against the real /dev/nvfab-fabrics and sysfs, with no transport
# registered: connect fails with the errno the kernel gives and a message
# that says why; list and disconnect handle "no controllers"; nothing is
# left behind and the kernel log stays clean.
set -u
. "$(dirname "$0")/lib.sh"

BIN="$(cd "$(dirname "$0")" && pwd)/../../tools/nvfabctl/nvfabctl"
NQN=nqn.2014-08.org.example:nvfabctl
UUID=3fa85f64-5717-4562-b3fc-2c963f66afa6
TMP=

cleanup() {
	nvfab_unload nvfab-fabrics nvfab-core >/dev/null 2>&1
	[ -z "$TMP" ] || rm -rf "$TMP"
}
trap cleanup EXIT

require_root
[ -x "$BIN" ] || ksft_skip_all "nvfabctl not built (make -C tools/nvfabctl)"
TMP=$(mktemp -d)
mkdir -p "$TMP/etc-empty" "$TMP/etc-both"
echo "nqn.2014-08.org.nvmexpress:uuid:$UUID" >"$TMP/etc-both/hostnqn"
echo "$UUID" >"$TMP/etc-both/hostid"
# The real device and sysfs; the host identity under test's control.
unset NVFAB_FABRICS_DEV NVFAB_SYSFS
export NVFAB_ETC_NVME=$TMP/etc-empty

# The connects must find no transport: tcp while module nvfab-tcp is
# neither loaded nor installed, else a name that no module has.
T=tcp
if nvfab_mod_loaded nvfab-tcp || modprobe -n -q nvfab-tcp 2>/dev/null; then
	T=nvfabctl_none
fi
CONNECT=(connect -t "$T" -a 192.0.2.2 -s 4420 -n "$NQN")

# run ARGS...: sets RC, OUT, ERR.
run() {
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	ktap_diag "nvfabctl $* -> rc=$RC${OUT:+ out: $OUT}${ERR:+ err: $ERR}"
}

# One stderr line "nvfabctl: VERB: ...TEXT...", exit status 1, no stdout.
failed_with() { # verb text
	[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == "nvfabctl: $1: "*"$2"* ]]
}

# Exit status 0, stdout OUT exactly, nothing on stderr.
succeeded_with() { # out
	[ "$RC" = 0 ] && [ "$OUT" = "$1" ] && [ -z "$ERR" ]
}

# The kernel log after MARK has no line from nvfab-fabrics.
no_fabrics_log_since() {
	! dmesg_since "$1" | grep -q 'nvfab_fabrics:'
}

ktap_header
ktap_set_plan 17
ktap_diag "transport under test: $T"

nvfab_load nvfab-core nvfab-fabrics || {
	ktap_diag "cannot load modules"
	exit $KSFT_FAIL
}
dmesg_canary_start

mark=$(dmesg_mark)
run "${CONNECT[@]}"
ktap_check "connect without a transport fails" test "$RC" != 0
ktap_check "its message names the missing transport module" failed_with connect \
	"Protocol not supported (no transport module nvfab-$T loaded)"
ktap_check "log says why" dmesg_has_since "$mark" "no transport '$T'"

mark=$(dmesg_mark)
run "${CONNECT[@]}" -Q 8
ktap_check "connect -Q 8 fails with EINVAL" failed_with connect \
	"Invalid argument (invalid option, see dmesg)"
ktap_check "log names queue_size" dmesg_has_since "$mark" "queue_size 8 is outside"

mark=$(dmesg_mark)
NVFAB_ETC_NVME=$TMP/etc-both run "${CONNECT[@]}" -i 2 -W 1 -P 1 -Q 32 -k 0 \
	-c 5 -l 60 -F 10 -T 0 -D -d -g -G
ktap_check "hostnqn, hostid and every flag pass the parser (EPROTONOSUPPORT)" \
	failed_with connect "Protocol not supported"
ktap_check "the parser logged nothing but the missing transport" \
	test "$(dmesg_since "$mark" | grep 'nvfab_fabrics:' | grep -vc "no transport '$T'")" = 0

mark=$(dmesg_mark)
run "${CONNECT[@]}" -q nqn.2014-08.org.example:lonely
ktap_check "a lone --hostnqn is refused before the kernel" failed_with connect \
	"--hostnqn needs --hostid"
ktap_check "nothing was written to the device" no_fabrics_log_since "$mark"

run list
ktap_check "list without controllers prints nothing" succeeded_with ""
run list -o json
ktap_check "list -o json without controllers prints []" succeeded_with "[]"

run disconnect -d nvfab99
ktap_check "disconnect -d nvfab99 fails cleanly" failed_with disconnect \
	"no such controller: nvfab99"
run disconnect -n "$NQN"
ktap_check "disconnect -n of an unknown NQN fails cleanly" failed_with disconnect \
	"no controller with subsysnqn '$NQN'"
run disconnect-all
ktap_check "disconnect-all without controllers succeeds" succeeded_with ""

ktap_check "refcnt back to 0" test "$(nvfab_refcnt nvfab-fabrics)" = 0
ktap_check "modules unload" nvfab_unload nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
