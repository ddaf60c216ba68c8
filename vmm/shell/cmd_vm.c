/* Shell commands for guests: vms, vm start|stop|reset, console, vcpu, exits, devices. */
#include "vmm/shell/commands.h"

#include "arch/x86/timer.h"
#include "vmm/console.h"
#include "vmm/shell/args.h"
#include "vmm/vcpu/run_queue.h"
#include "vmm/vcpu/vcpu.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vm.h"
#include "vmm/vcpu/vmx_setup.h"

#include <stdio.h>
#include <string.h>

#define CONSOLE_ESCAPE 0x1D /* Ctrl-] */

/* A guest whose vCPUs could not be created reads as one that never ran. */
static const struct vcpu *cpu_of(const struct vm *vm)
{
    static const struct vcpu none;
    return vm->n_vcpus ? vm->vcpus[0] : &none;
}

/* Exits of one reason (EXIT_REASON_COUNT: of every reason) over all of a guest's vCPUs. */
static uint64_t exits_of(const struct vm *vm, unsigned reason)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < vm->n_vcpus; i++)
        n += reason < EXIT_REASON_COUNT ? vm->vcpus[i]->exit_count[reason] : vm->vcpus[i]->exits;
    return n;
}

static struct vm *lookup(const char *arg)
{
    struct vm *vm = vm_lookup(arg);
    if (!vm)
        shell_error("no guest '%s' (give an id from 0 to %u or a name; 'vms' lists them)", arg,
                    vm_count() ? vm_count() - 1 : 0);
    return vm;
}

enum shell_status cmd_vms(int argc, char **argv)
{
    if (!vm_count()) {
        printf("no guests (%s)\n",
               vmx.on ? "the configuration has none or was refused" : vmx.error);
        return SHELL_OK;
    }
    printf("%3s %-15s %-8s %7s %10s %-20s %9s  %s\n", "id", "name", "state", "RAM", "exits",
           "last exit", "uptime", "runs");
    for (unsigned i = 0; i < vm_count(); i++) {
        const struct vm *vm = vm_get(i);
        uint64_t up = vm->state == VM_RUNNING ? (timer_now_ns() - vm->started_ns) / 1000000 : 0;
        /* What the guest boots: a Linux kernel (and its initrd) or a Tessera guest's image. */
        char runs[2 * CFG_IMAGE_MAX + 16];
        if (vm->cfg->kind == CFG_GUEST_LINUX)
            snprintf(runs, sizeof runs, "linux %s%s%s", vm->cfg->image,
                     vm->cfg->initrd[0] ? "+" : "", vm->cfg->initrd);
        else
            snprintf(runs, sizeof runs, "tessera %s", vm->cfg->image);
        printf("%3u %-15s %-8s %5uM %10llu %-20s %5llu.%01llus  %s\n", vm->id, vm->cfg->name,
               vm_state_name(vm->state), vm->cfg->ram_mib, (unsigned long long)cpu_of(vm)->exits,
               cpu_of(vm)->exits ? vmx_exit_reason_name(cpu_of(vm)->last_exit) : "-",
               (unsigned long long)(up / 1000), (unsigned long long)(up / 100 % 10), runs);
        if (vm->state != VM_RUNNING && vm->reason[0])
            printf("    %s\n", vm->reason);
    }
    return SHELL_OK;
}

enum shell_status cmd_vm(int argc, char **argv)
{
    struct vm *vm = lookup(argv[2]);
    if (!vm)
        return SHELL_FAILED;
    if (!strcmp(argv[1], "stop")) {
        if (vm->state != VM_RUNNING) {
            shell_error("guest %u (%s) is not running (%s)", vm->id, vm->cfg->name,
                        vm_state_name(vm->state));
            return SHELL_FAILED;
        }
        vm_stop(vm, VM_STOPPED, "stopped by the operator");
    } else if (!strcmp(argv[1], "start")) {
        if (vm->state == VM_RUNNING) {
            shell_error("guest %u (%s) is already running", vm->id, vm->cfg->name);
            return SHELL_FAILED;
        }
        if (!vm_start(vm)) {
            shell_error("guest %u (%s) did not start: %s", vm->id, vm->cfg->name, vm->reason);
            return SHELL_FAILED;
        }
    } else if (!strcmp(argv[1], "reset")) {
        if (!vm_start(vm)) {
            shell_error("guest %u (%s) did not restart: %s", vm->id, vm->cfg->name, vm->reason);
            return SHELL_FAILED;
        }
    } else {
        return SHELL_USAGE;
    }
    printf("guest %u (%s): %s\n", vm->id, vm->cfg->name, vm_state_name(vm->state));
    return SHELL_OK;
}

static void write_console(const char *s, size_t n, void *ctx)
{
    console_write(s, n);
}
/* A watched guest's output goes to the serial line only as fast as the line takes it: what does
 * not fit in the console's ring is dropped and counted (its own console ring, replayed at the
 * next `console`, keeps it), so a guest printing in a loop cannot hold the CPU in its exits. */
static uint64_t live_dropped;
static void live_put(const char *s, size_t n)
{
    if (live_dropped) {
        char note[120];
        int k = snprintf(note, sizeof note,
                         "\n[console: %llu bytes dropped: the guest printed faster than the "
                         "serial line sends]\n",
                         (unsigned long long)live_dropped);
        if (k <= 0 || !console_write_nowait(note, (size_t)k)) {
            live_dropped += n;
            return;
        }
        live_dropped = 0;
    }
    if (!console_write_nowait(s, n))
        live_dropped += n;
}

static void live_output(void *ctx, char c)
{
    live_put(&c, 1);
}

/* `console <vm> time`: each live line starts with the hypervisor's uptime, "<s.micro> ", so an
 * operator (or a test) can time what a guest prints against the hypervisor's own clock. */
static bool stamp_next = true;
static void live_output_stamped(void *ctx, char c)
{
    if (stamp_next) {
        uint64_t us = timer_uptime_us();
        char stamp[32];
        int k = snprintf(stamp, sizeof stamp, "<%llu.%06llu> ", (unsigned long long)(us / 1000000),
                         (unsigned long long)(us % 1000000));
        if (k > 0)
            live_put(stamp, (size_t)k);
    }
    live_put(&c, 1);
    stamp_next = c == '\n';
}

static bool console_input(unsigned char c, void *ctx)
{
    struct vm *vm = ctx;
    if (c == CONSOLE_ESCAPE) {
        vm->uart.on_output = NULL;
        printf("\n[back to the shell]\n");
        return false;
    }
    vuart_push_input(&vm->uart, c);
    vcpu_kick(vm); /* its CPU may be another one, idle */
    return true;
}

enum shell_status cmd_console(int argc, char **argv)
{
    struct vm *vm = lookup(argv[1]);
    if (!vm)
        return SHELL_FAILED;
    bool stamped = argc > 2;
    if (stamped && strcmp(argv[2], "time")) {
        shell_error("usage: console <vm> [time]");
        return SHELL_FAILED;
    }
    printf("[console of guest %u (%s), %s; Ctrl-] returns to the shell]\n", vm->id, vm->cfg->name,
           vm_state_name(vm->state));
    vuart_replay(&vm->uart, write_console, NULL);
    stamp_next = true;
    live_dropped = 0;
    vm->uart.on_output = stamped ? live_output_stamped : live_output;
    vm->uart.ctx = vm;
    shell_divert(console_input, vm);
    return SHELL_OK;
}

/* The VMCS fields `vcpu` shows, read where the VMCS may be loaded: on the vCPU's own CPU. */
enum {
    VIEW_RIP,
    VIEW_RSP,
    VIEW_RFLAGS,
    VIEW_CR0,
    VIEW_CR3,
    VIEW_CR4,
    VIEW_EFER,
    VIEW_EXIT_REASON,
    VIEW_EXIT_QUALIFICATION,
    VIEW_EPTP,
    VIEW_FIELDS
};
static const uint32_t view_field[VIEW_FIELDS] = {
    [VIEW_RIP] = VMCS_GUEST_RIP,
    [VIEW_RSP] = VMCS_GUEST_RSP,
    [VIEW_RFLAGS] = VMCS_GUEST_RFLAGS,
    [VIEW_CR0] = VMCS_GUEST_CR0,
    [VIEW_CR3] = VMCS_GUEST_CR3,
    [VIEW_CR4] = VMCS_GUEST_CR4,
    [VIEW_EFER] = VMCS_GUEST_IA32_EFER,
    [VIEW_EXIT_REASON] = VMCS_EXIT_REASON,
    [VIEW_EXIT_QUALIFICATION] = VMCS_EXIT_QUALIFICATION,
    [VIEW_EPTP] = VMCS_EPT_POINTER,
};
struct vmcs_view {
    uint64_t vmcs_phys;
    bool ok;
    uint64_t value[VIEW_FIELDS];
};

static void read_vmcs(void *arg)
{
    struct vmcs_view *v = arg;
    v->ok = vmptrld(v->vmcs_phys) == VMX_OK;
    for (unsigned i = 0; v->ok && i < VIEW_FIELDS; i++)
        v->value[i] = vmread(view_field[i]);
}

enum shell_status cmd_vcpu(int argc, char **argv)
{
    struct vm *vm = lookup(argv[1]);
    if (!vm)
        return SHELL_FAILED;
    uint32_t k = 0;
    if (argc > 2 && (!args_parse_u32(argv[2], &k) || k >= (vm->n_vcpus ? vm->n_vcpus : 1))) {
        if (vm->n_vcpus > 1)
            shell_error("guest %u (%s) has %u vCPUs: give 0 to %u", vm->id, vm->cfg->name,
                        vm->n_vcpus, vm->n_vcpus - 1);
        else
            shell_error("guest %u (%s) has one vCPU: give 0 or nothing", vm->id, vm->cfg->name);
        return SHELL_FAILED;
    }
    struct vcpu *c = vm->n_vcpus ? vm->vcpus[k] : NULL;
    struct vmcs_view v = { c ? c->vmcs_phys : 0, false, { 0 } };
    if (!v.vmcs_phys || !vcpu_on_owner(c, read_vmcs, &v) || !v.ok) {
        shell_error("guest %u (%s) has no VMCS yet%s", vm->id, vm->cfg->name,
                    v.vmcs_phys ? " (or its CPU did not answer)" : "");
        return SHELL_FAILED;
    }
    const uint64_t *g = c->gprs.gpr;
    static const char *const names[GPR_COUNT] = { "RAX", "RCX", "RDX", "RBX", "RSP", "RBP",
                                                  "RSI", "RDI", "R8 ", "R9 ", "R10", "R11",
                                                  "R12", "R13", "R14", "R15" };
    char which[48] = "";
    if (vm->n_vcpus > 1)
        snprintf(which, sizeof which, " vCPU %u of %u (%s)", k, vm->n_vcpus,
                 vcpu_started(c) ? "started" : "waiting for its STARTUP");
    printf("guest %u (%s)%s: %s on CPU %u, %llu exits, last %s\n", vm->id, vm->cfg->name, which,
           vm_state_name(vm->state), c->pcpu, (unsigned long long)c->exits,
           c->exits ? vmx_exit_reason_name(c->last_exit) : "-");
    printf("RIP=%016llx RSP=%016llx RFLAGS=%016llx\n", (unsigned long long)v.value[VIEW_RIP],
           (unsigned long long)v.value[VIEW_RSP], (unsigned long long)v.value[VIEW_RFLAGS]);
    for (unsigned i = 0; i < GPR_COUNT; i++) {
        if (i == GPR_RSP)
            continue;
        printf("%s=%016llx%s", names[i], (unsigned long long)g[i], (i % 4 == 3) ? "\n" : " ");
    }
    printf("CR0=%016llx CR3=%016llx CR4=%016llx EFER=%016llx\n",
           (unsigned long long)v.value[VIEW_CR0], (unsigned long long)v.value[VIEW_CR3],
           (unsigned long long)v.value[VIEW_CR4], (unsigned long long)v.value[VIEW_EFER]);
    printf("exit reason %#llx qualification %#llx; EPTP %#llx VPID %u; run time %llu ms\n",
           (unsigned long long)v.value[VIEW_EXIT_REASON],
           (unsigned long long)v.value[VIEW_EXIT_QUALIFICATION],
           (unsigned long long)v.value[VIEW_EPTP], c->vpid,
           (unsigned long long)(c->run_ns / 1000000));
    struct rq_wake_stats w;
    vcpu_wake_stats(c, &w);
    printf(
        "wake-ups from a timed halt %llu, CPU after the deadline %llu us in all, %llu us at most "
        "(until seen %llu, other vCPUs %llu, hypervisor %llu)\n",
        (unsigned long long)w.wakes, (unsigned long long)(w.late_ns / 1000),
        (unsigned long long)(w.late_max_ns / 1000), (unsigned long long)(w.unseen_ns / 1000),
        (unsigned long long)(w.vcpus_ns / 1000), (unsigned long long)(w.hypervisor_ns / 1000));
    uint64_t work_ns = 0, work_max_ns = 0;
    unsigned work_max_reason = 0;
    for (unsigned r = 0; r < EXIT_REASON_COUNT; r++) {
        uint64_t sum, max;
        vcpu_exit_work(c, r, &sum, &max);
        work_ns += sum;
        if (max > work_max_ns) {
            work_max_ns = max;
            work_max_reason = r;
        }
    }
    printf("work in its exits %llu ms in all, %llu us at most (%s)\n",
           (unsigned long long)(work_ns / 1000000), (unsigned long long)(work_max_ns / 1000),
           work_max_ns ? vmx_exit_reason_name(work_max_reason) : "-");
    uint64_t deferred, deferred_ns;
    vcpu_defer_stats(c, &deferred, &deferred_ns);
    printf("exit work put off for a guest owed the CPU %llu times, %llu us waited in all\n",
           (unsigned long long)deferred, (unsigned long long)(deferred_ns / 1000));
    return SHELL_OK;
}

/* `exits` alone: one line per guest and reason, for tools (the benchmark) to read at once. */
static enum shell_status exits_all(void)
{
    for (unsigned i = 0; i < vm_count(); i++) {
        const struct vm *vm = vm_get(i);
        printf("%3u %-15s %-24s %llu\n", vm->id, vm->cfg->name, "total",
               (unsigned long long)exits_of(vm, EXIT_REASON_COUNT));
        for (unsigned r = 0; r < EXIT_REASON_COUNT; r++)
            if (exits_of(vm, r))
                printf("%3u %-15s %-24s %llu\n", vm->id, vm->cfg->name, vmx_exit_reason_name(r),
                       (unsigned long long)exits_of(vm, r));
    }
    return SHELL_OK;
}

enum shell_status cmd_exits(int argc, char **argv)
{
    if (argc == 1)
        return exits_all();
    struct vm *vm = lookup(argv[1]);
    if (!vm)
        return SHELL_FAILED;
    printf("guest %u (%s): %llu exits\n", vm->id, vm->cfg->name,
           (unsigned long long)exits_of(vm, EXIT_REASON_COUNT));
    for (unsigned r = 0; r < EXIT_REASON_COUNT; r++)
        if (exits_of(vm, r))
            printf("  %-24s %llu\n", vmx_exit_reason_name(r), (unsigned long long)exits_of(vm, r));
    /* What handling them cost the hypervisor: the longest is what no other guest can cut. */
    for (unsigned r = 0; r < EXIT_REASON_COUNT; r++) {
        uint64_t sum = 0, max = 0;
        for (unsigned k = 0; k < vm->n_vcpus; k++) {
            uint64_t s1, m1;
            vcpu_exit_work(vm->vcpus[k], r, &s1, &m1);
            sum += s1;
            max = m1 > max ? m1 : max;
        }
        if (exits_of(vm, r))
            printf("  work for %s: %llu us in all, %llu us at most\n", vmx_exit_reason_name(r),
                   (unsigned long long)(sum / 1000), (unsigned long long)(max / 1000));
    }
    printf("interrupts: %llu injected, %llu re-injected, %llu APIC timer; vCPU %s\n",
           (unsigned long long)cpu_of(vm)->irqs_injected,
           (unsigned long long)cpu_of(vm)->events_reinjected,
           (unsigned long long)cpu_of(vm)->lapic.timer_irqs,
           cpu_of(vm)->halted ? "halted (waits for an interrupt)" : "runnable");
    /* The interrupt controllers' state, for an operator asking why a guest waits. */
    const struct i8259 *m = &vm->pic.chip[0], *sl = &vm->pic.chip[1];
    printf(
        "pic: master irr %02x isr %02x imr %02x base %#x, slave irr %02x isr %02x imr %02x base %#x, "
        "%llu acks; lapic: lvt0 %#x svr %#x tpr %#x; uart: ier %02x mcr %02x line %s\n",
        m->irr, m->isr, m->imr, m->vector_base, sl->irr, sl->isr, sl->imr, sl->vector_base,
        (unsigned long long)vm->pic.acks, cpu_of(vm)->lapic.lvt[VLAPIC_LVT_LINT0],
        cpu_of(vm)->lapic.svr, cpu_of(vm)->lapic.tpr, vm->uart.ier, vm->uart.mcr,
        vm->uart.line ? "high" : "low");
    return SHELL_OK;
}

/* `devices [vm]`: a guest's I/O bus (ports, MMIO regions and where they are) and what each of
 * its devices did. */
static void devices_of(const struct vm *vm)
{
    const struct io_bus *b = &vm->io;
    printf("guest %u (%s): %s\n", vm->id, vm->cfg->name, vm_state_name(vm->state));
    for (unsigned i = 0; i < b->n_ports; i++)
        printf("  ports %#06x-%#06x  %s\n", b->ports[i].first,
               b->ports[i].first + b->ports[i].count - 1, b->ports[i].name);
    for (unsigned i = 0; i < b->n_mmio; i++) {
        const struct io_mmio *r = &b->mmio[i];
        char where[24] = "nowhere";
        if (r->base != IO_UNPLACED)
            snprintf(where, sizeof where, "%#llx", (unsigned long long)r->base);
        printf("  mmio  %-18s +%#-11llx %s", where, (unsigned long long)r->size, r->name);
        if (r->pci.on)
            printf(" (PCI 00:%02x.%u BAR%u)", r->pci.dev, r->pci.fn, r->pci.bar);
        printf("%s\n", r->read || r->write ? "" : " (kept free)");
    }
    if (io_bus_unclaimed(b))
        printf("  mmio  elsewhere: %s\n", b->unclaimed.name);
    printf("  window %#llx-%#llx: %llu placements, %llu refused\n",
           (unsigned long long)b->window_lo, (unsigned long long)(b->window_hi - 1),
           (unsigned long long)b->moves, (unsigned long long)b->refused);
    for (unsigned i = 0; i < vm->n_devices; i++) {
        const struct vm_device *d = &vm->devices[i];
        char line[160] = "";
        if (d->stats)
            d->stats(vm, d->ctx, line, sizeof line);
        printf("  %-15s %s\n", d->name, line);
    }
}

enum shell_status cmd_devices(int argc, char **argv)
{
    if (argc > 1) {
        struct vm *vm = lookup(argv[1]);
        if (!vm)
            return SHELL_FAILED;
        devices_of(vm);
        return SHELL_OK;
    }
    if (!vm_count())
        printf("no guests\n");
    for (unsigned i = 0; i < vm_count(); i++)
        devices_of(vm_get(i));
    return SHELL_OK;
}
