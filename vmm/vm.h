/* Guests: the fixed set from the vendor configuration, each with its own RAM (EPT-backed, never
 * shared), one vCPU with its local APIC, an 8259 pair, a virtual UART on IRQ 4, and per-reason
 * exit counters.
 *
 * A VM owns its I/O bus (vmm/io/io_bus.h) and the devices registered on it: the composition root
 * (vmm/main.c) attaches the board every guest has (vmm/board/) and the vGPU, each device with
 * hooks the lifecycle calls (init once, start on every start, stop, stats for the shell).  A
 * guest's image is loaded by the loader registered for its kind (Tessera or Linux).  So this
 * file calls hooks, never device code. */
#ifndef TESSERA_VMM_VM_H
#define TESSERA_VMM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "arch/x86/vmx_exit_reasons.h"
#include "arch/x86/vmx/pure/ept.h"
#include "config/config.h"
#include "vmm/io/io_bus.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vdev/vlapic.h"
#include "vmm/vdev/vpic.h"
#include "vmm/vdev/vuart.h"

enum vm_state {
    VM_STOPPED,         /* not running: never started, or `vm stop` */
    VM_RUNNING,
    VM_FAILED,          /* could not be started (bad or missing image, no memory): reason */
    VM_CRASHED,         /* stopped by the hypervisor for what it did: reason */
    VM_EXITED,          /* the guest asked to stop (hypercall) */
};

/* How the vCPU starts, as the guest's loader decided (vmcs_setup writes it into the VMCS). */
struct vm_boot_state {
    uint64_t rip, rsp, rsi;
    uint16_t cs, ds;                /* selectors in the GDT at gdt_base */
    uint64_t gdt_base;
    uint16_t gdt_limit;
};

struct vm;
struct lfb;                         /* vmm/display/linux_fb.h */

/* A device on a guest's board, registered with vm_add_device.  Every hook may be NULL. */
struct vm_device {
    const char *name;
    void *ctx;
    /* Once, when it is registered: false with vm->reason set leaves the guest failed. */
    bool (*init)(struct vm *vm, void *ctx);
    /* Every start, before the image is loaded (RAM and EPT exist, the vCPU is not set up yet):
     * back to power-on state.  False with vm->reason set: the guest does not start. */
    bool (*start)(struct vm *vm, void *ctx);
    /* The guest stopped, crashed, exited or is being restarted. */
    void (*stop)(struct vm *vm, void *ctx);
    /* One line (no newline) of what it did, for the shell's `devices`. */
    void (*stats)(const struct vm *vm, void *ctx, char *buf, size_t len);
};
#define VM_MAX_DEVICES 8u

/* What a guest boots, from its GRUB modules. */
struct guest_image {
    const void *data;
    uint64_t len;
    const void *initrd;             /* NULL without one */
    uint64_t initrd_len;
};

/* How guests of one kind (enum cfg_guest_kind) are loaded. */
struct guest_loader {
    uint32_t kind;
    /* Puts the image into the guest's RAM (it clears the RAM first) and fills vm->boot.  False
     * with one line in vm->reason. */
    bool (*load)(struct vm *vm, const struct guest_image *img);
};
#define VM_MAX_LOADERS 4u

/* The hypervisor's free pages around a guest's lives, so that a leak shows (shell `mem`). */
struct vm_life {
    uint64_t count;                 /* lives begun (starts that succeeded) */
    uint64_t free_at_start;         /* the page allocator's free pages once the last start was done */
    uint64_t free_at_end;           /* ... when that life ended (valid with ended) */
    bool ended;
};

struct vm {
    unsigned id;
    const struct cfg_guest *cfg;
    enum vm_state state;
    char reason[200];               /* why it is not running */

    uint64_t ram_hpa, ram_bytes;    /* guest-physical [0, ram_bytes) -> host [ram_hpa, ...) */
    struct ept ept;
    bool ept_ready;
    uint64_t vmcs_phys, msr_bitmap_phys;
    bool launched;
    uint16_t vpid;

    struct vmx_gprs gprs;
    uint8_t fpu[512] __attribute__((aligned(16)));   /* guest FXSAVE image */
    struct guest_msrs msrs;
    struct vm_boot_state boot;

    struct io_bus io;               /* its ports and MMIO regions */
    struct vm_device devices[VM_MAX_DEVICES];
    unsigned n_devices;
    struct lfb *lfb;                /* a linear framebuffer on its board (a Linux guest's), or NULL */

    struct vuart uart;
    /* The interrupt path (vmm/vcpu/inject.c). */
    struct vlapic lapic;            /* x2APIC, timer on the TSC */
    struct vpic pic;                /* 8259A pair behind LINT0; the UART drives IRQ 4 */
    bool halted;                    /* HLT with interrupts on: off the run queue until one is ready */
    bool irq_window;                /* interrupt-window exiting is on in its VMCS */
    bool msi_refused_said;          /* an undeliverable MSI was logged since the last start */
    uint64_t irqs_injected, events_reinjected;
    uint64_t exits, exit_count[EXIT_REASON_COUNT];
    uint32_t last_exit;
    uint64_t started_ns, run_ns, slice_ns;
    uint64_t boot_count;
    bool yield;                     /* gave up the rest of its slice (HLT, hypercall) */
    /* The run queue (vcpu_run.c). */
    bool wanted_cpu;                /* used its whole slice last round */
    bool woke;                      /* found ready by vcpu_wake_pending, not run since */
    uint64_t round_ns;              /* its vCPU's time in the current round */
    struct vm_life life;
};

/* Creates every configured guest with an empty bus (memory is taken when it starts).  Needs
 * VT-x (vmx_setup) and a valid configuration.  Devices are attached next, then
 * vm_autostart_all starts the guests marked autostart. */
void vm_init_all(const struct cfg *cfg);
void vm_autostart_all(void);
unsigned vm_count(void);
struct vm *vm_get(unsigned id);
/* By id ("2") or name ("kiosk2"); NULL if there is none. */
struct vm *vm_lookup(const char *id_or_name);

/* Loads the image afresh and starts the vCPU from its entry point (a running guest is
 * restarted: its life ends first). */
bool vm_start(struct vm *vm);
void vm_stop(struct vm *vm, enum vm_state state, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *vm_state_name(enum vm_state s);

static inline bool vm_is_linux(const struct vm *vm) { return vm->cfg->kind == CFG_GUEST_LINUX; }

/* The loader for guests of l->kind (the composition root registers one per kind); false when
 * there is no room. */
bool vm_add_loader(const struct guest_loader *l);
/* Registers a device (its init hook runs now).  False when there is no room or init failed:
 * the guest is then failed, with the reason. */
bool vm_add_device(struct vm *vm, const struct vm_device *d);
/* Where MMIO may be placed in this guest: above its RAM, below the top of the guest-physical
 * space its CPU addresses (CPUID.80000008H, within EPT's 48 bits). */
void vm_mmio_window(const struct vm *vm, uint64_t *lo, uint64_t *hi);
/* Raises an MSI (PCI MSI message: address 0xFEExxxxx, data = vector and delivery mode) in the
 * guest's local APIC, for a device model such as the vGPU.  False when it could not be
 * delivered (the guest is not running, or the message is not one its APIC takes: the first such
 * refusal per start is logged with the reason).  A halted vCPU wakes at the next round. */
bool vm_deliver_msi(struct vm *vm, uint64_t addr, uint32_t data);

/* Guest-physical to host pointer for [gpa, gpa + len) inside guest RAM, else NULL. */
void *vm_gpa_ptr(const struct vm *vm, uint64_t gpa, uint64_t len);

#endif
