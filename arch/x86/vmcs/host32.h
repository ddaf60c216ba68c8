/* VMCS 32-bit host-state field: Intel SDM Vol. 3C Appendix B, Table B-11 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_HOST32_H
#define TESSERA_ARCH_X86_VMCS_HOST32_H

#define VMCS_HOST_IA32_SYSENTER_CS 0x4C00

#endif
