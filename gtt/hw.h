/* Gen9 global GTT and fence-register facts used by gtt/.  Named once here, used by name
 * everywhere else in the library.
 *
 * Sources: Intel PRM for Skylake/Kaby Lake (Gen9), Vol 5 "Memory Views" (global GTT: 8-byte
 * entries, 4 KiB pages, up to 4 GiB of global graphics memory) and Vol 2c (FENCE register
 * layout); Linux i915 `gt/intel_gtt.h` (GEN8_PAGE_PRESENT, the gen8 PTE address field) and
 * `i915_reg.h` (FENCE_REG_GEN6_LO/HI, GEN6_FENCE_PITCH_SHIFT, I965_FENCE_TILING_Y_SHIFT,
 * I965_FENCE_REG_VALID).
 *
 * drivers/igpu/gen9_regs.h did not exist when this was written; if it now names the same facts
 * the lead will fold these definitions into it. */
#ifndef GTT_HW_H
#define GTT_HW_H

#include <stdint.h>

/* Global GTT geometry (PRM Vol 5, Global GTT). */
#define GEN9_GTT_PAGE_SHIFT      12u                              /* 4 KiB pages */
#define GEN9_GTT_PAGE_SIZE       (UINT64_C(1) << GEN9_GTT_PAGE_SHIFT)
#define GEN9_GTT_PTE_SIZE        8u                               /* bytes per GGTT entry */
#define GEN9_GGTT_MAX_BYTES      (UINT64_C(4) << 30)                     /* 8 MiB GSM = 1 Mi PTEs */

/* Global GTT entry (i915 intel_gtt.h): bit 0 present, bits 38:12 the system page address. */
#define GEN9_GGTT_PTE_PRESENT    (UINT64_C(1) << 0)
#define GEN9_GGTT_PTE_ADDR_MASK  UINT64_C(0x0000007FFFFFF000)            /* bits 38:12 */

/* Fence registers (i915_reg.h FENCE_REG_GEN6_LO(i) = 0x100000 + 8 * i, 32 of them on Gen9).
 * One 64-bit value: bits 63:44 the last page (end address >> 12, inclusive), bits 42:32 the
 * pitch in 128-byte units minus one, bits 31:12 the first page (start address >> 12), bit 1
 * Y-tiling (else X), bit 0 valid. */
#define GEN9_FENCE_REG_BASE      0x100000u
#define GEN9_FENCE_REG_STRIDE    8u
#define GEN9_NUM_FENCES          32u
#define GEN9_FENCE_VALID         (UINT64_C(1) << 0)
#define GEN9_FENCE_TILING_Y      (UINT64_C(1) << 1)
#define GEN9_FENCE_START_SHIFT   12u
#define GEN9_FENCE_START_MASK    UINT64_C(0x00000000FFFFF000)            /* bits 31:12 */
#define GEN9_FENCE_PITCH_SHIFT   32u
#define GEN9_FENCE_PITCH_MASK    UINT64_C(0x000007FF00000000)            /* bits 42:32 */
#define GEN9_FENCE_PITCH_UNIT    128u                             /* pitch field: bytes/128 - 1 */
#define GEN9_FENCE_END_SHIFT     44u
#define GEN9_FENCE_END_MASK      UINT64_C(0xFFFFF00000000000)            /* bits 63:44 */

#endif
