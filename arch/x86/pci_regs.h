/* PCI configuration-space facts, named once for every room: the hypervisor's enumeration
 * (arch/x86/pci.c), the iGPU's discovery (drivers/igpu/hw/igpu_discovery.c), the virtual PCI
 * bus guests see (vmm/vpci) and the guests' own probes.  Pure: names only.  Offsets and bits
 * are from the PCI Local Bus Specification 3.0: §3.2.2.3.2 (configuration mechanism #1),
 * §6.1 (the type 0 header), §6.2.2 (command), §6.2.3 (status), §6.2.5.1 (BARs), §6.8.1 (MSI);
 * class codes from the PCI Code and ID Assignment Specification §1.  The names follow Linux's
 * include/uapi/linux/pci_regs.h where it has one. */
#ifndef TESSERA_ARCH_X86_PCI_REGS_H
#define TESSERA_ARCH_X86_PCI_REGS_H

/* ---- Configuration mechanism #1 (§3.2.2.3.2): x86 I/O ports ---- */
#define PCI_CONFIG_ADDRESS        0xCF8
#define PCI_CONFIG_DATA           0xCFC
#define PCI_CONFIG_DATA_PORTS     4           /* 0xCFC..0xCFF, one byte lane each */
#define PCI_CONFIG_ENABLE         0x80000000u /* bit 31 */
#define PCI_CONFIG_ADDR_BUS_SHIFT 16          /* bits 23:16 */
#define PCI_CONFIG_ADDR_BUS_MASK  0xFFu
#define PCI_CONFIG_ADDR_DEV_SHIFT 11 /* bits 15:11 */
#define PCI_CONFIG_ADDR_DEV_MASK  0x1Fu
#define PCI_CONFIG_ADDR_FN_SHIFT  8 /* bits 10:8 */
#define PCI_CONFIG_ADDR_FN_MASK   0x7u
#define PCI_CONFIG_ADDR_REG_MASK  0xFCu /* bits 7:2, the dword; 1:0 read as 0 */
/* Bits the latch keeps: enable, bus, device, function, register.  Bits 30:24 are reserved
 * and bits 1:0 are hard-wired to 0 for type 0/1 translation. */
#define PCI_CONFIG_ADDR_KEPT     (PCI_CONFIG_ENABLE | 0x00FFFFFCu)
#define PCI_BUSES                256
#define PCI_DEVICES_PER_BUS      32
#define PCI_FUNCTIONS_PER_DEVICE 8

/* ---- Type 0 header (§6.1) ---- */
#define PCI_CFG_SPACE_SIZE      256
#define PCI_VENDOR_ID           0x00
#define PCI_DEVICE_ID           0x02
#define PCI_COMMAND             0x04
#define PCI_STATUS              0x06
#define PCI_CLASS_REVISION      0x08 /* the dword: class << 8 | revision */
#define PCI_REVISION_ID         0x08
#define PCI_CLASS_PROG          0x09 /* programming interface */
#define PCI_CLASS_DEVICE        0x0A /* sub-class */
#define PCI_CLASS_BASE          0x0B /* base class */
#define PCI_CACHE_LINE_SIZE     0x0C
#define PCI_LATENCY_TIMER       0x0D
#define PCI_HEADER_TYPE         0x0E
#define PCI_BIST                0x0F
#define PCI_BAR0                0x10
#define PCI_BAR_STRIDE          4 /* BARn at PCI_BAR0 + n * 4 */
#define PCI_BAR_OFFSET(n)       (PCI_BAR0 + (n)*PCI_BAR_STRIDE)
#define PCI_MAX_BARS            6    /* a type 0 header has six */
#define PCI_BRIDGE_BARS         2    /* a type 1 (bridge) header has two */
#define PCI_SECONDARY_BUS       0x19 /* type 1 header */
#define PCI_SUBSYSTEM_VENDOR_ID 0x2C
#define PCI_SUBSYSTEM_ID        0x2E
#define PCI_ROM_ADDRESS         0x30
#define PCI_CAPABILITY_LIST     0x34
#define PCI_INTERRUPT_LINE      0x3C
#define PCI_INTERRUPT_PIN       0x3D

#define PCI_VENDOR_NONE          0xFFFF /* no function: the read is all ones */
#define PCI_HEADER_TYPE_MASK     0x7F
#define PCI_HEADER_TYPE_NORMAL   0x00
#define PCI_HEADER_TYPE_BRIDGE   0x01
#define PCI_HEADER_MULTIFUNCTION 0x80

/* Command (§6.2.2). */
#define PCI_COMMAND_IO           0x0001
#define PCI_COMMAND_MEMORY       0x0002
#define PCI_COMMAND_MASTER       0x0004
#define PCI_COMMAND_INTX_DISABLE 0x0400
/* Status (§6.2.3). */
#define PCI_STATUS_CAP_LIST 0x0010 /* a capability list at PCI_CAPABILITY_LIST */

/* BAR low bits (§6.2.5.1). */
#define PCI_BAR_IO            0x1u /* bit 0: an I/O BAR */
#define PCI_BAR_MEM_TYPE_MASK 0x6u /* bits 2:1 of a memory BAR */
#define PCI_BAR_MEM_TYPE_64   0x4u /* ... 10b: 64 bits, the next BAR the high half */
#define PCI_BAR_MEM_PREFETCH  0x8u
#define PCI_BAR_MEM_FLAGS     0xFu  /* memory BAR bits 3:0 are not address */
#define PCI_BAR_IO_FLAGS      0x3u  /* I/O BAR bits 1:0 are not address */
#define PCI_BAR_MEM_MIN_SIZE  16ULL /* the flag bits make 16 bytes the least */
#define PCI_BAR_IO_MIN_SIZE   4ULL
#define PCI_BAR_IO_MAX_SIZE   256ULL /* an I/O BAR claims at most 256 ports */

#define PCI_INTERRUPT_PIN_NONE     0
#define PCI_INTERRUPT_PIN_INTA     1
#define PCI_INTERRUPT_LINE_UNKNOWN 0xFF /* x86: no IRQ routed by firmware */

/* ---- Capabilities (§6.7) and MSI (§6.8.1), the 32-bit-address form ---- */
#define PCI_CAP_ID_MSI       0x05
#define PCI_CAP_NEXT         0x01 /* offsets inside a capability */
#define PCI_MSI_FLAGS        0x02
#define PCI_MSI_FLAGS_ENABLE 0x0001
#define PCI_MSI_ADDRESS_LO   0x04
#define PCI_MSI_ADDRESS_MASK 0xFFFFFFFCu /* bits 1:0 reserved */
#define PCI_MSI_DATA_32      0x08

/* ---- Class codes (PCI Code and ID Assignment Specification §1) ---- */
#define PCI_BASE_CLASS_DISPLAY   0x03
#define PCI_SUBCLASS_DISPLAY_VGA 0x00
#define PCI_BASE_CLASS_BRIDGE    0x06
#define PCI_SUBCLASS_BRIDGE_HOST 0x00

/* ---- Vendor ids (PCI-SIG) ---- */
#define PCI_VENDOR_INTEL 0x8086

#endif
