/* Port I/O: every IN and OUT exits.  COM1 is the guest's virtual UART; the 8259 ports (0x20,
 * 0x21, 0xA0, 0xA1, ELCR 0x4D0/0x4D1) its interrupt controllers; CONFIG_ADDRESS (0xCF8, 32-bit)
 * and CONFIG_DATA (0xCFC..0xCFF) reach the guest's virtual PCI bus (vmm/vpci); every other port
 * reads as all ones and ignores writes, as an empty ISA bus does. */
#include "vmm/vcpu/exit.h"
#include "vmm/config_boot.h"

#include "arch/x86/vmx_controls.h"
#include "tessera/abi/guest.h"
#include "vmm/log.h"
#include "vmm/vcpu/exit_linux.h"
#include "vmm/vpci/vgpu_pci.h"
#include "vmm/loader/linux_layout.h"
#include "vmm/vpci/vpci_guest.h"

#include <stdlib.h>

#define COM_PORTS 8

/* ---- One virtual PCI bus per guest (vpci_guest.h) ---- */

static struct guest_bus {
    struct vpci *bus;
    uint64_t boot_count;        /* the guest start the bus was built for */
    bool refused;               /* could not be built; said so once */
    uint64_t shown[PCI_MAX_BARS];   /* the vGPU's BAR bases as last logged */
} guest_bus[TESSERA_MAX_GUESTS];
static vpci_guest_bar_hook bar_hook;

/* The default hook logs where the vGPU's BARs go when decoding is on and the place is new:
 * sizing and the decode toggles around it are not news. */
static void log_bar(unsigned guest_id, const struct vpci_bar_event *ev)
{
    struct vm *vm = vm_get(guest_id);
    struct guest_bus *g = &guest_bus[guest_id];
    if (!ev->decode || !vm || ev->dev != VGPU_PCI_DEV || g->shown[ev->bar] == ev->base)
        return;
    g->shown[ev->bar] = ev->base;
    log_info("guest %u (%s): PCI 00:%02x.%u BAR%u at %#llx (%s, %#llx bytes)", guest_id,
             vm->cfg->name, ev->dev, ev->fn, ev->bar, (unsigned long long)ev->base,
             ev->io ? "I/O" : "memory", (unsigned long long)ev->size);
}

static void bar_event(void *ctx, const struct vpci_bar_event *ev)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    log_bar(id, ev);
    if (bar_hook)
        bar_hook(id, ev);
}

void vpci_guest_set_bar_hook(vpci_guest_bar_hook hook) { bar_hook = hook; }

struct vpci *vpci_of(unsigned guest_id)
{
    struct vm *vm = vm_get(guest_id);
    if (!vm || guest_id >= TESSERA_MAX_GUESTS)
        return NULL;
    struct guest_bus *g = &guest_bus[guest_id];
    if (g->bus && g->boot_count == vm->boot_count)
        return g->bus;
    if (g->refused && g->boot_count == vm->boot_count)
        return NULL;
    g->boot_count = vm->boot_count;
    if (!g->bus && !(g->bus = malloc(sizeof *g->bus))) {
        g->refused = true;
        log_warn("guest %u (%s): no memory for its virtual PCI bus", guest_id, vm->cfg->name);
        return NULL;
    }
    /* The aperture BAR spans the whole aperture the GGTT layout assumes: guest graphics
     * addresses equal host ones (DESIGN.md §5), so a guest's low window sits at its own
     * offset inside it and the rest is ballooned out. */
    uint32_t aperture_mib = active_config.cfg.appliance.aperture_mib;
    int e = vgpu_pci_build(g->bus, aperture_mib);
    if (e == VPCI_OK && vm->cfg->vgpu == CFG_VGPU_I915)
        e = vgpu_pci_add_msi(g->bus);   /* i915 takes its interrupts as MSI */
    if (e == VPCI_OK && vm->cfg->vgpu_display == CFG_DISPLAY_DP)
        e = vgpu_pci_add_display(g->bus, LINUX_OPREGION_GPA);  /* OpRegion (VBT) and a PCH */
    if (e != VPCI_OK) {
        free(g->bus);
        g->bus = NULL;
        g->refused = true;
        log_warn("guest %u (%s): no virtual PCI bus: %s (aperture %u MiB, aperture window at "
                 "most %llu MiB)", guest_id, vm->cfg->name, vpci_strerror(e), aperture_mib,
                 (unsigned long long)(VGPU_BAR2_MAX_SIZE >> 20));
        return NULL;
    }
    g->refused = false;
    for (unsigned b = 0; b < PCI_MAX_BARS; b++)
        if (vpci_bar_base(g->bus, VGPU_PCI_DEV, VGPU_PCI_FN, b, &g->shown[b]) != VPCI_OK)
            g->shown[b] = 0;
    vpci_set_bar_callback(g->bus, bar_event, (void *)(uintptr_t)guest_id);
    return g->bus;
}

enum exit_action exit_io(struct vm *vm, const struct exit_info *x)
{
    uint64_t q = x->qualification;
    unsigned size = (unsigned)(q & IO_QUAL_SIZE_MASK) + 1;
    unsigned port = (unsigned)(q >> IO_QUAL_PORT_SHIFT) & 0xFFFF;
    bool in = q & IO_QUAL_IN;
    if (q & IO_QUAL_STRING) {
        vm_stop(vm, VM_CRASHED, "string I/O (%s) on port %#x at RIP %#llx is not supported",
                in ? "INS" : "OUTS", port, (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    uint64_t *rax = &vm->gprs.gpr[GPR_RAX];
    enum exit_action platform;
    if (vm->linux_guest && exit_linux_io(vm, x, port, size, in, rax, &platform))
        return platform;
    uint64_t mask = size == 4 ? 0xFFFFFFFFULL : (1ULL << (8 * size)) - 1;
    bool uart = port >= TESSERA_GUEST_CONSOLE_PORT && port < TESSERA_GUEST_CONSOLE_PORT + COM_PORTS;
    bool pic = size == 1 && vpic_claims_port((uint16_t)port);
    /* Without a bus (it could not be built) the ports behave as unclaimed ones. */
    struct vpci *pci = vpci_claims_port((uint16_t)port, size) ? vpci_of(vm->id) : NULL;
    if (in) {
        uint64_t v = uart && size == 1 ? vuart_read(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT)
                   : pic ? vpic_read(&vm->pic, (uint16_t)port)
                   : pci ? vpci_io_read(pci, (uint16_t)port, size) : mask;
        /* IN to AL/AX keeps the rest of RAX; IN to EAX zeroes the upper half (SDM IN). */
        *rax = size == 4 ? (v & mask) : ((*rax & ~mask) | (v & mask));
    } else if (uart && size == 1) {
        vuart_write(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT, (uint8_t)*rax);
    } else if (pic) {
        vpic_write(&vm->pic, (uint16_t)port, (uint8_t)*rax);
    } else if (pci) {
        vpci_io_write(pci, (uint16_t)port, size, (uint32_t)(*rax & mask));
    }
    exit_skip_instruction(x);
    return EXIT_RESUME;
}
