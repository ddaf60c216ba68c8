/* Cross-node rules, run once every node has been read and each value is in its own range:
 * unique guest names, the appliance's RAM budget, tiles on the wall, the graphics-memory fit
 * (gtt's layout function decides, so the rule is defined once) and the balloon's slot bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/internal.h"

void cfg_guest_path(const struct cfg *c, unsigned i, char buf[CFG_PATH_MAX])
{
    snprintf(buf, CFG_PATH_MAX, "/guests/%s", c->guest[i].name);
}

static bool same_name(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
        if (x == '\0')
            return true;
    }
}

/* Operators type guest names; two that differ only in case would be a trap. */
static int check_names(struct cfg_ctx *x)
{
    const struct cfg *c = x->out;
    char path[CFG_PATH_MAX], what[160];
    for (unsigned i = 0; i < c->n_guests; i++) {
        for (unsigned j = 0; j < i; j++) {
            if (same_name(c->guest[i].name, c->guest[j].name)) {
                cfg_guest_path(c, i, path);
                snprintf(what, sizeof what,
                         "duplicate guest name: guest %u is also called "
                         "\"%s\" (names must differ, ignoring case)",
                         j, c->guest[j].name);
                return cfg_fail(x, path, NULL, what);
            }
        }
        if (strcmp(c->guest[i].image, CFG_RESERVED_IMAGE_TAG) == 0) {
            cfg_guest_path(c, i, path);
            return cfg_fail(x, path, "image",
                            "\"" CFG_RESERVED_IMAGE_TAG "\" is reserved for "
                            "the configuration module; expected a guest image tag");
        }
    }
    return CFG_OK;
}

static int check_ram(struct cfg_ctx *x)
{
    const struct cfg *c = x->out;
    const struct cfg_appliance *a = &c->appliance;
    char path[CFG_PATH_MAX], what[240];
    if (a->reserved_mib >= a->ram_mib) {
        snprintf(what, sizeof what, "expected less than ram-mib (%u), got %u", a->ram_mib,
                 a->reserved_mib);
        return cfg_fail(x, "/appliance", "reserved-mib", what);
    }
    uint64_t allowed = a->ram_mib - a->reserved_mib, sum = 0;
    for (unsigned i = 0; i < c->n_guests; i++) {
        sum += c->guest[i].ram_mib;
        if (sum > allowed) {
            cfg_guest_path(c, i, path);
            snprintf(what, sizeof what,
                     "guests 0..%u need %llu MiB of RAM, the appliance "
                     "allows %llu MiB (/appliance ram-mib %u minus reserved-mib %u)",
                     i, (unsigned long long)sum, (unsigned long long)allowed, a->ram_mib,
                     a->reserved_mib);
            return cfg_fail(x, path, "ram-mib", what);
        }
    }
    return CFG_OK;
}

static bool tiles_overlap(const struct cfg_tile *a, const struct cfg_tile *b)
{
    /* Tiles were checked to lie inside the wall, so these sums cannot overflow. */
    return a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
           b->y < a->y + a->height;
}

static int check_tiles(struct cfg_ctx *x)
{
    const struct cfg *c = x->out;
    const struct cfg_display *d = &c->display;
    char path[CFG_PATH_MAX], what[240];
    for (unsigned i = 0; i < c->n_guests; i++) {
        const struct cfg_tile *t = &c->guest[i].tile;
        cfg_guest_path(c, i, path);
        if (t->width < CFG_TILE_MIN_PX || t->height < CFG_TILE_MIN_PX) {
            snprintf(what, sizeof what,
                     "tile %ux%u: width and height must be at least %u "
                     "pixels",
                     t->width, t->height, CFG_TILE_MIN_PX);
            return cfg_fail(x, path, "tile-px", what);
        }
        if ((uint64_t)t->x + t->width > d->width_px || (uint64_t)t->y + t->height > d->height_px) {
            snprintf(what, sizeof what,
                     "tile at %u,%u size %ux%u reaches %llu,%llu, outside "
                     "the %ux%u wall (/display)",
                     t->x, t->y, t->width, t->height, (unsigned long long)t->x + t->width,
                     (unsigned long long)t->y + t->height, d->width_px, d->height_px);
            return cfg_fail(x, path, "tile-px", what);
        }
        for (unsigned j = 0; j < i; j++) {
            const struct cfg_tile *u = &c->guest[j].tile;
            if (tiles_overlap(t, u)) {
                snprintf(what, sizeof what,
                         "tile at %u,%u size %ux%u overlaps guest %s's tile "
                         "at %u,%u size %ux%u",
                         t->x, t->y, t->width, t->height, c->guest[j].name, u->x, u->y, u->width,
                         u->height);
                return cfg_fail(x, path, "tile-px", what);
            }
        }
    }
    return CFG_OK;
}

void cfg_gtt_params(const struct cfg *c, struct gtt_layout_params *p,
                    struct gtt_guest_request req[TESSERA_MAX_GUESTS])
{
    unsigned n = c->n_guests <= TESSERA_MAX_GUESTS ? c->n_guests : TESSERA_MAX_GUESTS;
    for (unsigned i = 0; i < n; i++) {
        req[i].low_gm_bytes = (uint64_t)c->guest[i].low_gm_mib * GTT_MIB;
        req[i].high_gm_bytes = (uint64_t)c->guest[i].high_gm_mib * GTT_MIB;
    }
    gtt_layout_defaults(p, n, req);
    p->aperture_bytes = (uint64_t)c->appliance.aperture_mib * GTT_MIB;
    p->share = c->graphics.sharing == CFG_GM_SHARE_NONE ? GTT_SHARE_NONE
             : c->graphics.sharing == CFG_GM_SHARE_HIGH ? GTT_SHARE_HIGH
                                                        : GTT_SHARE_ALL;
    p->max_share = c->graphics.max_share;
}

/* When the whole set does not fit, blame the first guest whose request makes it overflow (the
 * shortest failing prefix), and its high-GM request if dropping that alone makes it fit, else
 * its low-GM request.  gtt's message for the whole set says by how much. */
static int blame_gm(struct cfg_ctx *x, struct gtt_layout_params *p, struct gtt_guest_request *req,
                    struct gtt_layout *l, const char *gtt_msg)
{
    const struct cfg *c = x->out;
    char path[CFG_PATH_MAX], what[480];
    unsigned n = p->n_guests, k;
    for (k = 1; k < n; k++) {
        p->n_guests = k;
        if (gtt_layout_compute(p, l, NULL, 0) != 0)
            break;
    }
    unsigned culprit = k - 1;
    uint64_t saved = req[culprit].high_gm_bytes;
    req[culprit].high_gm_bytes = 0;
    p->n_guests = k;
    bool high = gtt_layout_compute(p, l, NULL, 0) == 0;
    req[culprit].high_gm_bytes = saved;
    p->n_guests = n;

    cfg_guest_path(c, culprit, path);
    snprintf(what, sizeof what, "%u MiB does not fit (graphics sharing \"%s\"%s): %s",
             high ? c->guest[culprit].high_gm_mib : c->guest[culprit].low_gm_mib,
             cfg_gm_sharing_name(c->graphics.sharing),
             c->graphics.max_share ? ", max-share set" : "", gtt_msg);
    return cfg_fail(x, path, high ? "high-gm-mib" : "low-gm-mib", what);
}

static int check_graphics(struct cfg_ctx *x)
{
    struct cfg *c = x->out;
    struct gtt_layout_params p;
    struct gtt_guest_request req[TESSERA_MAX_GUESTS];
    char msg[320], what[400];
    struct gtt_layout *l = malloc(sizeof *l); /* a few KiB: keep it off the boot stack */
    if (!l)
        return cfg_fail_raw(x->err, x->errlen, CFG_ENOMEM,
                            "config: out of memory for the graphics-memory layout");
    cfg_gtt_params(c, &p, req);
    int rc = gtt_layout_compute(&p, l, msg, sizeof msg);
    if (rc == GTT_ENOSPC) {
        rc = blame_gm(x, &p, req, l, msg);
    } else if (rc != 0) {
        snprintf(what, sizeof what, "graphics-memory layout rejected: %s", msg);
        rc = cfg_fail(x, "/appliance", "aperture-mib", what);
    } else {
        c->n_slots = l->n_slots;
        rc = CFG_OK;
    }
    free(l);
    return rc;
}

static int check_balloon(struct cfg_ctx *x)
{
    struct cfg *c = x->out;
    struct cfg_balloon *b = &c->balloon;
    char path[CFG_PATH_MAX], what[240];
    if (b->low_threshold_pct >= b->high_threshold_pct) {
        snprintf(what, sizeof what, "expected more than low-threshold-pct (%u), got %u",
                 b->low_threshold_pct, b->high_threshold_pct);
        return cfg_fail(x, "/balloon", "high-threshold-pct", what);
    }
    if (!x->max_slots_given)
        b->max_slots = c->n_slots;
    if (b->max_slots > c->n_slots) {
        snprintf(what, sizeof what,
                 "expected at most %u (the high-GM slots with a %u MiB "
                 "aperture), got %u",
                 c->n_slots, c->appliance.aperture_mib, b->max_slots);
        return cfg_fail(x, "/balloon", "max-slots", what);
    }
    if (b->min_slots > b->max_slots) {
        snprintf(what, sizeof what, "expected at most max-slots (%u), got %u", b->max_slots,
                 b->min_slots);
        return cfg_fail(x, "/balloon", "min-slots", what);
    }
    if (!b->enabled)
        return CFG_OK;
    /* A guest starts with its high-GM request; the balloon then keeps it within the bounds. */
    for (unsigned i = 0; i < c->n_guests; i++) {
        uint32_t slots = c->guest[i].high_gm_mib / (uint32_t)CFG_SLOT_MIB;
        if (slots < b->min_slots || slots > b->max_slots) {
            cfg_guest_path(c, i, path);
            snprintf(what, sizeof what,
                     "%u MiB is %u slots, outside the balloon's bounds "
                     "%u..%u slots (/balloon min-slots, max-slots)",
                     c->guest[i].high_gm_mib, slots, b->min_slots, b->max_slots);
            return cfg_fail(x, path, "high-gm-mib", what);
        }
    }
    return CFG_OK;
}

void cfg_fence_shares(const struct cfg *c, uint64_t shares[TESSERA_MAX_GUESTS])
{
    uint64_t pool = (uint64_t)CFG_FENCE_POOL_KIB * 1024u, given = 0;
    unsigned n = c->n_guests <= TESSERA_MAX_GUESTS ? c->n_guests : TESSERA_MAX_GUESTS, rest = 0;
    for (unsigned i = 0; i < n; i++) {
        given += (uint64_t)c->guest[i].fence_pool_kib * 1024u;
        rest += c->guest[i].fence_pool_kib == 0;
    }
    uint64_t fair = rest && given < pool ? (pool - given) / rest : 0;
    fair -= fair % ((uint64_t)CFG_FENCE_SHARE_UNIT_KIB * 1024u);
    for (unsigned i = 0; i < n; i++)
        shares[i] = c->guest[i].fence_pool_kib ? (uint64_t)c->guest[i].fence_pool_kib * 1024u
                                               : fair;
}

/* The shares given must fit the pool, and leave some for every guest without one. */
static int check_fence_shares(struct cfg_ctx *x)
{
    const struct cfg *c = x->out;
    char path[CFG_PATH_MAX], what[240];
    uint64_t given = 0;
    unsigned rest = 0, last = 0;
    for (unsigned i = 0; i < c->n_guests; i++) {
        if (c->guest[i].fence_pool_kib) {
            given += c->guest[i].fence_pool_kib;
            last = i;
        } else {
            rest++;
        }
    }
    if (given == 0)
        return CFG_OK;
    cfg_guest_path(c, last, path);
    if (given > CFG_FENCE_POOL_KIB) {
        snprintf(what, sizeof what,
                 "the guests' fence-pool shares add up to %llu KiB, the fence "
                 "pool holds %u KiB",
                 (unsigned long long)given, CFG_FENCE_POOL_KIB);
        return cfg_fail(x, path, "fence-pool-kib", what);
    }
    if (rest && (CFG_FENCE_POOL_KIB - given) / rest < CFG_FENCE_SHARE_UNIT_KIB) {
        snprintf(what, sizeof what,
                 "the shares given add up to %llu KiB of the %u KiB fence "
                 "pool: less than %u KiB is left for each guest without a share (%u)",
                 (unsigned long long)given, CFG_FENCE_POOL_KIB, CFG_FENCE_SHARE_UNIT_KIB, rest);
        return cfg_fail(x, path, "fence-pool-kib", what);
    }
    return CFG_OK;
}

/* A legal workload must be able to fill a turn: a limit below the slice would reset work the
 * scheduler itself considers one turn's worth. */
static int check_workload_limit(struct cfg_ctx *x)
{
    const struct cfg_scheduler *s = &x->out->scheduler;
    char what[160];
    if (s->workload_limit_us >= s->slice_us)
        return CFG_OK;
    snprintf(what, sizeof what, "expected at least slice-us (%u), got %u", s->slice_us,
             s->workload_limit_us);
    return cfg_fail(x, "/scheduler", "workload-limit-us", what);
}

int cfg_check_semantics(struct cfg_ctx *x)
{
    struct cfg *c = x->out;
    if (!x->slice_given)
        c->scheduler.slice_us = c->scheduler.policy == CFG_SCHED_RR ? CFG_DEFAULT_RR_SLICE_US
                                                                    : CFG_DEFAULT_SLICE_US;
    int rc = check_names(x);
    if (rc == CFG_OK)
        rc = cfg_check_guest_kinds(x);
    if (rc == CFG_OK)
        rc = check_ram(x);
    if (rc == CFG_OK)
        rc = check_tiles(x);
    if (rc == CFG_OK)
        rc = check_graphics(x);
    if (rc == CFG_OK)
        rc = check_balloon(x);
    if (rc == CFG_OK)
        rc = check_workload_limit(x);
    if (rc == CFG_OK)
        rc = check_fence_shares(x);
    return rc;
}
