/* The I/O bus's tables (io_bus.h). */
#include "vmm/io/io_bus.h"

#include <stddef.h>
#include <string.h>

const char *io_strerror(int err)
{
    switch (err) {
    case IO_OK:
        return "ok";
    case IO_E_ARG:
        return "invalid range";
    case IO_E_FULL:
        return "no room for another range";
    case IO_E_OVERLAP:
        return "overlaps another device";
    case IO_E_WINDOW:
        return "outside the MMIO window";
    case IO_E_ALIGN:
        return "not on a page boundary";
    default:
        return "unknown I/O bus error";
    }
}

void io_bus_init(struct io_bus *b)
{
    memset(b, 0, sizeof *b);
}

void io_bus_set_window(struct io_bus *b, uint64_t lo, uint64_t hi)
{
    b->window_lo = lo;
    b->window_hi = hi;
}

/* ---- ports ---- */

int io_bus_add_ports(struct io_bus *b, const struct io_ports *p)
{
    if (!b || !p || !p->count || (uint32_t)p->first + p->count > IO_PORT_SPACE)
        return IO_E_ARG;
    for (unsigned i = 0; i < b->n_ports; i++) {
        const struct io_ports *q = &b->ports[i];
        if (p->first < q->first + q->count && q->first < p->first + p->count)
            return IO_E_OVERLAP;
    }
    if (b->n_ports == IO_MAX_PORT_RANGES)
        return IO_E_FULL;
    b->ports[b->n_ports++] = *p;
    return IO_OK;
}

const struct io_ports *io_bus_ports_at(const struct io_bus *b, uint16_t port)
{
    for (unsigned i = 0; i < b->n_ports; i++)
        if (port >= b->ports[i].first && port - b->ports[i].first < b->ports[i].count)
            return &b->ports[i];
    return NULL;
}

/* ---- MMIO ---- */

static bool placed(const struct io_mmio *r)
{
    return r->base != IO_UNPLACED;
}
static bool trapped(const struct io_mmio *r)
{
    return r->read || r->write;
}

/* [a, a + as) and [b, b + bs) share an address; neither wraps (checked before). */
static bool overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
    return a < b + bs && b < a + as;
}

static const struct io_mmio *in_the_way(const struct io_bus *b, const struct io_mmio *r,
                                        uint64_t base)
{
    for (unsigned i = 0; i < b->n_mmio; i++) {
        const struct io_mmio *q = &b->mmio[i];
        if (q != r && placed(q) && overlaps(base, r->size, q->base, q->size))
            return q;
    }
    return NULL;
}

int io_bus_place(struct io_bus *b, struct io_mmio *r, uint64_t base,
                 const struct io_mmio **conflict)
{
    if (conflict)
        *conflict = NULL;
    int rc = IO_OK;
    uint64_t old = r->base;
    if (base != IO_UNPLACED && base != old) {
        const struct io_mmio *q;
        if (base % IO_PAGE_BYTES) {
            rc = IO_E_ALIGN;
        } else if (base > UINT64_MAX - r->size || base < b->window_lo ||
                   base + r->size > b->window_hi) {
            rc = IO_E_WINDOW;
        } else if ((q = in_the_way(b, r, base))) {
            rc = IO_E_OVERLAP;
            if (conflict)
                *conflict = q;
        }
        if (rc != IO_OK) {
            b->refused++;
            base = IO_UNPLACED;
        }
    }
    if (base == old)
        return rc;
    r->base = base;
    if (base != IO_UNPLACED)
        b->moves++;
    if (r->moved)
        r->moved(r->ctx, old, base);
    return rc;
}

static int add_region(struct io_bus *b, const struct io_mmio *r, struct io_mmio **out)
{
    if (out)
        *out = NULL;
    if (!b || !r || !r->size || r->size % IO_PAGE_BYTES)
        return IO_E_ARG;
    if (b->n_mmio == IO_MAX_MMIO_REGIONS)
        return IO_E_FULL;
    struct io_mmio *slot = &b->mmio[b->n_mmio++];
    *slot = *r;
    slot->base = IO_UNPLACED;
    if (out)
        *out = slot;
    return IO_OK;
}

int io_bus_add_mmio(struct io_bus *b, const struct io_mmio *r, struct io_mmio **out)
{
    if (out)
        *out = NULL;
    struct io_mmio *slot;
    int rc = add_region(b, r, &slot);
    if (rc != IO_OK)
        return rc;
    if (out)
        *out = slot;
    /* The first placement is the registrant's own: it has nothing mapped anywhere yet. */
    void (*moved)(void *, uint64_t, uint64_t) = slot->moved;
    slot->moved = NULL;
    rc = io_bus_place(b, slot, r->base, NULL);
    slot->moved = moved;
    return rc;
}

int io_bus_reserve(struct io_bus *b, uint64_t base, uint64_t size, const char *name)
{
    if (!b || !size || base > UINT64_MAX - size || (base | size) % IO_PAGE_BYTES)
        return IO_E_ARG;
    struct io_mmio r = { .base = base, .size = size, .name = name };
    if (in_the_way(b, &r, base))
        return IO_E_OVERLAP;
    struct io_mmio *slot;
    int rc = add_region(b, &r, &slot);
    if (rc == IO_OK)
        slot->base = base;
    return rc;
}

struct io_mmio *io_bus_mmio_at(struct io_bus *b, uint64_t gpa)
{
    for (unsigned i = 0; i < b->n_mmio; i++) {
        struct io_mmio *r = &b->mmio[i];
        if (placed(r) && trapped(r) && gpa >= r->base && gpa - r->base < r->size)
            return r;
    }
    return NULL;
}

struct io_mmio *io_bus_find_bar(const struct io_bus *b, unsigned dev, unsigned fn, unsigned bar)
{
    for (unsigned i = 0; i < b->n_mmio; i++) {
        const struct io_mmio *r = &b->mmio[i];
        if (r->pci.on && r->pci.dev == dev && r->pci.fn == fn && r->pci.bar == bar)
            return (struct io_mmio *)r; /* the bus's own region: the caller may place it */
    }
    return NULL;
}

void io_bus_set_unclaimed(struct io_bus *b, const struct io_mmio *r)
{
    b->unclaimed = *r;
    b->unclaimed.base = 0;
    b->unclaimed.size = UINT64_MAX;
}

const struct io_mmio *io_bus_unclaimed(const struct io_bus *b)
{
    return trapped(&b->unclaimed) ? &b->unclaimed : NULL;
}

/* ---- write-protected RAM ---- */

void io_bus_set_ram_write(struct io_bus *b, bool (*fn)(void *ctx, uint64_t gpa), void *ctx)
{
    b->ram_write = fn;
    b->ram_write_ctx = ctx;
}
