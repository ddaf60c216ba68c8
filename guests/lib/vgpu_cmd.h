/* Command builders for the blitter: exactly the encodings of drivers/igpu/gen9_cmd.h that the
 * command scanner's blitter table accepts (docs/scanner.md), GGTT addressed, 32 bpp linear.
 * Pure (no hardware access): vgpu_cmd.c also compiles hosted, so a unit test can run what it
 * builds through the scanner.
 *
 * A builder appends to a `struct vgpu_cmdbuf`; when the buffer is full it appends nothing and
 * sets `overflow`, so a caller checks once at the end. */
#ifndef TESSERA_GUESTS_LIB_VGPU_CMD_H
#define TESSERA_GUESTS_LIB_VGPU_CMD_H

#include <stdbool.h>
#include <stdint.h>

struct vgpu_cmdbuf {
    uint32_t *dw;
    uint32_t n, cap; /* dwords written, capacity */
    bool overflow;
};

static inline void vgpu_cmdbuf_init(struct vgpu_cmdbuf *cb, uint32_t *dw, uint32_t cap)
{
    cb->dw = dw;
    cb->n = 0;
    cb->cap = cap;
    cb->overflow = false;
}

/* Pointer to `n` fresh dwords at the end of cb, or NULL (and overflow set). */
uint32_t *vgpu_cmd_reserve(struct vgpu_cmdbuf *cb, uint32_t n);

void vgpu_emit_noop(struct vgpu_cmdbuf *cb);
/* Solid fill of the rectangle [x1, x2) x [y1, y2) of the surface at dst_gm (pitch in bytes). */
void vgpu_emit_color_blt(struct vgpu_cmdbuf *cb, uint64_t dst_gm, uint32_t dst_pitch, uint32_t x1,
                         uint32_t y1, uint32_t x2, uint32_t y2, uint32_t color);
/* Copy of a w x h rectangle from (sx, sy) of the source surface to (dx, dy) of the
 * destination. */
void vgpu_emit_copy_blt(struct vgpu_cmdbuf *cb, uint64_t dst_gm, uint32_t dst_pitch, uint32_t dx,
                        uint32_t dy, uint64_t src_gm, uint32_t src_pitch, uint32_t sx, uint32_t sy,
                        uint32_t w, uint32_t h);
/* MI_STORE_DATA_IMM of one dword to gm (4-byte aligned). */
void vgpu_emit_store_dword(struct vgpu_cmdbuf *cb, uint64_t gm, uint32_t value);
/* MI_FLUSH_DW: waits for the blitter's writes, then stores one dword to gm (8-byte aligned,
 * bit 5 clear); the i915 way to end a blitter request (gen8_emit_fini_breadcrumb_xcs). */
void vgpu_emit_flush_store(struct vgpu_cmdbuf *cb, uint64_t gm, uint32_t value);
/* MI_LOAD_REGISTER_IMM of one register. */
void vgpu_emit_lri(struct vgpu_cmdbuf *cb, uint32_t reg, uint32_t value);
/* MI_STORE_REGISTER_MEM: the register's value to gm (4-byte aligned). */
void vgpu_emit_srm(struct vgpu_cmdbuf *cb, uint32_t reg, uint64_t gm);
/* MI_BATCH_BUFFER_START of a batch at gm (GGTT); `second_level` from inside a batch calls
 * instead of chaining. */
void vgpu_emit_bb_start(struct vgpu_cmdbuf *cb, uint64_t gm, bool second_level);
void vgpu_emit_bb_end(struct vgpu_cmdbuf *cb);

/* The estimated GPU time of one XY blit of `pixels` pixels at the model's default cost (for
 * sizing workloads: 200 ns per blit plus 0.25 ns per pixel, drivers/igpu/model/model_core.c;
 * the real GPU is of the same order). */
uint64_t vgpu_blit_est_ns(uint64_t pixels);

#endif
