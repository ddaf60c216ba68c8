/* Interrupts into a guest's vCPU (see inject.h).  SDM references are Vol. 3C, 2023 edition. */
#include "vmm/vcpu/inject.h"

#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/log.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vdev/virq.h"

/* The APIC timer's input clock: one tick per TSC tick.  CPUID leaf 0x15 must then report the
 * core crystal at the TSC's rate (ECX = tsc_hz, EBX/EAX = 1/1), which is what Linux takes as
 * the APIC timer rate when it does not use TSC-deadline mode. */
#define VLAPIC_TSC_PER_TICK 1

void vcpu_irq_reset(struct vm *vm)
{
    vlapic_reset(&vm->vcpu->lapic, VLAPIC_TSC_PER_TICK);
    vlapic_set_id(&vm->vcpu->lapic, 0);
    vm->vcpu->mp.lapic = &vm->vcpu->lapic;
    vipi_cpu_reset(&vm->vcpu->mp, 0);
    vpic_reset(&vm->pic);
    vm->vcpu->halted = false;
    vm->vcpu->irq_window = false; /* vmcs_setup left interrupt-window exiting off */
    vm->vcpu->msi_refused_said = false;
}

/* ---- Event injection ---- */

static void set_interrupt_window(struct vm *vm, bool on)
{
    if (vm->vcpu->irq_window == on)
        return;
    uint64_t proc = vmread(VMCS_PROC_BASED_CONTROLS);
    vmwrite(VMCS_PROC_BASED_CONTROLS, on ? proc | PROC_INTERRUPT_WINDOW_EXITING
                                         : proc & ~(uint64_t)PROC_INTERRUPT_WINDOW_EXITING);
    vm->vcpu->irq_window = on;
}

/* §27.3.1.5 and §27.6.1: an external interrupt may be injected only with RFLAGS.IF = 1 and no
 * blocking by STI or MOV SS; nothing else may already be queued for this entry. */
static bool can_inject_now(void)
{
    if (vmread(VMCS_ENTRY_INTERRUPTION_INFO) & INTR_INFO_VALID)
        return false; /* a re-injected event or an exception goes first */
    if (!(vmread(VMCS_GUEST_RFLAGS) & RFLAGS_IF))
        return false;
    return !(vmread(VMCS_GUEST_INTERRUPTIBILITY) &
             (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
}

void vcpu_irq_before_entry(struct vm *vm, uint64_t now)
{
    vlapic_advance(&vm->vcpu->lapic, now);
    if (virq_next(&vm->vcpu->lapic, &vm->pic) == VIRQ_NONE) {
        set_interrupt_window(vm, false);
        return;
    }
    if (!can_inject_now()) {
        set_interrupt_window(vm, true); /* exit as soon as the guest can take it */
        return;
    }
    int vector = virq_ack(&vm->vcpu->lapic, &vm->pic);
    vmwrite(VMCS_ENTRY_INTERRUPTION_INFO,
            INTR_INFO_VALID | INTR_TYPE_EXT_INTERRUPT | ((uint32_t)vector & INTR_INFO_VECTOR_MASK));
    vm->vcpu->irqs_injected++;
    /* Another one already deliverable: take it when the handler re-enables interrupts. */
    set_interrupt_window(vm, virq_next(&vm->vcpu->lapic, &vm->pic) != VIRQ_NONE);
}

/* §28.2.4: the IDT-vectoring information field describes an event whose delivery the exit
 * interrupted; §27.6 takes it back through the VM-entry fields, with its error code and, for
 * software interrupts and exceptions, the instruction length (§28.2.5). */
bool vcpu_irq_after_exit(struct vm *vm, const struct exit_info *x)
{
    uint32_t idt = (uint32_t)vmread(VMCS_IDT_VECTORING_INFO);
    if (!(idt & INTR_INFO_VALID))
        return true;
    uint32_t type = idt & INTR_INFO_TYPE_MASK, vector = idt & INTR_INFO_VECTOR_MASK;
    if (x->reason == EXIT_REASON_EPT_VIOLATION) {
        /* Guest RAM is always mapped: the IDT, the stack or the handler lies outside it. */
        vm_stop(vm, VM_CRASHED,
                "delivering vector %u (event type %u) touched guest-physical %#llx "
                "outside its RAM (RIP %#llx)",
                vector, type >> 8, (unsigned long long)vmread(VMCS_GUEST_PHYSICAL_ADDRESS),
                (unsigned long long)x->rip);
        return false;
    }
    vmwrite(VMCS_ENTRY_INTERRUPTION_INFO, idt & (INTR_INFO_VALID | INTR_INFO_DELIVER_ERROR_CODE |
                                                 INTR_INFO_TYPE_MASK | INTR_INFO_VECTOR_MASK));
    if (idt & INTR_INFO_DELIVER_ERROR_CODE)
        vmwrite(VMCS_ENTRY_EXCEPTION_ERROR_CODE, vmread(VMCS_IDT_VECTORING_ERROR_CODE));
    if (type == INTR_TYPE_SW_INTERRUPT || type == INTR_TYPE_PRIV_SW_EXCEPTION ||
        type == INTR_TYPE_SW_EXCEPTION)
        vmwrite(VMCS_ENTRY_INSTRUCTION_LENGTH, x->insn_len);
    vm->vcpu->events_reinjected++;
    return true;
}

uint64_t vcpu_irq_next_timer(const struct vm *vm)
{
    return vlapic_next_timer(&vm->vcpu->lapic);
}

bool vcpu_irq_wake(struct vm *vm, uint64_t now)
{
    vlapic_advance(&vm->vcpu->lapic, now);
    if (virq_next(&vm->vcpu->lapic, &vm->pic) == VIRQ_NONE)
        return false;
    vm->vcpu->halted = false;
    return true;
}

/* ---- Exits ---- */

/* HLT with interrupts on waits for an interrupt: the vCPU leaves the run queue until its APIC
 * timer fires or a device raises one (vcpu_irq_wake).  With interrupts off it keeps the
 * unikernel contract of include/tessera/abi/guest.h: a yield, resumed at the next turn. */
enum exit_action exit_hlt(struct vm *vm, const struct exit_info *x)
{
    exit_skip_instruction(x);
    if (!(vmread(VMCS_GUEST_RFLAGS) & RFLAGS_IF))
        return EXIT_YIELD;
    if (vcpu_irq_wake(vm, rdtsc()))
        return EXIT_RESUME; /* one is ready already: injected at the entry */
    vm->vcpu->halted = true;
    return EXIT_YIELD;
}

enum exit_action exit_interrupt_window(struct vm *vm, const struct exit_info *x)
{
    return EXIT_RESUME; /* vcpu_irq_before_entry injects it */
}

bool exit_apic_msr(struct vm *vm, const struct exit_info *x, uint32_t msr, bool write,
                   uint64_t value, enum exit_action *action)
{
    if (!vlapic_owns_msr(msr))
        return false;
    uint64_t v = 0, ignored = vm->vcpu->lapic.ignored_ipis;
    enum vlapic_result r = write ? vlapic_wrmsr(&vm->vcpu->lapic, msr, value, rdtsc())
                                 : vlapic_rdmsr(&vm->vcpu->lapic, msr, rdtsc(), &v);
    *action = EXIT_RESUME;
    if (r == VLAPIC_IPI_SENT) {
        /* The guest's one vCPU is the BSP and runs: INIT and STARTUP to it are dropped by the
         * router, so nothing here asks for a reset or a start, and nothing needs a kick. */
        struct vipi_cpu *cpus[] = { &vm->vcpu->mp };
        vipi_route(cpus, 1, 0, &vm->vcpu->lapic.ipi);
        r = VLAPIC_OK;
    }
    switch (r) {
    case VLAPIC_IPI_SENT:
    case VLAPIC_OK:
        if (!write) {
            vm->vcpu->gprs.gpr[GPR_RAX] = (uint32_t)v;
            vm->vcpu->gprs.gpr[GPR_RDX] = v >> 32;
        }
        if (!ignored && vm->vcpu->lapic.ignored_ipis)
            log_warn(
                "guest %u (%s): an IPI with delivery mode %llu to itself is not emulated or not "
                "valid (NMI, SMI; INIT or STARTUP to the bootstrap processor): ignored (said once)",
                vm->id, vm->cfg->name,
                (unsigned long long)((value & LAPIC_ICR_DELIVERY_MASK) >> 8));
        exit_skip_instruction(x);
        break;
    case VLAPIC_GP:
        if (write)
            log_warn(
                "guest %u (%s): WRMSR %#x <- %#llx at RIP %#llx faults on an x2APIC: #GP injected",
                vm->id, vm->cfg->name, msr, (unsigned long long)value, (unsigned long long)x->rip);
        else
            log_warn("guest %u (%s): RDMSR %#x at RIP %#llx faults on an x2APIC: #GP injected",
                     vm->id, vm->cfg->name, msr, (unsigned long long)x->rip);
        exit_inject_gp();
        break;
    case VLAPIC_XAPIC_REFUSED:
        vm_stop(vm, VM_CRASHED, "%s (IA32_APIC_BASE <- %#llx at RIP %#llx)", VLAPIC_XAPIC_REASON,
                (unsigned long long)value, (unsigned long long)x->rip);
        *action = EXIT_STOPPED;
        break;
    }
    return true;
}

void vcpu_irq_cpuid(uint32_t leaf, struct cpuid_regs *r)
{
    if (leaf != 1)
        return;
    r->ecx |= (uint32_t)(CPUID_1_ECX_X2APIC | CPUID_1_ECX_TSC_DEADLINE);
    r->edx |= (uint32_t)CPUID_1_EDX_APIC;
    r->ebx &= ~(0xFFu << CPUID_1_EBX_APIC_ID_SHIFT); /* initial APIC ID 0 */
}

/* ---- MSI, for devices (the vGPU) ---- */

static const char *msi_refusal(enum vlapic_msi_result r)
{
    switch (r) {
    case VLAPIC_MSI_BAD_ADDRESS:
        return "address outside 0xFEExxxxx";
    case VLAPIC_MSI_NOT_FOR_US:
        return "destination is not APIC 0";
    case VLAPIC_MSI_UNSUPPORTED_MODE:
        return "delivery mode other than fixed or lowest priority";
    case VLAPIC_MSI_ILLEGAL_VECTOR:
        return "vector below 16";
    case VLAPIC_MSI_APIC_DISABLED:
        return "the guest's APIC is software-disabled";
    default:
        return "delivered";
    }
}

bool vm_deliver_msi(struct vm *vm, uint64_t addr, uint32_t data)
{
    if (vm->state != VM_RUNNING)
        return false;
    enum vlapic_msi_result r = vlapic_deliver_msi(&vm->vcpu->lapic, addr, data);
    if (r == VLAPIC_MSI_DELIVERED) {
        vcpu_kick(vm); /* its CPU may be another one, in the guest or idle */
        return true;
    }
    if (!vm->vcpu->msi_refused_said) {
        vm->vcpu->msi_refused_said = true;
        log_warn(
            "guest %u (%s): MSI address %#llx data %#x not delivered: %s (said once per start)",
            vm->id, vm->cfg->name, (unsigned long long)addr, data, msi_refusal(r));
    }
    return false;
}
