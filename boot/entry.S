/* 32-bit protected-mode entry from GRUB (Multiboot2 §3.3: EAX = magic, EBX = boot information,
 * paging off, interrupts off) to 64-bit long mode.  We identity-map the first 4 GiB with 2 MiB
 * pages, which covers the image, GRUB's boot information and modules and the low MMIO hole; C code
 * (arch/x86/paging.c) then builds the final tables for all RAM.  SDM Vol. 3A §9.8.5 gives the
 * order: PAE, CR3, EFER.LME, then CR0.PG. */
#include "arch/x86/regs.h"

#define BOOT_STACK_SIZE 65536

    .code32
    .section .text.entry, "ax"
    .global _start
_start:
    cli
    cld
    mov     $boot_stack_top, %esp
    mov     %eax, %ebp                  /* keep magic and info for kmain(magic, info) */
    mov     %ebx, %esi

    /* Zero .bss ourselves rather than trust every loader to (it holds these page tables). */
    mov     $_bss_start, %edi
    mov     $_bss_end, %ecx
    sub     %edi, %ecx
    xor     %eax, %eax
    rep stosb
    mov     %ebp, %edi

    /* Long mode needs CPUID.80000001h:EDX[29]; stop with a message on port 0xE9 otherwise. */
    mov     $0x80000000, %eax
    cpuid
    cmp     $0x80000001, %eax
    jb      no_long_mode
    mov     $0x80000001, %eax
    cpuid
    bt      $29, %edx
    jnc     no_long_mode

    /* PML4[0] -> PDPT, PDPT[0..3] -> four page directories of 512 2 MiB pages each. */
    mov     $boot_pdpt, %eax
    or      $(PTE_P | PTE_W), %eax
    mov     %eax, boot_pml4
    mov     $boot_pd, %ebx
    xor     %ecx, %ecx
1:  mov     %ebx, %eax
    or      $(PTE_P | PTE_W), %eax
    mov     %eax, boot_pdpt(,%ecx,8)
    add     $PAGE_SIZE, %ebx
    inc     %ecx
    cmp     $4, %ecx
    jb      1b
    xor     %ecx, %ecx                  /* 2048 entries, entry i maps i * 2 MiB */
2:  mov     %ecx, %eax
    shl     $PAGE_2M_SHIFT, %eax
    or      $(PTE_P | PTE_W | PTE_PS), %eax
    mov     %eax, boot_pd(,%ecx,8)
    mov     %ecx, %eax
    shr     $(32 - PAGE_2M_SHIFT), %eax  /* high dword: address bits 63:32 */
    mov     %eax, boot_pd+4(,%ecx,8)
    inc     %ecx
    cmp     $(4 * PT_ENTRIES), %ecx
    jb      2b

    mov     %cr4, %eax
    or      $CR4_PAE, %eax
    mov     %eax, %cr4
    mov     $boot_pml4, %eax
    mov     %eax, %cr3
    mov     $MSR_EFER, %ecx
    rdmsr
    or      $(EFER_LME | EFER_NXE), %eax
    wrmsr
    mov     %cr0, %eax
    or      $(CR0_PG | CR0_PE | CR0_WP), %eax
    mov     %eax, %cr0

    lgdt    boot_gdt_ptr
    ljmp    $0x08, $long_mode_entry

no_long_mode:
    mov     $no_lm_msg, %esi
3:  lodsb
    test    %al, %al
    jz      4f
    outb    %al, $0xE9
    jmp     3b
4:  hlt
    jmp     4b

    .code64
long_mode_entry:
    mov     $0x10, %ax
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    xor     %ax, %ax
    mov     %ax, %fs
    mov     %ax, %gs
    mov     $boot_stack_top, %rsp
    xor     %rbp, %rbp                  /* ends the stack trace */

    /* SSE on (CR0.MP, not EM; CR4.OSFXSR, OSXMMEXCPT): newlib passes doubles in XMM registers. */
    mov     %cr0, %rax
    and     $~CR0_EM, %rax
    or      $CR0_MP, %rax
    mov     %rax, %cr0
    mov     %cr4, %rax
    or      $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
    mov     %rax, %cr4

    mov     %edi, %edi                  /* zero-extend magic and info pointer */
    mov     %esi, %esi
    call    kmain
5:  cli
    hlt
    jmp     5b

    .section .rodata
no_lm_msg:
    .asciz  "tessera: this CPU has no 64-bit long mode; stopping\n"

    /* A throw-away GDT for the jump; arch/x86/gdt.c installs the real one with a TSS. */
    .balign 8
boot_gdt:
    .quad   0
    .quad   0x00AF9A000000FFFF          /* 0x08: 64-bit code, DPL 0 */
    .quad   0x00CF92000000FFFF          /* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
    .short  boot_gdt_end - boot_gdt - 1
    .long   boot_gdt

    .section .bss
    .balign PAGE_SIZE
    .global boot_pml4, boot_pdpt, boot_pd
boot_pml4:  .skip PAGE_SIZE
boot_pdpt:  .skip PAGE_SIZE
boot_pd:    .skip PAGE_SIZE * 4
    .global boot_stack_top
boot_stack: .skip BOOT_STACK_SIZE
boot_stack_top:
