/*
 * Intel Gen9 (Skylake) MMIO register and PCI configuration facts used by Tessera.
 *
 * Every offset and bit below is named once here and used by name everywhere else. Sources:
 *   - Linux i915: gt/intel_engine_regs.h (ring registers), gt/intel_lrc_reg.h (execlist
 *     registers), gt/intel_gt_regs.h and i915_reg.h (fences, interrupts, forcewake, GDRST),
 *     intel_uncore.c (forcewake protocol and the Gen9 forcewake range table),
 *     gt/intel_ggtt.c and gt/intel_gtt.h (GMCH control decoding, GFX_FLSH_CNTL),
 *     gt/intel_gt_clock_utils.c (command-streamer timestamp frequency).
 *   - Intel PRM for Skylake ("Intel Graphics PRM, Skylake"), Vol 2c (Command Reference:
 *     Registers) and Vol 5 (Memory Views: GGTT, fences, tiling).
 *
 * Offsets are byte offsets into the MMIO half of BAR0 (GTTMMADR).
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_REGS_H
#define TESSERA_DRIVERS_IGPU_GEN9_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/gen9_display.h" /* display engine and south display */
#include "drivers/igpu/gen9_gtt.h"     /* tile geometry, for fence shapes */

/* ---- BAR0 (GTTMMADR) geometry ---------------------------------------------------------- */

/* Gen8+: GTTMMADR is 16 MiB; registers in the low half, GGTT entries start at the middle
 * (i915 gt/intel_ggtt.c: gen6_gttmmadr_size() = SZ_16M, gen6_gttadr_offset() = size / 2). */
#define GEN9_GTTMMADR_SIZE    (16u << 20)
#define GEN9_GGTT_BAR0_OFFSET (GEN9_GTTMMADR_SIZE / 2u)
/* The register window: "registers in the first 2 MiB" (i915 maps 2 MiB of MMIO on Gen8+). */
#define GEN9_MMIO_SIZE (2u << 20)

/* ---- Masked registers ---------------------------------------------------------------------
 * Many control registers take a write-enable mask in bits 31:16: a write changes bit n (0..15)
 * only if bit n+16 is set (i915 i915_reg_defs.h: _MASKED_FIELD, _MASKED_BIT_ENABLE/DISABLE). */
#define GEN9_MASKED_FIELD(mask, value) ((uint32_t)(((uint32_t)(mask) << 16) | (uint32_t)(value)))
#define GEN9_MASKED_BIT_ENABLE(bit)    GEN9_MASKED_FIELD((bit), (bit))
#define GEN9_MASKED_BIT_DISABLE(bit)   GEN9_MASKED_FIELD((bit), 0u)

/* Apply a masked write to the current value of a masked register. */
static inline uint32_t gen9_masked_apply(uint32_t cur, uint32_t write)
{
    uint32_t mask = write >> 16;
    return (cur & ~mask & 0xffffu) | (write & mask & 0xffffu);
}

/* ---- Engines ------------------------------------------------------------------------------ */

/* i915 gt/intel_engine_regs.h / i915_reg.h: RENDER_RING_BASE, BLT_RING_BASE, and the video
 * engines a Skylake GT2 also has (i915 skl_gt2_info): GEN6_BSD_RING_BASE (VCS0, video
 * decode) and VEBOX_RING_BASE (VECS0, video enhancement). */
#define GEN9_RCS_BASE  0x02000u
#define GEN9_BCS_BASE  0x22000u
#define GEN9_VCS_BASE  0x12000u
#define GEN9_VECS_BASE 0x1A000u

/* Ring buffer registers, relative to an engine base (i915 gt/intel_engine_regs.h). */
#define GEN9_RING_TAIL(base)          ((base) + 0x30u)
#define GEN9_TAIL_ADDR                0x001FFFF8u /* qword-aligned offset into the ring */
#define GEN9_RING_HEAD(base)          ((base) + 0x34u)
#define GEN9_HEAD_ADDR                0x001FFFFCu /* dword-aligned offset into the ring */
#define GEN9_HEAD_WRAP_COUNT          0xFFE00000u
#define GEN9_RING_START(base)         ((base) + 0x38u)
#define GEN9_RING_CTL(base)           ((base) + 0x3Cu)
#define GEN9_RING_NR_PAGES            0x001FF000u /* (size in pages - 1) << 12 */
#define GEN9_RING_VALID               0x00000001u
#define GEN9_RING_ACTHD_UDW(base)     ((base) + 0x5Cu)
#define GEN9_RING_ACTHD(base)         ((base) + 0x74u)
#define GEN9_RING_HWS_PGA(base)       ((base) + 0x80u) /* status page graphics address */
#define GEN9_RING_NOPID(base)         ((base) + 0x94u) /* last MI_NOOP identification value */
#define GEN9_RING_HWSTAM(base)        ((base) + 0x98u)
#define GEN9_RING_MI_MODE(base)       ((base) + 0x9Cu) /* masked */
#define GEN9_MI_MODE_IDLE             (1u << 9)
#define GEN9_MI_MODE_STOP_RING        (1u << 8)
#define GEN9_RING_IMR(base)           ((base) + 0xA8u)
#define GEN9_RING_EIR(base)           ((base) + 0xB0u)
#define GEN9_RING_EMR(base)           ((base) + 0xB4u)
#define GEN9_RING_ESR(base)           ((base) + 0xB8u)
#define GEN9_ERROR_INSTRUCTION        (1u << 0)        /* i915 I915_ERROR_INSTRUCTION, in EIR/EMR */
#define GEN9_RING_RESET_CTL(base)     ((base) + 0xD0u) /* masked */
#define GEN9_RESET_CTL_CAT_ERROR      (1u << 2)
#define GEN9_RESET_CTL_READY_TO_RESET (1u << 1)
#define GEN9_RESET_CTL_REQUEST_RESET  (1u << 0)
#define GEN9_RING_BBSTATE(base)       ((base) + 0x110u)
#define GEN9_RING_BBADDR(base)        ((base) + 0x140u)
#define GEN9_RING_BBADDR_UDW(base)    ((base) + 0x168u)
/* Further registers of the context image (gen9_context.h; i915 gt/intel_engine_regs.h names,
 * gt/intel_lrc_reg.h GEN8_RING_PDP_*); the image also holds +0x150, +0x154, +0x170, +0x178 and
 * +0x17c, which i915 does not name. */
#define GEN9_RING_EXCC(base)                ((base) + 0x28u)
#define GEN9_RING_IPEHR(base)               ((base) + 0x68u)
#define GEN9_RING_INSTPM(base)              ((base) + 0xC0u)
#define GEN9_RING_RPCS(base)                ((base) + 0xC8u) /* render: GEN8_R_PWR_CLK_STATE */
#define GEN9_RING_SBBADDR(base)             ((base) + 0x114u)
#define GEN9_RING_SBBSTATE(base)            ((base) + 0x118u)
#define GEN9_RING_SBBADDR_UDW(base)         ((base) + 0x11Cu)
#define GEN9_RING_BB_OFFSET(base)           ((base) + 0x158u)
#define GEN9_RING_BB_PER_CTX_PTR(base)      ((base) + 0x1C0u)
#define GEN9_RING_INDIRECT_CTX(base)        ((base) + 0x1C4u)
#define GEN9_RING_INDIRECT_CTX_OFFSET(base) ((base) + 0x1C8u)
#define GEN9_RING_PDP_LDW(base, n)          ((base) + 0x270u + (uint32_t)(n)*8u)
#define GEN9_RING_PDP_UDW(base, n)          ((base) + 0x274u + (uint32_t)(n)*8u)
#define GEN9_RING_PREDICATE_RESULT_1(base)  ((base) + 0x41Cu)

/* Execlists (i915 gt/intel_lrc_reg.h, gt/intel_engine_regs.h). ELSP is a write-only port: a
 * submission is four dword writes, element 1 upper, element 1 lower, element 0 upper, element
 * 0 lower; the last write starts the load (i915 execlists_submit_ports()/write_desc()). */
#define GEN9_RING_ELSP(base) ((base) + 0x230u)
/* A submission is four ELSP dword writes: element 1 high, low, element 0 high, low; the last
 * one submits (PRM Vol. 2c ExecList Submit Port; i915 execlists_submit_ports()). */
#define GEN9_ELSP_DWORDS                   4u
#define GEN9_RING_EXECLIST_STATUS_LO(base) ((base) + 0x234u)
#define GEN9_RING_EXECLIST_STATUS_HI(base) ((base) + 0x238u)
#define GEN9_RING_CONTEXT_CONTROL(base)    ((base) + 0x244u) /* masked */
#define GEN9_CTX_CTRL_RESTORE_INHIBIT      (1u << 0)
#define GEN9_CTX_CTRL_RS_CTX_ENABLE        (1u << 1)
#define GEN9_CTX_CTRL_SAVE_INHIBIT         (1u << 2)
#define GEN9_CTX_CTRL_INHIBIT_SYN_SWITCH   (1u << 3)
#define GEN9_RING_MODE(base)               ((base) + 0x29Cu) /* GFX_MODE, masked */
#define GEN9_GFX_RUN_LIST_ENABLE           (1u << 15)
#define GEN9_GFX_PPGTT_ENABLE              (1u << 9)
#define GEN9_RING_TIMESTAMP(base)          ((base) + 0x358u)
#define GEN9_RING_TIMESTAMP_UDW(base)      ((base) + 0x35Cu)
/* Context status buffer: 6 qword entries (lower dword status, upper dword context id). */
#define GEN9_RING_CSB_LO(base, i) ((base) + 0x370u + (uint32_t)(i)*8u)
#define GEN9_RING_CSB_HI(base, i) ((base) + 0x374u + (uint32_t)(i)*8u)
#define GEN9_CSB_ENTRIES          6u
#define GEN9_RING_CSB_PTR(base)   ((base) + 0x3A0u) /* masked */
#define GEN9_CSB_PTR_MASK         0x7u
#define GEN9_CSB_WRITE_PTR_SHIFT  0u
#define GEN9_CSB_READ_PTR_SHIFT   8u
/* Value of the write pointer after reset: "no entry written yet"; the first event then lands in
 * entry 0 (GVT-g emulates this: gvt/execlist.c init_vgpu_execlist() sets write 7, read 0, and
 * emulate_csb_update() goes from 7 to 0).  i915 calls 6 and 7 reserved (intel_lrc_reg.h) and
 * itself sets both pointers to 5 after a reset (reset_csb_pointers()), which reaches entry 0
 * the same way. */
#define GEN9_CSB_PTR_RESET 0x7u

/* The entry the engine writes after write pointer wp. */
static inline uint32_t gen9_csb_next(uint32_t wp)
{
    return wp == GEN9_CSB_PTR_RESET ? 0u : (wp + 1u) % GEN9_CSB_ENTRIES;
}
#define GEN9_RING_CTX_TIMESTAMP(base) ((base) + 0x3A8u)
/* Sixteen 64-bit command-streamer general purpose registers (GEN8_RING_CS_GPR). */
#define GEN9_RING_CS_GPR(base, n) ((base) + 0x600u + (uint32_t)(n)*8u)
#define GEN9_CS_GPR_COUNT         16u

/* Blitter tiling control: selects Y-major instead of X-major for tiled blit surfaces; a
 * masked register (i915 gt/intel_gt_regs.h BCS_SWCTRL, BCS_SRC_Y, BCS_DST_Y). It is part of
 * the blitter's context image (i915 gen9_xcs_offsets: REG16(0x200)), so each context has its
 * own. */
#define GEN9_BCS_SWCTRL       (GEN9_BCS_BASE + 0x200u)
#define GEN9_BCS_SWCTRL_SRC_Y (1u << 0)
#define GEN9_BCS_SWCTRL_DST_Y (1u << 1)

/* ---- Command-streamer timestamp frequency (i915 gt/intel_gt_clock_utils.c
 * gen9_read_clock_frequency, read_reference_ts_freq; gt/intel_gt_regs.h CTC_MODE, i915_reg.h
 * GEN9_TIMESTAMP_OVERRIDE) ----------------------------------------------------------------
 * CTC_MODE says where the timestamp counts from: the divide logic, whose rate
 * TIMESTAMP_OVERRIDE gives as (divider + 1) MHz + 1 MHz / (denominator + 1), or the crystal
 * clock (24 MHz on Skylake desktop and mobile, 19.2 MHz on the LP parts Tessera does not
 * drive) shifted right by 3 - shift. Typical Skylake: crystal, shift 2, i.e. 12 MHz. */
#define GEN9_CTC_MODE                 0xA26Cu
#define GEN9_CTC_SOURCE_DIVIDE_LOGIC  (1u << 0) /* else the crystal clock */
#define GEN9_CTC_SHIFT_SHIFT          1u
#define GEN9_CTC_SHIFT_MASK           (3u << GEN9_CTC_SHIFT_SHIFT)
#define GEN9_TIMESTAMP_OVERRIDE       0x44074u
#define GEN9_TS_OVERRIDE_DIVIDER_MASK 0x3FFu
#define GEN9_TS_OVERRIDE_DENOM_SHIFT  12u
#define GEN9_TS_OVERRIDE_DENOM_MASK   (0xFu << GEN9_TS_OVERRIDE_DENOM_SHIFT)
#define GEN9_CRYSTAL_CLOCK_HZ         24000000u /* non-LP Gen9 */

/* The timestamp rate in Hz from CTC_MODE and (for the divide logic) TIMESTAMP_OVERRIDE. */
static inline uint32_t gen9_cs_timestamp_hz(uint32_t ctc_mode, uint32_t ts_override)
{
    if (ctc_mode & GEN9_CTC_SOURCE_DIVIDE_LOGIC) {
        uint32_t base = ((ts_override & GEN9_TS_OVERRIDE_DIVIDER_MASK) + 1u) * 1000000u;
        uint32_t denom = (ts_override & GEN9_TS_OVERRIDE_DENOM_MASK) >>
                         GEN9_TS_OVERRIDE_DENOM_SHIFT;
        return base + 1000000u / (denom + 1u);
    }
    return GEN9_CRYSTAL_CLOCK_HZ >>
           (3u - ((ctc_mode & GEN9_CTC_SHIFT_MASK) >> GEN9_CTC_SHIFT_SHIFT));
}

/* The reverse, for a device that presents its rate (the vGPU): CTC_MODE and TIMESTAMP_OVERRIDE
 * values for which gen9_cs_timestamp_hz() gives hz, the crystal clock when hz is one of its
 * rates, else the divide logic; false if neither can say hz exactly. */
static inline bool gen9_cs_timestamp_encode(uint32_t hz, uint32_t *ctc_mode, uint32_t *ts_override)
{
    for (uint32_t shift = 0; shift <= 3u; shift++)
        if ((GEN9_CRYSTAL_CLOCK_HZ >> (3u - shift)) == hz) {
            *ctc_mode = shift << GEN9_CTC_SHIFT_SHIFT;
            *ts_override = 0;
            return true;
        }
    for (uint32_t denom = 0; denom <= (GEN9_TS_OVERRIDE_DENOM_MASK >> GEN9_TS_OVERRIDE_DENOM_SHIFT);
         denom++) {
        uint32_t part = 1000000u / (denom + 1u), whole = hz - part;
        if (hz < part || whole % 1000000u || whole == 0 ||
            whole / 1000000u - 1u > GEN9_TS_OVERRIDE_DIVIDER_MASK)
            continue;
        *ctc_mode = GEN9_CTC_SOURCE_DIVIDE_LOGIC;
        *ts_override = (whole / 1000000u - 1u) | denom << GEN9_TS_OVERRIDE_DENOM_SHIFT;
        return true;
    }
    return false;
}

/* ---- Fences (i915 i915_reg.h FENCE_REG_GEN6_LO/HI, gt/intel_ggtt_fencing.c) --------------- */
#define GEN9_FENCE_COUNT     32u
#define GEN9_FENCE_REG_LO(i) (0x100000u + (uint32_t)(i)*8u)
#define GEN9_FENCE_REG_HI(i) (0x100004u + (uint32_t)(i)*8u)
/* 64-bit fence layout: bits 63:44 end page (address of the LAST 4 KiB page, inclusive),
 * bits 42:32 pitch in 128-byte units minus one, bits 31:12 start page, bit 1 Y-tiled,
 * bit 0 valid. Written low = 0, high, low so the fence is never valid with a stale half. */
#define GEN9_FENCE_PAGE          4096u
#define GEN9_FENCE_VALID         (1ull << 0)
#define GEN9_FENCE_TILING_Y      (1ull << 1)
#define GEN9_FENCE_START_MASK    0x00000000FFFFF000ull
#define GEN9_FENCE_PITCH_SHIFT   32
#define GEN9_FENCE_PITCH_MASK    (0x7FFull << GEN9_FENCE_PITCH_SHIFT)
#define GEN9_FENCE_PITCH_UNIT    128u
#define GEN9_FENCE_MAX_PITCH_VAL 0x800u /* pitch/128 <= 2048 (GEN7_FENCE_MAX_PITCH_VAL) */
#define GEN9_FENCE_END_SHIFT     32     /* end address bits 31:12 sit at 63:44 */
#define GEN9_FENCE_END_MASK      0xFFFFF00000000000ull

/* The decoded form of a fence register. */
struct gen9_fence {
    bool valid;
    bool y_tiled;
    uint32_t start; /* graphics address of the first page */
    uint64_t end;   /* graphics address one past the last byte (exclusive) */
    uint32_t pitch; /* bytes per row, a multiple of 128 */
};

/* Encode a fence; returns 0 for an invalid (disabled) fence if size is 0. Callers check
 * alignment and pitch limits with gen9_fence_shape_ok() first. */
static inline uint64_t gen9_fence_encode(uint32_t start, uint32_t size, uint32_t pitch,
                                         bool y_tiled)
{
    uint64_t v;
    if (size == 0)
        return 0;
    v = (uint64_t)(start + size - GEN9_FENCE_PAGE) << GEN9_FENCE_END_SHIFT;
    v &= GEN9_FENCE_END_MASK;
    v |= (uint64_t)start & GEN9_FENCE_START_MASK;
    v |= ((uint64_t)(pitch / GEN9_FENCE_PITCH_UNIT - 1u) << GEN9_FENCE_PITCH_SHIFT) &
         GEN9_FENCE_PITCH_MASK;
    if (y_tiled)
        v |= GEN9_FENCE_TILING_Y;
    return v | GEN9_FENCE_VALID;
}

static inline struct gen9_fence gen9_fence_decode(uint64_t v)
{
    struct gen9_fence f;
    f.valid = (v & GEN9_FENCE_VALID) != 0;
    f.y_tiled = (v & GEN9_FENCE_TILING_Y) != 0;
    f.start = (uint32_t)(v & GEN9_FENCE_START_MASK);
    f.end = ((v & GEN9_FENCE_END_MASK) >> GEN9_FENCE_END_SHIFT) + GEN9_FENCE_PAGE;
    f.pitch = (uint32_t)(((v & GEN9_FENCE_PITCH_MASK) >> GEN9_FENCE_PITCH_SHIFT) + 1u) *
              GEN9_FENCE_PITCH_UNIT;
    return f;
}

/* A fence de-tiles a CPU access at byte rel of its range as a surface `pitch` bytes wide: row
 * rel / pitch, column rel % pitch, placed by tile (X: 512 B x 8 rows, Y: 128 B x 32 rows).  The
 * result stays inside [start, end) only when the pitch is a whole number of tiles and the size
 * a whole number of tile rows (pitch x tile height); otherwise the last rows or columns land
 * past the end (a 256 KiB X fence with a 256 KiB pitch reaches 2 MiB).  i915 never programs
 * another shape: i915_tiling_ok() wants the stride a multiple of the tile width and
 * i915_gem_fence_size() rounds the fenced size up to stride x tile height (gem/i915_gem_tiling.c). */
static inline uint64_t gen9_fence_tile_row_bytes(uint32_t pitch, bool y_tiled)
{
    return (uint64_t)pitch * (y_tiled ? GEN9_TILE_Y_HEIGHT : GEN9_TILE_X_HEIGHT);
}

static inline bool gen9_fence_shape_ok(uint64_t size, uint32_t pitch, bool y_tiled)
{
    uint32_t tile_w = y_tiled ? GEN9_TILE_Y_WIDTH : GEN9_TILE_X_WIDTH;
    return pitch != 0 && pitch % tile_w == 0 && size != 0 &&
           size % gen9_fence_tile_row_bytes(pitch, y_tiled) == 0;
}

/* ---- GGTT invalidation (i915 gt/intel_ggtt.c gen8_ggtt_invalidate) ----------------------- */
#define GEN9_GFX_FLSH_CNTL    0x101008u
#define GEN9_GFX_FLSH_CNTL_EN (1u << 0)

/* ---- Reset (i915 gt/intel_gt_regs.h GEN6_GDRST, gt/intel_reset.c gen8_engine_reset) ------ */
#define GEN9_GDRST        0x941Cu
#define GEN9_GRDOM_FULL   (1u << 0)
#define GEN9_GRDOM_RENDER (1u << 1)
#define GEN9_GRDOM_MEDIA  (1u << 2) /* VCS0 */
#define GEN9_GRDOM_BLT    (1u << 3)
#define GEN9_GRDOM_VECS   (1u << 4)
#define GEN9_GRDOM_GUC    (1u << 5)
#define GEN9_GRDOM_MEDIA2 (1u << 7) /* VCS1: GT3+ only */

/* ---- Display power wells and fuses (i915 i915_reg.h HSW_PWR_WELL_CTL1..4, SKL_FUSE_STATUS;
 * display/intel_display_power_well.c hsw_wait_for_power_well_enable(),
 * gen9_wait_for_power_well_fuses()): i915 6.1 powers the misc wells up at probe even with
 * every pipe fused off.  A request bit 2n+1 asks for well n, state bit 2n says it is on. ---- */
#define GEN9_HSW_PWR_WELL_CTL1 0x45400u /* BIOS */
#define GEN9_HSW_PWR_WELL_CTL2 0x45404u /* driver */
#define GEN9_HSW_PWR_WELL_CTL3 0x45408u /* KVMR */
#define GEN9_HSW_PWR_WELL_CTL4 0x4540Cu /* debug */
/* The request bits GVT-g keeps on Skylake (skl_power_well_ctl_write()): wells 0-4, 14, 15. */
#define GEN9_PWR_WELL_SKL_REQ_MASK       0xA00002AAu
#define GEN9_SKL_FUSE_STATUS             0x42000u
#define GEN9_SKL_FUSE_DOWNLOAD_STATUS    (1u << 31)
#define GEN9_SKL_FUSE_PG_DIST_STATUS(pg) (1u << (27u - (pg)))

/* ---- TLB invalidation requests (i915 gt/intel_gt_regs.h GEN8_RTCR..GEN8_VTCR; gt/intel_gt.c
 * mmio_invalidate_full(): write 1, then wait up to 4 ms for the register to read 0) --------- */
#define GEN9_RTCR  0x4260u /* render */
#define GEN9_M1TCR 0x4264u /* video decode 0 */
#define GEN9_M2TCR 0x4268u /* video decode 1 */
#define GEN9_BTCR  0x426Cu /* blitter */
#define GEN9_VTCR  0x4270u /* video enhancement */

/* ---- GuC status (i915 gt/uc/intel_guc_reg.h GUC_STATUS, GS_MIA_IN_RESET): read after a GuC
 * reset, which i915 does on every GT sanitize even with the GuC unused (__intel_uc_reset_hw()
 * warns unless the microcontroller reads in reset) ----------------------------------------- */
#define GEN9_GUC_STATUS      0xC000u
#define GEN9_GS_MIA_IN_RESET (1u << 0)

/* ---- Interrupts (Gen8 layout; i915 i915_reg.h GEN8_MASTER_IRQ, GEN8_GT_ISR/IMR/IIR/IER) -- */
#define GEN9_MASTER_IRQ         0x44200u
#define GEN9_MASTER_IRQ_CONTROL (1u << 31)
#define GEN9_MASTER_GT_RCS_IRQ  (1u << 0) /* GT bank 0 bits 15:0 pending */
#define GEN9_MASTER_GT_BCS_IRQ  (1u << 1) /* GT bank 0 bits 31:16 */
#define GEN9_MASTER_GT_VCS0_IRQ (1u << 2) /* GT bank 1 bits 15:0 */
#define GEN9_MASTER_GT_VCS1_IRQ (1u << 3) /* GT bank 1 bits 31:16 */
#define GEN9_MASTER_GT_PM_IRQ   (1u << 4) /* GT bank 2 bits 15:0 */
#define GEN9_MASTER_GT_GUC_IRQ  (1u << 5) /* GT bank 2 bits 31:16 */
#define GEN9_MASTER_GT_VECS_IRQ (1u << 6) /* GT bank 3 bits 15:0 */
#define GEN9_GT_IRQ_BANKS       4u
#define GEN9_GT_ISR(bank)       (0x44300u + 0x10u * (uint32_t)(bank))
#define GEN9_GT_IMR(bank)       (0x44304u + 0x10u * (uint32_t)(bank))
#define GEN9_GT_IIR(bank)       (0x44308u + 0x10u * (uint32_t)(bank))
#define GEN9_GT_IER(bank)       (0x4430Cu + 0x10u * (uint32_t)(bank))
/* Bank 0 holds the render engine in bits 15:0 and the blitter in bits 31:16; bank 1 the video
 * engine VCS0 in bits 15:0; bank 3 the video-enhancement engine in bits 15:0 (i915 i915_reg.h
 * GEN8_RCS/BCS/VCS0/VECS_IRQ_SHIFT, gen8_gt_irq_handler()). */
#define GEN9_GT_RCS_IRQ_BANK   0u
#define GEN9_GT_BCS_IRQ_BANK   0u
#define GEN9_GT_VCS_IRQ_BANK   1u
#define GEN9_GT_VECS_IRQ_BANK  3u
#define GEN9_GT_RCS_IRQ_SHIFT  0u
#define GEN9_GT_BCS_IRQ_SHIFT  16u
#define GEN9_GT_VCS_IRQ_SHIFT  0u
#define GEN9_GT_VECS_IRQ_SHIFT 0u
/* Per-engine interrupt bits (shifted by the engine's IRQ shift; i915 i915_reg.h GT_*). */
#define GEN9_GT_USER_INTERRUPT  (1u << 0)  /* MI_USER_INTERRUPT */
#define GEN9_GT_CS_MASTER_ERROR (1u << 3)  /* command streamer error */
#define GEN9_GT_PIPECTL_NOTIFY  (1u << 4)  /* PIPE_CONTROL / MI_FLUSH_DW notify */
#define GEN9_GT_CONTEXT_SWITCH  (1u << 8)  /* a CSB entry was written */
#define GEN9_GT_WAIT_SEMAPHORE  (1u << 11) /* MI_SEMAPHORE_WAIT yield (bdw+) */
/* Other interrupt units i915 resets and checks at probe (i915_irq.c gen8_irq_reset(),
 * gen3_irq_reset(), ibx_irq_reset(); gen3_assert_iir_is_zero() warns if an IIR reads non-zero
 * afterwards): the PCU and, with a PCH, the south display engine. */
#define GEN9_PCU_ISR 0x444E0u
#define GEN9_PCU_IMR 0x444E4u
#define GEN9_PCU_IIR 0x444E8u
#define GEN9_PCU_IER 0x444ECu
/* (The display banks GEN9_DE_* and GEN9_SDE_* are in gen9_display.h.) */

/* ---- Forcewake (i915 gt/intel_gt_regs.h, intel_uncore.c) --------------------------------
 * A domain is woken by a masked write of FORCEWAKE_KERNEL to its request register and is
 * awake once the same bit reads back set in its ack register; released by the masked clear. */
#define GEN9_FORCEWAKE_RENDER          0xA278u
#define GEN9_FORCEWAKE_ACK_RENDER      0x0D84u
#define GEN9_FORCEWAKE_GT              0xA188u /* "blitter"/GT domain */
#define GEN9_FORCEWAKE_ACK_GT          0x130044u
#define GEN9_FORCEWAKE_MEDIA           0xA270u
#define GEN9_FORCEWAKE_ACK_MEDIA       0x0D88u
#define GEN9_FORCEWAKE_KERNEL          (1u << 0)
#define GEN9_FORCEWAKE_KERNEL_FALLBACK (1u << 15)
/* Registers at or above this offset never need forcewake (i915 NEEDS_FORCE_WAKE). */
#define GEN9_FORCEWAKE_LIMIT 0x40000u

/* ---- Registers an i915 guest reads or drives at probe (linux-guest.md section 3.2, 3.6) ----
 * Values the vGPU presents for a Skylake GT2 are in vmm/vgpu/i915/vgt/vgt_regs_table.c; these are the
 * facts.  Sources: i915 i915_reg.h, gt/intel_gt_regs.h, gt/intel_engine_regs.h,
 * intel_mchbar_regs.h (6.1), GVT-g gvt/handlers.c (which registers are masked, F_MODE_MASK). */

/* Unclaimed-access debug: bit 31 set means an access hit no unit; i915 intel_uncore.c reads it
 * once at init (FPGA_DBG_RM_NOCLAIM) and writes the bit to clear it. */
#define GEN9_FPGA_DBG            0x42300u
#define GEN9_FPGA_DBG_RM_NOCLAIM (1u << 31)
/* (Display fuses, GEN9_SKL_DFSM, are in gen9_display.h.) */
/* Slice/subslice/EU fuses (i915 GEN8_FUSE2, GEN9_EU_DISABLE; intel_sseu.c
 * gen9_sseu_info_init()): slice enable mask in 27:25, subslice disable mask (the same for every
 * slice) in 23:20, and per slice one byte of disabled-EU bits per subslice. */
#define GEN9_FUSE2               0x9120u
#define GEN9_F2_S_ENA_SHIFT      25u
#define GEN9_F2_S_ENA_MASK       (0x7u << GEN9_F2_S_ENA_SHIFT)
#define GEN9_F2_SS_DIS_SHIFT     20u
#define GEN9_F2_SS_DIS_MASK      (0xFu << GEN9_F2_SS_DIS_SHIFT)
#define GEN9_EU_DISABLE(slice)   (0x9134u + 4u * (uint32_t)(slice))
#define GEN9_MAX_SLICES          3u
#define GEN9_MAX_SUBSLICES       4u
#define GEN9_MAX_EU_PER_SUBSLICE 8u
/* PCH raw clock in MHz (i915 PCH_RAWCLK_FREQ, RAWCLK_FREQ_MASK; pch_rawclk()). */
#define GEN9_PCH_RAWCLK_FREQ  0xC6204u
#define GEN9_RAWCLK_FREQ_MASK 0x3FFu
/* eDRAM capability (i915 HSW_EDRAM_CAP, read by i915_driver_hw_probe() via
 * intel_dram_edram_detect()); 0 = no eDRAM. */
#define GEN9_HSW_EDRAM_CAP 0x120010u
/* RPS frequency limits in the MCHBAR mirror (i915 MCHBAR_MIRROR_BASE_SNB + 0x5998,
 * GEN6_RP_STATE_CAP; gen6_rps_get_freq_caps()): zeros give no frequency range. */
#define GEN9_MCHBAR_MIRROR_BASE 0x140000u
#define GEN9_RP_STATE_CAP       (GEN9_MCHBAR_MIRROR_BASE + 0x5998u)
/* The PCODE mailbox (i915 GEN6_PCODE_MAILBOX/DATA/DATA1, snb_pcode_rw()): the driver writes
 * DATA, then READY | command; pcode answers by clearing READY with an error code in 7:0. */
#define GEN9_PCODE_MAILBOX          0x138124u
#define GEN9_PCODE_READY            (1u << 31)
#define GEN9_PCODE_ERROR_MASK       0xFFu
#define GEN9_PCODE_COMMAND_MASK     0xFFu
#define GEN9_PCODE_READ_RC6VIDS     0x5u
#define GEN9_PCODE_READ_MEM_LATENCY 0x6u
#define GEN9_PCODE_CDCLK_CONTROL    0x7u  /* i915 SKL_PCODE_CDCLK_CONTROL */
#define GEN9_PCODE_SAGV_CONTROL     0x21u /* i915 GEN9_PCODE_SAGV_CONTROL */
#define GEN9_PCODE_ILLEGAL_CMD      0x1u  /* error code: -ENXIO in i915 */
#define GEN9_CDCLK_READY_FOR_CHANGE 0x1u  /* i915 SKL_CDCLK_READY_FOR_CHANGE */
#define GEN9_PCODE_DATA             0x138128u
#define GEN9_PCODE_DATA1            0x13812Cu
/* GT thread and core status (i915 GEN6_GT_THREAD_STATUS_REG, GEN6_GT_CORE_STATUS); GVT-g
 * zeroes both in a vGPU (gvt/mmio.c intel_vgpu_reset_mmio()). */
#define GEN9_GT_THREAD_STATUS 0x13805Cu
#define GEN9_GT_CORE_STATUS   0x138060u
/* Private PPGTT memory attributes (i915 GEN8_PRIVATE_PAT_LO/HI, setup_private_pat()). */
#define GEN9_PRIVATE_PAT_LO 0x40E0u
#define GEN9_PRIVATE_PAT_HI 0x40E4u
/* Memory object control tables (i915 intel_mocs.c: __GEN9_*_MOCS0, GEN9_LNCFCMOCS): 64
 * entries per engine, 32 L3 control registers. */
#define GEN9_MOCS_ENTRIES    64u
#define GEN9_RCS_MOCS(i)     (0xC800u + 4u * (uint32_t)(i))
#define GEN9_VCS_MOCS(i)     (0xC900u + 4u * (uint32_t)(i))
#define GEN9_VCS1_MOCS(i)    (0xCA00u + 4u * (uint32_t)(i))
#define GEN9_VECS_MOCS(i)    (0xCB00u + 4u * (uint32_t)(i))
#define GEN9_BCS_MOCS(i)     (0xCC00u + 4u * (uint32_t)(i))
#define GEN9_LNCFCMOCS(i)    (0xB020u + 4u * (uint32_t)(i))
#define GEN9_LNCFCMOCS_COUNT 32u
/* Per-engine registers i915 programs besides the execlist ones (gt/intel_engine_regs.h,
 * gt/intel_gt_regs.h): the user-writable register whitelist and the front-end chicken bits
 * (masked; GVT-g CSFE_CHICKEN1_REG). */
#define GEN9_RING_FORCE_TO_NONPRIV(base, i) ((base) + 0x4D0u + 4u * (uint32_t)(i))
#define GEN9_RING_NONPRIV_SLOTS             12u
/* A slot names the register by its offset in bits 25:2 (i915 RING_FORCE_TO_NONPRIV_ADDRESS_MASK;
 * the access and range bits of later generations are zero on Gen9). */
#define GEN9_RING_FORCE_TO_NONPRIV_ADDR_MASK 0x03FFFFFCu
#define GEN9_RING_CSFE_CHICKEN1(base)        ((base) + 0xD4u)
/* Global masked registers (bits 31:16 select which of 15:0 a write changes): every register
 * GVT-g marks F_MODE_MASK for Skylake (gvt/handlers.c) besides the per-engine ones above and in
 * the ring section.  Their i915 names, where i915 has one. */
#define GEN9_CACHE_MODE_0          0x2120u /* CACHE_MODE_0 */
#define GEN9_MASKED_2124           0x2124u /* no i915 name; GVT-g 0x2124 */
#define GEN9_FW_BLC2               0x20DCu /* FW_BLC2 */
#define GEN9_3D_CHICKEN3           0x2090u /* _3D_CHICKEN3 */
#define GEN9_FF_SLICE_CHICKEN      0x2088u /* FF_SLICE_CHICKEN */
#define GEN9_FF_SLICE_CS_CHICKEN1  0x20E0u /* GEN7_FF_SLICE_CS_CHICKEN1 */
#define GEN9_FF_SLICE_CS_CHICKEN2  0x20E4u /* FF_SLICE_CS_CHICKEN2 */
#define GEN9_CS_DEBUG_MODE1        0x20ECu /* GEN9_CS_DEBUG_MODE1 */
#define GEN9_MASKED_2470           0x2470u /* no i915 name; GVT-g 0x2470 */
#define GEN9_CS_CHICKEN1           0x2580u /* GEN8_CS_CHICKEN1 */
#define GEN9_ARB_MODE              0x4030u /* ARB_MODE */
#define GEN9_WM_CHICKEN3           0x5588u /* GEN9_WM_CHICKEN3 */
#define GEN9_CACHE_MODE_0_GEN7     0x7000u /* CACHE_MODE_0_GEN7 */
#define GEN9_CACHE_MODE_1          0x7004u /* CACHE_MODE_1 */
#define GEN9_GT_MODE               0x7008u /* GEN7_GT_MODE */
#define GEN9_COMMON_SLICE_CHICKEN1 0x7010u /* GEN7_COMMON_SLICE_CHICKEN1 */
#define GEN9_COMMON_SLICE_CHICKEN2 0x7014u /* COMMON_SLICE_CHICKEN2 */
#define GEN9_HIZ_CHICKEN           0x7018u /* HIZ_CHICKEN */
#define GEN9_HDC_CHICKEN0          0x7300u /* HDC_CHICKEN0 */
#define GEN9_HDC_CHICKEN1          0x7304u /* GEN8_HDC_CHICKEN1 */
#define GEN9_HALF_SLICE_CHICKEN1   0xE100u /* GEN7_HALF_SLICE_CHICKEN1 */
#define GEN9_HALF_SLICE_CHICKEN2   0xE180u /* HALF_SLICE_CHICKEN2 */
#define GEN9_HALF_SLICE_CHICKEN3   0xE184u /* HALF_SLICE_CHICKEN3 */
#define GEN9_HALF_SLICE_CHICKEN5   0xE188u /* GEN9_HALF_SLICE_CHICKEN5 */
#define GEN9_HALF_SLICE_CHICKEN7   0xE194u /* GEN9_HALF_SLICE_CHICKEN7 */
#define GEN9_ROW_CHICKEN           0xE4F0u /* GEN8_ROW_CHICKEN */
#define GEN9_ROW_CHICKEN2          0xE4F4u /* GEN7_ROW_CHICKEN2 */
/* Registers i915 whitelists for user batches on the render engine (gen9_whitelist_build(),
 * skl_whitelist_build()) besides masked ones above: preemption control and an L3 setting. */
#define GEN9_CTX_PREEMPT_REG 0x2248u /* GEN9_CTX_PREEMPT_REG */
#define GEN9_L3SQCREG4       0xB118u /* GEN8_L3SQCREG4 */

/* ---- Display: pipe A, its planes, the DDI ports and the south display are in
 * gen9_display.h (Tessera's own guests use the primary plane: GEN9_PLANE_*_1_A). ---------- */

/* ---- PCI configuration space of the iGPU (00:02.0) --------------------------------------- */
/* What is Intel's in the iGPU's configuration space.  The standard header (ids, command,
 * BAR bits, capabilities) is PCI's: arch/x86/pci_regs.h. */
#define GEN9_PCI_DEV \
    2u /* bus 0, device 2, function 0 (ACPI _ADR
                                                     * 0x00020000), where i915 finds the iGPU */
/* BAR indices (a BAR's offset is PCI_BAR0 + index * PCI_BAR_STRIDE; i915_drm.h
 * GEN4_GTTMMADR_BAR, GEN4_GMADR_BAR). */
#define GEN9_PCI_BAR_GTTMMADR 0u /* registers + GGTT, 64-bit memory */
#define GEN9_PCI_BAR_GMADR    2u /* the aperture, 64-bit prefetchable */
#define GEN9_PCI_BAR_IOBAR    4u /* 64 I/O ports (MMIO_INDEX/MMIO_DATA) */
/* GMCH Graphics Control, 16 bits, Gen8+ layout (i915_drm.h SNB_GMCH_CTRL, BDW_GMCH_*; read by
 * gt/intel_ggtt.c gen8_get_total_gtt_size() and gen9_get_stolen_size()): GGMS, the GGTT
 * size, in bits 7:6 as a power of two in MiB (0 = none, 1 = 2 MiB, 2 = 4 MiB, 3 = 8 MiB);
 * GMS, the stolen memory size code, in bits 15:8. */
#define GEN9_PCI_GMCH_CTRL   0x50u /* SNB_GMCH_CTRL */
#define GEN9_GMCH_GGMS_SHIFT 6u    /* BDW_GMCH_GGMS_SHIFT */
#define GEN9_GMCH_GGMS_MASK  0x3u  /* BDW_GMCH_GGMS_MASK */
#define GEN9_GMCH_GGMS_8M    3u    /* 1 << 3 MiB of GGTT: 1 Mi 8-byte entries */
#define GEN9_GMCH_GMS_SHIFT  8u    /* BDW_GMCH_GMS_SHIFT */
#define GEN9_GMCH_GMS_MASK   0xFFu /* BDW_GMCH_GMS_MASK */
/* Base of Data Stolen Memory, 32 bits, the base in bits 31:20 (i915_drm.h INTEL_BSM,
 * INTEL_BSM_MASK; i915_gem_stolen.c). */
#define GEN9_PCI_BDSM  0x5Cu
#define GEN9_BDSM_MASK 0xFFF00000u

#endif /* TESSERA_DRIVERS_IGPU_GEN9_REGS_H */
