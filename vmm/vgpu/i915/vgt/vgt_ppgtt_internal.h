/*
 * Internals of the PPGTT shadow shared by its two files: one record per shadowed guest table
 * page, the hash that finds it by guest page, and the roots.
 */
#ifndef TESSERA_VMM_VGT_VGT_PPGTT_INTERNAL_H
#define TESSERA_VMM_VGT_VGT_PPGTT_INTERNAL_H

#include "vmm/vgpu/i915/vgt/vgt_ppgtt.h"

#define PT_HASH_BUCKETS 1024u /* power of two */

/* What a shadow entry holds, per guest entry. */
enum pt_entry_state {
    PTE_SHADOWED = 0,     /* from the guest's entry (a child table or a page) */
    PTE_NOT_PRESENT = 1,  /* the guest's entry is not present: scratch */
    PTE_REFUSED_BASE = 2, /* + enum vgt_ppgtt_refusal: refused, scratch */
};

struct pt {
    uint64_t gpa;   /* the guest page holding the table */
    unsigned level; /* 3 PML4, 2 PDP, 1 PD, 0 PT */
    uint32_t refs;  /* parent entries and roots that reference it */
    uint64_t shadow_hpa;
    uint64_t *shadow;                   /* the shadow table the GPU walks */
    struct pt *next;                    /* hash chain */
    uint64_t guest[GEN9_PPGTT_ENTRIES]; /* the guest's entries as last shadowed */
    uint8_t state[GEN9_PPGTT_ENTRIES];  /* enum pt_entry_state */
};

struct pt_root {
    uint64_t gpa;
    uint32_t refs; /* creates not yet destroyed */
    struct pt *pml4;
};

struct vgt_ppgtt {
    struct vgt_ppgtt_config cfg;
    struct pt *hash[PT_HASH_BUCKETS];
    unsigned n_tables;
    /* Scratch tables for levels 0..2: the shadow of an entry that is not present or refused
     * points at the one of the level below, and the level-0 one maps the scratch page
     * read-only. */
    uint64_t scratch_hpa[GEN9_PPGTT_TOP_LEVEL];
    uint64_t *scratch[GEN9_PPGTT_TOP_LEVEL];
    struct pt_root *roots;
    unsigned n_roots;
    struct vgt_ppgtt_stats st;
    /* vgt_ppgtt_resync()'s work space (kept off the hypervisor's small stack) */
    uint64_t resync_now[GEN9_PPGTT_ENTRIES];
    uint8_t resync_pending[VGT_PPGTT_RESYNC_MAX][GEN9_PPGTT_ENTRIES / 8u];
};

struct pt *pt_lookup(const struct vgt_ppgtt *p, uint64_t gpa);
/* Shadow (or share) the table at gpa of `level`: a new reference, or NULL with *why. */
struct pt *pt_get(struct vgt_ppgtt *p, uint64_t gpa, unsigned level, enum vgt_ppgtt_refusal *why);
/* Drop a reference; the last frees the table and releases its children. */
void pt_put(struct vgt_ppgtt *p, struct pt *t);
/* Count a refusal and tell the caller what it was about (struct vgt_ppgtt_refusal_info). */
static inline void pt_refuse(struct vgt_ppgtt *p, enum vgt_ppgtt_refusal r, uint64_t table_gpa,
                             unsigned level, unsigned index, uint64_t entry)
{
    p->st.refused[r]++;
    if (p->cfg.ops.refused) {
        struct vgt_ppgtt_refusal_info info = { r, table_gpa, level, index, entry };
        p->cfg.ops.refused(p->cfg.ops.ctx, &info);
    }
}

#endif /* TESSERA_VMM_VGT_VGT_PPGTT_INTERNAL_H */
