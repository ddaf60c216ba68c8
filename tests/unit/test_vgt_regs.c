/*
 * The Skylake GT2 register file replaying what i915 6.1 does to it at probe
 * (linux-guest.md section 3.2): uncore init, device info (display fuses, SSEU, raw clock), GT
 * clock, sanitize_gpu()'s full reset handshake, eDRAM and RPS, IRQ reset, engine resume and
 * error interrupts, workaround writes verified by readback, the PCODE mailbox, an engine stop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/vgpu/i915/vgt/vgt_regs.h"

static const enum igpu_engine engines[] = { IGPU_RCS, IGPU_BCS, IGPU_VCS, IGPU_VECS };

static int setup(void **state)
{
    static struct vgt_regs r;
    assert_true(vgt_regs_init(&r, 12000000));
    *state = &r;
    return 0;
}

static unsigned popcount(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* intel_uncore_init_mmio(), intel_device_info_runtime_init(), intel_gt_init_mmio(). */
static void test_device_info(void **state)
{
    struct vgt_regs *r = *state;
    uint32_t pipe_mask = 0x7, fuse2, eu_total = 0, ss_mask;

    /* FPGA_DBG: no unclaimed access, and clearing the bit keeps it clear. */
    assert_int_equal(vgt_regs_read(r, GEN9_FPGA_DBG) & GEN9_FPGA_DBG_RM_NOCLAIM, 0);
    vgt_regs_write(r, GEN9_FPGA_DBG, GEN9_FPGA_DBG_RM_NOCLAIM, NULL);
    assert_int_equal(vgt_regs_read(r, GEN9_FPGA_DBG), 0);

    /* SKL_DFSM: every pipe fused off -> pipe_mask 0 -> HAS_DISPLAY() false. */
    uint32_t dfsm = vgt_regs_read(r, GEN9_SKL_DFSM);
    if (dfsm & GEN9_DFSM_PIPE_A_DISABLE)
        pipe_mask &= ~1u;
    if (dfsm & GEN9_DFSM_PIPE_B_DISABLE)
        pipe_mask &= ~2u;
    if (dfsm & GEN9_DFSM_PIPE_C_DISABLE)
        pipe_mask &= ~4u;
    assert_int_equal(pipe_mask, 0);
    assert_int_equal(dfsm, 0x50200000);
    vgt_regs_write(r, GEN9_SKL_DFSM, 0, NULL); /* read-only */
    assert_int_equal(vgt_regs_read(r, GEN9_SKL_DFSM), 0x50200000);
    assert_true(r->st.ro_ignored >= 1);

    /* gen9_sseu_info_init(): slice mask, the global subslice disable, EUs per subslice. */
    fuse2 = vgt_regs_read(r, GEN9_FUSE2);
    uint32_t slices = (fuse2 & GEN9_F2_S_ENA_MASK) >> GEN9_F2_S_ENA_SHIFT;
    ss_mask = ((1u << GEN9_MAX_SUBSLICES) - 1u) &
              ~((fuse2 & GEN9_F2_SS_DIS_MASK) >> GEN9_F2_SS_DIS_SHIFT);
    for (unsigned s = 0; s < GEN9_MAX_SLICES; s++) {
        if (!(slices & (1u << s)))
            continue;
        uint32_t eu_disable = vgt_regs_read(r, GEN9_EU_DISABLE(s));
        for (unsigned ss = 0; ss < GEN9_MAX_SUBSLICES; ss++)
            if (ss_mask & (1u << ss))
                eu_total += GEN9_MAX_EU_PER_SUBSLICE - popcount((eu_disable >> (8 * ss)) & 0xFF);
    }
    assert_int_equal(slices, 1);
    assert_int_equal(popcount(ss_mask), 3);
    assert_int_equal(eu_total, 24);

    /* pch_rawclk(): kHz. */
    assert_int_equal((vgt_regs_read(r, GEN9_PCH_RAWCLK_FREQ) & GEN9_RAWCLK_FREQ_MASK) * 1000u,
                     24000);
    /* gen9_read_clock_frequency(): the rate RING_TIMESTAMP counts at. */
    assert_int_equal(gen9_cs_timestamp_hz(vgt_regs_read(r, GEN9_CTC_MODE),
                                          vgt_regs_read(r, GEN9_TIMESTAMP_OVERRIDE)),
                     12000000);
    /* No eDRAM; no RPS range (gen6_rps_get_freq_caps(): rp0 = rp1 = min = 0). */
    assert_int_equal(vgt_regs_read(r, GEN9_HSW_EDRAM_CAP), 0);
    assert_int_equal(vgt_regs_read(r, GEN9_RP_STATE_CAP), 0);
    assert_int_equal(vgt_regs_read(r, GEN9_GT_THREAD_STATUS), 0);
    assert_string_equal(vgt_regs_desc(GEN9_SKL_DFSM)->name, "SKL_DFSM");
}

/* sanitize_gpu() -> __intel_gt_reset(ALL_ENGINES) -> gen8_reset_engines(): per engine
 * gen8_engine_reset_prepare() (RESET_CTL request, wait READY_TO_RESET), then
 * gen6_hw_domain_reset(GRDOM_FULL) twice (wait for GDRST to read 0), then
 * gen8_engine_reset_cancel(). */
static void test_reset_handshake(void **state)
{
    struct vgt_regs *r = *state;
    struct vgt_regs_action act;

    for (unsigned i = 0; i < 4; i++) {
        uint32_t reg = GEN9_RING_RESET_CTL(igpu_engine_base(engines[i]));
        uint32_t ack = vgt_regs_read(r, reg);
        assert_false(ack & GEN9_RESET_CTL_CAT_ERROR);
        assert_false(ack & GEN9_RESET_CTL_READY_TO_RESET);
        vgt_regs_write(r, reg, GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET), &act);
        assert_int_equal(act.reset_engines, 0);
        assert_true(vgt_regs_read(r, reg) & GEN9_RESET_CTL_READY_TO_RESET);
    }
    for (unsigned loop = 0; loop < 2; loop++) {
        vgt_regs_write(r, GEN9_GDRST, GEN9_GRDOM_FULL, &act);
        assert_int_equal(act.reset_engines, 0xF); /* all four virtual engines */
        assert_int_equal(vgt_regs_read(r, GEN9_GDRST) & GEN9_GRDOM_FULL, 0);
    }
    for (unsigned i = 0; i < 4; i++) {
        uint32_t reg = GEN9_RING_RESET_CTL(igpu_engine_base(engines[i]));
        vgt_regs_write(r, reg, GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET), NULL);
        assert_int_equal(vgt_regs_read(r, reg), 0);
    }
    /* An engine reset of one engine (intel_engine_reset(): engine->reset_domain). */
    vgt_regs_write(r, GEN9_GDRST, GEN9_GRDOM_MEDIA, &act);
    assert_int_equal(act.reset_engines, 1u << IGPU_VCS);
    vgt_regs_write(r, GEN9_GDRST, GEN9_GRDOM_VECS | GEN9_GRDOM_BLT, &act);
    assert_int_equal(act.reset_engines, 1u << IGPU_VECS | 1u << IGPU_BCS);
    vgt_regs_write(r, GEN9_GDRST, GEN9_GRDOM_MEDIA2 | GEN9_GRDOM_GUC, &act);
    assert_int_equal(act.reset_engines, 0); /* no VCS1, no GuC */
    assert_int_equal(r->st.engine_resets, 8 + 1 + 2);
}

/* enable_execlists() and enable_error_interrupt() per engine, then intel_engine_stop_cs(). */
static void test_engine_resume_and_stop(void **state)
{
    struct vgt_regs *r = *state;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t b = igpu_engine_base(engines[i]);
        vgt_regs_write(r, GEN9_RING_HWSTAM(b), ~0u, NULL);
        vgt_regs_write(r, GEN9_RING_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE),
                       NULL);
        vgt_regs_write(r, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING),
                       NULL);
        assert_int_equal(vgt_regs_read(r, GEN9_RING_MODE(b)), GEN9_GFX_RUN_LIST_ENABLE);
        vgt_regs_write(r, GEN9_RING_EMR(b), ~0u, NULL);
        vgt_regs_write(r, GEN9_RING_EIR(b), ~0u, NULL);
        assert_int_equal(vgt_regs_read(r, GEN9_RING_ESR(b)), 0); /* not "still in error" */
        vgt_regs_write(r, GEN9_RING_EMR(b), ~GEN9_ERROR_INSTRUCTION, NULL);
        assert_int_equal(vgt_regs_read(r, GEN9_RING_EMR(b)), ~GEN9_ERROR_INSTRUCTION);
        assert_false(vgt_regs_stopped(r, engines[i]));
    }
    /* __intel_engine_stop_cs(): STOP_RING, then MODE_IDLE once nothing is in flight. */
    uint32_t mi = GEN9_RING_MI_MODE(GEN9_BCS_BASE);
    vgt_regs_set_busy(r, IGPU_BCS, true);
    vgt_regs_write(r, mi, GEN9_MASKED_BIT_ENABLE(GEN9_MI_MODE_STOP_RING), NULL);
    assert_true(vgt_regs_stopped(r, IGPU_BCS));
    assert_int_equal(vgt_regs_read(r, mi), GEN9_MI_MODE_STOP_RING);
    vgt_regs_set_busy(r, IGPU_BCS, false);
    assert_int_equal(vgt_regs_read(r, mi), GEN9_MI_MODE_STOP_RING | GEN9_MI_MODE_IDLE);
    /* The guest cannot set MODE_IDLE itself. */
    vgt_regs_set_busy(r, IGPU_BCS, true);
    vgt_regs_write(r, mi, GEN9_MASKED_BIT_ENABLE(GEN9_MI_MODE_IDLE), NULL);
    assert_int_equal(vgt_regs_read(r, mi), GEN9_MI_MODE_STOP_RING);
    assert_true(vgt_regs_is_masked(mi));

    /* A fault of the virtual engine, as execlists_irq_handler() handles it. */
    uint32_t b = GEN9_VCS_BASE;
    vgt_regs_engine_error(r, IGPU_VCS, GEN9_ERROR_INSTRUCTION);
    uint32_t eir = vgt_regs_read(r, GEN9_RING_EIR(b)) & 0xFFFFu;
    assert_int_equal(eir, GEN9_ERROR_INSTRUCTION);
    vgt_regs_write(r, GEN9_RING_EMR(b), ~0u, NULL);
    vgt_regs_write(r, GEN9_RING_EIR(b), eir, NULL);
    assert_int_equal(vgt_regs_read(r, GEN9_RING_EIR(b)), 0);
}

/* GT and context workarounds written by MMIO and verified by readback (wa_verify():
 * (cur ^ set) & read is 0; for a masked register `read` is the bits it sets). */
static void test_workarounds_and_storage(void **state)
{
    struct vgt_regs *r = *state;
    const struct {
        uint32_t reg, set, read;
    } wa[] = {
        { GEN9_CACHE_MODE_1, GEN9_MASKED_BIT_ENABLE(0x22), 0x22 },
        { GEN9_HDC_CHICKEN0, GEN9_MASKED_BIT_ENABLE(0x30), 0x30 },
        { GEN9_HALF_SLICE_CHICKEN5, GEN9_MASKED_BIT_DISABLE(0x1), 0x1 },
        { GEN9_CS_CHICKEN1, GEN9_MASKED_FIELD(0x6, 0x4), 0x6 },
        { GEN9_RING_CSFE_CHICKEN1(GEN9_RCS_BASE), GEN9_MASKED_BIT_ENABLE(0x10), 0x10 },
        { GEN9_RING_INSTPM(GEN9_VCS_BASE), GEN9_MASKED_BIT_ENABLE(0x800), 0x800 },
    };
    for (unsigned i = 0; i < sizeof wa / sizeof wa[0]; i++) {
        vgt_regs_write(r, wa[i].reg, wa[i].set, NULL);
        assert_int_equal((vgt_regs_read(r, wa[i].reg) ^ wa[i].set) & wa[i].read, 0);
        assert_int_equal(vgt_regs_read(r, wa[i].reg) >> 16, 0); /* reads the low half */
        assert_true(vgt_regs_is_masked(wa[i].reg));
    }
    /* A masked write without mask bits changes nothing. */
    vgt_regs_write(r, GEN9_CACHE_MODE_1, 0x0000FFFF, NULL);
    assert_int_equal(vgt_regs_read(r, GEN9_CACHE_MODE_1), 0x22);
    /* Plain storage: PAT, MOCS, the whitelist slots; a register nobody owns. */
    vgt_regs_write(r, GEN9_PRIVATE_PAT_LO, 0x00070406, NULL);
    assert_int_equal(vgt_regs_read(r, GEN9_PRIVATE_PAT_LO), 0x00070406);
    assert_false(vgt_regs_is_masked(GEN9_PRIVATE_PAT_LO));
    for (unsigned i = 0; i < GEN9_MOCS_ENTRIES; i++)
        vgt_regs_write(r, GEN9_VECS_MOCS(i), 0x1000 + i, NULL);
    vgt_regs_write(r, GEN9_LNCFCMOCS(31), 0x00300030, NULL);
    vgt_regs_write(r, GEN9_RING_FORCE_TO_NONPRIV(GEN9_RCS_BASE, 11), GEN9_CS_CHICKEN1, NULL);
    for (unsigned i = 0; i < GEN9_MOCS_ENTRIES; i++)
        assert_int_equal(vgt_regs_read(r, GEN9_VECS_MOCS(i)), 0x1000 + i);
    assert_int_equal(vgt_regs_read(r, GEN9_BCS_MOCS(0)), 0);
    assert_int_equal(vgt_regs_read(r, GEN9_LNCFCMOCS(31)), 0x00300030);
    assert_int_equal(vgt_regs_read(r, GEN9_RING_FORCE_TO_NONPRIV(GEN9_RCS_BASE, 11)),
                     GEN9_CS_CHICKEN1);
    assert_true(vgt_regs_owns(GEN9_BCS_MOCS(63)));
    assert_false(vgt_regs_owns(GEN9_BCS_MOCS(64)));
    assert_false(vgt_regs_owns(GEN9_RING_FORCE_TO_NONPRIV(GEN9_RCS_BASE, 12)));
    assert_false(vgt_regs_owns(GEN9_FENCE_REG_LO(0)));
    assert_false(vgt_regs_owns(GEN9_MASTER_IRQ));
    assert_int_equal(vgt_regs_read(r, GEN9_FENCE_REG_LO(0)), 0);
    assert_null(vgt_regs_desc(GEN9_RCS_MOCS(0)));
}

/* gen8_irq_reset() of the PCU and the south display, then gen3_assert_iir_is_zero(). */
static void test_iir_units(void **state)
{
    struct vgt_regs *r = *state;
    const uint32_t iir[] = { GEN9_PCU_IIR, GEN9_SDE_IIR, GEN9_DE_MISC_IIR, GEN9_DE_PIPE_IIR(0) };
    vgt_regs_write(r, GEN9_PCU_IMR, ~0u, NULL);
    vgt_regs_write(r, GEN9_PCU_IER, 0, NULL);
    for (unsigned i = 0; i < 4; i++) {
        vgt_regs_write(r, iir[i], ~0u, NULL);
        vgt_regs_write(r, iir[i], ~0u, NULL);
        assert_int_equal(vgt_regs_read(r, iir[i]), 0);
    }
    assert_int_equal(vgt_regs_read(r, GEN9_SDE_IMR), 0xFFFFFFFF);
}

/* snb_pcode_rw(): READY must be clear, DATA written, READY | command, wait for READY to clear,
 * error code in bits 7:0, DATA read back. */
static uint32_t pcode_rw(struct vgt_regs *r, uint32_t mbox, uint32_t data)
{
    assert_int_equal(vgt_regs_read(r, GEN9_PCODE_MAILBOX) & GEN9_PCODE_READY, 0);
    vgt_regs_write(r, GEN9_PCODE_DATA, data, NULL);
    vgt_regs_write(r, GEN9_PCODE_DATA1, 0, NULL);
    vgt_regs_write(r, GEN9_PCODE_MAILBOX, GEN9_PCODE_READY | mbox, NULL);
    uint32_t m = vgt_regs_read(r, GEN9_PCODE_MAILBOX);
    assert_int_equal(m & GEN9_PCODE_READY, 0);
    assert_int_equal(m & GEN9_PCODE_ERROR_MASK, 0); /* GEN6_PCODE_SUCCESS */
    return vgt_regs_read(r, GEN9_PCODE_DATA);
}

static void test_pcode(void **state)
{
    struct vgt_regs *r = *state;
    assert_int_equal(pcode_rw(r, GEN9_PCODE_READ_MEM_LATENCY, 0), 0x1e1a1100);
    assert_int_equal(pcode_rw(r, GEN9_PCODE_READ_MEM_LATENCY, 1), 0x61514b3d);
    assert_int_equal(pcode_rw(r, GEN9_PCODE_CDCLK_CONTROL, 0), GEN9_CDCLK_READY_FOR_CHANGE);
    assert_int_equal(pcode_rw(r, GEN9_PCODE_READ_RC6VIDS, 0x10), 0x11);
    assert_int_equal(pcode_rw(r, 0x1A | 0x500, 0x55), 0x55); /* any other: data unchanged */
    assert_int_equal(r->st.pcode, 5);
}

/* skl_sagv_disable() (with a display): GEN9_PCODE_SAGV_CONTROL answers "illegal command", which
 * i915 reads as -ENXIO, "No SAGV found on system, ignoring"; the mailbox is free again.  The
 * display's fuse: SKL_DFSM set for a vGPU with a monitor, read-only to the guest. */
static void test_sagv_and_dfsm(void **state)
{
    struct vgt_regs *r = *state;
    vgt_regs_write(r, GEN9_PCODE_DATA, 0, NULL);
    vgt_regs_write(r, GEN9_PCODE_MAILBOX, GEN9_PCODE_READY | GEN9_PCODE_SAGV_CONTROL, NULL);
    uint32_t m = vgt_regs_read(r, GEN9_PCODE_MAILBOX);
    assert_int_equal(m & GEN9_PCODE_READY, 0);
    assert_int_equal(m & GEN9_PCODE_ERROR_MASK, GEN9_PCODE_ILLEGAL_CMD);
    assert_int_equal(pcode_rw(r, GEN9_PCODE_CDCLK_CONTROL, 0), GEN9_CDCLK_READY_FOR_CHANGE);
    assert_true(vgt_regs_read(r, GEN9_SKL_DFSM) & GEN9_DFSM_PIPE_A_DISABLE);
    assert_true(vgt_regs_set_fuse(r, GEN9_SKL_DFSM, GEN9_DFSM_PIPE_B_DISABLE));
    assert_int_equal(vgt_regs_read(r, GEN9_SKL_DFSM), GEN9_DFSM_PIPE_B_DISABLE);
    vgt_regs_write(r, GEN9_SKL_DFSM, 0, NULL);
    assert_int_equal(vgt_regs_read(r, GEN9_SKL_DFSM), GEN9_DFSM_PIPE_B_DISABLE);
    assert_false(vgt_regs_set_fuse(r, GEN9_PCODE_DATA, 1)); /* not a fuse */
}

/* The table itself: one row per register, ranges disjoint from rows and each other, kinds
 * valid; a rate CTC_MODE cannot say is refused. */
static void test_table(void **state)
{
    struct vgt_regs tmp;
    (void)state;
    for (unsigned i = 0; i < vgt_reg_table_count; i++) {
        const struct vgt_reg_desc *d = &vgt_reg_table[i];
        assert_true(d->kind >= VGT_REG_PLAIN && d->kind <= VGT_REG_SPECIAL);
        assert_int_equal(d->off & 3u, 0);
        assert_true(d->off < GEN9_MMIO_SIZE);
        assert_non_null(d->name);
        for (unsigned j = i + 1; j < vgt_reg_table_count; j++)
            assert_int_not_equal(d->off, vgt_reg_table[j].off);
        for (unsigned g = 0; g < vgt_reg_ranges_count; g++)
            assert_false(d->off >= vgt_reg_ranges[g].off &&
                         d->off < vgt_reg_ranges[g].off + 4u * vgt_reg_ranges[g].dwords);
    }
    for (unsigned g = 0; g < vgt_reg_ranges_count; g++)
        for (unsigned h = g + 1; h < vgt_reg_ranges_count; h++)
            assert_true(
                vgt_reg_ranges[g].off + 4u * vgt_reg_ranges[g].dwords <= vgt_reg_ranges[h].off ||
                vgt_reg_ranges[h].off + 4u * vgt_reg_ranges[h].dwords <= vgt_reg_ranges[g].off);
    assert_false(vgt_regs_init(&tmp, 7));
    assert_true(vgt_regs_init(&tmp, 24500000)); /* a divide-logic rate */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_device_info, setup),
        cmocka_unit_test_setup(test_reset_handshake, setup),
        cmocka_unit_test_setup(test_engine_resume_and_stop, setup),
        cmocka_unit_test_setup(test_workarounds_and_storage, setup),
        cmocka_unit_test_setup(test_iir_units, setup),
        cmocka_unit_test_setup(test_pcode, setup),
        cmocka_unit_test_setup(test_sagv_and_dfsm, setup),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
