/* boot_params, e820 and screen_info (boot/linux/zero_page.c), checked at the byte offsets of
 * Linux's zero-page.rst and screen_info.h rather than through the builder's own structs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "test_loader_fixture.h"
#include "boot/linux/linux_layout.h"
#include "boot/linux/zero_page.h"

static uint64_t get(const uint8_t *p, size_t off, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[off + i] << (8 * i);
    return v;
}

static const struct zp_framebuffer fb1024 = { LINUX_FB_GPA, 1024, 768, 4096, 48 * VLFB_SIZE_UNIT };

/* The e820 rules Linux relies on: sorted, no overlaps, RAM below 640 KiB for the real-mode
 * trampoline, the MP table's KiB reserved, RAM up to the top, the framebuffer reserved. */
static void check_e820(const struct boot_e820_entry *t, unsigned n, uint64_t ram,
                       const struct zp_framebuffer *fb)
{
    assert_true(n >= 3);
    for (unsigned i = 1; i < n; i++)
        assert_true(t[i].addr >= t[i - 1].addr + t[i - 1].size);
    assert_int_equal(t[0].addr, 0);
    assert_int_equal(t[0].type, E820_TYPE_RAM);
    assert_true(t[0].size >= 0x9F000);
    assert_int_equal(t[1].addr, LINUX_MPTABLE_GPA);
    assert_int_equal(t[1].addr + t[1].size, 0x100000);
    assert_int_equal(t[1].type, E820_TYPE_RESERVED);
    assert_int_equal(t[2].addr, 0x100000);
    assert_int_equal(t[2].addr + t[2].size, ram);
    assert_int_equal(t[2].type, E820_TYPE_RAM);
    if (fb) {
        assert_int_equal(n, 4);
        assert_int_equal(t[3].addr, fb->base);
        assert_int_equal(t[3].size, fb->bytes);
        assert_int_equal(t[3].type, E820_TYPE_RESERVED);
    } else {
        assert_int_equal(n, 3);
    }
}

static void test_e820_layout(void **state)
{
    struct boot_e820_entry t[ZP_E820_MAX];
    unsigned n = zp_e820_build(t, ZP_E820_MAX, 256ULL << 20, &fb1024);
    check_e820(t, n, 256ULL << 20, &fb1024);
    struct zp_framebuffer none = { 0 };
    n = zp_e820_build(t, ZP_E820_MAX, 128ULL << 20, &none);
    check_e820(t, n, 128ULL << 20, NULL);
    assert_int_equal(zp_e820_build(t, ZP_E820_MAX, 128ULL << 20, NULL), 3);
    /* refusals: too little room, less than 1 MiB of RAM */
    assert_int_equal(zp_e820_build(t, 3, 256ULL << 20, &fb1024), 0);
    assert_int_equal(zp_e820_build(t, 0, 256ULL << 20, NULL), 0);
    assert_int_equal(zp_e820_build(t, ZP_E820_MAX, 0xFFFFF, NULL), 0);
}

static void test_zero_page(void **state)
{
    uint8_t *img = fix_image();
    struct bzimage_info bi;
    assert_int_equal(bzimage_parse(img, FIX_IMAGE_BYTES, &bi, NULL, 0), BZ_OK);
    static uint8_t zp[ZP_BYTES];
    memset(zp, 0xCC, sizeof zp);
    struct zp_config c = { .ram_bytes = 256ULL << 20,
                           .cmdline_gpa = LINUX_CMDLINE_GPA,
                           .initrd_gpa = 0x0F000000,
                           .initrd_bytes = 0x123456,
                           .acpi_rsdp_gpa = LINUX_ACPI_GPA,
                           .fb = fb1024 };
    assert_int_equal(zp_build(zp, img, &bi, &c), 0);

    /* The setup header is copied to its own offset; what lies outside it is zero. */
    for (size_t off = 0x1F1; off < FIX_HEADER_END; off++) {
        if (off == 0x210 || (off >= 0x218 && off < 0x220) || (off >= 0x228 && off < 0x22C))
            continue; /* the fields the loader writes */
        if (zp[off] != img[off])
            fail_msg("header byte %#zx: %#x, the image has %#x", off, zp[off], img[off]);
    }
    for (size_t off = FIX_HEADER_END; off < 0x2D0; off++)
        assert_int_equal(zp[off], 0);
    assert_int_equal(zp[0x1EF], 0); /* sentinel */
    assert_int_equal(get(zp, 0x1FE, 2), 0xAA55);
    assert_int_equal(get(zp, 0x202, 4), 0x53726448);
    assert_int_equal(get(zp, 0x210, 1), 0xFF);              /* type_of_loader: undefined */
    assert_int_equal(get(zp, 0x228, 4), LINUX_CMDLINE_GPA); /* cmd_line_ptr */
    assert_int_equal(get(zp, 0x0C8, 4), 0);                 /* ext_cmd_line_ptr */
    assert_int_equal(get(zp, 0x218, 4), 0x0F000000);        /* ramdisk_image */
    assert_int_equal(get(zp, 0x21C, 4), 0x123456);          /* ramdisk_size */
    assert_int_equal(get(zp, 0x0C0, 4), 0);
    assert_int_equal(get(zp, 0x0C4, 4), 0);
    assert_int_equal(get(zp, 0x250, 8), 0); /* setup_data */
    assert_int_equal(get(zp, 0x211, 1) & BZ_LOADED_HIGH, BZ_LOADED_HIGH);
    assert_int_equal(get(zp, 0x070, 8), LINUX_ACPI_GPA); /* acpi_rsdp_addr */

    /* e820 at 0x2D0, 20 bytes per entry, count at 0x1E8 */
    unsigned n = zp[0x1E8];
    assert_int_equal(n, 4);
    struct boot_e820_entry t[4];
    for (unsigned i = 0; i < n; i++)
        t[i] = (struct boot_e820_entry){ get(zp, 0x2D0 + 20 * i, 8), get(zp, 0x2D0 + 20 * i + 8, 8),
                                         (uint32_t)get(zp, 0x2D0 + 20 * i + 16, 4) };
    check_e820(t, n, 256ULL << 20, &fb1024);
    for (size_t off = 0x2D0 + 20 * n; off < ZP_BYTES; off++)
        assert_int_equal(zp[off], 0);

    /* screen_info (include/uapi/linux/screen_info.h offsets): a VLFB vesafb takes */
    assert_int_equal(zp[0x0F], 0x23);         /* orig_video_isVGA */
    assert_int_equal(get(zp, 0x12, 2), 1024); /* lfb_width */
    assert_int_equal(get(zp, 0x14, 2), 768);
    assert_int_equal(get(zp, 0x16, 2), 32);              /* lfb_depth */
    assert_int_equal(get(zp, 0x18, 4), LINUX_FB_GPA);    /* lfb_base */
    assert_int_equal(get(zp, 0x1C, 4), 48);              /* lfb_size, 64 KiB units */
    assert_int_equal(get(zp, 0x24, 2), 4096);            /* lfb_linelength */
    const uint8_t rgb[8] = { 8, 16, 8, 8, 8, 0, 8, 24 }; /* red, green, blue, rsvd: size, pos */
    assert_memory_equal(zp + 0x26, rgb, 8);
    assert_int_equal(get(zp, 0x2E, 2), 0); /* vesapm_seg: no PMI */
    assert_int_equal(get(zp, 0x36, 4), 0); /* capabilities */
    assert_int_equal(get(zp, 0x3A, 4), 0); /* ext_lfb_base */
    assert_int_equal(zp[0x07], 128);       /* orig_video_cols */
    assert_int_equal(zp[0x0E], 48);        /* orig_video_lines */
    free(img);
}

static void test_without_initrd_or_framebuffer(void **state)
{
    uint8_t *img = fix_image();
    struct bzimage_info bi;
    assert_int_equal(bzimage_parse(img, FIX_IMAGE_BYTES, &bi, NULL, 0), BZ_OK);
    static uint8_t zp[ZP_BYTES];
    struct zp_config c = { .ram_bytes = 128ULL << 20,
                           .cmdline_gpa = LINUX_CMDLINE_GPA,
                           .initrd_gpa = 0x5000000 };
    assert_int_equal(zp_build(zp, img, &bi, &c), 0);
    assert_int_equal(get(zp, 0x218, 4), 0);
    assert_int_equal(get(zp, 0x21C, 4), 0);
    assert_int_equal(get(zp, 0x070, 8), 0); /* no ACPI tables */
    for (size_t off = 0; off < 0x40; off++)
        assert_int_equal(zp[off], 0); /* no screen_info */
    assert_int_equal(zp[0x1E8], 3);
    /* too little RAM for the map: refused */
    c.ram_bytes = 0x80000;
    assert_int_equal(zp_build(zp, img, &bi, &c), -1);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e820_layout),
        cmocka_unit_test(test_zero_page),
        cmocka_unit_test(test_without_initrd_or_framebuffer),
    };
    return cmocka_run_group_tests_name("loader_zero_page", tests, NULL, NULL);
}
