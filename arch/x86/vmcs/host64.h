/* VMCS 64-bit host-state fields: Intel SDM Vol. 3C Appendix B, Table B-7 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_HOST64_H
#define TESSERA_ARCH_X86_VMCS_HOST64_H

#define VMCS_HOST_IA32_PAT              0x2C00
#define VMCS_HOST_IA32_EFER             0x2C02
#define VMCS_HOST_IA32_PERF_GLOBAL_CTRL 0x2C04

#endif
