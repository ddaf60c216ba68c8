/* Multiboot2 boot information → struct boot_info.  Pure: it is unit-tested on hand-built,
 * truncated and malformed structures.  Layouts from the Multiboot2 specification §3.6. */
#include "boot/boot_info.h"
#include "boot/multiboot2.h"
#include "boot/le.h"

#include <stdio.h>
#include <string.h>

/* Copies a string that must end inside [p, p + max) into dst; false when it is not terminated. */
static bool copy_string(char *dst, unsigned dstlen, const uint8_t *p, uint64_t max)
{
    const uint8_t *nul = memchr(p, 0, max);
    if (!nul)
        return false;
    snprintf(dst, dstlen, "%s", (const char *)p);
    return true;
}

static enum boot_mem_type mem_type(uint32_t t)
{
    switch (t) {
    case MB2_MMAP_AVAILABLE:
        return BOOT_MEM_USABLE;
    case MB2_MMAP_ACPI_RECLAIM:
        return BOOT_MEM_ACPI_RECLAIM;
    case MB2_MMAP_ACPI_NVS:
        return BOOT_MEM_ACPI_NVS;
    case MB2_MMAP_BAD:
        return BOOT_MEM_BAD;
    default:
        return BOOT_MEM_RESERVED;
    }
}

/* §3.6.8: u32 type, u32 size, u32 entry_size, u32 entry_version, entries of >= 24 bytes. */
static int parse_mmap(const uint8_t *tag, uint32_t size, struct boot_info *out, char *err,
                      unsigned errlen)
{
    if (size < 16) {
        snprintf(err, errlen, "memory map tag of %u bytes is shorter than its 16-byte header",
                 size);
        return -1;
    }
    uint32_t esize = rd32(tag + 8);
    if (esize < 24 || esize % 8) {
        snprintf(err, errlen, "memory map entry size %u (expected a multiple of 8, at least 24)",
                 esize);
        return -1;
    }
    /* 64-bit sums: a huge entry_size must end the loop, not wrap around it. */
    for (uint64_t off = 16; off + esize <= size; off += esize) {
        if (out->n_mem == BOOT_MAX_MEM_REGIONS) {
            out->dropped++;
            continue;
        }
        struct boot_mem_region *r = &out->mem[out->n_mem++];
        r->base = rd64(tag + off);
        r->length = rd64(tag + off + 8);
        r->type = mem_type(rd32(tag + off + 16));
    }
    return 0;
}

/* §3.6.6: u32 type, u32 size, u32 mod_start, u32 mod_end, NUL-terminated string. */
static int parse_module(const uint8_t *tag, uint32_t size, struct boot_info *out, char *err,
                        unsigned errlen)
{
    if (size < 17) {
        snprintf(err, errlen, "module tag of %u bytes is too short", size);
        return -1;
    }
    uint32_t start = rd32(tag + 8), end = rd32(tag + 12);
    if (end < start) {
        snprintf(err, errlen, "module at 0x%x ends before it starts (0x%x)", start, end);
        return -1;
    }
    if (out->n_modules == BOOT_MAX_MODULES) {
        out->dropped++;
        return 0;
    }
    struct boot_module *m = &out->modules[out->n_modules];
    if (!copy_string(m->tag, sizeof m->tag, tag + 16, size - 16)) {
        snprintf(err, errlen, "module at 0x%x has an unterminated string", start);
        return -1;
    }
    m->start = start;
    m->end = end;
    out->n_modules++;
    return 0;
}

/* §3.6.12: common part is u64 addr, u32 pitch, u32 width, u32 height, u8 bpp, u8 type, u16
 * reserved; for direct colour six u8 fields follow. */
static int parse_framebuffer(const uint8_t *tag, uint32_t size, struct boot_info *out, char *err,
                             unsigned errlen)
{
    if (size < 31) {
        snprintf(err, errlen, "framebuffer tag of %u bytes is too short", size);
        return -1;
    }
    if (tag[29] != MB2_FB_TYPE_RGB || size < 38)
        return 0; /* indexed or text mode: no wall can be drawn on it, so leave it unused */
    struct boot_framebuffer *fb = &out->fb;
    fb->addr = rd64(tag + 8);
    fb->pitch = rd32(tag + 16);
    fb->width = rd32(tag + 20);
    fb->height = rd32(tag + 24);
    fb->bpp = tag[28];
    fb->red_pos = tag[32];
    fb->red_size = tag[33];
    fb->green_pos = tag[34];
    fb->green_size = tag[35];
    fb->blue_pos = tag[36];
    fb->blue_size = tag[37];
    out->has_framebuffer = fb->width && fb->height && fb->bpp &&
                           fb->pitch >= (uint64_t)fb->width * fb->bpp / 8;
    return 0;
}

static int parse_tag(const uint8_t *tag, uint32_t type, uint32_t size, struct boot_info *out,
                     char *err, unsigned errlen)
{
    switch (type) {
    case MB2_TAG_CMDLINE:
        if (!copy_string(out->cmdline, sizeof out->cmdline, tag + 8, size - 8)) {
            snprintf(err, errlen, "command line is not terminated");
            return -1;
        }
        return 0;
    case MB2_TAG_LOADER_NAME:
        if (!copy_string(out->loader, sizeof out->loader, tag + 8, size - 8)) {
            snprintf(err, errlen, "boot loader name is not terminated");
            return -1;
        }
        return 0;
    case MB2_TAG_MMAP:
        return parse_mmap(tag, size, out, err, errlen);
    case MB2_TAG_MODULE:
        return parse_module(tag, size, out, err, errlen);
    case MB2_TAG_FRAMEBUFFER:
        return parse_framebuffer(tag, size, out, err, errlen);
    case MB2_TAG_ACPI_OLD:
    case MB2_TAG_ACPI_NEW:
        /* The new (ACPI 2.0) copy wins over the old one when the loader gives both. */
        if (type == MB2_TAG_ACPI_OLD && out->rsdp_len > 20)
            return 0;
        out->rsdp_len = size - 8 < BOOT_RSDP_MAX ? size - 8 : BOOT_RSDP_MAX;
        memcpy(out->rsdp, tag + 8, out->rsdp_len);
        return 0;
    default:
        return 0; /* tags we do not use (ELF sections, APM, EFI handles, ...) */
    }
}

int mb2_parse(const void *info, uint64_t len, struct boot_info *out, char *err, unsigned errlen)
{
    const uint8_t *p = info;
    memset(out, 0, sizeof *out);
    if (!p || len < 8) {
        snprintf(err, errlen, "boot information is missing or shorter than 8 bytes");
        return -1;
    }
    uint32_t total = rd32(p);
    if (total < 16 || total > len) {
        snprintf(err, errlen, "boot information claims %u bytes (have %llu)", total,
                 (unsigned long long)len);
        return -1;
    }
    out->info_addr = (uint64_t)(uintptr_t)info;
    out->info_size = total;
    /* §3.6.1: u32 total_size, u32 reserved, then tags, each padded to 8 bytes. */
    for (uint32_t off = 8;;) {
        if (off + 8 > total) {
            snprintf(err, errlen, "boot information ends without an end tag");
            return -1;
        }
        uint32_t type = rd32(p + off), size = rd32(p + off + 4);
        if (size < 8 || size > total - off) {
            snprintf(err, errlen, "tag %u at offset %u has size %u, outside the %u-byte structure",
                     type, off, size, total);
            return -1;
        }
        if (type == MB2_TAG_END)
            return 0;
        if (parse_tag(p + off, type, size, out, err, errlen) < 0)
            return -1;
        off += (size + 7) & ~7u;
    }
}

const char *boot_mem_type_name(enum boot_mem_type type)
{
    switch (type) {
    case BOOT_MEM_USABLE:
        return "usable";
    case BOOT_MEM_RESERVED:
        return "reserved";
    case BOOT_MEM_ACPI_RECLAIM:
        return "ACPI reclaimable";
    case BOOT_MEM_ACPI_NVS:
        return "ACPI NVS";
    case BOOT_MEM_BAD:
        return "bad";
    }
    return "unknown";
}
