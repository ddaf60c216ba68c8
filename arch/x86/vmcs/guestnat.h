/* VMCS natural-width guest-state fields: Intel SDM Vol. 3C Appendix B, Table B-14 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_GUESTNAT_H
#define TESSERA_ARCH_X86_VMCS_GUESTNAT_H

#define VMCS_GUEST_CR0               0x6800
#define VMCS_GUEST_CR3               0x6802
#define VMCS_GUEST_CR4               0x6804
#define VMCS_GUEST_ES_BASE           0x6806
#define VMCS_GUEST_CS_BASE           0x6808
#define VMCS_GUEST_SS_BASE           0x680A
#define VMCS_GUEST_DS_BASE           0x680C
#define VMCS_GUEST_FS_BASE           0x680E
#define VMCS_GUEST_GS_BASE           0x6810
#define VMCS_GUEST_LDTR_BASE         0x6812
#define VMCS_GUEST_TR_BASE           0x6814
#define VMCS_GUEST_GDTR_BASE         0x6816
#define VMCS_GUEST_IDTR_BASE         0x6818
#define VMCS_GUEST_DR7               0x681A
#define VMCS_GUEST_RSP               0x681C
#define VMCS_GUEST_RIP               0x681E
#define VMCS_GUEST_RFLAGS            0x6820
#define VMCS_GUEST_PENDING_DEBUG     0x6822
#define VMCS_GUEST_IA32_SYSENTER_ESP 0x6824
#define VMCS_GUEST_IA32_SYSENTER_EIP 0x6826

#endif
