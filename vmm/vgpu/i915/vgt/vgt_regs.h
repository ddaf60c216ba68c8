/*
 * The Skylake GT2 register file a vGPU's BAR0 emulation consults for an i915 guest: initial
 * values of the registers i915 6.1 reads at probe (linux-guest.md section 3.2, 3.6), the masked
 * registers (bits 31:16 select which of bits 15:0 a write changes, reads return the low half;
 * GVT-g's F_MODE_MASK list for Skylake), and the registers with behaviour:
 *  - RING_MI_MODE: masked; MODE_IDLE (bit 9) reads set while the virtual engine has nothing in
 *    flight, so STOP_RING is acknowledged as soon as the engine is idle
 *    (__intel_engine_stop_cs() waits for it);
 *  - RING_RESET_CTL: masked; REQUEST_RESET set makes READY_TO_RESET read set, clearing it
 *    clears READY_TO_RESET (GVT-g ring_reset_ctl_write(); gen8_engine_reset_prepare() waits
 *    for it);
 *  - GEN6_GDRST: a write resets the virtual engines it selects (the caller's action) and the
 *    register reads 0 at once, "reset complete" (GVT-g gdrst_mmio_write(); gen6_hw_domain_reset()
 *    waits for the bits to clear);
 *  - GEN6_PCODE_MAILBOX: a write completes at once: READY and the error code cleared, DATA
 *    answered for the commands GVT-g answers (mailbox_write()); SAGV control answers "illegal
 *    command" (there is none);
 *  - FPGA_DBG: the unclaimed-access bit never reads set;
 *  - HSW_PWR_WELL_CTL1..4: a requested display power well reads on at once (i915 6.1 powers the
 *    misc wells even with no pipe), SKL_FUSE_STATUS reads its power-gate fuses distributed;
 *  - TLB invalidation requests (GEN8_RTCR..VTCR) and GUC_STATUS read done / in reset;
 *  - RING_EIR: the vGPU sets error bits when a virtual engine faults; writing 1s clears them;
 *  - the interrupt identity registers of units the vGPU never raises (PCU, south display, display
 *    engine) read 0 and take writes of 1s to clear, so gen3_assert_iir_is_zero() is satisfied;
 *  - fuse and capability registers are read-only (SKL_DFSM with every pipe fused off, so i915
 *    probes no display, unless the vGPU has a monitor: vgt_regs_set_fuse(); one slice, three
 *    subslices, 24 EUs; no eDRAM; no RPS range).
 * Registers it does not own (vgt_regs_owns() false) are the caller's: the interrupt controller
 * (vgt_irq.h), the execlist registers (vgt_execlist.h), RING_HWS_PGA, timestamps, fences,
 * forcewake, the GGTT and the PV info page, and plain storage for anything else.
 *
 * Pure; one struct per vGPU.
 */
#ifndef TESSERA_VMM_VGT_VGT_REGS_H
#define TESSERA_VMM_VGT_VGT_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

enum vgt_reg_kind {
    VGT_REG_PLAIN = 1, /* storage */
    VGT_REG_MASKED,    /* masked storage */
    VGT_REG_RO,        /* read-only: writes ignored */
    VGT_REG_IIR,       /* a unit that never interrupts: reads 0, 1s clear */
    VGT_REG_SPECIAL,   /* behaviour in vgt_regs.c */
};

struct vgt_reg_desc {
    uint32_t off;
    uint8_t kind;     /* enum vgt_reg_kind */
    uint32_t init;    /* value after creation */
    const char *name; /* i915's name */
};

/* The registers the file owns, one row each (vgt_regs_table.c), and ranges of plain storage
 * (MOCS tables, the non-privileged register whitelist slots). */
extern const struct vgt_reg_desc vgt_reg_table[];
extern const unsigned vgt_reg_table_count;
struct vgt_reg_range {
    uint32_t off;
    uint32_t dwords;
    const char *name;
};
extern const struct vgt_reg_range vgt_reg_ranges[];
extern const unsigned vgt_reg_ranges_count;

/* Every table row and every range dword. */
#define VGT_REGS_MAX          192u
#define VGT_REGS_RANGE_MAX_DW 448u

/* What a register write asks of the vGPU. */
struct vgt_regs_action {
    uint32_t reset_engines; /* 1 << enum igpu_engine: reset these virtual engines (GDRST) */
};

struct vgt_regs_stats {
    uint64_t reads, writes;
    uint64_t ro_ignored;    /* writes to read-only registers */
    uint64_t engine_resets; /* virtual engines reset by GDRST */
    uint64_t pcode;         /* mailbox commands answered */
};

struct vgt_regs {
    uint32_t val[VGT_REGS_MAX];
    uint32_t range[VGT_REGS_RANGE_MAX_DW];
    bool busy[IGPU_NUM_GT_ENGINES];
    struct vgt_regs_stats st;
};

/* Initial values; CTC_MODE and TIMESTAMP_OVERRIDE say the rate the vGPU's RING_TIMESTAMP
 * counts at (gen9_cs_timestamp_encode()); false if that rate cannot be said. */
bool vgt_regs_init(struct vgt_regs *r, uint32_t timestamp_hz);

/* Whether the file owns off (a table row or a range dword). */
bool vgt_regs_owns(uint32_t off);
/* The row describing off (NULL for ranges and registers it does not own). */
const struct vgt_reg_desc *vgt_regs_desc(uint32_t off);
/* Whether off is a masked register (bits 31:16 select): for LRI emulation and logs. */
bool vgt_regs_is_masked(uint32_t off);

uint32_t vgt_regs_read(struct vgt_regs *r, uint32_t off);
/* act (may be NULL) receives what the write asks of the vGPU. */
void vgt_regs_write(struct vgt_regs *r, uint32_t off, uint32_t val, struct vgt_regs_action *act);

/* Sets a read-only (fuse) register to what this vGPU offers, after vgt_regs_init(): SKL_DFSM
 * with a display.  false if off is not a read-only row. */
bool vgt_regs_set_fuse(struct vgt_regs *r, uint32_t off, uint32_t val);

/* The vGPU says whether a virtual engine has work in flight (RING_MI_MODE's MODE_IDLE). */
void vgt_regs_set_busy(struct vgt_regs *r, enum igpu_engine e, bool busy);
/* Whether the guest has asked engine e to stop (RING_MI_MODE STOP_RING): dispatch nothing. */
bool vgt_regs_stopped(const struct vgt_regs *r, enum igpu_engine e);
/* A virtual engine faulted: set these RING_EIR bits (GEN9_ERROR_INSTRUCTION); the caller also
 * raises GEN9_GT_CS_MASTER_ERROR (i915 execlists_irq_handler() reads RING_EIR on it). */
void vgt_regs_engine_error(struct vgt_regs *r, enum igpu_engine e, uint32_t eir);

#endif /* TESSERA_VMM_VGT_VGT_REGS_H */
