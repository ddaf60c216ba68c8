/*
 * The Gen9 model's context save and restore: the whole register-state
 * layout is saved; a restore loads the ring context always and the engine context (GPRs,
 * BCS_SWCTRL, MI_MODE, ...) unless CONTEXT_CONTROL inhibits it, as i915 relies on when it
 * records an engine's default image; SAVE_INHIBIT is honoured; an image whose headers or
 * register offsets are not the layout's faults the engine.
 */
#include "test_igpu_model_fixture.h"

#define CTX_D  0x008000u /* a fourth context: the recorded default */
#define RING_D 0x01C000u

static void write_state(struct fx *f, uint32_t lrca, const uint32_t *s)
{
    for (unsigned i = 0; i < 1024; i++)
        fx_wr32(f, lrca + GEN9_LRC_STATE_OFFSET + 4u * i, s[i]);
}

static void read_state(struct fx *f, uint32_t lrca, uint32_t *s)
{
    for (unsigned i = 0; i < 1024; i++)
        s[i] = fx_rd32(f, lrca + GEN9_LRC_STATE_OFFSET + 4u * i);
}

static uint32_t ctx_gpr(struct fx *f, uint32_t lrca, unsigned dw)
{
    return fx_rd32(f, lrca + GEN9_LRC_STATE_OFFSET + 4u * (GEN9_CTX_GPR0 + 2u * dw));
}

static void run(struct fx *f, uint32_t lrca, uint32_t id, const uint32_t *c, size_t n)
{
    struct igpu_csb_event ev[6];
    assert_int_equal(igpu_model_submit_ring(f->m, IGPU_BCS, lrca, id, c, n), 0);
    igpu_model_run_until_idle(f->m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f->m, IGPU_BCS));
    while (fx_csb(f, IGPU_BCS, ev, 6) > 0)
        ;
}

static size_t lri_gpr0(uint32_t *c, uint32_t v)
{
    c[0] = GEN9_MI_LOAD_REGISTER_IMM(2);
    c[1] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0);
    c[2] = v;
    c[3] = GEN9_BCS_SWCTRL;
    c[4] = GEN9_MASKED_BIT_ENABLE(GEN9_BCS_SWCTRL_DST_Y);
    c[5] = GEN9_MI_NOOP;
    return 6;
}

static size_t srm_gpr0(uint32_t *c, uint64_t dst)
{
    c[0] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    c[1] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0);
    c[2] = (uint32_t)dst;
    c[3] = 0;
    c[4] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    c[5] = GEN9_BCS_SWCTRL;
    c[6] = (uint32_t)dst + 4;
    c[7] = 0;
    return 8;
}

static void save_writes_the_whole_layout(void **state)
{
    struct fx f;
    uint32_t c[8], s[1024];
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    run(&f, FX_CTX_A, 1, c, lri_gpr0(c, 0xA0A0));
    read_state(&f, FX_CTX_A, s);
    const struct gen9_lrc_layout *l = igpu_lrc_layout(IGPU_BCS);
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++)
        assert_int_equal(s[l->block[k].header],
                         GEN9_MI_LOAD_REGISTER_IMM(l->block[k].count) |
                             (l->block[k].posted ? GEN9_MI_LRI_FORCE_POSTED : 0));
    for (unsigned i = 0; i < GEN9_LRC_REGS; i++)
        assert_int_equal(s[gen9_lrc_value_dw(l, i) - 1], GEN9_BCS_BASE + l->reg[i]);
    assert_int_equal(s[GEN9_CTX_GPR0], 0xA0A0);
    assert_int_equal(s[GEN9_CTX_BCS_SWCTRL], 0xFFFF0000u | GEN9_BCS_SWCTRL_DST_Y);
    assert_int_equal(s[GEN9_LRC_STATE_DW], GEN9_MI_BATCH_BUFFER_END);
    /* a saved image is complete: its next restore is not inhibited */
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL] & GEN9_CTX_CTRL_RESTORE_INHIBIT, 0);
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL] >> 16, 0xFFFF);
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL] & GEN9_CTX_CTRL_INHIBIT_SYN_SWITCH,
                     GEN9_CTX_CTRL_INHIBIT_SYN_SWITCH);
    fx_fini(&f);
}

/* The i915 way: record a default image on the fresh engine, start new contexts from it. */
static void contexts_from_a_default_image_keep_their_own_registers(void **state)
{
    struct fx f;
    uint32_t c[8], d[1024], s[1024];
    (void)state;
    fx_init(&f);
    /* default image: an empty context with restore inhibited, saved by the fresh engine */
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, CTX_D, RING_D, FX_RING_SIZE), 0);
    c[0] = GEN9_MI_NOOP;
    run(&f, CTX_D, 9, c, 1);
    read_state(&f, CTX_D, d);
    /* two contexts from it */
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, d, FX_RING, FX_RING_SIZE, 0, 0), 0);
    write_state(&f, FX_CTX_A, s);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, d, FX_RING_B, FX_RING_SIZE, 0, 0), 0);
    write_state(&f, FX_CTX_B, s);

    run(&f, FX_CTX_A, 1, c, lri_gpr0(c, 0xAAAA));  /* A leaves GPR0, BCS_SWCTRL */
    run(&f, FX_CTX_B, 2, c, srm_gpr0(c, FX_DATA)); /* B's first look */
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    assert_int_equal(fx_rd32(&f, FX_DATA + 4), 0);
    run(&f, FX_CTX_B, 2, c, lri_gpr0(c, 0xBBBB));
    run(&f, FX_CTX_A, 1, c, srm_gpr0(c, FX_DATA + 8)); /* A gets its own back */
    assert_int_equal(fx_rd32(&f, FX_DATA + 8), 0xAAAA);
    assert_int_equal(fx_rd32(&f, FX_DATA + 12), GEN9_BCS_SWCTRL_DST_Y);
    assert_int_equal(ctx_gpr(&f, FX_CTX_B, 0), 0xBBBB);
    fx_fini(&f);
}

/* Restore inhibited (an image built without a default): the engine context is not loaded and
 * the engine keeps what it had, which is why the vGPU never submits such an image. */
static void inhibited_restore_keeps_the_engine_registers(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_B, FX_RING_B, FX_RING_SIZE), 0);
    run(&f, FX_CTX_A, 1, c, lri_gpr0(c, 0x1234));
    run(&f, FX_CTX_B, 2, c, srm_gpr0(c, FX_DATA));
    assert_int_equal(fx_rd32(&f, FX_DATA), 0x1234);
    /* ... while the ring registers (ring context) are the image's own: B's SRM ran in B */
    assert_int_equal(fx_reg(&f, GEN9_RING_START(GEN9_BCS_BASE)), FX_RING_B);
    fx_fini(&f);
}

static void save_inhibit_is_honoured(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    fx_wr32(&f, FX_CTX_A + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_CONTEXT_CONTROL,
            GEN9_MASKED_BIT_ENABLE(GEN9_CTX_CTRL_SAVE_INHIBIT | GEN9_CTX_CTRL_RESTORE_INHIBIT));
    run(&f, FX_CTX_A, 1, c, lri_gpr0(c, 0x77));
    assert_int_equal(ctx_gpr(&f, FX_CTX_A, 0), 0); /* nothing saved */
    fx_fini(&f);
}

static void a_foreign_layout_faults_the_engine(void **state)
{
    struct fx f;
    uint32_t c[8], s[1024];
    (void)state;
    fx_init(&f);
    /* restore allowed, and a GPR offset rewritten to name GDRST: refused, never loaded */
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, NULL, FX_RING, FX_RING_SIZE, 0, 0), 0);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, s, FX_RING, FX_RING_SIZE, 0, 0), 0);
    s[GEN9_CTX_GPR0 - 1] = GEN9_GDRST;
    write_state(&f, FX_CTX_A, s);
    c[0] = GEN9_MI_NOOP;
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 1, c, 1), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000ull);
    const struct igpu_model_fault *ft = igpu_model_fault(f.m, IGPU_BCS);
    assert_non_null(ft);
    assert_int_equal(ft->reason, IGPU_FAULT_BAD_CONTEXT);
    assert_non_null(strstr(ft->detail, "names register 0x941c"));
    /* a wrong LRI header faults too */
    assert_int_equal(igpu_engine_reset(f.g, IGPU_BCS), 0);
    assert_int_equal(igpu_engine_init(f.g, IGPU_BCS, FX_HWS_BCS), 0);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, NULL, FX_RING, FX_RING_SIZE, 0, 0), 0);
    s[GEN9_CTX_LRI_HEADER_0] = GEN9_MI_LOAD_REGISTER_IMM(15);
    write_state(&f, FX_CTX_A, s);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 1, c, 1), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000ull);
    ft = igpu_model_fault(f.m, IGPU_BCS);
    assert_non_null(ft);
    assert_non_null(strstr(ft->detail, "expected LRI(14)"));
    fx_fini(&f);
}

/* i915 reset_csb_pointers(): both pointers written to 5; the next event lands in entry 0. */
static void csb_pointers_take_i915s_rewind(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[6];
    uint32_t c[2] = { GEN9_MI_NOOP, GEN9_MI_NOOP }, ptr = GEN9_RING_CSB_PTR(GEN9_BCS_BASE);
    (void)state;
    fx_init(&f);
    assert_int_equal(fx_reg(&f, ptr), (GEN9_CSB_PTR_RESET << 8) | GEN9_CSB_PTR_RESET);
    assert_int_equal(igpu_reg_write(f.g, ptr, 0xFFFF0505u), 0);
    assert_int_equal(fx_reg(&f, ptr), 0x0505);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 1, c, 2), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000ull);
    assert_int_equal(fx_csb(&f, IGPU_BCS, ev, 6), 2); /* IDLE_ACTIVE in 0, then 1 */
    assert_int_equal(fx_reg(&f, ptr) & GEN9_CSB_PTR_MASK, 1);
    assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(save_writes_the_whole_layout),
        cmocka_unit_test(contexts_from_a_default_image_keep_their_own_registers),
        cmocka_unit_test(inhibited_restore_keeps_the_engine_registers),
        cmocka_unit_test(save_inhibit_is_honoured),
        cmocka_unit_test(a_foreign_layout_faults_the_engine),
        cmocka_unit_test(csb_pointers_take_i915s_rewind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
