/* VMCS natural-width read-only data fields: Intel SDM Vol. 3C Appendix B, Table B-13 (field encodings). */
#ifndef TESSERA_ARCH_X86_VMCS_RONAT_H
#define TESSERA_ARCH_X86_VMCS_RONAT_H

#define VMCS_EXIT_QUALIFICATION   0x6400
#define VMCS_IO_RCX               0x6402
#define VMCS_IO_RSI               0x6404
#define VMCS_IO_RDI               0x6406
#define VMCS_IO_RIP               0x6408
#define VMCS_GUEST_LINEAR_ADDRESS 0x640A

#endif
