/* The vGPU's display as the rest of the hypervisor sees it, whatever the personality: the
 * picture read through the guest's own GGTT entries (linear or X-tiled, XRGB or XBGR, a plane
 * placed in a larger picture), the monitor an operator plugs in, and the displays' clock. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_display.h"

#include <string.h>

#define BPP 4u

/* X tile addressing (gen9_display.h GEN9_XTILE_*): the byte at (bx, row) of a surface whose
 * rows are `stride` bytes apart. */
static uint64_t xtile_addr(uint64_t base, uint32_t stride, uint64_t bx, uint64_t row)
{
    return base + row / GEN9_XTILE_ROWS * stride * GEN9_XTILE_ROWS +
           bx / GEN9_XTILE_ROW_BYTES * (GEN9_XTILE_ROW_BYTES * GEN9_XTILE_ROWS) +
           row % GEN9_XTILE_ROWS * GEN9_XTILE_ROW_BYTES + bx % GEN9_XTILE_ROW_BYTES;
}

/* n pixels of the surface from (sx, sy) into dst. */
static bool surface_read(const struct vgpu *v, const struct vgpu_plane *p, uint32_t sx, uint32_t sy,
                         uint8_t *dst, uint32_t n)
{
    uint64_t bx = (uint64_t)sx * BPP, len = (uint64_t)n * BPP;
    if (!p->xtiled)
        return vgpu_gm_read(v, p->gm + (uint64_t)sy * p->stride + bx, dst, len);
    while (len) {
        uint64_t chunk = GEN9_XTILE_ROW_BYTES - bx % GEN9_XTILE_ROW_BYTES;
        if (chunk > len)
            chunk = len;
        if (!vgpu_gm_read(v, xtile_addr(p->gm, p->stride, bx, sy), dst, chunk))
            return false;
        dst += chunk;
        bx += chunk;
        len -= chunk;
    }
    return true;
}

bool vgpu_plane_read(const struct vgpu *v, const struct vgpu_plane *p, uint64_t off, void *buf,
                     size_t len)
{
    uint32_t pw = p->pic_width ? p->pic_width : p->width;
    uint64_t row_bytes = (uint64_t)pw * BPP;
    if (!row_bytes || off % BPP || len % BPP || off % row_bytes + len > row_bytes)
        return false;
    uint32_t y = (uint32_t)(off / row_bytes), x = (uint32_t)(off % row_bytes / BPP);
    uint32_t n = (uint32_t)(len / BPP);
    uint8_t *dst = buf;
    if (y < p->y || y - p->y >= p->height || x + n <= p->x || x >= p->x + p->width) {
        memset(dst, 0, len); /* outside the plane: the pipe's black */
        return true;
    }
    uint32_t lead = x < p->x ? p->x - x : 0;
    uint32_t first = x + lead - p->x, m = n - lead;
    if (first + m > p->width)
        m = p->width - first;
    memset(dst, 0, (size_t)lead * BPP);
    memset(dst + (size_t)(lead + m) * BPP, 0, (size_t)(n - lead - m) * BPP);
    uint8_t *px = dst + (size_t)lead * BPP;
    if (!surface_read(v, p, p->src_x + first, p->src_y + (y - p->y), px, m))
        return false;
    if (p->bgr) {
        for (uint32_t i = 0; i < m; i++) { /* XBGR: red in the low byte, blue in the third */
            uint8_t t = px[4 * i];
            px[4 * i] = px[4 * i + 2];
            px[4 * i + 2] = t;
        }
    }
    return true;
}

bool vgpu_set_monitor(struct vgpu *v, const struct vgpu_monitor *m, bool configure,
                      const char **why)
{
    if (!v || !v->ops->monitor) {
        *why = "its vGPU has no display to plug a monitor into (vgpu-display = \"dp\" gives an "
               "i915 vGPU one)";
        return false;
    }
    return v->ops->monitor(v, m, configure, why);
}

void vgpu_dev_tick(struct vgpu_dev *d, uint64_t now_ns)
{
    for (unsigned i = 0; d && i < VGPU_MAX; i++)
        if (d->v[i] && d->v[i]->ops->tick)
            d->v[i]->ops->tick(d->v[i], now_ns);
}
