/* The VMX instructions (SDM Vol. 3C chapter 31), each checked: a failed instruction returns a
 * negative value and, for VMfailValid, leaves the VM-instruction error readable with
 * vmx_instruction_error() and printable with vmx_instruction_error_name(). */
#ifndef TESSERA_ARCH_X86_VMX_H
#define TESSERA_ARCH_X86_VMX_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmcs/fields.h"

#define VMX_OK           0
#define VMX_FAIL_INVALID (-1) /* CF=1: no current VMCS or a bad pointer */
#define VMX_FAIL_VALID   (-2) /* ZF=1: error number in VMCS_VM_INSTRUCTION_ERROR */

/* INVEPT / INVVPID types (SDM §31.3, INVEPT and INVVPID). */
#define INVEPT_SINGLE_CONTEXT  1
#define INVEPT_ALL_CONTEXTS    2
#define INVVPID_SINGLE_CONTEXT 1
#define INVVPID_ALL_CONTEXTS   2

int vmxon(uint64_t region_phys);
int vmxoff(void);
int vmclear(uint64_t vmcs_phys);
int vmptrld(uint64_t vmcs_phys);
/* The current VMCS's address, VMX_NO_VMCS when there is none (SDM §31.3, VMPTRST). */
uint64_t vmptrst(void);
#define VMX_NO_VMCS 0xFFFFFFFFFFFFFFFFULL
int vmwrite(uint32_t field, uint64_t value);
/* VMREAD of a field the current VMCS has; 0 (and a logged error) if the read fails. */
uint64_t vmread(uint32_t field);
int invept(uint32_t type, uint64_t eptp);
int invvpid(uint32_t type, uint16_t vpid, uint64_t linear);

uint32_t vmx_instruction_error(void);
const char *vmx_instruction_error_name(uint32_t error);
const char *vmx_exit_reason_name(uint32_t basic_reason);

/* Guest general-purpose registers, saved and restored around every VM entry by vmx_run
 * (RSP and RIP live in the VMCS).  The order is the x86 register number, so an instruction's
 * register field indexes gpr[] directly. */
enum {
    GPR_RAX,
    GPR_RCX,
    GPR_RDX,
    GPR_RBX,
    GPR_RSP,
    GPR_RBP,
    GPR_RSI,
    GPR_RDI,
    GPR_R8,
    GPR_R9,
    GPR_R10,
    GPR_R11,
    GPR_R12,
    GPR_R13,
    GPR_R14,
    GPR_R15,
    GPR_COUNT
};
struct vmx_gprs {
    uint64_t gpr[GPR_COUNT]; /* gpr[GPR_RSP] is unused: RSP is a VMCS field */
};

/* Enters the guest of the current VMCS (VMLAUNCH when !launched, else VMRESUME) and returns at
 * its next VM exit with its registers saved in *g: VMX_OK, or VMX_FAIL_* when the entry
 * instruction itself failed. */
int vmx_run(struct vmx_gprs *g, int launched);

/* Prints every VMCS field by name (the shell's `vcpu <vm> all`). */
void vmx_vmcs_dump(void (*line)(const char *text, void *ctx), void *ctx);

#endif
