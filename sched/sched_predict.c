/*
 * sched_predict.c — which vGPU will own the engine after the current turn, in the policy's
 * own order, so that its graphics memory can be written ahead while the current one runs
 * (gtt_predict; docs/vgpu.md, predictive copying).
 *
 * The runnable vGPUs are in the policy's run queue: the one select() would take next is the
 * first candidate.  Guests that submit one frame at a time are rarely runnable when a turn
 * starts (their queue is empty until their next frame), so for the fair policy the vGPUs that
 * were backlogged within the last `recent_ns` count too, each with the start tag it would have
 * on waking: max(its own tag, global virtual time), which is where the wake-up rule puts it.
 * The smallest tag wins; a runnable vGPU wins ties (it was queued first, and the heap serves
 * ties first come first served), and among waking ones the one whose backlog ended first
 * (periodic guests wake in that order).  O(n) in the vGPUs, once per turn.
 */
#include "sched/sched_internal.h"

uint32_t sched_predict_next(struct sched *s, uint64_t recent_ns)
{
    if (!s)
        return SCHED_NO_VGPU;
    uint32_t best = s->ops->peek(s);
    if (s->cfg.policy != SCHED_POLICY_FAIR || recent_ns == 0)
        return best;
    uint64_t now = sched_now(s), gvt = sched_fair_gvt(s);
    uint64_t best_key = best != SCHED_NO_VGPU ? s->vgpus[best].start_tag : SCHED_NEVER;
    bool best_waking = false;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        const struct sched_vgpu *v = &s->vgpus[i];
        if (!v->present || v->runnable || v->running || v->suspended || v->count > 0 ||
            !v->backlog_seen || now - v->backlog_end_ns > recent_ns || now < v->backlog_end_ns)
            continue;
        uint64_t key = v->start_tag > gvt ? v->start_tag : gvt;
        bool better = key < best_key || (key == best_key && best_waking &&
                                         v->backlog_end_ns < s->vgpus[best].backlog_end_ns);
        if (better || best == SCHED_NO_VGPU) {
            best = i;
            best_key = key;
            best_waking = true;
        }
    }
    return best;
}
