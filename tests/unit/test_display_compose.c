/* Composing one tile (vmm/display/compose.c): exact 1:1 copy, 2:1 downscale, upscale (integer
 * and not), clipping at the wall's edge, the no-signal pattern for a missing, bad or failing
 * source, rows read once each, and dirty-row tracking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/display/compose.h"

#define GUARD 0xDEADBEEFu /* what the surface holds where nothing may be drawn */

/* A source in memory, read through a callback that counts reads and can fail. */
struct src {
    uint32_t *px;
    uint32_t w, h, stride_px;
    unsigned reads, fail_at; /* the read numbered fail_at (1-based) fails; 0 = never */
    uint64_t max_end;        /* furthest byte read */
    struct display_image img;
};

static bool src_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    struct src *s = ctx;
    s->reads++;
    if (s->fail_at && s->reads >= s->fail_at)
        return false;
    uint64_t size = (uint64_t)s->stride_px * 4 * s->h;
    assert_true(off + len <= size);
    /* A read never crosses into the next row: the composer reads rows, not blocks. */
    assert_true(off / (s->stride_px * 4) == (off + len - 1) / (s->stride_px * 4));
    if (off + len > s->max_end)
        s->max_end = off + len;
    memcpy(buf, (uint8_t *)s->px + off, len);
    return true;
}

/* A w x h source whose pixel (x, y) is colour(x, y) with junk in the X byte, rows padded. */
static uint32_t colour(uint32_t x, uint32_t y)
{
    return (x * 0x010307u + y * 0x050100u + 0x000011u) & 0xFFFFFFu;
}

static struct src *src_new(uint32_t w, uint32_t h)
{
    struct src *s = calloc(1, sizeof *s);
    s->w = w;
    s->h = h;
    s->stride_px = w + 3;
    s->px = malloc((size_t)s->stride_px * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < s->stride_px; x++)
            s->px[y * s->stride_px + x] = x < w ? colour(x, y) | 0xA5000000u : 0x77777777u;
    s->img = (struct display_image){ w, h, s->stride_px * 4, src_read, s };
    return s;
}

static void src_free(struct src *s)
{
    free(s->px);
    free(s);
}

/* A surface of w x h with 2 guard columns beyond its width in every row. */
struct surf {
    uint32_t *buf;
    uint8_t dirty[64];
    struct display_surface s;
};

static void surf_init(struct surf *f, uint32_t w, uint32_t h, bool track)
{
    uint32_t pitch_px = w + 2;
    f->buf = malloc((size_t)pitch_px * h * 4);
    for (size_t i = 0; i < (size_t)pitch_px * h; i++)
        f->buf[i] = GUARD;
    memset(f->dirty, 0, sizeof f->dirty);
    f->s = (struct display_surface){ f->buf, w, h, pitch_px * 4, track ? f->dirty : NULL };
}

static uint32_t at(const struct surf *f, uint32_t x, uint32_t y)
{
    return f->buf[y * (f->s.pitch / 4) + x];
}

/* Every pixel outside the rectangle (and every guard pixel) still holds GUARD. */
static void assert_untouched_outside(const struct surf *f, uint32_t x0, uint32_t y0, uint32_t w,
                                     uint32_t h)
{
    for (uint32_t y = 0; y < f->s.height; y++)
        for (uint32_t x = 0; x < f->s.pitch / 4; x++)
            if (!(x >= x0 && x < x0 + w && y >= y0 && y < y0 + h && x < f->s.width))
                assert_int_equal(at(f, x, y), GUARD);
}

static void assert_nosignal(const struct surf *f, const struct display_rect *t, uint32_t vis_w,
                            uint32_t vis_h)
{
    for (uint32_t y = 0; y < vis_h; y++)
        for (uint32_t x = 0; x < vis_w; x++)
            assert_int_equal(at(f, t->x + x, t->y + y),
                             display_nosignal_pixel(t->width, t->height, x, y));
}

static void exact_copy(void **state)
{
    (void)state;
    struct composer_holder {
        struct display_composer c;
    } h = { 0 };
    struct src *s = src_new(5, 4);
    struct surf f;
    surf_init(&f, 12, 8, false);
    struct display_rect t = { 3, 2, 5, 4 };
    assert_int_equal(display_compose_tile(&h.c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 5; x++)
            assert_int_equal(at(&f, 3 + x, 2 + y), colour(x, y)); /* X byte cleared */
    assert_untouched_outside(&f, 3, 2, 5, 4);
    assert_int_equal(s->reads, 4); /* one read per row */
    src_free(s);
    free(f.buf);
    display_composer_free(&h.c);
}

/* A tile drawn in bands of 3 rows, scaled and clipped at the wall's bottom edge, ends up exactly
 * as drawn whole; a band past the visible rows draws nothing; a read that fails in a band leaves
 * that band, and only it, showing the pattern. */
static void bands_make_the_whole_tile(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(9, 14);
    struct surf whole, banded;
    surf_init(&whole, 12, 10, false);
    surf_init(&banded, 12, 10, false);
    struct display_rect t = { 2, 3, 6, 11 }; /* 7 rows on the surface */
    assert_int_equal(display_compose_tile(&c, &whole.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (uint32_t first = 0; first < 7; first += 3)
        assert_int_equal(display_compose_band(&c, &banded.s, &t, &s->img, first, 3),
                         DISPLAY_TILE_PICTURE);
    assert_memory_equal(whole.buf, banded.buf, (size_t)(whole.s.pitch / 4) * 10 * 4);
    unsigned reads = s->reads;
    assert_int_equal(display_compose_band(&c, &banded.s, &t, &s->img, 9, 3), DISPLAY_TILE_PICTURE);
    assert_int_equal(s->reads, reads);
    assert_memory_equal(whole.buf, banded.buf, (size_t)(whole.s.pitch / 4) * 10 * 4);

    s->fail_at = s->reads + 2; /* the band's second row */
    assert_int_equal(display_compose_band(&c, &banded.s, &t, &s->img, 3, 3),
                     DISPLAY_TILE_READ_FAILED);
    for (uint32_t y = 0; y < 7; y++)
        for (uint32_t x = 0; x < 6; x++) {
            uint32_t want = y >= 3 && y < 6 ? display_nosignal_pixel(6, 11, x, y)
                                            : at(&whole, 2 + x, 3 + y);
            assert_int_equal(at(&banded, 2 + x, 3 + y), want);
        }
    assert_untouched_outside(&banded, 2, 3, 6, 7);
    src_free(s);
    free(whole.buf);
    free(banded.buf);
    display_composer_free(&c);
}

static void downscale_two_to_one(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(8, 6);
    struct surf f;
    surf_init(&f, 4, 3, false);
    struct display_rect t = { 0, 0, 4, 3 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 4; x++)
            assert_int_equal(at(&f, x, y), colour(2 * x + 1, 2 * y + 1)); /* pixel centres */
    assert_int_equal(s->reads, 3); /* only the rows shown are read */
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void upscale(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(3, 2);
    struct surf f;
    surf_init(&f, 6, 4, false);
    struct display_rect t = { 0, 0, 6, 4 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 6; x++)
            assert_int_equal(at(&f, x, y), colour(x / 2, y / 2));
    assert_int_equal(s->reads, 2); /* each source row read once, reused */
    src_free(s);
    free(f.buf);

    /* Not an integer ratio: 3 -> 7 columns, 2 -> 5 rows; every source pixel appears and the
     * mapping is monotonic. */
    s = src_new(3, 2);
    surf_init(&f, 7, 5, false);
    t = (struct display_rect){ 0, 0, 7, 5 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    const uint32_t xs[7] = { 0, 0, 1, 1, 1, 2, 2 }, ys[5] = { 0, 0, 1, 1, 1 };
    for (uint32_t y = 0; y < 5; y++)
        for (uint32_t x = 0; x < 7; x++)
            assert_int_equal(at(&f, x, y), colour(xs[x], ys[y]));
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void scale_coord_bounds(void **state)
{
    (void)state;
    assert_int_equal(display_scale_coord(0, 1024, 1024), 0);
    assert_int_equal(display_scale_coord(1023, 1024, 1024), 1023);
    assert_int_equal(display_scale_coord(511, 512, 1024), 1023);
    assert_int_equal(display_scale_coord(0, 512, 1024), 1);
    assert_int_equal(display_scale_coord(16383, 16384, 1), 0);
    assert_int_equal(display_scale_coord(0, 1, 16384), 8192);
}

static void failing_read_shows_nosignal(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(16, 16);
    struct surf f;
    surf_init(&f, 20, 20, false);
    struct display_rect t = { 2, 1, 16, 16 };
    s->fail_at = 5; /* four rows drawn, then the guest's page goes away */
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_READ_FAILED);
    assert_nosignal(&f, &t, 16, 16); /* no half picture */
    assert_untouched_outside(&f, 2, 1, 16, 16);
    /* The pattern is what the header says: a bar of h/8 = 2 rows at row 7, columns 2..13. */
    assert_int_equal(at(&f, 2 + 0, 1 + 7), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(at(&f, 2 + 2, 1 + 7), DISPLAY_NOSIGNAL_FG);
    assert_int_equal(at(&f, 2 + 13, 1 + 8), DISPLAY_NOSIGNAL_FG);
    assert_int_equal(at(&f, 2 + 14, 1 + 8), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(at(&f, 2 + 5, 1 + 6), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(at(&f, 2 + 5, 1 + 9), DISPLAY_NOSIGNAL_BG);
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void missing_or_bad_source_shows_nosignal(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct surf f;
    surf_init(&f, 8, 8, false);
    struct display_rect t = { 0, 0, 8, 8 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, NULL), DISPLAY_TILE_NO_SOURCE);
    assert_nosignal(&f, &t, 8, 8);

    struct src *s = src_new(4, 4);
    s->img.stride = 12; /* less than a row of 4 pixels */
    free(f.buf);
    surf_init(&f, 8, 8, false);
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_BAD_SOURCE);
    assert_nosignal(&f, &t, 8, 8);
    assert_int_equal(s->reads, 0);
    s->img.stride = 16;
    s->img.width = 0;
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_BAD_SOURCE);
    s->img.width = 4;
    s->img.read = NULL;
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_BAD_SOURCE);
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void clipped_at_the_edge(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(8, 8);
    struct surf f;
    surf_init(&f, 10, 10, false);
    /* A 16x16 tile (2x upscale) at (6, 7): only 4x3 of it is on the surface; the picture keeps
     * its scale and loses the rest. */
    struct display_rect t = { 6, 7, 16, 16 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 4; x++)
            assert_int_equal(at(&f, 6 + x, 7 + y), colour(x / 2, y / 2));
    assert_untouched_outside(&f, 6, 7, 4, 3);
    /* Only the columns shown were read (source columns 0..1 of rows 0..1). */
    assert_int_equal(s->reads, 2);
    assert_true(s->max_end <= (uint64_t)1 * s->stride_px * 4 + 2 * 4);

    /* Clipped no-signal: same pattern, cut. */
    free(f.buf);
    surf_init(&f, 10, 10, false);
    assert_int_equal(display_compose_tile(&c, &f.s, &t, NULL), DISPLAY_TILE_NO_SOURCE);
    assert_nosignal(&f, &t, 4, 3);
    assert_untouched_outside(&f, 6, 7, 4, 3);

    /* Wholly outside: nothing drawn, nothing read. */
    unsigned reads = s->reads;
    struct display_rect out = { 10, 0, 4, 4 };
    assert_int_equal(display_compose_tile(&c, &f.s, &out, &s->img), DISPLAY_TILE_OUTSIDE);
    assert_int_equal(s->reads, reads);
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void bad_surface_is_refused(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct surf f;
    surf_init(&f, 8, 8, false);
    struct display_rect t = { 0, 0, 8, 8 };
    struct display_surface bad = f.s;
    bad.pitch = 30; /* not a whole number of pixels */
    assert_int_equal(display_compose_tile(&c, &bad, &t, NULL), DISPLAY_TILE_BAD_SURFACE);
    bad = f.s;
    bad.pitch = 28; /* shorter than a row */
    assert_int_equal(display_compose_tile(&c, &bad, &t, NULL), DISPLAY_TILE_BAD_SURFACE);
    struct display_rect empty = { 0, 0, 0, 8 };
    assert_int_equal(display_compose_tile(&c, &f.s, &empty, NULL), DISPLAY_TILE_BAD_SURFACE);
    assert_untouched_outside(&f, 0, 0, 0, 0);
    free(f.buf);
}

static void dirty_rows_mark_only_changes(void **state)
{
    (void)state;
    struct display_composer c = { 0 };
    struct src *s = src_new(6, 6);
    struct surf f;
    surf_init(&f, 6, 6, true);
    struct display_rect t = { 0, 0, 6, 6 };
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (int y = 0; y < 6; y++)
        assert_int_equal(f.dirty[y], 1);
    memset(f.dirty, 0, sizeof f.dirty);
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (int y = 0; y < 6; y++)
        assert_int_equal(f.dirty[y], 0); /* same picture: nothing to copy to the screen */
    s->px[4 * s->stride_px + 2] = 0x123456u;
    assert_int_equal(display_compose_tile(&c, &f.s, &t, &s->img), DISPLAY_TILE_PICTURE);
    for (int y = 0; y < 6; y++)
        assert_int_equal(f.dirty[y], y == 4);
    assert_int_equal(at(&f, 2, 4), 0x123456u);
    /* Switching to no signal dirties every row; again, none. */
    memset(f.dirty, 0, sizeof f.dirty);
    display_compose_tile(&c, &f.s, &t, NULL);
    for (int y = 0; y < 6; y++)
        assert_int_equal(f.dirty[y], 1);
    memset(f.dirty, 0, sizeof f.dirty);
    display_draw_nosignal(&c, &f.s, &t);
    for (int y = 0; y < 6; y++)
        assert_int_equal(f.dirty[y], 0);
    src_free(s);
    free(f.buf);
    display_composer_free(&c);
}

static void nosignal_pattern_small_tiles(void **state)
{
    (void)state;
    /* A tile shorter than 8 rows still gets a one-row bar in its middle. */
    assert_int_equal(display_nosignal_pixel(16, 3, 8, 1), DISPLAY_NOSIGNAL_FG);
    assert_int_equal(display_nosignal_pixel(16, 3, 8, 0), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(display_nosignal_pixel(16, 3, 8, 2), DISPLAY_NOSIGNAL_BG);
    /* 512x384: bar rows 168..215, columns 64..447. */
    assert_int_equal(display_nosignal_pixel(512, 384, 64, 168), DISPLAY_NOSIGNAL_FG);
    assert_int_equal(display_nosignal_pixel(512, 384, 447, 215), DISPLAY_NOSIGNAL_FG);
    assert_int_equal(display_nosignal_pixel(512, 384, 63, 168), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(display_nosignal_pixel(512, 384, 448, 200), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(display_nosignal_pixel(512, 384, 100, 167), DISPLAY_NOSIGNAL_BG);
    assert_int_equal(display_nosignal_pixel(512, 384, 100, 216), DISPLAY_NOSIGNAL_BG);
}

static void nosignal_both_paths_agree(void **state)
{
    (void)state;
    /* The row-kind fast path and the pixel-by-pixel path (no scratch) draw the same pattern, at
     * every small size (bar at the top for the tiniest tiles). */
    struct display_composer c = { 0 };
    for (uint32_t h = 1; h <= 20; h++) {
        for (uint32_t w = 1; w <= 20; w += 3) {
            struct surf a, b;
            surf_init(&a, 24, 24, true);
            surf_init(&b, 24, 24, true);
            struct display_rect t = { 2, 3, w, h };
            assert_int_equal(display_draw_nosignal(&c, &a.s, &t), DISPLAY_TILE_NO_SOURCE);
            assert_int_equal(display_draw_nosignal(NULL, &b.s, &t), DISPLAY_TILE_NO_SOURCE);
            assert_nosignal(&a, &t, w, h);
            assert_nosignal(&b, &t, w, h);
            assert_memory_equal(a.dirty, b.dirty, sizeof a.dirty);
            free(a.buf);
            free(b.buf);
        }
    }
    display_composer_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_copy),
        cmocka_unit_test(bands_make_the_whole_tile),
        cmocka_unit_test(downscale_two_to_one),
        cmocka_unit_test(upscale),
        cmocka_unit_test(scale_coord_bounds),
        cmocka_unit_test(failing_read_shows_nosignal),
        cmocka_unit_test(missing_or_bad_source_shows_nosignal),
        cmocka_unit_test(clipped_at_the_edge),
        cmocka_unit_test(bad_surface_is_refused),
        cmocka_unit_test(dirty_rows_mark_only_changes),
        cmocka_unit_test(nosignal_pattern_small_tiles),
        cmocka_unit_test(nosignal_both_paths_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
