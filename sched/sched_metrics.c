/* sched_metrics.c — fairness and throughput measures (see sched_metrics.h). */
#include "sched/sched_internal.h"
#include "sched/sched_math.h"

#include <stdlib.h>
#include <string.h>

uint32_t sched_ratio_ppm(uint64_t num, uint64_t den)
{
    if (den == 0)
        return num == 0 ? SCHED_PPM : UINT32_MAX;
    uint64_t r = sched_muldiv(num, SCHED_PPM, den);
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* Jain's index works on x scaled so the largest is 2^16: sums and squares then stay far from
 * 64-bit overflow for up to 2^14 entries, and the index keeps ~5 significant digits. */
#define JAIN_SCALE 65536u
#define JAIN_MAX_N 16384u

size_t sched_fairness(const uint64_t *achieved, const uint64_t *ideal, size_t n, uint32_t *mmr_ppm,
                      uint32_t *jain_ppm)
{
    uint64_t xmin = UINT64_MAX, xmax = 0;
    size_t used = 0;
    uint32_t mmr = SCHED_PPM, jain = SCHED_PPM;

    if (!achieved || !ideal || n > JAIN_MAX_N)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        if (ideal[i] == 0)
            continue;
        uint64_t x = sched_muldiv(achieved[i], SCHED_PPM, ideal[i]);
        if (x < xmin)
            xmin = x;
        if (x > xmax)
            xmax = x;
        used++;
    }
    if (used > 0 && xmax > 0) {
        mmr = sched_ratio_ppm(xmin, xmax);
        uint64_t sum = 0, sumsq = 0;
        for (size_t i = 0; i < n; i++) {
            if (ideal[i] == 0)
                continue;
            uint64_t x = sched_muldiv(achieved[i], SCHED_PPM, ideal[i]);
            uint64_t y = sched_muldiv(x, JAIN_SCALE, xmax);
            sum += y;
            sumsq += y * y;
        }
        jain = sched_ratio_ppm(sum * sum, (uint64_t)used * sumsq);
    } else if (used > 0) {
        mmr = jain = SCHED_PPM; /* nobody got anything: equally (un)served */
    }
    if (mmr_ppm)
        *mmr_ppm = mmr;
    if (jain_ppm)
        *jain_ppm = jain;
    return used;
}

int sched_waterfill(const uint32_t *weight, const uint64_t *demand, size_t n, uint64_t capacity,
                    uint64_t *share)
{
    if (!weight || !demand || !share)
        return SCHED_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (weight[i] == 0)
            return SCHED_EINVAL;
        share[i] = 0;
    }
    bool *done = calloc(n ? n : 1, sizeof(*done));
    if (!done)
        return SCHED_ENOMEM;
    uint64_t left = capacity;
    for (;;) {
        uint64_t wsum = 0;
        for (size_t i = 0; i < n; i++)
            if (!done[i])
                wsum += weight[i];
        if (wsum == 0)
            break;
        /* Whoever wants no more than its share at the current level is satisfied; the level
         * only rises as they leave, so one pass may satisfy several. */
        bool progress = false;
        for (size_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            if (demand[i] <= sched_muldiv(left, weight[i], wsum)) {
                share[i] = demand[i];
                left -= demand[i];
                done[i] = true;
                progress = true;
            }
        }
        if (!progress) {
            for (size_t i = 0; i < n; i++)
                if (!done[i])
                    share[i] = sched_muldiv(left, weight[i], wsum);
            break;
        }
    }
    free(done);
    return SCHED_OK;
}

static uint64_t busy(const struct sched *s)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++)
        if (s->vgpus[i].present)
            b = sched_sat_add(b, s->vgpus[i].st.gpu_ns);
    return b;
}

/* Was v backlogged for at least cfg.backlog_min_ppm of the interval? */
static bool counted(const struct sched *s, const struct sched_vgpu *v, uint64_t now,
                    uint64_t elapsed)
{
    if (!v->present)
        return false;
    uint64_t bl = sched_backlog_ns(s, v, now);
    if (bl == 0)
        return false;
    if (bl >= elapsed)
        return true;
    return sched_muldiv(bl, SCHED_PPM, elapsed) >= s->cfg.backlog_min_ppm;
}

/* The backlogged vGPUs' weights and the GPU time they received together. */
struct backlog_set {
    uint64_t now, elapsed;
    uint64_t weight, gpu_ns;
    uint32_t n;
};

static void backlog_set(const struct sched *s, struct backlog_set *b)
{
    b->now = sched_now(s);
    b->elapsed = b->now > s->metrics_start_ns ? b->now - s->metrics_start_ns : 0;
    b->weight = b->gpu_ns = 0;
    b->n = 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        const struct sched_vgpu *v = &s->vgpus[i];
        if (counted(s, v, b->now, b->elapsed)) {
            b->weight += v->weight;
            b->gpu_ns = sched_sat_add(b->gpu_ns, v->st.gpu_ns);
            b->n++;
        }
    }
}

/* The ideal GPU time of backlogged v: what the backlogged vGPUs received, by weight. */
static uint64_t ideal_ns(const struct backlog_set *b, const struct sched_vgpu *v)
{
    return b->weight ? sched_muldiv(b->gpu_ns, v->weight, b->weight) : 0;
}

int sched_vgpu_stats_get(const struct sched *s, uint32_t vgpu, struct sched_vgpu_stats *out)
{
    if (!s || !out)
        return SCHED_EINVAL;
    if (vgpu >= s->cfg.max_vgpus || !s->vgpus[vgpu].present)
        return SCHED_ENOENT;
    const struct sched_vgpu *v = &s->vgpus[vgpu];
    struct backlog_set b;
    backlog_set(s, &b);
    uint64_t total = busy(s);
    *out = v->st;
    out->weight = v->weight;
    out->interactive = sched_interactive_at(s, v, b.now);
    out->share_ppm = sched_ratio_ppm(v->st.gpu_ns, total);
    out->backlog_ns = sched_backlog_ns(s, v, b.now);
    out->backlogged = counted(s, v, b.now, b.elapsed);
    out->weight_share_ppm = out->backlogged ? sched_ratio_ppm(v->weight, b.weight) : 0;
    out->ideal_ppm = out->backlogged && total ? sched_ratio_ppm(ideal_ns(&b, v), total) : 0;
    return SCHED_OK;
}

int sched_metrics_get(const struct sched *s, struct sched_metrics *out)
{
    if (!s || !out)
        return SCHED_EINVAL;
    memset(out, 0, sizeof(*out));
    struct backlog_set b;
    backlog_set(s, &b);
    out->vgpus = s->nvgpus;
    out->elapsed_ns = b.elapsed;
    out->busy_ns = busy(s);
    out->utilisation_ppm = out->elapsed_ns ? sched_ratio_ppm(out->busy_ns, out->elapsed_ns) : 0;
    out->picks = s->picks;
    out->turns = s->turns;
    out->switches = s->switches;
    out->idle_picks = s->idle_picks;
    out->hints = s->hints;
    out->runaways = s->runaways;

    uint32_t n = s->cfg.max_vgpus;
    uint64_t *ach = calloc(n, sizeof(*ach));
    uint64_t *ideal = calloc(n, sizeof(*ideal));
    if (!ach || !ideal) {
        free(ach);
        free(ideal);
        return SCHED_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct sched_vgpu *v = &s->vgpus[i];
        if (!v->present)
            continue;
        out->active += v->active;
        if (!counted(s, v, b.now, b.elapsed))
            continue;
        ach[i] = v->st.gpu_ns;
        ideal[i] = ideal_ns(&b, v);
        if (ideal[i] == 0)
            ideal[i] = 1;
    }
    out->backlogged = b.n;
    sched_fairness(ach, ideal, n, &out->mmr_ppm, &out->jain_ppm);
    free(ach);
    free(ideal);
    return SCHED_OK;
}

void sched_metrics_reset(struct sched *s)
{
    if (!s)
        return;
    s->metrics_start_ns = sched_now(s);
    s->picks = s->turns = s->switches = s->idle_picks = s->hints = s->runaways = 0;
    for (uint32_t i = 0; i < s->cfg.max_vgpus; i++) {
        struct sched_vgpu *v = &s->vgpus[i];
        sched_backlog_account(s, v, s->metrics_start_ns);
        memset(&v->st, 0, sizeof(v->st));
        /* Still counts as active if it has work right now. */
        v->active = v->present && (v->runnable || v->running || v->count > 0);
    }
}
