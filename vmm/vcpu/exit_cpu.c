/* CPUID and MSR exits: what a guest may see of the CPU and which MSRs it may touch. */
#include "vmm/vcpu/exit.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/timer.h"
#include "tessera/abi/guest.h"
#include "vmm/log.h"
#include "vmm/vcpu/cpuid_policy.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vcpu/inject.h"

#include <string.h>

#define CPUID_1_ECX_MONITOR X86_BIT(3) /* MONITOR/MWAIT exit: not for guests */
#define TESSERA_CPUID_MAX   TESSERA_CPUID_LEAF

/* The hypervisor range: our signature at 0x40000000, nothing above it. */
static struct cpuid_regs hypervisor_leaf(uint32_t leaf)
{
    struct cpuid_regs r = { 0, 0, 0, 0 };
    if (leaf == TESSERA_CPUID_LEAF) {
        r.eax = TESSERA_CPUID_MAX;
        memcpy(&r.ebx, TESSERA_CPUID_SIGNATURE, 4);
        memcpy(&r.ecx, TESSERA_CPUID_SIGNATURE + 4, 4);
        memcpy(&r.edx, TESSERA_CPUID_SIGNATURE + 8, 4);
    }
    return r;
}

/* A Linux guest's view, as vCPU `vcpu` of `cpus`: the real answer through the policy
 * (cpuid_policy.h). */
static struct cpuid_regs linux_cpuid(uint32_t leaf, uint32_t sub, unsigned vcpu, unsigned cpus)
{
    static struct cpuid_policy host;
    if (!host.host_max_basic) {
        host.tsc_hz = timer_tsc_hz();
        host.host_max_basic = cpuid(0, 0).eax;
        host.host_max_ext = cpuid(CPUID_EXT_FIRST, 0).eax;
    }
    struct cpuid_policy p = host;
    p.apic_id = vcpu;
    p.cpus = cpus;
    if (leaf >= CPUID_HV_FIRST && leaf <= CPUID_HV_LAST)
        return hypervisor_leaf(leaf);
    uint32_t src = cpuid_policy_source_leaf(&p, leaf);
    struct cpuid_regs r = cpuid(src, sub);
    cpuid_policy_linux(&p, src, sub, &r);
    return r;
}

struct cpuid_regs guest_cpuid(const struct vm *vm, unsigned vcpu, uint32_t leaf, uint32_t sub)
{
    if (vm_is_linux(vm))
        return linux_cpuid(leaf, sub, vcpu, vm->cfg->cpus.n);
    if (leaf >= TESSERA_CPUID_LEAF && leaf <= TESSERA_CPUID_LEAF + 0xFF)
        return hypervisor_leaf(leaf);
    struct cpuid_regs r = cpuid(leaf, sub);
    if (leaf == 1) {
        /* No VMX inside (no nesting), no MONITOR/MWAIT; say a hypervisor is present. */
        r.ecx &= ~(uint32_t)(CPUID_1_ECX_VMX | CPUID_1_ECX_MONITOR);
        r.ecx |= (uint32_t)CPUID_1_ECX_HYPERVISOR;
    }
    vcpu_irq_cpuid(leaf, &r); /* the local APIC the interrupt path gives every guest */
    return r;
}

unsigned guest_phys_addr_bits(const struct vm *vm)
{
    if (guest_cpuid(vm, 0, CPUID_EXT_FIRST, 0).eax < CPUID_ADDR_SIZES)
        return CPUID_PHYS_BITS_DEFAULT;
    return guest_cpuid(vm, 0, CPUID_ADDR_SIZES, 0).eax & CPUID_ADDR_SIZES_PHYS_MASK;
}

enum exit_action exit_cpuid(struct vcpu *c, const struct exit_info *x)
{
    uint64_t *g = c->gprs.gpr;
    struct cpuid_regs r = guest_cpuid(c->vm, c->index, (uint32_t)g[GPR_RAX], (uint32_t)g[GPR_RCX]);
    g[GPR_RAX] = r.eax;
    g[GPR_RBX] = r.ebx;
    g[GPR_RCX] = r.ecx;
    g[GPR_RDX] = r.edx;
    exit_skip_instruction(x);
    return EXIT_RESUME;
}

/* EFER and the TSC here; the other emulated MSRs in guest_msr.c.  FS_BASE, GS_BASE, SYSENTER,
 * the SYSCALL MSRs, KERNEL_GS_BASE and (with the VMCS controls) PAT do not exit at all. */
static bool msr_read(struct vcpu *c, uint32_t msr, uint64_t *v)
{
    switch (msr) {
    case MSR_EFER:
        *v = vmread(VMCS_GUEST_IA32_EFER);
        return true;
    case MSR_IA32_TSC:
        *v = rdtsc();
        return true;
    default:
        return guest_msr_read(c, msr, v);
    }
}

static bool msr_write(struct vcpu *c, uint32_t msr, uint64_t v)
{
    switch (msr) {
    case MSR_EFER: {
        /* LMA is the CPU's to set (SDM Vol. 3A §2.2.1: writes to it are ignored); NXE and SCE
         * are the guest's to choose; LME only while paging is off (changing it with paging on
         * is #GP, §10.8.5), which only a Linux guest's AP does, on its way from real mode. */
        uint64_t cur = vmread(VMCS_GUEST_IA32_EFER);
        uint64_t may = EFER_NXE | EFER_SCE;
        if (!(vmread(VMCS_GUEST_CR0) & CR0_PG))
            may |= EFER_LME;
        v = (v & ~EFER_LMA) | (cur & EFER_LMA);
        if ((v ^ cur) & ~may)
            return false;
        vmwrite(VMCS_GUEST_IA32_EFER, v);
        return true;
    }
    default:
        return guest_msr_write(c, msr, v);
    }
}

enum exit_action exit_rdmsr(struct vcpu *c, const struct exit_info *x)
{
    const struct vm *vm = c->vm;
    uint64_t *g = c->gprs.gpr, v;
    uint32_t msr = (uint32_t)g[GPR_RCX];
    enum exit_action a;
    if (exit_apic_msr(c, x, msr, false, 0, &a))
        return a;
    if (!msr_read(c, msr, &v)) {
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

enum exit_action exit_wrmsr(struct vcpu *c, const struct exit_info *x)
{
    const struct vm *vm = c->vm;
    uint64_t *g = c->gprs.gpr;
    uint32_t msr = (uint32_t)g[GPR_RCX];
    uint64_t v = (g[GPR_RDX] << 32) | (uint32_t)g[GPR_RAX];
    enum exit_action a;
    if (exit_apic_msr(c, x, msr, true, v, &a))
        return a;
    if (!msr_write(c, msr, v)) {
        log_warn("guest %u (%s): WRMSR %#x <- %#llx at RIP %#llx is not allowed: #GP injected",
                 vm->id, vm->cfg->name, msr, (unsigned long long)v, (unsigned long long)x->rip);
        exit_inject_gp();
        return EXIT_RESUME;
    }
    exit_skip_instruction(x);
    return EXIT_RESUME;
}
