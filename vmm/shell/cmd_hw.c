/* Shell commands that look at the machine: mem, pci, cpus, cpuid, rdmsr, vmx. */
#include "vmm/shell/commands.h"

#include "arch/x86/cpu.h"
#include "arch/x86/pci.h"
#include "arch/x86/smp.h"
#include "vmm/hv_lock.h"
#include "vmm/libc_glue.h"
#include "vmm/platform.h"
#include "vmm/shell/args.h"
#include "arch/x86/timer.h"
#include "vmm/vcpu/run_queue.h"
#include "vmm/vcpu/vcpu.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ULL * 1024)

enum shell_status cmd_mem(int argc, char **argv)
{
    const struct boot_info *bi = &platform.boot;
    printf("memory map (%u regions):\n", bi->n_mem);
    for (unsigned i = 0; i < bi->n_mem; i++) {
        const struct boot_mem_region *r = &bi->mem[i];
        printf("  %016llx-%016llx %8llu KiB %s\n", (unsigned long long)r->base,
               (unsigned long long)(r->base + r->length - 1),
               (unsigned long long)(r->length / 1024), boot_mem_type_name(r->type));
    }
    printf("reserved for the hypervisor and its boot data (%u ranges):\n", platform.n_reserved);
    for (unsigned i = 0; i < platform.n_reserved; i++)
        printf("  %016llx-%016llx\n", (unsigned long long)platform.reserved[i].base,
               (unsigned long long)(platform.reserved[i].end - 1));
    const struct page_alloc *pa = &platform.pages;
    uint64_t used = pa->usable_pages - pa->free_pages;
    printf("pages: %llu free of %llu (%llu MiB free, %llu MiB in use)\n",
           (unsigned long long)pa->free_pages, (unsigned long long)pa->usable_pages,
           (unsigned long long)(pa->free_pages * PAGE_SIZE / MIB),
           (unsigned long long)(used * PAGE_SIZE / MIB));
    printf("heap: %zu KiB used of %zu KiB\n", libc_heap_used() / 1024, libc_heap_size() / 1024);
    printf("identity mapped: 0-%llx\n", (unsigned long long)(platform.mapped_top - 1));
    /* What the hypervisor had free when each guest's last life began and ended: a guest that
     * makes the hypervisor leak shows a life that ends lower than it began, and a restart that
     * does not give everything back a start lower than the one before. */
    if (vm_count())
        printf("free pages around each guest's last life (after its start; at its end):\n");
    for (unsigned i = 0; i < vm_count(); i++) {
        const struct vm *vm = vm_get(i);
        const struct vm_life *l = &vm->life;
        if (!l->count) {
            printf("  %3u %-15s no life yet\n", vm->id, vm->cfg->name);
            continue;
        }
        printf("  %3u %-15s life %llu: %llu after its start, ", vm->id, vm->cfg->name,
               (unsigned long long)l->count, (unsigned long long)l->free_at_start);
        if (l->ended)
            printf("%llu at its end (%+lld)\n", (unsigned long long)l->free_at_end,
                   (long long)(l->free_at_end - l->free_at_start));
        else
            printf("running (%+lld now)\n", (long long)(pa->free_pages - l->free_at_start));
    }
    return SHELL_OK;
}

enum shell_status cmd_pci(int argc, char **argv)
{
    for (unsigned i = 0; i < pci_count(); i++) {
        const struct pci_device *d = pci_get(i);
        printf("%02x:%02x.%x %04x:%04x %s (class %02x:%02x:%02x rev %02x)\n", d->bus, d->dev, d->fn,
               d->vendor, d->device, pci_class_name(d->class_code, d->subclass), d->class_code,
               d->subclass, d->prog_if, d->revision);
        for (unsigned b = 0; b < PCI_MAX_BARS; b++) {
            const struct pci_bar *bar = &d->bars[b];
            if (!bar->size)
                continue;
            printf("    BAR%u %s %#llx size %#llx%s%s\n", b, bar->io ? "io " : "mem",
                   (unsigned long long)bar->base, (unsigned long long)bar->size,
                   bar->is64 ? " 64-bit" : "", bar->prefetchable ? " prefetchable" : "");
        }
    }
    printf("%u PCI functions\n", pci_count());
    return SHELL_OK;
}

/* `cpus fault <n>`: an invalid opcode on AP n, as a bug there would; the CPU is out of service
 * afterwards and everything else goes on. */
static enum shell_status cpus_fault(const char *arg)
{
    uint32_t n;
    if (!args_parse_u32(arg, &n))
        return SHELL_USAGE;
    if (n == 0) {
        shell_error("cpus fault: an exception on the boot CPU stops the hypervisor; pick an "
                    "application processor");
        return SHELL_FAILED;
    }
    const struct cpu *c = smp_cpu(n);
    if (!c || !smp_fault(n)) {
        shell_error("cpus fault: CPU %u is not a parked application processor (see `cpus`)", n);
        return SHELL_FAILED;
    }
    enum cpu_state st = smp_state(c);
    printf("cpus fault: CPU %u is %s: %s\n", n, smp_state_name(st),
           st == CPU_LOST ? c->why : "it did not take the exception");
    return st == CPU_LOST ? SHELL_OK : SHELL_FAILED;
}

/* "guests kiosk0 kiosk2 (n% of its time)" for the guests placed on CPU `cpu`, with their share of its time
 * since boot. */
static bool print_guests(unsigned cpu)
{
    const struct vcpu *on[RQ_MAX];
    unsigned n = vcpu_cpu_vcpus(cpu, on, RQ_MAX);
    if (!n)
        return false;
    uint64_t run_ns = 0;
    printf("guests");
    for (unsigned k = 0; k < n && k < RQ_MAX; k++) {
        const struct vm *vm = on[k]->vm;
        printf(" %s", vm->cfg->name);
        if (vm->n_vcpus > 1)
            printf(".%u", on[k]->index); /* which of its vCPUs */
        run_ns += on[k]->run_ns;
    }
    uint64_t up_ns = timer_now_ns(), waits, wait_ns;
    printf(" (%llu%% of its time)", (unsigned long long)(up_ns ? run_ns * 100 / up_ns : 0));
    vcpu_cpu_lock_waits(cpu, &waits, &wait_ns);
    if (waits)
        printf(", waited %llu times for its share of the hypervisor (%llu ms)",
               (unsigned long long)waits, (unsigned long long)(wait_ns / 1000000));
    return true;
}

/* "    hypervisor lock: waited 12 ms (3%), held 340 ms (41%), longest 812 us": what sharing
 * the lock cost CPU `cpu` since the end of boot, once an AP runs guests or the render loop. */
static void print_lock_use(unsigned cpu)
{
    struct hv_lock_use u;
    hv_lock_use(cpu, &u);
    uint64_t per_us = timer_tsc_hz() / 1000000, up_us = timer_uptime_us() - platform.boot_done_us;
    if (!per_us || !up_us)
        return;
    uint64_t waited = u.waited / per_us, held = u.held / per_us;
    printf(
        "     hypervisor lock: waited %llu ms (%llu%%), held %llu ms (%llu%%), longest %llu us\n",
        (unsigned long long)(waited / 1000), (unsigned long long)(waited * 100 / up_us),
        (unsigned long long)(held / 1000), (unsigned long long)(held * 100 / up_us),
        (unsigned long long)(u.longest / per_us));
}

enum shell_status cmd_cpus(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "fault") || argc != 3)
            return SHELL_USAGE;
        return cpus_fault(argv[2]);
    }
    printf("cpu  APIC id  state          runs\n");
    bool shared = false;
    for (unsigned i = 1; i < smp_count(); i++)
        shared |= smp_state(smp_cpu(i)) == CPU_RUNNING;
    for (unsigned i = 0; i < smp_count(); i++) {
        const struct cpu *c = smp_cpu(i);
        enum cpu_state st = smp_state(c);
        printf("%3u  %7u  %-13s  ", i, c->apic_id, smp_state_name(st));
        bool busy = (st == CPU_BOOT || st == CPU_RUNNING) && print_guests(i);
        if ((st == CPU_BOOT || st == CPU_RUNNING) && vcpu_render_cpu() == i) {
            printf("%srender loop", busy ? ", " : "");
            busy = true;
        }
        if (st == CPU_BOOT)
            printf("%sshell", busy ? ", " : "");
        else if (st == CPU_PARKED)
            printf("parked (started in %llu us, %u STARTUP IPI%s)",
                   (unsigned long long)(c->start_ns / 1000), c->sipis, c->sipis == 1 ? "" : "s");
        else if (st == CPU_FAILED || st == CPU_LOST)
            printf("nothing: %s", c->why);
        else if (st != CPU_RUNNING)
            printf("nothing");
        /* VMX operation, once the boot CPU tried it (vmm/vcpu/vmx_setup.h). */
        const struct vmx_cpu *v = vmx_cpu_state(i);
        if (v && (v->on || v->why[0]) && st != CPU_FAILED && st != CPU_LOST &&
            st != CPU_NOT_ENABLED)
            printf("; VT-x %s%s", v->on ? "on" : "off: ", v->on ? "" : v->why);
        printf("\n");
        if (shared && (st == CPU_BOOT || st == CPU_RUNNING))
            print_lock_use(i);
    }
    return SHELL_OK;
}

enum shell_status cmd_cpuid(int argc, char **argv)
{
    uint32_t leaf, sub = 0;
    if (!args_parse_u32(argv[1], &leaf) || (argc > 2 && !args_parse_u32(argv[2], &sub)))
        return SHELL_USAGE;
    struct cpuid_regs r = cpuid(leaf, sub);
    printf("cpuid 0x%08x.%u: eax=%08x ebx=%08x ecx=%08x edx=%08x\n", leaf, sub, r.eax, r.ebx, r.ecx,
           r.edx);
    return SHELL_OK;
}

enum shell_status cmd_rdmsr(int argc, char **argv)
{
    uint32_t msr;
    uint64_t v;
    if (!args_parse_u32(argv[1], &msr))
        return SHELL_USAGE;
    if (!rdmsr_safe(msr, &v)) {
        shell_error("rdmsr %#x: the CPU raised #GP (no such MSR here)", msr);
        return SHELL_FAILED;
    }
    printf("msr %#x = 0x%016llx\n", msr, (unsigned long long)v);
    return SHELL_OK;
}

enum shell_status cmd_vmx(int argc, char **argv)
{
    const struct vmx_caps *c = &platform.vmx;
    printf("%s\n", platform.vmx_line);
    if (c->basic)
        printf(
            "IA32_VMX_BASIC %#018llx pin %#018llx proc %#018llx proc2 %#018llx ept/vpid %#018llx\n",
            (unsigned long long)c->basic, (unsigned long long)c->pinbased,
            (unsigned long long)c->procbased, (unsigned long long)c->procbased2,
            (unsigned long long)c->ept_vpid);
    return SHELL_OK;
}
