/*
 * Gen9 model: context restore and save with the complete register-state layout
 * (gen9_context.h, i915 gt/intel_lrc.c gen9_xcs_offsets / gen9_rcs_offsets).
 *
 * What the model promises (docs/igpu-model.md "Contexts"):
 *  - A restore executes the register-state page: every LRI header and register offset must be
 *    the layout's (else the engine faults with IGPU_FAULT_BAD_CONTEXT), CONTEXT_CONTROL is
 *    applied first (a masked register), and then every register of the ring context (blocks 0
 *    and 1: ring registers, batch state, CTX_TIMESTAMP, PDPs) is loaded, and, unless
 *    CONTEXT_CONTROL inhibits the engine-context restore, every register of the engine context
 *    too (blocks 2 and 3: BCS_SWCTRL, MI_MODE, the GPRs, ...).  With restore inhibited the
 *    engine keeps the values it has, as i915 relies on when it records an engine's default
 *    image (lrc_init_state() without engine->default_state).
 *  - A save (unless CONTEXT_CONTROL inhibits it) writes the whole page back: headers, offsets
 *    and the current value of all 68 registers, closed with MI_BATCH_BUFFER_END.  A restore of
 *    a saved image therefore reproduces every register exactly.
 *  - Registers with behaviour in the model are the ring registers, CONTEXT_CONTROL,
 *    CTX_TIMESTAMP, the GPRs, BCS_SWCTRL and MI_MODE's STOP_RING; the others are kept as the
 *    engine's state and saved as loaded.  RING_TIMESTAMP is the engine's free-running clock: it
 *    is saved (its current value) but a restore does not set it.
 *  - Masked registers (CONTEXT_CONTROL, MI_MODE, BCS_SWCTRL) are saved with every mask bit set
 *    so that their restore reproduces them; the save clears RESTORE_INHIBIT in the saved
 *    CONTEXT_CONTROL, since a context that has run has a complete image (i915 writes
 *    CONTEXT_CONTROL only when it builds an image and restores every later submission fully).
 */
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/model/model_internal.h"

#define MASK_ALL 0xFFFF0000u

static bool is_gpr(const struct model_engine *en, uint32_t reg)
{
    return reg >= GEN9_RING_CS_GPR(en->base, 0) && reg < GEN9_RING_CS_GPR(en->base, GEN9_CS_GPR_COUNT);
}

/* Loads the value of layout register i (absolute offset reg) into the engine. */
static void load_reg(struct igpu_model *m, struct model_engine *en, unsigned i, uint32_t reg,
                     uint32_t v)
{
    uint32_t b = en->base;

    if (reg == GEN9_RING_HEAD(b)) {
        en->head = v & GEN9_HEAD_ADDR;
        en->head_wraps = (v & GEN9_HEAD_WRAP_COUNT) >> 21;
    } else if (reg == GEN9_RING_TAIL(b)) {
        en->tail = v & GEN9_TAIL_ADDR;
    } else if (reg == GEN9_RING_START(b)) {
        en->ring_start = v & ~GEN9_GTT_PAGE_MASK;
    } else if (reg == GEN9_RING_CTL(b)) {
        en->ring_ctl = v;
        en->ring_size = ((v & GEN9_RING_NR_PAGES) >> 12) * GEN9_GTT_PAGE_SIZE + GEN9_GTT_PAGE_SIZE;
    } else if (reg == GEN9_RING_CONTEXT_CONTROL(b)) {
        /* applied before the other registers, see restore() */
    } else if (reg == GEN9_RING_CTX_TIMESTAMP(b)) {
        en->ctx_ts_ticks = v;
    } else if (is_gpr(en, reg)) {
        en->gpr[(reg - GEN9_RING_CS_GPR(b, 0)) / 4u] = v;
    } else if (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL) {
        m->bcs_swctrl = gen9_masked_apply(m->bcs_swctrl, v) &
                        (GEN9_BCS_SWCTRL_SRC_Y | GEN9_BCS_SWCTRL_DST_Y);
    } else if (reg == GEN9_RING_MI_MODE(b)) {
        en->mi_mode = gen9_masked_apply(en->mi_mode, v) & ~GEN9_MI_MODE_IDLE;
    } else if (reg == GEN9_RING_TIMESTAMP(b)) {
        /* the free-running clock is not context state in the model */
    } else {
        en->lrc_store[i] = v;
    }
}

/* The value layout register i (absolute offset reg) is saved with. */
static uint32_t save_reg(const struct igpu_model *m, const struct model_engine *en, unsigned i,
                         uint32_t reg, uint64_t ctx_ts)
{
    uint32_t b = en->base;

    if (reg == GEN9_RING_HEAD(b))
        return en->head | (en->head_wraps << 21);
    if (reg == GEN9_RING_TAIL(b))
        return en->tail;
    if (reg == GEN9_RING_START(b))
        return en->ring_start;
    if (reg == GEN9_RING_CTL(b))
        return en->ring_ctl;
    if (reg == GEN9_RING_CONTEXT_CONTROL(b))
        return MASK_ALL | (en->ctx_ctrl & ~GEN9_CTX_CTRL_RESTORE_INHIBIT);
    if (reg == GEN9_RING_CTX_TIMESTAMP(b))
        return (uint32_t)ctx_ts;
    if (is_gpr(en, reg))
        return en->gpr[(reg - GEN9_RING_CS_GPR(b, 0)) / 4u];
    if (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL)
        return MASK_ALL | m->bcs_swctrl;
    if (reg == GEN9_RING_MI_MODE(b))
        return MASK_ALL | (en->mi_mode & ~GEN9_MI_MODE_IDLE);
    if (reg == GEN9_RING_TIMESTAMP(b))
        return (uint32_t)model_timestamp_ticks(m, en);
    return en->lrc_store[i];
}

/* Checks the headers and offsets of the blocks a restore executes. */
static bool layout_ok(struct igpu_model *m, struct model_engine *en, const uint32_t *s,
                      bool engine_ctx, uint64_t st)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(en->id);
    char d[96];

    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        uint32_t want = GEN9_MI_LOAD_REGISTER_IMM(blk->count);
        if (blk->engine_ctx && !engine_ctx)
            continue;
        if ((s[blk->header] & ~GEN9_MI_LRI_FORCE_POSTED) != want) {
            snprintf(d, sizeof(d), "context image dword 0x%x is 0x%08x, expected LRI(%u)",
                     blk->header, s[blk->header], blk->count);
            model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, st + blk->header * 4u, d);
            return false;
        }
        for (unsigned i = blk->first; i < (unsigned)blk->first + blk->count; i++) {
            uint32_t at = gen9_lrc_value_dw(l, i) - 1u;
            if (s[at] != en->base + l->reg[i]) {
                snprintf(d, sizeof(d), "context image dword 0x%x names register 0x%x, expected 0x%x",
                         at, s[at], en->base + l->reg[i]);
                model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, st + at * 4u, d);
                return false;
            }
        }
    }
    return true;
}

/* Reads the register-state page of the running element into en->lrc_buf. */
static bool read_state(struct igpu_model *m, struct model_engine *en, uint64_t st)
{
    uint8_t *raw = (uint8_t *)en->lrc_buf;
    if (!model_gm_access(m, en, st, raw, GEN9_LRC_STATE_DW * 4u, false, IGPU_ACCESS_CONTEXT))
        return false;
    for (uint32_t i = 0; i < GEN9_LRC_STATE_DW; i++) {
        const uint8_t *p = raw + 4u * i;
        en->lrc_buf[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24;
    }
    return true;
}

bool model_ctx_restore(struct igpu_model *m, struct model_engine *en)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(en->id);
    uint64_t st = (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET;
    const uint32_t *s = en->lrc_buf;
    bool engine_ctx;

    en->cmd_gaddr = st;
    en->cmd[0] = 0;
    if (!read_state(m, en, st))
        return false;
    /* CONTEXT_CONTROL decides what else the restore loads. */
    if (s[GEN9_CTX_CONTEXT_CONTROL - 1u] != GEN9_RING_CONTEXT_CONTROL(en->base))
        return layout_ok(m, en, s, false, st);      /* faults, naming the dword */
    en->ctx_ctrl = gen9_masked_apply(en->ctx_ctrl, s[GEN9_CTX_CONTEXT_CONTROL]);
    engine_ctx = !(en->ctx_ctrl & GEN9_CTX_CTRL_RESTORE_INHIBIT);
    if (!layout_ok(m, en, s, engine_ctx, st))
        return false;
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        if (blk->engine_ctx && !engine_ctx)
            continue;
        for (unsigned i = blk->first; i < (unsigned)blk->first + blk->count; i++)
            load_reg(m, en, i, en->base + l->reg[i], s[gen9_lrc_value_dw(l, i)]);
    }
    return true;
}

bool model_ctx_restore_tail(struct igpu_model *m, struct model_engine *en)
{
    uint64_t at = (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET + (GEN9_CTX_RING_TAIL - 1u) * 4u;
    uint32_t reg, tail;
    char d[96];

    if (!model_gm_read32(m, en, at, &reg, IGPU_ACCESS_CONTEXT) ||
        !model_gm_read32(m, en, at + 4u, &tail, IGPU_ACCESS_CONTEXT))
        return false;
    if (reg != GEN9_RING_TAIL(en->base)) {
        snprintf(d, sizeof(d), "context image dword 0x%x names register 0x%x, expected 0x%x",
                 GEN9_CTX_RING_TAIL - 1u, reg, GEN9_RING_TAIL(en->base));
        model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, at, d);
        return false;
    }
    en->tail = tail & GEN9_TAIL_ADDR;
    return true;
}

bool model_ctx_save(struct igpu_model *m, struct model_engine *en)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(en->id);
    uint64_t st = (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET;
    uint64_t ts = en->ctx_ts_ticks + (model_timestamp_ticks(m, en) - en->ctx_start_ticks);
    uint32_t *s = en->lrc_buf;
    uint8_t *raw = (uint8_t *)en->lrc_buf;

    if (en->ctx_ctrl & GEN9_CTX_CTRL_SAVE_INHIBIT)
        return true;
    memset(s, 0, sizeof(en->lrc_buf));         /* MI_NOOP between the blocks */
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        s[blk->header] = GEN9_MI_LOAD_REGISTER_IMM(blk->count) |
                         (blk->posted ? GEN9_MI_LRI_FORCE_POSTED : 0u);
        for (unsigned i = blk->first; i < (unsigned)blk->first + blk->count; i++) {
            uint32_t at = gen9_lrc_value_dw(l, i);
            s[at - 1u] = en->base + l->reg[i];
            s[at] = save_reg(m, en, i, en->base + l->reg[i], ts);
        }
    }
    s[GEN9_LRC_STATE_DW] = GEN9_MI_BATCH_BUFFER_END;
    for (uint32_t i = 0; i <= GEN9_LRC_STATE_DW; i++) {
        uint32_t v = s[i];
        raw[4u * i] = (uint8_t)v;
        raw[4u * i + 1u] = (uint8_t)(v >> 8);
        raw[4u * i + 2u] = (uint8_t)(v >> 16);
        raw[4u * i + 3u] = (uint8_t)(v >> 24);
    }
    return model_gm_access(m, en, st, raw, (GEN9_LRC_STATE_DW + 1u) * 4u, true,
                           IGPU_ACCESS_CONTEXT);
}
