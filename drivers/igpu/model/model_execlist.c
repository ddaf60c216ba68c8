/*
 * Gen9 model: execlist submission, context restore/save, the context status buffer and the
 * engine's run loop.
 *
 * Behaviour follows the PRM for Skylake Vol 7 ("Execlists", "Context Status") as implemented
 * by i915 (gt/intel_execlists_submission.c) and emulated by GVT-g (gvt/execlist.c):
 *  - ELSP takes four dword writes: element 1 upper, element 1 lower, element 0 upper,
 *    element 0 lower; the fourth write submits the pair.
 *  - Submitting to an idle engine writes an IDLE_ACTIVE event (context id 0).
 *  - When element 0 finishes and element 1 is valid: COMPLETE | ELEMENT_SWITCH (id of 0).
 *  - When the last element finishes: COMPLETE | ACTIVE_IDLE (its id); with a list queued
 *    behind it, that is followed by IDLE_ACTIVE and the queued list starts (GVT-g's order).
 *  - Submitting while active with the running context as new element 0 is a lite restore:
 *    the tail is re-read from the image, event PREEMPTED | LITE_RESTORE (new element 0 id).
 *  - Submitting a different context while active queues the list; the running context is
 *    preempted at the next arbitration point: event PREEMPTED (preempted context's id).
 *    Arbitration points are MI_ARB_CHECK (anywhere, as on Gen9), command boundaries in the
 *    ring, and, as cfg.preempt says, command boundaries inside batches and the steps of a
 *    long blit; what the context was in the middle of is saved with it (model_context.c).
 *  - CSB write pointer: 7 after reset ("nothing written"), then 0, 1, ..., 5, 0, ...; every
 *    entry is mirrored in the status page when HWS_PGA has been set (i915 reads it there:
 *    I915_HWS_CSB_BUF0_INDEX, I915_HWS_CSB_WRITE_INDEX). Each event raises the
 *    context-switch interrupt.
 * A context "completes" when its ring is empty (head == tail) at ring level.
 */
#include <string.h>

#include "drivers/igpu/model/model_internal.h"

void model_fault(struct igpu_model *m, struct model_engine *en, enum igpu_fault_reason r,
                 uint64_t gaddr, const char *detail)
{
    if (en->state == IGPU_MODEL_FAULTED)
        return; /* the first fault is the one that matters */
    en->state = IGPU_MODEL_FAULTED;
    en->fault.reason = r;
    en->fault.header = en->cs.hdr;
    en->fault.cmd_gaddr = en->cs.cmd_gaddr;
    en->fault.gaddr = gaddr;
    en->fault.ctx_id = en->ctx_id;
    snprintf(en->fault.detail, sizeof(en->fault.detail), "%s", detail ? detail : "");
    en->stats.faults++;
    model_raise(m, en, GEN9_GT_CS_MASTER_ERROR);
}

void model_engine_reset(struct igpu_model *m, struct model_engine *en)
{
    enum igpu_engine id = en->id;
    uint32_t base = en->base;
    uint64_t clock = en->clock_ps, busy = en->busy_ps;
    struct igpu_model_stats stats = en->stats;

    /* Everything the engine holds returns to its reset value; time and counters go on. */
    memset(en, 0, sizeof(*en));
    en->id = id;
    en->base = base;
    en->clock_ps = clock;
    en->busy_ps = busy;
    en->stats = stats;
    en->state = IGPU_MODEL_IDLE;
    en->csb_wp = GEN9_CSB_PTR_RESET;
    en->csb_rp = GEN9_CSB_PTR_RESET;
    model_lrc_kinds(en);
    model_cs_init(en);
    if (id == IGPU_BCS)
        m->bcs_swctrl = 0;
    model_tlb_flush(m);
}

/* ---- context status buffer -------------------------------------------------------------- */

static void csb_write(struct igpu_model *m, struct model_engine *en, uint32_t status,
                      uint32_t ctx_id)
{
    uint32_t wp = gen9_csb_next(en->csb_wp);

    en->csb[wp][0] = status;
    en->csb[wp][1] = ctx_id;
    en->csb_wp = wp;
    en->stats.csb_events++;
    if (en->hws_valid) {
        uint64_t hws = en->hws_pga;
        if (!model_gm_write32(m, en, hws + (GEN9_HWS_CSB_BUF0_INDEX + 2u * wp) * 4u, status,
                              IGPU_ACCESS_STATUS) ||
            !model_gm_write32(m, en, hws + (GEN9_HWS_CSB_BUF0_INDEX + 2u * wp + 1u) * 4u, ctx_id,
                              IGPU_ACCESS_STATUS) ||
            !model_gm_write32(m, en, hws + GEN9_HWS_CSB_WRITE_INDEX * 4u, wp, IGPU_ACCESS_STATUS))
            return;
    }
    model_raise(m, en, GEN9_GT_CONTEXT_SWITCH);
}

int model_csb_drain(struct igpu_model *m, struct model_engine *en, struct igpu_csb_event *ev,
                    unsigned max)
{
    unsigned n = 0;
    uint32_t head = en->csb_rp;

    (void)m;
    if (en->csb_wp == GEN9_CSB_PTR_RESET)
        return 0;
    while (head != en->csb_wp && n < max) {
        head = gen9_csb_next(head);
        ev[n].status = en->csb[head][0];
        ev[n].ctx_id = en->csb[head][1];
        n++;
    }
    en->csb_rp = head;
    return (int)n;
}

uint32_t model_execlist_status_lo(const struct model_engine *en)
{
    static const uint32_t valid[2] = { GEN9_EXECLIST0_VALID, GEN9_EXECLIST1_VALID };
    static const uint32_t active[2] = { GEN9_EXECLIST0_ACTIVE, GEN9_EXECLIST1_ACTIVE };
    uint32_t v = 0;

    if (en->state == IGPU_MODEL_ACTIVE && en->cur.valid) {
        v |= valid[en->slot_cur] | active[en->slot_cur];
        if (en->slot_cur)
            v |= GEN9_EXECLIST_CURRENT_POINTER;
    }
    if (en->pend.valid)
        v |= valid[en->slot_cur ^ 1u] | GEN9_EXECLIST_QFULL;
    if (en->slot_wp)
        v |= GEN9_EXECLIST_WRITE_POINTER;
    return v;
}

/* ---- submission ------------------------------------------------------------------------- */

int model_elsp_submit(struct igpu_model *m, struct model_engine *en, uint64_t d0, uint64_t d1)
{
    char d[96];

    if (!(en->gfx_mode & GEN9_GFX_RUN_LIST_ENABLE))
        return IGPU_EUNSUPPORTED; /* legacy ring-buffer submission is not modelled */
    if (en->state == IGPU_MODEL_FAULTED)
        return IGPU_EFAULT; /* a hung engine takes nothing until reset */
    if (!(d0 & GEN9_CTX_VALID)) {
        snprintf(d, sizeof(d), "ELSP element 0 not valid (0x%016" PRIx64 ")", d0);
        model_fault(m, en, IGPU_FAULT_BAD_SUBMISSION, d0, d);
        return IGPU_EINVAL;
    }
    if (!(d1 & GEN9_CTX_VALID))
        d1 = 0;

    if (en->state == IGPU_MODEL_IDLE) {
        en->cur = (struct model_execlist){ { d0, d1 }, true };
        en->slot_cur = en->slot_wp;
        en->slot_wp ^= 1u;
        en->cur_elem = 0;
        en->need_restore = true;
        en->state = IGPU_MODEL_ACTIVE;
        csb_write(m, en, GEN9_CTX_STATUS_IDLE_ACTIVE, 0);
        return IGPU_OK;
    }
    if (en->pend.valid)
        return IGPU_EBUSY; /* both execlist slots are taken */
    if (!en->need_restore && gen9_ctx_desc_lrca(d0) == en->lrca) {
        /* Lite restore: same context again, only its tail moves. */
        en->cur = (struct model_execlist){ { d0, d1 }, true };
        en->cur_elem = 0;
        en->desc = d0;
        en->ctx_id = gen9_ctx_desc_id(d0);
        en->lite_restore = true;
        en->slot_wp ^= 1u;
        en->slot_cur ^= 1u;
        csb_write(m, en, GEN9_CTX_STATUS_PREEMPTED | GEN9_CTX_STATUS_LITE_RESTORE, en->ctx_id);
        return IGPU_OK;
    }
    en->pend = (struct model_execlist){ { d0, d1 }, true };
    en->slot_wp ^= 1u;
    return IGPU_OK;
}

int model_elsp_write(struct igpu_model *m, struct model_engine *en, uint32_t val)
{
    if (!(en->gfx_mode & GEN9_GFX_RUN_LIST_ENABLE))
        return IGPU_EUNSUPPORTED;
    en->elsp_dw[en->elsp_n++] = val;
    if (en->elsp_n < GEN9_ELSP_DWORDS)
        return IGPU_OK;
    en->elsp_n = 0;
    /* Writes arrive as element 1 upper, element 1 lower, element 0 upper, element 0 lower. */
    return model_elsp_submit(m, en, ((uint64_t)en->elsp_dw[2] << 32) | en->elsp_dw[3],
                             ((uint64_t)en->elsp_dw[0] << 32) | en->elsp_dw[1]);
}

/* The context is saved (with any batch or blit it is in the middle of): the engine holds
 * nothing of it any more. */
static void leave_context(struct model_engine *en)
{
    en->cs.level = 0;
    en->cs.bb[1].space = en->cs.bb[2].space = IGPU_CS_GGTT;
    en->cs.arb_check = false;
    en->cs.arb_off = false; /* the next context starts with arbitration on */
    en->blit.active = false;
}

/* ---- context restore and save (model_context.c) ------------------------------------------ */

/* Loads the element that is to run next, or only its new tail for a lite restore.  Returns
 * the modelled cost (0 for a lite restore or a fault). */
static uint64_t ctx_restore(struct igpu_model *m, struct model_engine *en, bool tail_only)
{
    char d[96];

    if (!tail_only) {
        en->desc = en->cur.desc[en->cur_elem];
        en->lrca = gen9_ctx_desc_lrca(en->desc);
        en->ctx_id = gen9_ctx_desc_id(en->desc);
        leave_context(en); /* the image says where it resumes: in the ring, or not */
        if (!model_ctx_restore(m, en))
            return 0;
        en->ctx_start_ticks = model_timestamp_ticks(m, en);
    } else if (!model_ctx_restore_tail(m, en)) {
        return 0;
    }
    if (!(en->ring_ctl & GEN9_RING_VALID)) {
        model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET,
                    "RING_CTL in the context is not valid");
        return 0;
    }
    if (en->cs.ring.head >= en->cs.ring.size || en->cs.ring.tail >= en->cs.ring.size) {
        snprintf(d, sizeof(d), "ring head 0x%x / tail 0x%x outside a ring of 0x%x bytes",
                 en->cs.ring.head, en->cs.ring.tail, en->cs.ring.size);
        model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET, d);
        return 0;
    }
    if (tail_only)
        return 0;
    en->stats.ctx_switches++;
    return (uint64_t)m->cfg.cost.ctx_switch_ns * 1000u;
}

static bool ctx_save(struct igpu_model *m, struct model_engine *en)
{
    return model_ctx_save(m, en);
}

static void start_pending(struct igpu_model *m, struct model_engine *en)
{
    (void)m;
    en->cur = en->pend;
    en->pend.valid = false;
    en->slot_cur ^= 1u;
    en->cur_elem = 0;
    en->need_restore = true;
}

/* The running element's ring is empty: save it and move on. */
static void element_complete(struct igpu_model *m, struct model_engine *en)
{
    uint32_t id = en->ctx_id;

    if (!ctx_save(m, en))
        return;
    leave_context(en);
    if (en->pend.valid) {
        csb_write(m, en, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE, id);
        start_pending(m, en);
        csb_write(m, en, GEN9_CTX_STATUS_IDLE_ACTIVE, 0);
    } else if (en->cur_elem == 0 && (en->cur.desc[1] & GEN9_CTX_VALID)) {
        csb_write(m, en, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ELEMENT_SWITCH, id);
        en->cur_elem = 1;
        en->need_restore = true;
    } else {
        csb_write(m, en, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE, id);
        en->cur.valid = false;
        if (en->state == IGPU_MODEL_ACTIVE)
            en->state = IGPU_MODEL_IDLE;
    }
}

static void preempt(struct igpu_model *m, struct model_engine *en)
{
    uint32_t id = gen9_ctx_desc_id(en->cur.desc[en->cur_elem]);

    if (!en->need_restore && !ctx_save(m, en))
        return;
    leave_context(en);
    csb_write(m, en, GEN9_CTX_STATUS_PREEMPTED, id);
    start_pending(m, en);
}

/* Whether the engine may leave the running context here for a pending one. */
static bool arbitration_point(const struct igpu_model *m, const struct model_engine *en)
{
    if (en->cs.arb_off)
        return false;
    if (en->blit.active)
        return m->cfg.preempt >= IGPU_MODEL_PREEMPT_STEP;
    if (en->cs.level > 0)
        return en->cs.arb_check || m->cfg.preempt >= IGPU_MODEL_PREEMPT_COMMAND;
    return true;
}

/* One step of engine work; returns its cost in picoseconds. */
static uint64_t step(struct igpu_model *m, struct model_engine *en)
{
    if (en->lite_restore) {
        /* First sample the new tail, so a save that follows keeps it. */
        en->lite_restore = false;
        ctx_restore(m, en, true);
        return 0;
    }
    /* A context whose ring is done completes instead (GVT-g's order, below). */
    bool ring_done = !en->need_restore && !en->blit.active && igpu_cs_idle(&en->cs);
    if (en->pend.valid && !ring_done && arbitration_point(m, en)) {
        preempt(m, en);
        return 0;
    }
    if (en->need_restore) {
        uint64_t c = ctx_restore(m, en, false);
        en->need_restore = false;
        return c;
    }
    if (en->blit.active)
        return model_blit_step(m, en);
    if (igpu_cs_idle(&en->cs)) {
        element_complete(m, en);
        return 0;
    }
    return model_exec_one(m, en);
}

uint64_t igpu_model_run(struct igpu_model *m, enum igpu_engine e, uint64_t budget_ns)
{
    struct model_engine *en = m ? model_engine(m, e) : NULL;
    uint64_t budget_ps, used = 0;

    if (!en)
        return 0;
    budget_ps = budget_ns > UINT64_MAX / 1000u ? UINT64_MAX : budget_ns * 1000u;
    while (en->state == IGPU_MODEL_ACTIVE && !(en->mi_mode & GEN9_MI_MODE_STOP_RING) &&
           used < budget_ps) {
        uint64_t c = step(m, en);
        used += c;
        en->clock_ps += c;
        en->busy_ps += c;
    }
    return used / 1000u;
}

uint64_t igpu_model_run_until_idle(struct igpu_model *m, enum igpu_engine e, uint64_t max_ns)
{
    return igpu_model_run(m, e, max_ns);
}
