/* Placement planning: where busy vGPUs' low windows and slot ranges should be so
 * that switching between them copies as little as possible.  Pure policy: it reads a struct
 * gtt and returns moves; gtt_vgpu_relocate() applies them, once the guest agrees
 * (vmm/vgpu/core/vgpu_move.c).
 *
 * Two costs, each vGPU weighted by how often it is brought in (in->freq; gtt/floor.c):
 *   - the switch path: entries of an incoming vGPU that the vGPU before it holds.  Predictive
 *     copying writes everything else while the previous vGPU still runs, but not what that
 *     one is using, so these the GPU waits for.  "Before it" is the owner before its last
 *     switch (gtt_vgpu.prev), which the scheduler's order makes a good guess for the next;
 *   - all entries: over units covered by k >= 2 busy ranges, the weights of their holders
 *     (CPU time, and GPU time for what lands on the switch path).
 * Candidates are compared on the switch path first, then on all entries, then on the moves
 * they take:
 *   - as they are;
 *   - few moves: busy ranges that overlap no other stay, the others go to the first place
 *     free of busy ranges, and what finds none is stacked on the one place that costs least;
 *   - grouped, for G = 1, 2, 3: as many ranges as fit apart (most often switched first), the
 *     others in G
 *     stacks side by side, each vGPU in a different stack from the one before it where the
 *     colouring allows.  G = 1 is the floor's placement; G >= 2 keeps consecutive vGPUs apart
 *     so their copies can all be written ahead, for a few more entries in total.
 * A plan that does not cut the cost by in->min_gain_ppm is not worth its moves (the running
 * system sets it: the weights and predecessors it measures move a little every period).
 * Each area is planned on its own: low windows in pages of the guest low area, slot ranges in
 * slots.  Only busy vGPUs are placed; idle ones may overlap anything, since an idle vGPU is
 * never copied.  A range that cannot move (its guest does not follow re-placements, or a fence
 * pins its window) keeps its place in every candidate. */
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

#define PAGE       GTT_PAGE_BYTES
#define MAX_STACKS 3u

struct span {
    unsigned id;
    uint64_t at, len; /* current start; length wanted */
    uint64_t at_len;  /* current length */
    uint64_t to;      /* planned start */
    bool movable;
    int prev;   /* index of the span of the vGPU before it, or -1 */
    uint64_t w; /* how often it is brought in */
};

struct area {
    struct span *sp;
    unsigned n;
    uint64_t lo, hi;
    uint64_t *st, *sz, *ww; /* scratch for costing */
    uint32_t min_gain_ppm;
};

struct cost {
    uint64_t path, total;
    unsigned moves;
};

static uint64_t overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    uint64_t lo = a > b ? a : b, hi = a + alen < b + blen ? a + alen : b + blen;
    return hi > lo ? hi - lo : 0;
}

static struct cost cost_of(struct area *a, const uint64_t *pos)
{
    struct cost c = { 0, 0, 0 };
    for (unsigned i = 0; i < a->n; i++) {
        a->st[i] = pos[i];
        a->sz[i] = a->sp[i].len;
        a->ww[i] = a->sp[i].w;
        int p = a->sp[i].prev;
        if (p >= 0)
            c.path += overlap(pos[i], a->sp[i].len, pos[p], a->sp[p].len) * a->sp[i].w;
        c.moves += pos[i] != a->sp[i].at || a->sp[i].len != a->sp[i].at_len;
    }
    c.total = gtt_cover_cost_weighted(a->st, a->sz, a->ww, a->n);
    return c;
}

static bool cheaper(struct cost x, struct cost y)
{
    if (x.path != y.path)
        return x.path < y.path;
    if (x.total != y.total)
        return x.total < y.total;
    return x.moves < y.moves;
}

/* The first start >= lo where [start, start + len) fits below hi and meets none of the placed
 * spans (placed[i], at pos[i]) nor the extra intervals ex[0..nex).  UINT64_MAX if none. */
static uint64_t first_fit(const struct area *a, const uint64_t *pos, const bool *placed,
                          const uint64_t (*ex)[2], unsigned nex, uint64_t len)
{
    uint64_t at = a->lo;
    for (;;) {
        if (len > a->hi || at > a->hi - len)
            return UINT64_MAX;
        uint64_t bump = 0;
        for (unsigned i = 0; i < a->n; i++)
            if (placed[i] && overlap(at, len, pos[i], a->sp[i].len) && pos[i] + a->sp[i].len > bump)
                bump = pos[i] + a->sp[i].len;
        for (unsigned i = 0; i < nex; i++)
            if (overlap(at, len, ex[i][0], ex[i][1]) && ex[i][0] + ex[i][1] > bump)
                bump = ex[i][0] + ex[i][1];
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
    if (!maxlen || maxlen > a->hi - a->lo)
        return;
    uint64_t best = a->lo;
    struct cost best_cost = { UINT64_MAX, UINT64_MAX, ~0u };
    for (unsigned c = 0; c < 2 * a->n + 2; c++) {
        uint64_t p;
        unsigned j = (c - 2) / 2;
        if (c == 0)
            p = a->lo;
        else if (c == 1)
            p = a->hi - maxlen;
        else if (!placed[j])
            continue;
        else
            p = c % 2 == 0 ? pos[j] : pos[j] + a->sp[j].len;
        if (p < a->lo || p > a->hi - maxlen)
            continue;
        for (unsigned i = 0; i < a->n; i++)
            if (!placed[i])
                pos[i] = p;
        struct cost cost = cost_of(a, pos);
        if (cheaper(cost, best_cost)) {
            best_cost = cost;
            best = p;
        }
    }
    for (unsigned i = 0; i < a->n; i++)
        if (!placed[i]) {
            pos[i] = best;
            placed[i] = true;
        }
}

/* Every span not placed yet goes to the first place free of placed spans, if there is one. */
static void place_apart(const struct area *a, uint64_t *pos, bool *placed)
{
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i])
            continue;
        uint64_t p = first_fit(a, pos, placed, NULL, 0, a->sp[i].len);
        if (p != UINT64_MAX) {
            pos[i] = p;
            placed[i] = true;
        }
    }
}

static void start_with_fixed(const struct area *a, uint64_t *pos, bool *placed)
{
    for (unsigned i = 0; i < a->n; i++) {
        pos[i] = a->sp[i].at;
        placed[i] = !a->sp[i].movable;
    }
}

static bool clashes(const struct area *a, unsigned i, const uint64_t *pos, const bool *placed,
                    bool only_placed)
{
    for (unsigned j = 0; j < a->n; j++)
        if (j != i && (!only_placed || placed[j]) &&
            overlap(a->sp[i].at, a->sp[i].len, only_placed ? pos[j] : a->sp[j].at, a->sp[j].len))
            return true;
    return false;
}

/* Candidate "few moves". */
static void plan_few(struct area *a, uint64_t *pos, bool *placed)
{
    start_with_fixed(a, pos, placed);
    /* Ranges that overlap no other busy range stay; then, of a group overlapping each other,
     * the first (largest) keeps its place if nothing kept is in its way. */
    for (unsigned i = 0; i < a->n; i++)
        if (!placed[i] && a->sp[i].at + a->sp[i].len <= a->hi)
            placed[i] = !clashes(a, i, pos, placed, false);
    for (unsigned i = 0; i < a->n; i++)
        if (!placed[i] && a->sp[i].at + a->sp[i].len <= a->hi)
            placed[i] = !clashes(a, i, pos, placed, true);
    place_apart(a, pos, placed);
    stack_rest(a, pos, placed);
}

/* Candidate "grouped" with g stacks; false if it cannot be built. */
static bool plan_grouped(struct area *a, unsigned g, uint64_t *pos, bool *placed, int *group)
{
    /* Movable ranges apart, largest first, as long as they fit; then the smallest of those
     * give their place up until g stacks of the largest remaining length fit beside them. */
    start_with_fixed(a, pos, placed);
    place_apart(a, pos, placed);
    uint64_t stack[MAX_STACKS][2];
    unsigned give_up = a->n;
    for (;;) {
        uint64_t rest = 0;
        for (unsigned i = 0; i < a->n; i++)
            if (!placed[i] && a->sp[i].len > rest)
                rest = a->sp[i].len;
        if (!rest)
            return g == 1; /* all apart: one candidate is enough */
        unsigned ns = 0;
        for (; ns < g; ns++) {
            uint64_t p = first_fit(a, pos, placed, (const uint64_t(*)[2])stack, ns, rest);
            if (p == UINT64_MAX)
                break;
            stack[ns][0] = p;
            stack[ns][1] = rest;
        }
        if (ns == g)
            break;
        while (give_up > 0 && !(placed[give_up - 1] && a->sp[give_up - 1].movable))
            give_up--;
        if (give_up == 0)
            return false;
        placed[--give_up] = false;
    }
    /* Colour the stacked ranges: each into the stack that keeps it away from the vGPUs before
     * and after it, then the emptiest. */
    unsigned members[MAX_STACKS] = { 0 };
    for (unsigned i = 0; i < a->n; i++)
        group[i] = -1;
    for (unsigned i = 0; i < a->n; i++) {
        if (placed[i])
            continue;
        unsigned best = 0, best_clash = ~0u;
        for (unsigned s = 0; s < g; s++) {
            unsigned clash = 0;
            int p = a->sp[i].prev;
            if (p >= 0 && group[p] == (int)s)
                clash++;
            for (unsigned j = 0; j < a->n; j++)
                if (a->sp[j].prev == (int)i && group[j] == (int)s)
                    clash++;
            if (clash < best_clash || (clash == best_clash && members[s] < members[best])) {
                best = s;
                best_clash = clash;
            }
        }
        group[i] = (int)best;
        members[best]++;
        pos[i] = stack[best][0];
        placed[i] = true;
    }
    return true;
}

/* Plans one area: sets sp[i].to; returns the chosen cost, *now the current one. */
static struct cost plan_area(struct area *a, struct cost *now)
{
    struct cost c_best = { 0, 0, 0 };
    *now = c_best;
    if (a->n == 0)
        return c_best;
    uint64_t *cur = malloc(a->n * sizeof *cur), *cand = malloc(a->n * sizeof *cand);
    uint64_t *best = malloc(a->n * sizeof *best);
    bool *placed = malloc(a->n * sizeof *placed);
    int *group = malloc(a->n * sizeof *group);
    if (!cur || !cand || !best || !placed || !group) {
        for (unsigned i = 0; i < a->n; i++)
            a->sp[i].to = a->sp[i].at;
        goto out;
    }
    bool must = false; /* a range sticking out of the area (it grew) must move */
    for (unsigned i = 0; i < a->n; i++) {
        cur[i] = best[i] = a->sp[i].at;
        must |= a->sp[i].at + a->sp[i].len > a->hi;
    }
    *now = c_best = cost_of(a, cur);
    if (must)
        c_best = (struct cost){ UINT64_MAX, UINT64_MAX, ~0u };
    for (unsigned k = 0; k <= MAX_STACKS; k++) {
        if (k == 0)
            plan_few(a, cand, placed);
        else if (!plan_grouped(a, k, cand, placed, group))
            continue;
        struct cost c = cost_of(a, cand);
        if (cheaper(c, c_best)) {
            c_best = c;
            memcpy(best, cand, a->n * sizeof *best);
        }
    }
    /* Not worth its moves: the current placement stays (unless a range sticks out). */
    uint64_t was = now->path + now->total, will = c_best.path + c_best.total;
    if (!must && a->min_gain_ppm &&
        was - will < was / 1000000 * a->min_gain_ppm + was % 1000000 * a->min_gain_ppm / 1000000) {
        memcpy(best, cur, a->n * sizeof *best);
        c_best = *now;
    }
    for (unsigned i = 0; i < a->n; i++)
        a->sp[i].to = best[i];
out:
    free(cur), free(cand), free(best), free(placed), free(group);
    return c_best;
}

static int cmp_span(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorts the spans, most often switched first, then largest, and links each to the span of its
 * vGPU's predecessor. */
static void order(const struct gtt *g, struct area *a)
{
    qsort(a->sp, a->n, sizeof *a->sp, cmp_span);
    for (unsigned i = 0; i < a->n; i++) {
        unsigned p = g->vgpu[a->sp[i].id]->prev;
        a->sp[i].prev = -1;
        for (unsigned j = 0; j < a->n && p != GTT_NO_VGPU; j++)
            if (j != i && a->sp[j].id == p)
                a->sp[i].prev = (int)j;
    }
}

int gtt_plan(const struct gtt *g, const struct gtt_plan_input *in, struct gtt_move *out,
             unsigned cap, struct gtt_plan_report *rep)
{
    if (!g || !in || !in->busy || !in->movable || (!out && cap))
        return GTT_EINVAL;
    struct span *lo = calloc(GTT_MAX_VGPUS, sizeof *lo), *hi = calloc(GTT_MAX_VGPUS, sizeof *hi);
    uint64_t *st = malloc(GTT_MAX_VGPUS * sizeof *st), *sz = malloc(GTT_MAX_VGPUS * sizeof *sz);
    uint64_t *ww = malloc(GTT_MAX_VGPUS * sizeof *ww);
    if (!lo || !hi || !st || !sz || !ww) {
        free(lo), free(hi), free(st), free(sz), free(ww);
        return GTT_ENOMEM;
    }
    unsigned nl = 0, nh = 0;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = g->vgpu[id];
        if (!v || !in->busy[id])
            continue;
        uint64_t w = in->freq && in->freq[id] ? in->freq[id] : 1;
        if (v->low.size) {
            uint64_t len = v->low.size / PAGE;
            bool can = in->movable[id] && !gtt_fenced(v);
            uint64_t want = in->low_want ? in->low_want[id] / PAGE : 0;
            uint64_t area = g->layout.low_guest.size / PAGE;
            if (can && want && want * PAGE >= gtt_vgpu_low_extent(g, id))
                len = want < area ? want : area;
            lo[nl++] = (struct span){ id, v->low.start / PAGE, len, v->low.size / PAGE, 0, can, -1,
                                      w };
        }
        if (v->n_slots)
            hi[nh++] = (struct span){
                id,         gtt_first_slot(g, v),
                v->n_slots, v->n_slots,
                0,          in->movable[id] && g->slot_mode == GTT_SLOTS_CONTIGUOUS,
                -1,         w
            };
    }
    struct area al = { lo,
                       nl,
                       g->layout.low_guest.start / PAGE,
                       (g->layout.low_guest.start + g->layout.low_guest.size) / PAGE,
                       st,
                       sz,
                       ww,
                       in->min_gain_ppm };
    struct area ah = { hi, nh, 0, g->layout.n_slots, st, sz, ww, in->min_gain_ppm };
    order(g, &al);
    order(g, &ah);
    struct cost now_l, now_h;
    struct cost plan_l = plan_area(&al, &now_l), plan_h = plan_area(&ah, &now_h);
    if (rep) {
        rep->cost_now = now_l.total + now_h.total * g->slot_entries;
        rep->cost_plan = plan_l.total + plan_h.total * g->slot_entries;
        rep->path_now = now_l.path + now_h.path * g->slot_entries;
        rep->path_plan = plan_l.path + plan_h.path * g->slot_entries;
        rep->moves = 0;
    }
    /* One move per vGPU whose window or slot range changes. */
    unsigned n = 0;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = g->vgpu[id];
        if (!v || !in->busy[id])
            continue;
        struct gtt_move m = { id, v->low, gtt_first_slot(g, v) };
        bool change = false;
        for (unsigned i = 0; i < nl; i++)
            if (lo[i].id == id && (lo[i].to != lo[i].at || lo[i].len * PAGE != v->low.size)) {
                m.low = (struct gtt_range){ lo[i].to * PAGE, lo[i].len * PAGE };
                change = true;
            }
        for (unsigned i = 0; i < nh; i++)
            if (hi[i].id == id && hi[i].to != hi[i].at) {
                m.first_slot = (unsigned)hi[i].to;
                change = true;
            }
        if (change && n < cap)
            out[n++] = m;
        if (change && rep)
            rep->moves++;
    }
    free(lo), free(hi), free(st), free(sz), free(ww);
    return (int)n;
}
