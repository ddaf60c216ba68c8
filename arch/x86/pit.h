/* The 8254 programmable interval timer, used once at boot as the reference clock for the TSC
 * (Intel 82C54 datasheet; PC wiring: channel 2 gated by port 0x61). */
#ifndef TESSERA_ARCH_X86_PIT_H
#define TESSERA_ARCH_X86_PIT_H

#include <stdint.h>

#include "arch/x86/i8259.h"

#define PIT_HZ             1193182
#define PIT_CH2_DATA       0x42
#define PIT_MODE_CMD       0x43
#define PIT_CH2_MODE0_LOHI 0xB0 /* channel 2, lobyte/hibyte, mode 0 (interrupt on terminal count) */
#define PORT_SYS_CTRL_B    0x61
#define SYS_CTRL_B_GATE2   0x01
#define SYS_CTRL_B_SPEAKER 0x02
#define SYS_CTRL_B_OUT2    0x20

/* Busy-waits `us` microseconds on PIT channel 2 (at most 54 ms) and returns the TSC ticks that
 * elapsed meanwhile. */
uint64_t pit_measure_tsc(uint32_t us);
void pic_disable(uint8_t vector_base);

#endif
