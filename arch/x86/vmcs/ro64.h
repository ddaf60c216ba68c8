/* VMCS 64-bit read-only data fields: Intel SDM Vol. 3C Appendix B, Table B-5 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_RO64_H
#define TESSERA_ARCH_X86_VMCS_RO64_H

#define VMCS_GUEST_PHYSICAL_ADDRESS 0x2400

#endif
