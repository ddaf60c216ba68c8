/* The i915 vGPU's display wired into the vGPU device (docs/vgpu-i915.md "Display"), driven
 * through BAR0 with the real gtt/ behind it:
 *  - a monitor configured: SKL_DFSM says one pipe, SDEISR says connected;
 *  - a modeset and a plane: the picture read through vgpu_plane_read() is the pixels written
 *    into the guest's pages, the plane placed in the pipe with black around it, XBGR swapped,
 *    X-tiled de-tiled;
 *  - two buffers flipped: the scanned-out surface changes only at the vblank (whole frames),
 *    with the vblank interrupt as an MSI when unmasked, at most one per frame;
 *  - hostile surfaces refused (outside its graphics memory, a stride reading past its range, a
 *    slot ballooned away under it), with nothing read; a restart returns all off. */
#include "test_vgpu_fixture.h"

#include "vmm/vgpu/core/vgpu_internal.h"
#include "vmm/vgpu/i915/i915.h"
#include "vmm/vgpu/i915/vgpu_i915.h"

#define G      0u
#define PIPE_W 128u
#define PIPE_H 64u
#define HZ     30u
#define PERIOD (1000000000ull / HZ)

static struct fx *f;
static unsigned msis;
static struct edid_mode mode;

static int hv_page_alloc(void *ctx, uint64_t *hpa, void **va)
{
    *hpa = fx_take(f, 4096);
    *va = fx_ptr(f, *hpa);
    memset(*va, 0, 4096);
    return 0;
}
static void hv_page_free(void *ctx, uint64_t hpa, void *va)
{
}
static int hv_guest_phys(void *ctx, unsigned vm, uint64_t gpa, uint64_t *pa)
{
    *pa = f->g[vm].ram_pa + gpa;
    return 0;
}
static void *hv_phys_ptr(void *ctx, uint64_t pa, uint64_t len)
{
    return fx_ptr(f, pa);
}
static void hv_protect(void *ctx, unsigned vm, uint64_t gpa, bool on)
{
}
static bool hv_msi(void *ctx, unsigned vm)
{
    msis++;
    return true;
}

static void w(uint32_t off, uint32_t v)
{
    fx_w32(f, G, off, v);
}
static uint32_t r(uint32_t off)
{
    return (uint32_t)fx_r(f, G, off, 4);
}

static int setup(void **state)
{
    (void)state;
    msis = 0;
    f = fx_create(NULL);
    struct vgpu_env *en = &f->dev->cfg.env;
    en->page_alloc = hv_page_alloc;
    en->page_free = hv_page_free;
    en->guest_phys = hv_guest_phys;
    en->phys_ptr = hv_phys_ptr;
    en->protect = hv_protect;
    en->msi = hv_msi;
    assert_int_equal(vgpu_set_personality(fx_v(f, G), &vgpu_i915), 0);
    const char *why;
    struct vgpu_monitor m = { true, PIPE_W, PIPE_H, HZ };
    assert_true(vgpu_set_monitor(fx_v(f, G), &m, true, &why));
    assert_true(edid_mode_make(PIPE_W, PIPE_H, HZ, &mode));
    f->cpu_ns = 1000000000ull;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fx_destroy(f);
    return 0;
}

/* The modeset's registers that the clock and the scan-out use (the rest is plain storage),
 * master and vblank interrupts on. */
static void modeset(void)
{
    w(GEN9_DPLL_CTRL1, (1u << 6) | (GEN9_DPLL_CTRL1_RATE_810 << 7));
    w(GEN9_LCPLL2_CTL, GEN9_LCPLL_PLL_ENABLE);
    w(GEN9_DPLL_CTRL2, (1u << 9) | (1u << 10));
    w(GEN9_HTOTAL_A, (mode.htotal - 1) << 16 | (mode.hdisplay - 1));
    w(GEN9_VTOTAL_A, (mode.vtotal - 1) << 16 | (mode.vdisplay - 1));
    w(GEN9_VBLANK_A, (mode.vtotal - 1) << 16 | (mode.vdisplay - 1));
    w(GEN9_PIPESRC_A, (PIPE_W - 1) << 16 | (PIPE_H - 1));
    w(GEN9_PIPE_LINK_M1_A, mode.clock_khz);
    w(GEN9_PIPE_LINK_N1_A, 162000);
    w(GEN9_PIPECONF_A, GEN9_PIPECONF_ENABLE);
    w(GEN9_DE_PIPE_IER(0), GEN9_PIPE_VBLANK | GEN9_PIPE_PLANE_FLIP_DONE(0));
    w(GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
}

static void plane(uint64_t surf, uint32_t stride, uint32_t ctl, uint32_t x, uint32_t y)
{
    w(GEN9_PLANE_STRIDE(1), stride / ((ctl & GEN9_PLANE_CTL_TILED_X) ? 512u : 64u));
    w(GEN9_PLANE_POS(1), y << 16 | x);
    w(GEN9_PLANE_SIZE(1), (FX_FB_H - 1) << 16 | (FX_FB_W - 1));
    w(GEN9_PLANE_OFFSET(1), 0);
    w(GEN9_PLANE_CTL(1), GEN9_PLANE_CTL_ENABLE | GEN9_PLANE_CTL_FORMAT_XRGB_8888 | ctl);
    w(GEN9_PLANE_SURF(1), (uint32_t)surf);
}

static void vblank(void)
{
    f->cpu_ns += PERIOD;
    vgpu_dev_tick(f->dev, f->cpu_ns);
}

static uint32_t pixel(unsigned x, unsigned y, uint32_t tag)
{
    return tag | (y << 8) | x;
}

/* A linear 64x32 surface of distinct pixels. */
static uint64_t surface(uint32_t tag)
{
    uint64_t gm = fx_gm_alloc(f, G, FX_FB_W * FX_FB_H * 4 / 4096, NULL);
    for (unsigned y = 0; y < FX_FB_H; y++)
        for (unsigned x = 0; x < FX_FB_W; x++)
            fx_wr(f, G, gm + (y * FX_FB_W + x) * 4u, pixel(x, y, tag));
    return gm;
}

/* The picture's row y, as the wall reads it. */
static void picture_row(const struct vgpu_plane *p, unsigned y, uint32_t *row)
{
    assert_true(
        vgpu_plane_read(fx_v(f, G), p, (uint64_t)y * p->pic_width * 4u, row, p->pic_width * 4u));
}

static void test_monitor_configured(void **state)
{
    (void)state;
    assert_true(vgpu_i915_has_display(fx_v(f, G)));
    assert_int_equal(r(GEN9_SKL_DFSM), VDISP_DFSM);
    assert_int_equal(r(GEN9_SDE_ISR), GEN9_SDE_PORTD_HOTPLUG_SPT);
    assert_int_equal(r(GEN9_SFUSE_STRAP), GEN9_SFUSE_STRAP_DDID_DETECTED);
    struct vgpu_plane p;
    assert_false(vgpu_plane_get(fx_v(f, G), &p));
    assert_false(p.owned); /* firmware's framebuffer until a modeset */
    char buf[2048];
    assert_true(vgpu_describe(fx_v(f, G), buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "monitor: DP-1 connected, 128x64 at 30 Hz preferred; pipe A off"));
    assert_non_null(strstr(buf, "plane 1: pipe off"));
    /* A Tessera guest's vGPU has no display to plug into. */
    const char *why;
    struct vgpu_monitor m = { true, 512, 384, 60 };
    assert_false(vgpu_set_monitor(fx_v(f, 1), &m, false, &why));
    m.width = 10;
    assert_false(vgpu_set_monitor(fx_v(f, G), &m, false, &why));
}

static void test_scanout_picture(void **state)
{
    (void)state;
    uint64_t a = surface(0x00A00000);
    modeset();
    plane(a, FX_FB_W * 4, 0, 16, 8);
    vblank();
    struct vgpu_plane p;
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    assert_true(p.owned);
    assert_int_equal(p.pic_width, PIPE_W);
    assert_int_equal(p.pic_height, PIPE_H);
    uint32_t row[PIPE_W];
    picture_row(&p, 4, row); /* above the plane: black */
    for (unsigned x = 0; x < PIPE_W; x++)
        assert_int_equal(row[x], 0);
    picture_row(&p, 8 + 5, row);
    for (unsigned x = 0; x < PIPE_W; x++)
        assert_int_equal(row[x], x >= 16 && x < 16 + FX_FB_W ? pixel(x - 16, 5, 0x00A00000) : 0);
    /* A span that starts inside the plane (the composer reads only what the tile shows). */
    uint32_t part[8];
    assert_true(vgpu_plane_read(fx_v(f, G), &p, ((8 + 5) * PIPE_W + 70) * 4u, part, sizeof part));
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(part[i], 70 + i < 16 + FX_FB_W ? pixel(70 + i - 16, 5, 0x00A00000) : 0);
    /* XBGR: red and blue swapped on the way out. */
    plane(a, FX_FB_W * 4, GEN9_PLANE_CTL_ORDER_RGBX, 0, 0);
    vblank();
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    picture_row(&p, 3, row);
    uint32_t v = pixel(7, 3, 0x00A00000);
    assert_int_equal(row[7], (v & 0xFF00FF00u) | (v >> 16 & 0xFF) | (v & 0xFF) << 16);
    char buf[2048];
    vgpu_describe(fx_v(f, G), buf, sizeof buf);
    assert_non_null(strstr(buf, "plane 1: 64x32 at 0,0 of 128x64, XBGR8888 linear"));
}

static void test_xtiled(void **state)
{
    (void)state;
    /* 64 pixels = 256 bytes a row: one X tile (512 bytes) wide, 4 tile rows of 8 lines. */
    uint64_t t = fx_gm_alloc(f, G, 4, NULL);
    for (unsigned y = 0; y < FX_FB_H; y++)
        for (unsigned x = 0; x < FX_FB_W; x++)
            fx_wr(f, G, t + (y / 8) * 512u * 8 + (y % 8) * 512u + x * 4u, pixel(x, y, 0x00700000));
    modeset();
    plane(t, 512, GEN9_PLANE_CTL_TILED_X, 0, 0);
    vblank();
    struct vgpu_plane p;
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    assert_true(p.xtiled);
    uint32_t row[PIPE_W];
    for (unsigned y = 0; y < FX_FB_H; y += 7) {
        picture_row(&p, y, row);
        for (unsigned x = 0; x < FX_FB_W; x++)
            assert_int_equal(row[x], pixel(x, y, 0x00700000));
    }
}

static void test_flips_whole_frames(void **state)
{
    (void)state;
    uint64_t a = surface(0x00A00000), b = surface(0x00B00000);
    modeset();
    plane(a, FX_FB_W * 4, 0, 0, 0);
    vblank();
    w(GEN9_DE_PIPE_IMR(0), ~GEN9_PIPE_VBLANK); /* bdw_enable_vblank() */
    struct vgpu_plane p;
    uint32_t row[PIPE_W];
    const struct vdisp *d = i915_of(fx_v(f, G))->disp;
    for (unsigned i = 0; i < 6; i++) {
        uint64_t next = i & 1 ? a : b, shown = i & 1 ? b : a;
        plane(next, FX_FB_W * 4, 0, 0, 0);
        assert_true(vgpu_plane_get(fx_v(f, G), &p)); /* before the vblank: the old frame */
        assert_int_equal(p.gm, shown);
        f->cpu_ns = d->next_vblank_ns - 1000; /* just before the next one */
        vgpu_dev_tick(f->dev, f->cpu_ns);
        assert_true(vgpu_plane_get(fx_v(f, G), &p));
        assert_int_equal(p.gm, shown);
        unsigned before = msis;
        f->cpu_ns = d->next_vblank_ns;
        vgpu_dev_tick(f->dev, f->cpu_ns);
        assert_int_equal(msis, before + 1); /* one vblank interrupt */
        assert_true(vgpu_plane_get(fx_v(f, G), &p));
        assert_int_equal(p.gm, next);
        picture_row(&p, 9, row);
        assert_int_equal(row[3], pixel(3, 9, i & 1 ? 0x00A00000 : 0x00B00000));
        w(GEN9_DE_PIPE_IIR(0), ~0u);             /* the handler clears it */
        vgpu_dev_tick(f->dev, f->cpu_ns + 1000); /* nothing more this frame */
        assert_int_equal(msis, before + 1);
    }
    assert_true(r(GEN9_PIPE_FRMCOUNT_A) >= 7);
}

static void assert_refused(const char *why)
{
    struct vgpu_plane p;
    assert_false(vgpu_plane_get(fx_v(f, G), &p));
    assert_non_null(p.refused);
    assert_string_equal(p.refused, why);
}

static void test_hostile_surfaces(void **state)
{
    (void)state;
    uint64_t a = surface(0x00A00000);
    modeset();
    plane(a, FX_FB_W * 4, 0, 0, 0);
    vblank();
    /* Another guest's low window: refused, however its pages are mapped. */
    uint64_t other = f->g[1].gm;
    plane(other, FX_FB_W * 4, 0, 0, 0);
    vblank();
    assert_refused("surface outside its graphics memory");
    /* The last page of its low window with a stride that reads past the window's end. */
    const struct gtt_vgpu *gv = gtt_vgpu_get(&f->gtt, G);
    plane(gv->low.start + gv->low.size - 4096, 8192, 0, 0, 0);
    vblank();
    assert_refused("surface outside its graphics memory");
    /* A stride too small for a row. */
    plane(a, 64, 0, 0, 0);
    vblank();
    assert_refused("stride too small or too large");
    char buf[2048];
    vgpu_describe(fx_v(f, G), buf, sizeof buf);
    assert_non_null(
        strstr(buf, "plane 1: refused: stride too small or too large (no signal, bad surface)"));
    /* Back to a good surface: shown again. */
    plane(a, FX_FB_W * 4, 0, 0, 0);
    vblank();
    struct vgpu_plane p;
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    /* A surface in its last high-GM slot, which the balloon then takes away. */
    struct tessera_balloon_if bi;
    fx_ext(f, G, &bi);
    uint64_t hi = fx_r(f, G, FX_PV(avail_rs.nonmappable_gmadr.base), 4);
    uint64_t hsize = fx_r(f, G, FX_PV(avail_rs.nonmappable_gmadr.size), 4);
    uint64_t slot_gm = hi + hsize - (64ull << 20);
    uint64_t gpa = f->g[G].gpa_next;
    f->g[G].gpa_next += 2 * 4096ull * 8;
    for (unsigned i = 0; i < 16; i++)
        assert_true(vgpu_mmio_write(fx_v(f, G), VGPU_GGTT_OFFSET + ((slot_gm >> 12) + i) * 8, 8,
                                    (gpa + 4096ull * i) | GEN9_GGTT_PTE_PRESENT));
    plane(slot_gm, FX_FB_W * 4, 0, 0, 0);
    vblank();
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    char err[160];
    assert_int_equal(vgpu_balloon_adjust(f->dev, G, -1, err, sizeof err), 0);
    assert_refused("surface outside its graphics memory");
}

static void test_restart(void **state)
{
    (void)state;
    uint64_t a = surface(0x00A00000);
    modeset();
    plane(a, FX_FB_W * 4, 0, 0, 0);
    vblank();
    struct vgpu_plane p;
    assert_true(vgpu_plane_get(fx_v(f, G), &p));
    const char *why;
    struct vgpu_monitor off = { false, 0, 0, 0 };
    assert_true(vgpu_set_monitor(fx_v(f, G), &off, false, &why));
    assert_int_equal(r(GEN9_SDE_ISR), 0);
    vgpu_guest_reset(fx_v(f, G));
    assert_false(vgpu_plane_get(fx_v(f, G), &p));
    assert_false(p.owned);
    assert_int_equal(r(GEN9_PIPECONF_A), 0);
    assert_int_equal(r(GEN9_PLANE_SURFLIVE(1)), 0);
    assert_int_equal(r(GEN9_SKL_DFSM), VDISP_DFSM);
    assert_int_equal(r(GEN9_SDE_ISR), GEN9_SDE_PORTD_HOTPLUG_SPT); /* the configured monitor */
    unsigned before = msis;
    vblank();
    assert_int_equal(msis, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_monitor_configured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scanout_picture, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xtiled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flips_whole_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_surfaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
