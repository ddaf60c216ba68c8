/* The low-GM owner summary: switches and write-aheads skip a block that is already
 * the incoming vGPU's without reading its entries, and the summary is never wrong, whatever
 * mix of switches, write-aheads, guest writes, re-placements and destroys came before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_gtt_fake.h"

#define WIN_E 512u /* entries per 2 MiB window */

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
    uint32_t w; /* first entry of the guest low area */
};

static struct env *make_env(enum gtt_copy_mode mode)
{
    struct env *e = calloc(1, sizeof *e);
    if (!e || small_layout(&e->lay, 0, 0, 0, GTT_SHARE_ALL))
        return NULL;
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.copy = mode;
    if (gtt_init(&e->g, &c))
        return NULL;
    e->w = (uint32_t)(e->lay.low_guest.start >> 12);
    return e;
}

static void add(struct env *e, unsigned v, uint32_t first, uint32_t n)
{
    struct gtt_vgpu_spec sp = { .low = { (uint64_t)(e->w + first) << 12, (uint64_t)n << 12 } };
    assert_int_equal(gtt_vgpu_create(&e->g, v, &sp), 0);
    gtt_set_active(&e->g, v, true);
    for (uint32_t i = 0; i < e->f.n_entries; i++)
        if (gtt_vgpu_covers(&e->g, v, i))
            gtt_guest_write(&e->g, v, i, gpte((uint64_t)((i * 7 + v) % 4096) << 12));
}

static void destroy(struct env *e)
{
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
}

static uint64_t checked(const struct env *e)
{
    struct gtt_summary s;
    gtt_summarize(&e->g, &s);
    return s.st.entries_checked;
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

/* A block the summary names an owner for holds that owner's entries only. */
static void assert_summary_true(const struct env *e)
{
    const struct gtt *g = &e->g;
    for (uint32_t b = 0; b * GTT_LOW_BLOCK_ENTRIES < g->first_slot_entry; b++) {
        uint16_t o = g->low_owner[b];
        if (o == GTT_OWNER_MIXED)
            continue;
        uint32_t end = (b + 1) * GTT_LOW_BLOCK_ENTRIES;
        for (uint32_t i = b * GTT_LOW_BLOCK_ENTRIES; i < end && i < g->first_slot_entry; i++)
            assert_int_equal(g->owner[i], o);
    }
}

/* Two guests side by side (as bench-isolation places them): once each has been switched in,
 * switching between them and writing each ahead looks at no entry at all.  Before the summary
 * every switch read the owner of each of the window's 512 entries. */
static void test_switch_back_skips_windows_still_held(void **state)
{
    (void)state;
    struct env *e = make_env(GTT_COPY_ENTRY);
    assert_non_null(e);
    add(e, 0, 0, WIN_E);
    add(e, 1, WIN_E, WIN_E);
    assert_int_equal(gtt_switch_to(&e->g, 0), WIN_E);
    assert_int_equal(gtt_predict(&e->g, 1), WIN_E);
    uint64_t before = checked(e);
    for (unsigned k = 0; k < 10; k++) {
        assert_int_equal(gtt_switch_to(&e->g, 1), 0);
        assert_int_equal(gtt_predict(&e->g, 0), 0);
        assert_int_equal(gtt_switch_to(&e->g, 0), 0);
        assert_int_equal(gtt_predict(&e->g, 1), 0);
    }
    assert_int_equal(checked(e), before);
    assert_owner_view(e, 0);
    destroy(e);
}

/* Windows that overlap and do not start on a block: the shared blocks are read entry by entry,
 * the rest skipped, and every switch still leaves the incoming vGPU's whole view. */
static void test_overlap_reads_only_shared_blocks(void **state)
{
    (void)state;
    struct env *e = make_env(GTT_COPY_ENTRY);
    assert_non_null(e);
    add(e, 0, 3, 300);   /* entries 3..302 */
    add(e, 1, 250, 200); /* entries 250..449: 53 shared with vGPU 0 */
    gtt_switch_to(&e->g, 0);
    gtt_switch_to(&e->g, 1);
    uint64_t before = checked(e);
    assert_int_equal(gtt_switch_to(&e->g, 0), 53);
    assert_owner_view(e, 0);
    /* vGPU 0's blocks: 0..4 (entries 0..319); 0 and 4 are partial, 3 and 4 shared with 1. */
    uint64_t read = checked(e) - before;
    assert_true(read >= 53);
    assert_true(read <= 4 * GTT_LOW_BLOCK_ENTRIES);
    assert_summary_true(e);
    destroy(e);
}

/* Random switches, write-aheads, guest writes, re-placements and a destroy, in all three copy
 * modes: after every step the summary is true, and after every switch the owner's view holds. */
static void run_mix(enum gtt_copy_mode mode)
{
    struct env *e = make_env(mode);
    assert_non_null(e);
    add(e, 0, 3, 300);
    add(e, 1, 250, 200);
    add(e, 2, 100, 65);
    add(e, 3, 700, 129);
    uint32_t seed = 12345;
    for (unsigned step = 0; step < 3000; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned v = (seed >> 16) % 4, op = (seed >> 20) % 8;
        if (!gtt_vgpu_get(&e->g, v))
            continue;
        if (op < 3) {
            assert_true(gtt_switch_to(&e->g, v) >= 0);
            assert_owner_view(e, v);
        } else if (op < 5) {
            assert_true(gtt_predict(&e->g, v) >= 0);
        } else if (op < 7) {
            uint32_t i = e->w + (seed >> 8) % 1000;
            if (gtt_vgpu_covers(&e->g, v, i))
                assert_int_equal(gtt_guest_write(&e->g, v, i, gpte((uint64_t)(step % 4096) << 12)),
                                 0);
        } else {
            /* Re-placed one page up or down, within its old neighbourhood. */
            const struct gtt_vgpu *gv = gtt_vgpu_get(&e->g, v);
            struct gtt_range low = gv->low;
            low.start = (seed & 0x100) ? low.start + 4096 : low.start - 4096;
            int rc = gtt_vgpu_relocate(&e->g, v, low, 0);
            assert_true(rc == 0 || rc == GTT_ERANGE);
        }
        if (step == 2000)
            assert_int_equal(gtt_vgpu_destroy(&e->g, 2, NULL), 0);
        assert_summary_true(e);
    }
    destroy(e);
}

static void test_summary_true_after_any_mix_entry(void **state)
{
    (void)state;
    run_mix(GTT_COPY_ENTRY);
}
static void test_summary_true_after_any_mix_range(void **state)
{
    (void)state;
    run_mix(GTT_COPY_RANGE);
}
static void test_summary_true_after_any_mix_full(void **state)
{
    (void)state;
    run_mix(GTT_COPY_FULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch_back_skips_windows_still_held),
        cmocka_unit_test(test_overlap_reads_only_shared_blocks),
        cmocka_unit_test(test_summary_true_after_any_mix_entry),
        cmocka_unit_test(test_summary_true_after_any_mix_range),
        cmocka_unit_test(test_summary_true_after_any_mix_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
