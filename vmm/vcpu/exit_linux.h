/* What a Linux guest's CPU does that a Tessera guest's does not (docs/linux-guest.md "What
 * stops a Linux guest"): HLT with interrupts off means the kernel powered off or halted
 * (native_machine_halt and stop_this_cpu end in cli; hlt), or its decompressor stopped after an
 * error (arch/x86/boot/compressed/misc.c error(): "-- System halted"): the guest ends.  Its
 * platform's reset ports, ACPI fixed hardware and empty MMIO bus are devices on its board
 * (vmm/board/board_linux.c). */
#ifndef TESSERA_VMM_VCPU_EXIT_LINUX_H
#define TESSERA_VMM_VCPU_EXIT_LINUX_H

#include "vmm/vcpu/exit.h"

/* HLT with RFLAGS.IF = 0 in a Linux guest: on its BSP, ends it with the reason; on an AP, parks
 * that vCPU (stop_this_cpu at a reboot or power-off, a CPU taken offline) until an INIT and
 * STARTUP start it again. */
enum exit_action exit_linux_halted(struct vcpu *c, const struct exit_info *x);

#endif
