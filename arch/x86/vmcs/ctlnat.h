/* VMCS natural-width control fields: Intel SDM Vol. 3C Appendix B, Table B-12 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_CTLNAT_H
#define TESSERA_ARCH_X86_VMCS_CTLNAT_H

#define VMCS_CR0_GUEST_HOST_MASK 0x6000
#define VMCS_CR4_GUEST_HOST_MASK 0x6002
#define VMCS_CR0_READ_SHADOW     0x6004
#define VMCS_CR4_READ_SHADOW     0x6006
#define VMCS_CR3_TARGET0         0x6008
#define VMCS_CR3_TARGET1         0x600A
#define VMCS_CR3_TARGET2         0x600C
#define VMCS_CR3_TARGET3         0x600E

#endif
