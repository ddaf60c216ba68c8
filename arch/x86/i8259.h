/* The PC's two 8259A programmable interrupt controllers: ports, and the bits of the
 * initialization and operation command words (Intel 8259A datasheet, "Programming the 8259A":
 * ICW1-ICW4, OCW1-OCW3), as the PC/AT wires them (slave cascaded on master IR2), and the edge/
 * level control registers of the PIIX/ICH chipsets (Intel 82371AB PIIX4 datasheet §12.2.3,
 * ELCR1/ELCR2 at 0x4D0/0x4D1).  Named once for the host (arch/x86/pit.c masks its 8259s) and
 * the guests' virtual pair (vmm/vdev/vpic.c). */
#ifndef TESSERA_ARCH_X86_I8259_H
#define TESSERA_ARCH_X86_I8259_H

#define PIC1_CMD       0x20 /* master: ICW1, OCW2, OCW3 (write); IRR/ISR/poll (read) */
#define PIC1_DATA      0x21 /* master: ICW2-4, OCW1 = IMR */
#define PIC2_CMD       0xA0 /* slave */
#define PIC2_DATA      0xA1
#define PIC_ELCR1      0x4D0 /* edge/level control, IRQ 0-7 */
#define PIC_ELCR2      0x4D1 /* IRQ 8-15 */
#define PIC_CASCADE_IR 2     /* the slave's INT drives master IR2 */
#define PIC_IRQS       8     /* inputs per chip */

/* ICW1: written to the command port with bit 4 set. */
#define PIC_ICW1_IC4       0x01 /* ICW4 follows */
#define PIC_ICW1_SNGL      0x02 /* single (no ICW3) */
#define PIC_ICW1_LTIM      0x08 /* level-triggered mode */
#define PIC_ICW1_INIT      0x10
#define PIC_ICW1_INIT_ICW4 (PIC_ICW1_INIT | PIC_ICW1_IC4)
/* ICW2: the vector base, bits 7:3 (8086 mode). */
#define PIC_ICW2_VECTOR_MASK 0xF8
/* ICW4 */
#define PIC_ICW4_8086 0x01 /* uPM: 8086/8088 mode */
#define PIC_ICW4_AEOI 0x02 /* automatic end of interrupt */
#define PIC_ICW4_SFNM 0x10 /* special fully nested mode */

/* OCW2: command port, bits 4:3 = 00.  Bits 7:5 are R, SL, EOI; bits 2:0 the level. */
#define PIC_OCW2_LEVEL_MASK         0x07
#define PIC_OCW2_CMD_MASK           0xE0
#define PIC_OCW2_ROTATE_AEOI_CLEAR  0x00
#define PIC_OCW2_NONSPECIFIC_EOI    0x20
#define PIC_OCW2_NOP                0x40
#define PIC_OCW2_SPECIFIC_EOI       0x60
#define PIC_OCW2_ROTATE_AEOI_SET    0x80
#define PIC_OCW2_ROTATE_NONSPECIFIC 0xA0
#define PIC_OCW2_SET_PRIORITY       0xC0
#define PIC_OCW2_ROTATE_SPECIFIC    0xE0
/* OCW3: command port, bits 4:3 = 01. */
#define PIC_OCW3             0x08
#define PIC_OCW3_SELECT_MASK 0x18 /* bits 4:3 tell ICW1 / OCW2 / OCW3 apart */
#define PIC_OCW3_RIS         0x01 /* with RR: 1 = read ISR, 0 = read IRR */
#define PIC_OCW3_RR          0x02 /* read register command */
#define PIC_OCW3_POLL        0x04
#define PIC_OCW3_SMM         0x20 /* with ESMM: 1 = set special mask mode */
#define PIC_OCW3_ESMM        0x40
#define PIC_OCW3_READ_IRR    (PIC_OCW3 | PIC_OCW3_RR)
#define PIC_OCW3_READ_ISR    (PIC_OCW3 | PIC_OCW3_RR | PIC_OCW3_RIS)
#define PIC_POLL_INT         0x80 /* poll result: an interrupt was pending, level in 2:0 */

/* ELCR bits that must read 0: IRQ 0, 1, 2 (master) and 8, 13 (slave) are always edge. */
#define PIC_ELCR1_WRITABLE 0xF8
#define PIC_ELCR2_WRITABLE 0xDE

#endif
