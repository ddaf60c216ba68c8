/* The MP table (vmm/loader/mptable.c) read back the way Linux's mpparse.c reads it: the floating
 * pointer found by its signature with length 1, spec 1.4 and a zero checksum; the table it
 * points at with "PCMP", a zero checksum over its length, the local APIC address and the
 * entries a one-processor PC has. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "boot/linux/linux_layout.h"
#include "vmm/loader/mptable.h"

static uint64_t get(const uint8_t *p, size_t off, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[off + i] << (8 * i);
    return v;
}

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s = (uint8_t)(s + *p++);
    return s;
}

static const struct mptable_cpu cpu = { 1, 0x00050654, 0x0FEBFBFF, 0xFEE00000 };

static void test_floating_pointer(void **state)
{
    uint8_t mem[LINUX_MPTABLE_ROOM];
    memset(mem, 0xEE, sizeof mem);
    size_t n = mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &cpu);
    assert_int_equal(n, MPTABLE_BYTES(1));
    assert_true(n <= LINUX_MPTABLE_ROOM);
    assert_memory_equal(mem, "_MP_", 4);
    assert_int_equal(get(mem, 4, 4), LINUX_MPTABLE_GPA + 16); /* physptr */
    assert_int_equal(mem[8], 1);                              /* length in paragraphs */
    assert_int_equal(mem[9], 4);                              /* spec 1.4 */
    assert_int_equal(sum(mem, 16), 0);
    assert_int_equal(mem[11], 0);        /* a table follows, no default config */
    assert_int_equal(mem[12] & 0x80, 0); /* virtual wire, no IMCR */
    assert_int_equal(mem[n], 0xEE);      /* nothing written past the table */
}

static void test_config_table(void **state)
{
    uint8_t mem[LINUX_MPTABLE_ROOM];
    size_t n = mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &cpu);
    const uint8_t *mpc = mem + (get(mem, 4, 4) - LINUX_MPTABLE_GPA);
    assert_memory_equal(mpc, "PCMP", 4);
    size_t len = get(mpc, 4, 2);
    assert_int_equal(16 + len, n);
    assert_int_equal(mpc[6], 4);
    assert_int_equal(sum(mpc, len), 0);
    assert_memory_equal(mpc + 8, "TESSERA ", 8);
    assert_int_equal(get(mpc, 34, 2), 4);          /* entries */
    assert_int_equal(get(mpc, 36, 4), 0xFEE00000); /* local APIC */
    assert_int_equal(get(mpc, 40, 2), 0);          /* no extended table */

    const uint8_t *e = mpc + 44;
    assert_int_equal(e[0], 0); /* processor */
    assert_int_equal(e[1], 0); /* APIC id */
    assert_int_equal(e[2], 0x14);
    assert_int_equal(e[3], 3); /* enabled, bootstrap */
    assert_int_equal(get(e, 4, 4), cpu.signature);
    assert_int_equal(get(e, 8, 4), cpu.features);
    e += 20;
    assert_int_equal(e[0], 1); /* bus 0, ISA */
    assert_int_equal(e[1], 0);
    assert_memory_equal(e + 2, "ISA   ", 6);
    e += 8;
    assert_int_equal(e[0], 4); /* ExtINT -> LINT0 */
    assert_int_equal(e[1], 3);
    assert_int_equal(e[6], 0xFF);
    assert_int_equal(e[7], 0);
    e += 8;
    assert_int_equal(e[0], 4); /* NMI -> LINT1 */
    assert_int_equal(e[1], 1);
    assert_int_equal(e[7], 1);
    e += 8;
    assert_ptr_equal(e, mpc + len);
    /* no I/O APIC entry (type 2) anywhere: Linux keeps the 8259 through LINT0 */
}

static void test_refusals(void **state)
{
    uint8_t mem[LINUX_MPTABLE_ROOM];
    assert_int_equal(mptable_build(mem, MPTABLE_BYTES(1) - 1, LINUX_MPTABLE_GPA, &cpu), 0);
    assert_int_equal(mptable_build(mem, sizeof mem, 0xFFFFFFC0ULL, &cpu), 0);
    assert_int_equal(mptable_build(mem, sizeof mem, 0x100000000ULL - MPTABLE_BYTES(1), &cpu),
                     MPTABLE_BYTES(1));
    assert_int_equal(mptable_build(NULL, sizeof mem, LINUX_MPTABLE_GPA, &cpu), 0);
    assert_int_equal(mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, NULL), 0);
    struct mptable_cpu none = cpu, too_many = cpu;
    none.count = 0;
    too_many.count = MPTABLE_MAX_CPUS + 1;
    assert_int_equal(mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &none), 0);
    assert_int_equal(mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &too_many), 0);
}

/* Several processors: an entry each, APIC IDs in order, only the first the bootstrap one; the
 * largest count still fits the KiB Linux scans. */
static void test_several_processors(void **state)
{
    uint8_t mem[LINUX_MPTABLE_ROOM];
    struct mptable_cpu three = cpu, most = cpu;
    three.count = 3;
    size_t n = mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &three);
    assert_int_equal(n, MPTABLE_BYTES(3));
    const uint8_t *mpc = mem + 16;
    size_t len = get(mpc, 4, 2);
    assert_int_equal(16 + len, n);
    assert_int_equal(sum(mpc, len), 0);
    assert_int_equal(get(mpc, 34, 2), 6); /* 3 processors, a bus, 2 local interrupts */
    for (unsigned i = 0; i < 3; i++) {
        const uint8_t *e = mpc + 44 + 20 * i;
        assert_int_equal(e[0], 0);
        assert_int_equal(e[1], i);
        assert_int_equal(e[3], i == 0 ? 3 : 1);
        assert_int_equal(get(e, 4, 4), cpu.signature);
    }
    assert_int_equal(mpc[44 + 60], 1); /* then the bus */
    most.count = MPTABLE_MAX_CPUS;
    assert_true(mptable_build(mem, sizeof mem, LINUX_MPTABLE_GPA, &most) > 0);
}

static void test_checksum(void **state)
{
    uint8_t b[4] = { 1, 2, 3, 0 };
    b[3] = mptable_checksum(b, 3);
    assert_int_equal(sum(b, 4), 0);
    uint8_t z[2] = { 0, 0 };
    assert_int_equal(mptable_checksum(z, 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floating_pointer), cmocka_unit_test(test_config_table),
        cmocka_unit_test(test_refusals),         cmocka_unit_test(test_several_processors),
        cmocka_unit_test(test_checksum),
    };
    return cmocka_run_group_tests_name("loader_mptable", tests, NULL, NULL);
}
