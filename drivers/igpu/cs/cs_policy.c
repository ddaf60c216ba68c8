/*
 * Register allow-lists of an i915 guest's MI-only engines: what MI_LOAD_REGISTER_IMM/_MEM may
 * write and MI_STORE_REGISTER_MEM may read.  The vGPU applies an allowed write to the guest's
 * own virtual register file (its masked-register rules included), never to the GPU.
 *
 *  - Every engine: its sixteen 64-bit GPRs (read and write) and its timestamps (read only),
 *    as for Tessera's own guests (drivers/igpu/scanner/scan_policy.c explains why).
 *  - The render engine: the context workaround registers i915 6.1 loads with one
 *    MI_LOAD_REGISTER_IMM in every golden context (gt/intel_workarounds.c
 *    gen9_ctx_workarounds_init(), skl_tune_iz_hashing(); emitted by
 *    intel_engine_emit_ctx_wa()), and the registers it lets user batches write through
 *    RING_FORCE_TO_NONPRIV (gen9_whitelist_build(), skl_whitelist_build()).  All are chicken or
 *    tuning bits of the render pipeline this engine does not have.
 * On hardware the render ones are context state; here they are the vGPU's registers (one set
 * per guest, so nothing crosses between guests).
 */
#include "drivers/igpu/cs/cs.h"

#include "drivers/igpu/gen9_regs.h"

#define RW (IGPU_SCAN_REG_READ | IGPU_SCAN_REG_WRITE)
#define ENGINE_REGS(base) \
    { GEN9_RING_CS_GPR(base, 0), GEN9_CS_GPR_COUNT * 8u, RW }, \
        { GEN9_RING_TIMESTAMP(base), 4, IGPU_SCAN_REG_READ }, \
        { GEN9_RING_TIMESTAMP_UDW(base), 4, IGPU_SCAN_REG_READ }, \
    { \
        GEN9_RING_CTX_TIMESTAMP(base), 4, IGPU_SCAN_REG_READ \
    }

const struct igpu_scan_reg igpu_cs_i915_regs_rcs[] = {
    ENGINE_REGS(GEN9_RCS_BASE),
    /* gen9_ctx_workarounds_init() + skl_tune_iz_hashing() */
    { GEN9_COMMON_SLICE_CHICKEN2, 4, RW },
    { GEN9_HALF_SLICE_CHICKEN7, 4, RW },
    { GEN9_ROW_CHICKEN, 4, RW },
    { GEN9_CACHE_MODE_1, 4, RW },
    { GEN9_HALF_SLICE_CHICKEN5, 4, RW },
    { GEN9_HDC_CHICKEN0, 4, RW },
    { GEN9_HALF_SLICE_CHICKEN3, 4, RW },
    { GEN9_HALF_SLICE_CHICKEN2, 4, RW },
    { GEN9_CS_CHICKEN1, 4, RW },
    { GEN9_WM_CHICKEN3, 4, RW },
    { GEN9_GT_MODE, 4, RW },
    /* gen9_whitelist_build(), skl_whitelist_build() */
    { GEN9_CTX_PREEMPT_REG, 4, RW },
    { GEN9_HDC_CHICKEN1, 4, RW },
    { GEN9_L3SQCREG4, 4, RW },
};
const size_t igpu_cs_i915_regs_rcs_count = sizeof igpu_cs_i915_regs_rcs /
                                           sizeof igpu_cs_i915_regs_rcs[0];

const struct igpu_scan_reg igpu_cs_i915_regs_vcs[] = { ENGINE_REGS(GEN9_VCS_BASE) };
const size_t igpu_cs_i915_regs_vcs_count = sizeof igpu_cs_i915_regs_vcs /
                                           sizeof igpu_cs_i915_regs_vcs[0];

const struct igpu_scan_reg igpu_cs_i915_regs_vecs[] = { ENGINE_REGS(GEN9_VECS_BASE) };
const size_t igpu_cs_i915_regs_vecs_count = sizeof igpu_cs_i915_regs_vecs /
                                            sizeof igpu_cs_i915_regs_vecs[0];
