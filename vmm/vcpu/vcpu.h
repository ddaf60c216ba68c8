/* A guest's virtual CPU, apart from its VM (vmm/vm.h): the VMCS, the registers and FPU state the
 * VMCS does not hold, the guest's MSRs, its local APIC and where its interrupts stand, and its
 * time and exit counters.  A Tessera guest has one, a Linux guest one or more (configuration
 * `cpus`); the VM reaches them through struct vm_cpu_ops, which vcpu_ops implements here
 * (vcpu.c), so the guests' lifecycle needs nothing of VMX. */
#ifndef TESSERA_VMM_VCPU_VCPU_H
#define TESSERA_VMM_VCPU_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "arch/x86/vmx_exit_reasons.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vdev/vipi.h"
#include "vmm/vdev/vlapic.h"
#include "vmm/vm.h"

struct vcpu {
    struct vm *vm;
    unsigned index; /* in vm->vcpus: its x2APIC ID; 0 is the bootstrap processor */
    uint64_t vmcs_phys, msr_bitmap_phys; /* taken at its first start, kept */
    bool launched;
    uint16_t vpid;
    /* The CPU that owns it (vcpu_place_all): the only one that loads its VMCS, enters it and
     * holds translations of its EPT; and its place in that CPU's run queue. */
    unsigned pcpu, slot;

    struct vmx_gprs gprs;
    uint8_t fpu[512] __attribute__((aligned(16))); /* guest FXSAVE image */
    struct guest_msrs msrs;

    /* The interrupt path (inject.c). */
    struct vlapic lapic;   /* x2APIC, timer on the TSC */
    struct vipi_cpu mp;    /* its start-up state and the IPIs it received (its lapic) */
    bool halted;           /* HLT with interrupts on: off the run queue until one is ready */
    bool irq_window;       /* interrupt-window exiting is on in its VMCS */
    bool msi_refused_said; /* an undeliverable MSI was logged since the last start */
    uint64_t irqs_injected, events_reinjected;

    uint64_t exits, exit_count[EXIT_REASON_COUNT];
    uint32_t last_exit;
    uint64_t run_ns; /* time on the CPU, since boot */
    /* The hypervisor's work inside its exits (part of run_ns), per reason, in TSC ticks: in all,
     * and the longest one, which no other guest can cut short. */
    uint64_t exit_work[EXIT_REASON_COUNT], exit_work_max[EXIT_REASON_COUNT];
};

/* create: the vCPU (its interrupt controllers at reset) and the guest's MMIO window (above its
 * RAM, below the top of the guest-physical space its CPU addresses, CPUID.80000008H within
 * EPT's 48 bits).  start: the VMCS and MSR bitmap (taken at the first start), the VMCS written
 * for vm->boot, registers, FPU, MSRs and interrupts at reset, EPT and VPID translations
 * flushed. */
extern const struct vm_cpu_ops vcpu_ops;
/* It runs: the BSP, or an AP that has received its STARTUP (and no INIT since). */
static inline bool vcpu_started(const struct vcpu *c)
{
    return c->mp.mp == VIPI_RUNNABLE;
}
/* General registers zeroed but RSI (the entry's argument), x87/SSE state as after reset. */
void vcpu_regs_reset(struct vcpu *c, uint64_t rsi);

#endif
