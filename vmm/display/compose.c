#include "vmm/display/compose.h"

#include <stdlib.h>
#include <string.h>

uint32_t display_scale_coord(uint32_t d, uint32_t dlen, uint32_t slen)
{
    if (!dlen)
        return 0;
    uint64_t s = ((2 * (uint64_t)d + 1) * slen) / (2 * (uint64_t)dlen);
    return s < slen ? (uint32_t)s : (slen ? slen - 1 : 0);
}

uint32_t display_nosignal_pixel(uint32_t w, uint32_t h, uint32_t x, uint32_t y)
{
    uint32_t bar_h = h / 8 ? h / 8 : 1;
    uint32_t bar_y = (h - bar_h) / 2;
    bool in_bar = y >= bar_y && y < bar_y + bar_h && x >= w / 8 && x < w - w / 8;
    return in_bar ? DISPLAY_NOSIGNAL_FG : DISPLAY_NOSIGNAL_BG;
}

const char *display_tile_result_name(enum display_tile_result r)
{
    switch (r) {
    case DISPLAY_TILE_PICTURE:
        return "picture";
    case DISPLAY_TILE_NO_SOURCE:
        return "no source";
    case DISPLAY_TILE_BAD_SOURCE:
        return "bad source geometry";
    case DISPLAY_TILE_READ_FAILED:
        return "read failed";
    case DISPLAY_TILE_NO_MEMORY:
        return "no memory";
    case DISPLAY_TILE_OUTSIDE:
        return "outside the wall";
    case DISPLAY_TILE_REFUSED:
        return "bad surface";
    case DISPLAY_TILE_BAD_SURFACE:
        return "bad wall surface";
    }
    return "?";
}

void display_composer_free(struct display_composer *c)
{
    free(c->src_row);
    free(c->out_row);
    free(c->xmap);
    memset(c, 0, sizeof *c);
}

static bool grow(uint32_t **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    uint32_t *p = realloc(*buf, n * sizeof **buf);
    if (!p)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

/* The part of the tile on the surface; false if none of it is (or the arguments are bad). */
struct visible {
    uint32_t w, h; /* visible size; the tile's top-left corner is always on the surface */
    uint32_t y0;   /* the first of the rows y0 .. h - 1 drawn (a band of them) */
};

static enum display_tile_result clip(const struct display_surface *dst,
                                     const struct display_rect *tile, struct visible *v)
{
    v->y0 = 0;
    if (!dst || !dst->pixels || !tile || dst->pitch % DISPLAY_BYTES_PER_PIXEL ||
        (uint64_t)dst->pitch < (uint64_t)dst->width * DISPLAY_BYTES_PER_PIXEL || !tile->width ||
        !tile->height)
        return DISPLAY_TILE_BAD_SURFACE;
    if (tile->x >= dst->width || tile->y >= dst->height)
        return DISPLAY_TILE_OUTSIDE;
    v->w = dst->width - tile->x < tile->width ? dst->width - tile->x : tile->width;
    v->h = dst->height - tile->y < tile->height ? dst->height - tile->y : tile->height;
    return DISPLAY_TILE_PICTURE;
}

/* The visible rows [first, first + rows) of the tile, at most: v->y0 .. v->h - 1. */
static void band(struct visible *v, uint32_t first, uint32_t rows)
{
    uint32_t end = rows > v->h - (first < v->h ? first : v->h) ? v->h : first + rows;
    v->y0 = first < v->h ? first : v->h;
    v->h = end;
}

static uint32_t *row_at(const struct display_surface *dst, uint32_t x, uint32_t y)
{
    return (uint32_t *)((uint8_t *)dst->pixels + (size_t)y * dst->pitch) + x;
}

/* Four pixels as one SSE2 register, at any 4-byte alignment (GCC/clang vector extension: no
 * intrinsics header, and no memcpy call, which a freestanding build does not inline). */
typedef uint32_t pixel4 __attribute__((vector_size(16), aligned(4), may_alias));

/* Stores one built row with the X bytes cleared, marking the surface row dirty only if that
 * changed it.  One pass of 16-byte vectors that masks, compares and stores: the wall re-reads
 * every guest's picture each frame, so this loop is most of a frame's work (and under an
 * emulator every instruction counts). */
static void store_row(const struct display_surface *dst, uint32_t x, uint32_t y,
                      const uint32_t *row, uint32_t n)
{
    const pixel4 mask = { DISPLAY_RGB_MASK, DISPLAY_RGB_MASK, DISPLAY_RGB_MASK, DISPLAY_RGB_MASK };
    uint32_t *d = row_at(dst, x, y);
    const uint32_t *s = row, *vec_end = row + (n & ~7u), *end = row + n;
    pixel4 diff = { 0, 0, 0, 0 };
    for (; s < vec_end; s += 8, d += 8) { /* pointers, not indices: fewer instructions */
        pixel4 a0 = *(const pixel4 *)s & mask, a1 = *(const pixel4 *)(s + 4) & mask;
        pixel4 *d0 = (pixel4 *)d, *d1 = (pixel4 *)(d + 4);
        diff |= (a0 ^ *d0) | (a1 ^ *d1);
        *d0 = a0;
        *d1 = a1;
    }
    uint32_t tail = 0;
    for (; s < end; s++, d++) {
        uint32_t a = *s & DISPLAY_RGB_MASK;
        tail |= a ^ *d;
        *d = a;
    }
    bool changed = tail || diff[0] || diff[1] || diff[2] || diff[3];
    if (changed && dst->dirty_rows)
        dst->dirty_rows[y] = 1;
}

/* The no-signal pattern.  Its rows come in two kinds (with and without the bar), so each kind is
 * built once in the scratch row and stored like a picture row.  Without scratch memory (it is
 * also the answer to a failed allocation) it is drawn pixel by pixel. */
static void nosignal(struct display_composer *c, const struct display_surface *dst,
                     const struct display_rect *tile, const struct visible *v)
{
    if (c && grow(&c->out_row, &c->out_cap, v->w)) {
        uint32_t built = UINT32_MAX; /* which kind of row out_row holds: 1 = with the bar */
        uint32_t bar_h = tile->height / 8 ? tile->height / 8 : 1;
        uint32_t bar_y = (tile->height - bar_h) / 2;
        for (uint32_t y = v->y0; y < v->h; y++) {
            uint32_t kind = y >= bar_y && y < bar_y + bar_h;
            if (kind != built) {
                for (uint32_t x = 0; x < v->w; x++)
                    c->out_row[x] = display_nosignal_pixel(tile->width, tile->height, x, y);
                built = kind;
            }
            store_row(dst, tile->x, tile->y + y, c->out_row, v->w);
        }
        return;
    }
    for (uint32_t y = v->y0; y < v->h; y++) {
        uint32_t *d = row_at(dst, tile->x, tile->y + y);
        bool changed = false;
        for (uint32_t x = 0; x < v->w; x++) {
            uint32_t p = display_nosignal_pixel(tile->width, tile->height, x, y);
            if (d[x] != p) {
                d[x] = p;
                changed = true;
            }
        }
        if (changed && dst->dirty_rows)
            dst->dirty_rows[tile->y + y] = 1;
    }
}

enum display_tile_result display_draw_nosignal(struct display_composer *c,
                                               const struct display_surface *dst,
                                               const struct display_rect *tile)
{
    struct visible v;
    enum display_tile_result r = clip(dst, tile, &v);
    if (r != DISPLAY_TILE_PICTURE)
        return r;
    nosignal(c, dst, tile, &v);
    return DISPLAY_TILE_NO_SOURCE;
}

enum display_tile_result display_compose_tile(struct display_composer *c,
                                              const struct display_surface *dst,
                                              const struct display_rect *tile,
                                              const struct display_image *src)
{
    return display_compose_band(c, dst, tile, src, 0, UINT32_MAX);
}

enum display_tile_result display_compose_band(struct display_composer *c,
                                              const struct display_surface *dst,
                                              const struct display_rect *tile,
                                              const struct display_image *src, uint32_t first_row,
                                              uint32_t rows)
{
    struct visible v;
    enum display_tile_result r = clip(dst, tile, &v);
    if (r != DISPLAY_TILE_PICTURE)
        return r;
    band(&v, first_row, rows);
    if (!src)
        r = DISPLAY_TILE_NO_SOURCE;
    else if (!display_image_valid(src))
        r = DISPLAY_TILE_BAD_SOURCE;
    else if (!grow(&c->xmap, &c->xmap_cap, v.w) || !grow(&c->out_row, &c->out_cap, v.w))
        r = DISPLAY_TILE_NO_MEMORY;
    if (r != DISPLAY_TILE_PICTURE) {
        nosignal(c, dst, tile, &v);
        return r;
    }

    /* Columns: the table, and the span of source columns the visible part needs (the table is
     * monotonic, so its ends bound it). */
    for (uint32_t x = 0; x < v.w; x++)
        c->xmap[x] = display_scale_coord(x, tile->width, src->width);
    uint32_t first = c->xmap[0], span = c->xmap[v.w - 1] - first + 1;
    if (!grow(&c->src_row, &c->src_cap, span)) {
        nosignal(c, dst, tile, &v);
        return DISPLAY_TILE_NO_MEMORY;
    }
    bool identity = tile->width == src->width; /* 1:1 columns: read straight into the row */

    uint32_t built = UINT32_MAX; /* the source row out_row holds */
    for (uint32_t y = v.y0; y < v.h; y++) {
        uint32_t sy = display_scale_coord(y, tile->height, src->height);
        if (sy != built) {
            uint64_t off = (uint64_t)sy * src->stride + (uint64_t)first * DISPLAY_BYTES_PER_PIXEL;
            uint32_t *in = identity ? c->out_row : c->src_row;
            if (!src->read(src->ctx, off, in, (size_t)span * DISPLAY_BYTES_PER_PIXEL)) {
                nosignal(c, dst, tile, &v);
                return DISPLAY_TILE_READ_FAILED;
            }
            if (!identity) /* (store_row clears the X bytes) */
                for (uint32_t x = 0; x < v.w; x++)
                    c->out_row[x] = c->src_row[c->xmap[x] - first];
            built = sy;
        }
        store_row(dst, tile->x, tile->y + y, c->out_row, v.w);
    }
    return DISPLAY_TILE_PICTURE;
}
