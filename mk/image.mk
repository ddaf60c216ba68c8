# The hypervisor image: tessera.elf (Multiboot2, linked at 2 MiB, identity-mapped) and the
# hybrid BIOS/UEFI ISO that GRUB boots from a CD, a USB stick or eMMC.

I := $(BUILD)/image
IMAGE_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(INCS) -I$(I)/gen -ffreestanding -nostdinc \
                -isystem $(NEWLIB_INCLUDE) -isystem $(GCC_INCLUDE) -isystem $(I)/fdt-include \
                -fno-pic -fno-pie -mno-red-zone -mcmodel=small -fno-stack-protector \
                -fno-asynchronous-unwind-tables -fno-omit-frame-pointer -DTESSERA_IMAGE
IMAGE_ASFLAGS := $(INCS) -D__ASSEMBLER__

# Hardware and hypervisor code (core's pure files are part of it), linked whole.  The other pure
# modules are compiled freestanding into one archive each, so every one of them is proven to
# build for the image and the link takes only the objects the hypervisor uses.
IMAGE_ARCHIVE_MODULES := lib config gtt sched igpu vmx vpci display vgpu vdev loader vgt io vdisp smp
IMAGE_SRCS := $(sort $(wildcard boot/*.S arch/x86/*.S vmm/*.S) \
                     $(filter-out boot/mb2_parse.c,$(wildcard boot/*.c)) \
                     $(wildcard arch/x86/*.c arch/x86/vmcs/*.c) $(call pure_srcs,core) \
                     $(filter-out $(foreach m,vmx vpci display vgpu vdev loader vgt io vdisp smp,$(call pure_srcs,$(m))),$(shell find vmm -name '*.c')))
IMAGE_OBJS := $(patsubst %,$(I)/obj/%.o,$(IMAGE_SRCS))
IMAGE_ARCHIVES := $(foreach m,$(IMAGE_ARCHIVE_MODULES),$(I)/lib$(m).a)
define image_archive
$(I)/lib$(1).a: $(patsubst %,$(I)/obj/%.o,$(call pure_srcs,$(1)))
	@rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach m,$(IMAGE_ARCHIVE_MODULES),$(eval $(call image_archive,$(m))))
# libfdt comes from Debian unchanged (it uses the red zone: interrupts run on their own stack).
LIBFDT_A   := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libfdt.a /usr/lib/libfdt.a))
IMAGE_LIBS := $(LIBFDT_A) $(NEWLIB_LIBC) $(shell gcc -print-libgcc-file-name)

# libfdt's three headers, without the rest of the host's /usr/include (glibc's would clash with
# newlib's).
FDT_HEADERS := $(addprefix $(I)/fdt-include/,libfdt.h libfdt_env.h fdt.h)
$(I)/fdt-include/%.h: /usr/include/%.h
	@mkdir -p $(dir $@)
	@cp $< $@
.SECONDARY: $(FDT_HEADERS)

$(I)/obj/%.c.o: %.c | $(NEWLIB_LIBC) $(FDT_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@gcc $(IMAGE_CFLAGS) -MMD -MP -c $< -o $@
# The configuration blob is embedded by .incbin: a new CONFIG or config source rebuilds it.
$(I)/obj/vmm/config_blob.S.o: IMAGE_ASFLAGS += -DCONFIG_BLOB_PATH='"$(BUILD)/config.blob"'
$(I)/obj/vmm/config_blob.S.o: $(BUILD)/config.blob
$(I)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@gcc $(IMAGE_ASFLAGS) -MMD -MP -c $< -o $@

# The version header is rewritten (while make reads this file) only when `git describe` or the
# date changes, so it does not force a rebuild on every make.
VERSION_H := $(I)/gen/vmm/version.h
$(shell mkdir -p $(dir $(VERSION_H)); \
        printf '#define TESSERA_VERSION "%s"\n#define TESSERA_BUILD_DATE "%s"\n' \
          "$$(git describe --always --dirty --tags 2>/dev/null || echo unknown)" "$$(date -u +%Y-%m-%d)" \
          >$(VERSION_H).tmp; \
        cmp -s $(VERSION_H).tmp $(VERSION_H) && rm -f $(VERSION_H).tmp || mv $(VERSION_H).tmp $(VERSION_H))

$(I)/tessera.elf: $(IMAGE_OBJS) $(IMAGE_ARCHIVES) boot/linker.ld
	@echo "  LD      $@"
	@ld -nostdlib -static -z max-page-size=0x1000 -z noexecstack --build-id=none -T boot/linker.ld \
	   -o $@ $(IMAGE_OBJS) --start-group $(IMAGE_ARCHIVES) $(IMAGE_LIBS) --end-group
	@size $@ | tail -1 | awk '{printf "tessera.elf: text %d, data %d, bss %d bytes\n", $$1, $$2, $$3}'

# The ISO holds the hypervisor, the guest images and GRUB for both firmware kinds.
ISO_DIR := $(BUILD)/iso
# Each guest image is a module2 tagged with its name: the configuration's image tags.  A
# configuration with a Linux guest adds its kernel and initramfs (mk/linux.mk, LINUX_ISO_MODULES
# as TAG=PATH).  The module check (mk/config.mk) has passed on exactly these files, and
# --nounzip keeps them so: GRUB would otherwise unpack a gzip initramfs on loading it.
$(BUILD)/tessera.iso: $(I)/tessera.elf boot/grub.cfg $(GUEST_ELFS) $(BUILD)/modules.checked
	@rm -rf $(ISO_DIR) && mkdir -p $(ISO_DIR)/boot/grub $(ISO_DIR)/boot/guests $(ISO_DIR)/boot/linux
	@cp $(I)/tessera.elf $(ISO_DIR)/boot/tessera.elf
	@for g in $(GUEST_ELFS); do cp $$g $(ISO_DIR)/boot/guests/; done
	@for m in $(LINUX_ISO_MODULES); do cp $${m#*=} $(ISO_DIR)/boot/linux/$${m%%=*}; done
	@mods=$$(for g in $(GUEST_ELFS); do n=$$(basename $$g .elf); \
	          printf '    module2 /boot/guests/%s.elf %s\\n' $$n $$n; done; \
	         for m in $(LINUX_ISO_MODULES); do \
	          printf '    module2 --nounzip /boot/linux/%s %s\\n' $${m%%=*} $${m%%=*}; done); \
	 sed "s|^ *# @GUEST_MODULES@.*|$$mods|" boot/grub.cfg >$(ISO_DIR)/boot/grub/grub.cfg
	@echo "  GRUB    $@"
	@grub-mkrescue -o $@ $(ISO_DIR) >$(I)/grub-mkrescue.log 2>&1 || { cat $(I)/grub-mkrescue.log; exit 1; }
	@ls -l $@ | awk '{printf "tessera.iso: %d bytes\n", $$5}'

image: $(BUILD)/tessera.iso

-include $(shell find $(I)/obj -name '*.d' 2>/dev/null)
