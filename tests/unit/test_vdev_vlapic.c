/* The virtual x2APIC (vmm/vdev/vlapic.c): reset state, the x2APIC MSR access rules (SDM Vol. 3A
 * §11.12.1.2), IRR/ISR/PPR priority and EOI, TPR, errors, the ICR's decoding and self-IPIs through SELF_IPI, IDs and the INIT reset,
 * software disable, the three timer modes, MSI delivery.  MSR numbers are written out as the
 * SDM's Table 11-6 gives them, so the header's definitions are checked too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vdev/vlapic.h"

#define M_APIC_BASE    0x1Bu
#define M_TSC_DEADLINE 0x6E0u
#define M_ID           0x802u
#define M_VERSION      0x803u
#define M_TPR          0x808u
#define M_PPR          0x80Au
#define M_EOI          0x80Bu
#define M_LDR          0x80Du
#define M_SVR          0x80Fu
#define M_ISR0         0x810u
#define M_TMR0         0x818u
#define M_IRR0         0x820u
#define M_ESR          0x828u
#define M_ICR          0x830u
#define M_LVTT         0x832u
#define M_LVT0         0x835u
#define M_LVT1         0x836u
#define M_LVTERR       0x837u
#define M_TMICT        0x838u
#define M_TMCCT        0x839u
#define M_TDCR         0x83Eu
#define M_SELF_IPI     0x83Fu

#define LVT_MASKED    0x10000u
#define LVTT_PERIODIC 0x20000u
#define LVTT_DEADLINE 0x40000u

static struct vlapic l;

static int setup(void **state)
{
    (void)state;
    memset(&l, 0xA5, sizeof l);
    vlapic_reset(&l, 1);
    return 0;
}

static uint64_t rd(uint32_t msr, uint64_t now)
{
    uint64_t v = 0xDEAD;
    assert_int_equal(vlapic_rdmsr(&l, msr, now, &v), VLAPIC_OK);
    return v;
}

static void wr(uint32_t msr, uint64_t v, uint64_t now)
{
    assert_int_equal(vlapic_wrmsr(&l, msr, v, now), VLAPIC_OK);
}

static bool irr_has(unsigned v)
{
    return (rd(M_IRR0 + v / 32, 0) >> (v % 32)) & 1;
}
static bool isr_has(unsigned v)
{
    return (rd(M_ISR0 + v / 32, 0) >> (v % 32)) & 1;
}

/* Takes the pending interrupt as the VMX side does and returns its vector. */
static int take(void)
{
    int v = vlapic_pending(&l);
    if (v >= 0)
        vlapic_ack(&l, (uint8_t)v);
    return v;
}

static void test_reset_state(void **state)
{
    (void)state;
    assert_int_equal(rd(M_APIC_BASE, 0), 0xFEE00000u | 0x100 | 0x400 | 0x800);
    assert_int_equal(rd(M_ID, 0), 0);
    assert_int_equal(rd(M_VERSION, 0), 0x60014);
    assert_int_equal(rd(M_LDR, 0), 1);
    assert_int_equal(rd(M_SVR, 0), 0x1FF);
    assert_int_equal(rd(M_LVT0, 0), 0x700); /* ExtINT: virtual wire */
    assert_int_equal(rd(M_LVT1, 0), 0x400); /* NMI */
    assert_int_equal(rd(M_LVTT, 0), LVT_MASKED);
    assert_int_equal(rd(M_LVTERR, 0), LVT_MASKED);
    assert_int_equal(rd(M_TMICT, 0), 0);
    assert_int_equal(rd(M_TSC_DEADLINE, 0), 0);
    assert_int_equal(vlapic_pending(&l), -1);
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER);
    assert_true(vlapic_accepts_extint(&l));
}

static void test_owned_msrs(void **state)
{
    (void)state;
    assert_true(vlapic_owns_msr(M_APIC_BASE));
    assert_true(vlapic_owns_msr(M_TSC_DEADLINE));
    assert_true(vlapic_owns_msr(0x800));
    assert_true(vlapic_owns_msr(0x8FF));
    assert_false(vlapic_owns_msr(0x7FF));
    assert_false(vlapic_owns_msr(0x900));
    assert_false(vlapic_owns_msr(0x10));
}

static void test_msr_access_rules(void **state)
{
    (void)state;
    uint64_t v;
    /* write-only registers cannot be read */
    assert_int_equal(vlapic_rdmsr(&l, M_EOI, 0, &v), VLAPIC_GP);
    assert_int_equal(vlapic_rdmsr(&l, M_SELF_IPI, 0, &v), VLAPIC_GP);
    /* read-only registers cannot be written */
    const uint32_t ro[] = { M_ID,       M_VERSION, M_PPR,      M_LDR,  M_ISR0,
                            M_ISR0 + 7, M_TMR0,    M_IRR0 + 3, M_TMCCT };
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
        assert_int_equal(vlapic_wrmsr(&l, ro[i], 0, 0), VLAPIC_GP);
    /* registers x2APIC mode does not have: APR 0x809, DFR 0x80E, ICR high 0x831, 0x8FF */
    const uint32_t none[] = { 0x809, 0x80E, 0x831, 0x8FF, 0x800 };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        assert_int_equal(vlapic_rdmsr(&l, none[i], 0, &v), VLAPIC_GP);
        assert_int_equal(vlapic_wrmsr(&l, none[i], 0, 0), VLAPIC_GP);
    }
    /* 32-bit registers refuse bits 63:32; EOI and ESR refuse non-zero; SELF_IPI bits 31:8 */
    assert_int_equal(vlapic_wrmsr(&l, M_TPR, 1ull << 32, 0), VLAPIC_GP);
    assert_int_equal(vlapic_wrmsr(&l, M_EOI, 1, 0), VLAPIC_GP);
    assert_int_equal(vlapic_wrmsr(&l, M_ESR, 1, 0), VLAPIC_GP);
    assert_int_equal(vlapic_wrmsr(&l, M_SELF_IPI, 0x140, 0), VLAPIC_GP);
    assert_int_equal(vlapic_pending(&l), -1); /* none of them did anything */
    /* TPR keeps bits 7:0 only */
    wr(M_TPR, 0x1234, 0);
    assert_int_equal(rd(M_TPR, 0), 0x34);
}

static void test_apic_base_writes(void **state)
{
    (void)state;
    uint64_t base = rd(M_APIC_BASE, 0);
    /* leaving x2APIC mode, to xAPIC or to disabled, is refused with a reason */
    assert_int_equal(vlapic_wrmsr(&l, M_APIC_BASE, base & ~0x400ull, 0), VLAPIC_XAPIC_REFUSED);
    assert_int_equal(vlapic_wrmsr(&l, M_APIC_BASE, base & ~0xC00ull, 0), VLAPIC_XAPIC_REFUSED);
    assert_non_null(strstr(VLAPIC_XAPIC_REASON, "noapic"));
    /* EXTD without EN is invalid; reserved bits fault */
    assert_int_equal(vlapic_wrmsr(&l, M_APIC_BASE, base & ~0x800ull, 0), VLAPIC_GP);
    assert_int_equal(vlapic_wrmsr(&l, M_APIC_BASE, base | 0x200, 0), VLAPIC_GP);
    assert_int_equal(vlapic_wrmsr(&l, M_APIC_BASE, base | 1, 0), VLAPIC_GP);
    assert_int_equal(rd(M_APIC_BASE, 0), base);
    /* staying in x2APIC mode is fine; BSP is read-only */
    wr(M_APIC_BASE, base & ~0x100ull, 0);
    assert_int_equal(rd(M_APIC_BASE, 0), base);
}

static void test_priority_ack_eoi(void **state)
{
    (void)state;
    vlapic_accept(&l, 0x31);
    vlapic_accept(&l, 0x45);
    vlapic_accept(&l, 0x52);
    assert_true(irr_has(0x31) && irr_has(0x45) && irr_has(0x52));
    assert_int_equal(take(), 0x52);
    assert_true(isr_has(0x52));
    assert_false(irr_has(0x52));
    assert_int_equal(rd(M_PPR, 0), 0x50);
    /* class 4 and 3 wait behind class 5 in service; a class 6 interrupt nests */
    assert_int_equal(vlapic_pending(&l), -1);
    vlapic_accept(&l, 0x61);
    assert_int_equal(take(), 0x61);
    assert_int_equal(rd(M_PPR, 0), 0x60);
    /* EOI ends the highest in service: 0x61, then 0x52 */
    wr(M_EOI, 0, 0);
    assert_false(isr_has(0x61));
    assert_true(isr_has(0x52));
    assert_int_equal(vlapic_pending(&l), -1);
    wr(M_EOI, 0, 0);
    assert_int_equal(rd(M_PPR, 0), 0);
    assert_int_equal(take(), 0x45);
    wr(M_EOI, 0, 0);
    assert_int_equal(take(), 0x31);
    wr(M_EOI, 0, 0);
    assert_int_equal(take(), -1);
    wr(M_EOI, 0, 0); /* nothing in service: harmless */
}

/* Same class as in service waits too: 0x55 behind 0x52. */
static void test_same_class_waits(void **state)
{
    (void)state;
    vlapic_accept(&l, 0x52);
    assert_int_equal(take(), 0x52);
    vlapic_accept(&l, 0x55);
    assert_int_equal(vlapic_pending(&l), -1);
    wr(M_EOI, 0, 0);
    assert_int_equal(take(), 0x55);
}

static void test_tpr_masks_classes(void **state)
{
    (void)state;
    wr(M_TPR, 0x50, 0);
    assert_int_equal(rd(M_PPR, 0), 0x50);
    vlapic_accept(&l, 0x52);
    assert_int_equal(vlapic_pending(&l), -1);
    vlapic_accept(&l, 0x61);
    assert_int_equal(take(), 0x61);
    wr(M_EOI, 0, 0);
    wr(M_TPR, 0x4F, 0);
    assert_int_equal(take(), 0x52);
    /* PPR takes the ISR class when it is above the TPR's */
    assert_int_equal(rd(M_PPR, 0), 0x50);
}

static void test_illegal_vector_and_esr(void **state)
{
    (void)state;
    wr(M_LVTERR, 0xFE, 0);
    vlapic_accept(&l, 5);
    assert_false(irr_has(5));
    assert_true(irr_has(0xFE));        /* the error LVT fired */
    assert_int_equal(rd(M_ESR, 0), 0); /* latched only by the next ESR write */
    wr(M_ESR, 0, 0);
    assert_int_equal(rd(M_ESR, 0), 0x40); /* receive illegal vector */
    wr(M_ESR, 0, 0);
    assert_int_equal(rd(M_ESR, 0), 0);
    /* a self-IPI with vector 3: send and receive illegal vector */
    wr(M_SELF_IPI, 3, 0);
    wr(M_ESR, 0, 0);
    assert_int_equal(rd(M_ESR, 0), 0x60);
}

static void test_self_ipi_msr(void **state)
{
    (void)state;
    wr(M_SELF_IPI, 0xF6, 0);
    assert_true(irr_has(0xF6));
    assert_int_equal(take(), 0xF6);
}

/* The ICR write decodes the IPI for the router (vipi.c, test_vdev_vipi.c says where it goes) and
 * raises nothing by itself. */
static void test_icr_write_hands_the_ipi_on(void **state)
{
    (void)state;
    /* destination 3, level-triggered assert, logical, lowest priority, vector 0x31 */
    const uint64_t icr = 0x000000030000C931ull;
    assert_int_equal(vlapic_wrmsr(&l, M_ICR, icr, 0), VLAPIC_IPI_SENT);
    assert_int_equal(rd(M_ICR, 0), icr);
    assert_int_equal(l.ipi.dest, 3);
    assert_int_equal(l.ipi.vector, 0x31);
    assert_int_equal(l.ipi.mode, 0x100);
    assert_int_equal(l.ipi.shorthand, 0);
    assert_true(l.ipi.logical);
    assert_false(l.ipi.level_deassert); /* assert bit set */
    assert_false(irr_has(0x31));
    /* an INIT level de-assert */
    assert_int_equal(vlapic_wrmsr(&l, M_ICR, 0x8500ull, 0), VLAPIC_IPI_SENT);
    assert_true(l.ipi.level_deassert);
    assert_int_equal(l.ipi.mode, 0x500);
    /* bits outside the ICR's fields (delivery status 12, 13, 16-17, 20-31) are not kept */
    assert_int_equal(vlapic_wrmsr(&l, M_ICR, 0xFFFF1040ull, 0), VLAPIC_IPI_SENT);
    assert_int_equal(rd(M_ICR, 0), 0xC0040ull);
}

/* A fixed IPI with a vector below 16 is the sender's error too (§11.5.3), whoever receives it. */
static void test_icr_illegal_vector_is_a_send_error(void **state)
{
    (void)state;
    assert_int_equal(vlapic_wrmsr(&l, M_ICR, 0x0000000100000005ull, 0), VLAPIC_IPI_SENT);
    wr(M_ESR, 0, 0);
    assert_int_equal(rd(M_ESR, 0), 0x20); /* send illegal vector */
    /* INIT and STARTUP carry no vector to check */
    assert_int_equal(vlapic_wrmsr(&l, M_ICR, 0x0000000100000500ull, 0), VLAPIC_IPI_SENT);
    wr(M_ESR, 0, 0);
    assert_int_equal(rd(M_ESR, 0), 0);
}

/* vCPU n has x2APIC ID n; only ID 0 carries the BSP flag; an INIT reset keeps the ID and the
 * x2APIC mode (§11.4.7.3, §11.12.5.1). */
static void test_ids_and_init_reset(void **state)
{
    (void)state;
    vlapic_set_id(&l, 2);
    assert_int_equal(rd(M_ID, 0), 2);
    assert_int_equal(rd(M_LDR, 0), 0x4);
    assert_false(rd(M_APIC_BASE, 0) & 0x100u);
    wr(M_TPR, 0x20, 0);
    wr(M_LVTT, 0xEC, 0);
    vlapic_accept(&l, 0x40);
    vlapic_init_reset(&l);
    assert_int_equal(rd(M_ID, 0), 2);
    assert_int_equal(rd(M_APIC_BASE, 0), 0xFEE00C00u); /* EN | EXTD, no BSP */
    assert_int_equal(rd(M_TPR, 0), 0);
    assert_int_equal(rd(M_LVTT, 0), LVT_MASKED);
    assert_false(irr_has(0x40));
    vlapic_set_id(&l, 0);
    assert_true(rd(M_APIC_BASE, 0) & 0x100u);
}

static void test_software_disable(void **state)
{
    (void)state;
    wr(M_LVTT, 0xEC, 0);
    wr(M_SVR, 0xFF, 0); /* enable bit clear */
    assert_int_equal(rd(M_LVTT, 0), 0xEC | LVT_MASKED);
    assert_int_equal(rd(M_LVT0, 0), 0x700 | LVT_MASKED);
    assert_false(vlapic_accepts_extint(&l));
    wr(M_LVTT, 0xEC, 0); /* the mask cannot be cleared now */
    assert_int_equal(rd(M_LVTT, 0), 0xEC | LVT_MASKED);
    vlapic_accept(&l, 0x40);
    assert_false(irr_has(0x40));
    assert_int_equal(vlapic_pending(&l), -1);
    wr(M_SVR, 0x1FF, 0);
    wr(M_LVTT, 0xEC, 0);
    assert_int_equal(rd(M_LVTT, 0), 0xEC);
    /* SVR bit 12 (EOI-broadcast suppression) is not offered: it stays 0 */
    wr(M_SVR, 0x11FF, 0);
    assert_int_equal(rd(M_SVR, 0), 0x1FF);
}

static void test_lvt_writable_bits(void **state)
{
    (void)state;
    wr(M_LVT0, 0xFFFFFFFF, 0);
    assert_int_equal(rd(M_LVT0, 0), 0x1A7FF); /* vector, mode, polarity, trigger, mask */
    wr(M_LVTERR, 0xFFFFFFFF, 0);
    assert_int_equal(rd(M_LVTERR, 0), 0x100FF);
    assert_int_equal(vlapic_wrmsr(&l, M_LVTT, 0x60000, 0), VLAPIC_GP); /* reserved mode 11b */
}

static void test_tsc_deadline(void **state)
{
    (void)state;
    wr(M_LVTT, LVTT_DEADLINE | 0xEC, 0);
    wr(M_TSC_DEADLINE, 1000, 10);
    assert_int_equal(rd(M_TSC_DEADLINE, 10), 1000);
    assert_int_equal(vlapic_next_timer(&l), 1000);
    vlapic_advance(&l, 999);
    assert_false(irr_has(0xEC));
    vlapic_advance(&l, 1000);
    assert_true(irr_has(0xEC));
    assert_int_equal(rd(M_TSC_DEADLINE, 1000), 0); /* fired: disarmed and cleared */
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER);
    assert_int_equal(l.timer_irqs, 1);
    /* a deadline in the past fires at the next advance; 0 disarms */
    wr(M_TSC_DEADLINE, 5, 2000);
    vlapic_advance(&l, 2000);
    assert_int_equal(l.timer_irqs, 2);
    wr(M_TSC_DEADLINE, 3000, 2000);
    wr(M_TSC_DEADLINE, 0, 2000);
    vlapic_advance(&l, 5000);
    assert_int_equal(l.timer_irqs, 2);
    /* TMICT is ignored in this mode */
    wr(M_TMICT, 100, 5000);
    assert_int_equal(rd(M_TMICT, 5000), 0);
    assert_int_equal(rd(M_TMCCT, 5000), 0);
}

static void test_tsc_deadline_masked(void **state)
{
    (void)state;
    wr(M_LVTT, LVTT_DEADLINE | LVT_MASKED | 0xEC, 0);
    wr(M_TSC_DEADLINE, 100, 0);
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER); /* nothing to wake for */
    vlapic_advance(&l, 200);
    assert_false(irr_has(0xEC));
    assert_int_equal(rd(M_TSC_DEADLINE, 200), 0);
}

static void test_deadline_msr_outside_deadline_mode(void **state)
{
    (void)state;
    wr(M_LVTT, 0xEC, 0); /* one-shot */
    wr(M_TSC_DEADLINE, 1000, 0);
    assert_int_equal(rd(M_TSC_DEADLINE, 0), 0);
    vlapic_advance(&l, 2000);
    assert_false(irr_has(0xEC));
}

static void test_one_shot(void **state)
{
    (void)state;
    wr(M_TDCR, 0xB, 0); /* divide by 1 */
    wr(M_LVTT, 0xEC, 0);
    wr(M_TMICT, 100, 1000);
    assert_int_equal(rd(M_TMICT, 1000), 100);
    assert_int_equal(rd(M_TMCCT, 1000), 100);
    assert_int_equal(rd(M_TMCCT, 1050), 50);
    assert_int_equal(vlapic_next_timer(&l), 1100);
    vlapic_advance(&l, 1099);
    assert_false(irr_has(0xEC));
    vlapic_advance(&l, 1100);
    assert_true(irr_has(0xEC));
    assert_int_equal(rd(M_TMCCT, 1100), 0);
    assert_int_equal(take(), 0xEC);
    wr(M_EOI, 0, 0);
    vlapic_advance(&l, 5000);
    assert_false(irr_has(0xEC)); /* once only */
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER);
    /* writing 0 stops a count */
    wr(M_TMICT, 100, 6000);
    wr(M_TMICT, 0, 6010);
    vlapic_advance(&l, 7000);
    assert_false(irr_has(0xEC));
}

static void test_divider_and_tick_rate(void **state)
{
    (void)state;
    vlapic_reset(&l, 3); /* 3 TSC ticks per input clock */
    wr(M_LVTT, 0xEC, 0);
    wr(M_TDCR, 0x3, 0); /* divide by 16 */
    wr(M_TMICT, 10, 0);
    assert_int_equal(vlapic_next_timer(&l), 10 * 16 * 3);
    wr(M_TDCR, 0x8, 0); /* code 100b: divide by 32 */
    wr(M_TMICT, 10, 0);
    assert_int_equal(vlapic_next_timer(&l), 10 * 32 * 3);
    wr(M_TDCR, 0x0, 0); /* divide by 2 */
    wr(M_TMICT, 10, 0);
    assert_int_equal(vlapic_next_timer(&l), 10 * 2 * 3);
    /* a divider change mid-count keeps the count and changes the rate */
    vlapic_reset(&l, 1);
    wr(M_LVTT, 0xEC, 0);
    wr(M_TDCR, 0xB, 0);
    wr(M_TMICT, 100, 0);
    wr(M_TDCR, 0x0, 40); /* 60 counts left, now 2 TSC each */
    assert_int_equal(rd(M_TMCCT, 40), 60);
    assert_int_equal(vlapic_next_timer(&l), 40 + 120);
}

static void test_periodic(void **state)
{
    (void)state;
    wr(M_TDCR, 0x0, 0); /* divide by 2 */
    wr(M_LVTT, LVTT_PERIODIC | 0xEC, 0);
    wr(M_TMICT, 50, 0); /* period: 100 TSC */
    vlapic_advance(&l, 100);
    assert_int_equal(take(), 0xEC);
    wr(M_EOI, 0, 0);
    assert_int_equal(vlapic_next_timer(&l), 200);
    vlapic_advance(&l, 150);
    assert_false(irr_has(0xEC));
    assert_int_equal(rd(M_TMCCT, 150), 25);
    /* three periods go by unseen: one interrupt, the grid kept */
    vlapic_advance(&l, 450);
    assert_true(irr_has(0xEC));
    assert_int_equal(l.timer_irqs, 2);
    assert_int_equal(vlapic_next_timer(&l), 500);
    assert_int_equal(rd(M_TMCCT, 450), 25);
    /* one-shot from here on: the count in progress ends and stays at 0 */
    wr(M_LVTT, 0xEC, 450);
    vlapic_advance(&l, 500);
    assert_int_equal(l.timer_irqs, 3);
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER);
}

static void test_mode_switch_disarms(void **state)
{
    (void)state;
    wr(M_LVTT, 0xEC, 0);
    wr(M_TMICT, 100, 0);
    wr(M_LVTT, LVTT_DEADLINE | 0xEC, 10);
    assert_int_equal(rd(M_TMICT, 10), 0);
    assert_int_equal(vlapic_next_timer(&l), VLAPIC_NO_TIMER);
    wr(M_TSC_DEADLINE, 500, 10);
    wr(M_LVTT, 0xEC, 20);
    wr(M_LVTT, LVTT_DEADLINE | 0xEC, 30);
    assert_int_equal(rd(M_TSC_DEADLINE, 30), 0);
    vlapic_advance(&l, 1000);
    assert_false(irr_has(0xEC));
}

static void test_msi(void **state)
{
    (void)state;
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE00000, 0x41), VLAPIC_MSI_DELIVERED);
    assert_true(irr_has(0x41));
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE0100C, 0x42),
                     VLAPIC_MSI_DELIVERED); /* logical 1, RH */
    assert_true(irr_has(0x42));
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEEFF000, 0x43),
                     VLAPIC_MSI_DELIVERED); /* broadcast */
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE0100C, 0x144),
                     VLAPIC_MSI_DELIVERED); /* lowest priority */
    assert_true(irr_has(0x44));
    assert_int_equal(vlapic_deliver_msi(&l, 0xFED00000, 0x45), VLAPIC_MSI_BAD_ADDRESS);
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE01000, 0x46),
                     VLAPIC_MSI_NOT_FOR_US); /* physical 1 */
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE02004, 0x47),
                     VLAPIC_MSI_NOT_FOR_US); /* logical bit 1 */
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE00000, 0x448),
                     VLAPIC_MSI_UNSUPPORTED_MODE); /* NMI */
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE00000, 0x07), VLAPIC_MSI_ILLEGAL_VECTOR);
    assert_false(irr_has(0x45) || irr_has(0x46) || irr_has(0x47) || irr_has(0x48) || irr_has(7));
    wr(M_SVR, 0xFF, 0);
    assert_int_equal(vlapic_deliver_msi(&l, 0xFEE00000, 0x49), VLAPIC_MSI_APIC_DISABLED);
}

static void test_extint_needs_unmasked_lvt0(void **state)
{
    (void)state;
    wr(M_LVT0, 0x700 | LVT_MASKED, 0);
    assert_false(vlapic_accepts_extint(&l));
    wr(M_LVT0, 0x000, 0); /* fixed mode */
    assert_false(vlapic_accepts_extint(&l));
    wr(M_LVT0, 0x700, 0);
    assert_true(vlapic_accepts_extint(&l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_reset_state, setup),
        cmocka_unit_test_setup(test_owned_msrs, setup),
        cmocka_unit_test_setup(test_msr_access_rules, setup),
        cmocka_unit_test_setup(test_apic_base_writes, setup),
        cmocka_unit_test_setup(test_priority_ack_eoi, setup),
        cmocka_unit_test_setup(test_same_class_waits, setup),
        cmocka_unit_test_setup(test_tpr_masks_classes, setup),
        cmocka_unit_test_setup(test_illegal_vector_and_esr, setup),
        cmocka_unit_test_setup(test_self_ipi_msr, setup),
        cmocka_unit_test_setup(test_icr_write_hands_the_ipi_on, setup),
        cmocka_unit_test_setup(test_icr_illegal_vector_is_a_send_error, setup),
        cmocka_unit_test_setup(test_ids_and_init_reset, setup),
        cmocka_unit_test_setup(test_software_disable, setup),
        cmocka_unit_test_setup(test_lvt_writable_bits, setup),
        cmocka_unit_test_setup(test_tsc_deadline, setup),
        cmocka_unit_test_setup(test_tsc_deadline_masked, setup),
        cmocka_unit_test_setup(test_deadline_msr_outside_deadline_mode, setup),
        cmocka_unit_test_setup(test_one_shot, setup),
        cmocka_unit_test_setup(test_divider_and_tick_rate, setup),
        cmocka_unit_test_setup(test_periodic, setup),
        cmocka_unit_test_setup(test_mode_switch_disarms, setup),
        cmocka_unit_test_setup(test_msi, setup),
        cmocka_unit_test_setup(test_extint_needs_unmasked_lvt0, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
