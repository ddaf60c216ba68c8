#include "arch/x86/reboot.h"

#include "arch/x86/cpu.h"
#include "arch/x86/reset_regs.h"
#include "arch/x86/timer.h"

void machine_reboot(void)
{
    irq_disable();
    outb(RST_CNT_PORT, RST_CNT_SYS_RST);
    outb(RST_CNT_PORT, RST_CNT_SYS_RST | RST_CNT_RST_CPU);
    timer_delay_us(50000);
    outb(I8042_COMMAND_PORT, I8042_CMD_PULSE_RESET);
    timer_delay_us(50000);
    /* An empty IDT turns the next exception into a triple fault, which resets the CPU. */
    struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } empty = { 0, 0 };
    __asm__ volatile("lidt %0; int3" : : "m"(empty));
    cpu_halt_forever();
}
