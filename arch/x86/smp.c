/* Application-processor start-up.  APs are started one at a time, so one stack slot
 * (ap_boot_stack) and one index (ap_booting) carry what the next AP needs; an AP that does not
 * answer in time is sent INIT again, which holds it in wait-for-SIPI so that a late start
 * cannot take the next AP's slot. */
#include "arch/x86/smp.h"

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/regs.h"
#include "arch/x86/timer.h"
#include "arch/x86/trap.h"
#include "boot/acpi.h"

#include <stdio.h>
#include <string.h>

extern const char ap_trampoline[], ap_trampoline_end[];

/* Read by arch/x86/trampoline.S and ap_main() on the AP being started. */
uint64_t ap_boot_stack;
static volatile unsigned ap_booting;

static struct cpu cpus[SMP_MAX_CPUS];
static unsigned n_cpus;
static void (*lost_hook)(unsigned index);

void smp_set_lost_hook(void (*hook)(unsigned index))
{
    lost_hook = hook;
}

/* Runs the call in this AP's mailbox, if one is waiting. */
static void run_mailbox(struct cpu *c)
{
    unsigned seq = __atomic_load_n(&c->call_seq, __ATOMIC_ACQUIRE);
    if (seq != c->done_seq) {
        c->call_fn(c->call_arg);
        __atomic_store_n(&c->done_seq, seq, __ATOMIC_RELEASE);
    }
}

/* A parked AP: halted with interrupts on, it takes only the wake IPI (its LAPIC timer is off and
 * the 8259s are masked); after each interrupt it runs what its mailbox holds.  Given a loop
 * (smp_run), it runs that instead, for good. */
__attribute__((noreturn)) static void ap_idle(struct cpu *c)
{
    for (;;) {
        irq_disable();
        unsigned seq = __atomic_load_n(&c->call_seq, __ATOMIC_ACQUIRE);
        void (*loop)(void *) = __atomic_load_n(&c->loop_fn, __ATOMIC_ACQUIRE);
        if (seq != c->done_seq) {
            run_mailbox(c);
        } else if (loop) {
            irq_enable();
            loop(c->loop_arg);
        } else {
            irq_enable_and_halt();
        }
    }
}

void ap_main(void);
void ap_main(void)
{
    struct cpu *c = &cpus[ap_booting];
    gdt_load(&c->desc, c->ist_top);
    idt_load();
    c->reported_id = lapic_id();
    c->wakeable = lapic_enable_here(VEC_SPURIOUS);
    __atomic_store_n(&c->state, CPU_PARKED, __ATOMIC_RELEASE);
    if (c->wakeable)
        ap_idle(c);
    cpu_halt_forever();
}

unsigned smp_this_cpu(void)
{
    uint32_t id = n_cpus > 1 ? lapic_id() : cpus[0].apic_id;
    for (unsigned i = 1; i < n_cpus; i++)
        if (cpus[i].apic_id == id)
            return i;
    return 0;
}

/* An exception on an AP (arch/x86/trap.c has reported it): the AP leaves service, halted with
 * interrupts off, and says why in `cpus`; the boot CPU logs it (smp_poll_lost). */
__attribute__((noreturn)) static void ap_lost(unsigned index, const char *why)
{
    struct cpu *c = &cpus[index];
    c->why = why;
    c->wakeable = false;
    __atomic_store_n(&c->state, CPU_LOST, __ATOMIC_RELEASE);
    irq_disable();
    if (lost_hook)
        lost_hook(index);
    cpu_halt_forever();
}

void smp_poll_lost(void (*say)(unsigned index, const char *why))
{
    for (unsigned i = 1; i < n_cpus; i++) {
        struct cpu *c = &cpus[i];
        if (smp_state(c) == CPU_LOST && !c->lost_said) {
            c->lost_said = true;
            say(i, c->why);
        }
    }
}

static void wake_irq(struct trap_frame *f)
{
    lapic_eoi();
}

enum cpu_state smp_state(const struct cpu *c)
{
    return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
}
unsigned smp_count(void)
{
    return n_cpus;
}
const struct cpu *smp_cpu(unsigned index)
{
    return index < n_cpus ? &cpus[index] : NULL;
}

const char *smp_state_name(enum cpu_state state)
{
    switch (state) {
    case CPU_BOOT:
        return "boot";
    case CPU_STARTING:
        return "starting";
    case CPU_PARKED:
        return "parked";
    case CPU_RUNNING:
        return "running";
    case CPU_FAILED:
        return "did not start";
    case CPU_LOST:
        return "lost";
    case CPU_NOT_ENABLED:
        return "not enabled";
    }
    return "unknown";
}

/* ACPI tables are read where they are: identity mapped up to mapped_top. */
static const void *phys_at(void *ctx, uint64_t phys, uint64_t len)
{
    uint64_t top = *(const uint64_t *)ctx;
    if (phys > top || len > top - phys)
        return NULL;
    return (const void *)(uintptr_t)phys;
}

/* The RSDP the loader copied, or the one in the EBDA or the BIOS area. */
static const uint8_t *find_rsdp(const struct boot_info *bi, uint64_t *len)
{
    if (bi->rsdp_len) {
        *len = bi->rsdp_len;
        return bi->rsdp;
    }
    uint16_t seg;
    memcpy(&seg, (const void *)(uintptr_t)ACPI_BDA_EBDA_SEGMENT, sizeof seg);
    uint64_t ebda = (uint64_t)seg << 4, off;
    if (ebda >= SMP_LOW_FIRST && ebda + ACPI_EBDA_SEARCH_BYTES <= ACPI_BIOS_AREA_END &&
        acpi_rsdp_scan((const uint8_t *)(uintptr_t)ebda, ACPI_EBDA_SEARCH_BYTES, &off)) {
        *len = ACPI_BIOS_AREA_END - (ebda + off);
        return (const uint8_t *)(uintptr_t)(ebda + off);
    }
    if (acpi_rsdp_scan((const uint8_t *)(uintptr_t)ACPI_BIOS_AREA_START,
                       ACPI_BIOS_AREA_END - ACPI_BIOS_AREA_START, &off)) {
        *len = ACPI_BIOS_AREA_END - ACPI_BIOS_AREA_START - off;
        return (const uint8_t *)(uintptr_t)(ACPI_BIOS_AREA_START + off);
    }
    return NULL;
}

/* Polls for the AP to park, for at most `us`. */
static bool wait_parked(struct cpu *c, uint64_t us)
{
    uint64_t end = timer_now_ns() + us * 1000;
    while (timer_now_ns() < end) {
        if (smp_state(c) == CPU_PARKED)
            return true;
        cpu_pause();
    }
    return smp_state(c) == CPU_PARKED;
}

/* An IPI, then its delivery (xAPIC delivery status), for at most `us`. */
static bool send(uint32_t apic_id, uint32_t icr, uint64_t us)
{
    if (!lapic_send_ipi(apic_id, icr))
        return false;
    uint64_t end = timer_now_ns() + us * 1000;
    while (lapic_ipi_pending()) {
        if (timer_now_ns() >= end)
            return false;
        cpu_pause();
    }
    return true;
}

static bool give_stacks(struct cpu *c, struct page_alloc *pa)
{
    uint64_t stack = page_alloc(pa, SMP_STACK_PAGES, 1);
    if (!stack)
        return false;
    c->stack_top = stack + SMP_STACK_PAGES * PAGE_SIZE;
    for (unsigned i = 0; i < IST_STACKS; i++) {
        uint64_t ist = page_alloc(pa, SMP_IST_PAGES, 1);
        if (!ist)
            return false; /* what was taken stays with this CPU's slot: boot-time only */
        c->ist_top[i] = ist + SMP_IST_PAGES * PAGE_SIZE;
    }
    return true;
}

/* INIT, 10 ms, STARTUP, 200 us, a second STARTUP only if the AP has not parked, then up to
 * 100 ms for it to park. */
static void start_ap(struct cpu *c, uint64_t page)
{
    uint32_t startup = LAPIC_ICR_STARTUP | (uint32_t)(page >> LAPIC_ICR_STARTUP_PAGE_SHIFT);
    ap_booting = c->index;
    ap_boot_stack = c->stack_top;
    c->state = CPU_STARTING;
    uint64_t t0 = timer_now_ns();
    if (!send(c->apic_id, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT | LAPIC_ICR_LEVEL_TRIGGER,
              SMP_SIPI_WAIT_US)) {
        c->state = CPU_FAILED;
        c->why = c->apic_id > XAPIC_MAX_ID ? "APIC ID needs x2APIC mode" : "INIT not delivered";
        return;
    }
    /* The INIT level de-assert of older processors; x2APIC has none (§11.12.9). */
    if (!lapic_x2apic())
        send(c->apic_id, LAPIC_ICR_INIT | LAPIC_ICR_LEVEL_TRIGGER, SMP_SIPI_WAIT_US);
    timer_delay_us(SMP_INIT_WAIT_US);
    for (c->sipis = 1; c->sipis <= 2; c->sipis++) {
        send(c->apic_id, startup, SMP_SIPI_WAIT_US);
        if (wait_parked(c, SMP_SIPI_WAIT_US))
            break;
    }
    if (c->sipis > 2) {
        c->sipis = 2;
        if (!wait_parked(c, SMP_START_WAIT_US)) {
            send(c->apic_id, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT | LAPIC_ICR_LEVEL_TRIGGER,
                 SMP_SIPI_WAIT_US);
            /* It may have parked between the last look and the INIT. */
            if (smp_state(c) != CPU_PARKED) {
                c->state = CPU_FAILED;
                c->why = "no answer to INIT-SIPI-SIPI";
                return;
            }
        }
    }
    c->start_ns = timer_now_ns() - t0;
}

void smp_start(const struct boot_info *bi, struct page_alloc *pa, uint64_t mapped_top,
               struct smp_summary *out)
{
    memset(out, 0, sizeof *out);
    irq_register(VEC_SMP_WAKE, wake_irq);
    n_cpus = 1;
    cpus[0] = (struct cpu){ .index = 0, .state = CPU_BOOT };
    if (!lapic_ready()) {
        snprintf(out->why, sizeof out->why, "no local APIC");
        return;
    }
    cpus[0].apic_id = cpus[0].reported_id = lapic_id();

    uint64_t rsdp_len;
    const uint8_t *rsdp = find_rsdp(bi, &rsdp_len);
    if (!rsdp) {
        snprintf(out->why, sizeof out->why, "no ACPI RSDP (from the loader or the BIOS areas)");
        return;
    }
    static struct madt_info madt;
    struct acpi_memory mem = { phys_at, &mapped_top };
    char err[120];
    if (madt_find(rsdp, rsdp_len, &mem, &madt, err, sizeof err) < 0) {
        snprintf(out->why, sizeof out->why, "ACPI: %s", err);
        return;
    }
    out->listed = madt.n_cpus;
    for (unsigned i = 0; i < madt.n_cpus; i++) {
        const struct madt_cpu *m = &madt.cpus[i];
        if (m->apic_id == cpus[0].apic_id)
            continue;
        struct cpu *c = &cpus[n_cpus];
        *c = (struct cpu){ .index = n_cpus,
                           .apic_id = m->apic_id,
                           .state = m->enabled ? CPU_STARTING : CPU_NOT_ENABLED };
        n_cpus++;
    }
    if (n_cpus == 1) {
        snprintf(out->why, sizeof out->why, "the MADT lists no other processor");
        return;
    }

    uint64_t page;
    /* Two symbols of one assembled block (arch/x86/trampoline.S). */
    size_t size = (size_t)((uintptr_t)ap_trampoline_end - (uintptr_t)ap_trampoline);
    if (!boot_find_low_page(bi, SMP_LOW_FIRST, SMP_LOW_END, &page)) {
        snprintf(out->why, sizeof out->why, "no usable page below 1 MiB for the start-up code");
        for (unsigned i = 1; i < n_cpus; i++)
            if (cpus[i].state == CPU_STARTING) {
                cpus[i].state = CPU_FAILED;
                cpus[i].why = "no start-up page below 1 MiB";
            }
        out->failed = n_cpus - 1;
        return;
    }
    /* Low memory is never handed out by the page allocator (memory_init reserves it). */
    memcpy((void *)(uintptr_t)page, ap_trampoline, size);

    for (unsigned i = 1; i < n_cpus; i++) {
        struct cpu *c = &cpus[i];
        if (c->state != CPU_STARTING)
            continue;
        if (!give_stacks(c, pa)) {
            c->state = CPU_FAILED;
            c->why = "no memory for its stacks";
        } else {
            start_ap(c, page);
        }
        if (smp_state(c) == CPU_PARKED) {
            out->parked++;
            if (c->start_ns > out->max_start_ns)
                out->max_start_ns = c->start_ns;
        } else {
            out->failed++;
        }
    }
    trap_set_cpu_hooks(smp_this_cpu, ap_lost);
}

/* An AP that takes calls: parked, or running its loop (which looks at its mailbox). */
static struct cpu *callable(unsigned index)
{
    struct cpu *c = index > 0 && index < n_cpus ? &cpus[index] : NULL;
    if (!c || !c->wakeable)
        return NULL;
    enum cpu_state st = smp_state(c);
    return st == CPU_PARKED || st == CPU_RUNNING ? c : NULL;
}

bool smp_call(unsigned index, void (*fn)(void *arg), void *arg, uint64_t timeout_us)
{
    struct cpu *c = callable(index);
    if (!c)
        return false;
    c->call_fn = fn;
    c->call_arg = arg;
    unsigned seq = c->call_seq + 1;
    __atomic_store_n(&c->call_seq, seq, __ATOMIC_RELEASE);
    bool sent = send(c->apic_id, LAPIC_ICR_FIXED | VEC_SMP_WAKE, SMP_SIPI_WAIT_US);
    uint64_t end = timer_now_ns() + timeout_us * 1000;
    while (sent && __atomic_load_n(&c->done_seq, __ATOMIC_ACQUIRE) != seq) {
        if (smp_state(c) == CPU_LOST)
            return false; /* the call took it out of service (ap_lost) */
        if (timer_now_ns() >= end) {
            sent = false;
            break;
        }
        cpu_pause();
    }
    if (!sent) {
        c->wakeable = false;
        c->why = "did not answer a call in time";
        __atomic_store_n(&c->state, CPU_LOST, __ATOMIC_RELEASE);
    }
    return sent;
}

static void invalid_opcode(void *arg)
{
    __asm__ volatile("ud2");
}

bool smp_fault(unsigned index)
{
    if (!callable(index))
        return false;
    smp_call(index, invalid_opcode, NULL, SMP_CALL_WAIT_US);
    return true;
}

bool smp_run(unsigned index, void (*loop)(void *arg), void *arg)
{
    struct cpu *c = index > 0 && index < n_cpus ? &cpus[index] : NULL;
    if (!c || !c->wakeable || smp_state(c) != CPU_PARKED)
        return false;
    c->loop_arg = arg;
    __atomic_store_n(&c->state, CPU_RUNNING, __ATOMIC_RELEASE);
    __atomic_store_n(&c->loop_fn, loop, __ATOMIC_RELEASE);
    smp_kick(index);
    return true;
}

void smp_poll_mailbox(void)
{
    unsigned i = smp_this_cpu();
    if (i > 0)
        run_mailbox(&cpus[i]);
}

void smp_kick(unsigned index)
{
    if (n_cpus > 1 && index < n_cpus && (index == 0 || cpus[index].wakeable))
        lapic_send_ipi(cpus[index].apic_id, LAPIC_ICR_FIXED | VEC_SMP_WAKE);
}
