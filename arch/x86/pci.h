/* PCI configuration space through the legacy I/O mechanism (PCI Local Bus Spec 3.0 §3.2.2.3.2:
 * address at 0xCF8, data at 0xCFC) and a one-time enumeration of every function. */
#ifndef TESSERA_ARCH_X86_PCI_H
#define TESSERA_ARCH_X86_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_CONFIG_ADDRESS  0xCF8
#define PCI_CONFIG_DATA     0xCFC
#define PCI_CONFIG_ENABLE   0x80000000u

/* Type 0 header offsets (PCI spec §6.1). */
#define PCI_VENDOR_ID       0x00
#define PCI_DEVICE_ID       0x02
#define PCI_COMMAND         0x04
#define PCI_CLASS_REVISION  0x08
#define PCI_HEADER_TYPE     0x0E
#define PCI_BAR0            0x10
#define PCI_SECONDARY_BUS   0x19

#define PCI_COMMAND_IO      0x1
#define PCI_COMMAND_MEMORY  0x2
#define PCI_HEADER_MULTIFUNCTION 0x80
#define PCI_HEADER_TYPE_MASK     0x7F
#define PCI_HEADER_TYPE_BRIDGE   0x01
#define PCI_BAR_IO          0x1
#define PCI_BAR_MEM_TYPE_64 0x4
#define PCI_BAR_MEM_TYPE_MASK 0x6
#define PCI_VENDOR_NONE     0xFFFF

#define PCI_MAX_DEVICES     64
#define PCI_MAX_BARS        6

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
