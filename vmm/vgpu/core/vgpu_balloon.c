/* Graphics-memory ballooning at run time (docs/gtt.md, gBalloon): guests ask through the PV
 * page's Tessera extension, the controller decides every period from measured pressure, the
 * operator can force a change; every change reaches the guest as new avail_rs and a generation.
 * Slots change only while nothing is on the GPU, and workloads scanned against memory that has
 * since gone are never run (range_gen). */
#include "vmm/vgpu/core/vgpu_internal.h"

#include <stdio.h>
#include <string.h>

/* The slots v's preempted, half-executed workloads touch (scanner's ranges_touched, kept as a
 * slot mask on each workload): they cannot be scanned again against fewer. */
static uint64_t preempted_slots(const struct vgpu *v)
{
    uint64_t needed = 0;
    for (unsigned i = 0, k = 0; i < v->q_len && k < v->preempted; i++) {
        const struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (w->inflight) {
            needed |= w->slots_touched;
            k++;
        }
    }
    return needed;
}

/* avail_rs from gtt/'s view of the vGPU; a change bumps the generation and, if memory went
 * away, the range generation that invalidates queued workloads. */
void vgpu_pv_update_ranges(struct vgpu *v)
{
    const struct gtt *g = v->dev->cfg.gtt;
    const struct gtt_vgpu *gv = gtt_vgpu_get(g, v->id);
    struct igpu_scan_range old[VGPU_MAX_RANGES];
    size_t n_old = v->n_ranges;
    memcpy(old, v->ranges, n_old * sizeof old[0]);

    unsigned slots[VGPU_MAX_RANGES];
    unsigned n = gtt_vgpu_slots(g, v->id, slots, VGPU_MAX_RANGES - 1);
    v->pv.avail_rs.mappable_gmadr.base = gv ? (uint32_t)gv->low.start : 0;
    v->pv.avail_rs.mappable_gmadr.size = gv ? (uint32_t)gv->low.size : 0;
    /* Contiguous slots (GTT_SLOTS_CONTIGUOUS) are one range, which is what i915 can read. */
    v->pv.avail_rs.nonmappable_gmadr.base = n ? (uint32_t)(g->layout.slots.start +
                                                           (uint64_t)slots[0] *
                                                               g->layout.slot_bytes)
                                              : 0;
    v->pv.avail_rs.nonmappable_gmadr.size = (uint32_t)((uint64_t)n * g->layout.slot_bytes);
    vgpu_ranges_refresh(v);

    bool changed = n_old != v->n_ranges || memcmp(old, v->ranges, n_old * sizeof old[0]) != 0;
    bool lost = false;
    for (size_t i = 0; i < n_old; i++)
        if (!igpu_scan_ranges_contain(v->ranges, v->n_ranges, old[i].start, old[i].size))
            lost = true;
    if (lost) {
        v->range_gen++;
        /* Work left midway by a preemption cannot be scanned again (its batch copies are half
         * executed): it goes on if it uses none of the slots that went away, else it is
         * dropped as a reset drops work. */
        uint64_t gone = vgpu_slot_mask(v, old, n_old, NULL) &
                        ~vgpu_slot_mask(v, v->ranges, v->n_ranges, NULL);
        if (preempted_slots(v) & gone) {
            vgpu_note_reject(v, TESSERA_REJECT_SHRUNK,
                             "graphics memory ballooned away while its "
                             "preempted workload used it");
            vgpu_reset(v->dev, v->id, "graphics memory ballooned away from preempted work");
        }
        vgpu_rescan_queued(v);
    }
    if (changed && n_old)
        v->pv.tessera_balloon.generation++;
    v->pv.tessera_balloon.slots = n;
}

static void answer(struct vgpu *v, bool granted)
{
    v->pv.tessera_balloon.status = granted ? TESSERA_BALLOON_GRANTED : TESSERA_BALLOON_REFUSED;
    if (granted)
        v->st.balloon_granted++;
    else
        v->st.balloon_refused++;
}

/* The guest wrote TESSERA_G2V_BALLOON: a shrink is taken at the next idle point, a growth waits
 * for the controller's decision. */
void vgpu_balloon_notify(struct vgpu *v)
{
    int32_t req = v->pv.tessera_balloon.request;
    v->st.balloon_requests++;
    v->pv.tessera_balloon.status = TESSERA_BALLOON_IDLE;
    if (req > 0 && v->dev->cfg.balloon_controller)
        v->grow_request = req;
    else if (req > 0)
        answer(v, false); /* nobody would ever decide: say no now */
    else if (req < 0)
        v->shrink_pending = -req;
    else
        answer(v, false);
    vgpu_logf(v->dev, VGPU_LOG_DEBUG, "vgpu %u: guest asks for %+d high-GM slots", v->id, req);
}

static int change_slots(struct vgpu_dev *d, struct vgpu *v, int delta)
{
    int rc = delta > 0 ? gtt_balloon_grow(d->cfg.gtt, v->id, (unsigned)delta)
                       : gtt_balloon_shrink(d->cfg.gtt, v->id, (unsigned)-delta);
    if (rc == 0) {
        vgpu_pv_update_ranges(v);
        d->st.balloon_events++;
    }
    return rc;
}

void vgpu_balloon_apply_pending(struct vgpu_dev *d)
{
    for (unsigned i = 0; i < VGPU_MAX; i++) {
        struct vgpu *v = d->v[i];
        if (!v || !v->shrink_pending)
            continue;
        int rc = change_slots(d, v, -v->shrink_pending);
        answer(v, rc == 0);
        vgpu_logf(d, VGPU_LOG_INFO, "vgpu %u: balloon -%d %s (now %u slots)", v->id,
                  v->shrink_pending, rc == 0 ? "done" : gtt_strerror(rc),
                  v->pv.tessera_balloon.slots);
        v->shrink_pending = 0;
    }
}

int vgpu_balloon_adjust(struct vgpu_dev *d, unsigned vm, int delta, char *err, size_t errlen)
{
    struct vgpu *v = vgpu_get(d, vm);
    if (!v || delta == 0) {
        snprintf(err, errlen, "%s", v ? "nothing to change" : "no such vGPU");
        return -1;
    }
    if (!vgpu_render_drain(d)) {
        snprintf(err, errlen,
                 "the GPU is still busy with a workload it cannot leave (within %llu ms); "
                 "try again",
                 (unsigned long long)(VGPU_DRAIN_MAX_NS / 1000000u));
        return -1;
    }
    int rc = change_slots(d, v, delta);
    if (rc != 0)
        snprintf(err, errlen, "%s",
                 rc == GTT_ELIMIT ? "beyond the guest's slot bounds or the free slots"
                                  : gtt_strerror(rc));
    else
        vgpu_logf(d, VGPU_LOG_INFO, "vgpu %u: operator balloon %+d: now %u slots", vm, delta,
                  v->pv.tessera_balloon.slots);
    return rc;
}

int vgpu_balloon_period(struct vgpu_dev *d, const struct gtt_ctl_params *p, uint32_t w_ppm,
                        uint32_t rcopy_ppm, struct gtt_ctl_report *rep)
{
    uint32_t util[GTT_MAX_VGPUS] = { 0 };
    unsigned req[GTT_MAX_VGPUS] = { 0 };
    unsigned before[VGPU_MAX] = { 0 };
    /* Slots change only with nothing on the engine: the running work is preempted (or may
     * finish) within a bounded time; if it cannot be, this period is skipped. */
    if (!vgpu_render_drain(d))
        return VGPU_BALLOON_BUSY;
    for (unsigned i = 0; i < VGPU_MAX && i < GTT_MAX_VGPUS; i++) {
        struct vgpu *v = d->v[i];
        if (!v)
            continue;
        util[i] = gtt_vgpu_use_permille(d->cfg.gtt, i);
        req[i] = v->grow_request > 0 ? (unsigned)v->grow_request : 0;
        before[i] = v->pv.tessera_balloon.slots;
        /* The drain may have preempted a vGPU's work midway: the controller leaves its slots
         * alone this period rather than drop that work (an operator's shrink still may). */
        gtt_vgpu_hold_slots(d->cfg.gtt, i, preempted_slots(v) != 0);
    }
    int rc = gtt_balloon_period(d->cfg.gtt, p, w_ppm, rcopy_ppm, util, req, rep);
    for (unsigned i = 0; i < VGPU_MAX && i < GTT_MAX_VGPUS; i++)
        if (d->v[i])
            gtt_vgpu_hold_slots(d->cfg.gtt, i, false);
    if (rc < 0)
        return rc;
    d->st.balloon_periods++;
    d->st.last_period = *rep;
    for (unsigned i = 0; i < VGPU_MAX; i++) {
        struct vgpu *v = d->v[i];
        if (!v)
            continue;
        vgpu_pv_update_ranges(v);
        unsigned after = v->pv.tessera_balloon.slots;
        if (after != before[i])
            d->st.balloon_events++;
        if (req[i]) {
            answer(v, after > before[i]);
            vgpu_logf(d, VGPU_LOG_INFO,
                      "vgpu %u: balloon +%u %s by the controller (f=%u.%03u): %u slots", i, req[i],
                      after > before[i] ? "granted" : "refused", rep->f / 1000, rep->f % 1000,
                      after);
            v->grow_request = 0;
        } else if (after != before[i]) {
            vgpu_logf(d, VGPU_LOG_INFO,
                      "vgpu %u: controller moved it from %u to %u slots (f=%u.%03u)", i, before[i],
                      after, rep->f / 1000, rep->f % 1000);
        }
    }
    return 0;
}

int vgpu_set_weight(struct vgpu_dev *d, unsigned vm, uint32_t weight)
{
    if (!vgpu_get(d, vm))
        return SCHED_ENOENT;
    int rc = sched_vgpu_set_weight(d->cfg.sched, vm, weight);
    if (rc == SCHED_OK)
        vgpu_cpu_engines_set_weight(d, vm, weight);
    return rc;
}
