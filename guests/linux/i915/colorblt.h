/* What i915-colorblt submits and what it expects back, shared by the program
 * (guests/linux/i915/i915-colorblt.c, in the i915 guest) and its host test against Tessera's
 * software Gen9 model (tests/unit/test_igpu_colorblt.c), so both run the same batch and the
 * same pixel check.  Command encodings are gen9_cmd.h's. */
#ifndef TESSERA_GUESTS_LINUX_I915_COLORBLT_H
#define TESSERA_GUESTS_LINUX_I915_COLORBLT_H

#include <stdint.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"

#define COLORBLT_BPP            4u /* GEN9_BR13_DEPTH_32 */
#define COLORBLT_BACKGROUND_TAG 0x5A000000u
/* The batch: XY_COLOR_BLT, MI_BATCH_BUFFER_END, and MI_NOOPs to a whole number of qwords
 * (i915 refuses a batch_len that is not a multiple of 8). */
#define COLORBLT_BATCH_DWORDS ((GEN9_XY_COLOR_BLT_LEN + 1u + 1u) & ~1u)
/* Byte offset in the batch of the destination address, which the kernel's relocation
 * writes (64 bits: DST_LO then DST_HI). */
#define COLORBLT_RELOC_OFFSET (GEN9_XY_COLOR_BLT_DW_DST_LO * 4u)

/* The rectangle the blit fills, (x2, y2) exclusive as in BR23: an eighth of the buffer in
 * from each edge, so the pixels on all four sides must stay as the CPU wrote them. */
struct colorblt_rect {
    unsigned x1, y1, x2, y2;
};

static inline struct colorblt_rect colorblt_rect_for(unsigned width, unsigned height)
{
    return (struct colorblt_rect){ width / 8, height / 8, width - width / 8, height - height / 8 };
}

/* The background the CPU paints first: every pixel different, none equal to a colour whose
 * top byte is not the tag. */
static inline uint32_t colorblt_background(unsigned x, unsigned y)
{
    return COLORBLT_BACKGROUND_TAG | (y << 12) | x;
}

static inline int colorblt_inside(const struct colorblt_rect *r, unsigned x, unsigned y)
{
    return x >= r->x1 && x < r->x2 && y >= r->y1 && y < r->y2;
}

/* Writes the batch into b (COLORBLT_BATCH_DWORDS dwords) for a linear 32 bpp buffer at
 * graphics address dst (what the relocation will write; 0 before it does). */
static inline unsigned colorblt_batch(uint32_t *b, const struct colorblt_rect *r, unsigned pitch,
                                      uint32_t colour, uint64_t dst)
{
    memset(b, 0, COLORBLT_BATCH_DWORDS * sizeof(*b));
    b[0] = GEN9_XY_COLOR_BLT;
    b[GEN9_XY_COLOR_BLT_DW_BR13] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) |
                                   (pitch & GEN9_BR13_PITCH_MASK);
    b[GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT] = GEN9_BLT_COORD(r->x1, r->y1);
    b[GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT] = GEN9_BLT_COORD(r->x2, r->y2);
    b[GEN9_XY_COLOR_BLT_DW_DST_LO] = (uint32_t)dst;
    b[GEN9_XY_COLOR_BLT_DW_DST_HI] = (uint32_t)(dst >> 32);
    b[GEN9_XY_COLOR_BLT_DW_COLOR] = colour;
    b[GEN9_XY_COLOR_BLT_LEN] = GEN9_MI_BATCH_BUFFER_END;
    for (unsigned i = GEN9_XY_COLOR_BLT_LEN + 1u; i < COLORBLT_BATCH_DWORDS; i++)
        b[i] = GEN9_MI_NOOP;
    return COLORBLT_BATCH_DWORDS;
}

/* The pixel check: counts the pixels inside the rectangle that are not the colour and those
 * around it that are not the background; calls bad() for each wrong one (may be NULL). */
struct colorblt_result {
    unsigned long inside, outside, wrong_inside, wrong_outside;
};

static inline struct colorblt_result colorblt_check(
    const uint32_t *px, unsigned width, unsigned height, const struct colorblt_rect *r,
    uint32_t colour,
    void (*bad)(void *ctx, unsigned x, unsigned y, int inside, uint32_t got, uint32_t want),
    void *ctx)
{
    struct colorblt_result res = { 0, 0, 0, 0 };
    for (unsigned y = 0; y < height; y++) {
        for (unsigned x = 0; x < width; x++) {
            int in = colorblt_inside(r, x, y);
            uint32_t want = in ? colour : colorblt_background(x, y), got = px[y * width + x];
            in ? res.inside++ : res.outside++;
            if (got == want)
                continue;
            in ? res.wrong_inside++ : res.wrong_outside++;
            if (bad)
                bad(ctx, x, y, in, got, want);
        }
    }
    return res;
}

#endif /* TESSERA_GUESTS_LINUX_I915_COLORBLT_H */
