/* signage: a scrolling text banner at a steady frame rate.  The text is drawn once by the CPU
 * into a staging surface (graphics memory the GPU reads); every frame the GPU copies a
 * tile-wide window of it, one step further along, into the framebuffer's banner band.
 *
 *   signage: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   signage: banner "<text>" WxH scale S
 *   signage: frames <n> fps <f.f> waits <w> failures <k>       every ~2 s
 *   signage: frame <n> failed: <result> reason <r>             for a frame that did not run
 *
 * Command line: fps=N (default 10), text=WORDS_WITH_UNDERSCORES (underscores become spaces;
 * default TESSERA_KIOSK_WALL), bg=0xRRGGBB (default 0x002060), fg=0xRRGGBB (0xFFD000). */
#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NAME         "signage"
#define DEFAULT_BG   0x002060u
#define DEFAULT_FG   0xFFD000u
#define DEFAULT_FPS  10u
#define MAX_FPS      100u
#define DEFAULT_TEXT "TESSERA KIOSK WALL"
#define STATUS_US    (2u * 1000u * 1000u)
#define MAX_STAGE_W  8000u /* BR11/BR13 pitch: 32767 bytes at most */

static struct vgpu_kiosk k;
static struct vgpu_surface stage;

int guest_main(const struct tessera_boot_info *boot)
{
    uint64_t fps = DEFAULT_FPS;
    if (!guest_cmdline_u64(boot, "fps", &fps) || fps == 0 || fps > MAX_FPS)
        fps = DEFAULT_FPS;
    char text[TESSERA_GUEST_CMDLINE_MAX];
    if (guest_cmdline_get(boot, "text", text, sizeof text) <= 0)
        strcpy(text, DEFAULT_TEXT);
    for (char *c = text; *c; c++)
        if (*c == '_')
            *c = ' ';
    uint32_t fg = vgpu_cmdline_color(boot, "fg", DEFAULT_FG);
    if (!vgpu_kiosk_start(&k, boot, NAME, DEFAULT_BG))
        return 1;

    /* The banner: a band a third of the tile high, centred; the text scaled to fit it. */
    uint32_t w = k.fb.width, h = k.fb.height;
    uint32_t band_h = (h / 3) ? h / 3 : h, band_y = (h - band_h) / 2;
    uint32_t scale = (band_h / (VGPU_FONT_H + 2u)) ? band_h / (VGPU_FONT_H + 2u) : 1u;
    uint32_t tw = vgpu_font_width(text, scale);
    while (tw + 2 * w > MAX_STAGE_W && scale > 1)
        tw = vgpu_font_width(text, --scale);
    if (tw + 2 * w > MAX_STAGE_W) {
        printf(NAME ": text too long for the banner\n");
        return 1;
    }
    /* Staging: blank one tile width, the text, blank one tile width; the window slides from
     * the start to the last blank, so the text enters on the right and leaves on the left. */
    uint32_t sw = tw + 2 * w;
    if (!vgpu_surface_alloc(&k.v, &stage, sw, band_h, VGPU_GM_LOW))
        return 1;
    uint32_t *px = vgpu_bo_cpu(&stage.bo);
    for (uint32_t y = 0; y < band_h; y++)
        for (uint32_t x = 0; x < sw; x++)
            px[y * (stage.pitch / 4) + x] = k.bg;
    vgpu_font_draw(px, sw, band_h, stage.pitch, w, (band_h - VGPU_FONT_H * scale) / 2, text, scale,
                   fg);
    printf(NAME ": banner \"%s\" %" PRIu32 "x%" PRIu32 " scale %" PRIu32 "\n", text, sw, band_h,
           scale);
    if (!vgpu_moves_enable(&k.v))
        return 1;

    uint64_t period = 1000000u / fps, step = scale ? scale : 1;
    uint64_t frames = 0, failures = 0, last_frames = 0;
    uint64_t t0 = guest_now_us(), next_status = t0 + STATUS_US, last_status = t0;
    uint32_t offset = 0, pending = 0;
    for (uint64_t n = 0;; n++) {
        /* Collect the previous frame: by now it has had a whole period to run. */
        if (pending) {
            struct vgpu_outcome o;
            if (vgpu_wait(&k.v, pending, VGPU_WAIT_DEFAULT_US, &o) == VGPU_OK) {
                frames++;
            } else {
                failures++;
                printf(NAME ": frame %" PRIu64 " failed: %s reason %" PRIu32 "\n", n,
                       vgpu_result_name(o.result), o.reason);
            }
        }
        vgpu_kiosk_follow(&k); /* before the frame's addresses are taken */
        uint32_t dw[GEN9_XY_SRC_COPY_BLT_LEN];
        struct vgpu_cmdbuf cb;
        vgpu_cmdbuf_init(&cb, dw, GEN9_XY_SRC_COPY_BLT_LEN);
        vgpu_emit_copy_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, band_y, stage.bo.gm, stage.pitch, offset,
                           0, w, band_h);
        pending = vgpu_submit(&k.v, dw, cb.n);
        if (!pending)
            failures++;
        offset = (uint32_t)((offset + step) % (sw - w + 1));

        uint64_t now = guest_now_us();
        if (now >= next_status) {
            uint64_t dt = now - last_status, df = frames - last_frames;
            uint64_t fps10 = dt ? df * 10000000u / dt : 0;
            printf(NAME ": frames %" PRIu64 " fps %" PRIu64 ".%" PRIu64 " waits %" PRIu64
                        " failures %" PRIu64 "\n",
                   frames, fps10 / 10, fps10 % 10, k.v.stats.waits, failures);
            last_status = now;
            last_frames = frames;
            next_status += STATUS_US;
            if (next_status <= now)
                next_status = now + STATUS_US;
        }
        /* Frames on a fixed grid; a late frame does not cause a burst. */
        uint64_t due = t0 + (n + 1) * period;
        if (due < now) {
            n = (now - t0) / period;
            due = t0 + (n + 1) * period;
        }
        guest_sleep_until_us(due);
    }
}
