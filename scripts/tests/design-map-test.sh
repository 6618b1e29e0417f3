#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of make lint's module-map check (tools/design-map.py): in a
# scratch git tree it passes when Documentation/design.rst's "Module map"
# section names every drivers/nvfab .c file, and fails, naming the file,
# when a file is missing from the map, when the map names a file that does
# not exist, when a file is named only outside the section, and when the
# section is missing. Then the real tree's map. KTAP output.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/selftests/nvfab/lib.sh"
MAP=$REPO/tools/design-map.py

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
git -C "$T" init -q
mkdir -p "$T/drivers/nvfab/core/tests" "$T/Documentation"
touch "$T/drivers/nvfab/core/core.c" "$T/drivers/nvfab/core/tests/a_kunit.c"
git -C "$T" add drivers

doc() { # write design.rst with the module map body $1 and trailer $2
	cat >"$T/Documentation/design.rst" <<DOC
=====
Title
=====

Intro names \`\`core/old.c\`\`.

Module map
==========

$1

Sub
---

Still in the map.

Next section
============

${2:-}
DOC
}

# expect RC [PATTERN] (expect.sh) runs this:
CHECK_CMD=("$MAP" "$T")
# shellcheck source-path=SCRIPTDIR source=expect.sh
. "$(dirname "$0")/expect.sh"

ktap_header
ktap_set_plan 6

doc '``core/core.c`` and ``core/tests/a_kunit.c``'
ktap_check "a map naming every file passes" expect 0

doc '``core/core.c`` only'
ktap_check "a file missing from the map fails, naming it" \
	expect 1 'does not name drivers/nvfab/core/tests/a_kunit.c'

doc '``core/core.c``, ``core/tests/a_kunit.c``, ``core/gone.c``'
ktap_check "a map naming a file that does not exist fails, naming it" \
	expect 1 'names core/gone.c'

doc '``core/core.c``' '``core/tests/a_kunit.c`` after the map'
ktap_check "a file named only after the map's section fails" \
	expect 1 'does not name drivers/nvfab/core/tests/a_kunit.c'

printf 'Title\n=====\n\nNo map.\n' >"$T/Documentation/design.rst"
ktap_check "a design.rst without a Module map section fails" \
	expect 1 "no section titled 'Module map'"

real() {
	local out
	out=$("$MAP" "$REPO" 2>&1) || { sed 's/^/# /' <<<"$out"; return 1; }
}
ktap_check "the tree's design.rst maps every drivers/nvfab .c file" real

ktap_finish
