/* A guest's MSRs: which live in the CPU and which are emulated (guest_msr.h). */
#include "vmm/vcpu/guest_msr.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "vmm/vcpu/msr_bitmap.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/vcpu/vcpu.h"
#include "vmm/vm.h"

#define MTRR_DEF_TYPE_RESERVED (~(MTRR_DEF_TYPE_TYPE_MASK | MTRR_DEF_TYPE_FE | MTRR_DEF_TYPE_E))
#define UCODE_REV_SHIFT        32

/* The MSRs that SYSCALL, SYSRET and SWAPGS use, in the CPU while the guest runs. */
static const uint32_t cpu_held[] = { MSR_KERNEL_GS_BASE, MSR_STAR, MSR_LSTAR, MSR_CSTAR,
                                     MSR_SFMASK };

static uint64_t *held_value(struct guest_msrs *m, unsigned i)
{
    /* cppcheck-suppress constVariable ; callers write through the pointer returned */
    uint64_t *v[] = { &m->kernel_gs_base, &m->star, &m->lstar, &m->cstar, &m->sfmask };
    return v[i];
}

#define N_HELD (sizeof cpu_held / sizeof cpu_held[0])

void guest_msr_reset(struct vcpu *c)
{
    struct guest_msrs *m = &c->msrs;
    if (m->live)
        guest_msr_leave(c);
    for (unsigned i = 0; i < N_HELD; i++)
        *held_value(m, i) = 0; /* their values after INIT (SDM Vol. 3A Table 10-1) */
    m->mtrr_def_type = GUEST_MTRR_DEF_TYPE_RESET;
}

void guest_msr_allow(uint8_t *msr_bitmap, bool linux_set)
{
    msr_bitmap_allow(msr_bitmap, MSR_FS_BASE, true, true);
    msr_bitmap_allow(msr_bitmap, MSR_GS_BASE, true, true);
    for (unsigned i = 0; i < N_HELD; i++)
        msr_bitmap_allow(msr_bitmap, cpu_held[i], true, true);
    if (!linux_set)
        return;
    const uint32_t sysenter[] = { MSR_IA32_SYSENTER_CS, MSR_IA32_SYSENTER_ESP,
                                  MSR_IA32_SYSENTER_EIP };
    for (unsigned i = 0; i < sizeof sysenter / sizeof sysenter[0]; i++)
        msr_bitmap_allow(msr_bitmap, sysenter[i], true, true);
    if (vmx.pat_switched)
        msr_bitmap_allow(msr_bitmap, MSR_IA32_PAT, true, true);
}

void guest_msr_enter(struct vcpu *c)
{
    struct guest_msrs *m = &c->msrs;
    for (unsigned i = 0; i < N_HELD; i++)
        wrmsr(cpu_held[i], *held_value(m, i));
    m->live = true;
}

void guest_msr_leave(struct vcpu *c)
{
    struct guest_msrs *m = &c->msrs;
    if (!m->live)
        return;
    for (unsigned i = 0; i < N_HELD; i++) {
        *held_value(m, i) = rdmsr(cpu_held[i]);
        wrmsr(cpu_held[i], 0); /* no guest's value stays behind */
    }
    m->live = false;
}

static bool valid_memory_type(uint64_t t)
{
    return t == MTRR_TYPE_UC || t == MTRR_TYPE_WC || t == MTRR_TYPE_WT || t == MTRR_TYPE_WP ||
           t == MTRR_TYPE_WB;
}

bool guest_msr_read(struct vcpu *c, uint32_t msr, uint64_t *v)
{
    switch (msr) {
    case MSR_IA32_MISC_ENABLE:
        *v = 1;
        return true; /* fast strings, nothing else */
    case MSR_IA32_PAT:
        *v = PAT_RESET_VALUE;
        return true; /* when it exits: not the guest's */
    }
    if (!vm_is_linux(c->vm))
        return false;
    switch (msr) {
    case MSR_IA32_MTRRCAP:
        *v = 0;
        return true;
    case MSR_IA32_MTRR_DEF_TYPE:
        *v = c->msrs.mtrr_def_type;
        return true;
    case MSR_IA32_UCODE_REV:
        *v = GUEST_UCODE_REVISION << UCODE_REV_SHIFT;
        return true;
    case MSR_IA32_PLATFORM_ID:
        *v = 0;
        return true;
    case MSR_IA32_FEATURE_CONTROL:
        *v = FEATURE_CONTROL_LOCK;
        return true;
    default:
        return false;
    }
}

bool guest_msr_write(struct vcpu *c, uint32_t msr, uint64_t v)
{
    if (!vm_is_linux(c->vm))
        return false;
    switch (msr) {
    case MSR_IA32_MTRR_DEF_TYPE:
        /* #GP for reserved bits or an undefined type (SDM Vol. 3A §12.11.2.1) */
        if ((v & MTRR_DEF_TYPE_RESERVED) || !valid_memory_type(v & MTRR_DEF_TYPE_TYPE_MASK))
            return false;
        c->msrs.mtrr_def_type = v;
        return true;
    case MSR_IA32_UCODE_REV: /* Linux writes 0 before it reads the revision */
        return true;
    case MSR_IA32_MISC_ENABLE: /* only what it already holds */
        return v == 1;
    default:
        return false;
    }
}
