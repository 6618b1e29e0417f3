#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of make lint's docs check (tools/doc-check.py): in a scratch
# tree with one module file, one ABI file and the real man page, it passes
# when they agree, and fails, naming the thing, for an attribute no ABI
# file documents (also one made by a wrapper macro), an ABI entry the code
# does not define, a man page without a command's section, and a man page
# naming an option no command has, and a --dry-run example whose output
# differs from the tool's. Then the real tree. KTAP output.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"
CHECK=$REPO/tools/doc-check.py
BIN=$REPO/tools/nvfabctl/nvfabctl

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/drivers/nvfab/x" "$T/Documentation/ABI/testing"
MAN=$T/Documentation/nvfabctl.8

code() { # the module file, with $1 as its attribute lines
	printf '#define X_ATTR(_name, _v) static struct x x_##_name = { .attr = __ATTR(_name, 0644, s, t) }\n%s\n' \
		"$1" >"$T/drivers/nvfab/x/x.c"
}
abi() { # the ABI file, one What: per name
	local n
	for n in "$@"; do
		printf 'What:\t\t/sys/class/x/xN/%s\nDescription:\n\t\t(RO) it.\n\n' "$n"
	done >"$T/Documentation/ABI/testing/sysfs-class-x"
}

# expect RC [PATTERN] (expect.sh) runs this:
CHECK_CMD=("$CHECK" "$T" --nvfabctl "$BIN")
# shellcheck source-path=SCRIPTDIR source=expect.sh
. "$(dirname "$0")/expect.sh"

ktap_header
make -s -C "$REPO/tools/nvfabctl" >/dev/null 2>&1 ||
	ksft_skip_all "nvfabctl does not build"
ktap_set_plan 8

cp "$REPO/Documentation/nvfabctl.8" "$MAN"
code 'static DEVICE_ATTR_RO(state);
X_ATTR(knob, 1);'
abi state knob
ktap_check "code, ABI and man page that agree pass" expect 0

code 'static DEVICE_ATTR_RO(state);
X_ATTR(knob, 1);
static DEVICE_ATTR_RW(newattr);'
ktap_check "an attribute in no ABI file fails, naming it" \
	expect 1 'attribute or parameter "newattr" is in no'

code 'static DEVICE_ATTR_RO(state);
X_ATTR(knob, 1);
X_ATTR(wrapped, 2);'
ktap_check "... also one a wrapper macro defines" \
	expect 1 '"wrapped" is in no'

code 'static DEVICE_ATTR_RO(state);
X_ATTR(knob, 1);'
abi state knob gone
ktap_check "an ABI entry the code does not define fails, naming it" \
	expect 1 '/sys/class/x/xN/gone is defined nowhere'

abi state knob
sed '/^\.SS show\\-topology$/,/^\.SS /{/^\.SS show\\-topology$/d}' \
	"$REPO/Documentation/nvfabctl.8" >"$MAN"
ktap_check "a man page without a command's section fails, naming it" \
	expect 1 'no section for command "show-topology"'

{ cat "$REPO/Documentation/nvfabctl.8"; printf '.B \\-\\-frobnicate\n'; } >"$MAN"
ktap_check "a man page naming an option no command has fails, naming it" \
	expect 1 '"--frobnicate" is an option of no nvfabctl command'

sed 's/trsvcid=4420,hostnqn=...,hostid=...,keep_alive_tmo=0/trsvcid=4420,hostnqn=...,hostid=...,keep_alive_tmo=9/' \
	"$REPO/Documentation/nvfabctl.8" >"$MAN"
ktap_check "a --dry-run example whose shown output differs from the tool's fails" \
	expect 1 'example "nvfabctl connect --dry-run -t tcp -a 192.0.2.2'

real() {
	local out
	out=$("$CHECK" "$REPO" 2>&1) || { sed 's/^/# /' <<<"$out"; return 1; }
}
ktap_check "the tree: every attribute, command and option documented, nothing documented that is not" real
ktap_finish
