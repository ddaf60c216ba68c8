/* The south bridge an i915 guest with a display looks for (i915 soc/intel_pch.c
 * intel_detect_pch(): the first Intel ISA bridge on the bus, by class).  Without one i915 6.1
 * sets no PCH type, and with a display enabled its hotplug code for port D (SPT's
 * lpt_digital_port_connected(), hpd_spt[]) has nothing to work with.
 *
 * Device 8086:7000 (the 82371SB PIIX3 ISA bridge QEMU puts at 00:01.0): intel_is_virt_pch()
 * takes it as "a virtualized PCH" and intel_virt_detect_pch() picks Sunrise Point for a
 * Skylake GPU, which is what the vGPU's south display registers are.  A Sunrise Point LPC id
 * (0xA1xx) would do as well but matches Linux's lpc_ich, a driver for hardware that is not
 * here.  Linux's only reaction to a PIIX3 without a $PIR routing table is marking ISA DMA
 * buggy (quirk_isa_dma_hangs() in its PCI quirks), which nothing in the guest uses.
 *
 * At 00:1f.0, where a PCH's LPC bridge sits; no BARs, no interrupt, read-only. */
#ifndef TESSERA_VMM_VPCI_PCH_PCI_H
#define TESSERA_VMM_VPCI_PCH_PCI_H

#include "vmm/vpci/vpci.h"

#define PCH_PCI_DEV             0x1F
#define PCH_PCI_FN              0
#define PCH_PCI_DEVICE_ID       0x7000 /* INTEL_PCH_P3X_DEVICE_ID_TYPE in i915 */
#define PCH_PCI_REVISION        0x00
#define PCI_SUBCLASS_BRIDGE_ISA 0x01

int pch_pci_add(struct vpci *v);

#endif
