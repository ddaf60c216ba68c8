/* The physical page allocator (arch/x86/page_alloc.c) on host-allocated bitmaps: which pages
 * init makes free, that allocations stay inside usable memory and outside reserved ranges,
 * alignment, contiguous runs, exhaustion, every refusal of page_free, phys_find_free, and a long
 * randomized run checked against a shadow model.  Bitmaps are exactly sized heap blocks, so
 * AddressSanitizer catches any access past them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/page_alloc.h"

#define KiB  (1ULL << 10)
#define MiB  (1ULL << 20)
#define GiB  (1ULL << 30)
#define PG   PAGE_SIZE
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* ---- fixture ------------------------------------------------------------------------------ */

static struct page_alloc pa;
static uint64_t *bm;
static size_t bm_bytes;
static const struct phys_range *cur_u, *cur_r;
static unsigned cur_nu, cur_nr;

/* Builds an allocator over `u` minus `r` with an exactly sized bitmap. */
static void make(const struct phys_range *u, unsigned nu, const struct phys_range *r, unsigned nr)
{
    free(bm);
    bm_bytes = page_alloc_bitmap_bytes(u, nu);
    bm = malloc(bm_bytes ? bm_bytes : 1);
    assert_non_null(bm);
    page_alloc_init(&pa, bm, u, nu, r, nr);
    cur_u = u, cur_nu = nu, cur_r = r, cur_nr = nr;
}

static int teardown(void **state)
{
    (void)state;
    free(bm);
    bm = NULL;
    return 0;
}

/* The model: a page may be handed out iff it lies wholly inside one usable range and shares no
 * byte with any (non-empty) reserved range. */
static bool model_usable(uint64_t page)
{
    bool in = false;
    for (unsigned i = 0; i < cur_nu; i++)
        if (cur_u[i].base <= page && page + PG <= cur_u[i].end)
            in = true;
    if (!in)
        return false;
    for (unsigned i = 0; i < cur_nr; i++)
        if (cur_r[i].base < cur_r[i].end && page < cur_r[i].end && cur_r[i].base < page + PG)
            return false;
    return true;
}

static uint64_t model_count(uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t a = lo; a < hi; a += PG)
        n += model_usable(a);
    return n;
}

/* Page index inside the allocator's span. */
static uint64_t idx_of(uint64_t phys)
{
    return (phys >> PAGE_SHIFT) - pa.first_pfn;
}
static uint64_t phys_of(uint64_t idx)
{
    return (pa.first_pfn + idx) << PAGE_SHIFT;
}

/* ---- the standard layout: two usable ranges cut by reservations of every shape ------------ */

static const struct phys_range std_usable[] = {
    { 1 * MiB, 64 * MiB },
    { 4 * GiB, 4 * GiB + 16 * MiB },
};
static const struct phys_range std_reserved[] = {
    { 0, 512 * KiB },             /* below usable memory: no effect */
    { 2 * MiB, 3 * MiB + 100 },   /* the image, unaligned end: 257 pages */
    { 8 * MiB, 8 * MiB + 12345 }, /* two adjacent modules, unaligned seam: 256 pages */
    { 8 * MiB + 12345, 9 * MiB },
    { 10 * MiB + 10, 11 * MiB },          /* unaligned base: 256 pages */
    { 20 * MiB + 4095, 20 * MiB + 4097 }, /* 2 bytes straddling two pages: 2 pages */
    { 30 * MiB, 32 * MiB },               /* three overlapping ranges: 768 pages */
    { 31 * MiB, 31 * MiB + 4 * KiB },
    { 31 * MiB, 33 * MiB },
    { 63 * MiB + 1, 70 * MiB },               /* over the top edge of the first range: 256 */
    { 4 * GiB - 8 * KiB, 4 * GiB + 8 * KiB }, /* over the bottom edge of the second: 2 */
};
/* (63 MiB / 4 KiB - 257 - 256 - 256 - 2 - 768 - 256) + (16 MiB / 4 KiB - 2), by hand. */
#define STD_FREE_PAGES (16128 - 1795 + 4094)

static void make_std(void)
{
    make(std_usable, N(std_usable), std_reserved, N(std_reserved));
}

/* ---- bitmap size and init ----------------------------------------------------------------- */

/* One bit per page from the lowest to the highest whole usable page, in whole 64-bit words. */
static void test_bitmap_bytes(void **state)
{
    (void)state;
    /* Two bitmaps of one bit per frame each ("not available" and "allocated"). */
    const struct phys_range one[] = { { 1 * MiB, 64 * MiB } };
    assert_int_equal(page_alloc_bitmap_bytes(one, 1), 2 * (16128 / 64 * 8));
    assert_int_equal(page_alloc_bitmap_bytes(std_usable, 2),
                     2 * ((4 * GiB + 16 * MiB - 1 * MiB) / PG / 8));
    const struct phys_range odd[] = { { 1 * MiB + 1, 2 * MiB - 1 } }; /* 254 whole pages */
    assert_int_equal(page_alloc_bitmap_bytes(odd, 1), 2 * (4 * 8));
    const struct phys_range tiny[] = { { 1 * MiB + 1, 1 * MiB + 4095 } };
    assert_int_equal(page_alloc_bitmap_bytes(tiny, 1), 0);
    assert_int_equal(page_alloc_bitmap_bytes(NULL, 0), 0);
}

/* The free page count after init is exact: the hand count, and the model's. */
static void test_init_free_count(void **state)
{
    (void)state;
    make_std();
    assert_int_equal(pa.free_pages, STD_FREE_PAGES);
    assert_int_equal(pa.usable_pages, STD_FREE_PAGES);
    assert_int_equal(model_count(0, 4 * GiB + 32 * MiB), STD_FREE_PAGES);
}

/* Every page, usable or not, is free after init exactly when the model says it may be handed
 * out: reserved edges are rounded outwards, usable edges inwards. */
static void test_init_page_states(void **state)
{
    (void)state;
    make_std();
    for (uint64_t a = 0; a < 4 * GiB + 32 * MiB; a += PG)
        if (page_is_free(&pa, a) != model_usable(a))
            fail_msg("page 0x%llx: free %d, model %d", (unsigned long long)a, page_is_free(&pa, a),
                     model_usable(a));
    assert_false(page_is_free(&pa, UINT64_MAX));
    assert_true(page_is_free(&pa, 1 * MiB + 123)); /* any address inside a free page */
}

/* Overlapping and repeated usable ranges count each page once. */
static void test_overlapping_usable_once(void **state)
{
    (void)state;
    const struct phys_range u[] = {
        { 5 * MiB, 20 * MiB },
        { 1 * MiB, 10 * MiB },
        { 1 * MiB, 2 * MiB },
        { 19 * MiB + 7, 20 * MiB },
    };
    make(u, N(u), NULL, 0);
    assert_int_equal(pa.free_pages, 19 * MiB / PG);
    assert_int_equal(pa.usable_pages, 19 * MiB / PG);
    uint64_t n = 0;
    while (page_alloc(&pa, 1, 1))
        n++;
    assert_int_equal(n, 19 * MiB / PG);
    assert_int_equal(pa.free_pages, 0);
}

/* No usable memory, usable ranges smaller than a page, or everything reserved: nothing free. */
static void test_degenerate_layouts(void **state)
{
    (void)state;
    make(NULL, 0, NULL, 0);
    assert_int_equal(pa.free_pages, 0);
    assert_int_equal(page_alloc(&pa, 1, 1), 0);

    const struct phys_range tiny[] = { { 1 * MiB + 1, 1 * MiB + 4095 }, { 3 * MiB, 3 * MiB } };
    make(tiny, N(tiny), NULL, 0);
    assert_int_equal(pa.free_pages, 0);
    assert_int_equal(page_alloc(&pa, 1, 1), 0);

    const struct phys_range u[] = { { 1 * MiB, 2 * MiB } };
    const struct phys_range all[] = { { 0, 1 * GiB } };
    make(u, 1, all, 1);
    assert_int_equal(pa.free_pages, 0);
    assert_int_equal(page_alloc(&pa, 1, 1), 0);
}

/* An empty reserved range [x, x) reserves nothing, even at an address inside a page. */
static void test_empty_reserved_range(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 2 * MiB } };
    const struct phys_range aligned[] = { { 1 * MiB + 64 * KiB, 1 * MiB + 64 * KiB } };
    make(u, 1, aligned, 1);
    assert_int_equal(pa.free_pages, 256);
    const struct phys_range inside[] = { { 1 * MiB + 64 * KiB + 100, 1 * MiB + 64 * KiB + 100 } };
    make(u, 1, inside, 1);
    assert_int_equal(pa.free_pages, 256);
}

/* ---- allocation --------------------------------------------------------------------------- */

/* Allocating every page one at a time hands each free page out exactly once, never a reserved
 * one or one outside usable memory; then the allocator is exhausted. */
static void test_alloc_every_page_once(void **state)
{
    (void)state;
    make_std();
    uint8_t *seen = calloc(pa.n_frames, 1);
    assert_non_null(seen);
    for (uint64_t k = 0; k < STD_FREE_PAGES; k++) {
        uint64_t a = page_alloc(&pa, 1, 1);
        if (!a || a % PG || !model_usable(a) || seen[idx_of(a)])
            fail_msg("allocation %llu gave 0x%llx", (unsigned long long)k, (unsigned long long)a);
        seen[idx_of(a)] = 1;
        assert_false(page_is_free(&pa, a));
    }
    assert_int_equal(pa.free_pages, 0);
    assert_int_equal(page_alloc(&pa, 1, 1), 0);
    assert_int_equal(page_alloc(&pa, 2, 1), 0);
    for (uint64_t i = 0; i < pa.n_frames; i++)
        assert_false(page_is_free(&pa, phys_of(i)));
    free(seen);
}

/* Alignment is of physical addresses (the span starts at 1 MiB, not 2 MiB-aligned). */
static void test_alloc_alignment(void **state)
{
    (void)state;
    make_std();
    assert_int_equal(page_alloc(&pa, 1, 1), 1 * MiB); /* leaves 1 MiB + 4 KiB: misaligned */
    for (uint64_t align = 2; align <= 1024; align *= 2) {
        uint64_t before = pa.free_pages;
        uint64_t a = page_alloc(&pa, 3, align);
        if (!a || a % (align * PG))
            fail_msg("align %llu pages gave 0x%llx", (unsigned long long)align,
                     (unsigned long long)a);
        for (uint64_t k = 0; k < 3; k++) {
            assert_true(model_usable(a + k * PG));
            assert_false(page_is_free(&pa, a + k * PG));
        }
        assert_int_equal(pa.free_pages, before - 3);
    }
    uint64_t a = page_alloc(&pa, 512, 512);
    assert_int_not_equal(a, 0);
    assert_int_equal(a % (2 * MiB), 0);
    for (uint64_t k = 0; k < 512; k++)
        assert_true(model_usable(a + k * PG));
    /* 1 GiB-aligned: only 4 GiB qualifies, and its first pages are reserved. */
    assert_int_equal(page_alloc(&pa, 1, 1ULL << 18), 0);
}

/* A run of pages is returned only where all of them are free and contiguous; a request that
 * no hole can hold fails even when enough pages are free in total, and changes nothing. */
static void test_alloc_contiguous(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 2 * MiB }, { 2 * MiB + 4 * KiB, 3 * MiB } };
    const struct phys_range r[] = { { 1 * MiB + 512 * KiB, 1 * MiB + 516 * KiB } };
    make(u, N(u), r, N(r));
    assert_int_equal(pa.free_pages, 255 + 255); /* holes of 128, 127 and 255 pages */
    uint64_t *copy = malloc(bm_bytes);
    assert_non_null(copy);
    memcpy(copy, bm, bm_bytes);
    assert_int_equal(page_alloc(&pa, 256, 1), 0); /* would span the missing page at 2 MiB */
    assert_int_equal(pa.free_pages, 510);
    assert_memory_equal(copy, bm, bm_bytes);
    free(copy);

    assert_int_equal(page_alloc(&pa, 255, 1), 2 * MiB + 4 * KiB);
    assert_int_equal(page_alloc(&pa, 128, 1), 1 * MiB);
    uint64_t a = page_alloc(&pa, 100, 1);
    assert_int_equal(a, 1 * MiB + 516 * KiB);
    for (uint64_t k = 0; k < 100; k++)
        assert_false(page_is_free(&pa, a + k * PG));
    assert_true(page_is_free(&pa, a + 100 * PG));
    assert_int_equal(page_alloc(&pa, 28, 1), 0); /* 27 pages are left */
    assert_int_equal(page_alloc(&pa, 27, 1), a + 100 * PG);
    assert_int_equal(pa.free_pages, 0);
}

/* Zero pages, zero or non-power-of-two alignment, or more pages than are free: refused, and
 * nothing changes. */
static void test_alloc_bad_arguments(void **state)
{
    (void)state;
    make_std();
    uint64_t *copy = malloc(bm_bytes);
    assert_non_null(copy);
    memcpy(copy, bm, bm_bytes);
    assert_int_equal(page_alloc(&pa, 0, 1), 0);
    assert_int_equal(page_alloc(&pa, 1, 0), 0);
    assert_int_equal(page_alloc(&pa, 1, 3), 0);
    assert_int_equal(page_alloc(&pa, 1, 6), 0);
    assert_int_equal(page_alloc(&pa, 1, UINT64_MAX), 0);
    assert_int_equal(page_alloc(&pa, STD_FREE_PAGES + 1, 1), 0);
    assert_int_equal(page_alloc(&pa, UINT64_MAX, 1), 0);
    assert_int_equal(pa.free_pages, STD_FREE_PAGES);
    assert_memory_equal(copy, bm, bm_bytes);
    free(copy);
}

/* ---- freeing ------------------------------------------------------------------------------ */

/* Each bad page_free returns false and leaves the bitmap and the count exactly as they were:
 * unaligned, below or above the span, a count past its end, a page never allocated, a double
 * free, and a run only partly allocated. */
static void test_free_refusals(void **state)
{
    (void)state;
    make_std();
    uint64_t w = page_alloc(&pa, 1, 1);
    uint64_t a = page_alloc(&pa, 4, 1);
    assert_int_equal(a, w + PG);
    assert_true(page_free(&pa, w, 1)); /* a-1 free, a..a+2 allocated, a+3 free */
    assert_true(page_free(&pa, a + 3 * PG, 1));
    uint64_t *copy = malloc(bm_bytes);
    assert_non_null(copy);
    memcpy(copy, bm, bm_bytes);
    uint64_t free_before = pa.free_pages;

    assert_false(page_free(&pa, a + 1, 1)); /* unaligned */
    assert_false(page_free(&pa, a + PG / 2, 1));
    assert_false(page_free(&pa, 0, 1));                  /* below the span */
    assert_false(page_free(&pa, 1 * MiB - PG, 2));       /* starts just below it */
    assert_false(page_free(&pa, 4 * GiB + 16 * MiB, 1)); /* just past it */
    assert_false(page_free(&pa, 8 * GiB, 1));
    assert_false(page_free(&pa, UINT64_MAX & ~(PG - 1), 1));
    assert_false(page_free(&pa, a, UINT64_MAX)); /* count past the end */
    assert_false(page_free(&pa, a, pa.n_frames));
    assert_false(page_free(&pa, 40 * MiB, 1));   /* free, never allocated */
    assert_false(page_free(&pa, a + 3 * PG, 1)); /* double free */
    assert_false(page_free(&pa, a, 4));          /* last page of the run is free */
    assert_false(page_free(&pa, a - PG, 2));     /* its first page is free */

    assert_int_equal(pa.free_pages, free_before);
    assert_memory_equal(copy, bm, bm_bytes);
    assert_true(page_free(&pa, a, 3));
    assert_int_equal(pa.free_pages, STD_FREE_PAGES);
    free(copy);
}

/* Pages that were never free (reserved: the image, a module; or holes between usable ranges)
 * are not "allocated" either: freeing them is refused and must not make them allocatable. */
static void test_free_reserved_or_hole_refused(void **state)
{
    (void)state;
    make_std();
    const uint64_t never[] = {
        2 * MiB,           /* the image */
        8 * MiB + 8 * KiB, /* a module */
        63 * MiB,          /* reserved over the usable edge */
        1 * GiB,           /* the hole between the usable ranges */
        4 * GiB - 4 * KiB,
    };
    char bad[512] = "";
    for (unsigned i = 0; i < N(never); i++) {
        uint64_t before = pa.free_pages;
        bool ok = page_free(&pa, never[i], 1);
        if (ok || page_is_free(&pa, never[i]) || pa.free_pages != before)
            snprintf(bad + strlen(bad), sizeof bad - strlen(bad),
                     " page_free(0x%llx, 1) -> %d, page free now %d, free pages %+lld;",
                     (unsigned long long)never[i], ok, page_is_free(&pa, never[i]),
                     (long long)(pa.free_pages - before));
    }
    if (bad[0])
        fail_msg("want false and no change:%s", bad);
}

/* Freed pages come back: with memory otherwise full, the only run that fits is the one just
 * freed; and after freeing everything the whole of memory is allocatable again. */
static void test_free_then_realloc(void **state)
{
    (void)state;
    make_std();
    uint64_t a = page_alloc(&pa, 1000, 1);
    assert_int_not_equal(a, 0);
    uint64_t rest = pa.free_pages;
    while (page_alloc(&pa, 1, 1))
        ;
    assert_int_equal(pa.free_pages, 0);

    uint64_t hole = a + 500 * PG;
    assert_true(page_free(&pa, hole, 10));
    assert_int_equal(pa.free_pages, 10);
    assert_int_equal(page_alloc(&pa, 11, 1), 0);
    assert_int_equal(page_alloc(&pa, 10, 1), hole);
    assert_int_equal(pa.free_pages, 0);
    assert_true(page_free(&pa, hole + 3 * PG, 1));
    assert_int_equal(page_alloc(&pa, 1, 1), hole + 3 * PG);

    /* Free everything (the 1000-run, then every other page one by one). */
    assert_true(page_free(&pa, a, 1000));
    for (uint64_t i = 0; i < pa.n_frames; i++) {
        uint64_t p = phys_of(i);
        if (model_usable(p) && !(p >= a && p < a + 1000 * PG))
            assert_true(page_free(&pa, p, 1));
    }
    assert_int_equal(pa.free_pages, 1000 + rest);
    assert_int_equal(pa.free_pages, STD_FREE_PAGES);
    /* The longest free run, [33 MiB, 63 MiB), is whole again; then every other page. */
    assert_int_equal(page_alloc(&pa, 30 * MiB / PG, 1), 33 * MiB);
    uint64_t n = 0;
    while (page_alloc(&pa, 1, 1))
        n++;
    assert_int_equal(n, STD_FREE_PAGES - 30 * MiB / PG);
}

/* ---- phys_find_free ----------------------------------------------------------------------- */

/* Checks a phys_find_free answer: page aligned, inside one usable range, clear of every
 * reserved range, at or above min_addr. */
static void assert_valid_place(const struct phys_range *u, unsigned nu, const struct phys_range *r,
                               unsigned nr, uint64_t at, uint64_t bytes, uint64_t min_addr)
{
    uint64_t len = (bytes + PG - 1) & ~(PG - 1);
    assert_int_equal(at % PG, 0);
    assert_true(at >= min_addr);
    bool inside = false;
    for (unsigned i = 0; i < nu; i++)
        if (u[i].base <= at && at + len <= u[i].end)
            inside = true;
    assert_true(inside);
    for (unsigned i = 0; i < nr; i++)
        assert_false(at < r[i].end && r[i].base < at + len);
}

/* The first fitting place, skipping reserved ranges, rounding sizes up to whole pages. */
static void test_find_free_basic(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 64 * MiB } };
    const struct phys_range r[] = { { 1 * MiB, 3 * MiB + 5 },
                                    { 3 * MiB + 8 * KiB, 3 * MiB + 9 * KiB } };
    uint64_t at = 0;
    assert_true(phys_find_free(u, 1, r, 2, 4 * KiB, 0, &at));
    assert_int_equal(at, 3 * MiB + 4 * KiB); /* the single page between them */
    assert_true(phys_find_free(u, 1, r, 2, 4 * KiB + 1, 0, &at));
    assert_int_equal(at, 3 * MiB + 12 * KiB); /* two pages do not fit there */
    assert_valid_place(u, 1, r, 2, at, 4 * KiB + 1, 0);
    assert_true(phys_find_free(u, 1, NULL, 0, 100, 0, &at));
    assert_int_equal(at, 1 * MiB);
    assert_true(phys_find_free(u, 1, NULL, 0, 63 * MiB, 0, &at)); /* exactly all of it */
    assert_int_equal(at, 1 * MiB);
}

/* min_addr is honoured (rounded up to a page); above all memory there is no place. */
static void test_find_free_min_addr(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 64 * MiB }, { 4 * GiB, 4 * GiB + 16 * MiB } };
    const struct phys_range r[] = { { 10 * MiB, 12 * MiB } };
    uint64_t at = 0;
    assert_true(phys_find_free(u, 2, r, 1, 8 * KiB, 5 * MiB + 1, &at));
    assert_int_equal(at, 5 * MiB + 4 * KiB);
    assert_true(phys_find_free(u, 2, r, 1, 8 * KiB, 10 * MiB, &at));
    assert_int_equal(at, 12 * MiB);
    assert_true(
        phys_find_free(u, 2, r, 1, 1 * MiB, 63 * MiB + 1, &at)); /* does not fit: next range */
    assert_int_equal(at, 4 * GiB);
    assert_valid_place(u, 2, r, 1, at, 1 * MiB, 63 * MiB + 1);
    assert_false(phys_find_free(u, 2, r, 1, 4 * KiB, 4 * GiB + 16 * MiB, &at));
    assert_false(phys_find_free(u, 2, r, 1, 4 * KiB, 1ULL << 63, &at));
}

/* When no usable range has a big enough gap between reservations, the answer is false. */
static void test_find_free_nothing_fits(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 2 * MiB }, { 3 * MiB, 3 * MiB + 12 * KiB } };
    const struct phys_range r[] = { { 1 * MiB, 1 * MiB + 512 * KiB },
                                    { 1 * MiB + 520 * KiB, 2 * MiB } };
    uint64_t at = 0;
    assert_true(phys_find_free(u, 2, r, 2, 8 * KiB, 0, &at));
    assert_int_equal(at, 1 * MiB + 512 * KiB);
    assert_true(phys_find_free(u, 2, r, 2, 12 * KiB, 0, &at));
    assert_int_equal(at, 3 * MiB);
    assert_false(phys_find_free(u, 2, r, 2, 16 * KiB, 0, &at));
    assert_false(phys_find_free(u, 2, r, 2, 1 * GiB, 0, &at));
    assert_false(phys_find_free(NULL, 0, NULL, 0, 4 * KiB, 0, &at));
}

/* Sizes and minimum addresses near 2^64 cannot fit anywhere: rounding them up to whole pages
 * must not wrap them to zero. */
static void test_find_free_no_wrap(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 64 * MiB } };
    const struct {
        uint64_t bytes, min_addr;
    } cases[] = {
        { UINT64_MAX, 0 },           { UINT64_MAX - 100, 0 },          { UINT64_MAX - 2 * PG, 0 },
        { 4 * KiB, UINT64_MAX - 5 }, { 4 * KiB, UINT64_MAX - PG + 2 },
    };
    char bad[512] = "";
    for (unsigned i = 0; i < N(cases); i++) {
        uint64_t at = 12345;
        if (phys_find_free(u, 1, NULL, 0, cases[i].bytes, cases[i].min_addr, &at))
            snprintf(bad + strlen(bad), sizeof bad - strlen(bad),
                     " bytes 0x%llx min 0x%llx -> found 0x%llx;",
                     (unsigned long long)cases[i].bytes, (unsigned long long)cases[i].min_addr,
                     (unsigned long long)at);
    }
    if (bad[0])
        fail_msg("want false:%s", bad);
}

/* ---- randomized run against a shadow model ------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    /* xorshift64*: fixed seed, so a failure reproduces. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

struct held {
    uint64_t addr, count;
};

/* Thousands of random allocations (sizes 1..64, alignments 1..512) and frees (whole runs,
 * prefixes of runs, and bogus frees of free pages), with the allocator's count checked after
 * every step, its page states against the shadow every few hundred, and every failed
 * allocation checked to be a real lack of a fitting aligned run. */
static void test_randomized(void **state)
{
    (void)state;
    const struct phys_range u[] = { { 1 * MiB, 9 * MiB },
                                    { 16 * MiB, 20 * MiB },
                                    { 12 * MiB, 12 * MiB + 40 * KiB } };
    const struct phys_range r[] = {
        { 2 * MiB, 2 * MiB + 300 * KiB + 7 },
        { 8 * MiB + 1, 17 * MiB },
        { 18 * MiB + 100, 18 * MiB + 200 },
    };
    make(u, N(u), r, N(r));
    const uint64_t n = pa.n_frames;
    bool *usable = calloc(n, sizeof *usable), *owned = calloc(n, sizeof *owned);
    uint32_t *run = calloc(n + 1, sizeof *run);
    struct held *held = calloc(n, sizeof *held);
    assert_true(usable && owned && run && held);
    uint64_t shadow_free = 0;
    for (uint64_t i = 0; i < n; i++) {
        usable[i] = model_usable(phys_of(i));
        shadow_free += usable[i];
    }
    assert_int_equal(pa.free_pages, shadow_free);

    rng_state = 0x7E55E4A2024ULL;
    unsigned n_held = 0, allocs = 0, failures = 0, frees = 0, bogus = 0;
    for (unsigned step = 0; step < 6000; step++) {
        uint64_t roll = rnd() % 100;
        if (roll < 55) {
            uint64_t count = 1 + rnd() % (rnd() % 4 == 0 ? 64 : 8);
            uint64_t align = 1ULL << (rnd() % 10);
            uint64_t a = page_alloc(&pa, count, align);
            if (a) {
                if (a % (align * PG))
                    fail_msg("step %u: 0x%llx not aligned to %llu pages", step,
                             (unsigned long long)a, (unsigned long long)align);
                for (uint64_t k = 0; k < count; k++) {
                    uint64_t i = idx_of(a) + k;
                    if (i >= n || !usable[i] || owned[i])
                        fail_msg("step %u: page 0x%llx handed out twice or not usable", step,
                                 (unsigned long long)(a + k * PG));
                    owned[i] = true;
                }
                held[n_held++] = (struct held){ a, count };
                shadow_free -= count;
                allocs++;
            } else {
                /* The shadow must have no aligned run of `count` free pages either. */
                run[n] = 0;
                for (uint64_t i = n; i-- > 0;)
                    run[i] = usable[i] && !owned[i] ? run[i + 1] + 1 : 0;
                for (uint64_t i = 0; i < n; i++)
                    if ((pa.first_pfn + i) % align == 0 && run[i] >= count)
                        fail_msg("step %u: %llu pages aligned %llu refused, but 0x%llx was free",
                                 step, (unsigned long long)count, (unsigned long long)align,
                                 (unsigned long long)phys_of(i));
                failures++;
            }
        } else if (roll < 93 && n_held) {
            unsigned h = (unsigned)(rnd() % n_held);
            uint64_t count = held[h].count;
            if (count > 1 && rnd() % 4 == 0)
                count = 1 + rnd() % (count - 1); /* free only a prefix */
            assert_true(page_free(&pa, held[h].addr, count));
            for (uint64_t k = 0; k < count; k++)
                owned[idx_of(held[h].addr) + k] = false;
            shadow_free += count;
            held[h].addr += count * PG;
            held[h].count -= count;
            if (!held[h].count)
                held[h] = held[--n_held];
            frees++;
        } else {
            /* A free page (never or no longer allocated) cannot be freed: take the first one
             * at or after a random place. */
            uint64_t i = rnd() % n, tries = 0;
            while (tries < n && !(usable[i] && !owned[i]))
                i = (i + 1) % n, tries++;
            if (tries < n) {
                assert_false(page_free(&pa, phys_of(i), 1 + rnd() % 4));
                assert_true(page_is_free(&pa, phys_of(i)));
                bogus++;
            }
        }
        if (pa.free_pages != shadow_free)
            fail_msg("step %u: allocator counts %llu free pages, shadow %llu", step,
                     (unsigned long long)pa.free_pages, (unsigned long long)shadow_free);
        if (step % 250 == 0)
            for (uint64_t i = 0; i < n; i++)
                if (page_is_free(&pa, phys_of(i)) != (usable[i] && !owned[i]))
                    fail_msg("step %u: page 0x%llx state differs from the shadow", step,
                             (unsigned long long)phys_of(i));
    }
    /* The run must have exercised every path, including running out. */
    assert_true(allocs > 1000 && failures > 50 && frees > 1000 && bogus > 50);

    while (n_held) {
        n_held--;
        assert_true(page_free(&pa, held[n_held].addr, held[n_held].count));
    }
    assert_int_equal(pa.free_pages, pa.usable_pages);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(page_is_free(&pa, phys_of(i)), usable[i]);
    free(usable);
    free(owned);
    free(run);
    free(held);
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_bitmap_bytes),          T(test_init_free_count),
        T(test_init_page_states),      T(test_overlapping_usable_once),
        T(test_degenerate_layouts),    T(test_empty_reserved_range),
        T(test_alloc_every_page_once), T(test_alloc_alignment),
        T(test_alloc_contiguous),      T(test_alloc_bad_arguments),
        T(test_free_refusals),         T(test_free_reserved_or_hole_refused),
        T(test_free_then_realloc),     T(test_find_free_basic),
        T(test_find_free_min_addr),    T(test_find_free_nothing_fits),
        T(test_find_free_no_wrap),     T(test_randomized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
