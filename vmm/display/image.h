/* A picture the display code reads: XRGB8888 pixels (one little-endian 32-bit word per pixel,
 * 0x00RRGGBB; the top byte is ignored), rows `stride` bytes apart, reached only through a read
 * callback.  A guest framebuffer lives in 4 KiB guest pages scattered behind its GGTT, so the
 * composer and the screenshot writer never assume the picture is one contiguous block; the
 * callback may also fail (the guest moved or unmapped its surface), and callers treat that as
 * "no signal", never as a crash.
 *
 * This is Tessera's pixel format everywhere (guest planes, the wall); the hypervisor runs on
 * x86, so a pixel word read into a uint32_t is 0xXXRRGGBB. */
#ifndef TESSERA_VMM_DISPLAY_IMAGE_H
#define TESSERA_VMM_DISPLAY_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISPLAY_BYTES_PER_PIXEL 4u
#define DISPLAY_RGB_MASK        0x00FFFFFFu /* the colour bits of an XRGB8888 word */
#define DISPLAY_MAX_DIM         16384u      /* larger sides are refused as nonsense */

/* Copies `len` bytes starting `byte_off` bytes into the picture to `buf`.  Returns false if any
 * of them cannot be read (nothing is then assumed about `buf`). */
typedef bool (*display_read_fn)(void *ctx, uint64_t byte_off, void *buf, size_t len);

struct display_image {
    uint32_t width, height; /* pixels */
    uint32_t stride;        /* bytes from one row to the next, >= width * 4 */
    display_read_fn read;
    void *ctx;
};

/* True if the geometry is sane: both sides 1..DISPLAY_MAX_DIM, stride >= width * 4, a read
 * callback present. */
bool display_image_valid(const struct display_image *img);

/* A picture in ordinary memory (the wall's own buffer, tests): pass &mem as ctx and
 * display_mem_read as the callback.  Reads outside [0, size) fail. */
struct display_mem {
    const void *base;
    uint64_t size;
};
bool display_mem_read(void *ctx, uint64_t byte_off, void *buf, size_t len);

/* Fills *img to describe `pixels` (width x height, `stride` bytes per row) through *mem. */
void display_image_from_memory(struct display_image *img, struct display_mem *mem,
                               const void *pixels, uint32_t width, uint32_t height,
                               uint32_t stride);

#endif
