/* Interrupts into a guest's vCPU: the VMX half of the interrupt path.  The device models are pure
 * (vmm/vdev: vlapic, vpic, vuart, virq); this file moves their interrupts into the guest with
 * VM-entry event injection (Intel SDM Vol. 3C §27.6 "Event Injection"; section numbers here are
 * the 2023 edition's, one chapter less before it: §26.6), opens an interrupt window when the
 * guest cannot take one yet (§26.7.5 "Interrupt-Window Exiting"), re-injects an event whose
 * delivery a VM exit cut short (§28.2.4 "Information for VM Exits That Occur During Event
 * Delivery"; KVM's vmx_complete_interrupts does the same), blocks a vCPU
 * that halts with interrupts on until its next timer or interrupt, turns the guest's APIC
 * timer into a deadline for the VMX preemption timer, routes the IPIs one vCPU of a guest sends
 * another (vmm/vdev/vipi.h) and starts an application processor in real mode at its STARTUP.
 *
 * Hooks, each one call: vm.c (vcpu_irq_reset when the guest is created and on every start), exit.c
 * (vcpu_irq_after_exit before the handler; exit_hlt, exit_interrupt_window in the table),
 * vcpu_run.c (vcpu_irq_wake, vcpu_irq_before_entry, vcpu_irq_next_timer), exit_cpu.c
 * (exit_apic_msr, vcpu_irq_cpuid).  The PIC's ports and the UART's interrupt line are wired on
 * the guest's board (vmm/board/board.c). */
#ifndef TESSERA_VMM_VCPU_INJECT_H
#define TESSERA_VMM_VCPU_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpu.h"
#include "vmm/vcpu/exit.h"

/* The vCPU's interrupt controller to its reset state, and its start-up state: the BSP runs, an
 * AP waits for a STARTUP (every guest start; after the VMCS is set up).  The guest's 8259 pair
 * is the VM's (reset by the start). */
void vcpu_irq_reset(struct vcpu *c);

/* After a VM exit, before its handler: an event the exit interrupted is set up for re-injection
 * (IDT-vectoring information -> VM-entry interruption information).  False when the guest had to
 * be stopped (its event delivery touched memory outside its RAM). */
bool vcpu_irq_after_exit(struct vcpu *c, const struct exit_info *x);
/* Before a vCPU's slice, its VMCS current: an AP that received its STARTUP since it last ran
 * enters real mode at the vector's page, registers at reset.  False when that failed (the guest
 * is stopped with the reason). */
bool vcpu_irq_take_startup(struct vcpu *c);
/* Before a VM entry at TSC `now`: runs the APIC timer, injects the next interrupt if the guest
 * can take it, else opens an interrupt window. */
void vcpu_irq_before_entry(struct vcpu *c, uint64_t now);
/* The TSC at which the vCPU's APIC timer fires next (VLAPIC_NO_TIMER if none). */
uint64_t vcpu_irq_next_timer(const struct vcpu *c);
/* A halted vCPU: true (and no longer halted) once an interrupt is ready for it at TSC `now`. */
bool vcpu_irq_wake(struct vcpu *c, uint64_t now);


/* CPUID leaf 1 as this virtual platform has it: an x2APIC with the TSC-deadline timer, APIC
 * ID 0 (every guest has the vLAPIC, whatever the host CPU offers). */
void vcpu_irq_cpuid(uint32_t leaf, struct cpuid_regs *r);

enum exit_action exit_hlt(struct vcpu *c, const struct exit_info *x);
enum exit_action exit_interrupt_window(struct vcpu *c, const struct exit_info *x);
/* RDMSR/WRMSR of an x2APIC MSR, IA32_APIC_BASE or IA32_TSC_DEADLINE: handled and true (with
 * *action), or false for any other MSR. */
bool exit_apic_msr(struct vcpu *c, const struct exit_info *x, uint32_t msr, bool write,
                   uint64_t value, enum exit_action *action);

#endif
