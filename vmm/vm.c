/* The guests' lifecycle: memory and EPT when a guest first starts, its devices back to
 * power-on state, a fresh image from its kind's loader and a fresh vCPU on every start, and a
 * clear record of why a guest is not running. */
#include "vmm/vm.h"

#include "arch/x86/timer.h"
#include "vmm/log.h"
#include "vmm/platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_2M_BYTES (2ULL << 20)
#define PAGES_2M      (PAGE_2M_BYTES / PAGE_SIZE) /* guest RAM is 2 MiB aligned for large EPT pages */

static struct vm *vms;
static unsigned n_vms;
static const struct guest_loader *loaders[VM_MAX_LOADERS];
static unsigned n_loaders;
static const struct vm_cpu_ops *cpu;

void vm_set_cpu(const struct vm_cpu_ops *ops)
{
    cpu = ops;
}

unsigned vm_count(void)
{
    return n_vms;
}
struct vm *vm_get(unsigned id)
{
    return id < n_vms ? &vms[id] : NULL;
}

struct vm *vm_lookup(const char *id_or_name)
{
    char *end;
    unsigned long id = strtoul(id_or_name, &end, 10);
    if (*id_or_name && !*end)
        return vm_get((unsigned)id);
    for (unsigned i = 0; i < n_vms; i++)
        if (!strcmp(vms[i].cfg->name, id_or_name))
            return &vms[i];
    return NULL;
}

const char *vm_state_name(enum vm_state s)
{
    switch (s) {
    case VM_STOPPED:
        return "stopped";
    case VM_RUNNING:
        return "running";
    case VM_FAILED:
        return "failed";
    case VM_CRASHED:
        return "crashed";
    case VM_EXITED:
        return "exited";
    }
    return "?";
}

void *vm_gpa_ptr(const struct vm *vm, uint64_t gpa, uint64_t len)
{
    if (gpa > vm->ram_bytes || len > vm->ram_bytes - gpa)
        return NULL;
    return (void *)(uintptr_t)(vm->ram_hpa + gpa);
}

bool vm_add_loader(const struct guest_loader *l)
{
    if (n_loaders == VM_MAX_LOADERS)
        return false;
    loaders[n_loaders++] = l;
    return true;
}

static const struct guest_loader *loader_of(const struct vm *vm)
{
    for (unsigned i = 0; i < n_loaders; i++)
        if (loaders[i]->kind == vm->cfg->kind)
            return loaders[i];
    return NULL;
}

/* The guest fails with the reason a hook left in vm->reason. */
static void failed_by_hook(struct vm *vm)
{
    char why[sizeof vm->reason];
    snprintf(why, sizeof why, "%s", vm->reason);
    vm_stop(vm, VM_FAILED, "%s", why);
}

/* ---- devices ---- */

bool vm_add_device(struct vm *vm, const struct vm_device *d)
{
    if (vm->n_devices == VM_MAX_DEVICES) {
        vm->board_failed = true;
        vm_stop(vm, VM_FAILED, "no room for its device '%s' (at most %u)", d->name, VM_MAX_DEVICES);
        return false;
    }
    if (d->init && !d->init(vm, d->ctx)) {
        vm->board_failed = true;
        failed_by_hook(vm);
        return false;
    }
    vm->devices[vm->n_devices++] = *d;
    return true;
}

static bool devices_start(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_devices; i++) {
        const struct vm_device *d = &vm->devices[i];
        if (d->start && !d->start(vm, d->ctx))
            return false;
    }
    return true;
}

static bool devices_loaded(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_devices; i++) {
        const struct vm_device *d = &vm->devices[i];
        if (d->loaded && !d->loaded(vm, d->ctx))
            return false;
    }
    return true;
}

/* ---- a guest's life: what the hypervisor had free when it began and when it ended ---- */

static void life_begin(struct vm *vm)
{
    vm->life.count++;
    vm->life.free_at_start = platform.pages.free_pages;
    vm->life.ended = false;
}

static void life_end(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_devices; i++)
        if (vm->devices[i].stop)
            vm->devices[i].stop(vm, vm->devices[i].ctx);
    vm->life.free_at_end = platform.pages.free_pages;
    vm->life.ended = true;
}

void vm_stop(struct vm *vm, enum vm_state state, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->reason, sizeof vm->reason, fmt, ap);
    va_end(ap);
    bool was_running = vm->state == VM_RUNNING;
    if (cpu && vm->n_vcpus)
        cpu->hold(vm);
    vm->state = state;
    if (was_running)
        life_end(vm);
    if (state == VM_STOPPED)
        log_info("guest %u (%s): stopped: %s", vm->id, vm->cfg->name, vm->reason);
    else
        log_warn("guest %u (%s): %s: %s", vm->id, vm->cfg->name, vm_state_name(state), vm->reason);
}

void vm_ept_flush(struct vm *vm)
{
    if (cpu && vm->n_vcpus && vm->ept_ready)
        cpu->ept_flush(vm);
}

/* EPT tables come from the page allocator, zeroed; the hypervisor's memory is identity mapped. */
static uint64_t ept_alloc(void *ctx)
{
    uint64_t pa = page_alloc(&platform.pages, 1, 1);
    if (pa)
        memset((void *)(uintptr_t)pa, 0, PAGE_SIZE);
    return pa;
}
static void ept_free(void *ctx, uint64_t phys)
{
    page_free(&platform.pages, phys, 1);
}
static void *ept_virt(void *ctx, uint64_t phys)
{
    return (void *)(uintptr_t)phys;
}

/* RAM and EPT: taken once, kept across stop and start. */
static bool vm_allocate(struct vm *vm)
{
    if (vm->ram_hpa)
        return vm->ept_ready;
    vm->ram_bytes = (uint64_t)vm->cfg->ram_mib << 20;
    vm->ram_hpa = page_alloc(&platform.pages, vm->ram_bytes / PAGE_SIZE, PAGES_2M);
    if (!vm->ram_hpa) {
        snprintf(vm->reason, sizeof vm->reason, "no %u MiB of contiguous free memory for its RAM",
                 vm->cfg->ram_mib);
        return false;
    }
    const struct ept_ops ops = { ept_alloc, ept_free, ept_virt, NULL };
    if (ept_init(&vm->ept, &ops) != 0 ||
        ept_map(&vm->ept, 0, vm->ram_hpa, vm->ram_bytes, EPT_PERM_RWX, EPT_MT_WB) != 0) {
        snprintf(vm->reason, sizeof vm->reason, "no memory for its EPT tables");
        return false;
    }
    vm->ept_ready = true;
    return true;
}

static const struct boot_module *find_image(const char *tag)
{
    const struct boot_info *bi = &platform.boot;
    for (unsigned i = 0; i < bi->n_modules; i++)
        if (!strcmp(bi->modules[i].tag, tag))
            return &bi->modules[i];
    return NULL;
}

bool vm_start(struct vm *vm)
{
    if (!cpu || !vm->n_vcpus) {
        snprintf(vm->reason, sizeof vm->reason, "VT-x not available");
        vm->state = VM_FAILED;
        return false;
    }
    if (vm->board_failed)
        return false; /* failed, with the reason its board gave */
    const struct boot_module *m = find_image(vm->cfg->image);
    const struct boot_module *rd = vm->cfg->initrd[0] ? find_image(vm->cfg->initrd) : NULL;
    if (!m) {
        vm_stop(vm, VM_FAILED, "no GRUB module tagged '%s' (its image)", vm->cfg->image);
        return false;
    }
    if (vm->cfg->initrd[0] && !rd) {
        vm_stop(vm, VM_FAILED, "no GRUB module tagged '%s' (its initrd)", vm->cfg->initrd);
        return false;
    }
    const struct guest_loader *loader = loader_of(vm);
    if (!loader) {
        vm_stop(vm, VM_FAILED, "no loader for %s guests", cfg_guest_kind_name(vm->cfg->kind));
        return false;
    }
    cpu->hold(vm);
    if (vm->state == VM_RUNNING)
        life_end(vm); /* a restart: the running life ends here */
    vm->boot_count++;
    const struct guest_image img = {
        (const void *)(uintptr_t)m->start,
        m->end - m->start,
        rd ? (const void *)(uintptr_t)rd->start : NULL,
        rd ? rd->end - rd->start : 0,
    };
    /* The board first, as a reset machine's devices are before its firmware loads anything: a
     * device may give the guest something the loader describes (a framebuffer). */
    if (!vm_allocate(vm) || !devices_start(vm) || !loader->load(vm, &img) || !devices_loaded(vm) ||
        !cpu->start(vm)) {
        vm->state = VM_FAILED;
        log_warn("guest %u (%s): failed: %s", vm->id, vm->cfg->name, vm->reason);
        return false;
    }
    vm->reason[0] = 0;
    vm->started_ns = timer_now_ns();
    vm->state = VM_RUNNING;
    life_begin(vm);
    log_info("guest %u (%s): started from '%s' (%llu KiB), %u MiB RAM at %#llx, entry %#llx",
             vm->id, vm->cfg->name, vm->cfg->image,
             (unsigned long long)((m->end - m->start) / 1024), vm->cfg->ram_mib,
             (unsigned long long)vm->ram_hpa, (unsigned long long)vm->boot.rip);
    return true;
}

void vm_init_all(const struct cfg *cfg)
{
    n_vms = cfg->n_guests;
    vms = calloc(n_vms, sizeof *vms);
    if (!vms) {
        log_error("no memory for %u guests", n_vms);
        n_vms = 0;
        return;
    }
    for (unsigned i = 0; i < n_vms; i++) {
        struct vm *vm = &vms[i];
        vm->id = i;
        vm->cfg = &cfg->guest[i];
        /* A time slice in proportion to the render weight (100 = the configured slice). */
        vm->slice_ns = (uint64_t)cfg->scheduler.slice_us * 1000 * vm->cfg->weight / 100;
        io_bus_init(&vm->io);
        snprintf(vm->reason, sizeof vm->reason, "not started (autostart off)");
        if (!cpu)
            vm_stop(vm, VM_FAILED, "VT-x not available");
        else if (!cpu->create(vm))
            failed_by_hook(vm);
    }
}

void vm_autostart_all(void)
{
    for (unsigned i = 0; i < n_vms; i++)
        if (vms[i].state == VM_STOPPED && vms[i].cfg->autostart)
            vm_start(&vms[i]);
}
