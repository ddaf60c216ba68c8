/* Preemption: cutting a vGPU's turn short inside a long workload (docs/vgpu.md "Preemption").
 *
 * The render loop asks for it when the scheduler says the running vGPU has used its turn and
 * another is waiting (sched_preempt_due), and when graphics memory must change hands (a
 * bounded drain).  The mechanism is Gen9's preempt-to-idle as i915 used it on Skylake
 * (intel_lrc.c inject_preempt_context(), kernels 4.16 to 5.3): the host's own context, with an
 * empty ring, is submitted through ELSP while the vGPU's context runs; the engine leaves that
 * context at its next arbitration point and saves it (PREEMPTED), runs the empty one, which
 * completes at once (COMPLETE with its id), and is then idle.  The vGPU's unfinished workloads
 * stay in its shadow ring, its saved image says where they resume, and its next turn submits
 * the same context again to take them up.
 *
 * Where the arbitration points are is the engine's business: on Gen9 MI_ARB_CHECK (the render
 * loop puts one after every workload) and the ring's command boundaries; the software model is
 * configured to stop also between commands inside batches and between the steps of a long
 * blit (vmm/vgpu/host/gpu.c, docs/igpu-model.md "Preemption"). */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_context.h"

#include <stdlib.h>
#include <string.h>

/* Context ids on the blitter: vGPUs use vm + 1 <= VGPU_MAX, the recording 0x1FFFFF. */
#define PREEMPT_CTX_ID 0x1FFFFEu
#define STATE_DW       (GEN9_GTT_PAGE_SIZE / 4u)

static uint64_t preempt_desc(const struct vgpu_dev *d)
{
    return gen9_ctx_desc(d->preempt_ctx_gm, PREEMPT_CTX_ID,
                         GEN9_CTX_PRIVILEGE |
                             (GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT));
}

int vgpu_preempt_init(struct vgpu_dev *d)
{
    /* The recording's context and ring (VGPU_RECORD_BYTES at the start of the host area) are
     * free once the default image is recorded: the preemption context lives there, built from
     * that image with an empty ring (head = tail = 0). */
    uint8_t *ctx = (uint8_t *)d->cfg.host.hva;
    uint32_t ctx_gm = (uint32_t)d->cfg.host.gm, ring_gm = ctx_gm + GEN9_LR_CONTEXT_OTHER_SIZE;
    uint32_t *state = malloc(GEN9_GTT_PAGE_SIZE);
    if (!state)
        return -1;
    int rc = igpu_lrc_init_state(state, STATE_DW, IGPU_BCS, d->default_state, ring_gm,
                                 GEN9_GTT_PAGE_SIZE, 0, 0);
    if (rc == IGPU_OK) {
        memset(ctx, 0, VGPU_RECORD_BYTES);
        for (unsigned i = 0; i < STATE_DW; i++)
            wr32le(ctx + GEN9_LRC_STATE_OFFSET + 4u * i, state[i]);
    }
    free(state);
    d->preempt_ctx_gm = ctx_gm;
    return rc == IGPU_OK ? 0 : -1;
}

void vgpu_preempt_request(struct vgpu_dev *d)
{
    if (d->running == VGPU_MAX || d->preempting)
        return;
    int rc = igpu_elsp_submit(d->cfg.igpu, IGPU_BCS, preempt_desc(d), 0);
    if (rc != IGPU_OK) {
        vgpu_logf(d, VGPU_LOG_WARN, "preempting vgpu %u: the GPU refused the submission: %s",
                  d->running, igpu_strerror(rc));
        return;
    }
    d->preempting = true;
}

bool vgpu_preempt_events(struct vgpu_dev *d)
{
    struct igpu_csb_event ev[VGPU_CSB_ENTRIES];
    bool done = false;
    int n;
    /* Workloads complete by breadcrumb; of the events only the preemption context's
     * completion matters (i915: COMPLETE with the preempt context's id). */
    while ((n = igpu_csb_read(d->cfg.igpu, IGPU_BCS, ev, VGPU_CSB_ENTRIES)) > 0)
        for (int i = 0; i < n; i++)
            if ((ev[i].status & GEN9_CTX_STATUS_COMPLETE) && ev[i].ctx_id == PREEMPT_CTX_ID)
                done = true;
    return done && d->preempting;
}

void vgpu_preempt_finish(struct vgpu_dev *d)
{
    bool pause = d->pausing;
    d->preempting = d->pausing = false;
    struct vgpu *v = vgpu_get(d, d->running);
    if (!v || d->inflight == 0)
        return; /* its work finished before the engine reached an arbitration point */
    v->preempted = d->inflight;
    v->st.gpu_ns += d->inflight_ns;
    if (pause)
        sched_paused(d->cfg.sched, v->id, d->inflight_ns);
    else
        sched_preempted(d->cfg.sched, v->id, d->inflight_ns);
    d->running = VGPU_MAX;
    d->inflight = 0;
    d->inflight_ns = 0;
    d->st.preemptions++;
}
