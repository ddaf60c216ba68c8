/* libFuzzer target for a guest's I/O bus (vmm/io): any sequence of what guests and devices do
 * to it -- regions registered at any place and size, kept-free ranges, BARs moved anywhere
 * (inside or outside the window, over each other, decoding off), port ranges added and looked
 * up -- keeps its rules: a placed region lies inside the window (kept-free ones excepted) and
 * overlaps no other placed region, a lookup finds only a placed region with handlers that holds
 * the address, and an aperture whose EPT translations follow it (vmm/io/ept_window.c) has them
 * only at its current place and, moved home at the end, costs exactly the tables it cost there
 * at the start. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/vmx/pure/ept.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "tests/fuzz/fuzz_oracle.h"
#include "tests/unit/test_vmx_ept_arena.h"
#include "vmm/io/ept_window.h"
#include "vmm/io/io_bus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MiB           (1ULL << 20)
#define W_LO          (16 * MiB)
#define W_HI          (1ULL << 40)
#define APERTURE_HOME 0xE0000000ULL
#define APERTURE_SIZE (4 * MiB)
#define LADDER_EVERY  MiB

static void check(int cond)
{
    if (!cond)
        abort();
}

static bool ladder(void *ctx, uint64_t off, uint64_t *hpa)
{
    if (off % LADDER_EVERY)
        return false;
    *hpa = 0x300000000ULL + off;
    return true;
}

static struct ept ept;
static struct ept_window window = { APERTURE_SIZE, 0,      APERTURE_SIZE, EPT_PERM_R | EPT_PERM_W,
                                    EPT_MT_WB,     ladder, NULL };

static void aperture_moved(void *ctx, uint64_t old_base, uint64_t new_base)
{
    check(ept_window_move(&ept, &window, old_base, new_base) == 0);
}

static bool mmio_read(void *ctx, uint64_t off, unsigned size, uint64_t *value)
{
    return true;
}

/* The oracle's count of the EPT's leaf entries, from the tables themselves (SDM Vol. 3C 29.3.2):
 * how many there are, and how many map a page outside [lo, lo + size). */
FUZZ_ORACLE_PART static void count_leaves(const struct arena *a, uint64_t table, int level,
                                          uint64_t gpa, uint64_t lo, uint64_t size, unsigned *n,
                                          unsigned *outside)
{
    uint64_t i = (table - ARENA_PHYS) / 4096;
    check(table >= ARENA_PHYS && i < ARENA_PAGES && a->used[i]);
    const uint64_t *t = (const uint64_t *)(a->mem + i * 4096);
    for (unsigned k = 0; k < EPT_ENTRIES; k++) {
        uint64_t ent = t[k], g = gpa | ((uint64_t)k << (12 + 9 * level));
        if (!(ent & EPT_ENTRY_PERM_MASK))
            continue;
        check(level == 0 || !(ent & EPT_ENTRY_LARGE)); /* the window maps 4 KiB pages */
        if (level > 0) {
            count_leaves(a, ent & EPT_ENTRY_ADDR_MASK, level - 1, g, lo, size, n, outside);
            continue;
        }
        (*n)++;
        *outside += g < lo || g - lo >= size;
    }
}

FUZZ_ORACLE static void check_rules(const struct io_bus *b, const struct io_mmio *aperture,
                                    const struct arena *a)
{
    for (unsigned i = 0; i < b->n_mmio; i++) {
        const struct io_mmio *r = &b->mmio[i];
        if (r->base == IO_UNPLACED)
            continue;
        check(r->base <= UINT64_MAX - r->size);
        if (r->read || r->write)
            check(r->base >= b->window_lo && r->base + r->size <= b->window_hi);
        for (unsigned j = 0; j < b->n_mmio; j++) {
            const struct io_mmio *q = &b->mmio[j];
            if (j != i && q->base != IO_UNPLACED)
                check(r->base + r->size <= q->base || q->base + q->size <= r->base);
        }
    }
    /* Translations only at the aperture's current place, all of them there. */
    unsigned n = 0, outside = 0;
    count_leaves(a, ept.pml4, 3, 0, aperture->base, APERTURE_SIZE, &n, &outside);
    check(outside == 0 && n == (aperture->base != IO_UNPLACED ? APERTURE_SIZE / LADDER_EVERY : 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct arena a;
    if (!a.mem && !(a.mem = calloc(ARENA_PAGES, 4096)))
        abort();
    memset(a.used, 0, sizeof a.used);
    a.live = 0;
    a.fail_after = -1;
    a.bad_frees = 0;
    const struct ept_ops ops = { arena_alloc, arena_free, arena_virt, &a };
    check(ept_init(&ept, &ops) == 0);

    struct io_bus b;
    io_bus_init(&b);
    io_bus_set_window(&b, W_LO, W_HI);
    struct io_mmio *aperture;
    const struct io_mmio ap = { APERTURE_HOME, APERTURE_SIZE,     mmio_read,
                                NULL,          aperture_moved,    NULL,
                                "aperture",    { true, 2, 0, 2 }, NULL };
    check(io_bus_add_mmio(&b, &ap, &aperture) == IO_OK);
    check(ept_window_move(&ept, &window, IO_UNPLACED, APERTURE_HOME) == 0);
    unsigned home_tables = ept.tables;

    struct cursor c = { data, size };
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1) % 6;
        uint64_t base = take(&c, 6), len = (take(&c, 3) + 1) * 4096;
        switch (op) {
        case 0: { /* a device registers a region */
            struct io_mmio r = { base, len,      mmio_read,          NULL, NULL,
                                 NULL, "region", { false, 0, 0, 0 }, NULL };
            struct io_mmio *out;
            int rc = io_bus_add_mmio(&b, &r, &out);
            check(rc == IO_OK || rc == IO_E_WINDOW || rc == IO_E_OVERLAP || rc == IO_E_ALIGN ||
                  rc == IO_E_FULL);
            check((rc == IO_E_FULL) == (out == NULL));
            break;
        }
        case 1: /* the platform keeps a range free */
            io_bus_reserve(&b, base, len, "kept free");
            break;
        case 2: /* the guest moves the aperture's BAR */
        case 3:
            io_bus_place(&b, aperture, op == 2 ? base : base & ~(APERTURE_SIZE - 1), NULL);
            break;
        case 4: /* ... or turns its decoding off */
            io_bus_place(&b, aperture, IO_UNPLACED, NULL);
            break;
        case 5: { /* port ranges */
            struct io_ports p = { (uint16_t)base, (uint16_t)len, NULL, NULL, NULL, "ports" };
            io_bus_add_ports(&b, &p);
            const struct io_ports *q = io_bus_ports_at(&b, (uint16_t)(base >> 16));
            check(!q || ((uint16_t)(base >> 16) >= q->first &&
                         (uint16_t)(base >> 16) - q->first < q->count));
            break;
        }
        }
        const struct io_mmio *hit = io_bus_mmio_at(&b, base);
        check(!hit || (hit->base != IO_UNPLACED && base >= hit->base &&
                       base - hit->base < hit->size && (hit->read || hit->write)));
        check_rules(&b, aperture, &a);
        check(a.live == ept.tables);
    }
    /* The product's own count agrees with the oracle's (once: it walks every page). */
    if (aperture->base != IO_UNPLACED)
        check(ept_window_mapped(&ept, &window, aperture->base) == APERTURE_SIZE / LADDER_EVERY);
    /* Home again (unless something now sits there): exactly the tables it cost there before. */
    if (io_bus_place(&b, aperture, IO_UNPLACED, NULL) == IO_OK &&
        io_bus_place(&b, aperture, APERTURE_HOME, NULL) == IO_OK)
        check(ept.tables == home_tables);
    io_bus_place(&b, aperture, IO_UNPLACED, NULL);
    check(ept.tables == 1); /* only the PML4 left */
    ept_destroy(&ept);
    check(a.live == 0 && a.bad_frees == 0);
    return 0;
}
