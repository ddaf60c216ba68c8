/* The hog's attacks (main.c lists them).  Each prints what it does once, then a status line
 * every STATUS_US with its guest time in ms and its counters, for ever. */
#include "guests/hog/hog.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>

#define WAIT_US          (120u * 1000u * 1000u)
#define RUNAWAY_BLITS    64u                 /* fills of the big surface in one runaway batch */
#define FENCE_PITCH      512u                /* X tiles: one 4 KiB tile row per 8 rows */
#define FENCE_MAX_BYTES  (32u << 20)
#define FENCE_MIN_BYTES  (64u << 10)
#define FLOOD_GGTT_INDEX 0u                  /* entry 0: the hypervisor's, never a guest's */

static uint64_t status_next;

static bool status_due(void)
{
    uint64_t now = guest_now_us();
    if (now < status_next)
        return false;
    status_next = now + STATUS_US;
    return true;
}

static uint64_t now_ms(void) { return guest_now_us() / 1000u; }

/* Keeps the vGPU's max_inflight workloads of `dw` in flight for ever, counting how they end. */
static void keep_busy(const char *name, const uint32_t *dw, uint32_t n)
{
    uint64_t ran = 0, reset = 0, other = 0;
    uint32_t pending[VGPU_MAX_INFLIGHT] = { 0 };
    unsigned depth = k.v.max_inflight, i = 0;
    for (;;) {
        if (pending[i]) {
            struct vgpu_outcome o;
            enum vgpu_result r = vgpu_wait(&k.v, pending[i], WAIT_US, &o);
            ran += r == VGPU_OK;
            reset += r == VGPU_RESET;
            other += r != VGPU_OK && r != VGPU_RESET;
        }
        pending[i] = vgpu_submit(&k.v, dw, n);
        if (!pending[i]) {
            other++;
            guest_sleep_us(10000);
        }
        i = (i + 1) % depth;
        if (status_due())
            printf(HOG ": %s t %" PRIu64 " ran %" PRIu64 " reset %" PRIu64 " other %" PRIu64 "\n",
                   name, now_ms(), ran, reset, other);
    }
}

void attack_idle(void)
{
    printf(HOG ": attack idle: nothing\n");
    for (;;) {
        guest_sleep_us(STATUS_US);
        printf(HOG ": idle t %" PRIu64 "\n", now_ms());
    }
}

/* Rows of the big surface one fill needs to take `ns` of GPU time, from a measurement. */
static uint32_t rows_for(uint64_t ns, uint64_t *fill_ns)
{
    uint32_t probe = 256;
    uint64_t t = hog_measure_fill_ns((uint64_t)HOG_PITCH_PX * probe);
    uint64_t rows = t ? ns * probe / t : hog_max_rows();
    if (rows < 1)
        rows = 1;
    if (rows > hog_max_rows())
        rows = hog_max_rows();
    *fill_ns = t ? t * rows / probe : 0;
    return (uint32_t)rows;
}

void attack_drain_runaway(void)
{
    struct vgpu_bo batch;
    uint64_t gm;
    uint32_t rows = hog_max_rows() / 2, batch_dw = RUNAWAY_BLITS * GEN9_XY_COLOR_BLT_LEN + 1u;
    if (!hog_big_surface(rows, &gm) || !vgpu_bo_alloc(&k.v, &batch, batch_dw * 4u, VGPU_GM_LOW)) {
        printf(HOG ": drain-runaway: cannot set up\n");
        return;
    }
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, vgpu_bo_cpu(&batch), batch_dw);
    for (uint32_t i = 0; i < RUNAWAY_BLITS; i++)
        vgpu_emit_color_blt(&cb, gm, HOG_PITCH_PX * 4u, 0, 0, HOG_PITCH_PX, rows,
                            i & 1 ? 0x00FF00u : 0x0000FFu);
    vgpu_emit_bb_end(&cb);
    printf(HOG ": attack drain-runaway: batches of %u fills of %ux%" PRIu32 " back to back\n",
           RUNAWAY_BLITS, HOG_PITCH_PX, rows);
    uint32_t dw[GEN9_MI_BATCH_BUFFER_START_LEN];
    vgpu_cmdbuf_init(&cb, dw, GEN9_MI_BATCH_BUFFER_START_LEN);
    vgpu_emit_bb_start(&cb, batch.gm, false);
    keep_busy("drain-runaway", dw, cb.n);
}

static void one_fill_forever(const char *name, uint64_t want_ns)
{
    uint64_t gm, fill_ns;
    uint32_t rows = rows_for(want_ns, &fill_ns);
    if (!hog_big_surface(rows, &gm)) {
        printf(HOG ": %s: cannot set up\n", name);
        return;
    }
    printf(HOG ": attack %s: one fill of %ux%" PRIu32 " per workload, measured %" PRIu64
           " ms of GPU time, %u in flight\n", name, HOG_PITCH_PX, rows, fill_ns / 1000000u,
           k.v.max_inflight);
    uint32_t dw[GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GEN9_XY_COLOR_BLT_LEN);
    vgpu_emit_color_blt(&cb, gm, HOG_PITCH_PX * 4u, 0, 0, HOG_PITCH_PX, rows, 0xFF8000u);
    keep_busy(name, dw, cb.n);
}

void attack_giant_blit(void)
{
    one_fill_forever("giant-blit", hog_giant_ms * 1000000u);
}

void attack_long_work(void)
{
    one_fill_forever("long-work", hog_target_ms * 1000000u);
}

/* The largest fence (a power of two from FENCE_MAX_BYTES down) the vGPU accepts for fence i at
 * gm; 0 if none. */
static uint32_t largest_fence(uint32_t i, uint32_t gm, uint32_t limit)
{
    for (uint32_t size = FENCE_MAX_BYTES; size >= FENCE_MIN_BYTES; size /= 2)
        if (size <= limit && vgpu_fence_set(&k.v, i, gm, size, FENCE_PITCH, false))
            return size;
    return 0;
}

void attack_fence_storm(void)
{
    uint32_t gm = (uint32_t)k.v.low_base;
    uint32_t size = largest_fence(0, gm, (uint32_t)k.v.low_size);
    if (!size) {
        printf(HOG ": fence-storm: no fence accepted\n");
        return;
    }
    uint64_t value = vgpu_read64(&k.v, GEN9_FENCE_REG_LO(0)), writes = 0;
    printf(HOG ": attack fence-storm: fence 0 of %" PRIu32 " KiB at 0x%" PRIx32
           " written and cleared in a loop\n", size >> 10, gm);
    for (;;) {
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(0), 0);
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(0), value);
        writes += 2;
        if (status_due())
            printf(HOG ": fence-storm t %" PRIu64 " writes %" PRIu64 " refused %" PRIu32 "\n",
                   now_ms(), writes, vgpu_ext_read(&k.v, offsetof(struct tessera_balloon_if,
                                                                  fence_refused)));
    }
}

void attack_fence_hog(void)
{
    uint32_t gm = (uint32_t)k.v.low_base, held = 0, n = 0;
    for (uint32_t i = 0; i < k.v.fence_num; i++) {
        uint32_t size = largest_fence(i, gm, (uint32_t)(k.v.low_base + k.v.low_size - gm));
        if (!size)
            break;
        gm += size;
        held += size;
        n++;
    }
    printf(HOG ": attack fence-hog: holds %" PRIu32 " KiB of the fence pool in %" PRIu32
           " fences\n", held >> 10, n);
    for (;;) {
        guest_sleep_us(STATUS_US);
        printf(HOG ": fence-hog t %" PRIu64 " holds %" PRIu32 " KiB\n", now_ms(), held >> 10);
    }
}

void attack_log_flood(void)
{
    uint32_t dw[3];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 3);
    vgpu_emit_lri(&cb, GEN9_GDRST, GEN9_GRDOM_FULL);        /* refused by the scanner */
    printf(HOG ": attack log-flood: refused workloads, GGTT writes and fence writes in a loop\n");
    uint64_t n = 0;
    for (;;) {
        uint32_t seqno = vgpu_submit(&k.v, dw, cb.n);
        if (seqno)
            vgpu_wait(&k.v, seqno, WAIT_US, NULL);
        vgpu_ggtt_write(&k.v, FLOOD_GGTT_INDEX, gen9_ggtt_pte_encode(0));
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(k.v.fence_num), GEN9_FENCE_VALID);
        n += 3;
        if (status_due())
            printf(HOG ": log-flood t %" PRIu64 " refusals %" PRIu64 "\n", now_ms(), n);
    }
}
