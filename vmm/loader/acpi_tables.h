/* Minimal ACPI tables for a Linux guest (ACPI Specification 6.4): RSDP (§5.2.5), XSDT (§5.2.8),
 * a FADT (§5.2.9) with the fixed hardware of vmm/vdev/vacpi_pm.h and the reset register, a FACS
 * (§5.2.10), a DSDT (§5.2.11.1) whose only object is the \_S5 sleep package, and a MADT
 * (§5.2.12) with an enabled processor local APIC per vCPU (APIC ID and processor UID = the
 * vCPU's index), their NMI on LINT1, and no I/O APIC.  Pure.
 *
 * Why: Linux 6.1 cannot take over an x2APIC that is already enabled when it learns the machine
 * from the MP table: smp_read_mpc() calls register_lapic_address(), which reads the APIC ID
 * through the xAPIC MMIO mapping it skipped mapping because x2APIC is on (page fault in
 * native_apic_mem_read, measured).  On the ACPI path acpi_parse_madt() first lets the x2APIC
 * drivers claim the APIC (default_acpi_madt_oem_check), so the ID is read through the MSRs.
 * With no I/O APIC in the MADT the kernel keeps the 8259 behind LINT0 and stays in x2APIC
 * mode (skip_ioapic_setup) -- provided the FADT is not hardware-reduced, which would make Linux
 * drop the 8259 altogether (acpi_generic_reduced_hw_init: null_legacy_pic) and leave the serial
 * port's IRQ 4 undeliverable.  So the FADT describes real fixed hardware: PM1a event and
 * control blocks and the PM timer, with SMI_CMD 0 (always in ACPI mode), the SCI on ISA IRQ 9,
 * no C2/C3, no 8042, no VGA, no CMOS clock; power-off is SLP_EN with the \_S5 type.  The guest
 * needs `pci=noacpi` (the DSDT has no PCI host bridge) and must not have `acpi=off`, which
 * falls back to the MP table. */
#ifndef TESSERA_VMM_LOADER_ACPI_TABLES_H
#define TESSERA_VMM_LOADER_ACPI_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "boot/acpi.h"

#define ACPI_FADT_BYTES    276u /* FADT revision 6 */
#define ACPI_FADT_REVISION 6u
#define ACPI_FADT_MINOR    4u /* ACPI 6.4 */
#define ACPI_MADT_REVISION 5u
#define ACPI_FACS_BYTES    64u /* §5.2.10 Table 5.14; 64-byte aligned */
#define ACPI_FACS_VERSION  2u
/* FADT Flags, §5.2.9 Table 5.10 */
#define ACPI_FADT_WBINVD        (1u << 0) /* WBINVD flushes caches (required of IA-PC) */
#define ACPI_FADT_PROC_C1       (1u << 2) /* C1 (HLT) works */
#define ACPI_FADT_PWR_BUTTON    (1u << 4) /* no fixed power button */
#define ACPI_FADT_SLP_BUTTON    (1u << 5) /* no fixed sleep button */
#define ACPI_FADT_TMR_VAL_EXT   (1u << 8) /* the PM timer is 32 bits wide */
#define ACPI_FADT_RESET_REG_SUP (1u << 10)
#define ACPI_FADT_HW_REDUCED    (1u << 20) /* HW_REDUCED_ACPI (never set here: see above) */
/* FADT IA-PC boot architecture flags, §5.2.9.3 Table 5.11 */
#define ACPI_IAPC_LEGACY_DEVICES       (1u << 0) /* ISA devices (the UART) the OS cannot enumerate */
#define ACPI_IAPC_8042                 (1u << 1) /* a keyboard controller (absent: left clear) */
#define ACPI_IAPC_VGA_NOT_PRESENT      (1u << 2)
#define ACPI_IAPC_CMOS_RTC_NOT_PRESENT (1u << 5)
#define ACPI_C2_DISABLED_LATENCY       101u      /* P_LVL2_LAT > 100: no C2 */
#define ACPI_C3_DISABLED_LATENCY       1001u     /* P_LVL3_LAT > 1000: no C3 */
#define ACPI_MADT_PCAT_COMPAT          (1u << 0) /* MADT Flags: a dual 8259 is present */
#define ACPI_MADT_LAPIC_NMI            4u        /* Local APIC NMI structure, §5.2.12.7 */
#define ACPI_GAS_SYSTEM_IO             1u        /* Generic Address Structure space id, §5.2.3.2 */

/* The span acpi_tables_build writes (16-byte aligned pieces). */
#define ACPI_TABLES_BYTES 0x300u
#define ACPI_MAX_CPUS     16u /* local APIC entries that fit in the MADT's part of that span */

struct acpi_platform {
    uint32_t lapic_base; /* the local APIC's physical address */
    uint8_t cpus;        /* vCPUs, 1..ACPI_MAX_CPUS: APIC IDs 0..cpus-1, 0 the BSP */
    uint16_t reset_port; /* FADT RESET_REG: an I/O port and the byte to write there */
    uint8_t reset_value;
    uint16_t sci_irq;                                 /* FADT SCI_INT: the ISA IRQ of the SCI */
    uint16_t pm1_evt_port, pm1_cnt_port, pm_tmr_port; /* the fixed hardware's I/O ports */
    uint8_t s5_slp_typ; /* \_S5's sleep type: PM1_CNT.SLP_TYP for soft-off */
};

/* Writes RSDP, XSDT, FADT, DSDT and MADT into buf, which the guest sees at `gpa` (16-byte
 * aligned, below 4 GiB); the RSDP comes first.  Returns the bytes used, or 0 if `len` is too
 * small, gpa unsuitable or the vCPU count outside 1..ACPI_MAX_CPUS. */
size_t acpi_tables_build(uint8_t *buf, size_t len, uint64_t gpa, const struct acpi_platform *p);

/* The byte that makes a table's bytes sum to 0 (mod 256), as every ACPI checksum does. */
uint8_t acpi_checksum(const uint8_t *p, size_t len);

#endif
