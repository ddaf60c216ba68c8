#include "vmm/vcpu/vmx_setup.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/vmx.h"
#include "arch/x86/vmx/pure/controls.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/log.h"

#include <stdio.h>
#include <string.h>

struct vmx_setup vmx;
static struct page_alloc *pages;

uint64_t vmx_zeroed_page(void)
{
    uint64_t p = page_alloc(pages, 1, 1);
    if (p)
        memset((void *)(uintptr_t)p, 0, PAGE_SIZE);
    return p;
}

/* One control field: what Tessera cannot run without, and what it uses when present. */
static bool negotiate(enum vmx_ctl_kind kind, uint64_t cap, uint32_t required, uint32_t optional,
                      uint32_t *out)
{
    uint32_t missing = 0;
    if (vmx_ctl_negotiate(cap, required, optional, out, &missing) == 0)
        return true;
    vmx_ctl_describe_missing(kind, missing, vmx.error, sizeof vmx.error);
    return false;
}

static bool negotiate_all(const struct vmx_caps *c)
{
    bool t = c->true_controls;
    /* Interrupts and NMIs always come back to the hypervisor; the preemption timer ends slices. */
    return negotiate(VMX_CTL_PIN, c->pinbased,
                     PIN_EXTERNAL_INTERRUPT_EXITING | PIN_NMI_EXITING | PIN_VMX_PREEMPTION_TIMER, 0,
                     &vmx.pin)
        /* HLT exits, every port access exits (the guest owns no port), MSRs by bitmap;
         * interrupt-window exiting must exist (vmm/vcpu/inject.c). */
        && negotiate(VMX_CTL_PROC, c->procbased,
                     PROC_HLT_EXITING | PROC_UNCONDITIONAL_IO_EXITING | PROC_USE_MSR_BITMAPS |
                         PROC_ACTIVATE_SECONDARY | PROC_MWAIT_EXITING | PROC_MONITOR_EXITING |
                         PROC_INTERRUPT_WINDOW_EXITING,
                     0, &vmx.proc)
        /* Unrestricted guest only for Linux guests (vmcs_setup), whose decompressor turns
         * paging off and on again in its 32-bit trampoline. */
        && negotiate(VMX_CTL_PROC2, c->procbased2, PROC2_ENABLE_EPT,
                     PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST, &vmx.proc2)
        /* 64-bit host; EFER switched both ways so neither side sees the other's; PAT too when
         * the CPU can, for Linux guests (below). */
        && negotiate(VMX_CTL_EXIT, rdmsr(t ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS),
                     EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_IA32_EFER | EXIT_LOAD_IA32_EFER,
                     EXIT_SAVE_IA32_PAT | EXIT_LOAD_IA32_PAT, &vmx.exit) &&
           negotiate(VMX_CTL_ENTRY,
                     rdmsr(t ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS),
                     ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_IA32_EFER, ENTRY_LOAD_IA32_PAT,
                     &vmx.entry);
}

bool vmx_setup_cpu(const struct vmx_caps *c, struct page_alloc *pa)
{
    pages = pa;
    if (!c->available) {
        snprintf(vmx.error, sizeof vmx.error, "%s", c->why_not);
        return false;
    }
    if (!negotiate_all(c))
        return false;
    /* ... but it is on only while an interrupt waits for the guest to accept it. */
    vmx.proc &= ~PROC_INTERRUPT_WINDOW_EXITING | VMX_CTL_CAP_ALLOWED0(c->procbased);
    /* PAT is switched only with all three controls, and only in Linux guests' VMCS
     * (vmcs_setup): a Tessera guest never writes PAT (it reads the reset value, guest_msr.c) and
     * runs with the hypervisor's, so loading PAT on its every entry and exit would be pure
     * cost.  The bits the CPU forces on stay on whatever happens. */
    bool t = c->true_controls;
    uint32_t exit_must1 = VMX_CTL_CAP_ALLOWED0(
        rdmsr(t ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS));
    uint32_t entry_must1 = VMX_CTL_CAP_ALLOWED0(
        rdmsr(t ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS));
    const uint32_t pat_exit = EXIT_SAVE_IA32_PAT | EXIT_LOAD_IA32_PAT;
    vmx.pat_switched = (vmx.exit & pat_exit) == pat_exit && (vmx.entry & ENTRY_LOAD_IA32_PAT);
    vmx.exit_pat = vmx.exit & pat_exit & ~exit_must1;
    vmx.entry_pat = vmx.entry & ENTRY_LOAD_IA32_PAT & ~entry_must1;
    if (!vmx.pat_switched) {
        vmx.exit &= ~vmx.exit_pat;
        vmx.entry &= ~vmx.entry_pat;
    }
    /* Entering a guest with paging off needs CR3 loads and stores not to exit (the CR-access
     * handler knows only CR0.NE and CR4.VMXE): Linux guests need both controls clear. */
    vmx.linux_ok = (vmx.proc2 & PROC2_UNRESTRICTED_GUEST) &&
                   !(vmx.proc & (PROC_CR3_LOAD_EXITING | PROC_CR3_STORE_EXITING));
    vmx.revision = c->revision;
    vmx.cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
    vmx.cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
    vmx.cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
    vmx.cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
    vmx.preemption_shift = rdmsr(MSR_IA32_VMX_MISC) & VMX_MISC_PREEMPTION_SHIFT_MASK;

    /* SDM §24.7 (§23.7 older): CR4.VMXE on, CR0/CR4 within the fixed bits, then VMXON on a page
     * that starts with the VMCS revision identifier. */
    write_cr4(vmx_fixed_bits_apply(read_cr4() | CR4_VMXE, vmx.cr4_fixed0, vmx.cr4_fixed1));
    write_cr0(vmx_fixed_bits_apply(read_cr0(), vmx.cr0_fixed0, vmx.cr0_fixed1));
    vmx.vmxon_phys = vmx_zeroed_page();
    if (!vmx.vmxon_phys) {
        snprintf(vmx.error, sizeof vmx.error, "no memory for the VMXON region");
        return false;
    }
    *(uint32_t *)(uintptr_t)vmx.vmxon_phys = vmx.revision;
    if (vmxon(vmx.vmxon_phys) != VMX_OK) {
        snprintf(vmx.error, sizeof vmx.error, "VMXON failed");
        return false;
    }
    vmx.on = true;
    log_info(
        "vmx: on; controls pin %#x proc %#x proc2 %#x exit %#x entry %#x; preemption timer TSC>>%u; "
        "Linux guests %s; guest PAT %s",
        vmx.pin, vmx.proc, vmx.proc2, vmx.exit, vmx.entry, vmx.preemption_shift,
        vmx.linux_ok ? "possible" : "impossible (no unrestricted guest)",
        vmx.pat_switched ? "switched by the VMCS for Linux guests" : "fixed at its reset value");
    return true;
}
