/* Local APIC (SDM Vol. 3A chapter 10): the periodic tick. */
#ifndef TESSERA_ARCH_X86_LAPIC_H
#define TESSERA_ARCH_X86_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Register offsets (SDM Vol. 3A Table 10-1). */
#define LAPIC_ID            0x020
#define LAPIC_VERSION       0x030
#define LAPIC_EOI           0x0B0
#define LAPIC_SVR           0x0F0
#define LAPIC_LVT_TIMER     0x320
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE  0x3E0

#define LAPIC_SVR_ENABLE        (1u << 8)
#define LAPIC_LVT_MASKED        (1u << 16)
#define LAPIC_LVT_PERIODIC      (1u << 17)
#define LAPIC_DIVIDE_BY_16      0x3     /* SDM Figure 10-10 */

/* Enables the LAPIC and starts a periodic interrupt on `vector` every `period_us`, calibrated
 * against the TSC.  False when the CPU has no LAPIC. */
bool lapic_timer_start(uint8_t vector, uint8_t spurious_vector, uint32_t period_us, uint64_t tsc_hz);
void lapic_eoi(void);
uint64_t lapic_base(void);

#endif
