/* The i915 guest's render and video engines on the render scheduler (docs/vgpu.md "Engines on
 * the CPU"): their work runs on the MI-only streamer from the render loop, in steps bounded in
 * CPU time, on a scheduler per engine, charged to the guest:
 *  - a request is charged: its CPU time is the guest's (render_cpu_ns, the engine's scheduler);
 *  - no step runs past its budget by more than a command or a register, however long the batch
 *    or the register load (a load stops between registers and goes on in the next step);
 *  - a spinning batch (a batch that starts itself) runs, step after step, until the guest's CPU
 *    writes MI_BATCH_BUFFER_END over it, and its request then completes;
 *  - two guests spinning on one engine share it by weight, each preempted in turn;
 *  - a spinner nobody ends is reset by the watchdog after the workload limit, reported to i915
 *    as a hang it resets, and the engine works again after that reset;
 *  - a kiosk guest's blitter work is done while an i915 guest spins on two engines.
 * The host clock of the fixture advances 1 us per reading, so CPU time here is the number of
 * readings: a step that reads the clock after every command has a known length. */
#define FX_GUESTS 3u
#include "test_vgpu_fixture.h"
#include "test_vgpu_i915_env.h"

#include "vmm/vgpu/core/vgpu_internal.h"
#include "vmm/vgpu/i915/i915.h"

#define VA         0x7FFF00010000ull /* a user address in each guest's PPGTT */
#define RING_PAGES 4u
#define KIOSK      2u /* guests 0 and 1 are i915 guests */
#define PDE(gpa)   ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW)

enum { RCS_I, VCS_I, NENG };
static const enum igpu_engine eng[NENG] = { IGPU_RCS, IGPU_VCS };

static struct fx *f;
static struct ig {
    uint64_t pml4, pt, data, batch, timeline;
    struct {
        uint64_t lrca, ring, hwsp;
        uint32_t tail, seqno;
    } ctx[NENG];
} ig[2];

static uint64_t ram_page(unsigned g)
{
    uint64_t gpa = f->g[g].gpa_next;
    f->g[g].gpa_next += 4096;
    memset(fx_gpa(f, g, gpa), 0, 4096);
    return gpa;
}

static void fill(unsigned g, uint64_t table, uint64_t entry)
{
    for (unsigned i = 0; i < 512; i++)
        memcpy(fx_gpa(f, g, table + 8u * i), &entry, 8);
}

static void put64(unsigned g, uint64_t gpa, uint64_t v)
{
    memcpy(fx_gpa(f, g, gpa), &v, 8);
}

/* i915's PPGTT (gen8_init_scratch()'s scratch tables) with VA on a data page and VA + 4 KiB on
 * a batch page, announced to the vGPU. */
static void build_ppgtt(unsigned g)
{
    struct ig *q = &ig[g];
    uint64_t scratch = ram_page(g), spt = ram_page(g), spd = ram_page(g), spdp = ram_page(g);
    fill(g, spt, scratch | GEN9_PPGTT_PRESENT);
    fill(g, spd, PDE(spt));
    fill(g, spdp, PDE(spd));
    q->pml4 = ram_page(g);
    fill(g, q->pml4, PDE(spdp));
    uint64_t pdp = ram_page(g), pd = ram_page(g);
    q->pt = ram_page(g);
    fill(g, pdp, PDE(spd));
    fill(g, pd, PDE(spt));
    fill(g, q->pt, scratch | GEN9_PPGTT_PRESENT);
    q->data = ram_page(g);
    q->batch = ram_page(g);
    put64(g, q->pml4 + 8u * gen9_ppgtt_index(VA, 3), PDE(pdp));
    put64(g, pdp + 8u * gen9_ppgtt_index(VA, 2), PDE(pd));
    put64(g, pd + 8u * gen9_ppgtt_index(VA, 1), PDE(q->pt));
    put64(g, q->pt + 8u * gen9_ppgtt_index(VA, 0), PDE(q->data));
    put64(g, q->pt + 8u * gen9_ppgtt_index(VA + 4096, 0), PDE(q->batch));
    const uint32_t pdp0 = VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, pdp[0]);
    fx_w32(f, g, pdp0, (uint32_t)q->pml4);
    fx_w32(f, g, pdp0 + 4, (uint32_t)(q->pml4 >> 32));
    fx_w32(f, g, VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, g2v_notify),
           VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE);
}

static uint32_t base(unsigned e)
{
    return igpu_engine_base(eng[e]);
}

/* reset_csb_pointers() + enable_execlists() + the engine's interrupt unmask. */
static void engine_resume(unsigned g, unsigned e)
{
    struct ig *q = &ig[g];
    fx_w32(f, g, GEN9_RING_CSB_PTR(base(e)), 0xFFFF0505);
    fx_wr(f, g, q->ctx[e].hwsp + 4u * GEN9_HWS_CSB_WRITE_INDEX, 5);
    fx_w32(f, g, GEN9_RING_HWSTAM(base(e)), ~0u);
    fx_w32(f, g, GEN9_RING_MODE(base(e)), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    fx_w32(f, g, GEN9_RING_MI_MODE(base(e)), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    fx_w32(f, g, GEN9_RING_HWS_PGA(base(e)), (uint32_t)q->ctx[e].hwsp);
    fx_w32(f, g, GEN9_RING_IMR(base(e)),
           ~(GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR));
}

/* Guest g becomes an i915 guest: interrupts on, its PPGTT, a context on RCS and one on VCS. */
static void i915_guest(unsigned g)
{
    struct ig *q = &ig[g];
    assert_int_equal(vgpu_set_personality(fx_v(f, g), &vgpu_i915), 0);
    fx_w32(f, g, GEN9_MASTER_IRQ, 0);
    for (unsigned b = 0; b < 4; b++) {
        uint32_t ier = GEN9_GT_CS_MASTER_ERROR | GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH;
        fx_w32(f, g, GEN9_GT_IIR(b), ~0u);
        fx_w32(f, g, GEN9_GT_IER(b), ier);
        fx_w32(f, g, GEN9_GT_IMR(b), ~ier);
    }
    fx_w32(f, g, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    build_ppgtt(g);
    q->timeline = fx_gm_alloc(f, g, 1, NULL);
    for (unsigned e = 0; e < NENG; e++) {
        q->ctx[e].lrca = fx_gm_alloc(f, g, 2, NULL);
        q->ctx[e].ring = fx_gm_alloc(f, g, RING_PAGES, NULL);
        q->ctx[e].hwsp = fx_gm_alloc(f, g, 1, NULL);
        uint64_t st = q->ctx[e].lrca + GEN9_LRC_STATE_OFFSET;
        fx_wr(f, g, st + 4u * GEN9_CTX_RING_START, (uint32_t)q->ctx[e].ring);
        fx_wr(f, g, st + 4u * GEN9_CTX_RING_CTL, GEN9_RING_VALID | (RING_PAGES - 1u) << 12);
        fx_wr(f, g, st + 4u * GEN9_CTX_PDP0_UDW, (uint32_t)(q->pml4 >> 32));
        fx_wr(f, g, st + 4u * GEN9_CTX_PDP0_LDW, (uint32_t)q->pml4);
        engine_resume(g, e);
    }
}

static void emit(unsigned g, unsigned e, const uint32_t *dw, unsigned n)
{
    struct ig *q = &ig[g];
    for (unsigned i = 0; i < n; i++) {
        fx_wr(f, g, q->ctx[e].ring + q->ctx[e].tail, dw[i]);
        q->ctx[e].tail = (q->ctx[e].tail + 4u) % (RING_PAGES * 4096u);
    }
}
#define EMIT(g, e, ...) \
    do { \
        const uint32_t d_[] = { __VA_ARGS__ }; \
        emit((g), (e), d_, sizeof d_ / 4u); \
    } while (0)

/* A request as i915 builds one: the user batch at VA + 4 KiB (gen8_emit_bb_start_noarb()),
 * the fini breadcrumb (the seqno into the timeline), the user interrupt; then the ELSP write. */
static uint32_t request(unsigned g, unsigned e)
{
    struct ig *q = &ig[g];
    uint64_t slot = q->timeline + 64u * e, bb = VA + 4096;
    uint32_t seqno = ++q->ctx[e].seqno;
    EMIT(g, e, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
         (uint32_t)bb, (uint32_t)(bb >> 32));
    if (eng[e] == IGPU_RCS)
        EMIT(g, e, GEN9_PIPE_CONTROL,
             GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                 GEN9_PIPE_CONTROL_CS_STALL,
             (uint32_t)slot, 0, seqno, 0);
    else
        EMIT(g, e, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW,
             (uint32_t)slot | GEN9_MI_FLUSH_DW_USE_GTT, 0, seqno);
    EMIT(g, e, GEN9_MI_USER_INTERRUPT, GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE, GEN9_MI_ARB_CHECK);
    if (q->ctx[e].tail & 7u)
        EMIT(g, e, GEN9_MI_NOOP);
    fx_wr(f, g, q->ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_TAIL, q->ctx[e].tail);
    uint64_t d = gen9_ctx_desc((uint32_t)q->ctx[e].lrca, 0x10 + e,
                               GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                   GEN9_CTX_PRIVILEGE);
    uint32_t elsp = GEN9_RING_ELSP(base(e));
    fx_w32(f, g, elsp, 0);
    fx_w32(f, g, elsp, 0);
    fx_w32(f, g, elsp, (uint32_t)(d >> 32));
    fx_w32(f, g, elsp, (uint32_t)d);
    return seqno;
}

static uint32_t seqno_of(unsigned g, unsigned e)
{
    return fx_rd(f, g, ig[g].timeline + 64u * e);
}

/* IGT's spinner, the shape of benchmarks/gem_busy.c: a batch that starts itself, through the
 * PPGTT; `pad` MI_NOOPs before the jump.  The guest's CPU ends it by writing
 * MI_BATCH_BUFFER_END over its first dword. */
static void spinner(unsigned g, unsigned pad)
{
    uint32_t *bb = (uint32_t *)fx_gpa(f, g, ig[g].batch);
    unsigned n = 0;
    bb[n++] = GEN9_MI_ARB_CHECK;
    while (pad--)
        bb[n++] = GEN9_MI_NOOP;
    bb[n++] = GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT;
    bb[n++] = (uint32_t)(VA + 4096);
    bb[n++] = (uint32_t)((VA + 4096) >> 32);
}

static void end_spinner(unsigned g)
{
    ((uint32_t *)fx_gpa(f, g, ig[g].batch))[0] = GEN9_MI_BATCH_BUFFER_END;
}

/* A batch of n register loads of 128 GPR dwords each (the most one LRI holds is 126 pairs on
 * Gen9's 8-bit length; i915's user batches may load their GPRs), then the end. */
static void lri_batch(unsigned g, unsigned e, unsigned n)
{
    uint32_t *bb = (uint32_t *)fx_gpa(f, g, ig[g].batch);
    unsigned k = 0, regs = 2u * GEN9_CS_GPR_COUNT;
    for (unsigned i = 0; i < n; i++) {
        bb[k++] = GEN9_MI_LOAD_REGISTER_IMM(regs);
        for (unsigned r = 0; r < regs; r++) {
            bb[k++] = GEN9_RING_CS_GPR(base(e), 0) + 4u * r;
            bb[k++] = i + r;
        }
    }
    bb[k++] = GEN9_MI_BATCH_BUFFER_END;
    assert_true(k <= 1024);
}

static unsigned steps(unsigned n)
{
    unsigned busy = 0;
    for (unsigned i = 0; i < n; i++)
        busy += vgpu_render_step(f->dev);
    return busy;
}

static void wait_seqno(unsigned g, unsigned e, uint32_t seqno)
{
    for (unsigned i = 0; i < 20000 && (int32_t)(seqno_of(g, e) - seqno) < 0; i++)
        vgpu_render_step(f->dev);
    assert_int_equal(seqno_of(g, e), seqno);
}

static uint64_t engine_ns(unsigned g, unsigned e)
{
    struct vgpu_info in;
    vgpu_get_info(fx_v(f, g), &in);
    return in.st.cpu_engine_ns[eng[e]];
}

static uint32_t take_iir(unsigned g, unsigned bank)
{
    fx_w32(f, g, GEN9_MASTER_IRQ, 0);
    uint32_t iir = (uint32_t)fx_r(f, g, GEN9_GT_IIR(bank), 4);
    fx_w32(f, g, GEN9_GT_IIR(bank), iir);
    fx_w32(f, g, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    return iir;
}

/* i915's engine reset: RESET_CTL handshake, GDRST, RING_HEAD to the tail, resume. */
static void i915_engine_reset(unsigned g, unsigned e)
{
    fx_w32(f, g, GEN9_RING_RESET_CTL(base(e)),
           GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET));
    fx_w32(f, g, GEN9_GDRST, igpu_engine_reset_domain(eng[e]));
    fx_w32(f, g, GEN9_RING_RESET_CTL(base(e)),
           GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
    fx_wr(f, g, ig[g].ctx[e].lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD,
          ig[g].ctx[e].tail);
    engine_resume(g, e);
}

static int setup(void **state)
{
    memset(ig, 0, sizeof ig);
    f = fx_create(NULL);
    hv_install(f);
    i915_guest(0);
    i915_guest(1);
    return 0;
}

static int teardown(void **state)
{
    fx_destroy(f);
    assert_int_equal(hv.pages_live, 0);
    return 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_request_runs_in_the_render_loop_and_is_charged(void **state)
{
    lri_batch(0, RCS_I, 4);
    struct vgpu_info before;
    vgpu_get_info(fx_v(f, 0), &before);
    uint32_t s = request(0, RCS_I);
    /* The ELSP write only queued it. */
    assert_int_not_equal(seqno_of(0, RCS_I), s);
    wait_seqno(0, RCS_I, s);
    struct vgpu_info in;
    vgpu_get_info(fx_v(f, 0), &in);
    uint64_t used = in.st.cpu_engine_ns[IGPU_RCS];
    assert_true(used > 0);
    /* The guest's CPU share pays for it, and so does its share of the engine. */
    assert_true(in.st.render_cpu_ns - before.st.render_cpu_ns >= used);
    struct sched_vgpu_stats ss;
    assert_int_equal(sched_vgpu_stats_get(vgpu_cpu_engine_sched(f->dev, IGPU_RCS), 0, &ss),
                     SCHED_OK);
    assert_int_equal(ss.gpu_ns, used);
    assert_int_equal(in.st.cpu_completed, 1);
    /* The four register loads landed in the guest's register file. */
    assert_int_equal(fx_r(f, 0, GEN9_RING_CS_GPR(base(RCS_I), 0), 4), 3);
    struct vgpu_cpu_engine_stats es;
    vgpu_cpu_engine_stats_get(f->dev, IGPU_RCS, &es);
    assert_int_equal(es.workloads, 1);
    assert_true(es.busy_ns >= used);
}

static void test_steps_are_bounded_in_time(void **state)
{
    /* Seven register loads of 32 registers in one batch: every register written counts in the
     * step's time (the clock is read after each command and between registers), and a step
     * may end inside a load. */
    lri_batch(0, VCS_I, 7);
    uint32_t s = request(0, VCS_I);
    wait_seqno(0, VCS_I, s);
    spinner(1, 8);
    request(1, RCS_I);
    steps(60); /* about 12 ms: under the fixture's 20 ms workload limit */
    struct vgpu_info a, b;
    vgpu_get_info(fx_v(f, 0), &a);
    vgpu_get_info(fx_v(f, 1), &b);
    /* The budget, the reading of the clock after the last command, and the core's two. */
    assert_true(a.st.cpu_step_max_ns <= VGPU_CPU_BUDGET_NS + SCHED_US(4));
    assert_true(b.st.cpu_step_max_ns <= VGPU_CPU_BUDGET_NS + SCHED_US(4));
    assert_true(b.st.cpu_engine_ns[IGPU_RCS] > 10 * VGPU_CPU_BUDGET_NS);
    end_spinner(1);
    wait_seqno(1, RCS_I, 1);
}

/* A batch that calls a second-level batch of register loads again and again (the shape of a
 * hostile kernel's chain): far longer than a step, it goes on where the last step stopped,
 * inside the second-level batch, and completes. */
static void test_a_call_chain_spans_steps_and_completes(void **state)
{
    uint32_t *leaf = (uint32_t *)fx_gpa(f, 0, ig[0].data),
             *bb = (uint32_t *)fx_gpa(f, 0, ig[0].batch);
    unsigned k = 0, calls = 100, regs = 2u * GEN9_CS_GPR_COUNT;
    for (unsigned i = 0; i < 3; i++) {
        leaf[k++] = GEN9_MI_LOAD_REGISTER_IMM(regs);
        for (unsigned r = 0; r < regs; r++) {
            leaf[k++] = GEN9_RING_CS_GPR(base(RCS_I), 0) + 4u * r;
            leaf[k++] = i + r;
        }
    }
    leaf[k++] = GEN9_MI_BATCH_BUFFER_END;
    k = 0;
    for (unsigned i = 0; i < calls; i++) {
        bb[k++] = GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT |
                  GEN9_MI_BB_START_SECOND_LEVEL;
        bb[k++] = (uint32_t)VA;
        bb[k++] = (uint32_t)(VA >> 32);
    }
    bb[k++] = GEN9_MI_BATCH_BUFFER_END;
    uint32_t s = request(0, RCS_I);
    unsigned n = 0;
    while (n < 20000 && seqno_of(0, RCS_I) != s) {
        vgpu_render_step(f->dev);
        n++;
    }
    assert_int_equal(seqno_of(0, RCS_I), s);
    struct vgpu_info in;
    vgpu_get_info(fx_v(f, 0), &in);
    /* Each command and each register reads the clock (about 10,000 readings): many steps. */
    assert_true(in.st.cpu_engine_ns[IGPU_RCS] > 4 * VGPU_CPU_BUDGET_NS);
    assert_true(in.st.cpu_step_max_ns <= VGPU_CPU_BUDGET_NS + SCHED_US(4));
    assert_int_equal(in.st.cpu_completed, 1);
    assert_int_equal(fx_r(f, 0, GEN9_RING_CS_GPR(base(RCS_I), 0), 4), 2);
}

static bool wanted(void *ctx)
{
    return true;
}

/* Another CPU waiting for what the step holds ends the step at its next whole point: a register
 * load stops after one register, a run of commands after one command, and the work completes
 * all the same, each step having advanced. */
static void test_a_waiting_cpu_cuts_steps_short(void **state)
{
    uint32_t *bb = (uint32_t *)fx_gpa(f, 0, ig[0].batch);
    unsigned k = 0, regs = 8;
    bb[k++] = GEN9_MI_LOAD_REGISTER_IMM(regs);
    for (unsigned r = 0; r < regs; r++) {
        bb[k++] = GEN9_RING_CS_GPR(base(RCS_I), 0) + 4u * r;
        bb[k++] = 100 + r;
    }
    for (unsigned i = 0; i < 4; i++)
        bb[k++] = GEN9_MI_NOOP;
    bb[k++] = GEN9_MI_BATCH_BUFFER_END;
    f->dev->cfg.env.cpu_wanted = wanted;
    uint32_t s = request(0, RCS_I);
    unsigned n = 0;
    while (n < 100 && seqno_of(0, RCS_I) != s) {
        struct vgpu_i915_info before, after;
        vgpu_i915_get_info(fx_v(f, 0), &before);
        vgpu_render_step(f->dev);
        vgpu_i915_get_info(fx_v(f, 0), &after);
        assert_true(after.st.cs_commands - before.st.cs_commands <= 1);
        n++;
    }
    assert_int_equal(seqno_of(0, RCS_I), s);
    for (unsigned r = 0; r < regs; r++)
        assert_int_equal(fx_r(f, 0, GEN9_RING_CS_GPR(base(RCS_I), 0) + 4u * r, 4), 100 + r);
    /* Eight registers, one a step, then the NOOPs and the rest one command a step. */
    assert_true(n >= regs + 4);
    /* Nobody waiting: the same batch takes a step or two. */
    f->dev->cfg.env.cpu_wanted = NULL;
    s = request(0, RCS_I);
    n = 0;
    while (n < 100 && seqno_of(0, RCS_I) != s) {
        vgpu_render_step(f->dev);
        n++;
    }
    assert_int_equal(seqno_of(0, RCS_I), s);
    assert_true(n <= 2);
}

static void test_spinner_runs_until_the_cpu_ends_it(void **state)
{
    spinner(0, 4);
    uint32_t s = request(0, RCS_I);
    assert_int_equal(steps(40), 40); /* it keeps the engine busy */
    assert_int_not_equal(seqno_of(0, RCS_I), s);
    uint64_t ran = engine_ns(0, RCS_I);
    assert_true(ran > 30 * VGPU_CPU_BUDGET_NS / 2);
    /* i915 reads the engine busy meanwhile (RING_MI_MODE's idle bit clear). */
    assert_false(fx_r(f, 0, GEN9_RING_MI_MODE(base(RCS_I)), 4) & GEN9_MI_MODE_IDLE);
    end_spinner(0);
    wait_seqno(0, RCS_I, s);
    struct vgpu_i915_info ii;
    vgpu_i915_get_info(fx_v(f, 0), &ii);
    assert_int_equal(ii.st.faults[IGPU_RCS], 0);
    assert_int_equal(ii.st.completed[IGPU_RCS], 1);
    assert_true(take_iir(0, 0) & GEN9_GT_USER_INTERRUPT);
    assert_true(fx_r(f, 0, GEN9_RING_MI_MODE(base(RCS_I)), 4) & GEN9_MI_MODE_IDLE);
}

static void test_two_spinners_share_the_engine(void **state)
{
    spinner(0, 4);
    spinner(1, 4);
    request(0, RCS_I);
    request(1, RCS_I);
    /* 12 ms of engine time in all, under the fixture's 20 ms workload limit for each. */
    for (unsigned i = 0; i < 20000 && engine_ns(0, RCS_I) + engine_ns(1, RCS_I) < SCHED_MS(12); i++)
        vgpu_render_step(f->dev);
    uint64_t a = engine_ns(0, RCS_I), b = engine_ns(1, RCS_I);
    assert_true(a + b >= SCHED_MS(12));
    /* Equal weights, equal shares: within a turn (the slice, 500 us) and a step. */
    uint64_t diff = a > b ? a - b : b - a;
    assert_true(diff <= FX_SLICE_NS + 2 * VGPU_CPU_BUDGET_NS);
    struct vgpu_cpu_engine_stats es;
    vgpu_cpu_engine_stats_get(f->dev, IGPU_RCS, &es);
    assert_true(es.preemptions >= 10);
    assert_int_equal(es.watchdog_resets, 0);
    end_spinner(0);
    end_spinner(1);
    wait_seqno(0, RCS_I, 1);
    wait_seqno(1, RCS_I, 1);
}

static void test_weights_give_shares(void **state)
{
    assert_int_equal(vgpu_set_weight(f->dev, 0, 300), 0);
    spinner(0, 4);
    spinner(1, 4);
    request(0, VCS_I);
    request(1, VCS_I);
    for (unsigned i = 0; i < 20000 && engine_ns(0, VCS_I) + engine_ns(1, VCS_I) < SCHED_MS(16); i++)
        vgpu_render_step(f->dev);
    uint64_t a = engine_ns(0, VCS_I), b = engine_ns(1, VCS_I);
    /* 3:1, within a turn and a step of the weaker's share. */
    assert_true(a > 2 * b && a < 4 * b + FX_SLICE_NS);
    end_spinner(0);
    end_spinner(1);
    wait_seqno(0, VCS_I, 1);
    wait_seqno(1, VCS_I, 1);
}

static void test_watchdog_resets_a_spinner(void **state)
{
    spinner(0, 4);
    uint32_t s = request(0, RCS_I);
    take_iir(0, 0);
    for (unsigned i = 0; i < 20000 && !(fx_r(f, 0, GEN9_GT_IIR(0), 4) & GEN9_GT_CS_MASTER_ERROR);
         i++)
        vgpu_render_step(f->dev);
    /* The fixture's workload limit is 20 ms: it ran that long, no longer than a step more. */
    uint64_t ran = engine_ns(0, RCS_I);
    assert_true(ran >= SCHED_MS(20) && ran <= SCHED_MS(20) + 2 * VGPU_CPU_BUDGET_NS);
    struct vgpu_cpu_engine_stats es;
    vgpu_cpu_engine_stats_get(f->dev, IGPU_RCS, &es);
    assert_int_equal(es.watchdog_resets, 1);
    struct vgpu_i915_info ii;
    vgpu_i915_get_info(fx_v(f, 0), &ii);
    assert_int_equal(ii.st.faults[IGPU_RCS], 1);
    assert_non_null(strstr(ii.fault, "watchdog"));
    assert_true(take_iir(0, 0) & GEN9_GT_CS_MASTER_ERROR);
    assert_int_not_equal(seqno_of(0, RCS_I), s);
    assert_false(steps(5)); /* nothing of it runs any more */
    /* i915 resets the engine; its next request runs. */
    i915_engine_reset(0, RCS_I);
    lri_batch(0, RCS_I, 1);
    wait_seqno(0, RCS_I, request(0, RCS_I));
}

static void test_blitter_work_goes_on_beside_spinners(void **state)
{
    spinner(0, 4);
    request(0, RCS_I);
    request(0, VCS_I);
    steps(10);
    fx_guest_setup(f, KIOSK);
    uint32_t c[GEN9_XY_COLOR_BLT_LEN];
    fx_fill(c, f->g[KIOSK].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x123456);
    fx_submit(f, KIOSK, c, GEN9_XY_COLOR_BLT_LEN);
    unsigned n = 0;
    while (n < 100 && !fx_retired(f, KIOSK)) {
        vgpu_render_step(f->dev);
        n++;
    }
    assert_true(fx_retired(f, KIOSK));
    assert_true(n < 20);
    end_spinner(0);
    wait_seqno(0, RCS_I, 1);
    wait_seqno(0, VCS_I, 1);
}

static void test_guest_restart_drops_its_engine_work(void **state)
{
    spinner(0, 4);
    request(0, RCS_I);
    steps(5);
    vgpu_guest_reset(fx_v(f, 0));
    assert_false(steps(3));
    assert_int_equal(sched_vgpu_queued(vgpu_cpu_engine_sched(f->dev, IGPU_RCS), 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_request_runs_in_the_render_loop_and_is_charged, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_steps_are_bounded_in_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_call_chain_spans_steps_and_completes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_waiting_cpu_cuts_steps_short, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spinner_runs_until_the_cpu_ends_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_spinners_share_the_engine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weights_give_shares, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watchdog_resets_a_spinner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blitter_work_goes_on_beside_spinners, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guest_restart_drops_its_engine_work, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
