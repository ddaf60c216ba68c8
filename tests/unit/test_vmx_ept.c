/* EPT tables (arch/x86/vmx/pure/ept.c) built in a host arena whose "physical" addresses differ
 * from its virtual ones (so a mix-up cannot pass): walks of the built tables give the expected
 * host addresses, permissions and memory types; 2 MiB pages where possible and 4 KiB where
 * needed; splitting; unmap with freeing of empty tables; protect; allocation failure at every
 * possible point (nothing changed, nothing leaked); and a random sequence checked against a
 * per-page model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/vmx/pure/ept.h"
#include "tests/unit/test_vmx_ept_arena.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

struct fix {
    struct arena a;
    struct ept e;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->a.mem = aligned_alloc(4096, (size_t)ARENA_PAGES * 4096);
    f->a.fail_after = -1;
    struct ept_ops ops = { arena_alloc, arena_free, arena_virt, &f->a };
    if (!f->a.mem || ept_init(&f->e, &ops) != 0) {
        free(f->a.mem);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    ept_destroy(&f->e);
    int leaked = (int)f->a.live + (int)f->a.bad_frees;
    free(f->a.mem);
    free(f);
    return leaked ? -1 : 0; /* every table freed exactly once */
}

/* Counts the tables reachable from the PML4 (must equal e.tables and the arena's live pages). */
static unsigned count_tables(const struct ept *e, uint64_t phys, int level)
{
    const uint64_t *t = e->ops.phys_to_virt(e->ops.ctx, phys);
    unsigned n = 1;
    if (level == 0)
        return n;
    for (unsigned i = 0; i < EPT_ENTRIES; i++) {
        if (!(t[i] & EPT_ENTRY_PERM_MASK) || (t[i] & EPT_ENTRY_LARGE))
            continue;
        n += count_tables(e, t[i] & EPT_ENTRY_ADDR_MASK, level - 1);
    }
    return n;
}

static void check_accounting(struct fix *f)
{
    assert_int_equal(count_tables(&f->e, f->e.pml4, 3), f->e.tables);
    assert_int_equal(f->a.live, f->e.tables);
    assert_int_equal(f->a.bad_frees, 0);
}

static void expect_map(struct fix *f, uint64_t gpa, uint64_t hpa, unsigned perms, unsigned mt,
                       uint64_t page_size)
{
    uint64_t h = 0, ps = 0;
    unsigned p = 0, m = 99;
    assert_int_equal(ept_walk(&f->e, gpa, &h, &p, &m, &ps), 0);
    assert_true(h == hpa);
    assert_int_equal(p, perms);
    assert_int_equal(m, mt);
    assert_true(ps == page_size);
}

static void expect_unmapped(struct fix *f, uint64_t gpa)
{
    uint64_t h = 0x1234;
    assert_int_equal(ept_walk(&f->e, gpa, &h, NULL, NULL, NULL), EPT_ENOENT);
    assert_true(h == 0x1234);
}

static uint64_t *table_of(struct fix *f, uint64_t phys)
{
    return f->e.ops.phys_to_virt(f->e.ops.ctx, phys);
}

/* The raw PDE covering gpa (the tables must exist). */
static uint64_t raw_pde(struct fix *f, uint64_t gpa)
{
    uint64_t *pml4 = table_of(f, f->e.pml4);
    uint64_t *pdpt = table_of(f, pml4[(gpa >> 39) & 511] & EPT_ENTRY_ADDR_MASK);
    uint64_t *pd = table_of(f, pdpt[(gpa >> 30) & 511] & EPT_ENTRY_ADDR_MASK);
    return pd[(gpa >> 21) & 511];
}

static void test_init_and_eptp(void **state)
{
    struct fix *f = *state;
    assert_int_equal(f->e.tables, 1);
    assert_true(f->e.pml4 >= ARENA_PHYS && (f->e.pml4 & 4095) == 0);
    /* WB (6) in bits 2:0, walk length 4-1 = 3 in bits 5:3, no A/D */
    assert_true(ept_eptp(&f->e) == (f->e.pml4 | 0x1E));
    expect_unmapped(f, 0);
    assert_int_equal(ept_walk(&f->e, EPT_GPA_LIMIT, NULL, NULL, NULL, NULL), EPT_EINVAL);
    check_accounting(f);
    /* Bochs's IA32_VMX_EPT_VPID_CAP offers everything this code needs */
    assert_true(ept_cap_missing(0x00000f0106334141ULL) == 0);
    assert_true(ept_cap_missing(0x00000f0106334141ULL & ~EPT_CAP_2M_PAGES) == EPT_CAP_2M_PAGES);
    assert_true(ept_cap_missing(0) == EPT_CAP_NEEDED);
}

static void test_init_bad(void **state)
{
    (void)state;
    struct ept e;
    struct arena a;
    memset(&a, 0, sizeof a);
    a.fail_after = 0;
    struct ept_ops ops = { arena_alloc, arena_free, arena_virt, &a };
    assert_int_equal(ept_init(&e, &ops), EPT_ENOMEM);
    assert_true(e.pml4 == 0);
    ops.alloc_page = NULL;
    assert_int_equal(ept_init(&e, &ops), EPT_EINVAL);
    assert_int_equal(ept_init(NULL, &ops), EPT_EINVAL);
    assert_int_equal(ept_init(&e, NULL), EPT_EINVAL);
    ept_destroy(&e); /* harmless on a failed init */
    assert_int_equal(ept_map(&e, 0, 0, 4096, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_true(ept_eptp(&e) == 0);
}

/* 4 MiB at 2 MiB-aligned gpa and hpa: two 2 MiB pages, PDPT + PD only. */
static void test_map_large(void **state)
{
    struct fix *f = *state;
    uint64_t hpa = 0x80000000ULL;
    assert_int_equal(ept_map(&f->e, 0, hpa, 4 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    assert_int_equal(f->e.tables, 3);
    expect_map(f, 0, hpa, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    expect_map(f, 0x123456, hpa + 0x123456, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    expect_map(f, 4 * MiB - 1, hpa + 4 * MiB - 1, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    expect_unmapped(f, 4 * MiB);
    /* the raw entry: address | RWX | WB << 3 | large */
    assert_true(raw_pde(f, 2 * MiB) == ((hpa + 2 * MiB) | 7 | (6 << 3) | (1 << 7)));
    check_accounting(f);
}

/* hpa only 4 KiB aligned: 4 KiB pages throughout. */
static void test_map_small_when_hpa_misaligned(void **state)
{
    struct fix *f = *state;
    uint64_t hpa = 0x80001000ULL;
    assert_int_equal(ept_map(&f->e, 2 * MiB, hpa, 2 * MiB, EPT_PERM_R | EPT_PERM_W, EPT_MT_UC), 0);
    assert_int_equal(f->e.tables, 4); /* PML4, PDPT, PD, PT */
    for (uint64_t off = 0; off < 2 * MiB; off += 4096)
        expect_map(f, 2 * MiB + off + 8, hpa + off + 8, EPT_PERM_R | EPT_PERM_W, EPT_MT_UC, 4096);
    expect_unmapped(f, 2 * MiB - 4096);
    expect_unmapped(f, 4 * MiB);
    check_accounting(f);
}

/* [2M-8K, 4M+12K): 4 KiB head, one 2 MiB page, 4 KiB tail. */
static void test_map_mixed(void **state)
{
    struct fix *f = *state;
    uint64_t gpa = 2 * MiB - 8192, hpa = 0x100000000ULL - 8192, size = 2 * MiB + 8192 + 12288;
    assert_int_equal(ept_map(&f->e, gpa, hpa, size, EPT_PERM_R | EPT_PERM_X, EPT_MT_WB), 0);
    expect_map(f, gpa, hpa, EPT_PERM_R | EPT_PERM_X, EPT_MT_WB, 4096);
    expect_map(f, gpa + 4096, hpa + 4096, EPT_PERM_R | EPT_PERM_X, EPT_MT_WB, 4096);
    expect_map(f, 2 * MiB, 0x100000000ULL, EPT_PERM_R | EPT_PERM_X, EPT_MT_WB, 2 * MiB);
    expect_map(f, 4 * MiB, 0x100000000ULL + 2 * MiB, EPT_PERM_R | EPT_PERM_X, EPT_MT_WB, 4096);
    expect_map(f, 4 * MiB + 8192, 0x100000000ULL + 2 * MiB + 8192, EPT_PERM_R | EPT_PERM_X,
               EPT_MT_WB, 4096);
    expect_unmapped(f, 4 * MiB + 12288);
    expect_unmapped(f, gpa - 4096);
    assert_int_equal(f->e.tables, 5); /* PML4, PDPT, PD, two PTs */
    check_accounting(f);
}

/* Remapping one 4 KiB page inside a 2 MiB page splits it; the other 511 keep their translation. */
static void test_split_on_partial_map(void **state)
{
    struct fix *f = *state;
    uint64_t hpa = 0x200000000ULL;
    assert_int_equal(ept_map(&f->e, 6 * MiB, hpa, 2 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    unsigned before = f->e.tables;
    assert_int_equal(ept_map(&f->e, 6 * MiB + 0x5000, 0x7000, 4096, EPT_PERM_R, EPT_MT_UC), 0);
    assert_int_equal(f->e.tables, before + 1);
    expect_map(f, 6 * MiB + 0x5010, 0x7010, EPT_PERM_R, EPT_MT_UC, 4096);
    for (uint64_t off = 0; off < 2 * MiB; off += 4096) {
        if (off == 0x5000)
            continue;
        expect_map(f, 6 * MiB + off, hpa + off, EPT_PERM_RWX, EPT_MT_WB, 4096);
    }
    /* Mapping the whole 2 MiB again as a large page frees the page table. */
    assert_int_equal(ept_map(&f->e, 6 * MiB, hpa, 2 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    assert_int_equal(f->e.tables, before);
    expect_map(f, 6 * MiB + 0x5000, hpa + 0x5000, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    check_accounting(f);
}

static void test_protect(void **state)
{
    struct fix *f = *state;
    uint64_t hpa = 0x80000000ULL;
    assert_int_equal(ept_map(&f->e, 0, hpa, 4 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    /* whole large page: stays large */
    assert_int_equal(ept_protect(&f->e, 0, 2 * MiB, EPT_PERM_R), 0);
    assert_int_equal(f->e.tables, 3);
    expect_map(f, 0x1000, hpa + 0x1000, EPT_PERM_R, EPT_MT_WB, 2 * MiB);
    /* one page of the second: split, only that page changes */
    assert_int_equal(ept_protect(&f->e, 3 * MiB, 4096, EPT_PERM_X), 0);
    assert_int_equal(f->e.tables, 4);
    expect_map(f, 3 * MiB, hpa + 3 * MiB, EPT_PERM_X, EPT_MT_WB, 4096);
    expect_map(f, 3 * MiB - 4096, hpa + 3 * MiB - 4096, EPT_PERM_RWX, EPT_MT_WB, 4096);
    expect_map(f, 3 * MiB + 4096, hpa + 3 * MiB + 4096, EPT_PERM_RWX, EPT_MT_WB, 4096);
    /* a whole 2 MiB that is now a page table: all 512 entries */
    assert_int_equal(ept_protect(&f->e, 2 * MiB, 2 * MiB, EPT_PERM_R | EPT_PERM_W), 0);
    for (uint64_t off = 2 * MiB; off < 4 * MiB; off += 4096)
        expect_map(f, off, hpa + off, EPT_PERM_R | EPT_PERM_W, EPT_MT_WB, 4096);
    check_accounting(f);
}

static void test_protect_refusals(void **state)
{
    struct fix *f = *state;
    assert_int_equal(ept_map(&f->e, 0, 0x80000000ULL, 2 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    /* range running past the mapping: nothing changes */
    assert_int_equal(ept_protect(&f->e, 0, 2 * MiB + 4096, EPT_PERM_R), EPT_ENOENT);
    expect_map(f, 0, 0x80000000ULL, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    assert_int_equal(ept_protect(&f->e, 1 * GiB, 4096, EPT_PERM_R), EPT_ENOENT);
    /* write without read is a misconfiguration; no permission at all is unmap's job */
    assert_int_equal(ept_protect(&f->e, 0, 4096, EPT_PERM_W), EPT_EINVAL);
    assert_int_equal(ept_protect(&f->e, 0, 4096, EPT_PERM_W | EPT_PERM_X), EPT_EINVAL);
    assert_int_equal(ept_protect(&f->e, 0, 4096, 0), EPT_EINVAL);
    assert_int_equal(ept_protect(&f->e, 0, 4096, 8), EPT_EINVAL);
    assert_int_equal(f->e.tables, 3);
    check_accounting(f);
}

static void test_unmap(void **state)
{
    struct fix *f = *state;
    uint64_t hpa = 0x80000000ULL;
    assert_int_equal(ept_map(&f->e, 0, hpa, 4 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    /* one page out of a large page: split */
    assert_int_equal(ept_unmap(&f->e, 0x3000, 4096), 0);
    expect_unmapped(f, 0x3000);
    expect_map(f, 0x2000, hpa + 0x2000, EPT_PERM_RWX, EPT_MT_WB, 4096);
    expect_map(f, 0x4000, hpa + 0x4000, EPT_PERM_RWX, EPT_MT_WB, 4096);
    expect_map(f, 2 * MiB, hpa + 2 * MiB, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    assert_int_equal(f->e.tables, 4);
    /* a range with holes and beyond the mapping is fine */
    assert_int_equal(ept_unmap(&f->e, 0, 1 * GiB), 0);
    expect_unmapped(f, 0);
    expect_unmapped(f, 2 * MiB);
    /* every table but the PML4 freed */
    assert_int_equal(f->e.tables, 1);
    check_accounting(f);
    /* unmapping nothing at the top of the GPA space */
    assert_int_equal(ept_unmap(&f->e, EPT_GPA_LIMIT - 4096, 4096), 0);
    assert_int_equal(ept_unmap(&f->e, 0, EPT_GPA_LIMIT), 0);
}

/* Unmap of page-table pages empties and frees them; tables shared with live mappings stay. */
static void test_unmap_frees_empty_tables_only(void **state)
{
    struct fix *f = *state;
    assert_int_equal(ept_map(&f->e, 0, 0x1000, 8192, EPT_PERM_R, EPT_MT_WB), 0);
    assert_int_equal(ept_map(&f->e, 512 * GiB, 0x9000, 4096, EPT_PERM_R, EPT_MT_WB), 0);
    assert_int_equal(f->e.tables, 7);
    assert_int_equal(ept_unmap(&f->e, 0, 4096), 0);
    assert_int_equal(f->e.tables, 7);
    expect_map(f, 4096, 0x2000, EPT_PERM_R, EPT_MT_WB, 4096);
    assert_int_equal(ept_unmap(&f->e, 4096, 4096), 0);
    assert_int_equal(f->e.tables, 4);
    expect_map(f, 512 * GiB, 0x9000, EPT_PERM_R, EPT_MT_WB, 4096);
    check_accounting(f);
}

static void test_high_gpa_and_hpa(void **state)
{
    struct fix *f = *state;
    uint64_t gpa = EPT_GPA_LIMIT - 4 * MiB, hpa = EPT_HPA_LIMIT - 4 * MiB;
    assert_int_equal(ept_map(&f->e, gpa, hpa, 4 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    expect_map(f, EPT_GPA_LIMIT - 1, EPT_HPA_LIMIT - 1, EPT_PERM_RWX, EPT_MT_WB, 2 * MiB);
    assert_int_equal(ept_unmap(&f->e, gpa, 4 * MiB), 0);
    assert_int_equal(f->e.tables, 1);
    check_accounting(f);
}

static void test_bad_arguments(void **state)
{
    struct fix *f = *state;
    struct ept *e = &f->e;
    assert_int_equal(ept_map(e, 0x800, 0, 4096, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, 0x800, 4096, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, 0, 4095, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, 0, 0, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, EPT_GPA_LIMIT, 0, 4096, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, EPT_GPA_LIMIT - 4096, 0, 8192, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, ~0xFFFULL, 0, 0x2000, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, EPT_HPA_LIMIT - 4096, 8192, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, ~0xFFFULL, 8192, EPT_PERM_R, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, 0, 4096, 0, EPT_MT_WB), EPT_EINVAL);
    assert_int_equal(ept_map(e, 0, 0, 4096, EPT_PERM_W, EPT_MT_WB), EPT_EINVAL);
    for (unsigned mt = 0; mt < 16; mt++) {
        bool valid = mt == 0 || mt == 1 || mt == 4 || mt == 5 || mt == 6;
        assert_int_equal(ept_map(e, 0, 0, 4096, EPT_PERM_R, mt), valid ? 0 : EPT_EINVAL);
        if (valid)
            expect_map(f, 0, 0, EPT_PERM_R, mt, 4096);
    }
    assert_int_equal(ept_map(e, 0, 0, 4096, EPT_PERM_X, EPT_MT_WB), 0); /* execute-only */
    assert_int_equal(ept_unmap(e, 0x10, 4096), EPT_EINVAL);
    assert_int_equal(ept_unmap(e, 0, 0), EPT_EINVAL);
    assert_int_equal(ept_unmap(NULL, 0, 4096), EPT_EINVAL);
    assert_int_equal(ept_protect(e, 0, 0x1001, EPT_PERM_R), EPT_EINVAL);
    assert_int_equal(ept_walk(NULL, 0, NULL, NULL, NULL, NULL), EPT_EINVAL);
    assert_string_equal(ept_strerror(EPT_ENOMEM), "out of memory for EPT tables");
    assert_string_equal(ept_strerror(EPT_ENOENT), "not mapped");
    check_accounting(f);
}

/* Snapshot of the translation of a set of probe addresses. */
struct snap {
    int rc[64];
    uint64_t hpa[64];
    unsigned perms[64], mt[64];
};

static const uint64_t probes[] = {
    0,        0x1000,   0x3000,   0x1FF000, 0x200000,   0x201000,   0x3FF000,   0x400000,
    0x5FF000, 0x600000, 0x7FF000, 0x800000, 0x40000000, 0x40001000, 0x40200000, 0x8000000000ULL,
};
#define NPROBES (sizeof probes / sizeof probes[0])

static void take_snap(struct fix *f, struct snap *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < NPROBES; i++)
        s->rc[i] = ept_walk(&f->e, probes[i], &s->hpa[i], &s->perms[i], &s->mt[i], NULL);
}

/* Builds a starting state with large pages and page tables in the probed area. */
static void populate(struct fix *f)
{
    assert_int_equal(ept_map(&f->e, 0, 0x80000000ULL, 4 * MiB, EPT_PERM_RWX, EPT_MT_WB), 0);
    assert_int_equal(ept_map(&f->e, 4 * MiB, 0x90001000ULL, 2 * MiB, EPT_PERM_R, EPT_MT_UC), 0);
}

/* For every k, let exactly k allocations succeed: the operation either completes or fails
 * with EPT_ENOMEM leaving every translation and the table count as they were, and no page is
 * leaked (checked by the accounting and by teardown). */
static void op_with_failures(struct fix *f, int which)
{
    for (int k = 0;; k++) {
        struct snap before, after;
        take_snap(f, &before);
        unsigned tables = f->e.tables;
        f->a.fail_after = k;
        int rc;
        switch (which) {
        case 0: /* split at 0, 2 MiB pages to 1 GiB (freeing the PT at 4 MiB), new PD + PT */
            rc = ept_map(&f->e, 0x1000, 0x50001000ULL, 0x40003000ULL - 0x1000, EPT_PERM_R,
                         EPT_MT_WB);
            break;
        case 1: /* splits at both ends */
            rc = ept_unmap(&f->e, 0x1000, 4 * MiB - 0x2000);
            break;
        case 2:
            rc = ept_protect(&f->e, 0x3000, 2 * MiB, EPT_PERM_R);
            break;
        default:
            rc = ept_map(&f->e, 0x8000000000ULL - 4096, 0x1000, 8192, EPT_PERM_R, EPT_MT_WB);
            break;
        }
        f->a.fail_after = -1;
        check_accounting(f);
        if (rc == 0) {
            if (k == 0)
                fail_msg("operation %d needed no allocation", which);
            return;
        }
        assert_int_equal(rc, EPT_ENOMEM);
        take_snap(f, &after);
        assert_memory_equal(&before, &after, sizeof before);
        assert_int_equal(f->e.tables, tables);
        assert_true(k < 64);
    }
}

static void test_alloc_failure_map(void **state)
{
    struct fix *f = *state;
    populate(f);
    op_with_failures(f, 0);
    expect_map(f, 0x1000, 0x50001000ULL, EPT_PERM_R, EPT_MT_WB, 4096);
    expect_map(f, 4 * MiB, 0x50000000ULL + 4 * MiB, EPT_PERM_R, EPT_MT_WB, 2 * MiB);
    expect_map(f, 0x40002000ULL, 0x90002000ULL, EPT_PERM_R, EPT_MT_WB, 4096);
    expect_map(f, 0, 0x80000000ULL, EPT_PERM_RWX, EPT_MT_WB, 4096); /* split remainder */
    op_with_failures(f, 3);
    expect_map(f, 0x8000000000ULL, 0x2000, EPT_PERM_R, EPT_MT_WB, 4096);
}

static void test_alloc_failure_unmap_protect(void **state)
{
    struct fix *f = *state;
    populate(f);
    op_with_failures(f, 1);
    expect_unmapped(f, 0x1000);
    expect_map(f, 0, 0x80000000ULL, EPT_PERM_RWX, EPT_MT_WB, 4096);
    expect_map(f, 4 * MiB - 0x1000, 0x80000000ULL + 4 * MiB - 0x1000, EPT_PERM_RWX, EPT_MT_WB,
               4096);
    populate(f); /* large pages again (the split page tables are freed) */
    assert_int_equal(f->e.tables, 4);
    op_with_failures(f, 2);
    expect_map(f, 0x3000, 0x80003000ULL, EPT_PERM_R, EPT_MT_WB, 4096);
    expect_map(f, 0x2000, 0x80002000ULL, EPT_PERM_RWX, EPT_MT_WB, 4096);
    expect_map(f, 0x203000, 0x80203000ULL, EPT_PERM_RWX, EPT_MT_WB, 4096);
}

/* ---- random operations against a per-page model ---- */

#define WIN_PAGES 4096u /* 16 MiB window at GPA 0, plus the same at 1 GiB - 8 MiB */
struct model_page {
    bool mapped;
    uint64_t hpa;
    unsigned perms, mt;
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t win_gpa(unsigned i)
{
    return i < WIN_PAGES / 2 ? (uint64_t)i * 4096
                             : 1 * GiB - 8 * MiB + (uint64_t)(i - WIN_PAGES / 2) * 4096;
}

static void test_random_against_model(void **state)
{
    struct fix *f = *state;
    static struct model_page m[WIN_PAGES];
    memset(m, 0, sizeof m);
    uint64_t seed = 0xC0FFEE123456789ULL;
    const unsigned perm_choices[] = { EPT_PERM_R, EPT_PERM_R | EPT_PERM_W, EPT_PERM_RWX, EPT_PERM_X,
                                      EPT_PERM_R | EPT_PERM_X };
    const unsigned mt_choices[] = { EPT_MT_WB, EPT_MT_UC, EPT_MT_WT };
    unsigned nomem = 0, noent = 0, ok[4] = { 0 }, large_seen = 0;

    for (int step = 0; step < 600; step++) {
        /* a range inside one half of the window, often 2 MiB aligned */
        unsigned half = (unsigned)(rng(&seed) % 2) * (WIN_PAGES / 2);
        unsigned first = (unsigned)(rng(&seed) % (WIN_PAGES / 2));
        if (rng(&seed) % 2)
            first &= ~511u;
        unsigned maxn = WIN_PAGES / 2 - first;
        unsigned n = 1 + (unsigned)(rng(&seed) % (rng(&seed) % 2 ? maxn : (maxn < 40 ? maxn : 40)));
        if (rng(&seed) % 3 == 0 && n >= 512)
            n &= ~511u;
        first += half;
        uint64_t gpa = win_gpa(first), size = (uint64_t)n * 4096;
        unsigned op = (unsigned)(rng(&seed) % 4);
        unsigned perms = perm_choices[rng(&seed) % 5];
        unsigned mt = mt_choices[rng(&seed) % 3];
        uint64_t hpa = (rng(&seed) % 0x100000) * 4096;
        if (rng(&seed) % 2)
            hpa = (hpa & ~(2 * MiB - 1)) | (gpa & (2 * MiB - 1));
        f->a.fail_after = rng(&seed) % 3 == 0 ? (int)(rng(&seed) % 2) : -1;
        int rc;
        if (op <= 1) {
            rc = ept_map(&f->e, gpa, hpa, size, perms, mt);
        } else if (op == 2) {
            rc = ept_unmap(&f->e, gpa, size);
        } else {
            rc = ept_protect(&f->e, gpa, size, perms);
        }
        f->a.fail_after = -1;
        bool all_mapped = true;
        for (unsigned i = first; i < first + n; i++)
            all_mapped = all_mapped && m[i].mapped;
        if (rc == EPT_ENOMEM) {
            nomem++; /* model unchanged */
        } else if (op == 3 && !all_mapped) {
            assert_int_equal(rc, EPT_ENOENT);
            noent++;
        } else {
            assert_int_equal(rc, 0);
            ok[op]++;
            for (unsigned i = first; i < first + n; i++) {
                if (op <= 1)
                    m[i] = (struct model_page){ true, hpa + (uint64_t)(i - first) * 4096, perms,
                                                mt };
                else if (op == 2)
                    m[i].mapped = false;
                else
                    m[i].perms = perms;
            }
        }
        for (unsigned i = 0; i < WIN_PAGES; i++) {
            uint64_t h, ps;
            unsigned p, t;
            int w = ept_walk(&f->e, win_gpa(i) + 0x10, &h, &p, &t, &ps);
            if (!m[i].mapped) {
                assert_int_equal(w, EPT_ENOENT);
                continue;
            }
            assert_int_equal(w, 0);
            assert_true(h == m[i].hpa + 0x10);
            assert_int_equal(p, m[i].perms);
            assert_int_equal(t, m[i].mt);
            large_seen += ps == 2 * MiB;
        }
        check_accounting(f);
    }
    /* the sequence exercised every outcome, and large pages */
    assert_true(nomem > 5 && noent > 5 && ok[0] + ok[1] > 50 && ok[2] > 20 && ok[3] > 5);
    assert_true(large_seen > 0);
    assert_int_equal(ept_unmap(&f->e, 0, EPT_GPA_LIMIT), 0);
    assert_int_equal(f->e.tables, 1);
}

static void test_destroy_frees_everything(void **state)
{
    struct fix *f = *state;
    populate(f);
    assert_int_equal(ept_map(&f->e, 3 * GiB, 0x1000, 6 * MiB, EPT_PERM_R, EPT_MT_WB), 0);
    assert_true(f->a.live > 1);
    ept_destroy(&f->e);
    assert_int_equal(f->a.live, 0);
    assert_int_equal(f->a.bad_frees, 0);
    assert_true(f->e.pml4 == 0);
    ept_destroy(&f->e); /* twice is harmless */
    struct ept_ops ops = { arena_alloc, arena_free, arena_virt, &f->a };
    assert_int_equal(ept_init(&f->e, &ops), 0); /* teardown destroys it again */
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_init_and_eptp),
        cmocka_unit_test(test_init_bad),
        T(test_map_large),
        T(test_map_small_when_hpa_misaligned),
        T(test_map_mixed),
        T(test_split_on_partial_map),
        T(test_protect),
        T(test_protect_refusals),
        T(test_unmap),
        T(test_unmap_frees_empty_tables_only),
        T(test_high_gpa_and_hpa),
        T(test_bad_arguments),
        T(test_alloc_failure_map),
        T(test_alloc_failure_unmap_protect),
        T(test_random_against_model),
        T(test_destroy_frees_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
