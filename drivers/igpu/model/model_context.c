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

/* What the model does with each register of the layout, worked out once per engine. */
enum lrc_kind {
    K_STORE = 0, /* kept and saved as loaded */
    K_CTX_CTRL,
    K_HEAD,
    K_TAIL,
    K_START,
    K_CTL,
    K_CTX_TS,
    K_GPR,
    K_SWCTRL,
    K_MI_MODE,
    K_TIMESTAMP,
};

void model_lrc_kinds(struct model_engine *en)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(en->id);
    uint32_t b = en->base;
    for (unsigned i = 0; i < GEN9_LRC_REGS; i++) {
        uint32_t reg = b + l->reg[i];
        uint8_t k = K_STORE;
        if (reg == GEN9_RING_CONTEXT_CONTROL(b))
            k = K_CTX_CTRL;
        else if (reg == GEN9_RING_HEAD(b))
            k = K_HEAD;
        else if (reg == GEN9_RING_TAIL(b))
            k = K_TAIL;
        else if (reg == GEN9_RING_START(b))
            k = K_START;
        else if (reg == GEN9_RING_CTL(b))
            k = K_CTL;
        else if (reg == GEN9_RING_CTX_TIMESTAMP(b))
            k = K_CTX_TS;
        else if (reg >= GEN9_RING_CS_GPR(b, 0) && reg < GEN9_RING_CS_GPR(b, GEN9_CS_GPR_COUNT)) {
            k = K_GPR;
            en->lrc_gpr[i] = (uint8_t)((reg - GEN9_RING_CS_GPR(b, 0)) / 4u);
        } else if (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL)
            k = K_SWCTRL;
        else if (reg == GEN9_RING_MI_MODE(b))
            k = K_MI_MODE;
        else if (reg == GEN9_RING_TIMESTAMP(b))
            k = K_TIMESTAMP;
        en->lrc_kind[i] = k;
    }
}

/* Loads the value of layout register i into the engine. */
static void load_reg(struct igpu_model *m, struct model_engine *en, unsigned i, uint32_t v)
{
    switch (en->lrc_kind[i]) {
    case K_HEAD:
        en->cs.ring.head = v & GEN9_HEAD_ADDR;
        en->cs.ring_wraps = (v & GEN9_HEAD_WRAP_COUNT) >> 21;
        break;
    case K_TAIL:
        en->cs.ring.tail = v & GEN9_TAIL_ADDR;
        break;
    case K_START:
        en->cs.ring.start = v & ~GEN9_GTT_PAGE_MASK;
        break;
    case K_CTL:
        en->ring_ctl = v;
        en->cs.ring.size = ((v & GEN9_RING_NR_PAGES) >> 12) * GEN9_GTT_PAGE_SIZE +
                           GEN9_GTT_PAGE_SIZE;
        break;
    case K_CTX_CTRL:
        break; /* applied before the other registers, see restore() */
    case K_CTX_TS:
        en->ctx_ts_ticks = v;
        break;
    case K_GPR:
        en->gpr[en->lrc_gpr[i]] = v;
        break;
    case K_SWCTRL:
        m->bcs_swctrl = gen9_masked_apply(m->bcs_swctrl, v) &
                        (GEN9_BCS_SWCTRL_SRC_Y | GEN9_BCS_SWCTRL_DST_Y);
        break;
    case K_MI_MODE:
        en->mi_mode = gen9_masked_apply(en->mi_mode, v) & ~GEN9_MI_MODE_IDLE;
        break;
    case K_TIMESTAMP:
        break; /* the free-running clock is not context state in the model */
    default:
        en->lrc_store[i] = v;
        break;
    }
}

/* The value layout register i is saved with. */
static uint32_t save_reg(const struct igpu_model *m, const struct model_engine *en, unsigned i,
                         uint64_t ctx_ts)
{
    switch (en->lrc_kind[i]) {
    case K_HEAD:
        return en->cs.ring.head | (en->cs.ring_wraps << 21);
    case K_TAIL:
        return en->cs.ring.tail;
    case K_START:
        return (uint32_t)en->cs.ring.start;
    case K_CTL:
        return en->ring_ctl;
    case K_CTX_CTRL:
        return MASK_ALL | (en->ctx_ctrl & ~GEN9_CTX_CTRL_RESTORE_INHIBIT);
    case K_CTX_TS:
        return (uint32_t)ctx_ts;
    case K_GPR:
        return en->gpr[en->lrc_gpr[i]];
    case K_SWCTRL:
        return MASK_ALL | m->bcs_swctrl;
    case K_MI_MODE:
        return MASK_ALL | (en->mi_mode & ~GEN9_MI_MODE_IDLE);
    case K_TIMESTAMP:
        return (uint32_t)model_timestamp_ticks(m, en);
    default:
        return en->lrc_store[i];
    }
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
        for (unsigned j = 0; j < blk->count; j++) {
            unsigned i = blk->first + j;
            uint32_t at = blk->header + 1u + 2u * j;
            if (s[at] != en->base + l->reg[i]) {
                snprintf(d, sizeof(d),
                         "context image dword 0x%x names register 0x%x, expected 0x%x", at, s[at],
                         en->base + l->reg[i]);
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
    const uint32_t n = sizeof(en->lrc_buf) / 4u;
    if (!model_gm_access(m, en, st, raw, n * 4u, false, IGPU_ACCESS_CONTEXT))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = raw + 4u * i;
        en->lrc_buf[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24;
    }
    return true;
}

/* Writes the resume record (model_internal.h) of what the engine is in the middle of. */
static bool save_resume(struct igpu_model *m, struct model_engine *en, uint64_t st)
{
    uint32_t r[MODEL_RESUME_DWORDS] = { 0 };
    uint8_t raw[MODEL_RESUME_DWORDS * 4u];
    const struct model_blit *b = &en->blit;
    const struct igpu_cs *cs = &en->cs;

    if (cs->level > 0 || b->active) {
        r[MODEL_RESUME_MAGIC_AT] = MODEL_RESUME_MAGIC;
        /* Only the levels it is in: a deeper level's space is an earlier batch's. */
        r[MODEL_RESUME_LEVEL] = cs->level |
                                (cs->level >= 1 && cs->bb[1].space == IGPU_CS_PPGTT
                                     ? MODEL_RESUME_PPGTT1
                                     : 0u) |
                                (cs->level >= 2 && cs->bb[2].space == IGPU_CS_PPGTT
                                     ? MODEL_RESUME_PPGTT2
                                     : 0u);
        r[MODEL_RESUME_BB1_LO] = (uint32_t)cs->bb[1].pos;
        r[MODEL_RESUME_BB1_HI] = (uint32_t)(cs->bb[1].pos >> 32);
        r[MODEL_RESUME_BB2_LO] = (uint32_t)cs->bb[2].pos;
        r[MODEL_RESUME_BB2_HI] = (uint32_t)(cs->bb[2].pos >> 32);
        if (b->active) {
            r[MODEL_RESUME_BLIT_ROWS] = (uint32_t)b->rows_done;
            r[MODEL_RESUME_BLIT_LEN] = b->len;
            r[MODEL_RESUME_BLIT_GADDR_LO] = (uint32_t)b->cmd_gaddr;
            r[MODEL_RESUME_BLIT_GADDR_HI] = (uint32_t)(b->cmd_gaddr >> 32);
            memcpy(&r[MODEL_RESUME_BLIT_CMD], b->cmd, b->len * 4u);
        }
    }
    for (unsigned i = 0; i < MODEL_RESUME_DWORDS; i++)
        for (unsigned j = 0; j < 4u; j++)
            raw[4u * i + j] = (uint8_t)(r[i] >> (8u * j));
    return model_gm_access(m, en, st + MODEL_RESUME_DW * 4u, raw, sizeof(raw), true,
                           IGPU_ACCESS_CONTEXT);
}

/* Takes up what a preempted context was in the middle of, from its resume record (en->lrc_buf
 * holds the page). */
static bool restore_resume(struct igpu_model *m, struct model_engine *en, uint64_t st)
{
    const uint32_t *r = &en->lrc_buf[MODEL_RESUME_DW];
    char d[96];

    if (r[MODEL_RESUME_MAGIC_AT] != MODEL_RESUME_MAGIC)
        return true;
    uint32_t lv = r[MODEL_RESUME_LEVEL] & ~(MODEL_RESUME_PPGTT1 | MODEL_RESUME_PPGTT2);
    if (lv > IGPU_CS_MAX_LEVEL ||
        ((r[MODEL_RESUME_LEVEL] & (MODEL_RESUME_PPGTT1 | MODEL_RESUME_PPGTT2)) && !en->pml4)) {
        snprintf(d, sizeof(d), "context image: resume record names batch level 0x%x",
                 r[MODEL_RESUME_LEVEL]);
        model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, st + MODEL_RESUME_DW * 4u, d);
        return false;
    }
    en->cs.level = lv;
    en->cs.bb[1].space = (r[MODEL_RESUME_LEVEL] & MODEL_RESUME_PPGTT1) ? IGPU_CS_PPGTT
                                                                       : IGPU_CS_GGTT;
    en->cs.bb[2].space = (r[MODEL_RESUME_LEVEL] & MODEL_RESUME_PPGTT2) ? IGPU_CS_PPGTT
                                                                       : IGPU_CS_GGTT;
    en->cs.bb[1].pos = (uint64_t)r[MODEL_RESUME_BB1_HI] << 32 | r[MODEL_RESUME_BB1_LO];
    en->cs.bb[2].pos = (uint64_t)r[MODEL_RESUME_BB2_HI] << 32 | r[MODEL_RESUME_BB2_LO];
    if (r[MODEL_RESUME_BLIT_LEN])
        return model_blit_resume(m, en, &r[MODEL_RESUME_BLIT_CMD], r[MODEL_RESUME_BLIT_LEN],
                                 (uint64_t)r[MODEL_RESUME_BLIT_GADDR_HI] << 32 |
                                     r[MODEL_RESUME_BLIT_GADDR_LO],
                                 r[MODEL_RESUME_BLIT_ROWS]);
    return true;
}

bool model_ctx_restore(struct igpu_model *m, struct model_engine *en)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(en->id);
    uint64_t st = (uint64_t)en->lrca + GEN9_LRC_STATE_OFFSET;
    const uint32_t *s = en->lrc_buf;
    bool engine_ctx;

    en->cs.cmd_gaddr = st;
    en->cs.hdr = 0;
    if (!read_state(m, en, st))
        return false;
    /* CONTEXT_CONTROL decides what else the restore loads. */
    if (s[GEN9_CTX_CONTEXT_CONTROL - 1u] != GEN9_RING_CONTEXT_CONTROL(en->base))
        return layout_ok(m, en, s, false, st); /* faults, naming the dword */
    en->ctx_ctrl = gen9_masked_apply(en->ctx_ctrl, s[GEN9_CTX_CONTEXT_CONTROL]);
    engine_ctx = !(en->ctx_ctrl & GEN9_CTX_CTRL_RESTORE_INHIBIT);
    if (!layout_ok(m, en, s, engine_ctx, st))
        return false;
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        if (blk->engine_ctx && !engine_ctx)
            continue;
        for (unsigned j = 0; j < blk->count; j++)
            load_reg(m, en, blk->first + j, s[blk->header + 2u + 2u * j]);
    }
    /* A legacy 64-bit context's PPGTT: its PDP0 holds the PML4 (i915 ASSIGN_CTX_PML4); the
     * PDPs are ring context, loaded even when the engine context's restore is inhibited. */
    en->pml4 = 0;
    if (((en->desc & GEN9_CTX_ADDRESSING_MODE_MASK) >> GEN9_CTX_ADDRESSING_MODE_SHIFT) ==
        GEN9_CTX_ADDR_LEGACY_64B)
        en->pml4 = ((uint64_t)s[GEN9_CTX_PDP0_UDW] << 32 | s[GEN9_CTX_PDP0_LDW]) &
                   GEN9_PPGTT_ADDR_MASK;
    /* The context's status page is the first page of its image. */
    en->cs.ppgtt = en->pml4 != 0;
    en->cs.pphwsp_gaddr = en->lrca;
    return restore_resume(m, en, st);
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
    en->cs.ring.tail = tail & GEN9_TAIL_ADDR;
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
    memset(s, 0, sizeof(en->lrc_buf)); /* MI_NOOP between the blocks */
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        s[blk->header] = GEN9_MI_LOAD_REGISTER_IMM(blk->count) |
                         (blk->posted ? GEN9_MI_LRI_FORCE_POSTED : 0u);
        for (unsigned j = 0; j < blk->count; j++) {
            uint32_t at = blk->header + 2u + 2u * j;
            s[at - 1u] = en->base + l->reg[blk->first + j];
            s[at] = save_reg(m, en, blk->first + j, ts);
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
                           IGPU_ACCESS_CONTEXT) &&
           save_resume(m, en, st);
}
