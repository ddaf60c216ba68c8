#include "vmm/display/image.h"

#include <string.h>

bool display_image_valid(const struct display_image *img)
{
    return img && img->read && img->width >= 1 && img->width <= DISPLAY_MAX_DIM &&
           img->height >= 1 && img->height <= DISPLAY_MAX_DIM &&
           (uint64_t)img->stride >= (uint64_t)img->width * DISPLAY_BYTES_PER_PIXEL;
}

bool display_mem_read(void *ctx, uint64_t byte_off, void *buf, size_t len)
{
    const struct display_mem *m = ctx;
    if (!m || !m->base || byte_off > m->size || len > m->size - byte_off)
        return false;
    memcpy(buf, (const uint8_t *)m->base + byte_off, len);
    return true;
}

void display_image_from_memory(struct display_image *img, struct display_mem *mem,
                               const void *pixels, uint32_t width, uint32_t height, uint32_t stride)
{
    mem->base = pixels;
    /* The last row needs only its pixels, not a whole stride. */
    mem->size = height ? (uint64_t)(height - 1) * stride + (uint64_t)width * DISPLAY_BYTES_PER_PIXEL
                       : 0;
    img->width = width;
    img->height = height;
    img->stride = stride;
    img->read = display_mem_read;
    img->ctx = mem;
}
