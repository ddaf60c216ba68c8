/* VMCS 32-bit read-only data fields: Intel SDM Vol. 3C Appendix B, Table B-9 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_RO32_H
#define TESSERA_ARCH_X86_VMCS_RO32_H

#define VMCS_VM_INSTRUCTION_ERROR         0x4400
#define VMCS_EXIT_REASON                  0x4402
#define VMCS_EXIT_INTERRUPTION_INFO       0x4404
#define VMCS_EXIT_INTERRUPTION_ERROR_CODE 0x4406
#define VMCS_IDT_VECTORING_INFO           0x4408
#define VMCS_IDT_VECTORING_ERROR_CODE     0x440A
#define VMCS_EXIT_INSTRUCTION_LENGTH      0x440C
#define VMCS_EXIT_INSTRUCTION_INFO        0x440E

#endif
