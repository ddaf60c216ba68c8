# The i915 guest's initrd (docs/linux-image.md, "The i915 guest"; included by mk/linux.mk): the
# Linux guest's initramfs with a second gzip'd cpio archive appended (the kernel unpacks
# concatenated archives in order), which holds
#   - Debian's i915.ko and every module it depends on, from the same linux-image package as the
#     guest's kernel, with a modules.dep for them (tools/kmod-closure);
#   - programs of Debian's intel-gpu-tools and exactly the shared libraries and dynamic loader
#     they load (tools/debian-closure resolves the packages with apt, tools/elf-closure takes the
#     libraries out of them);
#   - i915-colorblt, the project's uAPI check (guests/linux/i915/i915-colorblt.c), and
#     /sbin/i915-init, which the guest's /init runs when the command line says tessera.i915=1.
#
#   make linux-i915                  download (once) and build it
#   make image CONFIG=configs/kiosk-i915.dts
#                                    the ISO carries it under the initrd tag `initramfs-i915`
#
# It is built for Debian's kernel (DEB_KERNEL); with a vendor's LINUX_KERNEL, give the matching
# initrd too: make LINUX_I915_INITRD=path.  Downloads go to $(I915_DEB_DIR) and stay there
# (make clean keeps them; make debian-clean forgets them).

I915_OUT          := $(I)/linux-i915
I915_STAGE        := $(I915_OUT)/root
I915_DEB_DIR      := $(DEB_DIR)/i915
I915_INITRD_BUILT := $(I915_OUT)/initramfs-i915.cpio.gz
LINUX_I915_INITRD ?= $(I915_INITRD_BUILT)
# The initrd tag a configuration names for this initrd (mk/linux.mk: LINUX_INITRD_<tag>).
LINUX_INITRD_initramfs-i915 ?= $(LINUX_I915_INITRD)

# The modules the guest loads (i915 at boot; for display-kiosk's touchscreen, uinput and evdev,
# which gives it the /dev/input/event node libinput reads); their dependencies come with them.
I915_MODULES      ?= i915 uinput evdev
# The intel-gpu-tools programs the guest carries (guest paths).  The benchmarks the
# e2e test (tests/e2e/test_i915.py) runs, the MI-only and blitter ones that need nothing else, and lsgpu; all of them
# load the same libraries (libigt's), so each more costs only its own ~15 KB.
I915_IGT_DIR      := /usr/libexec/igt-gpu-tools/benchmarks
I915_IGT_PROGRAMS ?= $(addprefix $(I915_IGT_DIR)/,gem_exec_nop gem_blt intel_upload_blit_small \
                       intel_upload_blit_large gem_create gem_exec_ctx gem_latency gem_busy) \
                     /usr/bin/lsgpu

# Debian's display programs for the guest's virtual monitor (docs/linux-image.md, "The i915
# guest's display"): libdrm's modetest and vbltest, Weston 10 with its DRM backend (pixman
# renderer, no GL), its kiosk shell and a shm client, and cage (wlroots, pixman).  The plugins
# Weston loads with dlopen() are named here; elf-closure takes what each of them links.  No Mesa
# DRI driver is taken (none is linked, only dlopen()ed by EGL, which these programs do not use):
# the guest has no 3D, and the build refuses an image that would carry one.  udevd (udevadm is
# both) tags input devices for libinput: Weston makes a seat only for a device it accepts, and
# its kiosk shell shows a client only on a seat (uinput-touch, below).
I915_DISPLAY_PACKAGES ?= libdrm-tests weston cage seatd udev
I915_DISPLAY_PROGRAMS ?= /usr/bin/modetest /usr/bin/vbltest /usr/bin/weston /usr/bin/weston-simple-shm \
                         /usr/bin/cage /usr/sbin/seatd /usr/lib/x86_64-linux-gnu/libweston-10/drm-backend.so \
                         /usr/lib/x86_64-linux-gnu/weston/kiosk-shell.so /bin/udevadm
# The one udev rule a touchscreen needs (input_id sets ID_INPUT and ID_INPUT_TOUCHSCREEN).
I915_UDEV_RULES       ?= 60-input-id.rules

# --- Debian's kernel modules: only the i915 closure is taken out of the package (two passes
#     over its data archive, about 10 s).  vmlinuz.version names the package DEB_KERNEL came from.
$(I915_OUT)/modules.txt: $(DEB_KERNEL) tools/kmod-closure mk/linux-i915.mk
	@mkdir -p $(I915_OUT)
	@abi=$$(cut -d' ' -f1 $(DEB_DIR)/vmlinuz.version); \
	 tools/kmod-closure $(DEB_DIR)/linux-image-$$abi.deb $(I915_OUT)/modules $(I915_MODULES) >$@.tmp
	@mv $@.tmp $@
	@sed 's/^/  LINUX   /' $@

# --- intel-gpu-tools, the display programs and the packages apt says they need (architecture-
#     independent ones left out), downloaded once and unpacked into one tree.
$(I915_DEB_DIR)/packages.list: mk/linux-i915.mk | tools/debian-closure tools/debian-download
	@tools/debian-download $(I915_DEB_DIR)/debs intel-gpu-tools >/dev/null
	@tools/debian-closure intel-gpu-tools $(I915_DISPLAY_PACKAGES) >$@.tmp
	@mv $@.tmp $@

$(I915_DEB_DIR)/root.done: $(I915_DEB_DIR)/packages.list
	@missing=$$(for p in $$(cat $<); do [ -f $(I915_DEB_DIR)/debs/$$p.deb ] || echo $$p; done); \
	 [ -z "$$missing" ] || tools/debian-download $(I915_DEB_DIR)/debs $$missing >/dev/null
	@rm -rf $(I915_DEB_DIR)/root && mkdir -p $(I915_DEB_DIR)/root
	@for p in $$(cat $<); do dpkg-deb -x $(I915_DEB_DIR)/debs/$$p.deb $(I915_DEB_DIR)/root || exit 1; done
	@echo "  LINUX   $(I915_DEB_DIR): $$(wc -l <$<) packages for Debian intel-gpu-tools $$(dpkg-deb -f $(I915_DEB_DIR)/debs/intel-gpu-tools.deb Version), $$(cd $(I915_DEB_DIR)/debs && cat $$(sed "s/$$/.deb/" $(abspath $<)) | wc -c) bytes of .deb"
	@touch $@

# --- The uAPI check: static, built with the build machine's gcc against the kernel's uAPI
#     header as Debian ships it (in libdrm-dev: Debian's linux-libc-dev leaves drm/ out); only
#     the headers are used, no libdrm library.
I915_UAPI_INCLUDE := $(I915_DEB_DIR)/libdrm-dev/usr/include
$(I915_UAPI_INCLUDE)/libdrm/i915_drm.h: | tools/debian-download
	@tools/debian-download $(I915_DEB_DIR)/debs libdrm-dev >/dev/null
	@rm -rf $(I915_DEB_DIR)/libdrm-dev && dpkg-deb -x $(I915_DEB_DIR)/debs/libdrm-dev.deb $(I915_DEB_DIR)/libdrm-dev
	@test -f $@ || { echo "linux-i915.mk: libdrm-dev has no $@" >&2; exit 1; }
	@touch $@

$(I915_OUT)/i915-colorblt: guests/linux/i915/i915-colorblt.c guests/linux/i915/colorblt.h \
                           drivers/igpu/gen9_cmd.h \
                           $(I915_UAPI_INCLUDE)/libdrm/i915_drm.h
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -O2 $(WARN) -I. -isystem $(I915_UAPI_INCLUDE) -static -s -o $@ $<

# The hostile guest kernel's MI attacks of tools/bench-isolation (i915 not loaded): static, no
# libraries, Tessera's own command and register definitions.
$(I915_OUT)/i915-mi-attack: guests/linux/i915/i915-mi-attack.c drivers/igpu/gen9_cmd.h \
                            drivers/igpu/gen9_context.h drivers/igpu/gen9_gtt.h \
                            drivers/igpu/gen9_regs.h include/tessera/abi/vgpu.h
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -O2 $(WARN) -I. -static -s -o $@ $<

# cage refuses to run as root: display-kiosk starts it as a user through run-as (busybox-static
# has no su), a static program without a C library like fbpicture.
$(I915_OUT)/run-as: guests/linux/i915/run-as.c
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -Os $(WARN) -ffreestanding -fno-stack-protector -fno-pie -no-pie \
	     -fno-asynchronous-unwind-tables -nostdlib -static -s -Wl,--build-id=none -o $@ $<

# The virtual touchscreen a Weston kiosk needs for its seat: static, like i915-colorblt.
$(I915_OUT)/uinput-touch: guests/linux/i915/uinput-touch.c
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -O2 $(WARN) -static -s -o $@ $<

# The display's isolation check (a plane aimed outside the guest's memory, behind i915's back):
# static, like i915-colorblt.
$(I915_OUT)/i915-plane: guests/linux/i915/i915-plane.c drivers/igpu/gen9_display.h
	@mkdir -p $(dir $@)
	@echo "  LINUXCC $<"
	@gcc -std=gnu11 -O2 $(WARN) -I. -static -s -o $@ $<

# --- The second archive, staged as a tree and listed by tools/tree-manifest.
$(I915_OUT)/i915-part.cpio.gz: $(I915_OUT)/modules.txt $(I915_DEB_DIR)/root.done \
                               $(I915_OUT)/i915-colorblt $(I915_OUT)/i915-mi-attack $(I915_OUT)/i915-plane $(I915_OUT)/run-as \
                               $(I915_OUT)/uinput-touch \
                               guests/linux/i915/i915-init \
                               guests/linux/i915/display-kiosk guests/linux/i915/Xwayland \
                               tools/elf-closure tools/tree-manifest tools/gen-initramfs
	@rm -rf $(I915_STAGE) && mkdir -p $(I915_STAGE)/sbin $(I915_STAGE)/usr/bin
	@cp -a $(I915_OUT)/modules/lib $(I915_STAGE)/
	@tools/elf-closure $(I915_DEB_DIR)/root $(I915_STAGE) $(I915_IGT_PROGRAMS) >$(I915_OUT)/libraries.txt
	@tail -n 1 $(I915_OUT)/libraries.txt | sed 's/^/  LINUX   /'
	@tools/elf-closure $(I915_DEB_DIR)/root $(I915_STAGE) $(I915_DISPLAY_PROGRAMS) >$(I915_OUT)/display-libraries.txt
	@tail -n 1 $(I915_OUT)/display-libraries.txt | sed 's/^/  LINUX   display: /'
	@! find $(I915_STAGE) -name '*_dri.so' | grep . || { echo "linux-i915.mk: a Mesa DRI driver is in the i915 guest's initrd (no 3D there)" >&2; exit 1; }
	@install -m 0755 guests/linux/i915/i915-init $(I915_STAGE)/sbin/i915-init
	@install -m 0755 $(I915_OUT)/i915-colorblt $(I915_STAGE)/usr/bin/i915-colorblt
	@install -m 0755 $(I915_OUT)/i915-mi-attack $(I915_STAGE)/usr/bin/i915-mi-attack
	@install -m 0755 $(I915_OUT)/i915-plane $(I915_STAGE)/usr/bin/i915-plane
	@install -m 0755 $(I915_OUT)/run-as $(I915_STAGE)/usr/bin/run-as
	@install -m 0755 $(I915_OUT)/uinput-touch $(I915_STAGE)/usr/bin/uinput-touch
	@mkdir -p $(I915_STAGE)/lib/systemd $(I915_STAGE)/lib/udev/rules.d
	@ln -sf /bin/udevadm $(I915_STAGE)/lib/systemd/systemd-udevd   # as Debian's udev package links it
	@for r in $(I915_UDEV_RULES); do install -m 0644 $(I915_DEB_DIR)/root/lib/udev/rules.d/$$r $(I915_STAGE)/lib/udev/rules.d/ || exit 1; done
	@install -m 0755 guests/linux/i915/display-kiosk $(I915_STAGE)/usr/bin/display-kiosk
	@install -m 0755 guests/linux/i915/Xwayland $(I915_STAGE)/usr/bin/Xwayland
	@mkdir -p $(I915_STAGE)/usr/share/X11/xkb   # libxkbcommon refuses a context without its data folder (no keymap is compiled: no keyboard)
	@tools/tree-manifest $(I915_STAGE) >$(I915_OUT)/i915-part.list
	@tools/gen-initramfs -z -o $@ $(I915_OUT)/i915-part.list >$(I915_OUT)/i915-part.txt
	@sed 's/^/  LINUX   /' $(I915_OUT)/i915-part.txt

# Sizes: each archive gzip'd and as the plain cpio the kernel unpacks.
$(I915_INITRD_BUILT): $(LINUX_OUT)/initramfs.cpio.gz $(I915_OUT)/i915-part.cpio.gz
	@cat $^ >$@.tmp && mv $@.tmp $@
	@echo "  LINUX   $@: $$(stat -c %s $@) bytes = base $$(stat -c %s $<) + i915 part $$(stat -c %s $(I915_OUT)/i915-part.cpio.gz) (plain cpio: $$(gzip -dc $< | wc -c) + $$(gzip -dc $(I915_OUT)/i915-part.cpio.gz | wc -c))"

.PHONY: linux-i915
linux-i915: | deps
linux-i915: $(LINUX_KERNEL) $(LINUX_I915_INITRD)
