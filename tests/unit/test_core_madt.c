/* The ACPI MADT walk (boot/acpi_madt.c) on tables laid out as SeaBIOS (QEMU) and the Bochs BIOS
 * write them, on an ACPI 2.0 machine with x2APIC entries, and on malformed ones: wrong
 * checksums, truncated entries, lengths past the table, an RSDT that names no MADT, tables
 * that cannot be read.  Each must be refused with its reason.  Tables live in a fake physical
 * memory whose reads are bounded, and madt_parse() reads from the end of exactly-sized heap
 * buffers so AddressSanitizer reports a read past `len`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/acpi.h"
#include "boot/acpi_madt.h"
#include "boot/boot_info.h"

/* ---- fake physical memory: 64 KiB at 0xE0000 ---------------------------------------------- */

#define MEM_BASE 0xE0000ULL
#define MEM_SIZE 0x10000u
#define AT_RSDP  0x0000u
#define AT_ROOT  0x0100u
#define AT_FACP  0x0400u
#define AT_MADT  0x1000u

static uint8_t mem[MEM_SIZE];

static const void *mem_at(void *ctx, uint64_t phys, uint64_t len)
{
    (void)ctx;
    if (phys < MEM_BASE || len > MEM_SIZE || phys - MEM_BASE > MEM_SIZE - len)
        return NULL;
    return mem + (phys - MEM_BASE);
}

static const struct acpi_memory window = { mem_at, NULL };

static void wr16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}
static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s += *p++;
    return s;
}

/* A table header; the checksum is set by seal() once the body is written. */
static void header(uint8_t *t, const char *sig, uint32_t len)
{
    memset(t, 0, ACPI_HEADER_BYTES);
    memcpy(t, sig, 4);
    wr32(t + ACPI_HDR_LENGTH, len);
    t[8] = 1;
    memcpy(t + 10, "BOCHS ", 6);
}

static void seal(uint8_t *t)
{
    uint32_t len;
    memcpy(&len, t + ACPI_HDR_LENGTH, 4);
    t[ACPI_HDR_CHECKSUM] = 0;
    t[ACPI_HDR_CHECKSUM] = (uint8_t)-sum(t, len);
}

/* ---- a MADT builder ------------------------------------------------------------------------ */

struct madtb {
    uint8_t *t;
    uint32_t len;
};

static void m_init(struct madtb *b, uint8_t *where)
{
    b->t = where;
    b->len = ACPI_MADT_ENTRIES;
    header(b->t, ACPI_SIG_MADT, b->len);
    wr32(b->t + ACPI_MADT_LAPIC_ADDR, 0xFEE00000u);
    wr32(b->t + ACPI_MADT_FLAGS, 1);
}

static uint8_t *m_entry(struct madtb *b, uint8_t type, uint8_t len)
{
    uint8_t *e = b->t + b->len;
    memset(e, 0, len);
    e[0] = type;
    e[1] = len;
    b->len += len;
    return e;
}

static void m_lapic(struct madtb *b, uint8_t uid, uint8_t id, uint32_t flags)
{
    uint8_t *e = m_entry(b, ACPI_MADT_LAPIC, ACPI_MADT_LAPIC_BYTES);
    e[ACPI_MADT_LAPIC_UID] = uid;
    e[ACPI_MADT_LAPIC_ID] = id;
    wr32(e + ACPI_MADT_LAPIC_FLAGS, flags);
}

static void m_x2apic(struct madtb *b, uint32_t uid, uint32_t id, uint32_t flags)
{
    uint8_t *e = m_entry(b, ACPI_MADT_X2APIC, ACPI_MADT_X2APIC_BYTES);
    wr32(e + ACPI_MADT_X2APIC_ID, id);
    wr32(e + ACPI_MADT_X2APIC_FLAGS, flags);
    wr32(e + ACPI_MADT_X2APIC_UID, uid);
}

/* The I/O APIC (type 1, 12 bytes), interrupt source overrides (type 2, 10 bytes) and local
 * APIC NMI (type 4, 6 bytes) both BIOSes add: to be stepped over by their lengths. */
static void m_ioapic_and_overrides(struct madtb *b, bool nmi)
{
    uint8_t *io = m_entry(b, 1, 12);
    io[2] = 0;
    wr32(io + 4, 0xFEC00000u);
    static const uint8_t irqs[] = { 0, 5, 9, 10, 11 };
    for (unsigned i = 0; i < sizeof irqs; i++) {
        uint8_t *o = m_entry(b, 2, 10);
        o[3] = irqs[i];
        wr32(o + 4, irqs[i] ? irqs[i] : 2);
        wr16(o + 8, irqs[i] ? 0xD : 0);
    }
    if (nmi) {
        uint8_t *n = m_entry(b, 4, 6);
        n[2] = 0xFF;
        n[5] = 1;
    }
}

static void m_end(struct madtb *b)
{
    wr32(b->t + ACPI_HDR_LENGTH, b->len);
    seal(b->t);
}

/* ---- RSDP, RSDT and XSDT --------------------------------------------------------------------- */

/* SeaBIOS and the Bochs BIOS: an ACPI 1.0 RSDP naming an RSDT of FACP and MADT. */
static void acpi1(void)
{
    uint8_t *r = mem + AT_RSDP;
    memset(r, 0, ACPI_RSDP_BYTES);
    memcpy(r, ACPI_RSDP_SIGNATURE, 8);
    memcpy(r + 9, "BOCHS ", 6);
    wr32(r + ACPI_RSDP_RSDT, (uint32_t)(MEM_BASE + AT_ROOT));
    r[ACPI_RSDP_CHECKSUM] = (uint8_t)-sum(r, ACPI_RSDP_V1_BYTES);

    uint8_t *t = mem + AT_ROOT;
    header(t, ACPI_SIG_RSDT, ACPI_HEADER_BYTES + 8);
    wr32(t + ACPI_HEADER_BYTES, (uint32_t)(MEM_BASE + AT_FACP));
    wr32(t + ACPI_HEADER_BYTES + 4, (uint32_t)(MEM_BASE + AT_MADT));
    seal(t);
    header(mem + AT_FACP, "FACP", 116);
    seal(mem + AT_FACP);
}

/* ACPI 2.0: an RSDP of revision 2 whose XSDT names FACP and MADT by 64-bit address. */
static void acpi2(void)
{
    uint8_t *r = mem + AT_RSDP;
    memset(r, 0, ACPI_RSDP_BYTES);
    memcpy(r, ACPI_RSDP_SIGNATURE, 8);
    r[ACPI_RSDP_REVISION] = 2;
    wr32(r + ACPI_RSDP_LENGTH, ACPI_RSDP_BYTES);
    wr64(r + ACPI_RSDP_XSDT, MEM_BASE + AT_ROOT);
    r[ACPI_RSDP_CHECKSUM] = (uint8_t)-sum(r, ACPI_RSDP_V1_BYTES);
    r[32] = (uint8_t)-sum(r, ACPI_RSDP_BYTES);

    uint8_t *t = mem + AT_ROOT;
    header(t, ACPI_SIG_XSDT, ACPI_HEADER_BYTES + 16);
    wr64(t + ACPI_HEADER_BYTES, MEM_BASE + AT_FACP);
    wr64(t + ACPI_HEADER_BYTES + 8, MEM_BASE + AT_MADT);
    seal(t);
    header(mem + AT_FACP, "FACP", 276);
    seal(mem + AT_FACP);
}

static int find(struct madt_info *info, char *err, unsigned errlen)
{
    return madt_find(mem + AT_RSDP, ACPI_RSDP_BYTES, &window, info, err, errlen);
}

static int setup(void **state)
{
    (void)state;
    memset(mem, 0, sizeof mem);
    return 0;
}

/* madt_parse on an exactly-sized heap copy of the table at AT_MADT. */
static int parse_copy(uint32_t len, struct madt_info *info, char *err, unsigned errlen)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, mem + AT_MADT, len);
    int rc = madt_parse(copy, len, info, err, errlen);
    free(copy);
    return rc;
}

/* ---- valid tables --------------------------------------------------------------------------- */

/* QEMU -smp 2,maxcpus=4 under SeaBIOS: four local APICs, the last two not enabled (SeaBIOS
 * lists hot-pluggable CPUs with flags 0), then the I/O APIC, overrides and the LINT1 NMI. */
static void test_seabios_shape(void **state)
{
    (void)state;
    acpi1();
    struct madtb b;
    m_init(&b, mem + AT_MADT);
    m_lapic(&b, 0, 0, ACPI_MADT_ENABLED);
    m_lapic(&b, 1, 1, ACPI_MADT_ENABLED);
    m_lapic(&b, 2, 2, 0);
    m_lapic(&b, 3, 3, 0);
    m_ioapic_and_overrides(&b, true);
    m_end(&b);

    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), 0);
    assert_int_equal(info.lapic_addr, 0xFEE00000u);
    assert_int_equal(info.n_cpus, 2);
    assert_int_equal(info.n_absent, 2);
    assert_int_equal(info.n_ignored, 0);
    assert_int_equal(info.cpus[0].apic_id, 0);
    assert_int_equal(info.cpus[1].apic_id, 1);
    assert_int_equal(info.cpus[1].uid, 1);
    assert_true(info.cpus[1].enabled);
    assert_false(info.cpus[1].x2apic);
}

/* The Bochs BIOS (rombios32.c) with `cpu: count=4`: local APICs with processor UIDs equal to
 * their IDs, the I/O APIC after them, overrides and no NMI entry. */
static void test_bochs_bios_shape(void **state)
{
    (void)state;
    acpi1();
    struct madtb b;
    m_init(&b, mem + AT_MADT);
    for (uint8_t i = 0; i < 4; i++)
        m_lapic(&b, i, i, ACPI_MADT_ENABLED);
    m_ioapic_and_overrides(&b, false);
    m_end(&b);

    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), 0);
    assert_int_equal(info.n_cpus, 4);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(info.cpus[i].apic_id, i);
        assert_true(info.cpus[i].enabled);
    }
    /* The same table parsed directly, from an exactly-sized buffer. */
    assert_int_equal(parse_copy(b.len, &info, err, sizeof err), 0);
    assert_int_equal(info.n_cpus, 4);
}

/* ACPI 2.0 with x2APIC entries: IDs above 254, an online-capable CPU, one listed twice (as
 * local APIC and as x2APIC, which firmware may do for IDs below 255) counted once. */
static void test_xsdt_and_x2apic(void **state)
{
    (void)state;
    acpi2();
    struct madtb b;
    m_init(&b, mem + AT_MADT);
    m_lapic(&b, 0, 0, ACPI_MADT_ENABLED);
    m_x2apic(&b, 1, 0, ACPI_MADT_ENABLED);
    m_x2apic(&b, 2, 300, ACPI_MADT_ENABLED);
    m_x2apic(&b, 3, 301, ACPI_MADT_ONLINE_CAPABLE);
    m_x2apic(&b, 4, 302, 0);
    m_lapic(&b, 5, 0xFF, ACPI_MADT_ENABLED);
    m_ioapic_and_overrides(&b, true);
    m_end(&b);

    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), 0);
    assert_int_equal(info.n_cpus, 3);
    assert_int_equal(info.n_absent, 1);
    assert_int_equal(info.n_ignored, 2);
    assert_int_equal(info.cpus[1].apic_id, 300);
    assert_true(info.cpus[1].x2apic);
    assert_int_equal(info.cpus[1].uid, 2);
    assert_int_equal(info.cpus[2].apic_id, 301);
    assert_false(info.cpus[2].enabled);
}

/* An RSDP of revision 2 whose XSDT address is 0 falls back to the RSDT. */
static void test_revision2_without_xsdt(void **state)
{
    (void)state;
    acpi1();
    uint8_t *r = mem + AT_RSDP;
    r[ACPI_RSDP_REVISION] = 2;
    wr32(r + ACPI_RSDP_LENGTH, ACPI_RSDP_BYTES);
    r[ACPI_RSDP_CHECKSUM] = 0;
    r[ACPI_RSDP_CHECKSUM] = (uint8_t)-sum(r, ACPI_RSDP_V1_BYTES);
    r[32] = (uint8_t)-sum(r, ACPI_RSDP_BYTES);
    struct madtb b;
    m_init(&b, mem + AT_MADT);
    m_lapic(&b, 0, 0, ACPI_MADT_ENABLED);
    m_end(&b);

    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), 0);
    assert_int_equal(info.n_cpus, 1);
}

/* More processors than MADT_MAX_CPUS: the rest are counted, not stored. */
static void test_too_many_cpus_dropped(void **state)
{
    (void)state;
    acpi1();
    struct madtb b;
    m_init(&b, mem + AT_MADT);
    for (unsigned i = 0; i < MADT_MAX_CPUS + 3; i++)
        m_lapic(&b, (uint8_t)i, (uint8_t)i, ACPI_MADT_ENABLED);
    m_end(&b);
    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), 0);
    assert_int_equal(info.n_cpus, MADT_MAX_CPUS);
    assert_int_equal(info.dropped, 3);
}

/* ---- refused tables ------------------------------------------------------------------------- */

static void expect_refused(const char *reason)
{
    struct madt_info info;
    char err[160] = "";
    assert_int_equal(find(&info, err, sizeof err), -1);
    if (!strstr(err, reason))
        fail_msg("reason '%s' does not say '%s'", err, reason);
}

static void two_cpus(struct madtb *b)
{
    m_init(b, mem + AT_MADT);
    m_lapic(b, 0, 0, ACPI_MADT_ENABLED);
    m_lapic(b, 1, 1, ACPI_MADT_ENABLED);
    m_ioapic_and_overrides(b, true);
    m_end(b);
}

static void test_bad_checksums(void **state)
{
    (void)state;
    struct madtb b;
    acpi1();
    two_cpus(&b);
    mem[AT_MADT + ACPI_MADT_ENTRIES + ACPI_MADT_LAPIC_ID]++;
    expect_refused("MADT checksum");

    acpi1();
    two_cpus(&b);
    mem[AT_ROOT + ACPI_HDR_CHECKSUM]++;
    expect_refused("RSDT checksum");

    acpi1();
    mem[AT_RSDP + ACPI_RSDP_CHECKSUM]++;
    expect_refused("RSDP checksum");

    acpi2();
    two_cpus(&b);
    mem[AT_RSDP + 32]++;
    expect_refused("RSDP extended checksum");

    acpi1();
    memcpy(mem + AT_RSDP, "RSD PTX ", 8);
    expect_refused("signature");
}

/* An entry whose length reaches past the MADT's end, and one cut off after its type byte. */
static void test_entry_past_end(void **state)
{
    (void)state;
    struct madtb b;
    acpi1();
    m_init(&b, mem + AT_MADT);
    m_lapic(&b, 0, 0, ACPI_MADT_ENABLED);
    uint8_t *e = m_entry(&b, 1, 12);
    b.len -= 4;
    (void)e;
    m_end(&b);
    expect_refused("runs past the table's end");

    acpi1();
    m_init(&b, mem + AT_MADT);
    m_lapic(&b, 0, 0, ACPI_MADT_ENABLED);
    m_entry(&b, 1, 12);
    b.len -= 11;
    m_end(&b);
    expect_refused("cut off");
}

static void test_entry_lengths(void **state)
{
    (void)state;
    struct madtb b;
    acpi1();
    m_init(&b, mem + AT_MADT);
    m_entry(&b, 1, 1);
    b.len += 11;
    m_end(&b);
    expect_refused("has length 1");

    acpi1();
    m_init(&b, mem + AT_MADT);
    m_entry(&b, ACPI_MADT_LAPIC, 6);
    m_end(&b);
    expect_refused("local APIC entry at offset 44 has 6 bytes");

    acpi1();
    m_init(&b, mem + AT_MADT);
    m_entry(&b, ACPI_MADT_X2APIC, 12);
    m_end(&b);
    expect_refused("local x2APIC entry at offset 44 has 12 bytes");
}

/* Header lengths that do not fit: the MADT's beyond what can be read, shorter than its fixed
 * part, and a root table whose length is not whole entries. */
static void test_table_lengths(void **state)
{
    (void)state;
    struct madtb b;
    acpi1();
    two_cpus(&b);
    wr32(mem + AT_MADT + ACPI_HDR_LENGTH, MEM_SIZE);
    expect_refused("cannot be read");

    acpi1();
    two_cpus(&b);
    wr32(mem + AT_MADT + ACPI_HDR_LENGTH, 40);
    seal(mem + AT_MADT);
    expect_refused("MADT of 40 bytes is shorter than its 44-byte header");

    acpi1();
    two_cpus(&b);
    wr32(mem + AT_MADT + ACPI_HDR_LENGTH, ACPI_TABLE_MAX + 1);
    expect_refused("has length");

    acpi1();
    two_cpus(&b);
    wr32(mem + AT_ROOT + ACPI_HDR_LENGTH, ACPI_HEADER_BYTES + 6);
    seal(mem + AT_ROOT);
    expect_refused("whole 4-byte entries");
}

static void test_no_madt_or_unreadable_root(void **state)
{
    (void)state;
    acpi1();
    wr32(mem + AT_ROOT + ACPI_HDR_LENGTH, ACPI_HEADER_BYTES + 4);
    seal(mem + AT_ROOT);
    expect_refused("no MADT ('APIC') among the 1 tables of the RSDT");

    acpi1();
    uint8_t *r = mem + AT_RSDP;
    wr32(r + ACPI_RSDP_RSDT, 0x1000);
    r[ACPI_RSDP_CHECKSUM] = 0;
    r[ACPI_RSDP_CHECKSUM] = (uint8_t)-sum(r, ACPI_RSDP_V1_BYTES);
    expect_refused("RSDT at 0x1000 cannot be read");

    acpi1();
    memcpy(mem + AT_ROOT, "XSDT", 4);
    seal(mem + AT_ROOT);
    expect_refused("another signature");
}

/* madt_parse alone on every prefix of a valid table whose header claims the full length:
 * each is refused, and none is read past (the buffer is exactly the prefix). */
static void test_every_prefix_refused(void **state)
{
    (void)state;
    struct madtb b;
    two_cpus(&b);
    struct madt_info info;
    char err[160];
    for (uint32_t len = 0; len < b.len; len++)
        assert_int_equal(parse_copy(len, &info, err, sizeof err), -1);
    assert_int_equal(parse_copy(b.len, &info, err, sizeof err), 0);
}

/* ---- the RSDP in the BIOS area ----------------------------------------------------------- */

static void test_rsdp_scan(void **state)
{
    (void)state;
    acpi1();
    uint8_t area[256];
    memset(area, 0, sizeof area);
    memcpy(area + 3, ACPI_RSDP_SIGNATURE, 8);  /* unaligned: not an RSDP */
    memcpy(area + 32, ACPI_RSDP_SIGNATURE, 8); /* aligned, bad checksum */
    memcpy(area + 96, mem + AT_RSDP, ACPI_RSDP_V1_BYTES);
    uint64_t off = 0;
    assert_true(acpi_rsdp_scan(area, sizeof area, &off));
    assert_int_equal(off, 96);
    assert_false(acpi_rsdp_scan(area, 96 + ACPI_RSDP_V1_BYTES - 1, &off));
    char err[96];
    assert_int_equal(acpi_rsdp_check(area + 96, 19, err, sizeof err), -1);
    assert_non_null(strstr(err, "shorter"));
}

/* ---- a page below 1 MiB for the trampoline ----------------------------------------------- */

static void test_low_page(void **state)
{
    (void)state;
    struct boot_info bi;
    memset(&bi, 0, sizeof bi);
    bi.mem[bi.n_mem++] = (struct boot_mem_region){ 0, 0x9FC00, BOOT_MEM_USABLE };
    bi.mem[bi.n_mem++] = (struct boot_mem_region){ 0x9FC00, 0x400, BOOT_MEM_RESERVED };
    bi.mem[bi.n_mem++] = (struct boot_mem_region){ 0x100000, 0x1000000, BOOT_MEM_USABLE };
    uint64_t page = 0;
    assert_true(boot_find_low_page(&bi, 0x1000, 0x9F000, &page));
    assert_int_equal(page, 0x9E000);
    /* A module over the top pages pushes it down; a reserved region inside usable RAM too. */
    bi.modules[bi.n_modules++] = (struct boot_module){ 0x9D800, 0x9F000, "m" };
    bi.mem[bi.n_mem++] = (struct boot_mem_region){ 0x9C000, 0x10, BOOT_MEM_RESERVED };
    assert_true(boot_find_low_page(&bi, 0x1000, 0x9F000, &page));
    assert_int_equal(page, 0x9B000);
    /* A machine whose firmware leaves nothing usable below 1 MiB. */
    bi.mem[0].type = BOOT_MEM_RESERVED;
    assert_false(boot_find_low_page(&bi, 0x1000, 0x9F000, &page));
    bi.mem[0] = (struct boot_mem_region){ 0, 0x1800, BOOT_MEM_USABLE };
    assert_false(boot_find_low_page(&bi, 0x1000, 0x9F000, &page));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_seabios_shape, setup),
        cmocka_unit_test_setup(test_bochs_bios_shape, setup),
        cmocka_unit_test_setup(test_xsdt_and_x2apic, setup),
        cmocka_unit_test_setup(test_revision2_without_xsdt, setup),
        cmocka_unit_test_setup(test_too_many_cpus_dropped, setup),
        cmocka_unit_test_setup(test_bad_checksums, setup),
        cmocka_unit_test_setup(test_entry_past_end, setup),
        cmocka_unit_test_setup(test_entry_lengths, setup),
        cmocka_unit_test_setup(test_table_lengths, setup),
        cmocka_unit_test_setup(test_no_madt_or_unreadable_root, setup),
        cmocka_unit_test_setup(test_every_prefix_refused, setup),
        cmocka_unit_test_setup(test_rsdp_scan, setup),
        cmocka_unit_test_setup(test_low_page, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
