# newlib, the C library inside the image, built from Debian's newlib-source for a freestanding
# x86-64 target with the host gcc and cached under build/newlib (built once, about 40 s).
# SSE stays enabled: newlib passes doubles in SSE registers.  No red zone: interrupts and VM
# exits arrive on the same stack.  The system-call layer newlib calls (_write, _sbrk, ...) is
# vmm/libc_glue.c.

NEWLIB_TARBALL  = $(firstword $(wildcard /usr/src/newlib/newlib-*.tar.xz))
NEWLIB_DIR     := $(BUILD)/newlib
NEWLIB_PREFIX  := $(abspath $(NEWLIB_DIR)/install)
NEWLIB_LIBC    := $(NEWLIB_PREFIX)/x86_64-elf/lib/libc.a
NEWLIB_INCLUDE := $(NEWLIB_PREFIX)/x86_64-elf/include
NEWLIB_CFLAGS  := -O2 -g -ffreestanding -fno-pic -fno-pie -mno-red-zone -mcmodel=small \
                  -fno-stack-protector -fno-asynchronous-unwind-tables -w

$(NEWLIB_LIBC):
	@test -n "$(NEWLIB_TARBALL)" || { echo "newlib-source is not installed: apt-get install newlib-source" >&2; exit 1; }
	rm -rf $(NEWLIB_DIR) && mkdir -p $(NEWLIB_DIR)/src $(NEWLIB_DIR)/obj
	tar -xJf $(NEWLIB_TARBALL) -C $(NEWLIB_DIR)/src --strip-components=1
	cd $(NEWLIB_DIR)/obj && ../src/configure --target=x86_64-elf --prefix=$(NEWLIB_PREFIX) \
	    --disable-multilib --disable-newlib-supplied-syscalls --disable-nls \
	    --enable-newlib-io-long-long --enable-newlib-io-c99-formats \
	    CC_FOR_TARGET=gcc AR_FOR_TARGET=ar AS_FOR_TARGET=as LD_FOR_TARGET=ld \
	    RANLIB_FOR_TARGET=ranlib NM_FOR_TARGET=nm OBJCOPY_FOR_TARGET=objcopy \
	    CFLAGS_FOR_TARGET="$(NEWLIB_CFLAGS)" >$(abspath $(NEWLIB_DIR))/configure.log 2>&1
	$(MAKE) -C $(NEWLIB_DIR)/obj -j2 all-target-newlib >$(NEWLIB_DIR)/build.log 2>&1 || { tail -30 $(NEWLIB_DIR)/build.log; exit 1; }
	$(MAKE) -C $(NEWLIB_DIR)/obj install-target-newlib >$(NEWLIB_DIR)/install.log 2>&1
	test -f $@

.PHONY: newlib
newlib: $(NEWLIB_LIBC)
