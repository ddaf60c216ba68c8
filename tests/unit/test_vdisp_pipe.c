/*
 * The display engine as i915 6.1 programs it on Skylake (display/intel_cdclk.c skl_set_cdclk(),
 * intel_dpll_mgr.c skl_ddi_pll_enable(), intel_ddi.c hsw_ddi_pre_enable_dp(),
 * intel_display.c hsw_crtc_enable(), skl_universal_plane.c, i915_irq.c): the initial "all
 * off" state, every wait i915 makes answered (PLL locks, DBUF, DDI buffer idle, idle pattern
 * done, pipe state), the pipe's vblank clock (frame counter, PIPEDSL, the vblank interrupt only
 * when unmasked, at most one per period), planes armed by PLANE_SURF and latched at the vblank
 * with flip-done, async flips, the scan-out decode and its refusals, hotplug and reset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/vdisp_fixture.h"

#define MS        1000000ull
#define CDCLK_CTL 0x46000u /* plain storage: i915 reads back what it wrote */
static struct vdisp d;
static const struct vdisp_monitor mon = { true, 512, 384, 30 };
static struct edid_mode mode;

static uint32_t rd(uint32_t off)
{
    return vdisp_read(&d, off, fx_now);
}
static void wr(uint32_t off, uint32_t v)
{
    vdisp_write(&d, off, v, fx_now);
}

static int setup(void **state)
{
    (void)state;
    fx_now = 1000 * MS;
    vdisp_init(&d, &mon);
    assert_true(edid_mode_make(512, 384, 30, &mode));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    vdisp_free(&d);
    return 0;
}

static void test_initial_state(void **state)
{
    (void)state;
    assert_int_equal(rd(GEN9_SFUSE_STRAP), GEN9_SFUSE_STRAP_DDID_DETECTED);
    assert_true(rd(GEN9_VGACNTRL) & GEN9_VGA_DISP_DISABLE);
    for (unsigned p = 0; p < 5; p++)
        assert_int_equal(rd(GEN9_DDI_BUF_CTL(p)), GEN9_DDI_BUF_IS_IDLE); /* not detected */
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), 0);                        /* iir_is_zero */
    assert_int_equal(rd(GEN9_DE_PORT_IIR), 0);
    assert_int_equal(rd(GEN9_SDE_IIR), 0);
    assert_int_equal(rd(GEN9_DE_PIPE_IMR(0)), ~0u);
    wr(GEN9_EDP_PSR_IIR, 0xFFFFFFFF);                               /* gen8_display_irq_reset() */
    assert_int_equal(rd(GEN9_EDP_PSR_IIR), 0);                      /* gen3_assert_iir_is_zero() */
    assert_int_equal(rd(GEN9_SDE_ISR), GEN9_SDE_PORTD_HOTPLUG_SPT); /* connected */
    assert_int_equal(rd(GEN9_PIPECONF_A), 0);
    assert_int_equal(rd(GEN9_PIPEDSL_A), 0);
    assert_int_equal(rd(CDCLK_CTL), 0);
    wr(GEN9_SFUSE_STRAP, 0);
    assert_int_equal(rd(GEN9_SFUSE_STRAP), GEN9_SFUSE_STRAP_DDID_DETECTED); /* a strap */
    assert_int_equal(vdisp_irq_summary(&d.irq), 0);
}

/* skl_dpll0_enable(), skl_set_cdclk()'s CDCLK_CTL, gen9_dbuf_enable(). */
static void test_cdclk_and_dbuf(void **state)
{
    (void)state;
    wr(GEN9_DPLL_CTRL1, (1u << 0) | (GEN9_DPLL_CTRL1_RATE_810 << 1)); /* DPLL0 override, 810 */
    wr(GEN9_LCPLL1_CTL, rd(GEN9_LCPLL1_CTL) | GEN9_LCPLL_PLL_ENABLE);
    assert_true(rd(GEN9_LCPLL1_CTL) & GEN9_LCPLL_PLL_LOCK);
    assert_true(rd(GEN9_DPLL_STATUS) & GEN9_DPLL_LOCK(0));
    wr(CDCLK_CTL, 0x1C2u);
    assert_int_equal(rd(CDCLK_CTL), 0x1C2u); /* read back */
    wr(GEN9_DBUF_CTL, GEN9_DBUF_POWER_REQUEST);
    assert_true(rd(GEN9_DBUF_CTL) & GEN9_DBUF_POWER_STATE);
    wr(GEN9_DBUF_CTL, 0);
    assert_false(rd(GEN9_DBUF_CTL) & GEN9_DBUF_POWER_STATE);
    wr(GEN9_LCPLL1_CTL, 0);
    assert_false(rd(GEN9_LCPLL1_CTL) & GEN9_LCPLL_PLL_LOCK); /* skl_dpll0_disable() */
}

/* The link M/N i915 computes for mode over a 1.62 Gb/s lane (intel_link_compute_m_n()
 * reduced: link_m / link_n = pixel clock / port clock). */
static void program_mode(void)
{
    /* skl_ddi_pll_enable() for DPLL1 at 810 (port clock 162000 kHz), DPLL_CTRL2 port D on it. */
    wr(GEN9_DPLL_CTRL1, rd(GEN9_DPLL_CTRL1) | (1u << 6) | (GEN9_DPLL_CTRL1_RATE_810 << 7));
    wr(GEN9_LCPLL2_CTL, GEN9_LCPLL_PLL_ENABLE);
    assert_true(rd(GEN9_DPLL_STATUS) & GEN9_DPLL_LOCK(1));
    wr(GEN9_DPLL_CTRL2, (1u << 9) | (1u << 10)); /* override, DPLL1 */
    /* Link training: DDI buffer on, idle pattern then normal. */
    wr(GEN9_DP_TP_CTL(3), 1u << 31); /* enabled, training pattern 1 */
    wr(GEN9_DDI_BUF_CTL(3), GEN9_DDI_BUF_CTL_ENABLE);
    assert_false(rd(GEN9_DDI_BUF_CTL(3)) & GEN9_DDI_BUF_IS_IDLE);
    wr(GEN9_DP_TP_CTL(3), (1u << 31) | GEN9_DP_TP_CTL_PATTERN_IDLE);
    assert_true(rd(GEN9_DP_TP_STATUS(3)) & GEN9_DP_TP_STATUS_IDLE_DONE); /* 1 ms wait */
    wr(GEN9_DP_TP_CTL(3), (1u << 31) | (3u << 8));
    /* Timings, PIPESRC, M/N, then the transcoder and the pipe. */
    wr(GEN9_HTOTAL_A, (mode.htotal - 1) << 16 | (mode.hdisplay - 1));
    wr(GEN9_VTOTAL_A, (mode.vtotal - 1) << 16 | (mode.vdisplay - 1));
    wr(GEN9_VBLANK_A, (mode.vtotal - 1) << 16 | (mode.vdisplay - 1));
    wr(GEN9_PIPESRC_A, (mode.hdisplay - 1) << 16 | (mode.vdisplay - 1));
    wr(GEN9_PIPE_LINK_M1_A, mode.clock_khz);
    wr(GEN9_PIPE_LINK_N1_A, 162000);
    wr(GEN9_PIPECONF_A, GEN9_PIPECONF_ENABLE);
    assert_true(rd(GEN9_PIPECONF_A) & GEN9_PIPECONF_STATE_ENABLE);
}

static void test_modeset_and_vblank(void **state)
{
    (void)state;
    program_mode();
    uint32_t mhz = vdisp_refresh_mhz(&d);
    assert_true(mhz >= 29900 && mhz <= 30100);
    uint64_t period = d.period_ns;
    /* PIPEDSL: vblank_start - 1 right after a vblank (the enable), moving with time. */
    assert_int_equal(rd(GEN9_PIPEDSL_A), mode.vdisplay - 1);
    uint32_t last = rd(GEN9_PIPEDSL_A), wrapped = 0;
    for (unsigned i = 1; i < 20; i++) {
        fx_now += period / 20;
        uint32_t l = rd(GEN9_PIPEDSL_A);
        assert_true(l < mode.vtotal);
        if (l < last)
            wrapped++;
        last = l;
    }
    assert_int_equal(wrapped, 1); /* once past vtotal, back to 0 */
    /* Vblanks while masked: counted, nothing latched, no summary. */
    uint32_t f0 = rd(GEN9_PIPE_FRMCOUNT_A);
    fx_now += period;
    vdisp_tick(&d, fx_now);
    assert_int_equal(rd(GEN9_PIPE_FRMCOUNT_A), f0 + 1);
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), 0);
    /* gen8_de_irq_postinstall() enables, bdw_enable_vblank() unmasks bit 0. */
    wr(GEN9_DE_PIPE_IER(0), GEN9_PIPE_VBLANK | GEN9_PIPE_PLANE_FLIP_DONE(0));
    wr(GEN9_DE_PIPE_IMR(0), ~GEN9_PIPE_VBLANK);
    fx_now += 3 * period + period / 2; /* three frames late: one event */
    vdisp_tick(&d, fx_now);
    assert_int_equal(rd(GEN9_PIPE_FRMCOUNT_A), f0 + 5);
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), GEN9_PIPE_VBLANK);
    assert_int_equal(vdisp_irq_summary(&d.irq), GEN9_MASTER_DE_PIPE_IRQ(0));
    assert_int_equal(d.st.vblank_events, 2);
    wr(GEN9_DE_PIPE_IIR(0), GEN9_PIPE_VBLANK); /* the handler clears it */
    assert_int_equal(vdisp_irq_summary(&d.irq), 0);
    /* Nothing more within the same period, however often it is asked. */
    vdisp_tick(&d, fx_now + 1);
    vdisp_tick(&d, fx_now + period / 4);
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), 0);
    /* Pipe off: the state bit clears at once (intel_wait_for_pipe_off()), the counter stays. */
    wr(GEN9_PIPECONF_A, 0);
    assert_false(rd(GEN9_PIPECONF_A) & GEN9_PIPECONF_STATE_ENABLE);
    fx_now += 10 * period;
    vdisp_tick(&d, fx_now);
    assert_int_equal(rd(GEN9_PIPE_FRMCOUNT_A), f0 + 5);
    assert_int_equal(rd(GEN9_PIPEDSL_A), 0);
}

/* skl_plane_update_noarm() + skl_plane_update_arm(): CTL, then SURF last. */
static void flip(uint32_t surf, uint32_t ctl_extra)
{
    wr(GEN9_PLANE_STRIDE(1), 512 * 4 / 64);
    wr(GEN9_PLANE_POS(1), 0);
    wr(GEN9_PLANE_SIZE(1), (384 - 1) << 16 | (512 - 1));
    wr(GEN9_PLANE_OFFSET(1), 0);
    wr(GEN9_PLANE_CTL(1), GEN9_PLANE_CTL_ENABLE | GEN9_PLANE_CTL_FORMAT_XRGB_8888 | ctl_extra);
    wr(GEN9_PLANE_SURF(1), surf);
}

static void test_flips_latch_at_vblank(void **state)
{
    (void)state;
    flip(0x100000, 0); /* pipe off: live at once */
    assert_int_equal(rd(GEN9_PLANE_SURFLIVE(1)), 0x100000);
    program_mode();
    wr(GEN9_DE_PIPE_IER(0), GEN9_PIPE_VBLANK | GEN9_PIPE_PLANE_FLIP_DONE(0));
    wr(GEN9_DE_PIPE_IMR(0), ~(GEN9_PIPE_VBLANK | GEN9_PIPE_PLANE_FLIP_DONE(0)));
    uint32_t fc = rd(GEN9_PIPE_FLIPCOUNT_A);
    flip(0x200000, 0);
    assert_int_equal(rd(GEN9_PIPE_FLIPCOUNT_A), fc + 1);
    assert_int_equal(rd(GEN9_PLANE_SURF(1)), 0x200000);     /* what was written */
    assert_int_equal(rd(GEN9_PLANE_SURFLIVE(1)), 0x100000); /* still the old frame */
    struct vdisp_scanout s;
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    assert_int_equal(s.surf, 0x100000);
    /* A half-written next set changes nothing on screen until its SURF write and a vblank. */
    wr(GEN9_PLANE_STRIDE(1), 1);
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    assert_int_equal(s.stride, 2048);
    fx_now += d.period_ns;
    vdisp_tick(&d, fx_now);
    assert_int_equal(rd(GEN9_PLANE_SURFLIVE(1)), 0x200000);
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), GEN9_PIPE_VBLANK | GEN9_PIPE_PLANE_FLIP_DONE(0));
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    assert_int_equal(s.surf, 0x200000);
    assert_int_equal(s.stride, 2048);
    assert_int_equal(s.pipe_w, 512);
    assert_int_equal(s.first, 0x200000);
    assert_int_equal(s.end, 0x200000 + 384ull * 2048);
    wr(GEN9_DE_PIPE_IIR(0), ~0u);
    /* Async: live at once, flip-done at once. */
    flip(0x300000, GEN9_PLANE_CTL_ASYNC_FLIP);
    assert_int_equal(rd(GEN9_PLANE_SURFLIVE(1)), 0x300000);
    assert_int_equal(rd(GEN9_DE_PIPE_IIR(0)), GEN9_PIPE_PLANE_FLIP_DONE(0));
    assert_int_equal(d.st.async_flips, 1);
    /* skl_plane_disable_arm(): CTL 0, SURF 0, off at the vblank. */
    wr(GEN9_PLANE_CTL(1), 0);
    wr(GEN9_PLANE_SURF(1), 0);
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    fx_now += d.period_ns;
    vdisp_tick(&d, fx_now);
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PLANE_OFF);
}

/* A flip and the vblank that makes it live. */
static void shown(uint32_t surf, uint32_t ctl_extra)
{
    flip(surf, ctl_extra);
    fx_now += d.period_ns;
    vdisp_tick(&d, fx_now);
}

/* The last register write armed; the vblank makes it live. */
static void latch(void)
{
    fx_now += d.period_ns;
    vdisp_tick(&d, fx_now);
}

static void test_scanout_checks(void **state)
{
    (void)state;
    program_mode();
    struct vdisp_scanout s;
    wr(GEN9_PLANE_CTL(1), GEN9_PLANE_CTL_ENABLE | (0xEu << 24)); /* RGB565 is 0xE on SKL */
    wr(GEN9_PLANE_SURF(1), 0x100000);
    latch();
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_BAD_FORMAT);
    shown(0x100000, 0x4u << 10); /* Y-tiled */
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_BAD_TILING);
    shown(0x100000, GEN9_PLANE_CTL_ORDER_RGBX);
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    assert_true(s.bgr);
    wr(GEN9_PLANE_SIZE(1), (385 - 1) << 16 | (512 - 1)); /* taller than the pipe */
    wr(GEN9_PLANE_SURF(1), 0x100000);
    latch();
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_BAD_SIZE);
    flip(0x100000, 0);
    wr(GEN9_PLANE_STRIDE(1), 512 * 4 / 64 - 1); /* a row would read past its stride */
    wr(GEN9_PLANE_SURF(1), 0x100000);
    latch();
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_BAD_STRIDE);
    flip(0x100000, 0);
    wr(GEN9_PLANE_STRIDE(1), 0);
    wr(GEN9_PLANE_SURF(1), 0x100000);
    latch();
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_BAD_STRIDE);
    /* X-tiled with a source offset: whole tile rows from the offset's. */
    flip(0x100000, GEN9_PLANE_CTL_TILED_X);
    wr(GEN9_PLANE_STRIDE(1), 4); /* 2048 bytes */
    wr(GEN9_PLANE_OFFSET(1), 10u << 16);
    wr(GEN9_PLANE_SURF(1), 0x100FFF); /* low bits are not the address */
    latch();
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PICTURE);
    assert_true(s.xtiled);
    assert_int_equal(s.surf, 0x100000);
    assert_int_equal(s.first, 0x100000 + 8 * 2048);
    assert_int_equal(s.end, 0x100000 + 400ull * 2048); /* rows 0..393 -> 400 */
    wr(GEN9_PIPECONF_A, 0);
    assert_int_equal(vdisp_scanout(&d, &s), VDISP_SCAN_PIPE_OFF);
}

static void test_hotplug_and_reset(void **state)
{
    (void)state;
    const char *why;
    wr(GEN9_SDE_IER, GEN9_SDE_PORTD_HOTPLUG_SPT);
    wr(GEN9_SDE_IMR, ~GEN9_SDE_PORTD_HOTPLUG_SPT);
    wr(GEN9_PCH_PORT_HOTPLUG, GEN9_PORTD_HOTPLUG_ENABLE); /* spt_hpd_detection_setup() */
    struct vdisp_monitor off = { false, 0, 0, 0 }, big = { true, 1024, 768, 60 },
                         bad = { true, 20, 20, 60 };
    assert_true(vdisp_plug(&d, &off, fx_now, &why));
    assert_int_equal(rd(GEN9_SDE_ISR), 0);
    assert_int_equal(rd(GEN9_SDE_IIR), GEN9_SDE_PORTD_HOTPLUG_SPT);
    assert_int_equal(vdisp_irq_summary(&d.irq), GEN9_MASTER_DE_PCH_IRQ);
    uint32_t hp = rd(GEN9_PCH_PORT_HOTPLUG);
    assert_int_equal(hp, GEN9_PORTD_HOTPLUG_ENABLE | GEN9_PORTD_HOTPLUG_LONG_DETECT);
    wr(GEN9_PCH_PORT_HOTPLUG, hp); /* spt_irq_handler() clears the status */
    assert_int_equal(rd(GEN9_PCH_PORT_HOTPLUG), GEN9_PORTD_HOTPLUG_ENABLE);
    wr(GEN9_SDE_IIR, GEN9_SDE_PORTD_HOTPLUG_SPT);
    assert_false(vdisp_plug(&d, &bad, fx_now, &why));
    assert_true(vdisp_plug(&d, &big, fx_now, &why));
    assert_int_equal(rd(GEN9_SDE_ISR), GEN9_SDE_PORTD_HOTPLUG_SPT);
    uint8_t e[EDID_BYTES], want[EDID_BYTES];
    assert_true(fx_read_edid(&d, e, sizeof e) > 0);
    assert_true(edid_build(1024, 768, 60, want));
    assert_memory_equal(e, want, sizeof e);
    /* A restart: all off again, the configured monitor back, the clock stopped. */
    program_mode();
    flip(0x200000, 0);
    vdisp_reset(&d);
    assert_int_equal(rd(GEN9_PIPECONF_A), 0);
    assert_int_equal(rd(GEN9_PLANE_SURFLIVE(1)), 0);
    assert_int_equal(rd(GEN9_PIPE_FRMCOUNT_A), 0);
    assert_int_equal(rd(GEN9_SDE_IIR), 0);
    assert_int_equal(rd(GEN9_PCH_PORT_HOTPLUG), 0);
    assert_int_equal(rd(GEN9_DDI_BUF_CTL(3)), GEN9_DDI_BUF_IS_IDLE);
    assert_int_equal(rd(GEN9_DPLL_STATUS), 0);
    assert_int_equal(d.mon.width, 512);
    assert_true(fx_read_edid(&d, e, sizeof e) > 0);
    assert_true(edid_build(512, 384, 30, want));
    assert_memory_equal(e, want, sizeof e);
    assert_int_equal(d.store.pages, 3); /* the straps' pages only */
    assert_int_equal(d.st.hotplugs, 2); /* counters keep counting */
}

static void test_storage(void **state)
{
    (void)state;
    assert_true(vdisp_owns(0x45270)); /* WM_LINETIME */
    assert_true(vdisp_owns(0xC5100)); /* GMBUS0 */
    assert_false(vdisp_owns(0x2000));
    assert_false(vdisp_owns(0x140000));
    wr(0x70240, 0x80000123); /* PLANE_WM(A, 1, 0): read back */
    assert_int_equal(rd(0x70240), 0x80000123);
    assert_int_equal(rd(0x7F008), 0); /* never written */
    assert_int_equal(d.st.ro_ignored, 0);
    wr(GEN9_PIPE_FRMCOUNT_A, 5);
    assert_int_equal(d.st.ro_ignored, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_initial_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cdclk_and_dbuf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_modeset_and_vblank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flips_latch_at_vblank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scanout_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hotplug_and_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_storage, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
