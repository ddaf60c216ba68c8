/*
 * Gen9 model: fetching and executing commands (MI commands and PIPE_CONTROL; the XY blits
 * are in model_blit.c). Encodings come from drivers/igpu/gen9_cmd.h.
 *
 * Semantics (Intel PRM for Skylake Vol 2a, the command pages; i915 gt/intel_gpu_commands.h):
 *  - The ring is fetched from RING_START + HEAD, wrapping at the ring size; a command that
 *    would run past the tail faults the engine (the hardware would wait for more).
 *  - MI_BATCH_BUFFER_START from the ring starts a first-level batch; from a batch it chains
 *    (replaces the current batch) unless it is a second-level start, which calls and later
 *    returns. MI_BATCH_BUFFER_END returns one level.
 *  - Memory operands are GGTT addresses, except inside a batch started through the PPGTT
 *    (bit 8, in a legacy 64-bit context whose PDP0 names its PML4): such a batch is
 *    non-privileged, its commands' operands are PPGTT addresses, and a GGTT form, a register
 *    load or store, or a GGTT batch start in it faults the engine (IGPU_FAULT_NOT_PRIVILEGED;
 *    hardware would not execute them from a non-privileged batch either).  A PPGTT form outside
 *    such a batch is reported as unsupported.
 *  - Cache flushes, invalidations and stalls complete at once (the model has no caches or
 *    pipeline), except the GGTT TLB invalidations, which empty the translation cache.
 */
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/model/model_internal.h"

#define PS_PER_NS 1000u

static uint64_t ns_ps(uint32_t ns)
{
    return (uint64_t)ns * PS_PER_NS;
}

static void fault_cmd(struct igpu_model *m, struct model_engine *en, enum igpu_fault_reason r,
                      uint64_t gaddr, const char *name, const char *what)
{
    char d[96];
    snprintf(d, sizeof(d), "%s: %s", name, what);
    model_fault(m, en, r, gaddr, d);
}

static bool write_qword(struct igpu_model *m, struct model_engine *en, uint64_t gaddr,
                        uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return model_gm_access(m, en, gaddr, b, 8, true, IGPU_ACCESS_WRITE);
}

/* A 48-bit address operand; faults on reserved high bits. */
static bool addr48(struct igpu_model *m, struct model_engine *en, uint32_t lo, uint32_t hi,
                   uint32_t lo_mask, const char *name, uint64_t *out)
{
    if (hi & GEN9_ADDR_HI_RESERVED) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, hi, name, "reserved address bits 63:48 set");
        return false;
    }
    *out = gen9_gm_addr(lo, hi, lo_mask);
    return true;
}

/* ---- individual commands -------------------------------------------------------------- */

static uint64_t exec_bb_start(struct igpu_model *m, struct model_engine *en, const uint32_t *c)
{
    static const char name[] = "MI_BATCH_BUFFER_START";
    uint64_t addr;

    bool ppgtt = (c[0] & GEN9_MI_BB_START_PPGTT) != 0;
    if (ppgtt && !en->pml4) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT batch in a context without a PPGTT");
        return 0;
    }
    if (!ppgtt && model_in_ppgtt(en)) {
        fault_cmd(m, en, IGPU_FAULT_NOT_PRIVILEGED, 0, name, "GGTT batch from a PPGTT batch");
        return 0;
    }
    if (c[0] & (GEN9_MI_BB_START_PREDICATION | GEN9_MI_BB_START_RESOURCE_STREAMER)) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name,
                  "predication/resource streamer");
        return 0;
    }
    if (!addr48(m, en, c[GEN9_MI_BB_START_DW_ADDR_LO], c[GEN9_MI_BB_START_DW_ADDR_HI],
                GEN9_MI_BB_START_ADDR_MASK, name, &addr))
        return 0;
    if (en->level == 0) {
        if (c[0] & GEN9_MI_BB_START_SECOND_LEVEL) {
            fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, addr, name,
                      "second-level start issued from the ring");
            return 0;
        }
        en->level = 1;
    } else if (c[0] & GEN9_MI_BB_START_SECOND_LEVEL) {
        if (en->level >= MODEL_MAX_LEVEL) {
            fault_cmd(m, en, IGPU_FAULT_BATCH_DEPTH, addr, name,
                      "second-level start from a second-level batch");
            return 0;
        }
        en->level++;
    }
    /* else: a chained start replaces the current batch */
    en->bb_addr[en->level] = addr;
    en->bb_ppgtt[en->level] = ppgtt;
    en->stats.batches++;
    return ns_ps(m->cfg.cost.batch_ns);
}

static uint64_t exec_sdi(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                         uint32_t len)
{
    static const char name[] = "MI_STORE_DATA_IMM";
    bool qw = (c[0] & GEN9_MI_SDI_STORE_QWORD) != 0;
    uint64_t addr;
    uint8_t b[8];

    if ((qw && len != GEN9_MI_STORE_DATA_IMM_QW_LEN) ||
        (!qw && len != GEN9_MI_STORE_DATA_IMM_DW_LEN)) {
        fault_cmd(m, en, len == GEN9_MI_STORE_DATA_IMM_QW_LEN ? IGPU_FAULT_UNSUPPORTED_FIELD
                                                              : IGPU_FAULT_INVALID_CMD,
                  0, name, "length does not match the store size");
        return 0;
    }
    if (!(c[0] & GEN9_MI_SDI_USE_GGTT) && !model_in_ppgtt(en)) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT address");
        return 0;
    }
    if ((c[0] & GEN9_MI_SDI_USE_GGTT) && model_in_ppgtt(en)) {
        fault_cmd(m, en, IGPU_FAULT_NOT_PRIVILEGED, 0, name, "GGTT address from a PPGTT batch");
        return 0;
    }
    if (!addr48(m, en, c[GEN9_MI_SDI_DW_ADDR_LO], c[GEN9_MI_SDI_DW_ADDR_HI],
                qw ? GEN9_MI_SDI_QW_ADDR_MASK : GEN9_MI_SDI_ADDR_MASK, name, &addr))
        return 0;
    for (unsigned i = 0; i < (qw ? 8u : 4u); i++)
        b[i] = (uint8_t)(c[GEN9_MI_SDI_DW_DATA_LO + i / 4u] >> (8 * (i % 4u)));
    if (!model_gm_access(m, en, addr, b, qw ? 8u : 4u, true, IGPU_ACCESS_WRITE))
        return 0;
    en->stats.mem_writes++;
    return ns_ps(m->cfg.cost.write_ns);
}

static bool reg_load(struct igpu_model *m, struct model_engine *en, uint32_t reg, uint32_t val,
                     uint32_t byte_disable, const char *name)
{
    char d[96];
    if (byte_disable) {
        uint32_t old, keep = 0;
        for (unsigned i = 0; i < 4; i++)
            if (byte_disable & (1u << i))
                keep |= 0xFFu << (8 * i);
        if (model_cmd_reg_read(m, en, reg, &old) == IGPU_OK)
            val = (old & keep) | (val & ~keep);
    }
    if (model_cmd_reg_write(m, en, reg, val) == IGPU_OK)
        return true;
    snprintf(d, sizeof(d), "%s: register 0x%x is not loadable in the model", name, reg);
    model_fault(m, en, IGPU_FAULT_REGISTER, reg, d);
    return false;
}

static uint64_t exec_lri(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                         uint32_t len)
{
    uint32_t bd = (c[0] & GEN9_MI_LRI_BYTE_DISABLE_MASK) >> 8;
    if ((len & 1u) == 0) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, "MI_LOAD_REGISTER_IMM",
                  "length is not 1 + 2n dwords");
        return 0;
    }
    for (uint32_t i = 1; i + 1 < len; i += 2)
        if (!reg_load(m, en, c[i] & GEN9_MI_REG_OFFSET_MASK, c[i + 1], bd,
                      "MI_LOAD_REGISTER_IMM"))
            return 0;
    return 0;
}

static uint64_t exec_lrm(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                         uint32_t len)
{
    static const char name[] = "MI_LOAD_REGISTER_MEM";
    uint64_t addr;
    uint32_t v;

    if (len != GEN9_MI_LRM_LEN) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, name, "length is not 4 dwords");
        return 0;
    }
    if (!(c[0] & GEN9_MI_LRM_USE_GGTT)) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT address");
        return 0;
    }
    if (!addr48(m, en, c[GEN9_MI_RM_DW_ADDR_LO], c[GEN9_MI_RM_DW_ADDR_HI],
                GEN9_MI_RM_ADDR_MASK, name, &addr) ||
        !model_gm_read32(m, en, addr, &v, IGPU_ACCESS_READ))
        return 0;
    reg_load(m, en, c[GEN9_MI_RM_DW_REG] & GEN9_MI_REG_OFFSET_MASK, v, 0, name);
    return 0;
}

static uint64_t exec_srm(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                         uint32_t len)
{
    static const char name[] = "MI_STORE_REGISTER_MEM";
    uint32_t reg = c[GEN9_MI_RM_DW_REG] & GEN9_MI_REG_OFFSET_MASK, v;
    uint64_t addr;
    char d[96];

    if (len != GEN9_MI_SRM_LEN) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, name, "length is not 4 dwords");
        return 0;
    }
    if (!(c[0] & GEN9_MI_SRM_USE_GGTT) || (c[0] & GEN9_MI_SRM_PREDICATE)) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT address or predicate");
        return 0;
    }
    if (model_cmd_reg_read(m, en, reg, &v) != IGPU_OK) {
        snprintf(d, sizeof(d), "%s: register 0x%x is not readable in the model", name, reg);
        model_fault(m, en, IGPU_FAULT_REGISTER, reg, d);
        return 0;
    }
    if (!addr48(m, en, c[GEN9_MI_RM_DW_ADDR_LO], c[GEN9_MI_RM_DW_ADDR_HI],
                GEN9_MI_RM_ADDR_MASK, name, &addr) ||
        !model_gm_write32(m, en, addr, v, IGPU_ACCESS_WRITE))
        return 0;
    en->stats.mem_writes++;
    return ns_ps(m->cfg.cost.write_ns);
}

static uint64_t exec_flush_dw(struct igpu_model *m, struct model_engine *en, const uint32_t *c,
                              uint32_t len)
{
    static const char name[] = "MI_FLUSH_DW";
    uint32_t op = c[0] & GEN9_MI_FLUSH_DW_OP_MASK;
    uint64_t addr, cost = 0;

    if (en->id == IGPU_RCS) {
        fault_cmd(m, en, IGPU_FAULT_WRONG_ENGINE, 0, name, "not executed by the render engine");
        return 0;
    }
    if (len != GEN9_MI_FLUSH_DW_DW_LEN && len != GEN9_MI_FLUSH_DW_QW_LEN) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, name, "length is not 4 or 5 dwords");
        return 0;
    }
    if (c[0] & GEN9_MI_FLUSH_DW_INVALIDATE_TLB)
        model_tlb_flush(m);
    if (op != GEN9_MI_FLUSH_DW_OP_NONE) {
        if (op == GEN9_MI_FLUSH_DW_OP_RESERVED) {
            fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, name, "reserved post-sync operation");
            return 0;
        }
        if (model_in_ppgtt(en) && ((c[0] & GEN9_MI_FLUSH_DW_STORE_INDEX) ||
                                   (c[GEN9_MI_FLUSH_DW_DW_ADDR_LO] & GEN9_MI_FLUSH_DW_USE_GTT))) {
            fault_cmd(m, en, IGPU_FAULT_NOT_PRIVILEGED, 0, name,
                      "GGTT or status-page post-sync from a PPGTT batch");
            return 0;
        }
        if (c[0] & GEN9_MI_FLUSH_DW_STORE_INDEX) {
            /* Store data index: the address is a byte offset into the running context's
             * status page, the first page of its image (i915 gen8_emit_flush_xcs() points it
             * at LRC_PPHWSP_SCRATCH_ADDR); qword aligned as every post-sync write. */
            uint32_t off = c[GEN9_MI_FLUSH_DW_DW_ADDR_LO] & ~(uint32_t)GEN9_MI_FLUSH_DW_USE_GTT;
            if (off >= GEN9_PPHWSP_BYTES) {
                fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, off, name,
                          "store data index beyond the status page");
                return 0;
            }
            addr = (uint64_t)en->lrca + (off & ~7u);
        } else if (!(c[GEN9_MI_FLUSH_DW_DW_ADDR_LO] & GEN9_MI_FLUSH_DW_USE_GTT) &&
                   !model_in_ppgtt(en)) {
            fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT post-sync address");
            return 0;
        } else if (c[GEN9_MI_FLUSH_DW_DW_ADDR_LO] & GEN9_MI_FLUSH_DW_ADDR_MBZ) {
            /* where the hardware would write is not defined: never guess */
            fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, c[GEN9_MI_FLUSH_DW_DW_ADDR_LO], name,
                      "post-sync address bit 5 set (must be zero)");
            return 0;
        } else if (!addr48(m, en, c[GEN9_MI_FLUSH_DW_DW_ADDR_LO], c[GEN9_MI_FLUSH_DW_DW_ADDR_HI],
                           GEN9_MI_FLUSH_DW_ADDR_MASK, name, &addr)) {
            return 0;
        }
        if (op == GEN9_MI_FLUSH_DW_OP_TIMESTAMP) {
            if (!write_qword(m, en, addr, model_timestamp_ticks(m, en)))
                return 0;
        } else if (len == GEN9_MI_FLUSH_DW_QW_LEN) {
            if (!write_qword(m, en, addr, ((uint64_t)c[GEN9_MI_FLUSH_DW_DW_DATA_HI] << 32) |
                                              c[GEN9_MI_FLUSH_DW_DW_DATA_LO]))
                return 0;
        } else if (!model_gm_write32(m, en, addr, c[GEN9_MI_FLUSH_DW_DW_DATA_LO],
                                     IGPU_ACCESS_WRITE)) {
            return 0;
        }
        en->stats.mem_writes++;
        cost = ns_ps(m->cfg.cost.write_ns);
    }
    if (c[0] & GEN9_MI_FLUSH_DW_NOTIFY)
        model_raise(m, en, GEN9_GT_PIPECTL_NOTIFY);
    return cost;
}

static uint64_t exec_pipe_control(struct igpu_model *m, struct model_engine *en,
                                  const uint32_t *c, uint32_t len)
{
    static const char name[] = "PIPE_CONTROL";
    uint32_t fl = c[GEN9_PIPE_CONTROL_DW_FLAGS];
    uint32_t op = fl & GEN9_PIPE_CONTROL_POST_SYNC_MASK;
    uint64_t addr, cost = 0;

    if (en->id != IGPU_RCS) {
        fault_cmd(m, en, IGPU_FAULT_WRONG_ENGINE, 0, name, "render engine only");
        return 0;
    }
    if (len != GEN9_PIPE_CONTROL_LEN) {
        fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, name, "length is not 6 dwords");
        return 0;
    }
    if (fl & (GEN9_PIPE_CONTROL_LRI_POST_SYNC | GEN9_PIPE_CONTROL_STORE_DATA_INDEX)) {
        fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name,
                  "register post-sync or store data index");
        return 0;
    }
    if (fl & GEN9_PIPE_CONTROL_TLB_INVALIDATE)
        model_tlb_flush(m);
    if (op != GEN9_PIPE_CONTROL_POST_SYNC_NONE) {
        if (op == GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT) {
            fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name,
                      "depth-count post-sync (no 3D pipeline)");
            return 0;
        }
        if (model_in_ppgtt(en) && (fl & GEN9_PIPE_CONTROL_GLOBAL_GTT)) {
            fault_cmd(m, en, IGPU_FAULT_NOT_PRIVILEGED, 0, name, "GGTT post-sync from a PPGTT batch");
            return 0;
        }
        if (!(fl & GEN9_PIPE_CONTROL_GLOBAL_GTT) && !model_in_ppgtt(en)) {
            fault_cmd(m, en, IGPU_FAULT_UNSUPPORTED_FIELD, 0, name, "PPGTT post-sync address");
            return 0;
        }
        /* Every Gen8+ post-sync write is a qword, so bits 2:0 of the address are ignored. */
        if (!addr48(m, en, c[GEN9_PIPE_CONTROL_DW_ADDR_LO], c[GEN9_PIPE_CONTROL_DW_ADDR_HI],
                    ~(uint32_t)(GEN9_PIPE_CONTROL_POST_SYNC_BYTES - 1u), name, &addr))
            return 0;
        if (!write_qword(m, en, addr,
                         op == GEN9_PIPE_CONTROL_WRITE_TIMESTAMP
                             ? model_timestamp_ticks(m, en)
                             : ((uint64_t)c[GEN9_PIPE_CONTROL_DW_DATA_HI] << 32) |
                                   c[GEN9_PIPE_CONTROL_DW_DATA_LO]))
            return 0;
        en->stats.mem_writes++;
        cost = ns_ps(m->cfg.cost.write_ns);
    }
    if (fl & GEN9_PIPE_CONTROL_NOTIFY)
        model_raise(m, en, GEN9_GT_PIPECTL_NOTIFY);
    return cost;
}

/* ---- fetch and dispatch ------------------------------------------------------------------- */

/* Which command the header names, before its body is fetched. */
enum cmd_kind {
    K_UNKNOWN, K_NOOP, K_USER_INT, K_ARB_CHECK, K_ARB_ON_OFF, K_BB_END, K_BB_START, K_SDI, K_LRI, K_LRM,
    K_SRM, K_FLUSH_DW, K_PIPE_CONTROL, K_BLIT,
};

static enum cmd_kind classify(uint32_t hdr)
{
    switch (gen9_cmd_type(hdr)) {
    case GEN9_CMD_TYPE_MI:
        switch (gen9_mi_opcode(hdr)) {
        case GEN9_MI_NOOP_OP:               return K_NOOP;
        case GEN9_MI_USER_INTERRUPT_OP:     return K_USER_INT;
        case GEN9_MI_ARB_CHECK_OP:          return K_ARB_CHECK;
        case GEN9_MI_ARB_ON_OFF_OP:         return K_ARB_ON_OFF;
        case GEN9_MI_BATCH_BUFFER_END_OP:   return K_BB_END;
        case GEN9_MI_BATCH_BUFFER_START_OP: return K_BB_START;
        case GEN9_MI_STORE_DATA_IMM_OP:     return K_SDI;
        case GEN9_MI_LOAD_REGISTER_IMM_OP:  return K_LRI;
        case GEN9_MI_LOAD_REGISTER_MEM_OP:  return K_LRM;
        case GEN9_MI_STORE_REGISTER_MEM_OP: return K_SRM;
        case GEN9_MI_FLUSH_DW_OP:           return K_FLUSH_DW;
        default:                            return K_UNKNOWN;
        }
    case GEN9_CMD_TYPE_2D:
        switch (gen9_2d_opcode(hdr)) {
        case GEN9_XY_COLOR_BLT_OP:
        case GEN9_XY_SRC_COPY_BLT_OP:       return K_BLIT;
        default:                            return K_UNKNOWN;
        }
    case GEN9_CMD_TYPE_3D:
        return gen9_is_pipe_control(hdr) ? K_PIPE_CONTROL : K_UNKNOWN;
    default:
        return K_UNKNOWN;
    }
}

/* Fetch n dwords of the command at the engine's position into en->cmd[from..n). */
static bool fetch(struct igpu_model *m, struct model_engine *en, uint32_t from, uint32_t n)
{
    uint8_t raw[256];

    while (from < n) {
        uint32_t k = n - from, off;
        uint64_t gaddr;
        enum igpu_model_access kind;
        if (k > sizeof(raw) / 4u)
            k = sizeof(raw) / 4u;
        if (en->level == 0) {
            off = (en->head + from * 4u) % en->ring_size;
            if (k > (en->ring_size - off) / 4u)
                k = (en->ring_size - off) / 4u;     /* wrap at the end of the ring */
            gaddr = (uint64_t)en->ring_start + off;
            kind = IGPU_ACCESS_RING;
        } else {
            gaddr = en->bb_addr[en->level] + from * 4u;
            kind = IGPU_ACCESS_BATCH;
        }
        if (!model_gm_access(m, en, gaddr, raw, k * 4u, false, kind))
            return false;
        for (uint32_t i = 0; i < k; i++)
            en->cmd[from + i] = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                                (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
        from += k;
    }
    return true;
}

static void advance(struct model_engine *en, uint32_t len)
{
    if (en->level == 0) {
        uint32_t h = en->head + len * 4u;
        if (h >= en->ring_size) {
            h -= en->ring_size;
            en->head_wraps = (en->head_wraps + 1u) & (GEN9_HEAD_WRAP_COUNT >> 21);
        }
        en->head = h;
    } else {
        en->bb_addr[en->level] += (uint64_t)len * 4u;
    }
}

uint64_t model_exec_one(struct igpu_model *m, struct model_engine *en)
{
    const uint32_t *c = en->cmd;
    uint64_t cost = ns_ps(m->cfg.cost.cmd_ns);
    enum cmd_kind k;
    uint32_t len;
    char d[96];

    en->cmd_gaddr = en->level == 0 ? (uint64_t)en->ring_start + en->head
                                   : en->bb_addr[en->level];
    en->cmd[0] = 0;
    if (!fetch(m, en, 0, 1))
        return 0;
    k = classify(c[0]);
    len = gen9_cmd_length_dw(c[0]);
    if (k == K_UNKNOWN || len == 0) {
        snprintf(d, sizeof(d), "command 0x%08x (type %u) not implemented", c[0],
                 gen9_cmd_type(c[0]));
        model_fault(m, en, len ? IGPU_FAULT_UNSUPPORTED_CMD : IGPU_FAULT_INVALID_CMD, 0, d);
        return 0;
    }
    if (en->level == 0) {
        uint32_t avail = (en->tail + en->ring_size - en->head) % en->ring_size;
        if ((uint64_t)len * 4u > avail) {
            snprintf(d, sizeof(d), "%u-dword command at ring offset 0x%x crosses tail 0x%x",
                     len, en->head, en->tail);
            model_fault(m, en, IGPU_FAULT_RING_OVERRUN, en->cmd_gaddr, d);
            return 0;
        }
    }
    if (len > 1 && !fetch(m, en, 1, len))
        return 0;
    if (model_in_ppgtt(en) && (k == K_LRI || k == K_LRM || k == K_SRM)) {
        /* Registers are the privileged batch's (hardware: only RING_FORCE_TO_NONPRIV ones). */
        model_fault(m, en, IGPU_FAULT_NOT_PRIVILEGED, en->cmd_gaddr,
                    "register load or store from a PPGTT batch");
        return 0;
    }
    advance(en, len);
    en->stats.commands++;
    en->after_arb_check = k == K_ARB_CHECK;

    switch (k) {
    case K_NOOP:
        if (c[0] & GEN9_MI_NOOP_ID_WRITE)
            en->nopid = c[0] & GEN9_MI_NOOP_ID_MASK;
        break;
    case K_ARB_ON_OFF:
        /* i915 disables arbitration around every user batch and enables it again in the
         * request's fini breadcrumb (gen8_emit_bb_start_noarb(), gen8_emit_fini_breadcrumb_tail()):
         * while it is off the engine leaves the context nowhere. */
        en->arb_off = !(c[0] & GEN9_MI_ARB_ENABLE);
        break;
    case K_USER_INT:
        en->stats.user_interrupts++;
        model_raise(m, en, GEN9_GT_USER_INTERRUPT);
        break;
    case K_BB_END:
        if (en->level == 0) {
            model_fault(m, en, IGPU_FAULT_INVALID_CMD, 0,
                        "MI_BATCH_BUFFER_END: issued from the ring");
            return cost;
        }
        en->level--;
        break;
    case K_BB_START:
        if (len != GEN9_MI_BATCH_BUFFER_START_LEN) {
            fault_cmd(m, en, IGPU_FAULT_INVALID_CMD, 0, "MI_BATCH_BUFFER_START",
                      "length is not 3 dwords");
            return cost;
        }
        cost += exec_bb_start(m, en, c);
        break;
    case K_SDI:        cost += exec_sdi(m, en, c, len); break;
    case K_LRI:        cost += exec_lri(m, en, c, len); break;
    case K_LRM:        cost += exec_lrm(m, en, c, len); break;
    case K_SRM:        cost += exec_srm(m, en, c, len); break;
    case K_FLUSH_DW:   cost += exec_flush_dw(m, en, c, len); break;
    case K_PIPE_CONTROL: cost += exec_pipe_control(m, en, c, len); break;
    case K_BLIT:
        if (en->id != IGPU_BCS) {
            fault_cmd(m, en, IGPU_FAULT_WRONG_ENGINE, 0, "XY blit", "blitter engine only");
            return cost;
        }
        cost += model_exec_blit(m, en, c, len);
        break;
    default:
        break;
    }
    return cost;
}
