/* The ordinary victim (cmdline role=pacer): a kiosk tile of the usual shape, not one built for
 * the benchmark.  It aims at `fps` frames a second (default 20): each frame is one small
 * workload through its ring — a few MI_STORE_REGISTER_MEMs of its timestamps and GPRs, one
 * MI_LOAD_REGISTER_IMM of all sixteen GPRs, one XY_COLOR_BLT of a band of its tile — waited
 * for by looking at the breadcrumb after each 10 ms sleep, and then a frame period of sleep in
 * 10 ms steps (HLT with its APIC timer), as a simple kiosk loop does.  Twice a second it also
 * copies a small square of its tile.  Every wake-up that waits for the CPU and every frame
 * that waits for the GPU lengthens its frame: alone it draws a little under `fps`.
 * What it loses beside a neighbour is what any kiosk would: every wake-up that waits for the
 * CPU, every frame that waits for the GPU (tools/bench-isolation).
 *
 *   pacer: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   pacer: t <ms> frames <n> copies <c> late <l> failed <f> lat <us>      every second
 *
 * `late` counts frames that took longer than a frame period from submission to the step that
 * found them done; `lat` is the mean of that time over the last second. */
#include "guests/hog/hog.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>

#define PNAME         "pacer"
#define PACER_BG      0x306030u
#define DEFAULT_FPS   20u
#define STEP_US       10000u
#define COPY_EVERY_US 500000u
#define COPY_PX       64u
#define BANDS         8u
#define PSTATUS_US    (1000u * 1000u)
#define FRAME_WAIT_US (30u * 1000u * 1000u)
#define SRM_REGS      4u

/* Sleeps in STEP_US steps until workload `seqno` has retired; how it ended.  *done_us: the
 * step that found it retired. */
static enum vgpu_result sleep_until_done(uint32_t seqno, uint64_t *done_us)
{
    uint64_t give_up = guest_now_us() + FRAME_WAIT_US;
    for (;;) {
        uint64_t now = guest_now_us();
        if (vgpu_poll(&k.v) == 0) {
            *done_us = now;
            return vgpu_wait(&k.v, seqno, FRAME_WAIT_US, NULL); /* retired: its outcome */
        }
        if (now >= give_up)
            return vgpu_wait(&k.v, seqno, FRAME_WAIT_US, NULL);
        guest_sleep_us(STEP_US);
    }
}

int pacer_main(const struct tessera_boot_info *boot)
{
    uint64_t fps = DEFAULT_FPS;
    guest_cmdline_u64(boot, "fps", &fps);
    if (fps == 0 || fps > 100)
        fps = DEFAULT_FPS;
    struct vgpu *v = &k.v;
    struct vgpu_bo regs;
    if (!vgpu_kiosk_start(&k, boot, PNAME, PACER_BG) ||
        !vgpu_bo_alloc(v, &regs, VGPU_PAGE, VGPU_GM_LOW) || !vgpu_moves_enable(v)) {
        printf(PNAME ": cannot set up\n");
        return 1;
    }
    const uint32_t srm[SRM_REGS] = {
        GEN9_RING_CTX_TIMESTAMP(GEN9_BCS_BASE),
        GEN9_RING_TIMESTAMP(GEN9_BCS_BASE),
        GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0),
        GEN9_RING_CS_GPR(GEN9_BCS_BASE, 1),
    };
    uint64_t period_us = 1000000u / fps, next_copy = guest_now_us() + COPY_EVERY_US;
    uint64_t next_status = guest_now_us() + PSTATUS_US, frames = 0, copies = 0, late = 0,
             failed = 0;
    uint64_t lat_sum = 0, lat_n = 0;
    for (;;) {
        vgpu_kiosk_follow(&k);
        uint32_t dw[SRM_REGS * GEN9_MI_SRM_LEN + GEN9_MI_LRI_DW(2u * GEN9_CS_GPR_COUNT) +
                    GEN9_XY_COLOR_BLT_LEN];
        struct vgpu_cmdbuf cb;
        vgpu_cmdbuf_init(&cb, dw, sizeof dw / sizeof dw[0]);
        for (unsigned i = 0; i < SRM_REGS; i++)
            vgpu_emit_srm(&cb, srm[i], regs.gm + 4u * i);
        uint32_t *lri = vgpu_cmd_reserve(&cb, GEN9_MI_LRI_DW(2u * GEN9_CS_GPR_COUNT));
        if (lri) {
            lri[0] = GEN9_MI_LOAD_REGISTER_IMM(2u * GEN9_CS_GPR_COUNT);
            for (uint32_t r = 0; r < 2u * GEN9_CS_GPR_COUNT; r++) {
                lri[1u + 2u * r] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * r;
                lri[2u + 2u * r] = (uint32_t)frames + r;
            }
        }
        uint32_t band = k.fb.height / BANDS, y = (uint32_t)(frames % BANDS) * band;
        vgpu_emit_color_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, y, k.fb.width, y + band,
                            frames & 1 ? 0xE0E0E0u : k.bg);
        uint64_t t0 = guest_now_us(), done_us = t0;
        uint32_t seqno = cb.overflow ? 0 : vgpu_submit(v, dw, cb.n);
        if (t0 >= next_copy) {
            /* One small copy: the top-left square to the bottom-right corner. */
            uint32_t c[GEN9_XY_SRC_COPY_BLT_LEN];
            struct vgpu_cmdbuf cc;
            vgpu_cmdbuf_init(&cc, c, GEN9_XY_SRC_COPY_BLT_LEN);
            vgpu_emit_copy_blt(&cc, k.fb.bo.gm, k.fb.pitch, k.fb.width - COPY_PX,
                               k.fb.height - COPY_PX, k.fb.bo.gm, k.fb.pitch, 0, 0, COPY_PX,
                               COPY_PX);
            uint32_t cs = vgpu_submit(v, c, cc.n);
            if (cs && vgpu_wait(v, cs, FRAME_WAIT_US, NULL) == VGPU_OK)
                copies++;
            else
                failed++;
            next_copy += COPY_EVERY_US;
            if (next_copy < t0)
                next_copy = t0 + COPY_EVERY_US;
        }
        if (seqno && sleep_until_done(seqno, &done_us) == VGPU_OK) {
            frames++;
            lat_sum += done_us - t0;
            lat_n++;
            late += done_us - t0 > period_us;
        } else {
            failed++;
        }
        for (uint64_t slept = 0; slept < period_us; slept += STEP_US)
            guest_sleep_us(STEP_US);
        uint64_t now = guest_now_us();
        if (now >= next_status) {
            printf(PNAME ": t %" PRIu64 " frames %" PRIu64 " copies %" PRIu64 " late %" PRIu64
                         " failed %" PRIu64 " lat %" PRIu64 "\n",
                   now / 1000u, frames, copies, late, failed, lat_n ? lat_sum / lat_n : 0);
            lat_sum = lat_n = 0;
            next_status += PSTATUS_US;
            if (next_status < now)
                next_status = now + PSTATUS_US;
        }
    }
}
