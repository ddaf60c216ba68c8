#include "vmm/vcpu/cpu_share.h"

#include <string.h>

#define WEIGHT_UNIT 100u /* the weight that gets one configured slice */

void cpu_share_init(struct cpu_share *s, uint64_t now_ns)
{
    memset(s, 0, sizeof *s);
    s->next_period_ns = now_ns + CPU_SHARE_PERIOD_NS;
}

void cpu_share_set_weight(struct cpu_share *s, unsigned id, uint32_t weight)
{
    if (id < CPU_SHARE_MAX)
        s->weight[id] = weight;
}

void cpu_share_tick(struct cpu_share *s, uint64_t now_ns, const uint64_t *total, unsigned n)
{
    if (now_ns < s->next_period_ns)
        return;
    /* One halving per call, however late: a loop that was away long forgets at most half. */
    for (unsigned i = 0; i < n && i < CPU_SHARE_MAX; i++) {
        uint64_t used = total[i] >= s->last[i] ? total[i] - s->last[i] : 0;
        s->recent[i] = (s->recent[i] + used) / 2;
        s->last[i] = total[i];
    }
    s->next_period_ns = now_ns + CPU_SHARE_PERIOD_NS;
}

uint64_t cpu_share_load(const struct cpu_share *s, unsigned id, uint64_t total)
{
    if (id >= CPU_SHARE_MAX || !s->weight[id])
        return UINT64_MAX;
    uint64_t used = s->recent[id] + (total >= s->last[id] ? total - s->last[id] : 0);
    /* ns of CPU in a period fit 40 bits, weights 16: no overflow. */
    return used * WEIGHT_UNIT / s->weight[id];
}

bool cpu_share_owed(const struct cpu_share *s, unsigned waiter, uint64_t waiter_total,
                    unsigned runner, uint64_t runner_total)
{
    return waiter != runner &&
           cpu_share_load(s, waiter, waiter_total) < cpu_share_load(s, runner, runner_total);
}
