/* PCI configuration space through the legacy I/O mechanism (PCI Local Bus Spec 3.0 §3.2.2.3.2:
 * address at 0xCF8, data at 0xCFC) and a one-time enumeration of every function.  The
 * configuration-space names are in arch/x86/pci_regs.h. */
#ifndef TESSERA_ARCH_X86_PCI_H
#define TESSERA_ARCH_X86_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/pci_regs.h"

#define PCI_MAX_DEVICES 64 /* functions the enumeration keeps */

struct pci_bar {
    uint64_t base, size;
    bool io, is64, prefetchable;
};

struct pci_device {
    uint8_t bus, dev, fn;
    uint16_t vendor, device;
    uint8_t class_code, subclass, prog_if, revision, header_type;
    struct pci_bar bars[PCI_MAX_BARS];
};

uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off);
uint16_t pci_read16(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off);
uint8_t pci_read8(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off);
void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off, uint32_t v);

/* Scans every bus once (BAR sizes included) and keeps the result; later calls return it. */
unsigned pci_scan(void);
unsigned pci_count(void);
const struct pci_device *pci_get(unsigned i);
const struct pci_device *pci_find(uint8_t bus, uint8_t dev, uint8_t fn);
/* A short name for a class code ("host bridge", "VGA", ...). */
const char *pci_class_name(uint8_t class_code, uint8_t subclass);

#endif
