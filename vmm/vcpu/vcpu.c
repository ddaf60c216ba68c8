/* A guest's vCPU created and reset for its VM (vcpu.h). */
#include "vmm/vcpu/vcpu.h"

#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/vcpu/exit.h"
#include "vmm/vcpu/inject.h"
#include "vmm/vcpu/msr_bitmap.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vcpu/vmcs_setup.h"
#include "vmm/vcpu/vmx_setup.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FXSAVE_FCW_OFFSET    0
#define FXSAVE_MXCSR_OFFSET  24
#define FXSAVE_FCW_DEFAULT   0x037F /* all x87 exceptions masked, extended precision */
#define FXSAVE_MXCSR_DEFAULT 0x1F80 /* all SSE exceptions masked */
#define VCPU_ALIGN           64     /* the FXSAVE image needs 16; a cache line */

static bool vcpu_create(struct vm *vm)
{
    unsigned n = vm->cfg->cpus.n ? vm->cfg->cpus.n : 1;
    for (unsigned i = 0; i < n && i < CFG_VCPUS_MAX; i++) {
        struct vcpu *c = memalign(VCPU_ALIGN, sizeof *c);
        if (!c) {
            snprintf(vm->reason, sizeof vm->reason, "no memory for its vCPU %u", i);
            for (unsigned k = 0; k < i; k++)
                free(vm->vcpus[k]);
            return false;
        }
        memset(c, 0, sizeof *c);
        c->vm = vm;
        c->index = i;
        /* One VPID per vCPU: its TLB entries are its own (VPID 0 is the host's). */
        c->vpid = (vmx.proc2 & PROC2_ENABLE_VPID) ? (uint16_t)(1 + vm->id * CFG_VCPUS_MAX + i) : 0;
        vm->vcpus[i] = c;
        vcpu_irq_reset(c);
    }
    vm->n_vcpus = n;
    unsigned bits = guest_phys_addr_bits(vm);
    io_bus_set_window(&vm->io, (uint64_t)vm->cfg->ram_mib << 20,
                      bits < 48 ? 1ULL << bits : EPT_GPA_LIMIT);
    return true;
}

/* The VMCS and the MSR bitmap: taken once, kept across stop and start. */
static bool vcpu_allocate(struct vcpu *c)
{
    struct vm *vm = c->vm;
    if (c->vmcs_phys && c->msr_bitmap_phys)
        return true;
    if (!c->vmcs_phys)
        c->vmcs_phys = vmx_zeroed_page();
    if (!c->msr_bitmap_phys)
        c->msr_bitmap_phys = vmx_zeroed_page();
    if (!c->vmcs_phys || !c->msr_bitmap_phys) {
        snprintf(vm->reason, sizeof vm->reason, "no memory for the VMCS of its vCPU %u", c->index);
        return false;
    }
    /* MSRs: every access exits except those that live in the CPU (guest_msr.h). */
    uint8_t *bm = (uint8_t *)(uintptr_t)c->msr_bitmap_phys;
    msr_bitmap_init(bm);
    guest_msr_allow(bm, vm_is_linux(vm));
    return true;
}

struct start_call {
    struct vcpu *c;
    bool ok;
};

/* On the vCPU's own CPU: its VMCS becomes current there, with that CPU's host state, and the
 * guest MSRs it may still hold go back to the vCPU. */
static void start_here(void *arg)
{
    struct start_call *sc = arg;
    guest_msr_reset(sc->c);
    sc->ok = vmcs_setup(sc->c);
    if (sc->ok)
        invept(INVEPT_SINGLE_CONTEXT, ept_eptp(&sc->c->vm->ept));
    if (sc->ok && sc->c->vpid)
        invvpid(INVVPID_SINGLE_CONTEXT, sc->c->vpid, 0);
}

/* Registers and FPU at reset (SDM Vol. 3A §9.1.1, Table 9-1): all zero but what the entry
 * needs, with the FCW and MXCSR values FNINIT and reset give (Vol. 1 §10.5.1, Table 10-2). */
void vcpu_regs_reset(struct vcpu *c, uint64_t rsi)
{
    memset(&c->gprs, 0, sizeof c->gprs);
    c->gprs.gpr[GPR_RSI] = rsi;
    memset(c->fpu, 0, sizeof c->fpu);
    const uint16_t fcw = FXSAVE_FCW_DEFAULT;
    const uint32_t mxcsr = FXSAVE_MXCSR_DEFAULT;
    memcpy(c->fpu + FXSAVE_FCW_OFFSET, &fcw, sizeof fcw);
    memcpy(c->fpu + FXSAVE_MXCSR_OFFSET, &mxcsr, sizeof mxcsr);
}

static bool vcpu_start(struct vm *vm)
{
    vpic_reset(&vm->pic);
    for (unsigned i = 0; i < vm->n_vcpus; i++) {
        struct vcpu *c = vm->vcpus[i];
        if (!vcpu_allocate(c))
            return false;
        struct start_call sc = { c, false };
        if (!vcpu_on_owner(c, start_here, &sc)) {
            snprintf(vm->reason, sizeof vm->reason, "the CPU %u of its vCPU %u did not answer",
                     c->pcpu, i);
            return false;
        }
        if (!sc.ok)
            return false;
        vcpu_regs_reset(c, i == 0 ? vm->boot.rsi : 0);
        vcpu_irq_reset(c);
    }
    return true;
}

const struct vm_cpu_ops vcpu_ops = {
    .create = vcpu_create,
    .start = vcpu_start,
    .hold = vcpu_hold,
    .ept_flush = vcpu_ept_flush,
};
