/* Interrupt and exception entry stubs.  Each pushes a dummy error code where the CPU pushes none
 * (SDM Vol. 3A §6.13) and the vector, then the common path saves the general registers and the
 * SSE state (C code and newlib may use XMM registers) and calls trap_dispatch(frame). */

    .text

.macro ISR_ENTRY vector, has_error
    .balign 16
isr_\vector:
    .if \has_error == 0
    pushq   $0
    .endif
    pushq   $\vector
    jmp     isr_common
.endm

/* Vectors whose exceptions push an error code: 8, 10-14, 17, 21, 29, 30. */
.irp v, 0,1,2,3,4,5,6,7,9,15,16,18,19,20,22,23,24,25,26,27,28,31
    ISR_ENTRY \v, 0
.endr
.irp v, 8,10,11,12,13,14,17,21,29,30
    ISR_ENTRY \v, 1
.endr
.irp v, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,255
    ISR_ENTRY \v, 0
.endr

isr_common:
    pushq   %rax
    pushq   %rbx
    pushq   %rcx
    pushq   %rdx
    pushq   %rsi
    pushq   %rdi
    pushq   %rbp
    pushq   %r8
    pushq   %r9
    pushq   %r10
    pushq   %r11
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    mov     %rsp, %rbx              /* rbx: the frame, callee-saved across the C call */
    sub     $512, %rsp
    and     $~15, %rsp              /* FXSAVE needs 16-byte alignment */
    fxsave  (%rsp)
    mov     %rbx, %rdi
    cld
    call    trap_dispatch
    fxrstor (%rsp)
    mov     %rbx, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %r11
    popq    %r10
    popq    %r9
    popq    %r8
    popq    %rbp
    popq    %rdi
    popq    %rsi
    popq    %rdx
    popq    %rcx
    popq    %rbx
    popq    %rax
    add     $16, %rsp               /* vector and error code */
    iretq

    .section .rodata
    .balign 8
    .global isr_table
isr_table:                          /* (vector, entry) pairs, ended by vector -1 */
.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .quad \v, isr_\v
.endr
.irp v, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,255
    .quad \v, isr_\v
.endr
    .quad -1, 0

    .text
/* bool rdmsr_safe(uint32_t msr, uint64_t *value): an operator may name any MSR; a #GP for one
 * the CPU lacks is turned into a false return through the exception table. */
    .global rdmsr_safe
rdmsr_safe:
    mov     %edi, %ecx
1:  rdmsr
    shl     $32, %rdx
    or      %rdx, %rax
    mov     %rax, (%rsi)
    mov     $1, %eax
    ret
2:  xor     %eax, %eax
    ret
    .section __ex_table, "a"
    .quad   1b, 2b
    .previous

    .global cpu_halt_forever
cpu_halt_forever:
    cli
3:  hlt
    jmp     3b
