# The vendor configuration (docs/config.md): $(CONFIG), a device-tree source, is compiled by dtc
# into $(BUILD)/config.dtb (syntax errors come with file:line), then checked and wrapped by the
# host tool into $(BUILD)/config.blob.  The tool runs the same checker as the hypervisor, so a
# bad configuration fails here, before any image is linked.  No step leaves a partial output.
#
#   make $(BUILD)/config.blob [CONFIG=configs/x.dts]   compile, check and wrap
#   make config-show [CONFIG=...]                      ... and print what the hypervisor will see
#   make config-test                                   the build-time tests in tests/config/

DTC      ?= dtc
CFG_TOOL := $(BUILD)/host/tools/tessera-config

# The host tool: hosted, optimised, no sanitizers; links the config module and what it uses.
CFG_TOOL_SRCS = tools/tessera-config.c \
                $(foreach m,config $(pure_deps_config),$(call pure_srcs,$(m)))
CFG_TOOL_HDRS = $(wildcard $(foreach m,config $(pure_deps_config),$(addsuffix /*.h,$(pure_dirs_$(m)))))

$(CFG_TOOL): $(CFG_TOOL_SRCS) $(CFG_TOOL_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=gnu11 -O2 -g $(WARN) $(INCS) -DTESSERA_HOSTED $(filter %.c,$^) -lfdt -o $@

# Which source the DTB was built from: rewritten only when CONFIG names another file, so
# switching CONFIG rebuilds the DTB even if the new file is older than the last output.
$(BUILD)/config.name: cfg-force
	@mkdir -p $(dir $@)
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' >$@

# A new DTB invalidates the blob, so both go first: a failing dtc leaves neither, not even the
# ones from an earlier CONFIG.  dtc writes a dependency file (for /include/d .dtsi files); each
# listed file also gets an empty rule so deleting one later does not break the build.
$(BUILD)/config.dtb: $(CONFIG) $(BUILD)/config.name
	@mkdir -p $(dir $@)
	@rm -f $@ $@.d $(BUILD)/config.blob
	$(DTC) -I dts -O dtb -d $@.d.tmp -o $@.tmp $(CONFIG) || { rm -f $@.tmp $@.d.tmp; exit 1; }
	@{ sed 's|^[^:]*:|$@:|' $@.d.tmp; \
	   sed -n 's|^[^:]*:||p' $@.d.tmp | tr ' ' '\n' | sed -n 's|^\(..*\)$$|\1:|p'; } >$@.d
	@rm -f $@.d.tmp
	@mv $@.tmp $@

# The tool writes the blob beside its target and renames it, so a rejected configuration leaves
# neither a blob nor a stale one from an earlier CONFIG.
$(BUILD)/config.blob: $(BUILD)/config.dtb $(CFG_TOOL)
	@rm -f $@
	$(CFG_TOOL) -s $(CONFIG) wrap $< $@

# The module check (config/modules.h, docs/config.md): each guest's image, and a Linux guest's
# kernel and initrd, against the files the ISO will carry (TAG=PATH; mk/linux.mk adds the
# Linux ones).  The same check the hypervisor runs with GRUB's modules at boot.
# modules.list records which files they are, rewritten only when that changes, so another
# LINUX_KERNEL or LINUX_INITRD redoes the check and the ISO even if the file is older.
ISO_MODULE_ARGS = $(foreach g,$(GUEST_ELFS),$(basename $(notdir $(g)))=$(g)) $(LINUX_ISO_MODULES)
$(BUILD)/modules.list: cfg-force
	@mkdir -p $(dir $@)
	@echo '$(strip $(ISO_MODULE_ARGS))' | cmp -s - $@ || echo '$(strip $(ISO_MODULE_ARGS))' >$@
$(BUILD)/modules.checked: $(BUILD)/config.blob $(CFG_TOOL) $(GUEST_ELFS) $(BUILD)/modules.list
	@rm -f $@
	@$(CFG_TOOL) -s $(CONFIG) check-modules $< $(ISO_MODULE_ARGS) >$@.tmp || { rm -f $@.tmp; exit 1; }
	@cat $@.tmp && mv $@.tmp $@

config-show: $(BUILD)/config.blob
	@$(CFG_TOOL) -s $(CONFIG) check $<

# Each bad source under tests/config/bad must fail with the message it names; each example in
# configs/ must pass.  Runs in its own build folder so the main build is left alone.
config-test:
	MAKE='$(MAKE)' tests/config/run

.PHONY: cfg-force config-show config-test

-include $(BUILD)/config.dtb.d
