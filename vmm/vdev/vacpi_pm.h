/* A Linux guest's ACPI fixed hardware (ACPI 6.4 §4.8): the PM1a event block (PM1_STS, PM1_EN),
 * the PM1a control block (PM1_CNT) and the 32-bit power-management timer, at I/O ports the
 * guest's FADT names.  Pure: no hardware access; time comes in as TSC ticks.
 *
 * Why a Linux guest has them: a hardware-reduced FADT (no fixed hardware) makes Linux 6.1 drop
 * the legacy 8259 (arch/x86/kernel/acpi/boot.c acpi_parse_fadt -> acpi_generic_reduced_hw_init
 * sets legacy_pic = &null_legacy_pic), and without an I/O APIC the serial port's IRQ 4 then has
 * no way in.  A full FADT needs these registers.  The machine is always in ACPI mode (the FADT's
 * SMI_CMD is 0, so ACPICA's acpi_hw_get_mode reports ACPI mode and SCI_EN reads 1), nothing
 * ever raises the SCI, and a write of SLP_EN with the DSDT's _S5 sleep type is the guest
 * powering itself off (Linux's acpi_power_off -> acpi_enter_sleep_state(ACPI_STATE_S5)). */
#ifndef TESSERA_VMM_VDEV_VACPI_PM_H
#define TESSERA_VMM_VDEV_VACPI_PM_H

#include <stdbool.h>
#include <stdint.h>

/* Port layout (the FADT's PM1a_EVT_BLK, PM1a_CNT_BLK and PM_TMR_BLK; the base is QEMU's ICH9
 * choice, free on Tessera's guest bus). */
#define ACPI_PM_BASE      0x600u
#define ACPI_PM1_EVT_PORT (ACPI_PM_BASE + 0u) /* PM1_STS (2 bytes), then PM1_EN (2) */
#define ACPI_PM1_EVT_LEN  4u
#define ACPI_PM1_CNT_PORT (ACPI_PM_BASE + 4u) /* PM1_CNT (2 bytes) */
#define ACPI_PM1_CNT_LEN  2u
#define ACPI_PM_TMR_PORT  (ACPI_PM_BASE + 8u) /* PM_TMR (4 bytes, read-only) */
#define ACPI_PM_TMR_LEN   4u
#define ACPI_PM_PORTS     12u
#define ACPI_SCI_IRQ      9u /* the FADT's SCI_INT: an ISA IRQ on the 8259 */

/* The PM timer's rate (§4.8.3.3: 3.579545 MHz); 32 bits wide (FADT flag TMR_VAL_EXT). */
#define ACPI_PM_TMR_HZ 3579545u

/* PM1_STS bits (§4.8.3.1.1 Table 4.16), write 1 to clear. */
#define ACPI_PM1_STS_TMR (1u << 0)
#define ACPI_PM1_STS_WAK (1u << 15)
/* PM1_CNT bits (§4.8.3.2.1 Table 4.18). */
#define ACPI_PM1_CNT_SCI_EN        (1u << 0)
#define ACPI_PM1_CNT_SLP_TYP_SHIFT 10
#define ACPI_PM1_CNT_SLP_TYP_MASK  (7u << ACPI_PM1_CNT_SLP_TYP_SHIFT)
#define ACPI_PM1_CNT_SLP_EN        (1u << 13) /* write-only: enter the sleep state SLP_TYP names */

/* The SLP_TYP value of soft-off: what the DSDT's \_S5 package gives (acpi_tables.c). */
#define ACPI_SLP_TYP_S5 5u

struct vacpi_pm {
    uint16_t sts, en, cnt;
    uint64_t tsc_hz; /* the TSC's rate, for the PM timer */
};

enum vacpi_pm_event {
    VACPI_PM_NONE,
    VACPI_PM_POWER_OFF,     /* SLP_EN with the S5 sleep type */
    VACPI_PM_SLEEP_REFUSED, /* SLP_EN with another sleep type: not supported, ignored */
};

/* Power-on state: every status and enable bit clear, SCI_EN set (ACPI mode only). */
void vacpi_pm_reset(struct vacpi_pm *pm, uint64_t tsc_hz);
/* True when an access of `size` bytes at `port` lies inside the block. */
bool vacpi_pm_claims_port(uint16_t port, unsigned size);
/* An IN of `size` (1, 2 or 4) bytes at `port`, at TSC `now`. */
uint32_t vacpi_pm_read(const struct vacpi_pm *pm, uint16_t port, unsigned size, uint64_t now);
/* An OUT; the caller acts on what it returns. */
enum vacpi_pm_event vacpi_pm_write(struct vacpi_pm *pm, uint16_t port, unsigned size,
                                   uint32_t value);
/* The PM timer's value at TSC `now`: ACPI_PM_TMR_HZ ticks per second, wrapping at 2^32. */
uint32_t vacpi_pm_timer(const struct vacpi_pm *pm, uint64_t now);

#endif
