/* The virtual x2APIC (see vlapic.h).  Section numbers are the Intel SDM Vol. 3A, 2023 edition
 * (chapter 11; subtract one from the chapter number for earlier editions). */
#include "vmm/vdev/vlapic.h"

#include "arch/x86/regs.h"

#include <string.h>

/* ---- 256-bit vector sets (ISR, TMR, IRR: bit v of register v / 32) ---- */

static void vec_set(uint32_t *r, unsigned v)
{
    r[v >> 5] |= 1u << (v & 31);
}
static void vec_clear(uint32_t *r, unsigned v)
{
    r[v >> 5] &= ~(1u << (v & 31));
}

static int vec_highest(const uint32_t *r)
{
    for (int i = LAPIC_VECTOR_REGS - 1; i >= 0; i--)
        if (r[i])
            return i * 32 + 31 - __builtin_clz(r[i]);
    return -1;
}

static bool sw_enabled(const struct vlapic *l)
{
    return l->svr & LAPIC_SVR_ENABLE;
}
static uint32_t timer_mode(const struct vlapic *l)
{
    return l->lvt[VLAPIC_LVT_TIMER] & LAPIC_LVT_TIMER_MODE_MASK;
}

/* ---- Errors (§11.5.3): recorded in the pending ESR, signalled through the error LVT ---- */

static void apic_error(struct vlapic *l, uint32_t esr_bit)
{
    l->esr_pending |= esr_bit;
    uint32_t e = l->lvt[VLAPIC_LVT_ERROR];
    /* An error LVT with an illegal vector of its own is not delivered (no second error). */
    if (!(e & LAPIC_LVT_MASKED) && (e & LAPIC_LVT_VECTOR_MASK) >= LAPIC_FIRST_VALID_VECTOR)
        vec_set(l->irr, e & LAPIC_LVT_VECTOR_MASK);
}

void vlapic_accept(struct vlapic *l, uint8_t vector)
{
    if (!sw_enabled(l))
        return; /* a software-disabled APIC takes no fixed interrupts (as KVM) */
    if (vector < LAPIC_FIRST_VALID_VECTOR) {
        apic_error(l, LAPIC_ESR_RECEIVE_ILLEGAL_VECTOR);
        return;
    }
    vec_set(l->irr, vector);
    vec_clear(l->tmr, vector); /* edge-triggered */
}

/* ---- Priorities (§11.8.3) ---- */

uint32_t vlapic_ppr(const struct vlapic *l)
{
    int isrv = vec_highest(l->isr);
    uint32_t isr_class = isrv < 0 ? 0 : LAPIC_PRIORITY_CLASS((uint32_t)isrv);
    return LAPIC_PRIORITY_CLASS(l->tpr) >= isr_class ? l->tpr & 0xFFu : isr_class;
}

int vlapic_pending(const struct vlapic *l)
{
    if (!sw_enabled(l))
        return -1;
    int v = vec_highest(l->irr);
    if (v < 0 || LAPIC_PRIORITY_CLASS((uint32_t)v) <= LAPIC_PRIORITY_CLASS(vlapic_ppr(l)))
        return -1;
    return v;
}

void vlapic_ack(struct vlapic *l, uint8_t vector)
{
    vec_clear(l->irr, vector);
    vec_set(l->isr, vector);
}

bool vlapic_accepts_extint(const struct vlapic *l)
{
    uint32_t lint0 = l->lvt[VLAPIC_LVT_LINT0];
    return !(lint0 & LAPIC_LVT_MASKED) &&
           (lint0 & LAPIC_LVT_DELIVERY_MASK) == LAPIC_LVT_DELIVERY_EXTINT;
}

/* ---- The timer (§11.5.4) ---- */

/* TDCR bits 3, 1, 0 (Figure 11-10): 000 = divide by 2, ... 110 = by 128, 111 = by 1. */
static uint64_t timer_divisor(uint32_t tdcr)
{
    unsigned code = ((tdcr >> 1) & 4u) | (tdcr & 3u);
    return code == 7 ? 1 : 2ull << code;
}

static uint64_t tsc_per_count(const struct vlapic *l)
{
    return timer_divisor(l->tdcr) * l->tsc_per_tick;
}

static void timer_fire(struct vlapic *l)
{
    uint32_t lvtt = l->lvt[VLAPIC_LVT_TIMER];
    if (lvtt & LAPIC_LVT_MASKED)
        return;
    l->timer_irqs++;
    vlapic_accept(l, (uint8_t)(lvtt & LAPIC_LVT_VECTOR_MASK));
}

void vlapic_advance(struct vlapic *l, uint64_t now)
{
    switch (timer_mode(l)) {
    case LAPIC_LVT_TSC_DEADLINE:
        /* §11.5.4.1: the interrupt disarms the timer and clears IA32_TSC_DEADLINE. */
        if (l->tsc_deadline && now >= l->tsc_deadline) {
            l->tsc_deadline = 0;
            timer_fire(l);
        }
        break;
    case LAPIC_LVT_PERIODIC:
        if (l->expiry && now >= l->expiry) {
            /* Periods that passed unseen raise one interrupt (the IRR holds one request). */
            uint64_t period = (uint64_t)l->tmict * tsc_per_count(l);
            l->expiry += ((now - l->expiry) / period + 1) * period;
            timer_fire(l);
        }
        break;
    default: /* one-shot: the count stays at 0 */
        if (l->expiry && now >= l->expiry) {
            l->expiry = 0;
            timer_fire(l);
        }
        break;
    }
}

uint64_t vlapic_next_timer(const struct vlapic *l)
{
    if (l->lvt[VLAPIC_LVT_TIMER] & LAPIC_LVT_MASKED)
        return VLAPIC_NO_TIMER;
    uint64_t t = timer_mode(l) == LAPIC_LVT_TSC_DEADLINE ? l->tsc_deadline : l->expiry;
    return t ? t : VLAPIC_NO_TIMER;
}

/* TMCCT: the counts left until the next zero, rounded up; 0 once a one-shot count ran out. */
static uint32_t current_count(const struct vlapic *l, uint64_t now)
{
    if (timer_mode(l) == LAPIC_LVT_TSC_DEADLINE || !l->expiry)
        return 0;
    uint64_t per = tsc_per_count(l), left;
    if (now < l->expiry)
        left = l->expiry - now;
    else if (timer_mode(l) == LAPIC_LVT_PERIODIC)
        left = (uint64_t)l->tmict * per - (now - l->expiry) % ((uint64_t)l->tmict * per);
    else
        return 0;
    uint64_t c = (left + per - 1) / per;
    return c > l->tmict ? l->tmict : (uint32_t)c;
}

static void write_tmict(struct vlapic *l, uint32_t v, uint64_t now)
{
    if (timer_mode(l) == LAPIC_LVT_TSC_DEADLINE)
        return; /* §11.5.4.1: ignored in TSC-deadline mode */
    l->tmict = v;
    l->expiry = v ? now + (uint64_t)v * tsc_per_count(l) : 0; /* 0 stops the timer */
}

static void write_tdcr(struct vlapic *l, uint32_t v, uint64_t now)
{
    /* A count in progress goes on from where it is, at the new rate. */
    if (l->expiry && now < l->expiry) {
        uint32_t c = current_count(l, now);
        l->tdcr = v & LAPIC_DIVIDE_MASK;
        l->expiry = now + (uint64_t)c * tsc_per_count(l);
    } else {
        l->tdcr = v & LAPIC_DIVIDE_MASK;
    }
}

/* ---- LVT entries (Figure 11-8) ---- */

static int lvt_index(uint32_t offset)
{
    switch (offset) {
    case LAPIC_LVT_CMCI:
        return VLAPIC_LVT_CMCI;
    case LAPIC_LVT_TIMER:
        return VLAPIC_LVT_TIMER;
    case LAPIC_LVT_THERMAL:
        return VLAPIC_LVT_THERMAL;
    case LAPIC_LVT_PERF:
        return VLAPIC_LVT_PERF;
    case LAPIC_LVT_LINT0:
        return VLAPIC_LVT_LINT0;
    case LAPIC_LVT_LINT1:
        return VLAPIC_LVT_LINT1;
    case LAPIC_LVT_ERROR:
        return VLAPIC_LVT_ERROR;
    default:
        return -1;
    }
}

static uint32_t lvt_writable(int i)
{
    uint32_t m = LAPIC_LVT_VECTOR_MASK | LAPIC_LVT_MASKED;
    switch (i) {
    case VLAPIC_LVT_TIMER:
        return m | LAPIC_LVT_TIMER_MODE_MASK;
    case VLAPIC_LVT_LINT0:
    case VLAPIC_LVT_LINT1:
        return m | LAPIC_LVT_DELIVERY_MASK | LAPIC_LVT_ACTIVE_LOW | LAPIC_LVT_LEVEL;
    case VLAPIC_LVT_ERROR:
        return m;
    default:
        return m | LAPIC_LVT_DELIVERY_MASK;
    }
}

static enum vlapic_result write_lvt(struct vlapic *l, int i, uint32_t v)
{
    v &= lvt_writable(i);
    if (!sw_enabled(l))
        v |= LAPIC_LVT_MASKED; /* §11.4.7.2: masks cannot be cleared while disabled */
    if (i == VLAPIC_LVT_TIMER) {
        uint32_t mode = v & LAPIC_LVT_TIMER_MODE_MASK;
        if (mode == LAPIC_LVT_TIMER_MODE_MASK)
            return VLAPIC_GP; /* mode 11b is reserved */
        /* §11.5.4.1: switching into or out of TSC-deadline mode disarms the timer. */
        if ((mode == LAPIC_LVT_TSC_DEADLINE) != (timer_mode(l) == LAPIC_LVT_TSC_DEADLINE)) {
            l->tmict = 0;
            l->expiry = 0;
            l->tsc_deadline = 0;
        }
    }
    l->lvt[i] = v;
    return VLAPIC_OK;
}

static void write_svr(struct vlapic *l, uint32_t v)
{
    /* EOI-broadcast suppression is not offered (VERSION bit 24 = 0), so bit 12 is reserved. */
    l->svr = v & (LAPIC_SVR_VECTOR_MASK | LAPIC_SVR_ENABLE | LAPIC_SVR_FOCUS_DISABLED);
    if (!sw_enabled(l))
        for (int i = 0; i < VLAPIC_LVT_COUNT; i++)
            l->lvt[i] |= LAPIC_LVT_MASKED;
}

/* ---- IPIs (§11.6, §11.12.9 ICR in x2APIC mode, §11.12.11 SELF IPI) ---- */

bool vlapic_is_destination(const struct vlapic *l, uint32_t dest, bool logical)
{
    if (dest == X2APIC_BROADCAST_ID)
        return true;
    if (!logical)
        return dest == l->id;
    uint32_t ldr = X2APIC_LDR(l->id);
    return (dest >> 16) == (ldr >> 16) && (dest & ldr & 0xFFFFu);
}

/* The sender's part (§11.5.3: "send illegal vector" is the sender's error); where it goes is
 * the router's (vipi.h). */
static void write_icr(struct vlapic *l, uint64_t v)
{
    const uint64_t writable = (0xFFFFFFFFull << X2APIC_ICR_DEST_SHIFT) | LAPIC_ICR_SHORTHAND_MASK |
                              LAPIC_ICR_LEVEL_TRIGGER | LAPIC_ICR_ASSERT | LAPIC_ICR_LOGICAL |
                              LAPIC_ICR_DELIVERY_MASK | LAPIC_ICR_VECTOR_MASK;
    l->icr = v & writable;
    uint32_t lo = (uint32_t)v;
    l->ipi = (struct vlapic_ipi){
        .mode = lo & LAPIC_ICR_DELIVERY_MASK,
        .shorthand = lo & LAPIC_ICR_SHORTHAND_MASK,
        .dest = (uint32_t)(v >> X2APIC_ICR_DEST_SHIFT),
        .vector = (uint8_t)(lo & LAPIC_ICR_VECTOR_MASK),
        .logical = lo & LAPIC_ICR_LOGICAL,
        .level_deassert = (lo & LAPIC_ICR_LEVEL_TRIGGER) && !(lo & LAPIC_ICR_ASSERT),
    };
    bool vectored = l->ipi.mode == LAPIC_ICR_FIXED || l->ipi.mode == LAPIC_ICR_LOWEST_PRIORITY;
    if (vectored && l->ipi.vector < LAPIC_FIRST_VALID_VECTOR)
        apic_error(l, LAPIC_ESR_SEND_ILLEGAL_VECTOR);
}

static void eoi(struct vlapic *l)
{
    int v = vec_highest(l->isr);
    if (v >= 0)
        vec_clear(l->isr, (unsigned)v); /* edge only: no EOI message to send */
}

enum vlapic_msi_result vlapic_deliver_msi(struct vlapic *l, uint64_t addr, uint32_t data)
{
    if ((addr & MSI_ADDR_BASE_MASK) != MSI_ADDR_BASE)
        return VLAPIC_MSI_BAD_ADDRESS;
    uint32_t mode = data & MSI_DATA_DELIVERY_MASK;
    if (mode != MSI_DATA_FIXED && mode != MSI_DATA_LOWEST_PRIORITY)
        return VLAPIC_MSI_UNSUPPORTED_MODE;
    /* The compatibility format carries 8 destination bits: an APIC ID (physical) or the low
     * byte of the logical ID (x2APIC cluster 0), or 0xFF for everyone. */
    uint32_t dest = (uint32_t)(addr >> MSI_ADDR_DEST_SHIFT) & MSI_ADDR_DEST_MASK;
    bool logical = addr & MSI_ADDR_DEST_LOGICAL;
    bool ours = dest == MSI_ADDR_DEST_MASK ||
                (logical ? (dest & X2APIC_LDR(l->id) & MSI_ADDR_DEST_MASK) != 0 : dest == l->id);
    if (!ours)
        return VLAPIC_MSI_NOT_FOR_US;
    uint8_t vector = (uint8_t)(data & MSI_DATA_VECTOR_MASK);
    if (!sw_enabled(l))
        return VLAPIC_MSI_APIC_DISABLED;
    vlapic_accept(l, vector);
    return vector < LAPIC_FIRST_VALID_VECTOR ? VLAPIC_MSI_ILLEGAL_VECTOR : VLAPIC_MSI_DELIVERED;
}

/* ---- The MSR interface (§11.12.1.2, Table 11-6) ---- */

bool vlapic_owns_msr(uint32_t msr)
{
    return msr == MSR_IA32_APIC_BASE || msr == MSR_IA32_TSC_DEADLINE ||
           (msr >= X2APIC_MSR_BASE && msr <= X2APIC_MSR_LAST);
}

static bool vector_reg(uint32_t off, uint32_t first, unsigned *index)
{
    if (off < first || off >= first + LAPIC_VECTOR_REGS * 0x10)
        return false;
    *index = (off - first) >> 4;
    return true;
}

enum vlapic_result vlapic_rdmsr(struct vlapic *l, uint32_t msr, uint64_t now, uint64_t *value)
{
    if (msr == MSR_IA32_APIC_BASE) {
        *value = l->apic_base;
        return VLAPIC_OK;
    }
    if (msr == MSR_IA32_TSC_DEADLINE) {
        /* Reads 0 outside TSC-deadline mode (§11.5.4.1). */
        *value = timer_mode(l) == LAPIC_LVT_TSC_DEADLINE ? l->tsc_deadline : 0;
        return VLAPIC_OK;
    }
    uint32_t off = (msr - X2APIC_MSR_BASE) << 4;
    unsigned n;
    int lvt = lvt_index(off);
    if (lvt >= 0)
        *value = l->lvt[lvt];
    else if (vector_reg(off, LAPIC_ISR0, &n))
        *value = l->isr[n];
    else if (vector_reg(off, LAPIC_TMR0, &n))
        *value = l->tmr[n];
    else if (vector_reg(off, LAPIC_IRR0, &n))
        *value = l->irr[n];
    else {
        switch (off) {
        case LAPIC_ID:
            *value = l->id;
            break;
        case LAPIC_VERSION:
            *value = VLAPIC_VERSION;
            break;
        case LAPIC_TPR:
            *value = l->tpr;
            break;
        case LAPIC_PPR:
            *value = vlapic_ppr(l);
            break;
        case LAPIC_LDR:
            *value = X2APIC_LDR(l->id);
            break;
        case LAPIC_SVR:
            *value = l->svr;
            break;
        case LAPIC_ESR:
            *value = l->esr;
            break;
        case LAPIC_ICR:
            *value = l->icr;
            break;
        case LAPIC_TIMER_INITIAL:
            *value = l->tmict;
            break;
        case LAPIC_TIMER_CURRENT:
            *value = current_count(l, now);
            break;
        case LAPIC_TIMER_DIVIDE:
            *value = l->tdcr;
            break;
        default:
            return VLAPIC_GP; /* EOI, SELF IPI (write-only), reserved */
        }
    }
    return VLAPIC_OK;
}

static enum vlapic_result write_apic_base(struct vlapic *l, uint64_t v)
{
    const uint64_t reserved = 0xFFull | X86_BIT(9) | (~0ull << 52);
    if ((v & reserved) || ((v & APIC_BASE_EXTD) && !(v & APIC_BASE_ENABLE)))
        return VLAPIC_GP; /* EXTD without EN is an invalid state (Table 11-5) */
    if (!(v & APIC_BASE_EXTD))
        return VLAPIC_XAPIC_REFUSED;
    l->apic_base = (v & ~APIC_BASE_BSP) | (l->apic_base & APIC_BASE_BSP); /* BSP is read-only */
    return VLAPIC_OK;
}

enum vlapic_result vlapic_wrmsr(struct vlapic *l, uint32_t msr, uint64_t v, uint64_t now)
{
    if (msr == MSR_IA32_APIC_BASE)
        return write_apic_base(l, v);
    if (msr == MSR_IA32_TSC_DEADLINE) {
        if (timer_mode(l) == LAPIC_LVT_TSC_DEADLINE)
            l->tsc_deadline = v; /* 0 disarms; a time already past fires at once */
        return VLAPIC_OK;
    }
    uint32_t off = (msr - X2APIC_MSR_BASE) << 4;
    if (off == LAPIC_ICR) {
        write_icr(l, v);
        return VLAPIC_IPI_SENT;
    }
    if (v >> 32)
        return VLAPIC_GP; /* every other x2APIC register is 32 bits wide */
    uint32_t v32 = (uint32_t)v;
    int lvt = lvt_index(off);
    if (lvt >= 0)
        return write_lvt(l, lvt, v32);
    switch (off) {
    case LAPIC_TPR:
        l->tpr = v32 & 0xFFu;
        return VLAPIC_OK;
    case LAPIC_SVR:
        write_svr(l, v32);
        return VLAPIC_OK;
    case LAPIC_TIMER_INITIAL:
        write_tmict(l, v32, now);
        return VLAPIC_OK;
    case LAPIC_TIMER_DIVIDE:
        write_tdcr(l, v32, now);
        return VLAPIC_OK;
    case LAPIC_EOI:
        if (v32)
            return VLAPIC_GP; /* §11.12.1.2: a non-zero EOI write faults in x2APIC mode */
        eoi(l);
        return VLAPIC_OK;
    case LAPIC_ESR:
        if (v32)
            return VLAPIC_GP;    /* likewise a non-zero ESR write */
        l->esr = l->esr_pending; /* a write latches the errors seen since the last one */
        l->esr_pending = 0;
        return VLAPIC_OK;
    case LAPIC_SELF_IPI:
        if (v32 & ~LAPIC_ICR_VECTOR_MASK)
            return VLAPIC_GP;
        if (v32 < LAPIC_FIRST_VALID_VECTOR)
            apic_error(l, LAPIC_ESR_SEND_ILLEGAL_VECTOR);
        vlapic_accept(l, (uint8_t)v32); /* records the receive error for an illegal vector */
        return VLAPIC_OK;
    default:
        return VLAPIC_GP; /* read-only (ID, VERSION, PPR, LDR, ISR, TMR, IRR, TMCCT) or reserved */
    }
}

void vlapic_reset(struct vlapic *l, uint32_t tsc_per_tick)
{
    memset(l, 0, sizeof *l);
    l->apic_base = APIC_BASE_DEFAULT | APIC_BASE_BSP | APIC_BASE_ENABLE | APIC_BASE_EXTD;
    l->svr = LAPIC_SVR_ENABLE | LAPIC_SVR_VECTOR_MASK;
    for (int i = 0; i < VLAPIC_LVT_COUNT; i++)
        l->lvt[i] = LAPIC_LVT_MASKED;
    l->lvt[VLAPIC_LVT_LINT0] = LAPIC_LVT_DELIVERY_EXTINT;
    l->lvt[VLAPIC_LVT_LINT1] = LAPIC_LVT_DELIVERY_NMI;
    l->tsc_per_tick = tsc_per_tick ? tsc_per_tick : 1;
}

void vlapic_set_id(struct vlapic *l, uint32_t id)
{
    l->id = id;
    if (id)
        l->apic_base &= ~(uint64_t)APIC_BASE_BSP;
    else
        l->apic_base |= APIC_BASE_BSP;
}

void vlapic_init_reset(struct vlapic *l)
{
    uint32_t id = l->id, tsc_per_tick = l->tsc_per_tick;
    uint64_t ignored = l->ignored_ipis; /* a counter for the shell, not APIC state */
    vlapic_reset(l, tsc_per_tick);
    vlapic_set_id(l, id);
    l->ignored_ipis = ignored;
}
