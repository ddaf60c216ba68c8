/* CRC-32 of lib/crc32.c: the standard check values, the table against the polynomial bit by
 * bit, and incremental use. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lib/crc32.h"

/* The definition, one bit at a time, to check the table-driven code against. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = CRC32_IEEE_INIT;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = (c & 1) ? (c >> 1) ^ CRC32_IEEE_POLY : c >> 1;
    }
    return c ^ CRC32_IEEE_XOROUT;
}

static void check_value(void **state)
{
    (void)state;
    /* The CRC-32 (IEEE) check value of "123456789", and zlib.crc32() of two more. */
    assert_int_equal(crc32_ieee("123456789", 9), 0xCBF43926u);
    assert_int_equal(crc32_ieee("", 0), 0u);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    assert_int_equal(crc32_ieee(fox, strlen(fox)), 0x414FA339u);
}

static void every_byte_matches_bitwise(void **state)
{
    (void)state;
    uint8_t all[256];
    for (unsigned i = 0; i < 256; i++) {
        all[i] = (uint8_t)i;
        assert_int_equal(crc32_ieee(&all[i], 1), crc_bitwise(&all[i], 1));
    }
    assert_int_equal(crc32_ieee(all, sizeof all), crc_bitwise(all, sizeof all));
}

static void incremental_equals_one_shot(void **state)
{
    (void)state;
    const char *s = "123456789";
    uint32_t st = CRC32_IEEE_INIT;
    st = crc32_ieee_update(st, s, 4);
    st = crc32_ieee_update(st, s + 4, 0);
    st = crc32_ieee_update(st, s + 4, 5);
    assert_int_equal(st ^ CRC32_IEEE_XOROUT, 0xCBF43926u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_value),
        cmocka_unit_test(every_byte_matches_bitwise),
        cmocka_unit_test(incremental_equals_one_shot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
