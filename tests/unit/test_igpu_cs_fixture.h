/*
 * Fixture for the MI-only command streamer's tests: two flat graphics address spaces (GGTT and
 * PPGTT) with pages that can be unmapped or made read-only, a register file that records what
 * commands load, a settable timestamp and an event log.  Builders emit the command sequences
 * i915 6.1 emits (gt/gen8_engine_cs.c), encoded with Tessera's own gen9_cmd.h names.
 */
#ifndef TEST_IGPU_CS_FIXTURE_H
#define TEST_IGPU_CS_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drivers/igpu/cs/cs.h"
#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"
#include "drivers/igpu/gen9_regs.h"
#include "tests/unit/i915_null_state.h"

#define FX_SPACE_BYTES (256u * 1024u) /* each address space: 64 pages */
#define FX_PAGES       (FX_SPACE_BYTES / 4096u)
#define FX_RING        0x10000u       /* GGTT: the ring (4 KiB) */
#define FX_HWSP        0x20000u       /* GGTT: the engine's status page */
#define FX_LRCA        0x21000u       /* GGTT: the context (PPHWSP first) */
#define FX_BATCH       0x30000u       /* GGTT: batches */
#define FX_PP_BASE     0x100000000ull /* PPGTT: where its pages start */
#define FX_MAX_EVENTS  64u
#define FX_MAX_REGS    64u

struct fx_cs {
    uint8_t mem[2][FX_SPACE_BYTES];
    bool unmapped[2][FX_PAGES];
    bool readonly[2][FX_PAGES];
    struct {
        uint32_t reg, val;
    } regs[FX_MAX_REGS];
    unsigned n_regs;
    uint32_t events[FX_MAX_EVENTS];
    unsigned n_events;
    uint64_t ts;
    uint32_t ring_dw; /* builder position in the ring (dwords) */
    struct igpu_cs_config cfg;
    struct igpu_cs_ops ops;
    struct igpu_cs_ring ring;
    struct igpu_cs_result res;
};

static inline bool fx_locate(enum igpu_cs_space s, uint64_t ga, uint32_t len, uint64_t *off)
{
    uint64_t base = s == IGPU_CS_PPGTT ? FX_PP_BASE : 0;
    if (ga < base || ga - base + len > FX_SPACE_BYTES)
        return false;
    *off = ga - base;
    return true;
}

static int fx_mem(void *ctx, enum igpu_cs_space s, uint64_t ga, void *buf, uint32_t len,
                  enum igpu_cs_access how)
{
    struct fx_cs *f = ctx;
    bool write = how == IGPU_CS_WRITE;
    uint64_t off;
    /* The engine promises never to cross a page in one call. */
    assert_true((ga & 4095u) + len <= 4096u);
    if (!fx_locate(s, ga, len, &off) || f->unmapped[s][off / 4096u])
        return -1;
    if (write && f->readonly[s][off / 4096u])
        return -1;
    if (write)
        memcpy(&f->mem[s][off], buf, len);
    else
        memcpy(buf, &f->mem[s][off], len);
    return 0;
}

static int fx_reg_write(void *ctx, uint32_t reg, uint32_t val)
{
    struct fx_cs *f = ctx;
    for (unsigned i = 0; i < f->n_regs; i++)
        if (f->regs[i].reg == reg) {
            f->regs[i].val = val;
            return 0;
        }
    if (f->n_regs == FX_MAX_REGS)
        return -1;
    f->regs[f->n_regs].reg = reg;
    f->regs[f->n_regs++].val = val;
    return 0;
}

static int fx_reg_read(void *ctx, uint32_t reg, uint32_t *val)
{
    struct fx_cs *f = ctx;
    if (reg == GEN9_RING_TIMESTAMP(igpu_engine_base(f->cfg.engine))) {
        *val = (uint32_t)f->ts;
        return 0;
    }
    for (unsigned i = 0; i < f->n_regs; i++)
        if (f->regs[i].reg == reg) {
            *val = f->regs[i].val;
            return 0;
        }
    *val = 0;
    return 0;
}

static uint64_t fx_ts(void *ctx)
{
    return ((struct fx_cs *)ctx)->ts;
}

static void fx_event(void *ctx, uint32_t bits)
{
    struct fx_cs *f = ctx;
    if (f->n_events < FX_MAX_EVENTS)
        f->events[f->n_events++] = bits;
}

static inline uint32_t fx_reg(const struct fx_cs *f, uint32_t reg)
{
    for (unsigned i = 0; i < f->n_regs; i++)
        if (f->regs[i].reg == reg)
            return f->regs[i].val;
    return 0xDEADBEEFu;
}

static inline struct fx_cs *fx_new(enum igpu_engine e)
{
    struct fx_cs *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->cfg.engine = e;
    f->cfg.pphwsp_gaddr = FX_LRCA;
    f->cfg.ppgtt = true;
    switch (e) {
    case IGPU_RCS:
        f->cfg.regs = igpu_cs_i915_regs_rcs;
        f->cfg.n_regs = igpu_cs_i915_regs_rcs_count;
        break;
    case IGPU_VCS:
        f->cfg.regs = igpu_cs_i915_regs_vcs;
        f->cfg.n_regs = igpu_cs_i915_regs_vcs_count;
        break;
    default:
        f->cfg.regs = igpu_cs_i915_regs_vecs;
        f->cfg.n_regs = igpu_cs_i915_regs_vecs_count;
        break;
    }
    f->ops = (struct igpu_cs_ops){ .ctx = f,
                                   .mem = fx_mem,
                                   .reg_write = fx_reg_write,
                                   .reg_read = fx_reg_read,
                                   .timestamp = fx_ts,
                                   .event = fx_event };
    f->ring = (struct igpu_cs_ring){ .start = FX_RING, .size = 4096, .head = 0, .tail = 0 };
    f->ts = 0x123456789ull;
    return f;
}

static inline uint32_t fx_rd32(const struct fx_cs *f, enum igpu_cs_space s, uint64_t ga)
{
    uint64_t off;
    uint32_t v;
    assert_true(fx_locate(s, ga, 4, &off));
    memcpy(&v, &f->mem[s][off], 4);
    return v;
}

static inline uint64_t fx_rd64(const struct fx_cs *f, enum igpu_cs_space s, uint64_t ga)
{
    return fx_rd32(f, s, ga) | (uint64_t)fx_rd32(f, s, ga + 4) << 32;
}

static inline void fx_wr32(struct fx_cs *f, enum igpu_cs_space s, uint64_t ga, uint32_t v)
{
    uint64_t off;
    assert_true(fx_locate(s, ga, 4, &off));
    memcpy(&f->mem[s][off], &v, 4);
}

/* Append to the ring at the builder position (wrapping) and move the tail there. */
static inline void fx_emit(struct fx_cs *f, const uint32_t *dw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fx_wr32(f, IGPU_CS_GGTT, FX_RING + (f->ring_dw * 4u) % f->ring.size, dw[i]);
        f->ring_dw++;
    }
    f->ring.tail = (f->ring_dw * 4u) % f->ring.size;
}
#define FX_EMIT(f, ...) \
    do { \
        const uint32_t d_[] = { __VA_ARGS__ }; \
        fx_emit((f), d_, sizeof d_ / sizeof d_[0]); \
    } while (0)

/* Write dwords at a graphics address of one space. */
static inline uint64_t fx_put(struct fx_cs *f, enum igpu_cs_space s, uint64_t ga,
                              const uint32_t *dw, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fx_wr32(f, s, ga + 4u * i, dw[i]);
    return ga + 4u * n;
}

static inline enum igpu_cs_fault fx_run(struct fx_cs *f)
{
    return igpu_cs_run(&f->cfg, &f->ops, &f->ring, &f->res);
}

/* ---- i915 6.1 sequences (gt/gen8_engine_cs.c), with Tessera's encodings ---- */

/* gen8_emit_init_breadcrumb(): seqno - 1 to the timeline's HWSP slot, MI_NOOP, MI_ARB_CHECK. */
static inline void fx_init_breadcrumb(struct fx_cs *f, uint32_t hwsp, uint32_t seqno)
{
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, hwsp, 0, seqno - 1u, GEN9_MI_NOOP,
            GEN9_MI_ARB_CHECK);
}

/* gen8_emit_fini_breadcrumb_tail() + gen8_emit_wa_tail(). */
static inline void fx_fini_tail(struct fx_cs *f)
{
    FX_EMIT(f, GEN9_MI_USER_INTERRUPT, GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE, GEN9_MI_ARB_CHECK,
            GEN9_MI_NOOP);
}

/* gen8_emit_fini_breadcrumb_xcs(): MI_FLUSH_DW post-sync dword through the GGTT. */
static inline void fx_fini_xcs(struct fx_cs *f, uint32_t hwsp, uint32_t seqno)
{
    FX_EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW, hwsp | GEN9_MI_FLUSH_DW_USE_GTT, 0,
            seqno);
    fx_fini_tail(f);
}

/* gen8_emit_fini_breadcrumb_rcs(): a flush PIPE_CONTROL, then the qword write to the HWSP. */
static inline void fx_fini_rcs(struct fx_cs *f, uint32_t hwsp, uint32_t seqno)
{
    FX_EMIT(f, GEN9_PIPE_CONTROL,
            GEN9_PIPE_CONTROL_RENDER_TARGET_CACHE_FLUSH | GEN9_PIPE_CONTROL_DEPTH_CACHE_FLUSH |
                GEN9_PIPE_CONTROL_DC_FLUSH,
            0, 0, 0, 0, GEN9_PIPE_CONTROL,
            GEN9_PIPE_CONTROL_FLUSH_ENABLE | GEN9_PIPE_CONTROL_CS_STALL |
                GEN9_PIPE_CONTROL_GLOBAL_GTT | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE,
            hwsp, 0, seqno, 0);
    fx_fini_tail(f);
}

/* gen8_emit_flush_xcs(mode): MI_FLUSH_DW store-index to the PPHWSP scratch slot. */
#define FX_PPHWSP_SCRATCH 0xD0u /* i915 LRC_PPHWSP_SCRATCH_ADDR */
static inline void fx_flush_xcs(struct fx_cs *f, bool invalidate)
{
    FX_EMIT(f,
            GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_OP_STOREDW |
                (invalidate ? GEN9_MI_FLUSH_DW_INVALIDATE_TLB : 0),
            FX_PPHWSP_SCRATCH, 0, 0);
}

/* gen8_emit_flush_rcs(): on Gen9 a null PIPE_CONTROL first (vf_flush_wa), then the flush with a
 * store-index qword write to the PPHWSP scratch slot. */
static inline void fx_flush_rcs(struct fx_cs *f, bool flush, bool invalidate)
{
    uint32_t flags = GEN9_PIPE_CONTROL_CS_STALL;
    if (flush)
        flags |= GEN9_PIPE_CONTROL_RENDER_TARGET_CACHE_FLUSH | GEN9_PIPE_CONTROL_DEPTH_CACHE_FLUSH |
                 GEN9_PIPE_CONTROL_DC_FLUSH | GEN9_PIPE_CONTROL_FLUSH_ENABLE;
    if (invalidate) {
        flags |= GEN9_PIPE_CONTROL_TLB_INVALIDATE | GEN9_PIPE_CONTROL_INSTRUCTION_CACHE_INVALIDATE |
                 GEN9_PIPE_CONTROL_TEXTURE_CACHE_INVALIDATE |
                 GEN9_PIPE_CONTROL_VF_CACHE_INVALIDATE | GEN9_PIPE_CONTROL_CONST_CACHE_INVALIDATE |
                 GEN9_PIPE_CONTROL_STATE_CACHE_INVALIDATE | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE |
                 GEN9_PIPE_CONTROL_STORE_DATA_INDEX;
        FX_EMIT(f, GEN9_PIPE_CONTROL, 0, 0, 0, 0, 0);
    }
    FX_EMIT(f, GEN9_PIPE_CONTROL, flags, FX_PPHWSP_SCRATCH, 0, 0, 0);
}

static inline unsigned fx_put_null_state(struct fx_cs *f, enum igpu_cs_space s, uint64_t ga)
{
    uint32_t dw[I915_NULL_STATE_MAX_DW];
    unsigned skipped;
    size_t n = i915_null_state(dw, &skipped);
    for (size_t i = 0; i < n; i++)
        fx_wr32(f, s, ga + 4u * i, dw[i]);
    return skipped;
}

#endif /* TEST_IGPU_CS_FIXTURE_H */
