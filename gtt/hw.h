/* The Gen9 global-GTT and fence-register facts gtt/ works with.  The facts themselves are named
 * once in drivers/igpu/ (gen9_gtt.h: entries and pages; gen9_regs.h: fence registers, with their
 * PRM and i915 sources); this header only includes them and adds the 64-bit quantities the
 * library computes with.  Headers only: gtt/ still does no hardware access. */
#ifndef GTT_HW_H
#define GTT_HW_H

#include <stdint.h>

#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

/* One GGTT page as a 64-bit byte count, so page arithmetic on graphics addresses never wraps
 * at 4 GiB. */
#define GTT_PAGE_BYTES ((uint64_t)GEN9_GTT_PAGE_SIZE)
/* The graphics address space a full GGTT maps: 1 Mi entries x 4 KiB = 4 GiB. */
#define GEN9_GGTT_MAX_BYTES ((uint64_t)GEN9_GGTT_MAX_ENTRIES << GEN9_GTT_PAGE_SHIFT)

#endif
