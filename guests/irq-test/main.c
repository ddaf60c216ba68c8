/* irq-test: takes every kind of interrupt the hypervisor's interrupt path offers and reports
 * what happened, for the end-to-end test (tests/e2e/test_irq.py):
 *
 *   irq-test: apic id 0x0 version 0x60014 ldr 0x1 svr 0x1ff
 *   irq-test: tsc-deadline fired after <us> us (asked 20000)
 *   irq-test: one-shot fired after <us> us (asked 20000), count read <n> of <m>
 *   irq-test: periodic 10 interrupts in <us> us (period 10000)
 *   irq-test: self-ipi 0x50 (SELF_IPI) 0x51 (ICR self) taken
 *   irq-test: priority order 0x61 0x52
 *   irq-test: pic ready, uart on irq 4 (vector 0x34)
 *   irq-test: thre interrupt via vector 0x34
 *   irq-test: sleep 2000000 us took <us> us
 *   irq-test: ready for keys
 *   irq-test: rx 'x' via vector 0x34      (each key typed on its console, taken by interrupt)
 *   irq-test: heartbeat <n>               (every 10 s, halted with interrupts on in between)
 *
 * Every check that fails prints "irq-test: FAIL <what>" instead; the guest then goes on.  The
 * 8259 pair is programmed as Linux's init_8259A() does (vectors 0x30-0x3F, slave on IR2) and
 * reaches the CPU through LINT0 in ExtINT mode, the hypervisor's reset state. */
#include "guests/lib/guest.h"
#include "guests/lib/x86.h"

#include "arch/x86/apic_regs.h"
#include "arch/x86/i8259.h"
#include "arch/x86/regs.h"
#include "arch/x86/uart.h"

#include <inttypes.h>
#include <stdio.h>

#define NAME          "irq-test"
#define VEC_PIC_BASE  0x30
#define VEC_UART      (VEC_PIC_BASE + 4)
#define UART_IRQ      4u
#define VEC_ONE_SHOT  0x40
#define VEC_PERIODIC  0x41
#define VEC_SELF_IPI  0x50
#define VEC_ICR_SELF  0x51
#define VEC_LOW       0x52
#define VEC_HIGH      0x61
#define TIMER_US      20000u
#define PERIOD_US     10000u
#define PERIODS       10u
#define SLEEP_US      2000000u
#define HEARTBEAT_US  10000000u
#define WAIT_LIMIT_US 5000000u /* no interrupt within this: the check fails */
#define COM           TESSERA_GUEST_CONSOLE_PORT

static uint64_t tsc_hz;
static volatile uint64_t count[256], last_tsc[256];
static volatile uint8_t order[4];
static volatile unsigned n_order;
static volatile char keys[64];
static volatile unsigned keys_head, keys_tail;
static volatile unsigned thre_seen;
static unsigned failures;

static uint64_t apic_rd(uint32_t reg)
{
    return x86_rdmsr(X2APIC_MSR(reg));
}
static void apic_wr(uint32_t reg, uint64_t v)
{
    x86_wrmsr(X2APIC_MSR(reg), v);
}
static uint64_t tsc_to_us(uint64_t t)
{
    return t * 1000000u / tsc_hz;
}
static uint64_t us_to_tsc(uint64_t us)
{
    return us * tsc_hz / 1000000u;
}

static void fail(const char *what)
{
    printf(NAME ": FAIL %s\n", what);
    failures++;
}

/* ---- Handlers: they run with interrupts off and end their interrupt at its controller ---- */

static void on_apic_vector(unsigned v)
{
    count[v]++;
    last_tsc[v] = x86_rdtsc();
    if (n_order < sizeof order)
        order[n_order++] = (uint8_t)v;
    guest_apic_eoi();
}

static void on_uart(unsigned v)
{
    count[v]++;
    for (uint8_t iir; !((iir = x86_inb(COM + UART_IIR)) & UART_IIR_NO_INT);) {
        if ((iir & 0x0F) == UART_IIR_THRE)
            thre_seen++; /* reading IIR cleared it */
        while (x86_inb(COM + UART_LSR) & UART_LSR_DR) {
            char c = (char)x86_inb(COM + UART_RBR);
            if (keys_head - keys_tail < sizeof keys)
                keys[keys_head++ % sizeof keys] = c;
        }
    }
    x86_outb(PIC1_CMD, PIC_OCW2_SPECIFIC_EOI | UART_IRQ);
}

/* Waits (halted, interrupts on) until vector v has been taken `n` times in all. */
static bool wait_for(unsigned v, uint64_t n)
{
    uint64_t t0 = x86_rdtsc();
    while (count[v] < n) {
        if (tsc_to_us(x86_rdtsc() - t0) > WAIT_LIMIT_US)
            return false;
        guest_timer_arm(x86_rdtsc() + us_to_tsc(WAIT_LIMIT_US)); /* never halt for good */
        guest_irq_wait();
    }
    return true;
}

/* ---- The checks ---- */

static void check_apic(void)
{
    printf(NAME ": apic id %#" PRIx64 " version %#" PRIx64 " ldr %#" PRIx64 " svr %#" PRIx64 "\n",
           apic_rd(LAPIC_ID), apic_rd(LAPIC_VERSION), apic_rd(LAPIC_LDR), apic_rd(LAPIC_SVR));
    if (!guest_irq_timer_ready())
        fail("the library did not set up the x2APIC timer");
}

static void check_tsc_deadline(void)
{
    uint64_t before = guest_irq_timer_count(), t0 = x86_rdtsc();
    guest_timer_arm(t0 + us_to_tsc(TIMER_US));
    while (guest_irq_timer_count() == before && tsc_to_us(x86_rdtsc() - t0) < WAIT_LIMIT_US)
        guest_irq_wait();
    uint64_t us = tsc_to_us(x86_rdtsc() - t0);
    if (guest_irq_timer_count() == before)
        fail("tsc-deadline timer never fired");
    else if (us < TIMER_US)
        fail("tsc-deadline timer fired early");
    else
        printf(NAME ": tsc-deadline fired after %" PRIu64 " us (asked %u)\n", us, TIMER_US);
    if (x86_rdmsr(MSR_IA32_TSC_DEADLINE) != 0)
        fail("IA32_TSC_DEADLINE not cleared after firing");
}

static void restore_library_timer(void)
{
    apic_wr(LAPIC_TIMER_INITIAL, 0);
    apic_wr(LAPIC_LVT_TIMER, LAPIC_LVT_TSC_DEADLINE | GUEST_VEC_TIMER);
}

static void check_one_shot(void)
{
    uint32_t initial = (uint32_t)us_to_tsc(TIMER_US); /* divide by 1: one count per TSC tick */
    apic_wr(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_1);
    apic_wr(LAPIC_LVT_TIMER, LAPIC_LVT_ONESHOT | VEC_ONE_SHOT);
    uint64_t t0 = x86_rdtsc();
    apic_wr(LAPIC_TIMER_INITIAL, initial);
    uint64_t current = apic_rd(LAPIC_TIMER_CURRENT);
    bool ok = wait_for(VEC_ONE_SHOT, 1);
    uint64_t us = tsc_to_us(last_tsc[VEC_ONE_SHOT] - t0);
    if (!ok)
        fail("one-shot timer never fired");
    else if (us < TIMER_US)
        fail("one-shot timer fired early");
    else if (current == 0 || current > initial)
        fail("one-shot current count out of range");
    else
        printf(NAME ": one-shot fired after %" PRIu64 " us (asked %u), count read %" PRIu64
                    " of %u\n",
               us, TIMER_US, current, initial);
    if (apic_rd(LAPIC_TIMER_CURRENT) != 0)
        fail("one-shot count not 0 after firing");
    restore_library_timer();
}

static void check_periodic(void)
{
    apic_wr(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_1);
    apic_wr(LAPIC_LVT_TIMER, LAPIC_LVT_PERIODIC | VEC_PERIODIC);
    uint64_t t0 = x86_rdtsc();
    apic_wr(LAPIC_TIMER_INITIAL, (uint32_t)us_to_tsc(PERIOD_US));
    bool ok = wait_for(VEC_PERIODIC, PERIODS);
    uint64_t us = tsc_to_us(last_tsc[VEC_PERIODIC] - t0);
    restore_library_timer();
    if (!ok)
        fail("periodic timer stopped");
    else if (us < (uint64_t)PERIODS * PERIOD_US)
        fail("periodic timer ran fast");
    else
        printf(NAME ": periodic %u interrupts in %" PRIu64 " us (period %u)\n", PERIODS, us,
               PERIOD_US);
}

static void check_self_ipis(void)
{
    x86_wrmsr(X2APIC_MSR(LAPIC_SELF_IPI), VEC_SELF_IPI);
    apic_wr(LAPIC_ICR, LAPIC_ICR_SELF | LAPIC_ICR_FIXED | VEC_ICR_SELF);
    if (wait_for(VEC_SELF_IPI, 1) && wait_for(VEC_ICR_SELF, 1))
        printf(NAME ": self-ipi %#x (SELF_IPI) %#x (ICR self) taken\n", VEC_SELF_IPI, VEC_ICR_SELF);
    else
        fail("self-IPI not delivered");

    /* Both raised while interrupts are off: the higher priority class goes first. */
    n_order = 0;
    x86_wrmsr(X2APIC_MSR(LAPIC_SELF_IPI), VEC_LOW);
    x86_wrmsr(X2APIC_MSR(LAPIC_SELF_IPI), VEC_HIGH);
    if (!wait_for(VEC_LOW, 1) || n_order != 2)
        fail("two self-IPIs not both taken");
    else if (order[0] != VEC_HIGH || order[1] != VEC_LOW)
        fail("self-IPIs taken out of priority order");
    else
        printf(NAME ": priority order %#x %#x\n", order[0], order[1]);
}

/* arch/x86/kernel/i8259.c init_8259A(0), then IRQ 4 and the cascade unmasked. */
static void setup_pic(void)
{
    x86_outb(PIC1_DATA, 0xFF);
    x86_outb(PIC2_DATA, 0xFF);
    x86_outb(PIC1_CMD, PIC_ICW1_INIT_ICW4);
    x86_outb(PIC1_DATA, VEC_PIC_BASE);
    x86_outb(PIC1_DATA, 1u << PIC_CASCADE_IR);
    x86_outb(PIC1_DATA, PIC_ICW4_8086);
    x86_outb(PIC2_CMD, PIC_ICW1_INIT_ICW4);
    x86_outb(PIC2_DATA, VEC_PIC_BASE + 8);
    x86_outb(PIC2_DATA, PIC_CASCADE_IR);
    x86_outb(PIC2_DATA, PIC_ICW4_8086);
    x86_outb(PIC1_DATA, (uint8_t) ~((1u << PIC_CASCADE_IR) | (1u << UART_IRQ)));
    x86_outb(PIC2_DATA, 0xFF);
    if (x86_inb(PIC1_DATA) != (uint8_t) ~((1u << PIC_CASCADE_IR) | (1u << UART_IRQ)))
        fail("PIC mask does not read back");
    uint64_t lint0 = apic_rd(LAPIC_LVT_LINT0);
    if ((lint0 & LAPIC_LVT_MASKED) ||
        (lint0 & LAPIC_LVT_DELIVERY_MASK) != LAPIC_LVT_DELIVERY_EXTINT)
        fail("LINT0 is not an unmasked ExtINT");
    /* The UART's interrupt reaches IRQ 4 with OUT2 set, as on a PC. */
    x86_outb(COM + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
    printf(NAME ": pic ready, uart on irq %u (vector %#x)\n", UART_IRQ, VEC_UART);
}

static void check_thre_interrupt(void)
{
    uint64_t before = count[VEC_UART];
    x86_outb(COM + UART_IER, UART_IER_ETBEI); /* THR is empty: raises at once */
    bool ok = wait_for(VEC_UART, before + 1);
    x86_outb(COM + UART_IER, 0);
    if (!ok || !thre_seen)
        fail("no THR-empty interrupt through the PIC");
    else
        printf(NAME ": thre interrupt via vector %#x\n", VEC_UART);
}

static void check_sleep(void)
{
    uint64_t t0 = x86_rdtsc();
    guest_sleep_us(SLEEP_US);
    printf(NAME ": sleep %u us took %" PRIu64 " us\n", SLEEP_US, tsc_to_us(x86_rdtsc() - t0));
}

int guest_main(const struct tessera_boot_info *boot)
{
    tsc_hz = boot->tsc_hz;
    const unsigned apic_vectors[] = { VEC_ONE_SHOT, VEC_PERIODIC, VEC_SELF_IPI,
                                      VEC_ICR_SELF, VEC_LOW,      VEC_HIGH };
    for (unsigned i = 0; i < sizeof apic_vectors / sizeof apic_vectors[0]; i++)
        guest_irq_set_handler(apic_vectors[i], on_apic_vector);
    guest_irq_set_handler(VEC_UART, on_uart);

    check_apic();
    check_tsc_deadline();
    check_one_shot();
    check_periodic();
    check_self_ipis();
    setup_pic();
    check_thre_interrupt();
    check_sleep();
    printf(NAME ": %s\n", failures ? "checks FAILED" : "all checks passed");

    /* Receive keys by interrupt; between them (and the heartbeat) the vCPU is halted. */
    x86_outb(COM + UART_IER, UART_IER_ERBFI);
    printf(NAME ": ready for keys\n");
    uint64_t next_beat = guest_now_us() + HEARTBEAT_US;
    for (uint64_t beat = 1;;) {
        while (keys_tail != keys_head) {
            char c = keys[keys_tail++ % sizeof keys];
            if (c >= 0x20 && c < 0x7F)
                printf(NAME ": rx '%c' via vector %#x\n", c, VEC_UART);
            else
                printf(NAME ": rx 0x%02x via vector %#x\n", (unsigned char)c, VEC_UART);
        }
        uint64_t now = guest_now_us();
        if (now >= next_beat) {
            printf(NAME ": heartbeat %" PRIu64 "\n", beat++);
            next_beat += HEARTBEAT_US;
            continue;
        }
        guest_timer_arm(x86_rdtsc() + us_to_tsc(next_beat - now));
        guest_irq_wait();
    }
}
