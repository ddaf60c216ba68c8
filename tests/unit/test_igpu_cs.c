/*
 * The MI-only command streamer: i915 6.1's requests on each engine (breadcrumbs, flushes, the
 * render engine's golden context with its workaround loads and golden state batch), batches in
 * both address spaces, and every refusal with its named reason.
 */
#include "tests/unit/test_igpu_cs_fixture.h"

#define HWSP_SEQNO (FX_HWSP + 0x100u) /* the timeline's seqno slot (qword aligned) */

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static struct fx_cs *fresh(void **state, enum igpu_engine e)
{
    free(*state);
    *state = fx_new(e);
    return *state;
}

/* A breadcrumb-only request on the video engines (what __engines_record_defaults() submits on
 * VCS and VECS, and what every engine park submits): invalidate flush, init breadcrumb, fini
 * breadcrumb with the user interrupt. */
static void test_xcs_request(void **state)
{
    static const enum igpu_engine engines[] = { IGPU_VCS, IGPU_VECS };
    for (unsigned i = 0; i < 2; i++) {
        struct fx_cs *f = fresh(state, engines[i]);
        fx_wr32(f, IGPU_CS_GGTT, FX_LRCA + FX_PPHWSP_SCRATCH, 0xAAAAAAAA);
        fx_flush_xcs(f, true);
        fx_init_breadcrumb(f, HWSP_SEQNO, 7);
        fx_fini_xcs(f, HWSP_SEQNO, 7);
        assert_int_equal(fx_run(f), IGPU_CS_OK);
        assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, HWSP_SEQNO), 7);
        assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_LRCA + FX_PPHWSP_SCRATCH), 0);
        assert_int_equal(f->res.user_interrupts, 1);
        assert_int_equal(f->n_events, 1);
        assert_int_equal(f->events[0], GEN9_GT_USER_INTERRUPT);
        assert_int_equal(f->res.mem_writes, 3);
        assert_int_equal(f->res.commands, 9);
        assert_int_equal(f->res.head, f->ring.tail);
    }
}

/* The render engine's golden-context request, as i915 6.1 builds it on Skylake:
 * execlists_request_alloc() -> emit_flush(EMIT_INVALIDATE); intel_engine_emit_ctx_wa() ->
 * flush barrier, one LRI of the context workarounds, MI_NOOP, flush barrier;
 * intel_renderstate_emit() -> gen8_emit_bb_start_noarb() of the golden state (a GGTT batch);
 * gen8_emit_fini_breadcrumb_rcs(). */
static void test_rcs_golden_context(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_RCS);
    unsigned skipped = fx_put_null_state(f, IGPU_CS_GGTT, FX_BATCH);
    const uint32_t wa[][2] = {
        { GEN9_COMMON_SLICE_CHICKEN2, 0x00010001 }, { GEN9_HALF_SLICE_CHICKEN7, 0x00090009 },
        { GEN9_ROW_CHICKEN, 0x01400140 },           { GEN9_CACHE_MODE_1, 0x00220022 },
        { GEN9_HALF_SLICE_CHICKEN5, 0x00010000 },   { GEN9_HDC_CHICKEN0, 0x00300030 },
        { GEN9_HALF_SLICE_CHICKEN3, 0x00020002 },   { GEN9_HALF_SLICE_CHICKEN2, 0x20002000 },
        { GEN9_CS_CHICKEN1, 0x00060004 },
    };

    fx_flush_rcs(f, false, true);
    fx_flush_rcs(f, true, true);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(9));
    for (unsigned i = 0; i < 9; i++)
        FX_EMIT(f, wa[i][0], wa[i][1]);
    FX_EMIT(f, GEN9_MI_NOOP);
    fx_flush_rcs(f, true, true);
    FX_EMIT(f, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0);
    fx_fini_rcs(f, HWSP_SEQNO, 1);
    assert_int_equal(fx_run(f), IGPU_CS_OK);

    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, HWSP_SEQNO), 1);
    for (unsigned i = 0; i < 9; i++)
        assert_int_equal(fx_reg(f, wa[i][0]), wa[i][1]);
    assert_int_equal(f->res.reg_writes, 9);
    assert_int_equal(f->res.state_skipped, skipped);
    assert_int_equal(f->res.batches, 1);
    assert_int_equal(f->res.user_interrupts, 1);
    /* The store-index flushes wrote the PPHWSP scratch qword; nothing else in the page. */
    assert_int_equal(fx_rd64(f, IGPU_CS_GGTT, FX_LRCA + FX_PPHWSP_SCRATCH), 0);
    assert_int_equal(f->res.head, f->ring.tail);
    assert_int_equal(f->res.fault, IGPU_CS_OK);
}

/* The golden state's draw is skipped only because it cannot draw: with three vertices, or with
 * the topology unknown, or taken from registers, the same command is refused. */
static void test_draw_refused(void **state)
{
    struct fx_cs *f;
    const uint32_t topo[] = { GEN9_3D_INSTR(3, 0, GEN9_3DSTATE_VF_TOPOLOGY_SUBOP, 0),
                              GEN9_3DPRIM_TRILIST };
    struct {
        bool topo;
        uint32_t flags, vertices;
        enum igpu_cs_fault want;
    } c[] = {
        { true, 0, 1, IGPU_CS_OK }, /* i915's golden draw */
        { true, 0, 2, IGPU_CS_OK },
        { true, 0, 3, IGPU_CS_F_DRAW },  /* one triangle */
        { false, 0, 1, IGPU_CS_F_DRAW }, /* topology unknown here */
        { false, 0, 0, IGPU_CS_OK },     /* no vertex at all */
        { true, GEN9_3DPRIMITIVE_INDIRECT, 0, IGPU_CS_F_DRAW },
        { true, GEN9_3DPRIMITIVE_PREDICATE, 1, IGPU_CS_F_DRAW },
    };
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        f = fresh(state, IGPU_RCS);
        if (c[i].topo)
            fx_emit(f, topo, 2);
        FX_EMIT(f, GEN9_3DPRIMITIVE | c[i].flags, GEN9_3DPRIM_TRILIST, c[i].vertices, 0, 1, 0, 0,
                GEN9_MI_USER_INTERRUPT);
        assert_int_equal(fx_run(f), c[i].want);
        if (c[i].want != IGPU_CS_OK) {
            assert_string_equal(f->res.what, "3DPRIMITIVE: may draw: " IGPU_CS_LABEL);
            assert_int_equal(f->res.header, GEN9_3DPRIMITIVE | c[i].flags);
            assert_int_equal(f->res.user_interrupts, 0); /* the engine stopped there */
            assert_int_equal(f->res.head, c[i].topo ? 8u : 0u);
        }
    }
    assert_int_equal(gen9_topology_min_vertices(GEN9_3DPRIM_POINTLIST), 1);
    assert_int_equal(gen9_topology_min_vertices(GEN9_3DPRIM_RECTLIST), 3);
    assert_int_equal(gen9_topology_min_vertices(GEN9_3DPRIM_TRILIST_ADJ), 6);
    assert_int_equal(gen9_topology_min_vertices(GEN9_3DPRIM_PATCHLIST_1 + 4), 5);
    assert_int_equal(gen9_topology_min_vertices(0), 0);
}

static void expect_fault(struct fx_cs *f, enum igpu_cs_fault want, const char *what)
{
    assert_int_equal(fx_run(f), want);
    assert_int_equal(f->res.fault, want);
    if (what)
        assert_string_equal(f->res.what, what);
}

/* Kernels, media and other engines' commands are refused with their names. */
static void test_refusals(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(GEN9_GFXPIPE_MEDIA, 1, 0x5, 13), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0);
    expect_fault(f, IGPU_CS_F_GPGPU, "GPGPU_WALKER: runs kernels: " IGPU_CS_LABEL);

    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(GEN9_GFXPIPE_MEDIA, 1, 0x0, 4), 0, 0, 0, 0, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_GPGPU, "MEDIA_OBJECT: runs kernels: " IGPU_CS_LABEL);

    /* Media state is skipped like 3D state. */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(GEN9_GFXPIPE_MEDIA, 0, 0x0, 7), 0, 0, 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(f->res.state_skipped, 1);

    /* MFX on the video engine, VEBOX on the enhancement engine: type-3 commands there. */
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, 0x70000004u, 0, 0, 0, 0, 0); /* MFX_PIPE_MODE_SELECT */
    expect_fault(f, IGPU_CS_F_MEDIA, NULL);
    assert_non_null(strstr(f->res.what, "MFX command refused: " IGPU_CS_LABEL));
    f = fresh(state, IGPU_VECS);
    FX_EMIT(f, 0x74020000u, 0); /* VEB_STATE */
    expect_fault(f, IGPU_CS_F_MEDIA, NULL);
    assert_non_null(strstr(f->res.what, "VEBOX command refused"));

    /* PIPE_CONTROL is render-only; MI_FLUSH_DW is not on render; blits are the blitter's. */
    f = fresh(state, IGPU_VECS);
    FX_EMIT(f, GEN9_PIPE_CONTROL, 0, 0, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_MEDIA, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_FLUSH_DW, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_WRONG_ENGINE, "MI_FLUSH_DW: the render engine uses PIPE_CONTROL");
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_XY_COLOR_BLT, 0, 0, 0, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_WRONG_ENGINE, "XY_COLOR_BLT: blitter command");

    /* MI commands the streamer does not execute. */
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_INSTR(GEN9_MI_SEMAPHORE_WAIT_OP, 2), 0, 0, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_CMD,
                 "MI_SEMAPHORE_WAIT: not executed by the MI-only streamer");
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_INSTR(GEN9_MI_SET_PREDICATE_OP, 0));
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_CMD, "MI_SET_PREDICATE: predication not supported");
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_INSTR(GEN9_MI_MATH_OP, 0), 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_CMD, NULL);

    /* The resource streamer's binding-table edits write memory: refused by name. */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(3, 0, 0x47, 1), 0, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_CMD, NULL);
    assert_non_null(strstr(f->res.what, "3DSTATE_BINDING_TABLE_EDIT_PS"));

    /* Unknown GFXPIPE command and reserved command type. */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(3, 0, 0x7F, 0), 0);
    expect_fault(f, IGPU_CS_F_UNKNOWN_CMD, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, 0x20000000u);
    expect_fault(f, IGPU_CS_F_UNKNOWN_CMD, NULL);

    /* A state command with a wrong length. */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_3D_INSTR(3, 0, 0x14, 1), 0, 0); /* 3DSTATE_WM is 2 dwords */
    expect_fault(f, IGPU_CS_F_BAD_LENGTH, NULL);
}

/* Stores, loads and post-syncs in both address spaces; PPGTT only with a PPGTT. */
static void test_stores(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VCS);
    uint64_t pp = FX_PP_BASE + 0x2000;

    FX_EMIT(f, GEN9_MI_STORE_QWORD_IMM | GEN9_MI_SDI_USE_GGTT, FX_BATCH + 8, 0, 0x11111111,
            0x22222222, GEN9_MI_STORE_DATA_IMM, (uint32_t)pp, (uint32_t)(pp >> 32), 0x33333333,
            GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_TIMESTAMP, (uint32_t)pp + 8,
            (uint32_t)(pp >> 32), 0,
            GEN9_MI_INSTR(GEN9_MI_FLUSH_DW_OP, 3) | GEN9_MI_FLUSH_DW_OP_STOREDW |
                GEN9_MI_FLUSH_DW_NOTIFY,
            (FX_BATCH + 16) | GEN9_MI_FLUSH_DW_USE_GTT, 0, 0x44444444, 0x55555555);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_rd64(f, IGPU_CS_GGTT, FX_BATCH + 8), 0x2222222211111111ull);
    assert_int_equal(fx_rd32(f, IGPU_CS_PPGTT, pp), 0x33333333);
    assert_int_equal(fx_rd64(f, IGPU_CS_PPGTT, pp + 8), f->ts);
    assert_int_equal(fx_rd64(f, IGPU_CS_GGTT, FX_BATCH + 16), 0x5555555544444444ull);
    assert_int_equal(f->res.notifies, 1);
    assert_int_equal(f->events[0], GEN9_GT_PIPECTL_NOTIFY);

    /* The same PPGTT store in a context without a PPGTT. */
    f = fresh(state, IGPU_VCS);
    f->cfg.ppgtt = false;
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM, (uint32_t)pp, (uint32_t)(pp >> 32), 1);
    expect_fault(f, IGPU_CS_F_PPGTT, NULL);

    /* PIPE_CONTROL: PPGTT qword immediate, GGTT timestamp, notify. */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_WRITE_IMMEDIATE, (uint32_t)pp + 4,
            (uint32_t)(pp >> 32), 0x66666666, 0x77777777, GEN9_PIPE_CONTROL,
            GEN9_PIPE_CONTROL_WRITE_TIMESTAMP | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                GEN9_PIPE_CONTROL_NOTIFY,
            FX_BATCH + 0x40, 0, 0, 0);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    /* Bits 2:0 of a qword post-sync address are ignored, as by the hardware. */
    assert_int_equal(fx_rd64(f, IGPU_CS_PPGTT, pp), 0x7777777766666666ull);
    assert_int_equal(fx_rd64(f, IGPU_CS_GGTT, FX_BATCH + 0x40), f->ts);
    assert_int_equal(f->n_events, 1);
}

static void test_store_faults(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VCS);
    /* An unmapped page: the engine stops at the store, with the address. */
    f->unmapped[IGPU_CS_GGTT][FX_BATCH / 4096u] = true;
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, FX_BATCH + 4, 0, 1,
            GEN9_MI_USER_INTERRUPT);
    expect_fault(f, IGPU_CS_F_MEMORY, NULL);
    assert_int_equal(f->res.detail, FX_BATCH + 4);
    assert_int_equal(f->res.cmd_gaddr, FX_RING);
    assert_int_equal(f->n_events, 0);

    /* A read-only page (i915's scratch page is mapped read-only). */
    f = fresh(state, IGPU_VCS);
    f->readonly[IGPU_CS_PPGTT][3] = true;
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM, 0x3000, 1, 1);
    expect_fault(f, IGPU_CS_F_MEMORY, NULL);

    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_STORE_QWORD | GEN9_MI_SDI_USE_GGTT, FX_BATCH, 0,
            1);
    expect_fault(f, IGPU_CS_F_BAD_LENGTH, NULL); /* qword store of 4 dwords */
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, FX_BATCH, 0x10000, 1);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, NULL); /* address bits 63:48 */
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_RESERVED, FX_BATCH | 4, 0, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, "MI_FLUSH_DW: reserved post-sync operation");
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW, FX_BATCH | 0x24, 0, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, "MI_FLUSH_DW: post-sync address bit 5 set");
    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_OP_STOREDW,
            0x1000, 0, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, NULL); /* index beyond the status page */
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_LRI_POST_SYNC, 0x2000, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_FIELD, "PIPE_CONTROL: post-sync register write");
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_PIPE_CONTROL, GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT, 0x2000, 0, 0, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_FIELD, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_PIPE_CONTROL,
            GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_STORE_DATA_INDEX, 0xD0, 1, 0, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, NULL);
}

/* Registers: the allow-list decides; SRM of the timestamp, LRM from PPGTT memory. */
static void test_registers(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VECS);
    uint32_t gpr0 = GEN9_RING_CS_GPR(GEN9_VECS_BASE, 0);

    fx_wr32(f, IGPU_CS_PPGTT, FX_PP_BASE + 0x100, 0xCAFEF00D);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), gpr0, 0x1234, GEN9_MI_LOAD_REGISTER_MEM, gpr0 + 4,
            (uint32_t)FX_PP_BASE + 0x100, 1, GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT,
            GEN9_RING_TIMESTAMP(GEN9_VECS_BASE), FX_BATCH, 0,
            GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT, gpr0, FX_BATCH + 4, 0);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_reg(f, gpr0), 0x1234);
    assert_int_equal(fx_reg(f, gpr0 + 4), 0xCAFEF00D);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_BATCH), (uint32_t)f->ts);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_BATCH + 4), 0x1234);
    assert_int_equal(f->res.reg_writes, 2);

    /* Timestamps are read-only; other engines' and global registers are not listed. */
    f = fresh(state, IGPU_VECS);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_RING_TIMESTAMP(GEN9_VECS_BASE), 0);
    expect_fault(f, IGPU_CS_F_REGISTER, "MI_LOAD_REGISTER_IMM: register not writable by commands");
    f = fresh(state, IGPU_VECS);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), 0);
    expect_fault(f, IGPU_CS_F_REGISTER, NULL);
    assert_int_equal(f->res.detail, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0));
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_GDRST, 1);
    expect_fault(f, IGPU_CS_F_REGISTER, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT, GEN9_FUSE2, FX_BATCH, 0);
    expect_fault(f, IGPU_CS_F_REGISTER, "MI_STORE_REGISTER_MEM: register not readable by commands");
    /* Byte write disables keep their bytes (bits 8 and 9: bytes 0 and 1). */
    f = fresh(state, IGPU_RCS);
    fx_reg_write(f, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), 0x11223344);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1) | (0x3u << 8), GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0),
            0xAABBCCDD);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_reg(f, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0)), 0xAABB3344);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_CACHE_MODE_1 | 0x01000000u, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT | GEN9_MI_SRM_PREDICATE,
            GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), FX_BATCH, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_FIELD, NULL);
}

/* Batches: a PPGTT user batch started the way i915 starts one (gen8_emit_bb_start_noarb() with
 * bit 8), calling a second-level batch and chaining, all through the PPGTT; the return lands
 * after the call.  (What a PPGTT batch may not do is test_igpu_privilege_cs.c's.)  A GGTT batch
 * from the ring is privileged and calls a second-level GGTT batch. */
static void test_batches(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_RCS);
    uint64_t b1 = FX_PP_BASE + 0x1000, b2 = FX_PP_BASE + 0x2100, b3 = FX_PP_BASE + 0x3000;
    uint64_t d = FX_PP_BASE + 0x4000;
#define PP_SDI(a, v) GEN9_MI_STORE_DATA_IMM, (uint32_t)(a), (uint32_t)((a) >> 32), (v)
    uint32_t d1[] = {
        PP_SDI(d, 1),
        GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL | GEN9_MI_BB_START_PPGTT,
        (uint32_t)b2,
        (uint32_t)(b2 >> 32),
        PP_SDI(d + 8, 3),
        GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
        (uint32_t)b3,
        (uint32_t)(b3 >> 32),
        PP_SDI(d + 12, 0xBAD), /* chained away */
    };
    uint32_t d2[] = { PP_SDI(d + 4, 2), GEN9_MI_BATCH_BUFFER_END };
    uint32_t d3[] = { PP_SDI(d + 16, 4), GEN9_MI_BATCH_BUFFER_END };
#undef PP_SDI
    fx_put(f, IGPU_CS_PPGTT, b1, d1, sizeof d1 / 4);
    fx_put(f, IGPU_CS_PPGTT, b2, d2, sizeof d2 / 4);
    fx_put(f, IGPU_CS_PPGTT, b3, d3, sizeof d3 / 4);
    FX_EMIT(f, GEN9_MI_ARB_ON_OFF, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT,
            (uint32_t)b1, (uint32_t)(b1 >> 32), GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT,
            FX_BATCH + 20, 0, 5);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    {
        const uint32_t want[5] = { 1, 2, 3, 0, 4 }; /* dword 3 was chained away */
        for (unsigned i = 0; i < 5; i++)
            assert_int_equal(fx_rd32(f, IGPU_CS_PPGTT, d + 4u * i), want[i]);
    }
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_BATCH + 20), 5);
    assert_int_equal(f->res.batches, 3);
    assert_int_equal(f->res.priv_dropped, 0);

    /* A GGTT batch calls a second-level GGTT batch; both store through the GGTT. */
    f = fresh(state, IGPU_RCS);
    fx_put(f, IGPU_CS_GGTT, FX_BATCH + 0x100,
           (uint32_t[]){ GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, FX_BATCH + 0x804, 0, 2,
                         GEN9_MI_BATCH_BUFFER_END },
           5);
    fx_put(f, IGPU_CS_GGTT, FX_BATCH,
           (uint32_t[]){ GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, FX_BATCH + 0x800, 0, 1,
                         GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL,
                         FX_BATCH + 0x100, 0, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT,
                         FX_BATCH + 0x808, 0, 3, GEN9_MI_BATCH_BUFFER_END },
           12);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_BATCH + 0x800 + 4u * i), i + 1u);
    assert_int_equal(f->res.batches, 2);

    /* Batch faults report where in which space. */
    f = fresh(state, IGPU_RCS);
    fx_put(f, IGPU_CS_PPGTT, b1, (uint32_t[]){ GEN9_MI_INSTR(GEN9_MI_ATOMIC_OP, 1), 0, 0 }, 3);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)b1,
            (uint32_t)(b1 >> 32));
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_CMD, NULL);
    assert_int_equal(f->res.cmd_space, IGPU_CS_PPGTT);
    assert_int_equal(f->res.cmd_gaddr, b1);
    assert_int_equal(f->res.head, 12); /* past the start, as RING_HEAD would be */

    /* A third level, a second-level start from the ring, an end in the ring. */
    f = fresh(state, IGPU_RCS);
    fx_put(f, IGPU_CS_GGTT, FX_BATCH,
           (uint32_t[]){ GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL,
                         FX_BATCH + 0x100, 0 },
           3);
    fx_put(f, IGPU_CS_GGTT, FX_BATCH + 0x100,
           (uint32_t[]){ GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL,
                         FX_BATCH + 0x200, 0 },
           3);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0);
    expect_fault(f, IGPU_CS_F_BATCH_DEPTH, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL, FX_BATCH, 0);
    expect_fault(f, IGPU_CS_F_BAD_FIELD, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_END, GEN9_MI_NOOP);
    expect_fault(f, IGPU_CS_F_BB_END_IN_RING, NULL);
    f = fresh(state, IGPU_RCS);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PREDICATION, FX_BATCH, 0);
    expect_fault(f, IGPU_CS_F_UNSUPPORTED_FIELD, NULL);
    f = fresh(state, IGPU_RCS);
    f->cfg.ppgtt = false;
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)b1, 1);
    expect_fault(f, IGPU_CS_F_PPGTT, NULL);
}

/* Step-wise: at most n commands a call, resuming where the last call stopped, inside batches
 * too; the same work as one run. */
static void test_steps(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VCS);
    struct igpu_cs cs;
    struct igpu_cs_result res;
    unsigned calls = 0;

    fx_put(f, IGPU_CS_GGTT, FX_BATCH,
           (uint32_t[]){ GEN9_MI_NOOP, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT,
                         FX_BATCH + 0x800, 0, 2, GEN9_MI_BATCH_BUFFER_END },
           6);
    fx_init_breadcrumb(f, HWSP_SEQNO, 2);                /* 3 commands */
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0); /* 1 + 3 in the batch */
    fx_fini_xcs(f, HWSP_SEQNO, 3);                       /* 5 */
    memset(&res, 0, sizeof res);
    igpu_cs_init(&cs, IGPU_VCS, f->cfg.regs, f->cfg.n_regs, true, "MI-only streamer");
    igpu_cs_load(&cs, &f->ring, FX_LRCA, true);
    while (!igpu_cs_idle(&cs)) {
        uint32_t before = res.commands;
        assert_int_equal(igpu_cs_step(&cs, &f->ops, 2, &res), IGPU_CS_OK);
        assert_true(res.commands - before <= 2u);
        if (++calls == 3) { /* stopped inside the batch */
            assert_int_equal(cs.level, 1);
            assert_int_equal(cs.bb[1].pos, FX_BATCH + 5u * 4u);
        }
    }
    assert_int_equal(res.commands, 12);
    assert_int_equal(calls, 6);
    assert_int_equal(res.head, f->ring.tail);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, FX_BATCH + 0x800), 2);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, HWSP_SEQNO), 3);
    assert_int_equal(res.user_interrupts, 1);
}

static bool time_is_up(void *ctx)
{
    return true;
}

/* Steps a user (PPGTT) batch of one register load of 8 GPRs with the caller's time always up:
 * each step loads one register and stops inside the command.  `between(f, step)` may rewrite
 * the batch after a step, as the guest's CPU may. */
static struct igpu_cs_result
lri_by_steps(struct fx_cs *f, void (*between)(struct fx_cs *, unsigned), unsigned *steps)
{
    struct igpu_cs cs;
    struct igpu_cs_result res;
    uint32_t bb[1 + 2 * 8 + 1], k = 0;
    bb[k++] = GEN9_MI_LOAD_REGISTER_IMM(8);
    for (unsigned i = 0; i < 8; i++) {
        bb[k++] = GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) + 4u * i;
        bb[k++] = 0x100u + i;
    }
    bb[k++] = GEN9_MI_BATCH_BUFFER_END;
    fx_put(f, IGPU_CS_PPGTT, FX_PP_BASE, bb, k);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT, (uint32_t)FX_PP_BASE,
            (uint32_t)(FX_PP_BASE >> 32));
    f->ops.out_of_time = time_is_up;
    memset(&res, 0, sizeof res);
    igpu_cs_init(&cs, IGPU_RCS, f->cfg.regs, f->cfg.n_regs, true, "MI-only streamer");
    igpu_cs_load(&cs, &f->ring, FX_LRCA, true);
    for (*steps = 0; !igpu_cs_idle(&cs) && *steps < 100; (*steps)++) {
        assert_int_equal(igpu_cs_step(&cs, &f->ops, 1000, &res), IGPU_CS_OK);
        if (cs.part.units)
            assert_int_equal(cs.level, 1); /* stopped inside the load, in the batch */
        if (between)
            between(f, *steps);
    }
    assert_true(igpu_cs_idle(&cs));
    return res;
}

static void rewrite_pair_5(struct fx_cs *f, unsigned step)
{
    if (step == 2) /* three registers loaded: the sixth becomes a privileged one */
        fx_wr32(f, IGPU_CS_PPGTT, FX_PP_BASE + 4u * (1 + 2 * 5), GEN9_GT_MODE);
}

static void rewrite_header(struct fx_cs *f, unsigned step)
{
    if (step != 1)
        return;
    /* Two loaded: the command becomes a load of 4 with new values. */
    for (unsigned i = 0; i < 4; i++)
        fx_wr32(f, IGPU_CS_PPGTT, FX_PP_BASE + 4u * (2 + 2 * i), 0x200u + i);
    fx_wr32(f, IGPU_CS_PPGTT, FX_PP_BASE, GEN9_MI_LOAD_REGISTER_IMM(4));
}

/* A register load stops between registers when the caller's time is up and goes on where it
 * stopped: one command, every register once.  Checked again as it goes on, a pair rewritten to
 * a privileged register drops the rest, and a rewritten header starts the command afresh. */
static void test_lri_stops_between_registers(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_RCS);
    unsigned steps;
    struct igpu_cs_result res = lri_by_steps(f, NULL, &steps);
    assert_int_equal(res.reg_writes, 8);
    assert_int_equal(res.commands, 3); /* the start, the load, the end: the load counted once */
    assert_true(steps >= 8);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(fx_reg(f, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) + 4u * i), 0x100u + i);

    f = fresh(state, IGPU_RCS);
    res = lri_by_steps(f, rewrite_pair_5, &steps);
    assert_int_equal(res.reg_writes, 5);
    assert_int_equal(res.priv_dropped, 1);
    assert_int_equal(fx_reg(f, GEN9_GT_MODE), 0xDEADBEEFu); /* never loaded */
    assert_int_equal(fx_reg(f, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) + 4u * 5), 0xDEADBEEFu);

    f = fresh(state, IGPU_RCS);
    res = lri_by_steps(f, rewrite_header, &steps);
    assert_int_equal(res.reg_writes, 2 + 4);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(fx_reg(f, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) + 4u * i), 0x200u + i);
}

/* An endless batch (IGT's spinner shape: a batch that starts itself) stops at the budget. */
static void test_budget(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VCS);
    fx_put(f, IGPU_CS_GGTT, FX_BATCH,
           (uint32_t[]){ GEN9_MI_ARB_CHECK, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0 }, 4);
    FX_EMIT(f, GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0);
    f->cfg.max_commands = 1000;
    expect_fault(f, IGPU_CS_F_BUDGET, NULL);
    assert_int_equal(f->res.commands, 1000);
    assert_int_equal(f->res.cmd_space, IGPU_CS_GGTT);
    assert_true(f->res.cmd_gaddr == FX_BATCH || f->res.cmd_gaddr == FX_BATCH + 4);
}

/* The ring wraps; a command that runs past the tail stops the engine; a bad ring is refused. */
static void test_ring(void **state)
{
    struct fx_cs *f = fresh(state, IGPU_VCS);
    f->ring_dw = 1022; /* two dwords before the end */
    f->ring.head = 1022 * 4;
    fx_init_breadcrumb(f, HWSP_SEQNO, 9); /* the SDI wraps around */
    FX_EMIT(f, GEN9_MI_USER_INTERRUPT);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, HWSP_SEQNO), 8);
    assert_int_equal(f->res.head, f->ring.tail);
    assert_int_equal(f->res.head, 5 * 4);

    f = fresh(state, IGPU_VCS);
    FX_EMIT(f, GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, HWSP_SEQNO, 0, 1);
    f->ring.tail = 8; /* the tail cuts the store in half */
    expect_fault(f, IGPU_CS_F_RING_OVERRUN, NULL);
    assert_int_equal(fx_rd32(f, IGPU_CS_GGTT, HWSP_SEQNO), 0);

    f = fresh(state, IGPU_VCS);
    f->ring.size = 100;
    expect_fault(f, IGPU_CS_F_CONFIG, NULL);
    f = fresh(state, IGPU_VCS);
    f->ring.head = 2;
    expect_fault(f, IGPU_CS_F_CONFIG, NULL);
    f = fresh(state, IGPU_VCS);
    f->cfg.engine = IGPU_NUM_GT_ENGINES;
    expect_fault(f, IGPU_CS_F_CONFIG, NULL);
    assert_int_equal(igpu_cs_run(&f->cfg, &f->ops, &f->ring, NULL), IGPU_CS_F_CONFIG);
    assert_string_equal(igpu_cs_fault_name(IGPU_CS_F_DRAW),
                        "draw refused (RCS/VCS/VECS: MI only, no 3D or media)");
    assert_string_equal(igpu_cs_fault_name(IGPU_CS_F_COUNT), "invalid fault");

    /* An empty ring does nothing; MI_NOOP with an identification value records it. */
    f = fresh(state, IGPU_VCS);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(f->res.commands, 0);
    FX_EMIT(f, GEN9_MI_NOOP | GEN9_MI_NOOP_ID_WRITE | 0x1234, GEN9_MI_NOOP);
    assert_int_equal(fx_run(f), IGPU_CS_OK);
    assert_int_equal(f->res.nopid, 0x1234);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_xcs_request, teardown),
        cmocka_unit_test_teardown(test_rcs_golden_context, teardown),
        cmocka_unit_test_teardown(test_draw_refused, teardown),
        cmocka_unit_test_teardown(test_refusals, teardown),
        cmocka_unit_test_teardown(test_stores, teardown),
        cmocka_unit_test_teardown(test_store_faults, teardown),
        cmocka_unit_test_teardown(test_registers, teardown),
        cmocka_unit_test_teardown(test_batches, teardown),
        cmocka_unit_test_teardown(test_steps, teardown),
        cmocka_unit_test_teardown(test_lri_stops_between_registers, teardown),
        cmocka_unit_test_teardown(test_budget, teardown),
        cmocka_unit_test_teardown(test_ring, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
