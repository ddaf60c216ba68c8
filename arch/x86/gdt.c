#include "arch/x86/gdt.h"

#include <string.h>

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

#define IST_STACK_SIZE 8192

static struct tss64 tss;
static uint8_t ist_stacks[IST_STACKS][IST_STACK_SIZE] __attribute__((aligned(16)));
static uint64_t gdt[5] __attribute__((aligned(16)));

struct __attribute__((packed)) descriptor_ptr {
    uint16_t limit;
    uint64_t base;
};

/* Segment descriptor access/flag values (SDM Vol. 3A §3.4.5): present, DPL 0, L=1 for code. */
#define SEG_CODE64  0x00AF9A000000FFFFULL
#define SEG_DATA    0x00CF92000000FFFFULL
#define SEG_TSS_AVAILABLE 0x89ULL

void gdt_init(void)
{
    memset(&tss, 0, sizeof tss);
    for (unsigned i = 0; i < IST_STACKS; i++)
        tss.ist[i] = (uint64_t)(uintptr_t)(ist_stacks[i] + IST_STACK_SIZE);
    tss.iomap_base = sizeof tss;        /* no I/O permission bitmap */

    uint64_t base = (uint64_t)(uintptr_t)&tss, limit = sizeof tss - 1;
    gdt[0] = 0;
    gdt[1] = SEG_CODE64;
    gdt[2] = SEG_DATA;
    /* A 16-byte system descriptor (SDM Vol. 3A Figure 7-4). */
    gdt[3] = (limit & 0xFFFF) | (base & 0xFFFFFF) << 16 | SEG_TSS_AVAILABLE << 40 |
             ((limit >> 16) & 0xF) << 48 | ((base >> 24) & 0xFF) << 56;
    gdt[4] = base >> 32;

    struct descriptor_ptr ptr = { sizeof gdt - 1, (uint64_t)(uintptr_t)gdt };
    __asm__ volatile(
        "lgdt %0\n\t"
        "pushq %1\n\t"
        "leaq 1f(%%rip), %%rax\n\t"
        "pushq %%rax\n\t"
        "lretq\n"
        "1:\n\t"
        "mov %2, %%ax\n\t"
        "mov %%ax, %%ds\n\t"
        "mov %%ax, %%es\n\t"
        "mov %%ax, %%ss\n\t"
        "mov %3, %%ax\n\t"
        "ltr %%ax"
        : : "m"(ptr), "i"(GDT_KERNEL_CS), "i"(GDT_KERNEL_DS), "i"(GDT_TSS) : "rax", "memory");
}

uint64_t gdt_base(void) { return (uint64_t)(uintptr_t)gdt; }
uint64_t tss_base(void) { return (uint64_t)(uintptr_t)&tss; }
