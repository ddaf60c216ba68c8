/* Buffers: DMA pages of guest RAM mapped through the GGTT at graphics addresses inside the
 * guest's ranges, and the GGTT and fence writes themselves.  A GGTT entry is
 * `guest-physical address | present` (gen9_ggtt_pte_encode, i915 gen8_ggtt_pte_encode), one
 * 8-byte write at BAR0 + 8 MiB + index * 8 (i915 gen8_set_pte), followed by a GFX_FLSH_CNTL
 * write once the batch of updates is done (i915 gen8_ggtt_invalidate).  The vGPU counts the
 * writes it refuses; the library compares that counter around its own writes so a refusal is
 * reported, never silently used. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <string.h>

#define EXT_FIELD(f)  ((uint32_t)offsetof(struct tessera_balloon_if, f))
#define FENCE_POLL_US 1000u                 /* between looks at fence_pending */
#define FENCE_WAIT_US (30u * 1000u * 1000u) /* a 32 MiB fence takes a few seconds */

static struct vgpu_alloc *gm_alloc(struct vgpu *v, enum vgpu_gm where)
{
    return where == VGPU_GM_HIGH ? &v->high : &v->low;
}

static uint32_t ggtt_off(uint32_t index)
{
    return GEN9_GGTT_BAR0_OFFSET + index * GEN9_GGTT_PTE_SIZE;
}

bool vgpu_ggtt_write(struct vgpu *v, uint32_t index, uint64_t pte)
{
    uint32_t before = vgpu_ext_read(v, EXT_FIELD(ggtt_refused));
    vgpu_write64(v, ggtt_off(index), pte);
    vgpu_write32(v, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN);
    return vgpu_ext_read(v, EXT_FIELD(ggtt_refused)) == before;
}

uint64_t vgpu_ggtt_read(struct vgpu *v, uint32_t index)
{
    return vgpu_read64(v, ggtt_off(index));
}

bool vgpu_ggtt_map(struct vgpu *v, uint64_t gm, uint64_t gpa, uint64_t size)
{
    uint32_t before = vgpu_ext_read(v, EXT_FIELD(ggtt_refused));
    uint32_t first = (uint32_t)(gm >> GEN9_GTT_PAGE_SHIFT);
    uint32_t pages = (uint32_t)((size + GEN9_GTT_PAGE_SIZE - 1) >> GEN9_GTT_PAGE_SHIFT);
    for (uint32_t i = 0; i < pages; i++)
        vgpu_write64(v, ggtt_off(first + i),
                     gen9_ggtt_pte_encode(gpa + (uint64_t)i * GEN9_GTT_PAGE_SIZE));
    vgpu_write32(v, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN);
    uint32_t after = vgpu_ext_read(v, EXT_FIELD(ggtt_refused));
    if (after != before) {
        vgpu_complain(v,
                      "GGTT: %" PRIu32 " of %" PRIu32 " writes refused mapping 0x%" PRIx64
                      "+0x%" PRIx64 " to RAM 0x%" PRIx64,
                      after - before, pages, gm, size, gpa);
        return false;
    }
    return true;
}

static bool place(struct vgpu *v, struct vgpu_bo *bo)
{
    struct vgpu_alloc *a = gm_alloc(v, bo->where);
    bool low = bo->where == VGPU_GM_LOW;
    if (!vgpu_alloc_get(a, bo->size, VGPU_PAGE, &bo->gm)) {
        vgpu_complain(v, "out of %s graphics memory for 0x%" PRIx32 " bytes%s",
                      low ? "low" : "high", bo->size,
                      low && v->follows_moves ? ": asked for more, try again later" : "");
        if (low && v->follows_moves)
            vgpu_moves_report_low(v, bo->size); /* re-placement grows the range */
        bo->gm = 0;
        return false;
    }
    if (low && v->follows_moves)
        vgpu_moves_report_low(v, 0);
    bo->epoch = v->epoch[bo->where];
    if (!vgpu_ggtt_map(v, bo->gm, bo->gpa, bo->size)) {
        vgpu_alloc_put(a, bo->gm);
        bo->gm = 0;
        return false;
    }
    return true;
}

static void unplace(struct vgpu *v, struct vgpu_bo *bo)
{
    /* A graphics address from before the allocator was rebuilt is no longer in it. */
    if (bo->gm && bo->epoch == v->epoch[bo->where])
        vgpu_alloc_put(gm_alloc(v, bo->where), bo->gm);
    bo->gm = 0;
}

/* The buffers re-placement must move (vgpu_move.c). */
static void track(struct vgpu *v, struct vgpu_bo *bo)
{
    for (unsigned i = 0; i < v->n_bos; i++)
        if (v->bos[i] == bo)
            return;
    if (v->n_bos < VGPU_BO_MAX)
        v->bos[v->n_bos++] = bo;
    else
        v->bos_lost = true;
}

static void untrack(struct vgpu *v, const struct vgpu_bo *bo)
{
    for (unsigned i = 0; i < v->n_bos; i++)
        if (v->bos[i] == bo) {
            v->bos[i] = v->bos[--v->n_bos];
            return;
        }
}

bool vgpu_bo_alloc(struct vgpu *v, struct vgpu_bo *bo, uint32_t size, enum vgpu_gm where)
{
    memset(bo, 0, sizeof *bo);
    bo->size = (size + VGPU_PAGE - 1) & ~(VGPU_PAGE - 1);
    bo->where = where;
    if (bo->size == 0 || !vgpu_alloc_get(&v->dma, bo->size, VGPU_PAGE, &bo->gpa)) {
        vgpu_complain(v, "out of DMA memory for 0x%" PRIx32 " bytes (0x%" PRIx64 " free)", bo->size,
                      vgpu_alloc_free_bytes(&v->dma));
        return false;
    }
    memset(vgpu_bo_cpu(bo), 0, bo->size);
    if (!place(v, bo)) {
        vgpu_alloc_put(&v->dma, bo->gpa);
        bo->gpa = 0;
        return false;
    }
    track(v, bo);
    return true;
}

bool vgpu_bo_replace(struct vgpu *v, struct vgpu_bo *bo)
{
    unplace(v, bo);
    return place(v, bo);
}

void vgpu_bo_free(struct vgpu *v, struct vgpu_bo *bo)
{
    untrack(v, bo);
    unplace(v, bo);
    if (bo->gpa)
        vgpu_alloc_put(&v->dma, bo->gpa);
    bo->gpa = 0;
    bo->size = 0;
}

bool vgpu_surface_alloc(struct vgpu *v, struct vgpu_surface *s, uint32_t w, uint32_t h,
                        enum vgpu_gm where)
{
    /* Rows padded to the plane's 64-byte stride unit; BR13's pitch is a signed 16-bit
     * byte count, so rows are at most 32767 bytes. */
    uint32_t pitch = (w * 4u + GEN9_PLANE_STRIDE_UNIT - 1u) & ~(GEN9_PLANE_STRIDE_UNIT - 1u);
    if (w == 0 || h == 0 || h > GEN9_BLT_COORD_MASK / 2u || w > GEN9_BR13_PITCH_MASK / 8u ||
        pitch > GEN9_BR13_PITCH_MASK / 2u) {
        vgpu_complain(v, "surface %" PRIu32 "x%" PRIu32 " is too large for the blitter", w, h);
        return false;
    }
    s->width = w;
    s->height = h;
    s->pitch = pitch;
    return vgpu_bo_alloc(v, &s->bo, pitch * h, where);
}

bool vgpu_fence_write(struct vgpu *v, uint32_t i, uint64_t value)
{
    uint32_t before = vgpu_ext_read(v, EXT_FIELD(fence_refused));
    /* One 8-byte write: the vGPU takes the whole value at once (docs/vgpu-abi.md).  A large
     * fence's work goes on after the write; the fence is in effect, or refused, once the PV
     * page's fence_pending is back to 0.  Wait for that (yielding the CPU, whose time the work
     * takes) before using the fenced range. */
    vgpu_write64(v, GEN9_FENCE_REG_LO(i), value);
    uint64_t give_up = guest_now_us() + FENCE_WAIT_US;
    while (vgpu_ext_read(v, EXT_FIELD(fence_pending)) != 0) {
        if (guest_now_us() > give_up) {
            vgpu_complain(v, "fence %" PRIu32 " still pending after %u s", i,
                          FENCE_WAIT_US / 1000000u);
            return false;
        }
        guest_sleep_us(FENCE_POLL_US);
    }
    return vgpu_ext_read(v, EXT_FIELD(fence_refused)) == before;
}

bool vgpu_fence_set(struct vgpu *v, uint32_t i, uint32_t gm, uint32_t size, uint32_t pitch,
                    bool y_tiled)
{
    return vgpu_fence_write(v, i, gen9_fence_encode(gm, size, pitch, y_tiled));
}
