/* VMCS 16-bit control fields: Intel SDM Vol. 3C Appendix B, Table B-1 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_CTL16_H
#define TESSERA_ARCH_X86_VMCS_CTL16_H

#define VMCS_VPID                     0x0000
#define VMCS_POSTED_INT_NOTIFY_VECTOR 0x0002
#define VMCS_EPTP_INDEX               0x0004

#endif
