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

#include <stdint.h>

/* ---- Context descriptor (64 bits; element of an ELSP submission) ------------------------- */
#define GEN9_CTX_VALID                  (1ull << 0)
#define GEN9_CTX_FORCE_PD_RESTORE       (1ull << 1)
#define GEN9_CTX_FORCE_RESTORE          (1ull << 2)
#define GEN9_CTX_ADDRESSING_MODE_SHIFT  3
#define GEN9_CTX_ADDRESSING_MODE_MASK   (3ull << GEN9_CTX_ADDRESSING_MODE_SHIFT)
#define   GEN9_CTX_ADDR_ADVANCED        0ull    /* advanced context, no A/D bits */
#define   GEN9_CTX_ADDR_LEGACY_32B      1ull    /* legacy 32-bit (PPGTT with 4 PDPs) */
#define   GEN9_CTX_ADDR_LEGACY_64B      3ull    /* legacy 64-bit (PML4) */
#define GEN9_CTX_L3LLC_COHERENT         (1ull << 5)
#define GEN9_CTX_PRIVILEGE              (1ull << 8)
#define GEN9_CTX_LRCA_MASK              0x00000000FFFFF000ull   /* bits 31:12: GGTT address */
#define GEN9_CTX_ID_SHIFT               32
#define GEN9_CTX_ID_WIDTH               21

static inline uint64_t gen9_ctx_desc(uint32_t lrca, uint32_t ctx_id, uint64_t flags)
{
    return ((uint64_t)ctx_id << GEN9_CTX_ID_SHIFT) | ((uint64_t)lrca & GEN9_CTX_LRCA_MASK) |
           flags | GEN9_CTX_VALID;
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
 * pairs; the values below are DWORD indices of the VALUE dword inside the register-state
 * page, and the preceding dword holds the register's MMIO offset. */
#define GEN9_LRC_PPHWSP_PN              0u
#define GEN9_LRC_STATE_PN               1u
#define GEN9_LRC_STATE_OFFSET           (GEN9_LRC_STATE_PN * 4096u)
#define GEN9_CTX_LRI_HEADER_0           0x01u   /* MI_LOAD_REGISTER_IMM(14) | force posted */
#define GEN9_CTX_CONTEXT_CONTROL        (0x02u + 1u)
#define GEN9_CTX_RING_HEAD              (0x04u + 1u)
#define GEN9_CTX_RING_TAIL              (0x06u + 1u)
#define GEN9_CTX_RING_START             (0x08u + 1u)
#define GEN9_CTX_RING_CTL               (0x0au + 1u)
#define GEN9_CTX_BB_HEAD_U              (0x0cu + 1u)
#define GEN9_CTX_BB_HEAD_L              (0x0eu + 1u)
#define GEN9_CTX_BB_STATE               (0x10u + 1u)
#define GEN9_CTX_LRI_HEADER_1           0x21u
#define GEN9_CTX_TIMESTAMP              (0x22u + 1u)
/* Number of dwords of register state the engine reads for the ring registers. */
#define GEN9_CTX_RING_STATE_DWORDS      0x0cu
/* Context sizes (i915 intel_engine_cs.c: GEN9_LR_CONTEXT_RENDER_SIZE, GEN8_..._OTHER_SIZE). */
#define GEN9_LR_CONTEXT_RENDER_SIZE     (22u * 4096u)
#define GEN9_LR_CONTEXT_OTHER_SIZE      (2u * 4096u)

/* ---- Hardware status page (i915 gt/intel_engine.h I915_HWS_CSB_*) ----------------------- */
#define GEN9_HWS_CSB_BUF0_INDEX         0x10u   /* dword index of the CSB mirror */
#define GEN9_HWS_CSB_WRITE_INDEX        0x1fu   /* dword index of the mirrored write pointer */

/* ---- Context status buffer entry: lower dword status, upper dword context id ------------ */
#define GEN9_CTX_STATUS_IDLE_ACTIVE     (1u << 0)
#define GEN9_CTX_STATUS_PREEMPTED       (1u << 1)
#define GEN9_CTX_STATUS_ELEMENT_SWITCH  (1u << 2)
#define GEN9_CTX_STATUS_ACTIVE_IDLE     (1u << 3)
#define GEN9_CTX_STATUS_COMPLETE        (1u << 4)
#define GEN9_CTX_STATUS_LITE_RESTORE    (1u << 15)

/* ---- RING_EXECLIST_STATUS_LO bits (i915 intel_execlists_submission.c, gvt/execlist.h) ---- */
#define GEN9_EXECLIST_CURRENT_POINTER   (1u << 0)
#define GEN9_EXECLIST_WRITE_POINTER     (1u << 1)
#define GEN9_EXECLIST_QFULL             (1u << 2)
#define GEN9_EXECLIST1_VALID            (1u << 3)
#define GEN9_EXECLIST0_VALID            (1u << 4)
#define GEN9_EXECLIST_ACTIVE_STATUS     (3u << 14)
#define GEN9_EXECLIST1_ACTIVE           (1u << 17)
#define GEN9_EXECLIST0_ACTIVE           (1u << 18)

#endif /* TESSERA_DRIVERS_IGPU_GEN9_CONTEXT_H */
