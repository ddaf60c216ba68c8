/* Boot, in this order: console first so every later step can speak, then the boot information,
 * CPU tables, memory, time, devices, VT-x, and finally the shell. */
#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/page_alloc.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/smp.h"
#include "arch/x86/timer.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx_caps.h"
#include "boot/multiboot2.h"
#include "vmm/board/board.h"
#include "vmm/config_boot.h"
#include "vmm/console.h"
#include "vmm/hv_lock.h"
#include "vmm/vgpu/host/gpu.h"
#include "vmm/libc_glue.h"
#include "vmm/loader/loaders.h"
#include "vmm/log.h"
#include "vmm/platform.h"
#include "vmm/shell/shell.h"
#include "vmm/vcpu/vcpu.h"
#include "vmm/vcpu/run_queue.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vgpu/host/vgpu_host.h"
#include "vmm/vm.h"
#include "vmm/display/wall.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/version.h"

#include <stdio.h>
#include <string.h>

#define GPU_POLL_US    4000 /* rendering per main-loop round, at most */
#define HEAP_BYTES     (32ULL << 20)
#define LOW_MEMORY_END 0x100000ULL  /* real-mode IVT, BDA, EBDA, option ROMs, BIOS */
#define MB2_INFO_MAX   (1ULL << 20) /* no sane loader hands over more */

struct platform platform;

extern char _image_start[], _image_end[];

static void reserve(uint64_t base, uint64_t end)
{
    if (platform.n_reserved < sizeof platform.reserved / sizeof platform.reserved[0])
        platform.reserved[platform.n_reserved++] = (struct phys_range){ base, end };
}

static __attribute__((noreturn)) void stop(const char *why)
{
    console_puts(why);
    console_puts("\nhypervisor stopped.\n");
    console_flush();
    cpu_halt_forever();
}

/* Usable RAM minus everything that is not ours to hand out. */
static void memory_init(void)
{
    const struct boot_info *bi = &platform.boot;
    struct phys_range usable[BOOT_MAX_MEM_REGIONS];
    unsigned n = 0;
    for (unsigned i = 0; i < bi->n_mem; i++)
        if (bi->mem[i].type == BOOT_MEM_USABLE)
            usable[n++] = (struct phys_range){ bi->mem[i].base,
                                               bi->mem[i].base + bi->mem[i].length };

    reserve(0, LOW_MEMORY_END);
    reserve((uint64_t)(uintptr_t)_image_start, (uint64_t)(uintptr_t)_image_end);
    for (unsigned i = 0; i < bi->n_modules; i++)
        reserve(bi->modules[i].start, bi->modules[i].end);

    size_t bm_bytes = page_alloc_bitmap_bytes(usable, n);
    uint64_t bm;
    if (!phys_find_free(usable, n, platform.reserved, platform.n_reserved, bm_bytes, LOW_MEMORY_END,
                        &bm) ||
        bm + bm_bytes > 4ULL << 30)
        stop("no room below 4 GiB for the page allocator's bitmap");
    reserve(bm, bm + ((bm_bytes + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)));
    page_alloc_init(&platform.pages, (uint64_t *)(uintptr_t)bm, usable, n, platform.reserved,
                    platform.n_reserved);

    platform.mapped_top = paging_init(bi, &platform.pages);

    uint64_t heap = page_alloc(&platform.pages, HEAP_BYTES / PAGE_SIZE, 1);
    if (!heap)
        stop("not enough memory for the hypervisor heap (32 MiB)");
    platform.heap_base = heap;
    platform.heap_size = HEAP_BYTES;
    libc_heap_init((void *)(uintptr_t)heap, HEAP_BYTES);
}

static void log_boot_info(void)
{
    const struct boot_info *bi = &platform.boot;
    uint64_t usable = 0;
    for (unsigned i = 0; i < bi->n_mem; i++)
        if (bi->mem[i].type == BOOT_MEM_USABLE)
            usable += bi->mem[i].length;
    log_info("boot: %s, %u memory regions (%llu MiB usable), %u modules, command line '%s'",
             bi->loader[0] ? bi->loader : "unknown loader", bi->n_mem,
             (unsigned long long)(usable >> 20), bi->n_modules, bi->cmdline);
    for (unsigned i = 0; i < bi->n_modules; i++)
        log_info("module %u: '%s' at %#llx, %llu KiB", i, bi->modules[i].tag,
                 (unsigned long long)bi->modules[i].start,
                 (unsigned long long)((bi->modules[i].end - bi->modules[i].start) / 1024));
    if (bi->has_framebuffer)
        log_info("framebuffer: %ux%u, %u bpp, pitch %u at %#llx", bi->fb.width, bi->fb.height,
                 bi->fb.bpp, bi->fb.pitch, (unsigned long long)bi->fb.addr);
    else
        log_info("framebuffer: none (the kiosk wall will not be shown)");
    if (bi->dropped)
        log_warn("boot: %u memory-map or module entries did not fit and were ignored", bi->dropped);
}

/* VMX operation on every parked AP, so that a guest's vCPU can later run there; one that cannot
 * (no VMX, other capabilities, no answer) is reported and given no guest. */
static void vmx_on_aps(void)
{
    unsigned on = 0, tried = 0;
    for (unsigned i = 1; i < smp_count(); i++) {
        if (smp_state(smp_cpu(i)) != CPU_PARKED)
            continue;
        tried++;
        if (vmx_setup_ap(i))
            on++;
        else
            log_warn("cpu %u: VT-x not available (%s): it runs no guest", i, vmx_cpu_state(i)->why);
    }
    if (tried)
        log_info("vmx: on in %u of %u application processors", on, tried);
}

/* The application processors: started and parked, until guests are placed on them. */
static void smp_init(void)
{
    struct smp_summary s;
    smp_start(&platform.boot, &platform.pages, platform.mapped_top, &s);
    for (unsigned i = 1; i < smp_count(); i++) {
        const struct cpu *c = smp_cpu(i);
        if (smp_state(c) == CPU_FAILED)
            log_warn("cpu %u (APIC id %u): did not start: %s", i, c->apic_id, c->why);
        else if (smp_state(c) == CPU_NOT_ENABLED)
            log_info(
                "cpu %u (APIC id %u): online-capable, not enabled by the firmware: not started", i,
                c->apic_id);
    }
    if (smp_count() == 1)
        log_info("smp: one CPU (%s)", s.why);
    else
        log_info("smp: %u CPUs in the MADT; %u parked, %u did not start; slowest start %llu us",
                 s.listed, s.parked, s.failed, (unsigned long long)(s.max_start_ns / 1000));
}

/* The guests with a vCPU on a lost CPU stop with it; the others go on, and its render loop moves to the
 * boot CPU. */
static void say_cpu_lost(unsigned index, const char *why)
{
    log_error("smp: CPU %u is out of service: %s; the others go on", index, why);
    vcpu_cpu_lost(index);
    const struct vcpu *on[RQ_MAX];
    unsigned n = vcpu_cpu_vcpus(index, on, RQ_MAX);
    for (unsigned i = 0; i < n && i < RQ_MAX; i++) {
        struct vm *vm = on[i]->vm;
        if (vm->state == VM_RUNNING)
            vm_stop(vm, VM_CRASHED, "its CPU %u was lost: %s", index, why);
    }
}

/* Bit k: CPU k can run guests: parked, woken by IPI (smp_run, kicks) and in VMX operation; the
 * boot CPU always can once guests run. */
static uint64_t guest_cpus(void)
{
    uint64_t usable = 1;
    for (unsigned i = 1; i < smp_count() && i < 64; i++) {
        const struct vmx_cpu *v = vmx_cpu_state(i);
        const struct cpu *c = smp_cpu(i);
        if (smp_state(c) == CPU_PARKED && c->wakeable && v && v->on)
            usable |= 1ULL << i;
    }
    return usable;
}

static bool gpu_poll(void)
{
    return vgpu_host_poll(GPU_POLL_US);
}

void kmain(uint32_t magic, uint64_t info);
void kmain(uint32_t magic, uint64_t info)
{
    console_init();
    /* Stdio goes straight to the serial line; buffering would only delay what the operator sees. */
    setvbuf(stdout, NULL, _IONBF, 0);
    console_puts("\nTessera " TESSERA_VERSION " - GPU-partitioning hypervisor\n");
    gdt_init();
    idt_init();
    trap_set_output(console_puts, console_flush);

    if (magic != MB2_BOOTLOADER_MAGIC)
        stop("not started by a Multiboot2 loader (wrong magic in EAX); boot Tessera from GRUB");
    char err[160];
    uint32_t info_size;
    memcpy(&info_size, (const void *)(uintptr_t)info, sizeof info_size);
    if (mb2_parse((const void *)(uintptr_t)info,
                  info_size < MB2_INFO_MAX ? info_size : MB2_INFO_MAX, &platform.boot, err,
                  sizeof err) < 0) {
        console_puts("boot information is malformed: ");
        stop(err);
    }
    memory_init();
    bool ticking = timer_init();
    timer_set_tick_hook(console_tx_poll);
    irq_enable();
    log_boot_info();
    log_info("time: TSC %llu MHz (calibrated from %s); %s",
             (unsigned long long)(timer_tsc_hz() / 1000000), timer_tsc_source(),
             ticking ? "LAPIC tick at 1000 Hz" : "no LAPIC: no periodic tick");
    log_info("memory: %llu MiB free for guests and graphics memory, heap 32 MiB",
             (unsigned long long)(platform.pages.free_pages * PAGE_SIZE >> 20));
    log_info("pci: %u functions", pci_scan());
    smp_init();
    /* From here the boot CPU holds the hypervisor lock but in its guests and its idle halt. */
    hv_lock();

    bool config_ok = config_boot(&platform.boot);
    if (config_ok)
        gpu_init(&active_config.cfg);
    vmx_probe(&platform.vmx);
    vmx_caps_describe(&platform.vmx, platform.vmx_line, sizeof platform.vmx_line);
    log_info("%s", platform.vmx_line);
    if (platform.vmx.available && !vmx_setup_cpu(&platform.vmx, &platform.pages))
        log_error("VT-x: cannot enter VMX operation (%s): guests not started", vmx.error);
    if (vmx.on)
        vmx_on_aps();
    /* The guests: each with its board and its vGPU on its bus, then those marked autostart. */
    bool guests = config_ok && vmx.on;
    if (guests) {
        vm_set_cpu(&vcpu_ops);
        vm_add_loader(&tessera_loader);
        vm_add_loader(&linux_loader);
        vm_init_all(&active_config.cfg);
        for (unsigned i = 0; i < vm_count(); i++)
            board_attach(vm_get(i));
    }
    if (config_ok && !(guests && vgpu_host_init(&active_config.cfg)))
        wall_init(&active_config.cfg, NULL); /* the wall shows "no signal" tiles */
    if (guests) {
        vcpu_place_all(guest_cpus(), active_config.cfg.scheduler.render_cpu);
        vm_autostart_all();
    }

    platform.boot_done_us = timer_uptime_us();
    hv_lock_count_from(rdtsc());
    log_info("boot: ready in %llu ms; shell on COM1 (type 'help')",
             (unsigned long long)(platform.boot_done_us / 1000));
    shell_init();
    vcpu_set_render_loop(gpu_poll);
    vcpu_set_chores_waiting(console_input_waiting);
    for (;;) {
        shell_poll();
        smp_poll_lost(say_cpu_lost);
        log_poll();
        hv_lock_yield(); /* the other CPUs' exits between the boot CPU's chores */
        /* The GPU (the model, on emulators) and the vCPUs share a CPU unless the configuration
         * gave the render loop one: a few ms of rendering per round of guest slices. */
        if (vcpu_run_round())
            continue; /* some guest or the GPU wanted more CPU: next round at once */
        if (ticking)
            vcpu_idle(); /* sleep until the next tick or interrupt */
        else
            cpu_pause();
    }
}
