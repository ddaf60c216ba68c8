/* VM-execution control bits (Intel SDM Vol. 3C §25.6.1 Table 25-5 pin-based, §25.6.2 Tables
 * 25-6 primary and 25-7 secondary processor-based; §24.6 in editions before 2023) and the
 * IA32_VMX_BASIC fields (Appendix A.1).  Each bit is named once, here. */
#ifndef TESSERA_ARCH_X86_VMX_CONTROLS_H
#define TESSERA_ARCH_X86_VMX_CONTROLS_H

#include <stdint.h>

#define VMX_BIT(n) (1u << (n))

/* IA32_VMX_BASIC (Appendix A.1) */
#define VMX_BASIC_REVISION_MASK 0x7FFFFFFFu
#define VMX_BASIC_TRUE_CTLS     (1ULL << 55)

/* Pin-based controls (Table 25-5) */
#define PIN_EXTERNAL_INTERRUPT_EXITING VMX_BIT(0)
#define PIN_NMI_EXITING                VMX_BIT(3)
#define PIN_VIRTUAL_NMIS               VMX_BIT(5)
#define PIN_VMX_PREEMPTION_TIMER       VMX_BIT(6)

/* Primary processor-based controls (Table 25-6) */
#define PROC_INTERRUPT_WINDOW_EXITING VMX_BIT(2)
#define PROC_USE_TSC_OFFSETTING       VMX_BIT(3)
#define PROC_HLT_EXITING              VMX_BIT(7)
#define PROC_INVLPG_EXITING           VMX_BIT(9)
#define PROC_MWAIT_EXITING            VMX_BIT(10)
#define PROC_RDPMC_EXITING            VMX_BIT(11)
#define PROC_RDTSC_EXITING            VMX_BIT(12)
#define PROC_CR3_LOAD_EXITING         VMX_BIT(15)
#define PROC_CR3_STORE_EXITING        VMX_BIT(16)
#define PROC_CR8_LOAD_EXITING         VMX_BIT(19)
#define PROC_CR8_STORE_EXITING        VMX_BIT(20)
#define PROC_MOV_DR_EXITING           VMX_BIT(23)
#define PROC_UNCONDITIONAL_IO_EXITING VMX_BIT(24)
#define PROC_USE_IO_BITMAPS           VMX_BIT(25)
#define PROC_MONITOR_EXITING          VMX_BIT(29)
#define PROC_PAUSE_EXITING            VMX_BIT(30)
#define PROC_USE_MSR_BITMAPS          VMX_BIT(28)
#define PROC_ACTIVATE_SECONDARY       VMX_BIT(31)

/* Secondary processor-based controls (Table 25-7) */
#define PROC2_ENABLE_EPT         VMX_BIT(1)
#define PROC2_ENABLE_VPID        VMX_BIT(5)
#define PROC2_UNRESTRICTED_GUEST VMX_BIT(7)

/* VM-exit controls (Table 25-13) */
#define EXIT_SAVE_DEBUG_CONTROLS     VMX_BIT(2)
#define EXIT_HOST_ADDRESS_SPACE_SIZE VMX_BIT(9)
#define EXIT_ACK_INTERRUPT_ON_EXIT   VMX_BIT(15)
#define EXIT_SAVE_IA32_PAT           VMX_BIT(18)
#define EXIT_LOAD_IA32_PAT           VMX_BIT(19)
#define EXIT_SAVE_IA32_EFER          VMX_BIT(20)
#define EXIT_LOAD_IA32_EFER          VMX_BIT(21)

/* VM-entry controls (Table 25-15) */
#define ENTRY_LOAD_DEBUG_CONTROLS VMX_BIT(2)
#define ENTRY_IA32E_MODE_GUEST    VMX_BIT(9)
#define ENTRY_LOAD_IA32_PAT       VMX_BIT(14)
#define ENTRY_LOAD_IA32_EFER      VMX_BIT(15)

/* IA32_VMX_MISC (Appendix A.6): bits 4:0 give the preemption-timer rate, TSC >> N. */
#define VMX_MISC_PREEMPTION_SHIFT_MASK 0x1Fu

/* VM-entry interruption-information field (SDM §25.8.3, Table 25-17), and the VM-exit
 * interruption and IDT-vectoring information fields that share its layout (§25.9.2-25.9.3, Tables
 * 25-19 and 25-20; bit 12 there means "NMI unblocking due to IRET" and is reserved on entry). */
#define INTR_INFO_VECTOR_MASK        0xFFu
#define INTR_INFO_TYPE_MASK          (7u << 8)
#define INTR_INFO_DELIVER_ERROR_CODE VMX_BIT(11)
#define INTR_INFO_NMI_UNBLOCKING     VMX_BIT(12)
#define INTR_INFO_VALID              VMX_BIT(31)
#define INTR_TYPE_EXT_INTERRUPT      (0u << 8)
#define INTR_TYPE_NMI                (2u << 8)
#define INTR_TYPE_HW_EXCEPTION       (3u << 8)
#define INTR_TYPE_SW_INTERRUPT       (4u << 8) /* INT n: needs the instruction length */
#define INTR_TYPE_PRIV_SW_EXCEPTION  (5u << 8) /* INT1 */
#define INTR_TYPE_SW_EXCEPTION       (6u << 8) /* INT3, INTO */

/* Guest interruptibility state (SDM §25.4.2, Table 25-3) */
#define INTERRUPTIBILITY_STI    VMX_BIT(0) /* blocking by STI */
#define INTERRUPTIBILITY_MOV_SS VMX_BIT(1) /* blocking by MOV SS / POP SS */
#define INTERRUPTIBILITY_SMI    VMX_BIT(2)
#define INTERRUPTIBILITY_NMI    VMX_BIT(3)

/* EPT-violation exit qualification (SDM §28.2.1, Table 28-7) */
#define EPT_QUAL_READ      VMX_BIT(0)
#define EPT_QUAL_WRITE     VMX_BIT(1)
#define EPT_QUAL_FETCH     VMX_BIT(2)
#define EPT_QUAL_GLA_VALID VMX_BIT(7)

/* I/O-instruction exit qualification (Table 28-5) */
#define IO_QUAL_SIZE_MASK  0x7u /* size - 1 */
#define IO_QUAL_IN         VMX_BIT(3)
#define IO_QUAL_STRING     VMX_BIT(4)
#define IO_QUAL_REP        VMX_BIT(5)
#define IO_QUAL_PORT_SHIFT 16

/* Guest segment access rights (SDM §25.4.1, Table 25-2) */
#define VMX_AR_UNUSABLE   VMX_BIT(16)
#define VMX_AR_L          VMX_BIT(13)       /* CS: 64-bit code */
#define VMX_AR_CODE64     0xA09Bu           /* execute/read, accessed, S, P, L, G */
#define VMX_AR_DATA       0xC093u           /* read/write, accessed, S, P, D/B, G */
#define VMX_AR_TSS64_BUSY 0x008Bu           /* busy 64-bit TSS, P */
#define VMX_AR_TSS_BUSY   VMX_AR_TSS64_BUSY /* type 11 outside IA-32e mode: a busy 32-bit TSS */
#define VMX_AR_CODE16     0x009Bu           /* real mode CS: execute/read, accessed, S, P */
#define VMX_AR_DATA16     0x0093u           /* real mode data: read/write, accessed, S, P */

#endif
