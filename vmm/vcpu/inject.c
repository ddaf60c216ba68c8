/* Interrupts into a guest's vCPU (see inject.h).  SDM references are Vol. 3C, 2023 edition. */
#include "vmm/vcpu/inject.h"

#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/log.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vcpu/vmcs_setup.h"
#include "vmm/vdev/virq.h"

/* The APIC timer's input clock: one tick per TSC tick.  CPUID leaf 0x15 must then report the
 * core crystal at the TSC's rate (ECX = tsc_hz, EBX/EAX = 1/1), which is what Linux takes as
 * the APIC timer rate when it does not use TSC-deadline mode. */
#define VLAPIC_TSC_PER_TICK 1

/* The 8259 pair is wired to the BSP's LINT0 only (as ACRN and KVM wire it): the others see none. */
static struct vpic *pic_of(const struct vcpu *c)
{
    return c->index == 0 ? &c->vm->pic : NULL;
}

void vcpu_irq_reset(struct vcpu *c)
{
    vlapic_reset(&c->lapic, VLAPIC_TSC_PER_TICK);
    vlapic_set_id(&c->lapic, c->index);
    c->mp.lapic = &c->lapic;
    vipi_cpu_reset(&c->mp, c->index);
    c->halted = false;
    c->irq_window = false; /* vmcs_setup left interrupt-window exiting off */
    c->msi_refused_said = false;
}

/* ---- Event injection ---- */

static void set_interrupt_window(struct vcpu *c, bool on)
{
    if (c->irq_window == on)
        return;
    uint64_t proc = vmread(VMCS_PROC_BASED_CONTROLS);
    vmwrite(VMCS_PROC_BASED_CONTROLS, on ? proc | PROC_INTERRUPT_WINDOW_EXITING
                                         : proc & ~(uint64_t)PROC_INTERRUPT_WINDOW_EXITING);
    c->irq_window = on;
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

void vcpu_irq_before_entry(struct vcpu *c, uint64_t now)
{
    vlapic_advance(&c->lapic, now);
    if (virq_next(&c->lapic, pic_of(c)) == VIRQ_NONE) {
        set_interrupt_window(c, false);
        return;
    }
    if (!can_inject_now()) {
        set_interrupt_window(c, true); /* exit as soon as the guest can take it */
        return;
    }
    int vector = virq_ack(&c->lapic, pic_of(c));
    vmwrite(VMCS_ENTRY_INTERRUPTION_INFO,
            INTR_INFO_VALID | INTR_TYPE_EXT_INTERRUPT | ((uint32_t)vector & INTR_INFO_VECTOR_MASK));
    c->irqs_injected++;
    /* Another one already deliverable: take it when the handler re-enables interrupts. */
    set_interrupt_window(c, virq_next(&c->lapic, pic_of(c)) != VIRQ_NONE);
}

/* §28.2.4: the IDT-vectoring information field describes an event whose delivery the exit
 * interrupted; §27.6 takes it back through the VM-entry fields, with its error code and, for
 * software interrupts and exceptions, the instruction length (§28.2.5). */
bool vcpu_irq_after_exit(struct vcpu *c, const struct exit_info *x)
{
    struct vm *vm = c->vm;
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
    c->events_reinjected++;
    return true;
}

/* §9.4.4: an AP starts in real mode at vector << 12 with its registers at reset. */
bool vcpu_irq_take_startup(struct vcpu *c)
{
    if (!c->mp.sipi_start)
        return true;
    c->mp.sipi_start = false;
    vcpu_regs_reset(c, 0);
    c->halted = false;
    if (!vmcs_enter_real_mode(c, c->mp.sipi_vector)) {
        vm_stop(c->vm, VM_CRASHED, "vCPU %u could not be started in real mode: %s", c->index,
                c->vm->reason);
        return false;
    }
    return true;
}

uint64_t vcpu_irq_next_timer(const struct vcpu *c)
{
    return vlapic_next_timer(&c->lapic);
}

bool vcpu_irq_wake(struct vcpu *c, uint64_t now)
{
    vlapic_advance(&c->lapic, now);
    if (virq_next(&c->lapic, pic_of(c)) == VIRQ_NONE)
        return false;
    c->halted = false;
    return true;
}

/* ---- Exits ---- */

/* HLT with interrupts on waits for an interrupt: the vCPU leaves the run queue until its APIC
 * timer fires or a device raises one (vcpu_irq_wake).  With interrupts off it keeps the
 * unikernel contract of include/tessera/abi/guest.h: a yield, resumed at the next turn. */
enum exit_action exit_hlt(struct vcpu *c, const struct exit_info *x)
{
    exit_skip_instruction(x);
    if (!(vmread(VMCS_GUEST_RFLAGS) & RFLAGS_IF))
        return EXIT_YIELD;
    if (vcpu_irq_wake(c, rdtsc()))
        return EXIT_RESUME; /* one is ready already: injected at the entry */
    c->halted = true;
    return EXIT_YIELD;
}

enum exit_action exit_interrupt_window(struct vcpu *c, const struct exit_info *x)
{
    return EXIT_RESUME; /* vcpu_irq_before_entry injects it */
}

static uint64_t ignored_ipis(const struct vm *vm)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < vm->n_vcpus; i++)
        n += vm->vcpus[i]->lapic.ignored_ipis;
    return n;
}

/* The IPI vCPU c sent (ICR value `icr`), to the guest's vCPUs (vmm/vdev/vipi.h); the others it
 * reached look at it at once (their CPUs may be others, in the guest or idle). */
static void send_ipi(struct vcpu *c, uint64_t icr)
{
    struct vm *vm = c->vm;
    uint64_t ignored = ignored_ipis(vm);
    struct vipi_cpu *cpus[CFG_VCPUS_MAX];
    for (unsigned i = 0; i < vm->n_vcpus; i++)
        cpus[i] = &vm->vcpus[i]->mp;
    uint64_t reached = vipi_route(cpus, vm->n_vcpus, c->index, &c->lapic.ipi);
    for (unsigned i = 0; i < vm->n_vcpus; i++) {
        if (!(reached >> i & 1))
            continue;
        struct vcpu *t = vm->vcpus[i];
        if (t->mp.init_reset) {
            t->mp.init_reset = false; /* its registers are set anew by the STARTUP */
            t->halted = false;
        }
        if (t != c)
            vcpu_kick_one(t);
    }
    if (!ignored && ignored_ipis(vm))
        log_warn("guest %u (%s): an IPI with delivery mode %llu is not emulated or not valid (NMI, "
                 "SMI; INIT or STARTUP to the bootstrap processor; a shorthand to itself other "
                 "than fixed): ignored (said once)",
                 vm->id, vm->cfg->name, (unsigned long long)((icr & LAPIC_ICR_DELIVERY_MASK) >> 8));
}

bool exit_apic_msr(struct vcpu *c, const struct exit_info *x, uint32_t msr, bool write,
                   uint64_t value, enum exit_action *action)
{
    struct vm *vm = c->vm;
    if (!vlapic_owns_msr(msr))
        return false;
    uint64_t v = 0;
    enum vlapic_result r = write ? vlapic_wrmsr(&c->lapic, msr, value, rdtsc())
                                 : vlapic_rdmsr(&c->lapic, msr, rdtsc(), &v);
    *action = EXIT_RESUME;
    switch (r) {
    case VLAPIC_IPI_SENT:
        send_ipi(c, value);
        if (!vcpu_started(c))
            *action = EXIT_YIELD; /* an AP that sent itself an INIT waits from now on */
        /* fall through */
    case VLAPIC_OK:
        if (!write) {
            c->gprs.gpr[GPR_RAX] = (uint32_t)v;
            c->gprs.gpr[GPR_RDX] = v >> 32;
        }
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
        return "destination names none of its vCPUs' APICs";
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
    if (vm->state != VM_RUNNING || !vm->n_vcpus)
        return false;
    /* To the first vCPU the destination names (an MSI names one APIC, or a logical set: lowest
     * priority and a logical fixed MSI to several are taken by the first, as in vipi.c). */
    enum vlapic_msi_result r = VLAPIC_MSI_NOT_FOR_US;
    for (unsigned i = 0; i < vm->n_vcpus && r == VLAPIC_MSI_NOT_FOR_US; i++) {
        r = vlapic_deliver_msi(&vm->vcpus[i]->lapic, addr, data);
        if (r == VLAPIC_MSI_DELIVERED) {
            vcpu_kick_one(vm->vcpus[i]); /* its CPU may be another one, in the guest or idle */
            return true;
        }
    }
    struct vcpu *c = vm->vcpus[0];
    if (!c->msi_refused_said) {
        c->msi_refused_said = true;
        log_warn(
            "guest %u (%s): MSI address %#llx data %#x not delivered: %s (said once per start)",
            vm->id, vm->cfg->name, (unsigned long long)addr, data, msi_refusal(r));
    }
    return false;
}
