/* Interrupts in a guest: the x2APIC the hypervisor hands over (IA32_APIC_BASE with EN and EXTD
 * set, every register an MSR; Intel SDM Vol. 3A §11.12) is switched on with its timer in
 * TSC-deadline mode on GUEST_VEC_TIMER, which the library's sleeps use.  Guest code runs with
 * interrupts off; guest_irq_wait turns them on only while halted.  Other vectors are the guest
 * program's (guest_irq_set_handler). */
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"
#include "guests/lib/x86.h"

#include "arch/x86/apic_regs.h"
#include "arch/x86/regs.h"

#define FIRST_IRQ_VECTOR 32
#define VECTORS          256

static guest_irq_handler handlers[VECTORS];
static bool timer_ready;
static volatile uint64_t timer_irqs;

bool guest_irq_timer_ready(void)
{
    return timer_ready;
}
uint64_t guest_irq_timer_count(void)
{
    return timer_irqs;
}

void guest_apic_eoi(void)
{
    x86_wrmsr(X2APIC_MSR(LAPIC_EOI), 0);
}

void guest_irq_wait(void)
{
    x86_wait_for_interrupt();
}

void guest_irq_init(void)
{
    /* Only on a platform that says it has an x2APIC with the TSC-deadline timer, handed over in
     * x2APIC mode; otherwise sleeps keep halting with interrupts off (a yield). */
    struct x86_cpuid c = x86_cpuid(1, 0);
    if (!(c.ecx & CPUID_1_ECX_X2APIC) || !(c.ecx & CPUID_1_ECX_TSC_DEADLINE))
        return;
    const uint64_t x2apic_on = APIC_BASE_ENABLE | APIC_BASE_EXTD;
    if ((x86_rdmsr(MSR_IA32_APIC_BASE) & x2apic_on) != x2apic_on)
        return;
    x86_wrmsr(X2APIC_MSR(LAPIC_SVR), LAPIC_SVR_ENABLE | GUEST_VEC_SPURIOUS);
    x86_wrmsr(X2APIC_MSR(LAPIC_LVT_TIMER), LAPIC_LVT_TSC_DEADLINE | GUEST_VEC_TIMER);
    timer_ready = true;
}

void guest_timer_arm(uint64_t tsc_deadline)
{
    x86_wrmsr(MSR_IA32_TSC_DEADLINE, tsc_deadline);
}

bool guest_irq_set_handler(unsigned vector, guest_irq_handler fn)
{
    if (vector < FIRST_IRQ_VECTOR || vector >= VECTORS || vector == GUEST_VEC_TIMER ||
        vector == GUEST_VEC_SPURIOUS)
        return false;
    handlers[vector] = fn;
    return true;
}

void guest_irq_dispatch(unsigned vector, uint64_t rip)
{
    if (vector == GUEST_VEC_SPURIOUS)
        return; /* a spurious interrupt takes no EOI (SDM §11.9) */
    if (vector == GUEST_VEC_TIMER) {
        timer_irqs++; /* the wake-up is all a sleep needs */
        guest_apic_eoi();
        return;
    }
    if (vector < VECTORS && handlers[vector]) {
        handlers[vector](vector);
        return;
    }
    guest_console_puts("guest: unexpected interrupt, vector ");
    guest_console_put_hex(vector);
    guest_console_puts(" at rip ");
    guest_console_put_hex(rip);
    guest_console_puts(", stopping\n");
    guest_exit_now(GUEST_EXIT_UNEXPECTED_IRQ);
}
