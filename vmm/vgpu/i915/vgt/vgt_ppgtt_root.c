/*
 * The PPGTT shadow's roots (the PML4s i915 announces through the PV info page) and
 * translation of PPGTT graphics addresses for the software engines and the scanner.
 */
#include <stddef.h>

#include "vmm/vgpu/i915/vgt/vgt_ppgtt_internal.h"

static const char *const refusal_names[VGT_PPGTT_R_COUNT] = {
    [VGT_PPGTT_R_NONE] = "none",
    [VGT_PPGTT_R_OUTSIDE_RAM] = "points outside the guest's RAM",
    [VGT_PPGTT_R_HUGE_PAGE] = "huge page (2M/1G/64K) not offered",
    [VGT_PPGTT_R_TABLE_AS_DATA] = "page-table page used as data",
    [VGT_PPGTT_R_LEVEL_MIX] = "page used as tables of two levels",
    [VGT_PPGTT_R_TABLE_LIMIT] = "shadow table limit reached",
    [VGT_PPGTT_R_READ_FAULT] = "guest table unreadable",
    [VGT_PPGTT_R_UNKNOWN_ROOT] = "page directory the guest never announced",
    [VGT_PPGTT_R_ROOT_LIMIT] = "PPGTT limit reached",
};

const char *vgt_ppgtt_refusal_name(enum vgt_ppgtt_refusal r)
{
    return (unsigned)r < VGT_PPGTT_R_COUNT ? refusal_names[r] : "invalid refusal";
}

const struct vgt_ppgtt_stats *vgt_ppgtt_stats(const struct vgt_ppgtt *p)
{
    return &p->st;
}

static struct pt_root *root_lookup(struct vgt_ppgtt *p, uint64_t gpa)
{
    for (unsigned r = 0; r < p->n_roots; r++)
        if (p->roots[r].gpa == gpa)
            return &p->roots[r];
    return NULL;
}

/* A refused root (addr: its PML4) or translation (addr: the graphics address). */
static int refuse(struct vgt_ppgtt *p, enum vgt_ppgtt_refusal r, uint64_t addr,
                  enum vgt_ppgtt_refusal *why)
{
    pt_refuse(p, r, VGT_PPGTT_NO_TABLE, 0, 0, addr);
    if (why)
        *why = r;
    return VGT_PPGTT_E_REFUSED;
}

int vgt_ppgtt_root_create(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t *shadow_hpa,
                          enum vgt_ppgtt_refusal *why)
{
    struct pt_root *r = root_lookup(p, pml4_gpa);
    enum vgt_ppgtt_refusal w = VGT_PPGTT_R_NONE;
    struct pt *t;

    if (pml4_gpa & GEN9_GTT_PAGE_MASK)
        return VGT_PPGTT_E_INVAL;
    if (r) {
        r->refs++;
    } else {
        if (p->n_roots >= p->cfg.max_roots)
            return refuse(p, VGT_PPGTT_R_ROOT_LIMIT, pml4_gpa, why);
        t = pt_get(p, pml4_gpa, GEN9_PPGTT_TOP_LEVEL, &w);
        if (!t)
            return refuse(p, w, pml4_gpa, why);
        r = &p->roots[p->n_roots++];
        r->gpa = pml4_gpa;
        r->refs = 1;
        r->pml4 = t;
        p->st.roots = p->n_roots;
    }
    if (shadow_hpa)
        *shadow_hpa = r->pml4->shadow_hpa;
    return VGT_PPGTT_OK;
}

int vgt_ppgtt_root_destroy(struct vgt_ppgtt *p, uint64_t pml4_gpa)
{
    struct pt_root *r = root_lookup(p, pml4_gpa);

    if (!r)
        return VGT_PPGTT_E_INVAL;
    if (--r->refs)
        return VGT_PPGTT_OK;
    pt_put(p, r->pml4);
    *r = p->roots[--p->n_roots];
    p->st.roots = p->n_roots;
    return VGT_PPGTT_OK;
}

int vgt_ppgtt_root_find(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t *shadow_hpa)
{
    struct pt_root *r = root_lookup(p, pml4_gpa);

    if (!r)
        return refuse(p, VGT_PPGTT_R_UNKNOWN_ROOT, pml4_gpa, NULL);
    if (shadow_hpa)
        *shadow_hpa = r->pml4->shadow_hpa;
    return VGT_PPGTT_OK;
}

int vgt_ppgtt_translate(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t gfx, bool write,
                        uint64_t *hpa, uint32_t *contig, enum vgt_ppgtt_refusal *why)
{
    struct pt_root *r = root_lookup(p, pml4_gpa);
    struct pt *t;

    if (!r)
        return refuse(p, VGT_PPGTT_R_UNKNOWN_ROOT, pml4_gpa, why);
    if (gfx >> GEN9_PPGTT_ADDR_BITS)
        return VGT_PPGTT_E_NOT_MAPPED;
    t = r->pml4;
    for (unsigned level = GEN9_PPGTT_TOP_LEVEL;; level--) {
        unsigned i = gen9_ppgtt_index(gfx, level);
        uint64_t e = t->guest[i];

        if (t->state[i] == PTE_NOT_PRESENT)
            return VGT_PPGTT_E_NOT_MAPPED;
        if (t->state[i] != PTE_SHADOWED) {
            if (why)
                *why = (enum vgt_ppgtt_refusal)(t->state[i] - PTE_REFUSED_BASE);
            return VGT_PPGTT_E_REFUSED;
        }
        if (write && !(e & GEN9_PPGTT_RW))
            return VGT_PPGTT_E_READ_ONLY;
        if (level == 0) {
            /* The page may have become a table after this entry was shadowed: the guest's
             * GPU must not write its own tables behind the shadow's back. */
            if (write && pt_lookup(p, gen9_ppgtt_entry_addr(e)))
                return refuse(p, VGT_PPGTT_R_TABLE_AS_DATA, gfx, why);
            *hpa = (t->shadow[i] & GEN9_PPGTT_ADDR_MASK) | (gfx & GEN9_GTT_PAGE_MASK);
            if (contig)
                *contig = GEN9_GTT_PAGE_SIZE - (uint32_t)(gfx & GEN9_GTT_PAGE_MASK);
            return VGT_PPGTT_OK;
        }
        t = pt_lookup(p, gen9_ppgtt_entry_addr(e));
        if (!t) /* cannot happen: a shadowed entry holds its child */
            return VGT_PPGTT_E_NOT_MAPPED;
    }
}

int vgt_ppgtt_check(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t gfx, uint64_t len, bool write,
                    enum vgt_ppgtt_refusal *why)
{
    uint64_t hpa;
    uint32_t contig;

    if (len == 0 || gfx + len < gfx)
        return VGT_PPGTT_E_INVAL;
    while (len) {
        int rc = vgt_ppgtt_translate(p, pml4_gpa, gfx, write, &hpa, &contig, why);
        if (rc)
            return rc;
        if (contig >= len)
            break;
        gfx += contig;
        len -= contig;
    }
    return VGT_PPGTT_OK;
}
