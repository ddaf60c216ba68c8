/* CRC-32 as the hypervisor's `screenshot` computes it over a framebuffer: IEEE 802.3, the
 * reflected polynomial 0xEDB88320, initial value and final xor 0xFFFFFFFF (the zlib/PNG CRC),
 * over each XRGB8888 pixel's R, G and B bytes in row-major order; row padding and the X byte
 * are not part of the image. */
#include "guests/lib/vgpu.h"

#define CRC_POLY 0xEDB88320u

static uint32_t table[256];
static bool table_ready;

static void make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1u ? (c >> 1) ^ CRC_POLY : c >> 1;
        table[i] = c;
    }
    table_ready = true;
}

uint32_t vgpu_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!table_ready)
        make_table();
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

uint32_t vgpu_crc32_xrgb(const uint32_t *pixels, uint32_t w, uint32_t h, uint32_t pitch)
{
    uint32_t crc = 0;
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)pixels + (size_t)y * pitch);
        for (uint32_t x = 0; x < w; x++) {
            uint8_t rgb[3] = { (uint8_t)(row[x] >> 16), (uint8_t)(row[x] >> 8), (uint8_t)row[x] };
            crc = vgpu_crc32_update(crc, rgb, sizeof rgb);
        }
    }
    return crc;
}
