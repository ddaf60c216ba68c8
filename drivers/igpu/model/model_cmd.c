/*
 * Gen9 model: its engines' command streamers.  Fetching commands from the ring and batches
 * and executing MI commands and PIPE_CONTROL is drivers/igpu/cs/ (the very code the i915
 * vGPU's MI-only engines run, the GPU's privilege rule included); the model gives it what an
 * engine has:
 *  - graphics memory: the GGTT through the translation cache and cfg.gm_check, or the running
 *    context's PPGTT (a legacy 64-bit context whose PDP0 names its PML4);
 *  - the registers a command may load (the GPRs, BCS_SWCTRL) or store (any register of its
 *    own engine the model reads): model_cmd_reg_write(), model_cmd_reg_read();
 *  - its clock (post-sync timestamps), interrupts, and the translation cache that the
 *    TLB-invalidating flushes empty;
 *  - the blits (model_blit.c), on the blitter engine;
 * and charges the GPU time of what the command did (struct igpu_model_cost).
 */
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/model/model_internal.h"

#define PS_PER_NS 1000u

struct model_cs {
    struct igpu_model *m;
    struct model_engine *en;
    uint64_t blit_ps; /* cost of a blit this step started */
};

static int cs_mem(void *ctx, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
                  enum igpu_cs_access how)
{
    static const enum igpu_model_access kind[] = {
        [IGPU_CS_FETCH_RING] = IGPU_ACCESS_RING,
        [IGPU_CS_FETCH_BATCH] = IGPU_ACCESS_BATCH,
        [IGPU_CS_READ] = IGPU_ACCESS_READ,
        [IGPU_CS_WRITE] = IGPU_ACCESS_WRITE,
    };
    struct model_cs *c = ctx;
    return model_gm_access_in(c->m, c->en, space == IGPU_CS_PPGTT, gaddr, buf, len,
                              how == IGPU_CS_WRITE, kind[how])
             ? 0
             : -1;
}

static int cs_reg_write(void *ctx, uint32_t reg, uint32_t val)
{
    struct model_cs *c = ctx;
    return model_cmd_reg_write(c->m, c->en, reg, val) == IGPU_OK ? 0 : -1;
}

static int cs_reg_read(void *ctx, uint32_t reg, uint32_t *val)
{
    struct model_cs *c = ctx;
    return model_cmd_reg_read(c->m, c->en, reg, val) == IGPU_OK ? 0 : -1;
}

static uint64_t cs_timestamp(void *ctx)
{
    struct model_cs *c = ctx;
    return model_timestamp_ticks(c->m, c->en);
}

static void cs_event(void *ctx, uint32_t gt_bits)
{
    struct model_cs *c = ctx;
    model_raise(c->m, c->en, gt_bits);
}

static void cs_tlb_invalidate(void *ctx)
{
    model_tlb_flush(((struct model_cs *)ctx)->m);
}

/* The blitter's XY_COLOR_BLT and XY_SRC_COPY_BLT: set up and first step here, the rest in
 * model_blit_step() while en->blit.active. */
static enum igpu_cs_fault cs_blit(void *ctx, const uint32_t *dw, uint32_t len)
{
    struct model_cs *c = ctx;
    uint32_t op = gen9_2d_opcode(dw[0]);
    char d[96];

    if (op != GEN9_XY_COLOR_BLT_OP && op != GEN9_XY_SRC_COPY_BLT_OP) {
        snprintf(d, sizeof(d), "command 0x%08x (type 2) not implemented", dw[0]);
        model_fault(c->m, c->en, IGPU_FAULT_UNSUPPORTED_CMD, 0, d);
        return IGPU_CS_F_BLIT;
    }
    c->blit_ps += model_exec_blit(c->m, c->en, dw, len);
    return c->en->state == IGPU_MODEL_FAULTED ? IGPU_CS_F_BLIT : IGPU_CS_OK;
}

/* The model's reason for each command-streamer fault.  A memory access the model refused has
 * already recorded its own (GGTT_NOT_PRESENT, ACCESS_DENIED, ...): the first fault sticks. */
static const enum igpu_fault_reason reason[IGPU_CS_F_COUNT] = {
    [IGPU_CS_OK] = IGPU_FAULT_NONE,
    [IGPU_CS_F_CONFIG] = IGPU_FAULT_BAD_CONTEXT,
    [IGPU_CS_F_UNKNOWN_CMD] = IGPU_FAULT_INVALID_CMD,
    [IGPU_CS_F_UNSUPPORTED_CMD] = IGPU_FAULT_UNSUPPORTED_CMD,
    [IGPU_CS_F_UNSUPPORTED_FIELD] = IGPU_FAULT_UNSUPPORTED_FIELD,
    [IGPU_CS_F_DRAW] = IGPU_FAULT_UNSUPPORTED_CMD,
    [IGPU_CS_F_GPGPU] = IGPU_FAULT_UNSUPPORTED_CMD,
    [IGPU_CS_F_MEDIA] = IGPU_FAULT_WRONG_ENGINE,
    [IGPU_CS_F_WRONG_ENGINE] = IGPU_FAULT_WRONG_ENGINE,
    [IGPU_CS_F_BAD_LENGTH] = IGPU_FAULT_INVALID_CMD,
    [IGPU_CS_F_BAD_FIELD] = IGPU_FAULT_INVALID_CMD,
    [IGPU_CS_F_REGISTER] = IGPU_FAULT_REGISTER,
    [IGPU_CS_F_MEMORY] = IGPU_FAULT_MEMORY,
    [IGPU_CS_F_PPGTT] = IGPU_FAULT_UNSUPPORTED_FIELD,
    [IGPU_CS_F_BATCH_DEPTH] = IGPU_FAULT_BATCH_DEPTH,
    [IGPU_CS_F_BB_END_IN_RING] = IGPU_FAULT_INVALID_CMD,
    [IGPU_CS_F_RING_OVERRUN] = IGPU_FAULT_RING_OVERRUN,
    [IGPU_CS_F_BUDGET] = IGPU_FAULT_UNSUPPORTED_CMD,
    [IGPU_CS_F_BLIT] = IGPU_FAULT_UNSUPPORTED_CMD,
};

void model_cs_init(struct model_engine *en)
{
    /* No allow-list: the registers the model lets commands touch are model_cmd_reg_*()'s. */
    igpu_cs_init(&en->cs, en->id, NULL, 0, false, "model");
}

uint64_t model_exec_one(struct igpu_model *m, struct model_engine *en)
{
    struct model_cs c = { m, en, 0 };
    const struct igpu_cs_ops ops = {
        .ctx = &c,
        .mem = cs_mem,
        .reg_write = cs_reg_write,
        .reg_read = cs_reg_read,
        .timestamp = cs_timestamp,
        .event = cs_event,
        .tlb_invalidate = cs_tlb_invalidate,
        .blit = en->id == IGPU_BCS ? cs_blit : NULL,
    };
    const struct igpu_model_cost *k = &m->cfg.cost;
    struct igpu_cs_result r;
    enum igpu_cs_fault f;

    memset(&r, 0, sizeof(r));
    f = igpu_cs_step(&en->cs, &ops, 1, &r);
    en->stats.commands += r.commands;
    en->stats.mem_writes += r.mem_writes;
    en->stats.batches += r.batches;
    en->stats.user_interrupts += r.user_interrupts;
    en->stats.priv_dropped += r.priv_dropped;
    if (f != IGPU_CS_OK)
        model_fault(m, en, (unsigned)f < IGPU_CS_F_COUNT ? reason[f] : IGPU_FAULT_INVALID_CMD,
                    r.detail, r.what);
    return ((uint64_t)r.commands * k->cmd_ns + (uint64_t)r.mem_writes * k->write_ns +
            (uint64_t)r.batches * k->batch_ns) *
               PS_PER_NS +
           c.blit_ps;
}
