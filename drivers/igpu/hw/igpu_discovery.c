/*
 * Discovery of the Gen9 iGPU from its PCI configuration space: ids, BAR sizes, GGTT size from
 * GMCH control, aperture and stolen memory. Pure: configuration space is read and written
 * through the caller's accessor (arch/x86 PCI code in the hypervisor, a fake in tests).
 *
 * Sources: PCI Local Bus Specification 3.0 section 6.2.5.1 (BAR sizing: write all ones, read
 * back, the size is the two's complement of the address bits); i915 gt/intel_ggtt.c
 * (gen8_get_total_gtt_size, gen9_get_stolen_size), i915_pciids.h (INTEL_SKL_*_IDS).
 */
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"
#include "arch/x86/pci_regs.h"

/* Skylake graphics device ids (i915 include/drm/i915_pciids.h, INTEL_SKL_GT1..GT4_IDS). */
static const uint16_t skl_ids[] = {
    0x1906, 0x1913, 0x190E, 0x1915, 0x1902, 0x190A, 0x190B, 0x1917, /* GT1, GT1.5 */
    0x1916, 0x1921, 0x191E, 0x1912, 0x191A, 0x191B, 0x191D,         /* GT2 */
    0x1923, 0x1926, 0x1927, 0x192A, 0x192B, 0x192D,                 /* GT3 */
    0x1932, 0x193A, 0x193B, 0x193D,                                 /* GT4 */
};

bool igpu_pci_id_supported(uint16_t vendor, uint16_t device)
{
    if (vendor != PCI_VENDOR_INTEL)
        return false;
    for (size_t i = 0; i < sizeof(skl_ids) / sizeof(skl_ids[0]); i++)
        if (skl_ids[i] == device)
            return true;
    return false;
}

uint64_t igpu_gmch_ggtt_size(uint16_t gmch_ctl)
{
    uint32_t ggms = (gmch_ctl >> GEN9_GMCH_GGMS_SHIFT) & GEN9_GMCH_GGMS_MASK;
    return ggms ? (uint64_t)1 << (ggms + 20u) : 0;
}

uint64_t igpu_gmch_stolen_size(uint16_t gmch_ctl)
{
    uint32_t gms = (gmch_ctl >> GEN9_GMCH_GMS_SHIFT) & GEN9_GMCH_GMS_MASK;
    if (gms < 0xF0u)
        return (uint64_t)gms << 25;            /* 32 MiB units */
    return (uint64_t)(gms - 0xF0u + 1u) << 22; /* 4 MiB units from 4 MiB */
}

uint64_t igpu_bdsm_base(uint32_t bdsm)
{
    return bdsm & GEN9_BDSM_MASK;
}

uint64_t igpu_bar_size_from_probe(uint32_t lo_readback, uint32_t hi_readback)
{
    uint64_t mask = ((uint64_t)hi_readback << 32) | (lo_readback & ~PCI_BAR_MEM_FLAGS);
    if ((lo_readback & ~PCI_BAR_MEM_FLAGS) == 0 && hi_readback == 0)
        return 0; /* BAR not implemented */
    return ~mask + 1u;
}

/* Size a 64-bit memory BAR at off; restores the original value. */
static int size_bar64(const struct igpu_pci_cfg *cfg, uint16_t off, uint64_t *base, uint64_t *size)
{
    uint32_t lo = cfg->read32(cfg->ctx, off);
    uint32_t hi, lo_rb, hi_rb;

    if ((lo & PCI_BAR_IO) || (lo & PCI_BAR_MEM_TYPE_MASK) != PCI_BAR_MEM_TYPE_64)
        return IGPU_EINVAL; /* Gen9 BAR0 and BAR2 are 64-bit memory */
    hi = cfg->read32(cfg->ctx, (uint16_t)(off + PCI_BAR_STRIDE));
    cfg->write32(cfg->ctx, off, 0xFFFFFFFFu);
    cfg->write32(cfg->ctx, (uint16_t)(off + PCI_BAR_STRIDE), 0xFFFFFFFFu);
    lo_rb = cfg->read32(cfg->ctx, off);
    hi_rb = cfg->read32(cfg->ctx, (uint16_t)(off + PCI_BAR_STRIDE));
    cfg->write32(cfg->ctx, off, lo);
    cfg->write32(cfg->ctx, (uint16_t)(off + PCI_BAR_STRIDE), hi);
    *base = ((uint64_t)hi << 32) | (lo & ~PCI_BAR_MEM_FLAGS);
    *size = igpu_bar_size_from_probe(lo_rb, hi_rb);
    return *size ? IGPU_OK : IGPU_EINVAL;
}

int igpu_discover(const struct igpu_pci_cfg *cfg, struct igpu_info *out)
{
    uint32_t id, cmd;
    int rc;

    if (!cfg || !cfg->read32 || !cfg->write32 || !out)
        return IGPU_EINVAL;
    *out = (struct igpu_info){ 0 };
    id = cfg->read32(cfg->ctx, PCI_VENDOR_ID);
    out->vendor = (uint16_t)id;
    out->device = (uint16_t)(id >> 16);
    out->revision = (uint8_t)cfg->read32(cfg->ctx, PCI_CLASS_REVISION);
    if (!igpu_pci_id_supported(out->vendor, out->device))
        return IGPU_ENODEV;

    /* Memory decoding stays off while the BARs hold all ones, so the device never answers at
     * a bogus address in between. */
    cmd = cfg->read32(cfg->ctx, PCI_COMMAND);
    cfg->write32(cfg->ctx, PCI_COMMAND, cmd & 0xFFFFu & ~PCI_COMMAND_MEMORY);
    rc = size_bar64(cfg, PCI_BAR_OFFSET(GEN9_PCI_BAR_GTTMMADR), &out->bar0_base, &out->bar0_size);
    if (rc == IGPU_OK)
        rc = size_bar64(cfg, PCI_BAR_OFFSET(GEN9_PCI_BAR_GMADR), &out->bar2_base, &out->bar2_size);
    cfg->write32(cfg->ctx, PCI_COMMAND, cmd & 0xFFFFu);
    if (rc != IGPU_OK)
        return rc;
    if (out->bar0_size < GEN9_GTTMMADR_SIZE)
        return IGPU_EINVAL;

    out->gmch_ctl = (uint16_t)cfg->read32(cfg->ctx, GEN9_PCI_GMCH_CTRL);
    out->bdsm = cfg->read32(cfg->ctx, GEN9_PCI_BDSM);
    out->ggtt_size = igpu_gmch_ggtt_size(out->gmch_ctl);
    if (out->ggtt_size == 0 || out->ggtt_size > GEN9_GGTT_MAX_SIZE)
        return IGPU_EINVAL;
    out->ggtt_entries = (uint32_t)(out->ggtt_size / GEN9_GGTT_PTE_SIZE);
    out->gm_size = (uint64_t)out->ggtt_entries << GEN9_GTT_PAGE_SHIFT;
    out->aperture_size = out->bar2_size;
    out->stolen_base = igpu_bdsm_base(out->bdsm);
    out->stolen_size = igpu_gmch_stolen_size(out->gmch_ctl);
    out->timestamp_hz = 0; /* a register fact: igpu_hw_init() reads it from CTC_MODE */
    return IGPU_OK;
}
