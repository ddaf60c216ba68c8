/* The screenshot's pixel form of the CRC (vmm/display/pixel_crc.c): each pixel is the bytes R,
 * G, B of lib/crc32.h's CRC, the X byte ignored, whatever the chunking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/display/pixel_crc.h"

static void pixels_are_rgb_bytes(void **state)
{
    (void)state;
    /* Two pixels with junk in the X byte: the CRC must equal that of "R G B R G B". */
    const uint32_t px[2] = { 0xAB112233u, 0xFF445566u };
    const uint8_t rgb[6] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
    uint32_t st = display_crc32_pixels(CRC32_IEEE_INIT, px, 2) ^ CRC32_IEEE_XOROUT;
    assert_int_equal(st, crc32_ieee(rgb, sizeof rgb));
    const uint32_t clean[2] = { 0x00112233u, 0x00445566u };
    assert_int_equal(display_crc32_pixels(CRC32_IEEE_INIT, clean, 2) ^ CRC32_IEEE_XOROUT, st);
}

/* A row longer than the pixels done per call of the byte CRC: the same as byte by byte. */
static void long_rows_equal_byte_by_byte(void **state)
{
    (void)state;
    enum { N = 1000 };
    static uint32_t px[N];
    static uint8_t rgb[3 * N];
    for (unsigned i = 0; i < N; i++) {
        px[i] = 0x9E3779B9u * (i + 1);
        rgb[3 * i] = (uint8_t)(px[i] >> 16);
        rgb[3 * i + 1] = (uint8_t)(px[i] >> 8);
        rgb[3 * i + 2] = (uint8_t)px[i];
    }
    uint32_t st = display_crc32_pixels(CRC32_IEEE_INIT, px, N) ^ CRC32_IEEE_XOROUT;
    assert_int_equal(st, crc32_ieee(rgb, sizeof rgb));
    /* Split at an odd place: the state carries over. */
    uint32_t s2 = display_crc32_pixels(CRC32_IEEE_INIT, px, 77);
    s2 = display_crc32_pixels(s2, px + 77, N - 77) ^ CRC32_IEEE_XOROUT;
    assert_int_equal(s2, st);
    assert_int_equal(display_crc32_pixels(CRC32_IEEE_INIT, px, 0), CRC32_IEEE_INIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pixels_are_rgb_bytes),
        cmocka_unit_test(long_rows_equal_byte_by_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
