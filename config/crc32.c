/* CRC-32 as in IEEE 802.3 and zlib's crc32(), so `python3 -c 'import zlib; ...'` or any other
 * standard tool can verify a blob.  Four bits per step through a 16-entry table: small enough to
 * read, fast enough for a configuration of a few KiB. */
#include "config/blob.h"

/* Remainders of the reflected polynomial 0xEDB88320 for each 4-bit value. */
static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

uint32_t cfg_crc32(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ crc_nibble[crc & 0xfu];
        crc = (crc >> 4) ^ crc_nibble[crc & 0xfu];
    }
    return crc ^ 0xffffffffu;
}
