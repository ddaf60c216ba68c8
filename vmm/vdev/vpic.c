/* The virtual 8259A pair (see vpic.h).  References are to the Intel 8259A datasheet
 * ("Programming the 8259A", "Interrupt sequence", "The special fully nest mode"). */
#include "vmm/vdev/vpic.h"

#include <string.h>

#define MASTER            0
#define SLAVE             1
#define LOWEST_AFTER_INIT 7 /* IR0 highest, IR7 lowest */

static void chip_init(struct i8259 *c)
{
    uint8_t lines = c->lines, elcr = c->elcr;
    memset(c, 0, sizeof *c);
    c->lines = lines; /* the edge-sense latch restarts: a high input must drop and rise */
    c->elcr = elcr;
    c->lowest = LOWEST_AFTER_INIT;
}

void vpic_reset(struct vpic *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 2; i++) {
        chip_init(&p->chip[i]);
        p->chip[i].imr = 0xFF;
    }
}

/* The IR a chip would raise INT for: the highest-priority unmasked request, unless something of
 * equal or higher priority is in service.  -1 for none. */
static int chip_request(const struct i8259 *c, uint8_t irr, bool master)
{
    uint8_t req = irr & (uint8_t)~c->imr;
    if (!req)
        return -1;
    uint8_t in_service = c->isr;
    if (c->special_mask)
        in_service &= (uint8_t)~c->imr; /* masked levels in service do not block */
    if (master && c->special_fully_nested)
        in_service &= (uint8_t) ~(1u << PIC_CASCADE_IR); /* the slave may nest */
    for (unsigned p = 1; p <= PIC_IRQS; p++) {
        unsigned ir = (c->lowest + p) % PIC_IRQS;
        if (in_service & (1u << ir))
            return -1;
        if (req & (1u << ir))
            return (int)ir;
    }
    return -1;
}

static bool cascaded(const struct vpic *p)
{
    return !p->chip[MASTER].single;
}

/* The master's requests, with IR2 following the slave's INT output. */
static uint8_t master_irr(const struct vpic *p)
{
    uint8_t irr = p->chip[MASTER].irr;
    if (cascaded(p) && chip_request(&p->chip[SLAVE], p->chip[SLAVE].irr, false) >= 0)
        irr |= 1u << PIC_CASCADE_IR;
    return irr;
}

static uint8_t irr_of(const struct vpic *p, int chip)
{
    return chip == MASTER ? master_irr(p) : p->chip[SLAVE].irr;
}

bool vpic_pending(const struct vpic *p)
{
    return chip_request(&p->chip[MASTER], master_irr(p), true) >= 0;
}

/* One chip's part of INTA: the request goes in service (or is ended at once in auto-EOI). */
static void chip_ack(struct i8259 *c, unsigned ir)
{
    c->irr &= (uint8_t) ~(1u << ir);
    if (c->auto_eoi) {
        if (c->rotate_on_aeoi)
            c->lowest = (uint8_t)ir;
    } else {
        c->isr |= (uint8_t)(1u << ir);
    }
}

uint8_t vpic_ack(struct vpic *p)
{
    struct i8259 *m = &p->chip[MASTER], *s = &p->chip[SLAVE];
    p->acks++;
    int ir = chip_request(m, master_irr(p), true);
    if (ir < 0)
        return m->vector_base | 7; /* the request went away: spurious IR7 */
    chip_ack(m, (unsigned)ir);
    if (ir != PIC_CASCADE_IR || !cascaded(p))
        return m->vector_base | (uint8_t)ir;
    int sir = chip_request(s, s->irr, false);
    if (sir < 0)
        return s->vector_base | 7; /* spurious on the slave (IRQ 15) */
    chip_ack(s, (unsigned)sir);
    return s->vector_base | (uint8_t)sir;
}

void vpic_set_irq(struct vpic *p, unsigned irq, bool level)
{
    if (irq >= VPIC_IRQS)
        return;
    struct i8259 *c = &p->chip[irq / PIC_IRQS];
    uint8_t bit = (uint8_t)(1u << (irq % PIC_IRQS));
    if (level && !(c->lines & bit))
        c->irr |= bit; /* rising edge; the latch holds after the line drops */
    c->lines = level ? (c->lines | bit) : (c->lines & (uint8_t)~bit);
}

/* ---- Command words ---- */

static int highest_in_service(const struct i8259 *c)
{
    for (unsigned p = 1; p <= PIC_IRQS; p++) {
        unsigned ir = (c->lowest + p) % PIC_IRQS;
        if (c->isr & (1u << ir))
            return (int)ir;
    }
    return -1;
}

static void write_ocw2(struct i8259 *c, uint8_t v)
{
    unsigned level = v & PIC_OCW2_LEVEL_MASK;
    int ir;
    switch (v & PIC_OCW2_CMD_MASK) {
    case PIC_OCW2_NONSPECIFIC_EOI:
    case PIC_OCW2_ROTATE_NONSPECIFIC:
        ir = highest_in_service(c);
        if (ir >= 0) {
            c->isr &= (uint8_t) ~(1u << ir);
            if ((v & PIC_OCW2_CMD_MASK) == PIC_OCW2_ROTATE_NONSPECIFIC)
                c->lowest = (uint8_t)ir;
        }
        break;
    case PIC_OCW2_SPECIFIC_EOI:
        c->isr &= (uint8_t) ~(1u << level);
        break;
    case PIC_OCW2_ROTATE_SPECIFIC:
        c->isr &= (uint8_t) ~(1u << level);
        c->lowest = (uint8_t)level;
        break;
    case PIC_OCW2_SET_PRIORITY:
        c->lowest = (uint8_t)level;
        break;
    case PIC_OCW2_ROTATE_AEOI_SET:
        c->rotate_on_aeoi = true;
        break;
    case PIC_OCW2_ROTATE_AEOI_CLEAR:
        c->rotate_on_aeoi = false;
        break;
    default:
        break; /* no operation */
    }
}

static void write_ocw3(struct i8259 *c, uint8_t v)
{
    if (v & PIC_OCW3_ESMM)
        c->special_mask = v & PIC_OCW3_SMM;
    if (v & PIC_OCW3_POLL)
        c->poll = true;
    if (v & PIC_OCW3_RR)
        c->read_isr = v & PIC_OCW3_RIS;
}

static void write_cmd(struct i8259 *c, uint8_t v)
{
    if (v & PIC_ICW1_INIT) {
        chip_init(c);
        c->icw4_needed = v & PIC_ICW1_IC4;
        c->single = v & PIC_ICW1_SNGL;
        c->init_step = 2;
    } else if ((v & PIC_OCW3_SELECT_MASK) == PIC_OCW3) {
        write_ocw3(c, v);
    } else if (!(v & PIC_OCW3_SELECT_MASK)) {
        write_ocw2(c, v);
    }
    /* bits 4:3 = 11 cannot happen: bit 4 is ICW1 */
}

static void write_data(struct i8259 *c, uint8_t v)
{
    switch (c->init_step) {
    case 2:
        c->vector_base = v & PIC_ICW2_VECTOR_MASK;
        c->init_step = c->single ? (c->icw4_needed ? 4 : 0) : 3;
        break;
    case 3:
        c->icw3 = v;
        c->init_step = c->icw4_needed ? 4 : 0;
        break;
    case 4:
        c->auto_eoi = v & PIC_ICW4_AEOI;
        c->special_fully_nested = v & PIC_ICW4_SFNM;
        c->init_step = 0;
        break;
    default:
        c->imr = v; /* OCW1 */
        break;
    }
}

/* Poll command (OCW3 P=1): the read is the INTA for this chip. */
static uint8_t poll_read(struct vpic *p, int chip)
{
    struct i8259 *c = &p->chip[chip];
    c->poll = false;
    int ir = chip_request(c, irr_of(p, chip), chip == MASTER);
    if (ir < 0)
        return 0;
    chip_ack(c, (unsigned)ir);
    return PIC_POLL_INT | (uint8_t)ir;
}

bool vpic_claims_port(uint16_t port)
{
    return port == PIC1_CMD || port == PIC1_DATA || port == PIC2_CMD || port == PIC2_DATA ||
           port == PIC_ELCR1 || port == PIC_ELCR2;
}

uint8_t vpic_read(struct vpic *p, uint16_t port)
{
    switch (port) {
    case PIC1_CMD:
    case PIC2_CMD: {
        int chip = port == PIC1_CMD ? MASTER : SLAVE;
        const struct i8259 *c = &p->chip[chip];
        if (c->poll)
            return poll_read(p, chip);
        return c->read_isr ? c->isr : irr_of(p, chip);
    }
    case PIC1_DATA:
        return p->chip[MASTER].imr;
    case PIC2_DATA:
        return p->chip[SLAVE].imr;
    case PIC_ELCR1:
        return p->chip[MASTER].elcr;
    case PIC_ELCR2:
        return p->chip[SLAVE].elcr;
    default:
        return 0xFF;
    }
}

void vpic_write(struct vpic *p, uint16_t port, uint8_t v)
{
    switch (port) {
    case PIC1_CMD:
        write_cmd(&p->chip[MASTER], v);
        break;
    case PIC2_CMD:
        write_cmd(&p->chip[SLAVE], v);
        break;
    case PIC1_DATA:
        write_data(&p->chip[MASTER], v);
        break;
    case PIC2_DATA:
        write_data(&p->chip[SLAVE], v);
        break;
    case PIC_ELCR1:
        p->chip[MASTER].elcr = v & PIC_ELCR1_WRITABLE;
        break;
    case PIC_ELCR2:
        p->chip[SLAVE].elcr = v & PIC_ELCR2_WRITABLE;
        break;
    default:
        break;
    }
}
