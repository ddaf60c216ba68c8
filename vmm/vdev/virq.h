/* Arbitration between a guest's two interrupt controllers: which interrupt its vCPU takes
 * next.  The 8259 pair reaches the CPU through LAPIC LINT0 in ExtINT mode; an ExtINT request is
 * presented ahead of the APIC's own fixed interrupts and bypasses its IRR, ISR and TPR (SDM
 * Vol. 3A §11.5.1, delivery mode ExtINT: "the processor ... responds as if the interrupt
 * originated in an externally connected (8259A-compatible) interrupt controller"; KVM and ACRN
 * give ExtINT the same precedence).  Pure. */
#ifndef TESSERA_VMM_VDEV_VIRQ_H
#define TESSERA_VMM_VDEV_VIRQ_H

#include "vmm/vdev/vlapic.h"
#include "vmm/vdev/vpic.h"

enum virq_source { VIRQ_NONE, VIRQ_PIC, VIRQ_LAPIC };

/* Where the next interrupt would come from, without taking it. */
enum virq_source virq_next(const struct vlapic *l, const struct vpic *p);
/* Takes it (the PIC's INTA, or the APIC's IRR -> ISR) and returns its vector; -1 if none. */
int virq_ack(struct vlapic *l, struct vpic *p);

#endif
