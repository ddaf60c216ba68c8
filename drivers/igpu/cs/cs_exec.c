/*
 * The software command streamer's engine: fetching commands from the ring and from batches,
 * batch levels, stepping, and the helpers every command shares (memory split at pages, operand
 * decoding, registers, faults).
 *
 * Batch levels follow the PRM (Vol 2a MI_BATCH_BUFFER_START: from the ring a start calls a
 * first-level batch; inside a batch the second-level flag calls and returns, otherwise the
 * start chains; MI_BATCH_BUFFER_END returns one level; "The command streamer contains three
 * storage elements ... There is no stack in hardware").
 */
#include <stdio.h>
#include <string.h>

#include "drivers/igpu/cs/cs_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gfxpipe.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

static const char *const fault_names[IGPU_CS_F_COUNT] = {
    [IGPU_CS_OK] = "ok",
    [IGPU_CS_F_CONFIG] = "unusable configuration",
    [IGPU_CS_F_UNKNOWN_CMD] = "unknown command",
    [IGPU_CS_F_UNSUPPORTED_CMD] = "command not executed by this engine",
    [IGPU_CS_F_UNSUPPORTED_FIELD] = "command option not implemented",
    [IGPU_CS_F_DRAW] = "draw refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_GPGPU] = "GPGPU/media kernel refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_MEDIA] = "MFX/VEBOX media command refused (" IGPU_CS_LABEL ")",
    [IGPU_CS_F_WRONG_ENGINE] = "command of another engine",
    [IGPU_CS_F_BAD_LENGTH] = "wrong command length",
    [IGPU_CS_F_BAD_FIELD] = "reserved field or value",
    [IGPU_CS_F_REGISTER] = "register not allowed",
    [IGPU_CS_F_MEMORY] = "memory access refused",
    [IGPU_CS_F_PPGTT] = "PPGTT address in a context without a PPGTT",
    [IGPU_CS_F_BATCH_DEPTH] = "batch nesting too deep",
    [IGPU_CS_F_BB_END_IN_RING] = "batch buffer end in the ring",
    [IGPU_CS_F_RING_OVERRUN] = "command runs past the ring tail",
    [IGPU_CS_F_BUDGET] = "command budget used up (endless batch?)",
    [IGPU_CS_F_BLIT] = "blitter command refused",
};

const char *igpu_cs_fault_name(enum igpu_cs_fault f)
{
    return (unsigned)f < IGPU_CS_F_COUNT ? fault_names[f] : "invalid fault";
}

/* ---- helpers ------------------------------------------------------------------------------ */

bool cs_fault(struct cs_run *r, enum igpu_cs_fault f, uint64_t detail, const char *what)
{
    struct igpu_cs_result *res = r->res;

    if (res->fault == IGPU_CS_OK) {
        res->fault = f;
        res->header = r->cs->hdr;
        res->cmd_gaddr = r->cs->cmd_gaddr;
        res->cmd_space = r->cs->cmd_space;
        res->detail = detail;
        snprintf(res->what, sizeof res->what, "%s: %s", igpu_scan_cmd_name(r->cs->hdr), what);
    }
    return false;
}

bool cs_unsupported(struct cs_run *r, const char *what)
{
    char d[64];

    if (!what) {
        snprintf(d, sizeof d, "not executed by the %s", r->cs->who);
        what = d;
    }
    return cs_fault(r, IGPU_CS_F_UNSUPPORTED_CMD, r->cs->hdr, what);
}

bool cs_mem(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
            enum igpu_cs_access how)
{
    uint8_t *p = buf;
    bool write = how == IGPU_CS_WRITE;

    while (len) {
        uint32_t n = GEN9_GTT_PAGE_SIZE - (uint32_t)(gaddr & GEN9_GTT_PAGE_MASK);
        if (n > len)
            n = len;
        if (gaddr >= (1ull << GEN9_GM_ADDR_BITS) ||
            r->ops->mem(r->ops->ctx, space, gaddr, p, n, how) != 0)
            return cs_fault(r, IGPU_CS_F_MEMORY, gaddr,
                            write ? "write refused (not mapped, read-only or not the guest's)"
                                  : "read refused (not mapped or not the guest's)");
        gaddr += n;
        p += n;
        len -= n;
    }
    return true;
}

bool cs_write(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, uint64_t v,
              uint32_t bytes)
{
    uint8_t b[8];

    for (uint32_t i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8u * i));
    if (!cs_space_ok(r, space) || !cs_mem(r, space, gaddr, b, bytes, IGPU_CS_WRITE))
        return false;
    r->res->mem_writes++;
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
    if (space == IGPU_CS_PPGTT && !r->cs->ppgtt)
        return cs_fault(r, IGPU_CS_F_PPGTT, r->cs->hdr,
                        "PPGTT operand, but the context has no PPGTT");
    return true;
}

bool cs_reg_ok(struct cs_run *r, uint32_t reg)
{
    if (reg & ~GEN9_MI_REG_OFFSET_MASK & ~3u)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, reg, "register offset has reserved bits");
    return true;
}

bool cs_reg_allowed(struct cs_run *r, uint32_t reg, uint32_t access)
{
    const struct igpu_cs *cs = r->cs;

    if (!cs_reg_ok(r, reg))
        return false;
    if (!cs->regs)
        return true; /* the callbacks decide */
    for (size_t i = 0; i < cs->n_regs; i++) {
        const struct igpu_scan_reg *a = &cs->regs[i];
        if (reg >= a->offset && reg - a->offset < a->size && (a->access & access) == access)
            return true;
    }
    return cs_fault(r, IGPU_CS_F_REGISTER, reg,
                    access == IGPU_SCAN_REG_WRITE ? "register not writable by commands"
                                                  : "register not readable by commands");
}

/* i915 points the store-data-index forms at its scratch slot, LRC_PPHWSP_SCRATCH_ADDR; every
 * post-sync write is a qword, so the offset's low three bits are ignored. */
bool cs_pphwsp_target(struct cs_run *r, uint32_t off, uint64_t *out)
{
    if (off >= GEN9_PPHWSP_BYTES)
        return cs_fault(r, IGPU_CS_F_BAD_FIELD, off, "status-page index beyond the page");
    *out = r->cs->pphwsp_gaddr + (off & ~7u);
    return true;
}

uint64_t cs_now(const struct cs_run *r)
{
    return r->ops->timestamp ? r->ops->timestamp(r->ops->ctx) : 0;
}

void cs_event(struct cs_run *r, uint32_t gt_bits)
{
    if (r->ops->event)
        r->ops->event(r->ops->ctx, gt_bits);
}

void cs_tlb_invalidate(struct cs_run *r)
{
    if (r->ops->tlb_invalidate)
        r->ops->tlb_invalidate(r->ops->ctx);
}

/* Byte offset in the ring of dword i of the current ring command. */
static uint32_t ring_off(const struct igpu_cs *cs, uint32_t i)
{
    return (uint32_t)((cs->ring.head + 4ull * i) % cs->ring.size);
}

bool cs_fetch(struct cs_run *r, uint32_t from, uint32_t n, uint32_t *out)
{
    const struct igpu_cs *cs = r->cs;

    while (n) {
        uint32_t k = n;
        uint64_t gaddr;
        enum igpu_cs_access how = IGPU_CS_FETCH_BATCH;
        uint8_t *b = (uint8_t *)out;

        if (cs->level == 0) {
            uint32_t off = ring_off(cs, from);
            if (k > (cs->ring.size - off) / 4u)
                k = (cs->ring.size - off) / 4u; /* wrap at the end of the ring */
            gaddr = cs->ring.start + off;
            how = IGPU_CS_FETCH_RING;
        } else {
            gaddr = cs->cmd_gaddr + 4ull * from;
        }
        if (!cs_mem(r, cs->cmd_space, gaddr, out, 4u * k, how))
            return false;
        for (uint32_t i = 0; i < k; i++, b += 4) /* commands are little-endian dwords */
            out[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24;
        from += k;
        out += k;
        n -= k;
    }
    return true;
}

/* ---- batches ------------------------------------------------------------------------------ */

/* Move past the current command at the current level. */
static void advance(struct igpu_cs *cs)
{
    if (cs->level == 0) {
        uint64_t h = cs->ring.head + 4ull * cs->len;
        if (h >= cs->ring.size) {
            h -= cs->ring.size;
            cs->ring_wraps = (cs->ring_wraps + 1u) & (GEN9_HEAD_WRAP_COUNT >> 21);
        }
        cs->ring.head = (uint32_t)h;
    } else {
        cs->bb[cs->level].pos += 4ull * cs->len;
    }
}

bool cs_bb_start(struct cs_run *r)
{
    struct igpu_cs *cs = r->cs;
    uint32_t hdr = cs->hdr;
    enum igpu_cs_space space = (hdr & GEN9_MI_BB_START_PPGTT) ? IGPU_CS_PPGTT : IGPU_CS_GGTT;
    uint64_t target = 0;
    unsigned level;

    if (cs->len != GEN9_MI_BATCH_BUFFER_START_LEN)
        return cs_fault(r, IGPU_CS_F_BAD_LENGTH, cs->len, "length is not 3 dwords");
    if (hdr & (GEN9_MI_BB_START_PREDICATION | GEN9_MI_BB_START_RESOURCE_STREAMER |
               GEN9_MI_BB_START_ADD_OFFSET))
        return cs_fault(r, IGPU_CS_F_UNSUPPORTED_FIELD, hdr,
                        "predication, resource streamer or add-offset not supported");
    space = cs_priv_batch_space(r, space);
    if (!cs_space_ok(r, space) ||
        !cs_addr(r, cs->dw[GEN9_MI_BB_START_DW_ADDR_LO], cs->dw[GEN9_MI_BB_START_DW_ADDR_HI],
                 GEN9_MI_BB_START_ADDR_MASK, &target))
        return false;
    if (cs->level == 0) {
        if (hdr & GEN9_MI_BB_START_SECOND_LEVEL)
            return cs_fault(r, IGPU_CS_F_BAD_FIELD, hdr, "second-level start from the ring");
        level = 1;
    } else if (hdr & GEN9_MI_BB_START_SECOND_LEVEL) {
        if (cs->level >= IGPU_CS_MAX_LEVEL)
            return cs_fault(r, IGPU_CS_F_BATCH_DEPTH, target,
                            "second-level start from a second-level batch");
        level = cs->level + 1u;
    } else {
        level = cs->level; /* a chain: the current batch ends here */
    }
    advance(cs); /* a call returns after the start */
    cs->level = level;
    cs->bb[level].space = space;
    cs->bb[level].pos = target;
    r->res->batches++;
    return true;
}

bool cs_bb_end(struct cs_run *r)
{
    if (r->cs->level == 0)
        return cs_fault(r, IGPU_CS_F_BB_END_IN_RING, r->cs->hdr, "not inside a batch");
    r->cs->level--; /* the caller's position is already past its start */
    return true;
}

/* ---- stepping ----------------------------------------------------------------------------- */

bool cs_out_of_time(const struct cs_run *r)
{
    return r->ops->out_of_time && r->ops->out_of_time(r->ops->ctx);
}

void cs_pause(struct cs_run *r, uint32_t units)
{
    struct igpu_cs *cs = r->cs;
    cs->part.units = units;
    cs->part.hdr = cs->hdr;
    cs->part.space = cs->cmd_space;
    cs->part.gaddr = cs->cmd_gaddr;
    r->paused = true;
}

/* Total dwords of the current command, or 0 after faulting when the engine cannot know it:
 * which command types an engine has (PRM Vol 2a "Command Formats": type 2 is the blitter's,
 * type 3 the render engine's GFXPIPE and the video engines' MFX/VEBOX commands). */
static uint32_t command_length(struct cs_run *r)
{
    const struct igpu_cs *cs = r->cs;
    uint32_t type = gen9_cmd_type(cs->hdr);

    if (type == GEN9_CMD_TYPE_MI)
        return gen9_cmd_length_dw(cs->hdr);
    if (type == GEN9_CMD_TYPE_2D) {
        if (cs->engine == IGPU_BCS)
            return gen9_cmd_length_dw(cs->hdr);
        cs_fault(r, IGPU_CS_F_WRONG_ENGINE, cs->hdr, "blitter command");
        return 0;
    }
    if (type == GEN9_CMD_TYPE_3D) {
        if (cs->engine == IGPU_RCS)
            return gen9_cmd_length_dw(cs->hdr);
        if (cs->engine == IGPU_BCS)
            cs_fault(r, IGPU_CS_F_WRONG_ENGINE, cs->hdr, "render command on the blitter");
        else
            cs_fault(r, IGPU_CS_F_MEDIA, cs->hdr,
                     cs->engine == IGPU_VECS ? "VEBOX command refused: " IGPU_CS_LABEL
                                             : "MFX command refused: " IGPU_CS_LABEL);
        return 0;
    }
    cs_fault(r, IGPU_CS_F_UNKNOWN_CMD, cs->hdr, "reserved command type");
    return 0;
}

static bool execute(struct cs_run *r)
{
    struct igpu_cs *cs = r->cs;
    enum igpu_cs_fault f;

    switch (gen9_cmd_type(cs->hdr)) {
    case GEN9_CMD_TYPE_2D:
        if (!r->ops->blit)
            return cs_unsupported(r, NULL);
        f = r->ops->blit(r->ops->ctx, cs->dw, cs->len);
        return f == IGPU_CS_OK || cs_fault(r, f, cs->hdr, "refused by the blitter");
    case GEN9_CMD_TYPE_3D:
        return cs_exec_render(r);
    default:
        break;
    }
    switch (gen9_mi_opcode(cs->hdr)) {
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

/* Point the engine at the next command (for a fault before it is fetched, too). */
static void locate(struct igpu_cs *cs)
{
    if (cs->level == 0) {
        cs->cmd_space = IGPU_CS_GGTT;
        cs->cmd_gaddr = cs->ring.start + cs->ring.head;
    } else {
        cs->cmd_space = cs->bb[cs->level].space;
        cs->cmd_gaddr = cs->bb[cs->level].pos;
    }
}

static bool step(struct cs_run *r)
{
    struct igpu_cs *cs = r->cs;
    uint32_t n;

    locate(cs);
    cs->hdr = 0;
    cs->len = 0;
    cs->arb_check = false;
    if (!cs_fetch(r, 0, 1, &cs->hdr))
        return false;
    cs->len = command_length(r);
    if (cs->len == 0)
        return false;
    if (cs->level == 0) {
        uint32_t left = (cs->ring.tail - cs->ring.head + cs->ring.size) % cs->ring.size;
        if (4ull * cs->len > left)
            return cs_fault(r, IGPU_CS_F_RING_OVERRUN, cs->len, "runs past the ring tail");
    }
    n = cs->len < IGPU_CS_CMD_DW ? cs->len : IGPU_CS_CMD_DW;
    cs->dw[0] = cs->hdr;
    if (n > 1 && !cs_fetch(r, 1, n - 1u, &cs->dw[1]))
        return false;
    if (!(cs->part.units && cs->part.hdr == cs->hdr && cs->part.space == cs->cmd_space &&
          cs->part.gaddr == cs->cmd_gaddr)) {
        cs->part.units = 0; /* a new command, or a stopped one rewritten: from its start */
        r->res->commands++;
    }
    bool ok = execute(r);
    if (ok && r->paused)
        return true; /* the engine stays at this command */
    cs->part.units = 0;
    if (!ok)
        return false;
    if (!moves_engine(cs->hdr))
        advance(cs);
    return true;
}

static bool usable(const struct igpu_cs *cs, const struct igpu_cs_ops *ops)
{
    const struct igpu_cs_ring *g = &cs->ring;
    return ops && ops->mem && (unsigned)cs->engine < IGPU_NUM_GT_ENGINES &&
           (!cs->n_regs || cs->regs) && g->size && !(g->size & GEN9_GTT_PAGE_MASK) &&
           !(g->start & GEN9_GTT_PAGE_MASK) && g->head < g->size && g->tail < g->size &&
           !(g->head & 3u) && !(g->tail & 3u) && cs->level <= IGPU_CS_MAX_LEVEL;
}

void igpu_cs_init(struct igpu_cs *cs, enum igpu_engine engine, const struct igpu_scan_reg *regs,
                  size_t n_regs, bool gfxpipe, const char *who)
{
    memset(cs, 0, sizeof *cs);
    cs->engine = engine;
    cs->regs = regs;
    cs->n_regs = n_regs;
    cs->gfxpipe = gfxpipe;
    cs->who = who ? who : "engine";
    cs->topology = GEN9_TOPOLOGY_UNKNOWN;
}

void igpu_cs_load(struct igpu_cs *cs, const struct igpu_cs_ring *ring, uint64_t pphwsp_gaddr,
                  bool ppgtt)
{
    cs->ring = *ring;
    cs->ring_wraps = 0;
    cs->pphwsp_gaddr = pphwsp_gaddr;
    cs->ppgtt = ppgtt;
    cs->level = 0;
    memset(cs->bb, 0, sizeof cs->bb);
    cs->part.units = 0;
    cs->topology = GEN9_TOPOLOGY_UNKNOWN;
    cs->arb_off = false;
    cs->arb_check = false;
}

bool igpu_cs_idle(const struct igpu_cs *cs)
{
    return cs->level == 0 && cs->ring.head == cs->ring.tail;
}

bool igpu_cs_privileged(const struct igpu_cs *cs)
{
    return cs->level == 0 || cs->bb[cs->level].space == IGPU_CS_GGTT;
}

enum igpu_cs_fault igpu_cs_step(struct igpu_cs *cs, const struct igpu_cs_ops *ops, uint32_t max,
                                struct igpu_cs_result *res)
{
    struct cs_run r = { cs, ops, res, false };

    if (!res || !cs) {
        if (res)
            res->fault = IGPU_CS_F_CONFIG;
        return IGPU_CS_F_CONFIG;
    }
    if (!usable(cs, ops)) {
        cs->hdr = 0;
        if (cs->level <= IGPU_CS_MAX_LEVEL)
            locate(cs);
        cs_fault(&r, IGPU_CS_F_CONFIG, 0, "no memory callback, bad ring or engine");
        return res->fault;
    }
    for (uint32_t i = 0; i < max && !igpu_cs_idle(cs) && !r.paused; i++)
        if (!step(&r))
            break;
    res->head = cs->ring.head;
    res->nopid = cs->nopid;
    return res->fault;
}

/* ---- the i915 guest's MI-only engines ----------------------------------------------------- */

enum igpu_cs_fault igpu_cs_run(const struct igpu_cs_config *cfg, const struct igpu_cs_ops *ops,
                               const struct igpu_cs_ring *ring, struct igpu_cs_result *res)
{
    struct igpu_cs cs;
    uint32_t budget;

    if (!res)
        return IGPU_CS_F_CONFIG;
    memset(res, 0, sizeof *res);
    struct cs_run r = { &cs, ops, res, false };
    igpu_cs_init(&cs, cfg ? cfg->engine : IGPU_RCS, cfg ? cfg->regs : NULL, cfg ? cfg->n_regs : 0,
                 true, "MI-only streamer");
    if (!cfg || !ring) {
        cs_fault(&r, IGPU_CS_F_CONFIG, 0, "no configuration or ring");
        return res->fault;
    }
    igpu_cs_load(&cs, ring, cfg->pphwsp_gaddr, cfg->ppgtt);
    budget = cfg->max_commands ? cfg->max_commands : IGPU_CS_DEFAULT_BUDGET;
    /* One run has no later step to go on in: its commands run whole. */
    struct igpu_cs_ops whole = *ops;
    whole.out_of_time = NULL;
    if (igpu_cs_step(&cs, &whole, budget, res) == IGPU_CS_OK && !igpu_cs_idle(&cs)) {
        cs.hdr = 0;
        locate(&cs);
        cs_fault(&r, IGPU_CS_F_BUDGET, budget, "command budget used up (endless batch?)");
    }
    return res->fault;
}
