/* VM entry and exit (SDM Vol. 3C §26, §27).  vmx_run(gprs, launched) saves the host's
 * callee-saved registers and the gprs pointer on its stack, records that stack in HOST_RSP,
 * loads the guest's general registers and enters.  A VM exit lands at vmx_exit_point (HOST_RIP)
 * with RSP = HOST_RSP, stores the guest's registers and returns 0 to vmx_run's caller. */
#include "arch/x86/vmcs/hostnat.h"

#define G(r) (8 * r)
#define RAX 0
#define RCX 1
#define RDX 2
#define RBX 3
#define RBP 5
#define RSI 6
#define RDI 7

    .text
    .global vmx_run
vmx_run:
    push    %rbp
    push    %rbx
    push    %r12
    push    %r13
    push    %r14
    push    %r15
    push    %rdi                        /* the gprs pointer, for vmx_exit_point */
    mov     $VMCS_HOST_RSP, %eax
    vmwrite %rsp, %rax
    jbe     entry_failed
    test    %esi, %esi                  /* launched? (MOVs below keep the flags) */
    mov     G(RAX)(%rdi), %rax
    mov     G(RCX)(%rdi), %rcx
    mov     G(RDX)(%rdi), %rdx
    mov     G(RBX)(%rdi), %rbx
    mov     G(RBP)(%rdi), %rbp
    mov     G(RSI)(%rdi), %rsi
    mov     G(8)(%rdi), %r8
    mov     G(9)(%rdi), %r9
    mov     G(10)(%rdi), %r10
    mov     G(11)(%rdi), %r11
    mov     G(12)(%rdi), %r12
    mov     G(13)(%rdi), %r13
    mov     G(14)(%rdi), %r14
    mov     G(15)(%rdi), %r15
    mov     G(RDI)(%rdi), %rdi
    jnz     1f
    vmlaunch
    jmp     entry_failed
1:  vmresume
    /* falls through only when the instruction failed (CF or ZF set) */
entry_failed:
    jc      2f
    mov     $-2, %eax                   /* VMX_FAIL_VALID */
    jmp     3f
2:  mov     $-1, %eax                   /* VMX_FAIL_INVALID */
3:  add     $8, %rsp
    jmp     restore_host

    .global vmx_exit_point
vmx_exit_point:
    push    %rdi
    mov     8(%rsp), %rdi
    mov     %rax, G(RAX)(%rdi)
    mov     %rcx, G(RCX)(%rdi)
    mov     %rdx, G(RDX)(%rdi)
    mov     %rbx, G(RBX)(%rdi)
    mov     %rbp, G(RBP)(%rdi)
    mov     %rsi, G(RSI)(%rdi)
    mov     %r8, G(8)(%rdi)
    mov     %r9, G(9)(%rdi)
    mov     %r10, G(10)(%rdi)
    mov     %r11, G(11)(%rdi)
    mov     %r12, G(12)(%rdi)
    mov     %r13, G(13)(%rdi)
    mov     %r14, G(14)(%rdi)
    mov     %r15, G(15)(%rdi)
    popq    G(RDI)(%rdi)
    add     $8, %rsp
    xor     %eax, %eax
restore_host:
    pop     %r15
    pop     %r14
    pop     %r13
    pop     %r12
    pop     %rbx
    pop     %rbp
    ret
