/* Guests: the fixed set from the vendor configuration, each with its own RAM (EPT-backed, never
 * shared), its vCPUs (vmm/vcpu/vcpu.h: a VMCS, registers, local APIC and exit counters each; one
 * for a Tessera guest, one or more for a Linux guest), an 8259 pair behind its first vCPU and a
 * virtual UART on IRQ 4.
 *
 * A VM owns its I/O bus (vmm/io/io_bus.h) and the devices registered on it: the composition root
 * (vmm/main.c) attaches the board every guest has (vmm/board/) and the vGPU, each device with
 * hooks the lifecycle calls (init once, start on every start, stop, stats for the shell).  A
 * guest's image is loaded by the loader registered for its kind (Tessera or Linux), and its vCPU
 * is created and reset through the CPU interface the composition root registers.  So this file
 * calls hooks, never device, loader or VMX code. */
#ifndef TESSERA_VMM_VM_H
#define TESSERA_VMM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/vmx/pure/ept.h"
#include "config/config.h"
#include "vmm/io/io_bus.h"
#include "vmm/vdev/vpic.h"
#include "vmm/vdev/vuart.h"

enum vm_state {
    VM_STOPPED, /* not running: never started, or `vm stop` */
    VM_RUNNING,
    VM_FAILED,  /* could not be started (bad or missing image, no memory): reason */
    VM_CRASHED, /* stopped by the hypervisor for what it did: reason */
    VM_EXITED,  /* the guest asked to stop (hypercall) */
};

/* How the vCPU starts, as the guest's loader decided (vmcs_setup writes it into the VMCS). */
struct vm_boot_state {
    uint64_t rip, rsp, rsi;
    uint16_t cs, ds; /* selectors in the GDT at gdt_base */
    uint64_t gdt_base;
    uint16_t gdt_limit;
};

struct vm;
struct lfb;  /* vmm/display/linux_fb.h */
struct vcpu; /* vmm/vcpu/vcpu.h */

/* The guest's CPU (vmm/vcpu/ implements it: vcpu_ops).  Both false with vm->reason set. */
struct vm_cpu_ops {
    /* When the guest is created: vm->vcpus, and where the guest's MMIO may be placed. */
    bool (*create)(struct vm *vm);
    /* Every start, once the image is loaded: the vCPUs at reset, the first entering at vm->boot,
     * the others waiting for the first to start them (INIT and STARTUP IPIs). */
    bool (*start)(struct vm *vm);
    /* With the hypervisor lock held: the vCPUs are out of the guest, and stay out until the lock
     * is let go (their CPUs may be others).  Before the guest's memory or devices change under
     * it: a stop, a restart. */
    void (*hold)(struct vm *vm);
    /* The guest's EPT changed: no CPU keeps a translation from before it once this returns. */
    void (*ept_flush)(struct vm *vm);
};

/* A device on a guest's board, registered with vm_add_device.  Every hook may be NULL. */
struct vm_device {
    const char *name;
    void *ctx;
    /* Once, when it is registered: false with vm->reason set leaves the guest failed. */
    bool (*init)(struct vm *vm, void *ctx);
    /* Every start, before the image is loaded (RAM and EPT exist, the vCPU is not set up yet):
     * back to power-on state.  False with vm->reason set: the guest does not start. */
    bool (*start)(struct vm *vm, void *ctx);
    /* Every start, after the loader (which clears the guest's RAM) and before the vCPU: what
     * firmware leaves in guest memory for the device's driver (an OpRegion).  False with
     * vm->reason set: the guest does not start. */
    bool (*loaded)(struct vm *vm, void *ctx);
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
    const void *initrd; /* NULL without one */
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
    uint64_t count;         /* lives begun (starts that succeeded) */
    uint64_t free_at_start; /* the page allocator's free pages once the last start was done */
    uint64_t free_at_end;   /* ... when that life ended (valid with ended) */
    bool ended;
};

struct vm {
    unsigned id;
    const struct cfg_guest *cfg;
    enum vm_state state;
    char reason[200]; /* why it is not running */

    uint64_t ram_hpa, ram_bytes; /* guest-physical [0, ram_bytes) -> host [ram_hpa, ...) */
    struct ept ept;
    bool ept_ready;
    struct vcpu *vcpus[CFG_VCPUS_MAX]; /* vcpus[i] has x2APIC ID i; vcpus[0] is the BSP */
    unsigned n_vcpus;                  /* cfg->cpus.n, or 0 when they could not be created */
    struct vm_boot_state boot;

    struct io_bus io; /* its ports and MMIO regions */
    struct vm_device devices[VM_MAX_DEVICES];
    unsigned n_devices;
    bool board_failed; /* a device could not be set up: it is never started */
    struct lfb *lfb;   /* a linear framebuffer on its board (a Linux guest's), or NULL */

    struct vuart uart;
    struct vpic pic; /* 8259A pair behind its first vCPU's LINT0; the UART drives IRQ 4 */
    uint64_t started_ns;
    uint64_t slice_ns; /* a vCPU's time slice: the configured one scaled by its weight */
    uint64_t boot_count;
    struct vm_life life;
};

/* The guests' CPU (vcpu_ops, vmm/vcpu/vcpu.h), registered before vm_init_all. */
void vm_set_cpu(const struct vm_cpu_ops *ops);
/* Creates every configured guest with its vCPU and an empty bus (memory is taken when it
 * starts).  Needs the CPU registered and a valid configuration.  Devices are attached next,
 * then vm_autostart_all starts the guests marked autostart. */
void vm_init_all(const struct cfg *cfg);
void vm_autostart_all(void);
unsigned vm_count(void);
struct vm *vm_get(unsigned id);
/* By id ("2") or name ("kiosk2"); NULL if there is none. */
struct vm *vm_lookup(const char *id_or_name);

/* Loads the image afresh and starts the vCPU from its entry point (a running guest is
 * restarted: its life ends first). */
bool vm_start(struct vm *vm);
void vm_stop(struct vm *vm, enum vm_state state, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *vm_state_name(enum vm_state s);

static inline bool vm_is_linux(const struct vm *vm)
{
    return vm->cfg->kind == CFG_GUEST_LINUX;
}

/* The loader for guests of l->kind (the composition root registers one per kind); false when
 * there is no room. */
bool vm_add_loader(const struct guest_loader *l);
/* Registers a device (its init hook runs now).  False when there is no room or init failed:
 * the guest is then failed, with the reason, and never starts. */
bool vm_add_device(struct vm *vm, const struct vm_device *d);
/* Raises an MSI (PCI MSI message: address 0xFEExxxxx, data = vector and delivery mode) in the
 * guest's local APIC, for a device model such as the vGPU.  False when it could not be
 * delivered (the guest is not running, or the message is not one its APIC takes: the first such
 * refusal per start is logged with the reason).  A halted vCPU wakes at the next round. */
bool vm_deliver_msi(struct vm *vm, uint64_t addr, uint32_t data);

/* After changing a running guest's EPT (vm_cpu_ops.ept_flush). */
void vm_ept_flush(struct vm *vm);

/* Guest-physical to host pointer for [gpa, gpa + len) inside guest RAM, else NULL. */
void *vm_gpa_ptr(const struct vm *vm, uint64_t gpa, uint64_t len);

#endif
