/* Fence writes through BAR0: each guest MMIO exit does a bounded amount of the
 * fence's work and the rest is done between time slices, charged to the guest that asked; a
 * storm of rewrites costs its guest, not the other; each guest has its own share of the fence
 * pool, refusals reach its PV page. */
#include "test_vgpu_fixture.h"

#define MB (1ull << 20)

static uint64_t gtt_work(struct fx *f)
{
    return f->gtt.st.entries_fence + f->gtt.st.entries_scrub;
}

static void fence_write(struct fx *f, unsigned g, unsigned i, uint64_t value)
{
    assert_true(vgpu_mmio_write(fx_v(f, g), GEN9_FENCE_REG_LO(i), 8, value));
}

static uint64_t window(struct fx *f, unsigned g)
{
    return fx_r(f, g, FX_PV(avail_rs.mappable_gmadr.base), 4);
}

static struct vgpu_stats vstats(struct fx *f, unsigned g)
{
    struct vgpu_info info;
    vgpu_get_info(fx_v(f, g), &info);
    return info.st;
}

/* An 8 MiB fence is 2048 pages of work: the write's exit does VGPU_FENCE_EXIT_PAGES, every
 * later call of vgpu_dev_fence_work VGPU_FENCE_POLL_PAGES more, and the guest sees
 * fence_pending until the last. */
static void fence_work_is_bounded_per_exit(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint64_t val = gtt_fence_encode(window(f, 0), 8 * MB, 512, false, true);
    uint64_t w0 = gtt_work(f);
    fence_write(f, 0, 0, val);
    assert_int_equal(gtt_work(f) - w0, VGPU_FENCE_EXIT_PAGES);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->fence_pending, 1);
    assert_int_equal(fx_r(f, 0, GEN9_FENCE_REG_LO(0), 8), val); /* reads back at once */
    unsigned calls = 0;
    for (uint64_t before = gtt_work(f); vgpu_dev_fence_work(f->dev, VGPU_FENCE_POLL_PAGES);
         before = gtt_work(f), calls++)
        assert_true(gtt_work(f) - before <= VGPU_FENCE_POLL_PAGES);
    /* Calls that left work: all but the last of those the rest after the exit needs. */
    assert_int_equal(calls, (2048 - VGPU_FENCE_EXIT_PAGES + VGPU_FENCE_POLL_PAGES - 1) /
                                    VGPU_FENCE_POLL_PAGES -
                                1);
    assert_int_equal(fx_ext(f, 0, &b)->fence_pending, 0);
    assert_int_equal(b.fence_refused, 0);
    assert_int_equal(vstats(f, 0).fence_work_pages, 2048);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&f->gtt, 0, &s);
    assert_int_equal(s.fence_bytes, 8 * MB);
    fx_destroy(f);
}

/* Guest 0 rewrites and clears its 8 MiB fence in a loop: no exit does more than its bound, the
 * work is charged to guest 0, guest 1's fence writes are done in their own exit as if nothing
 * happened, and the storm's rewrites collapse into what was last written. */
static void fence_storm_is_charged_to_its_guest(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint64_t val = gtt_fence_encode(window(f, 0), 8 * MB, 512, false, true);
    for (int i = 0; i < 200; i++) {
        uint64_t w = gtt_work(f);
        fence_write(f, 0, 0, i & 1 ? 0 : val);
        assert_true(gtt_work(f) - w <= VGPU_FENCE_EXIT_PAGES);
        if (i % 10 == 0)
            vgpu_dev_fence_work(f->dev, VGPU_FENCE_POLL_PAGES);
        if (i == 100) {
            uint64_t v1 = gtt_fence_encode(window(f, 1), 64 * 1024, 512, false, true);
            fence_write(f, 1, 0, v1);
            struct tessera_balloon_if b;
            assert_int_equal(fx_ext(f, 1, &b)->fence_pending, 0);
            assert_int_equal(b.fence_refused, 0);
        }
    }
    fence_write(f, 0, 0, val);
    while (vgpu_dev_fence_work(f->dev, VGPU_FENCE_POLL_PAGES))
        ;
    uint64_t work0 = vstats(f, 0).fence_work_pages;
    assert_true(work0 >= 2048);
    assert_int_equal(vstats(f, 1).fence_work_pages, 16);
    assert_int_equal(vstats(f, 1).fence_writes, 1);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&f->gtt, 0, &s);
    assert_int_equal(s.fence_bytes, 8 * MB);
    assert_int_equal(s.fences_pending, 0);
    fx_destroy(f);
}

/* Guest 0 holds its whole share of the pool; its next fence is refused (and it is told), and
 * guest 1's 64 KiB fence is still accepted. */
static void fence_pool_share_per_guest(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&f->gtt, 1, &s);
    assert_int_equal(s.fence_share, f->layout.fence_pool.size / 2); /* the fair split */
    fx_destroy(f);
    fx_fence_share[0] = 4 * MB; /* a smaller share from the configuration */
    f = fx_create(NULL);
    fx_fence_share[0] = 0;
    gtt_vgpu_summarize(&f->gtt, 0, &s);
    assert_int_equal(s.fence_share, 4 * MB);
    uint64_t w0 = window(f, 0), share = s.fence_share;
    fence_write(f, 0, 0, gtt_fence_encode(w0, share, 512, false, true));
    while (vgpu_dev_fence_work(f->dev, VGPU_FENCE_POLL_PAGES))
        ;
    fence_write(f, 0, 1, gtt_fence_encode(w0 + share, 64 * 1024, 512, false, true));
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->fence_refused, 1);
    assert_int_equal(b.fence_pending, 0);
    assert_non_null(strstr(f->last_log, "fence pool share full"));
    fence_write(f, 1, 0, gtt_fence_encode(window(f, 1), 64 * 1024, 512, false, true));
    assert_int_equal(fx_ext(f, 1, &b)->fence_refused, 0);
    gtt_vgpu_summarize(&f->gtt, 1, &s);
    assert_int_equal(s.fences_active, 1);
    fx_destroy(f);
}

/* A guest writes one dword of a fence register past its vGPU's sixteen (i915 writes fences a
 * dword at a time on some paths): refused and counted, nothing stored, the register reads 0.
 * Found by fuzz_vgpu_i915 (its seed fence-dword-beyond-16). */
static void fence_dword_write_beyond_the_vgpus_fences(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    for (unsigned i = GTT_MAX_VGPU_FENCES; i < GEN9_FENCE_COUNT; i += 5) {
        assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(i), 4, 0x12345001u));
        assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(i) + 4, 4, 0x00ABC000u));
        assert_int_equal(fx_r(f, 0, GEN9_FENCE_REG_LO(i), 8), 0);
    }
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->fence_refused, 2u * 4u);
    assert_int_equal(vstats(f, 0).fence_writes, 0);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fence_work_is_bounded_per_exit),
        cmocka_unit_test(fence_storm_is_charged_to_its_guest),
        cmocka_unit_test(fence_pool_share_per_guest),
        cmocka_unit_test(fence_dword_write_beyond_the_vgpus_fences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
