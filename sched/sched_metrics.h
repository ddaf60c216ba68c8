/*
 * sched_metrics.h — fairness and throughput measures of the render scheduler.
 *
 * Ratios are fixed point in parts per million (SCHED_PPM == 1.0): the library runs inside the
 * hypervisor, where floating point would mean saving guest FPU state, so it never uses it.
 *
 *  - share vs. weight: a vGPU's part of the GPU time against its part of the weights;
 *  - backlog: which vGPUs wanted the GPU during the interval (work submitted and not completed
 *    for at least cfg.backlog_min_ppm of it); only those are judged: the GPU time they received
 *    together, divided among them by weight, is each one's ideal.  A vGPU that asked for less
 *    got what it asked for and says nothing about fairness (docs/sched.md "Metrics");
 *  - Min-Max Ratio (FairGV, after Pisces): x_i = achieved_i / ideal_i, MMR = min x / max x;
 *  - Jain's index (Rain): (sum x)^2 / (n * sum x^2);
 *  - aggregated overhead (FairGV): ideal aggregate throughput / achieved aggregate throughput;
 *  - switches, turns, runaways, dropped workloads.
 */
#ifndef TESSERA_SCHED_SCHED_METRICS_H
#define TESSERA_SCHED_SCHED_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched;

struct sched_vgpu_stats {
    uint32_t weight;
    bool interactive;
    uint64_t gpu_ns;    /* GPU time charged since the last metrics reset */
    uint64_t workloads; /* completed */
    uint64_t turns;
    uint64_t overrun_ns; /* time used beyond the turn's quota, summed over turns */
    uint64_t hints;      /* coscheduling hints emitted */
    uint32_t runaways;
    uint64_t dropped;          /* workloads dropped by sched_vgpu_reset */
    uint64_t backlog_ns;       /* time it had work submitted and not completed (not idled) */
    bool backlogged;           /* backlogged for cfg.backlog_min_ppm of the interval: counted
                                 * in MMR, Jain and ideal */
    uint32_t share_ppm;        /* gpu_ns / total gpu_ns of all vGPUs */
    uint32_t weight_share_ppm; /* backlogged: weight / total weight of the backlogged vGPUs;
                                 * else 0 */
    uint32_t ideal_ppm;        /* backlogged: the part of all GPU time it should have had: the
                                 * GPU time the backlogged vGPUs received, divided by weight;
                                 * else 0 (it got what it asked for) */
};

struct sched_metrics {
    uint32_t vgpus;           /* present */
    uint32_t active;          /* had work since the last reset */
    uint64_t elapsed_ns;      /* since the last reset */
    uint64_t busy_ns;         /* GPU time charged to all vGPUs */
    uint32_t utilisation_ppm; /* busy / elapsed */
    uint64_t picks;           /* DISPATCH decisions */
    uint64_t turns;
    uint64_t switches; /* turns whose owner differs from the previous turn's */
    uint64_t idle_picks;
    uint64_t hints;
    uint64_t runaways;
    uint32_t backlogged; /* counted in the fairness figures (see sched_vgpu_stats) */
    uint32_t mmr_ppm;    /* over the backlogged vGPUs: achieved / ideal, min / max */
    uint32_t jain_ppm;   /* over the same ratios */
};

int sched_vgpu_stats_get(const struct sched *s, uint32_t vgpu, struct sched_vgpu_stats *out);
int sched_metrics_get(const struct sched *s, struct sched_metrics *out);
void sched_metrics_reset(struct sched *s);

/* Pure helpers (also used by the simulator and the benchmark). */

/* MMR and Jain's index of x_i = achieved[i] / ideal[i] over entries with ideal[i] > 0.
 * Returns the number of entries used (0: both outputs are set to SCHED_PPM). */
size_t sched_fairness(const uint64_t *achieved, const uint64_t *ideal, size_t n, uint32_t *mmr_ppm,
                      uint32_t *jain_ppm);

/* Weighted max-min fair division ("water filling") of capacity among n consumers, each
 * wanting at most demand[i]: nobody gets more than it wants, and what the satisfied leave
 * is shared among the others in proportion to weight.  Returns SCHED_OK or SCHED_EINVAL. */
int sched_waterfill(const uint32_t *weight, const uint64_t *demand, size_t n, uint64_t capacity,
                    uint64_t *share_out);

/* ideal / achieved in ppm (1.0 == no overhead); SCHED_PPM when achieved is 0 and ideal 0. */
uint32_t sched_ratio_ppm(uint64_t num, uint64_t den);

#endif
