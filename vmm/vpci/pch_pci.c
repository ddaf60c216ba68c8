/* The ISA bridge at 00:1f.0 (pch_pci.h says why it is there and why this id). */
#include "vmm/vpci/pch_pci.h"

#include "vmm/vpci/vgpu_pci.h"

int pch_pci_add(struct vpci *v)
{
    int e;
    struct vpci_func *f = vpci_add_func(v, PCH_PCI_DEV, PCH_PCI_FN, &e);
    if (!f)
        return e;
    if ((e = vgpu_pci_set_identity(f, PCH_PCI_DEVICE_ID, PCH_PCI_REVISION, PCI_BASE_CLASS_BRIDGE,
                                   PCI_SUBCLASS_BRIDGE_ISA)) != VPCI_OK)
        return e;
    return vpci_func_set(f, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 0);
}
