/* Applying balloon plans to a struct gtt: granting and releasing slots.  The plan (which slots)
 * comes from gtt/balloon.c; this file only checks limits, moves shadows and keeps the physical
 * GGTT right for the running vGPU.  Only the ballooning vGPU's slot set changes: no other vGPU's
 * range moves. */
#include <stdlib.h>

#include "gtt/balloon.h"
#include "gtt/gtt.h"
#include "gtt/internal.h"

bool gtt_vgpu_has_slot(const struct gtt *g, unsigned vgpu, unsigned slot)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    return v && slot < g->layout.n_slots && v->slot_host[slot];
}

unsigned gtt_vgpu_slots(const struct gtt *g, unsigned vgpu, unsigned *out, unsigned cap)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    unsigned n = 0;
    if (!v)
        return 0;
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s]) {
            if (n < cap && out)
                out[n] = s;
            n++;
        }
    return n;
}

/* Whether vGPU o's slots count as sharing when planning for v. */
static bool counts(const struct gtt *g, const struct gtt_vgpu *o, const struct gtt_vgpu *v)
{
    return o == v || o->active || g->balloon_count_idle;
}

/* Per-slot occupancy by the vGPUs that count (malloc'd; NULL on failure). */
static uint16_t *occupancy(const struct gtt *g, const struct gtt_vgpu *v)
{
    unsigned M = g->layout.n_slots;
    uint16_t *occ = calloc(M ? M : 1, sizeof *occ);
    if (!occ)
        return NULL;
    for (unsigned j = 0; j < GTT_MAX_VGPUS; j++) {
        const struct gtt_vgpu *o = g->vgpu[j];
        if (o && counts(g, o, v))
            for (unsigned s = 0; s < M; s++)
                occ[s] += o->slot_host[s] != NULL;
    }
    return occ;
}

/* Contiguous plan: fills out[] with the q slots to add (grow) or remove (shrink). */
static int plan_contiguous(struct gtt *g, struct gtt_vgpu *v, unsigned q, bool grow, unsigned *out)
{
    unsigned M = g->layout.n_slots;
    if (grow && v->n_slots == 0) {
        unsigned start;
        uint16_t *occ = occupancy(g, v);
        if (!occ)
            return GTT_ENOMEM;
        int rc = gtt_balloon_place(M, occ, q, &start);
        free(occ);
        if (rc)
            return rc;
        for (unsigned k = 0; k < q; k++)
            out[k] = start + k;
        return 0;
    }
    unsigned P[GTT_MAX_VGPUS], S[GTT_MAX_VGPUS], L, R;
    for (unsigned j = 0; j < GTT_MAX_VGPUS; j++) {
        const struct gtt_vgpu *o = g->vgpu[j];
        bool c = o && counts(g, o, v);
        P[j] = c && o->n_slots ? gtt_first_slot(g, o) : 0;
        S[j] = c ? o->n_slots : 0;
    }
    unsigned pk = P[v->id], sk = S[v->id];
    int rc = grow ? gtt_balloon_expand(M, GTT_MAX_VGPUS, P, S, v->id, q, &L, &R)
                  : gtt_balloon_reduce(M, GTT_MAX_VGPUS, P, S, v->id, q, &L, &R);
    if (rc)
        return rc;
    unsigned n = 0;
    if (grow) {
        for (unsigned k = 0; k < L; k++)
            out[n++] = pk - L + k;
        for (unsigned k = 0; k < R; k++)
            out[n++] = pk + sk + k;
    } else {
        for (unsigned k = 0; k < L; k++)
            out[n++] = pk + k;
        for (unsigned k = 0; k < R; k++)
            out[n++] = pk + sk - R + k;
    }
    return 0;
}

void gtt_vgpu_hold_slots(struct gtt *g, unsigned vgpu, bool hold)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (v)
        v->slots_held = hold;
}

static int balloon(struct gtt *g, unsigned vgpu, unsigned q, bool grow)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (!v)
        return GTT_ENOENT;
    if (q == 0)
        return 0;
    if (!grow && v->slots_held)
        return GTT_EBUSY;
    unsigned M = g->layout.n_slots;
    bool within = grow ? (v->n_slots + q <= v->max_slots && v->n_slots + q <= M)
                       : (q <= v->n_slots && v->n_slots - q >= v->min_slots);
    int rc = GTT_ELIMIT;
    unsigned *plan = NULL;
    if (within) {
        plan = malloc(q * sizeof *plan);
        if (!plan)
            return GTT_ENOMEM;
        if (g->slot_mode == GTT_SLOTS_CONTIGUOUS) {
            rc = plan_contiguous(g, v, q, grow, plan);
        } else {
            uint16_t *occ = occupancy(g, v);
            rc = !occ ? GTT_ENOMEM
               : grow ? gtt_balloon_sparse_grow(M, occ, v->slot_set, q, plan)
                      : gtt_balloon_sparse_shrink(M, occ, v->slot_set, q, plan);
            free(occ);
        }
    }
    if (rc) {
        free(plan);
        v->st.balloon_refused++;
        g->st.balloon_refused++;
        return rc;
    }
    if (grow) {
        for (unsigned k = 0; k < q; k++) {
            rc = gtt_slot_grant(g, v, plan[k]);
            if (rc) {
                while (k--)
                    gtt_slot_release(g, v, plan[k]);
                free(plan);
                return rc;
            }
        }
        /* The running vGPU may use its new slots at once: they must hold its (scratch) shadow,
         * not whatever another vGPU left there. */
        if (g->running == vgpu) {
            uint64_t w = 0;
            for (unsigned k = 0; k < q; k++)
                w += gtt_copy_slot(g, v, plan[k]);
            g->st.entries_balloon += w;
            v->st.entries_balloon += w;
        }
        v->st.balloon_grows++;
        g->st.balloon_grows++;
    } else {
        for (unsigned k = 0; k < q; k++)
            gtt_slot_release(g, v, plan[k]);
        v->st.balloon_shrinks++;
        g->st.balloon_shrinks++;
    }
    free(plan);
    return 0;
}

int gtt_balloon_grow(struct gtt *g, unsigned vgpu, unsigned q)
{
    int rc = balloon(g, vgpu, q, true);
    return g ? (int)gtt_done(g, rc) : rc;
}

int gtt_balloon_shrink(struct gtt *g, unsigned vgpu, unsigned q)
{
    int rc = balloon(g, vgpu, q, false);
    return g ? (int)gtt_done(g, rc) : rc;
}

int gtt_balloon_period(struct gtt *g, const struct gtt_ctl_params *p, uint32_t w_ppm,
                       uint32_t rcopy_ppm, const uint32_t *util, const unsigned *req,
                       struct gtt_ctl_report *rep)
{
    if (!g || !p || !rep)
        return GTT_EINVAL;
    struct gtt_ctl_vgpu in[GTT_MAX_VGPUS];
    struct gtt_ctl_action act[2 * GTT_MAX_VGPUS];
    unsigned n = 0;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = g->vgpu[id];
        if (!v)
            continue;
        in[n++] = (struct gtt_ctl_vgpu){
            .id = id,
            .slots = v->n_slots,
            .min_slots = v->slots_held ? v->n_slots : v->min_slots,
            .max_slots = v->max_slots,
            .util_permille = util ? util[id] : 0,
            .grow_request = req ? req[id] : 0,
        };
    }
    int na = gtt_ctl_decide(p, w_ppm, rcopy_ppm, in, n, act, 2 * GTT_MAX_VGPUS, &rep->band,
                            &rep->f);
    if (na < 0)
        return na;
    rep->granted = rep->refused = rep->shrunk_slots = 0;
    for (int i = 0; i < na; i++) {
        const struct gtt_ctl_action *a = &act[i];
        struct gtt_vgpu *v = g->vgpu[a->vgpu];
        switch (a->kind) {
        case GTT_CTL_GROW: {
            /* Clip to the vGPU's maximum; asking beyond it is granted up to it. */
            unsigned room = v->max_slots > v->n_slots ? v->max_slots - v->n_slots : 0;
            unsigned q = a->q < room ? a->q : room;
            if (q && gtt_balloon_grow(g, a->vgpu, q) == 0)
                rep->granted++;
            else {
                if (!q) {
                    v->st.balloon_refused++;
                    g->st.balloon_refused++;
                }
                rep->refused++;
            }
            break;
        }
        case GTT_CTL_REFUSE:
            v->st.balloon_refused++;
            g->st.balloon_refused++;
            rep->refused++;
            break;
        case GTT_CTL_SHRINK:
            if (gtt_balloon_shrink(g, a->vgpu, a->q) == 0)
                rep->shrunk_slots += a->q;
            break;
        }
    }
    return na;
}
