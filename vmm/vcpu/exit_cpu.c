/* CPUID and MSR exits: what a guest may see of the CPU and which MSRs it may touch. */
#include "vmm/vcpu/exit.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "tessera/abi/guest.h"
#include "vmm/log.h"
#include "vmm/vcpu/inject.h"

#include <string.h>

#define CPUID_1_ECX_MONITOR  X86_BIT(3)     /* MONITOR/MWAIT exit: not for guests */
#define TESSERA_CPUID_MAX    TESSERA_CPUID_LEAF

enum exit_action exit_cpuid(struct vm *vm, const struct exit_info *x)
{
    uint64_t *g = vm->gprs.gpr;
    uint32_t leaf = (uint32_t)g[GPR_RAX], sub = (uint32_t)g[GPR_RCX];
    struct cpuid_regs r;
    if (leaf >= TESSERA_CPUID_LEAF && leaf <= TESSERA_CPUID_LEAF + 0xFF) {
        /* The hypervisor range: our signature at 0x40000000, nothing above it. */
        memset(&r, 0, sizeof r);
        if (leaf == TESSERA_CPUID_LEAF) {
            r.eax = TESSERA_CPUID_MAX;
            memcpy(&r.ebx, TESSERA_CPUID_SIGNATURE, 4);
            memcpy(&r.ecx, TESSERA_CPUID_SIGNATURE + 4, 4);
            memcpy(&r.edx, TESSERA_CPUID_SIGNATURE + 8, 4);
        }
    } else {
        r = cpuid(leaf, sub);
        if (leaf == 1) {
            /* No VMX inside (no nesting), no MONITOR/MWAIT; say a hypervisor is present. */
            r.ecx &= ~(uint32_t)(CPUID_1_ECX_VMX | CPUID_1_ECX_MONITOR);
            r.ecx |= (uint32_t)CPUID_1_ECX_HYPERVISOR;
        }
        vcpu_irq_cpuid(leaf, &r);
    }
    g[GPR_RAX] = r.eax;
    g[GPR_RBX] = r.ebx;
    g[GPR_RCX] = r.ecx;
    g[GPR_RDX] = r.edx;
    exit_skip_instruction(x);
    return EXIT_RESUME;
}

/* The allow-list of emulated MSRs; FS_BASE and GS_BASE do not exit at all (MSR bitmap). */
static bool msr_read(struct vm *vm, uint32_t msr, uint64_t *v)
{
    switch (msr) {
    case MSR_EFER:            *v = vmread(VMCS_GUEST_IA32_EFER); return true;
    case MSR_KERNEL_GS_BASE:  *v = vm->kernel_gs_base; return true;
    case MSR_IA32_TSC:        *v = rdtsc(); return true;
    case MSR_IA32_MISC_ENABLE: *v = 1; return true;     /* fast strings, nothing else */
    case MSR_IA32_PAT:        *v = 0x0007040600070406ULL; return true;   /* the reset value */
    default:                  return false;
    }
}

static bool msr_write(struct vm *vm, uint32_t msr, uint64_t v)
{
    switch (msr) {
    case MSR_EFER:
        /* Long mode stays on; only NXE and SCE (bit 0) are the guest's to choose. */
        if ((v ^ vmread(VMCS_GUEST_IA32_EFER)) & ~(EFER_NXE | X86_BIT(0)))
            return false;
        vmwrite(VMCS_GUEST_IA32_EFER, v);
        return true;
    case MSR_KERNEL_GS_BASE:
        vm->kernel_gs_base = v;
        return true;
    default:
        return false;
    }
}

enum exit_action exit_rdmsr(struct vm *vm, const struct exit_info *x)
{
    uint64_t *g = vm->gprs.gpr, v;
    uint32_t msr = (uint32_t)g[GPR_RCX];
    enum exit_action a;
    if (exit_apic_msr(vm, x, msr, false, 0, &a))
        return a;
    if (!msr_read(vm, msr, &v)) {
        log_warn("guest %u (%s): RDMSR %#x at RIP %#llx is not allowed: #GP injected", vm->id,
                 vm->cfg->name, msr, (unsigned long long)x->rip);
        exit_inject_gp();
        return EXIT_RESUME;
    }
    g[GPR_RAX] = (uint32_t)v;
    g[GPR_RDX] = v >> 32;
    exit_skip_instruction(x);
    return EXIT_RESUME;
}

enum exit_action exit_wrmsr(struct vm *vm, const struct exit_info *x)
{
    uint64_t *g = vm->gprs.gpr;
    uint32_t msr = (uint32_t)g[GPR_RCX];
    uint64_t v = (g[GPR_RDX] << 32) | (uint32_t)g[GPR_RAX];
    enum exit_action a;
    if (exit_apic_msr(vm, x, msr, true, v, &a))
        return a;
    if (!msr_write(vm, msr, v)) {
        log_warn("guest %u (%s): WRMSR %#x <- %#llx at RIP %#llx is not allowed: #GP injected", vm->id,
                 vm->cfg->name, msr, (unsigned long long)v, (unsigned long long)x->rip);
        exit_inject_gp();
        return EXIT_RESUME;
    }
    exit_skip_instruction(x);
    return EXIT_RESUME;
}
