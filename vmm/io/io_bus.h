/* A guest's I/O bus: the port ranges and MMIO regions its devices answer, owned by its VM.
 * Devices register what they decode; the exit handlers (vmm/vcpu/exit_io.c, exit_mem.c) decode
 * an access and dispatch it here, and a device never needs to know which exit brought it.
 *
 * MMIO regions are placed inside the VM's MMIO window (above its RAM, below the top of the
 * guest-physical space it can address) and never over another region: a placement that breaks
 * either rule is refused and the region then decodes nowhere until it is placed again, so a
 * guest that moves a BAR over its RAM or over another device gets nothing there rather than
 * the hypervisor unmapping its memory.  A region that follows a PCI BAR says which one, so the
 * PCI side can re-base it when the guest moves the BAR; the region's owner hears of every move
 * (to move EPT mappings with it).  Regions without handlers only occupy space: memory EPT maps
 * straight through (a framebuffer), or addresses the platform keeps free.
 *
 * Pure: no hardware access, all state in struct io_bus. */
#ifndef TESSERA_VMM_IO_IO_BUS_H
#define TESSERA_VMM_IO_IO_BUS_H

#include <stdbool.h>
#include <stdint.h>

#define IO_MAX_PORT_RANGES  16u
#define IO_MAX_MMIO_REGIONS 8u
#define IO_PORT_SPACE       0x10000u   /* x86 I/O ports 0..0xFFFF */
#define IO_UNPLACED         UINT64_MAX /* a region's base while it decodes nowhere */
/* EPT traps and maps whole pages: regions start and end on them. */
#define IO_PAGE_BYTES 4096u

enum io_err {
    IO_OK = 0,
    IO_E_ARG = -1,     /* empty or wrapping range, a region not whole pages, NULL bus or region */
    IO_E_FULL = -2,    /* IO_MAX_PORT_RANGES or IO_MAX_MMIO_REGIONS already */
    IO_E_OVERLAP = -3, /* overlaps a range or region already there */
    IO_E_WINDOW = -4,  /* outside the MMIO window (over RAM, or beyond what the guest addresses) */
    IO_E_ALIGN = -5,   /* a base that is not on a page boundary */
};
const char *io_strerror(int err);

/* What a port device made of an access. */
enum io_status {
    IO_DONE,      /* taken: the guest goes on after the instruction */
    IO_UNCLAIMED, /* not an access it decodes (a width it ignores): as if nothing were there */
    IO_RESTARTED, /* it restarted the guest (a reset the guest asked for): the CPU state is new */
    IO_STOPPED,   /* it stopped the guest (vm_stop said why) */
};

/* Ports [first, first + count).  An access is dispatched by the port it starts at; the value
 * holds `size` (1, 2 or 4) bytes. */
struct io_ports {
    uint16_t first;
    uint16_t count;
    enum io_status (*in)(void *ctx, uint16_t port, unsigned size, uint32_t *value);
    enum io_status (*out)(void *ctx, uint16_t port, unsigned size, uint32_t value);
    void *ctx;
    const char *name;
};

/* The PCI BAR a region decodes behind. */
struct io_pci_bar {
    bool on;
    uint8_t dev, fn, bar;
};

/* Guest-physical [base, base + size). */
struct io_mmio {
    uint64_t base, size;
    /* Offset from base; size 1, 2, 4 or 8; false: the access is refused (the guest stops).
     * Both NULL: the region only occupies its addresses (accesses there never reach the bus). */
    bool (*read)(void *ctx, uint64_t offset, unsigned size, uint64_t *value);
    bool (*write)(void *ctx, uint64_t offset, unsigned size, uint64_t value);
    /* It moved from old_base to new_base (either may be IO_UNPLACED); may be NULL. */
    void (*moved)(void *ctx, uint64_t old_base, uint64_t new_base);
    void *ctx;
    const char *name;
    struct io_pci_bar pci;
    /* The hypervisor's work (ns) a write would start, from what such work took before (a
     * submission's scan): the vCPU may put a long one off (vcpu_defer_work).  May be NULL. */
    uint64_t (*write_cost)(void *ctx, uint64_t offset, unsigned size, uint64_t value);
};

struct io_bus {
    struct io_ports ports[IO_MAX_PORT_RANGES];
    unsigned n_ports;
    struct io_mmio mmio[IO_MAX_MMIO_REGIONS];
    unsigned n_mmio;
    struct io_mmio unclaimed;      /* answers MMIO nothing else claims (offset = the GPA) */
    uint64_t window_lo, window_hi; /* regions are placed inside [lo, hi) */
    /* A write to a page of RAM a device write-protected: true if it took the page back (the
     * guest executes the write again). */
    bool (*ram_write)(void *ctx, uint64_t gpa);
    void *ram_write_ctx;
    uint64_t moves, refused; /* placements made and refused */
};

/* An empty bus with an empty window: set the window before placing anything. */
void io_bus_init(struct io_bus *b);
void io_bus_set_window(struct io_bus *b, uint64_t lo, uint64_t hi);

/* ---- ports ---- */

/* IO_OK, IO_E_ARG, IO_E_FULL or IO_E_OVERLAP (nothing registered then). */
int io_bus_add_ports(struct io_bus *b, const struct io_ports *p);
/* The range holding `port`, or NULL. */
const struct io_ports *io_bus_ports_at(const struct io_bus *b, uint16_t port);

/* ---- MMIO ---- */

/* Registers a region and places it at r->base (IO_UNPLACED: nowhere yet).  The region is
 * registered (*out, if not NULL) unless IO_E_ARG or IO_E_FULL is returned; with IO_E_WINDOW or
 * IO_E_OVERLAP it is registered unplaced.  `moved` is not called for the first placement. */
int io_bus_add_mmio(struct io_bus *b, const struct io_mmio *r, struct io_mmio **out);
/* Addresses the platform keeps free (the interrupt controllers' block): placed as given, with
 * no window check, so that no region is ever placed over them. */
int io_bus_reserve(struct io_bus *b, uint64_t base, uint64_t size, const char *name);
/* Moves r to `base` (IO_UNPLACED: decodes nowhere).  A base off a page boundary, outside the
 * window or over another region is refused (IO_E_ALIGN, IO_E_WINDOW, IO_E_OVERLAP with
 * *conflict, if not NULL, the region in the way): r is then unplaced.  r->moved hears of every
 * change of r->base. */
int io_bus_place(struct io_bus *b, struct io_mmio *r, uint64_t base,
                 const struct io_mmio **conflict);
/* The placed region with handlers that holds gpa, or NULL. */
struct io_mmio *io_bus_mmio_at(struct io_bus *b, uint64_t gpa);
/* The region behind PCI BAR `bar` of 00:dev.fn, or NULL. */
struct io_mmio *io_bus_find_bar(const struct io_bus *b, unsigned dev, unsigned fn, unsigned bar);
/* What answers MMIO no region claims (a Linux guest's empty bus); NULL handlers: nothing,
 * and such an access stops the guest. */
void io_bus_set_unclaimed(struct io_bus *b, const struct io_mmio *r);
/* The unclaimed-MMIO handler as a region at 0 spanning everything, or NULL if none is set. */
const struct io_mmio *io_bus_unclaimed(const struct io_bus *b);

/* ---- write-protected RAM ---- */

void io_bus_set_ram_write(struct io_bus *b, bool (*fn)(void *ctx, uint64_t gpa), void *ctx);

#endif
