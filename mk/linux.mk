# The Linux kiosk guest's boot modules (docs/linux-image.md): Debian's kernel, as shipped, and an
# initramfs built here from Debian's busybox-static, the guest's /init and its picture.
#
#   make linux                       download (once) and build both, whatever CONFIG says
#   make image CONFIG=configs/kiosk-linux.dts
#                                    the ISO carries them under the tags the configuration's
#                                    Linux guests name (`image` = kernel, `initrd` = initramfs)
#   make linux-test                  the initramfs tools' tests, then the kernel and initramfs
#                                    booted in plain QEMU to the guest's shell, then the same
#                                    with the i915 guest's initrd (mk/linux-i915.mk)
#   make debian-clean                forget the downloads (the next build takes the newest)
#
# Only a configuration with a Linux guest needs these; the default one downloads nothing.
# Downloads go to $(DEB_DIR) (kept by `make clean`): `apt-get download` of the current
# linux-image-amd64, resolved to the real linux-image-<abi>-amd64 it depends on, and of
# busybox-static, unpacked with dpkg-deb, never installed.  A vendor's own kernel or initramfs:
# make LINUX_KERNEL=path/bzImage LINUX_INITRD=path/initrd.

DEB_DIR          := $(BUILD)/debian
LINUX_OUT        := $(I)/linux
DEB_KERNEL       := $(DEB_DIR)/vmlinuz
LINUX_KERNEL     ?= $(DEB_KERNEL)
LINUX_INITRD     ?= $(LINUX_OUT)/initramfs.cpio.gz
LINUX_BUSYBOX    := $(DEB_DIR)/busybox
# The picture /init shows on /dev/fb0; the default is kiosk-linux's tile (and so its
# framebuffer, which defaults to the tile's size).
LINUX_SPLASH_PX  ?= 512x384

# The kernel: the metapackage names the real package in its Depends (linux-image-<abi>-amd64);
# only ./boot is taken out of the 70 MB package (dpkg-deb's data archive, through tar: the
# modules, 400 MB unpacked, are not needed for a busybox shell).
$(DEB_KERNEL): | tools/debian-download
	@tools/debian-download $(DEB_DIR) linux-image-amd64 >/dev/null
	@set -e; pkg=$$(dpkg-deb -f $(DEB_DIR)/linux-image-amd64.deb Depends | sed 's/[ ,(|].*//'); \
	 case $$pkg in linux-image-*-amd64) ;; \
	   *) echo "linux.mk: linux-image-amd64 depends on '$$pkg', expected linux-image-<abi>-amd64" >&2; \
	      exit 1;; esac; \
	 [ -f $(DEB_DIR)/$$pkg.deb ] || tools/debian-download $(DEB_DIR) $$pkg >/dev/null; \
	 abi=$${pkg#linux-image-}; rm -rf $(DEB_DIR)/kernel && mkdir -p $(DEB_DIR)/kernel; \
	 dpkg-deb --fsys-tarfile $(DEB_DIR)/$$pkg.deb | tar -x -C $(DEB_DIR)/kernel ./boot; \
	 cp $(DEB_DIR)/kernel/boot/vmlinuz-$$abi $@.tmp && mv $@.tmp $@; \
	 echo "$$abi $$(dpkg-deb -f $(DEB_DIR)/$$pkg.deb Version)" >$(DEB_DIR)/vmlinuz.version; \
	 echo "  LINUX   $@: Debian $$pkg $$(dpkg-deb -f $(DEB_DIR)/$$pkg.deb Version), $$(stat -c %s $@) bytes"

$(LINUX_BUSYBOX): | tools/debian-download
	@tools/debian-download $(DEB_DIR) busybox-static >/dev/null
	@rm -rf $(DEB_DIR)/busybox-static && dpkg-deb -x $(DEB_DIR)/busybox-static.deb $(DEB_DIR)/busybox-static
	@cp $(DEB_DIR)/busybox-static/bin/busybox $@.tmp && mv $@.tmp $@
	@echo "  LINUX   $@: Debian busybox-static $$(dpkg-deb -f $(DEB_DIR)/busybox-static.deb Version), $$(stat -c %s $@) bytes"

# fbpicture: a static Linux program without a C library (guests/linux/fbpicture.c).
LINUX_FBPICTURE := $(LINUX_OUT)/fbpicture
$(LINUX_FBPICTURE): guests/linux/fbpicture.c
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -Os $(WARN) -ffreestanding -fno-stack-protector -fno-pie -no-pie \
	     -fno-asynchronous-unwind-tables -nostdlib -static -s -Wl,--build-id=none -o $@ $<

$(LINUX_OUT)/splash.ppm: tools/make-splash
	@mkdir -p $(dir $@)
	@tools/make-splash $(LINUX_SPLASH_PX) $@

# One link per busybox applet, at the path busybox itself gives (bin/sh, sbin/init, ...).
$(LINUX_OUT)/applets.list: $(LINUX_BUSYBOX)
	@mkdir -p $(dir $@)
	@$(LINUX_BUSYBOX) --list-full | grep -v '^bin/busybox$$' | \
	  sed 's|.*|slink /& /bin/busybox 0777 0 0|' >$@.tmp
	@test -s $@.tmp || { echo "linux.mk: $(LINUX_BUSYBOX) --list-full listed no applets" >&2; exit 1; }
	@mv $@.tmp $@

LINUX_INITRD_PARTS := guests/linux/initramfs.list $(LINUX_OUT)/applets.list
$(LINUX_OUT)/initramfs.cpio.gz: $(LINUX_INITRD_PARTS) $(LINUX_BUSYBOX) $(LINUX_FBPICTURE) \
                                $(LINUX_OUT)/splash.ppm tools/gen-initramfs \
                                $(filter-out %.list %.c guests/linux/i915,$(wildcard guests/linux/*))
	@LINUX_SRC=guests/linux LINUX_SPLASH=$(LINUX_OUT)/splash.ppm LINUX_BUSYBOX=$(LINUX_BUSYBOX) \
	  LINUX_FBPICTURE=$(LINUX_FBPICTURE) tools/gen-initramfs -z -o $@ $(LINUX_INITRD_PARTS)

# The i915 guest's initrd (LINUX_I915_INITRD; its tag initramfs-i915 gets it below).
include mk/linux-i915.mk

.PHONY: linux linux-test debian-clean
linux linux-test: | deps
linux: $(LINUX_KERNEL) $(LINUX_INITRD)

linux-test: $(LINUX_KERNEL) $(LINUX_INITRD) $(LINUX_I915_INITRD)
	tests/linux/run $(LINUX_KERNEL) $(LINUX_INITRD) $(LINUX_OUT)/splash.ppm $(LINUX_I915_INITRD)

debian-clean:
	rm -rf $(DEB_DIR)

# Which modules the configuration names, as make variables: read from the checked blob by
# `tessera-config modules`.  Only goals that build the image read it, so `make unit` or
# `make clean` never check (or download for) a configuration.
CONFIG_MODULES_MK := $(BUILD)/config.modules.mk
$(CONFIG_MODULES_MK): $(BUILD)/config.blob $(CFG_TOOL)
	@$(CFG_TOOL) modules $< | awk ' \
	  $$2 == "elf"          { e = e " " $$1 } \
	  $$2 == "linux-kernel" { k = k " " $$1 } \
	  $$2 == "linux-initrd" { r = r " " $$1 } \
	  END { print "CONFIG_ELF_TAGS :=" e; print "CONFIG_LINUX_KERNEL_TAGS :=" k; \
	        print "CONFIG_LINUX_INITRD_TAGS :=" r }' >$@.tmp
	@mv $@.tmp $@
ifneq ($(filter all image run e2e $(BUILD)/tessera.iso $(BUILD)/modules.checked,$(or $(MAKECMDGOALS),all)),)
include $(CONFIG_MODULES_MK)
endif

LINUX_TAGS := $(CONFIG_LINUX_KERNEL_TAGS) $(CONFIG_LINUX_INITRD_TAGS)
ifneq ($(filter $(CONFIG_LINUX_KERNEL_TAGS),$(CONFIG_LINUX_INITRD_TAGS)),)
$(error $(CONFIG): the tag(s) $(filter $(CONFIG_LINUX_KERNEL_TAGS),$(CONFIG_LINUX_INITRD_TAGS)) name both a Linux kernel and an initrd)
endif
ifneq ($(filter $(LINUX_TAGS),$(notdir $(basename $(GUEST_ELFS)))),)
$(error $(CONFIG): the tag(s) $(filter $(LINUX_TAGS),$(notdir $(basename $(GUEST_ELFS)))) name both a Linux module and a guest program in guests/)
endif

# TAG=PATH for each Linux module the ISO carries (mk/image.mk puts them under /boot/linux/).
# An initrd tag gets LINUX_INITRD_<tag> when that is set (mk/linux-i915.mk sets
# LINUX_INITRD_initramfs-i915), else LINUX_INITRD.
linux_initrd_for   = $(or $(LINUX_INITRD_$(1)),$(LINUX_INITRD))
LINUX_ISO_MODULES := $(foreach t,$(CONFIG_LINUX_KERNEL_TAGS),$(t)=$(LINUX_KERNEL)) \
                     $(foreach t,$(CONFIG_LINUX_INITRD_TAGS),$(t)=$(call linux_initrd_for,$(t)))
LINUX_ISO_FILES   := $(if $(CONFIG_LINUX_KERNEL_TAGS),$(LINUX_KERNEL)) \
                     $(sort $(foreach t,$(CONFIG_LINUX_INITRD_TAGS),$(call linux_initrd_for,$(t))))
$(BUILD)/modules.checked $(BUILD)/tessera.iso: $(LINUX_ISO_FILES)
