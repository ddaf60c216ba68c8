/*
 * The Skylake GT2 register table of an i915 guest's vGPU: every register the file owns, with
 * its kind, its value after creation and i915's name.  Offsets are gen9_regs.h's.
 *
 * Values and why:
 *  - SKL_DFSM: pipes A, B and C fused off (0x50200000): intel_device_info_runtime_init() ends
 *    with pipe_mask 0, HAS_DISPLAY() false, DRIVER_MODESET dropped: no display code runs.
 *  - GEN8_FUSE2 / GEN9_EU_DISABLE: a GT2 (HD Graphics 530, 8086:1912): slice 0 enabled,
 *    subslice 3 of 4 disabled, all 8 EUs of each enabled subslice: 1 slice, 3 subslices, 24 EUs
 *    (gen9_sseu_info_init(); IGT i915_getparams_basic checks the totals).
 *  - PCH_RAWCLK_FREQ: 24 (MHz), Sunrise Point's raw clock (pch_rawclk()).
 *  - HSW_EDRAM_CAP 0 (no eDRAM), RP_STATE_CAP 0 (no RPS range: RPS stays off), the GT thread
 *    and core status 0, GUC_STATUS with the GuC's core in reset (GVT-g's fix-ups in
 *    intel_vgpu_reset_mmio(); i915 __intel_uc_reset_hw() checks GS_MIA_IN_RESET).
 *  - Interrupt masks of the units that never interrupt start all masked, as after a reset.
 *  - RING_EMR all masked, RING_HWSTAM all masked (i915 writes both at resume).
 */
#include "vmm/vgpu/i915/vgt/vgt_regs.h"

#define SKL_GT2_SLICES    1u
#define SKL_GT2_SUBSLICES 3u
#define SKL_GT2_FUSE2 \
    ((((1u << SKL_GT2_SLICES) - 1u) << GEN9_F2_S_ENA_SHIFT) | \
     ((~((1u << SKL_GT2_SUBSLICES) - 1u) & 0xFu) << GEN9_F2_SS_DIS_SHIFT))
#define SKL_DFSM_NO_DISPLAY \
    (GEN9_DFSM_PIPE_A_DISABLE | GEN9_DFSM_PIPE_B_DISABLE | GEN9_DFSM_PIPE_C_DISABLE)
#define SPT_RAWCLK_MHZ 24u

#define R(o, k, i, n) \
    { \
        .off = (o), .kind = (k), .init = (i), .name = (n) \
    }
#define PLAIN(o, n)      R(o, VGT_REG_PLAIN, 0, n)
#define MASKED(o, n)     R(o, VGT_REG_MASKED, 0, n)
#define RO(o, v, n)      R(o, VGT_REG_RO, v, n)
#define IIR(o, n)        R(o, VGT_REG_IIR, 0, n)
#define SPECIAL(o, i, n) R(o, VGT_REG_SPECIAL, i, n)

/* Per engine: the mode registers (masked; GVT-g MMIO_RING_DFH(..., F_MODE_MASK)), the reset
 * handshake, the error registers i915's enable_error_interrupt() programs, HWSTAM. */
#define ENGINE(b) \
    SPECIAL(GEN9_RING_MI_MODE(b), 0, "RING_MI_MODE"), \
        SPECIAL(GEN9_RING_RESET_CTL(b), 0, "RING_RESET_CTL"), \
        MASKED(GEN9_RING_MODE(b), "RING_MODE_GEN7"), MASKED(GEN9_RING_INSTPM(b), "RING_INSTPM"), \
        MASKED(GEN9_RING_CSFE_CHICKEN1(b), "CSFE_CHICKEN1"), \
        R(GEN9_RING_HWSTAM(b), VGT_REG_PLAIN, 0xFFFFFFFFu, "RING_HWSTAM"), \
        SPECIAL(GEN9_RING_EIR(b), 0, "RING_EIR"), \
        R(GEN9_RING_EMR(b), VGT_REG_PLAIN, 0xFFFFFFFFu, "RING_EMR"), \
        RO(GEN9_RING_ESR(b), 0, "RING_ESR")

const struct vgt_reg_desc vgt_reg_table[] = {
    ENGINE(GEN9_RCS_BASE),
    ENGINE(GEN9_BCS_BASE),
    ENGINE(GEN9_VCS_BASE),
    ENGINE(GEN9_VECS_BASE),

    /* Probe: uncore, device info, GT clocks, reset, eDRAM, RPS, PCODE. */
    SPECIAL(GEN9_FPGA_DBG, 0, "FPGA_DBG"),
    RO(GEN9_SKL_DFSM, SKL_DFSM_NO_DISPLAY, "SKL_DFSM"),
    RO(GEN9_FUSE2, SKL_GT2_FUSE2, "GEN8_FUSE2"),
    RO(GEN9_EU_DISABLE(0), 0, "GEN9_EU_DISABLE(0)"),
    RO(GEN9_EU_DISABLE(1), 0, "GEN9_EU_DISABLE(1)"),
    RO(GEN9_EU_DISABLE(2), 0, "GEN9_EU_DISABLE(2)"),
    RO(GEN9_CTC_MODE, 0, "CTC_MODE"), /* set from the timestamp rate */
    RO(GEN9_TIMESTAMP_OVERRIDE, 0, "GEN9_TIMESTAMP_OVERRIDE"),
    R(GEN9_PCH_RAWCLK_FREQ, VGT_REG_PLAIN, SPT_RAWCLK_MHZ, "PCH_RAWCLK_FREQ"),
    RO(GEN9_HSW_EDRAM_CAP, 0, "HSW_EDRAM_CAP"),
    RO(GEN9_RP_STATE_CAP, 0, "GEN6_RP_STATE_CAP"),
    RO(GEN9_GT_THREAD_STATUS, 0, "GEN6_GT_THREAD_STATUS_REG"),
    RO(GEN9_GT_CORE_STATUS, 0, "GEN6_GT_CORE_STATUS"),
    RO(GEN9_GUC_STATUS, GEN9_GS_MIA_IN_RESET, "GUC_STATUS"), /* GVT-g's fix-up too */
    /* TLB invalidation requests complete at once: the vGPU's GGTT and PPGTT shadows take every
     * update when it is made, so there is no stale translation to drop. */
    /* Display power wells come up as soon as they are asked for, and the power-gate fuses
     * read distributed (GVT-g skl_power_well_ctl_write(), its SKL_FUSE_STATUS set-up). */
    SPECIAL(GEN9_HSW_PWR_WELL_CTL1, 0, "HSW_PWR_WELL_CTL1"),
    SPECIAL(GEN9_HSW_PWR_WELL_CTL2, 0, "HSW_PWR_WELL_CTL2"),
    SPECIAL(GEN9_HSW_PWR_WELL_CTL3, 0, "HSW_PWR_WELL_CTL3"),
    SPECIAL(GEN9_HSW_PWR_WELL_CTL4, 0, "HSW_PWR_WELL_CTL4"),
    RO(GEN9_SKL_FUSE_STATUS,
       GEN9_SKL_FUSE_DOWNLOAD_STATUS | GEN9_SKL_FUSE_PG_DIST_STATUS(0) |
           GEN9_SKL_FUSE_PG_DIST_STATUS(1) | GEN9_SKL_FUSE_PG_DIST_STATUS(2),
       "SKL_FUSE_STATUS"),
    RO(GEN9_RTCR, 0, "GEN8_RTCR"),
    RO(GEN9_M1TCR, 0, "GEN8_M1TCR"),
    RO(GEN9_M2TCR, 0, "GEN8_M2TCR"),
    RO(GEN9_BTCR, 0, "GEN8_BTCR"),
    RO(GEN9_VTCR, 0, "GEN8_VTCR"),
    SPECIAL(GEN9_GDRST, 0, "GEN6_GDRST"),
    SPECIAL(GEN9_PCODE_MAILBOX, 0, "GEN6_PCODE_MAILBOX"),
    PLAIN(GEN9_PCODE_DATA, "GEN6_PCODE_DATA"),
    PLAIN(GEN9_PCODE_DATA1, "GEN6_PCODE_DATA1"),
    PLAIN(GEN9_PRIVATE_PAT_LO, "GEN8_PRIVATE_PAT_LO"),
    PLAIN(GEN9_PRIVATE_PAT_HI, "GEN8_PRIVATE_PAT_HI"),

    /* Interrupt units the vGPU never raises (i915 gen8_irq_reset(), ibx_irq_reset()). */
    RO(GEN9_PCU_ISR, 0, "GEN8_PCU_ISR"),
    R(GEN9_PCU_IMR, VGT_REG_PLAIN, 0xFFFFFFFFu, "GEN8_PCU_IMR"),
    IIR(GEN9_PCU_IIR, "GEN8_PCU_IIR"),
    PLAIN(GEN9_PCU_IER, "GEN8_PCU_IER"),
    R(GEN9_SDE_IMR, VGT_REG_PLAIN, 0xFFFFFFFFu, "SDEIMR"),
    IIR(GEN9_SDE_IIR, "SDEIIR"),
    PLAIN(GEN9_SDE_IER, "SDEIER"),
    IIR(GEN9_DE_PIPE_IIR(0), "GEN8_DE_PIPE_IIR(A)"),
    IIR(GEN9_DE_PIPE_IIR(1), "GEN8_DE_PIPE_IIR(B)"),
    IIR(GEN9_DE_PIPE_IIR(2), "GEN8_DE_PIPE_IIR(C)"),
    IIR(GEN9_DE_PORT_IIR, "GEN8_DE_PORT_IIR"),
    IIR(GEN9_DE_MISC_IIR, "GEN8_DE_MISC_IIR"),

    /* Global masked registers (GVT-g handlers.c F_MODE_MASK for Skylake). */
    MASKED(GEN9_CACHE_MODE_0, "CACHE_MODE_0"),
    MASKED(GEN9_MASKED_2124, "0x2124"),
    MASKED(GEN9_FW_BLC2, "FW_BLC2"),
    MASKED(GEN9_3D_CHICKEN3, "_3D_CHICKEN3"),
    MASKED(GEN9_FF_SLICE_CHICKEN, "FF_SLICE_CHICKEN"),
    MASKED(GEN9_FF_SLICE_CS_CHICKEN1, "GEN7_FF_SLICE_CS_CHICKEN1"),
    MASKED(GEN9_FF_SLICE_CS_CHICKEN2, "FF_SLICE_CS_CHICKEN2"),
    MASKED(GEN9_CS_DEBUG_MODE1, "GEN9_CS_DEBUG_MODE1"),
    MASKED(GEN9_MASKED_2470, "0x2470"),
    MASKED(GEN9_CS_CHICKEN1, "GEN8_CS_CHICKEN1"),
    MASKED(GEN9_ARB_MODE, "ARB_MODE"),
    MASKED(GEN9_WM_CHICKEN3, "GEN9_WM_CHICKEN3"),
    MASKED(GEN9_CACHE_MODE_0_GEN7, "CACHE_MODE_0_GEN7"),
    MASKED(GEN9_CACHE_MODE_1, "CACHE_MODE_1"),
    MASKED(GEN9_GT_MODE, "GEN7_GT_MODE"),
    MASKED(GEN9_COMMON_SLICE_CHICKEN1, "GEN7_COMMON_SLICE_CHICKEN1"),
    MASKED(GEN9_COMMON_SLICE_CHICKEN2, "COMMON_SLICE_CHICKEN2"),
    MASKED(GEN9_HIZ_CHICKEN, "HIZ_CHICKEN"),
    MASKED(GEN9_HDC_CHICKEN0, "HDC_CHICKEN0"),
    MASKED(GEN9_HDC_CHICKEN1, "GEN8_HDC_CHICKEN1"),
    MASKED(GEN9_HALF_SLICE_CHICKEN1, "GEN7_HALF_SLICE_CHICKEN1"),
    MASKED(GEN9_HALF_SLICE_CHICKEN2, "HALF_SLICE_CHICKEN2"),
    MASKED(GEN9_HALF_SLICE_CHICKEN3, "HALF_SLICE_CHICKEN3"),
    MASKED(GEN9_HALF_SLICE_CHICKEN5, "GEN9_HALF_SLICE_CHICKEN5"),
    MASKED(GEN9_HALF_SLICE_CHICKEN7, "GEN9_HALF_SLICE_CHICKEN7"),
    MASKED(GEN9_ROW_CHICKEN, "GEN8_ROW_CHICKEN"),
    MASKED(GEN9_ROW_CHICKEN2, "GEN7_ROW_CHICKEN2"),

    /* Registers user batches may load through the whitelist (gen9_whitelist_build()). */
    PLAIN(GEN9_CTX_PREEMPT_REG, "GEN9_CTX_PREEMPT_REG"),
    PLAIN(GEN9_L3SQCREG4, "GEN8_L3SQCREG4"),
};
const unsigned vgt_reg_table_count = sizeof vgt_reg_table / sizeof vgt_reg_table[0];

/* Plain storage i915 fills at init (intel_mocs.c init_mocs_table()/init_l3cc_table();
 * intel_workarounds.c whitelist RING_FORCE_TO_NONPRIV slots, verified by readback). */
#define NONPRIV(b, n) \
    { \
        GEN9_RING_FORCE_TO_NONPRIV(b, 0), GEN9_RING_NONPRIV_SLOTS, n \
    }
const struct vgt_reg_range vgt_reg_ranges[] = {
    { GEN9_RCS_MOCS(0), GEN9_MOCS_ENTRIES, "GEN9_GFX_MOCS" },
    { GEN9_VCS_MOCS(0), GEN9_MOCS_ENTRIES, "GEN9_MFX0_MOCS" },
    { GEN9_VCS1_MOCS(0), GEN9_MOCS_ENTRIES, "GEN9_MFX1_MOCS" },
    { GEN9_VECS_MOCS(0), GEN9_MOCS_ENTRIES, "GEN9_VEBOX_MOCS" },
    { GEN9_BCS_MOCS(0), GEN9_MOCS_ENTRIES, "GEN9_BLT_MOCS" },
    { GEN9_LNCFCMOCS(0), GEN9_LNCFCMOCS_COUNT, "GEN9_LNCFCMOCS" },
    NONPRIV(GEN9_RCS_BASE, "RING_FORCE_TO_NONPRIV(rcs)"),
    NONPRIV(GEN9_BCS_BASE, "RING_FORCE_TO_NONPRIV(bcs)"),
    NONPRIV(GEN9_VCS_BASE, "RING_FORCE_TO_NONPRIV(vcs)"),
    NONPRIV(GEN9_VECS_BASE, "RING_FORCE_TO_NONPRIV(vecs)"),
};
const unsigned vgt_reg_ranges_count = sizeof vgt_reg_ranges / sizeof vgt_reg_ranges[0];
