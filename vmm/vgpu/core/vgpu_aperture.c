/* CPU access to a guest's aperture (BAR2) that exits to the hypervisor.
 *
 * With ladder mapping (gtt/, docs/gtt.md) the guest's aperture pages are mapped by EPT straight
 * to the RAM its GGTT entries name, so most accesses never exit.  Those that do are:
 *  - accesses to a fenced page: its CPU view goes through the fence-pool copy of the guest's
 *    entries and a physical fence programmed with the guest's pitch and tiling, so the bytes
 *    come de-tiled from the aperture (env.aperture_rw);
 *  - accesses to a page whose entry is not present: reads see zeros and writes are dropped,
 *    as through a scratch page, but one that nobody (not even the guest) can write;
 *  - an access straddling from a mapped page into one of the above.
 * Each access is cut at page boundaries and at the end of a fence, and each piece is served
 * from the guest's own pages only: a fenced piece never reads past its fence's pool range into
 * a neighbour's copy. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_gtt.h"

#include <string.h>

/* The fence of v covering aperture offset off, or NULL. */
static const struct gtt_vfence *fence_at(const struct vgpu *v, uint64_t off)
{
    const struct gtt_vgpu *gv = gtt_vgpu_get(v->dev->cfg.gtt, v->id);
    for (unsigned i = 0; gv && i < gv->n_fences; i++) {
        const struct gtt_vfence *f = &gv->fence[i];
        if (f->pooled && off >= f->guest.start && off - f->guest.start < f->guest.size)
            return f;
    }
    return NULL;
}

/* One piece inside one page: fenced, mapped to the guest's RAM, or not mapped. */
static bool piece(struct vgpu *v, uint64_t off, uint8_t *buf, size_t len, bool write)
{
    const struct vgpu_env *env = &v->dev->cfg.env;
    const struct gtt_vfence *f = fence_at(v, off);
    if (f) {
        uint64_t pool_off = f->pool_start + (off - f->guest.start);
        return env->aperture_rw && env->aperture_rw(env->ctx, pool_off, buf, len, write) == 0;
    }
    bool mapped;
    uint8_t *ram = vgpu_gm_page_ptr(v, off, len, &mapped);
    if (!mapped) {
        if (!write)
            memset(buf, 0, len);
        return true;
    }
    if (!ram)
        return false;
    if (write)
        memcpy(ram, buf, len);
    else
        memcpy(buf, ram, len);
    return true;
}

static bool access(struct vgpu *v, uint64_t off, uint8_t *buf, size_t len, bool write)
{
    while (len) {
        size_t n = GEN9_GTT_PAGE_SIZE - (size_t)(off & GEN9_GTT_PAGE_MASK);
        const struct gtt_vfence *f = fence_at(v, off);
        if (f && f->guest.start + f->guest.size - off < n)
            n = (size_t)(f->guest.start + f->guest.size - off); /* fences end on pages anyway */
        if (n > len)
            n = len;
        if (!piece(v, off, buf, n, write))
            return false;
        off += n;
        buf += n;
        len -= n;
    }
    return true;
}

bool vgpu_aperture_read(struct vgpu *v, uint64_t off, unsigned size, uint64_t *val)
{
    uint8_t b[8] = { 0 };
    if (!v || !val || size == 0 || size > sizeof b || !access(v, off, b, size, false))
        return false;
    uint64_t x = 0;
    for (unsigned i = size; i-- > 0;)
        x = x << 8 | b[i];
    *val = x;
    return true;
}

bool vgpu_aperture_write(struct vgpu *v, uint64_t off, unsigned size, uint64_t val)
{
    uint8_t b[8];
    if (!v || size == 0 || size > sizeof b)
        return false;
    for (unsigned i = 0; i < size; i++)
        b[i] = (uint8_t)(val >> (8 * i));
    return access(v, off, b, size, true);
}
