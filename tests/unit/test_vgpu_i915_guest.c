/* The i915 vGPU wired into the vGPU device (docs/vgpu-i915.md, "Wiring"), driven through BAR0
 * as i915 6.1 drives it, with the real gtt/, sched/, scanner and software model behind it:
 *  - the PV info page advertises FULL_PPGTT | HWSP_EMULATION (a Tessera guest's still reads 0);
 *  - gen8_irq_reset()/postinstall, reset_csb_pointers() + enable_execlists() per engine, the
 *    kernel PPGTT announced (its table pages write-protected);
 *  - a breadcrumb request on each of the four engines: RCS/VCS/VECS on the MI-only streamer,
 *    BCS through the scanner and the model; each completes with IDLE_ACTIVE then
 *    ACTIVE_IDLE|COMPLETE in its status page, its seqno, RING_HEAD written back, and MSIs;
 *  - a user store through the PPGTT (VCS), a PPGTT batch on the blitter (run as its GGTT copy);
 *  - hostile: a page-table entry rewritten to point outside the guest's RAM (the write exits,
 *    the page goes out of sync and is checked before the next run): refused and counted, the
 *    request fails with CS_MASTER_ERROR and RING_EIR, and the engine recovers after i915's
 *    reset (RESET_CTL, GDRST); a blitter context naming a page directory never announced;
 *  - a guest restart drops every PPGTT and gives every page back. */
#include "test_vgpu_fixture.h"
#include "test_vgpu_i915_env.h"

#include "vmm/vgpu/core/vgpu_internal.h"
#include "vmm/vgpu/i915/i915.h"

#define NE         IGPU_NUM_GT_ENGINES
#define G          0u                /* the i915 guest; guest 1 stays a Tessera guest */
#define VA         0x7FFF00010000ull /* a user address in the PPGTT */
#define RING_PAGES 4u                /* 16 KiB: i915's user contexts (intel_context_set_gem()) */

/* What the hypervisor gives an i915 vGPU: test_vgpu_i915_env.h (only guest G is one here). */
#define hv_is_protected(gpa) hv_protected(G, (gpa))

/* ---- the guest: RAM pages, the PPGTT, contexts -------------------------------------------- */

static struct fx *f;
static const enum igpu_engine eng[NE] = { IGPU_RCS, IGPU_BCS, IGPU_VCS, IGPU_VECS };
static struct {
    uint64_t lrca, ring, hwsp;
    uint32_t tail, seqno;
} ctx[NE];
static uint64_t timeline, pml4, pd, pt, data_page, scratch, scratch_pt;

static uint64_t ram_page(void)
{
    uint64_t gpa = f->g[G].gpa_next;
    f->g[G].gpa_next += 4096;
    memset(fx_gpa(f, G, gpa), 0, 4096);
    return gpa;
}

/* The guest's CPU writes a PPGTT entry: if the page is protected the write exits first
 * (vgpu_table_write), then it is done. */
static void cpu_write64(uint64_t gpa, uint64_t val)
{
    if (hv_is_protected(gpa & ~4095ull))
        assert_true(vgpu_table_write(fx_v(f, G), gpa));
    memcpy(fx_gpa(f, G, gpa), &val, 8);
}

static void fill(uint64_t table, uint64_t entry)
{
    for (unsigned i = 0; i < 512; i++)
        memcpy(fx_gpa(f, G, table + 8u * i), &entry, 8);
}

#define PDE(gpa) ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW)

/* i915's layout (gen8_init_scratch()): unused entries point at one scratch table per level. */
static void build_ppgtt(void)
{
    scratch = ram_page();
    uint64_t spt = scratch_pt = ram_page(), spd = ram_page(), spdp = ram_page();
    fill(spt, scratch | GEN9_PPGTT_PRESENT);
    fill(spd, PDE(spt));
    fill(spdp, PDE(spd));
    pml4 = ram_page();
    fill(pml4, PDE(spdp));
    uint64_t pdp = ram_page();
    pd = ram_page();
    pt = ram_page();
    fill(pdp, PDE(spd));
    fill(pd, PDE(spt));
    fill(pt, scratch | GEN9_PPGTT_PRESENT);
    data_page = ram_page();
    memcpy(fx_gpa(f, G, pml4 + 8u * gen9_ppgtt_index(VA, 3)), &(uint64_t){ PDE(pdp) }, 8);
    memcpy(fx_gpa(f, G, pdp + 8u * gen9_ppgtt_index(VA, 2)), &(uint64_t){ PDE(pd) }, 8);
    memcpy(fx_gpa(f, G, pd + 8u * gen9_ppgtt_index(VA, 1)), &(uint64_t){ PDE(pt) }, 8);
    memcpy(fx_gpa(f, G, pt + 8u * gen9_ppgtt_index(VA, 0)), &(uint64_t){ PDE(data_page) }, 8);
}

static void pv_w32(uint32_t field, uint32_t val)
{
    fx_w32(f, G, VGT_PVINFO_PAGE + field, val);
}

static void announce(uint64_t root, uint32_t what)
{
    pv_w32(offsetof(struct vgt_if, pdp[0].lo), (uint32_t)root);
    pv_w32(offsetof(struct vgt_if, pdp[0].hi), (uint32_t)(root >> 32));
    pv_w32(offsetof(struct vgt_if, g2v_notify), what);
}

static uint32_t base(unsigned e)
{
    return igpu_engine_base(eng[e]);
}

static void set_pdp0(unsigned e, uint64_t root)
{
    fx_wr(f, G, ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_PDP0_UDW,
          (uint32_t)(root >> 32));
    fx_wr(f, G, ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_PDP0_LDW, (uint32_t)root);
}

/* reset_csb_pointers() + enable_execlists() + the engine's interrupt unmask. */
static void engine_resume(unsigned e)
{
    fx_w32(f, G, GEN9_RING_CSB_PTR(base(e)), 0xFFFF0505);
    fx_wr(f, G, ctx[e].hwsp + 4u * GEN9_HWS_CSB_WRITE_INDEX, 5);
    fx_w32(f, G, GEN9_RING_HWSTAM(base(e)), ~0u);
    fx_w32(f, G, GEN9_RING_MODE(base(e)), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    fx_w32(f, G, GEN9_RING_MI_MODE(base(e)), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    fx_w32(f, G, GEN9_RING_HWS_PGA(base(e)), (uint32_t)ctx[e].hwsp);
    uint32_t shift = eng[e] == IGPU_BCS ? 16 : 0;
    fx_w32(f, G, GEN9_RING_IMR(base(e)),
           ~((GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR) << shift));
}

static void setup_i915(void)
{
    memset(ctx, 0, sizeof ctx);
    f = fx_create(NULL);
    hv_install(f);
    assert_int_equal(vgpu_set_personality(fx_v(f, G), &vgpu_i915), 0);

    /* gen8_irq_reset(), gen8_irq_postinstall(), master on. */
    const uint32_t irqs = GEN9_GT_CS_MASTER_ERROR | GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH;
    const uint32_t ier[4] = { irqs | irqs << 16, irqs, 0, irqs };
    fx_w32(f, G, GEN9_MASTER_IRQ, 0);
    for (unsigned b = 0; b < 4; b++) {
        fx_w32(f, G, GEN9_GT_IMR(b), ~0u);
        fx_w32(f, G, GEN9_GT_IIR(b), ~0u);
        fx_w32(f, G, GEN9_GT_IER(b), ier[b]);
        fx_w32(f, G, GEN9_GT_IMR(b), ~ier[b]);
    }
    fx_w32(f, G, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);

    build_ppgtt();
    announce(pml4, VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE);
    timeline = fx_gm_alloc(f, G, 1, NULL);
    for (unsigned e = 0; e < NE; e++) {
        ctx[e].lrca = fx_gm_alloc(f, G, 2, NULL);
        ctx[e].ring = fx_gm_alloc(f, G, RING_PAGES, NULL);
        ctx[e].hwsp = fx_gm_alloc(f, G, 1, NULL);
        uint64_t st = ctx[e].lrca + GEN9_LRC_STATE_OFFSET;
        fx_wr(f, G, st + 4u * GEN9_CTX_RING_START, (uint32_t)ctx[e].ring);
        fx_wr(f, G, st + 4u * GEN9_CTX_RING_CTL, GEN9_RING_VALID | (RING_PAGES - 1u) << 12);
        set_pdp0(e, pml4);
        engine_resume(e);
    }
}

static int setup(void **state)
{
    setup_i915();
    return 0;
}

static int teardown(void **state)
{
    fx_destroy(f);
    assert_int_equal(hv.pages_live, 0);
    return 0;
}

/* ---- i915's side ------------------------------------------------------------------------ */

static void emit(unsigned e, const uint32_t *dw, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        fx_wr(f, G, ctx[e].ring + ctx[e].tail, dw[i]);
        ctx[e].tail = (ctx[e].tail + 4u) % (RING_PAGES * 4096u);
    }
}
#define EMIT(e, ...) \
    do { \
        const uint32_t d_[] = { __VA_ARGS__ }; \
        emit((e), d_, sizeof d_ / 4u); \
    } while (0)

/* [payload] and the fini breadcrumb (seqno into the timeline), the new tail in the context. */
static uint32_t add_request(unsigned e, void (*payload)(unsigned))
{
    uint64_t slot = timeline + 64u * e;
    uint32_t seqno = ++ctx[e].seqno;
    if (payload)
        payload(e);
    if (eng[e] == IGPU_RCS)
        EMIT(e, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_DC_FLUSH, 0, 0, 0, 0, GEN9_PIPE_CONTROL,
             GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                 GEN9_PIPE_CONTROL_CS_STALL,
             (uint32_t)slot, 0, seqno, 0);
    else
        EMIT(e, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW,
             (uint32_t)slot | GEN9_MI_FLUSH_DW_USE_GTT, 0, seqno);
    EMIT(e, GEN9_MI_USER_INTERRUPT, GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE, GEN9_MI_ARB_CHECK,
         GEN9_MI_NOOP);
    if (ctx[e].tail & 7u)
        EMIT(e, GEN9_MI_NOOP);
    fx_wr(f, G, ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_TAIL, ctx[e].tail);
    return seqno;
}

/* The ELSP write: the context in element 0. */
static void submit(unsigned e)
{
    uint64_t d = gen9_ctx_desc((uint32_t)ctx[e].lrca, 0x10 + e,
                               GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                   GEN9_CTX_PRIVILEGE);
    uint32_t elsp = GEN9_RING_ELSP(base(e));
    fx_w32(f, G, elsp, 0);
    fx_w32(f, G, elsp, 0);
    fx_w32(f, G, elsp, (uint32_t)(d >> 32));
    fx_w32(f, G, elsp, (uint32_t)d);
}

static uint32_t request(unsigned e, void (*payload)(unsigned))
{
    uint32_t seqno = add_request(e, payload);
    submit(e);
    return seqno;
}

static uint32_t seqno_of(unsigned e)
{
    return fx_rd(f, G, timeline + 64u * e);
}

/* Every engine's work runs in the render loop (the blitter on the model, the others on the
 * MI-only streamer): it runs until nothing is left to do. */
static void settle(void)
{
    for (unsigned i = 0; i < 20000 && vgpu_render_step(f->dev); i++)
        ;
}

static void wait_seqno(unsigned e, uint32_t seqno)
{
    for (unsigned i = 0; i < 20000 && (int32_t)(seqno_of(e) - seqno) < 0; i++)
        vgpu_render_step(f->dev);
    assert_int_equal(seqno_of(e), seqno);
}

static uint32_t csb(unsigned e, unsigned i)
{
    return fx_rd(f, G, ctx[e].hwsp + 4u * (GEN9_HWS_CSB_BUF0_INDEX + 2u * i));
}

/* gen8_irq_handler(): the IIR bits of bank b, cleared. */
static uint32_t take_iir(unsigned b)
{
    fx_w32(f, G, GEN9_MASTER_IRQ, 0);
    uint32_t iir = (uint32_t)fx_r(f, G, GEN9_GT_IIR(b), 4);
    fx_w32(f, G, GEN9_GT_IIR(b), iir);
    fx_w32(f, G, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    return iir;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_caps_and_msi_capability(void **state)
{
    /* i915_driver_hw_probe(): both caps present, so no -ENXIO. */
    uint32_t caps = (uint32_t)fx_r(f, G, VGT_PVINFO_PAGE + offsetof(struct vgt_if, vgt_caps), 4);
    assert_int_equal(caps, VGT_CAPS_FULL_PPGTT | VGT_CAPS_HWSP_EMULATION);
    assert_int_equal(fx_r(f, 1, VGT_PVINFO_PAGE + offsetof(struct vgt_if, vgt_caps), 4), 0);
    assert_true(vgpu_is_i915(fx_v(f, G)));
    assert_false(vgpu_is_i915(fx_v(f, 1)));
    /* The kernel PPGTT's seven table pages (PML4, PDP, PD, PT and three scratch tables) are
     * write-protected; the data and scratch data pages are not. */
    assert_int_equal(hv.n_prot, 7);
    assert_true(hv_is_protected(pml4) && hv_is_protected(pt));
    assert_false(hv_is_protected(data_page) || hv_is_protected(scratch));
    /* SKL_DFSM reads every pipe fused off: i915 probes no display. */
    assert_int_equal(fx_r(f, G, GEN9_SKL_DFSM, 4) & GEN9_DFSM_PIPE_A_DISABLE,
                     GEN9_DFSM_PIPE_A_DISABLE);
    /* A requested power well is on at once; the power-gate fuses are distributed. */
    fx_w32(f, G, GEN9_HSW_PWR_WELL_CTL2, 1u << 29 | 1u << 31); /* wells 14, 15 */
    assert_int_equal(fx_r(f, G, GEN9_HSW_PWR_WELL_CTL2, 4), 0xF0000000u);
    assert_true(fx_r(f, G, GEN9_SKL_FUSE_STATUS, 4) & GEN9_SKL_FUSE_PG_DIST_STATUS(1));
    /* A TLB invalidation completes at once (mmio_invalidate_full() waits 4 ms for 0). */
    fx_w32(f, G, GEN9_BTCR, 1);
    assert_int_equal(fx_r(f, G, GEN9_BTCR, 4), 0);
    /* The GuC's core reads in reset (__intel_uc_reset_hw() warns otherwise). */
    assert_int_equal(fx_r(f, G, GEN9_GUC_STATUS, 4) & GEN9_GS_MIA_IN_RESET, GEN9_GS_MIA_IN_RESET);
}

static void test_four_engines_complete(void **state)
{
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    for (unsigned e = 0; e < NE; e++) {
        unsigned msis = hv.msis;
        uint32_t s = request(e, NULL);
        wait_seqno(e, s);
        /* IDLE_ACTIVE (promote) then ACTIVE_IDLE|COMPLETE, entries 0 and 1, pointer 1. */
        assert_int_equal(csb(e, 0), GEN9_CTX_STATUS_IDLE_ACTIVE);
        assert_int_equal(csb(e, 1), GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE);
        assert_int_equal(fx_rd(f, G, ctx[e].hwsp + 4u * GEN9_HWS_CSB_WRITE_INDEX), 1);
        assert_int_equal(fx_rd(f, G, ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD),
                         ctx[e].tail);
        /* An MSI went out, and the handler finds the engine's bits. */
        assert_true(hv.msis > msis);
        unsigned bank, shift;
        assert_true(igpu_engine_irq(eng[e], &bank, &shift));
        uint32_t bits = take_iir(bank) >> shift & 0xFFFFu;
        assert_true(bits & GEN9_GT_CONTEXT_SWITCH);
        assert_true(bits & GEN9_GT_USER_INTERRUPT);
        assert_int_equal(fx_r(f, G, GEN9_RING_EXECLIST_STATUS_HI(base(e)), 4), 0);
    }
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_string_equal(in.personality, "i915");
    for (unsigned e = 0; e < NE; e++) {
        assert_int_equal(ii.st.elsp[eng[e]], 1);
        assert_int_equal(ii.st.completed[eng[e]], 1);
        assert_int_equal(ii.st.faults[eng[e]], 0);
    }
    assert_true(ii.st.cs_commands > 0);
    assert_int_equal(ii.st.msi_undelivered, 0);
    /* A second request on an idle engine is a fresh promote (entries 2 and 3). */
    wait_seqno(1, request(1, NULL));
    assert_int_equal(csb(1, 2), GEN9_CTX_STATUS_IDLE_ACTIVE);
    assert_int_equal(csb(1, 3), GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE);
}

static void user_store(unsigned e)
{
    EMIT(e, GEN9_MI_ARB_ON_OFF, GEN9_MI_STORE_DATA_IMM, (uint32_t)VA, (uint32_t)(VA >> 32),
         0xC0FFEE, GEN9_MI_NOOP);
}

static uint64_t batch_va, batch_page;
/* gen8_emit_bb_start_noarb(): a user batch in the PPGTT (bit 8). */
static void user_batch(unsigned e)
{
    EMIT(e, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
         (uint32_t)batch_va, (uint32_t)(batch_va >> 32));
}

/* gem_exec_nop's batch: an empty PPGTT batch at batch_va, bound (the PTE write exits). */
static void bind_empty_batch(void)
{
    batch_va = VA + 0x1000;
    batch_page = ram_page();
    uint32_t bb[2] = { GEN9_MI_NOOP, GEN9_MI_BATCH_BUFFER_END };
    memcpy(fx_gpa(f, G, batch_page), bb, sizeof bb);
    cpu_write64(pt + 8u * gen9_ppgtt_index(batch_va, 0), PDE(batch_page));
}

static void test_ppgtt_user_work(void **state)
{
    unsigned vcs = 2, bcs = 1;
    wait_seqno(vcs, request(vcs, user_store));
    assert_int_equal(*(uint32_t *)fx_gpa(f, G, data_page), 0xC0FFEE);

    /* gem_exec_nop on the blitter: an empty PPGTT batch, bound first (the PTE write exits). */
    bind_empty_batch();
    wait_seqno(bcs, request(bcs, user_batch));
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
    assert_true(ii.st.table_writes >= 1);
    assert_true(ii.st.oos_syncs >= 1);
    assert_true(hv_is_protected(pt)); /* protected again after the sync */

    /* i915-colorblt: an XY_COLOR_BLT into a buffer object, both in the PPGTT; the model runs
     * the batch where it is, through the shadow PPGTT. */
    uint64_t surf_va = VA + 0x2000, surf_page = ram_page();
    cpu_write64(pt + 8u * gen9_ppgtt_index(surf_va, 0), PDE(surf_page));
    uint32_t blt[8] = {
        GEN9_XY_COLOR_BLT,    GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 64,
        GEN9_BLT_COORD(0, 0), GEN9_BLT_COORD(16, 4),
        (uint32_t)surf_va,    (uint32_t)(surf_va >> 32),
        0x00FF8000,           GEN9_MI_BATCH_BUFFER_END
    };
    memcpy(fx_gpa(f, G, batch_page), blt, sizeof blt);
    wait_seqno(bcs, request(bcs, user_batch));
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(((uint32_t *)fx_gpa(f, G, surf_page))[i], 0x00FF8000);
    assert_int_equal(((uint32_t *)fx_gpa(f, G, surf_page))[64], 0);
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
}

/* i915 queues the requests that came while its context waited into one tail update (a lite
 * restore; gem_exec_nop's loop): 300 empty PPGTT batches, nearly all of the 16 KiB ring, one
 * ELSP write: more workloads than the vGPU's queue holds.  The vGPU runs them as workloads in
 * order, queuing the rest as room comes, and the element completes after the last. */
static void test_long_submission_runs_in_slices(void **state)
{
    unsigned bcs = 1;
    bind_empty_batch();
    wait_seqno(bcs, request(bcs, user_batch));
    uint32_t from = ctx[bcs].tail, last = 0;
    for (unsigned i = 0; i < 300; i++)
        last = add_request(bcs, user_batch);
    assert_true((ctx[bcs].tail - from) % (RING_PAGES * 4096u) >
                VGPU_QUEUE_MAX * VGPU_SLICE_MAX_BATCHES * 13u * 4u); /* 13 dwords a request */
    assert_true((ctx[bcs].tail - from) % (RING_PAGES * 4096u) > VGPU_SLICE_MAX_DW * 4u);
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    uint64_t done = ii.st.completed[IGPU_BCS], workloads = in.st.completed;
    submit(bcs);
    wait_seqno(bcs, last);
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
    assert_int_equal(in.st.rejected, 0);
    assert_int_equal(ii.st.completed[IGPU_BCS], done + 1); /* one element */
    assert_true(in.st.completed - workloads >= 300 / VGPU_SLICE_MAX_BATCHES);
    assert_int_equal(fx_rd(f, G, ctx[bcs].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD),
                     ctx[bcs].tail);
}

/* i915 frees a context and makes the next one at the same address, with a new ring whose head
 * is 0 in its image (every run of an IGT program had the same LRCA): the engine loads the new
 * image, so the new context runs from its own head, not from where the old one stopped. */
static void test_new_context_at_a_freed_address(void **state)
{
    unsigned bcs = 1;
    bind_empty_batch();
    wait_seqno(bcs, request(bcs, user_batch));
    uint32_t old_tail = ctx[bcs].tail;
    ctx[bcs].tail = 0;
    for (uint32_t o = 0; o < old_tail; o += 4u)
        fx_wr(f, G, ctx[bcs].ring + o, 0);
    fx_wr(f, G, ctx[bcs].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD, 0);
    uint32_t seqno = request(bcs, user_batch);
    assert_int_equal(ctx[bcs].tail, old_tail); /* the same tail: nothing new by address */
    wait_seqno(bcs, seqno);
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
    assert_int_equal(seqno_of(bcs), seqno);
}

/* i915 frees a page table and reuses its page as a buffer object's: the unlink (in a page
 * directory) and the new leaf (in a page table) are both out of sync when the next request
 * comes; directories are read again first, so the leaf finds a data page, not a table. */
static void test_table_page_reused_as_data(void **state)
{
    unsigned vcs = 2;
    uint64_t va2 = VA + (2ull << 20), old_pt = ram_page();
    fill(old_pt, scratch | GEN9_PPGTT_PRESENT);
    cpu_write64(pd + 8u * gen9_ppgtt_index(va2, 1), PDE(old_pt));
    wait_seqno(vcs, request(vcs, NULL)); /* synced: old_pt is a table now */
    assert_true(hv_is_protected(old_pt));
    cpu_write64(pt + 8u * gen9_ppgtt_index(VA, 0), PDE(old_pt));      /* the leaf first */
    cpu_write64(pd + 8u * gen9_ppgtt_index(va2, 1), PDE(scratch_pt)); /* then the unlink */
    wait_seqno(vcs, request(vcs, user_store));
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.ppgtt.refused[VGT_PPGTT_R_TABLE_AS_DATA], 0);
    assert_int_equal(*(uint32_t *)fx_gpa(f, G, old_pt), 0xC0FFEE);
    assert_false(hv_is_protected(old_pt));
}

/* i915's engine reset: RESET_CTL handshake, GDRST, then resume. */
static void i915_engine_reset(unsigned e)
{
    fx_w32(f, G, GEN9_RING_RESET_CTL(base(e)),
           GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET));
    assert_true(fx_r(f, G, GEN9_RING_RESET_CTL(base(e)), 4) & GEN9_RESET_CTL_READY_TO_RESET);
    fx_w32(f, G, GEN9_GDRST, igpu_engine_reset_domain(eng[e]));
    assert_int_equal(fx_r(f, G, GEN9_GDRST, 4), 0);
    fx_w32(f, G, GEN9_RING_RESET_CTL(base(e)),
           GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
    fx_wr(f, G, ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD, ctx[e].tail);
    engine_resume(e);
}

/* IGT's spinner on the blitter (benchmarks/gem_busy.c): a PPGTT batch that starts itself runs
 * where it is, preemptible, until the guest's CPU writes MI_BATCH_BUFFER_END over it; then
 * the request completes.  (It used to be refused as a batch loop: i915 reset the blitter.) */
static void test_blitter_spinner_ended_by_the_cpu(void **state)
{
    unsigned bcs = 1;
    bind_empty_batch();
    uint32_t spin[4] = { GEN9_MI_ARB_CHECK, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
                         (uint32_t)batch_va, (uint32_t)(batch_va >> 32) };
    memcpy(fx_gpa(f, G, batch_page), spin, sizeof spin);
    uint32_t seqno = request(bcs, user_batch);
    for (unsigned i = 0; i < 40; i++)
        assert_true(vgpu_render_step(f->dev));
    assert_int_not_equal(seqno_of(bcs), seqno);
    struct vgpu_info in;
    vgpu_get_info(fx_v(f, G), &in);
    assert_true(in.st.gpu_ns == 0 && in.queued == 1); /* still running: nothing retired */
    uint32_t end = GEN9_MI_BATCH_BUFFER_END;
    memcpy(fx_gpa(f, G, batch_page), &end, 4);
    wait_seqno(bcs, seqno);
    struct vgpu_i915_info ii;
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
    vgpu_get_info(fx_v(f, G), &in);
    assert_int_equal(in.st.resets, 0);
    assert_true(in.st.gpu_ns > 0);
}

/* The blitter runs a PPGTT batch where it is: what the guest writes into it after the scan
 * runs non-privileged, so a GGTT store slipped in is dropped as the GPU drops it
 * (drivers/igpu/cs/cs_priv.c) and lands nowhere; the request completes. */
static void test_batch_changed_after_the_scan(void **state)
{
    unsigned bcs = 1;
    bind_empty_batch();
    uint64_t victim = f->layout.host.start;    /* the hypervisor's own graphics memory */
    uint32_t seqno = request(bcs, user_batch); /* scanned: MI_NOOP, MI_BATCH_BUFFER_END */
    uint32_t evil[5] = { GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, (uint32_t)victim, 0,
                         0xBADBAD, GEN9_MI_BATCH_BUFFER_END };
    memcpy(fx_gpa(f, G, batch_page), evil, sizeof evil);
    uint32_t host_before;
    memcpy(&host_before, fx_ptr(f, f->host_pa), 4);
    wait_seqno(bcs, seqno);
    struct vgpu_i915_info ii;
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_BCS], 0);
    uint32_t host_after;
    memcpy(&host_after, fx_ptr(f, f->host_pa), 4);
    assert_int_equal(host_after, host_before);
    assert_int_not_equal(host_after, 0xBADBAD);
    bind_empty_batch();
    wait_seqno(bcs, request(bcs, user_batch));
}

static void test_hostile_ppgtt_entry(void **state)
{
    unsigned vcs = 2;
    uint64_t pte_at = pt + 8u * gen9_ppgtt_index(VA, 0);
    wait_seqno(vcs, request(vcs, user_store));
    /* The entry now names memory past the guest's RAM (another guest's, or the hypervisor's). */
    cpu_write64(pte_at, PDE(FX_GUEST_RAM + 0x10000));
    assert_false(hv_is_protected(pt)); /* out of sync until the next run */
    uint32_t before = seqno_of(vcs);
    take_iir(1);
    request(vcs, user_store);
    settle();
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.ppgtt.refused[VGT_PPGTT_R_OUTSIDE_RAM], 1);
    assert_int_equal(ii.st.faults[IGPU_VCS], 1);
    assert_non_null(strstr(ii.fault, "MI_STORE_DATA_IMM"));
    assert_int_equal(seqno_of(vcs), before); /* the request failed */
    assert_true(take_iir(1) & GEN9_GT_CS_MASTER_ERROR);
    assert_true(fx_r(f, G, GEN9_RING_EIR(base(vcs)), 4) & GEN9_ERROR_INSTRUCTION);
    assert_true(hv_is_protected(pt));
    /* Hung: a lite restore of the same context runs nothing. */
    request(vcs, NULL);
    settle();
    assert_int_equal(seqno_of(vcs), before);

    i915_engine_reset(vcs);
    fx_w32(f, G, GEN9_RING_EIR(base(vcs)), GEN9_ERROR_INSTRUCTION);
    cpu_write64(pte_at, PDE(data_page));
    wait_seqno(vcs, request(vcs, user_store));
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.st.faults[IGPU_VCS], 1);
    assert_int_equal(ii.st.guest_resets, 1);
}

static void test_unannounced_page_directory(void **state)
{
    unsigned bcs = 1, rcs = 0;
    uint64_t foreign = ram_page();
    set_pdp0(bcs, foreign);
    set_pdp0(rcs, foreign);
    uint32_t b = seqno_of(bcs), r = seqno_of(rcs);
    request(bcs, NULL);
    request(rcs, NULL);
    for (unsigned i = 0; i < 100; i++)
        vgpu_render_step(f->dev);
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(seqno_of(bcs), b);
    assert_int_equal(seqno_of(rcs), r);
    assert_int_equal(ii.st.faults[IGPU_BCS], 1);
    assert_int_equal(ii.st.faults[IGPU_RCS], 1);
    assert_true(ii.ppgtt.refused[VGT_PPGTT_R_UNKNOWN_ROOT] >= 1);
    assert_true(take_iir(0) & (GEN9_GT_CS_MASTER_ERROR | GEN9_GT_CS_MASTER_ERROR << 16));
    /* Reset both; the blitter's next request (back on its PPGTT) completes. */
    i915_engine_reset(bcs);
    i915_engine_reset(rcs);
    set_pdp0(bcs, pml4);
    wait_seqno(bcs, request(bcs, NULL));
}

static void test_guest_restart_gives_pages_back(void **state)
{
    struct vgpu_info in;
    struct vgpu_i915_info ii;
    vgpu_guest_reset(fx_v(f, G));
    vgpu_get_info(fx_v(f, G), &in);
    vgpu_i915_get_info(fx_v(f, G), &ii);
    assert_int_equal(ii.ppgtt.roots, 0);
    assert_int_equal(ii.ppgtt.tables, 0);
    assert_int_equal(hv.n_prot, 0);
    assert_int_equal(fx_r(f, G, VGT_PVINFO_PAGE + offsetof(struct vgt_if, vgt_caps), 4),
                     VGT_CAPS_FULL_PPGTT | VGT_CAPS_HWSP_EMULATION);
    assert_int_equal(fx_r(f, G, GEN9_MASTER_IRQ, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_caps_and_msi_capability, setup, teardown),
        cmocka_unit_test_setup_teardown(test_four_engines_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ppgtt_user_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_ppgtt_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_changed_after_the_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blitter_spinner_ended_by_the_cpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_page_reused_as_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_submission_runs_in_slices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_context_at_a_freed_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unannounced_page_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guest_restart_gives_pages_back, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
