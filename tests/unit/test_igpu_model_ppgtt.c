/* The model's PPGTT: a legacy 64-bit context whose PDP0 names a PML4 runs batches started
 * through the PPGTT (bit 8) as a Gen9 engine does: a blit and a store through the 4-level
 * tables (read from physical memory), the tables' present and RW bits honoured.  What such a
 * non-privileged batch may not do is dropped as the GPU drops it (test_igpu_privilege_model.c).
 * A PPGTT batch in a context without a PPGTT is still refused. */
#include "test_igpu_model_fixture.h"

#define PT_BASE  0x700000u         /* graphics memory holding the tables and pages */
#define VA_BATCH 0x7FFF00010000ull /* user addresses */
#define VA_SURF  0x7FFF00020000ull
#define W        16u
#define H        8u

static uint64_t next_page;

/* A page of graphics memory (mapped 1:1 by fx_map_all): returns its physical address. */
static uint64_t page(void)
{
    uint64_t pa = fx_pa(PT_BASE + next_page);
    next_page += 4096;
    return pa;
}


/* PML4 -> PDP -> PD -> PT for the batch and surface pages (same 2 MiB: one PT). */
static uint64_t build(struct fx *f, uint64_t *batch_pa, uint64_t *surf_pa, bool surf_rw)
{
    next_page = 0;
    uint64_t pml4 = page(), pdp = page(), pd = page(), pt = page();
    *batch_pa = page();
    *surf_pa = page();
    fx_phys_wr64(f, pml4 + 8u * gen9_ppgtt_index(VA_BATCH, 3), FX_PDE(pdp));
    fx_phys_wr64(f, pdp + 8u * gen9_ppgtt_index(VA_BATCH, 2), FX_PDE(pd));
    fx_phys_wr64(f, pd + 8u * gen9_ppgtt_index(VA_BATCH, 1), FX_PDE(pt));
    fx_phys_wr64(f, pt + 8u * gen9_ppgtt_index(VA_BATCH, 0), FX_PDE(*batch_pa));
    fx_phys_wr64(f, pt + 8u * gen9_ppgtt_index(VA_SURF, 0),
                 surf_rw ? FX_PDE(*surf_pa) : (*surf_pa | GEN9_PPGTT_PRESENT));
    return pml4;
}

/* Context A with PDP0 = pml4 (0: none), its ring starting the PPGTT batch; submitted with a
 * legacy 64-bit descriptor (or 32-bit for a context without a PPGTT). */
static void run(struct fx *f, uint64_t pml4, const uint32_t *batch, unsigned n, uint64_t batch_pa)
{
    uint32_t st = FX_CTX_A + GEN9_LRC_STATE_OFFSET;
    uint32_t ring[4] = { GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)VA_BATCH,
                         (uint32_t)(VA_BATCH >> 32), GEN9_MI_NOOP };
    uint32_t tail = sizeof ring;
    memcpy(f->mem + batch_pa, batch, 4u * n);
    assert_int_equal(igpu_model_ctx_init(f->m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_gm_write(f->m, FX_RING, ring, sizeof ring), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_RING_TAIL * 4u, &tail, 4), 0);
    uint32_t hi = (uint32_t)(pml4 >> 32), lo = (uint32_t)pml4;
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_PDP0_UDW * 4u, &hi, 4), 0);
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_PDP0_LDW * 4u, &lo, 4), 0);
    uint64_t mode = pml4 ? GEN9_CTX_ADDR_LEGACY_64B : GEN9_CTX_ADDR_LEGACY_32B;
    uint64_t d = gen9_ctx_desc(FX_CTX_A, 0xA,
                               GEN9_CTX_PRIVILEGE | mode << GEN9_CTX_ADDRESSING_MODE_SHIFT);
    assert_int_equal(igpu_elsp_submit(f->g, IGPU_BCS, d, 0), 0);
    igpu_model_run_until_idle(f->m, IGPU_BCS, 1000000000ull);
}

static unsigned fill_blit(uint32_t *c, uint64_t dst, uint32_t colour)
{
    c[0] = GEN9_XY_COLOR_BLT;
    c[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | W * 4u;
    c[2] = GEN9_BLT_COORD(0, 0);
    c[3] = GEN9_BLT_COORD(W, H);
    c[4] = (uint32_t)dst;
    c[5] = (uint32_t)(dst >> 32);
    c[6] = colour;
    return GEN9_XY_COLOR_BLT_LEN;
}

static void expect_reason(struct fx *f, enum igpu_fault_reason r)
{
    const struct igpu_model_fault *ft = igpu_model_fault(f->m, IGPU_BCS);
    assert_non_null(ft);
    if (ft->reason != r)
        print_error("fault: %s (%s)\n", igpu_fault_reason_name(ft->reason), ft->detail);
    assert_int_equal(ft->reason, r);
}

static void test_blit_and_store_through_the_ppgtt(void **state)
{
    struct fx f;
    uint32_t b[16];
    uint64_t batch_pa, surf_pa;
    (void)state;
    fx_init(&f);
    uint64_t pml4 = build(&f, &batch_pa, &surf_pa, true);
    unsigned n = fill_blit(b, VA_SURF, 0x00C0FFEE);
    b[n++] = GEN9_MI_STORE_DATA_IMM; /* PPGTT: no USE_GGTT */
    b[n++] = (uint32_t)(VA_SURF + W * H * 4u);
    b[n++] = (uint32_t)(VA_SURF >> 32);
    b[n++] = 0x600DF00D;
    b[n++] = GEN9_MI_BATCH_BUFFER_END;
    run(&f, pml4, b, n, batch_pa);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (unsigned i = 0; i < W * H; i++)
        assert_int_equal(fx_phys_rd32(&f, surf_pa + 4u * i), 0x00C0FFEE);
    assert_int_equal(fx_phys_rd32(&f, surf_pa + W * H * 4u), 0x600DF00D);
    fx_fini(&f);
}

static void test_ppgtt_entries_honoured(void **state)
{
    struct fx f;
    uint32_t b[12];
    uint64_t batch_pa, surf_pa;
    (void)state;
    /* A read-only surface. */
    fx_init(&f);
    uint64_t pml4 = build(&f, &batch_pa, &surf_pa, false);
    unsigned n = fill_blit(b, VA_SURF, 1);
    b[n++] = GEN9_MI_BATCH_BUFFER_END;
    run(&f, pml4, b, n, batch_pa);
    expect_reason(&f, IGPU_FAULT_PPGTT_READ_ONLY);
    assert_int_equal(fx_phys_rd32(&f, surf_pa), 0);
    fx_fini(&f);
    /* An address with no entry. */
    fx_init(&f);
    pml4 = build(&f, &batch_pa, &surf_pa, true);
    n = fill_blit(b, VA_SURF + 0x200000u, 1);
    b[n++] = GEN9_MI_BATCH_BUFFER_END;
    run(&f, pml4, b, n, batch_pa);
    expect_reason(&f, IGPU_FAULT_PPGTT_NOT_PRESENT);
    fx_fini(&f);
    /* A PPGTT batch in a context without a PPGTT. */
    fx_init(&f);
    build(&f, &batch_pa, &surf_pa, true);
    b[0] = GEN9_MI_BATCH_BUFFER_END;
    run(&f, 0, b, 1, batch_pa);
    expect_reason(&f, IGPU_FAULT_UNSUPPORTED_FIELD);
    fx_fini(&f);
}

/* A GGTT context preempted inside a blit after another context ran a PPGTT batch resumes as
 * it was: the PPGTT flags of batch levels it is not in are not its own (regression: a kiosk
 * guest's blit preempted after an i915 guest's batch faulted "resume record names batch level
 * 0x100"). */
static void test_preempted_ggtt_blit_after_a_ppgtt_batch(void **state)
{
    struct fx f;
    struct igpu_model_config cfg;
    uint32_t b[8], ring_b[8], ring_c[4];
    uint64_t batch_pa, surf_pa;
    (void)state;
    igpu_model_config_defaults(&cfg);
    cfg.ggtt_entries = FX_ENTRIES;
    cfg.aperture_size = (uint64_t)FX_ENTRIES * 4096u;
    cfg.blit_step_ns = 10000;
    cfg.preempt = IGPU_MODEL_PREEMPT_STEP;
    fx_init_cfg(&f, &cfg);
    uint64_t pml4 = build(&f, &batch_pa, &surf_pa, true);
    b[0] = GEN9_MI_NOOP;
    b[1] = GEN9_MI_BATCH_BUFFER_END;
    run(&f, pml4, b, 2, batch_pa); /* level 1 was a PPGTT batch */
    assert_null(igpu_model_fault(f.m, IGPU_BCS));

    /* Context B: a 1024x256 fill from its ring (level 0), preempted between steps by C. */
    ring_b[0] = GEN9_XY_COLOR_BLT;
    ring_b[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 4096u;
    ring_b[2] = GEN9_BLT_COORD(0, 0);
    ring_b[3] = GEN9_BLT_COORD(1024, 256);
    ring_b[4] = FX_DATA;
    ring_b[5] = 0;
    ring_b[6] = 0x5A5A5A5Au;
    ring_b[7] = GEN9_MI_NOOP;
    ring_c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    ring_c[1] = FX_DATA + 0x600000u;
    ring_c[2] = 0;
    ring_c[3] = 0xC;
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_B, FX_RING_B, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_C, FX_RING_C, FX_RING_SIZE), 0);
    uint32_t tb = sizeof ring_b, tc = sizeof ring_c;
    assert_int_equal(igpu_model_gm_write(f.m, FX_RING_B, ring_b, tb), 0);
    assert_int_equal(igpu_model_gm_write(f.m,
                                         FX_CTX_B + GEN9_LRC_STATE_OFFSET + GEN9_CTX_RING_TAIL * 4u,
                                         &tb, 4),
                     0);
    assert_int_equal(igpu_model_gm_write(f.m, FX_RING_C, ring_c, tc), 0);
    assert_int_equal(igpu_model_gm_write(f.m,
                                         FX_CTX_C + GEN9_LRC_STATE_OFFSET + GEN9_CTX_RING_TAIL * 4u,
                                         &tc, 4),
                     0);
    uint64_t d32 = GEN9_CTX_PRIVILEGE | GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT;
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, gen9_ctx_desc(FX_CTX_B, 0xB, d32), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1);
    igpu_model_run(f.m, IGPU_BCS, 1); /* the set-up and the first step */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, gen9_ctx_desc(FX_CTX_C, 0xC, d32), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x600000u), 0xC);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, gen9_ctx_desc(FX_CTX_B, 0xB, d32), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 255u * 4096u + 4092u), 0x5A5A5A5Au);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blit_and_store_through_the_ppgtt),
        cmocka_unit_test(test_ppgtt_entries_honoured),
        cmocka_unit_test(test_preempted_ggtt_blit_after_a_ppgtt_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
