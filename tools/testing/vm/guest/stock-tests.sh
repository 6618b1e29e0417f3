#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Payload of the stock-kernel guest in `make check`: the nvfab modules that
# DKMS installed for Debian's kernel load and unload (modprobe, as a user
# would), the control node accepts and refuses connect strings, every
# scenario of the hostile target (hostile.sh) passes, DH-HMAC-CHAP
# authenticates against nvmet with nvme-cli's keys, the whole matrix of
# hash and DH group against nvfab and the in-kernel host
# (NVFAB_AUTH_MATRIX=full auth.sh, here only: under KASAN a case takes
# 5-10 s; the test kernel runs hostile.sh's chap-ok and chap-bad-r2),
# NVMe/TCP over TLS 1.3 with tlshd against nvmet, compared with the
# in-kernel host (tls.sh; the test kernel runs it with nvfab alone), the boot-time
# configuration (persist.sh: modules-load.d, nvfab-boot.service's command)
# connects as it would at boot, the user-space package (packages.sh:
# nvfab-tools from make deb, installed, upgraded and removed with dpkg in
# an overlay of the root) puts its files where they belong and its unit's
# command connects, NVMe/RDMA works on soft RoCE with the
# DKMS-built nvfab-rdma (hostile_rdma.sh's correct target and its
# scenarios), peer memory's registered-buffer
# route with the test provider from make peermem-test-stock (peermem.sh;
# this kernel has no P2PDMA), nvfab-discovery follows nvmet's
# discovery controller (discovery.sh) and refuses the malformed or
# shifting logs of the hostile discovery target (hostile_disc.sh), the
# udev rules name the heads of the installed modules (udev.sh), nvfabctl
# drives them (nvfabctl.sh) and the demo runs (demo.sh). The last two run
# here only, not in the test-kernel guest: they drive user space
# (check-all.sh says why). The hostile NVMe/RDMA target's scenarios
# (hostile_rdma.sh) run here and under KASAN. configfs.sh, rdma_io.sh,
# rdma_mpath.sh and rdma_recovery.sh run whole in the test-kernel guest,
# under KASAN and lockdep, and are not repeated here (232 s; make check's
# time budget, Documentation/dev-tools/testing.rst). The stock kernel has
# no KUnit: kunit.ktap records a skip.
set -u
: "${REPO_ROOT:?}" "${OUT:?}"

unset NVFAB_MODDIR	# modprobe from /lib/modules/$(uname -r)/updates/dkms
printf 'TAP version 13\n1..0 # SKIP the stock kernel has no KUnit\n' >"$OUT/kunit.ktap"
: >"$OUT/phases"

ktap=$OUT/selftests.ktap
{
	echo "# stock kernel $(uname -r)"
	echo "# dkms modules: $(find "/lib/modules/$(uname -r)/updates/dkms" -name 'nvfab*' -printf '%f ' 2>/dev/null)"
} >&2
# hostile.sh runs whole here (a Python target per scenario is several
# times slower under KASAN); the test kernel runs the scenarios that
# check-all.sh names in NVFAB_HOSTILE_ONLY (use-after-free and lock
# inversion candidates).
#
# NVFAB_STOCK_SELFTESTS replaces that list: check-all.sh's newest-kernel
# guest (Debian's newest kernel from matrix-image.sh) runs modules.sh and
# the short demo (demo.sh).
NVFAB_AUTH_MATRIX=full \
NVFAB_SELFTESTS=${NVFAB_STOCK_SELFTESTS:-"modules.sh fabrics_dev.sh peermem.sh discovery.sh hostile_disc.sh hostile.sh auth.sh tls.sh hostile_rdma.sh persist.sh packages.sh udev.sh nvfabctl.sh demo.sh"} \
	timeout 2700 "$REPO_ROOT/selftests/nvfab/run.sh" >"$ktap"
echo "selftests_rc=$?" >>"$OUT/phases"
cat "$ktap"
