/*
 * The PPGTT shadow with tables laid out as i915 6.1 lays them out: a fresh PPGTT of scratch
 * entries, binding (gen8_ppgtt_alloc() replacing scratch entries), remaps and unbinds through
 * trapped writes (full and half entries), sharing between PPGTTs, and every refusal: outside
 * the guest's RAM, huge pages, page-table pages as data, a page at two levels, limits,
 * unreadable tables, unknown roots.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/test_vgt_ppgtt_fixture.h"

static int setup(void **state)
{
    struct px *x = calloc(1, sizeof *x);
    struct vgt_ppgtt_config c = px_config(x, 0);
    assert_non_null(x);
    x->next_page = 1; /* leave guest page 0 alone */
    assert_int_equal(vgt_ppgtt_create(&c, &x->p), VGT_PPGTT_OK);
    assert_int_equal(x->host_live, 3); /* the three scratch tables */
    px_scratch(x);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct px *x = *state;
    vgt_ppgtt_destroy(x->p);
    /* Everything given back: shadow pages and EPT protections. */
    assert_int_equal(x->host_live, 0);
    assert_int_equal(x->protect_calls, x->unprotect_calls);
    free(x);
    return 0;
}

static uint64_t xlate(struct px *x, uint64_t pml4, uint64_t gfx, bool write, int *rc,
                      enum vgt_ppgtt_refusal *why)
{
    uint64_t hpa = 0;
    *why = VGT_PPGTT_R_NONE;
    *rc = vgt_ppgtt_translate(x->p, pml4, gfx, write, &hpa, NULL, why);
    return hpa;
}

/* Every present entry of every shadow table reachable from a shadow PML4 points where it may:
 * a shadow table or scratch table above level 0, the guest's RAM or the scratch page below. */
static void check_shadow(const struct px *x, uint64_t hpa, unsigned level)
{
    const uint64_t *t = px_host(x, hpa);
    assert_non_null(t);
    for (unsigned i = 0; i < GEN9_PPGTT_ENTRIES; i++) {
        uint64_t e = t[i], a = gen9_ppgtt_entry_addr(e);
        assert_true(e & GEN9_PPGTT_PRESENT);
        if (level == 0) {
            assert_true(a == PX_SCRATCH_HPA ||
                        (a >= PX_HPA_BASE && a < PX_HPA_BASE + PX_RAM_BYTES));
            if (a == PX_SCRATCH_HPA)
                assert_false(e & GEN9_PPGTT_RW);
        } else if (i == 0 || e != t[i - 1]) { /* shared children: walk each once per run */
            check_shadow(x, a, level - 1);
        }
    }
}

/* A fresh PPGTT as i915 creates it and announces it (gen8_ppgtt_create() ->
 * gen8_ppgtt_notify_vgt(true)): four table pages shadowed, each once, the 512 x 512 x 512 x 512
 * scratch entries sharing them; every address reads the scratch page and none is writable. */
static void test_fresh_ppgtt(void **state)
{
    struct px *x = *state;
    uint64_t pml4 = px_pml4(x), shadow = 0;
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(x->p);
    enum vgt_ppgtt_refusal why;
    int rc;

    assert_int_equal(vgt_ppgtt_root_create(x->p, pml4, &shadow, &why), VGT_PPGTT_OK);
    assert_int_equal(st->tables, 4);
    assert_int_equal(st->builds, 4);
    assert_int_equal(st->shares, 3 * 511);
    for (uint64_t g = 0; g < 4; g++) /* the scratch tables and the PML4 */
        assert_true(vgt_ppgtt_is_table(x->p, g == 3 ? pml4 : x->scratch_pt + 4096 * g));
    assert_false(vgt_ppgtt_is_table(x->p, x->scratch_page));
    assert_int_equal(x->protect_calls, 4);
    check_shadow(x, shadow, 3);

    assert_int_equal(xlate(x, pml4, 0x123456789ull, false, &rc, &why),
                     PX_HPA_BASE + x->scratch_page + 0x789);
    assert_int_equal(rc, VGT_PPGTT_OK);
    xlate(x, pml4, 0xFFFFFFFFF000ull, true, &rc, &why);
    assert_int_equal(rc, VGT_PPGTT_E_READ_ONLY);
    xlate(x, pml4, 1ull << 48, false, &rc, &why);
    assert_int_equal(rc, VGT_PPGTT_E_NOT_MAPPED);
    assert_int_equal(vgt_ppgtt_root_find(x->p, pml4, &shadow), VGT_PPGTT_OK);
}

/* Binding pages, remapping one, unbinding by pointing the PDE back at scratch. */
static void test_bind_remap_unbind(void **state)
{
    struct px *x = *state;
    uint64_t pml4 = px_pml4(x), shadow, d[3], hpa;
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(x->p);
    enum vgt_ppgtt_refusal why;
    uint32_t contig;
    int rc;

    assert_int_equal(vgt_ppgtt_root_create(x->p, pml4, &shadow, NULL), VGT_PPGTT_OK);
    for (unsigned i = 0; i < 3; i++)
        d[i] = px_page(x);
    /* i915 binds a 3-page object at 0x7fff_0000_0000 (its user address-space top half). */
    uint64_t pt = 0;
    for (unsigned i = 0; i < 3; i++)
        pt = px_bind(x, pml4, 0x7FFF00000000ull + 4096u * i, PX_PTE(d[i]));
    assert_int_equal(st->tables, 4 + 3); /* a PDP, a PD and a PT */
    assert_true(vgt_ppgtt_is_table(x->p, pt));
    check_shadow(x, shadow, 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(vgt_ppgtt_translate(x->p, pml4, 0x7FFF00000010ull + 4096u * i, true, &hpa,
                                             &contig, &why),
                         VGT_PPGTT_OK);
        assert_int_equal(hpa, PX_HPA_BASE + d[i] + 0x10);
        assert_int_equal(contig, 4096 - 0x10);
    }
    assert_int_equal(vgt_ppgtt_check(x->p, pml4, 0x7FFF00000FF0ull, 0x2000, true, &why),
                     VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_check(x->p, pml4, 0x7FFF00002FF0ull, 0x20, true, &why),
                     VGT_PPGTT_E_READ_ONLY); /* runs into the read-only scratch */
    assert_int_equal(vgt_ppgtt_check(x->p, pml4, 0x7FFF00000000ull, 0, false, &why),
                     VGT_PPGTT_E_INVAL);

    /* Remap page 1 with a half-entry write, low dword then high (as a 32-bit store would). */
    uint64_t other = px_page(x), e = PX_PTE(other);
    uint32_t lo = (uint32_t)e, hi = (uint32_t)(e >> 32);
    uint64_t writes = st->writes;
    assert_int_equal(writes, 3 + 3); /* the binds: PML4, PDP, PD entries, 3 PTEs */
    px_store(x, pt + 8, &lo, 4);
    px_store(x, pt + 12, &hi, 4);
    assert_int_equal(xlate(x, pml4, 0x7FFF00001000ull, false, &rc, &why), PX_HPA_BASE + other);
    assert_int_equal(st->writes, writes + 2);

    /* Unbind: i915 points the PD entry back at the scratch PT (gen8_ppgtt_clear()); the PT is
     * freed and its page released to the guest. */
    uint64_t pd = gen9_ppgtt_entry_addr(
        px_rd64(x, gen9_ppgtt_entry_addr(
                       px_rd64(x, pml4 + 8u * gen9_ppgtt_index(0x7FFF00000000ull, 3))) +
                       8u * gen9_ppgtt_index(0x7FFF00000000ull, 2)));
    unsigned frees = (unsigned)st->frees;
    px_store64(x, pd + 8u * gen9_ppgtt_index(0x7FFF00000000ull, 1), PX_PDE(x->scratch_pt));
    assert_int_equal(st->frees, frees + 1);
    assert_false(vgt_ppgtt_is_table(x->p, pt));
    assert_false(x->protected_[pt / 4096u]);
    assert_int_equal(xlate(x, pml4, 0x7FFF00000000ull, false, &rc, &why),
                     PX_HPA_BASE + x->scratch_page);
    /* Writing the same entry again keeps the table: no rebuild. */
    unsigned builds = (unsigned)st->builds;
    px_store64(x, pd + 8u * gen9_ppgtt_index(0x7FFF00000000ull, 1), PX_PDE(x->scratch_pt));
    assert_int_equal(st->builds, builds);
    check_shadow(x, shadow, 3);
    /* A write notice for a page that is no table. */
    assert_int_equal(vgt_ppgtt_guest_write(x->p, pt, 8), VGT_PPGTT_E_NOT_TABLE);
    assert_int_equal(vgt_ppgtt_guest_write(x->p, pd + 4090, 8), VGT_PPGTT_E_INVAL);
}

/* The hostile guest: entries outside its RAM, huge pages, its own tables mapped as data, a
 * page at two levels; each refused (shadowed to scratch), counted by reason, and seen as such
 * by translation. */
static void test_refusals(void **state)
{
    struct px *x = *state;
    uint64_t pml4 = px_pml4(x), shadow, hpa;
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(x->p);
    enum vgt_ppgtt_refusal why;
    int rc;

    assert_int_equal(vgt_ppgtt_root_create(x->p, pml4, &shadow, NULL), VGT_PPGTT_OK);
    uint64_t pt = px_bind(x, pml4, 0x10000, PX_PTE(px_page(x)));

    /* A PTE at another guest's memory (or the host's). */
    px_store64(x, pt + 8 * 17, PX_PTE(PX_RAM_BYTES + 0x5000));
    xlate(x, pml4, 0x11000, false, &rc, &why);
    assert_int_equal(rc, VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_OUTSIDE_RAM);
    assert_int_equal(st->refused[VGT_PPGTT_R_OUTSIDE_RAM], 1);
    assert_int_equal(px_host(x, shadow) != NULL, 1);
    /* Reported with the table and entry, for the log. */
    assert_int_equal(x->reported, 1);
    assert_int_equal(x->last.why, VGT_PPGTT_R_OUTSIDE_RAM);
    assert_int_equal(x->last.table_gpa, pt);
    assert_int_equal(x->last.level, 0);
    assert_int_equal(x->last.index, 17);
    assert_int_equal(x->last.entry, PX_PTE(PX_RAM_BYTES + 0x5000));

    /* A PTE mapping one of its page-table pages (its PML4) as data. */
    px_store64(x, pt + 8 * 18, PX_PTE(pml4));
    xlate(x, pml4, 0x12000, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_TABLE_AS_DATA);

    /* A PD entry with the 2 MiB page bit; a PD entry at the PML4's page (a page at two
     * levels); a PD entry outside RAM. */
    uint64_t pd = gen9_ppgtt_entry_addr(px_rd64(x, gen9_ppgtt_entry_addr(px_rd64(x, pml4)) + 0));
    px_store64(x, pd + 8 * 5, PX_PDE(px_page(x)) | GEN9_PPGTT_PDE_PS);
    xlate(x, pml4, 5ull << 21, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_HUGE_PAGE);
    px_store64(x, pd + 8 * 6, PX_PDE(pml4));
    xlate(x, pml4, 6ull << 21, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_LEVEL_MIX);
    px_store64(x, pd + 8 * 7, PX_PDE(PX_RAM_BYTES));
    xlate(x, pml4, 7ull << 21, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_OUTSIDE_RAM);
    px_store64(x, pd + 8 * 8, PX_PDE(px_page(x)) | GEN9_PPGTT_PDE_IPS_64K);
    xlate(x, pml4, 8ull << 21, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_HUGE_PAGE);
    check_shadow(x, shadow, 3);

    /* Its GPU writing to a page that became a table after it was mapped as data. */
    uint64_t data = px_page(x);
    px_store64(x, pt + 8 * 19, PX_PTE(data));
    assert_int_equal(vgt_ppgtt_translate(x->p, pml4, 0x13000, true, &hpa, NULL, &why),
                     VGT_PPGTT_OK);
    px_fill(x, data, PX_PDE(x->scratch_pt)); /* make it a valid PD, then point at it */
    px_store64(x, gen9_ppgtt_entry_addr(px_rd64(x, pml4)) + 8 * 3, PX_PDE(data));
    assert_true(vgt_ppgtt_is_table(x->p, data));
    assert_int_equal(vgt_ppgtt_translate(x->p, pml4, 0x13000, false, &hpa, NULL, &why),
                     VGT_PPGTT_OK); /* reading it is harmless */
    assert_int_equal(vgt_ppgtt_translate(x->p, pml4, 0x13000, true, &hpa, NULL, &why),
                     VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_TABLE_AS_DATA);
    assert_int_equal(x->last.why, VGT_PPGTT_R_TABLE_AS_DATA); /* a translation: no table */
    assert_int_equal(x->last.table_gpa, VGT_PPGTT_NO_TABLE);
    assert_int_equal(x->last.entry, 0x13000);

    /* Roots: outside RAM, unannounced (a context with a foreign page directory), misaligned. */
    assert_int_equal(vgt_ppgtt_root_create(x->p, PX_RAM_BYTES + 4096, NULL, &why),
                     VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_OUTSIDE_RAM);
    assert_int_equal(vgt_ppgtt_root_find(x->p, px_page(x), &hpa), VGT_PPGTT_E_REFUSED);
    assert_int_equal(st->refused[VGT_PPGTT_R_UNKNOWN_ROOT], 1);
    assert_int_equal(x->last.table_gpa, VGT_PPGTT_NO_TABLE);
    assert_int_equal(vgt_ppgtt_root_create(x->p, pml4 + 8, NULL, &why), VGT_PPGTT_E_INVAL);
    assert_int_equal(vgt_ppgtt_root_create(x->p, pt, NULL, &why), VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_LEVEL_MIX); /* a PT announced as a PML4 */
    xlate(x, px_page(x), 0, false, &rc, &why);
    assert_int_equal(why, VGT_PPGTT_R_UNKNOWN_ROOT);
    assert_string_equal(vgt_ppgtt_refusal_name(VGT_PPGTT_R_TABLE_AS_DATA),
                        "page-table page used as data");
    assert_string_equal(vgt_ppgtt_refusal_name(VGT_PPGTT_R_COUNT), "invalid refusal");
}

/* Out of sync (the pages given back, the writes not seen one by one): in one period i915
 * unlinks a page table from one page directory and reuses its page as a buffer object that
 * a new page table under another directory maps.  The resync lets go of the unlinked table
 * before it checks the new leaf, whatever the order of the pages: nothing is refused. */
static void test_resync_releases_before_it_maps(void **state)
{
    struct px *x = *state;
    uint64_t pml4 = px_pml4(x);
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(x->p);

    assert_int_equal(vgt_ppgtt_root_create(x->p, pml4, NULL, NULL), VGT_PPGTT_OK);
    /* Two page directories (1 GiB apart), the second with a page table `old`. */
    uint64_t pt1 = px_bind(x, pml4, 0x10000, PX_PTE(px_page(x)));
    uint64_t old = px_bind(x, pml4, 1ull << 30, PX_PTE(px_page(x)));
    uint64_t pdp = gen9_ppgtt_entry_addr(px_rd64(x, pml4));
    uint64_t pd1 = gen9_ppgtt_entry_addr(px_rd64(x, pdp + 8 * 0));
    uint64_t pd2 = gen9_ppgtt_entry_addr(px_rd64(x, pdp + 8 * 1));
    assert_true(vgt_ppgtt_is_table(x->p, old) && pt1 != old);

    /* Behind the shadow's back: a new page table under pd1 maps `old` as data, then pd2
     * unlinks `old`.  pd1 comes first in the list, as the exits happened. */
    uint64_t fresh = px_page(x);
    px_fill(x, fresh, PX_PTE_RO(x->scratch_page));
    uint64_t leaf = PX_PTE(old);
    memcpy(&x->ram[fresh + 8 * 3], &leaf, 8);
    uint64_t pde = PX_PDE(fresh), unlink = PX_PDE(x->scratch_pt);
    memcpy(&x->ram[pd1 + 8 * 1], &pde, 8);
    memcpy(&x->ram[pd2 + 8 * 0], &unlink, 8);
    uint64_t pages[2] = { pd1, pd2 };
    vgt_ppgtt_resync(x->p, pages, 2);

    assert_int_equal(st->refused[VGT_PPGTT_R_TABLE_AS_DATA], 0);
    assert_int_equal(x->reported, 0);
    assert_false(vgt_ppgtt_is_table(x->p, old));
    assert_true(vgt_ppgtt_is_table(x->p, fresh));
    uint64_t hpa;
    assert_int_equal(vgt_ppgtt_translate(x->p, pml4, (1ull << 21) + 3 * 4096 + 8, true, &hpa, NULL,
                                         NULL),
                     VGT_PPGTT_OK);
    assert_int_equal(hpa, PX_HPA_BASE + old + 8);
    /* The unlinked directory entry reads scratch again; a refused entry is checked again. */
    enum vgt_ppgtt_refusal why;
    int rc;
    xlate(x, pml4, 1ull << 30, false, &rc, &why);
    assert_int_equal(rc, VGT_PPGTT_OK);
    uint64_t bad = PX_PTE(PX_RAM_BYTES);
    memcpy(&x->ram[fresh + 8 * 4], &bad, 8);
    vgt_ppgtt_resync(x->p, &fresh, 1);
    assert_int_equal(st->refused[VGT_PPGTT_R_OUTSIDE_RAM], 1);
    bad = PX_PTE(px_page(x));
    memcpy(&x->ram[fresh + 8 * 4], &bad, 8);
    vgt_ppgtt_resync(x->p, &fresh, 1);
    xlate(x, pml4, (1ull << 21) + 4 * 4096, true, &rc, &why);
    assert_int_equal(rc, VGT_PPGTT_OK);
    check_shadow(x, vgt_ppgtt_root_find(x->p, pml4, &hpa) == VGT_PPGTT_OK ? hpa : 0, 3);
}

/* i915 clones the scratch tables of the GT's VM into every new PPGTT (gen8_init_scratch() with
 * has_read_only): a second PPGTT shares their shadows; destroying one keeps the other whole. */
static void test_two_ppgtts_and_lifetime(void **state)
{
    struct px *x = *state;
    uint64_t a = px_pml4(x), b = px_pml4(x), sa, sb, hpa;
    const struct vgt_ppgtt_stats *st = vgt_ppgtt_stats(x->p);
    enum vgt_ppgtt_refusal why;

    assert_int_equal(vgt_ppgtt_root_create(x->p, a, &sa, NULL), VGT_PPGTT_OK);
    px_bind(x, a, 0x200000, PX_PTE(px_page(x)));
    assert_int_equal(vgt_ppgtt_root_create(x->p, b, &sb, NULL), VGT_PPGTT_OK);
    assert_int_equal(st->tables, 4 + 3 + 1); /* b added only its PML4 */
    assert_int_equal(st->roots, 2);
    assert_true(sa != sb);
    /* Announced twice (a reference), destroyed once: still there. */
    assert_int_equal(vgt_ppgtt_root_create(x->p, a, NULL, NULL), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_destroy(x->p, a), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_find(x->p, a, &hpa), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_destroy(x->p, a), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_find(x->p, a, &hpa), VGT_PPGTT_E_REFUSED);
    assert_int_equal(st->tables, 4); /* b's PML4 and the shared scratch tables */
    assert_false(x->protected_[a / 4096u]);
    assert_int_equal(vgt_ppgtt_translate(x->p, b, 0x200000, false, &hpa, NULL, &why), VGT_PPGTT_OK);
    assert_int_equal(hpa, PX_HPA_BASE + x->scratch_page);
    assert_int_equal(vgt_ppgtt_root_destroy(x->p, a), VGT_PPGTT_E_INVAL);
    check_shadow(x, sb, 3);
}

/* Limits: a vGPU may have so many PPGTTs and shadow so many tables; an unreadable table is
 * refused.  (The fixture has one EPT, so only one shadow may track pages at a time.) */
static void test_limits(void **state)
{
    struct px *x = *state;
    struct vgt_ppgtt *big = x->p, *small;
    struct vgt_ppgtt_config c = px_config(x, 0);
    enum vgt_ppgtt_refusal why;
    uint64_t pml4 = px_pml4(x), other = px_pml4(x), hpa;

    c.max_roots = 1;
    assert_int_equal(vgt_ppgtt_create(&c, &small), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_create(small, pml4, NULL, NULL), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_root_create(small, other, NULL, &why), VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_ROOT_LIMIT);
    vgt_ppgtt_destroy(small);

    c = px_config(x, 6);
    assert_int_equal(vgt_ppgtt_create(&c, &small), VGT_PPGTT_OK);
    x->p = small;
    assert_int_equal(vgt_ppgtt_root_create(small, pml4, NULL, NULL), VGT_PPGTT_OK);
    px_bind(x, pml4, 0, PX_PTE(px_page(x))); /* PDP and PD fit, the PT does not */
    assert_int_equal(vgt_ppgtt_stats(small)->tables, 6);
    assert_int_equal(vgt_ppgtt_translate(small, pml4, 0, false, &hpa, NULL, &why),
                     VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_TABLE_LIMIT);
    assert_int_equal(vgt_ppgtt_stats(small)->refused[VGT_PPGTT_R_TABLE_LIMIT], 1);
    vgt_ppgtt_destroy(small);
    x->p = big;

    /* An unreadable table page. */
    uint64_t p2 = px_pml4(x), fresh = px_page(x);
    px_fill(x, fresh, PX_PDE(x->scratch_pd));
    px_store64(x, p2 + 8, PX_PDE(fresh));
    x->fail_read_page = (unsigned)(fresh / 4096u);
    assert_int_equal(vgt_ppgtt_root_create(big, p2, NULL, NULL), VGT_PPGTT_OK);
    assert_int_equal(vgt_ppgtt_translate(big, p2, 1ull << 39, false, &hpa, NULL, &why),
                     VGT_PPGTT_E_REFUSED);
    assert_int_equal(why, VGT_PPGTT_R_READ_FAULT);
    x->fail_read_page = 0;

    /* Bad configurations. */
    c = px_config(x, 0);
    c.scratch_hpa = 0x123;
    assert_int_equal(vgt_ppgtt_create(&c, &small), VGT_PPGTT_E_INVAL);
    c = px_config(x, 0);
    c.ops.protect = NULL;
    assert_int_equal(vgt_ppgtt_create(&c, &small), VGT_PPGTT_E_INVAL);
    vgt_ppgtt_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fresh_ppgtt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bind_remap_unbind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resync_releases_before_it_maps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_ppgtts_and_lifetime, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
