#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation test of /dev/nvfab-fabrics: random and mutated option strings
# must all be refused with EINVAL, EOPNOTSUPP or EPROTONOSUPPORT, with no
# kernel report, and the module must still unload with refcount 0.
set -u
. "$(dirname "$0")/lib.sh"

W="$(dirname "$0")/fabrics_write.py"
COUNT=${NVFAB_FUZZ_COUNT:-300}
SEED=${NVFAB_FUZZ_SEED:-$(date +%s)}

cleanup() {
	nvfab_unload nvfab-fabrics nvfab-core >/dev/null 2>&1
}
trap cleanup EXIT

require_root
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 4

nvfab_load nvfab-core nvfab-fabrics || {
	ktap_diag "cannot load modules"
	exit $KSFT_FAIL
}
dmesg_canary_start
ktap_diag "seed $SEED, $COUNT strings (NVFAB_FUZZ_SEED=$SEED reproduces)"
out=$("$W" fuzz "$COUNT" "$SEED")
rc=$?
echo "$out" | sed 's/^/# /'
ktap_check "every string refused with an expected errno" test "$rc" = 0
ktap_check "refcnt back to 0" test "$(nvfab_refcnt nvfab-fabrics)" = 0
ktap_check "modules unload" nvfab_unload nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
