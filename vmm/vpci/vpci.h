/* A guest's virtual PCI configuration space, reached through configuration mechanism #1 (PCI
 * Local Bus Spec 3.0 §3.2.2.3.2): the guest writes a 32-bit address to CONFIG_ADDRESS (0xCF8)
 * and then reads or writes CONFIG_DATA (0xCFC..0xCFF, any size, at any byte lane).
 *
 * Pure mechanism: a handful of functions on bus 0, each a 256-byte header plus a write mask
 * (the bits the guest may change; every other bit ignores writes) and up to six BARs.  BARs
 * size as on hardware because their address bits below the size are not in the write mask:
 * writing all ones reads back the size mask with the type bits.  Functions that do not exist
 * read as all ones.  When a write moves a BAR or turns its decoding on or off (the command
 * register's memory or I/O enable), the owner's callback hears of it, so the hypervisor can
 * move the MMIO region it traps.  Which functions exist and what their headers hold is the
 * caller's (see vgpu_pci.h). */
#ifndef TESSERA_VMM_VPCI_VPCI_H
#define TESSERA_VMM_VPCI_VPCI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/pci_regs.h"

#define VPCI_MAX_FUNCS 8

enum vpci_err {
    VPCI_OK = 0,
    VPCI_E_ARG = -1,    /* out of range: device, function, offset, width, BAR index */
    VPCI_E_FULL = -2,   /* VPCI_MAX_FUNCS functions already */
    VPCI_E_EXISTS = -3, /* that device and function is already there */
    VPCI_E_BAR = -4,    /* BAR size not a power of two, too small or large, base not
                               aligned to it or outside the BAR's reach, 64-bit BAR at BAR5,
                               or the slot already taken (the upper half of a 64-bit BAR) */
};

enum vpci_bar_kind {
    VPCI_BAR_NONE = 0, /* not implemented (reads 0, ignores writes), or the upper half of
                               the 64-bit BAR below it */
    VPCI_BAR_IO,       /* I/O space, 32-bit */
    VPCI_BAR_MEM32,
    VPCI_BAR_MEM64, /* takes this slot and the next */
};

struct vpci_bar {
    enum vpci_bar_kind kind;
    bool prefetchable;
    uint64_t size; /* bytes (ports for I/O); a power of two */
};

struct vpci_func {
    uint8_t dev, fn; /* bus 0 only: the guest has no bridges */
    uint8_t cfg[PCI_CFG_SPACE_SIZE];
    uint8_t wmask[PCI_CFG_SPACE_SIZE]; /* 1 = the guest may change this bit */
    struct vpci_bar bar[PCI_MAX_BARS];
};

/* Where a BAR is now and whether the function decodes it (command register memory or I/O
 * enable).  While the guest sizes a BAR, base is the all-ones pattern; drivers turn decoding
 * off first, so a hypervisor maps only what has decode set. */
struct vpci_bar_event {
    uint8_t dev, fn;
    unsigned bar; /* 0..5, the lower slot of a 64-bit BAR */
    bool io;
    uint64_t base, size;
    bool decode;
};
typedef void (*vpci_bar_fn)(void *ctx, const struct vpci_bar_event *ev);

struct vpci {
    uint32_t address; /* CONFIG_ADDRESS latch, PCI_CONFIG_ADDR_KEPT bits */
    unsigned n_funcs;
    struct vpci_func func[VPCI_MAX_FUNCS];
    vpci_bar_fn on_bar; /* may be NULL */
    void *on_bar_ctx;
};

/* An empty bus: no functions, latch 0, no callback. */
void vpci_init(struct vpci *v);
void vpci_set_bar_callback(struct vpci *v, vpci_bar_fn fn, void *ctx);
const char *vpci_strerror(int err);

/* ---- Building the functions (before the guest runs) ---- */

/* Adds device dev (0..31), function fn (0..7) with an all-zero, read-only header.  Returns
 * the function, or NULL with *err (if not NULL) set. */
struct vpci_func *vpci_add_func(struct vpci *v, unsigned dev, unsigned fn, int *err);
/* Sets `width` (1, 2 or 4) bytes at `off` (aligned to width) to value, with write mask wmask
 * (0 = read-only).  Not for BARs: use vpci_func_set_bar. */
int vpci_func_set(struct vpci_func *f, unsigned off, unsigned width, uint32_t value,
                  uint32_t wmask);
/* Implements BAR `bar` of the given kind and size at `base`.  A 64-bit BAR also takes slot
 * bar + 1 (which must be unimplemented so far). */
int vpci_func_set_bar(struct vpci_func *f, unsigned bar, enum vpci_bar_kind kind, bool prefetchable,
                      uint64_t size, uint64_t base);

/* ---- Looking at the state (hypervisor side, no side effects) ---- */

struct vpci_func *vpci_find(struct vpci *v, unsigned bus, unsigned dev, unsigned fn);
/* The BAR's current base address (type bits stripped).  VPCI_E_ARG if there is no such
 * function or the slot holds no BAR (or the upper half of one). */
int vpci_bar_base(struct vpci *v, unsigned dev, unsigned fn, unsigned bar, uint64_t *base);

/* ---- Configuration accesses ---- */

/* A read of `width` (1, 2 or 4) bytes at config offset `off` of bus/dev/fn.  Bytes past the
 * 256-byte space and every byte of an absent function read as 0xFF. */
uint32_t vpci_cfg_read(struct vpci *v, unsigned bus, unsigned dev, unsigned fn, unsigned off,
                       unsigned width);
/* A write: only the write-mask bits change; absent functions ignore it.  Calls the BAR
 * callback for every BAR whose base or decode changed. */
void vpci_cfg_write(struct vpci *v, unsigned bus, unsigned dev, unsigned fn, unsigned off,
                    unsigned width, uint32_t value);

/* ---- The guest's port accesses ---- */

/* True if an access of `size` bytes at `port` belongs to the configuration mechanism: a 32-bit
 * access to CONFIG_ADDRESS, or any access starting in CONFIG_DATA.  Other sizes at 0xCF8..
 * 0xCFB are ordinary I/O on a PC (0xCF9 is the chipset's reset control), not the latch. */
bool vpci_claims_port(uint16_t port, unsigned size);
/* IN/OUT of size 1, 2 or 4 at a claimed port.  A data access reads or writes the addressed
 * dword's byte lanes port - 0xCFC onwards; lanes past 0xCFF read 0xFF and ignore writes.  With
 * the enable bit clear, data reads are all ones and writes are dropped. */
uint32_t vpci_io_read(struct vpci *v, uint16_t port, unsigned size);
void vpci_io_write(struct vpci *v, uint16_t port, unsigned size, uint32_t value);

#endif
