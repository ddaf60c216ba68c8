/* A device window whose pages EPT maps straight to host memory where the device says so and
 * traps everywhere else: the vGPU's aperture, where the ladder mapping sends a page the guest's
 * GGTT entry points at RAM to that RAM (gtt/gtt.h).  When the guest moves the window (its BAR),
 * the translations move with it: everything under the old place is unmapped, which frees the
 * EPT tables left empty, and the pages the device names are mapped at the new place.  A window
 * moved a thousand times costs no more EPT tables than one that never moved.
 *
 * Pure: the EPT structure comes in (arch/x86/vmx/pure/ept.h); the caller flushes (INVEPT). */
#ifndef TESSERA_VMM_IO_EPT_WINDOW_H
#define TESSERA_VMM_IO_EPT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx/pure/ept.h"

struct ept_window {
    uint64_t size; /* the region's: all of it is unmapped at the old place */
    /* The part that may be mapped: [base + first, base + first + map_size), 4 KiB multiples. */
    uint64_t first, map_size;
    unsigned perms, memtype; /* EPT_PERM_*, EPT_MT_* of the mapped pages */
    /* The host page behind the page at `off` (from first): true with *hpa, false when that
     * page traps. */
    bool (*page)(void *ctx, uint64_t off, uint64_t *hpa);
    void *ctx;
};

/* The window's region moved from old_base to new_base (IO_UNPLACED, vmm/io/io_bus.h: nowhere).
 * Returns 0, or the first EPT error (a page that could not be mapped traps instead). */
int ept_window_move(struct ept *e, const struct ept_window *w, uint64_t old_base,
                    uint64_t new_base);

/* Pages of the window mapped at `base` now (for tests and the shell). */
uint64_t ept_window_mapped(const struct ept *e, const struct ept_window *w, uint64_t base);

#endif
