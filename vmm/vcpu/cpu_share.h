/* Which guest is owed the CPU.  On the software GPU model a guest's rendering runs
 * on the CPU that runs the vCPUs, so a guest whose GPU work eats CPU must pay for it out of its
 * own CPU share, not its neighbour's.  A guest's load is the CPU it used recently — its vCPU's
 * time plus the rendering done for it — over its weight, halved every period so that old use
 * is forgotten (a guest that slept long gets no unbounded credit).  Pure: the caller passes
 * each guest's cumulative CPU time and the clock. */
#ifndef TESSERA_VMM_VCPU_CPU_SHARE_H
#define TESSERA_VMM_VCPU_CPU_SHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/limits.h" /* TESSERA_MAX_GUESTS */

#define CPU_SHARE_MAX       TESSERA_MAX_GUESTS
#define CPU_SHARE_PERIOD_NS 100000000ull /* recent use halves every 100 ms */

struct cpu_share {
    uint64_t next_period_ns;
    uint64_t last[CPU_SHARE_MAX];   /* cumulative CPU ns at the last period */
    uint64_t recent[CPU_SHARE_MAX]; /* decayed use up to the last period */
    uint32_t weight[CPU_SHARE_MAX]; /* 0: not a guest */
};

void cpu_share_init(struct cpu_share *s, uint64_t now_ns);
/* Guest `id` takes part with this weight (its render weight; 100 = one configured slice). */
void cpu_share_set_weight(struct cpu_share *s, unsigned id, uint32_t weight);
/* Ages the recent use once a period has passed; total[id] is guest id's cumulative CPU ns. */
void cpu_share_tick(struct cpu_share *s, uint64_t now_ns, const uint64_t *total, unsigned n);
/* Guest id's recent CPU use over its weight (comparable between guests); total as above. */
uint64_t cpu_share_load(const struct cpu_share *s, unsigned id, uint64_t total);
/* True when guest `waiter` has used less than guest `runner` (by weight), so it is owed the
 * CPU that runner's vCPU or rendering holds now. */
bool cpu_share_owed(const struct cpu_share *s, unsigned waiter, uint64_t waiter_total,
                    unsigned runner, uint64_t runner_total);

#endif
