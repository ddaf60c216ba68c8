/* sched_sim_eval.c — FairGV's measures of a simulated scenario (see sched_sim.h). */
#include "sched/sched_sim.h"

#include <stdlib.h>
#include <string.h>

/* The share ideal: each guest run alone gives its demand; the best of those is the engine's
 * capacity, divided weighted max-min fair. */
static int share_ideal(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                       const struct sched_sim_params *p, uint64_t *ideal)
{
    uint64_t *demand = calloc(n, sizeof(*demand));
    uint32_t *weight = calloc(n, sizeof(*weight));
    int rc = demand && weight ? SCHED_OK : SCHED_ENOMEM;
    struct sched_config alone = *cfg;
    alone.policy = SCHED_POLICY_FAIR;
    uint64_t capacity = 0;
    for (uint32_t i = 0; rc == SCHED_OK && i < n; i++) {
        struct sched_sim_guest one = g[i];
        struct sched_sim_params p1 = *p;
        struct sched_sim_guest_result gr1;
        struct sched_sim_result r;
        if (p1.ncores) {
            one.core = 0;
            p1.ncores = 1;
        }
        rc = sched_sim_run(&alone, &one, 1, &p1, &r, &gr1);
        demand[i] = gr1.gpu_ns;
        weight[i] = g[i].weight;
        if (demand[i] > capacity)
            capacity = demand[i];
    }
    if (rc == SCHED_OK)
        rc = sched_waterfill(weight, demand, n, capacity, ideal);
    free(demand);
    free(weight);
    return rc;
}

int sched_sim_evaluate(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                       const struct sched_sim_params *p, struct sched_sim_eval *ev,
                       struct sched_sim_guest_result *gr)
{
    if (!ev || !gr || n == 0)
        return SCHED_EINVAL;
    memset(ev, 0, sizeof(*ev));
    struct sched_sim_guest_result *gps_r = calloc(n, sizeof(*gps_r));
    uint64_t *gps = calloc(n, sizeof(*gps));
    uint64_t *share = calloc(n, sizeof(*share));
    uint64_t *achieved = calloc(n, sizeof(*achieved));
    int rc = (gps_r && gps && share && achieved) ? SCHED_OK : SCHED_ENOMEM;
    struct sched_sim_result r;

    if (rc == SCHED_OK)
        rc = sched_sim_run_ideal(cfg, g, n, p, &r, gps_r);
    if (rc == SCHED_OK)
        rc = share_ideal(cfg, g, n, p, share);
    if (rc == SCHED_OK)
        rc = sched_sim_run(cfg, g, n, p, &r, gr);
    if (rc == SCHED_OK) {
        uint64_t sum_gps = 0, sum_share = 0, sum_ach = 0;
        for (uint32_t i = 0; i < n; i++) {
            gps[i] = gps_r[i].gpu_ns;
            achieved[i] = gr[i].gpu_ns;
            sum_gps += gps[i];
            sum_share += share[i];
            sum_ach += achieved[i];
            ev->hints += gr[i].hints;
        }
        sched_fairness(achieved, share, n, &ev->mmr_ppm, &ev->jain_ppm);
        sched_fairness(achieved, gps, n, &ev->mmr_gps_ppm, &ev->jain_gps_ppm);
        ev->overhead_ppm = sched_ratio_ppm(sum_share, sum_ach);
        ev->overhead_gps_ppm = sched_ratio_ppm(sum_gps, sum_ach);
        ev->utilisation_ppm = sched_ratio_ppm(r.busy_ns, r.window_ns);
        ev->switches = r.switches;
    }
    free(gps_r);
    free(gps);
    free(share);
    free(achieved);
    return rc;
}
