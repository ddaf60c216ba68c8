#include "arch/x86/reboot.h"

#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"

/* Reset Control Register (Intel PCH datasheet, I/O port 0xCF9): bit 2 resets, bit 1 makes it a
 * hard reset. */
#define PORT_RESET_CONTROL  0xCF9
#define RESET_CONTROL_HARD  0x02
#define RESET_CONTROL_DO    0x04
/* 8042 keyboard controller: command 0xFE pulses the CPU reset line. */
#define PORT_KBC_COMMAND    0x64
#define KBC_PULSE_RESET     0xFE

void machine_reboot(void)
{
    irq_disable();
    outb(PORT_RESET_CONTROL, RESET_CONTROL_HARD);
    outb(PORT_RESET_CONTROL, RESET_CONTROL_HARD | RESET_CONTROL_DO);
    timer_delay_us(50000);
    outb(PORT_KBC_COMMAND, KBC_PULSE_RESET);
    timer_delay_us(50000);
    /* An empty IDT turns the next exception into a triple fault, which resets the CPU. */
    struct __attribute__((packed)) { uint16_t limit; uint64_t base; } empty = { 0, 0 };
    __asm__ volatile("lidt %0; int3" : : "m"(empty));
    cpu_halt_forever();
}
