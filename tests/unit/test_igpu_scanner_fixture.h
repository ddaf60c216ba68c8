/*
 * Shared fixture for the scanner unit tests: a window of fake guest graphics memory, a
 * scanner configuration allowing that window, a shadow buffer outside it, and builders that
 * emit each command with the encodings of gen9_cmd.h.
 */
#ifndef TESTS_UNIT_TEST_IGPU_SCANNER_FIXTURE_H
#define TESTS_UNIT_TEST_IGPU_SCANNER_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/scanner/scanner.h"

#define FX_GM_BASE   0x00100000ull /* the guest's graphics memory window */
#define FX_GM_SIZE   0x00040000ull /* 256 KiB */
#define FX_GM_END    (FX_GM_BASE + FX_GM_SIZE)
#define FX_SHADOW_GM 0x00800000ull /* where the GPU sees the shadow buffer */
#define FX_SHADOW_DW 8192u
#define FX_RING_DW   256u

struct fx {
    uint8_t mem[FX_GM_SIZE]; /* backing store of [FX_GM_BASE, FX_GM_END) */
    struct igpu_scan_range ranges[4];
    uint32_t shadow[FX_SHADOW_DW];
    uint32_t ring[FX_RING_DW];
    size_t n; /* dwords emitted into ring */
    struct igpu_scan_config cfg;
    struct igpu_scan_result res;
    uint64_t fail_gm; /* a read covering this address fails (0: none) */
    unsigned reads;
};

static inline int fx_read(void *ctx, uint64_t gm, void *dst, size_t len)
{
    struct fx *f = ctx;

    f->reads++;
    if (f->fail_gm && f->fail_gm >= gm && f->fail_gm < gm + len)
        return -1;
    if (gm < FX_GM_BASE || gm + len > FX_GM_END)
        return -1;
    memcpy(dst, f->mem + (gm - FX_GM_BASE), len);
    return 0;
}

static inline struct fx *fx_new(enum igpu_engine e)
{
    struct fx *f = calloc(1, sizeof(*f));

    if (!f)
        abort();
    f->ranges[0].start = FX_GM_BASE;
    f->ranges[0].size = FX_GM_SIZE;
    f->cfg.engine = e;
    f->cfg.ranges = f->ranges;
    f->cfg.n_ranges = 1;
    if (e == IGPU_RCS) {
        f->cfg.regs = igpu_scan_default_regs_rcs;
        f->cfg.n_regs = igpu_scan_default_regs_rcs_count;
    } else {
        f->cfg.regs = igpu_scan_default_regs_bcs;
        f->cfg.n_regs = igpu_scan_default_regs_bcs_count;
    }
    f->cfg.max_depth = IGPU_SCAN_HW_MAX_DEPTH;
    f->cfg.max_batches = 16;
    f->cfg.read = fx_read;
    f->cfg.read_ctx = f;
    f->cfg.shadow = f->shadow;
    f->cfg.shadow_dw = FX_SHADOW_DW;
    f->cfg.shadow_gm = FX_SHADOW_GM;
    return f;
}

/* Write dwords into guest memory at gm. */
static inline void fx_put(struct fx *f, uint64_t gm, const uint32_t *dw, size_t n)
{
    if (gm < FX_GM_BASE || gm + n * 4 > FX_GM_END)
        abort();
    memcpy(f->mem + (gm - FX_GM_BASE), dw, n * 4);
}

static inline enum igpu_scan_err fx_scan(struct fx *f)
{
    return igpu_scan_ring(&f->cfg, f->ring, f->n, &f->res);
}

/* ---- Command builders: each appends to p and returns the dwords written ---- */

static inline size_t put_addr(uint32_t *p, uint64_t a)
{
    p[0] = (uint32_t)a;
    p[1] = (uint32_t)(a >> 32);
    return 2;
}

static inline size_t emit_noop(uint32_t *p)
{
    p[0] = GEN9_MI_NOOP;
    return 1;
}

static inline size_t emit_user_interrupt(uint32_t *p)
{
    p[0] = GEN9_MI_USER_INTERRUPT;
    return 1;
}

static inline size_t emit_bb_end(uint32_t *p)
{
    p[0] = GEN9_MI_BATCH_BUFFER_END;
    return 1;
}

static inline size_t emit_bb_start(uint32_t *p, uint64_t a, uint32_t flags)
{
    p[0] = GEN9_MI_BATCH_BUFFER_START | flags;
    put_addr(p + 1, a);
    return GEN9_MI_BATCH_BUFFER_START_LEN;
}

static inline size_t emit_sdi(uint32_t *p, uint64_t a, uint32_t v)
{
    p[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    put_addr(p + 1, a);
    p[3] = v;
    return GEN9_MI_STORE_DATA_IMM_DW_LEN;
}

static inline size_t emit_sdi_qw(uint32_t *p, uint64_t a, uint64_t v)
{
    p[0] = GEN9_MI_STORE_QWORD_IMM | GEN9_MI_SDI_USE_GGTT;
    put_addr(p + 1, a);
    p[3] = (uint32_t)v;
    p[4] = (uint32_t)(v >> 32);
    return GEN9_MI_STORE_DATA_IMM_QW_LEN;
}

static inline size_t emit_lri1(uint32_t *p, uint32_t reg, uint32_t v)
{
    p[0] = GEN9_MI_LOAD_REGISTER_IMM(1);
    p[1] = reg;
    p[2] = v;
    return 3;
}

static inline size_t emit_srm(uint32_t *p, uint32_t reg, uint64_t a)
{
    p[0] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    p[1] = reg;
    put_addr(p + 2, a);
    return GEN9_MI_SRM_LEN;
}

static inline size_t emit_lrm(uint32_t *p, uint32_t reg, uint64_t a)
{
    p[0] = GEN9_MI_LOAD_REGISTER_MEM | GEN9_MI_LRM_USE_GGTT;
    p[1] = reg;
    put_addr(p + 2, a);
    return GEN9_MI_LRM_LEN;
}

static inline size_t emit_flush_dw(uint32_t *p, uint32_t op, uint64_t a, uint32_t v)
{
    p[0] = GEN9_MI_FLUSH_DW | op;
    put_addr(p + 1, a);
    p[1] |= GEN9_MI_FLUSH_DW_USE_GTT;
    p[3] = v;
    return GEN9_MI_FLUSH_DW_DW_LEN;
}

static inline size_t emit_pipe_control(uint32_t *p, uint32_t flags, uint64_t a, uint64_t v)
{
    p[0] = GEN9_PIPE_CONTROL;
    p[1] = flags;
    put_addr(p + 2, a);
    p[4] = (uint32_t)v;
    p[5] = (uint32_t)(v >> 32);
    return GEN9_PIPE_CONTROL_LEN;
}

static inline size_t emit_color_blt(uint32_t *p, uint64_t dst, uint32_t pitch, uint32_t x1,
                                    uint32_t y1, uint32_t x2, uint32_t y2, uint32_t color)
{
    p[0] = GEN9_XY_COLOR_BLT;
    p[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | (pitch & 0xFFFFu);
    p[2] = GEN9_BLT_COORD(x1, y1);
    p[3] = GEN9_BLT_COORD(x2, y2);
    put_addr(p + 4, dst);
    p[6] = color;
    return GEN9_XY_COLOR_BLT_LEN;
}

static inline size_t emit_copy_blt(uint32_t *p, uint64_t dst, uint32_t dpitch, uint32_t x1,
                                   uint32_t y1, uint32_t x2, uint32_t y2, uint64_t src,
                                   uint32_t spitch, uint32_t sx, uint32_t sy)
{
    p[0] = GEN9_XY_SRC_COPY_BLT;
    p[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) | (dpitch & 0xFFFFu);
    p[2] = GEN9_BLT_COORD(x1, y1);
    p[3] = GEN9_BLT_COORD(x2, y2);
    put_addr(p + 4, dst);
    p[6] = GEN9_BLT_COORD(sx, sy);
    p[7] = spitch & 0xFFFFu;
    put_addr(p + 8, src);
    return GEN9_XY_SRC_COPY_BLT_LEN;
}

#endif /* TESTS_UNIT_TEST_IGPU_SCANNER_FIXTURE_H */
