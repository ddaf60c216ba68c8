/* hostile-gpu: a tile whose GPU work attacks the others, to show the vGPU contains it.  Each
 * attack prints what it tries, then exactly one result line read from what the vGPU answered
 * (the breadcrumb, the extension's rejected / last_reject / resets / ggtt_refused /
 * fence_refused counters), then draws a normal frame to show its own vGPU still works:
 *
 *   hostile-gpu: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   hostile-gpu: attack <name>: <what it does>
 *   hostile-gpu: <name>: rejected reason <n>       the workload was refused (n: TESSERA_REJECT_*,
 *                                                  1..99 the command scanner's igpu_scan_err)
 *   hostile-gpu: <name>: refused                   the GGTT or fence write was refused
 *   hostile-gpu: <name>: reset                     the workload was stopped by an engine reset
 *   hostile-gpu: <name>: NOT CONTAINED             it ran, or its write was accepted
 *   hostile-gpu: still rendering, frame <n>
 *   hostile-gpu: done, <k> of <n> attacks NOT CONTAINED
 *   hostile-gpu: frames <n> failures <f>           every ~2 s afterwards
 *
 *   hostile-gpu: <name>: contained (...)           a cross-guest attack saw nothing foreign
 *
 * Attacks (cmdline attack=<name>|all, default all, in this order): blit-outside,
 * store-outside, lri-forbidden, ggtt-foreign, fence-foreign, batch-loop, runaway, and the
 * cross-guest ones of iso_attacks.c: fence-detile, gpr-leak, gpr-plant, scratch-share.
 * runaway_blits=N sets the size of the runaway batch (default 512 fills of 4096x2048).
 * bg=0xRRGGBB colours its frame (default 0xC000C0).  role=victim makes it the victim those
 * cross-guest attacks aim at instead (victim.c). */
#include "guests/hostile-gpu/hostile.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BG            0xC000C0u
#define GM_LIMIT              (1ull << 32) /* the 4 GiB a Gen9 GGTT maps */
#define RUNAWAY_TIMEOUT_US    (60u * 1000u * 1000u)
#define DEFAULT_RUNAWAY_BLITS 512u
#define RUNAWAY_W             4096u /* pixels: pitch 16 KiB, under BR13's 32 KiB */
#define RUNAWAY_H             2048u
#define RUNAWAY_BACKING       (1u << 20) /* RAM behind the runaway surface */
#define STATUS_US             (2u * 1000u * 1000u)
#define EXT(f)                ((uint32_t)offsetof(struct tessera_balloon_if, f))

struct vgpu_kiosk k;
static uint64_t frames, frame_failures;
static uint64_t runaway_blits = DEFAULT_RUNAWAY_BLITS;

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return an && bn && a < b + bn && b < a + an;
}

/* A graphics range of `size` bytes that is not the guest's: right after or before one of its
 * ranges (where a neighbour's memory is), else near the bottom (the hypervisor's). */
static bool outside_addr(uint64_t size, uint64_t *out)
{
    struct vgpu *v = &k.v;
    const uint64_t cand[5] = { v->low_base + v->low_size, v->high_base + v->high_size,
                               v->low_base >= size ? v->low_base - size : GM_LIMIT,
                               v->high_base >= size ? v->high_base - size : GM_LIMIT,
                               GEN9_GTT_PAGE_SIZE };
    for (unsigned i = 0; i < 5; i++) {
        uint64_t c = cand[i] & ~(uint64_t)GEN9_GTT_PAGE_MASK;
        if (c + size <= GM_LIMIT && !overlaps(c, size, v->low_base, v->low_size) &&
            !overlaps(c, size, v->high_base, v->high_size)) {
            *out = c;
            return true;
        }
    }
    return false;
}

/* Submits the attack workload and prints the result line; true if contained. */
static bool judge_workload(const char *attack, const uint32_t *cmds, uint32_t n,
                           uint64_t timeout_us)
{
    uint32_t seqno = vgpu_submit(&k.v, cmds, n);
    if (!seqno) {
        printf(NAME ": %s: NOT CONTAINED (could not submit)\n", attack);
        return false;
    }
    struct vgpu_outcome o;
    switch (vgpu_wait(&k.v, seqno, timeout_us, &o)) {
    case VGPU_REJECTED:
        printf(NAME ": %s: rejected reason %" PRIu32 "\n", attack, o.reason);
        return true;
    case VGPU_RESET:
        printf(NAME ": %s: reset\n", attack);
        return true;
    case VGPU_OK:
        printf(NAME ": %s: NOT CONTAINED\n", attack);
        return false;
    case VGPU_TIMEOUT:
        printf(NAME ": %s: NOT CONTAINED (not retired in %" PRIu64 " s)\n", attack,
               timeout_us / 1000000u);
        return false;
    default:
        printf(NAME ": %s: NOT CONTAINED (no outcome)\n", attack);
        return false;
    }
}

static bool attack_blit_outside(void)
{
    const uint32_t side = 64, pitch = side * 4;
    uint64_t gm;
    if (!outside_addr((uint64_t)side * pitch, &gm))
        return printf(NAME ": blit-outside: no address outside the ranges\n"), false;
    printf(NAME ": attack blit-outside: XY_COLOR_BLT %" PRIu32 "x%" PRIu32 " at 0x%" PRIx64 "\n",
           side, side, gm);
    uint32_t dw[GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GEN9_XY_COLOR_BLT_LEN);
    vgpu_emit_color_blt(&cb, gm, pitch, 0, 0, side, side, 0xFF0000u);
    return judge_workload("blit-outside", dw, cb.n, ATTACK_TIMEOUT_US);
}

static bool attack_store_outside(void)
{
    uint64_t gm;
    if (!outside_addr(GEN9_GTT_PAGE_SIZE, &gm))
        return printf(NAME ": store-outside: no address outside the ranges\n"), false;
    printf(NAME ": attack store-outside: MI_STORE_DATA_IMM to 0x%" PRIx64 "\n", gm);
    uint32_t dw[GEN9_MI_STORE_DATA_IMM_DW_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GEN9_MI_STORE_DATA_IMM_DW_LEN);
    vgpu_emit_store_dword(&cb, gm, 0xDEADBEEFu);
    return judge_workload("store-outside", dw, cb.n, ATTACK_TIMEOUT_US);
}

static bool attack_lri_forbidden(void)
{
    printf(NAME ": attack lri-forbidden: MI_LOAD_REGISTER_IMM GDRST 0x%x = full reset\n",
           GEN9_GDRST);
    uint32_t dw[3];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 3);
    vgpu_emit_lri(&cb, GEN9_GDRST, GEN9_GRDOM_FULL);
    return judge_workload("lri-forbidden", dw, cb.n, ATTACK_TIMEOUT_US);
}

static bool attack_ggtt_foreign(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo victim;
    uint64_t out_gm;
    if (!vgpu_bo_alloc(v, &victim, GEN9_GTT_PAGE_SIZE, VGPU_GM_LOW) ||
        !outside_addr(GEN9_GTT_PAGE_SIZE, &out_gm))
        return printf(NAME ": ggtt-foreign: cannot set up\n"), false;
    uint32_t idx_in = (uint32_t)(victim.gm >> GEN9_GTT_PAGE_SHIFT);
    uint32_t idx_out = (uint32_t)(out_gm >> GEN9_GTT_PAGE_SHIFT);
    uint64_t foreign = (v->ram_bytes + GEN9_GTT_PAGE_MASK) & ~(uint64_t)GEN9_GTT_PAGE_MASK;
    uint64_t old = vgpu_ggtt_read(v, idx_in);
    printf(NAME ": attack ggtt-foreign: entry %" PRIu32 " (own) -> RAM 0x%" PRIx64
                " (beyond its RAM); entry %" PRIu32 " (not its own) -> its page 0x%" PRIx64 "\n",
           idx_in, foreign, idx_out, victim.gpa);

    uint64_t bad = gen9_ggtt_pte_encode(foreign);
    bool acc1 = vgpu_ggtt_write(v, idx_in, bad);
    bool leaked1 = vgpu_ggtt_read(v, idx_in) == bad;
    bool acc2 = vgpu_ggtt_write(v, idx_out, gen9_ggtt_pte_encode(victim.gpa));
    if (acc1 || leaked1)
        vgpu_ggtt_write(v, idx_in, old); /* put its own page back */
    vgpu_bo_free(v, &victim);
    if (acc1 || leaked1 || acc2) {
        printf(NAME ": ggtt-foreign: NOT CONTAINED (%s%s)\n",
               acc1 || leaked1 ? "foreign page accepted " : "",
               acc2 ? "foreign index accepted" : "");
        return false;
    }
    printf(NAME ": ggtt-foreign: refused\n");
    return true;
}

static bool attack_fence_foreign(void)
{
    struct vgpu *v = &k.v;
    const uint32_t size = 16u * GEN9_GTT_PAGE_SIZE, pitch = 512;
    uint64_t gm = v->high_base;
    const char *what = "its high memory, outside the aperture";
    if (v->high_size < size) {
        if (!outside_addr(size, &gm))
            return printf(NAME ": fence-foreign: no range to fence\n"), false;
        what = "memory that is not its own";
    }
    printf(NAME ": attack fence-foreign: fence 0 over 0x%" PRIx64 "+0x%" PRIx32 " (%s; %" PRIu32
                " fences)\n",
           gm, size, what, v->fence_num);
    if (vgpu_fence_set(v, 0, (uint32_t)gm, size, pitch, false)) {
        vgpu_fence_write(v, 0, 0);
        printf(NAME ": fence-foreign: NOT CONTAINED\n");
        return false;
    }
    printf(NAME ": fence-foreign: refused\n");
    return true;
}

static bool attack_batch_loop(void)
{
    struct vgpu_bo batch;
    if (!vgpu_bo_alloc(&k.v, &batch, GEN9_GTT_PAGE_SIZE, VGPU_GM_LOW))
        return printf(NAME ": batch-loop: cannot set up\n"), false;
    printf(NAME ": attack batch-loop: a batch at 0x%" PRIx64 " that starts itself\n", batch.gm);
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, vgpu_bo_cpu(&batch), GEN9_GTT_PAGE_SIZE / 4u);
    vgpu_emit_noop(&cb);
    vgpu_emit_bb_start(&cb, batch.gm, false); /* chains back to its own start */
    uint32_t dw[GEN9_MI_BATCH_BUFFER_START_LEN];
    vgpu_cmdbuf_init(&cb, dw, GEN9_MI_BATCH_BUFFER_START_LEN);
    vgpu_emit_bb_start(&cb, batch.gm, false);
    bool ok = judge_workload("batch-loop", dw, cb.n, ATTACK_TIMEOUT_US);
    if (k.v.n_inflight == 0)
        vgpu_bo_free(&k.v, &batch);
    return ok;
}

/* The runaway: one workload, a batch of full-surface fills of a 4096x2048 surface (32 MiB of
 * its own graphics memory, every MiB of it mapped to the same 1 MiB of its RAM, so the guest
 * needs little RAM for a lot of pixels).  Legal in every command, but far more GPU time than
 * the watchdog allows one workload.  The batch stays within the vGPU's 16 KiB of batch
 * shadow per workload (512 blits are 3585 dwords). */
static bool attack_runaway(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo backing, batch;
    uint32_t pitch = RUNAWAY_W * 4u, h = RUNAWAY_H;
    uint64_t gm = 0;
    enum vgpu_gm where = VGPU_GM_HIGH;
    for (; h >= 64u; h /= 2) {
        if (vgpu_alloc_get(&v->high, (uint64_t)pitch * h, GEN9_GTT_PAGE_SIZE, &gm))
            break;
        if (vgpu_alloc_get(&v->low, (uint64_t)pitch * h, GEN9_GTT_PAGE_SIZE, &gm)) {
            where = VGPU_GM_LOW;
            break;
        }
    }
    uint64_t gm_bytes = (uint64_t)pitch * h;
    struct vgpu_alloc *a = where == VGPU_GM_HIGH ? &v->high : &v->low;
    uint32_t batch_dw = (uint32_t)runaway_blits * GEN9_XY_COLOR_BLT_LEN + 1u;
    if (h < 64u || !vgpu_bo_alloc(v, &backing, RUNAWAY_BACKING, VGPU_GM_LOW))
        return printf(NAME ": runaway: cannot set up\n"), false;
    bool mapped = true;
    for (uint64_t off = 0; off < gm_bytes && mapped; off += RUNAWAY_BACKING)
        mapped = vgpu_ggtt_map(v, gm + off, backing.gpa,
                               gm_bytes - off < RUNAWAY_BACKING ? gm_bytes - off : RUNAWAY_BACKING);
    if (!mapped || !vgpu_bo_alloc(v, &batch, batch_dw * 4u, VGPU_GM_LOW)) {
        vgpu_alloc_put(a, gm);
        vgpu_bo_free(v, &backing);
        return printf(NAME ": runaway: cannot set up\n"), false;
    }
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, vgpu_bo_cpu(&batch), batch_dw);
    for (uint64_t i = 0; i < runaway_blits; i++)
        vgpu_emit_color_blt(&cb, gm, pitch, 0, 0, RUNAWAY_W, h, i & 1 ? 0x00FF00u : 0x0000FFu);
    vgpu_emit_bb_end(&cb);
    uint64_t est_ms = runaway_blits * vgpu_blit_est_ns((uint64_t)RUNAWAY_W * h) / 1000000u;
    printf(NAME ": attack runaway: a batch of %" PRIu64 " blits of %ux%" PRIu32 " at 0x%" PRIx64
                " in its own %s memory, about %" PRIu64 " ms of GPU time\n",
           runaway_blits, RUNAWAY_W, h, gm, where == VGPU_GM_HIGH ? "high" : "low", est_ms);
    uint32_t dw[GEN9_MI_BATCH_BUFFER_START_LEN];
    vgpu_cmdbuf_init(&cb, dw, GEN9_MI_BATCH_BUFFER_START_LEN);
    vgpu_emit_bb_start(&cb, batch.gm, false);
    bool ok = judge_workload("runaway", dw, cb.n, RUNAWAY_TIMEOUT_US);
    if (v->n_inflight == 0) { /* never free what the GPU may still use */
        vgpu_alloc_put(a, gm);
        vgpu_bo_free(v, &batch);
        vgpu_bo_free(v, &backing);
    }
    return ok;
}

/* A normal frame: the background with a light band that moves down frame by frame. */
static bool render_frame(void)
{
    uint32_t w = k.fb.width, h = k.fb.height, band = h / 8 ? h / 8 : 1;
    uint32_t y = (uint32_t)(frames % 8u) * band;
    uint32_t dw[2 * GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 2 * GEN9_XY_COLOR_BLT_LEN);
    vgpu_emit_color_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, 0, w, h, k.bg);
    if (y + band <= h)
        vgpu_emit_color_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, y, w, y + band, 0xFFFFFFu);
    uint32_t seqno = vgpu_submit(&k.v, dw, cb.n);
    struct vgpu_outcome o = { 0, VGPU_ERROR, 0 };
    if (seqno)
        vgpu_wait(&k.v, seqno, ATTACK_TIMEOUT_US, &o);
    if (o.result == VGPU_OK) {
        frames++;
        return true;
    }
    frame_failures++;
    printf(NAME ": frame failed: %s reason %" PRIu32 "\n", vgpu_result_name(o.result), o.reason);
    return false;
}

static const struct {
    const char *name;
    bool (*run)(void);
} attacks[] = {
    { "blit-outside", attack_blit_outside },
    { "store-outside", attack_store_outside },
    { "lri-forbidden", attack_lri_forbidden },
    { "ggtt-foreign", attack_ggtt_foreign },
    { "fence-foreign", attack_fence_foreign },
    { "batch-loop", attack_batch_loop },
    { "runaway", attack_runaway },
    { "fence-detile", attack_fence_detile },
    { "gpr-leak", attack_gpr_leak },
    { "gpr-plant", attack_gpr_plant },
    { "scratch-share", attack_scratch_share },
};
#define N_ATTACKS (sizeof attacks / sizeof attacks[0])

int guest_main(const struct tessera_boot_info *boot)
{
    char which[32];
    if (guest_cmdline_get(boot, "role", which, sizeof which) > 0 && strcmp(which, "victim") == 0)
        return victim_main(boot);
    if (guest_cmdline_get(boot, "attack", which, sizeof which) <= 0)
        strcpy(which, "all");
    guest_cmdline_u64(boot, "runaway_blits", &runaway_blits);
    bool all = strcmp(which, "all") == 0, known = all;
    for (unsigned i = 0; i < N_ATTACKS; i++)
        known |= strcmp(which, attacks[i].name) == 0;
    if (!known) {
        printf(NAME ": unknown attack '%s'\n", which);
        return 2;
    }
    if (!vgpu_kiosk_start(&k, boot, NAME, DEFAULT_BG))
        return 1;
    render_frame();

    unsigned tried = 0, escaped = 0;
    for (unsigned i = 0; i < N_ATTACKS; i++) {
        if (!all && strcmp(which, attacks[i].name) != 0)
            continue;
        tried++;
        if (!attacks[i].run())
            escaped++;
        if (render_frame())
            printf(NAME ": still rendering, frame %" PRIu64 "\n", frames);
    }
    printf(NAME ": done, %u of %u attacks NOT CONTAINED\n", escaped, tried);

    for (;;) {
        guest_sleep_us(STATUS_US);
        render_frame();
        printf(NAME ": frames %" PRIu64 " failures %" PRIu64 "\n", frames, frame_failures);
    }
}
