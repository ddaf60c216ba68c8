/* Placement planning (issue 14): where busy vGPUs' low windows and slot ranges should be so
 * that switching between them copies as little as possible (the cost model is gtt/floor.c).
 * Pure policy: it reads a struct gtt and returns moves; gtt_vgpu_relocate() applies them, once
 * the guest agrees (vmm/vgpu/vgpu_move.c).
 *
 * Each of the two areas is planned on its own: low windows in pages of the guest low area,
 * slot ranges in slots.  Only busy vGPUs are placed; idle ones may overlap anything, since an
 * idle vGPU is never copied.  Three candidates are costed and the cheapest wins, ties going to
 * the fewest moves:
 *   - as they are;
 *   - few moves: busy ranges that overlap no other stay, the others go to the first place
 *     free of busy ranges, and what finds none is stacked on the one place that costs least;
 *   - packed: movable busy ranges, largest first, side by side from the start of the area
 *     (where ranges that cannot move leave room), the rest stacked: what reaches the floor
 *     when there are more busy ranges than fit.
 * A range that cannot move (its guest does not follow re-placements, or a fence pins its
 * window) keeps its place in every candidate. */
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

#define PAGE GTT_PAGE_BYTES

struct span {
    unsigned id;
    uint64_t at, len;       /* current start; length wanted */
    uint64_t to;            /* planned start */
    bool movable;
};

struct area {
    struct span *sp;
    unsigned n;
    uint64_t lo, hi;
    uint64_t *st, *sz;      /* scratch for costing */
};

static uint64_t cost_of(struct area *a, const uint64_t *starts)
{
    for (unsigned i = 0; i < a->n; i++) {
        a->st[i] = starts[i];
        a->sz[i] = a->sp[i].len;
    }
    return gtt_cover_cost(a->st, a->sz, a->n);
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* The first start >= lo where [start, start + len) fits below hi and meets none of the placed
 * spans (placed[i] true, at pos[i]).  UINT64_MAX if there is none. */
static uint64_t first_fit(const struct area *a, const uint64_t *pos, const bool *placed,
                          uint64_t len)
{
    uint64_t at = a->lo;
    for (;;) {
        if (at + len > a->hi)
            return UINT64_MAX;
        uint64_t bump = 0;
        for (unsigned i = 0; i < a->n; i++)
            if (placed[i] && overlaps(at, len, pos[i], a->sp[i].len) &&
                pos[i] + a->sp[i].len > bump)
                bump = pos[i] + a->sp[i].len;
        if (!bump)
            return at;
        at = bump;
    }
}

/* Puts every span not yet placed on one common place: the start (candidates: the area's ends
 * and the edges of the placed spans) that costs least. */
static void stack_rest(struct area *a, uint64_t *pos, bool *placed)
{
    uint64_t maxlen = 0;
    for (unsigned i = 0; i < a->n; i++)
        if (!placed[i] && a->sp[i].len > maxlen)
            maxlen = a->sp[i].len;
    if (!maxlen)
        return;
    uint64_t best = a->lo, best_cost = UINT64_MAX;
    for (unsigned c = 0; c <= 2 * a->n + 1; c++) {
        uint64_t p;
        if (c == 0)
            p = a->lo;
        else if (c == 1)
            p = a->hi - maxlen;
        else if (!placed[(c - 2) / 2])
            continue;
        else if ((c - 2) % 2 == 0)
            p = pos[(c - 2) / 2];
        else
            p = pos[(c - 2) / 2] + a->sp[(c - 2) / 2].len;
        if (p < a->lo || p + maxlen > a->hi)
            continue;
        for (unsigned i = 0; i < a->n; i++)
            if (!placed[i])
                pos[i] = p;
        uint64_t cost = cost_of(a, pos);
        if (cost < best_cost) {
            best_cost = cost;
            best = p;
        }
    }
    for (unsigned i = 0; i < a->n; i++)
        if (!placed[i])
            pos[i] = best;
}

static int cmp_span(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Candidate "few moves". */
static void plan_few(struct area *a, uint64_t *pos, bool *placed)
{
    for (unsigned i = 0; i < a->n; i++) {
        pos[i] = a->sp[i].at;
        placed[i] = !a->sp[i].movable;
    }
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i] || a->sp[i].at + a->sp[i].len > a->hi)
            continue;
        bool clash = false;
        for (unsigned j = 0; j < a->n && !clash; j++)
            clash = j != i && overlaps(a->sp[i].at, a->sp[i].len, a->sp[j].at, a->sp[j].len);
        placed[i] = !clash;
    }
    /* Of a group overlapping each other, the first (largest) keeps its place if it can. */
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i] || a->sp[i].at + a->sp[i].len > a->hi)
            continue;
        bool clash = false;
        for (unsigned j = 0; j < a->n && !clash; j++)
            clash = j != i && placed[j] && overlaps(a->sp[i].at, a->sp[i].len, pos[j],
                                                    a->sp[j].len);
        placed[i] = !clash;
    }
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i])
            continue;
        uint64_t p = first_fit(a, pos, placed, a->sp[i].len);
        if (p != UINT64_MAX) {
            pos[i] = p;
            placed[i] = true;
        }
    }
    stack_rest(a, pos, placed);
}

/* Candidate "packed". */
static void plan_packed(struct area *a, uint64_t *pos, bool *placed)
{
    for (unsigned i = 0; i < a->n; i++) {
        pos[i] = a->sp[i].at;
        placed[i] = !a->sp[i].movable;
    }
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i])
            continue;
        uint64_t p = first_fit(a, pos, placed, a->sp[i].len);
        if (p != UINT64_MAX) {
            pos[i] = p;
            placed[i] = true;
        }
    }
    stack_rest(a, pos, placed);
}

static unsigned moves_of(const struct area *a, const uint64_t *pos)
{
    unsigned m = 0;
    for (unsigned i = 0; i < a->n; i++)
        m += pos[i] != a->sp[i].at;
    return m;
}

/* Plans one area: sets sp[i].to; returns the planned cost, *now the current one. */
static uint64_t plan_area(struct area *a, uint64_t *now)
{
    qsort(a->sp, a->n, sizeof *a->sp, cmp_span);
    uint64_t *cur = malloc(a->n * sizeof *cur), *few = malloc(a->n * sizeof *few);
    uint64_t *packed = malloc(a->n * sizeof *packed);
    bool *placed = malloc(a->n * sizeof *placed);
    if (!cur || !few || !packed || !placed) {
        free(cur), free(few), free(packed), free(placed);
        for (unsigned i = 0; i < a->n; i++)
            a->sp[i].to = a->sp[i].at;
        *now = 0;
        return 0;
    }
    for (unsigned i = 0; i < a->n; i++)
        cur[i] = a->sp[i].at;
    /* A span that would stick out of the area (it grew in place) must move. */
    bool must = false;
    for (unsigned i = 0; i < a->n; i++)
        must |= a->sp[i].at + a->sp[i].len > a->hi;
    *now = cost_of(a, cur);
    plan_few(a, few, placed);
    uint64_t c_few = cost_of(a, few);
    plan_packed(a, packed, placed);
    uint64_t c_packed = cost_of(a, packed);
    const uint64_t *best = cur;
    uint64_t c_best = must ? UINT64_MAX : *now;
    if (c_few < c_best || (c_few == c_best && moves_of(a, few) < moves_of(a, best))) {
        best = few;
        c_best = c_few;
    }
    if (c_packed < c_best || (c_packed == c_best && moves_of(a, packed) < moves_of(a, best))) {
        best = packed;
        c_best = c_packed;
    }
    for (unsigned i = 0; i < a->n; i++)
        a->sp[i].to = best[i];
    free(cur), free(few), free(packed), free(placed);
    return c_best;
}

static bool fenced(const struct gtt_vgpu *v)
{
    for (unsigned i = 0; i < v->n_fences; i++)
        if (v->fence[i].pooled)
            return true;
    return false;
}

static unsigned first_slot_of(const struct gtt *g, const struct gtt_vgpu *v)
{
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s])
            return s;
    return 0;
}

int gtt_plan(const struct gtt *g, const struct gtt_plan_input *in, struct gtt_move *out,
             unsigned cap, struct gtt_plan_report *rep)
{
    if (!g || !in || !in->busy || !in->movable || (!out && cap))
        return GTT_EINVAL;
    struct span *lo = calloc(GTT_MAX_VGPUS, sizeof *lo), *hi = calloc(GTT_MAX_VGPUS, sizeof *hi);
    uint64_t *st = malloc(GTT_MAX_VGPUS * sizeof *st), *sz = malloc(GTT_MAX_VGPUS * sizeof *sz);
    if (!lo || !hi || !st || !sz) {
        free(lo), free(hi), free(st), free(sz);
        return GTT_ENOMEM;
    }
    unsigned nl = 0, nh = 0;
    const uint64_t P = PAGE;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = g->vgpu[id];
        if (!v || !in->busy[id])
            continue;
        if (v->low.size) {
            uint64_t len = v->low.size / P;
            bool can = in->movable[id] && !fenced(v);
            uint64_t want = in->low_want ? in->low_want[id] / P : 0;
            if (can && want && want < len && want * P >= gtt_vgpu_low_extent(g, id))
                len = want;
            lo[nl++] = (struct span){id, v->low.start / P, len, 0, can};
        }
        if (v->n_slots)
            hi[nh++] = (struct span){id, first_slot_of(g, v), v->n_slots, 0,
                                     in->movable[id] && g->slot_mode == GTT_SLOTS_CONTIGUOUS};
    }
    struct area al = {lo, nl, g->layout.low_guest.start / P,
                      (g->layout.low_guest.start + g->layout.low_guest.size) / P, st, sz};
    struct area ah = {hi, nh, 0, g->layout.n_slots, st, sz};
    uint64_t now_l, now_h;
    uint64_t plan_l = plan_area(&al, &now_l), plan_h = plan_area(&ah, &now_h);
    if (rep) {
        rep->cost_now = now_l + now_h * g->slot_entries;
        rep->cost_plan = plan_l + plan_h * g->slot_entries;
    }
    /* One move per vGPU whose window or slot range changes. */
    unsigned n = 0;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = g->vgpu[id];
        if (!v || !in->busy[id])
            continue;
        struct gtt_move m = {id, v->low, first_slot_of(g, v)};
        bool change = false;
        for (unsigned i = 0; i < nl; i++)
            if (lo[i].id == id && (lo[i].to != lo[i].at || lo[i].len * P != v->low.size)) {
                m.low = (struct gtt_range){lo[i].to * P, lo[i].len * P};
                change = true;
            }
        for (unsigned i = 0; i < nh; i++)
            if (hi[i].id == id && hi[i].to != hi[i].at) {
                m.first_slot = (unsigned)hi[i].to;
                change = true;
            }
        if (change && n < cap)
            out[n++] = m;
    }
    free(lo), free(hi), free(st), free(sz);
    return (int)n;
}
