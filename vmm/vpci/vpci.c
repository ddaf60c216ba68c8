/* Configuration mechanism #1 over a small set of functions: the address latch, byte-lane
 * reads and writes through the data window, write masks, and BAR change reports. */
#include "vmm/vpci/vpci.h"

#include <string.h>

#define ALL_ONES_BYTE 0xFFu
#define BYTE_BITS     8u

void vpci_init(struct vpci *v)
{
    memset(v, 0, sizeof *v);
}

void vpci_set_bar_callback(struct vpci *v, vpci_bar_fn fn, void *ctx)
{
    v->on_bar = fn;
    v->on_bar_ctx = ctx;
}

const char *vpci_strerror(int err)
{
    switch (err) {
    case VPCI_OK:
        return "ok";
    case VPCI_E_ARG:
        return "argument out of range";
    case VPCI_E_FULL:
        return "no room for another function";
    case VPCI_E_EXISTS:
        return "function already present";
    case VPCI_E_BAR:
        return "invalid BAR (size, alignment, reach or slot)";
    }
    return "unknown error";
}

static bool width_ok(unsigned width)
{
    return width == 1 || width == 2 || width == 4;
}

struct vpci_func *vpci_find(struct vpci *v, unsigned bus, unsigned dev, unsigned fn)
{
    if (bus != 0)
        return NULL;
    for (unsigned i = 0; i < v->n_funcs; i++)
        if (v->func[i].dev == dev && v->func[i].fn == fn)
            return &v->func[i];
    return NULL;
}

struct vpci_func *vpci_add_func(struct vpci *v, unsigned dev, unsigned fn, int *err)
{
    int e = VPCI_OK;
    if (dev >= PCI_DEVICES_PER_BUS || fn >= PCI_FUNCTIONS_PER_DEVICE)
        e = VPCI_E_ARG;
    else if (vpci_find(v, 0, dev, fn))
        e = VPCI_E_EXISTS;
    else if (v->n_funcs >= VPCI_MAX_FUNCS)
        e = VPCI_E_FULL;
    if (err)
        *err = e;
    if (e != VPCI_OK)
        return NULL;
    struct vpci_func *f = &v->func[v->n_funcs++];
    memset(f, 0, sizeof *f);
    f->dev = (uint8_t)dev;
    f->fn = (uint8_t)fn;
    return f;
}

static void put_le(uint8_t *p, unsigned width, uint32_t value)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(value >> (BYTE_BITS * i));
}

static uint32_t get_le(const uint8_t *p, unsigned width)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint32_t)p[i] << (BYTE_BITS * i);
    return v;
}

static bool is_bar_dword(unsigned off, unsigned width)
{
    unsigned end = PCI_BAR0 + PCI_MAX_BARS * PCI_BAR_STRIDE;
    return off < end && off + width > PCI_BAR0;
}

int vpci_func_set(struct vpci_func *f, unsigned off, unsigned width, uint32_t value, uint32_t wmask)
{
    if (!f || !width_ok(width) || off % width || off + width > PCI_CFG_SPACE_SIZE ||
        is_bar_dword(off, width))
        return VPCI_E_ARG;
    put_le(&f->cfg[off], width, value);
    put_le(&f->wmask[off], width, wmask);
    return VPCI_OK;
}

static bool pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* Is slot `bar` free: not implemented and not the upper half of a 64-bit BAR? */
static bool bar_slot_free(const struct vpci_func *f, unsigned bar)
{
    return f->bar[bar].kind == VPCI_BAR_NONE &&
           !(bar > 0 && f->bar[bar - 1].kind == VPCI_BAR_MEM64);
}

int vpci_func_set_bar(struct vpci_func *f, unsigned bar, enum vpci_bar_kind kind, bool prefetchable,
                      uint64_t size, uint64_t base)
{
    if (!f || bar >= PCI_MAX_BARS)
        return VPCI_E_ARG;
    uint64_t min, max_size, reach; /* reach: the address space the BAR can point into */
    switch (kind) {
    case VPCI_BAR_IO:
        min = PCI_BAR_IO_MIN_SIZE, max_size = PCI_BAR_IO_MAX_SIZE, reach = 1ULL << 16;
        break;
    case VPCI_BAR_MEM32:
        min = PCI_BAR_MEM_MIN_SIZE, max_size = 1ULL << 31, reach = 1ULL << 32;
        break;
    case VPCI_BAR_MEM64:
        min = PCI_BAR_MEM_MIN_SIZE, max_size = 1ULL << 63, reach = 0; /* 0: all 64 bits */
        break;
    default:
        return VPCI_E_ARG;
    }
    if (!pow2(size) || size < min || size > max_size || base & (size - 1) ||
        (reach && (base >= reach || size > reach - base)) ||
        (kind == VPCI_BAR_IO && prefetchable) || !bar_slot_free(f, bar) ||
        (kind == VPCI_BAR_MEM64 && (bar + 1 >= PCI_MAX_BARS || !bar_slot_free(f, bar + 1))))
        return VPCI_E_BAR;

    unsigned off = PCI_BAR0 + bar * PCI_BAR_STRIDE;
    uint64_t addr_mask = ~(size - 1); /* the address bits the guest may set */
    uint32_t flags;
    if (kind == VPCI_BAR_IO) {
        flags = PCI_BAR_IO;
        put_le(&f->wmask[off], 4, (uint32_t)addr_mask & ~PCI_BAR_IO_FLAGS);
    } else {
        flags = (kind == VPCI_BAR_MEM64 ? PCI_BAR_MEM_TYPE_64 : 0) |
                (prefetchable ? PCI_BAR_MEM_PREFETCH : 0);
        put_le(&f->wmask[off], 4, (uint32_t)addr_mask & ~PCI_BAR_MEM_FLAGS);
    }
    put_le(&f->cfg[off], 4, (uint32_t)base | flags);
    if (kind == VPCI_BAR_MEM64) {
        put_le(&f->cfg[off + PCI_BAR_STRIDE], 4, (uint32_t)(base >> 32));
        put_le(&f->wmask[off + PCI_BAR_STRIDE], 4, (uint32_t)(addr_mask >> 32));
    }
    f->bar[bar] = (struct vpci_bar){ .kind = kind, .prefetchable = prefetchable, .size = size };
    return VPCI_OK;
}

static uint64_t bar_base_of(const struct vpci_func *f, unsigned bar)
{
    unsigned off = PCI_BAR0 + bar * PCI_BAR_STRIDE;
    uint64_t lo = get_le(&f->cfg[off], 4);
    switch (f->bar[bar].kind) {
    case VPCI_BAR_IO:
        return lo & ~(uint64_t)PCI_BAR_IO_FLAGS;
    case VPCI_BAR_MEM32:
        return lo & ~(uint64_t)PCI_BAR_MEM_FLAGS;
    case VPCI_BAR_MEM64:
        return (lo & ~(uint64_t)PCI_BAR_MEM_FLAGS) |
               (uint64_t)get_le(&f->cfg[off + PCI_BAR_STRIDE], 4) << 32;
    case VPCI_BAR_NONE:
        break;
    }
    return 0;
}

static bool bar_decode(const struct vpci_func *f, unsigned bar)
{
    uint32_t cmd = get_le(&f->cfg[PCI_COMMAND], 2);
    return cmd & (f->bar[bar].kind == VPCI_BAR_IO ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY);
}

int vpci_bar_base(struct vpci *v, unsigned dev, unsigned fn, unsigned bar, uint64_t *base)
{
    struct vpci_func *f = vpci_find(v, 0, dev, fn);
    if (!f || bar >= PCI_MAX_BARS || f->bar[bar].kind == VPCI_BAR_NONE || !base)
        return VPCI_E_ARG;
    *base = bar_base_of(f, bar);
    return VPCI_OK;
}

/* Any width 1..4 and any offset; bytes past the space read as all ones. */
static uint32_t read_bytes(const struct vpci_func *f, unsigned off, unsigned width)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < width; i++) {
        unsigned o = off + i;
        uint32_t b = f && o < PCI_CFG_SPACE_SIZE ? f->cfg[o] : ALL_ONES_BYTE;
        v |= b << (BYTE_BITS * i);
    }
    return v;
}

static void write_bytes(struct vpci *v, struct vpci_func *f, unsigned off, unsigned width,
                        uint32_t value)
{
    if (!f)
        return;
    struct {
        uint64_t base;
        bool decode;
    } before[PCI_MAX_BARS];
    for (unsigned b = 0; b < PCI_MAX_BARS; b++) {
        before[b].base = bar_base_of(f, b);
        before[b].decode = bar_decode(f, b);
    }
    for (unsigned i = 0; i < width; i++) {
        unsigned o = off + i;
        if (o >= PCI_CFG_SPACE_SIZE)
            break;
        uint8_t nb = (uint8_t)(value >> (BYTE_BITS * i));
        f->cfg[o] = (uint8_t)((f->cfg[o] & ~f->wmask[o]) | (nb & f->wmask[o]));
    }
    if (!v->on_bar)
        return;
    for (unsigned b = 0; b < PCI_MAX_BARS; b++) {
        if (f->bar[b].kind == VPCI_BAR_NONE)
            continue;
        struct vpci_bar_event ev = {
            .dev = f->dev,
            .fn = f->fn,
            .bar = b,
            .io = f->bar[b].kind == VPCI_BAR_IO,
            .base = bar_base_of(f, b),
            .size = f->bar[b].size,
            .decode = bar_decode(f, b),
        };
        if (ev.base != before[b].base || ev.decode != before[b].decode)
            v->on_bar(v->on_bar_ctx, &ev);
    }
}

static uint32_t width_mask(unsigned width)
{
    return width >= 4 ? 0xFFFFFFFFu : (1u << (BYTE_BITS * width)) - 1;
}

uint32_t vpci_cfg_read(struct vpci *v, unsigned bus, unsigned dev, unsigned fn, unsigned off,
                       unsigned width)
{
    if (!width_ok(width))
        return 0xFFFFFFFFu;
    return read_bytes(vpci_find(v, bus, dev, fn), off, width);
}

void vpci_cfg_write(struct vpci *v, unsigned bus, unsigned dev, unsigned fn, unsigned off,
                    unsigned width, uint32_t value)
{
    if (width_ok(width))
        write_bytes(v, vpci_find(v, bus, dev, fn), off, width, value);
}

bool vpci_claims_port(uint16_t port, unsigned size)
{
    return (port == PCI_CONFIG_ADDRESS && size == 4) ||
           (port >= PCI_CONFIG_DATA && port < PCI_CONFIG_DATA + PCI_CONFIG_DATA_PORTS);
}

/* The function and config offset CONFIG_ADDRESS selects for the data byte lane `lane`. */
static struct vpci_func *latched(struct vpci *v, unsigned lane, unsigned *off)
{
    uint32_t a = v->address;
    *off = (a & PCI_CONFIG_ADDR_REG_MASK) + lane;
    return vpci_find(v, (a >> PCI_CONFIG_ADDR_BUS_SHIFT) & PCI_CONFIG_ADDR_BUS_MASK,
                     (a >> PCI_CONFIG_ADDR_DEV_SHIFT) & PCI_CONFIG_ADDR_DEV_MASK,
                     (a >> PCI_CONFIG_ADDR_FN_SHIFT) & PCI_CONFIG_ADDR_FN_MASK);
}

/* How many of an access's bytes fall inside the data window (the rest are past 0xCFF). */
static unsigned lanes_inside(uint16_t port, unsigned size)
{
    unsigned lane = port - PCI_CONFIG_DATA;
    return lane + size > PCI_CONFIG_DATA_PORTS ? PCI_CONFIG_DATA_PORTS - lane : size;
}

uint32_t vpci_io_read(struct vpci *v, uint16_t port, unsigned size)
{
    if (!width_ok(size) || !vpci_claims_port(port, size))
        return width_ok(size) ? width_mask(size) : 0xFFFFFFFFu;
    if (port == PCI_CONFIG_ADDRESS)
        return v->address;
    if (!(v->address & PCI_CONFIG_ENABLE))
        return width_mask(size);
    unsigned off, n = lanes_inside(port, size);
    struct vpci_func *f = latched(v, port - PCI_CONFIG_DATA, &off);
    uint32_t inside = read_bytes(f, off, n);
    return (inside | (width_mask(size) & ~width_mask(n)));
}

void vpci_io_write(struct vpci *v, uint16_t port, unsigned size, uint32_t value)
{
    if (!width_ok(size) || !vpci_claims_port(port, size))
        return;
    if (port == PCI_CONFIG_ADDRESS) {
        v->address = value & PCI_CONFIG_ADDR_KEPT;
        return;
    }
    if (!(v->address & PCI_CONFIG_ENABLE))
        return;
    unsigned off, n = lanes_inside(port, size);
    struct vpci_func *f = latched(v, port - PCI_CONFIG_DATA, &off);
    write_bytes(v, f, off, n, value);
}
