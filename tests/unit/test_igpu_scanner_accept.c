/* Scanner accept rules: each command the engines run, exact blit extents, batch shadowing
 * and rewriting, allowed-range normalization, and the workload facts and cost estimate. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/test_igpu_scanner_fixture.h"

#define RCS_GPR(n) GEN9_RING_CS_GPR(GEN9_RCS_BASE, n)
#define BCS_GPR(n) GEN9_RING_CS_GPR(GEN9_BCS_BASE, n)

static int setup_rcs(void **state)
{
    *state = fx_new(IGPU_RCS);
    return 0;
}

static int setup_bcs(void **state)
{
    *state = fx_new(IGPU_BCS);
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void test_render_commands(void **state)
{
    struct fx *f = *state;
    uint32_t *r = f->ring;
    const struct igpu_scan_cost cost = { .cmd_ns = 10,
                                         .blit_ns = 1000,
                                         .pixel_ps = 1000,
                                         .write_ns = 7,
                                         .batch_ns = 500 };

    f->cfg.cost = &cost;
    f->n += emit_noop(r + f->n);
    r[f->n++] = GEN9_MI_NOOP | GEN9_MI_NOOP_ID_WRITE | 0x1234u;
    f->n += emit_user_interrupt(r + f->n);
    f->n += emit_sdi(r + f->n, FX_GM_BASE + 0x100, 1);
    f->n += emit_sdi_qw(r + f->n, FX_GM_BASE + 0x108, 2);
    f->n += emit_lri1(r + f->n, RCS_GPR(0), 5);
    f->n += emit_srm(r + f->n, GEN9_RING_TIMESTAMP(GEN9_RCS_BASE), FX_GM_BASE + 0x200);
    f->n += emit_lrm(r + f->n, RCS_GPR(1) + 4, FX_GM_BASE + 0x204);
    f->n += emit_pipe_control(r + f->n,
                              GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                                  GEN9_PIPE_CONTROL_WRITE_IMMEDIATE,
                              FX_GM_BASE + 0x300, 3);
    f->n += emit_pipe_control(r + f->n, GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_NOTIFY, 0,
                              0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.err.code, IGPU_SCAN_OK);
    assert_int_equal(f->res.commands, 10);
    assert_int_equal(f->res.mem_writes, 4); /* two stores, SRM, post-sync */
    assert_int_equal(f->res.reg_writes, 2); /* LRI, LRM */
    assert_int_equal(f->res.user_interrupts, 1);
    assert_int_equal(f->res.notifies, 1);
    assert_int_equal(f->res.batches, 0);
    assert_int_equal(f->res.blits, 0);
    assert_int_equal(f->res.shadow_used_dw, 0);
    assert_int_equal(f->res.est_cost_ns, 10 * 10 + 4 * 7);
}

static void test_lri_several_pairs(void **state)
{
    struct fx *f = *state;
    uint32_t *r = f->ring;

    r[0] = GEN9_MI_LOAD_REGISTER_IMM(3) | GEN9_MI_LRI_FORCE_POSTED;
    r[1] = RCS_GPR(0);
    r[2] = 1;
    r[3] = RCS_GPR(0) + 4;
    r[4] = 2;
    r[5] = RCS_GPR(15) + 4;
    r[6] = 3;
    f->n = 7;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.reg_writes, 3);
    assert_int_equal(f->res.commands, 1);
}

/* BCS_SWCTRL is blitter context state (i915 gen9_xcs_offsets): the default blitter list lets a
 * guest load and read it, since it is saved with each guest's context; the render engine has
 * no such register. */
static void test_bcs_swctrl_is_allowed_on_the_blitter(void **state)
{
    struct fx *f = *state;
    uint32_t *r = f->ring;

    f->n += emit_lri1(r + f->n, GEN9_BCS_SWCTRL, GEN9_MASKED_BIT_ENABLE(GEN9_BCS_SWCTRL_DST_Y));
    f->n += emit_srm(r + f->n, GEN9_BCS_SWCTRL, FX_GM_BASE);
    f->n += emit_lrm(r + f->n, GEN9_BCS_SWCTRL, FX_GM_BASE);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.reg_writes, 2);
    f->cfg.regs = igpu_scan_default_regs_rcs;
    f->cfg.n_regs = igpu_scan_default_regs_rcs_count;
    f->n = emit_lri1(r, GEN9_BCS_SWCTRL, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_REG_DENIED);
}

static void test_blitter_commands(void **state)
{
    struct fx *f = *state;
    uint32_t *r = f->ring;

    f->n += emit_color_blt(r + f->n, FX_GM_BASE, 256, 0, 0, 64, 16, 0xFF00FF00u);
    f->n += emit_copy_blt(r + f->n, FX_GM_BASE + 0x8000, 256, 0, 0, 32, 8, FX_GM_BASE, 256, 0, 0);
    f->n += emit_flush_dw(r + f->n, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE + 0x1000, 7);
    r[f->n] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_NOTIFY; /* no post-sync: address unused */
    r[f->n + 1] = r[f->n + 2] = r[f->n + 3] = 0;
    f->n += 4;
    f->n += emit_lri1(r + f->n, BCS_GPR(3), 9);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.commands, 5);
    assert_int_equal(f->res.blits, 2);
    assert_int_equal(f->res.blit_pixels, 64 * 16 + 32 * 8);
    assert_int_equal(f->res.blit_bytes, 4 * (64 * 16 + 32 * 8));
    assert_int_equal(f->res.mem_writes, 1);
    assert_int_equal(f->res.notifies, 1);
    /* Default cost parameters: 5 commands, 2 blits, 1280 pixels, 1 write. */
    assert_int_equal(f->res.est_cost_ns, 5 * igpu_scan_cost_default.cmd_ns +
                                             2 * igpu_scan_cost_default.blit_ns +
                                             1280 * igpu_scan_cost_default.pixel_ps / 1000 +
                                             igpu_scan_cost_default.write_ns);
}

/* The last byte of the rectangle may be the last byte of the range. */
static void test_blit_fits_range_exactly(void **state)
{
    struct fx *f = *state;

    /* 4 rows of 1024 bytes (256 px at 32 bpp): extent 4096 bytes. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 4096, 1024, 0, 0, 256, 4, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* 8 bpp, 16 bpp: the extent follows the depth. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 1024, 256, 0, 0, 256, 4, 0);
    f->ring[1] = (f->ring[1] & ~GEN9_BR13_DEPTH_MASK) | GEN9_BR13_DEPTH_8;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_color_blt(f->ring, FX_GM_END - 2048, 512, 0, 0, 256, 4, 0);
    f->ring[1] = (f->ring[1] & ~GEN9_BR13_DEPTH_MASK) | GEN9_BR13_DEPTH_16_565;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.blit_bytes, 2 * 256 * 4);
}

/* Only the rectangle is touched: a surface base below the range is fine when the rectangle
 * (offset by x1/y1) lies inside it. */
static void test_blit_rectangle_offset(void **state)
{
    struct fx *f = *state;

    f->n = emit_color_blt(f->ring, FX_GM_BASE - 100 * 1024, 1024, 16, 100, 32, 110, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 8, 8, FX_GM_BASE - 4096, 512, 0, 8);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
}

static void test_tiled_blit(void **state)
{
    struct fx *f = *state;

    /* Tiled: pitch in dwords (128 dw = 512 bytes), 40 rows round up to 64 (two 32-row tile
     * rows) = 32 KiB, which fits. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 32768, 128, 0, 0, 128, 40, 0);
    f->ring[0] |= GEN9_BLT_DST_TILED;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 128, 0, 0, 64, 32, FX_GM_BASE + 0x10000, 256, 0, 0);
    f->ring[0] |= GEN9_BLT_DST_TILED | GEN9_BLT_SRC_TILED;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
}

static void test_batch_is_shadowed_and_rewritten(void **state)
{
    struct fx *f = *state;
    const uint64_t batch = FX_GM_BASE + 0x2000;
    uint32_t b[8];
    size_t n = 0;

    n += emit_sdi(b + n, FX_GM_BASE + 0x100, 0xAB);
    n += emit_user_interrupt(b + n);
    n += emit_bb_end(b + n);
    fx_put(f, batch, b, n);
    f->n += emit_noop(f->ring + f->n);
    f->n += emit_bb_start(f->ring + f->n, batch, 0);
    f->n += emit_noop(f->ring + f->n);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 1);
    assert_int_equal(f->res.max_level, 1);
    assert_int_equal(f->res.commands, 3 + 3);
    assert_int_equal(f->res.shadow_used_dw, n);
    assert_memory_equal(f->shadow, b, n * 4);
    /* The ring now starts the copy, not the guest's batch. */
    assert_int_equal(f->ring[2], (uint32_t)FX_SHADOW_GM);
    assert_int_equal(f->ring[3], (uint32_t)(FX_SHADOW_GM >> 32));
    /* The guest rewriting its batch afterwards changes nothing the GPU will run. */
    b[0] = GEN9_MI_INSTR(GEN9_MI_UPDATE_GTT_OP, 0);
    fx_put(f, batch, b, 1);
    assert_int_equal(f->shadow[0], GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT);
}

/* The result names the ranges the workload touches: a batch in one range storing into
 * another, with a third range untouched. */
static void test_ranges_touched(void **state)
{
    struct fx *f = *state;
    const uint64_t third = FX_GM_SIZE / 4;
    uint32_t b[8];
    size_t n = 0;

    f->ranges[0] = (struct igpu_scan_range){ FX_GM_BASE, third };
    f->ranges[1] = (struct igpu_scan_range){ FX_GM_BASE + 2 * third, third };
    f->ranges[2] = (struct igpu_scan_range){ FX_GM_BASE + 3 * third + 4096, third - 4096 };
    f->cfg.n_ranges = 3;
    n += emit_sdi(b + n, FX_GM_BASE + 2 * third + 0x10, 1);
    n += emit_bb_end(b + n);
    fx_put(f, FX_GM_BASE + 0x100, b, n);
    f->n += emit_bb_start(f->ring + f->n, FX_GM_BASE + 0x100, 0);
    f->n += emit_noop(f->ring + f->n);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.ranges_touched[0], 0x3);
    assert_int_equal(f->res.ranges_touched[1], 0);
}

static void test_second_level_batch(void **state)
{
    struct fx *f = *state;
    const uint64_t b1 = FX_GM_BASE + 0x2000, b2 = FX_GM_BASE + 0x3000;
    uint32_t a[16], c[4];
    size_t na = 0, nc = 0;

    na += emit_noop(a + na);
    na += emit_bb_start(a + na, b2, GEN9_MI_BB_START_SECOND_LEVEL);
    na += emit_sdi(a + na, FX_GM_BASE, 1);
    na += emit_bb_end(a + na);
    nc += emit_user_interrupt(c + nc);
    nc += emit_bb_end(c + nc);
    fx_put(f, b1, a, na);
    fx_put(f, b2, c, nc);
    f->n = emit_bb_start(f->ring, b1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 2);
    assert_int_equal(f->res.max_level, 2);
    assert_int_equal(f->res.commands, 1 + 4 + 2);
    assert_int_equal(f->res.user_interrupts, 1);
    assert_int_equal(f->res.shadow_used_dw, na + nc);
    /* Ring -> copy of b1 at 0; b1's call -> copy of b2 right after it. */
    assert_int_equal(f->ring[1], (uint32_t)FX_SHADOW_GM);
    assert_int_equal(f->shadow[2], (uint32_t)(FX_SHADOW_GM + na * 4));
    assert_int_equal(f->shadow[3], 0);
    assert_int_equal(f->shadow[1], GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL);
    assert_memory_equal(f->shadow + na, c, nc * 4);
}

/* A start without the second-level flag inside a batch chains: what follows it never runs,
 * so it is neither checked nor copied. */
static void test_chained_batch(void **state)
{
    struct fx *f = *state;
    const uint64_t b1 = FX_GM_BASE + 0x2000, b2 = FX_GM_BASE + 0x5000;
    uint32_t a[16], end = GEN9_MI_BATCH_BUFFER_END;
    size_t na = 0;

    na += emit_sdi(a + na, FX_GM_BASE, 1);
    na += emit_bb_start(a + na, b2, 0);
    a[na] = 0xFFFFFFFFu; /* garbage after the chain */
    fx_put(f, b1, a, na + 1);
    fx_put(f, b2, &end, 1);
    f->n = emit_bb_start(f->ring, b1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 2);
    assert_int_equal(f->res.max_level, 1);
    assert_int_equal(f->res.commands, 1 + 2 + 1);
    assert_int_equal(f->res.shadow_used_dw, na + 1);
    assert_int_equal(f->shadow[na - 2], (uint32_t)(FX_SHADOW_GM + na * 4));
    assert_int_equal(f->shadow[na], GEN9_MI_BATCH_BUFFER_END);
}

static void test_same_batch_twice(void **state)
{
    struct fx *f = *state;
    const uint64_t b = FX_GM_BASE + 0x2000;
    uint32_t a[2] = { GEN9_MI_NOOP, GEN9_MI_BATCH_BUFFER_END };

    fx_put(f, b, a, 2);
    f->n += emit_bb_start(f->ring + f->n, b, 0);
    f->n += emit_bb_start(f->ring + f->n, b, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 2);
    assert_int_equal(f->res.shadow_used_dw, 4);
    assert_int_equal(f->ring[1], (uint32_t)FX_SHADOW_GM);
    assert_int_equal(f->ring[4], (uint32_t)FX_SHADOW_GM + 8);
}

static void test_scan_batch_entry(void **state)
{
    struct fx *f = *state;
    const uint64_t b = FX_GM_BASE + 0x4000;
    uint32_t a[8];
    size_t n = 0;

    n += emit_lri1(a + n, RCS_GPR(2), 1);
    n += emit_bb_end(a + n);
    fx_put(f, b, a, n);
    assert_int_equal(igpu_scan_batch(&f->cfg, b, &f->res), IGPU_SCAN_OK);
    assert_int_equal(f->res.entry_gm, FX_SHADOW_GM);
    assert_int_equal(f->res.batches, 1);
    assert_int_equal(f->res.max_level, 1);
    assert_int_equal(f->res.commands, 2);
    assert_memory_equal(f->shadow, a, n * 4);
}

/* A batch several pages long, starting mid-page, is copied page by page. */
static void test_long_batch_across_pages(void **state)
{
    struct fx *f = *state;
    const uint64_t b = FX_GM_BASE + 0x1F00;
    static uint32_t a[3001];
    size_t i;

    for (i = 0; i < 3000; i++)
        a[i] = GEN9_MI_NOOP;
    a[3000] = GEN9_MI_BATCH_BUFFER_END;
    fx_put(f, b, a, 3001);
    f->n = emit_bb_start(f->ring, b, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.commands, 3002);
    assert_int_equal(f->res.shadow_used_dw, 3001);
    assert_memory_equal(f->shadow, a, sizeof(a));
    assert_true(f->reads >= 4); /* 0x1F00..0x4EE4 spans four pages */
}

static void test_ranges_normalize(void **state)
{
    struct igpu_scan_range r[6] = {
        { 0x5000, 0x1000 }, { 0x1000, 0x1000 }, { 0x1800, 0x1000 },
        { 0x9000, 0 },      { 0x2800, 0x800 },  { UINT64_MAX - 0xFFF, 0x2000 },
    };
    size_t n;

    (void)state;
    assert_false(igpu_scan_ranges_normalized(r, 6));
    n = igpu_scan_ranges_normalize(r, 6);
    assert_int_equal(n, 3);
    assert_true(igpu_scan_ranges_normalized(r, n));
    assert_int_equal(r[0].start, 0x1000);
    assert_int_equal(r[0].size, 0x2000); /* 0x1000..0x3000, merged through 0x2800 */
    assert_int_equal(r[1].start, 0x5000);
    assert_int_equal(r[2].size, 0xFFF); /* clipped at 2^64 - 1 */
    assert_true(igpu_scan_ranges_contain(r, n, 0x1000, 0x2000));
    assert_false(igpu_scan_ranges_contain(r, n, 0x1000, 0x2001));
    assert_false(igpu_scan_ranges_contain(r, n, 0xFFF, 2));
    assert_false(igpu_scan_ranges_contain(r, n, 0x4000, 4));
    assert_false(igpu_scan_ranges_contain(r, n, 0x1000, 0));
    assert_false(igpu_scan_ranges_contain(r, n, UINT64_MAX - 3, 8));
}

/* Two adjacent allowed ranges act as one: a blit may span the seam. */
static void test_adjacent_ranges(void **state)
{
    struct fx *f = *state;

    f->ranges[0].start = FX_GM_BASE + 0x1000;
    f->ranges[0].size = FX_GM_SIZE - 0x1000;
    f->ranges[1].start = FX_GM_BASE;
    f->ranges[1].size = 0x1000;
    f->cfg.n_ranges = igpu_scan_ranges_normalize(f->ranges, 2);
    assert_int_equal(f->cfg.n_ranges, 1);
    f->n = emit_color_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 256, 8, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
}

static void test_empty_ring(void **state)
{
    struct fx *f = *state;

    f->n = 0;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.commands, 0);
    assert_int_equal(f->res.est_cost_ns, 0);
}

static void test_strings(void **state)
{
    char buf[200];
    struct igpu_scan_error e = { .code = IGPU_SCAN_OK };
    int i;

    (void)state;
    for (i = 0; i < IGPU_SCAN_E_COUNT; i++)
        assert_non_null(igpu_scan_strerror((enum igpu_scan_err)i));
    assert_string_equal(igpu_scan_strerror(IGPU_SCAN_E_COUNT), "invalid scanner error");
    assert_string_equal(igpu_scan_cmd_name(GEN9_XY_SRC_COPY_BLT), "XY_SRC_COPY_BLT");
    assert_string_equal(igpu_scan_cmd_name(GEN9_PIPE_CONTROL), "PIPE_CONTROL");
    assert_string_equal(igpu_scan_cmd_name(0xE0000000u), "unknown command");
    igpu_scan_error_format(&e, buf, sizeof(buf));
    assert_string_equal(buf, "accepted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_render_commands, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_lri_several_pairs, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_blitter_commands, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_bcs_swctrl_is_allowed_on_the_blitter, setup_bcs,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_blit_fits_range_exactly, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_blit_rectangle_offset, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_tiled_blit, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_batch_is_shadowed_and_rewritten, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_ranges_touched, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_second_level_batch, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_chained_batch, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_same_batch_twice, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_scan_batch_entry, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_long_batch_across_pages, setup_rcs, teardown),
        cmocka_unit_test(test_ranges_normalize),
        cmocka_unit_test_setup_teardown(test_adjacent_ranges, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_empty_ring, setup_rcs, teardown),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
