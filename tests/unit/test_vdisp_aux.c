/*
 * The monitor's AUX channel through port D's registers, as i915 6.1 and drm use it: the DPCD
 * capabilities intel_dp_get_dpcd() reads, a read past the table (LTTPR's 0xF0000) answering
 * zeros, a write past it NACKed, the EDID over I2C-over-AUX equal to the generated one in 16-
 * byte reads, other I2C addresses NACKed, link training (TPS1 -> clock recovery, TPS2 ->
 * equalisation, symbol lock, alignment), and an unplugged monitor's requests timing out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/vdisp_fixture.h"

static struct vdisp d;
static const struct vdisp_monitor mon = { true, 512, 384, 30 };

static int setup(void **state)
{
    (void)state;
    vdisp_init(&d, &mon);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    vdisp_free(&d);
    return 0;
}

static void test_dpcd_caps(void **state)
{
    (void)state;
    uint8_t caps[15];
    assert_int_equal(fx_dpcd_read(&d, 0x000, caps, 15), 0); /* DP_RECEIVER_CAP_SIZE */
    assert_int_equal(caps[0], 0x12);                        /* DP 1.2 */
    assert_int_equal(caps[1], 0x0A);                        /* 2.7 Gb/s */
    assert_int_equal(caps[2], 0x84);                        /* 4 lanes, enhanced framing */
    assert_int_equal(caps[5] & 1, 0);                       /* no downstream port */
    assert_int_equal(caps[14] & 0x80, 0);                   /* no extended caps at 0x2200 */
    uint8_t b[16];
    assert_int_equal(fx_dpcd_read(&d, 0x021, b, 1), 0); /* DP_MSTM_CAP */
    assert_int_equal(b[0], 0);
    assert_int_equal(fx_dpcd_read(&d, 0x200, b, 1), 0); /* SINK_COUNT */
    assert_int_equal(b[0], 1);
    assert_int_equal(fx_dpcd_read(&d, 0x400, b, 12), 0); /* sink OUI: zeros are fine */
    memset(b, 0xAA, sizeof b);
    assert_int_equal(fx_dpcd_read(&d, 0xF0000, b, 8), 0); /* LTTPR caps: none */
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(b[i], 0);
    assert_int_equal(fx_dpcd_read(&d, 0x000, b, 1), 0); /* 0xF0000 did not alias 0 */
    assert_int_equal(b[0], 0x12);
    uint8_t one = 1;
    assert_int_equal(fx_dpcd_write(&d, 0x800, &one, 1), 0x10); /* NACK past the table */
    assert_int_equal(fx_dpcd_write(&d, 0x000, &one, 1), 0x10); /* capabilities are read-only */
    assert_int_equal(fx_dpcd_write(&d, 0x600, &one, 1), 0);    /* SET_POWER D0 */
}

static void test_edid_over_aux(void **state)
{
    (void)state;
    uint8_t want[EDID_BYTES], got[EDID_BYTES];
    assert_true(edid_build(512, 384, 30, want));
    int xfers = fx_read_edid(&d, got, sizeof got);
    assert_int_equal(xfers, 3 + 8 + 1); /* GVT-g's one byte a read: 132 */
    assert_memory_equal(got, want, sizeof want);
    /* drm_probe_ddc(): one byte at offset 0 again. */
    assert_true(fx_read_edid(&d, got, 1) > 0);
    assert_int_equal(got[0], 0x00);
    uint8_t rx[20];
    assert_int_equal(fx_i2c(&d, 0x4, 0x37, NULL, 0, false, rx), 1); /* DDC/CI: nobody */
    assert_int_equal(rx[0], 0x40);
    uint8_t seg = 1;
    assert_int_equal(fx_i2c(&d, 0x4, 0x30, &seg, 1, false, rx), 1); /* segment 1: none */
    assert_int_equal(rx[0], 0x40);
    seg = 0;
    assert_int_equal(fx_i2c(&d, 0x4, 0x30, &seg, 1, false, rx), 1);
    assert_int_equal(rx[0], 0);
}

static void lane_status(uint8_t *s)
{
    assert_int_equal(fx_dpcd_read(&d, 0x202, s, 6), 0); /* drm_dp_dpcd_read_link_status() */
}

static void test_link_training(void **state)
{
    (void)state;
    uint8_t s[6], cfg[2] = { 0x06, 0x81 }; /* 1.62 Gb/s, 1 lane + EF */
    assert_int_equal(fx_dpcd_write(&d, 0x100, cfg, 2), 0);
    uint8_t tps1[5] = { 0x21, 0, 0, 0, 0 }; /* TPS1, scrambling off, lanes */
    assert_int_equal(fx_dpcd_write(&d, 0x102, tps1, 5), 0);
    lane_status(s);
    assert_int_equal(s[0] & 0x1, 0x1); /* CR done */
    assert_int_equal(s[0] & 0x6, 0);
    assert_int_equal(s[4], 0); /* no adjustment asked */
    uint8_t tps2 = 0x22;
    assert_int_equal(fx_dpcd_write(&d, 0x102, &tps2, 1), 0);
    lane_status(s);
    assert_int_equal(s[0], 0x77);
    assert_int_equal(s[1], 0x77);
    assert_int_equal(s[2] & 1, 1); /* inter-lane align done */
    uint8_t off = 0;
    assert_int_equal(fx_dpcd_write(&d, 0x102, &off, 1), 0);
    lane_status(s);
    assert_int_equal(s[0], 0x77);  /* the link stays good */
    assert_int_equal(s[3] & 1, 1); /* in sync */
}

static void test_no_sink(void **state)
{
    (void)state;
    const char *why;
    struct vdisp_monitor off = { false, 0, 0, 0 };
    assert_true(vdisp_plug(&d, &off, 0, &why));
    uint8_t b[4];
    assert_int_equal(fx_dpcd_read(&d, 0, b, 1), -1);
    uint8_t tx[4] = { 0x90, 0, 0, 0 }, rx[20];
    assert_int_equal(fx_aux(&d, tx, 4, rx), -2); /* a timeout, as on hardware */
    assert_int_equal(d.st.hotplugs, 1);
    /* And a message size i915 never sends. */
    assert_true(vdisp_plug(&d, &mon, 0, &why));
    vdisp_write(&d, GEN9_DP_AUX_CH_CTL(AUXD), SEND_CTL(0), 0);
    assert_true(vdisp_read(&d, GEN9_DP_AUX_CH_CTL(AUXD), 0) & GEN9_DP_AUX_CH_CTL_RECEIVE_ERROR);
}

/* A monitor replaced by another (operator hotplug): the next EDID read is the new one. */
static void test_replug_new_edid(void **state)
{
    (void)state;
    const char *why;
    uint8_t got[EDID_BYTES], want[EDID_BYTES];
    struct vdisp_monitor a = { true, 640, 480, 30 }, b = { true, 512, 384, 30 };
    assert_true(fx_read_edid(&d, got, sizeof got) > 0);
    assert_true(vdisp_plug(&d, &a, 0, &why));
    assert_true(fx_read_edid(&d, got, sizeof got) > 0);
    assert_true(edid_build(640, 480, 30, want));
    assert_memory_equal(got, want, sizeof got);
    assert_true(vdisp_plug(&d, &b, 0, &why));
    assert_true(fx_read_edid(&d, got, sizeof got) > 0);
    assert_true(edid_build(512, 384, 30, want));
    assert_memory_equal(got, want, sizeof got);
}

static void test_malformed(void **state)
{
    (void)state;
    uint8_t rx[20];
    uint8_t long_read[4] = { 0x90, 0, 0, 19 }; /* 20 bytes: does not fit */
    assert_int_equal(fx_aux(&d, long_read, 4, rx), 1);
    assert_int_equal(rx[0], 0x10);
    uint8_t short_write[5] = { 0x80, 0x01, 0x00, 3, 0 }; /* says 4, carries 1 */
    assert_int_equal(fx_aux(&d, short_write, 5, rx), 1);
    assert_int_equal(rx[0], 0x10);
    uint8_t reserved[4] = { 0xA0, 0, 0, 0 };
    assert_int_equal(fx_aux(&d, reserved, 4, rx), 1);
    assert_int_equal(rx[0], 0x10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dpcd_caps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edid_over_aux, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_training, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_sink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replug_new_edid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
