/*
 * Operand checks, one per accepted command: graphics addresses against the allowed ranges,
 * registers against the allow-list, blit rectangles over their whole extent, batch starts
 * against the nesting limit.  Each also records the workload facts the command contributes.
 *
 * The rule throughout: the scanner computes exactly the bytes the hardware will touch, and
 * where the hardware would silently ignore bits (low address bits, reserved fields) the
 * command is rejected instead, so the scanner and the GPU can never disagree on an address.
 */
#include "drivers/igpu/scanner/scan_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gfxpipe.h"

/* ---- Shared operand checks ---- */

static enum igpu_scan_err check_mem(struct scan_ctx *c, uint32_t op, uint64_t addr, uint64_t size)
{
    if (!igpu_scan_ranges_contain(c->cfg->ranges, c->cfg->n_ranges, addr, size))
        return scan_reject(c, IGPU_SCAN_E_ADDR_RANGE, op, addr);
    scan_note_range(c, scan_range_find(c->cfg->ranges, c->cfg->n_ranges, addr));
    return IGPU_SCAN_OK;
}

/* An operand addressed through the GGTT (the allowed ranges) or, for an i915 guest, through its
 * context's PPGTT (every byte must translate for the access: cfg->ppgtt->check()). */
static enum igpu_scan_err check_access(struct scan_ctx *c, uint32_t op, uint64_t addr,
                                       uint64_t size, bool ppgtt, bool write)
{
    const struct igpu_scan_ppgtt *pp = c->cfg->ppgtt;

    if (!ppgtt)
        return check_mem(c, op, addr, size);
    if (!pp)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, op, addr);
    if (pp->check(pp->ctx, addr, size, write) != 0)
        return scan_reject(c, IGPU_SCAN_E_PPGTT_MAP, op, addr);
    return IGPU_SCAN_OK;
}

/* i915 profile: a post-sync into the running context's own status page, at byte `off` of it
 * (PIPE_CONTROL_STORE_DATA_INDEX / MI_FLUSH_DW_STORE_INDEX; i915's LRC_PPHWSP_SCRATCH_ADDR).
 * Tessera's own guests never get this: the status page is the context owner's. */
static enum igpu_scan_err check_store_index(struct scan_ctx *c, uint32_t flags_op, uint32_t flags,
                                            uint32_t off, uint64_t size)
{
    if (!c->cfg->i915)
        return scan_reject(c, IGPU_SCAN_E_PRIVILEGED_OP, flags_op, flags);
    if (off >= GEN9_PPHWSP_BYTES || off % size)
        return scan_reject(c, IGPU_SCAN_E_BAD_FIELD, flags_op + 1u, off);
    return check_mem(c, flags_op + 1u, c->cfg->pphwsp_gm + off, size);
}

/* A 48-bit address from operands op (low) and op + 1 (high); the low `align` bits must be
 * zero (the hardware drops them), as must the reserved top of the high dword. */
static enum igpu_scan_err get_addr(struct scan_ctx *c, const uint32_t *cmd, uint32_t op,
                                   uint32_t align, uint64_t *out)
{
    uint32_t lo = cmd[op], hi = cmd[op + 1];

    if (hi & GEN9_ADDR_HI_RESERVED)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, op + 1, hi);
    *out = gen9_gm_addr(lo, hi, ~0u);
    if (lo & (align - 1u))
        return scan_reject(c, IGPU_SCAN_E_MISALIGNED, op, *out);
    return IGPU_SCAN_OK;
}

/* Register operand of LRI/LRM/SRM: offset bits 22:2 only, and allowed for this access. */
static enum igpu_scan_err check_reg(struct scan_ctx *c, uint32_t op, uint32_t reg, uint32_t access)
{
    size_t i;

    if (reg & ~GEN9_MI_REG_OFFSET_MASK)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, op, reg);
    for (i = 0; i < c->cfg->n_regs; i++) {
        const struct igpu_scan_reg *r = &c->cfg->regs[i];
        if (reg - r->offset < r->size && reg >= r->offset && (r->access & access) == access)
            return IGPU_SCAN_OK;
    }
    return scan_reject(c, IGPU_SCAN_E_REG_DENIED, op, reg);
}

/* ---- MI ---- */

enum igpu_scan_err scan_check_user_interrupt(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    (void)cmd;
    (void)len;
    c->res->user_interrupts++;
    return IGPU_SCAN_OK;
}

uint64_t scan_bb_start_target(const uint32_t *cmd)
{
    return gen9_gm_addr(cmd[GEN9_MI_BB_START_DW_ADDR_LO], cmd[GEN9_MI_BB_START_DW_ADDR_HI],
                        GEN9_MI_BB_START_ADDR_MASK);
}

/* From the ring every start is a call into a first-level batch; inside a batch only the
 * second-level flag makes a call, otherwise the start chains (PRM MI_BATCH_BUFFER_START). */
bool scan_bb_start_is_call(uint32_t hdr, unsigned level)
{
    return level == 0 || (hdr & GEN9_MI_BB_START_SECOND_LEVEL) != 0;
}

enum igpu_scan_err scan_check_bb_start(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t hdr = cmd[0];
    unsigned child;
    uint64_t target;
    enum igpu_scan_err e;

    (void)len;
    if ((hdr & GEN9_MI_BB_START_PPGTT) && !c->cfg->ppgtt)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, 0, hdr);
    /* The second-level flag means nothing from the ring; refuse it rather than guess. */
    if (c->level == 0 && (hdr & GEN9_MI_BB_START_SECOND_LEVEL))
        return scan_reject(c, IGPU_SCAN_E_BAD_FIELD, 0, hdr);
    e = get_addr(c, cmd, GEN9_MI_BB_START_DW_ADDR_LO, 4, &target);
    if (e)
        return e;
    child = scan_bb_start_is_call(hdr, c->level) ? c->level + 1 : c->level;
    if (child > c->depth_limit)
        return scan_reject(c, IGPU_SCAN_E_BATCH_DEPTH, 0, child);
    /* The first dword must be the guest's; the rest is checked as the batch is copied. */
    return check_access(c, GEN9_MI_BB_START_DW_ADDR_LO, target, 4,
                        (hdr & GEN9_MI_BB_START_PPGTT) != 0, false);
}

enum igpu_scan_err scan_check_sdi(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t hdr = cmd[0];
    bool qword = (hdr & GEN9_MI_SDI_STORE_QWORD) != 0;
    uint64_t addr;
    enum igpu_scan_err e;

    if (!(hdr & GEN9_MI_SDI_USE_GGTT) && !c->cfg->ppgtt)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, 0, hdr);
    /* The length must match the store size: 4 dw for a dword, 5 for a qword. */
    if (len != (qword ? GEN9_MI_STORE_DATA_IMM_QW_LEN : GEN9_MI_STORE_DATA_IMM_DW_LEN))
        return scan_reject(c, IGPU_SCAN_E_BAD_LENGTH, 0, len);
    e = get_addr(c, cmd, GEN9_MI_SDI_DW_ADDR_LO, qword ? 8 : 4, &addr);
    if (e)
        return e;
    e = check_access(c, GEN9_MI_SDI_DW_ADDR_LO, addr, qword ? 8 : 4, !(hdr & GEN9_MI_SDI_USE_GGTT),
                     true);
    if (e)
        return e;
    c->res->mem_writes++;
    return IGPU_SCAN_OK;
}

enum igpu_scan_err scan_check_lri(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t i;
    enum igpu_scan_err e;

    /* Header plus whole { register, value } pairs: an odd total. */
    if ((len - 1u) % 2u != 0)
        return scan_reject(c, IGPU_SCAN_E_BAD_LENGTH, 0, len);
    for (i = 1; i < len; i += 2) {
        e = check_reg(c, i, cmd[i], IGPU_SCAN_REG_WRITE);
        if (e)
            return e;
        c->res->reg_writes++;
    }
    return IGPU_SCAN_OK;
}

/* MI_STORE_REGISTER_MEM and MI_LOAD_REGISTER_MEM share one layout: a register and a GGTT
 * address.  Only the register's direction and what the command does differ. */
static enum igpu_scan_err check_reg_mem(struct scan_ctx *c, const uint32_t *cmd, uint32_t use_ggtt,
                                        uint32_t reg_access, uint32_t *counter)
{
    bool ppgtt = !(cmd[0] & use_ggtt);
    uint64_t addr;
    enum igpu_scan_err e;

    if (ppgtt && !c->cfg->ppgtt)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, 0, cmd[0]);
    e = check_reg(c, GEN9_MI_RM_DW_REG, cmd[GEN9_MI_RM_DW_REG], reg_access);
    if (!e)
        e = get_addr(c, cmd, GEN9_MI_RM_DW_ADDR_LO, 4, &addr);
    /* SRM reads a register and writes memory; LRM reads memory. */
    if (!e)
        e = check_access(c, GEN9_MI_RM_DW_ADDR_LO, addr, 4, ppgtt,
                         reg_access == IGPU_SCAN_REG_READ);
    if (e)
        return e;
    (*counter)++;
    return IGPU_SCAN_OK;
}

enum igpu_scan_err scan_check_srm(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    (void)len;
    return check_reg_mem(c, cmd, GEN9_MI_SRM_USE_GGTT, IGPU_SCAN_REG_READ, &c->res->mem_writes);
}

enum igpu_scan_err scan_check_lrm(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    (void)len;
    return check_reg_mem(c, cmd, GEN9_MI_LRM_USE_GGTT, IGPU_SCAN_REG_WRITE, &c->res->reg_writes);
}

enum igpu_scan_err scan_check_flush_dw(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t hdr = cmd[0], op = hdr & GEN9_MI_FLUSH_DW_OP_MASK;
    uint32_t lo = cmd[GEN9_MI_FLUSH_DW_DW_ADDR_LO];
    uint64_t addr, size;
    enum igpu_scan_err e;

    /* The status page belongs to the context owner (the hypervisor), not the guest. */
    if ((hdr & GEN9_MI_FLUSH_DW_STORE_INDEX) && !c->cfg->i915)
        return scan_reject(c, IGPU_SCAN_E_PRIVILEGED_OP, 0, hdr);
    if (op == GEN9_MI_FLUSH_DW_OP_RESERVED)
        return scan_reject(c, IGPU_SCAN_E_BAD_FIELD, 0, hdr);
    if (hdr & GEN9_MI_FLUSH_DW_NOTIFY)
        c->res->notifies++;
    if (op == GEN9_MI_FLUSH_DW_OP_NONE)
        return IGPU_SCAN_OK; /* no post-sync write: address unused */
    size = (op == GEN9_MI_FLUSH_DW_OP_STOREDW && len == GEN9_MI_FLUSH_DW_DW_LEN) ? 4 : 8;
    if (hdr & GEN9_MI_FLUSH_DW_STORE_INDEX) {
        e = check_store_index(c, 0, hdr, lo & ~GEN9_MI_FLUSH_DW_USE_GTT, size);
        if (e)
            return e;
        c->res->mem_writes++;
        return IGPU_SCAN_OK;
    }
    if (!(lo & GEN9_MI_FLUSH_DW_USE_GTT) && !c->cfg->ppgtt)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, GEN9_MI_FLUSH_DW_DW_ADDR_LO, lo);
    if (lo & ~(GEN9_MI_FLUSH_DW_ADDR_MASK | GEN9_MI_FLUSH_DW_USE_GTT))
        return scan_reject(c, IGPU_SCAN_E_MISALIGNED, GEN9_MI_FLUSH_DW_DW_ADDR_LO, lo);
    /* The bytes the hardware touches are not known when bit 5 is set: refuse rather than
     * guess (the scanner computes exactly what the GPU will write). */
    if (lo & GEN9_MI_FLUSH_DW_ADDR_MBZ)
        return scan_reject(c, IGPU_SCAN_E_MISALIGNED, GEN9_MI_FLUSH_DW_DW_ADDR_LO, lo);
    if (cmd[GEN9_MI_FLUSH_DW_DW_ADDR_HI] & GEN9_ADDR_HI_RESERVED)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, GEN9_MI_FLUSH_DW_DW_ADDR_HI,
                           cmd[GEN9_MI_FLUSH_DW_DW_ADDR_HI]);
    addr = gen9_gm_addr(lo, cmd[GEN9_MI_FLUSH_DW_DW_ADDR_HI], GEN9_MI_FLUSH_DW_ADDR_MASK);
    /* Immediate data is a dword in the 4-dw form, a qword in the 5-dw form; a timestamp is
     * always a qword (size, above). */
    e = check_access(c, GEN9_MI_FLUSH_DW_DW_ADDR_LO, addr, size, !(lo & GEN9_MI_FLUSH_DW_USE_GTT),
                     true);
    if (e)
        return e;
    c->res->mem_writes++;
    return IGPU_SCAN_OK;
}

/* ---- 3D ---- */

enum igpu_scan_err scan_check_pipe_control(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t flags = cmd[GEN9_PIPE_CONTROL_DW_FLAGS];
    uint64_t addr;
    enum igpu_scan_err e;

    (void)len;
    /* A post-sync write to an MMIO register: never the guest's.  Into the status page: only
     * an i915 guest's own context's (check_store_index()). */
    if (flags & GEN9_PIPE_CONTROL_LRI_POST_SYNC)
        return scan_reject(c, IGPU_SCAN_E_PRIVILEGED_OP, GEN9_PIPE_CONTROL_DW_FLAGS, flags);
    if ((flags & GEN9_PIPE_CONTROL_STORE_DATA_INDEX) && !c->cfg->i915)
        return scan_reject(c, IGPU_SCAN_E_PRIVILEGED_OP, GEN9_PIPE_CONTROL_DW_FLAGS, flags);
    if (flags & GEN9_PIPE_CONTROL_NOTIFY)
        c->res->notifies++;
    if ((flags & GEN9_PIPE_CONTROL_POST_SYNC_MASK) == GEN9_PIPE_CONTROL_POST_SYNC_NONE)
        return IGPU_SCAN_OK;
    if (flags & GEN9_PIPE_CONTROL_STORE_DATA_INDEX) {
        if (cmd[GEN9_PIPE_CONTROL_DW_ADDR_HI])
            return scan_reject(c, IGPU_SCAN_E_BAD_FIELD, GEN9_PIPE_CONTROL_DW_ADDR_HI,
                               cmd[GEN9_PIPE_CONTROL_DW_ADDR_HI]);
        e = check_store_index(c, GEN9_PIPE_CONTROL_DW_FLAGS, flags,
                              cmd[GEN9_PIPE_CONTROL_DW_ADDR_LO], GEN9_PIPE_CONTROL_POST_SYNC_BYTES);
        if (e)
            return e;
        c->res->mem_writes++;
        return IGPU_SCAN_OK;
    }
    if (!(flags & GEN9_PIPE_CONTROL_GLOBAL_GTT) && !c->cfg->ppgtt)
        return scan_reject(c, IGPU_SCAN_E_PPGTT, GEN9_PIPE_CONTROL_DW_FLAGS, flags);
    /* Every post-sync operation writes a qword. */
    e = get_addr(c, cmd, GEN9_PIPE_CONTROL_DW_ADDR_LO, GEN9_PIPE_CONTROL_POST_SYNC_BYTES, &addr);
    if (!e)
        e = check_access(c, GEN9_PIPE_CONTROL_DW_ADDR_LO, addr, GEN9_PIPE_CONTROL_POST_SYNC_BYTES,
                         !(flags & GEN9_PIPE_CONTROL_GLOBAL_GTT), true);
    if (e)
        return e;
    c->res->mem_writes++;
    return IGPU_SCAN_OK;
}

/* ---- 2D ---- */

/* BR13 bits a guest may set: pitch, raster operation, colour depth (no clipping: the clip
 * rectangle is state from XY_SETUP_CLIP_BLT, which is not accepted). */
#define BR13_ALLOWED (GEN9_BR13_PITCH_MASK | GEN9_BR13_ROP_MASK | GEN9_BR13_DEPTH_MASK)

/* Rows a tiled surface is rounded to: the taller tile (Y, 32 rows) covers X tiles too, since
 * BCS_SWCTRL, not the command, picks the tiling.  Tiled pitch must be a whole number of the
 * wider tile (X, 512 bytes). */
#define TILE_ROWS       GEN9_TILE_Y_ROWS
#define TILE_PITCH_UNIT 512u

/* The rectangle a blit touches on one surface. */
struct blit_surface {
    uint32_t addr_op;  /* operand index of the address, for error reports */
    uint32_t pitch_op; /* operand index of the pitch */
    uint64_t base;
    int32_t pitch; /* signed field value: bytes, or dwords if tiled */
    bool tiled;
    uint32_t x, y; /* top-left pixel */
};

static enum igpu_scan_err check_surface(struct scan_ctx *c, const struct blit_surface *s,
                                        uint32_t w, uint32_t h, uint32_t bpp, bool write)
{
    uint64_t first, end, pitch;

    if (s->pitch < 0) /* bottom-up surfaces are not supported */
        return scan_reject(c, IGPU_SCAN_E_BLIT_GEOMETRY, s->pitch_op, (uint32_t)s->pitch);
    if (!s->tiled) {
        /* Row r covers [base + r*pitch + x*bpp, ... + (x+w)*bpp): with pitch >= 0 the first
         * and last rows bound the whole rectangle. */
        pitch = (uint64_t)s->pitch;
        first = s->base + s->y * pitch + (uint64_t)s->x * bpp;
        end = s->base + (uint64_t)(s->y + h - 1u) * pitch + (uint64_t)(s->x + w) * bpp;
    } else {
        pitch = (uint64_t)s->pitch * 4u;
        if (pitch == 0 || pitch % TILE_PITCH_UNIT != 0 || (uint64_t)(s->x + w) * bpp > pitch)
            return scan_reject(c, IGPU_SCAN_E_BLIT_GEOMETRY, s->pitch_op, (uint32_t)s->pitch);
        if (s->base % GEN9_TILE_BYTES != 0)
            return scan_reject(c, IGPU_SCAN_E_MISALIGNED, s->addr_op, s->base);
        /* A tiled row r lies in the tile row r / rows, which spans rows * pitch bytes. */
        first = s->base + (uint64_t)(s->y / TILE_ROWS) * TILE_ROWS * pitch;
        end = s->base + ((uint64_t)(s->y + h - 1u) / TILE_ROWS + 1u) * TILE_ROWS * pitch;
    }
    /* A blit names no address space: it uses its batch's.  From a PPGTT batch that the engine
     * will run as a GGTT copy the surfaces would change meaning: refuse. */
    if (c->in_ppgtt && !(c->cfg->ppgtt && c->cfg->ppgtt->in_place))
        return scan_reject(c, IGPU_SCAN_E_PPGTT, s->addr_op, s->base);
    return check_access(c, s->addr_op, first, end - first, c->in_ppgtt, write);
}

/* The destination rectangle (BR22 top-left, BR23 bottom-right exclusive): non-empty and at
 * non-negative coordinates. */
static enum igpu_scan_err get_rect(struct scan_ctx *c, const uint32_t *cmd, uint32_t tl_op,
                                   uint32_t *x, uint32_t *y, uint32_t *w, uint32_t *h)
{
    int32_t x1 = gen9_blt_x(cmd[tl_op]), y1 = gen9_blt_y(cmd[tl_op]);
    int32_t x2 = gen9_blt_x(cmd[tl_op + 1]), y2 = gen9_blt_y(cmd[tl_op + 1]);

    if (x1 < 0 || y1 < 0)
        return scan_reject(c, IGPU_SCAN_E_BLIT_GEOMETRY, tl_op, cmd[tl_op]);
    if (x2 <= x1 || y2 <= y1)
        return scan_reject(c, IGPU_SCAN_E_BLIT_GEOMETRY, tl_op + 1, cmd[tl_op + 1]);
    *x = (uint32_t)x1;
    *y = (uint32_t)y1;
    *w = (uint32_t)(x2 - x1);
    *h = (uint32_t)(y2 - y1);
    return IGPU_SCAN_OK;
}

static void count_blit(struct scan_ctx *c, uint32_t w, uint32_t h, uint32_t bpp)
{
    uint64_t px = (uint64_t)w * h;

    c->res->blits++;
    c->res->blit_pixels += px;
    c->res->blit_bytes += px * bpp;
}

enum igpu_scan_err scan_check_xy_color_blt(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t br13 = cmd[GEN9_XY_COLOR_BLT_DW_BR13], bpp = gen9_br13_bpp(br13);
    uint32_t w, h;
    struct blit_surface dst = {
        .addr_op = GEN9_XY_COLOR_BLT_DW_DST_LO,
        .pitch_op = GEN9_XY_COLOR_BLT_DW_BR13,
        .pitch = gen9_br13_pitch(br13),
        .tiled = (cmd[0] & GEN9_BLT_DST_TILED) != 0,
    };
    enum igpu_scan_err e;

    (void)len;
    if (br13 & ~BR13_ALLOWED)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, GEN9_XY_COLOR_BLT_DW_BR13, br13);
    e = get_rect(c, cmd, GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT, &dst.x, &dst.y, &w, &h);
    if (!e)
        e = get_addr(c, cmd, GEN9_XY_COLOR_BLT_DW_DST_LO, 1, &dst.base);
    if (!e)
        e = check_surface(c, &dst, w, h, bpp, true);
    if (e)
        return e;
    count_blit(c, w, h, bpp);
    return IGPU_SCAN_OK;
}

enum igpu_scan_err scan_check_xy_src_copy_blt(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    uint32_t br13 = cmd[GEN9_XY_SRC_COPY_BLT_DW_BR13], bpp = gen9_br13_bpp(br13);
    uint32_t br11 = cmd[GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH];
    uint32_t src_tl = cmd[GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT];
    uint32_t w, h;
    struct blit_surface dst = {
        .addr_op = GEN9_XY_SRC_COPY_BLT_DW_DST_LO,
        .pitch_op = GEN9_XY_SRC_COPY_BLT_DW_BR13,
        .pitch = gen9_br13_pitch(br13),
        .tiled = (cmd[0] & GEN9_BLT_DST_TILED) != 0,
    };
    struct blit_surface src = {
        .addr_op = GEN9_XY_SRC_COPY_BLT_DW_SRC_LO,
        .pitch_op = GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH,
        .pitch = (int16_t)(br11 & GEN9_BR11_PITCH_MASK),
        .tiled = (cmd[0] & GEN9_BLT_SRC_TILED) != 0,
    };
    enum igpu_scan_err e;

    (void)len;
    if (br13 & ~BR13_ALLOWED)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, GEN9_XY_SRC_COPY_BLT_DW_BR13, br13);
    if (br11 & ~GEN9_BR11_PITCH_MASK)
        return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH, br11);
    if (gen9_blt_x(src_tl) < 0 || gen9_blt_y(src_tl) < 0)
        return scan_reject(c, IGPU_SCAN_E_BLIT_GEOMETRY, GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT,
                           src_tl);
    src.x = (uint32_t)gen9_blt_x(src_tl);
    src.y = (uint32_t)gen9_blt_y(src_tl);
    e = get_rect(c, cmd, GEN9_XY_SRC_COPY_BLT_DW_DST_TOPLEFT, &dst.x, &dst.y, &w, &h);
    if (!e)
        e = get_addr(c, cmd, GEN9_XY_SRC_COPY_BLT_DW_DST_LO, 1, &dst.base);
    if (!e)
        e = check_surface(c, &dst, w, h, bpp, true);
    if (!e)
        e = get_addr(c, cmd, GEN9_XY_SRC_COPY_BLT_DW_SRC_LO, 1, &src.base);
    if (!e)
        e = check_surface(c, &src, w, h, bpp, false);
    if (e)
        return e;
    count_blit(c, w, h, bpp);
    return IGPU_SCAN_OK;
}

/* ---- i915 profile: the render engine's other GFXPIPE commands ---- */

const struct scan_cmd_desc *scan_gfxpipe_desc(struct scan_ctx *c, uint32_t hdr)
{
    const struct gen9_gfxpipe_cmd *g = gen9_gfxpipe_lookup(hdr);
    struct scan_cmd_desc *d = &c->gfx_desc;

    if (!g)
        return NULL;
    d->name = g->name;
    d->engines = SCAN_ENG_RCS;
    d->forbidden = false;
    d->i915_ok = true;
    d->len_min = g->len_min;
    d->len_max = g->len_max;
    d->len_mask = g->subtype == GEN9_GFXPIPE_SINGLE_DW ? 0
                : g->subtype == GEN9_GFXPIPE_MEDIA     ? GEN9_MEDIA_LEN_MASK
                                                       : GEN9_3D_LEN_MASK;
    d->flags_ok = ~0u; /* state headers carry fields (MOCS, ...); nothing executes */
    d->check = scan_check_gfxpipe;
    return d;
}

/* State is skipped (it changes nothing visible without a draw); a draw is accepted only when
 * it provably draws nothing (gen9_3dprimitive_draws_nothing(): the one ending i915's golden
 * render state); walkers, media objects and binding-table edits are refused. */
enum igpu_scan_err scan_check_gfxpipe(struct scan_ctx *c, const uint32_t *cmd, uint32_t len)
{
    const struct gen9_gfxpipe_cmd *g = gen9_gfxpipe_lookup(cmd[0]);

    (void)len;
    switch (g ? (enum gen9_gfxpipe_kind)g->kind : GEN9_GFX_WRITES_MEMORY) {
    case GEN9_GFX_STATE:
    case GEN9_GFX_MEDIA_STATE:
        if (g->subtype == GEN9_GFXPIPE_3D && g->opcode == 0 &&
            g->subop == GEN9_3DSTATE_VF_TOPOLOGY_SUBOP)
            c->topology = cmd[1] & GEN9_TOPOLOGY_MASK;
        c->res->state_skipped++;
        return IGPU_SCAN_OK;
    case GEN9_GFX_DRAW:
        if (!gen9_3dprimitive_draws_nothing(cmd, c->topology))
            return scan_reject(c, IGPU_SCAN_E_NO_3D_MEDIA, GEN9_3DPRIMITIVE_DW_VERTEX_COUNT,
                               cmd[GEN9_3DPRIMITIVE_DW_VERTEX_COUNT]);
        c->res->state_skipped++;
        return IGPU_SCAN_OK;
    default:
        return scan_reject(c, IGPU_SCAN_E_NO_3D_MEDIA, 0, cmd[0]);
    }
}
