/*
 * The register-state page of a Gen9 logical ring context: its complete layout (the table of
 * gen9_context.h) and the image a driver builds from it, as i915 does.
 *
 * i915 never submits a hand-cut image: lrc_init_state() (gt/intel_lrc.c) starts from the
 * engine's default image, recorded from the engine itself at load (engine->default_state),
 * or, when there is none, from a zeroed page with the full layout and context restore
 * inhibited, so the engine keeps its own (reset) values instead of loading zeros.  Then
 * __lrc_init_regs() writes the LRI headers and register offsets (set_offsets), CONTEXT_CONTROL
 * (init_common_regs), the PPGTT pointers, clears STOP_RING in MI_MODE (__reset_stop_ring), and
 * lrc_update_regs() the ring registers.  igpu_lrc_init_state() does the same.
 */
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

/* Register offsets relative to the engine base: pass 0 as the base. */
#define REGS_BLOCK_0 \
    GEN9_RING_CONTEXT_CONTROL(0), GEN9_RING_HEAD(0), GEN9_RING_TAIL(0), GEN9_RING_START(0), \
        GEN9_RING_CTL(0), GEN9_RING_BBADDR_UDW(0), GEN9_RING_BBADDR(0), GEN9_RING_BBSTATE(0), \
        GEN9_RING_SBBADDR_UDW(0), GEN9_RING_SBBADDR(0), GEN9_RING_SBBSTATE(0), \
        GEN9_RING_BB_PER_CTX_PTR(0), GEN9_RING_INDIRECT_CTX(0), GEN9_RING_INDIRECT_CTX_OFFSET(0)
#define REGS_BLOCK_1 \
    GEN9_RING_CTX_TIMESTAMP(0), GEN9_RING_PDP_UDW(0, 3), GEN9_RING_PDP_LDW(0, 3), \
        GEN9_RING_PDP_UDW(0, 2), GEN9_RING_PDP_LDW(0, 2), GEN9_RING_PDP_UDW(0, 1), \
        GEN9_RING_PDP_LDW(0, 1), GEN9_RING_PDP_UDW(0, 0), GEN9_RING_PDP_LDW(0, 0)
#define GPR(n) GEN9_RING_CS_GPR(0, n), GEN9_RING_CS_GPR(0, n) + 4u
#define REGS_BLOCK_3 \
    GEN9_RING_EXCC(0), GEN9_RING_MI_MODE(0), GEN9_RING_INSTPM(0), 0x178u, 0x17Cu, \
        GEN9_RING_TIMESTAMP(0), 0x170u, 0x150u, 0x154u, GEN9_RING_BB_OFFSET(0), \
        GEN9_RING_PREDICATE_RESULT_1(0), GPR(0), GPR(1), GPR(2), GPR(3), GPR(4), GPR(5), GPR(6), \
        GPR(7), GPR(8), GPR(9), GPR(10), GPR(11), GPR(12), GPR(13), GPR(14), GPR(15), \
        GEN9_RING_IPEHR(0)

#define BLOCKS(posted_2) \
    { \
        { GEN9_CTX_LRI_HEADER_0, 14, 0, true, false }, \
            { GEN9_CTX_LRI_HEADER_1, 9, 14, true, false }, \
            { GEN9_CTX_LRI_HEADER_2, 1, 23, posted_2, true }, \
        { \
            GEN9_CTX_LRI_HEADER_3, 44, 24, true, true \
        } \
    }

/* i915 gen9_xcs_offsets: block 2 is LRI(1, POSTED) of +0x200 (BCS_SWCTRL on the blitter). */
static const struct gen9_lrc_layout xcs_layout = {
    BLOCKS(true),
    { REGS_BLOCK_0, REGS_BLOCK_1, GEN9_BCS_SWCTRL - GEN9_BCS_BASE, REGS_BLOCK_3 },
};
/* i915 gen9_rcs_offsets: block 2 is LRI(1, 0) of RPCS. */
static const struct gen9_lrc_layout rcs_layout = {
    BLOCKS(false),
    { REGS_BLOCK_0, REGS_BLOCK_1, GEN9_RING_RPCS(0), REGS_BLOCK_3 },
};

_Static_assert(GEN9_CTX_LRI_HEADER_3 + 2u * 44u + 1u == GEN9_LRC_STATE_DW,
               "the last block ends where the layout says");

const struct gen9_lrc_layout *igpu_lrc_layout(enum igpu_engine e)
{
    switch (e) {
    case IGPU_RCS:
        return &rcs_layout;
    case IGPU_BCS:
        return &xcs_layout;
    default:
        return NULL;
    }
}

/* Largest ring RING_CTL can describe: 512 pages (GEN9_RING_NR_PAGES is 9 bits of pages). */
#define RING_MAX_SIZE ((GEN9_RING_NR_PAGES >> 12) * GEN9_GTT_PAGE_SIZE + GEN9_GTT_PAGE_SIZE)
#define STATE_PAGE_DW (GEN9_GTT_PAGE_SIZE / 4u)

int igpu_lrc_init_state(uint32_t *s, size_t n_dw, enum igpu_engine e, const uint32_t *default_state,
                        uint32_t ring_gaddr, uint32_t ring_size, uint32_t head, uint32_t tail)
{
    const struct gen9_lrc_layout *l = igpu_lrc_layout(e);
    uint32_t b = igpu_engine_base(e);
    bool inhibit = default_state == NULL;

    if (!s || n_dw < STATE_PAGE_DW || !l || (ring_gaddr & GEN9_GTT_PAGE_MASK) || ring_size == 0 ||
        (ring_size & GEN9_GTT_PAGE_MASK) || ring_size > RING_MAX_SIZE || head >= ring_size ||
        tail >= ring_size || (head & 3u) || (tail & 7u))
        return IGPU_EINVAL;
    if (inhibit)
        memset(s, 0, STATE_PAGE_DW * sizeof(*s));
    else if (s != default_state)
        memcpy(s, default_state, STATE_PAGE_DW * sizeof(*s));

    /* set_offsets(): the LRI headers and the offset dword of every register. */
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++) {
        const struct gen9_lrc_block *blk = &l->block[k];
        s[blk->header] = GEN9_MI_LOAD_REGISTER_IMM(blk->count) |
                         (blk->posted ? GEN9_MI_LRI_FORCE_POSTED : 0u);
        for (unsigned i = blk->first; i < (unsigned)blk->first + blk->count; i++)
            s[gen9_lrc_value_dw(l, i) - 1u] = b + l->reg[i];
    }
    if (inhibit)
        s[GEN9_LRC_STATE_DW] = GEN9_MI_BATCH_BUFFER_END;

    /* init_common_regs(): synchronous context switches inhibited; restore inhibited only when
     * there is no default image; save never inhibited; no render-state (RS) context. */
    s[GEN9_CTX_CONTEXT_CONTROL] = GEN9_MASKED_BIT_ENABLE(GEN9_CTX_CTRL_INHIBIT_SYN_SWITCH) |
                                  GEN9_MASKED_BIT_DISABLE(GEN9_CTX_CTRL_RESTORE_INHIBIT |
                                                          GEN9_CTX_CTRL_SAVE_INHIBIT |
                                                          GEN9_CTX_CTRL_RS_CTX_ENABLE) |
                                  (inhibit ? GEN9_CTX_CTRL_RESTORE_INHIBIT : 0u);
    s[GEN9_CTX_TIMESTAMP] = 0; /* a new context has run for no time */
    s[GEN9_CTX_BB_OFFSET] = 0;
    /* init_ppgtt_regs(): Tessera's contexts address the GGTT only; no page directories. */
    for (unsigned i = 0; i < 8u; i++)
        s[GEN9_CTX_PDP3_UDW + 2u * i] = 0;
    /* __reset_stop_ring(): the context must not start with its ring stopped. */
    s[GEN9_CTX_MI_MODE] = (s[GEN9_CTX_MI_MODE] & ~GEN9_MI_MODE_STOP_RING) |
                          GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING);

    /* lrc_update_regs(): where the ring is and what of it to run. */
    s[GEN9_CTX_RING_HEAD] = head;
    s[GEN9_CTX_RING_TAIL] = tail;
    s[GEN9_CTX_RING_START] = ring_gaddr;
    s[GEN9_CTX_RING_CTL] = ((ring_size - GEN9_GTT_PAGE_SIZE) & GEN9_RING_NR_PAGES) |
                           GEN9_RING_VALID;
    return IGPU_OK;
}
