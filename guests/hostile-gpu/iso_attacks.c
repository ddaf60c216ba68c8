/* The four ways across the guest boundary an outside attack suite found, as a guest
 * makes them, each judged from what this guest observes (a victim guest, victim.c, runs beside
 * it and judges the other direction):
 *
 *   fence-detile   a 256 KiB X-tiled fence with a 256 KiB pitch over its own data: de-tiling
 *                  would reach 2 MiB past the fence's pool range, where the victim keeps its
 *                  fenced data.  Reads every 512th dword through the aperture; any word that is
 *                  not its own is foreign.
 *   gpr-leak       reads all sixteen BCS GPRs in workload after workload while the victim loads
 *                  its own tags into them: any value it never wrote is foreign.
 *   gpr-plant      loads its tags into every GPR (the victim reports whether they reach it) and
 *                  checks, after others' work, that its own registers kept them.
 *   scratch-share  copies from one of its own never-mapped pages, where the victim's unmapped
 *                  page gets the victim's tag every frame: anything but zeros (or its own tag)
 *                  is foreign; then writes its own tag there for the victim to find.
 *
 * Result lines: "<name>: refused" / "<name>: contained (...)" / "<name>: NOT CONTAINED (...)". */
#include "guests/hostile-gpu/hostile.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>

#define ROUNDS        12u /* looks, spaced so the victim runs in between */
#define ROUND_GAP_US  (150u * 1000u)
#define SAMPLE_STRIDE 512u /* bytes between the dwords read through the fence */

bool hostile_unmapped_page(struct vgpu *v, uint64_t *gm)
{
    uint64_t end = v->low_base + v->low_size;
    for (unsigned i = 1; i <= 16 && i * VGPU_PAGE <= v->low_size; i++) {
        uint64_t a = end - (uint64_t)i * VGPU_PAGE;
        if (!(vgpu_ggtt_read(v, (uint32_t)(a >> GEN9_GTT_PAGE_SHIFT)) & GEN9_GGTT_PTE_PRESENT)) {
            *gm = a;
            return true;
        }
    }
    return false;
}

bool hostile_run(struct vgpu *v, const uint32_t *dw, uint32_t n)
{
    uint32_t seqno = vgpu_submit(v, dw, n);
    return seqno && vgpu_wait(v, seqno, ATTACK_TIMEOUT_US, NULL) == VGPU_OK;
}

/* The result line of an attack that looked `runs` of ROUNDS times and saw `bad` values that
 * were not its own (the first is `example`); true if contained. */
static bool verdict(const char *attack, unsigned runs, unsigned bad, uint32_t example,
                    const char *bad_what, const char *ok_what)
{
    if (runs < ROUNDS) {
        printf(NAME ": %s: NOT CONTAINED (its workloads did not run)\n", attack);
        return false;
    }
    if (bad) {
        printf(NAME ": %s: NOT CONTAINED (%u %s, e.g. 0x%08" PRIx32 ")\n", attack, bad, bad_what,
               example);
        return false;
    }
    printf(NAME ": %s: contained (%u rounds: %s)\n", attack, runs, ok_what);
    return true;
}

bool attack_fence_detile(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo bo;
    if (!vgpu_bo_alloc(v, &bo, DETILE_BYTES, VGPU_GM_LOW) ||
        !guest_map_uncached(v->bar2 + bo.gm, DETILE_BYTES))
        return printf(NAME ": fence-detile: cannot set up\n"), false;
    uint32_t *own = vgpu_bo_cpu(&bo);
    for (uint32_t i = 0; i < DETILE_BYTES / 4u; i++)
        own[i] = HOSTILE_OWN_TAG | i;
    printf(NAME ": attack fence-detile: fence 1 over its 0x%" PRIx64 "+0x%x, X-tiled, pitch 0x%x "
                "(one row as wide as the fence)\n",
           bo.gm, DETILE_BYTES, DETILE_BYTES);
    if (!vgpu_fence_set(v, 1, (uint32_t)bo.gm, DETILE_BYTES, DETILE_BYTES, false)) {
        vgpu_bo_free(v, &bo);
        printf(NAME ": fence-detile: refused\n");
        return true;
    }
    const volatile uint32_t *ap = (const volatile uint32_t *)(uintptr_t)(v->bar2 + bo.gm);
    unsigned n = 0, foreign = 0;
    uint32_t example = 0;
    for (uint32_t off = 0; off < DETILE_BYTES; off += SAMPLE_STRIDE, n++) {
        uint32_t w = ap[off / 4u];
        if ((w & 0xF0000000u) != HOSTILE_OWN_TAG) {
            if (!foreign++)
                example = w;
        }
    }
    vgpu_fence_write(v, 1, 0);
    vgpu_bo_free(v, &bo);
    if (foreign) {
        printf(NAME ": fence-detile: NOT CONTAINED (%u of %u dwords read through the fence were "
                    "not its own, e.g. 0x%08" PRIx32 ")\n",
               foreign, n, example);
        return false;
    }
    printf(NAME ": fence-detile: contained (%u dwords read, all its own)\n", n);
    return true;
}

/* Stores all GPR dwords to out.gm and checks each is 0 or `own | index`; returns the number of
 * foreign values (the first in *example), or -1 if the workload did not run. */
static int read_gprs(struct vgpu *v, const struct vgpu_bo *out, uint32_t own, uint32_t *example)
{
    uint32_t dw[GPR_DWORDS * GEN9_MI_SRM_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GPR_DWORDS * GEN9_MI_SRM_LEN);
    for (uint32_t i = 0; i < GPR_DWORDS; i++)
        vgpu_emit_srm(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i, out->gm + 4u * i);
    if (!hostile_run(v, dw, cb.n))
        return -1;
    const volatile uint32_t *r = vgpu_bo_cpu(out);
    int foreign = 0;
    for (uint32_t i = 0; i < GPR_DWORDS; i++)
        if (r[i] != 0 && r[i] != (own | i) && !foreign++)
            *example = r[i];
    return foreign;
}

bool attack_gpr_leak(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo out;
    if (!vgpu_bo_alloc(v, &out, VGPU_PAGE, VGPU_GM_LOW))
        return printf(NAME ": gpr-leak: cannot set up\n"), false;
    printf(NAME ": attack gpr-leak: reads its %u BCS GPR dwords in %u workloads while others run\n",
           GPR_DWORDS, ROUNDS);
    unsigned foreign = 0, runs = 0;
    uint32_t example = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        int f = read_gprs(v, &out, HOSTILE_GPR_TAG, &example);
        if (f < 0)
            break;
        runs++;
        foreign += (unsigned)f;
        guest_sleep_us(ROUND_GAP_US);
    }
    vgpu_bo_free(v, &out);
    return verdict("gpr-leak", runs, foreign, example, "register values it never wrote",
                   "no GPR value another guest's");
}

bool attack_gpr_plant(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo out;
    if (!vgpu_bo_alloc(v, &out, VGPU_PAGE, VGPU_GM_LOW))
        return printf(NAME ": gpr-plant: cannot set up\n"), false;
    printf(NAME ": attack gpr-plant: loads 0x%08x|n into its %u BCS GPR dwords for the next "
                "guest to find\n",
           HOSTILE_GPR_TAG, GPR_DWORDS);
    uint32_t dw[GPR_DWORDS * 3u];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, GPR_DWORDS * 3u);
    for (uint32_t i = 0; i < GPR_DWORDS; i++)
        vgpu_emit_lri(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i, HOSTILE_GPR_TAG | i);
    unsigned lost = 0, runs = 0;
    uint32_t example = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        if (!hostile_run(v, dw, cb.n))
            break;
        guest_sleep_us(ROUND_GAP_US);
        /* after others' work its own registers must still hold its values */
        uint32_t ex = 0;
        int f = read_gprs(v, &out, HOSTILE_GPR_TAG, &ex);
        if (f < 0)
            break;
        const volatile uint32_t *got = vgpu_bo_cpu(&out);
        for (uint32_t i = 0; i < GPR_DWORDS; i++)
            if (got[i] != (HOSTILE_GPR_TAG | i) && !lost++)
                example = got[i];
        runs++;
    }
    vgpu_bo_free(v, &out);
    return verdict("gpr-plant", runs, lost, example, "of its register values changed under it",
                   "its values stayed its own; the victim reports what reached it");
}

bool attack_scratch_share(void)
{
    struct vgpu *v = &k.v;
    struct vgpu_bo out;
    uint64_t hole;
    if (!hostile_unmapped_page(v, &hole) || !vgpu_bo_alloc(v, &out, VGPU_PAGE, VGPU_GM_LOW))
        return printf(NAME ": scratch-share: cannot set up\n"), false;
    printf(NAME ": attack scratch-share: copies its never-mapped page 0x%" PRIx64 " out, then "
                "writes 0x%08x there\n",
           hole, HOSTILE_SCRATCH_TAG);
    unsigned foreign = 0, runs = 0;
    uint32_t example = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        uint32_t dw[2 * GEN9_XY_SRC_COPY_BLT_LEN];
        struct vgpu_cmdbuf cb;
        vgpu_cmdbuf_init(&cb, dw, 2 * GEN9_XY_SRC_COPY_BLT_LEN);
        vgpu_emit_color_blt(&cb, out.gm, VGPU_PAGE, 0, 0, VGPU_PAGE / 4u, 1, 0x01010101u);
        vgpu_emit_copy_blt(&cb, out.gm, VGPU_PAGE, 0, 0, hole, VGPU_PAGE, 0, 0, VGPU_PAGE / 4u, 1);
        if (!hostile_run(v, dw, cb.n))
            break;
        runs++;
        const volatile uint32_t *got = vgpu_bo_cpu(&out);
        for (uint32_t i = 0; i < VGPU_PAGE / 4u; i++)
            if (got[i] != 0 && got[i] != HOSTILE_SCRATCH_TAG && !foreign++)
                example = got[i];
        /* from the second round on, its own tag is there for the victim to find */
        uint32_t fill[GEN9_XY_COLOR_BLT_LEN];
        vgpu_cmdbuf_init(&cb, fill, GEN9_XY_COLOR_BLT_LEN);
        vgpu_emit_color_blt(&cb, hole, VGPU_PAGE, 0, 0, VGPU_PAGE / 4u, 1, HOSTILE_SCRATCH_TAG);
        if (!hostile_run(v, fill, cb.n))
            break;
        guest_sleep_us(ROUND_GAP_US);
    }
    vgpu_bo_free(v, &out);
    return verdict("scratch-share", runs, foreign, example,
                   "dwords of its unmapped page were another guest's",
                   "its unmapped page held nothing but zeros and its own tag");
}
