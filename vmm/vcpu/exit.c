/* The exit dispatcher and the handlers too small for a file of their own.  Anything without a
 * handler stops the guest with the exit's name: a guest can never take the hypervisor down. */
#include "vmm/vcpu/exit.h"

#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"
#include "tessera/abi/guest.h"
#include "vmm/log.h"
#include "vmm/vcpu/exit_linux.h"
#include "vmm/vcpu/inject.h"

void exit_skip_instruction(const struct exit_info *x)
{
    vmwrite(VMCS_GUEST_RIP, x->rip + x->insn_len);
    /* Blocking by STI or MOV SS covers only the instruction after it, the one just skipped
     * ("sti; hlt"): left set, it would make the next injection fail the VM-entry checks
     * (SDM §27.3.1.5).  KVM clears it the same way in skip_emulated_instruction. */
    uint64_t s = vmread(VMCS_GUEST_INTERRUPTIBILITY);
    if (s & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
        vmwrite(VMCS_GUEST_INTERRUPTIBILITY,
                s & ~(uint64_t)(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
}

void exit_inject_gp(void)
{
    vmwrite(VMCS_ENTRY_INTERRUPTION_INFO,
            INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | INTR_INFO_DELIVER_ERROR_CODE | 13 /* #GP */);
    vmwrite(VMCS_ENTRY_EXCEPTION_ERROR_CODE, 0);
}

static enum exit_action on_external_interrupt(struct vcpu *c, const struct exit_info *x)
{
    return EXIT_RESUME; /* the run loop takes the interrupt with IF set, then goes on */
}

static enum exit_action on_exception_nmi(struct vcpu *c, const struct exit_info *x)
{
    return EXIT_RESUME; /* only NMIs get here (the exception bitmap is empty) */
}

static enum exit_action on_triple_fault(struct vcpu *c, const struct exit_info *x)
{
    vm_stop(c->vm, VM_CRASHED, "triple fault at RIP %#llx (an exception it could not handle)",
            (unsigned long long)x->rip);
    return EXIT_STOPPED;
}

/* HLT: a Linux guest with interrupts off has powered off or stopped (exit_linux.h); everything
 * else is the interrupt path's (inject.c). */
static enum exit_action on_hlt(struct vcpu *c, const struct exit_info *x)
{
    if (vm_is_linux(c->vm) && !(vmread(VMCS_GUEST_RFLAGS) & RFLAGS_IF))
        return exit_linux_halted(c, x);
    return exit_hlt(c, x);
}

/* The slice's end or the guest's APIC timer: the run loop tells them apart. */
static enum exit_action on_preemption_timer(struct vcpu *c, const struct exit_info *x)
{
    return EXIT_RESUME;
}

static enum exit_action on_vmcall(struct vcpu *c, const struct exit_info *x)
{
    uint64_t *g = c->gprs.gpr;
    exit_skip_instruction(x);
    switch (g[GPR_RAX]) {
    case TESSERA_HC_EXIT:
        vm_stop(c->vm, VM_EXITED, "exited with status %llu", (unsigned long long)g[GPR_RDI]);
        return EXIT_STOPPED;
    case TESSERA_HC_YIELD:
        g[GPR_RAX] = 0;
        return EXIT_YIELD;
    default:
        g[GPR_RAX] = TESSERA_HC_UNKNOWN_RESULT;
        return EXIT_RESUME;
    }
}

/* VMX instructions, GETSEC, INVD...: nothing a kiosk guest has any business doing. */
static enum exit_action on_forbidden(struct vcpu *c, const struct exit_info *x)
{
    vm_stop(c->vm, VM_CRASHED, "executed %s at RIP %#llx (not allowed in a guest)",
            vmx_exit_reason_name(x->reason), (unsigned long long)x->rip);
    return EXIT_STOPPED;
}

static enum exit_action on_cr_access(struct vcpu *c, const struct exit_info *x)
{
    vm_stop(c->vm, VM_CRASHED,
            "tried to clear CR0.NE or CR4.VMXE at RIP %#llx (qualification %#llx)",
            (unsigned long long)x->rip, (unsigned long long)x->qualification);
    return EXIT_STOPPED;
}

typedef enum exit_action (*exit_handler)(struct vcpu *c, const struct exit_info *x);

static const exit_handler handlers[EXIT_REASON_COUNT] = {
    [EXIT_REASON_EXCEPTION_NMI] = on_exception_nmi,
    [EXIT_REASON_EXTERNAL_INTERRUPT] = on_external_interrupt,
    [EXIT_REASON_TRIPLE_FAULT] = on_triple_fault,
    [EXIT_REASON_CPUID] = exit_cpuid,
    [EXIT_REASON_HLT] = on_hlt,
    [EXIT_REASON_INTERRUPT_WINDOW] = exit_interrupt_window,
    [EXIT_REASON_VMCALL] = on_vmcall,
    [EXIT_REASON_GETSEC] = on_forbidden,
    [EXIT_REASON_INVD] = on_forbidden,
    [EXIT_REASON_VMCLEAR] = on_forbidden,
    [EXIT_REASON_VMLAUNCH] = on_forbidden,
    [EXIT_REASON_VMPTRLD] = on_forbidden,
    [EXIT_REASON_VMPTRST] = on_forbidden,
    [EXIT_REASON_VMREAD] = on_forbidden,
    [EXIT_REASON_VMRESUME] = on_forbidden,
    [EXIT_REASON_VMWRITE] = on_forbidden,
    [EXIT_REASON_VMXOFF] = on_forbidden,
    [EXIT_REASON_VMXON] = on_forbidden,
    [EXIT_REASON_INVEPT] = on_forbidden,
    [EXIT_REASON_INVVPID] = on_forbidden,
    [EXIT_REASON_MWAIT] = on_forbidden,
    [EXIT_REASON_MONITOR] = on_forbidden,
    [EXIT_REASON_CR_ACCESS] = on_cr_access,
    [EXIT_REASON_IO_INSTRUCTION] = exit_io,
    [EXIT_REASON_RDMSR] = exit_rdmsr,
    [EXIT_REASON_WRMSR] = exit_wrmsr,
    [EXIT_REASON_EPT_VIOLATION] = exit_ept_violation,
    [EXIT_REASON_PREEMPTION_TIMER] = on_preemption_timer,
};

enum exit_action exit_dispatch(struct vcpu *c)
{
    struct vm *vm = c->vm;
    struct exit_info x = {
        .full_reason = (uint32_t)vmread(VMCS_EXIT_REASON),
        .qualification = vmread(VMCS_EXIT_QUALIFICATION),
        .rip = vmread(VMCS_GUEST_RIP),
        .insn_len = (uint32_t)vmread(VMCS_EXIT_INSTRUCTION_LENGTH),
    };
    x.reason = x.full_reason & EXIT_REASON_BASIC_MASK;
    c->exits++;
    c->last_exit = x.reason;
    if (x.reason < EXIT_REASON_COUNT)
        c->exit_count[x.reason]++;
    if (x.full_reason & EXIT_REASON_ENTRY_FAILED) {
        vm_stop(vm, VM_CRASHED, "VM entry failed: %s (qualification %#llx)",
                vmx_exit_reason_name(x.reason), (unsigned long long)x.qualification);
        return EXIT_STOPPED;
    }
    if (!vcpu_irq_after_exit(c, &x))
        return EXIT_STOPPED;
    exit_handler h = x.reason < EXIT_REASON_COUNT ? handlers[x.reason] : NULL;
    if (!h) {
        vm_stop(vm, VM_CRASHED, "unexpected VM exit '%s' (reason %u) at RIP %#llx",
                vmx_exit_reason_name(x.reason), x.reason, (unsigned long long)x.rip);
        return EXIT_STOPPED;
    }
    return h(c, &x);
}
