# Guest programs: each folder guests/<name>/ is one guest, built into $(BUILD)/guests/<name>.elf
# (ELF64, linked at guest-physical 2 MiB, entry _start) with the guest library guests/lib/ and
# newlib.  Guests are freestanding x86-64 programs that run inside a VM, not pure modules: they
# are compiled with the image's freestanding flags and linked on their own.  The ISO carries
# each ELF as a GRUB module2 tagged with the guest's name.  `make guests` builds them all.

G := $(BUILD)/guests
# guests/linux/ is not one: it holds the Linux guest's initramfs files (mk/linux.mk).
GUEST_ELFS := $(patsubst guests/%/,$(BUILD)/guests/%.elf,$(filter-out guests/lib/ guests/linux/,$(wildcard guests/*/)))
# The vGPU driver (guests/lib/vgpu*.c) shares pure files with the hypervisor rather than
# keeping copies: the execlist context image (igpu_lrc_init_state, with its layout), PCI
# discovery of a Gen9 device (igpu_discover) and the CRC-32 of what it drew (lib/crc32.c).
GUEST_LIB_SRCS := $(sort $(wildcard guests/lib/*.c guests/lib/*.S)) \
                  drivers/igpu/gen9_lrc.c drivers/igpu/hw/igpu_common.c \
                  drivers/igpu/hw/igpu_discovery.c lib/crc32.c
GUEST_LIB_OBJS := $(patsubst %,$(G)/obj/%.o,$(GUEST_LIB_SRCS))
GUEST_LDSCRIPT := guests/lib/guest.ld
GUEST_LIBS := $(NEWLIB_LIBC) $(shell gcc -print-libgcc-file-name)

GUEST_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(INCS) -ffreestanding -nostdinc \
                -isystem $(NEWLIB_INCLUDE) -isystem $(GCC_INCLUDE) -fno-pic -fno-pie \
                -mno-red-zone -mcmodel=small -fno-stack-protector \
                -fno-asynchronous-unwind-tables -DTESSERA_GUEST
GUEST_ASFLAGS := $(INCS) -D__ASSEMBLER__ -DTESSERA_GUEST

$(G)/obj/%.c.o: %.c | $(NEWLIB_LIBC)
	@mkdir -p $(dir $@)
	@echo "  GUESTCC $<"
	@gcc $(GUEST_CFLAGS) -MMD -MP -c $< -o $@
$(G)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "  GUESTAS $<"
	@gcc $(GUEST_ASFLAGS) -MMD -MP -c $< -o $@

# The library's objects are linked whole (start code and exception stubs are reached only
# through the entry point and the IDT); newlib and libgcc are searched.
define guest_program
$(G)/$(1).elf: $(patsubst %,$(G)/obj/%.o,$(sort $(wildcard guests/$(1)/*.c guests/$(1)/*.S))) \
               $(GUEST_LIB_OBJS) $(GUEST_LDSCRIPT) $(NEWLIB_LIBC)
	@echo "  GUESTLD $$@"
	@ld -nostdlib -static -z max-page-size=0x1000 -z noexecstack --build-id=none \
	   -T $(GUEST_LDSCRIPT) -o $$@ $$(filter %.o,$$^) --start-group $(GUEST_LIBS) --end-group
endef
$(foreach e,$(GUEST_ELFS),$(eval $(call guest_program,$(basename $(notdir $(e))))))

.PHONY: guests
guests: $(GUEST_ELFS)

# The ISO carries the guests.  Named here as well because a rule's prerequisites are expanded
# when make reads it: if this file is included after mk/image.mk, GUEST_ELFS was still empty
# there and the ISO would be built without first building the guests.

-include $(shell find $(G)/obj -name '*.d' 2>/dev/null)
