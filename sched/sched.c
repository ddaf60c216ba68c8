/*
 * sched.c — the scheduler core: vGPUs, workload queues, and the turn mechanism every policy
 * shares (non-preemptive accounting, sampling prediction, work conservation, watchdog,
 * coscheduling hints).  Which vGPU runs next is the policy's business (sched_policy_*.c).
 */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sched_strerror(int err)
{
    switch (err) {
    case SCHED_OK:
        return "ok";
    case SCHED_EINVAL:
        return "invalid argument";
    case SCHED_ENOENT:
        return "no such vGPU";
    case SCHED_EEXIST:
        return "vGPU already exists";
    case SCHED_EFULL:
        return "vGPU queue full";
    case SCHED_ESTATE:
        return "not allowed in the current state";
    case SCHED_ENOMEM:
        return "out of memory";
    case SCHED_EBUSY:
        return "vGPU has workloads in flight";
    default:
        return "unknown error";
    }
}

void sched_config_default(struct sched_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->policy = SCHED_POLICY_FAIR;
    cfg->max_vgpus = TESSERA_MAX_GUESTS;
    cfg->queue_depth = 256;
    cfg->slice_ns = SCHED_MS(6); /* FairGV's slice for non-preemptive GPUs */
    cfg->sample_count = 5;       /* FairGV samples the first 5 requests */
    cfg->max_batch = 0;
    cfg->watchdog_ns = SCHED_MS(200);
    cfg->interactive_window_ns = SCHED_MS(10);
    cfg->interactive_waits = 10; /* FairGV: more than 10 sync calls per 10 ms */
    cfg->cosched_hints = true;
    cfg->preempt_lag_ns = SCHED_US(500); /* docs/sched.md "Preemption on arrival" */
    cfg->rr_slice_ns = SCHED_MS(16);
    cfg->rr_balance_ns = SCHED_MS(100);
    cfg->rr_reset_periods = 10;
    cfg->credit_slice_ns = SCHED_MS(30);
    cfg->credit_period_ns = SCHED_MS(30);
    cfg->credit_tick_ns = SCHED_MS(10);
    cfg->las_decay_ns = SCHED_MS(100);
    cfg->backlog_min_ppm = SCHED_PPM / 2;
}

static int bad(char *msg, size_t len, const char *what)
{
    if (msg && len)
        snprintf(msg, len, "%s", what);
    return SCHED_EINVAL;
}

int sched_config_check(const struct sched_config *cfg, char *msg, size_t len)
{
    const uint64_t ten_s = SCHED_MS(10000);
    if (!cfg)
        return bad(msg, len, "no configuration");
    if ((unsigned)cfg->policy >= SCHED_POLICY_COUNT)
        return bad(msg, len, "policy: unknown");
    if (cfg->max_vgpus == 0 || cfg->max_vgpus > SCHED_MAX_VGPUS)
        return bad(msg, len, "max_vgpus: must be 1..1024");
    if (cfg->queue_depth == 0 || cfg->queue_depth > SCHED_QUEUE_MAX)
        return bad(msg, len, "queue_depth: must be 1..65536");
    if (cfg->slice_ns == 0 || cfg->slice_ns > ten_s)
        return bad(msg, len, "slice: must be 1 ns..10 s");
    if (cfg->sample_count > 1024)
        return bad(msg, len, "sample_count: must be 0..1024");
    if (cfg->hold_ns > cfg->slice_ns)
        return bad(msg, len, "hold: must not exceed the slice");
    if (cfg->watchdog_ns == 0)
        return bad(msg, len, "watchdog: must be > 0");
    if (cfg->interactive_window_ns == 0 || cfg->interactive_window_ns > ten_s)
        return bad(msg, len, "interactive window: must be 1 ns..10 s");
    if (cfg->rr_slice_ns == 0 || cfg->rr_slice_ns > ten_s || cfg->rr_balance_ns == 0 ||
        cfg->rr_balance_ns > ten_s)
        return bad(msg, len, "rr slice/balance period: must be 1 ns..10 s");
    if (cfg->rr_reset_periods == 0)
        return bad(msg, len, "rr reset periods: must be >= 1");
    if (cfg->credit_slice_ns == 0 || cfg->credit_slice_ns > ten_s || cfg->credit_period_ns == 0 ||
        cfg->credit_period_ns > ten_s || cfg->credit_tick_ns == 0 ||
        cfg->credit_tick_ns > cfg->credit_slice_ns)
        return bad(msg, len, "credit slice/period/tick: must be 1 ns..10 s, tick <= slice");
    if (cfg->las_decay_ns == 0 || cfg->las_decay_ns > ten_s)
        return bad(msg, len, "las decay period: must be 1 ns..10 s");
    if (cfg->backlog_min_ppm > SCHED_PPM)
        return bad(msg, len, "backlog threshold: must be 0..100%");
    return SCHED_OK;
}

int sched_create(const struct sched_config *cfg, const struct sched_clock *clock,
                 struct sched **out)
{
    if (!out || !clock || !clock->now || sched_config_check(cfg, NULL, 0) != SCHED_OK)
        return SCHED_EINVAL;
    *out = NULL;
    struct sched *s = calloc(1, sizeof(*s));
    if (!s)
        return SCHED_ENOMEM;
    s->cfg = *cfg;
    s->clock = *clock;
    s->ops = sched_policy_ops_of(cfg->policy);
    s->vgpus = calloc(cfg->max_vgpus, sizeof(*s->vgpus));
    s->rings = calloc((size_t)cfg->max_vgpus * cfg->queue_depth, sizeof(*s->rings));
    s->nodes = calloc(cfg->max_vgpus, sizeof(*s->nodes));
    if (!s->vgpus || !s->rings || !s->nodes || sched_heap_init(&s->heap, cfg->max_vgpus)) {
        sched_destroy(s);
        return SCHED_ENOMEM;
    }
    for (uint32_t i = 0; i < cfg->max_vgpus; i++) {
        s->vgpus[i].id = i;
        s->nodes[i].prev = s->nodes[i].next = SCHED_LIST_NIL;
    }
    sched_list_init(&s->lists[0], s->nodes, 0);
    sched_list_init(&s->lists[1], s->nodes, 1);
    s->last_owner = SCHED_NO_VGPU;
    uint64_t now = sched_now(s);
    s->metrics_start_ns = now;
    s->ops->start(s, now);
    *out = s;
    return SCHED_OK;
}

void sched_destroy(struct sched *s)
{
    if (!s)
        return;
    sched_heap_fini(&s->heap);
    free(s->nodes);
    free(s->rings);
    free(s->vgpus);
    free(s);
}

enum sched_policy sched_get_policy(const struct sched *s)
{
    return s->cfg.policy;
}

uint64_t sched_weight_sum(const struct sched *s, bool active_only)
{
    uint64_t w = 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        const struct sched_vgpu *v = &s->vgpus[i];
        if (v->present && !v->suspended && (!active_only || v->credit_active))
            w += v->weight;
    }
    return w;
}

/* ---- vGPU lookup and run-queue membership ---- */

static struct sched_vgpu *lookup(const struct sched *s, uint32_t id)
{
    if (!s || id >= s->cfg.max_vgpus || !s->vgpus[id].present)
        return NULL;
    return &s->vgpus[id];
}

static uint32_t pending(const struct sched_vgpu *v)
{
    return v->count - v->inflight;
}

static void make_runnable(struct sched *s, struct sched_vgpu *v, bool woke)
{
    v->runnable = true;
    v->active = true;
    s->ops->enqueue(s, v, woke);
}

static void make_unrunnable(struct sched *s, struct sched_vgpu *v)
{
    if (v->runnable) {
        s->ops->dequeue(s, v);
        v->runnable = false;
    }
}

/* ---- interactivity: sync waits per window ---- */

static void win_roll(const struct sched *s, struct sched_vgpu *v, uint64_t now)
{
    uint64_t w = s->cfg.interactive_window_ns;
    if (!v->win_started) {
        v->win_started = true;
        v->win_start_ns = now;
        v->win_count = v->prev_win_count = 0;
        return;
    }
    if (now < v->win_start_ns + w)
        return;
    uint64_t windows = (now - v->win_start_ns) / w;
    v->prev_win_count = windows == 1 ? v->win_count : 0;
    v->win_count = 0;
    v->win_start_ns += windows * w;
}

/*
 * Interactive: more than cfg.interactive_waits sync waits per window (10 ms), counted two
 * ways.  In wall time: in the current window or the one before.  Per GPU time: per 10 ms of
 * GPU time the vGPU recently received (at least 1 ms of it).  The second keeps a guest that
 * waits after every kernel interactive under congestion, when it is served so rarely that
 * its waits per wall-clock window fall — which is when coscheduling matters most; FairGV
 * profiles its guests alone, where the two counts agree.  Read-only, so the shell's view and
 * the pick agree.
 */
bool sched_interactive_at(const struct sched *s, const struct sched_vgpu *v, uint64_t now)
{
    uint64_t w = s->cfg.interactive_window_ns;
    uint32_t thr = s->cfg.interactive_waits;
    if (v->svc_ns >= SCHED_MS(1) && sched_muldiv(v->svc_waits, w, v->svc_ns) > thr)
        return true;
    if (!v->win_started || now < v->win_start_ns)
        return v->win_started && (v->prev_win_count > thr || v->win_count > thr);
    if (now - v->win_start_ns < w)
        return v->prev_win_count > thr || v->win_count > thr;
    if (now - v->win_start_ns < 2 * w)
        return v->win_count > thr; /* that window is now the previous one */
    return false;
}

/* ---- the turn ---- */

static void end_turn(struct sched *s, struct sched_vgpu *v)
{
    uint64_t used = v->turn_used_ns;
    if (used > v->quota_ns)
        v->st.overrun_ns += used - v->quota_ns;
    /* Charge while the vGPU still counts as running, so fair's virtual time sees it. */
    s->ops->charge(s, v, used);
    v->running = false;
    s->cur = NULL;
    /* Still backlogged: back into the run queue, no wake-up rule (it never slept). */
    if (!v->suspended && pending(v) > 0)
        make_runnable(s, v, false);
}

static void begin_turn(struct sched *s, struct sched_vgpu *v, uint64_t now,
                       struct sched_decision *d)
{
    v->running = true;
    s->cur = v;
    v->quota_ns = s->ops->quota(s, v);
    if (v->quota_ns == 0)
        v->quota_ns = 1;
    v->turn_used_ns = 0;
    v->turn_done = 0;
    v->turn_est_ns = 0;
    v->turn_start_ns = now;
    v->arrived = false;
    v->st.turns++;
    s->turns++;
    d->new_turn = true;
    d->switched = s->last_owner != v->id;
    if (d->switched)
        s->switches++;
    s->last_owner = v->id;
    v->turn_hinted = false;
    v->last_done_ns = now;
    if (s->cfg.cosched_hints && sched_interactive_at(s, v, now)) {
        v->turn_hinted = true;
        d->cosched_hint = true;
        v->st.hints++;
        s->hints++;
    }
}

static const struct sched_wl *queued_at(const struct sched *s, const struct sched_vgpu *v,
                                        uint32_t k)
{
    return &v->ring[(v->head + v->inflight + k) % s->cfg.queue_depth];
}

/*
 * How many of the vGPU's queued workloads to dispatch now.  Policies that predict (fair, las)
 * dispatch the first sample_count workloads of a turn one by one; after that, the measured
 * times calibrate the scanner's estimates (actual/estimated over this turn's completions; the
 * plain average when there are no estimates) and as many workloads as are predicted to fit the
 * rest of the quota go out as one batch.  Time-slice policies (rr, credit) trust the raw
 * estimates.  At least one workload is always dispatched: a non-preemptive engine overruns by
 * at most the batch's misprediction, and the accounting charges it.
 */
static uint32_t dispatch_count(const struct sched *s, const struct sched_vgpu *v)
{
    uint32_t max = pending(v);
    if (s->cfg.max_batch && max > s->cfg.max_batch)
        max = s->cfg.max_batch;
    bool calibrated = s->ops->predicts && v->turn_done > 0;
    if (s->ops->predicts && v->turn_done < s->cfg.sample_count)
        return 1;

    uint64_t remaining = v->quota_ns > v->turn_used_ns ? v->quota_ns - v->turn_used_ns : 0;
    uint64_t avg = calibrated ? v->turn_used_ns / v->turn_done : 0;
    /* Calibration factor in 1/65536 units, saturating. */
    uint64_t ratio = 0;
    if (calibrated && v->turn_est_ns > 0)
        ratio = sched_muldiv(v->turn_used_ns, 65536, v->turn_est_ns);

    uint64_t sum = 0;
    uint32_t n = 0;
    while (n < max) {
        const struct sched_wl *w = queued_at(s, v, n);
        uint64_t cost;
        if (!calibrated)
            cost = w->est_ns;
        else if (ratio && w->est_ns)
            cost = sched_muldiv(w->est_ns, ratio, 65536);
        else
            cost = avg;
        if (n > 0 && sched_sat_add(sum, cost) > remaining)
            break;
        sum = sched_sat_add(sum, cost);
        n++;
    }
    return n;
}

int sched_pick(struct sched *s, struct sched_decision *d)
{
    if (!s || !d)
        return SCHED_EINVAL;
    uint64_t now = sched_now(s);
    memset(d, 0, sizeof(*d));
    d->vgpu = SCHED_NO_VGPU;
    d->retry_at_ns = SCHED_NEVER;
    s->ops->advance(s, now);

    struct sched_vgpu *v = s->cur;
    if (v) {
        if (v->inflight > 0) {
            d->kind = SCHED_PICK_BUSY;
            d->vgpu = v->id;
            return SCHED_OK;
        }
        /* An interactive vGPU may hold the engine briefly for its next submission; the
         * engine time it holds idle is charged to it like time it used. */
        if (v->turn_hinted && s->cfg.hold_ns && !v->suspended && v->turn_used_ns < v->quota_ns &&
            now >= v->last_done_ns) {
            uint64_t until = v->last_done_ns + s->cfg.hold_ns;
            if (pending(v) == 0 && now < until) {
                d->kind = SCHED_PICK_IDLE;
                d->vgpu = v->id;
                d->retry_at_ns = until;
                return SCHED_OK;
            }
            uint64_t held = sched_min_u64(now, until) - v->last_done_ns;
            v->turn_used_ns = sched_sat_add(v->turn_used_ns, held);
            v->last_done_ns = now;
        }
        /* Release: quota used, nothing queued (work conservation), or told to idle. */
        if (v->suspended || pending(v) == 0 || v->turn_used_ns >= v->quota_ns) {
            end_turn(s, v);
            v = NULL;
        }
    }
    if (!v) {
        v = s->ops->select(s);
        if (!v) {
            d->kind = SCHED_PICK_IDLE;
            d->retry_at_ns = s->ops->next_event(s);
            s->idle_picks++;
            return SCHED_OK;
        }
        v->runnable = false;
        begin_turn(s, v, now, d);
    }

    uint32_t n = dispatch_count(s, v);
    if (n < v->resume)
        n = v->resume; /* preempted workloads resume together (sched_preempt.c) */
    d->kind = SCHED_PICK_DISPATCH;
    d->vgpu = v->id;
    d->count = n;
    d->first_id = queued_at(s, v, 0)->id;
    d->budget_ns = v->quota_ns > v->turn_used_ns ? v->quota_ns - v->turn_used_ns : 0;
    v->inflight += n;
    v->head_charged_ns = v->resume_ran_ns < now ? v->resume_ran_ns : now;
    v->head_start_ns = now - v->head_charged_ns;
    v->resume = 0;
    v->resume_ran_ns = 0;
    s->picks++;
    return SCHED_OK;
}

/* ---- vGPU management ---- */

int sched_vgpu_add(struct sched *s, uint32_t vgpu, uint32_t weight)
{
    if (!s || vgpu >= s->cfg.max_vgpus || weight == 0 || weight > SCHED_WEIGHT_MAX)
        return SCHED_EINVAL;
    struct sched_vgpu *v = &s->vgpus[vgpu];
    if (v->present)
        return SCHED_EEXIST;
    memset(v, 0, sizeof(*v));
    v->present = true;
    v->id = vgpu;
    v->weight = weight;
    v->ring = &s->rings[(size_t)vgpu * s->cfg.queue_depth];
    /* A newcomer starts at the current virtual time: no credit for the time before it came. */
    v->start_tag = sched_virtual_time(s);
    v->backlog_since = sched_now(s);
    s->nvgpus++;
    return SCHED_OK;
}

int sched_vgpu_remove(struct sched *s, uint32_t vgpu)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    if (v->inflight > 0)
        return SCHED_EBUSY;
    sched_backlog_account(s, v, sched_now(s));
    v->count = 0;
    if (v->running)
        end_turn(s, v);
    make_unrunnable(s, v);
    if (s->last_owner == vgpu)
        s->last_owner = SCHED_NO_VGPU;
    v->present = false;
    s->nvgpus--;
    return SCHED_OK;
}

int sched_vgpu_set_weight(struct sched *s, uint32_t vgpu, uint32_t weight)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    if (weight == 0 || weight > SCHED_WEIGHT_MAX)
        return SCHED_EINVAL;
    v->weight = weight;
    s->ops->weight_changed(s, v);
    return SCHED_OK;
}

int sched_vgpu_idle(struct sched *s, uint32_t vgpu)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    sched_backlog_account(s, v, sched_now(s));
    v->suspended = true;
    make_unrunnable(s, v);
    return SCHED_OK;
}

int sched_vgpu_wake(struct sched *s, uint32_t vgpu)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    sched_backlog_account(s, v, sched_now(s));
    v->suspended = false;
    if (!v->running && !v->runnable && pending(v) > 0)
        make_runnable(s, v, true);
    return SCHED_OK;
}

/* ---- workloads ---- */

int sched_submit(struct sched *s, uint32_t vgpu, const struct sched_workload *w)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    if (!w)
        return SCHED_EINVAL;
    if (v->count >= s->cfg.queue_depth)
        return SCHED_EFULL;
    sched_backlog_account(s, v, sched_now(s));
    struct sched_wl *slot = &v->ring[(v->head + v->count) % s->cfg.queue_depth];
    slot->id = w->id;
    slot->est_ns = w->est_ns;
    v->count++;
    v->active = true;
    /* First work after an empty queue: a wake-up (the wake-up rule applies), and an arrival
     * that may cut the running turn short (sched_preempt.c). */
    if (!v->running && !v->runnable && !v->suspended) {
        make_runnable(s, v, true);
        v->arrived = true;
    }
    return SCHED_OK;
}

int sched_complete(struct sched *s, uint32_t vgpu, uint64_t wid, uint64_t gpu_ns)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    if (!v->running || v->inflight == 0)
        return SCHED_ESTATE;
    struct sched_wl *w = &v->ring[v->head];
    if (w->id != wid)
        return SCHED_ESTATE;
    v->turn_used_ns = sched_sat_add(v->turn_used_ns, gpu_ns);
    v->turn_est_ns = sched_sat_add(v->turn_est_ns, w->est_ns);
    v->turn_done++;
    v->last_done_ns = sched_now(s);
    v->st.gpu_ns = sched_sat_add(v->st.gpu_ns, gpu_ns);
    v->st.workloads++;
    /* Recent history only: halve once it spans more than four windows of GPU time. */
    v->svc_ns = sched_sat_add(v->svc_ns, gpu_ns);
    if (v->svc_ns > 4 * s->cfg.interactive_window_ns) {
        v->svc_ns >>= 1;
        v->svc_waits >>= 1;
    }
    sched_backlog_account(s, v, sched_now(s));
    v->head = (v->head + 1) % s->cfg.queue_depth;
    v->count--;
    v->inflight--;
    /* The next in-flight workload starts now (the engine runs them back to back). */
    v->head_start_ns = sched_now(s);
    v->head_charged_ns = 0;
    return SCHED_OK;
}

int sched_sync_wait(struct sched *s, uint32_t vgpu)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    win_roll(s, v, sched_now(s));
    v->win_count++;
    v->svc_waits++;
    return SCHED_OK;
}

/* ---- watchdog ---- */

bool sched_watchdog(struct sched *s, uint32_t *id)
{
    if (!s || !s->cur || s->cur->inflight == 0)
        return false;
    struct sched_vgpu *v = s->cur;
    uint64_t now = sched_now(s);
    if (now <= v->head_start_ns || now - v->head_start_ns <= s->cfg.watchdog_ns)
        return false;
    if (id)
        *id = v->id;
    return true;
}

int sched_vgpu_reset(struct sched *s, uint32_t vgpu)
{
    struct sched_vgpu *v = lookup(s, vgpu);
    if (!v)
        return SCHED_ENOENT;
    uint32_t dropped = v->count;
    sched_backlog_account(s, v, sched_now(s));
    if (v->running) {
        if (v->inflight > 0) {
            /* The runaway held the engine from head_start until now: it pays for that, less
             * what it paid when a preemption cut it earlier (head_charged_ns). */
            uint64_t now = sched_now(s);
            uint64_t held = now > v->head_start_ns ? now - v->head_start_ns : 0;
            if (held > s->cfg.watchdog_ns) {
                v->st.runaways++;
                s->runaways++;
            }
            uint64_t unpaid = held > v->head_charged_ns ? held - v->head_charged_ns : 0;
            v->turn_used_ns = sched_sat_add(v->turn_used_ns, unpaid);
            v->st.gpu_ns = sched_sat_add(v->st.gpu_ns, unpaid);
        }
        v->inflight = 0;
        v->count = 0;
        end_turn(s, v);
    } else {
        make_unrunnable(s, v);
        v->count = 0;
    }
    v->head = 0;
    v->resume = 0;
    v->resume_ran_ns = 0;
    v->head_charged_ns = 0;
    v->st.dropped += dropped;
    return (int)dropped;
}

void sched_turn_end(struct sched *s, struct sched_vgpu *v)
{
    end_turn(s, v);
}

/* ---- introspection ---- */

bool sched_vgpu_interactive(const struct sched *s, uint32_t id)
{
    struct sched_vgpu *v = lookup(s, id);
    return v ? sched_interactive_at(s, v, sched_now(s)) : false;
}

uint32_t sched_vgpu_queued(const struct sched *s, uint32_t vgpu)
{
    const struct sched_vgpu *v = lookup(s, vgpu);
    return v ? v->count : 0;
}

uint32_t sched_vgpu_inflight(const struct sched *s, uint32_t vgpu)
{
    const struct sched_vgpu *v = lookup(s, vgpu);
    return v ? v->inflight : 0;
}

uint32_t sched_current(const struct sched *s)
{
    return s && s->cur ? s->cur->id : SCHED_NO_VGPU;
}

int64_t sched_vgpu_key(const struct sched *s, uint32_t vgpu)
{
    const struct sched_vgpu *v = lookup(s, vgpu);
    return v ? s->ops->key(s, v) : 0;
}
