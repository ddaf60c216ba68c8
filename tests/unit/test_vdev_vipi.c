/* IPIs among a guest's vCPUs (vmm/vdev/vipi.c): destinations (physical, logical, broadcast,
 * shorthands), fixed and lowest-priority delivery, the shorthand/mode combinations the SDM
 * allows, and the INIT/STARTUP state machine of an application processor.  ICR values are
 * written out as the SDM's Figure 11-12 gives them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vdev/vipi.h"

#define M_EOI 0x80Bu
#define M_ICR 0x830u
#define N     3u

static struct vlapic apic[N];
static struct vipi_cpu cpu[N];
static struct vipi_cpu *cpus[N];

static int setup(void **state)
{
    (void)state;
    for (unsigned i = 0; i < N; i++) {
        vlapic_reset(&apic[i], 1);
        vlapic_set_id(&apic[i], i);
        cpu[i].lapic = &apic[i];
        vipi_cpu_reset(&cpu[i], i);
        cpus[i] = &cpu[i];
    }
    return 0;
}

/* vCPU `from` writes `icr` to its ICR; returns whom the router says to kick. */
static uint64_t send(unsigned from, uint64_t icr)
{
    assert_int_equal(vlapic_wrmsr(&apic[from], M_ICR, icr, 0), VLAPIC_IPI_SENT);
    return vipi_route(cpus, N, from, &apic[from].ipi);
}

/* Which vCPUs have `vector` requested, as a mask; each takes it and ends it (EOI). */
static uint64_t raised(uint8_t vector)
{
    uint64_t set = 0;
    for (unsigned i = 0; i < N; i++)
        if (vlapic_pending(&apic[i]) == vector) {
            vlapic_ack(&apic[i], vector);
            assert_int_equal(vlapic_wrmsr(&apic[i], M_EOI, 0, 0), VLAPIC_OK);
            set |= 1ull << i;
        }
    return set;
}

static void test_fixed_destinations(void **state)
{
    (void)state;
    struct {
        unsigned from;
        uint64_t icr, reaches;
    } cases[] = {
        { 1, 0x0000000000040040ull, 0x2 }, /* shorthand self */
        { 1, 0x0000000000080041ull, 0x7 }, /* all including self */
        { 1, 0x00000000000C0042ull, 0x5 }, /* all excluding self */
        { 0, 0x0000000200000043ull, 0x4 }, /* physical 2 */
        { 0, 0x0000000700000044ull, 0x0 }, /* physical 7: nobody */
        { 2, 0xFFFFFFFF00000045ull, 0x7 }, /* broadcast */
        { 0, 0x0000000600000846ull, 0x6 }, /* logical cluster 0, bits 1 and 2 */
        { 0, 0x0001000100000847ull, 0x0 }, /* logical cluster 1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t vec = (uint8_t)cases[i].icr;
        assert_int_equal(send(cases[i].from, cases[i].icr), cases[i].reaches);
        assert_int_equal(raised(vec), cases[i].reaches);
    }
}

/* Lowest priority reaches one of its destinations; an illegal vector is an error at both ends. */
static void test_lowest_priority_and_illegal_vector(void **state)
{
    (void)state;
    assert_int_equal(send(0, 0x0000000600000948ull), 0x2);
    assert_int_equal(raised(0x48), 0x2);
    send(0, 0x0000000100000005ull);
    assert_int_equal(apic[1].esr_pending, 0x40); /* receive illegal vector */
    assert_int_equal(apic[0].esr_pending, 0x20); /* send illegal vector */
    assert_int_equal(raised(0x05), 0);
}

/* Self and all-including-self take fixed IPIs only; NMI and SMI are not modelled.  Each is
 * counted where it arrived and changes nothing. */
static void test_ignored_ipis(void **state)
{
    (void)state;
    assert_int_equal(send(1, 0x0000000000040500ull), 0); /* INIT to self */
    assert_int_equal(send(0, 0x0000000000080600ull), 0); /* STARTUP to all including self */
    assert_int_equal(send(0, 0x0000000000080149ull), 0); /* lowest priority to all incl. self */
    assert_int_equal(send(0, 0x0000000100000400ull), 0); /* NMI */
    assert_int_equal(send(0, 0x0000000200000200ull), 0); /* SMI */
    assert_int_equal(apic[0].ignored_ipis, 2);
    assert_int_equal(apic[1].ignored_ipis, 4);
    assert_int_equal(apic[2].ignored_ipis, 3);
    assert_int_equal(raised(0x49), 0);
    for (unsigned i = 0; i < N; i++) {
        assert_false(cpu[i].init_reset);
        assert_false(cpu[i].sipi_start);
    }
    assert_int_equal(cpu[1].mp, VIPI_WAIT_FOR_SIPI);
}

/* Linux's wakeup_secondary_cpu_via_init(): INIT assert, INIT de-assert, then two STARTUPs. */
static void test_init_startup_startup(void **state)
{
    (void)state;
    assert_int_equal(cpu[0].mp, VIPI_RUNNABLE);
    assert_true(cpu[0].bsp);
    assert_int_equal(cpu[2].mp, VIPI_WAIT_FOR_SIPI);
    assert_false(cpu[2].bsp);

    assert_int_equal(send(0, 0x000000020000C500ull), 0x4); /* INIT, level assert */
    assert_true(cpu[2].init_reset);
    assert_int_equal(cpu[2].mp, VIPI_WAIT_FOR_SIPI);
    cpu[2].init_reset = false;
    assert_int_equal(send(0, 0x0000000200008500ull), 0); /* INIT level de-assert */
    assert_false(cpu[2].init_reset);

    assert_int_equal(send(0, 0x000000020000069Aull), 0x4); /* STARTUP, vector 0x9A */
    assert_true(cpu[2].sipi_start);
    assert_int_equal(cpu[2].sipi_vector, 0x9A);
    assert_int_equal(cpu[2].mp, VIPI_RUNNABLE);
    cpu[2].sipi_start = false;
    assert_int_equal(send(0, 0x000000020000069Aull), 0); /* the second: dropped */
    assert_false(cpu[2].sipi_start);
    assert_int_equal(cpu[1].mp, VIPI_WAIT_FOR_SIPI); /* nothing reached vCPU 1 */
    assert_int_equal(apic[2].ignored_ipis, 0);
}

/* INIT resets a running AP's APIC (its ID kept) and sends it back to wait; a STARTUP pending
 * when the INIT arrives is lost.  INIT to the BSP is counted and ignored. */
static void test_init_of_a_running_ap_and_of_the_bsp(void **state)
{
    (void)state;
    send(0, 0x0000000100000610ull); /* STARTUP vCPU 1 at 0x10000 */
    assert_true(cpu[1].sipi_start);
    vlapic_accept(&apic[1], 0x50);
    assert_int_equal(send(2, 0x0000000100000500ull), 0x2); /* INIT, edge */
    assert_true(cpu[1].init_reset);
    assert_false(cpu[1].sipi_start);
    assert_int_equal(cpu[1].mp, VIPI_WAIT_FOR_SIPI);
    assert_int_equal(vlapic_pending(&apic[1]), -1);
    assert_int_equal(apic[1].id, 1);

    assert_int_equal(send(1, 0x0000000000000500ull), 0); /* INIT to the BSP */
    assert_false(cpu[0].init_reset);
    assert_int_equal(cpu[0].mp, VIPI_RUNNABLE);
    assert_int_equal(apic[0].ignored_ipis, 1);
    assert_int_equal(send(1, 0x0000000000000610ull), 0); /* STARTUP to the running BSP */
    assert_false(cpu[0].sipi_start);

    /* all excluding self: every AP, the BSP ignoring it */
    assert_int_equal(send(0, 0x00000000000C0500ull), 0x6);
    assert_int_equal(send(0, 0x00000000000C0620ull), 0x6);
    assert_int_equal(cpu[1].sipi_vector, 0x20);
    assert_int_equal(cpu[2].sipi_vector, 0x20);
}

/* A sender outside the set routes nothing. */
static void test_sender_outside_the_guest(void **state)
{
    (void)state;
    assert_int_equal(vlapic_wrmsr(&apic[0], M_ICR, 0xFFFFFFFF00000045ull, 0), VLAPIC_IPI_SENT);
    assert_int_equal(vipi_route(cpus, N, N, &apic[0].ipi), 0);
    assert_int_equal(raised(0x45), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fixed_destinations, setup),
        cmocka_unit_test_setup(test_lowest_priority_and_illegal_vector, setup),
        cmocka_unit_test_setup(test_ignored_ipis, setup),
        cmocka_unit_test_setup(test_init_startup_startup, setup),
        cmocka_unit_test_setup(test_init_of_a_running_ap_and_of_the_bsp, setup),
        cmocka_unit_test_setup(test_sender_outside_the_guest, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
