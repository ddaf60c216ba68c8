/* Guest entry.  The hypervisor starts the vCPU here in 64-bit long mode, CPL 0, interrupts off,
 * identity-mapped, with RSI = the guest-physical address of struct tessera_boot_info (see
 * include/tessera/abi/guest.h).  Everything else is set up here, before any C runs: a stack of
 * our own in .bss (the given RSP is only "somewhere at the top of RAM"), a cleared .bss (the
 * hypervisor's loader should have zeroed it, but a reset may re-enter a used image), and SSE,
 * which newlib and gcc's -O2 code use for copies and doubles. */

#include "arch/x86/regs.h"     /* CR0_*, CR4_* (SDM Vol. 3A §2.5) */

#define MXCSR_DEFAULT   0x1f80      /* all SSE exceptions masked, round to nearest */
#define GUEST_STACK_SIZE 0x10000    /* 64 KiB */

    .section .text.entry, "ax"
    .globl _start
    .type _start, @function
_start:
    cli
    cld
    mov     %rsi, %r12                  /* the boot info, kept in a callee-saved register */
    mov     $guest_stack_top, %rsp
    xor     %ebp, %ebp                  /* ends frame-pointer walks */

    /* Clear .bss (the linker script aligns both ends to 8 bytes). */
    mov     $_bss_start, %rdi
    mov     $_bss_end, %rcx
    sub     %rdi, %rcx
    shr     $3, %rcx
    xor     %eax, %eax
    rep stosq

    /* SSE on: no x87 emulation (EM) and no task-switch fault (TS) on the first SSE op, WAIT
     * honours TS (MP); the OS saves SSE state with FXSAVE (OSFXSR) and unmasked SSE exceptions
     * raise #XM, not #UD (OSXMMEXCPT). */
    mov     %cr0, %rax
    and     $~(CR0_EM | CR0_TS), %rax
    or      $CR0_MP, %rax
    mov     %rax, %cr0
    mov     %cr4, %rax
    or      $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
    mov     %rax, %cr4
    fninit
    ldmxcsr mxcsr_default(%rip)

    mov     %r12, %rdi
    call    guest_runtime_start         /* never returns */
1:  hlt
    jmp     1b
    .size _start, . - _start

    .section .rodata
    .balign 4
mxcsr_default:
    .long   MXCSR_DEFAULT

    .section .bss.stack, "aw", @nobits
    .balign 16
guest_stack_bottom:
    .skip   GUEST_STACK_SIZE
    .globl guest_stack_top
guest_stack_top:

    .section .note.GNU-stack, "", @progbits
