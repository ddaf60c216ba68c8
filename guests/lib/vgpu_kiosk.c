/* What every kiosk guest does first: the vGPU, a framebuffer the size of its tile on the wall,
 * the plane pointed at it, and one line saying so. */
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>

#define RGB_MASK 0xFFFFFFu

uint32_t vgpu_cmdline_color(const struct tessera_boot_info *boot, const char *key, uint32_t dflt)
{
    uint64_t c;
    if (guest_cmdline_u64(boot, key, &c) && c <= RGB_MASK)
        return (uint32_t)c;
    return dflt;
}

enum vgpu_result vgpu_fill_wait(struct vgpu *v, const struct vgpu_surface *s, uint32_t x1,
                                uint32_t y1, uint32_t x2, uint32_t y2, uint32_t color)
{
    uint32_t dw[GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GEN9_XY_COLOR_BLT_LEN);
    vgpu_emit_color_blt(&cb, s->bo.gm, s->pitch, x1, y1, x2, y2, color);
    uint32_t seqno = vgpu_submit(v, dw, cb.n);
    if (!seqno)
        return VGPU_ERROR;
    return vgpu_wait(v, seqno, VGPU_WAIT_DEFAULT_US, NULL);
}

bool vgpu_kiosk_follow(struct vgpu_kiosk *k)
{
    if (!vgpu_follow_moves(&k->v))
        return false;
    printf("%s: re-placed (%" PRIu32 "): low 0x%" PRIx64 "+0x%" PRIx64 " high 0x%" PRIx64
           "+0x%" PRIx64 "\n",
           k->v.name, k->v.moves, k->v.low_base, k->v.low_size, k->v.high_base, k->v.high_size);
    return true;
}

bool vgpu_kiosk_start(struct vgpu_kiosk *k, const struct tessera_boot_info *boot, const char *name,
                      uint32_t default_bg)
{
    k->bg = vgpu_cmdline_color(boot, "bg", default_bg);
    if (!vgpu_init(&k->v, boot, name, 0))
        return false;
    if (!vgpu_surface_alloc(&k->v, &k->fb, k->v.tile_w, k->v.tile_h, VGPU_GM_LOW))
        return false;
    enum vgpu_result r = vgpu_fill_wait(&k->v, &k->fb, 0, 0, k->fb.width, k->fb.height, k->bg);
    if (r != VGPU_OK) {
        printf("%s: vgpu: clearing the framebuffer failed: %s (reason %" PRIu32 ")\n", name,
               vgpu_result_name(r),
               vgpu_ext_read(&k->v, offsetof(struct tessera_balloon_if, last_reject)));
        return false;
    }
    if (!vgpu_display_set(&k->v, &k->fb))
        return false;
    vgpu_print_ready(&k->v);
    return true;
}
