/* idle: a kiosk tile that draws one deterministic frame and then sleeps.  It shows that an idle
 * vGPU costs nothing (the scheduler skips it) and that its picture stays on the wall.  With
 * redraw_ms=N it draws the same frame again every N ms and checks it each time: a busy guest
 * with a picture a test can predict, to show that re-placement moves it without a wrong pixel.
 *
 *   idle: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   idle: frame crc 0x<crc>            the CRC of the frame it drew, computed by the CPU from
 *                                      the intended picture (the definition the hypervisor's
 *                                      `screenshot` uses), so a test can compare the two
 *   idle: framebuffer differs: crc 0x<crc>    only if what the GPU wrote is not that picture
 *   idle: heartbeat <n> t=<s>s         every 5 s, halting in between
 *   idle: redrawn <n> times, <k> differed          every 5 s with redraw_ms
 *   idle: re-placed (<n>): low 0x...+0x... high 0x...+0x...   when the vGPU moved it
 *
 * The frame: a white 4-pixel border around four quadrants, the top-left one in the background
 * colour (cmdline bg=0xRRGGBB, default 0x203040), then red, green and blue. */
#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>

#define NAME         "idle"
#define DEFAULT_BG   0x203040u
#define BORDER       4u
#define BORDER_COLOR 0xFFFFFFu
#define HEARTBEAT_US (5u * 1000u * 1000u)

static struct vgpu_kiosk k;

static uint32_t quadrant_color(unsigned q)
{
    static const uint32_t others[3] = { 0xC03030u, 0x30C030u, 0x3030C0u };
    return q == 0 ? k.bg : others[q - 1];
}

/* The intended picture, pixel by pixel. */
static uint32_t expected_pixel(uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
    if (x < BORDER || y < BORDER || x >= w - BORDER || y >= h - BORDER)
        return BORDER_COLOR;
    return quadrant_color((x >= w / 2 ? 1u : 0u) + (y >= h / 2 ? 2u : 0u));
}

static uint32_t expected_crc(uint32_t w, uint32_t h)
{
    uint32_t crc = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t p = expected_pixel(x, y, w, h);
            uint8_t rgb[3] = { (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p };
            crc = vgpu_crc32_update(crc, rgb, sizeof rgb);
        }
    return crc;
}

/* Eight rectangles that do not overlap, each in its final colour: redrawing the frame never
 * shows anything but the frame, whenever the wall reads it. */
static enum vgpu_result draw(uint32_t w, uint32_t h)
{
    uint32_t dw[8 * GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, sizeof dw / sizeof dw[0]);
    uint64_t gm = k.fb.bo.gm;
    uint32_t p = k.fb.pitch, mx = w / 2, my = h / 2;
    vgpu_emit_color_blt(&cb, gm, p, 0, 0, w, BORDER, BORDER_COLOR);
    vgpu_emit_color_blt(&cb, gm, p, 0, h - BORDER, w, h, BORDER_COLOR);
    vgpu_emit_color_blt(&cb, gm, p, 0, BORDER, BORDER, h - BORDER, BORDER_COLOR);
    vgpu_emit_color_blt(&cb, gm, p, w - BORDER, BORDER, w, h - BORDER, BORDER_COLOR);
    vgpu_emit_color_blt(&cb, gm, p, BORDER, BORDER, mx, my, quadrant_color(0));
    vgpu_emit_color_blt(&cb, gm, p, mx, BORDER, w - BORDER, my, quadrant_color(1));
    vgpu_emit_color_blt(&cb, gm, p, BORDER, my, mx, h - BORDER, quadrant_color(2));
    vgpu_emit_color_blt(&cb, gm, p, mx, my, w - BORDER, h - BORDER, quadrant_color(3));
    uint32_t seqno = vgpu_submit(&k.v, dw, cb.n);
    struct vgpu_outcome o;
    if (!seqno)
        return VGPU_ERROR;
    vgpu_wait(&k.v, seqno, VGPU_WAIT_DEFAULT_US, &o);
    if (o.result != VGPU_OK)
        printf(NAME ": frame not drawn: %s reason %" PRIu32 "\n", vgpu_result_name(o.result),
               o.reason);
    return o.result;
}

int guest_main(const struct tessera_boot_info *boot)
{
    if (!vgpu_kiosk_start(&k, boot, NAME, DEFAULT_BG))
        return 1;
    uint32_t w = k.fb.width, h = k.fb.height;
    if (w < 4 * BORDER || h < 4 * BORDER) {
        printf(NAME ": tile %" PRIu32 "x%" PRIu32 " too small for the frame\n", w, h);
        return 1;
    }
    if (draw(w, h) != VGPU_OK)
        return 1;
    uint32_t want = expected_crc(w, h);
    printf(NAME ": frame crc 0x%08" PRIx32 "\n", want);
    uint32_t got = vgpu_crc32_xrgb(vgpu_bo_cpu(&k.fb.bo), w, h, k.fb.pitch);
    if (got != want)
        printf(NAME ": framebuffer differs: crc 0x%08" PRIx32 "\n", got);

    if (!vgpu_moves_enable(&k.v))
        return 1;
    uint64_t redraw_ms = 0, redrawn = 0, differed = 0;
    guest_cmdline_u64(boot, "redraw_ms", &redraw_ms);
    uint64_t next_beat = HEARTBEAT_US, n = 1;
    for (;;) {
        uint64_t now = guest_now_us();
        uint64_t wake = redraw_ms && now + redraw_ms * 1000u < next_beat ? now + redraw_ms * 1000u
                                                                         : next_beat;
        guest_sleep_until_us(wake);
        vgpu_kiosk_follow(&k); /* before the frame's addresses are taken */
        if (redraw_ms) {
            if (draw(w, h) != VGPU_OK)
                return 1;
            redrawn++;
            got = vgpu_crc32_xrgb(vgpu_bo_cpu(&k.fb.bo), w, h, k.fb.pitch);
            if (got != want) {
                differed++;
                printf(NAME ": framebuffer differs: crc 0x%08" PRIx32 "\n", got);
            }
        }
        if (guest_now_us() >= next_beat) {
            printf(NAME ": heartbeat %" PRIu64 " t=%" PRIu64 "s\n", n, guest_now_us() / 1000000u);
            if (redraw_ms)
                printf(NAME ": redrawn %" PRIu64 " times, %" PRIu64 " differed\n", redrawn,
                       differed);
            n++;
            next_beat += HEARTBEAT_US;
        }
    }
}
