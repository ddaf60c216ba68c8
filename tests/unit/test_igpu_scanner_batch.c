/* Scanner batch-buffer rules: depth limits, loops, batch counts, batches running out of the
 * allowed ranges, read faults, shadow capacity, configuration checks, and where an error
 * inside a nested batch is reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tests/unit/test_igpu_scanner_fixture.h"

#define B1 (FX_GM_BASE + 0x2000)
#define B2 (FX_GM_BASE + 0x3000)
#define B3 (FX_GM_BASE + 0x4000)

static int setup(void **state)
{
    *state = fx_new(IGPU_RCS);
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* Put a batch made of a start (flags) to target followed by a batch end at gm. */
static void put_call(struct fx *f, uint64_t gm, uint64_t target, uint32_t flags)
{
    uint32_t b[4];
    size_t n = emit_bb_start(b, target, flags);
    n += emit_bb_end(b + n);
    fx_put(f, gm, b, n);
}

static void put_end(struct fx *f, uint64_t gm)
{
    uint32_t e = GEN9_MI_BATCH_BUFFER_END;
    fx_put(f, gm, &e, 1);
}

static void expect_err(struct fx *f, enum igpu_scan_err code, unsigned level, uint64_t buf,
                       uint32_t cmd, uint32_t dw)
{
    const struct igpu_scan_error *e = &f->res.err;

    if (e->code != code) {
        char s[200];
        igpu_scan_error_format(e, s, sizeof(s));
        print_error("expected %s, got: %s\n", igpu_scan_strerror(code), s);
    }
    assert_int_equal(e->code, code);
    assert_int_equal(e->level, level);
    assert_true(e->buf_gm == buf);
    assert_int_equal(e->cmd_offset, cmd);
    assert_int_equal(e->dw_offset, dw);
}

static void test_depth_limit(void **state)
{
    struct fx *f = *state;

    put_call(f, B1, B2, GEN9_MI_BB_START_SECOND_LEVEL);
    put_end(f, B2);
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* With only first-level batches allowed, B1's call is one level too deep. */
    f->cfg.max_depth = 1;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_DEPTH);
    expect_err(f, IGPU_SCAN_E_BATCH_DEPTH, 1, B1, 0, 0);
    assert_int_equal(f->res.err.detail, 2);
    /* No batches at all. */
    f->cfg.max_depth = 0;
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_DEPTH);
    expect_err(f, IGPU_SCAN_E_BATCH_DEPTH, 0, IGPU_SCAN_GM_RING, 0, 0);
}

/* Gen9 has two batch levels: a second-level batch cannot call a third, whatever the
 * configuration asks for. */
static void test_depth_hardware_limit(void **state)
{
    struct fx *f = *state;

    put_call(f, B1, B2, GEN9_MI_BB_START_SECOND_LEVEL);
    put_call(f, B2, B3, GEN9_MI_BB_START_SECOND_LEVEL);
    put_end(f, B3);
    f->cfg.max_depth = 5;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_DEPTH);
    expect_err(f, IGPU_SCAN_E_BATCH_DEPTH, 2, B2, 0, 0);
    /* Chaining inside the second level stays at that level and is fine. */
    put_call(f, B2, B3, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.max_level, 2);
    assert_int_equal(f->res.batches, 3);
}

static void test_second_level_flag_in_ring(void **state)
{
    struct fx *f = *state;

    put_end(f, B1);
    f->n = emit_bb_start(f->ring, B1, GEN9_MI_BB_START_SECOND_LEVEL);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BAD_FIELD);
    expect_err(f, IGPU_SCAN_E_BAD_FIELD, 0, IGPU_SCAN_GM_RING, 0, 0);
}

/* A batch that starts itself would loop for ever on the GPU. */
static void test_self_loop(void **state)
{
    struct fx *f = *state;
    uint32_t b[8];
    size_t n = 0;

    n += emit_noop(b + n);
    n += emit_bb_start(b + n, B1, 0); /* chain to its own start */
    fx_put(f, B1, b, n);
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_LOOP);
    expect_err(f, IGPU_SCAN_E_BATCH_LOOP, 1, B1, 1, 2);
    assert_int_equal(f->res.err.detail, B1);
    /* Into its own middle, as a call. */
    n = 0;
    n += emit_noop(b + n);
    n += emit_bb_start(b + n, B1 + 4, GEN9_MI_BB_START_SECOND_LEVEL);
    n += emit_bb_end(b + n);
    fx_put(f, B1, b, n);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_LOOP);
    expect_err(f, IGPU_SCAN_E_BATCH_LOOP, 1, B1, 1, 2);
}

static void test_chain_cycle(void **state)
{
    struct fx *f = *state;

    put_call(f, B1, B2, 0);
    put_call(f, B2, B1, 0);
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_LOOP);
    expect_err(f, IGPU_SCAN_E_BATCH_LOOP, 1, B2, 0, 1);
    /* A second-level batch calling back into its caller. */
    put_call(f, B1, B2, GEN9_MI_BB_START_SECOND_LEVEL);
    put_call(f, B2, B1 + 8, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_LOOP);
    expect_err(f, IGPU_SCAN_E_BATCH_LOOP, 2, B2, 0, 1);
}

static void test_too_many_batches(void **state)
{
    struct fx *f = *state;
    int i;

    put_end(f, B1);
    f->cfg.max_batches = 3;
    for (i = 0; i < 4; i++)
        f->n += emit_bb_start(f->ring + f->n, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_TOO_MANY_BATCHES);
    expect_err(f, IGPU_SCAN_E_TOO_MANY_BATCHES, 0, IGPU_SCAN_GM_RING, 9, 10);
    /* The scan rewrote the starts it followed (the ring is the caller's copy): rebuild. */
    for (f->n = 0, i = 0; i < 3; i++)
        f->n += emit_bb_start(f->ring + f->n, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 3);
}

/* A long chain of distinct batches is bounded by max_batches too. */
static void test_long_chain(void **state)
{
    struct fx *f = *state;
    unsigned i;

    for (i = 0; i < 40; i++)
        put_call(f, B1 + i * 16, B1 + (i + 1) * 16, 0);
    put_end(f, B1 + 40 * 16);
    f->cfg.max_batches = 100;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    assert_int_equal(f->res.batches, 41);
    f->cfg.max_batches = 20;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_TOO_MANY_BATCHES);
    expect_err(f, IGPU_SCAN_E_TOO_MANY_BATCHES, 1, B1 + 19 * 16, 0, 1);
}

/* A batch without an end runs off the allowed range. */
static void test_batch_overrun(void **state)
{
    struct fx *f = *state;
    const uint64_t b = FX_GM_END - 16;
    uint32_t noops[4] = { 0 };

    fx_put(f, b, noops, 4);
    f->n = emit_bb_start(f->ring, b, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_OVERRUN);
    expect_err(f, IGPU_SCAN_E_BATCH_OVERRUN, 1, b, 4, 4);
    assert_int_equal(f->res.err.detail, FX_GM_END);
    /* A command straddling the end of the range. */
    noops[3] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    fx_put(f, b, noops, 4);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_BATCH_OVERRUN);
    expect_err(f, IGPU_SCAN_E_BATCH_OVERRUN, 1, b, 3, 3);
}

static void test_batch_start_outside(void **state)
{
    struct fx *f = *state;

    f->n = emit_bb_start(f->ring, FX_GM_END, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_ADDR_RANGE);
    expect_err(f, IGPU_SCAN_E_ADDR_RANGE, 0, IGPU_SCAN_GM_RING, 0, 1);
    /* The shadow itself is not the guest's to start. */
    f->n = emit_bb_start(f->ring, FX_SHADOW_GM, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_ADDR_RANGE);
}

static void test_read_fault(void **state)
{
    struct fx *f = *state;
    uint32_t b[1100];
    size_t i;

    for (i = 0; i < 1099; i++)
        b[i] = GEN9_MI_NOOP;
    b[1099] = GEN9_MI_BATCH_BUFFER_END;
    fx_put(f, B1, b, 1100); /* crosses into the next page */
    f->fail_gm = B1 + 4096 + 8;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_READ_FAULT);
    expect_err(f, IGPU_SCAN_E_READ_FAULT, 1, B1, 1024, 1024);
    assert_int_equal(f->res.err.detail, B1 + 4096);
}

static void test_shadow_full(void **state)
{
    struct fx *f = *state;
    uint32_t b[8] = { 0, 0, 0, 0, 0, 0, 0, GEN9_MI_BATCH_BUFFER_END };

    fx_put(f, B1, b, 8);
    f->cfg.shadow_dw = 7;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_SHADOW_FULL);
    expect_err(f, IGPU_SCAN_E_SHADOW_FULL, 1, B1, 7, 7);
    f->cfg.shadow_dw = 8;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* No shadow at all: a ring without batches still scans. */
    f->cfg.shadow = NULL;
    f->cfg.shadow_dw = 0;
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_SHADOW_FULL);
    f->n = emit_noop(f->ring);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
}

/* An error deep inside is reported in that batch, at its own dword offset. */
static void test_error_location_in_nested_batch(void **state)
{
    struct fx *f = *state;
    uint32_t b[8];
    size_t n = 0;
    char s[256];

    put_call(f, B1, B2, GEN9_MI_BB_START_SECOND_LEVEL);
    n += emit_noop(b + n);
    n += emit_noop(b + n);
    n += emit_lri1(b + n, GEN9_RING_ELSP(GEN9_RCS_BASE), 0);
    n += emit_bb_end(b + n);
    fx_put(f, B2, b, n);
    f->n += emit_noop(f->ring);
    f->n += emit_bb_start(f->ring + f->n, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_REG_DENIED);
    expect_err(f, IGPU_SCAN_E_REG_DENIED, 2, B2, 2, 3);
    assert_int_equal(f->res.err.header, GEN9_MI_LOAD_REGISTER_IMM(1));
    assert_int_equal(f->res.err.detail, GEN9_RING_ELSP(GEN9_RCS_BASE));
    igpu_scan_error_format(&f->res.err, s, sizeof(s));
    assert_non_null(strstr(s, "register not in the allow-list"));
    assert_non_null(strstr(s, "MI_LOAD_REGISTER_IMM"));
    assert_non_null(strstr(s, "level-2 batch 0x103000"));
    assert_non_null(strstr(s, "dword 3"));
}

static void test_config_checks(void **state)
{
    struct fx *f = *state;

    f->n = emit_noop(f->ring);
    f->ranges[1] = f->ranges[0]; /* overlapping: not normalized */
    f->cfg.n_ranges = 2;
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
    f->cfg.n_ranges = 1;
    f->cfg.shadow_gm = FX_GM_BASE + 0x1000; /* guest could write the shadow */
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
    f->cfg.shadow_gm = FX_GM_BASE - 4; /* overlaps the range's first bytes */
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
    f->cfg.shadow_gm = FX_SHADOW_GM + 2; /* misaligned */
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
    f->cfg.shadow_gm = FX_SHADOW_GM;
    f->cfg.engine = IGPU_NUM_GT_ENGINES;
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
    f->cfg.engine = IGPU_RCS;
    assert_int_equal(igpu_scan_ring(NULL, f->ring, 1, &f->res), IGPU_SCAN_E_CONFIG);
    assert_int_equal(igpu_scan_ring(&f->cfg, NULL, 1, &f->res), IGPU_SCAN_E_CONFIG);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* No read callback: only fatal once a batch must be read. */
    f->cfg.read = NULL;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_bb_start(f->ring, B1, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_E_CONFIG);
}

static void test_scan_batch_rejects(void **state)
{
    struct fx *f = *state;

    put_end(f, B1);
    assert_int_equal(igpu_scan_batch(&f->cfg, B1 + 2, &f->res), IGPU_SCAN_E_MISALIGNED);
    assert_int_equal(igpu_scan_batch(&f->cfg, FX_GM_END, &f->res), IGPU_SCAN_E_ADDR_RANGE);
    expect_err(f, IGPU_SCAN_E_ADDR_RANGE, 1, FX_GM_END, 0, 0);
    f->cfg.max_batches = 0;
    assert_int_equal(igpu_scan_batch(&f->cfg, B1, &f->res), IGPU_SCAN_E_TOO_MANY_BATCHES);
    f->cfg.max_batches = 1;
    f->cfg.max_depth = 0;
    assert_int_equal(igpu_scan_batch(&f->cfg, B1, &f->res), IGPU_SCAN_E_BATCH_DEPTH);
    f->cfg.max_depth = 1;
    assert_int_equal(igpu_scan_batch(&f->cfg, B1, &f->res), IGPU_SCAN_OK);
    /* A top-level batch's chain counts against the limit. */
    put_call(f, B1, B2, 0);
    put_end(f, B2);
    assert_int_equal(igpu_scan_batch(&f->cfg, B1, &f->res), IGPU_SCAN_E_TOO_MANY_BATCHES);
    expect_err(f, IGPU_SCAN_E_TOO_MANY_BATCHES, 1, B1, 0, 1);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_depth_limit),   T(test_depth_hardware_limit), T(test_second_level_flag_in_ring),
        T(test_self_loop),     T(test_chain_cycle),          T(test_too_many_batches),
        T(test_long_chain),    T(test_batch_overrun),        T(test_batch_start_outside),
        T(test_read_fault),    T(test_shadow_full),          T(test_error_location_in_nested_batch),
        T(test_config_checks), T(test_scan_batch_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
