/* dashboard: panels of bar charts that are redrawn in bursts: several frames as fast as the GPU
 * answers (each one waited for, as an interactive application does), then a pause.  Its vGPU
 * waits on the GPU often, which is what the scheduler's coscheduling looks for.
 *
 *   dashboard: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   dashboard: frames <n> bursts <b> fps <f.f> waits <w> failures <k>     every ~2 s
 *   dashboard: frame <n> failed: <result> reason <r>
 *
 * Command line: burst=N frames per burst (default 8), pause_ms=N between bursts (default
 * 1500), bg=0xRRGGBB (default 0x202020). */
#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>

#define NAME             "dashboard"
#define DEFAULT_BG       0x202020u
#define DEFAULT_BURST    8u
#define DEFAULT_PAUSE_MS 1500u
#define STATUS_US        (2u * 1000u * 1000u)
#define PANELS_X         2u
#define PANELS_Y         2u
#define BARS             5u
#define MARGIN           4u
#define MAX_CMDS         ((PANELS_X * PANELS_Y * (BARS + 1u) + 1u) * GEN9_XY_COLOR_BLT_LEN)

static struct vgpu_kiosk k;
static uint32_t rng = 12345u;

static uint32_t next_rand(void)
{
    rng = rng * 1103515245u + 12345u; /* a plain LCG: deterministic pictures */
    return rng >> 16;
}

static const uint32_t panel_bg[PANELS_X * PANELS_Y] = { 0x303848u, 0x383048u, 0x304838u,
                                                        0x483830u };
static const uint32_t bar_color[PANELS_X * PANELS_Y] = { 0x40A0FFu, 0xFF6080u, 0x60E060u,
                                                         0xFFC040u };

/* One frame: every panel's background and bars, heights changing from frame to frame. */
static void build_frame(struct vgpu_cmdbuf *cb)
{
    uint32_t w = k.fb.width, h = k.fb.height, pw = w / PANELS_X, ph = h / PANELS_Y;
    uint64_t gm = k.fb.bo.gm;
    for (uint32_t py = 0; py < PANELS_Y; py++)
        for (uint32_t px = 0; px < PANELS_X; px++) {
            unsigned i = py * PANELS_X + px;
            uint32_t x0 = px * pw + MARGIN, y0 = py * ph + MARGIN;
            uint32_t x1 = (px + 1) * pw - MARGIN, y1 = (py + 1) * ph - MARGIN;
            if (x1 <= x0 + 2 * BARS || y1 <= y0 + 2)
                continue;
            vgpu_emit_color_blt(cb, gm, k.fb.pitch, x0, y0, x1, y1, panel_bg[i]);
            uint32_t bw = (x1 - x0) / BARS, full = y1 - y0 - 2;
            for (uint32_t b = 0; b < BARS; b++) {
                uint32_t bh = 1 + next_rand() % full;
                uint32_t bx = x0 + b * bw + 1;
                vgpu_emit_color_blt(cb, gm, k.fb.pitch, bx, y1 - 1 - bh, bx + bw - 2, y1 - 1,
                                    bar_color[i]);
            }
        }
}

int guest_main(const struct tessera_boot_info *boot)
{
    uint64_t burst = DEFAULT_BURST, pause_ms = DEFAULT_PAUSE_MS;
    if (!guest_cmdline_u64(boot, "burst", &burst) || burst == 0)
        burst = DEFAULT_BURST;
    if (!guest_cmdline_u64(boot, "pause_ms", &pause_ms))
        pause_ms = DEFAULT_PAUSE_MS;
    if (!vgpu_kiosk_start(&k, boot, NAME, DEFAULT_BG) || !vgpu_moves_enable(&k.v))
        return 1;

    uint64_t frames = 0, bursts = 0, failures = 0, last_frames = 0;
    uint64_t now = guest_now_us(), last_status = now, next_status = now + STATUS_US;
    for (;;) {
        for (uint64_t f = 0; f < burst; f++) {
            vgpu_kiosk_follow(&k); /* before the frame's addresses are taken */
            uint32_t dw[MAX_CMDS];
            struct vgpu_cmdbuf cb;
            vgpu_cmdbuf_init(&cb, dw, MAX_CMDS);
            build_frame(&cb);
            uint32_t seqno = cb.n ? vgpu_submit(&k.v, dw, cb.n) : 0;
            struct vgpu_outcome o = { 0, VGPU_ERROR, 0 };
            if (seqno)
                vgpu_wait(&k.v, seqno, VGPU_WAIT_DEFAULT_US, &o);
            if (o.result == VGPU_OK) {
                frames++;
            } else {
                failures++;
                printf(NAME ": frame %" PRIu64 " failed: %s reason %" PRIu32 "\n",
                       frames + failures, vgpu_result_name(o.result), o.reason);
            }
        }
        bursts++;
        /* The pause, with the status line when it is due. */
        uint64_t pause_end = guest_now_us() + pause_ms * 1000u;
        for (;;) {
            now = guest_now_us();
            if (now >= next_status) {
                uint64_t dt = now - last_status, df = frames - last_frames;
                uint64_t fps10 = dt ? df * 10000000u / dt : 0;
                printf(NAME ": frames %" PRIu64 " bursts %" PRIu64 " fps %" PRIu64 ".%" PRIu64
                            " waits %" PRIu64 " failures %" PRIu64 "\n",
                       frames, bursts, fps10 / 10, fps10 % 10, k.v.stats.waits, failures);
                last_status = now;
                last_frames = frames;
                next_status += STATUS_US;
                if (next_status <= now)
                    next_status = now + STATUS_US;
            }
            if (now >= pause_end)
                break;
            guest_sleep_until_us(next_status < pause_end ? next_status : pause_end);
        }
    }
}
