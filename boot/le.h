/* Reads of little-endian fields at any alignment from the tables firmware and the boot loader
 * hand over (Multiboot2 information, ACPI).  x86 is little-endian, so a copy is the read; memcpy
 * keeps unaligned fields defined behaviour. */
#ifndef TESSERA_BOOT_LE_H
#define TESSERA_BOOT_LE_H

#include <stdint.h>
#include <string.h>

static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

#endif
