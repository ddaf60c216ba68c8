/* The guest's PCI bus 0 on its board (board.h): the configuration mechanism's ports, the bus
 * rebuilt with the default BARs at every start, and BAR moves passed to the I/O bus, which
 * re-bases the region registered behind the BAR (or refuses the place, with a log line). */
#include "vmm/board/board.h"
#include "vmm/board/board_internal.h"

#include "boot/linux/linux_layout.h"
#include "vmm/config_boot.h"
#include "vmm/log.h"
#include "vmm/vm.h"
#include "vmm/vpci/vgpu_pci.h"

#include <stdio.h>
#include <stdlib.h>


struct board_pci {
    struct vm *vm;
    struct vpci bus;
    bool present;                 /* built at the last start (the aperture fits its BAR) */
    uint64_t shown[PCI_MAX_BARS]; /* the vGPU's BAR bases as last logged */
};

/* The default log line shows where the vGPU's BARs go when decoding is on and the place is new:
 * sizing and the decode toggles around it are not news. */
static void log_bar(struct board_pci *p, const struct vpci_bar_event *ev)
{
    const struct vm *vm = p->vm;
    if (!ev->decode || ev->dev != VGPU_PCI_DEV || p->shown[ev->bar] == ev->base)
        return;
    p->shown[ev->bar] = ev->base;
    log_info("guest %u (%s): PCI 00:%02x.%u BAR%u at %#llx (%s, %#llx bytes)", vm->id,
             vm->cfg->name, ev->dev, ev->fn, ev->bar, (unsigned long long)ev->base,
             ev->io ? "I/O" : "memory", (unsigned long long)ev->size);
}

/* Places the region behind a memory BAR where the guest put it (nowhere while decoding is off),
 * or says why not; false when no region follows that BAR. */
static bool place_bar(struct board_pci *p, const struct vpci_bar_event *ev)
{
    struct vm *vm = p->vm;
    struct io_mmio *r = ev->io ? NULL : io_bus_find_bar(&vm->io, ev->dev, ev->fn, ev->bar);
    if (!r)
        return false;
    const struct io_mmio *other;
    int rc = io_bus_place(&vm->io, r, ev->decode ? ev->base : IO_UNPLACED, &other);
    if (rc == IO_E_OVERLAP)
        log_warn(
            "guest %u (%s): PCI 00:%02x.%u BAR%u at %#llx refused: it overlaps %s at %#llx+%#llx; "
            "%s decodes nowhere until it is moved",
            vm->id, vm->cfg->name, ev->dev, ev->fn, ev->bar, (unsigned long long)ev->base,
            other->name, (unsigned long long)other->base, (unsigned long long)other->size, r->name);
    else if (rc == IO_E_WINDOW || rc == IO_E_ALIGN)
        log_warn(
            "guest %u (%s): PCI 00:%02x.%u BAR%u at %#llx+%#llx refused: %s [%#llx, %#llx); %s decodes "
            "nowhere until it is moved",
            vm->id, vm->cfg->name, ev->dev, ev->fn, ev->bar, (unsigned long long)ev->base,
            (unsigned long long)ev->size,
            rc == IO_E_WINDOW ? "outside its MMIO window"
                              : "not on a page boundary of its MMIO window",
            (unsigned long long)vm->io.window_lo, (unsigned long long)vm->io.window_hi, r->name);
    else
        log_bar(p, ev);
    return true;
}

static void bar_event(void *ctx, const struct vpci_bar_event *ev)
{
    struct board_pci *p = ctx;
    if (!place_bar(p, ev))
        log_bar(p, ev);
}

/* ---- the configuration mechanism's ports ---- */

static enum io_status cfg_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    struct board_pci *p = ctx;
    /* Without a bus (it could not be built) the ports behave as unclaimed ones. */
    if (!p->present || !vpci_claims_port(port, size))
        return IO_UNCLAIMED;
    *value = vpci_io_read(&p->bus, port, size);
    return IO_DONE;
}

static enum io_status cfg_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct board_pci *p = ctx;
    if (!p->present || !vpci_claims_port(port, size))
        return IO_UNCLAIMED;
    vpci_io_write(&p->bus, port, size, value);
    return IO_DONE;
}

/* ---- the device ---- */

static bool pci_init(struct vm *vm, void *ctx)
{
    struct board_pci *p = ctx;
    /* CONFIG_ADDRESS is a 32-bit register at 0xCF8: byte accesses to 0xCF9 are the chipset's
     * reset control, another device's. */
    return board_add_ports(vm, &(struct io_ports){ PCI_CONFIG_ADDRESS, 1, cfg_in, cfg_out, p,
                                                   "PCI CONFIG_ADDRESS" }) &&
           board_add_ports(vm, &(struct io_ports){ PCI_CONFIG_DATA, PCI_CONFIG_DATA_PORTS, cfg_in,
                                                   cfg_out, p, "PCI CONFIG_DATA" });
}

/* Every start: the bus as a reset chipset has it, and the regions behind its BARs back at the
 * default places. */
static bool pci_start(struct vm *vm, void *ctx)
{
    struct board_pci *p = ctx;
    /* The aperture BAR spans the whole aperture the GGTT layout assumes: guest graphics
     * addresses equal host ones (docs/vgpu-abi.md), so a guest's low window sits at its own
     * offset inside it and the rest is ballooned out. */
    uint32_t aperture_mib = active_config.cfg.appliance.aperture_mib;
    int e = vgpu_pci_build(&p->bus, aperture_mib);
    if (e == VPCI_OK && vm->cfg->vgpu == CFG_VGPU_I915)
        e = vgpu_pci_add_msi(&p->bus); /* i915 takes its interrupts as MSI */
    if (e == VPCI_OK && vm->cfg->vgpu_display == CFG_DISPLAY_DP)
        e = vgpu_pci_add_display(&p->bus, LINUX_OPREGION_GPA); /* OpRegion (VBT) and a PCH */
    p->present = e == VPCI_OK;
    if (!p->present) {
        log_warn(
            "guest %u (%s): no virtual PCI bus: %s (aperture %u MiB, aperture window at most %llu MiB)",
            vm->id, vm->cfg->name, vpci_strerror(e), aperture_mib,
            (unsigned long long)(VGPU_BAR2_MAX_SIZE >> 20));
        return true; /* it runs without one, as on a board with no PCI */
    }
    for (unsigned i = 0; i < p->bus.n_funcs; i++) {
        const struct vpci_func *f = &p->bus.func[i];
        bool mem = vpci_cfg_read(&p->bus, 0, f->dev, f->fn, PCI_COMMAND, 2) & PCI_COMMAND_MEMORY;
        for (unsigned b = 0; b < PCI_MAX_BARS; b++) {
            struct vpci_bar_event ev = { f->dev, f->fn,          b,  f->bar[b].kind == VPCI_BAR_IO,
                                         0,      f->bar[b].size, mem };
            if (f->bar[b].kind == VPCI_BAR_NONE ||
                vpci_bar_base(&p->bus, f->dev, f->fn, b, &ev.base) != VPCI_OK)
                continue;
            if (f->dev == VGPU_PCI_DEV)
                p->shown[b] = ev.base;
            place_bar(p, &ev);
        }
    }
    vpci_set_bar_callback(&p->bus, bar_event, p);
    return true;
}

static void pci_stats(const struct vm *vm, void *ctx, char *buf, size_t len)
{
    const struct board_pci *p = ctx;
    if (!p->present)
        snprintf(buf, len, "no bus (the aperture does not fit the vGPU's BAR)");
    else
        snprintf(buf, len, "bus 0 with %u functions; %llu BAR placements, %llu refused",
                 p->bus.n_funcs, (unsigned long long)vm->io.moves,
                 (unsigned long long)vm->io.refused);
}

bool board_pci_attach(struct vm *vm)
{
    struct board_pci *p = calloc(1, sizeof *p);
    if (!p) {
        vm_stop(vm, VM_FAILED, "no memory for its virtual PCI bus");
        return false;
    }
    p->vm = vm;
    if (vm_add_device(vm, &(struct vm_device){ .name = "pci",
                                               .ctx = p,
                                               .init = pci_init,
                                               .start = pci_start,
                                               .stats = pci_stats }))
        /* cppcheck-suppress memleak ; the VM keeps it, the device's context for its whole life */
        return true;
    free(p); /* the guest never starts: nothing reaches it */
    return false;
}

struct vpci *board_pci(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_devices; i++)
        if (vm->devices[i].start == pci_start) {
            struct board_pci *p = vm->devices[i].ctx;
            return p->present ? &p->bus : NULL;
        }
    return NULL;
}
