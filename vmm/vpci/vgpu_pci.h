/* The PCI functions every Tessera guest sees (docs/vpci.md): a host bridge at 00:00.0 and
 * the vGPU at 00:02.0, dressed as a Skylake GT2 (HD Graphics 530) as i915 would find it.
 *
 * Guest-physical placement chosen by the hypervisor (the guest may move the BARs; the vpci
 * callback reports where they went):
 *   BAR0  0xF0000000, 16 MiB, 64-bit memory, not prefetchable: registers (first 2 MiB, PV info
 *         page at +0x78000) and the GGTT (+8 MiB)
 *   BAR2  0xE0000000, the aperture window: the whole aperture the GGTT layout assumes (guest
 *         graphics addresses equal host ones, so the guest's own low window lies at its
 *         offset inside), rounded up to a power of two, 64-bit prefetchable; at most 256 MiB
 *         so it ends below BAR0
 *   BAR4  I/O 0xF000, 64 ports, as real Gen9 has (not emulated: reads all ones)
 * Both memory BARs sit below the IOAPIC and local APIC pages, and above guest RAM for any guest
 * with less than 3.5 GiB. */
#ifndef TESSERA_VMM_VPCI_VGPU_PCI_H
#define TESSERA_VMM_VPCI_VGPU_PCI_H

#include <stdint.h>

#include "drivers/igpu/gen9_regs.h"
#include "vmm/vpci/vpci.h"

#define VGPU_PCI_DEV       GEN9_PCI_DEV /* 00:02.0, where the iGPU always is */
#define VGPU_PCI_FN        0
#define HOSTBRIDGE_PCI_DEV 0
#define HOSTBRIDGE_PCI_FN  0

/* BAR slots (PCI header BAR index), the iGPU's. */
#define VGPU_BAR_MMIO     GEN9_PCI_BAR_GTTMMADR
#define VGPU_BAR_APERTURE GEN9_PCI_BAR_GMADR
#define VGPU_BAR_IO       GEN9_PCI_BAR_IOBAR

#define VGPU_BAR0_DEFAULT  0xF0000000ULL
#define VGPU_BAR0_SIZE     (16ULL << 20)
#define VGPU_BAR2_DEFAULT  0xE0000000ULL
#define VGPU_BAR2_MAX_SIZE (VGPU_BAR0_DEFAULT - VGPU_BAR2_DEFAULT)
#define VGPU_BAR4_DEFAULT  0xF000u
#define VGPU_BAR4_SIZE     64u

/* Identity.  Device ids from Linux's include/drm/intel/i915_pciids.h (INTEL_SKL_GT2_IDS:
 * 0x1912 is the desktop HD Graphics 530) and the Skylake host bridge (0x1918, "Xeon E3-1200
 * v5/6th Gen Core Processor Host Bridge/DRAM Registers", pci.ids). */
#define VGPU_PCI_DEVICE_ID 0x1912
#define VGPU_PCI_REVISION  0x06
/* Subsystem ids name the board maker; a virtual board has none, so both functions carry
 * Intel's vendor id and an id of Tessera's choosing. */
#define VPCI_SUBSYS_VENDOR       PCI_VENDOR_INTEL
#define VPCI_SUBSYS_ID           0x2212
#define HOSTBRIDGE_PCI_DEVICE_ID 0x1918
#define HOSTBRIDGE_PCI_REVISION  0x07

/* GMCH control as i915 reads it: an 8 MiB GGTT (BAR0 + 8 MiB .. + 16 MiB) and no stolen
 * memory, which the hypervisor does not give guests.  BDSM is 0 accordingly. */
#define VGPU_GMCH_CTRL_VALUE ((uint16_t)(GEN9_GMCH_GGMS_8M << GEN9_GMCH_GGMS_SHIFT))
#define VGPU_BDSM_VALUE      0u

/* The aperture BAR's size for an aperture of `low_gm_mib` MiB: rounded up to a power of
 * two, 1 MiB at least.  0 if that exceeds VGPU_BAR2_MAX_SIZE. */
uint64_t vgpu_pci_aperture_bytes(uint32_t low_gm_mib);

/* Sets a function's identity (ids, revision, class, header type, subsystem), all read-only. */
int vgpu_pci_set_identity(struct vpci_func *f, uint16_t device, uint8_t revision,
                          uint8_t base_class, uint8_t sub_class);

/* Makes `v` the bus a guest sees: vpci_init, then the host bridge and the vGPU with their
 * default BARs.  VPCI_E_BAR if the low graphics memory does not fit the aperture window.  The
 * BAR callback is left unset. */
int vgpu_pci_build(struct vpci *v, uint32_t low_gm_mib);

/* The MSI capability of Skylake's GPU (lspci: "Capabilities: [ac] MSI: Count=1/1 Maskable-
 * 64bit-"), the only capability in the list: for an i915 guest, whose driver calls
 * pci_enable_msi() (i915_driver_hw_probe()) and gets its interrupts through it. */
#define VGPU_PCI_MSI_CAP 0xAC
int vgpu_pci_add_msi(struct vpci *v);
/* The message the guest programmed: true if MSI is enabled (address and data filled). */
bool vgpu_pci_msi(struct vpci *v, uint64_t *addr, uint32_t *data);

/* For an i915 guest with a display (docs/vgpu-i915.md "Display"): the GPU's ASLS register
 * (read-only) names the OpRegion at opregion_gpa (page-aligned, below 4 GiB), where i915 finds
 * the VBT, and the south bridge i915's intel_detect_pch() looks for is on the bus (pch_pci.h). */
#define PCI_ASLS       0xFC /* ASL storage: the OpRegion's address (i915 ASLS) */
#define PCI_ASLS_ALIGN 0x1000u
int vgpu_pci_add_display(struct vpci *v, uint32_t opregion_gpa);

#endif
