/* The vGPU of a guest whose configuration says `vgpu = "i915"` (docs/vgpu-i915.md, "Wiring"):
 * the pure blocks of vmm/vgpu/i915/vgt/ and drivers/igpu/cs/ joined to one vGPU.
 *
 *  - BAR0: the register file (vgt_regs), the GT interrupt controller (vgt_irq), one execlist
 *    sequencer per engine (vgt_execlist), each engine's RING_HWS_PGA and RING_TIMESTAMP answer
 *    before the vGPU's own registers (vgpu_mmio.c); the rest is as for every vGPU (forcewake,
 *    fences, GGTT, PV info page).
 *  - PV info: vgt_caps = FULL_PPGTT | HWSP_EMULATION; g2v_notify 4/5 (L4 PPGTT create/destroy)
 *    with pdp[0] go to the PPGTT shadow.
 *  - Engines: RCS, VCS and VECS run on the MI-only command streamer: an element that starts is
 *    read and checked in the ELSP write's exit and queued on the core's scheduler for that
 *    engine (the engines run on the CPU: vgpu_cpu_engine.c), which runs it from the render loop
 *    in steps bounded in CPU time, preemptible, charged to the guest; BCS takes the scanned
 *    path of every vGPU (vgpu_submit.c, the scanner's i915 profile with the context's PPGTT),
 *    its element completing when its last workload retires.  A fault stops the engine where it
 *    is (no completion), sets RING_EIR and raises CS_MASTER_ERROR: i915 sees a failed request
 *    and resets the engine (RESET_CTL, GDRST), which drops the engine's state here.
 *  - Interrupts: what vgt_irq asks for is sent as the MSI the guest programmed in the vGPU's
 *    PCI MSI capability (env.msi).
 *  - PPGTT: guest page-table pages are write-protected in the EPT (env.protect).  A guest write
 *    to one exits; the page is then unprotected and marked out of sync, and every out-of-sync
 *    page is protected again and read again (vgt_ppgtt_resync(), in two phases) before any
 *    of the vGPU's work is checked or run: GVT-g's out-of-sync pages (gvt/gtt.c
 *    ppgtt_set_guest_page_oos(), intel_vgpu_sync_oos_pages()), which also covers writes the
 *    MMIO decoder cannot emulate (i915 clears ranges with memset64: rep stosq).
 */
#ifndef TESSERA_VMM_VGPU_VGPU_I915_H
#define TESSERA_VMM_VGPU_VGPU_I915_H

#include "vmm/vgpu/core/vgpu_internal.h"
#include "vmm/vgpu/i915/i915.h"

#include "drivers/igpu/cs/cs.h"
#include "vmm/vgpu/i915/vgt/vgt_execlist.h"
#include "vmm/vgpu/i915/vgt/vgt_irq.h"
#include "vmm/vgpu/i915/vgt/vgt_ppgtt.h"
#include "vmm/vgpu/i915/vgt/vgt_regs.h"

#define VGPU_I915_OOS_MAX VGT_PPGTT_RESYNC_MAX /* page-table pages out of sync at once */
/* Shadow pages freed while the GPU may still walk them, kept until it cannot (one dispatch's
 * worth of i915's table churn is a handful). */
#define VGPU_I915_DEFERRED_MAX 256u
/* Submissions of one MI engine's element queued on its scheduler at once; more are added to
 * the newest (i915 appends requests to a running context by lite restores). */
#define VGPU_I915_MI_SUBS 16u

/* An element on one of the MI-only engines (RCS, VCS, VECS): where the streamer is in it, kept
 * across the render loop's steps and preemptions, and its submissions not finished yet, each
 * a workload on the engine's scheduler, oldest first (vgpu_i915_run.c). */
struct vgpu_i915_mi {
    bool loaded;
    uint32_t lrca;
    uint64_t pml4;
    struct igpu_cs cs;
    struct {
        uint64_t id;
        uint32_t tail;
    } sub[VGPU_I915_MI_SUBS];
    unsigned n_sub;
};

struct vgpu_i915_display_stats {
    uint64_t refused;  /* scan-out checks that refused the surface */
    uint64_t overlays; /* compositions with a plane on that is not composed */
};

struct vgpu_i915 {
    struct vgt_regs regs;
    struct vgt_irq irq;
    struct vgt_execlist el[IGPU_NUM_GT_ENGINES];
    struct vgt_el_ops el_ops;
    uint32_t hws_pga[IGPU_NUM_GT_ENGINES];
    struct vgt_ppgtt *pp;
    uint64_t scratch_hpa; /* the PPGTT shadow's scratch data page */
    void *scratch_va;
    uint64_t oos[VGPU_I915_OOS_MAX]; /* guest table pages written since their last sync */
    unsigned n_oos;
    bool hung[IGPU_NUM_GT_ENGINES]; /* faulted: runs and reports nothing until reset */
    uint64_t scan_pml4;             /* the PPGTT of the blitter context being scanned */
    struct igpu_scan_ppgtt scan_pp; /* the scanner's PPGTT callbacks for it */
    struct {
        uint64_t hpa;
        void *va;
    } deferred[VGPU_I915_DEFERRED_MAX];
    unsigned n_deferred;
    struct vgpu_i915_mi mi[IGPU_NUM_GT_ENGINES]; /* RCS, VCS, VECS (not BCS) */
    struct vgpu_i915_stats st;
    char last_fault[VGPU_I915_FAULT_LEN];
    /* the display (vgpu_i915_display.c): NULL without one (every pipe fused off) */
    struct vdisp *disp;
    struct vgpu_i915_display_stats disp_st;
    const char *disp_refused;  /* the refusal last logged for the live set, while it lasts */
    const char *armed_refused; /* ... for the set PLANE_SURF armed */
    unsigned overlays_logged;  /* planes logged as not composed (1 << VDISP_*) */
};

static inline struct vgpu_i915 *i915_of(const struct vgpu *v)
{
    return v->pers;
}

/* vgpu_i915.c: state, BAR0, PV notifications, interrupts, faults, table pages (the
 * personality's hooks are named in vgpu_i915_personality.c). */
int vgpu_i915_init(struct vgpu *v);
void vgpu_i915_free(struct vgpu *v);
/* Power-on state again (guest restart): registers, engines, interrupts; every PPGTT dropped. */
void vgpu_i915_reset_state(struct vgpu *v);
/* BAR0 registers of the i915 vGPU: true if it answered (else the vGPU's own file does). */
bool vgpu_i915_reg_read(struct vgpu *v, uint32_t off, uint32_t *val);
bool vgpu_i915_reg_write(struct vgpu *v, uint32_t off, uint32_t val);
bool vgpu_i915_submits(const struct vgpu *v, uint32_t off, uint32_t val);
/* The guest wrote g2v_notify (after pdp[0]). */
void vgpu_i915_g2v(struct vgpu *v, uint32_t what);
/* The guest wrote a write-protected page of its RAM: a PPGTT table page goes out of sync. */
bool vgpu_i915_table_write(struct vgpu *v, uint64_t gpa);
/* Its lines for `vgpu <vm>`. */
size_t vgpu_i915_describe(const struct vgpu *v, char *buf, size_t len);
/* Engine e raised GEN9_GT_* bits: latched, and the MSI sent if the line rose. */
void vgpu_i915_event(struct vgpu *v, enum igpu_engine e, uint32_t gt_bits);
/* Engine e faulted: the engine stops, RING_EIR and CS_MASTER_ERROR; why goes to the log. */
void vgpu_i915_fault(struct vgpu *v, enum igpu_engine e, const char *why);
/* Shadow pages whose free waited for the GPU are freed, if it cannot walk them any more. */
void vgpu_i915_release_deferred(struct vgpu *v);
/* The blitter's PPGTT for workloads of the context whose PML4 is pml4: the shadow PML4's
 * physical address, or 0 if the guest never announced it. */
uint64_t vgpu_i915_shadow_pml4(struct vgpu *v, uint64_t pml4);
/* Out-of-sync page-table pages are read again and protected again. */
void vgpu_i915_sync_oos(struct vgpu *v);
/* Host pointer of [gm, gm + len) (inside one page) through the guest's own GGTT entries,
 * inside its ranges, never a page-table page for a write; NULL otherwise (counted). */
uint8_t *vgpu_i915_ggtt_ptr(struct vgpu *v, uint64_t gm, uint32_t len, bool write);
/* The PML4 a context image names (its PDP0). */
bool vgpu_i915_ctx_pml4(struct vgpu *v, uint32_t lrca, uint64_t *pml4);

/* The controller asked for an MSI: sent with the guest's programmed message (env.msi). */
void vgpu_i915_send_msi(struct vgpu *v);

/* vgpu_i915_display.c: the display's hooks and BAR0 routing. */
bool vgpu_i915_display_owns(const struct vgpu_i915 *g, uint32_t off);
uint32_t vgpu_i915_display_read(struct vgpu *v, uint32_t off);
void vgpu_i915_display_write(struct vgpu *v, uint32_t off, uint32_t val);
void vgpu_i915_display_reset(struct vgpu *v);
void vgpu_i915_display_free(struct vgpu_i915 *g);
bool vgpu_i915_plane_get(const struct vgpu *v, struct vgpu_plane *out);
bool vgpu_i915_monitor(struct vgpu *v, const struct vgpu_monitor *m, bool configure,
                       const char **why);
void vgpu_i915_tick(struct vgpu *v, uint64_t now_ns);

/* vgpu_i915_run.c */
/* Element desc started on engine e (STARTED or LITE_RESTORE): run it. */
void vgpu_i915_start(struct vgpu *v, enum igpu_engine e, uint64_t desc);
/* The personality's cpu_run and cpu_reset (personality.h) for RCS, VCS and VECS. */
unsigned vgpu_i915_cpu_run(struct vgpu *v, enum igpu_engine e, unsigned limit, uint64_t budget_ns,
                           bool *faulted);
void vgpu_i915_cpu_reset(struct vgpu *v, enum igpu_engine e, const char *why);
/* The element on MI engine e is forgotten (the guest reset the engine or restarted). */
void vgpu_i915_mi_drop(struct vgpu *v, enum igpu_engine e);
/* A blitter workload retired (vgpu_retire): code TESSERA_REJECT_NONE = it ran to its tail. */
void vgpu_i915_bcs_retired(struct vgpu *v, const struct vgpu_retired *r);
/* The scanner's i915 profile for a blitter workload of context lrca with PPGTT root pml4. */
void vgpu_i915_scan_config(struct vgpu *v, uint64_t pml4, uint32_t lrca,
                           struct igpu_scan_config *sc);

#endif
