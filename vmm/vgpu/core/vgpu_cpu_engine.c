/* Engines a personality runs on the host's CPU (docs/vgpu.md "Engines on the CPU"): the i915
 * guest's render, video and video-enhancement engines, which have no engine of the GPU behind
 * them and run on the MI-only command streamer.  Their work is the guest's like its blitter
 * work: each engine has its own render scheduler (the configuration's policy and the guests'
 * weights), the render loop runs the owner of each engine's turn for a bounded piece of CPU
 * time per step, a turn that has used its quota while another guest waits is preempted (the
 * streamer's state is kept, so preemption costs nothing), the watchdog resets work that has run
 * longer than the workload limit, and the CPU used is charged to the guest's share
 * (st.render_cpu_ns) and, as the engine's time, to its scheduler.
 *
 * An engine's clock is the CPU time it has run guests' work, plus the wall time it stood idle
 * (so waking vGPUs get no credit for the time nobody used it): the scheduler's quotas, its
 * watchdog and its fairness are in CPU time, whatever the emulator's speed. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include <stdlib.h>

static bool is_cpu_engine(enum igpu_engine e)
{
    return e != IGPU_BCS && (unsigned)e < IGPU_NUM_GT_ENGINES;
}

static uint64_t engine_clock(void *ctx)
{
    const struct vgpu_cpu_engine *eng = ctx;
    const struct vgpu_dev *d = eng->dev;
    uint64_t now = vgpu_cpu_now(d);
    return eng->clock_ns + (eng->idle && now > eng->idle_since ? now - eng->idle_since : 0);
}

int vgpu_cpu_engines_init(struct vgpu_dev *d)
{
    if (!d->cfg.cpu_sched || !d->cfg.env.cpu_ns)
        return 0; /* none (their clock is the CPU's): a personality needing them cannot start */
    if (!d->cfg.cpu_budget_ns)
        d->cfg.cpu_budget_ns = VGPU_CPU_BUDGET_NS;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        struct vgpu_cpu_engine *eng = &d->cpu[e];
        if (!is_cpu_engine((enum igpu_engine)e))
            continue;
        eng->dev = d;
        eng->engine = (enum igpu_engine)e;
        eng->running = VGPU_MAX;
        eng->idle = true;
        eng->idle_since = vgpu_cpu_now(d);
        struct sched_clock clk = { engine_clock, eng };
        if (sched_create(d->cfg.cpu_sched, &clk, &eng->sched) != SCHED_OK) {
            vgpu_cpu_engines_free(d);
            return -1;
        }
    }
    d->cfg.cpu_sched = NULL; /* the caller's: read here only */
    return 0;
}

void vgpu_cpu_engines_free(struct vgpu_dev *d)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        sched_destroy(d->cpu[e].sched);
        d->cpu[e].sched = NULL;
    }
}

int vgpu_cpu_engines_add(struct vgpu *v)
{
    struct sched_vgpu_stats st;
    if (!v->ops->cpu_engines)
        return 0;
    if (sched_vgpu_stats_get(v->dev->cfg.sched, v->id, &st) != SCHED_OK)
        return -1;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        if (!(v->ops->cpu_engines & (1u << e)))
            continue;
        struct sched *s = v->dev->cpu[e].sched;
        if (!s || !is_cpu_engine((enum igpu_engine)e)) {
            vgpu_logf(v->dev, VGPU_LOG_ERROR,
                      "vgpu %u: its %s personality runs %s on the CPU, and "
                      "the hypervisor gave no scheduler for it",
                      v->id, v->ops->name, igpu_engine_name((enum igpu_engine)e));
            return -1;
        }
        int rc = sched_vgpu_add(s, v->id, st.weight);
        if (rc != SCHED_OK && rc != SCHED_EEXIST)
            return -1;
    }
    return 0;
}

void vgpu_cpu_engines_set_weight(struct vgpu_dev *d, unsigned vm, uint32_t weight)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (d->cpu[e].sched)
            sched_vgpu_set_weight(d->cpu[e].sched, vm, weight); /* ENOENT: not one of its */
}

bool vgpu_cpu_submit(struct vgpu *v, enum igpu_engine e, uint64_t *id)
{
    struct vgpu_cpu_engine *eng = is_cpu_engine(e) ? &v->dev->cpu[e] : NULL;
    if (!eng || !eng->sched)
        return false;
    struct sched_workload w = { v->cpu_next_id[e] + 1, 0 };
    if (sched_submit(eng->sched, v->id, &w) != SCHED_OK)
        return false;
    *id = ++v->cpu_next_id[e];
    v->st.cpu_submitted++;
    return true;
}

void vgpu_cpu_drop(struct vgpu *v, enum igpu_engine e)
{
    struct vgpu_cpu_engine *eng = is_cpu_engine(e) ? &v->dev->cpu[e] : NULL;
    if (!eng || !eng->sched)
        return;
    if (eng->running == v->id) {
        eng->running = VGPU_MAX;
        eng->inflight = 0;
        eng->inflight_ns = 0;
    }
    sched_vgpu_reset(eng->sched, v->id);
    v->cpu_done_id[e] = v->cpu_next_id[e]; /* its ids go on after those dropped */
}

/* The engine has nothing in flight: the scheduler's next turn (or the rest of this one). */
static void pick(struct vgpu_dev *d, struct vgpu_cpu_engine *eng)
{
    struct sched_decision dec;
    if (sched_pick(eng->sched, &dec) != SCHED_OK || dec.kind != SCHED_PICK_DISPATCH) {
        if (!eng->idle) {
            eng->idle = true;
            eng->idle_since = vgpu_cpu_now(d);
        }
        return;
    }
    if (eng->idle) {
        uint64_t now = vgpu_cpu_now(d);
        eng->clock_ns += now > eng->idle_since ? now - eng->idle_since : 0;
        eng->idle = false;
    }
    if (dec.switched)
        eng->st.switches++;
    eng->running = dec.vgpu;
    eng->inflight = dec.count;
    eng->inflight_ns = 0;
    eng->st.dispatches++;
}

/* The engine's owner ran `used` ns and finished `done` of its in-flight workloads. */
static void charge(struct vgpu_cpu_engine *eng, struct vgpu *v, unsigned done, uint64_t used)
{
    eng->clock_ns += used;
    eng->inflight_ns += used;
    eng->st.busy_ns += used;
    v->st.render_cpu_ns += used; /* its CPU share pays (vgpu_render_cpu_ns) */
    v->st.cpu_engine_ns[eng->engine] += used;
    if (used > v->st.cpu_step_max_ns)
        v->st.cpu_step_max_ns = used;
    for (unsigned i = 0; i < done && eng->inflight; i++) {
        /* Ids are the scheduler's order of v's submissions on this engine: the oldest first. */
        uint64_t id = ++v->cpu_done_id[eng->engine];
        sched_complete(eng->sched, v->id, id, i + 1 == done ? eng->inflight_ns : 0);
        eng->inflight--;
        eng->st.workloads++;
        v->st.cpu_completed++;
    }
    if (done)
        eng->inflight_ns = 0;
}

/* One step of engine eng: pick if it is free, run its owner for up to the budget, take in what
 * finished, then the watchdog and preemption.  True if it still has work. */
static bool step(struct vgpu_dev *d, struct vgpu_cpu_engine *eng)
{
    if (eng->running == VGPU_MAX)
        pick(d, eng);
    struct vgpu *v = vgpu_get(d, eng->running);
    if (!v)
        return false;
    bool faulted = false;
    uint64_t t0 = vgpu_cpu_now(d);
    unsigned done = v->ops->cpu_run(v, eng->engine, eng->inflight, d->cfg.cpu_budget_ns, &faulted);
    uint64_t used = vgpu_cpu_now(d) - t0;
    eng->st.steps++;
    charge(eng, v, done, used ? used : 1);
    if (faulted) {
        /* The engine stopped on v's work (the guest was told): the rest of it goes. */
        eng->st.faults++;
        vgpu_cpu_drop(v, eng->engine);
        return true;
    }
    uint32_t runaway;
    if (sched_watchdog(eng->sched, &runaway)) {
        struct vgpu *r = vgpu_get(d, runaway);
        eng->st.watchdog_resets++;
        if (r) {
            vgpu_note_reject(r, TESSERA_REJECT_RESET, "watchdog: %s work ran longer than the limit",
                             igpu_engine_name(eng->engine));
            r->ops->cpu_reset(r, eng->engine, "watchdog: a workload ran longer than the limit");
            vgpu_cpu_drop(r, eng->engine);
        }
        return true;
    }
    if (eng->inflight == 0) {
        eng->running = VGPU_MAX; /* the turn goes on at the next pick if it has more */
    } else if (sched_preempt_due(eng->sched, eng->inflight_ns)) {
        /* The streamer keeps where the owner is: its next turn takes up from there. */
        sched_preempted(eng->sched, v->id, eng->inflight_ns);
        eng->st.preemptions++;
        eng->running = VGPU_MAX;
        eng->inflight = 0;
        eng->inflight_ns = 0;
    }
    return true;
}

bool vgpu_cpu_engines_step(struct vgpu_dev *d)
{
    bool busy = false;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (d->cpu[e].sched && step(d, &d->cpu[e]))
            busy = true;
    return busy;
}

unsigned vgpu_cpu_engine_owner(const struct vgpu_dev *d, enum igpu_engine e)
{
    return is_cpu_engine(e) && d->cpu[e].sched ? d->cpu[e].running : VGPU_MAX;
}

struct sched *vgpu_cpu_engine_sched(const struct vgpu_dev *d, enum igpu_engine e)
{
    return is_cpu_engine(e) ? d->cpu[e].sched : NULL;
}

void vgpu_cpu_engine_stats_get(const struct vgpu_dev *d, enum igpu_engine e,
                               struct vgpu_cpu_engine_stats *out)
{
    *out = is_cpu_engine(e) && d->cpu[e].sched ? d->cpu[e].st : (struct vgpu_cpu_engine_stats){ 0 };
}
