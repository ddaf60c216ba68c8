/* The fence pool allocator and guest fence writes: allocation, GGTT copy, EPT remap, physical
 * fence value, release on rewrite and reset, and every refusal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "test_gtt_fake.h"

#define K4 UINT64_C(4096)
#define MB (UINT64_C(1) << 20)

/* ---- allocator ---------------------------------------------------------------------------- */

static void test_pool_first_fit_and_coalescing(void **state)
{
    (void)state;
    struct gtt_fence_pool p;
    uint64_t a, b, c, d;
    gtt_pool_init(&p, 0x100000, 16 * K4);
    assert_int_equal(gtt_pool_alloc(&p, 4 * K4, &a), 0);
    assert_int_equal(gtt_pool_alloc(&p, 4 * K4, &b), 0);
    assert_int_equal(gtt_pool_alloc(&p, 4 * K4, &c), 0);
    assert_int_equal(a, 0x100000);
    assert_int_equal(b, 0x100000 + 4 * K4);
    assert_int_equal(c, 0x100000 + 8 * K4);
    assert_true(gtt_pool_consistent(&p));
    /* Free the middle: a hole of 4 pages; a 2-page request goes there (first fit), not at the
     * end. */
    assert_int_equal(gtt_pool_free(&p, b), 0);
    assert_int_equal(gtt_pool_alloc(&p, 2 * K4, &d), 0);
    assert_int_equal(d, b);
    assert_true(gtt_pool_consistent(&p));
    /* Free a and d: they merge with the 2-page rest of the hole into one 8-page range. */
    assert_int_equal(gtt_pool_free(&p, a), 0);
    assert_int_equal(gtt_pool_free(&p, d), 0);
    assert_int_equal(p.n_free, 2);
    assert_int_equal(p.free[0].start, 0x100000);
    assert_int_equal(p.free[0].size, 8 * K4);
    assert_int_equal(gtt_pool_largest_free(&p), 8 * K4);
    assert_int_equal(gtt_pool_used(&p), 4 * K4);
    /* Free c: everything is one range again. */
    assert_int_equal(gtt_pool_free(&p, c), 0);
    assert_int_equal(p.n_free, 1);
    assert_int_equal(p.free[0].size, 16 * K4);
    assert_true(gtt_pool_consistent(&p));
}

static void test_pool_refusals(void **state)
{
    (void)state;
    struct gtt_fence_pool p;
    uint64_t a;
    gtt_pool_init(&p, 0, 8 * K4);
    assert_int_equal(gtt_pool_alloc(&p, 0, &a), GTT_EINVAL);
    assert_int_equal(gtt_pool_alloc(&p, 100, &a), GTT_EINVAL);
    assert_int_equal(gtt_pool_alloc(&p, 9 * K4, &a), GTT_EFULL);
    assert_int_equal(gtt_pool_alloc(&p, 8 * K4, &a), 0);
    assert_int_equal(gtt_pool_alloc(&p, K4, &a), GTT_EFULL);
    assert_int_equal(p.refusals, 2);
    assert_int_equal(gtt_pool_free(&p, 12345), GTT_ENOENT);
    /* Fragmented: 4 free pages in two pieces cannot hold 3. */
    gtt_pool_init(&p, 0, 6 * K4);
    uint64_t r[6];
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(gtt_pool_alloc(&p, K4, &r[i]), 0);
    gtt_pool_free(&p, r[0]);
    gtt_pool_free(&p, r[1]);
    gtt_pool_free(&p, r[4]);
    gtt_pool_free(&p, r[5]);
    assert_int_equal(gtt_pool_alloc(&p, 3 * K4, &a), GTT_EFULL);
    assert_int_equal(gtt_pool_alloc(&p, 2 * K4, &a), 0);
    assert_int_equal(a, 0);
    /* Too many live allocations. */
    gtt_pool_init(&p, 0, 200 * K4);
    for (unsigned i = 0; i < GTT_POOL_MAX_RANGES; i++)
        assert_int_equal(gtt_pool_alloc(&p, K4, &a), 0);
    assert_int_equal(gtt_pool_alloc(&p, K4, &a), GTT_EFULL);
    assert_true(gtt_pool_consistent(&p));
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_pool_random_never_overlaps(void **state)
{
    (void)state;
    struct gtt_fence_pool p;
    uint64_t live[GTT_POOL_MAX_RANGES], sizes[GTT_POOL_MAX_RANGES];
    unsigned n = 0;
    uint64_t seed = 0x5eed1234;
    gtt_pool_init(&p, 0x40000000, 512 * K4);
    for (unsigned step = 0; step < 20000; step++) {
        if (n && (n == GTT_POOL_MAX_RANGES || rng_next(&seed) % 2)) {
            unsigned k = (unsigned)(rng_next(&seed) % n);
            assert_int_equal(gtt_pool_free(&p, live[k]), 0);
            live[k] = live[n - 1];
            sizes[k] = sizes[n - 1];
            n--;
        } else {
            uint64_t sz = (1 + rng_next(&seed) % 40) * K4, at;
            if (gtt_pool_alloc(&p, sz, &at) == 0) {
                assert_true(at >= p.base && at + sz <= p.base + p.size);
                for (unsigned k = 0; k < n; k++)
                    assert_true(at + sz <= live[k] || live[k] + sizes[k] <= at);
                live[n] = at;
                sizes[n++] = sz;
            } else {
                assert_true(gtt_pool_largest_free(&p) < sz);
            }
        }
        assert_true(gtt_pool_consistent(&p));
    }
}

/* ---- encoding ----------------------------------------------------------------------------- */

static void test_fence_encoding(void **state)
{
    (void)state;
    /* 1 MiB at 0x2000000, pitch 4096 (field 31), Y-tiled, valid. */
    uint64_t v = gtt_fence_encode(0x2000000, MB, 4096, true, true);
    uint64_t last = (0x2000000 + MB - K4) >> 12;
    assert_int_equal(v, (last << 44) | (UINT64_C(31) << 32) | 0x2000000 | 2 | 1);
    struct gtt_fence_fields f;
    assert_int_equal(gtt_fence_decode(v, &f), 0);
    assert_int_equal(f.start, 0x2000000);
    assert_int_equal(f.size, MB);
    assert_int_equal(f.pitch_bytes, 4096);
    assert_true(f.tiled_y);
    assert_true(f.valid);
    /* End below start is malformed. */
    v = (UINT64_C(1) << 44) | 0x5000 | 1;
    assert_int_equal(gtt_fence_decode(v, &f), GTT_EINVAL);
}

/* ---- guest fences ------------------------------------------------------------------------- */

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
};

static int setup(void **state)
{
    struct env *e = calloc(1, sizeof *e);
    /* Two guests with disjoint 4 MiB windows; 2 MiB pool. */
    if (!e || small_layout(&e->lay, 2, 4 * MB, 2 * MB, GTT_SHARE_ALL))
        return -1;
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.host_fences = 2;
    if (gtt_init(&e->g, &c) || gtt_vgpu_create_from_layout(&e->g, 0) ||
        gtt_vgpu_create_from_layout(&e->g, 1))
        return -1;
    for (unsigned v = 0; v < 2; v++) {
        uint32_t lo = (uint32_t)(e->lay.guest[v].low.start >> 12);
        for (uint32_t k = 0; k < 1024; k++)
            gtt_guest_write(&e->g, v, lo + k, gpte((uint64_t)(k + 100) << 12));
    }
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct env *e = *state;
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
    return 0;
}

static const struct fake_ept *ept_of(const struct env *e, unsigned v, uint64_t addr)
{
    return &e->f.ept[(size_t)v * e->f.aper_pages + (addr >> 12)];
}

static void test_fence_write_pools_copies_and_remaps(void **state)
{
    struct env *e = *state;
    uint64_t gstart = e->lay.guest[0].low.start + 16 * K4, size = 8 * K4;
    uint64_t val = gtt_fence_encode(gstart, size, 512, false, true);
    struct gtt_fence_result r;
    char err[256];
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, val, &r, err, sizeof err), 0);
    assert_string_equal(err, "");
    uint64_t pool = e->lay.fence_pool.start; /* first fit: the pool's start */
    assert_true(r.program);
    assert_int_equal(r.phys_reg, 2); /* 0 and 1 kept for the host */
    assert_int_equal(r.phys_value, gtt_fence_encode(pool, size, 512, false, true));
    assert_false(r.program_old);
    for (uint32_t k = 0; k < 8; k++) {
        /* GGTT entries copied into the pool, owned by the guest... */
        uint64_t pte;
        gtt_shadow_pte(&e->g, 0, (uint32_t)(gstart >> 12) + k, &pte);
        assert_int_equal(e->f.ggtt[(pool >> 12) + k], pte);
        assert_int_equal(pte, hpte(0, (uint64_t)(16 + k + 100) << 12));
        /* ... and the guest's CPU view of the range now goes through the pool's aperture. */
        const struct fake_ept *m = ept_of(e, 0, gstart + k * K4);
        assert_int_equal(m->kind, GTT_EPT_MAP_APERTURE);
        assert_int_equal(m->target, pool + k * K4);
    }
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.fences_active, 1);
    assert_int_equal(s.fence_bytes, size);
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.pool_used, size);
    assert_int_equal(all.st.entries_fence, 8);

    /* A guest GGTT write inside the fenced range refreshes the pool copy, and the EPT keeps
     * pointing at the pool. */
    uint64_t n_ept = e->f.ept_updates;
    assert_int_equal(gtt_guest_write(&e->g, 0, (uint32_t)(gstart >> 12) + 2, gpte(0x999000)), 0);
    assert_int_equal(e->f.ggtt[(pool >> 12) + 2], hpte(0, 0x999000));
    assert_int_equal(e->f.ept_updates, n_ept);

    /* Rewrite with a new range: the old pool range is released and the ladder mapping of the
     * old range restored; the same physical register is reused. */
    uint64_t g2 = gstart + 64 * K4;
    val = gtt_fence_encode(g2, 4 * K4, 128, true, true); /* Y rows of 128 x 32 */
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, val, &r, err, sizeof err), 0);
    assert_int_equal(r.phys_reg, 2);
    assert_false(r.program_old);
    assert_int_equal(r.phys_value, gtt_fence_encode(pool, 4 * K4, 128, true, true));
    const struct fake_ept *m = ept_of(e, 0, gstart + 2 * K4);
    assert_int_equal(m->kind, GTT_EPT_MAP_RAM);
    assert_int_equal(m->target, fake_ram_base(0) + 0x999000);
    assert_int_equal(e->f.ggtt[(pool >> 12) + 7], FAKE_SCRATCH); /* old tail scrubbed */

    /* Disable: everything released, the register must be turned off. */
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, 0, &r, err, sizeof err), 0);
    assert_false(r.program);
    assert_true(r.program_old);
    assert_int_equal(r.old_reg, 2);
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.pool_used, 0);
    assert_int_equal(all.pool_largest_free, e->lay.fence_pool.size / 2); /* one share */
    assert_int_equal(ept_of(e, 0, g2)->kind, GTT_EPT_MAP_RAM);
    assert_true(gtt_pool_consistent(&e->g.pool));
    assert_true(gtt_pool_consistent(&e->g.vgpu[0]->pool));
}

static void test_fence_outside_window_refused(void **state)
{
    struct env *e = *state;
    struct gtt_fence_result r;
    char err[256];
    /* vGPU 1's window. */
    uint64_t val = gtt_fence_encode(e->lay.guest[1].low.start, 4 * K4, 512, false, true);
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, val, &r, err, sizeof err), GTT_ERANGE);
    assert_non_null(strstr(err, "is outside its aperture window"));
    /* High GM. */
    val = gtt_fence_encode(e->lay.slots.start, 4 * K4, 512, false, true);
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, val, &r, err, sizeof err), GTT_ERANGE);
    /* Fence number beyond what the vGPU has. */
    assert_int_equal(gtt_fence_write(&e->g, 0, 4, 0, &r, err, sizeof err), GTT_ERANGE);
    assert_string_equal(err, "fence 4: vGPU 0 has 4 fence registers");
    /* Malformed and overlapping. */
    val = (UINT64_C(1) << 44) | (e->lay.guest[0].low.start) | 1;
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, val, &r, err, sizeof err), GTT_EINVAL);
    uint64_t w = e->lay.guest[0].low.start;
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, gtt_fence_encode(w, 8 * K4, 512, 0, 1), &r, NULL,
                                     0),
                     0);
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, gtt_fence_encode(w + 4 * K4, 8 * K4, 512, 0, 1),
                                     &r, err, sizeof err),
                     GTT_EINVAL);
    assert_string_equal(err, "fence 1 of vGPU 0 overlaps its fence 0");
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.fence_refused, 5);
    assert_int_equal(s.fences_active, 1);
}

/* Each vGPU's fences come from its own share of the pool (here the fair split, 1 MiB of the
 * 2 MiB pool each): one guest filling its share takes nothing from the other. */
static void test_fence_pool_shares(void **state)
{
    struct env *e = *state;
    struct gtt_fence_result r;
    char err[256];
    uint64_t w0 = e->lay.guest[0].low.start, w1 = e->lay.guest[1].low.start;
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 1, &s);
    assert_int_equal(s.fence_share, MB);
    /* vGPU 0 cannot have more than its share, even with the rest of the pool free... */
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, gtt_fence_encode(w0, 2 * MB, 512, 0, 1), &r, err,
                                     sizeof err),
                     GTT_EFULL);
    assert_string_equal(err, "fence pool share full: fence 0 of vGPU 0 needs 2048 KiB, the largest "
                             "free range of its 1024 KiB share is 1024 KiB (1024 KiB free)");
    assert_false(r.program);
    /* ... and filling its share leaves vGPU 1's whole. */
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, gtt_fence_encode(w0, MB, 512, 0, 1), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, gtt_fence_encode(w0 + MB, K4, 512, 0, 1), &r, err,
                                     sizeof err),
                     GTT_EFULL);
    assert_int_equal(gtt_fence_write(&e->g, 1, 0, gtt_fence_encode(w1, 64 * K4, 512, 0, 1), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(r.phys_value & GEN9_FENCE_START_MASK, e->lay.fence_pool.start + MB);
    assert_int_equal(gtt_fence_write(&e->g, 1, 1,
                                     gtt_fence_encode(w1 + MB, MB - 64 * K4, 512, 0, 1), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(gtt_fence_write(&e->g, 1, 2, gtt_fence_encode(w1 + 2 * MB, K4, 512, 0, 1), &r,
                                     err, sizeof err),
                     GTT_EFULL);
    /* The refused fence holds nothing; the guest's view of that range stays ladder-mapped. */
    assert_int_equal(ept_of(e, 1, w1 + 2 * MB)->kind, GTT_EPT_MAP_RAM);
    /* Resetting vGPU 0 frees its ranges and register, not room for vGPU 1. */
    uint32_t regs = 0;
    assert_int_equal(gtt_vgpu_reset(&e->g, 0, &regs), 0);
    assert_int_equal(regs, 1u << 2);
    assert_int_equal(ept_of(e, 0, w0)->kind, GTT_EPT_MAP_RAM);
    assert_int_equal(gtt_fence_write(&e->g, 1, 2, gtt_fence_encode(w1 + 2 * MB, K4, 512, 0, 1), &r,
                                     err, sizeof err),
                     GTT_EFULL);
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.st.fence_refused, 4);
    assert_int_equal(all.pool_ranges, 2);
    assert_int_equal(all.pool_used, MB);
}

static void test_physical_registers_exhausted(void **state)
{
    struct env *e = *state;
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.host_fences = 30; /* leaves 2 physical registers */
    gtt_fini(&e->g);
    assert_int_equal(gtt_init(&e->g, &c), 0);
    assert_int_equal(gtt_vgpu_create_from_layout(&e->g, 0), 0);
    struct gtt_fence_result r;
    char err[256];
    uint64_t w = e->lay.guest[0].low.start;
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(gtt_fence_write(&e->g, 0, i,
                                         gtt_fence_encode(w + i * 4 * K4, K4, 512, 0, 1), &r, err,
                                         sizeof err),
                         0);
    assert_int_equal(gtt_fence_write(&e->g, 0, 2, gtt_fence_encode(w + 8 * K4, K4, 512, 0, 1), &r,
                                     err, sizeof err),
                     GTT_EFULL);
    assert_string_equal(err, "no free physical fence register for fence 2 of vGPU 0 (32 "
                             "registers, 30 kept for the host)");
    /* The pool range taken for the attempt was given back. */
    assert_int_equal(gtt_pool_used(&e->g.vgpu[0]->pool), 2 * K4);
    assert_true(gtt_pool_consistent(&e->g.vgpu[0]->pool));
}

static void test_destroy_releases_fences(void **state)
{
    struct env *e = *state;
    struct gtt_fence_result r;
    uint64_t w = e->lay.guest[1].low.start;
    assert_int_equal(gtt_fence_write(&e->g, 1, 3, gtt_fence_encode(w, 16 * K4, 512, 0, 1), &r, NULL,
                                     0),
                     0);
    uint32_t regs = 0;
    assert_int_equal(gtt_vgpu_destroy(&e->g, 1, &regs), 0);
    assert_int_equal(regs, 1u << r.phys_reg);
    assert_int_equal(gtt_pool_used(&e->g.pool), MB); /* only vGPU 0's share is out */
    uint32_t p0 = (uint32_t)((e->lay.fence_pool.start + MB) >> 12);
    for (uint32_t k = 0; k < 16; k++)
        assert_int_equal(e->f.ggtt[p0 + k], FAKE_SCRATCH);
}

/* A 1 MiB fence (256 pages) applied 64 pages a step: in between, the pages done go through
 * the pool and the others are still ladder-mapped; a guest write in either part lands right;
 * a rewrite back to the value being applied goes on where it was; a release undoes it in
 * steps and turns the register off at the end. */
static void test_fence_work_in_steps(void **state)
{
    struct env *e = *state;
    struct gtt_fence_result r;
    char err[256];
    uint64_t w = e->lay.guest[0].low.start, pool = e->lay.fence_pool.start;
    uint64_t val = gtt_fence_encode(w, MB, 512, false, true);
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, val, err, sizeof err), 0);
    assert_int_equal(gtt_fence_pending(&e->g, 0), 0);
    assert_int_equal(gtt_fence_work(&e->g, 0, 0, 64, &r, err, sizeof err), 0);
    assert_true(r.program);
    assert_int_equal(r.phys_value, gtt_fence_encode(pool, MB, 512, false, true));
    assert_int_equal(r.pages, 64);
    assert_false(r.done);
    assert_int_equal(ept_of(e, 0, w + 63 * K4)->kind, GTT_EPT_MAP_APERTURE);
    assert_int_equal(ept_of(e, 0, w + 64 * K4)->kind, GTT_EPT_MAP_RAM);
    assert_int_equal(e->f.ggtt[(pool >> 12) + 64], FAKE_SCRATCH);
    /* A guest write to a page not done yet changes its ladder mapping, and the copy made
     * later is of the new entry. */
    assert_int_equal(gtt_guest_write(&e->g, 0, (uint32_t)(w >> 12) + 100, gpte(0x555000)), 0);
    assert_int_equal(ept_of(e, 0, w + 100 * K4)->target, fake_ram_base(0) + 0x555000);
    /* Disabled and re-enabled before the work got on: it goes on where it was. */
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, 0, err, sizeof err), 0);
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, val, err, sizeof err), 0);
    assert_int_equal(gtt_fence_work(&e->g, 0, 0, 64, &r, err, sizeof err), 0);
    assert_false(r.program || r.program_old);
    assert_int_equal(ept_of(e, 0, w + 127 * K4)->kind, GTT_EPT_MAP_APERTURE);
    for (int i = 0; i < 2; i++)
        assert_int_equal(gtt_fence_work(&e->g, 0, 0, 64, &r, err, sizeof err), 0);
    assert_true(r.done);
    assert_int_equal(gtt_fence_pending(&e->g, 0), -1);
    assert_int_equal(e->f.ggtt[(pool >> 12) + 100], hpte(0, 0x555000));
    /* Writing the value in effect changes nothing. */
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, val, err, sizeof err), 0);
    assert_int_equal(gtt_fence_pending(&e->g, 0), -1);
    /* The release, in steps; the register goes off with the last page. */
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, 0, err, sizeof err), 0);
    assert_int_equal(gtt_fence_work(&e->g, 0, 0, 200, &r, err, sizeof err), 0);
    assert_false(r.program_old);
    assert_int_equal(ept_of(e, 0, w + 55 * K4)->kind, GTT_EPT_MAP_APERTURE);
    assert_int_equal(ept_of(e, 0, w + 56 * K4)->kind, GTT_EPT_MAP_RAM);
    assert_int_equal(gtt_fence_work(&e->g, 0, 0, 200, &r, err, sizeof err), 0);
    assert_true(r.program_old && r.done);
    assert_int_equal(r.old_reg, 2);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.fence_pages, 2 * 256);
    assert_int_equal(s.fence_bytes, 0);
}

/* A release of an old range comes before a new range that overlaps it on another fence. */
static void test_release_comes_first(void **state)
{
    struct env *e = *state;
    struct gtt_fence_result r;
    char err[256];
    uint64_t w = e->lay.guest[0].low.start;
    assert_int_equal(gtt_fence_write(&e->g, 0, 1, gtt_fence_encode(w, 64 * K4, 512, 0, 1), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(gtt_fence_request(&e->g, 0, 0, gtt_fence_encode(w, 16 * K4, 512, 0, 1), err,
                                       sizeof err),
                     0);
    assert_int_equal(gtt_fence_request(&e->g, 0, 1, 0, err, sizeof err), 0);
    assert_int_equal(gtt_fence_pending(&e->g, 0), 1);
    assert_int_equal(gtt_fence_work(&e->g, 0, 1, 1000, &r, err, sizeof err), 0);
    assert_int_equal(gtt_fence_pending(&e->g, 0), 0);
    assert_int_equal(gtt_fence_work(&e->g, 0, 0, 1000, &r, err, sizeof err), 0);
    assert_true(r.done && r.program);
    assert_int_equal(ept_of(e, 0, w)->kind, GTT_EPT_MAP_APERTURE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_first_fit_and_coalescing),
        cmocka_unit_test(test_pool_refusals),
        cmocka_unit_test(test_pool_random_never_overlaps),
        cmocka_unit_test(test_fence_encoding),
        cmocka_unit_test_setup_teardown(test_fence_write_pools_copies_and_remaps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fence_outside_window_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fence_pool_shares, setup, teardown),
        cmocka_unit_test_setup_teardown(test_physical_registers_exhausted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_releases_fences, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fence_work_in_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_comes_first, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
