/*
 * The display's interrupt banks as i915 6.1 drives them on Skylake (i915_irq.c
 * gen8_de_irq_postinstall(), gen8_de_irq_handler(), bdw_enable_vblank(), spt_irq_handler();
 * GVT-g gvt/interrupt.c gen8_init_irq()): DE pipe A (vblank bit 0, plane flip-done bits 3 and
 * 4), DE port (AUX channels, never raised: AUX answers inside the write), DE misc, and the
 * PCH's south display bank (port D hotplug, bit 23).  Pipes B and C are fused off.
 *
 * Each bank: ISR (level, read-only: the south bank's reads the monitor's presence), IMR (an
 * event whose bit is set there is not latched: GVT-g propagate_event()), IIR (latched, write 1s
 * to clear), IER.  A bank with IIR & IER drives its GEN8_MASTER_IRQ summary bit (16 pipe A,
 * 20 port, 22 misc, 23 PCH); the master and the MSI edge are the GT controller's (vgt_irq.h),
 * which takes these bits from vdisp_irq_summary().
 *
 * Pure.
 */
#ifndef TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_IRQ_H
#define TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_IRQ_H

#include <stdbool.h>
#include <stdint.h>

enum vdisp_bank {
    VDISP_BANK_PIPE_A,
    VDISP_BANK_PORT,
    VDISP_BANK_MISC,
    VDISP_BANK_PCH,
    VDISP_BANKS
};

struct vdisp_irq_stats {
    uint64_t events, masked; /* event bits offered; of those, not latched (IMR) */
};

struct vdisp_irq {
    uint32_t imr[VDISP_BANKS], iir[VDISP_BANKS], ier[VDISP_BANKS];
    uint32_t pch_isr; /* the south bank's level bits (SDEISR) */
    struct vdisp_irq_stats st;
};

/* After reset: everything masked, nothing latched or enabled, no level. */
void vdisp_irq_reset(struct vdisp_irq *q);
/* Whether off is one of the banks' registers (pipes B and C included: fused, they read 0). */
bool vdisp_irq_owns(uint32_t off);
uint32_t vdisp_irq_read(const struct vdisp_irq *q, uint32_t off);
void vdisp_irq_write(struct vdisp_irq *q, uint32_t off, uint32_t val);
/* Events in a bank: latched in IIR where IMR does not mask them. */
void vdisp_irq_event(struct vdisp_irq *q, enum vdisp_bank b, uint32_t bits);
/* GEN8_MASTER_IRQ's display bits: the banks with IIR & IER. */
uint32_t vdisp_irq_summary(const struct vdisp_irq *q);

#endif
