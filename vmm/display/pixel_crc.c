#include "vmm/display/pixel_crc.h"

/* Pixels go through the CRC as R, G, B bytes in chunks: one call per chunk, not per byte. */
#define CHUNK_PIXELS 64u

uint32_t display_crc32_pixels(uint32_t state, const uint32_t *px, size_t n)
{
    uint8_t rgb[CHUNK_PIXELS * 3];
    while (n) {
        size_t k = n < CHUNK_PIXELS ? n : CHUNK_PIXELS;
        for (size_t i = 0; i < k; i++) {
            rgb[3 * i] = (uint8_t)(px[i] >> 16);    /* R */
            rgb[3 * i + 1] = (uint8_t)(px[i] >> 8); /* G */
            rgb[3 * i + 2] = (uint8_t)px[i];        /* B */
        }
        state = crc32_ieee_update(state, rgb, 3 * k);
        px += k;
        n -= k;
    }
    return state;
}
