/* Cross-guest isolation of the mediated vGPU on the host: the four ways across the
 * guest boundary an outside attack suite found, each driven through the vGPU stack on the
 * software model exactly as a guest would (BAR0 fence and GGTT writes, execlist submissions of
 * scanned command buffers, CPU reads through the aperture).
 *
 *  1. fence de-tiling past the fence's pool range (a 256 KiB X-tiled fence with a 256 KiB pitch);
 *  2. BCS general purpose registers leaking into another vGPU's first workload;
 *  3. ... and planted in another vGPU's registers;
 *  4. one scratch page behind every vGPU's unmapped GGTT entries. */
#include "test_vgpu_fixture.h"

#define PAGES_FENCED 64u /* 256 KiB */
#define MARK_VICTIM  0xB1B1B1B1u
#define GPR_DW       (GEN9_CS_GPR_COUNT * 2u)

/* ---- helpers: command buffers a guest driver would build ---- */

static unsigned emit_lri_gprs(uint32_t *c, uint32_t base_value)
{
    unsigned n = 0;
    c[n++] = GEN9_MI_LOAD_REGISTER_IMM(GPR_DW);
    for (unsigned i = 0; i < GPR_DW; i++) {
        c[n++] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i;
        c[n++] = base_value | i;
    }
    return n;
}

static unsigned emit_srm_gprs(uint32_t *c, uint64_t dst)
{
    unsigned n = 0;
    for (unsigned i = 0; i < GPR_DW; i++) {
        c[n++] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
        c[n++] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0) + 4u * i;
        c[n++] = (uint32_t)(dst + 4u * i);
        c[n++] = (uint32_t)((dst + 4u * i) >> 32);
    }
    return n;
}

static unsigned emit_copy(uint32_t *c, uint64_t dst, uint64_t src, uint32_t pitch, unsigned w,
                          unsigned h)
{
    c[0] = GEN9_XY_SRC_COPY_BLT;
    c[GEN9_XY_SRC_COPY_BLT_DW_BR13] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) | pitch;
    c[GEN9_XY_SRC_COPY_BLT_DW_DST_TOPLEFT] = GEN9_BLT_COORD(0, 0);
    c[GEN9_XY_SRC_COPY_BLT_DW_DST_BOTRIGHT] = GEN9_BLT_COORD(w, h);
    c[GEN9_XY_SRC_COPY_BLT_DW_DST_LO] = (uint32_t)dst;
    c[GEN9_XY_SRC_COPY_BLT_DW_DST_HI] = (uint32_t)(dst >> 32);
    c[GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT] = GEN9_BLT_COORD(0, 0);
    c[GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH] = pitch;
    c[GEN9_XY_SRC_COPY_BLT_DW_SRC_LO] = (uint32_t)src;
    c[GEN9_XY_SRC_COPY_BLT_DW_SRC_HI] = (uint32_t)(src >> 32);
    return GEN9_XY_SRC_COPY_BLT_LEN;
}

static void submit_and_retire(struct fx *f, unsigned g, const uint32_t *c, unsigned n)
{
    struct tessera_balloon_if b;
    uint32_t rejected = fx_ext(f, g, &b)->rejected;
    fx_submit(f, g, c, n);
    fx_run_until_retired(f, g);
    assert_int_equal(fx_ext(f, g, &b)->rejected, rejected); /* it ran, nothing refused */
}

/* ---- 1. fences ---- */


/* Fills `pages` pages of guest g's graphics memory at gm with `tag` (| the word index). */
static void fill_pages(struct fx *f, unsigned g, uint64_t gm, unsigned pages, uint32_t tag,
                       bool indexed)
{
    for (uint32_t i = 0; i < pages * 1024u; i++)
        fx_wr(f, g, gm + 4ull * i, indexed ? tag | i : tag);
}

/* Guest 0 programs a 256 KiB X-tiled fence whose pitch is 256 KiB: one row, as wide as the
 * fence.  De-tiling its CPU accesses would reach 2 MiB past the fence (x / 512 tiles of 4 KiB);
 * guest 1's fenced range lies right behind guest 0's in the pool.  Whatever the vGPU does with
 * such a value, guest 0's view of its fenced range may only ever show guest 0's own bytes. */
static void fence_detiling_stays_in_its_range(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint64_t gm0 = fx_gm_alloc(f, 0, PAGES_FENCED, NULL);
    uint64_t gm1 = fx_gm_alloc(f, 1, PAGES_FENCED, NULL);
    fill_pages(f, 0, gm0, PAGES_FENCED, 0xA0000000u, true);
    fill_pages(f, 1, gm1, PAGES_FENCED, MARK_VICTIM, false);
    const uint32_t size = PAGES_FENCED * 4096u;
    uint64_t bad = gtt_fence_encode(gm0, size, size, false, true);
    uint64_t good = gtt_fence_encode(gm1, size, 512, false, true); /* 512 x 512 rows */
    assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(0), 8, bad));
    assert_true(vgpu_mmio_write(fx_v(f, 1), GEN9_FENCE_REG_LO(0), 8, good));
    const struct gtt_vgpu *v0 = gtt_vgpu_get(&f->gtt, 0), *v1 = gtt_vgpu_get(&f->gtt, 1);
    assert_true(v1->fence[0].pooled);

    /* Guest 0's CPU reads of its fenced range, word by word, as the hypervisor serves them. */
    for (uint32_t off = 0; off < size; off += 4) {
        uint64_t val = 0;
        assert_true(vgpu_aperture_read(fx_v(f, 0), gm0 + off, 4, &val));
        assert_int_not_equal((uint32_t)val, MARK_VICTIM);
        assert_int_equal((uint32_t)val & 0xFF000000u, 0xA0000000u);
    }
    /* A fence that is not a whole number of tile rows is refused and says why. */
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->fence_refused, 1);
    assert_false(v0->fence[0].pooled);
    assert_non_null(strstr(f->last_log, "tile"));
    fx_destroy(f);
}

/* ---- 2 and 3. general purpose registers ---- */

/* Guest 0 leaves marked values in all sixteen BCS GPRs; guest 1's very first workload reads
 * them: it must find its own (reset) state, never guest 0's. */
static void gprs_do_not_leak_into_another_vgpu(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    uint32_t c[4 * GPR_DW + 8];
    submit_and_retire(f, 0, c, emit_lri_gprs(c, 0xC0DE0000u));

    uint64_t out = fx_gm_alloc(f, 1, 1, NULL);
    submit_and_retire(f, 1, c, emit_srm_gprs(c, out));
    for (unsigned i = 0; i < GPR_DW; i++)
        assert_int_equal(fx_rd(f, 1, out + 4u * i), 0);
    fx_destroy(f);
}

/* Guest 1 plants values in every GPR between two workloads of guest 0: guest 0's second
 * workload must start with the registers its first one left, not guest 1's. */
static void gprs_cannot_be_planted_in_another_vgpu(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    uint32_t c[4 * GPR_DW + 8];
    c[0] = GEN9_MI_LOAD_REGISTER_IMM(1);
    c[1] = GEN9_RING_CS_GPR(GEN9_BCS_BASE, 0);
    c[2] = 0x5AFE;
    c[3] = GEN9_MI_NOOP;
    submit_and_retire(f, 0, c, 4);
    submit_and_retire(f, 1, c, emit_lri_gprs(c, 0xBAD00000u));

    uint64_t out = fx_gm_alloc(f, 0, 1, NULL);
    submit_and_retire(f, 0, c, emit_srm_gprs(c, out));
    assert_int_equal(fx_rd(f, 0, out), 0x5AFE);
    for (unsigned i = 1; i < GPR_DW; i++)
        assert_int_equal(fx_rd(f, 0, out + 4u * i), 0);
    fx_destroy(f);
}

/* Beyond the four: BCS_SWCTRL, the other register a guest may load, is context
 * state too: guest 0 selects Y tiling for its blits; guest 1's first workload sees the reset
 * value, and guest 0 keeps its own. */
static void bcs_swctrl_stays_with_its_vgpu(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    uint32_t c[8] = { GEN9_MI_LOAD_REGISTER_IMM(1), GEN9_BCS_SWCTRL,
                      GEN9_MASKED_BIT_ENABLE(GEN9_BCS_SWCTRL_DST_Y | GEN9_BCS_SWCTRL_SRC_Y),
                      GEN9_MI_NOOP };
    submit_and_retire(f, 0, c, 4);
    uint64_t out1 = fx_gm_alloc(f, 1, 1, NULL), out0 = fx_gm_alloc(f, 0, 1, NULL);
    c[0] = GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT;
    c[1] = GEN9_BCS_SWCTRL;
    c[2] = (uint32_t)out1;
    c[3] = 0;
    submit_and_retire(f, 1, c, 4);
    assert_int_equal(fx_rd(f, 1, out1) & 0xFFFF, 0);
    c[2] = (uint32_t)out0;
    submit_and_retire(f, 0, c, 4);
    assert_int_equal(fx_rd(f, 0, out0) & 0xFFFF, GEN9_BCS_SWCTRL_DST_Y | GEN9_BCS_SWCTRL_SRC_Y);
    fx_destroy(f);
}

/* An aperture access that straddles the end of a fence is cut there: the part after it comes
 * from the guest's own next page, never from whatever follows its copy in the fence pool. */
static void aperture_access_is_cut_at_the_fence_end(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint64_t gm0 = fx_gm_alloc(f, 0, 2, NULL), gm1 = fx_gm_alloc(f, 1, 1, NULL);
    fill_pages(f, 0, gm0, 2, 0xA0000000u, true);
    fill_pages(f, 1, gm1, 1, MARK_VICTIM, false);
    /* guest 0 fences its first page, guest 1 its page: their pool copies are neighbours */
    assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(0), 8,
                                gtt_fence_encode(gm0, 4096, 512, false, true)));
    assert_true(vgpu_mmio_write(fx_v(f, 1), GEN9_FENCE_REG_LO(0), 8,
                                gtt_fence_encode(gm1, 4096, 512, false, true)));
    assert_true(gtt_vgpu_get(&f->gtt, 0)->fence[0].pooled &&
                gtt_vgpu_get(&f->gtt, 1)->fence[0].pooled);
    uint64_t val;
    assert_true(vgpu_aperture_read(fx_v(f, 0), gm0 + 4092, 8, &val));
    assert_int_equal((uint32_t)(val >> 32), 0xA0000000u | 1024u); /* its second page's word 0 */
    assert_int_not_equal((uint32_t)(val >> 32), MARK_VICTIM);
    /* and a write there lands in its own RAM too */
    assert_true(vgpu_aperture_write(fx_v(f, 0), gm0 + 4092, 8, 0x1122334455667788ull));
    assert_int_equal(fx_rd(f, 0, gm0 + 4096), 0x11223344u);
    assert_int_equal(fx_rd(f, 1, gm1), MARK_VICTIM);
    fx_destroy(f);
}

/* ---- 4. scratch pages ---- */

/* Guest 0's GPU work writes into one of its own never-mapped pages; guest 1 copies from one of
 * its own never-mapped pages into a buffer it can read: it must see zeros, never guest 0's
 * data (and guest 0's write must not have gone anywhere guest 1 can see). */
static void unmapped_pages_are_private(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    const struct gtt_range *w0 = &f->layout.guest[0].low, *w1 = &f->layout.guest[1].low;
    uint64_t hole0 = w0->start + w0->size - 4096, hole1 = w1->start + w1->size - 4096;
    uint32_t c[16];
    unsigned n = fx_fill(c, hole0, 1024, 256, 4, 0x5C5C5C5Cu); /* the whole page */
    submit_and_retire(f, 0, c, n);

    uint64_t buf = fx_gm_alloc(f, 1, 1, NULL);
    fill_pages(f, 1, buf, 1, 0x11111111u, false);
    submit_and_retire(f, 1, c, emit_copy(c, buf, hole1, 1024, 256, 4));
    for (unsigned i = 0; i < 1024; i++)
        assert_int_equal(fx_rd(f, 1, buf + 4u * i), 0);
    /* The two vGPUs' unmapped entries point at different pages. */
    uint64_t p0, p1;
    assert_int_equal(gtt_shadow_pte(&f->gtt, 0, (uint32_t)(hole0 >> 12), &p0), 0);
    assert_int_equal(gtt_shadow_pte(&f->gtt, 1, (uint32_t)(hole1 >> 12), &p1), 0);
    assert_int_not_equal(p0 & GEN9_GGTT_PTE_ADDR_MASK, p1 & GEN9_GGTT_PTE_ADDR_MASK);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fence_detiling_stays_in_its_range),
        cmocka_unit_test(gprs_do_not_leak_into_another_vgpu),
        cmocka_unit_test(gprs_cannot_be_planted_in_another_vgpu),
        cmocka_unit_test(unmapped_pages_are_private),
        cmocka_unit_test(bcs_swctrl_stays_with_its_vgpu),
        cmocka_unit_test(aperture_access_is_cut_at_the_fence_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
