/*
 * Internal state of the Gen9 model, shared by the model's source files only.
 */
#ifndef TESSERA_DRIVERS_IGPU_MODEL_MODEL_INTERNAL_H
#define TESSERA_DRIVERS_IGPU_MODEL_MODEL_INTERNAL_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* snprintf only */

#include "drivers/igpu/cs/cs.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"
#include "drivers/igpu/model/igpu_model.h"

/* Translation cache: direct-mapped, emptied only by GGTT invalidation (like the hardware's
 * GTT TLBs, which do not snoop GGTT writes). */
#define MODEL_TLB_SIZE 512u

/* Bytes of a blit row handled at once (a multiple of every pixel size). The buffers live in
 * the engine, not on the stack: the hypervisor's stacks are small. */
#define MODEL_BLIT_CHUNK 4096u

/* The longest blit command (XY_SRC_COPY_BLT). */
#define MODEL_BLIT_MAX_DW 10u

struct model_tlb_entry {
    uint32_t tag; /* page index + 1; 0 = empty */
    uint64_t pte;
};

/* A surface a blit reads or writes. */
struct model_surf {
    uint64_t base;
    uint32_t pitch; /* bytes */
    enum igpu_tiling tiling;
};

/* The blit the engine is executing (model_blit.c): decoded once, then run a step of rows at a
 * time, so an engine reset or a preemption can come between steps. */
struct model_blit {
    bool active;
    uint32_t rop, cpp;
    uint8_t mask[4]; /* per byte of a pixel: 0xFF written, 0 kept */
    bool full_mask;
    uint8_t pat[4]; /* the solid colour, little-endian */
    bool has_src;
    struct model_surf dst, src;
    int32_t dx, dy, sx, sy, w, h;
    int32_t rows_done;
    uint32_t cmd[MODEL_BLIT_MAX_DW]; /* the command, kept for a context save mid-blit */
    uint32_t len;
    uint64_t cmd_gaddr;
};

/* What the engine is in the middle of when a context is preempted inside a batch or a blit.
 * Hardware keeps such state in the context image itself (its batch position in BB_ADDR and
 * BB_STATE; the PRM's encoding is not at hand, and Gen9's blitter does not stop inside a blit
 * at all), so the model keeps a record of its own in the register-state page after the
 * layout's closing MI_BATCH_BUFFER_END, which no restore executes.  A save always writes it
 * (magic 0 when there is nothing to resume); images built by igpu_lrc_init_state() have it 0. */
#define MODEL_RESUME_DW     (GEN9_LRC_STATE_DW + 2u)
#define MODEL_RESUME_MAGIC  0x4D524553u /* "MRES" */
#define MODEL_RESUME_PPGTT1 (1u << 8)   /* in MODEL_RESUME_LEVEL: level 1 is a PPGTT batch */
#define MODEL_RESUME_PPGTT2 (1u << 9)   /* ... level 2 */
enum {
    MODEL_RESUME_MAGIC_AT = 0,
    MODEL_RESUME_LEVEL,
    MODEL_RESUME_BB1_LO,
    MODEL_RESUME_BB1_HI,
    MODEL_RESUME_BB2_LO,
    MODEL_RESUME_BB2_HI,
    MODEL_RESUME_BLIT_ROWS,
    MODEL_RESUME_BLIT_LEN,
    MODEL_RESUME_BLIT_GADDR_LO,
    MODEL_RESUME_BLIT_GADDR_HI,
    MODEL_RESUME_BLIT_CMD,
    MODEL_RESUME_DWORDS = MODEL_RESUME_BLIT_CMD + MODEL_BLIT_MAX_DW
};

struct model_execlist {
    uint64_t desc[2];
    bool valid;
};

struct model_engine {
    enum igpu_engine id;
    uint32_t base;
    enum igpu_model_engine_state state;

    /* registers owned by the engine */
    uint32_t hws_pga;
    bool hws_valid; /* HWS_PGA written since reset: CSB is mirrored there */
    uint32_t hwstam;
    uint32_t mi_mode;   /* masked; STOP_RING honoured */
    uint32_t imr;       /* RING_IMR: events masked before reaching the GT IIR */
    uint32_t gfx_mode;  /* masked; RUN_LIST_ENABLE required for ELSP */
    uint32_t reset_ctl; /* masked */
    uint32_t gpr[GEN9_CS_GPR_COUNT * 2];
    uint32_t ctx_ctrl;                 /* CONTEXT_CONTROL (masked), as the last restore left it */
    uint32_t lrc_store[GEN9_LRC_REGS]; /* context registers the model keeps but does not act on */
    uint8_t lrc_kind[GEN9_LRC_REGS];   /* what each layout register is to the model */
    uint8_t lrc_gpr[GEN9_LRC_REGS];    /* for a GPR dword: its index in gpr[] */
    /* register-state page being restored/saved, through the resume record */
    uint32_t lrc_buf[MODEL_RESUME_DW + MODEL_RESUME_DWORDS];
    uint32_t elsp_dw[GEN9_ELSP_DWORDS];
    unsigned elsp_n;

    /* execlists: the running list and one pending (queued by an ELSP write while active) */
    struct model_execlist cur;
    unsigned cur_elem; /* element of cur running */
    struct model_execlist pend;
    bool need_restore; /* element cur_elem must be loaded before executing */
    bool lite_restore; /* reload only the tail of the running context */

    /* running context */
    uint64_t desc;
    uint32_t lrca;
    uint32_t ctx_id;
    uint32_t ring_ctl;        /* RING_CTL as loaded; the ring itself is cs.ring */
    uint64_t ctx_ts_ticks;    /* CTX_TIMESTAMP at restore */
    uint64_t ctx_start_ticks; /* engine timestamp at restore */

    /* The command streamer (drivers/igpu/cs/): the ring, batch levels and which of them are
     * PPGTT (non-privileged) batches, the command being executed (ACTHD), NOPID, and the
     * arbitration state (MI_ARB_CHECK, MI_ARB_ON_OFF). */
    struct igpu_cs cs;
    uint64_t pml4;          /* the running context's PPGTT (legacy 64-bit: PDP0), 0: none */
    struct model_blit blit; /* a blit in progress */

    /* context status buffer */
    uint32_t csb[GEN9_CSB_ENTRIES][2];
    uint32_t csb_wp, csb_rp; /* hardware write pointer, software read pointer */

    /* execlist queue slots (RING_EXECLIST_STATUS): which slot runs, which is written next */
    unsigned slot_cur, slot_wp;

    /* time, in picoseconds so per-pixel costs add up exactly */
    uint64_t clock_ps; /* the engine's clock: work done plus idle time let pass */
    uint64_t busy_ps;  /* modelled work only */

    struct igpu_model_stats stats;
    struct igpu_model_fault fault;
    uint8_t blit_src[MODEL_BLIT_CHUNK], blit_dst[MODEL_BLIT_CHUNK];
};

struct igpu_model {
    struct igpu_model_config cfg;
    struct igpu igpu;
    struct model_engine eng[IGPU_NUM_ENGINES];
    struct model_tlb_entry tlb[MODEL_TLB_SIZE];

    uint64_t fence[GEN9_FENCE_COUNT];
    uint32_t bcs_swctrl; /* masked */
    uint32_t master_irq; /* control bit only; pending bits computed */
    uint32_t gt_imr, gt_iir, gt_ier;
    uint32_t fw_req[3]; /* forcewake request registers (masked); acks mirror them */
    bool irq_line;
};

/* ---- model_core.c ---- */
struct model_engine *model_engine(struct igpu_model *m, enum igpu_engine e);
void model_raise(struct igpu_model *m, struct model_engine *en, uint32_t events);
int model_reg_read(struct igpu_model *m, uint32_t reg, uint32_t *val);
int model_reg_write(struct igpu_model *m, uint32_t reg, uint32_t val);
/* Register access from a command (LRI/LRM write, SRM read): only registers the model lets
 * commands touch. Returns IGPU_OK or IGPU_EUNSUPPORTED. */
int model_cmd_reg_write(struct igpu_model *m, struct model_engine *en, uint32_t reg, uint32_t val);
int model_cmd_reg_read(struct igpu_model *m, struct model_engine *en, uint32_t reg, uint32_t *val);
uint64_t model_timestamp_ticks(const struct igpu_model *m, const struct model_engine *en);

/* ---- model_ggtt.c ---- */
int model_ggtt_read_pte(struct igpu_model *m, uint32_t index, uint64_t *pte);
int model_ggtt_write_pte(struct igpu_model *m, uint32_t index, uint64_t pte);
int model_ggtt_write_run(struct igpu_model *m, uint32_t index, uint32_t n, const uint64_t *ptes);
void model_tlb_flush(struct igpu_model *m);
/* Whether the engine executes a batch started through the PPGTT (MI_BATCH_BUFFER_START bit 8):
 * a non-privileged batch (drivers/igpu/cs/cs_priv.c), whose blits' surfaces are PPGTT
 * addresses. */
static inline bool model_in_ppgtt(const struct model_engine *en)
{
    return !igpu_cs_privileged(&en->cs);
}
/* Engine access to graphics memory: checks, translates, faults the engine on failure.
 * Returns true on success.  model_gm_access_in() goes through the context's PPGTT if `ppgtt`,
 * else through the GGTT and cfg.gm_check; model_gm_access() picks the PPGTT for a blit's
 * surfaces inside a PPGTT batch (kind READ or WRITE) and the GGTT for everything else. */
bool model_gm_access_in(struct igpu_model *m, struct model_engine *en, bool ppgtt, uint64_t gaddr,
                        void *buf, size_t len, bool write, enum igpu_model_access kind);
bool model_gm_access(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, void *buf,
                     size_t len, bool write, enum igpu_model_access kind);
bool model_gm_read32(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, uint32_t *val,
                     enum igpu_model_access kind);
bool model_gm_write32(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, uint32_t val,
                      enum igpu_model_access kind);

/* ---- model_execlist.c ---- */
void model_engine_reset(struct igpu_model *m, struct model_engine *en);
int model_elsp_write(struct igpu_model *m, struct model_engine *en, uint32_t val);
int model_elsp_submit(struct igpu_model *m, struct model_engine *en, uint64_t d0, uint64_t d1);
uint32_t model_execlist_status_lo(const struct model_engine *en);
int model_csb_drain(struct igpu_model *m, struct model_engine *en, struct igpu_csb_event *ev,
                    unsigned max);
/* Stop the engine with a fault (the first fault sticks until reset). detail is one line. */
void model_fault(struct igpu_model *m, struct model_engine *en, enum igpu_fault_reason r,
                 uint64_t gaddr, const char *detail);

/* ---- model_context.c ---- */
/* Restore the register state of the context at en->lrca (full layout, CONTEXT_CONTROL first);
 * false if the engine faulted. */
bool model_ctx_restore(struct igpu_model *m, struct model_engine *en);
/* Lite restore: only RING_TAIL is sampled again. */
bool model_ctx_restore_tail(struct igpu_model *m, struct model_engine *en);
/* Save the whole register-state page (unless CONTEXT_CONTROL inhibits saving). */
bool model_ctx_save(struct igpu_model *m, struct model_engine *en);
/* Works out en->lrc_kind[] (after a reset, which clears it). */
void model_lrc_kinds(struct model_engine *en);

/* ---- model_cmd.c ---- */
/* The engine's command streamer, as a reset leaves it. */
void model_cs_init(struct model_engine *en);
/* Execute the command at the engine's current position; returns its cost in picoseconds
 * (the engine may be faulted afterwards). */
uint64_t model_exec_one(struct igpu_model *m, struct model_engine *en);

/* ---- model_blit.c ---- */
/* Starts the blit cmd[0..len) (charging its set-up) and runs its first step; returns the cost
 * in picoseconds.  The rest runs in model_blit_step() while en->blit.active. */
uint64_t model_exec_blit(struct igpu_model *m, struct model_engine *en, const uint32_t *cmd,
                         uint32_t len);
/* One step of the blit in progress: rows worth at most cfg.blit_step_ns (at least one). */
uint64_t model_blit_step(struct igpu_model *m, struct model_engine *en);
/* Takes up a blit a preempted context was in the middle of (its command, rows done); false
 * (engine faulted) if the saved command does not decode. */
bool model_blit_resume(struct igpu_model *m, struct model_engine *en, const uint32_t *cmd,
                       uint32_t len, uint64_t cmd_gaddr, uint32_t rows_done);

#endif /* TESSERA_DRIVERS_IGPU_MODEL_MODEL_INTERNAL_H */
