/* VM-execution control bits (Intel SDM Vol. 3C §25.6.1 Table 25-5 pin-based, §25.6.2 Tables
 * 25-6 primary and 25-7 secondary processor-based; §24.6 in editions before 2023) and the
 * IA32_VMX_BASIC fields (Appendix A.1).  Each bit is named once, here. */
#ifndef TESSERA_ARCH_X86_VMX_CONTROLS_H
#define TESSERA_ARCH_X86_VMX_CONTROLS_H

#include <stdint.h>

#define VMX_BIT(n) (1u << (n))

/* IA32_VMX_BASIC (Appendix A.1) */
#define VMX_BASIC_REVISION_MASK     0x7FFFFFFFu
#define VMX_BASIC_TRUE_CTLS         (1ULL << 55)

/* Pin-based controls (Table 25-5) */
#define PIN_EXTERNAL_INTERRUPT_EXITING  VMX_BIT(0)
#define PIN_NMI_EXITING                 VMX_BIT(3)
#define PIN_VIRTUAL_NMIS                VMX_BIT(5)
#define PIN_VMX_PREEMPTION_TIMER        VMX_BIT(6)

/* Primary processor-based controls (Table 25-6) */
#define PROC_HLT_EXITING                VMX_BIT(7)
#define PROC_USE_IO_BITMAPS             VMX_BIT(25)
#define PROC_USE_MSR_BITMAPS            VMX_BIT(28)
#define PROC_ACTIVATE_SECONDARY         VMX_BIT(31)

/* Secondary processor-based controls (Table 25-7) */
#define PROC2_ENABLE_EPT                VMX_BIT(1)
#define PROC2_ENABLE_VPID               VMX_BIT(5)
#define PROC2_UNRESTRICTED_GUEST        VMX_BIT(7)

#endif
