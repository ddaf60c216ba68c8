/* VMCS 32-bit control fields: Intel SDM Vol. 3C Appendix B, Table B-8 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_CTL32_H
#define TESSERA_ARCH_X86_VMCS_CTL32_H

#define VMCS_PIN_BASED_CONTROLS          0x4000
#define VMCS_PROC_BASED_CONTROLS         0x4002
#define VMCS_EXCEPTION_BITMAP            0x4004
#define VMCS_PAGE_FAULT_ERROR_MASK       0x4006
#define VMCS_PAGE_FAULT_ERROR_MATCH      0x4008
#define VMCS_CR3_TARGET_COUNT            0x400A
#define VMCS_EXIT_CONTROLS               0x400C
#define VMCS_EXIT_MSR_STORE_COUNT        0x400E
#define VMCS_EXIT_MSR_LOAD_COUNT         0x4010
#define VMCS_ENTRY_CONTROLS              0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT        0x4014
#define VMCS_ENTRY_INTERRUPTION_INFO     0x4016
#define VMCS_ENTRY_EXCEPTION_ERROR_CODE  0x4018
#define VMCS_ENTRY_INSTRUCTION_LENGTH    0x401A
#define VMCS_TPR_THRESHOLD               0x401C
#define VMCS_PROC_BASED_CONTROLS2        0x401E
#define VMCS_PLE_GAP                     0x4020
#define VMCS_PLE_WINDOW                  0x4022

#endif
