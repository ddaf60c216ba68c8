/*
 * sched_policy_credit.c — a credit scheduler after Xen's credit1, kept as a baseline
 * (FairGV's "Credit" comparison; Pegasus and GPUvm use credit scheduling for GPUs).
 *
 * Every accounting period (30 ms) each active vGPU — one that was runnable or ran during the
 * period — earns period * weight / total active weight of credit.  Credit is capped at one
 * period's earning (no hoarding while idle) and debt is floored at one slice.  vGPUs with
 * credit >= 0 are UNDER, the others OVER; UNDER vGPUs are served round robin first, then OVER
 * ones (so the engine never idles while work is queued).  Xen debits the running vCPU every
 * 10 ms tick and preempts it at the tick where it runs out of credit; at turn granularity that
 * is a turn as long as the credit, rounded up to whole ticks, at least one tick and at most one
 * slice (30 ms).  The GPU time actually used is debited at the turn's end.  Picking is O(1);
 * accounting O(n) per period.
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

enum { UNDER = 0, OVER = 1 };

static int klass(const struct sched_vgpu *v)
{
    return v->credit >= 0 ? UNDER : OVER;
}

static void credit_account(struct sched *s)
{
    uint64_t period = s->cfg.credit_period_ns;
    int64_t cap = (int64_t)s->cfg.credit_slice_ns, floor = -cap;
    if (s->cur)
        s->cur->credit_active = true;
    uint64_t total = sched_weight_sum(s, true);
    for (uint32_t i = 0; i < s->cfg.max_vgpus && total; i++) {
        struct sched_vgpu *v = &s->vgpus[i];
        if (!v->present || v->suspended || !v->credit_active)
            continue;
        int64_t alloc = (int64_t)sched_muldiv(period, v->weight, total);
        v->credit += alloc;
        if (v->credit > cap)
            v->credit = cap;
        if (v->credit < floor)
            v->credit = floor;
        /* Earned its way back: from OVER to the tail of UNDER. */
        if (v->runnable && sched_list_contains(&s->lists[OVER], v->id) && klass(v) == UNDER) {
            sched_list_remove(&s->lists[OVER], v->id);
            sched_list_append(&s->lists[UNDER], v->id);
        }
    }
    /* Activity is judged afresh each period. */
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        struct sched_vgpu *v = &s->vgpus[i];
        v->credit_active = v->present && (v->runnable || v->running);
    }
}

static void credit_start(struct sched *s, uint64_t now)
{
    s->next_period_ns = now + s->cfg.credit_period_ns;
}

static void credit_advance(struct sched *s, uint64_t now)
{
    if (now < s->next_period_ns)
        return;
    uint64_t period = s->cfg.credit_period_ns;
    uint64_t periods = (now - s->next_period_ns) / period + 1;
    /* Credit is capped at one slice, so a few rounds reach the steady state. */
    uint64_t runs = periods < 4 ? periods : 4;
    for (uint64_t i = 0; i < runs; i++)
        credit_account(s);
    s->next_period_ns += periods * period;
}

static uint64_t credit_next_event(const struct sched *s)
{
    return s->next_period_ns;
}

static void credit_enqueue(struct sched *s, struct sched_vgpu *v, bool woke)
{
    (void)woke;
    v->credit_active = true;
    sched_list_append(&s->lists[klass(v)], v->id);
}

static void credit_dequeue(struct sched *s, struct sched_vgpu *v)
{
    sched_list_remove(&s->lists[UNDER], v->id);
    sched_list_remove(&s->lists[OVER], v->id);
}

static struct sched_vgpu *credit_select(struct sched *s)
{
    uint32_t id = sched_list_pop(&s->lists[UNDER]);
    if (id == SCHED_LIST_NIL)
        id = sched_list_pop(&s->lists[OVER]);
    return id == SCHED_LIST_NIL ? NULL : &s->vgpus[id];
}

static uint64_t credit_quota(struct sched *s, struct sched_vgpu *v)
{
    uint64_t tick = s->cfg.credit_tick_ns;
    if (v->credit <= 0)
        return tick;
    uint64_t q = ((uint64_t)v->credit + tick - 1) / tick * tick;
    return q > s->cfg.credit_slice_ns ? s->cfg.credit_slice_ns : q;
}

static void credit_charge(struct sched *s, struct sched_vgpu *v, uint64_t used)
{
    int64_t floor = -(int64_t)s->cfg.credit_slice_ns;
    int64_t u = used > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)used;
    v->credit = v->credit - u < floor ? floor : v->credit - u;
    v->credit_active = true;
}

static void credit_weight_changed(struct sched *s, struct sched_vgpu *v)
{
    (void)s;
    (void)v; /* takes effect at the next accounting */
}

static int64_t credit_key(const struct sched *s, const struct sched_vgpu *v)
{
    (void)s;
    return v->credit;
}

static uint32_t credit_peek(const struct sched *s)
{
    uint32_t id = s->lists[UNDER].head;
    if (id == SCHED_LIST_NIL)
        id = s->lists[OVER].head;
    return id == SCHED_LIST_NIL ? SCHED_NO_VGPU : id;
}

const struct sched_policy_ops sched_policy_credit_ops = {
    .name = "credit",
    .predicts = false,
    .start = credit_start,
    .advance = credit_advance,
    .next_event = credit_next_event,
    .enqueue = credit_enqueue,
    .dequeue = credit_dequeue,
    .select = credit_select,
    .quota = credit_quota,
    .charge = credit_charge,
    .weight_changed = credit_weight_changed,
    .key = credit_key,
    .peek = credit_peek,
};
