/*
 * The vGPU's GT interrupt controller (vgt_irq.h says what it models and why).
 */
#include "vmm/vgpu/i915/vgt/vgt_irq.h"

#include <string.h>

/* Which summary bit of GEN9_MASTER_IRQ each half of each bank drives (i915 i915_reg.h
 * GEN8_GT_*_IRQ; GVT-g gvt/interrupt.c gen8_irq_map[]). */
static const struct {
    unsigned bank;
    uint32_t mask;
    uint32_t summary;
} summary_map[] = {
    { 0, 0x0000FFFFu, GEN9_MASTER_GT_RCS_IRQ },  { 0, 0xFFFF0000u, GEN9_MASTER_GT_BCS_IRQ },
    { 1, 0x0000FFFFu, GEN9_MASTER_GT_VCS0_IRQ }, { 1, 0xFFFF0000u, GEN9_MASTER_GT_VCS1_IRQ },
    { 2, 0x0000FFFFu, GEN9_MASTER_GT_PM_IRQ },   { 2, 0xFFFF0000u, GEN9_MASTER_GT_GUC_IRQ },
    { 3, 0x0000FFFFu, GEN9_MASTER_GT_VECS_IRQ },
};

void vgt_irq_init(struct vgt_irq *q)
{
    memset(q, 0, sizeof *q);
    vgt_irq_reset(q);
}

void vgt_irq_reset(struct vgt_irq *q)
{
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        q->iir[b] = 0;
        q->imr[b] = ~0u;
        q->ier[b] = 0;
    }
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        q->ring_imr[e] = 0;
    q->master = 0;
    q->display = 0;
    q->line = false;
}

static uint32_t pending(const struct vgt_irq *q, unsigned bank)
{
    return q->iir[bank] & q->ier[bank] & ~q->imr[bank];
}

uint32_t vgt_irq_summary(const struct vgt_irq *q)
{
    uint32_t s = 0;
    for (unsigned i = 0; i < sizeof summary_map / sizeof summary_map[0]; i++)
        if (pending(q, summary_map[i].bank) & summary_map[i].mask)
            s |= summary_map[i].summary;
    return s | q->display;
}

/* Recompute the line; true on a rising edge (an MSI is due). */
static bool update_line(struct vgt_irq *q)
{
    bool line = (q->master & GEN9_MASTER_IRQ_CONTROL) && vgt_irq_summary(q) != 0;
    bool rise = line && !q->line;

    q->line = line;
    if (rise)
        q->st.msi++;
    return rise;
}

bool vgt_irq_event(struct vgt_irq *q, enum igpu_engine e, uint32_t bits)
{
    unsigned bank, shift;
    uint32_t b;

    if (!bits || !igpu_engine_irq(e, &bank, &shift))
        return false;
    bits &= 0xFFFFu; /* an engine owns 16 bits of its bank */
    b = bits << shift;
    q->st.events++;
    if (b & q->ring_imr[e]) {
        q->st.masked_ring++;
        b &= ~q->ring_imr[e];
    }
    if (b & q->imr[bank]) {
        q->st.masked_gt++;
        b &= ~q->imr[bank];
    }
    q->iir[bank] |= b;
    return update_line(q);
}

bool vgt_irq_set_display(struct vgt_irq *q, uint32_t summary)
{
    q->display = summary;
    return update_line(q);
}

/* The bank of a GT register at off with first-register offset `reg0`, or -1. */
static int bank_of(uint32_t off, uint32_t reg0)
{
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++)
        if (off == reg0 + 0x10u * b)
            return (int)b;
    return -1;
}

static int ring_imr_engine(uint32_t off)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (off == GEN9_RING_IMR(igpu_engine_base((enum igpu_engine)e)))
            return (int)e;
    return -1;
}

bool vgt_irq_owns(uint32_t off)
{
    return off == GEN9_MASTER_IRQ || bank_of(off, GEN9_GT_ISR(0)) >= 0 ||
           bank_of(off, GEN9_GT_IMR(0)) >= 0 || bank_of(off, GEN9_GT_IIR(0)) >= 0 ||
           bank_of(off, GEN9_GT_IER(0)) >= 0 || ring_imr_engine(off) >= 0;
}

uint32_t vgt_irq_read(const struct vgt_irq *q, uint32_t off)
{
    int b;

    if (off == GEN9_MASTER_IRQ)
        return q->master | vgt_irq_summary(q);
    if ((b = bank_of(off, GEN9_GT_IMR(0))) >= 0)
        return q->imr[b];
    if ((b = bank_of(off, GEN9_GT_IIR(0))) >= 0)
        return q->iir[b];
    if ((b = bank_of(off, GEN9_GT_IER(0))) >= 0)
        return q->ier[b];
    if ((b = ring_imr_engine(off)) >= 0)
        return q->ring_imr[b];
    return 0; /* GT_ISR: no level is held */
}

bool vgt_irq_write(struct vgt_irq *q, uint32_t off, uint32_t val)
{
    int b;

    if (off == GEN9_MASTER_IRQ)
        q->master = val & GEN9_MASTER_IRQ_CONTROL; /* the summary bits are read-only */
    else if ((b = bank_of(off, GEN9_GT_IMR(0))) >= 0)
        q->imr[b] = val;
    else if ((b = bank_of(off, GEN9_GT_IIR(0))) >= 0)
        q->iir[b] &= ~val; /* write 1 to clear */
    else if ((b = bank_of(off, GEN9_GT_IER(0))) >= 0)
        q->ier[b] = val;
    else if ((b = ring_imr_engine(off)) >= 0)
        q->ring_imr[b] = val;
    else
        return false; /* GT_ISR is read-only */
    return update_line(q);
}
