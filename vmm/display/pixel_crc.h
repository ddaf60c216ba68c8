/* The screenshot format's image CRC: the CRC-32 of lib/crc32.h (IEEE 802.3, zlib, PNG) over
 * every pixel as the three bytes R, G, B, row by row, so a guest can compute the same number
 * over what it drew (guests/lib/vgpu_crc.c, tools/screenshot.py do too). */
#ifndef TESSERA_VMM_DISPLAY_PIXEL_CRC_H
#define TESSERA_VMM_DISPLAY_PIXEL_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/crc32.h"

/* Feeds `n` XRGB8888 pixels (0xXXRRGGBB words) as the bytes R, G, B each into a CRC state of
 * crc32_ieee_update(): start from CRC32_IEEE_INIT, finish with ^ CRC32_IEEE_XOROUT. */
uint32_t display_crc32_pixels(uint32_t state, const uint32_t *px, size_t n);

#endif
