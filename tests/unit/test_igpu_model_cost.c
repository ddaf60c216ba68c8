/*
 * Gen9 model: the GPU-time cost model. Busy time follows the documented formula exactly,
 * budgets bound a run, timestamps (ring and context) advance with the work, and a batch that
 * loops forever still returns control.
 */
#include "test_igpu_model_fixture.h"

static const struct igpu_model_cost test_cost = {
    .cmd_ns = 10,
    .blit_ns = 300,
    .pixel_ps = 1500,
    .write_ns = 40,
    .batch_ns = 70,
    .ctx_switch_ns = 5000,
};

static void sdi(uint32_t *c, uint64_t addr, uint32_t v)
{
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)addr;
    c[2] = (uint32_t)(addr >> 32);
    c[3] = v;
}

/* 3 NOOPs, 2 stores, a 33 x 7 fill, a flush with a post-sync write: 7 commands, 22 dwords
 * (even, so the ring needs no padding). */
static size_t workload(uint32_t *c)
{
    size_t n = 0;
    c[n++] = GEN9_MI_NOOP;
    c[n++] = GEN9_MI_NOOP;
    c[n++] = GEN9_MI_NOOP;
    sdi(c + n, FX_DATA, 1);
    n += 4;
    sdi(c + n, FX_DATA + 4, 2);
    n += 4;
    c[n++] = GEN9_XY_COLOR_BLT;
    c[n++] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 1024;
    c[n++] = GEN9_BLT_COORD(0, 0);
    c[n++] = GEN9_BLT_COORD(33, 7);
    c[n++] = FX_DATA + 0x1000;
    c[n++] = 0;
    c[n++] = 0xFF00FF00;
    c[n++] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW;
    c[n++] = (FX_DATA + 8) | GEN9_MI_FLUSH_DW_USE_GTT;
    c[n++] = 0;
    c[n++] = 3;
    return n;
}

/* Expected busy time in ps: restore + 7 commands + 3 writes + blit set-up + pixels. */
static uint64_t expected_ps(void)
{
    return 5000ull * 1000 + 7ull * 10 * 1000 + 3ull * 40 * 1000 + 300ull * 1000 + 33ull * 7 * 1500;
}

static void test_busy_time_follows_formula(void **state)
{
    struct fx f;
    uint32_t c[32];
    size_t n;
    struct igpu_model_stats s;
    uint64_t used;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_set_cost(f.m, &test_cost), 0);
    n = workload(c);
    used = fx_run_cmds(&f, IGPU_BCS, c, n);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(used, expected_ps() / 1000);
    assert_int_equal(igpu_model_stats(f.m, IGPU_BCS, &s), 0);
    assert_int_equal(s.busy_ns, expected_ps() / 1000);
    assert_int_equal(s.clock_ns, expected_ps() / 1000);
    assert_int_equal(s.commands, 7);
    assert_int_equal(s.blits, 1);
    assert_int_equal(s.pixels, 33 * 7);
    assert_int_equal(s.mem_writes, 3);
    assert_int_equal(s.ctx_switches, 1);
    assert_int_equal(s.state, IGPU_MODEL_IDLE);
    /* The other engine did nothing. */
    assert_int_equal(igpu_model_stats(f.m, IGPU_RCS, &s), 0);
    assert_int_equal(s.busy_ns, 0);
    fx_fini(&f);
}

static void test_budget_bounds_each_run(void **state)
{
    struct fx f;
    uint32_t c[32];
    size_t n;
    uint64_t total = 0, r;
    unsigned runs = 0;
    const uint64_t budget = 100;        /* ns: far less than the workload */
    const uint64_t largest_step = 5000; /* the context restore */
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_set_cost(f.m, &test_cost), 0);
    n = workload(c);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 1, c, n), 0);
    while (igpu_model_engine_state(f.m, IGPU_BCS) == IGPU_MODEL_ACTIVE) {
        r = igpu_model_run(f.m, IGPU_BCS, budget);
        /* A run stops once the budget is used; only its last step may overshoot it. */
        assert_true(r > 0);
        assert_true(r < budget + largest_step);
        total += r;
        runs++;
        assert_true(runs < 1000);
    }
    assert_int_equal(runs, 4); /* restore | 3 NOOPs + 2 stores | blit | flush */
    /* Per-run rounding to ns can lose < 1 ns per run. */
    assert_true(total <= expected_ps() / 1000);
    assert_true(total + runs >= expected_ps() / 1000);
    assert_int_equal(igpu_model_run(f.m, IGPU_BCS, budget), 0); /* idle: nothing to do */
    fx_fini(&f);
}

static void test_timestamps_advance(void **state)
{
    struct fx f;
    uint32_t c[32];
    size_t n;
    uint64_t t0, t1, t2;
    uint32_t lo, hi, ctx_ts;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_set_cost(f.m, &test_cost), 0);
    assert_int_equal(igpu_timestamp(f.g, IGPU_BCS, &t0), 0);
    assert_int_equal(t0, 0);
    igpu_model_advance(f.m, 1000000); /* 1 ms idle */
    assert_int_equal(igpu_timestamp(f.g, IGPU_BCS, &t1), 0);
    assert_int_equal(t1, 12000); /* 12 MHz */
    n = workload(c);
    fx_run_cmds(&f, IGPU_BCS, c, n);
    assert_int_equal(igpu_timestamp(f.g, IGPU_BCS, &t2), 0);
    assert_int_equal(t2, igpu_ns_to_ticks(1000000 + expected_ps() / 1000, IGPU_MODEL_TIMESTAMP_HZ));
    lo = fx_reg(&f, GEN9_RING_TIMESTAMP(GEN9_BCS_BASE));
    hi = fx_reg(&f, GEN9_RING_TIMESTAMP_UDW(GEN9_BCS_BASE));
    assert_int_equal(((uint64_t)hi << 32) | lo, t2);
    /* The context image accumulated the ticks its context ran (restore excluded). */
    ctx_ts = fx_rd32(&f, FX_CTX_A + GEN9_LRC_STATE_OFFSET + GEN9_CTX_TIMESTAMP * 4);
    assert_true(ctx_ts > 0);
    assert_true(ctx_ts <= t2 - t1);
    fx_fini(&f);
}

static void test_endless_batch_returns_control(void **state)
{
    struct fx f;
    uint32_t ring[4], loop[3];
    uint64_t used;
    struct igpu_model_stats s;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_set_cost(f.m, &test_cost), 0);
    /* A batch that chains to itself. */
    loop[0] = GEN9_MI_BATCH_BUFFER_START;
    loop[1] = FX_BATCH;
    loop[2] = 0;
    assert_int_equal(igpu_model_gm_write(f.m, FX_BATCH, loop, sizeof(loop)), 0);
    ring[0] = GEN9_MI_BATCH_BUFFER_START;
    ring[1] = FX_BATCH;
    ring[2] = 0;
    ring[3] = GEN9_MI_NOOP;
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_RCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_RCS, FX_CTX_A, 1, ring, 4), 0);
    used = igpu_model_run(f.m, IGPU_RCS, 2000000);
    assert_true(used >= 2000000);
    assert_true(used < 2000000 + 5000 + 80);
    assert_int_equal(igpu_model_engine_state(f.m, IGPU_RCS), IGPU_MODEL_ACTIVE);
    assert_int_equal(igpu_model_stats(f.m, IGPU_RCS, &s), 0);
    assert_int_equal(s.batches, s.commands);
    assert_true(s.batches > 20000);
    /* A watchdog's answer: reset the engine. */
    assert_int_equal(igpu_engine_reset(f.g, IGPU_RCS), 0);
    assert_int_equal(igpu_model_engine_state(f.m, IGPU_RCS), IGPU_MODEL_IDLE);
    fx_fini(&f);
}

static void test_set_cost_rejects_zero_command_cost(void **state)
{
    struct fx f;
    struct igpu_model_cost c = test_cost;
    (void)state;
    fx_init(&f);
    c.cmd_ns = 0;
    assert_int_equal(igpu_model_set_cost(f.m, &c), IGPU_EINVAL);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_time_follows_formula),
        cmocka_unit_test(test_budget_bounds_each_run),
        cmocka_unit_test(test_timestamps_advance),
        cmocka_unit_test(test_endless_batch_returns_control),
        cmocka_unit_test(test_set_cost_rejects_zero_command_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
