/* What this CPU offers for VT-x, read once from CPUID and the VMX capability MSRs, and the one
 * honest line the boot log prints about it. */
#ifndef TESSERA_ARCH_X86_VMX_CAPS_H
#define TESSERA_ARCH_X86_VMX_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vmx_caps {
    bool available;      /* usable: CPUID bit set and not locked off */
    const char *why_not; /* when !available */
    uint32_t revision;   /* VMCS revision identifier */
    bool true_controls;  /* the TRUE_* capability MSRs exist */
    bool ept, vpid, unrestricted_guest, preemption_timer;
    uint64_t basic, pinbased, procbased, procbased2, ept_vpid;
};

/* Reads CPUID.1:ECX[5] and IA32_FEATURE_CONTROL (locking VMX on when firmware left it
 * unlocked, as the SDM §23.7 allows), then the capability MSRs. */
void vmx_probe(struct vmx_caps *caps);
/* "VT-x: available (VMCS rev 0x2b; EPT, VPID, unrestricted guest, preemption timer)" or
 * "VT-x not available: guests not started (...)". */
void vmx_caps_describe(const struct vmx_caps *caps, char *buf, size_t len);

#endif
