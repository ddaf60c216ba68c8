/*
 * The MI commands of the software command streamer (PRM Skylake Vol 2a, each command's page;
 * i915 gt/intel_gpu_commands.h and gt/gen8_engine_cs.c for how i915 uses them).
 *
 * Flushes, invalidations and arbitration points are complete at once (the engines have no
 * caches or pipeline to drain), a refused access stops the engine at the command (a hang the
 * guest's hang detection resets), interrupts are raised after the write they signal, and what
 * a non-privileged batch may not do is dropped (cs_priv.c).
 */
#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"

static bool exec_sdi(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    bool qw = (cs->hdr & GEN9_MI_SDI_STORE_QWORD) != 0;
    enum igpu_cs_space space = (cs->hdr & GEN9_MI_SDI_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint64_t addr = 0, data;

    if (cs->len != (qw ? GEN9_MI_STORE_DATA_IMM_QW_LEN : GEN9_MI_STORE_DATA_IMM_DW_LEN))
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length does not match the store size");
    if (!cs_addr(r, cs->dw[GEN9_MI_SDI_DW_ADDR_LO], cs->dw[GEN9_MI_SDI_DW_ADDR_HI],
                 qw ? GEN9_MI_SDI_QW_ADDR_MASK : GEN9_MI_SDI_ADDR_MASK, &addr))
        return false;
    if (!cs_priv_mem_ok(r, space, false)) {
        cs_priv_drop(r);
        return true;
    }
    data = cs->dw[GEN9_MI_SDI_DW_DATA_LO];
    if (qw)
        data |= (uint64_t)cs->dw[GEN9_MI_SDI_DW_DATA_HI] << 32;
    return cs_write(r, space, addr, data, qw ? 8u : 4u);
}

/* One register load; `keep` are the bits the byte write disables keep (LRI dword 0 bits 11:8,
 * one per byte). */
static bool load_reg(struct cs_run *r, uint32_t reg, uint32_t val, uint32_t keep)
{
    const struct igpu_cs_ops *ops = r->ops;
    uint32_t old;

    if (!cs_reg_allowed(r, reg, IGPU_SCAN_REG_WRITE))
        return false;
    if (keep) {
        if (!ops->reg_read || ops->reg_read(ops->ctx, reg, &old) != 0)
            return cs_fault(r, IGPU_CS_F_REGISTER, reg, "register read refused");
        val = (old & keep) | (val & ~keep);
    }
    if (!ops->reg_write || ops->reg_write(ops->ctx, reg, val) != 0)
        return cs_fault(r, IGPU_CS_F_REGISTER, reg, "register write refused");
    r->res->reg_writes++;
    return true;
}

/* MI_LOAD_REGISTER_IMM: n (offset, value) pairs.  From a non-privileged batch one register
 * outside the user-mode list makes the whole command a no-op, so they are all checked first;
 * each is checked again as it is loaded, because the batch is guest memory that its CPUs may
 * rewrite meanwhile (a pair changed to a privileged register drops the rest of the command).
 * Its registers are its units: out of time, it stops between two (cs_pause()). */
static bool exec_lri(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    uint32_t keep = 0, pair[2], first = 1u + 2u * cs->part.units;
    bool priv = cs_privileged(r);

    if ((cs->len - 1u) % 2u)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 1 + 2n dwords");
    for (unsigned i = 0; i < 4u; i++)
        if (cs->hdr & (1u << (8u + i)))
            keep |= 0xFFu << (8u * i);
    if (!priv && first == 1u)
        for (uint32_t i = 1; i < cs->len; i += 2) {
            if (!cs_fetch(r, i, 1, &pair[0]) || !cs_reg_ok(r, pair[0]))
                return false;
            if (!cs_nonpriv_reg(r, pair[0] & ~3u)) {
                cs_priv_drop(r);
                return true;
            }
        }
    for (uint32_t i = first; i < cs->len; i += 2) {
        if (i > first && cs_out_of_time(r)) {
            cs_pause(r, (i - 1u) / 2u);
            return true;
        }
        if (!cs_fetch(r, i, 2, pair))
            return false;
        if (!priv && !cs_nonpriv_reg(r, pair[0] & ~3u)) {
            cs_priv_drop(r);
            return true;
        }
        if (!load_reg(r, pair[0] & ~3u, pair[1], keep))
            return false;
    }
    return true;
}

static bool exec_lrm(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    enum igpu_cs_space space = (cs->hdr & GEN9_MI_LRM_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint32_t reg = cs->dw[GEN9_MI_RM_DW_REG] & ~3u;
    uint8_t b[4];
    uint64_t addr = 0;

    if (cs->len != GEN9_MI_LRM_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 4 dwords");
    if (!cs_reg_ok(r, reg) || !cs_addr(r, cs->dw[GEN9_MI_RM_DW_ADDR_LO],
                                       cs->dw[GEN9_MI_RM_DW_ADDR_HI], GEN9_MI_RM_ADDR_MASK, &addr))
        return false;
    if (!cs_priv_mem_ok(r, space, false) || (!cs_privileged(r) && !cs_nonpriv_reg(r, reg))) {
        cs_priv_drop(r);
        return true;
    }
    if (!cs_reg_allowed(r, reg, IGPU_SCAN_REG_WRITE) || !cs_space_ok(r, space) ||
        !cs_mem(r, space, addr, b, 4, IGPU_CS_READ))
        return false;
    return load_reg(r, reg,
                    (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                        (uint32_t)b[3] << 24,
                    0);
}

static bool exec_srm(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    enum igpu_cs_space space = (cs->hdr & GEN9_MI_SRM_USE_GGTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
    uint32_t reg = cs->dw[GEN9_MI_RM_DW_REG] & ~3u, v;
    uint64_t addr = 0;

    if (cs->len != GEN9_MI_SRM_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 4 dwords");
    if (cs->hdr & GEN9_MI_SRM_PREDICATE)
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_FIELD, cs->hdr, "predicated store not supported");
    if (!cs_reg_ok(r, reg) || !cs_addr(r, cs->dw[GEN9_MI_RM_DW_ADDR_LO],
                                       cs->dw[GEN9_MI_RM_DW_ADDR_HI], GEN9_MI_RM_ADDR_MASK, &addr))
        return false;
    if (!cs_priv_mem_ok(r, space, false)) {
        cs_priv_drop(r);
        return true;
    }
    if (!cs_reg_allowed(r, reg, IGPU_SCAN_REG_READ))
        return false;
    if (!r->ops->reg_read || r->ops->reg_read(r->ops->ctx, reg, &v) != 0)
        return cs_fault(r, IGPU_CS_F_REGISTER, reg, "register read refused");
    return cs_write(r, space, addr, v, 4);
}

/* MI_FLUSH_DW (every engine but the render one): the flush itself is complete at once; the
 * post-sync write follows, then the notify interrupt (i915 gen8_emit_ggtt_write(),
 * gen8_emit_flush_xcs()). */
static bool exec_flush_dw(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    uint32_t op = cs->hdr & GEN9_MI_FLUSH_DW_OP_MASK, lo = cs->dw[GEN9_MI_FLUSH_DW_DW_ADDR_LO];
    bool qw = cs->len == GEN9_MI_FLUSH_DW_QW_LEN, index = cs->hdr & GEN9_MI_FLUSH_DW_STORE_INDEX;
    enum igpu_cs_space space = IGPU_CS_GGTT;
    uint64_t addr = 0, data;

    if (cs->engine == IGPU_RCS)
        return cs_fault(r, IGPU_CS_F_WRONG_ENGINE, cs->hdr, "the render engine uses PIPE_CONTROL");
    if (cs->len != GEN9_MI_FLUSH_DW_DW_LEN && !qw)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 4 or 5 dwords");
    if (op == GEN9_MI_FLUSH_DW_OP_RESERVED)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, cs->hdr, "reserved post-sync operation");
    if (cs->hdr & GEN9_MI_FLUSH_DW_INVALIDATE_TLB)
        cs_tlb_invalidate(r);
    if (op != GEN9_MI_FLUSH_DW_OP_NONE) {
        if (index) {
            if (!cs_pphwsp_target(r, lo & ~GEN9_MI_FLUSH_DW_USE_GTT, &addr))
                return false;
        } else {
            space = (lo & GEN9_MI_FLUSH_DW_USE_GTT) ? IGPU_CS_GGTT : IGPU_CS_PPGTT;
            /* Where the hardware writes with bit 5 set is not defined: never guess
             * (i915 gen8_emit_ggtt_write(): "bit 5 needs to be zero"). */
            if (lo & GEN9_MI_FLUSH_DW_ADDR_MBZ)
                return cs_fault(r, IGPU_CS_F_BAD_FIELD, lo, "post-sync address bit 5 set");
            if (!cs_addr(r, lo, cs->dw[GEN9_MI_FLUSH_DW_DW_ADDR_HI], GEN9_MI_FLUSH_DW_ADDR_MASK,
                         &addr))
                return false;
        }
        if (!cs_priv_mem_ok(r, space, index)) {
            cs_priv_drop(r);
        } else if (op == GEN9_MI_FLUSH_DW_OP_TIMESTAMP) {
            if (!cs_write(r, space, addr, cs_now(r), 8))
                return false;
        } else {
            data = cs->dw[GEN9_MI_FLUSH_DW_DW_DATA_LO];
            if (qw)
                data |= (uint64_t)cs->dw[GEN9_MI_FLUSH_DW_DW_DATA_HI] << 32;
            if (!cs_write(r, space, addr, data, qw ? 8u : 4u))
                return false;
        }
    }
    if (cs->hdr & GEN9_MI_FLUSH_DW_NOTIFY) {
        r->res->notifies++;
        cs_event(r, GEN9_GT_PIPECTL_NOTIFY);
    }
    return true;
}

bool cs_exec_mi(struct cs_run *r)
{
    struct igpu_cs *cs = r->cs;

    switch (gen9_mi_opcode(cs->hdr)) {
    case GEN9_MI_NOOP_OP:
        if (cs->hdr & GEN9_MI_NOOP_ID_WRITE)
            cs->nopid = cs->hdr & GEN9_MI_NOOP_ID_MASK;
        return true;
    case GEN9_MI_ARB_CHECK_OP:
        /* An arbitration point: the caller may leave the context here for a newer
         * submission (the model's preemption; i915 in a vGPU never preempts). */
        cs->arb_check = true;
        return true;
    case GEN9_MI_ARB_ON_OFF_OP:
        /* i915 disables arbitration around every user batch and enables it again in the
         * request's fini breadcrumb (gen8_emit_bb_start_noarb(), gen8_emit_fini_breadcrumb_tail()). */
        cs->arb_off = !(cs->hdr & GEN9_MI_ARB_ENABLE);
        return true;
    case GEN9_MI_USER_INTERRUPT_OP:
        r->res->user_interrupts++;
        cs_event(r, GEN9_GT_USER_INTERRUPT);
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
        return cs_unsupported(r, "predication not supported");
    default:
        return cs_unsupported(r, NULL);
    }
}
