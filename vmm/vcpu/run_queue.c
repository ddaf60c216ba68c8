#include "vmm/vcpu/run_queue.h"

#include <string.h>

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t ticks_to_ns(const struct run_queue *q, uint64_t t)
{
    return t / q->ticks_per_us * 1000 + t % q->ticks_per_us * 1000 / q->ticks_per_us;
}

void rq_init(struct run_queue *q, const struct rq_ops *ops, unsigned n, const uint32_t *weight,
             const uint64_t *slice_ns, uint64_t ticks_per_us)
{
    memset(q, 0, sizeof *q);
    q->ops = *ops;
    q->n = n < RQ_MAX ? n : RQ_MAX;
    q->ticks_per_us = ticks_per_us ? ticks_per_us : 1;
    q->running = RQ_NONE;
    cpu_share_init(&q->share, 0);
    for (unsigned i = 0; i < q->n; i++) {
        cpu_share_set_weight(&q->share, i, weight[i]);
        q->slice[i] = slice_ns[i] / 1000 * q->ticks_per_us;
        q->halted_due[i] = RQ_NEVER;
    }
}

/* Guest i now; true if it wants the CPU.  A guest seen halted that wants it now woke up.  One
 * whose exit work is put off wants it from then on (not a wake-up: it did not halt). */
static bool look(struct run_queue *q, unsigned i, uint64_t now, struct rq_guest *g)
{
    q->ops.guest(q->ops.ctx, i, now, g);
    if (!g->runs)
        q->defer_until[i] = 0;
    bool deferred = q->defer_until[i] > now;
    if (deferred)
        g->timer_at = min_u64(g->timer_at, q->defer_until[i]);
    bool wants = g->runs && !g->halted && !deferred;
    if (wants && q->halted_seen[i] && !q->woke[i]) {
        q->woke[i] = true;
        q->seen_at[i] = now;
        q->seen_slices[i] = q->slice_ticks + (q->running != RQ_NONE && now > q->running_since
                                                  ? now - q->running_since
                                                  : 0);
    }
    if (!g->runs)
        q->woke[i] = false;
    q->halted_seen[i] = g->runs && g->halted;
    return wants;
}

/* Guest i's CPU so far in ns, with the slice under way. */
static uint64_t cpu_total(const struct run_queue *q, unsigned i, uint64_t now)
{
    uint64_t t = q->ops.cpu_ns(q->ops.ctx, i);
    if (i == q->running && now > q->running_since)
        t += ticks_to_ns(q, now - q->running_since);
    return t;
}

static void share_tick(struct run_queue *q, uint64_t now)
{
    uint64_t now_ns = ticks_to_ns(q, now), total[RQ_MAX];
    if (now_ns < q->share.next_period_ns)
        return;
    for (unsigned i = 0; i < q->n; i++)
        total[i] = cpu_total(q, i, now);
    cpu_share_tick(&q->share, now_ns, total, q->n);
}

static bool owed_to(struct run_queue *q, unsigned waiter, unsigned runner, uint64_t now)
{
    return cpu_share_owed(&q->share, waiter, cpu_total(q, waiter, now), runner,
                          cpu_total(q, runner, now));
}

/* The earliest tick at which a guest other than `runner` that has used less CPU wants the CPU:
 * now if it wants it now, its timer if it is halted; RQ_NEVER if none. */
static uint64_t owed_at(struct run_queue *q, unsigned runner, uint64_t now)
{
    uint64_t at = RQ_NEVER;
    share_tick(q, now);
    for (unsigned i = 0; i < q->n; i++) {
        struct rq_guest g;
        bool wants = look(q, i, now, &g);
        if (i == runner || !g.runs || !owed_to(q, i, runner, now))
            continue;
        at = min_u64(at, wants ? now : g.timer_at);
    }
    return at;
}

bool rq_owed(struct run_queue *q, unsigned runner)
{
    uint64_t now = q->ops.now(q->ops.ctx);
    return runner < q->n && owed_at(q, runner, now) <= now;
}

bool rq_defer(struct run_queue *q, unsigned i, uint64_t key, uint64_t cost)
{
    if (i >= q->n || cost < RQ_DEFER_MIN_NS / 1000 * q->ticks_per_us)
        return false;
    uint64_t now = q->ops.now(q->ops.ctx);
    bool fresh = !q->defer_waiting[i] || q->defer_key[i] != key;
    if (fresh) {
        q->defer_waiting[i] = true;
        q->defer_key[i] = key;
        q->defer_since[i] = now;
    }
    uint64_t waited = now - q->defer_since[i];
    uint64_t owed = waited < cost ? owed_at(q, i, now) : RQ_NEVER;
    if (owed == RQ_NEVER || owed >= now + cost) {
        q->defer_waiting[i] = false;
        q->deferred_ticks[i] += waited;
        return false;
    }
    if (fresh)
        q->deferred[i]++;
    q->defer_until[i] = owed;
    return true;
}

void rq_defer_stats(const struct run_queue *q, unsigned i, uint64_t *count, uint64_t *waited_ns)
{
    *count = i < q->n ? q->deferred[i] : 0;
    *waited_ns = i < q->n ? ticks_to_ns(q, q->deferred_ticks[i]) : 0;
}

bool rq_wake_pending(struct run_queue *q)
{
    uint64_t now = q->ops.now(q->ops.ctx);
    bool any = false;
    for (unsigned i = 0; i < q->n; i++) {
        struct rq_guest g;
        look(q, i, now, &g);
        any |= q->woke[i];
    }
    return any;
}

/* How late guest i, which halted until its timer, gets the CPU after the timer's deadline. */
static void note_wake(struct run_queue *q, unsigned i, uint64_t now)
{
    uint64_t due = q->halted_due[i];
    if (due == RQ_NEVER)
        return;
    uint64_t late = now > due ? now - due : 0;
    if (late && q->woke[i]) {
        uint64_t seen = q->seen_at[i] > due ? q->seen_at[i] - due : 0;
        seen = seen < late ? seen : late;
        q->unseen[i] += seen;
        uint64_t vcpus = q->slice_ticks - q->seen_slices[i];
        q->late_vcpus[i] += vcpus < late - seen ? vcpus : late - seen;
    }
    q->wakes[i]++;
    q->late[i] += late;
    if (late > q->late_max[i])
        q->late_max[i] = late;
}

/* Runs guest i for one slice.  True if it wanted more: it ran to the slice's end, or was cut
 * for a guest that is owed the CPU. */
static bool run_slice(struct run_queue *q, unsigned i)
{
    uint64_t start = q->ops.now(q->ops.ctx);
    note_wake(q, i, start);
    q->woke[i] = false;
    q->halted_due[i] = RQ_NEVER;
    if (!q->ops.slice_begin(q->ops.ctx, i))
        return false;
    uint64_t deadline = start + q->slice[i],
             min_end = start + RQ_MIN_RUN_NS / 1000 * q->ticks_per_us;
    q->running = i;
    q->running_since = start;
    bool used_all = false;
    for (;;) {
        uint64_t now = q->ops.now(q->ops.ctx);
        if (now >= deadline) {
            used_all = true;
            break;
        }
        uint64_t owed = owed_at(q, i, now);
        if (owed <= now && now >= min_end) {
            used_all = true; /* it wanted more: it counts as waiting while others run */
            break;
        }
        struct rq_guest g;
        q->ops.guest(q->ops.ctx, i, now, &g);
        uint64_t until = deadline;
        if (g.timer_at > now)
            until = min_u64(until, g.timer_at); /* its own timer: injected at the next entry */
        if (owed != RQ_NEVER)
            until = min_u64(until, owed > min_end ? owed : min_end);
        enum rq_exit e = q->ops.enter(q->ops.ctx, i, until);
        if (e != RQ_RESUME)
            break;
    }
    uint64_t end = q->ops.now(q->ops.ctx);
    q->running = RQ_NONE;
    q->ops.slice_end(q->ops.ctx, i, ticks_to_ns(q, end - start));
    q->round_ticks[i] += end - start;
    q->slice_ticks += end - start;
    struct rq_guest g;
    look(q, i, end, &g);
    q->halted_due[i] = g.halted ? g.timer_at : RQ_NEVER;
    return used_all;
}

/* Who runs next this round: a guest that woke and is owed the CPU against the guest whose turn
 * it is (the least loaded such guest), else the next in index order that wants the CPU and has
 * not run; RQ_NONE when the round is over. */
static unsigned pick(struct run_queue *q, uint64_t now)
{
    unsigned turn = RQ_NONE, woken = RQ_NONE;
    uint64_t woken_load = UINT64_MAX;
    for (unsigned i = 0; i < q->n; i++) {
        struct rq_guest g;
        if (!look(q, i, now, &g))
            continue;
        if (turn == RQ_NONE && !q->ran[i])
            turn = i;
        if (q->woke[i]) {
            uint64_t load = cpu_share_load(&q->share, i, cpu_total(q, i, now));
            if (load < woken_load) {
                woken = i;
                woken_load = load;
            }
        }
    }
    if (turn != RQ_NONE && woken != RQ_NONE && woken != turn && owed_to(q, woken, turn, now))
        return woken;
    return turn;
}

bool rq_round(struct run_queue *q)
{
    bool busy = false;
    uint64_t start = q->ops.now(q->ops.ctx);
    share_tick(q, start);
    if (q->cut_short) {
        busy = q->cut_busy;
    } else {
        q->round_start = start;
        for (unsigned i = 0; i < q->n; i++) {
            q->ran[i] = false;
            q->wanted[i] = false;
            q->round_ticks[i] = 0;
        }
    }
    q->cut_short = false;
    unsigned i;
    while ((i = pick(q, q->ops.now(q->ops.ctx))) != RQ_NONE) {
        q->ran[i] = true;
        bool all = run_slice(q, i);
        q->wanted[i] |= all;
        busy |= all;
        if (q->ops.between && q->ops.between(q->ops.ctx))
            busy = true;
        /* The guests that had their turn keep it: cutting rounds moves no CPU between them. */
        if (q->ops.cut && q->ops.cut(q->ops.ctx)) {
            q->cut_short = true;
            q->cut_busy = busy;
            return true;
        }
    }
    uint64_t round = q->ops.now(q->ops.ctx) - q->round_start;
    for (i = 0; i < q->n; i++)
        if (q->wanted[i]) {
            q->wait_ticks += round - q->round_ticks[i];
            q->demand_ticks += round;
        }
    return busy;
}

void rq_wake_stats(const struct run_queue *q, unsigned i, struct rq_wake_stats *st)
{
    memset(st, 0, sizeof *st);
    if (i >= q->n)
        return;
    st->wakes = q->wakes[i];
    st->late_ns = ticks_to_ns(q, q->late[i]);
    st->late_max_ns = ticks_to_ns(q, q->late_max[i]);
    st->unseen_ns = ticks_to_ns(q, q->unseen[i]);
    st->vcpus_ns = ticks_to_ns(q, q->late_vcpus[i]);
    st->hypervisor_ns = ticks_to_ns(q, q->late[i] - q->unseen[i] - q->late_vcpus[i]);
}

void rq_wait_stats(const struct run_queue *q, uint64_t *wait_ns, uint64_t *demand_ns)
{
    *wait_ns = ticks_to_ns(q, q->wait_ticks);
    *demand_ns = ticks_to_ns(q, q->demand_ticks);
}
