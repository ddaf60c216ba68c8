#include "arch/x86/pci.h"

#include "arch/x86/cpu.h"

static struct pci_device devices[PCI_MAX_DEVICES];
static unsigned n_devices;
static bool scanned;

static uint32_t address(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
    return PCI_CONFIG_ENABLE | (uint32_t)bus << PCI_CONFIG_ADDR_BUS_SHIFT |
           (uint32_t)(dev & PCI_CONFIG_ADDR_DEV_MASK) << PCI_CONFIG_ADDR_DEV_SHIFT |
           (uint32_t)(fn & PCI_CONFIG_ADDR_FN_MASK) << PCI_CONFIG_ADDR_FN_SHIFT |
           (off & PCI_CONFIG_ADDR_REG_MASK);
}

uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
    outl(PCI_CONFIG_ADDRESS, address(bus, dev, fn, off));
    return inl(PCI_CONFIG_DATA);
}

uint16_t pci_read16(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
    return (uint16_t)(pci_read32(bus, dev, fn, off) >> ((off & 2) * 8));
}

uint8_t pci_read8(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
    return (uint8_t)(pci_read32(bus, dev, fn, off) >> ((off & 3) * 8));
}

void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off, uint32_t v)
{
    outl(PCI_CONFIG_ADDRESS, address(bus, dev, fn, off));
    outl(PCI_CONFIG_DATA, v);
}

/* BAR sizing (PCI spec §6.2.5.1): write all ones, read back the mask, restore.  Decoding is off
 * meanwhile so the device never answers at the probe address. */
static unsigned size_bars(struct pci_device *d)
{
    bool bridge = (d->header_type & PCI_HEADER_TYPE_MASK) == PCI_HEADER_TYPE_BRIDGE;
    unsigned n_bars = bridge ? PCI_BRIDGE_BARS : PCI_MAX_BARS;
    uint16_t cmd = pci_read16(d->bus, d->dev, d->fn, PCI_COMMAND);
    uint32_t cmd_dword = pci_read32(d->bus, d->dev, d->fn, PCI_COMMAND);
    pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
                cmd_dword & ~(uint32_t)(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
    for (unsigned i = 0; i < n_bars; i++) {
        uint8_t off = (uint8_t)PCI_BAR_OFFSET(i);
        uint32_t orig = pci_read32(d->bus, d->dev, d->fn, off);
        pci_write32(d->bus, d->dev, d->fn, off, 0xFFFFFFFFu);
        uint32_t mask = pci_read32(d->bus, d->dev, d->fn, off);
        pci_write32(d->bus, d->dev, d->fn, off, orig);
        struct pci_bar *b = &d->bars[i];
        if (!mask || mask == 0xFFFFFFFFu)
            continue;
        if (orig & PCI_BAR_IO) {
            b->io = true;
            b->base = orig & ~PCI_BAR_IO_FLAGS;
            b->size = (uint16_t)(~(mask & ~PCI_BAR_IO_FLAGS) + 1);
            continue;
        }
        b->prefetchable = orig & PCI_BAR_MEM_PREFETCH;
        uint64_t base = orig & ~PCI_BAR_MEM_FLAGS, m = mask & ~PCI_BAR_MEM_FLAGS;
        if ((orig & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64 && i + 1 < n_bars) {
            uint8_t hi_off = off + PCI_BAR_STRIDE;
            uint32_t orig_hi = pci_read32(d->bus, d->dev, d->fn, hi_off);
            pci_write32(d->bus, d->dev, d->fn, hi_off, 0xFFFFFFFFu);
            uint32_t mask_hi = pci_read32(d->bus, d->dev, d->fn, hi_off);
            pci_write32(d->bus, d->dev, d->fn, hi_off, orig_hi);
            base |= (uint64_t)orig_hi << 32;
            m |= (uint64_t)mask_hi << 32;
            b->is64 = true;
            b->base = base;
            b->size = ~m + 1;
            i++; /* the upper half is not a BAR of its own */
        } else {
            b->base = base;
            b->size = (uint32_t)(~(uint32_t)m + 1);
        }
    }
    pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND, (cmd_dword & 0xFFFF0000u) | cmd);
    return n_bars;
}

static void add_function(uint8_t bus, uint8_t dev, uint8_t fn)
{
    if (n_devices == PCI_MAX_DEVICES)
        return;
    struct pci_device *d = &devices[n_devices++];
    uint32_t cr = pci_read32(bus, dev, fn, PCI_CLASS_REVISION);
    *d = (struct pci_device){
        .bus = bus,
        .dev = dev,
        .fn = fn,
        .vendor = pci_read16(bus, dev, fn, PCI_VENDOR_ID),
        .device = pci_read16(bus, dev, fn, PCI_DEVICE_ID),
        .class_code = cr >> 24,
        .subclass = (cr >> 16) & 0xFF,
        .prog_if = (cr >> 8) & 0xFF,
        .revision = cr & 0xFF,
        .header_type = pci_read8(bus, dev, fn, PCI_HEADER_TYPE),
    };
    size_bars(d);
}

unsigned pci_scan(void)
{
    if (scanned)
        return n_devices;
    scanned = true;
    /* Brute force over all buses: simple, and it finds devices behind any bridge layout. */
    for (unsigned bus = 0; bus < PCI_BUSES; bus++) {
        for (uint8_t dev = 0; dev < PCI_DEVICES_PER_BUS; dev++) {
            if (pci_read16(bus, dev, 0, PCI_VENDOR_ID) == PCI_VENDOR_NONE)
                continue;
            bool multi = pci_read8(bus, dev, 0, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNCTION;
            uint8_t fns = multi ? PCI_FUNCTIONS_PER_DEVICE : 1;
            for (uint8_t fn = 0; fn < fns; fn++)
                if (pci_read16(bus, dev, fn, PCI_VENDOR_ID) != PCI_VENDOR_NONE)
                    add_function(bus, dev, fn);
        }
    }
    return n_devices;
}

unsigned pci_count(void)
{
    return n_devices;
}
const struct pci_device *pci_get(unsigned i)
{
    return i < n_devices ? &devices[i] : 0;
}

const struct pci_device *pci_find(uint8_t bus, uint8_t dev, uint8_t fn)
{
    for (unsigned i = 0; i < n_devices; i++)
        if (devices[i].bus == bus && devices[i].dev == dev && devices[i].fn == fn)
            return &devices[i];
    return 0;
}

/* Base class / subclass codes (PCI Code and ID Assignment Specification §1). */
const char *pci_class_name(uint8_t class_code, uint8_t subclass)
{
    switch (class_code << 8 | subclass) {
    case 0x0100:
        return "SCSI";
    case 0x0101:
        return "IDE";
    case 0x0106:
        return "SATA";
    case 0x0200:
        return "Ethernet";
    case 0x0300:
        return "VGA";
    case 0x0380:
        return "display";
    case 0x0600:
        return "host bridge";
    case 0x0601:
        return "ISA bridge";
    case 0x0604:
        return "PCI bridge";
    case 0x0680:
        return "bridge";
    case 0x0C03:
        return "USB";
    case 0x0C05:
        return "SMBus";
    }
    return class_code == PCI_BASE_CLASS_BRIDGE ? "bridge" : "device";
}
