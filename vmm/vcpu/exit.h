/* The VM-exit dispatcher: one handler per basic exit reason in a table (exit.c), each small and
 * deciding what happens next. */
#ifndef TESSERA_VMM_EXIT_H
#define TESSERA_VMM_EXIT_H

#include "vmm/vcpu/vcpu.h"
#include "vmm/vm.h"

enum exit_action {
    EXIT_RESUME,  /* back into the guest */
    EXIT_YIELD,   /* the guest gave up its slice (HLT, hypercall, timer) */
    EXIT_STOPPED, /* the handler stopped the guest (vm_stop with the reason) */
};

struct exit_info {
    uint32_t reason; /* basic reason, bits 15:0 */
    uint32_t full_reason;
    uint64_t qualification;
    uint64_t rip;
    uint32_t insn_len;
};

enum exit_action exit_dispatch(struct vcpu *c);

/* Handlers in their own files. */
enum exit_action exit_io(struct vcpu *c, const struct exit_info *x);
enum exit_action exit_ept_violation(struct vcpu *c, const struct exit_info *x);
enum exit_action exit_rdmsr(struct vcpu *c, const struct exit_info *x);
enum exit_action exit_wrmsr(struct vcpu *c, const struct exit_info *x);
enum exit_action exit_cpuid(struct vcpu *c, const struct exit_info *x);

/* What CPUID (leaf, subleaf) tells vCPU `vcpu` of this guest. */
struct cpuid_regs guest_cpuid(const struct vm *vm, unsigned vcpu, uint32_t leaf, uint32_t sub);
/* The physical-address width (MAXPHYADDR) that CPUID tells this guest. */
unsigned guest_phys_addr_bits(const struct vm *vm);

/* Moves RIP past the instruction that exited. */
void exit_skip_instruction(const struct exit_info *x);
/* Injects #GP(0) into the guest at its next entry (SDM §27.6). */
void exit_inject_gp(void);

#endif
