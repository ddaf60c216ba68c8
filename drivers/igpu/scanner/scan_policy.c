/*
 * Scanner policy constants: the default register allow-lists, the default cost estimate, and
 * the words used to explain a rejection.
 */
#include <inttypes.h>
#include <stdio.h>

#include "drivers/igpu/scanner/scanner.h"

#include "drivers/igpu/gen9_regs.h"

/*
 * Default register allow-lists.  A guest may:
 *  - read and write its engine's sixteen 64-bit command-streamer general purpose registers
 *    (GEN9_RING_CS_GPR): scratch registers with no side effect that are saved in each
 *    logical context image, so one guest's values never reach another (i915 allows them in
 *    its command parser, gen9_blt_regs, and selftest_lrc live_lrc_gpr checks they are
 *    per-context);
 *  - read, never write, its engine's timestamp and context timestamp (i915 gen9_blt_regs
 *    allows reading them; writing would corrupt the GPU time the scheduler charges);
 *  - on the blitter, read and write BCS_SWCTRL (X or Y tiling for the blits that follow), as
 *    i915's parser allows (gen9_blt_regs).  It is part of the blitter's context image (i915
 *    gen9_xcs_offsets: REG16(0x200)), so with every vGPU in its own fully restored context a
 *    value one guest loads is saved into its own image and never reaches another guest; and
 *    the scanner's bounds for a tiled blit already hold for either tiling (scan_check.c).
 *    (Leaving it out would keep guests from Y-major tiled blits for no isolation gain.)
 */
#define GPR_BYTES (GEN9_CS_GPR_COUNT * 8u) /* sixteen 64-bit registers */
#define ENGINE_REGS(base) \
    { GEN9_RING_CS_GPR(base, 0), GPR_BYTES, IGPU_SCAN_REG_READ | IGPU_SCAN_REG_WRITE }, \
        { GEN9_RING_TIMESTAMP(base), 4, IGPU_SCAN_REG_READ }, \
        { GEN9_RING_TIMESTAMP_UDW(base), 4, IGPU_SCAN_REG_READ }, \
    { \
        GEN9_RING_CTX_TIMESTAMP(base), 4, IGPU_SCAN_REG_READ \
    }

const struct igpu_scan_reg igpu_scan_default_regs_rcs[] = { ENGINE_REGS(GEN9_RCS_BASE) };
const size_t igpu_scan_default_regs_rcs_count = sizeof(igpu_scan_default_regs_rcs) /
                                                sizeof(igpu_scan_default_regs_rcs[0]);
const struct igpu_scan_reg igpu_scan_default_regs_bcs[] = {
    ENGINE_REGS(GEN9_BCS_BASE),
    { GEN9_BCS_SWCTRL, 4, IGPU_SCAN_REG_READ | IGPU_SCAN_REG_WRITE },
};
const size_t igpu_scan_default_regs_bcs_count = sizeof(igpu_scan_default_regs_bcs) /
                                                sizeof(igpu_scan_default_regs_bcs[0]);

/* Used when the caller gives no cost parameters.  The same order-of-magnitude Skylake GT2
 * figures as the model's defaults (igpu_model_cost_defaults(), docs/igpu-model.md), so an
 * estimate matches what the model charges; a unit test keeps the two equal. */
const struct igpu_scan_cost igpu_scan_cost_default = {
    .cmd_ns = 20,
    .blit_ns = 200,
    .pixel_ps = 250,
    .write_ns = 30,
    .batch_ns = 100,
};

static const char *const err_text[IGPU_SCAN_E_COUNT] = {
    [IGPU_SCAN_OK] = "accepted",
    [IGPU_SCAN_E_CONFIG] = "unusable scanner configuration",
    [IGPU_SCAN_E_UNKNOWN_CMD] = "unknown command",
    [IGPU_SCAN_E_FORBIDDEN_CMD] = "command not allowed for guests",
    [IGPU_SCAN_E_WRONG_ENGINE] = "command not executed by this engine",
    [IGPU_SCAN_E_BAD_LENGTH] = "wrong command length",
    [IGPU_SCAN_E_TRUNCATED] = "command runs past the end of the buffer",
    [IGPU_SCAN_E_RESERVED_BITS] = "reserved or unsupported bits set",
    [IGPU_SCAN_E_BAD_FIELD] = "field holds a reserved value",
    [IGPU_SCAN_E_PPGTT] = "PPGTT addressing (only GGTT addresses can be checked)",
    [IGPU_SCAN_E_PRIVILEGED_OP] = "privileged operation (status page or register write)",
    [IGPU_SCAN_E_MISALIGNED] = "misaligned address",
    [IGPU_SCAN_E_ADDR_RANGE] = "address outside the allowed ranges",
    [IGPU_SCAN_E_REG_DENIED] = "register not in the allow-list",
    [IGPU_SCAN_E_BLIT_GEOMETRY] = "unsupported blit geometry",
    [IGPU_SCAN_E_BB_END_IN_RING] = "batch buffer end outside a batch",
    [IGPU_SCAN_E_BATCH_DEPTH] = "batch nesting too deep",
    [IGPU_SCAN_E_BATCH_LOOP] = "batch start into a batch on the current path (loop)",
    [IGPU_SCAN_E_TOO_MANY_BATCHES] = "too many batch buffers",
    [IGPU_SCAN_E_BATCH_OVERRUN] = "batch runs out of the allowed ranges",
    [IGPU_SCAN_E_READ_FAULT] = "guest memory could not be read",
    [IGPU_SCAN_E_SHADOW_FULL] = "shadow buffer full",
    [IGPU_SCAN_E_NO_3D_MEDIA] =
        "draw, kernel or media command (RCS/VCS/VECS: MI only, no 3D or media)",
    [IGPU_SCAN_E_PPGTT_MAP] = "PPGTT address not mapped to the guest's own memory",
};

const char *igpu_scan_strerror(enum igpu_scan_err e)
{
    if ((unsigned)e >= IGPU_SCAN_E_COUNT)
        return "invalid scanner error";
    return err_text[e];
}

int igpu_scan_error_format(const struct igpu_scan_error *e, char *buf, size_t len)
{
    char where[48];

    if (e->code == IGPU_SCAN_OK)
        return snprintf(buf, len, "%s", igpu_scan_strerror(e->code));
    if (e->buf_gm == IGPU_SCAN_GM_RING)
        snprintf(where, sizeof(where), "ring");
    else
        snprintf(where, sizeof(where), "level-%u batch 0x%" PRIx64, e->level, e->buf_gm);
    /* Type-3 commands of the video engines are MFX/VEBOX, not the render names. */
    bool video = (e->engine == IGPU_VCS || e->engine == IGPU_VECS) && (e->header >> 29) == 3u;
    return snprintf(buf, len,
                    "%s: %s (header 0x%08" PRIx32 ") at %s dword %" PRIu32 " (command at %" PRIu32
                    "), detail 0x%" PRIx64,
                    igpu_scan_strerror(e->code),
                    video ? "MFX/VEBOX command" : igpu_scan_cmd_name(e->header), e->header, where,
                    e->dw_offset, e->cmd_offset, e->detail);
}
