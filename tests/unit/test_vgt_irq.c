/*
 * The GT interrupt controller driven the way i915 6.1 drives it: gen8_irq_reset(),
 * gen8_gt_irq_postinstall() + gen8_master_intr_enable(), engine events, and gen8_irq_handler()
 * (master off, read the summary, read and clear each flagged bank, master on), with the MSI
 * edge rule and RING_IMR gating.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/vgpu/i915/vgt/vgt_irq.h"

/* i915 gen8_gt_irq_postinstall(): the interrupts each engine keeps enabled. */
#define IRQS \
    (GEN9_GT_CS_MASTER_ERROR | GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | \
     GEN9_GT_WAIT_SEMAPHORE)

static unsigned msis;

static void w(struct vgt_irq *q, uint32_t off, uint32_t val)
{
    if (vgt_irq_write(q, off, val))
        msis++;
}

/* gen3_irq_reset() for every GT bank, after master off (gen8_irq_reset()). */
static void i915_irq_reset(struct vgt_irq *q)
{
    w(q, GEN9_MASTER_IRQ, 0);
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        w(q, GEN9_GT_IMR(b), 0xFFFFFFFF);
        w(q, GEN9_GT_IER(b), 0);
        w(q, GEN9_GT_IIR(b), 0xFFFFFFFF);
        w(q, GEN9_GT_IIR(b), 0xFFFFFFFF);
    }
}

/* gen8_gt_irq_postinstall() then gen8_master_intr_enable(); gen3_irq_init() asserts each IIR
 * reads 0 first. */
static void i915_irq_postinstall(struct vgt_irq *q)
{
    const uint32_t ier[GEN9_GT_IRQ_BANKS] = {
        IRQS << GEN9_GT_RCS_IRQ_SHIFT | IRQS << GEN9_GT_BCS_IRQ_SHIFT,
        IRQS << GEN9_GT_VCS_IRQ_SHIFT | IRQS << 16,
        0,
        IRQS << GEN9_GT_VECS_IRQ_SHIFT,
    };
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        assert_int_equal(vgt_irq_read(q, GEN9_GT_IIR(b)), 0);
        w(q, GEN9_GT_IER(b), ier[b]);
        w(q, GEN9_GT_IMR(b), ~ier[b]);
    }
    w(q, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
}

/* gen8_irq_handler(): returns the IIR bits it acknowledged in each bank. */
static void i915_irq_handler(struct vgt_irq *q, uint32_t acked[GEN9_GT_IRQ_BANKS])
{
    static const struct {
        uint32_t master;
        unsigned bank;
    } route[] = {
        { GEN9_MASTER_GT_RCS_IRQ | GEN9_MASTER_GT_BCS_IRQ, 0 },
        { GEN9_MASTER_GT_VCS0_IRQ | GEN9_MASTER_GT_VCS1_IRQ, 1 },
        { GEN9_MASTER_GT_VECS_IRQ, 3 },
        { GEN9_MASTER_GT_PM_IRQ | GEN9_MASTER_GT_GUC_IRQ, 2 },
    };
    uint32_t master;

    w(q, GEN9_MASTER_IRQ, 0);
    master = vgt_irq_read(q, GEN9_MASTER_IRQ);
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++)
        acked[b] = 0;
    for (unsigned i = 0; i < 4; i++) {
        if (!(master & route[i].master))
            continue;
        uint32_t iir = vgt_irq_read(q, GEN9_GT_IIR(route[i].bank));
        if (iir) {
            acked[route[i].bank] = iir;
            w(q, GEN9_GT_IIR(route[i].bank), iir);
        }
    }
    w(q, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
}

static void boot(struct vgt_irq *q)
{
    vgt_irq_init(q);
    msis = 0;
    i915_irq_reset(q);
    i915_irq_postinstall(q);
    assert_int_equal(msis, 0);
    assert_int_equal(vgt_irq_read(q, GEN9_MASTER_IRQ), GEN9_MASTER_IRQ_CONTROL);
}

static void test_probe_sequence(void **state)
{
    struct vgt_irq q;
    (void)state;
    vgt_irq_init(&q);
    /* Reset values: everything masked, nothing enabled or pending, master off. */
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        assert_int_equal(vgt_irq_read(&q, GEN9_GT_IMR(b)), 0xFFFFFFFF);
        assert_int_equal(vgt_irq_read(&q, GEN9_GT_IER(b)), 0);
        assert_int_equal(vgt_irq_read(&q, GEN9_GT_IIR(b)), 0);
        assert_int_equal(vgt_irq_read(&q, GEN9_GT_ISR(b)), 0);
    }
    boot(&q);
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IER(0)), 0x09090909);
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IMR(3)), ~0x0909u);
    assert_int_equal(q.st.msi, 0);
}

static void test_event_to_msi_and_handler(void **state)
{
    struct vgt_irq q;
    uint32_t acked[GEN9_GT_IRQ_BANKS];
    (void)state;
    boot(&q);

    /* A CSB event on RCS: one MSI; the master summary says RCS. */
    assert_true(vgt_irq_event(&q, IGPU_RCS, GEN9_GT_CONTEXT_SWITCH));
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ),
                     GEN9_MASTER_IRQ_CONTROL | GEN9_MASTER_GT_RCS_IRQ);
    /* More events before the handler runs: the line is already up, no second MSI. */
    assert_false(vgt_irq_event(&q, IGPU_RCS, GEN9_GT_USER_INTERRUPT));
    assert_false(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_CONTEXT_SWITCH));

    msis = 0;
    i915_irq_handler(&q, acked);
    assert_int_equal(acked[0], GEN9_GT_CONTEXT_SWITCH | GEN9_GT_USER_INTERRUPT |
                                   GEN9_GT_CONTEXT_SWITCH << 16);
    assert_int_equal(msis, 0); /* all cleared: no re-trigger */
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ), GEN9_MASTER_IRQ_CONTROL);
    assert_int_equal(q.st.msi, 1);

    /* The next event interrupts again. */
    assert_true(vgt_irq_event(&q, IGPU_VCS, GEN9_GT_USER_INTERRUPT));
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ),
                     GEN9_MASTER_IRQ_CONTROL | GEN9_MASTER_GT_VCS0_IRQ);
    i915_irq_handler(&q, acked);
    assert_int_equal(acked[1], GEN9_GT_USER_INTERRUPT);
    assert_true(vgt_irq_event(&q, IGPU_VECS, GEN9_GT_CONTEXT_SWITCH));
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ),
                     GEN9_MASTER_IRQ_CONTROL | GEN9_MASTER_GT_VECS_IRQ);
    i915_irq_handler(&q, acked);
    assert_int_equal(acked[3], GEN9_GT_CONTEXT_SWITCH);
}

/* An event arriving while the handler has master off is delivered when it turns master back
 * on (the re-trigger i915 relies on: it never re-reads IIR after enabling master). */
static void test_retrigger(void **state)
{
    struct vgt_irq q;
    (void)state;
    boot(&q);
    assert_true(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_USER_INTERRUPT));
    msis = 0;
    w(&q, GEN9_MASTER_IRQ, 0);
    uint32_t iir = vgt_irq_read(&q, GEN9_GT_IIR(0));
    w(&q, GEN9_GT_IIR(0), iir);
    assert_false(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_CONTEXT_SWITCH)); /* master off */
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ), GEN9_MASTER_GT_BCS_IRQ);
    w(&q, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    assert_int_equal(msis, 1);
    /* A bit the handler did not clear also re-triggers. */
    msis = 0;
    w(&q, GEN9_MASTER_IRQ, 0);
    w(&q, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    assert_int_equal(msis, 1);
    /* Writes to the summary bits change nothing. */
    w(&q, GEN9_MASTER_IRQ, 0x7F);
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ), GEN9_MASTER_GT_BCS_IRQ);
}

/* IMR stops latching; IER stops delivery but the bit stays latched, and enabling it later
 * raises the line (an edge at the IER write). */
static void test_masks(void **state)
{
    struct vgt_irq q;
    (void)state;
    boot(&q);
    assert_false(vgt_irq_event(&q, IGPU_RCS, GEN9_GT_PIPECTL_NOTIFY)); /* masked in IMR */
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IIR(0)), 0);
    assert_int_equal(q.st.masked_gt, 1);

    msis = 0;
    w(&q, GEN9_GT_IMR(0), ~(IRQS | GEN9_GT_PIPECTL_NOTIFY));
    assert_false(vgt_irq_event(&q, IGPU_RCS, GEN9_GT_PIPECTL_NOTIFY)); /* not in IER */
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IIR(0)), GEN9_GT_PIPECTL_NOTIFY);
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ), GEN9_MASTER_IRQ_CONTROL);
    w(&q, GEN9_GT_IER(0), vgt_irq_read(&q, GEN9_GT_IER(0)) | GEN9_GT_PIPECTL_NOTIFY);
    assert_int_equal(msis, 1);

    /* Events of a bank nobody enabled (bank 2 stays masked by i915) go nowhere. */
    vgt_irq_reset(&q);
    assert_false(vgt_irq_event(&q, IGPU_NUM_GT_ENGINES, GEN9_GT_USER_INTERRUPT));
    assert_false(vgt_irq_event(&q, IGPU_RCS, 0));
}

/* The display's summary bits join the master: read with it, an MSI on their rising edge while
 * master is on, none while i915's handler holds master off, another at its re-enable if they
 * are still pending (gen8_de_irq_handler() clears the display IIRs in between). */
static void test_display_summary(void **state)
{
    struct vgt_irq q;
    (void)state;
    boot(&q);
    msis = 0;
    assert_true(vgt_irq_set_display(&q, GEN9_MASTER_DE_PIPE_IRQ(0)));
    assert_int_equal(vgt_irq_read(&q, GEN9_MASTER_IRQ),
                     GEN9_MASTER_IRQ_CONTROL | GEN9_MASTER_DE_PIPE_IRQ(0));
    assert_false(vgt_irq_set_display(&q, GEN9_MASTER_DE_PIPE_IRQ(0) | GEN9_MASTER_DE_PCH_IRQ));
    w(&q, GEN9_MASTER_IRQ, 0); /* the handler: master off */
    assert_false(vgt_irq_set_display(&q, GEN9_MASTER_DE_PCH_IRQ));
    w(&q, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL); /* still pending: again */
    assert_int_equal(msis, 1);
    assert_false(vgt_irq_set_display(&q, 0));
    vgt_irq_reset(&q);
    assert_int_equal(vgt_irq_summary(&q), 0);
}

/* RING_IMR as i915 programs it: gen8_logical_ring_enable_irq() unmasks the user interrupt and
 * the kept ones at the engine's bank position; disable_irq() keeps only the kept ones. */
static void test_ring_imr(void **state)
{
    struct vgt_irq q;
    uint32_t acked[GEN9_GT_IRQ_BANKS];
    const uint32_t keep = (GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR |
                           GEN9_GT_WAIT_SEMAPHORE)
                       << 16;
    const uint32_t enable = GEN9_GT_USER_INTERRUPT << 16;
    (void)state;
    boot(&q);
    assert_true(vgt_irq_owns(GEN9_RING_IMR(GEN9_BCS_BASE)));
    w(&q, GEN9_RING_IMR(GEN9_BCS_BASE), ~(enable | keep));
    assert_int_equal(vgt_irq_read(&q, GEN9_RING_IMR(GEN9_BCS_BASE)), ~(enable | keep));
    assert_true(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_USER_INTERRUPT));
    i915_irq_handler(&q, acked);
    assert_int_equal(acked[0], GEN9_GT_USER_INTERRUPT << 16);

    w(&q, GEN9_RING_IMR(GEN9_BCS_BASE), ~keep); /* breadcrumbs disarmed */
    assert_false(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_USER_INTERRUPT));
    assert_int_equal(q.st.masked_ring, 1);
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IIR(0)), 0);
    assert_true(vgt_irq_event(&q, IGPU_BCS, GEN9_GT_CONTEXT_SWITCH));
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_IIR(0)), GEN9_GT_CONTEXT_SWITCH << 16);
}

static void test_registers(void **state)
{
    struct vgt_irq q;
    (void)state;
    vgt_irq_init(&q);
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        assert_true(vgt_irq_owns(GEN9_GT_ISR(b)));
        assert_true(vgt_irq_owns(GEN9_GT_IMR(b)));
        assert_true(vgt_irq_owns(GEN9_GT_IIR(b)));
        assert_true(vgt_irq_owns(GEN9_GT_IER(b)));
    }
    assert_true(vgt_irq_owns(GEN9_MASTER_IRQ));
    assert_true(vgt_irq_owns(GEN9_RING_IMR(GEN9_VECS_BASE)));
    assert_false(vgt_irq_owns(GEN9_GT_ISR(4)));
    assert_false(vgt_irq_owns(GEN9_PCU_IIR));
    assert_false(vgt_irq_write(&q, GEN9_GT_ISR(0), ~0u));
    assert_int_equal(vgt_irq_read(&q, GEN9_GT_ISR(0)), 0);
    assert_int_equal(vgt_irq_read(&q, GEN9_PCU_IIR), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_sequence), cmocka_unit_test(test_event_to_msi_and_handler),
        cmocka_unit_test(test_retrigger),      cmocka_unit_test(test_masks),
        cmocka_unit_test(test_ring_imr),       cmocka_unit_test(test_display_summary),
        cmocka_unit_test(test_registers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
