/* The hypervisor's one virtual PCI bus per guest.  Image only: these are defined in
 * vmm/vcpu/exit_io.c (which routes the guest's 0xCF8/0xCFC accesses), not in the pure vpci module.
 *
 * A guest's bus is built on its first configuration access (vgpu_pci_build with the guest's
 * low graphics-memory size) and rebuilt, back to the defaults, on its first access after each
 * start or reset, as a reset chipset would be. */
#ifndef TESSERA_VMM_VPCI_VPCI_GUEST_H
#define TESSERA_VMM_VPCI_VPCI_GUEST_H

#include "vmm/vpci/vpci.h"

/* Guest `guest_id`'s bus as of now; NULL if there is no such guest, no memory, or its
 * configuration does not fit (the reason is logged once). */
struct vpci *vpci_of(unsigned guest_id);

/* Who hears that a guest moved a BAR or turned its decoding on or off (to move the trapped
 * BAR0 region and the aperture mapping), besides the log, which shows a vGPU BAR at info
 * level when decoding is on and it is somewhere new. */
typedef void (*vpci_guest_bar_hook)(unsigned guest_id, const struct vpci_bar_event *ev);
void vpci_guest_set_bar_hook(vpci_guest_bar_hook hook);

#endif
