/* Guest-physical layout of a Linux guest (docs/linux-guest.md draws it).  The low pages keep the
 * places the Tessera guest ABI uses (include/tessera/abi/guest.h): where a Tessera guest finds
 * its boot information a Linux guest finds boot_params, then the GDT and the identity page
 * tables.  Everything here lies in e820 RAM below 640 KiB, which Linux reserves for itself at
 * once (arch/x86/realmode/init.c reserve_real_mode: the whole first MiB), except the MP table,
 * which sits in the reserved block the kernel scans (arch/x86/kernel/mpparse.c
 * smp_scan_config: the last KiB below 640 KiB), and the framebuffer, outside RAM. */
#ifndef TESSERA_BOOT_LINUX_LINUX_LAYOUT_H
#define TESSERA_BOOT_LINUX_LINUX_LAYOUT_H

#include "tessera/abi/guest.h"

#define LINUX_ZERO_PAGE_GPA  TESSERA_GUEST_BOOT_INFO /* struct boot_params, RSI at entry */
#define LINUX_GDT_GPA        TESSERA_GUEST_GDT
#define LINUX_PT_GPA         TESSERA_GUEST_PT_BASE /* identity map, 2 MiB pages */
#define LINUX_BOOT_STACK_TOP 0x20000ULL /* RSP at entry (the decompressor sets its own) */
#define LINUX_CMDLINE_GPA    0x20000ULL /* the command line, NUL-terminated */
#define LINUX_CMDLINE_ROOM   0x10000ULL /* bytes reserved for it */
#define LINUX_LOW_RAM_END    0x9FC00ULL /* e820 RAM [0, 639 KiB) */
#define LINUX_MPTABLE_GPA    0x9FC00ULL /* MP floating pointer, then the table */
#define LINUX_MPTABLE_ROOM   0x400ULL   /* the KiB Linux scans there */
#define LINUX_ACPI_GPA       0xE0000ULL /* RSDP, then the ACPI tables */
#define LINUX_ACPI_ROOM      0x1000ULL
/* An i915 guest's OpRegion (vmm/vgpu/i915/display/vdisp_opregion.h), 8 KiB, named by the GPU's
 * PCI ASLS register: in the reserved block, after the ACPI tables (memremap() refuses a range
 * that mixes RAM and reserved memory). */
#define LINUX_OPREGION_GPA   0xE2000ULL
#define LINUX_BIOS_AREA_END  0x100000ULL /* e820 reserved [639 KiB, 1 MiB) */
#define LINUX_KERNEL_MIN_GPA 0x100000ULL /* lowest load address (LOADED_HIGH) */

/* The linear framebuffer (screen_info VLFB): outside RAM, below the vGPU's aperture BAR
 * (vmm/vpci/vgpu_pci.h VGPU_BAR2_DEFAULT), 32-bit because vesafb ignores ext_lfb_base.  Guest
 * RAM must end below it. */
#define LINUX_FB_GPA    0xD0000000ULL
#define LINUX_FB_WINDOW 0x10000000ULL /* at most 256 MiB, up to 0xE0000000 */

/* Selectors of the boot GDT (boot.rst "64-bit Boot Protocol": __BOOT_CS and __BOOT_DS). */
#define LINUX_BOOT_CS     0x10
#define LINUX_BOOT_DS     0x18
#define LINUX_GDT_ENTRIES 4 /* null, unused, code, data */

#endif
