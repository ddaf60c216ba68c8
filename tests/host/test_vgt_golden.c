/*
 * The i915 vGPU's building blocks strung together the way the vGPU device will use them
 * (docs/vgpu-i915.md, "Wiring"): BAR0 accesses routed to the register file, the GT interrupt
 * controller and the execlist sequencers; the PV info page's PPGTT notifications to the PPGTT
 * shadow; an ELSP submission running the context's ring on the MI-only command streamer with
 * PPGTT translation, then completing with CSB events, the status-page mirror and an MSI.
 *
 * The guest side follows i915 6.1: gen8_irq_reset()/postinstall, enable_execlists() and
 * reset_csb_pointers() per engine, gen8_ppgtt_notify_vgt(), the golden-context requests of
 * __engines_record_defaults() on all four engines (the render one with its workaround loads
 * and golden state batch), gen8_irq_handler() on every MSI and process_csb() from the status
 * page.  Then a user batch through its PPGTT, and a hostile one: a PPGTT entry outside its RAM,
 * a context naming a page directory it never announced; each fails its request (an engine
 * fault i915 sees as a CS error), is counted, and the engine recovers after i915's reset
 * (RESET_CTL, GDRST, CSB pointers).  (The blitter's real path is the scanner and the model or
 * the GPU; its golden request is MI-only, so the streamer stands in for it here.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "drivers/igpu/cs/cs.h"
#include "drivers/igpu/gen9_context.h"
#include "include/tessera/abi/vgpu.h"
#include "tests/unit/i915_null_state.h"
#include "tests/unit/test_vgt_ppgtt_fixture.h"
#include "vmm/vgpu/i915/vgt/vgt_execlist.h"
#include "vmm/vgpu/i915/vgt/vgt_irq.h"
#include "vmm/vgpu/i915/vgt/vgt_regs.h"

#define NE IGPU_NUM_GT_ENGINES
static const enum igpu_engine eng[NE] = { IGPU_RCS, IGPU_BCS, IGPU_VCS, IGPU_VECS };

/* ---- the vGPU side ------------------------------------------------------------------------- */

struct vg {
    struct px *px; /* guest RAM, its EPT, the PPGTT shadow's host pages */
    struct vgt_regs regs;
    struct vgt_irq irq;
    struct vgt_execlist el[NE];
    struct vgt_el_ops el_ops;
    uint32_t hws_pga[NE];
    uint64_t pv_pdp0;
    unsigned msis;
    uint64_t faults[IGPU_CS_F_COUNT];
    char last_fault[128];
};

static struct vg vg;

static void msi_if(bool send)
{
    if (send)
        vg.msis++; /* vm_deliver_msi(vm, msi_addr, msi_data) */
}

static void on_interrupt(void *ctx, enum igpu_engine e, uint32_t bits)
{
    (void)ctx;
    msi_if(vgt_irq_event(&vg.irq, e, bits));
}

/* The engine's status page is a GGTT address; the guest's GGTT maps graphics address g to
 * guest-physical g here (the vGPU's shadow GGTT translates it). */
static void hwsp_write(void *ctx, enum igpu_engine e, uint32_t index, uint32_t value)
{
    (void)ctx;
    if (vg.hws_pga[e])
        memcpy(&vg.px->ram[vg.hws_pga[e] + 4u * index], &value, 4);
}

struct run_ctx {
    enum igpu_engine e;
    uint64_t pml4;
};

static int cs_mem(void *ctx, enum igpu_cs_space s, uint64_t ga, void *buf, uint32_t len,
                  enum igpu_cs_access how)
{
    struct run_ctx *rc = ctx;
    bool write = how == IGPU_CS_WRITE;
    uint64_t gpa = ga, hpa;
    if (s == IGPU_CS_PPGTT) {
        if (vgt_ppgtt_translate(vg.px->p, rc->pml4, ga, write, &hpa, NULL, NULL) != VGT_PPGTT_OK)
            return -1;
        gpa = hpa - PX_HPA_BASE;
    }
    if (gpa >= PX_RAM_BYTES || len > PX_RAM_BYTES - gpa)
        return -1; /* outside the guest's graphics memory */
    if (write)     /* the GPU writes past the EPT, as hardware does */
        memcpy(&vg.px->ram[gpa], buf, len);
    else
        memcpy(buf, &vg.px->ram[gpa], len);
    return 0;
}

static int cs_reg_write(void *ctx, uint32_t reg, uint32_t val)
{
    (void)ctx;
    vgt_regs_write(&vg.regs, reg, val, NULL); /* an allowed LRI lands in the guest's file */
    return 0;
}

static int cs_reg_read(void *ctx, uint32_t reg, uint32_t *val)
{
    (void)ctx;
    *val = vgt_regs_read(&vg.regs, reg);
    return 0;
}

static void cs_event(void *ctx, uint32_t bits)
{
    on_interrupt(NULL, ((struct run_ctx *)ctx)->e, bits);
}

static uint32_t rd32(uint64_t gpa)
{
    uint32_t v;
    memcpy(&v, &vg.px->ram[gpa], 4);
    return v;
}

static void wr32(uint64_t gpa, uint32_t v)
{
    memcpy(&vg.px->ram[gpa], &v, 4);
}

/* Run the element `desc` on engine e's MI-only streamer, then complete it (and whatever runs
 * next).  A fault hangs the engine: no completion, RING_EIR and CS_MASTER_ERROR. */
static void run(enum igpu_engine e, uint64_t desc)
{
    static const struct igpu_scan_reg *regs[NE] = { igpu_cs_i915_regs_rcs, igpu_cs_i915_regs_vecs,
                                                    igpu_cs_i915_regs_vcs, igpu_cs_i915_regs_vecs };
    static const size_t *nregs[NE] = { &igpu_cs_i915_regs_rcs_count, &igpu_cs_i915_regs_vecs_count,
                                       &igpu_cs_i915_regs_vcs_count,
                                       &igpu_cs_i915_regs_vecs_count };
    for (;;) {
        uint32_t lrca = gen9_ctx_desc_lrca(desc), st = lrca + GEN9_LRC_STATE_OFFSET;
        struct run_ctx rc = { e, (uint64_t)rd32(st + 4u * GEN9_CTX_PDP0_UDW) << 32 |
                                     rd32(st + 4u * GEN9_CTX_PDP0_LDW) };
        struct igpu_cs_config cfg = { .engine = e,
                                      .regs = regs[e],
                                      .n_regs = *nregs[e],
                                      .pphwsp_gaddr = lrca,
                                      .ppgtt = true };
        struct igpu_cs_ops ops = { .ctx = &rc,
                                   .mem = cs_mem,
                                   .reg_write = cs_reg_write,
                                   .reg_read = cs_reg_read,
                                   .event = cs_event };
        struct igpu_cs_ring ring = {
            .start = rd32(st + 4u * GEN9_CTX_RING_START),
            .size = ((rd32(st + 4u * GEN9_CTX_RING_CTL) & GEN9_RING_NR_PAGES) >> 12) * 4096u +
                    4096u,
            .head = rd32(st + 4u * GEN9_CTX_RING_HEAD) & GEN9_HEAD_ADDR,
            .tail = rd32(st + 4u * GEN9_CTX_RING_TAIL) & GEN9_TAIL_ADDR,
        };
        struct igpu_cs_result res;
        enum igpu_cs_fault f;

        /* A context whose page directory the guest never announced is not run. */
        if (vgt_ppgtt_root_find(vg.px->p, rc.pml4, NULL) != VGT_PPGTT_OK)
            f = IGPU_CS_F_PPGTT;
        else
            f = igpu_cs_run(&cfg, &ops, &ring, &res);
        if (f != IGPU_CS_OK) {
            vg.faults[f]++;
            snprintf(vg.last_fault, sizeof vg.last_fault, "%s %s", igpu_engine_name(e),
                     f == IGPU_CS_F_PPGTT ? "unannounced page directory" : res.what);
            vgt_regs_engine_error(&vg.regs, e, GEN9_ERROR_INSTRUCTION);
            on_interrupt(NULL, e, GEN9_GT_CS_MASTER_ERROR);
            return;
        }
        wr32(st + 4u * GEN9_CTX_RING_HEAD, res.head); /* CTX_RING_HEAD written back */
        enum vgt_el_result r = vgt_el_complete(&vg.el[e], &vg.el_ops, &desc);
        if (r != VGT_EL_NEXT && r != VGT_EL_STARTED)
            return;
    }
}

/* BAR0 emulation: who owns what (the order the vGPU's vgpu_mmio.c will consult them). */
static void mmio_write(uint32_t off, uint32_t val)
{
    for (unsigned e = 0; e < NE; e++) {
        uint32_t b = igpu_engine_base(eng[e]);
        if (off == GEN9_RING_ELSP(b)) {
            uint64_t desc;
            enum vgt_el_result r = vgt_el_elsp_write(&vg.el[e], val, &vg.el_ops, &desc);
            if (r == VGT_EL_STARTED || r == VGT_EL_LITE_RESTORE)
                run(eng[e], desc);
            return;
        }
        if (vgt_el_owns(&vg.el[e], off)) {
            vgt_el_write(&vg.el[e], off, val);
            return;
        }
        if (off == GEN9_RING_HWS_PGA(b)) {
            vg.hws_pga[e] = val & ~(uint32_t)GEN9_GTT_PAGE_MASK;
            return;
        }
    }
    if (vgt_irq_owns(off)) {
        msi_if(vgt_irq_write(&vg.irq, off, val));
        return;
    }
    if (off == VGT_PVINFO_PAGE + offsetof(struct vgt_if, pdp[0].lo)) {
        vg.pv_pdp0 = (vg.pv_pdp0 & ~0xFFFFFFFFull) | val;
        return;
    }
    if (off == VGT_PVINFO_PAGE + offsetof(struct vgt_if, pdp[0].hi)) {
        vg.pv_pdp0 = (vg.pv_pdp0 & 0xFFFFFFFFull) | (uint64_t)val << 32;
        return;
    }
    if (off == VGT_PVINFO_PAGE + offsetof(struct vgt_if, g2v_notify)) {
        if (val == VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE)
            assert_int_equal(vgt_ppgtt_root_create(vg.px->p, vg.pv_pdp0, NULL, NULL), 0);
        else if (val == VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY)
            vgt_ppgtt_root_destroy(vg.px->p, vg.pv_pdp0);
        return;
    }
    struct vgt_regs_action act;
    assert_true(vgt_regs_owns(off));
    vgt_regs_write(&vg.regs, off, val, &act);
    for (unsigned e = 0; e < NE; e++)
        if (act.reset_engines & (1u << e))
            vgt_el_reset(&vg.el[e]); /* the virtual engine's queue and CSB state */
}

static uint32_t mmio_read(uint32_t off)
{
    for (unsigned e = 0; e < NE; e++)
        if (vgt_el_owns(&vg.el[e], off))
            return vgt_el_read(&vg.el[e], off);
    if (vgt_irq_owns(off))
        return vgt_irq_read(&vg.irq, off);
    assert_true(vgt_regs_owns(off));
    return vgt_regs_read(&vg.regs, off);
}

/* ---- the guest side (i915 6.1) ------------------------------------------------------------ */

struct eng_state {
    uint64_t hwsp, lrca, ring;
    uint32_t tail, seqno;
    uint8_t csb_head;
    unsigned pending, inflight, promotes, completes, errors, cs_errors;
};
static struct eng_state gs[NE];
static uint64_t timeline, pml4, null_state;

static void i915_process_csb(unsigned e)
{
    struct eng_state *s = &gs[e];
    uint8_t head = s->csb_head, tail = (uint8_t)rd32(s->hwsp + 4u * GEN9_HWS_CSB_WRITE_INDEX);
    s->csb_head = tail;
    while (head != tail) {
        if (++head == GEN9_CSB_ENTRIES)
            head = 0;
        uint64_t at = s->hwsp + 4u * (GEN9_HWS_CSB_BUF0_INDEX + 2u * head);
        uint32_t status = rd32(at);
        wr32(at, 0xFFFFFFFF);
        wr32(at + 4, 0xFFFFFFFF);
        if (status & (GEN9_CTX_STATUS_IDLE_ACTIVE | GEN9_CTX_STATUS_PREEMPTED)) {
            if (!s->pending) {
                s->errors++;
                return;
            }
            s->inflight = s->pending;
            s->pending = 0;
            s->promotes++;
        } else {
            if (!s->inflight) {
                s->errors++;
                return;
            }
            s->inflight--;
            s->completes++;
        }
    }
}

/* gen8_irq_handler() -> gen8_gt_irq_handler() -> execlists_irq_handler() per engine. */
static void i915_irq(void)
{
    static const unsigned bank[NE] = { 0, 0, 1, 3 }, shift[NE] = { 0, 16, 0, 0 };
    mmio_write(GEN9_MASTER_IRQ, 0);
    uint32_t master = mmio_read(GEN9_MASTER_IRQ), iir[4] = { 0 };
    if (master & (GEN9_MASTER_GT_RCS_IRQ | GEN9_MASTER_GT_BCS_IRQ))
        iir[0] = mmio_read(GEN9_GT_IIR(0));
    if (master & GEN9_MASTER_GT_VCS0_IRQ)
        iir[1] = mmio_read(GEN9_GT_IIR(1));
    if (master & GEN9_MASTER_GT_VECS_IRQ)
        iir[3] = mmio_read(GEN9_GT_IIR(3));
    for (unsigned b = 0; b < 4; b++)
        if (iir[b])
            mmio_write(GEN9_GT_IIR(b), iir[b]);
    for (unsigned e = 0; e < NE; e++) {
        uint32_t bits = (iir[bank[e]] >> shift[e]) & 0xFFFFu;
        if (bits & GEN9_GT_CS_MASTER_ERROR) {
            uint32_t b = igpu_engine_base(eng[e]);
            uint32_t eir = mmio_read(GEN9_RING_EIR(b)) & 0xFFFFu;
            mmio_write(GEN9_RING_EMR(b), ~0u);
            mmio_write(GEN9_RING_EIR(b), eir);
            if (eir)
                gs[e].cs_errors++;
        }
        if (bits & GEN9_GT_CONTEXT_SWITCH)
            i915_process_csb(e);
    }
    mmio_write(GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
}

static void irq_if_msi(unsigned *seen)
{
    while (vg.msis != *seen) {
        *seen = vg.msis;
        i915_irq();
    }
}

/* reset_csb_pointers() + enable_execlists() + gen8_logical_ring_enable_irq(). */
static void i915_engine_resume(unsigned e)
{
    uint32_t b = igpu_engine_base(eng[e]), shift = e == 1 ? 16 : 0;
    mmio_write(GEN9_RING_CSB_PTR(b), 0xFFFF0505);
    wr32(gs[e].hwsp + 4u * GEN9_HWS_CSB_WRITE_INDEX, 5);
    for (unsigned i = 0; i < 12; i++)
        wr32(gs[e].hwsp + 4u * (GEN9_HWS_CSB_BUF0_INDEX + i), 0xFFFFFFFF);
    gs[e].csb_head = 5;
    mmio_write(GEN9_RING_HWSTAM(b), ~0u);
    mmio_write(GEN9_RING_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    mmio_write(GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    mmio_write(GEN9_RING_HWS_PGA(b), (uint32_t)gs[e].hwsp);
    mmio_write(GEN9_RING_IMR(b), ~((GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH |
                                    GEN9_GT_CS_MASTER_ERROR | GEN9_GT_WAIT_SEMAPHORE)
                                   << shift));
}

static void emit(unsigned e, const uint32_t *dw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wr32(gs[e].ring + gs[e].tail, dw[i]);
        gs[e].tail = (gs[e].tail + 4u) % 4096u;
    }
}
#define EMIT(e, ...) \
    do { \
        const uint32_t d_[] = { __VA_ARGS__ }; \
        emit((e), d_, sizeof d_ / 4u); \
    } while (0)

/* A request: [payload], fini breadcrumb (seqno to the engine's timeline slot: 64-byte slots,
 * as i915 keeps bit 5 of an MI_FLUSH_DW address clear), then the ELSP write of the context
 * with the new tail (execlists_submit_ports()). */
static void i915_request(unsigned e, void (*payload)(unsigned), uint64_t ctx_pml4)
{
    uint64_t slot = timeline + 64u * e, st = gs[e].lrca + GEN9_LRC_STATE_OFFSET;
    uint32_t seqno = ++gs[e].seqno;
    if (payload)
        payload(e);
    if (eng[e] == IGPU_RCS)
        EMIT(e, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_DC_FLUSH, 0, 0, 0, 0, GEN9_PIPE_CONTROL,
             GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                 GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_FLUSH_ENABLE,
             (uint32_t)slot, 0, seqno, 0);
    else
        EMIT(e, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW,
             (uint32_t)slot | GEN9_MI_FLUSH_DW_USE_GTT, 0, seqno);
    EMIT(e, GEN9_MI_USER_INTERRUPT, GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE, GEN9_MI_ARB_CHECK,
         GEN9_MI_NOOP);
    wr32(st + 4u * GEN9_CTX_RING_TAIL, gs[e].tail);
    wr32(st + 4u * GEN9_CTX_PDP0_UDW, (uint32_t)(ctx_pml4 >> 32));
    wr32(st + 4u * GEN9_CTX_PDP0_LDW, (uint32_t)ctx_pml4);
    uint64_t d = gen9_ctx_desc((uint32_t)gs[e].lrca, 0x10 + e,
                               GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                   GEN9_CTX_PRIVILEGE);
    uint32_t elsp = GEN9_RING_ELSP(igpu_engine_base(eng[e]));
    gs[e].pending = 1;
    mmio_write(elsp, 0);
    mmio_write(elsp, 0);
    mmio_write(elsp, (uint32_t)(d >> 32));
    mmio_write(elsp, (uint32_t)d);
}

/* intel_engine_emit_ctx_wa() (flush barriers around one LRI) and intel_renderstate_emit(). */
static void golden_rcs(unsigned e)
{
    EMIT(e, GEN9_PIPE_CONTROL, 0, 0, 0, 0, 0, GEN9_PIPE_CONTROL,
         GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE |
             GEN9_PIPE_CONTROL_STORE_DATA_INDEX,
         0xD0, 0, 0, 0, GEN9_MI_LOAD_REGISTER_IMM(2), GEN9_CACHE_MODE_1, 0x00220022,
         GEN9_HALF_SLICE_CHICKEN3, 0x00020002, GEN9_MI_NOOP, GEN9_MI_ARB_ON_OFF,
         GEN9_MI_BATCH_BUFFER_START, (uint32_t)null_state, 0);
}

static void setup_guest(void)
{
    memset(&vg, 0, sizeof vg);
    memset(gs, 0, sizeof gs);
    vg.px = calloc(1, sizeof *vg.px);
    assert_non_null(vg.px);
    vg.px->next_page = 1;
    struct vgt_ppgtt_config c = px_config(vg.px, 0);
    assert_int_equal(vgt_ppgtt_create(&c, &vg.px->p), 0);
    assert_true(vgt_regs_init(&vg.regs, 12000000));
    vgt_irq_init(&vg.irq);
    vg.el_ops = (struct vgt_el_ops){ .hwsp_write = hwsp_write, .interrupt = on_interrupt };
    for (unsigned e = 0; e < NE; e++) {
        vgt_el_init(&vg.el[e], eng[e]);
        gs[e].hwsp = px_page(vg.px);
        gs[e].lrca = px_page(vg.px);
        px_page(vg.px); /* the context's register-state page */
        gs[e].ring = px_page(vg.px);
        uint64_t st = gs[e].lrca + GEN9_LRC_STATE_OFFSET;
        wr32(st + 4u * GEN9_CTX_RING_START, (uint32_t)gs[e].ring);
        wr32(st + 4u * GEN9_CTX_RING_CTL, GEN9_RING_VALID); /* one page */
    }
    timeline = px_page(vg.px);
    null_state = px_page(vg.px);
    uint32_t dw[I915_NULL_STATE_MAX_DW];
    unsigned skipped;
    size_t n = i915_null_state(dw, &skipped);
    memcpy(&vg.px->ram[null_state], dw, 4 * n);
    /* The kernel context's PPGTT (gen8_ppgtt_create() -> gen8_ppgtt_notify_vgt()). */
    px_scratch(vg.px);
    pml4 = px_pml4(vg.px);
}

static int setup(void **state)
{
    (void)state;
    setup_guest();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    vgt_ppgtt_destroy(vg.px->p);
    assert_int_equal(vg.px->host_live, 0);
    assert_int_equal(vg.px->protect_calls, vg.px->unprotect_calls);
    free(vg.px);
    return 0;
}

static void boot_and_golden(void)
{
    unsigned seen = 0;
    /* gen8_irq_reset(), gen8_irq_postinstall() and the master enable. */
    mmio_write(GEN9_MASTER_IRQ, 0);
    const uint32_t irqs = GEN9_GT_CS_MASTER_ERROR | GEN9_GT_USER_INTERRUPT |
                          GEN9_GT_CONTEXT_SWITCH | GEN9_GT_WAIT_SEMAPHORE;
    const uint32_t ier[4] = { irqs | irqs << 16, irqs | irqs << 16, 0, irqs };
    for (unsigned b = 0; b < 4; b++) {
        mmio_write(GEN9_GT_IMR(b), ~0u);
        mmio_write(GEN9_GT_IER(b), 0);
        mmio_write(GEN9_GT_IIR(b), ~0u);
        assert_int_equal(mmio_read(GEN9_GT_IIR(b)), 0);
        mmio_write(GEN9_GT_IER(b), ier[b]);
        mmio_write(GEN9_GT_IMR(b), ~ier[b]);
    }
    mmio_write(GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    mmio_write(VGT_PVINFO_PAGE + offsetof(struct vgt_if, pdp[0].lo), (uint32_t)pml4);
    mmio_write(VGT_PVINFO_PAGE + offsetof(struct vgt_if, pdp[0].hi), 0);
    mmio_write(VGT_PVINFO_PAGE + offsetof(struct vgt_if, g2v_notify),
               VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE);
    for (unsigned e = 0; e < NE; e++)
        i915_engine_resume(e);

    /* __engines_record_defaults(): one request per engine. */
    for (unsigned e = 0; e < NE; e++) {
        unsigned before = vg.msis;
        i915_request(e, eng[e] == IGPU_RCS ? golden_rcs : NULL, pml4);
        assert_int_equal(vg.msis, before + 1); /* one edge: the handler is not running */
        irq_if_msi(&seen);
    }
    if (vg.last_fault[0])
        print_error("unexpected fault: %s\n", vg.last_fault);
    for (unsigned e = 0; e < NE; e++) {
        assert_int_equal(rd32(timeline + 64u * e), 1); /* the breadcrumb */
        assert_int_equal(gs[e].promotes, 1);           /* IDLE_ACTIVE */
        assert_int_equal(gs[e].completes, 1);          /* ACTIVE_IDLE */
        assert_int_equal(gs[e].errors, 0);
        assert_int_equal(gs[e].inflight + gs[e].pending, 0); /* idle: not wedged */
        assert_int_equal(vgt_el_active(&vg.el[e]), 0);
        assert_int_equal(rd32(gs[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD),
                         gs[e].tail);
    }
    assert_int_equal(vgt_regs_read(&vg.regs, GEN9_CACHE_MODE_1), 0x22); /* the LRI */
    assert_int_equal(mmio_read(GEN9_MASTER_IRQ), GEN9_MASTER_IRQ_CONTROL);

    /* engine park: a breadcrumb-only request on the kernel context, twice (a lite restore
     * would need the first still running: here each completes at ELSP time). */
    for (unsigned k = 0; k < 2; k++)
        for (unsigned e = 0; e < NE; e++) {
            i915_request(e, NULL, pml4);
            irq_if_msi(&seen);
            assert_int_equal(rd32(timeline + 64u * e), 2 + k);
        }
    assert_int_equal(vg.msis, 12);
    for (unsigned e = 0; e < NE; e++)
        assert_int_equal(gs[e].errors + gs[e].cs_errors, 0);
}

static void test_golden_contexts(void **state)
{
    (void)state;
    boot_and_golden();
}

/* A user batch through the PPGTT, then the hostile guest. */
static uint64_t user_va, user_page;
static void user_store(unsigned e)
{
    EMIT(e, GEN9_MI_ARB_ON_OFF, GEN9_MI_STORE_DATA_IMM, (uint32_t)user_va,
         (uint32_t)(user_va >> 32), 0xC0FFEE);
}

static void i915_engine_reset(unsigned e)
{
    uint32_t b = igpu_engine_base(eng[e]);
    mmio_write(GEN9_RING_RESET_CTL(b), GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET));
    assert_true(mmio_read(GEN9_RING_RESET_CTL(b)) & GEN9_RESET_CTL_READY_TO_RESET);
    mmio_write(GEN9_GDRST, igpu_engine_reset_domain(eng[e]));
    assert_int_equal(mmio_read(GEN9_GDRST), 0);
    mmio_write(GEN9_RING_RESET_CTL(b), GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
    gs[e].pending = gs[e].inflight = 0; /* i915 unwinds the guilty request */
    wr32(gs[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD, gs[e].tail);
    i915_engine_resume(e);
}

static void test_ppgtt_user_and_hostile(void **state)
{
    unsigned seen, vcs = 2;
    (void)state;
    boot_and_golden();
    seen = vg.msis;
    user_va = 0x7FFF00010000ull;
    user_page = px_page(vg.px);
    px_bind(vg.px, pml4, user_va, PX_PTE(user_page)); /* trapped, re-shadowed */
    i915_request(vcs, user_store, pml4);
    irq_if_msi(&seen);
    assert_int_equal(rd32(user_page), 0xC0FFEE);
    assert_int_equal(gs[vcs].errors + gs[vcs].cs_errors, 0);

    /* Hostile: the entry now points at another guest's memory. */
    uint64_t pt = px_bind(vg.px, pml4, user_va, PX_PTE(PX_RAM_BYTES + 0x100000));
    (void)pt;
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(vg.px->p);
    assert_int_equal(st->refused[VGT_PPGTT_R_OUTSIDE_RAM], 1);
    uint32_t seq = rd32(timeline + 64u * vcs);
    i915_request(vcs, user_store, pml4);
    irq_if_msi(&seen);
    assert_int_equal(vg.faults[IGPU_CS_F_MEMORY], 1);
    assert_int_equal(gs[vcs].cs_errors, 1);            /* i915: "CS error" */
    assert_int_equal(rd32(timeline + 64u * vcs), seq); /* the request did not finish */
    assert_non_null(strstr(vg.last_fault, "MI_STORE_DATA_IMM"));
    i915_engine_reset(vcs);
    assert_int_equal(vgt_el_active(&vg.el[vcs]), 0);

    /* Hostile: a context naming a page directory it never announced. */
    uint64_t foreign = px_pml4(vg.px);
    i915_request(vcs, NULL, foreign);
    irq_if_msi(&seen);
    assert_int_equal(vg.faults[IGPU_CS_F_PPGTT], 1);
    assert_int_equal(st->refused[VGT_PPGTT_R_UNKNOWN_ROOT], 1);
    assert_non_null(strstr(vg.last_fault, "unannounced page directory"));
    i915_engine_reset(vcs);

    /* Recovered: the next request runs and completes. */
    px_bind(vg.px, pml4, user_va, PX_PTE(user_page));
    i915_request(vcs, user_store, pml4);
    irq_if_msi(&seen);
    assert_int_equal(rd32(timeline + 64u * vcs), seq + 3);
    assert_int_equal(gs[vcs].errors, 0);
    assert_int_equal(gs[vcs].inflight + gs[vcs].pending, 0);

    /* i915 destroys its PPGTT: every table released and unprotected. */
    mmio_write(VGT_PVINFO_PAGE + offsetof(struct vgt_if, g2v_notify),
               VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY);
    assert_int_equal(st->roots, 0);
    assert_int_equal(st->tables, 0);
    assert_int_equal(vg.px->host_live, 3); /* the scratch tables */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_golden_contexts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ppgtt_user_and_hostile, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
