/* A guest's pair of 8259A interrupt controllers, wired as in the PC/AT: the master at ports
 * 0x20/0x21 takes IRQ 0-7, the slave at 0xA0/0xA1 takes IRQ 8-15 and drives master IR2; the
 * master's INT reaches the vCPU through LAPIC LINT0 in ExtINT mode.  Pure: the VMX side reads
 * vpic_pending() and performs the interrupt acknowledge cycle with vpic_ack().
 *
 * Modelled (Intel 8259A datasheet): ICW1-ICW4, OCW1 (IMR), OCW2 (non-specific, specific and
 * rotating EOIs, set priority, rotate in auto-EOI), OCW3 (IRR/ISR read, poll, special mask
 * mode), auto-EOI, rotating priority, the cascade, special fully nested mode on the master.
 * Inputs are edge-triggered: a rising edge latches IRR; the ELCR ports (0x4D0/0x4D1) are
 * storage only (a level-triggered input is not modelled).  Linux's init_8259A(),
 * mask_and_ack_8259A() and i8259A_irq_real() work unchanged. */
#ifndef TESSERA_VMM_VDEV_VPIC_H
#define TESSERA_VMM_VDEV_VPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/i8259.h"

#define VPIC_IRQS 16

struct i8259 {
    uint8_t irr, isr, imr;
    uint8_t lines;       /* input levels, for edge detection */
    uint8_t vector_base; /* ICW2 & 0xF8 */
    uint8_t icw3;
    uint8_t init_step; /* 0: ready; 2, 3, 4: the ICW expected next */
    bool icw4_needed, single;
    bool auto_eoi, rotate_on_aeoi, special_fully_nested, special_mask;
    bool read_isr;  /* OCW3: the command port reads ISR instead of IRR */
    bool poll;      /* OCW3 poll: the next command-port read is a poll */
    uint8_t lowest; /* the IR with the lowest priority (rotation); 7 after init */
    uint8_t elcr;
};

struct vpic {
    struct i8259 chip[2]; /* 0 = master, 1 = slave */
    uint64_t acks;        /* interrupt acknowledge cycles (counted) */
};

/* Power-on state: both chips uninitialised with every input masked (IMR 0xFF), so nothing is
 * delivered until the guest programs them. */
void vpic_reset(struct vpic *p);

/* Drives IRQ line 0-15 to `level`; a 0 -> 1 edge latches the request. */
void vpic_set_irq(struct vpic *p, unsigned irq, bool level);

/* True for 0x20, 0x21, 0xA0, 0xA1, 0x4D0, 0x4D1 (byte accesses). */
bool vpic_claims_port(uint16_t port);
uint8_t vpic_read(struct vpic *p, uint16_t port);
void vpic_write(struct vpic *p, uint16_t port, uint8_t value);

/* The master's INT output: an unmasked request above what is in service. */
bool vpic_pending(const struct vpic *p);
/* The INTA cycle: the vector of the highest request (IRR -> ISR, or the auto EOI), through the
 * slave for IR2.  A request that vanished gives IR7's vector (a spurious interrupt), as the
 * 8259A does. */
uint8_t vpic_ack(struct vpic *p);

#endif
