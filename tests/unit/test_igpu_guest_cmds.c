/* The guest vGPU library's command builders (guests/lib/vgpu_cmd.c, compiled here hosted) run
 * through the blitter scanner: what the kiosk guests emit is accepted with the exact facts,
 * and what hostile-gpu emits is refused with the reason it expects. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tests/unit/test_igpu_scanner_fixture.h"

#include "guests/lib/vgpu_cmd.c"

#define FB    (FX_GM_BASE + 0x10000) /* a 64x64 surface, pitch 256 */
#define SRC   (FX_GM_BASE + 0x20000)
#define BATCH (FX_GM_BASE + 0x30000)
#define BC    (FX_GM_BASE + 0x38000) /* breadcrumb page */
#define PITCH 256u

static int setup(void **state)
{
    *state = fx_new(IGPU_BCS);
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void ring_init(struct fx *f, struct vgpu_cmdbuf *cb)
{
    vgpu_cmdbuf_init(cb, f->ring, FX_RING_DW);
}

static enum igpu_scan_err scan(struct fx *f, const struct vgpu_cmdbuf *cb)
{
    assert_false(cb->overflow);
    f->n = cb->n;
    return fx_scan(f);
}

static void test_kiosk_workload_accepted(void **state)
{
    struct fx *f = *state;
    struct vgpu_cmdbuf cb;

    /* A batch with one fill, called from the ring. */
    uint32_t b[16];
    struct vgpu_cmdbuf bb;
    vgpu_cmdbuf_init(&bb, b, 16);
    vgpu_emit_color_blt(&bb, FB, PITCH, 0, 0, 64, 32, 0x123456u);
    vgpu_emit_bb_end(&bb);
    assert_false(bb.overflow);
    fx_put(f, BATCH, b, bb.n);

    ring_init(f, &cb);
    vgpu_emit_color_blt(&cb, FB, PITCH, 4, 4, 60, 60, 0xFF0000u);
    vgpu_emit_copy_blt(&cb, FB, PITCH, 0, 32, SRC, PITCH, 8, 8, 16, 16);
    vgpu_emit_store_dword(&cb, BC + 4, 7);
    vgpu_emit_lri(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), 1);
    vgpu_emit_srm(&cb, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), BC + 12);
    vgpu_emit_lri(&cb, GEN9_BCS_SWCTRL, 0);
    vgpu_emit_bb_start(&cb, BATCH, false);
    vgpu_emit_flush_store(&cb, BC + 8, 8);
    vgpu_emit_noop(&cb);
    assert_int_equal(scan(f, &cb), IGPU_SCAN_OK);
    assert_int_equal(f->res.blits, 3);
    assert_int_equal(f->res.blit_pixels, 56u * 56u + 16u * 16u + 64u * 32u);
    assert_int_equal(f->res.mem_writes, 3);
    assert_int_equal(f->res.reg_writes, 2);
    assert_int_equal(f->res.batches, 1);
}

static void test_encodings(void **state)
{
    (void)state;
    uint32_t dw[16];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 16);
    vgpu_emit_color_blt(&cb, 0x123456000ull, PITCH, 1, 2, 3, 4, 0xABCDEFu);
    /* i915 XY_COLOR_BLT_CMD | BLT_WRITE_RGBA | (7 - 2) */
    assert_int_equal(dw[0], 0x54300005u);
    assert_int_equal(dw[1], GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | PITCH);
    assert_int_equal(dw[2], (2u << 16) | 1u);
    assert_int_equal(dw[3], (4u << 16) | 3u);
    assert_int_equal(dw[4], 0x23456000u);
    assert_int_equal(dw[5], 0x1u);
    assert_int_equal(dw[6], 0xABCDEFu);
    vgpu_cmdbuf_init(&cb, dw, 16);
    vgpu_emit_copy_blt(&cb, FB, PITCH, 0, 0, SRC, 512, 0, 0, 1, 1);
    assert_int_equal(dw[0], 0x54F00008u);
    assert_int_equal(dw[7], 512u);
}

static void test_overflow_sets_flag(void **state)
{
    (void)state;
    uint32_t dw[8] = { 0 };
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, 6);
    vgpu_emit_color_blt(&cb, FB, PITCH, 0, 0, 1, 1, 0); /* 7 dwords: does not fit */
    assert_true(cb.overflow);
    assert_int_equal(cb.n, 0);
    assert_int_equal(dw[0], 0);
    vgpu_emit_noop(&cb); /* nothing after an overflow */
    assert_int_equal(cb.n, 0);
}

static void test_hostile_blit_outside(void **state)
{
    struct fx *f = *state;
    struct vgpu_cmdbuf cb;
    ring_init(f, &cb);
    vgpu_emit_color_blt(&cb, FX_GM_END, PITCH, 0, 0, 64, 64, 0xFF0000u);
    assert_int_equal(scan(f, &cb), IGPU_SCAN_E_ADDR_RANGE);
}

static void test_hostile_store_outside(void **state)
{
    struct fx *f = *state;
    struct vgpu_cmdbuf cb;
    ring_init(f, &cb);
    vgpu_emit_store_dword(&cb, FX_GM_BASE - 0x1000, 0xDEADBEEFu);
    assert_int_equal(scan(f, &cb), IGPU_SCAN_E_ADDR_RANGE);
}

static void test_hostile_lri_forbidden(void **state)
{
    struct fx *f = *state;
    struct vgpu_cmdbuf cb;
    ring_init(f, &cb);
    vgpu_emit_lri(&cb, GEN9_GDRST, GEN9_GRDOM_FULL);
    assert_int_equal(scan(f, &cb), IGPU_SCAN_E_REG_DENIED);
}

static void test_hostile_batch_loop(void **state)
{
    struct fx *f = *state;
    uint32_t b[8];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, b, 8);
    vgpu_emit_noop(&cb);
    vgpu_emit_bb_start(&cb, BATCH, false);
    fx_put(f, BATCH, b, cb.n);
    ring_init(f, &cb);
    vgpu_emit_bb_start(&cb, BATCH, false);
    assert_int_equal(scan(f, &cb), IGPU_SCAN_E_BATCH_LOOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kiosk_workload_accepted, setup, teardown),
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_overflow_sets_flag),
        cmocka_unit_test_setup_teardown(test_hostile_blit_outside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_store_outside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_lri_forbidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_batch_loop, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
