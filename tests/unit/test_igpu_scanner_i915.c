/*
 * The scanner's i915 profile: i915 6.1's requests on every engine accepted (golden context with
 * its workaround loads and golden state batch, breadcrumbs, status-page post-syncs), draws,
 * walkers and media refused, PPGTT operands and batches checked through the context's PPGTT
 * (copied to the GGTT, or left in place), and the same workloads refused without the profile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <cmocka.h>

#include "drivers/igpu/cs/cs.h"
#include "drivers/igpu/gen9_context.h"
#include "tests/unit/i915_null_state.h"
#include "tests/unit/test_igpu_scanner_fixture.h"

#define PP_BASE    0x7FFF00000000ull /* a PPGTT range the mock maps (64 KiB) */
#define PP_SIZE    0x10000u
#define PP_RO_PAGE (PP_BASE + 0x8000) /* mapped read-only (i915's scratch page) */
#define PPHWSP     (FX_GM_BASE + 0x3000)
#define HWSP_SEQNO (FX_GM_BASE + 0x2100)

struct pp {
    uint8_t mem[PP_SIZE];
    unsigned checks;
};

static int pp_check(void *ctx, uint64_t gfx, uint64_t len, bool write)
{
    struct pp *p = ctx;
    p->checks++;
    if (gfx < PP_BASE || gfx + len > PP_BASE + PP_SIZE)
        return -1;
    if (write && gfx < PP_RO_PAGE + 4096 && gfx + len > PP_RO_PAGE)
        return -1;
    return 0;
}

static int pp_read(void *ctx, uint64_t gfx, void *dst, size_t len)
{
    struct pp *p = ctx;
    if (gfx < PP_BASE || gfx + len > PP_BASE + PP_SIZE)
        return -1;
    memcpy(dst, &p->mem[gfx - PP_BASE], len);
    return 0;
}

static struct pp pp;
static struct igpu_scan_ppgtt ppgtt = { .check = pp_check, .read = pp_read, .ctx = &pp };

static struct fx *i915_fx(void **state, enum igpu_engine e)
{
    struct fx *f;
    free(*state);
    f = fx_new(e);
    f->cfg.i915 = true;
    f->cfg.ppgtt = &ppgtt;
    f->cfg.pphwsp_gm = PPHWSP;
    if (e == IGPU_RCS) {
        f->cfg.regs = igpu_cs_i915_regs_rcs;
        f->cfg.n_regs = igpu_cs_i915_regs_rcs_count;
    } else if (e == IGPU_VCS) {
        f->cfg.regs = igpu_cs_i915_regs_vcs;
        f->cfg.n_regs = igpu_cs_i915_regs_vcs_count;
    } else if (e == IGPU_VECS) {
        f->cfg.regs = igpu_cs_i915_regs_vecs;
        f->cfg.n_regs = igpu_cs_i915_regs_vecs_count;
    }
    memset(&pp, 0, sizeof pp);
    ppgtt.in_place = false;
    *state = f;
    return f;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

#define EMIT(f, ...) \
    do { \
        const uint32_t d_[] = { __VA_ARGS__ }; \
        memcpy((f)->ring + (f)->n, d_, sizeof d_); \
        (f)->n += sizeof d_ / 4u; \
    } while (0)

static void expect(struct fx *f, enum igpu_scan_err want)
{
    enum igpu_scan_err e = fx_scan(f);
    if (e != want) {
        char buf[200];
        igpu_scan_error_format(&f->res.err, buf, sizeof buf);
        print_error("expected %s, got: %s\n", igpu_scan_strerror(want), buf);
    }
    assert_int_equal(e, want);
}

/* i915 gen8_emit_flush_rcs(EMIT_BARRIER) on Gen9: a null PIPE_CONTROL, then the flush with a
 * store-index qword to LRC_PPHWSP_SCRATCH_ADDR. */
static void flush_rcs(struct fx *f)
{
    EMIT(f, GEN9_PIPE_CONTROL, 0, 0, 0, 0, 0, GEN9_PIPE_CONTROL,
         GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_TLB_INVALIDATE |
             GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_STORE_DATA_INDEX |
             GEN9_PIPE_CONTROL_FLUSH_ENABLE | GEN9_PIPE_CONTROL_DC_FLUSH,
         0xD0, 0, 0, 0);
}

static void fini_tail(struct fx *f)
{
    EMIT(f, GEN9_MI_USER_INTERRUPT, GEN9_MI_ARB_ON_OFF | GEN9_MI_ARB_ENABLE, GEN9_MI_ARB_CHECK,
         GEN9_MI_NOOP);
}

static void golden_rcs(struct fx *f)
{
    uint32_t batch[I915_NULL_STATE_MAX_DW];
    unsigned skipped;
    size_t n = i915_null_state(batch, &skipped);
    fx_put(f, FX_GM_BASE + 0x10000, batch, n);
    flush_rcs(f);
    EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(3), GEN9_CACHE_MODE_1, 0x00220022, GEN9_HDC_CHICKEN0,
         0x00300030, GEN9_CS_CHICKEN1, 0x00060004, GEN9_MI_NOOP);
    flush_rcs(f);
    EMIT(f, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START, (uint32_t)FX_GM_BASE + 0x10000, 0);
    EMIT(f, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_DC_FLUSH, 0, 0, 0, 0, GEN9_PIPE_CONTROL,
         GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT |
             GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_FLUSH_ENABLE,
         (uint32_t)HWSP_SEQNO, 0, 1, 0);
    fini_tail(f);
}

static void test_golden_rcs(void **state)
{
    struct fx *f = i915_fx(state, IGPU_RCS);
    unsigned skipped;
    uint32_t tmp[I915_NULL_STATE_MAX_DW];
    i915_null_state(tmp, &skipped);
    golden_rcs(f);
    expect(f, IGPU_SCAN_OK);
    assert_int_equal(f->res.state_skipped, skipped);
    assert_int_equal(f->res.batches, 1);
    assert_int_equal(f->res.reg_writes, 3);
    assert_int_equal(f->res.user_interrupts, 1);
    /* The batch start points at its copy. */
    assert_int_equal(f->ring[f->n - 4 - 12 - 3 + 1], (uint32_t)FX_SHADOW_GM);

    /* The same request from one of Tessera's own guests is refused. */
    f->cfg.i915 = false;
    f->cfg.regs = igpu_scan_default_regs_rcs;
    f->cfg.n_regs = igpu_scan_default_regs_rcs_count;
    f->n = 0;
    golden_rcs(f);
    expect(f, IGPU_SCAN_E_PRIVILEGED_OP); /* the status-page post-sync */
}

/* The breadcrumb-only requests of the video engines (and every engine's park). */
static void test_xcs_requests(void **state)
{
    static const enum igpu_engine engines[] = { IGPU_VCS, IGPU_VECS, IGPU_BCS };
    for (unsigned i = 0; i < 3; i++) {
        struct fx *f = i915_fx(state, engines[i]);
        EMIT(f,
             GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_OP_STOREDW |
                 GEN9_MI_FLUSH_DW_INVALIDATE_TLB,
             0xD0, 0, 0, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, (uint32_t)HWSP_SEQNO, 0, 6,
             GEN9_MI_NOOP, GEN9_MI_ARB_CHECK, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW,
             (uint32_t)HWSP_SEQNO | GEN9_MI_FLUSH_DW_USE_GTT, 0, 7);
        fini_tail(f);
        expect(f, IGPU_SCAN_OK);
        assert_int_equal(f->res.mem_writes, 3);
    }
    /* The video engines exist only for i915 guests. */
    struct fx *f = i915_fx(state, IGPU_VCS);
    f->cfg.i915 = false;
    EMIT(f, GEN9_MI_NOOP);
    expect(f, IGPU_SCAN_E_CONFIG);
    /* A status-page index beyond the page, and a status page outside the guest's ranges. */
    f = i915_fx(state, IGPU_VECS);
    EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_OP_STOREDW, 0x1000,
         0, 0);
    expect(f, IGPU_SCAN_E_BAD_FIELD);
    f = i915_fx(state, IGPU_VECS);
    f->cfg.pphwsp_gm = FX_GM_END;
    EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_OP_STOREDW, 0xD0, 0,
         0);
    expect(f, IGPU_SCAN_E_ADDR_RANGE);
}

/* Draws that may draw, kernels, binding-table edits and media: refused, and named. */
static void test_refused(void **state)
{
    char line[200];
    struct fx *f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_3D_INSTR(3, 0, GEN9_3DSTATE_VF_TOPOLOGY_SUBOP, 0), GEN9_3DPRIM_TRILIST,
         GEN9_3DPRIMITIVE, GEN9_3DPRIM_TRILIST, 3, 0, 1, 0, 0);
    expect(f, IGPU_SCAN_E_NO_3D_MEDIA);
    igpu_scan_error_format(&f->res.err, line, sizeof line);
    assert_non_null(strstr(line, "3DPRIMITIVE"));
    assert_non_null(strstr(line, "MI only, no 3D or media"));

    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_3DPRIMITIVE, GEN9_3DPRIM_TRILIST, 1, 0, 1, 0, 0); /* topology unknown */
    expect(f, IGPU_SCAN_E_NO_3D_MEDIA);
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_3D_INSTR(GEN9_GFXPIPE_MEDIA, 1, 0x5, 13), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
         0);
    expect(f, IGPU_SCAN_E_NO_3D_MEDIA);
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_3D_INSTR(3, 0, 0x43, 1), 0, 0);
    expect(f, IGPU_SCAN_E_NO_3D_MEDIA);
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_3D_INSTR(3, 0, 0x14, 5), 0, 0, 0, 0, 0, 0); /* 3DSTATE_WM is 2 dw */
    expect(f, IGPU_SCAN_E_BAD_LENGTH);
    f = i915_fx(state, IGPU_VCS);
    EMIT(f, 0x70000004u, 0, 0, 0, 0, 0); /* MFX_PIPE_MODE_SELECT */
    expect(f, IGPU_SCAN_E_NO_3D_MEDIA);
    igpu_scan_error_format(&f->res.err, line, sizeof line);
    assert_non_null(strstr(line, "MFX/VEBOX command"));
    /* 3D state is not the blitter's: unknown there even for i915. */
    f = i915_fx(state, IGPU_BCS);
    EMIT(f, GEN9_3D_INSTR(3, 0, 0x14, 0), 0);
    expect(f, IGPU_SCAN_E_UNKNOWN_CMD);
    /* Register loads outside the i915 allow-list. */
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_GDRST, 1);
    expect(f, IGPU_SCAN_E_REG_DENIED);
}

/* PPGTT operands go through the context's PPGTT; without a PPGTT they are refused. */
static void test_ppgtt_operands(void **state)
{
    struct fx *f = i915_fx(state, IGPU_VCS);
    EMIT(f, GEN9_MI_STORE_DATA_IMM, (uint32_t)PP_BASE + 0x40, (uint32_t)(PP_BASE >> 32), 1,
         GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW, (uint32_t)PP_BASE + 0x48,
         (uint32_t)(PP_BASE >> 32), 2, GEN9_MI_STORE_REGISTER_MEM,
         GEN9_RING_TIMESTAMP(GEN9_VCS_BASE), (uint32_t)PP_BASE + 0x50, (uint32_t)(PP_BASE >> 32));
    expect(f, IGPU_SCAN_OK);
    assert_int_equal(pp.checks, 3);

    f = i915_fx(state, IGPU_VCS);
    EMIT(f, GEN9_MI_STORE_DATA_IMM, (uint32_t)PP_RO_PAGE, (uint32_t)(PP_RO_PAGE >> 32), 1);
    expect(f, IGPU_SCAN_E_PPGTT_MAP); /* read-only: its scratch page */
    f = i915_fx(state, IGPU_VCS);
    EMIT(f, GEN9_MI_LOAD_REGISTER_MEM, GEN9_RING_CS_GPR(GEN9_VCS_BASE, 0), (uint32_t)PP_RO_PAGE,
         (uint32_t)(PP_RO_PAGE >> 32));
    expect(f, IGPU_SCAN_OK); /* reading it is fine */
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_WRITE_TIMESTAMP, 0x1000, 0, 0, 0);
    expect(f, IGPU_SCAN_E_PPGTT_MAP); /* PPGTT 0x1000: not mapped */
    f = i915_fx(state, IGPU_VCS);
    f->cfg.ppgtt = NULL;
    EMIT(f, GEN9_MI_STORE_DATA_IMM, (uint32_t)PP_BASE, (uint32_t)(PP_BASE >> 32), 1);
    expect(f, IGPU_SCAN_E_PPGTT);
}

/* A user batch (i915 gen8_emit_bb_start_noarb() with bit 8): read through the PPGTT, checked,
 * and run as its GGTT copy, or left in place for an engine that runs it non-privileged. */
static void test_ppgtt_batches(void **state)
{
    const uint32_t b[] = {
        GEN9_MI_STORE_DATA_IMM,   (uint32_t)PP_BASE + 0x100, (uint32_t)(PP_BASE >> 32), 5,
        GEN9_MI_BATCH_BUFFER_END,
    };
    struct fx *f = i915_fx(state, IGPU_RCS);
    memcpy(&pp.mem[0x2000], b, sizeof b);
    EMIT(f, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
         (uint32_t)PP_BASE + 0x2000, (uint32_t)(PP_BASE >> 32));
    expect(f, IGPU_SCAN_OK);
    assert_int_equal(f->ring[1], GEN9_MI_BATCH_BUFFER_START); /* now a GGTT start */
    assert_int_equal(f->ring[2], (uint32_t)FX_SHADOW_GM);
    assert_int_equal(f->ring[3], 0);
    assert_memory_equal(f->shadow, b, sizeof b);

    /* A blit in a PPGTT batch names no address space: as a GGTT copy it would change meaning. */
    f = i915_fx(state, IGPU_BCS);
    uint32_t blit[16];
    size_t n = emit_color_blt(blit, PP_BASE, 256, 0, 0, 64, 4, 0xFF00FF00);
    blit[n++] = GEN9_MI_BATCH_BUFFER_END;
    memcpy(&pp.mem[0x3000], blit, n * 4);
    EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)PP_BASE + 0x3000,
         (uint32_t)(PP_BASE >> 32));
    expect(f, IGPU_SCAN_E_PPGTT);
    /* In place (what GVT-g does with non-privileged batches): the blit is checked through the
     * PPGTT and the start left alone. */
    ppgtt.in_place = true;
    expect(f, IGPU_SCAN_OK);
    assert_int_equal(f->res.ppgtt_in_place, 1);
    assert_int_equal(f->ring[1], (uint32_t)PP_BASE + 0x3000);
    assert_int_equal(f->res.blits, 1);
    /* ... and a blit into the read-only page is refused. */
    n = emit_color_blt(blit, PP_RO_PAGE, 256, 0, 0, 64, 4, 0);
    blit[n++] = GEN9_MI_BATCH_BUFFER_END;
    memcpy(&pp.mem[0x3000], blit, n * 4);
    expect(f, IGPU_SCAN_E_PPGTT_MAP);

    /* An unmapped batch; a batch chaining to itself in the PPGTT is a loop, while the same
     * address in the GGTT is another batch. */
    f = i915_fx(state, IGPU_RCS);
    EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, 0x1000, 0);
    expect(f, IGPU_SCAN_E_PPGTT_MAP);
    f = i915_fx(state, IGPU_RCS);
    const uint32_t loop[] = { GEN9_MI_NOOP, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
                              (uint32_t)PP_BASE + 0x4000, (uint32_t)(PP_BASE >> 32) };
    memcpy(&pp.mem[0x4000], loop, sizeof loop);
    EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)PP_BASE + 0x4000,
         (uint32_t)(PP_BASE >> 32));
    ppgtt.in_place = false;
    expect(f, IGPU_SCAN_E_BATCH_LOOP);
    /* Run where it is, the loop is the engine's (IGT's spinner: the CPU ends it later, or the
     * watchdog): the walk stops at it, everything before it checked. */
    ppgtt.in_place = true;
    expect(f, IGPU_SCAN_OK);
    assert_int_equal(f->res.ppgtt_loops, 1);
    assert_int_equal(f->res.batches, 1);
    assert_int_equal(f->ring[1], (uint32_t)PP_BASE + 0x4000);
    /* ... and a forbidden command before the loop is still refused. */
    const uint32_t bad[] = { GEN9_MI_LOAD_REGISTER_IMM(1),
                             GEN9_GDRST,
                             GEN9_GRDOM_FULL,
                             GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
                             (uint32_t)PP_BASE + 0x4000,
                             (uint32_t)(PP_BASE >> 32) };
    memcpy(&pp.mem[0x4000], bad, sizeof bad);
    expect(f, IGPU_SCAN_E_REG_DENIED);
    ppgtt.in_place = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_golden_rcs, teardown),
        cmocka_unit_test_teardown(test_xcs_requests, teardown),
        cmocka_unit_test_teardown(test_refused, teardown),
        cmocka_unit_test_teardown(test_ppgtt_operands, teardown),
        cmocka_unit_test_teardown(test_ppgtt_batches, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
