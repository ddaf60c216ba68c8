/* The hypervisor's GDT and TSS (SDM Vol. 3A §3.4.5, §7.7).  The selectors are also the host
 * state a VM exit returns to, so they are named here once. */
#ifndef TESSERA_ARCH_X86_GDT_H
#define TESSERA_ARCH_X86_GDT_H

#define GDT_KERNEL_CS 0x08
#define GDT_KERNEL_DS 0x10
#define GDT_TSS       0x18
#define GDT_ENTRIES   5 /* null, code, data, and the TSS's 16-byte descriptor */
/* In the application processors' start-up GDT (arch/x86/trampoline.S) 0x18 is a flat 32-bit
 * code segment: the step from real mode through protected mode to long mode. */
#define GDT_TRAMPOLINE_CS32 0x18

/* Segment descriptors (SDM Vol. 3A §3.4.5): present, DPL 0, 4 GiB limit; L=1 for 64-bit code,
 * D=1 for 32-bit code and data.  No suffix: the trampoline's assembly uses them too. */
#define GDT_SEG_CODE64 0x00AF9A000000FFFF
#define GDT_SEG_CODE32 0x00CF9A000000FFFF
#define GDT_SEG_DATA   0x00CF92000000FFFF

/* Interrupt stack table slots (SDM Vol. 3A §6.14.5): faults that mean the normal stack may be
 * unusable get their own. */
#define IST_DOUBLE_FAULT  1
#define IST_NMI           2
#define IST_MACHINE_CHECK 3
/* External interrupts get a stack of their own too, so an interrupt never writes below the
 * interrupted code's stack pointer: Debian's libfdt.a (linked unchanged) uses the red zone. */
#define IST_IRQ    4
#define IST_STACKS 4

#ifndef __ASSEMBLER__
#include <stdint.h>

/* 64-bit TSS (SDM Vol. 3A Figure 7-11). */
struct tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

/* One CPU's GDT and TSS: LTR marks the TSS descriptor busy, so no two CPUs share one. */
struct gdt_cpu {
    uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
    struct tss64 tss;
};

/* The boot CPU's tables, with its IST stacks. */
void gdt_init(void);
/* Fills `c` with a TSS whose IST slots are `ist_top` (IST_STACKS stack tops) and loads it on
 * this CPU: GDT, segment registers, task register. */
void gdt_load(struct gdt_cpu *c, const uint64_t ist_top[IST_STACKS]);
/* The GDT and TSS of the CPU this runs on: the host state of the VM exits of a vCPU it owns. */
uint64_t gdt_base(void);
uint64_t tss_base(void);
#endif

#endif
