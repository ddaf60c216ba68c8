/* ACPI fixed hardware for a Linux guest (see vacpi_pm.h). */
#include "vmm/vdev/vacpi_pm.h"

/* The twelve bytes of the block as little-endian registers: PM1_STS at 0, PM1_EN at 2, PM1_CNT
 * at 4, nothing at 6..7 (reads 0), PM_TMR at 8. */
#define OFF_STS 0u
#define OFF_EN  2u
#define OFF_CNT 4u
#define OFF_TMR 8u

void vacpi_pm_reset(struct vacpi_pm *pm, uint64_t tsc_hz)
{
    pm->sts = pm->en = 0;
    pm->cnt = ACPI_PM1_CNT_SCI_EN;
    pm->tsc_hz = tsc_hz ? tsc_hz : 1;
}

bool vacpi_pm_claims_port(uint16_t port, unsigned size)
{
    return port >= ACPI_PM_BASE && (unsigned)port + size <= ACPI_PM_BASE + ACPI_PM_PORTS;
}

uint32_t vacpi_pm_timer(const struct vacpi_pm *pm, uint64_t now)
{
    /* Split so the product cannot overflow: (now % hz) * 3.58 MHz < 2^64 for any TSC rate. */
    uint64_t whole = now / pm->tsc_hz, part = now % pm->tsc_hz;
    return (uint32_t)(whole * ACPI_PM_TMR_HZ + part * ACPI_PM_TMR_HZ / pm->tsc_hz);
}

static uint8_t byte_at(const struct vacpi_pm *pm, unsigned off, uint64_t now)
{
    uint32_t reg;
    switch (off & ~1u) {
    case OFF_STS:
        reg = pm->sts;
        break;
    case OFF_EN:
        reg = pm->en;
        break;
    case OFF_CNT:
        reg = pm->cnt & ~ACPI_PM1_CNT_SLP_EN;
        break; /* SLP_EN reads 0 */
    case OFF_TMR:
    case OFF_TMR + 2:
        return (uint8_t)(vacpi_pm_timer(pm, now) >> (8 * (off - OFF_TMR)));
    default:
        return 0;
    }
    return (uint8_t)(reg >> (8 * (off & 1u)));
}

uint32_t vacpi_pm_read(const struct vacpi_pm *pm, uint16_t port, unsigned size, uint64_t now)
{
    unsigned off = port - ACPI_PM_BASE;
    if (off == OFF_TMR && size == 4)
        return vacpi_pm_timer(pm, now); /* one snapshot for the whole dword */
    uint32_t v = 0;
    for (unsigned i = 0; i < size && off + i < ACPI_PM_PORTS; i++)
        v |= (uint32_t)byte_at(pm, off + i, now) << (8 * i);
    return v;
}

/* One byte written at `off`; sets *cnt_written when it touched PM1_CNT. */
static void write_byte(struct vacpi_pm *pm, unsigned off, uint8_t b, bool *cnt_written)
{
    unsigned shift = 8 * (off & 1u);
    switch (off & ~1u) {
    case OFF_STS:
        pm->sts &= (uint16_t) ~((uint16_t)b << shift); /* write 1 to clear */
        break;
    case OFF_EN:
        pm->en = (uint16_t)((pm->en & ~(0xFFu << shift)) | ((unsigned)b << shift));
        break;
    case OFF_CNT:
        pm->cnt = (uint16_t)((pm->cnt & ~(0xFFu << shift)) | ((unsigned)b << shift));
        pm->cnt |= ACPI_PM1_CNT_SCI_EN; /* ACPI mode cannot be left */
        *cnt_written = true;
        break;
    default:
        break; /* the timer and the gap: read-only */
    }
}

enum vacpi_pm_event vacpi_pm_write(struct vacpi_pm *pm, uint16_t port, unsigned size,
                                   uint32_t value)
{
    unsigned off = port - ACPI_PM_BASE;
    bool cnt_written = false;
    for (unsigned i = 0; i < size && off + i < ACPI_PM_PORTS; i++)
        write_byte(pm, off + i, (uint8_t)(value >> (8 * i)), &cnt_written);
    if (!cnt_written || !(pm->cnt & ACPI_PM1_CNT_SLP_EN))
        return VACPI_PM_NONE;
    pm->cnt &= (uint16_t)~ACPI_PM1_CNT_SLP_EN;
    unsigned typ = (pm->cnt & ACPI_PM1_CNT_SLP_TYP_MASK) >> ACPI_PM1_CNT_SLP_TYP_SHIFT;
    return typ == ACPI_SLP_TYP_S5 ? VACPI_PM_POWER_OFF : VACPI_PM_SLEEP_REFUSED;
}
