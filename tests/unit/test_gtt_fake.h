/* A fake machine for the gtt tests: a physical GGTT in memory, guest RAM as disjoint host
 * ranges, and a per-vGPU EPT view of the aperture, all driven through struct gtt_ops.
 * Header-only so each test program stays one file. */
#ifndef TEST_GTT_FAKE_H
#define TEST_GTT_FAKE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"

#define FAKE_RAM_SIZE (UINT64_C(256) << 20) /* each guest: 256 MiB of RAM */
#define FAKE_SCRATCH  (UINT64_C(0x7000000000) | GEN9_GGTT_PTE_PRESENT) /* host scratch */

/* Guest v's RAM is host [(v + 1) GiB, (v + 1) GiB + 256 MiB). */
static inline uint64_t fake_ram_base(unsigned v)
{
    return (uint64_t)(v + 1) << 30;
}

struct fake_ept {
    enum gtt_ept_kind kind;
    uint64_t target;
};

struct fake {
    uint64_t *ggtt;
    uint32_t n_entries;
    uint64_t phys_writes;
    uint32_t aper_pages;
    struct fake_ept *ept; /* [vgpu * aper_pages + page] */
    uint64_t ept_updates;
    struct gtt_ept_update last_ept;
    unsigned last_ept_vgpu;
    unsigned deny_vgpu; /* translate refuses everything for this vGPU (or ~0u) */
    bool force;         /* translate answers force_hpa for everything */
    uint64_t force_hpa;
};

static void fake_ggtt_write(void *ctx, uint32_t index, uint64_t pte)
{
    struct fake *f = ctx;
    if (index < f->n_entries)
        f->ggtt[index] = pte;
    f->phys_writes++;
}

static int fake_translate(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    struct fake *f = ctx;
    if (vgpu == f->deny_vgpu || gpa >= FAKE_RAM_SIZE)
        return -1;
    *hpa = f->force ? f->force_hpa : fake_ram_base(vgpu) + gpa;
    return 0;
}

static void fake_ept_update(void *ctx, unsigned vgpu, const struct gtt_ept_update *u)
{
    struct fake *f = ctx;
    f->ept_updates++;
    f->last_ept = *u;
    f->last_ept_vgpu = vgpu;
    uint32_t page = (uint32_t)(u->aper_off >> GEN9_GTT_PAGE_SHIFT);
    if (f->ept && vgpu < GTT_MAX_VGPUS && page < f->aper_pages)
        f->ept[(size_t)vgpu * f->aper_pages + page] = (struct fake_ept){ u->kind, u->target };
}

static inline void fake_init(struct fake *f, const struct gtt_layout *l)
{
    memset(f, 0, sizeof *f);
    f->n_entries = (uint32_t)(l->ggtt_bytes >> GEN9_GTT_PAGE_SHIFT);
    f->ggtt = calloc(f->n_entries, sizeof *f->ggtt);
    f->aper_pages = (uint32_t)(l->aperture_bytes >> GEN9_GTT_PAGE_SHIFT);
    f->ept = calloc((size_t)GTT_MAX_VGPUS * f->aper_pages, sizeof *f->ept);
    f->deny_vgpu = ~0u;
}

static inline void fake_fini(struct fake *f)
{
    free(f->ggtt);
    free(f->ept);
}

static inline struct gtt_config fake_config(struct fake *f, const struct gtt_layout *l)
{
    struct gtt_config c = {
        .layout = l,
        .ops = { .ctx = f,
                 .ggtt_write = fake_ggtt_write,
                 .translate = fake_translate,
                 .ept_update = fake_ept_update },
        .scratch_pte = FAKE_SCRATCH,
        .copy = GTT_COPY_ENTRY,
        .slots = GTT_SLOTS_CONTIGUOUS,
        .host_fences = 0,
        .fences_per_vgpu = 4,
    };
    return c;
}

/* A guest PTE pointing at guest-physical page `gpa` (present). */
static inline uint64_t gpte(uint64_t gpa)
{
    return (gpa & GEN9_GGTT_PTE_ADDR_MASK) | GEN9_GGTT_PTE_PRESENT;
}

/* The host PTE gtt must produce for that guest write. */
static inline uint64_t hpte(unsigned v, uint64_t gpa)
{
    return (fake_ram_base(v) + (gpa & GEN9_GGTT_PTE_ADDR_MASK)) | GEN9_GGTT_PTE_PRESENT;
}

/* A small layout: 64 MiB GGTT, 16 MiB aperture, 1 MiB host area, 2 MiB fence pool, 1 MiB
 * slots (256 entries each) -> 48 slots; n guests asking low/high bytes each. */
static inline int small_layout(struct gtt_layout *l, unsigned n, uint64_t low, uint64_t high,
                               enum gtt_share_mode share)
{
    struct gtt_guest_request req[GTT_MAX_VGPUS];
    for (unsigned i = 0; i < n; i++)
        req[i] = (struct gtt_guest_request){ low, high };
    struct gtt_layout_params p = {
        .ggtt_bytes = UINT64_C(64) << 20,
        .aperture_bytes = UINT64_C(16) << 20,
        .host_area_bytes = UINT64_C(1) << 20,
        .fence_pool_bytes = UINT64_C(2) << 20,
        .slot_bytes = UINT64_C(1) << 20,
        .n_guests = n,
        .req = req,
        .share = share,
    };
    return gtt_layout_compute(&p, l, NULL, 0);
}

#endif
