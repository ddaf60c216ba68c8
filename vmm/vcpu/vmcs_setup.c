/* The VMCS of a guest, field by field (SDM Vol. 3C §25 "Virtual-Machine Control Structures"
 * and the entry checks of §27.2/§27.3, which every value here satisfies). */
#include "vmm/vcpu/vmcs_setup.h"
#include "vmm/vcpu/vcpu.h"

#include "arch/x86/apic_regs.h"
#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/regs.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx/pure/controls.h"
#include "arch/x86/vmx_controls.h"
#include "tessera/abi/guest.h"
#include "vmm/vcpu/vmx_setup.h"

#include <stdio.h>

extern char vmx_exit_point[];

struct field {
    uint32_t enc;
    uint64_t val;
};

static bool write_all(struct vm *vm, const struct field *f, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (vmwrite(f[i].enc, f[i].val) != VMX_OK) {
            snprintf(vm->reason, sizeof vm->reason, "VMWRITE of field %#x failed: %s", f[i].enc,
                     vmx_instruction_error_name(vmx_instruction_error()));
            return false;
        }
    }
    return true;
}

#define N(a) (sizeof a / sizeof a[0])

/* PAT switching in Linux guests only (vmx_setup.c says why). */
static uint32_t exit_controls(const struct vm *vm)
{
    return vm_is_linux(vm) ? vmx.exit : vmx.exit & ~vmx.exit_pat;
}
static uint32_t entry_controls(const struct vm *vm)
{
    return vm_is_linux(vm) ? vmx.entry : vmx.entry & ~vmx.entry_pat;
}

static bool controls(struct vcpu *c)
{
    struct vm *vm = c->vm;
    const struct field f[] = {
        { VMCS_PIN_BASED_CONTROLS, vmx.pin },
        { VMCS_PROC_BASED_CONTROLS, vmx.proc },
        /* Unrestricted guest for Linux guests only: a Tessera guest never leaves long mode. */
        { VMCS_PROC_BASED_CONTROLS2,
          vm_is_linux(vm) ? vmx.proc2 : vmx.proc2 & ~PROC2_UNRESTRICTED_GUEST },
        { VMCS_EXIT_CONTROLS, exit_controls(vm) },
        { VMCS_ENTRY_CONTROLS, entry_controls(vm) },
        { VMCS_EXCEPTION_BITMAP, 0 }, /* the guest handles its own exceptions */
        { VMCS_PAGE_FAULT_ERROR_MASK, 0 },
        { VMCS_PAGE_FAULT_ERROR_MATCH, 0 },
        { VMCS_CR3_TARGET_COUNT, 0 },
        { VMCS_EXIT_MSR_STORE_COUNT, 0 },
        { VMCS_EXIT_MSR_LOAD_COUNT, 0 },
        { VMCS_ENTRY_MSR_LOAD_COUNT, 0 },
        { VMCS_ENTRY_INTERRUPTION_INFO, 0 },
        { VMCS_MSR_BITMAP, c->msr_bitmap_phys },
        { VMCS_EPT_POINTER, ept_eptp(&vm->ept) },
        { VMCS_VPID, c->vpid },
        { VMCS_VMCS_LINK_POINTER, ~0ULL },
        /* CR0.NE and CR4.VMXE must stay set in VMX operation; the guest reads them as it set
         * them (the read shadows) and a write that would clear them exits. */
        { VMCS_CR0_GUEST_HOST_MASK, CR0_NE },
        { VMCS_CR0_READ_SHADOW, CR0_PE | CR0_NE | CR0_PG | CR0_MP | CR0_ET },
        { VMCS_CR4_GUEST_HOST_MASK, CR4_VMXE },
        { VMCS_CR4_READ_SHADOW, CR4_PAE },
    };
    return write_all(vm, f, N(f));
}

static bool host_state(struct vm *vm)
{
    const struct field f[] = {
        { VMCS_HOST_CR0, read_cr0() },
        { VMCS_HOST_CR3, read_cr3() },
        { VMCS_HOST_CR4, read_cr4() },
        { VMCS_HOST_CS_SELECTOR, GDT_KERNEL_CS },
        { VMCS_HOST_SS_SELECTOR, GDT_KERNEL_DS },
        { VMCS_HOST_DS_SELECTOR, GDT_KERNEL_DS },
        { VMCS_HOST_ES_SELECTOR, GDT_KERNEL_DS },
        { VMCS_HOST_FS_SELECTOR, 0 },
        { VMCS_HOST_GS_SELECTOR, 0 },
        { VMCS_HOST_TR_SELECTOR, GDT_TSS },
        { VMCS_HOST_FS_BASE, 0 },
        { VMCS_HOST_GS_BASE, 0 },
        { VMCS_HOST_TR_BASE, tss_base() },
        { VMCS_HOST_GDTR_BASE, gdt_base() },
        { VMCS_HOST_IDTR_BASE, idt_base() },
        { VMCS_HOST_IA32_SYSENTER_CS, 0 },
        { VMCS_HOST_IA32_SYSENTER_ESP, 0 },
        { VMCS_HOST_IA32_SYSENTER_EIP, 0 },
        { VMCS_HOST_IA32_EFER, rdmsr(MSR_EFER) },
        { VMCS_HOST_RIP, (uint64_t)(uintptr_t)vmx_exit_point },
        /* HOST_RSP is written by vmx_run on every entry. */
    };
    return write_all(vm, f, N(f));
}

/* IA32_PAT: the host's own on exit, the reset value for the guest (guest_msr.h). */
static bool pat_state(struct vm *vm)
{
    uint32_t exit = exit_controls(vm), entry = entry_controls(vm);
    if ((exit & EXIT_LOAD_IA32_PAT) && vmwrite(VMCS_HOST_IA32_PAT, rdmsr(MSR_IA32_PAT)) != VMX_OK)
        return false;
    if ((entry & ENTRY_LOAD_IA32_PAT || exit & EXIT_SAVE_IA32_PAT) &&
        vmwrite(VMCS_GUEST_IA32_PAT, PAT_RESET_VALUE) != VMX_OK)
        return false;
    return true;
}

/* What every start leaves at its reset value, whatever mode it starts in: no LDT, debug state,
 * SYSENTER, no blocking, active. */
static bool reset_fields(struct vm *vm)
{
    const struct field f[] = {
        { VMCS_GUEST_LDTR_SELECTOR, 0 },     { VMCS_GUEST_LDTR_BASE, 0 },
        { VMCS_GUEST_LDTR_LIMIT, 0xFFFF },   { VMCS_GUEST_LDTR_AR, VMX_AR_UNUSABLE },
        { VMCS_GUEST_DR7, 0x400 }, /* architectural reset value */
        { VMCS_GUEST_IA32_DEBUGCTL, 0 },     { VMCS_GUEST_IA32_SYSENTER_CS, 0 },
        { VMCS_GUEST_IA32_SYSENTER_ESP, 0 }, { VMCS_GUEST_IA32_SYSENTER_EIP, 0 },
        { VMCS_GUEST_INTERRUPTIBILITY, 0 },  { VMCS_GUEST_ACTIVITY_STATE, 0 },
        { VMCS_GUEST_PENDING_DEBUG, 0 },
    };
    return write_all(vm, f, N(f));
}

static bool guest_state(struct vm *vm)
{
    const struct vm_boot_state *b = &vm->boot;
    uint64_t cr0 = vmx_fixed_bits_apply(CR0_PE | CR0_NE | CR0_PG | CR0_MP | CR0_ET, vmx.cr0_fixed0,
                                        vmx.cr0_fixed1);
    uint64_t cr4 = vmx_fixed_bits_apply(CR4_PAE | CR4_VMXE, vmx.cr4_fixed0, vmx.cr4_fixed1);
    const struct field f[] = {
        { VMCS_GUEST_CR0, cr0 },
        { VMCS_GUEST_CR3, TESSERA_GUEST_PT_BASE },
        { VMCS_GUEST_CR4, cr4 },
        { VMCS_GUEST_IA32_EFER, EFER_LME | EFER_LMA | EFER_NXE },
        { VMCS_GUEST_RSP, b->rsp },
        { VMCS_GUEST_RIP, b->rip },
        { VMCS_GUEST_RFLAGS, 0x2 }, /* bit 1 is always 1; IF = 0 */
        { VMCS_GUEST_CS_SELECTOR, b->cs },
        { VMCS_GUEST_CS_BASE, 0 },
        { VMCS_GUEST_CS_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_CS_AR, VMX_AR_CODE64 },
        { VMCS_GUEST_SS_SELECTOR, b->ds },
        { VMCS_GUEST_SS_BASE, 0 },
        { VMCS_GUEST_SS_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_SS_AR, VMX_AR_DATA },
        { VMCS_GUEST_DS_SELECTOR, b->ds },
        { VMCS_GUEST_DS_BASE, 0 },
        { VMCS_GUEST_DS_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_DS_AR, VMX_AR_DATA },
        { VMCS_GUEST_ES_SELECTOR, b->ds },
        { VMCS_GUEST_ES_BASE, 0 },
        { VMCS_GUEST_ES_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_ES_AR, VMX_AR_DATA },
        { VMCS_GUEST_FS_SELECTOR, b->ds },
        { VMCS_GUEST_FS_BASE, 0 },
        { VMCS_GUEST_FS_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_FS_AR, VMX_AR_DATA },
        { VMCS_GUEST_GS_SELECTOR, b->ds },
        { VMCS_GUEST_GS_BASE, 0 },
        { VMCS_GUEST_GS_LIMIT, 0xFFFFFFFF },
        { VMCS_GUEST_GS_AR, VMX_AR_DATA },
        { VMCS_GUEST_TR_SELECTOR, 0 },
        { VMCS_GUEST_TR_BASE, 0 },
        { VMCS_GUEST_TR_LIMIT, 0x67 },
        { VMCS_GUEST_TR_AR, VMX_AR_TSS64_BUSY },
        { VMCS_GUEST_GDTR_BASE, b->gdt_base },
        { VMCS_GUEST_GDTR_LIMIT, b->gdt_limit },
        { VMCS_GUEST_IDTR_BASE, 0 },
        { VMCS_GUEST_IDTR_LIMIT, 0 },
    };
    return write_all(vm, f, N(f)) && reset_fields(vm);
}

/* What an AP is at its STARTUP (SDM Vol. 3A §9.1.1 Table 9-1 and §9.4.4; KVM's
 * kvm_vcpu_deliver_sipi_vector and vmx_vcpu_reset do the same): real mode, paging and
 * protection off, CS = vector << 8 based at vector << 12, IP 0, the other segments at 0 with
 * 64 KiB limits, EFER 0.  CR0 keeps the bits VMX operation fixes (NE), which unrestricted guest
 * allows with PE and PG clear (§27.3.1.1); CD and NW stay clear (caching as the BSP has it). */
static bool real_mode_state(struct vm *vm, uint8_t vector)
{
    uint64_t cr0 = vmx_fixed_bits_apply(CR0_NE | CR0_ET, vmx_guest_cr0_fixed0(vmx.cr0_fixed0, true),
                                        vmx.cr0_fixed1);
    uint64_t cr4 = vmx_fixed_bits_apply(CR4_VMXE, vmx.cr4_fixed0, vmx.cr4_fixed1);
    /* The page the STARTUP names (§11.6.1: vector << 12), as a real-mode segment (base >> 4). */
    const uint64_t base = (uint64_t)vector << LAPIC_ICR_STARTUP_PAGE_SHIFT;
    const struct field f[] = {
        { VMCS_ENTRY_CONTROLS, entry_controls(vm) & ~(uint64_t)ENTRY_IA32E_MODE_GUEST },
        { VMCS_GUEST_CR0, cr0 },
        { VMCS_GUEST_CR3, 0 },
        { VMCS_GUEST_CR4, cr4 },
        { VMCS_GUEST_IA32_EFER, 0 },
        { VMCS_GUEST_RSP, 0 },
        { VMCS_GUEST_RIP, 0 },
        { VMCS_GUEST_RFLAGS, 0x2 },
        { VMCS_GUEST_CS_SELECTOR, base >> REAL_MODE_SEGMENT_SHIFT },
        { VMCS_GUEST_CS_BASE, base },
        { VMCS_GUEST_CS_LIMIT, 0xFFFF },
        { VMCS_GUEST_CS_AR, VMX_AR_CODE16 },
        { VMCS_GUEST_SS_SELECTOR, 0 },
        { VMCS_GUEST_SS_BASE, 0 },
        { VMCS_GUEST_SS_LIMIT, 0xFFFF },
        { VMCS_GUEST_SS_AR, VMX_AR_DATA16 },
        { VMCS_GUEST_DS_SELECTOR, 0 },
        { VMCS_GUEST_DS_BASE, 0 },
        { VMCS_GUEST_DS_LIMIT, 0xFFFF },
        { VMCS_GUEST_DS_AR, VMX_AR_DATA16 },
        { VMCS_GUEST_ES_SELECTOR, 0 },
        { VMCS_GUEST_ES_BASE, 0 },
        { VMCS_GUEST_ES_LIMIT, 0xFFFF },
        { VMCS_GUEST_ES_AR, VMX_AR_DATA16 },
        { VMCS_GUEST_FS_SELECTOR, 0 },
        { VMCS_GUEST_FS_BASE, 0 },
        { VMCS_GUEST_FS_LIMIT, 0xFFFF },
        { VMCS_GUEST_FS_AR, VMX_AR_DATA16 },
        { VMCS_GUEST_GS_SELECTOR, 0 },
        { VMCS_GUEST_GS_BASE, 0 },
        { VMCS_GUEST_GS_LIMIT, 0xFFFF },
        { VMCS_GUEST_GS_AR, VMX_AR_DATA16 },
        { VMCS_GUEST_TR_SELECTOR, 0 },
        { VMCS_GUEST_TR_BASE, 0 },
        { VMCS_GUEST_TR_LIMIT, 0xFFFF },
        { VMCS_GUEST_TR_AR, VMX_AR_TSS_BUSY },
        { VMCS_GUEST_GDTR_BASE, 0 },
        { VMCS_GUEST_GDTR_LIMIT, 0xFFFF },
        { VMCS_GUEST_IDTR_BASE, 0 },
        { VMCS_GUEST_IDTR_LIMIT, 0xFFFF },
        { VMCS_ENTRY_INTERRUPTION_INFO, 0 },
    };
    return write_all(vm, f, N(f)) && reset_fields(vm);
}

bool vmcs_enter_real_mode(struct vcpu *c, uint8_t vector)
{
    struct vm *vm = c->vm;
    if (!(vmx.proc2 & PROC2_UNRESTRICTED_GUEST) || !vm_is_linux(vm)) {
        snprintf(vm->reason, sizeof vm->reason, "the CPU has no unrestricted guest");
        return false;
    }
    return real_mode_state(vm, vector) && pat_state(vm);
}

bool vmcs_setup(struct vcpu *c)
{
    struct vm *vm = c->vm;
    *(uint32_t *)(uintptr_t)c->vmcs_phys = vmx.revision;
    if (vmclear(c->vmcs_phys) != VMX_OK || vmptrld(c->vmcs_phys) != VMX_OK) {
        snprintf(vm->reason, sizeof vm->reason, "VMCLEAR/VMPTRLD of the guest's VMCS failed");
        return false;
    }
    c->launched = false;
    if (!pat_state(vm)) {
        snprintf(vm->reason, sizeof vm->reason, "VMWRITE of the PAT fields failed: %s",
                 vmx_instruction_error_name(vmx_instruction_error()));
        return false;
    }
    return controls(c) && host_state(vm) && guest_state(vm);
}
