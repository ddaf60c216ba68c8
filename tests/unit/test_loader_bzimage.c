/* bzImage header checks (boot/linux/bzimage.c): a good header is read field by field, and each
 * way a file can be truncated, corrupt or unsupported is refused with its own code and a line
 * that names the cause. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_loader_fixture.h"
#include "boot/linux/bzimage.h"

static char err[200];
static struct bzimage_info bi;

static int parse(const uint8_t *img, size_t len)
{
    memset(&bi, 0xA5, sizeof bi);
    return bzimage_parse(img, len, &bi, err, sizeof err);
}

static void test_good_header(void **state)
{
    uint8_t *img = fix_image();
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_OK);
    assert_string_equal(err, "");
    assert_int_equal(bi.version, 0x020F);
    assert_int_equal(bi.setup_bytes, FIX_SETUP_BYTES);
    assert_int_equal(bi.kernel_bytes, FIX_KERNEL_BYTES);
    assert_int_equal(bi.header_end, FIX_HEADER_END);
    assert_int_equal(bi.kernel_alignment, 0x200000);
    assert_true(bi.relocatable);
    assert_int_equal(bi.pref_address, FIX_PREF_ADDRESS);
    assert_int_equal(bi.init_size, FIX_INIT_SIZE);
    assert_int_equal(bi.initrd_addr_max, 0x7FFFFFFF);
    assert_int_equal(bi.cmdline_size, 2047);
    assert_int_equal(bi.xloadflags & BZ_XLF_KERNEL_64, BZ_XLF_KERNEL_64);
    /* trailing bytes after the kernel (signatures, padding) are allowed */
    uint8_t *big = calloc(1, FIX_IMAGE_BYTES + 4096);
    memcpy(big, img, FIX_IMAGE_BYTES);
    assert_int_equal(parse(big, FIX_IMAGE_BYTES + 4096), BZ_OK);
    free(big);
    free(img);
}

static void test_setup_sects_zero_means_four(void **state)
{
    uint8_t *img = fix_image();
    fix_put(img, BZ_SETUP_SECTS, 0, 1);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_OK);
    assert_int_equal(bi.setup_bytes, 5 * 512);
    free(img);
}

static void test_truncated(void **state)
{
    uint8_t *img = fix_image();
    /* anywhere short of the whole protected-mode part */
    const size_t cuts[] = {
        0, 1, 0x1F1, 0x205, 0x207, 0x208, FIX_HEADER_END - 1, FIX_SETUP_BYTES, FIX_IMAGE_BYTES - 1
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        assert_int_equal(parse(img, cuts[i]), BZ_ETRUNCATED);
        assert_non_null(strstr(err, "truncated"));
    }
    assert_int_equal(parse(img, FIX_IMAGE_BYTES - 1), BZ_ETRUNCATED);
    assert_non_null(
        strstr(err, "36863 bytes, but the header says 20480 of setup and 16384 of kernel"));
    free(img);
}

static void test_not_a_bzimage(void **state)
{
    uint8_t *img = fix_image();
    fix_put(img, BZ_HEADER, 0x53726449, 4);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_ECORRUPT);
    assert_non_null(strstr(err, "not a bzImage"));
    free(img);
    img = fix_image();
    fix_put(img, BZ_BOOT_FLAG, 0x55AA, 2);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_ECORRUPT);
    /* an ELF file is not a bzImage either */
    memcpy(img, "\177ELF", 4);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_ECORRUPT);
    free(img);
}

static void test_old_protocol_named(void **state)
{
    uint8_t *img = fix_image();
    fix_put(img, BZ_VERSION, 0x020B, 2);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_EUNSUPPORTED);
    assert_string_equal(err, "boot protocol 2.11 is older than 2.12 (no 64-bit entry)");
    fix_put(img, BZ_VERSION, 0x0204, 2);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_EUNSUPPORTED);
    assert_non_null(strstr(err, "2.04"));
    fix_put(img, BZ_VERSION, BZ_PROTOCOL_MIN, 2);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_OK);
    free(img);
}

static void test_needs_64bit_entry_and_loaded_high(void **state)
{
    uint8_t *img = fix_image();
    fix_put(img, BZ_XLOADFLAGS, 0x7E, 2);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_EUNSUPPORTED);
    assert_non_null(strstr(err, "XLF_KERNEL_64"));
    free(img);
    img = fix_image();
    fix_put(img, BZ_LOADFLAGS, 0, 1);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_EUNSUPPORTED);
    assert_non_null(strstr(err, "LOADED_HIGH"));
    free(img);
}

static void test_corrupt_fields(void **state)
{
    struct {
        size_t off;
        uint64_t val;
        unsigned bytes;
        const char *says;
    } cases[] = {
        { BZ_JUMP + 1, 0x10, 1, "setup header ends at 0x212" }, /* header too short for 2.12 */
        { BZ_SETUP_SECTS, 0, 1, NULL },                         /* (fine: 4 sectors) */
        { BZ_SYSSIZE, 0, 4, "protected-mode code of 0 bytes" },
        { BZ_KERNEL_ALIGNMENT, 0x300000, 4, "not a power of two" },
        { BZ_KERNEL_ALIGNMENT, 0, 4, "not a power of two" },
        { BZ_PAYLOAD_OFFSET, FIX_KERNEL_BYTES - 0x1000, 4, "compressed kernel" },
        { BZ_PAYLOAD_LENGTH, 0, 4, "compressed kernel" },
        { BZ_PAYLOAD_LENGTH, 0xFFFFFFFF, 4, "compressed kernel" },
        { BZ_INIT_SIZE, 0x1000, 4, "init_size" },
        { BZ_CMDLINE_SIZE, 0, 4, "cmdline_size" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *img = fix_image();
        fix_put(img, cases[i].off, cases[i].val, cases[i].bytes);
        int rc = parse(img, FIX_IMAGE_BYTES);
        if (!cases[i].says) {
            assert_int_equal(rc, BZ_OK);
        } else {
            assert_int_equal(rc, BZ_ECORRUPT);
            if (!strstr(err, cases[i].says))
                fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].says);
        }
        free(img);
    }
    /* one setup sector cannot hold the header that follows it */
    uint8_t *img = fix_image();
    fix_put(img, BZ_JUMP + 1, 0xFF, 1);
    fix_put(img, BZ_SETUP_SECTS, 0, 1);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_OK); /* 0x301 <= 5 * 512 */
    free(img);
}

static void test_load_address(void **state)
{
    uint8_t *img = fix_image();
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_OK);
    assert_int_equal(bzimage_load_address(&bi, 0x100000), FIX_PREF_ADDRESS);
    /* pref_address below the lowest allowed: the next aligned address */
    bi.pref_address = 0x100000;
    assert_int_equal(bzimage_load_address(&bi, 0x300000), 0x400000);
    bi.pref_address = 0x1100000; /* not 2 MiB aligned */
    assert_int_equal(bzimage_load_address(&bi, 0x100000), 0x200000);
    bi.relocatable = false;
    assert_int_equal(bzimage_load_address(&bi, 0x100000), 0);
    bi.pref_address = 0x1000000;
    assert_int_equal(bzimage_load_address(&bi, 0x100000), 0x1000000);
    assert_int_equal(bzimage_load_address(&bi, 0x2000000), 0);
    /* a non-relocatable kernel without a usable pref_address is refused at parse time */
    fix_put(img, BZ_RELOCATABLE_KERNEL, 0, 1);
    fix_put(img, BZ_PREF_ADDRESS, 0x1080000, 8);
    assert_int_equal(parse(img, FIX_IMAGE_BYTES), BZ_EUNSUPPORTED);
    assert_non_null(strstr(err, "not relocatable"));
    free(img);
}

static void test_no_output_without_image(void **state)
{
    assert_int_equal(bzimage_parse(NULL, 100, &bi, err, sizeof err), BZ_ECORRUPT);
    uint8_t *img = fix_image();
    assert_int_equal(bzimage_parse(img, FIX_IMAGE_BYTES, &bi, NULL, 0), BZ_OK); /* err optional */
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_header),
        cmocka_unit_test(test_setup_sects_zero_means_four),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_not_a_bzimage),
        cmocka_unit_test(test_old_protocol_named),
        cmocka_unit_test(test_needs_64bit_entry_and_loaded_high),
        cmocka_unit_test(test_corrupt_fields),
        cmocka_unit_test(test_load_address),
        cmocka_unit_test(test_no_output_without_image),
    };
    return cmocka_run_group_tests_name("loader_bzimage", tests, NULL, NULL);
}
