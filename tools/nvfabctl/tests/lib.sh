# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The harness of the host-side tests of nvfabctl (run.sh, config.sh),
# which source it first: the paths (HERE, TOOLDIR, REPO, BIN), the KTAP
# helpers of selftests/nvfab/lib.sh, a temp dir TMP removed at exit, the
# tool built (a failed build ends the test with "1..0" and the log), and
# result, which reports one test. Each test has its own run(), which sets
# RC, OUT and ERR for show.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLDIR=$(dirname "$HERE")
REPO=$(cd "$TOOLDIR/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../../../selftests/nvfab/lib.sh
. "$REPO/selftests/nvfab/lib.sh"

# shellcheck disable=SC2034 # the tests run it
BIN=$TOOLDIR/nvfabctl
TMP=$(mktemp -d)
cleanup() {
	rm -rf "$TMP"
}
trap cleanup EXIT

if ! make -s -C "$TOOLDIR" >"$TMP/build.log" 2>&1; then
	ktap_header
	echo "1..0 # build failed"
	sed 's/^/# /' "$TMP/build.log"
	exit "$KSFT_FAIL"
fi

# Why the modules are not loaded (modcheck.c) is read from these, not from
# this machine's kernel and DKMS; each test that looks at it fills them.
export NVFAB_KERNEL_RELEASE=6.12.99-test-amd64
export NVFAB_MODULES_DIR=$TMP/lib-modules
export NVFAB_DKMS_SRC=$TMP/usr-src
export NVFAB_ETC_DKMS=$TMP/etc-dkms
# nvme-cli's units as enabled here, not on this machine (coexist.c).
export NVFAB_ETC_SYSTEMD=$TMP/etc-systemd

# show: the last run, as KTAP diagnostics.
show() {
	ktap_diag "rc=$RC"
	[ -z "$OUT" ] || echo "$OUT" | sed 's/^/# out: /'
	[ -z "$ERR" ] || echo "$ERR" | sed 's/^/# err: /'
}

# result DESC CONDITION-STATUS: report one test, with the run on failure.
result() {
	ktap_status "$1" "$2" show
}
