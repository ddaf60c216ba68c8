/* Guest fence writes and the fence memory pool (gScale §4.2, Figure 8).
 *
 * With ladder mapping the guest's aperture pages are mapped straight to its RAM, so a fence
 * (which de-tiles CPU accesses through the real aperture) would describe graphics addresses the
 * CPU no longer goes through.  For each valid guest fence we therefore take an equal range of
 * the pool, copy the guest's GGTT entries for the fenced range there, point the guest's EPT for
 * that range at the pool's aperture pages, and program a physical fence register with the pool
 * range and the guest's own pitch and tiling.  A rewrite (or reset) undoes all of it.
 *
 * Two things keep one guest's fences from costing the others:
 *  - each vGPU's fences come from its own share of the pool (gtt_vgpu_spec.fence_pool_bytes,
 *    default the fair split), so no guest can take the pool from another;
 *  - the work is done in bounded steps (gtt_fence_work), page by page: a 32 MiB fence is 8192
 *    pool copies and EPT remaps, far too much for one VM exit.  Between steps the fence is
 *    partly applied: its first `mapped` pages go through the pool, the rest are still
 *    ladder-mapped.  Either way a page shows only the guest's own memory; only the de-tiling
 *    of the later pages is not there yet (docs/gtt.md "Fences in steps"). */
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
    uint64_t last = (start + size - PAGE) & GEN9_FENCE_START_MASK; /* address of the last page */
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

static uint32_t pages_of(const struct gtt_vfence *f)
{
    return gtt_page_of(f->guest.size);
}

struct gtt_vfence *gtt_fence_covering(struct gtt_vgpu *v, uint64_t addr)
{
    for (unsigned i = 0; i < v->n_fences; i++) {
        struct gtt_vfence *f = &v->fence[i];
        if (f->pooled && addr >= f->guest.start &&
            addr - f->guest.start < (uint64_t)f->mapped * PAGE)
            return f;
    }
    return NULL;
}

/* Page k of a pooled fence back to the ladder mapping; its pool entry scrubbed. */
static void unmap_page(struct gtt *g, struct gtt_vgpu *v, const struct gtt_vfence *f, uint32_t k)
{
    uint64_t addr = f->guest.start + (uint64_t)k * PAGE;
    uint32_t w = gtt_page_of(addr) - gtt_page_of(v->low.start);
    if (v->low_guest[w] & GEN9_GGTT_PTE_PRESENT)
        gtt_emit_ept(g, v->id, addr, GTT_EPT_MAP_RAM, v->low_host[w] & GEN9_GGTT_PTE_ADDR_MASK);
    else
        gtt_emit_ept(g, v->id, addr, GTT_EPT_UNMAP, 0);
    gtt_phys_set(g, gtt_page_of(f->pool_start) + k, g->scratch_pte, GTT_NO_VGPU);
    g->st.entries_scrub++;
}

/* Page k of a pooled fence through the pool: a copy of the guest's entry, and the guest's CPU
 * view of the page remapped to the pool's aperture page. */
static void map_page(struct gtt *g, struct gtt_vgpu *v, const struct gtt_vfence *f, uint32_t k)
{
    uint64_t addr = f->guest.start + (uint64_t)k * PAGE;
    uint32_t w = gtt_page_of(addr) - gtt_page_of(v->low.start);
    gtt_phys_set(g, gtt_page_of(f->pool_start) + k, v->low_host[w], (uint16_t)v->id);
    gtt_emit_ept(g, v->id, addr, GTT_EPT_MAP_APERTURE, f->pool_start + (uint64_t)k * PAGE);
    g->st.entries_fence++;
}

/* Gives the range and the register back once no page goes through the pool any more. */
static void free_range(struct gtt *g, struct gtt_vgpu *v, struct gtt_vfence *f,
                       struct gtt_fence_result *res)
{
    gtt_pool_free(&v->pool, f->pool_start);
    g->phys_fence_busy &= ~(1u << f->phys_reg);
    f->pooled = false;
    if (res) {
        res->program_old = true;
        res->old_reg = f->phys_reg;
    }
}

/* Unmaps up to budget pages, last first; frees the range when none is left.  Returns pages. */
static uint32_t release_step(struct gtt *g, struct gtt_vgpu *v, struct gtt_vfence *f,
                             uint32_t budget, struct gtt_fence_result *res)
{
    uint32_t done = 0;
    for (; f->mapped > 0 && done < budget; done++)
        unmap_page(g, v, f, --f->mapped);
    if (f->mapped == 0)
        free_range(g, v, f, res);
    return done;
}

void gtt_fences_release_all(struct gtt *g, struct gtt_vgpu *v, uint32_t *disable_regs)
{
    for (unsigned i = 0; i < v->n_fences; i++) {
        struct gtt_vfence *f = &v->fence[i];
        if (f->pooled) {
            v->st.fence_pages += release_step(g, v, f, UINT32_MAX, NULL);
            if (disable_regs)
                *disable_regs |= 1u << f->phys_reg;
        }
        f->guest_value = f->applied = 0;
        f->pending = f->refused = false;
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

/* The range another fence of v is to hold: what the guest last wrote, unless refused. */
static bool target_range(const struct gtt_vfence *o, struct gtt_range *r)
{
    struct gtt_fence_fields ff;
    if (o->refused || gtt_fence_decode(o->guest_value, &ff) != 0 || !ff.valid)
        return false;
    *r = (struct gtt_range){ ff.start, ff.size };
    return true;
}

/* Checks the guest's value and takes a range of its share and a register for it; the pages are
 * mapped afterwards.  On refusal the fence stays disabled. */
static int setup_begin(struct gtt *g, struct gtt_vgpu *v, unsigned fence, struct gtt_vfence *f,
                       struct gtt_fence_result *res, char *err, size_t errlen)
{
    char msg[256];
    unsigned vgpu = v->id;
    struct gtt_fence_fields ff;
    int rc = gtt_fence_decode(f->guest_value, &ff);
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
        struct gtt_range o;
        if (i != fence && target_range(&v->fence[i], &o) && ff.start < o.start + o.size &&
            o.start < ff.start + ff.size) {
            snprintf(msg, sizeof msg, "fence %u of vGPU %u overlaps its fence %u", fence, vgpu, i);
            return refuse(g, v, GTT_EINVAL, err, errlen, msg);
        }
    }
    uint64_t pool_start;
    if (gtt_pool_alloc(&v->pool, ff.size, &pool_start) != 0) {
        snprintf(msg, sizeof msg,
                 "fence pool share full: fence %u of vGPU %u needs %" PRIu64 " KiB, the largest "
                 "free range of its %" PRIu64 " KiB share is %" PRIu64 " KiB (%" PRIu64
                 " KiB free)",
                 fence, vgpu, ff.size / 1024, v->pool.size / 1024,
                 gtt_pool_largest_free(&v->pool) / 1024,
                 (v->pool.size - gtt_pool_used(&v->pool)) / 1024);
        return refuse(g, v, GTT_EFULL, err, errlen, msg);
    }
    unsigned reg;
    for (reg = 0; reg < GEN9_FENCE_COUNT; reg++)
        if (!(g->phys_fence_busy & (1u << reg)))
            break;
    if (reg == GEN9_FENCE_COUNT) {
        gtt_pool_free(&v->pool, pool_start);
        snprintf(msg, sizeof msg,
                 "no free physical fence register for fence %u of vGPU %u (%u registers, %u "
                 "kept for the host)",
                 fence, vgpu, GEN9_FENCE_COUNT, g->host_fences);
        return refuse(g, v, GTT_EFULL, err, errlen, msg);
    }
    g->phys_fence_busy |= 1u << reg;
    f->pooled = true;
    f->applied = f->guest_value;
    f->mapped = 0;
    f->guest = (struct gtt_range){ ff.start, ff.size };
    f->pool_start = pool_start;
    f->phys_reg = reg;
    /* The register can describe the pool range at once: only pages already remapped reach the
     * aperture through it. */
    res->program = true;
    res->phys_reg = reg;
    res->phys_value = gtt_fence_encode(pool_start, ff.size, 0, false, false) |
                      (f->guest_value &
                       (GEN9_FENCE_PITCH_MASK | GEN9_FENCE_TILING_Y | GEN9_FENCE_VALID));
    if (res->program_old && res->old_reg == reg)
        res->program_old = false; /* the same register is reprogrammed */
    return 0;
}

static bool wants_range(const struct gtt_vfence *f)
{
    return (f->guest_value & GEN9_FENCE_VALID) && !f->refused;
}

int gtt_fence_request(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value, char *err,
                      size_t errlen)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!v)
        return GTT_ENOENT;
    v->st.fence_writes++;
    if (fence >= v->n_fences) {
        char msg[96];
        snprintf(msg, sizeof msg, "fence %u: vGPU %u has %u fence registers", fence, vgpu,
                 v->n_fences);
        return refuse(g, v, GTT_ERANGE, err, errlen, msg);
    }
    struct gtt_vfence *f = &v->fence[fence];
    f->guest_value = value;
    f->refused = false;
    /* Nothing to do when what it holds is already this value, complete (or nothing at all for
     * a disabled value). */
    bool in_effect = wants_range(f) ? f->pooled && f->applied == value && f->mapped == pages_of(f)
                                    : !f->pooled;
    f->pending = !in_effect;
    return 0;
}

int gtt_fence_pending(const struct gtt *g, unsigned vgpu)
{
    const struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    int first = -1;
    for (unsigned i = 0; v && i < v->n_fences; i++) {
        const struct gtt_vfence *f = &v->fence[i];
        if (!f->pending)
            continue;
        if (f->pooled && f->applied != f->guest_value)
            return (int)i; /* releases first: their ranges may be wanted by others */
        if (first < 0)
            first = (int)i;
    }
    return first;
}

static int work(struct gtt *g, struct gtt_vgpu *v, unsigned fence, uint32_t budget,
                struct gtt_fence_result *res, char *err, size_t errlen)
{
    struct gtt_vfence *f = &v->fence[fence];
    if (!f->pending) {
        res->done = true;
        return 0;
    }
    if (f->pooled && (f->applied != f->guest_value || !wants_range(f))) {
        res->pages += release_step(g, v, f, budget, res);
        if (f->pooled)
            return 0;
        budget = budget > res->pages ? budget - res->pages : 0;
    }
    if (!f->pooled && wants_range(f)) {
        if (budget == 0)
            return 0;
        int rc = setup_begin(g, v, fence, f, res, err, errlen);
        if (rc) {
            f->refused = true;
            f->pending = false;
            res->done = true;
            return rc;
        }
    }
    if (f->pooled) {
        uint32_t n = pages_of(f), done = 0;
        for (; f->mapped < n && done < budget; done++)
            map_page(g, v, f, f->mapped++);
        res->pages += done;
        if (f->mapped < n)
            return 0;
    }
    f->pending = false;
    res->done = true;
    return 0;
}

int gtt_fence_work(struct gtt *g, unsigned vgpu, unsigned fence, uint32_t max_pages,
                   struct gtt_fence_result *res, char *err, size_t errlen)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!v || !res || fence >= v->n_fences)
        return GTT_ENOENT;
    memset(res, 0, sizeof *res);
    int rc = work(g, v, fence, max_pages, res, err, errlen);
    v->st.fence_pages += res->pages;
    return (int)gtt_done(g, rc);
}

int gtt_fence_write(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value,
                    struct gtt_fence_result *res, char *err, size_t errlen)
{
    if (res)
        memset(res, 0, sizeof *res);
    if (!res)
        return GTT_ENOENT;
    int rc = gtt_fence_request(g, vgpu, fence, value, err, errlen);
    if (rc)
        return rc;
    return gtt_fence_work(g, vgpu, fence, UINT32_MAX, res, err, errlen);
}
