/* PCI configuration-space names the virtual PCI model needs beyond arch/x86/pci.h (which names
 * the ports, the enable bit, vendor/device/command/header type/BAR0 and the BAR type bits; they
 * are reused from there, not redefined).  Offsets and bits are from the PCI Local Bus
 * Specification 3.0: §3.2.2.3.2 (configuration mechanism #1), §6.1 (the type 0 header),
 * §6.2.2 (command), §6.2.3 (status), §6.2.5.1 (BARs); the Intel graphics fields from Linux's
 * include/drm/intel/i915_drm.h (SNB_GMCH_CTRL, BDW_GMCH_*, INTEL_BSM), which i915's
 * gt/intel_ggtt.c (gen8_get_total_gtt_size) and gem/i915_gem_stolen.c read. */
#ifndef TESSERA_VMM_VPCI_PCI_REGS_H
#define TESSERA_VMM_VPCI_PCI_REGS_H

#include "arch/x86/pci.h"

/* ---- Configuration mechanism #1 (§3.2.2.3.2) ---- */
#define PCI_CONFIG_DATA_PORTS      4            /* 0xCFC..0xCFF, one byte lane each */
#define PCI_CONFIG_ADDR_BUS_SHIFT  16           /* bits 23:16 */
#define PCI_CONFIG_ADDR_BUS_MASK   0xFFu
#define PCI_CONFIG_ADDR_DEV_SHIFT  11           /* bits 15:11 */
#define PCI_CONFIG_ADDR_DEV_MASK   0x1Fu
#define PCI_CONFIG_ADDR_FN_SHIFT   8            /* bits 10:8 */
#define PCI_CONFIG_ADDR_FN_MASK    0x7u
#define PCI_CONFIG_ADDR_REG_MASK   0xFCu        /* bits 7:2, the dword; 1:0 read as 0 */
/* Bits the latch keeps: enable, bus, device, function, register.  Bits 30:24 are reserved
 * and bits 1:0 are hard-wired to 0 for type 0/1 translation. */
#define PCI_CONFIG_ADDR_KEPT       (PCI_CONFIG_ENABLE | 0x00FFFFFCu)
#define PCI_DEVICES_PER_BUS        32
#define PCI_FUNCTIONS_PER_DEVICE   8

/* ---- Type 0 header (§6.1) ---- */
#define PCI_CFG_SPACE_SIZE         256
#define PCI_STATUS                 0x06
#define PCI_REVISION_ID            0x08
#define PCI_CLASS_PROG             0x09         /* programming interface */
#define PCI_CLASS_DEVICE           0x0A         /* sub-class */
#define PCI_CLASS_BASE             0x0B         /* base class */
#define PCI_CACHE_LINE_SIZE        0x0C
#define PCI_LATENCY_TIMER          0x0D
#define PCI_BIST                   0x0F
#define PCI_BAR_STRIDE             4            /* BARn at PCI_BAR0 + n * 4 */
#define PCI_SUBSYSTEM_VENDOR_ID    0x2C
#define PCI_SUBSYSTEM_ID           0x2E
#define PCI_ROM_ADDRESS            0x30
#define PCI_CAPABILITY_LIST        0x34
#define PCI_INTERRUPT_LINE         0x3C
#define PCI_INTERRUPT_PIN          0x3D
#define PCI_HEADER_TYPE_NORMAL     0x00

/* Command (§6.2.2): IO and MEMORY come from arch/x86/pci.h. */
#define PCI_COMMAND_MASTER         0x0004
#define PCI_COMMAND_INTX_DISABLE   0x0400
/* Status (§6.2.3). */
#define PCI_STATUS_CAP_LIST        0x0010       /* a capability list at PCI_CAPABILITY_LIST */

/* MSI capability (PCI Local Bus Spec 3.0 §6.8.1), the 32-bit-address form: ID, next pointer,
 * message control, message address, message data. */
#define PCI_CAP_ID_MSI             0x05
#define PCI_CAP_NEXT               0x01         /* offsets inside a capability */
#define PCI_MSI_FLAGS              0x02
#define PCI_MSI_FLAGS_ENABLE       0x0001
#define PCI_MSI_ADDRESS_LO         0x04
#define PCI_MSI_ADDRESS_MASK       0xFFFFFFFCu  /* bits 1:0 reserved */
#define PCI_MSI_DATA_32            0x08

/* BAR low bits (§6.2.5.1): IO and MEM_TYPE_64 come from arch/x86/pci.h. */
#define PCI_BAR_MEM_PREFETCH       0x8
#define PCI_BAR_MEM_FLAGS          0xFu         /* memory BAR bits 3:0 are not address */
#define PCI_BAR_IO_FLAGS           0x3u         /* I/O BAR bits 1:0 are not address */
#define PCI_BAR_MEM_MIN_SIZE       16ULL        /* the flag bits make 16 bytes the least */
#define PCI_BAR_IO_MIN_SIZE        4ULL
#define PCI_BAR_IO_MAX_SIZE        256ULL       /* an I/O BAR claims at most 256 ports */

#define PCI_INTERRUPT_PIN_NONE     0
#define PCI_INTERRUPT_PIN_INTA     1
#define PCI_INTERRUPT_LINE_UNKNOWN 0xFF         /* x86: no IRQ routed by firmware */

/* Class codes (PCI Code and ID Assignment Specification §1). */
#define PCI_BASE_CLASS_DISPLAY     0x03
#define PCI_SUBCLASS_DISPLAY_VGA   0x00
#define PCI_BASE_CLASS_BRIDGE      0x06
#define PCI_SUBCLASS_BRIDGE_HOST   0x00

#define PCI_VENDOR_INTEL           0x8086

/* ---- Intel integrated graphics, device 00:02.0 (i915_drm.h) ---- */
/* GMCH Graphics Control, 16 bits.  Gen8+ layout (BDW_GMCH_*): GGMS, the GGTT size, in bits
 * 7:6 as a power of two in MiB (0 = none, 1 = 2 MiB, 2 = 4 MiB, 3 = 8 MiB); GMS, the stolen
 * memory size, in bits 15:8 in units of 32 MiB (0 = no stolen memory). */
#define INTEL_GMCH_CTRL            0x50         /* SNB_GMCH_CTRL */
#define INTEL_GMCH_GGMS_SHIFT      6            /* BDW_GMCH_GGMS_SHIFT */
#define INTEL_GMCH_GGMS_MASK       0x3u         /* BDW_GMCH_GGMS_MASK */
#define INTEL_GMCH_GGMS_8M         3            /* 1 << 3 MiB of GGTT: 1 Mi 8-byte entries */
#define INTEL_GMCH_GMS_SHIFT       8            /* BDW_GMCH_GMS_SHIFT */
#define INTEL_GMCH_GMS_MASK        0xFFu        /* BDW_GMCH_GMS_MASK */
/* Base of Data Stolen Memory, 32 bits, the base in bits 31:20. */
#define INTEL_BDSM                 0x5C         /* INTEL_BSM */
#define INTEL_BDSM_MASK            0xFFF00000u  /* INTEL_BSM_MASK, GENMASK(31, 20) */

#endif
