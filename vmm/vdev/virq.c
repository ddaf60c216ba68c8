/* Interrupt arbitration (see virq.h). */
#include "vmm/vdev/virq.h"

enum virq_source virq_next(const struct vlapic *l, const struct vpic *p)
{
    if (p && vlapic_accepts_extint(l) && vpic_pending(p))
        return VIRQ_PIC;
    if (vlapic_pending(l) >= 0)
        return VIRQ_LAPIC;
    return VIRQ_NONE;
}

int virq_ack(struct vlapic *l, struct vpic *p)
{
    switch (virq_next(l, p)) {
    case VIRQ_PIC:
        return vpic_ack(p);
    case VIRQ_LAPIC: {
        int v = vlapic_pending(l);
        vlapic_ack(l, (uint8_t)v);
        return v;
    }
    default:
        return -1;
    }
}
