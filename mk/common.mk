# Flags and source lists shared by the hosted and freestanding builds.

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
INCS := -I. -Iinclude
GCC_INCLUDE := $(shell gcc -print-file-name=include)

# Pure code: no hardware access, no inline assembly, state passed in by pointer.  It is built
# twice, freestanding into the image and hosted into tests, fuzzers and benchmarks.  Each pure
# module has a short name; tests and benchmarks name the module they exercise in their file
# name (tests/unit/test_<module>_*.c, bench/bench_<module>_*.c, tests/fuzz/fuzz_<module>_*.c)
# and link only that module, so one module's work in progress never breaks another's tests.
PURE_MODULES := lib gtt sched igpu config core vmx vpci display vgpu vdev loader vgt io vdisp smp
# Small pure helpers any room may use (the CRC-32); lib/ includes nothing of the project's.
pure_dirs_lib    := lib
pure_dirs_gtt    := gtt
pure_dirs_sched  := sched
pure_dirs_igpu   := drivers/igpu
pure_dirs_config := config
pure_srcs_core   := boot/mb2_parse.c boot/acpi_madt.c boot/low_page.c vmm/shell/line.c vmm/shell/args.c \
                    arch/x86/page_alloc.c \
                    vmm/log_limit.c
# The pure half of VT-x support: control negotiation, EPT tables, the MMIO instruction decoder,
# MSR bitmaps, the VMCS field-name table.  The VMX instructions themselves are not in it.
pure_dirs_vmx    := arch/x86/vmx/pure
pure_srcs_vmx    := vmm/vcpu/mmio_decode.c vmm/vcpu/msr_bitmap.c vmm/vcpu/cpu_share.c vmm/vcpu/run_queue.c
# The guest-visible PCI configuration space (mechanism #1) and the devices in it.
pure_dirs_vpci   := vmm/vpci
# The kiosk wall: composing guest framebuffers into tiles and the screenshot text format.  The
# wall itself and the Linux framebuffer own the screen and guest pages: not pure.
pure_dirs_display := vmm/display
pure_skip_display := vmm/display/wall.c vmm/display/linux_fb.c
# The mediated vGPU device: BAR0 emulation, execlist shadowing, the render loop, ballooning
# (core/), and its personalities (kiosk/, i915/).  host/ wires it to the machine: not pure;
# i915/vgt/ and i915/display/ are modules of their own (vgt, vdisp, below).
pure_dirs_vgpu   := vmm/vgpu
pure_skip_vgpu   := $(shell find vmm/vgpu/host vmm/vgpu/i915/vgt vmm/vgpu/i915/display -name '*.c' 2>/dev/null)
# Virtual devices a guest's CPU talks to: the 16550, the local APIC, the 8259 pair, arbitration.
pure_dirs_vdev   := vmm/vdev
# A guest's I/O bus: its port ranges and MMIO regions, where they may be placed, and the EPT
# translations of a window that moves (vmm/io/ept_window.c, over vmx's EPT code).
pure_dirs_io     := vmm/io
# Booting Linux guests: the Linux boot protocol (boot/linux/: the bzImage header, boot_params
# and e820, where kernel and initrd go), the ACPI and MP tables, and the CPUID a Linux guest
# sees.  (vmm/loader/ also holds the impure loaders.)
pure_srcs_loader := boot/linux/loader_error.c boot/linux/bzimage.c vmm/loader/acpi_tables.c boot/linux/zero_page.c vmm/loader/mptable.c \
                    boot/linux/linux_place.c vmm/vcpu/cpuid_policy.c
# What an unmodified i915 guest needs of its vGPU: the PPGTT shadow, the execlist/CSB sequencer,
# the GT interrupt controller and the Skylake GT2 register file (docs/vgpu-i915.md).
pure_dirs_vgt    := vmm/vgpu/i915/vgt
# The i915 guest's virtual DP monitor: the display registers i915 drives, the monitor's EDID,
# DPCD and AUX channel, the pipe's vblank clock and the planes, the OpRegion/VBT (vgpu-i915.md).
pure_dirs_vdisp  := vmm/vgpu/i915/display
# What CPUs tell each other: the single-producer ring between two cores and the requests and
# kicks to a vCPU's owner (lock-free, C11 atomics; host-tested across threads under TSan).
pure_dirs_smp    := vmm/smp

pure_srcs = $(filter-out $(pure_skip_$(1)),$(sort $(wildcard $(pure_srcs_$(1))) \
                   $(foreach d,$(pure_dirs_$(1)),$(shell find $(d) -name '*.c' 2>/dev/null))))
PURE_SRCS := $(foreach m,$(PURE_MODULES),$(call pure_srcs,$(m)))

# The module a test, benchmark or fuzzer file belongs to: test_gtt_layout.c -> gtt.  A file
# whose second word is not a module would link every module (none does today).
module_of = $(filter $(PURE_MODULES),$(word 2,$(subst _, ,$(basename $(notdir $(1))))))
# A module may use another (config checks graphics memory with gtt's layout, Linux kernels
# with the Linux boot protocol's bzImage parser and placement): list it here.
pure_deps_config := gtt loader lib
pure_deps_display := lib
pure_deps_igpu   :=
pure_deps_vgpu   := gtt sched igpu vgt vdisp lib
pure_deps_vgt    := igpu
pure_deps_vdisp  := lib
pure_deps_io     := vmx
# The guest's ACPI tables are checked by reading them back with the host's MADT parser.
pure_deps_loader := core
modules_of = $(or $(foreach m,$(call module_of,$(1)),$(m) $(pure_deps_$(m))),$(PURE_MODULES))
