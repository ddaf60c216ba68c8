/* VMX control negotiation and the control-bit name tables (see controls.h for the sources). */
#include "arch/x86/vmx/pure/controls.h"

#include <stdio.h>

/* CR0.PE (bit 0) and CR0.PG (bit 31), SDM Vol. 3A §2.5 (named in arch/x86/regs.h, which is
 * pure and shared with assembly). */
#include "arch/x86/regs.h"

int vmx_ctl_negotiate(uint64_t cap_msr, uint32_t required, uint32_t optional, uint32_t *out,
                      uint32_t *missing_required)
{
    uint32_t must1 = VMX_CTL_CAP_ALLOWED0(cap_msr);
    uint32_t may1 = VMX_CTL_CAP_ALLOWED1(cap_msr);
    uint32_t contradictory = must1 & ~may1;
    uint32_t missing = required & ~may1;

    if (missing_required)
        *missing_required = 0;
    if (!out)
        return -1;
    *out = (must1 | ((required | optional) & may1)) & may1;
    if (contradictory) {
        /* A malformed MSR (or a wrong MSR passed in): no setting can satisfy it. */
        if (missing_required)
            *missing_required = contradictory;
        return -1;
    }
    if (missing) {
        if (missing_required)
            *missing_required = missing;
        return -1;
    }
    return 0;
}

bool vmx_ctl_value_ok(uint64_t cap_msr, uint32_t value)
{
    uint32_t must1 = VMX_CTL_CAP_ALLOWED0(cap_msr);
    uint32_t may1 = VMX_CTL_CAP_ALLOWED1(cap_msr);
    return (value & must1) == must1 && (value & ~may1) == 0;
}

uint64_t vmx_fixed_bits_apply(uint64_t value, uint64_t fixed0, uint64_t fixed1)
{
    return (value | fixed0) & fixed1;
}

bool vmx_fixed_bits_ok(uint64_t value, uint64_t fixed0, uint64_t fixed1)
{
    return (value & fixed0) == fixed0 && (value & ~fixed1) == 0;
}

uint64_t vmx_guest_cr0_fixed0(uint64_t cr0_fixed0, bool unrestricted_guest)
{
    return unrestricted_guest ? cr0_fixed0 & ~(uint64_t)(CR0_PE | CR0_PG) : cr0_fixed0;
}

/* Names as the SDM spells them, first letter lower-cased so they read well inside a sentence.
 * Unlisted bits are reserved (some of them default-1, which only the allowed-0 settings tell). */
static const char *const pin_names[32] = {
    [0] = "external-interrupt exiting",
    [3] = "NMI exiting",
    [5] = "virtual NMIs",
    [6] = "activate VMX-preemption timer",
    [7] = "process posted interrupts",
};

static const char *const proc_names[32] = {
    [2] = "interrupt-window exiting",
    [3] = "use TSC offsetting",
    [7] = "HLT exiting",
    [9] = "INVLPG exiting",
    [10] = "MWAIT exiting",
    [11] = "RDPMC exiting",
    [12] = "RDTSC exiting",
    [15] = "CR3-load exiting",
    [16] = "CR3-store exiting",
    [17] = "activate tertiary controls",
    [19] = "CR8-load exiting",
    [20] = "CR8-store exiting",
    [21] = "use TPR shadow",
    [22] = "NMI-window exiting",
    [23] = "MOV-DR exiting",
    [24] = "unconditional I/O exiting",
    [25] = "use I/O bitmaps",
    [27] = "monitor trap flag",
    [28] = "use MSR bitmaps",
    [29] = "MONITOR exiting",
    [30] = "PAUSE exiting",
    [31] = "activate secondary controls",
};

static const char *const proc2_names[32] = {
    [0] = "virtualize APIC accesses",
    [1] = "enable EPT",
    [2] = "descriptor-table exiting",
    [3] = "enable RDTSCP",
    [4] = "virtualize x2APIC mode",
    [5] = "enable VPID",
    [6] = "WBINVD exiting",
    [7] = "unrestricted guest",
    [8] = "APIC-register virtualization",
    [9] = "virtual-interrupt delivery",
    [10] = "PAUSE-loop exiting",
    [11] = "RDRAND exiting",
    [12] = "enable INVPCID",
    [13] = "enable VM functions",
    [14] = "VMCS shadowing",
    [15] = "enable ENCLS exiting",
    [16] = "RDSEED exiting",
    [17] = "enable PML",
    [18] = "EPT-violation #VE",
    [19] = "conceal VMX from PT",
    [20] = "enable XSAVES/XRSTORS",
    [22] = "mode-based execute control for EPT",
    [23] = "sub-page write permissions for EPT",
    [24] = "Intel PT uses guest physical addresses",
    [25] = "use TSC scaling",
    [26] = "enable user wait and pause",
    [27] = "enable PCONFIG",
    [28] = "enable ENCLV exiting",
    [30] = "VMM bus-lock detection",
    [31] = "instruction timeout",
};

static const char *const exit_names[32] = {
    [2] = "save debug controls",
    [9] = "host address-space size",
    [12] = "load IA32_PERF_GLOBAL_CTRL",
    [15] = "acknowledge interrupt on exit",
    [18] = "save IA32_PAT",
    [19] = "load IA32_PAT",
    [20] = "save IA32_EFER",
    [21] = "load IA32_EFER",
    [22] = "save VMX-preemption timer value",
    [23] = "clear IA32_BNDCFGS",
    [24] = "conceal VMX from PT",
    [25] = "clear IA32_RTIT_CTL",
    [26] = "clear IA32_LBR_CTL",
    [27] = "clear UINV",
    [28] = "load CET state",
    [29] = "load PKRS",
    [30] = "save IA32_PERF_GLOBAL_CTL",
    [31] = "activate secondary controls",
};

static const char *const entry_names[32] = {
    [2] = "load debug controls",
    [9] = "IA-32e mode guest",
    [10] = "entry to SMM",
    [11] = "deactivate dual-monitor treatment",
    [13] = "load IA32_PERF_GLOBAL_CTRL",
    [14] = "load IA32_PAT",
    [15] = "load IA32_EFER",
    [16] = "load IA32_BNDCFGS",
    [17] = "conceal VMX from PT",
    [18] = "load IA32_RTIT_CTL",
    [19] = "load UINV",
    [20] = "load CET state",
    [21] = "load guest IA32_LBR_CTL",
    [22] = "load PKRS",
};

static const char *const *const name_tables[VMX_CTL_KINDS] = {
    [VMX_CTL_PIN] = pin_names,   [VMX_CTL_PROC] = proc_names,   [VMX_CTL_PROC2] = proc2_names,
    [VMX_CTL_EXIT] = exit_names, [VMX_CTL_ENTRY] = entry_names,
};

static const char *const kind_names[VMX_CTL_KINDS] = {
    [VMX_CTL_PIN] = "pin-based VM-execution control",
    [VMX_CTL_PROC] = "primary processor-based VM-execution control",
    [VMX_CTL_PROC2] = "secondary processor-based VM-execution control",
    [VMX_CTL_EXIT] = "VM-exit control",
    [VMX_CTL_ENTRY] = "VM-entry control",
};

const char *vmx_ctl_bit_name(enum vmx_ctl_kind kind, unsigned bit)
{
    if ((unsigned)kind >= VMX_CTL_KINDS || bit >= 32)
        return "(reserved)";
    const char *name = name_tables[kind][bit];
    return name ? name : "(reserved)";
}

const char *vmx_ctl_kind_name(enum vmx_ctl_kind kind)
{
    return (unsigned)kind < VMX_CTL_KINDS ? kind_names[kind] : "(unknown)";
}

int vmx_ctl_describe_missing(enum vmx_ctl_kind kind, uint32_t missing, char *buf, size_t len)
{
    size_t used = 0;
    int want = 0;
    unsigned count = 0;

    if ((unsigned)kind >= VMX_CTL_KINDS)
        return snprintf(buf, len, "unknown control field %u", (unsigned)kind);
    for (unsigned bit = 0; bit < 32; bit++)
        count += (missing >> bit) & 1u;
    if (count == 0)
        return snprintf(buf, len, "every required %s is supported", vmx_ctl_kind_name(kind));

        /* Appends one piece; keeps counting the wanted length after the buffer is full. */
#define APPEND(...) \
    do { \
        int n_ = snprintf(buf ? buf + used : NULL, used < len ? len - used : 0, __VA_ARGS__); \
        if (n_ < 0) \
            return n_; \
        want += n_; \
        used = (size_t)want < len ? (size_t)want : len; \
    } while (0)

    APPEND("required %s%s ", vmx_ctl_kind_name(kind), count > 1 ? "s" : "");
    unsigned listed = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        if (!((missing >> bit) & 1u))
            continue;
        const char *name = name_tables[kind][bit];
        if (name)
            APPEND("%s'%s'", listed ? ", " : "", name);
        else
            APPEND("%sreserved bit %u", listed ? ", " : "", bit);
        listed++;
    }
    APPEND(" %s not supported", count > 1 ? "are" : "is");
#undef APPEND
    return want;
}
