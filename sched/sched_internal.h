/*
 * sched_internal.h — state shared by the scheduler core (sched.c) and the policies
 * (sched_policy_*.c).  Not for users of the library: include "sched/sched.h".
 */
#ifndef TESSERA_SCHED_SCHED_INTERNAL_H
#define TESSERA_SCHED_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"
#include "sched/sched_heap.h"
#include "sched/sched_list.h"

struct sched_wl {
    uint64_t id;
    uint64_t est_ns;
};

struct sched_vgpu {
    bool present;
    bool suspended; /* sched_vgpu_idle() */
    bool runnable;  /* held by the policy's run queue */
    bool running;   /* owns the current turn */
    bool active;    /* had work since the last metrics reset */
    bool arrived;   /* work arrived on an empty queue since its last turn began */
    uint32_t id;
    uint32_t weight;

    /* FIFO of workloads; the first `inflight` entries have been dispatched. */
    struct sched_wl *ring;
    uint32_t head, count, inflight;
    uint64_t head_start_ns; /* when the oldest in-flight workload began running */
    /* sched_preempted(): the first `resume` queued workloads were on the engine when its turn
     * was cut; the next dispatch takes them all again (they resume, not restart), and the
     * oldest had run resume_ran_ns, which the watchdog keeps counting. */
    uint32_t resume;
    uint64_t resume_ran_ns;
    /* Of the oldest in-flight workload's run since head_start_ns, the part sched_preempted()
     * already charged: a watchdog reset charges only the rest. */
    uint64_t head_charged_ns;
    /* What bringing it back onto the engine costs (sched_vgpu_switch_cost): a preemption on
     * arrival must gain more than that. */
    uint64_t switch_ns;

    /* The current turn. */
    uint64_t quota_ns;
    uint64_t turn_used_ns;
    uint32_t turn_done;   /* workloads completed this turn (the samples) */
    uint64_t turn_est_ns; /* their scanner estimates, summed */
    uint64_t turn_start_ns;
    uint64_t last_done_ns; /* last completion (start of a hold) */
    bool turn_hinted;      /* the turn began with a coscheduling hint */

    /* Per-policy accounting. */
    uint64_t start_tag;   /* fair: virtual start tag (virtual ns) */
    uint64_t vt_rem;      /* fair: remainder of used*1/weight not yet added to the tag */
    int64_t left_ts;      /* rr: time slice left in this balance period */
    int64_t credit;       /* credit */
    bool credit_active;   /* credit: ran or was runnable in the last period */
    uint64_t attained_ns; /* las: decayed attained service */

    /* Interactivity: sync waits counted per window. */
    uint64_t win_start_ns;
    uint32_t win_count;
    uint32_t prev_win_count;
    bool win_started;
    uint64_t svc_waits; /* sync waits and GPU time received, recent (halved together) */
    uint64_t svc_ns;

    /* Backlog: the vGPU wants the GPU while it has work submitted and not completed and is
     * not told to idle (sched_backlog.c).  The open period began at backlog_since; the last
     * one ended at backlog_end_ns. */
    uint64_t backlog_since;
    uint64_t backlog_end_ns;
    bool backlog_seen; /* it has been backlogged at least once */

    struct sched_vgpu_stats st;
};

struct sched_policy_ops {
    const char *name;
    bool predicts; /* dispatch by sampling prediction (else by raw estimates, time-slice style) */
    void (*start)(struct sched *s, uint64_t now);
    void (*advance)(struct sched *s, uint64_t now); /* periodic accounting */
    uint64_t (*next_event)(const struct sched *s);  /* next advance, or NEVER */
    void (*enqueue)(struct sched *s, struct sched_vgpu *v, bool woke);
    void (*dequeue)(struct sched *s, struct sched_vgpu *v);
    struct sched_vgpu *(*select)(struct sched *s); /* removes from the queue */
    uint64_t (*quota)(struct sched *s, struct sched_vgpu *v);
    void (*charge)(struct sched *s, struct sched_vgpu *v, uint64_t used_ns);
    void (*weight_changed)(struct sched *s, struct sched_vgpu *v);
    int64_t (*key)(const struct sched *s, const struct sched_vgpu *v);
    /* The runnable vGPU select() would take now, without taking it (SCHED_NO_VGPU if none):
     * what predictive copying writes ahead for (sched_predict.c). */
    uint32_t (*peek)(const struct sched *s);
};

extern const struct sched_policy_ops sched_policy_fair_ops;
extern const struct sched_policy_ops sched_policy_rr_ops;
extern const struct sched_policy_ops sched_policy_credit_ops;
extern const struct sched_policy_ops sched_policy_las_ops;
const struct sched_policy_ops *sched_policy_ops_of(enum sched_policy p);

struct sched {
    struct sched_config cfg;
    struct sched_clock clock;
    const struct sched_policy_ops *ops;

    struct sched_vgpu *vgpus;
    struct sched_wl *rings;
    uint32_t nvgpus; /* present */

    struct sched_vgpu *cur; /* owner of the current turn */
    uint32_t last_owner;    /* owner of the previous turn, for switch counting */
    uint64_t seq;

    struct sched_heap heap;        /* fair, las */
    struct sched_list_node *nodes; /* rr, credit: list links, indexed by vGPU id */
    struct sched_list lists[2];    /* rr: [0]; credit: [0] UNDER, [1] OVER */

    /* Policy clocks. */
    uint64_t gvt;            /* fair: global virtual time */
    uint64_t next_period_ns; /* rr/credit/las: next periodic accounting */
    uint32_t rr_stage;
    bool started;

    /* Metrics since the last reset. */
    uint64_t metrics_start_ns;
    uint64_t picks, turns, switches, idle_picks, hints, runaways;
};

static inline uint64_t sched_now(const struct sched *s)
{
    return s->clock.now(s->clock.ctx);
}

static inline struct sched_vgpu *sched_vgpu_at(const struct sched *s, uint32_t id)
{
    return &s->vgpus[id];
}

bool sched_interactive_at(const struct sched *s, const struct sched_vgpu *v, uint64_t now);

/* Ends v's turn: charges what it used and puts it back in the run queue if it has work. */
void sched_turn_end(struct sched *s, struct sched_vgpu *v);
/* sched_backlog.c: call before anything that changes v->count or v->suspended (and at a
 * metrics reset): closes the open backlog period up to now, so the time is charged to the
 * state it was spent in. */
void sched_backlog_account(struct sched *s, struct sched_vgpu *v, uint64_t now);
/* Time v has been backlogged since the last metrics reset, the open period included. */
uint64_t sched_backlog_ns(const struct sched *s, const struct sched_vgpu *v, uint64_t now);
bool sched_is_backlogged(const struct sched_vgpu *v);

/* fair: the global virtual time, brought up to date (min start tag of the active vGPUs). */
uint64_t sched_fair_gvt(struct sched *s);
/* fair: GPU time, at cur's weight, by which cur (having used used_ns more than its start tag
 * counts) is ahead of o's start tag in virtual time; 0 if it is not ahead. */
uint64_t sched_fair_lead_ns(const struct sched_vgpu *cur, uint64_t used_ns,
                            const struct sched_vgpu *o);

/* Sum of weights of present, not suspended vGPUs (rr/credit allotments). */
uint64_t sched_weight_sum(const struct sched *s, bool active_only);

#endif
