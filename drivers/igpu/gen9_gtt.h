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

#define GEN9_GTT_PAGE_SHIFT 12u
#define GEN9_GTT_PAGE_SIZE  (1u << GEN9_GTT_PAGE_SHIFT)
#define GEN9_GTT_PAGE_MASK  (GEN9_GTT_PAGE_SIZE - 1u)

/* A GGTT entry is 8 bytes; an 8 MiB table therefore holds 1 Mi entries = 4 GiB of graphics
 * address space. */
#define GEN9_GGTT_PTE_SIZE    8u
#define GEN9_GGTT_MAX_ENTRIES (1u << 20)
#define GEN9_GGTT_MAX_SIZE    (GEN9_GGTT_MAX_ENTRIES * GEN9_GGTT_PTE_SIZE)

/* Entry bits: bit 0 present; bits 38:12 physical page address (39-bit physical addressing
 * on Skylake). The remaining bits are ignored for the GGTT on Gen9 (the PAT selection bits
 * apply to PPGTT only: "For GGTT, there is NO pat_sel[2:0] from the entry"). */
#define GEN9_GGTT_PTE_PRESENT   (1ull << 0)
#define GEN9_GGTT_PTE_ADDR_MASK 0x0000007FFFFFF000ull /* bits 38:12 */

static inline uint64_t gen9_ggtt_pte_encode(uint64_t phys)
{
    return (phys & GEN9_GGTT_PTE_ADDR_MASK) | GEN9_GGTT_PTE_PRESENT;
}

static inline uint64_t gen9_ggtt_pte_addr(uint64_t pte)
{
    return pte & GEN9_GGTT_PTE_ADDR_MASK;
}

/* ---- Per-process GTT (PPGTT), 4-level, 48-bit: what i915 builds for every context of a guest
 * that was promised full PPGTT (i915 gt/gen8_ppgtt.c, gt/intel_gtt.h; PRM Vol 5 "Memory
 * Views: Per-Process Graphics Translation Table", legacy 64-bit context mode).
 *
 * A graphics address splits into four 9-bit table indices above the 12-bit page offset:
 * PML4 47:39, PDP 38:30, PD 29:21, PT 20:12 (i915 gen8_pd_shift(lvl) = 9 * lvl above
 * GEN8_PTE_SHIFT).  Every table is one 4 KiB page of 512 8-byte entries.  Level numbers below
 * are i915's: 3 = PML4, 2 = PDP, 1 = PD, 0 = PT (whose entries map 4 KiB pages). */
#define GEN9_PPGTT_LEVELS     4u
#define GEN9_PPGTT_ENTRIES    512u /* i915 GEN8_PDES */
#define GEN9_PPGTT_INDEX_BITS 9u
#define GEN9_PPGTT_ADDR_BITS  48u
#define GEN9_PPGTT_TOP_LEVEL  3u /* the PML4 */

static inline unsigned gen9_ppgtt_index(uint64_t gfx, unsigned level)
{
    return (unsigned)(gfx >> (GEN9_GTT_PAGE_SHIFT + GEN9_PPGTT_INDEX_BITS * level)) &
           (GEN9_PPGTT_ENTRIES - 1u);
}

/* Bytes of graphics address space one entry of a level-`level` table covers. */
static inline uint64_t gen9_ppgtt_entry_span(unsigned level)
{
    return 1ull << (GEN9_GTT_PAGE_SHIFT + GEN9_PPGTT_INDEX_BITS * level);
}

/* Entry bits (i915 intel_gtt.h GEN8_PAGE_PRESENT, GEN8_PAGE_RW, GEN8_PDE_PS_2M, GEN8_PDE_IPS_64K;
 * the cache bits are the x86 PAT selectors i915 uses as PPAT_UNCACHED (PWT|PCD), PPAT_CACHED
 * (PAT), PPAT_DISPLAY_ELLC (PCD)).  i915 writes entries as gen8_pde_encode(addr) = addr |
 * PRESENT | RW | cache bits for directories, gen8_pte_encode() = the same with RW cleared for
 * read-only pages (its scratch page on Gen9) for page-table entries. */
#define GEN9_PPGTT_PRESENT     (1ull << 0)
#define GEN9_PPGTT_RW          (1ull << 1)
#define GEN9_PPGTT_PWT         (1ull << 3)
#define GEN9_PPGTT_PCD         (1ull << 4)
#define GEN9_PPGTT_PTE_PAT     (1ull << 7)  /* in a page-table entry: PAT selector */
#define GEN9_PPGTT_PDE_PS      (1ull << 7)  /* in a PD / PDP entry: 2 MiB / 1 GiB page */
#define GEN9_PPGTT_PDE_IPS_64K (1ull << 11) /* in a PD entry: its table maps 64 KiB pages */
#define GEN9_PPGTT_CACHE_BITS  (GEN9_PPGTT_PWT | GEN9_PPGTT_PCD)
/* Bits 47:12 hold the address of the next table or of the page (i915 keeps dma addresses there;
 * in a guest, guest-physical addresses). */
#define GEN9_PPGTT_ADDR_MASK 0x0000FFFFFFFFF000ull

static inline uint64_t gen9_ppgtt_entry_addr(uint64_t e)
{
    return e & GEN9_PPGTT_ADDR_MASK;
}

/* Tiles are 4 KiB. X-major: 512 bytes wide, 8 rows, rows stored one after another.
 * Y-major: 128 bytes wide, 32 rows, stored as 8 columns of 16-byte OWords, each column
 * 32 rows tall (PRM Vol 5 "Y-Major Tile"). */
#define GEN9_TILE_SIZE     4096u
#define GEN9_TILE_X_WIDTH  512u
#define GEN9_TILE_X_HEIGHT 8u
#define GEN9_TILE_Y_WIDTH  128u
#define GEN9_TILE_Y_HEIGHT 32u
#define GEN9_TILE_Y_OWORD  16u

#endif /* TESSERA_DRIVERS_IGPU_GEN9_GTT_H */
