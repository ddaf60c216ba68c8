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
#include <string.h>

#define FXSAVE_FCW_OFFSET    0
#define FXSAVE_MXCSR_OFFSET  24
#define FXSAVE_FCW_DEFAULT   0x037F /* all x87 exceptions masked, extended precision */
#define FXSAVE_MXCSR_DEFAULT 0x1F80 /* all SSE exceptions masked */
#define VCPU_ALIGN           64     /* the FXSAVE image needs 16; a cache line */

static bool vcpu_create(struct vm *vm)
{
    struct vcpu *c = memalign(VCPU_ALIGN, sizeof *c);
    if (!c) {
        snprintf(vm->reason, sizeof vm->reason, "no memory for its vCPU");
        return false;
    }
    memset(c, 0, sizeof *c);
    c->vm = vm;
    c->vpid = (vmx.proc2 & PROC2_ENABLE_VPID) ? (uint16_t)(vm->id + 1) : 0;
    vm->vcpu = c;
    vcpu_irq_reset(vm);
    unsigned bits = guest_phys_addr_bits(vm);
    io_bus_set_window(&vm->io, (uint64_t)vm->cfg->ram_mib << 20,
                      bits < 48 ? 1ULL << bits : EPT_GPA_LIMIT);
    return true;
}

/* The VMCS and the MSR bitmap: taken once, kept across stop and start. */
static bool vcpu_allocate(struct vm *vm)
{
    struct vcpu *c = vm->vcpu;
    if (c->vmcs_phys && c->msr_bitmap_phys)
        return true;
    if (!c->vmcs_phys)
        c->vmcs_phys = vmx_zeroed_page();
    if (!c->msr_bitmap_phys)
        c->msr_bitmap_phys = vmx_zeroed_page();
    if (!c->vmcs_phys || !c->msr_bitmap_phys) {
        snprintf(vm->reason, sizeof vm->reason, "no memory for its VMCS");
        return false;
    }
    /* MSRs: every access exits except those that live in the CPU (guest_msr.h). */
    uint8_t *bm = (uint8_t *)(uintptr_t)c->msr_bitmap_phys;
    msr_bitmap_init(bm);
    guest_msr_allow(bm, vm_is_linux(vm));
    return true;
}

struct start_call {
    struct vm *vm;
    bool ok;
};

/* On the vCPU's own CPU: its VMCS becomes current there, with that CPU's host state, and the
 * guest MSRs it may still hold go back to the vCPU. */
static void start_here(void *arg)
{
    struct start_call *sc = arg;
    guest_msr_reset(sc->vm);
    sc->ok = vmcs_setup(sc->vm);
    if (sc->ok)
        invept(INVEPT_SINGLE_CONTEXT, ept_eptp(&sc->vm->ept));
    if (sc->ok && sc->vm->vcpu->vpid)
        invvpid(INVVPID_SINGLE_CONTEXT, sc->vm->vcpu->vpid, 0);
}

static bool vcpu_start(struct vm *vm)
{
    struct vcpu *c = vm->vcpu;
    if (!vcpu_allocate(vm))
        return false;
    struct start_call sc = { vm, false };
    if (!vcpu_on_owner(vm, start_here, &sc)) {
        snprintf(vm->reason, sizeof vm->reason, "its CPU %u did not answer", c->pcpu);
        return false;
    }
    if (!sc.ok)
        return false;
    memset(&c->gprs, 0, sizeof c->gprs);
    c->gprs.gpr[GPR_RSI] = vm->boot.rsi;
    /* A clean x87/SSE state in FXSAVE layout (SDM Vol. 1 §10.5.1, Table 10-2): the FCW and
     * MXCSR values FNINIT and reset give, everything else zero. */
    memset(c->fpu, 0, sizeof c->fpu);
    const uint16_t fcw = FXSAVE_FCW_DEFAULT;
    const uint32_t mxcsr = FXSAVE_MXCSR_DEFAULT;
    memcpy(c->fpu + FXSAVE_FCW_OFFSET, &fcw, sizeof fcw);
    memcpy(c->fpu + FXSAVE_MXCSR_OFFSET, &mxcsr, sizeof mxcsr);
    vcpu_irq_reset(vm);
    return true;
}

const struct vm_cpu_ops vcpu_ops = {
    .create = vcpu_create,
    .start = vcpu_start,
    .hold = vcpu_hold,
    .ept_flush = vcpu_ept_flush,
};
