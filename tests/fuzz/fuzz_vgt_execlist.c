/* Fuzzes the execlist/CSB sequencers of the four engines and the GT interrupt controller they
 * raise (vgt_execlist.h, vgt_irq.h) with a hostile guest: ELSP dwords in any order and number,
 * descriptors valid or not, naming the running context or another, completions at any time,
 * CSB pointer and entry writes, engine resets, and any write to the interrupt registers.
 *
 * A small model written from the headers' rules follows along and every result is checked
 * against it:
 *   - each submission starts, lite-restores, queues or is refused exactly as vgt_execlist.h
 *     says, and each completion moves to element 1, to the waiting list or to idle, handing
 *     back the descriptor to run;
 *   - every CSB event is the one the rules name (status and context id), lands in the entry
 *     after the write pointer (in the registers and in the status page, whose write pointer is
 *     written last), only ever inside the status page's CSB area, and raises exactly one
 *     context-switch interrupt per event or bundled pair;
 *   - EXECLIST_STATUS_HI reads the active context, CSB_PTR the pointers, the entries what was
 *     written;
 *   - the interrupt controller latches only events neither RING_IMR nor IMR masks, clears
 *     IIR bits written as 1s, reads MASTER_IRQ as its control bit plus the summary of pending
 *     banks, and asks for an MSI exactly when "master on and something pending" rises. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "vmm/vgpu/i915/vgt/vgt_execlist.h"
#include "vmm/vgpu/i915/vgt/vgt_irq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NE IGPU_NUM_GT_ENGINES

/* ---- the model -------------------------------------------------------------------------- */

struct model_el {
    bool running, waiting;
    uint64_t run[2], wait[2];
    unsigned elem;
    uint32_t wp, rp;
    uint32_t csb[GEN9_CSB_ENTRIES][2];
};

struct model_irq {
    uint32_t iir[GEN9_GT_IRQ_BANKS], imr[GEN9_GT_IRQ_BANKS], ier[GEN9_GT_IRQ_BANKS];
    uint32_t ring_imr[NE], master;
    bool line;
};

static struct vgt_execlist el[NE];
static struct vgt_irq irq;
static struct model_el m[NE];
static struct model_irq mi;
static uint32_t hwsp[NE][1024];
static unsigned events_seen[NE]; /* CSB events the callbacks saw since the op began */
static unsigned irqs_seen[NE], msis, msis_expected;

static bool valid(uint64_t d)
{
    return (d & GEN9_CTX_VALID) != 0;
}

static void model_el_reset(struct model_el *x)
{
    x->running = x->waiting = false;
    memset(x->run, 0, sizeof x->run);
    memset(x->wait, 0, sizeof x->wait);
    x->elem = 0;
    x->wp = GEN9_CSB_PTR_RESET;
    x->rp = 0;
}

static void model_irq_reset(void)
{
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        mi.iir[b] = 0;
        mi.imr[b] = ~0u;
        mi.ier[b] = 0;
    }
    memset(mi.ring_imr, 0, sizeof mi.ring_imr);
    mi.master = 0;
    mi.line = false;
}

/* The MASTER_IRQ summary bits: bank halves with a pending bit (vgt_irq.h). */
static uint32_t model_summary(void)
{
    static const uint32_t bit[GEN9_GT_IRQ_BANKS][2] = {
        { GEN9_MASTER_GT_RCS_IRQ, GEN9_MASTER_GT_BCS_IRQ },
        { GEN9_MASTER_GT_VCS0_IRQ, GEN9_MASTER_GT_VCS1_IRQ },
        { GEN9_MASTER_GT_PM_IRQ, GEN9_MASTER_GT_GUC_IRQ },
        { GEN9_MASTER_GT_VECS_IRQ, 0 },
    };
    uint32_t s = 0;
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        uint32_t p = mi.iir[b] & mi.ier[b] & ~mi.imr[b];
        if (p & 0xFFFFu)
            s |= bit[b][0];
        if (p & 0xFFFF0000u)
            s |= bit[b][1];
    }
    return s;
}

/* The line after a change: an MSI is due when it rises. */
static void model_line(void)
{
    bool line = (mi.master & GEN9_MASTER_IRQ_CONTROL) && model_summary();
    if (line && !mi.line)
        msis_expected++;
    mi.line = line;
}

static void model_event(unsigned e, uint32_t bits)
{
    unsigned bank, shift;
    check(igpu_engine_irq((enum igpu_engine)e, &bank, &shift));
    uint32_t b = (bits & 0xFFFFu) << shift;
    b &= ~mi.ring_imr[e];
    b &= ~mi.imr[bank];
    mi.iir[bank] |= b;
    if (bits)
        model_line();
}

/* One CSB event the model expects: where it lands and what it says. */
static void model_csb(unsigned e, uint32_t status, uint32_t id)
{
    struct model_el *x = &m[e];
    x->wp = gen9_csb_next(x->wp);
    x->csb[x->wp][0] = status;
    x->csb[x->wp][1] = id;
}

/* ---- the callbacks ------------------------------------------------------------------------ */

static void cb_hwsp(void *ctx, enum igpu_engine e, uint32_t index, uint32_t value)
{
    check((unsigned)e < NE && (uintptr_t)ctx == (uintptr_t)e + 1u);
    /* Only the CSB mirror and its write pointer, never elsewhere in the page. */
    check((index >= GEN9_HWS_CSB_BUF0_INDEX &&
           index < GEN9_HWS_CSB_BUF0_INDEX + 2u * GEN9_CSB_ENTRIES) ||
          index == GEN9_HWS_CSB_WRITE_INDEX);
    hwsp[e][index] = value;
    if (index == GEN9_HWS_CSB_WRITE_INDEX)
        events_seen[e]++;
}

static void cb_irq(void *ctx, enum igpu_engine e, uint32_t bits)
{
    check((unsigned)e < NE && (uintptr_t)ctx == (uintptr_t)e + 1u);
    check(bits == GEN9_GT_CONTEXT_SWITCH);
    irqs_seen[e]++;
    model_event(e, bits);
    if (vgt_irq_event(&irq, e, bits))
        msis++;
}

static struct vgt_el_ops ops[NE];

/* ---- checks ------------------------------------------------------------------------------- */

/* The sequencer's registers and status page agree with the model. */
static void check_engine(unsigned e)
{
    const struct vgt_execlist *x = &el[e];
    const struct model_el *y = &m[e];
    uint32_t b = igpu_engine_base((enum igpu_engine)e);
    uint64_t active = y->running ? y->run[y->elem] : 0;

    check(x->running == y->running && x->waiting == y->waiting && x->wp == y->wp && x->rp == y->rp);
    check(vgt_el_active(x) == active);
    check(vgt_el_read(x, GEN9_RING_EXECLIST_STATUS_HI(b)) == gen9_ctx_desc_id(active));
    check(!!(vgt_el_read(x, GEN9_RING_EXECLIST_STATUS_LO(b)) & GEN9_EXECLIST_QFULL) == y->waiting);
    check(vgt_el_read(x, GEN9_RING_CSB_PTR(b)) ==
          (y->rp << GEN9_CSB_READ_PTR_SHIFT | y->wp << GEN9_CSB_WRITE_PTR_SHIFT));
    check(vgt_el_read(x, GEN9_RING_ELSP(b)) == 0);
    for (unsigned i = 0; i < GEN9_CSB_ENTRIES; i++) {
        check(vgt_el_read(x, GEN9_RING_CSB_LO(b, i)) == y->csb[i][0]);
        check(vgt_el_read(x, GEN9_RING_CSB_HI(b, i)) == y->csb[i][1]);
    }
}

/* What an op did on engine e: `events` CSB events, each in the status page as in the
 * registers, the write pointer last; `irqs` interrupts. */
static void check_events(unsigned e, unsigned events, unsigned irqs)
{
    check(events_seen[e] == events && irqs_seen[e] == irqs);
    if (events) {
        uint32_t wp = m[e].wp;
        check(hwsp[e][GEN9_HWS_CSB_WRITE_INDEX] == wp);
        check(hwsp[e][GEN9_HWS_CSB_BUF0_INDEX + 2u * wp] == m[e].csb[wp][0]);
        check(hwsp[e][GEN9_HWS_CSB_BUF0_INDEX + 2u * wp + 1u] == m[e].csb[wp][1]);
    }
    events_seen[e] = irqs_seen[e] = 0;
}

static void check_irq(void)
{
    check(msis == msis_expected && irq.line == mi.line);
    check(vgt_irq_read(&irq, GEN9_MASTER_IRQ) == (mi.master | model_summary()));
    check(vgt_irq_summary(&irq) == model_summary());
    for (unsigned b = 0; b < GEN9_GT_IRQ_BANKS; b++) {
        check(vgt_irq_read(&irq, GEN9_GT_IIR(b)) == mi.iir[b]);
        check(vgt_irq_read(&irq, GEN9_GT_IMR(b)) == mi.imr[b]);
        check(vgt_irq_read(&irq, GEN9_GT_IER(b)) == mi.ier[b]);
        check(vgt_irq_read(&irq, GEN9_GT_ISR(b)) == 0);
    }
    for (unsigned e = 0; e < NE; e++)
        check(vgt_irq_read(&irq, GEN9_RING_IMR(igpu_engine_base((enum igpu_engine)e))) ==
              mi.ring_imr[e]);
}

/* ---- operations --------------------------------------------------------------------------- */

/* A descriptor: mostly one of a few contexts (so lite restores happen), valid or not. */
static uint64_t pick_desc(struct cursor *c)
{
    unsigned sel = (unsigned)take(c, 1);
    if (sel >= 240)
        return take(c, 8);
    uint64_t d = gen9_ctx_desc(0x10000u * (1u + sel % 4u), 0x20u + (sel >> 2) % 3u, 0);
    return sel & 0x80u ? d & ~GEN9_CTX_VALID : d;
}

/* The model's submission: the result and the events it expects. */
static enum vgt_el_result model_submit(unsigned e, uint64_t d0, uint64_t d1, unsigned *ev)
{
    struct model_el *x = &m[e];
    uint64_t list[2] = { d0, valid(d1) ? d1 : 0 };
    *ev = 0;
    if (!valid(d0))
        return VGT_EL_E_INVALID;
    if (!x->running) {
        memcpy(x->run, list, sizeof list);
        x->elem = 0;
        x->running = true;
        model_csb(e, GEN9_CTX_STATUS_IDLE_ACTIVE, 0);
        *ev = 1;
        return VGT_EL_STARTED;
    }
    if (x->waiting)
        return VGT_EL_E_QFULL;
    bool two = valid(x->run[1]);
    if ((two && x->elem == 1 && vgt_el_same_context(x->run[1], d0)) ||
        (!two && vgt_el_same_context(x->run[0], d0))) {
        memcpy(x->run, list, sizeof list);
        x->elem = 0;
        model_csb(e, GEN9_CTX_STATUS_PREEMPTED | GEN9_CTX_STATUS_LITE_RESTORE,
                  gen9_ctx_desc_id(d0));
        *ev = 1;
        return VGT_EL_LITE_RESTORE;
    }
    memcpy(x->wait, list, sizeof list);
    x->waiting = true;
    return VGT_EL_QUEUED;
}

static void submit(unsigned e, uint64_t d0, uint64_t d1, bool by_elsp)
{
    unsigned ev;
    uint64_t run = 0xFEEDu;
    enum vgt_el_result want = model_submit(e, d0, d1, &ev), got;
    if (by_elsp) {
        /* Element 1 upper, lower, element 0 upper, lower: the fourth submits. */
        const uint32_t dw[4] = { (uint32_t)(d1 >> 32), (uint32_t)d1, (uint32_t)(d0 >> 32),
                                 (uint32_t)d0 };
        for (unsigned i = 0; i < 3; i++)
            check(vgt_el_elsp_write(&el[e], dw[i], &ops[e], &run) == VGT_EL_NONE);
        got = vgt_el_elsp_write(&el[e], dw[3], &ops[e], &run);
    } else {
        got = vgt_el_submit(&el[e], d0, d1, &ops[e], &run);
    }
    check(got == want);
    if (want == VGT_EL_STARTED || want == VGT_EL_LITE_RESTORE)
        check(run == d0);
    else
        check(run == 0xFEEDu);
    check_events(e, ev, ev);
}

static void complete(unsigned e)
{
    struct model_el *x = &m[e];
    uint64_t next = 0xFEEDu, want_next = 0xFEEDu;
    enum vgt_el_result want, got;
    unsigned ev = 0, irqs = 0;

    if (!x->running) {
        want = VGT_EL_E_NOT_RUNNING;
    } else if (x->elem == 0 && valid(x->run[1])) {
        model_csb(e, GEN9_CTX_STATUS_ELEMENT_SWITCH | GEN9_CTX_STATUS_COMPLETE,
                  gen9_ctx_desc_id(x->run[0]));
        x->elem = 1;
        want = VGT_EL_NEXT;
        want_next = x->run[1];
        ev = irqs = 1;
    } else {
        model_csb(e, GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE,
                  gen9_ctx_desc_id(x->run[x->elem]));
        x->running = false;
        want = VGT_EL_IDLE;
        ev = irqs = 1;
        if (x->waiting) {
            /* The waiting list starts at once: one interrupt for both events. */
            memcpy(x->run, x->wait, sizeof x->run);
            x->waiting = false;
            x->running = true;
            x->elem = 0;
            model_csb(e, GEN9_CTX_STATUS_IDLE_ACTIVE, 0);
            want = VGT_EL_STARTED;
            want_next = x->run[0];
            ev = 2;
        }
    }
    got = vgt_el_complete(&el[e], &ops[e], &next);
    check(got == want && next == want_next);
    check_events(e, ev, irqs);
}

/* A register write to the sequencer: only CSB_PTR changes anything (masked, both pointers). */
static void el_reg_write(unsigned e, uint32_t off, uint32_t val)
{
    struct model_el *x = &m[e];
    if (off == GEN9_RING_CSB_PTR(igpu_engine_base((enum igpu_engine)e))) {
        uint32_t p = gen9_masked_apply(x->rp << GEN9_CSB_READ_PTR_SHIFT |
                                           x->wp << GEN9_CSB_WRITE_PTR_SHIFT,
                                       val);
        x->rp = (p >> GEN9_CSB_READ_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        x->wp = (p >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
    }
    vgt_el_write(&el[e], off, val);
    check_events(e, 0, 0);
}

/* An offset near engine e's execlist registers (or one of another engine). */
static uint32_t pick_el_offset(struct cursor *c, unsigned e)
{
    unsigned k = (unsigned)take(c, 1);
    uint32_t b = igpu_engine_base((enum igpu_engine)((k & 0x80u) ? (k >> 4) % NE : e));
    return b + 0x22Cu + 4u * ((k & 0x7Fu) % 0x60u); /* ELSP .. past CTX_TIMESTAMP */
}

static void irq_write(uint32_t off, uint32_t val)
{
    bool owned = true;
    unsigned b;
    if (off == GEN9_MASTER_IRQ) {
        mi.master = val & GEN9_MASTER_IRQ_CONTROL;
    } else if (off >= GEN9_GT_ISR(0) && off < GEN9_GT_ISR(GEN9_GT_IRQ_BANKS) && !(off & 3u)) {
        b = (off - GEN9_GT_ISR(0)) / 0x10u;
        switch (off & 0xFu) {
        case 4:
            mi.imr[b] = val;
            break;
        case 8:
            mi.iir[b] &= ~val;
            break;
        case 0xC:
            mi.ier[b] = val;
            break;
        default:
            owned = false;
            break; /* ISR: read-only */
        }
    } else {
        owned = false;
        for (unsigned e = 0; e < NE; e++)
            if (off == GEN9_RING_IMR(igpu_engine_base((enum igpu_engine)e))) {
                mi.ring_imr[e] = val;
                owned = true;
            }
    }
    if (owned)
        model_line();
    if (vgt_irq_write(&irq, off, val))
        msis++;
}

static uint32_t pick_irq_offset(struct cursor *c)
{
    unsigned k = (unsigned)take(c, 1);
    if (k < 16)
        return GEN9_MASTER_IRQ;
    if (k < 200)
        return GEN9_GT_ISR(0) + 4u * ((k - 16u) % (4u * GEN9_GT_IRQ_BANKS + 1u));
    if (k < 240)
        return GEN9_RING_IMR(igpu_engine_base((enum igpu_engine)(k % NE)));
    return (uint32_t)take(c, 3) << 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };

    memset(hwsp, 0, sizeof hwsp);
    memset(m, 0, sizeof m);
    memset(events_seen, 0, sizeof events_seen);
    memset(irqs_seen, 0, sizeof irqs_seen);
    msis = msis_expected = 0;
    vgt_irq_init(&irq);
    model_irq_reset();
    for (unsigned e = 0; e < NE; e++) {
        vgt_el_init(&el[e], (enum igpu_engine)e);
        model_el_reset(&m[e]);
        ops[e] = (struct vgt_el_ops){ (void *)((uintptr_t)e + 1u), cb_hwsp, cb_irq };
    }
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1), e = (op >> 4) % NE;
        switch (op % 10u) {
        case 0:
        case 1: { /* an ELSP submission */
            uint64_t d0 = pick_desc(&c), d1 = pick_desc(&c);
            submit(e, d0, d1, (op & 0x40u) && el[e].elsp_n == 0);
            break;
        }
        case 2: { /* one lone ELSP dword */
            uint64_t run = 0;
            unsigned n = el[e].elsp_n;
            enum vgt_el_result r = vgt_el_elsp_write(&el[e], (uint32_t)take(&c, 4), &ops[e], &run);
            if (n < 3) {
                check(r == VGT_EL_NONE);
            } else {
                /* The fourth dword submitted what the earlier three and it said. */
                unsigned ev;
                const uint32_t *w = el[e].elsp;
                enum vgt_el_result want = model_submit(e, (uint64_t)w[2] << 32 | w[3],
                                                       (uint64_t)w[0] << 32 | w[1], &ev);
                check(r == want && el[e].elsp_n == 0);
                check_events(e, ev, ev);
            }
            break;
        }
        case 3:
        case 4: /* the active element finished */
            complete(e);
            break;
        case 5: { /* a write to an execlist register */
            uint32_t off = pick_el_offset(&c, e), val = (uint32_t)take(&c, 4);
            el_reg_write(e, off, val);
            break;
        }
        case 6: /* engine reset (GDRST) */
            vgt_el_reset(&el[e]);
            model_el_reset(&m[e]);
            break;
        case 7: { /* an interrupt register write */
            uint32_t off = pick_irq_offset(&c), val = (uint32_t)take(&c, 4);
            irq_write(off, val);
            break;
        }
        case 8: { /* another engine event (user interrupt) */
            uint32_t bits = (uint32_t)take(&c, 4);
            model_event(e, bits);
            if (vgt_irq_event(&irq, (enum igpu_engine)e, bits))
                msis++;
            break;
        }
        default: /* device reset of the controller */
            vgt_irq_reset(&irq);
            model_irq_reset();
            break;
        }
        check_engine(e);
        check_irq();
    }
    for (unsigned e = 0; e < NE; e++)
        check_engine(e);
    return 0;
}
