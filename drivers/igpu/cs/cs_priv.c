/*
 * The privilege rule of Gen9 command streamers, one definition for every engine Tessera
 * executes in software (the model's and the i915 guest's MI-only engines).
 *
 * Which batches are non-privileged (PRM Skylake Vol 2a MI_BATCH_BUFFER_START, "Address Space
 * Indicator"): "Batch buffers accessed via PPGTT are considered as non-privileged.  Certain
 * operations (e.g., MI_STORE_DATA_IMM commands to GGTT memory) are prohibited within
 * non-privileged buffers"; and for a start from inside a batch, "Chained or Second level batch
 * buffer can only be in PPGTT if the parent batch buffer is in PPGTT.  This is enforced by
 * Hardware": what a non-privileged batch starts is non-privileged, through the PPGTT, whatever
 * its bit 8 says.  The ring and batches started through the GGTT are privileged.  i915 runs
 * every user batch through the PPGTT (gen8_emit_bb_start(): bit 8 unless I915_DISPATCH_SECURE).
 *
 * What a non-privileged batch may not do, per command (PRM Vol 2a, each command's page):
 *  - MI_STORE_DATA_IMM, MI_STORE_REGISTER_MEM, MI_LOAD_REGISTER_MEM through the GGTT ("Use
 *    Global GTT"): "should not be used within a non-privilege batch buffer to access global
 *    virtual space, doing so will be treated as privilege access violation";
 *  - MI_LOAD_REGISTER_IMM (and _MEM: "not allowed to update the privilege register range when
 *    executed from a non-privilege batch buffer"): "MMIO writes are only allowed to the
 *    registers listed in User Mode Non-Privileged Registers for the corresponding engine, any
 *    writes targeting the register not listed ... will convert this command to a NOOP".  That
 *    list is the engine's fixed one plus what its RING_FORCE_TO_NONPRIV slots name (i915
 *    gt/intel_workarounds.c whitelists the render engine's user-writable chicken bits there);
 *  - PIPE_CONTROL and MI_FLUSH_DW post-syncs through the GGTT or to a status-page index (the
 *    status page is GGTT memory): the post-sync is the privileged part (i915
 *    i915_cmd_parser.c refuses exactly GLOBAL_GTT / STORE_DATA_INDEX with a post-sync op, and
 *    MI_FLUSH_DW USE_GTT / STORE_INDEX with one, in user batches); the flush, invalidation and
 *    notify are not.
 *
 * What the GPU does with a violation: it does not stop.  The command streamer replaces the
 * command with a no-op, sets CP_PRIV (bit 2) in RING_EIR and goes on parsing (i915
 * gt/intel_execlists_submission.c enable_error_interrupt(): "CP_PRIV ... Generate an error on
 * privilege violation (where the CP replaces the instruction with a no-op) ... This is a
 * non-fatal error, parsing continues", and i915 leaves CP_PRIV masked: "the HW is validating
 * and suppressing the mistakes").  So here too the command (or the post-sync) is dropped and
 * counted in igpu_cs_result.priv_dropped, and the batch goes on.
 */
#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_regs.h"

bool cs_privileged(const struct cs_run *r)
{
    return igpu_cs_privileged(r->cs);
}

/* The engine's fixed User Mode Non-Privileged registers, the part Tessera's engines have: its
 * sixteen 64-bit GPRs (user-space MI_MATH and indirect draws load them), and on the blitter
 * BCS_SWCTRL (user space selects Y tiling for its blits with it; i915 i915_cmd_parser.c
 * gen9_blt_regs lists both as what a Gen9 blitter batch may write). */
static bool fixed_nonpriv(enum igpu_engine e, uint32_t reg)
{
    uint32_t base = igpu_engine_base(e);

    if (reg >= GEN9_RING_CS_GPR(base, 0) && reg < GEN9_RING_CS_GPR(base, GEN9_CS_GPR_COUNT))
        return true;
    return e == IGPU_BCS && reg == GEN9_BCS_SWCTRL;
}

bool cs_nonpriv_reg(struct cs_run *r, uint32_t reg)
{
    uint32_t base = igpu_engine_base(r->cs->engine), slot;

    if (fixed_nonpriv(r->cs->engine, reg))
        return true;
    if (!r->ops->reg_read)
        return false;
    for (uint32_t i = 0; i < GEN9_RING_NONPRIV_SLOTS; i++)
        if (r->ops->reg_read(r->ops->ctx, GEN9_RING_FORCE_TO_NONPRIV(base, i), &slot) == 0 &&
            (slot & GEN9_RING_FORCE_TO_NONPRIV_ADDR_MASK) == reg)
            return true;
    return false;
}

bool cs_priv_mem_ok(const struct cs_run *r, enum igpu_cs_space space, bool index)
{
    return cs_privileged(r) || (space == IGPU_CS_PPGTT && !index);
}

enum igpu_cs_space cs_priv_batch_space(const struct cs_run *r, enum igpu_cs_space asked)
{
    return cs_privileged(r) ? asked : IGPU_CS_PPGTT;
}

void cs_priv_drop(struct cs_run *r)
{
    r->res->priv_dropped++;
}
