/* A synthetic bzImage for the loader's tests: a setup header with the values of the Debian 12
 * kernel (its vmlinuz 6.1.0 as measured: protocol 2.15, 39 setup sectors, relocatable, 2 MiB
 * alignment, pref_address 16 MiB, init_size 0x3f98000, initrd_addr_max 0x7fffffff,
 * cmdline_size 2047, xloadflags 0x7f) around a small protected-mode part. */
#ifndef TEST_LOADER_FIXTURE_H
#define TEST_LOADER_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/linux/bzimage.h"

#define FIX_SETUP_SECTS  39u
#define FIX_SETUP_BYTES  ((FIX_SETUP_SECTS + 1) * 512u)
#define FIX_KERNEL_BYTES 0x4000u
#define FIX_IMAGE_BYTES  (FIX_SETUP_BYTES + FIX_KERNEL_BYTES)
#define FIX_INIT_SIZE    0x3f98000u
#define FIX_PREF_ADDRESS 0x1000000u
#define FIX_HEADER_END   0x26Cu /* 0x202 + jump offset 0x6a, as in 2.15 kernels */

static inline void fix_put(uint8_t *p, size_t off, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[off + i] = (uint8_t)(v >> (8 * i));
}

/* A fresh image (free() it) of FIX_IMAGE_BYTES; the protected-mode part holds 0x5A bytes. */
static inline uint8_t *fix_image(void)
{
    uint8_t *p = calloc(1, FIX_IMAGE_BYTES);
    fix_put(p, BZ_SETUP_SECTS, FIX_SETUP_SECTS, 1);
    fix_put(p, BZ_SYSSIZE, FIX_KERNEL_BYTES / 16, 4);
    fix_put(p, BZ_BOOT_FLAG, BZ_BOOT_FLAG_MAGIC, 2);
    fix_put(p, BZ_JUMP, 0xEB, 1);
    fix_put(p, BZ_JUMP + 1, FIX_HEADER_END - 0x202, 1);
    fix_put(p, BZ_HEADER, BZ_HEADER_MAGIC, 4);
    fix_put(p, BZ_VERSION, 0x020F, 2);
    fix_put(p, BZ_LOADFLAGS, BZ_LOADED_HIGH, 1);
    fix_put(p, BZ_INITRD_ADDR_MAX, 0x7FFFFFFF, 4);
    fix_put(p, BZ_KERNEL_ALIGNMENT, 0x200000, 4);
    fix_put(p, BZ_RELOCATABLE_KERNEL, 1, 1);
    fix_put(p, BZ_MIN_ALIGNMENT, 21, 1);
    fix_put(p, BZ_XLOADFLAGS, 0x7F, 2);
    fix_put(p, BZ_CMDLINE_SIZE, 2047, 4);
    fix_put(p, BZ_PAYLOAD_OFFSET, 0x3B0, 4);
    fix_put(p, BZ_PAYLOAD_LENGTH, 0x2000, 4);
    fix_put(p, BZ_PREF_ADDRESS, FIX_PREF_ADDRESS, 8);
    fix_put(p, BZ_INIT_SIZE, FIX_INIT_SIZE, 4);
    memset(p + FIX_SETUP_BYTES, 0x5A, FIX_KERNEL_BYTES);
    return p;
}

#endif
