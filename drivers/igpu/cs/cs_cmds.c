/*
 * The commands the MI-only command streamer executes (MI_* and PIPE_CONTROL post-syncs) and the
 * GFXPIPE decisions (state skipped, draws and walkers refused).  Encodings are named in
 * drivers/igpu/gen9_cmd.h; the forms are the ones i915 6.1 emits (gt/gen8_engine_cs.c:
 * gen8_emit_flush_rcs/xcs(), gen8_emit_fini_breadcrumb_rcs/xcs(), gen8_emit_bb_start_noarb(),
 * gen8_emit_init_breadcrumb(); gt/intel_workarounds.c intel_engine_emit_ctx_wa()).
 *
 * Faithful to the hardware where it matters to a driver: low address bits the hardware ignores
 * are ignored (as the Gen9 model does), a refused access stops the engine at the command (a hang
 * the guest's hang detection resets), and interrupts are raised after the write they signal.
 */
#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gfxpipe.h"
#include "drivers/igpu/gen9_regs.h"

static bool write_le(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, uint64_t v,
                     uint32_t bytes)
{
    uint8_t b[8];

    for (uint32_t i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8u * i));
    if (!cs_space_ok(r, space) || !cs_mem(r, space, gaddr, b, bytes, true))
        return false;
    r->res->mem_writes++;
    return true;
}

static void post_event(struct cs_run *r, uint32_t bits)
{
    if (r->ops->event)
        r->ops->event(r->ops->ctx, bits);
}

static uint64_t now(const struct cs_run *r)
{
    return r->ops->timestamp ? r->ops->timestamp(r->ops->ctx) : 0;
}

/* A post-sync address given as a byte offset into the running context's status page (the
 * "store data index" forms): i915 points them at its scratch slot, LRC_PPHWSP_SCRATCH_ADDR. */
static bool pphwsp_target(struct cs_run *r, uint32_t off, uint32_t align, uint64_t *out)
{
    if (off >= GEN9_PPHWSP_BYTES)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, off, "status-page index beyond the page");
    *out = r->cfg->pphwsp_gaddr + (off & ~(align - 1u));
    return true;
}

/* ---- MI ----------------------------------------------------------------------------------- */

static bool exec_sdi(struct cs_run *r)
{
    bool qw = (r->hdr & GEN9_MI_SDI_STORE_QWORD) != 0;
    enum igpu_cs_space space = (r->hdr & GEN9_MI_SDI_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint64_t addr, data;

    if (r->len != (qw ? GEN9_MI_STORE_DATA_IMM_QW_LEN : GEN9_MI_STORE_DATA_IMM_DW_LEN))
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length does not match the store size");
    if (!cs_addr(r, r->dw[GEN9_MI_SDI_DW_ADDR_LO], r->dw[GEN9_MI_SDI_DW_ADDR_HI],
                 qw ? GEN9_MI_SDI_QW_ADDR_MASK : GEN9_MI_SDI_ADDR_MASK, &addr))
        return false;
    data = r->dw[GEN9_MI_SDI_DW_DATA_LO];
    if (qw)
        data |= (uint64_t)r->dw[GEN9_MI_SDI_DW_DATA_HI] << 32;
    return write_le(r, space, addr, data, qw ? 8u : 4u);
}

static bool load_reg(struct cs_run *r, uint32_t reg, uint32_t val)
{
    reg &= ~3u;
    if (!cs_reg_allowed(r, reg, IGPU_SCAN_REG_WRITE))
        return false;
    if (!r->ops->reg_write || r->ops->reg_write(r->ops->ctx, reg, val) != 0)
        return cs_fault(r, IGPU_CS_F_REGISTER, reg, "register write refused");
    r->res->reg_writes++;
    return true;
}

static bool exec_lri(struct cs_run *r)
{
    if ((r->len - 1u) % 2u)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 1 + 2n dwords");
    if (r->hdr & GEN9_MI_LRI_BYTE_DISABLE_MASK)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, r->hdr, "byte write disables not supported");
    for (uint32_t i = 1; i < r->len; i += 2) {
        uint32_t reg, val;
        if (!cs_fetch(r, i, &reg) || !cs_fetch(r, i + 1u, &val) || !load_reg(r, reg, val))
            return false;
    }
    return true;
}

static bool exec_lrm(struct cs_run *r)
{
    enum igpu_cs_space space = (r->hdr & GEN9_MI_LRM_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint64_t addr;
    uint32_t v;

    if (r->len != GEN9_MI_LRM_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 4 dwords");
    if (!cs_reg_allowed(r, r->dw[GEN9_MI_RM_DW_REG] & ~3u, IGPU_SCAN_REG_WRITE) ||
        !cs_addr(r, r->dw[GEN9_MI_RM_DW_ADDR_LO], r->dw[GEN9_MI_RM_DW_ADDR_HI],
                 GEN9_MI_RM_ADDR_MASK, &addr) ||
        !cs_space_ok(r, space) || !cs_mem(r, space, addr, &v, 4, false))
        return false;
    return load_reg(r, r->dw[GEN9_MI_RM_DW_REG], v);
}

static bool exec_srm(struct cs_run *r)
{
    enum igpu_cs_space space = (r->hdr & GEN9_MI_SRM_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint32_t reg = r->dw[GEN9_MI_RM_DW_REG], v;
    uint64_t addr;

    if (r->len != GEN9_MI_SRM_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 4 dwords");
    if (r->hdr & GEN9_MI_SRM_PREDICATE)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, r->hdr, "predicated store not supported");
    reg &= ~3u;
    if (!cs_reg_allowed(r, reg, IGPU_SCAN_REG_READ))
        return false;
    if (!r->ops->reg_read || r->ops->reg_read(r->ops->ctx, reg, &v) != 0)
        return cs_fault(r, IGPU_CS_F_REGISTER, reg, "register read refused");
    if (!cs_addr(r, r->dw[GEN9_MI_RM_DW_ADDR_LO], r->dw[GEN9_MI_RM_DW_ADDR_HI],
                 GEN9_MI_RM_ADDR_MASK, &addr))
        return false;
    return write_le(r, space, addr, v, 4);
}

/* MI_FLUSH_DW (video and blitter engines): the flush itself is complete at once; the post-sync
 * write follows, then the notify interrupt (i915 gen8_emit_ggtt_write(), gen8_emit_flush_xcs()). */
static bool exec_flush_dw(struct cs_run *r)
{
    uint32_t op = r->hdr & GEN9_MI_FLUSH_DW_OP_MASK, lo = r->dw[GEN9_MI_FLUSH_DW_DW_ADDR_LO];
    enum igpu_cs_space space = IGPU_CS_GGTT;
    uint64_t addr = 0, data;
    bool qw = r->len == GEN9_MI_FLUSH_DW_QW_LEN;

    if (r->cfg->engine == IGPU_RCS)
        return cs_fault(r, IGPU_CS_F_WRONG_ENGINE, r->hdr, "the render engine uses PIPE_CONTROL");
    if (r->len != GEN9_MI_FLUSH_DW_DW_LEN && !qw)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 4 or 5 dwords");
    if (op == GEN9_MI_FLUSH_DW_OP_RESERVED)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, r->hdr, "reserved post-sync operation");
    if (op != GEN9_MI_FLUSH_DW_OP_NONE) {
        if (r->hdr & GEN9_MI_FLUSH_DW_STORE_INDEX) {
            if (!pphwsp_target(r, lo & ~GEN9_MI_FLUSH_DW_USE_GTT, 8, &addr))
                return false;
        } else {
            space = (lo & GEN9_MI_FLUSH_DW_USE_GTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
            /* Where the hardware writes with bit 5 set is not defined: never guess
             * (i915 gen8_emit_ggtt_write(): "bit 5 needs to be zero"). */
            if (lo & GEN9_MI_FLUSH_DW_ADDR_MBZ)
                return cs_fault(r, IGPU_CS_F_BAD_FIELD, lo, "post-sync address bit 5 set");
            if (!cs_addr(r, lo, r->dw[GEN9_MI_FLUSH_DW_DW_ADDR_HI], GEN9_MI_FLUSH_DW_ADDR_MASK,
                         &addr))
                return false;
        }
        if (op == GEN9_MI_FLUSH_DW_OP_TIMESTAMP) {
            if (!write_le(r, space, addr, now(r), 8))
                return false;
        } else {
            data = r->dw[GEN9_MI_FLUSH_DW_DW_DATA_LO];
            if (qw)
                data |= (uint64_t)r->dw[GEN9_MI_FLUSH_DW_DW_DATA_HI] << 32;
            if (!write_le(r, space, addr, data, qw ? 8u : 4u))
                return false;
        }
    }
    if (r->hdr & GEN9_MI_FLUSH_DW_NOTIFY) {
        r->res->notifies++;
        post_event(r, GEN9_GT_PIPECTL_NOTIFY);
    }
    return true;
}

bool cs_exec_mi(struct cs_run *r)
{
    switch (gen9_mi_opcode(r->hdr)) {
    case GEN9_MI_NOOP_OP:
        if (r->hdr & GEN9_MI_NOOP_ID_WRITE)
            r->res->nopid = r->hdr & GEN9_MI_NOOP_ID_MASK;
        return true;
    case GEN9_MI_ARB_CHECK_OP:
    case GEN9_MI_ARB_ON_OFF_OP:
        /* Arbitration points: the software engine runs a submission to its end, and i915 in
         * a vGPU never preempts (no I915_ENGINE_HAS_PREEMPTION). */
        return true;
    case GEN9_MI_USER_INTERRUPT_OP:
        r->res->user_interrupts++;
        post_event(r, GEN9_GT_USER_INTERRUPT);
        return true;
    case GEN9_MI_STORE_DATA_IMM_OP:
        return exec_sdi(r);
    case GEN9_MI_LOAD_REGISTER_IMM_OP:
        return exec_lri(r);
    case GEN9_MI_LOAD_REGISTER_MEM_OP:
        return exec_lrm(r);
    case GEN9_MI_STORE_REGISTER_MEM_OP:
        return exec_srm(r);
    case GEN9_MI_FLUSH_DW_OP:
        return exec_flush_dw(r);
    case GEN9_MI_SET_PREDICATE_OP:
    case GEN9_MI_PREDICATE_OP:
        /* i915 uses predication only on Xe_HP (gen125 bb start); not on Gen9. */
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, r->hdr, "predication not supported");
    default:
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, r->hdr,
                        "not executed by the MI-only streamer");
    }
}

/* ---- GFXPIPE (render engine) -------------------------------------------------------------- */

/* PIPE_CONTROL: flushes, stalls and invalidations are complete at once; the post-sync write
 * (a qword) follows, then the notify interrupt (i915 gen8_emit_flush_rcs(),
 * gen8_emit_ggtt_write_rcs()). */
static bool exec_pipe_control(struct cs_run *r)
{
    uint32_t flags = r->dw[GEN9_PIPE_CONTROL_DW_FLAGS];
    uint32_t op = flags & GEN9_PIPE_CONTROL_POST_SYNC_MASK;
    enum igpu_cs_space space = IGPU_CS_GGTT;
    uint64_t addr = 0, data;

    if (r->len != GEN9_PIPE_CONTROL_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 6 dwords");
    if (flags & GEN9_PIPE_CONTROL_LRI_POST_SYNC)
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, flags, "post-sync register write");
    if (op == GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT)
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, flags, "depth-count post-sync (no 3D)");
    if (op != GEN9_PIPE_CONTROL_POST_SYNC_NONE) {
        if (flags & GEN9_PIPE_CONTROL_STORE_DATA_INDEX) {
            if (r->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI])
                return cs_fault(r, IGPU_CS_F_BAD_FIELD, r->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI],
                                "status-page index with a high address");
            if (!pphwsp_target(r, r->dw[GEN9_PIPE_CONTROL_DW_ADDR_LO], 8, &addr))
                return false;
        } else {
            space = (flags & GEN9_PIPE_CONTROL_GLOBAL_GTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
            if (!cs_addr(r, r->dw[GEN9_PIPE_CONTROL_DW_ADDR_LO], r->dw[GEN9_PIPE_CONTROL_DW_ADDR_HI],
                         GEN9_PIPE_CONTROL_QW_ADDR_MASK, &addr))
                return false;
        }
        data = op == GEN9_PIPE_CONTROL_WRITE_TIMESTAMP
                   ? now(r)
                   : (uint64_t)r->dw[GEN9_PIPE_CONTROL_DW_DATA_LO] |
                         (uint64_t)r->dw[GEN9_PIPE_CONTROL_DW_DATA_HI] << 32;
        if (!write_le(r, space, addr, data, GEN9_PIPE_CONTROL_POST_SYNC_BYTES))
            return false;
    }
    if (flags & GEN9_PIPE_CONTROL_NOTIFY) {
        r->res->notifies++;
        post_event(r, GEN9_GT_PIPECTL_NOTIFY);
    }
    return true;
}

/* A state command is fetched whole (the hardware reads it) but changes nothing visible. */
static bool skip_state(struct cs_run *r)
{
    uint32_t v;

    for (uint32_t i = CS_CMD_DW; i < r->len; i++)
        if (!cs_fetch(r, i, &v))
            return false;
    r->res->state_skipped++;
    return true;
}

bool cs_exec_gfxpipe(struct cs_run *r)
{
    const struct gen9_gfxpipe_cmd *c = gen9_gfxpipe_lookup(r->hdr);

    if (!c)
        return cs_fault(r, IGPU_CS_F_UNKNOWN_CMD, r->hdr, "unknown GFXPIPE command");
    if (r->len < c->len_min || r->len > c->len_max)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "wrong length for the command");
    switch ((enum gen9_gfxpipe_kind)c->kind) {
    case GEN9_GFX_PIPE_CONTROL:
        return exec_pipe_control(r);
    case GEN9_GFX_STATE:
    case GEN9_GFX_MEDIA_STATE:
        if (c->subtype == GEN9_GFXPIPE_3D && c->opcode == 0 &&
            c->subop == GEN9_3DSTATE_VF_TOPOLOGY_SUBOP)
            r->topology = r->dw[1] & GEN9_TOPOLOGY_MASK;
        return skip_state(r);
    case GEN9_GFX_DRAW:
        if (!gen9_3dprimitive_draws_nothing(r->dw, r->topology))
            return cs_fault(r, IGPU_CS_F_DRAW, r->dw[GEN9_3DPRIMITIVE_DW_VERTEX_COUNT],
                            "may draw: " IGPU_CS_LABEL);
        r->res->state_skipped++;    /* no vertex reaches a shader: nothing to do */
        return true;
    case GEN9_GFX_MEDIA_OBJECT:
    case GEN9_GFX_GPGPU_WALKER:
        return cs_fault(r, IGPU_CS_F_GPGPU, r->hdr, "runs kernels: " IGPU_CS_LABEL);
    case GEN9_GFX_WRITES_MEMORY:
    default:
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, r->hdr,
                        "writes binding tables to memory (resource streamer)");
    }
}
