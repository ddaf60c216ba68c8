/* Statistics for the shell and the benchmarks: ranges, slots, sharing, copies, fence pool use
 * and balloon events, summarised from the live state and the counters. */
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

uint32_t gtt_vgpu_use_permille(const struct gtt *g, unsigned vgpu)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    if (!v)
        return 0;
    uint64_t mapped = v->low_mapped, total = gtt_page_of(v->low.size);
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s]) {
            mapped += v->slot_mapped[s];
            total += g->slot_entries;
        }
    return total ? (uint32_t)(mapped * 1000u / total) : 0;
}

int gtt_vgpu_summarize(const struct gtt *g, unsigned vgpu, struct gtt_vgpu_summary *s)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    memset(s, 0, sizeof *s);
    if (!v)
        return GTT_ENOENT;
    s->exists = true;
    s->active = v->active;
    s->low = v->low;
    s->n_slots = v->n_slots;
    bool first = true;
    for (unsigned k = 0; k < g->layout.n_slots; k++) {
        if (!v->slot_host[k])
            continue;
        if (first)
            s->first_slot = k;
        first = false;
        s->last_slot = k;
        unsigned share = g->slot_sharers[k];
        if (share > 1)
            s->shared_slots++;
        if (share > s->max_sharing)
            s->max_sharing = share;
    }
    for (unsigned i = 0; i < v->n_fences; i++) {
        if (v->fence[i].pooled) {
            s->fences_active++;
            s->fence_bytes += v->fence[i].guest.size;
        }
        s->fences_pending += v->fence[i].pending;
    }
    s->fence_share = v->pool.size;
    s->st = v->st;
    return 0;
}

void gtt_summarize(const struct gtt *g, struct gtt_summary *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned i = 0; i < GTT_MAX_VGPUS; i++)
        if (g->vgpu[i]) {
            s->n_vgpus++;
            s->n_active += g->vgpu[i]->active;
        }
    s->n_slots = g->layout.n_slots;
    for (unsigned k = 0; k < g->layout.n_slots; k++) {
        unsigned share = g->slot_sharers[k];
        s->slots_used += share > 0;
        s->slots_shared += share > 1;
        if (share > s->max_sharing)
            s->max_sharing = share;
    }
    /* The pool is handed out in shares; what fences use is inside the shares. */
    s->pool_bytes = g->pool.size;
    s->pool_largest_free = gtt_pool_largest_free(&g->pool);
    for (unsigned i = 0; i < GTT_MAX_VGPUS; i++) {
        const struct gtt_vgpu *v = g->vgpu[i];
        if (!v)
            continue;
        s->pool_used += gtt_pool_used(&v->pool);
        s->pool_ranges += v->pool.n_used;
        if (gtt_pool_largest_free(&v->pool) > s->pool_largest_free)
            s->pool_largest_free = gtt_pool_largest_free(&v->pool);
    }
    s->st = g->st;
}
