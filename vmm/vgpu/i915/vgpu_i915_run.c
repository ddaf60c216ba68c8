/* The i915 guest's engines at work: RCS, VCS and VECS elements run on the MI-only command
 * streamer, queued on the core's schedulers for engines run on the CPU and run by the render
 * loop in bounded steps; BCS elements go to the scanned blitter path of the device core and
 * complete when their last workload retires; PPGTT translation for both (vgpu_i915.h). */
#include "vmm/vgpu/i915/vgpu_i915.h"

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stdio.h>
#include <string.h>

/* ---- PPGTT translation --------------------------------------------------------------------- */

static void *ppgtt_ptr(struct vgpu *v, uint64_t pml4, uint64_t gfx, uint32_t len, bool write)
{
    uint64_t hpa;
    uint32_t contig;
    if (!i915_of(v)->pp ||
        vgt_ppgtt_translate(i915_of(v)->pp, pml4, gfx, write, &hpa, &contig, NULL) !=
            VGT_PPGTT_OK ||
        contig < len)
        return NULL;
    return v->dev->cfg.env.phys_ptr(v->dev->cfg.env.ctx, hpa, len);
}

uint64_t vgpu_i915_shadow_pml4(struct vgpu *v, uint64_t pml4)
{
    uint64_t shadow = 0;
    if (!i915_of(v)->pp || vgt_ppgtt_root_find(i915_of(v)->pp, pml4, &shadow) != VGT_PPGTT_OK)
        return 0;
    return shadow;
}

static int scan_check(void *ctx, uint64_t gfx, uint64_t len, bool write)
{
    struct vgpu *v = ctx;
    return i915_of(v)->pp && vgt_ppgtt_check(i915_of(v)->pp, i915_of(v)->scan_pml4, gfx, len, write,
                                             NULL) == VGT_PPGTT_OK
             ? 0
             : -1;
}

static int scan_read(void *ctx, uint64_t gfx, void *dst, size_t len)
{
    struct vgpu *v = ctx;
    uint8_t *d = dst;
    while (len) {
        size_t n = GEN9_GTT_PAGE_SIZE - (gfx & GEN9_GTT_PAGE_MASK);
        if (n > len)
            n = len;
        void *p = ppgtt_ptr(v, i915_of(v)->scan_pml4, gfx, (uint32_t)n, false);
        if (!p)
            return -1;
        memcpy(d, p, n);
        gfx += n;
        d += n;
        len -= n;
    }
    return 0;
}

/* An i915 guest's blitter context: the scanner's i915 profile, PPGTT operands checked through
 * the context's PPGTT.  Its PPGTT batches are checked and then run where they are, through the
 * shadow PPGTT, as GVT-g runs non-privileged batches: the engine runs them non-privileged (GGTT
 * accesses and privileged registers dropped: drivers/igpu/cs/cs_priv.c), so what the guest
 * changes after the scan can reach only its own pages. */
void vgpu_i915_scan_config(struct vgpu *v, uint64_t pml4, uint32_t lrca,
                           struct igpu_scan_config *sc)
{
    struct vgpu_i915 *g = i915_of(v);
    g->scan_pml4 = pml4;
    g->scan_pp = (struct igpu_scan_ppgtt){ scan_check, scan_read, v, true };
    sc->i915 = true;
    sc->ppgtt = &g->scan_pp;
    sc->pphwsp_gm = lrca;
}

/* ---- the MI-only streamer's callbacks ------------------------------------------------------ */

struct run {
    struct vgpu *v;
    enum igpu_engine e;
    uint64_t pml4;
    uint64_t t0, budget_ns; /* the step's start on the CPU clock, and its budget */
};

static int cs_mem(void *ctx, enum igpu_cs_space s, uint64_t ga, void *buf, uint32_t len,
                  enum igpu_cs_access how)
{
    struct run *r = ctx;
    bool write = how == IGPU_CS_WRITE;
    void *p = s == IGPU_CS_PPGTT ? ppgtt_ptr(r->v, r->pml4, ga, len, write)
                                 : vgpu_i915_ggtt_ptr(r->v, ga, len, write);
    if (!p)
        return -1;
    if (write)
        memcpy(p, buf, len);
    else
        memcpy(buf, p, len);
    return 0;
}

/* The allow-list (cs_policy.c) lets through the engine's GPRs and timestamps and the render
 * workaround registers: they go to the guest's own register file, never to the GPU. */
static int cs_reg_write(void *ctx, uint32_t reg, uint32_t val)
{
    vgpu_reg_write(((struct run *)ctx)->v, reg, val);
    return 0;
}

static int cs_reg_read(void *ctx, uint32_t reg, uint32_t *val)
{
    *val = vgpu_reg_read(((struct run *)ctx)->v, reg);
    return 0;
}

static uint64_t cs_timestamp(void *ctx)
{
    struct vgpu *v = ((struct run *)ctx)->v;
    return igpu_ns_to_ticks(v->dev->cfg.env.now_ns(v->dev->cfg.env.ctx),
                            v->dev->cfg.igpu->info.timestamp_hz);
}

/* The step's end: its budget used, or another CPU waiting for what the step holds.  The
 * streamer asks between commands and between a register load's registers, each time after some
 * progress, so a step always advances. */
static bool cs_out_of_time(void *ctx)
{
    const struct run *rc = ctx;
    const struct vgpu_env *en = &rc->v->dev->cfg.env;
    return en->cpu_ns(en->ctx) - rc->t0 >= rc->budget_ns ||
           (en->cpu_wanted && en->cpu_wanted(en->ctx));
}

static void cs_event(void *ctx, uint32_t bits)
{
    struct run *r = ctx;
    vgpu_i915_event(r->v, r->e, bits);
}

static const struct igpu_scan_reg *const cs_regs[IGPU_NUM_GT_ENGINES] = {
    [IGPU_RCS] = igpu_cs_i915_regs_rcs,
    [IGPU_VCS] = igpu_cs_i915_regs_vcs,
    [IGPU_VECS] = igpu_cs_i915_regs_vecs,
};
static const size_t *const cs_nregs[IGPU_NUM_GT_ENGINES] = {
    [IGPU_RCS] = &igpu_cs_i915_regs_rcs_count,
    [IGPU_VCS] = &igpu_cs_i915_regs_vcs_count,
    [IGPU_VECS] = &igpu_cs_i915_regs_vecs_count,
};

/* ---- RCS, VCS and VECS: the MI-only streamer, on the CPU engines' schedulers -------------- */

static void start_mi(struct vgpu *v, enum igpu_engine e, uint64_t desc);

/* The element on engine e is given up (a fault, a reset): nothing of it runs any more. */
static void drop_mi(struct vgpu *v, enum igpu_engine e)
{
    struct vgpu_i915_mi *mi = &i915_of(v)->mi[e];
    mi->loaded = false;
    mi->n_sub = 0;
}

static void fault_mi(struct vgpu *v, enum igpu_engine e, const char *why)
{
    drop_mi(v, e);
    vgpu_i915_fault(v, e, why);
}

/* One more submission of the element (its context's tail moved to `tail`): queued on the
 * engine's scheduler, or, if v's queue there is full, added to the newest one. */
static void add_sub(struct vgpu *v, enum igpu_engine e, uint32_t tail)
{
    struct vgpu_i915_mi *mi = &i915_of(v)->mi[e];
    uint64_t id;
    if (mi->n_sub < VGPU_I915_MI_SUBS && vgpu_cpu_submit(v, e, &id)) {
        mi->sub[mi->n_sub].id = id;
        mi->sub[mi->n_sub].tail = tail;
        mi->n_sub++;
    } else if (mi->n_sub) {
        mi->sub[mi->n_sub - 1].tail = tail;
    } else {
        fault_mi(v, e, "the engine's queue refused the submission");
    }
}

/* The element ran to its last submission's tail: RING_HEAD into its image (the engine saves it
 * when the context switches out), the completion events, and the next element if one waits. */
static void complete_mi(struct vgpu *v, enum igpu_engine e)
{
    struct vgpu_i915 *g = i915_of(v);
    struct vgpu_i915_mi *mi = &g->mi[e];
    vgpu_gm_write32(v, (uint64_t)mi->lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD,
                    mi->cs.ring.head);
    mi->loaded = false;
    g->st.completed[e]++;
    uint64_t next;
    enum vgt_el_result r = vgt_el_complete(&g->el[e], &g->el_ops, &next);
    if (r == VGT_EL_NEXT || r == VGT_EL_STARTED)
        start_mi(v, e, next);
}

/* Element desc started on engine e (or, the same context again, a lite restore: its new tail).
 * It is read and checked here, in the ELSP write; it runs in the render loop. */
static void start_mi(struct vgpu *v, enum igpu_engine e, uint64_t desc)
{
    struct vgpu_i915 *g = i915_of(v);
    struct vgpu_i915_mi *mi = &g->mi[e];
    uint32_t lrca = gen9_ctx_desc_lrca(desc);
    struct vgpu_guest_ring gr;
    uint64_t pml4 = 0;
    char why[VGPU_I915_FAULT_LEN];
    if (!vgpu_read_context(v, lrca, &gr, why, sizeof why) || !vgpu_i915_ctx_pml4(v, lrca, &pml4)) {
        fault_mi(v, e, why);
        return;
    }
    if (mi->loaded && mi->lrca == lrca) {
        if (mi->n_sub == 0 || gr.tail != mi->sub[mi->n_sub - 1].tail)
            add_sub(v, e, gr.tail);
        return;
    }
    /* A context whose page directory the guest never announced is not run (counted by the
     * shadow as an unknown root). */
    if (!g->pp || vgt_ppgtt_root_find(g->pp, pml4, NULL) != VGT_PPGTT_OK) {
        snprintf(why, sizeof why, "context %#x names page directory %#llx, never announced", lrca,
                 (unsigned long long)pml4);
        fault_mi(v, e, why);
        return;
    }
    igpu_cs_init(&mi->cs, e, cs_regs[e], *cs_nregs[e], true, "MI-only streamer");
    struct igpu_cs_ring ring = { gr.start, gr.size, gr.head, gr.head };
    igpu_cs_load(&mi->cs, &ring, lrca, true);
    mi->loaded = true;
    mi->lrca = lrca;
    mi->pml4 = pml4;
    mi->n_sub = 0;
    if (gr.head == gr.tail)
        complete_mi(v, e); /* nothing to run: it completes at once */
    else
        add_sub(v, e, gr.tail);
}

unsigned vgpu_i915_cpu_run(struct vgpu *v, enum igpu_engine e, unsigned limit, uint64_t budget_ns,
                           bool *faulted)
{
    struct vgpu_i915 *g = i915_of(v);
    struct vgpu_i915_mi *mi = &g->mi[e];
    const struct vgpu_env *en = &v->dev->cfg.env;
    unsigned done = 0;
    bool stepped = false;
    *faulted = false;
    if (!mi->loaded || g->hung[e])
        return 0;
    /* The guest's CPU may have changed page tables since the last step: the shadow first. */
    vgpu_i915_sync_oos(v);
    struct run rc = { v, e, mi->pml4, en->cpu_ns(en->ctx), budget_ns };
    struct igpu_cs_ops ops = { .ctx = &rc,
                               .mem = cs_mem,
                               .reg_write = cs_reg_write,
                               .reg_read = cs_reg_read,
                               .timestamp = cs_timestamp,
                               .event = cs_event,
                               .out_of_time = cs_out_of_time };
    /* One command at a time, the clock read after each, and between the registers of a
     * register load: a batch chain or a loop costs the time it takes, and the step ends at most
     * one command or one register past its budget, and at least one command in.  Every fetch reads guest memory again, so a
     * batch the guest's CPU ends (an MI_BATCH_BUFFER_END written over its loop) ends here. */
    while (done < limit && mi->n_sub) {
        mi->cs.ring.tail = mi->sub[0].tail;
        if (igpu_cs_idle(&mi->cs)) {
            mi->n_sub--;
            memmove(&mi->sub[0], &mi->sub[1], mi->n_sub * sizeof mi->sub[0]);
            done++;
            if (mi->n_sub == 0)
                complete_mi(v, e); /* may start the next element: its work is queued */
            continue;
        }
        if (stepped && cs_out_of_time(&rc))
            break;
        struct igpu_cs_result res;
        memset(&res, 0, sizeof res);
        enum igpu_cs_fault f = igpu_cs_step(&mi->cs, &ops, 1, &res);
        stepped = true;
        g->st.cs_commands += res.commands;
        g->st.cs_state_skipped += res.state_skipped;
        if (f != IGPU_CS_OK) {
            char why[VGPU_I915_FAULT_LEN];
            snprintf(why, sizeof why, "%s at %#llx", res.what, (unsigned long long)res.cmd_gaddr);
            fault_mi(v, e, why);
            *faulted = true;
            break;
        }
    }
    return done;
}

void vgpu_i915_cpu_reset(struct vgpu *v, enum igpu_engine e, const char *why)
{
    fault_mi(v, e, why);
}

void vgpu_i915_mi_drop(struct vgpu *v, enum igpu_engine e)
{
    drop_mi(v, e);
}

/* A blitter element: its ring bytes since its head go to the scanned path of every vGPU, cut
 * into workloads of whole commands (vgpu_queue_rest()); the element completes when its last
 * workload retires (vgpu_i915_bcs_retired()), so a long submission runs as several workloads,
 * in order, queued as room comes. */
static void submit_bcs(struct vgpu *v, uint64_t desc)
{
    uint32_t lrca = (uint32_t)(desc & GEN9_CTX_LRCA_MASK);
    uint32_t ctx_id = (uint32_t)(desc >> GEN9_CTX_ID_SHIFT);
    struct vgpu_i915 *g = i915_of(v);
    char why[160];
    struct vgpu_guest_ring r;
    uint64_t pml4 = 0;

    vgpu_count_submission(v);
    bool ok = vgpu_read_context(v, lrca, &r, why, sizeof why);
    if (ok && (!vgpu_i915_ctx_pml4(v, lrca, &pml4) || !g->pp ||
               vgt_ppgtt_root_find(g->pp, pml4, NULL) != VGT_PPGTT_OK)) {
        snprintf(why, sizeof why, "context %#x names page directory %#llx, never announced", lrca,
                 (unsigned long long)pml4);
        ok = false;
    }
    if (!ok) {
        /* i915's engine would hang on it: the guest sees a failed request and resets. */
        v->st.rejected++;
        vgpu_i915_fault(v, IGPU_BCS, why);
        return;
    }
    vgpu_resume_head(v, lrca, &r);
    uint32_t bytes = (r.tail - r.head + r.size) % r.size;
    if (bytes == 0) {
        vgpu_retire(v, lrca, ctx_id, r.tail, TESSERA_REJECT_NONE);
        return;
    }
    if (v->rest.bytes && v->rest.lrca != lrca) {
        /* The sequencer starts an element only after the last one completed. */
        vgpu_note_reject(v, TESSERA_REJECT_QUEUE_FULL,
                         "workload refused: context %#x submitted "
                         "while %#x still has %u bytes to queue",
                         lrca, v->rest.lrca, v->rest.bytes);
        vgpu_refuse(v, lrca, ctx_id, r.tail, TESSERA_REJECT_QUEUE_FULL);
        return;
    }
    if (v->rest.bytes) { /* a lite restore while part of it waits: it grows */
        v->rest.bytes += bytes;
        v->rest.r = r;
    } else {
        v->rest = (struct vgpu_rest){ lrca, ctx_id, r.head, bytes, pml4, r };
    }
    vgpu_queue_rest(v);
}

void vgpu_i915_start(struct vgpu *v, enum igpu_engine e, uint64_t desc)
{
    struct vgpu_i915 *g = i915_of(v);
    if (g->hung[e])
        return; /* a faulted engine runs nothing until its reset */
    /* The guest's CPU may have changed page tables since: the shadow catches up first. */
    vgpu_i915_sync_oos(v);
    if (e == IGPU_BCS)
        submit_bcs(v, desc);
    else
        start_mi(v, e, desc);
}

/* ---- the blitter's completions ------------------------------------------------------------- */

void vgpu_i915_bcs_retired(struct vgpu *v, const struct vgpu_retired *r)
{
    struct vgpu_i915 *g = i915_of(v);
    uint32_t lrca = r->lrca, code = r->code;
    if (code == TESSERA_REJECT_RESET && v->guest_reset)
        return; /* the guest's own engine reset dropped it */
    vgpu_i915_release_deferred(v);
    if (vgt_el_active(&g->el[IGPU_BCS]) == 0 || g->hung[IGPU_BCS])
        return; /* reset meanwhile, or hung on an earlier workload */
    if (code != TESSERA_REJECT_NONE) {
        char why[VGPU_I915_FAULT_LEN];
        snprintf(why, sizeof why, "workload of context %#x not run: %s", lrca,
                 vgpu_reject_name(code));
        /* The engine is hung on it: no completion for its element, nothing after it is
         * reported, until the guest resets the engine (as i915 does after a failed request). */
        vgpu_i915_fault(v, IGPU_BCS, why);
        return;
    }
    vgpu_gm_write32(v, (uint64_t)lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD, r->tail);
    v->st.completed++;
    if (r->user_interrupt)
        vgpu_i915_event(v, IGPU_BCS, GEN9_GT_USER_INTERRUPT);
    if (v->q_len || v->rest.bytes)
        return; /* the element's later workloads (lite restores) */
    uint64_t next;
    g->st.completed[IGPU_BCS]++;
    enum vgt_el_result el = vgt_el_complete(&g->el[IGPU_BCS], &g->el_ops, &next);
    if (el == VGT_EL_NEXT || el == VGT_EL_STARTED)
        vgpu_i915_start(v, IGPU_BCS, next);
}
