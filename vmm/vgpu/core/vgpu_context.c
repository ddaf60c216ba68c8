/* The vGPUs' shadow contexts on the blitter.
 *
 * Every vGPU's workloads run in its own logical ring context (a shadow context in the host area,
 * never the guest's own image), and that context starts from a complete Gen9 image: the
 * blitter's default image, recorded once from the engine itself the way i915 records
 * engine->default_state (gt/intel_gt.c __engines_record_defaults(): a context whose image holds
 * the full layout with restore inhibited runs on the freshly reset engine, and what the engine
 * saves is its reset state).  A vGPU's first workload therefore restores every register of the
 * image, the sixteen GPRs and BCS_SWCTRL included, from that reset state, and from then on its
 * own saved values: nothing another vGPU left in the engine survives a context switch
 * (docs/vgpu.md "Isolation").  Without a recorded image there is no safe way to start
 * a context (an inhibited restore keeps the previous context's registers), so the vGPU device
 * does not start. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_regs.h"

#include <stdlib.h>
#include <string.h>

#define STATE_DW (GEN9_GTT_PAGE_SIZE / 4u)
/* The recording context's id: vGPUs use vm + 1 <= VGPU_MAX. */
#define RECORD_CTX_ID 0x1FFFFFu
/* GPU time (and polls) the recording may take: an empty ring runs in microseconds. */
#define RECORD_TIMEOUT_NS 100000000ull
#define RECORD_POLLS      100000u

uint64_t vgpu_shadow_desc(const struct vgpu *v)
{
    /* i915 lrc_descriptor(): legacy 32-bit addressing, VALID and PRIVILEGE on every context;
     * PRIVILEGE lets the ring's GGTT-addressed commands (batch starts without the PPGTT bit,
     * the breadcrumb's post-sync store) run as the hypervisor's own. */
    /* A personality whose contexts have a PPGTT (i915): legacy 64-bit addressing, the shadow
     * PML4 in PDP0 (vgpu_render.c dispatch()). */
    uint64_t mode = v->ops->ppgtt_contexts ? GEN9_CTX_ADDR_LEGACY_64B : GEN9_CTX_ADDR_LEGACY_32B;
    return gen9_ctx_desc((uint32_t)v->ctx_gm, v->host_ctx_id,
                         GEN9_CTX_PRIVILEGE | (mode << GEN9_CTX_ADDRESSING_MODE_SHIFT));
}

static void put_state(uint8_t *page, const uint32_t *s)
{
    for (unsigned i = 0; i < STATE_DW; i++)
        wr32le(page + 4u * i, s[i]);
}

static void get_state(uint32_t *s, const uint8_t *page)
{
    for (unsigned i = 0; i < STATE_DW; i++)
        s[i] = rd32le(page + 4u * i);
}

/* The engine saved an image with the layout Tessera builds contexts from. */
static bool saved_layout_ok(const uint32_t *s)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(IGPU_BCS);
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *b = &l->block[k];
        if ((s[b->header] & ~GEN9_MI_LRI_FORCE_POSTED) != GEN9_MI_LOAD_REGISTER_IMM(b->count))
            return false;
        for (unsigned i = b->first; i < (unsigned)b->first + b->count; i++)
            if (s[gen9_lrc_value_dw(l, i) - 1u] != GEN9_BCS_BASE + l->reg[i])
                return false;
    }
    return true;
}

int vgpu_record_default_context(struct vgpu_dev *d)
{
    const struct vgpu_env *env = &d->cfg.env;
    uint8_t *ctx = (uint8_t *)d->cfg.host.hva, *ring = ctx + GEN9_LR_CONTEXT_OTHER_SIZE;
    uint32_t ctx_gm = (uint32_t)d->cfg.host.gm, ring_gm = ctx_gm + GEN9_LR_CONTEXT_OTHER_SIZE;
    const char *why = NULL;
    int rc;

    memset(ctx, 0, VGPU_RECORD_BYTES);
    wr32le(ring, GEN9_MI_NOOP);
    wr32le(ring + 4, GEN9_MI_NOOP);
    rc = igpu_lrc_init_state(d->default_state, STATE_DW, IGPU_BCS, NULL, ring_gm,
                             GEN9_GTT_PAGE_SIZE, 0, 8);
    if (rc != IGPU_OK) {
        vgpu_logf(d, VGPU_LOG_ERROR, "default context image: %s", igpu_strerror(rc));
        return -1;
    }
    put_state(ctx + GEN9_LRC_STATE_OFFSET, d->default_state);

    /* A known engine: reset, execlists on, then the one context. */
    igpu_engine_reset(d->cfg.igpu, IGPU_BCS);
    rc = igpu_engine_init(d->cfg.igpu, IGPU_BCS, d->cfg.engine_hws_gm);
    if (rc == IGPU_OK)
        rc = igpu_elsp_submit(d->cfg.igpu, IGPU_BCS,
                              gen9_ctx_desc(ctx_gm, RECORD_CTX_ID,
                                            GEN9_CTX_PRIVILEGE |
                                                (GEN9_CTX_ADDR_LEGACY_32B
                                                 << GEN9_CTX_ADDRESSING_MODE_SHIFT)),
                              0);
    if (rc != IGPU_OK) {
        vgpu_logf(d, VGPU_LOG_ERROR, "recording the blitter's default context: %s",
                  igpu_strerror(rc));
        return -1;
    }
    bool done = false;
    uint64_t t0 = env->now_ns(env->ctx);
    for (unsigned polls = 0; !done && !why && polls < RECORD_POLLS; polls++) {
        struct igpu_csb_event ev[VGPU_CSB_ENTRIES];
        env->gpu_run(env->ctx, 1000000);
        int n;
        while (!done && (n = igpu_csb_read(d->cfg.igpu, IGPU_BCS, ev, VGPU_CSB_ENTRIES)) > 0)
            for (int i = 0; i < n; i++)
                if ((ev[i].status & GEN9_CTX_STATUS_COMPLETE) && ev[i].ctx_id == RECORD_CTX_ID)
                    done = true;
        if (env->gpu_fault)
            why = env->gpu_fault(env->ctx);
        if (!done && !why && env->now_ns(env->ctx) - t0 > RECORD_TIMEOUT_NS)
            why = "the context did not complete";
    }
    if (!done) {
        vgpu_logf(d, VGPU_LOG_ERROR, "recording the blitter's default context failed: %s",
                  why ? why : "the context did not complete");
        return -1;
    }
    get_state(d->default_state, ctx + GEN9_LRC_STATE_OFFSET);
    if (!saved_layout_ok(d->default_state)) {
        vgpu_logf(d, VGPU_LOG_ERROR, "the blitter saved a context image without the Gen9 layout");
        return -1;
    }
    return 0;
}

int vgpu_init_shadow_context(struct vgpu *v)
{
    uint32_t *state = malloc(GEN9_GTT_PAGE_SIZE); /* a page: too much for small stacks */
    if (!state)
        return -1;
    int rc = igpu_lrc_init_state(state, STATE_DW, IGPU_BCS, v->dev->default_state,
                                 (uint32_t)v->ring_gm, v->ring_bytes, 0, 0);
    if (rc == IGPU_OK) {
        memset(v->ctx_hva, 0, GEN9_LRC_STATE_OFFSET); /* i915 clears the PPHWSP too */
        put_state(v->ctx_hva + GEN9_LRC_STATE_OFFSET, state);
    }
    free(state);
    return rc == IGPU_OK ? 0 : -1;
}
