/* The guest's ACPI tables (acpi_tables.h; ACPI 6.4 chapter 5). */
#include "vmm/loader/acpi_tables.h"

#include <string.h>

#define OEM_ID        "TESSER"   /* 6 bytes */
#define OEM_TABLE_ID  "TESSERA " /* 8 bytes */
#define CREATOR_ID    "TSRA"
#define XSDT_REVISION 1u
#define DSDT_REVISION 2u
#define RSDP_REVISION 2u /* ACPI 2.0+: XSDT address and extended checksum */

/* Header fields, §5.2.6 Table 5.4 */
#define HDR_REVISION    8
#define HDR_OEM_ID      10
#define HDR_OEM_TABLE   16
#define HDR_OEM_REV     24
#define HDR_CREATOR     28
#define HDR_CREATOR_REV 32
/* RSDP fields, §5.2.5.3 Table 5.3 */
#define RSDP_OEM_ID       9
#define RSDP_EXT_CHECKSUM 32
/* FADT fields, §5.2.9 Table 5.9 */
#define FADT_DSDT           40
#define FADT_SCI_INT        46
#define FADT_SMI_CMD        48
#define FADT_PM1A_EVT       56
#define FADT_PM1A_CNT       64
#define FADT_PM_TMR         76
#define FADT_PM1_EVT_LEN    88
#define FADT_PM1_CNT_LEN    89
#define FADT_PM_TMR_LEN     91
#define FADT_P_LVL2_LAT     96
#define FADT_P_LVL3_LAT     98
#define FADT_IAPC_BOOT_ARCH 109
#define FADT_FLAGS          112
#define FADT_RESET_REG      116
#define FADT_RESET_VALUE    128
#define FADT_MINOR          131
#define FADT_X_FACS         132
#define FADT_X_DSDT         140
#define FADT_X_PM1A_EVT     148
#define FADT_X_PM1A_CNT     172
#define FADT_X_PM_TMR       208
/* FACS fields, §5.2.10 Table 5.14 */
#define FACS_LENGTH  4
#define FACS_VERSION 32
/* AML (§20): Name (_S5, Package (4) { S5, S5, Zero, Zero }) -- NameOp, the name, PackageOp,
 * PkgLength (8 bytes from itself to the end), NumElements 4, BytePrefix S5 twice, ZeroOp twice.
 * Linux reads it in acpi_sleep_init (acpi_get_sleep_type_data) and powers off by writing
 * SLP_TYP = element 0 with SLP_EN to PM1a_CNT. */
#define AML_NAME_OP     0x08
#define AML_PACKAGE_OP  0x12
#define AML_BYTE_PREFIX 0x0A
#define AML_ZERO_OP     0x00
#define DSDT_AML_BYTES  14u
/* MADT fields, §5.2.12 Table 5.43 */
#define MADT_NMI_BYTES      6u
#define MADT_ALL_PROCESSORS 0xFFu /* Local APIC NMI: every processor */
#define LINT1               1u

/* Where each piece goes in the buffer (16-byte aligned; the FACS 64-byte aligned). */
#define OFF_RSDP      0x000u
#define OFF_FACS      0x040u
#define OFF_XSDT      0x080u
#define OFF_FADT      0x0C0u
#define OFF_DSDT      0x1E0u
#define OFF_MADT      0x220u
#define XSDT_BYTES    (ACPI_HEADER_BYTES + 2 * 8u)
#define DSDT_BYTES    (ACPI_HEADER_BYTES + DSDT_AML_BYTES)
#define MADT_BYTES(n) (ACPI_MADT_ENTRIES + (n)*ACPI_MADT_LAPIC_BYTES + MADT_NMI_BYTES)

_Static_assert(OFF_FACS >= OFF_RSDP + ACPI_RSDP_BYTES && OFF_FACS % 64 == 0 &&
                   OFF_XSDT >= OFF_FACS + ACPI_FACS_BYTES && OFF_FADT >= OFF_XSDT + XSDT_BYTES &&
                   OFF_DSDT >= OFF_FADT + ACPI_FADT_BYTES && OFF_MADT >= OFF_DSDT + DSDT_BYTES &&
                   OFF_MADT + MADT_BYTES(ACPI_MAX_CPUS) <= ACPI_TABLES_BYTES,
               "ACPI tables overlap");

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}
static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

uint8_t acpi_checksum(const uint8_t *p, size_t len)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + p[i]);
    return (uint8_t)(0x100 - sum);
}

static void header(uint8_t *t, const char *sig, uint32_t len, uint8_t rev)
{
    memcpy(t, sig, 4);
    put32(t + ACPI_HDR_LENGTH, len);
    t[HDR_REVISION] = rev;
    memcpy(t + HDR_OEM_ID, OEM_ID, 6);
    memcpy(t + HDR_OEM_TABLE, OEM_TABLE_ID, 8);
    put32(t + HDR_OEM_REV, 1);
    memcpy(t + HDR_CREATOR, CREATOR_ID, 4);
    put32(t + HDR_CREATOR_REV, 1);
}

static void seal(uint8_t *t, uint32_t len)
{
    t[ACPI_HDR_CHECKSUM] = acpi_checksum(t, len);
}

/* A Generic Address Structure (§5.2.3.2) for `bytes` bytes of system I/O at `port`. */
static void gas_io(uint8_t *gas, uint16_t port, unsigned bytes, unsigned access_size)
{
    gas[0] = ACPI_GAS_SYSTEM_IO;
    gas[1] = (uint8_t)(8 * bytes); /* register width in bits */
    gas[2] = 0;                    /* bit offset */
    gas[3] = (uint8_t)access_size; /* 1 byte, 2 word, 3 dword */
    put64(gas + 4, port);
}

size_t acpi_tables_build(uint8_t *buf, size_t len, uint64_t gpa, const struct acpi_platform *p)
{
    if (!buf || !p || len < ACPI_TABLES_BYTES || (gpa & 0xF) ||
        gpa + ACPI_TABLES_BYTES > (uint64_t)UINT32_MAX + 1 || !p->cpus || p->cpus > ACPI_MAX_CPUS)
        return 0;
    memset(buf, 0, ACPI_TABLES_BYTES);

    uint8_t *facs = buf + OFF_FACS; /* no waking vector, no global lock owner */
    memcpy(facs, "FACS", 4);
    put32(facs + FACS_LENGTH, ACPI_FACS_BYTES);
    facs[FACS_VERSION] = ACPI_FACS_VERSION;

    uint8_t *dsdt = buf + OFF_DSDT;
    header(dsdt, "DSDT", DSDT_BYTES, DSDT_REVISION);
    const uint8_t aml[DSDT_AML_BYTES] = {
        AML_NAME_OP,
        '_',
        'S',
        '5',
        '_',
        AML_PACKAGE_OP,
        8,
        4,
        AML_BYTE_PREFIX,
        p->s5_slp_typ,
        AML_BYTE_PREFIX,
        p->s5_slp_typ,
        AML_ZERO_OP,
        AML_ZERO_OP,
    };
    memcpy(dsdt + ACPI_HEADER_BYTES, aml, sizeof aml);
    seal(dsdt, DSDT_BYTES);

    uint8_t *fadt = buf + OFF_FADT;
    header(fadt, "FACP", ACPI_FADT_BYTES, ACPI_FADT_REVISION);
    put64(fadt + FADT_X_FACS, gpa + OFF_FACS); /* FIRMWARE_CTRL stays 0: X_FIRMWARE_CTRL rules */
    put32(fadt + FADT_DSDT, (uint32_t)(gpa + OFF_DSDT));
    put64(fadt + FADT_X_DSDT, gpa + OFF_DSDT);
    put16(fadt + FADT_SCI_INT, p->sci_irq);
    put32(fadt + FADT_SMI_CMD, 0); /* always in ACPI mode: no SMI to switch */
    put32(fadt + FADT_PM1A_EVT, p->pm1_evt_port);
    put32(fadt + FADT_PM1A_CNT, p->pm1_cnt_port);
    put32(fadt + FADT_PM_TMR, p->pm_tmr_port);
    fadt[FADT_PM1_EVT_LEN] = 4; /* PM1_STS and PM1_EN, two bytes each */
    fadt[FADT_PM1_CNT_LEN] = 2;
    fadt[FADT_PM_TMR_LEN] = 4;
    gas_io(fadt + FADT_X_PM1A_EVT, p->pm1_evt_port, 4, 2);
    gas_io(fadt + FADT_X_PM1A_CNT, p->pm1_cnt_port, 2, 2);
    gas_io(fadt + FADT_X_PM_TMR, p->pm_tmr_port, 4, 3);
    put16(fadt + FADT_P_LVL2_LAT, ACPI_C2_DISABLED_LATENCY);
    put16(fadt + FADT_P_LVL3_LAT, ACPI_C3_DISABLED_LATENCY);
    put16(fadt + FADT_IAPC_BOOT_ARCH,
          ACPI_IAPC_LEGACY_DEVICES | ACPI_IAPC_VGA_NOT_PRESENT | ACPI_IAPC_CMOS_RTC_NOT_PRESENT);
    put32(fadt + FADT_FLAGS, ACPI_FADT_WBINVD | ACPI_FADT_PROC_C1 | ACPI_FADT_PWR_BUTTON |
                                 ACPI_FADT_SLP_BUTTON | ACPI_FADT_TMR_VAL_EXT |
                                 ACPI_FADT_RESET_REG_SUP);
    gas_io(fadt + FADT_RESET_REG, p->reset_port, 1, 1);
    fadt[FADT_RESET_VALUE] = p->reset_value;
    fadt[FADT_MINOR] = ACPI_FADT_MINOR;
    seal(fadt, ACPI_FADT_BYTES);

    uint8_t *madt = buf + OFF_MADT;
    header(madt, "APIC", MADT_BYTES(p->cpus), ACPI_MADT_REVISION);
    put32(madt + ACPI_MADT_LAPIC_ADDR, p->lapic_base);
    put32(madt + ACPI_MADT_FLAGS, ACPI_MADT_PCAT_COMPAT);
    uint8_t *e = madt + ACPI_MADT_ENTRIES;
    /* §5.2.12.2 Table 5.46, one per vCPU in APIC ID order: Linux takes the first as the BSP's
     * (acpi_parse_lapic -> topology_register_apic; the BSP's own ID comes from its APIC). */
    for (unsigned i = 0; i < p->cpus; i++, e += ACPI_MADT_LAPIC_BYTES) {
        e[0] = ACPI_MADT_LAPIC;
        e[1] = ACPI_MADT_LAPIC_BYTES;
        e[ACPI_MADT_LAPIC_UID] = (uint8_t)i;
        e[ACPI_MADT_LAPIC_ID] = (uint8_t)i;
        put32(e + ACPI_MADT_LAPIC_FLAGS, ACPI_MADT_ENABLED);
    }
    e[0] = ACPI_MADT_LAPIC_NMI; /* §5.2.12.7 Table 5.53 */
    e[1] = MADT_NMI_BYTES;
    e[2] = MADT_ALL_PROCESSORS;
    put16(e + 3, 0); /* polarity and trigger as the bus says */
    e[5] = LINT1;
    seal(madt, MADT_BYTES(p->cpus));

    uint8_t *xsdt = buf + OFF_XSDT;
    header(xsdt, "XSDT", XSDT_BYTES, XSDT_REVISION);
    put64(xsdt + ACPI_HEADER_BYTES, gpa + OFF_FADT);
    put64(xsdt + ACPI_HEADER_BYTES + 8, gpa + OFF_MADT);
    seal(xsdt, XSDT_BYTES);

    uint8_t *rsdp = buf + OFF_RSDP;
    memcpy(rsdp, ACPI_RSDP_SIGNATURE, 8);
    memcpy(rsdp + RSDP_OEM_ID, OEM_ID, 6);
    rsdp[ACPI_RSDP_REVISION] = RSDP_REVISION;
    put32(rsdp + ACPI_RSDP_LENGTH, ACPI_RSDP_BYTES);
    put64(rsdp + ACPI_RSDP_XSDT, gpa + OFF_XSDT);
    rsdp[ACPI_RSDP_CHECKSUM] = acpi_checksum(rsdp, ACPI_RSDP_V1_BYTES);
    rsdp[RSDP_EXT_CHECKSUM] = acpi_checksum(rsdp, ACPI_RSDP_BYTES);
    return ACPI_TABLES_BYTES;
}
