/* The render loop (docs/vgpu.md): the scheduler picks a vGPU, its entries are brought into the
 * physical GGTT (and the next one's written ahead), its scanned workloads go to the blitter in
 * the vGPU's shadow context, completions are matched by breadcrumb, charged and retired to the
 * guest; runaways are reset by the watchdog without touching the other vGPUs.  A turn that has
 * used its quota while others wait is preempted inside its workload (vgpu_preempt.c), and no
 * path runs guest work without the watchdog and the scheduler's accounting: a drain for the
 * balloon is bounded (vgpu_render_drain). */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"

#include <string.h>

/* Breadcrumb: the hypervisor's own MI_FLUSH_DW after every workload stores its id here.  An
 * MI_FLUSH_DW post-sync address is qword aligned with bit 5 clear (GEN9_MI_FLUSH_DW_ADDR_MBZ). */
#define SEQNO_OFFSET 0x100u
_Static_assert((SEQNO_OFFSET & ~GEN9_MI_FLUSH_DW_ADDR_MASK) == 0 &&
                   (SEQNO_OFFSET & GEN9_MI_FLUSH_DW_ADDR_MBZ) == 0,
               "a valid MI_FLUSH_DW address");
/* Dwords the ring adds to a workload: the breadcrumb, MI_ARB_CHECK, qword padding. */
#define WORKLOAD_EXTRA_DW    (GEN9_MI_FLUSH_DW_DW_LEN + 1u + 1u)
#define VGPU_DRAIN_MAX_SPINS 100000u

static uint32_t seqno_of(const struct vgpu *v)
{
    return rd32le(v->hwsp_hva + SEQNO_OFFSET);
}

/* Retires finished and void records at the head of the queue, in order. */
static void retire_ready(struct vgpu *v)
{
    while (v->q_len) {
        struct vgpu_workload *w = &v->q[v->q_head];
        if (!w->is_void && !w->done)
            break;
        vgpu_retire_head(v, TESSERA_REJECT_NONE);
    }
    if (v->rest.bytes)
        vgpu_queue_rest(v); /* room for more of a long submission */
    /* gtt/ copies and plans only for vGPUs with work (an idle one is never switched to). */
    gtt_set_active(v->dev->cfg.gtt, v->id, v->q_len != 0);
}

/* Marks the in-flight workloads whose breadcrumb has landed as done and charges GPU time: what
 * was used since the last completion goes to the newest one finished (sched allows that). */
static void collect(struct vgpu_dev *d, struct vgpu *v)
{
    if (!v)
        return;
    uint32_t seq = seqno_of(v);
    struct vgpu_workload *last = NULL;
    for (unsigned i = 0; i < v->q_len; i++) {
        struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (!w->inflight)
            continue;
        if ((int32_t)(seq - (uint32_t)w->id) < 0)
            break;
        w->inflight = false;
        w->done = true;
        d->inflight--;
        if (last)
            sched_complete(d->cfg.sched, v->id, last->id, 0);
        last = w;
    }
    if (last) {
        sched_complete(d->cfg.sched, v->id, last->id, d->inflight_ns);
        v->st.gpu_ns += d->inflight_ns;
        d->inflight_ns = 0;
    }
    if (d->inflight == 0)
        d->running = VGPU_MAX;
    retire_ready(v);
}

/* Drops every workload of v: in flight ones were cut short by the engine reset. */
void vgpu_drop_queue(struct vgpu *v, uint32_t code)
{
    v->rest.bytes = 0; /* what was not queued yet goes too */
    for (unsigned i = 0; i < v->q_len; i++) {
        struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (!w->is_void) {
            v->shadow_busy &= ~(1ull << w->shadow);
            w->is_void = true;
            w->code = code;
            w->inflight = w->done = false;
            v->st.dropped++;
        }
    }
    retire_ready(v);
}

int vgpu_reset(struct vgpu_dev *d, unsigned vm, const char *why)
{
    struct vgpu *v = vgpu_get(d, vm);
    if (!v)
        return -1;
    if (d->running == vm) {
        igpu_engine_reset(d->cfg.igpu, IGPU_BCS);
        int rc = igpu_engine_init(d->cfg.igpu, IGPU_BCS, d->cfg.engine_hws_gm);
        if (rc != IGPU_OK)
            vgpu_logf(d, VGPU_LOG_ERROR, "blitter did not restart after the reset: %s",
                      igpu_strerror(rc));
        d->running = VGPU_MAX;
        d->inflight = 0;
        d->inflight_ns = 0;
        d->preempting = d->pausing = false; /* the reset took the preemption context off too */
    }
    v->preempted = 0; /* its shadow context starts over below */
    int n = sched_vgpu_reset(d->cfg.sched, vm);
    /* Its shadow context starts over from the default image, as i915 restores the default state
     * of a context an engine reset interrupted (execlists_reset_active()). */
    if (vgpu_init_shadow_context(v) != 0)
        vgpu_logf(d, VGPU_LOG_ERROR, "vgpu %u: no memory to rebuild its shadow context", vm);
    unsigned queued = v->q_len;
    vgpu_drop_queue(v, TESSERA_REJECT_RESET);
    v->st.resets++;
    v->pv.tessera_balloon.resets++;
    /* A guest that resets its engines itself (i915 does at every probe and after every failed
     * request) or restarts: that is its business unless work was lost. */
    bool routine = v->guest_reset && queued == 0;
    vgpu_logf(d, routine ? VGPU_LOG_INFO : VGPU_LOG_WARN,
              "vgpu %u: reset (%s): %u workloads dropped", vm, why, queued);
    (void)n;
    return 0;
}

/* Brings v's graphics memory into the physical GGTT if another vGPU's is there (the next
 * owner's is written ahead once v's work is on the engine: vgpu_write_ahead). */
static void switch_to(struct vgpu_dev *d, struct vgpu *v)
{
    struct gtt *g = d->cfg.gtt;
    uint64_t t0 = vgpu_cpu_now(d);
    gtt_set_active(g, v->id, true);
    bool switched = g->running != v->id;
    if (switched) {
        /* gtt/ invalidates the GGTT after the copy. */
        long n = gtt_switch_to(g, v->id);
        if (n > 0)
            d->st.entries_switch += (uint64_t)n;
        d->st.switches++;
    }
    if (d->cfg.env.cpu_ns) {
        uint64_t dt = d->cfg.env.cpu_ns(d->cfg.env.ctx) - t0;
        d->st.copy_cpu_ns += dt;
        d->st.copy_switch_ns += dt;
        v->st.copy_cpu_ns += dt; /* done for v: its CPU share pays */
    }
    if (switched) {
        /* What bringing v in cost, here and ahead since its last switch-in: a preemption on
         * arrival that would make it come back again must gain more (sched_vgpu_switch_cost).
         * On the model the CPU that copies is the one that renders, so the time written ahead
         * is lost to the GPU as much as the switch path's. */
        sched_vgpu_switch_cost(d->cfg.sched, v->id, v->st.copy_cpu_ns - v->copy_seen);
        v->copy_seen = v->st.copy_cpu_ns;
    }
}

/* Room for n_dw contiguous dwords at *off: a command never straddles the ring's end (the rest
 * of the ring is padded with MI_NOOP and writing goes on at 0, as i915 does). */
static uint32_t *ring_put(struct vgpu *v, uint32_t *off, uint32_t n_dw)
{
    if (*off + 4u * n_dw > v->ring_bytes) {
        for (; *off < v->ring_bytes; *off += 4)
            wr32le(v->ring_hva + *off, GEN9_MI_NOOP);
        *off = 0;
    }
    uint32_t *p = (uint32_t *)(void *)(v->ring_hva + *off);
    *off += 4u * n_dw;
    return p;
}

static void dispatch(struct vgpu_dev *d, const struct sched_decision *dec)
{
    struct vgpu *v = vgpu_get(d, dec->vgpu);
    if (!v)
        return;
    switch_to(d, v);
    /* The ring goes on from where the last dispatch ended, so the engine's saved head and the
     * context image agree whether it restores the context fully or lite.  Workloads a
     * preemption left in the ring (between the saved head and ring_tail) resume first; new
     * ones must not reach that unread part of the ring. */
    uint8_t *st = v->ctx_hva + GEN9_LRC_STATE_OFFSET;
    uint32_t start = v->ring_tail, off = start, used = 0, left = dec->count, resumed = 0;
    uint32_t unread = v->preempted
                        ? (start - (rd32le(st + 4u * GEN9_CTX_RING_HEAD) & GEN9_HEAD_ADDR) +
                           v->ring_bytes) %
                              v->ring_bytes
                        : 0;
    uint32_t room = v->ring_bytes / 2 < v->ring_bytes - unread ? v->ring_bytes / 2
                                                               : v->ring_bytes - unread;
    /* Workloads of a personality whose contexts have a PPGTT run with it in the shadow
     * context's PDP0: one dispatch holds the workloads of one PPGTT (those a preemption left
     * first).  Others' workloads all have pml4 0. */
    uint64_t pml4 = 0;
    bool have_pml4 = false;
    for (unsigned i = 0; i < v->q_len && left; i++) {
        struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (w->inflight && resumed < v->preempted) {
            resumed++;
            left--;
            d->inflight++;
            pml4 = w->pml4;
            have_pml4 = true;
            continue;
        }
        if (w->is_void || w->inflight || w->done)
            continue;
        if (have_pml4 && w->pml4 != pml4)
            break; /* another PPGTT: the next dispatch */
        pml4 = w->pml4;
        have_pml4 = true;
        left--;
        if (w->range_gen != v->range_gen) {
            /* Scanned against graphics memory the vGPU no longer holds: never run it. */
            v->shadow_busy &= ~(1ull << w->shadow);
            w->is_void = true;
            w->code = TESSERA_REJECT_SHRUNK;
            v->st.dropped++;
            sched_complete(d->cfg.sched, v->id, w->id, 0);
            continue;
        }
        if (used + 4u * (w->n_dw + WORKLOAD_EXTRA_DW) + 64u > room)
            break; /* not with the dispatch cap; the rest waits for the next turn */
        uint32_t before = off;
        memcpy(ring_put(v, &off, w->n_dw), w->cmds, 4u * w->n_dw);
        /* i915 gen8_emit_fini_breadcrumb_xcs() -> gen8_emit_ggtt_write(): the completion is an
         * MI_FLUSH_DW post-sync store, so the breadcrumb lands only once the blitter's writes
         * are flushed; the workload is retired (and its memory may change hands) after that. */
        uint32_t *c = ring_put(v, &off, GEN9_MI_FLUSH_DW_DW_LEN);
        uint64_t seq_gm = v->hwsp_gm + SEQNO_OFFSET;
        c[0] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW;
        c[GEN9_MI_FLUSH_DW_DW_ADDR_LO] = (uint32_t)seq_gm | GEN9_MI_FLUSH_DW_USE_GTT;
        c[GEN9_MI_FLUSH_DW_DW_ADDR_HI] = (uint32_t)(seq_gm >> 32);
        c[GEN9_MI_FLUSH_DW_DW_DATA_LO] = (uint32_t)w->id;
        /* An arbitration point between workloads, as i915 puts one in every request. */
        *ring_put(v, &off, 1) = GEN9_MI_ARB_CHECK;
        used += (off - before + v->ring_bytes) % v->ring_bytes;
        w->inflight = true;
        w->dispatch_ns = vgpu_cpu_now(d);
        if (!v->st.first.dispatched) {
            v->st.first.dispatched = true;
            v->st.first.dispatch_ns = w->dispatch_ns;
        }
        d->inflight++;
        d->st.workloads++;
    }
    retire_ready(v);
    if (d->inflight == 0)
        return;
    if (off & 7u)
        *ring_put(v, &off, 1) = GEN9_MI_NOOP; /* RING_TAIL is qword aligned */
    if (off == v->ring_bytes)
        off = 0;
    v->ring_tail = off;
    if (!v->preempted)
        wr32le(st + 4u * GEN9_CTX_RING_HEAD, start); /* else: where the engine left it */
    if (v->ops->ppgtt_contexts && !v->preempted) {
        /* The shadow PML4 (0 if the guest destroyed the PPGTT meanwhile: its PPGTT batches
         * then fault); a preempted context keeps the one it was running with. */
        uint64_t shadow = v->ops->shadow_root(v, pml4);
        wr32le(st + 4u * GEN9_CTX_PDP0_UDW, (uint32_t)(shadow >> 32));
        wr32le(st + 4u * GEN9_CTX_PDP0_LDW, (uint32_t)shadow);
    }
    v->preempted = 0;
    wr32le(st + 4u * GEN9_CTX_RING_TAIL, off);
    int rc = igpu_elsp_submit(d->cfg.igpu, IGPU_BCS, vgpu_shadow_desc(v), 0);
    d->running = v->id;
    d->inflight_ns = 0;
    d->st.dispatches++;
    if (rc != IGPU_OK) {
        vgpu_note_reject(v, TESSERA_REJECT_GPU_FAULT, "GPU refused the submission: %s",
                         igpu_strerror(rc));
        vgpu_reset(d, v->id, "submission failed");
        return;
    }
    vgpu_write_ahead(d, v, dec->new_turn); /* while the engine runs v's work */
}

/* Runs the GPU for one budget and takes in what finished; a fault resets the owner. */
void vgpu_run_gpu(struct vgpu_dev *d)
{
    struct vgpu *v = vgpu_get(d, d->running);
    uint64_t t0 = vgpu_cpu_now(d);
    uint64_t used = d->cfg.env.gpu_run(d->cfg.env.ctx, d->cfg.render_budget_ns);
    if (v)
        v->st.render_cpu_ns += vgpu_cpu_now(d) - t0;
    d->inflight_ns += used;
    d->st.busy_ns += used;
    bool preempted = vgpu_preempt_events(d);
    collect(d, v);
    if (preempted) {
        vgpu_preempt_finish(d);
        return;
    }
    if (!v)
        return; /* the preemption context is still on its way through */
    if (!used && d->running == v->id &&
        !(d->cfg.env.gpu_fault && d->cfg.env.gpu_fault(d->cfg.env.ctx))) {
        /* The engine stopped with work of ours unfinished and no fault: do not wait forever. */
        vgpu_note_reject(v, TESSERA_REJECT_GPU_FAULT,
                         "the GPU went idle with %u workloads unfinished", d->inflight);
        vgpu_reset(d, v->id, "GPU idle with work unfinished");
        return;
    }
    const char *fault = d->cfg.env.gpu_fault ? d->cfg.env.gpu_fault(d->cfg.env.ctx) : NULL;
    if (fault && d->running == v->id) {
        d->st.gpu_faults++;
        vgpu_note_reject(v, TESSERA_REJECT_GPU_FAULT, "GPU fault while running its workload: %s",
                         fault);
        vgpu_reset(d, v->id, "GPU fault");
    }
}

/* A workload that has run longer than the limit (the scheduler's watchdog) is reset. */
static void watchdog(struct vgpu_dev *d)
{
    uint32_t runaway;
    if (!sched_watchdog(d->cfg.sched, &runaway))
        return;
    d->st.watchdog_resets++;
    struct vgpu *v = vgpu_get(d, runaway);
    if (v)
        vgpu_note_reject(v, TESSERA_REJECT_RESET, "watchdog: a workload ran longer than the limit");
    vgpu_reset(d, runaway, "watchdog");
}

static bool engine_busy(const struct vgpu_dev *d)
{
    return d->running != VGPU_MAX || d->preempting;
}

bool vgpu_render_drain(struct vgpu_dev *d)
{
    const struct vgpu_env *env = &d->cfg.env;
    uint64_t t0 = env->now_ns(env->ctx);
    d->st.drains++;
    for (unsigned spins = 0; engine_busy(d); spins++) {
        if (env->now_ns(env->ctx) - t0 > VGPU_DRAIN_MAX_NS || spins >= VGPU_DRAIN_MAX_SPINS) {
            d->st.drains_busy++;
            return false;
        }
        /* A pause for graphics memory, not a turn ending: the owner takes up its work first
         * afterwards (sched_paused).  A cut turn would go behind every guest that arrived
         * meanwhile: with 32 guests starting, a first frame drained by the balloon period
         * waited for all later guests' first frames. */
        bool asked = d->preempting;
        vgpu_preempt_request(d);
        if (!asked && d->preempting)
            d->pausing = true;
        vgpu_run_gpu(d);
        watchdog(d);
    }
    return true;
}

bool vgpu_render_step(struct vgpu_dev *d)
{
    if (engine_busy(d))
        vgpu_run_gpu(d);
    watchdog(d);
    /* The turn has used its quota inside a workload and someone else is waiting. */
    if (d->running != VGPU_MAX && !d->preempting && sched_preempt_due(d->cfg.sched, d->inflight_ns))
        vgpu_preempt_request(d);

    if (!engine_busy(d)) {
        vgpu_balloon_apply_pending(d);
        struct sched_decision dec;
        if (sched_pick(d->cfg.sched, &dec) == SCHED_OK && dec.kind == SCHED_PICK_DISPATCH)
            dispatch(d, &dec);
    }
    /* The engines run on the CPU take their bounded steps after the blitter's, so blitter work
     * that arrives waits at most one step of each. */
    bool cpu_busy = vgpu_cpu_engines_step(d);
    return engine_busy(d) || cpu_busy;
}
