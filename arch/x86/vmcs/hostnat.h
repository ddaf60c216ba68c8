/* VMCS natural-width host-state fields: Intel SDM Vol. 3C Appendix B, Table B-15 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_HOSTNAT_H
#define TESSERA_ARCH_X86_VMCS_HOSTNAT_H

#define VMCS_HOST_CR0               0x6C00
#define VMCS_HOST_CR3               0x6C02
#define VMCS_HOST_CR4               0x6C04
#define VMCS_HOST_FS_BASE           0x6C06
#define VMCS_HOST_GS_BASE           0x6C08
#define VMCS_HOST_TR_BASE           0x6C0A
#define VMCS_HOST_GDTR_BASE         0x6C0C
#define VMCS_HOST_IDTR_BASE         0x6C0E
#define VMCS_HOST_IA32_SYSENTER_ESP 0x6C10
#define VMCS_HOST_IA32_SYSENTER_EIP 0x6C12
#define VMCS_HOST_RSP               0x6C14
#define VMCS_HOST_RIP               0x6C16

#endif
