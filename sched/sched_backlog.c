/*
 * sched_backlog.c — when each vGPU wanted the GPU.
 *
 * A vGPU is backlogged while it has work submitted and not completed (queued or on the
 * engine) and is not told to idle.  The time it spends so is what tells a vGPU that competed
 * for the GPU from one that asked for a frame now and then: the fairness figures count only
 * the first kind (sched_metrics.c, docs/sched.md "Metrics"), and predictive copying looks at
 * vGPUs that were backlogged recently (sched_predict.c).
 *
 * Accounting is O(1) per change: the open period is closed whenever the count of work or the
 * suspension changes, and at a metrics reset.
 */
#include "sched/sched_internal.h"

bool sched_is_backlogged(const struct sched_vgpu *v)
{
    return v->present && v->count > 0 && !v->suspended;
}

void sched_backlog_account(struct sched *s, struct sched_vgpu *v, uint64_t now)
{
    (void)s;
    if (sched_is_backlogged(v)) {
        if (now > v->backlog_since)
            v->st.backlog_ns += now - v->backlog_since;
        v->backlog_end_ns = now;
        v->backlog_seen = true;
    }
    v->backlog_since = now;
}

uint64_t sched_backlog_ns(const struct sched *s, const struct sched_vgpu *v, uint64_t now)
{
    (void)s;
    uint64_t t = v->st.backlog_ns;
    if (sched_is_backlogged(v) && now > v->backlog_since)
        t += now - v->backlog_since;
    return t;
}
