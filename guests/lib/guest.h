/* The Tessera guest library: what every guest program in guests/<name>/ links with.
 *
 * A guest defines `int guest_main(const struct tessera_boot_info *boot)`.  The library's start
 * code (start.S, runtime.c) runs first: it takes its own stack, clears .bss, enables SSE (newlib
 * uses it), installs an IDT that reports CPU exceptions on the console, checks the boot info and
 * starts the clock.  When guest_main returns, its value is the exit status given to the
 * hypervisor (TESSERA_HC_EXIT).  stdio works: printf goes to the console, unbuffered (one
 * console write per call, nothing lost when the guest faults), and malloc takes memory from
 * the guest RAM above the image.  The boot protocol and the hypercalls
 * are the contract of include/tessera/abi/guest.h, described for guest writers in
 * docs/guest-abi.md. */
#ifndef TESSERA_GUESTS_LIB_GUEST_H
#define TESSERA_GUESTS_LIB_GUEST_H

#include "tessera/abi/guest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The guest program's entry point. */
int guest_main(const struct tessera_boot_info *boot);

/* The boot info the hypervisor passed in RSI (checked: magic and version are right). */
const struct tessera_boot_info *guest_boot_info(void);

/* Exit statuses the library itself uses; a guest's own statuses should stay below 0x80. */
#define GUEST_EXIT_BAD_BOOT       0x7f /* boot info missing, wrong magic or version */
#define GUEST_EXIT_UNEXPECTED_IRQ 0x7e /* an interrupt vector with no handler */
#define GUEST_EXIT_TRAP_BASE      0x80 /* + vector: an exception nobody caught */
#define GUEST_EXIT_DOUBLE_TRAP    0xff /* an exception inside the exception handler */

/* ---- Console: the virtual 16550 at TESSERA_GUEST_CONSOLE_PORT (polled, no interrupts) ---- */

void guest_console_putc(char c); /* "\n" is sent as "\r\n" */
void guest_console_write(const char *s, size_t len);
void guest_console_puts(const char *s); /* no newline added */
void guest_console_put_hex(uint64_t v); /* "0x" and lower-case hex digits */
void guest_console_put_dec(uint64_t v);
int guest_console_getc(void); /* a received byte, or -1 if none */

/* ---- Time: the TSC at boot_info->tsc_hz ---- */

uint64_t guest_now_us(void); /* microseconds since the guest started */
/* Sleep until the deadline, no earlier.  With the APIC timer (guest_irq_timer_ready) a sleep of
 * GUEST_SLEEP_TIMER_MIN_US or more arms the TSC deadline and waits halted with interrupts on:
 * the vCPU is off the CPU, costing no exits, until the timer fires.  Shorter sleeps (and every
 * sleep without the timer) execute HLT with interrupts off, which the hypervisor takes as "yield
 * the rest of the time slice", and re-check the time after each one. */
#define GUEST_SLEEP_TIMER_MIN_US 2000
void guest_sleep_us(uint64_t us);
void guest_sleep_until_us(uint64_t t_us); /* until guest_now_us() >= t_us */

/* ---- Interrupts (docs/guest-abi.md "Interrupts") ----
 *
 * Every guest has a local APIC in x2APIC mode (registers are MSRs 0x800-0x8FF, names in
 * arch/x86/apic_regs.h) with a TSC-deadline timer, and an 8259A pair (ports 0x20/0x21,
 * 0xA0/0xA1) behind LINT0 in ExtINT mode with the console UART on IRQ 4.  At start the library
 * enables the APIC (spurious vector GUEST_VEC_SPURIOUS) and puts its timer in TSC-deadline mode
 * on GUEST_VEC_TIMER for guest_sleep_*.  Guest code runs with interrupts off (RFLAGS.IF = 0);
 * they are on only inside guest_irq_wait, or wherever a guest program turns them on itself.
 * Handlers run on the interrupted stack with interrupts off and must end the interrupt at its
 * controller (guest_apic_eoi for APIC vectors; an EOI command to the 8259 for its vectors). */
#define GUEST_VEC_TIMER    0xEC
#define GUEST_VEC_SPURIOUS 0xFF
typedef void (*guest_irq_handler)(unsigned vector);
/* True when the APIC timer is set up (the platform has the x2APIC with TSC-deadline mode). */
bool guest_irq_timer_ready(void);
/* Timer interrupts taken so far. */
uint64_t guest_irq_timer_count(void);
/* Arms the TSC-deadline timer (IA32_TSC_DEADLINE; 0 disarms): GUEST_VEC_TIMER at that TSC. */
void guest_timer_arm(uint64_t tsc_deadline);
/* Installs fn for vector 32-254 (not the timer's or the spurious one); false otherwise.  A
 * vector without a handler stops the guest with GUEST_EXIT_UNEXPECTED_IRQ and a console line. */
bool guest_irq_set_handler(unsigned vector, guest_irq_handler fn);
/* Waits halted, interrupts on ("sti; hlt"), until an interrupt has been handled; returns with
 * interrupts off. */
void guest_irq_wait(void);
/* End of interrupt for the local APIC (the x2APIC EOI MSR). */
void guest_apic_eoi(void);

/* ---- Hypercalls (VMCALL: number in RAX, arguments in RDI and RSI, result in RAX) ---- */

uint64_t guest_hypercall(uint64_t nr, uint64_t arg0, uint64_t arg1);
/* Flushes stdio and stops the guest with `status` (TESSERA_HC_EXIT).  Never returns: should the
 * hypervisor not stop it, the vCPU halts for good. */
__attribute__((noreturn)) void guest_exit(uint64_t status);
void guest_yield(void); /* TESSERA_HC_YIELD */

/* ---- Command line: space-separated words, `key=value` or a bare `key` ---- */

/* Finds the last word whose key is `key` and copies its value (empty for a bare `key`) into buf,
 * NUL-terminated and truncated to len - 1 bytes.  Returns the full length of the value (so a
 * result >= len means it was truncated), or -1 if no word has that key.  buf may be NULL when
 * len is 0, to test for presence.  A key that is empty or holds '=', ' ' or a tab is never
 * found. */
int guest_cmdline_get(const struct tessera_boot_info *boot, const char *key, char *buf, size_t len);
/* The value of `key` as a number (decimal, 0x hex or 0 octal, like strtoull with base 0).
 * Returns false, leaving *out alone, if the key is absent or its value is not entirely a
 * number. */
bool guest_cmdline_u64(const struct tessera_boot_info *boot, const char *key, uint64_t *out);

/* ---- CPU exceptions ---- */

/* Every exception (vectors 0-31) prints one console line,
 *   guest: caught #GP at rip 0x201a3c error 0x0
 * (#PF adds " cr2 0x..."), and then stops the guest with GUEST_EXIT_TRAP_BASE + vector, unless
 * it happened inside guest_trap_try. */
struct guest_trap {
    unsigned vector; /* 13 for #GP, 6 for #UD, 14 for #PF, ... */
    uint64_t rip;    /* the faulting instruction */
    uint64_t error;  /* the error code, 0 for vectors without one */
    uint64_t cr2;    /* the faulting address for #PF, else 0 */
};
#define GUEST_VEC_UD 6
#define GUEST_VEC_GP 13
#define GUEST_VEC_PF 14

/* Runs fn(arg).  If it raises an exception, the line above is printed, the rest of fn is
 * abandoned (as by longjmp) and guest_trap_try returns true with the details in *trap.  Returns
 * false if fn returned normally.  For guests that provoke faults on purpose. */
bool guest_trap_try(void (*fn)(void *arg), void *arg, struct guest_trap *trap);
const char *guest_trap_name(unsigned vector); /* "#GP"; "#??" for a reserved vector */

/* ---- Memory ---- */

/* Lowers the top of malloc's heap to `limit` (a guest-physical address), so the RAM above it is
 * the guest's to use for other purposes, such as pages the GPU reads and writes (the vGPU
 * library's DMA pool).  Returns false if the heap already extends above `limit`. */
bool guest_heap_limit(uintptr_t limit);

/* ---- Page tables ---- */

/* Identity-maps the guest-physical range [gpa, gpa + len) with 2 MiB pages, uncached, in the
 * page tables the guest runs on (the hypervisor's boot tables cover only guest RAM).  For
 * device memory above RAM; 2 MiB pages that are already mapped (guest RAM) are left as they
 * are.  Returns false if it ran out of table pages (a few are reserved in
 * .bss) or the range is outside the 48-bit address space. */
bool guest_map_uncached(uint64_t gpa, uint64_t len);

#endif
