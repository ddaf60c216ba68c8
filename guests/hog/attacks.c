/* The hog's attacks (main.c lists them).  Each prints what it does once, then a status line
 * every STATUS_US with its guest time in ms and its counters, until hog_until_us (for ever in
 * a boot of one attack); then it gives back what it holds and waits for its work, so the next
 * attack of a sequence starts from a quiet vGPU. */
#include "guests/hog/hog.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>

#define WAIT_US           (120u * 1000u * 1000u)
#define RUNAWAY_BLITS     64u  /* fills of the big surface in one runaway batch */
#define FENCE_PITCH       512u /* X tiles: one 4 KiB tile row per 8 rows */
#define FENCE_MAX_BYTES   (32u << 20)
#define FENCE_MIN_BYTES   (64u << 10)
#define FLOOD_GGTT_INDEX  0u          /* entry 0: the hypervisor's, never a guest's */
#define NOOP_REJECT_BYTES (16u << 10) /* the vGPU's batch-copy buffer */
#define FOREIGN_LRCA      0x1000u     /* the hypervisor's graphics memory, never a guest's */

static uint64_t status_next;
uint64_t hog_until_us = UINT64_MAX;

static bool running(void)
{
    return guest_now_us() < hog_until_us;
}

static bool status_due(void)
{
    uint64_t now = guest_now_us();
    if (now < status_next)
        return false;
    status_next = now + STATUS_US;
    return true;
}

static uint64_t now_ms(void)
{
    return guest_now_us() / 1000u;
}

/* Keeps `depth` workloads of `dw` in flight until the attack ends, counting how they end. */
static void keep_busy_depth(const char *name, const uint32_t *dw, uint32_t n, unsigned depth)
{
    uint64_t ran = 0, reset = 0, other = 0;
    uint32_t pending[VGPU_MAX_INFLIGHT] = { 0 };
    unsigned i = 0;
    while (running()) {
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
    vgpu_wait_idle(&k.v, WAIT_US);
}

static void keep_busy(const char *name, const uint32_t *dw, uint32_t n)
{
    keep_busy_depth(name, dw, n, k.v.max_inflight);
}

void attack_idle(void)
{
    printf(HOG ": attack idle: nothing\n");
    while (running()) {
        uint64_t left = hog_until_us - guest_now_us();
        guest_sleep_us(left < STATUS_US ? left : STATUS_US);
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
               " ms of GPU time, %u in flight\n",
           name, HOG_PITCH_PX, rows, fill_ns / 1000000u, k.v.max_inflight);
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
               " written and cleared in a loop\n",
           size >> 10, gm);
    while (running()) {
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(0), 0);
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(0), value);
        writes += 2;
        if (status_due())
            printf(HOG ": fence-storm t %" PRIu64 " writes %" PRIu64 " refused %" PRIu32 "\n",
                   now_ms(), writes,
                   vgpu_ext_read(&k.v, offsetof(struct tessera_balloon_if, fence_refused)));
    }
    vgpu_write64(&k.v, GEN9_FENCE_REG_LO(0), 0);
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
               " fences\n",
           held >> 10, n);
    while (running()) {
        uint64_t left = hog_until_us - guest_now_us();
        guest_sleep_us(left < STATUS_US ? left : STATUS_US);
        printf(HOG ": fence-hog t %" PRIu64 " holds %" PRIu32 " KiB\n", now_ms(), held >> 10);
    }
    for (uint32_t i = 0; i < n; i++)
        vgpu_write64(&k.v, GEN9_FENCE_REG_LO(i), 0);
}

void attack_log_flood(void)
{
    uint32_t dw[3];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 3);
    vgpu_emit_lri(&cb, GEN9_GDRST, GEN9_GRDOM_FULL); /* refused by the scanner */
    printf(HOG ": attack log-flood: refused workloads, GGTT writes and fence writes in a loop\n");
    uint64_t n = 0;
    while (running()) {
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

/* Workloads the scanner reads to the end before it refuses them: a batch that fills the whole
 * batch-copy buffer (16 KiB, docs/vgpu.md) with MI_NOOPs and ends in a forbidden register load.
 * Each costs the hypervisor a copy and a scan of 4096 dwords, and is refused. */
void attack_noop_reject(void)
{
    struct vgpu_bo batch;
    uint32_t batch_dw = NOOP_REJECT_BYTES / 4u;
    if (!vgpu_bo_alloc(&k.v, &batch, NOOP_REJECT_BYTES, VGPU_GM_LOW)) {
        printf(HOG ": noop-reject: cannot set up\n");
        return;
    }
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, vgpu_bo_cpu(&batch), batch_dw);
    while (cb.n < batch_dw - GEN9_MI_LRI_DW(1))
        vgpu_emit_noop(&cb);
    vgpu_emit_lri(&cb, GEN9_GDRST, GEN9_GRDOM_FULL);
    printf(HOG ": attack noop-reject: batches of %" PRIu32 " MI_NOOPs ending in a forbidden LRI, "
               "one after the other\n",
           cb.n - GEN9_MI_LRI_DW(1));
    uint32_t dw[GEN9_MI_BATCH_BUFFER_START_LEN];
    vgpu_cmdbuf_init(&cb, dw, GEN9_MI_BATCH_BUFFER_START_LEN);
    vgpu_emit_bb_start(&cb, batch.gm, false);
    uint64_t refused = 0, other = 0;
    while (running()) {
        uint32_t seqno = vgpu_submit(&k.v, dw, cb.n);
        struct vgpu_outcome o;
        if (seqno && vgpu_wait(&k.v, seqno, WAIT_US, &o) == VGPU_REJECTED)
            refused++;
        else
            other++;
        if (status_due())
            printf(HOG ": noop-reject t %" PRIu64 " refused %" PRIu64 " other %" PRIu64 "\n",
                   now_ms(), refused, other);
    }
}

/* ELSP writes whose context lies in graphics memory that is not the guest's (the hypervisor's
 * area at the bottom of the GGTT): each is refused and logged by the vGPU. */
void attack_elsp_foreign(void)
{
    uint64_t desc = gen9_ctx_desc(FOREIGN_LRCA, 1,
                                  GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT);
    uint32_t elsp = GEN9_RING_ELSP(GEN9_BCS_BASE);
    printf(HOG ": attack elsp-foreign: ELSP writes naming a context at 0x%x, in the hypervisor's "
               "graphics memory\n",
           FOREIGN_LRCA);
    uint64_t n = 0;
    while (running()) {
        vgpu_write32(&k.v, elsp, 0);
        vgpu_write32(&k.v, elsp, 0);
        vgpu_write32(&k.v, elsp, (uint32_t)(desc >> 32));
        vgpu_write32(&k.v, elsp, (uint32_t)desc);
        n++;
        if (status_due())
            printf(HOG ": elsp-foreign t %" PRIu64 " writes %" PRIu64 " rejected %" PRIu32 "\n",
                   now_ms(), n, vgpu_ext_read(&k.v, offsetof(struct tessera_balloon_if, rejected)));
    }
}

/* Legal workloads of two MI_NOOPs, as many in flight as the library allows, as fast as the
 * ring takes them: the most submissions (exits, scans, dispatches) per GPU nanosecond. */
void attack_noop_flood(void)
{
    uint32_t dw[2] = { GEN9_MI_NOOP, GEN9_MI_NOOP };
    printf(HOG ": attack noop-flood: workloads of 2 MI_NOOPs, %u in flight\n", VGPU_MAX_INFLIGHT);
    keep_busy_depth("noop-flood", dw, 2, VGPU_MAX_INFLIGHT);
}
