/*
 * The CSB sequencer against the order i915 6.1 parses it.  A small model of i915's execlists
 * bookkeeping (intel_execlists_submission.c) consumes the events from the status page exactly
 * as process_csb() does: the tail from HWSP dword 0x1F, entries from its cached head + 1 up to
 * the tail wrapping at 6, each entry overwritten with -1 after reading (csb_read()), and
 * gen8_csb_parse(): IDLE_ACTIVE or PREEMPTED promotes the pending ELSP to inflight (an error if
 * nothing is pending), anything else completes inflight port 0 (an error if nothing is
 * inflight).  Any such error is i915's "invalid CSB event" and an engine reset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/vgpu/i915/vgt/vgt_execlist.h"

struct hwsp_write {
    uint32_t index, value;
};

struct i915 {
    struct vgt_execlist el;
    struct vgt_el_ops ops;
    uint32_t hwsp[1024];
    struct hwsp_write log[64];
    unsigned n_log, irqs;
    /* i915's state */
    uint8_t csb_head;
    uint64_t pending[2], inflight[2];
    unsigned n_pending, n_inflight;
    unsigned promotes, completes, errors;
};

static void hwsp_write(void *ctx, enum igpu_engine e, uint32_t index, uint32_t value)
{
    struct i915 *t = ctx;
    assert_int_equal(e, t->el.engine);
    assert_true(index < 1024);
    t->hwsp[index] = value;
    if (t->n_log < 64)
        t->log[t->n_log++] = (struct hwsp_write){ index, value };
}

static void interrupt(void *ctx, enum igpu_engine e, uint32_t bits)
{
    struct i915 *t = ctx;
    assert_int_equal(e, t->el.engine);
    assert_int_equal(bits, GEN9_GT_CONTEXT_SWITCH);
    t->irqs++;
}

/* i915 reset_csb_pointers(): both pointers 5 by MMIO, the HWSP copy 5, entries -1. */
static void i915_reset_csb(struct i915 *t)
{
    uint32_t b = igpu_engine_base(t->el.engine);
    vgt_el_write(&t->el, GEN9_RING_CSB_PTR(b), 0xffffu << 16 | 5u << 8 | 5u);
    assert_int_equal(vgt_el_read(&t->el, GEN9_RING_CSB_PTR(b)), 0x0505);
    t->hwsp[GEN9_HWS_CSB_WRITE_INDEX] = 5;
    for (unsigned i = 0; i < 12; i++)
        t->hwsp[GEN9_HWS_CSB_BUF0_INDEX + i] = 0xFFFFFFFF;
    t->csb_head = 5;
}

static void setup_engine(struct i915 *t, enum igpu_engine e)
{
    memset(t, 0, sizeof *t);
    vgt_el_init(&t->el, e);
    t->ops = (struct vgt_el_ops){ .ctx = t, .hwsp_write = hwsp_write, .interrupt = interrupt };
    i915_reset_csb(t);
}

/* process_csb() + gen8_csb_parse(). */
static void i915_process_csb(struct i915 *t)
{
    uint8_t head = t->csb_head, tail = (uint8_t)t->hwsp[GEN9_HWS_CSB_WRITE_INDEX];

    if (head == tail)
        return;
    t->csb_head = tail;
    do {
        uint32_t *e;
        uint64_t csb;
        if (++head == GEN9_CSB_ENTRIES)
            head = 0;
        e = &t->hwsp[GEN9_HWS_CSB_BUF0_INDEX + 2u * head];
        csb = e[0] | (uint64_t)e[1] << 32;
        assert_true(csb != ~0ull); /* a stale entry: the write came late */
        e[0] = e[1] = 0xFFFFFFFF;  /* consumed, to spot reuse */
        if (csb & (GEN9_CTX_STATUS_IDLE_ACTIVE | GEN9_CTX_STATUS_PREEMPTED)) {
            if (!t->n_pending) {
                t->errors++;
                return;
            }
            memcpy(t->inflight, t->pending, sizeof t->inflight);
            t->n_inflight = t->n_pending;
            t->n_pending = 0;
            t->promotes++;
        } else {
            if (!t->n_inflight) {
                t->errors++;
                return;
            }
            t->inflight[0] = t->inflight[1];
            t->n_inflight--;
            t->completes++;
        }
    } while (head != tail);
}

/* i915 execlists_submit_ports(): ELSP dwords element 1 upper, lower, element 0 upper, lower;
 * the ports become pending. */
static enum vgt_el_result i915_submit(struct i915 *t, uint64_t d0, uint64_t d1, uint64_t *run)
{
    uint32_t elsp = GEN9_RING_ELSP(igpu_engine_base(t->el.engine));
    enum vgt_el_result r = VGT_EL_NONE;
    const uint32_t dw[4] = { (uint32_t)(d1 >> 32), (uint32_t)d1, (uint32_t)(d0 >> 32),
                             (uint32_t)d0 };

    assert_true(vgt_el_owns(&t->el, elsp));
    for (unsigned i = 0; i < 4; i++) {
        r = vgt_el_elsp_write(&t->el, dw[i], &t->ops, run);
        if (i < 3)
            assert_int_equal(r, VGT_EL_NONE);
    }
    if (r == VGT_EL_STARTED || r == VGT_EL_LITE_RESTORE || r == VGT_EL_QUEUED) {
        t->pending[0] = d0;
        t->pending[1] = d1;
        t->n_pending = d1 ? 2 : 1;
    }
    return r;
}

#define CTX(lrca, id) \
    gen9_ctx_desc((lrca), (id), \
                  GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT | GEN9_CTX_PRIVILEGE)

static void test_single_request(void **state)
{
    struct i915 t;
    uint64_t a = CTX(0x10000, 0x21), run = 0;
    (void)state;
    setup_engine(&t, IGPU_VCS);
    assert_int_equal(i915_submit(&t, a, 0, &run), VGT_EL_STARTED);
    assert_int_equal(run, a);
    /* The entry lands in CSB entry 0 (the pointers were 5), entry first, pointer last. */
    assert_int_equal(t.n_log, 3);
    assert_int_equal(t.log[0].index, GEN9_HWS_CSB_BUF0_INDEX);
    assert_int_equal(t.log[0].value, GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(t.log[1].index, GEN9_HWS_CSB_BUF0_INDEX + 1);
    assert_int_equal(t.log[1].value, 0);
    assert_int_equal(t.log[2].index, GEN9_HWS_CSB_WRITE_INDEX);
    assert_int_equal(t.log[2].value, 0);
    assert_int_equal(t.irqs, 1);
    i915_process_csb(&t);
    assert_int_equal(t.promotes, 1);
    assert_int_equal(t.n_inflight, 1);

    assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_IDLE);
    assert_int_equal(t.hwsp[GEN9_HWS_CSB_BUF0_INDEX + 2],
                     GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE);
    assert_int_equal(t.hwsp[GEN9_HWS_CSB_BUF0_INDEX + 3], 0x21);
    i915_process_csb(&t);
    assert_int_equal(t.completes, 1);
    assert_int_equal(t.n_inflight, 0);
    assert_int_equal(t.errors, 0);
    assert_int_equal(t.irqs, 2);
    /* The MMIO copy says the same. */
    uint32_t b = GEN9_VCS_BASE;
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0501);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_LO(b, 1)),
                     GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_HI(b, 1)), 0x21);
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_E_NOT_RUNNING);
}

/* Two ports: element switch, then active-to-idle; i915 drains after each interrupt. */
static void test_two_elements(void **state)
{
    struct i915 t;
    uint64_t a = CTX(0x10000, 1), b = CTX(0x20000, 2), next = 0;
    (void)state;
    setup_engine(&t, IGPU_RCS);
    assert_int_equal(i915_submit(&t, a, b, NULL), VGT_EL_STARTED);
    i915_process_csb(&t);
    assert_int_equal(t.n_inflight, 2);
    assert_int_equal(vgt_el_active(&t.el), a);
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, &next), VGT_EL_NEXT);
    assert_int_equal(next, b);
    assert_int_equal(t.el.csb[1][0], GEN9_CTX_STATUS_ELEMENT_SWITCH | GEN9_CTX_STATUS_COMPLETE);
    assert_int_equal(t.el.csb[1][1], 1);
    i915_process_csb(&t);
    assert_int_equal(t.n_inflight, 1);
    assert_int_equal(t.inflight[0], b);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_EXECLIST_STATUS_HI(GEN9_RCS_BASE)), 2);
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_IDLE);
    assert_int_equal(t.el.csb[2][1], 2);
    i915_process_csb(&t);
    assert_int_equal(t.n_inflight, 0);
    assert_int_equal(t.errors, 0);
}

/* i915 resubmits the running context with a new tail (a lite restore): PREEMPTED|LITE_RESTORE
 * promotes the new pending ports; the context completes once, at its last tail. */
static void test_lite_restore(void **state)
{
    struct i915 t;
    uint64_t a = CTX(0x10000, 5), c = CTX(0x30000, 6), run = 0, next = 0;
    (void)state;
    setup_engine(&t, IGPU_BCS);
    assert_int_equal(i915_submit(&t, a, 0, NULL), VGT_EL_STARTED);
    i915_process_csb(&t);
    assert_int_equal(i915_submit(&t, a, 0, &run), VGT_EL_LITE_RESTORE);
    assert_int_equal(run, a);
    assert_int_equal(t.el.csb[1][0], GEN9_CTX_STATUS_PREEMPTED | GEN9_CTX_STATUS_LITE_RESTORE);
    assert_int_equal(t.el.csb[1][1], 5);
    i915_process_csb(&t);
    assert_int_equal(t.promotes, 2);
    /* Again, now adding a second port behind it. */
    assert_int_equal(i915_submit(&t, a, c, NULL), VGT_EL_LITE_RESTORE);
    i915_process_csb(&t);
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, &next), VGT_EL_NEXT);
    assert_int_equal(next, c);
    i915_process_csb(&t);
    /* Element 1 is active: resubmitting it as element 0 is GVT-g's other lite-restore case. */
    assert_int_equal(i915_submit(&t, c, 0, NULL), VGT_EL_LITE_RESTORE);
    i915_process_csb(&t);
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_IDLE);
    i915_process_csb(&t);
    assert_int_equal(t.errors, 0);
    assert_int_equal(t.el.st.lite_restores, 3);
    assert_int_equal(t.n_inflight, 0);
}

/* Events accumulate while i915 does not look (its tasklet runs later), and the pointer wraps
 * 5 -> 0 .. 5 -> 0 across many requests. */
static void test_batched_events_and_wrap(void **state)
{
    struct i915 t;
    (void)state;
    setup_engine(&t, IGPU_VECS);
    for (unsigned i = 0; i < 40; i++) {
        uint64_t a = CTX(0x10000 + 0x1000 * (i % 3), i), b = CTX(0x40000, 100 + i);
        assert_int_equal(i915_submit(&t, a, i % 2 ? b : 0, NULL), VGT_EL_STARTED);
        if (i % 4 == 0)
            i915_process_csb(&t); /* sometimes drain between events */
        if (i % 2)
            assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_NEXT);
        assert_int_equal(vgt_el_complete(&t.el, &t.ops, NULL), VGT_EL_IDLE);
        i915_process_csb(&t); /* at most 3 events pending: fits in 6 */
        assert_int_equal(t.errors, 0);
        assert_int_equal(t.n_inflight, 0);
    }
    assert_int_equal(t.promotes, 40);
    assert_int_equal(t.completes, 60);
    assert_int_equal(t.el.st.events, 100);
    assert_int_equal(t.csb_head, (5 + 100) % 6);
    assert_int_equal(t.irqs, 100);
}

/* A different context submitted while one runs waits (no preemption in a vGPU): when the
 * running list ends, ACTIVE_IDLE|COMPLETE then IDLE_ACTIVE, with one interrupt. */
static void test_queued_list(void **state)
{
    struct i915 t;
    uint64_t a = CTX(0x10000, 1), c = CTX(0x30000, 3), next = 0;
    (void)state;
    setup_engine(&t, IGPU_RCS);
    assert_int_equal(i915_submit(&t, a, 0, NULL), VGT_EL_STARTED);
    i915_process_csb(&t);
    assert_int_equal(vgt_el_submit(&t.el, c, 0, &t.ops, NULL), VGT_EL_QUEUED);
    assert_true(vgt_el_read(&t.el, GEN9_RING_EXECLIST_STATUS_LO(GEN9_RCS_BASE)) &
                GEN9_EXECLIST_QFULL);
    /* A third submission finds the queue full. */
    assert_int_equal(vgt_el_submit(&t.el, a, 0, &t.ops, NULL), VGT_EL_E_QFULL);
    unsigned irqs = t.irqs;
    assert_int_equal(vgt_el_complete(&t.el, &t.ops, &next), VGT_EL_STARTED);
    assert_int_equal(next, c);
    assert_int_equal(t.irqs, irqs + 1);
    assert_int_equal(t.el.csb[1][0], GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE);
    assert_int_equal(t.el.csb[2][0], GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(vgt_el_active(&t.el), c);
    assert_int_equal(t.el.st.refused, 1);
    assert_int_equal(t.el.st.queued, 1);
}

static void test_invalid_and_reset(void **state)
{
    struct i915 t;
    uint32_t b = GEN9_BCS_BASE;
    (void)state;
    setup_engine(&t, IGPU_BCS);
    assert_int_equal(i915_submit(&t, CTX(0x10000, 1) & ~GEN9_CTX_VALID, 0, NULL), VGT_EL_E_INVALID);
    assert_int_equal(t.el.st.events, 0);
    assert_int_equal(t.irqs, 0);

    /* Reset values, as GVT-g's init_vgpu_execlist() sets them and i915 expects after reset:
     * write 7 ("nothing yet"), read 0. */
    vgt_el_init(&t.el, IGPU_BCS);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0007);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_EXECLIST_STATUS_LO(b)),
                     GEN9_EXECLIST_WRITE_POINTER);
    assert_int_equal(vgt_el_submit(&t.el, CTX(0x10000, 1), 0, &t.ops, NULL), VGT_EL_STARTED);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0000); /* 7 -> entry 0 */
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_EXECLIST_STATUS_LO(b)),
                     GEN9_EXECLIST_CURRENT_POINTER | GEN9_EXECLIST1_VALID | GEN9_EXECLIST1_ACTIVE);
    vgt_el_reset(&t.el);
    assert_int_equal(vgt_el_active(&t.el), 0);
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0007);

    /* Masked pointer writes: only the selected bits change. */
    vgt_el_write(&t.el, GEN9_RING_CSB_PTR(b), 0x00000304); /* no mask: nothing */
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0007);
    vgt_el_write(&t.el, GEN9_RING_CSB_PTR(b), 0x07000304); /* read pointer only */
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_PTR(b)), 0x0307);
    vgt_el_write(&t.el, GEN9_RING_CSB_LO(b, 0), 0x1234); /* entries are read-only */
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_CSB_LO(b, 0)), GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_true(vgt_el_owns(&t.el, GEN9_RING_CSB_HI(b, 5)));
    assert_false(vgt_el_owns(&t.el, GEN9_RING_CSB_LO(b, 6) + 8));
    assert_false(vgt_el_owns(&t.el, GEN9_RING_ELSP(GEN9_RCS_BASE)));
    assert_int_equal(vgt_el_read(&t.el, GEN9_RING_ELSP(b)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_request), cmocka_unit_test(test_two_elements),
        cmocka_unit_test(test_lite_restore),   cmocka_unit_test(test_batched_events_and_wrap),
        cmocka_unit_test(test_queued_list),    cmocka_unit_test(test_invalid_and_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
