/* The screenshot text format: a picture written as lines of text, for a serial console.
 *
 * Serial is slow (115200 baud is about 11 KB/s), so rows are run-length encoded and a row equal
 * to the one before costs one short token.  The exact grammar (docs/display.md has it too, and
 * tools/screenshot.py reads it):
 *
 *   screenshot := header row-line+ trailer
 *   header     := "TSHOT" SP version SP width SP height SP subject       version is 1
 *   row-line   := run (SP run)*                  one row; its run counts add up to width
 *               | "=" count                      `count` more rows equal to the previous row
 *   run        := colour | count "*" colour      count >= 2 pixels of that colour
 *   colour     := 6 lowercase hex digits RRGGBB
 *   count      := decimal, no leading zero
 *   trailer    := "TSHOT END" SP crc             crc: 8 lowercase hex digits
 *   abort      := "TSHOT ABORT" SP reason        instead of the trailer if reading failed
 *   crc-line   := "TSHOT CRC" SP width SP height SP subject SP crc     (alone, no rows)
 *   subject    := "wall" or a guest's name: 1..63 printable ASCII characters, no space
 *
 * The rows (counting repeats) add up to height.  `crc` is the CRC-32 of lib/crc32.h over
 * every pixel as the bytes R, G, B in row-major order (the X byte and row padding are not part
 * of the picture).  Lines end however the transport ends them; the writer hands out lines
 * without a line end. */
#ifndef TESSERA_VMM_DISPLAY_SCREENSHOT_H
#define TESSERA_VMM_DISPLAY_SCREENSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/display/image.h"

#define DISPLAY_SHOT_VERSION     1
#define DISPLAY_SHOT_SUBJECT_MAX 64u /* including the NUL */
/* Longest line the writer produces for a picture `w` pixels wide: w runs of "RRGGBB " (a run of
 * one pixel is the longest per pixel). */
#define DISPLAY_SHOT_MAX_LINE(w) ((size_t)(w)*7u + 64u)

/* Return codes. */
#define DISPLAY_SHOT_OK      0
#define DISPLAY_SHOT_EINVAL  (-1) /* bad image geometry or subject: nothing written */
#define DISPLAY_SHOT_EREAD   (-2) /* a read failed: the output ends with an abort line */
#define DISPLAY_SHOT_ENOMEM  (-3) /* no memory for the row buffers: nothing written */
#define DISPLAY_SHOT_EOUTPUT (-4) /* the line callback refused a line: output stopped */

/* Receives one line, without a line end.  Returns false to stop the writer. */
typedef bool (*display_line_fn)(void *ctx, const char *line, size_t len);

struct display_shot_result {
    uint32_t crc;   /* the image CRC (valid with DISPLAY_SHOT_OK) */
    uint64_t bytes; /* characters handed to the callback, without line ends */
    uint32_t lines;
};

/* True if `s` can be a subject. */
bool display_shot_subject_ok(const char *s);

/* Writes the whole screenshot of `img` through `line`.  `out` (may be NULL) gets the CRC and
 * the size. */
int display_screenshot_write(const struct display_image *img, const char *subject,
                             display_line_fn line, void *ctx, struct display_shot_result *out);

/* Only the image CRC (reads the picture, writes nothing). */
int display_screenshot_crc(const struct display_image *img, uint32_t *crc);

/* Formats the crc-line into buf (no line end).  Returns what snprintf returns, or -1 if the
 * subject is not valid. */
int display_screenshot_crc_line(char *buf, size_t len, uint32_t width, uint32_t height,
                                const char *subject, uint32_t crc);

/* A short description of a return code. */
const char *display_shot_strerror(int rc);

#endif
