/* The hypervisor's GDT and TSS (SDM Vol. 3A §3.4.5, §7.7).  The selectors are also the host
 * state a VM exit returns to, so they are named here once. */
#ifndef TESSERA_ARCH_X86_GDT_H
#define TESSERA_ARCH_X86_GDT_H

#define GDT_KERNEL_CS   0x08
#define GDT_KERNEL_DS   0x10
#define GDT_TSS         0x18

/* Interrupt stack table slots (SDM Vol. 3A §6.14.5): faults that mean the normal stack may be
 * unusable get their own. */
#define IST_DOUBLE_FAULT 1
#define IST_NMI          2
#define IST_MACHINE_CHECK 3
/* External interrupts get a stack of their own too, so an interrupt never writes below the
 * interrupted code's stack pointer: Debian's libfdt.a (linked unchanged) uses the red zone. */
#define IST_IRQ          4
#define IST_STACKS       4

#ifndef __ASSEMBLER__
#include <stdint.h>
void gdt_init(void);
uint64_t gdt_base(void);
uint64_t tss_base(void);
#endif

#endif
