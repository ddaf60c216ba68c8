/*
 * The execlist and context-status-buffer (CSB) sequencer of one virtual engine: the events a
 * Gen9 engine writes for the ELSP submissions and context completions the vGPU sees, in the
 * order i915 6.1's process_csb() / gen8_csb_parse() consumes them: any other order is an
 * "invalid CSB event" to i915, which resets the engine.
 *
 * Events (gen9_context.h GEN9_CTX_STATUS_*; GVT-g gvt/execlist.c is the reference):
 *  - a submission to an idle engine: IDLE_ACTIVE, context id 0 (i915 promotes pending to
 *    inflight on it);
 *  - a resubmission whose element 0 is the context running now (i915's lite restore with a new
 *    tail): PREEMPTED | LITE_RESTORE with that context's id (also a promote);
 *  - element 0 completes with element 1 valid: ELEMENT_SWITCH | COMPLETE, element 0's id;
 *  - the last element completes: ACTIVE_IDLE | COMPLETE, its id; if a list was waiting, it
 *    starts at once with IDLE_ACTIVE, and one interrupt covers both (GVT-g
 *    emulate_execlist_ctx_schedule_out()).
 * A submission while active that is not a lite restore waits for the running list (GVT-g: the
 * vGPU never preempts; i915 in a vGPU never asks it to, it has no I915_ENGINE_HAS_PREEMPTION).
 * A submission while one already waits is refused (queue full), as is one whose element 0 is
 * not valid.
 *
 * Each event goes to the CSB registers (6 entries; write pointer 7 after reset, "nothing
 * written": the first event lands in entry 0), then to the engine's status page at dword
 * GEN9_HWS_CSB_BUF0_INDEX + 2 * entry, then the write pointer to dword GEN9_HWS_CSB_WRITE_INDEX
 * (i915 reads the pointer first, then the entries it covers), then the context-switch
 * interrupt.  RING_CONTEXT_STATUS_PTR is masked (bits 31:16 select): i915's reset_csb_pointers()
 * writes 0xffff0505, read and write pointer 5, so the next event lands in entry 0.
 *
 * Pure: the status page and the interrupt go through the caller's callbacks.
 */
#ifndef TESSERA_VMM_VGT_VGT_EXECLIST_H
#define TESSERA_VMM_VGT_VGT_EXECLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

struct vgt_el_ops {
    void *ctx;
    /* Write dword `index` of engine e's hardware status page (the page RING_HWS_PGA names);
     * the caller translates the guest's graphics address and does nothing while it is unset. */
    void (*hwsp_write)(void *ctx, enum igpu_engine e, uint32_t index, uint32_t value);
    /* Engine e raised GEN9_GT_* bits (here GEN9_GT_CONTEXT_SWITCH): to vgt_irq_event(). */
    void (*interrupt)(void *ctx, enum igpu_engine e, uint32_t gt_bits);
};

enum vgt_el_result {
    VGT_EL_NONE = 0,      /* an ELSP dword that does not complete a submission */
    VGT_EL_STARTED,       /* a list started on an idle engine: run its element 0 */
    VGT_EL_LITE_RESTORE,  /* the running context was resubmitted: run it to its new tail */
    VGT_EL_QUEUED,        /* the list waits for the running one */
    VGT_EL_NEXT,          /* element 0 completed, element 1 runs now */
    VGT_EL_IDLE,          /* the last element completed, nothing waits */
    VGT_EL_E_INVALID,     /* refused: element 0 not valid */
    VGT_EL_E_QFULL,       /* refused: a list already waits */
    VGT_EL_E_NOT_RUNNING, /* a completion with nothing running */
};

struct vgt_el_stats {
    uint64_t submissions; /* accepted ELSP submissions */
    uint64_t lite_restores;
    uint64_t queued;
    uint64_t completions; /* elements completed */
    uint64_t events;      /* CSB events written */
    uint64_t refused;     /* invalid or queue-full submissions */
};

struct vgt_execlist {
    enum igpu_engine engine;
    uint32_t elsp[GEN9_ELSP_DWORDS]; /* ELSP dwords in the order written */
    unsigned elsp_n;
    bool running, waiting;
    uint64_t run[2], wait[2]; /* the running and the waiting list; [1] = 0 if invalid */
    unsigned elem;            /* the running list's active element */
    unsigned slot;            /* GVT-g's slot index of the running list (status register) */
    uint32_t csb[GEN9_CSB_ENTRIES][2]; /* status, context id */
    uint32_t wp, rp;                   /* CSB write and read pointers */
    struct vgt_el_stats st;
};

/* Creation: counters zero, then the reset state. */
void vgt_el_init(struct vgt_execlist *el, enum igpu_engine e);
/* Engine reset (GDRST or device reset): no list, ELSP count restarted, CSB write pointer 7 and
 * read pointer 0 (GVT-g init_vgpu_execlist()). */
void vgt_el_reset(struct vgt_execlist *el);

/* One ELSP dword write (element 1 upper, 1 lower, 0 upper, 0 lower); the fourth submits.
 * *run receives the descriptor the caller must run for STARTED and LITE_RESTORE. */
enum vgt_el_result vgt_el_elsp_write(struct vgt_execlist *el, uint32_t val,
                                     const struct vgt_el_ops *ops, uint64_t *run);
/* A submission of (desc0, desc1); desc1 without GEN9_CTX_VALID is no element. */
enum vgt_el_result vgt_el_submit(struct vgt_execlist *el, uint64_t desc0, uint64_t desc1,
                                 const struct vgt_el_ops *ops, uint64_t *run);
/* The active element finished: its ring is consumed up to the last tail it was given.  *next
 * receives the descriptor to run for NEXT and STARTED. */
enum vgt_el_result vgt_el_complete(struct vgt_execlist *el, const struct vgt_el_ops *ops,
                                   uint64_t *next);
/* The descriptor of the active element (0 if idle). */
uint64_t vgt_el_active(const struct vgt_execlist *el);

/* Registers of this engine the sequencer owns: ELSP, EXECLIST_STATUS_LO/HI, the CSB entries
 * and RING_CONTEXT_STATUS_PTR. */
bool vgt_el_owns(const struct vgt_execlist *el, uint32_t off);
uint32_t vgt_el_read(const struct vgt_execlist *el, uint32_t off);
/* CSB pointer and entry writes (ELSP goes through vgt_el_elsp_write()). */
void vgt_el_write(struct vgt_execlist *el, uint32_t off, uint32_t val);

/* Two descriptors name the same context: same LRCA and context id (GVT-g same_context()). */
static inline bool vgt_el_same_context(uint64_t a, uint64_t b)
{
    return gen9_ctx_desc_lrca(a) == gen9_ctx_desc_lrca(b) &&
           gen9_ctx_desc_id(a) == gen9_ctx_desc_id(b);
}

#endif /* TESSERA_VMM_VGT_VGT_EXECLIST_H */
