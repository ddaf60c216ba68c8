/*
 * Hardware backend against a recording fake BAR0: the exact MMIO sequences for forcewake,
 * register access, GGTT write + flush, fence programming, execlist enable and submission,
 * CSB reading, interrupts and timestamps, as i915 and the PRM order them.  The sequences i915
 * adds for misbehaving hardware (forcewake fallback, engine reset, CSB pointer reset, the
 * timestamp rate) are in test_igpu_hw_i915.c.
 */
#include "test_igpu_hw_fake.h"

static void test_init_resets_forcewake_requests(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    const struct op exp[] = {
        { WR, QR, 0xFFFF0000u },
        { WR, QG, 0xFFFF0000u },
        { WR, QM, 0xFFFF0000u },
        /* the timestamp rate: CTC_MODE lies in the GT domain */
        { RD, AG, 0 },
        { WR, QG, FW_SET },
        { RD, AG, 1 },
        { RD, GEN9_CTC_MODE, CTC_SKL },
        { WR, QG, FW_CLEAR },
    };
    (void)state;
    setup(&f, &hw, true);
    expect(&f, exp, 8);
    assert_int_equal(igpu_hw_igpu(&hw)->info.timestamp_hz, 12000000);
    assert_string_equal(igpu_hw_igpu(&hw)->ops->name, "hw");
}

static void test_register_access_takes_its_domain(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu *g;
    uint32_t v;
    const uint32_t rcs_head = GEN9_RING_HEAD(GEN9_RCS_BASE),
                   bcs_tail = GEN9_RING_TAIL(GEN9_BCS_BASE);
    (void)state;
    setup(&f, &hw, true);
    g = igpu_hw_igpu(&hw);
    f.n = 0;
    *reg(&f, rcs_head) = 0x40;
    assert_int_equal(igpu_reg_read(g, rcs_head, &v), 0);
    assert_int_equal(v, 0x40);
    {
        const struct op exp[] = {
            { RD, AR, 0 },          { WR, QR, FW_SET },   { RD, AR, 1 },
            { RD, rcs_head, 0x40 }, { WR, QR, FW_CLEAR },
        };
        expect(&f, exp, 5);
    }
    assert_int_equal(igpu_reg_write(g, bcs_tail, 0x88), 0);
    {
        const struct op exp[] = {
            { RD, AG, 0 },          { WR, QG, FW_SET },   { RD, AG, 1 },
            { WR, bcs_tail, 0x88 }, { WR, QG, FW_CLEAR },
        };
        expect(&f, exp, 5);
    }
    /* Above 0x40000 no domain is needed. */
    assert_int_equal(igpu_reg_write(g, GEN9_MASTER_IRQ, 0), 0);
    {
        const struct op exp[] = { { WR, GEN9_MASTER_IRQ, 0 } };
        expect(&f, exp, 1);
    }
    /* GDRST lies in a render+media range: both requests, then both acks. */
    assert_int_equal(igpu_reg_read(g, GEN9_GDRST, &v), 0);
    {
        const struct op exp[] = {
            { RD, AR, 0 },         { WR, QR, FW_SET },   { RD, AM, 0 },
            { WR, QM, FW_SET },    { RD, AR, 1 },        { RD, AM, 1 },
            { RD, GEN9_GDRST, 0 }, { WR, QR, FW_CLEAR }, { WR, QM, FW_CLEAR },
        };
        expect(&f, exp, 9);
    }
    assert_int_equal(igpu_reg_read(g, GEN9_MMIO_SIZE, &v), IGPU_ERANGE);
    assert_int_equal(igpu_reg_read(g, 0x2002, &v), IGPU_EINVAL);
    assert_int_equal(f.n, 0);
}

static void test_forcewake_nesting(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    (void)state;
    setup(&f, &hw, true);
    f.n = 0;
    assert_int_equal(igpu_hw_forcewake_get(&hw, IGPU_FW_GT), 0);
    assert_int_equal(igpu_reg_write(igpu_hw_igpu(&hw), GEN9_RING_TAIL(GEN9_BCS_BASE), 8), 0);
    igpu_hw_forcewake_put(&hw, IGPU_FW_GT);
    {
        const struct op exp[] = {
            { RD, AG, 0 },        { WR, QG, FW_SET },
            { RD, AG, 1 },        { WR, GEN9_RING_TAIL(GEN9_BCS_BASE), 8 },
            { WR, QG, FW_CLEAR },
        };
        expect(&f, exp, 5);
    }
    igpu_hw_forcewake_put(&hw, IGPU_FW_GT); /* unbalanced put: nothing happens */
    assert_int_equal(f.n, 0);
}

static void test_ggtt_write_and_flush(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu *g;
    uint64_t pte = gen9_ggtt_pte_encode(0x123456000ull), back;
    (void)state;
    setup(&f, &hw, true);
    g = igpu_hw_igpu(&hw);
    f.n = 0;
    assert_int_equal(igpu_ggtt_write(g, 42, pte), 0);
    assert_int_equal(igpu_ggtt_flush(g), 0);
    assert_int_equal(igpu_ggtt_read(g, 42, &back), 0);
    assert_int_equal(back, pte);
    {
        const struct op exp[] = {
            { WR64, (8u << 20) + 42 * 8, pte },
            { WR, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN },
            { RD64, (8u << 20) + 42 * 8, pte },
        };
        expect(&f, exp, 3);
    }
    assert_int_equal(igpu_ggtt_write(g, 1u << 20, pte), IGPU_ERANGE);
    assert_int_equal(f.n, 0);

    /* Without a 64-bit store the entry goes out low dword first. */
    setup(&f, &hw, false);
    g = igpu_hw_igpu(&hw);
    f.n = 0;
    assert_int_equal(igpu_ggtt_write(g, 7, 0x0000001200ABC001ull), 0);
    {
        const struct op exp[] = {
            { WR, (8u << 20) + 56, 0x00ABC001u },
            { WR, (8u << 20) + 60, 0x12 },
        };
        expect(&f, exp, 2);
    }
}

static void test_fence_write_order(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint64_t v = gen9_fence_encode(0x100000, 0x40000, 2048, true);
    (void)state;
    setup(&f, &hw, true);
    f.n = 0;
    assert_int_equal(igpu_fence_write(igpu_hw_igpu(&hw), 5, v), 0);
    {
        const struct op exp[] = {
            { WR, GEN9_FENCE_REG_LO(5), 0 },
            { RD, GEN9_FENCE_REG_LO(5), 0 },
            { WR, GEN9_FENCE_REG_HI(5), (uint32_t)(v >> 32) },
            { WR, GEN9_FENCE_REG_LO(5), (uint32_t)v },
            { RD, GEN9_FENCE_REG_LO(5), (uint32_t)v },
        };
        expect(&f, exp, 5);
    }
    assert_int_equal(igpu_fence_write(igpu_hw_igpu(&hw), 32, v), IGPU_ERANGE);
}

static void test_engine_init_sequence(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint32_t b = GEN9_BCS_BASE;
    uint32_t irq = (GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR)
                << GEN9_GT_BCS_IRQ_SHIFT;
    (void)state;
    setup(&f, &hw, true);
    *reg(&f, GEN9_GT_IMR(0)) = 0xFFFFFFFFu;
    f.n = 0;
    assert_int_equal(igpu_engine_init(igpu_hw_igpu(&hw), IGPU_BCS, 0x7000), 0);
    {
        const struct op exp[] = {
            { RD, AG, 0 },
            { WR, QG, FW_SET },
            { RD, AG, 1 },
            /* reset_csb_pointers(): both pointers to 5, twice */
            { WR, GEN9_RING_CSB_PTR(b), 0xFFFF0505u },
            { RD, GEN9_RING_CSB_PTR(b), 0xFFFF0505u },
            { WR, GEN9_RING_CSB_PTR(b), 0xFFFF0505u },
            { RD, GEN9_RING_CSB_PTR(b), 0xFFFF0505u },
            /* enable_execlists() */
            { WR, GEN9_RING_HWSTAM(b), 0xFFFFFFFFu },
            { WR, GEN9_RING_MODE(b), 0x80008000u },    /* masked RUN_LIST_ENABLE */
            { WR, GEN9_RING_MI_MODE(b), 0x01000000u }, /* masked STOP_RING clear */
            { WR, GEN9_RING_HWS_PGA(b), 0x7000 },
            { RD, GEN9_RING_HWS_PGA(b), 0x7000 },
            /* enable_error_interrupt() */
            { WR, GEN9_RING_EMR(b), 0xFFFFFFFFu },
            { WR, GEN9_RING_EIR(b), 0xFFFFFFFFu },
            { RD, GEN9_RING_ESR(b), 0 },
            { WR, GEN9_RING_EMR(b), ~GEN9_ERROR_INSTRUCTION },
            { WR, QG, FW_CLEAR },
            { RD, GEN9_GT_IMR(0), 0xFFFFFFFFu },
            { WR, GEN9_GT_IMR(0), ~irq },
            { RD, GEN9_GT_IER(0), 0 },
            { WR, GEN9_GT_IER(0), irq },
            { WR, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL },
        };
        expect(&f, exp, 22);
    }
    assert_int_equal(igpu_engine_init(igpu_hw_igpu(&hw), IGPU_BCS, 0x7001), IGPU_EINVAL);
}

static void test_elsp_submit_order(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint64_t d0 = gen9_ctx_desc(0x10000, 0x31, GEN9_CTX_PRIVILEGE);
    uint64_t d1 = gen9_ctx_desc(0x20000, 0x32, GEN9_CTX_PRIVILEGE);
    uint32_t elsp = GEN9_RING_ELSP(GEN9_RCS_BASE);
    (void)state;
    setup(&f, &hw, true);
    f.n = 0;
    assert_int_equal(igpu_elsp_submit(igpu_hw_igpu(&hw), IGPU_RCS, d0, d1), 0);
    {
        const struct op exp[] = {
            { RD, AR, 0 },        { WR, QR, FW_SET },    { RD, AR, 1 },
            { WR, elsp, 0x32 },   { WR, elsp, 0x20101 }, /* element 1: upper, lower */
            { WR, elsp, 0x31 },   { WR, elsp, 0x10101 }, /* element 0: upper, lower */
            { WR, QR, FW_CLEAR },
        };
        expect(&f, exp, 8);
    }
    assert_int_equal(igpu_elsp_submit(igpu_hw_igpu(&hw), IGPU_RCS, 0, d1), IGPU_EINVAL);
    assert_int_equal(f.n, 0);
}

static void test_csb_read_sequence(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu *g;
    struct igpu_csb_event ev[6];
    uint32_t b = GEN9_RCS_BASE;
    (void)state;
    setup(&f, &hw, true);
    g = igpu_hw_igpu(&hw);
    assert_int_equal(igpu_engine_init(g, IGPU_RCS, 0x6000), 0);
    *reg(&f, GEN9_RING_CSB_PTR(b)) = GEN9_CSB_PTR_RESET; /* nothing written yet */
    f.n = 0;
    assert_int_equal(igpu_csb_read(g, IGPU_RCS, ev, 6), 0);
    {
        const struct op exp[] = {
            { RD, AR, 0 },        { WR, QR, FW_SET },
            { RD, AR, 1 },        { RD, GEN9_RING_CSB_PTR(b), 7 },
            { WR, QR, FW_CLEAR },
        };
        expect(&f, exp, 5);
    }
    /* Two events in entries 0 and 1. */
    *reg(&f, GEN9_RING_CSB_PTR(b)) = 1;
    *reg(&f, GEN9_RING_CSB_LO(b, 0)) = GEN9_CTX_STATUS_IDLE_ACTIVE;
    *reg(&f, GEN9_RING_CSB_LO(b, 1)) = GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE;
    *reg(&f, GEN9_RING_CSB_HI(b, 1)) = 0x31;
    assert_int_equal(igpu_csb_read(g, IGPU_RCS, ev, 6), 2);
    assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(ev[1].ctx_id, 0x31);
    {
        const struct op exp[] = {
            { RD, AR, 0 },
            { WR, QR, FW_SET },
            { RD, AR, 1 },
            { RD, GEN9_RING_CSB_PTR(b), 1 },
            { RD, GEN9_RING_CSB_LO(b, 0), GEN9_CTX_STATUS_IDLE_ACTIVE },
            { RD, GEN9_RING_CSB_HI(b, 0), 0 },
            { RD, GEN9_RING_CSB_LO(b, 1), GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE },
            { RD, GEN9_RING_CSB_HI(b, 1), 0x31 },
            { WR, GEN9_RING_CSB_PTR(b), 0x07000100u }, /* read pointer := 1 */
            { WR, QR, FW_CLEAR },
        };
        expect(&f, exp, 10);
    }
    /* Wrap: write pointer at 0 again after entries 2..5 and 0. */
    *reg(&f, GEN9_RING_CSB_PTR(b)) = 0;
    assert_int_equal(igpu_csb_read(g, IGPU_RCS, ev, 6), 5);
    assert_int_equal(hw.csb_head[IGPU_RCS], 0);
}

static void test_irq_ack_sequence(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu_irq_status st;
    uint32_t iir = (GEN9_GT_CONTEXT_SWITCH << GEN9_GT_BCS_IRQ_SHIFT) | GEN9_GT_USER_INTERRUPT;
    (void)state;
    setup(&f, &hw, true);
    *reg(&f, GEN9_GT_IIR(0)) = iir;
    f.n = 0;
    assert_int_equal(igpu_irq_ack(igpu_hw_igpu(&hw), &st), 0);
    assert_int_equal(st.engine[IGPU_RCS], GEN9_GT_USER_INTERRUPT);
    assert_int_equal(st.engine[IGPU_BCS], GEN9_GT_CONTEXT_SWITCH);
    {
        const struct op exp[] = {
            { WR, GEN9_MASTER_IRQ, 0 },
            { RD, GEN9_GT_IIR(0), iir },
            { WR, GEN9_GT_IIR(0), iir },
            { WR, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL },
        };
        expect(&f, exp, 4);
    }
}

static void test_timestamp_reads_stable_halves(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    uint64_t t;
    uint32_t b = GEN9_RCS_BASE;
    (void)state;
    setup(&f, &hw, true);
    *reg(&f, GEN9_RING_TIMESTAMP(b)) = 0x89ABCDEF;
    *reg(&f, GEN9_RING_TIMESTAMP_UDW(b)) = 0x1;
    f.n = 0;
    assert_int_equal(igpu_timestamp(igpu_hw_igpu(&hw), IGPU_RCS, &t), 0);
    assert_int_equal(t, 0x189ABCDEFull);
    {
        const struct op exp[] = {
            { RD, AR, 0 },
            { WR, QR, FW_SET },
            { RD, AR, 1 },
            { RD, GEN9_RING_TIMESTAMP_UDW(b), 1 },
            { RD, GEN9_RING_TIMESTAMP(b), 0x89ABCDEF },
            { RD, GEN9_RING_TIMESTAMP_UDW(b), 1 },
            { WR, QR, FW_CLEAR },
        };
        expect(&f, exp, 7);
    }
}

static void test_fw_domain_table(void **state)
{
    (void)state;
    assert_int_equal(igpu_hw_fw_domains(GEN9_RCS_BASE), IGPU_FW_RENDER);
    assert_int_equal(igpu_hw_fw_domains(GEN9_RING_CSB_PTR(GEN9_RCS_BASE)), IGPU_FW_RENDER);
    assert_int_equal(igpu_hw_fw_domains(GEN9_BCS_BASE), IGPU_FW_GT);
    assert_int_equal(igpu_hw_fw_domains(GEN9_BCS_SWCTRL), IGPU_FW_GT);
    assert_int_equal(igpu_hw_fw_domains(GEN9_GDRST), IGPU_FW_RENDER | IGPU_FW_MEDIA);
    assert_int_equal(igpu_hw_fw_domains(0x1000), 0); /* uncore */
    assert_int_equal(igpu_hw_fw_domains(GEN9_FORCEWAKE_ACK_RENDER), 0);
    assert_int_equal(igpu_hw_fw_domains(GEN9_FENCE_REG_LO(0)), 0);
    assert_int_equal(igpu_hw_fw_domains(0x3FFFF), IGPU_FW_MEDIA);
    assert_int_equal(igpu_hw_fw_domains(0x40000), 0);
}

static void test_init_rejects_bad_info(void **state)
{
    struct fake f;
    struct igpu_hw hw;
    struct igpu_mmio mmio = { f_read32, f_write32, f_read64, NULL, NULL, &f, NULL };
    struct igpu_info in = info();
    (void)state;
    memset(&f, 0, sizeof(f));
    in.bar0_size = 4u << 20;
    assert_int_equal(igpu_hw_init(&hw, &mmio, &in), IGPU_EINVAL);
    in = info();
    in.ggtt_entries = (1u << 20) + 1;
    assert_int_equal(igpu_hw_init(&hw, &mmio, &in), IGPU_EINVAL);
    mmio.read64 = NULL;
    assert_int_equal(igpu_hw_init(&hw, &mmio, &in), IGPU_EINVAL);
    assert_int_equal(f.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_resets_forcewake_requests),
        cmocka_unit_test(test_register_access_takes_its_domain),
        cmocka_unit_test(test_forcewake_nesting),
        cmocka_unit_test(test_ggtt_write_and_flush),
        cmocka_unit_test(test_fence_write_order),
        cmocka_unit_test(test_engine_init_sequence),
        cmocka_unit_test(test_elsp_submit_order),
        cmocka_unit_test(test_csb_read_sequence),
        cmocka_unit_test(test_irq_ack_sequence),
        cmocka_unit_test(test_timestamp_reads_stable_halves),
        cmocka_unit_test(test_fw_domain_table),
        cmocka_unit_test(test_init_rejects_bad_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
