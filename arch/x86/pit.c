#include "arch/x86/pit.h"

#include "arch/x86/cpu.h"

uint64_t pit_measure_tsc(uint32_t us)
{
    uint32_t count = (uint32_t)((uint64_t)PIT_HZ * us / 1000000);
    uint8_t ctrl = inb(PORT_SYS_CTRL_B);
    outb(PORT_SYS_CTRL_B, (ctrl & ~SYS_CTRL_B_SPEAKER) | SYS_CTRL_B_GATE2);
    outb(PIT_MODE_CMD, PIT_CH2_MODE0_LOHI);
    outb(PIT_CH2_DATA, count & 0xFF);
    outb(PIT_CH2_DATA, count >> 8);
    /* Restart the count by toggling the gate, then time until OUT2 goes high. */
    outb(PORT_SYS_CTRL_B, (ctrl & ~(SYS_CTRL_B_SPEAKER | SYS_CTRL_B_GATE2)));
    outb(PORT_SYS_CTRL_B, (ctrl & ~SYS_CTRL_B_SPEAKER) | SYS_CTRL_B_GATE2);
    uint64_t t0 = rdtsc();
    while (!(inb(PORT_SYS_CTRL_B) & SYS_CTRL_B_OUT2))
        cpu_pause();
    uint64_t t1 = rdtsc();
    outb(PORT_SYS_CTRL_B, ctrl);
    return t1 - t0;
}

void pic_disable(uint8_t vector_base)
{
    /* Remap first so a stray IRQ 7/15 cannot look like an exception, then mask everything. */
    outb(PIC1_CMD, PIC_ICW1_INIT_ICW4);
    outb(PIC2_CMD, PIC_ICW1_INIT_ICW4);
    outb(PIC1_DATA, vector_base);
    outb(PIC2_DATA, vector_base + 8);
    outb(PIC1_DATA, 1u << PIC_CASCADE_IR); /* slave on IRQ 2 */
    outb(PIC2_DATA, PIC_CASCADE_IR);
    outb(PIC1_DATA, PIC_ICW4_8086);
    outb(PIC2_DATA, PIC_ICW4_8086);
    outb(PIC1_DATA, 0xFF);
    outb(PIC2_DATA, 0xFF);
}
