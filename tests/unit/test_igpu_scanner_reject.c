/* Scanner reject rules for single commands: one test per rule, each checking the reason
 * code, the offending dword and the detail reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/test_igpu_scanner_fixture.h"

static int setup_rcs(void **state)
{
    *state = fx_new(IGPU_RCS);
    return 0;
}

static int setup_bcs(void **state)
{
    *state = fx_new(IGPU_BCS);
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* Scan f's ring and check it is rejected with code at dword dw of the command at cmd. */
static void expect_reject(struct fx *f, enum igpu_scan_err code, uint32_t cmd, uint32_t dw)
{
    enum igpu_scan_err e = fx_scan(f);

    if (e != code) {
        char buf[200];
        igpu_scan_error_format(&f->res.err, buf, sizeof(buf));
        print_error("expected %s, got: %s\n", igpu_scan_strerror(code), buf);
    }
    assert_int_equal(e, code);
    assert_int_equal(f->res.err.code, code);
    assert_int_equal(f->res.err.level, 0);
    assert_true(f->res.err.buf_gm == IGPU_SCAN_GM_RING);
    assert_int_equal(f->res.err.cmd_offset, cmd);
    assert_int_equal(f->res.err.dw_offset, dw);
    assert_int_equal(f->res.err.header, f->ring[cmd]);
}

/* ---- graphics addresses ---- */

static void test_addr_below_range(void **state)
{
    struct fx *f = *state;

    f->n += emit_noop(f->ring);
    f->n += emit_sdi(f->ring + f->n, FX_GM_BASE - 4, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 1, 2);
    assert_int_equal(f->res.err.detail, FX_GM_BASE - 4);
}

static void test_addr_above_range(void **state)
{
    struct fx *f = *state;

    f->n = emit_sdi(f->ring, FX_GM_END, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 1);
    /* A qword store whose second half is past the end. */
    f->n = emit_sdi_qw(f->ring, FX_GM_END - 8, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_sdi(f->ring, FX_GM_END - 4, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_srm(f->ring, GEN9_RING_TIMESTAMP(GEN9_RCS_BASE), FX_GM_END);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 2);
    f->n = emit_lrm(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), FX_GM_BASE - 0x1000);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 2);
}

/* The high dword of a 48-bit address counts: 4 GiB above the range is outside it. */
static void test_addr_high_dword(void **state)
{
    struct fx *f = *state;

    f->n = emit_sdi(f->ring, FX_GM_BASE + (1ull << 32), 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 1);
    assert_int_equal(f->res.err.detail, FX_GM_BASE + (1ull << 32));
    /* Reserved bits 31:16 of the high dword: the hardware would drop them; refuse. */
    f->n = emit_sdi(f->ring, FX_GM_BASE, 0);
    f->ring[2] = 0x00010000u;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 2);
}

static void test_post_sync_outside(void **state)
{
    struct fx *f = *state;

    f->n = emit_pipe_control(f->ring,
                             GEN9_PIPE_CONTROL_GLOBAL_GTT | GEN9_PIPE_CONTROL_WRITE_TIMESTAMP,
                             FX_GM_END - 4, 0);
    f->ring[2] = (uint32_t)(FX_GM_END);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 2);
}

static void test_flush_dw_outside(void **state)
{
    struct fx *f = *state;

    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE - 0x40, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 1);
    /* A timestamp is a qword even in the 4-dw form (the last qword with bit 5 clear). */
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_TIMESTAMP, FX_GM_END - 4, 0);
    f->ring[1] = (uint32_t)(FX_GM_END - 0x28) | GEN9_MI_FLUSH_DW_USE_GTT;
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->ring[1] = (uint32_t)(FX_GM_END) | GEN9_MI_FLUSH_DW_USE_GTT;
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 1);
}

/* "w/a: bit 5 needs to be zero for MI_FLUSH_DW address" (i915
 * gen8_emit_ggtt_write()): with it set the scanner cannot know the bytes the GPU writes. */
static void test_flush_dw_address_bit5(void **state)
{
    struct fx *f = *state;

    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE + 0x120, 0);
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 1);
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE + 0x100, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* without a post-sync write the address is not used */
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_NONE, FX_GM_BASE + 0x120, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
}

/* ---- blits ---- */

static void test_blit_rect_ends_outside(void **state)
{
    struct fx *f = *state;

    /* 4096-byte extent starting 4092 bytes before the end: the last row runs over. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 4092, 1024, 0, 0, 256, 4, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 4);
    /* The same surface, but one row too many. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 4096, 1024, 0, 0, 256, 5, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 4);
    /* One pixel too wide on the last row. */
    f->n = emit_color_blt(f->ring, FX_GM_END - 4096, 1024, 0, 0, 257, 4, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 4);
}

static void test_blit_source_outside(void **state)
{
    struct fx *f = *state;

    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 16, 16, FX_GM_END - 1024, 1024, 0, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 8);
    /* Source offset (x, y) moves the rectangle out. */
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 16, 16, FX_GM_BASE, 1024, 0, 250);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 8);
    /* The destination is checked as well as the source. */
    f->n = emit_copy_blt(f->ring, FX_GM_BASE - 1024, 1024, 0, 0, 16, 16, FX_GM_BASE, 1024, 0, 0);
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 4);
}

/* A tiled surface is checked over whole tile rows: rows 0..39 touch tile rows 0 and 1. */
static void test_tiled_blit_outside(void **state)
{
    struct fx *f = *state;

    f->n = emit_color_blt(f->ring, FX_GM_END - 40 * 512, 128, 0, 0, 128, 40, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK); /* linear: fits */
    f->ring[0] |= GEN9_BLT_DST_TILED;
    expect_reject(f, IGPU_SCAN_E_ADDR_RANGE, 0, 4);
    /* Wider than the pitch, pitch not a whole tile, base not tile aligned. */
    f->n = emit_color_blt(f->ring, FX_GM_BASE, 128, 0, 0, 129, 8, 0);
    f->ring[0] |= GEN9_BLT_DST_TILED;
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 1);
    f->n = emit_color_blt(f->ring, FX_GM_BASE, 96, 0, 0, 8, 8, 0);
    f->ring[0] |= GEN9_BLT_DST_TILED;
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 1);
    f->n = emit_color_blt(f->ring, FX_GM_BASE + 512, 128, 0, 0, 8, 8, 0);
    f->ring[0] |= GEN9_BLT_DST_TILED;
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 4);
}

static void test_blit_geometry(void **state)
{
    struct fx *f = *state;

    f->n = emit_color_blt(f->ring, FX_GM_BASE, 1024, 10, 10, 10, 20, 0); /* empty */
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 3);
    f->n = emit_color_blt(f->ring, FX_GM_BASE, 1024, 10, 20, 20, 10, 0); /* inverted */
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 3);
    f->n = emit_color_blt(f->ring, FX_GM_BASE + 8192, 1024, (uint32_t)-2, 0, 4, 4, 0);
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 2);
    f->n = emit_color_blt(f->ring, FX_GM_BASE + 8192, (uint32_t)-1024, 0, 0, 4, 4, 0);
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 1);
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 4, 4, FX_GM_BASE + 8192, 1024, 0,
                         (uint32_t)-1);
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 6);
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 4, 4, FX_GM_BASE + 8192, (uint32_t)-1024,
                         0, 0);
    expect_reject(f, IGPU_SCAN_E_BLIT_GEOMETRY, 0, 7);
}

static void test_blit_reserved_bits(void **state)
{
    struct fx *f = *state;

    f->n = emit_color_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 4, 4, 0);
    f->ring[1] |= GEN9_BR13_CLIP_ENABLE;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 1);
    f->n = emit_copy_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 4, 4, FX_GM_BASE, 1024, 0, 8);
    f->ring[7] |= 0x10000u;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 7);
}

/* ---- registers ---- */

static void test_lri_not_allowed(void **state)
{
    struct fx *f = *state;

    f->n = emit_lri1(f->ring, GEN9_RING_TAIL(GEN9_RCS_BASE), 0);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    assert_int_equal(f->res.err.detail, GEN9_RING_TAIL(GEN9_RCS_BASE));
    /* The second pair is the offending one. */
    f->ring[0] = GEN9_MI_LOAD_REGISTER_IMM(2);
    f->ring[1] = GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0);
    f->ring[2] = 0;
    f->ring[3] = GEN9_RING_ELSP(GEN9_RCS_BASE);
    f->ring[4] = 0;
    f->n = 5;
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 3);
    /* Another engine's scratch registers are not this engine's. */
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), 0);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    /* Nothing past the last GPR. */
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 16), 0);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    /* Offsets with reserved bits set (an alias of an allowed register). */
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) | 0x1u, 0);
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 1);
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0) | 0x800000u, 0);
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 1);
}

/* Timestamps may be read (SRM) but never written (LRI, LRM). */
static void test_register_access_kind(void **state)
{
    struct fx *f = *state;
    uint32_t ts = GEN9_RING_TIMESTAMP(GEN9_RCS_BASE);

    f->n = emit_srm(f->ring, ts, FX_GM_BASE);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    f->n = emit_lri1(f->ring, ts, 0);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    f->n = emit_lrm(f->ring, ts, FX_GM_BASE);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    f->n = emit_srm(f->ring, GEN9_RING_HEAD(GEN9_RCS_BASE), FX_GM_BASE);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
    /* An empty allow-list refuses everything. */
    f->cfg.n_regs = 0;
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), 0);
    expect_reject(f, IGPU_SCAN_E_REG_DENIED, 0, 1);
}

/* ---- command decoding ---- */

static void test_truncated(void **state)
{
    struct fx *f = *state;

    f->n += emit_noop(f->ring);
    f->n += emit_sdi(f->ring + f->n, FX_GM_BASE, 0);
    f->n -= 1; /* the data dword is missing */
    expect_reject(f, IGPU_SCAN_E_TRUNCATED, 1, 1);
    f->n = emit_lri1(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), 0);
    f->ring[0] = GEN9_MI_LOAD_REGISTER_IMM(100); /* claims 100 pairs */
    expect_reject(f, IGPU_SCAN_E_TRUNCATED, 0, 0);
}

static void test_unknown_opcode(void **state)
{
    struct fx *f = *state;

    f->n = 2;
    f->ring[0] = GEN9_MI_NOOP;
    f->ring[1] = GEN9_MI_INSTR(0x3F, 0); /* no such MI opcode */
    expect_reject(f, IGPU_SCAN_E_UNKNOWN_CMD, 1, 1);
    f->ring[1] = 0x20000000u; /* reserved type 1 */
    expect_reject(f, IGPU_SCAN_E_UNKNOWN_CMD, 1, 1);
    f->ring[1] = 0xE0000000u; /* reserved type 7 */
    expect_reject(f, IGPU_SCAN_E_UNKNOWN_CMD, 1, 1);
    f->ring[1] = GEN9_3D_INSTR(3, 0, 0, 5); /* a 3D state command */
    expect_reject(f, IGPU_SCAN_E_UNKNOWN_CMD, 1, 1);
    f->ring[1] = GEN9_2D_INSTR(0x7F, 0); /* no such blit */
    expect_reject(f, IGPU_SCAN_E_UNKNOWN_CMD, 1, 1);
}

static void test_forbidden_commands(void **state)
{
    struct fx *f = *state;
    static const uint32_t ops[] = {
        GEN9_MI_UPDATE_GTT_OP,         GEN9_MI_SET_CONTEXT_OP,
        GEN9_MI_STORE_DATA_INDEX_OP,   GEN9_MI_MATH_OP,
        GEN9_MI_ARB_ON_OFF_OP,         GEN9_MI_SEMAPHORE_WAIT_OP,
        GEN9_MI_LOAD_REGISTER_REG_OP,  GEN9_MI_DISPLAY_FLIP_OP,
        GEN9_MI_CONDITIONAL_BB_END_OP,
    };
    size_t i;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        f->n = 4;
        f->ring[0] = GEN9_MI_INSTR(ops[i], 2);
        expect_reject(f, IGPU_SCAN_E_FORBIDDEN_CMD, 0, 0);
    }
    assert_string_equal(igpu_scan_cmd_name(GEN9_MI_INSTR(GEN9_MI_UPDATE_GTT_OP, 2)),
                        "MI_UPDATE_GTT");
}

static void test_wrong_engine_render(void **state)
{
    struct fx *f = *state;

    f->n = emit_color_blt(f->ring, FX_GM_BASE, 1024, 0, 0, 4, 4, 0);
    expect_reject(f, IGPU_SCAN_E_WRONG_ENGINE, 0, 0);
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_NONE, 0, 0);
    expect_reject(f, IGPU_SCAN_E_WRONG_ENGINE, 0, 0);
}

static void test_wrong_engine_blitter(void **state)
{
    struct fx *f = *state;

    f->n = emit_pipe_control(f->ring, GEN9_PIPE_CONTROL_CS_STALL, 0, 0);
    expect_reject(f, IGPU_SCAN_E_WRONG_ENGINE, 0, 0);
}

static void test_bad_length(void **state)
{
    struct fx *f = *state;

    f->n = emit_sdi(f->ring, FX_GM_BASE, 0);
    f->ring[0] += 3; /* 7 dwords */
    f->n = 7;
    expect_reject(f, IGPU_SCAN_E_BAD_LENGTH, 0, 0);
    f->n = emit_sdi(f->ring, FX_GM_BASE, 0);
    f->ring[0] |= GEN9_MI_SDI_STORE_QWORD; /* qword store in the dword form */
    expect_reject(f, IGPU_SCAN_E_BAD_LENGTH, 0, 0);
    f->n = emit_bb_start(f->ring, FX_GM_BASE, 0);
    f->ring[0] -= 1; /* 2-dword (Gen7) form */
    expect_reject(f, IGPU_SCAN_E_BAD_LENGTH, 0, 0);
    f->n = 4; /* LRI with half a pair */
    f->ring[0] = GEN9_MI_INSTR(GEN9_MI_LOAD_REGISTER_IMM_OP, 2);
    f->ring[1] = GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0);
    expect_reject(f, IGPU_SCAN_E_BAD_LENGTH, 0, 0);
    f->n = emit_pipe_control(f->ring, 0, 0, 0);
    f->ring[0] -= 1; /* 5 dwords */
    expect_reject(f, IGPU_SCAN_E_BAD_LENGTH, 0, 0);
}

static void test_reserved_header_bits(void **state)
{
    struct fx *f = *state;

    f->n = emit_bb_start(f->ring, FX_GM_BASE, GEN9_MI_BB_START_PREDICATION);
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 0);
    assert_int_equal(f->res.err.detail, GEN9_MI_BB_START_PREDICATION);
    f->n = 1;
    f->ring[0] = GEN9_MI_USER_INTERRUPT | 1u;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 0);
    f->n = emit_srm(f->ring, GEN9_RING_TIMESTAMP(GEN9_RCS_BASE), FX_GM_BASE);
    f->ring[0] |= GEN9_MI_SRM_PREDICATE;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 0);
    f->n = emit_pipe_control(f->ring, 0, 0, 0);
    f->ring[0] |= 0x100u;
    expect_reject(f, IGPU_SCAN_E_RESERVED_BITS, 0, 0);
}

static void test_ppgtt_addressing(void **state)
{
    struct fx *f = *state;

    f->n = emit_sdi(f->ring, FX_GM_BASE, 0);
    f->ring[0] &= ~GEN9_MI_SDI_USE_GGTT;
    expect_reject(f, IGPU_SCAN_E_PPGTT, 0, 0);
    f->n = emit_bb_start(f->ring, FX_GM_BASE, GEN9_MI_BB_START_PPGTT);
    expect_reject(f, IGPU_SCAN_E_PPGTT, 0, 0);
    f->n = emit_pipe_control(f->ring, GEN9_PIPE_CONTROL_WRITE_IMMEDIATE, FX_GM_BASE, 0);
    expect_reject(f, IGPU_SCAN_E_PPGTT, 0, 1);
    f->n = emit_lrm(f->ring, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 0), FX_GM_BASE);
    f->ring[0] &= ~GEN9_MI_LRM_USE_GGTT;
    expect_reject(f, IGPU_SCAN_E_PPGTT, 0, 0);
}

static void test_flush_dw_rules(void **state)
{
    struct fx *f = *state;

    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE, 0);
    f->ring[1] &= ~GEN9_MI_FLUSH_DW_USE_GTT;
    expect_reject(f, IGPU_SCAN_E_PPGTT, 0, 1);
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW | GEN9_MI_FLUSH_DW_STORE_INDEX,
                         FX_GM_BASE, 0);
    expect_reject(f, IGPU_SCAN_E_PRIVILEGED_OP, 0, 0);
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_RESERVED, FX_GM_BASE, 0);
    expect_reject(f, IGPU_SCAN_E_BAD_FIELD, 0, 0);
    f->n = emit_flush_dw(f->ring, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE, 0);
    f->ring[1] |= 1u;
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 1);
}

static void test_pipe_control_privileged(void **state)
{
    struct fx *f = *state;

    f->n = emit_pipe_control(f->ring,
                             GEN9_PIPE_CONTROL_GLOBAL_GTT | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE |
                                 GEN9_PIPE_CONTROL_LRI_POST_SYNC,
                             0x2030, 0);
    expect_reject(f, IGPU_SCAN_E_PRIVILEGED_OP, 0, 1);
    f->n = emit_pipe_control(f->ring,
                             GEN9_PIPE_CONTROL_GLOBAL_GTT | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE |
                                 GEN9_PIPE_CONTROL_STORE_DATA_INDEX,
                             0x40, 0);
    expect_reject(f, IGPU_SCAN_E_PRIVILEGED_OP, 0, 1);
}

static void test_misaligned(void **state)
{
    struct fx *f = *state;

    f->n = emit_sdi_qw(f->ring, FX_GM_BASE + 4, 0);
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 1);
    f->n = emit_sdi(f->ring, FX_GM_BASE + 2, 0);
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 1);
    f->n = emit_pipe_control(f->ring,
                             GEN9_PIPE_CONTROL_GLOBAL_GTT | GEN9_PIPE_CONTROL_WRITE_IMMEDIATE,
                             FX_GM_BASE + 4, 0);
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 2);
    f->n = emit_bb_start(f->ring, FX_GM_BASE + 1, 0);
    expect_reject(f, IGPU_SCAN_E_MISALIGNED, 0, 1);
}

static void test_bb_end_in_ring(void **state)
{
    struct fx *f = *state;

    f->n += emit_noop(f->ring);
    f->n += emit_bb_end(f->ring + f->n);
    expect_reject(f, IGPU_SCAN_E_BB_END_IN_RING, 1, 1);
}

int main(void)
{
#define RCS(t) cmocka_unit_test_setup_teardown(t, setup_rcs, teardown)
#define BCS(t) cmocka_unit_test_setup_teardown(t, setup_bcs, teardown)
    const struct CMUnitTest tests[] = {
        RCS(test_addr_below_range),
        RCS(test_addr_above_range),
        RCS(test_addr_high_dword),
        RCS(test_post_sync_outside),
        BCS(test_flush_dw_outside),
        BCS(test_flush_dw_address_bit5),
        BCS(test_blit_rect_ends_outside),
        BCS(test_blit_source_outside),
        BCS(test_tiled_blit_outside),
        BCS(test_blit_geometry),
        BCS(test_blit_reserved_bits),
        RCS(test_lri_not_allowed),
        RCS(test_register_access_kind),
        RCS(test_truncated),
        RCS(test_unknown_opcode),
        RCS(test_forbidden_commands),
        RCS(test_wrong_engine_render),
        BCS(test_wrong_engine_blitter),
        RCS(test_bad_length),
        RCS(test_reserved_header_bits),
        RCS(test_ppgtt_addressing),
        BCS(test_flush_dw_rules),
        RCS(test_pipe_control_privileged),
        RCS(test_misaligned),
        RCS(test_bb_end_in_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
