/* The Multiboot2 information parser (boot/mb2_parse.c) on hand-built structures: a complete
 * valid one, unknown tags, every kind of truncation, malformed memory maps, modules, strings and
 * framebuffers, and the fixed-array limits.  Every structure is parsed from the END of an
 * exactly-sized heap buffer, so AddressSanitizer reports any read past `len`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_info.h"
#include "boot/multiboot2.h"

/* ---- a tiny Multiboot2 information builder (spec §3.6) ------------------------------------ */

#define BUILD_CAP 32768

struct mb2b {
    uint8_t buf[BUILD_CAP];
    uint32_t len;
};

static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* The 8-byte fixed part: total_size (filled by b_end) and reserved. */
static void b_init(struct mb2b *b)
{
    memset(b->buf, 0, sizeof b->buf);
    b->len = 8;
}

/* Appends a tag with `payload` bytes after its 8-byte header; returns it so the caller fills
 * the payload.  The next tag starts at the following 8-byte boundary. */
static uint8_t *b_tag(struct mb2b *b, uint32_t type, uint32_t payload)
{
    uint32_t size = 8 + payload;
    assert_true(b->len + size + 8 <= BUILD_CAP);
    uint8_t *t = b->buf + b->len;
    wr32(t, type);
    wr32(t + 4, size);
    b->len += (size + 7) & ~7u;
    return t;
}

static void b_string(struct mb2b *b, uint32_t type, const char *s)
{
    uint8_t *t = b_tag(b, type, (uint32_t)strlen(s) + 1);
    memcpy(t + 8, s, strlen(s) + 1);
}

static void b_module(struct mb2b *b, uint32_t start, uint32_t end, const char *s)
{
    uint8_t *t = b_tag(b, MB2_TAG_MODULE, 8 + (uint32_t)strlen(s) + 1);
    wr32(t + 8, start);
    wr32(t + 12, end);
    memcpy(t + 16, s, strlen(s) + 1);
}

struct mm {
    uint64_t base, len;
    uint32_t type;
};

/* A memory map tag with entries of `esize` bytes (the spec's are 24). */
static void b_mmap(struct mb2b *b, uint32_t esize, const struct mm *e, unsigned n)
{
    uint8_t *t = b_tag(b, MB2_TAG_MMAP, 8 + esize * n);
    wr32(t + 8, esize);
    wr32(t + 12, 0);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = t + 16 + i * esize;
        wr64(p, e[i].base);
        wr64(p + 8, e[i].len);
        wr32(p + 16, e[i].type);
    }
}

/* Framebuffer tag (GRUB's layout: 32-byte common part, then six colour bytes for RGB). */
static uint8_t *b_fb(struct mb2b *b, uint8_t fb_type, uint32_t payload)
{
    uint8_t *t = b_tag(b, MB2_TAG_FRAMEBUFFER, payload);
    wr64(t + 8, 0xFD000000ULL);
    wr32(t + 16, 4096); /* pitch */
    wr32(t + 20, 1024); /* width */
    wr32(t + 24, 768);  /* height */
    t[28] = 32;         /* bpp */
    t[29] = fb_type;
    if (payload >= 30) {
        const uint8_t colour[6] = { 16, 8, 8, 8, 0, 8 };
        memcpy(t + 32, colour, 6);
    }
    return t;
}

static void b_acpi(struct mb2b *b, uint32_t type, const uint8_t *rsdp, uint32_t n)
{
    uint8_t *t = b_tag(b, type, n);
    memcpy(t + 8, rsdp, n);
}

/* The end tag, then total_size. */
static void b_end(struct mb2b *b)
{
    b_tag(b, MB2_TAG_END, 0);
    wr32(b->buf, b->len);
}

/* ---- parsing from the end of an exact heap buffer ----------------------------------------- */

static struct boot_info bi;
static char err[256];

/* Copies the first `len` built bytes into a buffer of exactly `len` bytes and parses them. */
static int parse_len(const struct mb2b *b, uint32_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    assert_non_null(p);
    memcpy(p, b->buf, len);
    err[0] = 0;
    int rc = mb2_parse(p, len, &bi, err, sizeof err);
    free(p);
    return rc;
}

static int parse(const struct mb2b *b)
{
    return parse_len(b, b->len);
}

/* Parsing must fail and the one-line reason must mention `what`. */
static void expect_error(const struct mb2b *b, uint32_t len, const char *what)
{
    assert_int_equal(parse_len(b, len), -1);
    if (!strstr(err, what))
        fail_msg("error \"%s\" does not mention \"%s\"", err, what);
    assert_null(strchr(err, '\n'));
}

/* RSDPs (ACPI spec §5.2.5.3): 20 bytes for ACPI 1.0, 36 for 2.0 (length, XSDT, ext checksum). */
static const uint8_t rsdp_old[20] = {
    'R', 'S', 'D', ' ', 'P', 'T',  'R',  ' ',  0x11, 'O',
    'E', 'M', 'I', 'D', ' ', 0x00, 0x00, 0x10, 0x0E, 0x00,
};
static const uint8_t rsdp_new[36] = {
    'R',  'S',  'D',  ' ',  'P',  'T',  'R',  ' ',  0x22, 'O',  'E',  'M',
    'I',  'D',  '2',  0x02, 0x00, 0x20, 0x0E, 0x00, 0x24, 0x00, 0x00, 0x00,
    0x00, 0x30, 0x0E, 0x00, 0x00, 0x00, 0x00, 0x00, 0x99, 0x00, 0x00, 0x00,
};

/* A complete structure as GRUB would hand it over. */
static const struct mm full_map[] = {
    { 0x0, 0x9FC00, MB2_MMAP_AVAILABLE },
    { 0x9FC00, 0x400, MB2_MMAP_RESERVED },
    { 0xF0000, 0x10000, MB2_MMAP_RESERVED },
    { 0x100000, 0x7EE0000, MB2_MMAP_AVAILABLE },
    { 0x7FE0000, 0x10000, MB2_MMAP_ACPI_RECLAIM },
    { 0x7FF0000, 0x8000, MB2_MMAP_ACPI_NVS },
    { 0x7FF8000, 0x1000, MB2_MMAP_BAD },
    { 0xFFFC0000, 0x40000, 7 /* persistent memory: not one we use */ },
    { 0x100000000ULL, 0x80000000ULL, MB2_MMAP_AVAILABLE },
};

static void build_full(struct mb2b *b)
{
    b_init(b);
    b_string(b, MB2_TAG_CMDLINE, "console=com1 log=debug");
    b_string(b, MB2_TAG_LOADER_NAME, "GRUB 2.06-13+deb12u1");
    uint8_t *mi = b_tag(b, MB2_TAG_BASIC_MEMINFO, 8);
    wr32(mi + 8, 639);
    wr32(mi + 12, 130048);
    b_mmap(b, 24, full_map, sizeof full_map / sizeof full_map[0]);
    b_module(b, 0x200000, 0x280000, "hello");
    b_module(b, 0x280000, 0x281234, "config blob");
    b_fb(b, MB2_FB_TYPE_RGB, 30);
    b_acpi(b, MB2_TAG_ACPI_OLD, rsdp_old, sizeof rsdp_old);
    b_acpi(b, MB2_TAG_ACPI_NEW, rsdp_new, sizeof rsdp_new);
    b_end(b);
}

/* ---- valid structures --------------------------------------------------------------------- */

/* Every field of a complete structure lands in boot_info; the ACPI 2.0 RSDP beats the 1.0 one. */
static void test_full_structure(void **state)
{
    (void)state;
    static struct mb2b b;
    build_full(&b);
    assert_int_equal(parse(&b), 0);

    assert_string_equal(bi.cmdline, "console=com1 log=debug");
    assert_string_equal(bi.loader, "GRUB 2.06-13+deb12u1");

    assert_int_equal(bi.n_mem, 9);
    const enum boot_mem_type want[] = {
        BOOT_MEM_USABLE, BOOT_MEM_RESERVED,     BOOT_MEM_RESERVED,
        BOOT_MEM_USABLE, BOOT_MEM_ACPI_RECLAIM, BOOT_MEM_ACPI_NVS,
        BOOT_MEM_BAD,    BOOT_MEM_RESERVED,     BOOT_MEM_USABLE,
    };
    for (unsigned i = 0; i < 9; i++) {
        assert_int_equal(bi.mem[i].base, full_map[i].base);
        assert_int_equal(bi.mem[i].length, full_map[i].len);
        assert_int_equal(bi.mem[i].type, want[i]);
    }

    assert_int_equal(bi.n_modules, 2);
    assert_int_equal(bi.modules[0].start, 0x200000);
    assert_int_equal(bi.modules[0].end, 0x280000);
    assert_string_equal(bi.modules[0].tag, "hello");
    assert_int_equal(bi.modules[1].start, 0x280000);
    assert_int_equal(bi.modules[1].end, 0x281234);
    assert_string_equal(bi.modules[1].tag, "config blob");

    assert_true(bi.has_framebuffer);
    assert_int_equal(bi.fb.addr, 0xFD000000ULL);
    assert_int_equal(bi.fb.pitch, 4096);
    assert_int_equal(bi.fb.width, 1024);
    assert_int_equal(bi.fb.height, 768);
    assert_int_equal(bi.fb.bpp, 32);
    assert_int_equal(bi.fb.red_pos, 16);
    assert_int_equal(bi.fb.red_size, 8);
    assert_int_equal(bi.fb.green_pos, 8);
    assert_int_equal(bi.fb.green_size, 8);
    assert_int_equal(bi.fb.blue_pos, 0);
    assert_int_equal(bi.fb.blue_size, 8);

    assert_int_equal(bi.rsdp_len, 36);
    assert_memory_equal(bi.rsdp, rsdp_new, 36);

    assert_int_equal(bi.info_size, b.len);
    assert_int_equal(bi.dropped, 0);
}

/* The new RSDP wins whichever order the loader uses; the old one alone is kept. */
static void test_acpi_order(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_acpi(&b, MB2_TAG_ACPI_NEW, rsdp_new, sizeof rsdp_new);
    b_acpi(&b, MB2_TAG_ACPI_OLD, rsdp_old, sizeof rsdp_old);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.rsdp_len, 36);
    assert_memory_equal(bi.rsdp, rsdp_new, 36);

    b_init(&b);
    b_acpi(&b, MB2_TAG_ACPI_OLD, rsdp_old, sizeof rsdp_old);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.rsdp_len, 20);
    assert_memory_equal(bi.rsdp, rsdp_old, 20);
}

/* The smallest valid structure (header + end tag) gives an empty boot_info. */
static void test_minimal_structure(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_end(&b);
    assert_int_equal(b.len, 16);
    memset(&bi, 0xA5, sizeof bi); /* the parser must clear what it does not fill */
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, 0);
    assert_int_equal(bi.n_modules, 0);
    assert_int_equal(bi.rsdp_len, 0);
    assert_false(bi.has_framebuffer);
    assert_string_equal(bi.cmdline, "");
    assert_string_equal(bi.loader, "");
    assert_int_equal(bi.dropped, 0);
    assert_int_equal(bi.info_size, 16);
}

/* Tags the parser does not use, of odd sizes (so padding matters), are skipped and the tags
 * after them are still found. */
static void test_unknown_tags_skipped(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, 9 /* ELF sections */, 13);
    memset(t + 8, 0xEE, 13);
    b_string(&b, MB2_TAG_CMDLINE, "a");
    t = b_tag(&b, 21 /* image load base */, 1);
    t[8] = 0xFF;
    b_tag(&b, 0x12345678, 0);
    b_module(&b, 0x1000, 0x2000, "m");
    t = b_tag(&b, 10 /* APM */, 27);
    memset(t + 8, 0, 27);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_string_equal(bi.cmdline, "a");
    assert_int_equal(bi.n_modules, 1);
    assert_string_equal(bi.modules[0].tag, "m");
    assert_int_equal(bi.dropped, 0);
}

/* The structure need not be 8-aligned in memory (reads are bytewise; UBSan checks). */
static void test_unaligned_address(void **state)
{
    (void)state;
    static struct mb2b b;
    build_full(&b);
    uint8_t *p = malloc(b.len + 3);
    assert_non_null(p);
    memcpy(p + 3, b.buf, b.len);
    assert_int_equal(mb2_parse(p + 3, b.len, &bi, err, sizeof err), 0);
    assert_int_equal(bi.n_mem, 9);
    assert_int_equal(bi.n_modules, 2);
    free(p);
}

/* Strings longer than boot_info's fields are cut, still NUL-terminated. */
static void test_long_strings_truncated(void **state)
{
    (void)state;
    static struct mb2b b;
    char longcmd[400], longtag[100];
    memset(longcmd, 'c', sizeof longcmd - 1);
    longcmd[sizeof longcmd - 1] = 0;
    memset(longtag, 't', sizeof longtag - 1);
    longtag[sizeof longtag - 1] = 0;
    b_init(&b);
    b_string(&b, MB2_TAG_CMDLINE, longcmd);
    b_module(&b, 0x1000, 0x2000, longtag);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_LEN - 1);
    assert_int_equal(strncmp(bi.cmdline, longcmd, BOOT_CMDLINE_LEN - 1), 0);
    assert_int_equal(strlen(bi.modules[0].tag), BOOT_MODULE_TAG_LEN - 1);
}

/* An empty module (end == start) and an empty tag string are fine. */
static void test_empty_module(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_module(&b, 0x300000, 0x300000, "");
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_modules, 1);
    assert_int_equal(bi.modules[0].start, bi.modules[0].end);
    assert_string_equal(bi.modules[0].tag, "");
}

/* ---- truncated structures ----------------------------------------------------------------- */

/* Missing info, or fewer than 8 bytes, is refused before anything is read. */
static void test_too_short_or_null(void **state)
{
    (void)state;
    static struct mb2b b;
    build_full(&b);
    for (uint32_t len = 0; len < 8; len++)
        expect_error(&b, len, "shorter than 8");
    assert_int_equal(mb2_parse(NULL, 100, &bi, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing"));
}

/* The buffer is shorter than the total_size the structure claims. */
static void test_len_shorter_than_total(void **state)
{
    (void)state;
    static struct mb2b b;
    build_full(&b);
    expect_error(&b, b.len - 1, "claims");
    expect_error(&b, 8, "claims");
    /* Every prefix of the structure, total_size unchanged: all refused, none read past len. */
    for (uint32_t len = 0; len < b.len; len++)
        assert_int_equal(parse_len(&b, len), -1);
}

/* total_size below the 16 bytes of header + end tag. */
static void test_total_below_16(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_end(&b);
    for (uint32_t total = 0; total < 16; total++) {
        wr32(b.buf, total);
        expect_error(&b, 16, "claims");
    }
}

/* Every prefix of a valid structure with total_size rewritten to match: the prefix has no end
 * tag (or a tag cut short), so each one is refused; none is read past its end. */
static void test_every_consistent_prefix_refused(void **state)
{
    (void)state;
    static struct mb2b b;
    build_full(&b);
    uint32_t full = b.len;
    for (uint32_t len = 16; len < full; len++) {
        wr32(b.buf, len);
        if (parse_len(&b, len) != -1)
            fail_msg("a %u-byte prefix of a %u-byte structure was accepted", len, full);
        if (!strstr(err, "end tag") && !strstr(err, "outside"))
            fail_msg("prefix %u: unexpected reason \"%s\"", len, err);
    }
}

/* A structure whose tags stop without an end tag. */
static void test_missing_end_tag(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_string(&b, MB2_TAG_CMDLINE, "no end");
    wr32(b.buf, b.len);
    expect_error(&b, b.len, "end tag");

    /* Only an unknown tag, then nothing. */
    b_init(&b);
    b_tag(&b, 1000, 0); /* 8 bytes of something so total_size reaches 16 */
    wr32(b.buf, b.len);
    expect_error(&b, b.len, "end tag");
}

/* A tag whose size runs past total_size. */
static void test_tag_past_end(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_CMDLINE, 8);
    memcpy(t + 8, "abcdefg", 8);
    b_end(&b);
    wr32(t + 4, b.len); /* the tag claims more than is left */
    expect_error(&b, b.len, "outside");
    wr32(t + 4, 0xFFFFFFF0); /* and far more */
    expect_error(&b, b.len, "outside");

    /* The padding after the last tag runs past total_size: no room for an end tag. */
    b_init(&b);
    b_tag(&b, 1000, 1); /* size 9: padded to 16 */
    wr32(b.buf, 8 + 9);
    expect_error(&b, 8 + 9, "end tag");
}

/* Tag sizes below the 8-byte tag header (0 would otherwise loop forever). */
static void test_tag_size_below_8(void **state)
{
    (void)state;
    static struct mb2b b;
    for (uint32_t size = 0; size < 8; size++) {
        b_init(&b);
        uint8_t *t = b_tag(&b, MB2_TAG_LOADER_NAME, 8);
        b_end(&b);
        wr32(t + 4, size);
        char want[32];
        snprintf(want, sizeof want, "size %u", size);
        expect_error(&b, b.len, want);
    }
}

/* A NULL error buffer (errlen 0) is allowed; the result is still -1. */
static void test_no_error_buffer(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_string(&b, MB2_TAG_CMDLINE, "x");
    wr32(b.buf, b.len);
    uint8_t *p = malloc(b.len);
    assert_non_null(p);
    memcpy(p, b.buf, b.len);
    assert_int_equal(mb2_parse(p, b.len, &bi, NULL, 0), -1);
    free(p);
    /* A tiny error buffer is filled and terminated, not overrun. */
    char small[6];
    memset(small, 'X', sizeof small);
    p = malloc(4);
    assert_non_null(p);
    memset(p, 0, 4);
    assert_int_equal(mb2_parse(p, 4, &bi, small, sizeof small), -1);
    assert_int_equal(strlen(small), sizeof small - 1);
    free(p);
}

/* ---- malformed memory maps ---------------------------------------------------------------- */

static const struct mm two_entries[] = {
    { 0x0, 0x9F000, MB2_MMAP_AVAILABLE },
    { 0x100000, 0x1000000, MB2_MMAP_AVAILABLE },
};

/* Entry sizes that are too small or not multiples of 8 are refused, naming the size. */
static void test_mmap_bad_entry_size(void **state)
{
    (void)state;
    static struct mb2b b;
    const uint32_t bad[] = { 0, 8, 16, 20, 25, 28, 36 };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b_init(&b);
        b_mmap(&b, bad[i] >= 20 ? bad[i] : 24, two_entries, 2);
        b_end(&b);
        wr32(b.buf + 8 + 8, bad[i]); /* entry_size field of the first tag */
        char want[40];
        snprintf(want, sizeof want, "entry size %u", bad[i]);
        expect_error(&b, b.len, want);
    }
}

/* A memory map tag shorter than its own 16-byte header. */
static void test_mmap_tag_too_short(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_MMAP, 4);
    wr32(t + 8, 24);
    b_end(&b);
    expect_error(&b, b.len, "memory map");
}

/* Larger entries (a future entry version) are read by entry_size; a trailing partial entry and
 * a map with no entries are not errors. */
static void test_mmap_larger_entries_and_partial(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_mmap(&b, 32, two_entries, 2);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, 2);
    assert_int_equal(bi.mem[1].base, 0x100000);
    assert_int_equal(bi.mem[1].length, 0x1000000);

    /* Cut 10 bytes off the second entry: only the first is read. */
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_MMAP, 8 + 24 + 14);
    wr32(t + 8, 24);
    wr64(t + 16, 0x1000);
    wr64(t + 24, 0x2000);
    wr32(t + 32, MB2_MMAP_AVAILABLE);
    memset(t + 40, 0x77, 14);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, 1);
    assert_int_equal(bi.mem[0].base, 0x1000);

    b_init(&b);
    b_mmap(&b, 24, NULL, 0);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, 0);
}

/* An entry_size so large that `offset + entry_size` wraps 32 bits: the tag holds no complete
 * entry, so nothing may be read from it (and nothing outside it). */
static void test_mmap_huge_entry_size(void **state)
{
    (void)state;
    static struct mb2b b;
    const uint32_t huge[] = { 0xFFFFFFF8u, 0xFFFFFFF0u, 0x80000000u };
    for (unsigned i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        b_init(&b);
        b_mmap(&b, 24, two_entries, 1); /* a 40-byte tag: header + one 24-byte entry */
        b_end(&b);
        wr32(b.buf + 8 + 8, huge[i]);
        int rc = parse(&b);
        if (rc == 0 && bi.n_mem != 0)
            fail_msg("entry_size 0x%x in a 40-byte tag gave %u entries", huge[i], bi.n_mem);
    }
}

/* More entries than BOOT_MAX_MEM_REGIONS, in one tag or spread over two: the extra ones are
 * counted in `dropped`, the structure is still accepted. */
static void test_mmap_overflow_dropped(void **state)
{
    (void)state;
    static struct mb2b b;
    static struct mm many[BOOT_MAX_MEM_REGIONS + 5];
    for (unsigned i = 0; i < BOOT_MAX_MEM_REGIONS + 5; i++)
        many[i] = (struct mm){ (uint64_t)i << 20, 1 << 20, MB2_MMAP_AVAILABLE };

    b_init(&b);
    b_mmap(&b, 24, many, BOOT_MAX_MEM_REGIONS + 5);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, BOOT_MAX_MEM_REGIONS);
    assert_int_equal(bi.dropped, 5);
    assert_int_equal(bi.mem[BOOT_MAX_MEM_REGIONS - 1].base, (uint64_t)(BOOT_MAX_MEM_REGIONS - 1)
                                                                << 20);

    b_init(&b);
    b_mmap(&b, 24, many, 100);
    b_mmap(&b, 24, many + 100, 30);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, BOOT_MAX_MEM_REGIONS);
    assert_int_equal(bi.dropped, 2);
    assert_int_equal(bi.mem[100].base, 100ULL << 20);

    /* Exactly the limit: nothing dropped. */
    b_init(&b);
    b_mmap(&b, 24, many, BOOT_MAX_MEM_REGIONS);
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_mem, BOOT_MAX_MEM_REGIONS);
    assert_int_equal(bi.dropped, 0);
}

/* ---- modules and strings ------------------------------------------------------------------ */

/* A module that ends before it starts. */
static void test_module_end_before_start(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    b_module(&b, 0x400000, 0x3FF000, "bad");
    b_end(&b);
    expect_error(&b, b.len, "ends before");
}

/* A module tag too short to hold start, end and a NUL. */
static void test_module_tag_too_short(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_MODULE, 8);
    wr32(t + 8, 0x1000);
    wr32(t + 12, 0x2000);
    b_end(&b);
    expect_error(&b, b.len, "module");
}

/* A module string without its NUL inside the tag. */
static void test_module_unterminated(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_MODULE, 8 + 5);
    wr32(t + 8, 0x1000);
    wr32(t + 12, 0x2000);
    memcpy(t + 16, "hello", 5);
    b_end(&b);
    /* The padding after the tag is zero: the parser must not take it as the terminator. */
    expect_error(&b, b.len, "unterminated");
}

/* Command line and loader name without a NUL inside their tags (one with no bytes at all). */
static void test_strings_unterminated(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_tag(&b, MB2_TAG_CMDLINE, 3);
    memcpy(t + 8, "abc", 3);
    b_end(&b);
    expect_error(&b, b.len, "command line");

    b_init(&b);
    b_tag(&b, MB2_TAG_CMDLINE, 0);
    b_end(&b);
    expect_error(&b, b.len, "command line");

    b_init(&b);
    t = b_tag(&b, MB2_TAG_LOADER_NAME, 4);
    memcpy(t + 8, "GRUB", 4);
    b_end(&b);
    expect_error(&b, b.len, "loader name");
}

/* More modules than BOOT_MAX_MODULES: the first ones are kept in order, the rest counted. */
static void test_modules_overflow_dropped(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    for (unsigned i = 0; i < BOOT_MAX_MODULES + 3; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "g%u", i);
        b_module(&b, 0x1000000 + i * 0x10000, 0x1000000 + i * 0x10000 + 0x8000, tag);
    }
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_int_equal(bi.n_modules, BOOT_MAX_MODULES);
    assert_int_equal(bi.dropped, 3);
    assert_string_equal(bi.modules[0].tag, "g0");
    assert_string_equal(bi.modules[BOOT_MAX_MODULES - 1].tag, "g71");
    assert_int_equal(bi.modules[BOOT_MAX_MODULES - 1].start, 0x1000000 + 71 * 0x10000);
}

/* ---- framebuffer -------------------------------------------------------------------------- */

/* Indexed (0) and EGA text (2) framebuffers are not used. */
static void test_framebuffer_not_rgb(void **state)
{
    (void)state;
    static struct mb2b b;
    for (uint8_t type = 0; type <= 2; type += 2) {
        b_init(&b);
        b_fb(&b, type, 30);
        b_end(&b);
        assert_int_equal(parse(&b), 0);
        assert_false(bi.has_framebuffer);
    }
}

/* An RGB framebuffer that cannot be drawn on (zero size, pitch below a row, no colour info)
 * is not used either; a tag too short for the common part is an error. */
static void test_framebuffer_unusable_or_short(void **state)
{
    (void)state;
    static struct mb2b b;
    b_init(&b);
    uint8_t *t = b_fb(&b, MB2_FB_TYPE_RGB, 30);
    wr32(t + 20, 0); /* width 0 */
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_false(bi.has_framebuffer);

    b_init(&b);
    t = b_fb(&b, MB2_FB_TYPE_RGB, 30);
    wr32(t + 16, 1024 * 4 - 1); /* pitch shorter than one row of 32-bit pixels */
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_false(bi.has_framebuffer);

    b_init(&b);
    b_fb(&b, MB2_FB_TYPE_RGB, 24); /* common part only: no colour fields */
    b_end(&b);
    assert_int_equal(parse(&b), 0);
    assert_false(bi.has_framebuffer);

    b_init(&b);
    b_tag(&b, MB2_TAG_FRAMEBUFFER, 16);
    b_end(&b);
    expect_error(&b, b.len, "framebuffer");
}

/* ---- names -------------------------------------------------------------------------------- */

/* Every memory type has a name; an out-of-range value says so. */
static void test_mem_type_names(void **state)
{
    (void)state;
    assert_string_equal(boot_mem_type_name(BOOT_MEM_USABLE), "usable");
    assert_string_equal(boot_mem_type_name(BOOT_MEM_RESERVED), "reserved");
    assert_string_equal(boot_mem_type_name(BOOT_MEM_ACPI_RECLAIM), "ACPI reclaimable");
    assert_string_equal(boot_mem_type_name(BOOT_MEM_ACPI_NVS), "ACPI NVS");
    assert_string_equal(boot_mem_type_name(BOOT_MEM_BAD), "bad");
    assert_string_equal(boot_mem_type_name((enum boot_mem_type)0), "unknown");
    assert_string_equal(boot_mem_type_name((enum boot_mem_type)99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_structure),
        cmocka_unit_test(test_acpi_order),
        cmocka_unit_test(test_minimal_structure),
        cmocka_unit_test(test_unknown_tags_skipped),
        cmocka_unit_test(test_unaligned_address),
        cmocka_unit_test(test_long_strings_truncated),
        cmocka_unit_test(test_empty_module),
        cmocka_unit_test(test_too_short_or_null),
        cmocka_unit_test(test_len_shorter_than_total),
        cmocka_unit_test(test_total_below_16),
        cmocka_unit_test(test_every_consistent_prefix_refused),
        cmocka_unit_test(test_missing_end_tag),
        cmocka_unit_test(test_tag_past_end),
        cmocka_unit_test(test_tag_size_below_8),
        cmocka_unit_test(test_no_error_buffer),
        cmocka_unit_test(test_mmap_bad_entry_size),
        cmocka_unit_test(test_mmap_tag_too_short),
        cmocka_unit_test(test_mmap_larger_entries_and_partial),
        cmocka_unit_test(test_mmap_huge_entry_size),
        cmocka_unit_test(test_mmap_overflow_dropped),
        cmocka_unit_test(test_module_end_before_start),
        cmocka_unit_test(test_module_tag_too_short),
        cmocka_unit_test(test_module_unterminated),
        cmocka_unit_test(test_strings_unterminated),
        cmocka_unit_test(test_modules_overflow_dropped),
        cmocka_unit_test(test_framebuffer_not_rgb),
        cmocka_unit_test(test_framebuffer_unusable_or_short),
        cmocka_unit_test(test_mem_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
