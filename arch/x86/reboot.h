#ifndef TESSERA_ARCH_X86_REBOOT_H
#define TESSERA_ARCH_X86_REBOOT_H

/* Resets the machine: the chipset reset register, then the keyboard controller, then a triple
 * fault.  Does not return. */
__attribute__((noreturn)) void machine_reboot(void);

#endif
