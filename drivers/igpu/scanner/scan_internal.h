/*
 * Scanner internals shared by its files: the command descriptor table (scan_table.c), the
 * operand checks (scan_check.c) and the walker that follows batches (scanner.c).
 */
#ifndef TESSERA_DRIVERS_IGPU_SCANNER_SCAN_INTERNAL_H
#define TESSERA_DRIVERS_IGPU_SCANNER_SCAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/scanner/scanner.h"

/* Engines a descriptor allows, as bits. */
#define SCAN_ENG_RCS  (1u << IGPU_RCS)
#define SCAN_ENG_BCS  (1u << IGPU_BCS)
#define SCAN_ENG_VCS  (1u << IGPU_VCS)
#define SCAN_ENG_VECS (1u << IGPU_VECS)
#define SCAN_ENG_XCS  (SCAN_ENG_BCS | SCAN_ENG_VCS | SCAN_ENG_VECS) /* MI_FLUSH_DW engines */
#define SCAN_ENG_ALL  (SCAN_ENG_RCS | SCAN_ENG_XCS)

/* One element of the path of batches being executed (calls and chained starts), for loop
 * detection: a batch start into any of them is rejected. */
struct scan_path_elem {
    uint64_t start;
    uint64_t end;
    bool ppgtt;
};

struct scan_ctx;

/* Operand check of one command: cmd[0..len) is complete; records workload facts. */
typedef enum igpu_scan_err (*scan_check_fn)(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);

struct scan_cmd_desc {
    const char *name;
    uint8_t engines;  /* SCAN_ENG_* that execute it */
    bool forbidden;   /* known, but a guest may never use it */
    bool i915_ok;     /* ... except an i915 guest (the i915 profile) */
    uint16_t len_min; /* total dwords, inclusive bounds */
    uint16_t len_max;
    uint32_t len_mask;   /* DWord Length field; 0 = single dword, no field */
    uint32_t flags_ok;   /* other header bits a guest may set */
    scan_check_fn check; /* NULL: nothing beyond the header to check */
};

struct scan_ctx {
    const struct igpu_scan_config *cfg;
    const struct igpu_scan_cost *cost;
    struct igpu_scan_result *res;
    unsigned depth_limit; /* min(cfg->max_depth, IGPU_SCAN_HW_MAX_DEPTH) */
    /* The buffer and command being looked at, for error reports. */
    unsigned level; /* 0 = ring slice */
    uint64_t buf_gm;
    uint32_t cur_off;
    uint32_t cur_hdr;
    size_t shadow_used; /* dwords of cfg->shadow in use */
    struct scan_path_elem path[IGPU_SCAN_PATH_MAX];
    unsigned n_path;
    bool in_ppgtt;                 /* the buffer being decoded is a PPGTT batch */
    uint32_t topology;             /* i915: last 3DSTATE_VF_TOPOLOGY, or unknown */
    struct scan_cmd_desc gfx_desc; /* i915: the render GFXPIPE command being decoded */
};

/* The descriptor for a header dword, or NULL if the command is unknown. */
const struct scan_cmd_desc *scan_lookup(uint32_t hdr);
/* Header bits fixed by the command's identity: type and opcode (MI 31:23, 2D 31:22), or
 * type, sub-type, opcode and sub-opcode (3D 31:16). */
static inline uint32_t scan_ident_mask(uint32_t hdr)
{
    switch (gen9_cmd_type(hdr)) {
    case GEN9_CMD_TYPE_MI:
        return ~0u << GEN9_MI_OPCODE_SHIFT;
    case GEN9_CMD_TYPE_2D:
        return ~0u << GEN9_2D_OPCODE_SHIFT;
    case GEN9_CMD_TYPE_3D:
        return ~0u << GEN9_3D_SUBOP_SHIFT;
    default:
        return ~0u;
    }
}

/* Record the first rejection and return its code: the offending dword is operand `op` (0 =
 * the header) of the current command (c->cur_off, c->cur_hdr) in the current buffer. */
enum igpu_scan_err scan_reject(struct scan_ctx *c, enum igpu_scan_err code, uint32_t op,
                               uint64_t detail);

/* Operand checks (scan_check.c). */
enum igpu_scan_err scan_check_user_interrupt(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_bb_start(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_sdi(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_lri(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_srm(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_lrm(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_flush_dw(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_pipe_control(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_xy_color_blt(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
enum igpu_scan_err scan_check_xy_src_copy_blt(struct scan_ctx *c, const uint32_t *cmd,
                                              uint32_t len);

enum igpu_scan_err scan_check_gfxpipe(struct scan_ctx *c, const uint32_t *cmd, uint32_t len);
/* i915 profile: the descriptor of a render GFXPIPE command other than PIPE_CONTROL (filled into
 * c->gfx_desc), or NULL if unknown. */
const struct scan_cmd_desc *scan_gfxpipe_desc(struct scan_ctx *c, uint32_t hdr);

/* Batch-start decoding shared by the check and the walker. */
uint64_t scan_bb_start_target(const uint32_t *cmd);
/* True if a batch start at this level is a call (returns), false if it chains. */
bool scan_bb_start_is_call(uint32_t hdr, unsigned level);

/* Index of the range containing addr, or -1. */
long scan_range_find(const struct igpu_scan_range *r, size_t n, uint64_t addr);
/* Records that the workload touches cfg->ranges[r] (res->ranges_touched). */
static inline void scan_note_range(struct scan_ctx *c, long r)
{
    if (r >= 0 && r < 128)
        c->res->ranges_touched[r / 64] |= 1ull << (r % 64);
}

#endif /* TESSERA_DRIVERS_IGPU_SCANNER_SCAN_INTERNAL_H */
