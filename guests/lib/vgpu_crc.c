/* The CRC the hypervisor's `screenshot` computes over a framebuffer: lib/crc32.h's CRC-32
 * (IEEE 802.3, zlib, PNG) over each XRGB8888 pixel's R, G and B bytes in row-major order; row
 * padding and the X byte are not part of the image. */
#include "guests/lib/vgpu.h"
#include "lib/crc32.h"

uint32_t vgpu_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    return crc32_ieee_update(crc ^ CRC32_IEEE_XOROUT, p, n) ^ CRC32_IEEE_XOROUT;
}

uint32_t vgpu_crc32_xrgb(const uint32_t *pixels, uint32_t w, uint32_t h, uint32_t pitch)
{
    uint32_t state = CRC32_IEEE_INIT;
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)pixels + (size_t)y * pitch);
        for (uint32_t x = 0; x < w; x++) {
            uint8_t rgb[3] = { (uint8_t)(row[x] >> 16), (uint8_t)(row[x] >> 8), (uint8_t)row[x] };
            state = crc32_ieee_update(state, rgb, sizeof rgb);
        }
    }
    return state ^ CRC32_IEEE_XOROUT;
}
