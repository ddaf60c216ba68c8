/*
 * sched_sim.h — a trace-driven, discrete-event simulator of guests sharing one render engine
 * through the scheduler.  The host tests assert properties with it and the benchmark compares
 * the policies on FairGV's scenarios.  Pure and deterministic (seeded): no clock, no I/O.
 *
 * The model:
 *  - Each guest has one vCPU on a CPU core and loops: think (CPU time), then submit `burst`
 *    workloads.  A sync guest then waits for them (a sync wait, reported to the scheduler) —
 *    that is FairGV's CPU-GPU interactive case; an async guest goes on at once and only blocks
 *    while max_outstanding workloads are queued.  An optional duty cycle makes a guest sleep
 *    off_ns after every on_ns of activity (non-saturating guests); it waits for its queued
 *    work to finish before it sleeps.
 *  - A core runs the thinking of its guests one after another, in request order; a guest
 *    whose vGPU was just picked with a coscheduling hint goes first for boost_ns.
 *  - Workload GPU times come from a size table (given directly, or from the iGPU model's cost
 *    model by the caller); the scanner's estimate is the real time off by up to est_error_pct.
 *  - The engine runs a dispatched batch back to back.  Each dispatch costs dispatch_ns of idle
 *    engine (completion interrupt, pick, ELSP write) and each change of owner switch_ns more
 *    (context and graphics-memory switch).  Both are parameters, not measurements.
 *  - A render-loop timer every tick_ns runs the watchdog; a runaway is reset as the VMM would.
 */
#ifndef TESSERA_SCHED_SCHED_SIM_H
#define TESSERA_SCHED_SCHED_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/sched.h"

#define SCHED_SIM_MAX_SIZES 16

struct sched_sim_size {
    uint64_t ns;   /* GPU time of the workload */
    uint32_t freq; /* relative frequency in the guest's mix */
};

struct sched_sim_guest {
    uint32_t weight;
    struct sched_sim_size sizes[SCHED_SIM_MAX_SIZES];
    uint32_t nsizes;
    uint32_t est_error_pct;   /* estimate = actual * (1 +- up to this %) */
    bool est_unknown;         /* the scanner gives no estimate (0) */
    bool sync;                /* wait for each burst (CPU-GPU interactive) */
    uint32_t burst;           /* workloads per iteration, >= 1 */
    uint64_t think_ns;        /* CPU time per iteration */
    uint32_t max_outstanding; /* async: block at this many queued + in flight */
    uint64_t on_ns, off_ns;   /* duty cycle; on_ns == 0: always active */
    uint32_t core;            /* CPU core of its vCPU (ignored when ncores == 0) */
    uint64_t runaway_at_ns;   /* submit one runaway workload at this time (0: never) */
    uint64_t runaway_ns;      /* its GPU time */
};

struct sched_sim_params {
    uint64_t duration_ns;
    uint64_t warmup_ns; /* results count from here on */
    uint64_t switch_ns;
    uint64_t dispatch_ns;
    uint64_t tick_ns;  /* render-loop timer */
    uint64_t boost_ns; /* how long a coscheduling hint boosts the vCPU */
    uint32_t ncores;   /* 0: every guest has a core of its own */
    uint64_t seed;
};
void sched_sim_params_default(struct sched_sim_params *p);

struct sched_sim_guest_result {
    uint64_t gpu_ns; /* GPU time of workloads completed in the measured window */
    uint64_t workloads;
    uint64_t sync_waits;
    uint64_t hints;
    uint64_t resets;
    uint64_t dropped;
};

struct sched_sim_result {
    uint64_t window_ns;   /* duration - warmup */
    uint64_t busy_ns;     /* useful GPU time, all guests */
    uint64_t switch_ns;   /* engine time lost to owner switches */
    uint64_t dispatch_ns; /* engine time lost to dispatch gaps */
    uint64_t switches;
    uint64_t dispatches;
    uint64_t picks; /* sched_pick calls */
    uint64_t events;
};

/* Runs the guests (ids 0..n-1) under the configuration; gr has n entries.  Returns SCHED_OK
 * or an error from the scheduler (SCHED_EINVAL for bad guests or parameters). */
int sched_sim_run(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                  const struct sched_sim_params *p, struct sched_sim_result *r,
                  struct sched_sim_guest_result *gr);

/* The same guests on an ideal engine instead of scheduler + engine: generalised processor
 * sharing — every backlogged guest is served at once at weight / total backlogged weight,
 * with no switch or dispatch cost.  This is the fluid reference that fair queuing imitates,
 * and it keeps the guests' closed-loop behaviour (think times, sync waits, sleeps, CPU
 * contention), so it is the ideal for bursty and interactive guests too.  cfg supplies only
 * queue_depth. */
int sched_sim_run_ideal(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                        const struct sched_sim_params *p, struct sched_sim_result *r,
                        struct sched_sim_guest_result *gr);

/*
 * FairGV's measures for one scenario and policy.  x_i = achieved GPU time / ideal GPU time,
 * against two ideals, because no single one suits every kind of guest:
 *  - "share" ideal (FairGV's): each guest's demand is its standalone rate (run alone, same
 *    parameters); the ideal is the weighted max-min fair division of the best standalone rate
 *    (sched_waterfill).  Right for guests whose demand is steady (saturating, interactive);
 *    wrong for guests that sleep in bursts, which need their share while awake.
 *  - "gps" ideal: the ideal engine's run (sched_sim_run_ideal).  Right for bursty guests;
 *    for closed-loop interactive guests the fluid engine itself departs from the weights
 *    (a heavy guest finishes sooner and spends more of its time thinking).
 * MMR, Jain's index and the aggregated overhead (ideal total / achieved total) are given
 * against both.  Against the share ideal the overhead is FairGV's: standalone runs already
 * pay their own dispatch gaps and think times.  Against the gps ideal it is stricter: the
 * ideal engine fills every gap with another guest's work at no switch cost.  Utilisation is
 * useful GPU time over the window.
 */
struct sched_sim_eval {
    uint32_t mmr_ppm; /* against the share ideal */
    uint32_t jain_ppm;
    uint32_t mmr_gps_ppm; /* against the gps ideal */
    uint32_t jain_gps_ppm;
    uint32_t overhead_ppm;     /* against the share ideal (FairGV's) */
    uint32_t overhead_gps_ppm; /* against the gps ideal */
    uint32_t utilisation_ppm;
    uint64_t switches;
    uint64_t hints;
};
int sched_sim_evaluate(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                       const struct sched_sim_params *p, struct sched_sim_eval *ev,
                       struct sched_sim_guest_result *gr);

#endif
