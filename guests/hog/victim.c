/* The victim beside the hog (cmdline role=victim): a kiosk tile that draws small frames, one
 * workload each, waits for each and pauses gap_us (default 30000) before the next, and every
 * two seconds sets and clears a 64 KiB fence of its own.  Its frame rate, alone and beside each
 * attack, is what tools/bench-isolation compares.
 *
 *   victim: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   victim: t <ms> frames <n> failed <f> fences ok <a> refused <r>      every second */
#include "guests/hog/hog.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>

#define VNAME          "victim"
#define VICTIM_BG      0x204060u
#define DEFAULT_GAP_US 30000u
#define FRAME_WAIT_US  (30u * 1000u * 1000u)
#define MARK_W         128u
#define MARK_H         96u
#define VSTATUS_US     (1000u * 1000u)
#define FENCE_EVERY_US (2u * 1000u * 1000u)
#define FENCE_BYTES    (64u << 10)
#define FENCE_PITCH    512u

int victim_main(const struct tessera_boot_info *boot)
{
    uint64_t gap_us = DEFAULT_GAP_US;
    guest_cmdline_u64(boot, "gap_us", &gap_us);
    struct vgpu *v = &k.v;
    struct vgpu_bo fenced;
    if (!vgpu_kiosk_start(&k, boot, VNAME, VICTIM_BG) ||
        !vgpu_bo_alloc(v, &fenced, FENCE_BYTES, VGPU_GM_LOW)) {
        printf(VNAME ": cannot set up\n");
        return 1;
    }
    uint64_t frames = 0, failed = 0, fence_ok = 0, fence_refused = 0;
    uint64_t next_status = guest_now_us() + VSTATUS_US, next_fence = guest_now_us();
    for (;;) {
        uint32_t dw[GEN9_XY_COLOR_BLT_LEN];
        struct vgpu_cmdbuf cb;
        vgpu_cmdbuf_init(&cb, dw, GEN9_XY_COLOR_BLT_LEN);
        vgpu_emit_color_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, 0, MARK_W, MARK_H,
                            frames & 1 ? 0xFFFFFFu : k.bg);
        uint32_t seqno = vgpu_submit(v, dw, cb.n);
        if (seqno && vgpu_wait(v, seqno, FRAME_WAIT_US, NULL) == VGPU_OK)
            frames++;
        else
            failed++;
        uint64_t now = guest_now_us();
        if (now >= next_fence) {
            if (vgpu_fence_set(v, 0, (uint32_t)fenced.gm, FENCE_BYTES, FENCE_PITCH, false))
                fence_ok++;
            else
                fence_refused++;
            vgpu_fence_write(v, 0, 0);
            next_fence = now + FENCE_EVERY_US;
        }
        if (now >= next_status) {
            printf(VNAME ": t %" PRIu64 " frames %" PRIu64 " failed %" PRIu64 " fences ok %" PRIu64
                         " refused %" PRIu64 "\n",
                   now / 1000u, frames, failed, fence_ok, fence_refused);
            next_status += VSTATUS_US;
            if (next_status < now)
                next_status = now + VSTATUS_US;
        }
        guest_sleep_us(gap_us);
    }
}
