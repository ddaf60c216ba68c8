/* The balloon controller (gBalloon §3.2): every period (0.5 s) the caller measures
 *   W       the share of time vCPUs wait runnable (steal time), and
 *   R_copy  the share of CPU time spent copying GGTT entries,
 * and the controller computes f(W, R_copy) = W / W_max + R_copy / R_copy_max (0..2) and applies
 * a two-threshold policy:
 *   f <  low           grant every growth request, shrink nobody;
 *   low <= f < high    grant requests, and shrink by one slot the vGPU that holds much memory and
 *                      uses little of it (most unused slots: slots x (1 - utilisation));
 *   f >= high          refuse every request and reclaim two slots, from the vGPUs holding the
 *                      most slots, whatever their use.
 * Which end of a range (or which slots) to give back is Algorithm 1's job (balloon.h).
 *
 * Pure policy in integers (no floating point in the hypervisor): W and R_copy in parts per
 * million, f and the thresholds in thousandths (gBalloon's 0.5 and 1.0 are 500 and 1000). */
#ifndef GTT_BALLOON_CTL_H
#define GTT_BALLOON_CTL_H

#include <stdint.h>

#include "gtt/err.h"

struct gtt_ctl_params {
    uint32_t w_max_ppm;       /* W at which the W term reaches 1 (platform-measured) */
    uint32_t rcopy_max_ppm;   /* R_copy at which the R_copy term reaches 1 */
    uint32_t th_low, th_high; /* thresholds on f, in thousandths */
    unsigned mid_shrink;      /* slots reclaimed between the thresholds (gBalloon: 1 VM) */
    unsigned high_shrink;     /* slots reclaimed above the high threshold (gBalloon: 2) */
    uint32_t period_ms;       /* 500 in gBalloon; informational for callers */
};

/* gBalloon's values: thresholds 0.5 and 1.0, two slots above the high one, 0.5 s period;
 * W_max = 100% and R_copy_max = 10% of a CPU (a platform choice; see docs/gtt.md). */
void gtt_ctl_defaults(struct gtt_ctl_params *p);

struct gtt_ctl_vgpu {
    unsigned id;
    unsigned slots, min_slots, max_slots;
    uint32_t util_permille; /* how much of its graphics memory it uses */
    unsigned grow_request;  /* slots it asked for this period (0 = none) */
};

enum gtt_ctl_band { GTT_CTL_LOW = 0, GTT_CTL_MID, GTT_CTL_HIGH };
enum gtt_ctl_kind { GTT_CTL_GROW = 0, GTT_CTL_SHRINK, GTT_CTL_REFUSE };

struct gtt_ctl_action {
    enum gtt_ctl_kind kind;
    unsigned vgpu;
    unsigned q;
};

/* f(W, R_copy) in thousandths, each term capped at 1000. */
uint32_t gtt_ctl_f(const struct gtt_ctl_params *p, uint32_t w_ppm, uint32_t rcopy_ppm);

/* Decides one period.  Writes at most `cap` actions and returns how many (or GTT_EINVAL);
 * *band and *f (if not NULL) report the classification. */
int gtt_ctl_decide(const struct gtt_ctl_params *p, uint32_t w_ppm, uint32_t rcopy_ppm,
                   const struct gtt_ctl_vgpu *v, unsigned n, struct gtt_ctl_action *out,
                   unsigned cap, enum gtt_ctl_band *band, uint32_t *f);

#endif
