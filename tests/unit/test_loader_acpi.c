/* The ACPI tables (vmm/loader/acpi_tables.c) read back the way Linux's ACPICA finds them: the
 * RSDP's two checksums and its XSDT, every table's signature, length and zero checksum, a FADT
 * that is NOT hardware-reduced (Linux would drop the 8259 otherwise) with the PM1 blocks, the
 * PM timer, the SCI, SMI_CMD 0, the reset register and its FACS and DSDT, the \_S5 package in
 * the DSDT's AML, and a MADT with an enabled local APIC per vCPU, their NMI on LINT1, and no I/O
 * APIC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "vmm/loader/acpi_tables.h"
#include "boot/acpi_madt.h"
#include "boot/linux/linux_layout.h"

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

static uint8_t mem[LINUX_ACPI_ROOM];
static const struct acpi_platform plat = {
    .lapic_base = 0xFEE00000,
    .cpus = 1,
    .reset_port = 0xCF9,
    .reset_value = 0x06,
    .sci_irq = 9,
    .pm1_evt_port = 0x600,
    .pm1_cnt_port = 0x604,
    .pm_tmr_port = 0x608,
    .s5_slp_typ = 5,
};

/* A Generic Address Structure: system I/O, `bits` wide, at `port`. */
static void assert_gas_io(const uint8_t *gas, unsigned bits, uint64_t port)
{
    assert_int_equal(gas[0], 1);
    assert_int_equal(gas[1], bits);
    assert_int_equal(get(gas, 4, 8), port);
}

/* The table at guest address gpa, checked: signature, length, checksum. */
static const uint8_t *table(uint64_t gpa, const char *sig)
{
    assert_true(gpa >= LINUX_ACPI_GPA && gpa < LINUX_ACPI_GPA + ACPI_TABLES_BYTES);
    const uint8_t *t = mem + (gpa - LINUX_ACPI_GPA);
    assert_memory_equal(t, sig, 4);
    uint32_t len = (uint32_t)get(t, 4, 4);
    assert_true(len >= ACPI_HEADER_BYTES && gpa + len <= LINUX_ACPI_GPA + ACPI_TABLES_BYTES);
    assert_int_equal(sum(t, len), 0);
    assert_memory_equal(t + 10, "TESSER", 6);
    return t;
}

static void test_tables(void **state)
{
    memset(mem, 0xEE, sizeof mem);
    assert_int_equal(acpi_tables_build(mem, sizeof mem, LINUX_ACPI_GPA, &plat), ACPI_TABLES_BYTES);
    assert_int_equal(mem[ACPI_TABLES_BYTES], 0xEE);

    /* RSDP: "RSD PTR ", checksum of the first 20 bytes, revision 2, XSDT, extended checksum */
    assert_memory_equal(mem, "RSD PTR ", 8);
    assert_int_equal(sum(mem, 20), 0);
    assert_int_equal(sum(mem, 36), 0);
    assert_int_equal(mem[15], 2);
    assert_int_equal(get(mem, 20, 4), 36);
    const uint8_t *xsdt = table(get(mem, 24, 8), "XSDT");
    assert_int_equal(get(xsdt, 4, 4), 36 + 16);

    const uint8_t *fadt = table(get(xsdt, 36, 8), "FACP");
    assert_int_equal(get(fadt, 4, 4), 276);
    assert_int_equal(fadt[8], 6); /* revision */
    uint32_t flags = (uint32_t)get(fadt, 112, 4);
    assert_false(flags & (1u << 20));    /* not HW_REDUCED_ACPI */
    assert_true(flags & (1u << 10));     /* RESET_REG_SUP */
    assert_true(flags & (1u << 8));      /* TMR_VAL_EXT: 32-bit PM timer */
    assert_true(flags & (1u << 0));      /* WBINVD */
    assert_gas_io(fadt + 116, 8, 0xCF9); /* reset register */
    assert_int_equal(fadt[128], 0x06);
    assert_int_equal(get(fadt, 46, 2), 9);     /* SCI on ISA IRQ 9 */
    assert_int_equal(get(fadt, 48, 4), 0);     /* SMI_CMD 0: always ACPI mode */
    assert_int_equal(get(fadt, 56, 4), 0x600); /* PM1a_EVT_BLK */
    assert_int_equal(get(fadt, 64, 4), 0x604); /* PM1a_CNT_BLK */
    assert_int_equal(get(fadt, 76, 4), 0x608); /* PM_TMR_BLK */
    assert_int_equal(fadt[88], 4);
    assert_int_equal(fadt[89], 2);
    assert_int_equal(fadt[91], 4);
    assert_gas_io(fadt + 148, 32, 0x600);                           /* X_PM1a_EVT_BLK */
    assert_gas_io(fadt + 172, 16, 0x604);                           /* X_PM1a_CNT_BLK */
    assert_gas_io(fadt + 208, 32, 0x608);                           /* X_PM_TMR_BLK */
    assert_true(get(fadt, 96, 2) > 100 && get(fadt, 98, 2) > 1000); /* no C2, no C3 */
    uint32_t iapc = (uint32_t)get(fadt, 109, 2);
    assert_int_equal(iapc & 1, 1);                         /* legacy devices (the UART) */
    assert_int_equal(iapc & 2, 0);                         /* no 8042 */
    assert_true(iapc & (1u << 5));                         /* no CMOS clock */
    assert_int_equal(get(fadt, 40, 4), get(fadt, 140, 8)); /* DSDT and X_DSDT agree */
    assert_int_equal(get(fadt, 36, 4), 0);                 /* FIRMWARE_CTRL 0: X_FIRMWARE_CTRL */
    const uint8_t *facs = mem + (get(fadt, 132, 8) - LINUX_ACPI_GPA);
    assert_memory_equal(facs, "FACS", 4);
    assert_int_equal(get(facs, 4, 4), 64);
    assert_int_equal(get(fadt, 132, 8) % 64, 0);
    const uint8_t *dsdt = table(get(fadt, 140, 8), "DSDT");
    /* Name (_S5, Package (4) { 5, 5, 0, 0 }) */
    const uint8_t s5[] = {
        0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0A, 5, 0x0A, 5, 0x00, 0x00
    };
    assert_int_equal(get(dsdt, 4, 4), 36 + sizeof s5);
    assert_memory_equal(dsdt + 36, s5, sizeof s5);

    const uint8_t *madt = table(get(xsdt, 44, 8), "APIC");
    assert_int_equal(get(madt, 36, 4), 0xFEE00000);
    assert_int_equal(get(madt, 40, 4), 1); /* PCAT_COMPAT: the 8259s */
    uint32_t len = (uint32_t)get(madt, 4, 4);
    unsigned lapics = 0, nmis = 0;
    for (uint32_t off = 44; off < len; off += madt[off + 1]) {
        assert_true(madt[off + 1] >= 2);
        switch (madt[off]) {
        case 0:
            lapics++;
            assert_int_equal(madt[off + 3], 0);             /* APIC id */
            assert_int_equal(get(madt, off + 4, 4) & 1, 1); /* enabled */
            break;
        case 4:
            nmis++;
            assert_int_equal(madt[off + 5], 1); /* LINT1 */
            break;
        default:
            fail_msg("MADT entry type %u (an I/O APIC is type 1)", madt[off]);
        }
    }
    assert_int_equal(lapics, 1);
    assert_int_equal(nmis, 1);
}

static const void *guest_memory(void *ctx, uint64_t phys, uint64_t len)
{
    (void)ctx;
    if (phys < LINUX_ACPI_GPA || phys + len > LINUX_ACPI_GPA + sizeof mem)
        return NULL;
    return mem + (phys - LINUX_ACPI_GPA);
}

/* A guest with several vCPUs, read back by the code that reads the real machine's firmware
 * (boot/acpi_madt.c): one enabled local APIC per vCPU, IDs and UIDs in order, and the largest
 * count that fits still fits. */
static void test_madt_of_several_vcpus(void **state)
{
    const struct acpi_memory window = { guest_memory, NULL };
    static const unsigned counts[] = { 1, 3, ACPI_MAX_CPUS };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        struct acpi_platform p = plat;
        p.cpus = (uint8_t)counts[k];
        assert_int_equal(acpi_tables_build(mem, sizeof mem, LINUX_ACPI_GPA, &p), ACPI_TABLES_BYTES);
        static struct madt_info info;
        char err[120] = "";
        assert_int_equal(madt_find(mem, ACPI_RSDP_BYTES, &window, &info, err, sizeof err), 0);
        assert_int_equal(info.lapic_addr, 0xFEE00000);
        assert_int_equal(info.n_cpus, counts[k]);
        assert_int_equal(info.n_ignored + info.n_absent + info.dropped, 0);
        for (unsigned i = 0; i < info.n_cpus; i++) {
            assert_int_equal(info.cpus[i].apic_id, i);
            assert_int_equal(info.cpus[i].uid, i);
            assert_true(info.cpus[i].enabled);
            assert_false(info.cpus[i].x2apic);
        }
    }
}

static void test_refusals(void **state)
{
    struct acpi_platform none = plat, too_many = plat;
    none.cpus = 0;
    too_many.cpus = ACPI_MAX_CPUS + 1;
    assert_int_equal(acpi_tables_build(mem, sizeof mem, LINUX_ACPI_GPA, &none), 0);
    assert_int_equal(acpi_tables_build(mem, sizeof mem, LINUX_ACPI_GPA, &too_many), 0);
    assert_int_equal(acpi_tables_build(mem, ACPI_TABLES_BYTES - 1, LINUX_ACPI_GPA, &plat), 0);
    assert_int_equal(acpi_tables_build(mem, sizeof mem, LINUX_ACPI_GPA + 8, &plat),
                     0); /* not 16-aligned */
    assert_int_equal(acpi_tables_build(mem, sizeof mem, 0xFFFFFF00ULL, &plat), 0);
    assert_int_equal(acpi_tables_build(NULL, sizeof mem, LINUX_ACPI_GPA, &plat), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_madt_of_several_vcpus),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests_name("loader_acpi", tests, NULL, NULL);
}
