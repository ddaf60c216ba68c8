/*
 * Gen9 global GTT (GGTT) page-table entries and the memory-layout facts tied to them:
 * page size, entry size and count, and the geometry of X/Y tiles seen through fences.
 *
 * Sources: i915 gt/intel_gtt.h (GEN8_PAGE_PRESENT, gen8_pte_t, GEN8_PTE_ADDR mask),
 * gt/intel_ggtt.c (gen8_ggtt_pte_encode(), gen8_set_pte()); Intel PRM for Skylake Vol 5
 * "Memory Views" (GGTT entry format; "Tiling": X-Major 512 B x 8 rows, Y-Major 128 B x 32
 * rows made of 16-byte OWord columns). Gen8+ does no bit-6 address swizzling for tiled
 * surfaces (i915 i915_gem_tiling.c / intel_ggtt_fencing.c: swizzle mode NONE for Gen8+).
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_GTT_H
#define TESSERA_DRIVERS_IGPU_GEN9_GTT_H

#include <stdint.h>

#define GEN9_GTT_PAGE_SHIFT         12u
#define GEN9_GTT_PAGE_SIZE          (1u << GEN9_GTT_PAGE_SHIFT)
#define GEN9_GTT_PAGE_MASK          (GEN9_GTT_PAGE_SIZE - 1u)

/* A GGTT entry is 8 bytes; an 8 MiB table therefore holds 1 Mi entries = 4 GiB of graphics
 * address space. */
#define GEN9_GGTT_PTE_SIZE          8u
#define GEN9_GGTT_MAX_ENTRIES       (1u << 20)
#define GEN9_GGTT_MAX_SIZE          (GEN9_GGTT_MAX_ENTRIES * GEN9_GGTT_PTE_SIZE)

/* Entry bits: bit 0 present; bits 38:12 physical page address (39-bit physical addressing
 * on Skylake). The remaining bits are ignored for the GGTT on Gen9 (the PAT selection bits
 * apply to PPGTT only: "For GGTT, there is NO pat_sel[2:0] from the entry"). */
#define GEN9_GGTT_PTE_PRESENT       (1ull << 0)
#define GEN9_GGTT_PTE_ADDR_MASK     0x0000007FFFFFF000ull   /* bits 38:12 */

static inline uint64_t gen9_ggtt_pte_encode(uint64_t phys)
{
    return (phys & GEN9_GGTT_PTE_ADDR_MASK) | GEN9_GGTT_PTE_PRESENT;
}

static inline uint64_t gen9_ggtt_pte_addr(uint64_t pte)
{
    return pte & GEN9_GGTT_PTE_ADDR_MASK;
}

/* Tiles are 4 KiB. X-major: 512 bytes wide, 8 rows, rows stored one after another.
 * Y-major: 128 bytes wide, 32 rows, stored as 8 columns of 16-byte OWords, each column
 * 32 rows tall (PRM Vol 5 "Y-Major Tile"). */
#define GEN9_TILE_SIZE              4096u
#define GEN9_TILE_X_WIDTH           512u
#define GEN9_TILE_X_HEIGHT          8u
#define GEN9_TILE_Y_WIDTH           128u
#define GEN9_TILE_Y_HEIGHT          32u
#define GEN9_TILE_Y_OWORD           16u

#endif /* TESSERA_DRIVERS_IGPU_GEN9_GTT_H */
