/*
 * Gen9 model: long blits run in bounded steps (an engine reset stops one midway), and
 * preemption at the granularities of cfg.preempt: MI_ARB_CHECK, command boundaries inside
 * batches (first and second level), and between the steps of a blit, with the context saved and
 * taken up again exactly where it stopped.
 */
#include "test_igpu_model_fixture.h"

#define W             1024u
#define H             512u
#define PITCH         (W * 4u)
#define STEP_NS       10000u /* 10 us: 39 rows of 1024 pixels at 250 ps a pixel */
#define ROWS_PER_STEP (STEP_NS * 1000u / (W * 250u))
#define SURF          FX_DATA

static void color_blt(uint32_t *c, uint64_t dst, uint32_t w, uint32_t h, uint32_t color)
{
    c[0] = GEN9_XY_COLOR_BLT;
    c[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | (w * 4u);
    c[2] = GEN9_BLT_COORD(0, 0);
    c[3] = GEN9_BLT_COORD(w, h);
    c[4] = (uint32_t)dst;
    c[5] = (uint32_t)(dst >> 32);
    c[6] = color;
}

/* Copy rows [0, h - 1) of the surface one row down (overlapping: runs bottom-up). */
static void copy_down(uint32_t *c, uint64_t surf, uint32_t w, uint32_t h)
{
    c[0] = GEN9_XY_SRC_COPY_BLT;
    c[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) | (w * 4u);
    c[2] = GEN9_BLT_COORD(0, 1);
    c[3] = GEN9_BLT_COORD(w, h);
    c[4] = (uint32_t)surf;
    c[5] = 0;
    c[6] = GEN9_BLT_COORD(0, 0);
    c[7] = w * 4u;
    c[8] = (uint32_t)surf;
    c[9] = 0;
}

static void sdi(uint32_t *c, uint64_t addr, uint32_t v)
{
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)addr;
    c[2] = 0;
    c[3] = v;
}

static uint64_t desc(uint32_t lrca, uint32_t id)
{
    return gen9_ctx_desc(lrca, id,
                         GEN9_CTX_PRIVILEGE |
                             (GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT));
}

static void init(struct fx *f, enum igpu_model_preempt p)
{
    struct igpu_model_config cfg;
    igpu_model_config_defaults(&cfg);
    cfg.ggtt_entries = FX_ENTRIES;
    cfg.aperture_size = (uint64_t)FX_ENTRIES * 4096u;
    cfg.blit_step_ns = STEP_NS;
    cfg.preempt = p;
    fx_init_cfg(f, &cfg);
}

/* Puts cmds in context ctx's ring (fresh image) without submitting. */
static void ring(struct fx *f, uint32_t ctx, uint32_t ring_gm, const uint32_t *cmds, uint32_t n)
{
    uint32_t st = ctx + GEN9_LRC_STATE_OFFSET, tail = ((n + 1u) & ~1u) * 4u;
    uint32_t pad[64] = { 0 };
    assert_true(n <= 64);
    /* cppcheck-suppress uninitvar ; a caller fills cmds in its argument list, before the call */
    memcpy(pad, cmds, n * 4u);
    assert_int_equal(igpu_model_ctx_init(f->m, IGPU_BCS, ctx, ring_gm, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_gm_write(f->m, ring_gm, pad, tail), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_RING_TAIL * 4u, &tail, 4), 0);
}

static unsigned rows_filled(struct fx *f, uint64_t surf, uint32_t color)
{
    unsigned n = 0;
    for (unsigned y = 0; y < H; y++)
        n += fx_rd32(f, surf + (uint64_t)y * PITCH) == color &&
             fx_rd32(f, surf + (uint64_t)y * PITCH + PITCH - 4u) == color;
    return n;
}

static uint64_t pixels(struct fx *f)
{
    struct igpu_model_stats st;
    assert_int_equal(igpu_model_stats(f->m, IGPU_BCS, &st), 0);
    return st.pixels;
}

static void test_long_blit_runs_in_steps(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_RING);
    color_blt(c, SURF, W, H, 0xA1A1A1A1u);
    c[7] = GEN9_MI_NOOP;
    ring(&f, FX_CTX_A, FX_RING, c, 8);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1); /* restore */
    uint64_t used = igpu_model_run(f.m, IGPU_BCS, 1);
    /* One step: the set-up and ROWS_PER_STEP rows, not the whole 128 us blit. */
    assert_int_equal(rows_filled(&f, SURF, 0xA1A1A1A1u), ROWS_PER_STEP);
    assert_true(used >= STEP_NS - W / 4u && used <= STEP_NS + 1000u);
    /* A budget is used up in whole steps: it may be passed by less than one. */
    uint64_t more = igpu_model_run(f.m, IGPU_BCS, 3 * STEP_NS), step = ROWS_PER_STEP * W / 4u;
    assert_true(more >= 3 * STEP_NS && more < 3 * STEP_NS + step);
    assert_int_equal(more % step, 0);
    assert_int_equal(rows_filled(&f, SURF, 0xA1A1A1A1u), (1u + more / step) * ROWS_PER_STEP);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(rows_filled(&f, SURF, 0xA1A1A1A1u), H);
    assert_int_equal(pixels(&f), (uint64_t)W * H);
    fx_fini(&f);
}

static void test_reset_stops_blit_midway(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_RING);
    color_blt(c, SURF, W, H, 0xB2B2B2B2u);
    c[7] = GEN9_MI_NOOP;
    ring(&f, FX_CTX_A, FX_RING, c, 8);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1);
    igpu_model_run(f.m, IGPU_BCS, 3 * STEP_NS - 1u);
    assert_int_equal(rows_filled(&f, SURF, 0xB2B2B2B2u), 3 * ROWS_PER_STEP);
    assert_int_equal(igpu_engine_reset(f.g, IGPU_BCS), 0);
    assert_int_equal(igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull), 0);
    /* The rows the blit had not reached are untouched. */
    assert_int_equal(rows_filled(&f, SURF, 0xB2B2B2B2u), 3 * ROWS_PER_STEP);
    assert_int_equal(fx_rd32(&f, SURF + (uint64_t)(H - 1u) * PITCH), 0);
    assert_int_equal(pixels(&f), (uint64_t)3 * ROWS_PER_STEP * W);
    fx_fini(&f);
}

/* A runs a long fill, B arrives after one step: with step granularity A leaves mid-blit, B
 * runs, and A resubmitted finishes the fill without redoing a row. */
static void test_preempt_between_blit_steps(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[8];
    uint32_t a[8], b[4];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_STEP);
    color_blt(a, SURF, W, H, 0xC3C3C3C3u);
    a[7] = GEN9_MI_NOOP;
    sdi(b, FX_DATA + 0x600000u, 0xB0B0u);
    ring(&f, FX_CTX_A, FX_RING, a, 8);
    ring(&f, FX_CTX_B, FX_RING_B, b, 4);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1);
    igpu_model_run(f.m, IGPU_BCS, 1); /* the set-up and the first step */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_B, 0xB), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x600000u), 0xB0B0u);
    assert_int_equal(rows_filled(&f, SURF, 0xC3C3C3C3u), ROWS_PER_STEP);
    assert_int_equal(fx_csb(&f, IGPU_BCS, ev, 8), 3);
    assert_int_equal(ev[1].status, GEN9_CTX_STATUS_PREEMPTED);
    assert_int_equal(ev[1].ctx_id, 0xA);

    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(rows_filled(&f, SURF, 0xC3C3C3C3u), H);
    assert_int_equal(pixels(&f), (uint64_t)W * H); /* no row written twice */
    assert_int_equal(fx_rd32(&f, FX_CTX_A + GEN9_LRC_STATE_OFFSET + GEN9_CTX_RING_HEAD * 4u), 32);
    fx_fini(&f);
}

/* An overlapping copy (bottom-up) preempted at every step ends as the same copy run whole. */
static void test_preempted_overlapping_copy_matches(void **state)
{
    struct fx whole, cut;
    uint32_t a[10], b[4];
    (void)state;
    init(&whole, IGPU_MODEL_PREEMPT_STEP);
    init(&cut, IGPU_MODEL_PREEMPT_STEP);
    for (uint32_t i = 0; i < W * H; i++) {
        fx_wr32(&whole, SURF + 4u * i, i * 2654435761u);
        fx_wr32(&cut, SURF + 4u * i, i * 2654435761u);
    }
    copy_down(a, SURF, W, H);
    sdi(b, FX_DATA + 0x600000u, 1);
    ring(&whole, FX_CTX_A, FX_RING, a, 10);
    assert_int_equal(igpu_elsp_submit(whole.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(whole.m, IGPU_BCS, 1000000000ull);

    ring(&cut, FX_CTX_A, FX_RING, a, 10);
    unsigned preemptions = 0;
    assert_int_equal(igpu_elsp_submit(cut.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(cut.m, IGPU_BCS, 1);
    for (;;) {
        igpu_model_run(cut.m, IGPU_BCS, 1); /* one step of A */
        if (igpu_model_engine_state(cut.m, IGPU_BCS) == IGPU_MODEL_IDLE)
            break;
        ring(&cut, FX_CTX_B, FX_RING_B, b, 4);
        assert_int_equal(igpu_elsp_submit(cut.g, IGPU_BCS, desc(FX_CTX_B, 0xB), 0), 0);
        igpu_model_run_until_idle(cut.m, IGPU_BCS, 1000000000ull);
        preemptions++;
        assert_int_equal(igpu_elsp_submit(cut.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
        igpu_model_run(cut.m, IGPU_BCS, 1); /* restore */
    }
    assert_null(igpu_model_fault(cut.m, IGPU_BCS));
    assert_true(preemptions >= H / ROWS_PER_STEP - 1u);
    assert_memory_equal(whole.mem + fx_pa(SURF), cut.mem + fx_pa(SURF), (size_t)W * H * 4u);
    assert_int_equal(pixels(&cut), (uint64_t)W * (H - 1u));
    fx_fini(&whole);
    fx_fini(&cut);
}

/* ring: BB_START(batch 1); batch 1: store 1, call batch 2, store 4, end; batch 2: store 2,
 * store 3, end.  Returns the dwords of the ring. */
static uint32_t nested_batches(struct fx *f, bool arb_check, uint32_t *r)
{
    uint32_t b1[16], b2[16], n1 = 0, n2 = 0;
    const uint64_t bb1 = FX_BATCH, bb2 = FX_BATCH + 0x1000u, out = FX_DATA + 0x580000u;
    sdi(&b1[n1], out, 1);
    n1 += 4;
    b1[n1++] = GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL;
    b1[n1++] = (uint32_t)bb2;
    b1[n1++] = 0;
    sdi(&b1[n1], out + 12u, 4);
    n1 += 4;
    b1[n1++] = GEN9_MI_BATCH_BUFFER_END;
    sdi(&b2[n2], out + 4u, 2);
    n2 += 4;
    if (arb_check)
        b2[n2++] = GEN9_MI_ARB_CHECK;
    sdi(&b2[n2], out + 8u, 3);
    n2 += 4;
    b2[n2++] = GEN9_MI_BATCH_BUFFER_END;
    assert_int_equal(igpu_model_gm_write(f->m, bb1, b1, n1 * 4u), 0);
    assert_int_equal(igpu_model_gm_write(f->m, bb2, b2, n2 * 4u), 0);
    r[0] = GEN9_MI_BATCH_BUFFER_START;
    r[1] = (uint32_t)bb1;
    r[2] = 0;
    sdi(&r[3], out + 16u, 5);
    return 7;
}

static void expect_stores(struct fx *f, unsigned n)
{
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(fx_rd32(f, FX_DATA + 0x580000u + 4u * i), i < n ? i + 1u : 0u);
}

/* Runs A until it has executed `cmds` commands after its restore, submits B, runs all. */
static void preempt_after(struct fx *f, unsigned cmds)
{
    uint32_t b[4];
    sdi(b, FX_DATA + 0x600000u, 7);
    ring(f, FX_CTX_B, FX_RING_B, b, 4);
    assert_int_equal(igpu_elsp_submit(f->g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(f->m, IGPU_BCS, 1);
    for (unsigned i = 0; i < cmds; i++)
        igpu_model_run(f->m, IGPU_BCS, 1);
    assert_int_equal(igpu_elsp_submit(f->g, IGPU_BCS, desc(FX_CTX_B, 0xB), 0), 0);
    igpu_model_run_until_idle(f->m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f->m, IGPU_BCS));
    assert_int_equal(fx_rd32(f, FX_DATA + 0x600000u), 7);
}

static void test_preempt_inside_second_level_batch(void **state)
{
    struct fx f;
    uint32_t r[8];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_COMMAND);
    ring(&f, FX_CTX_A, FX_RING, r, nested_batches(&f, false, r));
    /* BB_START, store 1, call, store 2: then B comes, inside batch 2. */
    preempt_after(&f, 4);
    expect_stores(&f, 2);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    expect_stores(&f, 5); /* store 3 in batch 2, store 4 back in batch 1, 5 in the ring */
    fx_fini(&f);
}

static void test_ring_granularity_waits_for_batch_or_arb_check(void **state)
{
    struct fx f;
    uint32_t r[8];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_RING);
    ring(&f, FX_CTX_A, FX_RING, r, nested_batches(&f, false, r));
    preempt_after(&f, 4);
    expect_stores(&f, 4); /* only back in the ring */
    fx_fini(&f);

    init(&f, IGPU_MODEL_PREEMPT_RING);
    ring(&f, FX_CTX_A, FX_RING, r, nested_batches(&f, true, r));
    preempt_after(&f, 4);
    expect_stores(&f, 2); /* MI_ARB_CHECK after store 2 is an arbitration point */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    expect_stores(&f, 5);
    fx_fini(&f);
}

/* MI_ARB_ON_OFF: with arbitration disabled (i915 around every user batch) no command boundary
 * is an arbitration point; the first one after it is enabled again is. */
static void test_arbitration_off_holds_preemption(void **state)
{
    struct fx f;
    uint32_t r[24];
    unsigned n = 0;
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_RING);
    r[n++] = GEN9_MI_ARB_ON_OFF;
    for (unsigned i = 0; i < 3; i++, n += 4)
        sdi(&r[n], FX_DATA + 0x580000u + 4u * i, i + 1u);
    r[n++] = GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE;
    for (unsigned i = 3; i < 5; i++, n += 4)
        sdi(&r[n], FX_DATA + 0x580000u + 4u * i, i + 1u);
    ring(&f, FX_CTX_A, FX_RING, r, n);
    preempt_after(&f, 2); /* B arrives after store 1, arbitration off */
    expect_stores(&f, 3); /* A left only once arbitration was on again */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    expect_stores(&f, 5);
    fx_fini(&f);
}

/* A context that completes leaves nothing to resume: its next run starts from its ring. */
static void test_completed_context_resumes_nothing(void **state)
{
    struct fx f;
    uint32_t r[8], c[4];
    (void)state;
    init(&f, IGPU_MODEL_PREEMPT_STEP);
    ring(&f, FX_CTX_A, FX_RING, r, nested_batches(&f, false, r));
    preempt_after(&f, 4);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    expect_stores(&f, 5);
    /* More work in the same context's ring after its tail. */
    sdi(c, FX_DATA + 0x580000u + 20u, 6);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 0xA, c, 4), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x580000u + 20u), 6);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x580000u + 12u), 4);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_blit_runs_in_steps),
        cmocka_unit_test(test_reset_stops_blit_midway),
        cmocka_unit_test(test_preempt_between_blit_steps),
        cmocka_unit_test(test_preempted_overlapping_copy_matches),
        cmocka_unit_test(test_preempt_inside_second_level_batch),
        cmocka_unit_test(test_ring_granularity_waits_for_batch_or_arb_check),
        cmocka_unit_test(test_completed_context_resumes_nothing),
        cmocka_unit_test(test_arbitration_off_holds_preemption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
