#include "vmm/vcpu/vmx_setup.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/smp.h"
#include "arch/x86/vmx.h"
#include "arch/x86/vmx/pure/controls.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/log.h"

#include <stdio.h>
#include <string.h>

struct vmx_setup vmx;
static struct page_alloc *pages;
static struct vmx_cpu cpus[SMP_MAX_CPUS];

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

/* SDM §24.7 (§23.7 older): CR4.VMXE on, CR0/CR4 within the fixed bits, then VMXON on a page
 * that starts with the VMCS revision identifier.  On the CPU this runs on. */
static bool enter_vmx_operation(uint64_t region)
{
    write_cr4(vmx_fixed_bits_apply(read_cr4() | CR4_VMXE, vmx.cr4_fixed0, vmx.cr4_fixed1));
    write_cr0(vmx_fixed_bits_apply(read_cr0(), vmx.cr0_fixed0, vmx.cr0_fixed1));
    *(uint32_t *)(uintptr_t)region = vmx.revision;
    return vmxon(region) == VMX_OK;
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

    vmx.vmxon_phys = vmx_zeroed_page();
    if (!vmx.vmxon_phys) {
        snprintf(vmx.error, sizeof vmx.error, "no memory for the VMXON region");
        return false;
    }
    if (!enter_vmx_operation(vmx.vmxon_phys)) {
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

const struct vmx_cpu *vmx_cpu_state(unsigned index)
{
    if (index >= SMP_MAX_CPUS || index >= smp_count())
        return NULL;
    if (index == 0)
        cpus[0] = (struct vmx_cpu){ .on = vmx.on, .vmxon_phys = vmx.vmxon_phys };
    if (index == 0 && !vmx.on)
        snprintf(cpus[0].why, sizeof cpus[0].why, "%s", vmx.error);
    return &cpus[index];
}

/* Every control value a guest's VMCS may hold, as the boot CPU chose them: the base values and
 * those with the controls switched on at times (interrupt-window exiting, PAT for Linux). */
static bool same_controls(const struct vmx_caps *c, char *why, size_t n)
{
    bool t = c->true_controls;
    uint64_t exit_cap = rdmsr(t ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS);
    uint64_t entry_cap = rdmsr(t ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS);
    const struct {
        const char *what;
        uint64_t cap;
        uint32_t base, extra;
    } ctl[] = {
        { "pin-based", c->pinbased, vmx.pin, 0 },
        { "processor-based", c->procbased, vmx.proc, PROC_INTERRUPT_WINDOW_EXITING },
        { "secondary", c->procbased2, vmx.proc2, 0 },
        { "VM-exit", exit_cap, vmx.exit, vmx.pat_switched ? vmx.exit_pat : 0 },
        { "VM-entry", entry_cap, vmx.entry, vmx.pat_switched ? vmx.entry_pat : 0 },
    };
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        if (!vmx_ctl_value_ok(ctl[i].cap, ctl[i].base) ||
            !vmx_ctl_value_ok(ctl[i].cap, ctl[i].base | ctl[i].extra)) {
            snprintf(why, n, "its %s controls do not allow the boot CPU's %#x", ctl[i].what,
                     ctl[i].base | ctl[i].extra);
            return false;
        }
    }
    return true;
}

/* On the AP: no logging here (the log is the boot CPU's); the boot CPU reports the result. */
static void ap_vmxon(void *arg)
{
    struct vmx_cpu *c = arg;
    struct vmx_caps caps;
    vmx_probe(&caps);
    if (!caps.available) {
        snprintf(c->why, sizeof c->why, "%s", caps.why_not);
        return;
    }
    if (caps.revision != vmx.revision) {
        snprintf(c->why, sizeof c->why, "VMCS revision %#x, the boot CPU's %#x", caps.revision,
                 vmx.revision);
        return;
    }
    if (!same_controls(&caps, c->why, sizeof c->why))
        return;
    if (rdmsr(MSR_IA32_VMX_CR0_FIXED0) != vmx.cr0_fixed0 ||
        rdmsr(MSR_IA32_VMX_CR0_FIXED1) != vmx.cr0_fixed1 ||
        rdmsr(MSR_IA32_VMX_CR4_FIXED0) != vmx.cr4_fixed0 ||
        rdmsr(MSR_IA32_VMX_CR4_FIXED1) != vmx.cr4_fixed1 ||
        (rdmsr(MSR_IA32_VMX_MISC) & VMX_MISC_PREEMPTION_SHIFT_MASK) != vmx.preemption_shift) {
        snprintf(c->why, sizeof c->why,
                 "its fixed CR0/CR4 bits or preemption-timer rate differ from the boot CPU's");
        return;
    }
    if (!enter_vmx_operation(c->vmxon_phys)) {
        snprintf(c->why, sizeof c->why, "VMXON failed");
        return;
    }
    c->on = true;
}

bool vmx_setup_ap(unsigned index)
{
    if (index == 0 || index >= SMP_MAX_CPUS || index >= smp_count())
        return false;
    struct vmx_cpu *c = &cpus[index];
    *c = (struct vmx_cpu){ 0 };
    if (!vmx.on) {
        snprintf(c->why, sizeof c->why, "no VMX operation on the boot CPU");
        return false;
    }
    /* Allocated here: the page allocator is the boot CPU's. */
    c->vmxon_phys = vmx_zeroed_page();
    if (!c->vmxon_phys) {
        snprintf(c->why, sizeof c->why, "no memory for its VMXON region");
        return false;
    }
    const struct cpu *p = smp_cpu(index);
    bool answered = smp_call(index, ap_vmxon, c, SMP_CALL_WAIT_US);
    if (!answered && !c->why[0])
        snprintf(c->why, sizeof c->why, "it cannot be given work: %s",
                 (smp_state(p) == CPU_FAILED || smp_state(p) == CPU_LOST) && p->why ? p->why
                 : smp_state(p) != CPU_PARKED ? smp_state_name(smp_state(p))
                                              : "its LAPIC cannot take the wake IPI");
    /* Freed only when the AP answered without using it: one that did not answer may still. */
    if (answered && !c->on) {
        page_free(pages, c->vmxon_phys, 1);
        c->vmxon_phys = 0;
    }
    return c->on;
}
