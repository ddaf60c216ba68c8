/* VMX instruction wrappers and the names that make their failures readable. */
#include "arch/x86/vmx.h"

#include "arch/x86/vmx_exit_reasons.h"

#include <stdio.h>

/* Every VMX instruction reports through CF (VMfailInvalid) and ZF (VMfailValid). */
#define VMX_STATUS(cf, zf) ((cf) ? VMX_FAIL_INVALID : (zf) ? VMX_FAIL_VALID : VMX_OK)

int vmxon(uint64_t region_phys)
{
    uint8_t cf, zf;
    __asm__ volatile("vmxon %2; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "m"(region_phys)
                     : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

int vmxoff(void)
{
    uint8_t cf, zf;
    __asm__ volatile("vmxoff; setc %0; setz %1" : "=r"(cf), "=r"(zf) : : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

int vmclear(uint64_t vmcs_phys)
{
    uint8_t cf, zf;
    __asm__ volatile("vmclear %2; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "m"(vmcs_phys)
                     : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

int vmptrld(uint64_t vmcs_phys)
{
    uint8_t cf, zf;
    __asm__ volatile("vmptrld %2; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "m"(vmcs_phys)
                     : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

uint64_t vmptrst(void)
{
    uint64_t phys;
    __asm__ volatile("vmptrst %0" : "=m"(phys) : : "memory");
    return phys;
}

int vmwrite(uint32_t field, uint64_t value)
{
    uint8_t cf, zf;
    __asm__ volatile("vmwrite %3, %2; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "r"((uint64_t)field), "rm"(value)
                     : "cc");
    return VMX_STATUS(cf, zf);
}

uint64_t vmread(uint32_t field)
{
    uint64_t value = 0;
    uint8_t cf, zf;
    __asm__ volatile("vmread %3, %2; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf), "=rm"(value)
                     : "r"((uint64_t)field)
                     : "cc");
    /* cppcheck-suppress duplicateExpressionTernary ; cppcheck does not see the asm write value */
    return VMX_STATUS(cf, zf) == VMX_OK ? value : 0;
}

int invept(uint32_t type, uint64_t eptp)
{
    struct {
        uint64_t eptp, reserved;
    } desc = { eptp, 0 };
    uint8_t cf, zf;
    __asm__ volatile("invept %2, %3; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "m"(desc), "r"((uint64_t)type)
                     : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

int invvpid(uint32_t type, uint16_t vpid, uint64_t linear)
{
    struct {
        uint64_t vpid, linear;
    } desc = { vpid, linear };
    uint8_t cf, zf;
    __asm__ volatile("invvpid %2, %3; setc %0; setz %1"
                     : "=r"(cf), "=r"(zf)
                     : "m"(desc), "r"((uint64_t)type)
                     : "cc", "memory");
    return VMX_STATUS(cf, zf);
}

uint32_t vmx_instruction_error(void)
{
    return (uint32_t)vmread(VMCS_VM_INSTRUCTION_ERROR);
}

/* VM-instruction error numbers (SDM Vol. 3C §31.4, Table 31-1). */
const char *vmx_instruction_error_name(uint32_t e)
{
    static const char *const names[] = {
        [1] = "VMCALL executed in VMX root operation",
        [2] = "VMCLEAR with invalid physical address",
        [3] = "VMCLEAR with VMXON pointer",
        [4] = "VMLAUNCH with non-clear VMCS",
        [5] = "VMRESUME with non-launched VMCS",
        [6] = "VMRESUME after VMXOFF",
        [7] = "VM entry with invalid control field(s)",
        [8] = "VM entry with invalid host-state field(s)",
        [9] = "VMPTRLD with invalid physical address",
        [10] = "VMPTRLD with VMXON pointer",
        [11] = "VMPTRLD with incorrect VMCS revision identifier",
        [12] = "VMREAD/VMWRITE from/to unsupported VMCS component",
        [13] = "VMWRITE to read-only VMCS component",
        [15] = "VMXON executed in VMX root operation",
        [16] = "VM entry with invalid executive-VMCS pointer",
        [17] = "VM entry with non-launched executive VMCS",
        [18] = "VM entry with executive-VMCS pointer not VMXON pointer",
        [19] = "VMCALL with non-clear VMCS",
        [20] = "VMCALL with invalid VM-exit control fields",
        [22] = "VMCALL with incorrect MSEG revision identifier",
        [23] = "VMXOFF under dual-monitor treatment of SMIs and SMM",
        [24] = "VMCALL with invalid SMM-monitor features",
        [25] = "VM entry with invalid VM-execution control fields in executive VMCS",
        [26] = "VM entry with events blocked by MOV SS",
        [28] = "invalid operand to INVEPT/INVVPID",
    };
    if (e < sizeof names / sizeof names[0] && names[e])
        return names[e];
    return "unknown VM-instruction error";
}

/* Short names of the basic exit reasons (SDM Appendix C), for logs and the shell. */
const char *vmx_exit_reason_name(uint32_t basic_reason)
{
    static const char *const names[EXIT_REASON_COUNT] = {
        [EXIT_REASON_EXCEPTION_NMI] = "exception/NMI",
        [EXIT_REASON_EXTERNAL_INTERRUPT] = "external interrupt",
        [EXIT_REASON_TRIPLE_FAULT] = "triple fault",
        [EXIT_REASON_INIT] = "INIT",
        [EXIT_REASON_SIPI] = "SIPI",
        [EXIT_REASON_INTERRUPT_WINDOW] = "interrupt window",
        [EXIT_REASON_NMI_WINDOW] = "NMI window",
        [EXIT_REASON_TASK_SWITCH] = "task switch",
        [EXIT_REASON_CPUID] = "CPUID",
        [EXIT_REASON_GETSEC] = "GETSEC",
        [EXIT_REASON_HLT] = "HLT",
        [EXIT_REASON_INVD] = "INVD",
        [EXIT_REASON_INVLPG] = "INVLPG",
        [EXIT_REASON_RDPMC] = "RDPMC",
        [EXIT_REASON_RDTSC] = "RDTSC",
        [EXIT_REASON_RSM] = "RSM",
        [EXIT_REASON_VMCALL] = "VMCALL",
        [EXIT_REASON_VMCLEAR] = "VMCLEAR",
        [EXIT_REASON_VMLAUNCH] = "VMLAUNCH",
        [EXIT_REASON_VMPTRLD] = "VMPTRLD",
        [EXIT_REASON_VMPTRST] = "VMPTRST",
        [EXIT_REASON_VMREAD] = "VMREAD",
        [EXIT_REASON_VMRESUME] = "VMRESUME",
        [EXIT_REASON_VMWRITE] = "VMWRITE",
        [EXIT_REASON_VMXOFF] = "VMXOFF",
        [EXIT_REASON_VMXON] = "VMXON",
        [EXIT_REASON_CR_ACCESS] = "CR access",
        [EXIT_REASON_DR_ACCESS] = "DR access",
        [EXIT_REASON_IO_INSTRUCTION] = "I/O",
        [EXIT_REASON_RDMSR] = "RDMSR",
        [EXIT_REASON_WRMSR] = "WRMSR",
        [EXIT_REASON_ENTRY_INVALID_GUEST] = "entry: invalid guest state",
        [EXIT_REASON_ENTRY_MSR_LOADING] = "entry: MSR loading",
        [EXIT_REASON_MWAIT] = "MWAIT",
        [EXIT_REASON_MONITOR_TRAP_FLAG] = "monitor trap flag",
        [EXIT_REASON_MONITOR] = "MONITOR",
        [EXIT_REASON_PAUSE] = "PAUSE",
        [EXIT_REASON_ENTRY_MACHINE_CHECK] = "entry: machine check",
        [EXIT_REASON_TPR_BELOW_THRESHOLD] = "TPR below threshold",
        [EXIT_REASON_APIC_ACCESS] = "APIC access",
        [EXIT_REASON_VIRTUALIZED_EOI] = "virtualized EOI",
        [EXIT_REASON_GDTR_IDTR_ACCESS] = "GDTR/IDTR access",
        [EXIT_REASON_LDTR_TR_ACCESS] = "LDTR/TR access",
        [EXIT_REASON_EPT_VIOLATION] = "EPT violation",
        [EXIT_REASON_EPT_MISCONFIG] = "EPT misconfiguration",
        [EXIT_REASON_INVEPT] = "INVEPT",
        [EXIT_REASON_RDTSCP] = "RDTSCP",
        [EXIT_REASON_PREEMPTION_TIMER] = "preemption timer",
        [EXIT_REASON_INVVPID] = "INVVPID",
        [EXIT_REASON_WBINVD] = "WBINVD",
        [EXIT_REASON_XSETBV] = "XSETBV",
        [EXIT_REASON_APIC_WRITE] = "APIC write",
        [EXIT_REASON_RDRAND] = "RDRAND",
        [EXIT_REASON_INVPCID] = "INVPCID",
        [EXIT_REASON_VMFUNC] = "VMFUNC",
        [EXIT_REASON_ENCLS] = "ENCLS",
        [EXIT_REASON_RDSEED] = "RDSEED",
        [EXIT_REASON_PML_FULL] = "PML full",
        [EXIT_REASON_XSAVES] = "XSAVES",
        [EXIT_REASON_XRSTORS] = "XRSTORS",
    };
    if (basic_reason < EXIT_REASON_COUNT && names[basic_reason])
        return names[basic_reason];
    return "unknown exit reason";
}

void vmx_vmcs_dump(void (*line)(const char *text, void *ctx), void *ctx)
{
    char buf[80];
    for (unsigned i = 0; i < vmcs_field_count; i++) {
        snprintf(buf, sizeof buf, "%-32s %#llx", vmcs_field_names[i].name,
                 (unsigned long long)vmread(vmcs_field_names[i].encoding));
        line(buf, ctx);
    }
}
