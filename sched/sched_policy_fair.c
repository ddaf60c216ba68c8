/*
 * sched_policy_fair.c — weighted fair queuing in virtual time (docs/sched.md, FairGV §3.2.1).
 *
 * Each vGPU has a start tag in virtual nanoseconds.  The runnable vGPU with the smallest start
 * tag runs next (a heap: O(log n) to take it out and to put it back).  After a turn that used
 * L ns of GPU time the finish tag is start + L / weight and becomes the new start tag, so a
 * vGPU that overran its slice on the non-preemptive engine simply waits longer for its next
 * turn: it pays back the overrun.  The global virtual time is the minimum start tag of the
 * active (runnable or running) vGPUs; a vGPU that wakes up gets start = max(own, virtual
 * time), so sleeping earns no credit.
 *
 * Tags are plain integers; the division remainder is carried per vGPU, so long runs accumulate
 * no rounding drift.  At weight 1 a tag wraps after 2^64 ns of GPU time (~584 years).
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

uint64_t sched_fair_gvt(struct sched *s)
{
    uint64_t m = SCHED_NEVER;
    const struct sched_heap_entry *top = sched_heap_top(&s->heap);
    if (top)
        m = top->key;
    if (s->cur && s->cur->start_tag < m)
        m = s->cur->start_tag;
    /* With nobody active the virtual time stands still; it never goes backwards. */
    if (m != SCHED_NEVER && m > s->gvt)
        s->gvt = m;
    return s->gvt;
}

uint64_t sched_fair_lead_ns(const struct sched_vgpu *cur, uint64_t used_ns,
                            const struct sched_vgpu *o)
{
    /* cur's finish tag if its turn ended now, as fair_charge() would make it. */
    uint64_t finish = sched_sat_add(cur->start_tag,
                                    sched_sat_add(used_ns, cur->vt_rem) / cur->weight);
    if (finish <= o->start_tag)
        return 0;
    uint64_t lead = finish - o->start_tag;
    return lead > UINT64_MAX / cur->weight ? UINT64_MAX : lead * cur->weight;
}

static void fair_start(struct sched *s, uint64_t now)
{
    (void)now;
    s->gvt = 0;
}

static void fair_advance(struct sched *s, uint64_t now)
{
    (void)s;
    (void)now;
}

static uint64_t fair_next_event(const struct sched *s)
{
    (void)s;
    return SCHED_NEVER;
}

static void fair_enqueue(struct sched *s, struct sched_vgpu *v, bool woke)
{
    if (woke) {
        uint64_t gvt = sched_fair_gvt(s);
        if (v->start_tag < gvt)
            v->start_tag = gvt;
    }
    sched_heap_push(&s->heap, v->id, v->start_tag, ++s->seq);
}

static void fair_dequeue(struct sched *s, struct sched_vgpu *v)
{
    sched_heap_remove(&s->heap, v->id);
}

static struct sched_vgpu *fair_select(struct sched *s)
{
    uint32_t id = sched_heap_pop(&s->heap);
    return id == UINT32_MAX ? NULL : &s->vgpus[id];
}

static uint64_t fair_quota(struct sched *s, struct sched_vgpu *v)
{
    (void)v;
    return s->cfg.slice_ns;
}

static void fair_charge(struct sched *s, struct sched_vgpu *v, uint64_t used)
{
    (void)s;
    uint64_t total = sched_sat_add(used, v->vt_rem);
    uint64_t finish = sched_sat_add(v->start_tag, total / v->weight);
    v->vt_rem = total % v->weight;
    v->start_tag = finish;
}

static void fair_weight_changed(struct sched *s, struct sched_vgpu *v)
{
    (void)s;
    /* Past usage stays charged at the old weight; the remainder was in old-weight units. */
    v->vt_rem = 0;
}

static int64_t fair_key(const struct sched *s, const struct sched_vgpu *v)
{
    (void)s;
    return (int64_t)(v->start_tag > INT64_MAX ? INT64_MAX : v->start_tag);
}

static uint32_t fair_peek(const struct sched *s)
{
    const struct sched_heap_entry *top = sched_heap_top(&s->heap);
    return top ? top->id : SCHED_NO_VGPU;
}

const struct sched_policy_ops sched_policy_fair_ops = {
    .name = "fair",
    .predicts = true,
    .start = fair_start,
    .advance = fair_advance,
    .next_event = fair_next_event,
    .enqueue = fair_enqueue,
    .dequeue = fair_dequeue,
    .select = fair_select,
    .quota = fair_quota,
    .charge = fair_charge,
    .weight_changed = fair_weight_changed,
    .key = fair_key,
    .peek = fair_peek,
};
