/*
 * libFuzzer target for the command scanner.
 *
 * Each input describes a workload: the engine, limits, 1-3 random allowed ranges inside a
 * 128 KiB graphics-memory window, and either raw dwords (ring and guest memory straight from
 * the input) or a structured program that emits well-formed commands with addresses inside,
 * at the edge of, or outside the ranges, plus batch buffers placed in guest memory, then
 * flips some bits.  Either way the scanner must not crash, and every workload it ACCEPTS is
 * executed twice with a trap on every access outside the allowed ranges:
 *  1. by an independent re-decoder (below), written from the PRM without the scanner's
 *     tables or extent arithmetic, which walks the patched ring and the shadow copies the
 *     way the command streamer would (calls, chains, returns) and checks every byte a
 *     command reads or writes, every register, that batches are fetched only from the
 *     shadow, and that it executes exactly the commands the scanner counted;
 *  2. on the iGPU model (drivers/igpu/model), whose gm_check hook traps any data access
 *     outside the ranges and any command fetch outside the ring and the shadow.
 * A violation aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/model/igpu_model.h"
#include "drivers/igpu/scanner/scanner.h"

#define GM_SIZE     0x20000u /* guest window [0, GM_SIZE) */
#define SHADOW_GM   0x40000u /* hypervisor area, outside any allowed range */
#define SHADOW_DW   8192u
#define RING_GM     0x50000u /* where the model's ring lives */
#define RING_BYTES  0x8000u
#define LRCA        0x60000u /* the model's context image (two pages) */
#define MAX_RING_DW 1024u

/* ---- input cursor ---- */
struct in {
    const uint8_t *p;
    size_t n;
};

static uint32_t in_u8(struct in *s)
{
    if (!s->n)
        return 0;
    s->n--;
    return *s->p++;
}

static uint32_t in_u16(struct in *s)
{
    return in_u8(s) | in_u8(s) << 8;
}

static uint32_t in_u32(struct in *s)
{
    return in_u16(s) | in_u16(s) << 16;
}

static void fail(const char *what, uint64_t a, uint64_t b)
{
    fprintf(stderr, "scanner property violated: %s (0x%llx, 0x%llx)\n", what, (unsigned long long)a,
            (unsigned long long)b);
    abort();
}

/* ---- the workload ---- */
struct work {
    enum igpu_engine engine;
    struct igpu_scan_range ranges[3];
    size_t n_ranges;
    struct igpu_scan_reg regs[4];
    const struct igpu_scan_reg *reg_list;
    size_t n_regs;
    uint8_t gm[GM_SIZE]; /* guest graphics memory */
    uint32_t ring[MAX_RING_DW];
    size_t ring_dw;
    uint32_t shadow[SHADOW_DW];
    struct igpu_scan_config cfg;
    struct igpu_scan_result res;
};

static int gm_read(void *ctx, uint64_t gm, void *dst, size_t len)
{
    struct work *w = ctx;
    if (gm >= GM_SIZE || len > GM_SIZE - gm)
        return -1;
    memcpy(dst, w->gm + gm, len);
    return 0;
}

static void gm_put(struct work *w, uint64_t gm, const uint32_t *dw, size_t n)
{
    if (gm % 4 || gm >= GM_SIZE || n * 4 > GM_SIZE - gm)
        return; /* outside the window: the batch stays unreadable */
    memcpy(w->gm + gm, dw, n * 4);
}

/* ---- structured generator ---- */

/* An address inside a range, at its edges, or anywhere; align is a power of two. */
static uint64_t pick_addr(struct in *s, const struct work *w, uint32_t align)
{
    const struct igpu_scan_range *r = &w->ranges[in_u8(s) % w->n_ranges];
    uint64_t a;

    switch (in_u8(s) % 8) {
    case 0:
        a = in_u32(s);
        break;
    case 1:
        a = r->start + r->size - (in_u8(s) % 16);
        break; /* at the end */
    case 2:
        a = r->start - (in_u8(s) % 16);
        break; /* just below */
    case 3:
        a = in_u32(s) % GM_SIZE;
        break;
    default:
        a = r->start + in_u32(s) % r->size;
        break;
    }
    return a & ~(uint64_t)(align - 1);
}

static uint32_t pick_reg(struct in *s, const struct work *w)
{
    if (in_u8(s) % 4 == 0 || !w->n_regs)
        return (in_u32(s) & GEN9_MI_REG_OFFSET_MASK);
    const struct igpu_scan_reg *r = &w->reg_list[in_u8(s) % w->n_regs];
    return r->offset + (in_u8(s) % (r->size / 4)) * 4;
}

static size_t put_addr(uint32_t *p, uint64_t a)
{
    p[0] = (uint32_t)a;
    p[1] = (uint32_t)(a >> 32);
    return 2;
}

/* One command into p (room for at least 16 dwords); returns its length. */
static size_t gen_cmd(struct in *s, struct work *w, uint32_t *p, unsigned level);

static uint64_t gen_batch(struct in *s, struct work *w, unsigned level)
{
    uint32_t b[256];
    size_t n = 0, count = in_u8(s) % 12;
    uint64_t at = pick_addr(s, w, 4);

    while (count-- && n < 256 - 16)
        n += gen_cmd(s, w, b + n, level);
    if (in_u8(s) % 8)
        b[n++] = GEN9_MI_BATCH_BUFFER_END;
    gm_put(w, at, b, n);
    return at;
}

/* A blit surface: address, pitch (bytes; dwords of whole tiles when tiled), origin. */
static void gen_blit_surface(struct in *s, struct work *w, uint32_t *addr_dw, uint32_t *pitch_dw,
                             uint32_t *xy_dw, bool tiled)
{
    uint32_t pitch = tiled ? (1 + in_u8(s) % 4) * 128 : 4 * (1 + in_u8(s) % 256);
    put_addr(addr_dw, pick_addr(s, w, tiled ? 4096 : 4));
    *pitch_dw = pitch;
    if (xy_dw)
        *xy_dw = GEN9_BLT_COORD(in_u8(s) % 32, in_u8(s) % 32);
}

static size_t gen_cmd(struct in *s, struct work *w, uint32_t *p, unsigned level)
{
    uint32_t k = in_u8(s) % 13, i, n;
    uint64_t a;

    switch (k) {
    case 0:
        p[0] = GEN9_MI_NOOP;
        return 1;
    case 1:
        p[0] = GEN9_MI_USER_INTERRUPT;
        return 1;
    case 2:
        p[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
        put_addr(p + 1, pick_addr(s, w, 4));
        p[3] = in_u32(s);
        return 4;
    case 3:
        p[0] = GEN9_MI_STORE_QWORD_IMM | GEN9_MI_SDI_USE_GGTT;
        put_addr(p + 1, pick_addr(s, w, 8));
        p[3] = in_u32(s);
        p[4] = in_u32(s);
        return 5;
    case 4:
        n = 1 + in_u8(s) % 4;
        p[0] = GEN9_MI_LOAD_REGISTER_IMM(n);
        for (i = 0; i < n; i++) {
            p[1 + 2 * i] = pick_reg(s, w);
            p[2 + 2 * i] = in_u32(s);
        }
        return 1 + 2 * n;
    case 5:
    case 6:
        p[0] = k == 5 ? GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT
                      : GEN9_MI_LOAD_REGISTER_MEM | GEN9_MI_LRM_USE_GGTT;
        p[1] = pick_reg(s, w);
        put_addr(p + 2, pick_addr(s, w, 4));
        return 4;
    case 7:
        n = in_u8(s);
        p[0] = GEN9_MI_FLUSH_DW | ((n & 3) << GEN9_MI_FLUSH_DW_OP_SHIFT) |
               (n & 4 ? GEN9_MI_FLUSH_DW_NOTIFY : 0) | (n & 8 ? 1 : 0);
        put_addr(p + 1, pick_addr(s, w, 8));
        p[1] |= GEN9_MI_FLUSH_DW_USE_GTT;
        p[3] = in_u32(s);
        p[4] = in_u32(s);
        return 4 + (n & 8 ? 1 : 0);
    case 8:
        n = in_u8(s);
        p[0] = GEN9_PIPE_CONTROL;
        p[1] = GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_GLOBAL_GTT |
               ((n & 3) << GEN9_PIPE_CONTROL_POST_SYNC_SHIFT) |
               (n & 4 ? GEN9_PIPE_CONTROL_NOTIFY : 0);
        put_addr(p + 2, pick_addr(s, w, 8));
        p[4] = in_u32(s);
        p[5] = in_u32(s);
        return 6;
    case 9:
    case 10: {
        bool copy = k == 10, dt = in_u8(s) % 4 == 0, st = copy && in_u8(s) % 4 == 0;
        uint32_t x1 = in_u8(s) % 64, y1 = in_u8(s) % 64;
        uint32_t x2 = x1 + 1 + in_u8(s) % 64, y2 = y1 + 1 + in_u8(s) % 64;
        uint32_t pitch;
        p[0] = copy ? GEN9_XY_SRC_COPY_BLT : GEN9_XY_COLOR_BLT;
        p[0] |= (dt ? GEN9_BLT_DST_TILED : 0) | (st ? GEN9_BLT_SRC_TILED : 0);
        gen_blit_surface(s, w, p + 4, &pitch, NULL, dt);
        p[1] = ((in_u8(s) & 3u) << GEN9_BR13_DEPTH_SHIFT) |
               GEN9_BR13_ROP(copy ? GEN9_ROP_SRC_COPY : GEN9_ROP_PAT_COPY) | pitch;
        p[2] = GEN9_BLT_COORD(x1, y1);
        p[3] = GEN9_BLT_COORD(x2, y2);
        if (!copy) {
            p[6] = in_u32(s);
            return GEN9_XY_COLOR_BLT_LEN;
        }
        gen_blit_surface(s, w, p + 8, &p[7], &p[6], st);
        return GEN9_XY_SRC_COPY_BLT_LEN;
    }
    default:
        /* A batch start: to a freshly generated batch, or anywhere. */
        n = in_u8(s);
        if (level < 3 && (n & 1))
            a = gen_batch(s, w, level + 1);
        else
            a = pick_addr(s, w, 4);
        p[0] = GEN9_MI_BATCH_BUFFER_START | (n & 2 ? GEN9_MI_BB_START_SECOND_LEVEL : 0);
        put_addr(p + 1, a);
        return 3;
    }
}

static void mutate(struct in *s, uint32_t *dw, size_t n)
{
    uint32_t flips = in_u8(s) % 4;

    while (n && flips--) {
        size_t i = in_u16(s) % n;
        dw[i] ^= 1u << (in_u8(s) % 32);
    }
}

/* ---- workload set-up from the input ---- */
static void build(struct in *s, struct work *w)
{
    uint32_t flags = in_u8(s), i;

    w->engine = (flags & 1) ? IGPU_BCS : IGPU_RCS;
    w->n_ranges = 1 + in_u8(s) % 3;
    for (i = 0; i < w->n_ranges; i++) {
        uint32_t start = in_u8(s) % 2 ? (in_u16(s) % (GM_SIZE / 4096)) * 4096 : in_u32(s) % GM_SIZE;
        w->ranges[i].start = start;
        w->ranges[i].size = 1 + in_u32(s) % (GM_SIZE - start);
    }
    w->n_ranges = igpu_scan_ranges_normalize(w->ranges, w->n_ranges);
    if (flags & 2) { /* a small random allow-list */
        w->n_regs = 1 + in_u8(s) % 4;
        for (i = 0; i < w->n_regs; i++) {
            w->regs[i].offset = in_u32(s) & GEN9_MI_REG_OFFSET_MASK;
            w->regs[i].size = 4 * (1 + in_u8(s) % 4);
            w->regs[i].access = 1 + in_u8(s) % 3;
        }
        w->reg_list = w->regs;
    } else if (w->engine == IGPU_RCS) {
        w->reg_list = igpu_scan_default_regs_rcs;
        w->n_regs = igpu_scan_default_regs_rcs_count;
    } else {
        w->reg_list = igpu_scan_default_regs_bcs;
        w->n_regs = igpu_scan_default_regs_bcs_count;
    }
    w->cfg.engine = w->engine;
    w->cfg.ranges = w->ranges;
    w->cfg.n_ranges = w->n_ranges;
    w->cfg.regs = w->reg_list;
    w->cfg.n_regs = w->n_regs;
    w->cfg.max_depth = (flags >> 2) & 3;
    w->cfg.max_batches = 1 + in_u8(s) % 16;
    w->cfg.read = gm_read;
    w->cfg.read_ctx = w;
    w->cfg.shadow = w->shadow;
    w->cfg.shadow_dw = SHADOW_DW;
    w->cfg.shadow_gm = SHADOW_GM;

    if (flags & 0x10) {
        /* Raw: the rest of the input is the ring and, repeated, guest memory. */
        size_t n = s->n / 4 < MAX_RING_DW ? s->n / 4 : MAX_RING_DW;
        memcpy(w->ring, s->p, n * 4);
        w->ring_dw = n;
        for (i = 0; s->n && i < GM_SIZE; i += (uint32_t)s->n)
            memcpy(w->gm + i, s->p, s->n < GM_SIZE - i ? s->n : GM_SIZE - i);
        return;
    }
    while (s->n && w->ring_dw < MAX_RING_DW - 16)
        w->ring_dw += gen_cmd(s, w, w->ring + w->ring_dw, 0);
    mutate(s, w->ring, w->ring_dw);
}

/* ======================================================================================
 * Check 1: an independent re-decoder.  Plain PRM decoding, no scanner code: it trusts only
 * the allowed ranges and the register list, and traps anything else.
 * ====================================================================================== */
struct ref {
    const struct work *w;
    uint64_t commands, blits, pixels;
};

static bool in_ranges(const struct work *w, uint64_t a, uint64_t len)
{
    size_t i;
    for (i = 0; i < w->n_ranges; i++)
        if (a >= w->ranges[i].start && len <= w->ranges[i].size &&
            a - w->ranges[i].start <= w->ranges[i].size - len)
            return true;
    return false;
}

static void ref_access(struct ref *r, uint64_t a, uint64_t len)
{
    if (len && !in_ranges(r->w, a, len))
        fail("access outside the allowed ranges", a, len);
}

static void ref_reg(struct ref *r, uint32_t reg, uint32_t access)
{
    size_t i;
    for (i = 0; i < r->w->n_regs; i++) {
        const struct igpu_scan_reg *e = &r->w->reg_list[i];
        if (reg >= e->offset && reg < e->offset + e->size && (e->access & access) == access)
            return;
    }
    fail("register outside the allow-list", reg, access);
}

/* Byte offset of (xb, y) in a tiled surface of pitch p (PRM Vol 5 tiling layouts). */
static uint64_t tile_x(uint64_t p, uint64_t xb, uint64_t y)
{
    return (y / 8) * p * 8 + (xb / 512) * 4096 + (y % 8) * 512 + xb % 512;
}

static uint64_t tile_y(uint64_t p, uint64_t xb, uint64_t y)
{
    return (y / 32) * p * 32 + (xb / 128) * 4096 + ((xb % 128) / 16) * 512 + (y % 32) * 16 +
           xb % 16;
}

/* Every byte of rows [y, y+h), bytes [x*bpp, (x+w)*bpp) of a surface. */
static void ref_surface(struct ref *r, uint64_t base, uint32_t pitch_field, bool tiled, uint32_t x,
                        uint32_t y, uint32_t wd, uint32_t h, uint32_t bpp)
{
    int32_t pitch = (int16_t)pitch_field;
    uint32_t row;

    for (row = y; row < y + h; row++) {
        uint64_t xb0 = (uint64_t)x * bpp, xb1 = (uint64_t)(x + wd) * bpp, xb;
        if (!tiled) {
            ref_access(r, base + (int64_t)row * pitch + xb0, xb1 - xb0);
            continue;
        }
        for (xb = xb0; xb < xb1; xb = (xb | 15) + 1) {
            uint64_t len = ((xb | 15) + 1 < xb1 ? (xb | 15) + 1 : xb1) - xb;
            ref_access(r, base + tile_x((uint64_t)pitch * 4, xb, row), len);
            ref_access(r, base + tile_y((uint64_t)pitch * 4, xb, row), len);
        }
    }
}

static uint64_t addr48(const uint32_t *c, uint32_t lo_mask)
{
    return ((uint64_t)(c[1] & 0xFFFF) << 32) | (c[0] & lo_mask);
}

/* Fetch dword i of the current buffer: the ring copy, or the shadow by graphics address. */
struct frame {
    bool ring;
    uint64_t gm; /* batch: address of the next dword */
    size_t pos;  /* ring: next dword */
    unsigned level;
};

static const uint32_t *fetch(struct ref *r, const struct frame *f, size_t n)
{
    const struct work *w = r->w;
    if (f->ring) {
        if (f->pos + n > w->ring_dw)
            fail("command runs past the ring", f->pos, n);
        return w->ring + f->pos;
    }
    if (f->gm < SHADOW_GM || f->gm + n * 4 > SHADOW_GM + w->res.shadow_used_dw * 4)
        fail("batch fetched outside the checked shadow copy", f->gm, n);
    return w->shadow + (f->gm - SHADOW_GM) / 4;
}

static void ref_run(struct ref *r)
{
    struct frame st[4] = { { .ring = true } };
    int sp = 0;

    for (;;) {
        struct frame *f = &st[sp];
        const uint32_t *c;
        uint32_t h, type, len = 1;

        if (f->ring && f->pos == r->w->ring_dw)
            break;
        if (++r->commands > r->w->res.commands)
            fail("more commands execute than the scanner counted", r->commands, 0);
        h = *fetch(r, f, 1);
        type = h >> 29;
        if (type == 0) {
            uint32_t op = (h >> 23) & 0x3F;
            if (op >= 0x10)
                len = (h & (op == 0x20 ? 0x3FF : op == 0x26 ? 0x3F : 0xFF)) + 2;
            c = fetch(r, f, len);
            switch (op) {
            case 0x00:
            case 0x02:
                break;
            case 0x0A: /* end: return to the caller */
                if (sp == 0)
                    fail("batch end in the ring", h, 0);
                sp--;
                continue;
            case 0x31: { /* start: call or chain */
                struct frame nf = { .gm = addr48(c + 1, ~3u) };
                bool call = f->ring || (h & (1u << 22));
                if (h & (1u << 8))
                    fail("PPGTT batch", h, 0);
                if (f->ring)
                    f->pos += len;
                else
                    f->gm += len * 4;
                nf.level = call ? f->level + 1 : f->level;
                if (nf.level > 2)
                    fail("batch nesting beyond the hardware's two levels", nf.level, 0);
                if (call)
                    sp++;
                st[sp] = nf;
                continue;
            }
            case 0x20:
                ref_access(r, addr48(c + 1, ~3u), (h & (1u << 21)) ? 8 : 4);
                break;
            case 0x22: {
                uint32_t i;
                for (i = 1; i + 1 < len; i += 2)
                    ref_reg(r, c[i] & 0x7FFFFC, IGPU_SCAN_REG_WRITE);
                break;
            }
            case 0x24:
                ref_reg(r, c[1] & 0x7FFFFC, IGPU_SCAN_REG_READ);
                ref_access(r, addr48(c + 2, ~3u), 4);
                break;
            case 0x29:
                ref_reg(r, c[1] & 0x7FFFFC, IGPU_SCAN_REG_WRITE);
                ref_access(r, addr48(c + 2, ~3u), 4);
                break;
            case 0x26: {
                uint32_t op2 = (h >> 14) & 3;
                if (h & (1u << 21))
                    fail("flush to the status page", h, 0);
                if (op2)
                    ref_access(r, addr48(c + 1, ~7u), op2 == 1 && len == 4 ? 4 : 8);
                break;
            }
            default:
                fail("accepted an MI command that is not allowed", h, 0);
            }
        } else if (type == 3) {
            c = fetch(r, f, len = (h & 0xFF) + 2);
            if ((h & 0xFFFF0000u) != 0x7A000000u || r->w->engine != IGPU_RCS)
                fail("accepted a 3D command other than PIPE_CONTROL on render", h, 0);
            if (c[1] & ((1u << 23) | (1u << 21)))
                fail("privileged PIPE_CONTROL post-sync", c[1], 0);
            if ((c[1] >> 14) & 3)
                ref_access(r, addr48(c + 2, ~3u), 8);
        } else if (type == 2) {
            uint32_t op = (h >> 22) & 0x7F, bpp;
            int32_t x1, y1, x2, y2;
            c = fetch(r, f, len = (h & 0xFF) + 2);
            if (r->w->engine != IGPU_BCS || (op != 0x50 && op != 0x53))
                fail("accepted a blit that is not allowed", h, 0);
            bpp = ((c[1] >> 24) & 3) == 0 ? 1 : ((c[1] >> 24) & 3) == 3 ? 4 : 2;
            x1 = (int16_t)c[2];
            y1 = (int16_t)(c[2] >> 16);
            x2 = (int16_t)c[3];
            y2 = (int16_t)(c[3] >> 16);
            if (x2 > x1 && y2 > y1) {
                uint32_t wd = (uint32_t)(x2 - x1), ht = (uint32_t)(y2 - y1);
                ref_surface(r, addr48(c + 4, ~0u), c[1] & 0xFFFF, h & (1u << 11), (uint32_t)x1,
                            (uint32_t)y1, wd, ht, bpp);
                if (op == 0x53)
                    ref_surface(r, addr48(c + 8, ~0u), c[7] & 0xFFFF, h & (1u << 15), c[6] & 0xFFFF,
                                c[6] >> 16, wd, ht, bpp);
                r->blits++;
                r->pixels += (uint64_t)wd * ht;
            }
        } else {
            fail("accepted a reserved command type", h, 0);
        }
        if (f->ring)
            f->pos += len;
        else
            f->gm += len * 4;
    }
    if (sp != 0)
        fail("ring ended inside a batch", sp, 0);
    if (r->commands != r->w->res.commands || r->blits != r->w->res.blits ||
        r->pixels != r->w->res.blit_pixels)
        fail("executed work differs from the scanner's facts", r->commands, r->pixels);
}

/* ======================================================================================
 * Check 2: execute on the iGPU model with a memory map that traps.
 * ====================================================================================== */
#define PHYS_GGTT 0x0u      /* GGTT entries */
#define PHYS_MEM  0x100000u /* gm page i -> PHYS_MEM + i * 4096 */
#define MODEL_GM  0x80000u  /* graphics memory the model maps */
#define GGTT_PTES (MODEL_GM / 4096u)

struct phys {
    uint8_t ggtt[GGTT_PTES * 8];
    uint8_t mem[MODEL_GM];
};

static int phys_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    struct phys *p = ctx;
    if (pa >= PHYS_MEM && pa - PHYS_MEM <= MODEL_GM - len) {
        memcpy(buf, p->mem + (pa - PHYS_MEM), len);
        return 0;
    }
    if (pa + len <= sizeof(p->ggtt)) {
        memcpy(buf, p->ggtt + pa, len);
        return 0;
    }
    return -1;
}

static int phys_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    struct phys *p = ctx;
    if (pa >= PHYS_MEM && pa - PHYS_MEM <= MODEL_GM - len) {
        memcpy(p->mem + (pa - PHYS_MEM), buf, len);
        return 0;
    }
    return -1;
}

struct trap {
    const struct work *w;
    bool armed; /* only the guest's workload is checked */
};

static int trap_check(void *ctx, enum igpu_engine e, uint64_t a, uint64_t len,
                      enum igpu_model_access kind)
{
    struct trap *t = ctx;
    (void)e;
    if (!t->armed)
        return 0;
    switch (kind) {
    case IGPU_ACCESS_READ:
    case IGPU_ACCESS_WRITE:
        if (!in_ranges(t->w, a, len))
            fail("model: data access outside the allowed ranges", a, len);
        break;
    case IGPU_ACCESS_BATCH:
        if (a < SHADOW_GM || a + len > SHADOW_GM + t->w->res.shadow_used_dw * 4)
            fail("model: batch fetched outside the shadow copy", a, len);
        break;
    case IGPU_ACCESS_RING:
        if (a < RING_GM || a + len > RING_GM + RING_BYTES)
            fail("model: ring fetch outside the ring", a, len);
        break;
    default:
        break; /* context image and status page: the host's */
    }
    return 0;
}

static void model_run(const struct work *w)
{
    static struct phys phys;
    struct igpu_model_config mc;
    struct igpu_model *m;
    struct trap t = { .w = w };
    struct igpu *g;
    uint32_t i;

    memset(phys.ggtt, 0, sizeof(phys.ggtt));
    for (i = 0; i < GGTT_PTES; i++) { /* identity-style map of all model gm */
        uint64_t pte = (PHYS_MEM + (uint64_t)i * 4096) | 1u;
        memcpy(phys.ggtt + i * 8, &pte, 8);
    }
    memset(phys.mem, 0, sizeof(phys.mem));
    memcpy(phys.mem, w->gm, GM_SIZE);
    memcpy(phys.mem + SHADOW_GM, w->shadow, w->res.shadow_used_dw * 4);

    igpu_model_config_defaults(&mc);
    mc.mem.read = phys_read;
    mc.mem.write = phys_write;
    mc.mem.ctx = &phys;
    mc.gsm_base = PHYS_GGTT;
    mc.ggtt_entries = GGTT_PTES;
    mc.aperture_size = MODEL_GM;
    mc.gm_check = trap_check;
    mc.gm_check_ctx = &t;
    if (igpu_model_create(&mc, &m) != 0)
        fail("model: create failed", 0, 0);
    g = igpu_model_igpu(m);
    if (igpu_engine_init(g, w->engine, LRCA + 0x2000) != 0 ||
        igpu_model_ctx_init(m, w->engine, LRCA, RING_GM, RING_BYTES) != 0)
        fail("model: engine set-up failed", 0, 0);
    t.armed = true;
    if (igpu_model_submit_ring(m, w->engine, LRCA, 1, w->ring, w->ring_dw) != 0)
        fail("model: submit failed", w->ring_dw, 0);
    igpu_model_run_until_idle(m, w->engine, 1000000000ull);
    {
        const struct igpu_model_fault *ft = igpu_model_fault(m, w->engine);
        struct igpu_model_stats st;
        uint64_t pad = w->ring_dw & 1; /* submit pads the ring to a qword */

        /* The trap aborts before the model could report a denied access; faults for
         * features the model lacks are acceptable, faults on memory are not. */
        if (ft &&
            (ft->reason == IGPU_FAULT_ACCESS_DENIED || ft->reason == IGPU_FAULT_GGTT_NOT_PRESENT ||
             ft->reason == IGPU_FAULT_GGTT_RANGE || ft->reason == IGPU_FAULT_MEMORY))
            fail("model: accepted workload faulted on memory", ft->reason, ft->gaddr);
        /* A clean run did exactly the work the scanner predicted, at the predicted cost. */
        if (!ft && igpu_model_stats(m, w->engine, &st) == 0 &&
            (st.commands != w->res.commands + pad || st.batches != w->res.batches ||
             st.pixels != w->res.blit_pixels ||
             st.busy_ns != w->res.est_cost_ns + pad * mc.cost.cmd_ns + mc.cost.ctx_switch_ns))
            fail("model: executed work or cost differs from the scan", st.commands, st.busy_ns);
    }
    /* cppcheck-suppress redundantAssignment ; the model reads t through trap_check()'s ctx */
    t.armed = false;
    igpu_model_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct work w;
    struct in s = { data, size };
    struct ref r;

    memset(&w, 0, sizeof(w));
    build(&s, &w);
    if (igpu_scan_ring(&w.cfg, w.ring, w.ring_dw, &w.res) != IGPU_SCAN_OK)
        return 0;
    memset(&r, 0, sizeof(r));
    r.w = &w;
    ref_run(&r);
    model_run(&w);
    return 0;
}
