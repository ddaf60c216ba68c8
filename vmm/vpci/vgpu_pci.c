/* The two functions of a guest's PCI bus: what each header holds and which bits the guest may
 * change.  Everything not set here reads as 0 and is read-only. */
#include "vmm/vpci/vgpu_pci.h"

#include "vmm/vpci/pch_pci.h"

#define MIB (1ULL << 20)

uint64_t vgpu_pci_aperture_bytes(uint32_t low_gm_mib)
{
    uint64_t want = (uint64_t)(low_gm_mib ? low_gm_mib : 1) * MIB, size = MIB;
    while (size < want)
        size <<= 1;
    return size <= VGPU_BAR2_MAX_SIZE ? size : 0;
}

int vgpu_pci_set_identity(struct vpci_func *f, uint16_t device, uint8_t revision,
                          uint8_t base_class, uint8_t sub_class)
{
    int e = 0;
    e |= vpci_func_set(f, PCI_VENDOR_ID, 2, PCI_VENDOR_INTEL, 0);
    e |= vpci_func_set(f, PCI_DEVICE_ID, 2, device, 0);
    e |= vpci_func_set(f, PCI_REVISION_ID, 1, revision, 0);
    e |= vpci_func_set(f, PCI_CLASS_PROG, 1, 0, 0);
    e |= vpci_func_set(f, PCI_CLASS_DEVICE, 1, sub_class, 0);
    e |= vpci_func_set(f, PCI_CLASS_BASE, 1, base_class, 0);
    e |= vpci_func_set(f, PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_NORMAL, 0);
    e |= vpci_func_set(f, PCI_SUBSYSTEM_VENDOR_ID, 2, VPCI_SUBSYS_VENDOR, 0);
    e |= vpci_func_set(f, PCI_SUBSYSTEM_ID, 2, VPCI_SUBSYS_ID, 0);
    return e ? VPCI_E_ARG : VPCI_OK;
}

/* The host bridge only has to be there (i915 and Linux's early quirks look at 00:00.0); it
 * decodes memory and masters, fixed, and has no BARs. */
static int build_host_bridge(struct vpci *v)
{
    int e;
    struct vpci_func *f = vpci_add_func(v, HOSTBRIDGE_PCI_DEV, HOSTBRIDGE_PCI_FN, &e);
    if (!f)
        return e;
    if ((e = vgpu_pci_set_identity(f, HOSTBRIDGE_PCI_DEVICE_ID, HOSTBRIDGE_PCI_REVISION,
                                   PCI_BASE_CLASS_BRIDGE, PCI_SUBCLASS_BRIDGE_HOST)) != VPCI_OK)
        return e;
    return vpci_func_set(f, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, 0);
}

static int build_vgpu(struct vpci *v, uint64_t aperture)
{
    int e;
    struct vpci_func *f = vpci_add_func(v, VGPU_PCI_DEV, VGPU_PCI_FN, &e);
    if (!f)
        return e;
    if ((e = vgpu_pci_set_identity(f, VGPU_PCI_DEVICE_ID, VGPU_PCI_REVISION, PCI_BASE_CLASS_DISPLAY,
                                   PCI_SUBCLASS_DISPLAY_VGA)) != VPCI_OK)
        return e;
    /* Decoding starts on, as firmware leaves a boot display; the driver may turn it off (to
     * size BARs), enable bus mastering and mask INTx. */
    const uint32_t cmd_rw = PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
                            PCI_COMMAND_INTX_DISABLE;
    int s = 0;
    s |= vpci_func_set(f, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, cmd_rw);
    s |= vpci_func_set(f, PCI_STATUS, 2, 0, 0);             /* no capability list */
    s |= vpci_func_set(f, PCI_CACHE_LINE_SIZE, 1, 0, 0xFF); /* scratch for the OS */
    s |= vpci_func_set(f, PCI_INTERRUPT_LINE, 1, PCI_INTERRUPT_LINE_UNKNOWN, 0xFF);
    s |= vpci_func_set(f, PCI_INTERRUPT_PIN, 1, PCI_INTERRUPT_PIN_INTA, 0);
    s |= vpci_func_set(f, GEN9_PCI_GMCH_CTRL, 2, VGPU_GMCH_CTRL_VALUE, 0);
    s |= vpci_func_set(f, GEN9_PCI_BDSM, 4, VGPU_BDSM_VALUE, 0);
    if (s)
        return VPCI_E_ARG;
    if ((e = vpci_func_set_bar(f, VGPU_BAR_MMIO, VPCI_BAR_MEM64, false, VGPU_BAR0_SIZE,
                               VGPU_BAR0_DEFAULT)) != VPCI_OK ||
        (e = vpci_func_set_bar(f, VGPU_BAR_APERTURE, VPCI_BAR_MEM64, true, aperture,
                               VGPU_BAR2_DEFAULT)) != VPCI_OK)
        return e;
    return vpci_func_set_bar(f, VGPU_BAR_IO, VPCI_BAR_IO, false, VGPU_BAR4_SIZE, VGPU_BAR4_DEFAULT);
}

int vgpu_pci_build(struct vpci *v, uint32_t low_gm_mib)
{
    vpci_init(v);
    uint64_t aperture = vgpu_pci_aperture_bytes(low_gm_mib);
    if (!aperture)
        return VPCI_E_BAR;
    int e = build_host_bridge(v);
    return e != VPCI_OK ? e : build_vgpu(v, aperture);
}

int vgpu_pci_add_msi(struct vpci *v)
{
    struct vpci_func *f = vpci_find(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN);
    if (!f)
        return VPCI_E_ARG;
    const unsigned c = VGPU_PCI_MSI_CAP;
    int s = 0;
    s |= vpci_func_set(f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST, 0);
    s |= vpci_func_set(f, PCI_CAPABILITY_LIST, 1, c, 0);
    s |= vpci_func_set(f, c, 1, PCI_CAP_ID_MSI, 0);
    s |= vpci_func_set(f, c + PCI_CAP_NEXT, 1, 0, 0);
    /* One message, 32-bit address, no masking: only Enable is the guest's to change. */
    s |= vpci_func_set(f, c + PCI_MSI_FLAGS, 2, 0, PCI_MSI_FLAGS_ENABLE);
    s |= vpci_func_set(f, c + PCI_MSI_ADDRESS_LO, 4, 0, PCI_MSI_ADDRESS_MASK);
    s |= vpci_func_set(f, c + PCI_MSI_DATA_32, 2, 0, 0xFFFF);
    return s ? VPCI_E_ARG : VPCI_OK;
}

bool vgpu_pci_msi(struct vpci *v, uint64_t *addr, uint32_t *data)
{
    const unsigned c = VGPU_PCI_MSI_CAP;
    if (!(vpci_cfg_read(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST) ||
        !(vpci_cfg_read(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN, c + PCI_MSI_FLAGS, 2) &
          PCI_MSI_FLAGS_ENABLE))
        return false;
    *addr = vpci_cfg_read(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN, c + PCI_MSI_ADDRESS_LO, 4);
    *data = vpci_cfg_read(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN, c + PCI_MSI_DATA_32, 2);
    return true;
}

int vgpu_pci_add_display(struct vpci *v, uint32_t opregion_gpa)
{
    struct vpci_func *f = vpci_find(v, 0, VGPU_PCI_DEV, VGPU_PCI_FN);
    if (!f || (opregion_gpa & (PCI_ASLS_ALIGN - 1)))
        return VPCI_E_ARG;
    int e = vpci_func_set(f, PCI_ASLS, 4, opregion_gpa, 0);
    return e != VPCI_OK ? e : pch_pci_add(v);
}
