/*
 * Gen9 model: XY_COLOR_BLT and XY_SRC_COPY_BLT.
 *
 * Semantics (Intel PRM for Skylake Vol 2a XY_COLOR_BLT / XY_SRC_COPY_BLT, Vol 2d BR13/BR11/
 * BR22/BR23/BR26; i915 gt/intel_gpu_commands.h):
 *  - The destination rectangle is (x1, y1) inclusive to (x2, y2) exclusive; an empty or
 *    inverted rectangle writes nothing.
 *  - Colour depth from BR13: 8 bpp, 16 bpp (565 and 1555 store the same way), 32 bpp. At
 *    32 bpp the header's write-enable bits select bytes: RGB = bytes 0..2, alpha = byte 3.
 *  - Pitch is in bytes for linear surfaces and in dwords for tiled ones; a tiled surface is
 *    X-major unless BCS_SWCTRL selects Y-major for it.
 *  - The raster operation is applied bytewise as a ROP3 of pattern (P, the solid colour of
 *    XY_COLOR_BLT), source (S) and destination (D): result bit = ROP bit number
 *    (P << 2 | S << 1 | D). A ROP that needs an operand the command does not supply (S for
 *    XY_COLOR_BLT, P for XY_SRC_COPY_BLT) is reported unsupported.
 *  - Not modelled (reported): clipping (BR13 bit 30), negative pitches or coordinates.
 * Rows are processed in chunks; an overlapping copy within one surface runs bottom-up or
 * right-to-left as needed so the source is read before it is overwritten.
 *
 * A blit runs in steps of whole rows (cfg.blit_step_ns of GPU time each, at least one row), as
 * a real blit takes time: between steps the run loop checks its budget, an engine reset stops
 * the blit with the rows not yet reached untouched, and a preemption at step granularity
 * saves the blit with the context (model_context.c) to finish it when the context returns.
 */
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/model/model_internal.h"

#define CHUNK MODEL_BLIT_CHUNK

/* Read or write n bytes of row y starting at byte column xb. */
static bool surf_rw(struct igpu_model *m, struct model_engine *en, const struct model_surf *s,
                    uint32_t xb, uint32_t y, uint8_t *buf, uint32_t n, bool write)
{
    enum igpu_model_access kind = write ? IGPU_ACCESS_WRITE : IGPU_ACCESS_READ;

    if (s->tiling == IGPU_TILING_NONE)
        return model_gm_access(m, en, s->base + (uint64_t)y * s->pitch + xb, buf, n, write, kind);
    while (n) {
        uint32_t contig;
        uint64_t off = igpu_tiled_offset(s->tiling, s->pitch, xb, y, &contig);
        uint32_t k = n < contig ? n : contig;
        if (!model_gm_access(m, en, s->base + off, buf, k, write, kind))
            return false;
        xb += k;
        buf += k;
        n -= k;
    }
    return true;
}

static bool rop_uses_src(uint32_t rop)
{
    return ((rop >> 2) & 0x33u) != (rop & 0x33u);
}
static bool rop_uses_pat(uint32_t rop)
{
    return ((rop >> 4) & 0x0Fu) != (rop & 0x0Fu);
}
static bool rop_uses_dst(uint32_t rop)
{
    return ((rop >> 1) & 0x55u) != (rop & 0x55u);
}

static uint8_t rop3(uint32_t rop, uint8_t p, uint8_t s, uint8_t d)
{
    uint8_t r = 0;
    for (unsigned i = 0; i < 8; i++) {
        if (!(rop & (1u << i)))
            continue;
        r |= (uint8_t)((i & 4u ? p : (uint8_t)~p) & (i & 2u ? s : (uint8_t)~s) &
                       (i & 1u ? d : (uint8_t)~d));
    }
    return r;
}

/* d = ROP(P, S, D) under the byte mask; n bytes starting at a pixel boundary. */
static void combine(const struct model_blit *b, const uint8_t *s, uint8_t *d, uint32_t n)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t p = b->pat[j], v;
        if (b->rop == GEN9_ROP_PAT_COPY)
            v = p;
        else if (b->rop == GEN9_ROP_SRC_COPY)
            v = s[i];
        else
            v = rop3(b->rop, p, s ? s[i] : 0, d[i]);
        d[i] = (uint8_t)((v & b->mask[j]) | (d[i] & (uint8_t)~b->mask[j]));
        if (++j == b->cpp)
            j = 0;
    }
}

/* Runs rows [b->rows_done, b->rows_done + rows) of the blit; returns the pixels written before
 * the end or a fault (which stops the engine: the rows before it are written, as hardware
 * would). */
static uint64_t do_rows(struct igpu_model *m, struct model_engine *en, struct model_blit *b,
                        int32_t rows)
{
    uint8_t *sbuf = en->blit_src, *dbuf = en->blit_dst;
    bool need_dst = rop_uses_dst(b->rop) || !b->full_mask;
    bool same = b->has_src && b->src.base == b->dst.base && b->src.pitch == b->dst.pitch &&
                b->src.tiling == b->dst.tiling;
    bool up = same && b->dy > b->sy;                     /* rows bottom-up */
    bool left = same && b->dy == b->sy && b->dx > b->sx; /* chunks right-to-left */
    uint32_t row_bytes = (uint32_t)b->w * b->cpp;
    uint32_t nchunks = (row_bytes + CHUNK - 1u) / CHUNK;
    /* Plain fills and copies write their operand as it is. */
    bool fast_fill = !b->has_src && b->rop == GEN9_ROP_PAT_COPY && b->full_mask;
    bool fast_copy = b->has_src && b->rop == GEN9_ROP_SRC_COPY && b->full_mask;
    uint64_t done = 0;

    if (!b->has_src && b->rop == GEN9_ROP_PAT_COPY) {
        uint32_t fill = row_bytes < CHUNK ? row_bytes : CHUNK;
        for (uint32_t i = 0; i < fill; i += b->cpp)
            memcpy(dbuf + i, b->pat, b->cpp);
    }
    for (int32_t end = b->rows_done + rows; b->rows_done < end; b->rows_done++) {
        int32_t r = b->rows_done, row = up ? b->h - 1 - r : r;
        uint32_t dy = (uint32_t)(b->dy + row), sy = (uint32_t)(b->sy + row);
        for (uint32_t ci = 0; ci < nchunks; ci++) {
            uint32_t c = left ? nchunks - 1u - ci : ci;
            uint32_t off = c * CHUNK;
            uint32_t n = row_bytes - off < CHUNK ? row_bytes - off : CHUNK;
            uint32_t dxb = (uint32_t)b->dx * b->cpp + off, sxb = (uint32_t)b->sx * b->cpp + off;

            if (b->has_src && !surf_rw(m, en, &b->src, sxb, sy, sbuf, n, false))
                return done;
            if (need_dst && !surf_rw(m, en, &b->dst, dxb, dy, dbuf, n, false))
                return done;
            if (!fast_fill && !fast_copy)
                combine(b, b->has_src ? sbuf : NULL, dbuf, n);
            if (!surf_rw(m, en, &b->dst, dxb, dy, fast_copy ? sbuf : dbuf, n, true))
                return done;
        }
        done += (uint64_t)b->w;
    }
    return done;
}

static bool setup_surf(struct igpu_model *m, struct model_engine *en, struct model_surf *s,
                       int32_t pitch, bool tiled, bool y_major, uint32_t lo, uint32_t hi,
                       int32_t x_end, uint32_t cpp, const char *name)
{
    char d[96];
    if (pitch < 0) {
        snprintf(d, sizeof(d), "%s: negative pitch not modelled", name);
        model_fault(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, d);
        return false;
    }
    if (hi & GEN9_ADDR_HI_RESERVED) {
        snprintf(d, sizeof(d), "%s: reserved address bits 63:48 set", name);
        model_fault(m, en, IGPU_FAULT_INVALID_CMD, hi, d);
        return false;
    }
    s->base = gen9_gm_addr(lo, hi, 0xFFFFFFFFu);
    s->pitch = (uint32_t)pitch;
    s->tiling = IGPU_TILING_NONE;
    if (tiled) {
        uint32_t tw = y_major ? GEN9_TILE_Y_WIDTH : GEN9_TILE_X_WIDTH;
        s->tiling = y_major ? IGPU_TILING_Y : IGPU_TILING_X;
        s->pitch = (uint32_t)pitch * 4u; /* tiled pitch counts dwords */
        if (s->pitch == 0 || s->pitch % tw || (uint64_t)x_end * cpp > s->pitch ||
            (s->base & GEN9_GTT_PAGE_MASK)) {
            snprintf(d, sizeof(d), "%s: tiled surface pitch %u / base / width inconsistent", name,
                     s->pitch);
            model_fault(m, en, IGPU_FAULT_INVALID_CMD, s->base, d);
            return false;
        }
    }
    return true;
}

/* Decodes the blit c[0..len) into *b; false (engine faulted) if the model cannot run it.
 * *empty is set for an empty or inverted rectangle, which writes nothing. */
static bool decode(struct igpu_model *m, struct model_engine *en, const uint32_t *c, uint32_t len,
                   struct model_blit *b, bool *empty)
{
    bool color = gen9_2d_opcode(c[0]) == GEN9_XY_COLOR_BLT_OP;
    const char *name = color ? "XY_COLOR_BLT" : "XY_SRC_COPY_BLT";
    uint32_t br13 = c[GEN9_XY_COLOR_BLT_DW_BR13];
    int32_t x2, y2;
    char d[96];

    *empty = false;
    if (len != (color ? GEN9_XY_COLOR_BLT_LEN : GEN9_XY_SRC_COPY_BLT_LEN)) {
        snprintf(d, sizeof(d), "%s: length %u dwords", name, len);
        model_fault(m, en, IGPU_FAULT_INVALID_CMD, 0, d);
        return false;
    }
    if (br13 & GEN9_BR13_CLIP_ENABLE) {
        snprintf(d, sizeof(d), "%s: clipping not modelled", name);
        model_fault(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, d);
        return false;
    }
    memset(b, 0, sizeof(*b));
    b->rop = gen9_br13_rop(br13);
    b->cpp = gen9_br13_bpp(br13);
    b->has_src = !color;
    if ((color && rop_uses_src(b->rop)) || (!color && rop_uses_pat(b->rop))) {
        snprintf(d, sizeof(d), "%s: ROP 0x%02x needs an operand the command lacks", name, b->rop);
        model_fault(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, d);
        return false;
    }
    b->full_mask = true;
    for (unsigned i = 0; i < 4; i++) {
        bool on = true;
        if (b->cpp == 4)
            on = (c[0] & (i == 3 ? GEN9_BLT_WRITE_ALPHA : GEN9_BLT_WRITE_RGB)) != 0;
        b->mask[i] = on ? 0xFFu : 0;
        if (i < b->cpp && !on)
            b->full_mask = false;
    }
    if (color)
        for (unsigned i = 0; i < 4; i++)
            b->pat[i] = (uint8_t)(c[GEN9_XY_COLOR_BLT_DW_COLOR] >> (8 * i));

    b->dx = gen9_blt_x(c[GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT]);
    b->dy = gen9_blt_y(c[GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT]);
    x2 = gen9_blt_x(c[GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT]);
    y2 = gen9_blt_y(c[GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT]);
    if (!color) {
        b->sx = gen9_blt_x(c[GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT]);
        b->sy = gen9_blt_y(c[GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT]);
    }
    if (b->dx < 0 || b->dy < 0 || b->sx < 0 || b->sy < 0) {
        snprintf(d, sizeof(d), "%s: negative coordinates not modelled", name);
        model_fault(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, d);
        return false;
    }
    if (x2 <= b->dx || y2 <= b->dy) {
        *empty = true;
        return true;
    }
    b->w = x2 - b->dx;
    b->h = y2 - b->dy;

    if (!setup_surf(m, en, &b->dst, gen9_br13_pitch(br13), (c[0] & GEN9_BLT_DST_TILED) != 0,
                    (m->bcs_swctrl & GEN9_BCS_SWCTRL_DST_Y) != 0, c[GEN9_XY_COLOR_BLT_DW_DST_LO],
                    c[GEN9_XY_COLOR_BLT_DW_DST_HI], x2, b->cpp, name))
        return false;
    if (!color &&
        !setup_surf(m, en, &b->src,
                    (int16_t)(c[GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH] & GEN9_BR11_PITCH_MASK),
                    (c[0] & GEN9_BLT_SRC_TILED) != 0, (m->bcs_swctrl & GEN9_BCS_SWCTRL_SRC_Y) != 0,
                    c[GEN9_XY_SRC_COPY_BLT_DW_SRC_LO], c[GEN9_XY_SRC_COPY_BLT_DW_SRC_HI],
                    b->sx + b->w, b->cpp, name))
        return false;
    memcpy(b->cmd, c, len * 4u);
    b->len = len;
    b->cmd_gaddr = en->cs.cmd_gaddr;
    return true;
}

uint64_t model_blit_step(struct igpu_model *m, struct model_engine *en)
{
    struct model_blit *b = &en->blit;
    uint64_t row_ps = (uint64_t)b->w * m->cfg.cost.pixel_ps;
    uint64_t step_ps = (uint64_t)m->cfg.blit_step_ns * 1000u;
    int32_t left = b->h - b->rows_done, rows = left;

    if (step_ps && row_ps && step_ps / row_ps < (uint64_t)left)
        rows = (step_ps / row_ps) ? (int32_t)(step_ps / row_ps) : 1;
    uint64_t px = do_rows(m, en, b, rows);
    en->stats.pixels += px;
    if (b->rows_done >= b->h || en->state == IGPU_MODEL_FAULTED)
        b->active = false;
    return px * m->cfg.cost.pixel_ps;
}

uint64_t model_exec_blit(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                         uint32_t len)
{
    uint64_t setup = (uint64_t)m->cfg.cost.blit_ns * 1000u;
    bool empty;

    if (!decode(m, en, c, len, &en->blit, &empty))
        return 0;
    en->stats.blits++;
    if (empty)
        return setup;
    en->blit.active = true;
    return setup + model_blit_step(m, en);
}

bool model_blit_resume(struct igpu_model *m, struct model_engine *en, const uint32_t *cmd,
                       uint32_t len, uint64_t cmd_gaddr, uint32_t rows_done)
{
    bool empty;

    en->cs.cmd_gaddr = cmd_gaddr;
    if (len > MODEL_BLIT_MAX_DW || !decode(m, en, cmd, len, &en->blit, &empty) || empty ||
        rows_done >= (uint32_t)en->blit.h) {
        model_fault(m, en, IGPU_FAULT_BAD_CONTEXT, cmd_gaddr,
                    "context image: the blit it was preempted in does not resume");
        return false;
    }
    en->blit.rows_done = (int32_t)rows_done;
    en->blit.active = true;
    return true;
}
