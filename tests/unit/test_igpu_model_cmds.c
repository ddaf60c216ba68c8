/*
 * Gen9 model: the effect of each MI command and PIPE_CONTROL, batch buffers, and the faults
 * for what the model does not implement or what is malformed.
 */
#include "test_igpu_model_fixture.h"

static void sdi(uint32_t *c, uint64_t addr, uint32_t v)
{
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)addr;
    c[2] = (uint32_t)(addr >> 32);
    c[3] = v;
}

static void expect_fault(struct fx *f, enum igpu_engine e, enum igpu_fault_reason r)
{
    const struct igpu_model_fault *fl = igpu_model_fault(f->m, e);
    assert_non_null(fl);
    assert_int_equal(fl->reason, r);
    assert_int_equal(igpu_model_engine_state(f->m, e), IGPU_MODEL_FAULTED);
}

static void test_store_data_imm_dword_and_qword(void **state)
{
    struct fx f;
    uint32_t c[16];
    (void)state;
    fx_init(&f);
    sdi(c, FX_DATA + 0x10, 0xCAFEF00D);
    c[4] = GEN9_MI_STORE_QWORD_IMM | GEN9_MI_SDI_USE_GGTT;
    c[5] = FX_DATA + 0x20;
    c[6] = 0;
    c[7] = 0x11223344;
    c[8] = 0x55667788;
    fx_run_cmds(&f, IGPU_RCS, c, 9);
    assert_null(igpu_model_fault(f.m, IGPU_RCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x10), 0xCAFEF00D);
    assert_int_equal(fx_rd64(&f, FX_DATA + 0x20), 0x5566778811223344ull);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x14), 0); /* the dword store wrote 4 bytes */
    fx_fini(&f);
}

static void test_sdi_ppgtt_is_unsupported(void **state)
{
    struct fx f;
    uint32_t c[4];
    (void)state;
    fx_init(&f);
    sdi(c, FX_DATA, 1);
    c[0] &= ~GEN9_MI_SDI_USE_GGTT;
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_UNSUPPORTED_FIELD);
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    fx_fini(&f);
}

static void test_noop_id_and_user_interrupt(void **state)
{
    struct fx f;
    uint32_t c[2] = { GEN9_MI_NOOP | GEN9_MI_NOOP_ID_WRITE | 0x1234, GEN9_MI_USER_INTERRUPT };
    struct igpu_irq_status st;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_reg_write(f.g, GEN9_GT_IER(0), 0xFFFFFFFFu), 0);
    assert_int_equal(igpu_reg_write(f.g, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL), 0);
    fx_run_cmds(&f, IGPU_BCS, c, 2);
    assert_int_equal(fx_reg(&f, GEN9_RING_NOPID(GEN9_BCS_BASE)), 0x1234);
    assert_true(f.irqs >= 1);
    assert_true(igpu_model_irq_asserted(f.m));
    assert_true(fx_reg(&f, GEN9_MASTER_IRQ) & GEN9_MASTER_GT_BCS_IRQ);
    assert_int_equal(igpu_irq_ack(f.g, &st), 0);
    assert_true(st.engine[IGPU_BCS] & GEN9_GT_USER_INTERRUPT);
    assert_true(st.engine[IGPU_BCS] & GEN9_GT_CONTEXT_SWITCH);
    assert_int_equal(st.engine[IGPU_RCS], 0);
    assert_false(igpu_model_irq_asserted(f.m));
    assert_int_equal(fx_reg(&f, GEN9_GT_IIR(0)), 0);
    fx_fini(&f);
}

static void test_imr_masks_interrupts(void **state)
{
    struct fx f;
    uint32_t c[2] = { GEN9_MI_USER_INTERRUPT, GEN9_MI_NOOP };
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_reg_write(f.g, GEN9_GT_IMR(0),
                                    GEN9_GT_USER_INTERRUPT << GEN9_GT_RCS_IRQ_SHIFT),
                     0);
    fx_run_cmds(&f, IGPU_RCS, c, 2);
    assert_int_equal(fx_reg(&f, GEN9_GT_IIR(0)) & (GEN9_GT_USER_INTERRUPT << GEN9_GT_RCS_IRQ_SHIFT),
                     0);
    assert_true(fx_reg(&f, GEN9_GT_IIR(0)) & (GEN9_GT_CONTEXT_SWITCH << GEN9_GT_RCS_IRQ_SHIFT));
    fx_fini(&f);
}

static void test_lri_srm_lrm_gpr(void **state)
{
    struct fx f;
    uint32_t gpr0 = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), gpr1 = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 1);
    uint32_t c[20];
    unsigned n = 0;
    (void)state;
    fx_init(&f);
    fx_wr32(&f, FX_DATA + 0x40, 0x0BADF00D);
    c[n++] = GEN9_MI_LOAD_REGISTER_IMM(2);
    c[n++] = gpr0;
    c[n++] = 0xA5A5A5A5;
    c[n++] = gpr1;
    c[n++] = 0x12345678;
    /* byte-disable bit 0 keeps byte 0 of GPR1 */
    c[n++] = GEN9_MI_LOAD_REGISTER_IMM(1) | (1u << 8);
    c[n++] = gpr1;
    c[n++] = 0xFFFFFFFF;
    c[n++] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    c[n++] = gpr1;
    c[n++] = FX_DATA + 0x44;
    c[n++] = 0;
    c[n++] = GEN9_MI_LOAD_REGISTER_MEM | GEN9_MI_LRM_USE_GGTT;
    c[n++] = gpr0;
    c[n++] = FX_DATA + 0x40;
    c[n++] = 0;
    fx_run_cmds(&f, IGPU_BCS, c, n);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x44), 0xFFFFFF78);
    assert_int_equal(fx_reg(&f, gpr0), 0x0BADF00D);
    fx_fini(&f);
}

static void test_lri_to_unmodelled_register_faults(void **state)
{
    struct fx f;
    uint32_t c[4] = { GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_RING_MODE(GEN9_RCS_BASE), 0,
                      GEN9_MI_NOOP };
    const struct igpu_model_fault *fl;
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_RCS, c, 4);
    expect_fault(&f, IGPU_RCS, IGPU_FAULT_REGISTER);
    fl = igpu_model_fault(f.m, IGPU_RCS);
    assert_int_equal(fl->gaddr, GEN9_RING_MODE(GEN9_RCS_BASE));
    assert_int_equal(fl->header, c[0]);
    assert_int_equal(fl->cmd_gaddr, FX_RING);
    assert_int_equal(fl->ctx_id, 0x11);
    fx_fini(&f);
}

static void test_flush_dw_post_sync(void **state)
{
    struct fx f;
    uint32_t c[12];
    struct igpu_irq_status st;
    uint64_t ts;
    (void)state;
    fx_init(&f);
    igpu_model_advance(f.m, 5000000); /* 5 ms: the timestamp is not zero */
    c[0] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW | GEN9_MI_FLUSH_DW_NOTIFY;
    c[1] = (FX_DATA + 0x80) | GEN9_MI_FLUSH_DW_USE_GTT;
    c[2] = 0;
    c[3] = 0x600DD00D;
    c[4] = (GEN9_MI_FLUSH_DW + 1) | GEN9_MI_FLUSH_DW_OP_TIMESTAMP;
    c[5] = (FX_DATA + 0x88) | GEN9_MI_FLUSH_DW_USE_GTT;
    c[6] = 0;
    c[7] = 0;
    c[8] = 0;
    fx_run_cmds(&f, IGPU_BCS, c, 9);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x80), 0x600DD00D);
    assert_int_equal(igpu_timestamp(f.g, IGPU_BCS, &ts), 0);
    assert_true(fx_rd64(&f, FX_DATA + 0x88) >= igpu_ns_to_ticks(5000000, IGPU_MODEL_TIMESTAMP_HZ));
    assert_true(fx_rd64(&f, FX_DATA + 0x88) <= ts);
    assert_int_equal(igpu_irq_ack(f.g, &st), 0);
    assert_true(st.engine[IGPU_BCS] & GEN9_GT_PIPECTL_NOTIFY);
    fx_fini(&f);
}

/* Store data index (i915 gen8_emit_flush_xcs(): LRC_PPHWSP_SCRATCH_ADDR): into the running
 * context's status page, the first page of its image; an index beyond the page faults. */
static void test_flush_dw_store_index(void **state)
{
    struct fx f;
    uint32_t c[4] = { GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW | GEN9_MI_FLUSH_DW_STORE_INDEX,
                      0xD0 | GEN9_MI_FLUSH_DW_USE_GTT, 0, 0x5C4A7C4 };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_CTX_A + 0xD0), 0x5C4A7C4);
    fx_fini(&f);
    fx_init(&f);
    c[1] = GEN9_PPHWSP_BYTES | GEN9_MI_FLUSH_DW_USE_GTT;
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_INVALID_CMD);
    fx_fini(&f);
}

static void test_flush_dw_on_render_is_wrong_engine(void **state)
{
    struct fx f;
    uint32_t c[4] = { GEN9_MI_FLUSH_DW, 0, 0, 0 };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_RCS, c, 4);
    expect_fault(&f, IGPU_RCS, IGPU_FAULT_WRONG_ENGINE);
    fx_fini(&f);
}

static void test_pipe_control_post_sync(void **state)
{
    struct fx f;
    uint32_t c[12];
    struct igpu_irq_status st;
    (void)state;
    fx_init(&f);
    c[0] = GEN9_PIPE_CONTROL;
    c[1] = GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT |
           GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_NOTIFY;
    c[2] = FX_DATA + 0x100;
    c[3] = 0;
    c[4] = 0xAAAA0001;
    c[5] = 0xBBBB0002;
    c[6] = GEN9_PIPE_CONTROL;
    c[7] = GEN9_PIPE_CONTROL_WRITE_TIMESTAMP | GEN9_PIPE_CONTROL_GLOBAL_GTT;
    c[8] = FX_DATA + 0x108;
    c[9] = 0;
    c[10] = 0;
    c[11] = 0;
    igpu_model_advance(f.m, 1000000);
    fx_run_cmds(&f, IGPU_RCS, c, 12);
    assert_null(igpu_model_fault(f.m, IGPU_RCS));
    assert_int_equal(fx_rd64(&f, FX_DATA + 0x100), 0xBBBB0002AAAA0001ull);
    assert_true(fx_rd64(&f, FX_DATA + 0x108) >= 12000); /* 1 ms at 12 MHz */
    assert_int_equal(igpu_irq_ack(f.g, &st), 0);
    assert_true(st.engine[IGPU_RCS] & GEN9_GT_PIPECTL_NOTIFY);
    fx_fini(&f);
}

static void test_pipe_control_depth_count_unsupported(void **state)
{
    struct fx f;
    uint32_t c[6] = { GEN9_PIPE_CONTROL,
                      GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT | GEN9_PIPE_CONTROL_GLOBAL_GTT,
                      FX_DATA,
                      0,
                      0,
                      0 };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_RCS, c, 6);
    expect_fault(&f, IGPU_RCS, IGPU_FAULT_UNSUPPORTED_FIELD);
    fx_fini(&f);
}

static void test_pipe_control_on_blitter_is_wrong_engine(void **state)
{
    struct fx f;
    uint32_t c[6] = { GEN9_PIPE_CONTROL, 0, 0, 0, 0, 0 };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, c, 6);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_WRONG_ENGINE);
    fx_fini(&f);
}

/* Write a batch into graphics memory. */
static void put_batch(struct fx *f, uint64_t gaddr, const uint32_t *c, size_t n)
{
    assert_int_equal(igpu_model_gm_write(f->m, gaddr, c, n * 4), 0);
}

static void bb_start(uint32_t *c, uint64_t addr, uint32_t flags)
{
    c[0] = GEN9_MI_BATCH_BUFFER_START | flags;
    c[1] = (uint32_t)addr;
    c[2] = (uint32_t)(addr >> 32);
}

static void test_batches_first_second_level_and_chain(void **state)
{
    struct fx f;
    uint32_t ring[8], b1[16], b2[8], b3[8];
    struct igpu_model_stats s;
    (void)state;
    fx_init(&f);
    /* ring -> b1; b1 calls b2 (second level), then chains to b3; b3 ends back to the ring,
     * which stores a final marker. */
    bb_start(ring, FX_BATCH, 0);
    sdi(ring + 3, FX_DATA + 0x0C, 4);
    sdi(b1, FX_DATA + 0x00, 1);
    bb_start(b1 + 4, FX_BATCH + 0x1000, GEN9_MI_BB_START_SECOND_LEVEL);
    bb_start(b1 + 7, FX_BATCH + 0x2000, 0);
    sdi(b1 + 10, FX_DATA + 0x40, 0xBAD); /* skipped: the chain never returns */
    sdi(b2, FX_DATA + 0x04, 2);
    b2[4] = GEN9_MI_BATCH_BUFFER_END;
    sdi(b3, FX_DATA + 0x08, 3);
    b3[4] = GEN9_MI_BATCH_BUFFER_END;
    put_batch(&f, FX_BATCH, b1, 14);
    put_batch(&f, FX_BATCH + 0x1000, b2, 5);
    put_batch(&f, FX_BATCH + 0x2000, b3, 5);
    fx_run_cmds(&f, IGPU_RCS, ring, 7);
    assert_null(igpu_model_fault(f.m, IGPU_RCS));
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x00), 1);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x04), 2);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x08), 3);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x0C), 4);
    assert_int_equal(fx_rd32(&f, FX_DATA + 0x40), 0);
    assert_int_equal(igpu_model_stats(f.m, IGPU_RCS, &s), 0);
    assert_int_equal(s.batches, 3);
    assert_int_equal(igpu_model_engine_state(f.m, IGPU_RCS), IGPU_MODEL_IDLE);
    fx_fini(&f);
}

static void test_third_level_batch_faults(void **state)
{
    struct fx f;
    uint32_t ring[4], b1[4], b2[4];
    (void)state;
    fx_init(&f);
    bb_start(ring, FX_BATCH, 0);
    ring[3] = GEN9_MI_NOOP;
    bb_start(b1, FX_BATCH + 0x1000, GEN9_MI_BB_START_SECOND_LEVEL);
    bb_start(b2, FX_BATCH + 0x2000, GEN9_MI_BB_START_SECOND_LEVEL);
    put_batch(&f, FX_BATCH, b1, 3);
    put_batch(&f, FX_BATCH + 0x1000, b2, 3);
    fx_run_cmds(&f, IGPU_RCS, ring, 4);
    expect_fault(&f, IGPU_RCS, IGPU_FAULT_BATCH_DEPTH);
    assert_int_equal(igpu_model_fault(f.m, IGPU_RCS)->cmd_gaddr, FX_BATCH + 0x1000);
    fx_fini(&f);
}

static void test_batch_end_in_ring_faults(void **state)
{
    struct fx f;
    uint32_t c[2] = { GEN9_MI_BATCH_BUFFER_END, GEN9_MI_NOOP };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, c, 2);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_INVALID_CMD);
    fx_fini(&f);
}

static void test_ppgtt_batch_unsupported(void **state)
{
    struct fx f;
    uint32_t c[4];
    (void)state;
    fx_init(&f);
    bb_start(c, FX_BATCH, GEN9_MI_BB_START_PPGTT);
    c[3] = GEN9_MI_NOOP;
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_UNSUPPORTED_FIELD);
    fx_fini(&f);
}

static void test_unknown_command_faults_not_skipped(void **state)
{
    struct fx f;
    uint32_t c[6];
    (void)state;
    fx_init(&f);
    c[0] = GEN9_MI_INSTR(GEN9_MI_SEMAPHORE_WAIT_OP, 2);
    c[1] = c[2] = c[3] = 0;
    sdi(c + 2, FX_DATA, 7); /* must never run */
    fx_run_cmds(&f, IGPU_RCS, c, 6);
    expect_fault(&f, IGPU_RCS, IGPU_FAULT_UNSUPPORTED_CMD);
    assert_int_equal(igpu_model_fault(f.m, IGPU_RCS)->header, c[0]);
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    fx_fini(&f);
}

static void test_reserved_type_is_invalid(void **state)
{
    struct fx f;
    uint32_t c[2] = { 0xE0000000u, GEN9_MI_NOOP };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, c, 2);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_INVALID_CMD);
    fx_fini(&f);
}

static void test_command_past_tail_faults(void **state)
{
    struct fx f;
    uint32_t c[2] = { GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, FX_DATA };
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, c, 2); /* a 4-dword command with 2 dwords before the tail */
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_RING_OVERRUN);
    fx_fini(&f);
}

static void test_store_to_unmapped_page_faults(void **state)
{
    struct fx f;
    uint32_t c[4];
    const struct igpu_model_fault *fl;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_ggtt_write(f.g, (FX_DATA + 0x3000) >> 12, 0), 0);
    assert_int_equal(igpu_ggtt_flush(f.g), 0);
    sdi(c, FX_DATA + 0x3010, 9);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_GGTT_NOT_PRESENT);
    fl = igpu_model_fault(f.m, IGPU_BCS);
    assert_int_equal(fl->gaddr, FX_DATA + 0x3010);
    assert_int_equal(fl->ctx_id, 0x11);
    fx_fini(&f);
}

static void test_reset_clears_fault(void **state)
{
    struct fx f;
    uint32_t bad[2] = { 0xE0000000u, GEN9_MI_NOOP };
    uint32_t good[4];
    (void)state;
    fx_init(&f);
    fx_run_cmds(&f, IGPU_BCS, bad, 2);
    expect_fault(&f, IGPU_BCS, IGPU_FAULT_INVALID_CMD);
    assert_int_equal(igpu_elsp_submit(f.g, IGPU_BCS, gen9_ctx_desc(FX_CTX_A, 1, 0), 0),
                     IGPU_EFAULT);
    assert_int_equal(igpu_engine_reset(f.g, IGPU_BCS), 0);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(igpu_engine_init(f.g, IGPU_BCS, FX_HWS_BCS), 0);
    sdi(good, FX_DATA, 0x77);
    fx_run_cmds(&f, IGPU_BCS, good, 4);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(fx_rd32(&f, FX_DATA), 0x77);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_data_imm_dword_and_qword),
        cmocka_unit_test(test_sdi_ppgtt_is_unsupported),
        cmocka_unit_test(test_noop_id_and_user_interrupt),
        cmocka_unit_test(test_imr_masks_interrupts),
        cmocka_unit_test(test_lri_srm_lrm_gpr),
        cmocka_unit_test(test_lri_to_unmodelled_register_faults),
        cmocka_unit_test(test_flush_dw_post_sync),
        cmocka_unit_test(test_flush_dw_on_render_is_wrong_engine),
        cmocka_unit_test(test_flush_dw_store_index),
        cmocka_unit_test(test_pipe_control_post_sync),
        cmocka_unit_test(test_pipe_control_depth_count_unsupported),
        cmocka_unit_test(test_pipe_control_on_blitter_is_wrong_engine),
        cmocka_unit_test(test_batches_first_second_level_and_chain),
        cmocka_unit_test(test_third_level_batch_faults),
        cmocka_unit_test(test_batch_end_in_ring_faults),
        cmocka_unit_test(test_ppgtt_batch_unsupported),
        cmocka_unit_test(test_unknown_command_faults_not_skipped),
        cmocka_unit_test(test_reserved_type_is_invalid),
        cmocka_unit_test(test_command_past_tail_faults),
        cmocka_unit_test(test_store_to_unmapped_page_faults),
        cmocka_unit_test(test_reset_clears_fault),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
