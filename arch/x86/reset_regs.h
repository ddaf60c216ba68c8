/* The PC's two ways to reset the CPU from software, as Linux's reboot uses them
 * (arch/x86/kernel/reboot.c native_machine_emergency_restart: BOOT_CF9, BOOT_KBD).
 *   - The reset control register (Intel PCH datasheets, "RST_CNT - Reset Control Register",
 *     I/O 0CF9h): writing RST_CPU resets, SYS_RST makes the reset a hard one.
 *   - The i8042 keyboard controller's pulse-reset command (IBM PC AT Technical Reference; Linux
 *     drivers/input/serio/i8042.h): command 0xFE pulses output line 0, the CPU's reset. */
#ifndef TESSERA_ARCH_X86_RESET_REGS_H
#define TESSERA_ARCH_X86_RESET_REGS_H

#define RST_CNT_PORT     0xCF9u
#define RST_CNT_SYS_RST  0x02u /* the next reset is a hard (system) one */
#define RST_CNT_RST_CPU  0x04u /* writing 1 resets */
#define RST_CNT_FULL_RST 0x08u
#define RST_CNT_MASK     (RST_CNT_SYS_RST | RST_CNT_RST_CPU | RST_CNT_FULL_RST)

#define I8042_COMMAND_PORT    0x64u
#define I8042_CMD_PULSE_RESET 0xFEu /* pulse output line 0 (the CPU's reset) low */

#endif
