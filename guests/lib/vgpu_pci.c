/* PCI configuration mechanism #1 (0xCF8 address, 0xCFC data; PCI Local Bus Specification 3.0
 * section 3.2.2.3.2) for the vGPU driver, and discovery of 00:02.0 with the same pure code the
 * hypervisor uses for the real iGPU (drivers/igpu/hw/igpu_discovery.c): id check, BAR sizing
 * with decoding off, GMCH control. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"
#include "guests/lib/x86.h"

#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"
#include "arch/x86/pci_regs.h"

#include <inttypes.h>

#define VGPU_FN 0

static void select_reg(unsigned dev, unsigned fn, unsigned off)
{
    x86_outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | dev << PCI_CONFIG_ADDR_DEV_SHIFT |
                                     fn << PCI_CONFIG_ADDR_FN_SHIFT |
                                     (off & PCI_CONFIG_ADDR_REG_MASK));
}

uint32_t vgpu_pci_read32(unsigned dev, unsigned fn, unsigned off)
{
    select_reg(dev, fn, off);
    return x86_inl(PCI_CONFIG_DATA);
}

void vgpu_pci_write32(unsigned dev, unsigned fn, unsigned off, uint32_t val)
{
    select_reg(dev, fn, off);
    x86_outl(PCI_CONFIG_DATA, val);
}

static uint32_t cfg_read(void *ctx, uint16_t off)
{
    (void)ctx;
    return vgpu_pci_read32(GEN9_PCI_DEV, VGPU_FN, off);
}

static void cfg_write(void *ctx, uint16_t off, uint32_t val)
{
    (void)ctx;
    vgpu_pci_write32(GEN9_PCI_DEV, VGPU_FN, off, val);
}

bool vgpu_pci_probe(struct vgpu *v)
{
    uint32_t id = vgpu_pci_read32(GEN9_PCI_DEV, VGPU_FN, PCI_VENDOR_ID);
    if ((id & 0xFFFFu) == PCI_VENDOR_NONE) {
        vgpu_complain(v, "no device at 00:02.0");
        return false;
    }
    struct igpu_pci_cfg cfg = { .read32 = cfg_read, .write32 = cfg_write, .ctx = NULL };
    struct igpu_info info;
    int rc = igpu_discover(&cfg, &info);
    if (rc != IGPU_OK) {
        vgpu_complain(v, "00:02.0 (%04" PRIx32 ":%04" PRIx32 ") is not a usable Gen9 GPU: %s",
                      id & 0xFFFFu, id >> 16, igpu_strerror(rc));
        return false;
    }
    v->device = info.device;
    v->bar0 = info.bar0_base;
    v->bar2 = info.bar2_base;
    v->bar2_size = info.bar2_size;
    if (v->bar0 == 0 || v->bar0 < v->ram_bytes) {
        vgpu_complain(v, "BAR0 at 0x%" PRIx64 " overlaps guest RAM", v->bar0);
        return false;
    }
    /* Memory decoding on (and bus mastering, as a driver of a DMA device sets it). */
    uint32_t cmd = vgpu_pci_read32(GEN9_PCI_DEV, VGPU_FN, PCI_COMMAND);
    vgpu_pci_write32(GEN9_PCI_DEV, VGPU_FN, PCI_COMMAND,
                     (cmd & 0xFFFFu) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    if (!(vgpu_pci_read32(GEN9_PCI_DEV, VGPU_FN, PCI_COMMAND) & PCI_COMMAND_MEMORY)) {
        vgpu_complain(v, "00:02.0 does not keep memory decoding enabled");
        return false;
    }
    return true;
}
