/*
 * The MI-only command streamer's engine: fetching commands from the ring and from batches,
 * batch levels, and the shared helpers (memory split at pages, operand decoding, faults).
 *
 * Semantics follow the PRM (Vol 2a MI_BATCH_BUFFER_START: from the ring a start calls a
 * first-level batch; inside a batch the second-level flag calls and returns, otherwise the
 * start chains; MI_BATCH_BUFFER_END returns one level) and the Gen9 model
 * (drivers/igpu/model/model_cmd.c), which does the same for GGTT batches.
 */
#include <stdio.h>
#include <string.h>

#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"
#include "drivers/igpu/gen9_gtt.h"

static const char *const fault_names[IGPU_CS_F_COUNT] = {
    [IGPU_CS_OK] = "ok",
    [IGPU_CS_F_CONFIG] = "unusable configuration",
    [IGPU_CS_F_UNKNOWN_CMD] = "unknown command",
    [IGPU_CS_F_UNSUPPORTED_CMD] = "command not executed by the MI-only streamer",
    [IGPU_CS_F_DRAW] = "draw refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_GPGPU] = "GPGPU/media kernel refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_MEDIA] = "MFX/VEBOX media command refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_WRONG_ENGINE] = "command of another engine",
    [IGPU_CS_F_BAD_LENGTH] = "wrong command length",
    [IGPU_CS_F_BAD_FIELD] = "reserved or unsupported field",
    [IGPU_CS_F_REGISTER] = "register not allowed",
    [IGPU_CS_F_MEMORY] = "memory access refused",
    [IGPU_CS_F_PPGTT] = "PPGTT address in a context without a PPGTT",
    [IGPU_CS_F_BATCH_DEPTH] = "batch nesting too deep",
    [IGPU_CS_F_BB_END_IN_RING] = "batch buffer end in the ring",
    [IGPU_CS_F_RING_OVERRUN] = "command runs past the ring tail",
    [IGPU_CS_F_BUDGET] = "command budget used up (endless batch?)",
};

const char *igpu_cs_fault_name(enum igpu_cs_fault f)
{
    return (unsigned)f < IGPU_CS_F_COUNT ? fault_names[f] : "invalid fault";
}

bool cs_fault(struct cs_run *r, enum igpu_cs_fault f, uint64_t detail, const char *what)
{
    struct igpu_cs_result *res = r->res;

    if (res->fault == IGPU_CS_OK) {
        res->fault = f;
        res->header = r->hdr;
        res->cmd_gaddr = r->cmd_gaddr;
        res->cmd_space = r->cmd_space;
        res->detail = detail;
        snprintf(res->what, sizeof res->what, "%s: %s", igpu_scan_cmd_name(r->hdr), what);
    }
    return false;
}

bool cs_mem(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
            bool write)
{
    uint8_t *p = buf;

    while (len) {
        uint32_t n = GEN9_GTT_PAGE_SIZE - (uint32_t)(gaddr & GEN9_GTT_PAGE_MASK);
        if (n > len)
            n = len;
        if (gaddr >= (1ull << GEN9_GM_ADDR_BITS) ||
            r->ops->mem(r->ops->ctx, space, gaddr, p, n, write) != 0)
            return cs_fault(r, IGPU_CS_F_MEMORY, gaddr,
                            write ? "write refused (not mapped, read-only or not the guest's)"
                                  : "read refused (not mapped or not the guest's)");
        gaddr += n;
        p += n;
        len -= n;
    }
    return true;
}

bool cs_addr(struct cs_run *r, uint32_t lo, uint32_t hi, uint32_t lo_mask, uint64_t *out)
{
    if (hi & GEN9_ADDR_HI_RESERVED)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, hi, "reserved address bits 63:48 set");
    *out = gen9_gm_addr(lo, hi, lo_mask);
    return true;
}

bool cs_space_ok(struct cs_run *r, enum igpu_cs_space space)
{
    if (space == IGPU_CS_PPGTT && !r->cfg->ppgtt)
        return cs_fault(r, IGPU_CS_F_PPGTT, r->hdr, "PPGTT operand, but the context has no PPGTT");
    return true;
}

bool cs_reg_allowed(struct cs_run *r, uint32_t reg, uint32_t access)
{
    if (reg & ~GEN9_MI_REG_OFFSET_MASK)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, reg, "register offset has reserved bits");
    for (size_t i = 0; i < r->cfg->n_regs; i++) {
        const struct igpu_scan_reg *a = &r->cfg->regs[i];
        if (reg >= a->offset && reg - a->offset < a->size && (a->access & access) == access)
            return true;
    }
    return cs_fault(r, IGPU_CS_F_REGISTER, reg,
                    access == IGPU_SCAN_REG_WRITE ? "register not writable by commands"
                                                  : "register not readable by commands");
}

/* Byte offset in the ring of dword i of the current ring command. */
static uint32_t ring_off(const struct cs_run *r, uint32_t i)
{
    return (uint32_t)((r->ring_pos + 4ull * i) % r->ring->size);
}

bool cs_fetch(struct cs_run *r, uint32_t i, uint32_t *val)
{
    if (r->level == 0)
        return cs_mem(r, IGPU_CS_GGTT, r->ring->start + ring_off(r, i), val, 4, false);
    return cs_mem(r, r->cmd_space, r->cmd_gaddr + 4ull * i, val, 4, false);
}

/* ---- batches ------------------------------------------------------------------------------ */

/* Move past the current command at the current level. */
static void advance(struct cs_run *r)
{
    if (r->level == 0)
        r->ring_pos = ring_off(r, r->len);
    else
        r->bb[r->level].pos += 4ull * r->len;
}

bool cs_bb_start(struct cs_run *r)
{
    uint32_t hdr = r->hdr;
    enum igpu_cs_space space = (hdr & GEN9_MI_BB_START_PPGTT) ? IGPU_CS_PPGTT : IGPU_CS_GGTT;
    uint64_t target;
    unsigned level;

    if (r->len != GEN9_MI_BATCH_BUFFER_START_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, r->len, "length is not 3 dwords");
    if (hdr & (GEN9_MI_BB_START_PREDICATION | GEN9_MI_BB_START_RESOURCE_STREAMER |
               GEN9_MI_BB_START_ADD_OFFSET))
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, hdr,
                        "predication, resource streamer or add-offset not supported");
    if (!cs_space_ok(r, space) ||
        !cs_addr(r, r->dw[GEN9_MI_BB_START_DW_ADDR_LO], r->dw[GEN9_MI_BB_START_DW_ADDR_HI],
                 GEN9_MI_BB_START_ADDR_MASK, &target))
        return false;
    if (r->level == 0) {
        if (hdr & GEN9_MI_BB_START_SECOND_LEVEL)
            return cs_fault(r, IGPU_CS_F_BAD_FIELD, hdr, "second-level start from the ring");
        level = 1;
    } else if (hdr & GEN9_MI_BB_START_SECOND_LEVEL) {
        if (r->level >= CS_MAX_LEVEL)
            return cs_fault(r, IGPU_CS_F_BATCH_DEPTH, target,
                            "second-level start from a second-level batch");
        level = r->level + 1u;
    } else {
        level = r->level;       /* a chain: the current batch ends here */
    }
    advance(r);                 /* a call returns after the start */
    r->level = level;
    r->bb[level].space = space;
    r->bb[level].pos = target;
    r->res->batches++;
    return true;
}

bool cs_bb_end(struct cs_run *r)
{
    if (r->level == 0)
        return cs_fault(r, IGPU_CS_F_BB_END_IN_RING, r->hdr, "not inside a batch");
    r->level--;                 /* the caller's position is already past its start */
    return true;
}

/* ---- the loop ----------------------------------------------------------------------------- */

/* Total dwords of the current command, or 0 after faulting when the engine cannot know it. */
static uint32_t command_length(struct cs_run *r)
{
    uint32_t type = gen9_cmd_type(r->hdr);

    if (type == GEN9_CMD_TYPE_MI)
        return gen9_cmd_length_dw(r->hdr);
    if (type == GEN9_CMD_TYPE_2D) {
        cs_fault(r, IGPU_CS_F_WRONG_ENGINE, r->hdr, "blitter command");
        return 0;
    }
    if (type == GEN9_CMD_TYPE_3D) {
        if (r->cfg->engine == IGPU_RCS)
            return gen9_cmd_length_dw(r->hdr);
        cs_fault(r, IGPU_CS_F_MEDIA, r->hdr, r->cfg->engine == IGPU_VECS
                 ? "VEBOX command refused: " IGPU_CS_LABEL
                 : r->cfg->engine == IGPU_VCS ? "MFX command refused: " IGPU_CS_LABEL
                                              : "render command on another engine");
        return 0;
    }
    cs_fault(r, IGPU_CS_F_UNKNOWN_CMD, r->hdr, "reserved command type");
    return 0;
}

static bool execute(struct cs_run *r)
{
    if (gen9_cmd_type(r->hdr) != GEN9_CMD_TYPE_MI)
        return cs_exec_gfxpipe(r);
    switch (gen9_mi_opcode(r->hdr)) {
    case GEN9_MI_BATCH_BUFFER_START_OP:
        return cs_bb_start(r);
    case GEN9_MI_BATCH_BUFFER_END_OP:
        return cs_bb_end(r);
    default:
        return cs_exec_mi(r);
    }
}

static bool moves_engine(uint32_t hdr)
{
    return gen9_cmd_type(hdr) == GEN9_CMD_TYPE_MI &&
           (gen9_mi_opcode(hdr) == GEN9_MI_BATCH_BUFFER_START_OP ||
            gen9_mi_opcode(hdr) == GEN9_MI_BATCH_BUFFER_END_OP);
}

static bool step(struct cs_run *r)
{
    uint32_t n;

    if (r->level == 0) {
        r->cmd_space = IGPU_CS_GGTT;
        r->cmd_gaddr = r->ring->start + r->ring_pos;
    } else {
        r->cmd_space = r->bb[r->level].space;
        r->cmd_gaddr = r->bb[r->level].pos;
    }
    r->hdr = 0;
    if (!cs_fetch(r, 0, &r->hdr))
        return false;
    r->len = command_length(r);
    if (r->len == 0)
        return false;
    if (r->level == 0) {
        uint32_t left = (r->ring->tail - r->ring_pos + r->ring->size) % r->ring->size;
        if (4ull * r->len > left)
            return cs_fault(r, IGPU_CS_F_RING_OVERRUN, r->len, "runs past the ring tail");
    }
    n = r->len < CS_CMD_DW ? r->len : CS_CMD_DW;
    r->dw[0] = r->hdr;
    for (uint32_t i = 1; i < n; i++)
        if (!cs_fetch(r, i, &r->dw[i]))
            return false;
    r->res->commands++;
    if (!execute(r))
        return false;
    if (!moves_engine(r->hdr))
        advance(r);
    return true;
}

static bool ring_ok(const struct igpu_cs_ring *g)
{
    return g && g->size && !(g->size & GEN9_GTT_PAGE_MASK) && !(g->start & GEN9_GTT_PAGE_MASK) &&
           g->head < g->size && g->tail < g->size && !(g->head & 3u) && !(g->tail & 3u);
}

enum igpu_cs_fault igpu_cs_run(const struct igpu_cs_config *cfg, const struct igpu_cs_ops *ops,
                               const struct igpu_cs_ring *ring, struct igpu_cs_result *res)
{
    struct cs_run r;
    uint32_t budget;

    if (!res)
        return IGPU_CS_F_CONFIG;
    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.cfg = cfg;
    r.ops = ops;
    r.ring = ring;
    r.res = res;
    r.topology = GEN9_TOPOLOGY_UNKNOWN;
    if (!cfg || !ops || !ops->mem || !ring_ok(ring) || (cfg->n_regs && !cfg->regs) ||
        (unsigned)cfg->engine >= IGPU_NUM_GT_ENGINES) {
        cs_fault(&r, IGPU_CS_F_CONFIG, 0, "no memory callback, bad ring or engine");
        return res->fault;
    }
    r.ring_pos = ring->head;
    budget = cfg->max_commands ? cfg->max_commands : IGPU_CS_DEFAULT_BUDGET;
    while (r.level != 0 || r.ring_pos != ring->tail) {
        if (res->commands >= budget) {
            r.hdr = 0;
            r.cmd_space = r.level ? r.bb[r.level].space : IGPU_CS_GGTT;
            r.cmd_gaddr = r.level ? r.bb[r.level].pos : ring->start + r.ring_pos;
            cs_fault(&r, IGPU_CS_F_BUDGET, budget, "command budget used up (endless batch?)");
            break;
        }
        if (!step(&r))
            break;
    }
    res->head = r.ring_pos;
    return res->fault;
}
