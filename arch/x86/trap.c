/* The IDT and the one dispatcher every vector goes through.  Exceptions in the hypervisor are
 * bugs: the handler prints everything needed to find it (vector, error code, RIP, CR2, registers,
 * a frame-pointer stack trace) and stops this CPU cleanly.  The only exceptions that are expected
 * are the ones listed in the exception table (e.g. rdmsr_safe), which resume at their fixup. */
#include "arch/x86/trap.h"

#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/regs.h"
#include "arch/x86/smp.h"
#include "arch/x86/uart.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* arch/x86/isr.S has an entry for the interrupt vectors 32 to 50 and 255, by number. */
_Static_assert(VEC_TIMER == 48 && VEC_SMP_WAKE == 49 && VEC_AP_TICK == 50 && VEC_SPURIOUS == 255,
               "a vector without an entry in arch/x86/isr.S");

struct idt_gate {
    uint16_t offset_lo, selector;
    uint8_t ist, type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi, reserved;
} __attribute__((packed));


struct isr_entry {
    uint64_t vector, entry;
};
struct ex_entry {
    uint64_t insn, fixup;
};
extern const struct isr_entry isr_table[];
extern const struct ex_entry __ex_table_start[], __ex_table_end[];
extern char _image_start[], _image_end[];

static struct idt_gate idt[256] __attribute__((aligned(16)));
static irq_handler handlers[256];

static void set_gate(unsigned vec, uint64_t entry, uint8_t ist)
{
    idt[vec] = (struct idt_gate){
        .offset_lo = entry & 0xFFFF,
        .selector = GDT_KERNEL_CS,
        .ist = ist,
        .type_attr = IDT_INTERRUPT_GATE,
        .offset_mid = (entry >> 16) & 0xFFFF,
        .offset_hi = entry >> 32,
    };
}

void idt_init(void)
{
    for (const struct isr_entry *e = isr_table; e->vector != (uint64_t)-1; e++) {
        uint8_t ist = e->vector == VEC_DOUBLE_FAULT  ? IST_DOUBLE_FAULT
                    : e->vector == VEC_NMI           ? IST_NMI
                    : e->vector == VEC_MACHINE_CHECK ? IST_MACHINE_CHECK
                    : e->vector >= VEC_EXCEPTIONS    ? IST_IRQ
                                                     : 0;
        set_gate((unsigned)e->vector, e->entry, ist);
    }
    idt_load();
}

void idt_load(void)
{
    struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } ptr = { sizeof idt - 1, (uint64_t)(uintptr_t)idt };
    __asm__ volatile("lidt %0" : : "m"(ptr));
}

uint64_t idt_base(void)
{
    return (uint64_t)(uintptr_t)idt;
}

void irq_register(uint8_t vector, irq_handler handler)
{
    handlers[vector] = handler;
}

static const char *const exception_names[VEC_EXCEPTIONS] = {
    "#DE divide error",
    "#DB debug",
    "NMI",
    "#BP breakpoint",
    "#OF overflow",
    "#BR bound range",
    "#UD invalid opcode",
    "#NM device not available",
    "#DF double fault",
    "coprocessor segment overrun",
    "#TS invalid TSS",
    "#NP segment not present",
    "#SS stack fault",
    "#GP general protection",
    "#PF page fault",
    "reserved 15",
    "#MF x87 error",
    "#AC alignment check",
    "#MC machine check",
    "#XM SIMD exception",
    "#VE virtualization exception",
    "#CP control protection",
    "reserved 22",
    "reserved 23",
    "reserved 24",
    "reserved 25",
    "reserved 26",
    "reserved 27",
    "reserved 28",
    "reserved 29",
    "#SX security exception",
    "reserved 31",
};

/* Until the hypervisor's console says where reports go, they are written to COM1 a byte at a
 * time, waiting for the UART ("\n" as "\r\n", as the console does). */
static void uart_report(const char *s)
{
    for (; *s; s++) {
        if (*s == '\n')
            uart_putc(COM1_PORT, '\r');
        uart_putc(COM1_PORT, *s);
    }
}
static void uart_flush(void)
{
}

static void (*report_write)(const char *s) = uart_report;
static void (*report_flush)(void) = uart_flush;

void trap_set_output(void (*write)(const char *s), void (*flush)(void))
{
    report_write = write ? write : uart_report;
    report_flush = flush ? flush : uart_flush;
}

static unsigned (*cpu_index)(void);
static __attribute__((noreturn)) void (*cpu_lost)(unsigned cpu, const char *why);

void trap_set_cpu_hooks(unsigned (*this_cpu)(void),
                        __attribute__((noreturn)) void (*lost)(unsigned cpu, const char *why))
{
    cpu_index = this_cpu;
    cpu_lost = lost;
}

static unsigned cpu_here(void)
{
    unsigned cpu = cpu_index ? cpu_index() : 0;
    return cpu < SMP_MAX_CPUS ? cpu : 0;
}

/* The boot CPU's reports go to the configured output; another CPU's straight to the UART: the
 * console's buffer belongs to the boot CPU, which goes on using it (the two may interleave
 * characters; neither can corrupt the other's state). */
static void report(const char *s)
{
    (cpu_here() == 0 ? report_write : uart_report)(s);
}

/* Printing goes straight to the output with snprintf: the exception may have hit in the middle
 * of a stdio call, so stdio's own state is not trusted. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    report(buf);
}

static bool plausible_frame(uint64_t rbp)
{
    /* Frames live in the image (.bss stacks) or in allocated RAM; stay below 4 GiB and aligned
     * so a corrupt chain cannot fault again inside the handler. */
    return rbp && !(rbp & 7) && rbp >= 0x100000 && rbp < 0xFFFFFFF0ULL;
}

static void stack_trace(uint64_t rip, uint64_t rbp)
{
    say("stack trace (addr2line -e build/image/tessera.elf ADDR):\n  %#llx\n",
        (unsigned long long)rip);
    for (int depth = 0; depth < 16 && plausible_frame(rbp); depth++) {
        const uint64_t *f = (const uint64_t *)(uintptr_t)rbp;
        if (!f[1])
            break;
        say("  %#llx\n", (unsigned long long)f[1]);
        if (f[0] <= rbp) /* frames grow upwards as we unwind; anything else is corrupt */
            break;
        rbp = f[0];
    }
}

static bool try_fixup(struct trap_frame *f)
{
    /* The table's bounds are two linker symbols, two objects to C: their distance is taken
     * as addresses, since comparing pointers into different objects is undefined. */
    size_t n = ((uintptr_t)__ex_table_end - (uintptr_t)__ex_table_start) / sizeof(struct ex_entry);
    for (size_t i = 0; i < n; i++) {
        if (__ex_table_start[i].insn == f->rip) {
            f->rip = __ex_table_start[i].fixup;
            return true;
        }
    }
    return false;
}

/* An exception on a CPU other than the boot CPU loses that CPU only (cpu_lost); on the boot CPU
 * it stops the hypervisor. */
static __attribute__((noreturn)) void fatal_exception(struct trap_frame *f)
{
    static unsigned char nesting[SMP_MAX_CPUS];
    unsigned cpu = cpu_here();
    bool ap = cpu != 0 && cpu_lost;
    if (nesting[cpu]++) {
        report("\nnested exception while reporting one; stopping this CPU\n");
        if (cpu == 0)
            report_flush();
        cpu_halt_forever();
    }
    say("\n*** hypervisor exception on CPU %u: %s (vector %llu), error code %#llx\n", cpu,
        exception_names[f->vector], (unsigned long long)f->vector,
        (unsigned long long)f->error_code);
    say("RIP=%016llx CS=%04llx RFLAGS=%016llx CR2=%016llx\n", (unsigned long long)f->rip,
        (unsigned long long)f->cs, (unsigned long long)f->rflags, (unsigned long long)read_cr2());
    say("RAX=%016llx RBX=%016llx RCX=%016llx RDX=%016llx\n", (unsigned long long)f->rax,
        (unsigned long long)f->rbx, (unsigned long long)f->rcx, (unsigned long long)f->rdx);
    say("RSI=%016llx RDI=%016llx RBP=%016llx RSP=%016llx\n", (unsigned long long)f->rsi,
        (unsigned long long)f->rdi, (unsigned long long)f->rbp, (unsigned long long)f->rsp);
    say("R8 =%016llx R9 =%016llx R10=%016llx R11=%016llx\n", (unsigned long long)f->r8,
        (unsigned long long)f->r9, (unsigned long long)f->r10, (unsigned long long)f->r11);
    say("R12=%016llx R13=%016llx R14=%016llx R15=%016llx\n", (unsigned long long)f->r12,
        (unsigned long long)f->r13, (unsigned long long)f->r14, (unsigned long long)f->r15);
    say("CR0=%016llx CR3=%016llx CR4=%016llx\n", (unsigned long long)read_cr0(),
        (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
    stack_trace(f->rip, f->rbp);
    if (ap) {
        static char why[SMP_MAX_CPUS][64];
        snprintf(why[cpu], sizeof why[cpu], "exception %s at RIP %#llx", exception_names[f->vector],
                 (unsigned long long)f->rip);
        say("CPU %u stopped; the hypervisor goes on with the others.\n", cpu);
        cpu_lost(cpu, why[cpu]);
    }
    say("hypervisor stopped.\n");
    report_flush();
    cpu_halt_forever();
}

void trap_dispatch(struct trap_frame *f)
{
    if (f->vector < VEC_EXCEPTIONS) {
        if (handlers[f->vector]) {
            handlers[f->vector](f);
            return;
        }
        if (try_fixup(f))
            return;
        fatal_exception(f);
    }
    if (handlers[f->vector])
        handlers[f->vector](f);
    /* Spurious LAPIC interrupts and the masked 8259's stray IRQ 7/15 need no EOI: ignore them. */
}
