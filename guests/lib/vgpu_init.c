/* Bringing the vGPU up, in the order i915 does under GVT-g: PCI, BAR0, the PV info page
 * (i915_vgpu.c intel_vgpu_detect: magic and version 1.0; vgt_balloon_space: avail_rs), then
 * forcewake, execlist mode on the blitter and the submission structures. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FORCEWAKE_TIMEOUT_US 50000u /* i915 waits 50 ms for a forcewake ack */

void vgpu_complain(const struct vgpu *v, const char *fmt, ...)
{
    char line[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("%s: vgpu: %s\n", v->name, line);
}

uint32_t vgpu_read32(const struct vgpu *v, uint32_t off)
{
    return vgpu_mmio_rd32(v->mmio + off);
}
uint64_t vgpu_read64(const struct vgpu *v, uint32_t off)
{
    return vgpu_mmio_rd64(v->mmio + off);
}
void vgpu_write32(const struct vgpu *v, uint32_t off, uint32_t val)
{
    vgpu_mmio_wr32(v->mmio + off, val);
}
void vgpu_write64(const struct vgpu *v, uint32_t off, uint64_t val)
{
    vgpu_mmio_wr64(v->mmio + off, val);
}

uint32_t vgpu_ext_read(const struct vgpu *v, uint32_t ext_field_offset)
{
    return vgpu_read32(v, VGT_PVINFO_PAGE + (uint32_t)TESSERA_BALLOON_OFFSET + ext_field_offset);
}

/* The top `bytes` of RAM become the DMA pool; malloc keeps the rest. */
static bool dma_init(struct vgpu *v, uint64_t bytes)
{
    if (bytes == 0)
        bytes = v->ram_bytes / 2;
    uint64_t base = (v->ram_bytes - bytes) & ~(uint64_t)(VGPU_PAGE - 1);
    if (bytes >= v->ram_bytes || !guest_heap_limit((uintptr_t)base)) {
        vgpu_complain(v, "cannot keep 0x%" PRIx64 " bytes of RAM away from malloc", bytes);
        return false;
    }
    vgpu_alloc_init(&v->dma, base, v->ram_bytes - base);
    return true;
}

static bool pv_check(struct vgpu *v)
{
    uint64_t magic = vgpu_read64(v, VGPU_PV(magic));
    if (magic != VGT_MAGIC) {
        vgpu_complain(v, "no PV info page at BAR0+0x%x (magic 0x%" PRIx64 ")", VGT_PVINFO_PAGE,
                      magic);
        return false;
    }
    uint32_t ver = vgpu_read32(v, VGPU_PV(version_major));
    unsigned major = ver & 0xFFFFu, minor = ver >> 16;
    if (major != VGT_VERSION_MAJOR || minor != VGT_VERSION_MINOR) {
        vgpu_complain(v, "PV info version %u.%u, want %u.%u", major, minor, VGT_VERSION_MAJOR,
                      VGT_VERSION_MINOR);
        return false;
    }
    v->vgt_id = vgpu_read32(v, VGPU_PV(vgt_id));
    uint32_t ext = vgpu_ext_read(v, offsetof(struct tessera_balloon_if, magic));
    if (ext != TESSERA_BALLOON_MAGIC) {
        vgpu_complain(v, "no Tessera extension in the PV page (magic 0x%08" PRIx32 ")", ext);
        return false;
    }
    vgpu_refresh_ranges(v, true);
    if (v->low_size < 16u * VGPU_PAGE) {
        vgpu_complain(v,
                      "avail_rs gives no usable low graphics memory (0x%" PRIx64 "+0x%" PRIx64 ")",
                      v->low_base, v->low_size);
        return false;
    }
    return true;
}

static bool tile_size(struct vgpu *v)
{
    uint32_t src = vgpu_read32(v, GEN9_PIPESRC_A);
    if (src == 0) {
        vgpu_complain(v, "PIPESRC_A reads 0: no tile on the wall");
        return false;
    }
    v->tile_w = (src >> GEN9_PIPESRC_WIDTH_SHIFT) + 1;
    v->tile_h = (src & ((1u << GEN9_PIPESRC_WIDTH_SHIFT) - 1u)) + 1;
    return true;
}

/* i915 fw_domain_get / wait_ack: masked set of the kernel bit, poll the ack register. */
static bool forcewake_gt(struct vgpu *v)
{
    vgpu_write32(v, GEN9_FORCEWAKE_GT, GEN9_MASKED_BIT_ENABLE(GEN9_FORCEWAKE_KERNEL));
    uint64_t deadline = guest_now_us() + FORCEWAKE_TIMEOUT_US;
    while (!(vgpu_read32(v, GEN9_FORCEWAKE_ACK_GT) & GEN9_FORCEWAKE_KERNEL)) {
        if (guest_now_us() > deadline) {
            vgpu_complain(v, "GT forcewake not acknowledged");
            return false;
        }
        guest_sleep_us(10);
    }
    return true;
}

bool vgpu_init(struct vgpu *v, const struct tessera_boot_info *boot, const char *name,
               uint64_t dma_bytes)
{
    memset(v, 0, sizeof *v);
    v->name = name;
    v->ram_bytes = boot->ram_bytes;
    v->next_seqno = 1;
    v->max_inflight = VGPU_MAX_INFLIGHT;
    if (!dma_init(v, dma_bytes) || !vgpu_pci_probe(v))
        return false;
    if (!guest_map_uncached(v->bar0, GEN9_GTTMMADR_SIZE)) {
        vgpu_complain(v, "cannot map BAR0 at 0x%" PRIx64, v->bar0);
        return false;
    }
    v->mmio = (volatile uint8_t *)(uintptr_t)v->bar0;
    if (!pv_check(v) || !tile_size(v) || !forcewake_gt(v))
        return false;
    /* Execlists on the blitter (i915 intel_engine_init_execlists / enable_execlists). */
    vgpu_write32(v, GEN9_RING_MODE(GEN9_BCS_BASE),
                 GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    return vgpu_ring_init(v);
}

void vgpu_print_ready(const struct vgpu *v)
{
    printf("%s: vgpu ready tile %" PRIu32 "x%" PRIu32 " low 0x%" PRIx64 "+0x%" PRIx64
           " high 0x%" PRIx64 "+0x%" PRIx64 "\n",
           v->name, v->tile_w, v->tile_h, v->low_base, v->low_size, v->high_base, v->high_size);
}

bool vgpu_gm_owned(const struct vgpu *v, uint64_t gm, uint64_t size)
{
    if (size == 0)
        return false;
    return (gm >= v->low_base && size <= v->low_size && gm - v->low_base <= v->low_size - size) ||
           (gm >= v->high_base && size <= v->high_size && gm - v->high_base <= v->high_size - size);
}
