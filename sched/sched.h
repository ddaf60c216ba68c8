/*
 * sched.h — the Tessera render scheduler (docs/sched.md).
 *
 * Decides which vGPU's workloads go to the (non-preemptive) render engine and how many at a
 * time.  Pure C: no hardware, no globals; time comes from a clock callback the caller passes
 * in.  All times are nanoseconds in uint64_t.
 *
 * How the hypervisor's render loop drives it:
 *
 *   sched_create(&cfg, &clock, &s);               cfg from sched_config_default() + vendor config
 *   sched_vgpu_add(s, id, weight);                 one per guest, id < cfg.max_vgpus
 *   ...
 *   guest writes its ring tail   -> sched_submit(s, id, &(struct sched_workload){wid, est_ns})
 *   guest waits on a fence       -> sched_sync_wait(s, id)          (feeds the interactivity test)
 *   engine idle                  -> sched_pick(s, &d)
 *        d.kind == SCHED_PICK_DISPATCH: if d.switched, switch the GPU to vGPU d.vgpu; if
 *            d.cosched_hint, boost that guest's vCPU; then submit the next d.count workloads of
 *            d.vgpu (in submission order, starting with id d.first_id).
 *        d.kind == SCHED_PICK_IDLE: nothing to run; call again on the next submit/wake or at
 *            d.retry_at_ns.
 *        d.kind == SCHED_PICK_BUSY: workloads are still in flight; wait for their completions.
 *   workload done                -> sched_complete(s, id, wid, gpu_ns_from_backend_timestamps)
 *   periodic timer               -> sched_watchdog(s, &v); if it reports v, reset v's engine
 *                                   state, then sched_vgpu_reset(s, v).
 *   guest paused / resumed       -> sched_vgpu_idle(s, id) / sched_vgpu_wake(s, id)
 *   operator `weight <vm> <w>`   -> sched_vgpu_set_weight(s, id, w)
 *   shell `sched`                -> sched_metrics_get(), sched_vgpu_stats_get()
 *
 * The rules every policy shares (the "turn" mechanism, sched.c): a picked vGPU owns the engine
 * for one turn.  Workloads run to completion and are charged the GPU time the backend reports.
 * The turn ends when the vGPU has used its quota (fair: the slice, 6 ms by default) — it may
 * overrun by part of one batch, and pays for it through the policy's accounting — or at once
 * when its queue is empty (work conservation).  The first cfg.sample_count workloads of a turn
 * are dispatched one by one and timed; from them the scheduler predicts how many more fit the
 * rest of the slice and dispatches those as one batch.  What differs between policies is only
 * which vGPU is picked next and how used time is accounted (sched_policy_*.c).
 */
#ifndef TESSERA_SCHED_SCHED_H
#define TESSERA_SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched_metrics.h"
#include "tessera/limits.h"

#define SCHED_MAX_VGPUS 1024u /* hard upper bound for cfg.max_vgpus */
_Static_assert(SCHED_MAX_VGPUS >= TESSERA_MAX_GUESTS, "every guest has a vGPU id");
#define SCHED_WEIGHT_MAX 65535u /* weights are 1..SCHED_WEIGHT_MAX */
#define SCHED_QUEUE_MAX  65536u /* upper bound for cfg.queue_depth */
#define SCHED_NO_VGPU    UINT32_MAX
#define SCHED_NEVER      UINT64_MAX /* "no such time" */
#define SCHED_PPM        1000000u   /* fixed-point unit of ratios: 1.0 == SCHED_PPM */

#define SCHED_MS(x) ((uint64_t)(x)*1000000ull)
#define SCHED_US(x) ((uint64_t)(x)*1000ull)

/* Error codes (negative return values). */
enum sched_err {
    SCHED_OK = 0,
    SCHED_EINVAL = -1, /* bad argument (weight 0, NULL pointer, out-of-range config) */
    SCHED_ENOENT = -2, /* no such vGPU */
    SCHED_EEXIST = -3, /* vGPU id already in use */
    SCHED_EFULL = -4,  /* the vGPU's queue is full: hold the workload back and retry */
    SCHED_ESTATE = -5, /* call does not fit the current state (completion out of order, ...) */
    SCHED_ENOMEM = -6,
    SCHED_EBUSY = -7, /* the vGPU has workloads in flight */
};
const char *sched_strerror(int err);

/* The policies, named as the vendor configuration names them. */
enum sched_policy {
    SCHED_POLICY_FAIR = 0, /* weighted fair queuing in virtual time (FairGV) — the default */
    SCHED_POLICY_RR,       /* GVT-g: 16 ms round robin, weighted time-slice balance per 100 ms */
    SCHED_POLICY_CREDIT,   /* Xen-style credit: UNDER/OVER classes, credits refilled per period */
    SCHED_POLICY_LAS,      /* least attained service (Rain): unweighted, decaying history */
    SCHED_POLICY_COUNT
};
/* "fair", "rr", "credit", "las" -> the enum; returns SCHED_EINVAL for anything else. */
int sched_policy_from_name(const char *name, enum sched_policy *out);
const char *sched_policy_name(enum sched_policy p); /* NULL when out of range */

struct sched_config {
    enum sched_policy policy;
    uint32_t max_vgpus;             /* ids are 0..max_vgpus-1; default TESSERA_MAX_GUESTS */
    uint32_t queue_depth;           /* workloads per vGPU, queued + in flight; default 256 */
    uint64_t slice_ns;              /* fair/las turn length; default 6 ms */
    uint32_t sample_count;          /* workloads timed one by one per turn; default 5 */
    uint32_t max_batch;             /* cap on one dispatch (ring space); 0 = none */
    uint64_t watchdog_ns;           /* one workload running longer is a runaway; default 200 ms */
    uint64_t interactive_window_ns; /* default 10 ms */
    uint32_t interactive_waits;     /* more sync waits than this per window => interactive; 10 */
    bool cosched_hints;             /* emit the coscheduling hint on pick; default true */
    uint64_t hold_ns;               /* an interactive vGPU keeps the engine this long after its
                                     * queue runs dry, for its boosted vCPU's next submission
                                     * (FairGV's hybrid spinning); charged to it.  Default 0:
                                     * yield at once. */
    uint64_t preempt_lag_ns;        /* fair, with a preemptive engine: a vGPU whose work arrives
                                     * (first submit after an empty queue) cuts the running turn
                                     * once the owner is this much GPU time (at its weight) ahead
                                     * of it in virtual time, instead of at the end of the slice
                                     * (sched_preempt_due).  0, or a lag of a slice or more: only
                                     * at the slice's end.  Default 500 us. */
    uint64_t rr_slice_ns;           /* rr: round-robin quantum; default 16 ms */
    uint64_t rr_balance_ns;         /* rr: time-slice balance period; default 100 ms */
    uint32_t rr_reset_periods;      /* rr: every N periods the balance forgives debt; default 10 */
    uint64_t credit_slice_ns;       /* credit: turn length; default 30 ms (Xen) */
    uint64_t credit_period_ns;      /* credit: accounting period; default 30 ms (Xen) */
    uint64_t credit_tick_ns;        /* credit: debit granularity; default 10 ms (Xen) */
    uint64_t las_decay_ns;          /* las: attained service halves every period; default 100 ms */
    uint32_t backlog_min_ppm;       /* the fairness figures count a vGPU that was backlogged
                                     * for at least this part of the interval; default 50% */
};
void sched_config_default(struct sched_config *cfg);
/* Checks ranges; returns SCHED_OK or SCHED_EINVAL and, if msg != NULL, a reason. */
int sched_config_check(const struct sched_config *cfg, char *msg, size_t msg_len);

/* The clock: nanoseconds, monotonic. */
struct sched_clock {
    uint64_t (*now)(void *ctx);
    void *ctx;
};

struct sched; /* opaque */

int sched_create(const struct sched_config *cfg, const struct sched_clock *clock,
                 struct sched **out);
void sched_destroy(struct sched *s);
enum sched_policy sched_get_policy(const struct sched *s);

/* vGPUs. */
int sched_vgpu_add(struct sched *s, uint32_t vgpu, uint32_t weight);
int sched_vgpu_remove(struct sched *s, uint32_t vgpu); /* SCHED_EBUSY if in flight */
int sched_vgpu_set_weight(struct sched *s, uint32_t vgpu, uint32_t weight);
/* idle: the vGPU takes no part in scheduling (guest paused) even with queued work; its turn,
 * if any, ends at the next pick.  wake: it takes part again; like any wake-up it gets no credit
 * for the time it slept.  A submit to a vGPU with an empty queue is an implicit wake-up. */
int sched_vgpu_idle(struct sched *s, uint32_t vgpu);
int sched_vgpu_wake(struct sched *s, uint32_t vgpu);

/* Workloads.  est_ns is the command scanner's cost estimate (0 = unknown).  Workloads of one
 * vGPU are dispatched and must complete in submission order. */
struct sched_workload {
    uint64_t id;
    uint64_t est_ns;
};
int sched_submit(struct sched *s, uint32_t vgpu, const struct sched_workload *w);
/* wid: the workload's sched_workload.id.  gpu_ns: GPU time it used (backend timestamps).  A
 * backend that can only time a whole batch may report the batch's total on its last workload
 * and 0 on the others. */
int sched_complete(struct sched *s, uint32_t vgpu, uint64_t wid, uint64_t gpu_ns);
/* The guest waited synchronously for the GPU (fence wait, sync copy). */
int sched_sync_wait(struct sched *s, uint32_t vgpu);

enum sched_pick_kind {
    SCHED_PICK_DISPATCH = 0,
    SCHED_PICK_IDLE,
    SCHED_PICK_BUSY,
};
struct sched_decision {
    enum sched_pick_kind kind;
    uint32_t vgpu;        /* DISPATCH/BUSY: owner of the engine */
    uint32_t count;       /* DISPATCH: how many queued workloads to dispatch now (>= 1) */
    uint64_t first_id;    /* DISPATCH: id of the first of them */
    bool new_turn;        /* DISPATCH: this pick started a turn */
    bool switched;        /* DISPATCH: the owner differs from the previous turn's */
    bool cosched_hint;    /* DISPATCH, new turn: vGPU is interactive — boost its vCPU */
    uint64_t budget_ns;   /* DISPATCH: what is left of the turn's quota */
    uint64_t retry_at_ns; /* IDLE: pick again by then even without an event (or SCHED_NEVER);
                             * while an interactive vGPU holds the engine, vgpu names it */
};
int sched_pick(struct sched *s, struct sched_decision *d);

/* Runaway detection: true (and *vgpu set) when the oldest in-flight workload has been running
 * for more than cfg.watchdog_ns.  The caller resets that vGPU's engine state and then calls
 * sched_vgpu_reset(); the other vGPUs are not touched. */
bool sched_watchdog(struct sched *s, uint32_t *vgpu);
/* Drops every queued and in-flight workload of the vGPU (returns how many, >= 0) and ends its
 * turn; the time the runaway held the engine is charged to it. */
int sched_vgpu_reset(struct sched *s, uint32_t vgpu);

/* Preemption (sched_preempt.c), for engines that can leave a context midway and take it up
 * again (Gen9 at its arbitration points; the model at command or blit-step boundaries):
 *
 *   sched_preempt_due(s, running_ns)   while workloads are in flight: true when the owner's
 *        turn has used its quota (running_ns: GPU time its in-flight work has used since the
 *        last completion) and another vGPU is waiting; or, with the fair policy, when a vGPU
 *        whose work arrived since its last turn is behind the owner in virtual time by more
 *        than cfg.preempt_lag_ns (the owner's time so far counted).  The caller then asks the
 *        engine to preempt (docs/vgpu.md "Preemption").
 *   sched_preempted(s, vgpu, used_ns)  the engine left vgpu's context with workloads
 *        unfinished: used_ns (GPU time since the last completion) is charged, the turn ends,
 *        and those workloads go back to the head of its queue.  Its next dispatch takes at
 *        least all of them (they continue where they stopped), and the watchdog counts the
 *        time the oldest had already run.
 *   sched_paused(s, vgpu, used_ns)  the engine left vgpu's context for the caller's own work
 *        (graphics memory changing hands, docs/vgpu.md "Performance isolation"), not for
 *        another vGPU: used_ns is charged as by sched_preempted, the workloads resume the same
 *        way, but the turn goes on: the next pick continues it while it has quota and work.
 *        A pause is not a scheduling decision, so it does not send the owner behind the vGPUs
 *        that arrived meanwhile.
 *   sched_vgpu_switch_cost(s, vgpu, ns)  what bringing vgpu back onto the engine costs (the
 *        caller measures it: the GGTT copying its switch-ins needed, while the engine idles).
 *        A preemption on arrival brings the owner back later, so it is made only when the
 *        arrival is behind by more than cfg.preempt_lag_ns plus the owner's cost: a turn is
 *        not cut for less than cutting it costs.  0 (the default) adds nothing.
 * A long workload therefore costs its owner its share, not the other vGPUs their turns: with
 * a preemptive engine the turn is the unit of sharing even inside one workload. */
bool sched_preempt_due(struct sched *s, uint64_t running_ns);
int sched_preempted(struct sched *s, uint32_t vgpu, uint64_t used_ns);
int sched_paused(struct sched *s, uint32_t vgpu, uint64_t used_ns);
int sched_vgpu_switch_cost(struct sched *s, uint32_t vgpu, uint64_t ns);

/* Introspection. */
bool sched_vgpu_interactive(const struct sched *s, uint32_t vgpu);
uint32_t sched_vgpu_queued(const struct sched *s, uint32_t vgpu); /* queued + in flight */
uint32_t sched_vgpu_inflight(const struct sched *s, uint32_t vgpu);
uint32_t sched_current(const struct sched *s); /* owner of the current turn or SCHED_NO_VGPU */
/* The policy's ordering key of a vGPU, for the shell and tests: fair = start tag (virtual ns),
 * rr = left time slice, credit = credit, las = attained service. */
int64_t sched_vgpu_key(const struct sched *s, uint32_t vgpu);
uint64_t sched_virtual_time(struct sched *s); /* fair: global virtual time; else 0 */

/* Prediction for predictive copying: the vGPU most likely to own the engine after the current
 * turn (never the current owner), in the policy's order: the runnable vGPU select() would take
 * next, or, with the fair policy, a vGPU backlogged within the last recent_ns whose start tag
 * on waking would come first (sched_predict.c).  SCHED_NO_VGPU when nobody is a candidate. */
uint32_t sched_predict_next(struct sched *s, uint64_t recent_ns);

#endif
