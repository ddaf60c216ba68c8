/* Following re-placement (docs/vgpu-abi.md "Re-placement"): the hypervisor moves busy guests'
 * ranges apart so that switching between them stops copying graphics memory, and sizes the
 * low range to what the guest says it uses (low_used), so more of them fit apart.  It carries the
 * guest's GGTT entries along (entry k of a range is entry k of its new place), so the guest
 * re-maps nothing: it only adds the distance each range moved to the graphics addresses it
 * holds — every buffer, and through them the ring in the context image, the status page and
 * the plane.
 *
 * The move happens while this guest has nothing queued: the library waits for its work, then
 * writes TESSERA_G2V_MOVE_READY; the vGPU answers during that write. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>

#define MOVE_FIELD(f) ((uint32_t)offsetof(struct tessera_move_if, f))

static uint32_t move_read(const struct vgpu *v, uint32_t field)
{
    return vgpu_read32(v, VGT_PVINFO_PAGE + (uint32_t)TESSERA_MOVE_OFFSET + field);
}

void vgpu_moves_report_low(struct vgpu *v, uint64_t more)
{
    uint64_t end = v->low.base;
    for (unsigned i = 0; i < v->low.n; i++)
        if (v->low.used[i].start + v->low.used[i].size > end)
            end = v->low.used[i].start + v->low.used[i].size;
    uint64_t used = end - v->low.base + more;
    vgpu_write32(v, VGT_PVINFO_PAGE + (uint32_t)TESSERA_MOVE_OFFSET + MOVE_FIELD(low_used),
                 used > UINT32_MAX ? UINT32_MAX : (uint32_t)used);
}

bool vgpu_moves_enable(struct vgpu *v)
{
    if (move_read(v, MOVE_FIELD(magic)) != TESSERA_MOVE_MAGIC) {
        vgpu_complain(v, "no re-placement extension in the PV page");
        return false;
    }
    if (v->bos_lost) {
        vgpu_complain(v, "more than %u buffers: re-placement could not move them all", VGPU_BO_MAX);
        return false;
    }
    v->move_seen = move_read(v, MOVE_FIELD(request));
    vgpu_write32(v, VGT_PVINFO_PAGE + (uint32_t)TESSERA_MOVE_OFFSET + MOVE_FIELD(caps),
                 TESSERA_MOVE_CAP_FOLLOW);
    v->follows_moves = true;
    vgpu_moves_report_low(v, 0);
    return true;
}

/* A range of an allocator moved to new_base: its free and used extents move with it. */
static void alloc_shift(struct vgpu_alloc *a, uint64_t new_base, uint64_t new_size)
{
    for (unsigned i = 0; i < a->n; i++)
        a->used[i].start = a->used[i].start - a->base + new_base;
    a->base = new_base;
    a->size = new_size;
}

/* addr inside [from, from + size) moves by to - from. */
static bool shift(uint64_t *addr, uint64_t from, uint64_t size, uint64_t to)
{
    if (*addr < from || *addr - from >= size)
        return false;
    *addr = *addr - from + to;
    return true;
}

bool vgpu_follow_moves(struct vgpu *v)
{
    if (!v->follows_moves)
        return false;
    uint32_t req = move_read(v, MOVE_FIELD(request));
    if (req == v->move_seen)
        return false;
    /* Its queued work holds the old addresses: the vGPU moves nothing while any is queued. */
    if (vgpu_wait_idle(v, VGPU_WAIT_DEFAULT_US) == VGPU_TIMEOUT)
        return false; /* asked again at the next call */
    /* A balloon change the guest has not seen yet is taken in first, so what moves below is
     * only the move (the guest's next vgpu_refresh_ranges() still reports the change). */
    if (vgpu_ranges_apply(v, false))
        v->ranges_unreported = true;
    vgpu_write32(v, VGPU_PV(g2v_notify), TESSERA_G2V_MOVE_READY);
    uint32_t status = move_read(v, MOVE_FIELD(status));
    if (status == TESSERA_MOVE_BUSY)
        return false;
    v->move_seen = move_read(v, MOVE_FIELD(done));
    if (status != TESSERA_MOVE_MOVED)
        return false;

    uint64_t lb = vgpu_read32(v, VGPU_PV(avail_rs.mappable_gmadr.base));
    uint64_t ls = vgpu_read32(v, VGPU_PV(avail_rs.mappable_gmadr.size));
    uint64_t hb = vgpu_read32(v, VGPU_PV(avail_rs.nonmappable_gmadr.base));
    uint64_t hs = vgpu_read32(v, VGPU_PV(avail_rs.nonmappable_gmadr.size));
    for (unsigned i = 0; i < v->n_bos; i++) {
        struct vgpu_bo *bo = v->bos[i];
        if (!bo->gm || bo->epoch != v->epoch[bo->where])
            continue; /* not placed, or placed before its allocator was rebuilt */
        if (bo->where == VGPU_GM_LOW)
            shift(&bo->gm, v->low_base, v->low_size, lb);
        else
            shift(&bo->gm, v->high_base, v->high_size, hb);
    }
    alloc_shift(&v->low, lb, ls);
    if (v->high_size)
        alloc_shift(&v->high, hb, hs);
    v->low_base = lb;
    v->low_size = ls;
    v->high_base = hb;
    v->high_size = hs;
    v->generation = vgpu_ext_read(v, (uint32_t)offsetof(struct tessera_balloon_if, generation));
    v->slots = vgpu_ext_read(v, (uint32_t)offsetof(struct tessera_balloon_if, slots));
    /* The ring, the status page and the plane: the vGPU already follows the latter two for
     * the wall; written again so what the registers hold is the guest's own word. */
    vgpu_ring_moved(v);
    if (v->display)
        vgpu_write32(v, GEN9_PLANE_SURF_1_A, (uint32_t)v->display->bo.gm);
    v->moves++;
    return true;
}
