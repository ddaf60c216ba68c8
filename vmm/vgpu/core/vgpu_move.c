/* Copying down to its floor: writing the next owner's graphics memory ahead in the
 * scheduler's order, and moving busy guests' ranges apart with their cooperation.
 *
 * Ahead: once a turn's first work is on the engine (and again when new work changes the
 * prediction), the vGPU the scheduler will most likely run next (sched_predict_next: its run queue in order, and guests that were backlogged in the
 * last PREDICT_RECENT_NS with the start tag they would wake with) has its entries written, all
 * but those the running vGPU uses.  gtt counts what the next switch used and what was wasted.
 *
 * Re-placement: every placement period the vGPUs that worked since the last one are planned
 * (gtt_plan).  A guest that follows re-placements (docs/vgpu-abi.md "Re-placement") is asked
 * to move: `request` in its PV page changes; at its next quiet point it waits for its work and
 * writes TESSERA_G2V_MOVE_READY, and during that write, with nothing of it queued, the move is
 * made (gtt_vgpu_relocate carries its GGTT entries), the registers the hypervisor keeps for it
 * that name addresses in the moved ranges (plane surface, status page) follow, and avail_rs and
 * the generation change.  The guest adds the distance to the addresses it holds.  One plan at
 * a time: a new one is made only when every request of the last was answered or withdrawn. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include <string.h>

/* A guest backlogged this recently counts as a candidate for the next turn: frame-at-a-time
 * guests are rarely queued when a turn starts.  Render-clock time. */
#define PREDICT_RECENT_NS SCHED_MS(250)
/* Placement periods a move request waits for its guest before it is withdrawn (a dashboard
 * pauses 1.5 s between bursts). */
#define MOVE_MAX_AGE 6u
/* Compaction: a guest that says how much of its low range it uses (low_used) is given that
 * and a quarter more (at least 1 MiB more), in whole MiB, never more than configured. */
#define LOW_ROUND (1ull << 20)

void vgpu_write_ahead(struct vgpu_dev *d, struct vgpu *owner, bool new_turn)
{
    uint32_t next = sched_predict_next(d->cfg.sched, PREDICT_RECENT_NS);
    if (next >= VGPU_MAX)
        next = VGPU_MAX;
    if (!new_turn && next == d->predicted)
        return;
    d->predicted = next;
    if (next >= VGPU_MAX || !d->v[next] || next == owner->id)
        return;
    uint64_t t0 = vgpu_cpu_now(d);
    /* It is expected to run: gtt copies only vGPUs that are active. */
    gtt_set_active(d->cfg.gtt, next, true);
    long n = gtt_predict(d->cfg.gtt, next);
    if (n > 0)
        d->st.entries_predict += (uint64_t)n;
    uint64_t dt = vgpu_cpu_now(d) - t0;
    d->st.copy_cpu_ns += dt;
    d->st.copy_ahead_ns += dt;
    /* Done for next, not for the owner whose work the model is about to run on this CPU. */
    d->v[next]->st.copy_cpu_ns += dt;
}

/* ---- moving a guest ----------------------------------------------------------------------- */

void vgpu_move_ready(struct vgpu *v)
{
    struct vgpu_dev *d = v->dev;
    v->pv.tessera_move.done = v->pv.tessera_move.request;
    if (!v->move_pending) {
        v->pv.tessera_move.status = TESSERA_MOVE_NOT_NEEDED;
        return;
    }
    if (v->q_len) {
        /* Its queued work was scanned against the old addresses: never moved under it. */
        v->pv.tessera_move.status = TESSERA_MOVE_BUSY;
        d->st.moves_busy++;
        return;
    }
    v->move_pending = false;
    struct gtt *g = d->cfg.gtt;
    const struct gtt_vgpu *gv = gtt_vgpu_get(g, v->id);
    struct gtt_range low = gv->low;
    struct gtt_range high = { v->pv.avail_rs.nonmappable_gmadr.base,
                              v->pv.avail_rs.nonmappable_gmadr.size };
    int rc = gtt_vgpu_relocate(g, v->id, v->move_to.low, v->move_to.first_slot);
    if (rc != 0) {
        v->pv.tessera_move.status = TESSERA_MOVE_REFUSED;
        d->st.moves_refused++;
        vgpu_logf(d, VGPU_LOG_WARN, "vgpu %u: re-placement not made: %s", v->id, gtt_strerror(rc));
        return;
    }
    uint64_t new_high = high.size ? gtt_layout_slot_addr(&g->layout, v->move_to.first_slot) : 0;
    /* Addresses the personality holds for the guest (plane surface, status page) follow. */
    if (v->ops->follow) {
        v->ops->follow(v, low.start, low.size, v->move_to.low.start);
        v->ops->follow(v, high.start, high.size, new_high);
    }
    vgpu_pv_update_ranges(v);
    v->pv.tessera_move.status = TESSERA_MOVE_MOVED;
    v->pv.tessera_move.moves++;
    v->moved_period = d->st.place_periods + 1;
    d->st.moves_done++;
    vgpu_logf(d, VGPU_LOG_INFO, "vgpu %u: re-placed: low %#llx -> %#llx, high %#llx -> %#llx",
              v->id, (unsigned long long)low.start, (unsigned long long)v->move_to.low.start,
              (unsigned long long)high.start, (unsigned long long)new_high);
}

/* The low window a guest that follows moves should have: what it uses and some room. */
static uint64_t low_want(const struct vgpu *v)
{
    const struct gtt *g = v->dev->cfg.gtt;
    uint64_t used = v->pv.tessera_move.low_used, extent = gtt_vgpu_low_extent(g, v->id);
    uint64_t conf = g->layout.guest[v->id].low.size;
    if (!used || !conf)
        return 0;
    if (extent > used)
        used = extent;
    uint64_t room = used / 4 > LOW_ROUND ? used / 4 : LOW_ROUND;
    uint64_t want = (used + room + LOW_ROUND - 1) / LOW_ROUND * LOW_ROUND;
    return want < conf ? want : conf;
}

void vgpu_move_forget(struct vgpu *v)
{
    v->move_pending = false;
    /* A new run of the guest starts from the configuration's place and size: it has not said
     * yet what it uses, nor that it follows moves.  Nothing of it is queued (reset). */
    struct gtt *g = v->dev->cfg.gtt;
    const struct gtt_guest_layout *gl = &g->layout.guest[v->id];
    const struct gtt_vgpu *gv = gtt_vgpu_get(g, v->id);
    unsigned first = 0;
    if (!gv || (gv->low.start == gl->low.start && gv->low.size == gl->low.size))
        return;
    gtt_vgpu_slots(g, v->id, &first, 1);
    if (gtt_vgpu_relocate(g, v->id, gl->low, first) != 0)
        vgpu_logf(v->dev, VGPU_LOG_WARN, "vgpu %u: its low window stays where it was moved", v->id);
}

/* ---- the placement period ----------------------------------------------------------------- */

/* A vGPU counts as busy for placement if it worked in any of the last BUSY_PERIODS periods:
 * guests that draw in bursts (a dashboard pauses 1.5 s) keep their place between bursts. */
#define BUSY_PERIODS 4u
#define BUSY_MASK    ((1u << BUSY_PERIODS) - 1u)
/* A plan must cut the cost by a tenth to be worth its moves, and a guest that moved stays put
 * for MOVE_REST periods: the switch counts and the order plans are made from move a little
 * every period, and a move costs its guest a pause and a full copy of its ranges. */
#define PLAN_MIN_GAIN_PPM 100000u
#define MOVE_REST         10u

/* The floor for this period's switch-ins (gtt_floor_weighted, each vGPU weighted by how often
 * it was brought in), with the sizes the configuration gave (held false) or those held now. */
static uint64_t period_floor(const struct vgpu_dev *d, const uint64_t *ins, bool held)
{
    const struct gtt *g = d->cfg.gtt;
    uint64_t low[GTT_MAX_VGPUS], high[GTT_MAX_VGPUS], fl[GTT_MAX_VGPUS], fh[GTT_MAX_VGPUS];
    unsigned nl = 0, nh = 0;
    for (unsigned id = 0; id < VGPU_MAX && id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *gv = gtt_vgpu_get(g, id);
        if (!ins[id] || !gv)
            continue;
        uint64_t lo = held ? gv->low.size : g->layout.guest[id].low.size;
        unsigned sl = held ? gv->n_slots : g->layout.guest[id].n_slots;
        if (lo) {
            fl[nl] = ins[id];
            low[nl++] = lo >> GEN9_GTT_PAGE_SHIFT;
        }
        if (sl) {
            fh[nh] = ins[id];
            high[nh++] = sl;
        }
    }
    return gtt_floor_weighted(g->layout.low_guest.size >> GEN9_GTT_PAGE_SHIFT, low, fl, nl) +
           gtt_floor_weighted(g->layout.n_slots, high, fh, nh) * g->slot_entries;
}

void vgpu_place_period(struct vgpu_dev *d)
{
    struct gtt *g = d->cfg.gtt;
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS] = { 0 };
    uint64_t freq[GTT_MAX_VGPUS] = { 0 }, ins[GTT_MAX_VGPUS] = { 0 }, want[GTT_MAX_VGPUS] = { 0 };
    bool pending = false;
    unsigned nbusy = 0;
    for (unsigned id = 0; id < VGPU_MAX && id < GTT_MAX_VGPUS; id++) {
        struct vgpu *v = d->v[id];
        const struct gtt_vgpu *gv = gtt_vgpu_get(g, id);
        if (!v || !gv)
            continue;
        bool now = v->q_len || v->st.completed != v->completed_seen;
        v->completed_seen = v->st.completed;
        v->worked = (uint8_t)(v->worked << 1 | now);
        busy[id] = (v->worked & BUSY_MASK) != 0;
        nbusy += busy[id];
        ins[id] = gv->st.switches_in - v->switches_in_seen;
        v->switches_in_seen = gv->st.switches_in;
        v->freq = v->freq - v->freq / 4 + ins[id];
        freq[id] = v->freq + 1;
        /* A vGPU that did nothing for a whole period is idle to gtt again (the render loop
         * and the prediction mark the ones that work or will). */
        if (!now)
            gtt_set_active(g, id, false);
        if (v->move_pending && ++v->move_age > MOVE_MAX_AGE) {
            v->move_pending = false;
            d->st.moves_withdrawn++;
        }
        pending |= v->move_pending;
        movable[id] = (v->pv.tessera_move.caps & TESSERA_MOVE_CAP_FOLLOW) != 0 &&
                      (!v->moved_period || d->st.place_periods + 1 >= v->moved_period + MOVE_REST);
        if (movable[id])
            want[id] = low_want(v);
    }
    uint64_t sw = d->st.switches - d->switches_seen;
    d->switches_seen = d->st.switches;
    d->st.floor_entries += period_floor(d, ins, false);
    d->st.floor_held_entries += period_floor(d, ins, true);
    d->st.floor_switches += sw;
    d->st.busy_vgpus = nbusy;
    d->st.place_periods++;
    if (pending || !nbusy)
        return;
    struct gtt_move mv[GTT_MAX_VGPUS];
    struct gtt_plan_input in = { .busy = busy,
                                 .freq = freq,
                                 .movable = movable,
                                 .low_want = want,
                                 .min_gain_ppm = PLAN_MIN_GAIN_PPM };
    int n = gtt_plan(g, &in, mv, GTT_MAX_VGPUS, NULL);
    for (int i = 0; i < n; i++) {
        struct vgpu *v = d->v[mv[i].vgpu];
        if (!v || !movable[mv[i].vgpu])
            continue;
        v->move_pending = true;
        v->move_to = mv[i];
        v->move_age = 0;
        v->pv.tessera_move.request++;
        d->st.moves_asked++;
    }
}
