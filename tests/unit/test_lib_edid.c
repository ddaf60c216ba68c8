/*
 * The virtual monitor's modes and EDID (lib/edid.h) against the rules
 * i915 6.1 and drm apply: every generated mode passes intel_cpu_transcoder_mode_valid() and
 * intel_dp_mode_valid()'s clock floor; the refresh is the one asked for; the EDID has the
 * header, version 1.4, digital 8-bit DisplayPort input, no continuous frequency, the preferred
 * mode first, 640x480 second, a name, and a zero checksum.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/edid.h"

static void check_mode(uint32_t w, uint32_t h, uint32_t hz)
{
    struct edid_mode m;
    assert_true(edid_mode_make(w, h, hz, &m));
    assert_true(edid_mode_i915_valid(&m));
    assert_int_equal(m.hdisplay, w);
    assert_int_equal(m.vdisplay, h);
    assert_true(m.clock_khz % 10 == 0); /* the EDID's 10 kHz unit */
    uint32_t mhz = edid_mode_refresh_mhz(&m);
    assert_true(mhz >= hz * 1000u && mhz <= hz * 1000u + hz); /* exact, or above by < 0.1 % */
    assert_true(m.htotal - m.hdisplay <= 4095 && m.vtotal - m.vdisplay <= 4095);
}

static void test_modes(void **state)
{
    (void)state;
    check_mode(512, 384, 60);
    check_mode(512, 384, 30);
    check_mode(512, 384, 20);
    check_mode(512, 384, 10);
    check_mode(640, 480, 60);
    check_mode(640, 480, 25);
    check_mode(1024, 768, 60);
    check_mode(1920, 1080, 60);
    check_mode(64, 64, 10); /* the smallest: blanking widened a lot */
    check_mode(4095, 2000, 60);
    struct edid_mode m;
    assert_true(edid_mode_make(512, 384, 60, &m));
    assert_int_equal(edid_mode_refresh_mhz(&m), 60000);
    assert_int_equal(m.vtotal, 398);
    assert_true(m.clock_khz >= 10000);
}

static void test_limits(void **state)
{
    (void)state;
    struct edid_mode m;
    assert_false(edid_mode_make(63, 384, 60, &m));
    assert_false(edid_mode_make(512, 63, 60, &m));
    assert_false(edid_mode_make(4096, 384, 60, &m));
    assert_false(edid_mode_make(512, 384, 9, &m));
    assert_false(edid_mode_make(512, 384, 61, &m));
    assert_false(edid_mode_make(4095, 4095, 60, &m)); /* over 655 MHz */
}

static void test_edid(void **state)
{
    (void)state;
    static const uint8_t header[8] = { 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00 };
    uint8_t e[EDID_BYTES];
    assert_true(edid_build(512, 384, 30, e));
    assert_memory_equal(e, header, 8);
    assert_int_equal(e[18], 1);
    assert_int_equal(e[19], 4);
    assert_int_equal(e[20], 0xA5);  /* digital, 8 bpc, DisplayPort */
    assert_int_equal(e[24] & 1, 0); /* no continuous frequency */
    assert_true(e[24] & 2);         /* preferred timing is native */
    assert_int_equal(e[126], 0);    /* no extensions */
    uint8_t sum = 0;
    for (unsigned i = 0; i < EDID_BYTES; i++)
        sum = (uint8_t)(sum + e[i]);
    assert_int_equal(sum, 0);
    struct edid_mode want, got;
    assert_true(edid_mode_make(512, 384, 30, &want));
    assert_true(edid_timing(e, 0, &got));
    assert_memory_equal(&got, &want, sizeof want);
    assert_true(edid_mode_make(640, 480, 30, &want));
    assert_true(edid_timing(e, 1, &got));
    assert_memory_equal(&got, &want, sizeof want);
    assert_false(edid_timing(e, 2, &got)); /* the name */
    assert_int_equal(e[54 + 36 + 3], 0xFC);
    assert_memory_equal(e + 54 + 36 + 5, "Tessera DP-1\n", 13);
    assert_false(edid_timing(e, 3, &got));
    for (unsigned i = 0; i < 3; i++) /* no established timings */
        assert_int_equal(e[35 + i], 0);
}

static void test_edid_640(void **state)
{
    (void)state;
    uint8_t e[EDID_BYTES];
    struct edid_mode got;
    assert_true(edid_build(640, 480, 60, e));
    assert_true(edid_timing(e, 0, &got));
    assert_int_equal(got.hdisplay, 640);
    assert_false(edid_timing(e, 1, &got)); /* no second copy of the same mode */
    assert_false(edid_build(20, 20, 60, e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_edid),
        cmocka_unit_test(test_edid_640),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
