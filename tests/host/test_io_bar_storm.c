/* BAR moves and the hypervisor's memory: a guest's I/O bus (vmm/io/io_bus.c) with the vGPU's
 * BAR0 and aperture regions, the aperture's EPT translations following it (vmm/io/ept_window.c)
 * over real EPT tables (arch/x86/vmx/pure/ept.c) whose pages come from a counting allocator.
 * A thousand moves of the aperture with pages mapped, to fresh places and to refused ones, cost
 * no table pages: back home, every page the allocator handed out is back but the ones home
 * needs, guest RAM is still mapped, and the aperture pages translate where they did.  The old
 * wiring (map the new place, leave the old) is measured too, so the count is seen to move. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/vmx/pure/ept.h"
#include "tests/unit/test_vmx_ept_arena.h"
#include "vmm/io/ept_window.h"
#include "vmm/io/io_bus.h"

#define MiB           (1ULL << 20)
#define GiB           (1ULL << 30)
#define RAM_HPA       0x200000000ULL /* where the guest's RAM "is" on the host */
#define RAM_BYTES     (16 * MiB)
#define PHYS_BITS     36u
#define BAR0_HOME     0xF0000000ULL
#define BAR0_SIZE     (16 * MiB)
#define BAR2_HOME     0xE0000000ULL
#define BAR2_SIZE     (256 * MiB)
#define LOW_START     (24 * MiB) /* the guest's window inside the aperture */
#define LOW_SIZE      (24 * MiB)
#define LADDER_EVERY  (2 * MiB) /* a page mapped at every 2 MiB of the window */
#define MOVES         1000u
#define REFUSED_EVERY 8u

/* The ladder: the window's page at `off` maps to a RAM page when off is a multiple of 2 MiB. */
static bool ladder(void *ctx, uint64_t off, uint64_t *hpa)
{
    if (off % LADDER_EVERY)
        return false;
    *hpa = RAM_HPA + off / LADDER_EVERY * 4096;
    return true;
}

struct guest {
    struct arena a;
    struct ept e;
    struct io_bus bus;
    struct io_mmio *bar0, *bar2;
    struct ept_window w;
    bool old_wiring; /* map the new place only, as before the fix */
};

static void aperture_moved(void *ctx, uint64_t old_base, uint64_t new_base)
{
    struct guest *g = ctx;
    if (g->old_wiring) {
        if (new_base != IO_UNPLACED)
            assert_int_equal(ept_window_move(&g->e, &g->w, IO_UNPLACED, new_base), 0);
        return;
    }
    assert_int_equal(ept_window_move(&g->e, &g->w, old_base, new_base), 0);
}

static int setup(void **state)
{
    struct guest *g = calloc(1, sizeof *g);
    g->a.mem = calloc(ARENA_PAGES, 4096);
    g->a.fail_after = -1;
    const struct ept_ops ops = { arena_alloc, arena_free, arena_virt, &g->a };
    assert_int_equal(ept_init(&g->e, &ops), 0);
    assert_int_equal(ept_map(&g->e, 0, RAM_HPA, RAM_BYTES, EPT_PERM_RWX, EPT_MT_WB), 0);
    io_bus_init(&g->bus);
    io_bus_set_window(&g->bus, RAM_BYTES, 1ULL << PHYS_BITS);
    assert_int_equal(io_bus_reserve(&g->bus, 0xFEC00000ULL, 0x1400000ULL, "interrupt controllers"),
                     IO_OK);
    g->w = (struct ept_window){ BAR2_SIZE, LOW_START, LOW_SIZE, EPT_PERM_R | EPT_PERM_W,
                                EPT_MT_WB, ladder,    NULL };
    const struct io_mmio r0 = { BAR0_HOME,   BAR0_SIZE,         NULL, NULL, NULL, NULL,
                                "vgpu-bar0", { true, 2, 0, 0 }, NULL };
    const struct io_mmio r2 = { BAR2_HOME,   BAR2_SIZE,         NULL, NULL, aperture_moved, g,
                                "vgpu-bar2", { true, 2, 0, 2 }, NULL };
    assert_int_equal(io_bus_add_mmio(&g->bus, &r0, &g->bar0), IO_OK);
    assert_int_equal(io_bus_add_mmio(&g->bus, &r2, &g->bar2), IO_OK);
    /* The ladder mapping at home, as the guest's GGTT writes make it. */
    assert_int_equal(ept_window_move(&g->e, &g->w, IO_UNPLACED, BAR2_HOME), 0);
    *state = g;
    return 0;
}

static int teardown(void **state)
{
    struct guest *g = *state;
    ept_destroy(&g->e);
    assert_int_equal(g->a.live, 0);
    assert_int_equal(g->a.bad_frees, 0);
    free(g->a.mem);
    free(g);
    return 0;
}

/* The storm: fresh places above 4 GiB, every 8th move over BAR0 or past the top. */
static unsigned storm(struct guest *g, unsigned moves)
{
    uint64_t top = 1ULL << PHYS_BITS, places = (top - 4 * GiB) / BAR2_SIZE;
    unsigned refused = 0;
    for (unsigned m = 0; m < moves; m++) {
        uint64_t base = 4 * GiB + (m % places) * BAR2_SIZE;
        bool refuse = m % REFUSED_EVERY == 1;
        if (refuse)
            base = (m / REFUSED_EVERY) % 2 ? top : BAR0_HOME;
        int rc = io_bus_place(&g->bus, g->bar2, base, NULL);
        if (refuse) {
            assert_int_equal(rc, (m / REFUSED_EVERY) % 2 ? IO_E_WINDOW : IO_E_OVERLAP);
            assert_int_equal(g->bar2->base, IO_UNPLACED);
            refused++;
        } else {
            assert_int_equal(rc, IO_OK);
            if (m % 50 == 0) /* (a walk of all 64 Ki pages: not after every move) */
                assert_int_equal(ept_window_mapped(&g->e, &g->w, base), LOW_SIZE / LADDER_EVERY);
        }
    }
    return refused;
}

static void test_thousand_moves_cost_nothing(void **state)
{
    struct guest *g = *state;
    unsigned home_pages = g->a.live;
    assert_int_equal(ept_window_mapped(&g->e, &g->w, BAR2_HOME), LOW_SIZE / LADDER_EVERY);
    unsigned refused = storm(g, MOVES);
    assert_int_equal(refused, MOVES / REFUSED_EVERY);
    assert_int_equal(g->bus.refused, refused);
    assert_int_equal(io_bus_place(&g->bus, g->bar2, BAR2_HOME, NULL), IO_OK);
    print_message("%u moves (%u refused): %u table pages at home before, %u after\n", MOVES,
                  refused, home_pages, g->a.live);
    assert_int_equal(g->a.live, home_pages);
    assert_int_equal(g->e.tables, home_pages);
    /* The aperture's pages are where they were, and nothing else of it is mapped. */
    for (uint64_t off = 0; off < LOW_SIZE; off += LADDER_EVERY) {
        uint64_t hpa;
        assert_int_equal(ept_walk(&g->e, BAR2_HOME + LOW_START + off, &hpa, NULL, NULL, NULL), 0);
        assert_int_equal(hpa, RAM_HPA + off / LADDER_EVERY * 4096);
    }
    assert_int_equal(ept_window_mapped(&g->e, &g->w, BAR2_HOME), LOW_SIZE / LADDER_EVERY);
    /* Guest RAM was never touched, a refused place over BAR0 left BAR0's addresses alone. */
    for (uint64_t gpa = 0; gpa < RAM_BYTES; gpa += MiB) {
        uint64_t hpa;
        assert_int_equal(ept_walk(&g->e, gpa, &hpa, NULL, NULL, NULL), 0);
        assert_int_equal(hpa, RAM_HPA + gpa);
    }
    assert_int_equal(g->bar0->base, BAR0_HOME);
}

static void test_decoding_off_unmaps(void **state)
{
    struct guest *g = *state;
    unsigned home_pages = g->a.live;
    assert_int_equal(io_bus_place(&g->bus, g->bar2, IO_UNPLACED, NULL), IO_OK);
    assert_int_equal(ept_window_mapped(&g->e, &g->w, BAR2_HOME), 0);
    /* Only the tables RAM needs are left. */
    assert_true(g->a.live < home_pages);
    assert_int_equal(io_bus_place(&g->bus, g->bar2, BAR2_HOME, NULL), IO_OK);
    assert_int_equal(g->a.live, home_pages);
}

/* What the storm cost before: the old place's translations and tables stayed. */
static void test_old_wiring_leaks(void **state)
{
    struct guest *g = *state;
    unsigned home_pages = g->a.live;
    g->old_wiring = true;
    unsigned moves = 100;
    storm(g, moves);
    g->old_wiring = false;
    unsigned leaked = g->a.live - home_pages;
    print_message("the old wiring: %u table pages left behind by %u moves (%.1f a move)\n", leaked,
                  moves, (double)leaked / moves);
    assert_true(leaked >= (moves - moves / REFUSED_EVERY) * (LOW_SIZE / EPT_PAGE_2M));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_thousand_moves_cost_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decoding_off_unmaps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_old_wiring_leaks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
