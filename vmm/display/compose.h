/* Composing the kiosk wall: one guest picture scaled (nearest neighbour) onto its tile of the
 * wall surface, or the "no signal" pattern when there is no picture to show.
 *
 * The tile is exactly the guest's picture, scaled to the tile's size (no border, no label).
 * Scaling samples pixel centres: destination column dx of a tile `dw` wide shows source column
 * (2*dx + 1) * sw / (2*dw) (integer division), rows likewise; 1:1 is an exact copy.  The work
 * is row at a time: each needed source row is read once through the image's callback (only
 * the columns the visible part of the tile uses), then its columns are picked with a table
 * computed once per tile; consecutive destination rows that show the same source row (upscaling)
 * reuse the row already built.
 *
 * A tile that reaches past the wall's edge is clipped, not shrunk: the picture keeps its scale
 * and loses what falls outside. */
#ifndef TESSERA_VMM_DISPLAY_COMPOSE_H
#define TESSERA_VMM_DISPLAY_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/display/image.h"

/* The "no signal" pattern (see display_nosignal_pixel). */
#define DISPLAY_NOSIGNAL_BG 0x00202020u /* dark grey */
#define DISPLAY_NOSIGNAL_FG 0x00707070u /* the lighter bar across the middle */

/* The surface composed onto: XRGB8888 in ordinary memory. */
struct display_surface {
    uint32_t *pixels;       /* the top-left pixel */
    uint32_t width, height; /* pixels */
    uint32_t pitch;         /* bytes from one row to the next: a multiple of 4, >= width * 4 */
    uint8_t *dirty_rows;    /* optional, `height` flags: composing sets [y] = 1 when it changed
                                 * row y (so only changed rows need copying on to the screen) */
};

/* A rectangle on the surface, origin top left. */
struct display_rect {
    uint32_t x, y, width, height;
};

/* Scratch rows and the column table, grown as needed and reused from tile to tile.  Zero it
 * before the first use; display_composer_free releases it. */
struct display_composer {
    uint32_t *src_row; /* one source row (the used columns) */
    size_t src_cap;
    uint32_t *out_row; /* one destination row, before it is compared and stored */
    size_t out_cap;
    uint32_t *xmap; /* visible destination column -> source column */
    size_t xmap_cap;
};

/* What display_compose_tile drew. */
enum display_tile_result {
    DISPLAY_TILE_PICTURE = 0,      /* the source's picture */
    DISPLAY_TILE_NO_SOURCE,        /* no signal: the caller had no picture (src NULL) */
    DISPLAY_TILE_BAD_SOURCE,       /* no signal: the source's geometry is not sane */
    DISPLAY_TILE_READ_FAILED,      /* no signal: the read callback failed */
    DISPLAY_TILE_NO_MEMORY,        /* no signal: the scratch rows could not be allocated */
    DISPLAY_TILE_OUTSIDE,          /* nothing drawn: the tile lies wholly outside the surface */
    DISPLAY_TILE_REFUSED,          /* no signal: the vGPU refused the surface the guest named
                                     * (the caller's verdict; display_compose_tile never says it) */
    DISPLAY_TILE_BAD_SURFACE = -1, /* nothing drawn: the surface or tile is not sane */
};

/* Draws `src` (NULL: no picture) scaled onto `tile` of `dst`.  A read that fails part way
 * leaves the whole visible tile showing "no signal", never half a picture. */
enum display_tile_result display_compose_tile(struct display_composer *c,
                                              const struct display_surface *dst,
                                              const struct display_rect *tile,
                                              const struct display_image *src);

/* The same for the tile's rows [first_row, first_row + rows) only (those on the surface): a tile drawn
 * in bands, one per call, so that what else needs the CPU (or the hypervisor's lock) waits for
 * one band, not a whole tile.  A read that fails leaves the band showing "no signal"; the
 * caller keeps the rest of the tile whole (vmm/display/wall.c). */
enum display_tile_result display_compose_band(struct display_composer *c,
                                              const struct display_surface *dst,
                                              const struct display_rect *tile,
                                              const struct display_image *src, uint32_t first_row,
                                              uint32_t rows);

/* Fills the visible part of `tile` with the no-signal pattern (c may be NULL: no scratch is
 * used then, only slower).  Returns DISPLAY_TILE_NO_SOURCE when it drew. */
enum display_tile_result display_draw_nosignal(struct display_composer *c,
                                               const struct display_surface *dst,
                                               const struct display_rect *tile);

/* The no-signal pattern's pixel (x, y) of a w x h tile: DISPLAY_NOSIGNAL_BG, except a bar of
 * DISPLAY_NOSIGNAL_FG max(1, h/8) rows tall starting at row (h - that) / 2, spanning columns
 * w/8 .. w - w/8 - 1.  Rows repeat in bands, so a screenshot of it stays short. */
uint32_t display_nosignal_pixel(uint32_t w, uint32_t h, uint32_t x, uint32_t y);

/* The source coordinate destination coordinate `d` of `dlen` shows, for a source `slen` long. */
uint32_t display_scale_coord(uint32_t d, uint32_t dlen, uint32_t slen);

/* A short name for a result ("picture", "no source", "read failed", ...). */
const char *display_tile_result_name(enum display_tile_result r);

void display_composer_free(struct display_composer *c);

#endif
