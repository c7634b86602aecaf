# SPDX-License-Identifier: GPL-2.0
#
# One entry point for the whole project.
#
#   make deps       install what the project needs (Debian 12), fetch the guest kernel
#   make            build mrc.ko, BPF objects, C++ tools and tests, selftests, VM image
#   make check      build + ctest + packages + VM selftests on 6.1 and on 6.12
#                   (ev_burst=1: per-packet spraying) + rig
#                   self-check (the CI command)
#   make check-debug  the VM selftests and a kmemleak scan on a 6.1 kernel built
#                   with KASAN, lockdep, kmemleak, UBSAN (not in CI: hours);
#                   T='mrc_a.sh mrc_b.sh' runs those tests only
#   make demo       boot the VM and show what works today
#   make vm-selftests [T=NAME] the mrc collection (or one test of it) in the VM;
#                   MRC_KO_PARAMS=ev_burst=1 runs it with per-packet spraying
#   make vm-test T=NAME        run one selftest of the mrc collection in the VM
#   make vm-run CMD='...'      run a command in the VM with mrc.ko loaded
#   make vm-shell              interactive shell in the VM (Ctrl-A x quits)
#   make lint       checkpatch --strict on kmod/, clang-format check on C++
#   make fuzz       long libFuzzer runs of every decoder target
#   make install    mrc.ko into /lib/modules/KVER/updates (+ depmod), the tools,
#                   man pages, completions, header, pkg-config file, systemd
#                   unit (PREFIX=/usr/local, DESTDIR=, KVER= of the headers)
#   make debs       mrc-dkms, mrc-tools, libmrc-dev .debs under build/deb/
#
# KERNEL=6.1 (default) or KERNEL=6.12 picks the guest kernel of the matrix
# that kmod, initramfs, vm-*, demo and install are for (build/kabi.mk or
# build/kabi-6.12.mk, written by make deps); the userspace is the same.
#
# Everything built lands under build/ (git-ignored).

TOP := $(abspath .)
B := $(TOP)/build
JOBS ?= 2

KERNEL ?= 6.1
ifeq ($(filter 6.1 6.12 debug,$(KERNEL)),)
$(error KERNEL=$(KERNEL): the kernels of the matrix are 6.1 and 6.12 (and debug, the check-debug build))
endif
KABI_MK := $(B)/kabi$(if $(filter-out 6.1,$(KERNEL)),-$(KERNEL)).mk
-include $(KABI_MK)
# The VM rig's scripts read the same file.
export MRC_KABI_MK := $(KABI_MK)

CMAKE_BUILD := $(B)/cmake
KMOD_BUILD := $(B)/kmod$(SFX)
KSFT_BUILD := $(B)/ksft
INITRAMFS := $(B)/vm/initramfs$(SFX).cpio.gz
RIG_SELFCHECK ?= 1

.PHONY: all deps kmod rigmod userspace selftests initramfs check check-debug ctest vm-selftests sim-plots \
	rig-selfcheck demo vm-test vm-run vm-shell lint fuzz bench bench-profile clean distclean \
	install uninstall debs

all: deps kmod rigmod userspace selftests initramfs

# The debug kernel's ABI file is written by its build (make check-debug).
ifeq ($(KERNEL),debug)
deps:
	@mkdir -p $(B)
	bash scripts/deps.sh
$(KABI_MK):
	bash scripts/debug/build-kernel.sh
else
deps $(KABI_MK):
	@mkdir -p $(B)
	bash scripts/deps.sh
endif

# Kbuild builds in the directory it is given, so build/kmod mirrors kmod/
# with symlinks: the objects land under build/ and the sources (kmod/core/*.c
# included) are the very files of the tree.
kmod: $(KABI_MK)
	@mkdir -p $(KMOD_BUILD)
	@find $(KMOD_BUILD) -xtype l -delete
	@cp -rsf $(TOP)/kmod/. $(KMOD_BUILD)/
	$(MAKE) -C $(KDIR) M=$(KMOD_BUILD) MRC_TOP=$(TOP) modules

# Test-only canary module for the rig self-check (deliberate WARN).
rigmod: $(KABI_MK)
	@mkdir -p $(B)/rigmod$(SFX)
	@cp -rsf $(TOP)/selftests/mrc/rig/. $(B)/rigmod$(SFX)/
	$(MAKE) -s -C $(KDIR) M=$(B)/rigmod$(SFX) modules

userspace: $(KABI_MK)
	@mkdir -p $(CMAKE_BUILD)
	@test -f $(CMAKE_BUILD)/CMakeCache.txt || \
		CC=clang CXX=clang++ cmake -S $(TOP) -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(CMAKE_BUILD) -j$(JOBS)

# The kselftest framework (lib.mk, runner, harness) comes from linux-source.
KSFT_FW := $(KSRC)/tools/testing/selftests
selftests: $(KABI_MK)
	@mkdir -p $(KSFT_BUILD)/mrc $(KSFT_BUILD)/mrc-build $(KSFT_BUILD)/kselftest
	$(MAKE) -C selftests/mrc KSFT_FW=$(KSFT_FW) MRC_TOP=$(TOP) \
		OUTPUT=$(KSFT_BUILD)/mrc-build INSTALL_PATH=$(KSFT_BUILD)/mrc install
	cp $(KSFT_FW)/run_kselftest.sh $(KSFT_BUILD)/
	cp $(KSFT_FW)/kselftest/runner.sh $(KSFT_FW)/kselftest/module.sh $(KSFT_BUILD)/kselftest/
	$(MAKE) -s -C selftests/mrc KSFT_FW=$(KSFT_FW) MRC_TOP=$(TOP) \
		OUTPUT=$(KSFT_BUILD)/mrc-build COLLECTION=mrc emit_tests \
		| grep '^mrc:' >$(KSFT_BUILD)/kselftest-list.txt

initramfs: $(INITRAMFS)
$(INITRAMFS): scripts/vm/mkinitramfs.sh scripts/vm/guest-init.sh $(KABI_MK)
	@mkdir -p $(dir $@)
	bash scripts/vm/mkinitramfs.sh $@

ctest: userspace
	ctest --test-dir $(CMAKE_BUILD) --output-on-failure -j$(JOBS)

vm-selftests: all
	bash scripts/vm/run.sh --name selftests -- \
		'cd /mrc/build/ksft && ./run_kselftest.sh $(if $(T),-t mrc:$(T))'

vm-test: all
	@test -n "$(T)" || { echo "usage: make vm-test T=<test name>"; exit 2; }
	bash scripts/vm/run.sh --name test-$(T) -- \
		'cd /mrc/build/ksft && ./run_kselftest.sh -t mrc:$(T)'

vm-run: all
	@test -n "$(CMD)" || { echo "usage: make vm-run CMD='command'"; exit 2; }
	bash scripts/vm/run.sh -- '$(CMD)'

vm-shell: all
	bash scripts/vm/run.sh --shell

rig-selfcheck: all
	bash scripts/vm/selfcheck.sh

check: all
	bash scripts/check.sh $(if $(filter 0,$(RIG_SELFCHECK)),--no-rig-selfcheck)

# Not part of check (CI): builds a KASAN/lockdep/kmemleak/UBSAN 6.1 kernel
# once (about an hour on 2 cores, cached) and runs the whole suite on it.
check-debug:
	bash scripts/debug/build-kernel.sh
	$(MAKE) KERNEL=debug all
	bash scripts/debug/check.sh $(T)

demo: all
	bash scripts/demo.sh

lint: $(KABI_MK)
	bash scripts/lint.sh

fuzz: userspace
	bash scripts/fuzz.sh

# The paper's fabric experiments on the simulator (deterministic), plotted
# into Documentation/networking/mrc-sim/*.svg; the figures table on stdout.
sim-plots: userspace
	python3 tools/sim/fabric_plots.py $(CMAKE_BUILD)/tools/sim/mrcfabric \
		Documentation/networking/mrc-sim

# Benchmarks, never pass/fail: MRC vs TCP vs MPTCP on the emulated fabric in
# one VM boot; build/bench/{results.json,results.txt,plane-failure.svg}.
bench: all
	bash scripts/bench.sh

# Where the cycles go: perf in the guest during one unshaped bulk run of TCP,
# MPTCP and MRC on the bench's fabric; build/bench-profile/profile-*.txt.
bench-profile: all
	bash scripts/bench.sh --profile

# Installs for the kernel whose headers build/kabi.mk names (Debian's
# current 6.1 ABI, the guest's); DKMS (make debs, mrc-dkms) builds for any.
PREFIX ?= /usr/local
install: kmod userspace
	$(MAKE) -C $(KDIR) M=$(KMOD_BUILD) MRC_TOP=$(TOP) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KABI)
	@# The prefix is a configure-time input (pkg-config file, units, libdir).
	cmake -S $(TOP) -B $(CMAKE_BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(CMAKE_BUILD) -j$(JOBS)
	DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD)
	install -d $(DESTDIR)/etc/mrc
	$(if $(DESTDIR),,ldconfig)

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KABI)/updates/mrc.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KABI)
	xargs -r rm -f <$(CMAKE_BUILD)/install_manifest.txt
	$(if $(DESTDIR),,ldconfig)

debs: all
	bash scripts/mkdebs.sh

clean:
	rm -rf $(CMAKE_BUILD) $(B)/kmod $(B)/kmod-6.12 $(KSFT_BUILD) $(B)/rigmod $(B)/rigmod-6.12 \
		$(B)/vm

distclean:
	rm -rf $(B)
