/* A guest's local APIC, emulated in x2APIC mode only: every register is an MSR (0x800-0x8FF),
 * reached through RDMSR/WRMSR exits; there is no xAPIC MMIO page.  Pure: no hardware access,
 * time comes in as TSC values (`now`), and nothing here knows about VMX.
 *
 * What it models (Intel SDM Vol. 3A chapter 11, "APIC"; chapter 10 in editions before 2023):
 * ID, VERSION, TPR/PPR, EOI, LDR, SVR, ISR/TMR/IRR, ESR, ICR (the IPI written is handed to the
 * guest's router, vmm/vdev/vipi.h, which knows the other vCPUs), SELF_IPI, the seven LVT
 * entries, and the timer in its three modes (one-shot, periodic, TSC-deadline through
 * IA32_TSC_DEADLINE).  The APIC timer's input clock is the TSC (tsc_per_tick TSC ticks per
 * clock, before the divider).  vCPU n has x2APIC ID n; ID 0 is the bootstrap processor.  Not
 * modelled: NMI and SMI delivery (counted in `ignored_ipis`), level-triggered interrupts (TMR
 * stays 0), leaving x2APIC mode (refused, see vlapic_write_apic_base).
 *
 * The VMX side (vmm/vcpu/inject.c) calls vlapic_advance() before every VM entry, asks
 * vlapic_pending() / vlapic_ack() what to inject, and programs the preemption timer from
 * vlapic_next_timer(). */
#ifndef TESSERA_VMM_VDEV_VLAPIC_H
#define TESSERA_VMM_VDEV_VLAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/apic_regs.h"

enum vlapic_lvt {
    VLAPIC_LVT_CMCI,
    VLAPIC_LVT_TIMER,
    VLAPIC_LVT_THERMAL,
    VLAPIC_LVT_PERF,
    VLAPIC_LVT_LINT0,
    VLAPIC_LVT_LINT1,
    VLAPIC_LVT_ERROR,
    VLAPIC_LVT_COUNT
};

/* VERSION: an integrated APIC with 7 LVT entries (CMCI is the 7th, so max LVT index 6). */
#define VLAPIC_VERSION \
    (LAPIC_VERSION_INTEGRATED | ((VLAPIC_LVT_COUNT - 1u) << LAPIC_VERSION_MAXLVT_SHIFT))
#define VLAPIC_NO_TIMER UINT64_MAX /* vlapic_next_timer: nothing armed */

enum vlapic_result {
    VLAPIC_OK,
    VLAPIC_GP,            /* the access raises #GP(0) in the guest, as the CPU would */
    VLAPIC_XAPIC_REFUSED, /* the guest left x2APIC mode: not emulated (VLAPIC_XAPIC_REASON) */
    VLAPIC_IPI_SENT,      /* done, and the ICR write sent the IPI in `ipi`: route it (vipi.h) */
};

/* An IPI as written to the ICR (§11.6.1 Figure 11-12; §11.12.9: in x2APIC mode one 64-bit
 * write, the destination in bits 63:32, no delivery-status bit). */
struct vlapic_ipi {
    uint32_t mode;      /* LAPIC_ICR_FIXED ... LAPIC_ICR_STARTUP */
    uint32_t shorthand; /* LAPIC_ICR_DEST_FIELD, _SELF, _ALL_INCLUDING, _ALL_EXCLUDING */
    uint32_t dest;      /* with LAPIC_ICR_DEST_FIELD: an x2APIC ID, or cluster << 16 | bitmap */
    uint8_t vector;
    bool logical;
    bool level_deassert; /* level-triggered with level 0: an INIT de-assert */
};
#define VLAPIC_XAPIC_REASON \
    "left x2APIC mode: the xAPIC (MMIO) mode is not emulated; boot Linux with noapic"

enum vlapic_msi_result {
    VLAPIC_MSI_DELIVERED,
    VLAPIC_MSI_BAD_ADDRESS,      /* not in the 0xFEExxxxx interrupt window */
    VLAPIC_MSI_NOT_FOR_US,       /* destination names another APIC */
    VLAPIC_MSI_UNSUPPORTED_MODE, /* delivery mode other than fixed or lowest priority */
    VLAPIC_MSI_ILLEGAL_VECTOR,   /* vector 0-15: refused, ESR records it */
    VLAPIC_MSI_APIC_DISABLED,    /* the guest has software-disabled its APIC */
};

struct vlapic {
    uint64_t apic_base; /* IA32_APIC_BASE */
    uint32_t id;        /* x2APIC ID */
    uint32_t tpr, svr;
    uint32_t esr, esr_pending; /* ESR as last latched, errors since the last ESR write */
    uint64_t icr;
    uint32_t lvt[VLAPIC_LVT_COUNT];
    uint32_t irr[LAPIC_VECTOR_REGS], isr[LAPIC_VECTOR_REGS], tmr[LAPIC_VECTOR_REGS];
    uint32_t tmict, tdcr;
    uint64_t expiry;       /* one-shot/periodic: TSC when the count next reaches 0; 0 = stopped */
    uint64_t tsc_deadline; /* TSC-deadline mode: IA32_TSC_DEADLINE, 0 = disarmed */
    uint32_t tsc_per_tick; /* TSC ticks per timer input clock, before the divider */
    uint64_t timer_irqs;   /* timer interrupts raised (counted, masked ones excluded) */
    uint64_t ignored_ipis; /* IPIs that reached it with a mode not modelled or not valid */
    struct vlapic_ipi ipi; /* the last IPI sent (valid after VLAPIC_IPI_SENT) */
};

/* The state the guest starts with: x2APIC mode (IA32_APIC_BASE = 0xFEE00000 | BSP | EN | EXTD),
 * software-enabled with spurious vector 0xFF, LINT0 as ExtINT and LINT1 as NMI (the virtual
 * wire mode firmware leaves), other LVTs masked, the timer stopped. */
void vlapic_reset(struct vlapic *l, uint32_t tsc_per_tick);
/* The APIC of vCPU `id`: x2APIC ID `id`, the BSP flag in IA32_APIC_BASE only on ID 0.  After
 * vlapic_reset, or after an INIT (which keeps the ID). */
void vlapic_set_id(struct vlapic *l, uint32_t id);
/* An INIT's reset of the APIC (§11.4.7.3 "Local APIC State After an INIT Reset"): the state
 * vlapic_reset gives, the ID and x2APIC mode kept. */
void vlapic_init_reset(struct vlapic *l);
/* Whether an IPI or MSI with destination `dest` (physical or logical, §11.12.10) names it. */
bool vlapic_is_destination(const struct vlapic *l, uint32_t dest, bool logical);

/* True for the MSRs this device answers: IA32_APIC_BASE, IA32_TSC_DEADLINE, 0x800-0x8FF. */
bool vlapic_owns_msr(uint32_t msr);
/* RDMSR / WRMSR of one of those MSRs at TSC `now`. */
enum vlapic_result vlapic_rdmsr(struct vlapic *l, uint32_t msr, uint64_t now, uint64_t *value);
enum vlapic_result vlapic_wrmsr(struct vlapic *l, uint32_t msr, uint64_t value, uint64_t now);

/* Raises `vector` (fixed, edge) as from an IPI, MSI or LVT: sets its IRR bit.  Vectors 0-15
 * are refused with "receive illegal vector" in the ESR (and the error LVT, if unmasked).
 * Dropped while the APIC is software-disabled. */
void vlapic_accept(struct vlapic *l, uint8_t vector);
/* Delivers an MSI (PCI MSI capability message: address 0xFEExxxxx, data = vector and mode). */
enum vlapic_msi_result vlapic_deliver_msi(struct vlapic *l, uint64_t addr, uint32_t data);

/* Runs the timer up to TSC `now`: an expiry on the way raises the LVT timer vector once. */
void vlapic_advance(struct vlapic *l, uint64_t now);
/* The TSC at which the timer will next raise an interrupt, or VLAPIC_NO_TIMER. */
uint64_t vlapic_next_timer(const struct vlapic *l);

/* The highest requested vector whose priority class is above the PPR, or -1. */
int vlapic_pending(const struct vlapic *l);
/* Moves `vector` from IRR to ISR: the vCPU has taken it. */
void vlapic_ack(struct vlapic *l, uint8_t vector);
uint32_t vlapic_ppr(const struct vlapic *l);
/* LINT0 takes an 8259's INTR: its LVT entry is unmasked and in ExtINT mode (the APIC is never
 * globally disabled here, see vlapic_wrmsr of IA32_APIC_BASE). */
bool vlapic_accepts_extint(const struct vlapic *l);

#endif
