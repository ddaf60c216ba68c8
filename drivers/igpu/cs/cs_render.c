/*
 * The render engine's type-3 (GFXPIPE) commands in the software command streamer: PIPE_CONTROL
 * on every render engine; on the MI-only streamer's (gfxpipe) also the 3D and media state
 * i915's golden context sends, decoded and skipped (drivers/igpu/gen9_gfxpipe.c), and the
 * draws and kernels it cannot run, refused by name.
 */
#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"
#include "drivers/igpu/gen9_regs.h"

/* PIPE_CONTROL: flushes, stalls and invalidations are complete at once (TLB invalidation
 * empties the caller's translation cache); the post-sync write (a qword, so address bits 2:0
 * are ignored) follows, then the notify interrupt (i915 gen8_emit_flush_rcs(),
 * gen8_emit_ggtt_write_rcs()). */
static bool exec_pipe_control(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    uint32_t flags = cs->dw[GEN9_PIPE_CONTROL_DW_FLAGS];
    uint32_t op = flags & GEN9_PIPE_CONTROL_POST_SYNC_MASK;
    bool index = (flags & GEN9_PIPE_CONTROL_STORE_DATA_INDEX) != 0;
    enum igpu_cs_space space = IGPU_CS_GGTT;
    uint64_t addr = 0, data;

    if (cs->len != GEN9_PIPE_CONTROL_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 6 dwords");
    if (flags & GEN9_PIPE_CONTROL_LRI_POST_SYNC)
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_FIELD, flags, "post-sync register write");
    if (op == GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT)
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_FIELD, flags, "depth-count post-sync (no 3D)");
    if (flags & GEN9_PIPE_CONTROL_TLB_INVALIDATE)
        cs_tlb_invalidate(r);
    if (op != GEN9_PIPE_CONTROL_POST_SYNC_NONE) {
        if (index) {
            if (cs->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI])
                return cs_fault(r, IGPU_CS_F_BAD_FIELD, cs->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI],
                                "status-page index with a high address");
            if (!cs_pphwsp_target(r, cs->dw[GEN9_PIPE_CONTROL_DW_ADDR_LO], &addr))
                return false;
        } else {
            space = (flags & GEN9_PIPE_CONTROL_GLOBAL_GTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
            if (!cs_addr(r, cs->dw[GEN9_PIPE_CONTROL_DW_ADDR_LO],
                         cs->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI], GEN9_PIPE_CONTROL_QW_ADDR_MASK,
                         &addr))
                return false;
        }
        data = op == GEN9_PIPE_CONTROL_WRITE_TIMESTAMP
                 ? cs_now(r)
                 : (uint64_t)cs->dw[GEN9_PIPE_CONTROL_DW_DATA_LO] |
                       (uint64_t)cs->dw[GEN9_PIPE_CONTROL_DW_DATA_HI] << 32;
        if (!cs_priv_mem_ok(r, space, index))
            cs_priv_drop(r);
        else if (!cs_write(r, space, addr, data, GEN9_PIPE_CONTROL_POST_SYNC_BYTES))
            return false;
    }
    if (flags & GEN9_PIPE_CONTROL_NOTIFY) {
        r->res->notifies++;
        cs_event(r, GEN9_GT_PIPECTL_NOTIFY);
    }
    return true;
}

/* A state command is fetched whole (the hardware reads it) but changes nothing visible. */
static bool skip_state(struct cs_run *r)
{
    uint32_t v[IGPU_CS_CMD_DW];

    for (uint32_t i = IGPU_CS_CMD_DW; i < r->cs->len; i += IGPU_CS_CMD_DW) {
        uint32_t n = r->cs->len - i < IGPU_CS_CMD_DW ? r->cs->len - i : IGPU_CS_CMD_DW;
        if (!cs_fetch(r, i, n, v))
            return false;
    }
    r->res->state_skipped++;
    return true;
}

/* The MI-only streamer's render engine: i915's golden state is skipped, what would need the
 * 3D or media pipeline is refused by name. */
static bool exec_gfxpipe(struct cs_run *r)
{
    struct igpu_cs *cs = r->cs;
    const struct gen9_gfxpipe_cmd *c = gen9_gfxpipe_lookup(cs->hdr);

    if (!c)
        return cs_fault(r, IGPU_CS_F_UNKNOWN_CMD, cs->hdr, "unknown GFXPIPE command");
    if (cs->len < c->len_min || cs->len > c->len_max)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "wrong length for the command");
    switch ((enum gen9_gfxpipe_kind)c->kind) {
    case GEN9_GFX_STATE:
    case GEN9_GFX_MEDIA_STATE:
        if (c->subtype == GEN9_GFXPIPE_3D && c->opcode == 0 &&
            c->subop == GEN9_3DSTATE_VF_TOPOLOGY_SUBOP)
            cs->topology = cs->dw[1] & GEN9_TOPOLOGY_MASK;
        return skip_state(r);
    case GEN9_GFX_DRAW:
        if (!gen9_3dprimitive_draws_nothing(cs->dw, cs->topology))
            return cs_fault(r, IGPU_CS_F_DRAW, cs->dw[GEN9_3DPRIMITIVE_DW_VERTEX_COUNT],
                            "may draw: " IGPU_CS_LABEL);
        r->res->state_skipped++; /* no vertex reaches a shader: nothing to do */
        return true;
    case GEN9_GFX_MEDIA_OBJECT:
    case GEN9_GFX_GPGPU_WALKER:
        return cs_fault(r, IGPU_CS_F_GPGPU, cs->hdr, "runs kernels: " IGPU_CS_LABEL);
    case GEN9_GFX_PIPE_CONTROL: /* taken before the lookup */
    case GEN9_GFX_WRITES_MEMORY:
    default:
        return cs_unsupported(r, "writes binding tables to memory (resource streamer)");
    }
}

bool cs_exec_render(struct cs_run *r)
{
    if (gen9_is_pipe_control(r->cs->hdr))
        return exec_pipe_control(r);
    if (r->cs->gfxpipe)
        return exec_gfxpipe(r);
    return cs_unsupported(r, NULL);
}
