/*
 * sched_preempt.c — cutting a turn short while its workloads are still running (sched.h,
 * "Preemption").  Non-preemptive accounting (FairGV §3.3) lets a turn overrun by a whole
 * workload and makes the owner pay afterwards; with workloads of 100 ms that is 100 ms of
 * waiting for every other vGPU each time.  An engine that can leave a context at an arbitration
 * point removes the overrun: the owner is charged exactly what it used, its unfinished
 * workloads wait at the head of its queue, and the fair policy picks whoever is owed the GPU.
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

bool sched_preempt_due(struct sched *s, uint64_t running_ns)
{
    struct sched_vgpu *v = s ? s->cur : NULL;
    if (!v || v->inflight == 0)
        return false;
    uint64_t used = sched_sat_add(v->turn_used_ns, running_ns);
    bool spent = used >= v->quota_ns;
    /* Preemption on arrival (docs/sched.md): WFQ serves the smallest start tag first, and a
     * preemptive engine need not make a newcomer that is owed the GPU wait for the slice's
     * end.  Only arrivals count, so vGPUs that stay backlogged still take turns of a slice and
     * the switch rate does not grow; the lag keeps a turn from being cut for less than that,
     * and the owner's switch cost for less than cutting it costs: the owner comes back later,
     * and what bringing it back costs the engine is lost to everyone.  Under an emulator 32
     * starting guests with 32 + 64 MiB each cost about 40 ms of GGTT copying per switch-in;
     * with the lag alone every arrival cut the others' first frames, each cut one waited
     * behind all later arrivals, and the copying made that seconds. */
    bool by_lag = s->cfg.policy == SCHED_POLICY_FAIR && s->cfg.preempt_lag_ns > 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        const struct sched_vgpu *o = &s->vgpus[i];
        if (o == v || !o->present || !o->runnable || o->suspended)
            continue;
        if (spent ||
            (by_lag && o->arrived &&
             sched_fair_lead_ns(v, used, o) > sched_sat_add(s->cfg.preempt_lag_ns, v->switch_ns)))
            return true;
    }
    return false;
}

/* The engine left vgpu's context with workloads unfinished: charged, and they resume first. */
static int leave(struct sched *s, uint32_t vgpu, uint64_t used_ns, bool end_turn)
{
    if (!s || vgpu >= s->cfg.max_vgpus || !s->vgpus[vgpu].present)
        return SCHED_ENOENT;
    struct sched_vgpu *v = &s->vgpus[vgpu];
    if (!v->running || v->inflight == 0)
        return SCHED_ESTATE;
    uint64_t now = sched_now(s);
    v->turn_used_ns = sched_sat_add(v->turn_used_ns, used_ns);
    v->st.gpu_ns = sched_sat_add(v->st.gpu_ns, used_ns);
    v->svc_ns = sched_sat_add(v->svc_ns, used_ns);
    v->resume = v->inflight;
    v->resume_ran_ns = now > v->head_start_ns ? now - v->head_start_ns : 0;
    v->inflight = 0;
    if (end_turn)
        sched_turn_end(s, v);
    return SCHED_OK;
}

int sched_preempted(struct sched *s, uint32_t vgpu, uint64_t used_ns)
{
    return leave(s, vgpu, used_ns, true);
}

int sched_paused(struct sched *s, uint32_t vgpu, uint64_t used_ns)
{
    return leave(s, vgpu, used_ns, false);
}

int sched_vgpu_switch_cost(struct sched *s, uint32_t vgpu, uint64_t ns)
{
    if (!s || vgpu >= s->cfg.max_vgpus || !s->vgpus[vgpu].present)
        return SCHED_ENOENT;
    s->vgpus[vgpu].switch_ns = ns;
    return SCHED_OK;
}
