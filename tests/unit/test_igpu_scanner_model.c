/* The scanner against the iGPU model: workloads it accepts run on the model without a fault,
 * with the effects they ask for, from the shadow copies (a guest rewriting its batch after
 * the scan changes nothing), and the scanner's cost estimate is exactly the GPU time the
 * model charges.  Also: every register of the default allow-lists is usable on the model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/igpu/model/igpu_model.h"
#include "tests/unit/test_igpu_scanner_fixture.h"

/* Model graphics memory: the fixture's guest window, the shadow, a ring and a context. */
#define M_GM        0x01000000u /* 16 MiB of graphics memory */
#define M_PTES      (M_GM / 4096u)
#define M_PHYS_MEM  0x10000000ull /* gm page i lives at M_PHYS_MEM + i * 4096 */
#define M_RING      0x00900000u
#define M_RING_SIZE 0x4000u
#define M_LRCA      0x00A00000u
#define M_HWS       0x00A10000u

struct mfx {
    struct fx *f;
    uint64_t *ggtt;
    uint8_t *mem;
    struct igpu_model *m;
    bool armed;
    unsigned outside; /* data accesses outside the allowed ranges */
};

static int phys_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    struct mfx *x = ctx;
    if (pa >= M_PHYS_MEM && pa - M_PHYS_MEM + len <= M_GM) {
        memcpy(buf, x->mem + (pa - M_PHYS_MEM), len);
        return 0;
    }
    if (pa + len <= (uint64_t)M_PTES * 8) {
        memcpy(buf, (uint8_t *)x->ggtt + pa, len);
        return 0;
    }
    return -1;
}

static int phys_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    struct mfx *x = ctx;
    if (pa >= M_PHYS_MEM && pa - M_PHYS_MEM + len <= M_GM) {
        memcpy(x->mem + (pa - M_PHYS_MEM), buf, len);
        return 0;
    }
    return -1;
}

static int check(void *ctx, enum igpu_engine e, uint64_t a, uint64_t len,
                 enum igpu_model_access kind)
{
    struct mfx *x = ctx;
    (void)e;
    if (x->armed && (kind == IGPU_ACCESS_READ || kind == IGPU_ACCESS_WRITE) &&
        !igpu_scan_ranges_contain(x->f->ranges, x->f->cfg.n_ranges, a, len))
        x->outside++;
    return 0;
}

static struct mfx *mfx_new(enum igpu_engine e)
{
    struct mfx *x = calloc(1, sizeof(*x));
    struct igpu_model_config mc;
    uint32_t i;

    assert_non_null(x);
    x->f = fx_new(e);
    x->ggtt = calloc(M_PTES, 8);
    x->mem = calloc(1, M_GM);
    assert_non_null(x->ggtt);
    assert_non_null(x->mem);
    for (i = 0; i < M_PTES; i++)
        x->ggtt[i] = (M_PHYS_MEM + (uint64_t)i * 4096) | 1u;
    igpu_model_config_defaults(&mc);
    mc.mem.read = phys_read;
    mc.mem.write = phys_write;
    mc.mem.ctx = x;
    mc.gsm_base = 0;
    mc.ggtt_entries = M_PTES;
    mc.aperture_size = M_GM;
    mc.gm_check = check;
    mc.gm_check_ctx = x;
    assert_int_equal(igpu_model_create(&mc, &x->m), 0);
    assert_int_equal(igpu_engine_init(igpu_model_igpu(x->m), e, M_HWS), 0);
    assert_int_equal(igpu_model_ctx_init(x->m, e, M_LRCA, M_RING, M_RING_SIZE), 0);
    return x;
}

static int setup_rcs(void **state)
{
    *state = mfx_new(IGPU_RCS);
    return 0;
}

static int setup_bcs(void **state)
{
    *state = mfx_new(IGPU_BCS);
    return 0;
}

static int teardown(void **state)
{
    struct mfx *x = *state;
    igpu_model_destroy(x->m);
    free(x->f);
    free(x->ggtt);
    free(x->mem);
    free(x);
    return 0;
}

/* Scan the fixture's ring; on success load guest memory and the shadow into the model, run
 * the patched ring, and check it ran cleanly inside the ranges at the estimated cost. */
static void scan_and_run(struct mfx *x)
{
    struct fx *f = x->f;
    struct igpu_model_stats st;
    uint64_t expect;

    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    memcpy(x->mem + FX_GM_BASE, f->mem, FX_GM_SIZE);
    memcpy(x->mem + FX_SHADOW_GM, f->shadow, f->res.shadow_used_dw * 4);
    x->armed = true;
    assert_int_equal(igpu_model_submit_ring(x->m, f->cfg.engine, M_LRCA, 7, f->ring, f->n), 0);
    igpu_model_run_until_idle(x->m, f->cfg.engine, 1000000000ull);
    x->armed = false;
    if (igpu_model_fault(x->m, f->cfg.engine))
        print_error("model fault: %s\n", igpu_model_fault(x->m, f->cfg.engine)->detail);
    assert_null(igpu_model_fault(x->m, f->cfg.engine));
    assert_int_equal(x->outside, 0);
    assert_int_equal(igpu_model_stats(x->m, f->cfg.engine, &st), 0);
    /* The model also pays one context restore and an MI_NOOP padding an odd ring. */
    expect = f->res.est_cost_ns + igpu_scan_cost_default.cmd_ns * (f->n & 1);
    {
        struct igpu_model_cost mc;
        igpu_model_cost_defaults(&mc);
        expect += mc.ctx_switch_ns;
    }
    assert_int_equal(st.busy_ns, expect);
    assert_int_equal(st.commands, f->res.commands + (f->n & 1));
    assert_int_equal(st.batches, f->res.batches);
    assert_int_equal(st.pixels, f->res.blit_pixels);
}

static uint32_t mem32(const struct mfx *x, uint64_t gm)
{
    uint32_t v;
    memcpy(&v, x->mem + gm, 4);
    return v;
}

static void test_cost_defaults_match_model(void **state)
{
    struct igpu_model_cost mc;

    (void)state;
    igpu_model_cost_defaults(&mc);
    assert_int_equal(igpu_scan_cost_default.cmd_ns, mc.cmd_ns);
    assert_int_equal(igpu_scan_cost_default.blit_ns, mc.blit_ns);
    assert_int_equal(igpu_scan_cost_default.pixel_ps, mc.pixel_ps);
    assert_int_equal(igpu_scan_cost_default.write_ns, mc.write_ns);
    assert_int_equal(igpu_scan_cost_default.batch_ns, mc.batch_ns);
}

static void test_blitter_workload(void **state)
{
    struct mfx *x = *state;
    struct fx *f = x->f;
    const uint64_t batch = FX_GM_BASE + 0x30000;
    uint32_t b[16], *r = f->ring;
    size_t n = 0;

    n += emit_sdi(b + n, FX_GM_BASE + 0x20000, 0xCAFEF00Du);
    n += emit_bb_end(b + n);
    fx_put(f, batch, b, n);
    f->n += emit_color_blt(r + f->n, FX_GM_BASE, 256, 0, 0, 64, 16, 0x11223344u);
    f->n += emit_copy_blt(r + f->n, FX_GM_BASE + 0x8000, 256, 4, 0, 36, 8, FX_GM_BASE, 256, 0, 0);
    f->n += emit_lri1(r + f->n, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), 0x5A5A5A5Au);
    f->n += emit_srm(r + f->n, GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0), FX_GM_BASE + 0x20010);
    f->n += emit_bb_start(r + f->n, batch, 0);
    f->n += emit_flush_dw(r + f->n, GEN9_MI_FLUSH_DW_OP_STOREDW, FX_GM_BASE + 0x20008, 77);
    f->n += emit_user_interrupt(r + f->n);
    scan_and_run(x);
    assert_int_equal(mem32(x, FX_GM_BASE + 63 * 4), 0x11223344u);
    assert_int_equal(mem32(x, FX_GM_BASE + 15 * 256 + 63 * 4), 0x11223344u);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x8000 + 7 * 256 + 35 * 4), 0x11223344u);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x8000), 0); /* x1 = 4: untouched */
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20000), 0xCAFEF00Du);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20008), 77);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20010), 0x5A5A5A5Au);
}

static void test_render_workload(void **state)
{
    struct mfx *x = *state;
    struct fx *f = x->f;
    const uint64_t b1 = FX_GM_BASE + 0x30000, b2 = FX_GM_BASE + 0x31000;
    uint32_t a[16], c[16], *r = f->ring;
    size_t na = 0, nc = 0;
    uint32_t v = 0x13572468u;

    memcpy(f->mem + 0x20100, &v, 4);
    nc += emit_sdi_qw(c + nc, FX_GM_BASE + 0x20020, 0x0123456789ABCDEFull);
    nc += emit_bb_end(c + nc);
    na += emit_bb_start(a + na, b2, GEN9_MI_BB_START_SECOND_LEVEL);
    na += emit_lrm(a + na, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 3), FX_GM_BASE + 0x20100);
    na += emit_srm(a + na, GEN9_RING_CS_GPR(GEN9_RCS_BASE, 3), FX_GM_BASE + 0x20030);
    na += emit_bb_end(a + na);
    fx_put(f, b1, a, na);
    fx_put(f, b2, c, nc);
    f->n += emit_bb_start(r + f->n, b1, 0);
    f->n += emit_pipe_control(r + f->n,
                              GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                                  GEN9_PIPE_CONTROL_WRITE_IMMEDIATE,
                              FX_GM_BASE + 0x20040, 0xAABBCCDD00112233ull);
    f->n += emit_user_interrupt(r + f->n);
    scan_and_run(x);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20020), 0x89ABCDEFu);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20024), 0x01234567u);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20030), 0x13572468u);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20040), 0x00112233u);
}

/* The GPU runs the shadow: rewriting the guest batch after the scan has no effect. */
static void test_batch_rewritten_after_scan(void **state)
{
    struct mfx *x = *state;
    struct fx *f = x->f;
    const uint64_t batch = FX_GM_BASE + 0x30000;
    uint32_t b[8], evil[8];
    size_t n = 0, ne = 0;

    n += emit_sdi(b + n, FX_GM_BASE + 0x20000, 1);
    n += emit_bb_end(b + n);
    fx_put(f, batch, b, n);
    f->n = emit_bb_start(f->ring, batch, 0);
    assert_int_equal(fx_scan(f), IGPU_SCAN_OK);
    /* Load the scanned state, then let the "guest" swap in a store outside its range. */
    memcpy(x->mem + FX_GM_BASE, f->mem, FX_GM_SIZE);
    memcpy(x->mem + FX_SHADOW_GM, f->shadow, f->res.shadow_used_dw * 4);
    ne += emit_sdi(evil + ne, FX_GM_END + 0x100, 0xBAD);
    ne += emit_bb_end(evil + ne);
    memcpy(x->mem + batch, evil, ne * 4);
    x->armed = true;
    assert_int_equal(igpu_model_submit_ring(x->m, IGPU_RCS, M_LRCA, 7, f->ring, f->n), 0);
    igpu_model_run_until_idle(x->m, IGPU_RCS, 1000000000ull);
    assert_null(igpu_model_fault(x->m, IGPU_RCS));
    assert_int_equal(x->outside, 0);
    assert_int_equal(mem32(x, FX_GM_BASE + 0x20000), 1);
    assert_int_equal(mem32(x, FX_GM_END + 0x100), 0);
}

/* Every register a default allow-list grants can be used that way on the model. */
static void check_default_regs(struct mfx *x, const struct igpu_scan_reg *regs, size_t n)
{
    struct fx *f = x->f;
    size_t i;
    uint32_t off;

    for (i = 0; i < n; i++) {
        for (off = 0; off < regs[i].size; off += 4) {
            uint32_t reg = regs[i].offset + off;
            if (f->n + 8 > FX_RING_DW)
                break;
            if (regs[i].access & IGPU_SCAN_REG_WRITE)
                f->n += emit_lri1(f->ring + f->n, reg, off);
            if (regs[i].access & IGPU_SCAN_REG_READ)
                f->n += emit_srm(f->ring + f->n, reg, FX_GM_BASE + 0x100 + off);
        }
    }
    scan_and_run(x);
}

static void test_default_regs_rcs(void **state)
{
    check_default_regs(*state, igpu_scan_default_regs_rcs, igpu_scan_default_regs_rcs_count);
}

static void test_default_regs_bcs(void **state)
{
    check_default_regs(*state, igpu_scan_default_regs_bcs, igpu_scan_default_regs_bcs_count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_defaults_match_model),
        cmocka_unit_test_setup_teardown(test_blitter_workload, setup_bcs, teardown),
        cmocka_unit_test_setup_teardown(test_render_workload, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_batch_rewritten_after_scan, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_default_regs_rcs, setup_rcs, teardown),
        cmocka_unit_test_setup_teardown(test_default_regs_bcs, setup_bcs, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
