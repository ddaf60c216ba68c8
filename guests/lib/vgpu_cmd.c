/* Blitter command builders (vgpu_cmd.h).  Each one emits the Gen8+ form of its command with
 * only the fields the scanner accepts: GGTT addresses, no clipping, no tiling, RGBA written at
 * 32 bpp, high address dwords holding bits 47:32 only.  Encodings: drivers/igpu/gen9_cmd.h
 * (PRM Vol 2a; i915 intel_gpu_commands.h, i915's emit helpers for the same commands). */
#include "guests/lib/vgpu_cmd.h"

#include "drivers/igpu/gen9_cmd.h"

#include <stddef.h>

/* Cost model used only to size workloads (drivers/igpu/model/model_core.c defaults). */
#define EST_BLIT_NS  200u
#define EST_PIXEL_PS 250u

uint32_t *vgpu_cmd_reserve(struct vgpu_cmdbuf *cb, uint32_t n)
{
    if (cb->overflow || n > cb->cap - cb->n) {
        cb->overflow = true;
        return NULL;
    }
    uint32_t *p = cb->dw + cb->n;
    cb->n += n;
    return p;
}

static uint32_t addr_lo(uint64_t gm)
{
    return (uint32_t)gm;
}
static uint32_t addr_hi(uint64_t gm)
{
    return (uint32_t)(gm >> 32) & GEN9_ADDR_HI_MASK;
}

void vgpu_emit_noop(struct vgpu_cmdbuf *cb)
{
    uint32_t *p = vgpu_cmd_reserve(cb, 1);
    if (p)
        p[0] = GEN9_MI_NOOP;
}

void vgpu_emit_color_blt(struct vgpu_cmdbuf *cb, uint64_t dst_gm, uint32_t dst_pitch, uint32_t x1,
                         uint32_t y1, uint32_t x2, uint32_t y2, uint32_t color)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_XY_COLOR_BLT_LEN);
    if (!p)
        return;
    p[0] = GEN9_XY_COLOR_BLT;
    p[GEN9_XY_COLOR_BLT_DW_BR13] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) |
                                   (dst_pitch & GEN9_BR13_PITCH_MASK);
    p[GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT] = GEN9_BLT_COORD(x1, y1);
    p[GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT] = GEN9_BLT_COORD(x2, y2);
    p[GEN9_XY_COLOR_BLT_DW_DST_LO] = addr_lo(dst_gm);
    p[GEN9_XY_COLOR_BLT_DW_DST_HI] = addr_hi(dst_gm);
    p[GEN9_XY_COLOR_BLT_DW_COLOR] = color;
}

void vgpu_emit_copy_blt(struct vgpu_cmdbuf *cb, uint64_t dst_gm, uint32_t dst_pitch, uint32_t dx,
                        uint32_t dy, uint64_t src_gm, uint32_t src_pitch, uint32_t sx, uint32_t sy,
                        uint32_t w, uint32_t h)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_XY_SRC_COPY_BLT_LEN);
    if (!p)
        return;
    p[0] = GEN9_XY_SRC_COPY_BLT;
    p[GEN9_XY_SRC_COPY_BLT_DW_BR13] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) |
                                      (dst_pitch & GEN9_BR13_PITCH_MASK);
    p[GEN9_XY_SRC_COPY_BLT_DW_DST_TOPLEFT] = GEN9_BLT_COORD(dx, dy);
    p[GEN9_XY_SRC_COPY_BLT_DW_DST_BOTRIGHT] = GEN9_BLT_COORD(dx + w, dy + h);
    p[GEN9_XY_SRC_COPY_BLT_DW_DST_LO] = addr_lo(dst_gm);
    p[GEN9_XY_SRC_COPY_BLT_DW_DST_HI] = addr_hi(dst_gm);
    p[GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT] = GEN9_BLT_COORD(sx, sy);
    p[GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH] = src_pitch & GEN9_BR11_PITCH_MASK;
    p[GEN9_XY_SRC_COPY_BLT_DW_SRC_LO] = addr_lo(src_gm);
    p[GEN9_XY_SRC_COPY_BLT_DW_SRC_HI] = addr_hi(src_gm);
}

void vgpu_emit_store_dword(struct vgpu_cmdbuf *cb, uint64_t gm, uint32_t value)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_MI_STORE_DATA_IMM_DW_LEN);
    if (!p)
        return;
    p[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    p[GEN9_MI_SDI_DW_ADDR_LO] = addr_lo(gm) & GEN9_MI_SDI_ADDR_MASK;
    p[GEN9_MI_SDI_DW_ADDR_HI] = addr_hi(gm);
    p[GEN9_MI_SDI_DW_DATA_LO] = value;
}

void vgpu_emit_flush_store(struct vgpu_cmdbuf *cb, uint64_t gm, uint32_t value)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_MI_FLUSH_DW_DW_LEN);
    if (!p)
        return;
    p[0] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW;
    p[GEN9_MI_FLUSH_DW_DW_ADDR_LO] = (addr_lo(gm) & GEN9_MI_FLUSH_DW_ADDR_MASK) |
                                     GEN9_MI_FLUSH_DW_USE_GTT;
    p[GEN9_MI_FLUSH_DW_DW_ADDR_HI] = addr_hi(gm);
    p[GEN9_MI_FLUSH_DW_DW_DATA_LO] = value;
}

void vgpu_emit_lri(struct vgpu_cmdbuf *cb, uint32_t reg, uint32_t value)
{
    uint32_t *p = vgpu_cmd_reserve(cb, 3);
    if (!p)
        return;
    p[0] = GEN9_MI_LOAD_REGISTER_IMM(1);
    p[1] = reg & GEN9_MI_REG_OFFSET_MASK;
    p[2] = value;
}

void vgpu_emit_srm(struct vgpu_cmdbuf *cb, uint32_t reg, uint64_t gm)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_MI_SRM_LEN);
    if (!p)
        return;
    p[0] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    p[GEN9_MI_RM_DW_REG] = reg & GEN9_MI_REG_OFFSET_MASK;
    p[GEN9_MI_RM_DW_ADDR_LO] = addr_lo(gm) & GEN9_MI_SDI_ADDR_MASK;
    p[GEN9_MI_RM_DW_ADDR_HI] = addr_hi(gm);
}

void vgpu_emit_bb_start(struct vgpu_cmdbuf *cb, uint64_t gm, bool second_level)
{
    uint32_t *p = vgpu_cmd_reserve(cb, GEN9_MI_BATCH_BUFFER_START_LEN);
    if (!p)
        return;
    p[0] = GEN9_MI_BATCH_BUFFER_START | (second_level ? GEN9_MI_BB_START_SECOND_LEVEL : 0u);
    p[GEN9_MI_BB_START_DW_ADDR_LO] = addr_lo(gm) & GEN9_MI_BB_START_ADDR_MASK;
    p[GEN9_MI_BB_START_DW_ADDR_HI] = addr_hi(gm);
}

void vgpu_emit_bb_end(struct vgpu_cmdbuf *cb)
{
    uint32_t *p = vgpu_cmd_reserve(cb, 1);
    if (p)
        p[0] = GEN9_MI_BATCH_BUFFER_END;
}

uint64_t vgpu_blit_est_ns(uint64_t pixels)
{
    return EST_BLIT_NS + pixels * EST_PIXEL_PS / 1000u;
}
