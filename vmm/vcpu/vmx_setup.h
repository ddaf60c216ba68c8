/* VMX operation: on the boot CPU VMXON once at boot and the control values every guest's VMCS
 * uses, negotiated once against the capability MSRs; then on every parked AP VMXON too, after
 * checking that the AP allows those same values (a guest's VMCS may move between CPUs). */
#ifndef TESSERA_VMM_VMX_SETUP_H
#define TESSERA_VMM_VMX_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/page_alloc.h"
#include "arch/x86/vmx_caps.h"

struct vmx_setup {
    bool on;
    char error[240]; /* why VMX operation could not start */
    uint32_t revision;
    uint32_t pin, proc, proc2, exit, entry;
    uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
    unsigned preemption_shift; /* the preemption timer counts at TSC >> shift */
    bool pat_switched;         /* IA32_PAT loaded/saved by the VMCS: a Linux guest owns its PAT */
    uint32_t exit_pat, entry_pat; /* those controls where optional: in Linux guests' VMCS only */
    bool linux_ok;                /* unrestricted guest, no CR3 exits: Linux guests can run */
    uint64_t vmxon_phys;
};

extern struct vmx_setup vmx;

/* One CPU's VMX operation (index as arch/x86/smp.h numbers CPUs; 0 the boot CPU). */
struct vmx_cpu {
    bool on;
    char why[160]; /* why not */
    uint64_t vmxon_phys;
};

/* Negotiates the controls Tessera needs (a missing one is named in vmx.error), sets CR4.VMXE
 * and the fixed CR0/CR4 bits, and executes VMXON. */
bool vmx_setup_cpu(const struct vmx_caps *caps, struct page_alloc *pa);
/* VMXON on parked AP `index`, run there (smp_call); after vmx_setup_cpu succeeded.  False with
 * the reason in vmx_cpu_state(index)->why: no VMX or other capabilities than the boot CPU's, no
 * memory, or no answer. */
bool vmx_setup_ap(unsigned index);
/* CPU index's VMX state (the boot CPU's mirrors `vmx`); NULL past the last CPU. */
const struct vmx_cpu *vmx_cpu_state(unsigned index);
/* A zeroed 4 KiB page from the allocator, or 0. */
uint64_t vmx_zeroed_page(void);

#endif
