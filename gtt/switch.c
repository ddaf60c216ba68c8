/* Render-owner switches and predictive copying: the only places that copy a vGPU's shadow into
 * the physical GGTT in bulk.  What gets written depends on the copy mode:
 *   ENTRY  per-entry owner tracking: an entry is written only if it holds someone else's value;
 *   RANGE  per-range tracking as gScale did: a whole window or slot is written if any of it is
 *          someone else's;
 *   FULL   no tracking (gScale-basic): the whole allotment every time. */
#include "gtt/gtt.h"
#include "gtt/internal.h"

/* Writes entries [first, first + n) from shadow[] for vGPU id, a run of consecutive entries
 * at a time; `only_foreign` skips those it already owns. */
static uint64_t copy_run(struct gtt *g, uint16_t id, uint32_t first, uint32_t n,
                         const uint64_t *shadow, bool only_foreign)
{
    uint64_t w = 0;
    g->st.entries_checked += n;
    for (uint32_t k = 0; k < n;) {
        if (only_foreign && g->owner[first + k] == id) {
            k++;
            continue;
        }
        uint32_t run = 1;
        while (k + run < n && !(only_foreign && g->owner[first + k + run] == id))
            run++;
        gtt_phys_write_run(g, first + k, run, shadow + k);
        for (uint32_t i = first + k; i < first + k + run; i++)
            g->owner[i] = id;
        k += run;
        w += run;
    }
    return w;
}

/* Whether any entry of the low-GM part [first, first + n) is not id's; blocks the summary says
 * are wholly id's, or wholly another's, are answered without reading their entries. */
static bool any_foreign(struct gtt *g, uint16_t id, uint32_t first, uint32_t n)
{
    for (uint32_t i = first, end = first + n; i < end;) {
        uint32_t b = i / GTT_LOW_BLOCK_ENTRIES, be = gtt_low_block_end(g, b);
        uint32_t stop = be < end ? be : end;
        if (g->low_owner[b] != id) {
            if (g->low_owner[b] != GTT_OWNER_MIXED)
                return true;
            g->st.entries_checked += stop - i;
            for (uint32_t k = i; k < stop; k++)
                if (g->owner[k] != id)
                    return true;
        }
        i = stop;
    }
    return false;
}

/* Brings one slot of v into the physical GGTT per the copy mode. */
uint64_t gtt_copy_slot(struct gtt *g, struct gtt_vgpu *v, unsigned s)
{
    uint16_t id = (uint16_t)v->id;
    uint32_t first = g->first_slot_entry + s * g->slot_entries;
    uint64_t w;
    switch (g->copy) {
    case GTT_COPY_FULL:
        w = copy_run(g, id, first, g->slot_entries, v->slot_host[s], false);
        break;
    case GTT_COPY_RANGE:
        w = g->slot_owner[s] == id
              ? 0
              : copy_run(g, id, first, g->slot_entries, v->slot_host[s], false);
        break;
    default:
        w = g->slot_owner[s] == id ? 0
                                   : copy_run(g, id, first, g->slot_entries, v->slot_host[s], true);
        break;
    }
    g->slot_owner[s] = id;
    return w;
}

/* Brings the part [first, first + n) of v's low window into the physical GGTT, a summary block
 * at a time.  In ENTRY mode a block that is wholly v's is skipped unread: the
 * per-entry owner scan of two 64 MiB windows cost 12 ms of CPU per victim frame under Bochs (half
 * on the switch, half in the write-ahead), with not one entry to write.  Afterwards every entry
 * of the part is v's, so a block it covers whole is v's throughout; one it covers in part is
 * mixed unless it already was v's. */
static uint64_t copy_low(struct gtt *g, struct gtt_vgpu *v, uint32_t first, uint32_t n)
{
    uint16_t id = (uint16_t)v->id;
    const uint64_t *sh = v->low_host + (first - gtt_page_of(v->low.start));
    if (g->copy == GTT_COPY_RANGE && !any_foreign(g, id, first, n))
        return 0;
    bool only_foreign = g->copy == GTT_COPY_ENTRY;
    uint64_t w = 0;
    for (uint32_t i = first, end = first + n; i < end;) {
        uint32_t b = i / GTT_LOW_BLOCK_ENTRIES, bs = b * GTT_LOW_BLOCK_ENTRIES;
        uint32_t be = gtt_low_block_end(g, b), stop = be < end ? be : end;
        if (!only_foreign || g->low_owner[b] != id)
            w += copy_run(g, id, i, stop - i, sh + (i - first), only_foreign);
        if (i == bs && stop == be)
            g->low_owner[b] = id;
        else if (g->low_owner[b] != id)
            g->low_owner[b] = GTT_OWNER_MIXED;
        i = stop;
    }
    return w;
}

/* A switch brings `in` in: what was written ahead for it was used, the rest was not. */
static void settle_ahead(struct gtt *g, struct gtt_vgpu *in)
{
    if (!g->ahead_pending)
        return;
    g->st.ahead_used += in->ahead_pending;
    g->st.ahead_wasted += g->ahead_pending - in->ahead_pending;
    for (unsigned i = 0; i < GTT_MAX_VGPUS; i++)
        if (g->vgpu[i])
            g->vgpu[i]->ahead_pending = 0;
    g->ahead_pending = 0;
}

long gtt_switch_to(struct gtt *g, unsigned vgpu)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (!v)
        return GTT_ENOENT;
    if (!v->active)
        return GTT_EINVAL; /* idle vGPUs are skipped by the scheduler, never copied */
    if (g->running == vgpu)
        return 0;
    uint64_t w = 0;
    if (v->low.size)
        w += copy_low(g, v, gtt_page_of(v->low.start), gtt_page_of(v->low.size));
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s])
            w += gtt_copy_slot(g, v, s);
    settle_ahead(g, v);
    v->prev = g->running;
    g->running = vgpu;
    g->st.switches++;
    g->st.entries_switch += w;
    g->st.entries_last_switch = w;
    if (w > g->st.max_entries_switch)
        g->st.max_entries_switch = w;
    v->st.switches_in++;
    v->st.entries_switch += w;
    return gtt_done(g, (long)w);
}

long gtt_predict(struct gtt *g, unsigned next)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, next) : NULL;
    if (!v)
        return GTT_ENOENT;
    if (!v->active || g->running == next)
        return 0;
    const struct gtt_vgpu *run = g->running == GTT_NO_VGPU ? NULL : g->vgpu[g->running];
    uint64_t w = 0;

    /* Low window: the part outside the running vGPU's window (windows are intervals, so what is
     * left is at most one piece on each side). */
    uint32_t a = gtt_page_of(v->low.start), b = a + gtt_page_of(v->low.size);
    uint32_t ra = run ? gtt_page_of(run->low.start) : 0;
    uint32_t rb = run ? ra + gtt_page_of(run->low.size) : 0;
    if (a < b) {
        if (rb <= a || ra >= b || ra == rb) {
            w += copy_low(g, v, a, b - a);
        } else {
            if (a < ra)
                w += copy_low(g, v, a, ra - a);
            if (rb < b)
                w += copy_low(g, v, rb, b - rb);
        }
    }
    /* Slots the running vGPU does not hold. */
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s] && !(run && run->slot_host[s]))
            w += gtt_copy_slot(g, v, s);
    g->st.entries_predict += w;
    v->st.entries_predict += w;
    v->ahead_pending += w;
    g->ahead_pending += w;
    return gtt_done(g, (long)w);
}

int gtt_set_active(struct gtt *g, unsigned vgpu, bool active)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (!v)
        return GTT_ENOENT;
    v->active = active;
    return 0;
}
