/*
 * Skylake display engine and south display (PCH) registers, as i915 6.1 names and uses them
 * (i915_reg.h, display/intel_dp_aux_regs.h, display/intel_display_power_well.c,
 * display/intel_dpll_mgr.c; PRM Vol 2c "Display Engine Registers").  Offsets are for pipe A,
 * transcoder A and the DDI ports A..E unless a macro takes the unit.  gen9_regs.h includes this
 * file; Tessera's own guests use the pipe-A primary-plane subset (docs/vgpu-abi.md), an i915
 * guest's virtual monitor the rest (vmm/vgpu/i915/display/).
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_DISPLAY_H
#define TESSERA_DRIVERS_IGPU_GEN9_DISPLAY_H

#include <stdint.h>

/* ---- Where the display lives in BAR0 (i915 intel_uncore.c gen9 decode; GVT-g
 * intel_gvt_mmio_table.c): the north display engine and the PCH's south display. ---------- */
#define GEN9_DISPLAY_BASE     0x40000u
#define GEN9_DISPLAY_END      0x80000u
#define GEN9_PCH_DISPLAY_BASE 0xC0000u
#define GEN9_PCH_DISPLAY_END  0xD0000u

/* ---- Interrupts (i915 i915_reg.h GEN8_DE_*, SDE*; i915_irq.c gen8_de_irq_handler()) ----
 * Each bank is ISR (level, read-only), IMR (mask: a masked event is not latched), IIR
 * (latched events, write 1 to clear) and IER (enable: IIR & IER drives the master bit). */
#define GEN9_DE_PIPE_ISR(pipe)       (0x44400u + 0x10u * (uint32_t)(pipe))
#define GEN9_DE_PIPE_IMR(pipe)       (0x44404u + 0x10u * (uint32_t)(pipe))
#define GEN9_DE_PIPE_IIR(pipe)       (0x44408u + 0x10u * (uint32_t)(pipe))
#define GEN9_DE_PIPE_IER(pipe)       (0x4440Cu + 0x10u * (uint32_t)(pipe))
#define GEN9_PIPE_VBLANK             (1u << 0)          /* GEN8_PIPE_VBLANK */
#define GEN9_PIPE_PLANE_FLIP_DONE(p) (1u << (3u + (p))) /* plane p+1; p = 0: primary */
#define GEN9_DE_PORT_ISR             0x44440u
#define GEN9_DE_PORT_IMR             0x44444u
#define GEN9_DE_PORT_IIR             0x44448u
#define GEN9_DE_PORT_IER             0x4444Cu
#define GEN9_DE_MISC_ISR             0x44460u
#define GEN9_DE_MISC_IMR             0x44464u
#define GEN9_DE_MISC_IIR             0x44468u
#define GEN9_DE_MISC_IER             0x4446Cu
/* PSR's interrupt bits (eDP only: never raised here), reset by i915 and checked to read 0
 * (gen8_display_irq_reset(), gen8_de_irq_postinstall()): write 1 to clear. */
#define GEN9_EDP_PSR_IMR           0x64834u
#define GEN9_EDP_PSR_IIR           0x64838u
#define GEN9_SDE_ISR               0xC4000u
#define GEN9_SDE_IMR               0xC4004u
#define GEN9_SDE_IIR               0xC4008u
#define GEN9_SDE_IER               0xC400Cu
#define GEN9_SDE_PORTD_HOTPLUG_SPT (1u << 23) /* SDE_PORTD_HOTPLUG_CPT, hpd_spt[HPD_PORT_D] */
/* GEN8_MASTER_IRQ's display summary bits (the GT ones are in gen9_regs.h). */
#define GEN9_MASTER_DE_PIPE_IRQ(pipe) (1u << (16u + (pipe)))
#define GEN9_MASTER_DE_PORT_IRQ       (1u << 20)
#define GEN9_MASTER_DE_MISC_IRQ       (1u << 22)
#define GEN9_MASTER_DE_PCH_IRQ        (1u << 23)
/* PCH hotplug control (i915 PCH_PORT_HOTPLUG, spt_hpd_detection_setup(), spt_irq_handler()):
 * enable bits and per-port status pairs (long and short pulse), the status written back to
 * clear it. */
#define GEN9_PCH_PORT_HOTPLUG          0xC4030u
#define GEN9_PORTD_HOTPLUG_ENABLE      (1u << 20)
#define GEN9_PORTD_HOTPLUG_LONG_DETECT (2u << 16)
#define GEN9_PORT_HOTPLUG_STATUS_MASK  ((3u << 24) | (3u << 16) | (3u << 8) | (3u << 0))
#define GEN9_PCH_PORT_HOTPLUG2         0xC403Cu
#define GEN9_PORTE_HOTPLUG_STATUS_MASK (3u << 0)

/* ---- Identity and straps ------------------------------------------------------------------ */
/* Display fuses (i915 SKL_DFSM): a set pipe-disable bit means the pipe is fused off; with all
 * three set, intel_device_info_runtime_init() finds no pipe and HAS_DISPLAY() is false. */
#define GEN9_SKL_DFSM            0x51000u
#define GEN9_DFSM_PIPE_A_DISABLE (1u << 30)
#define GEN9_DFSM_PIPE_B_DISABLE (1u << 21)
#define GEN9_DFSM_PIPE_C_DISABLE (1u << 28)
#define GEN9_DFSM_HDCP_DISABLE   (1u << 25) /* runtime->has_hdcp = 0 */
/* South fuse straps: which DDI ports the board wires (intel_setup_outputs(), HAS_DDI). */
#define GEN9_SFUSE_STRAP               0xC2014u
#define GEN9_SFUSE_STRAP_DDID_DETECTED (1u << 0)
/* VGA plane control: bit 31 set = the legacy VGA plane is off (intel_vga_disable() returns
 * at once and touches no VGA I/O port). */
#define GEN9_VGACNTRL         0x71400u
#define GEN9_VGA_DISP_DISABLE (1u << 31)

/* ---- Power, clocks and PLLs -------------------------------------------------------------- */
#define GEN9_DBUF_CTL           0x45008u /* DBUF_CTL_S(0) */
#define GEN9_DBUF_POWER_REQUEST (1u << 31)
#define GEN9_DBUF_POWER_STATE   (1u << 30)
/* CDCLK's PLL (DPLL0) and the DP PLLs DPLL1..3 (skl_dpll0_enable(), skl_ddi_pll_enable()):
 * LCPLL1 is DPLL0, LCPLL2 DPLL1, WRPLL1/2 are DPLL2/3. */
#define GEN9_LCPLL1_CTL                      0x46010u
#define GEN9_LCPLL2_CTL                      0x46014u
#define GEN9_WRPLL_CTL1                      0x46040u
#define GEN9_WRPLL_CTL2                      0x46060u
#define GEN9_LCPLL_PLL_ENABLE                (1u << 31)
#define GEN9_LCPLL_PLL_LOCK                  (1u << 30)
#define GEN9_DPLL_CTRL1                      0x6C058u
#define GEN9_DPLL_CTRL1_LINK_RATE(id, c)     ((c) >> ((id)*6u + 1u) & 7u)
#define GEN9_DPLL_CTRL1_RATE_2700            0u /* codes: link clock in MHz / 2 */
#define GEN9_DPLL_CTRL1_RATE_1350            1u
#define GEN9_DPLL_CTRL1_RATE_810             2u
#define GEN9_DPLL_CTRL1_RATE_1620            3u
#define GEN9_DPLL_CTRL1_RATE_1080            4u
#define GEN9_DPLL_CTRL1_RATE_2160            5u
#define GEN9_DPLL_CTRL2                      0x6C05Cu
#define GEN9_DPLL_CTRL2_DDI_CLK_OFF(port)    (1u << ((port) + 15u))
#define GEN9_DPLL_CTRL2_DDI_CLK_SEL(c, port) ((c) >> ((port)*3u + 1u) & 3u)
#define GEN9_DPLL_STATUS                     0x6C060u
#define GEN9_DPLL_LOCK(id)                   (1u << ((id)*8u))

/* ---- DDI ports and their AUX channels ---------------------------------------------------- */
#define GEN9_PORT_D                 3u
#define GEN9_DDI_BUF_CTL(port)      (0x64000u + 0x100u * (uint32_t)(port))
#define GEN9_DDI_BUF_CTL_ENABLE     (1u << 31)
#define GEN9_DDI_BUF_IS_IDLE        (1u << 7)
#define GEN9_DP_TP_CTL(port)        (0x64040u + 0x100u * (uint32_t)(port))
#define GEN9_DP_TP_CTL_PATTERN_MASK (7u << 8)
#define GEN9_DP_TP_CTL_PATTERN_IDLE (2u << 8)
#define GEN9_DP_TP_STATUS(port)     (0x64044u + 0x100u * (uint32_t)(port))
#define GEN9_DP_TP_STATUS_IDLE_DONE (1u << 25)
#define GEN9_DP_TP_STATUS_STICKY    ((3u << 26) | (1u << 24)) /* write 1 to clear */
/* AUX channel control and its five data registers (intel_dp_aux.c intel_dp_aux_xfer(),
 * skl_get_aux_send_ctl()); data bytes are packed big-endian in each dword. */
#define GEN9_DP_AUX_CH_CTL(ch)            (0x64010u + 0x100u * (uint32_t)(ch))
#define GEN9_DP_AUX_CH_DATA(ch, i)        (0x64014u + 0x100u * (uint32_t)(ch) + 4u * (uint32_t)(i))
#define GEN9_DP_AUX_DATA_REGS             5u
#define GEN9_DP_AUX_CH_CTL_SEND_BUSY      (1u << 31)
#define GEN9_DP_AUX_CH_CTL_DONE           (1u << 30)
#define GEN9_DP_AUX_CH_CTL_INTERRUPT      (1u << 29)
#define GEN9_DP_AUX_CH_CTL_TIME_OUT_ERROR (1u << 28)
#define GEN9_DP_AUX_CH_CTL_RECEIVE_ERROR  (1u << 25)
#define GEN9_DP_AUX_CH_CTL_SIZE_SHIFT     20u
#define GEN9_DP_AUX_CH_CTL_SIZE_MASK      (0x1Fu << 20)
#define GEN9_DP_AUX_CH_CTL_STICKY \
    (GEN9_DP_AUX_CH_CTL_DONE | GEN9_DP_AUX_CH_CTL_TIME_OUT_ERROR | GEN9_DP_AUX_CH_CTL_RECEIVE_ERROR)

/* ---- Transcoder A timings and link M/N (i915 HTOTAL..VSYNC, PIPE_LINK_M1/N1) ------------- */
#define GEN9_HTOTAL_A          0x60000u /* (htotal - 1) << 16 | (hactive - 1) */
#define GEN9_VTOTAL_A          0x6000Cu
#define GEN9_VBLANK_A          0x60010u /* (end - 1) << 16 | (start - 1) */
#define GEN9_TIMING_LOW_MASK   0x1FFFu
#define GEN9_TIMING_HIGH_SHIFT 16u
#define GEN9_PIPE_LINK_M1_A    0x60040u
#define GEN9_PIPE_LINK_N1_A    0x60044u
#define GEN9_LINK_MN_MASK      0xFFFFFFu

/* ---- Pipe A: source size, configuration, scanline and counters --------------------------- */
#define GEN9_PIPESRC_A             0x6001Cu /* (width - 1) << 16 | (height - 1) */
#define GEN9_PIPESRC_WIDTH_SHIFT   16u
#define GEN9_PIPESRC_MASK          0x1FFFu
#define GEN9_PIPEDSL_A             0x70000u /* the line being scanned, minus one */
#define GEN9_PIPEDSL_LINE_MASK     0x1FFFu
#define GEN9_PIPECONF_A            0x70008u
#define GEN9_PIPECONF_ENABLE       (1u << 31)
#define GEN9_PIPECONF_STATE_ENABLE (1u << 30)
#define GEN9_PIPE_FRMCOUNT_A       0x70040u /* PIPE_FRMCOUNT_G4X: +1 per vblank */
#define GEN9_PIPE_FLIPCOUNT_A      0x70044u /* PIPE_FLIPCOUNT_G4X: +1 per armed flip */

/* ---- Universal planes of pipe A (PLANE_*(pipe A, plane n), n = 1 primary, 2 sprite) ------ */
#define GEN9_PLANE_BASE(n)              (0x70180u + 0x100u * ((uint32_t)(n)-1u))
#define GEN9_PLANE_CTL(n)               (GEN9_PLANE_BASE(n) + 0x00u)
#define GEN9_PLANE_STRIDE(n)            (GEN9_PLANE_BASE(n) + 0x08u)
#define GEN9_PLANE_POS(n)               (GEN9_PLANE_BASE(n) + 0x0Cu) /* y << 16 | x */
#define GEN9_PLANE_SIZE(n)              (GEN9_PLANE_BASE(n) + 0x10u)
#define GEN9_PLANE_SURF(n)              (GEN9_PLANE_BASE(n) + 0x1Cu)
#define GEN9_PLANE_OFFSET(n)            (GEN9_PLANE_BASE(n) + 0x24u) /* y << 16 | x */
#define GEN9_PLANE_SURFLIVE(n)          (GEN9_PLANE_BASE(n) + 0x2Cu)
#define GEN9_PLANE_CTL_ENABLE           (1u << 31)
#define GEN9_PLANE_CTL_FORMAT_MASK      (0xFu << 24)
#define GEN9_PLANE_CTL_FORMAT_XRGB_8888 (0x4u << 24)
#define GEN9_PLANE_CTL_ORDER_RGBX       (1u << 20)   /* XBGR8888 */
#define GEN9_PLANE_CTL_TILED_MASK       (0x7u << 10) /* 0 = linear */
#define GEN9_PLANE_CTL_TILED_X          (0x1u << 10)
#define GEN9_PLANE_CTL_ASYNC_FLIP       (1u << 9)
#define GEN9_PLANE_CTL_ROTATE_MASK      0x3u
#define GEN9_PLANE_STRIDE_MASK          0x3FFu
#define GEN9_PLANE_STRIDE_UNIT          64u     /* linear: 64 bytes */
#define GEN9_PLANE_STRIDE_UNIT_X        512u    /* X-tiled: one tile row */
#define GEN9_PLANE_SIZE_WIDTH_MASK      0x1FFFu /* i915 PLANE_WIDTH_MASK, bits 12:0 */
#define GEN9_PLANE_SIZE_HEIGHT_SHIFT    16u
#define GEN9_PLANE_SIZE_HEIGHT_MASK     0x1FFFu /* i915 PLANE_HEIGHT_MASK, bits 28:16 */
#define GEN9_PLANE_XY_MASK              0x1FFFu /* POS and OFFSET: 13 bits each */
#define GEN9_PLANE_SURF_ADDR_MASK       0xFFFFF000u
/* The legacy cursor of pipe A (CURCNTR/CURBASE/CURPOS; i9xx_cursor_update_arm()). */
#define GEN9_CURCNTR_A        0x70080u
#define GEN9_CURBASE_A        0x70084u
#define GEN9_CURPOS_A         0x70088u
#define GEN9_CURSURFLIVE_A    0x700ACu
#define GEN9_CURSOR_MODE_MASK 0x27u /* 0 = off */
/* Tessera's own guests' names for the primary plane (docs/vgpu-abi.md). */
#define GEN9_PLANE_CTL_1_A    GEN9_PLANE_CTL(1)
#define GEN9_PLANE_STRIDE_1_A GEN9_PLANE_STRIDE(1)
#define GEN9_PLANE_POS_1_A    GEN9_PLANE_POS(1)
#define GEN9_PLANE_SIZE_1_A   GEN9_PLANE_SIZE(1)
#define GEN9_PLANE_SURF_1_A   GEN9_PLANE_SURF(1)

/* X tiles (PRM Vol 5 "Tiling"): 512 bytes by 8 rows, 4 KiB each, rows of tiles `stride` bytes
 * apart; Gen8+ has no bit-6 swizzling (i915 gt/intel_ggtt_fencing.c detect_bit_6_swizzle()). */
#define GEN9_XTILE_ROW_BYTES 512u
#define GEN9_XTILE_ROWS      8u

#endif /* TESSERA_DRIVERS_IGPU_GEN9_DISPLAY_H */
