/* sched_sim.c — discrete-event simulator of guests sharing the render engine (see sched_sim.h). */
#include "sched/sched_sim.h"
#include "sched/sched_math.h"

#include <stdlib.h>
#include <string.h>

void sched_sim_params_default(struct sched_sim_params *p)
{
    memset(p, 0, sizeof(*p));
    p->duration_ns = SCHED_MS(10000);
    p->warmup_ns = SCHED_MS(500);
    p->switch_ns = SCHED_US(20);
    p->dispatch_ns = SCHED_US(4);
    p->tick_ns = SCHED_MS(1);
    p->boost_ns = SCHED_MS(1);
    p->ncores = 0;
    p->seed = 1;
}

enum gstate { G_READY, G_THINK, G_SYNC, G_FULL, G_SLEEP };

struct wl {
    uint64_t id;
    uint64_t actual;
};

struct gsim {
    const struct sched_sim_guest *cfg;
    enum gstate st;
    uint64_t until;        /* end of THINK or SLEEP */
    uint64_t active_until; /* duty cycle */
    uint64_t boost_until;
    uint32_t outstanding;
    struct wl *fifo; /* mirror of the scheduler's queue, oldest first */
    uint32_t head, count;
    uint64_t next_id;
    bool runaway_done;
    uint64_t rem; /* ideal engine: head workload's work left, 1/GPS_UNIT ns */
};

/* The ideal engine serves every backlogged guest at once, each at weight / total weight of
 * the backlogged (generalised processor sharing, the fluid model fair queuing imitates),
 * with no switch or dispatch cost.  Work is counted in 1/1024 ns so shares round finely. */
#define GPS_UNIT 1024u

struct core {
    int32_t running; /* guest index or -1 */
    uint32_t *fifo;  /* guests waiting for the core, in order */
    uint32_t n;
};

struct sim {
    uint64_t now;
    bool gps; /* ideal engine instead of scheduler + engine */
    struct sched *s;
    const struct sched_sim_params *p;
    uint32_t depth;
    uint64_t rng;
    struct gsim *g;
    uint32_t n;
    struct core *cores;
    uint32_t ncores;
    bool batch_active;
    uint32_t batch_vgpu, batch_left;
    uint64_t batch_next_end;
    bool need_pick;
    uint64_t retry_at;
    uint64_t next_tick;
    int err;
    struct sched_sim_result *r;
    struct sched_sim_guest_result *gr;
};

static uint64_t sim_clock(void *ctx)
{
    return ((const struct sim *)ctx)->now;
}

static uint64_t rnd(struct sim *m)
{
    /* splitmix64 */
    uint64_t z = (m->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* x +- up to pct percent, uniformly. */
static uint64_t jitter(struct sim *m, uint64_t x, uint32_t pct)
{
    if (pct == 0 || x == 0)
        return x;
    uint64_t span = 2 * (uint64_t)pct + 1;
    int64_t e = (int64_t)(rnd(m) % span) - (int64_t)pct;
    return sched_muldiv(x, (uint64_t)(100 + e), 100);
}

static bool measuring(const struct sim *m)
{
    return m->now >= m->p->warmup_ns;
}

static uint64_t draw_size(struct sim *m, const struct sched_sim_guest *c)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nsizes; i++)
        total += c->sizes[i].freq;
    uint64_t r = total ? rnd(m) % total : 0;
    for (uint32_t i = 0; i < c->nsizes; i++) {
        if (r < c->sizes[i].freq)
            return c->sizes[i].ns;
        r -= c->sizes[i].freq;
    }
    return c->sizes[0].ns;
}

/* ---- CPU side ---- */

static void core_dispatch(struct sim *m, uint32_t ci)
{
    struct core *c = &m->cores[ci];
    if (c->running >= 0 || c->n == 0)
        return;
    uint32_t gi = c->fifo[0];
    memmove(&c->fifo[0], &c->fifo[1], (c->n - 1) * sizeof(c->fifo[0]));
    c->n--;
    c->running = (int32_t)gi;
    m->g[gi].st = G_THINK;
    m->g[gi].until = m->now + m->g[gi].cfg->think_ns;
}

static void core_push(struct sim *m, uint32_t gi, bool front)
{
    struct core *c = &m->cores[m->g[gi].cfg->core];
    if (front) {
        memmove(&c->fifo[1], &c->fifo[0], c->n * sizeof(c->fifo[0]));
        c->fifo[0] = gi;
    } else {
        c->fifo[c->n] = gi;
    }
    c->n++;
}

/* A boosted vCPU that is waiting for its core moves to the front. */
static void core_boost(struct sim *m, uint32_t gi)
{
    if (m->ncores == 0 || m->g[gi].st != G_READY)
        return;
    struct core *c = &m->cores[m->g[gi].cfg->core];
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->fifo[k] == gi) {
            memmove(&c->fifo[1], &c->fifo[0], k * sizeof(c->fifo[0]));
            c->fifo[0] = gi;
            return;
        }
    }
}

static void want_cpu(struct sim *m, uint32_t gi)
{
    struct gsim *g = &m->g[gi];
    if (m->ncores == 0) {
        g->st = G_THINK;
        g->until = m->now + g->cfg->think_ns;
        return;
    }
    g->st = G_READY;
    core_push(m, gi, m->now < g->boost_until);
    core_dispatch(m, g->cfg->core);
}

static void next_iteration(struct sim *m, uint32_t gi)
{
    struct gsim *g = &m->g[gi];
    if (g->cfg->on_ns && m->now >= g->active_until) {
        /* Like a program that copies its results back before it sleeps: its GPU work is
         * done by the time it sleeps, so the sleep ratio is really GPU-idle time. */
        if (g->outstanding > 0) {
            g->st = G_SYNC;
            return;
        }
        g->st = G_SLEEP;
        g->until = m->now + jitter(m, g->cfg->off_ns, 25);
        return;
    }
    want_cpu(m, gi);
}

static void submit_burst(struct sim *m, uint32_t gi)
{
    struct gsim *g = &m->g[gi];
    const struct sched_sim_guest *c = g->cfg;
    for (uint32_t b = 0; b < c->burst; b++) {
        if (g->count >= m->depth)
            break;
        uint64_t actual = draw_size(m, c);
        if (c->runaway_at_ns && !g->runaway_done && m->now >= c->runaway_at_ns) {
            actual = c->runaway_ns;
            g->runaway_done = true;
        }
        uint64_t est = c->est_unknown ? 0 : jitter(m, actual, c->est_error_pct);
        if (!m->gps) {
            struct sched_workload w = { .id = g->next_id, .est_ns = est };
            int rc = sched_submit(m->s, gi, &w);
            if (rc == SCHED_EFULL)
                break;
            if (rc != SCHED_OK) {
                m->err = rc;
                return;
            }
        } else if (g->count == 0) {
            g->rem = sched_muldiv(actual, GPS_UNIT, 1);
        }
        g->fifo[(g->head + g->count) % m->depth] = (struct wl){ g->next_id, actual };
        g->count++;
        g->next_id++;
        g->outstanding++;
        if (!m->batch_active && !m->gps)
            m->need_pick = true;
    }
}

static void think_end(struct sim *m, uint32_t gi)
{
    struct gsim *g = &m->g[gi];
    const struct sched_sim_guest *c = g->cfg;
    if (m->ncores) {
        m->cores[c->core].running = -1;
    }
    submit_burst(m, gi);
    if (c->sync && g->outstanding > 0) {
        if (!m->gps)
            sched_sync_wait(m->s, gi);
        if (measuring(m))
            m->gr[gi].sync_waits++;
        g->st = G_SYNC;
    } else if (!c->sync && g->outstanding >= c->max_outstanding) {
        g->st = G_FULL;
    } else {
        next_iteration(m, gi);
    }
    if (m->ncores)
        core_dispatch(m, c->core);
}

static void unblock(struct sim *m, uint32_t gi)
{
    struct gsim *g = &m->g[gi];
    if ((g->st == G_SYNC && g->outstanding == 0) ||
        (g->st == G_FULL && g->outstanding < g->cfg->max_outstanding))
        next_iteration(m, gi);
}

/* ---- GPU side ---- */

static void complete_one(struct sim *m)
{
    uint32_t gi = m->batch_vgpu;
    struct gsim *g = &m->g[gi];
    struct wl w = g->fifo[g->head];
    int rc = sched_complete(m->s, gi, w.id, w.actual);
    if (rc != SCHED_OK) {
        m->err = rc;
        return;
    }
    if (measuring(m)) {
        m->gr[gi].gpu_ns += w.actual;
        m->gr[gi].workloads++;
        m->r->busy_ns += w.actual;
    }
    g->head = (g->head + 1) % m->depth;
    g->count--;
    g->outstanding--;
    if (--m->batch_left > 0) {
        m->batch_next_end = m->now + g->fifo[g->head].actual;
    } else {
        m->batch_active = false;
        m->need_pick = true;
    }
    unblock(m, gi);
}

static void do_pick(struct sim *m)
{
    struct sched_decision d;
    m->need_pick = false;
    m->retry_at = SCHED_NEVER;
    int rc = sched_pick(m->s, &d);
    m->r->picks++;
    if (rc != SCHED_OK) {
        m->err = rc;
        return;
    }
    if (d.kind == SCHED_PICK_IDLE) {
        /* A policy holding work back (rr) names when to look again; never in the past. */
        m->retry_at = d.retry_at_ns > m->now ? d.retry_at_ns : m->now + m->p->tick_ns;
        return;
    }
    if (d.kind != SCHED_PICK_DISPATCH) {
        m->err = SCHED_ESTATE; /* nothing is in flight when the simulator picks */
        return;
    }
    struct gsim *g = &m->g[d.vgpu];
    if (d.vgpu >= m->n || d.count == 0 || d.count > g->count || g->fifo[g->head].id != d.first_id) {
        m->err = SCHED_ESTATE;
        return;
    }
    uint64_t gap = m->p->dispatch_ns + (d.switched ? m->p->switch_ns : 0);
    if (measuring(m)) {
        m->r->dispatches++;
        m->r->dispatch_ns += m->p->dispatch_ns;
        if (d.switched) {
            m->r->switches++;
            m->r->switch_ns += m->p->switch_ns;
        }
        if (d.cosched_hint)
            m->gr[d.vgpu].hints++;
    }
    if (d.cosched_hint) {
        g->boost_until = m->now + m->p->boost_ns;
        core_boost(m, d.vgpu);
    }
    m->batch_active = true;
    m->batch_vgpu = d.vgpu;
    m->batch_left = d.count;
    m->batch_next_end = m->now + gap + g->fifo[g->head].actual;
    m->next_tick = (m->now / m->p->tick_ns + 1) * m->p->tick_ns;
}

static void watchdog(struct sim *m)
{
    uint32_t v;
    m->next_tick = (m->now / m->p->tick_ns + 1) * m->p->tick_ns;
    if (!sched_watchdog(m->s, &v))
        return;
    struct gsim *g = &m->g[v];
    int dropped = sched_vgpu_reset(m->s, v);
    if (dropped < 0) {
        m->err = dropped;
        return;
    }
    m->gr[v].resets++;
    m->gr[v].dropped += (uint64_t)dropped;
    g->outstanding -= g->count;
    g->count = 0;
    g->head = 0;
    m->batch_active = false;
    m->need_pick = true;
    unblock(m, v);
}

/* ---- the ideal engine ---- */

static uint64_t gps_backlogged_weight(const struct sim *m)
{
    uint64_t w = 0;
    for (uint32_t i = 0; i < m->n; i++)
        if (m->g[i].count > 0)
            w += m->g[i].cfg->weight;
    return w;
}

/* Serves every backlogged guest for dt ns at its share of the engine. */
static void gps_advance(struct sim *m, uint64_t dt)
{
    uint64_t wsum = gps_backlogged_weight(m);
    if (wsum == 0 || dt == 0)
        return;
    for (uint32_t i = 0; i < m->n; i++) {
        struct gsim *g = &m->g[i];
        if (g->count == 0)
            continue;
        uint64_t served = sched_muldiv(dt * GPS_UNIT, g->cfg->weight, wsum);
        g->rem = served >= g->rem ? 0 : g->rem - served;
    }
}

/* When the first head workload will be done at the current rates. */
static uint64_t gps_next(const struct sim *m)
{
    uint64_t wsum = gps_backlogged_weight(m), t = SCHED_NEVER;
    for (uint32_t i = 0; i < m->n; i++) {
        const struct gsim *g = &m->g[i];
        if (g->count == 0)
            continue;
        /* ceil(rem * wsum / (weight * unit)): the served amount then covers rem */
        uint64_t den = (uint64_t)g->cfg->weight * GPS_UNIT;
        uint64_t num = sched_muldiv(g->rem, wsum, 1);
        uint64_t dt = num / den + (num % den != 0);
        t = sched_min_u64(t, sched_sat_add(m->now, dt));
    }
    return t;
}

static bool gps_complete(struct sim *m)
{
    bool progress = false;
    for (uint32_t i = 0; i < m->n; i++) {
        struct gsim *g = &m->g[i];
        while (g->count > 0 && g->rem == 0) {
            struct wl w = g->fifo[g->head];
            if (measuring(m)) {
                m->gr[i].gpu_ns += w.actual;
                m->gr[i].workloads++;
                m->r->busy_ns += w.actual;
            }
            g->head = (g->head + 1) % m->depth;
            g->count--;
            g->outstanding--;
            if (g->count > 0)
                g->rem = sched_muldiv(g->fifo[g->head].actual, GPS_UNIT, 1);
            unblock(m, i);
            progress = true;
        }
    }
    return progress;
}

/* ---- the event loop ---- */

static bool step(struct sim *m)
{
    if (m->gps) {
        if (gps_complete(m))
            return true;
    } else if (m->batch_active && m->batch_next_end <= m->now) {
        complete_one(m);
        return true;
    }
    bool progress = false;
    for (uint32_t i = 0; i < m->n && !m->err; i++) {
        struct gsim *g = &m->g[i];
        if (g->st == G_THINK && g->until <= m->now) {
            think_end(m, i);
            progress = true;
        } else if (g->st == G_SLEEP && g->until <= m->now) {
            g->active_until = m->now + jitter(m, g->cfg->on_ns, 25);
            want_cpu(m, i);
            progress = true;
        }
    }
    if (m->gps)
        return progress;
    if (m->batch_active && m->now >= m->next_tick) {
        watchdog(m);
        progress = true;
    }
    if (!m->batch_active && (m->need_pick || m->now >= m->retry_at)) {
        do_pick(m);
        progress = true;
    }
    return progress;
}

static uint64_t next_time(const struct sim *m)
{
    uint64_t t = m->p->duration_ns;
    if (m->gps) {
        t = sched_min_u64(t, gps_next(m));
    } else if (m->batch_active) {
        t = sched_min_u64(t, m->batch_next_end);
        t = sched_min_u64(t, m->next_tick);
    } else {
        t = sched_min_u64(t, m->retry_at);
    }
    for (uint32_t i = 0; i < m->n; i++)
        if (m->g[i].st == G_THINK || m->g[i].st == G_SLEEP)
            t = sched_min_u64(t, m->g[i].until);
    return t;
}

static int check(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                 const struct sched_sim_params *p)
{
    if (!cfg || !g || !p || n == 0 || n > cfg->max_vgpus || p->tick_ns == 0 ||
        p->duration_ns <= p->warmup_ns)
        return SCHED_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        const struct sched_sim_guest *c = &g[i];
        if (c->nsizes == 0 || c->nsizes > SCHED_SIM_MAX_SIZES || c->burst == 0 ||
            c->burst > cfg->queue_depth || (p->ncores && c->core >= p->ncores) ||
            (!c->sync && (c->max_outstanding == 0 || c->max_outstanding > cfg->queue_depth)) ||
            (c->on_ns && c->off_ns == 0) || c->est_error_pct >= 100)
            return SCHED_EINVAL;
        for (uint32_t k = 0; k < c->nsizes; k++)
            if (c->sizes[k].ns == 0)
                return SCHED_EINVAL;
    }
    return SCHED_OK;
}

static int run(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
               const struct sched_sim_params *p, struct sched_sim_result *r,
               struct sched_sim_guest_result *gr, bool gps)
{
    if (!r || !gr || check(cfg, g, n, p) != SCHED_OK)
        return SCHED_EINVAL;
    struct sim m;
    memset(&m, 0, sizeof(m));
    m.gps = gps;
    memset(r, 0, sizeof(*r));
    memset(gr, 0, n * sizeof(*gr));
    m.p = p;
    m.r = r;
    m.gr = gr;
    m.n = n;
    m.rng = p->seed;
    m.depth = cfg->queue_depth;
    m.retry_at = SCHED_NEVER;
    m.ncores = p->ncores;
    r->window_ns = p->duration_ns - p->warmup_ns;

    struct sched_clock clk = { .now = sim_clock, .ctx = &m };
    int rc = gps ? SCHED_OK : sched_create(cfg, &clk, &m.s);
    m.g = calloc(n, sizeof(*m.g));
    m.cores = calloc(m.ncores ? m.ncores : 1, sizeof(*m.cores));
    if (rc == SCHED_OK && (!m.g || !m.cores))
        rc = SCHED_ENOMEM;
    for (uint32_t c = 0; rc == SCHED_OK && c < m.ncores; c++) {
        m.cores[c].running = -1;
        m.cores[c].fifo = calloc(n, sizeof(uint32_t));
        if (!m.cores[c].fifo)
            rc = SCHED_ENOMEM;
    }
    for (uint32_t i = 0; rc == SCHED_OK && i < n; i++) {
        m.g[i].cfg = &g[i];
        m.g[i].fifo = calloc(m.depth, sizeof(struct wl));
        if (!m.g[i].fifo)
            rc = SCHED_ENOMEM;
        else if (!gps)
            rc = sched_vgpu_add(m.s, i, g[i].weight);
    }
    if (rc == SCHED_OK) {
        for (uint32_t i = 0; i < n; i++) {
            m.g[i].active_until = jitter(&m, g[i].on_ns, 25);
            want_cpu(&m, i);
        }
        for (;;) {
            while (!m.err && step(&m))
                r->events++;
            if (m.err)
                break;
            uint64_t t = next_time(&m);
            if (t >= p->duration_ns)
                break;
            if (gps)
                gps_advance(&m, t - m.now);
            m.now = t;
        }
        rc = m.err;
    }
    for (uint32_t c = 0; m.cores && c < m.ncores; c++)
        free(m.cores[c].fifo);
    for (uint32_t i = 0; m.g && i < n; i++)
        free(m.g[i].fifo);
    free(m.cores);
    free(m.g);
    sched_destroy(m.s);
    return rc;
}

int sched_sim_run(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                  const struct sched_sim_params *p, struct sched_sim_result *r,
                  struct sched_sim_guest_result *gr)
{
    return run(cfg, g, n, p, r, gr, false);
}

int sched_sim_run_ideal(const struct sched_config *cfg, const struct sched_sim_guest *g, uint32_t n,
                        const struct sched_sim_params *p, struct sched_sim_result *r,
                        struct sched_sim_guest_result *gr)
{
    return run(cfg, g, n, p, r, gr, true);
}
