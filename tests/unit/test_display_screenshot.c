/* The screenshot text format (vmm/display/screenshot.c): encode in C, decode with the small
 * strict decoder below (written from the grammar in screenshot.h), compare pixels and CRC;
 * repeats and runs keep flat pictures short; failures end with an abort line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/display/pixel_crc.h"
#include "vmm/display/screenshot.h"

/* The writer's output, kept as one text with '\n' after each line. */
struct text {
    char *s;
    size_t len, cap;
    unsigned lines, refuse_after; /* refuse the line numbered refuse_after (1-based); 0 = never */
};

static bool collect(void *ctx, const char *line, size_t len)
{
    struct text *t = ctx;
    if (t->refuse_after && t->lines + 1 >= t->refuse_after)
        return false;
    assert_null(memchr(line, '\n', len));
    if (t->len + len + 2 > t->cap) {
        t->cap = (t->len + len + 2) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, line, len);
    t->len += len;
    t->s[t->len++] = '\n';
    t->s[t->len] = 0;
    t->lines++;
    return true;
}

/* ---- the decoder -------------------------------------------------------------------------- */

struct decoded {
    uint32_t w, h, crc;
    char subject[64];
    uint32_t *px;
};

static bool hex6(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 6; i++) {
        char c = p[i];
        if (c >= '0' && c <= '9')
            v = v << 4 | (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v << 4 | (uint32_t)(c - 'a' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

static bool count(const char **p, uint32_t *out)
{
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return false;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s++ - '0');
        if (v > 0xFFFFFFFFu)
            return false;
    }
    *p = s;
    *out = (uint32_t)v;
    return true;
}

/* Returns false on any deviation from the grammar or a CRC mismatch. */
static bool decode(const char *text, struct decoded *d)
{
    memset(d, 0, sizeof *d);
    char version[8];
    int used = 0;
    if (sscanf(text, "TSHOT %7s %u %u %63s%n", version, &d->w, &d->h, d->subject, &used) != 4 ||
        strcmp(version, "1") || text[used] != '\n' || !d->w || !d->h)
        return false;
    const char *p = text + used + 1;
    d->px = calloc((size_t)d->w * d->h, sizeof *d->px);
    uint32_t y = 0;
    while (strncmp(p, "TSHOT ", 6) != 0) {
        if (*p == '=') {
            p++;
            uint32_t n;
            if (!y || !count(&p, &n) || *p != '\n' || n > d->h - y)
                return false;
            for (uint32_t i = 0; i < n; i++, y++)
                memcpy(d->px + (size_t)y * d->w, d->px + (size_t)(y - 1) * d->w, d->w * 4);
        } else {
            if (y >= d->h)
                return false;
            uint32_t x = 0;
            for (;;) {
                uint32_t n = 1, c;
                const char *q = p;
                if (count(&q, &n) && *q == '*') {
                    if (n < 2)
                        return false;
                    p = q + 1;
                } else {
                    n = 1;
                }
                if (!hex6(p, &c) || n > d->w - x)
                    return false;
                p += 6;
                for (uint32_t i = 0; i < n; i++)
                    d->px[(size_t)y * d->w + x++] = c;
                if (*p == '\n')
                    break;
                if (*p++ != ' ')
                    return false;
            }
            if (x != d->w)
                return false;
            y++;
        }
        p++; /* the '\n' */
    }
    if (y != d->h || sscanf(p, "TSHOT END %8x%n", &d->crc, &used) != 1 || used != 18 ||
        p[used] != '\n' || p[used + 1] != 0)
        return false;
    uint32_t st = display_crc32_pixels(CRC32_IEEE_INIT, d->px, (size_t)d->w * d->h) ^
                  CRC32_IEEE_XOROUT;
    return st == d->crc;
}

/* ---- pictures ------------------------------------------------------------------------------ */

struct pic {
    uint32_t *px;
    uint32_t w, h, stride_px;
    struct display_mem mem;
    struct display_image img;
};

static void pic_init(struct pic *p, uint32_t w, uint32_t h, uint32_t pad)
{
    p->w = w;
    p->h = h;
    p->stride_px = w + pad;
    p->px = calloc((size_t)p->stride_px * h, 4);
    for (size_t i = 0; i < (size_t)p->stride_px * h; i++)
        p->px[i] = 0xEE000000u; /* junk in X, and in the padding */
    display_image_from_memory(&p->img, &p->mem, p->px, w, h, p->stride_px * 4);
}

static void put(struct pic *p, uint32_t x, uint32_t y, uint32_t c)
{
    p->px[y * p->stride_px + x] = c | 0x5A000000u;
}

static void assert_same(const struct pic *p, const struct decoded *d)
{
    assert_int_equal(d->w, p->w);
    assert_int_equal(d->h, p->h);
    for (uint32_t y = 0; y < p->h; y++)
        for (uint32_t x = 0; x < p->w; x++)
            assert_int_equal(d->px[(size_t)y * d->w + x], p->px[y * p->stride_px + x] & 0xFFFFFFu);
}

static void roundtrip_noise(void **state)
{
    (void)state;
    struct pic p;
    pic_init(&p, 37, 23, 5);
    uint32_t r = 12345;
    for (uint32_t y = 0; y < p.h; y++)
        for (uint32_t x = 0; x < p.w; x++) {
            r = r * 1103515245u + 12345u;
            /* few colours, so there are runs of every length, and a repeated pair of rows */
            put(&p, x, y, (r >> 16) % 3 ? 0x00FF8000u : (r >> 8) & 0xFFFFFFu);
        }
    memcpy(&p.px[6 * p.stride_px], &p.px[5 * p.stride_px], p.w * 4);
    struct text t = { 0 };
    struct display_shot_result res;
    assert_int_equal(display_screenshot_write(&p.img, "kiosk2", collect, &t, &res),
                     DISPLAY_SHOT_OK);
    struct decoded d;
    assert_true(decode(t.s, &d));
    assert_string_equal(d.subject, "kiosk2");
    assert_same(&p, &d);
    assert_int_equal(res.crc, d.crc);
    assert_int_equal(res.lines, t.lines);
    assert_int_equal(res.bytes + res.lines, t.len);
    uint32_t crc;
    assert_int_equal(display_screenshot_crc(&p.img, &crc), DISPLAY_SHOT_OK);
    assert_int_equal(crc, d.crc);
    assert_non_null(strstr(t.s, "\n=1\n")); /* row 6 repeats row 5 */
    free(d.px);
    free(t.s);
    free(p.px);
}

static void flat_wall_is_short(void **state)
{
    (void)state;
    /* A 1024x768 wall of four flat 512x384 tiles: 2 distinct rows, each followed by a repeat. */
    struct pic p;
    pic_init(&p, 1024, 768, 0);
    const uint32_t c[4] = { 0x102030u, 0xFF0000u, 0x00FF00u, 0x0000FFu };
    for (uint32_t y = 0; y < 768; y++)
        for (uint32_t x = 0; x < 1024; x++)
            put(&p, x, y, c[(y >= 384) * 2 + (x >= 512)]);
    struct text t = { 0 };
    struct display_shot_result res;
    assert_int_equal(display_screenshot_write(&p.img, "wall", collect, &t, &res), DISPLAY_SHOT_OK);
    struct decoded d;
    assert_true(decode(t.s, &d));
    assert_same(&p, &d);
    char expect[256];
    snprintf(
        expect, sizeof expect,
        "TSHOT 1 1024 768 wall\n512*102030 512*ff0000\n=383\n512*00ff00 512*0000ff\n=383\nTSHOT END %08x\n",
        d.crc);
    assert_string_equal(t.s, expect);
    assert_int_equal(t.lines, 6);
    free(d.px);
    free(t.s);
    free(p.px);
}

static void single_pixel_runs_and_one_row(void **state)
{
    (void)state;
    struct pic p;
    pic_init(&p, 3, 1, 0);
    put(&p, 0, 0, 0xABCDEFu);
    put(&p, 1, 0, 0x000001u);
    put(&p, 2, 0, 0x000001u);
    struct text t = { 0 };
    assert_int_equal(display_screenshot_write(&p.img, "x", collect, &t, NULL), DISPLAY_SHOT_OK);
    const uint8_t rgb[9] = { 0xAB, 0xCD, 0xEF, 0, 0, 1, 0, 0, 1 };
    char expect[128];
    snprintf(expect, sizeof expect, "TSHOT 1 3 1 x\nabcdef 2*000001\nTSHOT END %08x\n",
             crc32_ieee(rgb, sizeof rgb));
    assert_string_equal(t.s, expect);
    free(t.s);
    free(p.px);
}

static bool fail_row(void *ctx, uint64_t off, void *buf, size_t len)
{
    struct pic *p = ctx;
    if (off >= 3ull * p->stride_px * 4) /* rows 3 and later are gone */
        return false;
    return display_mem_read(&p->mem, off, buf, len);
}

static void read_failure_aborts(void **state)
{
    (void)state;
    struct pic p;
    pic_init(&p, 8, 8, 0);
    p.img.read = fail_row;
    p.img.ctx = &p;
    struct text t = { 0 };
    struct display_shot_result res;
    assert_int_equal(display_screenshot_write(&p.img, "wall", collect, &t, &res),
                     DISPLAY_SHOT_EREAD);
    assert_non_null(strstr(t.s, "\nTSHOT ABORT "));
    assert_null(strstr(t.s, "TSHOT END"));
    struct decoded d;
    assert_false(decode(t.s, &d));
    free(d.px);
    uint32_t crc = 0;
    assert_int_equal(display_screenshot_crc(&p.img, &crc), DISPLAY_SHOT_EREAD);
    free(t.s);
    free(p.px);
}

static void refused_output_stops(void **state)
{
    (void)state;
    struct pic p;
    pic_init(&p, 4, 4, 0);
    for (uint32_t y = 0; y < 4; y++)
        put(&p, 0, y, y); /* every row differs */
    struct text t = { .refuse_after = 3 };
    assert_int_equal(display_screenshot_write(&p.img, "wall", collect, &t, NULL),
                     DISPLAY_SHOT_EOUTPUT);
    assert_int_equal(t.lines, 2);
    free(t.s);
    free(p.px);
}

static void bad_arguments(void **state)
{
    (void)state;
    struct pic p;
    pic_init(&p, 4, 4, 0);
    struct text t = { 0 };
    assert_int_equal(display_screenshot_write(&p.img, "two words", collect, &t, NULL),
                     DISPLAY_SHOT_EINVAL);
    assert_int_equal(display_screenshot_write(&p.img, "", collect, &t, NULL), DISPLAY_SHOT_EINVAL);
    assert_int_equal(display_screenshot_write(&p.img, NULL, collect, &t, NULL),
                     DISPLAY_SHOT_EINVAL);
    char longname[80];
    memset(longname, 'a', sizeof longname - 1);
    longname[79] = 0;
    assert_int_equal(display_screenshot_write(&p.img, longname, collect, &t, NULL),
                     DISPLAY_SHOT_EINVAL);
    longname[63] = 0;
    assert_true(display_shot_subject_ok(longname));
    struct display_image bad = p.img;
    bad.stride = 8;
    assert_int_equal(display_screenshot_write(&bad, "wall", collect, &t, NULL),
                     DISPLAY_SHOT_EINVAL);
    uint32_t crc;
    assert_int_equal(display_screenshot_crc(&bad, &crc), DISPLAY_SHOT_EINVAL);
    assert_int_equal(t.lines, 0);
    free(p.px);
}

static void crc_line(void **state)
{
    (void)state;
    char buf[128];
    assert_int_equal(display_screenshot_crc_line(buf, sizeof buf, 640, 480, "kiosk0", 0xCBF43926u),
                     33);
    assert_string_equal(buf, "TSHOT CRC 640 480 kiosk0 cbf43926");
    assert_int_equal(display_screenshot_crc_line(buf, sizeof buf, 1, 1, "a b", 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_noise),
        cmocka_unit_test(flat_wall_is_short),
        cmocka_unit_test(single_pixel_runs_and_one_row),
        cmocka_unit_test(read_failure_aborts),
        cmocka_unit_test(refused_output_stops),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(crc_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
