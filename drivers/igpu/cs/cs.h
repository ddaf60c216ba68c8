/*
 * The MI-only command streamer: a software engine that really executes what an i915 guest sends
 * to the render, video and video-enhancement engines, for a vGPU that has no such engine to give
 * it.  "RCS/VCS/VECS: MI only, no 3D or media."
 *
 * What it does, command by command (docs/vgpu-i915.md has the table):
 *  - executes the MI commands i915 6.1 emits and IGT's MI-only tests use: MI_NOOP (NOPID),
 *    MI_ARB_CHECK, MI_ARB_ON_OFF, MI_USER_INTERRUPT, MI_STORE_DATA_IMM (dword and qword, GGTT
 *    or PPGTT), MI_LOAD_REGISTER_IMM / _MEM and MI_STORE_REGISTER_MEM (registers of an
 *    allow-list), MI_FLUSH_DW post-sync writes (immediate, timestamp, status-page index; video
 *    engines), PIPE_CONTROL post-sync writes (qword immediate, timestamp, status-page index;
 *    render), notify interrupts, MI_BATCH_BUFFER_START/END (GGTT or PPGTT, first and second
 *    level, chaining);
 *  - on the render engine, decodes and skips 3D and media STATE commands (PIPELINE_SELECT,
 *    STATE_BASE_ADDRESS, 3DSTATE_*, MEDIA_*_STATE: drivers/igpu/gen9_gfxpipe.c), which change
 *    nothing visible without a draw, and skips a 3DPRIMITIVE that provably draws nothing (the
 *    one ending i915's golden render state);
 *  - refuses, with a named fault, everything else: a draw that could draw, GPGPU_WALKER and
 *    MEDIA_OBJECT*, any MFX/VEBOX command on the video engines, predication, semaphores, MI_MATH
 *    and the other MI commands it does not execute.  The engine stops at the faulting command,
 *    as a hung engine would; the caller makes the guest see a failed request.
 *
 * Pure: memory, registers, time and interrupts through the caller's callbacks; no allocation.
 * Every memory access is one callback call that never crosses a 4 KiB page, so the caller
 * translates (GGTT or PPGTT shadow) and checks each page.
 */
#ifndef TESSERA_DRIVERS_IGPU_CS_CS_H
#define TESSERA_DRIVERS_IGPU_CS_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"
#include "drivers/igpu/scanner/scanner.h"   /* struct igpu_scan_reg: the register allow-list */

/* The label the vGPU prints for these engines (docs, the shell's `vgpu`). */
#define IGPU_CS_LABEL "RCS/VCS/VECS: MI only, no 3D or media"

enum igpu_cs_space {
    IGPU_CS_GGTT = 0,
    IGPU_CS_PPGTT = 1,
};

struct igpu_cs_ops {
    void *ctx;
    /* len bytes of graphics memory at gaddr in `space`; [gaddr, gaddr + len) never crosses a
     * 4 KiB page.  0 on success; non-zero refuses the access and faults the engine. */
    int (*mem)(void *ctx, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
               bool write);
    /* A register the allow-list lets commands write (LRI, LRM) or read (SRM).  Non-zero
     * faults the engine.  Masked registers are the callee's business, as on hardware. */
    int (*reg_write)(void *ctx, uint32_t reg, uint32_t val);
    int (*reg_read)(void *ctx, uint32_t reg, uint32_t *val);
    /* The engine's timestamp (RING_TIMESTAMP ticks) for post-sync timestamp writes. */
    uint64_t (*timestamp)(void *ctx);
    /* Interrupt events, GEN9_GT_* bits unshifted (GEN9_GT_USER_INTERRUPT, _PIPECTL_NOTIFY). */
    void (*event)(void *ctx, uint32_t gt_bits);
};

struct igpu_cs_config {
    enum igpu_engine engine;        /* IGPU_RCS, IGPU_VCS or IGPU_VECS (IGPU_BCS: MI only) */
    const struct igpu_scan_reg *regs;   /* what LRI/LRM may write and SRM may read */
    size_t n_regs;
    uint64_t pphwsp_gaddr;          /* GGTT address of the running context's status page
                                     * (its LRCA): the target of store-data-index post-syncs */
    bool ppgtt;                     /* the context has a PPGTT: PPGTT operands are allowed */
    uint32_t max_commands;          /* per run; 0 = IGPU_CS_DEFAULT_BUDGET */
};

/* Commands one run executes at most: an endless batch (IGT's spinners) stops here. */
#define IGPU_CS_DEFAULT_BUDGET  (1u << 20)

/* The context's ring as its image says: commands from head to tail (byte offsets, wrapping). */
struct igpu_cs_ring {
    uint64_t start;                 /* GGTT address, 4 KiB aligned */
    uint32_t size;                  /* bytes, a multiple of 4 KiB */
    uint32_t head, tail;
};

enum igpu_cs_fault {
    IGPU_CS_OK = 0,
    IGPU_CS_F_CONFIG,               /* unusable configuration or ring */
    IGPU_CS_F_UNKNOWN_CMD,          /* not a command this engine has */
    IGPU_CS_F_UNSUPPORTED_CMD,      /* a real command the MI-only streamer does not execute */
    IGPU_CS_F_DRAW,                 /* 3DPRIMITIVE that may draw: no 3D */
    IGPU_CS_F_GPGPU,                /* GPGPU_WALKER or MEDIA_OBJECT*: no kernels */
    IGPU_CS_F_MEDIA,                /* MFX or VEBOX command on a video engine: no media */
    IGPU_CS_F_WRONG_ENGINE,         /* a command of another engine (blits, PIPE_CONTROL on xCS) */
    IGPU_CS_F_BAD_LENGTH,
    IGPU_CS_F_BAD_FIELD,            /* reserved bits or values, options not supported */
    IGPU_CS_F_REGISTER,             /* register not in the allow-list for that access */
    IGPU_CS_F_MEMORY,               /* the memory callback refused an access */
    IGPU_CS_F_PPGTT,                /* PPGTT operand in a context without a PPGTT */
    IGPU_CS_F_BATCH_DEPTH,          /* a third batch level */
    IGPU_CS_F_BB_END_IN_RING,       /* MI_BATCH_BUFFER_END outside a batch */
    IGPU_CS_F_RING_OVERRUN,         /* a command runs past the tail */
    IGPU_CS_F_BUDGET,               /* command budget used up */
    IGPU_CS_F_COUNT
};

const char *igpu_cs_fault_name(enum igpu_cs_fault f);

struct igpu_cs_result {
    enum igpu_cs_fault fault;
    uint32_t header;                /* header of the faulting command (0 if none) */
    uint64_t cmd_gaddr;             /* where it is */
    enum igpu_cs_space cmd_space;
    uint64_t detail;                /* address, register or value at fault */
    char what[96];                  /* one line: "3DPRIMITIVE: RCS/VCS/VECS: MI only, ..." */
    uint32_t head;                  /* ring offset reached: the tail, or the ring command
                                     * being executed when the engine faulted */
    /* What was done. */
    uint32_t commands;              /* commands executed or skipped, MI_NOOP included */
    uint32_t state_skipped;         /* 3D/media state commands (and empty draws) skipped */
    uint32_t mem_writes;            /* stores, SRMs and post-sync writes */
    uint32_t reg_writes;            /* registers loaded */
    uint32_t user_interrupts;
    uint32_t notifies;
    uint32_t batches;               /* batch buffers started */
    uint32_t nopid;                 /* last MI_NOOP identification value written */
};

/* Execute ring->head .. ring->tail.  Returns the fault (IGPU_CS_OK when the ring was consumed);
 * res says where and why. */
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
