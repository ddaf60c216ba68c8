/* Private shadow GTT: validated guest writes, forwarding only to owned entries, ladder mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_gtt_fake.h"

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
};

static int setup(void **state)
{
    struct env *e = calloc(1, sizeof *e);
    /* Two guests, 4 MiB low windows (disjoint: 13 MiB area), 4 slots each. */
    if (!e || small_layout(&e->lay, 2, UINT64_C(4) << 20, UINT64_C(4) << 20, GTT_SHARE_ALL))
        return -1;
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    if (gtt_init(&e->g, &c) || gtt_vgpu_create_from_layout(&e->g, 0) ||
        gtt_vgpu_create_from_layout(&e->g, 1))
        return -1;
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

static uint32_t low_index(const struct env *e, unsigned v, uint32_t k)
{
    return (uint32_t)(e->lay.guest[v].low.start >> 12) + k;
}

static uint32_t slot_index(const struct env *e, unsigned v, uint32_t k)
{
    return (uint32_t)(gtt_layout_slot_addr(&e->lay, e->lay.guest[v].first_slot) >> 12) + k;
}

static void test_init_scrubs_managed_entries(void **state)
{
    struct env *e = *state;
    uint32_t pool0 = (uint32_t)(e->lay.fence_pool.start >> 12);
    for (uint32_t i = 0; i < e->f.n_entries; i++) {
        if (i < pool0)
            assert_int_equal(e->f.ggtt[i], 0); /* host area untouched */
        else
            assert_int_equal(e->f.ggtt[i], FAKE_SCRATCH);
    }
    uint64_t pte;
    assert_int_equal(gtt_shadow_pte(&e->g, 0, slot_index(e, 0, 5), &pte), 0);
    assert_int_equal(pte, FAKE_SCRATCH);
}

/* A backend that writes runs: one call for n consecutive entries. */
static unsigned run_calls;
static void fake_write_run(void *ctx, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    run_calls++;
    for (uint32_t k = 0; k < n; k++)
        fake_ggtt_write(ctx, index + k, ptes[k]);
}

/* Given a backend that writes runs, start-up scrubs the same entries to the same scratch
 * page as entry by entry, in a call per run instead of one per entry. */
static void test_init_scrubs_in_runs(void **state)
{
    struct env *e = *state;
    struct fake one, runs;
    struct gtt g1, g2;
    fake_init(&one, &e->lay);
    fake_init(&runs, &e->lay);
    struct gtt_config c1 = fake_config(&one, &e->lay), c2 = fake_config(&runs, &e->lay);
    c2.ops.ggtt_write_run = fake_write_run;
    run_calls = 0;
    assert_int_equal(gtt_init(&g1, &c1), 0);
    assert_int_equal(gtt_init(&g2, &c2), 0);
    assert_memory_equal(one.ggtt, runs.ggtt, (size_t)one.n_entries * sizeof *one.ggtt);
    assert_int_equal(runs.phys_writes, one.phys_writes);
    assert_true(run_calls > 0 && run_calls * 32u < one.phys_writes);
    assert_int_equal(g2.st.entries_scrub, g1.st.entries_scrub);
    assert_int_equal(g2.st.invalidates, g1.st.invalidates);
    gtt_fini(&g1);
    gtt_fini(&g2);
    fake_fini(&one);
    fake_fini(&runs);
}

static void test_write_translates_into_shadow_only_when_not_owner(void **state)
{
    struct env *e = *state;
    uint32_t i = slot_index(e, 0, 7);
    uint64_t before = e->f.phys_writes;
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x123000)), 0);
    uint64_t pte;
    assert_int_equal(gtt_shadow_pte(&e->g, 0, i, &pte), 0);
    assert_int_equal(pte, hpte(0, 0x123000));
    /* Nobody switched to vGPU 0 yet: it does not own the entry, so the GGTT is untouched. */
    assert_int_equal(e->f.phys_writes, before);
    assert_int_equal(e->f.ggtt[i], FAKE_SCRATCH);
    assert_int_equal(gtt_guest_read(&e->g, 0, i, &pte), 0);
    assert_int_equal(pte, gpte(0x123000));
}

static void test_write_forwarded_when_owner(void **state)
{
    struct env *e = *state;
    gtt_set_active(&e->g, 0, true);
    assert_true(gtt_switch_to(&e->g, 0) > 0);
    uint32_t i = slot_index(e, 0, 9);
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x5000)), 0);
    assert_int_equal(e->f.ggtt[i], hpte(0, 0x5000));
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.writes_ok, 1);
    assert_int_equal(s.st.writes_forwarded, 1);
    /* It keeps owning the entry after another vGPU runs, as long as that one does not use it:
     * writes still go through. */
    gtt_set_active(&e->g, 1, true);
    gtt_switch_to(&e->g, 1);
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x6000)), 0);
    assert_int_equal(e->f.ggtt[i], hpte(0, 0x6000));
}

static void test_write_to_foreign_page_refused_and_counted(void **state)
{
    struct env *e = *state;
    gtt_set_active(&e->g, 0, true);
    gtt_switch_to(&e->g, 0);
    uint32_t i = slot_index(e, 0, 1);
    uint64_t phys = e->f.ggtt[i];
    /* Beyond the guest's 256 MiB of RAM. */
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(FAKE_RAM_SIZE)), GTT_EPERM);
    assert_int_equal(e->f.ggtt[i], phys);
    uint64_t pte;
    gtt_shadow_pte(&e->g, 0, i, &pte);
    assert_int_equal(pte, FAKE_SCRATCH);
    /* Reserved high bits. */
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x1000) | (UINT64_C(1) << 50)), GTT_EPERM);
    /* The translator says no for this vGPU at all. */
    e->f.deny_vgpu = 0;
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x1000)), GTT_EPERM);
    e->f.deny_vgpu = ~0u;
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.writes_refused, 3);
    assert_int_equal(s.st.writes_ok, 0);
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.st.writes_refused, 3);
}

static void test_write_outside_ranges_refused(void **state)
{
    struct env *e = *state;
    /* vGPU 1's slot, the host area, the fence pool, past the GGTT. */
    uint32_t bad[] = { slot_index(e, 1, 0), 0, (uint32_t)(e->lay.fence_pool.start >> 12),
                       e->f.n_entries, UINT32_MAX };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_equal(gtt_guest_write(&e->g, 0, bad[k], gpte(0x1000)), GTT_ERANGE);
    uint64_t pte;
    assert_int_equal(gtt_guest_read(&e->g, 0, bad[0], &pte), GTT_ERANGE);
    assert_int_equal(gtt_guest_write(&e->g, 7, 0, 0), GTT_ENOENT);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.writes_refused, 5);
}

static void test_translation_output_checked(void **state)
{
    struct env *e = *state;
    /* A translation the PTE cannot hold (above bit 38, or not page aligned) is refused rather
     * than truncated into someone else's page. */
    uint32_t i = low_index(e, 0, 3);
    e->f.force = true;
    e->f.force_hpa = UINT64_C(1) << 40;
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x2000)), GTT_EPERM);
    e->f.force_hpa = fake_ram_base(0) + 0x2010;
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x2000)), GTT_EPERM);
    e->f.force = false;
    /* The guest's flag bits (cache attributes) pass through. */
    assert_int_equal(gtt_guest_write(&e->g, 0, i, gpte(0x2000) | 0x6), 0);
    uint64_t pte;
    gtt_shadow_pte(&e->g, 0, i, &pte);
    assert_int_equal(pte, hpte(0, 0x2000) | 0x6);
}

static void test_ladder_mapping_updates(void **state)
{
    struct env *e = *state;
    uint32_t i = low_index(e, 1, 10);
    uint64_t off = (uint64_t)i << 12;
    uint64_t n0 = e->f.ept_updates;
    assert_int_equal(gtt_guest_write(&e->g, 1, i, gpte(0x42000)), 0);
    assert_int_equal(e->f.ept_updates, n0 + 1);
    assert_int_equal(e->f.last_ept_vgpu, 1);
    assert_int_equal(e->f.last_ept.kind, GTT_EPT_MAP_RAM);
    assert_int_equal(e->f.last_ept.aper_off, off);
    assert_int_equal(e->f.last_ept.target, fake_ram_base(1) + 0x42000);
    uint64_t hpa;
    assert_int_equal(gtt_ladder_lookup(&e->g, 1, off, &hpa), 0);
    assert_int_equal(hpa, fake_ram_base(1) + 0x42000);
    /* Same target again (flags differ): nothing for the VMM to do. */
    assert_int_equal(gtt_guest_write(&e->g, 1, i, gpte(0x42000) | 0x2), 0);
    assert_int_equal(e->f.ept_updates, n0 + 1);
    /* New target. */
    assert_int_equal(gtt_guest_write(&e->g, 1, i, gpte(0x43000)), 0);
    assert_int_equal(e->f.ept_updates, n0 + 2);
    assert_int_equal(e->f.last_ept.target, fake_ram_base(1) + 0x43000);
    /* Cleared entry: unmap, and the shadow holds the scratch page. */
    assert_int_equal(gtt_guest_write(&e->g, 1, i, 0), 0);
    assert_int_equal(e->f.ept_updates, n0 + 3);
    assert_int_equal(e->f.last_ept.kind, GTT_EPT_UNMAP);
    assert_int_equal(gtt_ladder_lookup(&e->g, 1, off, &hpa), GTT_ENOENT);
    uint64_t pte;
    gtt_shadow_pte(&e->g, 1, i, &pte);
    assert_int_equal(pte, FAKE_SCRATCH);
    /* Clearing again changes nothing. */
    assert_int_equal(gtt_guest_write(&e->g, 1, i, 0), 0);
    assert_int_equal(e->f.ept_updates, n0 + 3);
    /* High GM is not CPU-visible: no EPT work. */
    assert_int_equal(gtt_guest_write(&e->g, 1, slot_index(e, 1, 0), gpte(0x1000)), 0);
    assert_int_equal(e->f.ept_updates, n0 + 3);
    /* Lookups outside the window. */
    assert_int_equal(gtt_ladder_lookup(&e->g, 1, e->lay.guest[0].low.start, &hpa), GTT_ERANGE);
    assert_int_equal(gtt_ladder_lookup(&e->g, 9, off, &hpa), GTT_ENOENT);
}

static void test_create_rejects_bad_specs(void **state)
{
    struct env *e = *state;
    unsigned slots[3] = { 10, 11, 12 };
    struct gtt_vgpu_spec sp = { .low = { e->lay.low_guest.start, 1 << 20 },
                                .n_slots = 3,
                                .slots = slots,
                                .min_slots = 1,
                                .max_slots = 4 };
    assert_int_equal(gtt_vgpu_create(&e->g, 0, &sp), GTT_EEXIST);
    assert_int_equal(gtt_vgpu_create(&e->g, GTT_MAX_VGPUS, &sp), GTT_EINVAL);
    struct gtt_vgpu_spec b = sp;
    b.low.start = 0; /* host area */
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_ERANGE);
    b = sp, b.low.size = 100;
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_ERANGE);
    unsigned gap[3] = { 10, 12, 13 };
    b = sp, b.slots = gap;
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_EINVAL); /* contiguous mode */
    unsigned far[3] = { 46, 47, 48 };
    b = sp, b.slots = far;
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_ERANGE);
    b = sp, b.min_slots = 4;
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_ELIMIT);
    b = sp, b.max_slots = 49;
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &b), GTT_ELIMIT);
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &sp), 0);
    assert_non_null(gtt_vgpu_get(&e->g, 5));
    assert_int_equal(gtt_vgpu_create_from_layout(&e->g, 2), GTT_ENOENT); /* layout has 2 */
}

static void test_init_rejects_bad_config(void **state)
{
    struct env *e = *state;
    struct gtt g2;
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.ops.translate = NULL;
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    c = fake_config(&e->f, &e->lay);
    c.host_fences = 32;
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    c = fake_config(&e->f, &e->lay);
    c.copy = (enum gtt_copy_mode)9;
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    assert_int_equal(gtt_init(NULL, &c), GTT_EINVAL);
    /* A hand-made layout that contradicts itself is refused rather than trusted. */
    struct gtt_layout bad = e->lay;
    bad.fence_pool.start = bad.aperture_bytes;
    c = fake_config(&e->f, &bad);
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    bad = e->lay;
    bad.n_slots++;
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    bad = e->lay;
    bad.slots.start -= bad.slot_bytes;
    assert_int_equal(gtt_init(&g2, &c), GTT_EINVAL);
    assert_string_equal(gtt_strerror(GTT_EPERM), "page not owned by the guest");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_init_scrubs_managed_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_scrubs_in_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_translates_into_shadow_only_when_not_owner,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_forwarded_when_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_to_foreign_page_refused_and_counted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_write_outside_ranges_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_translation_output_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ladder_mapping_updates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_rejects_bad_specs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_rejects_bad_config, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
