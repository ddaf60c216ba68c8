/*
 * Fixture for the PPGTT shadow: a guest with a small RAM, host pages for shadow tables, an
 * "EPT" that records which guest pages are write-protected and routes the guest's writes to
 * them through vgt_ppgtt_guest_write() (as the vGPU's EPT-violation handler will), and
 * builders that lay out tables the way i915 6.1's gen8_ppgtt.c does (gen8_init_scratch(), a
 * top-level PML4 of scratch entries, gen8_ppgtt_alloc() replacing scratch entries with real
 * tables, gen8_pte_encode() with the scratch page read-only).  Shared by the unit test and the
 * fuzzer.
 */
#ifndef TEST_VGT_PPGTT_FIXTURE_H
#define TEST_VGT_PPGTT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/vgpu/i915/vgt/vgt_ppgtt.h"

#define PX_RAM_PAGES   512u /* 2 MiB of guest RAM */
#define PX_RAM_BYTES   (PX_RAM_PAGES * 4096u)
#define PX_HPA_BASE    0x4000000000ull /* where the guest's RAM is in host memory */
#define PX_SHADOW_BASE 0x7000000000ull /* host pages for shadow tables */
#define PX_SCRATCH_HPA 0x7F00000000ull /* the vGPU's scratch page */
#define PX_HOST_PAGES  1024u

struct px {
    uint8_t ram[PX_RAM_BYTES];
    bool protected_[PX_RAM_PAGES];
    unsigned protect_calls, unprotect_calls;
    unsigned next_page;            /* guest page allocator */
    uint64_t *host[PX_HOST_PAGES]; /* shadow pages by index, NULL when free */
    unsigned host_live, host_allocs;
    unsigned fail_read_page; /* a page whose reads fail (0 = none) */
    struct vgt_ppgtt *p;
    /* i915's scratch chain */
    uint64_t scratch_page, scratch_pt, scratch_pd, scratch_pdp;
    /* the refusals reported through ops.refused, the last one whole */
    unsigned reported;
    struct vgt_ppgtt_refusal_info last;
};

static int px_gpa_to_hpa(void *ctx, uint64_t gpa, uint64_t *hpa)
{
    (void)ctx;
    if (gpa >= PX_RAM_BYTES)
        return -1;
    *hpa = PX_HPA_BASE + (gpa & ~4095ull);
    return 0;
}

static int px_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
    struct px *x = ctx;
    if (gpa >= PX_RAM_BYTES || len > PX_RAM_BYTES - gpa || (gpa & 4095u) + len > 4096u)
        return -1;
    if (x->fail_read_page && gpa / 4096u == x->fail_read_page)
        return -1;
    memcpy(buf, &x->ram[gpa], len);
    return 0;
}

static int px_page_alloc(void *ctx, uint64_t *hpa, uint64_t **va)
{
    struct px *x = ctx;
    for (unsigned i = 0; i < PX_HOST_PAGES; i++)
        if (!x->host[i]) {
            x->host[i] = calloc(512, 8);
            if (!x->host[i])
                return -1;
            *hpa = PX_SHADOW_BASE + 4096ull * i;
            *va = x->host[i];
            x->host_live++;
            x->host_allocs++;
            return 0;
        }
    return -1;
}

static void px_page_free(void *ctx, uint64_t hpa, uint64_t *va)
{
    struct px *x = ctx;
    unsigned i = (unsigned)((hpa - PX_SHADOW_BASE) / 4096u);
    if (i >= PX_HOST_PAGES || x->host[i] != va)
        abort(); /* freeing what was not allocated */
    free(va);
    x->host[i] = NULL;
    x->host_live--;
}

static void px_protect(void *ctx, uint64_t gpa, bool on)
{
    struct px *x = ctx;
    unsigned pg = (unsigned)(gpa / 4096u);
    if (gpa & 4095u || pg >= PX_RAM_PAGES || x->protected_[pg] == on)
        abort(); /* must be called once each way per page */
    x->protected_[pg] = on;
    if (on)
        x->protect_calls++;
    else
        x->unprotect_calls++;
}

/* A host page (shadow table) by host-physical address, or NULL. */
static inline uint64_t *px_host(const struct px *x, uint64_t hpa)
{
    if (hpa < PX_SHADOW_BASE)
        return NULL;
    uint64_t i = (hpa - PX_SHADOW_BASE) / 4096u;
    return i < PX_HOST_PAGES ? x->host[i] : NULL;
}

static inline void px_refused(void *ctx, const struct vgt_ppgtt_refusal_info *info)
{
    struct px *x = ctx;
    x->reported++;
    x->last = *info;
}

static inline struct vgt_ppgtt_config px_config(struct px *x, unsigned max_tables)
{
    struct vgt_ppgtt_config c = {
        .ops = { .ctx = x,
                 .gpa_to_hpa = px_gpa_to_hpa,
                 .read = px_read,
                 .page_alloc = px_page_alloc,
                 .page_free = px_page_free,
                 .protect = px_protect,
                 .refused = px_refused },
        .scratch_hpa = PX_SCRATCH_HPA,
        .max_tables = max_tables,
    };
    return c;
}

static inline uint64_t px_rd64(const struct px *x, uint64_t gpa)
{
    uint64_t v;
    memcpy(&v, &x->ram[gpa], 8);
    return v;
}

/* The guest's CPU stores to its RAM; a store to a write-protected page exits and the vGPU
 * hands it to the shadow after applying it. */
static inline void px_store(struct px *x, uint64_t gpa, const void *buf, uint32_t len)
{
    memcpy(&x->ram[gpa], buf, len);
    if (x->p && x->protected_[gpa / 4096u])
        vgt_ppgtt_guest_write(x->p, gpa, len);
}

static inline void px_store64(struct px *x, uint64_t gpa, uint64_t v)
{
    px_store(x, gpa, &v, 8);
}

/* i915's page allocation for page-table and scratch pages: fresh guest pages. */
static inline uint64_t px_page(struct px *x)
{
    if (x->next_page >= PX_RAM_PAGES)
        abort();
    return 4096ull * x->next_page++;
}

/* i915 gen8_pde_encode() / gen8_pte_encode(): address | present | rw (| cache bits). */
#define PX_PDE(gpa)    ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW)
#define PX_PTE(gpa)    ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW | GEN9_PPGTT_PTE_PAT)
#define PX_PTE_RO(gpa) ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_PCD | GEN9_PPGTT_PWT)

static inline void px_fill(struct px *x, uint64_t table, uint64_t entry)
{
    for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++)
        px_store64(x, table + 8u * i, entry);
}

/* gen8_init_scratch(): a read-only scratch page, then one scratch table per level, each
 * filled with the encoding of the one below. */
static inline void px_scratch(struct px *x)
{
    x->scratch_page = px_page(x);
    x->scratch_pt = px_page(x);
    x->scratch_pd = px_page(x);
    x->scratch_pdp = px_page(x);
    px_fill(x, x->scratch_pt, PX_PTE_RO(x->scratch_page));
    px_fill(x, x->scratch_pd, PX_PDE(x->scratch_pt));
    px_fill(x, x->scratch_pdp, PX_PDE(x->scratch_pd));
}

/* gen8_alloc_top_pd(): a PML4 whose every entry is the scratch PDP. */
static inline uint64_t px_pml4(struct px *x)
{
    uint64_t pml4 = px_page(x);
    px_fill(x, pml4, PX_PDE(x->scratch_pdp));
    return pml4;
}

/* gen8_ppgtt_alloc() + insert: make gfx map guest page `page`, allocating the tables below the
 * PML4 that are still scratch.  Returns the PT that holds the entry. */
static inline uint64_t px_bind(struct px *x, uint64_t pml4, uint64_t gfx, uint64_t pte)
{
    uint64_t table = pml4;
    for (unsigned level = GEN9_PPGTT_TOP_LEVEL; level > 0; level--) {
        uint64_t slot = table + 8u * gen9_ppgtt_index(gfx, level);
        uint64_t e = px_rd64(x, slot), scratch = level == 3 ? x->scratch_pdp
                                               : level == 2 ? x->scratch_pd
                                                            : x->scratch_pt;
        uint64_t child = gen9_ppgtt_entry_addr(e);
        if (child == scratch) {
            uint64_t fresh = px_page(x);
            uint64_t below = level == 3 ? PX_PDE(x->scratch_pd)
                           : level == 2 ? PX_PDE(x->scratch_pt)
                                        : PX_PTE_RO(x->scratch_page);
            px_fill(x, fresh, below); /* not yet reachable: no exits */
            px_store64(x, slot, PX_PDE(fresh));
            child = fresh;
        }
        table = child;
    }
    px_store64(x, table + 8u * gen9_ppgtt_index(gfx, 0), pte);
    return table;
}

#endif /* TEST_VGT_PPGTT_FIXTURE_H */
