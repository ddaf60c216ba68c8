/*
 * The GPU's privilege rule on the i915 guest's MI-only engines (drivers/igpu/cs/cs_priv.c):
 * every case of igpu_privilege_cases.h in a user batch (started through the PPGTT, as i915
 * starts every user batch) on the render and the video engine, and the registers the guest's
 * kernel whitelists for user batches through RING_FORCE_TO_NONPRIV.
 */
#include "tests/unit/test_igpu_cs_fixture.h"

#include "tests/unit/igpu_privilege_cases.h"

#define UB     (FX_PP_BASE + 0x1000u) /* the user batch */
#define VICTIM (FX_BATCH + 0x800u)

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static struct priv_env env_of(enum igpu_engine e)
{
    uint32_t base = igpu_engine_base(e);
    return (struct priv_env){
        .victim = VICTIM,
        .pp_data = FX_PP_BASE + 0x2000u,
        .pp_callee = FX_PP_BASE + 0x3000u,
        .gpr0 = GEN9_RING_CS_GPR(base, 0),
        /* Loaded by i915's golden context from the ring; the video engine's timestamp, which
         * nothing may write. */
        .priv_reg = e == IGPU_RCS ? GEN9_CACHE_MODE_1 : GEN9_RING_TIMESTAMP(base),
    };
}

/* A fresh engine with the user batch `k` ready in the PPGTT, started from the ring. */
static struct fx_cs *prepare(void **state, enum igpu_engine e, const struct priv_env *v,
                             const uint32_t *batch, unsigned n)
{
    struct fx_cs *f;
    uint32_t callee[16];
    unsigned m = priv_callee(v, callee);

    free(*state);
    *state = f = fx_new(e);
    for (unsigned i = 0; i < 6; i++)
        fx_wr32(f, IGPU_CS_GGTT, v->victim + 4u * i, PRIV_SENTINEL);
    fx_wr32(f, IGPU_CS_GGTT, FX_LRCA + PRIV_SCRATCH, PRIV_SENTINEL);
    fx_wr32(f, IGPU_CS_GGTT, FX_LRCA + PRIV_SCRATCH + 4u, PRIV_SENTINEL);
    fx_wr32(f, IGPU_CS_PPGTT, v->pp_data, PRIV_PP_VALUE);
    fx_put(f, IGPU_CS_PPGTT, v->pp_callee, callee, m);
    fx_put(f, IGPU_CS_PPGTT, UB, batch, n);
    fx_reg_write(f, v->gpr0, PRIV_GPR0);
    FX_EMIT(f, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
            (uint32_t)UB, (uint32_t)(UB >> 32), GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE);
    return f;
}

static void test_user_batch_cases(void **state)
{
    static const enum igpu_engine engines[] = { IGPU_RCS, IGPU_VCS };
    unsigned ran = 0;

    for (unsigned i = 0; i < 2; i++) {
        struct priv_env v = env_of(engines[i]);
        for (unsigned c = 0; c < PRIV_N_CASES; c++) {
            const struct priv_case *k = &priv_cases[c];
            uint32_t batch[32];
            struct priv_seen s;

            if (!priv_case_runs_on(k, engines[i] == IGPU_RCS))
                continue;
            struct fx_cs *f = prepare(state, engines[i], &v, batch, priv_batch(k, &v, batch));
            fx_run(f);
            s = (struct priv_seen){
                .faulted = f->res.fault != IGPU_CS_OK,
                .why = f->res.what,
                .scratch = fx_rd64(f, IGPU_CS_GGTT, FX_LRCA + PRIV_SCRATCH),
                .marker = fx_rd32(f, IGPU_CS_PPGTT, v.pp_data + PRIV_MARKER_OFF),
                .pp_val = k->pp_off ? fx_rd32(f, IGPU_CS_PPGTT, v.pp_data + k->pp_off) : 0,
                .gpr0 = fx_reg(f, v.gpr0),
                .priv_reg_changed = fx_reg(f, v.priv_reg) != 0xDEADBEEFu,
                .dropped = f->res.priv_dropped,
            };
            for (unsigned q = 0; q < 3; q++)
                s.victim[q] = fx_rd64(f, IGPU_CS_GGTT, v.victim + 8u * q);
            priv_check(k, &s);
            assert_int_equal(f->res.head, f->ring.tail); /* the request completed */
            ran++;
        }
    }
    assert_int_equal(ran, 2u * 9u + 4u + 3u);
}

/* The same GGTT store from the ring and from a GGTT (privileged) batch lands. */
static void test_privileged_stores_land(void **state)
{
    struct priv_env v = env_of(IGPU_VCS);
    uint32_t batch[8];
    unsigned n = emit_sdi_ggtt(&v, batch);
    struct fx_cs *f = prepare(state, IGPU_VCS, &v, batch, 0);

    batch[n++] = GEN9_MI_BATCH_BUFFER_END;
    fx_put(f, IGPU_CS_GGTT, FX_BATCH, batch, n);
    f->ring.tail = f->ring.head; /* replace the ring's user batch */
    f->ring_dw = 0;
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0,
            GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, VICTIM + 8u, 0, 0x600D);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, VICTIM), 0xBAD);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, VICTIM + 8u), 0x600D);
    assert_int_equal(f->res.priv_dropped, 0);
}

/* RING_FORCE_TO_NONPRIV: i915 names the render engine's user-writable chicken registers in
 * these slots (gt/intel_workarounds.c gen9_whitelist_build(): CS_CHICKEN1 for
 * WaEnablePreemptionGranularityControlByUMD); an LRI from a user batch then writes it.  The
 * same LRI without the slot is dropped. */
static void test_force_to_nonpriv_whitelist(void **state)
{
    struct priv_env v = env_of(IGPU_RCS);
    const uint32_t lri[] = { GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_CS_CHICKEN1, 0x00060004u,
                             GEN9_MI_BATCH_BUFFER_END };
    struct fx_cs *f;

    f = prepare(state, IGPU_RCS, &v, lri, 4);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_reg(f, GEN9_CS_CHICKEN1), 0xDEADBEEFu);
    assert_int_equal(f->res.priv_dropped, 1);

    f = prepare(state, IGPU_RCS, &v, lri, 4);
    fx_reg_write(f, GEN9_RING_FORCE_TO_NONPRIV(GEN9_RCS_BASE, 0), GEN9_RING_NOPID(GEN9_RCS_BASE));
    fx_reg_write(f, GEN9_RING_FORCE_TO_NONPRIV(GEN9_RCS_BASE, 3), GEN9_CS_CHICKEN1);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_reg(f, GEN9_CS_CHICKEN1), 0x00060004u);
    assert_int_equal(f->res.priv_dropped, 0);
    assert_int_equal(f->res.reg_writes, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_user_batch_cases, teardown),
        cmocka_unit_test_teardown(test_privileged_stores_land, teardown),
        cmocka_unit_test_teardown(test_force_to_nonpriv_whitelist, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
