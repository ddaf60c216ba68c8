/* Guests: the fixed set from the vendor configuration, each with its own RAM (EPT-backed, never
 * shared), one vCPU with its local APIC, an 8259 pair, a virtual UART on IRQ 4, and per-reason
 * exit counters. */
#ifndef TESSERA_VMM_VM_H
#define TESSERA_VMM_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "arch/x86/vmx_exit_reasons.h"
#include "arch/x86/vmx/pure/ept.h"
#include "config/config.h"
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

struct linux_guest;                 /* vmm/loader/linux_guest.h */

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
    struct linux_guest *linux_guest;     /* what only a Linux guest has; NULL for the others */

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
};

/* Prepares every configured guest (virtual UART, memory is taken when it starts) and starts
 * those marked autostart.  Needs VT-x (vmx_setup) and a valid configuration. */
void vm_init_all(const struct cfg *cfg);
unsigned vm_count(void);
struct vm *vm_get(unsigned id);
/* By id ("2") or name ("kiosk2"); NULL if there is none. */
struct vm *vm_lookup(const char *id_or_name);

/* Loads the image afresh and starts the vCPU from its entry point. */
bool vm_start(struct vm *vm);
void vm_stop(struct vm *vm, enum vm_state state, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *vm_state_name(enum vm_state s);

static inline bool vm_is_linux(const struct vm *vm) { return vm->cfg->kind == CFG_GUEST_LINUX; }
/* Raises an MSI (PCI MSI message: address 0xFEExxxxx, data = vector and delivery mode) in the
 * guest's local APIC, for a device model such as the vGPU.  False when it could not be
 * delivered (the guest is not running, or the message is not one its APIC takes: the first such
 * refusal per start is logged with the reason).  A halted vCPU wakes at the next round. */
bool vm_deliver_msi(struct vm *vm, uint64_t addr, uint32_t data);

/* Guest-physical to host pointer for [gpa, gpa + len) inside guest RAM, else NULL. */
void *vm_gpa_ptr(const struct vm *vm, uint64_t gpa, uint64_t len);

#endif
