/*
 * The software Gen9 model: a pure-C stand-in for the Skylake GPU, used inside the hypervisor
 * when no supported Intel GPU exists (QEMU, Bochs) and in host tests. It implements the
 * backend interface of drivers/igpu/igpu.h plus model-only calls to drive and observe it.
 *
 * What it models (docs/igpu-model.md has the full table):
 *  - a register file for the registers Tessera uses; anything else is refused with
 *    IGPU_EUNSUPPORTED (never silently accepted);
 *  - a GGTT of up to 1 Mi 8-byte entries stored in "physical memory" at cfg.gsm_base, with a
 *    translation cache that only GFX_FLSH_CNTL (igpu_ggtt_flush) or MI_FLUSH_DW's TLB
 *    invalidate empties, as on hardware;
 *  - 32 fences and CPU access through the aperture with X/Y de-tiling of fenced ranges;
 *  - render (RCS) and blitter (BCS) engines with execlists: ELSP, context images, CSB,
 *    context-switch and user interrupts;
 *  - execution of MI_NOOP, MI_BATCH_BUFFER_START/END, MI_STORE_DATA_IMM, MI_LOAD_REGISTER_IMM,
 *    MI_LOAD_REGISTER_MEM, MI_STORE_REGISTER_MEM, MI_FLUSH_DW, MI_USER_INTERRUPT, PIPE_CONTROL
 *    (by the software command streamer, drivers/igpu/cs/, with the GPU's privilege rule for
 *    PPGTT batches), XY_COLOR_BLT and XY_SRC_COPY_BLT (8/16/32 bpp, linear or X/Y tiled, any
 *    ROP3 whose operands the command supplies) through the GGTT or the context's PPGTT;
 *  - a GPU-time cost model so busy time and timestamps advance.
 * Anything a command asks for that the model does not implement faults the engine with a
 * reason; it is never skipped.
 *
 * Driving it: the model has no thread. Work happens only inside igpu_model_run(), which the
 * hypervisor's render loop (or a test) calls with a GPU-time budget per engine:
 *
 *     struct igpu_model_config cfg;
 *     igpu_model_config_defaults(&cfg);
 *     cfg.mem = (struct igpu_model_mem){ my_read, my_write, my_ctx };
 *     cfg.gsm_base = <physical address of the GGTT entries>; cfg.ggtt_entries = 1u << 20;
 *     struct igpu_model *m; igpu_model_create(&cfg, &m);
 *     struct igpu *g = igpu_model_igpu(m);        // the generic backend interface
 *     igpu_engine_init(g, IGPU_BCS, hws_gaddr);    // execlist mode + status page
 *     ... write GGTT entries (igpu_ggtt_write + igpu_ggtt_flush), a context image and a
 *         ring (or use igpu_model_submit_ring()), then igpu_elsp_submit(g, IGPU_BCS, d0, 0);
 *     igpu_model_run(m, IGPU_BCS, 1000000);        // up to 1 ms of GPU time
 *     igpu_csb_read(g, IGPU_BCS, ev, 6);            // completion events
 *     igpu_model_fault(m, IGPU_BCS)                 // non-NULL if the engine faulted
 *
 * Time: each engine has its own clock in nanoseconds. Commands and context switches advance
 * it by their modelled cost; igpu_model_advance() lets idle time pass on all engines. The
 * engine timestamp registers (RING_TIMESTAMP) and post-sync timestamp writes read this clock
 * in ticks of cfg.timestamp_hz; CTX_TIMESTAMP in a context image accumulates the ticks the
 * context was running.
 */
#ifndef TESSERA_DRIVERS_IGPU_MODEL_IGPU_MODEL_H
#define TESSERA_DRIVERS_IGPU_MODEL_IGPU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"

/* The model's state is private (model_internal.h); callers hold a pointer. */
struct igpu_model;

/* Physical memory as the GPU sees it. Both calls get ranges that never cross a 4 KiB page.
 * Return 0 on success; anything else refuses the access (an engine access then faults the
 * engine with IGPU_FAULT_MEMORY, a CPU-side call returns IGPU_EFAULT). */
struct igpu_model_mem {
    int (*read)(void *ctx, uint64_t pa, void *buf, size_t len);
    int (*write)(void *ctx, uint64_t pa, const void *buf, size_t len);
    void *ctx;
};

/* What an engine is doing with graphics memory, for the optional access check. */
enum igpu_model_access {
    IGPU_ACCESS_CONTEXT, /* context image restore/save */
    IGPU_ACCESS_RING,    /* fetching commands from the ring */
    IGPU_ACCESS_BATCH,   /* fetching commands from a batch buffer */
    IGPU_ACCESS_STATUS,  /* hardware status page (CSB mirror) */
    IGPU_ACCESS_READ,    /* a command reading data (blit source, LRM) */
    IGPU_ACCESS_WRITE,   /* a command writing data (blit destination, stores) */
};

/* Called before every graphics-memory access an engine makes, with the whole extent of that
 * access (one blit row, one store, one command). Return non-zero to deny: the engine faults
 * with IGPU_FAULT_ACCESS_DENIED before touching memory. */
typedef int (*igpu_model_gm_check_fn)(void *ctx, enum igpu_engine e, uint64_t gaddr, uint64_t len,
                                      enum igpu_model_access kind);

/* GPU-time cost of the work an engine does. The fields and the formula match the scanner's
 * estimate (struct igpu_scan_cost): commands*cmd_ns + blits*blit_ns + pixels*pixel_ps/1000
 * + writes*write_ns + batches*batch_ns, plus ctx_switch_ns per context restore. */
struct igpu_model_cost {
    uint32_t cmd_ns;        /* every command parsed, MI_NOOP included; at least 1 */
    uint32_t blit_ns;       /* fixed set-up of one blit */
    uint32_t pixel_ps;      /* per pixel a blit writes, in picoseconds */
    uint32_t write_ns;      /* per memory write of a store, SRM or post-sync operation */
    uint32_t batch_ns;      /* per batch buffer started */
    uint32_t ctx_switch_ns; /* per context restore (element start) */
};

/* Where an engine with a newer execlist submission pending leaves the running context for it
 * (docs/igpu-model.md "Preemption").  Every level also switches at MI_ARB_CHECK. */
enum igpu_model_preempt {
    IGPU_MODEL_PREEMPT_RING = 0, /* command boundaries in the ring, not inside batches */
    IGPU_MODEL_PREEMPT_COMMAND,  /* also every command boundary inside batches */
    IGPU_MODEL_PREEMPT_STEP,     /* also between the steps of a long blit */
};

struct igpu_model_config {
    struct igpu_model_mem mem;
    uint64_t gsm_base;      /* physical address of GGTT entry 0 (8 bytes per entry) */
    uint32_t ggtt_entries;  /* 1 .. GEN9_GGTT_MAX_ENTRIES */
    uint64_t aperture_size; /* CPU-visible low part of graphics memory, <= entries * 4 KiB */
    uint16_t device_id;     /* reported PCI device id */
    uint32_t timestamp_hz;
    struct igpu_model_cost cost;
    /* A blit is executed in steps of whole rows worth at most this much GPU time (at least one
     * row a step), so igpu_model_run() returns within a step of its budget, an engine reset
     * stops a blit midway, and (IGPU_MODEL_PREEMPT_STEP) a preemption can come between steps.
     * Default 50 us; 0 = one step per blit. */
    uint32_t blit_step_ns;
    enum igpu_model_preempt preempt; /* default IGPU_MODEL_PREEMPT_RING */
    igpu_model_gm_check_fn gm_check; /* optional */
    void *gm_check_ctx;
    void (*irq)(void *ctx); /* optional: called when the interrupt line becomes asserted */
    void *irq_ctx;
};

/* Why an engine stopped. */
enum igpu_fault_reason {
    IGPU_FAULT_NONE = 0,
    IGPU_FAULT_GGTT_NOT_PRESENT,  /* access through a GGTT entry without the present bit */
    IGPU_FAULT_GGTT_RANGE,        /* graphics address beyond the GGTT */
    IGPU_FAULT_MEMORY,            /* the memory accessor refused a physical access */
    IGPU_FAULT_ACCESS_DENIED,     /* cfg.gm_check refused the access */
    IGPU_FAULT_UNSUPPORTED_CMD,   /* a command the model does not implement */
    IGPU_FAULT_UNSUPPORTED_FIELD, /* an implemented command with an option it does not */
    IGPU_FAULT_INVALID_CMD,       /* malformed: bad length, reserved value, reserved type */
    IGPU_FAULT_WRONG_ENGINE,      /* a command this engine does not execute */
    IGPU_FAULT_REGISTER,          /* LRI/LRM/SRM on a register the model cannot do that to */
    IGPU_FAULT_BATCH_DEPTH,       /* batch nesting deeper than second level */
    IGPU_FAULT_BAD_CONTEXT,       /* context image or ring registers unusable */
    IGPU_FAULT_RING_OVERRUN,      /* a command in the ring runs past the tail */
    IGPU_FAULT_BAD_SUBMISSION,    /* invalid ELSP element */
    IGPU_FAULT_PPGTT_NOT_PRESENT, /* access through a PPGTT entry without the present bit */
    IGPU_FAULT_PPGTT_READ_ONLY,   /* a write through a PPGTT entry without RW */
};

const char *igpu_fault_reason_name(enum igpu_fault_reason r);

struct igpu_model_fault {
    enum igpu_fault_reason reason;
    uint32_t header;    /* header dword of the offending command (0 if none) */
    uint64_t cmd_gaddr; /* graphics address of that command */
    uint64_t gaddr;     /* offending graphics address / register, where there is one */
    uint32_t ctx_id;    /* context that was running */
    char detail[96];    /* one line, e.g. "XY_COLOR_BLT: clipping not modelled" */
};

enum igpu_model_engine_state {
    IGPU_MODEL_IDLE,
    IGPU_MODEL_ACTIVE,
    IGPU_MODEL_FAULTED,
};

struct igpu_model_stats {
    enum igpu_model_engine_state state;
    uint64_t clock_ns; /* the engine's clock (busy + idle time let pass) */
    uint64_t busy_ns;  /* modelled work only */
    uint64_t commands;
    uint64_t blits;
    uint64_t pixels;
    uint64_t mem_writes;
    uint64_t batches;
    uint64_t ctx_switches; /* context restores */
    uint64_t csb_events;
    uint64_t user_interrupts;
    uint64_t priv_dropped; /* what PPGTT (non-privileged) batches may not do, dropped as
                               * the GPU drops it (drivers/igpu/cs/cs_priv.c) */
    uint64_t faults;
};

/* The model's timestamp rate: it models a Skylake desktop part whose CTC_MODE selects the
 * 24 MHz crystal clock with shift 2 (gen9_cs_timestamp_hz()), i.e. 12 MHz, 83.33 ns a tick. */
#define IGPU_MODEL_TIMESTAMP_HZ 12000000u

/* Defaults: Skylake GT2 id 0x1912, IGPU_MODEL_TIMESTAMP_HZ timestamps, a 256 MiB aperture, full 1 Mi entry
 * GGTT, and the cost figures listed in docs/igpu-model.md. The caller still sets mem and
 * gsm_base. */
void igpu_model_config_defaults(struct igpu_model_config *cfg);
void igpu_model_cost_defaults(struct igpu_model_cost *cost);

int igpu_model_create(const struct igpu_model_config *cfg, struct igpu_model **out);
void igpu_model_destroy(struct igpu_model *m);

/* The generic backend interface bound to this model (valid until destroy). */
struct igpu *igpu_model_igpu(struct igpu_model *m);

/* Change the cost model (takes effect for the next command). cmd_ns must be at least 1, so
 * that a batch that loops forever still uses up any budget. */
int igpu_model_set_cost(struct igpu_model *m, const struct igpu_model_cost *cost);

/*
 * Execute up to budget_ns of GPU work on engine e. Returns the busy time consumed, in ns
 * (0 if the engine is idle, stopped or faulted). Work is done in steps (a command, or one step
 * of a long blit: cfg.blit_step_ns), so the result can exceed the budget by one step. The
 * engine's clock advances by the returned amount.
 */
uint64_t igpu_model_run(struct igpu_model *m, enum igpu_engine e, uint64_t budget_ns);
/* Run until the engine is idle or faulted, or max_ns of work has been done. */
uint64_t igpu_model_run_until_idle(struct igpu_model *m, enum igpu_engine e, uint64_t max_ns);
/* Let ns of (idle) time pass on every engine's clock. */
void igpu_model_advance(struct igpu_model *m, uint64_t ns);

enum igpu_model_engine_state igpu_model_engine_state(const struct igpu_model *m,
                                                     enum igpu_engine e);
int igpu_model_stats(const struct igpu_model *m, enum igpu_engine e, struct igpu_model_stats *out);
/* The engine's fault, or NULL if it is not faulted. igpu_engine_reset() clears it. */
const struct igpu_model_fault *igpu_model_fault(const struct igpu_model *m, enum igpu_engine e);
/* Whether the interrupt line is asserted (master enable and an enabled pending IIR bit). */
bool igpu_model_irq_asserted(const struct igpu_model *m);

/* ---- CPU-side access ----------------------------------------------------------------------
 * Through the aperture (BAR2): offsets < aperture_size, translated by the GGTT and de-tiled
 * where a valid fence covers them. */
int igpu_model_aperture_read(struct igpu_model *m, uint64_t off, void *buf, size_t len);
int igpu_model_aperture_write(struct igpu_model *m, uint64_t off, const void *buf, size_t len);
/* Linear graphics memory through the current GGTT (no fences): what an engine would see.
 * For setting up rings, batches and context images, and for checking results. */
int igpu_model_gm_read(struct igpu_model *m, uint64_t gaddr, void *buf, size_t len);
int igpu_model_gm_write(struct igpu_model *m, uint64_t gaddr, const void *buf, size_t len);
/* Translate one graphics address with the current GGTT entries (bypassing the cache). */
int igpu_model_gm_translate(struct igpu_model *m, uint64_t gaddr, uint64_t *pa);

/* ---- Tiling ------------------------------------------------------------------------------
 * Byte offset inside a tiled surface of the byte at column x_bytes of row y, for a surface of
 * `pitch` bytes per row (a multiple of the tile width). *contig, if given, receives how many
 * bytes from there on are contiguous in memory and in the row (to the end of the tile row for
 * X tiling, of the OWord for Y tiling). IGPU_TILING_NONE is linear: y * pitch + x_bytes. */
enum igpu_tiling { IGPU_TILING_NONE = 0, IGPU_TILING_X, IGPU_TILING_Y };
uint64_t igpu_tiled_offset(enum igpu_tiling t, uint32_t pitch, uint32_t x_bytes, uint32_t y,
                           uint32_t *contig);

/* ---- Submission helpers (what a driver does, packaged for tests, tools and fuzzing) ------ */

/* Build a context image at lrca (two pages: PPHWSP zeroed, then the register state of
 * igpu_lrc_init_state() without a default image: the full layout, restore inhibited, so its
 * first run keeps the engine's registers as they are) for engine e with its ring at ring_gaddr
 * of ring_size bytes (4 KiB multiple, at most 2 MiB), head = tail = 0. */
int igpu_model_ctx_init(struct igpu_model *m, enum igpu_engine e, uint32_t lrca,
                        uint32_t ring_gaddr, uint32_t ring_size);
/* Append cmds[0..n_dw) to the context's ring at its saved tail (padding with MI_NOOP to a
 * qword), update the tail in the image and submit the context alone through ELSP with
 * context id ctx_id. The ring must have room (head is taken from the image). */
int igpu_model_submit_ring(struct igpu_model *m, enum igpu_engine e, uint32_t lrca, uint32_t ctx_id,
                           const uint32_t *cmds, size_t n_dw);

#endif /* TESSERA_DRIVERS_IGPU_MODEL_IGPU_MODEL_H */
