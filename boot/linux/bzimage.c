/* bzImage setup-header checks (Documentation/x86/boot.rst).  Every field is read with bounds
 * known in advance: the header is checked to lie inside the file before anything in it is
 * believed, and every size it gives is checked against the file. */
#include "boot/linux/bzimage.h"

#include "boot/linux/loader_error.h"

#include <string.h>

static uint8_t u8_at(const uint8_t *p, size_t off)
{
    return p[off];
}

static uint16_t u16_at(const uint8_t *p, size_t off)
{
    return (uint16_t)(p[off] | p[off + 1] << 8);
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
    return (uint32_t)u16_at(p, off) | (uint32_t)u16_at(p, off + 2) << 16;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
    return (uint64_t)u32_at(p, off) | (uint64_t)u32_at(p, off + 4) << 32;
}


int bzimage_parse(const void *img, size_t len, struct bzimage_info *out, char *err, size_t errlen)
{
    const uint8_t *p = img;
    if (err && errlen)
        err[0] = 0;
    if (!p || !out)
        return loader_error(BZ_ECORRUPT, err, errlen, "no image");
    if (len < BZ_VERSION + 2)
        return loader_error(BZ_ETRUNCATED, err, errlen,
                            "truncated: %zu bytes is too short for a bzImage setup header", len);
    if (u16_at(p, BZ_BOOT_FLAG) != BZ_BOOT_FLAG_MAGIC || u32_at(p, BZ_HEADER) != BZ_HEADER_MAGIC)
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "not a bzImage (no 0xAA55 boot flag and \"HdrS\" header magic)");

    struct bzimage_info bi;
    memset(&bi, 0, sizeof bi);
    bi.version = u16_at(p, BZ_VERSION);
    if (bi.version < BZ_PROTOCOL_MIN)
        return loader_error(BZ_EUNSUPPORTED, err, errlen,
                            "boot protocol %u.%02u is older than 2.12 (no 64-bit entry)",
                            bi.version >> 8, bi.version & 0xFF);
    bi.header_end = BZ_HEADER_END_BASE + u8_at(p, BZ_JUMP + 1);
    if (bi.header_end < BZ_HEADER_MIN_END)
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "corrupt: the setup header ends at %#x, before the 2.12 fields",
                            bi.header_end);
    if (bi.header_end > len)
        return loader_error(BZ_ETRUNCATED, err, errlen,
                            "truncated: the setup header ends at %#x, the file at %#zx",
                            bi.header_end, len);

    unsigned sects = u8_at(p, BZ_SETUP_SECTS);
    bi.setup_bytes = ((sects ? sects : BZ_SETUP_SECTS_DEFAULT) + 1) * BZ_SECTOR_BYTES;
    if (bi.setup_bytes < bi.header_end)
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "corrupt: %u setup sectors end before the setup header does", sects);
    uint64_t kernel_bytes = (uint64_t)u32_at(p, BZ_SYSSIZE) * BZ_SYSSIZE_UNIT;
    if (kernel_bytes == 0 || kernel_bytes > UINT32_MAX)
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "corrupt: protected-mode code of %llu bytes (syssize)",
                            (unsigned long long)kernel_bytes);
    bi.kernel_bytes = (uint32_t)kernel_bytes;
    if (bi.setup_bytes > len || bi.kernel_bytes > len - bi.setup_bytes)
        return loader_error(
            BZ_ETRUNCATED, err, errlen,
            "truncated: %zu bytes, but the header says %u of setup and %u of kernel (%llu in all)",
            len, bi.setup_bytes, bi.kernel_bytes,
            (unsigned long long)bi.setup_bytes + bi.kernel_bytes);

    bi.loadflags = u8_at(p, BZ_LOADFLAGS);
    bi.xloadflags = u16_at(p, BZ_XLOADFLAGS);
    bi.kernel_alignment = u32_at(p, BZ_KERNEL_ALIGNMENT);
    bi.relocatable = u8_at(p, BZ_RELOCATABLE_KERNEL) != 0;
    bi.pref_address = u64_at(p, BZ_PREF_ADDRESS);
    bi.init_size = u32_at(p, BZ_INIT_SIZE);
    bi.initrd_addr_max = u32_at(p, BZ_INITRD_ADDR_MAX);
    bi.cmdline_size = u32_at(p, BZ_CMDLINE_SIZE);
    bi.payload_offset = u32_at(p, BZ_PAYLOAD_OFFSET);
    bi.payload_length = u32_at(p, BZ_PAYLOAD_LENGTH);

    if (!(bi.xloadflags & BZ_XLF_KERNEL_64))
        return loader_error(BZ_EUNSUPPORTED, err, errlen,
                            "a 32-bit kernel (xloadflags %#x has no XLF_KERNEL_64)", bi.xloadflags);
    if (!(bi.loadflags & BZ_LOADED_HIGH))
        return loader_error(BZ_EUNSUPPORTED, err, errlen,
                            "a zImage that loads low (loadflags %#x has no LOADED_HIGH)",
                            bi.loadflags);
    if (bi.kernel_alignment == 0 || (bi.kernel_alignment & (bi.kernel_alignment - 1)))
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "corrupt: kernel_alignment %#x is not a power of two",
                            bi.kernel_alignment);
    if ((uint64_t)bi.payload_offset + bi.payload_length > bi.kernel_bytes || bi.payload_length == 0)
        return loader_error(
            BZ_ECORRUPT, err, errlen,
            "corrupt: the compressed kernel (%u bytes at offset %u) is not inside the %u bytes of code",
            bi.payload_length, bi.payload_offset, bi.kernel_bytes);
    if (bi.init_size < bi.kernel_bytes)
        return loader_error(BZ_ECORRUPT, err, errlen,
                            "corrupt: init_size %#x is smaller than the kernel's %#x bytes",
                            bi.init_size, bi.kernel_bytes);
    if (bi.cmdline_size == 0)
        return loader_error(BZ_ECORRUPT, err, errlen, "corrupt: cmdline_size is 0");
    if (!bi.relocatable && (bi.pref_address == 0 || bi.pref_address & (bi.kernel_alignment - 1)))
        return loader_error(BZ_EUNSUPPORTED, err, errlen,
                            "not relocatable and no aligned pref_address (%#llx) to load it at",
                            (unsigned long long)bi.pref_address);
    *out = bi;
    return BZ_OK;
}

uint64_t bzimage_load_address(const struct bzimage_info *bi, uint64_t lowest)
{
    uint64_t align = bi->kernel_alignment;
    if (bi->pref_address >= lowest && !(bi->pref_address & (align - 1)))
        return bi->pref_address;
    if (!bi->relocatable)
        return 0;
    if (lowest > UINT64_MAX - align)
        return 0;
    return (lowest + align - 1) & ~(align - 1);
}
