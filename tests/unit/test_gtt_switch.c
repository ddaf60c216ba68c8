/* Switching: owner-tracked on-demand copying, copy modes, idle skip, predictive copying,
 * and scrubbing on destroy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_gtt_fake.h"

#define SLOT_E 256u /* entries per 1 MiB slot */
#define WIN_E  512u /* entries per 2 MiB window */

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
};

/* A: window [w, w+2M), slots {0,1}.  B: window [w+1M, w+3M), slots {1,2}.  C: window
 * [w+4M, w+6M), slot {3}, sharing nothing. */
static int make_env(void **state, enum gtt_copy_mode mode)
{
    struct env *e = calloc(1, sizeof *e);
    if (!e || small_layout(&e->lay, 0, 0, 0, GTT_SHARE_ALL))
        return -1;
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.copy = mode;
    if (gtt_init(&e->g, &c))
        return -1;
    uint64_t w = e->lay.low_guest.start, M = UINT64_C(1) << 20;
    unsigned sa[] = { 0, 1 }, sb[] = { 1, 2 }, sc[] = { 3 };
    struct gtt_vgpu_spec a = { .low = { w, 2 * M }, .n_slots = 2, .slots = sa };
    struct gtt_vgpu_spec b = { .low = { w + M, 2 * M }, .n_slots = 2, .slots = sb };
    struct gtt_vgpu_spec cc = { .low = { w + 4 * M, 2 * M }, .n_slots = 1, .slots = sc };
    if (gtt_vgpu_create(&e->g, 0, &a) || gtt_vgpu_create(&e->g, 1, &b) ||
        gtt_vgpu_create(&e->g, 2, &cc))
        return -1;
    for (unsigned v = 0; v < 3; v++)
        gtt_set_active(&e->g, v, true);
    /* Give every entry of every guest a distinct page so copies are visible. */
    for (unsigned v = 0; v < 3; v++)
        for (uint32_t i = 0; i < e->f.n_entries; i++)
            if (gtt_vgpu_covers(&e->g, v, i))
                gtt_guest_write(&e->g, v, i, gpte((uint64_t)(i % 4096) << 12));
    *state = e;
    return 0;
}

static int setup_entry(void **state)
{
    return make_env(state, GTT_COPY_ENTRY);
}
static int setup_range(void **state)
{
    return make_env(state, GTT_COPY_RANGE);
}
static int setup_full(void **state)
{
    return make_env(state, GTT_COPY_FULL);
}

static int teardown(void **state)
{
    struct env *e = *state;
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
    return 0;
}

/* Every physical entry in v's ranges equals v's shadow. */
static void assert_owner_view(const struct env *e, unsigned v)
{
    for (uint32_t i = 0; i < e->f.n_entries; i++) {
        uint64_t pte;
        if (gtt_shadow_pte(&e->g, v, i, &pte) == 0)
            assert_int_equal(e->f.ggtt[i], pte);
    }
}

static void test_switch_writes_only_foreign_entries(void **state)
{
    struct env *e = *state;
    assert_int_equal(gtt_switch_to(&e->g, 0), WIN_E + 2 * SLOT_E);
    assert_owner_view(e, 0);
    assert_int_equal(gtt_switch_to(&e->g, 1), WIN_E + 2 * SLOT_E);
    assert_owner_view(e, 1);
    /* Back to A: only the half window and the slot B took. */
    assert_int_equal(gtt_switch_to(&e->g, 0), WIN_E / 2 + SLOT_E);
    assert_owner_view(e, 0);
    /* C shares nothing: after its first switch it costs nothing, and neither does A. */
    assert_int_equal(gtt_switch_to(&e->g, 2), WIN_E + SLOT_E);
    assert_int_equal(gtt_switch_to(&e->g, 0), 0);
    assert_int_equal(gtt_switch_to(&e->g, 2), 0);
    assert_owner_view(e, 2);
    /* Same vGPU again is not a switch. */
    assert_int_equal(gtt_switch_to(&e->g, 2), 0);

    struct gtt_summary s;
    gtt_summarize(&e->g, &s);
    assert_int_equal(s.st.switches, 6);
    assert_int_equal(s.st.entries_switch,
                     2 * (WIN_E + 2 * SLOT_E) + WIN_E / 2 + SLOT_E + WIN_E + SLOT_E);
    assert_int_equal(s.st.entries_last_switch, 0);
    assert_int_equal(s.st.max_entries_switch, WIN_E + 2 * SLOT_E);
    struct gtt_vgpu_summary a;
    gtt_vgpu_summarize(&e->g, 0, &a);
    assert_int_equal(a.st.switches_in, 3);
    assert_int_equal(a.st.entries_switch, WIN_E + 2 * SLOT_E + WIN_E / 2 + SLOT_E);
}

static void test_range_mode_copies_whole_ranges(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 0);
    gtt_switch_to(&e->g, 1);
    /* gScale's granularity: the whole window (some of it is foreign) and the shared slot. */
    assert_int_equal(gtt_switch_to(&e->g, 0), WIN_E + SLOT_E);
    assert_owner_view(e, 0);
    gtt_switch_to(&e->g, 2);
    assert_int_equal(gtt_switch_to(&e->g, 0), 0);
}

static void test_full_mode_copies_everything(void **state)
{
    struct env *e = *state;
    for (unsigned k = 0; k < 3; k++) {
        assert_int_equal(gtt_switch_to(&e->g, 0), WIN_E + 2 * SLOT_E);
        assert_int_equal(gtt_switch_to(&e->g, 2), WIN_E + SLOT_E);
    }
    assert_owner_view(e, 2);
}

static void test_idle_vgpu_never_copied(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 0);
    gtt_set_active(&e->g, 1, false);
    uint64_t w = e->f.phys_writes;
    assert_int_equal(gtt_switch_to(&e->g, 1), GTT_EINVAL);
    assert_int_equal(gtt_predict(&e->g, 1), 0);
    assert_int_equal(e->f.phys_writes, w);
    assert_int_equal(gtt_switch_to(&e->g, 9), GTT_ENOENT);
    assert_int_equal(gtt_set_active(&e->g, 9, true), GTT_ENOENT);
    /* B idle: A and C alternate and the slot A shares with B is never rewritten. */
    gtt_switch_to(&e->g, 2);
    for (unsigned k = 0; k < 10; k++) {
        assert_int_equal(gtt_switch_to(&e->g, 0), 0);
        assert_int_equal(gtt_switch_to(&e->g, 2), 0);
    }
}

static void test_predictive_copy_counted_apart(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 0);
    /* While A runs, B's entries that A does not use: the upper half window and slot 2. */
    assert_int_equal(gtt_predict(&e->g, 1), WIN_E / 2 + SLOT_E);
    assert_owner_view(e, 0);                    /* A's view untouched */
    assert_int_equal(gtt_predict(&e->g, 1), 0); /* already there */
    /* The switch now only does the part A was using. */
    assert_int_equal(gtt_switch_to(&e->g, 1), WIN_E / 2 + SLOT_E);
    assert_owner_view(e, 1);
    struct gtt_summary s;
    gtt_summarize(&e->g, &s);
    assert_int_equal(s.st.entries_predict, WIN_E / 2 + SLOT_E);
    assert_int_equal(s.st.entries_switch, WIN_E + 2 * SLOT_E + WIN_E / 2 + SLOT_E);
    assert_int_equal(s.st.ahead_used, WIN_E / 2 + SLOT_E); /* the prediction was right */
    assert_int_equal(s.st.ahead_wasted, 0);
    struct gtt_vgpu_summary b;
    gtt_vgpu_summarize(&e->g, 1, &b);
    assert_int_equal(b.st.entries_predict, WIN_E / 2 + SLOT_E);
    /* Predicting the running vGPU, or with nobody running, behaves. */
    assert_int_equal(gtt_predict(&e->g, 1), 0);
    assert_int_equal(gtt_predict(&e->g, 9), GTT_ENOENT);
}

/* Written ahead for B, but C comes next: those entries count as wasted, and B's next switch
 * still writes whatever C's took. */
static void test_wrong_prediction_counted_wasted(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 0);
    long ahead = gtt_predict(&e->g, 1);
    assert_int_equal(ahead, WIN_E / 2 + SLOT_E);
    gtt_switch_to(&e->g, 2);
    struct gtt_summary s;
    gtt_summarize(&e->g, &s);
    assert_int_equal(s.st.ahead_used, 0);
    assert_int_equal(s.st.ahead_wasted, (uint64_t)ahead);
    /* Nothing pending any more: a right prediction afterwards counts only itself. */
    long again = gtt_predict(&e->g, 0);
    gtt_switch_to(&e->g, 0);
    gtt_summarize(&e->g, &s);
    assert_int_equal(s.st.ahead_used, (uint64_t)again);
    assert_int_equal(s.st.ahead_wasted, (uint64_t)ahead);
    assert_owner_view(e, 0);
}

static void test_predict_with_nothing_running(void **state)
{
    struct env *e = *state;
    assert_int_equal(gtt_predict(&e->g, 2), WIN_E + SLOT_E);
    assert_int_equal(gtt_switch_to(&e->g, 2), 0);
    assert_owner_view(e, 2);
}

static void test_guest_write_after_losing_entries(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 0);
    gtt_switch_to(&e->g, 1);
    /* A writes into slot 1, which B now holds: shadow only; B's view stays. */
    uint32_t i = (uint32_t)(gtt_layout_slot_addr(&e->lay, 1) >> 12) + 3;
    uint64_t phys = e->f.ggtt[i];
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x777000)), 0);
    assert_int_equal(e->f.ggtt[i], phys);
    assert_owner_view(e, 1);
    gtt_switch_to(&e->g, 0);
    assert_int_equal(e->f.ggtt[i], hpte(0, 0x777000));
}

static void test_destroy_scrubs_everything_it_owned(void **state)
{
    struct env *e = *state;
    gtt_switch_to(&e->g, 1);
    gtt_switch_to(&e->g, 0); /* A owns its window and slots 0,1 */
    uint32_t regs = 0;
    assert_int_equal(gtt_vgpu_destroy(&e->g, 0, &regs), 0);
    assert_int_equal(regs, 0);
    for (uint32_t i = 0; i < e->f.n_entries; i++) {
        uint64_t a = e->f.ggtt[i] & GEN9_GGTT_PTE_ADDR_MASK;
        assert_false(a >= fake_ram_base(0) && a < fake_ram_base(0) + FAKE_RAM_SIZE);
    }
    assert_null(gtt_vgpu_get(&e->g, 0));
    assert_int_equal(gtt_vgpu_destroy(&e->g, 0, NULL), GTT_ENOENT);
    /* Nobody runs now; B's switch restores B's whole view. */
    gtt_switch_to(&e->g, 1);
    assert_owner_view(e, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_switch_writes_only_foreign_entries, setup_entry,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_range_mode_copies_whole_ranges, setup_range, teardown),
        cmocka_unit_test_setup_teardown(test_full_mode_copies_everything, setup_full, teardown),
        cmocka_unit_test_setup_teardown(test_idle_vgpu_never_copied, setup_entry, teardown),
        cmocka_unit_test_setup_teardown(test_predictive_copy_counted_apart, setup_entry, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_prediction_counted_wasted, setup_entry,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_predict_with_nothing_running, setup_entry, teardown),
        cmocka_unit_test_setup_teardown(test_guest_write_after_losing_entries, setup_entry,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_destroy_scrubs_everything_it_owned, setup_entry,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
