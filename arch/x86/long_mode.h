/* The steps into 64-bit mode that the boot CPU (boot/entry.S) and every application processor
 * (arch/x86/trampoline.S) take alike, as assembler macros. */
#ifndef TESSERA_ARCH_X86_LONG_MODE_H
#define TESSERA_ARCH_X86_LONG_MODE_H

#include "arch/x86/regs.h"

#ifdef __ASSEMBLER__
/* Assembler, which clang-format would read as C. */
/* clang-format off */
/* From 32-bit protected mode: paging on the tables at `pml4` (below 4 GiB), long mode active
 * after the next far jump to a 64-bit code segment.  SDM Vol. 3A §9.8.5 gives the order: PAE,
 * CR3, EFER.LME, then CR0.PG.  Clobbers EAX, ECX, EDX. */
.macro LONG_MODE_ON pml4
    mov     %cr4, %eax
    or      $CR4_PAE, %eax
    mov     %eax, %cr4
    mov     $\pml4, %eax
    mov     %eax, %cr3
    mov     $MSR_EFER, %ecx
    rdmsr
    or      $(EFER_LME | EFER_NXE), %eax
    wrmsr
    mov     %cr0, %eax
    or      $(CR0_PG | CR0_PE | CR0_WP), %eax
    mov     %eax, %cr0
.endm

/* In 64-bit mode: DS, ES and SS are the data segment `sel`, FS and GS null.  Clobbers AX. */
.macro DATA_SEGMENTS sel
    mov     $\sel, %ax
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    xor     %ax, %ax
    mov     %ax, %fs
    mov     %ax, %gs
.endm

/* In 64-bit mode: SSE on (CR0.MP, not EM; CR4.OSFXSR, OSXMMEXCPT), because newlib and the
 * compiler pass and copy with XMM registers.  Clobbers RAX. */
.macro SSE_ON
    mov     %cr0, %rax
    and     $~CR0_EM, %rax
    or      $CR0_MP, %rax
    mov     %rax, %cr0
    mov     %cr4, %rax
    or      $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
    mov     %rax, %cr4
.endm
/* clang-format on */
#endif

#endif
