/* Graphics-memory layout: validation, fit checks with precise messages, initial placement. */
#include "gtt/layout.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE GTT_PAGE_BYTES

/* Writes a size as "N MiB" when it is whole mebibytes, else "N KiB" (sizes are page multiples
 * once validated; unvalidated sizes fall back to bytes). */
static const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
    if (bytes % GTT_MIB == 0)
        snprintf(buf, len, "%" PRIu64 " MiB", bytes / GTT_MIB);
    else if (bytes % 1024 == 0)
        snprintf(buf, len, "%" PRIu64 " KiB", bytes / 1024);
    else
        snprintf(buf, len, "%" PRIu64 " bytes", bytes);
    return buf;
}

#define SZ(i, v) fmt_size(sz[i], sizeof sz[i], (v))

static int fail(char *err, size_t errlen, int code, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return code;
}

/* ---- placement of intervals on a line, minimising overlap -------------------------------- */

struct ivl {
    uint64_t lo, hi; /* [lo, hi) */
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Coverage of [a, b) by the placed intervals: the maximum number covering any point and the
 * overlap volume (sum over intervals of the length they share with [a, b)). */
static void coverage(const struct ivl *iv, unsigned n, uint64_t a, uint64_t b, unsigned *max_cov,
                     uint64_t *volume)
{
    unsigned best = 0;
    uint64_t vol = 0;
    /* The maximum is reached at a or at some interval start inside (a, b). */
    for (unsigned i = 0; i <= n; i++) {
        uint64_t x = i == n ? a : iv[i].lo;
        if (x < a || x >= b)
            continue;
        unsigned c = 0;
        for (unsigned j = 0; j < n; j++)
            if (iv[j].lo <= x && x < iv[j].hi)
                c++;
        if (c > best)
            best = c;
    }
    for (unsigned j = 0; j < n; j++) {
        uint64_t lo = iv[j].lo > a ? iv[j].lo : a, hi = iv[j].hi < b ? iv[j].hi : b;
        if (lo < hi)
            vol += hi - lo;
    }
    *max_cov = best;
    *volume = vol;
}

/* Chooses where [start, start + size) goes inside [lo, hi) (size <= hi - lo): the fewest
 * intervals on any point, then the least overlap, then the leftmost.  Candidate starts are the
 * area's start and every placed boundary, on either side, since an optimum can be slid until
 * one of its ends touches a boundary. */
static uint64_t place_interval(const struct ivl *iv, unsigned n, uint64_t lo, uint64_t hi,
                               uint64_t size)
{
    uint64_t cand[2 * 2 * GTT_MAX_VGPUS + 2];
    unsigned nc = 0;
    cand[nc++] = lo;
    cand[nc++] = hi - size;
    for (unsigned i = 0; i < n; i++) {
        const uint64_t pts[2] = { iv[i].lo, iv[i].hi };
        for (unsigned k = 0; k < 2; k++) {
            if (pts[k] >= lo && pts[k] + size <= hi)
                cand[nc++] = pts[k];
            if (pts[k] >= lo + size && pts[k] <= hi)
                cand[nc++] = pts[k] - size;
        }
    }
    qsort(cand, nc, sizeof cand[0], cmp_u64);
    uint64_t best_start = lo, best_vol = UINT64_MAX;
    unsigned best_cov = UINT32_MAX;
    for (unsigned i = 0; i < nc; i++) {
        unsigned c;
        uint64_t v;
        coverage(iv, n, cand[i], cand[i] + size, &c, &v);
        if (c < best_cov || (c == best_cov && v < best_vol)) {
            best_cov = c;
            best_vol = v;
            best_start = cand[i];
        }
    }
    return best_start;
}

static unsigned max_coverage(const struct ivl *iv, unsigned n)
{
    unsigned best = 0;
    for (unsigned i = 0; i < n; i++) {
        if (iv[i].lo == iv[i].hi)
            continue;
        unsigned c;
        uint64_t v;
        coverage(iv, n, iv[i].lo, iv[i].lo + 1, &c, &v);
        if (c > best)
            best = c;
    }
    return best;
}

/* Guest order for placement: largest request first (so partitions pack without holes), then
 * by id, so the result is deterministic. */
struct order_key {
    uint64_t size;
    unsigned id;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* ---- public ------------------------------------------------------------------------------- */

void gtt_layout_defaults(struct gtt_layout_params *p, unsigned n_guests,
                         const struct gtt_guest_request *req)
{
    memset(p, 0, sizeof *p);
    p->ggtt_bytes = GTT_DEFAULT_GGTT_BYTES;
    p->aperture_bytes = GTT_DEFAULT_APERTURE;
    p->host_area_bytes = GTT_DEFAULT_HOST_AREA;
    p->fence_pool_bytes = GTT_DEFAULT_FENCE_POOL;
    p->slot_bytes = GTT_DEFAULT_SLOT_BYTES;
    p->n_guests = n_guests;
    p->req = req;
    p->share = GTT_SHARE_ALL;
    p->max_share = 0;
}

uint64_t gtt_layout_slot_addr(const struct gtt_layout *l, unsigned s)
{
    return l->slots.start + (uint64_t)s * l->slot_bytes;
}

unsigned gtt_layout_slots_for(const struct gtt_layout *l, uint64_t high_gm_bytes)
{
    return (unsigned)((high_gm_bytes + l->slot_bytes - 1) / l->slot_bytes);
}

static int check_params(const struct gtt_layout_params *p, char *err, size_t errlen)
{
    char msg[256], sz[2][32];
    if (p->n_guests > GTT_MAX_VGPUS) {
        snprintf(msg, sizeof msg, "%u guests asked, at most %u vGPUs are supported", p->n_guests,
                 GTT_MAX_VGPUS);
        return fail(err, errlen, GTT_ETOOMANY, msg);
    }
    if (p->n_guests > 0 && !p->req)
        return fail(err, errlen, GTT_EINVAL, "guest requests missing (req is NULL)");
    if (p->share != GTT_SHARE_ALL && p->share != GTT_SHARE_HIGH && p->share != GTT_SHARE_NONE)
        return fail(err, errlen, GTT_EINVAL, "unknown sharing mode");
    if (p->ggtt_bytes == 0 || p->ggtt_bytes % PAGE || p->ggtt_bytes > GEN9_GGTT_MAX_BYTES) {
        snprintf(msg, sizeof msg,
                 "GGTT size %s must be a non-zero multiple of 4 KiB and at most %s",
                 SZ(0, p->ggtt_bytes), SZ(1, GEN9_GGTT_MAX_BYTES));
        return fail(err, errlen, GTT_EINVAL, msg);
    }
    if (p->aperture_bytes == 0 || p->aperture_bytes % PAGE || p->aperture_bytes > p->ggtt_bytes) {
        snprintf(msg, sizeof msg,
                 "aperture size %s must be a non-zero multiple of 4 KiB and at most the GGTT (%s)",
                 SZ(0, p->aperture_bytes), SZ(1, p->ggtt_bytes));
        return fail(err, errlen, GTT_EINVAL, msg);
    }
    if (p->slot_bytes == 0 || p->slot_bytes % PAGE) {
        snprintf(msg, sizeof msg, "slot size %s must be a non-zero multiple of 4 KiB",
                 SZ(0, p->slot_bytes));
        return fail(err, errlen, GTT_EINVAL, msg);
    }
    if (p->host_area_bytes % PAGE || p->fence_pool_bytes % PAGE) {
        snprintf(msg, sizeof msg, "host area (%s) and fence pool (%s) must be multiples of 4 KiB",
                 SZ(0, p->host_area_bytes), SZ(1, p->fence_pool_bytes));
        return fail(err, errlen, GTT_EINVAL, msg);
    }
    for (unsigned i = 0; i < p->n_guests; i++) {
        if (p->req[i].low_gm_bytes % PAGE || p->req[i].high_gm_bytes % PAGE) {
            snprintf(msg, sizeof msg,
                     "guest %u: low (%s) and high (%s) graphics memory must be multiples of 4 KiB",
                     i, SZ(0, p->req[i].low_gm_bytes), SZ(1, p->req[i].high_gm_bytes));
            return fail(err, errlen, GTT_EINVAL, msg);
        }
        if (p->req[i].low_gm_bytes > GEN9_GGTT_MAX_BYTES ||
            p->req[i].high_gm_bytes > GEN9_GGTT_MAX_BYTES) {
            snprintf(msg, sizeof msg, "guest %u: request larger than any GGTT (%s)", i,
                     SZ(0, GEN9_GGTT_MAX_BYTES));
            return fail(err, errlen, GTT_ENOSPC, msg);
        }
    }
    return 0;
}

static int check_low(const struct gtt_layout_params *p, uint64_t low_avail, char *err,
                     size_t errlen)
{
    char msg[320], sz[5][32];
    /* "aperture (A) leaves L after host area (H) and fence pool (F)" is common to all. */
    char tail[160];
    snprintf(tail, sizeof tail, "aperture (%s) leaves %s after host area (%s) and fence pool (%s)",
             SZ(0, p->aperture_bytes), SZ(1, low_avail), SZ(2, p->host_area_bytes),
             SZ(3, p->fence_pool_bytes));
    if (p->share == GTT_SHARE_ALL) {
        for (unsigned i = 0; i < p->n_guests; i++) {
            uint64_t want = p->req[i].low_gm_bytes;
            if (want > low_avail) {
                snprintf(msg, sizeof msg, "low graphics memory: guest %u asks %s, %s: %s short", i,
                         SZ(4, want), tail, SZ(0, want - low_avail));
                return fail(err, errlen, GTT_ENOSPC, msg);
            }
        }
        return 0;
    }
    uint64_t sum = 0;
    for (unsigned i = 0; i < p->n_guests; i++)
        sum += p->req[i].low_gm_bytes;
    if (sum > low_avail) {
        snprintf(msg, sizeof msg, "low graphics memory: guests ask %s, %s: %s short", SZ(4, sum),
                 tail, SZ(0, sum - low_avail));
        return fail(err, errlen, GTT_ENOSPC, msg);
    }
    return 0;
}

static int check_high(const struct gtt_layout_params *p, const struct gtt_layout *l, char *err,
                      size_t errlen)
{
    char msg[320], sz[4][32];
    uint64_t total = 0;
    for (unsigned i = 0; i < p->n_guests; i++) {
        unsigned k = gtt_layout_slots_for(l, p->req[i].high_gm_bytes);
        total += k;
        if (k > l->n_slots) {
            snprintf(msg, sizeof msg,
                     "high graphics memory: guest %u asks %s (%u slots of %s), high GM holds "
                     "%u slots: %u slots (%s) short",
                     i, SZ(0, p->req[i].high_gm_bytes), k, SZ(1, l->slot_bytes), l->n_slots,
                     k - l->n_slots, SZ(2, (uint64_t)(k - l->n_slots) * l->slot_bytes));
            return fail(err, errlen, GTT_ENOSPC, msg);
        }
    }
    if (p->share == GTT_SHARE_NONE && total > l->n_slots) {
        snprintf(msg, sizeof msg,
                 "high graphics memory: guests ask %" PRIu64 " slots of %s (%s), high GM holds "
                 "%u slots: %" PRIu64 " slots (%s) short",
                 total, SZ(0, l->slot_bytes), SZ(1, total * l->slot_bytes), l->n_slots,
                 total - l->n_slots, SZ(2, (total - l->n_slots) * l->slot_bytes));
        return fail(err, errlen, GTT_ENOSPC, msg);
    }
    return 0;
}

static void place_all(const struct gtt_layout_params *p, struct gtt_layout *l, bool low)
{
    struct order_key ord[GTT_MAX_VGPUS];
    struct ivl placed[GTT_MAX_VGPUS];
    unsigned n = 0;
    for (unsigned i = 0; i < p->n_guests; i++) {
        ord[i].id = i;
        ord[i].size = low ? p->req[i].low_gm_bytes : p->req[i].high_gm_bytes;
    }
    /* cppcheck-suppress uninitvar ; qsort reads the n_guests entries the loop above set */
    qsort(ord, p->n_guests, sizeof ord[0], cmp_order);
    /* Low windows are placed in pages, slots in slot units. */
    uint64_t lo = low ? l->low_guest.start / PAGE : 0;
    uint64_t hi = low ? (l->low_guest.start + l->low_guest.size) / PAGE : l->n_slots;
    for (unsigned k = 0; k < p->n_guests; k++) {
        unsigned id = ord[k].id;
        uint64_t units = low ? ord[k].size / PAGE : gtt_layout_slots_for(l, ord[k].size);
        struct gtt_guest_layout *g = &l->guest[id];
        if (units == 0) {
            if (low)
                g->low = (struct gtt_range){ 0, 0 };
            else
                g->first_slot = 0, g->n_slots = 0;
            continue;
        }
        uint64_t s = place_interval(placed, n, lo, hi, units);
        placed[n++] = (struct ivl){ s, s + units };
        if (low)
            g->low = (struct gtt_range){ s * PAGE, units * PAGE };
        else
            g->first_slot = (unsigned)s, g->n_slots = (unsigned)units;
    }
    if (low)
        l->max_low_share = max_coverage(placed, n);
    else
        l->max_slot_share = max_coverage(placed, n);
}

int gtt_layout_compute(const struct gtt_layout_params *p, struct gtt_layout *out, char *err,
                       size_t errlen)
{
    char msg[320], sz[5][32];
    if (err && errlen)
        err[0] = '\0';
    if (!p || !out)
        return fail(err, errlen, GTT_EINVAL, "no parameters or no output");
    int rc = check_params(p, err, errlen);
    if (rc)
        return rc;
    uint64_t reserved = p->host_area_bytes + p->fence_pool_bytes;
    if (reserved > p->aperture_bytes) {
        snprintf(msg, sizeof msg,
                 "low graphics memory: host area (%s) and fence pool (%s) need %s, aperture is "
                 "%s: %s short",
                 SZ(0, p->host_area_bytes), SZ(1, p->fence_pool_bytes), SZ(2, reserved),
                 SZ(3, p->aperture_bytes), SZ(4, reserved - p->aperture_bytes));
        return fail(err, errlen, GTT_ENOSPC, msg);
    }

    struct gtt_layout *l = out;
    memset(l, 0, sizeof *l);
    l->ggtt_bytes = p->ggtt_bytes;
    l->aperture_bytes = p->aperture_bytes;
    l->slot_bytes = p->slot_bytes;
    l->share = p->share;
    l->n_guests = p->n_guests;
    l->host = (struct gtt_range){ 0, p->host_area_bytes };
    l->fence_pool = (struct gtt_range){ p->host_area_bytes, p->fence_pool_bytes };
    l->low_guest = (struct gtt_range){ reserved, p->aperture_bytes - reserved };
    l->n_slots = (unsigned)((p->ggtt_bytes - p->aperture_bytes) / p->slot_bytes);
    l->slots = (struct gtt_range){ p->aperture_bytes, (uint64_t)l->n_slots * p->slot_bytes };

    rc = check_low(p, l->low_guest.size, err, errlen);
    if (rc)
        return rc;
    rc = check_high(p, l, err, errlen);
    if (rc)
        return rc;

    place_all(p, l, true);
    place_all(p, l, false);

    if (p->max_share) {
        unsigned worst = l->max_low_share > l->max_slot_share ? l->max_low_share
                                                              : l->max_slot_share;
        if (worst > p->max_share) {
            bool lowside = l->max_low_share >= l->max_slot_share;
            snprintf(msg, sizeof msg,
                     "%s graphics memory: placing %u guests shares one %s among %u guests, "
                     "the limit is %u: %u too many on it",
                     lowside ? "low" : "high", p->n_guests, lowside ? "page" : "slot", worst,
                     p->max_share, worst - p->max_share);
            return fail(err, errlen, GTT_ENOSPC, msg);
        }
    }
    /* The partitioned modes must not have produced any overlap; the fit checks above guarantee
     * it (largest-first packing leaves no holes), so this is a self-check. */
    if ((p->share != GTT_SHARE_ALL && l->max_low_share > 1) ||
        (p->share == GTT_SHARE_NONE && l->max_slot_share > 1))
        return fail(err, errlen, GTT_ENOSPC, "partitioned placement failed to pack");
    return 0;
}
