/* CRC-32 as IEEE 802.3, zlib's crc32() and PNG define it: the reflected polynomial 0xEDB88320,
 * initial value and final XOR 0xFFFFFFFF ("123456789" -> 0xCBF43926).  One implementation for
 * every room: the configuration blob's checksums (config/blob.c), the screenshot's image CRC
 * (vmm/display/screenshot.c) and the guests' CRC of what they drew (guests/lib/vgpu_crc.c), so
 * that `python3 -c 'import zlib; ...'` or any other standard tool computes the same number. */
#ifndef TESSERA_LIB_CRC32_H
#define TESSERA_LIB_CRC32_H

#include <stddef.h>
#include <stdint.h>

#define CRC32_IEEE_POLY   0xEDB88320u /* x^32 + x^26 + ... + 1, bit-reversed */
#define CRC32_IEEE_INIT   0xFFFFFFFFu
#define CRC32_IEEE_XOROUT 0xFFFFFFFFu

/* The CRC of `len` bytes in one call. */
uint32_t crc32_ieee(const void *data, size_t len);

/* Incremental form: state = CRC32_IEEE_INIT; state = crc32_ieee_update(state, ...)...;
 * crc = state ^ CRC32_IEEE_XOROUT. */
uint32_t crc32_ieee_update(uint32_t state, const void *data, size_t len);

#endif
