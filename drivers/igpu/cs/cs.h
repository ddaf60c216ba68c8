/*
 * The Gen9 command streamer in software: it fetches commands from a context's ring and batch
 * buffers and executes the MI commands and PIPE_CONTROL's post-sync, once for every software
 * engine Tessera has:
 *  - the software GPU model's render and blitter engines (drivers/igpu/model/ adds execlists,
 *    context images, the blits and the cost model around it: model_cmd.c);
 *  - the MI-only command streamer that runs an i915 guest's render, video and
 *    video-enhancement engines for a vGPU that has no such engines to give it ("RCS/VCS/VECS:
 *    MI only, no 3D or media": igpu_cs_run()).
 *
 * What it executes (docs/vgpu-i915.md and docs/igpu-model.md have the tables): MI_NOOP
 * (NOPID), MI_ARB_CHECK, MI_ARB_ON_OFF, MI_USER_INTERRUPT, MI_STORE_DATA_IMM (dword, qword),
 * MI_LOAD_REGISTER_IMM (byte write disables) / _MEM, MI_STORE_REGISTER_MEM, MI_FLUSH_DW (not
 * on the render engine) and PIPE_CONTROL (render engine) post-sync writes (immediate,
 * timestamp, status-page index), notify interrupts and TLB invalidations,
 * MI_BATCH_BUFFER_START/END (GGTT or PPGTT, first and second level, chaining).  Memory
 * operands are GGTT or PPGTT addresses as each command says.  Anything else stops the engine
 * at the command with a named fault (enum igpu_cs_fault), as a hung engine would.
 *
 * Privilege: a batch started through the PPGTT is non-privileged and what it may not do is
 * dropped, as the GPU drops it (cs_priv.c: the rule and its sources, one definition for every
 * engine).
 *
 * What differs between engines is data or a callback, never a copy: the engine (MI_FLUSH_DW is
 * not the render engine's, PIPE_CONTROL is only its, type-3 commands on the video engines are
 * media), the register allow-list or the caller's register callbacks, `gfxpipe` (the render
 * engine decodes and skips 3D/media state and refuses draws: the MI-only streamer), ops.blit
 * (the blitter's own commands: the model), the cost (the caller charges what igpu_cs_result
 * counts).
 *
 * Pure: memory, registers, time and interrupts through the caller's callbacks; no allocation.
 * Every memory access is one callback call that never crosses a 4 KiB page, so the caller
 * translates (GGTT or PPGTT) and checks each page.
 */
#ifndef TESSERA_DRIVERS_IGPU_CS_CS_H
#define TESSERA_DRIVERS_IGPU_CS_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"
#include "drivers/igpu/scanner/scanner.h" /* struct igpu_scan_reg: the register allow-list */

/* The label the vGPU prints for the i915 guest's MI-only engines (docs, the shell's `vgpu`). */
#define IGPU_CS_LABEL "RCS/VCS/VECS: MI only, no 3D or media"

enum igpu_cs_space {
    IGPU_CS_GGTT = 0,
    IGPU_CS_PPGTT = 1,
};

/* What an engine's memory access is for (the model's access check tells them apart). */
enum igpu_cs_access {
    IGPU_CS_FETCH_RING,  /* command dwords from the ring */
    IGPU_CS_FETCH_BATCH, /* command dwords from a batch buffer */
    IGPU_CS_READ,        /* a command reading its memory operand (LRM) */
    IGPU_CS_WRITE,       /* a store, SRM or post-sync write */
};

enum igpu_cs_fault {
    IGPU_CS_OK = 0,
    IGPU_CS_F_CONFIG,            /* unusable configuration or ring */
    IGPU_CS_F_UNKNOWN_CMD,       /* not a command this engine has (reserved type, ...) */
    IGPU_CS_F_UNSUPPORTED_CMD,   /* a real command this engine does not execute */
    IGPU_CS_F_UNSUPPORTED_FIELD, /* an option of an executed command that is not
                                     * implemented (predication, depth-count post-sync, ...) */
    IGPU_CS_F_DRAW,              /* 3DPRIMITIVE that may draw: no 3D */
    IGPU_CS_F_GPGPU,             /* GPGPU_WALKER or MEDIA_OBJECT*: no kernels */
    IGPU_CS_F_MEDIA,             /* MFX or VEBOX command on a video engine: no media */
    IGPU_CS_F_WRONG_ENGINE,      /* a command of another engine (blits, PIPE_CONTROL on xCS) */
    IGPU_CS_F_BAD_LENGTH,
    IGPU_CS_F_BAD_FIELD,      /* reserved bits or values: a malformed command */
    IGPU_CS_F_REGISTER,       /* register not allowed, or the callback refused it */
    IGPU_CS_F_MEMORY,         /* the memory callback refused an access */
    IGPU_CS_F_PPGTT,          /* PPGTT operand in a context without a PPGTT */
    IGPU_CS_F_BATCH_DEPTH,    /* a third batch level */
    IGPU_CS_F_BB_END_IN_RING, /* MI_BATCH_BUFFER_END outside a batch */
    IGPU_CS_F_RING_OVERRUN,   /* a command runs past the tail */
    IGPU_CS_F_BUDGET,         /* command budget used up */
    IGPU_CS_F_BLIT,           /* ops.blit refused the blitter command (it says why) */
    IGPU_CS_F_COUNT
};

const char *igpu_cs_fault_name(enum igpu_cs_fault f);

struct igpu_cs_ops {
    void *ctx;
    /* len bytes of graphics memory at gaddr in `space`; [gaddr, gaddr + len) never crosses a
     * 4 KiB page.  0 on success; non-zero refuses the access and faults the engine. */
    int (*mem)(void *ctx, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
               enum igpu_cs_access how);
    /* The engine's registers: what LRI/LRM write (after the allow-list, if there is one),
     * what SRM stores, the bytes an LRI's byte disables keep, and the engine's
     * RING_FORCE_TO_NONPRIV slots (cs_priv.c).  Non-zero refuses: a refused write or SRM read
     * faults the engine, a refused slot read names no register.  Masked registers are the
     * callee's business, as on hardware. */
    int (*reg_write)(void *ctx, uint32_t reg, uint32_t val);
    int (*reg_read)(void *ctx, uint32_t reg, uint32_t *val);
    /* The engine's timestamp (RING_TIMESTAMP ticks) for post-sync timestamp writes. */
    uint64_t (*timestamp)(void *ctx);
    /* Interrupt events, GEN9_GT_* bits unshifted (GEN9_GT_USER_INTERRUPT, _PIPECTL_NOTIFY). */
    void (*event)(void *ctx, uint32_t gt_bits);
    /* Optional: MI_FLUSH_DW / PIPE_CONTROL "TLB invalidate" (a caller that caches
     * translations empties the cache). */
    void (*tlb_invalidate)(void *ctx);
    /* Optional: the blitter engine's own (type-2) commands.  dw holds the first
     * min(len, IGPU_CS_CMD_DW) dwords of the len-dword command.  IGPU_CS_OK when it was
     * executed (or started: the caller may finish it in steps of its own); anything else
     * faults the engine with that reason. */
    enum igpu_cs_fault (*blit)(void *ctx, const uint32_t *dw, uint32_t len);
    /* Optional: true when the caller's time for this step is up.  A command of many units (an
     * LRI's registers) asks between units and, if so, stops after those done: the step ends
     * there and the next igpu_cs_step() goes on with the rest, so no command holds the CPU for
     * more than one unit past the caller's budget. */
    bool (*out_of_time)(void *ctx);
};

/* The context's ring as its image says: commands from head to tail (byte offsets, wrapping). */
struct igpu_cs_ring {
    uint64_t start; /* GGTT address, 4 KiB aligned */
    uint32_t size;  /* bytes, a multiple of 4 KiB */
    uint32_t head, tail;
};

/* Batch levels: 0 is the ring, 1 a first-level batch, 2 a second-level one (Gen9 has two). */
#define IGPU_CS_MAX_LEVEL 2u
/* Dwords of a command fetched whole (the longest blit is 10); longer commands (LRI, skipped
 * state) are read piece by piece. */
#define IGPU_CS_CMD_DW 16u

struct igpu_cs_batch {
    enum igpu_cs_space space; /* PPGTT: a non-privileged batch */
    uint64_t pos;             /* graphics address of the next command */
};

/*
 * One engine's command streamer.  The engine part is set once (igpu_cs_init()); the context
 * part when a context is loaded (igpu_cs_load(), or field by field by a caller that restores
 * context images: the model); the rest is where the engine is, kept across igpu_cs_step()
 * calls so execution resumes where it stopped.
 */
struct igpu_cs {
    /* The engine. */
    enum igpu_engine engine;
    const struct igpu_scan_reg *regs; /* what LRI/LRM may write and SRM read; NULL: every
                                         * register the callbacks accept */
    size_t n_regs;
    bool gfxpipe;    /* render: 3D/media state skipped, draws refused */
    const char *who; /* names the engine in faults ("MI-only streamer") */
    /* The running context. */
    struct igpu_cs_ring ring; /* head: the ring command being executed or next */
    uint32_t ring_wraps;      /* times head wrapped (RING_HEAD's wrap count) */
    uint64_t pphwsp_gaddr;    /* GGTT address of its status page (its LRCA): the target
                                     * of store-data-index post-syncs */
    bool ppgtt;               /* it has a PPGTT: PPGTT operands are allowed */
    /* Where the engine is. */
    unsigned level;
    struct igpu_cs_batch bb[IGPU_CS_MAX_LEVEL + 1u]; /* [1], [2]: the batches */
    uint32_t topology; /* last 3DSTATE_VF_TOPOLOGY, or GEN9_TOPOLOGY_UNKNOWN */
    uint32_t nopid;    /* last MI_NOOP identification value (RING_NOPID) */
    bool arb_off;      /* MI_ARB_ON_OFF turned arbitration off */
    bool arb_check;    /* the last command was MI_ARB_CHECK */
    /* The command being executed (or the last one). */
    uint32_t hdr;
    uint32_t len; /* total dwords */
    uint64_t cmd_gaddr;
    enum igpu_cs_space cmd_space;
    uint32_t dw[IGPU_CS_CMD_DW]; /* its first min(len, IGPU_CS_CMD_DW) dwords */
    /* A command stopped part way (ops->out_of_time): the units it has done, and which command
     * it was.  The next step goes on only if the same header is still at the same place (the
     * guest's CPU may rewrite its batch meanwhile); otherwise that command starts afresh. */
    struct {
        uint32_t units, hdr;
        enum igpu_cs_space space;
        uint64_t gaddr;
    } part;
};

struct igpu_cs_result {
    enum igpu_cs_fault fault;
    uint32_t header;    /* header of the faulting command (0 if none) */
    uint64_t cmd_gaddr; /* where it is */
    enum igpu_cs_space cmd_space;
    uint64_t detail; /* address, register or value at fault */
    char what[96];   /* one line: "3DPRIMITIVE: RCS/VCS/VECS: MI only, ..." */
    uint32_t head;   /* ring offset reached: the tail, or the ring command
                                     * being executed when the engine faulted */
    /* What was done (added to by every igpu_cs_step()). */
    uint32_t commands;      /* commands executed or skipped, MI_NOOP included */
    uint32_t state_skipped; /* 3D/media state commands (and empty draws) skipped */
    uint32_t mem_writes;    /* stores, SRMs and post-sync writes */
    uint32_t reg_writes;    /* registers loaded */
    uint32_t user_interrupts;
    uint32_t notifies;
    uint32_t batches;      /* batch buffers started */
    uint32_t priv_dropped; /* commands or post-syncs a non-privileged batch may not
                                     * do, dropped as the GPU drops them (cs_priv.c) */
    uint32_t nopid;        /* last MI_NOOP identification value written */
};

/* Sets the engine part of *cs and clears the rest (no context: igpu_cs_load() next). */
void igpu_cs_init(struct igpu_cs *cs, enum igpu_engine engine, const struct igpu_scan_reg *regs,
                  size_t n_regs, bool gfxpipe, const char *who);
/* Loads a context: its ring (executed from ring->head), its status page and whether it has a
 * PPGTT; the engine is at ring level with arbitration on. */
void igpu_cs_load(struct igpu_cs *cs, const struct igpu_cs_ring *ring, uint64_t pphwsp_gaddr,
                  bool ppgtt);
/* Nothing left to execute: at ring level with head at the tail. */
bool igpu_cs_idle(const struct igpu_cs *cs);
/* Whether the command being executed (or next) is privileged: in the ring or in a batch
 * started through the GGTT.  A batch started through the PPGTT is not. */
bool igpu_cs_privileged(const struct igpu_cs *cs);

/* Execute at most max commands, stopping early when idle or faulted.  Returns the fault
 * (IGPU_CS_OK also when max was reached: igpu_cs_idle() tells); res says where and why and
 * counts what was done.  A later call resumes where this one stopped; after a fault the
 * engine must be loaded again. */
enum igpu_cs_fault igpu_cs_step(struct igpu_cs *cs, const struct igpu_cs_ops *ops, uint32_t max,
                                struct igpu_cs_result *res);

/* ---- The i915 guest's MI-only engines -------------------------------------------------- */

struct igpu_cs_config {
    enum igpu_engine engine;          /* IGPU_RCS, IGPU_VCS or IGPU_VECS (IGPU_BCS: MI only) */
    const struct igpu_scan_reg *regs; /* what LRI/LRM may write and SRM may read */
    size_t n_regs;
    uint64_t pphwsp_gaddr; /* GGTT address of the running context's status page
                                     * (its LRCA): the target of store-data-index post-syncs */
    bool ppgtt;            /* the context has a PPGTT: PPGTT operands are allowed */
    uint32_t max_commands; /* per run; 0 = IGPU_CS_DEFAULT_BUDGET */
};

/* Commands one run executes at most: an endless batch (IGT's spinners) stops here. */
#define IGPU_CS_DEFAULT_BUDGET (1u << 20)

/* Execute ring->head .. ring->tail on an MI-only engine (the render engine skips 3D/media
 * state).  Returns the fault (IGPU_CS_OK when the ring was consumed); res says where and why.
 * Commands run whole: ops->out_of_time is not asked. */
enum igpu_cs_fault igpu_cs_run(const struct igpu_cs_config *cfg, const struct igpu_cs_ops *ops,
                               const struct igpu_cs_ring *ring, struct igpu_cs_result *res);

/* The register allow-lists the vGPU gives an i915 guest's engines (cs_policy.c): the engine's
 * GPRs and timestamps, and on the render engine the context workaround registers i915 loads in
 * its golden context (gen9_ctx_workarounds_init()). */
extern const struct igpu_scan_reg igpu_cs_i915_regs_rcs[];
extern const size_t igpu_cs_i915_regs_rcs_count;
extern const struct igpu_scan_reg igpu_cs_i915_regs_vcs[];
extern const size_t igpu_cs_i915_regs_vcs_count;
extern const struct igpu_scan_reg igpu_cs_i915_regs_vecs[];
extern const size_t igpu_cs_i915_regs_vecs_count;

#endif /* TESSERA_DRIVERS_IGPU_CS_CS_H */
