/* Re-placement: the floor, the cost model, the planner and gtt_vgpu_relocate. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>

#include "gtt/internal.h"
#include "test_gtt_fake.h"

#define MB     (UINT64_C(1) << 20)
#define K4     UINT64_C(4096)
#define SLOT_E 256u /* entries per 1 MiB slot of the small layout */

/* ---- the floor and the cost model ----------------------------------------------------------- */

static void test_cover_cost(void **state)
{
    (void)state;
    const uint64_t st[4] = { 0, 10, 5, 30 }, sz[4] = { 10, 10, 10, 5 };
    /* [0,10) [10,20) [5,15) [30,35): units 5..15 are covered twice. */
    assert_int_equal(gtt_cover_cost(st, sz, 4), 2 * 10);
    const uint64_t st2[3] = { 0, 0, 0 }, sz2[3] = { 8, 8, 4 };
    assert_int_equal(gtt_cover_cost(st2, sz2, 3), 3 * 4 + 2 * 4);
    assert_int_equal(gtt_cover_cost(st2, sz2, 1), 0);
    assert_int_equal(gtt_cover_cost(NULL, NULL, 0), 0);
}

static void test_floor_equal_sizes(void **state)
{
    (void)state;
    uint64_t w[64];
    for (unsigned i = 0; i < 64; i++)
        w[i] = 16384;           /* a 64 MiB window in entries */
    const uint64_t low = 53248; /* 208 MiB of guest low GM */
    /* The 15-guest wall with 3 busy: they fit side by side: nothing to copy in steady state. */
    assert_int_equal(gtt_floor_cycle(low, w, 3), 0);
    /* One too many: it lies over the 16 MiB left and 48 MiB of a neighbour, both written. */
    assert_int_equal(gtt_floor_cycle(low, w, 4), 2 * (16384 - 4096));
    /* 32 busy: 3 apart, 29 stacked. */
    assert_int_equal(gtt_floor_cycle(low, w, 32), 32 * 16384 - low + 16384);
    /* High GM: 6 slots each on 60 slots, in slot units. */
    uint64_t s6[64];
    for (unsigned i = 0; i < 64; i++)
        s6[i] = 6;
    assert_int_equal(gtt_floor_cycle(60, s6, 10), 0);
    assert_int_equal(gtt_floor_cycle(60, s6, 11), 12);
    assert_int_equal(gtt_floor_cycle(60, s6, 32), 32 * 6 - 60 + 6);
    assert_int_equal(gtt_floor_cycle(60, s6, 0), 0);
    /* The formula is what the packed placement costs. */
    for (unsigned n = 1; n <= 40; n++) {
        uint64_t st[40];
        uint64_t c = 60 / 7, at = 0;
        for (unsigned i = 0; i < n; i++) {
            st[i] = i < c ? at : 60 - 7;
            at += 7;
        }
        uint64_t sz[40];
        for (unsigned i = 0; i < n; i++)
            sz[i] = 7;
        assert_int_equal(gtt_floor_cycle(60, sz, n), gtt_cover_cost(st, sz, n));
    }
}

static void test_floor_unequal_sizes(void **state)
{
    (void)state;
    const uint64_t sz[3] = { 6, 4, 3 };
    assert_int_equal(gtt_floor_cycle(13, sz, 3), 0);
    /* 6 and 4 apart on 12 units, 3 at [9,12): two units of its own, one over the 4. */
    assert_int_equal(gtt_floor_cycle(12, sz, 3), 2);
}

/* ---- a machine ----------------------------------------------------------------------------- */

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
    unsigned n;
};

/* n guests of 1 MiB low (256 entries) and 3 slots of 1 MiB each in the small layout:
 * 13 MiB of guest low GM (3328 pages), 48 slots. */
static struct env *env_new(unsigned n, enum gtt_slot_mode mode)
{
    struct env *e = calloc(1, sizeof *e);
    assert_int_equal(small_layout(&e->lay, n, MB, 3 * MB, GTT_SHARE_ALL), 0);
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.slots = mode;
    assert_int_equal(gtt_init(&e->g, &c), 0);
    for (unsigned v = 0; v < n; v++) {
        assert_int_equal(gtt_vgpu_create_from_layout(&e->g, v), 0);
        gtt_set_active(&e->g, v, true);
    }
    e->n = n;
    return e;
}

static void env_free(struct env *e)
{
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
}

static void assert_owner_view(const struct env *e, unsigned v)
{
    for (uint32_t i = 0; i < e->f.n_entries; i++) {
        uint64_t pte;
        if (gtt_shadow_pte(&e->g, v, i, &pte) == 0)
            assert_int_equal(e->f.ggtt[i], pte);
    }
}

/* Puts two busy vGPUs on the same window and slots. */
static void overlap_pair(struct env *e, unsigned a, unsigned b)
{
    const struct gtt_vgpu *va = e->g.vgpu[a];
    unsigned first;
    gtt_vgpu_slots(&e->g, a, &first, 1);
    assert_int_equal(gtt_vgpu_relocate(&e->g, b, va->low, first), 0);
}

/* ---- relocate ------------------------------------------------------------------------------ */

static void test_relocate_carries_shadow_and_scrubs(void **state)
{
    (void)state;
    struct env *e = env_new(3, GTT_SLOTS_CONTIGUOUS);
    struct gtt_vgpu *v = e->g.vgpu[1];
    uint64_t old = v->low.start;
    uint32_t i0 = gtt_page_of(old);
    /* The guest maps pages 0..9 of its window and a page in its first slot. */
    for (uint32_t k = 0; k < 10; k++)
        assert_int_equal(gtt_guest_write(&e->g, 1, i0 + k, gpte((100 + k) * K4)), 0);
    unsigned first;
    gtt_vgpu_slots(&e->g, 1, &first, 1);
    uint32_t s0 = e->g.first_slot_entry + first * SLOT_E;
    assert_int_equal(gtt_guest_write(&e->g, 1, s0 + 5, gpte(0x5000)), 0);
    gtt_switch_to(&e->g, 1); /* it owns its entries */
    assert_owner_view(e, 1);

    uint64_t to = e->lay.low_guest.start + e->lay.low_guest.size - 2 * MB;
    assert_int_equal(gtt_vgpu_relocate(&e->g, 1, (struct gtt_range){ to, MB }, 40), 0);
    /* Entry k of the old window is entry k of the new one, to the guest and to the GPU. */
    uint64_t pte;
    for (uint32_t k = 0; k < 10; k++) {
        assert_int_equal(gtt_guest_read(&e->g, 1, gtt_page_of(to) + k, &pte), 0);
        assert_int_equal(pte, gpte((100 + k) * K4));
        assert_int_equal(gtt_shadow_pte(&e->g, 1, gtt_page_of(to) + k, &pte), 0);
        assert_int_equal(pte, hpte(1, (100 + k) * K4));
    }
    assert_int_equal(gtt_guest_read(&e->g, 1, e->g.first_slot_entry + 40 * SLOT_E + 5, &pte), 0);
    assert_int_equal(pte, gpte(0x5000));
    /* The old ranges are no longer its, and their physical entries hold none of its pages. */
    assert_false(gtt_vgpu_covers(&e->g, 1, i0));
    for (uint32_t k = 0; k < 256; k++)
        assert_int_equal(e->f.ggtt[i0 + k], FAKE_SCRATCH);
    for (uint32_t k = 0; k < 3 * SLOT_E; k++)
        assert_int_equal(e->f.ggtt[s0 + k], FAKE_SCRATCH);
    /* Aperture pages follow: mapped at the new offsets, unmapped at the old. */
    struct fake_ept *ept = &e->f.ept[1 * e->f.aper_pages];
    for (uint32_t k = 0; k < 10; k++) {
        assert_int_equal(ept[gtt_page_of(to) + k].kind, GTT_EPT_MAP_RAM);
        assert_int_equal(ept[gtt_page_of(to) + k].target, fake_ram_base(1) + (100 + k) * K4);
        assert_int_equal(ept[i0 + k].kind, GTT_EPT_UNMAP);
    }
    /* It was the owner: the next switch writes its whole new view. */
    assert_int_equal(e->g.running, GTT_NO_VGPU);
    assert_int_equal(gtt_switch_to(&e->g, 1), 256 + 3 * SLOT_E);
    assert_owner_view(e, 1);
    struct gtt_summary s;
    gtt_summarize(&e->g, &s);
    assert_int_equal(s.st.moves, 1);
    assert_int_equal(s.st.entries_move, 256 + 3 * SLOT_E);
    env_free(e);
}

static void test_relocate_refusals(void **state)
{
    (void)state;
    struct env *e = env_new(2, GTT_SLOTS_CONTIGUOUS);
    struct gtt_vgpu *v = e->g.vgpu[0];
    struct gtt_range low = v->low;
    uint32_t i0 = gtt_page_of(low.start);
    assert_int_equal(gtt_guest_write(&e->g, 0, i0 + 100, gpte(K4)), 0);
    assert_int_equal(gtt_vgpu_low_extent(&e->g, 0), 101 * K4);
    unsigned first;
    gtt_vgpu_slots(&e->g, 0, &first, 1);
    /* Compaction may not drop a page it mapped; down to its extent it may. */
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, (struct gtt_range){ low.start, 100 * K4 }, first),
                     GTT_EINVAL);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, (struct gtt_range){ low.start, 101 * K4 }, first),
                     0);
    low = v->low;
    /* Outside the guest low area, misaligned, slots past the end. */
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0,
                                       (struct gtt_range){ e->lay.fence_pool.start, low.size },
                                       first),
                     GTT_ERANGE);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, (struct gtt_range){ low.start + 8, low.size },
                                       first),
                     GTT_EINVAL);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, low, e->lay.n_slots - 2), GTT_ERANGE);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 9, low, first), GTT_ENOENT);
    /* A fence pins the window (its pool copy and physical fence describe these addresses);
     * the slots may still move. */
    struct gtt_fence_result r;
    char err[128];
    assert_int_equal(gtt_fence_write(&e->g, 0, 0,
                                     gtt_fence_encode(low.start, 8 * K4, 512, false, true), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, (struct gtt_range){ low.start + K4, low.size },
                                       first),
                     GTT_EBUSY);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 0, low, first + 5), 0);
    assert_int_equal(v->low.start, low.start);
    env_free(e);

    /* Sparse slot sets: windows move, slot sets do not. */
    e = env_new(2, GTT_SLOTS_SPARSE);
    v = e->g.vgpu[1];
    gtt_vgpu_slots(&e->g, 1, &first, 1);
    assert_int_equal(gtt_vgpu_relocate(&e->g, 1, v->low, first + 3), GTT_EINVAL);
    struct gtt_range to = { e->lay.low_guest.start, v->low.size };
    assert_int_equal(gtt_vgpu_relocate(&e->g, 1, to, first), 0);
    env_free(e);
}

/* ---- the planner --------------------------------------------------------------------------- */

static uint64_t apply_plan(struct env *e, const bool *busy, const bool *movable,
                           const uint64_t *want, struct gtt_plan_report *rep)
{
    struct gtt_move mv[GTT_MAX_VGPUS];
    int n = gtt_plan(&e->g,
                     &(struct gtt_plan_input){ .busy = busy, .movable = movable, .low_want = want },
                     mv, GTT_MAX_VGPUS, rep);
    assert_true(n >= 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(gtt_vgpu_relocate(&e->g, mv[i].vgpu, mv[i].low, mv[i].first_slot), 0);
    return (uint64_t)n;
}

/* Cost per cycle of the busy vGPUs' current placement, in entries. */
static uint64_t cost_now(const struct env *e, const bool *busy)
{
    uint64_t st[GTT_MAX_VGPUS], sz[GTT_MAX_VGPUS], hs[GTT_MAX_VGPUS], hz[GTT_MAX_VGPUS];
    unsigned n = 0, m = 0;
    for (unsigned v = 0; v < e->n; v++) {
        if (!busy[v])
            continue;
        const struct gtt_vgpu *g = e->g.vgpu[v];
        st[n] = gtt_page_of(g->low.start);
        sz[n++] = gtt_page_of(g->low.size);
        unsigned first;
        gtt_vgpu_slots(&e->g, v, &first, 1);
        hs[m] = first;
        hz[m++] = g->n_slots;
    }
    return gtt_cover_cost(st, sz, n) + gtt_cover_cost(hs, hz, m) * SLOT_E;
}

/* Round robin among the busy ones: entries written per cycle once settled. */
static uint64_t measured_cycle(struct env *e, const bool *busy)
{
    for (unsigned k = 0; k < 2; k++)
        for (unsigned v = 0; v < e->n; v++)
            if (busy[v])
                gtt_switch_to(&e->g, v);
    uint64_t before = e->g.st.entries_switch;
    for (unsigned v = 0; v < e->n; v++)
        if (busy[v])
            gtt_switch_to(&e->g, v);
    return e->g.st.entries_switch - before;
}

static void test_plan_separates_a_busy_set_that_fits(void **state)
{
    (void)state;
    struct env *e = env_new(15, GTT_SLOTS_CONTIGUOUS);
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS];
    for (unsigned v = 0; v < GTT_MAX_VGPUS; v++)
        movable[v] = true;
    busy[2] = busy[7] = busy[11] = true;
    overlap_pair(e, 2, 7);
    overlap_pair(e, 2, 11);
    assert_true(measured_cycle(e, busy) > 0);
    struct gtt_plan_report rep;
    uint64_t moves = apply_plan(e, busy, movable, NULL, &rep);
    assert_true(moves >= 2 && moves <= 2); /* one keeps its place */
    assert_true(rep.cost_now > 0);
    assert_int_equal(rep.cost_plan, 0);
    assert_int_equal(cost_now(e, busy), 0);
    assert_int_equal(measured_cycle(e, busy), 0);
    /* Planned again: nothing to do. */
    assert_int_equal(apply_plan(e, busy, movable, NULL, &rep), 0);
    /* Idle vGPUs overlapping them cost nothing and are left alone. */
    for (unsigned v = 0; v < 15; v++)
        gtt_set_active(&e->g, v, busy[v]);
    assert_int_equal(measured_cycle(e, busy), 0);
    env_free(e);
}

/* Round robin with the next one written ahead during each turn, as the render loop does:
 * entries written per cycle on the switch path and ahead. */
static void predicted_cycle(struct env *e, const bool *busy, uint64_t *path, uint64_t *ahead)
{
    unsigned order[GTT_MAX_VGPUS], n = 0;
    for (unsigned v = 0; v < e->n; v++)
        if (busy[v])
            order[n++] = v;
    for (unsigned k = 0; k < 3; k++) {
        if (k == 2) {
            *path = e->g.st.entries_switch;
            *ahead = e->g.st.entries_predict;
        }
        for (unsigned i = 0; i < n; i++) {
            gtt_switch_to(&e->g, order[i]);
            gtt_predict(&e->g, order[(i + 1) % n]);
        }
    }
    *path = e->g.st.entries_switch - *path;
    *ahead = e->g.st.entries_predict - *ahead;
}

/* 24 busy of 1 MiB windows on 13 MiB, 3 slots each on 48: neither area holds them. */
static void test_plan_reaches_the_floor_when_they_do_not_fit(void **state)
{
    (void)state;
    struct env *e = env_new(24, GTT_SLOTS_CONTIGUOUS);
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS];
    for (unsigned v = 0; v < GTT_MAX_VGPUS; v++)
        movable[v] = true, busy[v] = v < 24;
    uint64_t w[24], s3[24];
    for (unsigned v = 0; v < 24; v++)
        w[v] = 256, s3[v] = 3;
    uint64_t floor = gtt_floor_cycle(gtt_page_of(e->lay.low_guest.size), w, 24) +
                     gtt_floor_cycle(e->lay.n_slots, s3, 24) * SLOT_E;
    /* Nobody has run yet, so no order is known: the planner goes for the floor. */
    struct gtt_plan_report rep;
    apply_plan(e, busy, movable, NULL, &rep);
    assert_int_equal(rep.cost_plan, floor);
    assert_int_equal(cost_now(e, busy), floor);
    assert_int_equal(measured_cycle(e, busy), floor);
    env_free(e);

    /* Once they take turns in order, consecutive vGPUs go to different stacks: a few more
     * entries in all than the floor, and none of them on the switch path (the initial spread
     * keeps neighbours by id apart as well, but copies much more in all). */
    e = env_new(24, GTT_SLOTS_CONTIGUOUS);
    uint64_t path0, ahead0, path1, ahead1;
    predicted_cycle(e, busy, &path0, &ahead0);
    apply_plan(e, busy, movable, NULL, &rep);
    assert_int_equal(rep.path_plan, 0);
    assert_true(rep.cost_plan * 10 <= floor * 12);
    predicted_cycle(e, busy, &path1, &ahead1);
    assert_int_equal(path1, 0);
    assert_int_equal(ahead1, rep.cost_plan);
    assert_true(path1 + ahead1 < path0 + ahead0);
    print_message("24 busy: spread %" PRIu64 " entries per cycle (%" PRIu64 " on the switch "
                  "path), planned %" PRIu64 " (0), floor %" PRIu64 "\n",
                  path0 + ahead0, path0, ahead1, floor);
    env_free(e);
}

static void test_plan_respects_fixed_and_compaction(void **state)
{
    (void)state;
    struct env *e = env_new(4, GTT_SLOTS_CONTIGUOUS);
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS] = { 0 };
    uint64_t want[GTT_MAX_VGPUS] = { 0 };
    busy[0] = busy[1] = true;
    movable[1] = true; /* 0's guest does not follow re-placements */
    overlap_pair(e, 0, 1);
    struct gtt_range fixed = e->g.vgpu[0]->low;
    struct gtt_plan_report rep;
    assert_int_equal(apply_plan(e, busy, movable, NULL, &rep), 1);
    assert_int_equal(e->g.vgpu[0]->low.start, fixed.start);
    assert_int_equal(cost_now(e, busy), 0);
    /* 1 agrees to a window of 64 KiB and maps 5 pages: it shrinks to that, wherever it is. */
    uint32_t i1 = gtt_page_of(e->g.vgpu[1]->low.start);
    for (uint32_t k = 0; k < 5; k++)
        gtt_guest_write(&e->g, 1, i1 + k, gpte(k * K4));
    want[1] = 64 * 1024;
    assert_int_equal(apply_plan(e, busy, movable, want, &rep), 1);
    assert_int_equal(e->g.vgpu[1]->low.size, 64 * 1024);
    /* A want below what it mapped is not followed. */
    want[1] = K4;
    assert_int_equal(apply_plan(e, busy, movable, want, &rep), 0);
    assert_int_equal(e->g.vgpu[1]->low.size, 64 * 1024);
    /* Nothing busy, nothing planned; bad input refused. */
    bool none[GTT_MAX_VGPUS] = { 0 };
    assert_int_equal(apply_plan(e, none, movable, NULL, &rep), 0);
    assert_int_equal(gtt_plan(&e->g, &(struct gtt_plan_input){ .movable = movable }, NULL, 0, NULL),
                     GTT_EINVAL);
    env_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cover_cost),
        cmocka_unit_test(test_floor_equal_sizes),
        cmocka_unit_test(test_floor_unequal_sizes),
        cmocka_unit_test(test_relocate_carries_shadow_and_scrubs),
        cmocka_unit_test(test_relocate_refusals),
        cmocka_unit_test(test_plan_separates_a_busy_set_that_fits),
        cmocka_unit_test(test_plan_reaches_the_floor_when_they_do_not_fit),
        cmocka_unit_test(test_plan_respects_fixed_and_compaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
