/*
 * The vGPU's GT interrupt controller, as an i915 guest drives it (i915 6.1 i915_irq.c
 * gen8_irq_handler(), gen8_irq_reset(), gen8_irq_postinstall(); gt/intel_gt_irq.c
 * gen8_gt_irq_handler(), gen8_gt_irq_postinstall(); GVT-g gvt/interrupt.c).
 *
 * Registers (offsets in drivers/igpu/gen9_regs.h):
 *  - GEN9_GT_IIR/IMR/IER(bank), four banks: RCS in bank 0 bits 15:0, BCS bank 0 bits 31:16,
 *    VCS0 bank 1 bits 15:0, VECS bank 3 bits 15:0 (igpu_engine_irq()).  An engine event is
 *    latched in IIR unless IMR masks it; writing 1s to IIR clears them; GT_ISR reads 0 (no
 *    level is ever held: every event here is an edge).
 *  - RING_IMR of each engine: i915 writes the engine's bits at their bank position
 *    (gen8_logical_ring_enable_irq(): ~(irq_enable_mask | irq_keep_mask), both shifted), and an
 *    event masked there never reaches the GT registers.  Its value after reset is 0 (nothing
 *    masked): i915 6.1 never programs it before the first breadcrumb wait, and GVT-g does not
 *    gate on it at all, so nothing an i915 relies on is lost before then.
 *  - GEN9_MASTER_IRQ: bit 31 is the only writable bit; reads return it with the summary bits
 *    (RCS 0, BCS 1, VCS0 2, VCS1 3, PM 4, GuC 5, VECS 6) of the banks with a pending bit, and
 *    the display's (16 pipe A, 20 port, 22 misc, 23 PCH) as the display model says them
 *    (vgt_irq_set_display(); vmm/vgpu/i915/display/vdisp_irq.h).
 * "Pending" is IIR & IER & ~IMR.  The interrupt is an MSI, an edge: one is sent when the line
 * (master enabled and something pending) goes from low to high.  i915's handler disables
 * master, reads and clears the IIRs, re-enables master: if anything is still (or again)
 * pending then, the line rises again and another MSI is sent.
 *
 * Pure: the caller turns "send an MSI" into vm_deliver_msi() with the vGPU's MSI address/data
 * (and only if the guest enabled MSI in config space).
 */
#ifndef TESSERA_VMM_VGT_VGT_IRQ_H
#define TESSERA_VMM_VGT_VGT_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

struct vgt_irq_stats {
    uint64_t events;      /* engine event bits offered */
    uint64_t masked_ring; /* ... dropped by RING_IMR */
    uint64_t masked_gt;   /* ... not latched because GT IMR masks them */
    uint64_t msi;         /* MSIs asked for */
};

struct vgt_irq {
    uint32_t iir[GEN9_GT_IRQ_BANKS];
    uint32_t imr[GEN9_GT_IRQ_BANKS];
    uint32_t ier[GEN9_GT_IRQ_BANKS];
    uint32_t ring_imr[IGPU_NUM_GT_ENGINES];
    uint32_t master;  /* GEN9_MASTER_IRQ_CONTROL or 0 */
    uint32_t display; /* the display's summary bits (GEN9_MASTER_DE_*) */
    bool line;        /* the interrupt line as last computed */
    struct vgt_irq_stats st;
};

/* Creation: counters zero, then the reset state. */
void vgt_irq_init(struct vgt_irq *q);
/* Device reset: master off, GT IMR all masked, IER and IIR clear, RING_IMR clear (the counters
 * keep counting). */
void vgt_irq_reset(struct vgt_irq *q);

/* Engine e raised `bits` (GEN9_GT_* bits, unshifted: GEN9_GT_USER_INTERRUPT,
 * GEN9_GT_CONTEXT_SWITCH, ...).  True: send an MSI now. */
bool vgt_irq_event(struct vgt_irq *q, enum igpu_engine e, uint32_t bits);

/* Whether off is one of the controller's registers. */
bool vgt_irq_owns(uint32_t off);
/* Read one of its registers (0 for an offset it does not own). */
uint32_t vgt_irq_read(const struct vgt_irq *q, uint32_t off);
/* Write one of its registers.  True: send an MSI now. */
bool vgt_irq_write(struct vgt_irq *q, uint32_t off, uint32_t val);

/* The display's banks now have these summary bits pending.  True: send an MSI now. */
bool vgt_irq_set_display(struct vgt_irq *q, uint32_t summary);

/* The summary bits GEN9_MASTER_IRQ reads with (without the control bit). */
uint32_t vgt_irq_summary(const struct vgt_irq *q);

#endif /* TESSERA_VMM_VGT_VGT_IRQ_H */
