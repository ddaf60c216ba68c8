/* avail_rs and Tessera's balloon extension (docs/vgpu-abi.md "Balloon protocol"): the guest
 * writes the signed slot delta to `request`, then TESSERA_G2V_BALLOON to g2v_notify; the answer
 * arrives in `status`, and a change of avail_rs bumps `generation`. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include <inttypes.h>

#define EXT_FIELD(f)    ((uint32_t)offsetof(struct tessera_balloon_if, f))
#define BALLOON_POLL_US 1000u
/* The vGPU sets `status` to idle when the request arrives and to the answer later.  Should it
 * answer before the first poll (and ignore the guest's own "idle" write), an unchanged answer
 * cannot be told from the previous one; after this long without a generation change the
 * status read is taken as the answer (several balloon controller periods: docs/config.md's
 * default is 500 ms). */
#define BALLOON_STALE_US 1500000u

bool vgpu_refresh_ranges(struct vgpu *v, bool force)
{
    bool changed = vgpu_ranges_apply(v, force) || v->ranges_unreported;
    v->ranges_unreported = false;
    return changed;
}

bool vgpu_ranges_apply(struct vgpu *v, bool force)
{
    uint32_t gen = vgpu_ext_read(v, EXT_FIELD(generation));
    if (!force && gen == v->generation)
        return false;
    /* Read until the generation is stable around the read, so the ranges are one answer. */
    uint64_t lb, ls, hb, hs;
    uint32_t g2;
    do {
        gen = vgpu_ext_read(v, EXT_FIELD(generation));
        lb = vgpu_read32(v, VGPU_PV(avail_rs.mappable_gmadr.base));
        ls = vgpu_read32(v, VGPU_PV(avail_rs.mappable_gmadr.size));
        hb = vgpu_read32(v, VGPU_PV(avail_rs.nonmappable_gmadr.base));
        hs = vgpu_read32(v, VGPU_PV(avail_rs.nonmappable_gmadr.size));
        g2 = vgpu_ext_read(v, EXT_FIELD(generation));
    } while (g2 != gen);
    v->generation = gen;
    v->fence_num = vgpu_read32(v, VGPU_PV(avail_rs.fence_num));
    v->slots = vgpu_ext_read(v, EXT_FIELD(slots));
    v->slot_mib = vgpu_ext_read(v, EXT_FIELD(slot_mib));

    /* The first read (all zero before) sets the allocators up. */
    bool low_moved = lb != v->low_base || ls != v->low_size;
    bool high_moved = hb != v->high_base || hs != v->high_size;
    if (low_moved && v->low_size)
        vgpu_complain(v,
                      "low graphics memory moved to 0x%" PRIx64 "+0x%" PRIx64
                      ": ring and framebuffer must be rebuilt",
                      lb, ls);
    v->low_base = lb;
    v->low_size = ls;
    v->high_base = hb;
    v->high_size = hs;
    if (low_moved) {
        vgpu_alloc_init(&v->low, lb, ls);
        v->epoch[VGPU_GM_LOW]++;
    }
    if (high_moved) {
        vgpu_alloc_init(&v->high, hb, hs);
        v->epoch[VGPU_GM_HIGH]++;
    }
    return low_moved || high_moved;
}

enum vgpu_balloon_answer vgpu_balloon_request(struct vgpu *v, int32_t delta, uint64_t timeout_us)
{
    uint32_t gen0 = vgpu_ext_read(v, EXT_FIELD(generation));
    /* "Idle" marks the request pending, if the vGPU keeps what the guest writes there. */
    vgpu_write32(v, VGPU_EXT(status), TESSERA_BALLOON_IDLE);
    bool idle_kept = vgpu_ext_read(v, EXT_FIELD(status)) == TESSERA_BALLOON_IDLE;
    vgpu_write32(v, VGPU_EXT(request), (uint32_t)delta);
    vgpu_write32(v, VGPU_PV(g2v_notify), TESSERA_G2V_BALLOON);

    uint64_t start = guest_now_us();
    bool seen_idle = idle_kept;
    for (;;) {
        uint32_t st = vgpu_ext_read(v, EXT_FIELD(status));
        uint32_t gen = vgpu_ext_read(v, EXT_FIELD(generation));
        uint64_t waited = guest_now_us() - start;
        /* An answer is this request's once the status went idle (the vGPU marks a request
         * pending that way) or avail_rs moved; failing both, after a while. */
        seen_idle |= st == TESSERA_BALLOON_IDLE;
        bool fresh = seen_idle || gen != gen0 || waited >= BALLOON_STALE_US;
        if (fresh && st == TESSERA_BALLOON_GRANTED)
            return VGPU_BALLOON_GRANTED;
        if (fresh && st == TESSERA_BALLOON_REFUSED)
            return VGPU_BALLOON_REFUSED;
        if (waited >= timeout_us)
            return VGPU_BALLOON_NO_ANSWER;
        guest_sleep_us(BALLOON_POLL_US);
    }
}
