/* Fuzzes the gtt library two ways from one input:
 *   - the first 48 bytes are layout parameters (sizes, guests, mode) fed to gtt_layout_compute,
 *     which must answer 0 or an error with a message, never crash;
 *   - the rest drives a small live struct gtt (8 vGPUs, tiny GGTT) through guest writes,
 *     switches, predictions, fence writes and balloon operations, and after every operation the
 *     two isolation invariants are checked: the running vGPU's ranges equal its shadow, and no
 *     physical entry points outside its owner's RAM. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "tests/fuzz/fuzz_oracle.h"

#define MB      (UINT64_C(1) << 20)
#define RAM     (UINT64_C(64) << 20)
#define SCRATCH (UINT64_C(0x7000000000) | GEN9_GGTT_PTE_PRESENT)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PHYS 4096u /* the live GGTT's entries (16 MiB) */
#define BLOCK    64u   /* entries per block of the owner check */

static uint64_t *phys;
static uint32_t n_phys;

/* What the owner check last saw (below): each entry's owner, which vGPUs existed, and the
 * blocks of physical entries written since. */
static uint16_t seen_owner[MAX_PHYS];
static bool seen_live[GTT_MAX_VGPUS];
static bool dirty[MAX_PHYS / BLOCK];

static void w(void *ctx, uint32_t index, uint64_t pte)
{
    (void)ctx;
    if (index >= n_phys)
        abort();
    phys[index] = pte;
    dirty[index / BLOCK] = true;
}

static int tr(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    (void)ctx;
    if (gpa >= RAM)
        return -1;
    *hpa = ((uint64_t)(vgpu + 1) << 30) + gpa;
    return 0;
}

static bool in_ram(unsigned v, uint64_t pte)
{
    uint64_t a = pte & GEN9_GGTT_PTE_ADDR_MASK;
    return a >= ((uint64_t)(v + 1) << 30) && a < ((uint64_t)(v + 1) << 30) + RAM;
}

/* The oracle reads the running vGPU's shadow arrays itself (its low range, then each slot it
 * holds) and compares them with the physical entries a block at a time: asking the library
 * entry by entry (gtt_shadow_pte) made this walk most of each input's time once inputs grew to
 * hundreds of operations. */
static FUZZ_ORACLE void check(const struct gtt *g)
{
    const struct gtt_vgpu *v = g->running != GTT_NO_VGPU ? g->vgpu[g->running] : NULL;
    if (v) {
        uint32_t lo = gtt_page_of(v->low.start), n = gtt_page_of(v->low.size);
        if (lo > n_phys || n > n_phys - lo || memcmp(&phys[lo], v->low_host, 8ull * n))
            abort();
        for (uint32_t s = 0; s < g->layout.n_slots; s++) {
            uint32_t first = g->first_slot_entry + s * g->slot_entries;
            if (v->slot_host[s] && (first > n_phys || g->slot_entries > n_phys - first ||
                                    memcmp(&phys[first], v->slot_host[s], 8ull * g->slot_entries)))
                abort();
        }
    }
    /* Every owned physical entry belongs to a live vGPU and points at its RAM or the scratch
     * page.  Whether entry i keeps that promise depends on its owner, its physical value and
     * whether that owner exists, nothing else; after a check every entry kept it.  So an entry
     * is looked at again only when one of those may have changed: its block was written (w),
     * its owner differs from what the last check saw, or a vGPU came or went (then all are).
     * Walking all 4,096 entries after every operation took a tenth of the run. */
    bool all = false;
    for (unsigned k = 0; k < GTT_MAX_VGPUS; k++)
        if ((g->vgpu[k] != NULL) != seen_live[k]) {
            seen_live[k] = g->vgpu[k] != NULL;
            all = true;
        }
    for (uint32_t b = 0; b * BLOCK < n_phys; b++) {
        uint32_t first = b * BLOCK, n = n_phys - first < BLOCK ? n_phys - first : BLOCK;
        if (!all && !dirty[b] &&
            !memcmp(&seen_owner[first], &g->owner[first], n * sizeof *seen_owner))
            continue;
        dirty[b] = false;
        memcpy(&seen_owner[first], &g->owner[first], n * sizeof *seen_owner);
        for (uint32_t i = first; i < first + n; i++) {
            uint16_t o = g->owner[i];
            if (o == GTT_NO_VGPU)
                continue;
            if (!g->vgpu[o] || (phys[i] != SCRATCH && !in_ram(o, phys[i])))
                abort();
        }
    }
    if (!gtt_pool_consistent(&g->pool))
        abort();
    for (unsigned k = 0; k < GTT_MAX_VGPUS; k++)
        if (g->vgpu[k] && !gtt_pool_consistent(&g->vgpu[k]->pool))
            abort();
}

static void fuzz_layout(struct cursor *c)
{
    static struct gtt_layout lay;
    struct gtt_guest_request req[4];
    struct gtt_layout_params p = {
        .ggtt_bytes = take(c, 5),
        .aperture_bytes = take(c, 5),
        .host_area_bytes = take(c, 4),
        .fence_pool_bytes = take(c, 4),
        .slot_bytes = take(c, 4),
        .n_guests = (unsigned)take(c, 1) % 5,
        .req = req,
        .share = (enum gtt_share_mode)(take(c, 1) % 4),
        .max_share = (unsigned)take(c, 1) % 4,
    };
    for (unsigned i = 0; i < 4; i++)
        /* cppcheck-suppress unreadVariable ; p.req points at req: gtt_layout_compute() reads it */
        req[i] = (struct gtt_guest_request){ take(c, 3) << 12, take(c, 3) << 12 };
    char err[160];
    int rc = gtt_layout_compute(&p, &lay, err, sizeof err);
    if (rc != 0 && err[0] == '\0')
        abort();
    if (rc == 0) {
        for (unsigned i = 0; i < p.n_guests; i++) {
            const struct gtt_guest_layout *gl = &lay.guest[i];
            if (gl->low.size &&
                (gl->low.start < lay.low_guest.start ||
                 gl->low.start + gl->low.size > lay.low_guest.start + lay.low_guest.size))
                abort();
            if (gl->first_slot + gl->n_slots > lay.n_slots)
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };
    fuzz_layout(&c);

    /* 16 MiB GGTT: 8 MiB aperture (1 host, 1 pool, 6 low), 8 slots of 1 MiB. */
    static struct gtt_layout lay;
    struct gtt_guest_request req[8];
    for (unsigned i = 0; i < 8; i++)
        req[i] = (struct gtt_guest_request){ MB, 2 * MB };
    struct gtt_layout_params p = {
        .ggtt_bytes = 16 * MB,
        .aperture_bytes = 8 * MB,
        .host_area_bytes = MB,
        .fence_pool_bytes = MB,
        .slot_bytes = MB,
        .n_guests = 8,
        .req = req,
    };
    if (gtt_layout_compute(&p, &lay, NULL, 0))
        abort();
    n_phys = (uint32_t)(lay.ggtt_bytes >> 12);
    if (n_phys > MAX_PHYS)
        abort();
    phys = calloc(n_phys, sizeof *phys);
    /* The first check looks at every entry. */
    memset(seen_live, 0, sizeof seen_live);
    memset(dirty, 1, sizeof dirty);
    struct gtt *g = calloc(1, sizeof *g);
    uint8_t mode = (uint8_t)take(&c, 1);
    struct gtt_config cfg = {
        .layout = &lay,
        .ops = { .ggtt_write = w, .translate = tr },
        .scratch_pte = SCRATCH,
        .copy = (enum gtt_copy_mode)(mode % 3),
        .slots = (enum gtt_slot_mode)((mode >> 2) & 1),
        .host_fences = 28,
        .balloon_count_idle = (mode >> 3) & 1,
    };
    if (!phys || !g || gtt_init(g, &cfg))
        abort();
    for (unsigned v = 0; v < 8; v++) {
        if (gtt_vgpu_create_from_layout(g, v))
            abort();
        g->vgpu[v]->max_slots = 5;
    }
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1), v = op >> 5;
        switch (op & 7) {
        case 0:
        case 1: {
            uint32_t idx = (uint32_t)take(&c, 2) % (n_phys + 4);
            uint64_t pte = take(&c, 8);
            gtt_guest_write(g, v, idx, pte);
            break;
        }
        case 2:
            gtt_set_active(g, v, (op >> 3) & 1);
            break;
        case 3:
            gtt_switch_to(g, v);
            break;
        case 4:
            gtt_predict(g, v);
            break;
        case 5: {
            /* A fence write applied at once, or requested and worked on in one bounded step
             * (the vGPU's way: partly applied fences stay between operations). */
            struct gtt_fence_result r;
            unsigned fi = (unsigned)take(&c, 1) % 6;
            uint64_t val = take(&c, 8);
            if ((op >> 3) & 1) {
                gtt_fence_write(g, v, fi, val, &r, NULL, 0);
            } else {
                gtt_fence_request(g, v, fi, val, NULL, 0);
                int pf = gtt_fence_pending(g, v);
                if (pf >= 0)
                    gtt_fence_work(g, v, (unsigned)pf, (uint32_t)take(&c, 1) % 16, &r, NULL, 0);
            }
            break;
        }
        case 6:
            if ((op >> 3) & 1)
                gtt_balloon_grow(g, v, (op >> 4) & 1 ? 2 : 1);
            else
                gtt_balloon_shrink(g, v, (op >> 4) & 1 ? 2 : 1);
            break;
        default:
            if ((op >> 3) & 1) {
                gtt_vgpu_destroy(g, v, NULL);
                if (gtt_vgpu_create_from_layout(g, v))
                    abort();
            } else {
                gtt_vgpu_reset(g, v, NULL);
            }
            break;
        }
        check(g);
    }
    gtt_fini(g);
    free(g);
    free(phys);
    return 0;
}
