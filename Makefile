# Tessera — top-level build.  `make` builds the image, `make run` boots it, `make test` runs
# every test, `make bench` prints the benchmark tables.  See README.md and docs/.
#
# The build is split by purpose into mk/*.mk; this file only names the targets.

.DEFAULT_GOAL := all
BUILD     ?= build
CONFIG    ?= configs/kiosk4.dts
FUZZ_TIME ?= 60

include mk/common.mk
include mk/host.mk
include mk/newlib.mk
-include mk/guests.mk
include mk/image.mk
include mk/fuzz.mk
-include mk/config.mk
include mk/linux.mk

.PHONY: all image run test unit e2e bench fuzz clean distclean deps

all: image

# Every entry point first makes sure the Debian packages are installed (fast when they are).
deps:
	@tools/setup-deps
image unit bench fuzz newlib $(NEWLIB_LIBC): | deps

run: image
	tools/run-emu --emu auto

# Unit and host tests first (seconds), the build-time configuration tests, the Linux guest's
# kernel and initramfs (downloaded once, booted in plain QEMU), a short fuzz pass, then the
# emulator end-to-end tests.  Each runner ends with its own `N passed, N failed` line.
test: unit
	$(MAKE) --no-print-directory config-test
	$(MAKE) --no-print-directory linux-test
	$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(FUZZ_SHORT)
	$(MAKE) --no-print-directory e2e

# Keeps the cached newlib build and the Debian downloads ($(BUILD)/debian, mk/linux.mk).
clean:
	rm -rf $(BUILD)/host $(BUILD)/image $(BUILD)/fuzz $(BUILD)/iso $(BUILD)/tessera.iso

# Also forgets the cached newlib build (about 40 s to rebuild) and the Debian downloads.
distclean:
	rm -rf $(BUILD)

# End-to-end tests boot the image in QEMU (SeaBIOS and OVMF) and Bochs and drive the shell.
e2e: image
	tests/e2e/run $(BUILD)/tessera.iso
