/* CRC-32 as IEEE 802.3 / zlib / PNG define it: reflected polynomial 0xEDB88320, initial value
 * and final XOR 0xFFFFFFFF ("123456789" -> 0xCBF43926).  The screenshot format's image CRC is
 * this CRC over every pixel as the three bytes R, G, B, row by row, so a guest can compute the
 * same number over what it drew (tools/screenshot.py does too). */
#ifndef TESSERA_VMM_DISPLAY_CRC32_H
#define TESSERA_VMM_DISPLAY_CRC32_H

#include <stddef.h>
#include <stdint.h>

#define DISPLAY_CRC32_POLY   0xEDB88320u    /* reflected IEEE polynomial */
#define DISPLAY_CRC32_INIT   0xFFFFFFFFu
#define DISPLAY_CRC32_XOROUT 0xFFFFFFFFu

/* The CRC of `len` bytes in one call. */
uint32_t display_crc32(const void *data, size_t len);

/* Incremental form: state = DISPLAY_CRC32_INIT; state = update(state, ...)...;
 * crc = state ^ DISPLAY_CRC32_XOROUT. */
uint32_t display_crc32_update(uint32_t state, const void *data, size_t len);

/* Feeds `n` XRGB8888 pixels (0xXXRRGGBB words) as the bytes R, G, B each. */
uint32_t display_crc32_pixels(uint32_t state, const uint32_t *px, size_t n);

#endif
