/*
 * Gen9 execlist context facts: the context descriptor written to ELSP, the layout of a logical
 * ring context (LRC) image, context status buffer (CSB) event bits and the execlist status
 * register.
 *
 * Sources: i915 gt/intel_lrc.h / intel_lrc.c (GEN8_CTX_* descriptor bits, LRC_PPHWSP_PN,
 * LRC_STATE_PN, context sizes), gt/intel_lrc_reg.h (CTX_* register-state offsets, CSB sizes),
 * gt/intel_execlists_submission.c (GEN8_CTX_STATUS_* event bits, RING_EXECLIST*_VALID),
 * gvt/execlist.h (field layout of the status and pointer registers); Intel PRM for Skylake
 * Vol 7 "3D-Media-GPGPU Engine": "Logical Ring Context Format", "Context Status".
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_CONTEXT_H
#define TESSERA_DRIVERS_IGPU_GEN9_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

/* ---- Context descriptor (64 bits; element of an ELSP submission) ------------------------- */
#define GEN9_CTX_VALID                 (1ull << 0)
#define GEN9_CTX_FORCE_PD_RESTORE      (1ull << 1)
#define GEN9_CTX_FORCE_RESTORE         (1ull << 2)
#define GEN9_CTX_ADDRESSING_MODE_SHIFT 3
#define GEN9_CTX_ADDRESSING_MODE_MASK  (3ull << GEN9_CTX_ADDRESSING_MODE_SHIFT)
#define GEN9_CTX_ADDR_ADVANCED         0ull /* advanced context, no A/D bits */
#define GEN9_CTX_ADDR_LEGACY_32B       1ull /* legacy 32-bit (PPGTT with 4 PDPs) */
#define GEN9_CTX_ADDR_LEGACY_64B       3ull /* legacy 64-bit (PML4) */
#define GEN9_CTX_L3LLC_COHERENT        (1ull << 5)
#define GEN9_CTX_PRIVILEGE             (1ull << 8)
#define GEN9_CTX_LRCA_MASK             0x00000000FFFFF000ull /* bits 31:12: GGTT address */
#define GEN9_CTX_ID_SHIFT              32
#define GEN9_CTX_ID_WIDTH              21

static inline uint64_t gen9_ctx_desc(uint32_t lrca, uint32_t ctx_id, uint64_t flags)
{
    return ((uint64_t)ctx_id << GEN9_CTX_ID_SHIFT) | ((uint64_t)lrca & GEN9_CTX_LRCA_MASK) | flags |
           GEN9_CTX_VALID;
}

static inline uint32_t gen9_ctx_desc_lrca(uint64_t desc)
{
    return (uint32_t)(desc & GEN9_CTX_LRCA_MASK);
}

static inline uint32_t gen9_ctx_desc_id(uint64_t desc)
{
    return (uint32_t)(desc >> GEN9_CTX_ID_SHIFT);
}

/* ---- Logical ring context image ---------------------------------------------------------
 * Page 0 of the image is the per-process hardware status page (PPHWSP); the register state
 * starts at page 1. The register state is a list of MI_LOAD_REGISTER_IMM (offset, value)
 * pairs: the engine restores a context by executing it and saves one by writing it back
 * (headers and offsets included). The values below are DWORD indices of the VALUE dword
 * inside the register-state page; the dword before holds the register's MMIO offset.
 *
 * The complete Gen9 layout (i915 gt/intel_lrc.c gen9_xcs_offsets, gen9_rcs_offsets; the
 * i915 lrc_ring_*() helpers give the same positions) is four LRI blocks:
 *   0x01  LRI(14)  ring context: CONTEXT_CONTROL, RING_HEAD/TAIL/START/CTL, batch state,
 *                  BB_PER_CTX_PTR, INDIRECT_CTX(_OFFSET)
 *   0x21  LRI(9)   CTX_TIMESTAMP and the four PPGTT PDPs
 *   0x41  LRI(1)   blitter and video: +0x200 (BCS_SWCTRL on the blitter); render: +0xc8 (RPCS)
 *   0x51  LRI(44)  EXCC, MI_MODE, INSTPM, ..., RING_TIMESTAMP, BB_OFFSET, the 16 64-bit GPRs,
 *                  IPEHR
 * and nothing else is register state (the render engine keeps its 3D state in later pages).
 * gen9_lrc.c holds the table (igpu_lrc_layout()). */
#define GEN9_LRC_PPHWSP_PN       0u
#define GEN9_LRC_STATE_PN        1u
#define GEN9_LRC_STATE_OFFSET    (GEN9_LRC_STATE_PN * 4096u)
#define GEN9_CTX_LRI_HEADER_0    0x01u /* MI_LOAD_REGISTER_IMM(14) | force posted */
#define GEN9_CTX_CONTEXT_CONTROL (0x02u + 1u)
#define GEN9_CTX_RING_HEAD       (0x04u + 1u)
#define GEN9_CTX_RING_TAIL       (0x06u + 1u)
#define GEN9_CTX_RING_START      (0x08u + 1u)
#define GEN9_CTX_RING_CTL        (0x0au + 1u)
#define GEN9_CTX_BB_HEAD_U       (0x0cu + 1u)
#define GEN9_CTX_BB_HEAD_L       (0x0eu + 1u)
#define GEN9_CTX_BB_STATE        (0x10u + 1u)
#define GEN9_CTX_LRI_HEADER_1    0x21u /* MI_LOAD_REGISTER_IMM(9) | force posted */
#define GEN9_CTX_TIMESTAMP       (0x22u + 1u)
#define GEN9_CTX_PDP3_UDW        (0x24u + 1u) /* PDP3..PDP0, upper then lower */
/* PDP0: in a legacy 64-bit context, the PML4 address (i915 intel_lrc_reg.h CTX_PDP0_UDW/LDW;
 * ASSIGN_CTX_PML4 in lrc_init_regs()). */
#define GEN9_CTX_PDP0_UDW     (0x30u + 1u)
#define GEN9_CTX_PDP0_LDW     (0x32u + 1u)
#define GEN9_CTX_LRI_HEADER_2 0x41u        /* MI_LOAD_REGISTER_IMM(1) */
#define GEN9_CTX_BCS_SWCTRL   (0x42u + 1u) /* blitter; RPCS on render */
#define GEN9_CTX_LRI_HEADER_3 0x51u        /* MI_LOAD_REGISTER_IMM(44) | force posted */
#define GEN9_CTX_MI_MODE      (0x54u + 1u) /* i915 lrc_ring_mi_mode() */
#define GEN9_CTX_BB_OFFSET    (0x64u + 1u) /* i915 lrc_ring_bb_offset() */
#define GEN9_CTX_GPR0         (0x68u + 1u) /* i915 lrc_ring_gpr0(); 32 dwords */
/* Dwords of the register-state page the layout covers (through IPEHR's value); an image built
 * with restore inhibited is closed with MI_BATCH_BUFFER_END at this index (i915
 * set_offsets(close)). */
#define GEN9_LRC_STATE_DW 0xAAu
#define GEN9_LRC_BLOCKS   4u
#define GEN9_LRC_REGS     68u /* 14 + 9 + 1 + 44 */

struct gen9_lrc_block {
    uint16_t header; /* dword index of the LRI header */
    uint8_t count;   /* registers it loads */
    uint8_t first;   /* index of its first register in gen9_lrc_layout.reg[] */
    bool posted;     /* MI_LRI_FORCE_POSTED */
    bool engine_ctx; /* engine context: not loaded when restore is inhibited */
};

struct gen9_lrc_layout {
    struct gen9_lrc_block block[GEN9_LRC_BLOCKS];
    uint16_t reg[GEN9_LRC_REGS]; /* offsets from the engine's MMIO base */
};

/* Dword index of the value of register i (of the layout's list) in the register-state page. */
static inline uint32_t gen9_lrc_value_dw(const struct gen9_lrc_layout *l, unsigned i)
{
    for (unsigned b = 0; b < GEN9_LRC_BLOCKS; b++)
        if (i >= l->block[b].first && i < (unsigned)l->block[b].first + l->block[b].count)
            return l->block[b].header + 2u * (i - l->block[b].first) + 2u;
    return 0;
}

/* Context sizes (i915 intel_engine_cs.c: GEN9_LR_CONTEXT_RENDER_SIZE, GEN8_..._OTHER_SIZE). */
#define GEN9_LR_CONTEXT_RENDER_SIZE (22u * 4096u)
#define GEN9_LR_CONTEXT_OTHER_SIZE  (2u * 4096u)

/* ---- Hardware status page (i915 gt/intel_engine.h I915_HWS_CSB_*) ----------------------- */
#define GEN9_HWS_CSB_BUF0_INDEX  0x10u /* dword index of the CSB mirror */
#define GEN9_HWS_CSB_WRITE_INDEX 0x1fu /* dword index of the mirrored write pointer */
/* Per-process status page (page 0 of a context image): the "store data index" post-sync forms
 * address dwords of it (i915 intel_lrc.h LRC_PPHWSP_SCRATCH_ADDR = 0x34 * 4, written by
 * gen8_emit_flush_rcs()/gen8_emit_flush_xcs() with PIPE_CONTROL_STORE_DATA_INDEX /
 * MI_FLUSH_DW_STORE_INDEX). */
#define GEN9_PPHWSP_BYTES 4096u

/* ---- Context status buffer entry: lower dword status, upper dword context id ------------ */
#define GEN9_CTX_STATUS_IDLE_ACTIVE    (1u << 0)
#define GEN9_CTX_STATUS_PREEMPTED      (1u << 1)
#define GEN9_CTX_STATUS_ELEMENT_SWITCH (1u << 2)
#define GEN9_CTX_STATUS_ACTIVE_IDLE    (1u << 3)
#define GEN9_CTX_STATUS_COMPLETE       (1u << 4)
#define GEN9_CTX_STATUS_LITE_RESTORE   (1u << 15)

/* ---- RING_EXECLIST_STATUS_LO bits (i915 intel_execlists_submission.c, gvt/execlist.h) ---- */
#define GEN9_EXECLIST_CURRENT_POINTER (1u << 0)
#define GEN9_EXECLIST_WRITE_POINTER   (1u << 1)
#define GEN9_EXECLIST_QFULL           (1u << 2)
#define GEN9_EXECLIST1_VALID          (1u << 3)
#define GEN9_EXECLIST0_VALID          (1u << 4)
#define GEN9_EXECLIST_ACTIVE_STATUS   (3u << 14)
#define GEN9_EXECLIST1_ACTIVE         (1u << 17)
#define GEN9_EXECLIST0_ACTIVE         (1u << 18)

#endif /* TESSERA_DRIVERS_IGPU_GEN9_CONTEXT_H */
