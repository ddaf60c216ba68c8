/*
 * The PPGTT shadow's tables: finding a guest table page's shadow, building one (reading the
 * guest's 512 entries and shadowing each), releasing it, and re-shadowing the entries a
 * trapped guest write changed.  vgt_ppgtt.h says what is checked and why.
 *
 * Recursion depth is the number of levels (4) whatever the guest writes: a table's children
 * are one level lower, and a page already shadowed at another level is refused
 * (VGT_PPGTT_R_LEVEL_MIX), so no walk can loop.
 */
#include <stdlib.h>
#include <string.h>

#include "vmm/vgpu/i915/vgt/vgt_ppgtt_internal.h"

static unsigned bucket(uint64_t gpa)
{
    uint64_t pfn = gpa >> GEN9_GTT_PAGE_SHIFT;
    return (unsigned)((pfn ^ (pfn >> 10) ^ (pfn >> 20)) & (PT_HASH_BUCKETS - 1u));
}

struct pt *pt_lookup(const struct vgt_ppgtt *p, uint64_t gpa)
{
    gpa &= ~(uint64_t)GEN9_GTT_PAGE_MASK;
    for (struct pt *t = p->hash[bucket(gpa)]; t; t = t->next)
        if (t->gpa == gpa)
            return t;
    return NULL;
}

static void hash_remove(struct vgt_ppgtt *p, struct pt *t)
{
    for (struct pt **pp = &p->hash[bucket(t->gpa)]; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            return;
        }
}

/* Cache and access bits of a guest entry the shadow keeps (PRM PPGTT entry format; i915
 * gen8_pde_encode()/gen8_pte_encode()): present, RW, and the PAT selectors. */
static uint64_t kept_bits(uint64_t e, unsigned level)
{
    uint64_t keep = GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW | GEN9_PPGTT_CACHE_BITS;
    if (level == 0)
        keep |= GEN9_PPGTT_PTE_PAT; /* bit 7 is the page-size bit above level 0 */
    return e & keep;
}

/* The shadow of an entry that is not present or refused: a scratch table below, or the
 * vGPU's scratch page read-only. */
static uint64_t scratch_entry(const struct vgt_ppgtt *p, unsigned level)
{
    if (level == 0)
        return p->cfg.scratch_hpa | GEN9_PPGTT_PRESENT;
    return p->scratch_hpa[level - 1u] | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW;
}

static void set_refused(struct vgt_ppgtt *p, struct pt *t, unsigned i, enum vgt_ppgtt_refusal r)
{
    pt_refuse(p, r, t->gpa, t->level, i, t->guest[i]);
    t->state[i] = (uint8_t)(PTE_REFUSED_BASE + r);
    t->shadow[i] = scratch_entry(p, t->level);
}

/* Shadow entry i of t from t->guest[i].  The previous shadow must hold no reference. */
static void fill_entry(struct vgt_ppgtt *p, struct pt *t, unsigned i)
{
    uint64_t e = t->guest[i], gpa = gen9_ppgtt_entry_addr(e), hpa;
    enum vgt_ppgtt_refusal why = VGT_PPGTT_R_NONE;

    if (!(e & GEN9_PPGTT_PRESENT)) {
        t->state[i] = PTE_NOT_PRESENT;
        t->shadow[i] = scratch_entry(p, t->level);
        return;
    }
    if (t->level == 0) {
        if (pt_lookup(p, gpa))
            return set_refused(p, t, i, VGT_PPGTT_R_TABLE_AS_DATA);
        if (p->cfg.ops.gpa_to_hpa(p->cfg.ops.ctx, gpa, &hpa) != 0)
            return set_refused(p, t, i, VGT_PPGTT_R_OUTSIDE_RAM);
        t->state[i] = PTE_SHADOWED;
        t->shadow[i] = (hpa & GEN9_PPGTT_ADDR_MASK) | kept_bits(e, 0);
        return;
    }
    if ((e & GEN9_PPGTT_PDE_PS) || (t->level == 1 && (e & GEN9_PPGTT_PDE_IPS_64K)))
        return set_refused(p, t, i, VGT_PPGTT_R_HUGE_PAGE);
    struct pt *child = pt_get(p, gpa, t->level - 1u, &why);
    if (!child)
        return set_refused(p, t, i, why);
    t->state[i] = PTE_SHADOWED;
    t->shadow[i] = child->shadow_hpa | kept_bits(e, t->level);
}

/* Release what shadow entry i holds (a child table's reference). */
static void drop_entry(struct vgt_ppgtt *p, struct pt *t, unsigned i)
{
    if (t->level > 0 && t->state[i] == PTE_SHADOWED) {
        struct pt *child = pt_lookup(p, gen9_ppgtt_entry_addr(t->guest[i]));
        if (child)
            pt_put(p, child);
    }
}

static void table_free(struct vgt_ppgtt *p, struct pt *t)
{
    p->cfg.ops.page_free(p->cfg.ops.ctx, t->shadow_hpa, t->shadow);
    free(t);
}

struct pt *pt_get(struct vgt_ppgtt *p, uint64_t gpa, unsigned level, enum vgt_ppgtt_refusal *why)
{
    struct pt *t = pt_lookup(p, gpa);
    uint64_t hpa;

    if (t) {
        if (t->level != level) {
            *why = VGT_PPGTT_R_LEVEL_MIX;
            return NULL;
        }
        t->refs++;
        p->st.shares++;
        return t;
    }
    if (p->cfg.ops.gpa_to_hpa(p->cfg.ops.ctx, gpa, &hpa) != 0) {
        *why = VGT_PPGTT_R_OUTSIDE_RAM;
        return NULL;
    }
    if (p->n_tables >= p->cfg.max_tables || !(t = calloc(1, sizeof *t))) {
        *why = VGT_PPGTT_R_TABLE_LIMIT;
        return NULL;
    }
    if (p->cfg.ops.page_alloc(p->cfg.ops.ctx, &t->shadow_hpa, &t->shadow) != 0) {
        free(t);
        *why = VGT_PPGTT_R_TABLE_LIMIT;
        return NULL;
    }
    t->gpa = gpa & ~(uint64_t)GEN9_GTT_PAGE_MASK;
    t->level = level;
    if (p->cfg.ops.read(p->cfg.ops.ctx, t->gpa, t->guest, sizeof t->guest) != 0) {
        table_free(p, t);
        *why = VGT_PPGTT_R_READ_FAULT;
        return NULL;
    }
    /* In the hash before its entries are walked: an entry pointing back at this page (as a
     * table of another level, or as data) is refused, never followed. */
    t->refs = 1;
    t->next = p->hash[bucket(t->gpa)];
    p->hash[bucket(t->gpa)] = t;
    p->n_tables++;
    p->st.tables = p->n_tables;
    if (p->st.tables > p->st.tables_peak)
        p->st.tables_peak = p->st.tables;
    p->st.builds++;
    p->cfg.ops.protect(p->cfg.ops.ctx, t->gpa, true);
    for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++)
        fill_entry(p, t, i);
    return t;
}

void pt_put(struct vgt_ppgtt *p, struct pt *t)
{
    if (--t->refs)
        return;
    for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++)
        drop_entry(p, t, i);
    hash_remove(p, t);
    p->n_tables--;
    p->st.tables = p->n_tables;
    p->st.frees++;
    p->cfg.ops.protect(p->cfg.ops.ctx, t->gpa, false);
    table_free(p, t);
}

int vgt_ppgtt_guest_write(struct vgt_ppgtt *p, uint64_t gpa, uint32_t len)
{
    struct pt *t = pt_lookup(p, gpa);
    uint32_t off = (uint32_t)(gpa & GEN9_GTT_PAGE_MASK);
    unsigned first, last;

    if (!t)
        return VGT_PPGTT_E_NOT_TABLE;
    if (len == 0 || off + len > GEN9_GTT_PAGE_SIZE)
        return VGT_PPGTT_E_INVAL;
    first = off / 8u;
    last = (off + len - 1u) / 8u;
    t->refs++; /* keep t alive while its entries change */
    for (unsigned i = first; i <= last; i++) {
        uint64_t old = t->guest[i];
        uint8_t old_state = t->state[i];
        struct pt *old_child = NULL;

        if (t->level > 0 && old_state == PTE_SHADOWED)
            old_child = pt_lookup(p, gen9_ppgtt_entry_addr(old));
        if (p->cfg.ops.read(p->cfg.ops.ctx, t->gpa + 8u * i, &t->guest[i], 8) != 0) {
            t->guest[i] = 0; /* unreadable now: shadow it as not present */
            pt_refuse(p, VGT_PPGTT_R_READ_FAULT, t->gpa, t->level, i, 0);
        }
        /* The new subtree first, then the old one goes: rewriting an entry with the same
         * table keeps that table instead of rebuilding it. */
        fill_entry(p, t, i);
        if (old_child)
            pt_put(p, old_child);
        p->st.entries_updated++;
    }
    p->st.writes++;
    pt_put(p, t);
    return VGT_PPGTT_OK;
}

/* Phase 1 of a resync: re-read t's entries; every entry that changed, or was refused, lets go
 * of what it held and is marked pending (shadowed to scratch until phase 2). */
static void resync_release(struct vgt_ppgtt *p, struct pt *t, uint8_t *pending)
{
    uint64_t *now = p->resync_now;
    if (p->cfg.ops.read(p->cfg.ops.ctx, t->gpa, now, sizeof p->resync_now) != 0) {
        memset(now, 0, sizeof p->resync_now); /* unreadable now: shadow it as not present */
        pt_refuse(p, VGT_PPGTT_R_READ_FAULT, t->gpa, t->level, 0, 0);
    }
    for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++) {
        if (now[i] == t->guest[i] && t->state[i] < PTE_REFUSED_BASE)
            continue;
        drop_entry(p, t, i);
        t->guest[i] = now[i];
        t->state[i] = PTE_NOT_PRESENT;
        t->shadow[i] = scratch_entry(p, t->level);
        pending[i / 8u] |= (uint8_t)(1u << (i % 8u));
    }
}

void vgt_ppgtt_resync(struct vgt_ppgtt *p, const uint64_t *pages, unsigned n)
{
    struct pt *held[VGT_PPGTT_RESYNC_MAX];
    uint8_t(*pending)[GEN9_PPGTT_ENTRIES / 8u] = p->resync_pending;
    unsigned k = 0;

    memset(p->resync_pending, 0, sizeof p->resync_pending);
    /* Every table is held first: one released in phase 1 stays readable until the end. */
    for (unsigned j = 0; j < n && k < VGT_PPGTT_RESYNC_MAX; j++) {
        struct pt *t = pt_lookup(p, pages[j]);
        bool dup = false;
        for (unsigned h = 0; h < k; h++)
            dup |= held[h] == t;
        if (t && !dup) {
            t->refs++;
            held[k++] = t;
        }
    }
    for (unsigned h = 0; h < k; h++) {
        resync_release(p, held[h], pending[h]);
        p->st.writes++;
    }
    /* Phase 2, upper levels first, only tables something still references besides the hold. */
    for (int level = GEN9_PPGTT_TOP_LEVEL; level >= 0; level--) {
        for (unsigned h = 0; h < k; h++) {
            struct pt *t = held[h];
            if ((int)t->level != level || t->refs == 1)
                continue;
            for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++) {
                if (pending[h][i / 8u] >> (i % 8u) & 1u) {
                    fill_entry(p, t, i);
                    p->st.entries_updated++;
                }
            }
        }
    }
    for (unsigned h = 0; h < k; h++)
        pt_put(p, held[h]);
}

bool vgt_ppgtt_is_table(const struct vgt_ppgtt *p, uint64_t gpa)
{
    return pt_lookup(p, gpa) != NULL;
}

int vgt_ppgtt_create(const struct vgt_ppgtt_config *cfg, struct vgt_ppgtt **out)
{
    struct vgt_ppgtt *p;

    *out = NULL;
    if (!cfg || !cfg->ops.gpa_to_hpa || !cfg->ops.read || !cfg->ops.page_alloc ||
        !cfg->ops.page_free || !cfg->ops.protect || (cfg->scratch_hpa & GEN9_GTT_PAGE_MASK))
        return VGT_PPGTT_E_INVAL;
    p = calloc(1, sizeof *p);
    if (!p)
        return VGT_PPGTT_E_NOMEM;
    p->cfg = *cfg;
    if (!p->cfg.max_tables)
        p->cfg.max_tables = VGT_PPGTT_DEFAULT_TABLES;
    if (!p->cfg.max_roots)
        p->cfg.max_roots = VGT_PPGTT_DEFAULT_ROOTS;
    p->roots = calloc(p->cfg.max_roots, sizeof *p->roots);
    if (!p->roots) {
        free(p);
        return VGT_PPGTT_E_NOMEM;
    }
    for (unsigned l = 0; l < GEN9_PPGTT_TOP_LEVEL; l++) {
        if (p->cfg.ops.page_alloc(p->cfg.ops.ctx, &p->scratch_hpa[l], &p->scratch[l]) != 0) {
            vgt_ppgtt_destroy(p);
            return VGT_PPGTT_E_NOMEM;
        }
        for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++)
            p->scratch[l][i] = scratch_entry(p, l);
    }
    *out = p;
    return VGT_PPGTT_OK;
}

void vgt_ppgtt_destroy(struct vgt_ppgtt *p)
{
    if (!p)
        return;
    for (unsigned r = 0; r < p->n_roots; r++)
        pt_put(p, p->roots[r].pml4); /* one reference per root, whatever its count */
    for (unsigned l = 0; l < GEN9_PPGTT_TOP_LEVEL; l++)
        if (p->scratch[l])
            p->cfg.ops.page_free(p->cfg.ops.ctx, p->scratch_hpa[l], p->scratch[l]);
    free(p->roots);
    free(p);
}
