#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of scripts/conftest.sh: a broken probe build environment
# (no tree, not a kernel tree, a tree whose compiler fails) must stop it
# with a clear error and the compiler's output, never read as "every API
# absent", and must leave the old header alone; a working tree (the stock
# Debian headers, KDIR to override) must give one HAVE_ line per probe.
# KTAP output; exits 0 only if every test passes.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"
. "$REPO/tools/testing/vm/lib.sh"

CONFTEST=$REPO/scripts/conftest.sh
TMP=$(mktemp -d)
cleanup() {
	rm -rf "$TMP"
}
trap cleanup EXIT

# run KDIR: conftest.sh against KDIR into $TMP/conftest.h (which holds a
# sentinel first); sets RC and ERR.
run() {
	echo "/* sentinel */" >"$TMP/conftest.h"
	timeout 300 "$CONFTEST" "$1" "$TMP/conftest.h" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	ERR=$(cat "$TMP/err")
}

untouched() {
	[ "$(cat "$TMP/conftest.h")" = "/* sentinel */" ]
}

show() {
	ktap_diag "rc=$RC"
	sed 's/^/# err: /' "$TMP/err" | head -20
}

# result DESC STATUS: report one test, with the run on failure.
result() {
	ktap_status "$1" "$2" show
}

ktap_header
ktap_set_plan 5

run "$TMP/no-such-dir"
result "a missing KDIR is an error, header untouched" \
	"$([ "$RC" = 1 ] && [[ "$ERR" == *"does not exist"* ]] && untouched; echo $?)"

mkdir -p "$TMP/empty"
run "$TMP/empty"
result "a KDIR that is no kernel tree is an error, header untouched" \
	"$([ "$RC" = 1 ] && [[ "$ERR" == *"not a kernel build tree"* ]] && untouched; echo $?)"

# A "kernel tree" whose every build fails as a broken compiler would.
mkdir -p "$TMP/broken"
printf '.DEFAULT:\n\t@echo "fake-cc: fatal error: simulated broken compiler" >&2; exit 1\n' \
	>"$TMP/broken/Makefile"
run "$TMP/broken"
result "a tree whose compiler fails is an error with the compiler's output, header untouched" \
	"$([ "$RC" = 1 ] && [[ "$ERR" == *"build environment is broken"* ]] &&
		[[ "$ERR" == *"simulated broken compiler"* ]] && untouched; echo $?)"

kdir=${KDIR:-/usr/src/linux-headers-$(stock_kver)}
if [ ! -f "$kdir/Makefile" ]; then
	ktap_skip "a real tree with a failing compiler is an error" "no headers in $kdir"
	ktap_skip "a real tree gives one HAVE_ line per probe" "no headers in $kdir"
	ktap_finish
fi

# The real tree, with a compiler that fails: make passes CC= on to the
# sub-make through MAKEFLAGS, as it does when the user runs make CC=...
MAKEFLAGS="CC=/bin/false" run "$kdir"
result "a real tree ($kdir) with a failing compiler is an error, header untouched" \
	"$([ "$RC" = 1 ] && [[ "$ERR" == *"build environment is broken"* ]] && untouched; echo $?)"

run "$kdir"
st=$RC
nprobes=$(find "$REPO/scripts/conftest" -name '*.c' | wc -l)
nlines=$(grep -c -E '^(#define HAVE_[A-Z0-9_]+ 1|/\* #undef HAVE_[A-Z0-9_]+ \*/)$' "$TMP/conftest.h")
if [ "$nlines" != "$nprobes" ]; then
	ktap_diag "$nprobes probes, $nlines HAVE_ lines"
	sed 's/^/# h: /' "$TMP/conftest.h"
	st=1
fi
grep -q SANITY "$TMP/conftest.h" && { ktap_diag "the sanity probe leaked into the header"; st=1; }
result "a real tree ($kdir) gives one HAVE_ line per probe" "$st"

ktap_finish
