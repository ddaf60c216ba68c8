/* Single x86 instructions a guest needs, as inline functions.  The one place guest code holds
 * inline assembly for these.  The architectural bits they use (paging entries, CPUID bits, the
 * IDT gate type) are the hypervisor's names, arch/x86/regs.h. */
#ifndef TESSERA_GUESTS_LIB_X86_H
#define TESSERA_GUESTS_LIB_X86_H

#include <stdint.h>

#include "arch/x86/regs.h"

struct x86_cpuid {
    uint32_t eax, ebx, ecx, edx;
};

static inline struct x86_cpuid x86_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct x86_cpuid r;
    __asm__ volatile("cpuid"
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

static inline uint64_t x86_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t x86_rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void x86_wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void x86_outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t x86_inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* 16- and 32-bit port I/O (PCI configuration mechanism #1 uses dword accesses). */
static inline void x86_outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t x86_inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void x86_outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t x86_inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t x86_read_cr2(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

static inline uint64_t x86_read_cr3(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

static inline uint16_t x86_read_cs(void)
{
    uint16_t v;
    __asm__ volatile("mov %%cs, %0" : "=r"(v));
    return v;
}

static inline void x86_invlpg(uint64_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* In a guest, HLT with interrupts off exits to the hypervisor, which takes it as a yield; on a
 * bare CPU it would stop for good. */
static inline void x86_hlt(void)
{
    __asm__ volatile("hlt" : : : "memory");
}

static inline void x86_cli(void)
{
    __asm__ volatile("cli" : : : "memory");
}
static inline void x86_sti(void)
{
    __asm__ volatile("sti" : : : "memory");
}
/* STI's one-instruction shadow covers the HLT (SDM Vol. 2B, STI): an interrupt that is already
 * pending is taken after HLT starts, so it cannot slip in between and leave the CPU halted.
 * Interrupts are off again on return. */
static inline void x86_wait_for_interrupt(void)
{
    __asm__ volatile("sti; hlt; cli" : : : "memory");
}

#endif
