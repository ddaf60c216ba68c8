/* Entry stubs for all 256 vectors: CPU exceptions (0-31) and interrupts (32-255).  Each pushes
 * a dummy error code where the CPU pushes none (so every frame has the same shape), then its
 * vector, then the general registers, and calls guest_trap_dispatch(struct guest_trap_frame *).
 * No privilege change happens (the guest runs at CPL 0), so no TSS stack switch is needed. */

/* Vectors for which the CPU pushes an error code (SDM Vol. 3A, Table 6-1); never for 32-255. */
#define HAS_ERROR(v) ((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || (v) == 13 || \
                      (v) == 14 || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

    .text
    .macro trap_stub vec
    .balign 16
trap_stub_\vec:
    .if !HAS_ERROR(\vec)
    pushq   $0
    .endif
    pushq   $\vec
    jmp     trap_common
    .endm

    .altmacro
    .set vec, 0
    .rept 256
    trap_stub %vec
    .set vec, vec + 1
    .endr

/* Register order matches struct guest_trap_frame in trap.c (r15 at the lowest address). */
trap_common:
    push    %rax
    push    %rbx
    push    %rcx
    push    %rdx
    push    %rsi
    push    %rdi
    push    %rbp
    push    %r8
    push    %r9
    push    %r10
    push    %r11
    push    %r12
    push    %r13
    push    %r14
    push    %r15
    cld
    mov     %rsp, %rdi
    mov     %rsp, %rbx                  /* callee-saved: survives the call */
    and     $-16, %rsp                  /* the ABI's call alignment, whatever was interrupted */
    call    guest_trap_dispatch
    mov     %rbx, %rsp
    pop     %r15
    pop     %r14
    pop     %r13
    pop     %r12
    pop     %r11
    pop     %r10
    pop     %r9
    pop     %r8
    pop     %rbp
    pop     %rdi
    pop     %rsi
    pop     %rdx
    pop     %rcx
    pop     %rbx
    pop     %rax
    add     $16, %rsp                   /* vector and error code */
    iretq

    .section .rodata
    .balign 8
    .globl guest_trap_stubs
guest_trap_stubs:
    .macro stub_address vec
    .quad   trap_stub_\vec
    .endm
    .set vec, 0
    .rept 256
    stub_address %vec
    .set vec, vec + 1
    .endr

    .section .note.GNU-stack, "", @progbits
