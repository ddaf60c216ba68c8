/* Where an application processor (AP) begins after its STARTUP IPI: real mode at CS = page >> 4,
 * IP = 0, in a copy of the 16-bit part below made on a page below 1 MiB (arch/x86/smp.c).  That
 * part only loads a GDT and enters protected mode; the rest runs from the image at its linked
 * address, which is below 4 GiB and identity mapped: 32-bit protected mode, then long mode on
 * the boot CPU's page tables (boot_pml4) and SSE, both as boot/entry.S does them
 * (arch/x86/long_mode.h), then ap_main() on the stack the boot CPU put in ap_boot_stack. */
#include "arch/x86/gdt.h"
#include "arch/x86/long_mode.h"
#include "arch/x86/regs.h"

    .section .rodata
    .code16
    .global ap_trampoline, ap_trampoline_end
ap_trampoline:
    cli
    cld
    /* The pointer is in the copy, CS-relative; the GDT it names is in the image. */
    lgdtl   %cs:ap_trampoline_gdtr - ap_trampoline
    mov     %cr0, %eax
    or      $CR0_PE, %eax
    mov     %eax, %cr0
    ljmpl   $GDT_TRAMPOLINE_CS32, $ap_entry32

    .balign 8
ap_trampoline_gdtr:
    .short  ap_gdt_end - ap_gdt - 1
    .long   ap_gdt
ap_trampoline_end:

    .balign 8
ap_gdt:
    .quad   0
    .quad   GDT_SEG_CODE64              /* GDT_KERNEL_CS */
    .quad   GDT_SEG_DATA                /* GDT_KERNEL_DS */
    .quad   GDT_SEG_CODE32              /* GDT_TRAMPOLINE_CS32 */
ap_gdt_end:

    .text
    .code32
ap_entry32:
    mov     $GDT_KERNEL_DS, %ax
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    LONG_MODE_ON boot_pml4
    ljmp    $GDT_KERNEL_CS, $ap_entry64

    .code64
ap_entry64:
    DATA_SEGMENTS GDT_KERNEL_DS
    mov     ap_boot_stack(%rip), %rsp
    xor     %rbp, %rbp                  /* ends the stack trace */

    SSE_ON

    call    ap_main
1:  cli
    hlt
    jmp     1b
