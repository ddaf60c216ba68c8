/* What a Linux guest's platform does that a Tessera guest's does not (docs/linux-guest.md
 * "What stops a Linux guest"):
 *   - reset: the keyboard controller's pulse-reset command (port 0x64 <- 0xFE) and the reset
 *     control register (port 0xCF9, RST_CPU set) restart the guest, as Linux's reboot does
 *     (arch/x86/kernel/reboot.c native_machine_emergency_restart: BOOT_KBD, BOOT_CF9);
 *   - HLT with interrupts off: the kernel powered off or halted (native_machine_halt and
 *     stop_this_cpu end in cli; hlt), or its decompressor stopped after an error
 *     (arch/x86/boot/compressed/misc.c error(): "-- System halted"): the guest ends;
 *   - unclaimed MMIO reads all ones and ignores writes, as an empty bus does, logged once per
 *     page, instead of stopping the guest. */
#ifndef TESSERA_VMM_VCPU_EXIT_LINUX_H
#define TESSERA_VMM_VCPU_EXIT_LINUX_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu/exit.h"

struct mmio_region;

/* i8042 keyboard controller (IBM PC AT Technical Reference; Linux drivers/input/serio/i8042.h) */
#define I8042_COMMAND_PORT      0x64u
#define I8042_CMD_PULSE_RESET   0xFEu   /* pulse output line 0 (the CPU's reset) low */
/* Reset control register (Intel PCH datasheets, "RST_CNT - Reset Control Register", I/O 0CF9h) */
#define RST_CNT_PORT            0xCF9u
#define RST_CNT_SYS_RST         0x02u   /* the next reset is a hard (system) one */
#define RST_CNT_RST_CPU         0x04u   /* writing 1 resets */
#define RST_CNT_FULL_RST        0x08u
#define RST_CNT_MASK            (RST_CNT_SYS_RST | RST_CNT_RST_CPU | RST_CNT_FULL_RST)

/* HLT with RFLAGS.IF = 0 in a Linux guest: ends it with the reason. */
enum exit_action exit_linux_halted(struct vm *vm, const struct exit_info *x);
/* A port access a Linux guest's platform answers: true if handled (then *action says what
 * next and RIP has been advanced if the guest goes on). */
bool exit_linux_io(struct vm *vm, const struct exit_info *x, unsigned port, unsigned size, bool in, uint64_t *rax,
                   enum exit_action *action);
/* The empty bus behind every guest-physical address nothing else claims. */
const struct mmio_region *exit_linux_unclaimed(struct vm *vm);
/* Restarts the guest from its image (a reset it asked for); EXIT_YIELD, or EXIT_STOPPED if it
 * could not start again (vm->reason says why). */
enum exit_action exit_linux_restart(struct vm *vm, const char *why);

#endif
