#include "arch/x86/gdt.h"

#include <stddef.h>
#include <string.h>

#define IST_STACK_SIZE 8192

static struct gdt_cpu boot_cpu;
static uint8_t ist_stacks[IST_STACKS][IST_STACK_SIZE] __attribute__((aligned(16)));

struct __attribute__((packed)) descriptor_ptr {
    uint16_t limit;
    uint64_t base;
};

#define SEG_TSS_AVAILABLE 0x89ULL

void gdt_init(void)
{
    uint64_t top[IST_STACKS];
    for (unsigned i = 0; i < IST_STACKS; i++)
        top[i] = (uint64_t)(uintptr_t)(ist_stacks[i] + IST_STACK_SIZE);
    gdt_load(&boot_cpu, top);
}

void gdt_load(struct gdt_cpu *c, const uint64_t ist_top[IST_STACKS])
{
    struct tss64 *tss = &c->tss;
    uint64_t *gdt = c->gdt;
    memset(tss, 0, sizeof *tss);
    for (unsigned i = 0; i < IST_STACKS; i++)
        tss->ist[i] = ist_top[i];
    tss->iomap_base = sizeof *tss; /* no I/O permission bitmap */

    uint64_t base = (uint64_t)(uintptr_t)tss, limit = sizeof *tss - 1;
    gdt[0] = 0;
    gdt[1] = GDT_SEG_CODE64;
    gdt[2] = GDT_SEG_DATA;
    /* A 16-byte system descriptor (SDM Vol. 3A Figure 7-4). */
    gdt[3] = (limit & 0xFFFF) | (base & 0xFFFFFF) << 16 | SEG_TSS_AVAILABLE << 40 |
             ((limit >> 16) & 0xF) << 48 | ((base >> 24) & 0xFF) << 56;
    gdt[4] = base >> 32;

    struct descriptor_ptr ptr = { sizeof c->gdt - 1, (uint64_t)(uintptr_t)gdt };
    __asm__ volatile("lgdt %0\n\t"
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
                     :
                     : "m"(ptr), "i"(GDT_KERNEL_CS), "i"(GDT_KERNEL_DS), "i"(GDT_TSS)
                     : "rax", "memory");
}

/* Every CPU's GDT is the first member of its struct gdt_cpu: GDTR names both tables. */
uint64_t gdt_base(void)
{
    struct descriptor_ptr ptr;
    __asm__ volatile("sgdt %0" : "=m"(ptr));
    return ptr.base;
}
uint64_t tss_base(void)
{
    return gdt_base() + offsetof(struct gdt_cpu, tss);
}
