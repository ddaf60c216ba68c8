/* CRC-32 of vmm/display/crc32.c: the standard check value, the table against the polynomial
 * bit by bit, incremental use, and the pixel form (R, G, B bytes, X ignored). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "vmm/display/crc32.h"

/* The definition, one bit at a time, to check the table-driven code against. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = DISPLAY_CRC32_INIT;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = (c & 1) ? (c >> 1) ^ DISPLAY_CRC32_POLY : c >> 1;
    }
    return c ^ DISPLAY_CRC32_XOROUT;
}

static void check_value(void **state)
{
    (void)state;
    assert_int_equal(display_crc32("123456789", 9), 0xCBF43926u);
    assert_int_equal(display_crc32("", 0), 0u);
    /* zlib.crc32(b"The quick brown fox jumps over the lazy dog") */
    const char *fox = "The quick brown fox jumps over the lazy dog";
    assert_int_equal(display_crc32(fox, strlen(fox)), 0x414FA339u);
}

static void every_byte_matches_bitwise(void **state)
{
    (void)state;
    uint8_t all[256];
    for (unsigned i = 0; i < 256; i++) {
        all[i] = (uint8_t)i;
        assert_int_equal(display_crc32(&all[i], 1), crc_bitwise(&all[i], 1));
    }
    assert_int_equal(display_crc32(all, sizeof all), crc_bitwise(all, sizeof all));
}

static void incremental_equals_one_shot(void **state)
{
    (void)state;
    const char *s = "123456789";
    uint32_t st = DISPLAY_CRC32_INIT;
    st = display_crc32_update(st, s, 4);
    st = display_crc32_update(st, s + 4, 5);
    assert_int_equal(st ^ DISPLAY_CRC32_XOROUT, 0xCBF43926u);
}

static void pixels_are_rgb_bytes(void **state)
{
    (void)state;
    /* Two pixels with junk in the X byte: the CRC must equal that of "R G B R G B". */
    const uint32_t px[2] = { 0xAB112233u, 0xFF445566u };
    const uint8_t rgb[6] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
    uint32_t st = display_crc32_pixels(DISPLAY_CRC32_INIT, px, 2) ^ DISPLAY_CRC32_XOROUT;
    assert_int_equal(st, display_crc32(rgb, sizeof rgb));
    const uint32_t clean[2] = { 0x00112233u, 0x00445566u };
    assert_int_equal(display_crc32_pixels(DISPLAY_CRC32_INIT, clean, 2) ^ DISPLAY_CRC32_XOROUT, st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_value),
        cmocka_unit_test(every_byte_matches_bitwise),
        cmocka_unit_test(incremental_equals_one_shot),
        cmocka_unit_test(pixels_are_rgb_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
