# SPDX-License-Identifier: GPL-2.0
#
# nvfab top-level Makefile. The kernel build itself is driven by the Kbuild
# files; this file is the user's entry point.
#
#   make [KDIR=/path/to/kernel/build]   build every module (default target)
#        [NVIDIA_SRC=DIR|none]          with (where nv-p2p.h is found) or
#                                       without the NVIDIA provider
#   make check                          the test suite in a QEMU guest
#   make check-full                     the long soaks (not run by CI)
#   make lint                           checkpatch, sparse, kernel-doc
#   make demo                           the main job (see README.md)
#   make bench                          nvfab vs in-kernel NVMe/TCP ratios
#   make peermem-test-stock             the peer-memory test provider for
#                                       the stock kernel (make check)
#   make dkms.conf                      regenerate dkms.conf from VERSION
#   make dkms-install [KVER=<release>]  install with DKMS from this checkout
#   make dkms-uninstall                 undo it: dkms remove, rm the source
#   make deb                            build/deb/nvfab-dkms_<VERSION>_all.deb
#                                       and nvfab-tools_<VERSION>_<arch>.deb
#   make install [DESTDIR= PREFIX=]     nvfabctl, its man page and bash
#                                       completion, the udev rules, the
#                                       systemd unit, modules-load.d
#   make uninstall [DESTDIR= PREFIX=]   remove what make install installed

ifneq ($(KBUILD_MODULES),)
# Inside kbuild (should not happen: kbuild reads Kbuild first).
include $(src)/Kbuild
else

KDIR ?= /lib/modules/$(shell uname -r)/build
VERSION := $(shell cat VERSION)
CACHE ?= /var/cache/nvfab
BUILD := $(CURDIR)/build

# make install: under $(PREFIX)/lib, which udev (rules.d), systemd (units)
# and systemd-modules-load (modules-load.d) all read for /usr/local; the
# kernel modules themselves come from DKMS (make dkms-install, make deb).
PREFIX ?= /usr/local
LIBDIR_SYS ?= $(PREFIX)/lib
UDEVRULESDIR ?= $(LIBDIR_SYS)/udev/rules.d
SYSTEMDUNITDIR ?= $(LIBDIR_SYS)/systemd/system
MODULESLOADDIR ?= $(LIBDIR_SYS)/modules-load.d
EXAMPLESDIR ?= $(PREFIX)/share/nvfab/examples

# The source files DKMS and the out-of-tree build copies need.
SRC_FILES := Kbuild Makefile VERSION dkms.conf drivers include scripts tools

.PHONY: all modules conftest nv-p2p clean check check-full lint demo bench \
	test-modules peermem-test-stock dkms-install dkms-uninstall deb \
	install uninstall help

# nvfab-peermem-nvidia is built only where scripts/nv-p2p.sh finds NVIDIA's
# nv-p2p.h: in NVIDIA_SRC when given, else in /usr/src/nvidia-*/. Its
# nvidia_p2p_* symbols come from nvidia.ko: modpost is given NVIDIA's
# symbol list when one is found, and told to only warn otherwise (the
# module then loads with "no symbol version" warnings).
NV_P2P := $(shell scripts/nv-p2p.sh "$(if $(NVIDIA_SRC),$(if $(filter none,$(NVIDIA_SRC)),none,$(abspath $(NVIDIA_SRC))))" 2>/dev/null)
NV_P2P_DIR := $(word 1,$(NV_P2P))
NV_P2P_SYMVERS := $(word 2,$(NV_P2P))
NV_P2P_ARGS := $(if $(NV_P2P_DIR),NVFAB_NV_P2P=$(NV_P2P_DIR) \
	$(if $(NV_P2P_SYMVERS),KBUILD_EXTRA_SYMBOLS=$(NV_P2P_SYMVERS),KBUILD_MODPOST_WARN=1))

all: modules

help:
	@sed -n 's/^#   //p' Makefile

modules: conftest nv-p2p
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(NV_P2P_ARGS) modules

# One line when the NVIDIA provider is built, nothing when it is not; an
# error only when NVIDIA_SRC names a directory without nv-p2p.h.
nv-p2p:
ifneq ($(NV_P2P_DIR),)
	@echo "nvfab-peermem-nvidia: building against $(NV_P2P_DIR)/nv-p2p.h$(if $(NV_P2P_SYMVERS),, (no NVIDIA Module.symvers: modpost only warns of undefined nvidia_p2p_* symbols))"
else ifneq ($(filter-out none,$(NVIDIA_SRC)),)
	@scripts/nv-p2p.sh "$(abspath $(NVIDIA_SRC))" >/dev/null
endif

conftest:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "error: KDIR=$(KDIR) does not exist." >&2; \
		echo "Pass KDIR=<kernel build dir>, e.g." \
		     "KDIR=/usr/src/linux-headers-\$$(uname -r)" >&2; \
		exit 1; \
	fi
	@scripts/conftest.sh $(KDIR) $(CURDIR)/include/nvfab/conftest.h

dkms.conf: VERSION $(wildcard drivers/nvfab/Kbuild drivers/nvfab/*/Kbuild) \
		scripts/gen-dkms-conf.sh
	scripts/gen-dkms-conf.sh > $@

# Build a copy of the tree in build/NAME against KDIR, so that builds for
# different kernels never share objects. What an in-tree build (make) left
# in the source tree is not copied: its .mod files and modules.order would
# replace the copy's own, and modpost would then check the copy's modules
# against an old module list.
define build_copy
	mkdir -p $(BUILD)/$(1)
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude=modules.order \
		--exclude=Module.symvers $(SRC_FILES) $(BUILD)/$(1)/
	$(MAKE) -C $(BUILD)/$(1) KDIR=$(2) $(3) modules
endef

test-modules:
	$(call build_copy,test,$$(tools/testing/vm/build-kernel.sh),NVFAB_KUNIT=1)

# The peer-memory test provider for the stock kernel's headers (with the
# modules it links against; the guest loads those from DKMS):
# build/peermem-test-stock/tools/testing/peermem-test/nvfab-peermem-test.ko
peermem-test-stock:
	$(call build_copy,peermem-test-stock,$${STOCK_KDIR:-/usr/src/linux-headers-$$(bash -c '. tools/testing/vm/lib.sh && stock_kver')},NVFAB_PEERMEM_TEST=1)

check:
	tools/testing/vm/check-all.sh

# The long forms CI does not run: 50 connect/disconnect rounds, longer fio
# phases, a larger mutation test, more module load cycles.
check-full:
	NVFAB_CONNECT_LOOPS=50 NVFAB_FIO_RUNTIME=30 NVFAB_FUZZ_COUNT=3000 \
	NVFAB_ANA_SECONDS=90 NVFAB_REMAP_ROUNDS=10 \
	NVFAB_MODULE_ROUNDS=20 NVFAB_SELFTEST_TIMEOUT=7200 \
	NVFAB_VM_TIMEOUT=9000 tools/testing/vm/check-all.sh

lint:
	tools/lint.sh

bench:
	tools/bench/bench.sh

dkms-install:
	scripts/dkms-install.sh $(KVER)

dkms-uninstall:
	scripts/dkms-uninstall.sh

deb:
	scripts/mkdeb.sh $(BUILD)/deb

demo:
	tools/demo/demo.sh

install:
	$(MAKE) -C tools/nvfabctl install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	install -D -m 0644 udev/65-nvfab.rules \
		$(DESTDIR)$(UDEVRULESDIR)/65-nvfab.rules
	install -D -m 0644 udev/examples/66-nvfab-ana-change.rules \
		$(DESTDIR)$(EXAMPLESDIR)/66-nvfab-ana-change.rules
	install -D -m 0644 systemd/nvfab-boot.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/nvfab-boot.service
	install -D -m 0644 systemd/modules-load.d/nvfab.conf \
		$(DESTDIR)$(MODULESLOADDIR)/nvfab.conf
	@echo "installed; to use them now: udevadm control --reload;" \
		"systemctl daemon-reload; systemctl enable nvfab-boot.service"

uninstall:
	$(MAKE) -C tools/nvfabctl uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	rm -f $(DESTDIR)$(UDEVRULESDIR)/65-nvfab.rules \
		$(DESTDIR)$(EXAMPLESDIR)/66-nvfab-ana-change.rules \
		$(DESTDIR)$(SYSTEMDUNITDIR)/nvfab-boot.service \
		$(DESTDIR)$(MODULESLOADDIR)/nvfab.conf
	-rmdir $(DESTDIR)$(EXAMPLESDIR) $(DESTDIR)$(PREFIX)/share/nvfab 2>/dev/null

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -f include/nvfab/conftest.h
	rm -rf $(BUILD)

endif
