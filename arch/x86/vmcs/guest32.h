/* VMCS 32-bit guest-state fields: Intel SDM Vol. 3C Appendix B, Table B-10 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_GUEST32_H
#define TESSERA_ARCH_X86_VMCS_GUEST32_H

#define VMCS_GUEST_ES_LIMIT         0x4800
#define VMCS_GUEST_CS_LIMIT         0x4802
#define VMCS_GUEST_SS_LIMIT         0x4804
#define VMCS_GUEST_DS_LIMIT         0x4806
#define VMCS_GUEST_FS_LIMIT         0x4808
#define VMCS_GUEST_GS_LIMIT         0x480A
#define VMCS_GUEST_LDTR_LIMIT       0x480C
#define VMCS_GUEST_TR_LIMIT         0x480E
#define VMCS_GUEST_GDTR_LIMIT       0x4810
#define VMCS_GUEST_IDTR_LIMIT       0x4812
#define VMCS_GUEST_ES_AR            0x4814
#define VMCS_GUEST_CS_AR            0x4816
#define VMCS_GUEST_SS_AR            0x4818
#define VMCS_GUEST_DS_AR            0x481A
#define VMCS_GUEST_FS_AR            0x481C
#define VMCS_GUEST_GS_AR            0x481E
#define VMCS_GUEST_LDTR_AR          0x4820
#define VMCS_GUEST_TR_AR            0x4822
#define VMCS_GUEST_INTERRUPTIBILITY 0x4824
#define VMCS_GUEST_ACTIVITY_STATE   0x4826
#define VMCS_GUEST_SMBASE           0x4828
#define VMCS_GUEST_IA32_SYSENTER_CS 0x482A
#define VMCS_GUEST_PREEMPTION_TIMER 0x482E

#endif
