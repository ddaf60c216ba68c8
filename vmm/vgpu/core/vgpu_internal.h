/* State shared by the vGPU's files (not for users of vgpu.h). */
#ifndef TESSERA_VMM_VGPU_VGPU_INTERNAL_H
#define TESSERA_VMM_VGPU_VGPU_INTERNAL_H

#include "vmm/vgpu/vgpu.h"
#include "vmm/vgpu/personality.h"

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"

#define VGPU_MAX_RANGES (1u + 64u) /* low window + high slots */
/* Host-area bytes the default-image recording uses first: its context (2 pages) and ring. */
#define VGPU_RECORD_BYTES (GEN9_LR_CONTEXT_OTHER_SIZE + GEN9_GTT_PAGE_SIZE)

/* One scanned workload waiting for (or on) the GPU. */
struct vgpu_workload {
    uint64_t id;                 /* the scheduler's id: per vGPU, increasing */
    bool is_void;                /* refused or dropped: retires with `code`, never runs */
    bool inflight, done;         /* on the GPU; finished, waiting to retire in order */
    uint32_t code;               /* TESSERA_REJECT_* of a void record */
    unsigned shadow;             /* index of its batch-copy buffer */
    uint32_t lrca, ctx_id, tail; /* guest context to retire: RING_HEAD := tail */
    uint32_t range_gen;          /* the vGPU's range generation when it was scanned */
    uint64_t slots_touched;      /* high-GM slots its commands and batches use (bit = slot) */
    uint64_t est_ns;
    uint64_t submit_ns, dispatch_ns; /* env.cpu_ns at submission and first dispatch (0: not yet) */
    uint64_t pml4;                   /* i915: the context's PPGTT (its PDP0) */
    bool user_interrupt;             /* i915: it has an MI_USER_INTERRUPT to raise when done */
    uint32_t n_dw;
    uint32_t cmds[VGPU_SLICE_MAX_DW]; /* the ring slice, batch starts pointing at copies */
    uint32_t orig[VGPU_SLICE_MAX_DW]; /* the slice as the guest wrote it, to scan again after
                                         * its graphics memory shrank; these two last, so a
                                         * void record need not clear them */
};

/* A guest context's ring as its image describes it (vgpu_read_context()). */
struct vgpu_guest_ring {
    uint32_t start, size, head, tail;
};

/* The part of an i915 blitter submission not queued yet: i915 may put up to its whole ring
 * into one tail update, more workloads than the queue holds; the rest is queued, in order, as
 * workloads retire (vgpu_queue_rest()), and the element completes after its last. */
struct vgpu_rest {
    uint32_t lrca, ctx_id, head, bytes; /* bytes == 0: nothing waits */
    uint64_t pml4;
    struct vgpu_guest_ring r;
};

/* A plain register that has no rule (storage only). */
struct vgpu_other_reg {
    uint32_t off, val;
};

struct vgpu {
    struct vgpu_dev *dev;
    /* Its submissions on engines run on the CPU (vgpu_cpu_engine.c): the last id given, the
     * last id finished (ids are per engine, in submission order). */
    uint64_t cpu_next_id[IGPU_NUM_GT_ENGINES], cpu_done_id[IGPU_NUM_GT_ENGINES];
    unsigned id; /* = guest id = gtt and sched id */
    uint32_t tile_w, tile_h;
    const struct vgpu_personality *ops; /* what its guest's driver sees (personality.h) */
    void *pers;                         /* the personality's state */

    /* registers every personality has (docs/vgpu-abi.md) */
    uint32_t fw_req[3]; /* forcewake request registers (masked value) */
    uint64_t fence[GTT_MAX_VGPU_FENCES];
    struct vgt_if pv; /* the PV info page */
    struct vgpu_other_reg other[VGPU_OTHER_REGS];
    unsigned n_other;

    /* ranges the scanner allows, rebuilt when avail_rs changes */
    struct igpu_scan_range ranges[VGPU_MAX_RANGES];
    size_t n_ranges;
    uint32_t range_gen; /* +1 whenever ranges shrink */

    /* host-area memory of this vGPU */
    uint64_t ctx_gm, ring_gm, hwsp_gm, shadow_gm; /* graphics addresses */
    uint8_t *ctx_hva, *ring_hva, *hwsp_hva, *shadow_hva;
    uint32_t ring_bytes;
    uint32_t ring_tail; /* where the next dispatch writes (the engine's head is here) */
    unsigned n_shadow;
    uint64_t shadow_busy; /* bitmap of batch-copy buffers in use */

    /* the queue: workloads in submission order, q_head is the oldest */
    struct vgpu_workload *q; /* VGPU_QUEUE_MAX records */
    unsigned q_head, q_len;
    uint64_t next_id;
    uint32_t host_ctx_id;

    struct vgpu_rest rest;
    /* Workloads of the queue head a preemption left in the shadow ring: the shadow context's
     * saved image says where they resume (vgpu_preempt.c).  Still `inflight` to the queue. */
    unsigned preempted;
    /* A reset the guest asked for (its own engine reset, its restart) is under way: routine,
     * not news, unless work was lost. */
    bool guest_reset;
    int32_t grow_request;   /* slots a guest asked for, waiting for the controller */
    int32_t shrink_pending; /* slots a guest gave back, applied when the GPU is idle */
    /* re-placement (vgpu_move.c) */
    bool move_pending;         /* a move was requested and not answered yet */
    struct gtt_move move_to;   /* where it goes when the guest is ready */
    unsigned move_age;         /* placement periods the request has waited */
    uint64_t completed_seen;   /* st.completed at the last placement period */
    uint64_t switches_in_seen; /* gtt's switches_in at the last placement period */
    uint64_t freq;             /* switch-ins per period, smoothed (x4) */
    uint8_t worked;            /* bit k: it had work k placement periods ago */
    uint64_t moved_period;     /* the placement period it last moved in (+1; 0: never) */
    uint64_t copy_seen;        /* st.copy_cpu_ns at its last switch-in */
    struct vgpu_stats st;
    struct vgpu_reject rejects[VGPU_REJECT_LOG];
    unsigned n_rejects, reject_pos;
};

/* An engine a personality runs on the host CPU (vgpu_cpu_engine.c). */
struct vgpu_cpu_engine {
    struct vgpu_dev *dev;
    enum igpu_engine engine;
    struct sched *sched;  /* NULL: the hypervisor gave none */
    unsigned running;     /* the vGPU whose dispatched work it runs, or VGPU_MAX */
    unsigned inflight;    /* its dispatched workloads not finished yet */
    uint64_t inflight_ns; /* CPU time they used since the last completion */
    uint64_t clock_ns;    /* the engine's clock: CPU time run, and idle time ... */
    bool idle;
    uint64_t idle_since; /* ... counted up to when it went idle */
    struct vgpu_cpu_engine_stats st;
};

struct vgpu_dev {
    struct vgpu_dev_config cfg;
    struct vgpu_cpu_engine cpu[IGPU_NUM_GT_ENGINES]; /* all but the blitter's */
    struct vgpu *v[VGPU_MAX];
    /* The blitter's default context image (its register-state page), recorded from the engine
     * at creation as i915 records engine->default_state: every shadow context starts from it. */
    uint32_t default_state[GEN9_GTT_PAGE_SIZE / 4u];
    uint64_t host_used;  /* bytes of the host area handed out */
    uint64_t host_share; /* bytes per vGPU */

    /* the engine: which vGPU's workloads are on it */
    unsigned running;     /* vGPU with work in flight, or VGPU_MAX */
    unsigned inflight;    /* workloads in flight (from the queue head) */
    uint64_t inflight_ns; /* GPU time used since the last retirement */
    /* Preemption (vgpu_preempt.c): the host's empty context whose submission makes the engine
     * leave the running one at its next arbitration point. */
    uint32_t preempt_ctx_gm;
    bool preempting;        /* it was submitted and has not completed yet */
    bool pausing;           /* ... for a drain: the owner's turn goes on (sched_paused) */
    uint32_t predicted;     /* the vGPU written ahead for in this turn, or VGPU_MAX */
    uint64_t switches_seen; /* st.switches at the last placement period */
    struct vgpu_render_stats st;
};

/* vgpu_context.c */
/* Records d->default_state from the blitter (which it resets first); 0, or -1 with the reason
 * logged. */
int vgpu_record_default_context(struct vgpu_dev *d);
/* (Re)builds v's shadow context from the default image: i915 lrc_init_state() for a new
 * context, restore_default_state() for one an engine reset interrupted. */
int vgpu_init_shadow_context(struct vgpu *v);
/* The execlist descriptor of v's shadow context (i915 lrc_descriptor()). */
uint64_t vgpu_shadow_desc(const struct vgpu *v);

/* vgpu_dev.c */
void vgpu_logf(struct vgpu_dev *d, enum vgpu_log_level l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool vgpu_gm_write(struct vgpu *v, uint64_t gm, const void *buf, size_t len);
/* Host pointer of [gm, gm + len) inside one page, through the guest's own entry for it (what it
 * wrote, not the host shadow); NULL if the entry is not present (*mapped false, if asked) or
 * the page is not its RAM. */
uint8_t *vgpu_gm_page_ptr(const struct vgpu *v, uint64_t gm, size_t len, bool *mapped);
bool vgpu_gm_read32(const struct vgpu *v, uint64_t gm, uint32_t *val);
bool vgpu_gm_write32(struct vgpu *v, uint64_t gm, uint32_t val);
void vgpu_ranges_refresh(struct vgpu *v);
void vgpu_note_reject(struct vgpu *v, uint32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Host wall time for the CPU-side measures (GGTT copying, latency); 0 without a clock. */
static inline uint64_t vgpu_cpu_now(const struct vgpu_dev *d)
{
    return d->cfg.env.cpu_ns ? d->cfg.env.cpu_ns(d->cfg.env.ctx) : 0;
}
static inline void wr32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* vgpu_mmio.c: the whole register path (the personality's registers first), for LRI/SRM
 * emulation. */
uint32_t vgpu_reg_read(struct vgpu *v, uint32_t off);
void vgpu_reg_write(struct vgpu *v, uint32_t off, uint32_t val);

/* vgpu_submit.c: the building blocks a personality's submission path uses. */
/* A submission arrived (counted for `vgpu` and the PV page's Tessera extension). */
void vgpu_count_submission(struct vgpu *v);
/* The ring registers of the guest context at lrca, read through its GGTT entries and checked
 * (image and ring inside its graphics memory, a valid ring); false with the reason. */
bool vgpu_read_context(struct vgpu *v, uint32_t lrca, struct vgpu_guest_ring *r, char *why,
                       size_t n);
/* Where a submission of context lrca starts: after its newest workload if it still has work
 * in the vGPU, else at its image's RING_HEAD (r->head as read). */
void vgpu_resume_head(const struct vgpu *v, uint32_t lrca, struct vgpu_guest_ring *r);
/* Copies, scans and queues ring bytes [head, head + bytes) of context lrca as one workload
 * retiring at head + bytes; false if it was refused (then up to r->tail). */
bool vgpu_queue_slice(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint64_t pml4,
                      const struct vgpu_guest_ring *r, uint32_t head, uint32_t bytes);
/* A refused submission: retired at once with nothing queued, else as a void record that keeps
 * the order (the guest's RING_HEAD must not pass work that has not run yet). */
void vgpu_refuse(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint32_t tail, uint32_t code);
/* Queues what the queue has room for of v->rest, in slices of whole commands. */
void vgpu_queue_rest(struct vgpu *v);
/* Retires the oldest queued workload through the personality.  code TESSERA_REJECT_NONE = it
 * ran to completion. */
void vgpu_retire_head(struct vgpu *v, uint32_t code);
/* Tells the guest, through its personality, that a submission is finished with. */
void vgpu_retire(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint32_t tail, uint32_t code);
/* The vGPU's ranges shrank: queued workloads are scanned again against the new ranges; those
 * that now fail keep their old range generation and are dropped at dispatch. */
void vgpu_rescan_queued(struct vgpu *v);
/* The high-GM slots of ranges r[0..n) (those whose bit is set in `which`, or all if NULL), as
 * a bitmask over the layout's slots (every bit if a slot index does not fit 64). */
uint64_t vgpu_slot_mask(const struct vgpu *v, const struct igpu_scan_range *r, size_t n,
                        const uint64_t *which);

/* vgpu_fence.c */
bool vgpu_is_fence_reg(uint32_t off);
/* The guest wrote fence register i: recorded, and up to VGPU_FENCE_EXIT_PAGES of its work. */
void vgpu_fence_write(struct vgpu *v, unsigned i, uint64_t value);
/* Up to max_pages pages of v's fence work; returns the pages done. */
uint32_t vgpu_fence_work(struct vgpu *v, uint32_t max_pages);

/* vgpu_render.c */
void vgpu_drop_queue(struct vgpu *v, uint32_t code);
/* Runs the GPU (with the watchdog, charging what it uses) until nothing is on the engine, the
 * running vGPU preempted if it can be, but for at most VGPU_DRAIN_MAX_NS of GPU time: true if
 * the engine is idle (graphics memory may then change). */
bool vgpu_render_drain(struct vgpu_dev *d);
/* Runs the GPU one budget and takes in what finished, preemptions and faults included. */
void vgpu_run_gpu(struct vgpu_dev *d);

/* vgpu_preempt.c */
/* Builds the preemption context in the host area the default-image recording used. */
int vgpu_preempt_init(struct vgpu_dev *d);
/* Asks the engine to leave the running vGPU's context at its next arbitration point. */
void vgpu_preempt_request(struct vgpu_dev *d);
/* Takes the engine's context-status events: true when a requested preemption has finished
 * (the engine is idle; the running vGPU's unfinished workloads are then left preempted). */
bool vgpu_preempt_events(struct vgpu_dev *d);
/* Called once the preemption finished: unfinished work of the running vGPU stays in its ring
 * for its next turn, and the scheduler charges what it used. */
void vgpu_preempt_finish(struct vgpu_dev *d);

/* vgpu_cpu_engine.c: engines a personality runs on the host CPU (personality.h cpu_run). */
/* Their schedulers, one per engine but the blitter (none without cfg.cpu_sched); 0 or -1. */
int vgpu_cpu_engines_init(struct vgpu_dev *d);
void vgpu_cpu_engines_free(struct vgpu_dev *d);
/* v takes part in the schedulers of its personality's CPU engines with its render weight;
 * -1 (logged) if one is missing. */
int vgpu_cpu_engines_add(struct vgpu *v);
void vgpu_cpu_engines_set_weight(struct vgpu_dev *d, unsigned vm, uint32_t weight);
/* One more workload of v on CPU engine e (one submission; the personality runs it in
 * cpu_run); false if the scheduler's queue for v is full (merge it into the newest). */
bool vgpu_cpu_submit(struct vgpu *v, enum igpu_engine e, uint64_t *id);
/* Everything of v on engine e is dropped (a fault, the guest reset the engine or restarted). */
void vgpu_cpu_drop(struct vgpu *v, enum igpu_engine e);
/* One bounded step of every CPU engine with work; true if any still has work. */
bool vgpu_cpu_engines_step(struct vgpu_dev *d);

/* vgpu_move.c */
/* While the owner's work runs: writes ahead the entries of the vGPU the scheduler will most
 * likely run next (sched_predict_next), timed into copy_ahead_ns; again within a turn only if
 * the prediction changed (new work arrived). */
void vgpu_write_ahead(struct vgpu_dev *d, struct vgpu *owner, bool new_turn);
/* The guest wrote TESSERA_G2V_MOVE_READY. */
void vgpu_move_ready(struct vgpu *v);
/* A guest restart forgets its request (its new run announces whether it follows moves). */
void vgpu_move_forget(struct vgpu *v);

/* vgpu_balloon.c */
void vgpu_pv_update_ranges(struct vgpu *v);
void vgpu_balloon_notify(struct vgpu *v);
/* Applies guest shrink requests that arrived while the engine was busy. */
void vgpu_balloon_apply_pending(struct vgpu_dev *d);

#endif
