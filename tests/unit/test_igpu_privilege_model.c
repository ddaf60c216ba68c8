/*
 * The GPU's privilege rule on the model's engines (drivers/igpu/cs/cs_priv.c, the code the
 * model's command streamer runs): every case of igpu_privilege_cases.h in a batch started
 * through the context's PPGTT, on the render and the blitter engine.  The GPU does not stop
 * on these: it drops the command and goes on, and so does the model.
 */
#include "test_igpu_model_fixture.h"

#include "tests/unit/igpu_privilege_cases.h"

#define PT_BASE   0x700000u         /* graphics memory holding the tables and pages */
#define VA_BATCH  0x7FFF00010000ull /* user addresses, all in one page table */
#define VA_DATA   0x7FFF00020000ull
#define VA_CALLEE 0x7FFF00030000ull /* far beyond the GGTT: only the PPGTT has it */
#define VICTIM    (FX_DATA + 0x800u)


struct pp {
    uint64_t pml4, batch_pa, data_pa, callee_pa;
};

/* PML4 -> PDP -> PD -> PT mapping the three user pages. */
static struct pp build(struct fx *f)
{
    struct pp p;
    uint64_t next = 0, pdp, pd, pt;
#define PAGE() (next += 4096u, fx_pa(PT_BASE + next - 4096u))
    p.pml4 = PAGE();
    pdp = PAGE();
    pd = PAGE();
    pt = PAGE();
    p.batch_pa = PAGE();
    p.data_pa = PAGE();
    p.callee_pa = PAGE();
#undef PAGE
    fx_phys_wr64(f, p.pml4 + 8u * gen9_ppgtt_index(VA_BATCH, 3), FX_PDE(pdp));
    fx_phys_wr64(f, pdp + 8u * gen9_ppgtt_index(VA_BATCH, 2), FX_PDE(pd));
    fx_phys_wr64(f, pd + 8u * gen9_ppgtt_index(VA_BATCH, 1), FX_PDE(pt));
    fx_phys_wr64(f, pt + 8u * gen9_ppgtt_index(VA_BATCH, 0), FX_PDE(p.batch_pa));
    fx_phys_wr64(f, pt + 8u * gen9_ppgtt_index(VA_DATA, 0), FX_PDE(p.data_pa));
    fx_phys_wr64(f, pt + 8u * gen9_ppgtt_index(VA_CALLEE, 0), FX_PDE(p.callee_pa));
    return p;
}

static struct priv_env env_of(enum igpu_engine e)
{
    uint32_t base = igpu_engine_base(e);
    /* RING_MODE: the model loads it from no command at all; a user batch may not either. */
    return (struct priv_env){ .victim = VICTIM,
                              .pp_data = VA_DATA,
                              .pp_callee = VA_CALLEE,
                              .gpr0 = GEN9_RING_CS_GPR(base, 0),
                              .priv_reg = GEN9_RING_MODE(base) };
}

/* Context A on engine e with its PPGTT; the ring loads GPR0 (privileged) and starts the user
 * batch through the PPGTT. */
static void run(struct fx *f, enum igpu_engine e, const struct priv_env *v, const struct pp *p,
                const uint32_t *batch, unsigned n)
{
    uint32_t st = FX_CTX_A + GEN9_LRC_STATE_OFFSET, callee[16];
    uint32_t ring[8] = { GEN9_MI_LOAD_REGISTER_IMM(1),
                         v->gpr0,
                         PRIV_GPR0,
                         GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
                         (uint32_t)VA_BATCH,
                         (uint32_t)(VA_BATCH >> 32),
                         GEN9_MI_NOOP,
                         GEN9_MI_NOOP };
    uint32_t tail = sizeof ring, hi = (uint32_t)(p->pml4 >> 32), lo = (uint32_t)p->pml4;
    unsigned m = priv_callee(v, callee);

    /* cppcheck-suppress uninitvar ; the caller fills batch in its argument list, before the call */
    memcpy(f->mem + p->batch_pa, batch, 4u * n);
    memcpy(f->mem + p->callee_pa, callee, 4u * m);
    memcpy(f->mem + p->data_pa, &(uint32_t){ PRIV_PP_VALUE }, 4);
    for (unsigned i = 0; i < 6; i++)
        fx_wr32(f, v->victim + 4u * i, PRIV_SENTINEL);
    assert_int_equal(igpu_model_ctx_init(f->m, e, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    fx_wr32(f, FX_CTX_A + PRIV_SCRATCH, PRIV_SENTINEL); /* the context's status page */
    fx_wr32(f, FX_CTX_A + PRIV_SCRATCH + 4u, PRIV_SENTINEL);
    assert_int_equal(igpu_model_gm_write(f->m, FX_RING, ring, sizeof ring), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_RING_TAIL * 4u, &tail, 4), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_PDP0_UDW * 4u, &hi, 4), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_PDP0_LDW * 4u, &lo, 4), 0);
    uint64_t d = gen9_ctx_desc(FX_CTX_A, 0xA,
                               GEN9_CTX_PRIVILEGE | GEN9_CTX_ADDR_LEGACY_64B
                                                        << GEN9_CTX_ADDRESSING_MODE_SHIFT);
    assert_int_equal(igpu_elsp_submit(f->g, e, d, 0), 0);
    igpu_model_run_until_idle(f->m, e, 1000000000ull);
}

static void test_ppgtt_batch_cases(void **state)
{
    static const enum igpu_engine engines[] = { IGPU_RCS, IGPU_BCS };
    unsigned ran = 0;
    (void)state;

    for (unsigned i = 0; i < 2; i++) {
        struct priv_env v = env_of(engines[i]);
        for (unsigned c = 0; c < PRIV_N_CASES; c++) {
            const struct priv_case *k = &priv_cases[c];
            const struct igpu_model_fault *ft;
            struct igpu_model_stats st;
            uint32_t batch[32], mode_before;
            struct priv_seen s;
            struct fx f;

            if (!priv_case_runs_on(k, engines[i] == IGPU_RCS))
                continue;
            fx_init(&f);
            struct pp p = build(&f);
            mode_before = fx_reg(&f, v.priv_reg);
            run(&f, engines[i], &v, &p, batch, priv_batch(k, &v, batch));
            ft = igpu_model_fault(f.m, engines[i]);
            assert_int_equal(igpu_model_stats(f.m, engines[i], &st), 0);
            s = (struct priv_seen){
                .faulted = ft != NULL,
                .why = ft ? ft->detail : "",
                .scratch = fx_rd64(&f, FX_CTX_A + PRIV_SCRATCH),
                .marker = fx_phys_rd32(&f, p.data_pa + PRIV_MARKER_OFF),
                .pp_val = k->pp_off ? fx_phys_rd32(&f, p.data_pa + k->pp_off) : 0,
                .gpr0 = fx_reg(&f, v.gpr0),
                .priv_reg_changed = fx_reg(&f, v.priv_reg) != mode_before,
                .dropped = st.priv_dropped,
            };
            for (unsigned q = 0; q < 3; q++)
                s.victim[q] = fx_rd64(&f, v.victim + 8u * q);
            priv_check(k, &s);
            assert_int_equal(igpu_model_engine_state(f.m, engines[i]), IGPU_MODEL_IDLE);
            fx_fini(&f);
            ran++;
        }
    }
    assert_int_equal(ran, 2u * 9u + 4u + 3u);
}

/* BCS_SWCTRL is a user-mode register of the blitter (user space selects Y tiling for its blits
 * with it): a user batch loads it. */
static void test_user_batch_loads_bcs_swctrl(void **state)
{
    struct priv_env v = env_of(IGPU_BCS);
    const uint32_t lri[] = { GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_BCS_SWCTRL,
                             GEN9_MASKED_BIT_ENABLE(GEN9_BCS_SWCTRL_DST_Y),
                             GEN9_MI_BATCH_BUFFER_END };
    struct fx f;
    (void)state;
    fx_init(&f);
    struct pp p = build(&f);
    run(&f, IGPU_BCS, &v, &p, lri, 4);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_reg(&f, GEN9_BCS_SWCTRL) & GEN9_BCS_SWCTRL_DST_Y, GEN9_BCS_SWCTRL_DST_Y);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ppgtt_batch_cases),
        cmocka_unit_test(test_user_batch_loads_bcs_swctrl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
