#include "vmm/display/screenshot.h"

#include "vmm/display/pixel_crc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HEX[] = "0123456789abcdef";

bool display_shot_subject_ok(const char *s)
{
    if (!s || !*s)
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] <= ' ' || s[n] > '~' || n + 1 >= DISPLAY_SHOT_SUBJECT_MAX)
            return false;
    return true;
}

const char *display_shot_strerror(int rc)
{
    switch (rc) {
    case DISPLAY_SHOT_OK:
        return "ok";
    case DISPLAY_SHOT_EINVAL:
        return "bad picture geometry or subject";
    case DISPLAY_SHOT_EREAD:
        return "the picture could not be read";
    case DISPLAY_SHOT_ENOMEM:
        return "out of memory";
    case DISPLAY_SHOT_EOUTPUT:
        return "output refused";
    }
    return "unknown error";
}

/* Writes the decimal `v` at p; returns the characters written. */
static size_t put_dec(char *p, uint32_t v)
{
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

static size_t put_colour(char *p, uint32_t px)
{
    for (int i = 0; i < 6; i++)
        p[i] = HEX[(px >> (20 - 4 * i)) & 0xFu];
    return 6;
}

/* One row as runs; returns the line length.  `buf` holds DISPLAY_SHOT_MAX_LINE(n). */
static size_t encode_row(char *buf, const uint32_t *row, uint32_t n)
{
    size_t len = 0;
    for (uint32_t x = 0; x < n;) {
        uint32_t c = row[x], run = 1;
        while (x + run < n && row[x + run] == c)
            run++;
        if (len)
            buf[len++] = ' ';
        if (run > 1) {
            len += put_dec(buf + len, run);
            buf[len++] = '*';
        }
        len += put_colour(buf + len, c);
        x += run;
    }
    return len;
}

struct writer {
    display_line_fn line;
    void *ctx;
    struct display_shot_result res;
    bool stopped;
};

static void emit(struct writer *w, const char *s, size_t len)
{
    if (w->stopped)
        return;
    if (!w->line(w->ctx, s, len)) {
        w->stopped = true;
        return;
    }
    w->res.bytes += len;
    w->res.lines++;
}

static void emit_repeat(struct writer *w, uint32_t count)
{
    char buf[16];
    buf[0] = '=';
    size_t n = 1 + put_dec(buf + 1, count);
    emit(w, buf, n);
}

/* Reads row y into row[] as 0x00RRGGBB words. */
static bool read_row(const struct display_image *img, uint32_t y, uint32_t *row)
{
    if (!img->read(img->ctx, (uint64_t)y * img->stride, row,
                   (size_t)img->width * DISPLAY_BYTES_PER_PIXEL))
        return false;
    for (uint32_t x = 0; x < img->width; x++)
        row[x] &= DISPLAY_RGB_MASK;
    return true;
}

int display_screenshot_write(const struct display_image *img, const char *subject,
                             display_line_fn line, void *ctx, struct display_shot_result *out)
{
    if (!display_image_valid(img) || !display_shot_subject_ok(subject) || !line)
        return DISPLAY_SHOT_EINVAL;
    uint32_t *rows = malloc(2 * (size_t)img->width * sizeof *rows);
    char *buf = malloc(DISPLAY_SHOT_MAX_LINE(img->width));
    if (!rows || !buf) {
        free(rows);
        free(buf);
        return DISPLAY_SHOT_ENOMEM;
    }
    uint32_t *cur = rows, *prev = rows + img->width;
    struct writer w = { .line = line, .ctx = ctx };
    int n = snprintf(buf, DISPLAY_SHOT_MAX_LINE(img->width), "TSHOT %d %u %u %s",
                     DISPLAY_SHOT_VERSION, img->width, img->height, subject);
    emit(&w, buf, (size_t)n);

    int rc = DISPLAY_SHOT_OK;
    uint32_t state = CRC32_IEEE_INIT, repeats = 0;
    size_t row_bytes = (size_t)img->width * sizeof *cur;
    for (uint32_t y = 0; y < img->height && !w.stopped; y++) {
        if (!read_row(img, y, cur)) {
            rc = DISPLAY_SHOT_EREAD;
            break;
        }
        state = display_crc32_pixels(state, cur, img->width);
        if (y > 0 && memcmp(cur, prev, row_bytes) == 0) {
            repeats++;
            continue;
        }
        if (repeats) {
            emit_repeat(&w, repeats);
            repeats = 0;
        }
        emit(&w, buf, encode_row(buf, cur, img->width));
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
    if (rc == DISPLAY_SHOT_OK) {
        if (repeats)
            emit_repeat(&w, repeats);
        w.res.crc = state ^ CRC32_IEEE_XOROUT;
        n = snprintf(buf, 32, "TSHOT END %08x", (unsigned)w.res.crc);
        emit(&w, buf, (size_t)n);
    } else {
        n = snprintf(buf, 64, "TSHOT ABORT %s", display_shot_strerror(rc));
        emit(&w, buf, (size_t)n);
    }
    if (w.stopped)
        rc = DISPLAY_SHOT_EOUTPUT;
    free(rows);
    free(buf);
    if (out)
        *out = w.res;
    return rc;
}

int display_screenshot_crc(const struct display_image *img, uint32_t *crc)
{
    if (!display_image_valid(img) || !crc)
        return DISPLAY_SHOT_EINVAL;
    uint32_t *row = malloc((size_t)img->width * sizeof *row);
    if (!row)
        return DISPLAY_SHOT_ENOMEM;
    uint32_t state = CRC32_IEEE_INIT;
    int rc = DISPLAY_SHOT_OK;
    for (uint32_t y = 0; y < img->height; y++) {
        if (!read_row(img, y, row)) {
            rc = DISPLAY_SHOT_EREAD;
            break;
        }
        state = display_crc32_pixels(state, row, img->width);
    }
    free(row);
    if (rc == DISPLAY_SHOT_OK)
        *crc = state ^ CRC32_IEEE_XOROUT;
    return rc;
}

int display_screenshot_crc_line(char *buf, size_t len, uint32_t width, uint32_t height,
                                const char *subject, uint32_t crc)
{
    if (!display_shot_subject_ok(subject))
        return -1;
    return snprintf(buf, len, "TSHOT CRC %u %u %s %08x", width, height, subject, (unsigned)crc);
}
