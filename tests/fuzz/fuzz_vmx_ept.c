/* libFuzzer target for the EPT builder (arch/x86/vmx/pure/ept.c): the input is a sequence of
 * map / unmap / protect operations (with optional allocation failures) over four 4 MiB
 * windows placed under different PML4 and PDPT entries.  After every operation each page of
 * the window it named is walked and compared with a per-page model (every window's at the
 * end), tables are counted against the arena, and nothing may be freed twice; at the end
 * everything is destroyed with no leak. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/vmx/pure/ept.h"
#include "tests/fuzz/fuzz_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARENA_PAGES 128u
#define ARENA_PHYS  0x7000000000ULL
#define WINDOWS     4u
#define WIN_PAGES   1024u /* 4 MiB each */

static void check(int cond)
{
    if (!cond)
        abort();
}

struct arena {
    uint8_t *mem;
    bool used[ARENA_PAGES];
    unsigned live;
    int fail_after;
};

static uint64_t a_alloc(void *ctx)
{
    struct arena *a = ctx;
    if (a->fail_after == 0)
        return 0;
    if (a->fail_after > 0)
        a->fail_after--;
    for (unsigned i = 0; i < ARENA_PAGES; i++) {
        if (!a->used[i]) {
            a->used[i] = true;
            a->live++;
            memset(a->mem + (size_t)i * 4096, 0, 4096);
            return ARENA_PHYS + (uint64_t)i * 4096;
        }
    }
    abort(); /* the windows need far fewer tables than the arena has */
}

static void a_free(void *ctx, uint64_t phys)
{
    struct arena *a = ctx;
    check(phys >= ARENA_PHYS && (phys & 4095) == 0);
    uint64_t i = (phys - ARENA_PHYS) / 4096;
    check(i < ARENA_PAGES && a->used[i]);
    memset(a->mem + i * 4096, 0xCC, 4096);
    a->used[i] = false;
    a->live--;
}

FUZZ_ORACLE_PART static void *a_virt(void *ctx, uint64_t phys)
{
    struct arena *a = ctx;
    check(phys >= ARENA_PHYS);
    uint64_t i = (phys - ARENA_PHYS) / 4096;
    check(i < ARENA_PAGES && a->used[i]);
    return a->mem + (phys - ARENA_PHYS);
}

static const uint64_t win_base[WINDOWS] = {
    0,
    1ULL << 30,
    3ULL << 39,
    (1ULL << 48) - (4ULL << 20),
};

struct page {
    bool mapped;
    uint64_t hpa;
    unsigned perms, mt;
};

static struct page model[WINDOWS][WIN_PAGES];
static uint8_t *arena_mem;

FUZZ_ORACLE_PART static unsigned count_tables(const struct ept *e, uint64_t phys, int level)
{
    const uint64_t *t = a_virt(e->ops.ctx, phys);
    unsigned n = 1;
    if (level == 0)
        return n;
    for (unsigned i = 0; i < EPT_ENTRIES; i++)
        if ((t[i] & EPT_ENTRY_PERM_MASK) && !(t[i] & EPT_ENTRY_LARGE))
            n += count_tables(e, t[i] & EPT_ENTRY_ADDR_MASK, level - 1);
    return n;
}

/* The oracle's own walk, written from the entry format (SDM Vol. 3C 29.3.2) rather than by
 * calling ept_walk, so a mistake there cannot hide itself; only arena pages in use may be
 * tables, and a 1 GiB page (which Tessera never makes) is a failure. */
FUZZ_ORACLE_PART static int oracle_walk(const struct arena *a, uint64_t pml4, uint64_t gpa,
                                        uint64_t *hpa, unsigned *perms, unsigned *mt, uint64_t *ps)
{
    uint64_t table = pml4;
    for (int level = 3; level >= 0; level--) {
        uint64_t i = (table - ARENA_PHYS) / 4096;
        check(table >= ARENA_PHYS && i < ARENA_PAGES && a->used[i] && !(table & 4095));
        const uint64_t *t = (const uint64_t *)(a->mem + i * 4096);
        uint64_t ent = t[(gpa >> (12 + 9 * level)) & (EPT_ENTRIES - 1)];
        if (!(ent & EPT_ENTRY_PERM_MASK))
            return EPT_ENOENT;
        check(level != 2 || !(ent & EPT_ENTRY_LARGE));
        if (level == 0 || (level == 1 && (ent & EPT_ENTRY_LARGE))) {
            uint64_t span = 1ULL << (12 + 9 * level);
            *hpa = (ent & EPT_ENTRY_ADDR_MASK & ~(span - 1)) | (gpa & (span - 1));
            *perms = (unsigned)(ent & EPT_ENTRY_PERM_MASK);
            *mt = (unsigned)((ent & EPT_ENTRY_MEMTYPE_MASK) >> EPT_ENTRY_MEMTYPE_SHIFT);
            *ps = span;
            return 0;
        }
        table = ent & EPT_ENTRY_ADDR_MASK;
    }
    return EPT_ENOENT;
}

/* Windows [w0, w1) walked page by page against the model, and the tables counted.  ept_walk
 * itself answers for one page per window, and must agree with the oracle's walk. */
FUZZ_ORACLE static void verify(const struct ept *e, const struct arena *a, unsigned w0, unsigned w1)
{
    for (unsigned w = w0; w < w1; w++) {
        for (unsigned i = 0; i < WIN_PAGES; i++) {
            uint64_t gpa = win_base[w] + (uint64_t)i * 4096 + 0x123, hpa = 0, ps = 0;
            unsigned p = 0, mt = 0;
            int rc = oracle_walk(a, e->pml4, gpa, &hpa, &p, &mt, &ps);
            if (i == (unsigned)(e->tables * 37u) % WIN_PAGES) {
                uint64_t hpa2 = 0, ps2 = 0;
                unsigned p2 = 0, mt2 = 0;
                int rc2 = ept_walk(e, gpa, &hpa2, &p2, &mt2, &ps2);
                check(rc2 == rc && hpa2 == hpa && p2 == p && mt2 == mt && ps2 == ps);
            }
            const struct page *m = &model[w][i];
            if (!m->mapped) {
                check(rc == EPT_ENOENT);
                continue;
            }
            check(rc == 0 && hpa == m->hpa + 0x123 && p == m->perms && mt == m->mt);
            check(ps == 4096 || ps == (2ULL << 20));
        }
    }
    check(count_tables(e, e->pml4, 3) == e->tables && a->live == e->tables);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct arena a;
    if (!arena_mem) {
        arena_mem = aligned_alloc(4096, (size_t)ARENA_PAGES * 4096);
        if (!arena_mem)
            abort();
    }
    memset(&a, 0, sizeof a);
    a.mem = arena_mem;
    a.fail_after = -1;
    memset(model, 0, sizeof model);

    struct ept e;
    struct ept_ops ops = { a_alloc, a_free, a_virt, &a };
    check(ept_init(&e, &ops) == 0);
    check(ept_eptp(&e) == (e.pml4 | 0x1E));

    /* 8 bytes per operation */
    for (size_t off = 0; off + 8 <= size && off < 8 * 64; off += 8) {
        const uint8_t *b = data + off;
        unsigned op = b[0] & 3, w = (b[0] >> 2) & 3;
        unsigned first = (unsigned)(b[1] | (b[2] << 8)) % WIN_PAGES;
        if (b[0] & 0x10)
            first &= ~511u;
        unsigned n = 1 + (unsigned)(b[3] | ((b[4] & 3) << 8)) % (WIN_PAGES - first);
        if ((b[0] & 0x20) && n >= 512)
            n &= ~511u;
        unsigned perms = b[5] & 7;     /* includes invalid ones */
        unsigned mt = (b[5] >> 3) & 7; /* includes reserved types */
        uint64_t hpa = (uint64_t)(b[6] | (b[7] << 8)) << 12;
        if (b[5] & 0x40)
            hpa = (hpa & ~((2ULL << 20) - 1)) | (((uint64_t)first * 4096) & ((2ULL << 20) - 1));
        if (b[5] & 0x80)
            hpa |= 0x000FFFF000000000ULL; /* near the top of the HPA space */
        a.fail_after = (b[4] & 0x0C) ? -1 : (b[4] >> 4) & 3;

        uint64_t gpa = win_base[w] + (uint64_t)first * 4096, len = (uint64_t)n * 4096;
        bool perms_ok = perms != 0 && !((perms & EPT_PERM_W) && !(perms & EPT_PERM_R));
        bool mt_ok = mt == 0 || mt == 1 || mt == 4 || mt == 5 || mt == 6;
        bool all_mapped = true;
        for (unsigned i = first; i < first + n; i++)
            all_mapped = all_mapped && model[w][i].mapped;

        int rc;
        if (op <= 1) {
            rc = ept_map(&e, gpa, hpa, len, perms, mt);
            if (!perms_ok || !mt_ok)
                check(rc == EPT_EINVAL);
        } else if (op == 2) {
            rc = ept_unmap(&e, gpa, len);
        } else {
            rc = ept_protect(&e, gpa, len, perms);
            if (!perms_ok)
                check(rc == EPT_EINVAL);
            else if (!all_mapped)
                check(rc == EPT_ENOENT);
        }
        a.fail_after = -1;
        check(rc == 0 || rc == EPT_EINVAL || rc == EPT_ENOMEM || rc == EPT_ENOENT);
        if (rc == 0) {
            for (unsigned i = first; i < first + n; i++) {
                struct page *m = &model[w][i];
                if (op <= 1)
                    *m = (struct page){ true, hpa + (uint64_t)(i - first) * 4096, perms, mt };
                else if (op == 2)
                    m->mapped = false;
                else
                    m->perms = perms;
            }
        }
        verify(&e, &a, w, w + 1); /* the window the operation named */
    }
    verify(&e, &a, 0, WINDOWS); /* and every window: nothing else changed */
    check(ept_unmap(&e, 0, EPT_GPA_LIMIT) == 0);
    check(e.tables == 1 && a.live == 1);
    ept_destroy(&e);
    check(a.live == 0);
    return 0;
}
