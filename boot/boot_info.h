/* The neutral description of what the boot loader handed over.  boot/mb2_parse.c fills it once
 * from the Multiboot2 information; nothing after that reads loader structures, and nothing in it
 * points back into loader memory (strings and the RSDP are copied). */
#ifndef TESSERA_BOOT_BOOT_INFO_H
#define TESSERA_BOOT_BOOT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#define BOOT_MAX_MEM_REGIONS 128
#define BOOT_MAX_MODULES     72 /* 64 guests plus a configuration blob and spares */
#define BOOT_MODULE_TAG_LEN  64
#define BOOT_CMDLINE_LEN     256
#define BOOT_RSDP_MAX        36 /* ACPI 2.0 RSDP (ACPI spec §5.2.5.3) */

enum boot_mem_type {
    BOOT_MEM_USABLE = 1,
    BOOT_MEM_RESERVED,
    BOOT_MEM_ACPI_RECLAIM,
    BOOT_MEM_ACPI_NVS,
    BOOT_MEM_BAD,
};

struct boot_mem_region {
    uint64_t base;
    uint64_t length;
    enum boot_mem_type type;
};

struct boot_module {
    uint64_t start;                /* physical, page aligned by the loader */
    uint64_t end;                  /* exclusive */
    char tag[BOOT_MODULE_TAG_LEN]; /* the module2 line's arguments, e.g. "hello" */
};

struct boot_framebuffer {
    uint64_t addr; /* physical */
    uint32_t pitch, width, height;
    uint8_t bpp;
    uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_info {
    struct boot_mem_region mem[BOOT_MAX_MEM_REGIONS];
    unsigned n_mem;
    struct boot_module modules[BOOT_MAX_MODULES];
    unsigned n_modules;
    char cmdline[BOOT_CMDLINE_LEN];
    char loader[BOOT_MODULE_TAG_LEN];
    bool has_framebuffer;
    struct boot_framebuffer fb;
    uint8_t rsdp[BOOT_RSDP_MAX];
    unsigned rsdp_len;             /* 0: the loader gave none */
    uint64_t info_addr, info_size; /* the loader's structure, reserved until parsed */
    unsigned dropped;              /* entries that did not fit the arrays above */
};

/* Multiboot2 (boot/mb2_parse.c).  `len` bounds every read: the parser never looks past it.
 * Returns 0, or -1 with a one-line reason in err (a malformed structure).  Unknown tags are
 * skipped; entries beyond the fixed arrays are counted in `dropped`. */
int mb2_parse(const void *info, uint64_t len, struct boot_info *out, char *err, unsigned errlen);

/* The highest 4 KiB page in [lo, hi) that the memory map calls usable and no module uses
 * (boot/low_page.c).  False when there is none. */
bool boot_find_low_page(const struct boot_info *bi, uint64_t lo, uint64_t hi, uint64_t *page);

/* Name of a memory type for logs and the shell. */
const char *boot_mem_type_name(enum boot_mem_type type);

#endif
