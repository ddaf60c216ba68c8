/* The virtual board every guest gets, as devices on its VM (vmm/vm.h) and its I/O bus
 * (vmm/io/io_bus.h): the pure device models of vmm/vdev and vmm/vpci wired to the guest.
 *   - COM1, the guest's console (vdev/vuart), on ports 0x3F8-0x3FF and IRQ 4 of its 8259s;
 *   - the 8259 pair's ports (0x20, 0x21, 0xA0, 0xA1, ELCR 0x4D0/0x4D1; the pair itself is the
 *     vCPU's interrupt path, vmm/vcpu/inject.c);
 *   - the PCI configuration mechanism (0xCF8 address, 0xCFC-0xCFF data) over bus 0, rebuilt
 *     with the default BARs at every start as a reset chipset is; a BAR the guest moves
 *     re-bases the MMIO region registered behind it;
 *   - the interrupt controllers' and firmware's addresses [0xFEC00000, 4 GiB), kept free of
 *     MMIO regions;
 *   - for a Linux guest, its platform (board_linux.c): reset ports, ACPI fixed hardware, the
 *     empty MMIO bus and a linear framebuffer. */
#ifndef TESSERA_VMM_BOARD_BOARD_H
#define TESSERA_VMM_BOARD_BOARD_H

#include <stdbool.h>

#include "vmm/vpci/vpci.h"

struct vm;

/* The PC's ISA wiring: COM1 on IRQ 4 of the 8259 pair. */
#define BOARD_COM1_IRQ   4u
#define BOARD_COM1_PORTS 8u
/* The interrupt controllers (I/O APIC at 0xFEC00000, local APIC at 0xFEE00000) and the
 * firmware's flash up to 4 GiB: no BAR may be placed there. */
#define BOARD_APIC_AREA_BASE 0xFEC00000ull
#define BOARD_APIC_AREA_END  0x100000000ull

/* Attaches the board to a guest created by vm_init_all, before it first starts.  False (the
 * guest is failed, with the reason) when a device could not be set up. */
bool board_attach(struct vm *vm);

/* The guest's PCI bus as rebuilt at its last start; NULL if it has none (the aperture does not
 * fit the vGPU's BAR: logged at each start). */
struct vpci *board_pci(struct vm *vm);

#endif
