/*
 * The hardware backend's i915 sequences for hardware that misbehaves, against the recording
 * fake BAR0, each as i915 does it:
 *  - forcewake: a lost ack is recovered with the FORCEWAKE_KERNEL_FALLBACK toggle
 *    (WaRsForcewakeAddDelayForAck, intel_uncore.c fw_domain_wait_ack_with_fallback()); an
 *    ack that never comes is logged and the access goes ahead;
 *  - engine reset: stop the command streamer and wait for idle first (intel_engine_stop_cs),
 *    the RESET_CTL handshake with the catastrophic-error bypass (gen8_engine_reset_prepare),
 *    GDRST written twice and a settle delay (gen6_hw_domain_reset), retries that proceed
 *    without READY_TO_RESET (gen8_reset_engines, __intel_gt_reset), the request cancelled;
 *  - CSB pointers: both written, twice (reset_csb_pointers);
 *  - the timestamp rate from CTC_MODE (gen9_read_clock_frequency).
 */
#include "test_igpu_hw_fake.h"

#define FW_ALL_GET \
    { RD, AR, 0 }, { WR, QR, FW_SET }, { RD, AG, 0 }, { WR, QG, FW_SET }, { RD, AM, 0 }, \
        { WR, QM, FW_SET }, { RD, AR, 1 }, { RD, AG, 1 }, \
    { \
        RD, AM, 1 \
    }
#define FW_ALL_PUT \
    { WR, QR, FW_CLEAR }, { WR, QG, FW_CLEAR }, \
    { \
        WR, QM, FW_CLEAR \
    }
/* intel_engine_stop_cs() on engine base b */
#define STOP_CS(b) \
    { WR, GEN9_RING_MI_MODE(b), 0x01000100u }, { RD, GEN9_RING_MI_MODE(b), 0x300 }, \
    { \
        RD, GEN9_RING_MI_MODE(b), 0x300 \
    }
/* gen6_hw_domain_reset(): the domain's GDRST bit written twice, each acknowledged after one
 * poll, then 50 us to settle */
#define GDRST_TWICE(dom) \
    { WR, GEN9_GDRST, dom }, { RD, GEN9_GDRST, dom }, { DELAY, 0, 1 }, { RD, GEN9_GDRST, 0 }, \
        { WR, GEN9_GDRST, dom }, { RD, GEN9_GDRST, dom }, { DELAY, 0, 1 }, { RD, GEN9_GDRST, 0 }, \
    { \
        DELAY, 0, 50 \
    }
/* gen8_engine_reset_cancel(), intel_engine_cancel_stop_cs() */
#define CANCEL(b) \
    { WR, GEN9_RING_RESET_CTL(b), 0x00010000u }, \
    { \
        WR, GEN9_RING_MI_MODE(b), 0x01000000u \
    }

static void forcewake_lost_ack_uses_the_fallback_toggle(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t v, head = GEN9_RING_HEAD(GEN9_RCS_BASE);
    (void)state;
    setup(&f, &hw, true);
    hw.poll_limit = 1;
    f.lost_acks = 1;
    *reg(&f, head) = 0x40;
    f.n = 0;
    assert_int_equal(igpu_reg_read(igpu_hw_igpu(&hw), head, &v), 0);
    assert_int_equal(v, 0x40);
    const struct op exp[] = {
        { RD, AR, 0 },
        { WR, QR, FW_SET },
        { RD, AR, 0 },
        { DELAY, 0, 1 },
        { RD, AR, 0 },
        { DELAY, 0, 1 }, /* ack lost */
        /* pass 1: fallback ack clear, set it, 10 us, wait for its ack, look, clear it */
        { RD, AR, 0 },
        { WR, QR, FB_SET },
        { DELAY, 0, 10 },
        { RD, AR, 0x8001 },
        { RD, AR, 0x8001 },
        { WR, QR, FB_CLEAR },
        { RD, head, 0x40 },
        { WR, QR, FW_CLEAR },
    };
    expect(&f, exp, sizeof exp / sizeof exp[0]);
    assert_int_equal(hw.fw_fallbacks, 1);
    assert_int_equal(hw.fw_ack_timeouts, 0);
    assert_int_equal(f.n_msg, 0);
}

static void forcewake_ack_timeout_is_logged_and_the_access_goes_ahead(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t v, head = GEN9_RING_HEAD(GEN9_RCS_BASE);
    (void)state;
    setup(&f, &hw, true);
    hw.poll_limit = 1;
    f.stuck_ack = true;
    *reg(&f, head) = 0x44;
    f.n = 0;
    assert_int_equal(igpu_reg_read(igpu_hw_igpu(&hw), head, &v), 0);
    assert_int_equal(v, 0x44);
    /* Ten fallback passes with growing pauses, then the register is read anyway. */
    assert_int_equal(count_ops(&f, WR, QR, FB_SET), 10);
    assert_int_equal(count_ops(&f, WR, QR, FB_CLEAR), 10);
    assert_int_equal(count_ops(&f, DELAY, 0, 100), 1);
    assert_int_equal(count_ops(&f, RD, head, 0x44), 1);
    assert_int_equal(f.log[f.n - 1].off, QR); /* and released */
    assert_int_equal(hw.fw_ack_timeouts, 1);
    assert_non_null(strstr(last_msg(&f), "render: timed out waiting for forcewake ack"));
    assert_int_equal(hw.fw_count[0], 0);
}

static void engine_reset_stops_the_cs_first(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t b = GEN9_BCS_BASE, ctl = GEN9_RING_RESET_CTL(b);
    (void)state;
    setup(&f, &hw, true);
    f.n = 0;
    assert_int_equal(igpu_engine_reset(igpu_hw_igpu(&hw), IGPU_BCS), 0);
    const struct op exp[] = {
        FW_ALL_GET,
        STOP_CS(b),
        /* gen8_engine_reset_prepare(): request, READY_TO_RESET */
        { RD, ctl, 0 },
        { WR, ctl, 0x00010001u },
        { RD, ctl, 0x3 },
        GDRST_TWICE(GEN9_GRDOM_BLT),
        CANCEL(b),
        FW_ALL_PUT,
    };
    expect(&f, exp, sizeof exp / sizeof exp[0]);
    assert_int_equal(hw.reset_retries, 0);
    assert_int_equal(hw.csb_head[IGPU_BCS], GEN9_CSB_ENTRIES - 1u);
}

static void engine_reset_bypasses_the_handshake_on_a_catastrophic_error(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t b = GEN9_BCS_BASE, ctl = GEN9_RING_RESET_CTL(b);
    (void)state;
    setup(&f, &hw, true);
    *reg(&f, ctl) = GEN9_RESET_CTL_CAT_ERROR;
    f.n = 0;
    assert_int_equal(igpu_engine_reset(igpu_hw_igpu(&hw), IGPU_BCS), 0);
    const struct op exp[] = {
        FW_ALL_GET,
        STOP_CS(b),
        /* CAT_ERROR: request it, wait for the hardware to clear it; no READY_TO_RESET */
        { RD, ctl, GEN9_RESET_CTL_CAT_ERROR },
        { WR, ctl, 0x00040004u },
        { RD, ctl, 0 },
        GDRST_TWICE(GEN9_GRDOM_BLT),
        CANCEL(b),
        FW_ALL_PUT,
    };
    expect(&f, exp, sizeof exp / sizeof exp[0]);
}

static void engine_reset_retries_without_ready_and_goes_ahead(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t b = GEN9_BCS_BASE, ctl = GEN9_RING_RESET_CTL(b);
    (void)state;
    setup(&f, &hw, true);
    hw.poll_limit = 1;
    f.never_ready = true;
    f.never_idle = true;
    f.n = 0;
    assert_int_equal(igpu_engine_reset(igpu_hw_igpu(&hw), IGPU_BCS), 0);
    /* The engine did not stop: reported, and the reset went on. */
    assert_int_equal(hw.stop_cs_timeouts, 1);
    /* Attempt 1 asked, got no READY_TO_RESET and skipped GDRST; attempt 2 asked again and
     * reset anyway ("we rather take context corruption instead of failed reset"). */
    assert_int_equal(count_ops(&f, WR, ctl, 0x00010001u), 2);
    assert_int_equal(count_ops(&f, WR, ctl, 0x00010000u), 2);
    assert_int_equal(count_ops(&f, WR, GEN9_GDRST, GEN9_GRDOM_BLT), 2);
    unsigned first_gdrst = 0, second_request = 0, requests = 0;
    for (unsigned i = 0; i < f.n; i++) {
        if (f.log[i].kind == WR && f.log[i].off == ctl && f.log[i].val == 0x00010001u &&
            ++requests == 2)
            second_request = i;
        if (!first_gdrst && f.log[i].kind == WR && f.log[i].off == GEN9_GDRST)
            first_gdrst = i;
    }
    assert_true(second_request && first_gdrst > second_request);
    assert_int_equal(hw.reset_retries, 1);
    assert_int_equal(f.n_msg, 3); /* stop timeout, two unanswered requests */
    assert_non_null(strstr(f.msg[1], "reset request timed out"));

    /* A reset that never completes is tried three times, reported, and still cancelled. */
    f.never_ready = false;
    f.never_idle = false;
    f.gdrst_sticky = true;
    f.n = 0;
    assert_int_equal(igpu_engine_reset(igpu_hw_igpu(&hw), IGPU_BCS), IGPU_ETIMEDOUT);
    assert_int_equal(count_ops(&f, WR, GEN9_GDRST, GEN9_GRDOM_BLT), 3);
    assert_int_equal(count_ops(&f, WR, ctl, 0x00010000u), 3);
    assert_non_null(strstr(last_msg(&f), "did not reset after 3 attempts"));
}

static void engine_init_bludgeons_both_csb_pointers(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu_csb_event ev[6];
    uint32_t b = GEN9_BCS_BASE;
    (void)state;
    setup(&f, &hw, true);
    *reg(&f, GEN9_RING_CSB_PTR(b)) = 0x0302; /* stale pointers from before a reset */
    assert_int_equal(igpu_engine_init(igpu_hw_igpu(&hw), IGPU_BCS, 0x7000), 0);
    assert_int_equal(count_ops(&f, WR, GEN9_RING_CSB_PTR(b), 0xFFFF0505u), 2);
    /* The engine's first event after that lands in entry 0, and is read. */
    *reg(&f, GEN9_RING_CSB_PTR(b)) = 0x0500;
    *reg(&f, GEN9_RING_CSB_LO(b, 0)) = GEN9_CTX_STATUS_IDLE_ACTIVE;
    assert_int_equal(igpu_csb_read(igpu_hw_igpu(&hw), IGPU_BCS, ev, 6), 1);
    assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
}

static void timestamp_rate_comes_from_ctc_mode(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    (void)state;
    setup_ctc(&f, &hw, true, 2u << GEN9_CTC_SHIFT_SHIFT, 0);
    assert_int_equal(igpu_hw_igpu(&hw)->info.timestamp_hz, 12000000);
    setup_ctc(&f, &hw, true, 3u << GEN9_CTC_SHIFT_SHIFT, 0);
    assert_int_equal(igpu_hw_igpu(&hw)->info.timestamp_hz, 24000000);
    setup_ctc(&f, &hw, true, 0, 0);
    assert_int_equal(igpu_hw_igpu(&hw)->info.timestamp_hz, 3000000);
    /* Divide logic: (divider + 1) MHz + 1 MHz / (denominator + 1), from TIMESTAMP_OVERRIDE. */
    setup_ctc(&f, &hw, true, GEN9_CTC_SOURCE_DIVIDE_LOGIC, 18u | 1u << 12);
    assert_int_equal(igpu_hw_igpu(&hw)->info.timestamp_hz, 19500000);
    assert_int_equal(count_ops(&f, RD, GEN9_TIMESTAMP_OVERRIDE, 18u | 1u << 12), 1);
}

/* The vGPU says its rate the same way: every rate the two encodings can express round-trips. */
static void timestamp_rate_encodes_back(void **state)
{
    uint32_t ctc, ovr;
    (void)state;
    for (uint32_t shift = 0; shift <= 3; shift++) {
        uint32_t hz = gen9_cs_timestamp_hz(shift << GEN9_CTC_SHIFT_SHIFT, 0);
        assert_true(gen9_cs_timestamp_encode(hz, &ctc, &ovr));
        assert_int_equal(ctc, shift << GEN9_CTC_SHIFT_SHIFT);
    }
    for (uint32_t div = 0; div <= GEN9_TS_OVERRIDE_DIVIDER_MASK; div += 7)
        for (uint32_t den = 0; den <= 15; den++) {
            uint32_t hz = gen9_cs_timestamp_hz(GEN9_CTC_SOURCE_DIVIDE_LOGIC, div | den << 12);
            assert_true(gen9_cs_timestamp_encode(hz, &ctc, &ovr));
            assert_int_equal(gen9_cs_timestamp_hz(ctc, ovr), hz);
        }
    assert_false(gen9_cs_timestamp_encode(12345, &ctc, &ovr));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forcewake_lost_ack_uses_the_fallback_toggle),
        cmocka_unit_test(forcewake_ack_timeout_is_logged_and_the_access_goes_ahead),
        cmocka_unit_test(engine_reset_stops_the_cs_first),
        cmocka_unit_test(engine_reset_bypasses_the_handshake_on_a_catastrophic_error),
        cmocka_unit_test(engine_reset_retries_without_ready_and_goes_ahead),
        cmocka_unit_test(engine_init_bludgeons_both_csb_pointers),
        cmocka_unit_test(timestamp_rate_comes_from_ctc_mode),
        cmocka_unit_test(timestamp_rate_encodes_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
