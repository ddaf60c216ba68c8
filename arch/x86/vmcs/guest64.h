/* VMCS 64-bit guest-state fields: Intel SDM Vol. 3C Appendix B, Table B-6 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_GUEST64_H
#define TESSERA_ARCH_X86_VMCS_GUEST64_H

#define VMCS_VMCS_LINK_POINTER           0x2800
#define VMCS_GUEST_IA32_DEBUGCTL         0x2802
#define VMCS_GUEST_IA32_PAT              0x2804
#define VMCS_GUEST_IA32_EFER             0x2806
#define VMCS_GUEST_IA32_PERF_GLOBAL_CTRL 0x2808
#define VMCS_GUEST_PDPTE0                0x280A
#define VMCS_GUEST_PDPTE1                0x280C
#define VMCS_GUEST_PDPTE2                0x280E
#define VMCS_GUEST_PDPTE3                0x2810
#define VMCS_GUEST_IA32_BNDCFGS          0x2812

#endif
