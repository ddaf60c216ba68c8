# Tessera — top-level build.  `make` builds the image, `make run` boots it, `make test` runs
# every test, `make bench` prints the benchmark tables.  See README.md and docs/.
#
# The build is split by purpose into mk/*.mk; this file only names the targets.

.DEFAULT_GOAL := all
BUILD     ?= build
CONFIG    ?= configs/kiosk4.dts
FUZZ_TIME ?= 60

# Set-up comes first, while make reads this file: the rest of the build asks gcc for its include
# folder and looks for newlib's source as it is read, so the Debian packages must be there before
# any of it, whatever the target (make -j included).  tools/setup-deps installs what is missing
# (one dpkg query when nothing is); sub-makes inherit TESSERA_DEPS_READY and skip it.
ifeq ($(filter-out clean distclean,$(or $(MAKECMDGOALS),all)),)
else ifneq ($(TESSERA_DEPS_READY),1)
DEPS_STATUS := $(shell tools/setup-deps >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error tools/setup-deps failed (exit status $(DEPS_STATUS)); the message above says why)
endif
export TESSERA_DEPS_READY := 1
endif

include mk/common.mk
include mk/host.mk
include mk/newlib.mk
-include mk/guests.mk
include mk/image.mk
include mk/fuzz.mk
-include mk/config.mk
include mk/linux.mk
include mk/check.mk

.PHONY: all image run test unit e2e bench bench-isolation bench-system soak fuzz fuzz-long clean distclean deps \
        check check-tests check-headers check-includes check-format check-param-names check-analyze format

all: image

# `make deps` installs the Debian packages on its own (every other target does it first anyway).
deps:
	@tools/setup-deps

# RUN_FLAGS go to tools/run-emu, e.g. RUN_FLAGS=--exit-at-prompt (boot, stop at the first prompt).
run: image
	tools/run-emu --emu auto $(RUN_FLAGS)

# The fast checks first (`make check`, a few minutes: they end with the unit and host tests),
# the build-time configuration tests, the Linux guest's kernel and initramfs (downloaded once,
# booted in plain QEMU), a short fuzz pass, then the emulator end-to-end tests.  Each runner
# ends with its own `N passed, N failed` line.
test: check
	$(MAKE) --no-print-directory config-test
	$(MAKE) --no-print-directory linux-test
	$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(FUZZ_SHORT)
	$(MAKE) --no-print-directory e2e

# The checks that need no emulator, in order, stopping at the first that fails: the checkers'
# own tests, headers that compile on their own, the include rules of docs/architecture.md,
# the format of .clang-format, parameter names (clang-tidy), cppcheck, then the unit and host
# tests.  Each step is a target of its own (mk/check.mk); docs/architecture.md ("Checks")
# says what each enforces.
define check_step
	@echo "== make check $(1)/7: $(3) (make $(2))"
	@s=$$(date +%s); $(MAKE) --no-print-directory $(2) || { echo "make check: FAILED at step \
	 $(1)/7, $(3); the lines above say where (make $(2) runs this step alone)"; exit 1; }; \
	 echo "   step $(1)/7 passed in $$(( $$(date +%s) - s )) s"
endef
check:
	$(call check_step,1,check-tests,the checkers' own tests)
	$(call check_step,2,check-headers,header self-containment)
	$(call check_step,3,check-includes,include rules)
	$(call check_step,4,check-format,format)
	$(call check_step,5,check-param-names,parameter names)
	$(call check_step,6,check-analyze,static analysis)
	$(call check_step,7,unit,unit and host tests)
	@echo "make check: all 7 steps passed"

# Applies .clang-format to every C file in place (tools/format FILE... to some).
format:
	@tools/format

# Keeps the cached newlib build and the Debian downloads ($(BUILD)/debian, mk/linux.mk).
clean:
	rm -rf $(BUILD)/host $(BUILD)/image $(BUILD)/fuzz $(BUILD)/iso $(BUILD)/tessera.iso $(BUILD)/check

# Also forgets the cached newlib build (about 40 s to rebuild) and the Debian downloads.
distclean:
	rm -rf $(BUILD)

# Performance isolation under Bochs: a victim guest beside each guest that tries to take more than
# its share (about 20 minutes; docs/benchmarks.md).  A benchmark: it prints the table, it asserts
# nothing.
bench-isolation: image
	tools/bench-isolation --iso $(BUILD)/tessera.iso

# A soak: eight guests, the i915 guest running Debian's GPU tools in a loop, for SOAK_MINUTES
# under Bochs (plus the i915 guest's boot); free pages, faults, resets and frame rates at start
# and end, and a failure if anything was lost or leaked (tools/soak, docs/benchmarks.md "Soak").
# Not part of `make test`.
SOAK_MINUTES ?= 30
soak: image linux-i915
	TESSERA_LINUX_KERNEL=$(LINUX_KERNEL) TESSERA_LINUX_I915_INITRD=$(LINUX_I915_INITRD) \
	tools/soak --iso $(BUILD)/tessera.iso --minutes $(SOAK_MINUTES)

# End-to-end tests boot the image in QEMU (SeaBIOS and OVMF) and Bochs and drive the shell.
e2e: image linux linux-i915
	TESSERA_LINUX_KERNEL=$(LINUX_KERNEL) TESSERA_LINUX_INITRD=$(LINUX_INITRD) \
	TESSERA_LINUX_I915_INITRD=$(LINUX_I915_INITRD) tests/e2e/run $(BUILD)/tessera.iso

# The running system measured: walls of 4, 16 and 32 kiosk guests under Bochs; the table and
# plots go into docs/benchmarks.md (bench/system/run; about 20 minutes on 2 cores).  Debian's
# python3 runs it, whose python3-matplotlib draws the plots (not another python3 on the PATH).
bench-system: image $(BUILD)/host/bench/bench_gtt_policies
	/usr/bin/python3 bench/system/run
