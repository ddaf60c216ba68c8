/*
 * Gen9 model: execlist submission, CSB events and their order, the write pointer wrap, the
 * status-page mirror, lite restore, preemption and engine reset.
 */
#include "test_igpu_model_fixture.h"

static void sdi(uint32_t *c, uint64_t addr, uint32_t v)
{
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)addr;
    c[2] = (uint32_t)(addr >> 32);
    c[3] = v;
}

/* Put n stores (values base+i to FX_DATA + off + 4i) in the ring of ctx without submitting:
 * the image's tail moves, as a driver does before writing ELSP. */
static void fill_ring(struct fx *f, enum igpu_engine e, uint32_t ctx, uint32_t ring, uint32_t off,
                      unsigned n, uint32_t base)
{
    uint32_t c[4];
    uint32_t tail, st = ctx + GEN9_LRC_STATE_OFFSET;
    assert_int_equal(igpu_model_ctx_init(f->m, e, ctx, ring, FX_RING_SIZE), 0);
    tail = 0;
    for (unsigned i = 0; i < n; i++) {
        sdi(c, FX_DATA + off + 4u * i, base + i);
        assert_int_equal(igpu_model_gm_write(f->m, ring + tail, c, sizeof(c)), 0);
        tail += sizeof(c);
    }
    assert_int_equal(igpu_model_gm_write(f->m, st + GEN9_CTX_RING_TAIL * 4u, &tail, 4), 0);
}

static uint64_t desc(uint32_t lrca, uint32_t id)
{
    return gen9_ctx_desc(lrca, id,
                         GEN9_CTX_PRIVILEGE |
                             (GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT));
}

/* ELSP through MMIO in the documented order: element 1 hi, lo, element 0 hi, lo. */
static void elsp_mmio(struct fx *f, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    uint32_t reg = GEN9_RING_ELSP(igpu_engine_base(e));
    assert_int_equal(igpu_reg_write(f->g, reg, (uint32_t)(d1 >> 32)), 0);
    assert_int_equal(igpu_reg_write(f->g, reg, (uint32_t)d1), 0);
    assert_int_equal(igpu_reg_write(f->g, reg, (uint32_t)(d0 >> 32)), 0);
    assert_int_equal(igpu_reg_write(f->g, reg, (uint32_t)d0), 0);
}

static void test_two_elements_events_in_order(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[8];
    uint32_t b = GEN9_BCS_BASE, hws = FX_HWS_BCS;
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_BCS, FX_CTX_A, FX_RING, 0x000, 3, 100);
    fill_ring(&f, IGPU_BCS, FX_CTX_B, FX_RING_B, 0x100, 2, 200);
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_PTR(b)) & GEN9_CSB_PTR_MASK, GEN9_CSB_PTR_RESET);
    elsp_mmio(&f, IGPU_BCS, desc(FX_CTX_A, 0xA), desc(FX_CTX_B, 0xB));
    /* IDLE_ACTIVE is written as soon as the list is accepted. */
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_PTR(b)) & GEN9_CSB_PTR_MASK, 0);
    assert_true(fx_reg(&f, GEN9_RING_EXECLIST_STATUS_LO(b)) &
                (GEN9_EXECLIST0_VALID | GEN9_EXECLIST1_VALID));
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(fx_rd32(&f, FX_DATA + 4u * i), 100 + i);
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(fx_rd32(&f, FX_DATA + 0x100 + 4u * i), 200 + i);

    assert_int_equal(fx_csb(&f, IGPU_BCS, ev, 8), 3);
    assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(ev[0].ctx_id, 0);
    assert_int_equal(ev[1].status, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ELEMENT_SWITCH);
    assert_int_equal(ev[1].ctx_id, 0xA);
    assert_int_equal(ev[2].status, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE);
    assert_int_equal(ev[2].ctx_id, 0xB);
    assert_int_equal(fx_csb(&f, IGPU_BCS, ev, 8), 0); /* drained */

    /* The CSB registers, the pointer register and the status-page mirror agree. */
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_LO(b, 1)), ev[1].status);
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_HI(b, 2)), 0xB);
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_PTR(b)),
                     (2u << GEN9_CSB_READ_PTR_SHIFT) | (2u << GEN9_CSB_WRITE_PTR_SHIFT));
    assert_int_equal(fx_rd32(&f, hws + (GEN9_HWS_CSB_BUF0_INDEX + 2) * 4), ev[1].status);
    assert_int_equal(fx_rd32(&f, hws + (GEN9_HWS_CSB_BUF0_INDEX + 5) * 4), 0xB);
    assert_int_equal(fx_rd32(&f, hws + GEN9_HWS_CSB_WRITE_INDEX * 4), 2);
    assert_int_equal(fx_reg(&f, GEN9_RING_EXECLIST_STATUS_LO(b)) &
                         (GEN9_EXECLIST0_VALID | GEN9_EXECLIST1_VALID),
                     0);

    /* Each image got its final head back. */
    assert_int_equal(fx_rd32(&f, FX_CTX_A + GEN9_LRC_STATE_OFFSET + GEN9_CTX_RING_HEAD * 4),
                     3 * 16);
    assert_int_equal(fx_rd32(&f, FX_CTX_B + GEN9_LRC_STATE_OFFSET + GEN9_CTX_RING_HEAD * 4),
                     2 * 16);
    fx_fini(&f);
}

static void test_csb_write_pointer_wraps(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[6];
    uint32_t b = GEN9_RCS_BASE;
    uint32_t expect_wp[4] = { 1, 3, 5, 1 };
    (void)state;
    fx_init(&f);
    for (unsigned k = 0; k < 4; k++) {
        fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0x10u * k, 1, k);
        assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 0x20 + k), 0), 0);
        igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
        assert_int_equal(fx_reg(&f, GEN9_RING_CSB_PTR(b)) & GEN9_CSB_PTR_MASK, expect_wp[k]);
        assert_int_equal(fx_csb(&f, IGPU_RCS, ev, 6), 2);
        assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
        assert_int_equal(ev[1].status, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE);
        assert_int_equal(ev[1].ctx_id, 0x20 + k);
    }
    /* Events 7 and 8 went to entries 0 and 1 again. */
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_LO(b, 0)), GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_HI(b, 1)), 0x23);
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_HI(b, 5)), 0x22);
    fx_fini(&f);
}

static void test_undrained_csb_keeps_order_across_wrap(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[6];
    (void)state;
    fx_init(&f);
    /* Four events drained (entries 0..3), then two submissions = four events in entries
     * 4, 5, 0, 1, read in one go. (Six undrained events would fill the buffer, which the
     * pointers cannot tell from empty: software must drain before that, as on hardware.) */
    for (unsigned k = 0; k < 2; k++) {
        fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 0);
        assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), 0);
        igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    }
    assert_int_equal(fx_csb(&f, IGPU_RCS, ev, 6), 4);
    for (unsigned k = 0; k < 2; k++) {
        fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 0);
        assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 0x40 + k), 0), 0);
        igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    }
    assert_int_equal(fx_reg(&f, GEN9_RING_CSB_PTR(GEN9_RCS_BASE)) & GEN9_CSB_PTR_MASK, 1);
    assert_int_equal(fx_csb(&f, IGPU_RCS, ev, 6), 4);
    for (unsigned k = 0; k < 2; k++) {
        assert_int_equal(ev[2 * k].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
        assert_int_equal(ev[2 * k + 1].ctx_id, 0x40 + k);
    }
    fx_fini(&f);
}

static void test_context_switch_interrupt_per_event(void **state)
{
    struct fx f;
    struct igpu_irq_status st;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_reg_write(f.g, GEN9_GT_IER(0), 0xFFFFFFFFu), 0);
    assert_int_equal(igpu_reg_write(f.g, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL), 0);
    fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 0);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), 0);
    assert_int_equal(f.irqs, 1);
    assert_int_equal(igpu_irq_ack(f.g, &st), 0);
    assert_int_equal(st.engine[IGPU_RCS], GEN9_GT_CONTEXT_SWITCH);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    assert_int_equal(f.irqs, 2);
    assert_int_equal(igpu_irq_ack(f.g, &st), 0);
    assert_int_equal(st.engine[IGPU_RCS], GEN9_GT_CONTEXT_SWITCH);
    assert_int_equal(st.engine[IGPU_BCS], 0);
    fx_fini(&f);
}

static void test_lite_restore(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[8];
    uint32_t more[8];
    int n;
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_BCS, FX_CTX_A, FX_RING, 0, 8, 10);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 5), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1); /* the restore only */
    igpu_model_run(f.m, IGPU_BCS, 1); /* one command */
    assert_int_equal(igpu_model_engine_state(f.m, IGPU_BCS), IGPU_MODEL_ACTIVE);
    sdi(more, FX_DATA + 0x200, 0x99);
    sdi(more + 4, FX_DATA + 0x204, 0x9A);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 6, more, 8), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(fx_rd32(&f, FX_DATA + 4u * i), 10 + i);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x204), 0x9A);
    n = fx_csb(&f, IGPU_BCS, ev, 8);
    assert_int_equal(n, 3);
    assert_int_equal(ev[0].status, GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(ev[1].status, GEN9_CTX_STATUS_PREEMPTED | GEN9_CTX_STATUS_LITE_RESTORE);
    assert_int_equal(ev[1].ctx_id, 6);
    assert_int_equal(ev[2].status, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE);
    assert_int_equal(ev[2].ctx_id, 6);
    fx_fini(&f);
}

static void test_preemption_saves_and_resumes(void **state)
{
    struct fx f;
    struct igpu_csb_event ev[8];
    uint32_t head;
    uint32_t st = FX_CTX_A + GEN9_LRC_STATE_OFFSET;
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 16, 1000);
    fill_ring(&f, IGPU_RCS, FX_CTX_B, FX_RING_B, 0x400, 2, 2000);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run(f.m, IGPU_RCS, 1); /* restore A */
    igpu_model_run(f.m, IGPU_RCS, 1); /* first store */
    igpu_model_run(f.m, IGPU_RCS, 1); /* second store */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_B, 0xB), 0), 0);
    assert_true(fx_reg(&f, GEN9_RING_EXECLIST_STATUS_LO(GEN9_RCS_BASE)) & GEN9_EXECLIST_QFULL);
    /* A third list while one is queued does not fit. */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_C, 0xC), 0), IGPU_EBUSY);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    assert_null(igpu_model_fault(f.m, IGPU_RCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x400), 2000);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x404), 2001);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x0), 1000);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x4), 1001);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x8), 0); /* A stopped after two stores */
    head = fx_rd32(&f, st + GEN9_CTX_RING_HEAD * 4);
    assert_int_equal(head, 2 * 16);
    assert_int_equal(fx_csb(&f, IGPU_RCS, ev, 8), 3);
    assert_int_equal(ev[1].status, GEN9_CTX_STATUS_PREEMPTED);
    assert_int_equal(ev[1].ctx_id, 0xA);
    assert_int_equal(ev[2].status, GEN9_CTX_STATUS_COMPLETE | GEN9_CTX_STATUS_ACTIVE_IDLE);
    assert_int_equal(ev[2].ctx_id, 0xB);

    /* Resubmitting A continues from its saved head. */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 0xA), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(fx_rd32(&f, FX_DATA + 4u * i), 1000 + i);
    fx_fini(&f);
}

static void test_preemption_waits_for_batch_end(void **state)
{
    struct fx f;
    uint32_t ring[4], batch[12];
    struct igpu_csb_event ev[8];
    (void)state;
    fx_init(&f);
    ring[0] = GEN9_MI_BATCH_BUFFER_START;
    ring[1] = FX_BATCH;
    ring[2] = 0;
    ring[3] = GEN9_MI_NOOP;
    sdi(batch, FX_DATA + 0x10, 1);
    sdi(batch + 4, FX_DATA + 0x14, 2);
    batch[8] = GEN9_MI_BATCH_BUFFER_END;
    assert_int_equal(igpu_model_gm_write(f.m, FX_BATCH, batch, 9 * 4), 0);
    assert_int_equal(igpu_model_ctx_init(f.m, IGPU_BCS, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    fill_ring(&f, IGPU_BCS, FX_CTX_B, FX_RING_B, 0x40, 1, 7);
    assert_int_equal(igpu_model_submit_ring(f.m, IGPU_BCS, FX_CTX_A, 0xA, ring, 4), 0);
    igpu_model_run(f.m, IGPU_BCS, 1); /* restore */
    igpu_model_run(f.m, IGPU_BCS, 1); /* MI_BATCH_BUFFER_START */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_B, 0xB), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_BCS, 1000000000ull);
    /* The batch ran to its end before the switch. */
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x10), 1);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x14), 2);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x40), 7);
    assert_int_equal(fx_csb(&f, IGPU_BCS, ev, 8), 3);
    assert_int_equal(ev[1].status, GEN9_CTX_STATUS_PREEMPTED);
    fx_fini(&f);
}

static void test_invalid_submissions(void **state)
{
    struct fx f;
    (void)state;
    fx_init(&f);
    /* Element 0 without the valid bit. */
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1) & ~GEN9_CTX_VALID, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_model_fault(f.m, IGPU_RCS)->reason, IGPU_FAULT_BAD_SUBMISSION);
    /* Engine reset through GDRST, then ELSP before execlists are enabled again. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_GDRST, GEN9_GRDOM_RENDER), 0);
    assert_null(igpu_model_fault(f.m, IGPU_RCS));
    assert_int_equal(fx_reg(&f, GEN9_RING_MODE(GEN9_RCS_BASE)) & GEN9_GFX_RUN_LIST_ENABLE, 0);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), IGPU_EUNSUPPORTED);
    assert_int_equal(igpu_reg_write(f.g, GEN9_RING_ELSP(GEN9_RCS_BASE), 0), IGPU_EUNSUPPORTED);
    /* Enable through the masked GFX_MODE register, as i915 does. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_RING_MODE(GEN9_RCS_BASE),
                                    GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE)),
                     0);
    assert_true(fx_reg(&f, GEN9_RING_MODE(GEN9_RCS_BASE)) & GEN9_GFX_RUN_LIST_ENABLE);
    fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 5);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    assert_int_equal(fx_rd32(&f, FX_DATA), 5);
    fx_fini(&f);
}

static void test_bad_context_image(void **state)
{
    struct fx f;
    uint32_t wrong = GEN9_RING_HEAD(GEN9_BCS_BASE);
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 5);
    /* An image built for the blitter names the blitter's registers: not a render context. */
    assert_int_equal(igpu_model_gm_write(f.m,
                                         FX_CTX_A + GEN9_LRC_STATE_OFFSET +
                                             (GEN9_CTX_RING_HEAD - 1) * 4,
                                         &wrong, 4),
                     0);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), 0);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    assert_int_equal(igpu_model_fault(f.m, IGPU_RCS)->reason, IGPU_FAULT_BAD_CONTEXT);
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    fx_fini(&f);
}

static void test_stop_ring_holds_the_engine(void **state)
{
    struct fx f;
    uint32_t mi_mode = GEN9_RING_MI_MODE(GEN9_RCS_BASE);
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_RCS, FX_CTX_A, FX_RING, 0, 1, 5);
    assert_int_equal(igpu_reg_write(f.g, mi_mode, GEN9_MASKED_BIT_ENABLE(GEN9_MI_MODE_STOP_RING)),
                     0);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_RCS, desc(FX_CTX_A, 1), 0), 0);
    assert_int_equal(igpu_model_run(f.m, IGPU_RCS, 1000000), 0);
    assert_true(fx_reg(&f, mi_mode) & GEN9_MI_MODE_IDLE);
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    assert_int_equal(igpu_reg_write(f.g, mi_mode, GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING)),
                     0);
    igpu_model_run_until_idle(f.m, IGPU_RCS, 1000000000ull);
    assert_int_equal(fx_rd32(&f, FX_DATA), 5);
    fx_fini(&f);
}

static void test_ring_registers_follow_the_context(void **state)
{
    struct fx f;
    uint32_t b = GEN9_BCS_BASE;
    (void)state;
    fx_init(&f);
    fill_ring(&f, IGPU_BCS, FX_CTX_A, FX_RING, 0, 3, 0);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, desc(FX_CTX_A, 0x77), 0), 0);
    igpu_model_run(f.m, IGPU_BCS, 1);
    igpu_model_run(f.m, IGPU_BCS, 1);
    assert_int_equal(fx_reg(&f, GEN9_RING_START(b)), FX_RING);
    assert_int_equal(fx_reg(&f, GEN9_RING_TAIL(b)), 48);
    assert_int_equal(fx_reg(&f, GEN9_RING_HEAD(b)), 16);
    assert_int_equal(fx_reg(&f, GEN9_RING_CTL(b)),
                     ((FX_RING_SIZE - 4096) & GEN9_RING_NR_PAGES) | GEN9_RING_VALID);
    assert_int_equal(fx_reg(&f, GEN9_RING_EXECLIST_STATUS_HI(b)), 0x77);
    /* Ring registers belong to the context image in execlist mode. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_RING_TAIL(b), 0), IGPU_EUNSUPPORTED);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_elements_events_in_order),
        cmocka_unit_test(test_csb_write_pointer_wraps),
        cmocka_unit_test(test_undrained_csb_keeps_order_across_wrap),
        cmocka_unit_test(test_context_switch_interrupt_per_event),
        cmocka_unit_test(test_lite_restore),
        cmocka_unit_test(test_preemption_saves_and_resumes),
        cmocka_unit_test(test_preemption_waits_for_batch_end),
        cmocka_unit_test(test_invalid_submissions),
        cmocka_unit_test(test_bad_context_image),
        cmocka_unit_test(test_stop_ring_holds_the_engine),
        cmocka_unit_test(test_ring_registers_follow_the_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
