/*
 * The scanner's walker: decodes a ring slice or batch command by command through the engine
 * table, follows batch-buffer starts into shadow copies, and rewrites the starts to point at
 * those copies.
 *
 * A batch is scanned in two passes.  Pass 1 copies it into the shadow buffer page by page
 * (only as far as it is decoded, only inside the allowed ranges) and checks every command up
 * to its end (MI_BATCH_BUFFER_END, or a chaining start).  Once the copy is complete and
 * contiguous, pass 2 walks it again and descends into each batch it calls, whose copies go
 * after it.  A chained batch is followed last, as a loop rather than a recursion, so the C
 * stack depth is bounded by the nesting limit (2) whatever the guest sends.
 */
#include <string.h>

#include "drivers/igpu/scanner/scan_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"

#define PAGE_BYTES 4096u

/* The buffer being decoded: the ring slice (fixed) or a batch being copied. */
struct scan_buf {
    uint32_t *dw; /* first dword of the buffer */
    size_t avail; /* dwords present (copied so far, for a batch) */
    bool is_ring;
    uint64_t gm;       /* batch: guest address of dw[0] */
    size_t shadow_off; /* batch: dw - cfg->shadow */
    uint64_t gm_limit; /* batch: end of the allowed range it starts in, dword-trimmed */
    unsigned calls;    /* batch starts that call (pass 2 has work only if non-zero) */
    bool ppgtt;        /* batch: a PPGTT batch, read through cfg->ppgtt */
};

enum scan_end { END_RING, END_BB_END, END_CHAIN };

enum igpu_scan_err scan_reject(struct scan_ctx *c, enum igpu_scan_err code, uint32_t op,
                               uint64_t detail)
{
    struct igpu_scan_error *e = &c->res->err;

    if (e->code == IGPU_SCAN_OK) {
        e->code = code;
        e->level = c->level;
        e->buf_gm = c->level == 0 ? IGPU_SCAN_GM_RING : c->buf_gm;
        e->cmd_offset = c->cur_off;
        e->dw_offset = c->cur_off + op;
        e->header = c->cur_hdr;
        e->detail = detail;
        e->engine = c->cfg ? c->cfg->engine : IGPU_RCS;
    }
    return code;
}

/* Make dwords [0, need) of the buffer present, copying more of a batch if needed. */
static enum igpu_scan_err buf_fill(struct scan_ctx *c, struct scan_buf *b, size_t need)
{
    const struct igpu_scan_config *cfg = c->cfg;

    while (b->avail < need) {
        uint64_t next = b->gm + (uint64_t)b->avail * 4u;
        uint64_t chunk_end = (next & ~(uint64_t)(PAGE_BYTES - 1u)) + PAGE_BYTES;
        size_t room = cfg->shadow_dw - (b->shadow_off + b->avail), n;

        if (b->is_ring)
            return scan_reject(c, IGPU_SCAN_E_TRUNCATED, 0, need);
        if (next >= b->gm_limit)
            return scan_reject(c, IGPU_SCAN_E_BATCH_OVERRUN, 0, next);
        if (room == 0)
            return scan_reject(c, IGPU_SCAN_E_SHADOW_FULL, 0, cfg->shadow_dw);
        if (chunk_end > b->gm_limit)
            chunk_end = b->gm_limit;
        n = (size_t)((chunk_end - next) / 4u);
        if (n > room)
            n = room;
        if (b->ppgtt ? cfg->ppgtt->read(cfg->ppgtt->ctx, next, b->dw + b->avail, n * 4u) != 0
                     : cfg->read(cfg->read_ctx, next, b->dw + b->avail, n * 4u) != 0)
            return scan_reject(c, b->ppgtt ? IGPU_SCAN_E_PPGTT_MAP : IGPU_SCAN_E_READ_FAULT, 0,
                               next);
        b->avail += n;
    }
    return IGPU_SCAN_OK;
}

static inline enum igpu_scan_err buf_ensure(struct scan_ctx *c, struct scan_buf *b, size_t need)
{
    return b->avail >= need ? IGPU_SCAN_OK : buf_fill(c, b, need);
}

/* Total dwords of an accepted command (the descriptor says how wide its length field is). */
static uint32_t cmd_len(const struct scan_cmd_desc *d, uint32_t hdr)
{
    return d->len_mask ? (hdr & d->len_mask) + GEN9_CMD_LEN_BIAS : 1u;
}

static bool is_bb_start(uint32_t hdr)
{
    return gen9_cmd_type(hdr) == GEN9_CMD_TYPE_MI &&
           gen9_mi_opcode(hdr) == GEN9_MI_BATCH_BUFFER_START_OP;
}

/* Pass 1: decode and check every command that will execute.  *len_out is the length of the
 * executed part, *last the offset of its last command; *end says how it ends. */
static enum igpu_scan_err scan_pass1(struct scan_ctx *c, struct scan_buf *b, size_t *len_out,
                                     size_t *last, enum scan_end *end)
{
    uint32_t engine_bit = 1u << c->cfg->engine;
    size_t i = 0;
    enum igpu_scan_err e;

    for (;;) {
        const struct scan_cmd_desc *d;
        uint32_t hdr, len, extra;

        if (b->is_ring && i == b->avail) {
            *len_out = i;
            *end = END_RING;
            return IGPU_SCAN_OK;
        }
        c->cur_off = (uint32_t)i;
        c->cur_hdr = 0;
        e = buf_ensure(c, b, i + 1);
        if (e)
            return e;
        hdr = b->dw[i];
        c->cur_hdr = hdr;
        d = scan_lookup(hdr);
        if (c->cfg->i915 && gen9_cmd_type(hdr) == GEN9_CMD_TYPE_3D) {
            /* On the video engines type 3 is MFX and VEBOX: media, refused by name. */
            if (c->cfg->engine == IGPU_VCS || c->cfg->engine == IGPU_VECS)
                return scan_reject(c, IGPU_SCAN_E_NO_3D_MEDIA, 0, hdr);
            if (!d && c->cfg->engine == IGPU_RCS)
                d = scan_gfxpipe_desc(c, hdr);
        }
        if (!d)
            return scan_reject(c, IGPU_SCAN_E_UNKNOWN_CMD, 0, hdr);
        if (d->forbidden && !(d->i915_ok && c->cfg->i915))
            return scan_reject(c, IGPU_SCAN_E_FORBIDDEN_CMD, 0, hdr);
        if (!(d->engines & engine_bit))
            return scan_reject(c, IGPU_SCAN_E_WRONG_ENGINE, 0, hdr);
        len = cmd_len(d, hdr);
        if (len < d->len_min || len > d->len_max)
            return scan_reject(c, IGPU_SCAN_E_BAD_LENGTH, 0, len);
        extra = hdr & ~(scan_ident_mask(hdr) | d->len_mask | d->flags_ok);
        if (extra)
            return scan_reject(c, IGPU_SCAN_E_RESERVED_BITS, 0, extra);
        e = buf_ensure(c, b, i + len);
        if (e)
            return e;
        if (d->check) {
            e = d->check(c, &b->dw[i], len);
            if (e)
                return e;
        }
        c->res->commands++;
        *last = i;
        if (hdr == GEN9_MI_BATCH_BUFFER_END) {
            if (b->is_ring)
                return scan_reject(c, IGPU_SCAN_E_BB_END_IN_RING, 0, hdr);
            *len_out = i + 1;
            *end = END_BB_END;
            return IGPU_SCAN_OK;
        }
        if (is_bb_start(hdr)) {
            if (scan_bb_start_is_call(hdr, c->level)) {
                b->calls++;
            } else {
                /* A chaining start: nothing after it in this batch executes. */
                *len_out = i + len;
                *end = END_CHAIN;
                return IGPU_SCAN_OK;
            }
        }
        i += len;
    }
}

/* Point the start at cmd[0] to shadow dword off. */
static void patch_bb_start(const struct scan_ctx *c, uint32_t *cmd, size_t off)
{
    uint64_t gm = c->cfg->shadow_gm + (uint64_t)off * 4u;

    cmd[0] &= ~GEN9_MI_BB_START_PPGTT; /* the copy is in the GGTT */
    cmd[GEN9_MI_BB_START_DW_ADDR_LO] = (uint32_t)gm;
    cmd[GEN9_MI_BB_START_DW_ADDR_HI] = (uint32_t)(gm >> 32) & GEN9_ADDR_HI_MASK;
}

static bool on_path(const struct scan_ctx *c, uint64_t gm, bool ppgtt)
{
    unsigned i;

    for (i = 0; i < c->n_path; i++)
        if (c->path[i].ppgtt == ppgtt && gm >= c->path[i].start && gm < c->path[i].end)
            return true;
    return false;
}

static enum igpu_scan_err follow(struct scan_ctx *c, uint64_t gm, bool ppgtt, unsigned level,
                                 size_t *entry_off);

/* Point the start at cmd[0] to its batch's copy at shadow dword off, unless that batch is a
 * PPGTT batch the engine runs where it is. */
static void redirect(struct scan_ctx *c, uint32_t *cmd, size_t off)
{
    if ((cmd[0] & GEN9_MI_BB_START_PPGTT) && c->cfg->ppgtt && c->cfg->ppgtt->in_place) {
        c->res->ppgtt_in_place++;
        return;
    }
    patch_bb_start(c, cmd, off);
}

/* Pass 2: descend into every batch the buffer calls (a chain, always last, is left to the
 * caller), rewriting each start to point at the copy. */
static enum igpu_scan_err scan_pass2(struct scan_ctx *c, struct scan_buf *b, size_t len)
{
    size_t i, n;
    unsigned left = b->calls;
    enum igpu_scan_err e;

    for (i = 0; i < len && left; i += n) {
        uint32_t hdr = b->dw[i];
        size_t child;

        n = cmd_len(scan_lookup(hdr), hdr); /* pass 1 accepted it: known */
        if (!is_bb_start(hdr) || !scan_bb_start_is_call(hdr, c->level))
            continue;
        left--;
        c->cur_off = (uint32_t)i;
        c->cur_hdr = hdr;
        e = follow(c, scan_bb_start_target(&b->dw[i]), (hdr & GEN9_MI_BB_START_PPGTT) != 0,
                   c->level + 1, &child);
        if (e)
            return e;
        redirect(c, &b->dw[i], child);
    }
    return IGPU_SCAN_OK;
}

/*
 * Copy, check and follow the batch at gm (and any batches it chains to) at `level`; the
 * batch start that leads here is the current command (c->cur_off/cur_hdr in the caller's
 * buffer).  *entry_off is where the first copy starts in the shadow buffer.
 */
static enum igpu_scan_err follow(struct scan_ctx *c, uint64_t gm, bool ppgtt, unsigned level,
                                 size_t *entry_off)
{
    const struct igpu_scan_config *cfg = c->cfg;
    unsigned saved_path = c->n_path, saved_level = c->level;
    uint64_t saved_gm = c->buf_gm;
    bool saved_ppgtt = c->in_ppgtt;
    uint32_t *chain_cmd = NULL;
    enum igpu_scan_err e;

    for (;;) {
        struct scan_buf b;
        enum scan_end end;
        size_t len, last = 0;
        long r;

        /* Checked at the start command that leads here (still the current command). */
        if (ppgtt ? !cfg->ppgtt : !cfg->read)
            return scan_reject(c, IGPU_SCAN_E_CONFIG, 0, gm);
        if (c->res->batches >= cfg->max_batches || c->n_path >= IGPU_SCAN_PATH_MAX)
            return scan_reject(c, IGPU_SCAN_E_TOO_MANY_BATCHES, GEN9_MI_BB_START_DW_ADDR_LO, gm);
        if (on_path(c, gm, ppgtt)) {
            /* A PPGTT batch the engine runs where it is may loop (IGT's spinners start
             * themselves until the CPU writes MI_BATCH_BUFFER_END over them): what the loop
             * leads to is on the path, checked already, and runs non-privileged; the
             * watchdog bounds how long.  A batch run as its copy may not. */
            if (!(ppgtt && cfg->ppgtt->in_place))
                return scan_reject(c, IGPU_SCAN_E_BATCH_LOOP, GEN9_MI_BB_START_DW_ADDR_LO, gm);
            c->res->ppgtt_loops++;
            if (!chain_cmd)
                *entry_off = c->shadow_used; /* not used: an in-place start is not patched */
            break;
        }
        if (c->shadow_used >= cfg->shadow_dw)
            return scan_reject(c, IGPU_SCAN_E_SHADOW_FULL, 0, cfg->shadow_dw);

        memset(&b, 0, sizeof(b));
        b.dw = cfg->shadow + c->shadow_used;
        b.gm = gm;
        b.shadow_off = c->shadow_used;
        b.ppgtt = ppgtt;
        if (ppgtt) {
            /* Read through the PPGTT page by page: every page must translate. */
            b.gm_limit = 1ull << GEN9_GM_ADDR_BITS;
        } else {
            r = scan_range_find(cfg->ranges, cfg->n_ranges, gm);
            if (r < 0 || (gm & 3u)) /* the start check makes this unreachable */
                return scan_reject(c, IGPU_SCAN_E_ADDR_RANGE, GEN9_MI_BB_START_DW_ADDR_LO, gm);
            scan_note_range(c, r); /* the batch is read from that range */
            b.gm_limit = gm + ((cfg->ranges[r].start + cfg->ranges[r].size - gm) & ~(uint64_t)3);
        }
        c->res->batches++;
        if (level > c->res->max_level)
            c->res->max_level = level;
        c->level = level;
        c->buf_gm = gm;
        c->in_ppgtt = ppgtt;

        e = scan_pass1(c, &b, &len, &last, &end);
        if (e)
            return e;
        c->shadow_used = b.shadow_off + len; /* drop what was read past the end */
        c->path[c->n_path].start = gm;
        c->path[c->n_path].end = gm + (uint64_t)len * 4u;
        c->path[c->n_path].ppgtt = ppgtt;
        c->n_path++;
        if (chain_cmd)
            redirect(c, chain_cmd, b.shadow_off);
        else
            *entry_off = b.shadow_off;

        e = scan_pass2(c, &b, len);
        if (e)
            return e;
        if (end != END_CHAIN)
            break;
        /* Follow the chain at the same level; its start is the last command. */
        chain_cmd = &b.dw[last];
        c->cur_off = (uint32_t)last;
        c->cur_hdr = chain_cmd[0];
        c->level = level;
        c->buf_gm = gm;
        ppgtt = (chain_cmd[0] & GEN9_MI_BB_START_PPGTT) != 0;
        gm = scan_bb_start_target(chain_cmd);
    }
    c->n_path = saved_path;
    c->level = saved_level;
    c->buf_gm = saved_gm;
    c->in_ppgtt = saved_ppgtt;
    return IGPU_SCAN_OK;
}

/* Configuration checks shared by both entry points. */
static enum igpu_scan_err scan_begin(struct scan_ctx *c, const struct igpu_scan_config *cfg,
                                     struct igpu_scan_result *res)
{
    uint64_t shadow_bytes;

    memset(res, 0, sizeof(*res));
    memset(c, 0, sizeof(*c));
    c->cfg = cfg;
    c->res = res;
    c->buf_gm = IGPU_SCAN_GM_RING;
    c->topology = GEN9_TOPOLOGY_UNKNOWN;
    if (!cfg)
        return scan_reject(c, IGPU_SCAN_E_CONFIG, 0, 0);
    c->cost = cfg->cost ? cfg->cost : &igpu_scan_cost_default;
    c->depth_limit = cfg->max_depth < IGPU_SCAN_HW_MAX_DEPTH ? cfg->max_depth
                                                             : IGPU_SCAN_HW_MAX_DEPTH;
    /* The video engines exist only for i915 guests. */
    if ((unsigned)cfg->engine >= (cfg->i915 ? IGPU_NUM_GT_ENGINES : IGPU_NUM_ENGINES) ||
        (cfg->ppgtt && (!cfg->ppgtt->check || !cfg->ppgtt->read)) ||
        !igpu_scan_ranges_normalized(cfg->ranges, cfg->n_ranges) || (cfg->n_regs && !cfg->regs) ||
        (cfg->shadow_dw && !cfg->shadow))
        return scan_reject(c, IGPU_SCAN_E_CONFIG, 0, 0);
    /* The GPU must see the shadow at a dword-aligned 48-bit address, and the guest must not
     * be able to write it: it may not overlap the allowed ranges. */
    shadow_bytes = (uint64_t)cfg->shadow_dw * 4u;
    if (cfg->shadow_dw) {
        size_t i;
        if ((cfg->shadow_gm & 3u) || cfg->shadow_gm >= (1ull << GEN9_GM_ADDR_BITS) ||
            shadow_bytes > (1ull << GEN9_GM_ADDR_BITS) - cfg->shadow_gm)
            return scan_reject(c, IGPU_SCAN_E_CONFIG, 0, cfg->shadow_gm);
        for (i = 0; i < cfg->n_ranges; i++)
            if (cfg->ranges[i].start < cfg->shadow_gm + shadow_bytes &&
                cfg->shadow_gm < cfg->ranges[i].start + cfg->ranges[i].size)
                return scan_reject(c, IGPU_SCAN_E_CONFIG, 0, cfg->shadow_gm);
    }
    return IGPU_SCAN_OK;
}

static void scan_finish(const struct scan_ctx *c)
{
    struct igpu_scan_result *res = c->res;
    const struct igpu_scan_cost *k = c->cost;

    res->shadow_used_dw = c->shadow_used;
    res->est_cost_ns = (uint64_t)res->commands * k->cmd_ns + (uint64_t)res->blits * k->blit_ns +
                       res->blit_pixels * k->pixel_ps / 1000u +
                       (uint64_t)res->mem_writes * k->write_ns +
                       (uint64_t)res->batches * k->batch_ns;
}

enum igpu_scan_err igpu_scan_ring(const struct igpu_scan_config *cfg, uint32_t *ring, size_t n_dw,
                                  struct igpu_scan_result *res)
{
    struct scan_ctx c;
    struct scan_buf b;
    enum scan_end end;
    size_t len, last = 0;
    enum igpu_scan_err e;

    e = scan_begin(&c, cfg, res);
    if (e)
        return e;
    if ((n_dw && !ring) || n_dw > UINT32_MAX)
        return scan_reject(&c, IGPU_SCAN_E_CONFIG, 0, n_dw);
    memset(&b, 0, sizeof(b));
    b.dw = ring;
    b.avail = n_dw;
    b.is_ring = true;
    e = scan_pass1(&c, &b, &len, &last, &end);
    if (!e)
        e = scan_pass2(&c, &b, len);
    if (e)
        return e;
    scan_finish(&c);
    return IGPU_SCAN_OK;
}

enum igpu_scan_err igpu_scan_batch(const struct igpu_scan_config *cfg, uint64_t batch_gm,
                                   struct igpu_scan_result *res)
{
    struct scan_ctx c;
    size_t entry = 0;
    enum igpu_scan_err e;

    e = scan_begin(&c, cfg, res);
    if (e)
        return e;
    /* Errors before the batch is read are reported against the batch itself. */
    c.level = 1;
    c.buf_gm = batch_gm;
    if (c.depth_limit < 1)
        return scan_reject(&c, IGPU_SCAN_E_BATCH_DEPTH, 0, 1);
    if (batch_gm & 3u)
        return scan_reject(&c, IGPU_SCAN_E_MISALIGNED, 0, batch_gm);
    if (!igpu_scan_ranges_contain(cfg->ranges, cfg->n_ranges, batch_gm, 4))
        return scan_reject(&c, IGPU_SCAN_E_ADDR_RANGE, 0, batch_gm);
    if (cfg->max_batches < 1)
        return scan_reject(&c, IGPU_SCAN_E_TOO_MANY_BATCHES, 0, batch_gm);
    if (!cfg->read)
        return scan_reject(&c, IGPU_SCAN_E_CONFIG, 0, batch_gm);
    e = follow(&c, batch_gm, false, 1, &entry);
    if (e)
        return e;
    res->entry_gm = cfg->shadow_gm + (uint64_t)entry * 4u;
    scan_finish(&c);
    return IGPU_SCAN_OK;
}
