/* Architectural register bits and MSR numbers (Intel SDM Vol. 3A §2.5 control registers, §4.5
 * paging entries, Vol. 4 MSR tables).  Usable from C and from assembly. */
#ifndef TESSERA_ARCH_X86_REGS_H
#define TESSERA_ARCH_X86_REGS_H

#ifdef __ASSEMBLER__
#define X86_BIT(n) (1 << (n))
#else
#define X86_BIT(n) (1ULL << (n))
#endif

/* CR0 (SDM Vol. 3A §2.5) */
#define CR0_PE X86_BIT(0)
#define CR0_MP X86_BIT(1)
#define CR0_EM X86_BIT(2)
#define CR0_TS X86_BIT(3)
#define CR0_ET X86_BIT(4)
#define CR0_NE X86_BIT(5)
#define CR0_WP X86_BIT(16)
#define CR0_NW X86_BIT(29)
#define CR0_CD X86_BIT(30)
#define CR0_PG X86_BIT(31)

/* CR4 (SDM Vol. 3A §2.5) */
#define CR4_PAE        X86_BIT(5)
#define CR4_PGE        X86_BIT(7)
#define CR4_OSFXSR     X86_BIT(9)
#define CR4_OSXMMEXCPT X86_BIT(10)
#define CR4_VMXE       X86_BIT(13)

/* 64-bit IDT gate type and attributes: present, DPL 0, interrupt gate (SDM Vol. 3A §6.14.1,
 * Figure 6-8; type 0xE in Table 3-2). */
#define IDT_INTERRUPT_GATE 0x8E

/* RFLAGS (SDM Vol. 1 §3.4.3) */
#define RFLAGS_IF X86_BIT(9)

/* 4-level (IA-32e) paging (SDM Vol. 3A §4.5): the hypervisor's own tables, the guests' identity
 * tables the loader builds, the walk through a guest's tables, and the guests' own.  (EPT
 * entries are another format: arch/x86/vmx/pure/ept.h.) */
#define PAGE_SHIFT     12
#define PAGE_SIZE      X86_BIT(PAGE_SHIFT) /* 4 KiB: a page, and every paging structure */
#define PAGE_2M_SHIFT  21
#define PAGE_2M        X86_BIT(PAGE_2M_SHIFT) /* what a PDE with PS maps */
#define PT_INDEX_BITS  9                      /* linear-address bits per level (§4.5.4) */
#define PT_ENTRIES     512                    /* 8-byte entries in a 4 KiB structure */
#define PT_LEVELS      4
#define PAGING_VA_BITS (PAGE_SHIFT + PT_LEVELS * PT_INDEX_BITS) /* 48: canonical below 2^47 */
/* The index into the level-`level` structure for `va`: 0 = PT, 1 = PD, 2 = PDPT, 3 = PML4. */
#define PT_INDEX(va, level) (((va) >> (PAGE_SHIFT + PT_INDEX_BITS * (level))) & (PT_ENTRIES - 1))

/* Paging-structure entry bits (SDM Vol. 3A §4.5, Tables 4-15..4-20) */
#define PTE_P   X86_BIT(0)
#define PTE_W   X86_BIT(1)
#define PTE_U   X86_BIT(2)
#define PTE_PWT X86_BIT(3)
#define PTE_PCD X86_BIT(4)
#define PTE_PS  X86_BIT(7) /* 2 MiB page in a PDE, 1 GiB in a PDPTE */
#define PTE_NX  X86_BIT(63)
/* Physical-address bits of an entry, up to the architectural MAXPHYADDR of 52 (Tables 4-14 to
 * 4-20; bits above the CPU's MAXPHYADDR are reserved and must be 0).  CR3 holds the PML4's
 * address in the same bits (Table 4-12). */
#define PTE_ADDR_MASK    0x000FFFFFFFFFF000ULL /* bits 51:12: the next structure or a 4 KiB page */
#define PTE_2M_ADDR_MASK 0x000FFFFFFFE00000ULL /* bits 51:21 of a PDE with PS: the 2 MiB page */

/* MSRs (SDM Vol. 4, Table 2-2) */
#define MSR_IA32_FEATURE_CONTROL         0x3A
#define MSR_IA32_PLATFORM_ID             0x17
#define MSR_IA32_UCODE_REV               0x8B /* BIOS_SIGN_ID: microcode revision in bits 63:32 */
#define MSR_IA32_MTRRCAP                 0xFE
#define MSR_IA32_SYSENTER_CS             0x174
#define MSR_IA32_SYSENTER_ESP            0x175
#define MSR_IA32_SYSENTER_EIP            0x176
#define MSR_IA32_MTRR_DEF_TYPE           0x2FF
#define MSR_IA32_APIC_BASE               0x1B
#define MSR_IA32_VMX_BASIC               0x480
#define MSR_IA32_VMX_PINBASED_CTLS       0x481
#define MSR_IA32_VMX_PROCBASED_CTLS      0x482
#define MSR_IA32_VMX_EXIT_CTLS           0x483
#define MSR_IA32_VMX_ENTRY_CTLS          0x484
#define MSR_IA32_VMX_MISC                0x485
#define MSR_IA32_VMX_CR0_FIXED0          0x486
#define MSR_IA32_VMX_CR0_FIXED1          0x487
#define MSR_IA32_VMX_CR4_FIXED0          0x488
#define MSR_IA32_VMX_CR4_FIXED1          0x489
#define MSR_IA32_VMX_PROCBASED_CTLS2     0x48B
#define MSR_IA32_VMX_EPT_VPID_CAP        0x48C
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS  0x48D
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48E
#define MSR_IA32_VMX_TRUE_EXIT_CTLS      0x48F
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS     0x490
#define MSR_EFER                         0xC0000080
#define MSR_FS_BASE                      0xC0000100
#define MSR_GS_BASE                      0xC0000101
#define MSR_KERNEL_GS_BASE               0xC0000102
#define MSR_STAR                         0xC0000081 /* SYSCALL/SYSRET selectors */
#define MSR_LSTAR                        0xC0000082 /* SYSCALL target in 64-bit mode */
#define MSR_CSTAR                        0xC0000083 /* SYSCALL target in compatibility mode */
#define MSR_SFMASK                       0xC0000084 /* RFLAGS bits SYSCALL clears */
#define MSR_IA32_TSC                     0x10
#define MSR_IA32_MISC_ENABLE             0x1A0
#define MSR_IA32_PAT                     0x277
#define MSR_IA32_TSC_DEADLINE            0x6E0 /* SDM Vol. 3A §11.5.4.1 TSC-deadline mode */

/* IA32_FEATURE_CONTROL bits (SDM Vol. 3C §23.7) */
#define FEATURE_CONTROL_LOCK            X86_BIT(0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX X86_BIT(2)

/* IA32_APIC_BASE bits (SDM Vol. 3A §11.4.4 Figure 11-5, §11.12.1 Figure 11-26 for EXTD) */
#define APIC_BASE_BSP       X86_BIT(8)
#define APIC_BASE_EXTD      X86_BIT(10) /* x2APIC mode */
#define APIC_BASE_ENABLE    X86_BIT(11)
#define APIC_BASE_ADDR_MASK 0xFFFFFF000ULL
#define APIC_BASE_DEFAULT   0xFEE00000ULL

/* IA32_MTRR_DEF_TYPE (SDM Vol. 3A §12.11.2.1): default type in bits 7:0, FE bit 10, E bit 11 */
#define MTRR_DEF_TYPE_TYPE_MASK 0xFFULL
#define MTRR_DEF_TYPE_FE        X86_BIT(10)
#define MTRR_DEF_TYPE_E         X86_BIT(11)
#define MTRR_TYPE_UC            0
#define MTRR_TYPE_WC            1
#define MTRR_TYPE_WT            4
#define MTRR_TYPE_WP            5
#define MTRR_TYPE_WB            6

/* IA32_PAT after reset (SDM Vol. 3A §12.12.4, Table 12-12): WB, WT, UC-, UC, twice */
#define PAT_RESET_VALUE 0x0007040600070406ULL

/* EFER bits (SDM Vol. 3A §2.2.1) */
#define EFER_SCE X86_BIT(0)
#define EFER_LME X86_BIT(8)
#define EFER_LMA X86_BIT(10)
#define EFER_NXE X86_BIT(11)

#ifndef __ASSEMBLER__
#include <stdint.h>
/* What CPUID returns in its four registers. */
struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};
#endif

/* CPUID feature bits (SDM Vol. 2A, CPUID) */
#define CPUID_1_ECX_VMX           X86_BIT(5)
#define CPUID_1_ECX_X2APIC        X86_BIT(21)
#define CPUID_1_ECX_TSC_DEADLINE  X86_BIT(24)
#define CPUID_1_EBX_APIC_ID_SHIFT 24 /* initial APIC ID in EBX 31:24 */
#define CPUID_1_ECX_HYPERVISOR    X86_BIT(31)
#define CPUID_1_EDX_APIC          X86_BIT(9)
/* The extended leaves start at 0x80000000 (EAX: the highest one).  Address sizes, leaf
 * 80000008H: EAX[7:0] is MAXPHYADDR, the physical-address width; without the leaf it is 36
 * (Vol. 3A §4.1.4, for a CPU with PAE). */
#define CPUID_EXT_FIRST            0x80000000u
#define CPUID_ADDR_SIZES           0x80000008u
#define CPUID_ADDR_SIZES_PHYS_MASK 0xFFu
#define CPUID_PHYS_BITS_DEFAULT    36u

/* Real mode: a segment's base is its selector << 4 (SDM Vol. 3A §21.1.1). */
#define REAL_MODE_SEGMENT_SHIFT 4

#endif
