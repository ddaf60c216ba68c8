/* The two-threshold balloon controller (policy only; see balloon_ctl.h). */
#include "gtt/balloon_ctl.h"

#include <stdbool.h>
#include <stddef.h>

void gtt_ctl_defaults(struct gtt_ctl_params *p)
{
    p->w_max_ppm = 1000000;
    p->rcopy_max_ppm = 100000;
    p->th_low = 500;
    p->th_high = 1000;
    p->mid_shrink = 1;
    p->high_shrink = 2;
    p->period_ms = 500;
}

static uint32_t term(uint32_t x, uint32_t max)
{
    if (max == 0)
        return 0;
    uint64_t t = (uint64_t)x * 1000 / max;
    return t > 1000 ? 1000 : (uint32_t)t;
}

uint32_t gtt_ctl_f(const struct gtt_ctl_params *p, uint32_t w_ppm, uint32_t rcopy_ppm)
{
    return term(w_ppm, p->w_max_ppm) + term(rcopy_ppm, p->rcopy_max_ppm);
}

static bool push(struct gtt_ctl_action *out, unsigned cap, unsigned *n, enum gtt_ctl_kind k,
                 unsigned id, unsigned q)
{
    if (*n >= cap)
        return false;
    out[(*n)++] = (struct gtt_ctl_action){ k, id, q };
    return true;
}

/* Unused memory in thousandths of a slot: the "much memory, little use" score. */
static uint64_t unused(const struct gtt_ctl_vgpu *v)
{
    uint32_t u = v->util_permille > 1000 ? 1000 : v->util_permille;
    return (uint64_t)v->slots * (1000 - u);
}

int gtt_ctl_decide(const struct gtt_ctl_params *p, uint32_t w_ppm, uint32_t rcopy_ppm,
                   const struct gtt_ctl_vgpu *v, unsigned n, struct gtt_ctl_action *out,
                   unsigned cap, enum gtt_ctl_band *band, uint32_t *f_out)
{
    if (!p || (n && !v) || (cap && !out) || p->th_low > p->th_high)
        return GTT_EINVAL;
    uint32_t f = gtt_ctl_f(p, w_ppm, rcopy_ppm);
    enum gtt_ctl_band b = f < p->th_low ? GTT_CTL_LOW : f < p->th_high ? GTT_CTL_MID : GTT_CTL_HIGH;
    if (band)
        *band = b;
    if (f_out)
        *f_out = f;
    unsigned na = 0;

    for (unsigned i = 0; i < n; i++)
        if (v[i].grow_request)
            push(out, cap, &na, b == GTT_CTL_HIGH ? GTT_CTL_REFUSE : GTT_CTL_GROW, v[i].id,
                 v[i].grow_request);
    if (b == GTT_CTL_LOW)
        return (int)na;

    if (b == GTT_CTL_MID) {
        /* One vGPU: most unused memory among those not asking for more and above their
         * minimum; ties to the one with more slots, then the lower id. */
        int pickv = -1;
        for (unsigned i = 0; i < n; i++) {
            if (v[i].grow_request || v[i].slots <= v[i].min_slots)
                continue;
            if (pickv < 0 || unused(&v[i]) > unused(&v[pickv]) ||
                (unused(&v[i]) == unused(&v[pickv]) && v[i].slots > v[pickv].slots))
                pickv = (int)i;
        }
        if (pickv >= 0) {
            unsigned room = v[pickv].slots - v[pickv].min_slots;
            unsigned q = p->mid_shrink < room ? p->mid_shrink : room;
            if (q)
                push(out, cap, &na, GTT_CTL_SHRINK, v[pickv].id, q);
        }
        return (int)na;
    }

    /* High: reclaim high_shrink slots regardless of use, largest holders first. */
    unsigned left = p->high_shrink;
    unsigned taken[256] = { 0 }; /* per input index, slots already reclaimed (n <= 256) */
    if (n > 256)
        return GTT_EINVAL;
    while (left) {
        int pickv = -1;
        for (unsigned i = 0; i < n; i++) {
            unsigned have = v[i].slots - taken[i];
            if (have <= v[i].min_slots)
                continue;
            if (pickv < 0 || have > v[pickv].slots - taken[pickv] ||
                (have == v[pickv].slots - taken[pickv] &&
                 v[i].util_permille < v[pickv].util_permille))
                pickv = (int)i;
        }
        if (pickv < 0)
            break;
        taken[pickv]++;
        left--;
    }
    for (unsigned i = 0; i < n; i++)
        if (taken[i])
            push(out, cap, &na, GTT_CTL_SHRINK, v[i].id, taken[i]);
    return (int)na;
}
