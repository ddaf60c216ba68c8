/*
 * The PPGTT shadow of one vGPU: the 4-level, 48-bit per-process GTTs an i915 guest builds for
 * every context (gt/gen8_ppgtt.c; legacy 64-bit contexts), rebuilt with host addresses in pages
 * the hypervisor owns, so the GPU never follows a guest-physical address.
 *
 *  - Roots.  i915 announces each PPGTT: pvinfo pdp[0] = its PML4's guest-physical address, then
 *    g2v_notify = VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE (gen8_ppgtt_notify_vgt()); _DESTROY before
 *    it frees it.  vgt_ppgtt_root_create() shadows the whole tree at once; a context whose
 *    image names a PML4 that was not announced (or lies outside the guest's RAM) is refused.
 *  - Walks.  Every table page reachable from a root is read, checked and shadowed once, keyed
 *    by its guest page: i915 points every unused entry of a level at one scratch table of the
 *    next level (gen8_init_scratch()), so the 512 x 512 x ... scratch entries share one shadow
 *    per level.  Leaves are checked one by one: the page must be the guest's RAM (the caller's
 *    gpa_to_hpa), must not be one of its page-table pages, and 2M/1G/64K pages are refused
 *    (VGT_CAPS_HUGE_GTT is not offered, so i915 uses 4 KiB pages).  A guest entry that is not
 *    present, and one that is refused, shadows to the vGPU's own scratch page, read-only (or a
 *    scratch table above it): what its GPU work writes there, nothing ever reads.
 *  - Tracking.  Every guest page that holds a shadowed table is reported to the caller
 *    (ops.protect) so it can write-protect it in the EPT.  The vGPU lets written pages go out
 *    of sync and hands them to vgt_ppgtt_resync() before the guest's work next runs (all
 *    releases first, then the new entries); vgt_ppgtt_guest_write() re-shadows the entries of
 *    one write at once (the new subtree before the old one goes).  A table no entry
 *    references any more is freed and unprotected.
 *  - Translation.  vgt_ppgtt_translate() gives the host address of a PPGTT graphics address
 *    of a context, for the software command streamer and the scanner: only through entries
 *    that were shadowed from the guest's own, present entries; a write also needs the RW bit
 *    and may not land in a page-table page (the guest's GPU writing its own tables behind the
 *    shadow's back).
 * Every refusal is counted by reason (enum vgt_ppgtt_refusal, vgt_ppgtt_refusal_name()).
 *
 * Pure: guest memory, host pages and the EPT through the caller's callbacks; table records
 * are malloc'd (bounded by max_tables).
 */
#ifndef TESSERA_VMM_VGT_VGT_PPGTT_H
#define TESSERA_VMM_VGT_VGT_PPGTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/gen9_gtt.h"

enum vgt_ppgtt_err {
    VGT_PPGTT_OK = 0,
    VGT_PPGTT_E_INVAL = -1,      /* bad argument (misaligned root, bad length) */
    VGT_PPGTT_E_REFUSED = -2,    /* refused, for the reason given and counted */
    VGT_PPGTT_E_NOT_MAPPED = -3, /* the guest's entry is not present */
    VGT_PPGTT_E_READ_ONLY = -4,  /* a write through an entry without RW */
    VGT_PPGTT_E_NOT_TABLE = -5,  /* a write notice for a page that is not a tracked table */
    VGT_PPGTT_E_NOMEM = -6,      /* no memory for the module's own state */
};

enum vgt_ppgtt_refusal {
    VGT_PPGTT_R_NONE = 0,
    VGT_PPGTT_R_OUTSIDE_RAM,   /* an entry or root points outside the guest's RAM */
    VGT_PPGTT_R_HUGE_PAGE,     /* a 2M, 1G or 64K page */
    VGT_PPGTT_R_TABLE_AS_DATA, /* a page-table page mapped or written as data */
    VGT_PPGTT_R_LEVEL_MIX,     /* one page used as tables of two levels */
    VGT_PPGTT_R_TABLE_LIMIT,   /* more tables than this vGPU may shadow */
    VGT_PPGTT_R_READ_FAULT,    /* a guest table could not be read */
    VGT_PPGTT_R_UNKNOWN_ROOT,  /* a context names a PML4 the guest never announced */
    VGT_PPGTT_R_ROOT_LIMIT,    /* more PPGTTs than this vGPU may have */
    VGT_PPGTT_R_COUNT
};

const char *vgt_ppgtt_refusal_name(enum vgt_ppgtt_refusal r);

/* What one refusal was about, for the caller's log.  A refused entry names its guest table
 * (table_gpa, level 0-3, index) and the entry's value; a refused root names the PML4 in
 * `entry`; a refused translation names the graphics address in `entry`; table_gpa is
 * VGT_PPGTT_NO_TABLE for both. */
#define VGT_PPGTT_NO_TABLE (~(uint64_t)0)
struct vgt_ppgtt_refusal_info {
    enum vgt_ppgtt_refusal why;
    uint64_t table_gpa;
    unsigned level, index;
    uint64_t entry;
};

struct vgt_ppgtt_ops {
    void *ctx;
    /* 0 and *hpa if gpa lies in a page of the guest's RAM; non-zero otherwise. */
    int (*gpa_to_hpa)(void *ctx, uint64_t gpa, uint64_t *hpa);
    /* Read len bytes of guest RAM at gpa (never crossing a page); 0 on success. */
    int (*read)(void *ctx, uint64_t gpa, void *buf, size_t len);
    /* A 4 KiB host page for one shadow table: its host-physical address and where this
     * module writes its 512 entries.  Non-zero: none left. */
    int (*page_alloc)(void *ctx, uint64_t *hpa, uint64_t **va);
    void (*page_free)(void *ctx, uint64_t hpa, uint64_t *va);
    /* Guest page gpa holds (on) / no longer holds (off) a shadowed table: write-protect it in
     * the EPT, or give it back.  Called once each way per page. */
    void (*protect)(void *ctx, uint64_t gpa, bool on);
    /* Optional (NULL: counted only): told of every refusal, after it is counted. */
    void (*refused)(void *ctx, const struct vgt_ppgtt_refusal_info *info);
};

/* Tables (of any level) one vGPU may have shadowed at a time, and PPGTTs (roots). */
#define VGT_PPGTT_DEFAULT_TABLES 1024u
#define VGT_PPGTT_DEFAULT_ROOTS  64u

struct vgt_ppgtt_config {
    struct vgt_ppgtt_ops ops;
    uint64_t scratch_hpa; /* the vGPU's own scratch data page (4 KiB aligned) */
    unsigned max_tables;  /* 0: VGT_PPGTT_DEFAULT_TABLES */
    unsigned max_roots;   /* 0: VGT_PPGTT_DEFAULT_ROOTS */
};

struct vgt_ppgtt_stats {
    uint64_t refused[VGT_PPGTT_R_COUNT];
    uint64_t tables; /* shadow tables now */
    uint64_t tables_peak;
    uint64_t roots;           /* PPGTTs now */
    uint64_t builds;          /* tables read and shadowed */
    uint64_t shares;          /* entries that found their table already shadowed */
    uint64_t frees;           /* tables released */
    uint64_t writes;          /* guest writes to table pages handled */
    uint64_t entries_updated; /* entries re-shadowed by them */
};

struct vgt_ppgtt;

/* The scratch tables are allocated here (3 pages); VGT_PPGTT_E_NOMEM if they cannot be. */
int vgt_ppgtt_create(const struct vgt_ppgtt_config *cfg, struct vgt_ppgtt **out);
/* Frees every shadow page and record and unprotects every tracked page. */
void vgt_ppgtt_destroy(struct vgt_ppgtt *p);

/* g2v VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE with pdp[0] = pml4_gpa.  Shadows the tree; creating
 * the same PML4 again adds a reference.  *shadow_hpa (may be NULL): the shadow PML4, what the
 * GPU gets in the context's PDP0.  VGT_PPGTT_E_REFUSED with *why if the PML4 itself is
 * refused (entries below it that are refused do not fail the call: they are counted). */
int vgt_ppgtt_root_create(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t *shadow_hpa,
                          enum vgt_ppgtt_refusal *why);
/* g2v VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY: drops one reference; the last frees the tree. */
int vgt_ppgtt_root_destroy(struct vgt_ppgtt *p, uint64_t pml4_gpa);
/* A context's image names pml4_gpa (its PDP0): the shadow PML4, or VGT_PPGTT_E_REFUSED
 * (counted VGT_PPGTT_R_UNKNOWN_ROOT) if the guest never announced it. */
int vgt_ppgtt_root_find(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t *shadow_hpa);

/* The guest wrote [gpa, gpa + len) (inside one page) of a tracked table page, and the write
 * is already in its RAM: re-shadow the entries it touched.  VGT_PPGTT_E_NOT_TABLE if the page
 * is not tracked (a stale EPT protection: the caller may drop it). */
int vgt_ppgtt_guest_write(struct vgt_ppgtt *p, uint64_t gpa, uint32_t len);
/* The guest changed table pages pages[0..n) behind the shadow's back (out of sync: given back
 * in the EPT), and they are protected again: re-read all of them, in two phases.  First every
 * entry that changed lets go of what it held, in all of them; then the changed entries are
 * shadowed again, upper levels first.  So a table the guest unlinked in one page is released
 * before an entry of another page, written in the same period, maps its page as data (i915
 * frees a page table and reuses its page for a buffer object), whatever their order.  An
 * entry refused before is checked again.  Pages that hold no table are skipped; at most
 * VGT_PPGTT_RESYNC_MAX are taken. */
#define VGT_PPGTT_RESYNC_MAX 64u
void vgt_ppgtt_resync(struct vgt_ppgtt *p, const uint64_t *pages, unsigned n);
/* Whether guest page gpa holds a shadowed table (the caller keeps it write-protected). */
bool vgt_ppgtt_is_table(const struct vgt_ppgtt *p, uint64_t gpa);

/* Host address of PPGTT graphics address gfx in the context whose PML4 is pml4_gpa, for an
 * access of the given direction; *contig (may be NULL) gets the bytes left in that page.
 * VGT_PPGTT_E_NOT_MAPPED, _READ_ONLY, or _REFUSED with *why (may be NULL). */
int vgt_ppgtt_translate(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t gfx, bool write,
                        uint64_t *hpa, uint32_t *contig, enum vgt_ppgtt_refusal *why);
/* Every page of [gfx, gfx + len) translates for the access (len 0 is refused). */
int vgt_ppgtt_check(struct vgt_ppgtt *p, uint64_t pml4_gpa, uint64_t gfx, uint64_t len, bool write,
                    enum vgt_ppgtt_refusal *why);

const struct vgt_ppgtt_stats *vgt_ppgtt_stats(const struct vgt_ppgtt *p);

#endif /* TESSERA_VMM_VGT_VGT_PPGTT_H */
