/*
 * The display's interrupt banks (vdisp_irq.h says what they model and why).
 */
#include "vmm/vgpu/i915/display/vdisp_irq.h"

#include "drivers/igpu/gen9_display.h"

#include <string.h>

#define PIPES 3u /* A, B, C: only A is not fused off */

static const struct {
    uint32_t isr; /* ISR; IMR, IIR, IER follow at +4, +8, +0xC */
    uint32_t summary;
} banks[VDISP_BANKS] = {
    [VDISP_BANK_PIPE_A] = { GEN9_DE_PIPE_ISR(0), GEN9_MASTER_DE_PIPE_IRQ(0) },
    [VDISP_BANK_PORT] = { GEN9_DE_PORT_ISR, GEN9_MASTER_DE_PORT_IRQ },
    [VDISP_BANK_MISC] = { GEN9_DE_MISC_ISR, GEN9_MASTER_DE_MISC_IRQ },
    [VDISP_BANK_PCH] = { GEN9_SDE_ISR, GEN9_MASTER_DE_PCH_IRQ },
};

void vdisp_irq_reset(struct vdisp_irq *q)
{
    struct vdisp_irq_stats st = q->st;
    memset(q, 0, sizeof *q);
    for (unsigned b = 0; b < VDISP_BANKS; b++)
        q->imr[b] = ~0u;
    q->st = st;
}

/* The bank and register (0 ISR .. 3 IER) of off; false if it is none of them. */
static bool locate(uint32_t off, int *bank, unsigned *reg)
{
    for (unsigned b = 0; b < VDISP_BANKS; b++) {
        if (off >= banks[b].isr && off < banks[b].isr + 0x10u && !(off & 3u)) {
            *bank = (int)b;
            *reg = (off - banks[b].isr) / 4u;
            return true;
        }
    }
    if (off >= GEN9_DE_PIPE_ISR(1) && off < GEN9_DE_PIPE_ISR(PIPES) && !(off & 3u)) {
        *bank = -1; /* a fused-off pipe */
        *reg = (off & 0xFu) / 4u;
        return true;
    }
    return false;
}

bool vdisp_irq_owns(uint32_t off)
{
    int b;
    unsigned r;
    return locate(off, &b, &r);
}

uint32_t vdisp_irq_read(const struct vdisp_irq *q, uint32_t off)
{
    int b;
    unsigned r;
    if (!locate(off, &b, &r) || b < 0)
        return 0;
    switch (r) {
    case 0:
        return b == VDISP_BANK_PCH ? q->pch_isr : 0;
    case 1:
        return q->imr[b];
    case 2:
        return q->iir[b];
    default:
        return q->ier[b];
    }
}

void vdisp_irq_write(struct vdisp_irq *q, uint32_t off, uint32_t val)
{
    int b;
    unsigned r;
    if (!locate(off, &b, &r) || b < 0)
        return;
    switch (r) {
    case 0:
        break; /* ISR is read-only */
    case 1:
        q->imr[b] = val;
        break;
    case 2:
        q->iir[b] &= ~val;
        break;
    default:
        q->ier[b] = val;
        break;
    }
}

void vdisp_irq_event(struct vdisp_irq *q, enum vdisp_bank b, uint32_t bits)
{
    q->st.events++;
    if (bits & q->imr[b])
        q->st.masked++;
    q->iir[b] |= bits & ~q->imr[b];
}

uint32_t vdisp_irq_summary(const struct vdisp_irq *q)
{
    uint32_t s = 0;
    for (unsigned b = 0; b < VDISP_BANKS; b++)
        if (q->iir[b] & q->ier[b])
            s |= banks[b].summary;
    return s;
}
