/* The application processors (APs): found in the ACPI MADT, started with INIT-SIPI-SIPI
 * (SDM Vol. 3A §9.4.4 "MP Initialization Example", §11.6.1), brought to long mode on the boot
 * CPU's page tables with their own stack, GDT, TSS and IST stacks, and parked: halted, woken
 * only by an IPI on VEC_SMP_WAKE to run what the boot CPU put in its mailbox (smp_call), until
 * the boot CPU gives it a loop of its own to run (smp_run: the vCPUs placed there). */
#ifndef TESSERA_ARCH_X86_SMP_H
#define TESSERA_ARCH_X86_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/gdt.h"
#include "arch/x86/page_alloc.h"
#include "boot/acpi_madt.h"
#include "boot/boot_info.h"

#define SMP_MAX_CPUS MADT_MAX_CPUS
/* SDM Vol. 3A §9.4.4.1: 10 ms after INIT, 200 us after each STARTUP.  An AP that has not
 * reported 100 ms after the second STARTUP is given up. */
#define SMP_INIT_WAIT_US  10000
#define SMP_SIPI_WAIT_US  200
#define SMP_START_WAIT_US 100000
#define SMP_CALL_WAIT_US  100000 /* the most smp_call's callers wait for a short call */
/* The trampoline page lies in [SMP_LOW_FIRST, SMP_LOW_END): above the real-mode IVT and BDA,
 * below where an EBDA may start. */
#define SMP_LOW_FIRST   0x1000ULL
#define SMP_LOW_END     0x9F000ULL
#define SMP_STACK_PAGES 4
#define SMP_IST_PAGES   2 /* per IST slot */

enum cpu_state {
    CPU_BOOT,        /* the boot CPU */
    CPU_STARTING,    /* INIT-SIPI-SIPI sent, not answered yet */
    CPU_PARKED,      /* in long mode on its own stack, halted until the wake IPI */
    CPU_RUNNING,     /* running the loop smp_run gave it; it still takes calls */
    CPU_FAILED,      /* did not start: see `why` */
    CPU_LOST,        /* out of service after it started: an exception on it, or a call it did
                        not answer (see `why`); halted until a reboot */
    CPU_NOT_ENABLED, /* the MADT calls it online-capable only: not started */
};

struct cpu {
    unsigned index; /* 0 is the boot CPU; the others in MADT order */
    uint32_t apic_id;
    enum cpu_state state; /* written by the AP itself when it parks: read atomically */
    uint32_t reported_id; /* the APIC ID the AP read from its own LAPIC */
    uint64_t start_ns;    /* from INIT to parked */
    unsigned sipis;       /* STARTUP IPIs it took */
    const char *why;      /* CPU_FAILED, CPU_LOST: the reason */
    uint64_t stack_top;
    uint64_t ist_top[IST_STACKS];
    struct gdt_cpu desc;
    bool wakeable; /* its LAPIC takes the wake IPI: it can be given work (smp_call) */
    /* The mailbox: the boot CPU writes call_fn and call_arg, then call_seq; the AP runs the call
     * and sets done_seq to call_seq. */
    void (*call_fn)(void *arg);
    void *call_arg;
    unsigned call_seq, done_seq;
    void (*loop_fn)(void *arg); /* smp_run: what it runs for good */
    void *loop_arg;
    bool lost_said; /* CPU_LOST: the boot CPU has logged it (smp_poll_lost) */
};

struct smp_summary {
    unsigned listed; /* processors in the MADT (enabled or online-capable) */
    unsigned parked;
    unsigned failed;
    uint64_t max_start_ns;
    char why[160]; /* no APs started at all: the reason */
};

/* Finds the processors and starts every enabled AP, one at a time.  Needs the LAPIC
 * (lapic_timer_start) and the TSC clock; allocates each AP's stacks from `pa`; reads ACPI
 * tables below `mapped_top`.  On one CPU, or when the APs cannot be started, the boot CPU is
 * the only one listed and `why` says why.  Call once, on the boot CPU. */
void smp_start(const struct boot_info *bi, struct page_alloc *pa, uint64_t mapped_top,
               struct smp_summary *out);

/* Runs fn(arg) on parked AP `index` and waits up to timeout_us for it to return; from the boot
 * CPU, one call at a time.  False if the AP cannot take work (not parked, no LAPIC to wake it),
 * took an exception in the call, or did not return in time: it is then lost and given nothing
 * more (arg must stay
 * valid: a late AP may still run the call). */
bool smp_call(unsigned index, void (*fn)(void *arg), void *arg, uint64_t timeout_us);

/* Calls say(index, why) once for each AP lost in service since the last look; from the boot
 * CPU's loop. */
void smp_poll_lost(void (*say)(unsigned index, const char *why));

/* Makes AP `index` take an invalid-opcode exception in a call, as a bug in code running there
 * would: the check of the fault path (`cpus fault`).  False if it cannot take a call; once it
 * has, the AP is out of service until a reboot. */
bool smp_fault(unsigned index);

/* Gives parked AP `index` a loop to run for good instead of idling (it must call
 * smp_poll_mailbox() often, so that smp_call still reaches it).  False if it is not parked. */
bool smp_run(unsigned index, void (*loop)(void *arg), void *arg);
/* On an AP running a loop: runs the call waiting in its mailbox, if any. */
void smp_poll_mailbox(void);
/* Sends CPU `index` the wake IPI: a guest it runs exits, its idle halt ends. */
void smp_kick(unsigned index);
/* Called on an AP that is being lost, before it halts (the caller releases what it holds). */
void smp_set_lost_hook(void (*hook)(unsigned index));
/* The CPU this runs on, by its LAPIC ID; 0 for the boot CPU (and before the APs are known). */
unsigned smp_this_cpu(void);

unsigned smp_count(void);
const struct cpu *smp_cpu(unsigned index);
enum cpu_state smp_state(const struct cpu *c);
const char *smp_state_name(enum cpu_state state);

#endif
