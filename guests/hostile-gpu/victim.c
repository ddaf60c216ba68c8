/* The victim beside hostile-gpu (cmdline role=victim): it keeps in reach of the cross-guest
 * attacks of iso_attacks.c exactly what they look for, and judges the other direction itself.
 *
 *  - its data (VICTIM_DATA_TAG) fenced, with its fence-pool copy right behind a hole of the
 *    size of the de-tiling attack's fence (it fences a placeholder first, then its data, then
 *    drops the placeholder), so an over-reaching de-tile lands in its data;
 *  - every frame, one workload that first reads its sixteen BCS GPRs and copies its own
 *    never-mapped page out, then loads its tags into the GPRs, writes its tag into that page
 *    and draws its frame.  A GPR value or a dword of the page that is neither zero nor its own
 *    tag was put there by someone else: it says so.
 *
 *   victim: ready: data fenced at 0x...+0x40000 behind a hole; unmapped page 0x...
 *   victim: GPRs POISONED: 0x... in GPR dword n          (first time only)
 *   victim: unmapped page POISONED: 0x... at dword n     (first time only)
 *   victim: frames <n> poisoned gpr <g> page <p>         every ~2 s */
#include "guests/hostile-gpu/hostile.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>

#define VNAME         "victim"
#define VICTIM_BG     0x208040u
#define FRAME_GAP_US  (100u * 1000u)
#define MARK_SIDE     32u /* the square each frame redraws */
#define STATUS_US     (2u * 1000u * 1000u)
#define CHECK_SCRATCH VGPU_PAGE /* offset of the page copy in the check buffer */

static bool fence_data_behind_a_hole(struct vgpu *v, struct vgpu_bo *data)
{
    struct vgpu_bo hole;
    if (!vgpu_bo_alloc(v, &hole, DETILE_BYTES, VGPU_GM_LOW) ||
        !vgpu_bo_alloc(v, data, DETILE_BYTES, VGPU_GM_LOW))
        return false;
    uint32_t *w = vgpu_bo_cpu(data);
    for (uint32_t i = 0; i < DETILE_BYTES / 4u; i++)
        w[i] = VICTIM_DATA_TAG;
    /* X tiles of 512 bytes, 8 rows: a pitch of 512 makes a 4 KiB tile row, a valid fence */
    bool ok = vgpu_fence_set(v, 0, (uint32_t)hole.gm, DETILE_BYTES, 512, false) &&
              vgpu_fence_set(v, 1, (uint32_t)data->gm, DETILE_BYTES, 512, false);
    vgpu_fence_write(v, 0, 0);
    vgpu_bo_free(v, &hole);
    return ok;
}

int victim_main(const struct tessera_boot_info *boot)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo data, check;
    uint64_t page;
    if (!vgpu_kiosk_start(&k, boot, VNAME, VICTIM_BG))
        return 1;
    if (!fence_data_behind_a_hole(v, &data) || !hostile_unmapped_page(v, &page) ||
        !vgpu_bo_alloc(v, &check, 2 * VGPU_PAGE, VGPU_GM_LOW)) {
        printf(VNAME ": cannot set up\n");
        return 1;
    }
    printf(VNAME ": ready: data fenced at 0x%" PRIx64
                 "+0x%x behind a hole; unmapped page 0x%" PRIx64 "\n",
           data.gm, DETILE_BYTES, page);

    uint64_t frames = 0, bad_gpr = 0, bad_page = 0, next_status = guest_now_us() + STATUS_US;
    for (;;) {
        uint32_t dw[GPR_DWORDS * (GEN9_MI_SRM_LEN + 3u) + GEN9_XY_SRC_COPY_BLT_LEN +
                    2u * GEN9_XY_COLOR_BLT_LEN];
        struct vgpu_cmdbuf cb;
        vgpu_cmdbuf_init(&cb, dw, sizeof dw / sizeof dw[0]);
        for (uint32_t i = 0; i < GPR_DWORDS; i++)
            vgpu_emit_srm(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i, check.gm + 4u * i);
        vgpu_emit_copy_blt(&cb, check.gm + CHECK_SCRATCH, VGPU_PAGE, 0, 0, page, VGPU_PAGE, 0, 0,
                           VGPU_PAGE / 4u, 1);
        for (uint32_t i = 0; i < GPR_DWORDS; i++)
            vgpu_emit_lri(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i, VICTIM_GPR_TAG | i);
        vgpu_emit_color_blt(&cb, page, VGPU_PAGE, 0, 0, VGPU_PAGE / 4u, 1, VICTIM_SCRATCH_TAG);
        vgpu_emit_color_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, 0, MARK_SIDE, MARK_SIDE,
                            frames & 1 ? k.bg : 0xFFFFFFu);
        if (cb.overflow || !hostile_run(v, dw, cb.n)) {
            printf(VNAME ": frame %" PRIu64 " did not run\n", frames);
            guest_sleep_us(STATUS_US);
            continue;
        }
        frames++;
        const volatile uint32_t *c = vgpu_bo_cpu(&check);
        for (uint32_t i = 0; i < GPR_DWORDS; i++)
            if (c[i] != 0 && c[i] != (VICTIM_GPR_TAG | i) && !bad_gpr++)
                printf(VNAME ": GPRs POISONED: 0x%08" PRIx32 " in GPR dword %" PRIu32 "\n", c[i],
                       i);
        for (uint32_t i = 0; i < VGPU_PAGE / 4u; i++) {
            uint32_t w = c[CHECK_SCRATCH / 4u + i];
            if (w != 0 && w != VICTIM_SCRATCH_TAG && !bad_page++)
                printf(VNAME ": unmapped page POISONED: 0x%08" PRIx32 " at dword %" PRIu32 "\n", w,
                       i);
        }
        if (guest_now_us() >= next_status) {
            printf(VNAME ": frames %" PRIu64 " poisoned gpr %" PRIu64 " page %" PRIu64 "\n", frames,
                   bad_gpr, bad_page);
            next_status = guest_now_us() + STATUS_US;
        }
        guest_sleep_us(FRAME_GAP_US);
    }
}
