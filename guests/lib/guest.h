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
#define GUEST_EXIT_BAD_BOOT    0x7f        /* boot info missing, wrong magic or version */
#define GUEST_EXIT_TRAP_BASE   0x80        /* + vector: an exception nobody caught */
#define GUEST_EXIT_DOUBLE_TRAP 0xff        /* an exception inside the exception handler */

/* ---- Console: the virtual 16550 at TESSERA_GUEST_CONSOLE_PORT (polled, no interrupts) ---- */

void guest_console_putc(char c);                        /* "\n" is sent as "\r\n" */
void guest_console_write(const char *s, size_t len);
void guest_console_puts(const char *s);                 /* no newline added */
void guest_console_put_hex(uint64_t v);                 /* "0x" and lower-case hex digits */
void guest_console_put_dec(uint64_t v);
int guest_console_getc(void);                           /* a received byte, or -1 if none */

/* ---- Time: the TSC at boot_info->tsc_hz ---- */

uint64_t guest_now_us(void);                    /* microseconds since the guest started */
/* Sleep by executing HLT, which the hypervisor treats as "yield the rest of the time slice"; the
 * deadline is re-checked after every HLT, so the guest wakes no earlier than asked and about one
 * scheduling round later at most. */
void guest_sleep_us(uint64_t us);
void guest_sleep_until_us(uint64_t t_us);       /* until guest_now_us() >= t_us */

/* ---- Hypercalls (VMCALL: number in RAX, arguments in RDI and RSI, result in RAX) ---- */

uint64_t guest_hypercall(uint64_t nr, uint64_t arg0, uint64_t arg1);
/* Flushes stdio and stops the guest with `status` (TESSERA_HC_EXIT).  Never returns: should the
 * hypervisor not stop it, the vCPU halts for good. */
__attribute__((noreturn)) void guest_exit(uint64_t status);
void guest_yield(void);                         /* TESSERA_HC_YIELD */

/* ---- Command line: space-separated words, `key=value` or a bare `key` ---- */

/* Finds the last word whose key is `key` and copies its value (empty for a bare `key`) into buf,
 * NUL-terminated and truncated to len - 1 bytes.  Returns the full length of the value (so a
 * result >= len means it was truncated), or -1 if no word has that key.  buf may be NULL when
 * len is 0, to test for presence.  A key that is empty or holds '=', ' ' or a tab is never
 * found. */
int guest_cmdline_get(const struct tessera_boot_info *boot, const char *key, char *buf,
                      size_t len);
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
    unsigned vector;            /* 13 for #GP, 6 for #UD, 14 for #PF, ... */
    uint64_t rip;               /* the faulting instruction */
    uint64_t error;             /* the error code, 0 for vectors without one */
    uint64_t cr2;               /* the faulting address for #PF, else 0 */
};
#define GUEST_VEC_UD 6
#define GUEST_VEC_GP 13
#define GUEST_VEC_PF 14

/* Runs fn(arg).  If it raises an exception, the line above is printed, the rest of fn is
 * abandoned (as by longjmp) and guest_trap_try returns true with the details in *trap.  Returns
 * false if fn returned normally.  For guests that provoke faults on purpose. */
bool guest_trap_try(void (*fn)(void *arg), void *arg, struct guest_trap *trap);
const char *guest_trap_name(unsigned vector);   /* "#GP"; "#??" for a reserved vector */

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
