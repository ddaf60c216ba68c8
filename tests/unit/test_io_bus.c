/* A guest's I/O bus (vmm/io/io_bus.c): port ranges (overlap, dispatch by the starting port, a
 * full table), MMIO regions (dispatch, regions that only occupy space, the unclaimed handler),
 * placement inside the window and never over another region, refusals leaving the region
 * unplaced, the moved hook on every change and not on registration, PCI BAR lookup, and the
 * RAM-write hook. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/io/io_bus.h"

#define GiB  (1ULL << 30)
#define MiB  (1ULL << 20)
#define W_LO (16 * MiB)   /* a 16 MiB guest */
#define W_HI (1ULL << 36) /* a CPU with 36 physical-address bits */

static struct io_bus bus;

struct moves {
    unsigned n;
    uint64_t old_base[8], new_base[8];
};
static struct moves moves;

static void moved(void *ctx, uint64_t old_base, uint64_t new_base)
{
    struct moves *m = ctx;
    if (m->n < 8) {
        m->old_base[m->n] = old_base;
        m->new_base[m->n] = new_base;
    }
    m->n++;
}

static enum io_status port_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    *value = (uint32_t)(uintptr_t)ctx + port;
    return size == 1 ? IO_DONE : IO_UNCLAIMED;
}

static bool mmio_read(void *ctx, uint64_t off, unsigned size, uint64_t *value)
{
    *value = off;
    return true;
}

static int setup(void **state)
{
    io_bus_init(&bus);
    io_bus_set_window(&bus, W_LO, W_HI);
    memset(&moves, 0, sizeof moves);
    return 0;
}

static struct io_mmio region(uint64_t base, uint64_t size, const char *name)
{
    return (struct io_mmio){ .base = base,
                             .size = size,
                             .read = mmio_read,
                             .moved = moved,
                             .ctx = &moves,
                             .name = name };
}

static void test_ports_dispatch_by_start(void **state)
{
    struct io_ports com1 = { 0x3F8, 8, port_in, NULL, (void *)(uintptr_t)0x1000, "COM1" };
    struct io_ports pic = { 0x20, 2, port_in, NULL, NULL, "8259" };
    assert_int_equal(io_bus_add_ports(&bus, &com1), IO_OK);
    assert_int_equal(io_bus_add_ports(&bus, &pic), IO_OK);
    assert_ptr_equal(io_bus_ports_at(&bus, 0x3F8)->name, com1.name);
    assert_ptr_equal(io_bus_ports_at(&bus, 0x3FF)->name, com1.name);
    assert_ptr_equal(io_bus_ports_at(&bus, 0x21)->name, pic.name);
    assert_null(io_bus_ports_at(&bus, 0x3F7));
    assert_null(io_bus_ports_at(&bus, 0x400));
    assert_null(io_bus_ports_at(&bus, 0x22));
    uint32_t v;
    const struct io_ports *p = io_bus_ports_at(&bus, 0x3FD);
    assert_int_equal(p->in(p->ctx, 0x3FD, 1, &v), IO_DONE);
    assert_int_equal(v, 0x1000 + 0x3FD);
}

static void test_ports_refused(void **state)
{
    struct io_ports a = { 0xCF8, 1, port_in, NULL, NULL, "address" };
    struct io_ports data = { 0xCFC, 4, port_in, NULL, NULL, "data" };
    struct io_ports rst = { 0xCF9, 1, port_in, NULL, NULL, "reset" };
    assert_int_equal(io_bus_add_ports(&bus, &a), IO_OK);
    assert_int_equal(io_bus_add_ports(&bus, &data), IO_OK);
    assert_int_equal(io_bus_add_ports(&bus, &rst), IO_OK); /* between them: no overlap */
    struct io_ports over = { 0xCFB, 2, port_in, NULL, NULL, "over" };
    assert_int_equal(io_bus_add_ports(&bus, &over), IO_E_OVERLAP);
    struct io_ports empty = { 0x100, 0, port_in, NULL, NULL, "empty" };
    assert_int_equal(io_bus_add_ports(&bus, &empty), IO_E_ARG);
    struct io_ports wraps = { 0xFFFF, 2, port_in, NULL, NULL, "wraps" };
    assert_int_equal(io_bus_add_ports(&bus, &wraps), IO_E_ARG);
    struct io_ports last = { 0xFFFF, 1, port_in, NULL, NULL, "last" };
    assert_int_equal(io_bus_add_ports(&bus, &last), IO_OK);
    assert_int_equal(bus.n_ports, 4);
    for (unsigned i = bus.n_ports; i < IO_MAX_PORT_RANGES; i++) {
        struct io_ports p = { (uint16_t)(0x1000 + i * 4), 4, port_in, NULL, NULL, "more" };
        assert_int_equal(io_bus_add_ports(&bus, &p), IO_OK);
    }
    struct io_ports full = { 0x2000, 4, port_in, NULL, NULL, "full" };
    assert_int_equal(io_bus_add_ports(&bus, &full), IO_E_FULL);
}

static void test_mmio_dispatch_and_unclaimed(void **state)
{
    struct io_mmio *r;
    struct io_mmio bar0 = region(0xF0000000ULL, 16 * MiB, "bar0");
    assert_int_equal(io_bus_add_mmio(&bus, &bar0, &r), IO_OK);
    assert_int_equal(moves.n, 0); /* registration is not a move */
    assert_ptr_equal(io_bus_mmio_at(&bus, 0xF0000000ULL), r);
    assert_ptr_equal(io_bus_mmio_at(&bus, 0xF0FFFFFFULL), r);
    assert_null(io_bus_mmio_at(&bus, 0xF1000000ULL));
    assert_null(io_bus_mmio_at(&bus, 0xEFFFFFFFULL));
    /* Space kept free is never dispatched to. */
    assert_int_equal(io_bus_reserve(&bus, 0xFEC00000ULL, 0x1400000ULL, "apic"), IO_OK);
    assert_null(io_bus_mmio_at(&bus, 0xFEE00000ULL));
    assert_null(io_bus_unclaimed(&bus));
    io_bus_set_unclaimed(&bus, &(struct io_mmio){ .read = mmio_read, .name = "empty bus" });
    const struct io_mmio *u = io_bus_unclaimed(&bus);
    assert_non_null(u);
    assert_int_equal(u->base, 0);
    assert_int_equal(u->size, UINT64_MAX);
}

static void test_place_window_and_overlap(void **state)
{
    struct io_mmio *r0, *r2;
    struct io_mmio bar0 = region(0xF0000000ULL, 16 * MiB, "bar0");
    struct io_mmio bar2 = region(0xE0000000ULL, 256 * MiB, "bar2");
    assert_int_equal(io_bus_add_mmio(&bus, &bar0, &r0), IO_OK);
    assert_int_equal(io_bus_add_mmio(&bus, &bar2, &r2), IO_OK);
    assert_int_equal(io_bus_reserve(&bus, 0xFEC00000ULL, 0x1400000ULL, "apic"), IO_OK);

    const struct io_mmio *other;
    assert_int_equal(io_bus_place(&bus, r2, 4 * GiB, &other), IO_OK);
    assert_null(other);
    assert_int_equal(r2->base, 4 * GiB);
    assert_int_equal(moves.n, 1);
    assert_int_equal(moves.old_base[0], 0xE0000000ULL);
    assert_int_equal(moves.new_base[0], 4 * GiB);

    /* Over BAR0 (and the APIC area): refused, unplaced, the owner told. */
    assert_int_equal(io_bus_place(&bus, r2, 0xF0000000ULL, &other), IO_E_OVERLAP);
    assert_ptr_equal(other, r0);
    assert_int_equal(r2->base, IO_UNPLACED);
    assert_int_equal(moves.n, 2);
    assert_int_equal(moves.new_base[1], IO_UNPLACED);
    assert_null(io_bus_mmio_at(&bus, 4 * GiB));

    /* Over RAM, past the top, wrapping: outside the window. */
    assert_int_equal(io_bus_place(&bus, r2, 0, NULL), IO_E_WINDOW);
    assert_int_equal(io_bus_place(&bus, r2, W_HI - 128 * MiB, NULL), IO_E_WINDOW);
    assert_int_equal(io_bus_place(&bus, r2, UINT64_MAX - MiB + 1, NULL), IO_E_WINDOW);
    assert_int_equal(moves.n, 2); /* unplaced to unplaced is no change */
    assert_int_equal(bus.refused, 4);

    /* Off a page boundary. */
    assert_int_equal(io_bus_place(&bus, r2, 4 * GiB + 0x800, NULL), IO_E_ALIGN);
    assert_int_equal(r2->base, IO_UNPLACED);
    assert_int_equal(bus.refused, 5);
    /* Just inside the top and just above RAM are fine. */
    assert_int_equal(io_bus_place(&bus, r2, W_HI - 256 * MiB, NULL), IO_OK);
    assert_int_equal(io_bus_place(&bus, r0, W_LO, NULL), IO_OK);
    assert_ptr_equal(io_bus_mmio_at(&bus, W_LO), r0);
    /* The same place again: nothing happens. */
    unsigned n = moves.n;
    assert_int_equal(io_bus_place(&bus, r0, W_LO, NULL), IO_OK);
    assert_int_equal(moves.n, n);
    /* Decoding off. */
    assert_int_equal(io_bus_place(&bus, r0, IO_UNPLACED, NULL), IO_OK);
    assert_int_equal(r0->base, IO_UNPLACED);
    assert_null(io_bus_mmio_at(&bus, W_LO));
}

static void test_register_refused_place(void **state)
{
    struct io_mmio *r;
    struct io_mmio big = region(0, 32 * MiB, "over RAM");
    assert_int_equal(io_bus_add_mmio(&bus, &big, &r), IO_E_WINDOW);
    assert_non_null(r); /* registered, decoding nowhere */
    assert_int_equal(r->base, IO_UNPLACED);
    assert_int_equal(moves.n, 0);
    assert_int_equal(io_bus_place(&bus, r, 1 * GiB, NULL), IO_OK);
    assert_int_equal(moves.n, 1);
    struct io_mmio zero = region(1 * GiB, 0, "empty");
    assert_int_equal(io_bus_add_mmio(&bus, &zero, &r), IO_E_ARG);
    assert_null(r);
    struct io_mmio part = region(1 * GiB, 100, "part of a page");
    assert_int_equal(io_bus_add_mmio(&bus, &part, &r), IO_E_ARG);
    assert_int_equal(io_bus_reserve(&bus, 3 * GiB + 1, MiB, "odd"), IO_E_ARG);
    for (unsigned i = bus.n_mmio; i < IO_MAX_MMIO_REGIONS; i++) {
        struct io_mmio more = region(2 * GiB + i * MiB, MiB, "more");
        assert_int_equal(io_bus_add_mmio(&bus, &more, NULL), IO_OK);
    }
    struct io_mmio full = region(3 * GiB, MiB, "full");
    assert_int_equal(io_bus_add_mmio(&bus, &full, &r), IO_E_FULL);
    assert_int_equal(io_bus_reserve(&bus, 3 * GiB, MiB, "full"), IO_E_FULL);
}

static void test_find_bar(void **state)
{
    struct io_mmio *r;
    struct io_mmio bar2 = region(0xE0000000ULL, 256 * MiB, "bar2");
    bar2.pci = (struct io_pci_bar){ true, 2, 0, 2 };
    struct io_mmio plain = region(0xF0000000ULL, MiB,
                                  "plain"); /* pci.on false: BAR0 of 00:00.0 is not it */
    assert_int_equal(io_bus_add_mmio(&bus, &plain, NULL), IO_OK);
    assert_int_equal(io_bus_add_mmio(&bus, &bar2, &r), IO_OK);
    assert_ptr_equal(io_bus_find_bar(&bus, 2, 0, 2), r);
    assert_null(io_bus_find_bar(&bus, 2, 0, 0));
    assert_null(io_bus_find_bar(&bus, 0, 0, 0));
    assert_int_equal(io_bus_reserve(&bus, 0xE8000000ULL, MiB, "clash"), IO_E_OVERLAP);
}

static bool ram_write(void *ctx, uint64_t gpa)
{
    *(uint64_t *)ctx = gpa;
    return true;
}

static void test_ram_write_hook(void **state)
{
    uint64_t seen = 0;
    assert_null(bus.ram_write);
    io_bus_set_ram_write(&bus, ram_write, &seen);
    assert_true(bus.ram_write(bus.ram_write_ctx, 0x5000));
    assert_int_equal(seen, 0x5000);
}

static void test_strerror(void **state)
{
    assert_string_equal(io_strerror(IO_OK), "ok");
    assert_string_equal(io_strerror(IO_E_OVERLAP), "overlaps another device");
    assert_string_equal(io_strerror(IO_E_WINDOW), "outside the MMIO window");
    assert_string_equal(io_strerror(IO_E_ALIGN), "not on a page boundary");
    assert_string_equal(io_strerror(-99), "unknown I/O bus error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_ports_dispatch_by_start, setup),
        cmocka_unit_test_setup(test_ports_refused, setup),
        cmocka_unit_test_setup(test_mmio_dispatch_and_unclaimed, setup),
        cmocka_unit_test_setup(test_place_window_and_overlap, setup),
        cmocka_unit_test_setup(test_register_refused_place, setup),
        cmocka_unit_test_setup(test_find_bar, setup),
        cmocka_unit_test_setup(test_ram_write_hook, setup),
        cmocka_unit_test_setup(test_strerror, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
