/*
 * sched_policy_rr.c — GVT-g style round robin, kept as a baseline for comparison.
 *
 * Runnable vGPUs wait in one FIFO; a turn lasts up to 16 ms (cfg.rr_slice_ns).  Weights act
 * through time-slice balancing: every 100 ms (cfg.rr_balance_ns) each vGPU is allotted
 * period * weight / total weight, added to what it has left; a vGPU whose left time slice is
 * used up is skipped until the next balance.  Every cfg.rr_reset_periods periods the balance
 * sets the left time slices afresh instead of adding, which forgives debts and forgets unused
 * time.  When every backlogged vGPU has used its time slice the engine stays idle until the
 * next balance: this policy does not conserve work, as in GVT-g.  Picking scans the FIFO, O(n).
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

static void rr_balance(struct sched *s)
{
    uint64_t period = s->cfg.rr_balance_ns;
    uint64_t total = sched_weight_sum(s, false);
    bool reset = s->rr_stage == 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus && total; i++) {
        struct sched_vgpu *v = &s->vgpus[i];
        if (!v->present || v->suspended)
            continue;
        int64_t alloc = (int64_t)sched_muldiv(period, v->weight, total);
        v->left_ts = reset ? alloc : v->left_ts + alloc;
    }
    s->rr_stage = (s->rr_stage + 1) % s->cfg.rr_reset_periods;
}

static void rr_start(struct sched *s, uint64_t now)
{
    s->rr_stage = 0;
    s->next_period_ns = now; /* the first pick balances */
}

static void rr_advance(struct sched *s, uint64_t now)
{
    if (now < s->next_period_ns)
        return;
    uint64_t period = s->cfg.rr_balance_ns;
    uint64_t periods = (now - s->next_period_ns) / period + 1;
    /* After a long gap a full cycle of balances (ending in a reset) is all that matters. */
    uint64_t runs = periods < s->cfg.rr_reset_periods ? periods : s->cfg.rr_reset_periods;
    for (uint64_t i = 0; i < runs; i++)
        rr_balance(s);
    s->next_period_ns += periods * period;
}

static uint64_t rr_next_event(const struct sched *s)
{
    return s->next_period_ns;
}

static void rr_enqueue(struct sched *s, struct sched_vgpu *v, bool woke)
{
    (void)woke;
    sched_list_append(&s->lists[0], v->id);
}

static void rr_dequeue(struct sched *s, struct sched_vgpu *v)
{
    sched_list_remove(&s->lists[0], v->id);
}

static struct sched_vgpu *rr_select(struct sched *s)
{
    /* The first vGPU in FIFO order that has time slice left. */
    for (uint32_t id = s->lists[0].head; id != SCHED_LIST_NIL; id = s->nodes[id].next) {
        if (s->vgpus[id].left_ts > 0) {
            sched_list_remove(&s->lists[0], id);
            return &s->vgpus[id];
        }
    }
    return NULL;
}

static uint64_t rr_quota(struct sched *s, struct sched_vgpu *v)
{
    (void)v;
    return s->cfg.rr_slice_ns;
}

static void rr_charge(struct sched *s, struct sched_vgpu *v, uint64_t used)
{
    (void)s;
    int64_t u = used > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)used;
    v->left_ts = v->left_ts < INT64_MIN / 2 ? v->left_ts : v->left_ts - u;
}

static void rr_weight_changed(struct sched *s, struct sched_vgpu *v)
{
    (void)s;
    (void)v; /* takes effect at the next balance */
}

static int64_t rr_key(const struct sched *s, const struct sched_vgpu *v)
{
    (void)s;
    return v->left_ts;
}

/* What rr_select() would take: the first in FIFO order with time slice left. */
static uint32_t rr_peek(const struct sched *s)
{
    for (uint32_t id = s->lists[0].head; id != SCHED_LIST_NIL; id = s->nodes[id].next)
        if (s->vgpus[id].left_ts > 0)
            return id;
    return SCHED_NO_VGPU;
}

const struct sched_policy_ops sched_policy_rr_ops = {
    .name = "rr",
    .predicts = false,
    .start = rr_start,
    .advance = rr_advance,
    .next_event = rr_next_event,
    .enqueue = rr_enqueue,
    .dequeue = rr_dequeue,
    .select = rr_select,
    .quota = rr_quota,
    .charge = rr_charge,
    .weight_changed = rr_weight_changed,
    .key = rr_key,
    .peek = rr_peek,
};
