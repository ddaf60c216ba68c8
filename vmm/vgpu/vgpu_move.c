/* Copying down to its floor (issue 14): writing the next owner's graphics memory ahead in the
 * scheduler's order, and moving busy guests' ranges apart with their cooperation.
 *
 * Ahead: once a turn's first work is on the engine, the vGPU the scheduler will most likely
 * run next (sched_predict_next: its run queue in order, and guests that were backlogged in the
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
#include "vmm/vgpu/vgpu_internal.h"

#include <string.h>

/* A guest backlogged this recently counts as a candidate for the next turn: frame-at-a-time
 * guests are rarely queued when a turn starts.  Render-clock time. */
#define PREDICT_RECENT_NS   SCHED_MS(250)
/* Placement periods a move request waits for its guest before it is withdrawn (a dashboard
 * pauses 1.5 s between bursts). */
#define MOVE_MAX_AGE        6u

static uint64_t cpu_now(const struct vgpu_dev *d)
{
    return d->cfg.env.cpu_ns ? d->cfg.env.cpu_ns(d->cfg.env.ctx) : 0;
}

void vgpu_write_ahead(struct vgpu_dev *d, struct vgpu *owner)
{
    uint32_t next = sched_predict_next(d->cfg.sched, PREDICT_RECENT_NS);
    d->predicted = next < VGPU_MAX ? next : VGPU_MAX;
    if (next >= VGPU_MAX || !d->v[next] || next == owner->id)
        return;
    uint64_t t0 = cpu_now(d);
    /* It is expected to run: gtt copies only vGPUs that are active. */
    gtt_set_active(d->cfg.gtt, next, true);
    long n = gtt_predict(d->cfg.gtt, next);
    if (n > 0)
        d->st.entries_predict += (uint64_t)n;
    uint64_t dt = cpu_now(d) - t0;
    d->st.copy_cpu_ns += dt;
    d->st.copy_ahead_ns += dt;
}

/* ---- moving a guest ----------------------------------------------------------------------- */

/* An address the hypervisor holds for the guest (plane surface, status page) follows its
 * range: from [from, from + size) to `to`. */
static void follow(uint32_t *addr, uint64_t from, uint64_t size, uint64_t to)
{
    if (*addr >= from && *addr - from < size)
        *addr = (uint32_t)(*addr - from + to);
}

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
    struct gtt_range high = {v->pv.avail_rs.nonmappable_gmadr.base,
                             v->pv.avail_rs.nonmappable_gmadr.size};
    int rc = gtt_vgpu_relocate(g, v->id, v->move_to.low, v->move_to.first_slot);
    if (rc != 0) {
        v->pv.tessera_move.status = TESSERA_MOVE_REFUSED;
        d->st.moves_refused++;
        vgpu_logf(d, VGPU_LOG_WARN, "vgpu %u: re-placement not made: %s", v->id, gtt_strerror(rc));
        return;
    }
    uint64_t new_high = high.size ? gtt_layout_slot_addr(&g->layout, v->move_to.first_slot) : 0;
    follow(&v->plane_surf, low.start, low.size, v->move_to.low.start);
    follow(&v->plane_surf, high.start, high.size, new_high);
    follow(&v->hws_pga, low.start, low.size, v->move_to.low.start);
    follow(&v->hws_pga, high.start, high.size, new_high);
    /* Its contexts are at new addresses: none of the old ones is submitted again. */
    memset(v->ctx_tail, 0, sizeof v->ctx_tail);
    vgpu_pv_update_ranges(v);
    v->pv.tessera_move.status = TESSERA_MOVE_MOVED;
    v->pv.tessera_move.moves++;
    d->st.moves_done++;
    vgpu_logf(d, VGPU_LOG_INFO, "vgpu %u: re-placed: low %#llx -> %#llx, high %#llx -> %#llx", v->id,
              (unsigned long long)low.start, (unsigned long long)v->move_to.low.start,
              (unsigned long long)high.start, (unsigned long long)new_high);
}

void vgpu_move_forget(struct vgpu *v)
{
    v->move_pending = false;
}

/* ---- the placement period ----------------------------------------------------------------- */

/* The floor per switch for the busy set: with the sizes the configuration gave (held false)
 * or with those the vGPUs hold now. */
static uint64_t floor_per_switch(const struct vgpu_dev *d, const bool *busy, bool held)
{
    const struct gtt *g = d->cfg.gtt;
    uint64_t low[GTT_MAX_VGPUS], high[GTT_MAX_VGPUS];
    unsigned nl = 0, nh = 0, n = 0;
    for (unsigned id = 0; id < VGPU_MAX && id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *gv = gtt_vgpu_get(g, id);
        if (!busy[id] || !gv)
            continue;
        n++;
        uint64_t lo = held ? gv->low.size : g->layout.guest[id].low.size;
        unsigned sl = held ? gv->n_slots : g->layout.guest[id].n_slots;
        if (lo)
            low[nl++] = lo >> GEN9_GTT_PAGE_SHIFT;
        if (sl)
            high[nh++] = sl;
    }
    if (n < 2)
        return 0;
    uint64_t cycle = gtt_floor_cycle(g->layout.low_guest.size >> GEN9_GTT_PAGE_SHIFT, low, nl) +
                     gtt_floor_cycle(g->layout.n_slots, high, nh) * g->slot_entries;
    return cycle / n;
}

void vgpu_place_period(struct vgpu_dev *d)
{
    struct gtt *g = d->cfg.gtt;
    bool busy[GTT_MAX_VGPUS] = {0}, movable[GTT_MAX_VGPUS] = {0};
    bool pending = false;
    unsigned nbusy = 0;
    for (unsigned id = 0; id < VGPU_MAX && id < GTT_MAX_VGPUS; id++) {
        struct vgpu *v = d->v[id];
        if (!v)
            continue;
        busy[id] = v->q_len || v->st.completed != v->completed_seen;
        v->completed_seen = v->st.completed;
        nbusy += busy[id];
        /* A vGPU that did nothing for a whole period is idle to gtt again (the render loop
         * and the prediction mark the ones that work or will). */
        if (!busy[id])
            gtt_set_active(g, id, false);
        if (v->move_pending && ++v->move_age > MOVE_MAX_AGE) {
            v->move_pending = false;
            d->st.moves_withdrawn++;
        }
        pending |= v->move_pending;
        movable[id] = (v->pv.tessera_move.caps & TESSERA_MOVE_CAP_FOLLOW) != 0;
    }
    uint64_t sw = d->st.switches - d->switches_seen;
    d->switches_seen = d->st.switches;
    d->st.floor_entries += floor_per_switch(d, busy, false) * sw;
    d->st.floor_held_entries += floor_per_switch(d, busy, true) * sw;
    d->st.floor_switches += sw;
    d->st.busy_vgpus = nbusy;
    d->st.place_periods++;
    if (pending || nbusy < 2)
        return;
    struct gtt_move mv[GTT_MAX_VGPUS];
    int n = gtt_plan(g, &(struct gtt_plan_input){busy, movable, NULL}, mv, GTT_MAX_VGPUS, NULL);
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
