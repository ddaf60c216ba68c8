/*
 * sched_policy_las.c — least attained service (Rain, §4.2.1), kept as a baseline.
 *
 * The runnable vGPU that has attained the least GPU time runs next (a heap, O(log n)).  The
 * history decays: every cfg.las_decay_ns all attained service is halved, so "least" means
 * "least recently" and a vGPU that used the GPU long ago is not starved of it.  Rain designed
 * LAS for throughput, not for fairness: it ignores weights and gives a vGPU that slept
 * priority when it comes back (its history decayed meanwhile).  Turns last one slice (6 ms).
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

static void las_start(struct sched *s, uint64_t now)
{
    s->next_period_ns = now + s->cfg.las_decay_ns;
}

static void las_decay(struct sched *s)
{
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++)
        s->vgpus[i].attained_ns >>= 1;
    sched_heap_halve_keys(&s->heap); /* the heap holds copies of the keys */
}

static void las_advance(struct sched *s, uint64_t now)
{
    if (now < s->next_period_ns)
        return;
    uint64_t period = s->cfg.las_decay_ns;
    uint64_t periods = (now - s->next_period_ns) / period + 1;
    uint64_t runs = periods < 64 ? periods : 64; /* 64 halvings clear any history */
    for (uint64_t i = 0; i < runs; i++)
        las_decay(s);
    s->next_period_ns += periods * period;
}

static uint64_t las_next_event(const struct sched *s)
{
    (void)s;
    return SCHED_NEVER; /* decay never makes an idle engine busy */
}

static void las_enqueue(struct sched *s, struct sched_vgpu *v, bool woke)
{
    (void)woke;
    sched_heap_push(&s->heap, v->id, v->attained_ns, ++s->seq);
}

static void las_dequeue(struct sched *s, struct sched_vgpu *v)
{
    sched_heap_remove(&s->heap, v->id);
}

static struct sched_vgpu *las_select(struct sched *s)
{
    uint32_t id = sched_heap_pop(&s->heap);
    return id == UINT32_MAX ? NULL : &s->vgpus[id];
}

static uint64_t las_quota(struct sched *s, struct sched_vgpu *v)
{
    (void)v;
    return s->cfg.slice_ns;
}

static void las_charge(struct sched *s, struct sched_vgpu *v, uint64_t used)
{
    (void)s;
    v->attained_ns = sched_sat_add(v->attained_ns, used);
}

static void las_weight_changed(struct sched *s, struct sched_vgpu *v)
{
    (void)s;
    (void)v; /* las ignores weights */
}

static int64_t las_key(const struct sched *s, const struct sched_vgpu *v)
{
    (void)s;
    return (int64_t)(v->attained_ns > INT64_MAX ? INT64_MAX : v->attained_ns);
}

static uint32_t las_peek(const struct sched *s)
{
    const struct sched_heap_entry *top = sched_heap_top(&s->heap);
    return top ? top->id : SCHED_NO_VGPU;
}

const struct sched_policy_ops sched_policy_las_ops = {
    .name = "las",
    .predicts = true,
    .start = las_start,
    .advance = las_advance,
    .next_event = las_next_event,
    .enqueue = las_enqueue,
    .dequeue = las_dequeue,
    .select = las_select,
    .quota = las_quota,
    .charge = las_charge,
    .weight_changed = las_weight_changed,
    .key = las_key,
    .peek = las_peek,
};
