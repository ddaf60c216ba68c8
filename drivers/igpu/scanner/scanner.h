/*
 * The Gen9 command scanner: the security boundary between a guest's command buffers and the
 * real GPU (docs/scanner.md).
 *
 * A workload is a ring slice (already copied out of the guest's ring by the caller) or a batch
 * buffer address.  The scanner decodes every command that can execute, with one table per
 * engine (render: MI + PIPE_CONTROL; blitter: MI + XY blits), and accepts the workload only if
 *  - every command is known, allowed on that engine and well formed (length, reserved bits);
 *  - every graphics address it reads or writes lies inside the caller's allowed ranges, blits
 *    checked over the whole rectangle they touch;
 *  - LRI/LRM/SRM name only registers of the caller's allow-list, with the right access;
 *  - batch-buffer starts stay within the nesting limit, do not loop back into a batch on the
 *    current path, and each batch lies inside the allowed ranges.
 * Every batch is COPIED into the caller's shadow buffer while it is scanned, and the batch
 * start operands (in the ring slice and in the copies) are rewritten to point at the copies,
 * so the guest cannot change a batch after the scan: the GPU runs only what was checked.
 *
 * Pure: no global state, guest memory is read through the caller's callback.
 */
#ifndef TESSERA_DRIVERS_IGPU_SCANNER_SCANNER_H
#define TESSERA_DRIVERS_IGPU_SCANNER_SCANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"

/* Why a workload was rejected.  igpu_scan_strerror() gives the sentence. */
enum igpu_scan_err {
    IGPU_SCAN_OK = 0,
    IGPU_SCAN_E_CONFIG,           /* the caller's configuration is unusable */
    IGPU_SCAN_E_UNKNOWN_CMD,      /* command type/opcode not in the engine's table */
    IGPU_SCAN_E_FORBIDDEN_CMD,    /* a known command a guest may not use */
    IGPU_SCAN_E_WRONG_ENGINE,     /* a known command that this engine does not execute */
    IGPU_SCAN_E_BAD_LENGTH,       /* length field wrong for the command */
    IGPU_SCAN_E_TRUNCATED,        /* command runs past the end of the ring slice */
    IGPU_SCAN_E_RESERVED_BITS,    /* reserved or unsupported bits set */
    IGPU_SCAN_E_BAD_FIELD,        /* a field holds a reserved value */
    IGPU_SCAN_E_PPGTT,            /* operand addressed through a PPGTT: not checkable */
    IGPU_SCAN_E_PRIVILEGED_OP,    /* privileged variant: status-page index, MMIO post-sync */
    IGPU_SCAN_E_MISALIGNED,       /* address not aligned as the command requires */
    IGPU_SCAN_E_ADDR_RANGE,       /* graphics address operand outside the allowed ranges */
    IGPU_SCAN_E_REG_DENIED,       /* register not in the allow-list for that access */
    IGPU_SCAN_E_BLIT_GEOMETRY,    /* empty/inverted rectangle, negative pitch, bad tiling */
    IGPU_SCAN_E_BB_END_IN_RING,   /* MI_BATCH_BUFFER_END outside a batch */
    IGPU_SCAN_E_BATCH_DEPTH,      /* batch nesting beyond the limit */
    IGPU_SCAN_E_BATCH_LOOP,       /* batch start into a batch on the current path */
    IGPU_SCAN_E_TOO_MANY_BATCHES, /* more batches than the workload limit */
    IGPU_SCAN_E_BATCH_OVERRUN,    /* batch runs out of the allowed ranges before its end */
    IGPU_SCAN_E_READ_FAULT,       /* the guest-memory read callback failed */
    IGPU_SCAN_E_SHADOW_FULL,      /* the shadow buffer cannot hold the batches */
    /* i915 profile (numbered after the others: TESSERA_REJECT_* keeps its numbers). */
    IGPU_SCAN_E_NO_3D_MEDIA, /* a draw, walker or media command: MI only, no 3D or media */
    IGPU_SCAN_E_PPGTT_MAP,   /* PPGTT address not mapped to the guest's own memory */
    IGPU_SCAN_E_COUNT
};

const char *igpu_scan_strerror(enum igpu_scan_err e);

/* A half-open range [start, start + size) of graphics addresses the workload may touch. */
struct igpu_scan_range {
    uint64_t start;
    uint64_t size;
};

/* Sort ranges by start, drop empty ones, merge overlapping and adjacent ones (clipping at
 * 2^64) in place; returns the new count.  The scanner requires normalized ranges (it checks
 * and returns IGPU_SCAN_E_CONFIG otherwise) so that "inside the union" is "inside one". */
size_t igpu_scan_ranges_normalize(struct igpu_scan_range *r, size_t n);
bool igpu_scan_ranges_normalized(const struct igpu_scan_range *r, size_t n);
/* True if [addr, addr + size) lies inside the (normalized) ranges; size 0 is never inside. */
bool igpu_scan_ranges_contain(const struct igpu_scan_range *r, size_t n, uint64_t addr,
                              uint64_t size);

/* Register allow-list entry: the dword registers in [offset, offset + size) (size in bytes,
 * 4 for one register) and what commands may do with them. */
#define IGPU_SCAN_REG_READ  0x1u /* MI_STORE_REGISTER_MEM may read it */
#define IGPU_SCAN_REG_WRITE 0x2u /* MI_LOAD_REGISTER_IMM / _MEM may write it */
struct igpu_scan_reg {
    uint32_t offset;
    uint32_t size;
    uint32_t access;
};

/* Default allow-lists (scan_policy.c explains each entry): the engine's own general purpose
 * registers read/write, its timestamps read-only. */
extern const struct igpu_scan_reg igpu_scan_default_regs_rcs[];
extern const size_t igpu_scan_default_regs_rcs_count;
extern const struct igpu_scan_reg igpu_scan_default_regs_bcs[];
extern const size_t igpu_scan_default_regs_bcs_count;

/*
 * GPU-time estimate parameters: the cost the scanner predicts is
 *   commands * cmd_ns + blits * blit_ns + blit pixels * pixel_ps / 1000
 *   + post-sync and store writes * write_ns + batches * batch_ns.
 * The model charges time by the same formula when given the same numbers (see
 * igpu_scan_cost_default and docs/scanner.md).
 */
struct igpu_scan_cost {
    uint32_t cmd_ns;   /* every command the engine parses */
    uint32_t blit_ns;  /* fixed set-up of one blit */
    uint32_t pixel_ps; /* per pixel a blit writes, in picoseconds */
    uint32_t write_ns; /* per memory write of a store or post-sync op */
    uint32_t batch_ns; /* per batch buffer started (fetch restart) */
};
extern const struct igpu_scan_cost igpu_scan_cost_default;

/* Reads len bytes of guest graphics memory at gm into dst.  Returns 0 on success, anything
 * else on failure (unmapped page, ...): the workload is then rejected. */
typedef int (*igpu_scan_read_fn)(void *ctx, uint64_t gm, void *dst, size_t len);

/* Hardware nesting limit on Gen9: the ring starts first-level batches, which may call
 * second-level ones (PRM Vol 2a MI_BATCH_BUFFER_START "Second Level Batch Buffer"). */
#define IGPU_SCAN_HW_MAX_DEPTH 2u
/* Longest chain of batches on one path (calls plus chained starts) the scanner follows. */
#define IGPU_SCAN_PATH_MAX 64u

/*
 * PPGTT operands (i915 profile).  check() says whether every byte of [gfx, gfx + len) translates
 * in the context's PPGTT for the access (a write also needs a writable entry that is not a
 * page-table page: vgt_ppgtt_check()); read() fetches batch dwords through it.  A PPGTT batch is
 * read through read(), checked, copied like a GGTT batch, and then either
 *  - run as its GGTT copy (in_place false): the start is rewritten to the copy with its PPGTT
 *    bit cleared.  Only for batches whose commands all name their address space (MI commands,
 *    PIPE_CONTROL): a blit in such a batch is refused, its surfaces would change meaning;
 *  - run where it is (in_place true), as GVT-g runs non-privileged batches (gvt/scheduler.c
 *    prepare_shadow_batch_buffer(): "send original bb to hardware directly"): the start is left
 *    alone and res.ppgtt_in_place counts it.  Safe only on an engine that runs PPGTT batches
 *    non-privileged (hardware: no GGTT access, LRI only to whitelisted registers), because the
 *    guest can still change the batch after the scan.  Such a batch may also start itself (a
 *    loop, IGT's spinner): the walk stops there (res.ppgtt_loops), and the engine's watchdog
 *    bounds the loop; a loop in a batch run as its copy is refused (IGPU_SCAN_E_BATCH_LOOP).
 */
struct igpu_scan_ppgtt {
    int (*check)(void *ctx, uint64_t gfx, uint64_t len, bool write);
    int (*read)(void *ctx, uint64_t gfx, void *dst, size_t len);
    void *ctx;
    bool in_place;
};

struct igpu_scan_config {
    enum igpu_engine engine;              /* IGPU_RCS or IGPU_BCS (VCS/VECS: i915 only) */
    const struct igpu_scan_range *ranges; /* normalized */
    size_t n_ranges;
    const struct igpu_scan_reg *regs;
    size_t n_regs;
    unsigned max_depth;   /* batch levels allowed: 0 none, 1 first-level, 2 also second */
    unsigned max_batches; /* batches one workload may start in total (>= 1 if any) */
    igpu_scan_read_fn read;
    void *read_ctx;
    uint32_t *shadow;   /* where batches are copied */
    size_t shadow_dw;   /* its capacity in dwords */
    uint64_t shadow_gm; /* graphics address the GPU sees shadow[0] at (4-byte aligned) */
    const struct igpu_scan_cost *cost; /* NULL: igpu_scan_cost_default */
    /* The i915 guest profile (false: Tessera's own guests, the rules of docs/scanner.md).
     * With it: the video engines' tables, MI_ARB_CHECK/MI_ARB_ON_OFF, status-page post-syncs
     * into pphwsp_gm (the context's own status page, inside the ranges), the render engine's
     * 3D/media state skipped and its empty draws accepted; draws, walkers and media refused
     * (IGPU_SCAN_E_NO_3D_MEDIA).  ppgtt (may be NULL: PPGTT refused) checks PPGTT operands. */
    bool i915;
    const struct igpu_scan_ppgtt *ppgtt;
    uint64_t pphwsp_gm;
};

/* Where and why a workload was rejected. */
#define IGPU_SCAN_GM_RING UINT64_MAX /* buf_gm of an error in the ring slice */
struct igpu_scan_error {
    enum igpu_scan_err code;
    unsigned level;          /* 0 ring slice, 1 first-level batch, 2 second-level batch */
    uint64_t buf_gm;         /* guest address of the batch holding it, or IGPU_SCAN_GM_RING */
    uint32_t cmd_offset;     /* first dword of the offending command in that buffer */
    uint32_t dw_offset;      /* the offending dword itself (header or operand) */
    uint32_t header;         /* header dword of the offending command (0 if none) */
    uint64_t detail;         /* offending address, register or value, where there is one */
    enum igpu_engine engine; /* the engine scanned for (names type-3 commands right) */
};

/* The workload facts the scheduler needs (valid when the scan succeeded). */
struct igpu_scan_result {
    struct igpu_scan_error err;
    uint32_t commands;  /* commands that will execute, NOOPs included */
    uint32_t batches;   /* batch buffers started */
    unsigned max_level; /* deepest batch level reached */
    uint32_t blits;
    uint64_t blit_pixels;     /* pixels written by blits */
    uint64_t blit_bytes;      /* bytes written by blits */
    uint32_t mem_writes;      /* store-data, SRM and post-sync writes */
    uint32_t reg_writes;      /* registers loaded by LRI/LRM */
    uint32_t user_interrupts; /* MI_USER_INTERRUPT count */
    uint32_t notifies;        /* MI_FLUSH_DW / PIPE_CONTROL notify (interrupt) requests */
    uint64_t est_cost_ns;     /* estimated GPU time, see struct igpu_scan_cost */
    size_t shadow_used_dw;    /* dwords of the shadow buffer holding batch copies */
    uint64_t entry_gm;        /* igpu_scan_batch: where the top batch's copy starts */
    /* Which of cfg->ranges the workload touches (bit i: ranges[i], for i < 128): its
     * operands, blit rectangles and batches.  A caller whose ranges later shrink can tell
     * whether work already under way needs what went away. */
    uint64_t ranges_touched[2];
    uint32_t state_skipped;  /* i915: 3D/media state commands and empty draws */
    uint32_t ppgtt_in_place; /* i915: PPGTT batches left to run where they are */
    uint32_t ppgtt_loops;    /* ... of which starts back into the path (a spinner), left to
                               * the engine and its watchdog */
};

/*
 * Scan a ring slice: ring[0..n_dw) is the caller's own copy of the guest's ring between head
 * and tail.  Batch starts in it are rewritten in place to point at the shadow copies.
 * Returns IGPU_SCAN_OK or the error also stored in res->err.
 */
enum igpu_scan_err igpu_scan_ring(const struct igpu_scan_config *cfg, uint32_t *ring, size_t n_dw,
                                  struct igpu_scan_result *res);

/* Scan a first-level batch at guest address batch_gm (copied into the shadow buffer; the GPU
 * should start it at res->entry_gm). */
enum igpu_scan_err igpu_scan_batch(const struct igpu_scan_config *cfg, uint64_t batch_gm,
                                   struct igpu_scan_result *res);

/* One line describing a rejection, e.g. for the log: "address outside the allowed ranges:
 * MI_STORE_DATA_IMM at batch 0x10000 dword 12 (address 0x2000)".  Returns snprintf's count. */
int igpu_scan_error_format(const struct igpu_scan_error *e, char *buf, size_t len);

/* Name of the command whose header is hdr ("MI_FLUSH_DW", "XY_COLOR_BLT", ...), or
 * "unknown command". */
const char *igpu_scan_cmd_name(uint32_t hdr);

#endif /* TESSERA_DRIVERS_IGPU_SCANNER_SCANNER_H */
