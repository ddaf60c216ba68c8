/* Randomised sequences of every gtt operation (fixed seeds, thousands of steps, 15 and 64
 * vGPUs), with the design's invariants checked after every single operation:
 *   - when vGPU v owns the engine, every physical entry in v's ranges equals v's shadow;
 *   - no physical entry ever points at a page outside the RAM of the guest that owns it;
 *   - fence-pool ranges never overlap, and each holds its guest's current entries;
 *   - slot grants never exceed the slots, and the sharer counts match the grants;
 *   - a balloon grow/shrink never moves a range (or shadow) another vGPU depends on;
 *   - a re-placement (random, or the planner's) carries the moved vGPU's shadow entry for
 *     entry, refuses what it must, and changes nothing of any other vGPU;
 *   - every guest's EPT view of its aperture window is what ladder mapping and fences say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>

#include "gtt/internal.h"
#include "../unit/test_gtt_fake.h"

#define MB (UINT64_C(1) << 20)
#define K4 UINT64_C(4096)

struct sim {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
    unsigned n;
    uint64_t rng;
    bool exists[GTT_MAX_VGPUS];
    unsigned long ops[11];
};

static uint64_t rnd(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static unsigned below(struct sim *s, unsigned n)
{
    return n ? (unsigned)(rnd(s) % n) : 0;
}

static bool in_ram(unsigned v, uint64_t pte)
{
    uint64_t a = pte & GEN9_GGTT_PTE_ADDR_MASK;
    return a >= fake_ram_base(v) && a < fake_ram_base(v) + FAKE_RAM_SIZE;
}

/* ---- invariants --------------------------------------------------------------------------- */

static void check_running_view(const struct sim *s)
{
    unsigned r = s->g.running;
    if (r == GTT_NO_VGPU)
        return;
    const struct gtt_vgpu *v = s->g.vgpu[r];
    assert_non_null(v);
    uint32_t lo = gtt_page_of(v->low.start);
    for (uint32_t k = 0; k < gtt_page_of(v->low.size); k++)
        assert_int_equal(s->f.ggtt[lo + k], v->low_host[k]);
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++) {
        if (!v->slot_host[sl])
            continue;
        uint32_t b = s->g.first_slot_entry + sl * s->g.slot_entries;
        for (uint32_t k = 0; k < s->g.slot_entries; k++)
            assert_int_equal(s->f.ggtt[b + k], v->slot_host[sl][k]);
    }
}

static void check_no_foreign_pages(const struct sim *s)
{
    for (uint32_t i = 0; i < s->f.n_entries; i++) {
        uint64_t pte = s->f.ggtt[i];
        uint16_t o = s->g.owner[i];
        if (o == GTT_NO_VGPU) {
            /* Nobody's: must not point into any guest's RAM (host area excepted: untouched). */
            if (i >= gtt_page_of(s->lay.fence_pool.start))
                assert_int_equal(pte, FAKE_SCRATCH);
            continue;
        }
        assert_true(o < GTT_MAX_VGPUS && s->g.vgpu[o]);
        assert_true(pte == FAKE_SCRATCH || in_ram(o, pte));
    }
    /* The per-slot summary never lies. */
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++) {
        uint16_t so = s->g.slot_owner[sl];
        if (so == GTT_OWNER_MIXED)
            continue;
        uint32_t b = s->g.first_slot_entry + sl * s->g.slot_entries;
        for (uint32_t k = 0; k < s->g.slot_entries; k++)
            assert_int_equal(s->g.owner[b + k], so);
    }
    /* Nor does the low-GM block summary (switches skip the blocks it names). */
    for (uint32_t i = 0; i < s->g.first_slot_entry; i++) {
        uint16_t bo = s->g.low_owner[i / GTT_LOW_BLOCK_ENTRIES];
        if (bo != GTT_OWNER_MIXED)
            assert_int_equal(s->g.owner[i], bo);
    }
}

static void check_fences(const struct sim *s)
{
    /* The pool is handed out in shares, one per vGPU, never overlapping; each vGPU's fences
     * take ranges of its own share only. */
    assert_true(gtt_pool_consistent(&s->g.pool));
    struct gtt_range used[GTT_MAX_VGPUS * GTT_MAX_VGPU_FENCES];
    unsigned n = 0, shares = 0;
    uint32_t regs = 0;
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = s->g.vgpu[id];
        if (!v)
            continue;
        shares += v->pool.size != 0;
        assert_true(gtt_pool_consistent(&v->pool));
        unsigned mine = 0;
        for (unsigned fi = 0; fi < v->n_fences; fi++) {
            const struct gtt_vfence *f = &v->fence[fi];
            if (!f->pooled) {
                assert_int_equal(f->mapped, 0);
                continue;
            }
            mine++;
            struct gtt_range r = { f->pool_start, f->guest.size };
            assert_true(r.start >= v->pool.base && r.start + r.size <= v->pool.base + v->pool.size);
            assert_true(r.start >= s->lay.fence_pool.start &&
                        r.start + r.size <= s->lay.fence_pool.start + s->lay.fence_pool.size);
            for (unsigned k = 0; k < n; k++)
                assert_true(r.start + r.size <= used[k].start ||
                            used[k].start + used[k].size <= r.start);
            used[n++] = r;
            assert_false(regs & (1u << f->phys_reg)); /* one register per fence */
            regs |= 1u << f->phys_reg;
            /* The pool copy is the guest's current entries for the pages done so far; the rest
             * of the range holds the host's scratch page. */
            uint32_t g0 = gtt_page_of(f->guest.start - v->low.start);
            assert_true(f->mapped <= gtt_page_of(f->guest.size));
            for (uint32_t k = 0; k < gtt_page_of(f->guest.size); k++)
                assert_int_equal(s->f.ggtt[gtt_page_of(r.start) + k],
                                 k < f->mapped ? v->low_host[g0 + k] : FAKE_SCRATCH);
        }
        assert_int_equal(mine, v->pool.n_used);
    }
    assert_int_equal(shares, s->g.pool.n_used);
}

static void check_slots(const struct sim *s)
{
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++) {
        unsigned holders = 0;
        for (unsigned id = 0; id < GTT_MAX_VGPUS; id++)
            holders += s->g.vgpu[id] && s->g.vgpu[id]->slot_host[sl];
        assert_int_equal(s->g.slot_sharers[sl], holders);
    }
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        const struct gtt_vgpu *v = s->g.vgpu[id];
        if (!v)
            continue;
        unsigned cnt = 0, first = 0, last = 0;
        for (unsigned sl = 0; sl < s->lay.n_slots; sl++)
            if (v->slot_host[sl]) {
                if (!cnt)
                    first = sl;
                last = sl;
                cnt++;
                assert_true(gtt_slot_bit(v, sl));
            } else {
                assert_false(gtt_slot_bit(v, sl));
            }
        assert_int_equal(cnt, v->n_slots);
        assert_true(v->n_slots >= v->min_slots && v->n_slots <= v->max_slots);
        /* The mapped counts the balloon controller reads agree with the entries. */
        uint32_t low = 0;
        for (uint32_t k = 0; k < gtt_page_of(v->low.size); k++)
            low += (v->low_guest[k] & GEN9_GGTT_PTE_PRESENT) != 0;
        assert_int_equal(v->low_mapped, low);
        for (unsigned sl = 0; sl < s->lay.n_slots; sl++) {
            uint32_t n = 0;
            for (uint32_t k = 0; v->slot_guest[sl] && k < s->g.slot_entries; k++)
                n += (v->slot_guest[sl][k] & GEN9_GGTT_PTE_PRESENT) != 0;
            assert_int_equal(v->slot_mapped[sl], n);
        }
        assert_true(v->max_slots <= s->lay.n_slots);
        if (s->g.slot_mode == GTT_SLOTS_CONTIGUOUS && cnt)
            assert_int_equal(last - first + 1, cnt);
    }
}

static void check_ept(const struct sim *s)
{
    for (unsigned id = 0; id < GTT_MAX_VGPUS; id++) {
        struct gtt_vgpu *v = s->g.vgpu[id];
        if (!v)
            continue;
        for (uint32_t k = 0; k < gtt_page_of(v->low.size); k++) {
            uint64_t addr = v->low.start + k * K4;
            const struct fake_ept *m = &s->f.ept[(size_t)id * s->f.aper_pages + (addr >> 12)];
            const struct gtt_vfence *f = gtt_fence_covering(v, addr);
            if (f) {
                assert_int_equal(m->kind, GTT_EPT_MAP_APERTURE);
                assert_int_equal(m->target, f->pool_start + (addr - f->guest.start));
            } else if (v->low_guest[k] & GEN9_GGTT_PTE_PRESENT) {
                assert_int_equal(m->kind, GTT_EPT_MAP_RAM);
                assert_int_equal(m->target, v->low_host[k] & GEN9_GGTT_PTE_ADDR_MASK);
                assert_true(in_ram(id, m->target));
            } else {
                assert_int_equal(m->kind, GTT_EPT_UNMAP);
            }
        }
    }
}

static void check_all(const struct sim *s)
{
    check_running_view(s);
    check_no_foreign_pages(s);
    check_fences(s);
    check_slots(s);
    check_ept(s);
}

/* A cheap fingerprint of a vGPU's ranges and shadow, to prove a balloon op on someone else left
 * it alone. */
static uint64_t fingerprint(const struct sim *s, unsigned id)
{
    const struct gtt_vgpu *v = s->g.vgpu[id];
    uint64_t h = 1469598103934665603u;
    if (!v)
        return 0;
    h = (h ^ v->low.start ^ (v->low.size << 20)) * 1099511628211u;
    for (uint32_t k = 0; k < gtt_page_of(v->low.size); k++)
        h = (h ^ v->low_host[k] ^ (v->low_guest[k] << 1)) * 1099511628211u;
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++) {
        h = (h ^ (v->slot_host[sl] != NULL)) * 1099511628211u;
        if (v->slot_host[sl])
            for (uint32_t k = 0; k < s->g.slot_entries; k++)
                h = (h ^ v->slot_host[sl][k]) * 1099511628211u;
    }
    return h;
}

/* ---- operations --------------------------------------------------------------------------- */

static unsigned pick_vgpu(struct sim *s)
{
    for (unsigned tries = 0; tries < 64; tries++) {
        unsigned v = below(s, s->n);
        if (s->exists[v])
            return v;
    }
    for (unsigned v = 0; v < s->n; v++)
        if (s->exists[v])
            return v;
    return 0;
}

static unsigned pick_active(struct sim *s)
{
    for (unsigned tries = 0; tries < 64; tries++) {
        unsigned v = pick_vgpu(s);
        if (s->g.vgpu[v] && s->g.vgpu[v]->active)
            return v;
    }
    return GTT_NO_VGPU;
}

/* An index inside v's ranges (most of the time) or anywhere. */
static uint32_t pick_index(struct sim *s, unsigned id)
{
    const struct gtt_vgpu *v = s->g.vgpu[id];
    unsigned r = below(s, 10);
    if (r == 0)
        return (uint32_t)(rnd(s) % (s->f.n_entries + 16));
    if (r < 5 && v->low.size)
        return gtt_page_of(v->low.start) + below(s, gtt_page_of(v->low.size));
    unsigned held[64], n = gtt_vgpu_slots(&s->g, id, held, 64);
    if (!n)
        return gtt_page_of(v->low.start);
    return s->g.first_slot_entry + held[below(s, n)] * s->g.slot_entries +
           below(s, s->g.slot_entries);
}

static void op_guest_write(struct sim *s)
{
    unsigned v = pick_vgpu(s);
    uint32_t i = pick_index(s, v);
    uint64_t pte;
    switch (below(s, 8)) {
    case 0:
        pte = 0;
        break; /* clear */
    case 1:
        pte = gpte(FAKE_RAM_SIZE + below(s, 1000) * K4);
        break; /* not its RAM */
    case 2:
        pte = gpte(K4) | (UINT64_C(1) << (40 + below(s, 20)));
        break; /* reserved bits */
    default:
        pte = gpte(below(s, 65536) * K4) | (below(s, 4) << 1);
        break;
    }
    int rc = gtt_guest_write(&s->g, v, i, pte);
    bool inside = gtt_vgpu_covers(&s->g, v, i);
    if (!inside)
        assert_int_equal(rc, GTT_ERANGE);
    else if ((pte & GEN9_GGTT_PTE_PRESENT) &&
             ((pte & GEN9_GGTT_PTE_ADDR_MASK) >= FAKE_RAM_SIZE || (pte >> 39)))
        assert_int_equal(rc, GTT_EPERM);
    else if (pte >> 39)
        assert_int_equal(rc, GTT_EPERM);
    else
        assert_int_equal(rc, 0);
}

static void check_fence_result(int rc, const struct gtt_fence_result *r, const char *err)
{
    assert_true(rc == 0 || rc == GTT_ERANGE || rc == GTT_EFULL || rc == GTT_EINVAL);
    if (rc == 0 && r->program) {
        assert_true(r->phys_reg < GEN9_FENCE_COUNT);
        struct gtt_fence_fields ff;
        assert_int_equal(gtt_fence_decode(r->phys_value, &ff), 0);
        assert_true(ff.valid);
    }
    if (rc)
        assert_true(err[0] != '\0');
}

/* A guest fence write: applied at once (gtt_fence_write), or requested and then worked on in a
 * few steps of random size, as the vGPU does, leaving fences partly applied in between. */
static void op_fence(struct sim *s)
{
    unsigned v = pick_vgpu(s);
    const struct gtt_vgpu *g = s->g.vgpu[v];
    unsigned fi = below(s, g->n_fences + 1);
    uint64_t val = 0;
    if (below(s, 4)) {
        uint32_t pages = gtt_page_of(g->low.size);
        uint64_t start = g->low.start + (uint64_t)below(s, pages + 8) * K4;
        uint64_t size = (1 + below(s, 32)) * K4;
        val = gtt_fence_encode(start, size, 128u << below(s, 6), below(s, 2), true);
    }
    struct gtt_fence_result r;
    char err[256];
    if (below(s, 2)) {
        check_fence_result(gtt_fence_write(&s->g, v, fi, val, &r, err, sizeof err), &r, err);
        return;
    }
    int rc = gtt_fence_request(&s->g, v, fi, val, err, sizeof err);
    assert_true(rc == 0 || (rc == GTT_ERANGE && fi >= g->n_fences));
    for (unsigned steps = below(s, 4); steps > 0; steps--) {
        int p = gtt_fence_pending(&s->g, v);
        if (p < 0)
            break;
        uint32_t budget = 1 + below(s, 12);
        check_fence_result(gtt_fence_work(&s->g, v, (unsigned)p, budget, &r, err, sizeof err), &r,
                           err);
        assert_true(r.pages <= budget);
    }
}

static void op_balloon(struct sim *s)
{
    unsigned v = pick_vgpu(s);
    uint64_t before[GTT_MAX_VGPUS];
    for (unsigned k = 0; k < s->n; k++)
        before[k] = k == v ? 0 : fingerprint(s, k);
    unsigned q = 1 + below(s, 3);
    int rc = below(s, 2) ? gtt_balloon_grow(&s->g, v, q) : gtt_balloon_shrink(&s->g, v, q);
    assert_true(rc == 0 || rc == GTT_ELIMIT);
    for (unsigned k = 0; k < s->n; k++)
        if (k != v)
            assert_true(before[k] == fingerprint(s, k));
}

static void op_controller(struct sim *s)
{
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    uint32_t util[GTT_MAX_VGPUS];
    unsigned req[GTT_MAX_VGPUS];
    for (unsigned k = 0; k < GTT_MAX_VGPUS; k++) {
        util[k] = below(s, 1001);
        req[k] = below(s, 4) == 0 ? 1 + below(s, 2) : 0;
    }
    struct gtt_ctl_report rep;
    assert_true(
        gtt_balloon_period(&s->g, &p, below(s, 1000000), below(s, 200000), util, req, &rep) >= 0);
}

/* The moved vGPU's shadow, offset by offset: what re-placement must carry. */
struct carried {
    uint64_t low_host[4096], low_guest[4096]; /* the small layout's whole aperture */
    uint32_t n_low;
    uint64_t slot_sum[64];
    unsigned n_slots;
};

static void carry_note(const struct sim *s, unsigned id, struct carried *c)
{
    const struct gtt_vgpu *v = s->g.vgpu[id];
    c->n_low = gtt_page_of(v->low.size);
    assert_true(c->n_low <= 4096);
    memcpy(c->low_host, v->low_host, c->n_low * sizeof c->low_host[0]);
    memcpy(c->low_guest, v->low_guest, c->n_low * sizeof c->low_guest[0]);
    c->n_slots = 0;
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++)
        if (v->slot_host[sl]) {
            uint64_t h = 0;
            for (uint32_t k = 0; k < s->g.slot_entries; k++)
                h = (h ^ v->slot_host[sl][k] ^ v->slot_guest[sl][k]) * 1099511628211u;
            c->slot_sum[c->n_slots++] = h;
        }
}

static void carry_check(const struct sim *s, unsigned id, const struct carried *c)
{
    const struct gtt_vgpu *v = s->g.vgpu[id];
    uint32_t n = gtt_page_of(v->low.size);
    for (uint32_t k = 0; k < n; k++) {
        if (k < c->n_low) {
            assert_int_equal(v->low_host[k], c->low_host[k]);
            assert_int_equal(v->low_guest[k], c->low_guest[k]);
        } else {
            assert_int_equal(v->low_host[k], v->scratch_pte);
            assert_int_equal(v->low_guest[k], 0);
        }
    }
    for (uint32_t k = n; k < c->n_low; k++)
        assert_false(c->low_guest[k] & GEN9_GGTT_PTE_PRESENT); /* a shrink drops nothing */
    unsigned j = 0;
    for (unsigned sl = 0; sl < s->lay.n_slots; sl++)
        if (v->slot_host[sl]) {
            uint64_t h = 0;
            for (uint32_t k = 0; k < s->g.slot_entries; k++)
                h = (h ^ v->slot_host[sl][k] ^ v->slot_guest[sl][k]) * 1099511628211u;
            assert_true(j < c->n_slots && h == c->slot_sum[j]);
            j++;
        }
    assert_int_equal(j, c->n_slots);
}

/* Moves v to `low` / `first` and checks what must hold around it. */
static int relocate_checked(struct sim *s, unsigned v, struct gtt_range low, unsigned first)
{
    uint64_t before[GTT_MAX_VGPUS];
    for (unsigned k = 0; k < s->n; k++)
        before[k] = k == v ? 0 : fingerprint(s, k);
    static struct carried c;
    carry_note(s, v, &c);
    uint64_t old_size = s->g.vgpu[v]->low.size;
    bool fenced = false;
    for (unsigned i = 0; i < s->g.vgpu[v]->n_fences; i++)
        fenced |= s->g.vgpu[v]->fence[i].pooled;
    unsigned old_first = 0;
    gtt_vgpu_slots(&s->g, v, &old_first, 1);
    int rc = gtt_vgpu_relocate(&s->g, v, low, first);
    bool low_moves = low.start != s->g.vgpu[v]->low.start || low.size != old_size;
    if (rc == 0)
        carry_check(s, v, &c);
    else if (rc == GTT_EBUSY)
        assert_true(fenced);
    else if (rc == GTT_EINVAL)
        assert_true((low.size < old_size && gtt_vgpu_low_extent(&s->g, v) > low.size) ||
                    s->g.slot_mode == GTT_SLOTS_SPARSE);
    else
        assert_int_equal(rc, GTT_ERANGE);
    (void)low_moves;
    (void)old_first;
    for (unsigned k = 0; k < s->n; k++)
        if (k != v)
            assert_true(before[k] == fingerprint(s, k));
    return rc;
}

static void op_relocate(struct sim *s)
{
    unsigned v = pick_vgpu(s);
    const struct gtt_vgpu *g = s->g.vgpu[v];
    uint64_t area = gtt_page_of(s->lay.low_guest.size);
    uint64_t pages = gtt_page_of(g->low.size);
    switch (below(s, 3)) {
    case 0:
        if (pages > 1)
            pages -= 1 + below(s, (unsigned)pages - 1);
        break; /* compaction */
    case 1:
        pages += below(s, 4);
        break;
    default:
        break;
    }
    if (pages > area)
        pages = area;
    uint64_t start = s->lay.low_guest.start + below(s, (unsigned)(area - pages + 3)) * K4;
    unsigned first = below(s, s->lay.n_slots + 2);
    relocate_checked(s, v, (struct gtt_range){ start, pages * K4 }, first);
}

/* The planner on a random busy set; its moves are applied as a guest that follows them would
 * (some guests do not), and must make the planned cost true. */
static void op_plan(struct sim *s)
{
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS] = { 0 };
    uint64_t want[GTT_MAX_VGPUS] = { 0 };
    for (unsigned v = 0; v < s->n; v++) {
        busy[v] = below(s, 3) == 0;
        movable[v] = below(s, 5) != 0;
        if (below(s, 4) == 0)
            want[v] = (1 + below(s, 256)) * K4;
    }
    struct gtt_move mv[GTT_MAX_VGPUS];
    struct gtt_plan_report rep;
    int n = gtt_plan(&s->g,
                     &(struct gtt_plan_input){ .busy = busy, .movable = movable, .low_want = want },
                     mv, GTT_MAX_VGPUS, &rep);
    assert_true(n >= 0);
    assert_true(rep.cost_plan <= rep.cost_now);
    for (int i = 0; i < n; i++) {
        assert_true(busy[mv[i].vgpu]);
        assert_true(movable[mv[i].vgpu]);
        int rc = relocate_checked(s, mv[i].vgpu, mv[i].low, mv[i].first_slot);
        assert_true(rc == 0 || rc == GTT_EBUSY);
    }
}

static void create(struct sim *s, unsigned v)
{
    assert_int_equal(gtt_vgpu_create_from_layout(&s->g, v), 0);
    s->g.vgpu[v]->max_slots = s->lay.guest[v].n_slots * 2;
    s->exists[v] = true;
    /* A new guest's EPT view starts empty. */
    for (uint32_t k = 0; k < s->f.aper_pages; k++)
        s->f.ept[(size_t)v * s->f.aper_pages + k] = (struct fake_ept){ GTT_EPT_UNMAP, 0 };
}

static void step(struct sim *s)
{
    unsigned op = below(s, 100);
    unsigned v;
    if (op < 45) {
        op_guest_write(s);
        s->ops[0]++;
    } else if (op < 55) {
        v = pick_vgpu(s);
        gtt_set_active(&s->g, v, below(s, 3) != 0);
        s->ops[1]++;
    } else if (op < 70) {
        v = pick_active(s);
        if (v != GTT_NO_VGPU) {
            long w = gtt_switch_to(&s->g, v);
            assert_true(w >= 0);
        }
        s->ops[2]++;
    } else if (op < 77) {
        v = pick_active(s);
        if (v != GTT_NO_VGPU)
            assert_true(gtt_predict(&s->g, v) >= 0);
        s->ops[3]++;
    } else if (op < 85) {
        op_fence(s);
        s->ops[4]++;
    } else if (op < 93) {
        op_balloon(s);
        s->ops[5]++;
    } else if (op < 95) {
        v = pick_vgpu(s);
        assert_int_equal(gtt_vgpu_reset(&s->g, v, NULL), 0);
        s->ops[6]++;
    } else if (op < 96) {
        v = pick_vgpu(s);
        uint32_t regs = 0;
        assert_int_equal(gtt_vgpu_destroy(&s->g, v, &regs), 0);
        s->exists[v] = false;
        create(s, v);
        s->ops[7]++;
    } else if (op < 97) {
        op_controller(s);
        s->ops[8]++;
    } else if (op < 99) {
        op_relocate(s);
        s->ops[9]++;
    } else {
        op_plan(s);
        s->ops[10]++;
    }
}

static void run(unsigned n, unsigned steps, uint64_t seed, enum gtt_copy_mode copy,
                enum gtt_slot_mode mode)
{
    struct sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->n = n;
    s->rng = seed;
    /* 64 MiB GGTT, 16 MiB aperture, 1 MiB slots: 48 slots.  Each guest asks 1 MiB of low GM
     * and 3 slots, so 15 guests already share and 64 share heavily. */
    assert_int_equal(small_layout(&s->lay, n, MB, 3 * MB, GTT_SHARE_ALL), 0);
    fake_init(&s->f, &s->lay);
    struct gtt_config c = fake_config(&s->f, &s->lay);
    c.copy = copy;
    c.slots = mode;
    c.host_fences = 4;
    assert_int_equal(gtt_init(&s->g, &c), 0);
    for (unsigned v = 0; v < n; v++)
        create(s, v);
    check_all(s);
    for (unsigned i = 0; i < steps; i++) {
        step(s);
        check_all(s);
    }
    struct gtt_summary sum;
    gtt_summarize(&s->g, &sum);
    /* The run must actually have exercised the machinery. */
    assert_true(sum.st.switches > steps / 20);
    assert_true(sum.st.entries_switch > 0);
    assert_true(sum.st.writes_refused > 0);
    assert_true(sum.st.balloon_grows + sum.st.balloon_shrinks > 0);
    assert_true(sum.st.entries_fence > 0);
    assert_true(sum.st.moves > 0);
    print_message("n=%u steps=%u: %" PRIu64 " switches, %" PRIu64 " entries switched, %" PRIu64
                  " predicted, %" PRIu64 " refused writes, %" PRIu64 " fence refusals, %" PRIu64
                  "/%" PRIu64 " balloon grows/shrinks, %" PRIu64
                  " re-placements (%lu random, %lu plans)\n",
                  n, steps, sum.st.switches, sum.st.entries_switch, sum.st.entries_predict,
                  sum.st.writes_refused, sum.st.fence_refused, sum.st.balloon_grows,
                  sum.st.balloon_shrinks, sum.st.moves, s->ops[9], s->ops[10]);
    gtt_fini(&s->g);
    fake_fini(&s->f);
    free(s);
}

static void test_15_vgpus_contiguous(void **state)
{
    (void)state;
    run(15, 4000, 0x15c0ffee, GTT_COPY_ENTRY, GTT_SLOTS_CONTIGUOUS);
}

static void test_15_vgpus_sparse(void **state)
{
    (void)state;
    run(15, 4000, 0x15beef, GTT_COPY_ENTRY, GTT_SLOTS_SPARSE);
}

static void test_64_vgpus_contiguous(void **state)
{
    (void)state;
    run(64, 3000, 0x64c0ffee, GTT_COPY_ENTRY, GTT_SLOTS_CONTIGUOUS);
}

static void test_64_vgpus_sparse(void **state)
{
    (void)state;
    run(64, 3000, 0x64beef, GTT_COPY_ENTRY, GTT_SLOTS_SPARSE);
}

static void test_15_vgpus_range_and_full_modes(void **state)
{
    (void)state;
    run(15, 2000, 0x15aaaa, GTT_COPY_RANGE, GTT_SLOTS_CONTIGUOUS);
    run(15, 2000, 0x15bbbb, GTT_COPY_FULL, GTT_SLOTS_SPARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_15_vgpus_contiguous),
        cmocka_unit_test(test_15_vgpus_sparse),
        cmocka_unit_test(test_64_vgpus_contiguous),
        cmocka_unit_test(test_64_vgpus_sparse),
        cmocka_unit_test(test_15_vgpus_range_and_full_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
