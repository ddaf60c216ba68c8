#include "arch/x86/vmx_caps.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"

#include <stdio.h>
#include <string.h>

/* A capability MSR's high dword lists the controls that may be 1 (Appendix A.3). */
static bool may_set(uint64_t cap_msr, uint32_t bit)
{
    return (cap_msr >> 32) & bit;
}

void vmx_probe(struct vmx_caps *c)
{
    memset(c, 0, sizeof *c);
    if (!(cpuid(1, 0).ecx & CPUID_1_ECX_VMX)) {
        c->why_not = "CPUID.1:ECX.VMX[bit 5] is 0";
        return;
    }
    uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
    if (!(fc & FEATURE_CONTROL_LOCK)) {
        fc |= FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_OUTSIDE_SMX;
        wrmsr(MSR_IA32_FEATURE_CONTROL, fc);
    }
    if (!(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
        c->why_not =
            "locked off by firmware in IA32_FEATURE_CONTROL (enable VT-x in the setup menu)";
        return;
    }
    c->basic = rdmsr(MSR_IA32_VMX_BASIC);
    c->revision = c->basic & VMX_BASIC_REVISION_MASK;
    c->true_controls = c->basic & VMX_BASIC_TRUE_CTLS;
    c->pinbased = rdmsr(c->true_controls ? MSR_IA32_VMX_TRUE_PINBASED_CTLS
                                         : MSR_IA32_VMX_PINBASED_CTLS);
    c->procbased = rdmsr(c->true_controls ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS
                                          : MSR_IA32_VMX_PROCBASED_CTLS);
    if (may_set(c->procbased, PROC_ACTIVATE_SECONDARY)) {
        c->procbased2 = rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2);
        c->ept = may_set(c->procbased2, PROC2_ENABLE_EPT);
        c->vpid = may_set(c->procbased2, PROC2_ENABLE_VPID);
        c->unrestricted_guest = may_set(c->procbased2, PROC2_UNRESTRICTED_GUEST);
        if (c->ept || c->vpid)
            c->ept_vpid = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
    }
    c->preemption_timer = may_set(c->pinbased, PIN_VMX_PREEMPTION_TIMER);
    if (!c->ept) {
        /* Tessera isolates guests with EPT; without it, no guest may start. */
        c->why_not = "the CPU has VMX but no EPT";
        return;
    }
    c->available = true;
}

void vmx_caps_describe(const struct vmx_caps *c, char *buf, size_t len)
{
    if (!c->available) {
        snprintf(buf, len, "VT-x not available: guests not started (%s)", c->why_not);
        return;
    }
    char feats[96] = "EPT";
    if (c->vpid)
        strcat(feats, ", VPID");
    if (c->unrestricted_guest)
        strcat(feats, ", unrestricted guest");
    if (c->preemption_timer)
        strcat(feats, ", preemption timer");
    snprintf(buf, len, "VT-x: available (VMCS rev %#x; %s)", c->revision, feats);
}
