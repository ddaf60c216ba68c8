/* Interrupts and exceptions: the IDT, the saved register frame, and who handles which vector. */
#ifndef TESSERA_ARCH_X86_TRAP_H
#define TESSERA_ARCH_X86_TRAP_H

#include <stdint.h>

/* Vectors (SDM Vol. 3A Table 6-1), and the ones Tessera assigns. */
#define VEC_DIVIDE          0
#define VEC_DEBUG           1
#define VEC_NMI             2
#define VEC_BREAKPOINT      3
#define VEC_INVALID_OPCODE  6
#define VEC_DOUBLE_FAULT    8
#define VEC_GP              13
#define VEC_PAGE_FAULT      14
#define VEC_MACHINE_CHECK   18
#define VEC_EXCEPTIONS      32
#define VEC_LEGACY_PIC_BASE 0x20 /* the masked 8259s are moved here, away from exceptions */
#define VEC_TIMER           0x30
/* VEC_SMP_WAKE: an IPI that wakes an AP to look at its mailbox, or kicks a CPU out of its guest
 * or its idle halt.  VEC_AP_TICK: an AP's own periodic tick, which ends its idle halt. */
#define VEC_SMP_WAKE 0x31
#define VEC_AP_TICK  0x32
#define VEC_SPURIOUS 0xFF

/* Saved by arch/x86/isr.S, in this order from the lowest address. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code;
    uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

typedef void (*irq_handler)(struct trap_frame *frame);

void idt_init(void);
/* Loads the IDT idt_init() built on this CPU (the application processors share it). */
void idt_load(void);
uint64_t idt_base(void);
void irq_register(uint8_t vector, irq_handler handler);

/* Where the report of an unexpected exception goes: `write` takes a NUL-terminated string
 * ("\n" as a line end), `flush` waits until it has all left.  Until this is called (and with
 * NULL) reports are written to COM1 directly. */
void trap_set_output(void (*write)(const char *s), void (*flush)(void));
/* Where an exception that is not the boot CPU's goes (arch/x86/smp.c): `this_cpu` names the CPU
 * the handler runs on (0: the boot CPU), `lost` takes a CPU other than the boot CPU out of
 * service with the reason and never returns.  Without them every exception stops the
 * hypervisor, as on one CPU. */
void trap_set_cpu_hooks(unsigned (*this_cpu)(void),
                        __attribute__((noreturn)) void (*lost)(unsigned cpu, const char *why));

/* Called from isr.S for every vector. */
void trap_dispatch(struct trap_frame *frame);

#endif
