/* Guest fence writes and the fence memory pool (gScale §4.2, Figure 8).
 *
 * With ladder mapping the guest's aperture pages are mapped straight to its RAM, so a fence
 * (which de-tiles CPU accesses through the real aperture) would describe graphics addresses the
 * CPU no longer goes through.  For each valid guest fence we therefore take an equal range of
 * the pool, copy the guest's GGTT entries for the fenced range there, point the guest's EPT for
 * that range at the pool's aperture pages, and program a physical fence register with the pool
 * range and the guest's own pitch and tiling.  A rewrite (or reset) undoes all of it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

#define PAGE GTT_PAGE_BYTES

/* Physical fence registers in use are kept in a 32-bit mask (struct gtt.phys_fence_busy). */
_Static_assert(GEN9_FENCE_COUNT <= 32, "phys_fence_busy is a 32-bit mask");

uint64_t gtt_fence_encode(uint64_t start, uint64_t size, uint32_t pitch_bytes, bool tiled_y,
                          bool valid)
{
    uint64_t v = start & GEN9_FENCE_START_MASK;
    uint64_t last = (start + size - PAGE) & GEN9_FENCE_START_MASK;   /* address of the last page */
    v |= (last << GEN9_FENCE_END_SHIFT) & GEN9_FENCE_END_MASK;
    uint64_t p = pitch_bytes / GEN9_FENCE_PITCH_UNIT;
    if (p)
        v |= ((p - 1) << GEN9_FENCE_PITCH_SHIFT) & GEN9_FENCE_PITCH_MASK;
    if (tiled_y)
        v |= GEN9_FENCE_TILING_Y;
    if (valid)
        v |= GEN9_FENCE_VALID;
    return v;
}

int gtt_fence_decode(uint64_t value, struct gtt_fence_fields *f)
{
    uint64_t start = value & GEN9_FENCE_START_MASK;
    uint64_t end = (value & GEN9_FENCE_END_MASK) >> GEN9_FENCE_END_SHIFT;
    f->valid = value & GEN9_FENCE_VALID;
    f->tiled_y = value & GEN9_FENCE_TILING_Y;
    f->pitch_bytes = (uint32_t)((((value & GEN9_FENCE_PITCH_MASK) >> GEN9_FENCE_PITCH_SHIFT) + 1) *
                                GEN9_FENCE_PITCH_UNIT);
    f->start = start;
    if (end < start) {
        f->size = 0;
        return GTT_EINVAL;
    }
    f->size = end - start + PAGE;
    return 0;
}

struct gtt_vfence *gtt_fence_covering(struct gtt_vgpu *v, uint64_t addr)
{
    for (unsigned i = 0; i < v->n_fences; i++) {
        struct gtt_vfence *f = &v->fence[i];
        if (f->pooled && addr >= f->guest.start && addr - f->guest.start < f->guest.size)
            return f;
    }
    return NULL;
}

/* Undoes one pooled fence: ladder mappings back, pool entries scrubbed, range and register
 * returned.  Returns the physical register it used. */
static unsigned fence_release(struct gtt *g, struct gtt_vgpu *v, struct gtt_vfence *f)
{
    uint32_t n = gtt_page_of(f->guest.size);
    uint32_t lo = gtt_page_of(v->low.start);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t addr = f->guest.start + (uint64_t)k * PAGE;
        uint32_t w = gtt_page_of(addr) - lo;
        if (v->low_guest[w] & GEN9_GGTT_PTE_PRESENT)
            gtt_emit_ept(g, v->id, addr, GTT_EPT_MAP_RAM,
                         v->low_host[w] & GEN9_GGTT_PTE_ADDR_MASK);
        else
            gtt_emit_ept(g, v->id, addr, GTT_EPT_UNMAP, 0);
        gtt_phys_set(g, gtt_page_of(f->pool_start) + k, g->scratch_pte, GTT_NO_VGPU);
    }
    g->st.entries_scrub += n;
    gtt_pool_free(&g->pool, f->pool_start);
    g->phys_fence_busy &= ~(1u << f->phys_reg);
    f->pooled = false;
    return f->phys_reg;
}

void gtt_fences_release_all(struct gtt *g, struct gtt_vgpu *v, uint32_t *disable_regs)
{
    for (unsigned i = 0; i < v->n_fences; i++) {
        if (v->fence[i].pooled) {
            unsigned r = fence_release(g, v, &v->fence[i]);
            if (disable_regs)
                *disable_regs |= 1u << r;
        }
        v->fence[i].guest_value = 0;
    }
}

static int refuse(struct gtt *g, struct gtt_vgpu *v, int rc, char *err, size_t errlen,
                  const char *msg)
{
    v->st.fence_refused++;
    g->st.fence_refused++;
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return rc;
}

static int fence_write(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value,
                       struct gtt_fence_result *res, char *err, size_t errlen)
{
    char msg[256];
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!v || !res)
        return GTT_ENOENT;
    memset(res, 0, sizeof *res);
    v->st.fence_writes++;
    if (fence >= v->n_fences) {
        snprintf(msg, sizeof msg, "fence %u: vGPU %u has %u fence registers", fence, vgpu,
                 v->n_fences);
        return refuse(g, v, GTT_ERANGE, err, errlen, msg);
    }
    struct gtt_vfence *f = &v->fence[fence];
    int had_reg = -1;
    if (f->pooled)
        had_reg = (int)fence_release(g, v, f);
    f->guest_value = value;
    /* Whatever happens next, the old register no longer describes a pool range. */
    if (had_reg >= 0) {
        res->program_old = true;
        res->old_reg = (unsigned)had_reg;
    }

    struct gtt_fence_fields ff;
    int rc = gtt_fence_decode(value, &ff);
    if (!ff.valid)
        return 0;
    if (rc) {
        snprintf(msg, sizeof msg, "fence %u of vGPU %u: end page below start 0x%" PRIx64, fence,
                 vgpu, ff.start);
        return refuse(g, v, GTT_EINVAL, err, errlen, msg);
    }
    /* The physical fence gets the guest's pitch and tiling over an equal pool range: its
     * de-tiling must stay inside that range, or the guest reads and writes whatever lies
     * behind it in the pool (another guest's fenced pages) or in low GM. */
    if (!gen9_fence_shape_ok(ff.size, ff.pitch_bytes, ff.tiled_y)) {
        snprintf(msg, sizeof msg,
                 "fence %u of vGPU %u: %" PRIu64 " KiB %s-tiled with a %u-byte pitch is not a "
                 "whole number of tile rows (pitch a multiple of %u, size of %" PRIu64 " bytes)",
                 fence, vgpu, ff.size / 1024, ff.tiled_y ? "Y" : "X", ff.pitch_bytes,
                 ff.tiled_y ? GEN9_TILE_Y_WIDTH : GEN9_TILE_X_WIDTH,
                 gen9_fence_tile_row_bytes(ff.pitch_bytes, ff.tiled_y));
        return refuse(g, v, GTT_EINVAL, err, errlen, msg);
    }
    if (ff.start < v->low.start || ff.start + ff.size > v->low.start + v->low.size) {
        snprintf(msg, sizeof msg,
                 "fence %u of vGPU %u: range 0x%" PRIx64 "+0x%" PRIx64
                 " is outside its aperture window 0x%" PRIx64 "+0x%" PRIx64,
                 fence, vgpu, ff.start, ff.size, v->low.start, v->low.size);
        return refuse(g, v, GTT_ERANGE, err, errlen, msg);
    }
    for (unsigned i = 0; i < v->n_fences; i++) {
        const struct gtt_vfence *o = &v->fence[i];
        if (i != fence && o->pooled && ff.start < o->guest.start + o->guest.size &&
            o->guest.start < ff.start + ff.size) {
            snprintf(msg, sizeof msg, "fence %u of vGPU %u overlaps its fence %u", fence, vgpu,
                     i);
            return refuse(g, v, GTT_EINVAL, err, errlen, msg);
        }
    }
    uint64_t pool_start;
    if (gtt_pool_alloc(&g->pool, ff.size, &pool_start) != 0) {
        snprintf(msg, sizeof msg,
                 "fence pool full: fence %u of vGPU %u needs %" PRIu64 " KiB, largest free "
                 "range is %" PRIu64 " KiB (%" PRIu64 " of %" PRIu64 " KiB free)",
                 fence, vgpu, ff.size / 1024, gtt_pool_largest_free(&g->pool) / 1024,
                 (g->pool.size - gtt_pool_used(&g->pool)) / 1024, g->pool.size / 1024);
        return refuse(g, v, GTT_EFULL, err, errlen, msg);
    }
    unsigned reg;
    if (had_reg >= 0 && !(g->phys_fence_busy & (1u << had_reg))) {
        reg = (unsigned)had_reg;
    } else {
        for (reg = 0; reg < GEN9_FENCE_COUNT; reg++)
            if (!(g->phys_fence_busy & (1u << reg)))
                break;
    }
    if (reg == GEN9_FENCE_COUNT) {
        gtt_pool_free(&g->pool, pool_start);
        snprintf(msg, sizeof msg,
                 "no free physical fence register for fence %u of vGPU %u (%u registers, %u "
                 "kept for the host)",
                 fence, vgpu, GEN9_FENCE_COUNT, g->host_fences);
        return refuse(g, v, GTT_EFULL, err, errlen, msg);
    }
    g->phys_fence_busy |= 1u << reg;

    /* Copy the guest's entries into the pool and remap its CPU view of the range. */
    uint32_t n = gtt_page_of(ff.size);
    uint32_t w0 = gtt_page_of(ff.start - v->low.start);
    for (uint32_t k = 0; k < n; k++) {
        gtt_phys_set(g, gtt_page_of(pool_start) + k, v->low_host[w0 + k], (uint16_t)vgpu);
        gtt_emit_ept(g, vgpu, ff.start + (uint64_t)k * PAGE, GTT_EPT_MAP_APERTURE,
                     pool_start + (uint64_t)k * PAGE);
    }
    g->st.entries_fence += n;
    f->pooled = true;
    f->guest = (struct gtt_range){ff.start, ff.size};
    f->pool_start = pool_start;
    f->phys_reg = reg;

    res->program = true;
    res->phys_reg = reg;
    res->phys_value = gtt_fence_encode(pool_start, ff.size, 0, false, false) |
                      (value & (GEN9_FENCE_PITCH_MASK | GEN9_FENCE_TILING_Y | GEN9_FENCE_VALID));
    if (res->program_old && res->old_reg == reg)
        res->program_old = false;   /* the same register is reprogrammed */
    return 0;
}

int gtt_fence_write(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value,
                    struct gtt_fence_result *res, char *err, size_t errlen)
{
    int rc = fence_write(g, vgpu, fence, value, res, err, errlen);
    return g ? (int)gtt_done(g, rc) : rc;
}
